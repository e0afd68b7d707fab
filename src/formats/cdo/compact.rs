//! The compact record layout some NPU partitions carry instead of a
//! command stream.

use std::sync::Arc;

use super::commands::{addr_text, decode, dma_words, render, Got, Payload};
use super::layout::{
    compact_record, dma_entry, mask_write_entry, write_entry, CompactRecord, DmaEntry,
};
use super::names::aie_split;
use super::shared::{Compact, Ctx, LE, MAX_DEPTH};
use super::stream::{summary, word, Budget, Tally};
use super::table::{command, command_name, ADDRESS64};
use crate::model::record::Record;
use crate::model::text::{self, hex32};
use crate::model::{group_size, num, Builder, NodeId, Seq, Span, GROUP};
use crate::model::{Fields, Radix, Value};

// ---------------------------------------------------------------------------
// the compact layout

/// A compact record's op: the id of the generic command its entries
/// stand for.
const OP_MASK_WRITE: u32 = 2;
const OP_WRITE: u32 = 3;
const OP_DMA_WRITE: u32 = 5;

/// Bytes per entry of a compact record with op `op`.
pub(super) fn stride(op: u32) -> Option<u64> {
    match op {
        OP_WRITE => Some(write_entry::SIZE),
        OP_MASK_WRITE => Some(mask_write_entry::SIZE),
        OP_DMA_WRITE => Some(dma_entry::SIZE),
        _ => None,
    }
}

/// Said wherever the compact layout is shown: nothing public describes it.
pub const INFERRED: &str = "layout inferred from the data; no public document describes it";
/// Said of the compact layout's known oddities.
pub const ODDITY: &str = "a known oddity of the compact layout, which is inferred from the data";

/// One record: its op, its first entry, its entry count.
#[derive(Clone, Copy)]
pub(super) struct Rec {
    pub(super) off: u64,
    pub(super) op: u32,
    pub(super) n: u64,
}

pub(super) fn rec_at(b: &Builder<'_>, off: u64, end: u64) -> Option<Rec> {
    let h = CompactRecord::read(b.slice(off, end.saturating_sub(off))).ok()?;
    let st = stride(h.op)?;
    let room = (end - off - compact_record::SIZE) / st;
    Some(Rec {
        off,
        op: h.op,
        n: u64::from(h.count).min(room),
    })
}

impl Rec {
    pub(super) fn entries(&self) -> u64 {
        self.off + compact_record::SIZE
    }
    pub(super) fn end(&self) -> u64 {
        self.entries() + self.n * stride(self.op).unwrap_or(write_entry::SIZE)
    }
}

/// A record's op is the id of the generic command its entries stand for.
pub(super) fn op_name(op: u32) -> &'static str {
    match stride(op) {
        Some(_) => command_name(1, op as u8).unwrap_or("?"),
        None => "?",
    }
}

