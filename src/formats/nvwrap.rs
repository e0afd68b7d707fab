//! CUDA host wrappers: the `__fatBinC_Wrapper_t` records nvcc puts in a
//! host object's `.nvFatBinSegment`, one per translation unit, which the
//! runtime registers at start-up. A record is: magic u32 `0x466243B1`,
//! version u32 (1: `data` is the fatbin; 2: relocatable device code, whose
//! prelinked fatbins the second pointer may name), a pointer to the
//! fatbin, and a pointer to a file name or a list of prelinked fatbins
//! (usually 0). The fatbin pointer is linked to the container it names:
//! through its relocation in a relocatable object, through the address map
//! (or the dynamic relocation writing it) in a linked one.

use super::elf::{Elf, Sec, SectionHook};
use super::hipwrap;
use crate::model::record::{record, Record};
use crate::model::{Builder, Endian, Fields, NodeId, Span};

/// The section that holds the wrappers.
pub const SECTION: &str = ".nvFatBinSegment";
/// `__fatBinC_Wrapper_t`'s magic, as a little-endian word.
pub const MAGIC: u32 = 0x4662_43b1;
/// The magic's bytes in a little-endian file.
pub const MAGIC_BYTES: &[u8] = &[0xb1, 0x43, 0x62, 0x46];

/// Wrappers decoded in one section at most.
const MAX_WRAPPERS: u64 = 4096;

fn magic_name(v: u64) -> Option<&'static str> {
    (v == u64::from(MAGIC)).then_some("__fatBinC_Wrapper_t")
}

fn version_name(v: u64) -> Option<&'static str> {
    match v {
        1 => Some("fatbin"),
        2 => Some("relocatable device code"),
        _ => None,
    }
}

record! {
    /// `__fatBinC_Wrapper_t` with 64-bit pointers (read in the object's
    /// byte order).
    mod wrapper64: Wrapper64 (Endian::Little) {
        magic: u32 = "magic", Show::NamedHex(magic_name),
        version: u32 = "version", Show::Named(version_name),
        data: u64 = "data", Show::Hex,
        more: u64 = "filename or fatbins", Show::Hex,
    }
}

record! {
    /// `__fatBinC_Wrapper_t` with 32-bit pointers.
    mod wrapper32: Wrapper32 (Endian::Little) {
        magic: u32 = "magic", Show::NamedHex(magic_name),
        version: u32 = "version", Show::Named(version_name),
        data: u32 = "data", Show::Hex,
        more: u32 = "filename or fatbins", Show::Hex,
    }
}

/// A wrapper of either width, its pointers widened, with the nodes of
/// the two pointers.
struct Wrapper {
    magic: u32,
    version: u32,
    data: (u64, Option<NodeId>),
    more: (u64, Option<NodeId>),
}

/// The wrapper at the cursor, whose bytes are `d`.
fn show(f: &mut Fields<'_, '_>, d: &[u8], wide: bool, e: Endian) -> Wrapper {
    if wide {
        let n = Wrapper64::show(f);
        let r = Wrapper64::read_in(d, e).ok();
        Wrapper {
            magic: r.map_or(0, |r| r.magic),
            version: r.map_or(0, |r| r.version),
            data: (r.map_or(0, |r| r.data), n.data),
            more: (r.map_or(0, |r| r.more), n.more),
        }
    } else {
        let n = Wrapper32::show(f);
        let r = Wrapper32::read_in(d, e).ok();
        Wrapper {
            magic: r.map_or(0, |r| r.magic),
            version: r.map_or(0, |r| r.version),
            data: (r.map_or(0, |r| u64::from(r.data)), n.data),
            more: (r.map_or(0, |r| u64::from(r.more)), n.more),
        }
    }
}

/// True for bytes that start with a wrapper (a `.nvFatBinSegment` seen
/// without its ELF, as a section dumped to a file).
pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC_BYTES)
}

/// The wrappers at `[off, off+len)` without the ELF around them: 64-bit
/// pointers where the size fits them, else 32-bit; nothing is linked.
pub fn parse(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let w = if at.len.is_multiple_of(24) || !at.len.is_multiple_of(16) {
        8
    } else {
        4
    };
    records(b, node, at, w, Endian::Little, &mut |_, _, _| None);
}

/// The ELF reader's hook for `.nvFatBinSegment`, by name.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| s.name == SECTION,
    decode: |b, id, elf, s, at| {
        parse_section(b, id, elf, s, at);
        true
    },
};

