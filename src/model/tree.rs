//! The node arena. Children are built on demand: a node may hold a closure
//! that adds its children the first time someone asks for them.

use std::sync::Arc;

use super::builder::{Builder, Dispatch, LazyFn};
use super::{Diagnostic, Source};

/// Index of a node in its tree.
pub type NodeId = u32;

/// Where a value points: a byte range in the same file. Following it selects
/// the smallest node that holds the whole range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub offset: u64,
    pub size: u64,
}

/// The state of a node's children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Children {
    /// Built (possibly empty).
    Built(Vec<NodeId>),
    /// Not built yet; a closure will build them.
    Lazy,
}

/// One node: a named, absolute byte range with an optional decoded value.
pub struct Node {
    pub name: String,
    pub offset: u64,
    pub size: u64,
    pub value: Option<String>,
    pub link: Option<Link>,
    pub parent: Option<NodeId>,
    /// Set on the node where a format's structure starts (the root, and
    /// every payload that another format was found in).
    pub format: Option<&'static str>,
    pub(crate) children: Children,
    pub(crate) lazy: Option<LazyFn>,
    /// How many formats deep this node's contents are nested.
    pub(crate) nest: u8,
}

impl Node {
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
    pub diags: Vec<Diagnostic>,
}

/// A parsed file: the bytes, the nodes and the diagnostics.
pub struct Tree {
    src: Arc<Source>,
    pub(crate) arena: Arena,
    dispatch: Dispatch,
    format: &'static str,
}

impl Tree {
    /// Builds the tree of `src`. `dispatch` detects a format in a byte range
    /// and parses it into a node; it is also used for nested formats.
    pub fn build(src: Arc<Source>, root_name: &str, dispatch: Dispatch) -> Tree {
        let len = src.len();
        let root = Node {
            name: super::text::clean(root_name).into_owned(),
            offset: 0,
            size: len,
            value: None,
            link: None,
            parent: None,
            format: None,
            children: Children::Built(Vec::new()),
            lazy: None,
            nest: 0,
        };
        let mut t = Tree {
            src,
            arena: Arena {
                nodes: vec![root],
                diags: Vec::new(),
            },
            dispatch,
            format: "raw",
        };
        let src = t.src.clone();
        let data = src.bytes();
        let mut b = Builder::new(&mut t.arena, data, dispatch);
        let fmt = dispatch(&mut b, 0, 0, len);
        if let Some(f) = fmt {
            t.format = f;
            if let Some(r) = t.arena.nodes.first_mut() {
                r.format = Some(f);
                r.value.get_or_insert_with(|| f.to_string());
            }
        } else if let Some(r) = t.arena.nodes.first_mut() {
            r.value = Some(if len == 0 {
                "empty file".to_string()
            } else {
                "unknown format".to_string()
            });
        }
        t
    }

    pub fn root(&self) -> NodeId {
        0
    }
    pub fn source(&self) -> &Arc<Source> {
        &self.src
    }
    pub fn data(&self) -> &[u8] {
        self.src.bytes()
    }
    /// The detected format of the whole file (`raw` if none).
    pub fn format(&self) -> &'static str {
        self.format
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

    /// The node `id`. Ids come from this tree; an unknown id gives the root.
    pub fn node(&self, id: NodeId) -> &Node {
        let n = &self.arena.nodes;
        n.get(id as usize).unwrap_or(&n[0])
    }

    /// True if the node has children, or may have them once built.
    pub fn has_children(&self, id: NodeId) -> bool {
        match &self.node(id).children {
            Children::Built(v) => !v.is_empty(),
            Children::Lazy => true,
        }
    }

    pub fn is_built(&self, id: NodeId) -> bool {
        matches!(self.node(id).children, Children::Built(_))
    }

    /// The children built so far (empty for a node not yet expanded).
    pub fn built_children(&self, id: NodeId) -> &[NodeId] {
        match &self.node(id).children {
            Children::Built(v) => v,
            Children::Lazy => &[],
        }
    }

