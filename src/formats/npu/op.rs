//! One op of a transaction or a sequence as nodes: its fields, the
//! registers it writes, and the links to what it points at.
use std::collections::HashMap;

use crate::model::text::hex32;
use crate::model::{num, text, Builder, Endian, NodeId, Radix, Span, Value};

use super::layout::WORD;
use super::table::{self, fields_end, Field, Kind, Op, Rest};
use crate::formats::cdo::{self, aie_regs, Ctx};

/// What the ops of one file point at, found by the walk: the bytes of the
/// words written to each register, in order, for the links.
#[derive(Default)]
pub(super) struct Writes {
    /// By absolute AIE address: where the words that write it start.
    pub(super) at: HashMap<u32, Vec<u64>>,
}

impl Writes {
    pub(super) fn add(&mut self, addr: u32, at: u64) {
        self.at.entry(addr).or_default().push(at);
    }
    /// The last write of `addr` before byte `before`.
    pub(super) fn last_before(&self, addr: u32, before: u64) -> Option<u64> {
        let v = self.at.get(&addr)?;
        let i = v.partition_point(|&o| o < before).checked_sub(1)?;
        v.get(i).copied()
    }
}

/// What the ops are shown against: register names and the writes links
/// lead to.
pub(super) struct Env {
    pub(super) ctx: Ctx,
    pub(super) writes: Writes,
    /// For control code in an ELF: the absolute offset of page pointer 0
    /// (the byte after the page header) and the bytes of the page's data
    /// section, where the buffer descriptors a pointer names lie.
    pub(super) page: Option<(u64, Span)>,
    /// The kernel's argument names by index, from the paired xclbin.
    pub(super) args: Option<&'static [(u64, &'static str)]>,
}

/// Where an op's fields lie.
pub(super) enum Place<'w> {
    /// At their bytes (a transaction).
    Bytes,
    /// Each over its word (a sequence: a text line or 4 bytes).
    Words(&'w [(u64, u64)]),
}

/// An op to build: its row, its bytes and its words.
pub(super) struct OpView<'w> {
    pub(super) row: &'static Op,
    pub(super) off: u64,
    /// The length the op gives.
    pub(super) len: u64,
    /// Where its bytes end in the file (cut to the stream).
    pub(super) end: u64,
    pub(super) place: Place<'w>,
    pub(super) words: Vec<u32>,
}

/// The value of field `fd` in `words` (a field spans at most two words).
pub(super) fn get(words: &[u32], fd: &Field) -> Option<u64> {
    let i = usize::from(fd.at / 32);
    let lsb = u32::from(fd.at % 32);
    let bits = u32::from(fd.bits);
    let lo = u64::from(*words.get(i)?);
    let pair = if lsb + bits > 32 {
        lo | u64::from(*words.get(i + 1)?) << 32
    } else {
        lo
    };
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    Some((pair >> lsb) & mask)
}

impl OpView<'_> {
    /// The bytes of field `fd`.
    fn span(&self, fd: &Field) -> Option<(u64, u64)> {
        let (s, l) = match self.place {
            Place::Bytes => {
                let (o, n) = fd.bytes()?;
                (self.off + o, n)
            }
            Place::Words(at) => {
                let i = usize::from(fd.at / 32);
                let (s, l) = *at.get(i)?;
                if u32::from(fd.at % 32) + u32::from(fd.bits) > 32 {
                    let (s2, l2) = *at.get(i + 1)?;
                    (s, s2 + l2 - s)
                } else {
                    (s, l)
                }
            }
        };
        (s + l <= self.end).then_some((s, l))
    }
    fn value(&self, name: &str) -> Option<u64> {
        let fd = self.row.fields.iter().find(|f| f.name == name)?;
        self.span(fd)?;
        get(&self.words, fd)
    }
    /// The address the op writes, reads or polls: its column, row and
    /// register offset.
    fn target(&self) -> Option<(u32, u32, u32)> {
        let fd = self
            .row
            .fields
            .iter()
            .find(|f| matches!(f.kind, Kind::Addr | Kind::Reg))?;
        self.span(fd)?;
        let v = get(&self.words, fd)?;
        if fd.kind == Kind::Reg {
            let c = self.value("column")? as u32;
            let r = self.value("row")? as u32;
            return Some((c, r, v as u32));
        }
        if v >> 32 != 0 {
            return None;
        }
        Some(cdo::aie_split(v as u32))
    }
}

pub(super) const DIRECTIONS: &[&str] = &["S2MM", "MM2S"];

