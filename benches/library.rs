//! A real library with a large fat binary: Debian's librocsparse.so.0.1
//! (1.3 GB, 111 clang offload bundles, 777 AMDGPU code objects), fetched by
//! `scripts/rocm-library.sh`. Measures open + first frame of the explorer
//! and `--targets` (every device image found). Prints a note and measures
//! nothing where the library cannot be had.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use criterion::Criterion;
use fwview::formats;
use fwview::model::Source;
use fwview::tui::{ui, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn library() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FWVIEW_BENCH_LIBRARY") {
        return Some(PathBuf::from(p));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("sh")
        .arg(root.join("scripts/rocm-library.sh"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| root.join(String::from_utf8_lossy(&out.stdout).trim()))
}

fn main() {
    let Some(lib) = library() else {
        println!("librocsparse could not be fetched (scripts/rocm-library.sh); nothing measured");
        return;
    };
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    let mut t = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
    c.bench_function("open + first frame, 1.3 GB ROCm library", |b| {
        b.iter(|| {
            let src = Arc::new(Source::open(&lib).expect("open"));
            let tree = formats::build_tree(src, "librocsparse.so.0.1");
            let mut app = App::new(tree, "librocsparse.so.0.1");
            t.draw(|f| ui::render(&mut app, f)).expect("draw");
            black_box(app)
        })
    });
    c.bench_function("--targets, 1.3 GB ROCm library (777 images)", |b| {
        b.iter(|| {
            let src = Arc::new(Source::open(&lib).expect("open"));
            let mut tree = formats::build_tree(src, "librocsparse.so.0.1");
            let n = fwview::targets::find(&mut tree).len();
            assert_eq!(n, 777);
            black_box(n)
        })
    });
    c.final_summary();
}
