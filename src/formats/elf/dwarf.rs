//! DWARF `.debug_info`: each unit at its bytes, with its header's fields
//! and what its first entry (the compile unit) names: the source, the
//! producer, the language and the directory. Read with `gimli`, from the
//! sections as they are in the file (a compressed debug section is shown
//! as its section type says, not as units); in an object file, with the
//! RELA relocations of `.debug_info` applied as the linker would, since
//! its offsets into the string sections are there.

use std::sync::Arc;

use gimli::{EndianSlice, RelocateReader, RunTimeEndian, SectionId};

use super::{constants, Elf, Sec};
use crate::model::{Builder, Endian, Fields, NodeId, Value};

/// Units beyond this many are not listed.
const MAX_UNITS: u64 = 1 << 20;
/// Relocations of a debug section beyond this many are not applied.
const MAX_RELOCS: u64 = 1 << 22;

/// The relocations of one debug section of an object file, as gimli asks
/// for them: the offset of a field in the section, and the value the
/// linker would put there (symbol value plus addend); sorted by offset.
#[derive(Clone, Copy, Debug)]
struct Relocs<'m>(&'m [(usize, u64)]);

impl Relocs<'_> {
    fn at(&self, offset: usize) -> Option<u64> {
        let k = self.0.binary_search_by_key(&offset, |r| r.0).ok()?;
        self.0.get(k).map(|r| r.1)
    }
}

impl gimli::Relocate<usize> for Relocs<'_> {
    fn relocate_address(&self, offset: usize, value: u64) -> gimli::Result<u64> {
        Ok(self.at(offset).unwrap_or(value))
    }
    fn relocate_offset(&self, offset: usize, value: usize) -> gimli::Result<usize> {
        Ok(self
            .at(offset)
            .and_then(|v| usize::try_from(v).ok())
            .unwrap_or(value))
    }
}

type Reader<'a, 'm> = RelocateReader<EndianSlice<'a, RunTimeEndian>, Relocs<'m>>;

/// What the RELA sections of an object file put into section `target`:
/// field offset and value (symbol value plus addend), sorted. REL entries
/// keep their addend in the field, which is read as it is.
fn relocations(b: &Builder<'_>, elf: &Elf, target: &Sec) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    if !super::symbols::relocatable(elf) {
        return out;
    }
    for r in elf.secs.iter() {
        if r.typ != constants::SHT_RELA || r.info != target.index {
            continue;
        }
        let Some(rels) = super::relocations::rels(b, elf, r, MAX_RELOCS) else {
            continue;
        };
        for rel in rels {
            let Some(sym) = super::relocations::rel_sym(b, elf, r.link, rel.sym) else {
                continue;
            };
            let (Ok(at), Some(addend)) = (usize::try_from(rel.offset), rel.addend) else {
                continue;
            };
            out.push((at, sym.value.wrapping_add(addend)));
        }
    }
    out.sort_by_key(|r| r.0);
    out.dedup_by_key(|r| r.0);
    out
}

/// The section `id` names, if the ELF has it.
fn section(elf: &Elf, id: SectionId) -> Option<&Sec> {
    elf.secs.iter().find(|s| s.name == id.name())
}

/// True when `.debug_info` and the sections it reads are in the file as
/// they are (none compressed): then every section is read from the file.
fn readable(elf: &Elf) -> bool {
    elf.secs
        .iter()
        .filter(|s| s.name.starts_with(".debug_"))
        .all(|s| s.flags & constants::SHF_COMPRESSED == 0)
}

/// Lists the units of `.debug_info` (at `[a, a+l)`) under `id`, built when
/// opened.
pub(super) fn units(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, a: u64, l: u64) -> bool {
    if l == 0 || !readable(elf) {
        return false;
    }
    let elf = elf.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| list(b, id, &elf, a, l)),
    );
    true
}

