//! Relocation tables (REL and RELA): each entry with its type named for
//! the machine and its symbol resolved.

use std::sync::Arc;

use super::records::{self, either, mips64_info, Mips64Info};
use super::symbols::{read_sym, relocatable, sym_entry, sym_name, Sym};
use super::{
    constants,
    shared::{entsize_check, label},
    Elf, Sec,
};
use crate::model::record::Record;
use crate::model::{named, num, Builder, Fields, NodeId, Seq, Span, Step, Value, GROUP};

pub(super) fn relocs(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    rela: bool,
    tname: &str,
) -> NodeId {
    let es = rel_size(elf, rela);
    entsize_check(b, elf, s, es, at.len);
    let count = at.len / es;
    let el = elf.clone();
    let ri = s.index;
    let id = b.array(
        g,
        &label(s),
        at.offset,
        count,
        es,
        Arc::new(move |b, p, i, o| reloc(b, p, &el, ri, rela, i, o)),
    );
    b.set_value(id, format!("{tname}, {count} relocations"));
    id
}

/// One relocation as read (REL, RELA or CREL): where it applies, its info
/// word split into symbol index and type, and its addend (`None` for REL).
#[derive(Clone, Copy)]
pub(crate) struct Rel {
    pub offset: u64,
    /// The info word as stored (CREL: as an ELF64 or ELF32 REL would
    /// store it).
    pub info: u64,
    pub sym: u64,
    /// The type; on MIPS64 the three types and `r_ssym` packed as LLVM
    /// packs them (`r_type | r_type2 << 8 | r_type3 << 16 | r_ssym << 24`).
    pub typ: u64,
    pub addend: Option<u64>,
}

/// Whether relocations pack MIPS64's `r_info`: a 4-byte symbol index in
/// the file's byte order, then `r_ssym`, `r_type3`, `r_type2` and
/// `r_type`, one byte each, in that order in either byte order.
fn mips64(elf: &Elf) -> bool {
    elf.is64 && elf.machine == constants::EM_MIPS
}

/// The size of a REL (`rela` false) or RELA entry.
fn rel_size(elf: &Elf, rela: bool) -> u64 {
    either!(elf.is64, rela32 | rela64 as R => if rela { R::SIZE } else { R::AT.r_addend.off })
}

/// The entry at `o` of a REL (`rela` false) or RELA table; `None` when its
/// offset or info word does not read.
pub(crate) fn read_rel(b: &Builder<'_>, elf: &Elf, o: u64, rela: bool) -> Option<Rel> {
    // A REL entry is a RELA entry without its addend: read as one with
    // the bytes past its end taken as zeros.
    let (offset, info, info_at, addend) = either!(elf.is64, rela32 | rela64 as R => {
        let d = b.slice(o, rel_size(elf, rela));
        let r = if rela {
            <R::Rec as Record>::read_in(d, elf.e).ok()?
        } else if d.len() as u64 == R::AT.r_addend.off {
            <R::Rec as Record>::read_zeroed(d, elf.e).ok()?
        } else {
            return None;
        };
        (
            u64::from(r.r_offset),
            u64::from(r.r_info),
            R::AT.r_info,
            u64::from(r.r_addend),
        )
    });
    let (sym, typ) = if mips64(elf) {
        // Its symbol index and types in the order the record declares.
        let m: Mips64Info = records::read(b, info_at.of(o), elf.e)?;
        let t = u32::from_be_bytes([m.ssym, m.type3, m.type2, m.typ]);
        (u64::from(m.sym), u64::from(t))
    } else if elf.is64 {
        (info >> 32, info & 0xffff_ffff)
    } else {
        (info >> 8, info & 0xff)
    };
    let addend = rela.then_some(addend);
    Some(Rel {
        offset,
        info,
        sym,
        typ,
        addend,
    })
}

/// The name of one relocation type, or `type N`.
fn one_type(elf: &Elf, t: u64) -> String {
    u32::try_from(t)
        .ok()
        .and_then(|t| elf.reloc_name(t))
        .map_or_else(|| format!("type {t}"), str::to_string)
}

