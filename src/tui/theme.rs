//! Colours in one place: byte classes as hexyl shows them, and the shades
//! that mark the selected node and its ancestors.

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

/// hexyl's scheme: null grey, printable cyan, whitespace and other ASCII
/// green, non-ASCII yellow.
pub fn byte_fg(c: ByteClass) -> Color {
    match c {
        ByteClass::Null => Color::DarkGray,
        ByteClass::Printable => Color::Cyan,
        ByteClass::Whitespace => Color::Green,
        ByteClass::OtherAscii => Color::Green,
        ByteClass::NonAscii => Color::Yellow,
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
/// Background of bytes with a diagnostic.
pub const DIAG_BG: Color = Color::Indexed(52);

pub fn cursor() -> Style {
    Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
}
pub fn border(focused: bool) -> Style {
    if focused {
        Style::new().fg(Color::Cyan)
    } else {
        Style::new().fg(Color::DarkGray)
    }
}
pub fn tree_selected(focused: bool) -> Style {
    if focused {
        Style::new().bg(SELECTED_BG).add_modifier(Modifier::BOLD)
    } else {
        Style::new().bg(Color::Indexed(237))
    }
}
pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}
pub fn name() -> Style {
    Style::new().fg(Color::White)
}
pub fn value() -> Style {
    Style::new().fg(Color::LightYellow)
}
pub fn status() -> Style {
    Style::new().bg(Color::Indexed(236)).fg(Color::White)
}
pub fn error() -> Style {
    Style::new()
        .fg(Color::LightRed)
        .add_modifier(Modifier::BOLD)
}
pub fn warning() -> Style {
    Style::new().fg(Color::Yellow)
}
pub fn key() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

#[cfg(test)]
mod tests {
    use super::*;

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
