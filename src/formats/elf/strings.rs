//! String tables: each string at its index, built when opened, in groups
//! when many.

use std::fmt::Write as _;
use std::sync::Arc;

use compact_str::CompactString;

use crate::model::{group_size, read, Builder, Endian, NodeId, Span, Value, GROUP};

/// Shows the strings of the string table at `at`, built when opened, in
/// groups when many (the archive reader's name tables too).
pub(crate) fn table(b: &mut Builder<'_>, id: NodeId, at: Span) {
    if at.is_empty() {
        return;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            string_range(b, id, at.offset, at.offset, at.end())
        }),
    );
}

/// What ends each string of a string table.
const NUL: &[u8] = b"\0";

fn string_range(b: &mut Builder<'_>, parent: NodeId, table: u64, lo: u64, hi: u64) {
    let bytes = b.slice(lo, hi - lo);
    let nuls = memchr::memchr_iter(0, bytes).count() as u64;
    let count = nuls + u64::from(bytes.last().is_some_and(|&c| c != 0));
    if count <= GROUP {
        let mut pos = 0usize;
        while pos < bytes.len() {
            let rest = bytes.get(pos..).unwrap_or(&[]);
            let (s, n) = match memchr::memchr(0, rest) {
                Some(k) => (rest.get(..k).unwrap_or(&[]), k + NUL.len()),
                None => (rest, rest.len()),
            };
            let off = lo + pos as u64;
            let mut label = CompactString::const_new("[");
            label.push_str(crate::model::value::hex_digits(off - table, &mut [0; 18]));
            label.push(']');
            let id = b.group_owned(parent, label, off, n as u64);
            b.set_value(id, Value::str_bytes(s));
            pos += n.max(1);
        }
        return;
    }
    let g = group_size(count);
    let mut start = 0usize;
    let mut seen = 0u64;
    let mut cuts = Vec::new();
    for k in memchr::memchr_iter(0, bytes) {
        seen += 1;
        if seen.is_multiple_of(g) {
            cuts.push((start, k + NUL.len()));
            start = k + NUL.len();
        }
    }
    if start < bytes.len() {
        cuts.push((start, bytes.len()));
    }
    let cuts = cuts
        .into_iter()
        .map(|(s, e)| (lo + s as u64, lo + e as u64));
    groups(b, parent, table, cuts, move |b, id, s, e| {
        string_range(b, id, table, s, e)
    });
}

/// One group under `parent` for each absolute range `[s, e)` of `cuts`,
/// named by where it lies in the table at `table`, filled by `fill` when
/// opened.
fn groups<F>(
    b: &mut Builder<'_>,
    parent: NodeId,
    table: u64,
    cuts: impl Iterator<Item = (u64, u64)>,
    fill: F,
) where
    F: Fn(&mut Builder<'_>, NodeId, u64, u64) + Copy + Send + Sync + 'static,
{
    for (s, e) in cuts {
        let gid = b.group(
            parent,
            format!("[0x{:x}..0x{:x})", s - table, e - table),
            s,
            e - s,
        );
        b.lazy(
            gid,
            Arc::new(move |b: &mut Builder<'_>, id| fill(b, id, s, e)),
        );
    }
}

/// Shows a section of merged strings of `unit` bytes a character
/// (SHF_MERGE and SHF_STRINGS with an entry size of 2 or 4: `u"…"` as
/// UTF-16, `U"…"` and `L"…"` as UTF-32, in the ELF's byte order): one
/// string a zero character, each decoded, built when opened.
pub(crate) fn wide_strings(b: &mut Builder<'_>, id: NodeId, at: Span, unit: u64, e: Endian) {
    if at.is_empty() || !matches!(unit, 2 | 4) {
        return;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            wide_range(b, id, at.offset, at.offset, at.end(), unit, e)
        }),
    );
}

/// Where each string of `bytes` ends (past its zero character, or at the
/// end of the bytes): zero characters are looked for at whole characters.
fn wide_ends(bytes: &[u8], unit: usize) -> Vec<usize> {
    let mut ends: Vec<usize> = bytes
        .chunks_exact(unit)
        .enumerate()
        .filter(|(_, c)| c.iter().all(|&x| x == 0))
        .map(|(i, _)| (i + 1) * unit)
        .collect();
    if ends.last().copied().unwrap_or(0) < bytes.len() {
        ends.push(bytes.len());
    }
    ends
}

