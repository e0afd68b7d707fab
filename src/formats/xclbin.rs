//! AMD/Xilinx XCLBIN (`xclbin2\0`).

use crate::model::{Builder, NodeId};

pub const MAGIC: &[u8] = b"xclbin2\0";

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "magic", off, 8);
}
