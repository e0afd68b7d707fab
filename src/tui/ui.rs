//! Draws the whole screen from the state. Nothing here changes what the
//! user sees next, except for recording the panes' sizes.

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::Frame;

use super::app::{App, Panes, View};
use super::hex::Geometry;
use super::popup::Popup;
use super::{hex, inspector, popup, status, theme, treeview};
use ratatui::text::{Line, Span, Text};

/// Columns the tree pane keeps beside the hex pane, so that a row shows a
/// name and its value.
const TREE_MIN: u16 = 48;

/// Columns the tree keeps when the hex pane is widened (`w`).
const TREE_NARROW: u16 = 24;

/// Splits the body between the tree and the hex pane: side by side when
/// there is room, the hex pane taking 16, 8 or 4 bytes a row so that the
/// tree keeps `TREE_MIN` columns; stacked in a narrow terminal.
fn split(area: Rect, file_len: u64, panes: Panes) -> (Rect, Rect, Geometry) {
    match panes {
        Panes::HexOnly => {
            let tree = Rect { width: 0, ..area };
            return (
                tree,
                area,
                Geometry::fit(file_len, area.width.saturating_sub(2)),
            );
        }
        Panes::WideHex if area.width >= 60 => {
            let hex_w = area.width - TREE_NARROW;
            let geo = Geometry::fit(file_len, hex_w.saturating_sub(2));
            let [t, h] = Layout::horizontal([
                Constraint::Min(TREE_NARROW),
                Constraint::Length(geo.width() + 2),
            ])
            .areas(area);
            return (t, h, geo);
        }
        _ => {}
    }
    if area.width >= 60 {
        let geo = [16, 8, 4]
            .into_iter()
            .map(|bpr| Geometry::new(file_len, bpr))
            .find(|g| g.width() + 2 + TREE_MIN <= area.width)
            .unwrap_or_else(|| Geometry::new(file_len, 4));
        let hex_w = (geo.width() + 2).min(area.width.saturating_sub(30));
        let [t, h] =
            Layout::horizontal([Constraint::Min(30), Constraint::Length(hex_w)]).areas(area);
        (
            t,
            h,
            Geometry::fit(file_len, h.width.saturating_sub(2)).min_bpr(geo),
        )
    } else {
        // Stacked; the hex pane widened takes two thirds of the rows.
        let tree = if panes == Panes::WideHex { 35 } else { 50 };
        let [t, h] = Layout::default()
            .direction(Direction::Vertical)
            .constraints([
                Constraint::Percentage(tree),
                Constraint::Percentage(100 - tree),
            ])
            .areas(area);
        (t, h, Geometry::fit(file_len, h.width.saturating_sub(2)))
    }
}

/// Draws the whole screen for one file: its panes, the details line, the
/// status bar and the popup.
pub fn render(app: &mut App, frame: &mut Frame<'_>) {
    let [body, details, statusbar] = rows(frame.area());
    render_panes(app, frame, body, None);
    render_bars(app, frame, details, statusbar);
    render_popup(app, frame);
    theme::strip(frame.buffer_mut());
}

