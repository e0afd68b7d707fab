//! DWARF line programs (`.debug_line`): each unit's header field by field
//! (versions 2 to 5: the standard opcode lengths, the directory and file
//! tables, DWARF 5's entry formats and their forms, strings in
//! `.debug_line_str` and `.debug_str` linked to their bytes), then each
//! opcode of its program at its bytes, standard, extended and special,
//! with its operands; an opcode that appends a row to the line table shows
//! the row in its value (`0x0000000000401126 x.c:12:7 is_stmt`) and links
//! to the code at its address. A unit's opcodes are read when the unit is
//! opened, in groups of [`GROUP`].
//!
//! The same reader gives the rows of every unit as [`Lines`], which
//! instructions look their source line up in. In an object file the
//! operands of `DW_LNE_set_address` and the header's string offsets are
//! what the relocations put there, and each sequence belongs to the
//! section its address's relocation names.
//!
//! This file knows the bytes, the byte space and the relocations it is
//! given ([`Ctx`]), not the ELF around them.

use std::sync::Arc;

use compact_str::CompactString;

use crate::model::{Builder, Endian, NodeId, Radix, Seq, SourceLine, Step, Value, GROUP};

mod header;
mod program;
mod read;

use header::{read_header, Header};
use program::{step, Name, Op, Shown, State};
pub(crate) use read::{initial_length, leaf, Cur, Item};
pub(crate) use read::{CodeAt, Ctx, Strings};
use read::{MAX_OPS, MAX_UNITS};

// ---- nodes ----

/// Makes `id`, `.debug_line` at `[at, at+len)`, list its units when
/// opened, read with what `ctx` makes then (so that nothing, not even the
/// relocations, is read before).
pub(crate) fn units(
    b: &mut Builder<'_>,
    id: NodeId,
    len: u64,
    ctx: impl Fn(&Builder<'_>) -> Arc<Ctx> + Send + Sync + 'static,
) -> bool {
    if len < 4 {
        return false;
    }
    b.dense(id);
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let ctx = ctx(b);
            let (a, l, e) = (ctx.at, ctx.len, ctx.e);
            let next = move |b: &Builder<'_>, off: u64| unit_end(b, off, e, a + l);
            let c = ctx.clone();
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
                let end = next(b, off)?;
                unit(b, p, &c, i, off - c.at);
                Some(end)
            });
            let seq = Seq::scan(a, a + l, MAX_UNITS, |off| next(b, off), step);
            b.seq_now(id, seq);
        }),
    );
    true
}

/// Where the unit or contribution whose initial length is at `off` ends
/// (its 32-bit length, or the 64-bit one after the escape), at most at
/// `limit`.
pub(super) fn unit_end(b: &Builder<'_>, off: u64, e: Endian, limit: u64) -> Option<u64> {
    end_in(b.data(), off, e, limit)
}

/// [`unit_end`] in the bytes `d`.
pub(super) fn end_in(d: &[u8], off: u64, e: Endian, limit: u64) -> Option<u64> {
    let read = |o: u64, n: u64| crate::model::read::uint_at(d, o, n, e);
    let len = read(off, 4)?;
    let end = if len == 0xffff_ffff {
        off.checked_add(12)?.checked_add(read(off + 4, 8)?)?
    } else {
        off.checked_add(4)?.checked_add(len)?
    };
    Some(end.min(limit))
}

/// One unit at `start` (in the section): its header's fields and its
/// program, read when opened.
fn unit(b: &mut Builder<'_>, p: NodeId, ctx: &Arc<Ctx>, i: u64, start: u64) {
    let Some(h) = read_header(b.data(), b.file_data(), ctx, start) else {
        return;
    };
    let at = ctx.at + start;
    let node = b.group(p, format!("unit [{i}]"), at, h.end - start);
    let first = h
        .files
        .first()
        .map(|e| format!(", {}", e.path))
        .unwrap_or_default();
    b.set_value(
        node,
        Value::text(format!(
            "DWARF {}{first}, {} file{}",
            h.version,
            h.files.len(),
            if h.files.len() == 1 { "" } else { "s" }
        )),
    );
    b.dense(node);
    let ctx = ctx.clone();
    b.lazy(
        node,
        Arc::new(move |b: &mut Builder<'_>, node| {
            let Some(h) = read_header(b.data(), b.file_data(), &ctx, start) else {
                return;
            };
            let base = ctx.at;
            let hdr = b.group(node, "header", base + start, h.program - start);
            for item in &h.items {
                add(b, hdr, item);
            }
            if let Some((o, n, m)) = &h.problem {
                b.error(base + o, *n, m.clone());
                return;
            }
            if h.program < h.end {
                program(b, node, &ctx, Arc::new(h));
            }
        }),
    );
}