/// `R_RISCV_VENDOR`: its symbol names the vendor whose relocation types
/// the next relocation's number is one of.
const R_RISCV_VENDOR: u64 = 191;

/// The vendor a RISC-V relocation of type `typ` at `offset` is named by:
/// the symbol of the relocation before it, which `prev` reads (only for a
/// RISC-V type past `R_RISCV_VENDOR`), when that is an `R_RISCV_VENDOR` at
/// the same offset (as llvm-readelf pairs them).
pub(crate) fn riscv_vendor(
    b: &Builder<'_>,
    elf: &Elf,
    symtab: u32,
    prev: impl FnOnce() -> Option<Rel>,
    offset: u64,
    typ: u64,
) -> Option<String> {
    if elf.machine != constants::EM_RISCV || typ <= R_RISCV_VENDOR {
        return None;
    }
    let prev = prev()?;
    (prev.typ == R_RISCV_VENDOR && prev.offset == offset)
        .then(|| sym_name(b, elf, symtab, prev.sym))
        .flatten()
}

/// The name of type `t` of `vendor`'s RISC-V relocations.
fn vendor_type(vendor: Option<&str>, t: u64) -> Option<&'static str> {
    let vendor = vendor?;
    super::reloc_tables::RISCV_VENDOR
        .iter()
        .find(|&&(v, n, _)| v == vendor && u64::from(n) == t)
        .map(|&(_, _, name)| name)
}

/// A relocation's type as llvm-readelf names it: on MIPS64 its three
/// types joined by `/` (`R_MIPS_GPREL16/R_MIPS_SUB/R_MIPS_HI16`); a RISC-V
/// vendor's type by `vendor` (see [`riscv_vendor`]).
pub(crate) fn type_text(elf: &Elf, typ: u64, vendor: Option<&str>) -> String {
    if let Some(n) = vendor_type(vendor, typ) {
        return n.to_string();
    }
    if mips64(elf) {
        [typ & 0xff, (typ >> 8) & 0xff, (typ >> 16) & 0xff]
            .map(|t| one_type(elf, t))
            .join("/")
    } else {
        one_type(elf, typ)
    }
}

/// The first `max` relocations of section `r` (REL, RELA or CREL), up to
/// the first that does not read; `None` when `r` has no bytes in the file.
pub(crate) fn rels<'e>(
    b: &'e Builder<'_>,
    elf: &'e Elf,
    r: &Sec,
    max: u64,
) -> Option<Box<dyn Iterator<Item = Rel> + 'e>> {
    let table = elf.data(r)?;
    if r.typ == constants::SHT_CREL {
        let d = b.read_bytes(table.offset, table.len)?;
        let (h, it) = super::crel::entries(d, elf.is64, max);
        return Some(Box::new(it.map(move |e| crel_rel(&e, elf.is64, h.addends))));
    }
    let rela = r.typ == constants::SHT_RELA;
    let es = rel_size(elf, rela);
    Some(Box::new((0..(table.len / es).min(max)).map_while(
        move |k| read_rel(b, elf, table.offset + k * es, rela),
    )))
}

/// The relocation a CREL entry adds up to, its info word as an ELF64
/// (`is64`) or ELF32 REL would store it.
fn crel_rel(e: &super::crel::Entry, is64: bool, addends: bool) -> Rel {
    let info = if is64 {
        (u64::from(e.sym) << 32) | u64::from(e.typ)
    } else {
        (u64::from(e.sym) << 8) | u64::from(e.typ & 0xff)
    };
    Rel {
        offset: e.offset,
        info,
        sym: e.sym.into(),
        typ: e.typ.into(),
        addend: addends.then_some(e.addend),
    }
}

/// Symbol `sym` of symbol table section `symtab`, as a relocation names
/// it: read when its entry starts inside the table.
pub(crate) fn rel_sym(b: &Builder<'_>, elf: &Elf, symtab: u32, sym: u64) -> Option<Sym> {
    let st = elf.sec(symtab.into())?;
    let table = elf.data(st)?;
    let so = sym.checked_mul(elf.sym_size())?;
    if so >= table.len {
        return None;
    }
    read_sym(b, elf, table.offset + so)
}

