//! What reading the debug sections of an ELF needs, declared apart from
//! the sections' readers so that each reader depends on it and not on the
//! others: where each debug section is ([`Sources`], gathered while the
//! ELF's byte space is built), the relocations an object file applies to
//! them, and [`Debug`], which the nodes built later keep to read units,
//! their entries and the tables they share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gimli::{EndianSlice, RelocateReader, RunTimeEndian, SectionId};

use super::super::compressed::compressed_data;
use super::super::{constants, Elf, Sec};
use crate::model::{Builder, Endian, Fields, SpaceId, Span, FILE};

/// Relocations of a debug section beyond this many are not applied.
const MAX_RELOCS: u64 = 1 << 22;

/// The relocations of one debug section of an object file, as gimli asks
/// for them: the offset of a field in the section, and the value the
/// linker would put there (symbol value plus addend); sorted by offset.
#[derive(Clone, Copy, Debug)]
pub(super) struct Relocs<'m>(pub(super) &'m [(usize, u64)]);

impl Relocs<'_> {
    pub(super) fn at(&self, offset: usize) -> Option<u64> {
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

pub(super) type Reader<'a, 'm> = RelocateReader<EndianSlice<'a, RunTimeEndian>, Relocs<'m>>;

/// What the RELA sections of an object file put into section `target`:
/// field offset and value (symbol value plus addend), sorted. REL entries
/// keep their addend in the field, which is read as it is. RISC-V writes
/// the difference of two labels (a function's length, say) as a pair of
/// relocations at one field, one that adds and one that subtracts: they
/// are applied in turn, from zero, at the field's width.
pub(super) fn relocations(b: &Builder<'_>, elf: &Elf, target: &Sec) -> Vec<(usize, u64)> {
    relocations_in(b, elf, target)
        .into_iter()
        .map(|r| (r.0, r.1))
        .collect()
}

/// [`relocations`] with the section of each relocation's symbol (the last
/// one's where two set one field).
pub(super) fn relocations_in(b: &Builder<'_>, elf: &Elf, target: &Sec) -> Vec<(usize, u64, u32)> {
    let mut out: Vec<(usize, u64, u32)> = Vec::new();
    if !super::super::symbols::relocatable(elf) {
        return out;
    }
    for r in elf.secs.iter() {
        if !matches!(r.typ, constants::SHT_RELA | constants::SHT_CREL) || r.info != target.index {
            continue;
        }
        let Some(rels) = super::super::relocations::rels(b, elf, r, MAX_RELOCS) else {
            continue;
        };
        for rel in rels {
            let Some(sym) = super::super::relocations::rel_sym(b, elf, r.link, rel.sym) else {
                continue;
            };
            let (Ok(at), Some(addend)) = (usize::try_from(rel.offset), rel.addend) else {
                continue;
            };
            let v = sym.value.wrapping_add(addend);
            match pair(elf, rel.typ) {
                Some((op, bits)) => {
                    let mask = u64::MAX >> (64 - bits);
                    let old = match out.last_mut() {
                        Some(last) if last.0 == at => last,
                        _ => {
                            out.push((at, 0, sym.sec));
                            let Some(last) = out.last_mut() else { continue };
                            last
                        }
                    };
                    let x = match op {
                        Pair::Add => old.1.wrapping_add(v),
                        Pair::Sub => old.1.wrapping_sub(v),
                        Pair::Set => v,
                    };
                    old.1 = x & mask;
                }
                None => out.push((at, v, sym.sec)),
            }
        }
    }
    // The last relocation at a field sets it.
    out.reverse();
    out.sort_by_key(|r| r.0);
    out.dedup_by_key(|r| r.0);
    out
}

/// What one of RISC-V's relocations that compute a field in steps does.
#[derive(Clone, Copy)]
enum Pair {
    Add,
    Sub,
    Set,
}

/// For RISC-V's R_RISCV_ADD8..64 (33 to 36), R_RISCV_SUB8..64 (37 to 40),
/// R_RISCV_SUB6 (52), R_RISCV_SET6 (53) and R_RISCV_SET8..32 (54 to 56):
/// what the relocation does, and the field's width in bits (the low six
/// bits of a byte for SUB6 and SET6, where a call frame instruction keeps
/// its advance); LoongArch's likewise ([`loongarch_pair`]).
fn pair(elf: &Elf, typ: u64) -> Option<(Pair, u32)> {
    if elf.machine == EM_LOONGARCH {
        return loongarch_pair(typ);
    }
    if elf.machine != constants::EM_RISCV {
        return None;
    }
    match typ {
        33..=36 => Some((Pair::Add, 8 << (typ - 33))),
        37..=40 => Some((Pair::Sub, 8 << (typ - 37))),
        52 => Some((Pair::Sub, 6)),
        53 => Some((Pair::Set, 6)),
        54..=56 => Some((Pair::Set, 8 << (typ - 54))),
        _ => None,
    }
}

/// `EM_LOONGARCH`.
const EM_LOONGARCH: u16 = 258;

/// LoongArch's pairs, as RISC-V's: R_LARCH_ADD8..64 (47, 48, 49 for 24
/// bits, 50, 51), R_LARCH_SUB8..64 (52 to 56), R_LARCH_ADD6 and SUB6
/// (105, 106).
fn loongarch_pair(typ: u64) -> Option<(Pair, u32)> {
    let bits = |k: u64| [8, 16, 24, 32, 64].get(k as usize).copied();
    match typ {
        47..=51 => Some((Pair::Add, bits(typ - 47)?)),
        52..=56 => Some((Pair::Sub, bits(typ - 52)?)),
        105 => Some((Pair::Add, 6)),
        106 => Some((Pair::Sub, 6)),
        _ => None,
    }
}

/// Where one debug section is, when the units that read it are read:
/// where links to it go (`at`), and its bytes when they are not in the
/// byte space being read (`own`: a compressed section's inflated bytes,
/// or a copy of the file's).
struct Place {
    id: SectionId,
    at: Span,
    own: Option<crate::model::space::SpaceBytes>,
}

/// How a debug section's bytes are found.
#[derive(Clone)]
enum Src {
    /// At these bytes of the ELF's byte space, read from there.
    At(Span),
    /// Copied from the ELF's byte space at this offset, for units read in
    /// another space.
    Copy(crate::model::space::SpaceBytes, u64),
    /// Inflated from these bytes of the ELF's space by this method: the
    /// space [`Builder::derive`] made of them.
    Inflated(Span, &'static str),
}

/// What reading the debug sections of an ELF needs, gathered while its
/// byte space is built: where each section is and, in an object file, the
/// relocations of those that hold offsets into others.
pub(crate) struct Sources {
    /// The ELF's byte space.
    space: SpaceId,
    e: Endian,
    machine: u16,
    dwo: bool,
    list: Vec<(SectionId, Src)>,
    relocs: Vec<(SectionId, Vec<(usize, u64)>)>,
}

/// The debug sections of `elf` (whose space `b` builds), each as [`Src`]:
/// for units read in an inflated space (`copy`), those read from the ELF
/// are copies, unless the ELF is the file, whose bytes any space reads.
pub(super) fn sources(b: &Builder<'_>, elf: &Elf, copy: bool) -> Sources {
    let mut list: Vec<(SectionId, Src)> = Vec::new();
    let mut relocs = Vec::new();
    // A .dwo file names its sections `.debug_info.dwo` and so on.
    let dwo = elf.secs.iter().any(|s| s.name == ".debug_info.dwo")
        && !elf
            .secs
            .iter()
            .any(|s| plain_name(&s.name) == ".debug_info");
    for s in elf.secs.iter() {
        let name = plain_name(&s.name);
        let named = |id: &&SectionId| match dwo {
            true => id.dwo_name() == Some(name.as_ref()),
            false => id.name() == name,
        };
        let Some(id) = DEBUG_SECTIONS.iter().find(named) else {
            continue;
        };
        if list.iter().any(|x| x.0 == *id) {
            continue;
        }
        let Some(at) = elf.data(s) else {
            continue;
        };
        let src = if let Some((from, method)) = compressed_data(b, elf, s, at) {
            Src::Inflated(from, method)
        } else if copy && b.space() != FILE {
            Src::Copy(Arc::new(b.bytes(at).to_vec()), at.offset)
        } else {
            Src::At(at)
        };
        list.push((*id, src));
        if matches!(
            id,
            SectionId::DebugInfo | SectionId::DebugStrOffsets | SectionId::DebugAddr
        ) {
            relocs.push((*id, relocations(b, elf, s)));
        }
    }
    Sources {
        space: b.space(),
        e: elf.e,
        machine: elf.machine,
        dwo,
        list,
        relocs,
    }
}

/// What reading the debug sections needs, kept for the nodes built later:
/// where each section is, and in an object file the relocations of the
/// sections that hold offsets into others.
pub(super) struct Debug {
    endian: RunTimeEndian,
    pub(super) e: Endian,
    /// `e_machine`, for the names of registers.
    pub(super) machine: u16,
    /// The byte space the units are read in.
    pub(super) here: SpaceId,
    /// `.debug_info`: offset and length in that space.
    pub(super) info: (u64, u64),
    /// Whether `.debug_info` is in that space (else it is one of
    /// `sections`).
    info_here: bool,
    /// Whether the sections are a split unit's (`.debug_info.dwo` and the
    /// other `.dwo` sections of a `.dwo` file).
    dwo: bool,
    /// The other debug sections the ELF has.
    sections: Vec<Place>,
    relocs: Vec<(SectionId, Vec<(usize, u64)>)>,
    /// The abbreviation tables read so far, by offset in `.debug_abbrev`
    /// (or why one does not read): many units may share one.
    tables: Mutex<HashMap<u64, Result<Arc<Table>, String>>>,
}

impl Debug {
    /// [`Debug::new`] for the ELF's `.debug_info`, wherever it is.
    pub(super) fn for_elf(b: &Builder<'_>, elf: &Elf) -> Debug {
        let info = elf
            .secs
            .iter()
            .find(|s| s.name == SectionId::DebugInfo.name())
            .and_then(|s| elf.data(s))
            .unwrap_or_default();
        Debug::new(b, elf, info)
    }

    /// What the units of the `.debug_info` at `info` read.
    pub(super) fn new(b: &Builder<'_>, elf: &Elf, info: Span) -> Debug {
        Debug::open(b, &sources(b, elf, false), Some(info))
    }

    /// The sections `src` lists, read by units whose `.debug_info` is at
    /// `info` of the space `b` builds.
    pub(super) fn open(b: &Builder<'_>, src: &Sources, info: Option<Span>) -> Debug {
        let mut sections = Vec::new();
        for (id, s) in &src.list {
            let place = match s {
                Src::At(at) => Place {
                    id: *id,
                    at: *at,
                    own: None,
                },
                Src::Copy(v, x) => Place {
                    id: *id,
                    at: Span::new(src.space, *x, v.len() as u64),
                    own: Some(v.clone()),
                },
                Src::Inflated(from, method) => {
                    let origin = crate::model::space::Origin {
                        from: *from,
                        method,
                    };
                    let Some((space, v)) = b.derived(origin) else {
                        continue;
                    };
                    Place {
                        id: *id,
                        at: Span::new(space, 0, v.len() as u64),
                        own: Some(v),
                    }
                }
            };
            sections.push(place);
        }
        let far = sections
            .iter()
            .find(|p| p.id == SectionId::DebugInfo)
            .map(|p| (p.at.offset, p.at.len));
        Debug {
            endian: gimli_endian(src.e),
            e: src.e,
            machine: src.machine,
            here: b.space(),
            info: info.map(|s| (s.offset, s.len)).or(far).unwrap_or((0, 0)),
            info_here: info.is_some(),
            dwo: src.dwo,
            sections,
            relocs: src.relocs.clone(),
            tables: Mutex::default(),
        }
    }

    /// Where section `id` is.
    pub(super) fn place(&self, id: SectionId) -> Option<Span> {
        if id == SectionId::DebugInfo && self.info_here {
            return Some(Span::new(self.here, self.info.0, self.info.1));
        }
        self.sections.iter().find(|s| s.id == id).map(|s| s.at)
    }

    /// The bytes of section `id` (`b` builds the space the units are read
    /// in); empty where the ELF has none.
    pub(super) fn bytes<'a: 'm, 'm>(&'m self, b: &Builder<'a>, id: SectionId) -> &'m [u8] {
        if id == SectionId::DebugInfo && self.info_here {
            return b.slice(self.info.0, self.info.1);
        }
        match self.sections.iter().find(|s| s.id == id) {
            Some(Place { own: Some(v), .. }) => v,
            // A section of the file read from an inflated space.
            Some(p) if p.at.space != self.here && p.at.space == FILE => {
                let f = b.file_data();
                let end = p.at.end().min(f.len() as u64);
                f.get(p.at.offset.min(end) as usize..end as usize)
                    .unwrap_or_default()
            }
            Some(p) => b.bytes(p.at),
            None => &[],
        }
    }

    /// Where section `id` is in the space the units are read in: offset
    /// and length (for the tables read only where no section is
    /// compressed).
    pub(super) fn section(&self, id: SectionId) -> Option<(u64, u64)> {
        self.place(id)
            .filter(|p| p.space == self.here)
            .map(|p| (p.offset, p.len))
    }

    /// The abbreviation table at `offset`, read by `read` the first time
    /// it is asked for.
    pub(super) fn table(
        &self,
        offset: u64,
        read: impl FnOnce() -> Result<Table, String>,
    ) -> Result<Arc<Table>, String> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables
            .entry(offset)
            .or_insert_with(|| read().map(Arc::new))
            .clone()
    }

    /// What a relocation puts at offset `at` of section `id`, if one does.
    pub(super) fn relocated(&self, id: SectionId, at: u64) -> Option<u64> {
        let r = self.relocs.iter().find(|r| r.0 == id)?;
        Relocs(&r.1).at(usize::try_from(at).ok()?)
    }

    /// Section `id` as gimli reads it, over the bytes `b` builds from.
    fn reader<'a: 'm, 'm>(&'m self, b: &Builder<'a>, id: SectionId) -> Reader<'m, 'm> {
        let bytes = self.bytes(b, id);
        let r = self
            .relocs
            .iter()
            .find(|r| r.0 == id)
            .map_or(&[][..], |r| &r.1[..]);
        RelocateReader::new(EndianSlice::new(bytes, self.endian), Relocs(r))
    }

    /// The sections an entry's strings are read from, and `.debug_info`.
    pub(super) fn strings<'a: 'm, 'm>(&'m self, b: &Builder<'a>) -> Strings<'m> {
        Strings {
            info: self.reader(b, SectionId::DebugInfo).into(),
            str: self.reader(b, SectionId::DebugStr).into(),
            line_str: self.reader(b, SectionId::DebugLineStr).into(),
            offsets: self.reader(b, SectionId::DebugStrOffsets).into(),
        }
    }

    /// The sections as gimli reads them, over the bytes `b` builds from.
    pub(super) fn dwarf<'a: 'm, 'm>(
        &'m self,
        b: &Builder<'a>,
    ) -> Option<gimli::Dwarf<Reader<'m, 'm>>> {
        let load =
            |id: SectionId| -> Result<Reader<'m, 'm>, gimli::Error> { Ok(self.reader(b, id)) };
        let mut dwarf = gimli::Dwarf::load(load).ok()?;
        if self.dwo {
            dwarf.file_type = gimli::DwarfFileType::Dwo;
        }
        Some(dwarf)
    }
}

