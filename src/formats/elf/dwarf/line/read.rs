//! What reading a line program needs: its context ([`Ctx`]: the bytes'
//! place, the string sections, the relocations), a bounded cursor over
//! the section ([`Cur`], shared with the call frame and list readers) and
//! the nodes a header is shown as ([`Item`]).

use std::sync::Arc;

use compact_str::CompactString;
use gimli::{EndianSlice, LittleEndian};

use crate::model::{Endian, Value};

/// Units listed at most.
pub(crate) const MAX_UNITS: u64 = 1 << 20;
/// Directory or file entries read at most in one table.
pub(crate) const MAX_ENTRIES: u64 = 1 << 16;
/// Entry formats read at most in one table.
pub(crate) const MAX_FORMATS: u64 = 64;
/// Opcodes of one unit read at most.
pub(crate) const MAX_OPS: u64 = 1 << 26;
/// Bytes read at most for a string shown.
pub(crate) const MAX_STRING: u64 = 4096;

/// Where code is for an address: its section in a relocatable file (the
/// one the address's relocation names), and the address; the offset of
/// its byte in the byte space.
pub(crate) type CodeAt = Arc<dyn Fn(Option<u32>, u64) -> Option<u64> + Send + Sync>;

/// What reading `.debug_line` needs besides its bytes.
pub(crate) struct Ctx {
    pub e: Endian,
    /// `.debug_line` in the byte space: offset and length.
    pub at: u64,
    pub len: u64,
    /// `.debug_line_str` and `.debug_str`.
    pub line_str: Strings,
    pub str: Strings,
    /// In an object file, the relocations of `.debug_line`: offset in the
    /// section, the value the linker would put there, and the section of
    /// the symbol; sorted by offset.
    pub relocs: Vec<(u64, u64, u32)>,
    /// The bytes of the code at an address.
    pub code_at: CodeAt,
}

impl Ctx {
    pub(crate) fn reloc(&self, off: u64) -> Option<(u64, u32)> {
        let k = self.relocs.binary_search_by_key(&off, |r| r.0).ok()?;
        self.relocs.get(k).map(|r| (r.1, r.2))
    }
}

/// A bounded cursor over the section's bytes: offsets are the section's.
pub(crate) struct Cur<'d> {
    pub d: &'d [u8],
    pub pos: u64,
    pub end: u64,
    pub e: Endian,
}

impl<'d> Cur<'d> {
    pub(crate) fn rest(&self) -> &'d [u8] {
        let (Ok(a), Ok(z)) = (usize::try_from(self.pos), usize::try_from(self.end)) else {
            return &[];
        };
        self.d.get(a..z).unwrap_or_default()
    }
    pub(crate) fn uint(&mut self, n: u64) -> Option<u64> {
        if self.end.saturating_sub(self.pos) < n {
            return None;
        }
        let v = crate::model::read::uint_at(self.d, self.pos, n, self.e)?;
        self.pos += n;
        Some(v)
    }
    pub(crate) fn leb(&mut self, signed: bool) -> Option<u64> {
        let rest = self.rest();
        let mut r = EndianSlice::new(rest, LittleEndian);
        let v = if signed {
            gimli::leb128::read::signed(&mut r).ok()? as u64
        } else {
            gimli::leb128::read::unsigned(&mut r).ok()?
        };
        self.pos += (rest.len() - r.len()) as u64;
        Some(v)
    }
    pub(crate) fn uleb(&mut self) -> Option<u64> {
        self.leb(false)
    }
    pub(crate) fn sleb(&mut self) -> Option<i64> {
        self.leb(true).map(|v| v as i64)
    }
    /// A NUL-terminated string (the NUL read too).
    pub(crate) fn cstr(&mut self) -> Option<&'d [u8]> {
        let rest = self.rest();
        let n = rest.iter().position(|&c| c == 0)?;
        self.pos += n as u64 + 1;
        rest.get(..n)
    }
    pub(crate) fn skip(&mut self, n: u64) -> Option<()> {
        if self.end.saturating_sub(self.pos) < n {
            return None;
        }
        self.pos += n;
        Some(())
    }
}

/// A node the header is shown as, made when the header is read.
pub(crate) enum Item {
    Leaf {
        name: CompactString,
        off: u64,
        size: u64,
        value: Value,
        link: Option<(u64, u64)>,
    },
    Group {
        name: CompactString,
        off: u64,
        size: u64,
        value: Option<Value>,
        kids: Vec<Item>,
    },
}

pub(crate) fn leaf(name: &str, off: u64, size: u64, value: Value) -> Item {
    Item::Leaf {
        name: name.into(),
        off,
        size,
        value,
        link: None,
    }
}

/// A string section the header's forms point into.
#[derive(Clone, Default)]
pub(crate) enum Strings {
    #[default]
    None,
    /// In the byte space being built: offset and length.
    At(u64, u64),
    /// In the file's bytes, read from another space (the line program is
    /// in the inflated bytes of a compressed section of an ELF that is
    /// the file): offset and length.
    File(u64, u64),
    /// Elsewhere (the line program is in the inflated bytes of a
    /// compressed section): a copy of its bytes, inflated if need be.
    Own(Arc<[u8]>),
}

/// A unit's initial length at `c`: 4 bytes, or `0xffffffff` then 8 in
/// 64-bit DWARF, shown as `name` (and `dwarf64`) in `items`. The length
/// and whether the unit is 64-bit DWARF.
pub(crate) fn initial_length(
    c: &mut Cur<'_>,
    items: &mut Vec<Item>,
    name: &str,
) -> Option<(u64, bool)> {
    let first = c.uint(4)?;
    if first != 0xffff_ffff {
        items.push(leaf(name, c.pos - 4, 4, Value::uint(first)));
        return Some((first, false));
    }
    items.push(leaf("dwarf64", c.pos - 4, 4, Value::hex(first)));
    let l = c.uint(8)?;
    items.push(leaf(name, c.pos - 8, 8, Value::uint(l)));
    Some((l, true))
}
