//! The hooks through which other formats plug into the generic ELF reader:
//! a machine's own conventions ([`Vendor`]: names of its section, note and
//! relocation types, what its sections and notes hold, and a last step once
//! every section is built), and sections that another format defines
//! whatever the machine ([`SectionHook`]: offload binaries, host wrappers of
//! device code, offload entry tables). The formats registry hands the
//! reader its [`Hooks`]; a module that plugs in uses the ELF reader, never
//! the other way round.

use super::{Elf, Sec};
use crate::disasm::Target;
use crate::model::{Builder, Endian, Fact, NodeId};

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
    /// Decodes section `s` at `[a, a+l)` under its node; false where the
    /// generic decoding is to go on (a hook that only records facts).
    pub decode: fn(&mut Builder<'_>, NodeId, &Elf, &Sec, u64, u64) -> bool,
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
    /// Decodes the description `[d, d+n)` of a note this machine owns.
    #[allow(clippy::too_many_arguments)]
    fn note_desc(
        &self,
        b: &mut Builder<'_>,
        parent: NodeId,
        _owner: &[u8],
        _typ: u32,
        d: u64,
        n: u64,
        _e: Endian,
    ) {
        b.raw(parent, "desc", d, n);
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
    /// Decodes section `s` at `[a, a+l)` under its node `id`; false if it
    /// is not one this machine knows.
    #[allow(clippy::too_many_arguments)]
    fn section(
        &mut self,
        b: &mut Builder<'_>,
        id: NodeId,
        elf: &Elf,
        s: &Sec,
        a: u64,
        l: u64,
    ) -> bool;
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
        _a: u64,
        _l: u64,
    ) -> bool {
        false
    }
}