/// `.debug_info` and the sections its strings are in: what an entry's
/// name is read from, for the many entries each named when listed, where
/// making the whole [`gimli::Dwarf`] for each would cost more than the
/// reading.
pub(super) struct Strings<'m> {
    pub(super) info: gimli::DebugInfo<Reader<'m, 'm>>,
    str: gimli::DebugStr<Reader<'m, 'm>>,
    line_str: gimli::DebugLineStr<Reader<'m, 'm>>,
    offsets: gimli::DebugStrOffsets<Reader<'m, 'm>>,
}

impl<'m> Strings<'m> {
    /// The string attribute value `v` of an entry of `unit` names, as
    /// [`gimli::Dwarf::attr_string`] reads it (in these sections only).
    pub(super) fn attr_string(
        &self,
        unit: &gimli::Unit<Reader<'m, 'm>>,
        v: gimli::AttributeValue<Reader<'m, 'm>>,
    ) -> Option<Reader<'m, 'm>> {
        use gimli::AttributeValue as A;
        match v {
            A::String(s) => Some(s),
            A::DebugStrRef(o) => self.str.get_str(o).ok(),
            A::DebugLineStrRef(o) => self.line_str.get_str(o).ok(),
            A::DebugStrOffsetsIndex(i) => {
                let base = unit.str_offsets_base;
                let o = self.offsets.get_str_offset(unit.header.format(), base, i);
                self.str.get_str(o.ok()?).ok()
            }
            _ => None,
        }
    }
}

