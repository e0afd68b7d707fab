//! SPIR-V module headers (magic 0x07230203, either byte order).

use crate::model::{Builder, Endian, Fields, NodeId};

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
    // A header cut short is reported below, in one message.
    let mut f = Fields::new(b, parent, off + 4, e).quiet();
    f.field("version", 4, |v| {
        format!("{}.{}", (v >> 16) & 0xff, (v >> 8) & 0xff).into()
    });
    f.field("generator", 4, |g| {
        let tool = (g >> 16) as u16;
        let name = generator(tool).unwrap_or("unregistered");
        format!("{name} (tool {tool}, version {})", g & 0xffff).into()
    });
    f.uint("bound", 4);
    f.uint("schema", 4);
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