fn list(b: &mut Builder<'_>, parent: NodeId, elf: &Elf, a: u64, l: u64) {
    let endian = match elf.e {
        Endian::Little => RunTimeEndian::Little,
        Endian::Big => RunTimeEndian::Big,
    };
    // Each section's bytes and, in an object file, its relocations.
    let mut relocs: Vec<(SectionId, Vec<(usize, u64)>)> = Vec::new();
    for id in [
        SectionId::DebugInfo,
        SectionId::DebugStrOffsets,
        SectionId::DebugAddr,
    ] {
        if let Some(s) = section(elf, id) {
            relocs.push((id, relocations(b, elf, s)));
        }
    }
    let load = |id: SectionId| -> Result<Reader<'_, '_>, gimli::Error> {
        let (x, n) = match id {
            SectionId::DebugInfo => (a, l),
            _ => section(elf, id).and_then(|s| elf.data(s)).unwrap_or((0, 0)),
        };
        let d = b.slice(x, n);
        let r = relocs
            .iter()
            .find(|r| r.0 == id)
            .map_or(&[][..], |r| &r.1[..]);
        Ok(RelocateReader::new(EndianSlice::new(d, endian), Relocs(r)))
    };
    let Ok(mut dwarf) = gimli::Dwarf::load(load) else {
        return;
    };
    // Units usually share their abbreviations: each table is read once.
    dwarf.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);
    let mut headers = dwarf.units();
    let mut n = 0u64;
    // Where the next unit starts, for a header that does not read.
    let mut next = 0u64;
    loop {
        let header = match headers.next() {
            Ok(Some(h)) => h,
            Ok(None) => break,
            Err(e) => {
                b.error(a + next, l - next, format!("DWARF unit header: {e}"));
                break;
            }
        };
        if n == MAX_UNITS {
            b.warn(
                a,
                l,
                format!("more than {MAX_UNITS} DWARF units: the rest are not listed"),
            );
            break;
        }
        let off = header.offset().0 as u64;
        let size = header.length_including_self() as u64;
        next = off.saturating_add(size).min(l);
        let at = a + off;
        // gimli reads units inside the section; a unit cut short by its
        // end is cut to it.
        let Some(room) = l.checked_sub(off) else {
            break;
        };
        let size = size.min(room);
        let node = b.group(parent, format!("unit [{n}]"), at, size);
        let fmt64 = header.format() == gimli::Format::Dwarf64;
        let mut f = Fields::new(b, node, at, elf.e).quiet();
        if fmt64 {
            f.hex("dwarf64", 4);
            f.uint("unit_length", 8);
        } else {
            f.uint("unit_length", 4);
        }
        let word = if fmt64 { 8 } else { 4 };
        f.dec("version", 2);
        let version = header.version();
        if version >= 5 {
            f.named_hex("unit_type", 1, unit_type);
            f.uint("address_size", 1);
            f.hex("debug_abbrev_offset", word);
        } else {
            f.hex("debug_abbrev_offset", word);
            f.uint("address_size", 1);
        }
        let head_end = f.at();
        let end = at + size;
        if head_end < end {
            b.leaf(
                node,
                "entries",
                head_end,
                end - head_end,
                Value::text("debugging information entries"),
            );
        }
        let v = match first_entry(&dwarf, &header) {
            Some(s) => format!("{s}, DWARF {version}"),
            None => format!("DWARF {version}"),
        };
        b.set_value(node, Value::text(v));
        n += 1;
    }
    b.set_value(
        parent,
        Value::text(format!("{n} unit{}", if n == 1 { "" } else { "s" })),
    );
}

/// The name of unit type `t` (DWARF 5).
fn unit_type(t: u64) -> Option<&'static str> {
    gimli::DwUt(t as u8).static_string()
}

/// What the unit's first entry says: its tag, then its name, producer,
/// language and directory where it has them.
fn first_entry(
    dwarf: &gimli::Dwarf<Reader<'_, '_>>,
    header: &gimli::UnitHeader<Reader<'_, '_>>,
) -> Option<String> {
    let unit = dwarf.unit(header.clone()).ok()?;
    let mut entries = unit.entries();
    let entry = entries.next_dfs().ok()??;
    let mut parts = vec![entry
        .tag()
        .static_string()
        .unwrap_or("DW_TAG_?")
        .to_string()];
    for at in [
        gimli::DW_AT_name,
        gimli::DW_AT_producer,
        gimli::DW_AT_language,
        gimli::DW_AT_comp_dir,
    ] {
        let Some(v) = entry.attr_value(at) else {
            continue;
        };
        let text = if at == gimli::DW_AT_language {
            match v {
                gimli::AttributeValue::Language(lang) => lang.static_string().map(str::to_string),
                _ => None,
            }
        } else {
            dwarf.attr_string(&unit, v).ok().and_then(|s| {
                gimli::Reader::to_slice(&s)
                    .ok()
                    .map(|x| crate::model::text::from_bytes(&x))
            })
        };
        if let Some(t) = text {
            parts.push(t);
        }
    }
    Some(parts.join(", "))
}
