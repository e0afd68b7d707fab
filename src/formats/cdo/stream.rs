//! Walking a command stream: command words, the fast pass (tally and
//! marks) and the lazy command lists.

use std::collections::BTreeMap;

use super::aie_regs;
use super::layout::{command, COMMAND_WORD};
use super::names::{aie_split, bits_list, count_of};
use super::shared::{Ctx, DIAG_BUDGET, LE, MAX_DEPTH};
use super::table::{command, command_name, Check, Kind};
use crate::model::Severity;
use crate::model::{num, Builder, NodeId, Span, GROUP};

// ---------------------------------------------------------------------------
// command words

/// A decoded command word (and long length, if any).
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    pub(super) off: u64,
    pub(super) word: u32,
    pub(super) long: bool,
    /// Payload length in words.
    pub(super) words: u64,
}

impl Head {
    pub(super) fn module(&self) -> u8 {
        (self.word >> 8) as u8
    }
    pub(super) fn id(&self) -> u8 {
        self.word as u8
    }
    pub(super) fn key(&self) -> u16 {
        self.word as u16
    }
    pub(super) fn payload(&self) -> u64 {
        self.off
            + if self.long {
                command::SIZE
            } else {
                COMMAND_WORD
            }
    }
    pub(super) fn end(&self) -> u64 {
        self.payload().saturating_add(self.words.saturating_mul(4))
    }
    /// The loader stops at module 1's command 0 and at an all-ones word.
    pub(super) fn is_end_mark(&self) -> bool {
        self.key() == 0x0100 || self.word == u32::MAX
    }
    pub(super) fn name(&self) -> String {
        if self.word == u32::MAX {
            return "END_MARK".to_string();
        }
        match command_name(self.module(), self.id()) {
            Some(n) => n.to_string(),
            None => format!("CMD_0x{:04x}", self.key()),
        }
    }
}

pub(super) enum HeadErr {
    /// Fewer than 4 bytes remain.
    NoWord,
    /// A long header without its length word.
    NoLength(u32),
}

pub(super) fn word(b: &Builder<'_>, off: u64, end: u64) -> Option<u32> {
    if off.checked_add(4)? > end {
        return None;
    }
    b.read_u32(off, LE)
}

pub(super) fn head(b: &Builder<'_>, off: u64, end: u64) -> Result<Head, HeadErr> {
    let w = word(b, off, end).ok_or(HeadErr::NoWord)?;
    if w == u32::MAX {
        return Ok(Head {
            off,
            word: w,
            long: false,
            words: 0,
        });
    }
    let n = (w >> 16) & 0xff;
    if n == 255 {
        let l = word(b, command::AT.long_length.of(off), end).ok_or(HeadErr::NoLength(w))?;
        Ok(Head {
            off,
            word: w,
            long: true,
            words: u64::from(l),
        })
    } else {
        Ok(Head {
            off,
            word: w,
            long: false,
            words: u64::from(n),
        })
    }
}

// ---------------------------------------------------------------------------
// the fast pass

/// What one pass over a stream found, for the summary node.
pub(super) struct Tally {
    /// Commands by (module << 8) | id.
    pub(super) by_cmd: BTreeMap<u16, u64>,
    /// The generic module's commands, counted apart (they are most of a
    /// stream, and an array is faster than the map).
    pub(super) generic: [u64; 64],
    pub(super) dma_bytes: u64,
    pub(super) cols: u128,
    pub(super) rows: u32,
    /// Addresses above 32 bits (not AIE partition addresses).
    pub(super) wide: u64,
    pub(super) nested: u64,
    /// The generation whose register names are looked up.
    pub(super) regs: Option<aie_regs::Gen>,
    /// Writes, mask writes and DMA writes; those whose address has a
    /// register name.
    pub(super) writes: u64,
    pub(super) named: u64,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            by_cmd: BTreeMap::new(),
            generic: [0; 64],
            dma_bytes: 0,
            cols: 0,
            rows: 0,
            wide: 0,
            nested: 0,
            regs: None,
            writes: 0,
            named: 0,
        }
    }
}

impl Tally {
    pub(super) fn count(&mut self, key: u16, n: u64) {
        match self.generic.get_mut(usize::from(key).wrapping_sub(0x100)) {
            Some(c) if key >= 0x100 => *c += n,
            _ => *self.by_cmd.entry(key).or_insert(0) += n,
        }
    }

    /// Counts by command key, in key order.
    pub(super) fn counts(&self) -> Vec<(u16, u64)> {
        let mut v: Vec<(u16, u64)> = self.by_cmd.iter().map(|(&k, &n)| (k, n)).collect();
        for (i, &n) in self.generic.iter().enumerate() {
            if n > 0 {
                v.push((0x100 + i as u16, n));
            }
        }
        v.sort_unstable();
        v
    }

