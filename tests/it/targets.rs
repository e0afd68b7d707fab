//! Every target LLVM 22 compiles C for: each object (built here, with and
//! without `-g`, and cached) opens without an error, its relocations equal
//! what `llvm-readelf-22 -r` lists (count, offset, type name, symbol name,
//! addend; RELR tables address by address, CREL tables entry by entry)
//! and its header flags, OS/ABI and ABI version are named as
//! `llvm-readelf-22 -h` names them. The
//! relocation names themselves are checked against LLVM's tables.

use crate::common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use super::dwarf_cfi::compile;
use common::tree::{child, errors, kids, label_name};
use fwview::model::Tree;

/// The relocation names are generated from LLVM's `ELFRelocs/*.def`
/// (llvm-22-dev): the generated file is what the generator writes today.
#[test]
fn relocation_tables_are_current() {
    let include = Path::new("/usr/include/llvm-22/llvm/BinaryFormat/ELFRelocs");
    if !common::present("llvm-22-dev", include.is_dir()) || !common::tool("python3") {
        return;
    }
    common::generated_is_current("scripts/elf-relocs.py", "src/formats/elf/reloc_tables.rs");
}

/// Data and code that need relocations of most kinds: calls, data and
/// function pointers, a large addend.
const SRC: &str = r#"
extern int ext_counter;
extern int ext_func(int);
static int local_table[4] = {1, 2, 3, 4};
int global_value = 42;
const char *greeting = "hello";
int big[300];
int *far = &big[250];
int (*fp)(int) = ext_func;
int use_them(int x) {
    return ext_func(x) + ext_counter + local_table[x & 3] + global_value
        + greeting[0] + big[200] + fp(x);
}
"#;

/// A PIE whose relative relocations ld.lld packs into `.relr.dyn`.
const PIE_SRC: &str = r#"
int a, b, c;
int *ptrs[] = {&a, &b, &c, &a, &b, 0, &c, &a, &a, &a, &a, &a, &a, &a, &a, &a, &a};
int main(void) { return *ptrs[1]; }
"#;

