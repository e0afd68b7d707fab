//! ELF sections that are tables of their own: XMOS notes, symbol versions,
//! symbol hash tables, section index tables (objects with more than 65,280
//! sections) and merged-string sections, each against binutils `readelf`
//! or LLVM's reader, on the bundled XE samples, on objects built here and
//! on a system library.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::json::{items, json_of_bytes, lead, name, off, size, unquote, val};
use serde_json::Value;

// ---------------------------------------------------------------- helpers

/// Runs `tool args path`, its standard output as text.
fn run(tool: &str, args: &[&str], path: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The contents node of the section named `sec` (under `sections`).
fn section<'a>(j: &'a Value, sec: &str) -> &'a Value {
    let g = common::json::path(&j["root"], "sections");
    g["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| name(k).ends_with(&format!("] {sec}")))
        .unwrap_or_else(|| panic!("no section {sec}"))
}

/// Every node at or below `n`, depth first.
fn all(n: &Value) -> Vec<&Value> {
    let mut v = vec![n];
    if let Some(k) = n["children"].as_array() {
        for c in k {
            v.extend(all(c));
        }
    }
    v
}

/// The children of `n`, gap leaves too, checked to lie back to back from
/// `n`'s start to its end.
fn tiled(n: &Value) -> &Vec<Value> {
    let k = n["children"].as_array().unwrap();
    let mut at = off(n);
    for c in k {
        assert_eq!(
            off(c),
            at,
            "{} under {}: a hole or an overlap",
            name(c),
            name(n)
        );
        at += size(c);
    }
    assert_eq!(at, off(n) + size(n), "{}: children stop short", name(n));
    k
}

