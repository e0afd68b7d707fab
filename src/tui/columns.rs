//! Text cut to a number of terminal columns.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Cuts `s` to at most `max` terminal columns, ending in `…` if cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.width() <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncation_counts_columns() {
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdef", 4), "abc…");
        // Wide characters take two columns each.
        assert_eq!(truncate("日本語テキスト", 5), "日本…");
    }
}