/// The register of shim BD `bd`'s word `k`.
pub(super) fn bd_word_reg(bd: u32, k: u8) -> u32 {
    0x1d000 + bd * 0x20 + 4 * u32::from(k)
}

/// Builds the node of an op under `parent`, named `[index] NAME`.
pub(super) fn build_op(b: &mut Builder<'_>, parent: NodeId, index: u64, v: &OpView<'_>, env: &Env) {
    let row = v.row;
    let node = b.group(
        parent,
        format!("[{index}] {}", row.name),
        v.off,
        v.end.saturating_sub(v.off),
    );
    let target = v.target();
    let mut shown: Vec<(&'static str, String)> = Vec::new();
    let mut value_node: Option<(NodeId, u64, u64, u32)> = None;
    let mut mask = u32::MAX;
    for fd in row.fields {
        let Some((s, l)) = v.span(fd) else { continue };
        let Some(x) = get(&v.words, fd) else { continue };
        let (val, short) = field_value(fd, x, v, target, env);
        let id = b.leaf(node, fd.name, s, l, val);
        match fd.kind {
            Kind::Addr if x >> 32 == 0 && matches!(v.place, Place::Bytes) => {
                cdo::aie_children(b, id, s, x as u32, &env.ctx);
                // A 64-bit address's high word, 0 for an array address.
                if l == 2 * WORD {
                    b.leaf(id, "high", s + WORD, WORD, Value::hex_wide(0, 4));
                }
                link_patch(b, id, v, x as u32, env);
            }
            Kind::Value => value_node = Some((id, s, l, x as u32)),
            Kind::PagePtr => link_page_ptr(b, id, x, env),
            Kind::Mask => mask = x as u32,
            Kind::BdWord(k) => {
                if let Some(bd) = v.value("bd_id") {
                    let reg = bd_word_reg(bd as u32, k);
                    if let Some(h) = cdo::register(0, reg, &env.ctx) {
                        cdo::bit_fields(b, id, b.span(s, l), x as u32, u32::MAX, h.fields);
                    }
                }
            }
            _ => {}
        }
        shown.push((fd.name, short));
    }
    if let (Some((id, at, l, x)), Some((c, r, o))) = (value_node, target) {
        if let Some(h) = cdo::register(r, o, &env.ctx) {
            cdo::bit_fields(b, id, b.span(at, l), x, mask, h.fields);
            link_queue(b, id, v, (c, r), h.reg.name, x, env);
        }
    }
    // A sequence op is its fields; a transaction op may have more bytes.
    let fixed = fields_end(row, false);
    let rest_at = v.off + fixed;
    let rest_len = match v.place {
        Place::Bytes => v.end.saturating_sub(rest_at),
        Place::Words(_) => 0,
    };
    let rest = b.span(rest_at, rest_len);
    match (row.rest, &v.place) {
        (Rest::Data, Place::Bytes) => {
            let words = rest_len / 4;
            let id = b.leaf(
                node,
                "data",
                rest_at,
                rest_len,
                Value::with(words, Radix::Dec, " words"),
            );
            if let Some((_, r, o)) = target {
                cdo::dma_words(b, id, rest, r, o, &env.ctx);
            }
            shown.push(("data", format!("{} words", num(words))));
        }
        (Rest::Registers, Place::Bytes) => registers(b, node, v, rest, env),
        (Rest::Payload, _) if rest_len > 0 => {
            bytes_leaf(b, node, "payload", rest);
        }
        _ if rest_len > 0 => {
            bytes_leaf(b, node, "padding_end", rest);
        }
        _ => {}
    }
    let mut sum = render(row.summary, &shown);
    if v.len > v.end.saturating_sub(v.off) {
        sum.push_str(&format!(
            " [cut: {} bytes past the stream]",
            v.len - (v.end - v.off)
        ));
    }
    b.set_value(node, sum);
    link_sync(b, node, v, env);
}

/// A field's value and its text in the op's summary.
pub(super) fn field_value(
    fd: &Field,
    x: u64,
    v: &OpView<'_>,
    target: Option<(u32, u32, u32)>,
    env: &Env,
) -> (Value, String) {
    let width = (u32::from(fd.bits).div_ceil(8)) as u8;
    match fd.kind {
        Kind::Opcode => (
            crate::model::named(x, Some(v.row.name)),
            v.row.name.to_string(),
        ),
        Kind::Dec => (Value::dec(x), x.to_string()),
        Kind::Arg => match env.args.and_then(|a| a.iter().find(|n| n.0 == x)) {
            Some((_, n)) => (
                Value::with(x, Radix::Dec, format!(" ({n})")),
                format!("{x} ({n})"),
            ),
            None => (Value::dec(x), x.to_string()),
        },
        Kind::Size | Kind::Bytes => (
            Value::with(x, Radix::Dec, " bytes"),
            format!("{} bytes", num(x)),
        ),
        Kind::Addr if x >> 32 == 0 => {
            let t = cdo::aie_text(x as u32, &env.ctx);
            (
                Value::with(x, Radix::HexWide, format!(" ({t})")).with_width(4),
                format!("{} ({t})", hex32(x as u32)),
            )
        }
        Kind::Reg => {
            let t = match target {
                Some((c, r, o)) => match cdo::register(r, o, &env.ctx) {
                    Some(h) => format!("col {c}, row {r}, {h} (0x{o:05x})"),
                    None => format!("col {c}, row {r}, reg 0x{o:05x}"),
                },
                None => hex32(x as u32),
            };
            (
                Value::with(x, Radix::HexWide, format!(" ({t})")).with_width(4),
                t,
            )
        }
        Kind::Named(names) => {
            let n = usize::try_from(x).ok().and_then(|i| names.get(i)).copied();
            (
                crate::model::named(x, n),
                n.map_or_else(|| x.to_string(), str::to_string),
            )
        }
        Kind::Dir => {
            let n = usize::try_from(x)
                .ok()
                .and_then(|i| DIRECTIONS.get(i))
                .copied();
            (
                crate::model::named(x, n),
                n.map_or_else(|| format!("direction {x}"), str::to_string),
            )
        }
        Kind::BdWord(k) => {
            let reg = v
                .value("bd_id")
                .and_then(|bd| cdo::register(0, bd_word_reg(bd as u32, k), &env.ctx));
            let rest = reg.map(|h| format!(" ({h})")).unwrap_or_default();
            (
                Value::with(x, Radix::HexWide, rest).with_width(4),
                hex32(x as u32),
            )
        }
        Kind::JobReg | Kind::LocalBarrier | Kind::RemoteBarrier | Kind::Actor => {
            let t = table::operand_name(fd.kind, x);
            (
                crate::model::named(x, t.as_deref()),
                t.unwrap_or_else(|| x.to_string()),
            )
        }
        Kind::Tile => {
            let t = format!("col {}, row {}", (x >> 5) & 0x7f, x & 0x1f);
            (Value::with(x, Radix::Hex, format!(" ({t})")), t)
        }
        Kind::PagePtr => (Value::hex(x), format!("page offset 0x{x:x}")),
        Kind::Page => (Value::dec(x), format!("page {x}")),
        Kind::Addr | Kind::Hex | Kind::Pad | Kind::Value | Kind::Mask => {
            let t = if x >> 32 == 0 && width == 4 {
                hex32(x as u32)
            } else {
                format!("0x{x:x}")
            };
            (Value::hex_wide(x, width.max(1)), t)
        }
    }
}

/// The addresses a READ_REGS op reads: 32-bit ones right after its count
/// (as mlir-aie writes them), or 64-bit ones after a padding word (aie-rt's
/// `read_register_op_t`), as its length says.
pub(super) fn registers(b: &mut Builder<'_>, node: NodeId, v: &OpView<'_>, at: Span, env: &Env) {
    let count = v.value("count").unwrap_or(0);
    let (first, stride) = if count > 0 && at.len == WORD * count {
        (at.offset, 4)
    } else if count > 0 && at.len == WORD + 2 * WORD * count {
        b.leaf(
            node,
            "padding_count",
            at.offset,
            WORD,
            Value::hex_wide(0, 4),
        );
        (at.offset + WORD, 2 * WORD)
    } else {
        if at.len > 0 {
            b.leaf(
                node,
                "payload",
                at.offset,
                at.len,
                format!("{} bytes", at.len),
            );
            b.warn(
                at.offset,
                at.len,
                format!(
                    "{count} register addresses do not fit {} bytes as 32- or 64-bit addresses",
                    at.len
                ),
            );
        }
        return;
    };
    let regs = b.group(node, "registers", first, count * stride);
    for k in 0..count.min(1024) {
        let o = first + k * stride;
        let Some(a) = b.read_u32(o, Endian::Little) else {
            break;
        };
        let hi = if stride == 2 * WORD {
            b.read_u32(o + WORD, Endian::Little).unwrap_or(0)
        } else {
            0
        };
        if hi != 0 {
            b.leaf(
                regs,
                format!("[{k}]"),
                o,
                stride,
                Value::hex(u64::from(hi) << 32 | u64::from(a)),
            );
            continue;
        }
        let t = cdo::aie_text(a, &env.ctx);
        let id = b.leaf(
            regs,
            format!("[{k}]"),
            o,
            stride,
            Value::with(u64::from(a), Radix::HexWide, format!(" ({t})")).with_width(4),
        );
        cdo::aie_children(b, id, o, a, &env.ctx);
    }
}

/// A DDR_PATCH's address field leads to the word an earlier op wrote
/// there (the buffer descriptor word it patches).
pub(super) fn link_patch(b: &mut Builder<'_>, id: NodeId, v: &OpView<'_>, addr: u32, env: &Env) {
    if v.row.name != "DDR_PATCH" {
        return;
    }
    if let Some(at) = env.writes.last_before(addr, v.off) {
        b.link(id, b.span(at, 4));
    }
}

/// A pointer into a control page leads to the buffer descriptor it names
/// in the page's data section.
pub(super) fn link_page_ptr(b: &mut Builder<'_>, id: NodeId, x: u64, env: &Env) {
    let Some((base, data)) = env.page else {
        return;
    };
    let bd = data.at(base.saturating_add(x), table::BD);
    if data.holds(bd) {
        b.link(id, bd);
    }
}

/// A TCT (or sequence SYNC) leads to the last push on the task queue of the
/// channel it waits on.
pub(super) fn link_sync(b: &mut Builder<'_>, node: NodeId, v: &OpView<'_>, env: &Env) {
    if !matches!(v.row.name, "TCT" | "SYNC") {
        return;
    }
    let (Some(c), Some(r), Some(dir), Some(ch)) = (
        v.value("column"),
        v.value("row"),
        v.value("direction"),
        v.value("channel"),
    ) else {
        return;
    };
    let d = if dir == 0 { "S2MM" } else { "MM2S" };
    let name = format!("DMA_{d}_{ch}_TASK_QUEUE");
    let Some(addr) = named_reg(env, c as u32, r as u32, &name) else {
        return;
    };
    if let Some(at) = env.writes.last_before(addr, v.off) {
        b.link(node, b.span(at, 4));
    }
}

/// The AIE address of register `name` of tile (`c`, `r`).
pub(super) fn named_reg(env: &Env, c: u32, r: u32, name: &str) -> Option<u32> {
    let g = env.ctx.regs?;
    let reg = g
        .registers(aie_regs::TileKind::of_row(r))
        .iter()
        .find(|x| x.name == name)?;
    Some(c << 25 | r << 20 | reg.off)
}

/// A push on a DMA channel's task queue leads to the first word of the
/// buffer descriptor it starts (its `START_BD_ID`, bits 3..0), as the last
/// op before it wrote it.
pub(super) fn link_queue(
    b: &mut Builder<'_>,
    id: NodeId,
    v: &OpView<'_>,
    (c, r): (u32, u32),
    reg: &str,
    value: u32,
    env: &Env,
) {
    if !reg.ends_with("_TASK_QUEUE") {
        return;
    }
    let Some(addr) = named_reg(env, c, r, &format!("DMA_BD{}_0", value & 0xf)) else {
        return;
    };
    if let Some(at) = env.writes.last_before(addr, v.off) {
        b.link(id, b.span(at, 4));
    }
}

/// A leaf for the bytes in `at`: their count and a preview.
pub(super) fn bytes_leaf(b: &mut Builder<'_>, parent: NodeId, name: &str, at: Span) {
    let bytes = b.bytes(at);
    let v = format!("{} bytes: {}", at.len, text::hex(bytes, 16));
    b.leaf(parent, name, at.offset, at.len, v);
}

/// `template` with each `{name}` replaced by what `shown` gives for it.
pub(super) fn render(template: &str, shown: &[(&'static str, String)]) -> String {
    let mut out = String::new();
    let mut s = template;
    while let Some((before, rest)) = s.split_once('{') {
        out.push_str(before);
        let (name, after) = rest.split_once('}').unwrap_or((rest, ""));
        match shown.iter().find(|(n, _)| *n == name) {
            Some((_, t)) => out.push_str(t),
            None => out.push('?'),
        }
        s = after;
    }
    out.push_str(s);
    out
}
