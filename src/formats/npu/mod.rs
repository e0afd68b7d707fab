//! NPU control code: the programs a Ryzen AI host submits with every run
//! of an xclbin's kernel.
//!
//! - **Transaction buffers** (`npu-transaction`), what aie-rt serializes
//!   and mlir-aie's `--aie-npu-to-binary` writes (`insts.bin`): a 16-byte
//!   header (version, device generation, rows, columns, op count, size)
//!   and ops of register writes, block writes, mask polls, DMA
//!   synchronisation (TCT) and DDR address patches. Version 0.1 ops carry
//!   a 64-bit address and their size; version 1.0 ("optimized") ops are
//!   shorter.
//! - **Instruction sequences** (`ipu-sequence`), the older format Riallto
//!   ships as `.seq` text (one 32-bit word in hex a line) and as binary
//!   words: a prolog whose first word counts its words, then ops with the
//!   opcode in the top byte of their first word.
//!
//! The op layouts are [`table`]'s; register addresses are split and named
//! with the AIE register tables of [`super::cdo`].

use std::sync::Arc;

use crate::model::text::hex32;
use crate::model::{
    num, Builder, Configures, Endian, Fact, Fields, Format, NodeId, Radix, Seq, Span, Step, Value,
    GROUP,
};

use super::cdo::{self, aie_regs, Ctx};

pub mod aie2elf;
pub mod ctrlcode;
mod layout;
mod op;
pub mod table;

use layout::WORD;
pub use layout::{txn_header, TxnHeader};
use op::{bd_word_reg, build_op, bytes_leaf, get, Env, OpView, Place, Writes};
use table::{fields_end, Kind, Len, Op, Rest};

/// The size of a transaction header.
pub const HEADER: u64 = txn_header::SIZE;

// ---------------------------------------------------------------------------
// transactions: detection and the walk

/// The op table of a transaction header's version, if it is a known one.
fn version_table(major: u8, minor: u8) -> Option<&'static [Op]> {
    match (major, minor) {
        (0, 1) => Some(table::TXN_V0),
        (1, 0) => Some(table::TXN_V1),
        _ => None,
    }
}

