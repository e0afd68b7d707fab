//! Moving around: the tree's selection, opening and closing, the hex
//! cursor, goto and links.

use ratatui::layout::Position;

use super::app::{parse_offset, App, View};
use crate::model::{NodeId, Severity};

/// Rows of context kept above and below the selected row of the tree.
const SCROLLOFF: usize = 3;

impl App {
    // ---- tree ----

    pub(super) fn id_path(&self, id: NodeId) -> Vec<NodeId> {
        self.doc.tree.path(id)
    }

    /// Opens a node, building its children.
    pub fn open(&mut self, id: NodeId) {
        self.doc.tree.expand(id);
        if self.doc.tree.has_children(id) {
            self.opened.insert(id);
            let p = self.id_path(id);
            self.tree_state.open(p);
        }
    }

    pub fn close(&mut self, id: NodeId) {
        self.opened.remove(&id);
        self.auto_opened.remove(&id);
        let p = self.id_path(id);
        self.tree_state.close(&p);
    }

    /// The rows of the tree as shown: every node whose ancestors are open.
    pub fn visible(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.doc.tree.root()];
        while let Some(id) = stack.pop() {
            out.push(id);
            if self.opened.contains(&id) {
                stack.extend(self.shown_children(id).iter().rev());
            }
        }
        out
    }

    /// Opens a node at the user's asking: it stays open when the selection
    /// leaves it.
    pub(super) fn open_pinned(&mut self, id: NodeId) {
        self.open(id);
        self.auto_opened.remove(&id);
        // The rows it shows now count as context below the selection.
        self.keep_context();
    }

    /// Selects a node, opening its ancestors; those opened only for this
    /// close again once the selection leaves them. With `move_cursor` the
    /// hex cursor goes to the node's first byte.
    pub fn select(&mut self, id: NodeId, move_cursor: bool) {
        self.filter_keep(id);
        let p = self.id_path(id);
        let stale: Vec<NodeId> = self
            .auto_opened
            .iter()
            .copied()
            .filter(|a| !p.contains(a))
            .collect();
        for a in stale {
            self.close(a);
        }
        for &a in &p[..p.len().saturating_sub(1)] {
            if !self.opened.contains(&a) {
                self.open(a);
                self.auto_opened.insert(a);
            }
        }
        let before = self.visible().iter().position(|&r| r == id);
        let off = self.tree_state.get_offset();
        let h = self.view.tree_rows.max(1);
        self.selected = id;
        self.tree_state.select(p);
        // A jump out of view puts the row near the top, with context above.
        if let Some(row) = before {
            if row < off || row >= off + h {
                self.scroll_tree_or_later(
                    row.saturating_sub(SCROLLOFF.min(h.saturating_sub(1) / 2)),
                );
            }
        }
        self.keep_context();
        if move_cursor {
            let noff = self.doc.tree.node(id).map_or(0, |n| n.offset);
            let off = noff.min(self.space_len().saturating_sub(1));
            self.cursor = off;
            self.scroll_hex_to(off);
        }
    }

    /// Scrolls the tree so that the selected row has a few rows of context
    /// above and below it (vim's scrolloff), when the pane has room.
    pub(super) fn keep_context(&mut self) {
        self.keep_context_or_later(true);
    }

    /// [`App::keep_context`]; where the tree widget holds the scroll back,
    /// `later` makes it as the tree is drawn ([`App::scroll_tree_or_later`]).
    pub(super) fn keep_context_or_later(&mut self, later: bool) {
        let h = self.view.tree_rows.max(1);
        let margin = SCROLLOFF.min(h.saturating_sub(1) / 2);
        let rows = self.visible();
        let Some(cur) = rows.iter().position(|&r| r == self.selected) else {
            return;
        };
        let off = self.tree_state.get_offset();
        let want = if cur < off + margin {
            cur.saturating_sub(margin)
        } else if cur + margin >= off + h {
            (cur + margin + 1).saturating_sub(h)
        } else {
            off
        };
        // Never scroll past the last row.
        let want = want.min(rows.len().saturating_sub(h));
        if later {
            self.scroll_tree_or_later(want);
        } else {
            self.scroll_tree_to(want);
        }
    }

    /// [`App::scroll_tree_to`]; where the widget holds the scroll back (it
    /// scrolls only as far as the rows it drew last), it is made as the
    /// tree is drawn ([`App::rescroll`]), unless a scroll waits already.
    fn scroll_tree_or_later(&mut self, want: usize) {
        self.scroll_tree_to(want);
        if self.tree_state.get_offset() != want && self.rescroll.is_none() {
            self.rescroll = Some(want);
        }
    }

    /// Scrolls the tree so that row `want` is its first (the widget stops
    /// at the last row it drew). Returns whether the scroll changed.
    pub(super) fn scroll_tree_to(&mut self, want: usize) -> bool {
        let off = self.tree_state.get_offset();
        if want < off {
            self.tree_state.scroll_up(off - want)
        } else {
            self.tree_state.scroll_down(want - off)
        }
    }

    pub(super) fn select_visible(&mut self, f: impl FnOnce(usize, usize) -> usize) {
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

    pub(super) fn sibling(&mut self, delta: i64) {
        let Some(parent) = self.doc.tree.node(self.selected).and_then(|n| n.parent) else {
            return;
        };
        let kids = self.shown_children(parent);
        let Some(i) = kids.iter().position(|&k| k == self.selected) else {
            return;
        };
        let j = i as i64 + delta;
        match usize::try_from(j).ok().and_then(|j| kids.get(j)) {
            Some(&k) => self.select(k, true),
            None => {
                let which = if delta > 0 { "last" } else { "first" };
                self.message = Some((format!("the {which} of its siblings"), false));
            }
        }
    }

    pub(super) fn left(&mut self) {
        let id = self.selected;
        if id == self.doc.tree.root() {
            self.message = Some(("at the root: nothing above it".into(), false));
        } else if self.opened.contains(&id) {
            self.close(id);
        } else if let Some(p) = self.doc.tree.node(id).and_then(|n| n.parent) {
            self.select(p, true);
        }
    }

    pub(super) fn right(&mut self) {
        let id = self.selected;
        if !self.doc.tree.has_children(id) {
            return;
        }
        if !self.opened.contains(&id) {
            self.open_pinned(id);
        } else if let Some(&first) = self.shown_children(id).first() {
            self.select(first, true);
        }
    }

    pub(super) fn toggle(&mut self) {
        let id = self.selected;
        if id == self.doc.tree.root() {
            self.message = Some(("the root stays open (z closes the rest)".into(), false));
        } else if self.opened.contains(&id) {
            self.close(id);
        } else {
            self.open_pinned(id);
        }
    }

    /// Closes every node but the root; the selection goes to the top-level
    /// node that held it.
    pub(super) fn collapse_all(&mut self) {
        let root = self.doc.tree.root();
        let open: Vec<NodeId> = self.opened.iter().copied().filter(|&n| n != root).collect();
        for n in open {
            self.close(n);
        }
        let p = self.id_path(self.selected);
        let top = p.get(1).copied().unwrap_or(root);
        let same = self.doc.tree.node(top).map(|n| n.space) == Some(self.space());
        self.select(top, !same);
        self.message = Some(("every node closed (z)".into(), false));
    }

    /// Follows the selected node's link, if it has one.
    pub fn follow(&mut self) -> bool {
        let Some(link) = self.doc.tree.link(self.selected) else {
            return false;
        };
        let len = self.doc.tree.space_bytes(link.space).len() as u64;
        if link.offset >= len {
            let what = if link.space == crate::model::FILE {
                "the file".to_string()
            } else {
                format!("byte space {}", link.space)
            };
            self.message = Some((
                format!("link to 0x{:x} is past the end of {what}", link.offset),
                true,
            ));
            return true;
        }
        self.jump_in(link);
        true
    }

    // ---- hex ----

    /// Moves the hex cursor and selects the deepest node that holds it.
    pub fn set_cursor(&mut self, off: u64) {
        let len = self.space_len();
        if len == 0 {
            return;
        }
        let off = off.min(len - 1);
        self.cursor = off;
        let top = self.doc.tree.space_root(self.selected);
        let at = self.doc.tree.span_in(top, off, 1);
        let id = self.doc.tree.smallest_containing_from(top, at);
        self.select(id, false);
        self.ensure_cursor_visible();
    }

    pub(super) fn move_cursor(&mut self, delta: i128) {
        let to = (self.cursor as i128 + delta).max(0);
        self.set_cursor(u64::try_from(to).unwrap_or(u64::MAX));
    }

    pub(super) fn ensure_cursor_visible(&mut self) {
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
    pub(super) fn scroll_hex_to(&mut self, off: u64) {
        let row = off / self.bpr();
        let rows = self.view.hex_rows.max(1);
        if row < self.hex_top || row >= self.hex_top + rows {
            self.hex_top = row;
        }
        self.clamp_hex_top();
    }

    pub(super) fn last_row(&self) -> u64 {
        self.space_len().saturating_sub(1) / self.bpr()
    }

    pub(super) fn clamp_hex_top(&mut self) {
        let max_top = (self.last_row() + 1).saturating_sub(self.view.hex_rows.max(1));
        self.hex_top = self.hex_top.min(max_top);
    }

    /// Called by the renderer when the pane's geometry changes, so that
    /// the cursor's row stays in view.
    pub fn set_view(&mut self, view: View) {
        let changed =
            view.bytes_per_row != self.view.bytes_per_row || view.hex_rows != self.view.hex_rows;
        let resized = view.tree_rows != self.view.tree_rows;
        self.view = view;
        if resized {
            self.tree_state.scroll_selected_into_view();
            self.keep_context();
        }
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
        (off < self.space_len()).then_some(off)
    }

    // ---- goto ----

    /// The offset a goto input names, if it is inside the file.
    pub fn goto_target(&self, input: &str) -> Result<u64, String> {
        let off = parse_offset(input, self.cursor)?;
        let len = self.space_len();
        if len == 0 {
            return Err("the file is empty".into());
        }
        if off >= len {
            let what = if self.space() == crate::model::space::FILE {
                "the file"
            } else {
                "this byte space"
            };
            return Err(format!(
                "0x{off:x} is past the end of {what} (0x{len:x} byte{})",
                if len == 1 { "" } else { "s" }
            ));
        }
        Ok(off)
    }

    /// Goes where a goto input names, remembering where the user was: an
    /// offset (see [`parse_offset`]), `K:OFFSET` in byte space K,
    /// `v:ADDRESS` a virtual address of the image holding the selection, a
    /// node's address as `y p` copies it, or a name (a symbol, a function,
    /// any node), found in the background like a search (`n` goes to the
    /// next node of that name).
    pub fn goto(&mut self, input: &str) -> Result<(), String> {
        let t = input.trim();
        if let Some(a) = t.strip_prefix("v:").or_else(|| t.strip_prefix("V:")) {
            return self.goto_address(a);
        }
        // `K:OFFSET`, as `y o` copies offsets in derived spaces: space K.
        if let Some((k, rest)) = t.split_once(':') {
            if !k.is_empty() && k.bytes().all(|c| c.is_ascii_digit()) {
                let k = k
                    .parse()
                    .map(crate::model::SpaceId)
                    .map_err(|_| format!("no byte space {}", crate::model::text::clean(k)))?;
                if k != self.space() {
                    return self.goto_space(k, rest);
                }
                return self.goto(rest);
            }
        }
        // What starts like a number is an offset, or a mistyped one.
        if t.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') {
            let off = self.goto_target(t)?;
            self.remember();
            self.set_cursor(off);
            self.scroll_hex_to(off);
            return Ok(());
        }
        if t.is_empty() {
            return Err("nothing to go to".into());
        }
        if t.contains('/') {
            if let Some(id) = self.doc.tree.find_path(t) {
                self.remember();
                self.select(id, true);
                return Ok(());
            }
        }
        self.start_pattern(
            t,
            crate::search::Pattern::Named(t.to_string()),
            super::matches::Purpose::Goto,
        );
        Ok(())
    }

    /// Completes a goto input: the last segment of a node address from the
    /// children of the node before it, or a name from the nodes built so
    /// far. Returns the input made longer by what all candidates share;
    /// where several remain, the message lists the first of them.
    pub fn complete_goto(&mut self, input: &str) -> String {
        const SHOWN: usize = 6;
        let mut cands: std::collections::BTreeSet<String> = Default::default();
        let (lead, part) = match input.rsplit_once('/') {
            Some((dir, part)) => {
                if let Some(id) = self.doc.tree.find_path(dir) {
                    for k in self.doc.tree.children(id) {
                        let seg = self.doc.tree.segment(k);
                        if seg.starts_with(part) {
                            cands.insert(seg);
                        }
                    }
                }
                (format!("{dir}/"), part)
            }
            None => {
                if input.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-')
                    || input.starts_with("v:")
                {
                    self.message = Some(("only names and node addresses complete".into(), false));
                    return input.to_string();
                }
                for id in (0..self.doc.tree.len()).map(NodeId::at) {
                    if let Some(n) = self.doc.tree.node(id) {
                        if n.name.starts_with(input) && id != self.doc.tree.root() {
                            cands.insert(n.name.to_string());
                            if cands.len() > 10_000 {
                                break;
                            }
                        }
                    }
                }
                (String::new(), input)
            }
        };
        let Some(first) = cands.first() else {
            self.message = Some((
                format!(
                    "nothing here starts with {}",
                    crate::model::text::clean(part)
                ),
                true,
            ));
            return input.to_string();
        };
        let mut common = first.len();
        for c in &cands {
            common = common.min(
                first
                    .char_indices()
                    .zip(c.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(first.len().min(c.len()), |((i, _), _)| i),
            );
        }
        let shared = first.get(..common).unwrap_or(part);
        if cands.len() > 1 {
            let list: Vec<String> = cands
                .iter()
                .take(SHOWN)
                .map(|c| crate::model::text::clean(c).into_owned())
                .collect();
            let more = cands.len().saturating_sub(SHOWN);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            self.message = Some((format!("{} {}{tail}", cands.len(), list.join(" ")), false));
        }
        format!(
            "{lead}{}",
            if shared.len() > part.len() {
                shared
            } else {
                part
            }
        )
    }

    /// Goes to virtual address `input` (hex with or without `0x`) of the
    /// nearest image around the selection that maps addresses.
    fn goto_address(&mut self, input: &str) -> Result<(), String> {
        let s = input.trim().replace('_', "");
        let digits = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(&s);
        let addr = u64::from_str_radix(digits, 16)
            .map_err(|_| format!("not an address: {}", crate::model::text::clean(input)))?;
        let mut mapped = false;
        for id in self.id_path(self.selected).into_iter().rev() {
            let Some(f) = self.doc.tree.facts(id) else {
                continue;
            };
            if f.addresses.is_none() {
                continue;
            }
            mapped = true;
            if let Some(off) = f.offset_of(addr) {
                self.jump_from(id, self.doc.tree.span_in(id, off, 1));
                return Ok(());
            }
        }
        Err(if mapped {
            format!("no section or segment in the file holds v:0x{addr:x}")
        } else {
            "no virtual addresses here: select a node of an executable or shared object".into()
        })
    }

    /// Goes to `input` (an offset from the start) in byte space `k`.
    fn goto_space(&mut self, k: crate::model::SpaceId, input: &str) -> Result<(), String> {
        let spaces = self.doc.tree.spaces().len();
        if k.index() >= spaces {
            return Err(format!(
                "no byte space {k}: the spaces are 0 to {}",
                spaces.saturating_sub(1)
            ));
        }
        let off = parse_offset(input, 0)?;
        let len = self.doc.tree.space_bytes(k).len() as u64;
        if off >= len {
            return Err(format!(
                "0x{off:x} is past the end of byte space {k} (0x{len:x} byte{})",
                if len == 1 { "" } else { "s" }
            ));
        }
        self.jump_in(crate::model::Span::new(k, off, 1));
        if self.space() != k {
            return Err(format!(
                "byte space {k} is not open yet: open its node first"
            ));
        }
        Ok(())
    }

    // ---- diagnostics ----

    /// Whether an error is about bytes in `at` (at its start, if it is
    /// empty).
    pub fn errors_in(&self, at: crate::model::Span) -> bool {
        self.doc.tree.diagnostics().iter().any(|d| {
            d.severity == Severity::Error
                && d.span.space == at.space
                && (at.contains(d.span.offset) || (at.is_empty() && d.span.offset == at.offset))
        })
    }

    /// The diagnostics in the order the `!` list shows them: by byte
    /// space, then offset.
    pub fn diagnostic_order(&self) -> Vec<usize> {
        let d = self.doc.tree.diagnostics();
        let mut order: Vec<usize> = (0..d.len()).collect();
        order.sort_by_key(|&i| d.get(i).map(|d| (d.span.space, d.span.offset)));
        order
    }

    /// The selected node in full, for the `d` popup: every field the
    /// details line shortens, and the diagnostics in its bytes.
    pub fn node_rows(&self) -> Vec<(&'static str, String)> {
        use crate::model::text::clean;
        const SHOWN: usize = 20;
        let t = &self.doc.tree;
        let id = self.selected;
        let Some(n) = t.node(id) else {
            return Vec::new();
        };
        let path = t.path_string(id);
        let mut rows = vec![
            ("name", clean(t.name(id)).into_owned()),
            ("path", format!("/{}", clean(&path))),
        ];
        if let Some(v) = &n.value {
            rows.push(("value", v.shown(self.numbers)));
        }
        let space = if n.space == crate::model::space::FILE {
            String::new()
        } else {
            format!(" in space {}", n.space)
        };
        rows.push((
            "bytes",
            format!(
                "{} at [0x{:x}..0x{:x}){space}",
                super::status::bytes(n.size),
                n.offset,
                n.end()
            ),
        ));
        if let Some(l) = t.link(id) {
            rows.push((
                "link",
                format!(
                    "{} at {} (Enter follows)",
                    super::status::bytes(l.len),
                    l.start_text()
                ),
            ));
        }
        let mut here = t.diagnostics().iter().filter(|d| {
            d.span.space == n.space
                && d.span.offset >= n.offset
                && d.span.offset < n.end().max(n.offset + 1)
        });
        for d in here.by_ref().take(SHOWN) {
            rows.push((
                d.severity.as_str(),
                format!("0x{:x}: {}", d.span.offset, clean(&d.message)),
            ));
        }
        let more = here.count();
        if more > 0 {
            rows.push(("", format!("and {more} more (! lists them all)")));
        }
        rows
    }

    pub fn count(&self, s: Severity) -> usize {
        self.doc
            .tree
            .diagnostics()
            .iter()
            .filter(|d| d.severity == s)
            .count()
    }
}
