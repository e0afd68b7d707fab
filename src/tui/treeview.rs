//! The structure pane: the opened part of the tree as tui-tree-widget items,
//! each row `name [offset+size] value` as `--tree` prints it, long values cut to the pane's width;
//! an instruction's row is its address, bytes and text in columns. After a
//! reload, and with two files, a sign column marks what changed.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use ratatui::Frame;
use tui_tree_widget::{Tree as TreeWidget, TreeItem};
use unicode_width::UnicodeWidthStr;

use super::app::{App, Focus};
use super::changes::{Mark, Side};
use super::coderow;
use super::columns::truncate;
use super::theme;
use crate::model::{text, NodeId};

/// Stands in for the children of a node that is closed, so that the widget
/// shows it can be opened.
const PLACEHOLDER: NodeId = NodeId::MAX;

fn row(app: &App, id: NodeId, depth: usize, width: usize) -> Line<'static> {
    let Some(n) = app.doc.tree.node(id) else {
        return Line::from("");
    };
    let range = format!("[0x{:x}+0x{:x}]", n.offset, n.size);
    // Indent and open/closed symbol take two columns a level.
    // After a reload, a sign column of two.
    // With two files, a sign column of two too.
    let sign_w = if app.reloaded.is_some() || app.compare.is_some() {
        2
    } else {
        0
    };
    let mut avail = width.saturating_sub(depth * 2 + 2 + sign_w);
    let mut spans = Vec::new();
    // A node holding an error: a mark that reads without colour, and the
    // error colour.
    let bad = app.errors_in(n.span());
    if bad {
        avail = avail.saturating_sub(2);
    }
    let name = truncate(
        &text::clean(&n.name),
        avail.saturating_sub(range.width() + 1).max(8),
    );
    let used = name.width() + 1 + range.width() + 1;
    // After a reload: what changed since the previous load, as the diff
    // marks it (a sign that reads without colour, and the diff's colour);
    // with two files, what differs from the other file.
    let mark = match (&app.reloaded, &app.compare) {
        (Some(c), _) => Some(c.of(Side::B, &app.doc.tree.path_string(id))),
        (None, Some(c)) => Some(c.mark(&app.doc.tree.path_string(id))),
        (None, None) => None,
    };
    let name_style = match mark {
        Some(m) if m != Mark::Same && m != Mark::Pending => {
            spans.push(Span::styled(format!("{} ", m.sign()), m.style()));
            m.style()
        }
        Some(_) => {
            spans.push(Span::raw("  "));
            theme::name()
        }
        None => theme::name(),
    };
    if bad {
        spans.push(Span::styled("✗ ", theme::error()));
    }
    let name_style = if bad { theme::error() } else { name_style };
    // An instruction: address, bytes and text in columns.
    if let Some(crate::model::Value::Insn { text: insn, src }) = &n.value {
        let bytes = app.doc.tree.node_bytes(id);
        spans.extend(coderow::spans(
            &n.name,
            name_style,
            bytes,
            insn,
            src.as_deref(),
            avail,
        ));
        return Line::from(spans);
    }
    // In the order `--tree` prints a node: name, range, value.
    spans.push(Span::styled(name.clone(), name_style));
    spans.push(Span::raw(" "));
    spans.push(Span::styled(range, theme::dim()));
    if let Some(v) = &n.value {
        let room = avail.saturating_sub(used);
        if room >= 4 {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                truncate(&v.shown(app.numbers), room),
                theme::value(),
            ));
        }
    }
    Line::from(spans)
}

fn item(app: &App, id: NodeId, depth: usize, width: usize) -> TreeItem<'static, NodeId> {
    let text = row(app, id, depth, width);
    if app.opened.contains(&id) {
        let kids: Vec<_> = app
            .shown_children(id)
            .into_iter()
            .map(|k| item(app, k, depth + 1, width))
            .collect();
        TreeItem::new(id, text.clone(), kids).unwrap_or_else(|_| TreeItem::new_leaf(id, text))
    } else if app.doc.tree.has_children(id) {
        let ph = TreeItem::new_leaf(PLACEHOLDER, "…");
        TreeItem::new(id, text.clone(), vec![ph]).unwrap_or_else(|_| TreeItem::new_leaf(id, text))
    } else {
        TreeItem::new_leaf(id, text)
    }
}

/// The pane's title: `Structure`, or with two files the file's name (the
/// part that tells it from the other), and the filter in force.
fn title(app: &App, width: usize) -> String {
    let filter = match &app.filter {
        Some(f) => format!(
            ", filter {} ({})",
            super::columns::truncate(&text::clean(&f.query), 24),
            f.matched.len()
        ),
        None => String::new(),
    };
    match &app.compare {
        Some(c) => {
            let room = width.saturating_sub(filter.len() + 2).max(8);
            let name = super::columns::distinct(&c.names.0, &c.names.1, room);
            format!(" {name}{filter} ")
        }
        None => format!(" Structure{filter} "),
    }
}

pub fn render(app: &mut App, frame: &mut Frame<'_>, area: Rect) {
    let focused = app.has_keys(Focus::Tree);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border(focused))
        .title(title(app, area.width.saturating_sub(2) as usize));
    let width = block.inner(area).width as usize;
    let items = vec![item(app, app.doc.tree.root(), 0, width)];
    let Ok(widget) = TreeWidget::new(&items) else {
        return;
    };
    let widget = widget
        .block(block)
        .highlight_style(theme::tree_selected(focused));
    frame.render_stateful_widget(widget, area, &mut app.tree_state);
}
