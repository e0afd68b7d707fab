//! A folder in the explorer (`fwview DIR`): the list of its files, each
//! with its size, format and the targets of its device images, filled in
//! as a background scan reads them; typing filters it, Enter explores a
//! file in the explorer (the same `App`, in the same loop), and Esc or
//! Backspace there come back to the list as it was. The list's data is
//! `listing.rs`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::App;
use super::columns::truncate;
use super::command::Command;
use super::document::Document;
use super::keys::{self, Mode};
use super::listing::{self, Entry, Listing, State};
use super::message::Message;
use super::popup::{self, Outcome, Popup};
use super::status::{count, tail};
use super::{marks, reload, theme, ui};
use crate::folders::shown;
use crate::model::{text, Options};

/// The key column of the help's row for the list.
const LIST_KEYS: &str = "in a folder's list";

/// The folder's list, and the explorer of the file opened from it.
pub struct Browser {
    pub list: Listing,
    /// What the paths shown must hold.
    pub filter: String,
    /// The entries the filter keeps, in path order.
    pub shown: Vec<usize>,
    /// The row of `shown` under the cursor, and the first on screen.
    pub selected: usize,
    top: usize,
    /// Where the rows are on screen (for clicks and pages), and the
    /// screen's width.
    rows: Rect,
    width: u16,
    pub popup: Option<Popup>,
    pub message: Option<(String, bool)>,
    /// The file being explored, if one is.
    pub app: Option<App>,
    /// Which opening the explorer is (its messages carry it).
    opening: u64,
    /// Set when the explorer's file is left: its watcher stops.
    stop: Option<Arc<AtomicBool>>,
    /// The file being parsed for the explorer, while it is.
    pending: Option<Pending>,
    tx: mpsc::Sender<Message>,
    pub quit: bool,
}

/// A file chosen in the list, parsed on a thread of its own while the list
/// still answers keys.
struct Pending {
    /// The opening its document will come with.
    opening: u64,
    path: std::path::PathBuf,
    /// As the list shows it.
    name: String,
    since: Instant,
    /// Set when it is no longer wanted: the thread that reports the time
    /// stops, and the document is dropped when it comes.
    cancel: Arc<AtomicBool>,
}

/// How often the time of an opening is shown again.
const OPENING_TICK: Duration = Duration::from_millis(250);

impl super::events::Screen for Browser {
    fn draw(&mut self, frame: &mut Frame<'_>) {
        self.render(frame)
    }
    fn dispatch(&mut self, msg: Message) {
        self.on_message(msg)
    }
    fn done(&self) -> bool {
        self.quit
    }
    fn take_clipboard(&mut self) -> Option<String> {
        self.app.as_mut().and_then(|a| a.clipboard.take())
    }
}

impl Browser {
    /// The list of `dir`; its walk and scan start in the background and
    /// report on `tx`.
    pub fn new(dir: &Path, tx: mpsc::Sender<Message>) -> Browser {
        let root = dir.to_path_buf();
        let scan_tx = tx.clone();
        thread::spawn(move || {
            let walk = listing::walk(&root);
            let jobs = listing::Walk {
                entries: walk.entries.clone(),
                links: walk.links,
            };
            if scan_tx.send(Message::FolderWalked(walk)).is_err() {
                return;
            }
            listing::scan(&root, &jobs, |index, read| {
                scan_tx.send(Message::FolderRead { index, read }).is_ok()
            });
        });
        Browser {
            list: Listing::new(dir.to_path_buf()),
            filter: String::new(),
            shown: Vec::new(),
            selected: 0,
            top: 0,
            rows: Rect::default(),
            width: 80,
            popup: None,
            message: None,
            app: None,
            opening: 0,
            stop: None,
            pending: None,
            tx,
            quit: false,
        }
    }

    pub fn on_message(&mut self, msg: Message) {
        match msg {
            Message::FolderWalked(w) => {
                self.list.walked(w);
                self.refilter();
            }
            Message::FolderRead { index, read } => self.list.scanned(index, read),
            // Drawn again with the time it has taken.
            Message::FolderOpening { .. } => {}
            Message::FolderOpened { opening, doc }
                if self.pending.as_ref().is_some_and(|p| p.opening == opening) =>
            {
                if let Some(p) = self.pending.take() {
                    match doc {
                        Ok(d) => self.explore(*d, p.path),
                        Err(err) => self.message = Some((format!("{}: {err}", p.name), true)),
                    }
                }
            }
            Message::Explored { opening, msg } if opening == self.opening => {
                if let Some(app) = self.app.as_mut() {
                    super::events::dispatch(app, *msg);
                }
                self.after_explorer();
            }
            Message::Input(ev) if self.app.is_some() => {
                if let Some(app) = self.app.as_mut() {
                    super::events::dispatch(app, Message::Input(ev));
                }
                self.after_explorer();
            }
            Message::Input(ev) => self.input(ev),
            _ => {}
        }
    }

