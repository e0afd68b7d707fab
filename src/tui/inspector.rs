//! The data inspector: the bytes at the cursor read as every common type.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::app::App;
use super::theme;
use crate::model::text;

/// Rows the inspector needs, borders included.
pub const HEIGHT: u16 = 12;

/// `(label, little-endian value, big-endian value)` for the bytes at the
/// start of `b`; types the bytes are too short for say so.
pub fn values(b: &[u8]) -> Vec<(&'static str, String, String)> {
    fn arr<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
        b.get(..N)?.try_into().ok()
    }
    let na = || "(past the end)".to_string();
    let mut out = Vec::new();
    macro_rules! int {
        ($label:expr, $t:ty, $n:expr) => {
            out.push(match arr::<$n>(b) {
                Some(a) => (
                    $label,
                    <$t>::from_le_bytes(a).to_string(),
                    <$t>::from_be_bytes(a).to_string(),
                ),
                None => ($label, na(), na()),
            });
        };
    }
    int!("u8", u8, 1);
    int!("i8", i8, 1);
    int!("u16", u16, 2);
    int!("i16", i16, 2);
    int!("u32", u32, 4);
    int!("i32", i32, 4);
    int!("u64", u64, 8);
    int!("i64", i64, 8);
    out.push(match arr::<4>(b) {
        Some(a) => (
            "f32",
            format!("{:e}", f32::from_le_bytes(a)),
            format!("{:e}", f32::from_be_bytes(a)),
        ),
        None => ("f32", na(), na()),
    });
    out.push(match arr::<8>(b) {
        Some(a) => (
            "f64",
            format!("{:e}", f64::from_le_bytes(a)),
            format!("{:e}", f64::from_be_bytes(a)),
        ),
        None => ("f64", na(), na()),
    });
    let time = |s: i64| text::utc(s).unwrap_or_else(|| "(out of range)".into());
    out.push(match arr::<4>(b) {
        Some(a) => (
            "time32",
            time(i64::from(u32::from_le_bytes(a))),
            time(i64::from(u32::from_be_bytes(a))),
        ),
        None => ("time32", na(), na()),
    });
    out.push(match arr::<8>(b) {
        Some(a) => (
            "time64",
            time(i64::from_le_bytes(a)),
            time(i64::from_be_bytes(a)),
        ),
        None => ("time64", na(), na()),
    });
    out
}

/// The character at the start of `b`: a UTF-8 sequence if one starts
/// there, else the byte, escaped if it is not printable.
pub fn character(b: &[u8]) -> String {
    let Some(&first) = b.first() else {
        return "(past the end)".into();
    };
    let n = match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    match b.get(..n).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => {
            let c = s.chars().next().map_or(0, u32::from);
            format!("'{}' U+{c:04X}", text::from_bytes(s.as_bytes()))
        }
        None => format!("'\\x{first:02x}' (not UTF-8)"),
    }
}

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let start = app.cursor as usize;
    let b = app.space_data().get(start..).unwrap_or_default();
    let b = b.get(..8).unwrap_or(b);
    let (first, second) = if app.inspector_big_first {
        ("BE", "LE")
    } else {
        ("LE", "BE")
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:7}", "at"), theme::dim()),
        Span::styled(format!("0x{:x}", app.cursor), theme::key()),
        Span::styled(format!("   char {}", character(b)), theme::value()),
    ])];
    let rows = values(b);
    let half = rows.len().div_ceil(2);
    let w = area.width.saturating_sub(2) as usize / 2;
    for i in 0..half {
        let mut spans = Vec::new();
        for (label, le, be) in rows.iter().skip(i * 2).take(2) {
            let (a, z) = if app.inspector_big_first {
                (be, le)
            } else {
                (le, be)
            };
            let cell = format!("{label:7}{a}  {second}: {z}");
            spans.push(Span::raw(format!(
                "{:w$}",
                super::treeview::truncate(&cell, w.saturating_sub(1))
            )));
        }
        lines.push(Line::from(spans));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border(false))
        .title(format!(" Inspector ({first} first, e swaps) "));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_both_orders() {
        let v = values(&[0x01, 0x02, 0x03, 0x04, 0, 0, 0x80, 0x3f]);
        let get = |l: &str| v.iter().find(|r| r.0 == l).cloned().unwrap();
        assert_eq!(get("u16").1, "513");
        assert_eq!(get("u16").2, "258");
        assert_eq!(get("u32").1, "67305985");
        assert_eq!(get("u32").2, "16909060");
        assert_eq!(get("i8").1, "1");
        assert_eq!(get("u64").1, "4575657221475729921"); // 0x3f80000004030201
        let f = values(&[0, 0, 0x80, 0x3f]);
        assert_eq!(f.iter().find(|r| r.0 == "f32").unwrap().1, "1e0");
        let t = values(&1_700_000_000u32.to_le_bytes());
        assert_eq!(
            t.iter().find(|r| r.0 == "time32").unwrap().1,
            "2023-11-14 22:13:20 UTC"
        );
        let short = values(&[0xff]);
        assert_eq!(short.iter().find(|r| r.0 == "i8").unwrap().1, "-1");
        assert_eq!(
            short.iter().find(|r| r.0 == "u16").unwrap().1,
            "(past the end)"
        );
    }

    #[test]
    fn characters_are_decoded_or_escaped() {
        assert_eq!(character(b"A"), "'A' U+0041");
        assert_eq!(character("é".as_bytes()), "'é' U+00E9");
        assert_eq!(character(b"\x1b"), "'\\x1b' U+001B");
        assert_eq!(character(b"\xff"), "'\\xff' (not UTF-8)");
        assert_eq!(character(b""), "(past the end)");
    }
}
