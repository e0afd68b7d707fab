//! `--diff` on real pairs: sections put in another order, two builds of an
//! XCLBIN overlay, and a compressed against a plain clang offload bundle of
//! the same code.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::prelude::*;
use fwview::diff::{changes, Change, Record};
use fwview::formats::build_from_bytes;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

fn le32(d: &[u8], at: usize) -> usize {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as usize
}

/// The bytes `cmp -l` would list: offsets where two equal-length files
/// differ.
fn cmp_l(a: &[u8], b: &[u8]) -> Vec<u64> {
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, _)| i as u64)
        .collect()
}

fn holds(recs: &[Record], off: u64, side_a: bool) -> bool {
    recs.iter().any(|r| {
        let s = if side_a { &r.a } else { &r.b };
        s.as_ref()
            .is_some_and(|s| s.span.space.0 == 0 && s.span.contains(off))
    })
}

/// Every XCLBIN sample with its section headers (40 bytes each, from
/// 0x1c8, `m_numSections` at 0x1c0) in reverse order: each header that
/// changed place is reported moved, with the same value; no section's
/// payload is reported; every byte that differs lies in a reported node.
#[test]
fn sections_in_another_order_match_section_for_section() {
    let mut seen = 0;
    for (rel, a) in common::samples() {
        if !a.starts_with(b"xclbin2\0") {
            continue;
        }
        let n = le32(&a, 0x1c0);
        let mut b = a.clone();
        for i in 0..n {
            let (from, to) = (0x1c8 + 40 * i, 0x1c8 + 40 * (n - 1 - i));
            b[to..to + 40].copy_from_slice(&a[from..from + 40]);
        }
        let differ = cmp_l(&a, &b);
        let mut ta = build_from_bytes(a.clone());
        let mut tb = build_from_bytes(b.clone());
        let recs = changes(&mut ta, &mut tb);
        if differ.is_empty() {
            assert!(recs.is_empty(), "{rel}: {:?}", recs.first());
            continue;
        }
        seen += 1;
        // Headers equal to their mirror image do not move.
        let moved = (0..n)
            .filter(|&i| {
                let (p, q) = (0x1c8 + 40 * i, 0x1c8 + 40 * (n - 1 - i));
                a[p..p + 40] != a[q..q + 40]
            })
            .count();
        assert_eq!(recs.len(), moved, "{rel}: {:#?}", recs);
        for r in &recs {
            assert!(r.moved && r.change == Change::Changed, "{rel}: {r:?}");
            assert!(r.path.starts_with("sections/"), "{rel}: {}", r.path);
            let (x, y) = (r.a.as_ref().unwrap(), r.b.as_ref().unwrap());
            assert_eq!(x.value, y.value, "{rel}: {}", r.path);
            assert_ne!(x.span.offset, y.span.offset, "{rel}: {}", r.path);
        }
        for off in differ {
            assert!(
                holds(&recs, off, true) && holds(&recs, off, false),
                "{rel}: byte {off:#x} differs and lies in no reported node"
            );
        }
        // The command line agrees and says "differ".
        let dir = tempfile::tempdir().unwrap();
        let (pa, pb) = (dir.path().join("a.xclbin"), dir.path().join("b.xclbin"));
        std::fs::write(&pa, &a).unwrap();
        std::fs::write(&pb, &b).unwrap();
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .args(["--diff"])
            .arg(&pa)
            .arg(&pb)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{rel}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), moved, "{rel}: {text}");
        for l in text.lines() {
            assert!(
                l.contains(": at 0x") && l.contains(" -> at 0x"),
                "{rel}: {l}"
            );
        }
    }
    assert!(seen >= 5, "only {seen} XCLBIN samples");
}

/// The `<kernel name="…">` values in an XCLBIN's embedded XML, read from
/// the file's text.
fn kernel_names(d: &[u8]) -> BTreeSet<String> {
    let text = String::from_utf8_lossy(d);
    let mut out = BTreeSet::new();
    for part in text.split("<kernel name=\"").skip(1) {
        if let Some(end) = part.find('"') {
            out.insert(part[..end].to_string());
        }
    }
    out
}

