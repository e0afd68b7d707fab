//! `fwview A B`: two trees side by side, aligned node by node, each row
//! marked same (blank), changed `~`, added `+` or removed `-`, with the
//! two hex panes below following the selection and marking the bytes that
//! differ. The whole diff runs once in the background on a second pair of
//! trees; only the addresses of what changed are kept.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::changes::{align, join, Changes, Mark, Row};
use super::columns::truncate;
use super::theme;
use crate::model::{NodeId, Numbers, Source, Tree};

/// Which pane takes the movement keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Hex,
}

pub struct SideBySide {
    pub a: Tree,
    pub b: Tree,
    pub names: (String, String),
    pub opened: HashSet<String>,
    pub rows: Vec<Row>,
    pub sel: usize,
    pub top: usize,
    pub hex_top: u64,
    /// Bytes a row in the hex panes, as last drawn.
    hex_per: u64,
    pub focus: Focus,
    pub only_changes: bool,
    pub changes: Option<Changes>,
    pub pending: Option<char>,
    pub quit: bool,
    pub message: String,
    tree_rows: usize,
    hex_rows: usize,
}

impl SideBySide {
    pub fn new(a: Tree, b: Tree, names: (String, String)) -> SideBySide {
        let mut s = SideBySide {
            a,
            b,
            names,
            opened: HashSet::from([String::new()]),
            rows: Vec::new(),
            sel: 0,
            top: 0,
            hex_top: 0,
            hex_per: 16,
            focus: Focus::Tree,
            only_changes: false,
            changes: None,
            pending: None,
            quit: false,
            message: String::new(),
            tree_rows: 10,
            hex_rows: 4,
        };
        s.rebuild();
        s
    }

    fn mark(&self, a: Option<NodeId>, b: Option<NodeId>, path: &str) -> Mark {
        match (a, b) {
            (Some(_), None) => Mark::Removed,
            (None, Some(_)) => Mark::Added,
            _ => match &self.changes {
                Some(c) => c.both(path),
                None => Mark::Pending,
            },
        }
    }

    /// Lays the opened part of both trees out as aligned rows, keeping the
    /// selection on the same address.
    pub fn rebuild(&mut self) {
        let keep = self.rows.get(self.sel).map(|r| r.path.clone());
        let mut rows = Vec::new();
        let (ra, rb) = (self.a.root(), self.b.root());
        self.push(&mut rows, Some(ra), Some(rb), 0, String::new());
        self.rows = rows;
        if let Some(p) = keep {
            self.select_path(&p);
        }
        self.sel = self.sel.min(self.rows.len().saturating_sub(1));
    }

    fn push(
        &mut self,
        rows: &mut Vec<Row>,
        a: Option<NodeId>,
        b: Option<NodeId>,
        depth: usize,
        path: String,
    ) {
        let mark = self.mark(a, b, &path);
        if self.only_changes && mark == Mark::Same && depth > 0 {
            return;
        }
        let has_kids =
            a.is_some_and(|x| self.a.has_children(x)) || b.is_some_and(|y| self.b.has_children(y));
        let open = self.opened.contains(&path);
        rows.push(Row {
            a,
            b,
            depth,
            path: path.clone(),
            mark,
            has_kids,
        });
        if !open || !has_kids {
            return;
        }
        let ka = a.map(|x| self.a.children(x)).unwrap_or_default();
        let kb = b.map(|y| self.b.children(y)).unwrap_or_default();
        for (x, y) in align(&self.a, &ka, &self.b, &kb) {
            let seg = match (x, y) {
                (_, Some(y)) => self.b.segment(y),
                (Some(x), None) => self.a.segment(x),
                (None, None) => continue,
            };
            self.push(rows, x, y, depth + 1, join(&path, &seg));
        }
    }

    /// Opens the ancestors of `path` and selects it, if it is there.
    pub fn select_path(&mut self, path: &str) -> bool {
        match self.rows.iter().position(|r| r.path == path) {
            Some(i) => {
                self.sel = i;
                true
            }
            None => false,
        }
    }

    fn selected(&self) -> Option<&Row> {
        self.rows.get(self.sel)
    }

    fn set_sel(&mut self, i: usize) {
        let i = i.min(self.rows.len().saturating_sub(1));
        if i != self.sel {
            self.hex_top = 0;
        }
        self.sel = i;
    }

    fn toggle(&mut self, open: Option<bool>) {
        let Some(r) = self.selected().cloned() else {
            return;
        };
        let is_open = self.opened.contains(&r.path);
        let want = open.unwrap_or(!is_open);
        if want && r.has_kids && !is_open {
            self.opened.insert(r.path);
            self.rebuild();
        } else if !want && is_open && r.has_kids {
            self.opened.remove(&r.path);
            self.rebuild();
        } else if !want {
            // Left on a closed node: go to its parent.
            let d = r.depth;
            if let Some(p) = self
                .rows
                .get(..self.sel)
                .and_then(|s| s.iter().rposition(|x| x.depth < d))
            {
                self.set_sel(p);
            }
        }
    }

