//! DWARF line programs against `llvm-dwarfdump-22 -v --debug-line`: every
//! unit's header fields and file table, every opcode's offset and kind, and
//! every row (address, line, column, file, ISA, discriminator, op-index and
//! flags), for files gcc, g++ and clang-22 write (DWARF 4 and 5, objects
//! whose addresses are relocations, shared libraries). Rows link to the
//! instruction at their address. And each instruction's source line
//! against `llvm-objdump-22 -d -l`.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use common::tree::{kids, value};
use fwview::formats::build_tree_with;
use fwview::model::{NodeId, Options, Source, Tree};

/// One opcode as llvm-dwarfdump lists it: its offset in the section, its
/// name (`special` for a special opcode), and the row it appended.
#[derive(Clone, Debug, PartialEq)]
struct Op {
    off: u64,
    name: String,
    row: Option<Row>,
}

/// A row: address, file name, line, column, then the ISA, discriminator,
/// op-index where not 0 and the flags, as words.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    addr: u64,
    file: String,
    line: u64,
    column: u64,
    flags: Vec<String>,
}

/// One unit: its offset, header fields by llvm-dwarfdump's names, and its
/// opcodes.
#[derive(Clone, Debug, Default, PartialEq)]
struct Unit {
    off: u64,
    fields: Vec<(String, i64)>,
    files: Vec<String>,
    ops: Vec<Op>,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16)
        .unwrap_or_else(|_| panic!("no hex in {s:?}"))
}

/// The header fields compared, as llvm-dwarfdump names them and as fwview
/// does.
const FIELDS: [(&str, &str); 9] = [
    ("version", "version"),
    ("address_size", "address_size"),
    ("prologue_length", "header_length"),
    ("min_inst_length", "minimum_instruction_length"),
    ("max_ops_per_inst", "maximum_operations_per_instruction"),
    ("default_is_stmt", "default_is_stmt"),
    ("line_base", "line_base"),
    ("line_range", "line_range"),
    ("opcode_base", "opcode_base"),
];

/// What `llvm-dwarfdump-22 -v --debug-line` says of `path`.
fn theirs(path: &Path) -> Vec<Unit> {
    let out = Command::new("llvm-dwarfdump-22")
        .args(["-v", "--debug-line"])
        .arg(path)
        .output()
        .expect("llvm-dwarfdump runs");
    assert!(out.status.success(), "llvm-dwarfdump {}", path.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut units: Vec<Unit> = Vec::new();
    // The file table of the unit being read: index -> name.
    let mut files: HashMap<u64, String> = HashMap::new();
    let mut file: Option<u64> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("debug_line[") {
            files.clear();
            units.push(Unit {
                off: hex(rest.trim_end_matches(']')),
                ..Unit::default()
            });
            continue;
        }
        let Some(u) = units.last_mut() else {
            continue;
        };
        if let Some((k, v)) = t.split_once(": ") {
            let k = k.trim();
            if let Some((_, ours)) = FIELDS.iter().find(|f| f.0 == k) {
                let v = v.trim();
                let n = if let Some(h) = v.strip_prefix("0x") {
                    i64::from_str_radix(h, 16).expect("hex")
                } else {
                    v.parse().expect("a number")
                };
                u.fields.push((ours.to_string(), n));
                continue;
            }
            if k == "name" {
                if let Some(f) = file.take() {
                    // `"x.c"`, or `.debug_line_str[0x27] = "x.c"` with -v.
                    let q = v.find('"').expect("a quoted name");
                    let name = v[q..].trim().trim_matches('"').to_string();
                    files.insert(f, name.clone());
                    u.files.push(name);
                }
                continue;
            }
        }
        if let Some(rest) = t.strip_prefix("file_names[") {
            file = Some(rest.split(']').next().unwrap().trim().parse().unwrap());
            continue;
        }
        // `0x00000036: 05 DW_LNS_set_column (13)`, `…: 13 address += 0, …`
        if let Some((off, rest)) = t.split_once(": ") {
            if off.starts_with("0x") && off.len() == 10 {
                let mut w = rest.split_whitespace();
                let _byte = w.next();
                // fwview names an opcode DWARF does not define by its
                // number (`DW_LNS_0x0d`, `DW_LNE_0x80`).
                let name = match w.next() {
                    Some(n) if n.starts_with("DW_") => n.to_string(),
                    Some("address") => "special".to_string(),
                    Some("Unrecognized") if _byte == Some("00") => {
                        // `Unrecognized extended op 0x85 length 3`
                        let sub = rest.split(" op ").nth(1).unwrap_or("");
                        format!("DW_LNE_{}", sub.split(' ').next().unwrap_or(""))
                    }
                    Some("Unrecognized") => format!("DW_LNS_0x{}", _byte.unwrap_or("")),
                    Some(n) => n.to_string(),
                    None => continue,
                };
                u.ops.push(Op {
                    off: hex(off),
                    name,
                    row: None,
                });
                continue;
            }
        }
        // A row: `0x0000000000000000      1     13      1   0   0   0  is_stmt`
        if t.starts_with("0x") && !t.contains(':') {
            let w: Vec<&str> = t.split_whitespace().collect();
            if w.len() < 7 {
                continue;
            }
            let f: u64 = w[3].parse().unwrap();
            let mut flags = Vec::new();
            for (v, name) in [(w[4], "isa"), (w[5], "discriminator"), (w[6], "op_index")] {
                if v != "0" {
                    flags.push(format!("{name}={v}"));
                }
            }
            flags.extend(w[7..].iter().map(|s| s.to_string()));
            let row = Row {
                addr: hex(w[0]),
                file: files.get(&f).cloned().unwrap_or_else(|| format!("[{f}]")),
                line: w[1].parse().unwrap(),
                column: w[2].parse().unwrap(),
                flags,
            };
            let op = u.ops.last_mut().expect("a row follows its opcode");
            assert!(op.row.is_none(), "one row an opcode");
            op.row = Some(row);
        }
    }
    units
}

