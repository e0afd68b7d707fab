//! What a format parser uses to add nodes and diagnostics. Every range is
//! checked against the parent's, every read is bounds-checked, every name and
//! value is made safe to show.

use std::sync::Arc;

use compact_str::CompactString;

use super::facts::Fact;
use super::format::Format;
use super::read::{self, Endian};
use super::space::{self, Origin, Space, SpaceId};
use super::tree::{Arena, Link, Node, NodeId};
use super::value::Value;
use super::{text, Diagnostic, Severity};

/// Builds the children of a node when they are first needed.
pub type LazyFn = Arc<dyn Fn(&mut Builder<'_>, NodeId) + Send + Sync>;

/// Builds one element of an array: `(builder, parent, index, offset)`.
pub type ElemFn = Arc<dyn Fn(&mut Builder<'_>, NodeId, u64, u64) + Send + Sync>;

/// Builds item `index` at `offset` under `parent` in a [`Seq`]:
/// `(builder, parent, index, offset)`; returns where the next item starts,
/// or `None` when no item could be read there (the rest are not shown).
pub type Step = Arc<dyn Fn(&mut Builder<'_>, NodeId, u64, u64) -> Option<u64> + Send + Sync>;

/// Where a sequence's items start.
enum Starts {
    /// Item `i` starts at `base + i * stride`.
    Stride { base: u64, stride: u64 },
    /// The start of every [`GROUP`]-th item, from a scan.
    Marks(Vec<u64>),
}

/// A lazily built sequence of items, fixed-size or variable-size: the one
/// primitive behind every long list (tables, command streams, string
/// tables, text lines). Only every [`GROUP`]-th start is kept, so a list of
/// millions costs a few kilobytes until it is opened.
pub struct Seq {
    starts: Starts,
    count: u64,
    /// Where the last item ends.
    stop: u64,
    step: Step,
}

impl Seq {
    /// `count` items of `stride` bytes from `base`.
    pub fn fixed(base: u64, stride: u64, count: u64, step: Step) -> Seq {
        Seq {
            starts: Starts::Stride { base, stride },
            count,
            stop: base.saturating_add(count.saturating_mul(stride)),
            step,
        }
    }

    /// Variable-size items from `start`: `next(off)` says where the item at
    /// `off` ends (`None`: no item there, the list ends). Scans at most to
    /// `end` and at most `max` items.
    pub fn scan(
        start: u64,
        end: u64,
        max: u64,
        mut next: impl FnMut(u64) -> Option<u64>,
        step: Step,
    ) -> Seq {
        let mut marks = Vec::new();
        let mut count = 0u64;
        let mut off = start;
        while off < end && count < max {
            let Some(n) = next(off) else {
                break;
            };
            if n <= off {
                break;
            }
            if count.is_multiple_of(GROUP) {
                marks.push(off);
            }
            count += 1;
            off = n.min(end);
        }
        Seq {
            starts: Starts::Marks(marks),
            count,
            stop: off,
            step,
        }
    }

    /// Items whose every [`GROUP`]-th start the caller already knows.
    pub fn from_marks(marks: Vec<u64>, count: u64, stop: u64, step: Step) -> Seq {
        Seq {
            starts: Starts::Marks(marks),
            count,
            stop,
            step,
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Where the items end.
    pub fn stop(&self) -> u64 {
        self.stop
    }

    fn zero_size(&self) -> bool {
        matches!(self.starts, Starts::Stride { stride: 0, .. })
    }

    /// Where item `i` starts, for `i` a multiple of [`GROUP`] (or the end).
    fn start_of(&self, i: u64) -> u64 {
        if i >= self.count {
            return self.stop;
        }
        match &self.starts {
            Starts::Stride { base, stride } => base.saturating_add(i.saturating_mul(*stride)),
            Starts::Marks(m) => m.get((i / GROUP) as usize).copied().unwrap_or(self.stop),
        }
    }
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

/// The longest gap whose bytes are read to tell padding from other bytes.
const MAX_GAP_READ: u64 = 1 << 20;

/// The names gap leaves have: a walk that counts structures skips them.
pub const GAP_NAMES: [&str; 5] = ["padding", "unused", "unknown", "syntax", "contents"];

/// Detects a format in `[off, off+len)` and parses it under `parent`;
/// returns the format, or `None` if nothing was recognised.
pub type Dispatch = fn(&mut Builder<'_>, NodeId, u64, u64) -> Option<Format>;

/// How many children an array node shows before it groups them.
pub const GROUP: u64 = 1000;

/// The size of the groups that `n` children are shown in: the smallest
/// power of [`GROUP`] that leaves at most [`GROUP`] groups.
pub fn group_size(n: u64) -> u64 {
    let mut g = GROUP;
    while n.div_ceil(g) > GROUP {
        g = g.saturating_mul(GROUP);
    }
    g
}

/// How many formats may nest inside each other.
pub const MAX_NEST: u8 = 8;

pub struct Builder<'a> {
    arena: &'a mut Arena,
    data: &'a [u8],
    space: SpaceId,
    dispatch: Dispatch,
    /// Building lazy children, which may be built again after release:
    /// diagnostics are then checked against those already raised.
    lazy: bool,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(
        arena: &'a mut Arena,
        data: &'a [u8],
        space: SpaceId,
        dispatch: Dispatch,
    ) -> Self {
        Builder {
            arena,
            data,
            space,
            dispatch,
            lazy: false,
        }
    }

    /// A builder for the children of a lazy node.
    pub(crate) fn for_lazy(mut self) -> Self {
        self.lazy = true;
        self
    }

    /// True when the nodes are built only to find where a link leads
    /// (by a [`super::LinkTargets`]): the tree that shows the same
    /// bytes builds them again, so what is costly to make (decoded
    /// instructions) is worth keeping for it.
    pub fn finding_targets(&self) -> bool {
        super::tree::finding_targets()
    }

    /// What the reader asked the formats to show.
    pub fn options(&self) -> super::Options {
        self.arena.options
    }

    /// True when the tree is read only for the formats nested in it
    /// ([`super::Options::nested_only`]): a parser then leaves out what
    /// cannot hold another format (its tables of symbols, strings and
    /// relocations, debug information, instructions), and builds the
    /// nodes that lead to nested formats as a full read does, so that
    /// their addresses are the same.
    pub fn skips_records(&self) -> bool {
        self.arena.options.nested_only
    }

    /// The whole byte space being built: the file, or a derived space.
    /// Offsets everywhere in the builder are offsets in it.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The size of the byte space being built.
    pub fn file_len(&self) -> u64 {
        self.data.len() as u64
    }

    /// The byte space being built (0: the file).
    pub fn space(&self) -> SpaceId {
        self.space
    }

    /// The bytes of `[off, off+len)`, cut to the file.
    pub fn slice(&self, off: u64, len: u64) -> &'a [u8] {
        let start = (off.min(self.file_len())) as usize;
        let end = (off.saturating_add(len).min(self.file_len())) as usize;
        self.data.get(start..end).unwrap_or(&[])
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.arena.nodes.get(id.index())
    }

    /// The node's range, `(offset, end)`; empty for an unknown id.
    pub fn range(&self, id: NodeId) -> (u64, u64) {
        self.node(id).map_or((0, 0), |n| (n.offset, n.end()))
    }

    fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.arena.nodes.get_mut(id.index())
    }

    /// Adds a child of `parent` covering `[off, off+size)`. A range that is
    /// not inside the parent's is cut to it, with a warning.
    pub fn add(
        &mut self,
        parent: NodeId,
        name: impl AsRef<str>,
        off: u64,
        size: u64,
        value: Option<Value>,
    ) -> NodeId {
        let name = name.as_ref();
        self.add_named(parent, CompactString::from(name), off, size, value)
    }

    /// A leaf whose name is a constant of the parser (`st_name`): not
    /// escaped, not copied.
    pub fn field(
        &mut self,
        parent: NodeId,
        name: &'static str,
        off: u64,
        size: u64,
        value: Value,
    ) -> NodeId {
        debug_assert!(text::is_plain(name.as_bytes()));
        self.add_named(
            parent,
            CompactString::const_new(name),
            off,
            size,
            Some(value),
        )
    }

    /// A node with no value, its name built by the parser.
    pub fn group_owned(
        &mut self,
        parent: NodeId,
        name: CompactString,
        off: u64,
        size: u64,
    ) -> NodeId {
        self.add_named(parent, name, off, size, None)
    }

    /// Makes room for `n` more children of `id`.
    pub fn reserve(&mut self, id: NodeId, n: usize) {
        let a = &mut *self.arena;
        if let Some(p) = a.nodes.get_mut(id.index()) {
            if !p.unbuilt {
                if p.children.capacity() == 0 {
                    p.children = Arena::take_spare(&mut a.spare);
                }
                p.children.reserve(n);
            }
        }
    }

    fn add_named(
        &mut self,
        parent: NodeId,
        name: CompactString,
        off: u64,
        size: u64,
        value: Option<Value>,
    ) -> NodeId {
        let (pstart, pend, nest) = match self.node(parent) {
            Some(p) => (p.offset, p.end(), p.nest),
            None => (0, self.file_len(), 0),
        };
        let mut start = off;
        let mut end = off.saturating_add(size);
        if start < pstart || end > pend {
            (start, end) = self.cut_to_parent(&name, off, size, pstart, pend);
        }
        let id = NodeId::at(self.arena.nodes.len());
        self.arena.nodes.push(Node::new(
            name,
            start,
            end - start,
            value,
            self.space,
            Some(parent),
            nest,
        ));
        self.attach(parent, id);
        id
    }

    /// A child reaching outside its parent `[pstart, pend)`: a warning,
    /// and the child's range cut to the parent's.
    #[cold]
    #[inline(never)]
    fn cut_to_parent(
        &mut self,
        name: &str,
        off: u64,
        size: u64,
        pstart: u64,
        pend: u64,
    ) -> (u64, u64) {
        self.warn(
            off.min(pend.saturating_sub(1)).max(pstart),
            0,
            format!(
                "{name} [0x{off:x}+0x{size:x}] lies outside its parent [0x{pstart:x}+0x{:x}]; cut to it",
                pend - pstart
            ),
        );
        let start = off.clamp(pstart, pend);
        (start, off.saturating_add(size).clamp(start, pend))
    }

    /// Lists `id` among the children of `parent` (a parent whose children
    /// are still to be built gets them when it is opened).
    fn attach(&mut self, parent: NodeId, id: NodeId) {
        let a = &mut *self.arena;
        if let Some(p) = a.nodes.get_mut(parent.index()) {
            if !p.unbuilt {
                if p.children.capacity() == 0 {
                    p.children = Arena::take_spare(&mut a.spare);
                }
                p.children.push(id);
            }
        }
    }

    /// A node with no value (a structure or a group).
    pub fn group(&mut self, parent: NodeId, name: impl AsRef<str>, off: u64, size: u64) -> NodeId {
        self.add(parent, name, off, size, None)
    }

    /// A node with a value.
    pub fn leaf(
        &mut self,
        parent: NodeId,
        name: impl AsRef<str>,
        off: u64,
        size: u64,
        value: impl Into<Value>,
    ) -> NodeId {
        self.add(parent, name, off, size, Some(value.into()))
    }

    /// A leaf whose name the parser built as it is kept.
    pub fn leaf_owned(
        &mut self,
        parent: NodeId,
        name: CompactString,
        off: u64,
        size: u64,
        value: Value,
    ) -> NodeId {
        self.add_named(parent, name, off, size, Some(value))
    }

    pub fn set_value(&mut self, id: NodeId, value: impl Into<Value>) {
        let v = value.into();
        if let Some(n) = self.node_mut(id) {
            n.value = Some(v);
        }
    }

    pub fn set_name(&mut self, id: NodeId, name: impl AsRef<str>) {
        let v = CompactString::from(name.as_ref());
        if let Some(n) = self.node_mut(id) {
            n.name = v;
        }
    }

    /// Makes `id` point at `[off, off+size)` of the space being built.
    pub fn link(&mut self, id: NodeId, off: u64, size: u64) {
        let space = self.space();
        self.link_in(id, space, off, size);
    }

    /// Makes `id` point at `[off, off+size)` of byte space `space` (one
    /// made before, or the file).
    pub fn link_in(&mut self, id: NodeId, space: SpaceId, off: u64, size: u64) {
        if id.index() < self.arena.nodes.len() {
            self.arena.links.set(
                id,
                Link {
                    space,
                    offset: off,
                    size,
                },
            );
        }
    }

    /// The space [`Builder::derive`] made from `origin`'s bytes, and those
    /// bytes; `None` when none was made.
    pub fn derived(&self, origin: Origin) -> Option<(SpaceId, Arc<[u8]>)> {
        let i = self
            .arena
            .spaces
            .iter()
            .position(|s| s.origin == Some(origin))?;
        let sid = SpaceId::at(i);
        Some((sid, self.arena.derived_bytes(sid)?))
    }

    /// Marks the node where a format starts.
    /// Says what identifies `id` among its siblings when its name does not
    /// (the name keeps its index or is shared): a diff of two trees aligns
    /// nodes by this key rather than by their order.
    pub fn set_key(&mut self, id: NodeId, key: impl AsRef<str>) {
        self.arena
            .keys
            .insert(id, compact_str::CompactString::from(key.as_ref()));
    }

    pub fn set_format(&mut self, id: NodeId, format: Format) {
        if id.index() < self.arena.nodes.len() {
            self.arena.formats.set(id, format);
        }
    }

    /// Records a fact about node `id` for consumers (see [`Fact`]).
    pub fn fact(&mut self, id: NodeId, f: Fact) {
        let mut facts = self.arena.facts.get(id).cloned().unwrap_or_default();
        facts.add(f);
        self.arena.facts.set(id, facts);
    }

    /// The format that starts at `id`, if one does.
    pub fn format_of(&self, id: NodeId) -> Option<Format> {
        self.arena.formats.get(id).copied()
    }

    /// Lets `f` build the children of `id` when they are first needed.
    pub fn lazy(&mut self, id: NodeId, f: LazyFn) {
        if let Some(n) = self.node_mut(id) {
            n.children = Vec::new();
            n.unbuilt = true;
            self.arena.lazies.set(id, f);
        }
    }

    /// Like [`Builder::lazy`], for a node whose own range and value are
    /// only known once `f` has run (`f` sets them with
    /// [`Builder::set_range`] and [`Builder::set_value`]): a part of a
    /// format that is read only when asked for, such as a computed
    /// attribute. Walks build such a node before they visit it.
    pub fn lazy_self(&mut self, id: NodeId, f: LazyFn) {
        self.lazy(id, f);
        if let Some(n) = self.node_mut(id) {
            n.opens_self = true;
        }
    }

    /// Sets the range of node `id`, which its own lazy builder is building
    /// (see [`Builder::lazy_self`]): the range may lie outside the
    /// parent's, as a structure read elsewhere in the bytes does.
    pub fn set_range(&mut self, id: NodeId, off: u64, size: u64) {
        if let Some(n) = self.node_mut(id) {
            n.offset = off;
            n.size = size;
        }
    }

    /// Says what the uncovered bytes of `id` (and of the nodes below it
    /// that say nothing) become; see [`Gap`].
    pub fn gaps(&mut self, id: NodeId, rule: Gap) {
        if let Some(n) = self.node_mut(id) {
            n.gaps = rule;
        }
    }

    /// The rule that holds at `id`: its own or its nearest ancestor's.
    fn gap_rule(&self, id: NodeId) -> Gap {
        let mut cur = Some(id);
        while let Some(k) = cur {
            let Some(n) = self.node(k) else { break };
            if n.gaps != Gap::Inherit {
                return n.gaps;
            }
            cur = n.parent;
        }
        Gap::Off
    }

    /// Adds the gap leaves of `also` and of every node from `from` on,
    /// whose children are built: run once a build is done.
    pub(crate) fn close_gaps(&mut self, from: usize, also: Option<NodeId>) {
        let end = self.arena.nodes.len();
        if let Some(id) = also {
            self.close_gaps_of(id);
        }
        for i in from..end {
            // Most nodes are leaves: seen here, without a call.
            if self
                .node(NodeId::at(i))
                .is_some_and(|n| !n.unbuilt && !n.children.is_empty())
            {
                self.close_gaps_of(NodeId::at(i));
            }
        }
    }

    fn close_gaps_of(&mut self, id: NodeId) {
        let (space, start, stop) = match self.node(id) {
            Some(Node {
                children: v,
                unbuilt: false,
                space,
                offset,
                size,
                ..
            }) if !v.is_empty() && *size > 0 => (*space, *offset, offset.saturating_add(*size)),
            _ => return,
        };
        // One pass over the children for the common case: built in file
        // order and covering the node.
        match self.sorted_and_covered(id, space, start, stop) {
            (true, true) => return,
            (true, false) => {}
            (false, _) => {
                self.sort_children(id, space);
                if self.covered(id, space, start, stop) {
                    return;
                }
            }
        }
        let rule = self.gap_rule(id);
        if matches!(rule, Gap::Off | Gap::Inherit) {
            return;
        }
        let kids: Vec<NodeId> = match self.node(id) {
            Some(n) if !n.unbuilt => n.children.clone(),
            _ => return,
        };
        let mut spans: Vec<(u64, u64)> = kids
            .iter()
            .filter_map(|&k| self.node(k))
            .filter(|n| n.space == space && n.size > 0)
            .map(|n| (n.offset, n.end()))
            .collect();
        if spans.is_empty() {
            return;
        }
        spans.sort_unstable();
        // Bytes another space was made from (compressed bytes, inflated
        // below): contents, whatever the rule says.
        let origins: Vec<(u64, u64)> = kids
            .iter()
            .filter_map(|&k| self.node(k))
            .filter(|n| n.space != space)
            .filter_map(|n| self.arena.spaces.get(n.space.index())?.origin)
            .filter(|o| o.space == space)
            .map(|o| (o.offset, o.offset.saturating_add(o.size)))
            .collect();
        let mut holes = Vec::new();
        let mut pos = start;
        for (a, b) in spans {
            if a > pos {
                holes.push((pos, a.min(stop)));
            }
            pos = pos.max(b);
        }
        if pos < stop {
            holes.push((pos, stop));
        }
        holes.retain(|(a, b)| b > a);
        if holes.is_empty() {
            return;
        }
        let mut made = Vec::with_capacity(holes.len());
        for (i, &(a, b)) in holes.iter().enumerate() {
            let last = i + 1 == holes.len() && b == stop;
            let from_origin = origins.iter().any(|&(o, e)| o <= a && b <= e);
            let rule = if from_origin { Gap::Contents } else { rule };
            made.push(self.gap_leaf(id, space, a, b - a, rule, last));
        }
        // The leaves go among the children in offset order.
        let mut out = Vec::with_capacity(kids.len() + made.len());
        let mut next = holes.iter().zip(made.iter()).peekable();
        for k in kids {
            if let Some(n) = self.node(k) {
                if n.space == space {
                    while let Some(((a, _), &g)) = next.peek() {
                        if *a >= n.offset {
                            break;
                        }
                        out.push(g);
                        next.next();
                    }
                }
            }
            out.push(k);
        }
        out.extend(next.map(|(_, &g)| g));
        if let Some(n) = self.node_mut(id) {
            n.children = out;
        }
    }

    /// True when the children of `id` in its space, in the order they now
    /// have, leave no byte of `[start, stop)` uncovered (the usual case:
    /// fields one after the other), found without allocating.
    /// Whether the children of `id` in `space` are in file order, and
    /// whether they cover `[start, stop)` (meaningful when they are).
    fn sorted_and_covered(
        &self,
        id: NodeId,
        space: SpaceId,
        start: u64,
        stop: u64,
    ) -> (bool, bool) {
        let Some(n) = self.node(id) else {
            return (true, true);
        };
        let mut pos = start;
        let mut last = 0u64;
        let mut holes = false;
        for &k in &n.children {
            let Some(c) = self.node(k) else {
                continue;
            };
            if c.space != space {
                continue;
            }
            if c.offset < last {
                return (false, false);
            }
            last = c.offset;
            if c.size == 0 {
                continue;
            }
            holes |= c.offset > pos;
            pos = pos.max(c.end());
        }
        (true, !holes && pos >= stop)
    }

    fn covered(&self, id: NodeId, space: SpaceId, start: u64, stop: u64) -> bool {
        let Some(n) = self.node(id) else {
            return true;
        };
        let mut pos = start;
        for &k in &n.children {
            let Some(c) = self.node(k) else {
                continue;
            };
            if c.space != space || c.size == 0 {
                continue;
            }
            if c.offset > pos {
                return false;
            }
            pos = pos.max(c.end());
        }
        pos >= stop
    }

    /// Puts the children of `id` in its space in file order (a stable
    /// sort: those that start together keep the order the format gave
    /// them, such as the bit fields of one byte); children in other spaces
    /// keep their places.
    fn sort_children(&mut self, id: NodeId, space: SpaceId) {
        let Some(Node {
            children: v,
            unbuilt: false,
            ..
        }) = self.node(id)
        else {
            return;
        };
        let at = |k: &NodeId| self.node(*k).filter(|n| n.space == space).map(|n| n.offset);
        // Most nodes are built in file order: see that without allocating.
        if v.iter().filter_map(at).is_sorted() {
            return;
        }
        let slots: Vec<usize> = (0..v.len())
            .filter(|&i| v.get(i).and_then(at).is_some())
            .collect();
        let mut mine: Vec<(u64, NodeId)> = slots
            .iter()
            .filter_map(|&i| v.get(i).map(|&k| (at(&k).unwrap_or(0), k)))
            .collect();
        mine.sort_by_key(|&(o, _)| o);
        let mut out = v.clone();
        for (&i, &(_, k)) in slots.iter().zip(&mine) {
            if let Some(x) = out.get_mut(i) {
                *x = k;
            }
        }
        if let Some(n) = self.node_mut(id) {
            n.children = out;
        }
    }

    /// One gap leaf of `[off, off+size)` under `parent`, named and
    /// diagnosed as `rule` says.
    fn gap_leaf(
        &mut self,
        parent: NodeId,
        space: SpaceId,
        off: u64,
        size: u64,
        rule: Gap,
        last: bool,
    ) -> NodeId {
        let bytes: Option<Arc<[u8]>> = if space == self.space {
            None
        } else {
            self.arena.derived_bytes(space)
        };
        let zero = {
            let d: &[u8] = match &bytes {
                Some(b) => b,
                None if space == self.space => self.data,
                None => &[],
            };
            let s = usize::try_from(off).unwrap_or(usize::MAX).min(d.len());
            let e = usize::try_from(off.saturating_add(size))
                .unwrap_or(usize::MAX)
                .min(d.len());
            let b = d.get(s..e).unwrap_or_default();
            // A run longer than this is not read (a sparse file's hole would
            // be read from the disk): it is not known to be zero.
            size <= MAX_GAP_READ && b.len() as u64 == size && b.iter().all(|&x| x == 0)
        };
        let unread = size > MAX_GAP_READ;
        let (name, diag): (&'static str, Option<(Severity, String)>) = match rule {
            Gap::Padding if zero || unread => ("padding", None),
            Gap::Padding => (
                "padding",
                Some((
                    Severity::Warning,
                    format!("{size} bytes of padding are not zero"),
                )),
            ),
            Gap::Unused if zero => ("padding", None),
            Gap::Unused if last => (
                "unused",
                Some((
                    Severity::Info,
                    format!("{} past the last structure", Value::Size(size)),
                )),
            ),
            Gap::Unused => (
                "unused",
                Some((
                    Severity::Info,
                    format!("{} that no structure describes", Value::Size(size)),
                )),
            ),
            Gap::Unknown => (
                "unknown",
                Some((
                    Severity::Info,
                    format!("{} the format does not describe", Value::Size(size)),
                )),
            ),
            Gap::Syntax if zero => ("padding", None),
            Gap::Syntax => ("syntax", None),
            _ => ("contents", None),
        };
        let nest = self.nest_of(parent);
        let id = NodeId::at(self.arena.nodes.len());
        let value = if zero && size != 1 {
            Value::with(size, super::value::Radix::Dec, " zero bytes")
        } else if zero {
            Value::with(size, super::value::Radix::Dec, " zero byte")
        } else {
            Value::Size(size)
        };
        let mut leaf = Node::new(
            CompactString::const_new(name),
            off,
            size,
            Some(value),
            space,
            Some(parent),
            nest,
        );
        leaf.gaps = Gap::Off;
        self.arena.nodes.push(leaf);
        if let Some((sev, m)) = diag {
            // Bytes a warning or an error already covers (a format that
            // stopped reading there and said why) are not told of twice.
            let end = off.saturating_add(size);
            let told = self.arena.diags.iter().any(|d| {
                d.space == space
                    && d.severity >= Severity::Warning
                    && d.offset <= off
                    && end <= d.offset.saturating_add(d.size)
            });
            if !told {
                self.diag_in(space, sev, off, size, m);
            }
        }
        id
    }

    // ---- diagnostics ----

    /// Raises a diagnostic at `[off, off+size)` of the space being built.
    /// One raised again (a lazy node rebuilt) is listed once.
    pub fn diag(&mut self, severity: Severity, off: u64, size: u64, message: impl Into<String>) {
        self.diag_in(self.space, severity, off, size, message)
    }

    fn diag_in(
        &mut self,
        space: SpaceId,
        severity: Severity,
        off: u64,
        size: u64,
        message: impl Into<String>,
    ) {
        let m: String = message.into();
        let d = Diagnostic {
            severity,
            space,
            offset: off,
            size,
            message: text::clean(&m).into_owned(),
        };
        // What the first build raises is raised once; what lazy builders
        // raise may come again each time a released node is rebuilt.
        if !self.lazy {
            self.arena.diags.push(d);
        } else if !self.arena.seen.contains(&d) {
            self.arena.seen.insert(d.clone());
            self.arena.diags.push(d);
        }
    }
    pub fn error(&mut self, off: u64, size: u64, message: impl Into<String>) {
        self.diag(Severity::Error, off, size, message)
    }
    pub fn warn(&mut self, off: u64, size: u64, message: impl Into<String>) {
        self.diag(Severity::Warning, off, size, message)
    }
    pub fn info(&mut self, off: u64, size: u64, message: impl Into<String>) {
        self.diag(Severity::Info, off, size, message)
    }

    // ---- reads without nodes ----

    pub fn read_u8(&self, off: u64) -> Option<u8> {
        read::u8_at(self.data, off)
    }
    pub fn read_u16(&self, off: u64, e: Endian) -> Option<u16> {
        read::u16_at(self.data, off, e)
    }
    pub fn read_u32(&self, off: u64, e: Endian) -> Option<u32> {
        read::u32_at(self.data, off, e)
    }
    pub fn read_u64(&self, off: u64, e: Endian) -> Option<u64> {
        read::u64_at(self.data, off, e)
    }
    /// Exactly `len` bytes at `off`, or `None`.
    pub fn read_bytes(&self, off: u64, len: u64) -> Option<&'a [u8]> {
        read::bytes_at(self.data, off, len)
    }
    /// The NUL-terminated string at `off`, not looking at or past `limit`.
    pub fn read_cstr(&self, off: u64, limit: u64) -> Option<(&'a [u8], bool)> {
        read::cstr_at(self.data, off, limit)
    }

    // ---- reads that also add a node ----

    fn truncated(&mut self, name: &str, off: u64, need: u64) {
        let have = self.file_len().saturating_sub(off);
        self.error(
            off,
            have.min(need),
            format!("truncated: {name} needs {need} bytes at 0x{off:x}, {have} remain"),
        );
    }

    /// Reads an unsigned field of `size` (1, 2, 4 or 8) bytes and adds it
    /// as a leaf showing its value.
    pub fn uint(
        &mut self,
        parent: NodeId,
        name: &str,
        off: u64,
        size: u64,
        e: Endian,
    ) -> Option<u64> {
        let v = match size {
            1 => self.read_u8(off).map(u64::from),
            2 => self.read_u16(off, e).map(u64::from),
            4 => self.read_u32(off, e).map(u64::from),
            8 => self.read_u64(off, e),
            _ => None,
        };
        match v {
            Some(v) => {
                self.leaf(
                    parent,
                    name,
                    off,
                    size,
                    Value::uint(v).with_width(size as u8),
                );
                Some(v)
            }
            None => {
                self.truncated(name, off, size);
                None
            }
        }
    }
    pub fn u8(&mut self, parent: NodeId, name: &str, off: u64) -> Option<u8> {
        self.uint(parent, name, off, 1, Endian::Little)
            .map(|v| v as u8)
    }
    pub fn u16(&mut self, parent: NodeId, name: &str, off: u64, e: Endian) -> Option<u16> {
        self.uint(parent, name, off, 2, e).map(|v| v as u16)
    }
    pub fn u32(&mut self, parent: NodeId, name: &str, off: u64, e: Endian) -> Option<u32> {
        self.uint(parent, name, off, 4, e).map(|v| v as u32)
    }
    pub fn u64(&mut self, parent: NodeId, name: &str, off: u64, e: Endian) -> Option<u64> {
        self.uint(parent, name, off, 8, e)
    }

    /// Adds a leaf for `len` raw bytes, its value a hex preview.
    pub fn raw(&mut self, parent: NodeId, name: &str, off: u64, len: u64) -> Option<&'a [u8]> {
        match self.read_bytes(off, len) {
            Some(b) => {
                self.leaf(parent, name, off, len, Value::text(text::hex(b, 16)));
                Some(b)
            }
            None => {
                self.truncated(name, off, len);
                None
            }
        }
    }

    /// Adds a leaf for a fixed-size char array, its value the text up to
    /// the first NUL.
    pub fn fixed_str(&mut self, parent: NodeId, name: &str, off: u64, len: u64) -> Option<String> {
        match self.read_bytes(off, len) {
            Some(b) => {
                let s = text::fixed(b);
                self.leaf(parent, name, off, len, Value::str(&s));
                Some(s)
            }
            None => {
                self.truncated(name, off, len);
                None
            }
        }
    }

    // ---- arrays and nesting ----

    /// Adds an array of `count` elements of `stride` bytes from `off`. Its
    /// elements are built by `elem` when the array is opened, in groups of
    /// at most [`GROUP`] so that a table of millions opens at once. A count
    /// that does not fit in the parent is cut to what fits, with an error.
    pub fn array(
        &mut self,
        parent: NodeId,
        name: &str,
        off: u64,
        count: u64,
        stride: u64,
        elem: ElemFn,
    ) -> NodeId {
        let pend = self.range(parent).1;
        let room = pend.saturating_sub(off);
        let mut n = count;
        if stride == 0 {
            n = n.min(GROUP);
        } else if count.saturating_mul(stride) > room {
            n = room / stride;
            self.error(
                off,
                room,
                format!(
                    "{name}: {count} entries of {stride} bytes need {} bytes, only {room} remain; showing {n}",
                    count as u128 * stride as u128
                ),
            );
        }
        let id = self.add(
            parent,
            name,
            off,
            n * stride,
            Some(Value::with(n, super::value::Radix::Dec, " entries")),
        );
        if n > 0 {
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
                elem(b, p, i, at);
                Some(at.saturating_add(stride))
            });
            self.seq(id, Seq::fixed(off, stride, n, step));
        }
        id
    }

    /// Makes `node` show the items of `seq`, built when it is opened: up to
    /// [`GROUP`] items directly, more in groups `[a..b)` of groups, as many
    /// levels as the count needs.
    pub fn seq(&mut self, node: NodeId, seq: Seq) {
        if seq.count == 0 {
            return;
        }
        let seq = Arc::new(seq);
        let count = seq.count;
        self.lazy(
            node,
            Arc::new(move |b: &mut Builder<'_>, id| b.fill(id, 0, count, &seq)),
        );
    }

    /// Adds the items of `seq` under `node` now, as [`Builder::seq`] would
    /// when `node` is opened: for a lazy builder of `node` whose sequence
    /// is only known once it runs (its scan is the costly part).
    pub fn seq_now(&mut self, node: NodeId, seq: Seq) {
        if seq.count == 0 {
            return;
        }
        let count = seq.count;
        self.fill(node, 0, count, &Arc::new(seq));
    }

    fn fill(&mut self, parent: NodeId, lo: u64, hi: u64, seq: &Arc<Seq>) {
        let n = hi - lo;
        if n <= GROUP {
            // `lo` is 0 or a multiple of a group size, so its start is known.
            let mut off = seq.start_of(lo);
            self.reserve(parent, n as usize);
            for i in lo..hi {
                match (seq.step)(self, parent, i, off) {
                    Some(next) if next > off || seq.zero_size() => off = next,
                    _ => break,
                }
            }
            return;
        }
        let g = group_size(n);
        let mut s = lo;
        while s < hi {
            let e = s.saturating_add(g).min(hi);
            let so = seq.start_of(s);
            let eo = seq.start_of(e).max(so);
            let mut label = CompactString::const_new("[");
            label.push_str(itoa::Buffer::new().format(s));
            label.push_str("..");
            label.push_str(itoa::Buffer::new().format(e));
            label.push(')');
            let gid = self.add(parent, label, so, eo - so, None);
            let sq = seq.clone();
            self.lazy(
                gid,
                Arc::new(move |b: &mut Builder<'_>, id| b.fill(id, s, e, &sq)),
            );
            s = e;
        }
    }

    /// Looks for a known format in `[off, off+len)` and, if one is found,
    /// parses it under `parent` (which should cover that range). Returns the
    /// format.
    pub fn nested(&mut self, parent: NodeId, off: u64, len: u64) -> Option<Format> {
        let nest = self.nest_of(parent);
        if nest >= MAX_NEST {
            self.info(
                off,
                len.min(1),
                format!("formats nest more than {MAX_NEST} deep here; not opened"),
            );
            return None;
        }
        // Bytes that start where an enclosing format starts (a section that
        // covers the whole file it is in, or an image that is a prefix of
        // the binary holding it): the same magic, so opening them would only
        // repeat that format, as deep as the limit lets it and as many times
        // over as it has such parts. A real container's parts start after
        // its header.
        let mut up = Some(parent);
        while let Some(id) = up {
            let Some(n) = self.node(id) else {
                break;
            };
            if n.space != self.space {
                break;
            }
            let format = self.format_of(id);
            if (format.is_some() || n.parent.is_none()) && n.offset == off {
                let f = format.map_or("format", Format::name);
                let what = if n.size == len {
                    format!("the same bytes as the enclosing {f}")
                } else {
                    format!("starts where the enclosing {f} starts")
                };
                self.info(off, len.min(1), format!("{what}; not opened again"));
                return None;
            }
            up = n.parent;
        }
        if let Some(n) = self.node_mut(parent) {
            n.nest = nest + 1;
        }
        // The parent keeps the deeper count: everything built under it,
        // now or lazily later, is one format deeper.
        let f = (self.dispatch)(self, parent, off, len);
        if let Some(name) = f {
            self.set_format(parent, name);
        }
        f
    }

    /// The nesting depth of `id`'s contents.
    pub fn nest_of(&self, id: NodeId) -> u8 {
        self.node(id).map_or(0, |n| n.nest)
    }

    // ---- derived byte spaces ----

    /// How many bytes a space made from `source` bytes may hold now.
    pub fn derive_budget(&self, source: u64) -> u64 {
        space::budget(source, self.arena.derived)
    }

    /// Opens bytes that are not in the space being built as they are: `make`
    /// turns the source range `[off, off+size)` into new bytes (inflating,
    /// reassembling), given the most bytes it may produce, and the result
    /// becomes a space of its own under a new node of `parent` named `name`
    /// (offset 0, its whole size). Returns that node. A space made before
    /// from the same range by the same method is reused. Past the bounds of
    /// [`space::budget`], or when `make` fails, an error at the source
    /// bytes and `None`.
    pub fn derive(
        &mut self,
        parent: NodeId,
        name: &str,
        off: u64,
        size: u64,
        method: &'static str,
        make: impl FnOnce(&[u8], u64) -> Result<Vec<u8>, String>,
    ) -> Option<NodeId> {
        let origin = Origin {
            space: self.space,
            offset: off,
            size,
            method,
        };
        let existing = self
            .arena
            .spaces
            .iter()
            .position(|s| s.origin == Some(origin));
        let sid = match existing {
            Some(i) => SpaceId::at(i),
            None => {
                let limit = self.derive_budget(size);
                let src = self.slice(off, size);
                let bytes = match make(src, limit) {
                    Ok(b) => b,
                    Err(e) => {
                        self.error(off, size, format!("{name}: {e}"));
                        return None;
                    }
                };
                if bytes.len() as u64 > limit {
                    self.error(
                        off,
                        size,
                        format!(
                            "{name}: {method} makes more than {limit} bytes from {size} (the bound on derived bytes); not opened"
                        ),
                    );
                    return None;
                }
                let Ok(id) = u32::try_from(self.arena.spaces.len()).map(SpaceId) else {
                    return None;
                };
                self.arena.derived = self.arena.derived.saturating_add(bytes.len() as u64);
                self.arena.spaces.push(Space {
                    name: CompactString::from(name),
                    origin: Some(origin),
                    bytes: Some(Arc::from(bytes)),
                });
                id
            }
        };
        let bytes = self.arena.spaces.get(sid.index())?.bytes.clone()?;
        let len = bytes.len() as u64;
        let nest = self.nest_of(parent);
        let id = NodeId::at(self.arena.nodes.len());
        self.arena.nodes.push(Node::new(
            CompactString::from(name),
            0,
            len,
            Some(Value::text(format!(
                "{len} bytes, {method} from 0x{off:x}+0x{size:x}"
            ))),
            sid,
            Some(parent),
            nest,
        ));
        self.attach(parent, id);
        Some(id)
    }

    /// In a tree read for nested formats only ([`Builder::skips_records`]):
    /// what [`Builder::derive`] would make from `[off, off+size)` by
    /// `method`, bytes that hold only records, is not made, but its space
    /// number is taken (an empty space), so that the spaces made after it
    /// are numbered as in a full read. No node is added.
    pub fn derive_unread(&mut self, name: &str, off: u64, size: u64, method: &'static str) {
        let origin = Origin {
            space: self.space,
            offset: off,
            size,
            method,
        };
        if self.arena.spaces.iter().any(|s| s.origin == Some(origin)) {
            return;
        }
        self.arena.spaces.push(Space {
            name: CompactString::from(name),
            origin: Some(origin),
            bytes: Some(Arc::from(Vec::new())),
        });
    }

    /// Runs `f` with a builder over the space of `node` (a node made by
    /// [`Builder::derive`], or any node in its space).
    pub fn within(&mut self, node: NodeId, f: impl FnOnce(&mut Builder<'_>, NodeId)) {
        let Some(sid) = self.node(node).map(|n| n.space) else {
            return;
        };
        if sid == self.space {
            f(self, node);
            return;
        }
        let bytes = self.arena.derived_bytes(sid);
        let Some(bytes) = bytes else {
            return;
        };
        let mut sub = Builder::new(&mut *self.arena, &bytes, sid, self.dispatch);
        sub.lazy = self.lazy;
        f(&mut sub, node);
    }
}