    pub(super) fn touch(&mut self, hi: u32, lo: u32) {
        if hi != 0 {
            self.wide += 1;
            return;
        }
        let (c, r, _) = aie_split(lo);
        self.cols |= 1u128 << c;
        self.rows |= 1u32 << r;
    }

    /// Counts a write (a mask write, a DMA write) to `hi:lo`, and whether
    /// its address has a register name.
    pub(super) fn write_to(&mut self, hi: u32, lo: u32) {
        self.writes += 1;
        if hi != 0 {
            return;
        }
        let (_, r, o) = aie_split(lo);
        if self.regs.is_some_and(|g| g.lookup(r, o).is_some()) {
            self.named += 1;
        }
    }
}

/// Diagnostics of one stream, counted against a budget.
pub(super) struct Budget {
    pub(super) left: u32,
    pub(super) dropped: u64,
}

impl Budget {
    pub(super) fn new() -> Self {
        Budget {
            left: DIAG_BUDGET,
            dropped: 0,
        }
    }
    pub(super) fn warn(&mut self, b: &mut Builder<'_>, off: u64, size: u64, msg: String) {
        self.add(b, Severity::Warning, off, size, msg);
    }
    /// Something found in valid files (a known oddity of a layout).
    pub(super) fn info(&mut self, b: &mut Builder<'_>, off: u64, size: u64, msg: String) {
        self.add(b, Severity::Info, off, size, msg);
    }
    fn add(&mut self, b: &mut Builder<'_>, sev: Severity, off: u64, size: u64, msg: String) {
        if self.left > 0 {
            self.left -= 1;
            b.diag(sev, off, size, msg);
        } else {
            self.dropped += 1;
        }
    }
    pub(super) fn close(&self, b: &mut Builder<'_>, at: Span) {
        if self.dropped > 0 {
            b.warn(
                at.offset,
                at.len,
                format!(
                    "{} more problems of this kind in this command stream are not listed",
                    self.dropped
                ),
            );
        }
    }
}

/// Where the commands of a stream start: the offset of every GROUP-th one.
pub(super) struct Walk {
    pub(super) count: u64,
    pub(super) marks: Vec<u64>,
    /// Where the last counted command ends (cut to the stream).
    pub(super) stop: u64,
    pub(super) end_mark: bool,
}

/// Walks the commands in `at`. With `tally`, counts them, checks them
/// (adding diagnostics) and walks nested streams too; without, only notes
/// where they start.
pub(super) fn walk(
    b: &mut Builder<'_>,
    at: Span,
    depth: u8,
    mut tally: Option<(&mut Tally, &mut Budget)>,
) -> Walk {
    let end = at.end();
    let mut w = Walk {
        count: 0,
        marks: Vec::new(),
        stop: at.offset,
        end_mark: false,
    };
    let mut off = at.offset;
    while off < end {
        let h = match head(b, off, end) {
            Ok(h) => h,
            Err(e) => {
                if tally.is_some() {
                    let msg = match e {
                        HeadErr::NoWord => format!(
                            "{} bytes at the end of the command stream are too few for a command word",
                            end - off
                        ),
                        HeadErr::NoLength(hw) => format!(
                            "command word 0x{hw:08x} announces a long length, but the stream ends before the length word"
                        ),
                    };
                    b.error(off, end - off, msg);
                }
                break;
            }
        };
        if w.count.is_multiple_of(GROUP) {
            w.marks.push(off);
        }
        w.count += 1;
        let cend = h.end();
        if let Some((t, budget)) = tally.as_mut() {
            check(b, &h, end, depth, t, budget);
        }
        if cend > end {
            if tally.is_some() {
                b.error(
                    off,
                    end - off,
                    format!(
                        "{} at 0x{off:x} needs {} bytes, {} bytes past the end of the command stream",
                        h.name(),
                        cend - off,
                        cend - end
                    ),
                );
            }
            w.stop = end;
            break;
        }
        off = cend;
        w.stop = off;
        if h.is_end_mark() {
            w.end_mark = true;
            break;
        }
    }
    w
}

/// True for the commands that write registers: MASK_WRITE, WRITE,
/// DMA_WRITE, MASK_WRITE64, WRITE64 and DMA_WRITE_KEYHOLE.
pub(super) fn is_write(key: u16) -> bool {
    matches!(key, 0x102 | 0x103 | 0x105 | 0x107 | 0x108 | 0x10d)
}

