//! Popups: help, the one-line prompts, and the lists (marks, diagnostics,
//! what to copy). Each takes its own keys ([`Popup::handle_key`]) and says
//! what the app should do ([`Outcome`]); the app does it.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};
use ratatui::Frame;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::command::Command;
use super::keys::plain;
pub use super::keys::KEYS;
use super::{columns, theme};
use crate::model::text;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptKind {
    Goto,
    Search,
    /// What the tree shows (`F`).
    Filter,
    /// Where to write the selected node's bytes.
    SaveAs,
    /// The file exists: answer y to overwrite it.
    Overwrite(String),
    /// A `.ksy` description to read the selected node with (`K`).
    Describe,
}

impl PromptKind {
    /// Which history the prompt keeps.
    pub fn key(&self) -> &'static str {
        match self {
            PromptKind::Goto => "goto",
            PromptKind::Search => "search",
            PromptKind::Filter => "filter",
            PromptKind::SaveAs => "save",
            PromptKind::Overwrite(_) => "overwrite",
            PromptKind::Describe => "describe",
        }
    }

    fn title(&self, case_sensitive: bool) -> String {
        match self {
            PromptKind::Goto => {
                " Go to: 0x offset, K:0x… in space K, v:address, a name or path (Tab completes) "
                    .into()
            }
            PromptKind::Search => format!(
                " Search: text, x:hex ?? bytes, n:node names [{}, Ctrl-t toggles] ",
                if case_sensitive {
                    "case-sensitive"
                } else {
                    "any case"
                }
            ),
            PromptKind::Filter => {
                " Filter the tree: text in names or values, !error, !warning, !info ".into()
            }
            PromptKind::SaveAs => " Write the node's bytes to file: ".into(),
            PromptKind::Overwrite(p) => format!(" {p} exists. Overwrite it? y/n "),
            PromptKind::Describe => {
                " Read the node with a .ksy: a path, or a name in the formats folder ".into()
            }
        }
    }
}

/// A one-line prompt: the line as `tui-input` edits it, and what was
/// entered in this kind of prompt before (Up / Down walk it).
#[derive(Clone, Debug)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: tui_input::Input,
    /// Earlier entries, oldest first.
    pub history: Vec<String>,
    /// Which entry Up / Down show (None: the line being typed).
    pub at: Option<usize>,
    /// The line being typed, kept while history is shown.
    draft: String,
}

impl PartialEq for Prompt {
    fn eq(&self, o: &Prompt) -> bool {
        self.kind == o.kind
            && self.value() == o.value()
            && self.input.cursor() == o.input.cursor()
            && self.history == o.history
            && self.at == o.at
    }
}
impl Eq for Prompt {}