/// The record area (its first B bytes) and the data pool after it, in
/// `at` (from the records' start to the end of the CDO).
pub(super) fn parse_compact(
    b: &mut Builder<'_>,
    parent: NodeId,
    at: Span,
    c: Compact,
    ctx: &Arc<Ctx>,
    declared: u64,
) {
    let lim = at.end();
    b.info(
        at.offset,
        0,
        format!("compact CDO records instead of a command stream: {INFERRED}"),
    );
    let mut area_end = at.offset.saturating_add(c.record_bytes);
    if area_end > lim {
        b.error(
            at.offset,
            lim - at.offset,
            format!(
                "the compact record area of {} bytes runs {} bytes past the end of the data ({INFERRED})",
                c.record_bytes,
                area_end - lim
            ),
        );
        area_end = lim;
    }
    let pool = area_end;
    let data_pool = at.skip(pool - at.offset);
    if declared != pool {
        b.info(
            at.offset.saturating_sub(8),
            4,
            format!(
                "the CDO length ({} bytes of commands) describes the original command stream, not these records ({ODDITY})",
                declared - at.offset
            ),
        );
    }
    // The fast pass: records, their commands, the pool they use.
    let mut t = Tally {
        regs: ctx.regs,
        ..Tally::default()
    };
    let mut budget = Budget::new();
    let mut marks = Vec::new();
    let mut count = 0u64;
    let mut cmds = 0u64;
    let mut off = at.offset;
    while off < area_end {
        let op = word(b, off, area_end);
        let Some(r) = rec_at(b, off, area_end) else {
            match op {
                Some(op) if off + compact_record::SIZE <= area_end => b.error(
                    off,
                    4,
                    format!("unknown compact record op {op} at 0x{off:x}: the rest of the record area is not decoded ({INFERRED})"),
                ),
                _ => b.error(
                    off,
                    area_end - off,
                    format!("{} bytes at the end of the record area are too few for a record", area_end - off),
                ),
            }
            break;
        };
        let want = word(b, compact_record::AT.count.of(off), area_end).map_or(0, u64::from);
        if want > r.n {
            b.error(
                off,
                area_end - off,
                format!(
                    "compact record at 0x{off:x} has {want} entries, only {} fit in the record area",
                    r.n
                ),
            );
        }
        if count.is_multiple_of(GROUP) {
            marks.push(off);
        }
        count += 1;
        cmds += r.n;
        let key = 0x0100 | r.op as u16;
        t.count(key, r.n);
        tally_entries(b, &mut t, &mut budget, &r, area_end, data_pool);
        off = r.end();
        if r.n < want {
            break;
        }
    }
    let stop = off;
    budget.close(b, at.take(area_end - at.offset));
    summary(b, parent, at.offset, cmds, &t, ctx);
    let rid = b.add(
        parent,
        "records",
        at.offset,
        area_end - at.offset,
        Some(
            format!(
                "{} records, {} commands ({INFERRED})",
                num(count),
                num(cmds)
            )
            .into(),
        ),
    );
    let ctx2 = ctx.clone();
    let seq = Seq::from_marks(
        marks,
        count,
        stop,
        Arc::new(move |b: &mut Builder<'_>, parent, i, off| {
            build_record(b, parent, i, off, area_end, data_pool, &ctx2)
        }),
    );
    b.seq(rid, seq);
    if stop < area_end {
        let bytes = b.slice(stop, area_end - stop);
        b.leaf(
            parent,
            "incomplete",
            stop,
            area_end - stop,
            text::hex(bytes, 16),
        );
    }
    if pool < lim {
        let records = at.take(stop - at.offset);
        let ctx3 = ctx.clone();
        let pid = b.add(
            parent,
            "data_pool",
            pool,
            lim - pool,
            Some(format!("{} bytes of DMA_WRITE data", num(lim - pool)).into()),
        );
        b.lazy(
            pid,
            Arc::new(move |b: &mut Builder<'_>, id| pool_chunks(b, id, records, data_pool, &ctx3)),
        );
    }
}

/// Counts the entries of the record `r` in the tally: the registers they
/// write and, for DMA_WRITE, the pool data they use (a payload the pool
/// cuts short is an info at the entry).
fn tally_entries(
    b: &mut Builder<'_>,
    t: &mut Tally,
    budget: &mut Budget,
    r: &Rec,
    area_end: u64,
    pool: Span,
) {
    let st = stride(r.op).unwrap_or(write_entry::SIZE);
    for j in 0..r.n {
        let e = r.entries() + j * st;
        if r.op == OP_DMA_WRITE {
            let bytes = b.slice(e, st.min(area_end.saturating_sub(e)));
            let Ok(d) = DmaEntry::read_zeroed(bytes, LE) else {
                continue;
            };
            t.touch(d.address_high, d.address_low);
            t.write_to(d.address_high, d.address_low);
            let po = u64::from(d.pool_offset);
            let lw = u64::from(d.length & 0xffff);
            t.dma_bytes += 4 * lw;
            let ds = pool.offset.saturating_add(po);
            let de = ds.saturating_add(4 * lw);
            if de > pool.end() {
                let have = pool.end().saturating_sub(ds);
                budget.info(
                    b,
                    e,
                    st,
                    format!(
                        "DMA_WRITE data at pool offset 0x{po:x} needs {} bytes, {have} remain: the payload is cut {} bytes short ({ODDITY})",
                        4 * lw,
                        de - pool.end().max(ds)
                    ),
                );
            }
        } else {
            // WRITE and MASK_WRITE entries start with their address.
            let a = word(b, e, area_end).unwrap_or(0);
            t.touch(0, a);
            t.write_to(0, a);
        }
    }
}