/// What a relocation entry shows of itself, however it is stored.
struct Shown {
    tshow: String,
    symname: Option<String>,
}

impl Shown {
    fn of(
        b: &Builder<'_>,
        elf: &Elf,
        symtab: u32,
        sym: u64,
        typ: u64,
        vendor: Option<&str>,
    ) -> Shown {
        Shown {
            tshow: type_text(elf, typ, vendor),
            symname: if sym != 0 {
                sym_name(b, elf, symtab, sym)
            } else {
                None
            },
        }
    }

    /// `[i] TYPE symbol`.
    fn label(&self, i: u64) -> String {
        let mut label = format!("[{i}] {}", self.tshow);
        if let Some(n) = &self.symname {
            label.push(' ');
            label.push_str(n);
        }
        label
    }

    /// `TYPE at 0xOFFSET symbol +addend`, the symbol demangled in front.
    fn value(&self, r_offset: u64, addend: Option<i64>) -> Value {
        let mut v = format!("{} at 0x{r_offset:x}", self.tshow);
        if let Some(n) = &self.symname {
            v.push_str(&format!(" {n}"));
        }
        if let Some(ad) = addend {
            v.push_str(&format!(" {}{ad}", if ad >= 0 { "+" } else { "" }));
        }
        match (Value::from(v), &self.symname) {
            (Value::Text(t), Some(n)) => Value::symbol(n, t),
            (v, _) => v,
        }
    }
}

/// Links `nodes` (an entry and its offset field) to the bytes its
/// relocation `r` (offset, type, symbol) applies to: where the machine's
/// vendor places them in the symbol's section, else in a relocatable file
/// an offset into the section `rs` applies to, else an address.
fn link_target(b: &mut Builder<'_>, nodes: &[NodeId], elf: &Elf, rs: &Sec, r: (u64, u64, u64)) {
    let (r_offset, typ, sym) = r;
    let target = if let Some((at, len)) = elf.vendor.and_then(|v| v.reloc_patch(typ, r_offset)) {
        // In the symbol's section.
        rel_sym(b, elf, rs.link, sym)
            .and_then(|s| elf.sec(s.sec.into()))
            .and_then(|t| elf.data(t))
            .and_then(|to| (at < to.len).then(|| to.part(at, len)))
    } else if relocatable(elf) {
        let t = elf.sec(rs.info.into());
        let data = t.and_then(|t| elf.data(t));
        // A compressed section is relocated in its inflated bytes: the
        // offset is one of those, in the space they were made into; where
        // they were not made, no link rather than one into the compressed
        // bytes.
        let packed = t
            .zip(data)
            .and_then(|(t, to)| super::compressed::compressed_data(b, elf, t, to));
        if let Some((from, method)) = packed {
            let origin = crate::model::space::Origin { from, method };
            if let Some((space, bytes)) = b.derived(origin) {
                let len = bytes.len() as u64;
                if r_offset < len {
                    for &n in nodes {
                        b.link(n, Span::new(space, r_offset, 4u64.min(len - r_offset)));
                    }
                }
            }
            return;
        }
        data.and_then(|to| (r_offset < to.len).then(|| to.part(r_offset, 4)))
    } else {
        elf.addr_to_abs(r_offset).map(|x| b.span(x, 4))
    };
    if let Some(to) = target {
        for &n in nodes {
            b.link(n, to);
        }
    }
}

/// The `sym` field at `f`'s place, named and linked to its entry.
#[allow(clippy::too_many_arguments)]
fn sym_field(
    f: &mut Fields<'_, '_>,
    elf: &Elf,
    rs: &Sec,
    i: u64,
    sym: u64,
    len: u64,
    symname: Option<&str>,
) {
    let at = f.at();
    f.field("sym", len, |v| match symname {
        Some(n) => Value::named(v, Some(n)),
        None => num(v),
    });
    if let Some(n) = f.last_fitted() {
        sym_link(f.builder(), n, elf, rs, i, sym, (at, len));
    }
}