/// A row as fwview's value shows it: `0x… x.c:5:11 is_stmt (address +=
/// …)`, the file's name possibly with spaces.
fn our_row(v: &str) -> Row {
    let v = v.split(" (address += ").next().unwrap();
    let (addr, rest) = v.split_once(' ').unwrap();
    let mut words: Vec<&str> = rest.split(' ').collect();
    let mut flags = Vec::new();
    while let Some(w) = words.last() {
        if w.contains(':') {
            break;
        }
        flags.insert(0, w.to_string());
        words.pop();
    }
    let pos = words.join(" ");
    let mut p = pos.rsplitn(3, ':');
    let column = p.next().unwrap().parse().unwrap();
    let line = p.next().unwrap().parse().unwrap();
    let file = p.next().unwrap().to_string();
    // llvm-dwarfdump lists the numbers first, then the flags.
    flags.sort_by_key(|f| !f.contains('='));
    Row {
        addr: hex(addr),
        file,
        line,
        column,
        flags,
    }
}

fn open(path: &Path, code: bool) -> Tree {
    let src = Arc::new(Source::open(path).expect("the file opens"));
    build_tree_with(
        src,
        "input",
        Options {
            code,
            arg_names: None,
            nested_only: false,
        },
    )
}

/// The `.debug_line` section's node (its inflated bytes' where it is
/// compressed) and where the section starts in its byte space.
fn debug_line(t: &mut Tree) -> (NodeId, u64) {
    let secs = common::tree::at(t, t.root(), "sections");
    for k in kids(t, secs) {
        if t.name(k).ends_with("] .debug_line") {
            if let Some(i) = common::tree::child(t, k, "inflated") {
                return (i, 0);
            }
            let off = t.node(k).unwrap().offset;
            return (k, off);
        }
    }
    panic!("no .debug_line");
}

