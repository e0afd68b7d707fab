//! The exporters on several threads write exactly what one thread writes:
//! the same tree, the same spaces, the same diagnostics.

use crate::common;

use fwview::export::{json_with, text_tree_with};
use fwview::formats::build_from_bytes;
use fwview::model::Numbers;

fn both(bytes: &[u8], threads: usize) -> (Vec<u8>, Vec<u8>, Vec<String>) {
    let mut t = build_from_bytes(bytes.to_vec());
    let mut j = Vec::new();
    json_with(&mut t, "x", &mut j, threads).unwrap();
    let mut t = build_from_bytes(bytes.to_vec());
    let mut txt = Vec::new();
    text_tree_with(&mut t, &mut txt, Numbers::Natural, threads).unwrap();
    let mut d: Vec<String> = t.diagnostics().iter().map(|d| format!("{d:?}")).collect();
    d.sort();
    (j, txt, d)
}

#[test]
fn every_sample_is_written_the_same_on_any_number_of_threads() {
    for (rel, bytes) in common::samples() {
        let one = both(&bytes, 1);
        for threads in [2, 3] {
            let many = both(&bytes, threads);
            assert!(
                one.0 == many.0,
                "{rel}: --json differs on {threads} threads"
            );
            assert!(
                one.1 == many.1,
                "{rel}: --tree differs on {threads} threads"
            );
            assert_eq!(
                one.2, many.2,
                "{rel}: diagnostics differ on {threads} threads"
            );
        }
    }
}

#[test]
fn damaged_samples_too() {
    for (rel, bytes) in common::samples().into_iter().take(12) {
        let mut m = bytes.clone();
        let n = m.len();
        for k in 1..6 {
            let at = n * k / 7;
            m[at] ^= 0xff;
        }
        let one = both(&m, 1);
        let many = both(&m, 2);
        assert!(one.0 == many.0, "{rel} (damaged): --json differs");
        assert!(one.1 == many.1, "{rel} (damaged): --tree differs");
        assert_eq!(one.2, many.2, "{rel} (damaged): diagnostics differ");
    }
}

/// A line program of some 900,000 opcodes, large enough that the walk
/// opens it and hands its groups to its workers: the same output on any
/// number of threads.
#[test]
fn a_large_line_program_is_written_the_same_on_any_number_of_threads() {
    if !common::tool("clang-22") {
        return;
    }
    let dir = common::scratch();
    let mut src = String::new();
    for i in 0..30_000 {
        src.push_str(&format!(
            "int f{i}(int x) {{\n  int y = x * {i};\n  y += 3;\n  if (y > 7)\n    y -= 2;\n  return y;\n}}\n"
        ));
    }
    let c = dir.path().join("big.c");
    let o = dir.path().join("big.o");
    std::fs::write(&c, src).unwrap();
    let st = std::process::Command::new("clang-22")
        .args(["-g", "-O0", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .status()
        .expect("clang-22 runs");
    assert!(st.success(), "clang-22 -g -O0 -c big.c");
    let bytes = std::fs::read(&o).unwrap();
    let one = both(&bytes, 1);
    assert!(
        one.1.windows(b"program".len()).any(|w| w == b"program"),
        "a line program is listed"
    );
    for threads in [2, 3] {
        let many = both(&bytes, threads);
        assert!(one.0 == many.0, "--json differs on {threads} threads");
        assert!(one.1 == many.1, "--tree differs on {threads} threads");
        assert_eq!(one.2, many.2, "diagnostics differ on {threads} threads");
    }
}