/// The screen's rows: the panes, the details line, the status bar.
pub fn rows(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Min(2),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// Draws one file's tree, hex pane and inspector in `body`, recording
/// their sizes. With two files, `other` holds the bytes of the node paired
/// with the selected one (see [`hex::render`]).
pub fn render_panes(app: &mut App, frame: &mut Frame<'_>, body: Rect, other: Option<&[u8]>) {
    // The inspector goes under the hex pane when its values fit there,
    // else across the whole width, else over the panes; with no room for
    // it the status bar says so.
    let mut insp_area = None;
    let mut insp_over = false;
    let mut panes = body;
    let (mut tree_area, mut hex_area, mut geo) = split(panes, app.file_len(), app.panes);
    if app.inspector {
        use inspector::Shape;
        if let Some(s) = Shape::fitting(hex_area.width, hex_area.height.saturating_sub(6)) {
            let [h, i] = Layout::vertical([Constraint::Min(6), Constraint::Length(s.size().1)])
                .areas(hex_area);
            hex_area = h;
            insp_area = Some(i);
        } else if let Some(s) = Shape::fitting(body.width, body.height.saturating_sub(6)) {
            let [p, i] =
                Layout::vertical([Constraint::Min(6), Constraint::Length(s.size().1)]).areas(body);
            panes = p;
            insp_area = Some(i);
            (tree_area, hex_area, geo) = split(panes, app.file_len(), app.panes);
        } else if let Some(s) = Shape::fitting(body.width, body.height) {
            let (w, h) = s.size();
            insp_area = Some(Rect {
                x: body.x + (body.width - w) / 2,
                y: body.y + body.height - h,
                width: w,
                height: h,
            });
            insp_over = true;
        }
    }
    let hex_inner = Rect {
        x: hex_area.x.saturating_add(1),
        y: hex_area.y.saturating_add(1),
        width: hex_area.width.saturating_sub(2),
        height: hex_area.height.saturating_sub(2),
    };
    app.set_view(View {
        tree_area,
        hex_area,
        hex_inner,
        hex_rows: u64::from(hex_inner.height.max(1)),
        bytes_per_row: geo.bpr,
        tree_rows: tree_area.height.saturating_sub(2).max(1) as usize,
        inspector_shown: insp_area.is_some(),
    });
    treeview::render(app, frame, tree_area);
    // A scroll the tree widget held back (it scrolls only as far as the
    // rows it drew last, fewer than a selection's ancestors just opened
    // give) is made now that they are drawn, and the tree drawn again.
    if let Some(want) = app.rescroll.take() {
        app.scroll_tree_to(want);
        app.keep_context_or_later(false);
        frame.render_widget(ratatui::widgets::Clear, tree_area);
        treeview::render(app, frame, tree_area);
    }
    hex::render(app, frame, hex_area, geo, other);
    if let Some(a) = insp_area.filter(|_| !insp_over) {
        inspector::render(app, frame, a);
    }
    if let Some(a) = insp_area.filter(|_| insp_over) {
        inspector::render(app, frame, a);
    }
}

/// The details line of the selected node and the status bar.
pub fn render_bars(app: &App, frame: &mut Frame<'_>, details: Rect, statusbar: Rect) {
    status::render_details(app, frame, details);
    status::render_status(app, frame, statusbar);
}

/// The open popup, over the whole screen.
pub fn render_popup(app: &App, frame: &mut Frame<'_>) {
    let area = frame.area();
    match &app.popup {
        Some(Popup::Marks { selected }) => {
            let rows = app
                .mark_list()
                .into_iter()
                .map(|(c, off, path)| {
                    Line::from(vec![
                        Span::styled(format!(" {c} "), theme::key()),
                        Span::raw(format!("0x{off:x}  ")),
                        Span::styled(
                            format!("/{}", crate::model::text::clean(&path)),
                            theme::dim(),
                        ),
                    ])
                })
                .collect();
            popup::render_list(
                frame,
                " Marks (Enter jumps, Esc closes) ".into(),
                rows,
                *selected,
            );
        }
        Some(Popup::Diagnostics { selected }) => {
            // By offset; long messages wrap under themselves.
            let all = app.doc.tree.diagnostics();
            let order = app.diagnostic_order();
            let digits = all
                .iter()
                .map(|d| format!("{:x}", d.span.offset).len())
                .max()
                .unwrap_or(1);
            let prefix = 1 + 8 + 2 + digits + 2;
            let msg_w = (area.width as usize).saturating_sub(4 + prefix).max(20);
            let rows = order
                .iter()
                .filter_map(|&i| all.get(i))
                .map(|d| {
                    let style = match d.severity {
                        crate::model::Severity::Error => theme::error(),
                        crate::model::Severity::Warning => theme::warning(),
                        crate::model::Severity::Info => theme::dim(),
                    };
                    let at = if d.span.space == crate::model::FILE {
                        format!("0x{:<digits$x}  ", d.span.offset)
                    } else {
                        format!("{}:0x{:<digits$x}  ", d.span.space, d.span.offset)
                    };
                    let clean = crate::model::text::clean(&d.message);
                    let mut lines = popup::wrap(&clean, msg_w).into_iter();
                    let mut out = vec![Line::from(vec![
                        Span::styled(format!(" {:8} ", d.severity.as_str()), style),
                        Span::styled(at, theme::dim()),
                        Span::raw(lines.next().unwrap_or_default()),
                    ])];
                    out.extend(lines.map(|l| Line::from(format!("{:prefix$}{l}", ""))));
                    Text::from(out)
                })
                .collect();
            popup::render_items(
                frame,
                " Diagnostics by offset (Enter jumps, Esc closes) ".into(),
                rows,
                *selected,
            );
        }
        Some(Popup::Strings { selected }) => super::overview::render_strings(app, frame, *selected),
        Some(Popup::Overview { selected }) => super::overview::render_blocks(app, frame, *selected),
        Some(p) => popup::render(p, app.case_sensitive, frame),
        None => {}
    }
}
