//! The data inspector: the bytes at the cursor read as every common type.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::app::App;
use super::theme;
use crate::model::text;

/// Columns a value takes at most: an i64, a time, a float.
const VALUE_W: usize = 24;
/// Columns of a label.
const LABEL_W: usize = 7;
/// One cell: `label first  BE: second`.
const CELL_W: usize = LABEL_W + VALUE_W + 2 + 4 + VALUE_W;

/// How the inspector lays out its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Two cells a row.
    Wide,
    /// One cell a row.
    Narrow,
}

impl Shape {
    /// Columns and rows, borders included.
    pub fn size(self) -> (u16, u16) {
        let rows = ROWS as u16;
        match self {
            Shape::Wide => ((2 * CELL_W + 1 + 2) as u16, 1 + rows.div_ceil(2) + 2),
            Shape::Narrow => ((CELL_W + 2) as u16, 1 + rows + 2),
        }
    }
    /// The shape that fits in `w` x `h`, the wide one first.
    pub fn fitting(w: u16, h: u16) -> Option<Shape> {
        [Shape::Wide, Shape::Narrow].into_iter().find(|s| {
            let (sw, sh) = s.size();
            sw <= w && sh <= h
        })
    }
}

/// How many values [`values`] gives.
const ROWS: usize = 12;

/// A float as people write it (`2.0257797`, `0`, `-1.5`), in scientific
/// notation only when that would be long.
fn float<T: std::fmt::Display + std::fmt::LowerExp>(x: T) -> String {
    let plain = x.to_string();
    if plain.len() <= 20 {
        return plain;
    }
    format!("{x:e}")
}

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
            float(f32::from_le_bytes(a)),
            float(f32::from_be_bytes(a)),
        ),
        None => ("f32", na(), na()),
    });
    out.push(match arr::<8>(b) {
        Some(a) => (
            "f64",
            float(f64::from_le_bytes(a)),
            float(f64::from_be_bytes(a)),
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
            format!("'{}' U+{c:04X}", text::clean(s))
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
    let per_row = if Shape::fitting(area.width, area.height) == Some(Shape::Wide) {
        2
    } else {
        1
    };
    let w = CELL_W + 1;
    for i in 0..rows.len().div_ceil(per_row) {
        let mut spans = Vec::new();
        for (label, le, be) in rows.iter().skip(i * per_row).take(per_row) {
            let (a, z) = if app.inspector_big_first {
                (be, le)
            } else {
                (le, be)
            };
            let cell = format!("{label:LABEL_W$}{a:VALUE_W$}  {second}: {z}");
            spans.push(Span::raw(format!("{cell:w$}")));
        }
        lines.push(Line::from(spans));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border(false))
        .title(format!(" Inspector ({first} first, e swaps) "));
    frame.render_widget(Clear, area);
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
        assert_eq!(f.iter().find(|r| r.0 == "f32").unwrap().1, "1");
        let get = |b: &[u8], l: &str| values(b).into_iter().find(|r| r.0 == l).unwrap().1;
        assert_eq!(get(&2.0257797f32.to_le_bytes(), "f32"), "2.0257797");
        assert_eq!(get(&[0; 8], "f32"), "0");
        assert_eq!(get(&[0; 8], "f64"), "0");
        assert_eq!(get(&(-0.125f64).to_le_bytes(), "f64"), "-0.125");
        assert_eq!(get(&1e300f64.to_le_bytes(), "f64"), "1e300");
        assert_eq!(get(&f64::NAN.to_le_bytes(), "f64"), "NaN");
        assert_eq!(values(&[0; 8]).len(), ROWS);
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
