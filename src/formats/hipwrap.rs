//! HIP host wrappers: the `__hip_fatbin_wrapper` record in a host object's
//! `.hipFatBinSegment` (magic `HIPF`, version, a pointer to the device
//! code, an unused pointer), its pointer linked to the bundle it names:
//! through its relocation in a relocatable object, through the address
//! map in a linked one.

use super::elf::{self, Elf, Sec, SectionHook};
use crate::model::record::{record, Record};
use crate::model::{Builder, Fields, NodeId, Span};

/// The section that holds the wrappers.
pub const SECTION: &str = ".hipFatBinSegment";
/// `HIPF`, read as a little-endian word.
pub const HIPF: u32 = 0x4849_5046;

/// Wrappers decoded in one section at most.
const MAX_WRAPPERS: u64 = 4096;

/// Relocations looked at per relocation section at most.
const MAX_RELOCATIONS: u64 = 1 << 20;

/// The magic's name, if it is `HIPF`.
fn hipf_name(v: u64) -> Option<&'static str> {
    (v == u64::from(HIPF)).then_some("HIPF")
}

record! {
    /// `__hip_fatbin_wrapper` in a 64-bit object (read in the object's
    /// byte order).
    mod wrapper64: Wrapper64 (crate::model::Endian::Little) {
        magic: u32 = "magic", Show::NamedHex(hipf_name),
        version: u32 = "version", Show::Dec,
        binary: u64 = "binary", Show::Hex,
        unused: u64 = "unused", Show::Hex,
    }
}

record! {
    /// `__hip_fatbin_wrapper` in a 32-bit object.
    mod wrapper32: Wrapper32 (crate::model::Endian::Little) {
        magic: u32 = "magic", Show::NamedHex(hipf_name),
        version: u32 = "version", Show::Dec,
        binary: u32 = "binary", Show::Hex,
        unused: u32 = "unused", Show::Hex,
    }
}

const SHT_RELA: u32 = 4;
const SHT_REL: u32 = 9;

/// The ELF reader's hook for `.hipFatBinSegment`, by name (host objects
/// have no vendor).
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| s.name == SECTION,
    decode: |b, id, elf, s, at| {
        parse_section(b, id, elf, s, at);
        true
    },
};

/// Decodes the wrappers of `.hipFatBinSegment` at `at` under `id`.
pub fn parse_section(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) {
    let wide = elf.word() == 8;
    let rec = if wide {
        wrapper64::SIZE
    } else {
        wrapper32::SIZE
    };
    let n = at.len / rec;
    if n == 0 {
        b.error(
            at.offset,
            at.len,
            format!("{SECTION}: {} bytes, a wrapper takes {rec}", at.len),
        );
        return;
    }
    for i in 0..n.min(MAX_WRAPPERS) {
        let pos = at.offset + i * rec;
        let name = if n == 1 {
            "wrapper".to_string()
        } else {
            format!("wrapper [{i}]")
        };
        let g = b.group(id, name, pos, rec);
        // The section lies in the file: every field fits.
        let d = b.slice(pos, rec);
        let mut f = Fields::new(b, g, pos, elf.e);
        let (read, p) = if wide {
            let p = Wrapper64::show(&mut f).binary;
            let r = Wrapper64::read_in(d, elf.e).ok();
            (r.map(|r| (r.magic, r.binary)), p)
        } else {
            let p = Wrapper32::show(&mut f).binary;
            let r = Wrapper32::read_in(d, elf.e).ok();
            (r.map(|r| (r.magic, u64::from(r.binary))), p)
        };
        let (magic, ptr) = read.unwrap_or((0, 0));
        if magic != HIPF {
            wrapper64::AT.magic.warn(
                b,
                pos,
                format!("HIP wrapper magic 0x{magic:08x}, HIPF (0x{HIPF:08x}) expected"),
            );
        }
        // Where the pointer is, from the section's start.
        let slot = wrapper64::AT.binary.of(pos) - at.offset;
        let target = if elf.etype == 1 {
            by_relocation(b, elf, s, slot)
        } else {
            // Linked: the address, or in a shared library (where the word
            // is 0) the address its dynamic relocation writes there.
            let addr = if ptr != 0 {
                Some(ptr)
            } else {
                dynamic_target(b, elf, s.addr.wrapping_add(slot))
            };
            addr.and_then(|p| elf.addr_to_abs(p))
                .and_then(|t| within_section(elf, t))
        };
        match target {
            Some(to) => {
                if let Some(p) = p {
                    b.link(p, to);
                }
                b.set_value(g, "HIP fat binary wrapper");
            }
            None => b.set_value(g, "HIP fat binary wrapper (target not resolved)"),
        }
    }
    b.set_value(
        id,
        format!("{} HIP fat binary wrappers", n.min(MAX_WRAPPERS)),
    );
}

/// The section bytes from absolute offset `t` to the end of the section
/// that holds it.
pub(crate) fn within_section(elf: &Elf, t: u64) -> Option<Span> {
    elf.secs
        .iter()
        .find_map(|s| elf.data(s)?.from(t).filter(|r| !r.is_empty()))
}

/// The target of the relocation at `rel` of section `s`: the section of
/// its symbol, from the symbol's value plus the addend to its end.
pub(crate) fn by_relocation(b: &Builder<'_>, elf: &Elf, s: &Sec, rel: u64) -> Option<Span> {
    for r in elf
        .secs
        .iter()
        .filter(|r| (r.typ == SHT_RELA || r.typ == SHT_REL) && r.info == s.index)
    {
        let Some(e) = elf::rels(b, elf, r, MAX_RELOCATIONS)?.find(|e| e.offset == rel) else {
            continue;
        };
        let sy = elf::rel_sym(b, elf, r.link, e.sym)?;
        let ts = elf.sec(sy.shndx.into())?;
        let to = elf.data(ts)?;
        let off = sy.value.wrapping_add(e.addend.unwrap_or(0));
        return (off < to.len).then(|| to.skip(off));
    }
    None
}

/// What the dynamic relocation at address `addr` writes there: its
/// symbol's value plus its addend (the addend alone for a relative one).
pub(crate) fn dynamic_target(b: &Builder<'_>, elf: &Elf, addr: u64) -> Option<u64> {
    for r in elf.secs.iter().filter(|r| r.typ == SHT_RELA) {
        let Some(mut entries) = elf::rels(b, elf, r, MAX_RELOCATIONS) else {
            continue;
        };
        let Some(e) = entries.find(|e| e.offset == addr) else {
            continue;
        };
        let addend = e.addend.unwrap_or(0);
        if e.sym == 0 {
            return Some(addend);
        }
        let sy = elf::rel_sym(b, elf, r.link, e.sym)?;
        return Some(sy.value.wrapping_add(addend));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `__hip_fatbin_wrapper` (clang's CGCUDANV): magic, version, then two
    /// pointers of the object's width.
    #[test]
    fn wrappers_match_clang_and_short_slices_are_errors() {
        assert_eq!((wrapper64::SIZE, wrapper32::SIZE), (24, 16));
        assert_eq!(wrapper64::AT.binary.off, wrapper32::AT.binary.off);
        assert_eq!(wrapper64::AT.unused.off, 16);
        assert!(Wrapper64::read(&[0; 23]).is_err() && Wrapper32::read(&[0; 16]).is_ok());
        let be = Wrapper32::read_in(
            &[0x48, 0x49, 0x50, 0x46, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
            crate::model::Endian::Big,
        );
        assert_eq!(be.map(|w| (w.magic, w.version)), Ok((HIPF, 1)));
    }
}
