//! ELF32 and ELF64, both byte orders. What a machine adds of its own (Intel
//! GT's zebin sections and notes, say) comes in through [`Vendor`].
//!
//! The tree: `header` (e_ident and the rest), `program headers`,
//! `section headers`, then `sections` with each section's contents decoded
//! by its type. Symbol, relocation and dynamic tables are lazy arrays, so a
//! file with millions of symbols opens at once; names are looked up in their
//! string tables only when an entry is built.

mod code;
mod compressed;
mod constants;
mod contents;
mod crel;
mod dwarf;
mod dynamic;
mod hash;
mod notes;
mod placed;
mod records;
mod reloc_names;
mod reloc_tables;
mod relocations;
mod shared;
mod strings;
mod symbolize;
mod symbols;
mod versions;

pub use shared::string_in;
use shared::Seg;
pub use shared::{Elf, Hooks, Sec, SectionHook, Sections, Str, Vendor, NO_HOOKS};

pub(crate) use notes::owned as owned_notes;
pub(crate) use relocations::{rel_sym, rels};
pub(crate) use strings::table as strings_node;
pub(crate) use symbols::{relocatable, sym_and_entry, sym_bytes, Sym};

use std::sync::Arc;

use crate::model::facts::Mapping;
use crate::model::record::At;
use crate::model::{named, num, Builder, Endian, Fact, Fields, NodeId, Raw, Span, Value};
/// The layouts of the headers, for formats that find their way in an ELF
/// image on their own (an XE sector's entry point).
pub(crate) use records::{ehdr32, ehdr64, ident, phdr32, phdr64};
use records::{either, widen, Ident};

pub use constants::{
    ELFCLASS32, ELFCLASS64, ELFDATA2MSB, EM_AMDGPU, EM_CUDA, EM_INTELGT, EM_XCORE, PT_LOAD,
    SHT_DYNSYM, SHT_LLVM_OFFLOADING,
};

/// The AMDGPU processor an `EF_AMDGPU_MACH` value names.
pub fn amdgpu_mach_name(mach: u32) -> Option<&'static str> {
    reloc_names::lookup(reloc_names::AMDGPU_MACH, mach)
}

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(b"\x7fELF")
}

/// The target to decode the ELF's code for, when it has code and an
/// engine decodes it; where none does, one info says what to install.
fn code_target(b: &mut Builder<'_>, elf: &Elf) -> Option<Arc<crate::disasm::Target>> {
    let has_code = elf.secs.iter().any(|s| {
        s.flags & constants::SHF_EXECINSTR != 0 && elf.data(s).is_some_and(|at| !at.is_empty())
    });
    if !has_code {
        return None;
    }
    let t = code::target(b, elf)?;
    match crate::disasm::with_engine(&t, |_| ()) {
        Ok(()) => Some(Arc::new(t)),
        Err(m) => {
            ehdr64::AT.e_machine.info(b, elf.at.offset, m.message(&t));
            None
        }
    }
}

/// The header fields that the rest of the parse needs.
struct Hdr {
    is64: bool,
    e: Endian,
    etype: u16,
    machine: u16,
    flags: u32,
    osabi: u8,
    abiversion: u8,
    phoff: u64,
    phentsize: u64,
    phnum: u64,
    shoff: u64,
    shentsize: u64,
    shnum: u64,
    shstrndx: u64,
    entry: u64,
    phoff_node: NodeId,
    shoff_node: NodeId,
    shnum_node: NodeId,
    shstrndx_node: NodeId,
    phnum_node: NodeId,
    entry_node: NodeId,
}

