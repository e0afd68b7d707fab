//! SPIR-V module headers (magic 0x07230203, either byte order).

use crate::model::{Builder, Endian, NodeId, Value};

pub const MAGIC: u32 = 0x0723_0203;

/// The byte order of a SPIR-V module, if `d` starts with one.
pub fn endian(d: &[u8]) -> Option<Endian> {
    match d.get(..4)? {
        [0x03, 0x02, 0x23, 0x07] => Some(Endian::Little),
        [0x07, 0x23, 0x02, 0x03] => Some(Endian::Big),
        _ => None,
    }
}

pub fn detect(d: &[u8]) -> bool {
    endian(d).is_some()
}

/// Names of the generators registered with Khronos that these files show.
fn generator(id: u16) -> Option<&'static str> {
    Some(match id {
        0 => "Khronos",
        6 => "Khronos LLVM/SPIR-V Translator",
        7 => "Khronos SPIR-V Tools Assembler",
        8 => "Khronos Glslang Reference Front End",
        13 => "Google Shaderc over Glslang",
        14 => "Google spiregg",
        17 => "Khronos SPIR-V Tools Linker",
        22 => "Intel IGC",
        28 => "Khronos SPIRV-Tools",
        34 => "Khronos LLVM SPIR-V Backend",
        35 => "Microsoft DXC",
        _ => return None,
    })
}

/// Decodes the five-word header of the module in `[off, off+len)` under
/// `parent`, and shows the instruction words after it as one node.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    let Some(e) = endian(b.slice(off, 4)) else {
        return;
    };
    let order = match e {
        Endian::Little => "little-endian",
        Endian::Big => "big-endian",
    };
    b.leaf(
        parent,
        "magic",
        off,
        4,
        format!("0x{MAGIC:08x} (SPIR-V, {order})"),
    );
    if let Some(v) = b.read_u32(off + 4, e) {
        b.leaf(
            parent,
            "version",
            off + 4,
            4,
            format!("{}.{}", (v >> 16) & 0xff, (v >> 8) & 0xff),
        );
    }
    if let Some(g) = b.read_u32(off + 8, e) {
        let tool = (g >> 16) as u16;
        let name = generator(tool).unwrap_or("unregistered");
        b.leaf(
            parent,
            "generator",
            off + 8,
            4,
            format!("{name} (tool {tool}, version {})", g & 0xffff),
        );
    }
    if let Some(v) = b.read_u32(off + 12, e) {
        b.leaf(
            parent,
            "bound",
            off + 12,
            4,
            Value::uint(v.into()).with_width(4),
        );
    }
    if let Some(v) = b.read_u32(off + 16, e) {
        b.leaf(
            parent,
            "schema",
            off + 16,
            4,
            Value::uint(v.into()).with_width(4),
        );
    }
    if len < 20 {
        b.error(off, len, "SPIR-V header needs 20 bytes");
        return;
    }
    if len > 20 {
        b.leaf(
            parent,
            "instructions",
            off + 20,
            len - 20,
            format!("{} words", (len - 20) / 4),
        );
    }
    if !len.is_multiple_of(4) {
        b.warn(off, len, "SPIR-V module size is not a multiple of 4");
    }
}
