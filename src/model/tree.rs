//! The node arena. Children are built on demand: a node may hold a closure
//! that adds its children the first time someone asks for them.

use std::ops::ControlFlow;
use std::sync::Arc;

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::address::{cut_name, escape_segment, is_cut_form, split_path};
use super::arena::{Arena, Builder, Dispatch, Node, NodeId, Side};
use super::diagnostic::Diagnostic;
use super::facts::Facts;
use super::format::{Format, RAW};
use super::options::Options;
use super::source::Source;
use super::space::Span;
use super::space::{Space, SpaceId, FILE};
use super::value::{Numbers, Value};

/// A parsed file: the bytes, the nodes and the diagnostics.
pub struct Tree {
    src: Arc<Source>,
    pub(crate) arena: Arena,
    dispatch: Dispatch,
    format: Option<Format>,
}

impl Tree {
    /// Builds the tree of `src`. `dispatch` detects a format in a byte range
    /// and parses it into a node; it is also used for nested formats.
    pub fn build(src: Arc<Source>, root_name: &str, dispatch: Dispatch) -> Tree {
        Tree::build_with(src, root_name, dispatch, Options::default())
    }

    /// Like [`Tree::build`], with `options` for the formats to read (see
    /// [`super::Builder::options`]).
    pub fn build_with(
        src: Arc<Source>,
        root_name: &str,
        dispatch: Dispatch,
        options: Options,
    ) -> Tree {
        let len = src.len();
        let root = Node::new(CompactString::from(root_name), 0, len, None, FILE, None, 0);
        let pager = options
            .nested_only
            .then(|| super::source::Pager::new(&src))
            .flatten();
        let mut t = Tree {
            src,
            arena: Arena {
                nodes: vec![root],
                links: Side::default(),
                formats: Side::default(),
                facts: Side::default(),
                dense: Side::default(),
                lazies: Side::default(),
                leads: Side::default(),
                diags: Vec::new(),
                seen: FxHashSet::default(),
                spaces: vec![Space {
                    name: CompactString::const_new("file"),
                    origin: None,
                    bytes: None,
                    made_at: 0,
                    dropped: None,
                }],
                derived: 0,
                keys: FxHashMap::default(),
                placed_later: Vec::new(),
                spare: Vec::new(),
                pager,
                options,
            },
            dispatch,
            format: None,
        };
        let src = t.src.clone();
        let data = src.bytes();
        let mut b = Builder::new(&mut t.arena, data, data, FILE, dispatch);
        let fmt = dispatch(&mut b, NodeId::ROOT, Span::file(0, len));
        b.close_gaps(0, None);
        if let Some(f) = fmt {
            t.format = Some(f);
            t.arena.formats.set(NodeId::ROOT, f);
            if let Some(r) = t.arena.nodes.first_mut() {
                r.value.get_or_insert_with(|| Value::text(f.name()));
            }
        } else if let Some(r) = t.arena.nodes.first_mut() {
            r.value = Some(Value::text(if len == 0 {
                "empty file"
            } else {
                "unknown format"
            }));
        }
        t
    }

    pub fn root(&self) -> NodeId {
        NodeId::ROOT
    }
    pub fn source(&self) -> &Arc<Source> {
        &self.src
    }
    /// The bytes of the file (space 0).
    pub fn data(&self) -> &[u8] {
        self.src.bytes()
    }
    /// The byte spaces made so far; the first is the file.
    pub fn spaces(&self) -> &[Space] {
        &self.arena.spaces
    }
    /// True when `inner` starts in the bytes of `outer`: in the same space,
    /// or in a space made (at any depth) from bytes that start there.
    pub fn starts_in(&self, outer: Span, inner: Span) -> bool {
        let mut at = inner;
        // Each space is made from bytes of one made before it: the chain
        // ends, and at most as many steps as there are spaces.
        for _ in 0..=self.arena.spaces.len() {
            if at.space == outer.space {
                return at.offset == outer.offset || outer.contains(at.offset);
            }
            match self
                .arena
                .spaces
                .get(at.space.index())
                .and_then(|s| s.origin)
            {
                Some(o) => at = o.from,
                None => return false,
            }
        }
        false
    }

