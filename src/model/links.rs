//! Where many links lead: the node a link's `f` selects, found for the
//! exporters in a tree of its own ([`LinkTargets`]) or in the tree being
//! written where it is built that far ([`built_target`]), and the address
//! of that node.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::address::{cut_name, escape_segment};
use super::arena::NodeId;
use super::space::Span;
use super::space::{SpaceId, FILE};
use super::tree::{Tree, FINDING};

/// A node's children that may hold a link's range: those of the link's
/// space with bytes, as (offset, end, id) in the order of the children.
struct Holders {
    spans: Vec<(u64, u64, NodeId)>,
    /// Whether they lie in offset order without overlapping: then at most
    /// one holds any byte, found by bisection.
    ordered: bool,
}

/// Where a link leads, as [`LinkTargets`] finds it.
enum Found {
    Node(NodeId),
    /// The first child of a node not built, which names it (see
    /// [`Tree::lead`]).
    Lead(NodeId),
}

/// Finds where links lead in a tree of its own over the file the links
/// are read from (see [`Tree::reopen`]), as [`Tree::link_target`] and
/// [`Tree::short_path`] do.
pub struct LinkTargets {
    tree: Tree,
    /// The tree as it was made, for [`LinkTargets::forget`] (and how many
    /// nodes it held then).
    first: Tree,
    holders: FxHashMap<NodeId, Holders>,
    /// Per node: its children whose names (cut) are shared, with their
    /// `#K`.
    shared: FxHashMap<NodeId, FxHashMap<NodeId, usize>>,
    /// Addresses of nodes found above targets.
    addresses: FxHashMap<NodeId, String>,
}

impl LinkTargets {
    /// Finds where the links of `shown` lead, in a tree of its own over
    /// the same bytes, built as a tree that finds targets builds.
    pub fn new(shown: &Tree) -> LinkTargets {
        let was = FINDING.replace(true);
        let tree = shown.reopen();
        FINDING.set(was);
        LinkTargets {
            first: tree.snapshot(),
            tree,
            holders: FxHashMap::default(),
            shared: FxHashMap::default(),
            addresses: FxHashMap::default(),
        }
    }

    /// How many nodes its tree built to find targets.
    pub fn grown(&self) -> usize {
        self.tree.len().saturating_sub(self.first.len())
    }

    /// Forgets the nodes its tree built to find targets, and what it found
    /// of them: its tree is again the one it was made with (a copy kept
    /// then), not parsed again.
    pub fn forget(&mut self) {
        self.tree = self.first.snapshot();
        self.holders.clear();
        self.shared.clear();
        self.addresses.clear();
    }

    /// The address of the node `l` leads to ([`Tree::link_target`]), as
    /// [`Tree::short_path`] writes it; none where no node starts at the
    /// link's offset.
    pub fn path(&mut self, l: Span) -> Option<String> {
        let found = self.target(l)?;
        Some(self.found_address(found))
    }

    /// As [`LinkTargets::path`], for a link into a derived space: looked
    /// for below the node at address `top`, the root of that space (see
    /// [`Tree::space_root`]).
    pub fn path_in(&mut self, top: &str, l: Span) -> Option<String> {
        let was = FINDING.replace(true);
        let found = self.tree.find_path(top).and_then(|top| {
            let n = self.tree.node(top)?;
            let inside = n.space == l.space && l.offset < self.tree.space_size(l.space);
            inside.then(|| self.find_target(top, l)).flatten()
        });
        FINDING.set(was);
        let found = found?;
        Some(self.found_address(found))
    }

    /// [`Tree::link_target`]: the smallest node of the file holding the
    /// link's range, found from the root down as
    /// [`Tree::smallest_containing`] finds it, where it starts at the
    /// link's offset.
    fn target(&mut self, l: Span) -> Option<Found> {
        if l.space != FILE || l.offset >= self.tree.data().len() as u64 {
            return None;
        }
        let was = FINDING.replace(true);
        let root = self.tree.root();
        let found = self.find_target(root, l);
        FINDING.set(was);
        found
    }

    /// The smallest node below `top` (in the link's space) holding the
    /// link's range, where it starts at the link's offset.
    fn find_target(&mut self, top: NodeId, l: Span) -> Option<Found> {
        let off = l.offset;
        let end = off.saturating_add(l.len.max(1));
        let mut cur = top;
        loop {
            // A node not built whose first child, a leaf at its offset,
            // is known holds a link of one byte there in that child.
            if l.len <= 1
                && self.tree.lead(cur).is_some()
                && self
                    .tree
                    .node(cur)
                    .is_some_and(|n| n.offset == off && n.space == l.space && !n.opens_self)
            {
                return Some(Found::Lead(cur));
            }
            self.tree.expand(cur);
            let tree = &self.tree;
            let h = self
                .holders
                .entry(cur)
                .or_insert_with(|| holders(tree, cur, l.space));
            let next = if h.ordered {
                let i = h.spans.partition_point(|s| s.0 <= off);
                i.checked_sub(1)
                    .and_then(|i| h.spans.get(i))
                    .filter(|s| end <= s.1)
                    .map(|s| s.2)
            } else {
                let mut best: Option<(NodeId, u64)> = None;
                for &(o, e, k) in &h.spans {
                    if o <= off && end <= e && best.is_none_or(|(_, bs)| e - o < bs) {
                        best = Some((k, e - o));
                    }
                }
                best.map(|b| b.0)
            };
            match next {
                Some(k) => cur = k,
                None => break,
            }
        }
        self.tree
            .node(cur)
            .is_some_and(|n| n.offset == off && n.space == l.space)
            .then_some(Found::Node(cur))
    }

