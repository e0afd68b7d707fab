//! Section contents: the dispatch by section type (to the symbol,
//! relocation, dynamic and string table modules, notes, the sections other
//! formats define through their [`super::SectionHook`]s, the machine's own
//! sections through its [`super::Vendor`], and nested formats), section groups, pointer arrays, compressed sections, and the
//! segments' contents when there are no section headers.

use std::sync::Arc;

use super::dynamic::{dyn_entry, dyn_size, dyn_strings, dynamic};
use super::records::{self, either, zdebug, Zdebug};
use super::relocations::{crel, relocs, relr};
use super::shared::{label, Seg};
use super::strings::wide_strings;
use super::symbols::{shndx_table, symtab};
use super::{constants, hash, notes, versions, Elf, Sec, Sections};
use crate::model::{named, num, Builder, NodeId, Span, Value};

pub(super) fn sections(b: &mut Builder<'_>, parent: NodeId, elf: &Arc<Elf>) {
    let mut ranges: Vec<(usize, Span)> = elf
        .secs
        .iter()
        .enumerate()
        .filter(|(i, _)| *i > 0)
        .filter_map(|(i, s)| {
            let at = elf.data(s)?;
            (!at.is_empty()).then_some((i, at))
        })
        .collect();
    // In file order, so that walking them moves forward through the file.
    ranges.sort_by_key(|r| (r.1.offset, r.0));
    let Some(lo) = ranges.iter().map(|r| r.1.offset).min() else {
        return;
    };
    let hi = ranges.iter().map(|r| r.1.end()).max().unwrap_or(lo);
    let g = b.group(parent, "sections", lo, hi - lo);
    b.set_value(g, format!("{} with contents in the file", ranges.len()));
    let mut ve: Option<Box<dyn Sections>> = elf.vendor.map(|v| v.sections());
    let mut built = Vec::with_capacity(ranges.len());
    for (i, at) in ranges {
        let Some(s) = elf.secs.get(i) else {
            continue;
        };
        let node = if b.skips_records() && records_only(elf, s) {
            unread(b, g, elf, s, at)
        } else {
            contents(b, g, elf, s, at, &mut ve)
        };
        built.push((i, node));
    }
    // What the machine adds once the sections are read (kernel
    // descriptors, symbols shown in their code) are records too.
    if let Some(v) = ve.as_deref_mut().filter(|_| !b.skips_records()) {
        v.finish(b, elf, &built);
    }
}

/// True for a section that holds only the ELF's own records, never
/// another format: its tables (symbols, relocations, dynamic entries,
/// versions, hashes, strings, groups, pointers), its merged strings and
/// its debug information and call frames (where no section hook claims
/// the name, as one bound to a `.ksy` might). Read for nested formats only, such a
/// section is not decoded ([`Builder::skips_records`]).
fn records_only(elf: &Elf, s: &Sec) -> bool {
    use constants::*;
    let table = matches!(
        s.typ,
        SHT_SYMTAB
            | SHT_DYNSYM
            | SHT_REL
            | SHT_RELA
            | SHT_RELR
            | SHT_ANDROID_RELR
            | SHT_CREL
            | SHT_DYNAMIC
            | SHT_SYMTAB_SHNDX
            | SHT_GNU_VERSYM
            | SHT_GNU_VERDEF
            | SHT_GNU_VERNEED
            | SHT_HASH
            | SHT_GNU_HASH
            | SHT_STRTAB
            | SHT_GROUP
            | SHT_INIT_ARRAY
            | SHT_FINI_ARRAY
            | SHT_PREINIT_ARRAY
    );
    let debug = s.name.starts_with(".debug_")
        || s.name.starts_with(".zdebug_")
        || matches!(s.name.as_str(), ".eh_frame" | ".eh_frame_hdr");
    table || (debug || merged_strings(s)) && !elf.section_hooks.iter().any(|h| (h.claims)(s))
}

