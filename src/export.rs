//! Headless output: the tree as JSON or indented text, and the bytes of one
//! node. Both walk the tree building lazy children on the way and dropping
//! them after, so even a table of millions is printed in bounded memory.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;

use crate::model::{text, Tree};

/// Writes `s` as a JSON string. Besides what JSON requires, every character
/// that could act on a terminal (C1 controls, bidi overrides) is written as
/// a `\u` escape, so the output is safe to print as it is.
pub fn json_str(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<String> = match c {
            '"' => Some("\\\"".into()),
            '\\' => Some("\\\\".into()),
            '\n' => Some("\\n".into()),
            '\r' => Some("\\r".into()),
            '\t' => Some("\\t".into()),
            c if text::is_unsafe(c) => Some(format!("\\u{:04x}", c as u32)),
            _ => None,
        };
        if let Some(e) = esc {
            out.write_all(s.as_bytes().get(start..i).unwrap_or_default())?;
            out.write_all(e.as_bytes())?;
            start = i + c.len_utf8();
        }
    }
    out.write_all(s.as_bytes().get(start..).unwrap_or_default())?;
    out.write_all(b"\"")
}

/// Writes the JSON document of the contract: path, size, format, the whole
/// tree under `root`, and the diagnostics.
pub fn json(tree: &mut Tree, path: &str, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"{\"path\": ")?;
    json_str(out, path)?;
    write!(out, ", \"size\": {}, \"format\": ", tree.data().len())?;
    json_str(out, tree.format())?;
    out.write_all(b",\n\"root\": ")?;
    let mut err: Option<io::Error> = None;
    // One flag a level: whether the next child written there is the first.
    let mut first: Vec<bool> = Vec::new();
    tree.walk(&mut |t, id, _depth, entering| {
        if err.is_some() {
            return;
        }
        let r = (|| -> io::Result<()> {
            if entering {
                let n = t.node(id);
                if let Some(f) = first.last_mut() {
                    if !std::mem::replace(f, false) {
                        out.write_all(b",")?;
                    }
                    out.write_all(b"\n")?;
                }
                first.push(true);
                out.write_all(b"{\"name\": ")?;
                json_str(out, &n.name)?;
                write!(
                    out,
                    ", \"offset\": {}, \"size\": {}, \"value\": ",
                    n.offset, n.size
                )?;
                match &n.value {
                    Some(v) => json_str(out, v)?,
                    None => out.write_all(b"null")?,
                }
                out.write_all(b", \"children\": [")
            } else {
                first.pop();
                out.write_all(b"]}")
            }
        })();
        if let Err(e) = r {
            err = Some(e);
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    out.write_all(b",\n\"diagnostics\": [")?;
    for (i, d) in tree.diagnostics().iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write!(
            out,
            "\n{{\"severity\": \"{}\", \"offset\": {}, \"size\": {}, \"message\": ",
            d.severity.as_str(),
            d.offset,
            d.size
        )?;
        json_str(out, &d.message)?;
        out.write_all(b"}")?;
    }
    out.write_all(b"]}\n")
}

/// One tree line: indent, name, `[0x…+0x…]`, value.
pub fn tree_line(name: &str, offset: u64, size: u64, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("{name} [0x{offset:x}+0x{size:x}] {v}"),
        None => format!("{name} [0x{offset:x}+0x{size:x}]"),
    }
}

