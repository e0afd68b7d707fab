//! Call frame information against `llvm-dwarfdump-22 --eh-frame` and
//! `--debug-frame`: every CIE and FDE at its offset, every FDE's PC range,
//! and every call frame instruction (its name and operands, registers as
//! llvm names them; for the DWARF expressions some take, their
//! operations), for files gcc, g++ and clang-22 write (x86-64, AArch64,
//! RISC-V and Arm; objects whose initial locations are relocations, shared
//! libraries), and the system's C library. `.eh_frame_hdr`'s search table
//! against the FDEs it names.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use common::tree::{child, kids, value};
use fwview::formats::build_tree;
use fwview::model::{NodeId, Source, Tree};

/// One entry: its offset, `CIE`/`FDE`, the FDE's PC range, and its
/// instructions as (name, operands).
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    off: u64,
    kind: String,
    pc: Option<(u64, u64)>,
    insns: Vec<(String, String)>,
}

pub(crate) fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16)
        .unwrap_or_else(|_| panic!("no hex in {s:?}"))
}

/// What llvm-dwarfdump says an instruction's operands are, as compared:
/// for one with a DWARF expression, its register (if it has one) and the
/// names of its operations; registers in upper case.
fn operands(name: &str, text: &str) -> String {
    let t = text.trim();
    if name.contains("expression") {
        let mut w: Vec<String> = Vec::new();
        if name != "DW_CFA_def_cfa_expression" {
            w.push(t.split_whitespace().next().unwrap_or("").to_uppercase());
        }
        w.extend(
            t.split(|c: char| c.is_whitespace() || c == ';' || c == ',' || c == ':')
                .filter(|x| x.starts_with("DW_OP_"))
                .map(str::to_string),
        );
        return w.join(" ");
    }
    t.to_string()
}