/// Parses the ELF at `at` under `parent`, with what `hooks` plug in.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span, hooks: &'static Hooks) {
    let Some(h) = header(b, parent, at, hooks) else {
        return;
    };
    let mut elf = Elf {
        at,
        is64: h.is64,
        e: h.e,
        etype: h.etype,
        machine: h.machine,
        flags: h.flags,
        osabi: h.osabi,
        abiversion: h.abiversion,
        shentsize: h.shentsize,
        vendor: (hooks.vendor)(h.machine, h.osabi),
        section_hooks: hooks.sections,
        ..Elf::default()
    };
    read_sections(b, &mut elf, &h);
    if b.options().code && !b.skips_records() {
        elf.code = code_target(b, &elf);
    }
    elf.shndx_tables = elf
        .secs
        .iter()
        .filter(|s| s.typ == constants::SHT_SYMTAB_SHNDX)
        .map(|s| (s.link, s.index))
        .collect();
    let phdrs = read_segments(b, &elf, &h);
    build_map(&mut elf, &phdrs);
    // A relocatable object's sections all start at address 0: it has no
    // addresses to go to yet.
    if h.etype != constants::ET_REL && !elf.map.is_empty() {
        let map = elf
            .map
            .iter()
            .map(|&(addr, size, offset)| Mapping {
                addr,
                size,
                offset: elf.abs(offset),
            })
            .collect();
        b.fact(parent, Fact::Addresses(map));
    }
    if let Some(a) = elf.addr_to_abs(h.entry) {
        if h.entry != 0 {
            b.link(h.entry_node, b.span(a, 1));
        }
    }
    let elf = Arc::new(elf);
    if !phdrs.is_empty() {
        program_headers(b, parent, &elf, &h, phdrs.len() as u64);
    }
    if !elf.secs.is_empty() {
        // In file order: the contents first when some lie before the
        // section header table (where compilers put it, at the end).
        let table = elf.abs(h.shoff);
        let before = elf.secs.iter().skip(1).any(|s| {
            elf.data(s)
                .is_some_and(|at| !at.is_empty() && at.offset < table)
        });
        if before {
            contents::sections(b, parent, &elf);
            section_headers(b, parent, &elf, &h);
        } else {
            section_headers(b, parent, &elf, &h);
            contents::sections(b, parent, &elf);
        }
    } else {
        contents::segments(b, parent, &elf, &phdrs);
    }
}

/// The file header's fields the parse needs, of either class.
struct Ehdr {
    e_type: u16,
    e_entry: u64,
    e_phoff: u64,
    e_shoff: u64,
    e_flags: u32,
    e_ehsize: u16,
    e_phentsize: u16,
    e_phnum: u16,
    e_shentsize: u16,
    e_shnum: u16,
    e_shstrndx: u16,
}

/// The nodes of the file header's fields that are linked or given a value
/// later.
struct EhdrNodes {
    e_entry: Option<NodeId>,
    e_phoff: Option<NodeId>,
    e_shoff: Option<NodeId>,
    e_flags: Option<NodeId>,
    e_phnum: Option<NodeId>,
    e_shnum: Option<NodeId>,
    e_shstrndx: Option<NodeId>,
}

