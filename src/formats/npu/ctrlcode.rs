//! Control code in an ELF, as aiebu assembles it for AIE2PS and AIE4 NPUs
//! (`EI_OSABI` 0x40, aiebu's `AMD_AIE_CERT`, on `EM_M32`): for each column
//! `C` and page `P`, a `.ctrltext.C.P` section holding a 16-byte page
//! header and the ops of [`table::CERT`] up to `EOF`, and a
//! `.ctrldata.C.P` section holding the uC-DMA buffer descriptors those ops
//! start and the words each copies to the array.
//!
//! A pointer in an op (`descriptor_ptr`) counts bytes from the end of the
//! page header through the text and on into the data: the data section
//! follows the text in the page.

use std::sync::Arc;

use super::layout::{page_header, uc_dma_bd, PageHeader, UcDmaBd, WORD};
use super::op::{build_op, bytes_leaf, Env, OpView, Place, Writes};
use super::table::{self, Kind, Len, Op, BD};
use super::{cdo, summary_node, tally_op, words_le};
use crate::formats::cdo::aie_regs;
use crate::formats::elf::{Elf, Sec, SectionHook};
use crate::model::record::Record;
use crate::model::text::hex32;
use crate::model::{
    num, Builder, Configures, Endian, Fact, Fields, Format, NodeId, Radix, Span, Value,
};

/// A page header's size.
pub const PAGE_HEADER: u64 = page_header::SIZE;
/// aiebu's `EI_OSABI` for control code run by the AIE2PS and AIE4 command
/// processors.
pub const OSABI_AIE_CERT: u8 = 0x40;
/// Most buffer descriptors followed in one page.
const MAX_BDS: usize = 1 << 12;

/// The ELF reader's hook for the control-code sections, by name.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| page_section(&s.name).is_some(),
    decode: |b, id, elf, s, at| {
        if elf.osabi != OSABI_AIE_CERT || elf.machine != 1 {
            return false;
        }
        match page_section(&s.name) {
            Some((true, page)) => text(b, id, elf, page, at),
            Some((false, page)) => data(b, id, elf, page, at),
            None => return false,
        }
        true
    },
};

/// `(true, ".C.P")` for `.ctrltext.C.P`, `(false, ".C.P")` for
/// `.ctrldata.C.P`.
fn page_section(name: &str) -> Option<(bool, &str)> {
    if let Some(p) = name.strip_prefix(".ctrltext") {
        return Some((true, p));
    }
    name.strip_prefix(".ctrldata").map(|p| (false, p))
}

/// The bytes of the section named `name`.
fn section(elf: &Elf, name: &str) -> Option<Span> {
    let s: &Sec = elf.secs.iter().find(|s| s.name == name)?;
    elf.data(s)
}

