//! The interactive explorer: a structure pane linked both ways to a hex
//! pane. An input thread feeds events into a channel; keys become commands
//! (`keys`), commands change the state (`app`), and `ui` draws it.

pub mod app;
pub mod changes;
pub mod coderow;
pub mod columns;
pub mod command;
pub mod document;
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

use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event};

pub use app::{App, Command, Focus};
pub use matches::{run_search, Found, Progress, Rebuild, Running, SearchState, SpaceHits};
pub use message::Message;
use terminal::{restore, setup};

use crate::model::Tree;

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
        Message::FileGone => reload::gone(app),
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

/// What the event loop runs: the explorer of one file, or a folder's
/// list (with the explorer of a file opened from it).
trait Screen {
    fn draw(&mut self, frame: &mut ratatui::Frame<'_>);
    fn take(&mut self, msg: Message);
    fn done(&self) -> bool;
    /// Text to put on the terminal's clipboard.
    fn clipboard(&mut self) -> Option<String>;
}

impl Screen for App {
    fn draw(&mut self, frame: &mut ratatui::Frame<'_>) {
        ui::render(self, frame)
    }
    fn take(&mut self, msg: Message) {
        dispatch(self, msg)
    }
    fn done(&self) -> bool {
        self.quit
    }
    fn clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
    }
}

impl Screen for folder::Browser {
    fn draw(&mut self, frame: &mut ratatui::Frame<'_>) {
        self.render(frame)
    }
    fn take(&mut self, msg: Message) {
        self.on_message(msg)
    }
    fn done(&self) -> bool {
        self.quit
    }
    fn clipboard(&mut self) -> Option<String> {
        self.app.as_mut().and_then(|a| a.clipboard.take())
    }
}

/// The longest the loop takes messages before it draws again.
const FRAME: Duration = Duration::from_millis(40);

/// Keys come from standard input, or from the terminal itself when the
/// file came in on standard input (`… | fwview -`); the screen must be a
/// terminal.
fn check_terminal() -> io::Result<()> {
    let keys = io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok();
    if !io::stdout().is_terminal() || !keys {
        return Err(io::Error::other(
            "not a terminal; use --tree or --json for output to a pipe or a file",
        ));
    }
    Ok(())
}

/// Runs the explorer on a parsed file until the user quits.
pub fn run(tree: Tree, path: &Path) -> io::Result<()> {
    check_terminal()?;
    let mut app = App::new(tree, path);
    // Marks are kept by file; standard input is no file.
    if let Some(store) = marks::marks_path().filter(|_| path.as_os_str() != "-") {
        app.keep_marks(store);
    }
    let (tx, rx) = mpsc::channel::<Message>();
    app.tx = Some(tx.clone());
    reload::watch(path.to_path_buf(), tx.clone());
    event_loop(&mut app, tx, rx)
}

/// Runs the list of a folder's files until the user quits; a file chosen
/// in it is explored by the same explorer, in the same loop.
pub fn run_folder(dir: &Path) -> io::Result<()> {
    check_terminal()?;
    let (tx, rx) = mpsc::channel::<Message>();
    let mut browser = folder::Browser::new(dir, tx.clone(), dispatch);
    event_loop(&mut browser, tx, rx)
}

/// The one event loop: an input thread feeds the channel, and each round
/// draws the screen and takes every message waiting.
fn event_loop(
    screen: &mut dyn Screen,
    tx: mpsc::Sender<Message>,
    rx: mpsc::Receiver<Message>,
) -> io::Result<()> {
    let mut terminal = setup()?;
    thread::spawn(move || {
        while let Ok(ev) = event::read() {
            if tx.send(Message::Input(ev)).is_err() {
                break;
            }
        }
    });
    let r = (|| -> io::Result<()> {
        while !screen.done() {
            terminal.draw(|f| screen.draw(f))?;
            if let Some(text) = screen.clipboard() {
                osc52(&text)?;
            }
            let Ok(msg) = rx.recv() else { break };
            screen.take(msg);
            // Take whatever else is waiting before drawing again, for at
            // most a frame's time: a flood of reports does not hold the
            // screen still.
            let since = Instant::now();
            while since.elapsed() < FRAME {
                let Ok(msg) = rx.try_recv() else { break };
                screen.take(msg);
                if screen.done() {
                    break;
                }
            }
        }
        Ok(())
    })();
    restore();
    r
}