/// What to build for each target `llvm-objdump-22 --version` registers:
/// the triple and the flags, or why nothing is built.
fn triple_of(target: &str) -> Result<(&'static str, &'static [&'static str]), &'static str> {
    Ok(match target {
        "aarch64" => ("aarch64-linux-gnu", &[]),
        "aarch64_be" => ("aarch64_be-linux-gnu", &[]),
        "arm64" => ("arm64-linux-gnu", &[]),
        "aarch64_32" | "arm64_32" => return Err("Mach-O only (arm64_32-apple-watchos)"),
        "amdgcn" => ("amdgcn-amd-amdhsa", &["-mcpu=gfx90a", "-nogpulib"]),
        "arm" => ("arm-linux-gnueabihf", &[]),
        "armeb" => ("armeb-linux-gnueabi", &[]),
        "thumb" => ("thumbv7m-none-eabi", &[]),
        "thumbeb" => ("thumbebv7m-none-eabi", &[]),
        "avr" => ("avr", &["-mmcu=atmega328p"]),
        "bpf" => ("bpf", &[]),
        "bpfeb" => ("bpfeb", &[]),
        "bpfel" => ("bpfel", &[]),
        "hexagon" => ("hexagon-unknown-elf", &[]),
        "lanai" => ("lanai", &[]),
        "loongarch32" => ("loongarch32-unknown-elf", &[]),
        "loongarch64" => ("loongarch64-linux-gnu", &[]),
        "m68k" => ("m68k-linux-gnu", &[]),
        "mips" => ("mips-linux-gnu", &[]),
        "mipsel" => ("mipsel-linux-gnu", &[]),
        "mips64" => ("mips64-linux-gnuabi64", &[]),
        "mips64el" => ("mips64el-linux-gnuabi64", &[]),
        "msp430" => ("msp430", &[]),
        "nvptx" | "nvptx64" => return Err("PTX text, assembled by NVIDIA's ptxas"),
        "ppc32" => ("powerpc-linux-gnu", &[]),
        "ppc32le" => ("powerpcle-unknown-elf", &[]),
        "ppc64" => ("powerpc64-linux-gnu", &[]),
        "ppc64le" => ("powerpc64le-linux-gnu", &[]),
        "r600" => return Err("clang-22 compiles no call to an external function for r600"),
        "riscv32" => ("riscv32-unknown-elf", &[]),
        "riscv64" => ("riscv64-linux-gnu", &[]),
        "riscv32be" | "riscv64be" => {
            return Err("clang-22's driver knows no big-endian RISC-V triple")
        }
        "sparc" => ("sparc-linux-gnu", &[]),
        "sparcel" => ("sparcel-unknown-elf", &[]),
        "sparcv9" => ("sparcv9-linux-gnu", &[]),
        "spirv" | "spirv32" | "spirv64" => return Err("SPIR-V, not ELF"),
        "systemz" => ("s390x-linux-gnu", &[]),
        "ve" => ("ve-unknown-linux-gnu", &[]),
        "wasm32" | "wasm64" => return Err("WebAssembly, not ELF"),
        "x86" => ("i386-linux-gnu", &[]),
        "x86-64" => ("x86_64-linux-gnu", &[]),
        "xcore" => return Err("clang-22 has no XCore assembler (XMOS's xcc assembles)"),
        "xtensa" => ("xtensa", &[]),
        _ => return Err(""),
    })
}

/// The registered targets `llvm-objdump-22 --version` lists.
fn registered_targets() -> Vec<String> {
    let out = Command::new("llvm-objdump-22")
        .arg("--version")
        .output()
        .expect("llvm-objdump-22 runs");
    let s = String::from_utf8_lossy(&out.stdout);
    s.lines()
        .skip_while(|l| !l.contains("Registered Targets:"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A directory for the built objects that lasts between runs, named by
/// what goes into them (the sources and the tools' versions).
fn cache_dir() -> PathBuf {
    let mut h = DefaultHasher::new();
    SRC.hash(&mut h);
    PIE_SRC.hash(&mut h);
    for tool in ["clang-22", "ld.lld-22"] {
        if let Ok(o) = Command::new(tool).arg("--version").output() {
            o.stdout.hash(&mut h);
        }
    }
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("targets-cache")
        .join(format!("{:016x}", h.finish()));
    std::fs::create_dir_all(&d).expect("the cache directory");
    d
}

/// One thing to build: a name, a command and its output.
struct Job {
    name: String,
    args: Vec<String>,
    /// A link with ld.lld-22 after compiling (the PIE).
    link: Option<Vec<String>>,
    out: PathBuf,
}

/// Runs the jobs whose output is not cached yet, two at a time; returns
/// the names of those that failed with clang's first line.
fn build(jobs: &[Job]) -> Vec<(String, String)> {
    let next = Mutex::new(0usize);
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(j) = jobs.get(i) else { break };
                if j.out.exists() {
                    continue;
                }
                let tmp = j.out.with_extension("tmp");
                let obj = if j.link.is_some() {
                    j.out.with_extension("o")
                } else {
                    tmp.clone()
                };
                let o = Command::new("clang-22")
                    .args(&j.args)
                    .arg("-o")
                    .arg(&obj)
                    .output()
                    .expect("clang-22 runs");
                let mut ok = o.status.success();
                let mut err = String::from_utf8_lossy(&o.stderr).to_string();
                if let (true, Some(link)) = (ok, &j.link) {
                    let l = Command::new("ld.lld-22")
                        .args(link)
                        .arg(&obj)
                        .arg("-o")
                        .arg(&tmp)
                        .output()
                        .expect("ld.lld-22 runs");
                    ok = l.status.success();
                    err = String::from_utf8_lossy(&l.stderr).to_string();
                }
                if ok {
                    std::fs::rename(&tmp, &j.out).expect("the object renamed");
                } else {
                    let first = err.lines().find(|l| l.contains("error")).unwrap_or("");
                    failed
                        .lock()
                        .unwrap()
                        .push((j.name.clone(), first.to_string()));
                }
            });
        }
    });
    failed.into_inner().unwrap()
}

