//! Fixed layouts read field by field: one cursor that every format uses for
//! its headers and records. Each field becomes a leaf node with a typed
//! value at its bytes; a field that does not fit raises one "truncated"
//! error and the ones after it are skipped.

use super::arena::{Builder, NodeId};
use super::read::{self, Endian};
use super::space::Span;
use super::text;
use super::value::{Radix, Value};

/// A cursor over a structure: fields are read in file order from `base`.
pub struct Fields<'b, 'a> {
    b: &'b mut Builder<'a>,
    parent: NodeId,
    at: u64,
    e: Endian,
    /// False once a field did not fit: the rest are not read.
    ok: bool,
    /// True when a field that does not fit raises no diagnostic (the
    /// caller reports the short structure itself).
    quiet: bool,
    /// The node of the last field read.
    last: Option<NodeId>,
    /// Fields ending past this (absolute, exclusive) do not fit.
    end: u64,
}

impl<'b, 'a> Fields<'b, 'a> {
    /// Fields of a structure at `base`, added under `parent`.
    pub fn new(b: &'b mut Builder<'a>, parent: NodeId, base: u64, e: Endian) -> Self {
        Fields {
            b,
            parent,
            at: base,
            e,
            ok: true,
            quiet: false,
            last: None,
            end: u64::MAX,
        }
    }

    /// The same cursor, taking a field that ends past `end` (absolute,
    /// exclusive) as one that does not fit: for a structure inside a
    /// range smaller than the file.
    pub fn within(mut self, end: u64) -> Self {
        self.end = end;
        self
    }

    /// True if `size` bytes from `at` end inside the cursor's range.
    fn inside(&self, at: u64, size: u64) -> bool {
        at.checked_add(size).is_some_and(|e| e <= self.end)
    }

    /// The bytes from `at` to the end of the file or of the cursor's
    /// range, whichever comes first.
    fn remain(&self, at: u64) -> u64 {
        self.b.file_len().min(self.end).saturating_sub(at)
    }

    /// The same cursor, leaving out a field that does not fit (and the
    /// ones after it) without a diagnostic: for a structure whose short
    /// length the caller reports in its own words.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// The same cursor putting its fields under `parent` from now on (the
    /// parts of a field shown as its children).
    pub fn under(&mut self, parent: NodeId) -> &mut Self {
        self.parent = parent;
        self
    }

    /// The node of the last field read, to link or to hang parts under.
    pub fn last(&self) -> Option<NodeId> {
        self.last
    }

    /// The node of the last field read, if every field so far fitted (a
    /// field that did not fit leaves `last` at the one before it).
    pub fn last_fitted(&self) -> Option<NodeId> {
        self.last.filter(|_| self.ok)
    }

    /// Links the last field read to `to`, if every field so far fitted.
    pub fn link(&mut self, to: Span) {
        if let Some(n) = self.last_fitted() {
            self.b.link(n, to);
        }
    }

    /// `len` bytes from `off` of the space its fields are in.
    pub fn place(&self, off: u64, len: u64) -> Span {
        self.b.span(off, len)
    }

    /// Gives the last field read another value, if every field so far
    /// fitted (what a number means found out after it was read).
    pub fn set_value(&mut self, v: impl Into<Value>) {
        if let Some(n) = self.last_fitted() {
            self.b.set_value(n, v);
        }
    }

    /// Reads a number of `size` bytes at `off` without a node (for values
    /// that decide how the fields are shown).
    pub fn peek(&self, off: u64, size: u64) -> Option<u64> {
        read_uint(self.b, off, size, self.e)
    }

    /// Where the next field starts.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// True while every field so far fitted.
    pub fn ok(&self) -> bool {
        self.ok
    }

