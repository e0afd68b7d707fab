//! The ELF records, each declared once in its 32- and 64-bit forms: the
//! typed read (in the file's byte order, [`read`]), the field nodes and
//! the field offsets diagnostics point at. The byte order given here is
//! only the declaration's default: ELF records are read and shown in the
//! byte order EI_DATA names. Fields whose value needs more than the
//! number (a name from a string table, the machine) are shown as numbers
//! and given their value once it is known.

use compact_str::CompactString;

use super::constants;
use crate::model::record::{record, Record};
use crate::model::{num, Builder, Endian, Value};

/// The record of type `R` at `off` in byte order `e`, if all of it is in
/// the file.
pub(super) fn read<R: Record>(b: &Builder<'_>, off: u64, e: Endian) -> Option<R> {
    R::read_in(b.slice(off, R::SIZE), e).ok()
}

/// A field kept in the file as a plain number (no width shown).
fn plain(v: u64) -> Value {
    num(v)
}

fn magic(_: &[u8]) -> Value {
    "7f 45 4c 46 (\\x7fELF)".into()
}

fn ident_version(v: u64) -> Value {
    match v {
        1 => Value::named(1, Some("EV_CURRENT")),
        v => Value::note(crate::model::Raw::U(v), "not EV_CURRENT"),
    }
}

fn version(v: u64) -> Value {
    match v {
        1 => Value::named(1, Some("EV_CURRENT")),
        v => num(v),
    }
}

/// An e_ehsize that is not `expected` says so.
fn ehsize(v: u64, expected: u64) -> Value {
    if v == expected {
        num(v)
    } else {
        format!("{} (expected {expected})", num(v)).into()
    }
}

/// Declares a record whose ELF32 and ELF64 forms differ only in the width
/// of their address-sized fields, typed `W`: once, as the two record
/// modules (`W` is `u32` in the first, `u64` in the second).
macro_rules! classes {
    (
        $(#[$m:meta])*
        mod $group:ident: $m32:ident: $n32:ident, $m64:ident: $n64:ident {
            $($fields:tt)*
        }
    ) => {
        mod $group {
            pub mod w32 {
                use crate::formats::elf::records::*;
                /// An address-sized field.
                type W = u32;
                record! {
                    $(#[$m])*
                    pub mod $m32: $n32 (Endian::Little) { $($fields)* }
                }
            }
            pub mod w64 {
                use crate::formats::elf::records::*;
                /// An address-sized field.
                type W = u64;
                record! {
                    $(#[$m])*
                    pub mod $m64: $n64 (Endian::Little) { $($fields)* }
                }
            }
        }
        pub(crate) use $group::w32::$m32;
        pub(crate) use $group::w64::$m64;
    };
}

record! {
    /// e_ident: the 16 bytes every ELF starts with.
    pub(crate) mod ident: Ident (Endian::Little) {
        mag: [u8; 4] = "EI_MAG", Show::Span(magic),
        class: u8 = "EI_CLASS", Show::Named(|v| constants::class(v as u8)),
        data: u8 = "EI_DATA", Show::Named(|v| constants::data(v as u8)),
        version: u8 = "EI_VERSION", Show::Value(ident_version),
        /// Named once the machine is known.
        osabi: u8 = "EI_OSABI", Show::Value(plain),
        /// Named by the machine's vendor, if it names it.
        abiversion: u8 = "EI_ABIVERSION", Show::Auto,
        pad: [u8; 7] = "EI_PAD", Show::Bytes,
    }
}

classes! {
    /// The file header.
    mod ehdr: ehdr32: Ehdr32, ehdr64: Ehdr64 {
        ident: [u8; 16] = "e_ident", Show::Hidden,
        e_type: u16 = "e_type", Show::Value(|v| constants::etype(v as u16)),
        e_machine: u16 = "e_machine", Show::Named(|v| constants::machine(v as u16)),
        e_version: u32 = "e_version", Show::Value(version),
        e_entry: W = "e_entry", Show::Auto,
        e_phoff: W = "e_phoff", Show::Auto,
        e_shoff: W = "e_shoff", Show::Auto,
        /// Named once the machine and ABI are known.
        e_flags: u32 = "e_flags", Show::Auto,
        e_ehsize: u16 = "e_ehsize", Show::Value(|v| ehsize(v, SIZE)),
        e_phentsize: u16 = "e_phentsize", Show::Auto,
        e_phnum: u16 = "e_phnum", Show::Auto,
        e_shentsize: u16 = "e_shentsize", Show::Auto,
        e_shnum: u16 = "e_shnum", Show::Auto,
        e_shstrndx: u16 = "e_shstrndx", Show::Auto,
    }
}

classes! {
    /// A section header.
    mod shdr: shdr32: Shdr32, shdr64: Shdr64 {
        /// Given its string once read.
        sh_name: u32 = "sh_name", Show::Auto,
        /// Named by the machine once read.
        sh_type: u32 = "sh_type", Show::Hex,
        sh_flags: W = "sh_flags", Show::Value(constants::shflags),
        sh_addr: W = "sh_addr", Show::Auto,
        sh_offset: W = "sh_offset", Show::Auto,
        sh_size: W = "sh_size", Show::Auto,
        sh_link: u32 = "sh_link", Show::Auto,
        sh_info: u32 = "sh_info", Show::Auto,
        sh_addralign: W = "sh_addralign", Show::Auto,
        sh_entsize: W = "sh_entsize", Show::Auto,
    }
}

record! {
    /// An ELF32 program header (p_flags after p_memsz).
    pub(crate) mod phdr32: Phdr32 (Endian::Little) {
        /// Named by the machine once read.
        p_type: u32 = "p_type", Show::Auto,
        p_offset: u32 = "p_offset", Show::Auto,
        p_vaddr: u32 = "p_vaddr", Show::Auto,
        p_paddr: u32 = "p_paddr", Show::Auto,
        p_filesz: u32 = "p_filesz", Show::Auto,
        p_memsz: u32 = "p_memsz", Show::Auto,
        p_flags: u32 = "p_flags", Show::Value(|v| constants::pflags_value(v as u32)),
        p_align: u32 = "p_align", Show::Auto,
    }
}

record! {
    /// An ELF64 program header (p_flags after p_type).
    pub(crate) mod phdr64: Phdr64 (Endian::Little) {
        /// Named by the machine once read.
        p_type: u32 = "p_type", Show::Auto,
        p_flags: u32 = "p_flags", Show::Value(|v| constants::pflags_value(v as u32)),
        p_offset: u64 = "p_offset", Show::Auto,
        p_vaddr: u64 = "p_vaddr", Show::Auto,
        p_paddr: u64 = "p_paddr", Show::Auto,
        p_filesz: u64 = "p_filesz", Show::Auto,
        p_memsz: u64 = "p_memsz", Show::Auto,
        p_align: u64 = "p_align", Show::Auto,
    }
}

/// st_info: its type and binding named (`0x12 (GLOBAL FUNC)`).
fn st_info(v: u64) -> Value {
    // The 256 names, made once: a symbol table names millions.
    static NAMES: std::sync::OnceLock<Vec<CompactString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..=255u8)
            .map(|i| {
                let mut s = CompactString::const_new(constants::sym_bind(i >> 4));
                s.push(' ');
                s.push_str(constants::sym_type(i & 0xf));
                s
            })
            .collect()
    });
    Value::Named {
        v,
        radix: crate::model::Radix::Hex,
        name: names.get(v as usize).cloned(),
    }
}

