//! Format detection and dispatch. Each format is one module that turns
//! bytes into nodes through [`crate::model::Builder`] and knows nothing of
//! the UI; [`registry`] is the one table of them.

// File data never panics: every read is checked and every problem is a
// diagnostic. Unit tests may unwrap.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod amdgpu;
pub mod ar;
pub mod bit;
pub mod bitcode;
pub mod bundle;
pub mod cdo;
pub mod compress;
pub mod elf;
pub mod fatbin;
pub mod hipwrap;
pub mod image;
pub mod intel_ip;
pub mod json;
pub mod ksy;
pub mod msgpack;
pub mod npu;
pub mod nvwrap;
pub mod offload;
pub mod offload_entries;
pub(crate) mod parts;
pub mod pdi;
pub mod ptx;
pub mod registry;
pub mod spirv;
pub mod xclbin;
pub mod xe;
pub mod xml;
pub mod yaml;
pub mod zebin;

use std::sync::Arc;

use crate::model::{Options, Source, Tree};

pub use crate::model::Format;
pub use ksy::describe;
pub use registry::{dispatch, Place};

/// The format a file starting with `d` is, if any.
pub fn detect(d: &[u8]) -> Option<Format> {
    registry::detect(d, Place::Top)
}

/// Parses a whole file.
pub fn build_tree(src: Arc<Source>, name: &str) -> Tree {
    Tree::build(src, name, dispatch)
}

/// Parses a whole file with `options`.
pub fn build_tree_with(src: Arc<Source>, name: &str, options: Options) -> Tree {
    Tree::build_with(src, name, dispatch, options)
}

/// Parses bytes in memory (tests, fuzzing, benchmarks).
pub fn build_from_bytes(bytes: Vec<u8>) -> Tree {
    build_tree(Arc::new(Source::from_vec(bytes)), "input")
}
