//! Machine code as instructions: an [`Engine`] decodes one instruction at a
//! time from bytes at an address, for a [`Target`] (triple, processor,
//! features). This layer knows neither the UI nor any file format; a
//! format that finds code says which target it is and asks an engine.
//!
//! The engine is LLVM's MC disassembler, through its stable C API
//! (`LLVMCreateDisasmCPUFeatures`, `LLVMDisasmInstruction`), in a libLLVM
//! loaded at run time, once per process. The library is looked for in this
//! order, the first that loads and has the C API wins:
//!
//! 1. the path in the environment variable `FWVIEW_LLVM`;
//! 2. `/usr/lib/llvm-N/lib/libLLVM.so*` (and `libLLVM-N.so`), for N from 30
//!    down to 14;
//! 3. `/opt/rocm/llvm/lib` (ROCm's LLVM);
//! 4. the sonames `libLLVM.so.N` and `libLLVM-N.so`, N from 30 down to 14,
//!    through the system's loader (`LD_LIBRARY_PATH`, the loader's cache).
//!
//! Intel GT code (the triple `intelgt`, the processor an IGA platform:
//! `gen9`, `xe`, `xe_hpg`, `xe_hpc`, `xe2`…) goes to Intel's IGA instead,
//! through its C API (`iga_context_create`,
//! `iga_context_disassemble_instruction`) in a `libiga64` (installed with
//! Intel's compute runtime: Debian's intel-opencl-icd and libigc packages),
//! also loaded at run time, looked for in this order:
//!
//! 1. the path in the environment variable `FWVIEW_IGA`;
//! 2. the sonames `libiga64.so.2`, `libiga64.so.1` and `libiga64.so`
//!    through the system's loader;
//! 3. `libiga64.so*` in `/usr/lib/x86_64-linux-gnu`, `/usr/local/lib`,
//!    `/usr/lib64`, `/usr/lib`, `/opt/intel/oneapi/lib` and
//!    `/opt/intel/oneapi/compiler/latest/lib`.
//!
//! No library is not an error: [`Engine::new`] says what is missing and the
//! caller shows the bytes as they are.
//!
//! An engine is untrusted: its text is bounded, an instruction it cannot
//! decode is `<unknown>` of the ISA's smallest unit (Intel GT: of the 8 or
//! 16 bytes its compaction bit says, or what is left), and a caller decodes
//! at most [`MAX_INSNS`] instructions a function.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod iga;
mod llvm;
mod search;

use std::path::Path;

pub use iga::{ENV_IGA, PLATFORMS as IGA_PLATFORMS};
pub use llvm::ENV_LLVM;

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
}

/// Why no engine could be made for a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// No libLLVM was found.
    Library,
    /// The library found does not know the target.
    Target { library: String },
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

/// The library an engine decodes with.
enum Backend {
    Llvm(llvm::Context),
    Iga(iga::Context),
}

/// A decoder for one target.
pub struct Engine {
    ctx: Backend,
    unit: usize,
    /// RISC-V: branch targets come as offsets, shown as addresses.
    riscv: bool,
}

impl Engine {
    /// An engine for `t`, or why there is none.
    pub fn new(t: &Target) -> Result<Engine, Missing> {
        if t.arch() == INTELGT {
            if t.cpu.is_empty() {
                return Err(Missing::NoPlatform);
            }
            let lib = iga::get().ok_or(Missing::IgaLibrary)?;
            let ctx = iga::Context::new(lib, &t.cpu).ok_or_else(|| Missing::IgaPlatform {
                library: lib.path.display().to_string(),
            })?;
            return Ok(Engine {
                ctx: Backend::Iga(ctx),
                unit: t.unit(),
                riscv: false,
            });
        }
        let lib = llvm::get().ok_or(Missing::Library)?;
        let ctx = llvm::Context::new(lib, &t.triple, &t.cpu, &t.features).ok_or_else(|| {
            Missing::Target {
                library: lib.path.display().to_string(),
            }
        })?;
        Ok(Engine {
            ctx: Backend::Llvm(ctx),
            unit: t.unit(),
            riscv: t.arch().starts_with("riscv"),
        })
    }