/// Links field `n` of relocation `i` of `rs` to the entry of symbol `sym`;
/// an error at `at` when the symbol is not in the table.
fn sym_link(
    b: &mut Builder<'_>,
    n: NodeId,
    elf: &Elf,
    rs: &Sec,
    i: u64,
    sym: u64,
    (at, len): (u64, u64),
) {
    if sym == 0 {
        return;
    }
    match sym_entry(elf, rs.link, sym) {
        Some(so) => b.link(n, b.span(so, elf.sym_size())),
        None => b.error(
            at,
            len,
            format!(
                "relocation [{i}] of [{}] {}: symbol {sym} is not in symbol table [{}]",
                rs.index, rs.name, rs.link
            ),
        ),
    }
}

fn reloc(b: &mut Builder<'_>, p: NodeId, elf: &Elf, ri: u32, rela: bool, i: u64, o: u64) {
    let Some(r) = read_rel(b, elf, o, rela) else {
        return;
    };
    let Some(rs) = elf.sec(ri.into()) else {
        return;
    };
    let es = rel_size(elf, rela);
    let prev = || read_rel(b, elf, o.checked_sub(es).filter(|_| i > 0)?, rela);
    let vendor = riscv_vendor(b, elf, rs.link, prev, r.offset, r.typ);
    let shown = Shown::of(b, elf, rs.link, r.sym, r.typ, vendor.as_deref());
    let id = b.group(p, shown.label(i), o, es);
    // Quiet: every entry of the array lies inside the section's bytes.
    let mut f = Fields::new(b, id, o, elf.e).quiet();
    let (offset, info_at, addend_at) = either!(elf.is64, rela32 | rela64 as R => {
        let n = R::Rec::show_part(&mut f, 0, R::AT.r_offset.end());
        (n.r_offset, R::AT.r_info, R::AT.r_addend)
    });
    if let Some(n) = offset {
        link_target(f.builder(), &[n, id], elf, rs, (r.offset, r.typ, r.sym));
    }
    let inf = f.builder().group(id, "r_info", info_at.of(o), info_at.size);
    f.builder()
        .set_value(inf, Value::hex(r.info).with_width(info_at.size as u8));
    f.under(inf);
    let symname = shown.symname.as_deref();
    if mips64(elf) {
        let sym_len = mips64_info::AT.sym.size;
        sym_field(&mut f, elf, rs, i, r.sym, sym_len, symname);
        let n = Mips64Info::show_part(&mut f, mips64_info::AT.ssym.off, mips64_info::SIZE);
        let m: Option<Mips64Info> = records::read(f.builder(), info_at.of(o), elf.e);
        if let Some(m) = m {
            for (node, t) in [(n.type3, m.type3), (n.type2, m.type2), (n.typ, m.typ)] {
                if let Some(node) = node {
                    f.builder()
                        .set_value(node, named(t.into(), elf.reloc_name(t.into())));
                }
            }
        }
    } else {
        // `sym` and `type` are packed in r_info: ELF64 a 4-byte symbol
        // index and a 4-byte type, ELF32 a 3-byte index and a 1-byte
        // type, each in the order the byte order puts them.
        let (type_len, sym_len) = if elf.is64 { (4, 4) } else { (1, 3) };
        let tname = vendor_type(vendor.as_deref(), r.typ)
            .or_else(|| u32::try_from(r.typ).ok().and_then(|t| elf.reloc_name(t)));
        if elf.e == crate::model::Endian::Little {
            f.field("type", type_len, |v| named(v, tname));
            sym_field(&mut f, elf, rs, i, r.sym, sym_len, symname);
        } else {
            sym_field(&mut f, elf, rs, i, r.sym, sym_len, symname);
            f.field("type", type_len, |v| named(v, tname));
        }
    }
    let addend = if rela {
        f.under(id);
        let shown = either!(elf.is64, rela32 | rela64 as R => {
            R::Rec::show_part(&mut f, addend_at.off, R::SIZE).r_addend
        });
        shown
            .and(r.addend)
            .map(|v| crate::model::sign_extend(v, addend_at.size))
    } else {
        None
    };
    b.set_value(id, shown.value(r.offset, addend));
}

