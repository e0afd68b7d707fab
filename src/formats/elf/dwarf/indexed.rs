//! The tables DWARF 5's indexed forms read through: `.debug_str_offsets`
//! (`DW_FORM_strx*`: an offset into `.debug_str` an entry) and
//! `.debug_addr` (`DW_FORM_addrx*`, `DW_OP_addrx`: an address an entry).
//! Each contribution (one a unit, usually) with its header's fields, then
//! its entries, each with what it holds: the string it points at (linked
//! to its bytes) or the address. In an object file, the entries are what
//! the relocations put there, as the linker would.

use std::sync::Arc;

use gimli::SectionId;

use super::{Debug, Elf};
use crate::model::{Builder, ElemFn, Fields, NodeId, Seq, Step, Value};

/// Contributions listed at most.
const MAX_CONTRIBUTIONS: u64 = 1 << 20;
/// Strings read at most to show an entry's.
const MAX_STRING: u64 = 4096;

/// Which table.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    StrOffsets,
    Addr,
}

/// Makes `id`, `.debug_str_offsets` at `[a, a+l)`, list its contributions
/// when opened.
pub(super) fn str_offsets(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, a: u64, l: u64) -> bool {
    table(b, id, elf, a, l, Kind::StrOffsets)
}

/// Makes `id`, `.debug_addr` at `[a, a+l)`, list its contributions when
/// opened.
pub(super) fn addr(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, a: u64, l: u64) -> bool {
    table(b, id, elf, a, l, Kind::Addr)
}

fn table(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, a: u64, l: u64, kind: Kind) -> bool {
    if l < 8 {
        return false;
    }
    let elf = elf.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let debug = Arc::new(Debug::for_elf(b, &elf));
            let e = elf.e;
            // The header's first word: a contribution's length, and where
            // the next one starts.
            let next = move |b: &Builder<'_>, off: u64| super::line::unit_end(b, off, e, a + l);
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
                let end = next(b, off)?;
                contribution(b, p, &debug, i, off, end, kind, e);
                Some(end)
            });
            let seq = Seq::scan(a, a + l, MAX_CONTRIBUTIONS, |off| next(b, off), step);
            b.seq_now(id, seq);
        }),
    );
    true
}

/// One contribution at `[off, end)`: its header, then its entries.
#[allow(clippy::too_many_arguments)]
fn contribution(
    b: &mut Builder<'_>,
    p: NodeId,
    debug: &Arc<Debug>,
    i: u64,
    off: u64,
    end: u64,
    kind: Kind,
    e: crate::model::Endian,
) {
    let node = b.group(p, format!("contribution [{i}]"), off, end - off);
    let mut f = Fields::new(b, node, off, e).quiet();
    let dwarf64 = super::initial_length(&mut f);
    f.dec("version", 2);
    let (stride, what) = match kind {
        Kind::StrOffsets => {
            f.uint("padding", 2);
            (if dwarf64 { 8 } else { 4 }, "offsets")
        }
        Kind::Addr => {
            let size = f.uint("address_size", 1).unwrap_or(0);
            let seg = f.uint("segment_selector_size", 1).unwrap_or(0);
            if seg != 0 {
                let at = f.at() - 1;
                f.builder().warn(
                    at,
                    1,
                    format!("segment selectors of {seg} bytes: the entries are shown as addresses alone"),
                );
            }
            (size, "addresses")
        }
    };
    let from = f.at();
    if from >= end {
        return;
    }
    if !matches!(stride, 1 | 2 | 4 | 8) {
        b.error(
            from,
            end - from,
            format!("entries of {stride} bytes: not read"),
        );
        return;
    }
    let n = (end - from) / stride;
    let section = match kind {
        Kind::StrOffsets => SectionId::DebugStrOffsets,
        Kind::Addr => SectionId::DebugAddr,
    };
    // The relocations are those of the section read as this table's (the
    // first of its name); an entry outside it (a second section of the
    // same name) shows its bytes as they are.
    let known = debug.section(section);
    let d = debug.clone();
    let elem: ElemFn = Arc::new(move |b: &mut Builder<'_>, p, k, at| {
        let Some(raw) = crate::model::read_uint(b, at, stride, e) else {
            return;
        };
        let v = known
            .and_then(|(start, len)| at.checked_sub(start).filter(|&o| o < len))
            .and_then(|o| d.relocated(section, o))
            .unwrap_or(raw);
        let name = format!("[{k}]");
        match kind {
            Kind::Addr => {
                b.leaf(p, name, at, stride, Value::hex(v));
            }
            Kind::StrOffsets => {
                let (value, link) = match d.section(SectionId::DebugStr) {
                    Some((x, len)) if v < len => {
                        match b.read_cstr(x + v, x + len.min(v + MAX_STRING)) {
                            Some((s, _)) => {
                                (Value::str_at(v, s), Some((x + v, s.len() as u64 + 1)))
                            }
                            None => (Value::hex(v), None),
                        }
                    }
                    _ => (
                        Value::with(v, crate::model::Radix::Hex, " (not in .debug_str)"),
                        None,
                    ),
                };
                let id = b.leaf(p, name, at, stride, value);
                if let Some((o, s)) = link {
                    b.link(id, o, s);
                }
            }
        }
    });
    b.array(node, what, from, n, stride, elem);
}