fn header(b: &mut Builder<'_>, parent: NodeId, at: Span, hooks: &'static Hooks) -> Option<Hdr> {
    if at.len < ident::SIZE {
        b.error(
            at.offset,
            at.len,
            format!(
                "ELF identification needs {} bytes, {} remain",
                ident::SIZE,
                at.len
            ),
        );
        return None;
    }
    let id: Ident = records::read(b, at.offset, Endian::Little)?;
    let (class, data) = (id.class, id.data);
    let is64 = match class {
        constants::ELFCLASS32 => false,
        constants::ELFCLASS64 => true,
        _ => {
            ident::AT.class.error(
                b,
                at.offset,
                format!("EI_CLASS {class} is neither ELFCLASS32 nor ELFCLASS64"),
            );
            false
        }
    };
    let e = match data {
        constants::ELFDATA2MSB => Endian::Big,
        constants::ELFDATA2LSB => Endian::Little,
        _ => {
            ident::AT.data.error(
                b,
                at.offset,
                format!("EI_DATA {data} is neither little- nor big-endian"),
            );
            Endian::Little
        }
    };
    let hsize = either!(is64, ehdr32 | ehdr64 as H => H::SIZE);
    let hdr = b.group(parent, "header", at.offset, hsize.min(at.len));
    // e_machine is at the same place in both classes.
    let machine = b
        .read_u16(ehdr64::AT.e_machine.of(at.offset), e)
        .unwrap_or(0);
    let vendor = e_ident(b, hdr, at.offset, e, &id, machine, hooks);
    let known = [constants::ELFCLASS32, constants::ELFCLASS64].contains(&class)
        && [constants::ELFDATA2LSB, constants::ELFDATA2MSB].contains(&data);
    if !known {
        return None;
    }
    if at.len < hsize {
        b.error(
            at.offset,
            at.len,
            format!("ELF header needs {hsize} bytes, {} remain", at.len),
        );
        return None;
    }
    let mut f = Fields::new(b, hdr, ehdr64::AT.e_type.of(at.offset), e);
    // The header's size was checked: every field is there.
    let (r, n) = either!(is64, ehdr32 | ehdr64 as H => {
        let n = H::Rec::show_part(&mut f, H::AT.e_type.off, H::SIZE);
        let r = records::read::<H::Rec>(f.builder(), at.offset, e).map(|r| {
            widen!(r => Ehdr {
                e_type, e_entry, e_phoff, e_shoff, e_flags, e_ehsize, e_phentsize,
                e_phnum, e_shentsize, e_shnum, e_shstrndx,
            })
        });
        let n = widen!(n => EhdrNodes {
            e_entry, e_phoff, e_shoff, e_flags, e_phnum, e_shnum, e_shstrndx,
        });
        (r?, n)
    });
    // e_flags may mean what the ABI version says (AMDGPU).
    let abi = id.abiversion;
    if let Some(node) = n.e_flags {
        b.set_value(node, constants::eflags(r.e_flags, machine, abi));
    }
    // What the code is for, as the machine's header says (`--targets`).
    if let Some(fact) = vendor.and_then(|v| v.device_code(r.e_flags, abi)) {
        b.fact(parent, fact);
    }
    if u64::from(r.e_ehsize) != hsize {
        either!(is64, ehdr32 | ehdr64 as H => H::AT.e_ehsize).warn(
            b,
            at.offset,
            format!("e_ehsize is {}, expected {hsize}", r.e_ehsize),
        );
    }
    Some(Hdr {
        is64,
        e,
        etype: r.e_type,
        machine,
        flags: r.e_flags,
        osabi: id.osabi,
        abiversion: id.abiversion,
        phoff: r.e_phoff,
        phentsize: r.e_phentsize.into(),
        phnum: r.e_phnum.into(),
        shoff: r.e_shoff,
        shentsize: r.e_shentsize.into(),
        shnum: r.e_shnum.into(),
        shstrndx: r.e_shstrndx.into(),
        entry: r.e_entry,
        phoff_node: n.e_phoff.unwrap_or(hdr),
        shoff_node: n.e_shoff.unwrap_or(hdr),
        shnum_node: n.e_shnum.unwrap_or(hdr),
        shstrndx_node: n.e_shstrndx.unwrap_or(hdr),
        phnum_node: n.e_phnum.unwrap_or(hdr),
        entry_node: n.e_entry.unwrap_or(hdr),
    })
}

/// The 16 identification bytes `id` of the ELF header at `off`, under the
/// header's node; returns the vendor the machine and OS/ABI name.
fn e_ident(
    b: &mut Builder<'_>,
    hdr: NodeId,
    off: u64,
    e: Endian,
    id: &Ident,
    machine: u16,
    hooks: &'static Hooks,
) -> Option<&'static dyn Vendor> {
    let g = b.group(hdr, "e_ident", off, ident::SIZE);
    let n = Ident::show(&mut Fields::new(b, g, off, e));
    if id.version != 1 {
        ident::AT.version.warn(
            b,
            off,
            format!("EI_VERSION is {}, not 1 (EV_CURRENT)", id.version),
        );
    }
    let osabi = id.osabi;
    if let Some(node) = n.osabi {
        b.set_value(node, named(osabi.into(), constants::osabi(osabi, machine)));
    }
    // The machine may name the ABI version (AMDGPU: the code object version).
    let abiv = id.abiversion;
    let vendor = (hooks.vendor)(machine, osabi);
    if let Some((node, name)) = n
        .abiversion
        .zip(vendor.and_then(|x| x.abi_version(osabi, abiv)))
    {
        b.set_value(
            node,
            named(abiv.into(), Some(&name)).with_width(ident::AT.abiversion.size as u8),
        );
    }
    vendor
}

