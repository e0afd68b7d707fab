//! Search speed, as docs/benchmarks.md reports it:
//! - a literal byte search over a 1 GiB file in the page cache (compare with
//!   `rg -c -F -a` on the same file: this prints the command and its time);
//! - next-match on a file with 1,000,000 matches.

use std::hint::black_box;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use fwview::model::Source;
use fwview::search::{find_bytes, Pattern};
use fwview::tui::{handle_event, App};

const GIB: usize = 1 << 30;

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 1 GiB of varied bytes (so the search cannot skip along one byte
    // value) with the needle at a few places.
    let path = dir.path().join("1g.bin");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut block = vec![0u8; 1 << 20];
        for i in 0..(GIB >> 20) {
            for b in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = (x >> 24) as u8;
            }
            if i % 256 == 7 {
                block[1000..1012].copy_from_slice(b"fwview-vadd!");
            }
            f.write_all(&block).expect("write");
        }
    }
    let src = Source::open(&path).expect("open");
    let data = src.bytes();
    // Read it once so that it is in the page cache.
    black_box(data.iter().step_by(4096).map(|&b| b as u64).sum::<u64>());

    let Ok(Pattern::Bytes { bytes, fold }) = Pattern::parse("fwview-vadd!", true) else {
        panic!("pattern")
    };
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    let mut g = c.benchmark_group("search");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("literal, 1 GiB in the page cache", |b| {
        b.iter(|| {
            black_box(find_bytes(
                &bytes,
                fold,
                data,
                &AtomicBool::new(false),
                &mut |_| {},
            ))
        })
    });
    let Ok(Pattern::Bytes { bytes: wild, .. }) = Pattern::parse("x:66 77 ?? 69 65 77", true) else {
        panic!("pattern")
    };
    g.bench_function("hex with a wildcard, 1 GiB in the page cache", |b| {
        b.iter(|| {
            black_box(find_bytes(
                &wild,
                false,
                data,
                &AtomicBool::new(false),
                &mut |_| {},
            ))
        })
    });
    g.finish();

    // The same file through ripgrep, where it is installed.
    let t = Instant::now();
    match std::process::Command::new("rg")
        .args(["-c", "-F", "-a", "fwview-vadd!"])
        .arg(&path)
        .output()
    {
        Ok(o) if o.status.success() => {
            let s = t.elapsed().as_secs_f64();
            println!(
                "rg -c -F -a fwview-vadd! (1 GiB): {:.3} s, {:.2} GB/s, count {}",
                s,
                GIB as f64 / s / 1e9,
                String::from_utf8_lossy(&o.stdout).trim()
            );
        }
        _ => println!("rg not installed: no comparison"),
    }

    // Next match with 1,000,000 matches: one every 16 bytes of a 16 MB file.
    let n = 1_000_000usize;
    let mut v = vec![0u8; n * 16];
    for i in 0..n {
        v[i * 16..i * 16 + 4].copy_from_slice(b"HIT!");
    }
    let tree = fwview::formats::build_tree(Arc::new(Source::from_vec(v)), "hits");
    let mut app = App::new(tree, "hits");
    app.start_search("HIT!");
    assert_eq!(app.search.as_ref().map(|s| s.matches.len()), Some(n));
    let key = |app: &mut App, c: char| {
        handle_event(
            app,
            Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        )
    };
    c.bench_function("next match, 1,000,000 matches", |b| {
        b.iter(|| key(&mut app, 'n'))
    });
    c.bench_function("previous match, 1,000,000 matches", |b| {
        b.iter(|| key(&mut app, 'N'))
    });
    c.final_summary();
}