/// One relocation as llvm-readelf lists it (or as fwview shows it).
#[derive(Debug, PartialEq, Eq, Clone)]
struct Reloc {
    offset: u64,
    typ: String,
    sym: String,
    addend: Option<i64>,
}

/// `llvm-readelf-22 -r`: per relocation section, its relocations; a RELR
/// section's addresses as relocations of no type.
fn readelf_relocs(path: &Path) -> Vec<(String, Vec<Reloc>)> {
    let out = Command::new("llvm-readelf-22")
        .arg("-r")
        .arg(path)
        .output()
        .expect("llvm-readelf-22 runs");
    let s = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<(String, Vec<Reloc>)> = Vec::new();
    let mut rela = false;
    let mut relr = false;
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("Relocation section '") {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            v.push((name, Vec::new()));
            continue;
        }
        if line.contains("Symbol's Name") || line.starts_with("Index:") {
            rela = line.contains("Addend");
            relr = line.starts_with("Index:");
            continue;
        }
        let Some((_, list)) = v.last_mut() else {
            continue;
        };
        let f: Vec<&str> = line.split_whitespace().collect();
        if relr {
            // `0001:  ENTRY ADDRESS [SYMBOL]`, or `ADDRESS [SYMBOL]` for
            // the rest of a bitmap's addresses.
            let addr = if f.first().is_some_and(|x| x.ends_with(':')) {
                f.get(2)
            } else {
                f.first()
            };
            if let Some(a) = addr.and_then(|a| u64::from_str_radix(a, 16).ok()) {
                list.push(Reloc {
                    offset: a,
                    typ: String::new(),
                    sym: String::new(),
                    addend: None,
                });
            }
            continue;
        }
        if f.len() < 3 {
            continue;
        }
        let (Ok(offset), Ok(_)) = (u64::from_str_radix(f[0], 16), u64::from_str_radix(f[1], 16))
        else {
            continue;
        };
        let rest = &f[3..];
        let hex = |x: &str| i64::from_str_radix(x, 16).unwrap_or(i64::MIN);
        let (sym, addend) = if rela {
            match rest {
                [] => (String::new(), Some(0)),
                [a] => (String::new(), Some(hex(a))),
                [_, name @ .., sign, a] if *sign == "+" || *sign == "-" => {
                    let a = hex(a);
                    (name.join(" "), Some(if *sign == "-" { -a } else { a }))
                }
                [_, name @ ..] => (name.join(" "), Some(0)),
            }
        } else {
            (rest.get(1..).unwrap_or_default().join(" "), None)
        };
        list.push(Reloc {
            offset,
            typ: f[2].to_string(),
            sym,
            addend,
        });
    }
    v
}

/// fwview's relocations of section node `node`, as [`readelf_relocs`]
/// gives them.
fn our_relocs(t: &mut Tree, node: fwview::model::NodeId, rela: bool) -> Vec<Reloc> {
    let mut v = Vec::new();
    for e in kids(t, node) {
        let name = t.name(e).to_string();
        if name == "header" {
            continue;
        }
        let value = t.value_text(e).unwrap_or_default();
        if let Some(a) = name.split(" address 0x").nth(1) {
            v.push(Reloc {
                offset: u64::from_str_radix(a, 16).unwrap_or(u64::MAX),
                typ: String::new(),
                sym: String::new(),
                addend: None,
            });
            continue;
        }
        if name.contains(" bitmap 0x") {
            for k in t.children(e) {
                let a = label_name(t.name(k)).trim_start_matches("0x");
                v.push(Reloc {
                    offset: u64::from_str_radix(a, 16).unwrap_or(u64::MAX),
                    typ: String::new(),
                    sym: String::new(),
                    addend: None,
                });
            }
            continue;
        }
        // `TYPE at 0xOFFSET [SYMBOL] [+ADDEND]`.
        let f: Vec<&str> = value.split_whitespace().collect();
        let offset = f
            .get(2)
            .and_then(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).ok())
            .unwrap_or(u64::MAX);
        let (sym, addend) = if rela {
            let a = f.last().and_then(|x| x.parse::<i64>().ok());
            (f.get(3..f.len().saturating_sub(1)).unwrap_or_default(), a)
        } else {
            (f.get(3..).unwrap_or_default(), None)
        };
        v.push(Reloc {
            offset,
            typ: f.first().unwrap_or(&"").to_string(),
            sym: sym.join(" "),
            addend,
        });
    }
    v
}

