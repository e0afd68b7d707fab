//! Names of the numbers an ELF file holds: header fields, section and
//! segment types, flags, symbol attributes, dynamic tags and note types.

use super::reloc_names;
use crate::model::Value;

pub const EM_386: u16 = 3;
pub const EM_MIPS: u16 = 8;
pub const EM_ARM: u16 = 40;
pub const EM_X86_64: u16 = 62;
pub const EM_AARCH64: u16 = 183;
pub const EM_CUDA: u16 = 190;
pub const EM_XCORE: u16 = 203;
pub const EM_INTELGT: u16 = 205;
pub const EM_AMDGPU: u16 = 224;
pub const EM_RISCV: u16 = 243;

/// EI_CLASS of ELF32 and ELF64 files.
pub const ELFCLASS32: u8 = 1;
pub const ELFCLASS64: u8 = 2;
/// EI_DATA of little- and big-endian files.
pub const ELFDATA2LSB: u8 = 1;
pub const ELFDATA2MSB: u8 = 2;
/// p_type of a loadable segment.
pub const PT_LOAD: u32 = 1;

pub fn class(v: u8) -> Option<&'static str> {
    Some(match v {
        0 => "ELFCLASSNONE",
        1 => "ELFCLASS32",
        2 => "ELFCLASS64",
        _ => return None,
    })
}

pub fn data(v: u8) -> Option<&'static str> {
    Some(match v {
        0 => "ELFDATANONE",
        1 => "ELFDATA2LSB, little-endian",
        2 => "ELFDATA2MSB, big-endian",
        _ => return None,
    })
}

/// `EI_OSABI` as llvm-readelf names it: a machine's own name for a value
/// of 64 and up (AMDGPU's, ARM's, TI C6000's), else the generic one.
pub fn osabi(v: u8, machine: u16) -> Option<&'static str> {
    let own = match (v, machine) {
        (64, EM_AMDGPU) => Some("AMDGPU - HSA"),
        (65, EM_AMDGPU) => Some("AMDGPU - PAL"),
        (66, EM_AMDGPU) => Some("AMDGPU - MESA3D"),
        // binutils' ELFOSABI_ARM_AEABI (llvm-readelf has no name for it).
        (64, EM_ARM) => Some("ARM_AEABI"),
        (65, EM_ARM) => Some("ARM FDPIC"),
        (97, EM_ARM) => Some("ARM"),
        // EM_TI_C6000
        (64, 140) => Some("Bare-metal C6000"),
        (65, 140) => Some("Linux C6000"),
        _ => None,
    };
    if own.is_some() {
        return own;
    }
    Some(match v {
        0 => "UNIX - System V",
        1 => "UNIX - HP-UX",
        2 => "UNIX - NetBSD",
        3 => "UNIX - GNU",
        4 => "GNU/Hurd",
        6 => "UNIX - Solaris",
        7 => "UNIX - AIX",
        8 => "UNIX - IRIX",
        9 => "UNIX - FreeBSD",
        10 => "UNIX - TRU64",
        11 => "Novell - Modesto",
        12 => "UNIX - OpenBSD",
        13 => "VMS - OpenVMS",
        14 => "HP - Non-Stop Kernel",
        15 => "AROS",
        16 => "FenixOS",
        17 => "CloudABI",
        51 => "NVIDIA - CUDA",
        255 => "Standalone App",
        _ => return None,
    })
}

/// `e_type` of a relocatable object.
pub const ET_REL: u16 = 1;

/// `e_type` with what it means: `1 (0x1, ET_REL, relocatable)`.
pub fn etype(v: u16) -> Value {
    let n = match v {
        0 => "ET_NONE",
        1 => "ET_REL, relocatable",
        2 => "ET_EXEC, executable",
        3 => "ET_DYN, shared object",
        4 => "ET_CORE, core file",
        0xff01 => "Intel OpenCL source (processor-specific)",
        0xff02 => "Intel OpenCL objects (processor-specific)",
        0xff03 => "Intel OpenCL library (processor-specific)",
        0xff04 => "Intel OpenCL executable (processor-specific)",
        0xff05 => "Intel OpenCL debug (processor-specific)",
        0xff11 => "ET_ZEBIN_REL (processor-specific)",
        0xff12 => "ET_ZEBIN_EXE (processor-specific)",
        0xff13 => "ET_ZEBIN_DYN (processor-specific)",
        0xfe00..=0xfeff => return named(v, format!("0x{v:04x}, OS-specific")),
        0xff00..=0xffff => return named(v, format!("0x{v:04x}, processor-specific")),
        _ => return Value::named(u64::from(v), None),
    };
    named(v, format!("0x{v:x}, {n}"))
}

