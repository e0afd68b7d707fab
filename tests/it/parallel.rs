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
