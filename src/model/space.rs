//! Byte spaces. Space 0 is the file; a derived space holds bytes that are
//! not in the file as they are (inflated, reassembled), made from a range of
//! another space. Nodes in a derived space have offsets in that space.

use std::sync::Arc;

use compact_str::CompactString;

use super::span::Span;

/// Index of a byte space in its tree; 0 is the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpaceId(pub u32);

impl SpaceId {
    /// The space's index in its tree's list of spaces.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The space at index `i` of a tree's list (which never holds more
    /// than `u32::MAX` spaces).
    pub fn at(i: usize) -> SpaceId {
        SpaceId(i as u32)
    }
}

impl SpaceId {
    /// Offset `off` of this space as `g` takes it, `y` `o` copies it and
    /// `--find` prints it: `0x1f0` in the file, `K:0x1f0` in byte space K.
    pub fn offset_text(self, off: u64) -> String {
        if self == FILE {
            format!("0x{off:x}")
        } else {
            format!("{self}:0x{off:x}")
        }
    }
}

impl std::fmt::Display for SpaceId {
    /// The number that addresses (`K:0x…`) and `--json` give a space by.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The file's own space.
pub const FILE: SpaceId = SpaceId(0);

/// The most bytes one derived space may hold.
pub const MAX_SPACE: u64 = 256 << 20;
/// The most bytes all derived spaces of a tree may hold together.
pub const MAX_DERIVED: u64 = 1 << 30;
/// How many times larger than its source a derived space may be (plus
/// [`RATIO_SLACK`] bytes for tiny sources).
pub const MAX_RATIO: u64 = 1024;
pub const RATIO_SLACK: u64 = 1 << 20;

/// Where a derived space came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    /// Its source bytes.
    pub from: Span,
    /// How the bytes were made: `zstd`, `zlib`, …
    pub method: &'static str,
}

/// The bytes of a derived space, shared by the builders and readers that
/// hold them. A `Vec` behind the `Arc`, so that the bytes a decoder made go
/// in as they are, not copied.
pub type SpaceBytes = Arc<Vec<u8>>;

/// One byte space.
pub struct Space {
    pub name: CompactString,
    /// None for the file.
    pub origin: Option<Origin>,
    pub(crate) bytes: Option<SpaceBytes>,
    /// The tree's node count when the space was made (see
    /// [`crate::model::Tree::drop_spaces_from`]).
    pub(crate) made_at: usize,
    /// `Some(size)` once the bytes were given back: the space keeps its
    /// number, and the next [`crate::model::Builder::derive`] of its origin
    /// makes the bytes again.
    pub(crate) dropped: Option<u64>,
}

impl Space {
    pub fn size(&self, file_len: u64) -> u64 {
        match (&self.bytes, self.dropped) {
            (_, Some(len)) => len,
            (Some(b), None) => b.len() as u64,
            (None, None) => file_len,
        }
    }

    /// Where the space came from, as people say it: "zstd, inflated from
    /// 0x1f00+0x640 of the file".
    pub fn describe(&self) -> String {
        match self.origin {
            None => "the file".to_string(),
            Some(o) => {
                let from = if o.from.space == FILE {
                    "the file".to_string()
                } else {
                    format!("space {}", o.from.space)
                };
                format!(
                    "{}: {}, made from 0x{:x}+0x{:x} of {from}",
                    self.name, o.method, o.from.offset, o.from.len
                )
            }
        }
    }
}

/// How many bytes a new space made from `source` bytes may hold, given
/// `used` bytes already held by derived spaces.
pub fn budget(source: u64, used: u64) -> u64 {
    MAX_SPACE
        .min(source.saturating_mul(MAX_RATIO).saturating_add(RATIO_SLACK))
        .min(MAX_DERIVED.saturating_sub(used))
}
