//! What every part of the ELF reader shares, declared here so that the
//! parts depend on it and not on one another: the file as read ([`Elf`],
//! its sections [`Sec`]), its strings, the checks every table makes, the
//! data its parts gather once per file (kept in [`Elf`], filled where
//! they are read), and the hooks through which other formats plug in.
//!
//! The hooks: a machine's own conventions ([`Vendor`]: names of its
//! section, note and relocation types, what its sections and notes hold,
//! and a last step once every section is built), and sections that another
//! format defines whatever the machine ([`SectionHook`]: offload binaries,
//! host wrappers of device code, offload entry tables). The formats
//! registry hands the reader its [`Hooks`]; a module that plugs in uses the
//! ELF reader, never the other way round.

use std::sync::Arc;

use super::constants;
use super::records::either;
use crate::disasm::Target;
use crate::model::{text, Builder, Endian, Fact, NodeId, Span};

// ---- the file as read ----

/// One section header, as read. Offsets are relative to the ELF's start,
/// except `hdr`, the absolute offset of the header itself.
#[derive(Clone, Debug, Default)]
pub struct Sec {
    pub index: u32,
    pub name: String,
    pub name_off: u32,
    pub typ: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
    pub hdr: u64,
}

/// What the parts of an ELF need to know of the whole.
#[derive(Default)]
pub struct Elf {
    /// What this file's machine adds to the generic reader.
    pub vendor: Option<&'static dyn Vendor>,
    /// Decoders of sections other formats define.
    pub section_hooks: &'static [&'static SectionHook],
    /// The ELF's bytes in the space being built.
    pub at: Span,
    pub is64: bool,
    pub e: Endian,
    pub etype: u16,
    pub machine: u16,
    /// e_flags, EI_OSABI and EI_ABIVERSION.
    pub flags: u32,
    pub osabi: u8,
    pub abiversion: u8,
    /// The target its code is decoded for: set only when the reader asks
    /// for instructions and an engine decodes this machine.
    pub code: Option<Arc<Target>>,
    pub shentsize: u64,
    /// The section name table's index (0: none).
    pub shstrndx: u32,
    pub secs: Vec<Sec>,
    /// (address, size, offset relative to the ELF) of the mapped bytes,
    /// sorted by address.
    pub(super) map: Vec<(u64, u64, u64)>,
    /// The symbol table's index and the symbols to show in section
    /// contents, gathered when a section first asks.
    pub(super) placed: std::sync::OnceLock<(u32, Placed)>,
    /// The symbols decoded code names its branch targets by, gathered
    /// when the first instruction is decoded.
    pub(super) names: std::sync::OnceLock<Names>,
    /// The rows of its line programs, read when the first instruction is
    /// decoded.
    pub(super) lines: std::sync::OnceLock<super::dwarf::Lines>,
    /// (symbol table, its SHT_SYMTAB_SHNDX section) pairs.
    pub(super) shndx_tables: Vec<(u32, u32)>,
}

/// What the parse needs of a program header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seg {
    pub typ: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
}

/// A string found in a string table.
pub struct Str {
    pub text: String,
    /// Where it is (the NUL included).
    pub at: Span,
}

