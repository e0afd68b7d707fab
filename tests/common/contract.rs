//! The JSON contract, checked from the bytes fwview wrote:
//! `{"path","size","format","root":NODE,"diagnostics":[{"severity","offset","size","message"}]}`,
//! NODE = `{"name","offset","size","value": string|null,"children":[...]}`,
//! the root covering the file, every child's range inside its parent's, and
//! no byte in the document that could act on a terminal.

use serde::Deserialize;
use serde_json::Value;

/// What a checked document held.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    pub nodes: u64,
    pub depth: usize,
    pub diagnostics: u64,
}

/// The first byte in `b` that a terminal could act on: a C0 control other
/// than newline, DEL, a C1 control (UTF-8 `C2 80..9F`), or a bidirectional
/// formatting character (U+061C, U+200E/F, U+202A..E, U+2066..9).
pub fn terminal_unsafe_at(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        let bad = match b[i] {
            b'\n' => false,
            0..=0x1f | 0x7f => true,
            0xc2 => matches!(b.get(i + 1), Some(0x80..=0x9f)),
            0xd8 => b.get(i + 1) == Some(&0x9c),
            0xe2 => matches!(
                (b.get(i + 1), b.get(i + 2)),
                (Some(0x80), Some(0x8e | 0x8f | 0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
            ),
            _ => false,
        };
        if bad {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// A few bytes around `at`, for a message.
pub fn around(b: &[u8], at: usize) -> String {
    let from = at.saturating_sub(32);
    let to = (at + 32).min(b.len());
    format!("{:?}", String::from_utf8_lossy(&b[from..to]))
}

/// Parses JSON of any depth (a tree may nest deeper than serde_json's
/// default limit of 128).
pub fn parse(json: &[u8]) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_slice(json);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).map_err(|e| format!("not valid JSON: {e}"))?;
    de.end()
        .map_err(|e| format!("trailing bytes after the JSON: {e}"))?;
    Ok(v)
}

fn u64_of(v: &Value, key: &str, what: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("{what}: \"{key}\" is not an unsigned integer"))
}

fn str_of<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{what}: \"{key}\" is not a string"))
}

fn keys_are(v: &Value, keys: &[&str], what: &str) -> Result<(), String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{what} is not an object"))?;
    let mut have: Vec<&str> = o.keys().map(String::as_str).collect();
    have.sort_unstable();
    let mut want = keys.to_vec();
    want.sort_unstable();
    if have != want {
        return Err(format!(
            "{what} has keys {have:?}, the contract says {want:?}"
        ));
    }
    Ok(())
}

/// Checks a whole document for a file of `file_size` bytes, streaming (no
/// `Value` is built: documents of hundreds of MB are checked in one pass).
pub fn check(json: &[u8], file_size: u64) -> Result<Stats, String> {
    if let Some(i) = terminal_unsafe_at(json) {
        return Err(format!(
            "byte {i} of the JSON could act on a terminal: {}",
            around(json, i)
        ));
    }
    stream::check(json, file_size)
}

/// Like [`check`], through a parsed `Value` (slower; a second, independent
/// implementation that the tests of this module hold the first against).
pub fn check_parsed(json: &[u8], file_size: u64) -> Result<Stats, String> {
    if let Some(i) = terminal_unsafe_at(json) {
        return Err(format!(
            "byte {i} of the JSON could act on a terminal: {}",
            around(json, i)
        ));
    }
    let doc = parse(json)?;
    let r = check_value(&doc, file_size);
    drop_flat(doc);
    r
}

/// The contract checked by serde visitors as the document is read.
mod stream {
    use std::fmt;

    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

    use super::Stats;

    pub fn check(json: &[u8], file_size: u64) -> Result<Stats, String> {
        let mut st = Stats::default();
        let mut de = serde_json::Deserializer::from_slice(json);
        de.disable_recursion_limit();
        let (size, root) = Doc { st: &mut st }
            .deserialize(&mut de)
            .map_err(|e| format!("the JSON breaks the contract: {e}"))?;
        de.end()
            .map_err(|e| format!("trailing bytes after the JSON: {e}"))?;
        if size != file_size {
            return Err(format!("size is {size}, the file has {file_size} bytes"));
        }
        if root != (0, file_size) {
            return Err(format!(
                "root covers [{}, +{}), not the file's {file_size} bytes",
                root.0, root.1
            ));
        }
        Ok(st)
    }

