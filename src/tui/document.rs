//! What the explorer shows: one parsed file. The document is the file's
//! path (kept as the operating system names it, so that a name that is
//! not UTF-8 still opens, reloads and keys its marks), its mapped bytes
//! and the tree parsed from them. View state lives in the explorer's `App`;
//! a reload swaps the document under it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::{NodeId, Options, Source, Tree};

/// Makes a tree of a file's bytes, named by the file, with the options the
/// explorer opened it with (the same parser as its first tree).
pub type Parse = fn(Arc<Source>, &str, Options) -> Tree;

/// Reads a node's bytes with a `.ksy` description named by the user
/// (`K`): the child made and the description's path, or what went wrong.
pub type Describe = fn(&mut Tree, NodeId, &str) -> Result<(NodeId, PathBuf), String>;

/// One parsed file.
pub struct Document {
    pub tree: Tree,
    pub path: PathBuf,
    /// The `.ksy` descriptions the user read nodes with (`K`): each node's
    /// address and the description's path, in the order applied.
    pub described: Vec<(String, PathBuf)>,
}

impl Document {
    pub fn new(tree: Tree, path: impl Into<PathBuf>) -> Document {
        Document {
            tree,
            path: path.into(),
            described: Vec::new(),
        }
    }

    /// Maps the file at `path` and parses it with `parse` and `options`.
    pub fn open(path: &Path, parse: Parse, options: Options) -> std::io::Result<Document> {
        let src = Arc::new(Source::open(path)?);
        let tree = parse(src, &name_of(path), options);
        Ok(Document::new(tree, path))
    }

    /// Reads the nodes again with the descriptions `list` names (node
    /// address, description), in the order they were applied (after a
    /// reload); what could not be.
    pub fn describe_again(
        &mut self,
        describe: Describe,
        list: Vec<(String, PathBuf)>,
    ) -> Vec<String> {
        let mut errors = Vec::new();
        for (at, path) in list {
            match self.tree.find_path(&at) {
                Some(id) => {
                    if let Err(e) = describe(&mut self.tree, id, &path.to_string_lossy()) {
                        errors.push(e);
                    }
                }
                None => errors.push(format!(
                    "{at}: not in the file now; {} not read",
                    path.display()
                )),
            }
            // Kept even when it failed: a description mended is read again.
            self.described.push((at, path));
        }
        errors
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
