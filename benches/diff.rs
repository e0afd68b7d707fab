//! The structural diff against plain output: `--diff` of two ELF objects
//! of 1,000,000 symbols that differ in one symbol's name, next to `--tree`
//! of one of them; and the first frame of `fwview A B` on two 4 GiB sparse
//! files (the diff itself runs in the background and is not waited for).
//! Skipped with a message where `as` is missing.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{object, open};
use criterion::Criterion;
use fwview::tui::events::Screen;
use fwview::tui::sidebyside::Pair;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1));

    let dir = tempfile::tempdir().expect("tempdir");
    let (big_a, big_b) = (dir.path().join("a-4g.bin"), dir.path().join("b-4g.bin"));
    for p in [&big_a, &big_b] {
        std::fs::File::create(p)
            .and_then(|f| f.set_len(4 << 30))
            .expect("sparse file");
    }
    c.bench_function(
        "fwview A B: open + first frame, two 4 GiB sparse files",
        |b| {
            let mut t = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
            b.iter(|| {
                let mut app = Pair::new(open(&big_a), open(&big_b), ("a".into(), "b".into()));
                t.draw(|f| app.draw(f)).expect("draw");
                black_box(app.focused().selected)
            })
        },
    );

    let (Some(a), Some(b)) = (object(false), object(true)) else {
        eprintln!("diff bench on 1,000,000 symbols skipped: `as` (binutils) is not installed");
        c.final_summary();
        return;
    };
    c.bench_function("--tree, 1,000,000 symbols", |bch| {
        bch.iter(|| {
            let mut t = open(&a);
            fwview::export::text_tree(&mut t, &mut std::io::sink()).expect("write");
            black_box(t.len())
        })
    });
    c.bench_function("--diff, 1,000,000 symbols, one renamed", |bch| {
        bch.iter(|| {
            let (mut ta, mut tb) = (open(&a), open(&b));
            let counts = fwview::export::diff_text(
                &mut ta,
                &mut tb,
                Default::default(),
                &mut std::io::sink(),
            )
            .expect("write");
            assert!(!counts.is_empty());
            black_box(counts)
        })
    });
    c.final_summary();
}
