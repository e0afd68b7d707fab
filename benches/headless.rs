//! Headless output on an ELF object with 1,000,000 symbols (`sym_0000000`
//! … `sym_0999999`, assembled by `as`): `--tree` and `--json` written to
//! `io::sink`, and the `n:` node search for the last symbol. Skipped with a
//! message where `as` is missing. `scripts/compare.sh` times the same
//! object against readelf and llvm-readelf.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{object, open};
use criterion::Criterion;

fn main() {
    let Some(obj) = object(false) else {
        eprintln!("headless bench skipped: `as` (binutils) is not installed");
        return;
    };
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .warm_up_time(Duration::from_secs(1));
    c.bench_function("--tree, 1,000,000 symbols", |b| {
        b.iter(|| {
            let mut t = open(&obj);
            fwview::export::text_tree(&mut t, &mut std::io::sink()).expect("write");
            black_box(t.len())
        })
    });
    c.bench_function("--json, 1,000,000 symbols", |b| {
        b.iter(|| {
            let mut t = open(&obj);
            fwview::export::json(&mut t, "bench", &mut std::io::sink()).expect("write");
            black_box(t.len())
        })
    });
    c.bench_function("n:sym_0999999, 1,000,000 symbols", |b| {
        b.iter(|| {
            let mut t = open(&obj);
            let (found, complete) = fwview::search::find_nodes(&mut t, "sym_0999999", false);
            assert!(complete && !found.is_empty(), "sym_0999999 not found");
            black_box(found.len())
        })
    });
    c.final_summary();
}