/// Two builds of the Riallto NPU overlay with different kernels: the same
/// sections (aligned by kind, none added or removed), each reported path a
/// node of its file at the reported place, and the kernels (aligned by
/// name) removed and added exactly as the files' XML text says.
#[test]
fn two_builds_of_an_xclbin_overlay() {
    let pa = asset("xclbin/riallto__color_threshold_v1_720p.xclbin");
    let pb = asset("xclbin/riallto__edge_detect_720p.xclbin");
    let (da, db) = (std::fs::read(&pa).unwrap(), std::fs::read(&pb).unwrap());
    let mut ta = build_from_bytes(da.clone());
    let mut tb = build_from_bytes(db.clone());
    let recs = changes(&mut ta, &mut tb);
    assert!(!recs.is_empty());
    for r in &recs {
        // No section header nor section payload is added or removed (gap
        // leaves between them may be).
        let last = r.path.rsplit('/').next().unwrap_or("");
        let gap = fwview::model::GAP_NAMES
            .iter()
            .any(|g| last == *g || last.starts_with(&format!("{g}#")));
        if r.change != Change::Changed && !gap {
            let depth = r.path.matches('/').count();
            assert!(
                depth >= 1 && !r.path.starts_with("sections/"),
                "{:?} {}",
                r.change,
                r.path
            );
        }
    }
    common::diffs::paths_name_their_nodes(&recs, &mut ta, &mut tb);
    // The kernels each file's XML names, and the renames the diff reports.
    let (ka, kb) = (kernel_names(&da), kernel_names(&db));
    let gone: BTreeSet<_> = ka.difference(&kb).cloned().collect();
    let came: BTreeSet<_> = kb.difference(&ka).cloned().collect();
    assert!(!gone.is_empty() && !came.is_empty());
    // Kernels are aligned by name: one that only A has is removed, one that
    // only B has added, each with its name in the element's value.
    let name_in = |s: &Option<fwview::diff::Side>| {
        let v = s.as_ref().and_then(|s| s.value.clone()).unwrap();
        let rest = v.split("name=\"").nth(1).unwrap().to_string();
        rest[..rest.find('"').unwrap()].to_string()
    };
    let kernel = |r: &&Record| r.path.ends_with("/<kernel>") || r.path.contains("/<kernel>#");
    let removed: BTreeSet<String> = recs
        .iter()
        .filter(kernel)
        .filter(|r| r.change == Change::Removed)
        .map(|r| name_in(&r.a))
        .collect();
    let added: BTreeSet<String> = recs
        .iter()
        .filter(kernel)
        .filter(|r| r.change == Change::Added)
        .map(|r| name_in(&r.b))
        .collect();
    assert_eq!((removed, added), (gone, came));
}

/// `fwview --diff A B`: (exit code, standard output).
fn diff_of(a: &Path, b: &Path) -> (Option<i32>, String) {
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--diff")
        .args([a, b])
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

/// A build: output name, clang arguments, environment.
type Form<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);

