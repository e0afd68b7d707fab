//! Text from files, and making it safe to show. The model keeps names and
//! values as the file spells them (valid UTF-8 exactly, each byte that is
//! not UTF-8 as `\xNN`); whatever shows text on a terminal (the TUI,
//! `--tree`, messages) passes it through [`clean`], so no control sequence
//! reaches a terminal, and `--json` writes the text with JSON escapes, so a
//! script gets it back exactly.

use std::borrow::Cow;
use std::fmt::Write;

/// True for characters that must never reach a terminal as they are: C0 and
/// C1 controls, DEL, and the bidirectional formatting characters that can
/// reorder what a user sees.
pub fn is_unsafe(c: char) -> bool {
    let u = c as u32;
    u < 0x20
        || (0x7f..=0x9f).contains(&u)
        || matches!(u, 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069)
}

/// Writes an unsafe character as an escape: ASCII controls as `\xNN` (or
/// `\n`, `\r`, `\t`), every other character as `\u{N}`, so that `\xNN`
/// beyond ASCII always means a byte that is not UTF-8 (see [`from_bytes`]):
/// U+009B shows as `\u{9b}`, a lone byte 0x9B as `\x9b`.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_ascii() => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Escapes unsafe characters in a string; borrows when there are none.
pub fn clean(s: &str) -> Cow<'_, str> {
    if is_plain(s.as_bytes()) || !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// True when every byte is printable ASCII (nothing to escape): eight
/// bytes at a time.
#[inline]
pub fn is_plain(b: &[u8]) -> bool {
    let n = b.len();
    let word = |at: usize| {
        b.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .is_some_and(|w| printable8(u64::from_le_bytes(w)))
    };
    let half = |at: usize| {
        b.get(at..at + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map_or(0, u32::from_le_bytes)
    };
    if n >= 8 {
        // Whole words, then the last eight bytes (which may overlap).
        (0..n / 8).all(|k| word(k * 8)) && word(n - 8)
    } else if n >= 4 {
        // Two four-byte reads that may overlap, checked as one word.
        printable8(u64::from(half(0)) | (u64::from(half(n - 4)) << 32))
    } else {
        b.iter().all(|&c| (0x20..0x7f).contains(&c))
    }
}

/// The bytes as a string when they are UTF-8 (printable ASCII checked
/// first, eight bytes at a time, which most names from files are).
#[inline]
pub fn as_str(b: &[u8]) -> Option<&str> {
    if is_plain(b) {
        // SAFETY: printable ASCII bytes are valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(b) })
    } else {
        std::str::from_utf8(b).ok()
    }
}

/// True when all 8 bytes of `w` are printable ASCII (0x20 to 0x7e).
#[inline]
fn printable8(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below 0x20, a byte with the high bit, a byte equal to 0x7f.
    let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    let x = w ^ (ONES * 0x7f);
    let del = x.wrapping_sub(ONES) & !x & HIGH;
    (below | (w & HIGH) | del) == 0
}

/// Where the first sequence in `b` starts that a terminal could act on: a
/// character [`is_unsafe`] names, newline apart, as UTF-8 writes it (C0
/// controls, DEL, C1 controls `C2 80..9F`, the bidirectional formatting
/// characters). A byte that is not UTF-8 is none. For checking what fwview
/// writes (the tests, the fuzz targets): words of printable ASCII and
/// newlines, most of any output, are passed over eight bytes at a time.
pub fn terminal_unsafe_at(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        // A word that is not plain is looked at byte by byte; a sequence
        // may run on into the next word (the byte checks look past the
        // word's end), but none starts in a plain word.
        let end = match b.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            Some(w) if plain8(u64::from_le_bytes(w)) => {
                i += 8;
                continue;
            }
            Some(_) => i + 8,
            None => b.len(),
        };
        while i < end {
            if unsafe_sequence_at(b, i) {
                return Some(i);
            }
            i += 1;
        }
    }
    None
}

/// [`printable8`], with newlines allowed: each newline byte is made
/// printable (`0x0a | 0x20`) before the test.
fn plain8(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let y = x ^ (ONES * u64::from(b'\n'));
    // The top bit of each byte of `y` that is zero (exact, no borrow).
    let zero = !(((y & SEVEN) + SEVEN) | y | SEVEN);
    printable8(x | zero >> 2)
}

/// True if an unsafe character's UTF-8 starts at `b[i]`.
fn unsafe_sequence_at(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(b'\n') | None => false,
        Some(0..=0x1f | 0x7f) => true,
        Some(0xc2) => matches!(b.get(i + 1), Some(0x80..=0x9f)),
        // U+061C ARABIC LETTER MARK
        Some(0xd8) => b.get(i + 1) == Some(&0x9c),
        // U+200E, U+200F, U+202A..U+202E, U+2066..U+2069
        Some(0xe2) => matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(0x80), Some(0x8e | 0x8f | 0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
        ),
        Some(_) => false,
    }
}