/// The ops of a page's text: each op's offset in the section and row,
/// where the walk ended, and why when it ended early.
struct Walk {
    ops: Vec<(u64, &'static Op)>,
    end: u64,
    error: Option<String>,
}

fn walk(d: &[u8]) -> Walk {
    let mut w = Walk {
        ops: Vec::new(),
        end: PAGE_HEADER,
        error: None,
    };
    let len = d.len() as u64;
    while w.end < len {
        let at = w.end;
        let Some(&code) = usize::try_from(at).ok().and_then(|i| d.get(i)) else {
            break;
        };
        let Some(row) = table::find(table::CERT, code) else {
            w.error = Some(format!("unknown opcode 0x{code:02x}"));
            break;
        };
        let Len::Fixed(n) = row.len else { break };
        if at + u64::from(n) > len {
            w.error = Some(format!("{} needs {n} bytes, {} remain", row.name, len - at));
            break;
        }
        w.ops.push((at, row));
        w.end = at + u64::from(n);
        if row.name == "EOF" {
            break;
        }
    }
    if w.error.is_none() && w.ops.last().is_none_or(|o| o.1.name != "EOF") {
        w.error = Some("no EOF ends the ops".to_string());
    }
    w
}

/// What the ops are shown against: AIE2PS's registers (aiebu writes this
/// ELF for AIE2PS control code), and the page's data for the pointers.
fn env(page: Option<(u64, Span)>) -> Env {
    let g = aie_regs::Gen::Aie2ps;
    Env {
        ctx: cdo::Ctx {
            start_columns: Vec::new(),
            regs: Some(g),
            regs_from: Some(format!("{} names (aiebu's AIE2PS control code)", g.name())),
        },
        writes: Writes::default(),
        page,
        args: None,
    }
}

/// The absolute offset of page pointer 0 and the bytes of the data
/// section, for the page whose text is `len` bytes.
fn page_data(elf: &Elf, page: &str, len: u64) -> Option<(u64, Span)> {
    let data = section(elf, &format!(".ctrldata{page}"))?;
    let base = data.offset.checked_sub(len.checked_sub(PAGE_HEADER)?)?;
    Some((base, data))
}

fn text(b: &mut Builder<'_>, id: NodeId, elf: &Elf, page: &str, sec: Span) {
    if sec.len < PAGE_HEADER {
        b.error(
            sec.offset,
            sec.len,
            format!("{} bytes are too few for a page header", sec.len),
        );
        return;
    }
    // What it configures, for --targets: the control code of AIE2PS's
    // shim-tile microcontrollers.
    b.fact(
        id,
        Fact::Configures(Configures {
            format: Format::Elf,
            target: aie_regs::Gen::Aie2ps.short().into(),
            kind: "npu".into(),
        }),
    );
    let d = b.bytes(sec).to_vec();
    page_header(b, id, sec.offset, &d);
    let w = walk(&d);
    let env = Arc::new(env(page_data(elf, page, sec.len)));
    let mut tally = Vec::new();
    for (_, row) in &w.ops {
        tally_op(&mut tally, row.name);
    }
    summary_node(b, id, sec.offset, w.ops.len() as u64, &tally, &env.ctx);
    let ops = b.group(id, "ops", sec.offset + PAGE_HEADER, w.end - PAGE_HEADER);
    b.set_value(ops, Value::with(w.ops.len() as u64, Radix::Dec, " ops"));
    for (i, &(at, row)) in w.ops.iter().enumerate() {
        let n = match row.len {
            Len::Fixed(n) => u64::from(n),
            _ => 0,
        };
        let v = OpView {
            row,
            off: sec.offset + at,
            len: n,
            end: sec.offset + at + n,
            place: Place::Bytes,
            words: words_le(b.data(), sec.offset + at, sec.offset + at + n),
        };
        build_op(b, ops, i as u64, &v, &env);
    }
    if let Some(e) = &w.error {
        b.error(
            sec.offset + w.end,
            sec.len - w.end,
            format!("op {}: {e}", w.ops.len()),
        );
    }
    if w.end < sec.len {
        let name = if w.error.is_some() { "rest" } else { "padding" };
        bytes_leaf(b, id, name, sec.skip(w.end));
    }
}

/// The page header's fields, as aiebu's assembler writes them.
fn page_header(b: &mut Builder<'_>, id: NodeId, a: u64, d: &[u8]) {
    let Ok(p) = PageHeader::read_zeroed(d, Endian::Little) else {
        return;
    };
    let h = b.group(id, "page_header", a, PAGE_HEADER);
    let len = num(p.cur_page_len.into());
    b.set_value(h, format!("page {}, {len} bytes", p.page_index));
    let mut f = Fields::new(b, h, a, Endian::Little);
    PageHeader::show_part(&mut f, 0, page_header::AT.magic.end());
    if p.magic != MAGIC {
        let magic = p.magic;
        page_header::AT.magic.warn(
            f.builder(),
            a,
            format!("a page header starts with 0x{MAGIC:04x}, not 0x{magic:04x}"),
        );
    }
    PageHeader::show_part(&mut f, page_header::AT.page_index.off, PAGE_HEADER);
}

/// What a page header starts with.
const MAGIC: u16 = 0xffff;

/// The little-endian 16-bit number at `at` in `d`, 0 past its end.
fn le16(d: &[u8], at: u64) -> u64 {
    let i = usize::try_from(at).ok();
    let b = |k: usize| i.and_then(|i| d.get(i.checked_add(k)?)).copied();
    u64::from(b(0).unwrap_or(0)) | u64::from(b(1).unwrap_or(0)) << 8
}

/// The buffer descriptor at `o` in `d`, the bytes past `d`'s end read as 0.
fn bd_at(d: &[u8], o: u64) -> Option<UcDmaBd> {
    let s = d.get(usize::try_from(o).ok()?..).unwrap_or_default();
    UcDmaBd::read_zeroed(s, Endian::Little).ok()
}

/// One thing in a page's data: a buffer descriptor (its index in the
/// order found) or the words one copies.
enum Item {
    Bd(usize),
    Words { bd: usize, to: u64 },
}

fn data(b: &mut Builder<'_>, id: NodeId, elf: &Elf, page: &str, sec: Span) {
    let Some(text) = section(elf, &format!(".ctrltext{page}")) else {
        b.warn(
            sec.offset,
            sec.len,
            format!("no .ctrltext{page} points into this data"),
        );
        bytes_leaf(b, id, "data", sec);
        return;
    };
    let t = b.bytes(text).to_vec();
    let text_ptrs = text.len.saturating_sub(PAGE_HEADER);
    // The chains of buffer descriptors the ops start.
    let mut starts: Vec<u64> = Vec::new();
    for (at, row) in walk(&t).ops {
        for fd in row.fields.iter().filter(|f| f.kind == Kind::PagePtr) {
            let Some((o, _)) = fd.bytes() else { continue };
            let x = le16(&t, at + o);
            match x.checked_sub(text_ptrs) {
                Some(r) if r + BD <= sec.len => starts.push(r),
                _ => b.warn(
                    text.offset + at + o,
                    2,
                    format!(
                        "{} 0x{x:x} does not name a buffer descriptor in .ctrldata{page} (its pointers run from 0x{text_ptrs:x} to 0x{:x})",
                        fd.name,
                        text_ptrs + sec.len
                    ),
                ),
            }
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let d = b.bytes(sec).to_vec();
    let mut items: Vec<(u64, u64, Item)> = Vec::new();
    let mut bds: Vec<u64> = Vec::new();
    for s in starts {
        let mut o = s;
        loop {
            if bds.len() >= MAX_BDS || o + BD > sec.len {
                break;
            }
            if bds.contains(&o) {
                break;
            }
            let k = bds.len();
            bds.push(o);
            items.push((o, BD, Item::Bd(k)));
            let Some(bd) = bd_at(&d, o) else { break };
            let n = u64::from(bd.words());
            let local = u64::from(bd.local_ptr);
            let from = if bd.relative() {
                o.saturating_add(local)
            } else {
                local
            };
            let to = bd.remote();
            if n > 0 && from < sec.len {
                items.push((
                    from,
                    (WORD * n).min(sec.len - from),
                    Item::Words { bd: k, to },
                ));
            }
            if !bd.chained() {
                break;
            }
            o += BD;
        }
    }
    items.sort_by_key(|x| (x.0, x.1));
    let mut at = 0u64;
    let mut pads = 0usize;
    let env = env(None);
    for (o, n, item) in &items {
        if *o < at {
            b.warn(
                sec.offset + o,
                *n,
                "overlaps what comes before it in the data",
            );
            continue;
        }
        if *o > at {
            pad(b, id, sec.part(at, o - at), &mut pads);
        }
        match item {
            Item::Bd(k) => bd_node(b, id, sec.offset + o, *k, &d, *o, &env),
            Item::Words { bd, to } => words_node(b, id, sec.part(*o, *n), *bd, *to, &env),
        }
        at = o + n;
    }
    if at < sec.len {
        pad(b, id, sec.skip(at), &mut pads);
    }
}

fn pad(b: &mut Builder<'_>, id: NodeId, at: Span, k: &mut usize) {
    bytes_leaf(b, id, &format!("padding {k}"), at);
    *k += 1;
}

/// A uC-DMA buffer descriptor: the words it copies (from a local pointer)
/// to an address of the array or the host.
fn bd_node(b: &mut Builder<'_>, parent: NodeId, at: u64, k: usize, d: &[u8], o: u64, env: &Env) {
    let Some(bd) = bd_at(d, o) else { return };
    let (local, lo, hi) = (bd.local_ptr, bd.remote_ptr_low, bd.remote_high());
    let n = bd.words();
    let next = u32::from(bd.chained());
    let to = if hi == 0 {
        format!("{} ({})", hex32(lo), cdo::aie_text(lo, &env.ctx))
    } else {
        format!("0x{:x}", u64::from(hi) << 32 | u64::from(lo))
    };
    let id = b.group(parent, format!("[{k}] UC_DMA_BD"), at, BD);
    let more = if next == 1 {
        ", the next BD follows"
    } else {
        ""
    };
    b.set_value(id, format!("{n} words to {to}{more}"));
    let f = uc_dma_bd::AT;
    let words = Value::with(n.into(), Radix::Dec, " words");
    b.leaf(id, "size", f.size.of(at), f.size.size, words);
    let (flags, one) = (f.flags.of(at), f.flags.size);
    let bit = |k: u8| Value::dec((bd.flags >> k & 1).into());
    b.leaf(id, "next_bd", flags, one, Value::dec(next.into()));
    b.leaf(id, "external", flags, one, bit(BD_EXTERNAL));
    b.leaf(id, "local_relative", flags, one, bit(BD_RELATIVE));
    let (lat, lsize) = (f.local_ptr.of(at), f.local_ptr.size);
    let lp = b.leaf(
        id,
        "local_ptr",
        lat,
        lsize,
        Value::hex_wide(local.into(), 4),
    );
    if bd.relative() && n > 0 {
        let from = at.saturating_add(u64::from(local));
        if from + WORD <= b.file_len() {
            b.link(lp, b.span(from, WORD));
        }
    }
    let (rat, rsize) = (f.remote_ptr_low.of(at), f.remote_ptr_low.size);
    let r = b.leaf(
        id,
        "remote_ptr_low",
        rat,
        rsize,
        Value::hex_wide(lo.into(), 4),
    );
    if hi == 0 {
        cdo::aie_children(b, r, rat, lo, &env.ctx);
    }
    let high = Value::hex_wide(bd.remote_ptr_high.into(), 4);
    let (hat, hsize) = (f.remote_ptr_high.of(at), f.remote_ptr_high.size);
    b.leaf(id, "remote_ptr_high", hat, hsize, high);
}

/// The bits of a buffer descriptor's flags byte.
const BD_NEXT: u8 = 0;
const BD_EXTERNAL: u8 = 1;
const BD_RELATIVE: u8 = 2;

impl UcDmaBd {
    /// The words it copies.
    fn words(&self) -> u16 {
        self.size & 0x7fff
    }
    /// True if the next BD follows it.
    fn chained(&self) -> bool {
        self.flags >> BD_NEXT & 1 == 1
    }
    /// True if its local pointer counts from the BD.
    fn relative(&self) -> bool {
        self.flags >> BD_RELATIVE & 1 == 1
    }
    /// The remote address's high word, without the top 3 bits.
    fn remote_high(&self) -> u32 {
        self.remote_ptr_high & 0x1fff_ffff
    }
    /// The address it copies to.
    fn remote(&self) -> u64 {
        u64::from(self.remote_high()) << 32 | u64::from(self.remote_ptr_low)
    }
}

/// The words buffer descriptor `bd` copies, each with the address it goes
/// to.
fn words_node(b: &mut Builder<'_>, parent: NodeId, at: Span, bd: usize, to: u64, env: &Env) {
    let id = b.group(parent, format!("words of [{bd}]"), at.offset, at.len);
    b.set_value(id, Value::with(at.len / WORD, Radix::Dec, " words"));
    for i in 0..at.len / WORD {
        let o = at.offset + WORD * i;
        let Some(v) = b.read_u32(o, crate::model::Endian::Little) else {
            break;
        };
        let dest = to.wrapping_add(4 * i);
        let rest = if dest >> 32 == 0 {
            format!(" (to {})", cdo::aie_text(dest as u32, &env.ctx))
        } else {
            format!(" (to 0x{dest:x})")
        };
        b.leaf(
            id,
            format!("[{i}]"),
            o,
            4,
            Value::with(v.into(), Radix::HexWide, rest).with_width(4),
        );
    }
}
