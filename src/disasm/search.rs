//! Where the engines' libraries are looked for on disk.

use std::path::{Path, PathBuf};

/// The files in `dir` whose names `wanted` takes, the plainest (shortest)
/// name first: where a library is looked for.
pub(super) fn libraries_in(dir: &Path, wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&wanted))
        .collect();
    v.sort_by_key(|p| p.as_os_str().len());
    v
}