impl Elf {
    /// The name of section type `t`: the machine's own, else the generic one.
    pub fn shtype(&self, t: u32) -> Option<&'static str> {
        self.vendor
            .and_then(|v| v.section_type(t))
            .or_else(|| constants::shtype(t, self.machine))
    }

    /// The name of relocation type `t`.
    pub fn reloc_name(&self, t: u32) -> Option<&'static str> {
        match self.vendor.and_then(|v| v.reloc_name(t)) {
            Some(n) => Some(n),
            None => constants::reloc(self.machine, t),
        }
    }

    pub fn abs(&self, rel: u64) -> u64 {
        self.at.offset.saturating_add(rel)
    }

    pub fn sec(&self, i: u64) -> Option<&Sec> {
        self.secs.get(usize::try_from(i).ok()?)
    }

    /// A section's bytes, if it has some in the file.
    pub fn data(&self, s: &Sec) -> Option<Span> {
        if s.typ == constants::SHT_NOBITS || s.typ == constants::SHT_NULL {
            return None;
        }
        let end = s.offset.checked_add(s.size)?;
        (end <= self.at.len).then(|| self.at.at(self.abs(s.offset), s.size))
    }

    /// The absolute file offset of virtual address `addr`, if a section or
    /// segment holds it.
    pub fn addr_to_abs(&self, addr: u64) -> Option<u64> {
        let i = self.map.partition_point(|&(a, _, _)| a <= addr);
        let mut k = i;
        // Sections may nest (e.g. TLS); look back over a few candidates.
        while k > 0 && i - k < 8 {
            k -= 1;
            let (a, size, off) = *self.map.get(k)?;
            // A section's file offset is the file's word: one near the
            // top of the range maps no address.
            if addr >= a && addr - a < size {
                return off.checked_add(addr - a).map(|o| self.abs(o));
            }
        }
        None
    }

    /// Bytes of an address-sized word.
    pub fn word(&self) -> u64 {
        if self.is64 {
            8
        } else {
            4
        }
    }

    pub fn sym_size(&self) -> u64 {
        either!(self.is64, sym32 | sym64 as S => S::SIZE)
    }

    /// Bytes of a section header.
    pub fn shdr_size(&self) -> u64 {
        either!(self.is64, shdr32 | shdr64 as S => S::SIZE)
    }

    /// An address-sized word at `off`. (Symbol tables read it for every
    /// entry: a plain branch, not the size-generic reader.)
    pub fn read_word(&self, b: &Builder<'_>, off: u64) -> Option<u64> {
        if self.is64 {
            b.read_u64(off, self.e)
        } else {
            b.read_u32(off, self.e).map(u64::from)
        }
    }

    /// The string at index `idx` of string table section `sec`.
    pub fn string(&self, b: &Builder<'_>, sec: u32, idx: u64) -> Result<Str, String> {
        let (bytes, at) = self.string_bytes(b, sec, idx)?;
        Ok(Str {
            text: text::from_bytes(bytes),
            at,
        })
    }

    /// The bytes of the string at index `idx` of string table section
    /// `sec` (without its NUL), with where it is (the NUL included).
    pub fn string_bytes<'a>(
        &self,
        b: &Builder<'a>,
        sec: u32,
        idx: u64,
    ) -> Result<(&'a [u8], Span), String> {
        let s = self
            .sec(sec.into())
            .ok_or_else(|| format!("string table {sec} does not exist"))?;
        let table = self
            .data(s)
            .ok_or_else(|| format!("string table [{sec}] has no bytes in the file"))?;
        string_bytes_in(b, table, idx).map_err(|e| e.message(&format!("[{sec}] {}", s.name)))
    }

    /// The section index of symbol `i` of table `symtab` whose st_shndx
    /// is SHN_XINDEX: its entry in the table's SHT_SYMTAB_SHNDX section.
    pub(crate) fn xindex(&self, b: &Builder<'_>, symtab: u32, i: u64) -> Option<u32> {
        let &(_, t) = self.shndx_tables.iter().find(|&&(s, _)| s == symtab)?;
        let table = self.data(self.sec(t.into())?)?;
        let o = i.checked_mul(4)?;
        if o.checked_add(4)? > table.len {
            return None;
        }
        b.read_u32(table.offset + o, self.e)
    }

    /// The index of the first SHT_SYMTAB section.
    pub fn symtab(&self) -> Option<u32> {
        self.secs
            .iter()
            .find(|s| s.typ == constants::SHT_SYMTAB)
            .map(|s| s.index)
    }

    /// Name of the section with index `i`, for values, borrowed when it
    /// has one.
    pub fn sec_name_cow(&self, i: u64) -> std::borrow::Cow<'_, str> {
        match self.sec(i) {
            Some(s) if !s.name.is_empty() => std::borrow::Cow::Borrowed(&s.name),
            _ => std::borrow::Cow::Owned(self.sec_name(i)),
        }
    }

    /// Name of the section with index `i`, for values.
    pub fn sec_name(&self, i: u64) -> String {
        match self.sec(i) {
            Some(s) if !s.name.is_empty() => s.name.clone(),
            Some(_) => format!("[{i}]"),
            None => format!("[{i}] (no such section)"),
        }
    }
}

