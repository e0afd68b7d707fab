//! The explorer's state and every change made to it. Keys become
//! [`Command`]s in `keys.rs`; [`App::run_command`] applies them; `ui.rs`
//! only draws.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use ratatui::layout::{Position, Rect};
use tui_tree_widget::TreeState;

use super::changes::{Changes, Compare};
pub use super::command::{Command, Focus, Pending};
use super::document::Document;
use super::matches::{Rebuild, SearchState};
use super::message::{Message, Writing};
use super::popup::{Effect, Outcome, Popup, Prompt, PromptKind};
use crate::diff::Counts;
use crate::model::space::FILE;
use crate::model::Numbers;
use crate::model::{NodeId, SpaceId, Tree};

/// The jump history keeps at least this many places.
pub const HISTORY: usize = 1000;

/// At most this many bytes are copied as hex by `y b`.
pub const MAX_COPY: u64 = 64 << 10;

/// A place the user was: the cursor and the selected node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub cursor: u64,
    pub node: NodeId,
}

/// How the body is shared between the tree and the hex pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panes {
    /// The tree keeps room for names and values; the hex pane takes 16, 8
    /// or 4 bytes a row beside it.
    Auto,
    /// The hex pane takes as many bytes a row as fit beside a narrow tree.
    WideHex,
    /// The hex pane alone, across the whole width.
    HexOnly,
}

impl Panes {
    pub fn next(self) -> Panes {
        match self {
            Panes::Auto => Panes::WideHex,
            Panes::WideHex => Panes::HexOnly,
            Panes::HexOnly => Panes::Auto,
        }
    }
    fn said(self) -> &'static str {
        match self {
            Panes::Auto => "panes: tree and hex as they fit (w cycles)",
            Panes::WideHex => "panes: the hex pane wide (w cycles)",
            Panes::HexOnly => "panes: the hex pane alone (w cycles)",
        }
    }
}

/// Sizes found while drawing, needed to move by pages and map clicks.
#[derive(Clone, Copy, Debug, Default)]
pub struct View {
    pub tree_area: Rect,
    pub hex_area: Rect,
    /// Inner hex area (without the border).
    pub hex_inner: Rect,
    pub hex_rows: u64,
    pub bytes_per_row: u64,
    pub tree_rows: usize,
    /// The inspector found room on screen.
    pub inspector_shown: bool,
}

/// The descriptions read with `K` that are watched for changes, each with
/// the flag that stops its watcher (set when the explorer goes).
#[derive(Default)]
pub struct Watched(pub(super) Vec<(PathBuf, Arc<AtomicBool>)>);