fn named(v: u16, name: String) -> Value {
    Value::Named {
        v: u64::from(v),
        radix: crate::model::Radix::Dec,
        name: Some(name.into()),
    }
}

pub fn machine(v: u16) -> Option<&'static str> {
    reloc_names::MACHINES
        .iter()
        .find(|&&(k, _)| k == v)
        .map(|&(_, n)| n)
}

/// `e_flags`, decoded where the machine gives them a meaning (some by the
/// ELF's `EI_ABIVERSION`, `abi`).
pub fn eflags(v: u32, machine: u16, abi: u8) -> Value {
    let mut parts: Vec<String> = Vec::new();
    match machine {
        EM_AMDGPU => {
            let mach = v & 0xff;
            match reloc_names::lookup(reloc_names::AMDGPU_MACH, mach) {
                Some(n) => parts.push(n.to_string()),
                None => parts.push(format!("mach 0x{mach:x}")),
            }
            // Named as llvm-readelf names them. Code object v3
            // (EI_ABIVERSION 1) has one bit each; v4 and later two, for
            // "any" (plain), "off" (-) and "on" (+).
            if abi == 1 {
                if v & 0x100 != 0 {
                    parts.push("xnack".into());
                }
                if v & 0x200 != 0 {
                    parts.push("sramecc".into());
                }
            } else {
                for (name, bits) in [("xnack", (v >> 8) & 3), ("sramecc", (v >> 10) & 3)] {
                    match bits {
                        1 => parts.push(name.into()),
                        2 => parts.push(format!("{name}-")),
                        3 => parts.push(format!("{name}+")),
                        _ => {}
                    }
                }
            }
            let gv = (v >> 24) & 0xff;
            if gv != 0 {
                parts.push(format!("generic_v{gv}"));
            }
        }
        EM_ARM => {
            let eabi = v >> 24;
            if eabi != 0 {
                parts.push(format!("EABI version {eabi}"));
            }
            if v & 0x400 != 0 {
                parts.push("hard-float ABI".into());
            }
            if v & 0x200 != 0 {
                parts.push("soft-float ABI".into());
            }
        }
        EM_CUDA => {
            // CUDA's ELF ABI v2 (EI_ABIVERSION 8, since CUDA 12.8) keeps the
            // SM number in bits 8..15; v1 (EI_ABIVERSION 7) in bits 0..7.
            let sm = if abi >= 8 { (v >> 8) & 0xff } else { v & 0xff };
            parts.push(format!("sm_{sm}"));
        }
        m => {
            if let Some(set) = FLAG_SETS.iter().find(|f| f.machines.contains(&m)) {
                parts.extend(set.names(v).map(str::to_string));
            }
        }
    }
    if parts.is_empty() {
        crate::model::num(v.into())
    } else {
        Value::Flags {
            v: v.into(),
            names: parts.join(", ").into(),
        }
    }
}

/// The `e_flags` names of some machines, as llvm-readelf's header lists
/// them: a flag whose bits are all set is named, except that under one of
/// `masks` the bits the mask covers must equal the flag's (an enumerated
/// field, such as MIPS's architecture); a flag of value 0 is never named.
struct FlagSet {
    machines: &'static [u16],
    flags: &'static [(u32, &'static str)],
    masks: &'static [u32],
}

impl FlagSet {
    fn names(&self, v: u32) -> impl Iterator<Item = &'static str> + '_ {
        self.flags.iter().filter_map(move |&(f, name)| {
            if f == 0 {
                return None;
            }
            let mask = self.masks.iter().copied().find(|&m| f & m != 0);
            let on = match mask {
                Some(m) => v & m == f,
                None => v & f == f,
            };
            on.then_some(name)
        })
    }
}

