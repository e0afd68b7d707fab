//! The file changing under fwview: a mapped file (over 16 MiB) truncated
//! while open must not kill the process with SIGBUS. Reads past the new end
//! give zeros and `guard::file_changed()` says so. Files up to 16 MiB are
//! copied, so truncating them changes nothing that fwview sees.
//!
//! Everything that looks at the process-wide `file_changed()` flag is in
//! one test, in order.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fwview::guard;
use fwview::model::Source;

/// Files above this are mapped (`model::source::COPY_LIMIT`).
const COPY_LIMIT: u64 = 16 << 20;
const BIG: u64 = COPY_LIMIT + (1 << 20) + 123;
const PAGE: usize = 4096;

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a scratch directory")
}

/// A file of `len` bytes, all 0xA5 (so that zeros show the truncation).
fn filled(dir: &Path, name: &str, len: u64) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, vec![0xa5u8; len as usize]).unwrap();
    p
}

fn truncate(p: &Path, len: u64) {
    OpenOptions::new()
        .write(true)
        .open(p)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn a_mapped_file_truncated_under_us_reads_as_zeros() {
    let dir = scratch();

    // 1. Truncated to nothing.
    let p = filled(dir.path(), "big", BIG);
    let src = Source::open(&p).unwrap();
    assert!(src.is_mapped(), "a file over 16 MiB is mapped");
    let b = src.bytes();
    assert_eq!(b.len() as u64, BIG);
    assert_eq!(b[b.len() - 1], 0xa5);
    assert_eq!(b[0], 0xa5);
    assert!(!guard::file_changed(), "nothing changed yet");
    truncate(&p, 0);
    // Past the new end: every one of these would be SIGBUS.
    for at in [0, 1, PAGE, 5 * PAGE + 7, (COPY_LIMIT as usize), b.len() - 1] {
        assert_eq!(
            std::hint::black_box(b[at]),
            0,
            "byte {at:#x} after truncation"
        );
    }
    assert!(guard::file_changed(), "the guard noticed");
    // Every page, as a full walk of the bytes would touch them.
    let sum: u64 = b.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(sum, 0);
    drop(src);

    // 2. Truncated to half while a tree is open on it: the walk and the
    // JSON export go on, the bytes before the cut are intact.
    let p = filled(dir.path(), "half", BIG);
    let src = Arc::new(Source::open(&p).unwrap());
    let mut tree = fwview::formats::build_tree(src.clone(), "half");
    let cut = (BIG / 2) as usize;
    truncate(&p, cut as u64);
    let b = src.bytes();
    assert_eq!(b[cut - 1], 0xa5, "before the cut");
    // The page holding the cut is still file-backed: zero after the end.
    let page_end = cut.next_multiple_of(PAGE);
    assert_eq!(b[page_end - 1], 0, "after the cut, same page");
    assert_eq!(b[page_end], 0, "the next page");
    assert_eq!(b[b.len() - 1], 0, "the last byte");
    let mut json = Vec::new();
    fwview::export::json(&mut tree, "half", &mut json).unwrap();
    assert!(!json.is_empty());

    // 3. Extracting from it after the cut: the bytes still there, then
    // zeros; not "Bad address" and not a short file.
    let p = filled(dir.path(), "extract", BIG);
    let src = Arc::new(Source::open(&p).unwrap());
    let mut tree = fwview::formats::build_tree(src.clone(), "extract");
    truncate(&p, 3 * PAGE as u64 + 5);
    let out = dir.path().join("out.bin");
    let n = fwview::export::extract(&mut tree, "", &out, false)
        .unwrap_or_else(|e| panic!("extract after truncation: {e}"));
    assert_eq!(n, BIG);
    let got = std::fs::read(&out).unwrap();
    assert_eq!(got.len() as u64, BIG);
    assert!(got[..3 * PAGE + 5].iter().all(|&x| x == 0xa5));
    assert!(got[3 * PAGE + 5..].iter().all(|&x| x == 0));

    // 4. More mapped files open at once than the guard has slots for: each
    // one must still be protected (or not mapped at all).
    drop((tree, src));
    let mut open = Vec::new();
    for i in 0..258 {
        // Sparse: no disk space, the holes read as zeros until truncated.
        let p = dir.path().join(format!("sparse{i}"));
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(BIG).unwrap();
        drop(f);
        let s = Source::open(&p).unwrap();
        open.push((p, s));
    }
    for (p, _) in &open {
        truncate(p, 0);
    }
    for (p, s) in &open {
        let b = s.bytes();
        assert_eq!(b.len() as u64, BIG);
        assert_eq!(std::hint::black_box(b[b.len() / 2]), 0, "{}", p.display());
    }
    // The files beyond the guard's slots were read, not mapped.
    assert!(open.iter().any(|(_, s)| s.is_mapped()));
    assert!(open.iter().any(|(_, s)| !s.is_mapped()));
}

/// A copied file does not change when the file does.
#[test]
fn a_copied_file_keeps_its_bytes() {
    let dir = scratch();
    let p = filled(dir.path(), "small", 1 << 20);
    let src = Source::open(&p).unwrap();
    assert!(!src.is_mapped());
    truncate(&p, 0);
    assert_eq!(src.bytes().len(), 1 << 20);
    assert!(src.bytes().iter().all(|&x| x == 0xa5));
}
