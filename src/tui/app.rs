//! The explorer's state and every change made to it. Keys become
//! [`Command`]s in `keys.rs`; [`App::run_command`] applies them; `ui.rs`
//! only draws.

use std::collections::HashSet;

use ratatui::layout::{Position, Rect};
use tui_tree_widget::TreeState;

use super::popup::{Popup, Prompt, PromptKind};
use crate::model::{NodeId, Severity, Tree};

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
            let n = self.tree.node(id);
            let off = n.offset.min(self.file_len().saturating_sub(1));
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
        let Some(parent) = self.tree.node(self.selected).parent else {
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
        } else if let Some(p) = self.tree.node(id).parent {
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
        let Some(link) = self.tree.node(self.selected).link else {
            return false;
        };
        if link.offset >= self.file_len() {
            self.message = Some((
                format!("link to 0x{:x} is past the end of the file", link.offset),
                true,
            ));
            return true;
        }
        let id = self.tree.smallest_containing(link.offset, link.size);
        self.select(id, true);
        self.cursor = link.offset;
        self.scroll_hex_to(link.offset);
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

    pub fn goto(&mut self, input: &str) -> Result<(), String> {
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

    // ---- commands ----

    pub fn run_command(&mut self, cmd: Command) {
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
            (Command::OpenHelp, _) => self.popup = Some(Popup::Help { scroll: 0 }),
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
            (Command::Input(_) | Command::Backspace | Command::Submit, _) => {}
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
                    self.select(id, true);
                }
            }
        } else if self.view.hex_area.contains(pos) {
            self.focus = Focus::Hex;
            if let Some(off) = self.hex_offset_at(x, y) {
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

    fn run_popup_command(&mut self, cmd: Command) {
        let Some(popup) = self.popup.as_mut() else {
            return;
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
            Popup::Prompt(p) => match cmd {
                Command::Escape => self.popup = None,
                Command::Input(c) => p.input.push(c),
                Command::Backspace => {
                    p.input.pop();
                }
                Command::Submit => {
                    let prompt = p.clone();
                    self.popup = None;
                    self.submit(prompt);
                }
                _ => {}
            },
        }
    }

    fn submit(&mut self, p: Prompt) {
        match p.kind {
            PromptKind::Goto => {
                if let Err(e) = self.goto(p.input.trim()) {
                    self.message = Some((e, true));
                }
            }
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
