//! Byte spaces. Space 0 is the file; a derived space holds bytes that are
//! not in the file as they are (inflated, reassembled), made from a range of
//! another space. Nodes in a derived space have offsets in that space.
//!
//! A [`Span`] is a byte range of one space: what a node covers, what a link
//! points at, where a diagnostic is, what a parser is given to read. One
//! type in place of `(offset, len)` pairs, so that a range cannot be read
//! in the wrong order or in the wrong space.

use std::ops::Range;
use std::sync::Arc;

use compact_str::CompactString;

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

/// `len` bytes from `offset` of byte space `space`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// The byte space `offset` is in (0: the file).
    pub space: SpaceId,
    pub offset: u64,
    pub len: u64,
}

impl Span {
    pub const fn new(space: SpaceId, offset: u64, len: u64) -> Span {
        Span { space, offset, len }
    }

    /// `len` bytes from `offset` of the file.
    pub const fn file(offset: u64, len: u64) -> Span {
        Span::new(FILE, offset, len)
    }

    /// The offset just past the range (`u64::MAX` where that overflows).
    pub const fn end(self) -> u64 {
        self.offset.saturating_add(self.len)
    }

    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// `len` bytes from `offset` of the same space.
    pub const fn at(self, offset: u64, len: u64) -> Span {
        Span::new(self.space, offset, len)
    }

    /// The part from `rel` bytes in to the end (empty past the end).
    pub fn skip(self, rel: u64) -> Span {
        let rel = rel.min(self.len);
        self.at(self.offset.saturating_add(rel), self.len - rel)
    }

    /// The first `n` bytes (all of them when there are fewer).
    pub fn take(self, n: u64) -> Span {
        self.at(self.offset, self.len.min(n))
    }

    /// `len` bytes from `rel` bytes in, cut to the range.
    pub fn part(self, rel: u64, len: u64) -> Span {
        self.skip(rel).take(len)
    }

    /// The range from `offset` to this one's end, where `offset` is inside
    /// it (or at its end).
    pub fn from(self, offset: u64) -> Option<Span> {
        (offset >= self.offset && offset <= self.end())
            .then(|| self.at(offset, self.end() - offset))
    }

    /// True if `offset` is one of its bytes.
    pub fn contains(self, offset: u64) -> bool {
        offset >= self.offset && offset - self.offset < self.len
    }

    /// True if `other`, in the same space, lies wholly inside it.
    pub fn holds(self, other: Span) -> bool {
        other.space == self.space && other.offset >= self.offset && other.end() <= self.end()
    }

    /// Its offsets as a range (for slicing a space's bytes).
    pub fn range(self) -> Range<u64> {
        self.offset..self.end()
    }

    /// Where it starts, as `g` takes it and `y` `o` copies it: `0x1f0` in
    /// the file, `K:0x1f0` in byte space K.
    pub fn start_text(self) -> String {
        self.space.offset_text(self.offset)
    }
}

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
#[derive(Clone)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_stay_inside() {
        let s = Span::new(SpaceId(2), 0x10, 0x20);
        assert_eq!(s.end(), 0x30);
        assert_eq!(s.skip(8), Span::new(SpaceId(2), 0x18, 0x18));
        assert_eq!(s.skip(0x40), Span::new(SpaceId(2), 0x30, 0));
        assert_eq!(s.take(4), Span::new(SpaceId(2), 0x10, 4));
        assert_eq!(s.take(0x40), s);
        assert_eq!(s.part(0x1c, 8), Span::new(SpaceId(2), 0x2c, 4));
        assert_eq!(s.from(0x28), Some(Span::new(SpaceId(2), 0x28, 8)));
        assert_eq!(s.from(0x8), None);
        assert_eq!(s.from(0x31), None);
        assert!(s.contains(0x2f) && !s.contains(0x30) && !s.contains(0xf));
        assert!(s.holds(s.part(4, 4)));
        assert!(!s.holds(Span::new(FILE, 0x14, 4)));
        assert_eq!(Span::file(u64::MAX - 1, 8).end(), u64::MAX);
        assert_eq!(Span::file(0x1f0, 1).start_text(), "0x1f0");
        assert_eq!(s.start_text(), "2:0x10");
    }
}