/// A RELR table (`SHT_RELR`, `.relr.dyn`): words that are each an address
/// to relocate (even) or a bitmap of the words after the last address
/// (odd), every one a relative relocation.
pub(super) fn relr(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    tname: &str,
) -> NodeId {
    let w = elf.word();
    entsize_check(b, elf, s, w, at.len);
    let count = at.len / w;
    // Where each bitmap's first bit points: the word after its address,
    // moved on by the words the bitmaps before it cover.
    let mut bases = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut base = 0u64;
    let mut total = 0u64;
    let bits = 8 * w - 1;
    for k in 0..count {
        let Some(x) = elf.read_word(b, at.offset + k * w) else {
            break;
        };
        bases.push(base);
        if x & 1 == 0 {
            total += 1;
            base = x.wrapping_add(w);
        } else {
            total += u64::from((x >> 1).count_ones());
            base = base.wrapping_add(bits * w);
        }
    }
    let bases = Arc::new(bases);
    let el = elf.clone();
    let id = b.array(
        g,
        &label(s),
        at.offset,
        count,
        w,
        Arc::new(move |b, p, i, o| relr_entry(b, p, &el, &bases, i, o)),
    );
    b.set_value(id, format!("{tname}, {count} words, {total} relocations"));
    id
}

fn relr_entry(b: &mut Builder<'_>, p: NodeId, elf: &Elf, bases: &[u64], i: u64, o: u64) {
    let w = elf.word();
    let Some(x) = elf.read_word(b, o) else {
        return;
    };
    if x & 1 == 0 {
        let id = b.group(p, format!("[{i}] address 0x{x:x}"), o, w);
        b.set_value(id, Value::hex(x).with_width(w as u8));
        if let Some(t) = elf.addr_to_abs(x) {
            b.link(id, b.span(t, w));
        }
        return;
    }
    let base = usize::try_from(i)
        .ok()
        .and_then(|k| bases.get(k))
        .copied()
        .unwrap_or(0);
    let addrs: Vec<u64> = (1..8 * w)
        .filter(|&k| (x >> k) & 1 != 0)
        .map(|k| base.wrapping_add((k - 1) * w))
        .collect();
    let id = b.group(p, format!("[{i}] bitmap 0x{x:x}"), o, w);
    let list: Vec<String> = addrs.iter().map(|a| format!("0x{a:x}")).collect();
    b.set_value(
        id,
        format!("{} relocations: {}", addrs.len(), list.join(", ")),
    );
    for (k, &ad) in addrs.iter().enumerate() {
        let c = b.group(id, format!("[{k}] 0x{ad:x}"), o, w);
        b.set_value(c, Value::hex(ad).with_width(w as u8));
        if let Some(t) = elf.addr_to_abs(ad) {
            b.link(c, b.span(t, w));
        }
    }
}

