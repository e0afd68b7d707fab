//! Two views of the whole file, computed in the background: `s` lists the
//! strings of every byte space (as `strings -a -n 4` finds them), `o`
//! shows each block's entropy and what it looks like (zeros, text,
//! compressed or encrypted). Enter in either jumps to the bytes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ratatui::text::{Line, Span};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::App;
use super::message::Message;
use super::popup::Popup;
use super::scans::{Overview, StrGroup, Strings, BLOCKS, MAX_STRINGS, MIN_LEN};
use super::{columns, popup, status, theme};
use crate::scan::{self, Block, Kind};

/// The string of `len` bytes at `off` of `data` (printable ASCII, so the
/// lossy conversion loses nothing of a string `scan::strings` found).
fn text_at(data: &[u8], off: u64, len: u32) -> String {
    let start = usize::try_from(off).unwrap_or(usize::MAX);
    let b = data
        .get(start..start.saturating_add(len as usize))
        .unwrap_or_default();
    String::from_utf8_lossy(b).into_owned()
}

/// Finds the strings of every byte space of `tree`.
fn find_all(
    tree: &mut crate::model::Tree,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Vec<StrGroup>, bool) {
    let (hits, mut complete) = scan::strings(tree.data(), MIN_LEN, MAX_STRINGS, cancel, progress);
    let mut left = MAX_STRINGS - hits.len();
    let mut groups = vec![StrGroup {
        root: None,
        describe: String::new(),
        hits,
        texts: Vec::new(),
    }];
    if complete {
        for (sid, root) in crate::search::space_roots(tree, cancel, &mut |_| {}) {
            if cancel.load(Ordering::Relaxed) || left == 0 {
                complete = false;
                break;
            }
            let data = tree.space_bytes(sid);
            let (hits, done) = scan::strings(data, MIN_LEN, left, cancel, &mut |_| {});
            complete &= done;
            left -= hits.len();
            if hits.is_empty() {
                continue;
            }
            let texts = hits
                .iter()
                .map(|&(o, n)| text_at(data, o, n).into())
                .collect();
            let describe = tree
                .spaces()
                .get(sid.index())
                .map(|s| s.describe())
                .unwrap_or_default();
            groups.push(StrGroup {
                root: Some(root),
                describe,
                hits,
                texts,
            });
        }
    }
    (groups, complete && !cancel.load(Ordering::Relaxed))
}

impl App {
    /// `s`: the strings list, found first if they are not yet.
    pub fn open_strings(&mut self) {
        self.popup = Some(Popup::Strings { selected: 0 });
        if self.strings.is_some() {
            return;
        }
        self.next_search_id += 1;
        let id = self.next_search_id;
        let src = self.doc.tree.source().clone();
        let name = self.doc.tree.name(self.doc.tree.root()).to_string();
        let (rebuild, options) = (self.rebuild, self.doc.tree.options());
        let cancel = Arc::new(AtomicBool::new(false));
        self.strings = Some(Strings {
            id,
            running: Some(cancel.clone()),
            ..Strings::default()
        });
        let run = move |progress: &mut dyn FnMut(u64)| {
            let mut tree = rebuild(src, &name, options);
            find_all(&mut tree, &cancel, progress)
        };
        match &self.tx {
            Some(tx) => {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let t = tx.clone();
                    let (groups, complete) = run(&mut |done| {
                        let _ = t.send(Message::StringsProgress { id, done });
                    });
                    let _ = tx.send(Message::StringsDone {
                        id,
                        groups,
                        complete,
                    });
                });
            }
            None => {
                let (groups, complete) = run(&mut |_| {});
                self.strings_done(id, groups, complete);
            }
        }
    }

    pub(super) fn strings_progress(&mut self, id: u64, done: u64) {
        if let Some(s) = self.strings.as_mut().filter(|s| s.id == id) {
            s.done = done;
        }
    }

    pub(super) fn strings_done(&mut self, id: u64, groups: Vec<StrGroup>, complete: bool) {
        if let Some(s) = self.strings.as_mut().filter(|s| s.id == id) {
            s.running = None;
            s.groups = groups;
            s.complete = complete;
        }
    }

    /// `o`: the overview of the file's blocks, measured first if not yet.
    pub fn open_overview(&mut self) {
        self.popup = Some(Popup::Overview { selected: 0 });
        if self.overview.is_some() {
            return;
        }
        self.next_search_id += 1;
        let id = self.next_search_id;
        let src = self.doc.tree.source().clone();
        let cancel = Arc::new(AtomicBool::new(false));
        self.overview = Some(Overview {
            id,
            running: Some(cancel.clone()),
            blocks: None,
        });
        match &self.tx {
            Some(tx) => {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    if let Some(blocks) = scan::blocks(src.bytes(), BLOCKS, &cancel) {
                        let _ = tx.send(Message::OverviewDone { id, blocks });
                    }
                });
            }
            None => {
                let blocks = scan::blocks(src.bytes(), BLOCKS, &cancel).unwrap_or_default();
                self.overview_done(id, blocks);
            }
        }
    }

    pub(super) fn overview_done(&mut self, id: u64, blocks: Vec<Block>) {
        if let Some(o) = self.overview.as_mut().filter(|o| o.id == id) {
            o.running = None;
            o.blocks = Some(blocks);
        }
    }

    /// The number of rows of the strings or overview list.
    pub fn overview_rows(&self, strings: bool) -> usize {
        if strings {
            self.strings.as_ref().map_or(0, Strings::len)
        } else {
            self.overview
                .as_ref()
                .and_then(|o| o.blocks.as_ref())
                .map_or(0, Vec::len)
        }
    }

    /// Goes to the i-th string.
    pub(super) fn jump_string(&mut self, i: usize) {
        let Some((root, off, len)) = self.strings.as_ref().and_then(|s| {
            let (g, k) = s.locate(i)?;
            let &(off, len) = g.hits.get(k)?;
            Some((g.root.clone(), off, u64::from(len)))
        }) else {
            return;
        };
        match root {
            None => self.jump(off, len),
            Some(r) => match self.doc.tree.find_path(&r) {
                Some(top) => self.jump_from(top, self.doc.tree.span_in(top, off, len)),
                None => {
                    self.message = Some((
                        "the string's byte space is not in the tree now".into(),
                        true,
                    ))
                }
            },
        }
    }

    /// Goes to the i-th block of the overview.
    pub(super) fn jump_block(&mut self, i: usize) {
        let b = self
            .overview
            .as_ref()
            .and_then(|o| o.blocks.as_ref())
            .and_then(|b| b.get(i))
            .copied();
        if let Some(b) = b {
            self.jump(b.offset, 1);
        }
    }

    /// The text of the i-th string, as shown (escaped for the terminal).
    pub fn string_text(&self, i: usize) -> Option<(Option<&str>, u64, String)> {
        let s = self.strings.as_ref()?;
        let (g, k) = s.locate(i)?;
        let &(off, len) = g.hits.get(k)?;
        let text = match g.texts.get(k) {
            Some(t) => t.to_string(),
            None => text_at(self.doc.tree.data(), off, len),
        };
        Some((g.root.as_deref(), off, text))
    }
}

