//! Building command nodes: the header fields and the payload of each command.

use std::sync::Arc;

use super::aie_regs;
use super::layout::{aie_word, command, COMMAND_WORD, WORD};
use super::names::{aie_split, aie_text, count_of, hex64, module_name, physical, register};
use super::shared::{Ctx, LE, MAX_DEPTH};
use super::stream::{head, walk, Head, Walk};
use super::table::{command, command_name, Field, Kind, PAYLOAD};
use crate::model::text::{self, hex32};
use crate::model::{num, Builder, NodeId, Seq, Span};
use crate::model::{Fields, Radix, Value};

// ---------------------------------------------------------------------------
// payload fields

/// What a field of a payload held, for the command's summary.
#[derive(Clone, Debug)]
pub(super) enum Got {
    Word(u32),
    /// A 64-bit address: high word, low word.
    Pair(u32, u32),
    /// The bytes the payload gives a rest field (whether or not they are
    /// in the stream).
    Rest(u64),
    /// Text, quoted.
    Text(String),
}

/// A payload: `n` words from `off`, readable up to `lim`, shown under
/// `node`.
#[derive(Clone, Copy)]
pub(super) struct Payload {
    pub(super) node: NodeId,
    pub(super) off: u64,
    pub(super) n: u64,
    pub(super) lim: u64,
}

impl Payload {
    pub(super) fn at(&self, i: u64) -> u64 {
        self.off.saturating_add(i.saturating_mul(4))
    }
    /// True if word `i` is in the payload and can be read.
    fn has(&self, i: u64) -> bool {
        i < self.n && self.at(i).saturating_add(4) <= self.lim
    }
    /// The bytes of words `i..`, cut to what can be read.
    fn rest(&self, i: u64) -> Option<(u64, u64)> {
        let s = self.at(i).min(self.lim);
        let e = self.at(self.n).min(self.lim);
        (s < e).then_some((s, e - s))
    }
}

/// Decodes the payload `p` field by field as `layout` gives it, with the
/// model's field cursor, and returns what each field held.
pub(super) fn decode(
    b: &mut Builder<'_>,
    p: Payload,
    layout: &[Field],
    ctx: &Arc<Ctx>,
    depth: u8,
) -> Vec<Option<Got>> {
    let mut f = Fields::new(b, p.node, p.off, LE);
    let mut got = Vec::with_capacity(layout.len());
    let mut i = 0u64;
    // What the register's bit fields are shown under: the address, the
    // value and mask written, the data of a DMA write.
    let mut addr = None;
    let mut value = None;
    let mut mask = None;
    let mut data = None;
    for fd in layout {
        f.seek(p.at(i));
        let mut node = None;
        let g = field(&mut f, p, i, fd, ctx, depth, &mut node);
        match (fd.kind, &g) {
            (Kind::Aie, Some(Got::Word(a))) if addr.is_none() => addr = Some(*a),
            (Kind::Addr64, Some(Got::Pair(0, a))) if addr.is_none() => addr = Some(*a),
            (Kind::Hex, Some(Got::Word(v))) if fd.name == "value" => {
                value = f.last().map(|id| (id, f.at().saturating_sub(4), *v));
            }
            (Kind::Hex, Some(Got::Word(m))) if fd.name == "mask" => mask = Some(*m),
            (Kind::Dma, _) => {
                data = node.and_then(|id| p.rest(i).map(|(s, l)| (id, f.place(s, l))))
            }
            _ => {}
        }
        got.push(g);
        i = i.saturating_add(fd.width.words(i, p.n));
    }
    if let Some(a) = addr {
        let (_, r, o) = aie_split(a);
        if let Some((id, at, v)) = value {
            if let Some(h) = register(r, o, ctx) {
                bit_fields(b, id, b.span(at, 4), v, mask.unwrap_or(u32::MAX), h.fields);
            }
        }
        // A keyhole write puts its words in a window over and over: they
        // are not registers one after another.
        let keyhole = layout.iter().any(|fd| fd.name == "keyhole_size");
        if let (Some((id, at)), false) = (data, keyhole) {
            dma_words(b, id, at, r, o, ctx);
        }
    }
    got
}