    /// Whether row `i` is itself a change (not only above one).
    fn is_change(&self, i: usize) -> bool {
        let Some(r) = self.rows.get(i) else {
            return false;
        };
        match r.mark {
            Mark::Added | Mark::Removed => true,
            Mark::Changed => self
                .changes
                .as_ref()
                .is_some_and(|c| c.exact.contains_key(&r.path)),
            _ => false,
        }
    }

    /// Whether row `i` is closed and has changes below it.
    fn closed_with_changes(&self, i: usize) -> bool {
        let Some(r) = self.rows.get(i) else {
            return false;
        };
        r.mark == Mark::Changed
            && r.has_kids
            && !self.opened.contains(&r.path)
            && self.changes.as_ref().is_some_and(|c| c.inside(&r.path))
    }

    /// `]c`: the next change after the selection, opening what holds it.
    pub fn next_change(&mut self) {
        if self.changes.is_none() {
            self.message = "still comparing".into();
            return;
        }
        let mut i = self.sel;
        if self.closed_with_changes(i) {
            let p = self.rows.get(i).map(|r| r.path.clone()).unwrap_or_default();
            self.opened.insert(p);
            self.rebuild();
        }
        i += 1;
        while i < self.rows.len() {
            if self.closed_with_changes(i) {
                let p = self.rows.get(i).map(|r| r.path.clone()).unwrap_or_default();
                self.opened.insert(p);
                self.rebuild();
                if self.is_change(i) {
                    break;
                }
                i += 1;
                continue;
            }
            if self.is_change(i) {
                break;
            }
            i += 1;
        }
        if i < self.rows.len() {
            self.set_sel(i);
            self.message.clear();
        } else {
            self.message = "no change below".into();
        }
    }

    /// `[c`: the previous change before the selection.
    pub fn prev_change(&mut self) {
        if self.changes.is_none() {
            self.message = "still comparing".into();
            return;
        }
        let mut i = self.sel;
        while i > 0 {
            i -= 1;
            if self.closed_with_changes(i) {
                let p = self.rows.get(i).map(|r| r.path.clone()).unwrap_or_default();
                let before = self.rows.len();
                self.opened.insert(p);
                self.rebuild();
                // Scan again from the end of what opened.
                let grown = self.rows.len().saturating_sub(before);
                if self.sel > i {
                    self.sel += grown;
                }
                i += grown + 1;
                continue;
            }
            if self.is_change(i) {
                self.set_sel(i);
                self.message.clear();
                return;
            }
        }
        self.message = "no change above".into();
    }

    fn move_by(&mut self, d: isize) {
        match self.focus {
            Focus::Tree => {
                let n = self.sel as isize + d;
                self.set_sel(n.max(0) as usize);
            }
            Focus::Hex => {
                let t = self.hex_top as i64 + d as i64;
                let rows = self.hex_len().div_ceil(self.hex_per.max(1));
                self.hex_top = (t.max(0) as u64).min(rows.saturating_sub(1));
            }
        }
    }

    fn hex_len(&self) -> u64 {
        let Some(r) = self.selected() else { return 0 };
        let la = r.a.and_then(|x| self.a.node(x)).map_or(0, |n| n.size);
        let lb = r.b.and_then(|y| self.b.node(y)).map_or(0, |n| n.size);
        la.max(lb)
    }