/// What fwview shows of `.debug_line`, and the links of the rows:
/// (opcode offset in the section, linked offset).
fn ours(t: &mut Tree) -> (Vec<Unit>, Vec<(u64, u64)>) {
    let (sec, base) = debug_line(t);
    let mut units = Vec::new();
    let mut links = Vec::new();
    for u in kids(t, sec) {
        let mut unit = Unit {
            off: t.node(u).unwrap().offset - base,
            ..Unit::default()
        };
        let header = common::tree::at(t, u, "header");
        for k in kids(t, header) {
            let name = t.name(k).to_string();
            if FIELDS.iter().any(|f| f.1 == name) {
                let v = value(t, k);
                let n: i64 = v.split(' ').next().unwrap().parse().unwrap();
                unit.fields.push((name.clone(), n));
            }
            if name == "file_names" {
                for f in kids(t, k) {
                    if t.name(f) == "end" {
                        continue;
                    }
                    unit.files.push(value(t, f).trim_matches('"').to_string());
                }
            }
        }
        if let Some(program) = common::tree::child(t, u, "program") {
            for k in kids(t, program) {
                let v = value(t, k);
                let row = Some(v)
                    .filter(|v| v.starts_with("0x") && v.contains(':'))
                    .map(|v| our_row(&v));
                let n = t.node(k).unwrap();
                if let Some(l) = t.link(k) {
                    links.push((n.offset - base, l.offset));
                }
                unit.ops.push(Op {
                    off: n.offset - base,
                    name: n.name.to_string(),
                    row,
                });
            }
        }
        units.push(unit);
    }
    (units, links)
}

/// Compares one file; returns the rows compared. Where `code`, the file
/// has code the rows point at.
fn compare(label: &str, path: &Path, has_code: bool) -> usize {
    let want = theirs(path);
    let mut t = open(path, false);
    let (have, links) = ours(&mut t);
    assert_eq!(have.len(), want.len(), "{label}: units");
    let mut rows = 0;
    for (h, w) in have.iter().zip(&want) {
        assert_eq!(h.off, w.off, "{label}: unit offset");
        assert_eq!(h.fields, w.fields, "{label}: unit 0x{:x} header", w.off);
        assert_eq!(h.files, w.files, "{label}: unit 0x{:x} files", w.off);
        assert_eq!(
            h.ops.len(),
            w.ops.len(),
            "{label}: unit 0x{:x} opcodes",
            w.off
        );
        for (a, b) in h.ops.iter().zip(&w.ops) {
            assert_eq!(a, b, "{label}: opcode at 0x{:x}", b.off);
            rows += usize::from(a.row.is_some());
        }
    }
    assert!(rows > 0, "{label}: rows");
    // Every row but the ends of sequences links to the code at its
    // address, which an instruction holds once decoded.
    let mut code = open(path, true);
    let mut landed = 0;
    for (_, to) in &links {
        let n = code.deepest_at(*to);
        let node = code.node(n).unwrap();
        if node.value.as_ref().is_some_and(|v| v.is_insn()) {
            assert_eq!(
                node.offset, *to,
                "{label}: a row lands on an instruction's start"
            );
            landed += 1;
        }
    }
    assert!(
        !has_code || (landed * 2 >= links.len() && !links.is_empty()),
        "{label}: {landed} of {} row links land on instructions",
        links.len()
    );
    assert!(
        common::tree::errors(&t).is_empty(),
        "{label}: {:?}",
        common::tree::errors(&t)
    );
    eprintln!(
        "{label}: {rows} rows, {} links, {landed} on instructions",
        links.len()
    );
    rows
}

const SOURCE: &str = r#"#include "util.h"
static int table[64];
int accumulate(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += scale(table[i & 63], i);
        if (s > 1000)
            s -= twice(i);
    }
    return s;
}
int main(int argc, char **argv) {
    (void)argv;
    for (int i = 0; i < 64; i++)
        table[i] = i * argc;
    return accumulate(argc * 10);
}
"#;

const HEADER: &str = r#"static inline int scale(int x, int k) {
    return x * k + (x >> 2);
}
static inline int twice(int x) { return 2 * x; }
"#;

const CXX: &str = r#"#include <vector>
#include <string>
template <typename T> T sum(const std::vector<T>& v) {
    T s{};
    for (auto& x : v) s += x;
    return s;
}
int run(int n) {
    std::vector<int> v(n, 3);
    std::string name = "line";
    return sum(v) + (int)name.size();
}
"#;

fn sources() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("prog.c"), SOURCE).unwrap();
    std::fs::write(d.path().join("util.h"), HEADER).unwrap();
    std::fs::write(d.path().join("run.cc"), CXX).unwrap();
    d
}