const FLAG_SETS: &[FlagSet] = &[
    FlagSet {
        machines: &[EM_MIPS],
        flags: &[
            (0x1, "noreorder"),
            (0x2, "pic"),
            (0x4, "cpic"),
            (0x20, "abi2"),
            (0x100, "32bitmode"),
            (0x200, "fp64"),
            (0x400, "nan2008"),
            (0x1000, "o32"),
            (0x2000, "o64"),
            (0x3000, "eabi32"),
            (0x4000, "eabi64"),
            (0x81_0000, "3900"),
            (0x82_0000, "4010"),
            (0x83_0000, "4100"),
            (0x85_0000, "4650"),
            (0x87_0000, "4120"),
            (0x88_0000, "4111"),
            (0x8a_0000, "sb1"),
            (0x8b_0000, "octeon"),
            (0x8c_0000, "xlr"),
            (0x8d_0000, "octeon2"),
            (0x8e_0000, "octeon3"),
            (0x91_0000, "5400"),
            (0x92_0000, "5900"),
            (0x98_0000, "5500"),
            (0x99_0000, "9000"),
            (0xa0_0000, "loongson-2e"),
            (0xa1_0000, "loongson-2f"),
            (0xa2_0000, "loongson-3a"),
            (0x200_0000, "micromips"),
            (0x400_0000, "mips16"),
            (0x800_0000, "mdmx"),
            (0x1000_0000, "mips2"),
            (0x2000_0000, "mips3"),
            (0x3000_0000, "mips4"),
            (0x4000_0000, "mips5"),
            (0x5000_0000, "mips32"),
            (0x6000_0000, "mips64"),
            (0x7000_0000, "mips32r2"),
            (0x8000_0000, "mips64r2"),
            (0x9000_0000, "mips32r6"),
            (0xa000_0000, "mips64r6"),
        ],
        // EF_MIPS_ARCH, EF_MIPS_ABI, EF_MIPS_MACH.
        masks: &[0xf000_0000, 0xf000, 0xff_0000],
    },
    FlagSet {
        machines: &[EM_RISCV],
        flags: &[
            (0x1, "RVC"),
            (0x2, "single-float ABI"),
            (0x4, "double-float ABI"),
            (0x6, "quad-float ABI"),
            (0x8, "RVE"),
            (0x10, "TSO"),
        ],
        // EF_RISCV_FLOAT_ABI: one of its values (llvm-readelf names each
        // float ABI whose bits are set, all three for quad).
        masks: &[0x6],
    },
    FlagSet {
        // EM_SPARC32PLUS, EM_SPARCV9 (not EM_SPARC).
        machines: &[18, 43],
        flags: &[
            (0x100, "V8+ ABI"),
            (0x200, "Sun UltraSPARC I extensions"),
            (0x400, "HAL/Fujitsu R1 extensions"),
            (0x800, "Sun UltraSPARC III extensions"),
            (0x1, "Partial Store Ordering"),
            (0x2, "Relaxed Memory Ordering"),
        ],
        // EF_SPARCV9_MM (Total Store Ordering is 0).
        masks: &[0x3],
    },
    FlagSet {
        // EM_AVR
        machines: &[83],
        flags: &[
            (1, "EF_AVR_ARCH_AVR1"),
            (2, "EF_AVR_ARCH_AVR2"),
            (25, "EF_AVR_ARCH_AVR25"),
            (3, "EF_AVR_ARCH_AVR3"),
            (31, "EF_AVR_ARCH_AVR31"),
            (35, "EF_AVR_ARCH_AVR35"),
            (4, "EF_AVR_ARCH_AVR4"),
            (5, "EF_AVR_ARCH_AVR5"),
            (51, "EF_AVR_ARCH_AVR51"),
            (6, "EF_AVR_ARCH_AVR6"),
            (100, "EF_AVR_ARCH_AVRTINY"),
            (101, "EF_AVR_ARCH_XMEGA1"),
            (102, "EF_AVR_ARCH_XMEGA2"),
            (103, "EF_AVR_ARCH_XMEGA3"),
            (104, "EF_AVR_ARCH_XMEGA4"),
            (105, "EF_AVR_ARCH_XMEGA5"),
            (106, "EF_AVR_ARCH_XMEGA6"),
            (107, "EF_AVR_ARCH_XMEGA7"),
            (0x80, "relaxable"),
        ],
        // EF_AVR_ARCH_MASK
        masks: &[0x7f],
    },
    FlagSet {
        // EM_LOONGARCH
        machines: &[258],
        flags: &[
            (0x1, "SOFT-FLOAT"),
            (0x2, "SINGLE-FLOAT"),
            (0x3, "DOUBLE-FLOAT"),
            (0x40, "OBJ-v1"),
        ],
        // EF_LOONGARCH_ABI_MODIFIER_MASK, EF_LOONGARCH_OBJABI_MASK (OBJ-v0
        // is 0).
        masks: &[0x7, 0xc0],
    },
    FlagSet {
        // EM_XTENSA
        machines: &[94],
        flags: &[(0x100, "EF_XTENSA_XT_INSN"), (0x200, "EF_XTENSA_XT_LIT")],
        // EF_XTENSA_MACH (EF_XTENSA_MACH_NONE is 0).
        masks: &[0xf],
    },
    FlagSet {
        // EM_PPC64: the ELF ABI version (1 for the AIX-style ABI, 2 for
        // ELFv2), as binutils' readelf names it.
        machines: &[21],
        flags: &[(1, "abiv1"), (2, "abiv2"), (3, "abiv3")],
        masks: &[0x3],
    },
];

