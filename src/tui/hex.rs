//! The hex pane: offsets, bytes coloured by class, the same bytes as text,
//! the selected node and its ancestors shaded, the cursor reversed; with two
//! files, the selected node's bytes that differ from the other file's
//! marked. Every hex pane is drawn here.

use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::app::{App, Focus};
use super::theme;
use crate::model::text;

/// Where each column of a hex row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub offset_digits: u16,
    pub bpr: u64,
}

impl Geometry {
    pub fn new(file_len: u64, bpr: u64) -> Geometry {
        let last = file_len.saturating_sub(1);
        let digits = (64 - last.leading_zeros()).div_ceil(4).max(8) as u16;
        Geometry {
            offset_digits: digits,
            bpr: bpr.max(1),
        }
    }
    fn hex_start(&self) -> u16 {
        self.offset_digits + 2
    }
    /// Column of byte `i`'s first hex digit.
    pub fn hex_col(&self, i: u64) -> u16 {
        self.hex_start() + (i * 3 + i / 8) as u16
    }
    pub fn ascii_start(&self) -> u16 {
        // Every byte is two digits and a space, an extra space splits each
        // group of eight, and one more space comes before the text.
        self.hex_start() + (self.bpr * 3 + (self.bpr - 1) / 8) as u16 + 1
    }
    /// Width of a full row.
    pub fn width(&self) -> u16 {
        self.ascii_start() + self.bpr as u16
    }
    /// The largest of 32, 16, 8, 4, 2, 1 bytes a row that fits in `cols`.
    pub fn fit(file_len: u64, cols: u16) -> Geometry {
        for bpr in [32, 16, 8, 4, 2] {
            let g = Geometry::new(file_len, bpr);
            if g.width() <= cols {
                return g;
            }
        }
        Geometry::new(file_len, 1)
    }
    /// The one of `self` and `other` with fewer bytes a row.
    pub fn min_bpr(self, other: Geometry) -> Geometry {
        if other.bpr < self.bpr {
            other
        } else {
            self
        }
    }
    /// The byte index within a row shown at column `col`, in either the hex
    /// or the text part.
    pub fn byte_at_column(&self, col: u16) -> Option<u64> {
        if col >= self.ascii_start() {
            let i = u64::from(col - self.ascii_start());
            return (i < self.bpr).then_some(i);
        }
        (0..self.bpr).find(|&i| {
            let c = self.hex_col(i);
            col >= c && col < c + 3
        })
    }
}

/// Shades for the bytes of the selected node and its ancestors in the same
/// byte space, nearest first (the root, the whole file, is left out).
fn shades(app: &App) -> Vec<(u64, u64, Color)> {
    let mut out = Vec::new();
    let root = app.doc.tree.root();
    let space = app.space();
    let mut id = app.selected;
    let mut depth = 0usize;
    while id != root && depth <= theme::ANCESTOR_BG.len() {
        let Some(n) = app.doc.tree.node(id) else {
            break;
        };
        if n.space != space {
            break;
        }
        let bg = if depth == 0 {
            theme::SELECTED_BG
        } else {
            theme::ANCESTOR_BG[depth - 1]
        };
        out.push((n.offset, n.end(), bg));
        match n.parent {
            Some(p) => id = p,
            None => break,
        }
        depth += 1;
    }
    out
}

