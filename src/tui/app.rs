//! The explorer's state and every change made to it. Keys become
//! [`Command`]s in `keys.rs`; [`App::run_command`] applies them; `ui.rs`
//! only draws.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use ratatui::layout::{Position, Rect};
use tui_tree_widget::TreeState;

use super::popup::{Popup, Prompt, PromptKind};
use super::Message;
use crate::model::Numbers;
use crate::model::{text, NodeId, Severity, Tree};
use crate::search::{self, NodeMatch, Pattern};

/// Files up to this size are searched at once; larger ones in the
/// background, with progress shown and Esc cancelling.
pub const BACKGROUND_SEARCH: u64 = 8 << 20;

/// The jump history keeps at least this many places.
pub const HISTORY: usize = 1000;

/// At most this many bytes are copied as hex by `y b`.
pub const MAX_COPY: u64 = 64 << 10;

/// Which pane takes the movement keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Hex,
}

/// Everything the user can ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Quit,
    /// Esc: close the popup, or quit when there is none.
    Escape,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    /// Enter in a pane: follow the node's link, else open or close it.
    Activate,
    Toggle,
    NextSibling,
    PrevSibling,
    SwitchFocus,
    OpenGoto,
    OpenHelp,
    /// Typing in a prompt.
    Input(char),
    Backspace,
    Submit,
    /// Mouse: a click or the wheel at a screen position.
    Click(u16, u16),
    ScrollUp(u16, u16),
    ScrollDown(u16, u16),
    OpenSearch,
    /// Ctrl-t in the search prompt.
    ToggleCase,
    NextMatch,
    PrevMatch,
    Follow,
    Back,
    Forward,
    ToggleInspector,
    SwapEndian,
    /// `m`: the next letter names a mark to set.
    StartMark,
    /// `'`: the next letter names a mark to jump to.
    StartJump,
    ListMarks,
    ListDiagnostics,
    OpenCopy,
    OpenSave,
}

/// A key that waits for a letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    SetMark,
    JumpMark,
}

/// A place the user was: the cursor and the selected node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub cursor: u64,
    pub node: NodeId,
}

/// A byte search still running in the background.
pub struct Running {
    pub cancel: Arc<AtomicBool>,
    pub done: u64,
    pub total: u64,
}

/// The last search and where its matches are.
pub struct SearchState {
    pub id: u64,
    pub query: String,
    /// Bytes a byte match covers (0 for a node search).
    pub len: u64,
    /// Start offsets of byte matches, in order.
    pub matches: Vec<u64>,
    /// Node matches, in tree order.
    pub nodes: Vec<NodeMatch>,
    pub current: Option<usize>,
    pub running: Option<Running>,
    /// False when the search stopped early (cancelled, or too many).
    pub complete: bool,
}