/// A section of records only ([`records_only`]) in a tree read for nested
/// formats: its node, as a full read names it, without its contents. A
/// compressed one is not inflated, but keeps the number of the space its
/// bytes would make, so that the spaces made after it (a compressed
/// bundle's, a fat binary's) are numbered as in a full read.
fn unread(b: &mut Builder<'_>, g: NodeId, elf: &Elf, s: &Sec, at: Span) -> NodeId {
    let id = b.group(g, label(s), at.offset, at.len);
    b.set_value(id, elf.shtype(s.typ).unwrap_or("unknown type"));
    let hs = either!(elf.is64, chdr32 | chdr64 as C => C::SIZE);
    if s.flags & constants::SHF_COMPRESSED != 0 {
        let method = match b.read_u32(at.offset, elf.e) {
            Some(1) => Some("zlib"),
            Some(2) => Some("zstd"),
            _ => None,
        };
        if let Some(m) = method.filter(|_| at.len > hs) {
            b.derive_unread("inflated", at.skip(hs), m);
        }
    } else if at.len > zdebug::SIZE && super::compressed::gnu_compressed(b, s, at).is_some() {
        b.derive_unread("inflated", at.skip(zdebug::SIZE), "zlib");
    }
    id
}

fn contents(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    ve: &mut Option<Box<dyn Sections>>,
) -> NodeId {
    let tname = elf.shtype(s.typ).unwrap_or("unknown type");
    let compressed = s.flags & constants::SHF_COMPRESSED != 0;
    if !compressed {
        match s.typ {
            constants::SHT_SYMTAB | constants::SHT_DYNSYM => {
                return symtab(b, g, elf, s, at, tname)
            }
            constants::SHT_REL => return relocs(b, g, elf, s, at, false, tname),
            constants::SHT_RELA => return relocs(b, g, elf, s, at, true, tname),
            constants::SHT_RELR | constants::SHT_ANDROID_RELR => {
                return relr(b, g, elf, s, at, tname)
            }
            constants::SHT_CREL => return crel(b, g, elf, s, at, tname),
            constants::SHT_DYNAMIC => return dynamic(b, g, elf, s, at, tname),
            constants::SHT_SYMTAB_SHNDX => return shndx_table(b, g, elf, s, at, tname),
            constants::SHT_GNU_VERSYM => return versions::versym(b, g, elf, s, at, tname),
            _ => {}
        }
    }
    let id = b.group(g, label(s), at.offset, at.len);
    b.set_value(id, tname);
    if compressed {
        compressed_section(b, id, elf, s, at, ve);
        return id;
    }
    if super::compressed::gnu_compressed(b, s, at).is_some() {
        gnu_compressed_section(b, id, elf, s, at, ve);
        return id;
    }
    decode(b, id, elf, s, at, ve);
    id
}