/// st_other: the symbol's visibility named.
fn st_other(v: u64) -> Value {
    Value::Named {
        v,
        radix: crate::model::Radix::Dec,
        name: Some(CompactString::const_new(constants::sym_vis(v as u8))),
    }
}

record! {
    /// An ELF32 symbol.
    pub(super) mod sym32: Sym32 (Endian::Little) {
        /// Given its string once read.
        st_name: u32 = "st_name", Show::Auto,
        st_value: u32 = "st_value", Show::Auto,
        st_size: u32 = "st_size", Show::Auto,
        st_info: u8 = "st_info", Show::Value(st_info),
        st_other: u8 = "st_other", Show::Value(st_other),
        /// Given its section's name once read.
        st_shndx: u16 = "st_shndx", Show::Auto,
    }
}

record! {
    /// An ELF64 symbol.
    pub(super) mod sym64: Sym64 (Endian::Little) {
        /// Given its string once read.
        st_name: u32 = "st_name", Show::Auto,
        st_info: u8 = "st_info", Show::Value(st_info),
        st_other: u8 = "st_other", Show::Value(st_other),
        /// Given its section's name once read.
        st_shndx: u16 = "st_shndx", Show::Auto,
        st_value: u64 = "st_value", Show::Auto,
        st_size: u64 = "st_size", Show::Auto,
    }
}

classes! {
    /// A relocation with its addend (REL is its first two fields).
    mod rela: rela32: Rela32, rela64: Rela64 {
        r_offset: W = "r_offset", Show::Value(plain),
        /// The symbol and type, shown as its parts.
        r_info: W = "r_info", Show::Hidden,
        /// Signed, kept as the word stored.
        r_addend: W = "r_addend", Show::Int,
    }
}

record! {
    /// An ELF64 MIPS relocation's r_info: a symbol index in the file's
    /// byte order, then `r_ssym`, `r_type3`, `r_type2` and `r_type`, one
    /// byte each.
    pub(super) mod mips64_info: Mips64Info (Endian::Little) {
        sym: u32 = "sym", Show::Value(plain),
        ssym: u8 = "ssym", Show::Named(|v| match v {
            0 => Some("RSS_UNDEF"),
            1 => Some("RSS_GP"),
            2 => Some("RSS_GP0"),
            3 => Some("RSS_LOC"),
            _ => None,
        }),
        /// Named by the machine once read, as the two below.
        type3: u8 = "type3", Show::Value(plain),
        type2: u8 = "type2", Show::Value(plain),
        typ: u8 = "type", Show::Value(plain),
    }
}

