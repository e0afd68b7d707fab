//! Headless output on an ELF object with 1,000,000 symbols (`sym_0000000`
//! … `sym_0999999`, assembled by `as`): `--tree` and `--json` written to
//! `io::sink`, and the `n:` node search for the last symbol. Skipped with a
//! message where `as` is missing. `scripts/compare.sh` times the same
//! object against readelf and llvm-readelf.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use criterion::Criterion;
use fwview::formats;
use fwview::model::{Source, Tree};

const SYMBOLS: u32 = 1_000_000;

/// The object, assembled once and kept in the target directory.
fn object() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let obj = dir.join("headless-1m-symbols.o");
    if obj.exists() {
        return Some(obj);
    }
    let src = dir.join("headless-1m-symbols.s");
    let mut s = String::with_capacity(SYMBOLS as usize * 40);
    s.push_str(".text\n");
    for n in 0..SYMBOLS {
        s.push_str(&format!(".globl sym_{n:07}\nsym_{n:07}:\n"));
    }
    std::fs::write(&src, s).ok()?;
    let ok = Command::new("as")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&src);
    ok.then_some(obj)
}

fn open(path: &Path) -> Tree {
    let src = Arc::new(Source::open(path).expect("open"));
    formats::build_tree(src, "bench")
}

fn main() {
    let Some(obj) = object() else {
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