/// Decodes the contents of a section that is not a table of entries, at
/// `at` of the space being built (the file, or the inflated bytes of a
/// compressed section).
fn decode(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    ve: &mut Option<Box<dyn Sections>>,
) {
    match s.typ {
        constants::SHT_STRTAB => super::strings::table(b, id, at),
        constants::SHT_NOTE => notes::notes(b, id, elf, &s.name, at, s.align),
        constants::SHT_GROUP => group(b, id, elf, at),
        constants::SHT_GNU_VERDEF | constants::SHT_GNU_VERNEED => {
            versions::defs_or_needs(b, id, elf, s, at)
        }
        constants::SHT_HASH => hash::sysv(b, id, elf, s, at),
        constants::SHT_GNU_HASH => hash::gnu(b, id, elf, s, at),
        constants::SHT_INIT_ARRAY | constants::SHT_FINI_ARRAY | constants::SHT_PREINIT_ARRAY => {
            pointers(b, id, elf, at)
        }
        // Sections other formats define (offload binaries, host wrappers
        // of device code, offload entries), whatever the machine.
        _ if hooked(b, id, elf, s, at) => {}
        _ if ve.as_mut().is_some_and(|v| v.section(b, id, elf, s, at)) => {}
        // DWARF: the units of .debug_info (a split unit's in a .dwo file),
        // each with what it compiles.
        _ if matches!(s.name.as_str(), ".debug_info" | ".debug_info.dwo")
            && super::dwarf::units(b, id, elf, at) => {}
        // Its line programs: each header, opcode and row.
        _ if s.name == ".debug_line" && super::dwarf::lines(b, id, elf, s, at) => {}
        // Its abbreviation tables, each declaration at its bytes.
        _ if matches!(s.name.as_str(), ".debug_abbrev" | ".debug_abbrev.dwo")
            && super::dwarf::abbreviations(b, id, s, at) => {}
        // Call frames: each CIE and FDE, and the FDEs' search table.
        _ if super::dwarf::frames(b, id, elf, s, at) => {}
        _ if super::dwarf::frame_header(b, id, elf, s, at) => {}
        // Location and range lists, each entry at its bytes.
        _ if super::dwarf::lists(b, id, elf, s, at) => {}
        // The tables DWARF 5's indexed strings and addresses read through.
        _ if super::dwarf::indexed(b, id, elf, s, at) => {}
        // Merged strings (`.comment`, `.rodata.str1.1`, `.debug_str`): one
        // string a NUL, listed as a string table's are.
        _ if merged_strings(s) && s.entsize <= 1 => super::strings::table(b, id, at),
        // Merged strings of 2 or 4 bytes a character (`u"…"`, `U"…"`).
        _ if merged_strings(s) && matches!(s.entsize, 2 | 4) => {
            wide_strings(b, id, at, s.entsize, elf.e)
        }
        // A section at offset 0 holds this very ELF: opening it again would
        // nest the file in itself.
        _ if s.offset == 0 => {}
        // The symbols placed in the code and data are records.
        _ if !plausible(b, at) => {
            if !b.skips_records() {
                super::placed::symbols_in(b, id, elf, s, at)
            }
        }
        _ => {
            if b.nested(id, at).is_none() && !b.skips_records() {
                super::placed::symbols_in(b, id, elf, s, at);
            }
        }
    }
}

/// Runs the section hooks that claim `s`; true once one has decoded it.
fn hooked(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) -> bool {
    elf.section_hooks
        .iter()
        .filter(|h| (h.claims)(s))
        .any(|h| (h.decode)(b, id, elf, s, at))
}

/// True for a section of zero-terminated strings that the linker may
/// merge (SHF_MERGE and SHF_STRINGS; sh_entsize is the size of a
/// character).
fn merged_strings(s: &Sec) -> bool {
    let both = constants::SHF_MERGE | constants::SHF_STRINGS;
    s.flags & both == both
}

/// False for bytes that start with an ELF magic but not with a sane ELF
/// header (a program's own copy of the magic, say in `.rodata`).
fn plausible(b: &Builder<'_>, at: Span) -> bool {
    let d = b.slice(at.offset, at.len.min(64));
    if !d.starts_with(b"\x7fELF") {
        return true;
    }
    let (class, data, version) = (d.get(4), d.get(5), d.get(6));
    let e = match data.copied() {
        Some(constants::ELFDATA2LSB) => crate::model::Endian::Little,
        Some(constants::ELFDATA2MSB) => crate::model::Endian::Big,
        _ => return false,
    };
    let is64 = match class.copied() {
        Some(constants::ELFCLASS32) => false,
        Some(constants::ELFCLASS64) => true,
        _ => return false,
    };
    let (field, want) = either!(is64, ehdr32 | ehdr64 as H => (H::AT.e_ehsize, H::SIZE));
    let ehsize = b.read_u16(field.of(at.offset), e);
    version == Some(&1) && ehsize.map(u64::from) == Some(want) && at.len >= want
}

// ---- small tables ----

/// The size of a section group's flags word and of each member's index.
const GRP_WORD: u64 = 4;

fn group(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, at: Span) {
    let Some(flags) = b.read_u32(at.offset, elf.e) else {
        return;
    };
    let f = if flags & 1 != 0 {
        Value::named_hex(flags.into(), Some("GRP_COMDAT"))
    } else {
        num(flags.into())
    };
    b.leaf(id, "flags", at.offset, GRP_WORD, f);
    let n = (at.len.saturating_sub(GRP_WORD)) / GRP_WORD;
    let el = elf.clone();
    b.array(
        id,
        "members",
        at.offset + GRP_WORD,
        n,
        GRP_WORD,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u32(o, el.e) else {
                return;
            };
            let m = b.leaf(
                p,
                format!("[{i}]"),
                o,
                4,
                named(v.into(), Some(&el.sec_name_cow(v.into()))),
            );
            if let Some(s) = el.sec(v.into()) {
                b.link(m, b.span(s.hdr, el.shdr_size()));
            }
        }),
    );
}