/// `llvm-readelf-22 -h`'s flag names (after `Flags: 0x...`), OS/ABI and
/// ABI version.
fn readelf_header(path: &Path) -> (String, String, String) {
    let out = Command::new("llvm-readelf-22")
        .arg("-h")
        .arg(path)
        .output()
        .expect("llvm-readelf-22 runs");
    let s = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| {
        s.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|x| x.trim().to_string())
            .unwrap_or_default()
    };
    let flags = field("Flags:")
        .split_once(", ")
        .map(|x| x.1.to_string())
        .unwrap_or_default();
    (flags, field("OS/ABI:"), field("ABI Version:"))
}

/// Machines whose flags llvm-readelf names and fwview names alike (CUDA
/// has names of its own, PowerPC64's ABI version is binutils').
fn flags_compared(machine: u16) -> bool {
    matches!(machine, 8 | 243 | 18 | 43 | 83 | 258 | 94 | 224)
}

/// What one comparison found.
#[derive(Default)]
struct Tally {
    files: usize,
    relocs: usize,
    flags: usize,
    misses: Vec<String>,
}

fn check(label: &str, path: &Path, tally: &mut Tally) {
    let d = std::fs::read(path).expect("the built object");
    let machine = u16::from_le_bytes([d[18], d[19]]);
    let machine = if d[5] == 2 {
        machine.swap_bytes()
    } else {
        machine
    };
    let mut t = common::tree::expanded(d);
    let errs = errors(&t);
    assert!(errs.is_empty(), "{label}: {errs:?}");
    let root = t.root();
    let secs = child(&mut t, root, "sections").expect("sections");
    for (sec, theirs) in readelf_relocs(path) {
        let node = t
            .children(secs)
            .into_iter()
            .find(|&k| t.name(k).ends_with(&format!("] {sec}")));
        let Some(node) = node else {
            // An empty section has no contents to show.
            if !theirs.is_empty() {
                tally.misses.push(format!("{label}: no section {sec}"));
            }
            continue;
        };
        let rela = theirs.iter().any(|r| r.addend.is_some());
        let ours = our_relocs(&mut t, node, rela);
        if ours.len() != theirs.len() {
            tally.misses.push(format!(
                "{label} {sec}: {} relocations, llvm-readelf-22 {}",
                ours.len(),
                theirs.len()
            ));
            continue;
        }
        for (k, (o, r)) in ours.iter().zip(&theirs).enumerate() {
            if o != r {
                tally
                    .misses
                    .push(format!("{label} {sec} [{k}]: {o:?}, llvm-readelf-22 {r:?}"));
            }
        }
        tally.relocs += theirs.len();
    }
    let (flags, osabi, abiversion) = readelf_header(path);
    let hdr = child(&mut t, root, "header").expect("header");
    let ident = child(&mut t, hdr, "e_ident").expect("e_ident");
    for (field, theirs) in [("EI_OSABI", &osabi), ("EI_ABIVERSION", &abiversion)] {
        let n = child(&mut t, ident, field).expect("the e_ident field");
        let v = t.value_text(n).unwrap_or_default();
        // `0 (UNIX - System V)` against `UNIX - System V`; the ABI
        // version's number against llvm-readelf's.
        let ours = match v.split_once(" (") {
            Some((_, name)) if field == "EI_OSABI" => name.trim_end_matches(')').to_string(),
            Some((num, _)) => num.to_string(),
            None => v.clone(),
        };
        if &ours != theirs {
            tally.misses.push(format!(
                "{label}: {field} {v:?}, llvm-readelf-22 {theirs:?}"
            ));
        }
    }
    if flags_compared(machine) {
        let fl = child(&mut t, hdr, "e_flags").expect("e_flags");
        let v = t.value_text(fl).unwrap_or_default();
        let ours = v
            .split_once(" (")
            .map(|x| x.1.trim_end_matches(')').to_string())
            .unwrap_or_default();
        if ours != flags {
            tally
                .misses
                .push(format!("{label}: e_flags {v:?}, llvm-readelf-22 {flags:?}"));
        }
        tally.flags += 1;
    }
    tally.files += 1;
}

