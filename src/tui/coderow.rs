//! An instruction as a row of three columns: its address (the node's
//! name), its bytes in hex (as many as the width allows, `…` where cut)
//! and its text. Every instruction of a function sits at the same depth,
//! so the columns line up from row to row.

use ratatui::style::Style;
use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;

use super::columns::truncate;
use super::theme;
use crate::model::{text, SourceLine};

/// The most bytes a row shows (an AMDGPU instruction with a literal is
/// 8 to 12; x86 rarely needs more than 8 to be recognised).
pub const MAX_BYTES: usize = 8;

/// The columns the text keeps before bytes are given room.
const TEXT_MIN: usize = 16;

/// Two spaces between columns.
const GAP: &str = "  ";

/// How many bytes fit beside an address of `addr_w` columns in `avail`
/// columns, leaving the text `TEXT_MIN` columns; 0 where fewer than two fit.
pub fn bytes_shown(avail: usize, addr_w: usize) -> usize {
    // n bytes take 3n-1 columns, and one more for the `…` of a longer
    // instruction.
    let room = avail.saturating_sub(addr_w + 2 * GAP.len() + TEXT_MIN);
    let n = (room / 3).min(MAX_BYTES);
    if n < 2 {
        0
    } else {
        n
    }
}

/// The bytes column: the first `n` bytes of `b` in hex, `…` after them
/// where there are more, padded to the column's width (`3n` columns).
pub fn bytes_column(b: &[u8], n: usize) -> String {
    let shown = b.get(..b.len().min(n)).unwrap_or_default();
    let mut s = text::hex(shown, shown.len());
    if b.len() > n {
        s.push('…');
    }
    let w = 3 * n;
    let pad = w.saturating_sub(s.width());
    s.extend(std::iter::repeat_n(' ', pad));
    s
}

/// The spans of one instruction row in `avail` columns: `addr` in
/// `addr_style`, the bytes, the text, and the source line it came from
/// (`; file.c:12:7`, dim) where there is one and room for it after the
/// whole text.
pub fn spans(
    addr: &str,
    addr_style: Style,
    bytes: &[u8],
    insn: &str,
    src: Option<&SourceLine>,
    avail: usize,
) -> Vec<Span<'static>> {
    let addr = truncate(&text::clean(addr), avail);
    let addr_w = addr.width();
    let mut out = vec![Span::styled(addr, addr_style)];
    let n = bytes_shown(avail, addr_w);
    let mut used = addr_w;
    if n > 0 {
        let col = bytes_column(bytes, n);
        used += GAP.len() + col.width();
        out.push(Span::raw(GAP));
        out.push(Span::styled(col, theme::dim()));
    }
    let room = avail.saturating_sub(used + GAP.len());
    if room >= 4 {
        out.push(Span::raw(GAP));
        let insn = text::clean(insn);
        let w = insn.width();
        out.push(Span::styled(truncate(&insn, room), theme::value()));
        if let Some(s) = src {
            let s = text::clean(&format!("; {s}")).into_owned();
            if w + GAP.len() + s.width() <= room {
                out.push(Span::raw(GAP));
                out.push(Span::styled(s, theme::dim()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bytes: &[u8], avail: usize) -> String {
        spans(
            "0x00001000",
            Style::default(),
            bytes,
            "s_endpgm",
            None,
            avail,
        )
        .iter()
        .map(|s| s.content.as_ref())
        .collect()
    }

    #[test]
    fn columns_line_up_whatever_the_length() {
        let short = row(&[0xc3], 60);
        let long = row(&[0x48, 0x8d, 0x05, 0, 0, 0, 0], 60);
        assert_eq!(short.find("s_endpgm"), long.find("s_endpgm"));
        assert!(short.starts_with("0x00001000  c3 "), "{short}");
    }

    #[test]
    fn bytes_are_cut_with_an_ellipsis_and_dropped_when_narrow() {
        // 10 + 2 + 2 + 16 = 30 columns before the bytes; 3 bytes in 40.
        assert_eq!(bytes_shown(40, 10), 3);
        let r = row(&[1, 2, 3, 4, 5], 40);
        assert!(r.contains("01 02 03…"), "{r}");
        assert!(r.width() <= 40, "{r}");
        // No room for two bytes: the address and the text only.
        let r = row(&[1, 2], 35);
        assert_eq!(r, "0x00001000  s_endpgm");
        assert_eq!(bytes_shown(200, 10), MAX_BYTES);
    }

    #[test]
    fn the_source_line_follows_the_whole_text_where_it_fits() {
        let src = SourceLine {
            file: "saxpy.hip".into(),
            line: 12,
            column: 7,
        };
        let line = |avail: usize| -> String {
            spans(
                "0x00001000",
                Style::default(),
                &[0xc3],
                "retq",
                Some(&src),
                avail,
            )
            .iter()
            .map(|s| s.content.as_ref())
            .collect()
        };
        let wide = line(80);
        assert!(wide.ends_with("retq  ; saxpy.hip:12:7"), "{wide}");
        // Too narrow for both: the text alone, never cut for it.
        let narrow = line(36);
        assert!(narrow.ends_with("retq"), "{narrow}");
        assert!(narrow.width() <= 36, "{narrow}");
    }
}