/// Most words of a DMA write shown one by one, with their registers.
const DMA_WORDS: u64 = 64;

/// The bit fields of register value `v` (the word in `at`) under `id`:
/// those `mask` touches.
pub(crate) fn bit_fields(
    b: &mut Builder<'_>,
    id: NodeId,
    at: Span,
    v: u32,
    mask: u32,
    fields: &[aie_regs::BitField],
) {
    for bf in fields.iter().filter(|bf| bf.mask() & mask != 0) {
        let x = bf.get(v);
        let radix = if bf.width <= 8 {
            Radix::Dec
        } else {
            Radix::Hex
        };
        let shown = Value::Named {
            v: x.into(),
            radix,
            name: Some(bf.bits().into()),
        };
        // Each field spans the whole word: the fields stay in bit order,
        // highest first.
        b.leaf(id, bf.name, at.offset, at.len, shown);
    }
}

/// The words a DMA write puts in registers (rather than in a memory),
/// under its data node: each with its register's name and bit fields.
pub(crate) fn dma_words(
    b: &mut Builder<'_>,
    id: NodeId,
    data: Span,
    row: u32,
    off: u32,
    ctx: &Ctx,
) {
    // A write to a memory is data, not registers.
    if register(row, off, ctx).is_none_or(|h| h.reg.size > 4) {
        return;
    }
    for k in 0..(data.len / WORD).min(DMA_WORDS) {
        let at = data.offset + WORD * k;
        let Some(v) = b.read_u32(at, LE) else { break };
        let o = off.wrapping_add(4 * k as u32);
        let h = register(row, o, ctx);
        let name = match h {
            Some(h) => format!("[{k}] {h}"),
            None => format!("[{k}] reg 0x{o:05x}"),
        };
        let wid = b.leaf(id, name, at, 4, Value::hex_wide(u64::from(v), 4));
        if let Some(h) = h {
            bit_fields(b, wid, b.span(at, 4), v, u32::MAX, h.fields);
        }
    }
}

/// One field at word `i` of `p`.
#[allow(clippy::too_many_arguments)]
fn field(
    f: &mut Fields<'_, '_>,
    p: Payload,
    i: u64,
    fd: &Field,
    ctx: &Arc<Ctx>,
    depth: u8,
    node: &mut Option<NodeId>,
) -> Option<Got> {
    // Word `i`, when the payload has it.
    let first = |f: &mut Fields<'_, '_>, name: &str, kind: Kind| -> Option<u32> {
        if !p.has(i) {
            return None;
        }
        word_at(f, name, kind, ctx)
    };
    match fd.kind {
        Kind::Aie | Kind::Hex | Kind::Count(_) | Kind::PollFlags => {
            first(f, fd.name, fd.kind).map(Got::Word)
        }
        Kind::Addr64 => {
            let hi = first(f, &format!("{}_high", fd.name), Kind::Hex)?;
            if !p.has(i + 1) {
                return None;
            }
            let low = if hi == 0 { Kind::Aie } else { Kind::Hex };
            let lo = word_at(f, &format!("{}_low", fd.name), low, ctx)?;
            Some(Got::Pair(hi, lo))
        }
        Kind::Addr64LowFirst => {
            let lo = first(f, &format!("{}_low", fd.name), Kind::Hex)?;
            let hi = if p.has(i + 1) {
                word_at(f, &format!("{}_high", fd.name), Kind::Hex, ctx)
            } else {
                None
            };
            Some(Got::Pair(hi.unwrap_or(0), lo))
        }
        Kind::Raw | Kind::Dma => {
            if i < p.n {
                if let Some((s, l)) = p.rest(i) {
                    let to = f.place(s, l);
                    *node = Some(raw(f.builder(), p.node, fd.name, to));
                    if fd.kind == Kind::Dma {
                        f.builder().link(p.node, to);
                    }
                }
            }
            Some(Got::Rest(p.n.saturating_sub(i).saturating_mul(4)))
        }
        Kind::Text => {
            if i >= p.n {
                return None;
            }
            let (_, l) = p.rest(i)?;
            f.text(fd.name, l).map(|t| Got::Text(format!("\"{t}\"")))
        }
        Kind::Commands => {
            let (s, l) = p.rest(i)?;
            let at = f.place(s, l);
            if depth + 1 < MAX_DEPTH {
                nested(f.builder(), p.node, at, ctx, depth + 1);
            } else {
                raw(f.builder(), p.node, fd.name, at);
            }
            Some(Got::Rest(p.n.saturating_sub(i).saturating_mul(4)))
        }
    }
}

