//! Colours in one place: byte classes as hexyl shows them, and the shades
//! that mark the selected node and its ancestors.

use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

/// What kind of byte a value is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteClass {
    Null,
    Printable,
    Whitespace,
    OtherAscii,
    NonAscii,
}

pub fn class(b: u8) -> ByteClass {
    match b {
        0 => ByteClass::Null,
        b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => ByteClass::Whitespace,
        0x21..=0x7e => ByteClass::Printable,
        0x01..=0x7f => ByteClass::OtherAscii,
        _ => ByteClass::NonAscii,
    }
}

/// hexyl's scheme in shades of the 256-colour palette dark enough for a
/// light terminal and light enough for a dark one: null grey, printable
/// teal, whitespace and other ASCII green, non-ASCII dark yellow.
pub fn byte_fg(c: ByteClass) -> Color {
    match c {
        ByteClass::Null => GREY,
        ByteClass::Printable => Color::Indexed(30),
        ByteClass::Whitespace => Color::Indexed(28),
        ByteClass::OtherAscii => Color::Indexed(28),
        ByteClass::NonAscii => Color::Indexed(136),
    }
}

const GREY: Color = Color::Indexed(244);

static COLOR: AtomicBool = AtomicBool::new(true);

/// Whether to use colours: `always`, `never`, or `auto` (unless `NO_COLOR`
/// is set and not empty, see no-color.org).
pub fn choose_color(flag: &str) -> bool {
    match flag {
        "always" => true,
        "never" => false,
        _ => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Turns colours on or off for everything drawn from now on.
pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
    // crossterm reads NO_COLOR itself: the choice made here overrides it.
    crossterm::style::force_color_output(on);
}

pub fn color() -> bool {
    COLOR.load(Ordering::Relaxed)
}

/// Without colours: takes every colour out of what was drawn, leaving the
/// attributes (bold, reversed, underlined) that the styles add then.
pub fn strip(buf: &mut Buffer) {
    if color() {
        return;
    }
    for c in buf.content.iter_mut() {
        c.fg = Color::Reset;
        c.bg = Color::Reset;
    }
}

/// The style a shade gives bytes: its background, or without colours an
/// attribute (the selected node underlined, matches bold and italic,
/// bytes with a diagnostic italic).
pub fn shade(bg: Color) -> Style {
    if color() {
        return Style::new().bg(bg);
    }
    match bg {
        SELECTED_BG => Style::new().add_modifier(Modifier::UNDERLINED),
        MATCH_BG => Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
        DIAG_BG => Style::new().add_modifier(Modifier::ITALIC),
        VISUAL_BG => Style::new().add_modifier(Modifier::REVERSED),
        _ => Style::new(),
    }
}

/// The character shown for a byte in the text column.
pub fn byte_char(b: u8) -> char {
    match class(b) {
        ByteClass::Null => '⋄',
        ByteClass::Printable => b as char,
        ByteClass::Whitespace if b == b' ' => ' ',
        ByteClass::Whitespace => '_',
        ByteClass::OtherAscii => '•',
        ByteClass::NonAscii => '×',
    }
}

/// Background of the selected node's bytes.
pub const SELECTED_BG: Color = Color::Indexed(24);
/// Backgrounds of its ancestors' bytes, nearest first.
pub const ANCESTOR_BG: [Color; 3] = [
    Color::Indexed(237),
    Color::Indexed(236),
    Color::Indexed(235),
];
/// Background of search matches.
pub const MATCH_BG: Color = Color::Indexed(94);
/// Background of a range being chosen (`v`).
pub const VISUAL_BG: Color = Color::Indexed(30);
/// Background of bytes with a diagnostic.
pub const DIAG_BG: Color = Color::Indexed(52);

pub fn cursor() -> Style {
    Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
}
/// With two files, a byte of the selected node that differs from the
/// other file's: reversed (it reads without colour) and underlined (not
/// the cursor), in its class's colour.
pub fn differs() -> Style {
    Style::new().add_modifier(Modifier::REVERSED | Modifier::UNDERLINED)
}
pub fn border(focused: bool) -> Style {
    if focused {
        Style::new().fg(KEY).add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(GREY)
    }
}
/// The selected row: white on blue, or reversed without colours.
pub fn tree_selected(focused: bool) -> Style {
    if !color() {
        return Style::new().add_modifier(if focused {
            Modifier::REVERSED | Modifier::BOLD
        } else {
            Modifier::UNDERLINED
        });
    }
    if focused {
        Style::new()
            .bg(SELECTED_BG)
            .fg(Color::Indexed(231))
            .add_modifier(Modifier::BOLD)
    } else {
        Style::new().bg(Color::Indexed(250)).fg(Color::Indexed(16))
    }
}
pub fn dim() -> Style {
    Style::new().fg(GREY)
}
/// Names: the terminal's own colour, readable on any background.
pub fn name() -> Style {
    Style::new()
}
pub fn value() -> Style {
    Style::new().fg(VALUE)
}
/// Light text on dark grey, whatever the terminal's colours.
pub fn status() -> Style {
    Style::new().bg(Color::Indexed(236)).fg(Color::Indexed(255))
}
pub fn error() -> Style {
    Style::new().fg(ERROR).add_modifier(Modifier::BOLD)
}
pub fn warning() -> Style {
    Style::new().fg(WARNING)
}
pub fn key() -> Style {
    Style::new().fg(KEY).add_modifier(Modifier::BOLD)
}

const KEY: Color = Color::Indexed(31);
const VALUE: Color = Color::Indexed(130);
const ERROR: Color = Color::Indexed(160);
const WARNING: Color = Color::Indexed(136);

/// Every colour drawn as text on the terminal's own background.
pub const ON_DEFAULT_BG: &[Color] = &[
    GREY,
    KEY,
    VALUE,
    ERROR,
    WARNING,
    Color::Indexed(30),
    Color::Indexed(28),
    Color::Indexed(136),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The RGB of a colour of the 256-colour palette's cube or grey ramp.
    fn rgb(c: Color) -> (u8, u8, u8) {
        let Color::Indexed(i) = c else {
            panic!("{c:?} is not from the 256-colour palette");
        };
        assert!(i >= 16, "{c:?}: the first 16 depend on the terminal");
        if i >= 232 {
            let v = 8 + (i - 232) * 10;
            return (v, v, v);
        }
        let l = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
        let i = i - 16;
        (l(i / 36), l(i / 6 % 6), l(i % 6))
    }

    /// WCAG relative luminance.
    fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
        let lin = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// Text on the terminal's background reads on black and on white alike
    /// (a contrast of 3:1 or more against both).
    #[test]
    fn colours_read_on_light_and_dark_terminals() {
        for &c in ON_DEFAULT_BG {
            let l = luminance(rgb(c));
            let on_black = (l + 0.05) / 0.05;
            let on_white = 1.05 / (l + 0.05);
            assert!(
                on_black >= 3.0 && on_white >= 3.0,
                "{c:?}: {on_black:.1} on black, {on_white:.1} on white"
            );
        }
        for b in [
            ByteClass::Null,
            ByteClass::Printable,
            ByteClass::Whitespace,
            ByteClass::OtherAscii,
            ByteClass::NonAscii,
        ] {
            assert!(ON_DEFAULT_BG.contains(&byte_fg(b)));
        }
        // Styles with a background set their own text colour.
        for s in [status(), tree_selected(true), tree_selected(false)] {
            assert!(s.fg.is_some() && s.bg.is_some());
        }
    }

    #[test]
    fn classes_match_hexyl() {
        assert_eq!(class(0), ByteClass::Null);
        assert_eq!(class(b'A'), ByteClass::Printable);
        assert_eq!(class(b' '), ByteClass::Whitespace);
        assert_eq!(class(b'\n'), ByteClass::Whitespace);
        assert_eq!(class(0x1b), ByteClass::OtherAscii);
        assert_eq!(class(0x7f), ByteClass::OtherAscii);
        assert_eq!(class(0x80), ByteClass::NonAscii);
        // No byte is ever shown as a control character.
        for b in 0..=255u8 {
            assert!(!crate::model::text::is_unsafe(byte_char(b)));
        }
    }
}