/// What `llvm-dwarfdump-22 --eh-frame` (or `--debug-frame`) says.
fn theirs(path: &Path, eh: bool) -> Vec<Entry> {
    let out = Command::new("llvm-dwarfdump-22")
        .arg(if eh { "--eh-frame" } else { "--debug-frame" })
        .arg(path)
        .output()
        .expect("llvm-dwarfdump runs");
    assert!(out.status.success(), "llvm-dwarfdump {}", path.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut entries: Vec<Entry> = Vec::new();
    let mut open = false;
    // llvm-dwarfdump lists both sections for either option.
    let mine = if eh {
        ".eh_frame contents:"
    } else {
        ".debug_frame contents:"
    };
    let mut here = false;
    for line in text.lines() {
        if line.ends_with(" contents:") {
            here = line == mine;
            continue;
        }
        if !here {
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() >= 4
            && !line.starts_with(' ')
            && w[0].chars().all(|c| c.is_ascii_hexdigit())
            && (w[3] == "CIE" || w[3] == "FDE")
        {
            let pc = w.iter().find_map(|x| x.strip_prefix("pc=")).map(|r| {
                let (a, b) = r.split_once("...").expect("a range");
                (hex(a), hex(b))
            });
            entries.push(Entry {
                off: hex(w[0]),
                kind: w[3].to_string(),
                pc,
                insns: Vec::new(),
            });
            open = true;
            continue;
        }
        if line.is_empty() {
            // The instructions end at the table llvm computes from them.
            if entries
                .last()
                .is_some_and(|e| !e.insns.is_empty() || e.kind == "FDE")
            {
                open = false;
            }
            continue;
        }
        let t = line.trim();
        if let (true, Some((name, rest))) = (open, t.split_once(':')) {
            if name.starts_with("DW_CFA_") {
                let e = entries.last_mut().expect("an entry");
                e.insns.push((name.to_string(), operands(name, rest)));
            }
        }
    }
    entries
}

/// The node whose children are section `name`'s contents: the section's
/// own, or where it is compressed, the root of its inflated bytes.
pub(crate) fn section(t: &mut Tree, name: &str) -> Option<NodeId> {
    let secs = common::tree::at(t, t.root(), "sections");
    let s = kids(t, secs)
        .into_iter()
        .find(|&k| t.name(k).ends_with(&format!("] {name}")))?;
    Some(
        kids(t, s)
            .into_iter()
            .find(|&k| t.name(k) == "inflated")
            .unwrap_or(s),
    )
}

/// The entries fwview lists under the section.
fn ours(t: &mut Tree, name: &str) -> Vec<Entry> {
    let Some(sec) = section(t, name) else {
        return Vec::new();
    };
    let base = t.node(sec).unwrap().offset;
    let mut out = Vec::new();
    for e in kids(t, sec) {
        let n = t.name(e).to_string();
        let Some(kind) = n.split(' ').next().filter(|k| *k == "CIE" || *k == "FDE") else {
            continue;
        };
        let v = value(t, e);
        let pc = v.strip_prefix("pc=").map(|r| {
            let r = r.split(' ').next().unwrap();
            let (a, b) = r.split_once("...").unwrap();
            (hex(a), hex(b))
        });
        let mut insns = Vec::new();
        if let Some(list) = child(t, e, "instructions") {
            for i in kids(t, list) {
                let name = t.name(i).to_string();
                let text = value(t, i);
                insns.push((name.clone(), operands(&name, &text)));
            }
        }
        out.push(Entry {
            off: t.node(e).unwrap().offset - base,
            kind: kind.to_string(),
            pc,
            insns,
        });
    }
    out
}

/// Compares both sections of `path`; the FDEs and instructions compared.
fn compare(label: &str, path: &Path) -> (usize, usize) {
    let src = Arc::new(Source::open(path).expect("the file opens"));
    let mut t = build_tree(src, "input");
    let (mut fdes, mut insns) = (0, 0);
    for (name, eh) in [(".eh_frame", true), (".debug_frame", false)] {
        let want = theirs(path, eh);
        let have = ours(&mut t, name);
        assert_eq!(
            have.len(),
            want.len(),
            "{label} {name}: entries {:?}",
            have.iter().map(|e| e.off).collect::<Vec<_>>()
        );
        for (h, w) in have.iter().zip(&want) {
            assert_eq!(h.off, w.off, "{label} {name}: entry offset");
            assert_eq!(h.kind, w.kind, "{label} {name}: 0x{:x}", w.off);
            assert_eq!(h.pc, w.pc, "{label} {name}: FDE 0x{:x} PC range", w.off);
            assert_eq!(
                h.insns, w.insns,
                "{label} {name}: 0x{:x} instructions",
                w.off
            );
            fdes += usize::from(h.kind == "FDE");
            insns += h.insns.len();
        }
    }
    assert!(
        common::tree::errors(&t).is_empty(),
        "{label}: {:?}",
        common::tree::errors(&t)
    );
    eprintln!("{label}: {fdes} FDEs, {insns} instructions");
    (fdes, insns)
}

pub(crate) const SOURCE: &str = r#"struct S { int a; double b; };
int printf(const char *, ...);
double g(double);
__attribute__((noinline)) int f(int n, struct S *s) {
    int r = 0;
    for (int i = 0; i < n; i++) {
        r += s[i].a * (int)s[i].b;
        if (r > 100)
            printf("%d\n", r);
    }
    return r;
}
double h(double a, double b) {
    double x = g(a), y = g(b + x), z = g(x * y);
    return x + y + z + a * b;
}
int main(int c, char **v) {
    struct S s[4] = {{c, 1.0}};
    return f(c, s) + (v[0][0] == 'x') + (int)h(c, 2);
}
"#;

const CXX: &str = r#"#include <vector>
#include <stdexcept>
int run(int n) {
    std::vector<int> v(n, 3);
    if (n > 100) throw std::runtime_error("big");
    int s = 0;
    for (int x : v) s += x;
    return s;
}
"#;

/// Device functions for AMDGPU, one calling the other.
const GPU: &str =
    "__attribute__((noinline)) float f(float x, float *p) { p[3] = x; return x * 2.0f + p[1]; }
float g(float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += f(p[i], p); return s; }
";

/// AMDGPU call frame instructions: the CFA in a scalar register (64 is
/// SGPR32), the return address (16, PC_REG) and a vector (2560) and an
/// accumulation (3072) register saved, a register kept in another, state
/// remembered and restored, and an expression.
const GPU_CFI: &str = ".text
.cfi_sections .debug_frame
.globl f
.p2align 8
f:
.cfi_startproc
.cfi_def_cfa 64, 0
.cfi_offset 16, -8
.cfi_offset 2560, 4
s_nop 0
.cfi_offset 3072, 8
.cfi_register 17, 40
.cfi_undefined 33
.cfi_remember_state
.cfi_def_cfa_offset 16
s_nop 0
.cfi_restore_state
.cfi_escape 0x10, 0x10, 0x02, 0x30, 0x1e
s_endpgm
.cfi_endproc
";

pub(crate) fn compile(dir: &Path, cmd: &str) -> (String, PathBuf) {
    let w: Vec<&str> = cmd.split(' ').collect();
    let n = w.len();
    let o = dir.join(w[n - 1]);
    let st = Command::new(w[0])
        .current_dir(dir)
        .args(&w[1..n - 1])
        .arg("-o")
        .arg(&o)
        .status()
        .expect("the compiler runs");
    assert!(st.success(), "{cmd}");
    (w[..n - 1].join(" "), o)
}

/// Whether section `name` of `path` is compressed (SHF_COMPRESSED), as
/// `llvm-readelf-22 -S` flags it (`C`).
pub(crate) fn compressed(path: &Path, name: &str) -> bool {
    let out = Command::new("llvm-readelf-22")
        .args(["-S", "-W"])
        .arg(path)
        .output()
        .expect("llvm-readelf-22 runs");
    String::from_utf8_lossy(&out.stdout).lines().any(|l| {
        l.split_whitespace().any(|w| w == name)
            && l.split_whitespace()
                .rev()
                .nth(3)
                .is_some_and(|f| f.contains('C'))
    })
}

#[test]
fn call_frames_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") || !common::tool("g++") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.c"), SOURCE).unwrap();
    std::fs::write(p.join("run.cc"), CXX).unwrap();
    let mut plan = vec![
        "gcc -g -O2 -c a.c gcc.o",
        "gcc -gdwarf-4 -O2 -fno-asynchronous-unwind-tables -c a.c gccdf.o",
        "gcc -g -O2 -ffunction-sections -c a.c gccfs.o",
        "gcc -g -O2 -shared -fPIC a.c gcc.so",
        "gcc -g -O2 -fno-asynchronous-unwind-tables -shared -fPIC a.c gccdf.so",
        "g++ -g -O2 -c run.cc gxx.o",
        "g++ -gdwarf-4 -O2 -shared -fPIC run.cc gxx.so",
    ];
    if common::tool("clang-22") {
        plan.extend([
            "clang-22 -g -O2 -c a.c clang.o",
            "clang-22 -gdwarf-4 -O2 -shared -fPIC a.c clang.so",
            "clang-22 -g -O2 -fno-asynchronous-unwind-tables -c a.c clangdf.o",
            "clang-22 -g -O2 -c --target=aarch64-linux-gnu a.c a64.o",
            "clang-22 -g -O2 -c --target=aarch64-linux-gnu -mbranch-protection=pac-ret a.c a64pac.o",
            "clang-22 -g -O2 -c --target=riscv64-linux-gnu a.c rv64.o",
            "clang-22 -g -O2 -c --target=armv7a-linux-gnueabihf a.c arm.o",
            "clang-22 -g -O2 -c --target=i686-linux-gnu a.c i686.o",
            // The other machines whose registers llvm-dwarfdump names.
            "clang-22 -g -O2 -c --target=powerpc64le-linux-gnu a.c ppc64le.o",
            "clang-22 -g -O2 -c --target=powerpc64-linux-gnu a.c ppc64.o",
            "clang-22 -g -O2 -c --target=powerpc-linux-gnu a.c ppc.o",
            "clang-22 -g -O2 -c --target=s390x-linux-gnu a.c s390x.o",
            "clang-22 -g -O2 -c --target=mips64el-linux-gnuabi64 a.c mips64el.o",
            "clang-22 -g -O2 -c --target=mips-linux-gnu a.c mips.o",
            "clang-22 -g -O2 -c --target=loongarch64-linux-gnu a.c la64.o",
            "clang-22 -g -O2 -c --target=sparcv9-linux-gnu a.c sparcv9.o",
            "clang-22 -g -O2 -c --target=sparc-linux-gnu a.c sparc.o",
            "clang-22 -g -O2 -c --target=hexagon-unknown-elf a.c hexagon.o",
        ]);
        // AMDGPU: an object, and call frame instructions over its scalar,
        // vector and accumulation registers as an assembler writes them.
        std::fs::write(p.join("gpu.c"), GPU).unwrap();
        std::fs::write(p.join("gpu.s"), GPU_CFI).unwrap();
        plan.extend([
            "clang-22 -g -O2 -c --target=amdgcn-amd-amdhsa -mcpu=gfx90a gpu.c gpu.o",
            "clang-22 -c --target=amdgcn-amd-amdhsa -mcpu=gfx1100 gpu.s gpucfi.o",
        ]);
        if common::tool("ld.lld-22") {
            plan.extend([
                "clang-22 -g -O2 --target=aarch64-linux-gnu -fuse-ld=lld -nostdlib -shared -fPIC a.c a64.so",
                "clang-22 -g -O2 --target=riscv64-linux-gnu -fuse-ld=lld -nostdlib -shared -fPIC a.c rv64.so",
                // A code object as a bundle carries it.
                "clang-22 -g -O0 --target=amdgcn-amd-amdhsa -mcpu=gfx942 -fuse-ld=lld -nostdlib gpu.c gpu.co",
            ]);
        }
    }
    // Compressed `.debug_frame` (SHF_COMPRESSED, zlib and zstd) is read in
    // its inflated bytes; a source of many functions makes sure the
    // assembler finds compressing worth it.
    let many: String = (0..200)
        .map(|i| {
            format!("int m{i}(int x, int y) {{ return g(x * {i}) > y ? m{i}(y, x - 1) : x; }}\n")
        })
        .collect();
    std::fs::write(p.join("many.c"), format!("double g(double);\n{many}")).unwrap();
    plan.push("gcc -g -O2 -fno-asynchronous-unwind-tables -gz=zlib -c many.c gccz.o");
    if common::tool("clang-22") {
        plan.extend([
            "clang-22 -g -O2 -fno-asynchronous-unwind-tables -gz=zlib -c many.c clangz.o",
            "clang-22 -g -O2 -fno-asynchronous-unwind-tables -gz=zstd -c many.c clangzstd.o",
        ]);
    }
    let mut builds: Vec<(String, PathBuf)> = plan.iter().map(|c| compile(p, c)).collect();
    for (label, path) in &builds {
        if label.contains("-gz") {
            assert!(
                compressed(path, ".debug_frame"),
                "{label}: .debug_frame is not compressed"
            );
        }
    }
    for lib in [
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
    ] {
        if Path::new(lib).exists() {
            builds.push((lib.to_string(), PathBuf::from(lib)));
        }
    }
    let (mut fdes, mut insns) = (0, 0);
    for (label, path) in &builds {
        let (f, i) = compare(label, path);
        fdes += f;
        insns += i;
    }
    assert!(fdes > 100 && insns > 1000);
    eprintln!(
        "{} files: {fdes} FDEs, {insns} instructions equal to llvm-dwarfdump-22",
        builds.len()
    );
}

