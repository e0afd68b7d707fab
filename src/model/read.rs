//! Bounds-checked reads of fixed-size values, built on nom: nom takes the
//! bytes (or says they are not there) and the standard library turns them
//! into the number, which is faster than nom's own byte-at-a-time integer
//! parsers. None of these panic: a read that does not fit returns `None`.

use nom::bytes::complete::take;
use nom::{IResult, Parser};

/// Byte order of a structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Endian {
    #[default]
    Little,
    Big,
}

fn at(data: &[u8], off: u64) -> Option<&[u8]> {
    data.get(usize::try_from(off).ok()?..)
}

#[inline]
pub fn u8_at(d: &[u8], off: u64) -> Option<u8> {
    d.get(usize::try_from(off).ok()?).copied()
}
#[inline]
pub fn u16_at(d: &[u8], off: u64, e: Endian) -> Option<u16> {
    let b = chunk(d, off)?;
    Some(match e {
        Endian::Little => u16::from_le_bytes(b),
        Endian::Big => u16::from_be_bytes(b),
    })
}
#[inline]
pub fn u32_at(d: &[u8], off: u64, e: Endian) -> Option<u32> {
    let b = chunk(d, off)?;
    Some(match e {
        Endian::Little => u32::from_le_bytes(b),
        Endian::Big => u32::from_be_bytes(b),
    })
}
#[inline]
pub fn u64_at(d: &[u8], off: u64, e: Endian) -> Option<u64> {
    let b = chunk(d, off)?;
    Some(match e {
        Endian::Little => u64::from_le_bytes(b),
        Endian::Big => u64::from_be_bytes(b),
    })
}

/// The `N` bytes at `off`, if the data holds them all.
#[inline]
fn chunk<const N: usize>(d: &[u8], off: u64) -> Option<[u8; N]> {
    let r: IResult<&[u8], &[u8]> = take(N).parse(at(d, off)?);
    r.ok().and_then(|(_, b)| b.try_into().ok())
}

/// An unsigned number of `size` (1 to 8) bytes at `off`.
#[inline]
pub fn uint_at(d: &[u8], off: u64, size: u64, e: Endian) -> Option<u64> {
    match size {
        1 => u8_at(d, off).map(u64::from),
        2 => u16_at(d, off, e).map(u64::from),
        4 => u32_at(d, off, e).map(u64::from),
        8 => u64_at(d, off, e),
        // Packed fields (an ELF32 relocation's 3-byte symbol index).
        3 | 5..=7 => {
            let b = bytes_at(d, off, size)?;
            let fold = |v: u64, &x: &u8| v << 8 | u64::from(x);
            Some(match e {
                Endian::Little => b.iter().rev().fold(0, fold),
                Endian::Big => b.iter().fold(0, fold),
            })
        }
        _ => None,
    }
}

/// `len` bytes at `off`, or `None` if they are not all in `d`.
pub fn bytes_at(d: &[u8], off: u64, len: u64) -> Option<&[u8]> {
    let s = usize::try_from(off).ok()?;
    let l = usize::try_from(len).ok()?;
    d.get(s..s.checked_add(l)?)
}

/// The NUL-terminated string starting at `off`, looking no further than
/// `limit` (absolute, exclusive). Returns the bytes without the NUL and
/// whether a NUL was found.
pub fn cstr_at(d: &[u8], off: u64, limit: u64) -> Option<(&[u8], bool)> {
    let end = limit.min(d.len() as u64);
    if off >= end {
        return None;
    }
    let s = bytes_at(d, off, end - off)?;
    match memchr::memchr(0, s) {
        Some(i) => s.get(..i).map(|b| (b, true)),
        None => Some((s, false)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded() {
        let d = [1u8, 2, 3, 4, 5];
        assert_eq!(u32_at(&d, 0, Endian::Little), Some(0x04030201));
        assert_eq!(u32_at(&d, 1, Endian::Big), Some(0x02030405));
        assert_eq!(u32_at(&d, 2, Endian::Little), None);
        assert_eq!(u64_at(&d, u64::MAX, Endian::Little), None);
        assert_eq!(bytes_at(&d, 4, 1), Some(&[5u8][..]));
        assert_eq!(bytes_at(&d, 4, u64::MAX), None);
    }

    #[test]
    fn odd_sizes_read_like_the_wide_reader_would() {
        let d = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        for size in 1..=8u64 {
            for e in [Endian::Little, Endian::Big] {
                let wide = u64_at(&d, 1, e).map(|v| match e {
                    Endian::Little => v & (u64::MAX >> (64 - 8 * size)),
                    Endian::Big => v >> (64 - 8 * size),
                });
                assert_eq!(uint_at(&d, 1, size, e), wide, "size {size} {e:?}");
            }
        }
        assert_eq!(uint_at(&d, 0, 3, Endian::Little), Some(0x030201));
        assert_eq!(uint_at(&d, 7, 3, Endian::Big), None);
        assert_eq!(uint_at(&d, 0, 9, Endian::Big), None);
        assert_eq!(uint_at(&d, 0, 0, Endian::Big), None);
    }

    #[test]
    fn cstr_stops_at_nul_or_limit() {
        let d = b"ab\0cd";
        assert_eq!(cstr_at(d, 0, 5), Some((&b"ab"[..], true)));
        assert_eq!(cstr_at(d, 3, 5), Some((&b"cd"[..], false)));
        assert_eq!(cstr_at(d, 3, 4), Some((&b"c"[..], false)));
        assert_eq!(cstr_at(d, 5, 9), None);
    }
}
