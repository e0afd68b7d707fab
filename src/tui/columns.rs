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

/// `name` cut to `max` columns so that what tells it from `other` shows:
/// where it does not fit, the part the two share at the start gives way
/// to `…` (`…edge_detect_720p…` beside `…color_threshold…`). Paths are cut
/// by their file names first: two files of different folders keep their
/// names (`…/riallto__edge…`), and two of the same name keep the folder
/// part that differs before it.
pub fn distinct(name: &str, other: &str, max: usize) -> String {
    if name.width() <= max {
        return name.to_string();
    }
    let split = |p: &str| match p.rsplit_once('/') {
        Some((dir, base)) => (dir.to_string(), base.to_string()),
        None => (String::new(), p.to_string()),
    };
    let ((dir, base), (odir, obase)) = (split(name), split(other));
    if dir.is_empty() {
        return distinct_text(name, other, max);
    }
    if base != obase {
        // The file names differ: they are what shows.
        return match base.width() + 2 <= max {
            true => format!("…/{base}"),
            false => distinct_text(&base, &obase, max),
        };
    }
    // One file name in two folders: the folders' difference, then it.
    match max.checked_sub(base.width() + 1) {
        Some(room) if room >= 4 => format!("{}/{base}", distinct_text(&dir, &odir, room)),
        _ => distinct_text(name, other, max),
    }
}

/// [`distinct`] for text that is not split as a path.
fn distinct_text(name: &str, other: &str, max: usize) -> String {
    if name.width() <= max {
        return name.to_string();
    }
    let shared = name
        .chars()
        .zip(other.chars())
        .take_while(|(a, b)| a == b)
        .count();
    // A few shared characters stay, for context.
    let from = shared.saturating_sub(3);
    if from == 0 {
        return truncate(name, max);
    }
    let rest: String = name.chars().skip(from).collect();
    truncate(&format!("…{rest}"), max)
}

#[cfg(test)]
mod tests {
    use super::{distinct, truncate};

    #[test]
    fn two_names_show_where_they_differ() {
        let a = "riallto__color_threshold_v1_720p.xclbin";
        let b = "riallto__edge_detect_720p.xclbin";
        assert_eq!(distinct(a, b, 60), a);
        assert_eq!(distinct(a, b, 14), "…o__color_thr…");
        assert_eq!(distinct(b, a, 14), "…o__edge_dete…");
        assert_eq!(distinct("abcdef", "xyz", 4), "abc…");
    }

    #[test]
    fn paths_keep_their_file_names() {
        let a = "assets/xclbin/riallto__color_threshold_v1_720p.xclbin";
        let b = "../shared/samples/xclbin/riallto__edge_detect_720p.xclbin";
        assert_eq!(
            distinct(a, b, 45),
            "…/riallto__color_threshold_v1_720p.xclbin"
        );
        assert_eq!(distinct(b, a, 20), "…o__edge_detect_720…");
        // The same name in two folders: where the folders differ shows.
        let c = "build/debug/out/fw.elf";
        let d = "build/release/out/fw.elf";
        assert_eq!(distinct(c, d, 17), "…ld/debug…/fw.elf");
        assert_eq!(distinct(d, c, 60), d);
    }

    #[test]
    fn truncation_counts_columns() {
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdef", 4), "abc…");
        // Wide characters take two columns each.
        assert_eq!(truncate("日本語テキスト", 5), "日本…");
    }
}