impl SearchState {
    pub fn count(&self) -> usize {
        if self.len == 0 {
            self.nodes.len()
        } else {
            self.matches.len()
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
}

pub struct App {
    pub tree: Tree,
    pub path: String,
    pub focus: Focus,
    pub tree_state: TreeState<NodeId>,
    pub opened: HashSet<NodeId>,
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
    next_search_id: u64,
    pub back: Vec<Location>,
    pub forward: Vec<Location>,
    pub marks: BTreeMap<char, u64>,
    pub inspector: bool,
    pub inspector_big_first: bool,
    /// How numbers in values are shown (natural, hex, decimal).
    pub numbers: Numbers,
    /// Text waiting to be sent to the terminal's clipboard (OSC 52).
    pub clipboard: Option<String>,
    /// Where background work reports back; without it, searches run at once.
    pub tx: Option<mpsc::Sender<Message>>,
}

impl App {
    pub fn new(tree: Tree, path: &str) -> App {
        let root = tree.root();
        let mut app = App {
            tree,
            path: path.to_string(),
            focus: Focus::Tree,
            tree_state: TreeState::default(),
            opened: HashSet::new(),
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
            next_search_id: 0,
            back: Vec::new(),
            forward: Vec::new(),
            marks: BTreeMap::new(),
            numbers: Numbers::Natural,
            inspector: false,
            inspector_big_first: false,
            clipboard: None,
            tx: None,
        };
        app.open(root);
        app.select(root, true);
        if app.tree.data().is_empty() {
            app.message = Some(("the file is empty".into(), false));
        }
        app
    }

    pub fn file_len(&self) -> u64 {
        self.tree.data().len() as u64
    }

    fn bpr(&self) -> u64 {
        self.view.bytes_per_row.max(1)
    }

    // ---- tree ----

    fn id_path(&self, id: NodeId) -> Vec<NodeId> {
        self.tree.path(id)
    }

    /// Opens a node, building its children.
    pub fn open(&mut self, id: NodeId) {
        self.tree.expand(id);
        if self.tree.has_children(id) {
            self.opened.insert(id);
            let p = self.id_path(id);
            self.tree_state.open(p);
        }
    }

    pub fn close(&mut self, id: NodeId) {
        self.opened.remove(&id);
        let p = self.id_path(id);
        self.tree_state.close(&p);
    }

    /// The rows of the tree as shown: every node whose ancestors are open.
    pub fn visible(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.tree.root()];
        while let Some(id) = stack.pop() {
            out.push(id);
            if self.opened.contains(&id) {
                stack.extend(self.tree.built_children(id).iter().rev());
            }
        }
        out
    }

    /// Selects a node, opening its ancestors. With `move_cursor` the hex
    /// cursor goes to the node's first byte.
    pub fn select(&mut self, id: NodeId, move_cursor: bool) {
        let p = self.id_path(id);
        for &a in &p[..p.len().saturating_sub(1)] {
            if !self.opened.contains(&a) {
                self.open(a);
            }
        }
        self.selected = id;
        self.tree_state.select(p);
        self.tree_state.scroll_selected_into_view();
        if move_cursor {
            let noff = self.tree.node(id).map_or(0, |n| n.offset);
            let off = noff.min(self.file_len().saturating_sub(1));
            self.cursor = off;
            self.scroll_hex_to(off);
        }
    }

    fn select_visible(&mut self, f: impl FnOnce(usize, usize) -> usize) {
        let rows = self.visible();
        if rows.is_empty() {
            return;
        }
        let cur = rows.iter().position(|&r| r == self.selected).unwrap_or(0);
        let new = f(cur, rows.len()).min(rows.len() - 1);
        if let Some(&id) = rows.get(new) {
            self.select(id, true);
        }
    }

    fn sibling(&mut self, delta: i64) {
        let Some(parent) = self.tree.node(self.selected).and_then(|n| n.parent) else {
            return;
        };
        let kids = self.tree.built_children(parent);
        let Some(i) = kids.iter().position(|&k| k == self.selected) else {
            return;
        };
        let j = i as i64 + delta;
        if j >= 0 {
            if let Some(&k) = kids.get(j as usize) {
                self.select(k, true);
            }
        }
    }

    fn left(&mut self) {
        let id = self.selected;
        if self.opened.contains(&id) && id != self.tree.root() {
            self.close(id);
        } else if let Some(p) = self.tree.node(id).and_then(|n| n.parent) {
            self.select(p, true);
        }
    }

    fn right(&mut self) {
        let id = self.selected;
        if !self.tree.has_children(id) {
            return;
        }
        if !self.opened.contains(&id) {
            self.open(id);
        } else if let Some(&first) = self.tree.built_children(id).first() {
            self.select(first, true);
        }
    }

    fn toggle(&mut self) {
        let id = self.selected;
        if self.opened.contains(&id) {
            if id != self.tree.root() {
                self.close(id);
            }
        } else {
            self.open(id);
        }
    }

    /// Follows the selected node's link, if it has one.
    pub fn follow(&mut self) -> bool {
        let Some(link) = self.tree.node(self.selected).and_then(|n| n.link) else {
            return false;
        };
        if link.offset >= self.file_len() {
            self.message = Some((
                format!("link to 0x{:x} is past the end of the file", link.offset),
                true,
            ));
            return true;
        }
        self.jump(link.offset, link.size);
        true
    }

    // ---- hex ----

    /// Moves the hex cursor and selects the deepest node that holds it.
    pub fn set_cursor(&mut self, off: u64) {
        let len = self.file_len();
        if len == 0 {
            return;
        }
        let off = off.min(len - 1);
        self.cursor = off;
        let id = self.tree.deepest_at(off);
        self.select(id, false);
        self.ensure_cursor_visible();
    }

    fn move_cursor(&mut self, delta: i128) {
        let to = (self.cursor as i128 + delta).max(0);
        self.set_cursor(u64::try_from(to).unwrap_or(u64::MAX));
    }

    fn ensure_cursor_visible(&mut self) {
        let row = self.cursor / self.bpr();
        let rows = self.view.hex_rows.max(1);
        if row < self.hex_top {
            self.hex_top = row;
        } else if row >= self.hex_top + rows {
            self.hex_top = row + 1 - rows;
        }
    }

    /// Scrolls so that `off` is shown, putting it on the top row when it
    /// was out of view.
    fn scroll_hex_to(&mut self, off: u64) {
        let row = off / self.bpr();
        let rows = self.view.hex_rows.max(1);
        if row < self.hex_top || row >= self.hex_top + rows {
            self.hex_top = row;
        }
        self.clamp_hex_top();
    }

    fn last_row(&self) -> u64 {
        self.file_len().saturating_sub(1) / self.bpr()
    }

    fn clamp_hex_top(&mut self) {
        let max_top = (self.last_row() + 1).saturating_sub(self.view.hex_rows.max(1));
        self.hex_top = self.hex_top.min(max_top);
    }

    /// Called by the renderer when the pane's geometry changes, so that
    /// the cursor's row stays in view.
    pub fn set_view(&mut self, view: View) {
        let changed =
            view.bytes_per_row != self.view.bytes_per_row || view.hex_rows != self.view.hex_rows;
        self.view = view;
        if changed {
            self.ensure_cursor_visible();
            self.clamp_hex_top();
        }
    }

    /// The byte offset shown at a screen position of the hex pane.
    pub fn hex_offset_at(&self, x: u16, y: u16) -> Option<u64> {
        let inner = self.view.hex_inner;
        if !inner.contains(Position { x, y }) {
            return None;
        }
        let row = self.hex_top + u64::from(y - inner.y);
        let col = x - inner.x;
        let geo = super::hex::Geometry::new(self.file_len(), self.bpr());
        let i = geo.byte_at_column(col)?;
        let off = row * self.bpr() + i;
        (off < self.file_len()).then_some(off)
    }

    // ---- goto ----

    /// The offset a goto input names, if it is inside the file.
    pub fn goto_target(&self, input: &str) -> Result<u64, String> {
        let off = parse_offset(input, self.cursor)?;
        let len = self.file_len();
        if len == 0 {
            return Err("the file is empty".into());
        }
        if off >= len {
            return Err(format!(
                "0x{off:x} is past the end of the file (0x{len:x} bytes)"
            ));
        }
        Ok(off)
    }

    /// Goes to the offset a goto input names, remembering where the user
    /// was.
    pub fn goto(&mut self, input: &str) -> Result<(), String> {
        let off = self.goto_target(input)?;
        self.remember();
        self.set_cursor(off);
        self.scroll_hex_to(off);
        Ok(())
    }

    // ---- diagnostics ----

    pub fn count(&self, s: Severity) -> usize {
        self.tree
            .diagnostics()
            .iter()
            .filter(|d| d.severity == s)
            .count()
    }

    // ---- jumps and history ----

    pub fn location(&self) -> Location {
        Location {
            cursor: self.cursor,
            node: self.selected,
        }
    }

    /// Records where the user is before a jump, for Ctrl-o.
    pub fn remember(&mut self) {
        let here = self.location();
        if self.back.last() != Some(&here) {
            self.back.push(here);
            if self.back.len() > 2 * HISTORY {
                self.back.drain(..HISTORY);
            }
        }
        self.forward.clear();
    }

    fn restore(&mut self, loc: Location) {
        self.select(loc.node, false);
        self.cursor = loc.cursor.min(self.file_len().saturating_sub(1));
        self.scroll_hex_to(self.cursor);
    }

    fn go_back(&mut self) {
        match self.back.pop() {
            Some(loc) => {
                self.forward.push(self.location());
                self.restore(loc);
            }
            None => self.message = Some(("no earlier jump".into(), false)),
        }
    }

    fn go_forward(&mut self) {
        match self.forward.pop() {
            Some(loc) => {
                self.back.push(self.location());
                self.restore(loc);
            }
            None => self.message = Some(("no later jump".into(), false)),
        }
    }

    /// Puts the cursor on `off` and selects the smallest node holding
    /// `[off, off+size)`, remembering where the user was.
    pub fn jump(&mut self, off: u64, size: u64) {
        if off >= self.file_len() {
            return;
        }
        self.remember();
        let id = self.tree.smallest_containing(off, size);
        self.select(id, false);
        self.cursor = off;
        self.scroll_hex_to(off);
    }

    // ---- search ----

    /// Starts a search for `query` in the prompt's syntax.
    pub fn start_search(&mut self, query: &str) {
        if let Some(old) = self.search.as_ref().and_then(|s| s.running.as_ref()) {
            old.cancel.store(true, Ordering::Relaxed);
        }
        let pat = match Pattern::parse(query, self.case_sensitive) {
            Ok(p) => p,
            Err(e) => {
                self.message = Some((e, true));
                return;
            }
        };
        self.next_search_id += 1;
        let id = self.next_search_id;
        let mut st = SearchState {
            id,
            query: query.to_string(),
            len: pat.len() as u64,
            matches: Vec::new(),
            nodes: Vec::new(),
            current: None,
            running: None,
            complete: true,
        };
        match pat {
            Pattern::Nodes { text, fold } => {
                let (nodes, complete) = search::find_nodes(&mut self.tree, &text, fold);
                st.nodes = nodes;
                st.complete = complete;
                self.search = Some(st);
                self.after_search();
            }
            Pattern::Bytes { bytes, fold } => {
                let src = self.tree.source().clone();
                match &self.tx {
                    Some(tx) if src.len() > BACKGROUND_SEARCH => {
                        let cancel = Arc::new(AtomicBool::new(false));
                        st.running = Some(Running {
                            cancel: cancel.clone(),
                            done: 0,
                            total: src.len(),
                        });
                        self.search = Some(st);
                        let tx = tx.clone();
                        std::thread::spawn(move || {
                            let mut progress = |done| {
                                let _ = tx.send(Message::SearchProgress { id, done });
                            };
                            let m = search::find_bytes(
                                &bytes,
                                fold,
                                src.bytes(),
                                &cancel,
                                &mut progress,
                            );
                            let cancelled = cancel.load(Ordering::Relaxed);
                            let _ = tx.send(Message::SearchDone {
                                id,
                                matches: m,
                                cancelled,
                            });
                        });
                    }
                    _ => {
                        let m = search::find_bytes(
                            &bytes,
                            fold,
                            src.bytes(),
                            &AtomicBool::new(false),
                            &mut |_| {},
                        );
                        st.complete = m.len() < search::MAX_MATCHES;
                        st.matches = m;
                        self.search = Some(st);
                        self.after_search();
                    }
                }
            }
        }
    }

    /// Takes a message from a background search.
    pub fn on_message(&mut self, msg: Message) {
        let Some(st) = self.search.as_mut() else {
            return;
        };
        match msg {
            Message::SearchProgress { id, done } if id == st.id => {
                if let Some(r) = st.running.as_mut() {
                    r.done = done;
                }
            }
            Message::SearchDone {
                id,
                matches,
                cancelled,
            } if id == st.id => {
                st.running = None;
                st.complete = !cancelled && matches.len() < search::MAX_MATCHES;
                st.matches = matches;
                if cancelled {
                    self.message = Some((
                        format!("search cancelled; {} matches so far", st.matches.len()),
                        false,
                    ));
                    return;
                }
                self.after_search();
            }
            _ => {}
        }
    }

    /// Goes to the first match at or after the cursor.
    fn after_search(&mut self) {
        let Some(st) = self.search.as_ref() else {
            return;
        };
        if st.count() == 0 {
            self.message = Some((format!("no match for {}", text::clean(&st.query)), true));
            return;
        }
        self.next_match(true, true);
    }

    /// Moves to the next (or previous) match, wrapping around.
    fn next_match(&mut self, forward: bool, from_cursor: bool) {
        let Some(st) = self.search.as_ref() else {
            self.message = Some(("no search yet: press / to search".into(), false));
            return;
        };
        let n = st.count();
        if n == 0 {
            self.message = Some((format!("no match for {}", text::clean(&st.query)), true));
            return;
        }
        let offs = |i: usize| -> u64 {
            if st.len == 0 {
                st.nodes.get(i).map_or(0, |m| m.offset)
            } else {
                st.matches.get(i).copied().unwrap_or(0)
            }
        };
        let i = if st.len > 0 {
            // Byte matches: by the cursor, so that n after moving around
            // goes to the next match from here.
            let c = self.cursor;
            let first_after = if from_cursor {
                st.matches.partition_point(|&m| m < c)
            } else {
                st.matches.partition_point(|&m| m <= c)
            };
            if forward {
                if first_after >= n {
                    0
                } else {
                    first_after
                }
            } else {
                let before = st.matches.partition_point(|&m| m < c);
                if before == 0 {
                    n - 1
                } else {
                    before - 1
                }
            }
        } else {
            match (st.current, forward) {
                (None, _) => 0,
                (Some(c), true) => (c + 1) % n,
                (Some(c), false) => (c + n - 1) % n,
            }
        };
        let wrapped = match st.current {
            Some(c) => n > 1 && if forward { i <= c } else { i >= c },
            None => false,
        };
        let (off, size, path) = if st.len == 0 {
            let m = st.nodes.get(i).cloned();
            (offs(i), m.as_ref().map_or(0, |m| m.size), m.map(|m| m.path))
        } else {
            (offs(i), st.len, None)
        };
        if let Some(st) = self.search.as_mut() {
            st.current = Some(i);
        }
        self.remember();
        match path.and_then(|p| self.tree.find_path(&p)) {
            Some(id) => self.select(id, true),
            None => {
                let id = self.tree.smallest_containing(off, size);
                self.select(id, false);
                self.cursor = off.min(self.file_len().saturating_sub(1));
                self.scroll_hex_to(self.cursor);
            }
        }
        if wrapped {
            self.message = Some(("search wrapped around".into(), false));
        }
    }

    /// Byte matches that overlap `[start, end)`, as ranges.
    pub fn matches_in(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        let Some(st) = self.search.as_ref() else {
            return Vec::new();
        };
        if st.len == 0 {
            return Vec::new();
        }
        let first = st.matches.partition_point(|&m| m + st.len <= start);
        st.matches
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&m| m < end)
            .map(|&m| (m, m + st.len))
            .collect()
    }