    fn err<E: de::Error>(m: impl fmt::Display) -> E {
        E::custom(m)
    }

    /// A string, or `null` too when `null_ok`.
    struct Text {
        null_ok: bool,
    }
    impl<'de> DeserializeSeed<'de> for Text {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl Visitor<'_> for Text {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(if self.null_ok {
                "a string or null"
            } else {
                "a string"
            })
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            if self.null_ok {
                Ok(())
            } else {
                Err(err("null where a string must be"))
            }
        }
        fn visit_none<E: de::Error>(self) -> Result<(), E> {
            self.visit_unit()
        }
    }

    /// The document: gives (size, (root offset, root size)).
    struct Doc<'a> {
        st: &'a mut Stats,
    }
    impl<'de> DeserializeSeed<'de> for Doc<'_> {
        type Value = (u64, (u64, u64));
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Doc<'_> {
        type Value = (u64, (u64, u64));
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the document object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let (mut path, mut size, mut format, mut root, mut diags) =
                (false, None, false, None, false);
            while let Some(k) = m.next_key::<String>()? {
                match k.as_str() {
                    "path" if !path => {
                        m.next_value_seed(Text { null_ok: false })?;
                        path = true;
                    }
                    "size" if size.is_none() => size = Some(m.next_value::<u64>()?),
                    "format" if !format => {
                        m.next_value_seed(Text { null_ok: false })?;
                        format = true;
                    }
                    "root" if root.is_none() => {
                        let n = m.next_value_seed(Node {
                            st: &mut *self.st,
                            depth: 1,
                        })?;
                        root = Some((n.offset, n.size));
                    }
                    "diagnostics" if !diags => {
                        self.st.diagnostics = m.next_value_seed(Diags)?;
                        diags = true;
                    }
                    other => {
                        return Err(err(format!(
                            "the document: unknown or repeated key {other:?}"
                        )))
                    }
                }
            }
            match (path, size, format, root, diags) {
                (true, Some(s), true, Some(r), true) => Ok((s, r)),
                _ => Err(err(
                    "the document lacks one of path, size, format, root, diagnostics",
                )),
            }
        }
    }

    struct Diags;
    impl<'de> DeserializeSeed<'de> for Diags {
        type Value = u64;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Diags {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of diagnostics")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<u64, A::Error> {
            let mut n = 0;
            while s.next_element_seed(Diag)?.is_some() {
                n += 1;
            }
            Ok(n)
        }
    }

    struct Diag;
    impl<'de> DeserializeSeed<'de> for Diag {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Diag {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a diagnostic object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            let mut seen = [false; 4];
            while let Some(k) = m.next_key::<String>()? {
                let i = match k.as_str() {
                    "severity" => {
                        let s: String = m.next_value()?;
                        if !matches!(s.as_str(), "info" | "warning" | "error") {
                            return Err(err(format!("unknown severity {s:?}")));
                        }
                        0
                    }
                    "offset" => {
                        m.next_value::<u64>()?;
                        1
                    }
                    "size" => {
                        m.next_value::<u64>()?;
                        2
                    }
                    "message" => {
                        m.next_value_seed(Text { null_ok: false })?;
                        3
                    }
                    other => return Err(err(format!("a diagnostic: unknown key {other:?}"))),
                };
                if std::mem::replace(&mut seen[i], true) {
                    return Err(err(format!("a diagnostic: repeated key {k:?}")));
                }
            }
            if seen != [true; 4] {
                return Err(err(
                    "a diagnostic lacks one of severity, offset, size, message",
                ));
            }
            Ok(())
        }
    }

    /// What a node tells its parent.
    struct Seen {
        name: String,
        offset: u64,
        size: u64,
    }

    struct Node<'a> {
        st: &'a mut Stats,
        depth: usize,
    }
    impl<'de> DeserializeSeed<'de> for Node<'_> {
        type Value = Seen;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Seen, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Node<'_> {
        type Value = Seen;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a node object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Seen, A::Error> {
            self.st.nodes += 1;
            self.st.depth = self.st.depth.max(self.depth);
            let (mut name, mut offset, mut size, mut value, mut kids) =
                (None, None, None, false, None);
            while let Some(k) = m.next_key::<String>()? {
                match k.as_str() {
                    "name" if name.is_none() => name = Some(m.next_value::<String>()?),
                    "offset" if offset.is_none() => offset = Some(m.next_value::<u64>()?),
                    "size" if size.is_none() => size = Some(m.next_value::<u64>()?),
                    "value" if !value => {
                        m.next_value_seed(Text { null_ok: true })?;
                        value = true;
                    }
                    "children" if kids.is_none() => {
                        kids = Some(m.next_value_seed(Kids {
                            st: &mut *self.st,
                            depth: self.depth + 1,
                        })?);
                    }
                    other => {
                        return Err(err(format!(
                            "node {name:?}: unknown or repeated key {other:?}"
                        )))
                    }
                }
            }
            let (Some(name), Some(offset), Some(size), true, Some(kids)) =
                (name, offset, size, value, kids)
            else {
                return Err(err(
                    "a node lacks one of name, offset, size, value, children",
                ));
            };
            let end = offset
                .checked_add(size)
                .ok_or_else(|| err(format!("node {name:?}: offset + size overflows")))?;
            for c in kids {
                let ce = c.offset.saturating_add(c.size);
                if c.offset < offset || ce > end {
                    return Err(err(format!(
                        "{:?} [{:#x}, {ce:#x}) lies outside its parent {name:?} [{offset:#x}, {end:#x})",
                        c.name, c.offset
                    )));
                }
            }
            Ok(Seen { name, offset, size })
        }
    }

    struct Kids<'a> {
        st: &'a mut Stats,
        depth: usize,
    }
    impl<'de> DeserializeSeed<'de> for Kids<'_> {
        type Value = Vec<Seen>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Seen>, D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Kids<'_> {
        type Value = Vec<Seen>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of nodes")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vec<Seen>, A::Error> {
            let mut v = Vec::new();
            while let Some(n) = s.next_element_seed(Node {
                st: &mut *self.st,
                depth: self.depth,
            })? {
                v.push(n);
            }
            Ok(v)
        }
    }
}