    /// The libLLVM that LLVM's targets decode with, if one was loaded.
    pub fn library() -> Option<&'static Path> {
        llvm::get().map(|l| l.path.as_path())
    }

    /// Decodes the instruction at the start of `bytes`, at address `addr`.
    /// Bytes that do not decode give [`UNKNOWN`] of the ISA's unit (or
    /// what is left, if less); an empty slice gives length 0.
    pub fn decode(&mut self, bytes: &[u8], addr: u64) -> Insn {
        if bytes.is_empty() {
            return Insn {
                len: 0,
                text: String::new(),
            };
        }
        let ctx = match &mut self.ctx {
            Backend::Llvm(c) => c,
            Backend::Iga(c) => {
                let (n, text) = c.decode(bytes, addr);
                let text = text
                    .map(|t| normalise(&t))
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| UNKNOWN.to_string());
                return Insn {
                    len: n.clamp(1, bytes.len()),
                    text,
                };
            }
        };
        let (n, raw) = ctx.decode(bytes, addr);
        if n == 0 {
            return Insn {
                len: self.unit.min(bytes.len()),
                text: UNKNOWN.to_string(),
            };
        }
        let mut text = normalise(&raw);
        if self.riscv {
            riscv_target(&mut text, addr);
        }
        Insn { len: n, text }
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
/// to the symbol lookup that gives the other ISAs their addresses).
fn riscv_target(text: &mut String, addr: u64) {
    let mnemonic = text.split(' ').next().unwrap_or("");
    if !RISCV_BRANCHES.contains(&mnemonic) {
        return;
    }
    let Some(i) = text.rfind([' ', ',']) else {
        return;
    };
    let Some(last) = text.get(i + 1..) else {
        return;
    };
    let (neg, mag) = match last.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, last),
    };
    let v = match mag.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16),
        None => mag.parse::<i64>(),
    };
    let Ok(v) = v else {
        return;
    };
    let target = if neg {
        addr.wrapping_sub(v as u64)
    } else {
        addr.wrapping_add(v as u64)
    };
    text.truncate(i + 1);
    text.push_str(&format!("0x{target:x}"));
}

/// How many engines a thread keeps for reuse.
const KEPT: usize = 8;

thread_local! {
    /// The engines this thread made, newest last: making one costs far
    /// more than decoding a function.
    static ENGINES: std::cell::RefCell<Vec<(Target, Engine)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with an engine for `t`, one this thread made before where it
/// can; or says why there is none.
pub fn with_engine<R>(t: &Target, f: impl FnOnce(&mut Engine) -> R) -> Result<R, Missing> {
    ENGINES.with(|cell| {
        let Ok(mut kept) = cell.try_borrow_mut() else {
            // Called from inside `f`: a fresh engine.
            return Engine::new(t).map(|mut e| f(&mut e));
        };
        if let Some(i) = kept.iter().position(|(k, _)| k == t) {
            if let Some((_, e)) = kept.get_mut(i) {
                return Ok(f(e));
            }
        }
        let mut e = Engine::new(t)?;
        let r = f(&mut e);
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((t.clone(), e));
        Ok(r)
    })
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
        riscv_target(&mut t, 0x18);
        assert_eq!(t, "bne a2, a1, 0xa");
        let mut t = String::from("j 0x10");
        riscv_target(&mut t, 0x20);
        assert_eq!(t, "j 0x30");
        let mut t = String::from("bseti a0, a0, 0x5");
        riscv_target(&mut t, 0x20);
        assert_eq!(t, "bseti a0, a0, 0x5");
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
        match Engine::new(&t) {
            Ok(mut e) => {
                let i = e.decode(&[0xb8, 0x01, 0, 0, 0, 0xc3], 0);
                assert_eq!(i.len, 5);
                assert_eq!(i.text, "movl $0x1, %eax");
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
        match Engine::new(&t) {
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
        assert!(matches!(Engine::new(&none), Err(Missing::NoPlatform)));
        let odd = Target::new(INTELGT, "gen99", "");
        assert!(matches!(
            Engine::new(&odd),
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
        for (p, _) in IGA_PLATFORMS {
            let t = Target::new(INTELGT, p, "");
            let Ok(mut e) = Engine::new(&t) else {
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
