//! `fwview --diff A B`: every byte that differs lies in a node reported
//! changed, added or removed; a file against itself shows no change; the
//! exit code says same (0), different (1) or trouble (2), as cmp does.

use crate::common;

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use fwview::diff::{changes, Change, Record};
use fwview::formats::build_from_bytes;

fn run(a: &Path, b: &Path, json: bool) -> (i32, String) {
    let mut c = Command::cargo_bin("fwview").unwrap();
    c.arg("--diff");
    if json {
        c.arg("--json");
    }
    let out = c.arg(a).arg(b).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// True if some record's side (A for changed and removed, B for changed and
/// added) in the file's space holds byte `off`.
fn covered(recs: &[Record], off: u64, side_a: bool) -> bool {
    recs.iter().any(|r| {
        let s = if side_a { &r.a } else { &r.b };
        s.as_ref().is_some_and(|s| {
            s.span.space.0 == 0 && s.span.offset <= off && off < s.span.offset + s.span.len.max(1)
        })
    })
}

#[test]
fn a_file_against_itself_shows_no_change() {
    for (rel, bytes) in common::samples() {
        let mut a = build_from_bytes(bytes.clone());
        let mut b = build_from_bytes(bytes);
        let c = changes(&mut a, &mut b);
        assert!(c.is_empty(), "{rel}: {:?}", c.first());
    }
    let p = common::asset("xmos/COMS20001-game-of-life__pgm_generator.xe");
    let (code, out) = run(&p, &p, false);
    assert_eq!((code, out.as_str()), (0, ""));
}

/// One byte changed at many places of every sample: the diff reports a
/// node that holds it on both sides, and nothing when the byte is put back.
#[test]
fn every_changed_byte_lies_in_a_reported_node() {
    for (rel, bytes) in common::samples() {
        let n = bytes.len();
        let step = (n / 23).max(1);
        for off in (0..n).step_by(step) {
            let mut m = bytes.clone();
            m[off] ^= 0x5a;
            let mut a = build_from_bytes(bytes.clone());
            let mut b = build_from_bytes(m);
            let recs = changes(&mut a, &mut b);
            assert!(
                !recs.is_empty(),
                "{rel}: byte {off:#x} changed, no change reported"
            );
            assert!(
                covered(&recs, off as u64, true) && covered(&recs, off as u64, false),
                "{rel}: byte {off:#x} lies in no reported node: {:?}",
                recs.iter().map(|r| &r.path).collect::<Vec<_>>()
            );
        }
    }
}

/// Two real builds: the Debug and Release XE of one program. Their sizes
/// differ, so bytes shift; what must hold is that the sectors align by
/// type and tile, that every reported path names a node of its file, and
/// that the text and the list agree.
#[test]
fn two_builds_of_an_xe_program() {
    let a = common::asset("xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe");
    let b = common::asset("xmos/UltranetReceiver__bin_Release_Ultranet_Receiver.xe");
    let (da, db) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let mut ta = build_from_bytes(da.clone());
    let mut tb = build_from_bytes(db.clone());
    let recs = changes(&mut ta, &mut tb);
    assert!(!recs.is_empty());
    common::diffs::paths_name_their_nodes(&recs, &mut ta, &mut tb);
    // No sector is added or removed: both programs have the same sectors.
    assert!(
        !recs
            .iter()
            .any(|r| r.change != Change::Changed && r.path.matches('/').count() == 1),
        "{:?}",
        recs.iter()
            .filter(|r| r.change != Change::Changed)
            .map(|r| &r.path)
            .take(5)
            .collect::<Vec<_>>()
    );
    let (code, out) = run(&a, &b, false);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), recs.len());
    for l in out.lines() {
        assert!(
            l.starts_with("~ ") || l.starts_with("+ ") || l.starts_with("- "),
            "{l}"
        );
    }
}

