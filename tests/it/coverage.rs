//! Every byte of every bundled sample lies in a leaf of its `--json` tree
//! (a field, a payload, or a gap leaf: padding, unused, unknown, syntax,
//! contents), every node lies inside its parent, and the children of a
//! node come in file order.

use crate::common;

use std::collections::BTreeMap;

use serde_json::Value;

use common::json::all_kids as kids;

use fwview::model::GAP_NAMES as GAPS;

/// `--json` of the sample at `rel` under assets/.
fn json_of(rel: &str) -> Value {
    common::json::json_of(&common::asset(rel))
}

fn num(n: &Value, k: &str) -> u64 {
    n[k].as_u64().unwrap()
}

/// The children of `n` in its own byte space that own bytes.
fn same_space(n: &Value) -> Vec<&Value> {
    kids(n)
        .iter()
        .filter(|k| k["space"] == n["space"] && num(k, "size") > 0)
        .collect()
}

/// Per space, the ranges of its leaves: nodes with no child of their
/// space that owns bytes.
fn leaves(n: &Value, out: &mut BTreeMap<u64, Vec<(u64, u64)>>) {
    if same_space(n).is_empty() {
        let (o, s) = (num(n, "offset"), num(n, "size"));
        out.entry(num(n, "space")).or_default().push((o, o + s));
    }
    for k in kids(n) {
        leaves(k, out);
    }
}

/// The bytes of `[0, size)` no range covers, as ranges.
fn holes(mut r: Vec<(u64, u64)>, size: u64) -> Vec<(u64, u64)> {
    r.sort_unstable();
    let mut pos = 0;
    let mut out = Vec::new();
    for (a, b) in r {
        if a > pos {
            out.push((pos, a));
        }
        pos = pos.max(b);
    }
    if pos < size {
        out.push((pos, size));
    }
    out
}

#[test]
fn every_byte_of_every_sample_lies_in_a_leaf() {
    let mut gap_leaves = 0;
    for (rel, bytes) in common::samples() {
        let j = json_of(&rel);
        assert_ne!(j["format"], "raw", "{rel}: a sample of a known format");
        let mut by_space = BTreeMap::new();
        leaves(&j["root"], &mut by_space);
        for s in j["spaces"].as_array().unwrap() {
            let id = num(s, "id");
            let size = num(s, "size");
            if id == 0 {
                assert_eq!(size, bytes.len() as u64);
            }
            let h = holes(by_space.remove(&id).unwrap_or_default(), size);
            let missing: u64 = h.iter().map(|(a, b)| b - a).sum();
            assert!(
                h.is_empty(),
                "{rel}: space {id}: {missing} of {size} bytes lie in no leaf, first at {:x?}",
                &h[..h.len().min(5)]
            );
        }
        fn count(n: &Value, c: &mut usize) {
            if kids(n).is_empty() && GAPS.contains(&n["name"].as_str().unwrap()) {
                *c += 1;
            }
            kids(n).iter().for_each(|k| count(k, c));
        }
        count(&j["root"], &mut gap_leaves);
    }
    // The samples do have bytes no structure names (alignment, syntax).
    assert!(gap_leaves > 100, "{gap_leaves} gap leaves");
}

/// Each node lies inside its parent (in the same space), and siblings of
/// one space start in file order: a bit field of a word comes before the
/// fields of its higher bytes.
fn check_nesting(rel: &str, n: &Value, path: &str, bad: &mut Vec<String>) {
    let (po, pe) = (num(n, "offset"), num(n, "offset") + num(n, "size"));
    let mut last: Option<(u64, &str)> = None;
    for k in kids(n) {
        let name = k["name"].as_str().unwrap();
        if k["space"] == n["space"] {
            let (o, e) = (num(k, "offset"), num(k, "offset") + num(k, "size"));
            if o < po || e > pe {
                bad.push(format!(
                    "{rel}: {path}/{name} [{o:#x}, {e:#x}) outside its parent [{po:#x}, {pe:#x})"
                ));
            }
            if let Some((lo, ln)) = last {
                if o < lo {
                    bad.push(format!(
                        "{rel}: {path}: {name} at {o:#x} comes after {ln} at {lo:#x}"
                    ));
                }
            }
            last = Some((o, name));
        }
        check_nesting(rel, k, &format!("{path}/{name}"), bad);
    }
}

#[test]
fn children_lie_inside_their_parents_in_file_order() {
    let mut bad = Vec::new();
    for (rel, _) in common::samples() {
        let j = json_of(&rel);
        check_nesting(&rel, &j["root"], "", &mut bad);
    }
    assert!(
        bad.is_empty(),
        "{} nodes out of place, e.g.\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

#[test]
fn gap_leaves_say_what_they_are() {
    // A zero run between xclbin sections is padding; the mirror data at
    // the end is decoded, so nothing after the last section is unused.
    let j = json_of("xclbin/riallto__color_threshold_v1_720p.xclbin");
    let root = &j["root"];
    let pad: Vec<&Value> = kids(root)
        .iter()
        .filter(|k| k["name"] == "padding")
        .collect();
    assert!(!pad.is_empty());
    let d = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/xclbin/riallto__color_threshold_v1_720p.xclbin"),
    )
    .unwrap();
    for p in pad {
        let (o, s) = (num(p, "offset") as usize, num(p, "size") as usize);
        assert!(d[o..o + s].iter().all(|&b| b == 0));
    }
    assert!(!kids(root).iter().any(|k| k["name"] == "unused"));
}