pub(super) fn add(b: &mut Builder<'_>, p: NodeId, item: &Item) {
    match item {
        Item::Leaf {
            name,
            off,
            size,
            value,
            link,
        } => {
            let id = b.leaf(p, name, *off, *size, value.clone());
            if let Some((o, n)) = link {
                b.link(id, b.span(*o, *n));
            }
        }
        Item::Group {
            name,
            off,
            size,
            value,
            kids,
        } => {
            let id = b.group(p, name, *off, *size);
            if let Some(v) = value {
                b.set_value(id, v.clone());
            }
            for k in kids {
                add(b, id, k);
            }
        }
    }
}

/// What one pass over a program found: the states at every
/// [`GROUP`]-th opcode and where each such opcode is (in the section),
/// how many opcodes and rows it has, and where the last opcode read ends.
struct Marks {
    /// Which program's marks these are, among all built.
    id: u64,
    states: Vec<State>,
    offsets: Vec<u64>,
    count: u64,
    rows: u64,
    stop: u64,
}

/// Programs of at least this many bytes have their pass kept for the
/// other trees over the same bytes (a walk's workers, which open the same
/// program to build its groups).
const SHARED_FROM: u64 = 64 << 10;

/// The passes kept: the bytes' address and length, the program's place in
/// them and a print of its bytes, and the pass while a tree holds it.
type Kept = ((usize, usize, u64, u64, u64), std::sync::Weak<Marks>);

static KEPT: std::sync::Mutex<Vec<Kept>> = std::sync::Mutex::new(Vec::new());

/// A print of `bytes` (not a hash for strangers: a check that the bytes at
/// an address are the ones a pass was made over).
fn print(bytes: &[u8]) -> u64 {
    let mut x = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        x = (x ^ u64::from_le_bytes(a))
            .wrapping_mul(0x100_0000_01b3)
            .rotate_left(29);
    }
    for &b in words.remainder() {
        x = (x ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    x
}

/// The [`Marks::id`] of the next marks made.
static NEXT_MARKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// Where the opcode this thread built last left the state: the
    /// program's [`Marks::id`], the next opcode's index and offset, and
    /// the state. A group is built in order on one thread, so each opcode
    /// runs once.
    static LAST: std::cell::Cell<Option<(u64, u64, u64, State)>> =
        const { std::cell::Cell::new(None) };
}

impl Marks {
    /// The pass over `h`'s program in `d`, made once for all trees over
    /// the same bytes when the program is large.
    fn of(d: &[u8], ctx: &Ctx, h: &Header) -> Arc<Marks> {
        let (from, to) = (ctx.at + h.program, ctx.at + h.end);
        if h.end - h.program < SHARED_FROM {
            return Arc::new(Marks::scan(d, ctx, h));
        }
        let bytes = crate::model::read::bytes_at(d, from, to - from).unwrap_or_default();
        let key = (d.as_ptr() as usize, d.len(), from, to, print(bytes));
        if let Ok(kept) = KEPT.lock() {
            if let Some(m) = kept.iter().find(|k| k.0 == key).and_then(|k| k.1.upgrade()) {
                return m;
            }
        }
        let m = Arc::new(Marks::scan(d, ctx, h));
        if let Ok(mut kept) = KEPT.lock() {
            kept.retain(|k| k.1.strong_count() > 0);
            kept.push((key, Arc::downgrade(&m)));
        }
        m
    }

    /// Runs the program once, keeping every [`GROUP`]-th state.
    fn scan(d: &[u8], ctx: &Ctx, h: &Header) -> Marks {
        let mut st = State::new(h);
        let mut off = h.program;
        let mut states = Vec::new();
        let mut offsets = Vec::new();
        let mut count = 0u64;
        let mut rows = 0u64;
        while off < h.end && count < MAX_OPS {
            if count.is_multiple_of(GROUP) {
                states.push(st);
                offsets.push(off);
            }
            let Some(op) = step(d, ctx, h, &mut st, off) else {
                break;
            };
            if op.row {
                rows += 1;
                st.appended(h);
            }
            count += 1;
            off += op.size.max(1);
        }
        Marks {
            id: NEXT_MARKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            states,
            offsets,
            count,
            rows,
            stop: off,
        }
    }

