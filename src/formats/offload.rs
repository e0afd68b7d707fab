//! LLVM offload binaries (`10 FF 10 AD`).

use crate::model::{Builder, NodeId};

pub const MAGIC: &[u8] = &[0x10, 0xff, 0x10, 0xad];

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "magic", off, 4);
}

/// Parses the contents of a host object's `.llvm.offloading` section: one or
/// more offload binaries back to back, each starting 8-aligned.
pub fn parse_section(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    if detect(b.slice(off, len)) {
        parse(b, parent, off, len);
    }
}