/// Counts one command into the tally and checks it.
pub(super) fn check(
    b: &mut Builder<'_>,
    h: &Head,
    end: u64,
    depth: u8,
    t: &mut Tally,
    budget: &mut Budget,
) {
    t.count(h.key(), 1);
    if h.word == u32::MAX {
        return;
    }
    let m = h.module();
    let id = h.id();
    let Some(c) = command(m, id) else {
        budget.warn(
            b,
            h.off,
            4,
            format!(
                "unknown command 0x{:04x} (module {m}, command {id}) at 0x{:x}, {} payload words: shown raw",
                h.key(),
                h.off,
                h.words
            ),
        );
        return;
    };
    let p = h.payload();
    let cend = h.end().min(end);
    if !c.arity.accepts(h.words) {
        budget.warn(
            b,
            h.off,
            cend - h.off,
            format!(
                "{} at 0x{:x} has {} payload words, expected {}",
                c.name,
                h.off,
                h.words,
                c.arity.expected()
            ),
        );
    }
    let arg = |b: &Builder<'_>, i: u64| -> Option<u32> {
        if i >= h.words {
            return None;
        }
        word(b, p.saturating_add(i.saturating_mul(4)), cend)
    };
    let mut tile = c.checks.contains(&Check::Tile);
    let mut i = 0u64;
    for f in c.fields {
        match f.kind {
            Kind::Aie if tile => {
                tile = false;
                if let Some(a) = arg(b, i) {
                    t.touch(0, a);
                    if is_write(h.key()) {
                        t.write_to(0, a);
                    }
                }
            }
            Kind::Addr64 if tile => {
                tile = false;
                if let (Some(hi), Some(lo)) = (arg(b, i), arg(b, i + 1)) {
                    t.touch(hi, lo);
                    if is_write(h.key()) {
                        t.write_to(hi, lo);
                    }
                }
            }
            Kind::Dma => {
                let n = h.words.saturating_sub(i).saturating_mul(4);
                t.dma_bytes = t.dma_bytes.saturating_add(n);
            }
            Kind::Commands => {
                let s = p.saturating_add(i.saturating_mul(4)).min(cend);
                if depth + 1 < MAX_DEPTH && s < cend {
                    let nested = b.span(s, cend - s);
                    let inner = walk(b, nested, depth + 1, Some((&mut *t, &mut *budget)));
                    t.nested += inner.count;
                }
            }
            _ => {}
        }
        i = i.saturating_add(f.width.words(i, h.words));
    }
}

/// The summary node: commands by type, DMA bytes, columns and rows.
pub(super) fn summary(
    b: &mut Builder<'_>,
    parent: NodeId,
    at: u64,
    count: u64,
    t: &Tally,
    ctx: &Ctx,
) {
    let mut parts = Vec::new();
    for (k, n) in t.counts() {
        let name = Head {
            off: 0,
            word: if k == 0xffff { u32::MAX } else { u32::from(k) },
            long: false,
            words: 0,
        }
        .name();
        parts.push((name, n));
    }
    let listed: Vec<String> = parts.iter().map(|(n, c)| format!("{c} {n}")).collect();
    let sid = b.add(
        parent,
        "summary",
        at,
        0,
        Some(if listed.is_empty() {
            count_of(count, "command").into()
        } else {
            format!("{}: {}", count_of(count, "command"), listed.join(", ")).into()
        }),
    );
    let cid = b.leaf(sid, "commands", at, 0, num(count));
    for (name, n) in &parts {
        b.leaf(cid, name, at, 0, num(*n));
    }
    if t.nested > 0 {
        b.leaf(sid, "nested_commands", at, 0, num(t.nested));
    }
    b.leaf(sid, "dma_bytes", at, 0, num(t.dma_bytes));
    b.leaf(
        sid,
        "columns",
        at,
        0,
        format!("{} (relative)", bits_list(t.cols)),
    );
    if !ctx.start_columns.is_empty() && t.cols != 0 {
        let per: Vec<String> = ctx
            .start_columns
            .iter()
            .map(|&sc| {
                let cols: Vec<String> = (0..128u32)
                    .filter(|i| t.cols >> i & 1 == 1)
                    .map(|i| (u32::from(sc) + i).to_string())
                    .collect();
                format!("{} at start column {sc}", cols.join(", "))
            })
            .collect();
        b.leaf(sid, "physical_columns", at, 0, per.join("; "));
    }
    b.leaf(sid, "rows", at, 0, bits_list(u128::from(t.rows)));
    if t.wide > 0 {
        b.leaf(sid, "wide_addresses", at, 0, num(t.wide));
    }
    if let Some(from) = &ctx.regs_from {
        let v = if ctx.regs.is_some() && t.writes > 0 {
            format!(
                "{from}: {} of {} written addresses named ({:.1}%)",
                t.named,
                t.writes,
                100.0 * t.named as f64 / t.writes as f64
            )
        } else {
            from.clone()
        };
        b.leaf(sid, "registers", at, 0, v);
    }
}
