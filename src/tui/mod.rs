//! The interactive explorer: a structure pane linked both ways to a hex
//! pane. An input thread feeds events into a channel; keys become commands
//! (`keys`), commands change the state (`app`), and `ui` draws it.

pub mod app;
pub mod changes;
pub mod coderow;
pub mod columns;
pub mod command;
mod describe;
pub mod document;
pub mod events;
pub mod filter;
mod filtering;
pub mod find;
pub mod folder;
pub mod hex;
mod history;
pub mod inspector;
pub mod keys;
pub mod listing;
pub mod marks;
pub mod matches;
pub mod message;
mod nav;
pub mod overview;
pub mod popup;
pub mod reload;
pub mod scans;
pub mod sidebyside;
pub mod status;
pub mod terminal;
pub mod theme;
pub mod treeview;
pub mod ui;
mod visual;
pub mod write;

use std::io;
use std::path::Path;

pub use app::{App, Command, Focus};
pub use events::handle_event;
pub use matches::{run_search, Found, Progress, Rebuild, Running, SearchState, SpaceHits};
pub use message::Message;

use crate::model::{NodeId, Tree};

/// Runs the explorer on a parsed file until the user quits.
pub fn run(tree: Tree, path: &Path, at: Option<NodeId>) -> io::Result<()> {
    events::need_terminal("--tree or --json")?;
    let mut app = App::new(tree, path);
    // Marks are kept by file; standard input is no file.
    if let Some(store) = marks::marks_path().filter(|_| path.as_os_str() != "-") {
        app.keep_marks(store);
    }
    let (tx, rx) = events::channel();
    app.tx = Some(tx.clone());
    // Selected once the first frame has sized the panes.
    if let Some(id) = at {
        let _ = tx.send(Message::Select(id));
    }
    reload::watch(path.to_path_buf(), tx.clone());
    events::run(&mut app, tx, rx)
}

/// Runs the list of a folder's files until the user quits; a file chosen
/// in it is explored by the same explorer, in the same loop.
pub fn run_folder(dir: &Path) -> io::Result<()> {
    events::need_terminal("--targets or --find")?;
    let (tx, rx) = events::channel();
    let mut browser = folder::Browser::new(dir, tx.clone());
    events::run(&mut browser, tx, rx)
}
