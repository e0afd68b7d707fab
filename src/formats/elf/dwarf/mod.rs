//! DWARF `.debug_info`: each unit at its bytes, with its header's fields
//! and what its first entry (the compile unit) names: the source, the
//! producer, the language and the directory; then its debugging
//! information entries as a tree ([`entries`]). Read with `gimli`, from
//! the sections as they are in the file, or from a compressed section's
//! inflated bytes (a compressed `.debug_info`'s units are listed in its
//! inflated space, and links go to each section in its space); in an
//! object file, with
//! the RELA relocations of `.debug_info` applied as the linker would, since
//! its offsets into the string sections are there.

mod abbrev;
mod debug;
mod entries;
mod frame;
mod indexed;
mod line;
mod lists;
mod names;

pub(super) use line::Lines;

use std::sync::Arc;

use gimli::{EndianSlice, RelocateReader, SectionId};

use super::compressed::gnu_compressed;
use super::records::{self, either, zdebug};
use super::{constants, Elf, Sec};
use crate::model::{Builder, Fields, NodeId, Span, Value, FILE};
use debug::{
    gimli_endian, initial_length, plain_name, relocations, relocations_in, sources, Debug, Reader,
    Relocs, Sources,
};

/// Units beyond this many are not listed.
const MAX_UNITS: u64 = 1 << 20;
/// True when `.debug_info` and the sections it reads are in the file as
/// they are (none compressed): then every section is read from the file.
fn readable(elf: &Elf) -> bool {
    elf.secs
        .iter()
        .filter(|s| s.name.starts_with(".debug_"))
        .all(|s| s.flags & constants::SHF_COMPRESSED == 0)
}

/// Lists the units of `.debug_info` (at `at`) under `id`, built when
/// opened.
pub(super) fn units(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, at: Span) -> bool {
    if at.is_empty() {
        return false;
    }
    let elf = elf.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let debug = Arc::new(Debug::new(b, &elf, at));
            list(b, id, debug, at);
        }),
    );
    true
}

/// Lists the contributions of `.debug_str_offsets` or `.debug_addr` (the
/// section `s` at `at`) under `id`, built when opened.
pub(super) fn indexed(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) -> bool {
    // The name first: `readable` looks at every section, and this runs
    // for each (a cubin has thousands).
    match s.name.as_str() {
        ".debug_str_offsets" if readable(elf) => indexed::str_offsets(b, id, elf, at),
        ".debug_addr" if readable(elf) => indexed::addr(b, id, elf, at),
        _ => false,
    }
}

/// Lists the abbreviation tables of `.debug_abbrev` (at `at`, the section
/// `s`) under `id`, built when opened.
pub(super) fn abbreviations(b: &mut Builder<'_>, id: NodeId, s: &Sec, at: Span) -> bool {
    s.flags & constants::SHF_COMPRESSED == 0 && abbrev::tables(b, id, at)
}

