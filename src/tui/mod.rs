//! The interactive explorer: a structure pane linked both ways to a hex
//! pane. An input thread feeds events into a channel; keys become commands
//! (`keys`), commands change the state (`app`), and `ui` draws it.

pub mod app;
pub mod document;
pub mod find;
pub mod hex;
mod history;
pub mod inspector;
pub mod keys;
pub mod marks;
mod nav;
pub mod popup;
pub mod reload;
pub mod sidebyside;
pub mod status;
pub mod theme;
pub mod treeview;
pub mod ui;
pub mod write;

use std::io::{self, IsTerminal, Stdout};
use std::path::Path;
use std::sync::mpsc;
use std::thread;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

pub use app::{App, Command, Focus};
pub use find::{run_search, Found, Progress, Rebuild, Running, SearchState, SpaceHits};

use crate::model::Tree;

/// What reaches the event loop: input, and reports from background work.
pub enum Message {
    Input(Event),
    SearchProgress {
        id: u64,
        progress: find::Progress,
    },
    SearchDone {
        id: u64,
        found: find::Found,
        cancelled: bool,
    },
    /// The open file was rewritten and has settled.
    FileChanged,
    WriteProgress {
        id: u64,
        done: u64,
    },
    WriteDone {
        id: u64,
        result: Result<(), String>,
        cancelled: bool,
    },
}

/// Leaves raw mode and the alternate screen. Safe to call twice.
fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

fn setup() -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
        restore();
        return Err(e);
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        hook(info);
    }));
    Terminal::new(CrosstermBackend::new(out)).inspect_err(|_| restore())
}

/// Applies one input event to the state.
pub fn handle_event(app: &mut App, ev: Event) {
    let mode = match &app.popup {
        _ if app.pending.is_some() => keys::Mode::Letter,
        Some(popup::Popup::Prompt(p)) if matches!(p.kind, popup::PromptKind::Overwrite(_)) => {
            keys::Mode::Letter
        }
        Some(popup::Popup::Prompt(_)) => keys::Mode::Text,
        Some(popup::Popup::Copy) => keys::Mode::Letter,
        _ => keys::Mode::Normal,
    };
    let cmd = match ev {
        Event::Key(k) => keys::map_key(k, mode),
        Event::Mouse(m) => keys::map_mouse(m),
        _ => None,
    };
    if let Some(c) = cmd {
        app.run_command(c);
    }
}

fn dispatch(app: &mut App, msg: Message) {
    match msg {
        Message::Input(ev) => handle_event(app, ev),
        Message::FileChanged => reload::apply(app),
        other => app.on_message(other),
    }
}

/// Puts text on the terminal's clipboard with OSC 52, which works over SSH
/// and inside tmux (with `set-clipboard on`).
fn osc52(text: &str) -> io::Result<()> {
    use base64::Engine;
    use std::io::Write;
    let b64 = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = io::stdout();
    write!(out, "\x1b]52;c;{b64}\x07")?;
    out.flush()
}

/// Runs the explorer on a parsed file until the user quits.
pub fn run(tree: Tree, path: &Path) -> io::Result<()> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(io::Error::other(
            "not a terminal; use --tree or --json for output to a pipe or a file",
        ));
    }
    let mut app = App::new(tree, path);
    if let Some(store) = marks::marks_path() {
        app.keep_marks(store);
    }
    let mut terminal = setup()?;
    let (tx, rx) = mpsc::channel::<Message>();
    app.tx = Some(tx.clone());
    reload::watch(path.to_path_buf(), tx.clone());
    thread::spawn(move || {
        while let Ok(ev) = event::read() {
            if tx.send(Message::Input(ev)).is_err() {
                break;
            }
        }
    });
    let r = (|| -> io::Result<()> {
        while !app.quit {
            terminal.draw(|f| ui::render(&mut app, f))?;
            if let Some(text) = app.clipboard.take() {
                osc52(&text)?;
            }
            let Ok(msg) = rx.recv() else { break };
            dispatch(&mut app, msg);
            // Take whatever else is waiting before drawing again.
            while let Ok(msg) = rx.try_recv() {
                dispatch(&mut app, msg);
                if app.quit {
                    break;
                }
            }
        }
        Ok(())
    })();
    restore();
    r
}