/// Builds `src` (C) with gcc and `args` into `dir/out`.
fn gcc(dir: &Path, src: &str, args: &[&str], out: &str) -> Option<PathBuf> {
    let c = dir.join(format!("{out}.c"));
    std::fs::write(&c, src).unwrap();
    let o = dir.join(out);
    let st = Command::new("gcc")
        .args(args)
        .arg("-o")
        .arg(&o)
        .arg(&c)
        .output()
        .ok()?;
    assert!(
        st.status.success(),
        "gcc {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    Some(o)
}

const LIB_SRC: &str = r#"
#include <string.h>
static const char *names[] = {"alpha", "beta", "gamma"};
int f1(void) { return 1; }
int f2(void) { return 2; }
int f3(void) { return 3; }
int g(const char *s) { return (int)strlen(s) + (int)strlen(names[s[0] & 1]); }
const char *greet(int i) { return i ? "hello, world" : "goodbye"; }
"#;

const VERSION_SCRIPT: &str = "VERS_1.0 { global: f1; local: *; };\n\
VERS_2.0 { global: f2; } VERS_1.0;\n\
VERS_3.0 { global: f3; g; } VERS_2.0;\n";

/// A shared library with three versions (two of them with a parent),
/// both hash tables, and a needed GLIBC version.
fn versioned_lib(dir: &Path) -> Option<PathBuf> {
    let map = dir.join("v.map");
    std::fs::write(&map, VERSION_SCRIPT).unwrap();
    let script = format!("-Wl,--version-script={}", map.display());
    gcc(
        dir,
        LIB_SRC,
        &["-shared", "-fPIC", "-O1", &script, "-Wl,--hash-style=both"],
        "libv.so",
    )
}

/// The system libraries the comparisons also read, where they exist.
fn system_libs() -> Vec<PathBuf> {
    [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/lib/aarch64-linux-gnu/libc.so.6",
        "/lib64/libc.so.6",
    ]
    .iter()
    .map(PathBuf::from)
    .filter(|p| p.is_file())
    .collect()
}

// ------------------------------------------------------------ XMOS notes

/// What `readelf -n -W` says of the XMOS notes: (type, description bytes).
fn readelf_xmos_notes(path: &Path) -> Vec<(u32, Vec<u8>)> {
    let mut v = Vec::new();
    for line in run("readelf", &["-n", "-W"], path).lines() {
        let t = line.trim_start();
        if !t.starts_with("XMOS ") {
            continue;
        }
        let typ = if line.contains("NT_VERSION") {
            1
        } else if line.contains("NT_ARCH") {
            2
        } else {
            let (_, rest) = line.split_once("Unknown note type: (").unwrap();
            lead(rest.trim_start_matches('(')) as u32
        };
        let (_, hex) = line.split_once("description data:").unwrap();
        let bytes = hex
            .split_whitespace()
            .map(|h| u8::from_str_radix(h, 16).unwrap())
            .collect();
        v.push((typ, bytes));
    }
    v
}

/// The XMOS notes' decoded leaves below `n`: (type, leaf).
fn xmos_leaves(n: &Value) -> Vec<(u32, &Value)> {
    let mut v = Vec::new();
    for x in all(n) {
        let nm = name(x);
        if nm.contains(" XMOS ") && nm.starts_with('[') {
            let t = lead(val(common::json::child(x, "n_type"))) as u32;
            for leaf in ["tools version", "architecture", "revision"] {
                if let Some(l) = common::json::find(x, leaf) {
                    v.push((t, l));
                }
            }
        }
    }
    v
}

#[test]
fn xmos_notes_are_text_at_their_bytes() {
    for p in common::samples_in("xmos", "xe") {
        let bytes = std::fs::read(&p).unwrap();
        let j = json_of_bytes(bytes.clone());
        let mut sections = 0;
        for s in all(&j["root"]) {
            // The contents of a .xmosnote section (not its header).
            if !name(s).ends_with("] .xmosnote") || val(s) != "SHT_NOTE" {
                continue;
            }
            sections += 1;
            for note in tiled(s) {
                if name(note) == "padding" {
                    continue;
                }
                tiled(note);
            }
        }
        assert!(sections >= 3, "{}: .xmosnote sections", p.display());
        let leaves = xmos_leaves(&j["root"]);
        assert_eq!(
            leaves.len(),
            sections,
            "{}: one decoded leaf a note",
            p.display()
        );
        for (t, l) in &leaves {
            let shown = unquote(val(l));
            let (o, n) = (off(l) as usize, size(l) as usize);
            let at = &bytes[o..o + n];
            let text = at.split(|&c| c == 0).next().unwrap();
            assert_eq!(
                shown.as_bytes(),
                text,
                "{}: type {t} at 0x{o:x}",
                p.display()
            );
            // A plain byte search finds the string where fwview says it is.
            let found: Vec<usize> = bytes
                .windows(text.len())
                .enumerate()
                .filter(|(_, w)| *w == text)
                .map(|(i, _)| i)
                .collect();
            assert!(found.contains(&o), "{}: {shown:?} at 0x{o:x}", p.display());
            match t {
                2 => assert!(shown.starts_with("XS"), "{shown}"),
                3 => assert!(shown.starts_with("REV"), "{shown}"),
                _ => assert!(shown.contains("(build "), "{shown}"),
            }
        }
    }
    if !common::tool("readelf") {
        return;
    }
    let dir = common::scratch();
    let tiles = common::xe_tile_elfs();
    assert!(!tiles.is_empty());
    for (k, (label, d)) in tiles.into_iter().enumerate() {
        let path = dir.path().join(format!("tile{k}.elf"));
        std::fs::write(&path, &d).unwrap();
        let want = readelf_xmos_notes(&path);
        assert_eq!(want.len(), 3, "{label}: readelf's XMOS notes");
        let j = json_of_bytes(d.clone());
        let got: Vec<(u32, Vec<u8>)> = xmos_leaves(&j["root"])
            .into_iter()
            .map(|(t, l)| (t, d[off(l) as usize..(off(l) + size(l)) as usize].to_vec()))
            .collect();
        assert_eq!(got, want, "{label}");
    }
}

// ------------------------------------------------------- symbol versions

/// `readelf -V -W`: per section, its lines after the header, as text.
fn readelf_versions(path: &Path) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cur = None;
    for line in run("readelf", &["-V", "-W"], path).lines() {
        if let Some(rest) = line
            .strip_prefix("Version symbols section '")
            .or_else(|| line.strip_prefix("Version definition section '"))
            .or_else(|| line.strip_prefix("Version needs section '"))
        {
            let name = rest.split('\'').next().unwrap().to_string();
            m.insert(name.clone(), Vec::new());
            cur = Some(name);
            continue;
        }
        if line.trim_start().starts_with("Addr:") || line.trim().is_empty() {
            continue;
        }
        if let Some(c) = &cur {
            m.get_mut(c).unwrap().push(line.to_string());
        }
    }
    m
}

/// A `readelf -V` offset: `000000` or `0x001c`.
fn hex(s: &str) -> u64 {
    let s = s.trim().trim_end_matches(':');
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// The entries of readelf's version symbol lines: (index, hidden, name).
fn versym_entries(lines: &[String]) -> Vec<(u64, bool, String)> {
    let mut v = Vec::new();
    for l in lines {
        let (_, mut rest) = l.split_once(':').unwrap();
        while let Some(open) = rest.find('(') {
            let head = rest[..open].trim();
            let close = rest[open..].find(')').unwrap() + open;
            let hidden = head.ends_with('h');
            // readelf shows the index in hex.
            let ndx = u64::from_str_radix(head.trim_end_matches('h').trim(), 16).unwrap();
            v.push((ndx, hidden, rest[open + 1..close].to_string()));
            rest = &rest[close + 1..];
        }
    }
    v
}

/// The value after `key: ` in a readelf line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let (_, r) = line
        .split_once(&format!("{key}: "))
        .unwrap_or_else(|| panic!("no {key} in {line:?}"));
    r.split("  ").next().unwrap().trim()
}

/// The value of the field `f` of record `n`.
fn fv<'a>(n: &'a Value, f: &str) -> &'a str {
    val(common::json::child(n, f))
}

/// `readelf --dyn-syms -W`: the names, without their version.
fn dynsym_names(path: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for line in run("readelf", &["--dyn-syms", "-W"], path).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 7 || !f[0].ends_with(':') || f[0] == "Num:" {
            continue;
        }
        let n = f.get(7).copied().unwrap_or("");
        v.push(n.split('@').next().unwrap().to_string());
    }
    v
}