    // ---- copy and save ----

    fn copy(&mut self, what: char) {
        let (text, said) = match what {
            'o' => (
                format!("0x{:x}", self.cursor),
                format!("offset 0x{:x}", self.cursor),
            ),
            'v' => match self.tree.value_in(self.selected, self.numbers) {
                Some(v) => (v, "the node's value".to_string()),
                None => {
                    self.message = Some(("the node has no value to copy".into(), true));
                    return;
                }
            },
            'b' => {
                let all = self.tree.node_bytes(self.selected);
                let b = all
                    .get(..all.len().min(MAX_COPY as usize))
                    .unwrap_or_default();
                let more = if all.len() as u64 > MAX_COPY {
                    " (the first 64 KiB)"
                } else {
                    ""
                };
                (
                    text::hex(b, b.len()),
                    format!("{} bytes as hex{more}", b.len()),
                )
            }
            'p' => (
                self.tree.path_string(self.selected),
                "the node's path".to_string(),
            ),
            _ => return,
        };
        self.clipboard = Some(text);
        self.message = Some((format!("copied {said} to the clipboard"), false));
    }

    fn save(&mut self, path: &str, force: bool) {
        let bytes = self.tree.node_bytes(self.selected);
        match crate::export::write_bytes(bytes, std::path::Path::new(path), force) {
            Ok(()) => {
                self.message = Some((
                    format!("wrote {} bytes to {}", bytes.len(), text::clean(path)),
                    false,
                ))
            }
            Err(crate::export::ExtractError::Exists(_)) => {
                let mut p = Prompt::new(PromptKind::Overwrite(path.to_string()));
                p.input = path.to_string();
                self.popup = Some(Popup::Prompt(p));
            }
            Err(e) => self.message = Some((e.to_string(), true)),
        }
    }