    /// After the explorer took a message: quit, or back to the list.
    fn after_explorer(&mut self) {
        let Some(app) = &self.app else {
            return;
        };
        if app.quit {
            self.quit = true;
        } else if app.leave {
            self.leave();
        }
    }

    fn input(&mut self, ev: Event) {
        let mode = if self.popup.is_some() {
            Mode::Normal
        } else {
            Mode::List
        };
        let cmd = match ev {
            Event::Key(k) => keys::map_key(k, mode),
            Event::Mouse(m) => keys::map_mouse(m),
            _ => None,
        };
        let Some(cmd) = cmd else {
            return;
        };
        if cmd == Command::Interrupt {
            self.quit = true;
            return;
        }
        if let Some(p) = self.popup.as_mut() {
            if p.handle_key(cmd, 0) != Outcome::Stay {
                self.popup = None;
            }
            return;
        }
        self.message = None;
        let page = usize::from(self.rows.height).max(1);
        match cmd {
            Command::Quit => self.quit = true,
            // Esc first gives up a file still being opened.
            Command::Escape if self.pending.is_some() => {
                if let Some(p) = self.pending.take() {
                    p.cancel.store(true, Ordering::Relaxed);
                    self.message = Some((format!("opening {} cancelled", p.name), false));
                }
            }
            Command::OpenHelp => {
                // Opened on the list's own keys (the last rows).
                let lines = popup::help_lines(usize::from(self.width.min(100).saturating_sub(2)));
                let at = lines.iter().position(|l| {
                    l.spans
                        .first()
                        .is_some_and(|s| s.content.trim_start().starts_with(LIST_KEYS))
                });
                let scroll = at.and_then(|i| u16::try_from(i).ok()).unwrap_or(0);
                self.popup = Some(Popup::Help { scroll })
            }
            Command::Input(c) => {
                self.filter.push(c);
                self.refilter();
            }
            Command::Backspace => {
                self.filter.pop();
                self.refilter();
            }
            Command::Escape if !self.filter.is_empty() => {
                self.filter.clear();
                self.refilter();
            }
            Command::Escape => {
                self.message = Some(("no filter to clear (q quits)".into(), false));
            }
            Command::Up => self.move_by(-1),
            Command::Down => self.move_by(1),
            Command::PageUp => self.move_by(-(page as i64)),
            Command::PageDown => self.move_by(page as i64),
            Command::Home => self.selected = 0,
            Command::End => self.selected = self.shown.len().saturating_sub(1),
            Command::Activate => self.open_selected(),
            Command::ScrollUp(..) => self.move_by(-3),
            Command::ScrollDown(..) => self.move_by(3),
            Command::Click(x, y) => self.click(x, y),
            _ => {}
        }
    }

    fn move_by(&mut self, rows: i64) {
        let last = self.shown.len().saturating_sub(1) as i64;
        self.selected = (self.selected as i64 + rows).clamp(0, last.max(0)) as usize;
    }

    /// A click selects a row; on the selected row, it explores its file.
    fn click(&mut self, x: u16, y: u16) {
        if !self.rows.contains(Position { x, y }) {
            return;
        }
        let i = self.top + usize::from(y - self.rows.y);
        if i >= self.shown.len() {
            return;
        }
        if i == self.selected {
            self.open_selected();
        } else {
            self.selected = i;
        }
    }

    /// The list again for the filter, the cursor on the same file if the
    /// filter keeps it, else on the next one it keeps.
    fn refilter(&mut self) {
        let at = self.shown.get(self.selected).copied().unwrap_or(0);
        self.shown = self.list.matching(&self.filter);
        self.selected = self
            .shown
            .partition_point(|&i| i < at)
            .min(self.shown.len().saturating_sub(1));
    }

