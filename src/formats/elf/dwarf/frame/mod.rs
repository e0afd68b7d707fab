//! Call frame information: `.eh_frame` and `.debug_frame`, each CIE and
//! FDE at its bytes (length, CIE id or pointer, version, augmentation and
//! its data with the pointer encodings named, alignment factors, return
//! address register, initial location and address range), then its call
//! frame instructions as operations with their operands, registers named
//! as `llvm-dwarfdump` names them for the machine. An FDE's initial
//! location links to the code it covers and is named by the function
//! there; its CIE pointer links to its CIE. In an object file the fields
//! relocations set (initial locations, `.debug_frame`'s CIE pointers,
//! RISC-V's address ranges) are what the linker would put there.
//!
//! `.eh_frame_hdr`: its header and its binary search table, each entry
//! linked to its FDE.
//!
//! This file knows the bytes and what it is given ([`Ctx`]), not the ELF
//! around them.

use std::sync::Arc;

use super::line::{add, Cur};
use crate::model::{Builder, NodeId, Seq, Step, Value};

mod entry;
mod hdr;
mod insn;
mod read;
mod regs;

use entry::{entry_end, read_entry, Cie, Kind};
pub(crate) use hdr::{header, FdeAt};
use insn::insn;
pub(crate) use read::{named_machine, Code, Ctx, Expr};
use read::{MAX_ENTRIES, MAX_INSNS};

// ---- nodes ----

/// Makes `id`, `.eh_frame` or `.debug_frame`, list its entries when
/// opened, read with what `ctx` makes then.
pub(crate) fn entries(
    b: &mut Builder<'_>,
    id: NodeId,
    len: u64,
    ctx: impl Fn(&Builder<'_>) -> Arc<Ctx> + Send + Sync + 'static,
) -> bool {
    if len < 4 {
        return false;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let ctx = ctx(b);
            let c = ctx.clone();
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, _, off| {
                let s = off - c.at;
                let end = entry_end(b.data(), &c, s)?;
                entry(b, p, &c, s);
                Some(c.at + end.max(s + 4))
            });
            let d = b.data();
            let (cies, fdes) = count(d, &ctx);
            let seq = Seq::scan(
                ctx.at,
                ctx.at + ctx.len,
                MAX_ENTRIES,
                |off| entry_end(d, &ctx, off - ctx.at).map(|e| ctx.at + e.max(off - ctx.at + 4)),
                step,
            );
            if seq.stop() < ctx.at + ctx.len {
                let stop = seq.stop();
                b.error(
                    stop,
                    ctx.at + ctx.len - stop,
                    "call frame entries: the bytes after the last entry are not one",
                );
            }
            b.seq_now(id, seq);
            b.set_value(
                id,
                Value::text(format!(
                    "{cies} CIE{}, {fdes} FDE{}",
                    if cies == 1 { "" } else { "s" },
                    if fdes == 1 { "" } else { "s" }
                )),
            );
        }),
    );
    true
}

/// The CIEs and FDEs of the section.
fn count(d: &[u8], ctx: &Ctx) -> (u64, u64) {
    let (mut n, mut cies, mut fdes) = (0u64, 0u64, 0u64);
    let mut off = 0;
    let word = |c: &mut Cur<'_>| -> Option<(bool, u64, u64)> {
        let l = c.uint(4)?;
        let (w, l) = if l == 0xffff_ffff {
            (8, c.uint(8)?)
        } else {
            (4, l)
        };
        Some((w == 8, l, c.uint(w).unwrap_or(0)))
    };
    while off < ctx.len && n < MAX_ENTRIES {
        let mut c = ctx.cursor(d, off);
        let Some((w64, l, id)) = word(&mut c) else {
            break;
        };
        let Some(end) = entry_end(d, ctx, off) else {
            break;
        };
        n += 1;
        if l != 0 {
            let cie = if ctx.eh {
                id == 0
            } else {
                id == if w64 { u64::MAX } else { 0xffff_ffff }
            };
            if cie {
                cies += 1;
            } else {
                fdes += 1;
            }
        }
        off = end.max(off + 4);
    }
    (cies, fdes)
}

/// One entry's node: its fields, and its instructions when opened.
fn entry(b: &mut Builder<'_>, p: NodeId, ctx: &Arc<Ctx>, off: u64) {
    let Some(e) = read_entry(b.data(), ctx, off, true) else {
        return;
    };
    let at = ctx.at + off;
    let size = e.end - off;
    let (name, value) = match &e.kind {
        Kind::Terminator => (
            "terminator".to_string(),
            Value::text("zero length: the end"),
        ),
        Kind::Cie(c) => (
            format!("CIE [0x{off:x}]"),
            Value::text(format!(
                "\"{}\", code_align {}, data_align {}",
                c.augmentation, c.code_align, c.data_align
            )),
        ),
        Kind::Fde {
            cie,
            read,
            begin,
            range,
            sec,
        } => {
            let (_, label) = (ctx.code)(*sec, *begin);
            let label = label.map(|l| format!(" {l}")).unwrap_or_default();
            (
                format!("FDE [0x{off:x}]"),
                match read {
                    Ok(_) => Value::text(format!(
                        "pc=0x{begin:x}...0x{:x}{label}",
                        begin.wrapping_add(*range)
                    )),
                    Err(_) => Value::text(format!("CIE at 0x{cie:x} does not read")),
                },
            )
        }
    };
    let node = b.group(p, name, at, size);
    b.set_value(node, value);
    for item in &e.items {
        add(b, node, item);
    }
    if let Some((o, n, m)) = &e.problem {
        b.error(*o, *n, m.clone());
        return;
    }
    let cie = match &e.kind {
        Kind::Cie(c) => c.clone(),
        Kind::Fde { read: Ok(c), .. } => c.clone(),
        _ => return,
    };
    let (from, to) = e.insns;
    if from >= to {
        return;
    }
    let id = b.group(node, "instructions", from, to - from);
    let start = match &e.kind {
        Kind::Fde { begin, .. } => *begin,
        _ => 0,
    };
    let ctx = ctx.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            instructions(b, id, &ctx, &cie, (from, to), start);
        }),
    );
}

/// The instructions in `[from, to)` under `id`, `loc` the address they
/// start at.
fn instructions(
    b: &mut Builder<'_>,
    id: NodeId,
    ctx: &Ctx,
    cie: &Cie,
    (from, to): (u64, u64),
    mut loc: u64,
) {
    let d = b.data();
    let mut c = Cur {
        d,
        pos: from,
        end: to,
        e: ctx.e,
    };
    let word = cie.word;
    let expr = |bytes: &[u8]| (ctx.expr)(bytes, word);
    let mut n = 0u64;
    let mut list = Vec::new();
    let mut problem = None;
    while c.pos < to {
        if n == MAX_INSNS {
            problem = Some((
                c.pos,
                format!("more than {MAX_INSNS} instructions; the rest are not read"),
            ));
            break;
        }
        let start = c.pos;
        match insn(&mut c, ctx, cie, &mut loc, &expr) {
            Ok(i) => list.push(i),
            // At the instruction, to the entry's end.
            Err((_, m)) => {
                problem = Some((start, m));
                break;
            }
        }
        n += 1;
    }
    for i in &list {
        let node = b.group(id, &i.name, i.off, i.size);
        b.set_value(node, Value::text(&i.text));
        for o in &i.operands {
            add(b, node, o);
        }
    }
    b.set_value(
        id,
        Value::text(format!("{n} instruction{}", if n == 1 { "" } else { "s" })),
    );
    if let Some((at, m)) = problem {
        b.error(at, to.saturating_sub(at).max(1), m);
    }
}
