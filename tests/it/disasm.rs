//! Instructions against llvm-objdump: objects compiled here by gcc and
//! clang-22 for x86-64, AArch64, RISC-V and four AMDGPU processors, the
//! code objects of the committed HIP bundle, of a compressed bundle
//! (CCOB) clang-22 writes and of an LLVM offload binary, each opened with
//! `fwview --json --code`. Every instruction fwview shows must be one that
//! `llvm-objdump-22 -d --no-show-raw-insn` prints at the same address, with
//! the same length (up to the next instruction it prints) and the same
//! text (whitespace normalised; objdump's comments left out), and every
//! instruction objdump prints inside a function fwview shows must be
//! there. A branch or call target objdump names `<symbol+0x10>` after the
//! target's address (or, on AMDGPU, after the word offset) fwview names
//! the same, and following the instruction's link selects the instruction
//! at that address.
//!
//! Intel GT kernels (the zebin samples, and kernels ocloc builds here for
//! Gen8 to Xe-HPC) are held the same way to what Intel's IGA prints when it
//! disassembles each whole code section (`iga_context_disassemble`), its
//! comments included.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use common::json::{all_kids, name, off, size, val};
use fwview::formats::build_tree_with;
use fwview::model::{NodeId, Options, Source, Tree};
use serde_json::Value;

const OBJDUMP: &str = "llvm-objdump-22";
const CLANG: &str = "clang-22";

/// One instruction as llvm-objdump prints it.
#[derive(Clone, Debug)]
struct Line {
    text: String,
    /// Up to the next instruction of the section, where one follows.
    len: Option<u64>,
    /// The `<symbol+0x10>` it names its branch target by, if it does.
    label: Option<String>,
    /// The address its branch goes to, where the reference gives it as
    /// a number only (IGA's `L368`): fwview must link there and name it
    /// by a symbol of the section.
    target: Option<u64>,
}

/// What llvm-objdump prints of a file.
#[derive(Default)]
struct Listing {
    /// (section, address) -> instruction.
    insns: BTreeMap<(String, u64), Line>,
    /// (section, symbol) -> address, from the `ADDR <symbol>:` headers.
    symbols: HashMap<(String, String), u64>,
    /// (section, offset) -> `TYPE symbol+addend` of each relocation `-r`
    /// prints there, in its order.
    relocs: BTreeMap<(String, u64), Vec<String>>,
    /// Whether the reference lists relocations (objdump -r does; IGA's
    /// listing does not, so fwview's are not compared with it).
    lists_relocs: bool,
}

impl Listing {
    fn get(&self, sec: &str, a: u64) -> Option<&Line> {
        self.insns.get(&(sec.to_string(), a))
    }

    /// The relocations that patch `[a, a+len)` of section `sec`.
    fn relocs_in(&self, sec: &str, a: u64, len: u64) -> Vec<String> {
        self.relocs
            .range((sec.to_string(), a)..(sec.to_string(), a + len))
            .flat_map(|(_, v)| v.iter().cloned())
            .collect()
    }

    /// The address a `<sym+0x10>` label names, in section `sec`.
    fn address_of(&self, sec: &str, label: &str) -> Option<u64> {
        let inner = label.strip_prefix('<')?.strip_suffix('>')?;
        let (sym, off) = match inner.rsplit_once("+0x") {
            Some((s, o)) => (s, u64::from_str_radix(o, 16).ok()?),
            None => (inner, 0),
        };
        Some(self.symbols.get(&(sec.to_string(), sym.to_string()))? + off)
    }
}

/// fwview's `text [R_TYPE symbol+addend] [...]` split into the text and
/// the relocations, each whitespace normalised.
fn split_relocs(s: &str) -> (&str, Vec<String>) {
    match s.find(" [R_") {
        Some(i) => (
            &s[..i],
            s[i + 2..]
                .trim_end_matches(']')
                .split("] [")
                .map(norm)
                .collect(),
        ),
        None => (s, Vec::new()),
    }
}

/// `text <label>` split at the label, if it ends with one.
fn split_label(s: &str) -> (&str, Option<&str>) {
    let s = s.trim_end();
    match s.rfind(" <") {
        Some(i) if s.ends_with('>') => (&s[..i], Some(&s[i + 1..])),
        _ => (s, None),
    }
}