fn compare_versions(label: &str, path: &Path) {
    let want = readelf_versions(path);
    assert!(!want.is_empty(), "{label}: readelf shows versions");
    let j = json_of_bytes(std::fs::read(path).unwrap());
    let names = dynsym_names(path);
    for (sec, lines) in &want {
        let s = section(&j, sec);
        let base = off(s);
        if val(s).starts_with("SHT_GNU_versym") {
            let got = items(s);
            let exp = versym_entries(lines);
            assert_eq!(got.len(), exp.len(), "{label} {sec}");
            for (i, (g, (ndx, hidden, vn))) in got.iter().zip(&exp).enumerate() {
                let v = val(g);
                assert_eq!(lead(v) & 0x7fff, *ndx, "{label} {sec} [{i}]: {v}");
                assert_eq!(lead(v) & 0x8000 != 0, *hidden, "{label} {sec} [{i}]: {v}");
                let shown = v.split_once(" (").unwrap().1.trim_end_matches(')');
                let shown = shown.trim_end_matches(", hidden");
                assert_eq!(shown, vn, "{label} {sec} [{i}]");
                let sym = name(g).split_once("] ").map_or("", |x| x.1);
                assert_eq!(sym, names[i], "{label} {sec} [{i}]: the symbol's name");
            }
            continue;
        }
        // Definitions and needs: each readelf line is one record at its
        // offset in the section.
        let recs: BTreeMap<u64, &Value> = tiled_records(s)
            .into_iter()
            .map(|r| (off(r) - base, r))
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        for l in lines {
            let (o, rest) = l.trim_start().split_once(' ').unwrap();
            let o = hex(o);
            let r = recs
                .get(&o)
                .unwrap_or_else(|| panic!("{label} {sec}: no record at 0x{o:x}: {l}"));
            seen.insert(o);
            let rn = name(r).split_once("] ").map_or("", |x| x.1);
            if rest.contains("Rev: ") {
                assert!(name(r).starts_with("verdef ["), "{label}: {l}");
                assert_eq!(
                    lead(fv(r, "vd_version")),
                    field(l, "Rev").parse::<u64>().unwrap()
                );
                assert_eq!(
                    lead(fv(r, "vd_ndx")),
                    field(l, "Index").parse::<u64>().unwrap()
                );
                assert_eq!(
                    lead(fv(r, "vd_cnt")),
                    field(l, "Cnt").parse::<u64>().unwrap()
                );
                assert!(fv(r, "vd_flags").ends_with(&format!("({})", field(l, "Flags"))));
                assert_eq!(rn, field(l, "Name"), "{label}: {l}");
                // The first Verdaux names the version.
                let aux = o + lead(fv(r, "vd_aux"));
                let a = recs.get(&aux).expect("the first Verdaux");
                assert_eq!(unquote(fv(a, "vda_name").split_once(' ').unwrap().1), rn);
                seen.insert(aux);
            } else if rest.trim_start().starts_with("Parent ") {
                assert!(name(r).starts_with("verdaux ["), "{label}: {l}");
                assert_eq!(rn, rest.rsplit(": ").next().unwrap().trim(), "{label}: {l}");
            } else if rest.contains("File: ") {
                assert!(name(r).starts_with("verneed ["), "{label}: {l}");
                assert_eq!(
                    lead(fv(r, "vn_version")),
                    field(l, "Version").parse::<u64>().unwrap()
                );
                assert_eq!(
                    lead(fv(r, "vn_cnt")),
                    field(l, "Cnt").parse::<u64>().unwrap()
                );
                assert_eq!(rn, field(l, "File"), "{label}: {l}");
            } else {
                assert!(name(r).starts_with("vernaux ["), "{label}: {l}");
                assert_eq!(rn, field(l, "Name"), "{label}: {l}");
                assert!(fv(r, "vna_flags").ends_with(&format!("({})", field(l, "Flags"))));
                assert_eq!(
                    lead(fv(r, "vna_other")),
                    field(l, "Version").parse::<u64>().unwrap()
                );
            }
        }
        let ours: std::collections::BTreeSet<u64> = recs.keys().copied().collect();
        assert_eq!(
            seen, ours,
            "{label} {sec}: every record is one readelf shows"
        );
    }
}

/// The records of a version section (its gap leaves left out).
fn tiled_records(s: &Value) -> Vec<&Value> {
    common::json::kids(s)
}

