//! LLVM's MC disassembler through its stable C API (`llvm-c/Disassembler.h`),
//! from a libLLVM found at run time. Every `unsafe` block of the
//! disassembly layer is in this file.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

/// The environment variable that names a libLLVM to use.
pub const ENV_LLVM: &str = "FWVIEW_LLVM";

/// `LLVMDisasmContextRef`.
type Ctx = *mut c_void;
type CreateFn = unsafe extern "C" fn(
    triple: *const c_char,
    cpu: *const c_char,
    features: *const c_char,
    dis_info: *mut c_void,
    tag_type: c_int,
    get_op_info: *const c_void,
    symbol_lookup: Option<LookupFn>,
) -> Ctx;
/// `LLVMSymbolLookupCallback`.
type LookupFn = unsafe extern "C" fn(
    dis_info: *mut c_void,
    value: u64,
    reference_type: *mut u64,
    pc: u64,
    reference_name: *mut *const c_char,
) -> *const c_char;
type OptionsFn = unsafe extern "C" fn(Ctx, u64) -> c_int;
type DisasmFn = unsafe extern "C" fn(Ctx, *mut u8, u64, u64, *mut c_char, usize) -> usize;
type DisposeFn = unsafe extern "C" fn(Ctx);
type InitFn = unsafe extern "C" fn();

/// `LLVMDisassembler_Option_PrintImmHex`: immediates in hex, as
/// `llvm-objdump` prints them.
const PRINT_IMM_HEX: u64 = 2;
/// `LLVMDisassembler_Option_AsmPrinterVariant`: the target's other
/// assembly dialect (on x86, Intel's in place of AT&T's).
const ASM_PRINTER_VARIANT: u64 = 4;

/// `LLVMDisassembler_ReferenceType_In_Branch`.
const IN_BRANCH: u64 = 1;
/// `LLVMDisassembler_ReferenceType_InOut_None`.
const INOUT_NONE: u64 = 0;

/// What the lookup callback writes: the last branch target, as an
/// address and as the text the operand is printed with.
#[derive(Default)]
struct Lookup {
    target: Option<u64>,
    name: CString,
}

/// The symbol lookup the disassembler calls for an operand that may be an
/// address: for a branch, its target as an absolute address in hex (what
/// `llvm-objdump` prints before the symbol it names), remembered for the
/// caller; nothing otherwise.
unsafe extern "C" fn lookup(
    dis_info: *mut c_void,
    value: u64,
    reference_type: *mut u64,
    _pc: u64,
    reference_name: *mut *const c_char,
) -> *const c_char {
    // SAFETY: LLVM passes valid pointers for the out-parameters (or null,
    // checked); `dis_info` is the `Lookup` its context was made with,
    // allocated by the `Context` and freed only when the context is
    // disposed, and no reference to it lives while LLVM runs.
    unsafe {
        if !reference_name.is_null() {
            *reference_name = std::ptr::null();
        }
        if reference_type.is_null() || dis_info.is_null() {
            return std::ptr::null();
        }
        let branch = *reference_type == IN_BRANCH;
        *reference_type = INOUT_NONE;
        if !branch {
            return std::ptr::null();
        }
        let l = &mut *dis_info.cast::<Lookup>();
        l.target = Some(value);
        l.name = CString::new(format!("0x{value:x}")).unwrap_or_default();
        l.name.as_ptr()
    }
}

/// The targets whose initialisers are called (what `LLVMInitializeAll*`
/// would call, for the targets a libLLVM usually carries). A target the
/// library was built without is skipped.
const TARGETS: [&str; 12] = [
    "X86",
    "AArch64",
    "ARM",
    "RISCV",
    "AMDGPU",
    "XCore",
    "Mips",
    "PowerPC",
    "SystemZ",
    "Sparc",
    "LoongArch",
    "Hexagon",
];

/// The library and the entry points the disassembler needs.
pub(super) struct Llvm {
    /// Where the library was found.
    pub path: PathBuf,
    create: CreateFn,
    options: OptionsFn,
    disasm: DisasmFn,
    dispose: DisposeFn,
    /// Kept loaded for the life of the process: the function pointers
    /// above point into it.
    _lib: Library,
}