    /// The state before the opcode at `off` (in the section), the `i`-th:
    /// where the one before left it, else from the group's first.
    fn state(&self, d: &[u8], ctx: &Ctx, h: &Header, i: u64, off: u64) -> Option<State> {
        if let Some((k, j, o, st)) = LAST.get() {
            if (k, j, o) == (self.id, i, off) {
                return Some(st);
            }
        }
        let g = usize::try_from(i / GROUP).ok()?;
        let mut st = *self.states.get(g)?;
        let mut at = *self.offsets.get(g)?;
        // Not built in order (never, as groups are): run from the mark.
        while at < off {
            let op = step(d, ctx, h, &mut st, at)?;
            if op.row {
                st.appended(h);
            }
            at += op.size.max(1);
        }
        Some(st)
    }
}

/// The unit's program under `node`: its opcodes, in groups.
fn program(b: &mut Builder<'_>, node: NodeId, ctx: &Arc<Ctx>, h: Arc<Header>) {
    let from = ctx.at + h.program;
    let to = ctx.at + h.end;
    let id = b.group(node, "program", from, to - from);
    b.dense(id);
    let ctx = ctx.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let m = Marks::of(b.data(), &ctx, &h);
            let (count, rows, off) = (m.count, m.rows, m.stop);
            if count == MAX_OPS && off < h.end {
                b.info(
                    ctx.at + off,
                    h.end - off,
                    format!("more than {MAX_OPS} opcodes; the rest are not listed"),
                );
            }
            b.set_value(
                id,
                Value::text(format!(
                    "{count} opcode{}, {rows} row{}",
                    if count == 1 { "" } else { "s" },
                    if rows == 1 { "" } else { "s" }
                )),
            );
            let marks = m.offsets.iter().map(|o| ctx.at + o).collect();
            let (c, hh) = (ctx.clone(), h.clone());
            let seqstep: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
                let off = at - c.at;
                let mut st = m.state(b.data(), &c, &hh, i, off)?;
                let op = step(b.data(), &c, &hh, &mut st, off)?;
                let row = op.row.then_some(st);
                if op.row {
                    st.appended(&hh);
                }
                let next = at + op.size.max(1);
                LAST.set(Some((m.id, i + 1, next - c.at, st)));
                opcode(b, p, &c, &hh, &op, row.as_ref());
                Some(next)
            });
            b.seq_now(id, Seq::from_marks(marks, count, ctx.at + off, seqstep));
        }),
    );
}

/// An opcode's value: its operands, or the row it appends (and, for a
/// special opcode, what it advanced).
fn value(op: &Op, row: Option<&State>, h: &Header) -> Value {
    if let Some(r) = row {
        // Room for the longest row text, so that it is allocated once:
        // the address, the file's path, line, column, every flag and a
        // special opcode's advances.
        let path = h.file(r.file).map_or(0, |e| e.path.len());
        let mut s = CompactString::with_capacity(160 + path);
        r.write(h, &mut s);
        if let Shown::Special(a, l) = op.shown {
            let mut n = itoa::Buffer::new();
            s.push_str(" (address += ");
            s.push_str(n.format(a));
            s.push_str(", line += ");
            s.push_str(n.format(l));
            s.push(')');
        }
        return Value::Text(s);
    }
    match &op.shown {
        Shown::Nothing | Shown::Special(..) => Value::text(""),
        Shown::Uint(v) => Value::uint(*v),
        Shown::Hex(v) => Value::hex(*v),
        Shown::Int(v) => Value::int(*v),
        Shown::File(v) => match h.file(*v).filter(|e| !e.path.is_empty()) {
            Some(e) => Value::with(*v, Radix::Dec, format!(" ({})", e.path)),
            None => Value::uint(*v),
        },
        Shown::Stmt(on) => Value::text(if *on { "is_stmt" } else { "not is_stmt" }),
        Shown::AdvancePc(v, n) => Value::with(*v, Radix::Dec, format!(" (address += {n})")),
        Shown::ConstAddPc(n) => Value::text(format!("address += {n}")),
        Shown::Fixed(v) => Value::with(*v, Radix::Hex, " (address += it)"),
        Shown::Skipped(n, what) => Value::with(*n, Radix::Dec, *what),
        Shown::Str(t) => Value::str(t),
    }
}