    /// Builds the children of `id` if they are not built yet.
    pub fn expand(&mut self, id: NodeId) {
        let Some(node) = self.arena.nodes.get_mut(id as usize) else {
            return;
        };
        if !matches!(node.children, Children::Lazy) {
            return;
        }
        node.children = Children::Built(Vec::new());
        let Some(f) = node.lazy.clone() else {
            return;
        };
        let src = self.src.clone();
        let mut b = Builder::new(&mut self.arena, src.bytes(), self.dispatch);
        f(&mut b, id);
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
        let Some(node) = self.arena.nodes.get(id as usize) else {
            return;
        };
        if node.lazy.is_none() || self.arena.nodes.len() < mark || (id as usize) >= mark {
            return;
        }
        self.arena.nodes.truncate(mark);
        if let Some(n) = self.arena.nodes.get_mut(id as usize) {
            n.children = Children::Lazy;
        }
    }

    /// The ids from the root down to `id`, both included.
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut p = vec![id];
        let mut cur = id;
        while let Some(parent) = self.node(cur).parent {
            p.push(parent);
            cur = parent;
        }
        p.reverse();
        p
    }

    /// The node's path as names joined by `/`, the root left out: the form
    /// `--extract` takes.
    pub fn path_string(&self, id: NodeId) -> String {
        let p = self.path(id);
        let names: Vec<&str> = p
            .iter()
            .skip(1)
            .map(|&i| self.node(i).name.as_str())
            .collect();
        names.join("/")
    }

    /// Finds a node by a path of names joined by `/` (the root's name may
    /// lead or be left out). Names that themselves hold `/` are matched
    /// whole; where siblings share a name, the first that leads to a match
    /// is taken.
    pub fn find_path(&mut self, path: &str) -> Option<NodeId> {
        let path = path.trim_matches('/');
        let root = self.root();
        if path.is_empty() {
            return Some(root);
        }
        if let Some(found) = self.find_below(root, path, 0) {
            return Some(found);
        }
        let rname = self.node(root).name.clone();
        match path.strip_prefix(rname.as_str()) {
            Some("") => Some(root),
            Some(rest) if rest.starts_with('/') => self.find_below(root, &rest[1..], 0),
            _ => None,
        }
    }

    fn find_below(&mut self, id: NodeId, rest: &str, depth: usize) -> Option<NodeId> {
        if depth > 256 {
            return None;
        }
        for k in self.children(id) {
            let name = self.node(k).name.clone();
            match rest.strip_prefix(name.as_str()) {
                Some("") => return Some(k),
                Some(r) if r.starts_with('/') => {
                    if let Some(f) = self.find_below(k, &r[1..], depth + 1) {
                        return Some(f);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The deepest node holding the byte at `off`, building children on the
    /// way down.
    pub fn deepest_at(&mut self, off: u64) -> NodeId {
        self.smallest_containing(off, 1)
    }

    /// The deepest, smallest node holding all of `[off, off+size)` (a size of
    /// 0 counts as 1).
    pub fn smallest_containing(&mut self, off: u64, size: u64) -> NodeId {
        let end = off.saturating_add(size.max(1));
        let mut cur = self.root();
        loop {
            self.expand(cur);
            let mut best: Option<NodeId> = None;
            for &k in self.built_children(cur) {
                let n = self.node(k);
                if n.offset <= off && end <= n.end() && n.size > 0 {
                    let better = match best {
                        None => true,
                        Some(b) => n.size < self.node(b).size,
                    };
                    if better {
                        best = Some(k);
                    }
                }
            }
            match best {
                Some(b) => cur = b,
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
    /// node's children and with `false` after them.
    pub fn walk(&mut self, visit: &mut dyn FnMut(&Tree, NodeId, usize, bool)) {
        self.walk_from(self.root(), 0, visit);
    }

    fn walk_from(
        &mut self,
        id: NodeId,
        depth: usize,
        visit: &mut dyn FnMut(&Tree, NodeId, usize, bool),
    ) {
        visit(self, id, depth, true);
        let was_lazy = !self.is_built(id);
        let mark = self.arena.nodes.len();
        for k in self.children(id) {
            self.walk_from(k, depth + 1, visit);
        }
        visit(self, id, depth, false);
        if was_lazy {
            self.release(id, mark);
        }
    }
}
