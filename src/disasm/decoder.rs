//! One instruction at a time, in this process: the [`Decoder`] of a
//! [`Target`] over LLVM's or IGA's library, and what it gives, an
//! [`Insn`] (or why there is none, [`Missing`]).

use super::iga::{self, ENV_IGA};
use super::llvm::{self, ENV_LLVM};

/// The triple of Intel GT code, decoded by IGA.
pub const INTELGT: &str = "intelgt";

/// The most instructions decoded for one function (or one section without
/// functions); past it the bytes stay as they are.
pub const MAX_INSNS: usize = 1 << 20;

/// The text of bytes no instruction decodes from.
pub const UNKNOWN: &str = "<unknown>";

/// What code is for: an LLVM target triple, a processor (empty: the
/// triple's default) and features (`+c,+d`, LLVM's spelling).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Target {
    pub triple: String,
    pub cpu: String,
    pub features: String,
}

impl Target {
    pub fn new(triple: &str, cpu: &str, features: &str) -> Target {
        Target {
            triple: triple.to_string(),
            cpu: cpu.to_string(),
            features: features.to_string(),
        }
    }

    /// The architecture, the triple's first part (`x86_64`, `amdgcn`).
    pub fn arch(&self) -> &str {
        self.triple.split('-').next().unwrap_or("")
    }

    /// The smallest step between instructions: what bytes that do not
    /// decode are counted in.
    pub fn unit(&self) -> usize {
        match self.arch() {
            "amdgcn" | "r600" | "aarch64" | "aarch64_be" | "arm64" | "mips" | "mipsel"
            | "mips64" | "mips64el" | "powerpc" | "powerpc64" | "powerpc64le" | "sparc"
            | "sparcv9" | "loongarch32" | "loongarch64" | "hexagon" => 4,
            "riscv32" | "riscv64" | "xcore" | "arm" | "armeb" | "thumb" | "thumbeb" | "systemz" => {
                2
            }
            // A compacted instruction; others are 16 bytes.
            INTELGT => 8,
            _ => 1,
        }
    }

    /// `triple` (`cpu`, `features`) as a short label.
    pub fn label(&self) -> String {
        let mut s = self.triple.clone();
        if !self.cpu.is_empty() {
            s.push(' ');
            s.push_str(&self.cpu);
        }
        if !self.features.is_empty() {
            s.push(' ');
            s.push_str(&self.features);
        }
        s
    }
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Its length in bytes, at least 1.
    pub len: usize,
    /// `mnemonic operands`, single spaces, or [`UNKNOWN`].
    pub text: String,
    /// The address a branch or call goes to, where the instruction names
    /// one (relative targets made absolute).
    pub target: Option<u64>,
    /// Why the bytes were not decoded though an engine exists: its
    /// process failed on them (the text is then [`UNKNOWN`]).
    pub fault: Option<Fault>,
}

/// Why no engine could be made for a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// No libLLVM was found.
    Library,
    /// The library found does not know the target.
    Target { library: String },
    /// The engine cannot decode this processor's code (and asking it
    /// would end the process: LLVM's AMDGPU decoder aborts on a
    /// processor it does not handle).
    Processor { why: &'static str },
    /// No libiga64 was found.
    IgaLibrary,
    /// The libiga64 found does not know the platform.
    IgaPlatform { library: String },
    /// The file does not say which Intel GT platform its code is for.
    NoPlatform,
}

impl Missing {
    /// What to tell a user, for a target.
    pub fn message(&self, t: &Target) -> String {
        match self {
            Missing::Library => format!(
                "instructions for {} are not shown: install LLVM (libLLVM) to see them, or set {ENV_LLVM} to a libLLVM",
                t.label()
            ),
            Missing::Target { library } => format!(
                "instructions for {} are not shown: {library} does not know this target; set {ENV_LLVM} to a libLLVM that does",
                t.label()
            ),
            Missing::Processor { why } => {
                format!("instructions for {} are not shown: {why}", t.label())
            }
            Missing::IgaLibrary => format!(
                "instructions for {} are not shown: install Intel's IGA (libiga64, with the intel-opencl-icd or libigc packages) to see them, or set {ENV_IGA} to a libiga64",
                t.label()
            ),
            Missing::IgaPlatform { library } => format!(
                "instructions for {} are not shown: {library} does not know this platform; set {ENV_IGA} to a libiga64 that does",
                t.label()
            ),
            Missing::NoPlatform => format!(
                "instructions for {} are not shown: the file does not say which Intel GT platform its code is for",
                t.label()
            ),
        }
    }
}

