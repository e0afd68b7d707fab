//! No import cycle among the files of `src`: a file that uses another
//! (through a `use` line or a path in its code) is never used back by it,
//! directly or through others; any circle fails, naming its files and one
//! way round it. Paths are followed to the file that defines
//! what they name, through the `pub use` re-exports of module files, so that
//! a module's facade (`model::Builder`) counts as a use of the file behind it
//! (`model/builder.rs`), not of the facade.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file: its module path and what it refers to.
struct File {
    rel: String,
    module: Vec<String>,
    text: String,
}

pub(super) fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut rd: Vec<_> = std::fs::read_dir(dir)
        .expect("src is readable")
        .flatten()
        .map(|e| e.path())
        .collect();
    rd.sort();
    for p in rd {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `src` (`model/builder.rs`: model, builder).
fn module_of(rel: &Path) -> Vec<String> {
    let mut m: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib")) {
        m.pop();
    }
    m
}

/// The text with comments, string and character literals blanked, so that
/// only code is read.
fn code_only(s: &str) -> String {
    String::from_utf8_lossy(&blank(s)).into_owned()
}

/// The text with comments, strings and character literals blanked to
/// spaces, line breaks kept, so that braces count and lines stay in place.
pub(super) fn blank(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        let start = i;
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some((lead, hashes)) = raw_string(b, i) {
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            i += lead + hashes + 1;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b[i] == b'\'' {
            // A character literal ('a', '\n', '{'), not a lifetime.
            let lit = rest.len() >= 3
                && (rest[1] == b'\\' || rest.get(2) == Some(&b'\'') || rest[1] >= 0x80);
            if lit {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            } else {
                i += 1;
                continue;
            }
        } else {
            i += 1;
            continue;
        }
        wipe(&mut out, start, i);
    }
    out
}

/// A raw string starting at `i` (`r"`, `r#"`, `br"`): the length of its
/// `b`/`r` lead and its number of `#`.
fn raw_string(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && is_ident(b[i - 1]) {
        return None;
    }
    let rest = &b[i..];
    let lead = if rest.starts_with(b"br") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        return None;
    };
    let hashes = rest[lead..].iter().take_while(|&&c| c == b'#').count();
    (rest.get(lead + hashes) == Some(&b'"')).then_some((lead, hashes))
}

/// The code without its `#[cfg(test)]` modules: unit tests may build
/// trees through the registry that the code under test sits below.
pub(super) fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        // The item it marks: through its braces, or to its semicolon.
        let (brace, semi) = (after.find('{'), after.find(';'));
        let end = match (brace, semi) {
            (Some(b), Some(s)) if s < b => s + 1,
            (Some(b), _) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(s)) => s + 1,
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The paths of one use tree (`a::{b, c::{d, e as f}}`), each with the
/// name it binds (the last segment, or its alias).
fn expand_tree(prefix: &[String], t: &str, out: &mut Vec<(Vec<String>, String)>) {
    let t = t.trim();
    if t.is_empty() {
        return;
    }
    if let Some(open) = t.find('{') {
        let head: Vec<String> = t[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let inner = &t[open + 1..t.rfind('}').unwrap_or(t.len())];
        let mut p = prefix.to_vec();
        p.extend(head);
        for part in split_top(inner) {
            expand_tree(&p, part, out);
        }
        return;
    }
    let (path, alias) = match t.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
        None => (t, None),
    };
    let mut p = prefix.to_vec();
    p.extend(path.split("::").map(str::trim).map(String::from));
    if p.last().is_some_and(|s| s == "self") {
        p.pop();
    }
    let bind = alias.unwrap_or_else(|| p.last().cloned().unwrap_or_default());
    out.push((p, bind));
}

/// `a, b::{c, d}, e` split at the commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Every `use …;` of a file's code, as (path, bound name, is `pub`).
fn use_lines(code: &str) -> Vec<(Vec<String>, String, bool)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = find_word(rest, "use") {
        let before = rest[..i].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')');
        let after = &rest[i + 3..];
        let Some(end) = after.find(';') else { break };
        let mut paths = Vec::new();
        expand_tree(&[], &after[..end], &mut paths);
        for (p, bind) in paths {
            out.push((p, bind, public));
        }
        rest = &after[end..];
    }
    out
}