    /// The address of what [`LinkTargets::find_target`] found.
    fn found_address(&mut self, found: Found) -> String {
        match found {
            Found::Node(id) => self.address(id),
            Found::Lead(id) => {
                let mut out = self.address(id);
                if let Some(name) = self.tree.lead(id) {
                    push_segment(&mut out, name);
                }
                out
            }
        }
    }

    /// The address of `id`, learning those of the nodes above it.
    fn address(&mut self, id: NodeId) -> String {
        let Some(parent) = self.tree.node(id).and_then(|n| n.parent) else {
            return String::new();
        };
        // The nodes up from the parent whose address is not known yet.
        let mut up = Vec::new();
        let mut k = parent;
        while !self.addresses.contains_key(&k) {
            up.push(k);
            match self.tree.node(k).and_then(|n| n.parent) {
                Some(p) => k = p,
                None => break,
            }
        }
        for &k in up.iter().rev() {
            let a = self.child_address(k);
            self.addresses.insert(k, a);
        }
        self.child_address(id)
    }

    /// The address of `id`, that of its parent being known (the root's
    /// is empty).
    fn child_address(&mut self, id: NodeId) -> String {
        let Some(parent) = self.tree.node(id).and_then(|n| n.parent) else {
            return String::new();
        };
        let mut out = self.addresses.get(&parent).cloned().unwrap_or_default();
        let tree = &self.tree;
        let shared = self
            .shared
            .entry(parent)
            .or_insert_with(|| shared_names(tree, parent));
        push_segment(&mut out, tree.name(id));
        if let Some(k) = shared.get(&id) {
            out.push('#');
            out.push_str(itoa::Buffer::new().format(*k));
        }
        out
    }
}

/// Adds a child named `name` to address `out` (empty for the root), its
/// name cut and escaped as addresses write it.
fn push_segment(out: &mut String, name: &str) {
    if !out.is_empty() {
        out.push('/');
    }
    escape_segment(out, &cut_name(name));
}

/// Children a node may have for [`built_target`] to look through them.
const BUILT_FANOUT: usize = 256;

/// [`Tree::link_target`] in `t` as it is built, without building: the
/// node, or none where no node starts at the link's offset; not known
/// (`None`) where the way down meets a node whose children are not built
/// or more than a few hundred (a [`LinkTargets`] finds those).
pub fn built_target(t: &Tree, l: Span) -> Option<Option<NodeId>> {
    if l.space != FILE {
        return Some(None);
    }
    built_target_in(t, t.root(), l)
}

/// [`built_target`] below `top`, a node of the link's space (the root of
/// a derived space, for a link into it).
pub fn built_target_in(t: &Tree, top: NodeId, l: Span) -> Option<Option<NodeId>> {
    if t.node(top).map(|n| n.space) != Some(l.space) || l.offset >= t.space_size(l.space) {
        return Some(None);
    }
    let off = l.offset;
    let end = off.saturating_add(l.len.max(1));
    let mut cur = top;
    loop {
        if !t.is_built(cur) {
            return None;
        }
        let kids = t.built_children(cur);
        if kids.len() > BUILT_FANOUT {
            return None;
        }
        let mut best: Option<(NodeId, u64)> = None;
        for &k in kids {
            let Some(n) = t.node(k) else {
                continue;
            };
            if n.space == l.space
                && n.size > 0
                && n.offset <= off
                && end <= n.end()
                && best.is_none_or(|(_, bs)| n.size < bs)
            {
                best = Some((k, n.size));
            }
        }
        match best {
            Some((k, _)) => cur = k,
            None => break,
        }
    }
    Some(
        t.node(cur)
            .is_some_and(|n| n.offset == off && n.space == l.space)
            .then_some(cur),
    )
}

fn holders(t: &Tree, id: NodeId, space: SpaceId) -> Holders {
    let spans: Vec<(u64, u64, NodeId)> = t
        .built_children(id)
        .iter()
        .filter_map(|&k| {
            let n = t.node(k)?;
            (n.space == space && n.size > 0).then(|| (n.offset, n.end(), k))
        })
        .collect();
    let ordered = spans.windows(2).all(|w| match w {
        [a, b] => a.1 <= b.0,
        _ => true,
    });
    Holders { spans, ordered }
}

/// The children of `id` whose cut names another child shares, each with
/// its index among them.
fn shared_names(t: &Tree, id: NodeId) -> FxHashMap<NodeId, usize> {
    let kids = t.built_children(id);
    let mut count: FxHashMap<Cow<'_, str>, usize> = FxHashMap::default();
    for &k in kids {
        *count.entry(cut_name(t.name(k))).or_default() += 1;
    }
    let mut seen: FxHashMap<Cow<'_, str>, usize> = FxHashMap::default();
    let mut out = FxHashMap::default();
    for &k in kids {
        let name = cut_name(t.name(k));
        if count.get(&name).is_some_and(|&c| c > 1) {
            let i = seen.entry(name).or_default();
            out.insert(k, *i);
            *i += 1;
        }
    }
    out
}