/// Checks a parsed document.
pub fn check_value(doc: &Value, file_size: u64) -> Result<Stats, String> {
    keys_are(
        doc,
        &["path", "size", "format", "root", "diagnostics"],
        "the document",
    )?;
    str_of(doc, "path", "the document")?;
    str_of(doc, "format", "the document")?;
    let size = u64_of(doc, "size", "the document")?;
    if size != file_size {
        return Err(format!("size is {size}, the file has {file_size} bytes"));
    }
    let mut st = Stats::default();
    let diags = doc["diagnostics"]
        .as_array()
        .ok_or("diagnostics is not an array")?;
    for d in diags {
        keys_are(
            d,
            &["severity", "offset", "size", "message"],
            "a diagnostic",
        )?;
        let s = str_of(d, "severity", "a diagnostic")?;
        if !matches!(s, "info" | "warning" | "error") {
            return Err(format!("unknown severity {s:?}"));
        }
        u64_of(d, "offset", "a diagnostic")?;
        u64_of(d, "size", "a diagnostic")?;
        str_of(d, "message", "a diagnostic")?;
        st.diagnostics += 1;
    }
    let root = &doc["root"];
    check_node(root, "root")?;
    let (ro, rs) = (
        u64_of(root, "offset", "root")?,
        u64_of(root, "size", "root")?,
    );
    if ro != 0 || rs != file_size {
        return Err(format!(
            "root covers [{ro}, +{rs}), not the file's {file_size} bytes"
        ));
    }
    // Depth-first with an explicit stack: trees may be deep.
    let mut stack: Vec<(&Value, usize)> = vec![(root, 1)];
    while let Some((n, depth)) = stack.pop() {
        st.nodes += 1;
        st.depth = st.depth.max(depth);
        let pname = n.get("name").and_then(Value::as_str).unwrap_or("?");
        let po = u64_of(n, "offset", pname)?;
        let pe = po
            .checked_add(u64_of(n, "size", pname)?)
            .ok_or_else(|| format!("{pname:?}: offset + size overflows"))?;
        for c in n["children"].as_array().into_iter().flatten() {
            let name = c.get("name").and_then(Value::as_str).unwrap_or("?");
            let what = format!("{name:?} (child of {pname:?})");
            check_node(c, &what)?;
            let co = u64_of(c, "offset", &what)?;
            let ce = co
                .checked_add(u64_of(c, "size", &what)?)
                .ok_or_else(|| format!("{what}: offset + size overflows"))?;
            if co < po || ce > pe {
                return Err(format!(
                    "{what} [{co:#x}, {ce:#x}) lies outside its parent [{po:#x}, {pe:#x})"
                ));
            }
            stack.push((c, depth + 1));
        }
    }
    Ok(st)
}