fn compile(dir: &Path, cc: &str, args: &[&str], src: &str, out: &str) -> PathBuf {
    let o = dir.join(out);
    let st = Command::new(cc)
        .current_dir(dir)
        .args(args)
        .arg(src)
        .arg("-o")
        .arg(&o)
        .status()
        .expect("the compiler runs");
    assert!(st.success(), "{cc} {args:?}");
    o
}

#[test]
fn line_programs_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") || !common::tool("g++") {
        return;
    }
    let d = sources();
    let p = d.path();
    // `compiler arguments… source output`; clang-22's where it is there.
    let mut plan = vec![
        "gcc -g -O2 -c prog.c gcc5.o",
        "gcc -gdwarf-4 -O1 -c prog.c gcc4.o",
        "gcc -g -O1 -ffunction-sections -c prog.c gccfs.o",
        "gcc -g -O2 -shared -fPIC prog.c gcc.so",
        "gcc -g -O1 -gz=zlib -c prog.c gccz.o",
        "gcc -g -O1 -gz=zlib -shared -fPIC prog.c gccz.so",
        "g++ -g -O1 -c run.cc gxx.o",
        "g++ -gdwarf-4 -O2 -shared -fPIC run.cc gxx4.so",
    ];
    if common::tool("clang-22") {
        plan.extend([
            "clang-22 -g -O1 -c prog.c clang5.o",
            "clang-22 -gdwarf-4 -O2 -c prog.c clang4.o",
            "clang-22 -g -O1 -ffunction-sections -c prog.c clangfs.o",
            "clang-22 -g -O1 -shared -fPIC prog.c clang.so",
            "clang-22 -g -O1 -gz=zstd -c prog.c clangz.o",
            "clang-22 -gdwarf-4 -O1 -shared -fPIC run.cc clangxx4.so",
            "clang-22 -g -O1 -c --target=aarch64-linux-gnu prog.c clang-a64.o",
        ]);
    }
    let builds: Vec<(String, PathBuf)> = plan
        .iter()
        .map(|line| {
            let w: Vec<&str> = line.split(' ').collect();
            let n = w.len();
            let path = compile(p, w[0], &w[1..n - 2], w[n - 2], w[n - 1]);
            (w[..n - 2].join(" "), path)
        })
        .collect();
    let mut rows = 0;
    for (label, path) in &builds {
        rows += compare(label, path, true);
    }
    eprintln!(
        "{} files, {rows} rows equal to llvm-dwarfdump-22",
        builds.len()
    );
}

/// Each instruction's source line as `llvm-objdump-22 -d -l` prints it:
/// `; /dir/file.c:LINE` before an instruction whose line (or file)
/// differs from the one before, nothing for an address without one. By
/// (section, address): the line printed just before it, if one was.
type Printed = HashMap<(String, u64), Option<(String, u64)>>;

/// An instruction's section, address and source file and line, if any.
type InsnLine = (String, u64, Option<(String, u64)>);

fn objdump_lines(path: &Path) -> Printed {
    let out = Command::new("llvm-objdump-22")
        .args(["-d", "-l", "--no-show-raw-insn"])
        .arg(path)
        .output()
        .expect("llvm-objdump runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut printed = Printed::new();
    let mut section = String::new();
    let mut pending: Option<(String, u64)> = None;
    for line in text.lines() {
        if let Some(s) = line.strip_prefix("Disassembly of section ") {
            section = s.trim_end_matches(':').to_string();
            continue;
        }
        if let Some(rest) = line.strip_prefix("; ") {
            if rest.ends_with("():") {
                continue;
            }
            let (file, l) = rest.rsplit_once(':').unwrap();
            pending = Some((file.to_string(), l.parse().unwrap()));
            continue;
        }
        let t = line.trim_start();
        if let Some((a, _)) = t.split_once(':') {
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_hexdigit()) && line.starts_with(' ') {
                printed.insert((section.clone(), hex(a)), pending.take());
            }
        }
    }
    printed
}

/// The section an instruction's node is in: the nearest `[N] name`
/// above it.
fn section_of(name: &str) -> Option<String> {
    let s = name.strip_prefix('[').and_then(|r| r.split_once("] "))?;
    s.0.chars()
        .all(|c| c.is_ascii_digit())
        .then(|| s.1.to_string())
}

