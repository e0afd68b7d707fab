//! Symbols shown where their bytes are: under a section's contents, each
//! function and object symbol with a size as a node over its bytes, linked
//! to its symbol table entry.

use std::sync::Arc;

use super::shared::Placed;
use super::symbols::{read_sym, real_section, relocatable, resolve, sym_entry, sym_name};
use super::{constants, Elf, Sec};
use crate::model::{Builder, Gap, NodeId, Span, Value};

/// `STT_FUNC`.
const STT_FUNC: u8 = 2;

/// Symbols looked at for placing, at most (a table larger than this places
/// only its first entries).
const MAX_SCAN: u64 = 1 << 22;
/// Symbols placed in one section, at most.
const MAX_PLACED: usize = 1 << 16;

fn collect(b: &Builder<'_>, elf: &Elf) -> (u32, Placed) {
    let table = elf
        .secs
        .iter()
        .find(|s| s.typ == constants::SHT_SYMTAB)
        .or_else(|| elf.secs.iter().find(|s| s.typ == constants::SHT_DYNSYM));
    let Some(t) = table else {
        return (0, Vec::new());
    };
    let n = (t.size / elf.sym_size().max(1)).min(MAX_SCAN);
    let mut out = Vec::new();
    for i in 1..n {
        let Some(o) = sym_entry(elf, t.index, i) else {
            break;
        };
        let Some(mut sym) = read_sym(b, elf, o) else {
            break;
        };
        resolve(b, elf, t.index, i, &mut sym);
        if sym.size == 0 || !matches!(sym.typ(), 1 | 2) {
            continue;
        }
        let Some(sec) = real_section(&sym) else {
            continue;
        };
        let Some(s) = elf.sec(sec.into()) else {
            continue;
        };
        let rel = if relocatable(elf) {
            Some(sym.value)
        } else {
            sym.value.checked_sub(s.addr)
        };
        if let Some(rel) = rel.filter(|&r| r < s.size) {
            out.push((sec, rel, sym.size.min(s.size - rel), i));
        }
    }
    out.sort_unstable();
    (t.index, out)
}

/// The functions among a section's symbols `mine` (the section's
/// contents at `at`, its first byte at address `base`), as
/// `(start, len, pc)`, in order.
fn functions(
    b: &Builder<'_>,
    elf: &Elf,
    table: u32,
    mine: &[(u32, u64, u64, u64)],
    at: Span,
    base: u64,
) -> Arc<[(u64, u64, u64)]> {
    mine.iter()
        .take(MAX_PLACED)
        .filter(|&&(_, rel, size, i)| {
            size.min(at.len.saturating_sub(rel)) > 0
                && sym_entry(elf, table, i)
                    .and_then(|o| read_sym(b, elf, o))
                    .is_some_and(|s| s.typ() == STT_FUNC)
        })
        .map(|&(_, rel, size, _)| {
            (
                at.offset + rel,
                size.min(at.len.saturating_sub(rel)),
                base.wrapping_add(rel),
            )
        })
        .collect()
}

/// Adds the symbols that lie in section `s` (its contents at `at`) under
/// `id`.
pub(super) fn symbols_in(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) {
    if s.flags & constants::SHF_ALLOC == 0 {
        return;
    }
    let (table, placed) = elf.placed.get_or_init(|| collect(b, elf));
    let lo = placed.partition_point(|p| p.0 < s.index);
    let hi = placed.partition_point(|p| p.0 <= s.index);
    // With instructions asked for, code is decoded where it lies: in its
    // functions, or all through a section without any.
    let base = if relocatable(elf) { 0 } else { s.addr };
    let mine = placed.get(lo..hi).unwrap_or_default();
    let code = elf
        .code
        .as_ref()
        .filter(|_| s.flags & constants::SHF_EXECINSTR != 0)
        .map(|t| super::code::Place {
            t: t.clone(),
            elf: elf.clone(),
            sec: s.index,
            funcs: functions(b, elf, *table, mine, at, base),
        });
    let Some(mine) = Some(mine).filter(|m| !m.is_empty()) else {
        if let Some(t) = &code {
            super::code::instructions(b, id, t, at, base);
        }
        return;
    };
    // Bytes of the section outside its symbols are its contents all the
    // same (alignment, code no symbol names).
    b.gaps(id, Gap::Contents);
    if mine.len() > MAX_PLACED {
        b.info(
            at.offset,
            at.len.min(1),
            format!(
                "section [{}] {}: {} symbols; the first {MAX_PLACED} are shown in its contents",
                s.index,
                s.name,
                mine.len()
            ),
        );
    }
    for &(_, rel, size, i) in mine.iter().take(MAX_PLACED) {
        let Some(o) = sym_entry(elf, *table, i) else {
            continue;
        };
        let Some(sym) = read_sym(b, elf, o) else {
            continue;
        };
        let name = sym_name(b, elf, *table, i).unwrap_or_else(|| format!("symbol [{i}]"));
        let size = size.min(at.len.saturating_sub(rel));
        let text = format!(
            "{} {}, symbol [{i}]",
            constants::sym_type(sym.typ()),
            constants::sym_bind(sym.bind())
        );
        let func = code.as_ref().filter(|_| sym.typ() == STT_FUNC);
        // A function of decoded code shows its name demangled, as the
        // symbol table does.
        let value = match func {
            Some(_) => Value::symbol(&name, text.into()),
            None => Value::text(text),
        };
        let node = b.leaf(id, &name, at.offset + rel, size, value);
        b.link(node, b.span(o, elf.sym_size()));
        if let Some(t) = func {
            let bytes = at.at(at.offset + rel, size);
            super::code::instructions(b, node, t, bytes, base.wrapping_add(rel));
        }
    }
}