    pub fn key(&mut self, code: KeyCode, mods: KeyModifiers) {
        if let Some(p) = self.pending.take() {
            match (p, code) {
                (']', KeyCode::Char('c')) => self.next_change(),
                ('[', KeyCode::Char('c')) => self.prev_change(),
                _ => {}
            }
            return;
        }
        if mods.contains(KeyModifiers::CONTROL) && code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        let page = match self.focus {
            Focus::Tree => self.tree_rows.max(1) as isize,
            Focus::Hex => self.hex_rows.max(1) as isize,
        };
        match code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Char(']') => self.pending = Some(']'),
            KeyCode::Char('[') => self.pending = Some('['),
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::PageUp => self.move_by(-page),
            KeyCode::PageDown => self.move_by(page),
            KeyCode::Home | KeyCode::Char('g') => self.move_by(-(isize::MAX / 2)),
            KeyCode::End | KeyCode::Char('G') => self.move_by(isize::MAX / 2),
            KeyCode::Right | KeyCode::Char('l') => self.toggle(Some(true)),
            KeyCode::Left | KeyCode::Char('h') => self.toggle(Some(false)),
            KeyCode::Enter | KeyCode::Char(' ') => self.toggle(None),
            KeyCode::Tab => {
                self.focus = match self.focus {
                    Focus::Tree => Focus::Hex,
                    Focus::Hex => Focus::Tree,
                }
            }
            KeyCode::Char('=') => {
                self.only_changes = !self.only_changes;
                self.rebuild();
            }
            _ => {}
        }
    }

    /// The background diff answered.
    pub fn set_changes(&mut self, c: Changes) {
        self.changes = Some(c);
        self.rebuild();
    }

    fn row_line(&self, r: &Row, side: bool, width: usize) -> Line<'static> {
        let (t, id) = if side { (&self.b, r.b) } else { (&self.a, r.a) };
        let sign = Span::styled(format!("{} ", r.mark.sign()), r.mark.style());
        let indent = " ".repeat(r.depth * 2);
        let Some(n) = id.and_then(|i| t.node(i)) else {
            return Line::from(vec![sign, Span::raw(indent)]);
        };
        let open = if !r.has_kids {
            "  "
        } else if self.opened.contains(&r.path) {
            "▼ "
        } else {
            "▶ "
        };
        let range = format!("[0x{:x}+0x{:x}]", n.offset, n.size);
        let avail = width.saturating_sub(r.depth * 2 + 4);
        let name = truncate(
            &crate::model::text::clean(&n.name),
            avail.saturating_sub(range.len() + 1).max(8),
        );
        let name_style = match r.mark {
            Mark::Same | Mark::Pending => theme::name(),
            m => m.style(),
        };
        let mut spans = vec![sign, Span::raw(indent), Span::raw(open)];
        // An instruction: address, bytes and text in columns.
        if let Some(crate::model::Value::Insn { text: insn, src }) = &n.value {
            let bytes = id.map(|i| t.node_bytes(i)).unwrap_or_default();
            spans.extend(super::coderow::spans(
                &n.name,
                name_style,
                bytes,
                insn,
                src.as_deref(),
                avail,
            ));
            return Line::from(spans);
        }
        // In the order `--tree` prints a node (and the single view shows
        // it): name, range, value.
        spans.push(Span::styled(name.clone(), name_style));
        let used = unicode_width::UnicodeWidthStr::width(name.as_str()) + range.len() + 2;
        spans.push(Span::raw(" "));
        spans.push(Span::styled(range, theme::dim()));
        if let Some(v) = &n.value {
            let room = avail.saturating_sub(used);
            if room >= 4 {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(
                    truncate(&v.shown(Numbers::Natural), room),
                    theme::value(),
                ));
            }
        }
        Line::from(spans)
    }

    fn render_tree(&self, f: &mut Frame<'_>, area: Rect, side: bool) {
        let (title, other) = if side {
            (&self.names.1, &self.names.0)
        } else {
            (&self.names.0, &self.names.1)
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::border(self.focus == Focus::Tree))
            .title(format!(
                " {} ",
                super::columns::distinct(title, other, area.width.saturating_sub(4) as usize)
            ));
        let inner = block.inner(area);
        let width = inner.width as usize;
        let lines: Vec<Line> = self
            .rows
            .iter()
            .enumerate()
            .skip(self.top)
            .take(inner.height as usize)
            .map(|(i, r)| {
                let l = self.row_line(r, side, width);
                if i == self.sel {
                    l.style(theme::tree_selected(self.focus == Focus::Tree))
                } else {
                    l
                }
            })
            .collect();
        f.render_widget(Paragraph::new(lines).block(block), area);
    }

    fn render_hex(&self, f: &mut Frame<'_>, area: Rect, side: bool) {
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::border(self.focus == Focus::Hex))
            .title(if side { " B bytes " } else { " A bytes " });
        let inner = block.inner(area);
        let r = self.selected();
        let (mine, other, base) = match r {
            Some(r) => {
                let (x, y) = if side { (r.b, r.a) } else { (r.a, r.b) };
                let (tm, to) = if side {
                    (&self.b, &self.a)
                } else {
                    (&self.a, &self.b)
                };
                (
                    x.map(|x| tm.node_bytes(x)).unwrap_or_default(),
                    y.map(|y| to.node_bytes(y)).unwrap_or_default(),
                    x.and_then(|x| tm.node(x)).map_or(0, |n| n.offset),
                )
            }
            None => (&[][..], &[][..], 0),
        };
        let per = self.hex_per.max(1);
        let mut lines = Vec::new();
        for row in 0..inner.height as u64 {
            let start = (self.hex_top + row) * per;
            if start >= mine.len() as u64 {
                break;
            }
            let mut spans = vec![Span::styled(
                format!("{:08x}  ", base + start),
                theme::dim(),
            )];
            let mut text = Vec::new();
            for k in 0..per {
                let i = (start + k) as usize;
                match mine.get(i) {
                    Some(&byte) => {
                        let differs = other.get(i) != Some(&byte);
                        let st = if differs {
                            Style::new()
                                .fg(Color::LightRed)
                                .add_modifier(Modifier::REVERSED | Modifier::BOLD)
                        } else {
                            Style::new().fg(theme::byte_fg(theme::class(byte)))
                        };
                        spans.push(Span::styled(format!("{byte:02x}"), st));
                        spans.push(Span::raw(" "));
                        text.push(Span::styled(theme::byte_char(byte).to_string(), st));
                    }
                    None => spans.push(Span::raw("   ")),
                }
            }
            spans.push(Span::raw(" "));
            spans.extend(text);
            lines.push(Line::from(spans));
        }
        f.render_widget(Paragraph::new(lines).block(block), area);
    }

    pub fn render(&mut self, f: &mut Frame<'_>) {
        let [body, status] =
            Layout::vertical([Constraint::Min(4), Constraint::Length(1)]).areas(f.area());
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(body);
        let hex_h = (body.height / 3).clamp(3, 12);
        let [ta, ha] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(hex_h)]).areas(left);
        let [tb, hb] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(hex_h)]).areas(right);
        self.tree_rows = ta.height.saturating_sub(2) as usize;
        self.hex_rows = ha.height.saturating_sub(2) as usize;
        // Offset, bytes, text: 10 + 3 per byte + 1 + 1 per byte; the most
        // bytes a row whose text column shows whole.
        let inner_w = u64::from(ha.width.saturating_sub(2));
        self.hex_per = [16, 8, 4, 2]
            .into_iter()
            .find(|&n| 10 + 4 * n < inner_w)
            .unwrap_or(1);
        let h = self.tree_rows.max(1);
        if self.sel < self.top {
            self.top = self.sel;
        } else if self.sel >= self.top + h {
            self.top = self.sel + 1 - h;
        }
        self.render_tree(f, ta, false);
        self.render_tree(f, tb, true);
        self.render_hex(f, ha, false);
        self.render_hex(f, hb, true);
        let counts = match &self.changes {
            Some(c) if c.counts.is_empty() => "no difference".to_string(),
            Some(c) => format!(
                "~{} changed  +{} added  -{} removed",
                c.counts.changed, c.counts.added, c.counts.removed
            ),
            None => "comparing…".to_string(),
        };
        let mut spans = vec![Span::styled(format!(" {counts} "), theme::key())];
        if self.only_changes {
            spans.push(Span::raw("│ only changes "));
        }
        if !self.message.is_empty() {
            spans.push(Span::styled(
                format!("│ {} ", self.message),
                theme::warning(),
            ));
        }
        spans.push(Span::raw("│ ]c [c change  = only changes  Tab hex  q quit"));
        f.render_widget(
            Paragraph::new(Line::from(spans)).style(theme::status()),
            status,
        );
        theme::strip(f.buffer_mut());
    }
}

