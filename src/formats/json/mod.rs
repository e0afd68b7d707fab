//! JSON text shown as an object tree: every member and element is a node
//! owning its bytes in the text (an object member from its key to the end
//! of its value). Used by the JSON metadata sections of XCLBIN files.
//!
//! The text is checked once when it is opened; the members of each object
//! or array are a lazy [`Seq`], built only when that node is opened, in
//! groups of groups past [`GROUP`] entries, so a huge document opens at
//! once.
//!
//! What is well-formed is what serde_json reads (RFC 8259, strings of
//! valid UTF-8 whose `\u` escapes pair their surrogates, numbers that fit a
//! 64-bit float, at most [`MAX_DEPTH`]` - 1` containers deep): a document is
//! opened as JSON exactly when serde_json would read it, and its strings
//! read as serde_json reads them. Around the document, a UTF-8 byte order
//! mark and trailing NULs (section padding) are allowed.

use std::sync::Arc;

use crate::model::{text, Builder, Gap, LazyFn, NodeId, Seq, Span, Step, Value, GROUP};

mod scan;

pub use scan::MAX_DEPTH;
use scan::{decode, entry, is_ws, line_col, peek, separator, string, value, ws, Kind};

/// The longest string value shown in full, in characters.
const MAX_SHOWN: usize = 256;

/// Parses the JSON text at `src` into children of `parent`: the
/// members of the top-level object (or the elements of the top-level
/// array). Trailing NULs and whitespace are ignored. Returns false, with a
/// warning at the offending byte, if the text is not well-formed JSON.
pub fn tree(b: &mut Builder<'_>, parent: NodeId, src: Span) -> bool {
    b.gaps(parent, Gap::Syntax);
    let all = b.bytes(src);
    let s = text::trim_end_by(all, |c| c == 0 || is_ws(c));
    let end = s.len();
    // A UTF-8 byte order mark is tolerated.
    let start = if s.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let body = ws(s.get(start..).unwrap_or_default());
    let at = |rest: usize| src.offset + (end - rest) as u64;
    let scanned = value(body, 0);
    let (rest, (kind, count)) = match scanned {
        Ok(v) => v,
        Err(f) => {
            let (l, c) = line_col(s, end - f.rest);
            b.warn(
                at(f.rest),
                1,
                format!("JSON: {} (line {l}, column {c})", f.msg),
            );
            return false;
        }
    };
    let trailing = ws(rest);
    if !trailing.is_empty() {
        let (l, c) = line_col(s, end - trailing.len());
        b.warn(
            at(trailing.len()),
            trailing.len() as u64,
            format!("JSON: text after the value (line {l}, column {c})"),
        );
    }
    let v_off = at(body.len());
    let v_end = at(rest.len());
    match kind {
        Kind::Object | Kind::Array => {
            let at = b.span(v_off, v_end - v_off);
            members(b, parent, at, kind == Kind::Object, count);
        }
        _ => {
            let shown = typed(
                body.get(..body.len() - rest.len()).unwrap_or_default(),
                kind,
            );
            b.leaf(parent, "value", v_off, v_end - v_off, shown);
        }
    }
    true
}

/// The text a scalar shows: strings unescaped and quoted, the rest as
/// written.
fn scalar(raw: &[u8], kind: Kind) -> String {
    if kind != Kind::Str {
        return text::from_bytes(raw);
    }
    let (s, cut) = unescape(raw);
    if cut {
        format!("\"{s}…\"")
    } else {
        format!("\"{s}\"")
    }
}

/// The text of a string token (quotes included), at most [`MAX_SHOWN`]
/// characters; true if it was cut.
fn unescape(raw: &[u8]) -> (String, bool) {
    let s = text::from_bytes(&decode(raw, MAX_SHOWN * 4));
    if s.chars().count() > MAX_SHOWN {
        (s.chars().take(MAX_SHOWN).collect(), true)
    } else {
        (s, false)
    }
}

/// What a container shows as its value.
fn summary(kind: Kind, count: usize) -> String {
    match (kind, count) {
        (Kind::Object, 1) => "object, 1 member".to_string(),
        (Kind::Object, n) => format!("object, {n} members"),
        (_, 1) => "array, 1 element".to_string(),
        (_, n) => format!("array, {n} elements"),
    }
}