/// The row for opcode `code` of a transaction: the table's, or the generic
/// custom op for an unknown opcode of the custom range.
fn txn_row(t: &'static [Op], code: u8) -> Option<&'static Op> {
    table::find(t, code)
        .or_else(|| table::find(table::TXN_SHARED, code))
        .or(if code >= 0x80 {
            Some(&table::CUSTOM)
        } else {
            None
        })
}

fn le32(d: &[u8], at: u64) -> Option<u32> {
    let i = usize::try_from(at).ok()?;
    let s = d.get(i..i.checked_add(4)?)?;
    Some(u32::from_le_bytes([
        *s.first()?,
        *s.get(1)?,
        *s.get(2)?,
        *s.get(3)?,
    ]))
}

fn byte(d: &[u8], at: u64) -> Option<u8> {
    d.get(usize::try_from(at).ok()?).copied()
}

/// The length in bytes of the transaction op at `off` in `d`, or why it
/// cannot be known.
fn txn_op_len(d: &[u8], off: u64, t: &'static [Op]) -> Result<(&'static Op, u64), String> {
    let code = byte(d, off).ok_or_else(|| "no opcode byte".to_string())?;
    let row = txn_row(t, code).ok_or_else(|| format!("unknown opcode 0x{code:02x}"))?;
    let min = fields_end(row, false);
    match row.len {
        Len::Fixed(n) => Ok((row, u64::from(n))),
        Len::Field(at) => {
            let n = le32(d, off + u64::from(at))
                .ok_or_else(|| format!("{}: its size field is past the end", row.name))?;
            if u64::from(n) < min {
                return Err(format!(
                    "{}: its size {n} is less than the {min} bytes of its fields",
                    row.name
                ));
            }
            Ok((row, u64::from(n)))
        }
        Len::Unknown => Err(format!(
            "{} (0x{code:02x}): no serialized form of this op is defined (aie-rt writes block sets and shim DMA BD configurations as BLOCKWRITE), so the ops after it cannot be found",
            row.name
        )),
    }
}

/// The header of a transaction, when `d` starts with a plausible one.
fn txn_header(d: &[u8]) -> Option<TxnHeader> {
    let h = TxnHeader::read(d).ok()?;
    let ok = version_table(h.major, h.minor).is_some()
        && (1..=15).contains(&h.dev_gen)
        && (1..=32).contains(&h.rows)
        && (1..=64).contains(&h.cols)
        && h.mem_tile_rows < h.rows
        && h.padding == 0
        && u64::from(h.size) >= HEADER
        && u64::from(h.ops) <= u64::from(h.size) / 4;
    ok.then_some(h)
}

/// True if `d` starts with a transaction header whose first op (when it
/// has one) is a known one.
pub fn detect_transaction(d: &[u8]) -> bool {
    let Some(h) = txn_header(d) else {
        return false;
    };
    let Some(t) = version_table(h.major, h.minor) else {
        return false;
    };
    if h.ops == 0 {
        return u64::from(h.size) == HEADER;
    }
    txn_op_len(d, HEADER, t).is_ok()
}

/// Most register writes kept for links.
const MAX_WRITES: usize = 1 << 20;

/// Records what a transaction configures, for --targets: the generation
/// and the columns its header was written for.
fn configures(b: &mut Builder<'_>, at: NodeId, gen: Option<aie_regs::Gen>, h: &TxnHeader) {
    b.fact(
        at,
        Fact::Configures(Configures {
            format: Format::NpuTransaction,
            target: aie_regs::npu_target(gen, u64::from(h.cols)).into(),
            kind: "npu".into(),
        }),
    );
}

/// Parses a transaction buffer in `at` under `parent`.
pub fn parse_transaction(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let lim = at.end().min(b.file_len());
    let d = b.data();
    let Some(h) = txn_header(b.slice(at.offset, lim.saturating_sub(at.offset))) else {
        b.error(
            at.offset,
            lim.saturating_sub(at.offset),
            "not a transaction header",
        );
        return;
    };
    let t = version_table(h.major, h.minor).unwrap_or(table::TXN_V0);
    header_node(b, parent, at.offset, &h);
    let gen = aie_regs::Gen::from_hw_gen(u64::from(h.dev_gen));
    configures(b, parent, gen, &h);
    let ctx = Ctx {
        start_columns: Vec::new(),
        regs: gen,
        regs_from: Some(match gen {
            Some(g) => format!("{} names (device generation {})", g.name(), h.dev_gen),
            None => format!("none known for device generation {}", h.dev_gen),
        }),
    };
    let declared = at.offset.saturating_add(u64::from(h.size));
    let mut end = declared;
    if declared > lim {
        txn_header::AT.size.error(
            b,
            at.offset,
            format!(
                "the header gives {} bytes, {} more than the {} there are",
                u64::from(h.size),
                declared - lim,
                lim - at.offset
            ),
        );
        end = lim;
    }
    // The walk: every op's start, each thousandth kept; the writes for links.
    let mut marks = Vec::new();
    let mut count = 0u64;
    let mut pos = at.offset + HEADER;
    let mut tally: Vec<(&'static str, u64)> = Vec::new();
    let mut writes = Writes::default();
    let mut nwrites = 0usize;
    let mut stopped = false;
    while count < u64::from(h.ops) {
        if pos >= end {
            txn_header::AT.ops.error(
                b,
                at.offset,
                format!(
                    "the header gives {} ops, the bytes hold {}",
                    u64::from(h.ops),
                    count
                ),
            );
            stopped = true;
            break;
        }
        let (row, n) = match txn_op_len(d, pos, t) {
            Ok(x) => x,
            Err(e) => {
                b.error(pos, end - pos, format!("op {count}: {e}"));
                stopped = true;
                break;
            }
        };
        if count.is_multiple_of(GROUP) {
            marks.push(pos);
        }
        count += 1;
        tally_op(&mut tally, row.name);
        if nwrites < MAX_WRITES {
            nwrites += note_writes(d, pos, n.min(end - pos), row, &mut writes);
        }
        if pos.saturating_add(n) > end {
            b.error(
                pos,
                end - pos,
                format!(
                    "op {}: {} gives {} bytes, {} more than remain",
                    count - 1,
                    row.name,
                    n,
                    pos + n - end
                ),
            );
            pos = end;
            stopped = true;
            break;
        }
        pos += n;
    }
    summary_node(b, parent, at.offset, count, &tally, &ctx);
    let ops = b.add(
        parent,
        "ops",
        at.offset + HEADER,
        pos.saturating_sub(at.offset + HEADER),
        Some(Value::with(count, Radix::Dec, " ops")),
    );
    let env = Arc::new(Env {
        ctx,
        writes,
        page: None,
        args: b.options().arg_names,
    });
    let step_env = env.clone();
    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        let d = b.data();
        let (row, n) = txn_op_len(d, at, t).ok()?;
        let stop = at.saturating_add(n).min(end);
        let v = OpView {
            row,
            off: at,
            len: n,
            end: stop,
            place: Place::Bytes,
            words: words_le(d, at, stop),
        };
        build_op(b, p, i, &v, &step_env);
        Some(stop)
    });
    b.seq(ops, Seq::from_marks(marks, count, pos, step));
    if !stopped && pos < end {
        bytes_leaf(b, parent, "after_last_op", b.span(pos, end - pos));
        b.warn(
            pos,
            end - pos,
            format!(
                "{} bytes after the last of the header's {} ops",
                end - pos,
                count
            ),
        );
    }
    if declared < lim {
        bytes_leaf(b, parent, "trailing", b.span(declared, lim - declared));
        b.warn(
            declared,
            lim - declared,
            format!(
                "{} bytes after the {} the header gives",
                lim - declared,
                u64::from(h.size)
            ),
        );
    }
}

