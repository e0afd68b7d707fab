//! MessagePack decoded into nodes: every map entry a node over its key
//! and value bytes, named by its key; every array element `[i]`; scalars
//! as typed values. The markers are read with `rmp`; offsets, lengths and
//! limits are kept here, so that a truncated document, a count larger than
//! the bytes left or a nesting too deep ends in a diagnostic.

use rmp::Marker;

use crate::model::{read, sign_extend, Builder, Endian, Gap, NodeId, Value};

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

/// The same, signed.
fn be_signed(d: &[u8], at: u64, n: u64) -> Result<i64, String> {
    be(d, at, n).map(|v| sign_extend(v, n))
}

/// The item at `at` of `d`.
fn head(d: &[u8], at: u64) -> Result<Head, String> {
    let m = *d
        .get(usize::try_from(at).unwrap_or(usize::MAX))
        .ok_or_else(|| format!("truncated: an item wanted at +0x{at:x}"))?;
    let p = at + 1;
    let sized = |w: u64| -> Result<(u64, u64), String> { Ok((be(d, p, w)?, p + w)) };
    let body = |start: u64, n: u64| -> Result<u64, String> {
        let end = start
            .checked_add(n)
            .filter(|&e| e <= d.len() as u64)
            .ok_or_else(|| format!("{n} bytes at +0x{start:x} run past the end"))?;
        Ok(end)
    };
    Ok(match Marker::from_u8(m) {
        Marker::FixPos(v) => Head::Scalar(Value::dec(u64::from(v)), p),
        Marker::FixNeg(v) => Head::Scalar(Value::int(i64::from(v)), p),
        Marker::Null => Head::Scalar(Value::text("null"), p),
        Marker::True => Head::Scalar(Value::text("true"), p),
        Marker::False => Head::Scalar(Value::text("false"), p),
        Marker::U8 => Head::Scalar(Value::dec(be(d, p, 1)?), p + 1),
        Marker::U16 => Head::Scalar(Value::dec(be(d, p, 2)?), p + 2),
        Marker::U32 => Head::Scalar(Value::dec(be(d, p, 4)?), p + 4),
        Marker::U64 => Head::Scalar(Value::dec(be(d, p, 8)?), p + 8),
        Marker::I8 => Head::Scalar(Value::int(be_signed(d, p, 1)?), p + 1),
        Marker::I16 => Head::Scalar(Value::int(be_signed(d, p, 2)?), p + 2),
        Marker::I32 => Head::Scalar(Value::int(be_signed(d, p, 4)?), p + 4),
        Marker::I64 => Head::Scalar(Value::int(be_signed(d, p, 8)?), p + 8),
        Marker::F32 => {
            let f = f32::from_bits(be(d, p, 4)? as u32);
            Head::Scalar(Value::text(format!("{f}")), p + 4)
        }
        Marker::F64 => {
            let f = f64::from_bits(be(d, p, 8)?);
            Head::Scalar(Value::text(format!("{f}")), p + 8)
        }
        Marker::FixStr(n) => Head::Str(p, body(p, u64::from(n))?),
        Marker::Str8 | Marker::Str16 | Marker::Str32 => {
            let w = match Marker::from_u8(m) {
                Marker::Str8 => 1,
                Marker::Str16 => 2,
                _ => 4,
            };
            let (n, s) = sized(w)?;
            Head::Str(s, body(s, n)?)
        }
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
            let w = match Marker::from_u8(m) {
                Marker::Bin8 => 1,
                Marker::Bin16 => 2,
                _ => 4,
            };
            let (n, s) = sized(w)?;
            Head::Scalar(Value::Size(n), body(s, n)?)
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
            let t = be(d, p, 1)?;
            Head::Scalar(
                Value::text(format!("ext type {t}, {n} bytes")),
                body(p + 1, n)?,
            )
        }
        Marker::Ext8 | Marker::Ext16 | Marker::Ext32 => {
            let w = match Marker::from_u8(m) {
                Marker::Ext8 => 1,
                Marker::Ext16 => 2,
                _ => 4,
            };
            let (n, s) = sized(w)?;
            let t = be(d, s, 1)?;
            Head::Scalar(
                Value::text(format!("ext type {t}, {n} bytes")),
                body(s + 1, n)?,
            )
        }
        Marker::FixArray(n) => Head::Array(u64::from(n), p),
        Marker::Array16 => Head::Array(be(d, p, 2)?, p + 2),
        Marker::Array32 => Head::Array(be(d, p, 4)?, p + 4),
        Marker::FixMap(n) => Head::Map(u64::from(n), p),
        Marker::Map16 => Head::Map(be(d, p, 2)?, p + 2),
        Marker::Map32 => Head::Map(be(d, p, 4)?, p + 4),
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

/// Decodes the MessagePack document at `[off, off+len)` under `parent`.
/// Bytes after the document are reported.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    // Map and array headers and the keys of entries (the entry's node
    // holds its key and value; its value's node only the value).
    b.gaps(parent, Gap::Syntax);
    let d = b.slice(off, len);
    let mut doc = Doc {
        d,
        base: off,
        nodes: 0,
    };
    match doc.item(b, parent, "metadata", 0, 0, 0) {
        Ok(end) if end < len => b.warn(
            off + end,
            len - end,
            format!("{} bytes after the MessagePack document", len - end),
        ),
        Ok(_) => {}
        Err((at, msg)) => b.error(
            off + at.min(len),
            len - at.min(len),
            format!("MessagePack: {msg}"),
        ),
    }
}