/// The library a decoder decodes with.
enum Backend {
    Llvm(llvm::Context),
    Iga(iga::Context),
}

/// A decoder for one target, in this process.
pub(super) struct Decoder {
    ctx: Backend,
    unit: usize,
    /// How the ISA's branch targets are found.
    branches: Branches,
}

/// Where an engine learns a branch's target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Branches {
    /// From LLVM's symbol lookup, which the decoder calls with it.
    Lookup,
    /// RISC-V: from the offset the text shows, which becomes an address.
    Riscv,
    /// AMDGPU: from the 16-bit word offset of a SOPP branch.
    Amdgpu,
    /// Not found (Intel GT: IGA names targets by labels of its own).
    None,
}

impl Decoder {
    /// A decoder for `t`, or why there is none.
    pub(super) fn new(t: &Target) -> Result<Decoder, Missing> {
        precheck(t)?;
        if t.arch() == INTELGT {
            let lib = iga::get().ok_or(Missing::IgaLibrary)?;
            let ctx = iga::Context::new(lib, &t.cpu).ok_or_else(|| Missing::IgaPlatform {
                library: lib.path.display().to_string(),
            })?;
            return Ok(Decoder {
                ctx: Backend::Iga(ctx),
                unit: t.unit(),
                branches: Branches::None,
            });
        }
        let lib = llvm::get().ok_or(Missing::Library)?;
        let ctx = llvm::Context::new(lib, &t.triple, &t.cpu, &t.features).ok_or_else(|| {
            Missing::Target {
                library: lib.path.display().to_string(),
            }
        })?;
        Ok(Decoder {
            ctx: Backend::Llvm(ctx),
            unit: t.unit(),
            branches: match t.arch() {
                a if a.starts_with("riscv") => Branches::Riscv,
                "amdgcn" => Branches::Amdgpu,
                _ => Branches::Lookup,
            },
        })
    }

    /// Decodes the instruction at the start of `bytes`, at address `addr`.
    /// Bytes that do not decode give [`UNKNOWN`] of the ISA's unit (or
    /// what is left, if less); an empty slice gives length 0.
    pub(super) fn decode(&mut self, bytes: &[u8], addr: u64) -> Insn {
        if bytes.is_empty() {
            return Insn {
                len: 0,
                text: String::new(),
                target: None,
                fault: None,
            };
        }
        let ctx = match &mut self.ctx {
            Backend::Llvm(c) => c,
            Backend::Iga(c) => {
                let (n, text, target) = c.decode(bytes, addr);
                let text = text.map(|t| normalise(&t)).filter(|t| !t.is_empty());
                // A branch's target only where the instruction decoded.
                let target = target.filter(|_| text.is_some());
                return Insn {
                    len: n.clamp(1, bytes.len()),
                    text: text.unwrap_or_else(|| UNKNOWN.to_string()),
                    target,
                    fault: None,
                };
            }
        };
        let (n, raw, looked_up) = ctx.decode(bytes, addr);
        if n == 0 {
            return Insn {
                len: self.unit.min(bytes.len()),
                text: UNKNOWN.to_string(),
                target: None,
                fault: None,
            };
        }
        let mut text = normalise(&raw);
        let target = match self.branches {
            Branches::Lookup => looked_up,
            Branches::Riscv => riscv_target(&mut text, addr),
            Branches::Amdgpu => amdgpu_target(&text, bytes.get(..n), addr),
            Branches::None => None,
        };
        Insn {
            len: n,
            text,
            target,
            fault: None,
        }
    }
}

/// Why no engine can be made for `t`, where the target alone says it
/// (no library is loaded to know it).
pub(super) fn precheck(t: &Target) -> Result<(), Missing> {
    if let Some(why) = refused(t) {
        return Err(Missing::Processor { why });
    }
    if t.arch() == INTELGT && t.cpu.is_empty() {
        return Err(Missing::NoPlatform);
    }
    Ok(())
}