pub const SHT_NULL: u32 = 0;
pub const SHT_SYMTAB: u32 = 2;
pub const SHT_STRTAB: u32 = 3;
pub const SHT_RELA: u32 = 4;
pub const SHT_DYNAMIC: u32 = 6;
pub const SHT_NOTE: u32 = 7;
pub const SHT_NOBITS: u32 = 8;
pub const SHT_REL: u32 = 9;
pub const SHT_DYNSYM: u32 = 11;
pub const SHT_RELR: u32 = 19;
/// LLVM's compact relocations.
pub const SHT_CREL: u32 = 0x4000_0014;
pub const SHT_ANDROID_RELR: u32 = 0x6fff_ff00;
pub const SHT_INIT_ARRAY: u32 = 14;
pub const SHT_FINI_ARRAY: u32 = 15;
pub const SHT_PREINIT_ARRAY: u32 = 16;
pub const SHT_GROUP: u32 = 17;
pub const SHT_HASH: u32 = 5;
pub const SHT_SYMTAB_SHNDX: u32 = 18;
pub const SHT_GNU_HASH: u32 = 0x6fff_fff6;
pub const SHT_GNU_VERDEF: u32 = 0x6fff_fffd;
pub const SHT_GNU_VERNEED: u32 = 0x6fff_fffe;
pub const SHT_GNU_VERSYM: u32 = 0x6fff_ffff;
/// A symbol's section index is in the SHT_SYMTAB_SHNDX table.
pub const SHN_XINDEX: u16 = 0xffff;
pub const SHT_LLVM_OFFLOADING: u32 = 0x6fff_4c0b;

