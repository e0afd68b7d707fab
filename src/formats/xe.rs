//! XMOS XE executables (`XMOS`, version 2.0).

use crate::model::{Builder, NodeId};

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(b"XMOS")
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "magic", off, 4);
}