/// `mnemonic operands`, whitespace runs as one space.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What llvm-objdump prints for `file` (with `args`): every instruction
/// by section and address, its length where the next instruction of the
/// section follows it. `comment` starts objdump's comments for the ISA.
fn objdump(file: &Path, args: &[&str], comment: &str) -> Listing {
    let out = Command::new(OBJDUMP)
        .args(["-dr", "--no-show-raw-insn"])
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
    let mut per: Vec<(String, Vec<(u64, Line)>)> = Vec::new();
    let mut m = Listing {
        lists_relocs: true,
        ..Listing::default()
    };
    for line in text.lines() {
        if let Some(s) = line
            .strip_prefix("Disassembly of section ")
            .and_then(|s| s.strip_suffix(':'))
        {
            per.push((s.to_string(), Vec::new()));
            continue;
        }
        let Some((sec, list)) = per.last_mut() else {
            continue;
        };
        // `\t\t000000000000006a:  R_X86_64_PC32\t.rodata-0x4`
        if let Some((a, r)) = line.strip_prefix("\t\t").and_then(|l| l.split_once(':')) {
            if let (Ok(a), Some(r)) = (
                u64::from_str_radix(a, 16),
                r.trim_start().strip_prefix("R_"),
            ) {
                m.relocs
                    .entry((sec.clone(), a))
                    .or_default()
                    .push(norm(&format!("R_{r}")));
                continue;
            }
        }
        // `0000000000000030 <dot>:`
        if let Some((a, rest)) = line.split_once(" <") {
            if let (Ok(a), Some(sym)) = (u64::from_str_radix(a, 16), rest.strip_suffix(">:")) {
                m.symbols.insert((sec.clone(), sym.to_string()), a);
                continue;
            }
        }
        // `  1c:  text`, or AMDGPU's `\ttext // 00000000001C: … <label>`.
        let mut label = None;
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
                label = split_label(c).1.map(str::to_string);
                (a, body)
            }
            _ => continue,
        };
        let body = body.split(comment).next().unwrap_or("");
        // The `<symbol+off>` after a branch target.
        let (body, l) = split_label(body);
        label = label.or(l.map(str::to_string));
        let t = norm(body);
        if t.is_empty() || t == "..." {
            continue;
        }
        list.push((
            addr,
            Line {
                target: None,
                text: t,
                len: None,
                label,
            },
        ));
    }
    for (sec, list) in per {
        for (i, (a, line)) in list.iter().enumerate() {
            let mut line = line.clone();
            line.len = list.get(i + 1).map(|n| n.0 - a);
            m.insns.insert((sec.clone(), *a), line);
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
    /// (address, offset, length, value) of each instruction.
    insns: Vec<(u64, u64, u64, String)>,
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
                        off(k),
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
    fwview_code_with(file, &[])
}

/// `fwview --json --code EXTRA… FILE`.
fn fwview_code_with(file: &Path, extra: &[&str]) -> Value {
    let mut args = vec![OsStr::new("--json"), OsStr::new("--code")];
    args.extend(extra.iter().map(OsStr::new));
    args.push(file.as_os_str());
    let out = common::fwview(&args);
    assert!(
        out.status.success(),
        "fwview --json --code {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// True if objdump's text names its branch target itself (an address
/// operand, or an AMDGPU SOPP branch's word offset), so that fwview must
/// name it too; objdump also names targets it finds by following
/// registers (RISC-V `jr t1` after `auipc`), which a decoder alone does
/// not.
fn names_target(text: &str) -> bool {
    let mnemonic = text.split(' ').next().unwrap_or("");
    let last = text.rsplit([' ', ',']).next().unwrap_or("");
    last.starts_with("0x") || mnemonic == "s_branch" || mnemonic.starts_with("s_cbranch_")
}

/// `file` parsed with instructions twice: with every node built (to find
/// links in), and with nothing opened yet (to follow them in).
fn built_and_fresh(file: &Path) -> (Tree, Tree) {
    let src = Arc::new(Source::open(file).expect("the file opens"));
    let mut t = code_tree(src.clone());
    t.expand_all();
    (t, code_tree(src))
}

/// A tree of `src` that shows machine code as instructions, nothing
/// opened.
fn code_tree(src: Arc<Source>) -> Tree {
    let opts = Options {
        code: true,
        arg_names: None,
        nested_only: false,
    };
    build_tree_with(src, "input", opts)
}

/// For every instruction fwview links to another place: its offset ->
/// the name of the node that following the link selects, in a tree of
/// `file` where nothing was opened before (so the target's function is
/// built on the way, as the explorer's `f` does).
fn landings(file: &Path) -> HashMap<u64, String> {
    let (t, mut fresh) = built_and_fresh(file);
    let mut links = Vec::new();
    for id in (0..t.len()).map(NodeId::at) {
        if let (Some(l), Some(n)) = (t.link(id), t.node(id)) {
            if is_insn(&n.name) && !t.has_children(id) {
                // A link is in its node's byte space (an inflated bundle's,
                // say): the explorer looks in that space from its root.
                links.push((n.offset, l, t.path_string(t.space_root(id))));
            }
        }
    }
    links
        .into_iter()
        .map(|(o, l, top)| {
            let top = fresh.find_path(&top).expect("the space's root");
            let n = fresh.smallest_containing_from(top, l);
            (o, fresh.name(n).to_string())
        })
        .collect()
}

/// Compares fwview's functions with objdump's listing; returns how many
/// instructions, branch targets and relocations were compared. Every function
/// must have instructions. `lands` is what [`landings`] found.
fn compare(
    what: &str,
    funcs: &[Func],
    want: &Listing,
    lands: &HashMap<u64, String>,
) -> (usize, usize, usize) {
    assert!(!funcs.is_empty(), "{what}: fwview shows no instructions");
    let mut n = 0;
    let mut targets = 0;
    let mut relocated = 0;
    let mut bad = Vec::new();
    for f in funcs {
        let mut covered = 0;
        for (a, o, len, value) in &f.insns {
            covered += len;
            let (rest, relocs) = split_relocs(value);
            let (text, label) = split_label(rest);
            n += 1;
            let want_relocs = want.relocs_in(&f.section, *a, *len);
            if want.lists_relocs && relocs != want_relocs {
                bad.push(format!(
                    "{what} {} {a:#x} {text}: fwview relocations {relocs:?}, objdump -r {want_relocs:?}",
                    f.name
                ));
            }
            relocated += relocs.len();
            let Some(w) = want.get(&f.section, *a) else {
                bad.push(format!(
                    "{what} {} {}: fwview has {a:#x} {text:?}, objdump nothing there",
                    f.section, f.name
                ));
                continue;
            };
            let at = format!("{what} {} {a:#x}", f.name);
            same(&mut bad, &at, (text, *len), (&w.text, w.len));
            if let Some(t) = w.target {
                // Named by a symbol of the section, and linked to the
                // instruction at that address.
                let named = label.and_then(|l| want.address_of(&f.section, l));
                let expect = format!("0x{t:08x}");
                if named != Some(t) || lands.get(o) != Some(&expect) {
                    bad.push(format!(
                        "{what} {} {a:#x} {value}: goes to {t:#x}; fwview names {label:?} ({named:?}) and links to {:?}",
                        f.name,
                        lands.get(o)
                    ));
                }
                targets += 1;
                continue;
            }
            // A relocated branch's bytes hold a placeholder, which objdump
            // names all the same; fwview names the relocation instead.
            let objdump_label = w.label.as_deref().filter(|_| want_relocs.is_empty());
            match (objdump_label, label) {
                (Some(x), Some(y)) if x != y => bad.push(format!(
                    "{what} {} {a:#x} {text}: fwview names the target {y}, objdump {x}",
                    f.name
                )),
                (Some(x), None) if names_target(&w.text) => bad.push(format!(
                    "{what} {} {a:#x} {text}: objdump names the target {x}, fwview not",
                    f.name
                )),
                (None, Some(y)) => bad.push(format!(
                    "{what} {} {a:#x} {text}: fwview names a target {y}, objdump none",
                    f.name
                )),
                _ => {}
            }
            // The link lands on the instruction at the address objdump
            // names.
            let Some(to) = label
                .filter(|_| objdump_label.is_some())
                .and_then(|l| want.address_of(&f.section, l))
            else {
                continue;
            };
            targets += 1;
            let expect = format!("0x{to:08x}");
            if lands.get(o) != Some(&expect) {
                bad.push(format!(
                    "{what} {} {a:#x} {value}: following its link selects {:?}, not the instruction {expect}",
                    f.name,
                    lands.get(o)
                ));
            }
        }
        assert_eq!(
            covered, f.size,
            "{what} {}: instructions cover the function",
            f.name
        );
        // Every instruction objdump prints inside the function is there.
        let have: HashMap<u64, ()> = f.insns.iter().map(|i| (i.0, ())).collect();
        for ((s, a), w) in want
            .insns
            .range((f.section.clone(), f.addr)..(f.section.clone(), f.addr + f.size))
        {
            if s == &f.section && !have.contains_key(a) {
                bad.push(format!(
                    "{what} {}: objdump has {a:#x} {:?}, fwview not",
                    f.name, w.text
                ));
            }
        }
    }
    no_differences(&bad);
    (n, targets, relocated)
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

/// Checks one object file; returns the instructions and the relocations
/// compared.
fn check_file(what: &str, file: &Path, args: &[&str], comment: &str) -> (usize, usize) {
    check_file_with(what, file, args, &[], comment)
}

/// [`check_file`], with `mine` given to fwview as well.
fn check_file_with(
    what: &str,
    file: &Path,
    args: &[&str],
    mine: &[&str],
    comment: &str,
) -> (usize, usize) {
    let j = fwview_code_with(file, mine);
    let mut funcs = Vec::new();
    functions(&j["root"], "", &mut funcs);
    let (n, targets, relocs) =
        compare(what, &funcs, &objdump(file, args, comment), &landings(file));
    assert!(targets > 0, "{what}: no branch target compared");
    eprintln!(
        "{what}: {n} instructions in {} functions equal to {OBJDUMP}'s, {targets} branch targets named and linked as it names them, {relocs} relocations as -r shows them",
        funcs.len()
    );
    (n, relocs)
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
        let (n, relocs) = check_file(what, &dir.path().join(&out), &[], comment);
        // The source calls an external function: a relocation.
        assert!(relocs > 0, "{what}: no relocation compared");
        total += n;
    }
    if common::tool("gcc") {
        assert!(compile(dir.path(), C_SOURCE, "gcc", &["-O2"], "gcc.o"));
        let (n, relocs) = check_file("x86-64 gcc", &dir.path().join("gcc.o"), &[], "#");
        assert!(relocs > 0, "x86-64 gcc: no relocation compared");
        total += n;
    }
    // Intel's dialect, as `llvm-objdump -M intel` prints it, on the same
    // objects (the x86 objects of either compiler).
    for (what, out) in [("x86-64 clang", "x86-64-clang.o"), ("x86-64 gcc", "gcc.o")] {
        let f = dir.path().join(out);
        if !f.exists() {
            continue;
        }
        let what = format!("{what}, Intel syntax");
        let (n, relocs) =
            check_file_with(&what, &f, &["-M", "intel"], &["--x86-syntax", "intel"], "#");
        assert!(relocs > 0, "{what}: no relocation compared");
        total += n;
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

/// Compiles `CL_SOURCE` for AMDGPU processor `cpu` into `dir/<cpu>.o`.
fn compile_cl(dir: &Path, cpu: &str) -> std::path::PathBuf {
    compile_cl_source(dir, cpu, CL_SOURCE, cpu)
}

/// Compiles OpenCL `source` for AMDGPU processor `cpu` into
/// `dir/<stem>.o`.
pub(crate) fn compile_cl_source(
    dir: &Path,
    cpu: &str,
    source: &str,
    stem: &str,
) -> std::path::PathBuf {
    let cl = dir.join(format!("{stem}.cl"));
    std::fs::write(&cl, source).expect("write");
    let out = dir.join(format!("{stem}.o"));
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
    out
}

#[test]
fn amdgpu_code_objects_decode_as_llvm_objdump_does() {
    if !common::tool(OBJDUMP) || !common::tool(CLANG) {
        return;
    }
    let dir = common::scratch();
    let mut total = 0;
    for cpu in [
        "gfx803",
        "gfx90a",
        "gfx942",
        "gfx1100",
        "gfx1200",
        "gfx9-generic",
        "gfx11-generic",
    ] {
        let out = compile_cl(dir.path(), cpu);
        total += check_file(cpu, &out, &[&format!("--mcpu={cpu}")], "//").0;
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
    let lands = landings(&path);
    let dir = common::scratch();
    let mut total = 0;
    let mut targets = 0;
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
        let (n, t, _) = compare(name(e), &funcs, &objdump(&f, &[], "//"), &lands);
        eprintln!("{}: {n} instructions, {t} branch targets", name(e));
        total += n;
        targets += t;
        objects += 1;
    }
    assert!(objects >= 6, "{objects} code objects in the bundle");
    // Its kernels are one instruction each: no branches to compare.
    eprintln!("HIP bundle: {total} instructions and {targets} branch targets in {objects} code objects compared");
}

/// Where each kernel descriptor's kernel_code_entry_byte_offset leads in
/// `file`: (kernel, the node that following its link selects in a tree
/// where nothing was opened before, that node's parent).
fn kernel_entries(file: &Path) -> Vec<(String, String, String, bool)> {
    let (t, mut fresh) = built_and_fresh(file);
    let mut links = Vec::new();
    for id in (0..t.len()).map(NodeId::at) {
        if t.name(id) != "kernel_code_entry_byte_offset" {
            continue;
        }
        let kd = t.node(id).and_then(|n| n.parent).expect("in a descriptor");
        let kernel = t.value_text(kd).unwrap_or_default();
        let l = t.link(id).expect("the field links to the code");
        links.push((kernel, l));
    }
    links
        .into_iter()
        .map(|(k, l)| {
            let to = fresh.smallest_containing(l);
            let n = fresh.node(to).expect("a node");
            let first = n.offset == l.offset;
            let parent = n
                .parent
                .map(|p| fresh.name(p).to_string())
                .unwrap_or_default();
            (
                k.trim_matches('"').to_string(),
                fresh.name(to).to_string(),
                parent,
                first,
            )
        })
        .collect()
}

/// Each kernel descriptor's kernel_code_entry_byte_offset links to its
/// kernel's first instruction: in the linked code objects of the HIP
/// bundle (an offset from the descriptor) and in relocatable objects
/// compiled here (an `R_AMDGPU_REL64`), at the address llvm-objdump
/// prints for the kernel's symbol.
#[test]
fn kernel_descriptors_link_to_the_first_instruction() {
    let decodes = fwview::disasm::Engine::library().is_some();
    let path = common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb");
    let got = kernel_entries(&path);
    assert_eq!(got.len(), 7, "one descriptor a code object");
    for (kernel, to, parent, first) in &got {
        assert!(first, "{kernel}: the link lands on {to}'s first byte");
        if decodes {
            assert!(is_insn(to), "{kernel}: lands on {to}, an instruction");
            assert_eq!(parent, kernel, "{kernel}: in the kernel's function");
        } else {
            assert_eq!(to, kernel, "{kernel}: on the kernel's function");
        }
    }
    if !common::tool(OBJDUMP) || !common::tool(CLANG) || !decodes {
        return;
    }
    let dir = common::scratch();
    let out = compile_cl(dir.path(), "gfx90a");
    let want = objdump(&out, &[], "//");
    let got = kernel_entries(&out);
    assert_eq!(got.len(), 3, "three kernels: {got:?}");
    for (kernel, to, parent, first) in &got {
        let a = want.symbols[&(".text".to_string(), kernel.clone())];
        assert!(first, "{kernel}: the link lands on {to}'s first byte");
        assert_eq!(to, &format!("0x{a:08x}"), "{kernel}: its first instruction");
        assert_eq!(parent, kernel, "{kernel}: in the kernel's function");
    }
    eprintln!(
        "kernel descriptors: 7 in the HIP bundle and 3 compiled here link to their kernels' first instructions"
    );
}

/// A function decoded to find where a link leads is kept for the tree that
/// shows it, in the same process: a file holding the same function at the
/// same address but at another offset (a code object alone, and inside an
/// archive) does not take it. Where it did, the second file's instructions
/// were nodes at the first file's offsets.
#[test]
fn a_function_decoded_for_a_link_is_not_taken_by_another_file() {
    if fwview::disasm::Engine::library().is_none() || !common::tool(CLANG) {
        return;
    }
    let dir = common::scratch();
    // A kernel long enough to be decoded to find its first instruction.
    let alone = compile_cl_source(dir.path(), "gfx90a", CL_LONG, "long");
    let object = std::fs::read(&alone).expect("the object");
    let ar = common::build::ar_short(&[(b"long.o", &object)]);
    // The kernel descriptor alone, written from the archive: its entry's
    // address is found by decoding the kernel, which is kept.
    let mut t = code_tree(Arc::new(Source::from_vec(ar)));
    let kd = t
        .find_path("[0] long.o/data/sections/[3] .rodata/kernel descriptor big")
        .expect("the kernel descriptor");
    let mut out = Vec::new();
    fwview::export::json_at(&mut t, "long.a", kd, &mut out).expect("json");
    assert!(
        String::from_utf8_lossy(&out).contains(".text/big/"),
        "the entry's address names an instruction of the kernel"
    );
    // Then the code object alone, in the same process, as a process of its
    // own writes it.
    let mut t = code_tree(Arc::new(Source::open(&alone).expect("the object opens")));
    let mut here = Vec::new();
    fwview::export::json(&mut t, "long.o", &mut here).expect("json");
    let run = common::fwview(&[
        OsStr::new("--json"),
        OsStr::new("--code"),
        alone.as_os_str(),
    ]);
    assert!(run.status.success(), "{:?}", run.status);
    let here: Value = serde_json::from_slice(&here).expect("json");
    let own: Value = serde_json::from_slice(&run.stdout).expect("json");
    assert!(here["root"]["children"] == own["root"]["children"]);
}

/// A kernel long enough that its instructions are shown in groups of a
/// thousand, and a short one.
pub(crate) const CL_LONG: &str = r#"
kernel void big(global float *a) {
  float x = a[0];
#pragma unroll
  for (int i = 1; i < 1500; i++) x = x * a[i] + 1.0f;
  a[0] = x;
}
kernel void small(global float *a) { a[1] = a[2] * 2.0f; }
"#;

/// Every link's address in `--json --code` of `file` names the node that
/// following the link selects in a tree where nothing was opened before;
/// returns the kernel entries' addresses.
fn code_link_addresses_hold(file: &Path) -> Vec<String> {
    let run = common::fwview(&[OsStr::new("--json"), OsStr::new("--code"), file.as_os_str()]);
    assert!(run.status.success(), "{:?}", run.status);
    let v: Value = serde_json::from_slice(&run.stdout).expect("json");
    let mut fresh = code_tree(Arc::new(Source::open(file).expect("the file opens")));
    let mut entries = Vec::new();
    let mut checked = 0;
    let mut stack = vec![&v["root"]];
    while let Some(n) = stack.pop() {
        stack.extend(all_kids(n));
        let l = &n["link"];
        let (Some(p), Some(0)) = (l["path"].as_str(), l["space"].as_u64()) else {
            continue;
        };
        let span = fwview::model::Span::file(off(l), size(l));
        let to = fresh.link_target(span).expect("a target");
        assert_eq!(fresh.short_path(to), p, "the link of {}", name(n));
        checked += 1;
        if name(n) == "kernel_code_entry_byte_offset" {
            entries.push(p.to_string());
        }
    }
    eprintln!("{}: {checked} link addresses", file.display());
    entries
}

/// The address `--json --code` gives a link is the node `f` selects:
/// kernel descriptors' entries lead to the kernel's first instruction,
/// named without decoding the kernel where its instructions are not
/// grouped, inside the first group where they are.
#[test]
fn code_link_addresses_name_what_following_them_selects() {
    if fwview::disasm::Engine::library().is_none() {
        return;
    }
    let path = common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb");
    let entries = code_link_addresses_hold(&path);
    assert_eq!(entries.len(), 7, "{entries:?}");
    for p in &entries {
        let mut seg = p.rsplit('/');
        let (insn, func) = (seg.next().unwrap_or(""), seg.next());
        assert!(is_insn(insn) && func == Some("_ZL11init_kernelv"), "{p}");
    }
    if !common::tool(CLANG) {
        return;
    }
    let dir = common::scratch();
    let out = compile_cl_source(dir.path(), "gfx90a", CL_LONG, "long");
    let mut entries = code_link_addresses_hold(&out);
    entries.sort();
    assert_eq!(
        entries,
        [
            "sections/[2] .text/big/[0..1000)/0x00000000",
            "sections/[2] .text/small/0x00007900"
        ]
    );
}

/// Code for a processor LLVM has no decoder for (gfx6, gfx7), or one a
/// libLLVM would not know, is shown as bytes with one info diagnostic:
/// LLVM's AMDGPU decoder would end the process (`LLVM ERROR: disassembly
/// not yet supported for subtarget`), so fwview never asks it.
#[test]
fn amdgpu_code_llvm_cannot_decode_stays_bytes() {
    if !common::tool(CLANG) {
        return;
    }
    let dir = common::scratch();
    for cpu in ["gfx600", "gfx700"] {
        let out = compile_cl(dir.path(), cpu);
        let run = common::fwview(&[OsStr::new("--json"), OsStr::new("--code"), out.as_os_str()]);
        assert!(run.status.success(), "{cpu}: {:?}", run.status);
        assert!(
            run.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let v: Value = serde_json::from_slice(&run.stdout).expect("json");
        fn any_insn(n: &Value) -> bool {
            n["children"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| is_insn(name(k)) || any_insn(k)))
        }
        assert!(!any_insn(&v), "{cpu}: no instructions");
        let text = String::from_utf8_lossy(&run.stdout);
        assert_eq!(
            text.matches("does not disassemble gfx6 and gfx7").count(),
            1,
            "{cpu}: one info diagnostic"
        );
    }
}

/// [`C_SOURCE`] compiled by clang-22 -O1 for x86-64 into `dir/x.o`.
fn x86_object(dir: &Path) -> std::path::PathBuf {
    assert!(compile(
        dir,
        C_SOURCE,
        CLANG,
        &["-O1", "--target=x86_64-linux-gnu"],
        "x.o"
    ));
    dir.join("x.o")
}

/// `--find n:MNEMONIC` finds instructions with --code, and only then: as
/// many `retq` as llvm-objdump prints returns.
#[test]
fn find_searches_mnemonics_with_code() {
    if !common::tool(OBJDUMP) || !common::tool(CLANG) || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let dir = common::scratch();
    let f = x86_object(dir.path());
    let want = objdump(&f, &[], "#")
        .insns
        .values()
        .filter(|l| l.text.starts_with("ret"))
        .count();
    assert!(want > 0);
    let find = |code: bool| {
        let mut args = vec![OsStr::new("--find"), OsStr::new("n:retq")];
        if code {
            args.push(OsStr::new("--code"));
        }
        args.push(f.as_os_str());
        let out = common::fwview(&args);
        let n = String::from_utf8_lossy(&out.stdout).lines().count();
        // As grep: 0 when something matched, 1 when nothing did.
        assert_eq!(out.status.code(), Some(if n > 0 { 0 } else { 1 }));
        n
    };
    assert_eq!(find(true), want, "one match a return");
    assert_eq!(find(false), 0, "no instructions without --code");
}

/// Sections by index (`[N] name`, file offset), from llvm-readelf-22 -S.
fn sections(file: &Path) -> HashMap<u64, (String, u64)> {
    let out = Command::new("llvm-readelf-22")
        .args(["-S", "--wide"])
        .arg(file)
        .output()
        .expect("llvm-readelf runs");
    let mut m = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((idx, rest)) = line
            .trim_start()
            .strip_prefix('[')
            .and_then(|l| l.split_once(']'))
        else {
            continue;
        };
        let w: Vec<&str> = rest.split_whitespace().collect();
        let (Ok(i), Some(off)) = (idx.trim().parse::<u64>(), w.get(3)) else {
            continue;
        };
        if let Ok(off) = u64::from_str_radix(off, 16) {
            m.insert(i, (w[0].to_string(), off));
        }
    }
    m
}

/// `--extract` of a function's node writes exactly the bytes llvm-readelf
/// gives the symbol (its value and size in its section), with and without
/// --code.
#[test]
fn extracting_a_function_writes_its_symbols_bytes() {
    if !common::tool(CLANG) || !common::tool("llvm-readelf-22") {
        return;
    }
    let dir = common::scratch();
    let f = x86_object(dir.path());
    let bytes = std::fs::read(&f).expect("the object");
    let secs = sections(&f);
    let out = Command::new("llvm-readelf-22")
        .arg("-s")
        .arg(&f)
        .output()
        .expect("llvm-readelf runs");
    let mut checked = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        // `4: 0000000000000010 33 FUNC GLOBAL DEFAULT 2 f`
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() != 8 || w[3] != "FUNC" {
            continue;
        }
        let value = u64::from_str_radix(w[1], 16).expect("a value");
        let size: u64 = w[2].parse().expect("a size");
        let Some((sec, sec_off)) = w[6].parse::<u64>().ok().and_then(|i| secs.get(&i)) else {
            continue;
        };
        let ndx = w[6];
        let path = format!("sections/[{ndx}] {sec}/{}", w[7]);
        let start = (sec_off + value) as usize;
        let want = &bytes[start..start + size as usize];
        for code in [false, true] {
            let mut args = vec![
                OsStr::new("--extract"),
                OsStr::new(&path),
                OsStr::new("-o"),
                OsStr::new("-"),
            ];
            if code {
                args.push(OsStr::new("--code"));
            }
            args.push(f.as_os_str());
            let o = common::fwview(&args);
            assert!(
                o.status.success(),
                "--extract {path}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(o.stdout, want, "{path} (code: {code})");
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked} functions extracted");
}

/// A function of five stores, and the same with one constant changed and
/// with one statement inserted.
const STEPS: &str = "volatile int v;\n\
void steps(void) { v = 1; v = 2; v = 3; v = 4; v = 5; }\n\
int other(int x) { return x + 1; }\n";

/// The lines of `fwview --diff [--code] A B` about nodes under `under`.
fn diff_lines(a: &Path, b: &Path, code: bool, under: &str) -> Vec<String> {
    let mut args = vec![OsStr::new("--diff")];
    if code {
        args.push(OsStr::new("--code"));
    }
    args.extend([a.as_os_str(), b.as_os_str()]);
    let out = common::fwview(&args);
    assert_eq!(out.status.code(), Some(1), "the files differ");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(under))
        .map(str::to_string)
        .collect()
}

/// `--diff --code` aligns functions by symbol and instructions as a
/// sequence: a changed constant is one `~` line naming the instruction,
/// with llvm-objdump's text on each side; an inserted statement is one
/// `+` line at the new instruction's address, though every instruction
/// after it moved; the function that moved as a whole is no change.
#[test]
fn diff_with_code_names_the_one_instruction_that_changed() {
    if !common::tool(OBJDUMP) || !common::tool(CLANG) || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let dir = common::scratch();
    let args = ["-O1", "--target=x86_64-linux-gnu"];
    for (src, out) in [
        (STEPS.to_string(), "a.o"),
        (STEPS.replace("v = 3;", "v = 33;"), "b.o"),
        (STEPS.replace("v = 2;", "v = 2; v = 42;"), "c.o"),
    ] {
        assert!(compile(dir.path(), &src, CLANG, &args, out));
    }
    let (a, b, c) = (
        dir.path().join("a.o"),
        dir.path().join("b.o"),
        dir.path().join("c.o"),
    );
    let listing = |f: &Path| -> Vec<(u64, String)> {
        objdump(f, &[], "#")
            .insns
            .into_iter()
            .map(|((_, addr), l)| (addr, l.text))
            .collect()
    };
    let (la, lb, lc) = (listing(&a), listing(&b), listing(&c));

    // One constant: the store of 33 (0x21) is the one line.
    let (at, new) = lb
        .iter()
        .find(|(_, t)| t.starts_with("movl $0x21,"))
        .expect("the store of 33");
    let old = &la
        .iter()
        .find(|(x, _)| x == at)
        .expect("the same address")
        .1;
    // Each side's text is objdump's, then the relocation at it.
    let lines = diff_lines(&a, &b, true, "/steps/");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let (head, change) = lines[0].split_once(": ").expect("a change");
    assert_eq!(head, format!("~ sections/[2] .text/steps/0x{at:08x}"));
    let (was, is) = change.split_once(" -> ").expect("old -> new");
    assert_eq!(split_label(split_relocs(was).0).0, old.as_str());
    assert_eq!(split_label(split_relocs(is).0).0, new.as_str());

    // One statement: the store of 42 (0x2a) is added, and the stores after
    // it, now at other addresses, are no change.
    let added = lc
        .iter()
        .position(|(_, t)| t.starts_with("movl $0x2a,"))
        .expect("the store of 42");
    let at = lc[added].0;
    let after = lc
        .iter()
        .skip(added + 1)
        .take_while(|(_, t)| t.starts_with("movl"))
        .count();
    assert_eq!(after, 3, "the stores of 3, 4 and 5 shifted");
    let lines = diff_lines(&a, &c, true, "/steps/");
    assert_eq!(lines, [format!("+ sections/[2] .text/steps/0x{at:08x}")]);
    assert!(diff_lines(&a, &c, true, "/other").is_empty());

    // Without --code, no instruction is compared.
    assert!(diff_lines(&a, &b, false, "/steps/").is_empty());
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
/// The address of the first label IGA's text names (`L368`: 368), where
/// a branch names one.
fn first_label(text: &str) -> Option<u64> {
    text.split([' ', ',', '(', ')'])
        .find_map(|w| w.strip_prefix('L')?.parse().ok())
}

fn check_zebin(
    what: &str,
    e: &Value,
    bytes: &[u8],
    gen: u32,
    iga: &iga::Iga,
    lands: &HashMap<u64, String>,
) -> (usize, usize) {
    let secs = code_sections(e);
    assert!(!secs.is_empty(), "{what}: kernels' code sections");
    let mut want = Listing::default();
    for (s, o, l) in &secs {
        let list = iga.listing(gen, &bytes[*o as usize..(o + l) as usize]);
        for (i, (pc, t)) in list.iter().enumerate() {
            let len = list.get(i + 1).map(|n| n.0 - pc);
            let line = Line {
                text: t.clone(),
                len,
                label: None,
                target: first_label(t),
            };
            want.insns.insert((s.to_string(), *pc), line);
        }
    }
    use object::{Object, ObjectSection, ObjectSymbol};
    // The symbols branch targets are named by, from the ELF's own symbol
    // table (`e`'s bytes: the zebin, or an archive's member).
    let at = e["offset"].as_u64().expect("offset") as usize;
    let size = e["size"].as_u64().expect("size") as usize;
    let elf = object::File::parse(&bytes[at..at + size]).expect("an ELF");
    for sym in elf.symbols() {
        let (Ok(name), Some(sec)) = (sym.name(), sym.section_index()) else {
            continue;
        };
        if let Ok(sec) = elf
            .section_by_index(sec)
            .and_then(|s| s.name().map(str::to_string))
        {
            want.symbols.insert((sec, name.to_string()), sym.address());
        }
    }
    let mut funcs = Vec::new();
    functions(e, "", &mut funcs);
    let (n, targets, _) = compare(what, &funcs, &want, lands);
    // Each kernel (the function its `.text.<kernel>` is named for) is
    // decoded through, its lengths summing to its symbol's size.
    for (s, _, _) in &secs {
        let k = s.trim_start_matches(".text.");
        assert!(
            funcs.iter().any(|f| f.section == *s && f.name == k),
            "{what}: kernel {k} decoded"
        );
    }
    (n, targets)
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
    let mut branches = 0;
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
        let lands = landings(f);
        for (what, e) in elfs {
            let (platform, gen) = iga_gen(&what).unwrap_or_else(|| panic!("{what}: a platform"));
            let (n, t) = check_zebin(&what, e, &bytes, gen, &iga, &lands);
            eprintln!("{what}: {n} instructions equal to IGA's, {t} branch targets linked");
            *per.entry(platform.to_string()).or_default() += n;
            branches += t;
        }
    }
    eprintln!("Intel GT, instructions compared per IGA platform: {per:?}");
    if common::tool("ocloc") {
        // The kernels built here branch (a loop, a reduction).
        assert!(branches > 0, "branch targets compared");
    }
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
        let covered: u64 = f.insns.iter().map(|i| i.2).sum();
        assert_eq!(
            covered, f.size,
            "{what} {}: instructions cover the function",
            f.name
        );
        // fwview's text without the target's name objdump prints apart.
        let have: HashMap<u64, (u64, &str)> = f
            .insns
            .iter()
            .map(|i| (i.0, (i.2, split_label(split_relocs(&i.3).0).0)))
            .collect();
        let theirs: Vec<(u64, &Line)> = want
            .insns
            .range((f.section.clone(), f.addr)..(f.section.clone(), f.addr + f.size))
            .map(|((_, a), v)| (*a, v))
            .collect();
        let at: HashMap<u64, ()> = theirs.iter().map(|(a, _)| (*a, ())).collect();
        let mut lost = false;
        for (a, w) in &theirs {
            if w.text == "<unknown>" {
                t.unknown += 1;
                lost = true;
                continue;
            }
            match have.get(a) {
                Some((l, mine)) => {
                    lost = false;
                    t.compared += 1;
                    let at = format!("{what} {} {a:#x}", f.name);
                    same(&mut bad, &at, (mine, *l), (&w.text, w.len));
                }
                None if lost => t.resync += 1,
                None => bad.push(format!(
                    "{what} {}: objdump has {a:#x} {:?}, fwview not",
                    f.name, w.text
                )),
            }
        }
        // fwview's instructions where objdump has none lie in the spans
        // past an `<unknown>`.
        let mut lost = false;
        for (a, _, _, text) in &f.insns {
            match want.get(&f.section, *a) {
                Some(w) if w.text == "<unknown>" => lost = true,
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
        outside += want.insns.keys().filter(|(s, a)| !inside(s, *a)).count();
    }
    assert!(tiles >= 4, "{tiles} tile ELFs in the XE samples");
    assert!(t.compared > 0, "XE tiles: instructions compared");
    eprintln!(
        "XE tiles: {} instructions compared in {tiles} tile ELFs; llvm-objdump prints {} <unknown> in them, \
         {} instructions lie past one before both sides meet again, {outside} outside any sized function",
        t.compared, t.unknown, t.resync
    );
}

/// Every node of a `--json` tree, in order.
fn every<'a>(n: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(n);
    for k in n["children"].as_array().into_iter().flatten() {
        every(k, out);
    }
}

/// Every instruction of a `--json` tree: offset, size and text.
fn offsets_sizes_texts(v: &Value) -> Vec<(u64, u64, String)> {
    let mut all = Vec::new();
    every(&v["root"], &mut all);
    all.iter()
        .filter(|n| is_insn(name(n)))
        .map(|n| (off(n), size(n), val(n).to_string()))
        .collect()
}

/// Runs fwview with `args` and the decoders in its own process
/// (`FWVIEW_DECODE_IN_PROCESS=1`), as the library decodes.
fn fwview_in_process(args: &[&OsStr]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("fwview")
        .expect("the fwview binary")
        .env(fwview::disasm::worker::ENV_IN_PROCESS, "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("fwview runs")
}

/// Decoding in a worker process (fwview's default) gives the very output
/// decoding in fwview's own process gives: every function asked for ahead
/// and handed back in turn, on x86-64, AMDGPU objects and the code objects
/// of the committed HIP bundle.
#[test]
fn instructions_from_the_worker_are_those_decoded_in_process() {
    if !common::tool(CLANG) || fwview::disasm::Engine::library().is_none() {
        return;
    }
    let dir = common::scratch();
    // Each file, and how many instructions it has at least.
    let files = [
        (x86_object(dir.path()), 50),
        (compile_cl(dir.path(), "gfx1100"), 50),
        (
            common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb"),
            7,
        ),
    ];
    for (f, least) in files {
        let args = [OsStr::new("--json"), OsStr::new("--code"), f.as_os_str()];
        let apart = common::fwview(&args);
        let here = fwview_in_process(&args);
        assert!(apart.status.success() && here.status.success(), "{f:?}");
        assert!(
            apart.stdout == here.stdout,
            "{}: the worker's instructions differ",
            f.display()
        );
        let v: Value = serde_json::from_slice(&apart.stdout).expect("json");
        let mut all = Vec::new();
        every(&v["root"], &mut all);
        let n = all.iter().filter(|n| is_insn(name(n))).count();
        assert!(n >= least, "{}: {n} instructions", f.display());
    }
}

/// LLVM 22's AMDGPU decoder ends its process (SIGSEGV) on the 8-byte
/// MUBUF encoding `ce f1 a4 e3 10 4c e0 ff` for gfx90a, as
/// `llvm-mc-22 --disassemble` does. Written over a kernel's code, it costs
/// fwview one instruction: `<unknown>` with a warning at its bytes that
/// says the decoder crashed, and the code after it decoded as before.
/// Where the library no longer crashes, the outputs with the decoder in
/// fwview's own process and in a worker are the same.
#[test]
fn a_decoder_that_crashes_costs_one_instruction() {
    if !common::tool(CLANG) || fwview::disasm::Engine::library().is_none() {
        return;
    }
    let dir = common::scratch();
    let good = compile_cl(dir.path(), "gfx90a");
    let insns = offsets_sizes_texts(&fwview_code(&good));
    // The second instruction onwards is overwritten from its first byte.
    let at = insns.get(1).expect("a kernel of several instructions").0;
    let mut bytes = std::fs::read(&good).expect("read");
    let bad_bytes = [0xce, 0xf1, 0xa4, 0xe3, 0x10, 0x4c, 0xe0, 0xff];
    bytes[at as usize..at as usize + 8].copy_from_slice(&bad_bytes);
    let bad = dir.path().join("crash.o");
    std::fs::write(&bad, &bytes).expect("write");
    let args = [OsStr::new("--json"), OsStr::new("--code"), bad.as_os_str()];
    let apart = common::fwview(&args);
    assert!(apart.status.success(), "{:?}", apart.status);
    let here = fwview_in_process(&args);
    if here.status.success() {
        eprintln!("this libLLVM decodes the bytes: nothing crashes");
        assert!(apart.stdout == here.stdout);
        return;
    }
    let v: Value = serde_json::from_slice(&apart.stdout).expect("json");
    let after = offsets_sizes_texts(&v);
    let unknown = after
        .iter()
        .find(|i| i.0 == at)
        .expect("an instruction where the bytes were written");
    assert_eq!(
        (unknown.1, unknown.2.as_str()),
        (4, fwview::disasm::UNKNOWN)
    );
    let crashed: Vec<&Value> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("the decoder crashed"))
        })
        .collect();
    assert_eq!(crashed.len(), 1, "one warning");
    let d = crashed[0];
    assert_eq!(
        (
            d["severity"].as_str(),
            d["offset"].as_u64(),
            d["size"].as_u64()
        ),
        (Some("warning"), Some(at), Some(4))
    );
    // Before the bytes and past the kernel's next 16 bytes, the same.
    let same = |i: &&(u64, u64, String)| i.0 < at || i.0 >= at + 16;
    let a: Vec<_> = insns.iter().filter(same).collect();
    let b: Vec<_> = after.iter().filter(same).collect();
    assert!(
        a.len() > 10 && a == b,
        "{} vs {} instructions",
        a.len(),
        b.len()
    );
}

/// A HIP kernel with a loop (so branches), with the declarations clang's
/// host side needs in place of the HIP headers.
const LOOP_HIP: &str = r#"
typedef struct { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);
__attribute__((global)) void saxpy(float a, const float *x, float *y, int n) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"#;

/// Runs a tool, which must succeed.
fn run_ok(cmd: &mut Command) {
    let st = cmd.output().unwrap();
    assert!(
        st.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// Every node under `n` whose value says it is an ELF (a code object),
/// with what names its target: its own name (a bundle entry's id) and its
/// parent's value (an offload entry's).
fn elf_nodes<'a>(n: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    for k in all_kids(n) {
        if val(k).starts_with("ELF,") {
            out.push((format!("{} {}", name(k), val(n)), k));
        } else {
            elf_nodes(k, out);
        }
    }
}

/// Each code object fwview shows in `file` (named by its bundle entry or
/// its offload entry's arch), compared with llvm-objdump-22 of the code
/// object the reference tool gives for it (`reference(arch, out)` writes
/// it to `out`).
fn check_container(what: &str, file: &Path, archs: &[&str], reference: &dyn Fn(&str, &Path)) {
    let j = fwview_code(file);
    let lands = landings(file);
    let mut elfs = Vec::new();
    elf_nodes(&j["root"], &mut elfs);
    assert_eq!(elfs.len(), archs.len(), "{what}: code objects");
    let dir = common::scratch();
    let mut total = 0;
    let mut targets = 0;
    for arch in archs {
        // The node of this arch: the bundle entry's name ends with it, an
        // offload entry's image sits under the entry that names it.
        let &(_, e) = elfs
            .iter()
            .find(|(label, _)| {
                label
                    .split(' ')
                    .any(|w| w == *arch || w.ends_with(&format!("--{arch}")))
            })
            .unwrap_or_else(|| panic!("{what}: no code object for {arch}"));
        let f = dir.path().join(format!("{arch}.co"));
        reference(arch, &f);
        let mut funcs = Vec::new();
        functions(e, "", &mut funcs);
        let (n, t, _) = compare(
            &format!("{what} {arch}"),
            &funcs,
            &objdump(&f, &[], "//"),
            &lands,
        );
        eprintln!("{what} {arch}: {n} instructions, {t} branch targets");
        total += n;
        targets += t;
    }
    assert!(targets > 0, "{what}: no branch target compared");
    eprintln!("{what}: {total} instructions, {targets} branch targets compared");
}

/// The code objects of a compressed clang offload bundle (CCOB) that
/// clang-22 --offload-compress writes, and of an LLVM offload binary that
/// llvm-offload-binary-22 packs from code objects clang-22 builds, each
/// against llvm-objdump-22 of the code object the LLVM tools take out
/// (clang-offload-bundler-22 --unbundle, llvm-offload-binary-22).
#[test]
fn compressed_bundles_and_offload_binaries_decode_as_llvm_objdump_does() {
    let tools = [
        OBJDUMP,
        CLANG,
        "clang-offload-bundler-22",
        "llvm-offload-binary-22",
    ];
    if !tools.into_iter().all(common::tool) {
        return;
    }
    let dir = common::scratch();
    let d = dir.path();
    let archs = ["gfx90a", "gfx1100"];
    let src = d.join("k.hip");
    std::fs::write(&src, LOOP_HIP).unwrap();
    let ccob = d.join("k.ccob");
    run_ok(
        Command::new(CLANG)
            .args([
                "-x",
                "hip",
                "--offload-arch=gfx90a",
                "--offload-arch=gfx1100",
            ])
            .args(["-nogpulib", "-nogpuinc", "-O1", "-c"])
            .args(["--offload-device-only", "--offload-compress"])
            .arg(&src)
            .arg("-o")
            .arg(&ccob),
    );
    assert_eq!(&std::fs::read(&ccob).unwrap()[..4], b"CCOB");
    let unbundle = |arch: &str, out: &Path| {
        run_ok(
            Command::new("clang-offload-bundler-22")
                .args(["--unbundle", "--type=o"])
                .arg(format!("--input={}", ccob.display()))
                .arg(format!("--targets=hipv4-amdgcn-amd-amdhsa--{arch}"))
                .arg(format!("--output={}", out.display())),
        )
    };
    check_container("CCOB", &ccob, &archs, &unbundle);

    let mut images = Vec::new();
    for arch in archs {
        let o = compile_cl(d, arch);
        images.push(format!(
            "--image=file={},triple=amdgcn-amd-amdhsa,arch={arch},kind=openmp",
            o.display()
        ));
    }
    let bin = d.join("k.offloadbin");
    run_ok(
        Command::new("llvm-offload-binary-22")
            .arg("-o")
            .arg(&bin)
            .args(&images),
    );
    let extract = |arch: &str, out: &Path| {
        run_ok(
            Command::new("llvm-offload-binary-22")
                .arg(&bin)
                .arg(format!(
                    "--image=file={},triple=amdgcn-amd-amdhsa,arch={arch}",
                    out.display()
                )),
        )
    };
    check_container("offload binary", &bin, &archs, &extract);
}