impl Prompt {
    pub fn new(kind: PromptKind) -> Prompt {
        Prompt {
            kind,
            input: tui_input::Input::default(),
            history: Vec::new(),
            at: None,
            draft: String::new(),
        }
    }
    pub fn with_history(mut self, history: Vec<String>) -> Prompt {
        self.history = history;
        self
    }
    /// Starts with `text` on the line, the cursor at its end.
    pub fn with_text(mut self, text: &str) -> Prompt {
        self.input = tui_input::Input::new(text.to_string());
        self
    }
    pub fn value(&self) -> &str {
        self.input.value()
    }
    /// Up (`back`) or Down through the history.
    fn recall(&mut self, back: bool) {
        let n = self.history.len();
        let next = match (self.at, back) {
            (None, true) if n > 0 => Some(n - 1),
            (None, _) => return,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if i + 1 < n => Some(i + 1),
            (Some(_), false) => None,
        };
        if self.at.is_none() {
            self.draft = self.value().to_string();
        }
        self.at = next;
        let text = match next {
            Some(i) => self.history.get(i).cloned().unwrap_or_default(),
            None => std::mem::take(&mut self.draft),
        };
        self.input = tui_input::Input::new(text);
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Popup {
    Help {
        scroll: u16,
    },
    Prompt(Prompt),
    /// The marks, one a row; Enter jumps.
    Marks {
        selected: usize,
    },
    /// Every diagnostic, one a row; Enter jumps.
    Diagnostics {
        selected: usize,
    },
    /// What `y` copies: a letter picks.
    Copy,
    /// The strings of the file (`s`).
    Strings {
        selected: usize,
    },
    /// The blocks of the file (`o`).
    Overview {
        selected: usize,
    },
    /// The selected node in full, as (label, text) rows.
    Node {
        rows: Vec<(&'static str, String)>,
        scroll: u16,
    },
}

/// What a popup asks the app to do; every effect but
/// [`Effect::ToggleCase`] and [`Effect::Complete`] closes the popup first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Copy what the letter names.
    Copy(char),
    /// Jump to the i-th mark, in letter order.
    JumpMark(usize),
    /// Jump to the i-th diagnostic.
    JumpDiagnostic(usize),
    /// Jump to the i-th string.
    JumpString(usize),
    /// Jump to the i-th block of the overview.
    JumpBlock(usize),
    /// Write the selected node's bytes over this file.
    Overwrite(String),
    NotWritten,
    /// A prompt's input was entered.
    Submit(Prompt),
    /// Ctrl-t in the search prompt.
    ToggleCase,
    /// Tab in the goto prompt: complete the name or path typed.
    Complete(Prompt),
}

/// The answer of a popup to a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Stay,
    Close,
    Do(Effect),
}

impl Popup {
    /// Takes a key; `list_len` is how many rows a list popup has.
    pub fn handle_key(&mut self, cmd: Command, list_len: usize) -> Outcome {
        match self {
            // Text to read: scrolls, and closes on the key that opened it.
            Popup::Help { scroll } | Popup::Node { scroll, .. } => {
                match cmd {
                    Command::Escape
                    | Command::Quit
                    | Command::OpenHelp
                    | Command::ShowNode
                    | Command::Submit => return Outcome::Close,
                    Command::Up => *scroll = scroll.saturating_sub(1),
                    Command::Down => *scroll = scroll.saturating_add(1),
                    Command::PageUp => *scroll = scroll.saturating_sub(10),
                    Command::PageDown => *scroll = scroll.saturating_add(10),
                    Command::Home => *scroll = 0,
                    _ => {}
                }
                Outcome::Stay
            }
            Popup::Copy => match cmd {
                Command::Input(c) => Outcome::Do(Effect::Copy(c)),
                _ => Outcome::Close,
            },
            Popup::Marks { selected }
            | Popup::Diagnostics { selected }
            | Popup::Strings { selected }
            | Popup::Overview { selected } => {
                let last = list_len.saturating_sub(1);
                match cmd {
                    Command::Escape | Command::Quit => return Outcome::Close,
                    Command::Up => *selected = selected.saturating_sub(1),
                    Command::Down => *selected = (*selected + 1).min(last),
                    Command::PageUp => *selected = selected.saturating_sub(10),
                    Command::PageDown => *selected = (*selected + 10).min(last),
                    Command::Home => *selected = 0,
                    Command::End => *selected = last,
                    Command::Activate | Command::Submit => {
                        let i = *selected;
                        if i >= list_len {
                            return Outcome::Stay;
                        }
                        return Outcome::Do(match self {
                            Popup::Marks { .. } => Effect::JumpMark(i),
                            Popup::Strings { .. } => Effect::JumpString(i),
                            Popup::Overview { .. } => Effect::JumpBlock(i),
                            _ => Effect::JumpDiagnostic(i),
                        });
                    }
                    _ => {}
                }
                Outcome::Stay
            }
            Popup::Prompt(p) => {
                if let PromptKind::Overwrite(path) = &p.kind {
                    return Outcome::Do(match cmd {
                        Command::Input('y' | 'Y') => Effect::Overwrite(path.clone()),
                        _ => Effect::NotWritten,
                    });
                }
                use tui_input::InputRequest as R;
                match cmd {
                    Command::Escape => return Outcome::Close,
                    Command::Input(c) => {
                        p.input.handle(R::InsertChar(c));
                    }
                    Command::Backspace => {
                        p.input.handle(R::DeletePrevChar);
                    }
                    Command::Edit(r) => {
                        p.input.handle(r);
                    }
                    Command::Up => p.recall(true),
                    Command::Down => p.recall(false),
                    Command::ToggleCase => return Outcome::Do(Effect::ToggleCase),
                    Command::Complete if p.kind == PromptKind::Goto => {
                        return Outcome::Do(Effect::Complete(p.clone()))
                    }
                    Command::Submit => return Outcome::Do(Effect::Submit(p.clone())),
                    _ => {}
                }
                Outcome::Stay
            }
        }
    }
}

/// Columns of the help's key column; longer keys take a line of their own.
const KEY_W: usize = 18;

/// Cuts `text` into lines of at most `width` columns at spaces; a word
/// longer than a line is split.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let need = if line.is_empty() { 0 } else { line.width() + 1 };
        if need + word.width() <= width {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for c in word.chars() {
            if line.width() + c.width().unwrap_or(0) > width {
                lines.push(std::mem::take(&mut line));
            }
            line.push(c);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The help: every key of [`KEYS`] and what it does, wrapped to `width`.
pub fn help_lines(width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let desc_w = width.saturating_sub(KEY_W + 2).max(10);
    for (k, d) in KEYS {
        let k = plain(k);
        let mut desc = wrap(&plain(d), desc_w).into_iter();
        if k.width() > KEY_W {
            out.push(Line::from(Span::styled(format!(" {k}"), theme::key())));
        } else {
            let first = desc.next().unwrap_or_default();
            out.push(Line::from(vec![
                Span::styled(format!(" {k:KEY_W$} "), theme::key()),
                Span::raw(first),
            ]));
        }
        for rest in desc {
            out.push(Line::from(format!(" {:KEY_W$} {rest}", "")));
        }
    }
    out
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [c] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    c
}

fn block(title: String) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border(true))
        .title(title)
}

/// Draws a list popup of `rows` with one selected.
pub fn render_list(
    frame: &mut Frame<'_>,
    title: String,
    rows: Vec<Line<'static>>,
    selected: usize,
) {
    render_items(
        frame,
        title,
        rows.into_iter().map(Text::from).collect(),
        selected,
    );
}

/// Draws a list popup of `total` one-line rows, of which only those on
/// screen are made (`row(i, width)`), a page at a time around `selected`.
pub fn render_window(
    frame: &mut Frame<'_>,
    title: String,
    total: usize,
    selected: usize,
    row: &dyn Fn(usize, usize) -> Line<'static>,
) {
    let area = frame.area();
    let w = area.width.saturating_sub(4).clamp(30.min(area.width), 110);
    let h = (total.max(1) as u16).min(area.height.saturating_sub(4).max(1)) + 2;
    let r = centered(area, w, h);
    frame.render_widget(Clear, r);
    if total == 0 {
        frame.render_widget(Paragraph::new(" (none)").block(block(title)), r);
        return;
    }
    let page = usize::from(r.height.saturating_sub(2)).max(1);
    let top = selected - selected % page;
    let inner_w = usize::from(r.width.saturating_sub(2));
    let items: Vec<ListItem<'_>> = (top..total.min(top + page))
        .map(|i| ListItem::new(row(i, inner_w)))
        .collect();
    let mut st = ListState::default().with_selected(Some(selected - top));
    frame.render_stateful_widget(
        List::new(items)
            .block(block(title))
            .highlight_style(theme::tree_selected(true)),
        r,
        &mut st,
    );
}

/// Draws a list popup whose rows may take several lines each.
pub fn render_items(
    frame: &mut Frame<'_>,
    title: String,
    rows: Vec<Text<'static>>,
    selected: usize,
) {
    let area = frame.area();
    let w = rows
        .iter()
        .map(|r| r.width())
        .max()
        .unwrap_or(20)
        .max(title.width()) as u16
        + 4;
    let h = rows.iter().map(|r| r.height()).sum::<usize>().max(1) as u16 + 2;
    let r = centered(area, w.max(30), h);
    frame.render_widget(Clear, r);
    if rows.is_empty() {
        frame.render_widget(Paragraph::new(" (none)").block(block(title)), r);
        return;
    }
    let items: Vec<ListItem<'_>> = rows.into_iter().map(ListItem::new).collect();
    let mut st = ListState::default().with_selected(Some(selected));
    frame.render_stateful_widget(
        List::new(items)
            .block(block(title))
            .highlight_style(theme::tree_selected(true)),
        r,
        &mut st,
    );
}

/// Lines to read in a box `width` wide, as tall as they need (at most the
/// screen), scrolled down `scroll` lines.
fn render_text(frame: &mut Frame<'_>, width: u16, lines: Vec<Line<'_>>, scroll: u16, title: &str) {
    let r = centered(frame.area(), width, lines.len() as u16 + 2);
    let max_scroll = (lines.len() as u16).saturating_sub(r.height.saturating_sub(2));
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((scroll.min(max_scroll), 0))
            .block(block(title.into())),
        r,
    );
}

