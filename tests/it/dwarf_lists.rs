//! Location and range lists against `llvm-dwarfdump-22 -v
//! --debug-loclists/--debug-rnglists/--debug-loc/--debug-ranges`: every
//! list at its offset, every entry's kind and operands as they are in the
//! file (relocated in an object file), and a location's operations, for
//! files gcc, g++ and clang-22 write at -O2 (DWARF 4 and 5, objects and
//! shared libraries, x86-64, AArch64 and RISC-V).

use crate::common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use super::dwarf_cfi::{compile, compressed, hex, section, SOURCE};
use common::tree::{kids, value};
use fwview::formats::build_tree;
use fwview::model::{NodeId, Source, Tree};

/// One entry: where its list (or, in `.debug_rnglists`, it) is, its kind,
/// its operands and its operations.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    at: u64,
    kind: String,
    raw: Vec<u64>,
    ops: Vec<String>,
}

/// The outermost operations of an expression as text: `DW_OP_…` words
/// outside parentheses.
fn ops(text: &str) -> Vec<String> {
    let mut depth = 0;
    let mut flat = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => flat.push(c),
            _ => {}
        }
    }
    flat.split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == ':')
        .filter(|w| w.starts_with("DW_OP_"))
        .map(str::to_string)
        .collect()
}

/// The numbers in `(a, b)`.
fn numbers(s: &str) -> Vec<u64> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(hex)
        .collect()
}