pub fn shtype(v: u32, machine: u16) -> Option<&'static str> {
    Some(match v {
        0 => "SHT_NULL",
        1 => "SHT_PROGBITS",
        2 => "SHT_SYMTAB",
        3 => "SHT_STRTAB",
        4 => "SHT_RELA",
        5 => "SHT_HASH",
        6 => "SHT_DYNAMIC",
        7 => "SHT_NOTE",
        8 => "SHT_NOBITS",
        9 => "SHT_REL",
        10 => "SHT_SHLIB",
        11 => "SHT_DYNSYM",
        14 => "SHT_INIT_ARRAY",
        15 => "SHT_FINI_ARRAY",
        16 => "SHT_PREINIT_ARRAY",
        17 => "SHT_GROUP",
        18 => "SHT_SYMTAB_SHNDX",
        19 => "SHT_RELR",
        0x4000_0014 => "SHT_CREL",
        0x6000_0001 => "SHT_ANDROID_REL",
        0x6000_0002 => "SHT_ANDROID_RELA",
        0x6fff_4c00 => "SHT_LLVM_ODRTAB",
        0x6fff_4c01 => "SHT_LLVM_LINKER_OPTIONS",
        0x6fff_4c03 => "SHT_LLVM_ADDRSIG",
        0x6fff_4c04 => "SHT_LLVM_DEPENDENT_LIBRARIES",
        0x6fff_4c05 => "SHT_LLVM_SYMPART",
        0x6fff_4c06 => "SHT_LLVM_PART_EHDR",
        0x6fff_4c07 => "SHT_LLVM_PART_PHDR",
        0x6fff_4c08 => "SHT_LLVM_BB_ADDR_MAP_V0",
        0x6fff_4c09 => "SHT_LLVM_CALL_GRAPH_PROFILE",
        0x6fff_4c0a => "SHT_LLVM_BB_ADDR_MAP",
        0x6fff_4c0b => "SHT_LLVM_OFFLOADING",
        0x6fff_4c0c => "SHT_LLVM_LTO",
        0x6fff_4c0d => "SHT_LLVM_JT_SIZES",
        0x6fff_4c0e => "SHT_LLVM_CFI_JUMP_TABLE",
        0x6fff_ff00 => "SHT_ANDROID_RELR",
        0x6fff_fff4 => "SHT_GNU_SFRAME",
        0x6fff_fff5 => "SHT_GNU_ATTRIBUTES",
        0x6fff_fff6 => "SHT_GNU_HASH",
        0x6fff_fff7 => "SHT_GNU_LIBLIST",
        0x6fff_fffd => "SHT_GNU_verdef",
        0x6fff_fffe => "SHT_GNU_verneed",
        0x6fff_ffff => "SHT_GNU_versym",
        0x7000_0001 if machine == EM_X86_64 => "SHT_X86_64_UNWIND",
        0x7000_0001 if machine == EM_ARM => "SHT_ARM_EXIDX",
        0x7000_0003 if machine == EM_ARM => "SHT_ARM_ATTRIBUTES",
        0x7000_0003 if machine == EM_RISCV => "SHT_RISCV_ATTRIBUTES",
        0x7000_0003 if machine == EM_AARCH64 => "SHT_AARCH64_ATTRIBUTES",
        0x7000_0002 if machine == EM_AARCH64 => "SHT_AARCH64_MEMTAG_GLOBALS_STATIC",
        0x7000_0006 if machine == EM_MIPS => "SHT_MIPS_REGINFO",
        0x7000_000d if machine == EM_MIPS => "SHT_MIPS_OPTIONS",
        0x7000_001e if machine == EM_MIPS => "SHT_MIPS_DWARF",
        0x7000_002a if machine == EM_MIPS => "SHT_MIPS_ABIFLAGS",
        0x7000_0000 if machine == EM_CUDA => "SHT_CUDA_INFO",
        0x7000_000b if machine == EM_CUDA => "SHT_CUDA_CALLGRAPH",
        0x6000_0000..=0x6fff_ffff => "OS-specific",
        0x7000_0000..=0x7fff_ffff => "processor-specific",
        0x8000_0000..=0xffff_ffff => "application-specific",
        _ => return None,
    })
}

pub const SHF_ALLOC: u64 = 0x2;
/// The section holds machine code.
pub const SHF_EXECINSTR: u64 = 0x4;
pub const SHF_MERGE: u64 = 0x10;
pub const SHF_STRINGS: u64 = 0x20;
pub const SHF_INFO_LINK: u64 = 0x40;
pub const SHF_COMPRESSED: u64 = 0x800;

pub fn shflags(v: u64) -> Value {
    const F: &[(u64, &str)] = &[
        (0x1, "WRITE"),
        (0x2, "ALLOC"),
        (0x4, "EXECINSTR"),
        (0x10, "MERGE"),
        (0x20, "STRINGS"),
        (0x40, "INFO_LINK"),
        (0x80, "LINK_ORDER"),
        (0x100, "OS_NONCONFORMING"),
        (0x200, "GROUP"),
        (0x400, "TLS"),
        (0x800, "COMPRESSED"),
        (0x20_0000, "GNU_RETAIN"),
        (0x8000_0000, "EXCLUDE"),
    ];
    bits(v, F)
}

/// A bit set with its bits' names: `0x6 (ALLOC | EXECINSTR)`, or `0`.
fn bits(v: u64, table: &[(u64, &str)]) -> Value {
    if v == 0 {
        return Value::with(0, crate::model::Radix::Dec, "");
    }
    Value::Flags {
        v,
        names: crate::model::text::flag_names(v, table, "").into(),
    }
}

pub const PT_DYNAMIC: u32 = 2;
pub const PT_NOTE: u32 = 4;

