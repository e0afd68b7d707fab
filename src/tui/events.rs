//! The event loop every view runs on: an input thread and the background
//! work (searches, writes, scans, the file watchers, the diff of two
//! files) send [`Message`]s into one channel; the loop hands each to the
//! view and draws it again once nothing more is waiting. Keys become
//! commands through the one key table (`keys`).

use std::io::{self, IsTerminal};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event};
use ratatui::Frame;

use super::app::App;
use super::command::Command;
use super::message::Message;
use super::popup::{Popup, PromptKind};
use super::terminal::{restore, setup};
use super::{keys, reload, ui};

/// What a view is to the loop: drawn, given messages, asked whether it is
/// done and whether it has text for the clipboard.
pub trait Screen {
    fn draw(&mut self, frame: &mut Frame<'_>);
    fn dispatch(&mut self, msg: Message);
    fn done(&self) -> bool;
    fn take_clipboard(&mut self) -> Option<String>;
}

/// How the keys are read for `app`: as text in a prompt, as one letter
/// where one is awaited, else as commands.
pub fn key_mode(app: &App) -> keys::Mode {
    match &app.popup {
        _ if app.pending.is_some() => keys::Mode::Letter,
        Some(Popup::Prompt(p)) if matches!(p.kind, PromptKind::Overwrite(_)) => keys::Mode::Letter,
        Some(Popup::Prompt(_)) => keys::Mode::Text,
        Some(Popup::Copy) => keys::Mode::Letter,
        _ => keys::Mode::Normal,
    }
}

/// The command an input event means to `app`, if any.
pub fn command(app: &App, ev: Event) -> Option<Command> {
    match ev {
        Event::Key(k) => keys::map_key(k, key_mode(app)),
        Event::Mouse(m) => keys::map_mouse(m),
        _ => None,
    }
}

/// Applies one input event to the state.
pub fn handle_event(app: &mut App, ev: Event) {
    if let Some(c) = command(app, ev) {
        app.run_command(c);
    }
}

/// Gives one message to one explorer: input, a change of its file, or a
/// report of its background work.
pub fn dispatch(app: &mut App, msg: Message) {
    match msg {
        Message::Input(ev) => handle_event(app, ev),
        Message::FileChanged => reload::apply(app),
        Message::FileGone => reload::gone(app),
        other => app.on_message(other),
    }
}

impl Screen for App {
    fn draw(&mut self, frame: &mut Frame<'_>) {
        ui::render(self, frame)
    }
    fn dispatch(&mut self, msg: Message) {
        dispatch(self, msg)
    }
    fn done(&self) -> bool {
        self.quit
    }
    fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
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

/// Fails unless the output is a terminal and keys can be read (from
/// standard input, or from the terminal itself when the file came in on
/// standard input); `instead` says what to use for output to a pipe.
pub fn need_terminal(instead: &str) -> io::Result<()> {
    let keys = io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok();
    if !io::stdout().is_terminal() || !keys {
        return Err(io::Error::other(format!(
            "not a terminal; use {instead} for output to a pipe or a file"
        )));
    }
    Ok(())
}

/// The channel of the loop: its sender goes to background work.
pub fn channel() -> (Sender<Message>, Receiver<Message>) {
    mpsc::channel()
}

/// The longest the loop takes messages before it draws again.
const FRAME: Duration = Duration::from_millis(40);

/// Runs `screen` until it is done: the input thread feeds `tx`, every
/// message on `rx` goes to the screen, which is drawn again once nothing
/// more is waiting.
pub fn run(screen: &mut impl Screen, tx: Sender<Message>, rx: Receiver<Message>) -> io::Result<()> {
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
            if let Some(text) = screen.take_clipboard() {
                osc52(&text)?;
            }
            let Ok(msg) = rx.recv() else { break };
            screen.dispatch(msg);
            // Take whatever else is waiting before drawing again, for at
            // most a frame's time: a flood of reports does not hold the
            // screen still.
            let since = Instant::now();
            while since.elapsed() < FRAME {
                let Ok(msg) = rx.try_recv() else { break };
                screen.dispatch(msg);
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
