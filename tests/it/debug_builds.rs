//! Debug information as the toolchains write it, built here: split DWARF
//! (skeleton and `.dwo`, DWARF 4 and 5, by clang-22 and gcc), debug
//! sections compressed with `-gz=zlib`, `-gz=zstd` and objcopy's
//! `zlib-gnu` (`.zdebug_*`), objects, shared libraries and executables
//! linked by ld and by lld. None gives a warning or an error; the
//! addresses of `.debug_addr` (headerless in split DWARF 4) agree with
//! `llvm-dwarfdump-22 --debug-addr`, the split units' `dwo_id` with its
//! `--debug-info`, and every `.zdebug_*` section inflates to the bytes
//! `objcopy --decompress-debug-sections` writes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use fwview::model::{NodeId, Tree};
use object::{Object, ObjectSection};

use common::tree::{child, expanded, label_name, warnings_and_errors};

const SOURCE: &str = r#"#include <stdio.h>
struct point { int x; double y; };
static int twice(struct point *p) { return p->x * 2; }
int shared_counter = 7;
int main(int argc, char **argv) {
    struct point p = { argc, 1.5 };
    printf("%d %s\n", twice(&p), argv[0]);
    return shared_counter;
}
"#;

/// Runs `cmd` in `dir`; the build must succeed.
fn run(dir: &Path, cmd: &str, args: &[&str]) {
    let out = Command::new(cmd)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The builds of the matrix, each as (compiler, flags, output); the split
/// ones leave a `.dwo` beside their object.
const BUILDS: &[(&str, &[&str], &str)] = &[
    (
        "clang-22",
        &["-gdwarf-4", "-gsplit-dwarf", "-c"],
        "c-split4.o",
    ),
    (
        "clang-22",
        &["-gdwarf-5", "-gsplit-dwarf", "-c"],
        "c-split5.o",
    ),
    (
        "clang-22",
        &["-gdwarf-5", "-gsplit-dwarf", "-fdebug-types-section", "-c"],
        "c-split5-types.o",
    ),
    (
        "clang-22",
        &["-gdwarf-5", "-fdebug-types-section", "-c"],
        "c-types5.o",
    ),
    ("clang-22", &["-g", "-gz=zlib", "-c"], "c-gz-zlib.o"),
    ("clang-22", &["-g", "-gz=zstd", "-c"], "c-gz-zstd.o"),
    ("clang-22", &["-g", "-c"], "c-plain.o"),
    ("clang-22", &["-gdwarf-4", "-c"], "c-dwarf4.o"),
    ("clang-22", &["-g", "-fuse-ld=lld"], "c-lld.exe"),
    (
        "clang-22",
        &["-g", "-fPIC", "-shared", "-fuse-ld=lld"],
        "c-lld.so",
    ),
    (
        "clang-22",
        &["-gdwarf-4", "-gsplit-dwarf", "-fuse-ld=lld"],
        "c-split4-lld.exe",
    ),
    (
        "clang-22",
        &["-g", "-gz=zlib", "-fuse-ld=lld"],
        "c-gz-lld.exe",
    ),
    ("gcc", &["-g", "-c"], "g-plain.o"),
    ("gcc", &["-g"], "g-ld.exe"),
    ("gcc", &["-g", "-fPIC", "-shared"], "g-ld.so"),
    ("gcc", &["-g", "-gsplit-dwarf", "-c"], "g-split5.o"),
    ("gcc", &["-gdwarf-4", "-gsplit-dwarf", "-c"], "g-split4.o"),
    ("gcc", &["-g", "-gz=zlib"], "g-gz.exe"),
];

/// Builds the matrix in `dir` with the compilers that are there; returns
/// every file written (objects, `.dwo`, linked files, the `zlib-gnu`
/// copies).
fn build(dir: &Path) -> Vec<PathBuf> {
    std::fs::write(dir.join("d.c"), SOURCE).unwrap();
    let mut out = Vec::new();
    for cc in ["clang-22", "gcc"] {
        if !common::tool(cc) {
            continue;
        }
        for (c, flags, name) in BUILDS.iter().filter(|b| b.0 == cc) {
            let mut args: Vec<&str> = flags.to_vec();
            args.extend(["d.c", "-o", name]);
            run(dir, c, &args);
            out.push(dir.join(name));
            let dwo = dir.join(name).with_extension("dwo");
            if dwo.exists() {
                out.push(dwo);
            }
        }
    }
    if common::tool("objcopy") {
        for src in ["c-plain.o", "g-plain.o", "g-ld.exe", "c-lld.so"] {
            if !dir.join(src).exists() {
                continue;
            }
            let z = format!("zgnu-{src}");
            run(
                dir,
                "objcopy",
                &["--compress-debug-sections=zlib-gnu", src, &z],
            );
            out.push(dir.join(z));
        }
    }
    out
}

/// The section nodes of the ELF at the root of `t`, by name.
fn sections(t: &mut Tree) -> Vec<(String, NodeId)> {
    let root = t.root();
    let Some(s) = child(t, root, "sections") else {
        return Vec::new();
    };
    t.children(s)
        .into_iter()
        .map(|k| (label_name(t.name(k)).to_string(), k))
        .collect()
}

/// Every node named `name` below `id`, in tree order.
fn named(t: &mut Tree, id: NodeId, name: &str, out: &mut Vec<NodeId>) {
    for k in t.children(id) {
        if t.name(k) == name {
            out.push(k);
        }
        named(t, k, name, out);
    }
}

/// The addresses `llvm-dwarfdump-22 --debug-addr` lists, in order.
fn dwarfdump_addrs(path: &Path) -> Vec<u64> {
    let out = Command::new("llvm-dwarfdump-22")
        .arg("--debug-addr")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("0x"))
        .filter(|l| l.bytes().all(|c| c.is_ascii_hexdigit()))
        .map(|l| u64::from_str_radix(l, 16).unwrap())
        .collect()
}