/// Draws the strings list (`s`).
pub fn render_strings(app: &App, frame: &mut Frame<'_>, selected: usize) {
    let (total, title) = match &app.strings {
        Some(s) if s.running.is_some() => (
            0,
            format!(
                " Strings: looking… {} of {} (Esc closes) ",
                status::bytes(s.done),
                status::bytes(app.doc.tree.data().len() as u64)
            ),
        ),
        Some(s) => (
            s.len(),
            format!(
                " {}{} strings (Enter jumps, Esc closes) ",
                s.len(),
                if s.complete { "" } else { " (the first)" }
            ),
        ),
        None => (0, " Strings ".into()),
    };
    popup::render_window(frame, title, total, selected, &|i, w| {
        let Some((root, off, text)) = app.string_text(i) else {
            return Line::from("");
        };
        let at = match root {
            None => format!(" 0x{off:08x}  "),
            Some(_) => format!(" +0x{off:07x}  "),
        };
        let room = w.saturating_sub(at.width() + 1);
        let shown = columns::truncate(&crate::model::text::clean(&text), room);
        let mut spans = vec![Span::styled(at, theme::dim()), Span::raw(shown)];
        if let Some(r) = root {
            let left = w.saturating_sub(spans.iter().map(|s| s.width()).sum::<usize>() + 3);
            if left > 8 {
                spans.push(Span::styled(
                    format!("  in {}", status::tail(&crate::model::text::clean(r), left)),
                    theme::dim(),
                ));
            }
        }
        Line::from(spans)
    });
}

/// Draws the overview of the file's blocks (`o`).
pub fn render_blocks(app: &App, frame: &mut Frame<'_>, selected: usize) {
    let blocks = app.overview.as_ref().and_then(|o| o.blocks.as_deref());
    let (total, title) = match blocks {
        None => (0, " Overview: measuring… (Esc closes) ".to_string()),
        Some(b) => (
            b.len(),
            format!(
                " Entropy of {} blocks of {} (Enter jumps, Esc closes) ",
                b.len(),
                status::bytes(b.first().map_or(0, |b| b.size))
            ),
        ),
    };
    let blocks = blocks.unwrap_or_default();
    popup::render_window(frame, title, total, selected, &|i, w| {
        let Some(b) = blocks.get(i) else {
            return Line::from("");
        };
        const BAR: usize = 16;
        let full = ((b.entropy / 8.0) * BAR as f32).round() as usize;
        let bar: String = "█".repeat(full.min(BAR)) + &"·".repeat(BAR - full.min(BAR));
        let style = match b.kind() {
            Kind::Random => theme::warning(),
            Kind::Zeros | Kind::MostlyZeros => theme::dim(),
            Kind::Text | Kind::Other => theme::value(),
        };
        let mut spans = vec![
            Span::styled(format!(" 0x{:08x}  ", b.offset), theme::dim()),
            Span::styled(bar, style),
            Span::raw(format!(" {:.2}", b.entropy)),
        ];
        if w > 40 {
            spans.push(Span::styled(format!("  {}", b.kind().as_str()), style));
        }
        Line::from(spans)
    });
}
