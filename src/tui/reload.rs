//! Live reload: a thread watches the open file (size, modification time
//! and inode, every 500 ms), and once a change has settled for one more
//! look, the app parses the file again, keeps the selection at the same
//! address and says what changed since the previous load, as the diff
//! does. The `.ksy` descriptions read with `K` are watched too: a change to
//! one reloads the file, and every description is read again.
//! Renaming a new file over it and rewriting it in place both count;
//! a file that shrinks while mapped is caught by the SIGBUS guard.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime};

use super::app::App;
use super::document::Document;
use super::message::Message;

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
/// [`Message::FileChanged`] once each change has settled, and
/// [`Message::FileGone`] once the file has been missing for two looks.
pub fn watch(path: PathBuf, tx: Sender<Message>) {
    watch_while(path, tx, Arc::new(AtomicBool::new(false)));
}

/// As [`watch`], until `stop` is set too (a file opened from a folder's
/// list, then left).
pub fn watch_while(path: PathBuf, tx: Sender<Message>, stop: Arc<AtomicBool>) {
    thread::spawn(move || {
        let mut loaded = stamp(&path);
        let mut seen = loaded;
        let mut gone = false;
        loop {
            thread::sleep(POLL);
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let now = stamp(&path);
            if now.is_none() && seen.is_none() && !gone {
                gone = true;
                if tx.send(Message::FileGone).is_err() {
                    break;
                }
            }
            if now.is_some() {
                gone = false;
            }
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

/// Says, for as long as it lasts, that the file is gone: what is shown is
/// the copy still mapped.
pub fn gone(app: &mut App) {
    app.gone = true;
    app.message = Some((
        "the file was deleted or moved away: what is shown is the copy still open".into(),
        true,
    ));
}

/// Parses the file again and swaps the new document into the app.
pub fn apply(app: &mut App) {
    let mut doc = match Document::open(&app.doc.path, app.rebuild, app.doc.tree.options()) {
        Ok(d) => d,
        Err(e) => {
            app.message = Some((format!("reload failed: {e}"), true));
            return;
        }
    };
    let described = std::mem::take(&mut app.doc.described);
    let errors = doc.describe_again(app.describe, described);
    let c = app.swap_document(doc);
    app.gone = false;
    if let Some(e) = errors.first() {
        app.message = Some((format!("reloaded; {e}"), true));
        return;
    }
    app.message = Some((
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
}
