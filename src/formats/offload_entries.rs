//! `llvm_offload_entries`: the table a host object keeps of its device
//! kernels and globals (`__tgt_offload_entry`: reserved, version, kind,
//! flags, address, name, size, data, aux address), with the address and
//! the name resolved through the section's relocations (objects) or the
//! address map (linked files).

use super::elf::{self, Elf, Sec, SectionHook};
use super::offload;
use crate::model::{read_uint, text, Builder, Fields, NodeId, Raw, Value};

/// The section names the table goes by (the second before LLVM 20).
pub const SECTIONS: [&str; 2] = ["llvm_offload_entries", "omp_offloading_entries"];

/// Entries decoded at most.
const MAX_ENTRIES: u64 = 1 << 16;

const SHT_RELA: u32 = 4;

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
    for r in elf
        .secs
        .iter()
        .filter(|r| r.typ == SHT_RELA && r.info == s.index)
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
                    addend: e.addend.unwrap_or(0),
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

/// Decodes the entries at `[a, a+l)` of section `s` under `id`.
/// The ELF reader's hook for the offload entry sections, by name.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| SECTIONS.contains(&s.name.as_str()),
    decode: |b, id, elf, s, a, l| {
        parse_section(b, id, elf, s, a, l);
        true
    },
};

pub fn parse_section(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, a: u64, l: u64) {
    let w = elf.word();
    let es = 8 + 8 + 5 * w;
    let n = l / es;
    if n == 0 || !l.is_multiple_of(es) {
        b.warn(
            a,
            l,
            format!(
                "{} bytes are not a whole number of {es}-byte offload entries",
                l
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
        let at = a + i * es;
        let ro = i * es;
        let nameptr = read_uint(b, at + 16 + w, w, elf.e).unwrap_or(0);
        // The name: through the relocation of the name pointer, or the
        // address map.
        let name = match reloc_at(ro + 16 + w) {
            Some(r) => elf
                .sec(r.shndx.into())
                .and_then(|t| elf.data(t))
                .map(|(ta, _)| cstr_at(b, ta + r.value.wrapping_add(r.addend))),
            None => elf.addr_to_abs(nameptr).map(|t| cstr_at(b, t)),
        }
        .unwrap_or_default();
        let g = b.group(id, format!("[{i}]"), at, es);
        b.set_value(g, Value::str(&name));
        // The section lies in the file: every field fits.
        let mut f = Fields::new(b, g, at, elf.e);
        f.hex("reserved", 8);
        f.dec("version", 2);
        f.field("kind", 2, |kind| {
            let kt = offload::offload_kind_text(kind as u16);
            let short = match (kt.find('('), kt.rfind(')')) {
                (Some(x), Some(y)) if x < y => kt.get(x + 1..y).unwrap_or(""),
                _ => "",
            };
            Value::named(kind, Some(short))
        });
        f.hex("flags", 4);
        f.field("address", w, |addr| match reloc_at(ro + 16) {
            Some(r) if r.addend == 0 => Value::note(Raw::U(addr), &r.name),
            Some(r) => Value::note(Raw::U(addr), format!("{} + 0x{:x}", r.name, r.addend)),
            None => Value::hex(addr).with_width(w as u8),
        });
        f.field("name", w, |_| Value::str(&name));
        if let Some(r) = reloc_at(ro + 16 + w) {
            if let Some((ta, _)) = elf.sec(r.shndx.into()).and_then(|t| elf.data(t)) {
                f.link(ta + r.value.wrapping_add(r.addend), name.len() as u64 + 1);
            }
        } else if let Some(t) = elf.addr_to_abs(nameptr) {
            f.link(t, name.len() as u64 + 1);
        }
        f.dec("size", 8);
        f.hex("data", 8);
        f.hex("aux address", w);
        names.push(name);
    }
    b.set_value(id, format!("{} offload entries", names.len()));
}