/// The targets whose shared libraries and executables ld.lld-22 links.
const LINKED: &[&str] = &[
    "aarch64-linux-gnu",
    "aarch64_be-linux-gnu",
    "arm-linux-gnueabihf",
    "armeb-linux-gnueabi",
    "thumbv7m-none-eabi",
    "hexagon-unknown-elf",
    "loongarch32-unknown-elf",
    "loongarch64-linux-gnu",
    "mips-linux-gnu",
    "mipsel-linux-gnu",
    "mips64-linux-gnuabi64",
    "mips64el-linux-gnuabi64",
    "powerpc-linux-gnu",
    "powerpcle-unknown-elf",
    "powerpc64-linux-gnu",
    "powerpc64le-linux-gnu",
    "riscv32-unknown-elf",
    "riscv64-linux-gnu",
    "sparcv9-linux-gnu",
    "s390x-linux-gnu",
    "i386-linux-gnu",
    "x86_64-linux-gnu",
];

/// The debug information each target is built with, and the name suffix.
const DEBUG_VARIANTS: &[(&str, &[&str])] = &[
    ("", &[]),
    ("-g", &["-g"]),
    ("-gdwarf-4", &["-gdwarf-4"]),
    ("-gsplit-dwarf", &["-g", "-gsplit-dwarf"]),
    ("-gz-zlib", &["-g", "-gz=zlib"]),
    ("-gz-zstd", &["-g", "-gz=zstd"]),
];