fn theirs(path: &Path, option: &str) -> Vec<Entry> {
    let out = Command::new("llvm-dwarfdump-22")
        .args(["-v", option])
        .arg(path)
        .output()
        .expect("llvm-dwarfdump runs");
    assert!(out.status.success(), "llvm-dwarfdump {}", path.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut out: Vec<Entry> = Vec::new();
    let mut list = 0u64;
    let mut in_offsets = false;
    for line in text.lines() {
        let t = line.trim();
        if t == "offsets: [" {
            in_offsets = true;
            continue;
        }
        if in_offsets {
            in_offsets = t != "]";
            continue;
        }
        if t.contains("list header:") || t.is_empty() || t.ends_with(" contents:") {
            continue;
        }
        match option {
            "--debug-ranges" => {
                let w: Vec<&str> = t.split_whitespace().collect();
                if w.len() == 3 && w[0].len() == 8 {
                    out.push(Entry {
                        at: hex(w[0]),
                        kind: "entry".into(),
                        raw: vec![hex(w[1]), hex(w[2])],
                        ops: vec![],
                    });
                } else if t.ends_with("<End of list>") {
                    out.push(Entry {
                        at: hex(w[0]),
                        kind: "end_of_list".into(),
                        raw: vec![],
                        ops: vec![],
                    });
                }
            }
            "--debug-rnglists" => {
                // `0x00000010: [DW_RLE_startx_length]:  0x1, 0x69 => […)`
                let Some((off, rest)) = t.split_once(": [") else {
                    continue;
                };
                let (kind, rest) = rest.split_once(']').unwrap();
                let nums = rest.trim_start_matches(':').split("=>").next().unwrap();
                out.push(Entry {
                    at: hex(off),
                    kind: kind.trim().to_string(),
                    raw: numbers(nums),
                    ops: vec![],
                });
            }
            _ => {
                if t.starts_with("0x") && t.ends_with(':') {
                    list = hex(t.trim_end_matches(':'));
                    continue;
                }
                if let Some(r) = t.strip_prefix("=>") {
                    if let (Some(e), Some((_, x))) = (out.last_mut(), r.split_once(": ")) {
                        e.ops = ops(x);
                    }
                    continue;
                }
                // `DW_LLE_offset_pair     (0x0, 0x12): DW_OP_reg5 RDI` or
                // `(0x0, 0x12)` in .debug_loc.
                let (kind, rest) = match t.split_once('(') {
                    Some((k, r)) if k.trim().starts_with("DW_LLE_") => (k.trim().to_string(), r),
                    Some(("", r)) => ("entry".to_string(), r),
                    _ => continue,
                };
                let (nums, after) = rest.split_once(')').unwrap();
                let raw = numbers(nums);
                let kind = match kind.as_str() {
                    "entry" if raw.first() == Some(&u64::MAX) => "base_address".to_string(),
                    _ => kind,
                };
                out.push(Entry {
                    at: list,
                    kind,
                    raw,
                    ops: after.split_once(": ").map(|x| ops(x.1)).unwrap_or_default(),
                });
            }
        }
    }
    out
}

/// A raw operand as fwview shows it: `0x12`, or an index `1 (0x0)`.
fn raw(v: &str) -> u64 {
    let w = v.split(' ').next().unwrap();
    if w.starts_with("0x") {
        hex(w)
    } else {
        w.parse().unwrap()
    }
}

/// What a list section holds, in order: its contributions' contents
/// (`.debug_loclists`, `.debug_rnglists`), or its own.
fn contents(t: &mut Tree, sec: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    for k in kids(t, sec) {
        if t.name(k).starts_with("unit [") {
            out.extend(kids(t, k));
        } else {
            out.push(k);
        }
    }
    out
}

fn ours(t: &mut Tree, name: &str) -> Vec<Entry> {
    let Some(sec) = section(t, name) else {
        return Vec::new();
    };
    let base = t.node(sec).unwrap().offset;
    let lists: Vec<NodeId> = contents(t, sec)
        .into_iter()
        .filter(|&k| t.name(k).starts_with("list ["))
        .collect();
    let mut out = Vec::new();
    for l in lists {
        let at = t.node(l).unwrap().offset - base;
        for e in kids(t, l) {
            let kind = t.name(e).to_string();
            let mut r = Vec::new();
            let mut o = Vec::new();
            for x in kids(t, e) {
                let n = t.name(x).to_string();
                let v = value(t, x);
                match n.as_str() {
                    "kind" | "expression_length" => {}
                    "expression" => o = ops(&v),
                    _ => r.push(raw(&v)),
                }
            }
            if name == ".debug_loc" && kind == "end_of_list" {
                continue;
            }
            if name == ".debug_ranges" && kind == "end_of_list" {
                r.clear();
            }
            out.push(Entry {
                at: if name == ".debug_rnglists" {
                    t.node(e).unwrap().offset - base
                } else {
                    at
                },
                kind: kind.trim_start_matches("DW_RLE_").to_string(),
                raw: r,
                ops: o,
            });
        }
    }
    out
}

fn compare(label: &str, path: &Path) -> usize {
    let src = Arc::new(Source::open(path).expect("the file opens"));
    let mut t = build_tree(src, "input");
    let mut n = 0;
    for (name, option) in [
        (".debug_loclists", "--debug-loclists"),
        (".debug_rnglists", "--debug-rnglists"),
        (".debug_loc", "--debug-loc"),
        (".debug_ranges", "--debug-ranges"),
    ] {
        let mut want = theirs(path, option);
        for w in &mut want {
            w.kind = w.kind.trim_start_matches("DW_RLE_").to_string();
        }
        let have = ours(&mut t, name);
        assert_eq!(have.len(), want.len(), "{label} {name}: entries");
        for (h, w) in have.iter().zip(&want) {
            assert_eq!(h, w, "{label} {name}");
        }
        n += have.len();
    }
    assert!(
        common::tree::errors(&t).is_empty(),
        "{label}: {:?}",
        common::tree::errors(&t)
    );
    let links = attributes_link_to_lists(label, &mut t);
    // Links carry their byte space: an attribute links into a compressed
    // list section's inflated bytes as into the file's.
    assert!(n == 0 || links > 0, "{label}: no attribute links to a list");
    eprintln!("{label}: {n} list entries, {links} attributes linked to their lists");
    n
}

/// Every `.debug_info` attribute that links into a list section lands on
/// the start of a list there; how many do.
fn attributes_link_to_lists(label: &str, t: &mut Tree) -> usize {
    t.expand_all();
    let mut starts = std::collections::BTreeSet::new();
    let mut sections = Vec::new();
    for name in [
        ".debug_loclists",
        ".debug_rnglists",
        ".debug_loc",
        ".debug_ranges",
    ] {
        if let Some(s) = section(t, name) {
            let n = t.node(s).unwrap();
            sections.push((n.space, n.offset, n.offset + n.size));
        }
    }
    for id in (0..t.len()).map(fwview::model::NodeId::at) {
        let Some(n) = t.node(id) else { continue };
        if n.name.starts_with("list [") {
            starts.insert((n.space, n.offset));
        }
    }
    let mut linked = 0;
    for id in (0..t.len()).map(fwview::model::NodeId::at) {
        let Some(n) = t.node(id) else { continue };
        if !n.name.starts_with("DW_AT_") {
            continue;
        }
        let name = n.name.to_string();
        let Some(l) = t.link(id) else { continue };
        if sections
            .iter()
            .any(|&(sp, a, z)| sp == l.space && (a..z).contains(&l.offset))
        {
            assert!(
                starts.contains(&(l.space, l.offset)),
                "{label}: {name} links to 0x{:x}, no list starts there",
                l.offset
            );
            linked += 1;
        }
    }
    linked
}

#[test]
fn location_and_range_lists_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") || !common::tool("g++") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.c"), SOURCE).unwrap();
    // gcc's location views (pairs of numbers between the lists) are read
    // as lists by a reader of the section alone: they are left out.
    let mut plan = vec![
        "gcc -g -O2 -gno-variable-location-views -c a.c gcc5.o",
        "gcc -gdwarf-4 -O2 -gno-variable-location-views -c a.c gcc4.o",
        "gcc -g -O2 -gno-variable-location-views -shared -fPIC a.c gcc5.so",
        "gcc -gdwarf-4 -O2 -gno-variable-location-views -shared -fPIC a.c gcc4.so",
        "g++ -g -O2 -gno-variable-location-views -x c++ -c a.c gxx5.o",
    ];
    if common::tool("clang-22") {
        plan.extend([
            "clang-22 -g -O2 -c a.c clang5.o",
            "clang-22 -g -O2 -ffunction-sections -c a.c clang5fs.o",
            "clang-22 -gdwarf-4 -O2 -ffunction-sections -c a.c clang4fs.o",
            "clang-22 -g -O2 -shared -fPIC a.c clang5.so",
            "clang-22 -gdwarf-4 -O2 -shared -fPIC a.c clang4.so",
            "clang-22 -g -O2 -c --target=aarch64-linux-gnu a.c a64.o",
            "clang-22 -g -O2 -c --target=riscv64-linux-gnu a.c rv64.o",
        ]);
    }
    // Compressed list sections (SHF_COMPRESSED, zlib and zstd) are read in
    // their inflated bytes; a source of many functions makes sure the
    // assembler finds compressing worth it.
    let many: String = (0..200)
        .map(|i| {
            format!(
                "int m{i}(int x, int y) {{ int r = g(x); for (int k = 0; k < y; k++) r += g(r * {i} + k); return r > y ? r : x; }}\n"
            )
        })
        .collect();
    std::fs::write(p.join("many.c"), format!("int g(int);\n{many}")).unwrap();
    plan.push("gcc -g -O2 -gno-variable-location-views -gz=zlib -c many.c gccz.o");
    if common::tool("clang-22") {
        plan.extend([
            "clang-22 -g -O2 -gz=zlib -c many.c clangz.o",
            "clang-22 -g -O2 -gz=zstd -c many.c clangzstd.o",
        ]);
    }
    let mut n = 0;
    for cmd in &plan {
        let (label, path) = compile(p, cmd);
        if label.contains("-gz") {
            assert!(
                compressed(&path, ".debug_loclists") || compressed(&path, ".debug_rnglists"),
                "{label}: no list section is compressed"
            );
        }
        n += compare(&label, &path);
    }
    assert!(n > 100, "{n} entries");
    eprintln!(
        "{} files: {n} list entries equal to llvm-dwarfdump-22",
        plan.len()
    );
}

