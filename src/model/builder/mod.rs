//! What a format parser uses to add nodes and diagnostics. Every range is
//! checked against the parent's, every read is bounds-checked, every name and
//! value is made safe to show.

use compact_str::CompactString;

use super::arena::{Arena, Builder, Dispatch, LazyFn, Node, NodeId};
use super::diagnostic::{Diagnostic, Severity};
use super::facts::Fact;
use super::format::Format;
use super::space::Span;
use super::space::{Origin, SpaceId};
use super::text;
use super::value::Value;

mod gaps;
mod nest;
mod reads;
mod seq;

pub use gaps::GAP_NAMES;
pub use seq::{group_size, Seq, Step, GROUP};

impl<'a> Builder<'a> {
    pub(crate) fn new(
        arena: &'a mut Arena,
        data: &'a [u8],
        file: &'a [u8],
        space: SpaceId,
        dispatch: Dispatch,
    ) -> Self {
        Builder {
            arena,
            data,
            file,
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
    /// (by a `LinkTargets`): the tree that shows the same
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

    /// The file's bytes (space 0), whichever space is being built: for a
    /// reader in a derived space that reads a table of the file too,
    /// without a copy.
    pub fn file_data(&self) -> &'a [u8] {
        self.file
    }

    /// The size of the byte space being built.
    pub fn file_len(&self) -> u64 {
        self.data.len() as u64
    }

    /// The byte space being built (0: the file).
    pub fn space(&self) -> SpaceId {
        self.space
    }

    /// The bytes of `at`, a span of the space being built, cut to it.
    pub fn bytes(&self, at: Span) -> &'a [u8] {
        self.slice(at.offset, at.len)
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

    /// The node's bytes; empty for an unknown id.
    pub fn range(&self, id: NodeId) -> Span {
        self.node(id).map_or(self.span(0, 0), Node::span)
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
        if let Some(c) = self.children_to_fill(id) {
            c.reserve(n);
        }
    }

    /// The list of children of `id` to add to: none where they are still
    /// to be built (they come when it is opened); an empty one taken from
    /// the spares.
    #[inline]
    fn children_to_fill(&mut self, id: NodeId) -> Option<&mut Vec<NodeId>> {
        let a = &mut *self.arena;
        let p = a.nodes.get_mut(id.index()).filter(|p| !p.unbuilt)?;
        if p.children.capacity() == 0 {
            p.children = Arena::take_spare(&mut a.spare);
        }
        Some(&mut p.children)
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
        if let Some(c) = self.children_to_fill(parent) {
            c.push(id);
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

    /// Makes `id` point at `to` (in the space being built, one made
    /// before, or the file).
    pub fn link(&mut self, id: NodeId, to: Span) {
        if id.index() < self.arena.nodes.len() {
            self.arena.links.set(id, to);
        }
    }

    /// `len` bytes from `off` of the space being built.
    pub fn span(&self, off: u64, len: u64) -> Span {
        Span::new(self.space, off, len)
    }

    /// The space [`Builder::derive`] made from `origin`'s bytes, and those
    /// bytes; `None` when none was made.
    pub fn derived(&self, origin: Origin) -> Option<(SpaceId, crate::model::space::SpaceBytes)> {
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

    /// Says that lazy node `id`, once built, has as its first child a leaf
    /// named `name` at its own offset, of at least one byte, whose name no
    /// sibling shares: a link to that offset then leads there without
    /// building the node (a kernel's entry, its first instruction, is
    /// found without decoding the kernel). Only for a node with
    /// [`Builder::lazy`], not [`Builder::lazy_self`].
    pub fn lead(&mut self, id: NodeId, name: CompactString) {
        self.arena.leads.set(id, name);
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

    /// Says that node `id`, built lazily, has many children for its
    /// bytes (a stream of one-byte opcodes: about a node a byte), so that
    /// a walk that splits a file into parts by their bytes opens it and
    /// hands out its groups rather than the whole. The groups a sequence
    /// under it makes are dense too.
    pub fn dense(&mut self, id: NodeId) {
        self.arena.dense.set(id, ());
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

    /// Sets the range of node `id` once the build is done and the gaps
    /// between its parent's children are made: a node read elsewhere
    /// with its parent (a `.ksy` instance read with the element that holds
    /// it) shows the range it would show had it been opened after, and
    /// its siblings the gaps they would.
    pub fn place_later(&mut self, id: NodeId, off: u64, size: u64) {
        self.arena.placed_later.push((id, off, size));
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
            span: Span::new(space, off, size),
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
}