/// The oldest and newest LLVM major versions looked for.
const OLDEST: u32 = 14;
const NEWEST: u32 = 30;

/// The candidates, in the order of the module documentation.
fn candidates() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(p) = std::env::var_os(ENV_LLVM) {
        v.push(PathBuf::from(p));
    }
    for n in (OLDEST..=NEWEST).rev() {
        let dir = PathBuf::from(format!("/usr/lib/llvm-{n}/lib"));
        v.extend(libs_in(&dir));
    }
    v.extend(libs_in(Path::new("/opt/rocm/llvm/lib")));
    for n in (OLDEST..=NEWEST).rev() {
        v.push(PathBuf::from(format!("libLLVM.so.{n}")));
        v.push(PathBuf::from(format!("libLLVM-{n}.so")));
    }
    v
}

/// `libLLVM.so*` and `libLLVM-*.so` in `dir`, the plainest name first.
fn libs_in(dir: &Path) -> Vec<PathBuf> {
    super::search::libraries_in(dir, |n| {
        n.starts_with("libLLVM.so") || (n.starts_with("libLLVM-") && n.ends_with(".so"))
    })
}

/// The library, loaded on first use; `None` when none was found.
pub(super) fn get() -> Option<&'static Llvm> {
    static LLVM: OnceLock<Option<Llvm>> = OnceLock::new();
    LLVM.get_or_init(|| candidates().iter().find_map(|p| load(p)))
        .as_ref()
}

fn load(path: &Path) -> Option<Llvm> {
    // SAFETY: loading a shared library runs its initialisers. The
    // candidates are libLLVM builds (by name, or as the user points at one
    // through the environment), whose initialisers only register their
    // components.
    let lib = unsafe { Library::new(path) }.ok()?;
    // SAFETY: each symbol is looked up with the type the C API declares
    // for it (llvm-c/Disassembler.h); the pointers are kept only together
    // with the library (`_lib`), which stays loaded for the process.
    let (create, options, disasm, dispose) = unsafe {
        (
            *lib.get::<CreateFn>(b"LLVMCreateDisasmCPUFeatures\0").ok()?,
            *lib.get::<OptionsFn>(b"LLVMSetDisasmOptions\0").ok()?,
            *lib.get::<DisasmFn>(b"LLVMDisasmInstruction\0").ok()?,
            *lib.get::<DisposeFn>(b"LLVMDisasmDispose\0").ok()?,
        )
    };
    for t in TARGETS {
        for part in ["TargetInfo", "TargetMC", "Disassembler"] {
            let name = format!("LLVMInitialize{t}{part}\0");
            // SAFETY: the initialisers take no arguments and return nothing
            // (llvm-c/Target.h); calling one twice is harmless, and they
            // are called once per process here (under the OnceLock).
            unsafe {
                if let Ok(f) = lib.get::<InitFn>(name.as_bytes()) {
                    f();
                }
            }
        }
    }
    Some(Llvm {
        path: path.to_path_buf(),
        create,
        options,
        disasm,
        dispose,
        _lib: lib,
    })
}

/// One disassembler context of the library, for one target.
pub(super) struct Context {
    llvm: &'static Llvm,
    ctx: Ctx,
    /// The text buffer, grown when an instruction's text fills it.
    out: Vec<u8>,
    /// What the lookup callback writes: a `Box<Lookup>` turned into a
    /// pointer (LLVM keeps the address), or null; freed in Drop.
    lookup: *mut Lookup,
}

/// The first size of the text buffer, and the largest it grows to.
const FIRST_OUT: usize = 64;
const MAX_OUT: usize = 1 << 14;

