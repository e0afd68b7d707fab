//! Sections whose bytes are compressed: by the ELF's own scheme
//! (SHF_COMPRESSED, a header then zlib or zstd data) or by GNU tools' older
//! one (a `.zdebug_` name, the magic `ZLIB` and the inflated size).

use super::records::{self, either, zdebug, Zdebug};
use super::{constants, Elf, Sec};
use crate::model::{Builder, Span};

/// For a compressed section `s` at `at`: where its compressed data is and
/// how it inflates.
pub(super) fn compressed_data(
    b: &Builder<'_>,
    elf: &Elf,
    s: &Sec,
    at: Span,
) -> Option<(Span, &'static str)> {
    if gnu_compressed(b, s, at).is_some() {
        return Some((at.skip(zdebug::SIZE), "zlib"));
    }
    if s.flags & constants::SHF_COMPRESSED == 0 {
        return None;
    }
    let hs = either!(elf.is64, chdr32 | chdr64 as C => C::SIZE);
    let method = match b.read_u32(at.offset, elf.e)? {
        1 => "zlib",
        2 => "zstd",
        _ => return None,
    };
    (at.len > hs).then(|| (at.skip(hs), method))
}

/// For a section GNU tools compressed (a `.zdebug_` name, the magic `ZLIB`
/// then the inflated size as 8 big-endian bytes, at `at`): that size.
pub(super) fn gnu_compressed(b: &Builder<'_>, s: &Sec, at: Span) -> Option<u64> {
    if !s.name.starts_with(".zdebug") || at.len < zdebug::SIZE {
        return None;
    }
    let h: Zdebug = records::read(b, at.offset, zdebug::ENDIAN)?;
    (&h.magic == b"ZLIB").then_some(h.size)
}
