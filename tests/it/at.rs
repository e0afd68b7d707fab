//! `--at PATH`: `--tree` and `--json` of one node and what it holds,
//! checked against the whole tree's output, and a kernel's instructions
//! against llvm-objdump-22 `--disassemble-symbols`.

use crate::common;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn fwview(args: &[&str], file: &Path) -> Output {
    let mut a: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    a.push(file.as_os_str());
    common::fwview(&a)
}

fn stdout_of(args: &[&str], file: &Path) -> String {
    let o = fwview(args, file);
    assert!(
        o.status.success(),
        "fwview {args:?} {}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8")
}

/// The files the subtree tests read: a HIP bundle (code objects with
/// DWARF), an xclbin, an AMDGPU object, an XE (with derived spaces).
fn files() -> Vec<std::path::PathBuf> {
    [
        "hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb",
        "xclbin/pynq__pl_server_default.xclbin",
        "offload/debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-amdgpu-gfx90a.o",
        "xmos/COMS20001-game-of-life__pgm_generator.xe",
    ]
    .iter()
    .map(|f| common::asset(f))
    .collect()
}

/// Every 40th node `--find n:` prints for names holding `.` or `[`
/// (sections, entries, elements), and the root `/`: where each starts
/// (`0xOFFSET`, `K:0xOFFSET` in derived space K) and its address.
fn addresses(file: &Path) -> Vec<(String, String)> {
    let mut out = vec![("0x0".to_string(), "/".to_string())];
    for pat in ["n:.", "n:["] {
        let text = stdout_of(&["--find", pat], file);
        let mut seen: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once("  ")).collect();
        seen.dedup_by(|a, b| a.1 == b.1);
        out.extend(
            seen.iter()
                .step_by(40)
                .map(|(o, a)| (o.to_string(), a.to_string())),
        );
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out.dedup_by(|a, b| a.1 == b.1);
    out
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

/// `--tree --at ADDRESS` prints the lines the whole `--tree` prints for
/// that node and the nodes below it, two spaces less for each level above
/// it.
#[test]
fn tree_at_a_node_is_its_block_of_the_whole_tree() {
    let mut checked = 0;
    for file in files() {
        let whole = stdout_of(&["--tree"], &file);
        let lines: Vec<&str> = whole.lines().collect();
        for (off, addr) in addresses(&file) {
            let at = stdout_of(&["--tree", "--at", &addr], &file);
            let mine: Vec<&str> = at.lines().collect();
            let first = mine.first().copied().unwrap_or_default();
            assert_eq!(indent(first), 0, "{addr}: {first}");
            // The node the address names: it starts where --find says.
            assert!(
                first.contains(&format!("[{off}+")),
                "{addr} at {off}: {first}"
            );
            // The node's line may stand more than once (a name and range
            // repeated): one of them is followed by the same block.
            let found = lines.iter().enumerate().any(|(i, l)| {
                if l.trim_start_matches(' ') != first {
                    return false;
                }
                let d = indent(l);
                let block: Vec<&str> = lines[i..]
                    .iter()
                    .enumerate()
                    .take_while(|(k, l)| *k == 0 || indent(l) > d)
                    .map(|(_, l)| &l[d..])
                    .collect();
                block == mine
            });
            assert!(
                found,
                "{} --at {addr}: not a block of --tree",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} addresses checked");
}

/// Every node object of `v`, depth first.
fn nodes<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(v);
    if let Some(kids) = v["children"].as_array() {
        for k in kids {
            nodes(k, out);
        }
    }
}

/// `--json --at ADDRESS`: `root` is the whole document's object for that
/// node, `at` the address, and the diagnostics those of the whole
/// document that start in the node's bytes (in the file's space).
#[test]
fn json_at_a_node_is_its_object_of_the_whole_document() {
    let mut checked = 0;
    for file in files() {
        let whole: Value =
            serde_json::from_str(&stdout_of(&["--json"], &file)).expect("the whole document");
        let mut all = Vec::new();
        nodes(&whole["root"], &mut all);
        let diags = whole["diagnostics"].as_array().expect("diagnostics");
        for (off, addr) in addresses(&file) {
            let doc: Value = serde_json::from_str(&stdout_of(&["--json", "--at", &addr], &file))
                .expect("the document at a node");
            assert_eq!(doc["at"], Value::from(addr.as_str()));
            assert_eq!(doc["path"], whole["path"]);
            assert_eq!(doc["spaces"], whole["spaces"], "{addr}");
            let root = &doc["root"];
            let start = match root["space"].as_u64() {
                Some(0) => format!("0x{:x}", root["offset"].as_u64().unwrap_or(0)),
                k => format!(
                    "{}:0x{:x}",
                    k.unwrap_or(0),
                    root["offset"].as_u64().unwrap_or(0)
                ),
            };
            assert_eq!(start, off, "{addr}");
            assert!(
                all.contains(&root),
                "{} --at {addr}: not a node of --json",
                file.display()
            );
            let mine = doc["diagnostics"].as_array().expect("diagnostics");
            for d in mine {
                assert!(
                    diags.contains(d),
                    "{addr}: {d} is not in the whole document"
                );
            }
            if root["space"] == 0 {
                let (off, size) = (root["offset"].as_u64(), root["size"].as_u64());
                let (off, size) = (off.unwrap_or(0), size.unwrap_or(0));
                for d in diags.iter().filter(|d| d["space"] == 0) {
                    let o = d["offset"].as_u64().unwrap_or(0);
                    if o == off || (o > off && o < off + size) {
                        assert!(mine.contains(d), "{addr}: {d} starts in the node");
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} addresses checked");
}

/// A path that names no node, `--at` beside a mode it does not apply to,
/// and a folder are usage errors (exit 2), each said on standard error.
#[test]
fn at_refuses_what_it_cannot_start_at() {
    let file = common::asset("xclbin/pynq__pl_server_default.xclbin");
    let o = fwview(&["--tree", "--at", "no/such/node"], &file);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no node at path no/such/node"));
    assert!(o.stdout.is_empty());
    for extra in [
        &["--find", "x"][..],
        &["--targets"],
        &["--extract", "/", "-o", "-"],
    ] {
        let mut args = vec!["--at", "/"];
        args.extend_from_slice(extra);
        let o = fwview(&args, &file);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--at"),
            "{args:?}"
        );
    }
    let o = fwview(&["--tree", "--at", "/"], &common::assets());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--at"));
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// (address, text) of each instruction llvm-objdump-22 prints for symbol
/// `name` of the AMDGPU code object `file`: `\tTEXT // ADDR: RAW <label>`,
/// the label (a branch target's symbol and offset) after the text, as
/// fwview shows it.
fn objdump_symbol(file: &Path, name: &str) -> Vec<(u64, String)> {
    let out = Command::new("llvm-objdump-22")
        .args(["-d", "--no-show-raw-insn"])
        .arg(format!("--disassemble-symbols={name}"))
        .arg(file)
        .output()
        .expect("llvm-objdump-22 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut insns = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((body, comment)) = line.strip_prefix('\t').and_then(|l| l.split_once("//")) else {
            continue;
        };
        let Some(addr) = comment
            .trim()
            .split(':')
            .next()
            .and_then(|a| u64::from_str_radix(a, 16).ok())
        else {
            continue;
        };
        let label = comment.find(" <").map_or("", |k| &comment[k..]);
        insns.push((addr, norm(&format!("{body}{label}"))));
    }
    insns
}

/// A function symbol: its name, value and size, and the address of its
/// node.
type Function = (String, u64, u64, String);

/// The FUNC symbols of `object` (an ELF file), each with the address of
/// its node: `PREFIX sections/[K] SECTION/NAME`. Names that stand for two
/// functions are left out.
fn functions(object: &Path, prefix: &str) -> Vec<Function> {
    let readelf = |arg: &str| {
        let o = Command::new("llvm-readelf-22")
            .arg(arg)
            .arg(object)
            .output()
            .expect("llvm-readelf-22 runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // `  [ 7] .text  PROGBITS ...`
    let sections: std::collections::HashMap<String, String> = readelf("-SW")
        .lines()
        .filter_map(|l| {
            let (k, rest) = l.trim_start().strip_prefix('[')?.split_once(']')?;
            Some((
                k.trim().to_string(),
                rest.split_whitespace().next()?.to_string(),
            ))
        })
        .collect();
    // `  4: 0000000000000010 33 FUNC GLOBAL DEFAULT 2 f`
    let mut out: Vec<Function> = readelf("-sW")
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() != 8 || w[3] != "FUNC" {
                return None;
            }
            let sec = sections.get(w[6])?;
            let at = format!("{prefix}sections/[{}] {sec}/{}", w[6], w[7]);
            let value = u64::from_str_radix(w[1], 16).ok()?;
            Some((w[7].to_string(), value, w[2].parse().ok()?, at))
        })
        .collect();
    // (.symtab and .dynsym both list a code object's kernels.)
    out.sort();
    out.dedup();
    let names: Vec<String> = out.iter().map(|f| f.0.clone()).collect();
    out.retain(|f| names.iter().filter(|m| **m == f.0).count() == 1);
    out
}

/// The instructions of `--json --code --at AT` of `file`: (address, text).
fn instructions_at(file: &Path, at: &str) -> Vec<(u64, String)> {
    let doc: Value =
        serde_json::from_str(&stdout_of(&["--json", "--code", "--at", at], file)).expect("JSON");
    assert_eq!(doc["at"], Value::from(at));
    let mut all = Vec::new();
    nodes(&doc["root"], &mut all);
    all.iter()
        .filter_map(|n| {
            let a = n["name"].as_str()?.strip_prefix("0x")?;
            let a = u64::from_str_radix(a, 16).ok()?;
            Some((a, norm(n["value"].as_str()?)))
        })
        .collect()
}

/// `--json --code --at .../sections/[K] .text/KERNEL` holds exactly the
/// instructions llvm-objdump-22 prints for that symbol, in the symbol's
/// size (llvm-objdump goes on to the next symbol, through the padding
/// after the function, which fwview shows as a gap): for the kernels
/// of three code objects in the HIP bundle (unbundled for llvm-objdump by
/// `--extract`, which tests/it/offload.rs checks against
/// clang-offload-bundler), and for the two kernels of an object clang-22
/// compiles here, one of thousands of instructions (in groups).
#[test]
fn a_kernel_at_its_address_decodes_as_llvm_objdump_disassembles_its_symbol() {
    if !common::tool("llvm-objdump-22") || !common::tool("llvm-readelf-22") {
        return;
    }
    let dir = common::scratch();
    let bundle = common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb");
    let targets = stdout_of(&["--targets"], &bundle);
    let entries: Vec<&str> = targets
        .lines()
        .filter_map(|l| l.split('\t').nth(3))
        .filter(|e| e.contains("gfx90a") || e.contains("gfx1030"))
        .collect();
    assert_eq!(entries.len(), 3, "{targets}");
    let mut cases = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let co = dir.path().join(format!("{i}.co"));
        let o = fwview(
            &["--extract", entry, "-o", co.to_str().expect("a path")],
            &bundle,
        );
        assert!(o.status.success());
        for f in functions(&co, &format!("{entry}/")) {
            cases.push((bundle.clone(), co.clone(), f));
        }
    }
    let mut longest = 0;
    if common::tool("clang-22") {
        let o =
            crate::disasm::compile_cl_source(dir.path(), "gfx90a", crate::disasm::CL_LONG, "long");
        for f in functions(&o, "") {
            cases.push((o.clone(), o.clone(), f));
        }
    }
    for (file, object, (name, value, size, at)) in &cases {
        let mine = instructions_at(file, at);
        let mut theirs = objdump_symbol(object, name);
        theirs.retain(|(a, _)| *a < value + size);
        assert!(!theirs.is_empty(), "{name}: llvm-objdump printed nothing");
        let differ = mine.iter().zip(&theirs).find(|(a, b)| a != b);
        assert!(
            differ.is_none() && mine.len() == theirs.len(),
            "{at}: {} instructions, llvm-objdump {}; first difference {differ:?}; last {:?} and {:?}",
            mine.len(),
            theirs.len(),
            mine.last(),
            theirs.last()
        );
        longest = longest.max(mine.len());
    }
    assert!(cases.len() >= 3, "{} kernels checked", cases.len());
    if common::tool("clang-22") {
        assert!(
            cases.len() >= 7 && longest > 1000,
            "{} kernels, {longest}",
            cases.len()
        );
    }
}

/// `fwview --at PATH FILE` opens the explorer with that node selected
/// (its ancestors open, the node line naming it, the hex pane at its
/// first byte), at 80x24, placed as a jump is: rows above and below it.
#[test]
fn the_explorer_opens_at_the_node() {
    let bundle = common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb");
    let at = "hipv4-amdgcn-amd-amdhsa--gfx1030/sections/[7] .text/_ZL11init_kernelv";
    let cmd = format!(
        "{} --at '{at}' {}",
        env!("CARGO_BIN_EXE_fwview"),
        bundle.display()
    );
    let Some(t) = common::tmux::Tmux::start(&cmd, 80, 24) else {
        return;
    };
    let s = t.wait("the node selected", |s| {
        s.lines()
            .any(|l| l.starts_with("_ZL11init_kernelv  init_kernel()"))
    });
    assert!(s.contains("▼ [7] .text"), "{s}");
    assert!(s.contains("00001600  00 00 81 bf"), "{s}");
    assert!(s.contains("[8] .dynamic"), "{s}");
    // Placed as a jump is: three rows of context above it.
    let row = s
        .lines()
        .position(|l| l.contains("▶ _ZL11init_kernelv [0x1600"));
    assert_eq!(row, Some(4), "{s}");
    t.keys(&["q"]);
}
