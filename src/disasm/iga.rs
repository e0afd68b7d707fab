//! Intel's IGA (Intel Graphics Assembler) through its C API (`iga.h`),
//! from a `libiga64` found at run time: Intel GT (Gen8 to Xe3) instructions,
//! one at a time. Every `unsafe` block of this engine is in this file.

use std::ffi::{c_char, c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

/// The environment variable that names a libiga64 to use.
pub const ENV_IGA: &str = "FWVIEW_IGA";

/// `iga_context_t`.
type Ctx = *mut c_void;
/// `iga_status_t`: 0 is `IGA_SUCCESS`.
type Status = i32;
/// The label callback: a PC relative to the instruction, and what the
/// caller passed along; returns the label's text (or null: IGA's own).
type LabelFn = unsafe extern "C" fn(rel: i32, env: *mut c_void) -> *const c_char;
type CreateFn = unsafe extern "C" fn(opts: *const ContextOptions, ctx: *mut Ctx) -> Status;
type ReleaseFn = unsafe extern "C" fn(ctx: Ctx) -> Status;
type DisasmInsnFn = unsafe extern "C" fn(
    ctx: Ctx,
    opts: *const DisasmOptions,
    input: *const c_void,
    label: Option<LabelFn>,
    label_env: *mut c_void,
    text: *mut *mut c_char,
) -> Status;

/// `iga_context_options_t`: `cb` is the structure's size (a `size_t`).
#[repr(C)]
struct ContextOptions {
    cb: usize,
    gen: u32,
}

/// `iga_disassemble_options_t`: six 32-bit words, `cb` its size.
#[repr(C)]
struct DisasmOptions {
    cb: u32,
    formatting_opts: u32,
    reserved0: u32,
    reserved1: u32,
    decoder_opts: u32,
    base_pc_offset: u32,
}

/// `GEN_VER(maj, min)` of `iga.h`.
const fn gen_ver(maj: u32, min: u32) -> u32 {
    (maj << 16) | min
}

/// `XE_VER(maj, min)` of `iga.h`.
const fn xe_ver(maj: u32, min: u32) -> u32 {
    (maj << 24) | min
}

/// The platforms, as a [`super::Target`]'s processor spells them (IGA's
/// `iga_gen_t` names, lower case, without `IGA_`), and their `iga_gen_t`.
pub const PLATFORMS: [(&str, u32); 14] = [
    ("gen8", gen_ver(8, 0)),
    ("gen8lp", gen_ver(8, 1)),
    ("gen9", gen_ver(9, 0)),
    ("gen9lp", gen_ver(9, 1)),
    ("gen9p5", gen_ver(9, 5)),
    ("gen10", gen_ver(10, 0)),
    ("gen11", gen_ver(11, 0)),
    ("xe", xe_ver(1, 0)),
    ("xe_hp", xe_ver(1, 1)),
    ("xe_hpg", xe_ver(1, 2)),
    ("xe_hpc", xe_ver(1, 4)),
    ("xe2", xe_ver(2, 0)),
    ("xe3", xe_ver(3, 0)),
    ("xe3p_xpc", xe_ver(3, 3)),
];

/// The `iga_gen_t` of a platform name of [`PLATFORMS`].
fn gen(platform: &str) -> Option<u32> {
    PLATFORMS
        .iter()
        .find(|(n, _)| *n == platform)
        .map(|&(_, g)| g)
}

/// The library and the entry points the engine needs.
pub(super) struct Iga {
    /// Where the library was found.
    pub path: PathBuf,
    create: CreateFn,
    release: ReleaseFn,
    disasm: DisasmInsnFn,
    /// Kept loaded for the life of the process: the function pointers
    /// above point into it.
    _lib: Library,
}

/// The sonames tried through the system's loader, newest first.
const SONAMES: [&str; 3] = ["libiga64.so.2", "libiga64.so.1", "libiga64.so"];

/// Directories looked in after the loader.
const DIRS: [&str; 6] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/local/lib",
    "/usr/lib64",
    "/usr/lib",
    "/opt/intel/oneapi/lib",
    "/opt/intel/oneapi/compiler/latest/lib",
];

/// The candidates, in the order of the module documentation.
fn candidates() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(p) = std::env::var_os(ENV_IGA) {
        v.push(PathBuf::from(p));
    }
    v.extend(SONAMES.iter().map(PathBuf::from));
    for d in DIRS {
        v.extend(super::search::libraries_in(Path::new(d), |n| {
            n.starts_with("libiga64.so")
        }));
    }
    v
}

/// The library, loaded on first use; `None` when none was found.
pub(super) fn get() -> Option<&'static Iga> {
    static IGA: OnceLock<Option<Iga>> = OnceLock::new();
    IGA.get_or_init(|| candidates().iter().find_map(|p| load(p)))
        .as_ref()
}

fn load(path: &Path) -> Option<Iga> {
    // SAFETY: loading a shared library runs its initialisers. The
    // candidates are libiga64 builds (by name, or as the user points at
    // one through the environment), whose initialisers set up static
    // tables only.
    let lib = unsafe { Library::new(path) }.ok()?;
    // SAFETY: each symbol is looked up with the type iga.h declares for
    // it; the pointers are kept only together with the library (`_lib`),
    // which stays loaded for the process.
    let (create, release, disasm) = unsafe {
        (
            *lib.get::<CreateFn>(b"iga_context_create\0").ok()?,
            *lib.get::<ReleaseFn>(b"iga_context_release\0").ok()?,
            *lib.get::<DisasmInsnFn>(b"iga_context_disassemble_instruction\0")
                .ok()?,
        )
    };
    Some(Iga {
        path: path.to_path_buf(),
        create,
        release,
        disasm,
        _lib: lib,
    })
}

