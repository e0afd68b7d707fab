//! Walking the tree that `fwview --json` prints: children, names, values,
//! ranges, paths and diagnostics of a `serde_json::Value`.

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use serde_json::Value;

/// `fwview --json PATH`, parsed; fails the test if fwview fails.
pub fn json_of(path: &Path) -> Value {
    let out = Command::cargo_bin("fwview")
        .expect("the fwview binary")
        .arg("--json")
        .arg(path)
        .output()
        .expect("fwview runs");
    assert!(
        out.status.success(),
        "fwview --json {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("--json prints JSON")
}

/// The JSON of a tree built by the library (no process).
pub fn json_of_tree(t: &mut fwview::model::Tree) -> Value {
    let mut v = Vec::new();
    fwview::export::json(t, "x", &mut v).expect("the export writes");
    serde_json::from_slice(&v).expect("the export is JSON")
}

/// The JSON of the tree the library builds from `bytes`.
pub fn json_of_bytes(bytes: Vec<u8>) -> Value {
    json_of_tree(&mut fwview::formats::build_from_bytes(bytes))
}

/// Every child, gap leaves too.
pub fn all_kids(n: &Value) -> &Vec<Value> {
    n["children"].as_array().expect("children")
}

/// The children that are structure: gap leaves (bytes no structure names:
/// padding, syntax, …) are left out.
pub fn kids(n: &Value) -> Vec<&Value> {
    n["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter(|c| {
            !(c["children"].as_array().is_some_and(|a| a.is_empty())
                && c["name"]
                    .as_str()
                    .is_some_and(|s| fwview::model::GAP_NAMES.contains(&s)))
        })
        .collect()
}

pub fn name(n: &Value) -> &str {
    n["name"].as_str().expect("a name")
}

/// The value as shown, or "" for a node without one.
pub fn val(n: &Value) -> &str {
    n["value"].as_str().unwrap_or("")
}

pub fn off(n: &Value) -> u64 {
    n["offset"].as_u64().expect("an offset")
}

pub fn size(n: &Value) -> u64 {
    n["size"].as_u64().expect("a size")
}

/// `(offset, size)`.
pub fn range(n: &Value) -> (u64, u64) {
    (off(n), size(n))
}

/// The child named `child`, if there is one.
pub fn find<'a>(n: &'a Value, child: &str) -> Option<&'a Value> {
    n["children"]
        .as_array()
        .expect("children")
        .iter()
        .find(|k| k["name"] == child)
}

pub fn has_child(n: &Value, child: &str) -> bool {
    find(n, child).is_some()
}

/// The child named `child`; fails the test, listing the children, if there
/// is none.
pub fn child<'a>(n: &'a Value, child: &str) -> &'a Value {
    find(n, child).unwrap_or_else(|| {
        let names: Vec<&str> = kids(n).into_iter().map(name).collect();
        panic!("no {child:?} under {} (has {names:?})", n["name"])
    })
}

/// The node at `path` (names joined by `/`) under `n`.
pub fn path<'a>(n: &'a Value, path: &str) -> &'a Value {
    path.split('/').fold(n, child)
}

/// The items of a list node, with its `[a..b)` groups opened.
pub fn items(n: &Value) -> Vec<&Value> {
    let mut v = Vec::new();
    for k in kids(n) {
        let nm = name(k);
        if nm.starts_with('[') && nm.contains("..") && nm.ends_with(')') {
            v.extend(items(k));
        } else {
            v.push(k);
        }
    }
    v
}

/// The first node named `name` at or below `n`, depth first.
pub fn find_deep<'a>(n: &'a Value, name: &str) -> Option<&'a Value> {
    if n["name"] == name {
        return Some(n);
    }
    n["children"]
        .as_array()?
        .iter()
        .find_map(|c| find_deep(c, name))
}

/// The number a value starts with: decimal, or hex after `0x` (a leading
/// quote skipped).
pub fn lead(s: &str) -> u64 {
    let s = s.trim_start_matches('"');
    if let Some(h) = s.strip_prefix("0x") {
        let end = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
        return u64::from_str_radix(&h[..end], 16).unwrap_or_else(|_| panic!("no hex in {s:?}"));
    }
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s[..end]
        .parse()
        .unwrap_or_else(|_| panic!("no number in {s:?}"))
}

/// `s` without the quotes around it, if it has them.
pub fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

/// The number a node's value starts with.
pub fn num(n: &Value) -> u64 {
    lead(val(n))
}

/// Every diagnostic: (severity, offset, size, message).
pub fn diags(j: &Value) -> Vec<(String, u64, u64, String)> {
    j["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["severity"].as_str().unwrap_or("").to_string(),
                d["offset"].as_u64().unwrap_or(0),
                d["size"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The messages of the diagnostics of severity `sev`.
pub fn messages<'a>(j: &'a Value, sev: &str) -> Vec<&'a str> {
    j["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == sev)
        .map(|d| d["message"].as_str().unwrap_or(""))
        .collect()
}

/// The error messages.
pub fn errors(j: &Value) -> Vec<String> {
    messages(j, "error").into_iter().map(String::from).collect()
}

/// Whether a diagnostic of severity `sev` says `text`.
pub fn has_diag(j: &Value, sev: &str, text: &str) -> bool {
    messages(j, sev).iter().any(|m| m.contains(text))
}

/// Every child's range lies inside its parent's (a child that starts a
/// derived byte space has offsets in that space).
pub fn check_nesting(n: &Value) {
    let (o, s) = range(n);
    for c in kids(n) {
        let (co, cs) = range(c);
        assert!(
            c["space"] != n["space"] || co >= o && co + cs <= o + s,
            "{} escapes {}",
            c["name"],
            n["name"]
        );
        check_nesting(c);
    }
}

/// The diagnostics of severity `sev`: (offset, message).
pub fn located(j: &Value, sev: &str) -> Vec<(u64, String)> {
    diags(j)
        .into_iter()
        .filter(|d| d.0 == sev)
        .map(|d| (d.1, d.3))
        .collect()
}

/// `fwview --json` of `bytes` written to a file named `file` (the name
/// can matter: some formats are known by their extension).
pub fn json_of_written(bytes: &[u8], file: &str) -> Value {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let p = dir.path().join(file);
    std::fs::write(&p, bytes).expect("the file is written");
    json_of(&p)
}