/// A CREL table (`SHT_CREL`): its header, then each delta-encoded entry
/// with the relocation it adds up to. Entries are built when opened, from
/// the sums kept at every [`GROUP`]-th one.
pub(super) fn crel(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    tname: &str,
) -> NodeId {
    let id = b.group(g, label(s), at.offset, at.len);
    let Some(d) = b.read_bytes(at.offset, at.len) else {
        return id;
    };
    let Some(h) = super::crel::header(d) else {
        b.error(
            at.offset,
            at.len,
            format!(
                "section [{}] {}: CREL header does not read",
                s.index, s.name
            ),
        );
        return id;
    };
    b.set_value(
        id,
        format!(
            "{tname}, {} relocations{}",
            h.count,
            if h.addends { ", with addends" } else { "" }
        ),
    );
    // One pass for the sums at every GROUP-th entry and where it starts.
    let mut st = super::crel::State::start(&h);
    let mut marks = Vec::new();
    let mut states = Vec::new();
    let mut n = 0u64;
    while n < h.count {
        if n.is_multiple_of(GROUP) {
            marks.push(at.offset + st.pos);
            states.push(st);
        }
        if let Err(m) = super::crel::next(d, &h, &mut st, elf.is64) {
            b.error(
                at.offset + st.pos,
                at.len - st.pos.min(at.len),
                format!(
                    "section [{}] {}: CREL entry {n}: {m} does not read",
                    s.index, s.name
                ),
            );
            break;
        }
        n += 1;
    }
    let states = Arc::new(states);
    let el = elf.clone();
    let si = s.index;
    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, _at| {
        let rs = el.sec(si.into())?;
        let table = el.data(rs)?;
        let d = b.read_bytes(table.offset, table.len)?;
        let h = super::crel::header(d)?;
        // From the group of the entry before, which a RISC-V vendor's
        // relocation is named by.
        let first = i.saturating_sub(1) / GROUP * GROUP;
        let mut st = *states.get(usize::try_from(first / GROUP).ok()?)?;
        let (mut prev, mut e) = (None, None);
        for _ in first..=i {
            prev = e.take();
            e = super::crel::next(d, &h, &mut st, el.is64).ok();
        }
        let e = e?;
        let prev = || prev.map(|p| crel_rel(&p, el.is64, h.addends));
        let vendor = riscv_vendor(b, &el, rs.link, prev, e.offset, e.typ.into());
        crel_entry(
            b,
            p,
            &el,
            rs,
            table.offset,
            (i, &e),
            h.addends,
            vendor.as_deref(),
        );
        Some(table.offset + st.pos)
    });
    let stop = at.offset + st.pos;
    // The header, then the entries, when the table is opened.
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            crel_header(b, id, at.offset, &h);
            b.seq_now(id, Seq::from_marks(marks.clone(), n, stop, step.clone()));
        }),
    );
    id
}

fn crel_header(b: &mut Builder<'_>, id: NodeId, a: u64, h: &super::crel::Header) {
    let hn = b.group(id, "header", a, h.len);
    b.set_value(
        hn,
        format!(
            "0x{:x}: count {}, {}, offsets shifted by {}",
            h.value,
            h.count,
            if h.addends { "addends" } else { "no addends" },
            h.shift
        ),
    );
}

#[allow(clippy::too_many_arguments)]
fn crel_entry(
    b: &mut Builder<'_>,
    p: NodeId,
    elf: &Elf,
    rs: &Sec,
    a: u64,
    (i, e): (u64, &super::crel::Entry),
    addends: bool,
    vendor: Option<&str>,
) {
    let shown = Shown::of(b, elf, rs.link, e.sym.into(), e.typ.into(), vendor);
    let id = b.group(p, shown.label(i), a + e.at, e.len);
    let [off, sym, typ, add] = e.fields;
    let [doff, dsym, dtyp, dadd] = e.deltas;
    if let Some((at, len)) = off {
        let n = b.leaf(
            id,
            "offset delta and flags",
            a + at,
            len,
            format!("+{doff}: offset 0x{:x}", e.offset),
        );
        link_target(b, &[n, id], elf, rs, (e.offset, e.typ.into(), e.sym.into()));
    }
    if let Some((at, len)) = sym {
        let sym = u64::from(e.sym);
        let v = match &shown.symname {
            Some(name) => format!("{dsym:+}: {sym} ({name})"),
            None => format!("{dsym:+}: {sym}"),
        };
        let n = b.leaf(id, "symbol delta", a + at, len, v);
        sym_link(b, n, elf, rs, i, sym, (a + at, len));
    }
    if let Some((at, len)) = typ {
        let v = format!("{dtyp:+}: {}", shown.tshow);
        b.leaf(id, "type delta", a + at, len, v);
    }
    let addend = addends.then(|| {
        if elf.is64 {
            e.addend as i64
        } else {
            i64::from(e.addend as u32 as i32)
        }
    });
    if let Some((at, len)) = add {
        let v = format!("{dadd:+}: {}", addend.unwrap_or(0));
        b.leaf(id, "addend delta", a + at, len, v);
    }
    b.set_value(id, shown.value(e.offset, addend));
}