pub fn ptype(v: u32, machine: u16) -> Option<&'static str> {
    Some(match v {
        0 => "PT_NULL",
        1 => "PT_LOAD",
        2 => "PT_DYNAMIC",
        3 => "PT_INTERP",
        4 => "PT_NOTE",
        5 => "PT_SHLIB",
        6 => "PT_PHDR",
        7 => "PT_TLS",
        0x6474_e550 => "PT_GNU_EH_FRAME",
        0x6474_e551 => "PT_GNU_STACK",
        0x6474_e552 => "PT_GNU_RELRO",
        0x6474_e553 => "PT_GNU_PROPERTY",
        0x6474_e554 => "PT_GNU_SFRAME",
        0x65a3_dbe6 => "PT_OPENBSD_RANDOMIZE",
        0x65a3_dbe7 => "PT_OPENBSD_WXNEEDED",
        0x65a4_1be6 => "PT_OPENBSD_BOOTDATA",
        0x7000_0001 if machine == EM_ARM => "PT_ARM_EXIDX",
        0x7000_0003 if machine == EM_RISCV => "PT_RISCV_ATTRIBUTES",
        0x7000_0002 if machine == EM_AARCH64 => "PT_AARCH64_MEMTAG_MTE",
        0x7000_0000 if machine == EM_MIPS => "PT_MIPS_REGINFO",
        0x7000_0003 if machine == EM_MIPS => "PT_MIPS_ABIFLAGS",
        0x6000_0000..=0x6fff_ffff => "OS-specific",
        0x7000_0000..=0x7fff_ffff => "processor-specific",
        _ => return None,
    })
}

/// The `R`, `W` and `X` bits of `p_flags` as `RWX` (`-` for a clear one),
/// and the bits besides.
fn rwx(v: u32) -> (String, u32) {
    let rwx = [(4, 'R'), (2, 'W'), (1, 'X')]
        .iter()
        .map(|&(bit, c)| if v & bit != 0 { c } else { '-' })
        .collect();
    (rwx, v & !7)
}

/// `p_flags` as a value: `5 (R-X)`, or `0x80000005 (R-X | 0x80000000)`.
pub fn pflags_value(v: u32) -> Value {
    match rwx(v) {
        (rwx, 0) => Value::Named {
            v: u64::from(v),
            radix: crate::model::Radix::Dec,
            name: Some(rwx.into()),
        },
        (rwx, rest) => Value::Flags {
            v: u64::from(v),
            names: format!("{rwx} | 0x{rest:x}").into(),
        },
    }
}

/// `p_flags` as text, as [`pflags_value`] shows it.
pub fn pflags(v: u32) -> String {
    pflags_value(v).to_string()
}

pub fn sym_type(v: u8) -> &'static str {
    match v {
        0 => "NOTYPE",
        1 => "OBJECT",
        2 => "FUNC",
        3 => "SECTION",
        4 => "FILE",
        5 => "COMMON",
        6 => "TLS",
        10 => "GNU_IFUNC",
        13..=15 => "PROC",
        11 | 12 => "OS",
        _ => "unknown",
    }
}

pub fn sym_bind(v: u8) -> &'static str {
    match v {
        0 => "LOCAL",
        1 => "GLOBAL",
        2 => "WEAK",
        10 => "GNU_UNIQUE",
        11 | 12 => "OS",
        13..=15 => "PROC",
        _ => "unknown",
    }
}

pub fn sym_vis(v: u8) -> &'static str {
    match v & 3 {
        0 => "DEFAULT",
        1 => "INTERNAL",
        2 => "HIDDEN",
        _ => "PROTECTED",
    }
}

pub fn shndx(v: u32) -> Option<&'static str> {
    Some(match v {
        0 => "SHN_UNDEF",
        0xfff1 => "SHN_ABS",
        0xfff2 => "SHN_COMMON",
        0xffff => "SHN_XINDEX",
        0xff00..=0xff1f => "processor-specific",
        0xff20..=0xff3f => "OS-specific",
        _ => return None,
    })
}

/// What a dynamic entry's value is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DynVal {
    Plain,
    /// An offset into the dynamic string table.
    Str,
    /// A virtual address.
    Addr,
}