    /// The builder, for what the cursor does not cover.
    pub fn builder(&mut self) -> &mut Builder<'a> {
        self.b
    }

    /// The structure's node.
    pub fn parent(&self) -> NodeId {
        self.parent
    }

    /// Moves past `n` bytes without a node.
    pub fn skip(&mut self, n: u64) {
        self.at = self.at.saturating_add(n);
    }

    /// Moves to `off` (for layouts with holes).
    pub fn seek(&mut self, off: u64) {
        self.at = off;
    }

    #[inline]
    fn read(&mut self, name: &str, size: u64) -> Option<u64> {
        if !self.ok {
            return None;
        }
        let v = if self.inside(self.at, size) {
            read_uint(self.b, self.at, size, self.e)
        } else {
            None
        };
        if v.is_none() {
            self.short(name, size);
        }
        v
    }

    /// The field `name` of `size` bytes at the cursor did not fit: the rest
    /// are not read, and (unless quiet) one error says so.
    #[cold]
    #[inline(never)]
    fn short(&mut self, name: &str, size: u64) {
        self.ok = false;
        if self.quiet {
            return;
        }
        let have = self.remain(self.at);
        self.b.error(
            self.at,
            have.min(size),
            format!(
                "truncated: {name} needs {size} bytes at 0x{:x}, {have} remain",
                self.at
            ),
        );
    }

    /// A field of `size` bytes (1 to 8) whose value `f` makes from the
    /// number read. Returns the number.
    pub fn field(&mut self, name: &str, size: u64, f: impl FnOnce(u64) -> Value) -> Option<u64> {
        self.put(name, size, f, |b, p, at, v| b.leaf(p, name, at, size, v))
    }

    /// [`Fields::field`] for a name that is a constant of the parser (a
    /// record's field name): kept as it is, not copied.
    #[inline]
    pub fn field_static(
        &mut self,
        name: &'static str,
        size: u64,
        f: impl FnOnce(u64) -> Value,
    ) -> Option<u64> {
        self.put(name, size, f, |b, p, at, v| b.field(p, name, at, size, v))
    }

    /// Reads a field of `size` bytes at the cursor and adds its node with
    /// `add` (parent, offset, value): what [`Fields::field`] and
    /// [`Fields::field_static`] share.
    #[inline]
    fn put(
        &mut self,
        name: &str,
        size: u64,
        f: impl FnOnce(u64) -> Value,
        add: impl FnOnce(&mut Builder<'a>, NodeId, u64, Value) -> NodeId,
    ) -> Option<u64> {
        let at = self.at;
        let v = self.read(name, size)?;
        self.last = Some(add(self.b, self.parent, at, f(v)));
        self.at = at.saturating_add(size);
        Some(v)
    }

    /// A field whose value `f` makes, marked as read from `size` bytes
    /// (so that hex shows all its digits where the value asks for that).
    pub fn with(&mut self, name: &str, size: u64, f: impl FnOnce(u64) -> Value) -> Option<u64> {
        self.field(name, size, |v| f(v).with_width(size as u8))
    }

    /// An unsigned field shown as numbers usually are.
    pub fn uint(&mut self, name: &str, size: u64) -> Option<u64> {
        self.field(name, size, |v| Value::U {
            v,
            width: size as u8,
            radix: Radix::Auto,
        })
    }
    pub fn u8(&mut self, name: &str) -> Option<u64> {
        self.uint(name, 1)
    }
    pub fn u16(&mut self, name: &str) -> Option<u64> {
        self.uint(name, 2)
    }
    pub fn u32(&mut self, name: &str) -> Option<u64> {
        self.uint(name, 4)
    }
    pub fn u64(&mut self, name: &str) -> Option<u64> {
        self.uint(name, 8)
    }

    /// An unsigned field shown in hex (addresses, masks).
    pub fn hex(&mut self, name: &str, size: u64) -> Option<u64> {
        self.field(name, size, |v| Value::U {
            v,
            width: size as u8,
            radix: Radix::Hex,
        })
    }

    /// An unsigned field always in decimal (versions, counts).
    pub fn dec(&mut self, name: &str, size: u64) -> Option<u64> {
        self.field(name, size, |v| Value::U {
            v,
            width: size as u8,
            radix: Radix::Dec,
        })
    }

    /// An unsigned field in hex with all the digits of its size (`0x00ab`).
    pub fn hex_wide(&mut self, name: &str, size: u64) -> Option<u64> {
        self.field(name, size, |v| Value::hex_wide(v, size as u8))
    }

    /// A signed field (two's complement of `size` bytes).
    pub fn int(&mut self, name: &str, size: u64) -> Option<i64> {
        let v = self.field(name, size, |v| Value::I {
            v: sign_extend(v, size),
            width: size as u8,
        })?;
        Some(sign_extend(v, size))
    }

    /// A named constant: `3 (SHT_RELA)`, or `3 (unknown)`.
    pub fn named(
        &mut self,
        name: &str,
        size: u64,
        names: impl FnOnce(u64) -> Option<&'static str>,
    ) -> Option<u64> {
        self.field(name, size, |v| Value::named(v, names(v)))
    }

    /// A named constant shown in hex: `0x3 (SHT_RELA)`.
    pub fn named_hex(
        &mut self,
        name: &str,
        size: u64,
        names: impl FnOnce(u64) -> Option<&'static str>,
    ) -> Option<u64> {
        self.field(name, size, |v| Value::named_hex(v, names(v)))
    }

    /// A bit set: `0x6 (ALLOC | EXECINSTR)`.
    pub fn flags(
        &mut self,
        name: &str,
        size: u64,
        names: impl FnOnce(u64) -> String,
    ) -> Option<u64> {
        self.field(name, size, |v| Value::flags(v, names(v)))
    }

    /// `len` bytes that `f` shows as a value. Returns them.
    pub fn span(
        &mut self,
        name: &str,
        len: u64,
        f: impl FnOnce(&'a [u8]) -> Value,
    ) -> Option<&'a [u8]> {
        if !self.ok {
            return None;
        }
        let at = self.at;
        let r = if self.inside(at, len) {
            self.b.read_bytes(at, len)
        } else {
            None
        };
        match r {
            Some(d) => self.last = Some(self.b.leaf(self.parent, name, at, len, f(d))),
            None if self.quiet => self.ok = false,
            None => {
                self.ok = false;
                let have = self.remain(at);
                self.b.error(
                    at,
                    have.min(len),
                    format!("truncated: {name} needs {len} bytes at 0x{at:x}, {have} remain"),
                );
            }
        }
        self.at = at.saturating_add(len);
        r
    }

    /// `len` raw bytes, shown as a hex preview. Returns them.
    pub fn bytes(&mut self, name: &str, len: u64) -> Option<&'a [u8]> {
        self.span(name, len, |d| Value::text(text::hex(d, 16)))
    }

    /// A fixed-size char array, shown as the text before its first NUL.
    pub fn text(&mut self, name: &str, len: u64) -> Option<String> {
        let mut s = None;
        self.span(name, len, |d| {
            let t = text::fixed(d);
            let v = Value::str(&t);
            s = Some(t);
            v
        })?;
        s
    }

    /// A 16-byte UUID, shown in its usual form. Returns that form.
    pub fn uuid(&mut self, name: &str) -> Option<String> {
        let mut s = None;
        self.span(name, 16, |d| {
            let t = text::uuid(d);
            let v = Value::text(&t);
            s = Some(t);
            v
        })?;
        s
    }
}

