//! A range of bytes chosen by hand (`v` in either pane, then moving the
//! cursor): shaded in the hex pane, and what `y` `b` copies and `x`
//! writes in place of the selected node's bytes.

use super::app::App;
use crate::model::SpaceId;

impl App {
    /// Starts a range at the cursor, or ends the one being chosen.
    pub fn toggle_visual(&mut self) {
        if self.visual.take().is_some() {
            self.message = Some(("range ended".into(), false));
            return;
        }
        if self.space_len() == 0 {
            self.message = Some(("no bytes to choose".into(), true));
            return;
        }
        self.visual = Some((self.space(), self.cursor));
        self.message = Some((
            "range from the cursor: move to its other end; y b copies it, x writes it, v or Esc ends it"
                .into(),
            false,
        ));
    }

    /// The range being chosen, `[start, end)` in the shown byte space:
    /// from where `v` was pressed to the cursor, both included. None when
    /// no range is being chosen or the view left its byte space.
    pub fn visual_range(&self) -> Option<(u64, u64)> {
        let (space, anchor) = self.visual?;
        if space != self.space() {
            return None;
        }
        let len = self.space_len();
        let (a, b) = (anchor.min(self.cursor), anchor.max(self.cursor));
        let end = b.saturating_add(1).min(len);
        (a < end).then_some((a, end))
    }

    /// The bytes `y` `b` and `x` take: the chosen range, else the selected
    /// node's, as (byte space, start, end).
    pub fn chosen_bytes(&self) -> (SpaceId, u64, u64) {
        if let Some((s, e)) = self.visual_range() {
            return (self.space(), s, e);
        }
        self.doc
            .tree
            .node(self.selected)
            .map_or((crate::model::FILE, 0, 0), |n| (n.space, n.offset, n.end()))
    }
}