/// Adds the entries of the container at `at` (from its opening bracket to
/// just after its closing one) under `parent` now, as a [`Seq`]: all of
/// them, or groups (of groups) that are built when opened.
fn members(b: &mut Builder<'_>, parent: NodeId, at: Span, object: bool, count: usize) {
    let count = count as u64;
    let close = at.end();
    let step: Step =
        Arc::new(move |b: &mut Builder<'_>, p, i, at| entry_node(b, p, i, at, close, object));
    let first = at.offset.saturating_add(1);
    let seq = if count <= GROUP {
        Seq::from_marks(vec![first], count, close, step)
    } else {
        // Where every entry starts: only every GROUP-th is kept.
        let data = b.data();
        let next = |off: u64| {
            let i = data.get(usize::try_from(off).ok()?..usize::try_from(close).ok()?)?;
            let (rest, _) = entry(i, 0, object).ok()?;
            let (rest, _) = separator(rest, object).ok()?;
            Some(close - rest.len() as u64)
        };
        Seq::scan(first, close, count, next, step)
    };
    b.seq_now(parent, seq);
}

/// Adds entry `i` of a container, from `at` (at or before its whitespace);
/// returns where the next one starts.
fn entry_node(
    b: &mut Builder<'_>,
    parent: NodeId,
    i: u64,
    at: u64,
    close: u64,
    object: bool,
) -> Option<u64> {
    let data = b.slice(at, close.saturating_sub(at));
    let abs = |rest: &[u8]| close - rest.len() as u64;
    let (rest, e) = entry(data, 0, object).ok()?;
    let v_off = abs(e.val);
    let v_end = abs(rest);
    let start = e.key.map_or(v_off, abs);
    let name = match e.key {
        Some(k) => {
            let raw = k.get(..k.len() - ws_string_len(k)).unwrap_or_default();
            unescape(raw).0
        }
        None => format!("[{i}]"),
    };
    let raw = e.val.get(..e.val.len() - rest.len()).unwrap_or_default();
    let value = match e.kind {
        Kind::Object | Kind::Array => Value::text(summary(e.kind, e.count)),
        kind => typed(raw, kind),
    };
    let id = b.add(parent, name, start, v_end - start, Some(value));
    if matches!(e.kind, Kind::Object | Kind::Array) && e.count > 0 {
        // Scanned and built when opened.
        let (count, obj) = (e.count, e.kind == Kind::Object);
        let at = b.span(v_off, v_end - v_off);
        let f: LazyFn = Arc::new(move |b: &mut Builder<'_>, id| {
            members(b, id, at, obj, count);
        });
        b.lazy(id, f);
    }
    match separator(rest, object) {
        Ok((rest, _)) => Some(abs(rest)),
        Err(_) => None,
    }
}

/// A scalar's value: a string as a string, an integer as a number (when
/// it reads back as written), anything else as written.
fn typed(raw: &[u8], kind: Kind) -> Value {
    match kind {
        Kind::Str => {
            let (s, cut) = unescape(raw);
            if cut {
                Value::str(format!("{s}…"))
            } else {
                Value::str(s)
            }
        }
        Kind::Num => {
            let t = std::str::from_utf8(raw).unwrap_or("");
            if let Ok(v) = t.parse::<u64>() {
                if v.to_string() == t {
                    return Value::dec(v);
                }
            }
            if let Ok(v) = t.parse::<i64>() {
                if v.to_string() == t {
                    return Value::int(v);
                }
            }
            Value::text(scalar(raw, kind))
        }
        _ => Value::text(scalar(raw, kind)),
    }
}

/// One member of a JSON object, as [`object_members`] reads it. Offsets
/// are in the slice given.
pub struct Member {
    pub key: String,
    pub key_at: usize,
    pub val_at: usize,
    pub val_end: usize,
    /// A string value unescaped, any other as written.
    pub text: String,
    pub is_object: bool,
}