/// Turns bytes from a file into text: valid UTF-8 is kept as it is
/// (controls too: [`clean`] escapes them where the text is shown), each
/// byte that is not UTF-8 becomes `\xNN`.
pub fn from_bytes(b: &[u8]) -> String {
    if let Some(s) = as_str(b) {
        return s.to_string();
    }
    let mut out = String::with_capacity(b.len() + 8);
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for &x in chunk.invalid() {
            let _ = write!(out, "\\x{x:02x}");
        }
    }
    out
}

/// `b` without the `pad` bytes at its end (NUL padding after a text).
pub fn strip_padding(b: &[u8], pad: u8) -> &[u8] {
    trim_end_by(b, |c| c == pad)
}

/// `b` without the bytes at its end for which `pad` is true.
pub fn trim_end_by(b: &[u8], pad: impl Fn(u8) -> bool) -> &[u8] {
    let n = b.iter().rev().take_while(|&&c| pad(c)).count();
    b.get(..b.len() - n).unwrap_or(&[])
}

/// Like [`from_bytes`], quoted, for string values.
pub fn quoted(b: &[u8]) -> String {
    format!("\"{}\"", from_bytes(b))
}

/// A fixed-size char array: the text up to the first NUL.
pub fn fixed(b: &[u8]) -> String {
    let end = memchr::memchr(0, b).unwrap_or(b.len());
    from_bytes(b.get(..end).unwrap_or(b))
}

/// `[i]`: the name of an element of a list (made without `format!`, as
/// elements are named by the million).
pub fn index(i: impl itoa::Integer) -> compact_str::CompactString {
    let mut s = compact_str::CompactString::const_new("[");
    s.push_str(itoa::Buffer::new().format(i));
    s.push(']');
    s
}

/// Bytes as hex pairs separated by spaces, at most `max` bytes then `…`.
pub fn hex(b: &[u8], max: usize) -> String {
    let mut out = String::with_capacity(b.len().min(max) * 3 + 3);
    for (i, x) in b.iter().take(max).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{x:02x}");
    }
    if b.len() > max {
        out.push_str(" …");
    }
    out
}

/// A 32-bit word as `0x` and eight hex digits, for messages and summaries
/// (a node's value holds it as `Value::hex_wide(v, 4)`).
pub fn hex32(v: u32) -> String {
    format!("0x{v:08x}")
}