/// The XMOS samples' tile ELFs (xCORE, whose registers llvm-dwarfdump
/// names `reg<N>`): their `.debug_frame` and `.eh_frame` as
/// llvm-dwarfdump-22 reads them.
#[test]
fn xcore_call_frames_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") {
        return;
    }
    let dir = common::scratch();
    let (mut files, mut fdes, mut insns) = (0, 0, 0);
    for sample in [
        "assets/xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe",
        "assets/xmos/UltranetReceiver__bin_Release_Ultranet_Receiver.xe",
        "assets/xmos/COMS20001-game-of-life__game_of_life_sequential.xe",
    ] {
        for path in super::dwarf_line::elfs_with(sample, dir.path(), b"_frame") {
            let (f, i) = compare(&format!("{sample} {}", path.display()), &path);
            files += 1;
            fdes += f;
            insns += i;
        }
    }
    assert!(
        files >= 3 && fdes > 10 && insns > 10,
        "{files} {fdes} {insns}"
    );
    eprintln!("{files} tile ELFs: {fdes} FDEs, {insns} instructions equal to llvm-dwarfdump-22");
}

/// NVIDIA's cubins in the nvjpeg wheel's libnvjpeg.so (executables whose
/// CIEs are DWARF64, whose registers are numbered past 2^24, and whose
/// expressions name such registers with `DW_OP_bregx`) and in the CUDA
/// runtime wheel's libcudadevrt.a (relocatable, read without NVIDIA's
/// relocations as llvm-dwarfdump reads them): their `.debug_frame` as
/// llvm-dwarfdump-22 reads it, without an error.
#[test]
fn cuda_call_frames_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") {
        return;
    }
    let (Some(so), Some(ar)) = (
        super::cuda::nvjpeg_library(),
        super::cuda::cudadevrt_archive(),
    ) else {
        return;
    };
    let dir = common::scratch();
    let (mut files, mut fdes, mut insns, mut exprs) = (0, 0, 0, 0);
    let (lib, rel) = (dir.path().join("so"), dir.path().join("ar"));
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(&rel).unwrap();
    let mut cubins = super::dwarf_line::elfs_of(so, &lib, b".debug_frame");
    let relocatable = super::dwarf_line::elfs_of(ar, &rel, b".debug_frame");
    assert!(relocatable.len() >= 10, "{relocatable:?}");
    cubins.extend(relocatable);
    for path in cubins {
        let label = path.display().to_string();
        let (f, i) = compare(&label, &path);
        files += 1;
        fdes += f;
        insns += i;
        let src = Arc::new(Source::open(&path).expect("the cubin opens"));
        let mut t = build_tree(src, "input");
        exprs += ours(&mut t, ".debug_frame")
            .iter()
            .flat_map(|e| &e.insns)
            .filter(|(_, ops)| ops.contains("DW_OP_bregx"))
            .count();
    }
    assert!(
        files >= 10 && fdes > 100 && exprs > 10,
        "{files} {fdes} {insns} {exprs}"
    );
    eprintln!(
        "{files} cubins: {fdes} FDEs, {insns} instructions ({exprs} with DW_OP_bregx) equal to llvm-dwarfdump-22"
    );
}