/// Notes the register words a write op puts, for links; returns how many.
fn note_writes(d: &[u8], at: u64, n: u64, row: &Op, w: &mut Writes) -> usize {
    let Some(a) = row.fields.iter().find(|f| f.kind == Kind::Addr) else {
        return 0;
    };
    let Some((ab, _)) = a.bytes() else { return 0 };
    let Some(addr) = le32(d, at + ab) else {
        return 0;
    };
    match row.rest {
        Rest::Data => {
            let start = fields_end(row, false);
            let words = n.saturating_sub(start) / 4;
            for k in 0..words.min(64) {
                w.add(addr.wrapping_add(4 * k as u32), at + start + WORD * k);
            }
            words.min(64) as usize
        }
        _ if row.name.contains("WRITE") => {
            if let Some(v) = row.fields.iter().find(|f| f.kind == Kind::Value) {
                if let Some((vb, _)) = v.bytes() {
                    w.add(addr, at + vb);
                    return 1;
                }
            }
            0
        }
        _ => 0,
    }
}

/// The op's words, little-endian, from `at` up to `stop` (a last partial
/// word padded with zeros).
fn words_le(d: &[u8], at: u64, stop: u64) -> Vec<u32> {
    let mut v = Vec::new();
    let mut o = at;
    while o < stop {
        let mut w = 0u32;
        for k in 0..4u64 {
            if o + k < stop {
                w |= u32::from(byte(d, o + k).unwrap_or(0)) << (8 * k);
            }
        }
        v.push(w);
        o += 4;
    }
    v
}

