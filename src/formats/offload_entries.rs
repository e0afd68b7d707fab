//! `llvm_offload_entries`: the table a host object keeps of its device
//! kernels and globals (`__tgt_offload_entry`: reserved, version, kind,
//! flags, address, name, size, data, aux address), with the address and
//! the name resolved through the section's relocations (objects) or the
//! address map (linked files).

use super::elf::{self, Elf, Sec};
use super::offload;
use crate::model::{text, Builder, NodeId, Value};

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
    let w = elf.word();
    let mut out = Vec::new();
    for r in elf
        .secs
        .iter()
        .filter(|r| r.typ == SHT_RELA && r.info == s.index)
    {
        let (Some((ra, rl)), Some(st)) = (elf.data(r), elf.sec(r.link.into())) else {
            continue;
        };
        let Some((sa, sl)) = elf.data(st) else {
            continue;
        };
        for k in 0..(rl / (3 * w)).min(4 * MAX_ENTRIES) {
            let o = ra + k * 3 * w;
            let (Some(off), Some(info), Some(addend)) = (
                elf.read_word(b, o),
                elf.read_word(b, o + w),
                elf.read_word(b, o + 2 * w),
            ) else {
                break;
            };
            let sym = if elf.is64 { info >> 32 } else { info >> 8 };
            let Some(so) = sym.checked_mul(elf.sym_size()).filter(|&so| so < sl) else {
                continue;
            };
            let Some(sy) = elf::read_sym(b, elf, sa + so) else {
                continue;
            };
            let name = match elf.string(b, st.link, sy.name.into()) {
                Ok(s) if !s.text.is_empty() => s.text,
                _ => elf.sec_name(sy.shndx.into()),
            };
            out.push((
                off,
                Reloc {
                    name,
                    shndx: sy.shndx,
                    value: sy.value,
                    addend,
                },
            ));
        }
    }
    out
}

/// The NUL-terminated string at absolute offset `at` (at most 4 KiB).
fn cstr_at(b: &Builder<'_>, at: u64) -> String {
    let d = b.slice(at, 4096.min(b.file_len().saturating_sub(at)));
    let end = d.iter().position(|&c| c == 0).unwrap_or(d.len());
    text::from_bytes(d.get(..end).unwrap_or(&[]))
}

/// Decodes the entries at `[a, a+l)` of section `s` under `id`.
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
        let version = b.read_u16(at + 8, elf.e).unwrap_or(0);
        let kind = b.read_u16(at + 10, elf.e).unwrap_or(0);
        let flags = b.read_u32(at + 12, elf.e).unwrap_or(0);
        let addr = elf.read_word(b, at + 16).unwrap_or(0);
        let nameptr = elf.read_word(b, at + 16 + w).unwrap_or(0);
        let size = b.read_u64(at + 16 + 2 * w, elf.e).unwrap_or(0);
        let data = b.read_u64(at + 24 + 2 * w, elf.e).unwrap_or(0);
        let aux = elf.read_word(b, at + 32 + 2 * w).unwrap_or(0);
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
        b.leaf(
            g,
            "reserved",
            at,
            8,
            Value::hex(b.read_u64(at, elf.e).unwrap_or(0)).with_width(8),
        );
        b.leaf(
            g,
            "version",
            at + 8,
            2,
            Value::dec(u64::from(version)).with_width(2),
        );
        let kt = offload::offload_kind_text(kind);
        let short = match (kt.find('('), kt.rfind(')')) {
            (Some(x), Some(y)) if x < y => kt.get(x + 1..y).unwrap_or(""),
            _ => "",
        };
        b.leaf(
            g,
            "kind",
            at + 10,
            2,
            Value::named(u64::from(kind), Some(short)),
        );
        b.leaf(
            g,
            "flags",
            at + 12,
            4,
            Value::hex(u64::from(flags)).with_width(4),
        );
        let av = match reloc_at(ro + 16) {
            Some(r) if r.addend == 0 => Value::note(crate::model::Raw::U(addr), &r.name),
            Some(r) => Value::note(
                crate::model::Raw::U(addr),
                format!("{} + 0x{:x}", r.name, r.addend),
            ),
            None => Value::hex(addr).with_width(w as u8),
        };
        b.leaf(g, "address", at + 16, w, av);
        let np = b.leaf(g, "name", at + 16 + w, w, Value::str(&name));
        if let Some(r) = reloc_at(ro + 16 + w) {
            if let Some((ta, _)) = elf.sec(r.shndx.into()).and_then(|t| elf.data(t)) {
                b.link(
                    np,
                    ta + r.value.wrapping_add(r.addend),
                    name.len() as u64 + 1,
                );
            }
        } else if let Some(t) = elf.addr_to_abs(nameptr) {
            b.link(np, t, name.len() as u64 + 1);
        }
        b.leaf(
            g,
            "size",
            at + 16 + 2 * w,
            8,
            Value::dec(size).with_width(8),
        );
        b.leaf(
            g,
            "data",
            at + 24 + 2 * w,
            8,
            Value::hex(data).with_width(8),
        );
        b.leaf(
            g,
            "aux address",
            at + 32 + 2 * w,
            w,
            Value::hex(aux).with_width(w as u8),
        );
        names.push(name);
    }
    b.set_value(id, format!("{} offload entries", names.len()));
}
