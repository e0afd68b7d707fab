//! What a format parser uses to add nodes and diagnostics. Every range is
//! checked against the parent's, every read is bounds-checked, every name and
//! value is made safe to show.

use std::sync::Arc;

use super::read::{self, Endian};
use super::tree::{Arena, Children, Link, Node, NodeId};
use super::{num, text, Diagnostic, Severity};

/// Builds the children of a node when they are first needed.
pub type LazyFn = Arc<dyn Fn(&mut Builder<'_>, NodeId) + Send + Sync>;

/// Builds one element of an array: `(builder, parent, index, offset)`.
pub type ElemFn = Arc<dyn Fn(&mut Builder<'_>, NodeId, u64, u64) + Send + Sync>;

/// Detects a format in `[off, off+len)` and parses it under `parent`;
/// returns the format's name, or `None` if nothing was recognised.
pub type Dispatch = fn(&mut Builder<'_>, NodeId, u64, u64) -> Option<&'static str>;

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
    dispatch: Dispatch,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(arena: &'a mut Arena, data: &'a [u8], dispatch: Dispatch) -> Self {
        Builder {
            arena,
            data,
            dispatch,
        }
    }

    /// The whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The file's size.
    pub fn file_len(&self) -> u64 {
        self.data.len() as u64
    }

    /// The bytes of `[off, off+len)`, cut to the file.
    pub fn slice(&self, off: u64, len: u64) -> &'a [u8] {
        let start = (off.min(self.file_len())) as usize;
        let end = (off.saturating_add(len).min(self.file_len())) as usize;
        self.data.get(start..end).unwrap_or(&[])
    }

    pub fn node(&self, id: NodeId) -> &Node {
        let n = &self.arena.nodes;
        n.get(id as usize).unwrap_or(&n[0])
    }

    fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.arena.nodes.get_mut(id as usize)
    }

    /// Adds a child of `parent` covering `[off, off+size)`. A range that is
    /// not inside the parent's is cut to it, with a warning.
    pub fn add(
        &mut self,
        parent: NodeId,
        name: impl AsRef<str>,
        off: u64,
        size: u64,
        value: Option<String>,
    ) -> NodeId {
        let (pstart, pend, nest) = {
            let p = self.node(parent);
            (p.offset, p.end(), p.nest)
        };
        let mut start = off;
        let mut end = off.saturating_add(size);
        if start < pstart || end > pend {
            let name = name.as_ref();
            self.warn(
                off.min(pend.saturating_sub(1)).max(pstart),
                0,
                format!(
                    "{} [0x{off:x}+0x{size:x}] lies outside its parent [0x{pstart:x}+0x{:x}]; cut to it",
                    text::clean(name),
                    pend - pstart
                ),
            );
            start = start.clamp(pstart, pend);
            end = end.clamp(start, pend);
        }
        let id = self.arena.nodes.len() as NodeId;
        self.arena.nodes.push(Node {
            name: text::clean(name.as_ref()).into_owned(),
            offset: start,
            size: end - start,
            value: value.map(|v| match text::clean(&v) {
                std::borrow::Cow::Borrowed(_) => v,
                std::borrow::Cow::Owned(o) => o,
            }),
            link: None,
            parent: Some(parent),
            format: None,
            children: Children::Built(Vec::new()),
            lazy: None,
            nest,
        });
        if let Some(Node {
            children: Children::Built(v),
            ..
        }) = self.node_mut(parent)
        {
            v.push(id);
        }
        id
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
        value: impl Into<String>,
    ) -> NodeId {
        self.add(parent, name, off, size, Some(value.into()))
    }

    pub fn set_value(&mut self, id: NodeId, value: impl Into<String>) {
        let v: String = value.into();
        let v = text::clean(&v).into_owned();
        if let Some(n) = self.node_mut(id) {
            n.value = Some(v);
        }
    }

    pub fn set_name(&mut self, id: NodeId, name: impl AsRef<str>) {
        let v = text::clean(name.as_ref()).into_owned();
        if let Some(n) = self.node_mut(id) {
            n.name = v;
        }
    }

    /// Makes `id` point at `[off, off+size)`.
    pub fn link(&mut self, id: NodeId, off: u64, size: u64) {
        if let Some(n) = self.node_mut(id) {
            n.link = Some(Link { offset: off, size });
        }
    }

    /// Marks the node where a format starts.
    pub fn set_format(&mut self, id: NodeId, format: &'static str) {
        if let Some(n) = self.node_mut(id) {
            n.format = Some(format);
        }
    }

    /// Lets `f` build the children of `id` when they are first needed.
    pub fn lazy(&mut self, id: NodeId, f: LazyFn) {
        if let Some(n) = self.node_mut(id) {
            n.children = Children::Lazy;
            n.lazy = Some(f);
        }
    }

    // ---- diagnostics ----

    pub fn diag(&mut self, severity: Severity, off: u64, size: u64, message: impl Into<String>) {
        let m: String = message.into();
        self.arena.diags.push(Diagnostic {
            severity,
            offset: off,
            size,
            message: text::clean(&m).into_owned(),
        });
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
                self.leaf(parent, name, off, size, num(v));
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
                self.leaf(parent, name, off, len, text::hex(b, 16));
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
                self.leaf(parent, name, off, len, format!("\"{s}\""));
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
        let pend = self.node(parent).end();
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
        let id = self.add(parent, name, off, n * stride, Some(format!("{n} entries")));
        if n > 0 {
            let f: LazyFn = Arc::new(move |b: &mut Builder<'_>, id| {
                b.fill(id, 0, n, off, stride, &elem);
            });
            self.lazy(id, f);
        }
        id
    }

    fn fill(&mut self, parent: NodeId, lo: u64, hi: u64, base: u64, stride: u64, elem: &ElemFn) {
        let n = hi - lo;
        if n <= GROUP {
            for i in lo..hi {
                elem(self, parent, i, base + i * stride);
            }
            return;
        }
        let g = group_size(n);
        let mut start = lo;
        while start < hi {
            let end = start.saturating_add(g).min(hi);
            let gid = self.add(
                parent,
                format!("[{start}..{end})"),
                base + start * stride,
                (end - start) * stride,
                None,
            );
            let e = elem.clone();
            let f: LazyFn = Arc::new(move |b: &mut Builder<'_>, id| {
                b.fill(id, start, end, base, stride, &e);
            });
            self.lazy(gid, f);
            start = end;
        }
    }

    /// Looks for a known format in `[off, off+len)` and, if one is found,
    /// parses it under `parent` (which should cover that range). Returns the
    /// format's name.
    pub fn nested(&mut self, parent: NodeId, off: u64, len: u64) -> Option<&'static str> {
        let nest = self.node(parent).nest;
        if nest >= MAX_NEST {
            self.info(
                off,
                len.min(1),
                format!("formats nest more than {MAX_NEST} deep here; not opened"),
            );
            return None;
        }
        // The same bytes as an enclosing format's (a section that covers
        // the whole file it is in): opening them again would only repeat
        // that format, as deep as the limit lets it.
        let mut up = Some(parent);
        while let Some(id) = up {
            let n = self.node(id);
            if (n.format.is_some() || n.parent.is_none()) && n.offset == off && n.size == len {
                let f = n.format.unwrap_or("format");
                self.info(
                    off,
                    len.min(1),
                    format!("the same bytes as the enclosing {f}; not opened again"),
                );
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
        self.node(id).nest
    }
}
