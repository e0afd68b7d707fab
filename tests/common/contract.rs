//! The JSON contract, checked from the bytes fwview wrote:
//! `{"path","size","format","root":NODE,"spaces":[SPACE],"diagnostics":[{"severity","space","offset","size","message"}]}`,
//! NODE = `{"name","offset","size","space","value": string|null,"raw": integer|null,["link": {"space","offset","size",["path",]},]"children":[...]}`,
//! SPACE = `{"id","name","size","from": null|{"space","offset","size","method"}}`,
//! the root covering the file in space 0, every child's range inside its
//! parent's where both are in one space, a child in another space the root
//! of that space (offset 0, the space's whole size), and no byte in the
//! document that could act on a terminal.

use serde::Deserialize;
use serde_json::Value;

/// What a checked document held.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    pub nodes: u64,
    pub depth: usize,
    pub diagnostics: u64,
}

/// The first byte in `b` that a terminal could act on (the library's
/// scan, checked against its definition by character in its unit tests).
pub use fwview::model::text::terminal_unsafe_at;

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
    safe_for_terminal(json)?;
    stream::check(json, file_size)
}

/// No byte of the document could act on a terminal.
pub fn safe_for_terminal(json: &[u8]) -> Result<(), String> {
    match terminal_unsafe_at(json) {
        Some(i) => Err(format!(
            "byte {i} of the JSON could act on a terminal: {}",
            around(json, i)
        )),
        None => Ok(()),
    }
}

