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
use crate::model::{Builder, Endian, Fields, NodeId};

/// The section that holds the wrappers.
pub const SECTION: &str = ".nvFatBinSegment";
/// `__fatBinC_Wrapper_t`'s magic, as a little-endian word.
pub const MAGIC: u32 = 0x4662_43b1;
/// The magic's bytes in a little-endian file.
pub const MAGIC_BYTES: &[u8] = &[0xb1, 0x43, 0x62, 0x46];

/// Wrappers decoded in one section at most.
const MAX_WRAPPERS: u64 = 4096;

/// True for bytes that start with a wrapper (a `.nvFatBinSegment` seen
/// without its ELF, as a section dumped to a file).
pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC_BYTES)
}

/// The wrappers at `[off, off+len)` without the ELF around them: 64-bit
/// pointers where the size fits them, else 32-bit; nothing is linked.
pub fn parse(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    let w = if len.is_multiple_of(24) || !len.is_multiple_of(16) {
        8
    } else {
        4
    };
    records(b, node, off, len, w, Endian::Little, &mut |_, _, _| None);
}

/// Decodes the wrappers of `.nvFatBinSegment` at `[a, a+l)` under `id`,
/// each pointer linked where the ELF says where it points.
/// The ELF reader's hook for `.nvFatBinSegment`, by name.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| s.name == SECTION,
    decode: |b, id, elf, s, a, l| {
        parse_section(b, id, elf, s, a, l);
        true
    },
};

pub fn parse_section(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, a: u64, l: u64) {
    let mut resolve = |b: &Builder<'_>, at: u64, ptr: u64| -> Option<(u64, u64)> {
        if elf.etype == 1 {
            hipwrap::by_relocation(b, elf, s, at - a)
        } else {
            let addr = if ptr != 0 {
                Some(ptr)
            } else {
                hipwrap::dynamic_target(b, elf, s.addr.wrapping_add(at - a))
            };
            addr.and_then(|p| elf.addr_to_abs(p))
                .and_then(|t| hipwrap::within_section(elf, t))
        }
    };
    records(b, id, a, l, elf.word(), elf.e, &mut resolve);
}

/// What a pointer field at `at` holding `ptr` points at: `(offset, bytes
/// to the end of its section)`.
type Resolve<'r> = dyn FnMut(&Builder<'_>, u64, u64) -> Option<(u64, u64)> + 'r;

fn records(
    b: &mut Builder<'_>,
    id: NodeId,
    a: u64,
    l: u64,
    w: u64,
    e: Endian,
    resolve: &mut Resolve<'_>,
) {
    let rec = 8 + 2 * w;
    let n = l / rec;
    if n == 0 {
        b.error(a, l, format!("{SECTION}: {l} bytes, a wrapper takes {rec}"));
        return;
    }
    if !l.is_multiple_of(rec) {
        b.warn(
            a + n * rec,
            l % rec,
            format!("{SECTION}: {} bytes after the last whole wrapper", l % rec),
        );
    }
    for i in 0..n.min(MAX_WRAPPERS) {
        let at = a + i * rec;
        let name = if n == 1 {
            "wrapper".to_string()
        } else {
            format!("wrapper [{i}]")
        };
        let g = b.group(id, name, at, rec);
        let mut f = Fields::new(b, g, at, e);
        let magic = f
            .named_hex("magic", 4, |v| {
                (v == u64::from(MAGIC)).then_some("__fatBinC_Wrapper_t")
            })
            .unwrap_or(0);
        let version = f
            .named("version", 4, |v| match v {
                1 => Some("fatbin"),
                2 => Some("relocatable device code"),
                _ => None,
            })
            .unwrap_or(0);
        let data = f.hex("data", w).zip(f.last_fitted());
        let more = f.hex("filename or fatbins", w).zip(f.last_fitted());
        if magic != u64::from(MAGIC) {
            b.warn(
                at,
                4,
                format!("CUDA fatbin wrapper magic 0x{magic:08x}, 0x{MAGIC:08x} expected"),
            );
        }
        if !(1..=2).contains(&version) {
            b.warn(
                at + 4,
                4,
                format!("CUDA fatbin wrapper version {version}; 1 and 2 are known"),
            );
        }
        let Some((data, p)) = data else {
            continue;
        };
        match resolve(b, at + 8, data) {
            Some((t, size)) => {
                b.link(p, t, size);
                if !b.slice(t, 4).starts_with(super::fatbin::MAGIC) {
                    b.warn(
                        at + 8,
                        w,
                        format!("the wrapper's data points at 0x{t:x}, which is not a CUDA fatbin"),
                    );
                }
                b.set_value(g, "CUDA fatbin wrapper");
            }
            _ => b.set_value(g, "CUDA fatbin wrapper (target not resolved)"),
        }
        if let Some((m, p)) = more {
            if m != 0 || version == 2 {
                if let Some((t, size)) = resolve(b, at + 8 + w, m) {
                    b.link(p, t, size);
                }
            }
        }
    }
    b.set_value(id, format!("{} CUDA fatbin wrappers", n.min(MAX_WRAPPERS)));
}