/// The AMDGPU processors whose code LLVM 22 disassembles: GCN3 (gfx8)
/// and later, with the older names of gfx8 parts. LLVM's AMDGPU decoder
/// ends the process (`report_fatal_error`) for a processor without a
/// decoder (gfx6, gfx7), and for one the library does not know, which it
/// replaces by the generic processor; so a name not in this list is never
/// passed to it.
const AMDGPU_DECODED: [&str; 52] = [
    "carrizo",
    "fiji",
    "iceland",
    "polaris10",
    "polaris11",
    "stoney",
    "tonga",
    "tongapro",
    "gfx801",
    "gfx802",
    "gfx803",
    "gfx805",
    "gfx810",
    "gfx9-generic",
    "gfx900",
    "gfx902",
    "gfx904",
    "gfx906",
    "gfx908",
    "gfx909",
    "gfx90a",
    "gfx90c",
    "gfx9-4-generic",
    "gfx942",
    "gfx950",
    "gfx10-1-generic",
    "gfx1010",
    "gfx1011",
    "gfx1012",
    "gfx1013",
    "gfx10-3-generic",
    "gfx1030",
    "gfx1031",
    "gfx1032",
    "gfx1033",
    "gfx1034",
    "gfx1035",
    "gfx1036",
    "gfx11-generic",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1150",
    "gfx1151",
    "gfx1152",
    "gfx1153",
    "gfx12-generic",
    "gfx1200",
    "gfx1201",
    "gfx1250",
    "gfx1251",
];

/// Why `t` is not given to the engine at all, if it is not.
fn refused(t: &Target) -> Option<&'static str> {
    match t.arch() {
        "amdgcn" if t.cpu.starts_with("gfx6") || t.cpu.starts_with("gfx7") => {
            Some("LLVM does not disassemble gfx6 and gfx7 code")
        }
        "amdgcn" if !AMDGPU_DECODED.contains(&t.cpu.as_str()) => {
            Some("fwview does not know whether LLVM disassembles this processor")
        }
        // R600 (pre-GCN) has no decoder in LLVM.
        "r600" => Some("LLVM does not disassemble R600 code"),
        _ => None,
    }
}

/// The RISC-V branches and jumps whose last operand is an offset from the
/// instruction.
const RISCV_BRANCHES: [&str; 20] = [
    "beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz", "bgtz",
    "bgt", "ble", "bgtu", "bleu", "j", "jal", "c.j", "c.jal",
];

/// Rewrites a RISC-V branch's offset as the address it reaches, as
/// `llvm-objdump` prints it (LLVM's RISC-V decoder does not pass branches
/// to the symbol lookup that gives the other ISAs their addresses), and
/// returns that address.
fn riscv_target(text: &mut String, addr: u64) -> Option<u64> {
    let mnemonic = text.split(' ').next().unwrap_or("");
    if !RISCV_BRANCHES.contains(&mnemonic) {
        return None;
    }
    let i = text.rfind([' ', ','])?;
    let last = text.get(i + 1..)?;
    let (neg, mag) = match last.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, last),
    };
    let v = match mag.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16),
        None => mag.parse::<i64>(),
    };
    let v = v.ok()?;
    let target = if neg {
        addr.wrapping_sub(v as u64)
    } else {
        addr.wrapping_add(v as u64)
    };
    text.truncate(i + 1);
    text.push_str(&format!("0x{target:x}"));
    Some(target)
}

/// The target of an AMDGPU SOPP branch (`s_branch`, `s_cbranch_*` with a
/// number for operand): the signed 16-bit word count in the low half of
/// the instruction's little-endian word, from the instruction after it.
/// LLVM's AMDGPU decoder hands branch targets only to a symbolizer of its
/// own, which the C API cannot feed, so the target is read from the bytes.
fn amdgpu_target(text: &str, bytes: Option<&[u8]>, addr: u64) -> Option<u64> {
    let (mnemonic, operand) = text.split_once(' ').unwrap_or((text, ""));
    let branch = mnemonic == "s_branch" || mnemonic.starts_with("s_cbranch_");
    if !branch || operand.is_empty() || !operand.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let b = bytes.filter(|b| b.len() == 4)?;
    let imm = i16::from_le_bytes([*b.first()?, *b.get(1)?]);
    Some(
        addr.wrapping_add(4)
            .wrapping_add((i64::from(imm) * 4) as u64),
    )
}