    // ---- commands ----

    pub fn run_command(&mut self, cmd: Command) {
        if let Some(p) = self.pending.take() {
            if let Command::Input(c) = cmd {
                self.letter(p, c);
            }
            return;
        }
        if self.popup.is_some() {
            self.run_popup_command(cmd);
            return;
        }
        self.message = None;
        let page = match self.focus {
            Focus::Tree => self.view.tree_rows.max(1),
            Focus::Hex => self.view.hex_rows.max(1) as usize,
        };
        match (cmd, self.focus) {
            (Command::Escape, _) if self.search.as_ref().is_some_and(|s| s.running.is_some()) => {
                if let Some(r) = self.search.as_ref().and_then(|s| s.running.as_ref()) {
                    r.cancel.store(true, Ordering::Relaxed);
                }
            }
            (Command::Quit | Command::Escape, _) => self.quit = true,
            (Command::SwitchFocus, _) => {
                self.focus = match self.focus {
                    Focus::Tree => Focus::Hex,
                    Focus::Hex => Focus::Tree,
                }
            }
            (Command::OpenGoto, _) => {
                self.popup = Some(Popup::Prompt(Prompt::new(PromptKind::Goto)))
            }
            (Command::OpenSearch, _) => {
                self.popup = Some(Popup::Prompt(Prompt::new(PromptKind::Search)))
            }
            (Command::OpenSave, _) => {
                self.popup = Some(Popup::Prompt(Prompt::new(PromptKind::SaveAs)))
            }
            (Command::OpenHelp, _) => self.popup = Some(Popup::Help { scroll: 0 }),
            (Command::OpenCopy, _) => self.popup = Some(Popup::Copy),
            (Command::ListMarks, _) => self.popup = Some(Popup::Marks { selected: 0 }),
            (Command::ListDiagnostics, _) => self.popup = Some(Popup::Diagnostics { selected: 0 }),
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
            (Command::SwapEndian, _) => self.inspector_big_first = !self.inspector_big_first,
            (Command::NextSibling, _) => self.sibling(1),
            (Command::PrevSibling, _) => self.sibling(-1),
            (Command::Toggle, _) => self.toggle(),
            (Command::Activate, _) => {
                if !self.follow() {
                    self.toggle();
                }
            }
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
            (Command::Click(x, y), _) => self.click(x, y),
            (Command::ScrollUp(x, y), _) => self.wheel(x, y, -3),
            (Command::ScrollDown(x, y), _) => self.wheel(x, y, 3),
            (Command::Input(_) | Command::Backspace | Command::Submit | Command::ToggleCase, _) => {
            }
        }
    }