impl Drop for Watched {
    fn drop(&mut self) {
        for (_, stop) in &self.0 {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

/// The explorer: the document (the file and its tree) and the view of it.
/// Of the view, the part that names nodes of the tree (selection, open
/// nodes, cursor, jump list, search, marks) is set by
/// `App::reset_view` when a document comes in; the rest (focus, pane
/// sizes, popups, prompt history, inspector, number style) outlives a
/// reload.
pub struct App {
    pub doc: Document,
    pub focus: Focus,
    pub tree_state: TreeState<NodeId>,
    pub opened: HashSet<NodeId>,
    /// Nodes opened only to show the selection: they close again when it
    /// leaves them.
    pub auto_opened: HashSet<NodeId>,
    pub selected: NodeId,
    pub cursor: u64,
    /// The first row shown in the hex pane.
    pub hex_top: u64,
    pub view: View,
    pub popup: Option<Popup>,
    /// A one-line message for the status bar (text, is it an error).
    pub message: Option<(String, bool)>,
    pub quit: bool,
    pub pending: Option<Pending>,
    pub case_sensitive: bool,
    pub search: Option<SearchState>,
    /// Where a range of bytes being chosen (`v`) starts: its byte space
    /// and offset; the cursor is its other end.
    pub visual: Option<(crate::model::SpaceId, u64)>,
    /// The open file is no longer at its path (deleted or moved away).
    pub gone: bool,
    /// The strings of the file (`s`), once asked for.
    pub strings: Option<super::scans::Strings>,
    /// The file's blocks measured (`o`), once asked for.
    pub overview: Option<super::scans::Overview>,
    /// The tree's filter (`F`), if one is in force.
    pub filter: Option<super::filter::Filter>,
    pub(super) next_search_id: u64,
    pub back: Vec<Location>,
    pub forward: Vec<Location>,
    /// Marks: where the cursor was, with its node (and so its space).
    pub marks: BTreeMap<char, Location>,
    /// Where marks are kept between runs, and this file's key there (its
    /// canonical path's bytes).
    pub marks_store: Option<(std::path::PathBuf, Vec<u8>)>,
    pub inspector: bool,
    pub inspector_big_first: bool,
    /// How the body is shared between the tree and the hex pane (`w`).
    pub panes: Panes,
    /// How numbers in values are shown (natural, hex, decimal).
    pub numbers: Numbers,
    /// Text waiting to be sent to the terminal's clipboard (OSC 52).
    pub clipboard: Option<String>,
    /// Where background work reports back; without it, searches run at once.
    pub tx: Option<mpsc::Sender<Message>>,
    /// Where the tree pane was to scroll to for a selection, when it
    /// scrolled less far (the tree widget scrolls only as far as the rows
    /// it drew last): scrolled there as the panes are drawn
    /// (`ui::render_panes`).
    pub(super) rescroll: Option<usize>,
    /// The write running in the background, if any.
    pub writing: Option<Writing>,
    pub(super) next_write_id: u64,
    /// What was entered in each prompt, oldest first.
    pub history: std::collections::HashMap<&'static str, Vec<String>>,
    /// Makes the second tree a search runs on (the same parser as `tree`).
    pub rebuild: Rebuild,
    /// Reads a node with a `.ksy` description (`K`).
    pub describe: super::document::Describe,
    /// The descriptions read with `K`, watched for changes.
    pub(super) watched: Watched,
    /// What the last reload changed, marked on the tree's rows until Esc.
    pub reloaded: Option<Changes>,
    /// With two files: which one this explorer shows and what differs.
    pub compare: Option<Compare>,
    /// The file was opened from a folder's list: Esc with nothing to
    /// close, or Backspace on the root, asks to go back to it (`leave`).
    pub from_list: bool,
    pub leave: bool,
}

impl App {
    /// The explorer on `tree`, parsed from the file at `path`.
    pub fn new(tree: Tree, path: impl Into<PathBuf>) -> App {
        let root = tree.root();
        let mut app = App {
            doc: Document::new(tree, path),
            focus: Focus::Tree,
            tree_state: TreeState::default(),
            opened: HashSet::new(),
            auto_opened: HashSet::new(),
            selected: root,
            cursor: 0,
            hex_top: 0,
            view: View {
                bytes_per_row: 16,
                hex_rows: 16,
                tree_rows: 16,
                ..View::default()
            },
            popup: None,
            message: None,
            quit: false,
            pending: None,
            case_sensitive: true,
            search: None,
            filter: None,
            gone: false,
            strings: None,
            overview: None,
            visual: None,
            next_search_id: 0,
            back: Vec::new(),
            forward: Vec::new(),
            marks: BTreeMap::new(),
            marks_store: None,
            numbers: Numbers::Natural,
            inspector: false,
            panes: Panes::Auto,
            inspector_big_first: false,
            clipboard: None,
            tx: None,
            rescroll: None,
            rebuild: crate::formats::build_tree_with,
            describe: crate::formats::describe,
            watched: Default::default(),
            reloaded: None,
            compare: None,
            writing: None,
            next_write_id: 0,
            history: Default::default(),
            from_list: false,
            leave: false,
        };
        app.reset_view();
        app
    }

    /// Puts the view on the document's root: nothing open but the root,
    /// no jump list, no search, no reload marks.
    fn reset_view(&mut self) {
        let root = self.doc.tree.root();
        self.tree_state = TreeState::default();
        self.opened.clear();
        self.auto_opened.clear();
        self.selected = root;
        self.cursor = 0;
        self.hex_top = 0;
        self.back.clear();
        self.forward.clear();
        self.marks.clear();
        self.reloaded = None;
        self.filter = None;
        self.visual = None;
        for c in [
            self.strings.take().and_then(|s| s.running),
            self.overview.take().and_then(|o| o.running),
        ]
        .into_iter()
        .flatten()
        {
            c.store(true, Ordering::Relaxed);
        }
        if let Some(st) = self.search.take() {
            if let Some(r) = st.running {
                r.cancel.store(true, Ordering::Relaxed);
            }
        }
        // Lists of the old tree's marks and diagnostics close.
        if matches!(
            self.popup,
            Some(
                Popup::Marks { .. }
                    | Popup::Diagnostics { .. }
                    | Popup::Strings { .. }
                    | Popup::Overview { .. }
            )
        ) {
            self.popup = None;
        }
        self.open(root);
        self.select(root, true);
        if self.doc.tree.data().is_empty() {
            self.message = Some(("the file is empty".into(), false));
        }
    }

    /// Swaps in a new parse of the file: the view starts again on it and
    /// goes back to the node at the address that was selected, the marks
    /// to the nodes at their addresses; what changed is marked on the tree
    /// (as `fwview --diff` would report it) and returned.
    pub fn swap_document(&mut self, mut doc: Document) -> Counts {
        let selected = self.doc.tree.path_string(self.selected);
        let marks: Vec<(char, u64, String)> = self
            .marks
            .iter()
            .map(|(&c, l)| (c, l.cursor, self.doc.tree.path_string(l.node)))
            .collect();
        let changes = Changes::compute(&mut self.doc.tree, &mut doc.tree);
        self.doc = doc;
        self.reset_view();
        for (c, cursor, address) in marks {
            if let Some(node) = self.mark_node(&address, cursor) {
                self.marks.insert(c, Location { cursor, node });
            }
        }
        if let Some(id) = self.doc.tree.find_path(&selected) {
            self.select(id, true);
        }
        let counts = changes.counts;
        if !counts.is_empty() {
            self.reloaded = Some(changes);
        }
        counts
    }

    pub fn file_len(&self) -> u64 {
        self.doc.tree.data().len() as u64
    }

    /// The byte space of the selected node (0: the file); the hex pane
    /// shows it and the cursor is an offset in it.
    pub fn space(&self) -> SpaceId {
        self.doc.tree.node(self.selected).map_or(FILE, |n| n.space)
    }

    /// The bytes of the selected node's space.
    pub fn space_data(&self) -> &[u8] {
        self.doc.tree.space_bytes(self.space())
    }

    pub fn space_len(&self) -> u64 {
        self.space_data().len() as u64
    }

    /// Where the selected node's space came from.
    pub fn space_describe(&self) -> String {
        self.doc
            .tree
            .spaces()
            .get(self.space().index())
            .map_or_else(|| "the file".to_string(), |s| s.describe())
    }

    /// Whether the pane `focus` has the keys: it has the focus, and with
    /// two files, this file's panes have it.
    pub fn has_keys(&self, focus: Focus) -> bool {
        self.focus == focus && self.compare.as_ref().is_none_or(|c| c.focused)
    }

    pub(super) fn bpr(&self) -> u64 {
        self.view.bytes_per_row.max(1)
    }

    // ---- commands ----

    pub fn run_command(&mut self, cmd: Command) {
        if cmd == Command::Interrupt {
            self.pending = None;
            self.popup = None;
            self.quit_now();
            return;
        }
        if let Some(p) = self.pending.take() {
            if let Command::Input(c) = cmd {
                self.letter(p, c);
            } else {
                self.message = Some(("cancelled".into(), false));
            }
            return;
        }
        if self.popup.is_some() {
            self.run_popup_command(cmd);
            return;
        }
        self.message = None;
        if !matches!(cmd, Command::NextMatch | Command::PrevMatch) {
            if let Some(st) = self.search.as_mut() {
                st.shown = false;
            }
        }
        let page = match self.focus {
            Focus::Tree => self.view.tree_rows.max(1),
            Focus::Hex => self.view.hex_rows.max(1) as usize,
        };
        // Ctrl-u / Ctrl-d move as PgUp / PgDn do, by half as much.
        let (cmd, page) = match cmd {
            Command::HalfPageUp => (Command::PageUp, (page / 2).max(1)),
            Command::HalfPageDown => (Command::PageDown, (page / 2).max(1)),
            c => (c, page),
        };
        match (cmd, self.focus) {
            (Command::Escape, _) => self.escape(),
            (Command::Quit | Command::Interrupt, _) => self.quit_now(),
            (Command::Backspace, _) if self.from_list && self.selected == self.doc.tree.root() => {
                self.leave = true
            }
            (Command::SwitchFocus, _) => {
                self.focus = match self.focus {
                    Focus::Tree => Focus::Hex,
                    Focus::Hex => Focus::Tree,
                }
            }
            (Command::OpenGoto, _) => self.open_prompt(PromptKind::Goto),
            (Command::OpenSearch, _) => self.open_prompt(PromptKind::Search),
            (Command::OpenSave, _) => self.open_prompt(PromptKind::SaveAs),
            (Command::OpenHelp, _) => self.popup = Some(Popup::Help { scroll: 0 }),
            (Command::OpenCopy, _) => self.popup = Some(Popup::Copy),
            (Command::ListMarks, _) => self.popup = Some(Popup::Marks { selected: 0 }),
            (Command::ListDiagnostics, _) => self.popup = Some(Popup::Diagnostics { selected: 0 }),
            (Command::ShowNode, _) => {
                self.popup = Some(Popup::Node {
                    rows: self.node_rows(),
                    scroll: 0,
                })
            }
            (Command::StartMark, _) => self.pending = Some(Pending::SetMark),
            (Command::StartJump, _) => self.pending = Some(Pending::JumpMark),
            (Command::NextMatch, _) => self.next_match(true, false),
            (Command::PrevMatch, _) => self.next_match(false, false),
            (Command::Follow, _) => {
                if !self.follow() {
                    self.message = Some(("the node links nowhere".into(), false));
                }
            }
            (Command::Back, _) => self.go_back(),
            (Command::Forward, _) => self.go_forward(),
            (Command::ToggleInspector, _) => self.inspector = !self.inspector,
            (Command::CyclePanes, _) => {
                self.panes = self.panes.next();
                if self.panes == Panes::HexOnly {
                    self.focus = Focus::Hex;
                }
                self.message = Some((self.panes.said().into(), false));
            }
            (Command::CycleNumbers, _) => {
                self.numbers = self.numbers.next();
                self.message = Some((
                    format!("numbers shown {} (# cycles)", self.numbers.as_str()),
                    false,
                ));
            }
            (Command::SwapEndian, _) => self.inspector_big_first = !self.inspector_big_first,
            (Command::CollapseAll, _) => self.collapse_all(),
            (Command::OpenSubtree, _) => self.open_subtree(self.selected),
            (Command::Visual, _) => self.toggle_visual(),
            (Command::ListStrings, _) => self.open_strings(),
            (Command::OpenOverview, _) => self.open_overview(),
            (Command::OpenFilter, _) => self.open_prompt(PromptKind::Filter),
            (Command::OpenDescribe, _) => self.open_prompt(PromptKind::Describe),
            (Command::NextSibling, _) => self.sibling(1),
            (Command::PrevSibling, _) => self.sibling(-1),
            (Command::Toggle, _) => self.toggle(),
            (Command::Activate, _) => {
                if !self.follow() {
                    self.toggle();
                }
            }
            (
                c @ (Command::Up
                | Command::Down
                | Command::PageUp
                | Command::PageDown
                | Command::Home
                | Command::End
                | Command::Left
                | Command::Right),
                focus,
            ) => self.step(c, focus, page),
            // Made PageUp / PageDown above.
            (Command::HalfPageUp | Command::HalfPageDown, _) => {}
            (
                Command::SwitchFile
                | Command::NextChange
                | Command::PrevChange
                | Command::OnlyChanges,
                _,
            ) => {
                self.message = Some(("only with two files (fwview A B)".into(), false));
            }
            (Command::Click(x, y), _) => self.click(x, y),
            (Command::ScrollUp(x, y), _) => self.wheel(x, y, -3),
            (Command::ScrollDown(x, y), _) => self.wheel(x, y, 3),
            (
                Command::Input(_)
                | Command::Edit(_)
                | Command::Backspace
                | Command::Submit
                | Command::ToggleCase
                | Command::Complete,
                _,
            ) => {}
        }
    }

    /// Esc: stops what runs in the background, else closes the innermost
    /// thing open (the range, the inspector, the reload marks, the
    /// filter), else goes back to the folder's list the file came from.
    fn escape(&mut self) {
        if let Some(r) = self.search.as_ref().and_then(|s| s.running.as_ref()) {
            r.cancel.store(true, Ordering::Relaxed);
        } else if let Some(w) = &self.writing {
            w.cancel.store(true, Ordering::Relaxed);
        } else if self.visual.is_some() {
            self.toggle_visual();
        } else if self.inspector {
            self.inspector = false;
            self.message = Some(("inspector closed (i opens it)".into(), false))
        } else if self.reloaded.is_some() {
            self.reloaded = None;
            self.message = Some(("reload marks cleared".into(), false))
        } else if self.filter.is_some() {
            self.clear_filter();
        } else if self.from_list {
            self.leave = true;
        } else {
            self.message = Some(("nothing to close (q quits)".into(), false))
        }
    }

    /// A move in the pane with the keys: rows in the tree, bytes in the
    /// hex pane; `page` rows a page.
    fn step(&mut self, cmd: Command, focus: Focus, page: usize) {
        match (cmd, focus) {
            (Command::Up, Focus::Tree) => self.select_visible(|c, _| c.saturating_sub(1)),
            (Command::Down, Focus::Tree) => self.select_visible(|c, _| c + 1),
            (Command::PageUp, Focus::Tree) => self.select_visible(|c, _| c.saturating_sub(page)),
            (Command::PageDown, Focus::Tree) => self.select_visible(|c, _| c + page),
            (Command::Home, Focus::Tree) => self.select_visible(|_, _| 0),
            (Command::End, Focus::Tree) => self.select_visible(|_, n| n - 1),
            (Command::Left, Focus::Tree) => self.left(),
            (Command::Right, Focus::Tree) => self.right(),
            (Command::Up, Focus::Hex) => self.move_cursor(-(self.bpr() as i128)),
            (Command::Down, Focus::Hex) => self.move_cursor(self.bpr() as i128),
            (Command::Left, Focus::Hex) => self.move_cursor(-1),
            (Command::Right, Focus::Hex) => self.move_cursor(1),
            (Command::PageUp, Focus::Hex) => {
                self.move_cursor(-((self.bpr() * page as u64) as i128))
            }
            (Command::PageDown, Focus::Hex) => self.move_cursor((self.bpr() * page as u64) as i128),
            (Command::Home, Focus::Hex) => self.set_cursor(0),
            (Command::End, Focus::Hex) => self.set_cursor(u64::MAX),
            _ => {}
        }
    }

    fn quit_now(&mut self) {
        // A write cut short by quitting leaves no half-written file.
        if let Some(w) = self.writing.take() {
            w.cancel.store(true, Ordering::Relaxed);
            let _ = std::fs::remove_file(&w.path);
        }
        self.quit = true
    }

    fn click(&mut self, x: u16, y: u16) {
        let pos = Position { x, y };
        if self.view.tree_area.contains(pos) {
            self.focus = Focus::Tree;
            if let Some(&id) = self.tree_state.rendered_at(pos).and_then(|p| p.last()) {
                if id == self.selected {
                    self.toggle();
                } else {
                    self.remember();
                    self.select(id, true);
                }
            }
        } else if self.view.hex_area.contains(pos) {
            self.focus = Focus::Hex;
            if let Some(off) = self.hex_offset_at(x, y) {
                self.remember();
                self.set_cursor(off);
            }
        }
    }

    fn wheel(&mut self, x: u16, y: u16, rows: i64) {
        let pos = Position { x, y };
        if self.view.hex_area.contains(pos) {
            let top = (self.hex_top as i64 + rows).max(0) as u64;
            self.hex_top = top;
            self.clamp_hex_top();
        } else if self.view.tree_area.contains(pos) {
            if rows < 0 {
                self.tree_state.scroll_up(rows.unsigned_abs() as usize);
            } else {
                self.tree_state.scroll_down(rows as usize);
            }
        }
    }

    /// Gives a key to the open popup and does what it asks.
    fn run_popup_command(&mut self, cmd: Command) {
        let list_len = match &self.popup {
            Some(Popup::Marks { .. }) => self.marks.len(),
            Some(Popup::Diagnostics { .. }) => self.doc.tree.diagnostics().len(),
            Some(Popup::Strings { .. }) => self.overview_rows(true),
            Some(Popup::Overview { .. }) => self.overview_rows(false),
            _ => 0,
        };
        let Some(popup) = self.popup.as_mut() else {
            return;
        };
        match popup.handle_key(cmd, list_len) {
            Outcome::Stay => {}
            Outcome::Close => self.popup = None,
            Outcome::Do(Effect::ToggleCase) => self.case_sensitive = !self.case_sensitive,
            Outcome::Do(Effect::Complete(p)) => {
                let text = self.complete_goto(p.value());
                self.popup = Some(Popup::Prompt(p.with_text(&text)));
            }
            Outcome::Do(e) => {
                self.popup = None;
                self.apply(e);
            }
        }
    }

    fn apply(&mut self, e: Effect) {
        match e {
            Effect::Copy(c) => self.copy(c),
            Effect::JumpMark(i) => {
                if let Some(&loc) = self.marks.values().nth(i) {
                    self.remember();
                    self.restore(loc);
                }
            }
            Effect::JumpDiagnostic(i) => {
                let i = self
                    .diagnostic_order()
                    .get(i)
                    .copied()
                    .unwrap_or(usize::MAX);
                if let Some(d) = self.doc.tree.diagnostics().get(i).cloned() {
                    self.jump_in(d.span);
                    self.message = Some((format!("{}: {}", d.severity.as_str(), d.message), true));
                }
            }
            Effect::JumpString(i) => self.jump_string(i),
            Effect::JumpBlock(i) => self.jump_block(i),
            Effect::Overwrite(path) => self.save(&path, true),
            Effect::NotWritten => self.message = Some(("not written".into(), false)),
            Effect::Submit(p) => self.submit(p),
            Effect::ToggleCase => self.case_sensitive = !self.case_sensitive,
            Effect::Complete(_) => {}
        }
    }

    /// Opens a prompt with what was entered in it before.
    pub(super) fn open_prompt(&mut self, kind: PromptKind) {
        let past = self.history.get(kind.key()).cloned().unwrap_or_default();
        let suggest = (kind == PromptKind::SaveAs).then(|| self.suggested_file_name());
        let mut p = Prompt::new(kind).with_history(past);
        if let Some(name) = suggest {
            p = p.with_text(&name);
        }
        self.popup = Some(Popup::Prompt(p));
    }

    fn submit(&mut self, p: Prompt) {
        // Enter on an empty line takes the last entry, as vim's / does;
        // with none, an empty line does nothing.
        let value = match p.value() {
            v if v.trim().is_empty() => match p.history.last() {
                Some(last) => last.clone(),
                None => return,
            },
            v => v.to_string(),
        };
        let past = self.history.entry(p.kind.key()).or_default();
        past.retain(|h| *h != value);
        past.push(value.clone());
        if past.len() > 100 {
            past.remove(0);
        }
        match p.kind {
            PromptKind::Goto => {
                if let Err(e) = self.goto(&value) {
                    self.message = Some((e, true));
                }
            }
            PromptKind::Search => self.start_search(&value),
            PromptKind::Filter => self.start_filter(&value),
            PromptKind::SaveAs => {
                let path = value.trim();
                if path.is_empty() {
                    self.message = Some(("no file name given".into(), true));
                } else {
                    self.save(path, false);
                }
            }
            PromptKind::Overwrite(_) => {}
            PromptKind::Describe => self.describe_selected(&value),
        }
    }
}

/// Parses a goto target: `0x…` hex, decimal, or `+N` / `-N` relative to
/// `cursor` (N itself hex or decimal).
pub fn parse_offset(input: &str, cursor: u64) -> Result<u64, String> {
    let s = input.trim().replace('_', "");
    if s.is_empty() {
        return Err("no offset given".into());
    }
    let (sign, body) = match s.as_bytes().first() {
        Some(b'+') => (1i8, &s[1..]),
        Some(b'-') => (-1i8, &s[1..]),
        _ => (0i8, &s[..]),
    };
    let body = body.trim();
    let n = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        body.parse::<u64>()
    }
    .map_err(|_| format!("not an offset: {}", crate::model::text::clean(input)))?;
    match sign {
        0 => Ok(n),
        1 => cursor
            .checked_add(n)
            .ok_or_else(|| "offset overflows".to_string()),
        _ => cursor
            .checked_sub(n)
            .ok_or_else(|| format!("0x{cursor:x} - 0x{n:x} is before the start of the file")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_parse_in_every_form() {
        assert_eq!(parse_offset("0x10", 0), Ok(16));
        assert_eq!(parse_offset("0X1f", 0), Ok(31));
        assert_eq!(parse_offset("100", 0), Ok(100));
        assert_eq!(parse_offset("+16", 100), Ok(116));
        assert_eq!(parse_offset("+0x10", 100), Ok(116));
        assert_eq!(parse_offset("-4", 100), Ok(96));
        assert!(parse_offset("-200", 100).is_err());
        assert!(parse_offset("zz", 0).is_err());
        assert!(parse_offset("", 0).is_err());
        assert!(parse_offset("0xffffffffffffffffff", 0).is_err());
    }
}
