//! The details line for the selected node and the status bar.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::app::App;
use super::command::Pending;
use super::matches::Progress;
use super::theme;
use crate::model::Severity;

/// `n byte` or `n bytes`.
pub fn bytes(n: u64) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

/// `1 match`, `2 matches`: `n` and the word, plural when `n` is not 1.
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The last `width` columns of `s`, with `…` in front when cut.
pub fn tail(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::from("…");
    out.extend(s.chars().skip(n - (width - 1)));
    out
}

/// The selected node: its name and value first (an instruction's source
/// line after its text), then its size, range and link, then its path,
/// shortened from the left to what is left of the line.
pub fn render_details(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if app.inspector && !app.view.inspector_shown {
        let (w, h) = super::inspector::Shape::Narrow.size();
        let line = Line::from(Span::styled(
            format!("inspector needs {w}x{h} (i hides it)"),
            theme::key(),
        ));
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let Some(n) = app.doc.tree.node(app.selected) else {
        return;
    };
    let path = app.doc.tree.path_string(app.selected);
    let name = if path.is_empty() {
        "/".to_string()
    } else {
        crate::model::text::clean(app.doc.tree.name(app.selected)).into_owned()
    };
    let mut spans = vec![Span::styled(name, theme::name())];
    if let Some(v) = &n.value {
        spans.push(Span::styled(
            format!("  {}", v.shown(app.numbers)),
            theme::value(),
        ));
        // An instruction's source line, which its row has no room for in
        // a narrow tree pane.
        if let Some(src) = v.source_line() {
            let src = crate::model::text::clean(&src.to_string()).into_owned();
            spans.push(Span::styled(format!("  {src}"), theme::name()));
        }
    }
    spans.push(Span::styled(format!("  {}", bytes(n.size)), theme::dim()));
    spans.push(Span::styled(
        format!("  [0x{:x}..0x{:x})", n.offset, n.end()),
        theme::dim(),
    ));
    if let Some(l) = app.doc.tree.link(app.selected) {
        spans.push(Span::styled(
            format!("  → {} (Enter follows)", l.start_text()),
            theme::key(),
        ));
    }
    let parent = n
        .parent
        .map(|p| app.doc.tree.path_string(p))
        .unwrap_or_default();
    let width = usize::from(area.width);
    let mut spans = fit(spans, width, if n.value.is_some() { 2 } else { 1 });
    if !path.is_empty() {
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let room = usize::from(area.width).saturating_sub(used + 5);
        if room >= 8 {
            spans.push(Span::styled(
                format!("  in /{}", tail(&crate::model::text::clean(&parent), room)),
                theme::dim(),
            ));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The status bar: a message first, so that it shows however narrow the
/// terminal, then the file's name, format and cursor, what runs, the
/// counts of diagnostics and, without a message, the main keys.
/// The spans that fit in `width` columns, none cut in the middle but the
/// first `cuttable` (the name and the value), which end in `…` (`d` shows
/// them in full).
fn fit(spans: Vec<Span<'_>>, width: usize, cuttable: usize) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut used = 0;
    for (i, s) in spans.into_iter().enumerate() {
        let w = s.width();
        if used + w <= width {
            used += w;
            out.push(s);
            continue;
        }
        if i < cuttable && width > used + 1 {
            let cut = super::columns::truncate(&s.content, width - used);
            out.push(Span::styled(cut, s.style));
        }
        break;
    }
    out
}

pub fn render_status(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let name = crate::model::text::clean(&app.doc.name()).into_owned();
    let mut spans = match &app.message {
        Some((m, true)) => vec![
            Span::styled(format!(" {m} "), theme::error()),
            Span::raw(" "),
        ],
        Some((m, false)) => vec![Span::styled(format!(" {m} "), theme::key()), Span::raw(" ")],
        None => Vec::new(),
    };
    if let Some((s, e)) = app.visual_range() {
        spans.insert(
            0,
            Span::styled(
                format!(" range 0x{s:x}..0x{e:x} ({}) ", bytes(e - s)),
                theme::key(),
            ),
        );
    }
    if let Some(p) = &app.pending {
        let hint = match p {
            Pending::SetMark => " m: press a letter to set a mark (Esc cancels) ",
            Pending::JumpMark => " ': press a mark's letter (Esc cancels) ",
        };
        spans.insert(0, Span::styled(hint, theme::key()));
    }
    // With two files: what the diff found.
    if let Some(c) = &app.compare {
        let said = match &c.changes {
            Some(ch) if ch.counts.is_empty() => "no difference".to_string(),
            Some(ch) => format!(
                "~{} changed  +{} added  -{} removed",
                ch.counts.changed, ch.counts.added, ch.counts.removed
            ),
            None => "comparing…".to_string(),
        };
        spans.push(Span::styled(format!(" {said} "), theme::key()));
    }
    spans.extend([
        Span::raw(" "),
        Span::styled(name, theme::name()),
        Span::raw(format!("  {}  ", app.doc.tree.format_name())),
        Span::styled(format!("0x{:x}", app.cursor), theme::key()),
        Span::raw(format!(" / 0x{:x}", app.space_len())),
    ]);
    if app.space() != crate::model::space::FILE {
        spans.push(Span::styled(
            format!(" in space {}", app.space()),
            theme::key(),
        ));
    }
    if app.numbers != crate::model::Numbers::Natural {
        spans.push(Span::styled(
            format!("  #{}", app.numbers.as_str()),
            theme::key(),
        ));
    }
    if let Some(st) = &app.search {
        if let Some(r) = &st.running {
            let done = match r.progress {
                Progress::Bytes { done, total } => {
                    format!("{}%", done.saturating_mul(100) / total.max(1))
                }
                Progress::Nodes(n) => format!("{n} nodes"),
            };
            spans.push(Span::styled(
                format!("  searching… {done} (Esc cancels)"),
                theme::key(),
            ));
        } else {
            let n = st.count();
            let more = if st.complete { "" } else { "+" };
            // Once the cursor moves on, no count: the message said it.
            if let Some(i) = st.current.filter(|_| st.shown) {
                spans.push(Span::styled(
                    format!("  match {} of {n}{more}", i + 1),
                    theme::key(),
                ));
            }
        }
    }
    if let Some(w) = &app.writing {
        spans.push(Span::styled(
            format!(
                "  writing {}… {}% (Esc cancels)",
                crate::model::text::clean(&w.path),
                w.done.saturating_mul(100) / w.total.max(1)
            ),
            theme::key(),
        ));
    }
    if app.gone {
        spans.push(Span::styled(
            "  file deleted: showing the copy open",
            theme::error(),
        ));
    }
    #[cfg(unix)]
    if crate::guard::file_changed() {
        spans.push(Span::styled(
            "  the file shrank while open: bytes past its end read as zero",
            theme::error(),
        ));
    }
    let (e, w, i) = (
        app.count(Severity::Error),
        app.count(Severity::Warning),
        app.count(Severity::Info),
    );
    if e > 0 {
        spans.push(Span::styled(
            format!("  {e} error{}", if e == 1 { "" } else { "s" }),
            theme::error(),
        ));
    }
    if w > 0 {
        spans.push(Span::styled(
            format!("  {w} warning{}", if w == 1 { "" } else { "s" }),
            theme::warning(),
        ));
    }
    if i > 0 {
        spans.push(Span::styled(format!("  {i} info"), theme::dim()));
    }
    if app.message.is_none() {
        spans.push(Span::styled(
            if app.compare.is_some() {
                "  ?:help q:quit c:next change Ctrl-w:other file"
            } else {
                "  ?:help q:quit g:goto Tab:pane"
            },
            theme::dim(),
        ));
    }
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(theme::status()),
        area,
    );
}