#[test]
fn every_target_agrees_with_llvm_readelf() {
    if !common::tool("clang-22")
        || !common::tool("llvm-readelf-22")
        || !common::tool("llvm-objdump-22")
        || !common::tool("ld.lld-22")
    {
        return;
    }
    let t0 = std::time::Instant::now();
    let dir = cache_dir();
    let src = dir.join("t.c");
    let pie_src = dir.join("p.c");
    std::fs::write(&src, SRC).unwrap();
    std::fs::write(&pie_src, PIE_SRC).unwrap();
    let s = |x: &str| x.to_string();
    let mut jobs = Vec::new();
    let mut skipped = Vec::new();
    let mut targets = 0;
    for target in registered_targets() {
        match triple_of(&target) {
            Ok((triple, flags)) => {
                targets += 1;
                // Without and with debug information: DWARF 5, DWARF 4,
                // split (the skeleton; its .dwo beside it), compressed.
                for (suffix, debug) in DEBUG_VARIANTS {
                    let name = format!("{triple}{suffix}");
                    let mut args = vec![format!("--target={triple}"), s("-O1"), s("-c")];
                    args.extend(flags.iter().map(|f| s(f)));
                    args.extend(debug.iter().map(|f| s(f)));
                    args.push(src.display().to_string());
                    jobs.push(Job {
                        out: dir.join(format!("{name}.o")),
                        name,
                        args,
                        link: None,
                    });
                }
            }
            Err("") => panic!("no triple known for the registered target {target}"),
            Err(why) => skipped.push(format!("{target}: {why}")),
        }
    }
    // CREL objects (with DWARF, whose relocations are then CREL too).
    for triple in ["x86_64-linux-gnu", "riscv64-linux-gnu", "aarch64-linux-gnu"] {
        jobs.push(Job {
            name: format!("{triple}-crel"),
            args: vec![
                format!("--target={triple}"),
                s("-O1"),
                s("-g"),
                s("-c"),
                s("-Wa,--crel,--allow-experimental-crel"),
                src.display().to_string(),
            ],
            link: None,
            out: dir.join(format!("{triple}-crel.o")),
        });
    }
    // Shared libraries and executables, with DWARF, for every target
    // ld.lld-22 links (it knows no BPF, Lanai, M68k, SPARC V8 or VE; AVR and
    // MSP430 take no position-independent data; AMDGPU code objects are
    // tested with their bundles).
    for triple in LINKED {
        for (kind, link) in [
            ("shared", vec![s("-shared")]),
            ("exe", vec![s("-e"), s("use_them")]),
        ] {
            // ld.lld-22 makes no SPARC V9 shared library of data holding
            // addresses (R_SPARC_64 against a local symbol).
            if kind == "shared" && triple.starts_with("sparcv9") {
                continue;
            }
            let mut args = vec![format!("--target={triple}"), s("-O1"), s("-g"), s("-c")];
            args.push(s("-fPIC"));
            args.push(src.display().to_string());
            let mut link = link;
            link.push(s("--unresolved-symbols=ignore-all"));
            jobs.push(Job {
                name: format!("{triple}-{kind}"),
                args,
                link: Some(link),
                out: dir.join(format!("{triple}-{kind}")),
            });
        }
    }
    // PIEs with RELR.
    for triple in ["x86_64-linux-gnu", "aarch64-linux-gnu", "riscv64-linux-gnu"] {
        jobs.push(Job {
            name: format!("{triple}-relr-pie"),
            args: vec![
                format!("--target={triple}"),
                s("-O1"),
                s("-fPIE"),
                s("-c"),
                pie_src.display().to_string(),
            ],
            link: Some(vec![
                s("-pie"),
                s("-z"),
                s("pack-relative-relocs"),
                s("--unresolved-symbols=ignore-all"),
                s("-e"),
                s("main"),
            ]),
            out: dir.join(format!("{triple}-relr-pie")),
        });
    }
    let failed = build(&jobs);
    assert!(failed.is_empty(), "these did not build: {failed:#?}");
    let mut tally = Tally::default();
    for j in &jobs {
        check(&j.name, &j.out, &mut tally);
        // A split build's .dwo, beside its skeleton.
        let dwo = j.out.with_extension("dwo");
        if j.name.ends_with("-gsplit-dwarf") {
            assert!(dwo.exists(), "{}: no {}", j.name, dwo.display());
            check(&format!("{}.dwo", j.name), &dwo, &mut tally);
        }
    }
    eprintln!(
        "{} files ({} targets without debug information and with DWARF 5, DWARF 4, split DWARF (skeleton and .dwo), zlib and zstd compressed; shared libraries and executables of the {} targets ld.lld-22 links; CREL objects, RELR PIEs) checked in {:?}: {} relocations, every OS/ABI and ABI version and {} headers' flags compared with llvm-readelf-22; {} misses",
        tally.files,
        targets,
        LINKED.len(),
        t0.elapsed(),
        tally.relocs,
        tally.flags,
        tally.misses.len()
    );
    eprintln!("not built: {skipped:#?}");
    assert!(tally.misses.is_empty(), "{:#?}", tally.misses);
}

/// A CREL table of more entries than a group shows is built group by
/// group from the sums kept at each group's start: entry 2400 of 2500
/// (each 8 bytes after the last, all R_X86_64_64) is where the deltas put
/// it.
#[test]
fn a_long_crel_table_opens_in_groups() {
    use common::build::{elf64, Sec, EM_X86_64};
    let n = 2500u64;
    let mut d = Vec::new();
    let mut hdr = n << 3;
    loop {
        let b = (hdr & 0x7f) as u8;
        hdr >>= 7;
        if hdr == 0 {
            d.push(b);
            break;
        }
        d.push(b | 0x80);
    }
    // Offset +8 (two flag bits: 8 << 2), the first with a type delta of 1.
    d.extend_from_slice(&[0x22, 1]);
    d.extend(std::iter::repeat_n(0x20u8, (n - 1) as usize));
    let elf = elf64(EM_X86_64, &[Sec::new(b".crel.test", 0x4000_0014, &d)], &[]);
    let mut t = common::tree::expanded(elf);
    assert!(errors(&t).is_empty(), "{:?}", errors(&t));
    let root = t.root();
    let secs = child(&mut t, root, "sections").unwrap();
    let node = t
        .children(secs)
        .into_iter()
        .find(|&k| t.name(k).ends_with("] .crel.test"))
        .unwrap();
    let es: Vec<_> = kids(&mut t, node)
        .into_iter()
        .filter(|&k| t.name(k) != "header")
        .collect();
    assert_eq!(es.len() as u64, n);
    let v = t.value_text(es[2400]).unwrap_or_default();
    assert_eq!(v, format!("R_X86_64_64 at 0x{:x}", 8 * 2401));
}

