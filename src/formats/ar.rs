//! Unix `ar` archives (`!<arch>\n`).

use crate::model::{Builder, NodeId};

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(b"!<arch>\n")
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "magic", off, 8);
}
