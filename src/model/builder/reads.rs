//! Bounds-checked reads, with or without a node for the field read.

use crate::model::arena::Builder;
use crate::model::arena::NodeId;
use crate::model::read::{self, Endian};
use crate::model::text;
use crate::model::value::Value;

impl<'a> Builder<'a> {
    // ---- reads without nodes ----

    pub fn read_u8(&self, off: u64) -> Option<u8> {
        read::u8_at(self.data, off)
    }
    pub fn read_u16(&self, off: u64, e: Endian) -> Option<u16> {
        read::u16_at(self.data, off, e)
    }
    pub fn read_u32(&self, off: u64, e: Endian) -> Option<u32> {
        read::u32_at(self.data, off, e)
    }
    pub fn read_u64(&self, off: u64, e: Endian) -> Option<u64> {
        read::u64_at(self.data, off, e)
    }
    /// Exactly `len` bytes at `off`, or `None`.
    pub fn read_bytes(&self, off: u64, len: u64) -> Option<&'a [u8]> {
        read::bytes_at(self.data, off, len)
    }
    /// The NUL-terminated string at `off`, not looking at or past `limit`.
    pub fn read_cstr(&self, off: u64, limit: u64) -> Option<(&'a [u8], bool)> {
        read::cstr_at(self.data, off, limit)
    }

    // ---- reads that also add a node ----

    fn truncated(&mut self, name: &str, off: u64, need: u64) {
        let have = self.file_len().saturating_sub(off);
        self.error(
            off,
            have.min(need),
            format!("truncated: {name} needs {need} bytes at 0x{off:x}, {have} remain"),
        );
    }

    /// Reads an unsigned field of `size` (1, 2, 4 or 8) bytes and adds it
    /// as a leaf showing its value.
    pub fn uint(
        &mut self,
        parent: NodeId,
        name: &str,
        off: u64,
        size: u64,
        e: Endian,
    ) -> Option<u64> {
        let v = match size {
            1 => self.read_u8(off).map(u64::from),
            2 => self.read_u16(off, e).map(u64::from),
            4 => self.read_u32(off, e).map(u64::from),
            8 => self.read_u64(off, e),
            _ => None,
        };
        match v {
            Some(v) => {
                self.leaf(
                    parent,
                    name,
                    off,
                    size,
                    Value::uint(v).with_width(size as u8),
                );
                Some(v)
            }
            None => {
                self.truncated(name, off, size);
                None
            }
        }
    }
    pub fn u8(&mut self, parent: NodeId, name: &str, off: u64) -> Option<u8> {
        self.uint(parent, name, off, 1, Endian::Little)
            .map(|v| v as u8)
    }
    pub fn u16(&mut self, parent: NodeId, name: &str, off: u64, e: Endian) -> Option<u16> {
        self.uint(parent, name, off, 2, e).map(|v| v as u16)
    }
    pub fn u32(&mut self, parent: NodeId, name: &str, off: u64, e: Endian) -> Option<u32> {
        self.uint(parent, name, off, 4, e).map(|v| v as u32)
    }
    pub fn u64(&mut self, parent: NodeId, name: &str, off: u64, e: Endian) -> Option<u64> {
        self.uint(parent, name, off, 8, e)
    }

    /// Adds a leaf for `len` raw bytes, its value a hex preview.
    pub fn raw(&mut self, parent: NodeId, name: &str, off: u64, len: u64) -> Option<&'a [u8]> {
        match self.read_bytes(off, len) {
            Some(b) => {
                self.leaf(parent, name, off, len, Value::text(text::hex(b, 16)));
                Some(b)
            }
            None => {
                self.truncated(name, off, len);
                None
            }
        }
    }

    /// Adds a leaf for a fixed-size char array, its value the text up to
    /// the first NUL.
    pub fn fixed_str(&mut self, parent: NodeId, name: &str, off: u64, len: u64) -> Option<String> {
        match self.read_bytes(off, len) {
            Some(b) => {
                let s = text::fixed(b);
                self.leaf(parent, name, off, len, Value::str(&s));
                Some(s)
            }
            None => {
                self.truncated(name, off, len);
                None
            }
        }
    }
}