/// Writes the tree as indented text, one node a line.
pub fn text_tree(tree: &mut Tree, out: &mut dyn Write) -> io::Result<()> {
    let mut err: Option<io::Error> = None;
    tree.walk(&mut |t, id, depth, entering| {
        if !entering || err.is_some() {
            return;
        }
        let n = t.node(id);
        let line = tree_line(&n.name, n.offset, n.size, n.value.as_deref());
        if let Err(e) = writeln!(out, "{:indent$}{line}", "", indent = depth * 2) {
            err = Some(e);
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Writes the diagnostics as lines for stderr.
pub fn diagnostics_text(tree: &Tree, out: &mut dyn Write) -> io::Result<()> {
    for d in tree.diagnostics() {
        writeln!(
            out,
            "{}: [0x{:x}+0x{:x}] {}",
            d.severity.as_str(),
            d.offset,
            d.size,
            d.message
        )?;
    }
    Ok(())
}

/// Why an extraction failed.
#[derive(Debug)]
pub enum ExtractError {
    NoSuchNode(String),
    Exists(String),
    Io(io::Error),
}

impl std::fmt::Display for ExtractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtractError::NoSuchNode(p) => write!(f, "no node at path {}", text::clean(p)),
            ExtractError::Exists(p) => {
                write!(f, "{} exists; pass --force to overwrite it", text::clean(p))
            }
            ExtractError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Writes the bytes of the node at `node_path` to `out_path` (`-` for
/// standard output). Only that path is written; an existing file is kept
/// unless `force` is set. Returns the number of bytes written.
pub fn extract(
    tree: &mut Tree,
    node_path: &str,
    out_path: &Path,
    force: bool,
) -> Result<u64, ExtractError> {
    let id = tree
        .find_path(node_path)
        .ok_or_else(|| ExtractError::NoSuchNode(node_path.to_string()))?;
    let n = tree.node(id);
    let bytes = tree
        .data()
        .get(n.offset as usize..n.end() as usize)
        .unwrap_or_default();
    write_bytes(bytes, out_path, force)?;
    Ok(bytes.len() as u64)
}

/// Writes `bytes` to `out_path` (`-` for standard output), refusing to
/// replace an existing file unless `force` is set.
pub fn write_bytes(bytes: &[u8], out_path: &Path, force: bool) -> Result<(), ExtractError> {
    if out_path.as_os_str() == "-" {
        return copy_out(bytes, &mut io::stdout().lock()).map_err(ExtractError::Io);
    }
    let mut opts = OpenOptions::new();
    opts.write(true);
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    let mut f = opts.open(out_path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            ExtractError::Exists(out_path.display().to_string())
        } else {
            ExtractError::Io(e)
        }
    })?;
    if let Err(e) = copy_out(bytes, &mut f) {
        // No half-written file is left behind: remove what we created.
        if !force {
            drop(f);
            let _ = std::fs::remove_file(out_path);
        }
        return Err(ExtractError::Io(e));
    }
    Ok(())
}

/// Writes `bytes` through a buffer. The bytes may be a map of a file that
/// was truncated since: a copy in user space then reads zeros (see
/// `crate::guard`), where handing the mapped pages to write(2) itself fails
/// with EFAULT ("Bad address").
fn copy_out(bytes: &[u8], out: &mut dyn Write) -> io::Result<()> {
    const CHUNK: usize = 1 << 20;
    let mut buf = vec![0u8; CHUNK.min(bytes.len())];
    for c in bytes.chunks(CHUNK) {
        let b = buf.get_mut(..c.len()).unwrap_or_default();
        b.copy_from_slice(c);
        out.write_all(b)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_terminal_safe() {
        let mut v = Vec::new();
        json_str(&mut v, "a\"b\\c\n\u{1b}\u{85}\u{202e}é").unwrap();
        let s = String::from_utf8(v).unwrap();
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u001b\\u0085\\u202eé\"");
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\"b\\c\n\u{1b}\u{85}\u{202e}é");
    }

    #[test]
    fn json_of_raw_bytes_follows_the_contract() {
        let mut t = crate::formats::build_from_bytes(vec![1, 2, 3]);
        let mut v = Vec::new();
        json(&mut t, "x", &mut v).unwrap();
        let j: serde_json::Value = serde_json::from_slice(&v).unwrap();
        assert_eq!(j["format"], "raw");
        assert_eq!(j["size"], 3);
        assert_eq!(j["root"]["offset"], 0);
        assert_eq!(j["root"]["size"], 3);
        assert_eq!(j["root"]["children"].as_array().unwrap().len(), 0);
        assert_eq!(j["diagnostics"].as_array().unwrap().len(), 0);
    }
}
