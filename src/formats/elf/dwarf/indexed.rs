//! The tables DWARF 5's indexed forms read through: `.debug_str_offsets`
//! (`DW_FORM_strx*`: an offset into `.debug_str` an entry) and
//! `.debug_addr` (`DW_FORM_addrx*`, `DW_OP_addrx`: an address an entry).
//! Each contribution (one a unit, usually) with its header's fields, then
//! its entries, each with what it holds: the string it points at (linked
//! to its bytes) or the address. In an object file, the entries are what
//! the relocations put there, as the linker would.
//!
//! Split DWARF 4 (GCC's and clang's `-gdwarf-4 -gsplit-dwarf`, the GNU
//! extension DWARF 5 standardised) writes a `.debug_addr` without
//! headers: the addresses alone, which `DW_AT_GNU_addr_base` points into.
//! A file whose `.debug_info` units are all of DWARF 4 or older has that
//! table.

use std::sync::Arc;

use gimli::SectionId;

use super::super::Elf;
use super::debug::{initial_length, Debug};
use crate::model::{Builder, ElemFn, Fields, NodeId, Seq, Span, Step, Value};

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

/// Makes `id`, `.debug_str_offsets` at `at`, list its contributions when
/// opened.
pub(super) fn str_offsets(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, at: Span) -> bool {
    table(b, id, elf, at, Kind::StrOffsets)
}

/// Makes `id`, `.debug_addr` at `at`, list its contributions when opened.
pub(super) fn addr(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, at: Span) -> bool {
    table(b, id, elf, at, Kind::Addr)
}

fn table(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, at: Span, kind: Kind) -> bool {
    if at.len < 8 {
        return false;
    }
    let elf = elf.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let debug = Arc::new(Debug::for_elf(b, &elf));
            let e = elf.e;
            if kind == Kind::Addr && !headed(b, at, e) && pre_standard(b, &elf) {
                let stride = elf.word();
                let whole = at.take((at.len / stride) * stride);
                entries(b, id, &debug, kind, whole, stride, e);
                return;
            }
            // The header's first word: a contribution's length, and where
            // the next one starts.
            let end = at.end();
            let next = move |b: &Builder<'_>, off: u64| super::line::unit_end(b, off, e, end);
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
                let end = next(b, off)?;
                contribution(b, p, &debug, i, off, end, kind, e);
                Some(end)
            });
            let seq = Seq::scan(at.offset, end, MAX_CONTRIBUTIONS, |off| next(b, off), step);
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
    let dwarf64 = initial_length(&mut f);
    f.dec("version", 2);
    let stride = match kind {
        Kind::StrOffsets => {
            f.uint("padding", 2);
            if dwarf64 {
                8
            } else {
                4
            }
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
            size
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
    entries(b, node, debug, kind, b.span(from, end - from), stride, e);
}

/// True when the table at `at` starts with a DWARF 5 header: a length
/// that fits, then version 5.
fn headed(b: &Builder<'_>, at: Span, e: crate::model::Endian) -> bool {
    super::line::unit_end(b, at.offset, e, u64::MAX).is_some_and(|end| end <= at.end())
        && version(b, at.offset, e) == Some(5)
}

/// The version after the initial length at `off`.
fn version(b: &Builder<'_>, off: u64, e: crate::model::Endian) -> Option<u16> {
    let escape = b.read_u32(off, e)? == 0xffff_ffff;
    b.read_u16(off + if escape { 12 } else { 4 }, e)
}

/// True when the ELF has a `.debug_info` whose units are all of DWARF 4 or
/// older: its `.debug_addr` is the GNU one, without headers.
fn pre_standard(b: &Builder<'_>, elf: &Elf) -> bool {
    let Some(info) = elf
        .secs
        .iter()
        .find(|s| s.name == SectionId::DebugInfo.name())
        .and_then(|s| elf.data(s))
    else {
        return false;
    };
    let mut off = info.offset;
    let mut seen = false;
    while off < info.end() {
        let Some(end) = super::line::unit_end(b, off, elf.e, info.end()) else {
            break;
        };
        match version(b, off, elf.e) {
            Some(2..=4) => seen = true,
            _ => return false,
        }
        if end <= off {
            break;
        }
        off = end;
    }
    seen
}

/// The entries of a table at `at`, `stride` bytes each, under `node`.
fn entries(
    b: &mut Builder<'_>,
    node: NodeId,
    debug: &Arc<Debug>,
    kind: Kind,
    at: Span,
    stride: u64,
    e: crate::model::Endian,
) {
    let n = at.len / stride;
    let (section, what) = match kind {
        Kind::StrOffsets => (SectionId::DebugStrOffsets, "offsets"),
        Kind::Addr => (SectionId::DebugAddr, "addresses"),
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
                    b.link(id, b.span(o, s));
                }
            }
        }
    });
    b.array(node, what, at.offset, n, stride, elem);
}