    /// The size of byte space `space` (0 for one not made).
    pub fn space_size(&self, space: SpaceId) -> u64 {
        self.arena
            .spaces
            .get(space.index())
            .map_or(0, |s| s.size(self.src.len()))
    }
    /// The bytes of `space` (empty for an unknown one).
    pub fn space_bytes(&self, space: SpaceId) -> &[u8] {
        if space == FILE {
            return self.src.bytes();
        }
        match self
            .arena
            .spaces
            .get(space.index())
            .and_then(|s| s.bytes.as_ref())
        {
            Some(b) => b,
            None => &[],
        }
    }
    /// The bytes of node `id`, from its own space.
    pub fn node_bytes(&self, id: NodeId) -> &[u8] {
        let Some(n) = self.node(id) else {
            return &[];
        };
        let d = self.space_bytes(n.space);
        let s = usize::try_from(n.offset).unwrap_or(usize::MAX).min(d.len());
        let e = usize::try_from(n.end()).unwrap_or(usize::MAX).min(d.len());
        d.get(s..e).unwrap_or_default()
    }
    /// The topmost node of `id`'s space on its way to the root: the root of
    /// a derived space, or the tree's root for the file.
    pub fn space_root(&self, id: NodeId) -> NodeId {
        let Some(n) = self.node(id) else {
            return self.root();
        };
        let sp = n.space;
        let mut cur = id;
        while let Some(p) = self.node(cur).and_then(|n| n.parent) {
            if self.node(p).map(|n| n.space) != Some(sp) {
                break;
            }
            cur = p;
        }
        cur
    }
    /// The detected format of the whole file, if any.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// The name of the whole file's format as printed (`raw` if none).
    pub fn format_name(&self) -> &'static str {
        self.format.map_or(RAW, Format::name)
    }
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.arena.diags
    }
    pub fn len(&self) -> usize {
        self.arena.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.arena.nodes.is_empty()
    }

    /// The node `id`, if this tree has it.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.arena.nodes.get(id.index())
    }

    /// Where the node's value points, if it does.
    pub fn link(&self, id: NodeId) -> Option<Span> {
        self.arena.links.get(id).copied()
    }

    /// The node's link where its value does not say what the link leads
    /// to (no value, or a bare number: see [`Value::names_target`]): the
    /// links whose target the exporters name (`--tree`'s arrow, the
    /// `path` of `--json`'s link). The one place that rule is applied.
    #[inline]
    pub fn bare_link(&self, id: NodeId) -> Option<Span> {
        if !Value::bare(self.node(id)?.value.as_ref()) {
            return None;
        }
        self.link(id)
    }

    /// The format whose structure starts at the node (the root, and every
    /// payload that another format was found in).
    pub fn node_format(&self, id: NodeId) -> Option<Format> {
        self.arena.formats.get(id).copied()
    }

    /// What parsers recorded of node `id` for consumers, if anything.
    pub fn facts(&self, id: NodeId) -> Option<&Facts> {
        self.arena.facts.get(id)
    }

    /// The node's name ("" for an unknown id).
    pub fn name(&self, id: NodeId) -> &str {
        self.node(id).map_or("", |n| n.name.as_str())
    }

    /// The node's value as text, numbers shown as each value prefers.
    pub fn value_text(&self, id: NodeId) -> Option<String> {
        self.value_in(id, Numbers::Natural)
    }

    /// The node's value as text, numbers as `mode` asks.
    pub fn value_in(&self, id: NodeId, mode: Numbers) -> Option<String> {
        self.node(id)?.value.as_ref().map(|v| v.render(mode))
    }

    /// True if the node has children, or may have them once built.
    pub fn has_children(&self, id: NodeId) -> bool {
        self.node(id)
            .is_some_and(|n| n.unbuilt || !n.children.is_empty())
    }

    /// What identifies node `id` among its siblings, where a format gave
    /// it more than its name (see [`super::Builder::set_key`]).
    pub fn key(&self, id: NodeId) -> Option<&str> {
        self.arena.keys.get(&id).map(CompactString::as_str)
    }

    /// True if node `id`'s own range and value are known only once its
    /// children are built (see [`super::Builder::lazy_self`]).
    pub fn opens_self(&self, id: NodeId) -> bool {
        self.node(id).is_some_and(|n| n.opens_self)
    }

    /// True if node `id` has many children for its bytes (see
    /// [`super::Builder::dense`]).
    pub fn is_dense(&self, id: NodeId) -> bool {
        self.arena.dense.get(id).is_some()
    }

    /// The name of the child node `id` will have at its own offset, a
    /// leaf, where it is not built and its format knows that name (see
    /// [`super::Builder::lead`]).
    pub fn lead(&self, id: NodeId) -> Option<&str> {
        if self.is_built(id) {
            return None;
        }
        self.arena.leads.get(id).map(CompactString::as_str)
    }

    pub fn is_built(&self, id: NodeId) -> bool {
        self.node(id).is_some_and(|n| !n.unbuilt)
    }

    /// The children built so far (empty for a node not yet expanded).
    pub fn built_children(&self, id: NodeId) -> &[NodeId] {
        match self.node(id) {
            Some(n) => &n.children,
            None => &[],
        }
    }

    /// Builds the children of `id` if they are not built yet.
    pub fn expand(&mut self, id: NodeId) {
        let Some(node) = self.arena.nodes.get_mut(id.index()) else {
            return;
        };
        if !node.unbuilt {
            return;
        }
        node.unbuilt = false;
        let space = node.space;
        let Some(f) = self.arena.lazies.get(id).cloned() else {
            return;
        };
        self.with_builder(space, |b, mark| {
            let mut b = b.for_lazy();
            f(&mut b, id);
            b.close_gaps(mark, Some(id));
        });
    }

    /// Runs `f` with a builder over byte space `space` and the number of
    /// nodes the arena held before it.
    fn with_builder<R>(&mut self, space: SpaceId, f: impl FnOnce(Builder<'_>, usize) -> R) -> R {
        let src = self.src.clone();
        let derived = self.arena.derived_bytes(space);
        let data: &[u8] = match &derived {
            Some(d) => d,
            None => src.bytes(),
        };
        let mark = self.arena.nodes.len();
        f(
            Builder::new(&mut self.arena, data, src.bytes(), space, self.dispatch),
            mark,
        )
    }

    /// Adds a child to node `id`, after its others, that covers the same
    /// bytes, is named `name` and has the children `f` builds under it
    /// (given the child, its offset and size): a reading of the node's
    /// bytes that the user asked for after the tree was built. Returns the
    /// child.
    pub fn graft(
        &mut self,
        id: NodeId,
        name: &str,
        f: &mut dyn FnMut(&mut Builder<'_>, NodeId, u64, u64),
    ) -> Option<NodeId> {
        self.expand(id);
        let (space, off, size) = self.node(id).map(|n| (n.space, n.offset, n.size))?;
        Some(self.with_builder(space, |mut b, mark| {
            let g = b.add(id, name, off, size, None);
            f(&mut b, g, off, size);
            b.close_gaps(mark, None);
            g
        }))
    }

    /// The children of `id`, built if needed.
    pub fn children(&mut self, id: NodeId) -> Vec<NodeId> {
        self.expand(id);
        self.built_children(id).to_vec()
    }

    /// Forgets the children built for a lazy node since the arena held
    /// `mark` nodes, so that a walk over a huge tree needs memory for one
    /// path only. Only valid when every node after `mark` belongs to `id`.
    pub(crate) fn release(&mut self, id: NodeId, mark: usize) {
        if self.arena.lazies.get(id).is_none()
            || self.arena.nodes.len() < mark
            || id.index() >= mark
        {
            return;
        }
        self.arena.keep_spares(mark);
        self.arena.nodes.truncate(mark);
        if !self.arena.keys.is_empty() {
            self.arena.keys.retain(|&k, _| k.index() < mark);
        }
        self.arena.links.truncate(mark);
        self.arena.formats.truncate(mark);
        self.arena.dense.truncate(mark);
        self.arena.facts.truncate(mark);
        self.arena.lazies.truncate(mark);
        self.arena.leads.truncate(mark);
        if let Some(n) = self.arena.nodes.get_mut(id.index()) {
            n.children = Vec::new();
            n.unbuilt = true;
        }
    }

    /// How many nodes the tree holds now: a mark for [`Tree::release_below`].
    pub fn mark(&self) -> usize {
        self.arena.nodes.len()
    }

    /// Forgets the children of lazy node `id` built since [`Tree::mark`]
    /// gave `mark` (it builds them again when asked). Only for walks that
    /// built nothing else since.
    pub fn release_below(&mut self, id: NodeId, mark: usize) {
        self.release(id, mark);
    }

    /// Gives back the bytes of the derived spaces made since [`Tree::mark`]
    /// gave `mark`, once the nodes built since are released
    /// ([`Tree::release_below`]): a scan that will not come back to them
    /// (`--targets`) then holds the inflated bytes of one image at a time,
    /// not of all, and [`crate::model::space::MAX_DERIVED`] bounds what
    /// is held, not what was ever made. Each space keeps its number and
    /// size, and is made again if a node in it is built again. Spaces are
    /// made in order, so the ones since `mark` are the last of the list.
    pub fn drop_spaces_from(&mut self, mark: usize) {
        if self.arena.nodes.len() > mark {
            return;
        }
        for s in self.arena.spaces.iter_mut().skip(1).rev() {
            if s.made_at < mark {
                break;
            }
            if s.dropped.is_none() {
                if let Some(b) = &s.bytes {
                    let len = b.len() as u64;
                    s.dropped = Some(len);
                    s.bytes = Some(Arc::new(Vec::new()));
                    // No longer held: the bound on what derived spaces
                    // hold together leaves room for the next ones.
                    self.arena.derived = self.arena.derived.saturating_sub(len);
                }
            }
        }
    }

    /// The node's own segment of its address (see [`Tree::path_string`]).
    pub fn segment(&self, id: NodeId) -> String {
        let mut s = String::new();
        self.push_segment(&mut s, id);
        s
    }

    /// The ids from the root down to `id`, both included.
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut p = vec![id];
        let mut cur = id;
        while let Some(parent) = self.node(cur).and_then(|n| n.parent) {
            p.push(parent);
            cur = parent;
        }
        p.reverse();
        p
    }

    /// The node's address: one segment a level below the root, joined by
    /// `/`. A segment is the node's name with `\`, `/` and `#` escaped by a
    /// backslash; where siblings share the name, `#K` follows, K counting
    /// those siblings from 0. The address names exactly this node, and
    /// [`Tree::find_path`] finds it again.
    pub fn path_string(&self, id: NodeId) -> String {
        self.address(id, false)
    }

    /// The node's address as [`Tree::path_string`] makes it, with every
    /// name longer than 64 characters cut to its first 60 and `…` (and
    /// `#K` counting the siblings whose names cut the same): an address
    /// whose length grows with the depth of the node, never with the
    /// length of a name. [`Tree::find_path`] finds the node again.
    pub fn short_path(&self, id: NodeId) -> String {
        self.address(id, true)
    }

    /// The node's address, names cut where `cut` says.
    fn address(&self, id: NodeId, cut: bool) -> String {
        let p = self.path(id);
        let mut out = String::new();
        for (i, &k) in p.iter().enumerate().skip(1) {
            if i > 1 {
                out.push('/');
            }
            self.push_segment_cut(&mut out, k, cut);
        }
        out
    }

    fn push_segment(&self, out: &mut String, id: NodeId) {
        self.push_segment_cut(out, id, false);
    }

    /// Appends the node's segment; with `cut`, its name cut as
    /// [`Tree::short_path`] says.
    fn push_segment_cut(&self, out: &mut String, id: NodeId, cut: bool) {
        let Some(n) = self.node(id) else {
            return;
        };
        let me = if cut {
            cut_name(&n.name)
        } else {
            std::borrow::Cow::Borrowed(n.name.as_str())
        };
        escape_segment(out, &me);
        let Some(parent) = n.parent else {
            return;
        };
        let mut index = 0usize;
        let mut same = 0usize;
        for &k in self.built_children(parent) {
            let alike = self.node(k).is_some_and(|s| {
                if cut {
                    cut_name(&s.name) == me
                } else {
                    s.name.as_str() == me.as_ref()
                }
            });
            if alike {
                if k == id {
                    index = same;
                }
                same += 1;
            }
        }
        if same > 1 {
            out.push('#');
            out.push_str(itoa::Buffer::new().format(index));
        }
    }

    /// Finds the node at an address made by [`Tree::path_string`] (the
    /// root's name may lead) or by [`Tree::short_path`]. A segment without
    /// `#K` names the first sibling of that name.
    pub fn find_path(&mut self, path: &str) -> Option<NodeId> {
        let segs = split_path(path)?;
        let root = self.root();
        if segs.is_empty() {
            return Some(root);
        }
        // Names as they are, then as an address of [`Tree::short_path`]
        // cuts them.
        for cut in [false, true] {
            if let Some(found) = self.find_segs(root, &segs, cut) {
                return Some(found);
            }
            let (first, rest) = segs.split_first()?;
            if first.0 == self.name(root) && first.1 == 0 {
                if rest.is_empty() {
                    return Some(root);
                }
                if let Some(found) = self.find_segs(root, rest, cut) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// The node below `from` at `segs`; with `cut`, a segment that may be
    /// a cut name (see [`Tree::short_path`]) names the siblings whose names
    /// cut to it.
    fn find_segs(&mut self, from: NodeId, segs: &[(String, usize)], cut: bool) -> Option<NodeId> {
        let mut cur = from;
        for (name, want) in segs {
            let mut seen = 0usize;
            let mut next = None;
            let cut_form = cut && is_cut_form(name);
            for k in self.children(cur) {
                let alike = if cut_form {
                    cut_name(self.name(k)) == name.as_str()
                } else {
                    self.name(k) == name
                };
                if alike {
                    if seen == *want {
                        next = Some(k);
                        break;
                    }
                    seen += 1;
                }
            }
            cur = next?;
        }
        Some(cur)
    }

    /// The node following link `l` selects (the explorer's `f`): the
    /// smallest node of the file that holds the link's whole range (see
    /// [`Tree::smallest_containing`]).
    pub fn follow(&mut self, l: Span) -> NodeId {
        self.smallest_containing(l)
    }

    /// The node link `l` leads to, where one starts at its offset: the
    /// node [`Tree::follow`] selects if it starts there; none for a link
    /// into the middle of a node or past the end of the file.
    pub fn link_target(&mut self, l: Span) -> Option<NodeId> {
        // Targets are looked up in the file's space only.
        if l.space != FILE || l.offset >= self.src.bytes().len() as u64 {
            return None;
        }
        let id = self.follow(l);
        self.node(id)
            .is_some_and(|n| n.offset == l.offset && n.space == FILE)
            .then_some(id)
    }

    /// `len` bytes from `off` of the byte space node `top` is in.
    pub fn span_in(&self, top: NodeId, off: u64, len: u64) -> Span {
        Span::new(self.node(top).map_or(FILE, |n| n.space), off, len)
    }

    /// The deepest node holding the byte at `off`, building children on the
    /// way down.
    pub fn deepest_at(&mut self, off: u64) -> NodeId {
        self.smallest_containing(Span::file(off, 1))
    }

    /// The deepest, smallest node of the file holding all of `at` (a
    /// length of 0 counts as 1).
    pub fn smallest_containing(&mut self, at: Span) -> NodeId {
        self.smallest_containing_from(self.root(), at)
    }

    /// Like [`Tree::smallest_containing`], below `top`, which is the root
    /// of `at`'s space or any node of it (else `top` itself is the answer).
    pub fn smallest_containing_from(&mut self, top: NodeId, at: Span) -> NodeId {
        let (off, end) = (at.offset, at.offset.saturating_add(at.len.max(1)));
        let space = at.space;
        let mut cur = top;
        loop {
            self.expand(cur);
            let mut best: Option<(NodeId, u64)> = None;
            for &k in self.built_children(cur) {
                let Some(n) = self.node(k) else {
                    continue;
                };
                if n.space == space && n.offset <= off && end <= n.end() && n.size > 0 {
                    let better = match best {
                        None => true,
                        Some((_, bs)) => n.size < bs,
                    };
                    if better {
                        best = Some((k, n.size));
                    }
                }
            }
            match best {
                Some((b, _)) => cur = b,
                None => return cur,
            }
        }
    }

    /// Builds every node. For tests and small files; exporters walk with
    /// [`Tree::walk`] instead, which keeps memory bounded.
    pub fn expand_all(&mut self) {
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            stack.extend(self.children(id));
        }
    }

    /// Visits every node depth-first, building lazy children as it goes and
    /// forgetting them once visited. `visit` is called with `true` before a
    /// node's children and with `false` after them; returning
    /// `ControlFlow::Break` on entering a node stops the walk there.
    pub fn walk<F>(&mut self, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(&Tree, NodeId, usize, bool) -> ControlFlow<()> + ?Sized,
    {
        self.walk_from(self.root(), 0, visit)
    }

    /// Walks the nodes below `id` (not `id` itself), `depth` being `id`'s,
    /// and forgets what it built for them.
    pub fn walk_below<F>(&mut self, id: NodeId, depth: usize, visit: &mut F)
    where
        F: FnMut(&Tree, NodeId, usize, bool) -> ControlFlow<()> + ?Sized,
    {
        let was_lazy = !self.is_built(id);
        let mark = self.arena.nodes.len();
        self.expand(id);
        let n = self.built_children(id).len();
        for i in 0..n {
            let Some(&k) = self.built_children(id).get(i) else {
                break;
            };
            if self.walk_from(k, depth + 1, visit).is_break() {
                break;
            }
        }
        if was_lazy {
            self.release(id, mark);
        }
    }

    /// A second tree over the same bytes, parsed the same way (for work on
    /// another thread).
    pub fn reopen(&self) -> Tree {
        let name = self.name(self.root()).to_string();
        Tree::build_with(self.src.clone(), &name, self.dispatch, self.arena.options)
    }

    /// A copy of the tree as it is built now, over the same bytes: what a
    /// fresh [`Tree::reopen`] builds, without parsing again, for a tree that
    /// answers questions all over the file (where links lead) to go back to
    /// once it has grown.
    pub(crate) fn snapshot(&self) -> Tree {
        Tree {
            src: self.src.clone(),
            arena: self.arena.copy(),
            dispatch: self.dispatch,
            format: self.format,
        }
    }

    /// What the formats were asked to show.
    pub fn options(&self) -> Options {
        self.arena.options
    }

    /// Adds diagnostics raised in another tree over the same bytes (see
    /// [`Tree::reopen`]), each once.
    pub fn absorb_diagnostics(&mut self, diags: Vec<Diagnostic>) {
        for d in diags {
            if self.arena.seen.insert(d.clone()) {
                self.arena.diags.push(d);
            }
        }
    }

    /// Walks node `id` (at `depth`) and the nodes below it as
    /// [`Tree::walk`] walks the whole tree.
    pub fn walk_from<F>(&mut self, id: NodeId, depth: usize, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(&Tree, NodeId, usize, bool) -> ControlFlow<()> + ?Sized,
    {
        let was_lazy = !self.is_built(id);
        let mark = self.arena.nodes.len();
        // A node that learns its own range and value when built is built
        // before it is visited.
        if was_lazy && self.node(id).is_some_and(|n| n.opens_self) {
            self.expand(id);
        }
        if visit(self, id, depth, true).is_break() {
            if was_lazy {
                self.release(id, mark);
            }
            return ControlFlow::Break(());
        }
        // A leaf (most nodes) has nothing to build or release.
        if let Some(n) = self.node(id) {
            if !n.unbuilt && n.children.is_empty() {
                let flow = visit(self, id, depth, false);
                if was_lazy {
                    self.release(id, mark);
                }
                return flow;
            }
        }
        self.expand(id);
        let n = self.built_children(id).len();
        let mut flow = ControlFlow::Continue(());
        for i in 0..n {
            let Some(&k) = self.built_children(id).get(i) else {
                break;
            };
            // A leaf child is visited here, without a call.
            let leaf = self
                .node(k)
                .is_some_and(|c| !c.unbuilt && c.children.is_empty());
            flow = if leaf {
                match visit(self, k, depth + 1, true) {
                    ControlFlow::Continue(()) => visit(self, k, depth + 1, false),
                    b => b,
                }
            } else {
                self.walk_from(k, depth + 1, visit)
            };
            if flow.is_break() {
                break;
            }
        }
        if flow.is_continue() {
            flow = visit(self, id, depth, false);
        }
        if was_lazy {
            self.release(id, mark);
        }
        flow
    }
}

// ---- Where many links lead (see `links.rs`) ----

thread_local! {
    /// Whether this thread builds nodes for a `LinkTargets` (links.rs).
    pub(crate) static FINDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the nodes this thread builds now are built by a
/// `LinkTargets` to find where a link leads, in a tree nobody is shown,
/// beside the tree that shows the same bytes and will build them again.
pub fn finding_targets() -> bool {
    FINDING.get()
}

#[cfg(test)]
#[path = "tree_tests.rs"]
pub(crate) mod tests;