pub fn dtag(v: u64) -> (Option<&'static str>, DynVal) {
    use DynVal::*;
    let (n, k) = match v {
        0 => ("DT_NULL", Plain),
        1 => ("DT_NEEDED", Str),
        2 => ("DT_PLTRELSZ", Plain),
        3 => ("DT_PLTGOT", Addr),
        4 => ("DT_HASH", Addr),
        5 => ("DT_STRTAB", Addr),
        6 => ("DT_SYMTAB", Addr),
        7 => ("DT_RELA", Addr),
        8 => ("DT_RELASZ", Plain),
        9 => ("DT_RELAENT", Plain),
        10 => ("DT_STRSZ", Plain),
        11 => ("DT_SYMENT", Plain),
        12 => ("DT_INIT", Addr),
        13 => ("DT_FINI", Addr),
        14 => ("DT_SONAME", Str),
        15 => ("DT_RPATH", Str),
        16 => ("DT_SYMBOLIC", Plain),
        17 => ("DT_REL", Addr),
        18 => ("DT_RELSZ", Plain),
        19 => ("DT_RELENT", Plain),
        20 => ("DT_PLTREL", Plain),
        21 => ("DT_DEBUG", Plain),
        22 => ("DT_TEXTREL", Plain),
        23 => ("DT_JMPREL", Addr),
        24 => ("DT_BIND_NOW", Plain),
        25 => ("DT_INIT_ARRAY", Addr),
        26 => ("DT_FINI_ARRAY", Addr),
        27 => ("DT_INIT_ARRAYSZ", Plain),
        28 => ("DT_FINI_ARRAYSZ", Plain),
        29 => ("DT_RUNPATH", Str),
        30 => ("DT_FLAGS", Plain),
        32 => ("DT_PREINIT_ARRAY", Addr),
        33 => ("DT_PREINIT_ARRAYSZ", Plain),
        34 => ("DT_SYMTAB_SHNDX", Addr),
        35 => ("DT_RELRSZ", Plain),
        36 => ("DT_RELR", Addr),
        37 => ("DT_RELRENT", Plain),
        0x6000_000f => ("DT_ANDROID_REL", Addr),
        0x6000_0010 => ("DT_ANDROID_RELSZ", Plain),
        0x6000_0011 => ("DT_ANDROID_RELA", Addr),
        0x6000_0012 => ("DT_ANDROID_RELASZ", Plain),
        0x6fff_fdf5 => ("DT_GNU_PRELINKED", Plain),
        0x6fff_fdf6 => ("DT_GNU_CONFLICTSZ", Plain),
        0x6fff_fdf7 => ("DT_GNU_LIBLISTSZ", Plain),
        0x6fff_fdf8 => ("DT_CHECKSUM", Plain),
        0x6fff_fdf9 => ("DT_PLTPADSZ", Plain),
        0x6fff_fdfa => ("DT_MOVEENT", Plain),
        0x6fff_fdfb => ("DT_MOVESZ", Plain),
        0x6fff_fdfc => ("DT_FEATURE_1", Plain),
        0x6fff_fdfd => ("DT_POSFLAG_1", Plain),
        0x6fff_fdfe => ("DT_SYMINSZ", Plain),
        0x6fff_fdff => ("DT_SYMINENT", Plain),
        0x6fff_fef5 => ("DT_GNU_HASH", Addr),
        0x6fff_fef6 => ("DT_TLSDESC_PLT", Addr),
        0x6fff_fef7 => ("DT_TLSDESC_GOT", Addr),
        0x6fff_fef8 => ("DT_GNU_CONFLICT", Addr),
        0x6fff_fef9 => ("DT_GNU_LIBLIST", Addr),
        0x6fff_fefa => ("DT_CONFIG", Str),
        0x6fff_fefb => ("DT_DEPAUDIT", Str),
        0x6fff_fefc => ("DT_AUDIT", Str),
        0x6fff_fefd => ("DT_PLTPAD", Addr),
        0x6fff_fefe => ("DT_MOVETAB", Addr),
        0x6fff_feff => ("DT_SYMINFO", Addr),
        0x6fff_fff0 => ("DT_VERSYM", Addr),
        0x6fff_fff9 => ("DT_RELACOUNT", Plain),
        0x6fff_fffa => ("DT_RELCOUNT", Plain),
        0x6fff_fffb => ("DT_FLAGS_1", Plain),
        0x6fff_fffc => ("DT_VERDEF", Addr),
        0x6fff_fffd => ("DT_VERDEFNUM", Plain),
        0x6fff_fffe => ("DT_VERNEED", Addr),
        0x6fff_ffff => ("DT_VERNEEDNUM", Plain),
        0x7fff_fffd => ("DT_AUXILIARY", Str),
        0x7fff_ffff => ("DT_FILTER", Str),
        _ => return (None, Plain),
    };
    (Some(n), k)
}