/// One word at the cursor, shown as `kind` says.
fn word_at(f: &mut Fields<'_, '_>, name: &str, kind: Kind, ctx: &Ctx) -> Option<u32> {
    let v = match kind {
        Kind::Aie => {
            let at = f.at();
            let v = f.field(name, 4, |v| {
                let rest = format!(" ({})", aie_text(v as u32, ctx));
                Value::with(v, Radix::HexWide, rest).with_width(4)
            })?;
            if let Some(id) = f.last_fitted() {
                aie_children(f.builder(), id, at, v as u32, ctx);
            }
            Some(v)
        }
        Kind::Count("") => f.u32(name),
        Kind::Count(unit) => f.field(name, 4, |v| {
            Value::with(v, Radix::Auto, format!(" {unit}")).with_width(4)
        }),
        Kind::PollFlags => f.field(name, 4, |v| {
            let n = match v {
                0 => " (fail on timeout)",
                1 => " (ignore a timeout)",
                2 => " (defer the error to the end of the partition)",
                3 => " (break to the end of the block)",
                _ => "",
            };
            Value::with(v, Radix::HexWide, n).with_width(4)
        }),
        _ => f.field(name, 4, |v| Value::hex_wide(v, 4)),
    };
    v.map(|v| v as u32)
}

/// A leaf for the raw bytes in `at`: their count and a preview.
pub(super) fn raw(b: &mut Builder<'_>, node: NodeId, name: &str, at: Span) -> NodeId {
    let preview = format!(" bytes: {}", text::hex(b.bytes(at), 16));
    b.leaf(
        node,
        name,
        at.offset,
        at.len,
        Value::with(at.len, Radix::Auto, preview),
    )
}

/// The summary `template` gives for what the fields of `layout` held;
/// None when a field it needs is missing.
pub(super) fn render(
    template: &str,
    layout: &[Field],
    got: &[Option<Got>],
    ctx: &Ctx,
) -> Option<String> {
    let mut out = String::new();
    let mut s = template;
    while let Some((before, rest)) = s.split_once('{') {
        out.push_str(before);
        let (spec, after) = rest.split_once('}')?;
        s = after;
        let (spec, optional) = match spec.strip_suffix('?') {
            Some(x) => (x, true),
            None => (spec, false),
        };
        let (name, how) = spec.split_once(':').unwrap_or((spec, ""));
        let k = layout.iter().position(|fd| fd.name == name)?;
        let kind = layout.get(k)?.kind;
        match got.get(k).and_then(|g| g.as_ref()) {
            Some(g) => out.push_str(&shown(kind, g, how, ctx)),
            None if optional => out.push('?'),
            None => return None,
        }
    }
    out.push_str(s);
    Some(out)
}

/// A field's value in a summary.
fn shown(kind: Kind, g: &Got, how: &str, ctx: &Ctx) -> String {
    match *g {
        Got::Word(v) if kind == Kind::Aie => addr_text(0, v, ctx),
        Got::Word(v) if matches!(kind, Kind::Count(_)) => v.to_string(),
        Got::Word(v) => hex32(v),
        Got::Pair(hi, lo) if kind == Kind::Addr64 && how != "hex" => addr_text(hi, lo, ctx),
        Got::Pair(hi, lo) => hex64(hi, lo),
        Got::Rest(n) if how == "words" => num(n / 4).to_string(),
        Got::Rest(n) => num(n).to_string(),
        Got::Text(ref t) => t.clone(),
    }
}

/// A number in decimal and what it is: `2 (memory tile)`.
fn named_dec(v: u64, what: String) -> Value {
    Value::Named {
        v,
        radix: Radix::Dec,
        name: Some(what.into()),
    }
}