/// The JSON form: a list of records, one a change, with both sides where
/// they exist; each path is an address `--extract` finds in its file.
#[test]
fn json_records_and_their_paths() {
    let a = common::asset("zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin");
    let b = common::asset("zebin/generated_locally/ocloc22.43__add_XE_HPC_COREpvc.bin");
    let (code, out) = run(&a, &b, true);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert!(!list.is_empty());
    let dir = tempfile::tempdir().unwrap();
    for (i, r) in list.iter().enumerate() {
        let o = r.as_object().unwrap();
        let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["a", "a_path", "b", "change", "path"]);
        let ch = r["change"].as_str().unwrap();
        assert_eq!(r["a"].is_null(), ch == "+", "{r}");
        assert_eq!(r["a_path"].is_null(), ch == "+", "{r}");
        assert_eq!(r["b"].is_null(), ch == "-", "{r}");
        // Every path names a node of the side it is in; its bytes are the
        // record's.
        let (file, side) = if ch == "-" {
            (&a, &r["a"])
        } else {
            (&b, &r["b"])
        };
        if side["space"] != 0 || i > 40 {
            continue;
        }
        let extracted =
            |path: &serde_json::Value, file: &std::path::Path, side: &serde_json::Value| {
                let p = dir.path().join(format!("{i}"));
                Command::cargo_bin("fwview")
                    .unwrap()
                    .args(["--extract", path.as_str().unwrap()])
                    .arg(file)
                    .arg("-o")
                    .arg(&p)
                    .arg("--force")
                    .assert()
                    .success();
                let got = std::fs::read(&p).unwrap();
                let all = std::fs::read(file).unwrap();
                let (o, s) = (
                    side["offset"].as_u64().unwrap() as usize,
                    side["size"].as_u64().unwrap() as usize,
                );
                assert_eq!(got, all[o..o + s], "{path}");
            };
        extracted(&r["path"], file, side);
        // A's address names A's node.
        if ch == "~" && r["a"]["space"] == 0 {
            extracted(&r["a_path"], &a, &r["a"]);
        }
    }
    // The kernel is the same kernel on both devices: not added or removed.
    assert!(!list
        .iter()
        .any(|r| r["change"] != "~" && r["path"].as_str().unwrap().ends_with("kernels/add")));
}

/// Values compare as typed values: the same number is the same whatever
/// else is around it, and a value change shows old and new.
#[test]
fn values_compare_as_values() {
    let p = common::asset("xmos/COMS20001-game-of-life__pgm_generator.xe");
    let bytes = std::fs::read(&p).unwrap();
    let mut m = bytes.clone();
    // The XE header's version: 2.0 → 2.1.
    m[5] ^= 1;
    let mut a = build_from_bytes(bytes);
    let mut b = build_from_bytes(m);
    let recs = changes(&mut a, &mut b);
    let v = recs
        .iter()
        .find(|r| r.change == Change::Changed && r.path.starts_with("header/version"))
        .unwrap_or_else(|| panic!("{recs:?}"));
    assert_ne!(v.a.as_ref().unwrap().value, v.b.as_ref().unwrap().value);
}

#[test]
fn trouble_exits_2() {
    let p = common::asset("xmos/COMS20001-game-of-life__pgm_generator.xe");
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--diff")
        .arg(&p)
        .arg("/nonexistent/file")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A second file without --diff opens the side-by-side view, which
    // needs a terminal: without one it says so and fails.
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg(&p)
        .arg(&p)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a terminal"));
}

/// `gcc -c` of the C source `src` in `dir`: the object's path.
fn gcc_object(dir: &Path, name: &str, src: &str) -> std::path::PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let o = dir.join(format!("{name}.o"));
    let st = Command::new("gcc")
        .arg("-c")
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .status()
        .unwrap();
    assert!(st.success());
    o
}