fn pointers(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, at: Span) {
    let w = elf.word();
    let el = elf.clone();
    b.array(
        id,
        "pointers",
        at.offset,
        at.len / w,
        w,
        Arc::new(move |b, p, i, o| {
            let Some(v) = el.read_word(b, o) else {
                return;
            };
            let n = b.leaf(p, format!("[{i}]"), o, el.word(), Value::hex(v));
            // In a relocatable object every section starts at address 0:
            // what a pointer points at is its relocation's to say, not its
            // value.
            if el.etype == constants::ET_REL {
                return;
            }
            if let Some(x) = el.addr_to_abs(v) {
                b.link(n, b.span(x, 1));
            }
        }),
    );
}

/// A compressed section: its Elf32_Chdr/Elf64_Chdr, the compressed bytes,
/// and the inflated bytes as a space of their own, decoded there as the
/// section's type says.
fn compressed_section(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    ve: &mut Option<Box<dyn Sections>>,
) {
    let hs = either!(elf.is64, chdr32 | chdr64 as C => C::SIZE);
    if at.len < hs {
        b.error(
            at.offset,
            at.len,
            format!("compressed section needs a {hs}-byte header"),
        );
        return;
    }
    let h = b.group(id, "Chdr", at.offset, hs);
    let mut f = crate::model::Fields::new(b, h, at.offset, elf.e);
    let (t, ch_size, size_at) = either!(elf.is64, chdr32 | chdr64 as C => {
        C::Rec::show(&mut f);
        let r: Option<C::Rec> = records::read(b, at.offset, elf.e);
        r.map_or((0, 0, C::AT.ch_size), |r| (r.ch_type, r.ch_size.into(), C::AT.ch_size))
    });
    let method = match t {
        1 => Some("zlib"),
        2 => Some("zstd"),
        _ => None,
    };
    let Some(data) = compressed_data_leaf(b, id, at, hs) else {
        return;
    };
    let Some(method) = method else {
        either!(elf.is64, chdr32 | chdr64 as C => C::AT.ch_type).warn(
            b,
            at.offset,
            format!(
                "section [{}] {}: ch_type {t} is not a compression fwview knows; shown raw",
                s.index, s.name
            ),
        );
        return;
    };
    inflated(
        b,
        id,
        elf,
        s,
        data,
        method,
        (ch_size, "ch_size", size_at.of(at.offset), size_at.size),
        ve,
    );
}

/// A section that GNU tools compressed before SHF_COMPRESSED
/// (`objcopy --compress-debug-sections=zlib-gnu`, a `.zdebug_` name): the
/// magic `ZLIB`, the inflated size as 8 big-endian bytes, then zlib data.
fn gnu_compressed_section(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    ve: &mut Option<Box<dyn Sections>>,
) {
    let h = b.group(id, "header", at.offset, zdebug::SIZE);
    Zdebug::show(&mut crate::model::Fields::new(
        b,
        h,
        at.offset,
        zdebug::ENDIAN,
    ));
    let size = records::read::<Zdebug>(b, at.offset, zdebug::ENDIAN).map_or(0, |z| z.size);
    let Some(data) = compressed_data_leaf(b, id, at, zdebug::SIZE) else {
        return;
    };
    let field = zdebug::AT.size;
    inflated(
        b,
        id,
        elf,
        s,
        data,
        "zlib",
        (size, "size", field.of(at.offset), field.size),
        ve,
    );
}

/// The bytes after a compressed section's `header` bytes, as a leaf of
/// `id` valued with their size; `None` where the header is all there is.
fn compressed_data_leaf(b: &mut Builder<'_>, id: NodeId, at: Span, header: u64) -> Option<Span> {
    if at.len == header {
        return None;
    }
    let data = at.skip(header);
    b.leaf(
        id,
        "compressed data",
        data.offset,
        data.len,
        Value::Size(data.len),
    );
    Some(data)
}