#[test]
fn symbol_versions_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    let lib = versioned_lib(dir.path()).expect("the versioned library builds");
    let j = json_of_bytes(std::fs::read(&lib).unwrap());
    // Parents are shown as the Verdaux after a version's own name.
    let d = section(&j, ".gnu.version_d");
    let kids: Vec<&str> = common::json::kids(d).into_iter().map(name).collect();
    assert!(
        kids.windows(3).any(|w| w
            == [
                "verdef [3] VERS_3.0",
                "verdaux [3.0] VERS_3.0",
                "verdaux [3.1] VERS_2.0"
            ]),
        "{kids:?}"
    );
    compare_versions("libv.so", &lib);
    // Two versions sharing one name record, as some vendors' libraries
    // have them: the first version's vd_aux pointed at the second's.
    let mut d = std::fs::read(&lib).unwrap();
    let vd = off(section(&j, ".gnu.version_d")) as usize;
    let second = vd + u32::from_le_bytes(d[vd + 16..vd + 20].try_into().unwrap()) as usize;
    let aux = second + u32::from_le_bytes(d[second + 12..second + 16].try_into().unwrap()) as usize;
    d[vd + 12..vd + 16].copy_from_slice(&((aux - vd) as u32).to_le_bytes());
    let shared = dir.path().join("shared.so");
    std::fs::write(&shared, &d).unwrap();
    compare_versions("shared names", &shared);
    let t = common::tree::expanded(d);
    assert_eq!(common::tree::errors(&t), Vec::<String>::new());
    let sys = system_libs();
    if sys.is_empty() {
        eprintln!("skipped: no system C library to compare");
    }
    for p in sys {
        compare_versions(&p.display().to_string(), &p);
    }
}

// ------------------------------------------------------------ hash tables

/// `readelf -I`: per table (`.hash` or `.gnu.hash`), the bucket count and
/// the list lengths that some bucket has (length → buckets).
fn readelf_histograms(path: &Path) -> BTreeMap<String, (u64, BTreeMap<u64, u64>)> {
    let mut m = BTreeMap::new();
    let mut cur: Option<String> = None;
    for line in run("readelf", &["-I"], path).lines() {
        if let Some(rest) = line.strip_prefix("Histogram for ") {
            let which = if rest.starts_with("`.gnu.hash'") {
                ".gnu.hash"
            } else {
                ".hash"
            };
            let (_, n) = rest.split_once("total of ").unwrap();
            m.insert(which.to_string(), (lead(n), BTreeMap::new()));
            cur = Some(which.to_string());
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 2 && f[0].chars().all(|c| c.is_ascii_digit()) {
            let (len, count): (u64, u64) =
                (f[0].parse::<u64>().unwrap(), f[1].parse::<u64>().unwrap());
            if count > 0 {
                let c = cur.as_ref().unwrap();
                m.get_mut(c).unwrap().1.insert(len, count);
            }
        }
    }
    m
}

/// fwview's histogram, from the buckets' value `N buckets, list lengths
/// L:C ...`.
fn our_histogram(buckets: &Value) -> (u64, BTreeMap<u64, u64>) {
    let v = val(buckets);
    let (_, h) = v.split_once("list lengths ").unwrap();
    let m = h
        .split_whitespace()
        .filter(|p| *p != "none")
        .map(|p| {
            let (l, c) = p.split_once(':').unwrap();
            (l.parse::<u64>().unwrap(), c.parse::<u64>().unwrap())
        })
        .collect();
    (lead(v), m)
}

/// `llvm-readobj --hash-table --gnu-hash-table`: `key: value` lines of
/// each table.
fn llvm_hash_tables(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut m: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut cur: Option<String> = None;
    let out = run(
        "llvm-readobj-22",
        &["--hash-table", "--gnu-hash-table"],
        path,
    );
    for line in out.lines() {
        let t = line.trim();
        if t == "HashTable {" || t == "GnuHashTable {" {
            let k = if t.starts_with("Gnu") {
                ".gnu.hash"
            } else {
                ".hash"
            };
            cur = Some(k.to_string());
            m.insert(k.to_string(), BTreeMap::new());
        } else if t == "}" {
            cur = None;
        } else if let (Some(c), Some((k, v))) = (&cur, t.split_once(": ")) {
            m.get_mut(c).unwrap().insert(k.to_string(), v.to_string());
        }
    }
    m
}

/// The numbers of a `[a, b, c]` list.
fn list(s: &str) -> Vec<u64> {
    s.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| lead(&x.trim().to_lowercase()))
        .collect()
}

fn compare_hashes(label: &str, path: &Path) {
    let want = readelf_histograms(path);
    let j = json_of_bytes(std::fs::read(path).unwrap());
    for (sec, (n, hist)) in &want {
        let s = section(&j, sec);
        let b = common::json::child(s, "buckets");
        assert_eq!(our_histogram(b), (*n, hist.clone()), "{label} {sec}");
        assert_eq!(items(b).len() as u64, *n, "{label} {sec}");
    }
    if !common::tool("llvm-readobj-22") {
        return;
    }
    for (sec, m) in llvm_hash_tables(path) {
        let s = section(&j, &sec);
        let nums = |f: &str| -> Vec<u64> {
            items(common::json::child(s, f))
                .iter()
                .map(|x| lead(val(x)))
                .collect()
        };
        assert_eq!(
            nums("buckets"),
            list(&m["Buckets"]),
            "{label} {sec} buckets"
        );
        if sec == ".hash" {
            assert_eq!(lead(fv(s, "nbucket")), lead(&m["Num Buckets"]), "{label}");
            assert_eq!(lead(fv(s, "nchain")), lead(&m["Num Chains"]), "{label}");
            assert_eq!(nums("chains"), list(&m["Chains"]), "{label} {sec} chains");
        } else {
            assert_eq!(lead(fv(s, "nbuckets")), lead(&m["Num Buckets"]), "{label}");
            assert_eq!(
                lead(fv(s, "symoffset")),
                lead(&m["First Hashed Symbol Index"])
            );
            assert_eq!(
                lead(fv(s, "bloom_size")),
                lead(&m["Num Mask Words"]),
                "{label}"
            );
            assert_eq!(
                lead(fv(s, "bloom_shift")),
                lead(&m["Shift Count"]),
                "{label}"
            );
            assert_eq!(nums("bloom"), list(&m["Bloom Filter"]), "{label} bloom");
            assert_eq!(
                nums("chains"),
                list(&m["Values"]),
                "{label} {sec} chain values"
            );
        }
    }
}

