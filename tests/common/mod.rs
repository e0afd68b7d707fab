//! Shared by the tests: writers for small files of each format, a runner
//! that gives each case its own thread and a time bound, the check of the
//! JSON contract, and the one question every comparison with a reference
//! tool asks first ([`tool`]).
#![allow(dead_code)]

pub mod build;
pub mod contract;
pub mod diffs;
pub mod json;
pub mod runner;
pub mod tmux;
pub mod tree;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

/// The repository's `assets/` directory.
pub fn assets() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// The sample at `rel` under `assets/`.
pub fn asset(rel: &str) -> PathBuf {
    assets().join(rel)
}

/// A directory of its own under the target directory, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a scratch directory")
}

/// The samples with extension `ext` in `assets/DIR`, sorted.
pub fn samples_in(dir: &str, ext: &str) -> Vec<PathBuf> {
    let v = files_in(&asset(dir));
    assert!(!v.is_empty(), "the sample directory {dir}");
    v.into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect()
}

/// The entries of `dir`, sorted; none if it cannot be read.
pub fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Runs fwview with `args`; a run that takes longer than `limit` fails the
/// test (a hang is a bug).
pub fn fwview_within(args: &[&OsStr], limit: Duration) -> Output {
    let t0 = Instant::now();
    let out = assert_cmd::Command::cargo_bin("fwview")
        .expect("the fwview binary")
        .args(args)
        .timeout(limit)
        .output()
        .expect("fwview runs");
    assert!(
        t0.elapsed() < limit,
        "fwview {args:?} did not finish within {limit:?}"
    );
    out
}

/// Runs fwview with `args`, within a minute.
pub fn fwview(args: &[&OsStr]) -> Output {
    fwview_within(args, Duration::from_secs(60))
}

/// Every sample file in `assets/` (the provenance notes aside), sorted.
pub fn sample_paths() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![assets()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("assets/ is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_none_or(|x| x != "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Every sample in `assets/`, sorted, as (path relative to assets/, bytes).
pub fn samples() -> Vec<(String, Vec<u8>)> {
    let root = assets();
    sample_paths()
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under assets/")
                .display()
                .to_string();
            let bytes = std::fs::read(&p).expect("a readable sample");
            (rel, bytes)
        })
        .collect()
}

/// True when the tests run as root, for whom file permissions do not apply.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The environment variable that turns a missing reference tool from a
/// skip into a failure. CI sets it to 1.
pub const REQUIRE_TOOLS: &str = "FWVIEW_REQUIRE_TOOLS";

/// Whether the reference tool `name` runs. When it does not, prints
/// `skipped: NAME not installed` and returns false so the test can skip the
/// comparison, or fails the test if `FWVIEW_REQUIRE_TOOLS=1`.
///
/// Every test that compares fwview with another program asks here first.
pub fn tool(name: &str) -> bool {
    present(name, runs(name))
}

/// As [`tool`], for something that is not a program (a package's headers,
/// say): `found` says whether it is there.
pub fn present(name: &str, found: bool) -> bool {
    if found {
        return true;
    }
    if tools_required() {
        panic!("{name} not installed, and {REQUIRE_TOOLS}=1 asks for every reference tool");
    }
    eprintln!("skipped: {name} not installed");
    false
}

/// Whether `FWVIEW_REQUIRE_TOOLS=1`: every reference tool must be there.
pub fn tools_required() -> bool {
    std::env::var_os(REQUIRE_TOOLS).is_some_and(|v| v == "1")
}

/// Whether `name` runs at all (`name --version` starts), without saying
/// anything: for choosing among tools that would serve equally.
pub fn runs(name: &str) -> bool {
    use std::collections::HashMap;
    use std::process::{Command, Stdio};
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(&r) = seen.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
        return r;
    }
    // Some tools (tmux, ocloc) do not know --version and exit non-zero;
    // what matters is that the program is there and starts.
    let r = Command::new(name)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string(), r);
    r
}

/// The ELF images inside the XE samples of `assets/xmos` (sector type 2),
/// as (`PATH#k`, bytes), read the way the XE format lays them out: a
/// 12-byte sector header, a padding count, the image after a 12-byte
/// sub-header, then the padding and a 4-byte CRC.
pub fn xe_tile_elfs() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for p in samples_in("xmos", "xe") {
        let d = std::fs::read(&p).expect("a readable sample");
        let mut o = 8usize;
        let mut k = 0;
        while o + 12 <= d.len() {
            let t = u16::from_le_bytes([d[o], d[o + 1]]);
            let sz = u64::from_le_bytes(d[o + 4..o + 12].try_into().expect("8 bytes")) as usize;
            if t == 0x5555 {
                break;
            }
            if t == 2 {
                let c = o + 12;
                let pad = d[c] as usize;
                let data = &d[c + 4..c + sz - 4];
                let data = &data[..data.len() - pad];
                out.push((format!("{}#{k}", p.display()), data[12..].to_vec()));
                k += 1;
            }
            o += 12 + sz;
        }
    }
    out
}

/// Asserts that the generated file `file` is what `python3 script --check`
/// would write (both paths relative to the crate).
pub fn generated_is_current(script: &str, file: &str) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(script);
    // -B: no __pycache__ beside the scripts.
    let out = std::process::Command::new("python3")
        .arg("-B")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{file} is not what {} writes: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