#[test]
fn lying_lists_are_diagnosed_at_their_bytes() {
    use common::build::{elf64, put32, Sec, EM_X86_64, SHT_PROGBITS};
    // A DWARF 5 contribution: header, `count` offsets, then `body`.
    let unit = |count: u32, body: &[u8], extra: u32| {
        let mut v = Vec::new();
        put32(&mut v, 8 + 4 * count + body.len() as u32 + extra);
        v.extend_from_slice(&[5, 0, 8, 0]);
        put32(&mut v, count);
        for _ in 0..count {
            put32(&mut v, 4);
        }
        v.extend_from_slice(body);
        v
    };
    let cases: Vec<(&str, &[u8], Vec<u8>, &str)> = vec![
        (
            "a unit longer than the section",
            b".debug_loclists",
            unit(0, &[4, 0, 2, 1, 0x50, 0], 100),
            "past the section's end",
        ),
        (
            "an entry kind DWARF does not define",
            b".debug_rnglists",
            unit(0, &[0x2a, 0], 0),
            "not one DWARF defines",
        ),
        (
            "an expression longer than its unit",
            b".debug_loclists",
            unit(0, &[4, 0, 2, 0x7f, 0x50], 0),
            "runs past",
        ),
        (
            "more offsets than the unit holds",
            b".debug_rnglists",
            // 65535 offsets in a unit of 9 bytes.
            vec![9, 0, 0, 0, 5, 0, 8, 0, 0xff, 0xff, 0, 0, 0],
            "offset_entry_count",
        ),
        (
            "a DWARF 4 entry cut by the section's end",
            b".debug_loc",
            vec![1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0x50],
            "runs past",
        ),
    ];
    for (what, name, bytes, word) in cases {
        let elf = elf64(EM_X86_64, &[Sec::new(name, SHT_PROGBITS, &bytes)], &[]);
        let mut t = common::tree::expanded(elf);
        let name = std::str::from_utf8(name).unwrap();
        let sec = section(&mut t, name).expect("the section");
        // Said at any severity: a list that does not read is information
        // (what lies between lists need not read as one).
        let d: Vec<String> = t.diagnostics().iter().map(|x| x.message.clone()).collect();
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

/// `readelf --debug-dump=loc`'s view pairs: (offset in the section, begin,
/// end), from its `OFFSET vBEGIN vEND location view pair` lines.
fn readelf_views(path: &Path) -> Vec<(u64, u64, u64)> {
    let out = Command::new("readelf")
        .arg("--debug-dump=loc")
        .arg(path)
        .output()
        .expect("readelf runs");
    assert!(out.status.success(), "readelf {}", path.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.ends_with(" location view pair"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let v = |x: &str| hex(x.trim_start_matches('v'));
            (hex(w[0]), v(w[1]), v(w[2]))
        })
        .collect()
}

/// fwview's view pairs under the location list sections, as
/// [`readelf_views`]; each views node links to the start of a list.
fn our_views(t: &mut Tree) -> Vec<(u64, u64, u64)> {
    let mut out = Vec::new();
    for name in [".debug_loclists", ".debug_loc"] {
        let Some(sec) = section(t, name) else {
            continue;
        };
        let (space, base) = {
            let n = t.node(sec).unwrap();
            (n.space, n.offset)
        };
        let blocks = contents(t, sec);
        let lists: std::collections::BTreeSet<String> = blocks
            .iter()
            .map(|&k| t.name(k).to_string())
            .filter(|n| n.starts_with("list ["))
            .collect();
        for v in blocks {
            if !t.name(v).starts_with("views [") {
                continue;
            }
            let l = t.link(v).expect("views link to their list");
            assert_eq!(l.space, space);
            let at = l.offset - base;
            let list = format!("list [0x{at:x}]");
            assert!(lists.contains(&list), "{}: no {list}", t.name(v));
            for p in kids(t, v) {
                let off = t.node(p).unwrap().offset - base;
                let begin = common::tree::at(t, p, "begin");
                let end = common::tree::at(t, p, "end");
                let n = |id| value(t, id).parse::<u64>().unwrap();
                out.push((off, n(begin), n(end)));
            }
        }
    }
    out
}

/// gcc's default location views lie between its location lists, named by
/// `DW_AT_GNU_locviews`: each block is its own node, every view pair at the
/// offset and with the numbers `readelf --debug-dump=loc` gives, linked to
/// its list, for gcc's -O2 objects and shared libraries, DWARF 4 and 5,
/// and compressed; and no diagnostic at all (the lists after them read).
#[test]
fn gcc_location_views_agree_with_readelf() {
    if !common::tool("gcc") || !common::tool("readelf") {
        return;
    }
    let dir = common::scratch();
    std::fs::write(
        dir.path().join("lv.c"),
        "int f(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) { int t = p[i] * 3; s += t; if (t > 10) s -= i; } return s; }\n\
         int g(int a, int b) { int c = a * b; int d = f(&c, a); return d + c; }\n",
    )
    .unwrap();
    let mut pairs = 0;
    for v in ["-gdwarf-4", "-gdwarf-5"] {
        for (kind, args) in [("o", "-c"), ("so", "-shared -fPIC"), ("z.o", "-c -gz=zlib")] {
            let cmd = format!("gcc {v} -O2 {args} lv.c lv{v}.{kind}");
            let (label, obj) = compile(dir.path(), &cmd);
            let mut t = common::tree::expanded(std::fs::read(&obj).unwrap());
            let d: Vec<_> = t.diagnostics().iter().map(|d| &d.message).collect();
            assert!(d.is_empty(), "{label}: {d:?}");
            let want = readelf_views(&obj);
            assert!(!want.is_empty(), "{label}: readelf lists no view pair");
            assert_eq!(our_views(&mut t), want, "{label}");
            pairs += want.len();
        }
    }
    eprintln!("{pairs} view pairs agree with readelf");
}