/// Where `word` stands alone in `s`.
fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s[from..].find(word).map(|i| i + from) {
        let before_ok = i == 0 || !is_ident(b[i - 1]);
        let after_ok = b.get(i + word.len()).is_none_or(|&c| !is_ident(c));
        if before_ok && after_ok {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

pub(super) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Every `a::b::c` path in code, as its segments.
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if is_ident(b[i]) && (i == 0 || !is_ident(b[i - 1]) && b[i - 1] != b':') {
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let s = j;
                while j < b.len() && is_ident(b[j]) {
                    j += 1;
                }
                segs.push(code[s..j].to_string());
                if b[j..].starts_with(b"::") && b.get(j + 2).is_some_and(|&c| is_ident(c)) {
                    j += 2;
                } else {
                    break;
                }
            }
            // `a::b::{…}` and `a::b::*` are use trees, read by use_lines.
            if segs.len() > 1 && !b[j..].starts_with(b"::") {
                out.push(segs);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

struct Crate {
    files: Vec<File>,
    /// Module path to file index.
    by_module: BTreeMap<Vec<String>, usize>,
    /// For each module file, its `pub use` names: bound name to the path
    /// they come from (absolute).
    reexports: Vec<BTreeMap<String, Vec<String>>>,
}

impl Crate {
    /// `path` as written in the file of module `here`, made absolute.
    fn absolute(&self, here: &[String], path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?.as_str();
        let mut base: Vec<String> = match first {
            "crate" => Vec::new(),
            "super" | "self" => here.to_vec(),
            _ => {
                // A child module of this one (2018 paths), else not ours.
                let mut child = here.to_vec();
                child.push(first.to_string());
                if self.by_module.contains_key(&child) {
                    let mut p = here.to_vec();
                    p.extend(path.iter().cloned());
                    return Some(p);
                }
                return None;
            }
        };
        let mut segs = path.iter().peekable();
        if first == "crate" || first == "self" {
            segs.next();
        }
        while segs.peek().is_some_and(|s| *s == "super") {
            segs.next();
            base.pop()?;
        }
        base.extend(segs.cloned());
        Some(base)
    }

    /// The file that defines what the absolute `path` names.
    fn resolve(&self, path: &[String], depth: u32) -> Option<usize> {
        if depth > 16 {
            return None;
        }
        // The longest prefix that is a module file.
        let mut k = path.len();
        while k > 0 && !self.by_module.contains_key(&path[..k]) {
            k -= 1;
        }
        let file = *self.by_module.get(&path[..k])?;
        if let Some(next) = path.get(k) {
            if let Some(src) = self.reexports[file].get(next) {
                let mut p = src.clone();
                p.extend(path[k + 1..].iter().cloned());
                if let Some(f) = self.resolve(&p, depth + 1) {
                    return Some(f);
                }
            }
        }
        Some(file)
    }
}

fn load() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rs_files(&src, &mut paths);
    let mut files = Vec::new();
    for p in paths {
        let rel = p.strip_prefix(&src).expect("under src").to_path_buf();
        // The binary is a crate of its own that nothing imports.
        if rel == Path::new("main.rs") || rel.starts_with("bin") {
            continue;
        }
        let text = without_tests(&code_only(&std::fs::read_to_string(&p).expect("readable")));
        files.push(File {
            rel: rel.to_string_lossy().to_string(),
            module: module_of(&rel),
            text,
        });
    }
    let by_module = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let mut c = Crate {
        files,
        by_module,
        reexports: Vec::new(),
    };
    let mut reexports = Vec::new();
    for f in &c.files {
        let mut m = BTreeMap::new();
        for (p, bind, public) in use_lines(&f.text) {
            if public {
                if let Some(abs) = c.absolute(&f.module, &p) {
                    m.insert(bind, abs);
                }
            }
        }
        reexports.push(m);
    }
    c.reexports = reexports;
    c
}

/// Each file's uses of the other files.
fn graph(c: &Crate) -> Vec<BTreeMap<usize, String>> {
    let mut g = vec![BTreeMap::new(); c.files.len()];
    for (i, f) in c.files.iter().enumerate() {
        // Names bound by use lines: `elf` in `use super::elf;`.
        let mut bound: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut targets = Vec::new();
        for (p, bind, _) in use_lines(&f.text) {
            if let Some(abs) = c.absolute(&f.module, &p) {
                bound.insert(bind, abs.clone());
                // `use super::elf;` names a module: what the code then
                // takes from it (`elf::parse`) is the use.
                if !c.by_module.contains_key(&abs) {
                    targets.push(abs);
                }
            }
        }
        for p in code_paths(&f.text) {
            let first = p[0].as_str();
            if matches!(first, "crate" | "super" | "self") {
                if let Some(abs) = c.absolute(&f.module, &p) {
                    targets.push(abs);
                }
            } else if let Some(base) = bound.get(first) {
                let mut abs = base.clone();
                abs.extend(p[1..].iter().cloned());
                targets.push(abs);
            } else if let Some(abs) = c.absolute(&f.module, &p) {
                targets.push(abs);
            }
        }
        for t in targets {
            if let Some(j) = c.resolve(&t, 0) {
                if j != i {
                    g[i].entry(j).or_insert_with(|| t.join("::"));
                }
            }
        }
    }
    g
}

/// The strongly connected components of more than one file (Tarjan).
fn cycles(g: &[BTreeMap<usize, String>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        g: &'a [BTreeMap<usize, String>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T<'_>, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in t.g[v].keys() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort_unstable();
                t.out.push(comp);
            }
        }
    }
    let n = g.len();
    let mut t = T {
        g,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

/// One path around a component, for the message: from its first file,
/// the shortest way back to it.
fn a_cycle(g: &[BTreeMap<usize, String>], comp: &[usize]) -> Vec<usize> {
    let inside: BTreeSet<usize> = comp.iter().copied().collect();
    let start = comp[0];
    let mut prev = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in g[v].keys() {
            if !inside.contains(&w) {
                continue;
            }
            if w == start {
                let mut chain = Vec::new();
                let mut x = v;
                while x != start {
                    chain.push(x);
                    x = prev[&x];
                }
                chain.reverse();
                let mut path = vec![start];
                path.extend(chain);
                path.push(start);
                return path;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}

#[test]
fn no_import_cycle_among_the_files_of_src() {
    let c = load();
    let g = graph(&c);
    // The reader itself: known edges are found.
    let idx = |rel: &str| {
        c.files
            .iter()
            .position(|f| f.rel == rel)
            .unwrap_or_else(|| panic!("{rel} not read"))
    };
    assert!(g[idx("targets.rs")].contains_key(&idx("model/tree.rs")));
    assert!(g[idx("formats/registry.rs")].contains_key(&idx("formats/elf/mod.rs")));
    let found = cycles(&g);
    let mut msg = String::new();
    for comp in &found {
        let names: Vec<&str> = comp.iter().map(|&i| c.files[i].rel.as_str()).collect();
        let path = a_cycle(&g, comp);
        let steps: Vec<String> = path
            .windows(2)
            .map(|w| format!("{} uses {}", c.files[w[0]].rel, g[w[0]][&w[1]]))
            .collect();
        msg.push_str(&format!(
            "\n{} files in a circle: {}\n  for example: {}",
            names.len(),
            names.join(", "),
            steps.join("; ")
        ));
    }
    assert!(msg.is_empty(), "import cycles in src:{msg}");
}

#[test]
fn the_reader_sees_paths_through_reexports_and_comments() {
    let code = code_only("use a::{b, c::{d as e}}; // use x::y;\nlet s = \"crate::q\";");
    let code = without_tests(&format!(
        "{code}\n#[cfg(test)]\nmod tests {{ use crate::z; fn f() {{}} }}"
    ));
    let uses = use_lines(&code);
    let names: Vec<String> = uses.iter().map(|u| u.0.join("::")).collect();
    assert_eq!(names, ["a::b", "a::c::d"]);
    assert_eq!(uses[1].1, "e");
    assert!(code_paths(&code).iter().all(|p| p[0] != "crate"));
    assert!(!code.contains("crate::z"));
    let mut g = vec![BTreeMap::new(); 3];
    g[0].insert(1, String::new());
    g[1].insert(2, String::new());
    g[2].insert(0, String::new());
    assert_eq!(cycles(&g), vec![vec![0, 1, 2]]);
    assert_eq!(a_cycle(&g, &[0, 1, 2]), vec![0, 1, 2, 0]);
}
