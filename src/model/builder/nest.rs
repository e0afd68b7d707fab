//! Formats nested in a node, and derived byte spaces.

use std::sync::Arc;

use compact_str::CompactString;

use crate::model::arena::Builder;
use crate::model::arena::{Node, NodeId};
use crate::model::format::Format;
use crate::model::space::Span;
use crate::model::space::{self, Origin, Space, SpaceId};
use crate::model::value::Value;

/// How many formats may nest inside each other.
pub const MAX_NEST: u8 = 8;

impl Builder<'_> {
    /// Looks for a known format in `at` and, if one is found, parses it
    /// under `parent` (which should cover those bytes). Returns the format.
    pub fn nested(&mut self, parent: NodeId, at: Span) -> Option<Format> {
        let nest = self.nest_of(parent);
        if nest >= MAX_NEST {
            self.info(
                at.offset,
                at.len.min(1),
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
            if (format.is_some() || n.parent.is_none()) && n.offset == at.offset {
                let f = format.map_or("format", Format::name);
                let what = if n.size == at.len {
                    format!("the same bytes as the enclosing {f}")
                } else {
                    format!("starts where the enclosing {f} starts")
                };
                self.info(
                    at.offset,
                    at.len.min(1),
                    format!("{what}; not opened again"),
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
        let f = (self.dispatch)(self, parent, at);
        if let Some(name) = f {
            self.set_format(parent, name);
        }
        self.pages_read(at.offset, at.len);
        f
    }

    /// `[off, off+len)` of the space being built has been read and will
    /// not be read again soon: in a scan of a mapped file, its pages may go
    /// back to the system (see `model::source::Pager`).
    pub(crate) fn pages_read(&mut self, off: u64, len: u64) {
        if self.space == crate::model::FILE {
            if let Some(p) = self.arena.pager.as_mut() {
                p.done(off, len);
            }
        }
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
        from: Span,
        method: &'static str,
        make: impl FnOnce(&[u8], u64) -> Result<Vec<u8>, String>,
    ) -> Option<NodeId> {
        let origin = Origin { from, method };
        let (off, size) = (from.offset, from.len);
        let existing = self
            .arena
            .spaces
            .iter()
            .position(|s| s.origin == Some(origin));
        let dropped = existing
            .and_then(|i| self.arena.spaces.get(i))
            .and_then(|s| s.dropped);
        let sid = match (existing, dropped) {
            (Some(i), None) => SpaceId::at(i),
            // Made before and given back since: made again, as it was.
            (Some(i), Some(len)) => {
                let src = self.slice(off, size);
                let made = make(src, len);
                self.pages_read(off, size);
                let bytes = made.ok().filter(|b| b.len() as u64 == len)?;
                let made_at = self.arena.nodes.len();
                let s = self.arena.spaces.get_mut(i)?;
                s.bytes = Some(Arc::new(bytes));
                s.dropped = None;
                s.made_at = made_at;
                self.arena.derived = self.arena.derived.saturating_add(len);
                SpaceId::at(i)
            }
            (None, _) => {
                let limit = self.derive_budget(size);
                let src = self.slice(off, size);
                let made = make(src, limit);
                self.pages_read(off, size);
                let bytes = match made {
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
                let made_at = self.arena.nodes.len();
                self.arena.spaces.push(Space {
                    name: CompactString::from(name),
                    origin: Some(origin),
                    bytes: Some(Arc::new(bytes)),
                    made_at,
                    dropped: None,
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
    pub fn derive_unread(&mut self, name: &str, from: Span, method: &'static str) {
        let origin = Origin { from, method };
        if self.arena.spaces.iter().any(|s| s.origin == Some(origin)) {
            return;
        }
        let made_at = self.arena.nodes.len();
        self.arena.spaces.push(Space {
            name: CompactString::from(name),
            origin: Some(origin),
            bytes: Some(Arc::new(Vec::new())),
            made_at,
            dropped: None,
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
        let mut sub = Builder::new(&mut *self.arena, &bytes, self.file, sid, self.dispatch);
        sub.lazy = self.lazy;
        f(&mut sub, node);
    }
}