    /// Parses the selected file on a thread of its own, the list still
    /// answering keys meanwhile (Esc gives it up; Enter on another file
    /// opens that one instead); the explorer opens when it is parsed.
    fn open_selected(&mut self) {
        let Some(&i) = self.shown.get(self.selected) else {
            return;
        };
        let (Some(path), Some(e)) = (self.list.path(i), self.list.entries.get(i)) else {
            return;
        };
        if let Some(p) = self.pending.take() {
            p.cancel.store(true, Ordering::Relaxed);
        }
        self.opening += 1;
        let opening = self.opening;
        let cancel = Arc::new(AtomicBool::new(false));
        self.pending = Some(Pending {
            opening,
            path: path.clone(),
            name: shown(&e.rel),
            since: Instant::now(),
            cancel: cancel.clone(),
        });
        let tx = self.tx.clone();
        thread::spawn(move || {
            let (dtx, drx) = mpsc::channel();
            thread::spawn(move || {
                // The explorer shows instructions, as it does for a file
                // given.
                let doc = Document::open(
                    &path,
                    crate::formats::build_tree_with,
                    Options {
                        code: true,
                        arg_names: None,
                        nested_only: false,
                    },
                );
                let _ = dtx.send(doc.map(Box::new).map_err(|e| e.to_string()));
            });
            loop {
                match drx.recv_timeout(OPENING_TICK) {
                    Ok(doc) => {
                        let _ = tx.send(Message::FolderOpened { opening, doc });
                        return;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if cancel.load(Ordering::Relaxed)
                            || tx.send(Message::FolderOpening { opening }).is_err()
                        {
                            return;
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        let doc = Err("could not be parsed".to_string());
                        let _ = tx.send(Message::FolderOpened { opening, doc });
                        return;
                    }
                }
            }
        });
    }

    /// Explores the parsed file `doc` at `path`, for the opening just done.
    fn explore(&mut self, doc: Document, path: std::path::PathBuf) {
        let mut app = App::new(doc.tree, &path);
        if let Some(store) = marks::marks_path() {
            app.keep_marks(store);
        }
        app.from_list = true;
        if app.message.is_none() {
            app.message = Some((
                "Esc (nothing left to close) or Backspace on the root: back to the list".into(),
                false,
            ));
        }
        // The explorer's background work and watcher report on a channel
        // of their own, forwarded with this opening's number until it is
        // left.
        let opening = self.opening;
        let stop = Arc::new(AtomicBool::new(false));
        let (etx, erx) = mpsc::channel::<Message>();
        app.tx = Some(etx.clone());
        reload::watch_while(path, etx, stop.clone());
        let (tx, stopped) = (self.tx.clone(), stop.clone());
        thread::spawn(move || {
            for msg in erx {
                if stopped.load(Ordering::Relaxed) {
                    break;
                }
                let msg = Box::new(msg);
                if tx.send(Message::Explored { opening, msg }).is_err() {
                    break;
                }
            }
        });
        self.stop = Some(stop);
        self.app = Some(app);
    }

    /// Leaves the explorer for the list: what runs for its file stops (a
    /// write cut short leaves no partial file, as when quitting).
    fn leave(&mut self) {
        if let Some(app) = self.app.take() {
            let flags = [
                app.search
                    .as_ref()
                    .and_then(|s| s.running.as_ref())
                    .map(|r| r.cancel.clone()),
                app.strings.as_ref().and_then(|s| s.running.clone()),
                app.overview.as_ref().and_then(|o| o.running.clone()),
            ];
            for f in flags.into_iter().flatten() {
                f.store(true, Ordering::Relaxed);
            }
            if let Some(w) = &app.writing {
                w.cancel.store(true, Ordering::Relaxed);
                let _ = std::fs::remove_file(&w.path);
            }
        }
        if let Some(s) = self.stop.take() {
            s.store(true, Ordering::Relaxed);
        }
    }

    /// Draws the explorer, or the list.
    pub fn render(&mut self, frame: &mut Frame<'_>) {
        if let Some(app) = self.app.as_mut() {
            ui::render(app, frame);
            return;
        }
        let area = frame.area();
        self.width = area.width;
        let [body, details, status] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let title = format!(
            " {} ",
            tail(
                &text::clean(&shown(&self.list.root)),
                usize::from(body.width.saturating_sub(4))
            )
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::border(true))
            .title(title);
        let inner = block.inner(body);
        frame.render_widget(block, body);
        let [head, rows] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
        self.rows = rows;
        let page = usize::from(rows.height).max(1);
        if self.selected < self.top {
            self.top = self.selected;
        } else if self.selected >= self.top + page {
            self.top = self.selected + 1 - page;
        }
        self.top = self.top.min(self.shown.len().saturating_sub(page));
        let on_screen: Vec<&Entry> = self.shown[self.top.min(self.shown.len())..]
            .iter()
            .take(page)
            .filter_map(|&i| self.list.entries.get(i))
            .collect();
        let cols = Columns::fit(&on_screen, usize::from(inner.width));
        frame.render_widget(Paragraph::new(cols.header()), head);
        let lines: Vec<Line<'static>> = on_screen
            .iter()
            .enumerate()
            .map(|(k, e)| cols.row(e, self.top + k == self.selected))
            .collect();
        if lines.is_empty() {
            let why = if self.list.walking {
                "reading the folder…"
            } else if self.list.entries.is_empty() {
                "no files"
            } else {
                "no file's path holds the filter (Esc clears it)"
            };
            frame.render_widget(Paragraph::new(Span::styled(why, theme::dim())), rows);
        } else {
            frame.render_widget(Paragraph::new(lines), rows);
        }
        frame.render_widget(Paragraph::new(self.details_line()), details);
        frame.render_widget(
            Paragraph::new(self.status_line(usize::from(status.width))),
            status,
        );
        if let Some(p) = &self.popup {
            popup::render(p, true, frame);
        }
        theme::strip(frame.buffer_mut());
    }

    /// The selected file in full: its path, size, format and every
    /// target, or why it could not be read.
    fn details_line(&self) -> Line<'static> {
        let Some(e) = self
            .shown
            .get(self.selected)
            .and_then(|&i| self.list.entries.get(i))
        else {
            return Line::default();
        };
        let mut spans = vec![
            Span::styled(shown(&e.rel), theme::name()),
            Span::raw(format!("  {}", count(e.size as usize, "byte", "bytes"))),
        ];
        match &e.state {
            State::Waiting => spans.push(Span::styled("  not read yet", theme::dim())),
            State::Failed(why) => spans.push(Span::styled(
                format!("  {}", text::clean(why)),
                theme::warning(),
            )),
            State::Read { summary, changed } => {
                spans.push(Span::styled(
                    format!("  {}", e.format().unwrap_or("-")),
                    theme::value(),
                ));
                if summary.images > 0 {
                    spans.push(Span::raw(format!(
                        "  {}: {}",
                        count(summary.images, "device image", "device images"),
                        text::clean(&summary.targets.join(" "))
                    )));
                }
                if *changed {
                    spans.push(Span::styled(
                        format!("  {}", crate::folders::CHANGED),
                        theme::warning(),
                    ));
                }
            }
        }
        Line::from(spans)
    }