fn open(path: &Path, options: crate::model::Options) -> io::Result<Tree> {
    let src = Arc::new(Source::open(path)?);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    Ok(crate::formats::build_tree_with(src, &name, options))
}

/// Runs the side-by-side view of two parsed files until the user quits.
pub fn run(a: Tree, b: Tree, paths: (PathBuf, PathBuf)) -> io::Result<()> {
    use std::io::IsTerminal;
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(io::Error::other(
            "not a terminal; use --diff for output to a pipe or a file",
        ));
    }
    let names = (
        crate::model::text::clean(&paths.0.display().to_string()).into_owned(),
        crate::model::text::clean(&paths.1.display().to_string()).into_owned(),
    );
    let options = a.options();
    let mut app = SideBySide::new(a, b, names);
    let (tx, rx) = mpsc::channel::<Changes>();
    let (pa, pb) = paths;
    thread::spawn(move || {
        if let (Ok(mut a), Ok(mut b)) = (open(&pa, options), open(&pb, options)) {
            let _ = tx.send(Changes::compute(&mut a, &mut b));
        }
    });
    let mut terminal = super::terminal::setup()?;
    let r = (|| -> io::Result<()> {
        while !app.quit {
            terminal.draw(|f| app.render(f))?;
            if let Ok(c) = rx.try_recv() {
                app.set_changes(c);
                continue;
            }
            if event::poll(Duration::from_millis(100))? {
                if let Event::Key(k) = event::read()? {
                    if k.kind != KeyEventKind::Release {
                        app.key(k.code, k.modifiers);
                    }
                }
            }
        }
        Ok(())
    })();
    super::terminal::restore();
    r
}