/// Like [`check`], through a parsed `Value` (slower; a second, independent
/// implementation that the tests of this module hold the first against).
pub fn check_parsed(json: &[u8], file_size: u64) -> Result<Stats, String> {
    safe_for_terminal(json)?;
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
        let mut roots = Vec::new();
        let (size, root, spaces) = Doc {
            st: &mut st,
            roots: &mut roots,
        }
        .deserialize(&mut de)
        .map_err(|e| format!("the JSON breaks the contract: {e}"))?;
        de.end()
            .map_err(|e| format!("trailing bytes after the JSON: {e}"))?;
        if size != file_size {
            return Err(format!("size is {size}, the file has {file_size} bytes"));
        }
        if root != (0, file_size, 0) {
            return Err(format!(
                "root covers [{}, +{}) of space {}, not the file's {file_size} bytes",
                root.0, root.1, root.2
            ));
        }
        if spaces.first() != Some(&(0, file_size)) {
            return Err(format!(
                "the first space is not the file: {:?}",
                spaces.first()
            ));
        }
        for (sp, sz) in roots {
            if !spaces.contains(&(sp, sz)) {
                return Err(format!(
                    "a node opens space {sp} with {sz} bytes; the spaces list says {spaces:?}"
                ));
            }
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

    /// (space id, size) of every space, in order.
    type Spaces = Vec<(u64, u64)>;

    /// The document: gives (size, (root offset, root size, root space),
    /// spaces).
    struct Doc<'a> {
        st: &'a mut Stats,
        /// (space, size) of every node that starts a space.
        roots: &'a mut Vec<(u64, u64)>,
    }
    impl<'de> DeserializeSeed<'de> for Doc<'_> {
        type Value = (u64, (u64, u64, u64), Spaces);
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Doc<'_> {
        type Value = (u64, (u64, u64, u64), Spaces);
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the document object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let (mut path, mut size, mut format, mut root, mut diags, mut spaces) =
                (false, None, false, None, false, None);
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
                            roots: &mut *self.roots,
                            depth: 1,
                        })?;
                        root = Some((n.offset, n.size, n.space));
                    }
                    "spaces" if spaces.is_none() => {
                        spaces = Some(m.next_value_seed(SpaceList)?);
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
            match (path, size, format, root, diags, spaces) {
                (true, Some(s), true, Some(r), true, Some(sp)) => Ok((s, r, sp)),
                _ => Err(err(
                    "the document lacks one of path, size, format, root, spaces, diagnostics",
                )),
            }
        }
    }

    struct SpaceList;
    impl<'de> DeserializeSeed<'de> for SpaceList {
        type Value = Spaces;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Spaces, D::Error> {
            let v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
            let a = v.as_array().ok_or_else(|| err("spaces is not an array"))?;
            let mut out = Vec::new();
            for (i, sp) in a.iter().enumerate() {
                let o = sp
                    .as_object()
                    .ok_or_else(|| err("a space is not an object"))?;
                let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
                keys.sort_unstable();
                if keys != ["from", "id", "name", "size"] {
                    return Err(err(format!("a space has keys {keys:?}")));
                }
                let id = sp["id"].as_u64().ok_or_else(|| err("space id"))?;
                if id != i as u64 {
                    return Err(err(format!("space {i} has id {id}")));
                }
                if !sp["name"].is_string() {
                    return Err(err("space name"));
                }
                let size = sp["size"].as_u64().ok_or_else(|| err("space size"))?;
                let from = &sp["from"];
                if i == 0 {
                    if !from.is_null() {
                        return Err(err("space 0 (the file) comes from somewhere"));
                    }
                } else {
                    let fo = from
                        .as_object()
                        .ok_or_else(|| err(format!("space {i} has no origin")))?;
                    let mut k: Vec<&str> = fo.keys().map(String::as_str).collect();
                    k.sort_unstable();
                    if k != ["method", "offset", "size", "space"] {
                        return Err(err(format!("space {i}: origin keys {k:?}")));
                    }
                    let src = from["space"].as_u64().ok_or_else(|| err("origin space"))?;
                    let (oo, os) = (
                        from["offset"]
                            .as_u64()
                            .ok_or_else(|| err("origin offset"))?,
                        from["size"].as_u64().ok_or_else(|| err("origin size"))?,
                    );
                    let Some(&(_, ssize)) = out.get(src as usize) else {
                        return Err(err(format!("space {i} comes from unknown space {src}")));
                    };
                    if oo.checked_add(os).is_none_or(|e| e > ssize) {
                        return Err(err(format!(
                            "space {i} comes from [{oo:#x}+{os:#x}), outside space {src}"
                        )));
                    }
                    if !from["method"].is_string() {
                        return Err(err("origin method"));
                    }
                }
                out.push((id, size));
            }
            Ok(out)
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
            let mut seen = [false; 5];
            while let Some(k) = m.next_key::<String>()? {
                let i = match k.as_str() {
                    "space" => {
                        m.next_value::<u64>()?;
                        4
                    }
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
            if seen != [true; 5] {
                return Err(err(
                    "a diagnostic lacks one of severity, space, offset, size, message",
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
        space: u64,
    }

    /// `"raw"`: an integer or null.
    struct RawSeed;
    impl<'de> DeserializeSeed<'de> for RawSeed {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl Visitor<'_> for RawSeed {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an integer or null")
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_none<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
    }

    /// A node's value: a string (true) or null (false).
    struct ValueSeed;
    impl<'de> DeserializeSeed<'de> for ValueSeed {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl Visitor<'_> for ValueSeed {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string or null")
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_none<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
    }

    struct Node<'a> {
        st: &'a mut Stats,
        roots: &'a mut Vec<(u64, u64)>,
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
                (None, None, None, None, None);
            let (mut space, mut raw, mut link) = (None, None, None);
            while let Some(k) = m.next_key::<String>()? {
                match k.as_str() {
                    "name" if name.is_none() => name = Some(m.next_value::<String>()?),
                    "offset" if offset.is_none() => offset = Some(m.next_value::<u64>()?),
                    "size" if size.is_none() => size = Some(m.next_value::<u64>()?),
                    "space" if space.is_none() => space = Some(m.next_value::<u64>()?),
                    "value" if value.is_none() => {
                        value = Some(m.next_value_seed(ValueSeed)?);
                    }
                    "raw" if raw.is_none() => {
                        raw = Some(m.next_value_seed(RawSeed)?);
                    }
                    "link" if link.is_none() => {
                        let l: serde_json::Value = m.next_value()?;
                        super::check_link(&l).map_err(err)?;
                        link = Some(());
                    }
                    "children" if kids.is_none() => {
                        kids = Some(m.next_value_seed(Kids {
                            st: &mut *self.st,
                            roots: &mut *self.roots,
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
            let (
                Some(name),
                Some(offset),
                Some(size),
                Some(space),
                Some(value),
                Some(raw),
                Some(kids),
            ) = (name, offset, size, space, value, raw, kids)
            else {
                return Err(err(
                    "a node lacks one of name, offset, size, space, value, raw, children",
                ));
            };
            if raw && !value {
                return Err(err(format!("node {name:?}: a raw number without a value")));
            }
            let end = offset
                .checked_add(size)
                .ok_or_else(|| err(format!("node {name:?}: offset + size overflows")))?;
            for c in kids {
                let ce = c.offset.saturating_add(c.size);
                if c.space != space {
                    if c.offset != 0 {
                        return Err(err(format!(
                            "{:?} opens space {} at offset {:#x}, not at 0",
                            c.name, c.space, c.offset
                        )));
                    }
                    self.roots.push((c.space, c.size));
                    continue;
                }
                if c.offset < offset || ce > end {
                    return Err(err(format!(
                        "{:?} [{:#x}, {ce:#x}) lies outside its parent {name:?} [{offset:#x}, {end:#x})",
                        c.name, c.offset
                    )));
                }
            }
            Ok(Seen {
                name,
                offset,
                size,
                space,
            })
        }
    }

    struct Kids<'a> {
        st: &'a mut Stats,
        roots: &'a mut Vec<(u64, u64)>,
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
                roots: &mut *self.roots,
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
        &["path", "size", "format", "root", "spaces", "diagnostics"],
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
            &["severity", "space", "offset", "size", "message"],
            "a diagnostic",
        )?;
        u64_of(d, "space", "a diagnostic")?;
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
    if ro != 0 || rs != file_size || u64_of(root, "space", "root")? != 0 {
        return Err(format!(
            "root covers [{ro}, +{rs}), not the file's {file_size} bytes"
        ));
    }
    let spaces = doc["spaces"].as_array().ok_or("spaces is not an array")?;
    let space_size = |k: u64| -> Option<u64> { spaces.get(k as usize)?.get("size")?.as_u64() };
    if space_size(0) != Some(file_size) {
        return Err("the first space is not the file".into());
    }
    for (i, sp) in spaces.iter().enumerate() {
        let what = format!("space {i}");
        keys_are(sp, &["id", "name", "size", "from"], &what)?;
        if u64_of(sp, "id", &what)? != i as u64 {
            return Err(format!("{what}: id out of order"));
        }
        str_of(sp, "name", &what)?;
        u64_of(sp, "size", &what)?;
        let from = &sp["from"];
        if i == 0 {
            if !from.is_null() {
                return Err("space 0 (the file) comes from somewhere".into());
            }
            continue;
        }
        keys_are(from, &["space", "offset", "size", "method"], &what)?;
        str_of(from, "method", &what)?;
        let src = u64_of(from, "space", &what)?;
        if src >= i as u64 {
            return Err(format!("{what} comes from a later space {src}"));
        }
        let (oo, os) = (u64_of(from, "offset", &what)?, u64_of(from, "size", &what)?);
        let ssize = space_size(src).ok_or_else(|| format!("{what}: unknown source"))?;
        if oo.checked_add(os).is_none_or(|e| e > ssize) {
            return Err(format!("{what} comes from outside space {src}"));
        }
    }
    // Depth-first with an explicit stack: trees may be deep.
    let mut stack: Vec<(&Value, usize)> = vec![(root, 1)];
    while let Some((n, depth)) = stack.pop() {
        st.nodes += 1;
        st.depth = st.depth.max(depth);
        let pname = n.get("name").and_then(Value::as_str).unwrap_or("?");
        let psp = u64_of(n, "space", pname)?;
        let po = u64_of(n, "offset", pname)?;
        let pe = po
            .checked_add(u64_of(n, "size", pname)?)
            .ok_or_else(|| format!("{pname:?}: offset + size overflows"))?;
        for c in n["children"].as_array().into_iter().flatten() {
            let name = c.get("name").and_then(Value::as_str).unwrap_or("?");
            let what = format!("{name:?} (child of {pname:?})");
            check_node(c, &what)?;
            let co = u64_of(c, "offset", &what)?;
            let cs = u64_of(c, "size", &what)?;
            let ce = co
                .checked_add(cs)
                .ok_or_else(|| format!("{what}: offset + size overflows"))?;
            let csp = u64_of(c, "space", &what)?;
            if csp != psp {
                if co != 0 || space_size(csp) != Some(cs) {
                    return Err(format!(
                        "{what} opens space {csp} as [{co:#x}+{cs:#x}), not as the whole space"
                    ));
                }
                stack.push((c, depth + 1));
                continue;
            }
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

/// A node's `link`: `{"space", "offset", "size"}`, integers, and
/// `"path"`, a string, where a node starts there.
fn check_link(l: &Value) -> Result<(), String> {
    if l.get("path").is_some() {
        keys_are(l, &["space", "offset", "size", "path"], "a link")?;
        str_of(l, "path", "a link")?;
    } else {
        keys_are(l, &["space", "offset", "size"], "a link")?;
    }
    for k in ["space", "offset", "size"] {
        u64_of(l, k, "a link")?;
    }
    Ok(())
}

fn check_node(n: &Value, what: &str) -> Result<(), String> {
    let mut keys = vec![
        "name", "offset", "size", "space", "value", "raw", "children",
    ];
    if let Some(l) = n.get("link") {
        keys.push("link");
        check_link(l).map_err(|e| format!("{what}: {e}"))?;
    }
    keys_are(n, &keys, what)?;
    str_of(n, "name", what)?;
    u64_of(n, "offset", what)?;
    u64_of(n, "size", what)?;
    u64_of(n, "space", what)?;
    if !(n["value"].is_string() || n["value"].is_null()) {
        return Err(format!("{what}: value is neither a string nor null"));
    }
    if !(n["raw"].is_u64() || n["raw"].is_i64() || n["raw"].is_null()) {
        return Err(format!("{what}: raw is neither an integer nor null"));
    }
    if n["value"].is_null() && !n["raw"].is_null() {
        return Err(format!("{what}: a raw number without a value"));
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
"root": {"name": "r", "offset": 0, "size": 10, "space": 0, "value": null, "raw": null, "children": [
{"name": "a", "offset": 2, "size": 8, "space": 0, "value": "x", "raw": null, "children": [
{"name": "b", "offset": 9, "size": 1, "space": 0, "value": "y", "raw": 7, "children": []},
{"name": "z", "offset": 0, "size": 4, "space": 1, "value": "x", "raw": null, "children": [
{"name": "zz", "offset": 3, "size": 1, "space": 1, "value": "x", "raw": -1, "children": []}]}]}]},
"spaces": [{"id": 0, "name": "file", "size": 10, "from": null},
{"id": 1, "name": "z", "size": 4, "from": {"space": 0, "offset": 2, "size": 2, "method": "zlib"}}],
"diagnostics": [{"severity": "info", "space": 0, "offset": 0, "size": 1, "message": "m"}]}"#;
    let both = |doc: &str, size: u64| {
        (
            check(doc.as_bytes(), size),
            check_parsed(doc.as_bytes(), size),
        )
    };
    let (a, b) = both(GOOD, 10);
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((a.nodes, a.depth, a.diagnostics), (5, 4, 1));
    assert_eq!((b.nodes, b.depth, b.diagnostics), (5, 4, 1));
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
        (GOOD.replace("[]}]}]}]}", "[]}]}]}]}]"), 10, false),
        (GOOD.replace("\"raw\": 7", "\"raw\": \"7\""), 10, false),
        (
            GOOD.replace(
                "\"value\": \"y\", \"raw\": 7",
                "\"value\": null, \"raw\": 7",
            ),
            10,
            false,
        ),
        (
            GOOD.replace("\"size\": 4, \"space\": 1", "\"size\": 3, \"space\": 1"),
            10,
            false,
        ),
        (
            GOOD.replace(
                "\"offset\": 0, \"size\": 4, \"space\": 1",
                "\"offset\": 1, \"size\": 4, \"space\": 1",
            ),
            10,
            false,
        ),
        (
            GOOD.replace(
                "\"offset\": 3, \"size\": 1, \"space\": 1",
                "\"offset\": 4, \"size\": 1, \"space\": 1",
            ),
            10,
            false,
        ),
        (
            GOOD.replace(
                "\"offset\": 2, \"size\": 2, \"method\"",
                "\"offset\": 9, \"size\": 2, \"method\"",
            ),
            10,
            false,
        ),
        (
            GOOD.replace(
                ", \"space\": 0, \"offset\": 0, \"size\": 1, \"message\"",
                ", \"offset\": 0, \"size\": 1, \"message\"",
            ),
            10,
            false,
        ),
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
        s.push_str(
            r#"{"name": "n", "offset": 0, "size": 1, "space": 0, "value": null, "raw": null, "children": ["#,
        );
    }
    for _ in 0..depth {
        s.push_str("]}");
    }
    s.push_str(
        r#", "spaces": [{"id": 0, "name": "file", "size": 1, "from": null}], "diagnostics": []}"#,
    );
    let st = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || (check(s.as_bytes(), 1), check_parsed(s.as_bytes(), 1)))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(st.0.unwrap().depth, depth);
    assert_eq!(st.1.unwrap().depth, depth);
}