/// Each instruction's source line, in tree order as (section, address,
/// file and line), against `llvm-objdump-22 -d -l`'s.
fn check_sources(label: &str, path: &Path) -> usize {
    let mut t = open(path, true);
    t.expand_all();
    let mut insns = Vec::new();
    for id in (0..t.len()).map(NodeId::at) {
        let Some(n) = t.node(id) else { continue };
        let Some(v) = n.value.as_ref().filter(|v| v.is_insn()) else {
            continue;
        };
        let addr = u64::from_str_radix(&n.name[2..], 16).unwrap();
        let mut p = n.parent.unwrap();
        let sec = loop {
            if let Some(s) = section_of(t.name(p)) {
                break s;
            }
            p = t.node(p).unwrap().parent.unwrap();
        };
        let src = v.source_line().map(|s| (s.file.to_string(), s.line));
        insns.push((sec, addr, src));
    }
    compare_sources(label, &objdump_lines(path), insns)
}

fn compare_sources(label: &str, printed: &Printed, insns: Vec<InsnLine>) -> usize {
    let mut current: HashMap<String, (String, u64)> = HashMap::new();
    let mut checked = 0;
    let mut with_line = 0;
    for (sec, addr, src) in insns {
        let Some(before) = printed.get(&(sec.clone(), addr)) else {
            panic!("{label}: llvm-objdump has no instruction at {sec} 0x{addr:x}");
        };
        match (&src, before) {
            (Some((sf, sl)), Some((file, line))) => {
                assert!(
                    file.ends_with(&format!("/{sf}")) || file == sf,
                    "{label}: {sec} 0x{addr:x}: {file} against {sf}"
                );
                assert_eq!(sl, line, "{label}: {sec} 0x{addr:x}: line");
                current.insert(sec.clone(), (sf.clone(), *sl));
            }
            (Some((sf, sl)), None) => {
                // The same line as the instruction before: llvm-objdump
                // says nothing.
                let (f, l) = current
                    .get(&sec)
                    .unwrap_or_else(|| panic!("{label}: {sec} 0x{addr:x}: no line before"));
                assert!(
                    f == sf && l == sl,
                    "{label}: {sec} 0x{addr:x}: {sf}:{sl} but llvm-objdump stays at {f}:{l}"
                );
            }
            (None, Some(x)) => {
                panic!("{label}: {sec} 0x{addr:x}: no line, llvm-objdump says {x:?}")
            }
            (None, None) => {}
        }
        with_line += usize::from(src.is_some());
        checked += 1;
    }
    assert!(
        with_line > 10,
        "{label}: {with_line} instructions with a line"
    );
    eprintln!("{label}: {checked} instructions, {with_line} with a source line");
    checked
}

/// The instructions of `--json --code`'s nodes, in document order: the
/// leaves named by an address (`0x…`) inside a section llvm-objdump
/// disassembled, each with its `line` field, if any.
fn json_sources(
    node: &serde_json::Value,
    printed: &Printed,
    sec: Option<&str>,
    out: &mut Vec<InsnLine>,
) {
    let name = node["name"].as_str().unwrap();
    let here = section_of(name);
    let sec = here.as_deref().or(sec);
    let kids = node["children"].as_array().unwrap();
    if let (Some(s), Some(a), true) = (sec, name.strip_prefix("0x"), kids.is_empty()) {
        let disassembled = printed.keys().any(|(k, _)| k == s);
        if let (Ok(addr), true) = (u64::from_str_radix(a, 16), disassembled) {
            let src = node.get("line").map(|l| {
                let file = l["file"].as_str().unwrap().to_string();
                assert!(l["column"].is_u64(), "{l}");
                (file, l["line"].as_u64().unwrap())
            });
            out.push((s.to_string(), addr, src));
        }
    }
    for k in kids {
        json_sources(k, printed, sec, out);
    }
}

