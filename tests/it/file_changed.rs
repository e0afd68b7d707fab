//! The file changing under fwview: a mapped file (over 16 MiB) truncated
//! while open must not kill the process with SIGBUS. Reads past the new end
//! give zeros, and that source's `file_changed()` says so (and the
//! process-wide `guard::file_changed()`). Files up to 16 MiB are copied, so
//! truncating them changes nothing that fwview sees.
//!
//! Everything that looks at the process-wide `file_changed()` flag is in
//! one test, in order, run in a child process of its own. SIGBUS that is
//! not ours (outside our maps, or sent by a process) must reach whatever
//! handled SIGBUS before fwview's guard: that is tested in child processes,
//! each with its own handlers.

use crate::common;

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fwview::guard;
use fwview::model::Source;

/// Files above this are mapped (`model::source::COPY_LIMIT`).
const COPY_LIMIT: u64 = 16 << 20;
const BIG: u64 = COPY_LIMIT + (1 << 20) + 123;
const PAGE: usize = 4096;

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

/// The process-wide flag is set here and the guard's slots are all taken,
/// so this runs in a child process of its own ([`sigbus_child`]): the tests
/// beside it in this binary never see the flag set nor the slots full.
#[test]
fn a_mapped_file_truncated_under_us_reads_as_zeros() {
    let out = child("truncated");
    assert!(out.status.success());
    assert!(said(&out, "truncated files read as zeros"));
}

/// [`a_mapped_file_truncated_under_us_reads_as_zeros`], in the child.
fn truncated_files_read_as_zeros(dir: &Path) {
    // 1. Truncated to nothing.
    let p = filled(dir, "big", BIG);
    let src = Source::open(&p).unwrap();
    assert!(src.is_mapped(), "a file over 16 MiB is mapped");
    let b = src.bytes();
    assert_eq!(b.len() as u64, BIG);
    assert_eq!(b[b.len() - 1], 0xa5);
    assert_eq!(b[0], 0xa5);
    assert!(!guard::file_changed(), "nothing changed yet");
    assert!(!src.file_changed());
    // A second map of another file, left alone.
    let other = filled(dir, "other", BIG);
    let other = Source::open(&other).unwrap();
    assert!(other.is_mapped());
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
    assert!(src.file_changed(), "for this source");
    assert_eq!(other.bytes()[b.len() - 1], 0xa5, "the other file is intact");
    assert!(!other.file_changed(), "and its source did not change");
    drop(other);
    // Every page, as a full walk of the bytes would touch them.
    let sum: u64 = b.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(sum, 0);
    drop(src);

    // 2. Truncated to half while a tree is open on it: the walk and the
    // JSON export go on, the bytes before the cut are intact.
    let p = filled(dir, "half", BIG);
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
    let p = filled(dir, "extract", BIG);
    let src = Arc::new(Source::open(&p).unwrap());
    let mut tree = fwview::formats::build_tree(src.clone(), "extract");
    truncate(&p, 3 * PAGE as u64 + 5);
    let out = dir.join("out.bin");
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
        let p = dir.join(format!("sparse{i}"));
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
    let dir = common::scratch();
    let p = filled(dir.path(), "small", 1 << 20);
    let src = Source::open(&p).unwrap();
    assert!(!src.is_mapped());
    truncate(&p, 0);
    assert_eq!(src.bytes().len(), 1 << 20);
    assert!(src.bytes().iter().all(|&x| x == 0xa5));
}

// ------------------------------------------------ SIGBUS that is not ours

/// The child processes' test: does nothing unless `GUARD_CHILD` names a case.
const GUARD_CHILD: &str = "FWVIEW_GUARD_CHILD";

/// Runs this test binary again, for [`sigbus_child`] alone, in `case`.
fn child(case: &str) -> std::process::Output {
    // The harness names a test by its path below the crate.
    let test = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::sigbus_child"),
        None => "sigbus_child".to_owned(),
    };
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &test, "--nocapture", "--test-threads=1"])
        .env(GUARD_CHILD, case)
        .output()
        .unwrap();
    eprintln!(
        "child {case}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn said(out: &std::process::Output, what: &str) -> bool {
    String::from_utf8_lossy(&out.stdout).contains(what)
}

/// How often the handler installed before fwview's ran.
static PREVIOUS_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A handler of the SA_SIGINFO form, as another library might install: it
/// counts, and maps a zero page where the fault was so the read goes on.
extern "C" fn previous_siginfo(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    PREVIOUS_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    // SAFETY: a valid siginfo for a fault; mmap is async-signal-safe.
    unsafe {
        let at = (*info).si_addr() as usize & !(PAGE - 1);
        libc::mmap(
            at as *mut libc::c_void,
            PAGE,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
            -1,
            0,
        );
    }
}

/// A plain handler: says so and ends the process with status 43.
extern "C" fn previous_plain(_: libc::c_int) {
    let msg = b"plain handler ran\n";
    // SAFETY: write and _exit are async-signal-safe.
    unsafe {
        libc::write(1, msg.as_ptr().cast(), msg.len());
        libc::_exit(43);
    }
}

fn set_action(handler: usize, siginfo: bool) {
    // SAFETY: a plain sigaction for SIGBUS.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler;
        sa.sa_flags = if siginfo { libc::SA_SIGINFO } else { 0 };
        libc::sigemptyset(&mut sa.sa_mask);
        assert_eq!(libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut()), 0);
    }
}

