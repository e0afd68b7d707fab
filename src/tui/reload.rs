//! Live reload: a thread watches the open file (size, modification time
//! and inode, every 500 ms), and once a change has settled for one more
//! look, the app parses the file again, keeps the selection at the same
//! address and says what changed since the previous load, as the diff
//! does. Renaming a new file over it and rewriting it in place both count;
//! a file that shrinks while mapped is caught by the SIGBUS guard.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime};

use super::sidebyside::Changes;
use super::{App, Message};
use crate::model::Source;

/// How often the file is looked at.
pub const POLL: Duration = Duration::from_millis(500);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    mtime: Option<SystemTime>,
    ino: u64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some(Stamp {
        len: m.len(),
        mtime: m.modified().ok(),
        ino,
    })
}

/// Watches `path` until the receiver goes away, sending
/// [`Message::FileChanged`] once each change has settled.
pub fn watch(path: PathBuf, tx: Sender<Message>) {
    thread::spawn(move || {
        let mut loaded = stamp(&path);
        let mut seen = loaded;
        loop {
            thread::sleep(POLL);
            let now = stamp(&path);
            // Missing (between unlink and rename) or still moving: wait.
            if now.is_none() || now != seen {
                seen = now;
                continue;
            }
            if now != loaded {
                loaded = now;
                if tx.send(Message::FileChanged).is_err() {
                    break;
                }
            }
        }
    });
}

/// Parses the file again and puts the new tree in the app.
pub fn apply(app: &mut App) {
    let path = PathBuf::from(&app.path);
    let src = match Source::open(&path) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            app.message = Some((format!("reload failed: {e}"), true));
            return;
        }
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| app.path.clone());
    let mut tree = crate::formats::build_tree_with(src, &name, app.tree.options());
    let selected = app.tree.path_string(app.selected);
    let changes = Changes::compute(&mut app.tree, &mut tree);
    let mut next = App::new(tree, &app.path);
    next.tx = app.tx.take();
    next.numbers = app.numbers;
    next.inspector = app.inspector;
    if let Some((store, _)) = app.marks_store.take() {
        next.keep_marks(store);
    }
    next.history = std::mem::take(&mut app.history);
    next.writing = app.writing.take();
    next.next_write_id = app.next_write_id;
    next.rebuild = app.rebuild;
    if let Some(id) = next.tree.find_path(&selected) {
        next.select(id, true);
    }
    let c = changes.counts;
    next.message = Some((
        if c.is_empty() {
            "reloaded: no change".to_string()
        } else {
            format!(
                "reloaded: ~{} changed  +{} added  -{} removed (marked; Esc clears)",
                c.changed, c.added, c.removed
            )
        },
        false,
    ));
    if !c.is_empty() {
        next.reloaded = Some(changes);
    }
    *app = next;
}
