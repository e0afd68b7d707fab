//! AMDGPU code objects: the target id an ELF header names (`e_flags`
//! with its xnack and sramecc settings) and the code object version
//! behind `EI_ABIVERSION`.

use super::{elf, msgpack};
use crate::model::{Builder, Endian, NodeId};

/// `n_type` of the code object metadata note (owner "AMDGPU").
pub const NT_AMDGPU_METADATA: u32 = 32;

/// What AMDGPU code objects add to the ELF reader.
pub struct Amdgpu;

/// The AMDGPU vendor.
pub static AMDGPU: Amdgpu = Amdgpu;

impl elf::Vendor for Amdgpu {
    fn owns_note(&self, owner: &[u8]) -> bool {
        owner == b"AMDGPU"
    }
    fn note_type(&self, _owner: &[u8], t: u32) -> Option<&'static str> {
        (t == NT_AMDGPU_METADATA).then_some("NT_AMDGPU_METADATA")
    }
    fn note_desc(
        &self,
        b: &mut Builder<'_>,
        parent: NodeId,
        _owner: &[u8],
        typ: u32,
        d: u64,
        n: u64,
        _e: Endian,
    ) {
        if typ != NT_AMDGPU_METADATA || n == 0 {
            b.raw(parent, "desc", d, n);
            return;
        }
        let g = b.group(parent, "desc", d, n);
        b.set_value(g, "MessagePack");
        msgpack::parse(b, g, d, n);
    }
}

/// `EI_OSABI` of AMD HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;

/// The code object version `EI_ABIVERSION` stands for (HSA OS ABI).
pub fn code_object_version(abiversion: u8) -> Option<u8> {
    match abiversion {
        0..=4 => Some(abiversion + 2),
        _ => None,
    }
}

/// The processor `e_flags` names (`gfx90a`), if known.
pub fn processor(eflags: u32) -> Option<&'static str> {
    elf::amdgpu_mach_name(eflags & 0xff)
}

/// The target id of a code object: the processor and, where the code
/// object says so, `sramecc` and `xnack` on (`+`) or off (`-`); "any"
/// settings are left out, as clang writes target ids.
pub fn target_id(eflags: u32, abiversion: u8) -> String {
    let mut s = match processor(eflags) {
        Some(p) => p.to_string(),
        None => format!("mach 0x{:x}", eflags & 0xff),
    };
    let v = code_object_version(abiversion).unwrap_or(4);
    let (sramecc, xnack) = if v <= 3 {
        // v3: one bit each, set means on.
        (
            Some(eflags & 0x200 != 0).filter(|&on| on),
            Some(eflags & 0x100 != 0).filter(|&on| on),
        )
    } else {
        let pick = |m: u32| match m {
            2 => Some(false),
            3 => Some(true),
            _ => None,
        };
        (pick((eflags >> 10) & 3), pick((eflags >> 8) & 3))
    };
    for (name, set) in [("sramecc", sramecc), ("xnack", xnack)] {
        if let Some(on) = set {
            s.push(':');
            s.push_str(name);
            s.push(if on { '+' } else { '-' });
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_ids_as_clang_writes_them() {
        // gfx90a (0x3f), xnack any, sramecc any: what clang writes by default.
        assert_eq!(target_id(0x53f, 2), "gfx90a");
        assert_eq!(target_id(0x33f, 2), "gfx90a:xnack+");
        assert_eq!(target_id(0xb3f, 3), "gfx90a:sramecc-:xnack+");
        assert_eq!(target_id(0x13f, 1), "gfx90a:xnack+");
        assert_eq!(code_object_version(3), Some(5));
    }
}
