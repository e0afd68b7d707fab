//! JSON text shown as an object tree: every member and element is a node
//! owning its bytes in the text (an object member from its key to the end
//! of its value). Used by the JSON metadata sections of XCLBIN files.
//!
//! The text is checked once when it is opened; the members of each object
//! or array are a lazy [`Seq`], built only when that node is opened, in
//! groups of groups past [`GROUP`] entries, so a huge document opens at
//! once.

use std::sync::Arc;

use nom::bytes::complete::{tag, take_till, take_while, take_while_m_n};
use nom::character::complete::{char, digit0, digit1, one_of, satisfy};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};

use crate::model::{text, Builder, LazyFn, NodeId, Seq, Step, Value, GROUP};

/// Containers nested deeper than this are refused (the text is then shown
/// as bytes).
pub const MAX_DEPTH: usize = 128;

/// The longest string value shown in full, in characters.
const MAX_SHOWN: usize = 256;

/// What a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    Str,
    Num,
    Lit,
}

/// Where a scan stopped and why; `rest` is the length of the input left.
#[derive(Debug)]
struct Fail {
    rest: usize,
    msg: &'static str,
}

type Scan<'a, T> = Result<(&'a [u8], T), Fail>;

fn fail<T>(i: &[u8], msg: &'static str) -> Result<T, Fail> {
    Err(Fail { rest: i.len(), msg })
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn ws(i: &[u8]) -> &[u8] {
    let r: IResult<&[u8], &[u8]> = take_while(is_ws)(i);
    r.map(|(rest, _)| rest).unwrap_or(i)
}

/// The next byte, if any.
fn peek(i: &[u8]) -> Option<u8> {
    i.first().copied()
}

/// A string starting at its opening quote; returns the input after the
/// closing quote.
fn string(i: &[u8]) -> Scan<'_, ()> {
    let r: IResult<&[u8], char> = char('"')(i);
    let Ok((mut i, _)) = r else {
        return fail(i, "expected a string");
    };
    loop {
        let r: IResult<&[u8], &[u8]> = take_till(|c: u8| c == b'"' || c == b'\\' || c < 0x20)(i);
        let Ok((rest, _)) = r else {
            return fail(i, "unterminated string");
        };
        match peek(rest) {
            Some(b'"') => return Ok((rest.get(1..).unwrap_or_default(), ())),
            Some(b'\\') => i = escape(rest)?.0,
            Some(_) => return fail(rest, "control character in a string"),
            None => return fail(rest, "unterminated string"),
        }
    }
}

/// One escape sequence starting at its backslash.
fn escape(i: &[u8]) -> Scan<'_, char> {
    let r: IResult<&[u8], char> = char('\\')(i);
    let Ok((after, _)) = r else {
        return fail(i, "expected an escape");
    };
    let simple: IResult<&[u8], char> = one_of("\"\\/bfnrt")(after);
    if let Ok((rest, c)) = simple {
        let c = match c {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            c => c,
        };
        return Ok((rest, c));
    }
    let u: IResult<&[u8], (char, &[u8])> = (
        char('u'),
        take_while_m_n(4, 4, |c: u8| c.is_ascii_hexdigit()),
    )
        .parse(after);
    match u {
        Ok((rest, (_, hex))) => {
            let v = hex.iter().fold(0u32, |a, &d| {
                (a << 4) | (d as char).to_digit(16).unwrap_or(0)
            });
            Ok((rest, char::from_u32(v).unwrap_or('\u{fffd}')))
        }
        Err(_) => fail(after, "invalid escape in a string"),
    }
}

fn number(i: &[u8]) -> Scan<'_, ()> {
    let r: IResult<&[u8], &[u8]> = recognize((
        opt(char('-')),
        nom::branch::alt((
            tag(&b"0"[..]),
            recognize((satisfy(|c| ('1'..='9').contains(&c)), digit0)),
        )),
        opt((char('.'), digit1)),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(i);
    match r {
        Ok((rest, _)) => Ok((rest, ())),
        Err(_) => fail(i, "invalid number"),
    }
}

fn literal(i: &[u8]) -> Scan<'_, ()> {
    for word in [&b"true"[..], b"false", b"null"] {
        let r: IResult<&[u8], &[u8]> = tag(word)(i);
        if let Ok((rest, _)) = r {
            return Ok((rest, ()));
        }
    }
    fail(i, "expected a value")
}

/// Skips one value (no leading whitespace). Returns its kind and, for a
/// container, how many entries it has.
fn value(i: &[u8], depth: usize) -> Scan<'_, (Kind, usize)> {
    match peek(i) {
        Some(b'{') => container(i, depth, true).map(|(r, n)| (r, (Kind::Object, n))),
        Some(b'[') => container(i, depth, false).map(|(r, n)| (r, (Kind::Array, n))),
        Some(b'"') => string(i).map(|(r, _)| (r, (Kind::Str, 0))),
        Some(b'-' | b'0'..=b'9') => number(i).map(|(r, _)| (r, (Kind::Num, 0))),
        Some(_) => literal(i).map(|(r, _)| (r, (Kind::Lit, 0))),
        None => fail(i, "unexpected end of text"),
    }
}

/// One object member or array element, with any whitespace before it.
/// Returns the key's and the value's input (for their offsets).
struct Entry<'a> {
    key: Option<&'a [u8]>,
    val: &'a [u8],
    kind: Kind,
    count: usize,
}