#[test]
fn hash_tables_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    let lib = versioned_lib(dir.path()).expect("the library builds");
    let h = readelf_histograms(&lib);
    assert!(
        h.contains_key(".hash") && h.contains_key(".gnu.hash"),
        "{h:?}"
    );
    compare_hashes("libv.so", &lib);
    for p in system_libs() {
        compare_hashes(&p.display().to_string(), &p);
    }
}

// ------------------------------------------- more than 65,280 sections

/// `readelf -s -W` of .symtab: (name, Ndx column).
fn readelf_ndx(path: &Path) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for line in run("readelf", &["-s", "-W"], path).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 7 || !f[0].ends_with(':') || f[0] == "Num:" {
            continue;
        }
        v.push((
            f.get(7).copied().unwrap_or("").to_string(),
            f[6].to_string(),
        ));
    }
    v
}

#[test]
fn symbols_past_65280_sections_resolve_through_the_index_table() {
    use common::tree::{child, kids, label_name, value};
    if !common::tool("as") || !common::tool("readelf") {
        return;
    }
    const N: usize = 70_000;
    let dir = common::scratch();
    let mut src = String::with_capacity(N * 40);
    let marked = [0, 1000, 65_270, 65_279, 65_280, 65_500, 69_999];
    for i in 0..N {
        src.push_str(&format!(".section .text.{i},\"ax\",@progbits\n"));
        if marked.contains(&i) {
            src.push_str(&format!(".globl f{i}\nf{i}: .byte 0x90\n"));
        }
    }
    let s = dir.path().join("many.s");
    std::fs::write(&s, src).unwrap();
    let o = dir.path().join("many.o");
    let st = Command::new("as")
        .arg("-o")
        .arg(&o)
        .arg(&s)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let want = readelf_ndx(&o);
    assert!(
        want.iter().any(|(n, x)| n == "f69999" && lead(x) > 65_535),
        "{want:?}"
    );
    let bytes = std::fs::read(&o).unwrap();
    let t0 = Instant::now();
    let mut t = fwview::formats::build_from_bytes(bytes);
    let root = t.root();
    let g = child(&mut t, root, "sections").unwrap();
    let opened = t0.elapsed();
    assert!(opened < Duration::from_secs(2), "opened in {opened:?}");
    // e_shnum and e_shstrndx come from section 0: every header is there,
    // named.
    let sh = child(&mut t, root, "section headers").unwrap();
    let heads = kids(&mut t, sh);
    let hdr_text = run("readelf", &["-h"], &o);
    let total = hdr_text
        .lines()
        .find(|l| l.contains("Number of section headers"))
        .and_then(|l| l.split_once('(').map(|x| lead(x.1)))
        .unwrap();
    assert_eq!(heads.len() as u64, total);
    assert_eq!(label_name(t.name(heads[N + 3])), format!(".text.{}", N - 1));
    let symtab = t
        .children(g)
        .into_iter()
        .find(|&k| t.name(k).ends_with("] .symtab"))
        .unwrap();
    let syms = kids(&mut t, symtab);
    assert_eq!(syms.len(), want.len());
    let mut xindex = 0;
    for (&id, (wname, ndx)) in syms.iter().zip(&want) {
        let nm = label_name(t.name(id)).to_string();
        if !nm.starts_with('f') {
            continue;
        }
        assert_eq!(&nm, wname);
        let sh = child(&mut t, id, "st_shndx").unwrap();
        let v = value(&t, sh);
        let sec = match v.split_once("section [") {
            Some((_, r)) => {
                xindex += 1;
                assert!(v.starts_with("65535 (SHN_XINDEX"), "{v}");
                lead(r)
            }
            None => lead(&v),
        };
        assert_eq!(sec, lead(ndx), "{nm}: {v}");
        // The summary names the section the index table gives.
        assert!(
            value(&t, id).contains(&format!(" .text.{} ", &nm[1..])),
            "{nm}: {}",
            value(&t, id)
        );
    }
    assert!(xindex >= 4, "{xindex} symbols through SHN_XINDEX");
    // The table itself: one entry a symbol, naming the symbol.
    let table = t
        .children(g)
        .into_iter()
        .find(|&k| t.name(k).ends_with("] .symtab_shndx"))
        .unwrap();
    let entries = kids(&mut t, table);
    assert_eq!(entries.len(), want.len());
    let last = *entries.last().unwrap();
    assert_eq!(label_name(t.name(last)), "f69999");
    assert!(
        value(&t, last).ends_with("(.text.69999)"),
        "{}",
        value(&t, last)
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

// ------------------------------------------------------ merged strings

/// `readelf -z -p SEC`: (offset, string) of each string it lists.
fn readelf_strings(path: &Path, sec: &str) -> Vec<(u64, String)> {
    let mut v = Vec::new();
    // -z: a compressed section's strings, inflated.
    for line in run("readelf", &["-z", "-p", sec], path).lines() {
        let Some(rest) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let (o, s) = rest.split_once(']').unwrap();
        v.push((hex(o), s.strip_prefix("  ").unwrap_or(s).to_string()));
    }
    v
}

fn compare_strings(label: &str, path: &Path, sec: &str) {
    let want = readelf_strings(path, sec);
    assert!(!want.is_empty(), "{label} {sec}: readelf lists strings");
    let j = json_of_bytes(std::fs::read(path).unwrap());
    let mut s = section(&j, sec);
    let mut base = off(s);
    // A compressed section's strings are in its inflated bytes, a space
    // of their own from 0.
    if let Some(inflated) = common::json::find(s, "inflated") {
        s = inflated;
        base = 0;
    }
    let got: Vec<(u64, String)> = items(s)
        .into_iter()
        .filter(|x| val(x) != "\"\"")
        .map(|x| (off(x) - base, unquote(val(x)).to_string()))
        .collect();
    assert_eq!(got, want, "{label} {sec}");
    // Every byte of the section is in one string.
    let sum: u64 = items(s).iter().map(|x| size(x)).sum();
    assert_eq!(sum, size(s), "{label} {sec}");
}

#[test]
fn merged_strings_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    let lib = versioned_lib(dir.path()).expect("the library builds");
    compare_strings("libv.so", &lib, ".comment");
    // An object with debug strings: many, listed in groups when opened.
    let mut src = String::from(LIB_SRC);
    for i in 0..1500 {
        src.push_str(&format!("int var_{i}_with_a_long_name = {i};\n"));
    }
    let obj = gcc(dir.path(), &src, &["-c", "-g", "-O1"], "dbg.o").unwrap();
    compare_strings("dbg.o", &obj, ".comment");
    compare_strings("dbg.o", &obj, ".rodata.str1.1");
    compare_strings("dbg.o", &obj, ".debug_str");
    // Compressed debug strings: listed from the inflated bytes.
    if !common::tool("objcopy") {
        return;
    }
    let z = dir.path().join("dbgz.o");
    let st = Command::new("objcopy")
        .arg("--compress-debug-sections=zlib")
        .arg(&obj)
        .arg(&z)
        .status()
        .unwrap();
    assert!(st.success());
    let j = json_of_bytes(std::fs::read(&z).unwrap());
    assert!(common::json::find(section(&j, ".debug_str"), "inflated").is_some());
    compare_strings("dbgz.o", &z, ".debug_str");
}

// ---------------------------------------------------------- damaged tables

/// A change made to a file's bytes.
type Change = Box<dyn Fn(&mut Vec<u8>)>;

/// Writes `v` as `n` little-endian bytes at `at`.
fn put(d: &mut [u8], at: u64, v: u64, n: usize) {
    let at = at as usize;
    d[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
}

#[test]
fn damaged_version_and_hash_tables_are_diagnosed() {
    if !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    let lib = versioned_lib(dir.path()).expect("the library builds");
    let good = std::fs::read(&lib).unwrap();
    let j = json_of_bytes(good.clone());
    let at = |sec: &str| off(section(&j, sec));
    let (vd, vr, h, gh) = (
        at(".gnu.version_d"),
        at(".gnu.version_r"),
        at(".hash"),
        at(".gnu.hash"),
    );
    // (what, change, a diagnostic that says so)
    let cases: Vec<(&str, Change, &str)> = vec![
        (
            "verdef chain cut after its first record",
            Box::new(move |d| put(d, vd + 16, 0, 4)),
            "sh_info says 4 entries, the chain has 1",
        ),
        (
            "verdef next inside itself",
            Box::new(move |d| put(d, vd + 16, 4, 4)),
            "points inside it",
        ),
        (
            "verdaux next inside itself",
            Box::new(move |d| {
                // Version 3 has two names: point the first's next into itself.
                let rd = |d: &[u8], o: u64| {
                    u64::from(u32::from_le_bytes(
                        d[o as usize..o as usize + 4].try_into().unwrap(),
                    ))
                };
                let mut o = vd;
                for _ in 0..2 {
                    o += rd(d, o + 16);
                }
                let aux = o + rd(d, o + 12);
                put(d, aux + 4, 2, 4);
            }),
            "points inside it",
        ),
        (
            "verdef past its section",
            Box::new(move |d| put(d, vd + 16, 0x7fff_fff0, 4)),
            "runs past its section",
        ),
        (
            "verdaux past its section",
            Box::new(move |d| put(d, vd + 12, 0xffff_0000, 4)),
            "runs past its section",
        ),
        (
            "vernaux name out of the string table",
            Box::new(move |d| put(d, vr + 16 + 8, 0xffff_fff0, 4)),
            "bad string index",
        ),
        (
            "nbucket too large",
            Box::new(move |d| put(d, h, 0xffff_ffff, 4)),
            "nbucket",
        ),
        (
            "a chain that loops",
            Box::new(move |d| {
                let nb = u32::from_le_bytes(d[h as usize..h as usize + 4].try_into().unwrap());
                let chains = h + 8 + 4 * u64::from(nb);
                for k in 1..4 {
                    put(d, chains + 4 * k, k, 4);
                }
            }),
            "",
        ),
        (
            "bloom too large",
            Box::new(move |d| put(d, gh + 8, 0xffff_ffff, 4)),
            "bloom_size",
        ),
        (
            "gnu buckets too many",
            Box::new(move |d| put(d, gh, 0xffff_ffff, 4)),
            "nbuckets",
        ),
        (
            "gnu bucket below symoffset",
            Box::new(move |d| put(d, gh + 4, 0xffff_fff0, 4)),
            "",
        ),
    ];
    for (what, change, says) in cases {
        let mut d = good.clone();
        change(&mut d);
        let mut t = common::tree::expanded(d);
        let diags: Vec<String> = t.diagnostics().iter().map(|x| x.message.clone()).collect();
        if !says.is_empty() {
            assert!(
                diags.iter().any(|m| m.contains(says)),
                "{what}: no diagnostic saying {says:?}: {diags:?}"
            );
        }
        // The tree is whole and exports.
        common::json::json_of_tree(&mut t);
    }
    // Random bytes over each of the new tables: never a panic or a hang.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let t0 = Instant::now();
    for sec in [
        ".gnu.version",
        ".gnu.version_d",
        ".gnu.version_r",
        ".hash",
        ".gnu.hash",
    ] {
        let s = section(&j, sec);
        let (o, n) = (off(s), size(s));
        for _ in 0..100 {
            let mut d = good.clone();
            for _ in 0..1 + rnd() % 8 {
                let at = (o + rnd() % n) as usize;
                d[at] = rnd() as u8;
            }
            let mut t = common::tree::expanded(d);
            common::json::json_of_tree(&mut t);
        }
    }
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
}

/// Wide string literals, as C writes them: the test's oracle is the
/// source itself, and the compiler's symbols for the literals (each
/// `.L.str` at its offset, with its size).
const WIDE_SRC: &str = r#"
typedef unsigned short c16; typedef unsigned int c32; typedef int wc;
const wc *a(void) { return (const wc *)L"hello wide"; }
const c16 *b(void) { return (const c16 *)u"sixteen é"; }
const c32 *c(void) { return (const c32 *)U"thirty-two 😀"; }
"#;

#[test]
fn wide_merged_strings_decode_in_either_byte_order() {
    use object::{Object, ObjectSection, ObjectSymbol};
    if !common::tool("clang-22") {
        return;
    }
    // Three literals, and 1,500 more: listed in groups when opened.
    let mut want = vec![
        "hello wide".to_string(),
        "sixteen é".into(),
        "thirty-two 😀".into(),
    ];
    let mut source = WIDE_SRC.to_string();
    for i in 0..1500 {
        source.push_str(&format!(
            "const c16 *s{i}(void) {{ return (const c16 *)u\"wide {i}\"; }}\n"
        ));
        want.push(format!("wide {i}"));
    }
    want.sort();
    let dir = common::scratch();
    let src = dir.path().join("w.c");
    std::fs::write(&src, source).unwrap();
    // Little-endian and big-endian: UTF-16 and UTF-32 in the ELF's order.
    for target in ["x86_64-linux-gnu", "s390x-linux-gnu"] {
        let obj = clang_object(dir.path(), target, &src, &[]);
        let data = std::fs::read(&obj).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let j = json_of_bytes(data.clone());
        let mut got = Vec::new();
        for sym in file.symbols() {
            let Some(idx) = sym.section_index() else {
                continue;
            };
            let sec = file.section_by_index(idx).unwrap();
            let sname = sec.name().unwrap();
            if !sname.starts_with(".rodata.str2") && !sname.starts_with(".rodata.str4") {
                continue;
            }
            let node = section(&j, sname);
            let at = off(node) + sym.address();
            let s = items(node)
                .into_iter()
                .find(|x| off(x) == at)
                .unwrap_or_else(|| panic!("{target}: no string at {sname}+0x{:x}", sym.address()));
            assert_eq!(
                size(s),
                sym.size(),
                "{target}: {} size",
                sym.name().unwrap()
            );
            got.push(unquote(val(s)).to_string());
        }
        got.sort();
        assert_eq!(got, want, "{target}");
    }
}

/// One unit as `readelf --debug-dump=info` lists it: offset, length,
/// version, abbrev offset, pointer size, and the strings its first entry
/// names (name, producer, directory).
#[derive(Debug, PartialEq)]
struct Unit {
    offset: u64,
    length: u64,
    version: u64,
    abbrev: u64,
    pointer: u64,
    strings: Vec<String>,
}

fn readelf_units(path: &Path) -> Vec<Unit> {
    let text = run("readelf", &["--debug-dump=info"], path);
    let num = |s: &str| {
        let s = s.split_whitespace().next().unwrap_or("");
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).unwrap(),
            None => s.parse().unwrap(),
        }
    };
    let mut units: Vec<Unit> = Vec::new();
    let mut in_first = false;
    for l in text.lines() {
        let t = l.trim();
        if let Some(at) = t.strip_prefix("Compilation Unit @ offset ") {
            units.push(Unit {
                offset: num(at.trim_end_matches(':')),
                length: 0,
                version: 0,
                abbrev: 0,
                pointer: 0,
                strings: Vec::new(),
            });
            in_first = false;
            continue;
        }
        let Some(u) = units.last_mut() else { continue };
        if let Some(v) = t.strip_prefix("Length:") {
            u.length = num(v.trim());
        } else if let Some(v) = t.strip_prefix("Version:") {
            u.version = num(v.trim());
        } else if let Some(v) = t.strip_prefix("Abbrev Offset:") {
            u.abbrev = num(v.trim());
        } else if let Some(v) = t.strip_prefix("Pointer Size:") {
            u.pointer = num(v.trim());
        } else if t.starts_with("<0>") {
            in_first = true;
        } else if t.starts_with("<1>") {
            in_first = false;
        } else if in_first {
            for at in ["DW_AT_name", "DW_AT_producer", "DW_AT_comp_dir"] {
                if t.contains(at) {
                    let (_, v) = t.split_once(": ").unwrap();
                    let v = v.rsplit_once("): ").map_or(v, |x| x.1);
                    u.strings.push(v.trim().to_string());
                }
            }
        }
    }
    units
}