/// The members of the object whose `{` is at `open` in `d`, in order
/// (keys that repeat are all kept); `None` if it is not well-formed.
pub fn object_members(d: &[u8], open: usize) -> Option<Vec<Member>> {
    let all = d.get(open..)?;
    if peek(all) != Some(b'{') {
        return None;
    }
    let at = |rest: &[u8]| d.len() - rest.len();
    let mut i = ws(all.get(1..).unwrap_or_default());
    let mut out = Vec::new();
    if peek(i) == Some(b'}') {
        return Some(out);
    }
    loop {
        let (rest, e) = entry(i, 1, true).ok()?;
        let k = e.key?;
        let raw_key = k.get(..k.len() - ws_string_len(k)).unwrap_or_default();
        let raw = e.val.get(..e.val.len() - rest.len()).unwrap_or_default();
        let text = if e.kind == Kind::Str {
            text::from_bytes(&decode(raw, usize::MAX))
        } else {
            text::from_bytes(raw)
        };
        out.push(Member {
            key: text::from_bytes(&decode(raw_key, usize::MAX)),
            key_at: at(k),
            val_at: at(e.val),
            val_end: at(rest),
            text,
            is_object: e.kind == Kind::Object,
        });
        let (rest, more) = separator(rest, true).ok()?;
        if !more {
            return Some(out);
        }
        i = rest;
    }
}

