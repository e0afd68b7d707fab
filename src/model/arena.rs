//! The types the tree and its builder refer to each other by: a node and
//! its id, the arena that holds the nodes, the builder's handle on it, the
//! functions that build a node's children, and what a node's uncovered
//! bytes become. Kept in one file so that the tree (`tree.rs`) and the
//! builder's methods (`builder/`) each depend on it and not on each other.

use std::sync::Arc;

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::diagnostic::Diagnostic;
use super::facts::Facts;
use super::format::Format;
use super::options::Options;
use super::space::Span;
use super::space::{Space, SpaceId, FILE};
use super::value::Value;

/// Index of a node in its tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub const ROOT: NodeId = NodeId(0);
    /// No node: stands in where an id is needed and none can be.
    pub const MAX: NodeId = NodeId(u32::MAX);

    /// The node's index in its tree's arena.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The node at index `i` of an arena (which never holds more than
    /// `u32::MAX` nodes).
    pub fn at(i: usize) -> NodeId {
        NodeId(i as u32)
    }
}

/// One node: a named byte range of its space with an optional typed value.
/// What few nodes have (a link, a format, a builder of children) is kept
/// beside the nodes (see [`Tree::link`](super::Tree::link), [`Tree::node_format`](super::Tree::node_format)), so that a
/// node stays small: trees of millions are built and dropped in a walk.
#[derive(Clone)]
pub struct Node {
    pub name: CompactString,
    pub offset: u64,
    pub size: u64,
    pub value: Option<Value>,
    /// The byte space `offset` and `size` are in (0: the file).
    pub space: SpaceId,
    pub parent: Option<NodeId>,
    /// The children built so far.
    pub(crate) children: Vec<NodeId>,
    /// True while the children are still to be built by the node's builder.
    pub(crate) unbuilt: bool,
    /// How many formats deep this node's contents are nested.
    pub(crate) nest: u8,
    /// What the bytes of this node that no child covers become.
    pub(crate) gaps: Gap,
    /// Its own range and value are known once its builder has run (see
    /// [`super::Builder::lazy_self`]): walks build it before visiting it.
    pub(crate) opens_self: bool,
}

const _: () = assert!(std::mem::size_of::<Node>() <= 120);

impl Node {
    /// A node with no children yet.
    pub(crate) fn new(
        name: CompactString,
        offset: u64,
        size: u64,
        value: Option<Value>,
        space: SpaceId,
        parent: Option<NodeId>,
        nest: u8,
    ) -> Node {
        Node {
            name,
            offset,
            size,
            value,
            space,
            parent,
            children: Vec::new(),
            unbuilt: false,
            nest,
            gaps: Gap::Inherit,
            opens_self: false,
        }
    }
}

/// Values that few nodes have, kept beside the nodes in node order, so
/// that forgetting the nodes after a mark forgets their values too.
#[derive(Clone)]
pub(crate) struct Side<T>(Vec<(NodeId, T)>);

impl<T> Default for Side<T> {
    fn default() -> Self {
        Side(Vec::new())
    }
}

impl<T> Side<T> {
    pub fn get(&self, id: NodeId) -> Option<&T> {
        let i = self.0.binary_search_by_key(&id, |e| e.0).ok()?;
        self.0.get(i).map(|e| &e.1)
    }
    #[inline]
    pub fn set(&mut self, id: NodeId, v: T) {
        // Nearly always the newest node, or one just before it.
        if self.0.last().is_none_or(|e| e.0 < id) {
            self.0.push((id, v));
            return;
        }
        self.set_inside(id, v);
    }
    #[inline(never)]
    fn set_inside(&mut self, id: NodeId, v: T) {
        match self.0.binary_search_by_key(&id, |e| e.0) {
            Ok(i) => {
                if let Some(e) = self.0.get_mut(i) {
                    e.1 = v;
                }
            }
            Err(i) => self.0.insert(i, (id, v)),
        }
    }
    /// Forgets the values of nodes `mark` and later.
    pub fn truncate(&mut self, mark: usize) {
        let k = self.0.partition_point(|e| e.0.index() < mark);
        self.0.truncate(k);
    }
}

impl Node {
    /// Its bytes.
    pub fn span(&self) -> Span {
        Span::new(self.space, self.offset, self.size)
    }
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
    /// True if the byte at `off` lies inside this node.
    pub fn contains(&self, off: u64) -> bool {
        off >= self.offset && off < self.end()
    }
}