/// Column, row and register children of an address word at `at`.
pub(crate) fn aie_children(b: &mut Builder<'_>, id: NodeId, at: u64, v: u32, ctx: &Ctx) {
    let (c, r, o) = aie_split(v);
    let col = match physical(c, ctx) {
        Some(p) => named_dec(c.into(), p.to_string()),
        None => named_dec(c.into(), "relative to the partition".into()),
    };
    // Bits 31..25 lie in the word's last byte, 24..20 in its last two,
    // 19..0 in its first three.
    b.leaf(
        id,
        "column",
        aie_word::COLUMN.of(at),
        aie_word::COLUMN.size,
        col,
    );
    let row = match ctx.regs {
        Some(_) => named_dec(r.into(), aie_regs::TileKind::of_row(r).name().into()),
        None => num(r.into()),
    };
    b.leaf(id, "row", aie_word::ROW.of(at), aie_word::ROW.size, row);
    let reg = match register(r, o, ctx) {
        Some(h) => format!("{h} (0x{o:05x})"),
        None => format!("0x{o:05x}"),
    };
    b.leaf(
        id,
        "register",
        aie_word::REGISTER.of(at),
        aie_word::REGISTER.size,
        reg,
    );
}

/// Summary text for an address: hex, and the tile when it is a 32-bit one.
pub(super) fn addr_text(hi: u32, lo: u32, ctx: &Ctx) -> String {
    if hi == 0 {
        format!("{} ({})", hex32(lo), aie_text(lo, ctx))
    } else {
        hex64(hi, lo)
    }
}

pub(super) fn header_node(b: &mut Builder<'_>, node: NodeId, h: &Head, lim: u64) {
    let off = h.off;
    let at = command::AT;
    let hid = b.leaf(
        node,
        "header",
        off,
        COMMAND_WORD,
        Value::U {
            v: h.word.into(),
            width: 4,
            radix: Radix::HexWide,
        },
    );
    let m = h.module();
    let id = h.id();
    let cname = if h.word == u32::MAX {
        Some("END_MARK")
    } else {
        command_name(m, id)
    };
    b.leaf(
        hid,
        "command",
        at.command.of(off),
        at.command.size,
        crate::model::named(id.into(), cname),
    );
    b.leaf(
        hid,
        "module",
        at.module.of(off),
        at.module.size,
        crate::model::named(m.into(), module_name(m)),
    );
    let n = (h.word >> 16) & 0xff;
    let lv = if h.long {
        Value::with(255, Radix::Dec, " (long: the length is in the next word)")
    } else {
        Value::with(n.into(), Radix::Dec, " words")
    };
    b.leaf(hid, "length", at.length.of(off), at.length.size, lv);
    let reserved = num(u64::from(h.word >> 24));
    b.leaf(
        hid,
        "reserved",
        at.reserved.of(off),
        at.reserved.size,
        reserved,
    );
    if h.long && off + command::SIZE <= lim {
        b.leaf(
            node,
            "long_length",
            at.long_length.of(off),
            at.long_length.size,
            format!("{} words", num(h.words)),
        );
    }
}

/// Builds the node of the command at `off` (its range cut to `end`) under
/// `parent`, named `[index] NAME`. Returns where the next command starts.
pub(super) fn build_cmd(
    b: &mut Builder<'_>,
    parent: NodeId,
    index: u64,
    off: u64,
    end: u64,
    ctx: &Arc<Ctx>,
    depth: u8,
) -> Option<u64> {
    let h = head(b, off, end).ok()?;
    let cend = h.end().min(end);
    let node = b.group(parent, format!("[{index}] {}", h.name()), off, cend - off);
    header_node(b, node, &h, cend);
    let pay = Payload {
        node,
        off: h.payload(),
        n: h.words,
        lim: cend,
    };
    let v = payload(b, &h, pay, ctx, depth);
    b.set_value(node, v);
    if h.end() > end {
        let cut = h.end() - end;
        let v = b
            .node(node)
            .and_then(|n| n.value.as_ref())
            .map(|v| v.to_string())
            .unwrap_or_default();
        b.set_value(node, format!("{v} [cut: {cut} bytes past the stream]"));
    }
    Some(h.end())
}

