//! Sections whose bytes are compressed: by the ELF's own scheme
//! (SHF_COMPRESSED, a header then zlib or zstd data) or by GNU tools' older
//! one (a `.zdebug_` name, the magic `ZLIB` and the inflated size).

use super::records::{self, either, zdebug, Zdebug};
use super::{constants, Elf, Sec};
use crate::model::Builder;

/// For a compressed section `s` at `[a, a+l)`: where its compressed data
/// is (offset, length) and how it inflates.
pub(super) fn compressed_data(
    b: &Builder<'_>,
    elf: &Elf,
    s: &Sec,
    a: u64,
    l: u64,
) -> Option<(u64, u64, &'static str)> {
    if gnu_compressed(b, s, a, l).is_some() {
        return Some((a + zdebug::SIZE, l - zdebug::SIZE, "zlib"));
    }
    if s.flags & constants::SHF_COMPRESSED == 0 {
        return None;
    }
    let hs = either!(elf.is64, chdr32 | chdr64 as C => C::SIZE);
    let method = match b.read_u32(a, elf.e)? {
        1 => "zlib",
        2 => "zstd",
        _ => return None,
    };
    Some((a + hs, l.checked_sub(hs).filter(|&n| n > 0)?, method))
}

/// For a section GNU tools compressed (a `.zdebug_` name, the magic `ZLIB`
/// then the inflated size as 8 big-endian bytes, at `[a, a+l)`): that size.
pub(super) fn gnu_compressed(b: &Builder<'_>, s: &Sec, a: u64, l: u64) -> Option<u64> {
    if !s.name.starts_with(".zdebug") || l < zdebug::SIZE {
        return None;
    }
    let h: Zdebug = records::read(b, a, zdebug::ENDIAN)?;
    (&h.magic == b"ZLIB").then_some(h.size)
}