/// The units of `.debug_info` at `at`, read through `debug`, under
/// `parent`.
fn list(b: &mut Builder<'_>, parent: NodeId, debug: Arc<Debug>, info: Span) {
    let Some(dwarf) = debug.dwarf(b) else {
        return;
    };
    let mut headers = dwarf.units();
    let mut n = 0u64;
    // Where the next unit starts, for a header that does not read.
    let mut next = 0u64;
    loop {
        let header = match headers.next() {
            Ok(Some(h)) => h,
            Ok(None) => break,
            Err(e) => {
                let rest = info.skip(next);
                b.error(rest.offset, rest.len, format!("DWARF unit header: {e}"));
                break;
            }
        };
        if n == MAX_UNITS {
            b.warn(
                info.offset,
                info.len,
                format!("more than {MAX_UNITS} DWARF units: the rest are not listed"),
            );
            break;
        }
        let off = header.offset().0 as u64;
        let size = header.length_including_self() as u64;
        next = off.saturating_add(size).min(info.len);
        let at = info.offset + off;
        // gimli reads units inside the section; a unit cut short by its
        // end is cut to it.
        let Some(room) = info.len.checked_sub(off) else {
            break;
        };
        let size = size.min(room);
        let node = b.group(parent, format!("unit [{n}]"), at, size);
        let mut f = Fields::new(b, node, at, debug.e).quiet();
        let fmt64 = initial_length(&mut f);
        let word = if fmt64 { 8 } else { 4 };
        f.dec("version", 2);
        let version = header.version();
        if version >= 5 {
            let ut = f.named_hex("unit_type", 1, unit_type);
            f.uint("address_size", 1);
            f.hex("debug_abbrev_offset", word);
            // What the unit types beyond a plain compile unit add.
            match ut.map(|t| gimli::DwUt(t as u8)) {
                Some(gimli::DW_UT_skeleton | gimli::DW_UT_split_compile) => {
                    f.hex_wide("dwo_id", 8);
                }
                Some(gimli::DW_UT_type | gimli::DW_UT_split_type) => {
                    f.hex_wide("type_signature", 8);
                    f.hex("type_offset", word);
                }
                _ => {}
            }
        } else {
            f.hex("debug_abbrev_offset", word);
            f.uint("address_size", 1);
        }
        let head_end = f.at();
        let end = at + size;
        if head_end < end {
            entries::list(b, node, &debug, off, info.at(head_end, end - head_end));
        }
        let v = match first_entry(b, &debug, &dwarf, &header) {
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
fn first_entry<'a, 'm>(
    b: &Builder<'a>,
    debug: &'m Debug,
    dwarf: &gimli::Dwarf<Reader<'a, 'm>>,
    header: &gimli::UnitHeader<Reader<'a, 'm>>,
) -> Option<String> {
    let (unit, _, _) = entries::read_unit(b, debug, dwarf, header.clone()).ok()?;
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

/// The bytes of section `s` as the debug information reads them:
/// inflated where it is compressed (at most [`MAX_INFLATED`] bytes).
fn section_bytes(b: &Builder<'_>, elf: &Elf, s: &Sec) -> Option<Vec<u8>> {
    let at = elf.data(s)?;
    if let Some(size) = gnu_compressed(b, s, at) {
        let limit = size.min(MAX_INFLATED);
        let method = crate::formats::compress::Method::Zlib;
        let data = at.skip(zdebug::SIZE);
        let data = b.bytes(data);
        let out = crate::formats::compress::inflate(data, method, limit).ok()?;
        return (out.len() as u64 <= limit).then_some(out);
    }
    if s.flags & constants::SHF_COMPRESSED == 0 {
        return Some(b.bytes(at).to_vec());
    }
    let (hs, t, size) = either!(elf.is64, chdr32 | chdr64 as C => {
        let h: C::Rec = records::read(b, at.offset, elf.e)?;
        (C::SIZE, h.ch_type, u64::from(h.ch_size))
    });
    let method = match t {
        1 => crate::formats::compress::Method::Zlib,
        2 => crate::formats::compress::Method::Zstd,
        _ => return None,
    };
    let limit = size.min(MAX_INFLATED);
    let data = (at.len >= hs).then(|| at.skip(hs))?;
    let out = crate::formats::compress::inflate(b.bytes(data), method, limit).ok()?;
    (out.len() as u64 <= limit).then_some(out)
}

/// The most bytes a compressed debug section is inflated to for reading
/// (the bound on a derived space).
const MAX_INFLATED: u64 = 256 << 20;

/// What reading `.debug_line` (at `[a, a+l)` of the byte space being
/// built, the section `s`) needs: its string sections (in the same byte
/// space when `here`, else copies), its relocations in an object file, and
/// where the code at an address is. `b` builds the file's space.
fn line_ctx(b: &Builder<'_>, elf: &Arc<Elf>, s: &Sec, (a, l): (u64, u64), here: bool) -> line::Ctx {
    let find = |name: &str| {
        let x = elf.secs.iter().find(|x| plain_name(&x.name) == name)?;
        let gnu = elf
            .data(x)
            .and_then(|at| gnu_compressed(b, x, at))
            .is_some();
        if !gnu && x.flags & constants::SHF_COMPRESSED == 0 {
            let at = elf.data(x)?;
            if here {
                return Some(line::Strings::At(at.offset, at.len));
            }
            // Read from the inflated `.debug_line`: in the file's bytes
            // where the ELF is the file.
            if b.space() == FILE {
                return Some(line::Strings::File(at.offset, at.len));
            }
        }
        section_bytes(b, elf, x).map(|v| line::Strings::Own(v.into()))
    };
    let relocs = relocations_in(b, elf, s)
        .into_iter()
        .map(|r| (r.0 as u64, r.1, r.2))
        .collect();
    let e = elf.clone();
    let relocatable = super::symbols::relocatable(elf);
    let code_at: line::CodeAt = Arc::new(move |sec: Option<u32>, addr: u64| {
        if relocatable {
            let s = e.sec(sec?.into())?;
            let code = e.data(s)?;
            (addr < code.len).then_some(code.offset + addr)
        } else {
            e.addr_to_abs(addr)
        }
    });
    line::Ctx {
        e: elf.e,
        at: a,
        len: l,
        line_str: find(".debug_line_str").unwrap_or_default(),
        str: find(".debug_str").unwrap_or_default(),
        relocs,
        code_at,
    }
}

/// Lists the line programs of `.debug_line` (the section `s` at `at`)
/// under `id`, built when opened.
pub(super) fn lines(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) -> bool {
    if s.flags & constants::SHF_COMPRESSED != 0 {
        return false;
    }
    let (elf, s) = (elf.clone(), s.clone());
    line::units(b, id, at.len, move |b| {
        Arc::new(line_ctx(b, &elf, &s, (at.offset, at.len), true))
    })
}

/// What the inflated bytes of a compressed debug section are read with:
/// its strings, relocations, symbols and addresses, which live in the
/// file's byte space and so are gathered before the inflated space is
/// built.
pub(super) enum Inflated {
    /// `.debug_info`: the other debug sections, and its inflated length.
    Info(Arc<Sources>, u64),
    Line(Arc<line::Ctx>),
    Frame(Arc<frame::Ctx>),
    Lists(Arc<lists::Ctx>, Arc<Sources>),
}

/// For a compressed debug section `s` whose bytes inflate to `len`, what
/// they are read with (made while the file's space is being built), or
/// `None` when it is not a section read here: [`inflated_list`] then
/// lists it.
pub(super) fn inflated(b: &Builder<'_>, elf: &Arc<Elf>, s: &Sec, len: u64) -> Option<Inflated> {
    let name = plain_name(&s.name);
    if name == ".debug_info" {
        return Some(Inflated::Info(Arc::new(sources(b, elf, true)), len));
    }
    if name == ".debug_line" {
        return Some(Inflated::Line(Arc::new(line_ctx(
            b,
            elf,
            s,
            (0, len),
            false,
        ))));
    }
    if name == ".debug_frame" && frames_read(elf) {
        return Some(Inflated::Frame(Arc::new(frame_ctx(b, elf, s, (0, len)))));
    }
    let kind = list_kind(&name)?;
    Some(Inflated::Lists(
        Arc::new(lists_ctx(b, elf, s, kind, (0, len))),
        Arc::new(sources(b, elf, true)),
    ))
}

/// Lists a compressed debug section under `id`, the root of its inflated
/// bytes, with what [`inflated`] made; built when opened.
pub(super) fn inflated_list(b: &mut Builder<'_>, id: NodeId, ctx: Inflated) -> bool {
    match ctx {
        Inflated::Info(src, len) => {
            if len == 0 {
                return false;
            }
            b.lazy(
                id,
                Arc::new(move |b: &mut Builder<'_>, id| {
                    let info = b.span(0, len);
                    let debug = Arc::new(Debug::open(b, &src, Some(info)));
                    list(b, id, debug, info);
                }),
            );
            true
        }
        Inflated::Line(c) => line::units(b, id, c.len, move |_| c.clone()),
        Inflated::Frame(c) => frame::entries(b, id, c.len, move |_| c.clone()),
        Inflated::Lists(c, src) => lists::section(b, id, c.len, move |b| {
            let debug = Debug::open(b, &src, None);
            Arc::new(with_units(b, &debug, &c))
        }),
    }
}

/// The rows of every line program of the ELF, for the source lines of
/// its instructions (empty where it has no `.debug_line`).
pub(super) fn line_table(b: &Builder<'_>, elf: &Arc<Elf>) -> Lines {
    let Some(s) = elf
        .secs
        .iter()
        .find(|s| plain_name(&s.name) == ".debug_line")
    else {
        return Lines::default();
    };
    let Some(at) = elf.data(s) else {
        return Lines::default();
    };
    if s.flags & constants::SHF_COMPRESSED == 0 && gnu_compressed(b, s, at).is_none() {
        let ctx = line_ctx(b, elf, s, (at.offset, at.len), true);
        return Lines::read(b.data(), b.file_data(), &ctx);
    }
    let Some(bytes) = section_bytes(b, elf, s) else {
        return Lines::default();
    };
    let ctx = line_ctx(b, elf, s, (0, bytes.len() as u64), false);
    Lines::read(&bytes, b.file_data(), &ctx)
}

/// What reading `.eh_frame` or `.debug_frame` (the section `s` at
/// `[a, a+l)`) needs: its relocations in an object file, and where the
/// code at an address is and which function it is in.
///
/// A relocatable cubin's call frames are read as they are, as
/// llvm-dwarfdump reads them: NVIDIA's relocations of `.debug_frame` set
/// an FDE's range from its function's size (a type no document names), and
/// in the cubins for sm_100 and later they point at CIEs where the section
/// has none (their addends are those of `.nv.merc.debug_frame`).
fn frame_ctx(b: &Builder<'_>, elf: &Arc<Elf>, s: &Sec, (a, l): (u64, u64)) -> frame::Ctx {
    let relocs = if elf.machine == constants::EM_CUDA {
        Vec::new()
    } else {
        relocations_in(b, elf, s)
            .into_iter()
            .map(|r| (r.0 as u64, r.1, r.2))
            .collect()
    };
    let names = Arc::new(super::shared::Names::read(b, elf));
    let relocatable = super::symbols::relocatable(elf);
    let code: frame::Code = Arc::new(move |sec: Option<u32>, addr: u64| {
        if relocatable && sec.is_none() {
            return (None, None);
        }
        let r = names.resolve(sec.unwrap_or(0), addr);
        (r.at, r.label)
    });
    frame::Ctx {
        e: elf.e,
        at: a,
        len: l,
        addr: s.addr,
        eh: s.name == ".eh_frame",
        word: if elf.is64 { 8 } else { 4 },
        machine: elf.machine,
        relocs,
        relocatable,
        code,
        expr: expression(elf),
    }
}

/// Lists the CIEs and FDEs of `.eh_frame` or `.debug_frame` (the section
/// `s` at `at`) under `id`, built when opened.
pub(super) fn frames(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) -> bool {
    if s.flags & constants::SHF_COMPRESSED != 0
        || !matches!(s.name.as_str(), ".eh_frame" | ".debug_frame")
        || !frames_read(elf)
    {
        return false;
    }
    let (elf, s) = (elf.clone(), s.clone());
    frame::entries(b, id, at.len, move |b| {
        Arc::new(frame_ctx(b, &elf, &s, (at.offset, at.len)))
    })
}

/// Whether the call frames of `elf` are read: those of the machines whose
/// registers llvm-dwarfdump names (scripts/dwarf-regs.py lists them, AMDGPU
/// among them); CUDA's `.debug_frame` stays bytes.
fn frames_read(elf: &Elf) -> bool {
    frame::named_machine(elf.machine)
}

/// Lists `.eh_frame_hdr` (the section `s` at `at`) under `id`: its header
/// and its search table, each entry linked to its FDE.
pub(super) fn frame_header(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
) -> bool {
    if s.name != ".eh_frame_hdr" || super::symbols::relocatable(elf) {
        return false;
    }
    let (e, x) = (elf.e, elf.clone());
    let fde_at: frame::FdeAt = Arc::new(move |b: &Builder<'_>, addr: u64| {
        let o = x.addr_to_abs(addr)?;
        let end = line::unit_end(b, o, e, x.at.end())?;
        Some(b.span(o, end.checked_sub(o)?))
    });
    frame::header(
        b,
        id,
        at,
        s.addr,
        elf.e,
        if elf.is64 { 8 } else { 4 },
        &fde_at,
    )
}

/// The decoder of DWARF expressions `.debug_info` uses, for the bytes of
/// an expression elsewhere (a call frame instruction's, a location list
/// entry's) and the address size.
fn expression(elf: &Elf) -> frame::Expr {
    let endian = gimli_endian(elf.e);
    let machine = elf.machine;
    Arc::new(move |bytes: &[u8], word: u8| {
        let encoding = gimli::Encoding {
            format: gimli::Format::Dwarf32,
            version: 4,
            address_size: word,
        };
        let r = RelocateReader::new(EndianSlice::new(bytes, endian), Relocs(&[]));
        entries::expression(gimli::Expression(r), encoding, machine)
    })
}

/// The addresses of `.debug_addr`'s first contribution, relocated, for
/// the list entries that name one by index.
fn first_addresses(b: &Builder<'_>, elf: &Elf) -> Vec<u64> {
    let Some(s) = elf.secs.iter().find(|s| s.name == ".debug_addr") else {
        return Vec::new();
    };
    let Some(sec) = elf
        .data(s)
        .filter(|_| s.flags & constants::SHF_COMPRESSED == 0)
    else {
        return Vec::new();
    };
    let relocs = relocations(b, elf, s);
    let (Some(len), Some(word)) = (b.read_u32(sec.offset, elf.e), b.read_u8(sec.offset + 6)) else {
        return Vec::new();
    };
    let word = u64::from(word);
    if len == 0xffff_ffff || !matches!(word, 4 | 8) {
        return Vec::new();
    }
    let end = (4 + u64::from(len)).min(sec.len);
    let mut out = Vec::new();
    let mut off = 8;
    while off + word <= end {
        let raw = crate::model::read_uint(b, sec.offset + off, word, elf.e).unwrap_or(0);
        let at = usize::try_from(off).unwrap_or(usize::MAX);
        out.push(Relocs(&relocs).at(at).unwrap_or(raw));
        off += word;
    }
    out
}

/// Lists the lists of `.debug_loclists`, `.debug_rnglists`, `.debug_loc`
/// or `.debug_ranges` (the section `s` at `at`) under `id`, built when
/// opened.
pub(super) fn lists(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) -> bool {
    let Some(kind) = list_kind(&s.name) else {
        return false;
    };
    if s.flags & constants::SHF_COMPRESSED != 0 {
        return false;
    }
    let (elf, s) = (elf.clone(), s.clone());
    lists::section(b, id, at.len, move |b| {
        let debug = Debug::open(b, &sources(b, &elf, false), None);
        let ctx = lists_ctx(b, &elf, &s, kind, (at.offset, at.len));
        Arc::new(with_units(b, &debug, &ctx))
    })
}

/// The kind of list section named `name`.
fn list_kind(name: &str) -> Option<lists::Kind> {
    Some(match name {
        ".debug_loclists" => lists::Kind::LocLists,
        ".debug_rnglists" => lists::Kind::RngLists,
        ".debug_loc" => lists::Kind::Loc,
        ".debug_ranges" => lists::Kind::Ranges,
        _ => return None,
    })
}

/// What reading the lists of section `s` (`kind`, at `[a, a+l)` of the
/// byte space being built) needs.
fn lists_ctx(
    b: &Builder<'_>,
    elf: &Elf,
    s: &Sec,
    kind: lists::Kind,
    (a, l): (u64, u64),
) -> lists::Ctx {
    lists::Ctx {
        e: elf.e,
        kind,
        at: a,
        len: l,
        word: if elf.is64 { 8 } else { 4 },
        relocs: relocations(b, elf, s)
            .into_iter()
            .map(|r| (r.0 as u64, r.1))
            .collect(),
        addrs: first_addresses(b, elf),
        expr: expression(elf),
        bases: Vec::new(),
        views: Vec::new(),
        addr_words: Vec::new(),
        addr_word: 0,
    }
}

/// `ctx` with what the units of `.debug_info` (read through `debug`) say
/// of the lists they use: each unit's base address and address base, by
/// the offset of each list one of its entries names; and `.debug_addr`'s
/// addresses, relocated.
fn with_units(b: &Builder<'_>, debug: &Debug, ctx: &lists::Ctx) -> lists::Ctx {
    let mut out = ctx.clone();
    (out.bases, out.views) = list_bases(b, debug, ctx.kind);
    let d = debug.bytes(b, SectionId::DebugAddr);
    // The address size of the first contribution's header (DWARF 5), else
    // of the ELF.
    let version = crate::model::read::uint_at(d, 4, 2, ctx.e);
    let w = match d.get(6) {
        Some(&w) if version == Some(5) && matches!(w, 4 | 8) => w,
        _ => ctx.word,
    };
    let w = u64::from(w);
    let mut off = 0;
    while off + w <= d.len() as u64 {
        let raw = crate::model::read::uint_at(d, off, w, ctx.e).unwrap_or(0);
        out.addr_words
            .push(debug.relocated(SectionId::DebugAddr, off).unwrap_or(raw));
        off += w;
    }
    out.addr_word = w;
    out
}

/// For each list of `kind` an entry's attribute names: its offset in the
/// section, and its unit's base address and address base; sorted. With
/// them, for location lists, where gcc's location views are that an
/// entry's `DW_AT_GNU_locviews` names, and the offset of the list they
/// are for (its `DW_AT_location`); sorted.
fn list_bases(
    b: &Builder<'_>,
    debug: &Debug,
    kind: lists::Kind,
) -> (Vec<(u64, lists::Base)>, lists::Views) {
    use gimli::AttributeValue as A;
    use lists::Kind as K;
    let mut out = Vec::new();
    let mut views = Vec::new();
    let Some(dwarf) = debug.dwarf(b) else {
        return (out, views);
    };
    let loc = matches!(kind, K::LocLists | K::Loc);
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok((unit, _, _)) = entries::read_unit(b, debug, &dwarf, header) else {
            continue;
        };
        let v5 = unit.header.version() >= 5;
        let base = lists::Base {
            low_pc: unit.low_pc,
            addr_base: unit.addr_base.0 as u64,
        };
        let mut es = unit.entries();
        while let Ok(Some(e)) = es.next_dfs() {
            let (mut view, mut location) = (None, None);
            for a in e.attrs() {
                let value = a.value();
                if let (true, gimli::DW_AT_GNU_locviews, A::SecOffset(o)) = (loc, a.name(), &value)
                {
                    view = Some(*o as u64);
                    continue;
                }
                let at = match value {
                    A::LocationListsRef(o) if kind == if v5 { K::LocLists } else { K::Loc } => o.0,
                    A::RangeListsRef(o) if kind == if v5 { K::RngLists } else { K::Ranges } => o.0,
                    A::DebugLocListsIndex(x) if kind == K::LocLists => {
                        match dwarf.locations_offset(&unit, x) {
                            Ok(o) => o.0,
                            Err(_) => continue,
                        }
                    }
                    A::DebugRngListsIndex(x) if kind == K::RngLists => {
                        match dwarf.ranges_offset(&unit, x) {
                            Ok(o) => o.0,
                            Err(_) => continue,
                        }
                    }
                    _ => continue,
                };
                if a.name() == gimli::DW_AT_location {
                    location = Some(at as u64);
                }
                out.push((at as u64, base));
            }
            if let Some(v) = view {
                views.push((v, location));
            }
        }
    }
    out.sort_by_key(|x| x.0);
    out.dedup_by_key(|x| x.0);
    views.sort_by_key(|x| x.0);
    views.dedup_by_key(|x| x.0);
    (out, views)
}
