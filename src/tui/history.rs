//! The jump list (Ctrl-o / Ctrl-n) and marks.

use super::app::{App, Location, Pending, HISTORY};

impl App {
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

    pub(super) fn restore(&mut self, loc: Location) {
        self.select(loc.node, false);
        self.cursor = loc.cursor.min(self.space_len().saturating_sub(1));
        self.scroll_hex_to(self.cursor);
    }

    pub(super) fn go_back(&mut self) {
        match self.back.pop() {
            Some(loc) => {
                self.forward.push(self.location());
                self.restore(loc);
            }
            None => self.message = Some(("no earlier jump".into(), false)),
        }
    }

    pub(super) fn go_forward(&mut self) {
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
        let id = self
            .doc
            .tree
            .smallest_containing(crate::model::Span::file(off, size));
        self.select(id, false);
        self.cursor = off;
        self.scroll_hex_to(off);
    }

    /// [`App::jump`] to `to` in its byte space, found through a node of it
    /// that is built; the file when none is.
    pub fn jump_in(&mut self, to: crate::model::Span) {
        match self.space_top(to.space) {
            Some(top) if to.space != crate::model::space::FILE => {
                if to.offset >= self.doc.tree.space_bytes(to.space).len() as u64 {
                    return;
                }
                self.jump_from(top, to);
            }
            _ => self.jump(to.offset, to.len),
        }
    }

    /// The root of byte space `space`, found through a node of it that is
    /// built: the selection's own space without a search.
    pub(super) fn space_top(&self, space: crate::model::SpaceId) -> Option<crate::model::NodeId> {
        if self.space() == space {
            return Some(self.doc.tree.space_root(self.selected));
        }
        (0..self.doc.tree.len())
            .map(crate::model::NodeId::at)
            .find(|&id| self.doc.tree.node(id).is_some_and(|n| n.space == space))
            .map(|id| self.doc.tree.space_root(id))
    }

    /// Goes to `to`, remembering where the user was: the smallest node
    /// below `top` (a node of `to`'s space) holding it is selected, the
    /// cursor on its start.
    pub(super) fn jump_from(&mut self, top: crate::model::NodeId, to: crate::model::Span) {
        self.remember();
        let id = self.doc.tree.smallest_containing_from(top, to);
        self.select(id, false);
        self.cursor = to.offset.min(self.space_len().saturating_sub(1));
        self.scroll_hex_to(self.cursor);
    }

    pub(super) fn letter(&mut self, p: Pending, c: char) {
        if !c.is_ascii_alphabetic() {
            self.message = Some(("marks are letters a-z and A-Z".into(), true));
            return;
        }
        match p {
            Pending::SetMark => {
                self.marks.insert(c, self.location());
                self.message = Some((format!("mark {c} set at 0x{:x}", self.cursor), false));
                self.save_marks();
            }
            Pending::JumpMark => match self.marks.get(&c).copied() {
                Some(loc) => {
                    self.remember();
                    self.restore(loc);
                }
                None => self.message = Some((format!("no mark {c}"), true)),
            },
        }
    }

    /// The rows of the marks popup: letter and offset, in letter order.
    /// The marks in letter order: letter, cursor and the address of the
    /// node marked.
    pub fn mark_list(&self) -> Vec<(char, u64, String)> {
        self.marks
            .iter()
            .map(|(&c, l)| (c, l.cursor, self.doc.tree.path_string(l.node)))
            .collect()
    }
}