/// Every entry of `.eh_frame_hdr`'s table of a shared library names an
/// FDE whose initial location is the entry's, as llvm-dwarfdump reads the
/// FDE at that offset.
#[test]
fn the_frame_header_table_links_each_entry_to_its_fde() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.c"), SOURCE).unwrap();
    let (_, so) = compile(d.path(), "gcc -g -O2 -shared -fPIC a.c a.so");
    let want = theirs(&so, true);
    let src = Arc::new(Source::open(&so).expect("the file opens"));
    let mut t = build_tree(src, "input");
    let eh = section(&mut t, ".eh_frame").expect(".eh_frame");
    let eh_at = t.node(eh).unwrap().offset;
    let hdr = section(&mut t, ".eh_frame_hdr").expect(".eh_frame_hdr");
    let table = child(&mut t, hdr, "table").expect("a table");
    let mut n = 0;
    for e in kids(&mut t, table) {
        let l = child(&mut t, e, "initial_location").unwrap();
        let loc = hex(&value(&t, l));
        let to = t.link(e).expect("a link").offset - eh_at;
        let fde = want.iter().find(|w| w.off == to).expect("an FDE there");
        assert_eq!(fde.pc.map(|p| p.0), Some(loc), "FDE at 0x{to:x}");
        n += 1;
    }
    let fdes = want.iter().filter(|w| w.kind == "FDE").count();
    assert_eq!(n, fdes, "one table entry an FDE");
}