/// Draws the popups that need nothing but themselves.
pub fn render(popup: &Popup, case_sensitive: bool, frame: &mut Frame<'_>) {
    let area = frame.area();
    match popup {
        Popup::Help { scroll } => {
            let r = centered(area, 100, area.height);
            let lines = help_lines(r.width.saturating_sub(2) as usize);
            render_text(
                frame,
                r.width,
                lines,
                *scroll,
                " Keys (Esc closes, ↑ ↓ scroll) ",
            );
        }
        Popup::Prompt(p) => {
            let title = p.kind.title(case_sensitive);
            let r = centered(area, (title.width() as u16 + 4).max(60), 3);
            frame.render_widget(Clear, r);
            let inner = r.width.saturating_sub(2) as usize;
            let line = if matches!(p.kind, PromptKind::Overwrite(_)) {
                Line::from(Span::styled(" ", theme::cursor()))
            } else if p.value().is_empty() {
                // The last entry is offered: Enter takes it, Up edits it.
                let mut spans = vec![Span::styled(" ", theme::cursor())];
                if let Some(last) = p.history.last() {
                    spans.push(Span::styled(
                        columns::truncate(
                            &format!("{} (Enter repeats, ↑ edits)", text::clean(last)),
                            inner.saturating_sub(1),
                        ),
                        theme::dim(),
                    ));
                }
                Line::from(spans)
            } else {
                // The line scrolls sideways to keep the cursor in view.
                let scroll = p.input.visual_scroll(inner.saturating_sub(1));
                let shown: String = text::clean(p.value()).chars().skip(scroll).collect();
                let at = p.input.visual_cursor().saturating_sub(scroll);
                let mut before = String::new();
                let mut under = String::from(" ");
                let mut after = String::new();
                let mut col = 0;
                for c in shown.chars() {
                    let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                    if col < at {
                        before.push(c);
                    } else if col == at && under == " " {
                        under = c.to_string();
                    } else {
                        after.push(c);
                    }
                    col += w;
                }
                Line::from(vec![
                    Span::raw(before),
                    Span::styled(under, theme::cursor()),
                    Span::raw(after),
                ])
            };
            frame.render_widget(Paragraph::new(line).block(block(title)), r);
        }
        Popup::Copy => {
            let rows = [
                ("o", "the cursor offset"),
                ("v", "the selected node's value"),
                ("b", "the selected node's bytes, as hex"),
                ("p", "the selected node's path"),
            ]
            .iter()
            .map(|(k, d)| {
                Line::from(vec![
                    Span::styled(format!(" {k} "), theme::key()),
                    Span::raw(*d),
                ])
            })
            .collect();
            render_list(frame, " Copy (Esc cancels) ".into(), rows, usize::MAX);
        }
        Popup::Node { rows, scroll } => {
            let r = centered(area, 100, area.height);
            let label_w = rows.iter().map(|(l, _)| l.width()).max().unwrap_or(0);
            let text_w = (r.width as usize).saturating_sub(label_w + 4).max(10);
            let mut lines = Vec::new();
            for (label, text) in rows {
                for (k, part) in wrap(text, text_w).into_iter().enumerate() {
                    let l = if k == 0 { *label } else { "" };
                    lines.push(Line::from(vec![
                        Span::styled(format!(" {l:<label_w$} "), theme::key()),
                        Span::raw(part),
                    ]));
                }
            }
            render_text(
                frame,
                r.width,
                lines,
                *scroll,
                " Node (Esc closes, ↑ ↓ scroll) ",
            );
        }
        Popup::Marks { .. }
        | Popup::Diagnostics { .. }
        | Popup::Strings { .. }
        | Popup::Overview { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_breaks_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 3), [""]);
        for l in wrap(&plain(KEYS[0].1), 20) {
            assert!(l.width() <= 20);
        }
    }

    #[test]
    fn popups_take_their_own_keys() {
        let mut m = Popup::Marks { selected: 0 };
        assert_eq!(m.handle_key(Command::Down, 3), Outcome::Stay);
        assert_eq!(m.handle_key(Command::End, 3), Outcome::Stay);
        assert_eq!(m, Popup::Marks { selected: 2 });
        assert_eq!(
            m.handle_key(Command::Submit, 3),
            Outcome::Do(Effect::JumpMark(2))
        );
        let mut p = Popup::Prompt(Prompt::new(PromptKind::Goto));
        for c in "0x10".chars() {
            assert_eq!(p.handle_key(Command::Input(c), 0), Outcome::Stay);
        }
        p.handle_key(Command::Backspace, 0);
        let Outcome::Do(Effect::Submit(got)) = p.handle_key(Command::Submit, 0) else {
            panic!("Enter submits");
        };
        assert_eq!(got.value(), "0x1");
        let mut o = Popup::Prompt(Prompt::new(PromptKind::Overwrite("f".into())));
        assert_eq!(
            o.handle_key(Command::Input('n'), 0),
            Outcome::Do(Effect::NotWritten)
        );
        assert_eq!(
            Popup::Copy.handle_key(Command::Input('b'), 0),
            Outcome::Do(Effect::Copy('b'))
        );
        assert_eq!(
            Popup::Help { scroll: 0 }.handle_key(Command::Escape, 0),
            Outcome::Close
        );
    }
}
