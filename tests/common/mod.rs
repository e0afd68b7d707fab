//! Shared by the hostile-input tests: writers for small files of each
//! format, a runner that gives each case its own thread and a time bound,
//! and the check of the JSON contract.
#![allow(dead_code)]

pub mod build;
pub mod contract;
pub mod runner;

use std::path::PathBuf;

/// Every sample in `assets/`, sorted, as (path relative to assets/, bytes).
pub fn samples() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
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

/// True if `tool` runs (`tool --version` exits at all).
pub fn have(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}