/// Checks a table's place in the file; returns how many entries fit. A
/// table that does not fit is an error at `anchor`, the header field that
/// places it.
fn table_fits(
    b: &mut Builder<'_>,
    elf: &Elf,
    what: &str,
    off: u64,
    count: u64,
    stride: u64,
    anchor: At,
) -> u64 {
    if count == 0 || stride == 0 {
        return 0;
    }
    let room = elf.at.len.saturating_sub(off);
    let need = count as u128 * stride as u128;
    if off >= elf.at.len || need > room as u128 {
        let fit = room / stride;
        anchor.error(
            b,
            elf.at.offset,
            format!(
                "{what} [0x{off:x}, {count} × {stride} bytes] lies outside the file ({} bytes); {fit} entries fit",
                elf.at.len
            ),
        );
        return fit;
    }
    count
}

fn read_sections(b: &mut Builder<'_>, elf: &mut Elf, h: &Hdr) {
    if h.shoff == 0 {
        if h.shnum != 0 {
            b.warn(
                elf.abs(0),
                0,
                format!("e_shnum is {} but e_shoff is 0", h.shnum),
            );
        }
        return;
    }
    let need = elf.shdr_size();
    if h.shentsize < need {
        either!(h.is64, ehdr32 | ehdr64 as H => H::AT.e_shentsize).error(
            b,
            elf.at.offset,
            format!(
                "e_shentsize is {}, a section header needs {need}",
                h.shentsize
            ),
        );
        return;
    }
    let base = elf.abs(h.shoff);
    let e = h.e;
    let read = |b: &Builder<'_>, i: u64| -> Option<Sec> {
        let o = base.checked_add(i.checked_mul(h.shentsize)?)?;
        either!(h.is64, shdr32 | shdr64 as S => {
            records::read::<S::Rec>(b, o, e).map(|r| Sec {
                index: i as u32,
                name: String::new(),
                name_off: r.sh_name,
                typ: r.sh_type,
                flags: r.sh_flags.into(),
                addr: r.sh_addr.into(),
                offset: r.sh_offset.into(),
                size: r.sh_size.into(),
                link: r.sh_link,
                info: r.sh_info,
                align: r.sh_addralign.into(),
                entsize: r.sh_entsize.into(),
                hdr: o,
            })
        })
    };
    let mut shnum = h.shnum;
    let mut shstrndx = h.shstrndx;
    if h.shoff < elf.at.len {
        if let Some(s0) = read(b, 0) {
            if shnum == 0 && s0.size != 0 {
                shnum = s0.size;
                b.set_value(
                    h.shnum_node,
                    format!("0 (the count, {}, is in section 0's sh_size)", num(shnum)),
                );
            }
            if shstrndx == 0xffff {
                shstrndx = s0.link.into();
                b.set_value(
                    h.shstrndx_node,
                    format!("0xffff (SHN_XINDEX: section 0's sh_link, {shstrndx})"),
                );
            }
        }
    }
    let n = table_fits(
        b,
        elf,
        "section header table",
        h.shoff,
        shnum,
        h.shentsize,
        either!(h.is64, ehdr32 | ehdr64 as H => H::AT.e_shoff),
    );
    if n > 0 {
        b.link(h.shoff_node, b.span(base, n * h.shentsize));
    }
    let mut secs = Vec::with_capacity(n as usize);
    for i in 0..n {
        match read(b, i) {
            Some(s) => secs.push(s),
            None => break,
        }
    }
    elf.secs = secs;
    if shstrndx < elf.secs.len() as u64 {
        elf.shstrndx = shstrndx as u32;
    }
    section_names(b, elf, h, shstrndx);
    // Sections outside the file, and other header checks.
    let count = elf.secs.len() as u64;
    for s in &elf.secs {
        if s.index == 0 || s.typ == constants::SHT_NOBITS || s.typ == constants::SHT_NULL {
            continue;
        }
        let end = s.offset.checked_add(s.size);
        if end.is_none_or(|e| e > elf.at.len) {
            b.error(
                s.hdr,
                h.shentsize.min(need),
                format!(
                    "section [{}] {} [0x{:x}+0x{:x}] lies outside the file ({} bytes)",
                    s.index, s.name, s.offset, s.size, elf.at.len
                ),
            );
        }
        if u64::from(s.link) >= count && s.link != 0 {
            either!(h.is64, shdr32 | shdr64 as S => S::AT.sh_link).error(
                b,
                s.hdr,
                format!(
                    "section [{}] {}: sh_link {} is not a section",
                    s.index, s.name, s.link
                ),
            );
        }
    }
}