#[test]
fn dwarf_units_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    std::fs::write(dir.path().join("a.c"), "int a(int x) { return x + 1; }\n").unwrap();
    std::fs::write(
        dir.path().join("b.c"),
        "static int s; int b(void) { return ++s; }\n",
    )
    .unwrap();
    for (label, flags) in [
        ("DWARF 5", "-gdwarf-5"),
        ("DWARF 4", "-gdwarf-4"),
        ("DWARF 2", "-gdwarf-2"),
    ] {
        let lib = dir.path().join(format!("lib{}.so", &flags[7..]));
        let st = Command::new("gcc")
            .args(["-shared", "-fPIC", "-O1", flags, "a.c", "b.c", "-o"])
            .arg(&lib)
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(st.success(), "gcc {flags}");
        assert_eq!(readelf_units(&lib).len(), 2, "{label}: two units");
        compare_units(label, &lib);
    }
    // Object files: their offsets into the string sections are in the
    // relocations of .debug_info (RELA for x86-64, RISC-V and s390x, in
    // place for i386), which readelf applies as fwview does.
    if !common::tool("clang-22") {
        return;
    }
    for target in [
        "x86_64-linux-gnu",
        "i386-linux-gnu",
        "riscv64-linux-gnu",
        "s390x-linux-gnu",
    ] {
        let obj = clang_object(dir.path(), target, &dir.path().join("a.c"), &["-g"]);
        compare_units(target, &obj);
    }
}

