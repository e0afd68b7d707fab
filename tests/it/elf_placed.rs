//! Symbols shown inside the section contents they point into, against
//! `readelf -sW` and `readelf -SW` on objects and a shared library that gcc
//! builds here.

use crate::common;

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use serde_json::Value;

const SRC: &str = r#"
int counter = 3;
static const char table[40] = "placed in .rodata";
int add(int a, int b) { return a + b + counter; }
static int twice(int x) { return 2 * x + table[x & 7]; }
int use(int x) { return twice(x); }
"#;

/// (section index, offset in the section, size, name) of every FUNC and
/// OBJECT symbol with a size in an allocated section, as readelf reads them.
fn expected(obj: &Path) -> Vec<(u32, u64, u64, String)> {
    let secs = Command::new("readelf")
        .args(["-SW"])
        .arg(obj)
        .output()
        .unwrap();
    let secs = String::from_utf8_lossy(&secs.stdout).into_owned();
    // [Nr] Name Type Address Off Size ES Flg ...
    let mut addr_of = std::collections::HashMap::new();
    let mut alloc = std::collections::HashSet::new();
    for l in secs.lines() {
        let Some(rest) = l.trim_start().strip_prefix('[') else {
            continue;
        };
        let Some((nr, tail)) = rest.split_once(']') else {
            continue;
        };
        let Ok(nr) = nr.trim().parse::<u32>() else {
            continue;
        };
        let f: Vec<&str> = tail.split_whitespace().collect();
        if f.len() < 7 {
            continue;
        }
        addr_of.insert(nr, u64::from_str_radix(f[2], 16).unwrap_or(0));
        if f[6].contains('A') && f[1] != "NOBITS" {
            alloc.insert(nr);
        }
    }
    let rel = {
        let h = Command::new("readelf")
            .args(["-hW"])
            .arg(obj)
            .output()
            .unwrap();
        String::from_utf8_lossy(&h.stdout).contains("REL (Relocatable file)")
    };
    let syms = Command::new("readelf")
        .args(["-sW"])
        .arg(obj)
        .output()
        .unwrap();
    let syms = String::from_utf8_lossy(&syms.stdout).into_owned();
    let mut out = Vec::new();
    let mut in_symtab = false;
    for l in syms.lines() {
        if l.starts_with("Symbol table") {
            // Prefer .symtab; .dynsym only when there is no .symtab.
            in_symtab = l.contains("'.symtab'");
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if !in_symtab || f.len() < 8 || !f[0].ends_with(':') {
            continue;
        }
        let (value, size, typ, ndx, name) = (f[1], f[2], f[3], f[6], f[7]);
        let size: u64 = size.parse().unwrap_or(0);
        let Ok(ndx) = ndx.parse::<u32>() else {
            continue;
        };
        if size == 0 || !matches!(typ, "FUNC" | "OBJECT") || !alloc.contains(&ndx) {
            continue;
        }
        let value = u64::from_str_radix(value, 16).unwrap();
        let off = if rel { value } else { value - addr_of[&ndx] };
        out.push((ndx, off, size, name.to_string()));
    }
    out.sort();
    out
}

/// The same, from fwview's JSON: the leaves under `sections/[N] …` whose
/// value names a symbol.
fn shown(obj: &Path) -> Vec<(u32, u64, u64, String)> {
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--json")
        .arg(obj)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let root = &v["root"];
    let sections = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "sections")
        .expect("a sections node");
    let mut got = Vec::new();
    for s in sections["children"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let Some(idx) = name
            .strip_prefix('[')
            .and_then(|r| r.split(']').next())
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let base = s["offset"].as_u64().unwrap();
        for c in s["children"].as_array().into_iter().flatten() {
            let val = c["value"].as_str().unwrap_or("");
            if val.contains(", symbol [") {
                got.push((
                    idx,
                    c["offset"].as_u64().unwrap() - base,
                    c["size"].as_u64().unwrap(),
                    c["name"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    got.sort();
    got
}

#[test]
fn symbols_lie_in_their_sections_as_readelf_places_them() {
    if !common::tool("gcc") || !common::tool("readelf") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("p.c");
    std::fs::write(&c, SRC).unwrap();
    for (out, args) in [
        ("p.o", &["-O1", "-c"][..]),
        ("p.so", &["-O1", "-shared", "-fPIC"][..]),
    ] {
        let o = dir.path().join(out);
        let st = Command::new("gcc")
            .args(args)
            .arg(&c)
            .arg("-o")
            .arg(&o)
            .status()
            .unwrap();
        assert!(st.success());
        let want = expected(&o);
        assert!(want.len() >= 4, "{out}: {want:?}");
        assert_eq!(shown(&o), want, "{out}");
    }
}