/// The name of a note type, by its owner.
pub fn note_type(owner: &[u8], t: u32, core: bool) -> Option<&'static str> {
    Some(match (owner, t) {
        (b"GNU", 1) => "NT_GNU_ABI_TAG",
        (b"GNU", 2) => "NT_GNU_HWCAP",
        (b"GNU", 3) => "NT_GNU_BUILD_ID",
        (b"GNU", 4) => "NT_GNU_GOLD_VERSION",
        (b"GNU", 5) => "NT_GNU_PROPERTY_TYPE_0",
        (b"GNU", 0x100) => "NT_GNU_BUILD_ATTRIBUTE_OPEN",
        (b"GNU", 0x101) => "NT_GNU_BUILD_ATTRIBUTE_FUNC",
        (b"Go", 4) => "NT_GO_BUILDID",
        (b"stapsdt", 3) => "NT_STAPSDT",
        (b"FDO", 0xcafe_1a7e) => "NT_FDO_PACKAGING_METADATA",
        (b"FDO", 0x407c_0c0a) => "NT_FDO_DLOPEN_METADATA",
        (b"FreeBSD", 1) => "NT_FREEBSD_ABI_TAG",
        (b"FreeBSD", 2) => "NT_FREEBSD_NOINIT_TAG",
        (b"FreeBSD", 3) => "NT_FREEBSD_ARCH_TAG",
        (b"FreeBSD", 4) => "NT_FREEBSD_FEATURE_CTL",
        (b"NetBSD", 1) => "NT_NETBSD_IDENT",
        (b"OpenBSD", 1) => "NT_OPENBSD_IDENT",
        (b"Android", 1) => "NT_ANDROID_TYPE_IDENT",
        (b"AMD", 1) => "NT_AMD_HSA_CODE_OBJECT_VERSION",
        (b"AMD", 2) => "NT_AMD_HSA_HSAIL",
        (b"AMD", 3) => "NT_AMD_HSA_ISA_VERSION",
        (b"AMD", 10) => "NT_AMD_HSA_METADATA",
        (b"AMD", 11) => "NT_AMD_HSA_ISA_NAME",
        (b"AMD", 12) => "NT_AMD_PAL_METADATA",
        (b"AMDGPU", 32) => "NT_AMDGPU_METADATA",
        // The XMOS tools' own notes (in `.xmosnote`): types 1 and 2 as
        // binutils names them for any owner; 3 has no published name.
        (b"XMOS", 1) => "NT_VERSION",
        (b"XMOS", 2) => "NT_ARCH",
        (b"LLVMOMPOFFLOAD", 1) => "NT_LLVM_OPENMP_OFFLOAD_VERSION",
        (b"LLVMOMPOFFLOAD", 2) => "NT_LLVM_OPENMP_OFFLOAD_PRODUCER",
        (b"LLVMOMPOFFLOAD", 3) => "NT_LLVM_OPENMP_OFFLOAD_PRODUCER_VERSION",
        (b"CORE" | b"LINUX", _) if core => core_note(t)?,
        _ => return None,
    })
}

fn core_note(t: u32) -> Option<&'static str> {
    Some(match t {
        1 => "NT_PRSTATUS",
        2 => "NT_FPREGSET",
        3 => "NT_PRPSINFO",
        4 => "NT_TASKSTRUCT",
        6 => "NT_AUXV",
        0x200 => "NT_386_TLS",
        0x202 => "NT_X86_XSTATE",
        0x400 => "NT_ARM_VFP",
        0x4649_4c45 => "NT_FILE",
        0x5349_4749 => "NT_SIGINFO",
        0x46e6_2b7f => "NT_PRXFPREG",
        _ => return None,
    })
}

/// The name of relocation type `t` on `machine`, as llvm-readelf names it.
pub fn reloc(machine: u16, t: u32) -> Option<&'static str> {
    reloc_names::lookup(super::reloc_tables::for_machine(machine)?, t)
}