/// A name added to a string table moves the offsets of the names after
/// it: a reference that names the same string as before (`st_name`,
/// `sh_name`) is no change, and what holds it is not reported for its
/// bytes; the symbol added is. Objects built by gcc, the second with one
/// more function, first in the file.
#[test]
fn references_that_name_the_same_string_are_no_change() {
    if !common::tool("gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, src: &str| std::fs::read(gcc_object(dir.path(), name, src)).unwrap();
    let body = "int second(int x) { return x + 2; }\nint third(int x) { return second(x) * 3; }\n";
    let a = build("t", body);
    let b = build(
        "t",
        &format!("int aaa_first(int x) {{ return x; }}\n{body}"),
    );
    let recs = changes(&mut build_from_bytes(a), &mut build_from_bytes(b));
    let paths: Vec<&str> = recs.iter().map(|r| r.path.as_str()).collect();
    assert!(
        paths.iter().any(|p| p.ends_with("aaa_first")),
        "the new symbol is reported: {paths:#?}"
    );
    for r in &recs {
        let unchanged = ["second", "third"]
            .iter()
            .any(|n| r.path.contains(&format!("] {n}")));
        assert!(!(unchanged && r.path.ends_with("st_name")), "{}", r.path);
        assert!(!r.path.ends_with("sh_name"), "{}", r.path);
    }
}

/// Checks that every record comes before the records below it: no path
/// is reported after a path under it.
fn parents_first(paths: &[String]) {
    for (i, p) in paths.iter().enumerate() {
        let below = format!("{p}/");
        if let Some(q) = paths[..i].iter().find(|q| q.starts_with(&below)) {
            panic!("{p} is reported after {q}, which lies below it");
        }
    }
}

/// Two builds of one XE program: a node's own change comes before the
/// changes below it, in the text and in the JSON list (its PROGINFO
/// sector differs in its size and in records below it).
#[test]
fn parents_come_before_their_children() {
    let a = common::asset("xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe");
    let b = common::asset("xmos/UltranetReceiver__bin_Release_Ultranet_Receiver.xe");
    let (code, text) = run(&a, &b, false);
    assert_eq!(code, 1);
    let paths: Vec<String> = text
        .lines()
        .map(|l| {
            let rest = &l[2..];
            // `~ PATH: OLD -> NEW`: the path ends at the first `: ` (a
            // path's own `:` is never followed by a space here).
            rest.split(": ").next().unwrap_or(rest).to_string()
        })
        .collect();
    assert!(
        paths.iter().any(|p| p.ends_with("PROGINFO"))
            && paths.iter().any(|p| p.contains("PROGINFO/")),
        "the PROGINFO sector and something below it differ"
    );
    parents_first(&paths);
    let (code, json) = run(&a, &b, true);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let jpaths: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(jpaths.len(), paths.len());
    parents_first(&jpaths);
}

/// Raw-only changes: a symbol whose name's offset in the string table
/// moved (a name was added before it) while the name is the same. The
/// offsets are read with the object crate. Without `--raw-changes` its
/// `st_name` is no change; with it, the line shows the two offsets and
/// the name.
#[test]
fn raw_changes_are_shown_on_request() {
    if !common::tool("gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, src: &str| gcc_object(dir.path(), name, src);
    let body = "int second(int x) { return x + 2; }\n";
    let a = build("a", body);
    let b = build(
        "b",
        &format!("int aaa_first(int x) {{ return x; }}\n{body}"),
    );
    // The symbol's st_name on each side, and its index, from the object
    // crate.
    let st_name = |p: &Path| -> (usize, u32) {
        use object::read::elf::{ElfFile64, Sym};
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(p).unwrap();
        let f = ElfFile64::<object::Endianness>::parse(&*data).unwrap();
        let e = f.endian();
        let s = f.symbols().find(|s| s.name() == Ok("second")).unwrap();
        (s.index().0, s.elf_symbol().st_name(e))
    };
    let ((ia, na), (ib, nb)) = (st_name(&a), st_name(&b));
    assert_ne!(na, nb, "the name's offset moved");
    let line = |raw: bool| -> Option<String> {
        let mut c = Command::cargo_bin("fwview").unwrap();
        c.arg("--diff");
        if raw {
            c.arg("--raw-changes");
        }
        let out = c.arg(&a).arg(&b).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find(|l| l.contains("] second/st_name"))
            .map(str::to_string)
    };
    assert_eq!(line(false), None, "no raw change without the flag");
    // The flag is in --help and the manual page.
    for arg in ["--help", "--man"] {
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .arg(arg)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // roff spells a dash `\-`.
        assert!(text.replace("\\-", "-").contains("--raw-changes"), "{arg}");
    }
    let l = line(true).expect("the raw change with --raw-changes");
    assert!(
        l.starts_with(&format!("~ symbols/.symtab/[{ib}] second/st_name: "))
            || l.contains(&format!("[{ib}] second/st_name: ")),
        "{l} (index {ia} -> {ib})"
    );
    assert!(
        l.contains(&format!(": {na} \"second\" -> {nb} \"second\"")),
        "{l}"
    );
}