/// The sections a unit's entries may refer to.
const DEBUG_SECTIONS: [SectionId; 11] = [
    SectionId::DebugInfo,
    SectionId::DebugAbbrev,
    SectionId::DebugStr,
    SectionId::DebugLineStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugAddr,
    SectionId::DebugLine,
    SectionId::DebugRngLists,
    SectionId::DebugLocLists,
    SectionId::DebugLoc,
    SectionId::DebugRanges,
];

/// The initial length of a unit or contribution, at `f`'s position: the
/// 64-bit escape (`dwarf64`) and an 8-byte `unit_length`, or a 4-byte one.
/// True for 64-bit DWARF.
pub(super) fn initial_length(f: &mut Fields<'_, '_>) -> bool {
    let dwarf64 = f.peek(f.at(), 4) == Some(0xffff_ffff);
    if dwarf64 {
        f.hex("dwarf64", 4);
        f.uint("unit_length", 8);
    } else {
        f.uint("unit_length", 4);
    }
    dwarf64
}

/// The name a debug section has uncompressed: `.debug_line` for
/// `.zdebug_line`.
pub(super) fn plain_name(name: &str) -> std::borrow::Cow<'_, str> {
    match name.strip_prefix(".z") {
        Some(rest) if rest.starts_with("debug") => format!(".{rest}").into(),
        _ => name.into(),
    }
}

/// Byte order `e` as gimli names it.
pub(super) fn gimli_endian(e: Endian) -> RunTimeEndian {
    match e {
        Endian::Little => RunTimeEndian::Little,
        Endian::Big => RunTimeEndian::Big,
    }
}

/// One abbreviation table, read once for all the units that use it.
pub(super) struct Table {
    pub(super) abbrevs: Arc<gimli::Abbreviations>,
    /// Its declarations: code, and where each is in `.debug_abbrev`'s
    /// byte space (offset, length); sorted by code.
    pub(super) decls: Vec<(u64, u64, u64)>,
    /// That space.
    pub(super) space: crate::model::SpaceId,
}
