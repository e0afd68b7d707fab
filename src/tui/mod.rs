//! The interactive explorer: a structure pane linked both ways to a hex
//! pane. An input thread feeds events into a channel; keys become commands
//! (`keys`), commands change the state (`app`), and `ui` draws it.

pub mod app;
pub mod hex;
pub mod keys;
pub mod popup;
pub mod status;
pub mod theme;
pub mod treeview;
pub mod ui;

use std::io::{self, IsTerminal, Stdout};
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

use crate::model::Tree;

/// What reaches the event loop.
pub enum Message {
    Input(Event),
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
    let mode = match app.popup {
        Some(popup::Popup::Prompt(_)) => keys::Mode::Text,
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

/// Runs the explorer on a parsed file until the user quits.
pub fn run(tree: Tree, path: &str) -> io::Result<()> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(io::Error::other(
            "not a terminal; use --tree or --json for output to a pipe or a file",
        ));
    }
    let mut app = App::new(tree, path);
    let mut terminal = setup()?;
    let (tx, rx) = mpsc::channel::<Message>();
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
            let Ok(msg) = rx.recv() else { break };
            match msg {
                Message::Input(ev) => handle_event(&mut app, ev),
            }
            // Take whatever else is waiting before drawing again.
            while let Ok(Message::Input(ev)) = rx.try_recv() {
                handle_event(&mut app, ev);
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
