//! MessagePack decoded into nodes: every map entry a node over its key
//! and value bytes, named by its key; every array element `[i]`; scalars
//! as typed values. The markers are read with `rmp`; offsets, lengths and
//! limits are kept here, so that a truncated document, a count larger than
//! the bytes left or a nesting too deep ends in a diagnostic.

use rmp::Marker;

use crate::model::{read, sign_extend, Builder, Endian, Gap, NodeId, Span, Value};

/// Containers nested deeper than this are shown as bytes.
const MAX_DEPTH: u32 = 32;
/// Nodes made for one document at most.
const MAX_NODES: u64 = 200_000;

/// What one item starts with.
enum Head {
    /// A scalar and where it ends.
    Scalar(Value, u64),
    /// A string's bytes `[start, end)`.
    Str(u64, u64),
    /// An array of `n` items, the first at the position given.
    Array(u64, u64),
    /// A map of `n` entries.
    Map(u64, u64),
}

/// The big-endian number of `n` (1, 2, 4 or 8) bytes at `at` of `d`.
fn be(d: &[u8], at: u64, n: u64) -> Result<u64, String> {
    read::uint_at(d, at, n, Endian::Big)
        .ok_or_else(|| format!("truncated: {n} bytes wanted at +0x{at:x}"))
}

/// A reader over a document that moves past what it reads.
struct Cursor<'a> {
    d: &'a [u8],
    at: u64,
}

impl Cursor<'_> {
    /// The item's marker byte.
    fn marker(&mut self) -> Result<u8, String> {
        let at = self.at;
        let m = *self
            .d
            .get(usize::try_from(at).unwrap_or(usize::MAX))
            .ok_or_else(|| format!("truncated: an item wanted at +0x{at:x}"))?;
        self.at = at.saturating_add(1);
        Ok(m)
    }

    /// The big-endian number of `n` (1, 2, 4 or 8) bytes.
    fn uint(&mut self, n: u64) -> Result<u64, String> {
        let v = be(self.d, self.at, n)?;
        self.at = self.at.saturating_add(n);
        Ok(v)
    }

    /// The same, signed.
    fn int(&mut self, n: u64) -> Result<i64, String> {
        self.uint(n).map(|v| sign_extend(v, n))
    }

    /// Moves past a body of `n` bytes, if the document holds it all;
    /// returns where it ends.
    fn body(&mut self, n: u64) -> Result<u64, String> {
        let start = self.at;
        let end = start
            .checked_add(n)
            .filter(|&e| e <= self.d.len() as u64)
            .ok_or_else(|| format!("{n} bytes at +0x{start:x} run past the end"))?;
        self.at = end;
        Ok(end)
    }

    /// A string or binary's length of `w` bytes, then its body: where the
    /// body starts and its length.
    fn sized(&mut self, w: u64) -> Result<(u64, u64), String> {
        let n = self.uint(w)?;
        let s = self.at;
        self.body(n)?;
        Ok((s, n))
    }
}

/// The item at `at` of `d`.
fn head(d: &[u8], at: u64) -> Result<Head, String> {
    let mut c = Cursor { d, at };
    let m = c.marker()?;
    Ok(match Marker::from_u8(m) {
        Marker::FixPos(v) => Head::Scalar(Value::dec(u64::from(v)), c.at),
        Marker::FixNeg(v) => Head::Scalar(Value::int(i64::from(v)), c.at),
        Marker::Null => Head::Scalar(Value::text("null"), c.at),
        Marker::True => Head::Scalar(Value::text("true"), c.at),
        Marker::False => Head::Scalar(Value::text("false"), c.at),
        Marker::U8 => Head::Scalar(Value::dec(c.uint(1)?), c.at),
        Marker::U16 => Head::Scalar(Value::dec(c.uint(2)?), c.at),
        Marker::U32 => Head::Scalar(Value::dec(c.uint(4)?), c.at),
        Marker::U64 => Head::Scalar(Value::dec(c.uint(8)?), c.at),
        Marker::I8 => Head::Scalar(Value::int(c.int(1)?), c.at),
        Marker::I16 => Head::Scalar(Value::int(c.int(2)?), c.at),
        Marker::I32 => Head::Scalar(Value::int(c.int(4)?), c.at),
        Marker::I64 => Head::Scalar(Value::int(c.int(8)?), c.at),
        Marker::F32 => {
            let f = f32::from_bits(c.uint(4)? as u32);
            Head::Scalar(Value::text(format!("{f}")), c.at)
        }
        Marker::F64 => {
            let f = f64::from_bits(c.uint(8)?);
            Head::Scalar(Value::text(format!("{f}")), c.at)
        }
        Marker::FixStr(n) => {
            let s = c.at;
            Head::Str(s, c.body(u64::from(n))?)
        }
        Marker::Str8 | Marker::Str16 | Marker::Str32 => {
            let w = match Marker::from_u8(m) {
                Marker::Str8 => 1,
                Marker::Str16 => 2,
                _ => 4,
            };
            let (s, _) = c.sized(w)?;
            Head::Str(s, c.at)
        }
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
            let w = match Marker::from_u8(m) {
                Marker::Bin8 => 1,
                Marker::Bin16 => 2,
                _ => 4,
            };
            let (_, n) = c.sized(w)?;
            Head::Scalar(Value::Size(n), c.at)
        }
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16 => {
            let n = match Marker::from_u8(m) {
                Marker::FixExt1 => 1,
                Marker::FixExt2 => 2,
                Marker::FixExt4 => 4,
                Marker::FixExt8 => 8,
                _ => 16,
            };
            let t = c.uint(1)?;
            Head::Scalar(Value::text(format!("ext type {t}, {n} bytes")), c.body(n)?)
        }
        Marker::Ext8 | Marker::Ext16 | Marker::Ext32 => {
            let w = match Marker::from_u8(m) {
                Marker::Ext8 => 1,
                Marker::Ext16 => 2,
                _ => 4,
            };
            let n = c.uint(w)?;
            let t = c.uint(1)?;
            Head::Scalar(Value::text(format!("ext type {t}, {n} bytes")), c.body(n)?)
        }
        Marker::FixArray(n) => Head::Array(u64::from(n), c.at),
        Marker::Array16 => Head::Array(c.uint(2)?, c.at),
        Marker::Array32 => Head::Array(c.uint(4)?, c.at),
        Marker::FixMap(n) => Head::Map(u64::from(n), c.at),
        Marker::Map16 => Head::Map(c.uint(2)?, c.at),
        Marker::Map32 => Head::Map(c.uint(4)?, c.at),
        Marker::Reserved => return Err(format!("reserved marker 0xc1 at +0x{at:x}")),
    })
}