/// Checks that e_shstrndx (`shstrndx`, after SHN_XINDEX) names a string
/// table, links it, and gives each section its name.
fn section_names(b: &mut Builder<'_>, elf: &mut Elf, h: &Hdr, shstrndx: u64) {
    if shstrndx != 0 {
        match elf.sec(shstrndx) {
            Some(s) if s.typ == constants::SHT_STRTAB => {
                if let Some(at) = elf.data(s) {
                    b.link(h.shstrndx_node, at);
                }
            }
            Some(s) => {
                let t = s.typ;
                either!(h.is64, ehdr32 | ehdr64 as H => H::AT.e_shstrndx).error(
                    b,
                    elf.at.offset,
                    format!(
                        "e_shstrndx {shstrndx} names a section of type 0x{t:x}, not SHT_STRTAB"
                    ),
                );
            }
            None => {
                either!(h.is64, ehdr32 | ehdr64 as H => H::AT.e_shstrndx).error(
                    b,
                    elf.at.offset,
                    format!(
                        "e_shstrndx {shstrndx} is not a section ({} sections)",
                        elf.secs.len()
                    ),
                );
            }
        }
    }
    let mut names = Vec::with_capacity(elf.secs.len());
    for s in &elf.secs {
        if elf.shstrndx == 0 || (s.index == 0 && s.name_off == 0) {
            names.push(String::new());
            continue;
        }
        match elf.string(b, elf.shstrndx, s.name_off.into()) {
            Ok(st) => names.push(st.text),
            Err(m) => {
                b.error(
                    s.hdr,
                    4,
                    format!("section [{}] sh_name: bad string index: {m}", s.index),
                );
                names.push(String::new());
            }
        }
    }
    for (s, n) in elf.secs.iter_mut().zip(names) {
        s.name = n;
    }
}

fn read_segments(b: &mut Builder<'_>, elf: &Elf, h: &Hdr) -> Vec<Seg> {
    let mut phnum = h.phnum;
    if phnum == 0xffff {
        if let Some(s0) = elf.secs.first() {
            phnum = s0.info.into();
            b.set_value(
                h.phnum_node,
                format!("0xffff (PN_XNUM: section 0's sh_info, {phnum})"),
            );
        }
    }
    if h.phoff == 0 || phnum == 0 {
        return Vec::new();
    }
    let need = either!(h.is64, phdr32 | phdr64 as P => P::SIZE);
    if h.phentsize < need {
        either!(h.is64, ehdr32 | ehdr64 as H => H::AT.e_phentsize).error(
            b,
            elf.at.offset,
            format!(
                "e_phentsize is {}, a program header needs {need}",
                h.phentsize
            ),
        );
        return Vec::new();
    }
    let n = table_fits(
        b,
        elf,
        "program header table",
        h.phoff,
        phnum,
        h.phentsize,
        either!(h.is64, ehdr32 | ehdr64 as H => H::AT.e_phoff),
    );
    let base = elf.abs(h.phoff);
    if n > 0 {
        b.link(h.phoff_node, b.span(base, n * h.phentsize));
    }
    let mut v = Vec::with_capacity(n as usize);
    for i in 0..n {
        let o = base + i * h.phentsize;
        let Some(ph) = read_phdr(b, elf, o) else {
            break;
        };
        if ph.typ != 0
            && ph
                .offset
                .checked_add(ph.filesz)
                .is_none_or(|e| e > elf.at.len)
        {
            b.error(
                o,
                need,
                format!(
                    "segment [{i}] {} [0x{:x}+0x{:x}] lies outside the file ({} bytes)",
                    constants::ptype(ph.typ, elf.machine).unwrap_or("?"),
                    ph.offset,
                    ph.filesz,
                    elf.at.len
                ),
            );
        }
        v.push(ph);
    }
    v
}