/// An unsigned number of `size` (1 to 8) bytes at `off`.
#[inline]
pub fn read_uint(b: &Builder<'_>, off: u64, size: u64, e: Endian) -> Option<u64> {
    read::uint_at(b.data(), off, size, e)
}

/// `v`, read from `size` bytes, as a signed number.
pub fn sign_extend(v: u64, size: u64) -> i64 {
    match size {
        1 => v as u8 as i8 as i64,
        2 => v as u16 as i16 as i64,
        4 => v as u32 as i32 as i64,
        _ => v as i64,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::{Format, Source, Tree};

    fn hdr(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
        let mut f = Fields::new(b, p, 0, Endian::Little);
        f.u16("a");
        f.named("kind", 1, |v| (v == 3).then_some("THREE"));
        f.skip(1);
        f.int("delta", 4);
        f.hex("addr", 4);
        f.u32("cut");
        f.u32("never");
        Some(Format::Json)
    }

    #[test]
    fn fields_in_order_until_one_does_not_fit() {
        let mut d = vec![0x34, 0x12, 3, 0xee];
        d.extend_from_slice(&(-2i32).to_le_bytes());
        d.extend_from_slice(&0x1000u32.to_le_bytes());
        d.extend_from_slice(&[1, 2]);
        let mut t = Tree::build(Arc::new(Source::from_vec(d)), "t", hdr);
        let k = t.children(t.root());
        let got: Vec<(String, u64, Option<String>)> = k
            .iter()
            .map(|&i| {
                (
                    t.name(i).to_string(),
                    t.node(i).map_or(0, |n| n.offset),
                    t.value_text(i),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a".into(), 0, Some("4660 (0x1234)".into())),
                ("kind".into(), 2, Some("3 (THREE)".into())),
                ("delta".into(), 4, Some("-2".into())),
                ("addr".into(), 8, Some("0x1000".into())),
            ]
        );
        assert_eq!(t.diagnostics().len(), 1);
        assert!(t.diagnostics()[0].message.contains("truncated: cut"));
    }

    fn rec(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
        let mut f = Fields::new(b, p, 0, Endian::Big);
        f.hex_wide("id", 2);
        let u = f.uuid("uuid");
        assert_eq!(f.peek(18, 4), Some(0x0102_0304));
        let g = f.with("ver", 4, |v| Value::with(v, Radix::Dec, " (v)"));
        assert_eq!(g, Some(0x0102_0304));
        let ver = f.last().unwrap();
        f.under(ver);
        f.seek(18);
        f.u16("major");
        f.u16("minor");
        f.under(p);
        f.text("name", 4);
        assert!(f.ok() && f.at() == 26 && u.is_some());
        Some(Format::Json)
    }

    fn named_rec(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
        let mut f = Fields::new(b, p, 0, Endian::Little);
        f.dec("ver", 2);
        f.named_hex("type", 4, |v| (v == 0x10).then_some("SIXTEEN"));
        f.link(f.place(0, 2));
        f.u8("kind");
        f.set_value(Value::text("renamed"));
        f.hex("cut", 4);
        f.link(f.place(0, 1));
        Some(Format::Json)
    }

    #[test]
    fn decimal_named_hex_and_the_last_field() {
        let mut d = 0x1234u16.to_le_bytes().to_vec();
        d.extend_from_slice(&0x10u32.to_le_bytes());
        d.push(7);
        let mut t = Tree::build(Arc::new(Source::from_vec(d)), "t", named_rec);
        let ver = t.find_path("ver").unwrap();
        assert_eq!(t.value_text(ver).unwrap(), "4660");
        let ty = t.find_path("type").unwrap();
        assert_eq!(t.value_text(ty).unwrap(), "0x10 (SIXTEEN)");
        assert_eq!(t.link(ty).map(|l| (l.offset, l.len)), Some((0, 2)));
        let kind = t.find_path("kind").unwrap();
        assert_eq!(t.value_text(kind).unwrap(), "renamed");
        assert!(t.link(kind).is_none());
        // The field that did not fit leaves the one before it alone.
        assert_eq!(t.diagnostics().len(), 1);
    }

    fn quiet_rec(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
        let mut f = Fields::new(b, p, 0, Endian::Little).quiet();
        f.u16("a");
        f.u32("cut");
        f.u8("never");
        assert!(!f.ok());
        Some(Format::Json)
    }

    #[test]
    fn a_quiet_cursor_leaves_out_what_does_not_fit() {
        let mut t = Tree::build(Arc::new(Source::from_vec(vec![1, 0, 2, 3])), "t", quiet_rec);
        let k = t.children(t.root());
        let names: Vec<String> = k.iter().map(|&i| t.name(i).to_string()).collect();
        assert!(names.contains(&"a".to_string()) && !names.contains(&"cut".to_string()));
        assert!(t.diagnostics().is_empty());
    }

    #[test]
    fn big_endian_parts_and_text() {
        let mut d = vec![0x00, 0xab];
        d.extend(0u8..16);
        d.extend_from_slice(&[1, 2, 3, 4]);
        d.extend_from_slice(b"ab\0x");
        let mut t = Tree::build(Arc::new(Source::from_vec(d)), "t", rec);
        let shown = |t: &mut Tree, path: &str| {
            let id = t.find_path(path).unwrap();
            t.value_text(id).unwrap()
        };
        assert_eq!(shown(&mut t, "id"), "0x00ab");
        assert_eq!(
            shown(&mut t, "uuid"),
            "00010203-0405-0607-0809-0a0b0c0d0e0f"
        );
        assert_eq!(shown(&mut t, "ver"), "16909060 (v)");
        assert_eq!(shown(&mut t, "ver/major"), "258 (0x102)");
        assert_eq!(shown(&mut t, "ver/minor"), "772 (0x304)");
        assert_eq!(shown(&mut t, "name"), "\"ab\"");
        assert!(t.diagnostics().is_empty());
    }
}