#[test]
fn json_gives_instructions_their_source_line_as_llvm_objdump_does() {
    if !common::tool("llvm-objdump-22")
        || !common::tool("clang-22")
        || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let d = sources();
    let builds: [(&[&str], &str); 2] = [
        (&["-g", "-O1", "-c"], "prog.o"),
        (&["-g", "-O1", "-shared", "-fPIC"], "prog.so"),
    ];
    let json = |args: &[&str], o: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_fwview"))
            .args(args)
            .arg(o)
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    };
    for (args, out) in builds {
        let label = format!("clang-22 {}", args.join(" "));
        let o = compile(d.path(), "clang-22", args, "prog.c", out);
        let printed = objdump_lines(&o);
        let doc: serde_json::Value =
            serde_json::from_slice(&json(&["--json", "--code"], &o)).unwrap();
        let mut insns = Vec::new();
        json_sources(&doc["root"], &printed, None, &mut insns);
        let n = compare_sources(&format!("{label} --json --code"), &printed, insns);
        assert!(n > 20, "{label}: {n} instructions");
        // Without --code, no instructions and no lines.
        let plain = String::from_utf8(json(&["--json"], &o)).unwrap();
        assert!(
            !plain.contains("\"line\": {"),
            "{label}: a line without --code"
        );
    }
}

#[test]
fn instructions_show_their_source_line_as_llvm_objdump_does() {
    if !common::tool("llvm-objdump-22")
        || !common::tool("clang-22")
        || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let d = sources();
    let builds: [(&[&str], &str); 4] = [
        (&["-g", "-O1", "-c"], "prog.o"),
        (&["-g", "-O1", "-ffunction-sections", "-c"], "progfs.o"),
        (&["-g", "-O1", "-shared", "-fPIC"], "prog.so"),
        (&["-g", "-O1", "-gz=zstd", "-c"], "progz.o"),
    ];
    let mut n = 0;
    for (args, out) in builds {
        let o = compile(d.path(), "clang-22", args, "prog.c", out);
        n += check_sources(&format!("clang-22 {}", args.join(" ")), &o);
    }
    eprintln!("{n} instructions' source lines equal to llvm-objdump-22 -d -l");
}

/// A DWARF 4 line program header (address size 8) for `program`, with
/// `opcode_base` and the operand counts `lengths` of opcodes 1 to
/// `opcode_base - 1`; one directory `d`, one file `a.c`. `extra` is added
/// to the unit length.
fn unit4(opcode_base: u8, lengths: &[u8], line_range: u8, program: &[u8], extra: u32) -> Vec<u8> {
    let mut tables = b"d\0\0a.c\0\x01\0\0\0".to_vec();
    let mut after = vec![1u8, 1, 1, (-5i8) as u8, line_range, opcode_base];
    after.extend_from_slice(lengths);
    after.append(&mut tables);
    let mut v = Vec::new();
    let header_length = after.len() as u32;
    let unit_length = 2 + 4 + header_length + program.len() as u32 + extra;
    common::build::put32(&mut v, unit_length);
    common::build::put16(&mut v, 4);
    common::build::put32(&mut v, header_length);
    v.extend_from_slice(&after);
    v.extend_from_slice(program);
    v
}

/// An object file whose only DWARF is `line` as `.debug_line`.
fn with_line(line: &[u8]) -> Vec<u8> {
    use common::build::{elf64, Sec, EM_X86_64, SHT_PROGBITS};
    elf64(
        EM_X86_64,
        &[Sec::new(b".debug_line", SHT_PROGBITS, line)],
        &[],
    )
}

/// The twelve standard opcodes' operand counts.
const LENGTHS: [u8; 12] = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1];

#[test]
fn unknown_opcodes_and_overflowing_advances_read_as_llvm_dwarfdump_reads_them() {
    if !common::tool("llvm-dwarfdump-22") {
        return;
    }
    let mut lengths = LENGTHS.to_vec();
    lengths.push(2); // opcode 13, unknown: two ULEBs
    let mut p = vec![0u8, 9, 2];
    p.extend_from_slice(&0x1000u64.to_le_bytes()); // DW_LNE_set_address
    p.extend_from_slice(&[13, 0x81, 0x01, 0x05]); // unknown standard, skipped
    p.push(1); // DW_LNS_copy
    p.extend_from_slice(&[0, 3, 0x85, 0xaa, 0xbb]); // unknown extended, skipped
    p.extend_from_slice(&[3, 0xc0, 0x84, 0x3d]); // advance_line +1000000
    p.push(1);
    p.extend_from_slice(&[
        2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ]); // advance_pc by 2^64-1
    p.push(1);
    p.extend_from_slice(&[3, 0x80, 0x80, 0x80, 0x80, 0x70]); // advance_line by -2^32
    p.push(0x2f); // special
    p.extend_from_slice(&[8, 5, 7, 6, 7, 10, 11, 12, 3]); // const_add_pc, set_column 7, …, set_isa 3
    p.extend_from_slice(&[9, 0x34, 0x12]); // fixed_advance_pc 0x1234
    p.extend_from_slice(&[0, 2, 4, 9]); // set_discriminator 9
    p.push(1);
    p.extend_from_slice(&[0, 1, 1]); // end_sequence
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), with_line(&unit4(14, &lengths, 14, &p, 0))).unwrap();
    let rows = compare("unknown opcodes, overflows", file.path(), false);
    assert_eq!(rows, 6);
}

