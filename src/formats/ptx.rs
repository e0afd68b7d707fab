//! PTX assembly text: recognised by its `.version` directive after
//! comments and blank space; its header directives, its kernels and device
//! functions, and every line.

use std::sync::Arc;

use compact_str::CompactString;

use crate::model::{text, Builder, Fact, NodeId, Seq, Span, Step, Value};

/// Kernels and functions listed.
const MAX_LIST: u64 = 4096;

/// True for PTX text.
pub fn detect(d: &[u8]) -> bool {
    is_ptx(d)
}

/// What ends a line.
const NEWLINE: &[u8] = b"\n";

/// What follows the first `end` in `d`, if there is one.
fn after<'a>(d: &'a [u8], end: &[u8]) -> Option<&'a [u8]> {
    let n = memchr::memmem::find(d, end)?;
    d.get(n + end.len()..)
}

/// Skips whitespace and comments at the start of `d`; returns where the
/// first token starts.
fn skip_blank(d: &[u8]) -> Option<usize> {
    let mut r = d;
    for _ in 0..d.len() {
        r = match r {
            [b' ' | b'\t' | b'\r' | b'\n', rest @ ..] => rest,
            [b'/', b'/', rest @ ..] => after(rest, NEWLINE).unwrap_or(&[]),
            [b'/', b'*', rest @ ..] => after(rest, b"*/")?,
            _ => break,
        };
    }
    Some(d.len() - r.len())
}

/// True for PTX assembly text: after comments and blank space, it starts
/// with a `.version` directive.
pub fn is_ptx(d: &[u8]) -> bool {
    let head = d.get(..d.len().min(64 * 1024)).unwrap_or(d);
    match skip_blank(head) {
        Some(i) => head.get(i..).is_some_and(|r| {
            r.starts_with(b".version") && r.get(8).is_some_and(|c| matches!(c, b' ' | b'\t'))
        }),
        None => false,
    }
}

/// The lines of `d`: (start, end) pairs, line ends not included.
fn lines(d: &[u8]) -> impl Iterator<Item = (u64, u64)> + '_ {
    let mut start = 0usize;
    let mut done = false;
    let mut nl = memchr::memchr_iter(b'\n', d);
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        match nl.next() {
            Some(i) => {
                let r = (start as u64, i as u64);
                start = i + NEWLINE.len();
                Some(r)
            }
            None => {
                done = true;
                (start < d.len()).then_some((start as u64, d.len() as u64))
            }
        }
    })
}

/// The name a `.entry` or `.func` line declares.
fn declared_name(rest: &[u8]) -> Option<&[u8]> {
    let mut r = rest.trim_ascii();
    if r.first() == Some(&b'(') {
        // A return parameter list comes first.
        r = after(r, b")")?.trim_ascii();
    }
    let end = r
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')))
        .unwrap_or(r.len());
    let name = r.get(..end)?;
    (!name.is_empty()).then_some(name)
}

/// If the PTX line `t` declares a kernel (`.entry`) or a device function
/// (`.func`), possibly after linkage directives: its name and which.
fn declaration(t: &[u8]) -> Option<(String, &'static str)> {
    if memchr::memmem::find(t, b".entry").is_none() && memchr::memmem::find(t, b".func").is_none() {
        return None;
    }
    let mut rest = t;
    loop {
        rest = rest.trim_ascii();
        let end = rest
            .iter()
            .position(|c| c.is_ascii_whitespace() || *c == b'(')
            .unwrap_or(rest.len());
        let word = rest.get(..end)?;
        let kind = match word {
            b".entry" => "kernel",
            b".func" => "function",
            w if w.starts_with(b".") && !w.is_empty() => {
                rest = rest.get(end..)?;
                continue;
            }
            _ => return None,
        };
        let name = declared_name(rest.get(end..)?)?;
        return Some((text::from_bytes(name), kind));
    }
}

/// The first `.target` of a PTX module (`sm_80`), in its first 64 KiB.
pub fn target(d: &[u8]) -> Option<String> {
    let d = d.get(..d.len().min(1 << 16)).unwrap_or(d);
    for line in d.split(|&c| c == b'\n') {
        let l = text::from_bytes(line);
        let l = l.trim();
        if let Some(rest) = l.strip_prefix(".target") {
            let t = rest
                .split(|c: char| c == ',' || c.is_whitespace())
                .find(|w| !w.is_empty())?;
            return Some(t.to_string());
        }
    }
    None
}