fn header_node(b: &mut Builder<'_>, parent: NodeId, off: u64, h: &TxnHeader) {
    let hid = b.group(parent, "header", off, HEADER);
    b.set_value(
        hid,
        format!(
            "version {}.{}, {} ops, {} bytes",
            h.major,
            h.minor,
            num(u64::from(h.ops)),
            num(u64::from(h.size))
        ),
    );
    TxnHeader::show(&mut Fields::new(b, hid, off, Endian::Little));
}

fn summary_node(
    b: &mut Builder<'_>,
    parent: NodeId,
    off: u64,
    count: u64,
    tally: &[(&'static str, u64)],
    ctx: &Ctx,
) -> NodeId {
    let s = b.add(
        parent,
        "summary",
        off,
        0,
        Some(Value::with(count, Radix::Dec, " ops")),
    );
    for (name, n) in tally {
        b.leaf(s, *name, off, 0, num(*n));
    }
    if let Some(r) = &ctx.regs_from {
        b.leaf(s, "register_names", off, 0, r.as_str());
    }
    if let Some(a) = b.options().arg_names {
        let list: Vec<String> = a.iter().map(|(i, n)| format!("{i} {n}")).collect();
        b.leaf(s, "kernel_arguments", off, 0, list.join(", "));
    }
    s
}

// ---------------------------------------------------------------------------
// instruction sequences

/// The words of a sequence: their values and where each lies.
struct Words {
    v: Vec<u32>,
    at: Vec<(u64, u64)>,
}

/// The hex digits of a word of `.seq` text.
const DIGITS: usize = 8;
/// What may end a line of `.seq` text.
const LINE_ENDS: [&[u8]; 2] = [b"\n", b"\r\n"];

/// The words of `.seq` text: one word of 8 hex digits a line, with `\n`
/// or `\r\n` after it (the last line's optional), white space at the end
/// allowed. None if any line is not one.
fn text_words(d: &[u8], base: u64, max: usize) -> Option<Words> {
    let mut w = Words {
        v: Vec::new(),
        at: Vec::new(),
    };
    let mut i = 0usize;
    while i < d.len() {
        if w.v.len() >= max {
            break;
        }
        // Blank lines and spaces at the end are the text's, not words.
        if d.get(i..)
            .is_some_and(|r| r.iter().all(u8::is_ascii_whitespace))
        {
            break;
        }
        let line = d.get(i..i.checked_add(DIGITS)?)?;
        let s = std::str::from_utf8(line).ok()?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let v = u32::from_str_radix(s, 16).ok()?;
        w.v.push(v);
        w.at.push((base + i as u64, DIGITS as u64));
        i += DIGITS;
        let after = d.get(i..).unwrap_or_default();
        match LINE_ENDS.iter().find(|e| after.starts_with(e)) {
            Some(e) => i += e.len(),
            None if after.is_empty() => break,
            None => return None,
        }
    }
    Some(w)
}

fn binary_words(d: &[u8], base: u64, max: usize) -> Option<Words> {
    if !d.len().is_multiple_of(4) {
        return None;
    }
    let n = (d.len() / 4).min(max);
    let mut w = Words {
        v: Vec::with_capacity(n),
        at: Vec::with_capacity(n),
    };
    for k in 0..n {
        w.v.push(le32(d, 4 * k as u64)?);
        w.at.push((base + WORD * k as u64, WORD));
    }
    Some(w)
}

/// Where a sequence's ops start (after its prolog) when every op from there
/// on is a known one whose reserved bits are clear and the last ends with
/// the words; the number of ops.
fn ops_from(v: &[u32], start: usize) -> Option<usize> {
    let mut i = start;
    let mut n = 0usize;
    while i < v.len() {
        let w0 = *v.get(i)?;
        let row = table::find(table::IPU, (w0 >> 24) as u8)?;
        let Len::Fixed(k) = row.len else { return None };
        let k = k as usize;
        // A last op cut short still makes a sequence of two whole ops
        // (a file cut in the middle); its parse reports the cut.
        let Some(words) = v.get(i..i.saturating_add(k)) else {
            return (n >= 2).then_some(n);
        };
        for fd in row.fields.iter().filter(|f| f.kind == Kind::Pad) {
            if get(words, fd) != Some(0) {
                return None;
            }
        }
        i += k;
        n += 1;
    }
    (n > 0).then_some(n)
}

/// The prolog length in words and the op count, when `v` is a sequence:
/// a prolog whose first word counts its words (any words, of any length)
/// and ops from there, or ops from the first word.
fn sequence_start(v: &[u32]) -> Option<(usize, usize)> {
    let first = *v.first()? as usize;
    if first >= 1 && first < v.len() {
        if let Some(n) = ops_from(v, first) {
            return Some((first, n));
        }
    }
    ops_from(v, 0).map(|n| (0, n))
}

/// Most words detection reads.
const DETECT_WORDS: usize = 1 << 20;

/// True if `d` is `.seq` text whose words decode as an instruction
/// sequence from its first op.
pub fn detect_sequence_text(d: &[u8]) -> bool {
    if d.len() < 8 * 3 || d.len() / 9 > DETECT_WORDS {
        return false;
    }
    text_words(d, 0, usize::MAX).is_some_and(|w| sequence_start(&w.v).is_some())
}

/// True if `d` is binary words that decode as an instruction sequence with
/// a prolog.
pub fn detect_sequence_binary(d: &[u8]) -> bool {
    if d.len() < 4 * 3 || d.len() / 4 > DETECT_WORDS {
        return false;
    }
    binary_words(d, 0, usize::MAX)
        .is_some_and(|w| matches!(sequence_start(&w.v), Some((p, _)) if p > 0))
}

/// Parses an instruction sequence, text or binary, in `at`.
pub fn parse_sequence(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let lim = at.end().min(b.file_len());
    let d = b.slice(at.offset, lim.saturating_sub(at.offset));
    let (words, form) = match text_words(d, at.offset, usize::MAX) {
        Some(w) => (w, "text"),
        None => match binary_words(d, at.offset, usize::MAX) {
            Some(w) => (w, "binary"),
            None => {
                b.error(
                    at.offset,
                    lim - at.offset,
                    "neither lines of hex words nor whole words",
                );
                return;
            }
        },
    };
    let (prolog, _) = sequence_start(&words.v).unwrap_or((0, 0));
    let writes = sequence_writes(&words, prolog);
    let env = Arc::new(Env {
        ctx: Ctx {
            start_columns: Vec::new(),
            regs: Some(aie_regs::Gen::AieMl),
            regs_from: Some(format!(
                "{} names (instruction sequences drive AIE-ML NPUs)",
                aie_regs::Gen::AieMl.name()
            )),
        },
        writes,
        page: None,
        args: b.options().arg_names,
    });
    let span = |a: usize, n: usize| -> (u64, u64) {
        let s = words.at.get(a).map_or(lim, |x| x.0);
        let e = a
            .checked_add(n)
            .and_then(|z| z.checked_sub(1))
            .and_then(|z| words.at.get(z))
            .map_or(s, |x| x.0 + x.1);
        (s, e.saturating_sub(s))
    };
    let tally = sequence_tally(&words.v, prolog);
    let count = tally.iter().map(|x| x.1).sum();
    let s = summary_node(b, parent, at.offset, count, &tally, &env.ctx);
    b.leaf(s, "form", at.offset, 0, form);
    b.leaf(s, "words", at.offset, 0, Value::dec(words.v.len() as u64));
    if prolog > 0 {
        let (ps, pl) = span(0, prolog);
        let pid = b.group(parent, "prolog", ps, pl);
        b.set_value(pid, format!("{prolog} words"));
        for k in 0..prolog {
            let (ws, wl) = span(k, 1);
            let v = words.v.get(k).copied().unwrap_or(0);
            let name = if k == 0 {
                "prolog_words".to_string()
            } else {
                format!("[{k}]")
            };
            b.leaf(pid, name, ws, wl, Value::hex_wide(u64::from(v), 4));
        }
    }
    let (os, _) = span(prolog, 1);
    let ops = b.group(parent, "ops", os, lim.saturating_sub(os));
    let mut i = prolog;
    let mut index = 0u64;
    while i < words.v.len() {
        let w0 = words.v.get(i).copied().unwrap_or(0);
        let code = (w0 >> 24) as u8;
        let Some(row) = table::find(table::IPU, code) else {
            let (ws, wl) = span(i, words.v.len() - i);
            b.error(
                ws,
                wl,
                format!(
                    "op {index}: unknown opcode 0x{code:02x} in word {i} ({})",
                    hex32(w0)
                ),
            );
            b.leaf(ops, "rest", ws, wl, format!("{} words", words.v.len() - i));
            break;
        };
        let k = match row.len {
            Len::Fixed(k) => k as usize,
            _ => 1,
        };
        let have = k.min(words.v.len() - i);
        let (ws, wl) = span(i, have);
        let v = OpView {
            row,
            off: ws,
            len: wl,
            end: ws + wl,
            place: Place::Words(words.at.get(i..i + have).unwrap_or(&[])),
            words: words.v.get(i..i + have).unwrap_or(&[]).to_vec(),
        };
        build_op(b, ops, index, &v, &env);
        if have < k {
            b.error(
                ws,
                wl,
                format!("op {index}: {} needs {k} words, {have} remain", row.name),
            );
        }
        i += have;
        index += 1;
    }
    b.set_value(ops, Value::with(index, Radix::Dec, " ops"));
}

/// Counts one more op named `name`.
fn tally_op(tally: &mut Vec<(&'static str, u64)>, name: &'static str) {
    match tally.iter_mut().find(|(n, _)| *n == name) {
        Some(x) => x.1 += 1,
        None => tally.push((name, 1)),
    }
}

/// A sequence's ops by name, from word `prolog` on.
fn sequence_tally(v: &[u32], prolog: usize) -> Vec<(&'static str, u64)> {
    let mut out: Vec<(&'static str, u64)> = Vec::new();
    let mut i = prolog;
    while let Some(&w0) = v.get(i) {
        let Some(row) = table::find(table::IPU, (w0 >> 24) as u8) else {
            break;
        };
        tally_op(&mut out, row.name);
        i += match row.len {
            Len::Fixed(k) => (k as usize).max(1),
            _ => 1,
        };
    }
    out
}

/// The register words a sequence's ops write, for links: WRITE32 values
/// and the shim BD words of WRITEBD ops.
fn sequence_writes(w: &Words, prolog: usize) -> Writes {
    let mut out = Writes::default();
    let mut i = prolog;
    while let Some(&w0) = w.v.get(i) {
        let Some(row) = table::find(table::IPU, (w0 >> 24) as u8) else {
            break;
        };
        let Len::Fixed(n) = row.len else { break };
        let words = w.v.get(i..).unwrap_or_default();
        let value = |name: &str| {
            let fd = row.fields.iter().find(|f| f.name == name)?;
            get(words, fd).map(|v| v as u32)
        };
        let col = value("column").unwrap_or(0);
        for fd in row.fields {
            // Where the field's word lies.
            let Some(&(at, _)) = w.at.get(i + usize::from(fd.at / 32)) else {
                continue;
            };
            match fd.kind {
                Kind::Value => {
                    if let (Some(a), Some(r)) = (value("address"), value("row")) {
                        out.add(col << 25 | r << 20 | (a & 0xf_ffff), at);
                    }
                }
                Kind::BdWord(k) => {
                    let bd = value("bd_id").unwrap_or(0);
                    out.add(col << 25 | bd_word_reg(bd, k), at);
                }
                _ => {}
            }
        }
        i += (n as usize).max(1);
    }
    out
}
