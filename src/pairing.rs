//! Files read together: an NPU transaction or instruction sequence with
//! the xclbin whose kernel it runs, for the names of the kernel arguments
//! its `DDR_PATCH` ops refer to by index.
//!
//! The xclbin is the one given (`--xclbin FILE`), or else, beside the
//! file, the `.xclbin` with the same stem, or else the only `.xclbin` in
//! that folder.

use std::path::{Path, PathBuf};

use crate::formats::{self, xclbin};
use crate::model::{Format, Options};

/// The largest xclbin read for its kernel arguments.
const MAX_XCLBIN: u64 = 1 << 30;

/// `options` with the argument names of the xclbin paired with the file at
/// `path` whose bytes are `data`; the xclbin used, if any.
pub fn with_xclbin(
    path: &Path,
    data: &[u8],
    given: Option<&Path>,
    options: Options,
) -> (Options, Option<PathBuf>) {
    let x = match given {
        Some(g) => Some(g.to_path_buf()),
        None if path.as_os_str() != "-" && is_control_code(data) => sibling(path),
        None => None,
    };
    let Some(x) = x else {
        return (options, None);
    };
    let names = match std::fs::metadata(&x) {
        Ok(m) if m.len() <= MAX_XCLBIN => std::fs::read(&x)
            .map(|d| xclbin::kernels::dpu_kernel_args(&d))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    (options.leak_arg_names(names), Some(x))
}

/// True for a transaction or an instruction sequence.
fn is_control_code(data: &[u8]) -> bool {
    matches!(
        formats::detect(data),
        Some(Format::NpuTransaction | Format::IpuSequence)
    )
}

/// The `.xclbin` beside `path` with its stem, or the only one there.
fn sibling(path: &Path) -> Option<PathBuf> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let same = path.with_extension("xclbin");
    if same != path && same.is_file() {
        return Some(same);
    }
    let mut found = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "xclbin") && p.is_file());
    let one = found.next()?;
    found.next().is_none().then_some(one)
}
