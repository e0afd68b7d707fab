//! ELF32 and ELF64, both byte orders, with the Intel GT (zebin) extensions.

use crate::model::{Builder, NodeId};

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(b"\x7fELF")
}

/// True for an ELF whose e_machine is 205 (EM_INTELGT).
pub fn is_zebin(d: &[u8]) -> bool {
    let e = match d.get(5) {
        Some(2) => crate::model::Endian::Big,
        _ => crate::model::Endian::Little,
    };
    crate::model::Endian::Little == e && d.get(18..20) == Some(&[205, 0][..])
        || e == crate::model::Endian::Big && d.get(18..20) == Some(&[0, 205][..])
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, _len: u64) {
    b.raw(parent, "e_ident", off, 16);
}