/// Decodes the wrappers of `.nvFatBinSegment` at `at` under `id`, each
/// pointer linked where the ELF says where it points.
pub fn parse_section(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) {
    let mut resolve = |b: &Builder<'_>, slot: u64, ptr: u64| -> Option<Span> {
        if elf.etype == 1 {
            hipwrap::by_relocation(b, elf, s, slot - at.offset)
        } else {
            let addr = if ptr != 0 {
                Some(ptr)
            } else {
                hipwrap::dynamic_target(b, elf, s.addr.wrapping_add(slot - at.offset))
            };
            addr.and_then(|p| elf.addr_to_abs(p))
                .and_then(|t| hipwrap::within_section(elf, t))
        }
    };
    records(b, id, at, elf.word(), elf.e, &mut resolve);
}

/// What a pointer field at an offset holding a pointer points at: the
/// bytes from there to the end of its section.
type Resolve<'r> = dyn FnMut(&Builder<'_>, u64, u64) -> Option<Span> + 'r;

fn records(
    b: &mut Builder<'_>,
    id: NodeId,
    at: Span,
    w: u64,
    e: Endian,
    resolve: &mut Resolve<'_>,
) {
    let wide = w == 8;
    let rec = if wide {
        wrapper64::SIZE
    } else {
        wrapper32::SIZE
    };
    // Where the pointers are, from a wrapper's start (the same in both
    // widths but for the second pointer).
    let data_at = wrapper64::AT.data.off;
    let more_at = if wide {
        wrapper64::AT.more.off
    } else {
        wrapper32::AT.more.off
    };
    let n = at.len / rec;
    if n == 0 {
        b.error(
            at.offset,
            at.len,
            format!("{SECTION}: {} bytes, a wrapper takes {rec}", at.len),
        );
        return;
    }
    if !at.len.is_multiple_of(rec) {
        let rest = at.skip(n * rec);
        b.warn(
            rest.offset,
            rest.len,
            format!("{SECTION}: {} bytes after the last whole wrapper", rest.len),
        );
    }
    for i in 0..n.min(MAX_WRAPPERS) {
        let pos = at.offset + i * rec;
        let name = if n == 1 {
            "wrapper".to_string()
        } else {
            format!("wrapper [{i}]")
        };
        let g = b.group(id, name, pos, rec);
        let d = b.slice(pos, rec);
        let mut f = Fields::new(b, g, pos, e);
        let r = show(&mut f, d, wide, e);
        if r.magic != MAGIC {
            wrapper64::AT.magic.warn(
                b,
                pos,
                format!(
                    "CUDA fatbin wrapper magic 0x{:08x}, 0x{MAGIC:08x} expected",
                    r.magic
                ),
            );
        }
        if !(1..=2).contains(&r.version) {
            wrapper64::AT.version.warn(
                b,
                pos,
                format!(
                    "CUDA fatbin wrapper version {}; 1 and 2 are known",
                    r.version
                ),
            );
        }
        let (data, Some(p)) = r.data else {
            continue;
        };
        match resolve(b, pos + data_at, data) {
            Some(to) => {
                b.link(p, to);
                let t = to.offset;
                if !b.slice(t, 4).starts_with(super::fatbin::MAGIC) {
                    b.warn(
                        pos + data_at,
                        w,
                        format!("the wrapper's data points at 0x{t:x}, which is not a CUDA fatbin"),
                    );
                }
                b.set_value(g, "CUDA fatbin wrapper");
            }
            _ => b.set_value(g, "CUDA fatbin wrapper (target not resolved)"),
        }
        if let (m, Some(p)) = r.more {
            if m != 0 || r.version == 2 {
                if let Some(to) = resolve(b, pos + more_at, m) {
                    b.link(p, to);
                }
            }
        }
    }
    b.set_value(id, format!("{} CUDA fatbin wrappers", n.min(MAX_WRAPPERS)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `__fatBinC_Wrapper_t` (CUDA's fatbinary_section.h): int magic, int
    /// version, a pointer to the fatbin, a pointer to the file name or the
    /// prelinked fatbins.
    #[test]
    fn wrappers_match_cuda_and_short_slices_are_errors() {
        assert_eq!((wrapper64::SIZE, wrapper32::SIZE), (24, 16));
        assert_eq!(wrapper64::AT.version.off, 4);
        assert_eq!(wrapper64::AT.data.off, wrapper32::AT.data.off);
        assert_eq!((wrapper64::AT.more.off, wrapper32::AT.more.off), (16, 12));
        let e = Wrapper64::read(&[0; 20]).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("filename or fatbins", 24, 20));
        let e = Wrapper32::read(&[0; 3]).unwrap_err();
        assert_eq!(e.field, "magic");
        let mut d = [0u8; 16];
        d[..4].copy_from_slice(MAGIC_BYTES);
        d[4] = 1;
        let r = Wrapper32::read(&d).unwrap();
        assert_eq!((r.magic, r.version), (MAGIC, 1));
    }
}
