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
//! Once the program calls [`worker::isolate`] (fwview's `main` does), an
//! engine decodes in a worker process, so that a decoder that crashes or
//! hangs costs an instruction, not the program: see [`worker`].
//!
//! An engine is untrusted: its text is bounded, an instruction it cannot
//! decode is `<unknown>` of the ISA's smallest unit (Intel GT: of the 8 or
//! 16 bytes its compaction bit says, or what is left), and a caller decodes
//! at most [`MAX_INSNS`] instructions a function.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod decoder;
mod iga;
mod llvm;
mod search;
mod syntax;
pub mod worker;

use std::path::Path;

use decoder::Decoder;
pub use decoder::{normalise, Fault, Insn, Missing, Target, INTELGT, MAX_INSNS, UNKNOWN};

pub use iga::{ENV_IGA, PLATFORMS as IGA_PLATFORMS};
pub use llvm::ENV_LLVM;

pub use syntax::{set_x86_syntax, x86_syntax, Syntax, ENV_X86_SYNTAX};

/// A decoder for one target: in this process, or in the worker
/// process after [`worker::isolate`].
pub struct Engine {
    inner: Inner,
}

enum Inner {
    Here(Decoder),
    Apart(worker::Remote),
}

impl Engine {
    /// An engine for `t`, or why there is none. After
    /// [`worker::isolate`], it decodes in a worker process, which says
    /// whether it has an engine: only the worker loads the library.
    pub fn new(t: &Target) -> Result<Engine, Missing> {
        if !worker::isolated() {
            return Decoder::new(t).map(|d| Engine {
                inner: Inner::Here(d),
            });
        }
        decoder::precheck(t)?;
        worker::probe(t, t.unit())?;
        Ok(Engine {
            inner: Inner::Apart(worker::Remote::new(t, t.unit())),
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
        match &mut self.inner {
            Inner::Here(d) => d.decode(bytes, addr),
            Inner::Apart(_) if bytes.is_empty() => Insn {
                len: 0,
                text: String::new(),
                target: None,
                fault: None,
            },
            Inner::Apart(r) => r.decode(bytes, addr),
        }
    }

    /// Says which code will be decoded next, each run from its start (the
    /// functions after the one being decoded): an engine in a worker
    /// process decodes them while the caller is busy. Only a hint.
    pub fn expect(&mut self, runs: &[(&[u8], u64)]) {
        if let Inner::Apart(r) = &mut self.inner {
            r.expect(runs);
        }
    }
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
