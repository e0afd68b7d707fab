//! What the generated register tables are made of: a register and a bit
//! field, and the short constructors the tables call.

/// One register: its offset in the tile, its size in bytes (a memory's
/// whole size), its name and its bit field set (an index into the
/// generation's field sets; 0 when none is kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg {
    pub off: u32,
    pub size: u32,
    pub name: &'static str,
    pub fields: u16,
}

/// One bit field of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    pub name: &'static str,
    pub lsb: u8,
    pub width: u8,
}

impl BitField {
    /// The field's value in the register value `v`.
    pub fn get(&self, v: u32) -> u32 {
        let w = u32::from(self.width);
        let l = u32::from(self.lsb);
        if l >= 32 {
            return 0;
        }
        let m = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
        (v >> l) & m
    }
    /// The register bits the field covers.
    pub fn mask(&self) -> u32 {
        self.get(u32::MAX)
            .checked_shl(u32::from(self.lsb))
            .unwrap_or(0)
    }
    /// "bits 6..0", "bit 31".
    pub fn bits(&self) -> String {
        let hi = u32::from(self.lsb) + u32::from(self.width).max(1) - 1;
        if hi == u32::from(self.lsb) {
            format!("bit {hi}")
        } else {
            format!("bits {hi}..{}", self.lsb)
        }
    }
}

pub(super) const fn r(off: u32, size: u32, name: &'static str, fields: u16) -> Reg {
    Reg {
        off,
        size,
        name,
        fields,
    }
}

pub(super) const fn f(name: &'static str, lsb: u8, width: u8) -> BitField {
    BitField { name, lsb, width }
}