/// Where the item at `at` ends, without recursion: items still to read
/// are counted, and no count may exceed the bytes left (each item takes
/// at least one).
fn extent(d: &[u8], at: u64) -> Result<u64, String> {
    let len = d.len() as u64;
    let mut pending: u64 = 1;
    let mut p = at;
    while pending > 0 {
        pending -= 1;
        p = match head(d, p)? {
            Head::Scalar(_, e) | Head::Str(_, e) => e,
            Head::Array(n, s) => {
                pending = pending.saturating_add(n);
                s
            }
            Head::Map(n, s) => {
                pending = pending.saturating_add(n.saturating_mul(2));
                s
            }
        };
        if pending > len.saturating_sub(p) {
            return Err(format!(
                "{pending} items still to read at +0x{p:x}, more than the {} bytes left",
                len.saturating_sub(p)
            ));
        }
    }
    Ok(p)
}

struct Doc<'a> {
    d: &'a [u8],
    /// Where `d` starts in the space being built.
    base: u64,
    nodes: u64,
}

impl Doc<'_> {
    /// Builds the item at `at` under `parent` as a node named `name` over
    /// `[start, end of the item)`; returns where the item ends.
    fn item(
        &mut self,
        b: &mut Builder<'_>,
        parent: NodeId,
        name: &str,
        start: u64,
        at: u64,
        depth: u32,
    ) -> Result<u64, (u64, String)> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err((
                at,
                format!("more than {MAX_NODES} items; the rest is not shown"),
            ));
        }
        let base = self.base;
        let h = head(self.d, at).map_err(|e| (at, e))?;
        let (n, first, map) = match h {
            Head::Scalar(v, e) => {
                b.leaf(parent, name, base + start, e - start, v);
                return Ok(e);
            }
            Head::Str(s, e) => {
                let bytes = self.d.get(s as usize..e as usize).unwrap_or(&[]);
                b.leaf(
                    parent,
                    name,
                    base + start,
                    e - start,
                    Value::str_bytes(bytes),
                );
                return Ok(e);
            }
            Head::Array(n, s) => (n, s, false),
            Head::Map(n, s) => (n, s, true),
        };
        let end = extent(self.d, at).map_err(|e| (at, e))?;
        let g = b.group(parent, name, base + start, end - start);
        if depth >= MAX_DEPTH {
            b.set_value(
                g,
                format!("nested deeper than {MAX_DEPTH} levels; not shown"),
            );
            return Ok(end);
        }
        let what = if map { "entries" } else { "items" };
        b.set_value(g, format!("{n} {what}"));
        let mut p = first;
        for i in 0..n {
            if map {
                let kstart = p;
                let (key, vstart) = match head(self.d, p).map_err(|e| (p, e))? {
                    Head::Str(s, e) => (
                        crate::model::text::from_bytes(
                            self.d.get(s as usize..e as usize).unwrap_or(&[]),
                        ),
                        e,
                    ),
                    Head::Scalar(v, e) => (v.render(crate::model::Numbers::Dec), e),
                    _ => {
                        let e = extent(self.d, p).map_err(|e| (p, e))?;
                        (format!("[{i}] (container key)"), e)
                    }
                };
                p = self.item(b, g, &key, kstart, vstart, depth + 1)?;
            } else {
                p = self.item(b, g, &format!("[{i}]"), p, p, depth + 1)?;
            }
        }
        Ok(end)
    }
}

/// Decodes the MessagePack document `at` under `parent`. Bytes after the
/// document are reported.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    // Map and array headers and the keys of entries (the entry's node
    // holds its key and value; its value's node only the value).
    b.gaps(parent, Gap::Syntax);
    let d = b.bytes(at);
    let mut doc = Doc {
        d,
        base: at.offset,
        nodes: 0,
    };
    match doc.item(b, parent, "metadata", 0, 0, 0) {
        Ok(end) if end < at.len => {
            let rest = at.skip(end);
            b.warn(
                rest.offset,
                rest.len,
                format!("{} bytes after the MessagePack document", rest.len),
            );
        }
        Ok(_) => {}
        Err((pos, msg)) => {
            let rest = at.skip(pos);
            b.error(rest.offset, rest.len, format!("MessagePack: {msg}"));
        }
    }
}
