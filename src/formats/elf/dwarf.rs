//! DWARF `.debug_info`: each unit at its bytes, with its header's fields
//! and what its first entry (the compile unit) names: the source, the
//! producer, the language and the directory. Read with `gimli`, from the
//! sections as they are in the file (a compressed debug section is shown
//! as its section type says, not as units).

use std::sync::Arc;

use gimli::{EndianSlice, RunTimeEndian, SectionId};

use super::{constants, Elf, Sec};
use crate::model::{Builder, Endian, Fields, NodeId, Value};

/// Units beyond this many are not listed.
const MAX_UNITS: u64 = 1 << 20;

/// The bytes of the section `id` names, if the ELF has it uncompressed;
/// empty otherwise.
fn section<'a>(b: &Builder<'a>, elf: &Elf, id: SectionId) -> Option<&'a [u8]> {
    let s = elf.secs.iter().find(|s| s.name == id.name())?;
    if s.flags & constants::SHF_COMPRESSED != 0 {
        return None;
    }
    let (a, l) = elf.data(s)?;
    Some(b.slice(a, l))
}

/// True when `.debug_info` and the sections it reads are in the file as
/// they are (none compressed).
fn readable(elf: &Elf) -> bool {
    elf.secs
        .iter()
        .filter(|s| s.name.starts_with(".debug_"))
        .all(|s| s.flags & constants::SHF_COMPRESSED == 0)
}

/// Lists the units of `.debug_info` (`s`, at `[a, a+l)`) under `id`, built
/// when opened.
pub(super) fn units(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
) -> bool {
    if l == 0 || s.flags & constants::SHF_COMPRESSED != 0 || !readable(elf) {
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
    let info = b.slice(a, l);
    let load = |id: SectionId| -> Result<EndianSlice<'_, RunTimeEndian>, gimli::Error> {
        let d = if id == SectionId::DebugInfo {
            info
        } else {
            section(b, elf, id).unwrap_or(&[])
        };
        Ok(EndianSlice::new(d, endian))
    };
    let Ok(mut dwarf) = gimli::Dwarf::load(load) else {
        return;
    };
    // Units usually share their abbreviations: each table is read once.
    dwarf.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);
    // In an object file, the offsets into the string sections are in the
    // relocations of .debug_info, not in its bytes: names are left out
    // rather than read from the wrong place.
    let info_index = elf
        .secs
        .iter()
        .find(|s| s.name == ".debug_info")
        .map(|s| s.index);
    let relocated = super::symbols::relocatable(elf)
        && elf.secs.iter().any(|r| {
            matches!(r.typ, constants::SHT_REL | constants::SHT_RELA) && Some(r.info) == info_index
        });
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
        let node = b.group(parent, format!("unit [{n}]"), at, size.min(l - off));
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
        let end = at + size.min(l - off);
        let summary = first_entry(&dwarf, &header, !relocated);
        if head_end < end {
            b.leaf(
                node,
                "entries",
                head_end,
                end - head_end,
                Value::text("debugging information entries"),
            );
        }
        let mut v = format!("DWARF {version}");
        if let Some(s) = summary {
            v = format!("{s}, DWARF {version}");
        }
        if relocated {
            v.push_str(" (its names are in relocations, not applied)");
        }
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
/// language and directory where it has them (with `names` false, the
/// language alone).
fn first_entry(
    dwarf: &gimli::Dwarf<EndianSlice<'_, RunTimeEndian>>,
    header: &gimli::UnitHeader<EndianSlice<'_, RunTimeEndian>>,
    names: bool,
) -> Option<String> {
    let unit = dwarf.unit(*header).ok()?;
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
        if !names && at != gimli::DW_AT_language {
            continue;
        }
        let text = if at == gimli::DW_AT_language {
            match v {
                gimli::AttributeValue::Language(lang) => lang.static_string().map(str::to_string),
                _ => None,
            }
        } else {
            dwarf
                .attr_string(&unit, v)
                .ok()
                .map(|s| crate::model::text::from_bytes(s.slice()))
        };
        if let Some(t) = text {
            parts.push(t);
        }
    }
    Some(parts.join(", "))
}
