//! A byte range of one byte space: what a node covers, what a link points
//! at, where a diagnostic is, what a parser is given to read. One type in
//! place of `(offset, len)` pairs, so that a range cannot be read in the
//! wrong order or in the wrong space.

use std::ops::Range;

use super::space::{SpaceId, FILE};

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