/// One record node with its entries, each shown as the command it stands
/// for.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_record(
    b: &mut Builder<'_>,
    parent: NodeId,
    index: u64,
    off: u64,
    area_end: u64,
    pool: Span,
    ctx: &Arc<Ctx>,
) -> Option<u64> {
    let r = rec_at(b, off, area_end)?;
    let name = op_name(r.op);
    let st = stride(r.op)?;
    let rid = b.add(
        parent,
        format!("[{index}] {name}"),
        off,
        r.end() - off,
        Some(format!("{} × {name}", num(r.n)).into()),
    );
    let at = compact_record::AT;
    let op_text = format!("{} ({name})", r.op);
    b.leaf(rid, "op", at.op.of(off), at.op.size, op_text);
    b.leaf(rid, "count", at.count.of(off), at.count.size, num(r.n));
    let ctx = ctx.clone();
    let op = r.op;
    b.array(
        rid,
        "commands",
        r.entries(),
        r.n,
        st,
        Arc::new(move |b: &mut Builder<'_>, parent, j, e| {
            entry(b, parent, j, e, op, pool, &ctx);
        }),
    );
    Some(r.end())
}

/// One entry of a compact record, shown as the command it stands for.
#[allow(clippy::too_many_arguments)]
pub(super) fn entry(
    b: &mut Builder<'_>,
    parent: NodeId,
    j: u64,
    e: u64,
    op: u32,
    pool: Span,
    ctx: &Arc<Ctx>,
) {
    let name = op_name(op);
    let st = stride(op).unwrap_or(write_entry::SIZE);
    let node = b.group(parent, format!("[{j}] {name}"), e, st);
    let p = Payload {
        node,
        off: e,
        n: st / 4,
        lim: e + st,
    };
    let v = match command(1, op as u8) {
        // WRITE and MASK_WRITE entries are laid out as the commands are.
        Some(c) if op != OP_DMA_WRITE => {
            let got = decode(b, p, c.fields, ctx, MAX_DEPTH);
            c.summary
                .and_then(|t| render(t, c.fields, &got, ctx))
                .unwrap_or_default()
        }
        // DMA_WRITE entries give where their data lies in the pool.
        _ => {
            let a = match decode(b, p, ADDRESS64, ctx, MAX_DEPTH).first() {
                Some(Some(Got::Pair(h, l))) => addr_text(*h, *l, ctx),
                _ => "?".to_string(),
            };
            let at = dma_entry::AT;
            let mut f = Fields::new(b, node, at.pool_offset.of(e), LE);
            let po = f.builder().read_u32(at.pool_offset.of(e), LE);
            let po = po.map_or(0, u64::from);
            let ds = pool.offset.saturating_add(po);
            let pid = f.builder().leaf(
                node,
                "pool_offset",
                at.pool_offset.of(e),
                at.pool_offset.size,
                Value::with(po, Radix::Auto, format!(" (file offset 0x{ds:x})")).with_width(4),
            );
            f.skip(at.pool_offset.size);
            let lf = f
                .field("length", at.length.size, |v| {
                    let rest = format!(" words, flag {} (meaning unknown)", v >> 16);
                    Value::with(v & 0xffff, Radix::Auto, rest).with_width(4)
                })
                .unwrap_or(0);
            let lw = lf & 0xffff;
            if ds < pool.end() {
                let l = (4 * lw).min(pool.end() - ds);
                b.link(pid, b.span(ds, l));
                b.link(node, b.span(ds, l));
            }
            format!("{a} <- {} bytes", num(4 * lw))
        }
    };
    b.set_value(node, v);
}