fn entry(i: &[u8], depth: usize, object: bool) -> Scan<'_, Entry<'_>> {
    let mut i = ws(i);
    let key = if object {
        let k = i;
        i = ws(string(i)?.0);
        let r: IResult<&[u8], char> = char(':')(i);
        match r {
            Ok((rest, _)) => i = ws(rest),
            Err(_) => return fail(i, "expected ':' after a key"),
        }
        Some(k)
    } else {
        None
    };
    let val = i;
    let (rest, (kind, count)) = value(i, depth)?;
    Ok((
        rest,
        Entry {
            key,
            val,
            kind,
            count,
        },
    ))
}

/// After an entry: `,` (more follow) or the closing bracket.
fn separator(i: &[u8], object: bool) -> Scan<'_, bool> {
    let i = ws(i);
    let close = if object { b'}' } else { b']' };
    match peek(i) {
        Some(b',') => Ok((i.get(1..).unwrap_or_default(), true)),
        Some(c) if c == close => Ok((i.get(1..).unwrap_or_default(), false)),
        _ if object => fail(i, "expected ',' or '}'"),
        _ => fail(i, "expected ',' or ']'"),
    }
}

/// An object or array starting at its opening bracket.
fn container(i: &[u8], depth: usize, object: bool) -> Scan<'_, usize> {
    if depth >= MAX_DEPTH {
        return fail(i, "nested deeper than fwview shows");
    }
    let mut i = ws(i.get(1..).unwrap_or_default());
    let close = if object { b'}' } else { b']' };
    if peek(i) == Some(close) {
        return Ok((i.get(1..).unwrap_or_default(), 0));
    }
    let mut n = 0usize;
    loop {
        let (rest, _) = entry(i, depth + 1, object)?;
        n += 1;
        let (rest, more) = separator(rest, object)?;
        i = rest;
        if !more {
            return Ok((i, n));
        }
    }
}

/// 1-based line and column of byte `pos` in `s`.
fn line_col(s: &[u8], pos: usize) -> (usize, usize) {
    let before = s.get(..pos).unwrap_or(s);
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let col = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(pos, |nl| pos - nl - 1)
        + 1;
    (line, col)
}

/// Parses the JSON text in `[off, off+len)` into children of `parent`: the
/// members of the top-level object (or the elements of the top-level
/// array). Trailing NULs and whitespace are ignored. Returns false, with a
/// warning at the offending byte, if the text is not well-formed JSON.
pub fn tree(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) -> bool {
    let all = b.slice(off, len);
    let end = all
        .iter()
        .rposition(|&c| c != 0 && !is_ws(c))
        .map_or(0, |i| i + 1);
    let s = all.get(..end).unwrap_or_default();
    // A UTF-8 byte order mark is tolerated.
    let start = if s.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let body = ws(s.get(start..).unwrap_or_default());
    let at = |rest: usize| off + (end - rest) as u64;
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
            members(b, parent, v_off, v_end, kind == Kind::Object, count);
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
    let mut bytes = Vec::new();
    let mut i = raw.get(1..).unwrap_or_default();
    let mut chars = 0usize;
    loop {
        let r: IResult<&[u8], &[u8]> = take_till(|c: u8| c == b'"' || c == b'\\')(i);
        let Ok((rest, run)) = r else { break };
        bytes.extend_from_slice(run);
        chars += run.len();
        match escape(rest) {
            Ok((after, c)) => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                chars += 1;
                i = after;
            }
            Err(_) => break,
        }
        if chars > MAX_SHOWN * 4 {
            break;
        }
    }
    let s = text::from_bytes(&bytes);
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

/// Adds the entries of the container at `[open, close)` (`open` at its
/// bracket, `close` just after its closing one) under `parent` now, as a
/// [`Seq`]: all of them, or groups (of groups) that are built when
/// opened.
fn members(b: &mut Builder<'_>, parent: NodeId, open: u64, close: u64, object: bool, count: usize) {
    let count = count as u64;
    let step: Step =
        Arc::new(move |b: &mut Builder<'_>, p, i, at| entry_node(b, p, i, at, close, object));
    let first = open.saturating_add(1);
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
        let f: LazyFn = Arc::new(move |b: &mut Builder<'_>, id| {
            members(b, id, v_off, v_end, obj, count);
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

/// How many bytes follow the string token at the start of `k`.
fn ws_string_len(k: &[u8]) -> usize {
    string(k).map_or(0, |(rest, _)| rest.len())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::model::{Builder, NodeId, Source, Tree};

    fn as_json(b: &mut Builder<'_>, p: NodeId, off: u64, len: u64) -> Option<&'static str> {
        super::tree(b, p, off, len).then_some("json")
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
        assert_eq!(v.as_deref(), Some("\"x\\ny\""));
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
            assert_eq!(t.format(), "raw", "{}", String::from_utf8_lossy(src));
            let d = &t.diagnostics()[0];
            assert_eq!(
                d.offset,
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
        assert_eq!(t.format(), "json");
        assert_eq!(t.diagnostics()[0].offset, 3);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut s = vec![b'['; super::MAX_DEPTH + 5];
        s.extend(vec![b']'; super::MAX_DEPTH + 5]);
        let t = build(&s);
        assert_eq!(t.format(), "raw");
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
        let groups = t.children(big);
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
        let names: Vec<&str> = top.iter().map(|&k| t.name(k)).collect();
        assert_eq!(names, ["[0..1000000)", "[1000000..1000500)"]);
        let (e, v) = bytes_of(&mut t, "[0..1000000)/[999000..1000000)/[999999]");
        assert_eq!(e, b"9");
        assert_eq!(v.as_deref(), Some("9"));
        let (e, _) = bytes_of(&mut t, "[1000000..1000500)/[1000499]");
        assert_eq!(e, b"9");
    }
}