/// Reads a page of a file mapped here, not through fwview, after the file
/// was cut to nothing: a SIGBUS outside fwview's maps.
fn foreign_fault(dir: &Path) -> u8 {
    let p = filled(dir, "foreign", 2 * PAGE as u64);
    let f = std::fs::File::open(&p).unwrap();
    // SAFETY: a read-only shared map of a file we own; the fault it takes
    // after the truncation is the point of the test.
    let m = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            2 * PAGE,
            libc::PROT_READ,
            libc::MAP_SHARED,
            std::os::fd::AsRawFd::as_raw_fd(&f),
            0,
        )
    };
    assert_ne!(m, libc::MAP_FAILED);
    truncate(&p, 0);
    // SAFETY: inside the map; the read faults.
    unsafe { std::ptr::read_volatile(m.cast::<u8>().add(PAGE + 1)) }
}

/// Opens a mapped file through fwview (installing its handler after the
/// one the case set), so that its guard is in place.
fn guarded(dir: &Path) -> (PathBuf, Source) {
    let p = filled(dir, "ours", BIG);
    let s = Source::open(&p).unwrap();
    assert!(s.is_mapped());
    (p, s)
}

/// Our own map still reads zeros after the cut, and says so.
fn ours_still_guarded(p: &Path, s: &Source) {
    truncate(p, 0);
    assert_eq!(std::hint::black_box(s.bytes()[BIG as usize - 1]), 0);
    assert!(s.file_changed());
}

#[test]
fn sigbus_child() {
    let Ok(case) = std::env::var(GUARD_CHILD) else {
        return;
    };
    // The cases that end in the default action would leave a core file.
    // SAFETY: setrlimit with a valid struct.
    unsafe {
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
    }
    let dir = common::scratch();
    use std::sync::atomic::Ordering::SeqCst;
    match case.as_str() {
        "truncated" => {
            truncated_files_read_as_zeros(dir.path());
            println!("truncated files read as zeros");
        }
        "siginfo" => {
            set_action(previous_siginfo as *const () as usize, true);
            let (p, s) = guarded(dir.path());
            assert_eq!(foreign_fault(dir.path()), 0);
            assert_eq!(PREVIOUS_CALLS.load(SeqCst), 1, "the previous handler ran");
            assert!(!s.file_changed(), "not our file");
            // Chaining left fwview's handler in place.
            ours_still_guarded(&p, &s);
            assert_eq!(PREVIOUS_CALLS.load(SeqCst), 1, "ours was not passed on");
            println!("siginfo handler chained");
        }
        "plain" => {
            set_action(previous_plain as *const () as usize, false);
            let (p, s) = guarded(dir.path());
            ours_still_guarded(&p, &s);
            foreign_fault(dir.path());
            println!("survived a fault that was not ours");
        }
        "runtime" => {
            // Whatever the Rust runtime put in place (its stack overflow
            // handler, which restores the default action).
            let (_p, _s) = guarded(dir.path());
            foreign_fault(dir.path());
            println!("survived a fault that was not ours");
        }
        "default" => {
            set_action(libc::SIG_DFL, false);
            let (_p, _s) = guarded(dir.path());
            foreign_fault(dir.path());
            println!("survived a fault that was not ours");
        }
        "sent" => {
            set_action(libc::SIG_DFL, false);
            let (_p, _s) = guarded(dir.path());
            // SAFETY: raising a signal has no preconditions.
            unsafe { libc::raise(libc::SIGBUS) };
            println!("survived a SIGBUS sent while the default action was in place");
        }
        "sent-ignored" => {
            set_action(libc::SIG_IGN, false);
            let (p, s) = guarded(dir.path());
            // SAFETY: as above.
            unsafe { libc::raise(libc::SIGBUS) };
            ours_still_guarded(&p, &s);
            println!("ignored as before");
        }
        other => panic!("no case {other}"),
    }
}

#[test]
fn a_fault_outside_our_maps_reaches_the_previous_siginfo_handler() {
    let out = child("siginfo");
    assert!(out.status.success());
    assert!(said(&out, "siginfo handler chained"));
}

#[test]
fn a_fault_outside_our_maps_reaches_the_previous_plain_handler() {
    let out = child("plain");
    assert_eq!(out.status.code(), Some(43));
    assert!(said(&out, "plain handler ran"));
    assert!(!said(&out, "survived"));
}

#[test]
fn a_fault_outside_our_maps_reaches_the_runtime_handler() {
    use std::os::unix::process::ExitStatusExt;
    let out = child("runtime");
    assert_eq!(out.status.signal(), Some(libc::SIGBUS));
    assert!(!said(&out, "survived"));
}

#[test]
fn a_fault_outside_our_maps_gets_the_default_action() {
    use std::os::unix::process::ExitStatusExt;
    let out = child("default");
    assert_eq!(out.status.signal(), Some(libc::SIGBUS));
    assert!(!said(&out, "survived"));
}

#[test]
fn a_sigbus_sent_gets_the_default_action() {
    use std::os::unix::process::ExitStatusExt;
    let out = child("sent");
    assert_eq!(out.status.signal(), Some(libc::SIGBUS));
    assert!(!said(&out, "survived"));
}

#[test]
fn a_sigbus_sent_stays_ignored_if_it_was() {
    let out = child("sent-ignored");
    assert!(out.status.success());
    assert!(said(&out, "ignored as before"));
}