fn wide_range(
    b: &mut Builder<'_>,
    parent: NodeId,
    table: u64,
    lo: u64,
    hi: u64,
    unit: u64,
    e: Endian,
) {
    let bytes = b.slice(lo, hi - lo);
    let ends = wide_ends(bytes, unit as usize);
    let count = ends.len() as u64;
    if count <= GROUP {
        let mut start = 0usize;
        for end in ends {
            let s = bytes.get(start..end).unwrap_or(&[]);
            let off = lo + start as u64;
            let id = b.group(
                parent,
                format!("[0x{:x}]", off - table),
                off,
                (end - start) as u64,
            );
            b.set_value(id, Value::str(decode_wide(s, unit as usize, e)));
            start = end;
        }
        return;
    }
    let g = group_size(count) as usize;
    let mut start = lo;
    let cuts = ends.chunks(g).filter_map(|c| c.last()).map(|&end| {
        let cut = (start, lo + end as u64);
        start = cut.1;
        cut
    });
    groups(b, parent, table, cuts, move |b, id, s, end| {
        wide_range(b, id, table, s, end, unit, e)
    });
}

/// The text of one wide string (its zero character, if any, left out):
/// UTF-16 for 2-byte characters, UTF-32 for 4; a character that does not
/// decode (a lone surrogate, a number past U+10FFFF) and bytes short of a
/// whole character as `\xNN`, as bytes that are not UTF-8 are shown.
fn decode_wide(s: &[u8], unit: usize, e: Endian) -> String {
    let escape = |out: &mut String, bytes: &[u8]| {
        for x in bytes {
            let _ = write!(out, "\\x{x:02x}");
        }
    };
    let chunks = s.chunks_exact(unit);
    let tail = chunks.remainder();
    // The characters before the zero one, each with its bytes.
    let chars: Vec<(u64, &[u8])> = chunks
        .map(|c| (read::uint_at(c, 0, unit as u64, e).unwrap_or(0), c))
        .take_while(|(v, _)| *v != 0)
        .collect();
    let mut out = String::with_capacity(chars.len());
    if unit == 2 {
        // A lone surrogate keeps its bytes, in the file's order.
        for r in char::decode_utf16(chars.iter().map(|&(v, _)| v as u16)) {
            match r {
                Ok(ch) => out.push(ch),
                Err(bad) => {
                    let v = bad.unpaired_surrogate();
                    escape(
                        &mut out,
                        &match e {
                            Endian::Little => v.to_le_bytes(),
                            Endian::Big => v.to_be_bytes(),
                        },
                    );
                }
            }
        }
    } else {
        for (v, c) in &chars {
            match u32::try_from(*v).ok().and_then(char::from_u32) {
                Some(ch) => out.push(ch),
                None => escape(&mut out, c),
            }
        }
    }
    // Bytes short of a whole character, when no zero character came first.
    if chars.len() * unit == s.len() - tail.len() {
        escape(&mut out, tail);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(e: Endian, unit: usize, vs: &[u32]) -> Vec<u8> {
        vs.iter()
            .flat_map(|&v| {
                let b = match e {
                    Endian::Little => v.to_le_bytes(),
                    Endian::Big => v.to_be_bytes(),
                };
                match (e, unit) {
                    (Endian::Little, 2) => b[..2].to_vec(),
                    (Endian::Big, 2) => b[2..].to_vec(),
                    _ => b.to_vec(),
                }
            })
            .collect()
    }

    #[test]
    fn utf16_and_utf32() {
        for e in [Endian::Little, Endian::Big] {
            // é, then 😀 as a surrogate pair, then the zero character.
            let s = units(e, 2, &[0x68, 0xe9, 0xd83d, 0xde00, 0, 0x41]);
            assert_eq!(decode_wide(&s, 2, e), "hé😀");
            assert_eq!(wide_ends(&s, 2), vec![10, 12]);
            let s = units(e, 4, &[0x68, 0x1f600, 0]);
            assert_eq!(decode_wide(&s, 4, e), "h😀");
        }
        // A lone surrogate, a number past U+10FFFF and half a character
        // keep their bytes.
        let s = units(Endian::Little, 2, &[0xd800, 0x41]);
        assert_eq!(decode_wide(&s, 2, Endian::Little), "\\x00\\xd8A");
        let s = units(Endian::Big, 4, &[0x0011_0000]);
        assert_eq!(decode_wide(&s, 4, Endian::Big), "\\x00\\x11\\x00\\x00");
        assert_eq!(decode_wide(&[0x41, 0, 0x42], 2, Endian::Little), "A\\x42");
        // Zero characters are found at whole characters only.
        assert_eq!(wide_ends(&[1, 0, 0, 2, 0, 0], 2), vec![6]);
    }
}