pub(crate) fn bundle(
    dir: &Path,
    name: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Option<PathBuf> {
    bundle_of(dir, name, "if (n > 0) y[0] = a * x[0] + y[0];", extra, env)
}

/// [`bundle`] of a kernel whose body is `body`.
fn bundle_of(
    dir: &Path,
    name: &str,
    body: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Option<PathBuf> {
    let src = dir.join("k.hip");
    std::fs::write(
        &src,
        format!("__attribute__((global)) void saxpy(float a, float *x, float *y, int n) {{\n  {body}\n}}\n"),
    )
    .ok()?;
    let out = dir.join(name);
    let st = Command::new("clang-22")
        .args([
            "-x",
            "hip",
            "--offload-arch=gfx90a",
            "--offload-arch=gfx942:xnack+",
        ])
        .args(["-nogpulib", "-nogpuinc", "-c", "--offload-device-only"])
        // The compilation unit id names a symbol in every code object; fixed
        // here so that the two builds differ only in compression.
        .arg("-cuid=fixed")
        .args(extra)
        .envs(env.iter().copied())
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .ok()?;
    st.success().then_some(out)
}

/// A plain bundle and the compressed bundle of another build (other code),
/// in `dir`.
pub(crate) fn plain_and_compressed(dir: &Path) -> (PathBuf, PathBuf) {
    let plain = bundle(dir, "plain.hipfb", &[], &[]).expect("clang-22 builds HIP");
    let comp = bundle_of(
        dir,
        "comp.hipfb",
        "if (n > 1) y[1] = a * x[1] - y[0];",
        &["--offload-compress"],
        &[],
    )
    .expect("a compressed build");
    assert!(std::fs::read(&comp).unwrap().starts_with(b"CCOB"));
    (plain, comp)
}

/// A compressed bundle (CCOB v2 and v3, zstd and zlib) against the plain
/// bundle of the same code: one change, the container, and nothing inside:
/// the inflated bundle equals the plain one entry for entry.
#[test]
fn compressed_and_plain_bundles_are_equal_after_inflating() {
    if !common::tool("clang-22") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let plain = bundle(tmp.path(), "plain.hipfb", &[], &[]).expect("clang-22 builds HIP");
    let again = bundle(tmp.path(), "again.hipfb", &[], &[]).expect("a second build");
    let same = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--diff")
        .args([&plain, &again])
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0), "the same build twice");
    let forms: [Form; 3] = [
        ("v3.hipfb", &["--offload-compress"], &[]),
        (
            "v2.hipfb",
            &["--offload-compress"],
            &[("COMPRESSED_BUNDLE_FORMAT_VERSION", "2")],
        ),
        (
            "zlib.hipfb",
            &["--offload-compress"],
            &[
                ("OFFLOAD_BUNDLER_COMPRESS", "1"),
                ("OFFLOAD_BUNDLER_COMPRESSION", "zlib"),
            ],
        ),
    ];
    for (name, extra, env) in forms {
        let c = bundle(tmp.path(), name, extra, env).expect("a compressed build");
        let bytes = std::fs::read(&c).unwrap();
        assert!(bytes.starts_with(b"CCOB"), "{name} is not compressed");
        for (a, b) in [(&plain, &c), (&c, &plain)] {
            let (code, text) = diff_of(a, b);
            assert_eq!(code, Some(1), "{name}: {text}");
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 1, "{name}: {text}");
            assert!(lines[0].starts_with("~ /: "), "{name}: {text}");
            assert!(
                lines[0].contains("compressed clang offload bundle"),
                "{name}: {text}"
            );
        }
    }
}

/// A plain bundle against the compressed bundle of another build (other
/// code): the entries the two hold, as clang-offload-bundler-22 --list
/// names them, pair through the container (`~` changes below them), in
/// both directions; none is reported removed or added.
#[test]
fn entries_pair_through_a_compressed_container() {
    if !common::tool("clang-22") || !common::tool("clang-offload-bundler-22") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (plain, comp) = plain_and_compressed(tmp.path());
    let list = |p: &Path| -> Vec<String> {
        let out = Command::new("clang-offload-bundler-22")
            .args(["--list", "--type=o"])
            .arg(format!("--input={}", p.display()))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let entries = list(&plain);
    assert_eq!(entries.len(), 3, "{entries:?}");
    let mut both = list(&comp);
    both.sort();
    let mut sorted = entries.clone();
    sorted.sort();
    assert_eq!(sorted, both, "the two builds hold the same entries");
    for (a, b) in [(&plain, &comp), (&comp, &plain)] {
        let (code, text) = diff_of(a, b);
        assert_eq!(code, Some(1), "{text}");
        for e in &entries {
            let at = |l: &&str| l.contains(&format!("{e}/")) || l.ends_with(e.as_str());
            assert!(
                !text
                    .lines()
                    .any(|l| (l.starts_with("+ ") || l.starts_with("- ")) && at(&l)),
                "{e} is reported removed or added:\n{text}"
            );
        }
        // The code differs: the device entries hold `~` changes.
        for e in entries.iter().filter(|e| e.starts_with("hipv4-")) {
            assert!(
                text.lines()
                    .any(|l| l.starts_with("~ ") && l.contains(&format!("{e}/"))),
                "no change inside {e}:\n{text}"
            );
        }
    }
    // In `--json` each change below the container names the node on the
    // plain side too (`a_path`): it holds the bytes the record gives for A.
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--diff", "--json"])
        .args([&plain, &comp])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inner: Vec<&serde_json::Value> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["path"].as_str().unwrap().contains("/inflated/"))
        .collect();
    assert!(!inner.is_empty(), "{v}");
    let all = std::fs::read(&plain).unwrap();
    for r in inner {
        assert_eq!(r["change"], "~", "{r}");
        let a_path = r["a_path"].as_str().unwrap();
        assert!(a_path.starts_with("hipv4-"), "{r}");
        assert!(r["path"].as_str().unwrap().ends_with(a_path), "{r}");
        let x = tmp.path().join("x");
        Command::cargo_bin("fwview")
            .unwrap()
            .args(["--extract", a_path])
            .arg(&plain)
            .arg("-o")
            .arg(&x)
            .arg("--force")
            .assert()
            .success();
        let (o, n) = (
            r["a"]["offset"].as_u64().unwrap() as usize,
            r["a"]["size"].as_u64().unwrap() as usize,
        );
        assert_eq!(std::fs::read(&x).unwrap(), all[o..o + n], "{r}");
    }
}