    /// The filter, how many files it keeps, how far the scan has got,
    /// and a message.
    fn status_line(&self, width: usize) -> Line<'static> {
        let mut spans = Vec::new();
        if let Some(p) = &self.pending {
            spans.push(Span::styled(
                format!(
                    " opening {}… {} s (Esc cancels) ",
                    text::clean(&p.name),
                    p.since.elapsed().as_secs()
                ),
                theme::status(),
            ));
            spans.push(Span::raw(" "));
        }
        if let Some((m, err)) = &self.message {
            let style = if *err { theme::error() } else { theme::key() };
            spans.push(Span::styled(format!(" {} ", text::clean(m)), style));
            spans.push(Span::raw(" "));
        }
        if !self.filter.is_empty() {
            spans.push(Span::styled(
                format!(" filter: {} ", text::clean(&self.filter)),
                theme::key(),
            ));
        }
        let l = &self.list;
        spans.push(Span::raw(format!(
            " {} of {} ",
            self.shown.len(),
            count(l.entries.len(), "file", "files")
        )));
        if l.walking {
            spans.push(Span::styled(" walking… ", theme::status()));
        } else if !l.done() {
            spans.push(Span::styled(
                format!(
                    " scanning {}/{} files, {} of {} ",
                    l.read,
                    l.to_read,
                    size(l.bytes_read),
                    size(l.bytes)
                ),
                theme::status(),
            ));
        } else {
            spans.push(Span::raw(format!(
                " {}/{} files read, {} ",
                l.read,
                l.to_read,
                size(l.bytes)
            )));
        }
        if l.links > 0 {
            spans.push(Span::styled(
                format!(
                    " {} not followed ",
                    count(l.links, "symbolic link", "symbolic links")
                ),
                theme::dim(),
            ));
        }
        if self.filter.is_empty() {
            spans.push(Span::styled(" type to filter ", theme::dim()));
        }
        spans.push(Span::styled(
            " Enter explores  ? keys  q quits",
            theme::dim(),
        ));
        let mut used = 0;
        let kept: Vec<Span<'static>> = spans
            .into_iter()
            .take_while(|s| {
                used += s.width();
                used <= width
            })
            .collect();
        Line::from(kept)
    }
}

