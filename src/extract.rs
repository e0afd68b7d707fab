//! `--extract`: the bytes of one node, written to a file or to standard
//! output, never over a file that exists unless asked.

#![forbid(unsafe_code)]

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;

use crate::model::{text, Tree};

/// Why an extraction failed.
#[derive(Debug)]
pub enum ExtractError {
    /// No node has this path.
    NoSuchNode(String),
    /// The output is a file that exists, and replacing it was not asked.
    Exists(String),
    /// The output is a directory.
    IsDir(String),
    /// Opening or writing the output failed.
    Write { path: String, err: io::Error },
}

impl std::fmt::Display for ExtractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtractError::NoSuchNode(p) => write!(f, "no node at path {}", text::clean(p)),
            ExtractError::Exists(p) => {
                write!(f, "{} exists; pass --force to overwrite it", text::clean(p))
            }
            ExtractError::IsDir(p) => write!(
                f,
                "{} is a directory; give the name of a file to write",
                text::clean(p)
            ),
            ExtractError::Write { path, err } => {
                write!(f, "cannot write {}: {err}", text::clean(path))
            }
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
    let bytes = tree.node_bytes(id);
    write_bytes(bytes, out_path, force)?;
    Ok(bytes.len() as u64)
}

/// Writes `bytes` to `out_path` (`-` for standard output). A regular file
/// that exists is replaced only if `force` is set; a directory never is;
/// a device or a pipe (`/dev/null`, a FIFO) is written to, as a shell's
/// `>` does, since nothing is lost.
pub fn write_bytes(bytes: &[u8], out_path: &Path, force: bool) -> Result<(), ExtractError> {
    let shown = || out_path.display().to_string();
    let failed = |err| ExtractError::Write { path: shown(), err };
    if out_path.as_os_str() == "-" {
        return copy_out(bytes, &mut io::stdout().lock()).map_err(|err| ExtractError::Write {
            path: "standard output".into(),
            err,
        });
    }
    let existing = std::fs::metadata(out_path).ok();
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(ExtractError::IsDir(shown()));
    }
    let regular = existing.as_ref().map(|m| m.is_file());
    let mut opts = OpenOptions::new();
    opts.write(true);
    match regular {
        // A device or a pipe: written to as it is.
        Some(false) => {}
        _ if force => {
            opts.create(true).truncate(true);
        }
        _ => {
            opts.create_new(true);
        }
    }
    let mut f = opts.open(out_path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            ExtractError::Exists(shown())
        } else {
            failed(e)
        }
    })?;
    if let Err(e) = copy_out(bytes, &mut f) {
        // No half-written file is left behind: remove what we created.
        if regular.is_none() {
            drop(f);
            let _ = std::fs::remove_file(out_path);
        }
        return Err(failed(e));
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