fn read_phdr(b: &Builder<'_>, elf: &Elf, o: u64) -> Option<Seg> {
    either!(elf.is64, phdr32 | phdr64 as P => {
        records::read::<P::Rec>(b, o, elf.e).map(|r| Seg {
            typ: r.p_type,
            offset: r.p_offset.into(),
            vaddr: r.p_vaddr.into(),
            filesz: r.p_filesz.into(),
        })
    })
}

fn build_map(elf: &mut Elf, phdrs: &[Seg]) {
    let mut map: Vec<(u64, u64, u64)> = elf
        .secs
        .iter()
        .filter(|s| {
            s.flags & constants::SHF_ALLOC != 0
                && s.typ != constants::SHT_NOBITS
                && s.size > 0
                && s.offset
                    .checked_add(s.size)
                    .is_some_and(|e| e <= elf.at.len)
        })
        .map(|s| (s.addr, s.size, s.offset))
        .collect();
    if map.is_empty() {
        map = phdrs
            .iter()
            .filter(|p| p.typ == constants::PT_LOAD && p.filesz > 0)
            .map(|p| (p.vaddr, p.filesz, p.offset))
            .collect();
    }
    map.sort_unstable();
    elf.map = map;
}

/// The node of a table of headers, without its entries where the tree is
/// read for nested formats only (they are records).
fn headers_only(
    b: &mut Builder<'_>,
    parent: NodeId,
    name: &str,
    off: u64,
    n: u64,
    size: u64,
) -> bool {
    if !b.skips_records() {
        return false;
    }
    let room = b.range(parent).end().saturating_sub(off);
    b.add(parent, name, off, n.saturating_mul(size).min(room), None);
    true
}

fn program_headers(b: &mut Builder<'_>, parent: NodeId, elf: &Arc<Elf>, h: &Hdr, n: u64) {
    if headers_only(
        b,
        parent,
        "program headers",
        elf.abs(h.phoff),
        n,
        h.phentsize,
    ) {
        return;
    }
    let el = elf.clone();
    let id = b.array(
        parent,
        "program headers",
        elf.abs(h.phoff),
        n,
        h.phentsize,
        Arc::new(move |b, p, i, o| phdr(b, p, &el, i, o)),
    );
    b.set_value(id, format!("{n} segments"));
}

fn phdr(b: &mut Builder<'_>, p: NodeId, elf: &Elf, i: u64, o: u64) {
    let size = either!(elf.is64, phdr32 | phdr64 as P => P::SIZE);
    // What the summary and the links need, read once, in either class.
    let (typ, flags, off, vaddr, filesz, memsz) = either!(elf.is64, phdr32 | phdr64 as P => {
        records::read::<P::Rec>(b, o, elf.e).map_or((0, 0, 0, 0, 0, 0), |r| {
            (
                r.p_type,
                r.p_flags,
                u64::from(r.p_offset),
                u64::from(r.p_vaddr),
                u64::from(r.p_filesz),
                u64::from(r.p_memsz),
            )
        })
    });
    let tname = constants::ptype(typ, elf.machine);
    let id = b.group(p, format!("[{i}] {}", tname.unwrap_or("?")), o, size);
    let mut f = Fields::new(b, id, o, elf.e);
    let (type_node, off_node) = either!(elf.is64, phdr32 | phdr64 as P => {
        let n = P::Rec::show(&mut f);
        (n.p_type, n.p_offset)
    });
    if let Some(n) = type_node {
        b.set_value(
            n,
            Value::named_hex(typ.into(), tname).with_width(phdr64::AT.p_type.size as u8),
        );
    }
    if let Some(off_node) =
        off_node.filter(|_| off.checked_add(filesz).is_some_and(|end| end <= elf.at.len))
    {
        b.link(off_node, b.span(elf.abs(off), filesz));
    }
    b.set_value(
        id,
        format!(
            "{} offset 0x{off:x} vaddr 0x{vaddr:x} filesz 0x{filesz:x} memsz 0x{memsz:x}",
            constants::pflags(flags)
        ),
    );
}