/// The string at index `idx` of the string table at `table`, called
/// `what` in messages.
pub fn string_in(b: &Builder<'_>, table: Span, idx: u64, what: &str) -> Result<Str, String> {
    match string_bytes_in(b, table, idx) {
        Ok((bytes, at)) => Ok(Str {
            text: text::from_bytes(bytes),
            at,
        }),
        Err(e) => Err(e.message(what)),
    }
}

/// Why a string could not be read from a string table.
enum StrErr {
    Past { idx: u64, size: u64 },
    Open { idx: u64 },
}

impl StrErr {
    fn message(&self, what: &str) -> String {
        match *self {
            StrErr::Past { idx, size } => {
                format!("string index {idx} is past the end of {what} ({size} bytes)")
            }
            StrErr::Open { idx } => {
                format!("string at index {idx} of {what} is not NUL-terminated")
            }
        }
    }
}

/// The bytes of the string at index `idx` of the table at `table`
/// (without its NUL), and where it is with the NUL.
fn string_bytes_in<'a>(b: &Builder<'a>, table: Span, idx: u64) -> Result<(&'a [u8], Span), StrErr> {
    if idx >= table.len {
        return Err(StrErr::Past {
            idx,
            size: table.len,
        });
    }
    let start = table.offset + idx;
    match b.read_cstr(start, table.end()) {
        Some((bytes, true)) => Ok((bytes, table.at(start, bytes.len() as u64 + 1))),
        _ => Err(StrErr::Open { idx }),
    }
}

// ---- what every table checks ----

pub(super) fn label(s: &Sec) -> String {
    if s.name.is_empty() {
        format!("[{}]", s.index)
    } else {
        format!("[{}] {}", s.index, s.name)
    }
}

pub(super) fn entsize_check(b: &mut Builder<'_>, elf: &Elf, s: &Sec, want: u64, l: u64) {
    let at = either!(elf.is64, shdr32 | shdr64 as S => S::AT.sh_entsize);
    if s.entsize != want {
        let m = format!(
            "section [{}] {}: entsize mismatch: sh_entsize is {}, a {} entry is {want} bytes",
            s.index,
            s.name,
            s.entsize,
            elf.shtype(s.typ).unwrap_or("table")
        );
        if s.entsize == 0 {
            at.warn(b, s.hdr, m);
        } else {
            at.error(b, s.hdr, m);
        }
    }
    if want > 0 && !l.is_multiple_of(want) {
        b.warn(
            s.hdr,
            4,
            format!(
                "section [{}] {}: size {l} is not a multiple of the entry size {want}",
                s.index, s.name
            ),
        );
    }
}

// ---- gathered once per file ----

/// Per section index, the (offset in the section, size, symbol index) of
/// the symbols to place, sorted by offset. Made once per ELF.
pub(super) type Placed = Vec<(u32, u64, u64, u64)>;

/// One section as targets see it.
#[derive(Default)]
pub(super) struct Section {
    pub(super) addr: u64,
    pub(super) size: u64,
    pub(super) alloc: bool,
    /// Where its bytes start, if it has some.
    pub(super) at: Option<u64>,
    /// (value, name) of its symbols, sorted by value then name.
    pub(super) syms: Vec<(u64, String)>,
    /// (offset, `TYPE symbol+addend`) of the relocations that patch it,
    /// sorted by offset (a relocatable file's).
    pub(super) relocs: Vec<(u64, String)>,
}

/// The symbols of an ELF's sections, for naming addresses in its code.
#[derive(Default)]
pub(super) struct Names {
    /// In a relocatable file, addresses are offsets in their section, and
    /// a branch reaches only its own section.
    pub(super) relocatable: bool,
    /// By section index.
    pub(super) secs: Vec<Section>,
}

// ---- the hooks ----

/// What the formats registry plugs into the ELF reader.
pub struct Hooks {
    /// The vendor of a file, by e_machine and EI_OSABI.
    pub vendor: fn(machine: u16, osabi: u8) -> Option<&'static dyn Vendor>,
    /// Decoders of sections other formats define, tried in order before
    /// the generic decoding.
    pub sections: &'static [&'static SectionHook],
}

