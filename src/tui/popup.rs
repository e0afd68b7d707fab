//! Popups: the help screen and the one-line prompts.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::theme;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    Goto,
}

impl PromptKind {
    fn title(self) -> &'static str {
        match self {
            PromptKind::Goto => " Go to offset: 0x hex, decimal, +N/-N relative ",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: String,
}

impl Prompt {
    pub fn new(kind: PromptKind) -> Prompt {
        Prompt {
            kind,
            input: String::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Popup {
    Help { scroll: u16 },
    Prompt(Prompt),
}

/// Every key, as the help popup and README list them.
pub const KEYS: &[(&str, &str)] = &[
    ("↑ ↓  k j", "move up / down (tree: rows, hex: 16-byte rows)"),
    (
        "← →  h l",
        "tree: close or go to parent / open or go to first child; hex: previous / next byte",
    ),
    ("PgUp PgDn", "move by a page"),
    ("Home End", "first / last row, or first / last byte"),
    ("Enter", "follow the node's link, else open / close it"),
    ("Space", "open / close the node"),
    ("Tab", "switch focus between the tree and the hex pane"),
    ("] [", "next / previous sibling"),
    ("g", "go to an offset: 0x1f0, 496, +16, -0x10"),
    ("?", "this help"),
    ("q", "quit"),
    ("Esc", "close the popup, else quit"),
    (
        "mouse",
        "click a row or a byte to select it; the wheel scrolls",
    ),
];

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [c] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    c
}

pub fn render(popup: &Popup, frame: &mut Frame<'_>) {
    let area = frame.area();
    match popup {
        Popup::Help { scroll } => {
            let key_w = KEYS
                .iter()
                .map(|(k, _)| unicode_width::UnicodeWidthStr::width(*k))
                .max()
                .unwrap_or(8);
            let lines: Vec<Line<'_>> = KEYS
                .iter()
                .map(|(k, d)| {
                    let pad = key_w.saturating_sub(unicode_width::UnicodeWidthStr::width(*k));
                    Line::from(vec![
                        Span::styled(format!(" {k}{} ", " ".repeat(pad)), theme::key()),
                        Span::raw(*d),
                    ])
                })
                .collect();
            let h = lines.len() as u16 + 2;
            let r = centered(area, 96, h);
            let max_scroll = (lines.len() as u16).saturating_sub(r.height.saturating_sub(2));
            frame.render_widget(Clear, r);
            frame.render_widget(
                Paragraph::new(lines)
                    .scroll(((*scroll).min(max_scroll), 0))
                    .block(
                        Block::default()
                            .borders(Borders::ALL)
                            .border_style(theme::border(true))
                            .title(" Keys (Esc closes) "),
                    ),
                r,
            );
        }
        Popup::Prompt(p) => {
            let r = centered(area, 60, 3);
            frame.render_widget(Clear, r);
            let line = Line::from(vec![
                Span::raw(p.input.clone()),
                Span::styled(" ", theme::cursor()),
            ]);
            frame.render_widget(
                Paragraph::new(line).block(
                    Block::default()
                        .borders(Borders::ALL)
                        .border_style(theme::border(true))
                        .title(p.kind.title()),
                ),
                r,
            );
        }
    }
}
