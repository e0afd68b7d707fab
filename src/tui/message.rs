//! What reaches the event loop besides input: reports from the work that
//! runs in the background (searches, writes, the file watchers, the diff
//! of two files).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crossterm::event::Event;

use super::matches::{Found, Progress};

/// What reaches the event loop: input, and reports from background work.
pub enum Message {
    Input(Event),
    SearchProgress {
        id: u64,
        progress: Progress,
    },
    SearchDone {
        id: u64,
        found: Found,
        cancelled: bool,
    },
    /// The open file was rewritten and has settled.
    FileChanged,
    /// The open file is no longer at its path.
    FileGone,
    WriteProgress {
        id: u64,
        done: u64,
    },
    WriteDone {
        id: u64,
        result: Result<(), String>,
        cancelled: bool,
    },
    StringsProgress {
        id: u64,
        done: u64,
    },
    StringsDone {
        id: u64,
        groups: Vec<super::scans::StrGroup>,
        complete: bool,
    },
    OverviewDone {
        id: u64,
        blocks: Vec<crate::scan::Block>,
    },
    /// With two files: a message for the explorer of one of them (0: the
    /// first file, 1: the second).
    Pane(usize, Box<Message>),
    /// With two files: the diff of the two has answered.
    Compared(Box<super::changes::Changes>),
    /// The folder list's walk is done (`fwview DIR`).
    FolderWalked(super::listing::Walk),
    /// The folder list's scan read entry `index`.
    FolderRead {
        index: usize,
        read: Result<crate::folders::Read<crate::folders::Summary>, String>,
    },
    /// A file chosen in a folder's list is still being parsed for its
    /// `opening` (sent a few times a second, so that the time shows).
    FolderOpening {
        opening: u64,
    },
    /// A file chosen in a folder's list is parsed for its `opening`: its
    /// document, or why it could not be read.
    FolderOpened {
        opening: u64,
        doc: Result<Box<super::document::Document>, String>,
    },
    /// Select a node, once the first frame has laid the panes out
    /// (`fwview --at PATH`).
    Select(crate::model::NodeId),
    /// A message for the explorer of a file opened from a folder's list,
    /// from its `opening` (those of a file left since are dropped).
    Explored {
        opening: u64,
        msg: Box<Message>,
    },
}

/// A write running in the background.
pub struct Writing {
    pub id: u64,
    pub path: String,
    /// Bytes written so far, of `total`.
    pub done: u64,
    pub total: u64,
    pub cancel: Arc<AtomicBool>,
}