pub(crate) struct Arena {
    pub nodes: Vec<Node>,
    /// Where a node's value points.
    pub links: Side<Span>,
    /// The format that starts at a node.
    pub formats: Side<Format>,
    /// What parsers recorded of a node for consumers (see [`Facts`]).
    pub facts: Side<Facts>,
    /// The nodes with many children for their bytes (see
    /// [`super::Builder::dense`]).
    pub dense: Side<()>,
    /// What builds a node's children.
    pub lazies: Side<LazyFn>,
    /// The name of the first child of lazy nodes that know it before
    /// they are built (see [`super::Builder::lead`]).
    pub leads: Side<CompactString>,
    pub diags: Vec<Diagnostic>,
    /// Every diagnostic raised so far, so that one raised again when a
    /// released node is rebuilt is not listed twice.
    pub seen: FxHashSet<Diagnostic>,
    /// Space 0 is the file; derived spaces are kept once made (a rebuilt
    /// node finds its space again by its origin).
    pub spaces: Vec<Space>,
    /// Bytes held by derived spaces.
    pub derived: u64,
    /// What identifies a node among its siblings where its name does not
    /// (an XCLBIN section by kind and name, an XML element by its `name`),
    /// for aligning two trees. Few nodes have one.
    pub keys: FxHashMap<NodeId, CompactString>,
    /// Ranges to give nodes once the gaps of the build are made (see
    /// [`super::Builder::place_later`]).
    pub placed_later: Vec<(NodeId, u64, u64)>,
    /// Emptied lists of children of released nodes, for new nodes to take
    /// rather than allocate: a walk over a huge tree builds and drops
    /// millions of nodes, most with a few children.
    pub spare: Vec<Vec<NodeId>>,
    /// What the reader asked the formats to show.
    pub options: Options,
    /// In a scan for nested formats of a mapped file, what gives back the
    /// pages of the images read.
    pub pager: Option<super::source::Pager>,
}

/// How many emptied lists of children the arena keeps, and the largest
/// one it keeps.
const SPARE_LISTS: usize = 4096;
const SPARE_CAP: usize = 64;

impl Arena {
    /// A copy of the nodes and all that is kept beside them, as they are
    /// now; without the pager (the copy gives back no pages) and without
    /// the emptied lists kept for reuse.
    pub(crate) fn copy(&self) -> Arena {
        Arena {
            nodes: self.nodes.clone(),
            links: self.links.clone(),
            formats: self.formats.clone(),
            facts: self.facts.clone(),
            dense: self.dense.clone(),
            lazies: self.lazies.clone(),
            leads: self.leads.clone(),
            diags: self.diags.clone(),
            seen: self.seen.clone(),
            spaces: self.spaces.clone(),
            derived: self.derived,
            keys: self.keys.clone(),
            placed_later: self.placed_later.clone(),
            spare: Vec::new(),
            options: self.options,
            pager: None,
        }
    }

    /// An empty list of children, one kept from a released node if any.
    #[inline]
    pub(crate) fn take_spare(spare: &mut Vec<Vec<NodeId>>) -> Vec<NodeId> {
        spare.pop().unwrap_or_default()
    }

    /// Keeps the lists of children of the nodes from `mark` on (about to
    /// be dropped) for new nodes.
    pub(super) fn keep_spares(&mut self, mark: usize) {
        let Some(gone) = self.nodes.get_mut(mark..) else {
            return;
        };
        for n in gone {
            let c = n.children.capacity();
            if c > 0 && c <= SPARE_CAP && self.spare.len() < SPARE_LISTS {
                let mut v = std::mem::take(&mut n.children);
                v.clear();
                self.spare.push(v);
            }
        }
    }

    /// The bytes of derived space `space` (`None` for the file, whose bytes
    /// the source holds, and for a space not made).
    pub(crate) fn derived_bytes(&self, space: SpaceId) -> Option<super::space::SpaceBytes> {
        if space == FILE {
            return None;
        }
        self.spaces.get(space.index()).and_then(|s| s.bytes.clone())
    }
}

/// Builds the children of a node when they are first needed.
pub type LazyFn = Arc<dyn Fn(&mut Builder<'_>, NodeId) + Send + Sync>;

/// Builds one element of an array: `(builder, parent, index, offset)`.
pub type ElemFn = Arc<dyn Fn(&mut Builder<'_>, NodeId, u64, u64) + Send + Sync>;

/// Detects a format in the given span and parses it under `parent`;
/// returns the format, or `None` if nothing was recognised.
pub type Dispatch = fn(&mut Builder<'_>, NodeId, Span) -> Option<Format>;

pub struct Builder<'a> {
    pub(super) arena: &'a mut Arena,
    pub(super) data: &'a [u8],
    /// The file's bytes (space 0), whichever space is being built.
    pub(super) file: &'a [u8],
    pub(super) space: SpaceId,
    pub(super) dispatch: Dispatch,
    /// Building lazy children, which may be built again after release:
    /// diagnostics are then checked against those already raised.
    pub(super) lazy: bool,
}

/// What the bytes of a node that none of its children covers become: a
/// format says it for the nodes it builds (a node without a say takes its
/// parent's), and once the children are built each uncovered range becomes
/// a leaf of the name the rule gives, so that every byte of a decoded
/// format lies in a leaf.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Gap {
    /// As the parent says; none at the top.
    #[default]
    Inherit,
    /// No gap leaves here or below: a node whose children gather items
    /// from elsewhere, or one that already has its own catch-all.
    Off,
    /// Alignment padding: `padding`, a warning where it is not zero.
    Padding,
    /// Bytes no structure refers to: `padding` where all zero, else
    /// `unused` with an info.
    Unused,
    /// Bytes inside a structure the format does not describe: `unknown`,
    /// an info.
    Unknown,
    /// Whitespace and punctuation of a text format: `syntax` (NUL
    /// padding after the text: `padding`).
    Syntax,
    /// Contents not decoded further (the other records of a block):
    /// `contents`.
    Contents,
}