/// No vendor and no section hooks: the generic reader alone.
pub static NO_HOOKS: Hooks = Hooks {
    vendor: |_, _| None,
    sections: &[],
};

/// A decoder of sections another format defines (by type or name).
pub struct SectionHook {
    /// True for a section this hook takes.
    pub claims: fn(&Sec) -> bool,
    /// Decodes section `s`, whose bytes are the span, under its node;
    /// false where the generic decoding is to go on (a hook that only
    /// records facts).
    pub decode: fn(&mut Builder<'_>, NodeId, &Elf, &Sec, Span) -> bool,
}

/// What one machine adds to the ELF reader. Every method has a default
/// that adds nothing.
pub trait Vendor: Sync {
    /// The name of section type `t`, where it is this machine's own.
    fn section_type(&self, _t: u32) -> Option<&'static str> {
        None
    }
    /// True when `sh_info` of a section of type `t` is a symbol index.
    fn info_is_symbol(&self, _t: u32) -> bool {
        false
    }
    /// The name of relocation type `t`.
    fn reloc_name(&self, _t: u32) -> Option<&'static str> {
        None
    }
    /// The bytes a relocation of type `typ` at `r_offset` patches, as an
    /// offset into its symbol's section and a length, where this machine
    /// counts `r_offset` from the start of the symbol's section (aiebu's
    /// control code); `None` for the usual reading (the section `sh_info`
    /// names in a relocatable file, else an address).
    fn reloc_patch(&self, _typ: u64, _r_offset: u64) -> Option<(u64, u64)> {
        None
    }
    /// Whether notes of `owner` are this machine's.
    fn owns_note(&self, _owner: &[u8]) -> bool {
        false
    }
    /// The name of note type `t` of an owner this machine owns.
    fn note_type(&self, _owner: &[u8], _t: u32) -> Option<&'static str> {
        None
    }
    /// Decodes the description `at` of a note this machine owns.
    fn note_desc(
        &self,
        b: &mut Builder<'_>,
        parent: NodeId,
        _owner: &[u8],
        _typ: u32,
        at: Span,
        _e: Endian,
    ) {
        b.raw(parent, "desc", at.offset, at.len);
    }
    /// True when an all-zero note section of this name is expected (space
    /// reserved for the driver), so it is reported as information.
    fn zero_notes_expected(&self, _secname: &str) -> bool {
        false
    }
    /// What `EI_ABIVERSION` `v` stands for under OS ABI `osabi`, where
    /// this machine gives it a meaning.
    fn abi_version(&self, _osabi: u8, _v: u8) -> Option<String> {
        None
    }
    /// What this machine's code is, for consumers: device code, with the
    /// target its header names where it does (from `flags`, e_flags, and
    /// `abiversion`, EI_ABIVERSION); `None` for host code.
    fn device_code(&self, _flags: u32, _abiversion: u8) -> Option<Fact> {
        None
    }
    /// What the code of this file is decoded as (triple, processor and
    /// features), where the machine's own flags or notes say it.
    fn code_target(&self, _b: &Builder<'_>, _elf: &Elf) -> Option<Target> {
        None
    }
    /// A fresh decoder for one file's sections.
    fn sections(&self) -> Box<dyn Sections> {
        Box::new(NoSections)
    }
}

/// Decodes one file's machine-specific sections, keeping what it needs to
/// link them once all are built.
pub trait Sections {
    /// Decodes section `s`, whose bytes are `at`, under its node `id`;
    /// false if it is not one this machine knows.
    fn section(&mut self, b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) -> bool;
    /// Runs once every section is built: `built` pairs section indexes with
    /// their nodes.
    fn finish(&mut self, _b: &mut Builder<'_>, _elf: &Elf, _built: &[(usize, NodeId)]) {}
}

struct NoSections;

impl Sections for NoSections {
    fn section(
        &mut self,
        _b: &mut Builder<'_>,
        _id: NodeId,
        _elf: &Elf,
        _s: &Sec,
        _at: Span,
    ) -> bool {
        false
    }
}
