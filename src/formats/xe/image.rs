//! Where an ELF sector's code starts: its ELF header's entry point, found
//! in the bytes of the loaded segment that holds it. Only the fields that
//! takes are declared, in either class and byte order.

use crate::model::record::{record, At};
use crate::model::{read_uint, Builder, Endian};

use super::sector::LE;

record! {
    /// `e_ident`'s class and byte order.
    mod ident: Ident (LE) {
        magic: [u8; 4] = "EI_MAG", Show::Bytes,
        class: u8 = "EI_CLASS", Show::Auto,
        data: u8 = "EI_DATA", Show::Auto,
    }
}

record! {
    /// `Elf32_Ehdr` up to `e_phnum`.
    mod ehdr32: Ehdr32 (LE) {
        e_ident: [u8; 16] = "e_ident", Show::Bytes,
        e_type: u16 = "e_type", Show::Auto,
        e_machine: u16 = "e_machine", Show::Auto,
        e_version: u32 = "e_version", Show::Auto,
        e_entry: u32 = "e_entry", Show::Hex,
        e_phoff: u32 = "e_phoff", Show::Hex,
        e_shoff: u32 = "e_shoff", Show::Hex,
        e_flags: u32 = "e_flags", Show::Hex,
        e_ehsize: u16 = "e_ehsize", Show::Auto,
        e_phentsize: u16 = "e_phentsize", Show::Auto,
        e_phnum: u16 = "e_phnum", Show::Auto,
    }
}

record! {
    /// `Elf64_Ehdr` up to `e_phnum`.
    mod ehdr64: Ehdr64 (LE) {
        e_ident: [u8; 16] = "e_ident", Show::Bytes,
        e_type: u16 = "e_type", Show::Auto,
        e_machine: u16 = "e_machine", Show::Auto,
        e_version: u32 = "e_version", Show::Auto,
        e_entry: u64 = "e_entry", Show::Hex,
        e_phoff: u64 = "e_phoff", Show::Hex,
        e_shoff: u64 = "e_shoff", Show::Hex,
        e_flags: u32 = "e_flags", Show::Hex,
        e_ehsize: u16 = "e_ehsize", Show::Auto,
        e_phentsize: u16 = "e_phentsize", Show::Auto,
        e_phnum: u16 = "e_phnum", Show::Auto,
    }
}

record! {
    /// `Elf32_Phdr` up to `p_filesz`.
    mod phdr32: Phdr32 (LE) {
        p_type: u32 = "p_type", Show::Auto,
        p_offset: u32 = "p_offset", Show::Hex,
        p_vaddr: u32 = "p_vaddr", Show::Hex,
        p_paddr: u32 = "p_paddr", Show::Hex,
        p_filesz: u32 = "p_filesz", Show::Auto,
    }
}

record! {
    /// `Elf64_Phdr` up to `p_filesz`.
    mod phdr64: Phdr64 (LE) {
        p_type: u32 = "p_type", Show::Auto,
        p_flags: u32 = "p_flags", Show::Hex,
        p_offset: u64 = "p_offset", Show::Hex,
        p_vaddr: u64 = "p_vaddr", Show::Hex,
        p_paddr: u64 = "p_paddr", Show::Hex,
        p_filesz: u64 = "p_filesz", Show::Auto,
    }
}

/// `ELFCLASS32`, `ELFCLASS64`, `ELFDATA2MSB`, `PT_LOAD`.
const ELFCLASS32: u8 = 1;
const ELFCLASS64: u8 = 2;
const ELFDATA2MSB: u8 = 2;
const PT_LOAD: u64 = 1;
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

/// The entry point of the ELF image at `[off, off+len)`.
pub(super) fn elf_entry(b: &Builder<'_>, off: u64, len: u64) -> Option<u64> {
    let (class, e) = class(b, off)?;
    let at = match class {
        ELFCLASS32 => ELF32.e_entry,
        ELFCLASS64 => ELF64.e_entry,
        _ => return None,
    };
    if len < at.end() {
        return None;
    }
    read_uint(b, at.of(off), at.size, e)
}

/// Where address `addr` of the ELF image at `[off, off+len)` is in the
/// file: in the bytes of the loaded segment that holds it.
pub(super) fn elf_addr_at(b: &Builder<'_>, off: u64, len: u64, addr: u64) -> Option<u64> {
    let (class, e) = class(b, off)?;
    let l = if class == ELFCLASS64 { ELF64 } else { ELF32 };
    let read = |field: At, base: u64| read_uint(b, field.of(base), field.size, e);
    let table = read(l.e_phoff, off)?;
    let es = read(l.e_phentsize, off)?;
    let n = read(l.e_phnum, off)?.min(MAX_PHDRS);
    for i in 0..n {
        let h = table.checked_add(i.checked_mul(es)?)?;
        if h.checked_add(es)? > len || read(l.p_type, off + h)? != PT_LOAD {
            continue;
        }
        let at = off + h;
        let (o, v, size) = (
            read(l.p_offset, at)?,
            read(l.p_vaddr, at)?,
            read(l.p_filesz, at)?,
        );
        if addr >= v && addr - v < size {
            let at = o.checked_add(addr - v)?;
            return (at < len).then(|| off + at);
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
