//! Node addresses as text: the names of a path cut for output, written
//! with their escapes, and read back into segments. Text alone: the tree
//! walks them in `tree.rs`.

/// Longest name, in characters, that `Tree::short_path` writes whole.
pub const SEGMENT_MAX: usize = 64;
/// How many characters of a longer name it keeps, before `…`.
pub const SEGMENT_KEEP: usize = 60;

/// A name as `Tree::short_path` writes it: whole up to [`SEGMENT_MAX`]
/// characters, else its first [`SEGMENT_KEEP`] and `…`.
pub(super) fn cut_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.len() <= SEGMENT_MAX {
        return std::borrow::Cow::Borrowed(name);
    }
    match name.char_indices().nth(SEGMENT_MAX) {
        None => std::borrow::Cow::Borrowed(name),
        Some(_) => {
            let end = name
                .char_indices()
                .nth(SEGMENT_KEEP)
                .map_or(name.len(), |(i, _)| i);
            let mut s = String::with_capacity(end + 3);
            s.push_str(name.get(..end).unwrap_or(name));
            s.push('…');
            std::borrow::Cow::Owned(s)
        }
    }
}

/// Whether a segment's name may be a name cut by [`cut_name`]:
/// [`SEGMENT_KEEP`] characters and `…`.
pub(super) fn is_cut_form(name: &str) -> bool {
    name.ends_with('…') && name.chars().count() == SEGMENT_KEEP + 1
}

/// Writes a name as a path segment: `\\`, `/` and `#` escaped.
pub(super) fn escape_segment(out: &mut String, name: &str) {
    if !name.contains(['\\', '/', '#']) {
        out.push_str(name);
        return;
    }
    for c in name.chars() {
        if matches!(c, '\\' | '/' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Splits an address into (name, index among same-named siblings); `None`
/// for a malformed `#K`.
/// An address as printed for scripts: the root's, which
/// `Tree::path_string` gives as the empty string, is spelt `/` (which
/// `Tree::find_path` takes); every other address is itself.
pub fn printed_address(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

/// Appends what follows a `\` in an address: `\\`, `\/` and `\#` stand
/// for `\`, `/` and `#`, and the display escapes of [`super::text::clean`]
/// (`\x1b`, `\n`, `\r`, `\t`, `\u{202e}`) for the character they show, so
/// an address copied from `--tree` or `--find` finds its node. `\xNN` past
/// 0x7f is the display form of a byte that is not UTF-8, which names hold
/// as those four characters, and stays as it is.
fn unescape(chars: &mut std::str::Chars<'_>, out: &mut String) {
    let Some(e) = chars.next() else {
        out.push('\\');
        return;
    };
    let ahead = chars.clone();
    let decoded = match e {
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'x' => {
            let h: String = chars.by_ref().take(2).collect();
            match u8::from_str_radix(&h, 16) {
                Ok(b) if h.len() == 2 && b.is_ascii() => Some(char::from(b)),
                Ok(_) if h.len() == 2 => {
                    out.push('\\');
                    out.push('x');
                    out.push_str(&h);
                    return;
                }
                _ => None,
            }
        }
        'u' => chars
            .as_str()
            .strip_prefix('{')
            .and_then(|r| r.split_once('}'))
            .filter(|(h, _)| (1..=6).contains(&h.len()))
            .and_then(|(h, r)| {
                let c = char::from_u32(u32::from_str_radix(h, 16).ok()?)?;
                *chars = r.chars();
                Some(c)
            }),
        _ => None,
    };
    match decoded {
        Some(c) => out.push(c),
        None => {
            *chars = ahead;
            out.push(e);
        }
    }
}

pub(super) fn split_path(path: &str) -> Option<Vec<(String, usize)>> {
    let mut segs = Vec::new();
    let mut name = String::new();
    let mut index: Option<String> = None;
    let mut chars = path.chars();
    let mut any = false;
    let finish = |segs: &mut Vec<(String, usize)>,
                  name: &mut String,
                  index: &mut Option<String>|
     -> Option<()> {
        let k = match index.take() {
            Some(d) => d.parse::<usize>().ok()?,
            None => 0,
        };
        segs.push((std::mem::take(name), k));
        Some(())
    };
    while let Some(c) = chars.next() {
        any = true;
        match c {
            '\\' => match &mut index {
                Some(d) => unescape(&mut chars, d),
                None => unescape(&mut chars, &mut name),
            },
            '/' => {
                if !(name.is_empty() && index.is_none()) {
                    finish(&mut segs, &mut name, &mut index)?;
                }
            }
            '#' if index.is_none() => index = Some(String::new()),
            c => match &mut index {
                Some(d) => d.push(c),
                None => name.push(c),
            },
        }
    }
    if any && !(name.is_empty() && index.is_none()) {
        finish(&mut segs, &mut name, &mut index)?;
    }
    Some(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_split_with_escapes_and_indexes() {
        assert_eq!(split_path(""), Some(vec![]));
        assert_eq!(
            split_path("/a/b#2/"),
            Some(vec![("a".into(), 0), ("b".into(), 2)])
        );
        assert_eq!(
            split_path("x\\/y/\\#1#1"),
            Some(vec![("x/y".into(), 0), ("#1".into(), 1)])
        );
        // Display escapes stand for their characters; a byte that is not
        // UTF-8 keeps its display form.
        assert_eq!(
            split_path("a\\x1b[1m/\\u{202e}b\\n/\\\\x9b/\\x9b/\\q"),
            Some(vec![
                ("a\x1b[1m".into(), 0),
                ("\u{202e}b\n".into(), 0),
                ("\\x9b".into(), 0),
                ("\\x9b".into(), 0),
                ("q".into(), 0)
            ])
        );
        assert_eq!(split_path("a#z"), None);
        let mut s = String::new();
        escape_segment(&mut s, "a/b#c\\");
        assert_eq!(s, "a\\/b\\#c\\\\");
    }
}
