//! `llvm_offload_entries`: the table a host object keeps of its device
//! kernels and globals (`__tgt_offload_entry`: reserved, version, kind,
//! flags, address, name, size, data, aux address), with the address and
//! the name resolved through the section's relocations (objects) or the
//! address map (linked files).

use super::elf::{self, Elf, Sec, SectionHook};
use super::offload;
use crate::model::record::{record, Record};
use crate::model::{read_uint, text, Builder, Endian, Fields, NodeId, Raw, Span, Value};

/// The section names the table goes by (the second before LLVM 20).
pub const SECTIONS: [&str; 2] = ["llvm_offload_entries", "omp_offloading_entries"];

/// Entries decoded at most.
const MAX_ENTRIES: u64 = 1 << 16;
/// The alignment of each entry in the section.
const ENTRY_ALIGN: u64 = 8;

const SHT_RELA: u32 = 4;
const SHT_REL: u32 = 9;

/// The offload kind with the short name offload kinds go by.
fn kind_value(kind: u64) -> Value {
    let kt = offload::offload_kind_text(kind as u16);
    let short = kt
        .split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map_or("", |(inner, _)| inner);
    Value::named(kind, Some(short))
}

record! {
    /// `__tgt_offload_entry` in a 64-bit object (read in the object's
    /// byte order); the address and the name are given their meaning once
    /// the relocations or the address map are known.
    mod entry64: Entry64 (Endian::Little) {
        reserved: u64 = "reserved", Show::Hex,
        version: u16 = "version", Show::Dec,
        kind: u16 = "kind", Show::Value(kind_value),
        flags: u32 = "flags", Show::Hex,
        address: u64 = "address", Show::Hex,
        name: u64 = "name", Show::Hex,
        size: u64 = "size", Show::Dec,
        data: u64 = "data", Show::Hex,
        aux_address: u64 = "aux address", Show::Hex,
    }
}

record! {
    /// `__tgt_offload_entry` in a 32-bit object: the pointers are 32-bit,
    /// the size and the data stay 64-bit.
    mod entry32: Entry32 (Endian::Little) {
        reserved: u64 = "reserved", Show::Hex,
        version: u16 = "version", Show::Dec,
        kind: u16 = "kind", Show::Value(kind_value),
        flags: u32 = "flags", Show::Hex,
        address: u32 = "address", Show::Hex,
        name: u32 = "name", Show::Hex,
        size: u64 = "size", Show::Dec,
        data: u64 = "data", Show::Hex,
        aux_address: u32 = "aux address", Show::Hex,
    }
}

/// What the entry reader needs of either width: the address and the name
/// pointer, and their nodes.
struct Read {
    addr: u64,
    nameptr: u64,
    address: Option<NodeId>,
    name: Option<NodeId>,
}

/// The entry at the cursor, of the object's width.
fn show(f: &mut Fields<'_, '_>, d: &[u8], wide: bool, e: Endian) -> Read {
    if wide {
        let n = entry64::Entry64::show(f);
        let r = entry64::Entry64::read_in(d, e).ok();
        Read {
            addr: r.map_or(0, |r| r.address),
            nameptr: r.map_or(0, |r| r.name),
            address: n.address,
            name: n.name,
        }
    } else {
        let n = entry32::Entry32::show(f);
        let r = entry32::Entry32::read_in(d, e).ok();
        Read {
            addr: r.map_or(0, |r| u64::from(r.address)),
            nameptr: r.map_or(0, |r| u64::from(r.name)),
            address: n.address,
            name: n.name,
        }
    }
}

/// What a relocation at one place of the section says: the symbol's
/// name, section index and value, and the addend.
struct Reloc {
    name: String,
    shndx: u16,
    value: u64,
    addend: u64,
}

/// The RELA relocations of section `s`, by offset within it.
fn relocations(b: &Builder<'_>, elf: &Elf, s: &Sec) -> Vec<(u64, Reloc)> {
    let mut out = Vec::new();
    let base = elf.data(s).map_or(0, |at| at.offset);
    for r in elf
        .secs
        .iter()
        .filter(|r| (r.typ == SHT_RELA || r.typ == SHT_REL) && r.info == s.index)
    {
        let (Some(entries), Some(st)) = (
            elf::rels(b, elf, r, 4 * MAX_ENTRIES),
            elf.sec(r.link.into()),
        ) else {
            continue;
        };
        for e in entries {
            let Some(sy) = elf::rel_sym(b, elf, r.link, e.sym) else {
                continue;
            };
            let name = match elf.string(b, st.link, sy.name.into()) {
                Ok(s) if !s.text.is_empty() => s.text,
                _ => elf.sec_name(sy.shndx.into()),
            };
            out.push((
                e.offset,
                Reloc {
                    name,
                    shndx: sy.shndx,
                    value: sy.value,
                    // REL: the addend is the word at the place.
                    addend: e.addend.unwrap_or_else(|| {
                        read_uint(b, base.saturating_add(e.offset), elf.word(), elf.e).unwrap_or(0)
                    }),
                },
            ));
        }
    }
    out
}