/// The DMA_WRITE payloads in the pool, one node each, in the order of the
/// records that use them.
pub(super) fn pool_chunks(
    b: &mut Builder<'_>,
    parent: NodeId,
    records: Span,
    pool: Span,
    ctx: &Arc<Ctx>,
) {
    // Collect the DMA records (bounded by the record area), then show their
    // entries' data in groups.
    let mut recs: Vec<(Rec, u64)> = Vec::new();
    let mut total = 0u64;
    let stop = records.end();
    let mut off = records.offset;
    while off < stop {
        let Some(r) = rec_at(b, off, stop) else {
            break;
        };
        if r.op == OP_DMA_WRITE && r.n > 0 {
            recs.push((r, total));
            total += r.n;
        }
        off = r.end();
    }
    let recs = Arc::new(recs);
    chunk_fill(b, parent, 0, total, &recs, pool, ctx);
}

/// The data range of DMA entry `k` (counted over all DMA records).
pub(super) fn chunk_range(
    b: &Builder<'_>,
    recs: &[(Rec, u64)],
    k: u64,
    pool: Span,
) -> Option<(u64, u64, u32)> {
    let i = recs
        .partition_point(|(_, first)| *first <= k)
        .checked_sub(1)?;
    let (r, first) = recs.get(i)?;
    let e = r.entries() + (k - first) * dma_entry::SIZE;
    let d = DmaEntry::read(b.slice(e, dma_entry::SIZE)).ok()?;
    let (lo, po) = (d.address_low, u64::from(d.pool_offset));
    let lw = u64::from(d.length & 0xffff);
    let ds = pool.offset.saturating_add(po).min(pool.end());
    let de = ds.saturating_add(4 * lw).min(pool.end());
    Some((ds, de - ds, lo))
}

#[allow(clippy::too_many_arguments)]
/// The high address word of DMA entry `k` (counted over all DMA records).
fn chunk_high(b: &Builder<'_>, recs: &[(Rec, u64)], k: u64) -> Option<u32> {
    let i = recs
        .partition_point(|(_, first)| *first <= k)
        .checked_sub(1)?;
    let (r, first) = recs.get(i)?;
    b.read_u32(r.entries() + (k - first) * dma_entry::SIZE, LE)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn chunk_fill(
    b: &mut Builder<'_>,
    parent: NodeId,
    lo: u64,
    hi: u64,
    recs: &Arc<Vec<(Rec, u64)>>,
    pool: Span,
    ctx: &Arc<Ctx>,
) {
    let n = hi - lo;
    if n <= GROUP {
        for k in lo..hi {
            if let Some((s, l, a)) = chunk_range(b, recs, k, pool) {
                let id = b.leaf(
                    parent,
                    format!("[{k}] {}", hex32(a)),
                    s,
                    l,
                    format!("{} bytes: {}", num(l), text::hex(b.slice(s, l), 16)),
                );
                // The words a DMA write puts in registers, named.
                if chunk_high(b, recs, k) == Some(0) {
                    let (_, r, o) = aie_split(a);
                    dma_words(b, id, b.span(s, l), r, o, ctx);
                }
            }
        }
        return;
    }
    let g = group_size(n);
    let mut s = lo;
    while s < hi {
        let e = s.saturating_add(g).min(hi);
        // The group spans its first and last chunks (the pool is filled in
        // record order).
        let first = chunk_range(b, recs, s, pool).map_or(pool.offset, |r| r.0);
        let last = chunk_range(b, recs, e - 1, pool).map_or(pool.end(), |r| r.0 + r.1);
        let (gs, ge) = if first <= last {
            (first, last)
        } else {
            (pool.offset, pool.end())
        };
        let gid = b.group(parent, format!("[{s}..{e})"), gs, ge - gs);
        let rc = recs.clone();
        let cx = ctx.clone();
        b.lazy(
            gid,
            Arc::new(move |b: &mut Builder<'_>, id| chunk_fill(b, id, s, e, &rc, pool, &cx)),
        );
        s = e;
    }
}