/// Decodes the PTX text in `at` under `node`: its `.version`,
/// `.target` and `.address_size`, its kernels and functions, and its lines.
pub fn parse(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let target = target(b.bytes(at)).map(CompactString::from);
    b.fact(node, Fact::DeviceCode { target });
    let d = b.bytes(at);
    // The text ends at its first NUL (PTX has none): what follows is the
    // terminator and padding a container adds.
    let text_len = memchr::memchr(0, d).unwrap_or(d.len()) as u64;
    let body = d.get(..text_len as usize).unwrap_or(&[]);
    let mut decls: Vec<(u64, u64, String, &'static str)> = Vec::new();
    let mut seen = [false; 3];
    for (s, e) in lines(body) {
        let line = body.get(s as usize..e as usize).unwrap_or(&[]);
        let t = line.trim_ascii();
        if !t.starts_with(b".") {
            continue;
        }
        for (seen, dir) in seen
            .iter_mut()
            .zip([".version", ".target", ".address_size"])
        {
            if !*seen && t.starts_with(dir.as_bytes()) {
                *seen = true;
                let v = t.get(dir.len()..).unwrap_or(&[]);
                let v = v.split(|&c| c == b'/').next().unwrap_or(&[]);
                b.leaf(
                    node,
                    dir,
                    at.offset + s,
                    e - s,
                    Value::str_bytes(v.trim_ascii()),
                );
            }
        }
        if (decls.len() as u64) < MAX_LIST {
            if let Some((name, kind)) = declaration(t) {
                decls.push((s, e, name, kind));
            }
        }
    }
    if let (Some(first), Some(last)) = (decls.first(), decls.last()) {
        let (lo, hi) = (first.0, last.1);
        let n_k = decls.iter().filter(|k| k.3 == "kernel").count();
        let g = b.group(node, "functions", at.offset + lo, hi - lo);
        b.set_value(g, format!("{n_k} kernels, {} functions", decls.len() - n_k));
        let mut used = std::collections::HashSet::new();
        for (s, e, name, kind) in &decls {
            let mut nm = name.clone();
            if !used.insert(nm.clone()) {
                nm = format!("{name} @{s}");
            }
            b.leaf(g, nm, at.offset + s, e - s, *kind);
        }
    }
    // The lines, one a node, built when opened: every line ends at its
    // newline (part of the line's node, not of its value) or at the end of
    // the text.
    let end = at.offset + text_len;
    let data = b.data();
    let line_end = move |d: &[u8], at: u64| -> u64 {
        let rest = d
            .get(usize::try_from(at).unwrap_or(usize::MAX)..usize::try_from(end).unwrap_or(0))
            .unwrap_or(&[]);
        memchr::memchr(b'\n', rest).map_or(end, |n| at + n as u64)
    };
    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        let e = line_end(b.data(), at);
        let t = b.slice(at, e - at);
        let mut name = CompactString::const_new("line ");
        name.push_str(itoa::Buffer::new().format(i + 1));
        let next = (e + NEWLINE.len() as u64).min(end).max(e);
        b.leaf(p, name, at, next - at, Value::str_bytes(t));
        Some(next)
    });
    let seq = Seq::scan(
        at.offset,
        end,
        u64::MAX,
        |at| Some((line_end(data, at) + 1).min(end)),
        step,
    );
    let n = seq.count();
    let l = b.group(node, "lines", at.offset, text_len);
    b.set_value(l, format!("{n} lines"));
    b.seq(l, seq);
    if text_len < at.len {
        let after = at.skip(text_len);
        let rest = after.len;
        let tail = b.slice(after.offset, rest);
        if text::looks_zero(tail) {
            let v = if rest > 1 << 20 {
                text::zero_note(rest)
            } else {
                format!("{rest} NUL bytes")
            };
            b.leaf(node, "terminator", after.offset, rest, v);
        } else {
            b.leaf(
                node,
                "after the text",
                after.offset,
                rest,
                text::hex(tail, 16),
            );
            b.warn(
                after.offset,
                rest,
                "bytes after the PTX text's NUL are not NUL",
            );
        }
    }
    b.set_value(node, "PTX text");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_is_recognised_by_its_version_directive() {
        assert!(is_ptx(
            b"//\n// Generated\n//\n\n.version 8.0\n.target sm_90\n"
        ));
        assert!(is_ptx(b"/* c */ .version 7.0\n"));
        assert!(!is_ptx(b".versionx 7.0"));
        assert!(!is_ptx(b"hello world\n"));
        assert!(!is_ptx(b"/* never closed .version 7.0"));
    }

    #[test]
    fn ptx_declarations() {
        assert_eq!(
            declaration(b".visible .entry kern(").map(|d| d.0),
            Some("kern".to_string())
        );
        assert_eq!(
            declaration(b".visible .func  (.param .b32 r) add(").map(|d| (d.0, d.1)),
            Some(("add".to_string(), "function"))
        );
        assert_eq!(declaration(b"call.uni (r), add, (x);"), None);
        assert_eq!(declaration(b"// .entry in a comment"), None);
    }

    #[test]
    fn long_ptx_lines_are_grouped() {
        let mut t = b".version 8.0\n.target sm_90\n".to_vec();
        for i in 0..2500 {
            t.extend_from_slice(format!("// line {i}\n").as_bytes());
        }
        let mut tree = crate::formats::build_from_bytes(t.clone());
        assert_eq!(tree.format(), Some(crate::formats::Format::Ptx));
        let lines = tree.find_path("lines").unwrap();
        assert_eq!(tree.value_text(lines).as_deref(), Some("2502 lines"));
        let groups = tree.children(lines);
        assert_eq!(groups.len(), 3);
        assert_eq!(tree.name(groups[2]), "[2000..2502)");
        let last = tree.children(groups[2]);
        assert_eq!(last.len(), 502);
        assert_eq!(
            tree.value_text(last[501]).as_deref(),
            Some("\"// line 2499\"")
        );
        // The last line's node holds its newline.
        let end = tree.node(last[501]).unwrap().end();
        assert_eq!(end, t.len() as u64);
    }
}