/// The `DWO_id`s of the units `llvm-dwarfdump-22 --debug-info` lists.
fn dwarfdump_dwo_ids(path: &Path) -> Vec<u64> {
    let out = Command::new("llvm-dwarfdump-22")
        .arg("--debug-info")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" Unit: "))
        .filter_map(|l| l.split("DWO_id = 0x").nth(1))
        .map(|s| {
            let h: String = s.chars().take_while(char::is_ascii_hexdigit).collect();
            u64::from_str_radix(&h, 16).unwrap()
        })
        .collect()
}

fn hex_value(t: &Tree, id: NodeId) -> u64 {
    let v = t.value_text(id).unwrap();
    let h = v.split_whitespace().next().unwrap();
    u64::from_str_radix(h.trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn split_and_compressed_debug_information_reads_without_a_complaint() {
    let dir = common::scratch();
    let files = build(dir.path());
    if files.is_empty() {
        return;
    }
    let dump = common::tool("llvm-dwarfdump-22");
    let (mut addrs, mut ids, mut zdebug) = (0, 0, 0);
    for f in &files {
        let label = f.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(f).unwrap();
        let mut t = expanded(bytes);
        let bad = warnings_and_errors(&t);
        assert!(bad.is_empty(), "{label}: {bad:#?}");
        let secs = sections(&mut t);
        if !dump {
            continue;
        }
        // Where a debug section is compressed, the units and tables are
        // shown as bytes.
        let compressed = secs
            .iter()
            .any(|(n, s)| n.starts_with(".zdebug") || child(&mut t, *s, "Chdr").is_some());
        // .debug_addr, headerless or not, address by address.
        if let Some(&(_, s)) = secs.iter().find(|s| s.0 == ".debug_addr" && !compressed) {
            let mut tables = Vec::new();
            named(&mut t, s, "addresses", &mut tables);
            let mut ours = Vec::new();
            for a in tables {
                for e in t.children(a) {
                    ours.push(hex_value(&t, e));
                }
            }
            assert_eq!(ours, dwarfdump_addrs(f), "{label}: .debug_addr");
            addrs += ours.len();
        }
        // The split units' dwo_id (a .dwo's units are not listed).
        if let Some(&(_, s)) = secs.iter().find(|s| s.0 == ".debug_info" && !compressed) {
            let mut nodes = Vec::new();
            named(&mut t, s, "dwo_id", &mut nodes);
            let ours: Vec<u64> = nodes.iter().map(|&n| hex_value(&t, n)).collect();
            assert_eq!(ours, dwarfdump_dwo_ids(f), "{label}: dwo_id");
            ids += ours.len();
        }
        // .zdebug_*: the inflated bytes, against objcopy's.
        if label.starts_with("zgnu-") {
            let plain = dir.path().join(format!("{label}.plain"));
            run(
                dir.path(),
                "objcopy",
                &[
                    "--decompress-debug-sections",
                    &label,
                    &format!("{label}.plain"),
                ],
            );
            let pd = std::fs::read(&plain).unwrap();
            let po = object::File::parse(&*pd).unwrap();
            let mut seen = 0;
            for (name, s) in &secs {
                let Some(rest) = name.strip_prefix(".zdebug") else {
                    continue;
                };
                let inflated = child(&mut t, *s, "inflated").unwrap();
                let want = po
                    .section_by_name(&format!(".debug{rest}"))
                    .unwrap()
                    .data()
                    .unwrap();
                assert_eq!(t.node_bytes(inflated), want, "{label}: {name}");
                seen += 1;
            }
            assert!(seen > 0, "{label}: no .zdebug section");
            zdebug += seen;
        }
    }
    eprintln!(
        "{} files without a complaint; {addrs} addresses, {ids} dwo_ids, {zdebug} .zdebug sections agree",
        files.len()
    );
}
