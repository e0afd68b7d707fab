//! The format-neutral model: a tree of nodes, each owning an absolute byte
//! range of the file, with lazily built children and diagnostics.
//!
//! Formats fill the tree through [`Builder`]; the UI and the exporters read it
//! through [`Tree`]. Neither side knows anything of the other.

// File data never panics: every read is checked and every problem is a
// diagnostic. Unit tests may unwrap.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod address;
mod builder;
pub mod demangle;
pub mod facts;
pub mod fields;
pub mod format;
pub mod links;
pub mod read;
pub mod record;
mod source;
pub mod space;
pub mod text;
mod tree;
pub mod value;

pub use address::printed_address;
pub use builder::{group_size, Builder, ElemFn, Gap, LazyFn, Seq, Step, GAP_NAMES, GROUP};
pub use facts::{Configures, Fact, Facts, Held};
pub use fields::{read_uint, sign_extend, Fields};
pub use format::{Format, RAW};
pub use read::Endian;
pub use source::Source;
pub use space::{Space, SpaceId, FILE};
pub use tree::{Link, Node, NodeId, Tree};
pub use value::{Numbers, Radix, Raw, SourceLine, Value};

/// What a reader asks the formats to show beyond the structure of a file.
/// A tree holds its options from the start; every builder hands them to
/// the formats ([`Builder::options`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Machine code as instructions: executable sections and their
    /// functions open into one node per instruction.
    pub code: bool,
    /// The names of the arguments of the kernel a control program runs
    /// for, by argument index, when the file is paired with the binary
    /// that declares that kernel (an NPU transaction with its xclbin).
    /// Kept for the life of the process ([`Options::leak_arg_names`]), so
    /// that options stay `Copy`.
    pub arg_names: Option<&'static [(u64, &'static str)]>,
    /// The tree is read only for the formats nested in it (the device
    /// images `--targets` and a folder's list look for), never shown: the
    /// parsers skip their own records, which cannot hold another format
    /// (symbol, string and relocation tables, debug information,
    /// instructions; see [`Builder::skips_records`]), so a scan builds a
    /// few nodes a file and reads few of its pages. What is nested, and
    /// where, is the same as in a full read.
    pub nested_only: bool,
}

impl Options {
    /// These options with `names` as the argument names, kept for the
    /// life of the process; none when `names` is empty.
    pub fn leak_arg_names(self, names: Vec<(u64, String)>) -> Options {
        if names.is_empty() {
            return Options {
                arg_names: None,
                ..self
            };
        }
        let v: Vec<(u64, &'static str)> = names
            .into_iter()
            .map(|(i, n)| (i, &*Box::leak(n.into_boxed_str())))
            .collect();
        Options {
            arg_names: Some(Box::leak(v.into_boxed_slice())),
            ..self
        }
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A problem found in the file, anchored at the bytes that show it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The byte space `offset` is in (0: the file).
    pub space: SpaceId,
    pub offset: u64,
    pub size: u64,
    pub message: String,
}

/// A number as the tree shows it: small values in decimal, larger ones in
/// decimal with their hex beside.
pub fn num(v: u64) -> Value {
    Value::uint(v)
}

/// `value (NAME)`, or `value (unknown)` when no name is known.
pub fn named(v: u64, name: Option<&str>) -> Value {
    Value::named(v, name)
}

/// The `width` bits of `v` from bit `lo` up, shifted down (a bit field).
pub fn bits(v: u64, lo: u32, width: u32) -> u64 {
    let v = v.checked_shr(lo).unwrap_or(0);
    match 1u64.checked_shl(width) {
        Some(m) => v & (m - 1),
        None => v,
    }
}

/// `v` rounded up to a multiple of `a` (`a` of 0 or 1: `v`); `None` past
/// `u64::MAX`.
pub fn align_up(v: u64, a: u64) -> Option<u64> {
    if a <= 1 {
        return Some(v);
    }
    v.checked_add(a - 1).map(|x| x / a * a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_fields() {
        assert_eq!(bits(0x0027_0700, 8, 5), 7);
        assert_eq!(bits(0x0027_0700, 21, 3), 1);
        assert_eq!(bits(u64::MAX, 60, 8), 0xf);
        assert_eq!(bits(u64::MAX, 0, 64), u64::MAX);
        assert_eq!(bits(1, 64, 1), 0);
    }
}
