//! Instructions against llvm-objdump: objects compiled here by gcc and
//! clang-22 for x86-64, AArch64, RISC-V and four AMDGPU processors, and the
//! code objects of the committed HIP bundle, each opened with
//! `fwview --json --code`. Every instruction fwview shows must be one that
//! `llvm-objdump-22 -d --no-show-raw-insn` prints at the same address, with
//! the same length (up to the next instruction it prints) and the same
//! text (whitespace normalised; objdump's comments and `<symbol>`
//! annotations left out), and every instruction objdump prints inside a
//! function fwview shows must be there.
//!
//! Intel GT kernels (the zebin samples, and kernels ocloc builds here for
//! Gen8 to Xe-HPC) are held the same way to what Intel's IGA prints when it
//! disassembles each whole code section (`iga_context_disassemble`), its
//! comments included.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use common::json::{all_kids, name, off, size, val};
use serde_json::Value;

const OBJDUMP: &str = "llvm-objdump-22";
const CLANG: &str = "clang-22";

/// (section, address) -> (text, length if known).
type Listing = BTreeMap<(String, u64), (String, Option<u64>)>;

/// `mnemonic operands`, whitespace runs as one space.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What llvm-objdump prints for `file` (with `args`): every instruction
/// by section and address, its length where the next instruction of the
/// section follows it. `comment` starts objdump's comments for the ISA.
fn objdump(file: &Path, args: &[&str], comment: &str) -> Listing {
    let out = Command::new(OBJDUMP)
        .args(["-d", "--no-show-raw-insn"])
        .args(args)
        .arg(file)
        .output()
        .expect("llvm-objdump runs");
    assert!(
        out.status.success(),
        "{OBJDUMP} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut per: Vec<(String, Vec<(u64, String)>)> = Vec::new();
    for line in text.lines() {
        if let Some(s) = line
            .strip_prefix("Disassembly of section ")
            .and_then(|s| s.strip_suffix(':'))
        {
            per.push((s.to_string(), Vec::new()));
            continue;
        }
        let Some((_, list)) = per.last_mut() else {
            continue;
        };
        // `  1c:  text`, or AMDGPU's `\ttext // 00000000001C: …`.
        let (addr, body) = match line.split_once(':') {
            Some((a, rest))
                if !a.trim().is_empty()
                    && a.trim().chars().all(|c| c.is_ascii_hexdigit())
                    && line.starts_with(' ') =>
            {
                (u64::from_str_radix(a.trim(), 16).expect("hex"), rest)
            }
            _ if line.starts_with('\t') => {
                let Some((body, c)) = line.split_once("//") else {
                    continue;
                };
                let Some(a) = c.trim().split(':').next() else {
                    continue;
                };
                let Ok(a) = u64::from_str_radix(a, 16) else {
                    continue;
                };
                (a, body)
            }
            _ => continue,
        };
        let body = body.split(comment).next().unwrap_or("");
        // The `<symbol+off>` after a branch target.
        let body = match body.find(" <") {
            Some(i) if body.trim_end().ends_with('>') => &body[..i],
            _ => body,
        };
        let t = norm(body);
        if t.is_empty() || t == "..." {
            continue;
        }
        list.push((addr, t));
    }
    let mut m = Listing::new();
    for (sec, list) in per {
        for (i, (a, t)) in list.iter().enumerate() {
            let len = list.get(i + 1).map(|n| n.0 - a);
            m.insert((sec.clone(), *a), (t.clone(), len));
        }
    }
    m
}

/// A function (or a section without functions) as fwview shows it.
struct Func {
    section: String,
    name: String,
    /// Its first instruction's address and its size in bytes.
    addr: u64,
    size: u64,
    /// (address, length, text) of each instruction.
    insns: Vec<(u64, u64, String)>,
}

/// True for an instruction node's name: `0x` and at least 8 hex digits.
fn is_insn(n: &str) -> bool {
    n.strip_prefix("0x")
        .is_some_and(|h| h.len() >= 8 && h.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The section a `[N] NAME` node names.
fn section_of(n: &str) -> Option<&str> {
    let rest = n.strip_prefix('[')?;
    let (idx, name) = rest.split_once("] ")?;
    idx.chars().all(|c| c.is_ascii_digit()).then_some(name)
}

/// Every function with instructions under `n`.
fn functions(n: &Value, section: &str, out: &mut Vec<Func>) {
    let kids = all_kids(n);
    let insns: Vec<&Value> = kids
        .iter()
        .flat_map(|k| {
            // Long functions come in `[a..b)` groups.
            let nm = name(k);
            if nm.starts_with('[') && nm.contains("..") {
                let mut v = Vec::new();
                flat(k, &mut v);
                v
            } else {
                vec![k]
            }
        })
        .filter(|k| is_insn(name(k)) && all_kids(k).is_empty())
        .collect();
    if let Some(first) = insns.first() {
        let addr = u64::from_str_radix(&name(first)[2..], 16).expect("hex");
        out.push(Func {
            section: section.to_string(),
            name: name(n).to_string(),
            addr,
            size: size(n),
            insns: insns
                .iter()
                .map(|k| {
                    (
                        u64::from_str_radix(&name(k)[2..], 16).expect("hex"),
                        size(k),
                        val(k).to_string(),
                    )
                })
                .collect(),
        });
        return;
    }
    for k in kids {
        let sec = section_of(name(k)).unwrap_or(section);
        functions(k, sec, out);
    }
}

fn flat<'a>(n: &'a Value, out: &mut Vec<&'a Value>) {
    for k in all_kids(n) {
        let nm = name(k);
        if nm.starts_with('[') && nm.contains("..") {
            flat(k, out);
        } else {
            out.push(k);
        }
    }
}

/// `fwview --json --code FILE`.
fn fwview_code(file: &Path) -> Value {
    let out = common::fwview(&[OsStr::new("--json"), OsStr::new("--code"), file.as_os_str()]);
    assert!(
        out.status.success(),
        "fwview --json --code {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Compares fwview's functions with objdump's listing; returns how many
/// instructions were compared. Every function must have instructions.
fn compare(what: &str, funcs: &[Func], want: &Listing) -> usize {
    assert!(!funcs.is_empty(), "{what}: fwview shows no instructions");
    let mut n = 0;
    let mut bad = Vec::new();
    for f in funcs {
        let mut covered = 0;
        for (a, len, text) in &f.insns {
            covered += len;
            match want.get(&(f.section.clone(), *a)) {
                None => bad.push(format!(
                    "{what} {} {}: fwview has {a:#x} {text:?}, objdump nothing there",
                    f.section, f.name
                )),
                Some((t, l)) => {
                    let at = format!("{what} {} {a:#x}", f.name);
                    same(&mut bad, &at, (text, *len), (t, *l));
                }
            }
            n += 1;
        }
        assert_eq!(
            covered, f.size,
            "{what} {}: instructions cover the function",
            f.name
        );
        // Every instruction objdump prints inside the function is there.
        let have: HashMap<u64, ()> = f.insns.iter().map(|i| (i.0, ())).collect();
        for ((s, a), (t, _)) in
            want.range((f.section.clone(), f.addr)..(f.section.clone(), f.addr + f.size))
        {
            if s == &f.section && !have.contains_key(a) {
                bad.push(format!(
                    "{what} {}: objdump has {a:#x} {t:?}, fwview not",
                    f.name
                ));
            }
        }
    }
    no_differences(&bad);
    n
}

/// Notes where fwview's instruction (text, length) and the reference's
/// (text, length up to its next one, if known) differ.
fn same(bad: &mut Vec<String>, at: &str, mine: (&str, u64), theirs: (&str, Option<u64>)) {
    if mine.0 != theirs.0 {
        bad.push(format!("{at}: fwview {:?}, objdump {:?}", mine.0, theirs.0));
    }
    if theirs.1.is_some_and(|l| l != mine.1) {
        bad.push(format!(
            "{at}: fwview length {}, objdump {:?}",
            mine.1, theirs.1
        ));
    }
}

/// Fails with the first differences found, if any.
fn no_differences(bad: &[String]) {
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Checks one object file; returns the instructions compared.
fn check_file(what: &str, file: &Path, args: &[&str], comment: &str) -> usize {
    let j = fwview_code(file);
    let mut funcs = Vec::new();
    functions(&j["root"], "", &mut funcs);
    let n = compare(what, &funcs, &objdump(file, args, comment));
    eprintln!(
        "{what}: {n} instructions in {} functions equal to {OBJDUMP}'s",
        funcs.len()
    );
    n
}

const C_SOURCE: &str = r#"
#include <stddef.h>
struct node { struct node *next; int key; double w; };
extern int ext(int);
static int sq(int x) { return x * x; }
int sum(const int *a, size_t n) { int s = 0; for (size_t i = 0; i < n; i++) s += a[i] * 3 + sq(a[i]); return s; }
double dot(const double *a, const double *b, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }
int pick(int k, int v) {
  switch (k) { case 0: return v + 1; case 1: return v * 7; case 2: return ext(v); case 3: return v >> 2;
  case 4: return -v; case 5: return v ^ 0x55aa; default: return 0; }
}
struct node *find(struct node *n, int key) { while (n && n->key != key) n = n->next; return n; }
float lerp(float a, float b, float t) { return a + (b - a) * t; }
long long mix(long long a, unsigned b) { return (a << (b & 31)) | (a >> 3) | ext((int)a); }
"#;

/// Compiles `C_SOURCE` with `cc args` into `dir/out`; false if it fails.
fn compile(dir: &Path, src: &str, cc: &str, args: &[&str], out: &str) -> bool {
    let c = dir.join("t.c");
    std::fs::write(&c, src).expect("write");
    let st = Command::new(cc)
        .args(args)
        .arg("-c")
        .arg(&c)
        .arg("-o")
        .arg(dir.join(out))
        .output()
        .expect("the compiler runs");
    if !st.status.success() {
        eprintln!("{cc} {args:?}: {}", String::from_utf8_lossy(&st.stderr));
    }
    st.status.success()
}

#[test]
fn cpu_objects_decode_as_llvm_objdump_does() {
    if !common::tool(OBJDUMP) || !common::tool(CLANG) {
        return;
    }
    let dir = common::scratch();
    let mut total = 0;
    let cases: [(&str, &[&str], &str); 3] = [
        ("x86-64 clang", &["-O1", "--target=x86_64-linux-gnu"], "#"),
        (
            "aarch64 clang",
            &["-O1", "--target=aarch64-linux-gnu"],
            "//",
        ),
        ("riscv64 clang", &["-O1", "--target=riscv64-linux-gnu"], "#"),
    ];
    for (what, args, comment) in cases {
        let out = format!("{}.o", what.replace(' ', "-"));
        assert!(
            compile(dir.path(), C_SOURCE, CLANG, args, &out),
            "{what} compiles"
        );
        total += check_file(what, &dir.path().join(&out), &[], comment);
    }
    if common::tool("gcc") {
        assert!(compile(dir.path(), C_SOURCE, "gcc", &["-O2"], "gcc.o"));
        total += check_file("x86-64 gcc", &dir.path().join("gcc.o"), &[], "#");
    }
    eprintln!("CPU objects: {total} instructions compared");
}

const CL_SOURCE: &str = r#"
kernel void axpy(global float *y, global const float *x, float a, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  if (i < n) y[i] = a * x[i] + y[i];
}
kernel void scan(global int *out, global const int *in, int n) {
  int l = __builtin_amdgcn_workitem_id_x();
  int acc = 0;
  for (int i = l; i < n; i += 64) acc += in[i] * in[i] + (acc >> 3);
  out[l] = acc;
}
kernel void mat(global double *c, global const double *a, global const double *b, int n) {
  int r = __builtin_amdgcn_workitem_id_x(), k2 = __builtin_amdgcn_workitem_id_y();
  double s = 0;
  for (int k = 0; k < n; k++) s = fma(a[r * n + k], b[k * n + k2], s);
  c[r * n + k2] = s;
}
"#;

#[test]
fn amdgpu_code_objects_decode_as_llvm_objdump_does() {
    if !common::tool(OBJDUMP) || !common::tool(CLANG) {
        return;
    }
    let dir = common::scratch();
    let cl = dir.path().join("k.cl");
    std::fs::write(&cl, CL_SOURCE).expect("write");
    let mut total = 0;
    for cpu in ["gfx90a", "gfx942", "gfx1100", "gfx1200"] {
        let out = dir.path().join(format!("{cpu}.o"));
        let st = Command::new(CLANG)
            .args([
                "-x",
                "cl",
                "-Xclang",
                "-finclude-default-header",
                "-nogpulib",
            ])
            .args([
                "--target=amdgcn-amd-amdhsa",
                &format!("-mcpu={cpu}"),
                "-O1",
                "-c",
            ])
            .arg(&cl)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("clang runs");
        assert!(
            st.status.success(),
            "{cpu}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        total += check_file(cpu, &out, &[&format!("--mcpu={cpu}")], "//");
    }
    eprintln!("AMDGPU objects: {total} instructions compared");
}

/// Every code object in the committed HIP bundle, compared with objdump
/// of the same bytes cut out of the bundle.
#[test]
fn the_hip_bundles_code_objects_decode_as_llvm_objdump_does() {
    if !common::tool(OBJDUMP) {
        return;
    }
    let path = common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb");
    let bytes = std::fs::read(&path).expect("the sample");
    let j = fwview_code(&path);
    let dir = common::scratch();
    let mut total = 0;
    let mut objects = 0;
    for e in all_kids(&j["root"]) {
        if !val(e).starts_with("ELF,") {
            continue;
        }
        let (o, s) = (off(e) as usize, size(e) as usize);
        let f = dir.path().join(format!("{objects}.co"));
        std::fs::write(&f, &bytes[o..o + s]).expect("write");
        let mut funcs = Vec::new();
        functions(e, "", &mut funcs);
        let n = compare(name(e), &funcs, &objdump(&f, &[], "//"));
        eprintln!("{}: {n} instructions", name(e));
        total += n;
        objects += 1;
    }
    assert!(objects >= 6, "{objects} code objects in the bundle");
    eprintln!("HIP bundle: {total} instructions in {objects} code objects compared");
}

// ---- Intel GT: zebin kernels against IGA's own whole-kernel listing ----

/// IGA's `iga_context_disassemble`, called the way its C API says, as the
/// reference the instructions fwview decodes one by one are held to.
mod iga {
    use std::ffi::{c_char, c_void, CStr};

    type Ctx = *mut c_void;
    type CreateFn = unsafe extern "C" fn(*const ContextOptions, *mut Ctx) -> i32;
    type ReleaseFn = unsafe extern "C" fn(Ctx) -> i32;
    type DisasmFn = unsafe extern "C" fn(
        Ctx,
        *const DisasmOptions,
        *const c_void,
        u32,
        *const c_void,
        *mut c_void,
        *mut *mut c_char,
    ) -> i32;

    #[repr(C)]
    struct ContextOptions {
        cb: usize,
        gen: u32,
    }

    #[repr(C)]
    struct DisasmOptions {
        cb: u32,
        formatting_opts: u32,
        reserved0: u32,
        reserved1: u32,
        decoder_opts: u32,
        base_pc_offset: u32,
    }

    /// `IGA_FORMATTING_OPT_PRINT_PC`: each line starts `/* [PC] */`.
    const PRINT_PC: u32 = 8;

    pub struct Iga {
        lib: libloading::Library,
    }

    /// The library, where the environment (`FWVIEW_IGA`) or the loader
    /// finds one.
    pub fn load() -> Option<Iga> {
        let mut names: Vec<std::ffi::OsString> = Vec::new();
        if let Some(p) = std::env::var_os("FWVIEW_IGA") {
            names.push(p);
        }
        for n in ["libiga64.so.2", "libiga64.so.1", "libiga64.so"] {
            names.push(n.into());
        }
        names.iter().find_map(|n| {
            // SAFETY: a libiga64, whose initialisers only set up tables.
            unsafe { libloading::Library::new(n) }
                .ok()
                .map(|lib| Iga { lib })
        })
    }

    impl Iga {
        /// IGA's text for the whole of `code` on platform `gen`
        /// (`iga_gen_t`): (PC, text) per instruction.
        pub fn listing(&self, gen: u32, code: &[u8]) -> Vec<(u64, String)> {
            // SAFETY: the symbols have the types iga.h declares; the
            // options carry their sizes in `cb`; `code` is readable for
            // its length plus the 16 bytes of padding copied after it (IGA
            // may read a whole instruction past a short tail); the text is
            // NUL-terminated and read before the context is released.
            unsafe {
                let create = *self
                    .lib
                    .get::<CreateFn>(b"iga_context_create\0")
                    .expect("iga_context_create");
                let release = *self
                    .lib
                    .get::<ReleaseFn>(b"iga_context_release\0")
                    .expect("iga_context_release");
                let disasm = *self
                    .lib
                    .get::<DisasmFn>(b"iga_context_disassemble\0")
                    .expect("iga_context_disassemble");
                let opts = ContextOptions {
                    cb: std::mem::size_of::<ContextOptions>(),
                    gen,
                };
                let mut ctx: Ctx = std::ptr::null_mut();
                assert_eq!(create(&opts, &mut ctx), 0, "IGA knows platform {gen:#x}");
                let d = DisasmOptions {
                    cb: std::mem::size_of::<DisasmOptions>() as u32,
                    formatting_opts: PRINT_PC,
                    reserved0: 0,
                    reserved1: 0,
                    decoder_opts: 0,
                    base_pc_offset: 0,
                };
                let mut input = code.to_vec();
                input.extend([0u8; 16]);
                let mut text: *mut c_char = std::ptr::null_mut();
                let st = disasm(
                    ctx,
                    &d,
                    input.as_ptr().cast(),
                    code.len() as u32,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                    &mut text,
                );
                assert_eq!(st, 0, "IGA disassembles the kernel");
                let s = CStr::from_ptr(text).to_string_lossy().into_owned();
                release(ctx);
                parse(&s)
            }
        }
    }

    /// `/* [00B8]  */ text` lines as (0xb8, text); label lines left out.
    fn parse(s: &str) -> Vec<(u64, String)> {
        s.lines()
            .filter_map(|l| {
                let rest = l.trim_start().strip_prefix("/* [")?;
                let (pc, rest) = rest.split_once(']')?;
                let text = rest.trim_start().strip_prefix("*/")?;
                Some((u64::from_str_radix(pc.trim(), 16).ok()?, super::norm(text)))
            })
            .collect()
    }
}

/// `iga_gen_t` of a platform as ocloc's device names and the zebin
/// samples' file and member names spell it (`GEN_VER` and `XE_VER` of
/// iga.h).
fn iga_gen(name: &str) -> Option<(&'static str, u32)> {
    let gen = |maj: u32, min: u32| (maj << 16) | min;
    let xe = |maj: u32, min: u32| (maj << 24) | min;
    let n = name.to_ascii_lowercase();
    let has = |keys: &[&str]| keys.iter().any(|k| n.contains(k));
    Some(if has(&["gen8", "bdw"]) {
        ("GEN8", gen(8, 0))
    } else if has(&["gen9", "skl"]) {
        ("GEN9", gen(9, 0))
    } else if has(&["gen11", "icllp"]) {
        ("GEN11", gen(11, 0))
    } else if has(&["gen12lp", "tgllp", "dg1", ".12.0."]) {
        ("XE", xe(1, 0))
    } else if has(&["xe_hpg", "dg2", ".12.55."]) {
        ("XE_HPG", xe(1, 2))
    } else if has(&["xe_hpc", "pvc", ".12.60."]) {
        ("XE_HPC", xe(1, 4))
    } else {
        return None;
    })
}

/// The `[N] .text.*` nodes among the section contents of the ELF node
/// `e`: (name, offset, size).
fn code_sections(e: &Value) -> Vec<(&str, u64, u64)> {
    all_kids(e)
        .iter()
        .filter(|k| name(k) == "sections")
        .flat_map(all_kids)
        .filter_map(|k| {
            let s = section_of(name(k))?;
            s.starts_with(".text").then(|| (s, off(k), size(k)))
        })
        .collect()
}

/// Every kernel of the zebin at node `e` (the ELF at `bytes[off(e)..]`),
/// against IGA's listing of each code section for platform `gen`; returns
/// the instructions compared.
fn check_zebin(what: &str, e: &Value, bytes: &[u8], gen: u32, iga: &iga::Iga) -> usize {
    let secs = code_sections(e);
    assert!(!secs.is_empty(), "{what}: kernels' code sections");
    let mut want = Listing::new();
    for (s, o, l) in &secs {
        let list = iga.listing(gen, &bytes[*o as usize..(o + l) as usize]);
        for (i, (pc, t)) in list.iter().enumerate() {
            let len = list.get(i + 1).map(|n| n.0 - pc);
            want.insert((s.to_string(), *pc), (t.clone(), len));
        }
    }
    let mut funcs = Vec::new();
    functions(e, "", &mut funcs);
    let n = compare(what, &funcs, &want);
    // Each kernel (the function its `.text.<kernel>` is named for) is
    // decoded through, its lengths summing to its symbol's size.
    for (s, _, _) in &secs {
        let k = s.trim_start_matches(".text.");
        assert!(
            funcs.iter().any(|f| f.section == *s && f.name == k),
            "{what}: kernel {k} decoded"
        );
    }
    n
}

const ZEBIN_CL: &str = r#"
kernel void add(global float *a, global const float *b, int n) {
  int i = get_global_id(0);
  if (i < n) a[i] += b[i];
}
kernel void loop(global int *a, int n) {
  int s = 0;
  for (int j = 0; j < n; j++) { s += a[j] * j; if (s > 1000) break; }
  a[get_global_id(0)] = s;
}
kernel void reduce(global float *out, global const float *in, local float *tmp) {
  int l = get_local_id(0);
  tmp[l] = sqrt(in[get_global_id(0)]) * 0.5f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) atomic_add((global int *)out, (int)tmp[0]);
}
#ifdef cl_khr_fp64
typedef double real;
#else
typedef float real;
#endif
kernel void mix(global real *d, global const half *h, int n) {
  int i = get_global_id(0);
  real x = vload_half(i, h);
  d[i] = i < n ? sin(x) * exp(x) : fma(x, x, (real)1);
}
"#;

/// The devices ocloc builds the zebin kernels for: one or more per
/// platform it knows (Gen8, Gen9, Gen11, Xe-LP, Xe-HPG, Xe-HPC).
const OCLOC_DEVICES: [&str; 7] = ["bdw", "skl", "icllp", "tgllp", "dg1", "dg2", "pvc"];

/// Every kernel of every zebin (the samples, and kernels ocloc builds here
/// for several platforms), opened with `--json --code`: each instruction
/// at the address, of the length and with the text (whitespace
/// normalised) that IGA prints when it disassembles the whole kernel.
#[test]
fn zebin_kernels_decode_as_iga_prints_them() {
    let lib = iga::load();
    if !common::present("libiga64", lib.is_some()) {
        return;
    }
    let iga = lib.expect("present");
    let mut per: BTreeMap<String, usize> = BTreeMap::new();
    let mut files = common::samples_in("zebin/generated_locally", "bin");
    files.extend(common::samples_in("zebin/generated_locally", "ar"));
    let dir = common::scratch();
    if common::tool("ocloc") {
        let cl = dir.path().join("k.cl");
        std::fs::write(&cl, ZEBIN_CL).expect("write");
        for d in OCLOC_DEVICES {
            let st = Command::new("ocloc")
                .args(["compile", "-q", "-file"])
                .arg(&cl)
                .args(["-device", d, "-output", d, "-output_no_suffix", "-out_dir"])
                .arg(dir.path())
                // Older IGC writes the legacy format unless asked for zebin.
                .env("IGC_EnableZEBinary", "1")
                .output()
                .expect("ocloc runs");
            assert!(
                st.status.success(),
                "ocloc -device {d}: {}",
                String::from_utf8_lossy(&st.stdout)
            );
            files.push(dir.path().join(d));
        }
    }
    for f in &files {
        let bytes = std::fs::read(f).expect("the file");
        let j = fwview_code(f);
        let fname = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // A zebin, or an archive of them (one a platform).
        let mut elfs: Vec<(String, &Value)> = Vec::new();
        if val(&j["root"]).starts_with("ELF")
            || all_kids(&j["root"]).iter().any(|k| name(k) == "header")
        {
            elfs.push((fname.to_string(), &j["root"]));
        } else {
            for m in all_kids(&j["root"]) {
                if let Some(d) = all_kids(m).iter().find(|k| val(k) == "zebin") {
                    elfs.push((format!("{fname} {}", name(m)), d));
                }
            }
        }
        assert!(!elfs.is_empty(), "{fname}: a zebin");
        for (what, e) in elfs {
            let (platform, gen) = iga_gen(&what).unwrap_or_else(|| panic!("{what}: a platform"));
            let n = check_zebin(&what, e, &bytes, gen, &iga);
            eprintln!("{what}: {n} instructions equal to IGA's");
            *per.entry(platform.to_string()).or_default() += n;
        }
    }
    eprintln!("Intel GT, instructions compared per IGA platform: {per:?}");
}

/// What [`compare_decoded`] found.
#[derive(Default)]
struct Tally {
    /// Instructions compared: same address, length and text.
    compared: usize,
    /// Instructions llvm-objdump prints as `<unknown>`.
    unknown: usize,
    /// Instructions of either side after an `<unknown>` and before the two
    /// meet at an address again: llvm-objdump skips an undecoded span by
    /// the length of the instruction before it (its decoder reports none),
    /// fwview by the ISA's unit.
    resync: usize,
}

/// As [`compare`], where LLVM decodes: the instructions llvm-objdump
/// prints as `<unknown>`, and those past one until both sides are at the
/// same address again, are counted instead.
fn compare_decoded(what: &str, funcs: &[Func], want: &Listing, t: &mut Tally) {
    let mut bad = Vec::new();
    for f in funcs {
        let covered: u64 = f.insns.iter().map(|i| i.1).sum();
        assert_eq!(
            covered, f.size,
            "{what} {}: instructions cover the function",
            f.name
        );
        let have: HashMap<u64, (u64, &str)> =
            f.insns.iter().map(|i| (i.0, (i.1, i.2.as_str()))).collect();
        let theirs: Vec<(u64, &(String, Option<u64>))> = want
            .range((f.section.clone(), f.addr)..(f.section.clone(), f.addr + f.size))
            .map(|((_, a), v)| (*a, v))
            .collect();
        let at: HashMap<u64, ()> = theirs.iter().map(|(a, _)| (*a, ())).collect();
        let mut lost = false;
        for (a, (text, len)) in &theirs {
            if text == "<unknown>" {
                t.unknown += 1;
                lost = true;
                continue;
            }
            match have.get(a) {
                Some((l, mine)) => {
                    lost = false;
                    t.compared += 1;
                    let at = format!("{what} {} {a:#x}", f.name);
                    same(&mut bad, &at, (mine, *l), (text, *len));
                }
                None if lost => t.resync += 1,
                None => bad.push(format!(
                    "{what} {}: objdump has {a:#x} {text:?}, fwview not",
                    f.name
                )),
            }
        }
        // fwview's instructions where objdump has none lie in the spans
        // past an `<unknown>`.
        let mut lost = false;
        for (a, _, text) in &f.insns {
            match want.get(&(f.section.clone(), *a)) {
                Some((u, _)) if u == "<unknown>" => lost = true,
                Some(_) => lost = false,
                None if lost && !at.contains_key(a) => t.resync += 1,
                None => bad.push(format!(
                    "{what} {}: fwview has {a:#x} {text:?}, objdump nothing there",
                    f.name
                )),
            }
        }
    }
    no_differences(&bad);
}

/// The XE samples' tile ELFs (xCORE code, cut out of their sectors as the
/// XE format lays them out) against `llvm-objdump --triple=xcore`: every
/// instruction fwview decodes in a function, where LLVM decodes it. What
/// LLVM does not decode (`<unknown>`), the spans until both sides meet
/// again, and the code outside any sized function (left as bytes) are
/// counted and reported.
#[test]
fn xe_tile_code_decodes_as_llvm_objdump_does() {
    if !common::tool(OBJDUMP) {
        return;
    }
    let dir = common::scratch();
    let mut t = Tally::default();
    let (mut outside, mut tiles) = (0, 0);
    for (what, bytes) in common::xe_tile_elfs() {
        let f = dir.path().join(format!("tile{tiles}.elf"));
        std::fs::write(&f, &bytes).expect("write");
        tiles += 1;
        let j = fwview_code(&f);
        let mut funcs = Vec::new();
        functions(&j["root"], "", &mut funcs);
        let want = objdump(&f, &["--triple=xcore"], "#");
        compare_decoded(&what, &funcs, &want, &mut t);
        let inside = |s: &str, a: u64| {
            funcs
                .iter()
                .any(|f| f.section == s && a >= f.addr && a < f.addr + f.size)
        };
        outside += want.keys().filter(|(s, a)| !inside(s, *a)).count();
    }
    assert!(tiles >= 4, "{tiles} tile ELFs in the XE samples");
    assert!(t.compared > 0, "XE tiles: instructions compared");
    eprintln!(
        "XE tiles: {} instructions compared in {tiles} tile ELFs; llvm-objdump prints {} <unknown> in them, \
         {} instructions lie past one before both sides meet again, {outside} outside any sized function",
        t.compared, t.unknown, t.resync
    );
}