impl Context {
    /// A context for `triple`, `cpu` and `features`; `None` when the
    /// library does not know the target (or a string holds a NUL).
    pub fn new(llvm: &'static Llvm, triple: &str, cpu: &str, features: &str) -> Option<Context> {
        let t = CString::new(triple).ok()?;
        let c = CString::new(cpu).ok()?;
        let f = CString::new(features).ok()?;
        // AMDGPU's symbolizer takes `dis_info` for a list of its own
        // kind: it gets neither a callback nor `dis_info`. Every other
        // target's branch targets are printed as addresses by `lookup`.
        let amdgpu = triple.starts_with("amdgcn") || triple.starts_with("r600");
        let state: *mut Lookup = if amdgpu {
            std::ptr::null_mut()
        } else {
            Box::into_raw(Box::<Lookup>::default())
        };
        let cb: Option<LookupFn> = (!state.is_null()).then_some(lookup as LookupFn);
        let info: *mut c_void = state.cast();
        // SAFETY: the three strings are NUL-terminated and outlive the call
        // (LLVM copies them). `info` is null or the `Lookup` allocated
        // above, which lives until the context is disposed (in Drop, or
        // just below when no context is made), and `lookup` only uses it
        // as that type.
        let ctx = unsafe {
            (llvm.create)(
                t.as_ptr(),
                c.as_ptr(),
                f.as_ptr(),
                info,
                0,
                std::ptr::null(),
                cb,
            )
        };
        if ctx.is_null() {
            if !state.is_null() {
                // SAFETY: made by `Box::into_raw` above and given to no
                // context.
                drop(unsafe { Box::from_raw(state) });
            }
            return None;
        }
        let x86 = matches!(
            triple.split('-').next(),
            Some("x86_64" | "i386" | "i486" | "i586" | "i686" | "x86")
        );
        // One option a call, the dialect first: choosing a dialect makes a
        // new instruction printer, which forgets options set before.
        let intel = x86 && super::syntax::x86_syntax() == super::syntax::Syntax::Intel;
        // SAFETY: `ctx` was just made by the library and is not null.
        unsafe {
            if intel {
                (llvm.options)(ctx, ASM_PRINTER_VARIANT);
            }
            (llvm.options)(ctx, PRINT_IMM_HEX);
        }
        Some(Context {
            llvm,
            ctx,
            out: vec![0; FIRST_OUT],
            lookup: state,
        })
    }

    /// Decodes the instruction at the start of `bytes`, at address `pc`:
    /// its length (0: no instruction decodes there), its text and the
    /// target of its branch, where the decoder passed one to the symbol
    /// lookup.
    pub fn decode(&mut self, bytes: &[u8], pc: u64) -> (usize, String, Option<u64>) {
        loop {
            if !self.lookup.is_null() {
                // SAFETY: `lookup` is the live `Lookup` of this context;
                // LLVM touches it only inside the calls below.
                unsafe { (*self.lookup).target = None };
            }
            let cap = self.out.len();
            // SAFETY: `ctx` is a live context of this library (disposed
            // only in Drop). LLVM reads at most `bytes.len()` bytes from
            // the pointer (it declares it mutable but never writes it) and
            // writes at most `cap` bytes, a NUL included, into `out`.
            let n = unsafe {
                (self.llvm.disasm)(
                    self.ctx,
                    bytes.as_ptr().cast_mut(),
                    bytes.len() as u64,
                    pc,
                    self.out.as_mut_ptr().cast(),
                    cap,
                )
            };
            let text = CStr::from_bytes_until_nul(&self.out)
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A text that fills the buffer may have been cut: grow it and
            // decode again.
            if text.len() + 1 >= cap && cap < MAX_OUT {
                self.out.resize(cap * 2, 0);
                continue;
            }
            let target = if self.lookup.is_null() {
                None
            } else {
                // SAFETY: as above; LLVM is done with it.
                unsafe { (*self.lookup).target }
            };
            return (n.min(bytes.len()), text, target);
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `ctx` was made by this library, is not null, and is
        // disposed only here, once.
        unsafe { (self.llvm.dispose)(self.ctx) }
        if !self.lookup.is_null() {
            // SAFETY: made by `Box::into_raw` in `new`; the context that
            // used it is disposed just above, so nothing else holds it.
            drop(unsafe { Box::from_raw(self.lookup) });
        }
    }
}