fn section_headers(b: &mut Builder<'_>, parent: NodeId, elf: &Arc<Elf>, h: &Hdr) {
    let n = elf.secs.len() as u64;
    if headers_only(
        b,
        parent,
        "section headers",
        elf.abs(h.shoff),
        n,
        h.shentsize,
    ) {
        return;
    }
    let el = elf.clone();
    let id = b.array(
        parent,
        "section headers",
        elf.abs(h.shoff),
        n,
        h.shentsize,
        Arc::new(move |b, p, i, o| shdr(b, p, &el, i, o)),
    );
    b.set_value(id, format!("{n} sections"));
}

fn shdr(b: &mut Builder<'_>, p: NodeId, elf: &Elf, i: u64, o: u64) {
    let Some(s) = elf.sec(i) else {
        return;
    };
    let size = elf.shdr_size();
    let tname = elf.shtype(s.typ);
    let label = if s.name.is_empty() {
        format!("[{i}]")
    } else {
        format!("[{i}] {}", s.name)
    };
    let id = b.group(p, label, o, size);
    b.set_value(
        id,
        format!(
            "{} offset 0x{:x} size 0x{:x}",
            tname.unwrap_or("unknown type"),
            s.offset,
            s.size
        ),
    );
    // The numbers were read into `s` already; the fields are read again
    // from the same bytes as they are shown, then given what they name.
    let mut f = Fields::new(b, id, o, elf.e);
    let n = either!(elf.is64, shdr32 | shdr64 as S => {
        let n = S::Rec::show(&mut f);
        ShdrNodes {
            name: n.sh_name,
            typ: n.sh_type,
            offset: n.sh_offset,
            size: n.sh_size,
            link: n.sh_link,
            info: n.sh_info,
        }
    });
    if let Some(node) = n.name.filter(|_| elf.shstrndx != 0) {
        if let Ok(st) = elf.string(b, elf.shstrndx, s.name_off.into()) {
            b.set_value(
                node,
                Value::StrAt {
                    v: s.name_off.into(),
                    s: st.text.into(),
                },
            );
            b.link(node, st.at);
        }
    }
    if let Some(node) = n.typ {
        b.set_value(node, Value::named_hex(s.typ.into(), tname));
    }
    if let Some(at) = elf.data(s) {
        for node in [n.offset, n.size].into_iter().flatten() {
            b.link(node, at);
        }
    }
    let to_section = |b: &mut Builder<'_>, node: Option<NodeId>, index: u32| {
        if let Some((node, t)) = node.zip(elf.sec(index.into())) {
            b.set_value(
                node,
                named(index.into(), Some(&elf.sec_name_cow(t.index.into()))),
            );
            b.link(node, b.span(t.hdr, elf.shentsize.min(size)));
        }
    };
    if s.link != 0 {
        to_section(b, n.link, s.link);
    }
    let info_is_sec = s.flags & constants::SHF_INFO_LINK != 0
        || (matches!(
            s.typ,
            constants::SHT_REL | constants::SHT_RELA | constants::SHT_CREL
        ) && s.info != 0);
    let Some(info) = n.info else {
        return;
    };
    if info_is_sec {
        to_section(b, Some(info), s.info);
    } else if s.typ == constants::SHT_GROUP || elf.vendor.is_some_and(|v| v.info_is_symbol(s.typ)) {
        // sh_info is a symbol index in the table sh_link names.
        if let Some(so) = symbols::sym_entry(elf, s.link, s.info.into()) {
            b.link(info, b.span(so, elf.sym_size()));
            b.set_value(info, Value::note(Raw::U(s.info.into()), "symbol"));
        }
    } else if matches!(s.typ, constants::SHT_SYMTAB | constants::SHT_DYNSYM) {
        b.set_value(
            info,
            Value::note(Raw::U(s.info.into()), "first non-local symbol"),
        );
    }
}

/// The nodes of a section header's fields that are given what they name.
struct ShdrNodes {
    name: Option<NodeId>,
    typ: Option<NodeId>,
    offset: Option<NodeId>,
    size: Option<NodeId>,
    link: Option<NodeId>,
    info: Option<NodeId>,
}

#[cfg(test)]
mod tests;