/// A `.debug_frame` entry: its length (the true one plus `extra`), then
/// `body`.
fn entry(body: &[u8], extra: u32) -> Vec<u8> {
    let mut v = Vec::new();
    common::build::put32(&mut v, body.len() as u32 + extra);
    v.extend_from_slice(body);
    v
}

/// A version 1 CIE of `.debug_frame` (code alignment 1, data alignment
/// -8, return address in register 16) with `insns`.
fn cie(version: u8, insns: &[u8]) -> Vec<u8> {
    let mut b = vec![0xff, 0xff, 0xff, 0xff, version, 0, 1, 0x78, 16];
    b.extend_from_slice(insns);
    entry(&b, 0)
}

/// An FDE of the CIE at `cie`, for `[0x1000, 0x1040)`, with `insns`.
fn fde(cie: u32, insns: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    common::build::put32(&mut b, cie);
    b.extend_from_slice(&0x1000u64.to_le_bytes());
    b.extend_from_slice(&0x40u64.to_le_bytes());
    b.extend_from_slice(insns);
    entry(&b, 0)
}

#[test]
fn lying_call_frames_are_diagnosed_at_their_bytes() {
    use common::build::{elf64, Sec, EM_X86_64, SHT_PROGBITS};
    let good = cie(1, &[0x0c, 7, 8, 0x90, 1]);
    let with = |v: Vec<u8>| [good.clone(), v].concat();
    // (what, the section, a word every diagnostic must hold)
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "an entry longer than the section",
            with(entry(&fde(0, &[])[4..], 1000)),
            "past the section's end",
        ),
        (
            "an opcode DWARF does not define",
            with(fde(0, &[0x41, 0x1c, 0x0e, 16])),
            "not one DWARF defines",
        ),
        (
            "an operand cut by the entry's end",
            with(fde(0, &[0x0c, 7, 0x80])),
            "does not read",
        ),
        (
            "an expression longer than its entry",
            with(fde(0, &[0x0f, 0xff, 0x7f, 0x70])),
            "does not read",
        ),
        (
            "an FDE whose CIE is past the section",
            with(fde(0x10_0000, &[0])),
            "past the section's end",
        ),
        (
            "an FDE whose CIE pointer names an FDE",
            with([fde(0, &[0]), fde(good.len() as u32, &[0])].concat()),
            "CIE",
        ),
        ("a CIE of version 9", cie(9, &[0]), "version"),
        (
            "advances that overflow the address",
            with(fde(
                0,
                &[
                    0x04, 0xff, 0xff, 0xff, 0xff, 0x04, 0xff, 0xff, 0xff, 0xff, 0x01,
                ],
            )),
            "set_loc",
        ),
    ];
    for (what, frame, word) in cases {
        let elf = elf64(
            EM_X86_64,
            &[Sec::new(b".debug_frame", SHT_PROGBITS, &frame)],
            &[],
        );
        let mut t = common::tree::expanded(elf);
        let sec = section(&mut t, ".debug_frame").expect(".debug_frame");
        let _ = ours(&mut t, ".debug_frame");
        let d = common::tree::warnings_and_errors(&t);
        assert!(
            d.iter().any(|m| m.contains(word)),
            "{what}: {d:?} names no {word:?}"
        );
        let (lo, size) = {
            let n = t.node(sec).unwrap();
            (n.offset, n.size)
        };
        for x in t.diagnostics() {
            if x.message.contains(word) {
                assert!(
                    x.span.offset >= lo && x.span.offset + x.span.len <= lo + size,
                    "{what}: {x:?}"
                );
            }
        }
    }
}

/// The register names are what scripts/dwarf-regs.py asks clang-22 and
/// llvm-dwarfdump-22 for today.
#[test]
fn register_tables_are_current() {
    if !common::tool("clang-22") || !common::tool("llvm-dwarfdump-22") || !common::tool("python3") {
        return;
    }
    common::generated_is_current(
        "scripts/dwarf-regs.py",
        "src/formats/elf/dwarf/frame/regs.rs",
    );
}