/// The name of dynamic tag `v`.
fn dtag_name(v: u64) -> Option<&'static str> {
    constants::dtag(v).0
}

classes! {
    /// A dynamic entry.
    mod dyn_entry: dyn32: Dyn32, dyn64: Dyn64 {
        d_tag: W = "d_tag", Show::NamedHex(dtag_name),
        /// Given the string or address it stands for once read.
        d_val: W = "d_val", Show::Value(plain),
    }
}

record! {
    /// A note's header (the same in ELF32 and ELF64); the owner's name
    /// follows it.
    pub(super) mod nhdr: Nhdr (Endian::Little) {
        n_namesz: u32 = "n_namesz", Show::Value(plain),
        n_descsz: u32 = "n_descsz", Show::Value(plain),
        /// Named by its owner once read.
        n_type: u32 = "n_type", Show::Value(plain),
    }
}

/// ch_type: the compression it names.
fn ch_type(v: u64) -> Value {
    Value::named(
        v,
        match v {
            1 => Some("ELFCOMPRESS_ZLIB"),
            2 => Some("ELFCOMPRESS_ZSTD"),
            _ => None,
        },
    )
}

record! {
    /// An ELF32 compression header (a section with SHF_COMPRESSED starts
    /// with it).
    pub(super) mod chdr32: Chdr32 (Endian::Little) {
        ch_type: u32 = "ch_type", Show::Wide(ch_type),
        ch_size: u32 = "ch_size", Show::Auto,
        ch_addralign: u32 = "ch_addralign", Show::Auto,
    }
}

record! {
    /// An ELF64 compression header.
    pub(super) mod chdr64: Chdr64 (Endian::Little) {
        ch_type: u32 = "ch_type", Show::Wide(ch_type),
        ch_reserved: u32 = "ch_reserved", Show::Auto,
        ch_size: u64 = "ch_size", Show::Auto,
        ch_addralign: u64 = "ch_addralign", Show::Auto,
    }
}

record! {
    /// The header GNU tools put before a section they compressed before
    /// SHF_COMPRESSED (a `.zdebug_` name): the magic `ZLIB` and the
    /// inflated size, big-endian whatever the file's byte order.
    pub(super) mod zdebug: Zdebug (Endian::Big) {
        magic: [u8; 4] = "magic", Show::Span(Value::str_bytes),
        size: u64 = "size", Show::Auto,
    }
}

record! {
    /// The header of an SHT_HASH table; the buckets and the chain follow.
    pub(super) mod sysv_hash: SysvHash (Endian::Little) {
        nbucket: u32 = "nbucket", Show::Auto,
        nchain: u32 = "nchain", Show::Auto,
    }
}

record! {
    /// The header of an SHT_GNU_HASH table; the Bloom filter, the buckets
    /// and the chain follow.
    pub(super) mod gnu_hash: GnuHash (Endian::Little) {
        nbuckets: u32 = "nbuckets", Show::Auto,
        symoffset: u32 = "symoffset", Show::Auto,
        bloom_size: u32 = "bloom_size", Show::Auto,
        bloom_shift: u32 = "bloom_shift", Show::Auto,
    }
}

record! {
    /// A GNU property's header (in an NT_GNU_PROPERTY_TYPE_0 note); its
    /// data follows.
    pub(super) mod property: Property (Endian::Little) {
        pr_type: u32 = "pr_type", Show::Auto,
        pr_datasz: u32 = "pr_datasz", Show::Value(plain),
    }
}

/// `$body` with `$m` the 64-bit record module when `$is64`, else the
/// 32-bit one: code that handles both forms of a record alike (widening
/// the 32-bit form's fields with `into`, which the 64-bit form needs not).
macro_rules! either {
    ($is64:expr, $m32:ident | $m64:ident as $m:ident => $body:expr) => {
        if $is64 {
            #[allow(unused_imports)]
            use $crate::formats::elf::records::$m64 as $m;
            #[allow(clippy::useless_conversion)]
            let r = $body;
            r
        } else {
            #[allow(unused_imports)]
            use $crate::formats::elf::records::$m32 as $m;
            #[allow(clippy::useless_conversion)]
            let r = $body;
            r
        }
    };
}
pub(super) use either;

/// The struct `$t` with fields `$f…` taken from `$r` (each widened with
/// `into`), and the rest given after `;`.
macro_rules! widen {
    ($r:expr => $t:ident { $($f:ident),+ $(,)? } $(; $($rest:tt)*)?) => {{
        let r = $r;
        $t { $($f: r.$f.into(),)+ $($($rest)*)? }
    }};
}
pub(super) use widen;