/// Draws the hex pane of `app`. With two files, `other` holds the bytes
/// of the node paired with the selected one: the selected node's bytes
/// that differ from them are marked.
pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect, geo: Geometry, other: Option<&[u8]>) {
    let focused = app.has_keys(Focus::Hex);
    let space = app.space();
    // A derived space says where its bytes came from.
    let title = if space == crate::model::space::FILE {
        " Hex ".to_string()
    } else {
        format!(
            " Hex of space {space}: {} ",
            text::clean(&app.space_describe())
        )
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border(focused))
        .title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let data = app.space_data();
    let len = data.len() as u64;
    if len == 0 {
        frame.render_widget(Paragraph::new("(empty file)").style(theme::dim()), inner);
        return;
    }
    // Search matches on screen take the match colour over the node shades.
    let first = app.hex_top.saturating_mul(geo.bpr);
    let last = first.saturating_add(u64::from(inner.height) * geo.bpr);
    let mut shades: Vec<(u64, u64, Color)> = app
        .matches_in(first, last)
        .into_iter()
        .map(|(s, e)| (s, e, theme::MATCH_BG))
        .collect();
    // A range being chosen (v) over everything but the matches.
    if let Some((s, e)) = app.visual_range() {
        shades.push((s, e, theme::VISUAL_BG));
    }
    shades.extend(self::shades(app));
    // Bytes a warning or an error is about, where nothing else shades them.
    shades.extend(
        app.doc
            .tree
            .diagnostics()
            .iter()
            .filter(|d| d.severity != crate::model::Severity::Info && d.span.space == space)
            .map(|d| {
                (
                    d.span.offset,
                    d.span.offset.saturating_add(d.span.len.max(1)),
                )
            })
            .filter(|&(s, e)| s < last && e > first)
            .map(|(s, e)| (s, e, theme::DIAG_BG)),
    );
    // The root selected: all its bytes take the selection's shade, under
    // the others.
    if app.selected == app.doc.tree.root() {
        shades.push((0, len, theme::SELECTED_BG));
    }
    let bg_at = |o: u64| -> Option<Color> {
        shades
            .iter()
            .find(|(s, e, _)| o >= *s && o < *e)
            .map(|(_, _, c)| *c)
    };
    // The selected node's bytes against the other file's.
    let sel = app
        .doc
        .tree
        .node(app.selected)
        .map_or((0, 0), |n| (n.offset, n.end()));
    let differs = |o: u64, b: u8| -> bool {
        other.is_some_and(|bytes| {
            o >= sel.0 && o < sel.1 && bytes.get((o - sel.0) as usize) != Some(&b)
        })
    };
    let mut lines = Vec::with_capacity(inner.height as usize);
    for r in 0..u64::from(inner.height) {
        let row = app.hex_top + r;
        let start = row.saturating_mul(geo.bpr);
        if start >= len {
            break;
        }
        let end = (start + geo.bpr).min(len);
        let bytes = data.get(start as usize..end as usize).unwrap_or_default();
        let mut spans: Vec<Span<'static>> = Vec::with_capacity(geo.bpr as usize * 2 + 4);
        spans.push(Span::styled(
            format!("{:0w$x}  ", start, w = geo.offset_digits as usize),
            theme::dim(),
        ));
        let style_of = |o: u64, b: u8| -> Style {
            let mut s = Style::new().fg(theme::byte_fg(theme::class(b)));
            if let Some(bg) = bg_at(o) {
                s = s.patch(theme::shade(bg));
            }
            if differs(o, b) {
                s = s.patch(theme::differs());
            }
            if o == app.cursor {
                s = if focused {
                    s.patch(theme::cursor())
                } else {
                    s.add_modifier(ratatui::style::Modifier::UNDERLINED)
                };
            }
            s
        };
        for i in 0..geo.bpr {
            let o = start + i;
            match bytes.get(i as usize) {
                Some(&b) => {
                    spans.push(Span::styled(format!("{b:02x}"), style_of(o, b)));
                    // The gap takes the shade when the next byte is in the same range.
                    let gap_bg = if o + 1 < end && bg_at(o) == bg_at(o + 1) {
                        bg_at(o)
                    } else {
                        None
                    };
                    let gap = if i % 8 == 7 && i + 1 < geo.bpr {
                        "  "
                    } else {
                        " "
                    };
                    spans.push(match gap_bg {
                        Some(bg) if theme::color() => Span::styled(gap, Style::new().bg(bg)),
                        _ => Span::raw(gap),
                    });
                }
                None => {
                    let gap = if i % 8 == 7 && i + 1 < geo.bpr {
                        "    "
                    } else {
                        "   "
                    };
                    spans.push(Span::raw(gap));
                }
            }
        }
        spans.push(Span::raw(" "));
        for (i, &b) in bytes.iter().enumerate() {
            let o = start + i as u64;
            spans.push(Span::styled(
                theme::byte_char(b).to_string(),
                style_of(o, b),
            ));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bytes_need_76_columns() {
        let g = Geometry::new(100, 16);
        assert_eq!(g.width(), 76);
        assert_eq!(g.hex_col(0), 10);
        assert_eq!(g.hex_col(8), 35);
        assert_eq!(g.byte_at_column(10), Some(0));
        assert_eq!(g.byte_at_column(12), Some(0));
        assert_eq!(g.byte_at_column(13), Some(1));
        assert_eq!(g.byte_at_column(g.ascii_start() + 15), Some(15));
        assert_eq!(g.byte_at_column(g.ascii_start() + 16), None);
        assert_eq!(g.byte_at_column(0), None);
    }

    #[test]
    fn big_files_get_wider_offsets() {
        assert_eq!(Geometry::new((1 << 32) + 1, 16).offset_digits, 9);
        assert_eq!(Geometry::new(0, 16).offset_digits, 8);
    }

    #[test]
    fn narrow_panes_get_fewer_bytes() {
        assert_eq!(Geometry::fit(100, 76).bpr, 16);
        assert_eq!(Geometry::fit(100, 75).bpr, 8);
        assert_eq!(Geometry::fit(100, 10).bpr, 1);
    }
}
