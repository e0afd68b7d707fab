//! Format detection and dispatch. Each format is one module that turns
//! bytes into nodes through [`crate::model::Builder`] and knows nothing of
//! the UI.

pub mod ar;
pub mod cdo;
pub mod devimg;
pub mod elf;
pub mod json;
pub mod offload;
pub mod pdi;
pub mod spirv;
pub mod xclbin;
pub mod xe;
pub mod xml;
pub mod zebin;

use std::sync::Arc;

use crate::model::{Builder, NodeId, Source, Tree};

/// The formats fwview recognises, in the order they are tried.
pub const FORMATS: &[&str] = &["xclbin", "xe", "elf", "zebin", "offload", "ar", "pdi"];

/// The name of the format whose magic `d` starts with, if any.
pub fn detect(d: &[u8]) -> Option<&'static str> {
    if xclbin::detect(d) {
        Some("xclbin")
    } else if xe::detect(d) {
        Some("xe")
    } else if elf::detect(d) {
        Some(if elf::is_zebin(d) { "zebin" } else { "elf" })
    } else if offload::detect(d) {
        Some("offload")
    } else if ar::detect(d) {
        Some("ar")
    } else if pdi::detect(d) {
        Some("pdi")
    } else {
        None
    }
}

/// What the machine of an ELF file adds to the generic ELF reader (its
/// section, note and relocation types, its sections' contents), found by
/// e_machine and EI_OSABI.
pub fn elf_vendor(machine: u16, _osabi: u8) -> Option<&'static dyn elf::Vendor> {
    match machine {
        elf::EM_INTELGT => Some(&zebin::INTEL_GT),
        _ => None,
    }
}

/// Detects the format of `[off, off+len)` and parses it under `parent`.
pub fn dispatch(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) -> Option<&'static str> {
    let f = detect(b.slice(off, len))?;
    match f {
        "xclbin" => xclbin::parse(b, parent, off, len),
        "xe" => xe::parse(b, parent, off, len),
        "elf" | "zebin" => elf::parse(b, parent, off, len),
        "offload" => offload::parse(b, parent, off, len),
        "ar" => ar::parse(b, parent, off, len),
        "pdi" => pdi::parse(b, parent, off, len),
        _ => return None,
    }
    Some(f)
}

/// Parses a whole file.
pub fn build_tree(src: Arc<Source>, name: &str) -> Tree {
    Tree::build(src, name, dispatch)
}

/// Parses bytes in memory (tests, fuzzing, benchmarks).
pub fn build_from_bytes(bytes: Vec<u8>) -> Tree {
    build_tree(Arc::new(Source::from_vec(bytes)), "input")
}
