//! LLVM offload binaries (`10 FF 10 AD`).

use crate::model::{Builder, NodeId};

pub const MAGIC: &[u8] = &[0x10, 0xff, 0x10, 0xad];

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "magic", off, 4);
}