/// The names `table` gives the set bits of `v`, joined by ` | `, then the
/// set bits it does not name, in hex after `unknown`: `64-bit | LZ4 | 0x80`
/// (empty for 0).
pub fn flag_names(v: u64, table: &[(u64, &str)], unknown: &str) -> String {
    let mut rest = v;
    let mut parts: Vec<String> = Vec::new();
    for &(bit, n) in table {
        if v & bit != 0 {
            parts.push(n.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 {
        parts.push(format!("{unknown}0x{rest:x}"));
    }
    parts.join(" | ")
}

/// A 16-byte UUID in 8-4-4-4-12 form, bytes in file order.
pub fn uuid(b: &[u8]) -> String {
    let mut s = String::with_capacity(36);
    for (i, x) in b.iter().take(16).enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        let _ = write!(s, "{x:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_names_then_the_rest_in_hex() {
        let t = [(1, "A"), (4, "C")];
        assert_eq!(flag_names(0, &t, ""), "");
        assert_eq!(flag_names(5, &t, ""), "A | C");
        assert_eq!(flag_names(0x13, &t, "unknown "), "A | unknown 0x12");
    }

    #[test]
    fn controls_and_bidi_are_escaped() {
        assert_eq!(clean("plain"), Cow::Borrowed("plain"));
        assert_eq!(clean("a\x1b[31mb"), "a\\x1b[31mb");
        assert_eq!(clean("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(clean("c1\u{9b}"), "c1\\u{9b}");
        // Text keeps its characters; bytes that are not UTF-8 get the
        // display form, so once shown, a C1 character and such a byte do
        // not look alike.
        assert_eq!(from_bytes("\u{9b}".as_bytes()), "\u{9b}");
        assert_eq!(clean(&from_bytes("\u{9b}".as_bytes())), "\\u{9b}");
        assert_eq!(from_bytes(b"\x9b"), "\\x9b");
        assert_eq!(clean(&from_bytes(b"\x9b")), "\\x9b");
        assert_eq!(from_bytes(b"\x1b\x7f"), "\x1b\x7f");
        assert_eq!(clean(&from_bytes(b"ok\xff\x07")), "ok\\xff\\x07");
        assert_eq!(from_bytes("é".as_bytes()), "é");
    }

    #[test]
    fn fixed_stops_at_nul() {
        assert_eq!(fixed(b"abc\0def"), "abc");
        assert_eq!(fixed(b"abc"), "abc");
    }

    #[test]
    fn uuid_groups() {
        let b: Vec<u8> = (0u8..16).collect();
        assert_eq!(uuid(&b), "00010203-0405-0607-0809-0a0b0c0d0e0f");
    }

    #[test]
    fn hex_truncates() {
        assert_eq!(hex(&[1, 2, 3], 2), "01 02 …");
    }
}

/// Seconds since the Unix epoch as a UTC date, `YYYY-MM-DD HH:MM:SS UTC`,
/// or `None` past the year 9999.
pub fn utc(secs: i64) -> Option<String> {
    if !(-62_135_596_800..=253_402_300_799).contains(&secs) {
        return None;
    }
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    Some(format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

#[cfg(test)]
mod utc_tests {
    #[test]
    fn dates_match_known_timestamps() {
        assert_eq!(super::utc(0).as_deref(), Some("1970-01-01 00:00:00 UTC"));
        // `date -u -d @1700000000`
        assert_eq!(
            super::utc(1_700_000_000).as_deref(),
            Some("2023-11-14 22:13:20 UTC")
        );
        assert_eq!(
            super::utc(951_782_400).as_deref(),
            Some("2000-02-29 00:00:00 UTC")
        );
        assert_eq!(super::utc(-1).as_deref(), Some("1969-12-31 23:59:59 UTC"));
        assert_eq!(super::utc(i64::MAX), None);
    }
}

/// How far [`looks_zero`] looks.
pub const ZERO_SCAN: usize = 1 << 20;

/// True if the bytes are zero as far as [`ZERO_SCAN`] bytes: enough to call
/// a tail padding without reading gigabytes of it.
pub fn looks_zero(b: &[u8]) -> bool {
    b.iter().take(ZERO_SCAN).all(|&x| x == 0)
}

/// The value of a zero tail of `n` bytes, saying how much was checked.
pub fn zero_note(n: u64) -> String {
    if n > ZERO_SCAN as u64 {
        format!("{n} bytes, zero as far as checked (the first MiB)")
    } else {
        format!("{n} zero bytes")
    }
}

#[cfg(test)]
mod plain_tests {
    use super::is_plain;

    #[test]
    fn plain_is_printable_ascii_at_every_position() {
        // Every byte value at every position of strings of 1 to 17 bytes.
        for len in 1..=17usize {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut s = vec![b'a'; len];
                    s[at] = b;
                    assert_eq!(is_plain(&s), (0x20..0x7f).contains(&b), "{len} {at} {b:#x}");
                }
            }
        }
        assert!(is_plain(b""));
    }
}

#[cfg(test)]
mod terminal_tests {
    use super::*;

    /// The definition from characters: the first valid UTF-8 character
    /// [`is_unsafe`] names, newline apart.
    fn by_chars(b: &[u8]) -> Option<usize> {
        let mut at = 0;
        for chunk in b.utf8_chunks() {
            for (k, c) in chunk.valid().char_indices() {
                if c != '\n' && is_unsafe(c) {
                    return Some(at + k);
                }
            }
            at += chunk.valid().len() + chunk.invalid().len();
        }
        None
    }

    #[test]
    fn byte_scan_agrees_with_the_characters() {
        // Every byte value at every place of a printable run, and runs
        // from a simple generator that mixes printable and other bytes.
        for v in 0..=255u8 {
            for at in 0..16 {
                let mut b = *b"abcdefgh{\"k\": 1}";
                b[at] = v;
                assert_eq!(terminal_unsafe_at(&b), by_chars(&b), "{v:#x} at {at}");
            }
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut b = [0u8; 24];
            for x in &mut b {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let r = (s >> 32) as u8;
                *x = match s % 8 {
                    0 => [0x0a, 0x1b, 0x7f, 0xc2, 0x9b, 0xe2, 0x80, 0xd8][(r % 8) as usize],
                    1 => [0x81, 0xae, 0x9c, 0xa6, 0x8e, 0xf0, 0xc3, 0xe0][(r % 8) as usize],
                    _ => 0x20 + r % 0x5f,
                };
            }
            assert_eq!(terminal_unsafe_at(&b), by_chars(&b), "{b:x?}");
        }
    }
}
