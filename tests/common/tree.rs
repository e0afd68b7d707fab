//! Walking a [`Tree`] the library built: children (with large arrays'
//! groups opened), children by name, values and diagnostics.

use fwview::model::{NodeId, Severity, Tree};

/// The tree of `bytes` with every lazy node built.
pub fn expanded(bytes: Vec<u8>) -> Tree {
    let mut t = fwview::formats::build_from_bytes(bytes);
    t.expand_all();
    t
}

/// Children of `id`, with the `[a..b)` groups of large arrays opened.
pub fn kids(t: &mut Tree, id: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    for k in t.children(id) {
        let n = t.name(k);
        if n.starts_with('[') && n.contains("..") && n.ends_with(')') {
            out.extend(kids(t, k));
        } else {
            out.push(k);
        }
    }
    out
}

/// The child of `id` named `name`.
pub fn child(t: &mut Tree, id: NodeId, name: &str) -> Option<NodeId> {
    t.children(id).into_iter().find(|&k| t.name(k) == name)
}

/// The node at `path` (names separated by `/`) under `id`; a missing one
/// fails the test.
pub fn at(t: &mut Tree, id: NodeId, path: &str) -> NodeId {
    path.split('/').fold(id, |n, p| {
        child(t, n, p).unwrap_or_else(|| panic!("{} has no {p}", t.path_string(n)))
    })
}

/// The value of `id` as shown, or "".
pub fn value(t: &Tree, id: NodeId) -> String {
    t.value_text(id).unwrap_or_default()
}

/// The number the value of `id`'s child `name` starts with.
pub fn val(t: &mut Tree, id: NodeId, name: &str) -> u64 {
    let c = child(t, id, name).unwrap_or_else(|| panic!("no {name} under {}", t.name(id)));
    super::json::lead(&value(t, c))
}

/// The messages of the errors.
pub fn errors(t: &Tree) -> Vec<String> {
    t.diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

/// The messages of every warning and error (infos left out: they name
/// bytes no structure describes, which a valid file may have).
pub fn warnings_and_errors(t: &Tree) -> Vec<String> {
    t.diagnostics()
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .map(|d| d.message.clone())
        .collect()
}

/// Whether a diagnostic of severity `sev` says `text`.
pub fn has_diag(t: &Tree, sev: Severity, text: &str) -> bool {
    t.diagnostics()
        .iter()
        .any(|d| d.severity == sev && d.message.contains(text))
}

/// The label after `[i] `.
pub fn label_name(n: &str) -> &str {
    n.split_once("] ").map_or("", |x| x.1)
}