/// A size in a few columns: bytes up to 9999, then K, M, G (of 1024).
fn size(n: u64) -> String {
    const UNITS: [&str; 4] = ["K", "M", "G", "T"];
    if n < 10_000 {
        return n.to_string();
    }
    let mut f = n as f64 / 1024.0;
    let mut unit = 0;
    while f >= 1000.0 && unit + 1 < UNITS.len() {
        f /= 1024.0;
        unit += 1;
    }
    let digits = if f < 10.0 { 1 } else { 0 };
    format!("{f:.digits$}{}", UNITS[unit])
}

/// The columns of the list for what is on screen: the path, the size
/// (when the width allows), the format, the targets.
struct Columns {
    name: usize,
    size: usize,
    format: usize,
    targets: usize,
}

const GAP: &str = "  ";

impl Columns {
    fn fit(rows: &[&Entry], width: usize) -> Columns {
        let longest = |f: &dyn Fn(&Entry) -> usize| rows.iter().map(|e| f(e)).max().unwrap_or(0);
        let size = if width >= 56 { 6 } else { 0 };
        let format = longest(&|e| e.format().map_or(1, str::len)).clamp(6, (width / 4).max(6));
        let fixed = format + size + 2 * GAP.len() + if size > 0 { GAP.len() } else { 0 };
        let rest = width.saturating_sub(fixed);
        let name = longest(&|e| shown(&e.rel).width())
            .max(4)
            .min(rest.saturating_sub((rest / 3).min(24)));
        Columns {
            name,
            size,
            format,
            targets: rest.saturating_sub(name),
        }
    }

    /// The path and size cells, each followed by a gap.
    fn lead(&self, name: &str, size: &str) -> String {
        let mut s = format!("{:w$}{GAP}", tail(name, self.name), w = self.name);
        if self.size > 0 {
            s.push_str(&format!("{size:>w$}{GAP}", w = self.size));
        }
        s
    }

    fn cells(&self, name: &str, size: &str, format: &str) -> String {
        let f = truncate(format, self.format);
        format!("{}{f:w$}{GAP}", self.lead(name, size), w = self.format)
    }

    fn header(&self) -> Line<'static> {
        Line::from(Span::styled(
            self.cells("name", "size", "format") + "targets",
            theme::dim(),
        ))
    }

    fn row(&self, e: &Entry, selected: bool) -> Line<'static> {
        let name = shown(&e.rel);
        let mut spans = match &e.state {
            State::Read { summary, .. } => vec![
                Span::raw(self.cells(&name, &size(e.size), e.format().unwrap_or("-"))),
                Span::styled(
                    truncate(&text::clean(&summary.targets.join(" ")), self.targets),
                    theme::value(),
                ),
            ],
            State::Waiting => vec![
                Span::raw(self.cells(&name, &size(e.size), "")),
                Span::styled("…", theme::dim()),
            ],
            State::Failed(why) => {
                let lead = self.lead(&name, &size(e.size));
                let room = self.format + GAP.len() + self.targets;
                vec![
                    Span::raw(lead),
                    Span::styled(truncate(&text::clean(why), room), theme::warning()),
                ]
            }
        };
        if selected {
            let style = theme::tree_selected(true);
            for s in &mut spans {
                s.style = s.style.patch(style);
            }
        }
        Line::from(spans)
    }
}

#[cfg(test)]
mod tests {
    use super::{size, LIST_KEYS};

    #[test]
    fn the_key_table_has_the_lists_row() {
        assert!(super::keys::KEYS.iter().any(|(k, _)| *k == LIST_KEYS));
    }

    #[test]
    fn sizes_fit_in_a_few_columns() {
        assert_eq!(size(0), "0");
        assert_eq!(size(9999), "9999");
        assert_eq!(size(10_000), "9.8K");
        assert_eq!(size(3 << 20), "3.0M");
        assert_eq!(size(500 << 20), "500M");
        assert_eq!(size(5 << 30), "5.0G");
    }
}