/// AMDGPU's `e_flags` (processor, xnack and sramecc in each of their
/// settings, generic versions) in code objects v4 to v6, named as
/// `llvm-readelf-22 -h` names them.
#[test]
fn amdgpu_flags_are_named_as_llvm_readelf_names_them() {
    if !common::tool("clang-22") || !common::tool("llvm-readelf-22") {
        return;
    }
    let dir = common::scratch();
    std::fs::write(
        dir.path().join("k.cl"),
        "kernel void k(global int *a) { a[0] = 1; }\n",
    )
    .expect("write");
    let cases = [
        ("gfx90a", "5"),
        ("gfx90a:xnack+", "5"),
        ("gfx90a:xnack-:sramecc+", "5"),
        ("gfx908:sramecc-", "4"),
        ("gfx942", "6"),
        ("gfx1100", "4"),
        ("gfx9-generic", "6"),
        ("gfx11-generic", "6"),
    ];
    let mut tally = Tally::default();
    for (k, (cpu, cov)) in cases.iter().enumerate() {
        let (_, out) = compile(
            dir.path(),
            &format!(
                "clang-22 -x cl --target=amdgcn-amd-amdhsa -nogpulib -mcpu={cpu} -mcode-object-version={cov} -c k.cl k{k}.o"
            ),
        );
        check(&format!("{cpu} v{cov}"), &out, &mut tally);
    }
    assert_eq!(tally.flags, cases.len());
    assert!(tally.misses.is_empty(), "{:#?}", tally.misses);
}

/// RISC-V vendor relocations (Qualcomm's and Andes', which share numbers
/// with other vendors') named by the `R_RISCV_VENDOR` before each, as
/// `llvm-readelf-22 -r` names them.
#[test]
fn riscv_vendor_relocations_are_named_as_llvm_readelf_names_them() {
    if !common::tool("clang-22") || !common::tool("llvm-readelf-22") {
        return;
    }
    let dir = common::scratch();
    let cases = [
        (
            "rv32i_xqcili_xqcilb_xqcibi",
            "f:\n  qc.e.li a0, ext_sym\n  qc.e.j ext_fn\n  qc.e.beqi a0, 5, ext_fn\n",
        ),
        ("rv32i_xandesperf", "g:\n  nds.bbc a0, 3, far_label\n"),
    ];
    let mut tally = Tally::default();
    // Each as REL/RELA and as CREL (`--crel`), whose entries are read
    // through their deltas.
    let builds = cases
        .iter()
        .enumerate()
        .flat_map(|(k, c)| [(k, c, ""), (k, c, " -Wa,--crel,--allow-experimental-crel")]);
    for (k, (march, asm), extra) in builds {
        std::fs::write(dir.path().join(format!("v{k}.s")), format!(".text\n{asm}")).expect("write");
        let o = format!("v{k}{}.o", if extra.is_empty() { "" } else { "c" });
        let (_, out) = compile(
            dir.path(),
            &format!("clang-22 --target=riscv32-unknown-elf -march={march}{extra} -c v{k}.s {o}"),
        );
        let readelf = Command::new("llvm-readelf-22")
            .arg("-r")
            .arg(&out)
            .output()
            .expect("llvm-readelf-22 runs");
        let listed = String::from_utf8_lossy(&readelf.stdout).to_string();
        assert!(
            listed.contains("R_RISCV_QC_") || listed.contains("R_RISCV_NDS_"),
            "{march}: no vendor relocation built: {listed}"
        );
        check(march, &out, &mut tally);
    }
    assert!(tally.relocs >= 10, "{} relocations compared", tally.relocs);
    assert!(tally.misses.is_empty(), "{:#?}", tally.misses);
}
