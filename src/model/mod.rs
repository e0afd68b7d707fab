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
mod arena;
mod builder;
pub mod demangle;
mod diagnostic;
pub mod facts;
pub mod fields;
pub mod format;
pub mod links;
mod options;
pub mod read;
pub mod record;
mod source;
pub mod space;
pub mod text;
mod tree;
pub mod value;

pub use address::printed_address;
pub use arena::{Builder, ElemFn, Gap, LazyFn, Node, NodeId};
pub use builder::{group_size, Seq, Step, GAP_NAMES, GROUP};
pub use diagnostic::{Diagnostic, Severity};
pub use facts::{Configures, Fact, Facts, Held};
pub use fields::{read_uint, sign_extend, Fields};
pub use format::{Format, RAW};
pub use options::Options;
pub use read::Endian;
pub use source::Source;
pub use space::{Space, SpaceId, Span, FILE};
pub use tree::Tree;
pub use value::{Numbers, Radix, Raw, SourceLine, Value};

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
