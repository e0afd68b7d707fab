//! `K`: the selected node's bytes read with a `.ksy` description the user
//! names. The tree gains a child under the node (the formats' `describe`
//! makes it); the document keeps which description went where, so that a
//! reload (of the file, or of a description saved again, which is watched
//! here as the file is) reads them again (`Document::describe_again`).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::app::App;
use super::document::Describe;
use super::reload;
use crate::model::Tree;

/// Reads the nodes of `tree` at the addresses `list` names with their
/// descriptions, in order, as `K` did (what fails is left out: the
/// explorer has said why).
pub(super) fn apply_all(tree: &mut Tree, describe: Describe, list: &[(String, PathBuf)]) {
    for (at, path) in list {
        if let Some(id) = tree.find_path(at) {
            let _ = describe(tree, id, &path.to_string_lossy());
        }
    }
}

impl App {
    /// Reads the selected node with the description `name` and selects
    /// the child it makes.
    pub(super) fn describe_selected(&mut self, name: &str) {
        let node = self.selected;
        let at = self.doc.tree.path_string(node);
        match (self.describe)(&mut self.doc.tree, node, name) {
            Ok((child, path)) => {
                self.message = Some((
                    format!(
                        "read with {} (saving it reads it again)",
                        path.file_name().map_or_else(
                            || path.display().to_string(),
                            |f| f.to_string_lossy().into_owned()
                        )
                    ),
                    false,
                ));
                self.watch_description(&path);
                self.doc.described.push((at, path));
                self.select(child, true);
            }
            Err(e) => self.message = Some((e, true)),
        }
    }

    /// Watches description `path` (once), as the file is watched: a
    /// change reloads the file and reads the descriptions again.
    fn watch_description(&mut self, path: &Path) {
        let Some(tx) = self.tx.clone() else {
            return;
        };
        if self.watched.0.iter().any(|(p, _)| p == path) {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        reload::watch_while(path.to_path_buf(), tx, stop.clone());
        self.watched.0.push((path.to_path_buf(), stop));
    }
}