/// One opcode's node: named by its opcode, valued by its operands or the
/// row it appends, linked to the code at that row's address.
fn opcode(b: &mut Builder<'_>, p: NodeId, ctx: &Ctx, h: &Header, op: &Op, row: Option<&State>) {
    let at = ctx.at + op.off;
    let value = value(op, row, h);
    let id = match op.name {
        Name::Known(name) => b.field(p, name, at, op.size, value),
        other => b.leaf(p, other.to_string(), at, op.size, value),
    };
    if let Some(m) = &op.problem {
        b.warn(at, op.size, m.clone());
    }
    if let Some(r) = row.filter(|r| !r.end_sequence) {
        if let Some(o) = (ctx.code_at)(r.sec, r.addr) {
            b.link(id, b.span(o, 1));
        }
    }
}

// ---- the table instructions look up ----

/// One sequence of rows: its section (in an object file), its addresses
/// `[lo, hi)`, and its rows as (address, file, line, column), file as an
/// index into [`Lines::files`].
struct Sequence {
    sec: Option<u32>,
    lo: u64,
    hi: u64,
    rows: Vec<(u64, u32, u32, u32)>,
}

/// Every unit's rows, for looking up the source line of an address.
#[derive(Default)]
pub(crate) struct Lines {
    seqs: Vec<Sequence>,
    files: Vec<CompactString>,
    /// Which table it is, for as long as the program runs (0: empty).
    id: u64,
}

impl Lines {
    /// Reads every unit of `.debug_line` in `d` (`file` the file's
    /// bytes, which its strings may be in).
    pub(crate) fn read(d: &[u8], file: &[u8], ctx: &Ctx) -> Lines {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut out = Lines {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            ..Lines::default()
        };
        let mut start = 0u64;
        let mut n = 0u64;
        while start < ctx.len && n < MAX_UNITS {
            let Some(h) = read_header(d, file, ctx, start) else {
                break;
            };
            n += 1;
            let next = h.end.max(start + 1);
            if h.problem.is_none() {
                out.unit(d, ctx, &h);
            }
            start = next;
        }
        out.seqs.sort_by_key(|s| (s.sec, s.lo));
        out
    }

    fn unit(&mut self, d: &[u8], ctx: &Ctx, h: &Header) {
        let base = self.files.len();
        let count = if h.version >= 5 { 0 } else { 1 };
        for e in &h.files {
            self.files.push(e.path.clone());
        }
        let file = |f: u64| -> u32 {
            f.checked_sub(count)
                .filter(|&k| k < h.files.len() as u64)
                .map_or(u32::MAX, |k| (base as u64 + k) as u32)
        };
        let mut st = State::new(h);
        let mut off = h.program;
        let mut rows = Vec::new();
        let mut ops = 0u64;
        while off < h.end && ops < MAX_OPS {
            let Some(op) = step(d, ctx, h, &mut st, off) else {
                break;
            };
            ops += 1;
            off += op.size.max(1);
            if !op.row {
                continue;
            }
            let r = st;
            st.appended(h);
            rows.push((r.addr, file(r.file), r.line, r.column as u32));
            if r.end_sequence {
                let lo = rows.first().map_or(0, |x| x.0);
                if lo < r.addr {
                    self.seqs.push(Sequence {
                        sec: r.sec,
                        lo,
                        hi: r.addr,
                        rows: std::mem::take(&mut rows),
                    });
                } else {
                    rows.clear();
                }
            }
        }
    }

    /// Which table it is: no two tables the program reads have the same.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Which row gives the source line of address `addr` (in section
    /// `sec` for an object file), as (sequence, row): instructions of one
    /// row share its line.
    pub(crate) fn row(&self, sec: Option<u32>, addr: u64) -> Option<(usize, usize)> {
        let k = self.seqs.partition_point(|s| (s.sec, s.lo) <= (sec, addr));
        let k = k.checked_sub(1)?;
        let s = self.seqs.get(k)?;
        if s.sec != sec || addr >= s.hi {
            return None;
        }
        let j = s.rows.partition_point(|r| r.0 <= addr);
        Some((k, j.checked_sub(1)?))
    }

    /// The source line of a row that [`Lines::row`] gave, where it has a
    /// line.
    pub(crate) fn source(&self, (k, j): (usize, usize)) -> Option<SourceLine> {
        let &(_, f, line, column) = self.seqs.get(k)?.rows.get(j)?;
        if line == 0 {
            return None;
        }
        Some(SourceLine {
            file: self.files.get(f as usize)?.clone(),
            line: line.into(),
            column: column.into(),
        })
    }
}