/// Links inside a compressed bundle point into its inflated bytes: in
/// `--json` each link of a node in a derived space names that space and
/// lies inside it, and each code object's `e_shoff` leads to its section
/// header table there; in the explorer `f` on `e_shoff` selects that table
/// in the same space.
#[test]
fn links_in_a_compressed_bundle_point_into_its_inflated_bytes() {
    if !common::tool("clang-22") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let c =
        bundle(tmp.path(), "c.hipfb", &["--offload-compress"], &[]).expect("a compressed build");
    let j = common::json::json_of(&c);
    let sizes: Vec<u64> = j["spaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["size"].as_u64().unwrap())
        .collect();
    assert!(sizes.len() > 1, "no inflated space");
    let (mut derived, mut shoffs, mut paths) = (0, Vec::new(), Vec::new());
    let mut stack = vec![&j["root"]];
    while let Some(n) = stack.pop() {
        stack.extend(n["children"].as_array().into_iter().flatten());
        let Some(l) = n.get("link") else { continue };
        let sp = n["space"].as_u64().unwrap_or(0);
        let (lsp, off, size) = (
            l["space"].as_u64().unwrap(),
            l["offset"].as_u64().unwrap(),
            l["size"].as_u64().unwrap(),
        );
        assert_eq!(lsp, sp, "{}: {l}", n["name"]);
        assert!(off + size <= sizes[lsp as usize], "{}: {l}", n["name"]);
        if sp != 0 {
            derived += 1;
            if n["name"] == "e_shoff" {
                shoffs.push((sp, off));
                // The link names the node it leads to, in the inflated
                // space as in the file.
                let to = l["path"].as_str().unwrap_or_default();
                assert!(to.ends_with("/section headers"), "{l}");
                paths.push(to.to_string());
            }
        }
    }
    assert!(derived > 10, "{derived} links in the inflated space");
    // Two code objects (gfx90a and gfx942), each with its table of section
    // headers where its e_shoff leads.
    assert_eq!(shoffs.len(), 2, "{shoffs:?}");
    let d = std::fs::read(&c).unwrap();
    let mut app = fwview::tui::App::new(build_from_bytes(d), "c.hipfb");
    let found = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--find", "n:e_shoff"])
        .arg(&c)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&found.stdout).to_string();
    let path = text
        .lines()
        .next()
        .and_then(|l| l.split_once("  "))
        .map(|x| x.1.trim())
        .expect("an e_shoff node");
    app.goto(path).expect("g takes the node's address");
    assert!(app.follow());
    let here = app.doc.tree.node(app.selected).unwrap();
    assert_eq!(&*here.name, "section headers", "{:?}", app.message);
    // `f` lands where the link's path says.
    let at = app.doc.tree.short_path(app.selected);
    assert!(paths.contains(&at), "{at} not in {paths:?}");
    assert!(
        shoffs.contains(&(u64::from(here.space.0), here.offset)),
        "{shoffs:?}: {} {:#x}",
        here.space,
        here.offset
    );
}