fn check_node(n: &Value, what: &str) -> Result<(), String> {
    keys_are(n, &["name", "offset", "size", "value", "children"], what)?;
    str_of(n, "name", what)?;
    u64_of(n, "offset", what)?;
    u64_of(n, "size", what)?;
    if !(n["value"].is_string() || n["value"].is_null()) {
        return Err(format!("{what}: value is neither a string nor null"));
    }
    if !n["children"].is_array() {
        return Err(format!("{what}: children is not an array"));
    }
    Ok(())
}

/// Drops a parsed document without recursing (serde_json's drop of a deep
/// value recurses once a level).
pub fn drop_flat(v: Value) {
    let mut stack = vec![v];
    while let Some(mut v) = stack.pop() {
        match &mut v {
            Value::Array(a) => stack.extend(std::mem::take(a)),
            Value::Object(o) => {
                let m = std::mem::take(o);
                stack.extend(m.into_iter().map(|(_, x)| x));
            }
            _ => {}
        }
    }
}

/// The checks themselves: the streaming one and the `Value` one agree, and
/// each catches what it must. Called from one test of a test binary.
pub fn self_test() {
    const GOOD: &str = r#"{"path": "p", "size": 10, "format": "raw",
"root": {"name": "r", "offset": 0, "size": 10, "value": null, "children": [
{"name": "a", "offset": 2, "size": 8, "value": "x", "children": [
{"name": "b", "offset": 9, "size": 1, "value": "y", "children": []}]}]},
"diagnostics": [{"severity": "info", "offset": 0, "size": 1, "message": "m"}]}"#;
    let both = |doc: &str, size: u64| {
        (
            check(doc.as_bytes(), size),
            check_parsed(doc.as_bytes(), size),
        )
    };
    let (a, b) = both(GOOD, 10);
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((a.nodes, a.depth, a.diagnostics), (3, 3, 1));
    assert_eq!((b.nodes, b.depth, b.diagnostics), (3, 3, 1));
    let cases: Vec<(String, u64, bool)> = vec![
        (GOOD.replace("\"offset\": 9", "\"offset\": 10"), 10, false),
        (GOOD.replace("\"offset\": 2", "\"offset\": 1"), 10, false),
        (GOOD.replace("\"offset\": 9", "\"offset\": 8"), 10, true),
        (GOOD.replace("\"offset\": 2", "\"offset\": 3"), 10, false),
        (GOOD.to_string(), 11, false),
        (GOOD.replace("\"value\": \"y\"", "\"value\": 3"), 10, false),
        (GOOD.replace("\"format\": \"raw\",", ""), 10, false),
        (GOOD.replace("\"info\"", "\"fatal\""), 10, false),
        (
            GOOD.replace("\"name\": \"b\"", "\"name\": \"b\", \"x\": 1"),
            10,
            false,
        ),
        (format!("{GOOD} x"), 10, false),
        (GOOD.replace("\"m\"", "\"\u{1b}[31m\""), 10, false),
        (GOOD.replace("\"m\"", "\"\u{202e}\""), 10, false),
        (GOOD.replace("\"m\"", "\"\\u001b\""), 10, true),
        (GOOD.replace("[]}]}]}", "[]}]}]}]"), 10, false),
    ];
    for (doc, size, ok) in cases {
        let (a, b) = both(&doc, size);
        assert_eq!(a.is_ok(), ok, "streaming check of {doc}: {a:?}");
        assert_eq!(b.is_ok(), ok, "parsed check of {doc}: {b:?}");
    }
    // Depth: far past serde_json's default limit of 128.
    let depth = 2000;
    let mut s = String::from(r#"{"path": "p", "size": 1, "format": "raw", "root": "#);
    for _ in 0..depth {
        s.push_str(r#"{"name": "n", "offset": 0, "size": 1, "value": null, "children": ["#);
    }
    for _ in 0..depth {
        s.push_str("]}");
    }
    s.push_str(r#", "diagnostics": []}"#);
    let st = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || (check(s.as_bytes(), 1), check_parsed(s.as_bytes(), 1)))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(st.0.unwrap().depth, depth);
    assert_eq!(st.1.unwrap().depth, depth);
}