/// The units of `path`'s .debug_info against readelf's.
fn compare_units(label: &str, path: &Path) {
    let want = readelf_units(path);
    assert!(!want.is_empty(), "{label}: readelf lists units");
    let j = json_of_bytes(std::fs::read(path).unwrap());
    let s = section(&j, ".debug_info");
    let units: Vec<&Value> = items(s);
    assert_eq!(units.len(), want.len(), "{label}");
    for (u, w) in units.iter().zip(&want) {
        let field = |n: &str| lead(val(common::json::child(u, n)));
        assert_eq!(off(u) - off(s), w.offset, "{label}");
        assert_eq!(field("unit_length"), w.length, "{label}");
        assert_eq!(size(u), w.length + 4, "{label}");
        assert_eq!(field("version"), w.version, "{label}");
        assert_eq!(field("debug_abbrev_offset"), w.abbrev, "{label}");
        assert_eq!(field("address_size"), w.pointer, "{label}");
        assert_eq!(w.strings.len(), 3, "{label}: {:?}", w.strings);
        for text in &w.strings {
            assert!(
                val(u).contains(text.as_str()),
                "{label}: {:?} lacks {text:?}",
                val(u)
            );
        }
        assert!(
            val(u).ends_with(&format!("DWARF {}", w.version)),
            "{}",
            val(u)
        );
    }
}

/// The object clang-22 makes of `src` for `target` (`-O1
/// -ffreestanding`, and `args`), in `dir`.
fn clang_object(dir: &Path, target: &str, src: &Path, args: &[&str]) -> PathBuf {
    let obj = dir.join(format!("{target}.o"));
    let st = Command::new("clang-22")
        .arg(format!("--target={target}"))
        .args(["-O1", "-ffreestanding", "-c"])
        .args(args)
        .arg(src)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success(), "clang-22 --target={target}");
    obj
}