    fn letter(&mut self, p: Pending, c: char) {
        if !c.is_ascii_alphabetic() {
            self.message = Some(("marks are letters a-z and A-Z".into(), true));
            return;
        }
        match p {
            Pending::SetMark => {
                self.marks.insert(c, self.cursor);
                self.message = Some((format!("mark {c} set at 0x{:x}", self.cursor), false));
            }
            Pending::JumpMark => match self.marks.get(&c).copied() {
                Some(off) => self.jump(off, 1),
                None => self.message = Some((format!("no mark {c}"), true)),
            },
        }
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

    /// The rows of the marks popup: letter and offset, in letter order.
    pub fn mark_list(&self) -> Vec<(char, u64)> {
        self.marks.iter().map(|(&c, &o)| (c, o)).collect()
    }

    fn run_popup_command(&mut self, cmd: Command) {
        let Some(popup) = self.popup.as_mut() else {
            return;
        };
        let list_len = match popup {
            Popup::Marks { .. } => self.marks.len(),
            Popup::Diagnostics { .. } => self.tree.diagnostics().len(),
            _ => 0,
        };
        match popup {
            Popup::Help { scroll } => match cmd {
                Command::Escape | Command::Quit | Command::OpenHelp | Command::Submit => {
                    self.popup = None
                }
                Command::Up => *scroll = scroll.saturating_sub(1),
                Command::Down => *scroll = scroll.saturating_add(1),
                Command::PageUp => *scroll = scroll.saturating_sub(10),
                Command::PageDown => *scroll = scroll.saturating_add(10),
                Command::Home => *scroll = 0,
                _ => {}
            },
            Popup::Copy => {
                self.popup = None;
                if let Command::Input(c) = cmd {
                    self.copy(c);
                }
            }
            Popup::Marks { selected } | Popup::Diagnostics { selected } => {
                let last = list_len.saturating_sub(1);
                match cmd {
                    Command::Escape | Command::Quit => self.popup = None,
                    Command::Up => *selected = selected.saturating_sub(1),
                    Command::Down => *selected = (*selected + 1).min(last),
                    Command::PageUp => *selected = selected.saturating_sub(10),
                    Command::PageDown => *selected = (*selected + 10).min(last),
                    Command::Home => *selected = 0,
                    Command::End => *selected = last,
                    Command::Activate | Command::Submit => {
                        let i = *selected;
                        let is_marks = matches!(popup, Popup::Marks { .. });
                        self.popup = None;
                        if is_marks {
                            if let Some(&(_, off)) = self.mark_list().get(i) {
                                self.jump(off, 1);
                            }
                        } else if let Some(d) = self.tree.diagnostics().get(i).cloned() {
                            self.jump(d.offset, d.size);
                            self.message =
                                Some((format!("{}: {}", d.severity.as_str(), d.message), true));
                        }
                    }
                    _ => {}
                }
            }
            Popup::Prompt(p) => {
                if let PromptKind::Overwrite(path) = &p.kind {
                    let path = path.clone();
                    self.popup = None;
                    match cmd {
                        Command::Input('y' | 'Y') => self.save(&path, true),
                        _ => self.message = Some(("not written".into(), false)),
                    }
                    return;
                }
                match cmd {
                    Command::Escape => self.popup = None,
                    Command::Input(c) => p.input.push(c),
                    Command::Backspace => {
                        p.input.pop();
                    }
                    Command::ToggleCase => self.case_sensitive = !self.case_sensitive,
                    Command::Submit => {
                        let prompt = p.clone();
                        self.popup = None;
                        self.submit(prompt);
                    }
                    _ => {}
                }
            }
        }
    }

    fn submit(&mut self, p: Prompt) {
        match p.kind {
            PromptKind::Goto => {
                if let Err(e) = self.goto(p.input.trim()) {
                    self.message = Some((e, true));
                }
            }
            PromptKind::Search => {
                if p.input.is_empty() {
                    return;
                }
                self.start_search(&p.input);
            }
            PromptKind::SaveAs => {
                let path = p.input.trim();
                if path.is_empty() {
                    self.message = Some(("no file name given".into(), true));
                } else {
                    self.save(path, false);
                }
            }
            PromptKind::Overwrite(_) => {}
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