/// How many bytes follow the string token at the start of `k`.
fn ws_string_len(k: &[u8]) -> usize {
    string(k).map_or(0, |(rest, _)| rest.len())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::model::{Builder, Format, NodeId, Source, Span, Tree};

    fn as_json(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
        super::tree(b, p, at).then_some(crate::model::Format::Json)
    }

    fn build(bytes: &[u8]) -> Tree {
        Tree::build(Arc::new(Source::from_vec(bytes.to_vec())), "t", as_json)
    }

    fn bytes_of<'a>(t: &'a mut Tree, path: &str) -> (&'a [u8], Option<String>) {
        let id = t.find_path(path).expect(path);
        let n = t.node(id).unwrap();
        let (o, e) = (n.offset as usize, n.end() as usize);
        let v = t.value_text(id);
        (&t.data()[o..e], v)
    }

    #[test]
    fn members_own_their_bytes() {
        let src = br#"{"a": 1, "b" : {"c": [true, null, "x\ny"]}, "d\u0041": -2.5e3}"#;
        let mut t = build(src);
        assert!(t.diagnostics().is_empty(), "{:?}", t.diagnostics());
        assert_eq!(bytes_of(&mut t, "a"), (&b"\"a\": 1"[..], Some("1".into())));
        let (bb, v) = bytes_of(&mut t, "b");
        assert_eq!(bb, br#""b" : {"c": [true, null, "x\ny"]}"#);
        assert_eq!(v.as_deref(), Some("object, 1 member"));
        let (c, v) = bytes_of(&mut t, "b/c");
        assert_eq!(c, br#""c": [true, null, "x\ny"]"#);
        assert_eq!(v.as_deref(), Some("array, 3 elements"));
        assert_eq!(
            bytes_of(&mut t, "b/c/[1]"),
            (&b"null"[..], Some("null".into()))
        );
        let (s, v) = bytes_of(&mut t, "b/c/[2]");
        assert_eq!(s, br#""x\ny""#);
        // The value is the decoded string (a newline), escaped only where shown.
        assert_eq!(v.as_deref(), Some("\"x\ny\""));
        let (d, v) = bytes_of(&mut t, "dA");
        assert_eq!(d, br#""d\u0041": -2.5e3"#);
        assert_eq!(v.as_deref(), Some("-2.5e3"));
    }

    #[test]
    fn trailing_nul_and_newline_are_ignored() {
        let t = build(b"{\"k\": []}\n\0\0");
        assert!(t.diagnostics().is_empty());
    }

    #[test]
    fn broken_json_is_a_warning_at_the_byte() {
        for (src, at) in [
            (&b"{\"a\": 1,}"[..], 8u64),
            (b"{\"a\" 1}", 5),
            (b"[1, 2", 5),
            (b"{\"a\": tru}", 6),
            (b"{\"a\": \"x\x01\"}", 8),
            (b"[01]", 2),
        ] {
            let t = build(src);
            assert_eq!(t.format(), None, "{}", String::from_utf8_lossy(src));
            let d = &t.diagnostics()[0];
            assert_eq!(
                d.span.offset,
                at,
                "{}: {}",
                String::from_utf8_lossy(src),
                d.message
            );
        }
    }

    #[test]
    fn text_after_the_value_is_a_warning() {
        let t = build(b"{} x");
        assert_eq!(t.format(), Some(Format::Json));
        assert_eq!(t.diagnostics()[0].span.offset, 3);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut s = vec![b'['; super::MAX_DEPTH + 5];
        s.extend(vec![b']'; super::MAX_DEPTH + 5]);
        let t = build(&s);
        assert_eq!(t.format(), None);
        let mut s = vec![b'['; 20];
        s.extend(vec![b']'; 20]);
        let mut t = build(&s);
        t.expand_all();
        assert!(t.diagnostics().is_empty());
    }

    #[test]
    fn large_arrays_are_grouped() {
        let mut s = String::from("{\"big\": [");
        for i in 0..2500 {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&i.to_string());
        }
        s.push_str("]}");
        let mut t = build(s.as_bytes());
        let big = t.find_path("big").unwrap();
        let groups: Vec<_> = t
            .children(big)
            .into_iter()
            .filter(|&k| t.name(k) != "syntax")
            .collect();
        assert_eq!(groups.len(), 3);
        assert_eq!(t.name(groups[2]), "[2000..2500)");
        let (e, v) = bytes_of(&mut t, "big/[1000..2000)/[1234]");
        assert_eq!(e, b"1234");
        assert_eq!(v.as_deref(), Some("1234"));
        let (e, _) = bytes_of(&mut t, "big/[2000..2500)/[2499]");
        assert_eq!(e, b"2499");
    }

    #[test]
    fn a_million_entries_are_groups_of_groups() {
        let n = 1_000_500;
        let mut s = String::from("[");
        for i in 0..n {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&(i % 10).to_string());
        }
        s.push(']');
        let mut t = build(s.as_bytes());
        let top = t.children(t.root());
        let names: Vec<&str> = top
            .iter()
            .map(|&k| t.name(k))
            .filter(|&n| n != "syntax")
            .collect();
        assert_eq!(names, ["[0..1000000)", "[1000000..1000500)"]);
        let (e, v) = bytes_of(&mut t, "[0..1000000)/[999000..1000000)/[999999]");
        assert_eq!(e, b"9");
        assert_eq!(v.as_deref(), Some("9"));
        let (e, _) = bytes_of(&mut t, "[1000000..1000500)/[1000499]");
        assert_eq!(e, b"9");
    }
}

/// The reader against serde_json on generated documents: valid ones with
/// every kind of value, whitespace, escape and number, documents with
/// broken strings, and mutations of both. A document is opened as JSON
/// exactly when serde_json reads it, and every string (keys included)
/// decodes to what serde_json makes of it.
#[cfg(test)]
mod against_serde_json {
    use std::sync::Arc;

    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

    use crate::model::{Source, Tree};

    /// splitmix64: small, deterministic, good enough to pick from.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        /// True `percent` times in a hundred.
        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
        fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
            &from[self.below(from.len())]
        }
    }

    struct Gen {
        rng: Rng,
        /// Percent of string pieces that are broken on purpose.
        broken: usize,
    }

    impl Gen {
        /// One of `from`, appended.
        fn piece(&mut self, out: &mut Vec<u8>, from: &[&[u8]]) {
            let p: &[u8] = from[self.rng.below(from.len())];
            out.extend_from_slice(p);
        }

        fn ws(&mut self, out: &mut Vec<u8>) {
            if self.rng.chance(60) {
                return;
            }
            for _ in 0..1 + self.rng.below(3) {
                out.push(*self.rng.pick(b" \t\n\r"));
            }
        }

        fn value(&mut self, out: &mut Vec<u8>, depth: usize) {
            let kinds = if depth >= 5 { 4 } else { 7 };
            match self.rng.below(kinds) {
                0 => self.piece(out, &[&b"true"[..], b"false", b"null"]),
                1 => self.number(out),
                2 | 3 => self.string(out),
                4 | 5 => {
                    let object = self.rng.chance(50);
                    self.container(out, depth, object)
                }
                _ => self.container(out, depth, true),
            }
        }

        fn container(&mut self, out: &mut Vec<u8>, depth: usize, object: bool) {
            out.push(if object { b'{' } else { b'[' });
            self.ws(out);
            let n = self.rng.below(5);
            for k in 0..n {
                if k > 0 {
                    out.push(b',');
                    self.ws(out);
                }
                if object {
                    self.string(out);
                    self.ws(out);
                    out.push(b':');
                    self.ws(out);
                }
                self.value(out, depth + 1);
                self.ws(out);
            }
            out.push(if object { b'}' } else { b']' });
        }

        fn digits(&mut self, out: &mut Vec<u8>, n: usize) {
            for _ in 0..n {
                out.push(b'0' + self.rng.below(10) as u8);
            }
        }

        fn number(&mut self, out: &mut Vec<u8>) {
            const EDGES: &[&str] = &[
                "0",
                "-0",
                "-0.0e-0",
                "1e308",
                "1.7976931348623157e308",
                "1.7976931348623158e308",
                "1.7976931348623159e308",
                "1.8e308",
                "-1e309",
                "1e-400",
                "4.9e-324",
                "2.4703282292062328e-324",
                "18446744073709551615",
                "18446744073709551616",
                "-9223372036854775808",
                "-9223372036854775809",
                "1E+2",
                "0e999999999999999999999",
                "1e999999999999999999999",
                "1e-999999999999999999999",
                "179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
            ];
            if self.rng.chance(10) {
                out.extend_from_slice(self.rng.pick(EDGES).as_bytes());
                return;
            }
            if self.rng.chance(30) {
                out.push(b'-');
            }
            if self.rng.chance(20) {
                out.push(b'0');
            } else {
                out.push(b'1' + self.rng.below(9) as u8);
                let n = if self.rng.chance(3) {
                    290 + self.rng.below(30)
                } else {
                    self.rng.below(22)
                };
                self.digits(out, n);
            }
            if self.rng.chance(30) {
                out.push(b'.');
                let n = 1 + self.rng.below(20);
                self.digits(out, n);
            }
            if self.rng.chance(30) {
                out.push(*self.rng.pick(b"eE"));
                if self.rng.chance(60) {
                    out.push(*self.rng.pick(b"+-"));
                }
                let e = if self.rng.chance(50) {
                    self.rng.below(20)
                } else {
                    280 + self.rng.below(60)
                };
                out.extend_from_slice(e.to_string().as_bytes());
            }
        }

        fn hex(&mut self, out: &mut Vec<u8>, v: u32) {
            let s = format!("\\u{v:04x}");
            if self.rng.chance(50) {
                out.extend_from_slice(s.to_uppercase().replace("\\U", "\\u").as_bytes());
            } else {
                out.extend_from_slice(s.as_bytes());
            }
        }

        fn string(&mut self, out: &mut Vec<u8>) {
            out.push(b'"');
            for _ in 0..self.rng.below(10) {
                if self.rng.chance(self.broken) {
                    self.broken_piece(out);
                    continue;
                }
                match self.rng.below(8) {
                    0 | 1 => {
                        let c = 0x20 + self.rng.below(0x5f) as u8;
                        if c == b'"' || c == b'\\' {
                            out.push(b'\\');
                        }
                        out.push(c);
                    }
                    2 => self.piece(
                        out,
                        &[
                            &br#"\""#[..],
                            br"\\",
                            br"\/",
                            br"\b",
                            br"\f",
                            br"\n",
                            br"\r",
                            br"\t",
                        ],
                    ),
                    3 => {
                        // Any BMP character but a surrogate, controls included.
                        let v = loop {
                            let v = self.rng.below(0x10000) as u32;
                            if !(0xd800..0xe000).contains(&v) {
                                break v;
                            }
                        };
                        let v = if self.rng.chance(30) { v & 0x3f } else { v };
                        self.hex(out, v);
                    }
                    4 => {
                        // A surrogate pair.
                        let c = 0x10000 + self.rng.below(0x100000) as u32;
                        self.hex(out, 0xd800 + ((c - 0x10000) >> 10));
                        self.hex(out, 0xdc00 + ((c - 0x10000) & 0x3ff));
                    }
                    5 => {
                        let s = self
                            .rng
                            .pick(&["é", "中", "😀", "\u{7f}", "\u{85}", "\u{202e}"]);
                        out.extend_from_slice(s.as_bytes());
                    }
                    6 => {
                        let c = char::from_u32(0x80 + self.rng.below(0x10ff00) as u32)
                            .unwrap_or('\u{fffd}');
                        let mut b = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                    }
                    _ => out.extend_from_slice(b"word"),
                }
            }
            out.push(b'"');
        }

        /// Something serde_json refuses in a string (or, for a few, does
        /// not: a high surrogate followed by a pair is still lone).
        fn broken_piece(&mut self, out: &mut Vec<u8>) {
            match self.rng.below(12) {
                0 | 1 => {
                    let base = if self.rng.chance(50) { 0xd800 } else { 0xdc00 };
                    let v = base + self.rng.below(0x400) as u32;
                    self.hex(out, v)
                }
                2 => {
                    self.hex(out, 0xd83d);
                    self.hex(out, 0x0041);
                }
                3 => {
                    self.hex(out, 0xd83d);
                    self.hex(out, 0xd83d);
                    self.hex(out, 0xde00);
                }
                4 => out.extend_from_slice(b"\\uD83Dx"),
                5 => out.push(self.rng.below(0x20) as u8),
                6 => self.piece(
                    out,
                    &[
                        &b"\xff"[..],
                        b"\xc0\x80",
                        b"\xed\xa0\x80",
                        b"\xf0\x9f\x98",
                        b"\x80",
                    ],
                ),
                7 => self.piece(out, &[&br"\x"[..], br"\u12", br"\uZZZZ", br"\U0041"]),
                8 => out.extend_from_slice(b"\\uDE00\\uD83D"),
                9 => out.extend_from_slice(b"\\uD83D\\"),
                10 => out.extend_from_slice(b"\\uD83D\\n"),
                _ => out.extend_from_slice(b"\\ud83d\\ude00"),
            }
        }

        /// `n` containers, one inside the other, around a value.
        fn nested(&mut self, n: usize) -> Vec<u8> {
            let mut out = Vec::new();
            let objects: Vec<bool> = (0..n).map(|_| self.rng.chance(30)).collect();
            for &o in &objects {
                out.extend_from_slice(if o { b"{\"k\":" } else { b"[" });
            }
            out.extend_from_slice(b"1");
            for &o in objects.iter().rev() {
                out.push(if o { b'}' } else { b']' });
            }
            out
        }

        fn mutate(&mut self, doc: &[u8]) -> Vec<u8> {
            const BYTES: &[u8] =
                b"\"\\{}[],:0123456789eE+-.utrfnl \t\n\r\x00\x01\x1f\x7f\x80\xbf\xc3\xed\xf0\xff";
            let mut d = doc.to_vec();
            for _ in 0..1 + self.rng.below(3) {
                let at = self.rng.below(d.len() + 1);
                match self.rng.below(5) {
                    0 if at < d.len() => {
                        d.remove(at);
                    }
                    1 => d.insert(at, *self.rng.pick(BYTES)),
                    2 if at < d.len() => d[at] = *self.rng.pick(BYTES),
                    3 => d.truncate(at),
                    _ => {
                        let end = (at + self.rng.below(8)).min(d.len());
                        let piece = d[at..end].to_vec();
                        let to = self.rng.below(d.len() + 1);
                        d.splice(to..to, piece);
                    }
                }
            }
            d
        }
    }

    /// Every string serde_json reads, keys included, in document order.
    struct Strings<'a>(&'a mut Vec<String>);

    impl<'de> DeserializeSeed<'de> for Strings<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Strings<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, v: &str) -> Result<(), E> {
            self.0.push(v.to_string());
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            let v = self.0;
            while a.next_element_seed(Strings(&mut *v))?.is_some() {}
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            let v = self.0;
            while a.next_key_seed(Strings(&mut *v))?.is_some() {
                a.next_value_seed(Strings(&mut *v))?;
            }
            Ok(())
        }
    }

    /// serde_json's strings, or None if it refuses the document.
    fn serde_strings(doc: &[u8]) -> Option<Vec<String>> {
        let mut v = Vec::new();
        let mut de = serde_json::Deserializer::from_slice(doc);
        let ok = Strings(&mut v).deserialize(&mut de).and_then(|()| de.end());
        let value = serde_json::from_slice::<serde_json::Value>(doc);
        assert_eq!(
            ok.is_ok(),
            value.is_ok(),
            "serde_json agrees with itself on {}",
            String::from_utf8_lossy(doc)
        );
        ok.ok().map(|()| v)
    }

    /// Our strings, in document order, decoded in full.
    fn our_strings(doc: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = doc;
        while let Some(at) = i.iter().position(|&c| c == b'"') {
            let token = &i[at..];
            let (rest, ()) = super::string(token).expect("a string the scan accepted");
            let raw = &token[..token.len() - rest.len()];
            let bytes = super::decode(raw, usize::MAX);
            out.push(String::from_utf8(bytes).expect("strings decode to UTF-8"));
            i = rest;
        }
        out
    }

    /// What the tree makes of the document: opened as JSON, without a
    /// diagnostic.
    fn we_accept(doc: &[u8]) -> bool {
        let t = Tree::build(
            Arc::new(Source::from_vec(doc.to_vec())),
            "t",
            |b, p, at: crate::model::Span| {
                super::tree(b, p, at).then_some(crate::model::Format::Json)
            },
        );
        let accepted = t.format() == Some(crate::model::Format::Json) && t.diagnostics().is_empty();
        assert!(
            accepted || !t.diagnostics().is_empty(),
            "a refusal says where"
        );
        accepted
    }

    /// The document serde_json is given: without what the reader allows
    /// around it (a byte order mark, trailing NULs).
    fn body(doc: &[u8]) -> &[u8] {
        let d = crate::model::text::trim_end_by(doc, |c| c == 0 || super::is_ws(c));
        d.strip_prefix(b"\xef\xbb\xbf").unwrap_or(d)
    }

    fn check(doc: &[u8], tally: &mut [usize; 2]) {
        let serde = serde_strings(body(doc));
        let ours = we_accept(doc);
        assert_eq!(
            ours,
            serde.is_some(),
            "we {} what serde_json {}: {:?}",
            if ours { "accept" } else { "refuse" },
            if ours { "refuses" } else { "accepts" },
            String::from_utf8_lossy(doc)
        );
        if let Some(theirs) = serde {
            assert_eq!(
                our_strings(doc),
                theirs,
                "{:?}",
                String::from_utf8_lossy(doc)
            );
        }
        tally[usize::from(ours)] += 1;
    }

    #[test]
    fn accepts_what_serde_json_accepts_and_reads_strings_alike() {
        let mut g = Gen {
            rng: Rng(0x6a73_6f6e),
            broken: 0,
        };
        let mut tally = [0usize; 2];
        for n in 0..3000 {
            g.broken = if n % 3 == 0 { 4 } else { 0 };
            let mut doc = Vec::new();
            g.ws(&mut doc);
            g.value(&mut doc, 0);
            g.ws(&mut doc);
            check(&doc, &mut tally);
            for _ in 0..4 {
                let m = g.mutate(&doc);
                check(&m, &mut tally);
            }
        }
        for n in super::MAX_DEPTH - 3..super::MAX_DEPTH + 3 {
            let doc = g.nested(n);
            check(&doc, &mut tally);
        }
        // Both sides are well represented.
        eprintln!("refused {}, accepted {}", tally[0], tally[1]);
        assert!(tally[0] > 3000 && tally[1] > 3000, "{tally:?}");
    }

    #[test]
    fn surrogate_pairs_make_one_character() {
        let doc = br#"{"\uD83D\uDE00": ["\ud83d\ude00x", "a\u00e9\u4E2D\uDBFF\uDFFF"]}"#;
        assert_eq!(
            our_strings(doc),
            ["😀", "😀x", "aé中\u{10ffff}"].map(String::from)
        );
        let mut t = Tree::build(
            Arc::new(Source::from_vec(doc.to_vec())),
            "t",
            |b, p, at: crate::model::Span| {
                super::tree(b, p, at).then_some(crate::model::Format::Json)
            },
        );
        let e = t.find_path("😀/[0]").expect("the key decoded");
        assert_eq!(t.value_text(e).as_deref(), Some("\"😀x\""));
        for lone in [
            &br#"["\uD83D"]"#[..],
            br#"["\uDE00"]"#,
            br#"["\uD83D\u0041"]"#,
            br#"["\uD83Dx"]"#,
            br#"["\uDE00\uD83D"]"#,
        ] {
            assert!(!we_accept(lone), "{}", String::from_utf8_lossy(lone));
            assert!(serde_strings(lone).is_none());
        }
    }
}