/// What the label callback reads and writes: the instruction's address,
/// the text of the last label asked for and the address it names.
#[derive(Default)]
struct Labels {
    pc: u64,
    name: CString,
    target: Option<u64>,
}

/// IGA asks a branch's target, relative to the instruction: it is named
/// `L` and its address in decimal, the name IGA gives labels when it
/// disassembles a whole kernel from address 0, and the first one asked is
/// kept as the instruction's target.
unsafe extern "C" fn label(rel: i32, env: *mut c_void) -> *const c_char {
    if env.is_null() {
        return std::ptr::null();
    }
    // SAFETY: `env` is the `Labels` of the context making the call, boxed
    // and alive for as long as the context, and not otherwise borrowed
    // during the call.
    let l = unsafe { &mut *env.cast::<Labels>() };
    let target = i128::from(l.pc) + i128::from(rel);
    // The first label is where the branch goes (`goto`'s JIP; its UIP,
    // where the channels join again, follows).
    if l.target.is_none() {
        l.target = u64::try_from(target).ok();
    }
    l.name = CString::new(format!("L{target}")).unwrap_or_default();
    l.name.as_ptr()
}

/// The longest instruction text kept, in bytes.
const MAX_TEXT: usize = 4096;

/// The length of an instruction of `CmptCtrl` set (compacted), and of
/// one without.
const COMPACT: usize = 8;
const FULL: usize = 16;

/// `CmptCtrl`, bit 29 of an instruction's first (little-endian) dword on
/// every platform IGA decodes.
const CMPT_CTRL: u8 = 0x20;

/// One context of the library, for one platform.
pub(super) struct Context {
    iga: &'static Iga,
    ctx: Ctx,
    /// What the label callback uses (boxed: IGA gets its address).
    labels: Box<Labels>,
}

impl Context {
    /// A context for `platform` (a name of [`PLATFORMS`]); `None` when the
    /// name is not one or the library does not know the platform.
    pub fn new(iga: &'static Iga, platform: &str) -> Option<Context> {
        let opts = ContextOptions {
            cb: std::mem::size_of::<ContextOptions>(),
            gen: gen(platform)?,
        };
        let mut ctx: Ctx = std::ptr::null_mut();
        // SAFETY: `opts` is an `iga_context_options_t` with its size in
        // `cb`; `ctx` is a valid place for the new context.
        let st = unsafe { (iga.create)(&opts, &mut ctx) };
        if st != 0 || ctx.is_null() {
            return None;
        }
        Some(Context {
            iga,
            ctx,
            labels: Box::default(),
        })
    }

    /// The instruction at the start of `bytes`, at address `pc`: its
    /// length (8 when compacted, else 16, at most what is left), its
    /// text, `None` when IGA does not decode it (or it is cut short), and
    /// the address its branch or call goes to, where it names one.
    pub fn decode(&mut self, bytes: &[u8], pc: u64) -> (usize, Option<String>, Option<u64>) {
        let Some(&b3) = bytes.get(3) else {
            return (bytes.len(), None, None);
        };
        let len = if b3 & CMPT_CTRL != 0 { COMPACT } else { FULL };
        let Some(insn) = bytes.get(..len) else {
            return (bytes.len(), None, None);
        };
        // IGA reads 16 bytes whatever the instruction.
        let mut input = [0u8; FULL];
        if let Some(d) = input.get_mut(..len) {
            d.copy_from_slice(insn);
        }
        let opts = DisasmOptions {
            cb: std::mem::size_of::<DisasmOptions>() as u32,
            formatting_opts: 0,
            reserved0: 0,
            reserved1: 0,
            decoder_opts: 0,
            base_pc_offset: 0,
        };
        self.labels.pc = pc;
        self.labels.target = None;
        let env: *mut Labels = &mut *self.labels;
        let mut text: *mut c_char = std::ptr::null_mut();
        // SAFETY: `ctx` is a live context of this library (released only
        // in Drop); `opts` is an `iga_disassemble_options_t` with its size
        // in `cb`; `input` holds the 16 bytes IGA may read; `label` reads
        // `env` as the `Labels` it is; `text` is a valid out-parameter.
        let st = unsafe {
            (self.iga.disasm)(
                self.ctx,
                &opts,
                input.as_ptr().cast(),
                Some(label),
                env.cast(),
                &mut text,
            )
        };
        if st != 0 || text.is_null() {
            return (len, None, None);
        }
        let mut out = Vec::new();
        for i in 0..MAX_TEXT {
            // SAFETY: IGA's text is NUL-terminated and valid until the
            // next call on this context; the loop stops at its NUL.
            let c = unsafe { *text.add(i) } as u8;
            if c == 0 {
                break;
            }
            out.push(c);
        }
        let text = String::from_utf8_lossy(&out).into_owned();
        (len, Some(text), self.labels.target)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `ctx` was made by this library, is not null, and is
        // released only here, once.
        unsafe {
            (self.iga.release)(self.ctx);
        }
    }
}
