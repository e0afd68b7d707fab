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

/// Checks a whole document for a file of `file_size` bytes.
pub fn check(json: &[u8], file_size: u64) -> Result<Stats, String> {
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