/// The NUL-terminated string at absolute offset `at` (at most 4 KiB).
fn cstr_at(b: &Builder<'_>, at: u64) -> String {
    b.read_cstr(at, at.saturating_add(4096))
        .map_or_else(String::new, |(s, _)| text::from_bytes(s))
}

/// The ELF reader's hook for the offload entry sections, by name.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| SECTIONS.contains(&s.name.as_str()),
    decode: |b, id, elf, s, at| {
        parse_section(b, id, elf, s, at);
        true
    },
};

/// Decodes the entries at `at` of section `s` under `id`.
pub fn parse_section(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) {
    let wide = elf.word() == 8;
    let es = if wide { entry64::SIZE } else { entry32::SIZE };
    // Each entry is a global of its own, 8-byte aligned: in a 32-bit
    // object (where the record is 44 bytes) 4 bytes of padding follow
    // every entry but the last.
    let stride = es.next_multiple_of(ENTRY_ALIGN);
    // Where the address and the name pointer are, from an entry's start.
    let (addr_at, name_at) = if wide {
        (entry64::AT.address.off, entry64::AT.name.off)
    } else {
        (entry32::AT.address.off, entry32::AT.name.off)
    };
    let padded = at.len.saturating_add(stride - es);
    let n = padded / stride;
    if n == 0 || !padded.is_multiple_of(stride) {
        b.warn(
            at.offset,
            at.len,
            format!(
                "{} bytes are not a whole number of {es}-byte offload entries",
                at.len
            ),
        );
    }
    let rel = if elf.etype == 1 {
        relocations(b, elf, s)
    } else {
        Vec::new()
    };
    let reloc_at = |o: u64| rel.iter().find(|(k, _)| *k == o).map(|(_, r)| r);
    let mut names = Vec::new();
    for i in 0..n.min(MAX_ENTRIES) {
        let pos = at.offset + i * stride;
        let ro = i * stride;
        let g = b.group(id, format!("[{i}]"), pos, es);
        // The section lies in the file: every field fits.
        let d = b.slice(pos, es);
        let mut f = Fields::new(b, g, pos, elf.e);
        let r = show(&mut f, d, wide, elf.e);
        // The name: through the relocation of the name pointer, or the
        // address map.
        let target = match reloc_at(ro + name_at) {
            Some(r) => elf
                .sec(r.shndx.into())
                .and_then(|t| elf.data(t))
                .map(|to| to.offset + r.value.wrapping_add(r.addend)),
            None => elf.addr_to_abs(r.nameptr),
        };
        let name = target.map(|t| cstr_at(b, t)).unwrap_or_default();
        b.set_value(g, Value::str(&name));
        if let (Some(p), Some(rl)) = (r.address, reloc_at(ro + addr_at)) {
            let v = if rl.addend == 0 {
                Value::note(Raw::U(r.addr), &rl.name)
            } else {
                Value::note(Raw::U(r.addr), format!("{} + 0x{:x}", rl.name, rl.addend))
            };
            b.set_value(p, v);
        }
        if let Some(p) = r.name {
            b.set_value(p, Value::str(&name));
            if let Some(t) = target {
                b.link(p, b.span(t, name.len() as u64 + 1));
            }
        }
        names.push(name);
    }
    b.set_value(id, format!("{} offload entries", names.len()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `__tgt_offload_entry` (LLVM's OffloadBinary.h / Utility.h): u64
    /// reserved, u16 version, u16 kind, u32 flags, the address and the
    /// name pointers, u64 size, u64 data, the aux address pointer.
    #[test]
    fn entries_match_llvm_and_short_slices_are_errors() {
        assert_eq!((entry64::SIZE, entry32::SIZE), (56, 44));
        assert_eq!(entry64::AT.address.off, 16);
        assert_eq!(entry64::AT.name.off, 24);
        assert_eq!(entry32::AT.name.off, 20);
        assert_eq!(entry64::AT.size.off, 32);
        assert_eq!(entry32::AT.aux_address.off, 40);
        assert_eq!(entry64::AT.address.off, entry32::AT.address.off);
        let e = entry64::Entry64::read(&[0; 30]).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("name", 56, 30));
        let e = entry32::Entry32::read(&[0; 43]).unwrap_err();
        assert_eq!(e.field, "aux address");
        let mut d = [0u8; 44];
        d[10] = 1;
        d[20] = 0x40;
        let r = entry32::Entry32::read(&d).unwrap();
        assert_eq!((r.kind, r.name), (1, 0x40));
    }
}
