//! HIP host wrappers: the `__hip_fatbin_wrapper` record in a host object's
//! `.hipFatBinSegment` (magic `HIPF`, version, a pointer to the device
//! code, an unused pointer), its pointer linked to the bundle it names:
//! through its relocation in a relocatable object, through the address
//! map in a linked one.

use super::elf::{self, Elf, Sec, SectionHook};
use crate::model::{Builder, Fields, NodeId};

/// The section that holds the wrappers.
pub const SECTION: &str = ".hipFatBinSegment";
/// `HIPF`, read as a little-endian word.
pub const HIPF: u32 = 0x4849_5046;

/// Wrappers decoded in one section at most.
const MAX_WRAPPERS: u64 = 4096;

/// Relocations looked at per relocation section at most.
const MAX_RELOCATIONS: u64 = 1 << 20;

const SHT_RELA: u32 = 4;
const SHT_REL: u32 = 9;

/// The ELF reader's hook for `.hipFatBinSegment`, by name (host objects
/// have no vendor).
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| s.name == SECTION,
    decode: |b, id, elf, s, a, l| {
        parse_section(b, id, elf, s, a, l);
        true
    },
};

/// Decodes the wrappers of `.hipFatBinSegment` at `[a, a+l)` under `id`.
pub fn parse_section(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, a: u64, l: u64) {
    let w = elf.word();
    let rec = 8 + 2 * w;
    let n = l / rec;
    if n == 0 {
        b.error(a, l, format!("{SECTION}: {l} bytes, a wrapper takes {rec}"));
        return;
    }
    for i in 0..n.min(MAX_WRAPPERS) {
        let at = a + i * rec;
        let name = if n == 1 {
            "wrapper".to_string()
        } else {
            format!("wrapper [{i}]")
        };
        let g = b.group(id, name, at, rec);
        // The section lies in the file: every field fits.
        let mut f = Fields::new(b, g, at, elf.e);
        let magic = f
            .named_hex("magic", 4, |v| (v == u64::from(HIPF)).then_some("HIPF"))
            .unwrap_or(0);
        if magic != u64::from(HIPF) {
            f.builder().warn(
                at,
                4,
                format!("HIP wrapper magic 0x{magic:08x}, HIPF (0x{HIPF:08x}) expected"),
            );
        }
        f.dec("version", 4);
        let ptr = f.hex("binary", w).unwrap_or(0);
        let p = f.last_fitted();
        f.hex("unused", w);
        let target = if elf.etype == 1 {
            by_relocation(b, elf, s, (at + 8) - a)
        } else {
            // Linked: the address, or in a shared library (where the word
            // is 0) the address its dynamic relocation writes there.
            let addr = if ptr != 0 {
                Some(ptr)
            } else {
                dynamic_target(b, elf, s.addr.wrapping_add(at + 8 - a))
            };
            addr.and_then(|p| elf.addr_to_abs(p))
                .and_then(|t| within_section(elf, t))
        };
        match target {
            Some((t, size)) => {
                if let Some(p) = p {
                    b.link(p, t, size);
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

/// The section bytes holding absolute offset `t`: (t, bytes to its end).
pub(crate) fn within_section(elf: &Elf, t: u64) -> Option<(u64, u64)> {
    elf.secs.iter().find_map(|s| {
        let (a, l) = elf.data(s)?;
        (t >= a && t < a + l).then(|| (t, a + l - t))
    })
}

/// The target of the relocation at `rel` of section `s`: the section of
/// its symbol, at the symbol's value plus the addend.
pub(crate) fn by_relocation(b: &Builder<'_>, elf: &Elf, s: &Sec, rel: u64) -> Option<(u64, u64)> {
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
        let (ta, tl) = elf.data(ts)?;
        let off = sy.value.wrapping_add(e.addend.unwrap_or(0));
        return (off < tl).then(|| (ta + off, tl - off));
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