#[test]
fn lying_lengths_are_diagnosed_at_their_bytes() {
    let program = [0u8, 9, 2, 0, 0, 0x10, 0, 0, 0, 0, 0, 1, 0, 1, 1];
    // (what, the section, a word every diagnostic must hold)
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a unit longer than the section",
            unit4(13, &LENGTHS, 14, &program, 1000),
            "past the section's end",
        ),
        (
            "an extended opcode longer than its unit",
            unit4(13, &LENGTHS, 14, &[0, 0x7f, 1], 0),
            "extended opcode",
        ),
        (
            "a standard opcode with other operands declared",
            {
                let mut l = LENGTHS;
                l[1] = 3; // advance_pc with three
                unit4(13, &l, 14, &[2, 1, 1, 1, 1], 0)
            },
            "declares",
        ),
        (
            "a line_range of 0",
            unit4(13, &LENGTHS, 0, &[0x20, 1], 0),
            "line_range",
        ),
        (
            "an operand cut by the unit's end",
            unit4(13, &LENGTHS, 14, &[2, 0x80], 0),
            "past the unit's end",
        ),
        (
            "a header longer than its unit",
            {
                let mut u = unit4(13, &LENGTHS, 14, &[1], 0);
                u[6] = 0xf0;
                u
            },
            "header_length",
        ),
    ];
    for (what, line, word) in cases {
        let mut t = common::tree::expanded(with_line(&line));
        let (sec, _) = debug_line(&mut t);
        let _ = ours(&mut t);
        let d = common::tree::warnings_and_errors(&t);
        assert!(
            d.iter().any(|m| m.contains(word)),
            "{what}: {d:?} names no {word:?}"
        );
        // The diagnostics are inside the section.
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

/// The rows `readelf --debug-dump=decodedline` prints for `path`: address,
/// line (`-` ends a sequence) and whether `x` marks a statement (readelf
/// marks none on a sequence's end).
fn readelf_rows(path: &Path) -> Vec<(u64, String, bool)> {
    let out = Command::new("readelf")
        .arg("--debug-dump=decodedline")
        .arg(path)
        .output()
        .expect("readelf runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut rows = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let Some(i) = w.iter().position(|x| x.starts_with("0x")) else {
            continue;
        };
        if i == 0 {
            continue;
        }
        rows.push((hex(w[i]), w[i - 1].to_string(), w[i + 1..].contains(&"x")));
    }
    rows
}

/// The ELFs inside `sample` (a file in `assets/`) that have a
/// `.debug_line`, each written to a file of its own in `dir`.
fn elfs_in(sample: &str, dir: &Path) -> Vec<PathBuf> {
    elfs_with(sample, dir, b".debug_line")
}

/// The ELFs inside `sample` (a file in `assets/`) whose bytes hold `name`
/// (a section's), each written to a file of its own in `dir`.
pub(crate) fn elfs_with(sample: &str, dir: &Path, name: &[u8]) -> Vec<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(sample);
    elfs_of(std::fs::read(&path).expect("the sample"), dir, name)
}