/// The inflated bytes of a compressed section's data (`data`) as a space
/// of their own, decoded there as the section's type says.
/// `size` is what the header announces: value, field name, offset, width.
#[allow(clippy::too_many_arguments)]
fn inflated(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    data: Span,
    method: &'static str,
    (want, field, size_at, size_w): (u64, &str, u64, u64),
    ve: &mut Option<Box<dyn Sections>>,
) {
    let Some(node) = b.derive(id, "inflated", data, method, |src, limit| {
        inflate(method, src, limit)
    }) else {
        return;
    };
    let got = b.node(node).map_or(0, |n| n.size);
    if got != want {
        b.error(
            size_at,
            size_w,
            format!(
                "section [{}] {}: {field} is {want}, the {method} data inflates to {got} bytes",
                s.index, s.name
            ),
        );
    }
    // Debug information in the inflated bytes reads strings, relocations
    // and symbols from the file's space: what it needs is gathered here.
    let debug = super::dwarf::inflated(b, elf, s, got);
    b.within(node, |b, node| {
        let len = b.file_len();
        if let Some(ctx) = debug {
            if super::dwarf::inflated_list(b, node, ctx) {
                return;
            }
        }
        match s.typ {
            constants::SHT_SYMTAB
            | constants::SHT_DYNSYM
            | constants::SHT_REL
            | constants::SHT_RELA
            | constants::SHT_RELR
            | constants::SHT_ANDROID_RELR
            | constants::SHT_CREL
            | constants::SHT_DYNAMIC
            | constants::SHT_SYMTAB_SHNDX
            | constants::SHT_GNU_VERSYM
            | constants::SHT_GNU_VERDEF
            | constants::SHT_GNU_VERNEED
            | constants::SHT_HASH
            | constants::SHT_GNU_HASH => {}
            _ => decode(b, node, elf, s, b.span(0, len), ve),
        }
    });
}

/// Inflates zlib or zstd data, making at most `limit` + 1 bytes (one more
/// than allowed tells the caller the data would not fit).
fn inflate(method: &str, src: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    use crate::formats::compress::{inflate_io, Method};
    let m = if method == "zlib" {
        Method::Zlib
    } else {
        Method::Zstd
    };
    inflate_io(src, m, limit).map_err(|e| format!("{method} data does not inflate: {e}"))
}

/// Without section headers, the contents that segments name.
pub(super) fn segments(b: &mut Builder<'_>, parent: NodeId, elf: &Arc<Elf>, phdrs: &[Seg]) {
    let shown: Vec<(usize, &Seg, Span)> = phdrs
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.typ, 3 | constants::PT_NOTE | constants::PT_DYNAMIC))
        .filter_map(|(i, p)| {
            let end = p.offset.checked_add(p.filesz)?;
            (end <= elf.at.len && p.filesz > 0).then(|| (i, p, elf.at.part(p.offset, p.filesz)))
        })
        .collect();
    let Some(lo) = shown.iter().map(|s| s.2.offset).min() else {
        return;
    };
    let hi = shown.iter().map(|s| s.2.end()).max().unwrap_or(lo);
    let g = b.group(parent, "segments", lo, hi - lo);
    for (i, p, at) in shown {
        let tn = constants::ptype(p.typ, elf.machine).unwrap_or("?");
        match p.typ {
            constants::PT_NOTE => {
                let id = b.group(g, format!("[{i}] {tn}"), at.offset, at.len);
                notes::notes(b, id, elf, "", at, 4);
            }
            constants::PT_DYNAMIC => {
                let es = dyn_size(elf);
                let el = elf.clone();
                let strs = dyn_strings(b, elf, at);
                b.array(
                    g,
                    &format!("[{i}] {tn}"),
                    at.offset,
                    at.len / es,
                    es,
                    Arc::new(move |b, p, i, o| dyn_entry(b, p, &el, strs, i, o)),
                );
            }
            _ => {
                let s = b.bytes(at);
                let end = memchr::memchr(0, s).unwrap_or(s.len());
                b.leaf(
                    g,
                    format!("[{i}] {tn}"),
                    at.offset,
                    at.len,
                    Value::str_bytes(s.get(..end).unwrap_or(&[])),
                );
            }
        }
    }
}
