//! Where an ELF sector's code starts: its ELF header's entry point, found
//! in the bytes of the loaded segment that holds it, read through the ELF
//! reader's header layouts, in either class and byte order.

use crate::formats::elf::{
    ehdr32, ehdr64, ident, phdr32, phdr64, ELFCLASS32, ELFCLASS64, ELFDATA2MSB, PT_LOAD,
};
use crate::model::record::At;
use crate::model::{read_uint, Builder, Endian, Span};

use super::sector::LE;

/// Program headers looked at, at most.
const MAX_PHDRS: u64 = 256;

/// The fields an entry point's place is found from, in one class.
struct Layout {
    e_entry: At,
    e_phoff: At,
    e_phentsize: At,
    e_phnum: At,
    p_type: At,
    p_offset: At,
    p_vaddr: At,
    p_filesz: At,
}

const ELF32: Layout = Layout {
    e_entry: ehdr32::AT.e_entry,
    e_phoff: ehdr32::AT.e_phoff,
    e_phentsize: ehdr32::AT.e_phentsize,
    e_phnum: ehdr32::AT.e_phnum,
    p_type: phdr32::AT.p_type,
    p_offset: phdr32::AT.p_offset,
    p_vaddr: phdr32::AT.p_vaddr,
    p_filesz: phdr32::AT.p_filesz,
};

const ELF64: Layout = Layout {
    e_entry: ehdr64::AT.e_entry,
    e_phoff: ehdr64::AT.e_phoff,
    e_phentsize: ehdr64::AT.e_phentsize,
    e_phnum: ehdr64::AT.e_phnum,
    p_type: phdr64::AT.p_type,
    p_offset: phdr64::AT.p_offset,
    p_vaddr: phdr64::AT.p_vaddr,
    p_filesz: phdr64::AT.p_filesz,
};

/// The class and byte order of the ELF image at `off`.
fn class(b: &Builder<'_>, off: u64) -> Option<(u8, Endian)> {
    let class = b.read_u8(ident::AT.class.of(off))?;
    let e = if b.read_u8(ident::AT.data.of(off))? == ELFDATA2MSB {
        Endian::Big
    } else {
        LE
    };
    Some((class, e))
}

/// The entry point of the ELF image in `image`.
pub(super) fn elf_entry(b: &Builder<'_>, image: Span) -> Option<u64> {
    let (class, e) = class(b, image.offset)?;
    let at = match class {
        ELFCLASS32 => ELF32.e_entry,
        ELFCLASS64 => ELF64.e_entry,
        _ => return None,
    };
    if image.len < at.end() {
        return None;
    }
    read_uint(b, at.of(image.offset), at.size, e)
}

/// Where address `addr` of the ELF image in `image` is in the file: in the
/// bytes of the loaded segment that holds it.
pub(super) fn elf_addr_at(b: &Builder<'_>, image: Span, addr: u64) -> Option<u64> {
    let (class, e) = class(b, image.offset)?;
    let l = if class == ELFCLASS64 { ELF64 } else { ELF32 };
    let read = |field: At, base: u64| read_uint(b, field.of(base), field.size, e);
    let table = read(l.e_phoff, image.offset)?;
    let es = read(l.e_phentsize, image.offset)?;
    let n = read(l.e_phnum, image.offset)?.min(MAX_PHDRS);
    for i in 0..n {
        let h = table.checked_add(i.checked_mul(es)?)?;
        if h.checked_add(es)? > image.len || read(l.p_type, image.offset + h)? != u64::from(PT_LOAD)
        {
            continue;
        }
        let at = image.offset + h;
        let (o, v, size) = (
            read(l.p_offset, at)?,
            read(l.p_vaddr, at)?,
            read(l.p_filesz, at)?,
        );
        if addr >= v && addr - v < size {
            let at = o.checked_add(addr - v)?;
            return (at < image.len).then(|| image.offset + at);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields where the ELF specification puts them.
    #[test]
    fn fields_match_the_elf_specification() {
        assert_eq!((ident::AT.class.off, ident::AT.data.off), (4, 5));
        let f = |a: At| (a.off, a.size);
        assert_eq!(f(ELF32.e_entry), (24, 4));
        assert_eq!(
            (f(ELF32.e_phoff), f(ELF32.e_phentsize), f(ELF32.e_phnum)),
            ((28, 4), (42, 2), (44, 2))
        );
        assert_eq!(f(ELF64.e_entry), (24, 8));
        assert_eq!(
            (f(ELF64.e_phoff), f(ELF64.e_phentsize), f(ELF64.e_phnum)),
            ((32, 8), (54, 2), (56, 2))
        );
        assert_eq!(
            (ELF32.p_offset.off, ELF32.p_vaddr.off, ELF32.p_filesz.off),
            (4, 8, 16)
        );
        assert_eq!(
            (ELF64.p_offset.off, ELF64.p_vaddr.off, ELF64.p_filesz.off),
            (8, 16, 32)
        );
    }
}