/// Decodes the payload of a command as its table row gives it and returns
/// its summary text.
pub(super) fn payload(
    b: &mut Builder<'_>,
    h: &Head,
    p: Payload,
    ctx: &Arc<Ctx>,
    depth: u8,
) -> String {
    let words = || format!("{} payload words", num(h.words));
    if h.word == u32::MAX {
        return "end of the command stream".to_string();
    }
    let row = command(h.module(), h.id());
    let layout = row.map_or(PAYLOAD, |c| c.fields);
    let got = decode(b, p, layout, ctx, depth);
    // Commands that name an address are told apart by it when two streams
    // are compared, rather than by their place in the stream.
    let addr = layout
        .iter()
        .zip(&got)
        .find_map(|(f, g)| match (f.kind, g) {
            (Kind::Aie, Some(Got::Word(a))) => Some(u64::from(*a)),
            (Kind::Addr64 | Kind::Addr64LowFirst, Some(Got::Pair(hi, lo))) => {
                Some(u64::from(*hi) << 32 | u64::from(*lo))
            }
            _ => None,
        });
    if let Some(a) = addr {
        b.set_key(p.node, format!("{} 0x{a:x}", h.name()));
    }
    match row {
        Some(c) => c
            .summary
            .and_then(|t| render(t, layout, &got, ctx))
            .unwrap_or_else(words),
        None => format!(
            "unknown command: module {}, command {}, {}",
            h.module(),
            h.id(),
            words()
        ),
    }
}

/// A `commands` node for the stream nested in `at`; its commands are built
/// when it is opened, bytes the walk could not read follow it as `rest`.
pub(super) fn nested(b: &mut Builder<'_>, parent: NodeId, at: Span, ctx: &Arc<Ctx>, depth: u8) {
    let e = at.end();
    let w = walk(b, at, depth, None);
    let node = b.add(
        parent,
        "commands",
        at.offset,
        at.len,
        Some(count_of(w.count, "command").into()),
    );
    let stop = w.stop;
    if let Some(seq) = command_seq(w, e, ctx, depth) {
        b.seq(node, seq);
    }
    if stop < e {
        let bytes = b.slice(stop, e - stop);
        b.leaf(parent, "rest", stop, e - stop, text::hex(bytes, 16));
    }
}

pub(super) fn command_seq(w: Walk, end: u64, ctx: &Arc<Ctx>, depth: u8) -> Option<Seq> {
    if w.count == 0 {
        return None;
    }
    let ctx = ctx.clone();
    Some(Seq::from_marks(
        w.marks,
        w.count,
        w.stop,
        Arc::new(move |b: &mut Builder<'_>, parent, i, off| {
            build_cmd(b, parent, i, off, end, &ctx, depth)
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_show_what_their_fields_held() {
        let write = command(1, 3).unwrap();
        let t = write.summary.unwrap();
        let a = Some(Got::Word(0x0654_3210));
        let got = [a.clone(), Some(Got::Word(5)), Some(Got::Rest(0))];
        assert_eq!(
            render(t, write.fields, &got, &Ctx::default()).as_deref(),
            Some("0x06543210 (col 3, row 5, reg 0x43210) = 0x00000005")
        );
        // An optional field shows as `?`; without a needed one there is no
        // summary.
        let got = [a, None, Some(Got::Rest(0))];
        assert!(render(t, write.fields, &got, &Ctx::default())
            .unwrap()
            .ends_with(" = ?"));
        assert_eq!(
            render(t, write.fields, &[None, None, None], &Ctx::default()),
            None
        );
        let xfer = command(1, 9).unwrap();
        let got = [
            Some(Got::Pair(0, 0x100)),
            Some(Got::Pair(1, 2)),
            Some(Got::Word(16)),
        ];
        assert_eq!(
            render(xfer.summary.unwrap(), xfer.fields, &got, &Ctx::default()).as_deref(),
            Some("16 words from 0x00000100 to 0x100000002")
        );
        let nop = command(1, 17).unwrap();
        assert_eq!(
            render(
                nop.summary.unwrap(),
                nop.fields,
                &[Some(Got::Rest(8))],
                &Ctx::default()
            )
            .as_deref(),
            Some("2 padding words")
        );
    }
}