/// The ELFs nested in `bytes`, in the file or in bytes inflated from it,
/// whose bytes hold `name`, each written to a file in `dir`.
pub(crate) fn elfs_of(bytes: Vec<u8>, dir: &Path, name: &[u8]) -> Vec<PathBuf> {
    let t = common::tree::expanded(bytes);
    let mut out = Vec::new();
    for id in (0..t.len()).map(NodeId::at) {
        if t.node_format(id).is_none_or(|f| f.name() != "elf") {
            continue;
        }
        let n = t.node(id).unwrap();
        let slice = t.node_bytes(id);
        if slice.len() as u64 != n.size || !slice.windows(name.len()).any(|w| w == name) {
            continue;
        }
        let p = dir.join(format!("{}-{:x}.elf", n.space, n.offset));
        std::fs::write(&p, slice).unwrap();
        out.push(p);
    }
    out
}

/// The ROCm library's AMDGPU code objects (DWARF 5, clang): everything
/// [`compare`] checks against llvm-dwarfdump-22.
#[test]
fn a_real_amdgpu_line_table_agrees_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") {
        return;
    }
    let dir = common::scratch();
    let elfs = elfs_in(
        "assets/hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb",
        dir.path(),
    );
    assert!(!elfs.is_empty(), "code objects with a line table");
    let mut rows = 0;
    for e in &elfs {
        rows += compare(&e.display().to_string(), e, false);
    }
    eprintln!(
        "{} code objects, {rows} rows equal to llvm-dwarfdump-22",
        elfs.len()
    );
}

/// The XMOS debug build's tile ELFs (xCORE, DWARF 3, which llvm-dwarfdump
/// does not read): every row's address, line and statement flag as readelf
/// decodes them.
#[test]
fn a_real_xcore_line_table_agrees_with_readelf() {
    if !common::tool("readelf") {
        return;
    }
    let dir = common::scratch();
    let mut compared = 0;
    for path in elfs_in(
        "assets/xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe",
        dir.path(),
    ) {
        let want = readelf_rows(&path);
        let mut one = open(&path, false);
        let (units, _) = ours(&mut one);
        let have: Vec<(u64, String, bool)> = units
            .iter()
            .flat_map(|u| u.ops.iter().filter_map(|o| o.row.clone()))
            .map(|r| {
                let end = r.flags.iter().any(|f| f == "end_sequence");
                let line = if end {
                    "-".to_string()
                } else {
                    r.line.to_string()
                };
                (r.addr, line, !end && r.flags.iter().any(|f| f == "is_stmt"))
            })
            .collect();
        assert_eq!(have, want, "{}", path.display());
        compared += have.len();
    }
    assert!(compared > 0, "no tile with a line table");
    eprintln!("{compared} rows equal to readelf --debug-dump=decodedline");
}

/// `.debug_line` is read lazily: building the tree (the first frame)
/// builds nothing under it, listing its units reads their headers alone,
/// and a unit's opcodes and rows are built when that unit is opened, the
/// other units staying unbuilt.
#[test]
fn a_units_rows_are_built_when_it_is_opened() {
    if !common::tool("gcc") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for (k, f) in ["a", "b", "c"].iter().enumerate() {
        let body = format!("int {f}(int x) {{\n  int y = x * {k};\n  return y + 1;\n}}\n");
        std::fs::write(p.join(format!("{f}.c")), body).unwrap();
    }
    let (_, lib) = super::dwarf_cfi::compile(p, "gcc -g -O1 -shared -fPIC a.c b.c c.c three.so");
    let mut t = fwview::formats::build_from_bytes(std::fs::read(&lib).unwrap());
    let root = t.root();
    let secs = common::tree::at(&mut t, root, "sections");
    let line = t
        .children(secs)
        .into_iter()
        .find(|&k| t.name(k).ends_with("] .debug_line"))
        .expect("a .debug_line");
    assert!(!t.is_built(line), "the first frame reads no line program");
    let units = t.children(line);
    assert_eq!(units.len(), 3, "three units");
    assert!(units.iter().all(|&u| !t.is_built(u)), "no unit opened yet");
    let parts = t.children(units[1]);
    let names: Vec<String> = parts.iter().map(|&k| t.name(k).to_string()).collect();
    assert_eq!(names, ["header", "program"], "the opened unit");
    let ops = t.children(parts[1]);
    assert!(ops.len() > 3, "its opcodes, {} of them", ops.len());
    assert!(t.is_built(units[1]));
    assert!(
        !t.is_built(units[0]) && !t.is_built(units[2]),
        "the others stay unbuilt"
    );
}