/// `mnemonic operands` with every run of whitespace one space, none at the
/// ends.
pub fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Why an instruction was not decoded though an engine exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The decoder's process ended while decoding these bytes: by the
    /// signal, if one, with the last line it wrote, if any.
    Died { signal: Option<i32>, said: String },
    /// The decoder said nothing for this many seconds.
    Silent { secs: u64 },
    /// This many faults before: this thread no longer decodes.
    GaveUp { faults: u32 },
    /// No worker process could be started.
    NoWorker(String),
}

impl Fault {
    /// What to tell a user.
    pub fn message(&self) -> String {
        match self {
            Fault::Died { signal, said } => {
                let mut s = String::from("the decoder crashed on these bytes");
                match signal {
                    Some(n) => s.push_str(&format!(" ({})", signal_name(*n))),
                    None => s.push_str(" (its process ended)"),
                }
                if !said.is_empty() {
                    s.push_str(&format!(": {said}"));
                }
                s.push_str("; they are shown as unknown and decoding goes on after them");
                s
            }
            Fault::Silent { secs } => format!(
                "the decoder did not answer within {secs} s on these bytes; they are shown as unknown and decoding goes on after them"
            ),
            Fault::GaveUp { faults } => {
                format!("not decoded: the decoder failed {faults} times before")
            }
            Fault::NoWorker(e) => format!("not decoded: no decoder process could be started: {e}"),
        }
    }
}

