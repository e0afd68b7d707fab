//! What the explorer shows: one parsed file. The document is the file's
//! path (kept as the operating system names it, so that a name that is
//! not UTF-8 still opens, reloads and keys its marks), its mapped bytes
//! and the tree parsed from them. View state lives in the explorer's `App`;
//! a reload swaps the document under it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::{Options, Source, Tree};

/// Makes a tree of a file's bytes, named by the file, with the options the
/// explorer opened it with (the same parser as its first tree).
pub type Parse = fn(Arc<Source>, &str, Options) -> Tree;

/// One parsed file.
pub struct Document {
    pub tree: Tree,
    pub path: PathBuf,
}

impl Document {
    pub fn new(tree: Tree, path: impl Into<PathBuf>) -> Document {
        Document {
            tree,
            path: path.into(),
        }
    }

    /// Maps the file at `path` and parses it with `parse` and `options`.
    pub fn open(path: &Path, parse: Parse, options: Options) -> std::io::Result<Document> {
        let src = Arc::new(Source::open(path)?);
        let tree = parse(src, &name_of(path), options);
        Ok(Document::new(tree, path))
    }

    /// The mapped bytes the tree was parsed from.
    pub fn source(&self) -> &Arc<Source> {
        self.tree.source()
    }

    /// The file's name (its last component) as text, for titles; bytes
    /// that are not UTF-8 read as U+FFFD.
    pub fn name(&self) -> String {
        name_of(&self.path)
    }
}

/// The last component of `path` as text (the whole path when it has none).
pub fn name_of(path: &Path) -> String {
    if path.as_os_str() == "-" {
        return "stdin".into();
    }
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned()
}

/// A path's bytes as the operating system holds them (on Unix, exactly;
/// elsewhere its text as UTF-8).
pub fn path_bytes(path: &OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStrExt::as_bytes(path).to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}