fn signal_name(n: i32) -> String {
    let name = match n {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => return format!("signal {n}"),
    };
    format!("signal {n}, {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_normalised() {
        assert_eq!(normalise("\tmovl\t$0x1, %eax  "), "movl $0x1, %eax");
        assert_eq!(normalise(""), "");
    }

    #[test]
    fn riscv_branch_offsets_become_addresses() {
        let mut t = String::from("bne a2, a1, -0xe");
        assert_eq!(riscv_target(&mut t, 0x18), Some(0xa));
        assert_eq!(t, "bne a2, a1, 0xa");
        let mut t = String::from("j 0x10");
        assert_eq!(riscv_target(&mut t, 0x20), Some(0x30));
        assert_eq!(t, "j 0x30");
        let mut t = String::from("bseti a0, a0, 0x5");
        assert_eq!(riscv_target(&mut t, 0x20), None);
        assert_eq!(t, "bseti a0, a0, 0x5");
    }

    /// Processors that would end the process inside LLVM are refused
    /// before LLVM is asked (an abort here would fail the test run).
    #[test]
    fn processors_llvm_aborts_on_are_refused() {
        for cpu in [
            "gfx600",
            "gfx705",
            "",
            "gfx9_generic",
            "gfx1300",
            "reserved_0x27",
        ] {
            let t = Target::new("amdgcn-amd-amdhsa", cpu, "");
            assert!(
                matches!(Decoder::new(&t), Err(Missing::Processor { .. })),
                "{cpu}"
            );
        }
        let t = Target::new("r600-amd-amdhsa", "cypress", "");
        assert!(matches!(Decoder::new(&t), Err(Missing::Processor { .. })));
        for cpu in AMDGPU_DECODED {
            let t = Target::new("amdgcn-amd-amdhsa", cpu, "");
            match Decoder::new(&t) {
                Ok(_) | Err(Missing::Library | Missing::Target { .. }) => {}
                Err(m) => panic!("{cpu}: {}", m.message(&t)),
            }
        }
    }

    #[test]
    fn amdgpu_branch_targets_come_from_the_word_offset() {
        // s_cbranch_execz 23 at 0x1c: 0x1c + 4 + 23 * 4.
        let w = 0xbf88_0017u32.to_le_bytes();
        assert_eq!(
            amdgpu_target("s_cbranch_execz 23", Some(&w), 0x1c),
            Some(0x7c)
        );
        // s_cbranch_execnz 65521 (-15) at 0x180: back to 0x148.
        let w = 0xbf89_fff1u32.to_le_bytes();
        assert_eq!(
            amdgpu_target("s_cbranch_execnz 65521", Some(&w), 0x180),
            Some(0x148)
        );
        assert_eq!(amdgpu_target("s_endpgm", Some(&w), 0), None);
        assert_eq!(amdgpu_target("s_cbranch_join s4", Some(&w), 0), None);
    }

    #[test]
    fn units_follow_the_isa() {
        assert_eq!(Target::new("amdgcn-amd-amdhsa", "gfx90a", "").unit(), 4);
        assert_eq!(Target::new("riscv64", "", "+c").unit(), 2);
        assert_eq!(Target::new("x86_64", "", "").unit(), 1);
    }

    /// With a libLLVM present, known bytes decode as llvm-objdump prints
    /// them; without one, the engine says so and nothing fails.
    #[test]
    fn x86_decodes_where_llvm_is() {
        let t = Target::new("x86_64-unknown-linux-gnu", "", "");
        match Decoder::new(&t) {
            Ok(mut e) => {
                let i = e.decode(&[0xb8, 0x01, 0, 0, 0, 0xc3], 0);
                assert_eq!(i.len, 5);
                assert_eq!(i.target, None);
                assert_eq!(i.text, "movl $0x1, %eax");
                // jmp -2 at 0x10: back to itself.
                let i = e.decode(&[0xeb, 0xfe], 0x10);
                assert_eq!((i.text.as_str(), i.target), ("jmp 0x10", Some(0x10)));
                let i = e.decode(&[0xc3], 5);
                assert_eq!((i.len, i.text.as_str()), (1, "retq"));
                // An opcode x86-64 does not have.
                let i = e.decode(&[0x06], 6);
                assert_eq!((i.len, i.text.as_str()), (1, UNKNOWN));
            }
            Err(m) => eprintln!("{}", m.message(&t)),
        }
    }

    /// With a libiga64 present, an instruction's length follows its
    /// compaction bit, and bytes cut short are unknown; without one, the
    /// engine says what to install and nothing fails.
    #[test]
    fn intel_gt_lengths_follow_the_compaction_bit() {
        let t = Target::new(INTELGT, "xe_hpc", "");
        match Decoder::new(&t) {
            Ok(mut e) => {
                let full = [0u8; 16];
                assert_eq!(e.decode(&full, 0).len, 16);
                let mut compact = [0u8; 16];
                compact[3] = 0x20;
                assert_eq!(e.decode(&compact, 0).len, 8);
                let i = e.decode(&full[..12], 0);
                assert_eq!((i.len, i.text.as_str()), (12, UNKNOWN));
                let i = e.decode(&full[..3], 0);
                assert_eq!((i.len, i.text.as_str()), (3, UNKNOWN));
            }
            Err(m) => eprintln!("{}", m.message(&t)),
        }
        let none = Target::new(INTELGT, "", "");
        assert!(matches!(Decoder::new(&none), Err(Missing::NoPlatform)));
        let odd = Target::new(INTELGT, "gen99", "");
        assert!(matches!(
            Decoder::new(&odd),
            Err(Missing::IgaLibrary | Missing::IgaPlatform { .. })
        ));
    }

    /// Arbitrary bytes through IGA on every platform the library knows:
    /// each instruction is 8 or 16 bytes (or what is left) and has a
    /// bounded text, and decoding walks to the end.
    #[test]
    fn intel_gt_survives_arbitrary_bytes() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut bytes = vec![0u8; 1 << 16];
        for b in bytes.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        for (p, _) in iga::PLATFORMS {
            let t = Target::new(INTELGT, p, "");
            let Ok(mut e) = Decoder::new(&t) else {
                continue;
            };
            let mut off = 0;
            while off < bytes.len() {
                let i = e.decode(&bytes[off..], off as u64);
                assert!(
                    i.len == 8 || i.len == 16 || off + i.len == bytes.len(),
                    "{p} at {off}: length {}",
                    i.len
                );
                assert!(!i.text.is_empty() && i.text.len() <= 4096, "{p} at {off}");
                off += i.len;
            }
        }
    }
}
