//! Section contents: symbol, relocation and dynamic tables (lazy arrays),
//! string tables (lazy, grouped), section groups, pointer arrays, and the
//! dispatch to notes, offload binaries, the machine's own sections (through
//! its [`super::Vendor`]) and nested formats.

use std::sync::Arc;

use compact_str::CompactString;

use super::{constants, notes, Elf, Sec, Sections, Seg};
use crate::formats::offload;
use crate::model::{group_size, inum, named, num, text, Builder, NodeId, Radix, Raw, Value, GROUP};

pub(super) fn sections(b: &mut Builder<'_>, parent: NodeId, elf: &Arc<Elf>) {
    let mut ranges: Vec<(usize, u64, u64)> = elf
        .secs
        .iter()
        .enumerate()
        .filter(|(i, _)| *i > 0)
        .filter_map(|(i, s)| {
            let (a, l) = elf.data(s)?;
            (l > 0).then_some((i, a, l))
        })
        .collect();
    // In file order, so that walking them moves forward through the file.
    ranges.sort_by_key(|r| (r.1, r.0));
    let Some(lo) = ranges.iter().map(|r| r.1).min() else {
        return;
    };
    let hi = ranges.iter().map(|r| r.1 + r.2).max().unwrap_or(lo);
    let g = b.group(parent, "sections", lo, hi - lo);
    b.set_value(g, format!("{} with contents in the file", ranges.len()));
    let mut ve: Option<Box<dyn Sections>> = elf.vendor.map(|v| v.sections());
    let mut built = Vec::with_capacity(ranges.len());
    for (i, a, l) in ranges {
        let Some(s) = elf.secs.get(i) else {
            continue;
        };
        let node = contents(b, g, elf, s, a, l, &mut ve);
        built.push((i, node));
    }
    if let Some(v) = ve.as_deref_mut() {
        v.finish(b, elf, &built);
    }
}

fn label(s: &Sec) -> String {
    if s.name.is_empty() {
        format!("[{}]", s.index)
    } else {
        format!("[{}] {}", s.index, s.name)
    }
}

fn contents(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
    ve: &mut Option<Box<dyn Sections>>,
) -> NodeId {
    let tname = elf.shtype(s.typ).unwrap_or("unknown type");
    let compressed = s.flags & constants::SHF_COMPRESSED != 0;
    if !compressed {
        match s.typ {
            constants::SHT_SYMTAB | constants::SHT_DYNSYM => {
                return symtab(b, g, elf, s, a, l, tname)
            }
            constants::SHT_REL => return relocs(b, g, elf, s, a, l, false, tname),
            constants::SHT_RELA => return relocs(b, g, elf, s, a, l, true, tname),
            constants::SHT_DYNAMIC => return dynamic(b, g, elf, s, a, l, tname),
            _ => {}
        }
    }
    let id = b.group(g, label(s), a, l);
    b.set_value(id, tname);
    if compressed {
        compressed_section(b, id, elf, s, a, l, ve);
        return id;
    }
    decode(b, id, elf, s, a, l, ve);
    id
}

/// Decodes the contents of a section that is not a table of entries, at
/// `[a, a+l)` of the space being built (the file, or the inflated bytes of
/// a compressed section).
fn decode(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
    ve: &mut Option<Box<dyn Sections>>,
) {
    match s.typ {
        constants::SHT_STRTAB => strings(b, id, a, l),
        constants::SHT_NOTE => notes::notes(b, id, elf, &s.name, a, l, s.align),
        constants::SHT_GROUP => group(b, id, elf, a, l),
        constants::SHT_INIT_ARRAY | constants::SHT_FINI_ARRAY | constants::SHT_PREINIT_ARRAY => {
            pointers(b, id, elf, a, l)
        }
        constants::SHT_LLVM_OFFLOADING => offload::parse_section(b, id, a, l),
        _ if s.name == ".llvm.offloading" => offload::parse_section(b, id, a, l),
        // HIP host wrappers, by section name (host objects have no vendor).
        _ if s.name == crate::formats::hipwrap::SECTION => {
            crate::formats::hipwrap::parse_section(b, id, elf, s, a, l)
        }
        _ if crate::formats::offload_entries::SECTIONS.contains(&s.name.as_str()) => {
            crate::formats::offload_entries::parse_section(b, id, elf, s, a, l)
        }
        _ if ve.as_mut().is_some_and(|v| v.section(b, id, elf, s, a, l)) => {}
        // A section at offset 0 holds this very ELF: opening it again would
        // nest the file in itself.
        _ if s.offset == 0 => {}
        _ if !plausible(b, a, l) => {}
        _ => {
            b.nested(id, a, l);
        }
    }
}

/// False for bytes that start with an ELF magic but not with a sane ELF
/// header (a program's own copy of the magic, say in `.rodata`).
fn plausible(b: &Builder<'_>, a: u64, l: u64) -> bool {
    let d = b.slice(a, l.min(64));
    if !d.starts_with(b"\x7fELF") {
        return true;
    }
    let (class, data, version) = (d.get(4), d.get(5), d.get(6));
    let ehsize = match (class, data) {
        (Some(1), Some(1)) => b.read_u16(a + 40, crate::model::Endian::Little),
        (Some(1), Some(2)) => b.read_u16(a + 40, crate::model::Endian::Big),
        (Some(2), Some(1)) => b.read_u16(a + 52, crate::model::Endian::Little),
        (Some(2), Some(2)) => b.read_u16(a + 52, crate::model::Endian::Big),
        _ => return false,
    };
    let want = if class == Some(&1) { 52 } else { 64 };
    version == Some(&1) && ehsize == Some(want) && l >= u64::from(want)
}

fn entsize_check(b: &mut Builder<'_>, elf: &Elf, s: &Sec, want: u64, l: u64) {
    let w = elf.word();
    let at = s.hdr + 16 + 5 * w;
    if s.entsize != want {
        let m = format!(
            "section [{}] {}: entsize mismatch: sh_entsize is {}, a {} entry is {want} bytes",
            s.index,
            s.name,
            s.entsize,
            elf.shtype(s.typ).unwrap_or("table")
        );
        if s.entsize == 0 {
            b.warn(at, w, m);
        } else {
            b.error(at, w, m);
        }
    }
    if want > 0 && !l.is_multiple_of(want) {
        b.warn(
            s.hdr,
            4,
            format!(
                "section [{}] {}: size {l} is not a multiple of the entry size {want}",
                s.index, s.name
            ),
        );
    }
}

// ---- symbols ----

/// A symbol table entry, as read.
pub(crate) struct Sym {
    pub name: u32,
    pub value: u64,
    pub size: u64,
    pub info: u8,
    pub other: u8,
    pub shndx: u16,
}

impl Sym {
    pub fn typ(&self) -> u8 {
        self.info & 0xf
    }
    pub fn bind(&self) -> u8 {
        self.info >> 4
    }
}

/// Field offsets: name, value, size, info, other, shndx.
fn sym_layout(is64: bool) -> [u64; 6] {
    if is64 {
        [0, 8, 16, 4, 5, 6]
    } else {
        [0, 4, 8, 12, 13, 14]
    }
}

pub(crate) fn read_sym(b: &Builder<'_>, elf: &Elf, o: u64) -> Option<Sym> {
    let [name, value, size, info, other, shndx] = sym_layout(elf.is64);
    Some(Sym {
        name: b.read_u32(o + name, elf.e)?,
        value: elf.read_word(b, o + value)?,
        size: elf.read_word(b, o + size)?,
        info: b.read_u8(o + info)?,
        other: b.read_u8(o + other)?,
        shndx: b.read_u16(o + shndx, elf.e)?,
    })
}

/// The absolute offset of entry `i` of symbol table section `symtab`.
pub(crate) fn sym_entry(elf: &Elf, symtab: u32, i: u64) -> Option<u64> {
    let s = elf.sec(symtab.into())?;
    let (a, l) = elf.data(s)?;
    let es = elf.sym_size();
    let o = i.checked_mul(es)?;
    (o.checked_add(es)? <= l).then_some(a + o)
}

/// The name to show for symbol `i` of `symtab` (a section symbol shows its
/// section's name).
pub(crate) fn sym_name(b: &Builder<'_>, elf: &Elf, symtab: u32, i: u64) -> Option<String> {
    let o = sym_entry(elf, symtab, i)?;
    let sym = read_sym(b, elf, o)?;
    let strtab = elf.sec(symtab.into())?.link;
    if sym.name == 0 {
        if sym.typ() == 3 {
            return Some(elf.sec_name(sym.shndx.into()));
        }
        return None;
    }
    elf.string(b, strtab, sym.name.into()).ok().map(|s| s.text)
}

/// The absolute bytes a defined symbol names, within its section.
pub(crate) fn sym_bytes(elf: &Elf, sym: &Sym) -> Option<(u64, u64)> {
    if sym.shndx == 0 || sym.shndx >= 0xff00 || sym.typ() == 4 {
        return None;
    }
    let s = elf.sec(sym.shndx.into())?;
    let (a, l) = elf.data(s)?;
    let rel = if relocatable(elf) {
        sym.value
    } else {
        sym.value.checked_sub(s.addr)?
    };
    (rel <= l).then(|| (a + rel, sym.size.min(l - rel)))
}

/// True when values and offsets are section-relative (ET_REL, and the
/// zebin relocatable type).
pub(crate) fn relocatable(elf: &Elf) -> bool {
    elf.etype == 1 || elf.etype == 0xff11
}

fn symtab(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
    tname: &str,
) -> NodeId {
    let es = elf.sym_size();
    entsize_check(b, elf, s, es, l);
    let count = l / es;
    let el = elf.clone();
    let si = s.index;
    let id = b.array(
        g,
        &label(s),
        a,
        count,
        es,
        Arc::new(move |b, p, i, o| symbol(b, p, &el, si, i, o)),
    );
    b.set_value(id, format!("{tname}, {count} symbols"));
    if s.link == 0
        || elf
            .sec(s.link.into())
            .is_none_or(|t| t.typ != constants::SHT_STRTAB)
    {
        b.warn(
            s.hdr,
            4,
            format!(
                "symbol table [{}] {}: sh_link {} is not a string table",
                s.index, s.name, s.link
            ),
        );
    }
    id
}

fn symbol(b: &mut Builder<'_>, p: NodeId, elf: &Elf, si: u32, i: u64, o: u64) {
    let Some(sym) = read_sym(b, elf, o) else {
        return;
    };
    let es = elf.sym_size();
    let w = elf.word();
    let [at_name, at_value, at_size, at_info, at_other, at_shndx] = sym_layout(elf.is64);
    let strtab = elf.sec(si.into()).map_or(0, |s| s.link);
    let name = if sym.name == 0 {
        Ok(None)
    } else {
        elf.string_bytes(b, strtab, sym.name.into()).map(Some)
    };
    let shown = match &name {
        Ok(Some((bytes, _, _))) => text_of(bytes),
        _ => std::borrow::Cow::Borrowed(""),
    };
    let mut label = CompactString::const_new("[");
    label.push_str(itoa::Buffer::new().format(i));
    label.push(']');
    match &name {
        Ok(Some(_)) if !shown.is_empty() => {
            label.push(' ');
            label.push_str(&shown);
        }
        Ok(None) if sym.typ() == 3 => {
            let n = elf.sec_name_cow(sym.shndx.into());
            if !n.is_empty() {
                label.push(' ');
                label.push_str(&n);
            }
        }
        _ => {}
    }
    let id = b.group(p, label, o, es);
    b.reserve(id, 6);
    let (t, bind) = (
        constants::sym_type(sym.typ()),
        constants::sym_bind(sym.bind()),
    );
    let vis = constants::sym_vis(sym.other);
    let secname = match constants::shndx(sym.shndx.into()) {
        Some(n) => std::borrow::Cow::Borrowed(n),
        None => elf.sec_name_cow(sym.shndx.into()),
    };
    // The fields in file order.
    let order: [u8; 6] = if elf.is64 {
        [0, 3, 4, 5, 1, 2]
    } else {
        [0, 1, 2, 3, 4, 5]
    };
    for f in order {
        match f {
            0 => {
                let v = match &name {
                    Ok(Some(_)) => Value::StrAt {
                        v: sym.name.into(),
                        s: CompactString::from(&*shown),
                    },
                    Err(_) => Value::note(Raw::U(sym.name.into()), "bad string index"),
                    Ok(None) => Value::uint(sym.name.into()).with_width(4),
                };
                let n = b.field(id, "st_name", o + at_name, 4, v);
                match &name {
                    Ok(Some((_, so, sl))) => b.link(n, *so, *sl),
                    Err(m) => b.error(
                        o + at_name,
                        4,
                        format!("symbol [{i}] st_name: bad string index: {m}"),
                    ),
                    Ok(None) => {}
                }
            }
            1 => {
                b.field(
                    id,
                    "st_value",
                    o + at_value,
                    w,
                    Value::uint(sym.value).with_width(w as u8),
                );
            }
            2 => {
                b.field(
                    id,
                    "st_size",
                    o + at_size,
                    w,
                    Value::uint(sym.size).with_width(w as u8),
                );
            }
            3 => {
                let mut bt = CompactString::const_new(bind);
                bt.push(' ');
                bt.push_str(t);
                b.field(
                    id,
                    "st_info",
                    o + at_info,
                    1,
                    Value::Named {
                        v: sym.info.into(),
                        radix: Radix::Hex,
                        name: Some(bt),
                    },
                );
            }
            4 => {
                b.field(
                    id,
                    "st_other",
                    o + at_other,
                    1,
                    Value::Named {
                        v: sym.other.into(),
                        radix: Radix::Dec,
                        name: Some(CompactString::const_new(vis)),
                    },
                );
            }
            _ => {
                let sh = b.field(
                    id,
                    "st_shndx",
                    o + at_shndx,
                    2,
                    Value::named(sym.shndx.into(), Some(&secname)),
                );
                if constants::shndx(sym.shndx.into()).is_none() {
                    if let Some(s) = elf.sec(sym.shndx.into()) {
                        b.link(sh, s.hdr, elf.shentsize.min(if elf.is64 { 64 } else { 40 }));
                    }
                }
            }
        }
    }
    if let Some((ba, bl)) = sym_bytes(elf, &sym) {
        b.link(id, ba, bl);
    }
    let mut v = CompactString::with_capacity(64);
    for part in [t, " ", bind, " ", vis, " ", &secname, " value "] {
        v.push_str(part);
    }
    v.push_str(crate::model::value::hex_digits(sym.value, &mut [0; 18]));
    v.push_str(" size ");
    v.push_str(itoa::Buffer::new().format(sym.size));
    b.set_value(id, Value::Text(v));
}

/// Bytes from the file as safe text, borrowed when nothing needs escaping.
pub(crate) fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match text::plain_str(bytes) {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(text::from_bytes(bytes)),
    }
}

// ---- relocations ----

#[allow(clippy::too_many_arguments)]
fn relocs(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
    rela: bool,
    tname: &str,
) -> NodeId {
    let es = elf.word() * if rela { 3 } else { 2 };
    entsize_check(b, elf, s, es, l);
    let count = l / es;
    let el = elf.clone();
    let ri = s.index;
    let id = b.array(
        g,
        &label(s),
        a,
        count,
        es,
        Arc::new(move |b, p, i, o| reloc(b, p, &el, ri, rela, i, o)),
    );
    b.set_value(id, format!("{tname}, {count} relocations"));
    id
}

fn reloc(b: &mut Builder<'_>, p: NodeId, elf: &Elf, ri: u32, rela: bool, i: u64, o: u64) {
    let w = elf.word();
    let (Some(r_offset), Some(info)) = (elf.read_word(b, o), elf.read_word(b, o + w)) else {
        return;
    };
    let addend = if rela {
        elf.read_word(b, o + 2 * w).map(|v| {
            if elf.is64 {
                v as i64
            } else {
                i64::from(v as u32 as i32)
            }
        })
    } else {
        None
    };
    let (sym, typ) = if elf.is64 {
        (info >> 32, info & 0xffff_ffff)
    } else {
        (info >> 8, info & 0xff)
    };
    let Some(rs) = elf.sec(ri.into()) else {
        return;
    };
    let symtab = rs.link;
    let tname = elf.reloc_name(typ as u32);
    let symname = if sym != 0 {
        sym_name(b, elf, symtab, sym)
    } else {
        None
    };
    let es = w * if rela { 3 } else { 2 };
    let tshow = tname.map_or_else(|| format!("type {typ}"), str::to_string);
    let mut label = format!("[{i}] {tshow}");
    if let Some(n) = &symname {
        label.push(' ');
        label.push_str(n);
    }
    let id = b.group(p, label, o, es);
    let off_node = b.leaf(id, "r_offset", o, w, num(r_offset));
    // Where the relocation applies.
    let target = if relocatable(elf) {
        elf.sec(rs.info.into())
            .and_then(|t| elf.data(t))
            .and_then(|(ta, tl)| (r_offset < tl).then(|| (ta + r_offset, 4u64.min(tl - r_offset))))
    } else {
        elf.addr_to_abs(r_offset).map(|x| (x, 4))
    };
    if let Some((ta, tl)) = target {
        b.link(off_node, ta, tl);
        b.link(id, ta, tl);
    }
    let inf = b.group(id, "r_info", o + w, w);
    b.set_value(inf, Value::hex(info).with_width(w as u8));
    let big = elf.e == crate::model::Endian::Big;
    let (type_at, type_len, sym_at, sym_len) = match (elf.is64, big) {
        (true, false) => (0, 4, 4, 4),
        (true, true) => (4, 4, 0, 4),
        (false, false) => (0, 1, 1, 3),
        (false, true) => (3, 1, 0, 3),
    };
    // `sym` and `type` in the order their bytes are in.
    let type_first = type_at < sym_at;
    if type_first {
        b.leaf(inf, "type", o + w + type_at, type_len, named(typ, tname));
    }
    let sn = b.leaf(inf, "sym", o + w + sym_at, sym_len, num(sym));
    if let Some(n) = &symname {
        b.set_value(sn, Value::named(sym, Some(n)));
    }
    if sym != 0 {
        match sym_entry(elf, symtab, sym) {
            Some(so) => b.link(sn, so, elf.sym_size()),
            None => b.error(
                o + w + sym_at,
                sym_len,
                format!(
                    "relocation [{i}] of [{ri}] {}: symbol {sym} is not in symbol table [{symtab}]",
                    rs.name
                ),
            ),
        }
    }
    if !type_first {
        b.leaf(inf, "type", o + w + type_at, type_len, named(typ, tname));
    }
    let mut v = format!("{tshow} at 0x{r_offset:x}");
    if let Some(n) = &symname {
        v.push_str(&format!(" {n}"));
    }
    if let Some(ad) = addend {
        b.leaf(id, "r_addend", o + 2 * w, w, inum(ad));
        v.push_str(&format!(" {}{ad}", if ad >= 0 { "+" } else { "" }));
    }
    b.set_value(id, v);
}

// ---- dynamic ----

fn dynamic(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
    tname: &str,
) -> NodeId {
    let es = elf.word() * 2;
    entsize_check(b, elf, s, es, l);
    let count = l / es;
    let el = elf.clone();
    let strtab = s.link;
    let id = b.array(
        g,
        &label(s),
        a,
        count,
        es,
        Arc::new(move |b, p, i, o| dyn_entry(b, p, &el, Strs::Section(strtab), i, o)),
    );
    b.set_value(id, format!("{tname}, {count} entries"));
    id
}

/// Where a dynamic table's strings are.
#[derive(Clone, Copy)]
enum Strs {
    Section(u32),
    /// An absolute range (found through DT_STRTAB and DT_STRSZ).
    Range(u64, u64),
    None,
}

fn dyn_entry(b: &mut Builder<'_>, p: NodeId, elf: &Elf, strtab: Strs, i: u64, o: u64) {
    let w = elf.word();
    let (Some(tag), Some(val)) = (elf.read_word(b, o), elf.read_word(b, o + w)) else {
        return;
    };
    let (name, kind) = constants::dtag(tag);
    let shown = name.map_or_else(|| format!("0x{tag:x}"), str::to_string);
    let id = b.group(p, format!("[{i}] {shown}"), o, 2 * w);
    b.leaf(id, "d_tag", o, w, Value::named_hex(tag, name));
    let v = b.leaf(id, "d_val", o + w, w, num(val));
    let mut summary = num(val);
    match kind {
        constants::DynVal::Str => match match strtab {
            Strs::Section(sec) => elf.string(b, sec, val),
            Strs::Range(a, l) => super::string_in(b, a, l, val, "the dynamic string table"),
            Strs::None => Err(String::new()),
        } {
            Ok(st) => {
                summary = Value::str(&st.text);
                b.set_value(
                    v,
                    Value::StrAt {
                        v: val,
                        s: st.text.into(),
                    },
                );
                b.link(v, st.off, st.len);
            }
            Err(m) => b.error(
                o + w,
                w,
                format!("dynamic entry [{i}] {shown}: bad string index: {m}"),
            ),
        },
        constants::DynVal::Addr => {
            if let Some(x) = elf.addr_to_abs(val) {
                b.link(v, x, 1);
            }
            summary = Value::hex(val);
        }
        constants::DynVal::Plain => {}
    }
    b.set_value(id, summary);
}

// ---- strings ----

/// Shows a string table's strings, built when opened, in groups when many.
pub(crate) fn strings(b: &mut Builder<'_>, id: NodeId, a: u64, l: u64) {
    if l == 0 {
        return;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| string_range(b, id, a, a, a + l)),
    );
}

fn string_range(b: &mut Builder<'_>, parent: NodeId, table: u64, lo: u64, hi: u64) {
    let bytes = b.slice(lo, hi - lo);
    let nuls = memchr::memchr_iter(0, bytes).count() as u64;
    let count = nuls + u64::from(bytes.last().is_some_and(|&c| c != 0));
    if count <= GROUP {
        let mut pos = 0usize;
        while pos < bytes.len() {
            let rest = bytes.get(pos..).unwrap_or(&[]);
            let (s, n) = match memchr::memchr(0, rest) {
                Some(k) => (rest.get(..k).unwrap_or(&[]), k + 1),
                None => (rest, rest.len()),
            };
            let off = lo + pos as u64;
            let mut label = CompactString::const_new("[");
            label.push_str(crate::model::value::hex_digits(off - table, &mut [0; 18]));
            label.push(']');
            b.leaf(parent, label, off, n as u64, Value::str_bytes(s));
            pos += n.max(1);
        }
        return;
    }
    let g = group_size(count);
    let mut start = 0usize;
    let mut seen = 0u64;
    let mut cuts = Vec::new();
    for k in memchr::memchr_iter(0, bytes) {
        seen += 1;
        if seen.is_multiple_of(g) {
            cuts.push((start, k + 1));
            start = k + 1;
        }
    }
    if start < bytes.len() {
        cuts.push((start, bytes.len()));
    }
    for (s, e) in cuts {
        let (s, e) = (lo + s as u64, lo + e as u64);
        let gid = b.group(
            parent,
            format!("[0x{:x}..0x{:x})", s - table, e - table),
            s,
            e - s,
        );
        b.lazy(
            gid,
            Arc::new(move |b: &mut Builder<'_>, id| string_range(b, id, table, s, e)),
        );
    }
}

// ---- small tables ----

fn group(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, a: u64, l: u64) {
    let Some(flags) = b.read_u32(a, elf.e) else {
        return;
    };
    let f = if flags & 1 != 0 {
        Value::named_hex(flags.into(), Some("GRP_COMDAT"))
    } else {
        num(flags.into())
    };
    b.leaf(id, "flags", a, 4, f);
    let n = (l.saturating_sub(4)) / 4;
    let el = elf.clone();
    b.array(
        id,
        "members",
        a + 4,
        n,
        4,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u32(o, el.e) else {
                return;
            };
            let m = b.leaf(
                p,
                format!("[{i}]"),
                o,
                4,
                named(v.into(), Some(&el.sec_name_cow(v.into()))),
            );
            if let Some(s) = el.sec(v.into()) {
                b.link(m, s.hdr, if el.is64 { 64 } else { 40 });
            }
        }),
    );
}

fn pointers(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, a: u64, l: u64) {
    let w = elf.word();
    let el = elf.clone();
    b.array(
        id,
        "pointers",
        a,
        l / w,
        w,
        Arc::new(move |b, p, i, o| {
            let Some(v) = el.read_word(b, o) else {
                return;
            };
            let n = b.leaf(p, format!("[{i}]"), o, el.word(), Value::hex(v));
            if let Some(x) = el.addr_to_abs(v) {
                b.link(n, x, 1);
            }
        }),
    );
}

/// A compressed section: its Elf32_Chdr/Elf64_Chdr, the compressed bytes,
/// and the inflated bytes as a space of their own, decoded there as the
/// section's type says.
#[allow(clippy::too_many_arguments)]
fn compressed_section(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    a: u64,
    l: u64,
    ve: &mut Option<Box<dyn Sections>>,
) {
    let e = elf.e;
    let hs = if elf.is64 { 24 } else { 12 };
    if l < hs {
        b.error(a, l, format!("compressed section needs a {hs}-byte header"));
        return;
    }
    let h = b.group(id, "Chdr", a, hs);
    let t = b.read_u32(a, e).unwrap_or(0);
    let method = match t {
        1 => Some("zlib"),
        2 => Some("zstd"),
        _ => None,
    };
    let tn = match t {
        1 => Some("ELFCOMPRESS_ZLIB"),
        2 => Some("ELFCOMPRESS_ZSTD"),
        _ => None,
    };
    b.field(h, "ch_type", a, 4, Value::named(t.into(), tn).with_width(4));
    let (size_at, size_w) = if elf.is64 {
        b.u32(h, "ch_reserved", a + 4, e);
        (a + 8, 8)
    } else {
        (a + 4, 4)
    };
    let ch_size = elf.read_word(b, size_at).unwrap_or(0);
    b.field(
        h,
        "ch_size",
        size_at,
        size_w,
        Value::uint(ch_size).with_width(size_w as u8),
    );
    let align_at = size_at + size_w;
    if let Some(v) = elf.read_word(b, align_at) {
        b.field(
            h,
            "ch_addralign",
            align_at,
            size_w,
            Value::uint(v).with_width(size_w as u8),
        );
    }
    if l == hs {
        return;
    }
    b.leaf(id, "compressed data", a + hs, l - hs, Value::Size(l - hs));
    let Some(method) = method else {
        b.warn(
            a,
            4,
            format!(
                "section [{}] {}: ch_type {t} is not a compression fwview knows; shown raw",
                s.index, s.name
            ),
        );
        return;
    };
    let Some(node) = b.derive(id, "inflated", a + hs, l - hs, method, |src, limit| {
        inflate(method, src, limit)
    }) else {
        return;
    };
    let got = b.node(node).map_or(0, |n| n.size);
    if got != ch_size {
        b.error(
            size_at,
            size_w,
            format!(
                "section [{}] {}: ch_size is {ch_size}, the {method} data inflates to {got} bytes",
                s.index, s.name
            ),
        );
    }
    b.within(node, |b, node| {
        let len = b.file_len();
        match s.typ {
            constants::SHT_SYMTAB
            | constants::SHT_DYNSYM
            | constants::SHT_REL
            | constants::SHT_RELA
            | constants::SHT_DYNAMIC => {}
            _ => decode(b, node, elf, s, 0, len, ve),
        }
    });
}

/// Inflates zlib or zstd data, making at most `limit` + 1 bytes (one more
/// than allowed tells the caller the data would not fit).
fn inflate(method: &str, src: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut out = Vec::new();
    let r = match method {
        "zlib" => flate2::read::ZlibDecoder::new(src)
            .take(limit.saturating_add(1))
            .read_to_end(&mut out),
        _ => match zstd::stream::read::Decoder::with_buffer(src) {
            Ok(d) => d.take(limit.saturating_add(1)).read_to_end(&mut out),
            Err(e) => Err(e),
        },
    };
    match r {
        Ok(_) => Ok(out),
        Err(e) => Err(format!("{method} data does not inflate: {e}")),
    }
}

/// Without section headers, the contents that segments name.
pub(super) fn segments(b: &mut Builder<'_>, parent: NodeId, elf: &Arc<Elf>, phdrs: &[Seg]) {
    let shown: Vec<(usize, &Seg, u64, u64)> = phdrs
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.typ, 3 | constants::PT_NOTE | constants::PT_DYNAMIC))
        .filter_map(|(i, p)| {
            let end = p.offset.checked_add(p.filesz)?;
            (end <= elf.len && p.filesz > 0).then(|| (i, p, elf.abs(p.offset), p.filesz))
        })
        .collect();
    let Some(lo) = shown.iter().map(|s| s.2).min() else {
        return;
    };
    let hi = shown.iter().map(|s| s.2 + s.3).max().unwrap_or(lo);
    let g = b.group(parent, "segments", lo, hi - lo);
    for (i, p, a, l) in shown {
        let tn = constants::ptype(p.typ, elf.machine).unwrap_or("?");
        match p.typ {
            constants::PT_NOTE => {
                let id = b.group(g, format!("[{i}] {tn}"), a, l);
                notes::notes(b, id, elf, "", a, l, 4);
            }
            constants::PT_DYNAMIC => {
                let es = elf.word() * 2;
                let el = elf.clone();
                let strs = dyn_strings(b, elf, a, l / es);
                b.array(
                    g,
                    &format!("[{i}] {tn}"),
                    a,
                    l / es,
                    es,
                    Arc::new(move |b, p, i, o| dyn_entry(b, p, &el, strs, i, o)),
                );
            }
            _ => {
                let s = b.slice(a, l);
                let end = memchr::memchr(0, s).unwrap_or(s.len());
                b.leaf(
                    g,
                    format!("[{i}] {tn}"),
                    a,
                    l,
                    Value::str_bytes(s.get(..end).unwrap_or(&[])),
                );
            }
        }
    }
}

/// The dynamic string table that DT_STRTAB and DT_STRSZ name.
fn dyn_strings(b: &Builder<'_>, elf: &Elf, a: u64, n: u64) -> Strs {
    let w = elf.word();
    let (mut addr, mut size) = (None, None);
    for k in 0..n.min(100_000) {
        let o = a + k * 2 * w;
        let (Some(tag), Some(v)) = (elf.read_word(b, o), elf.read_word(b, o + w)) else {
            break;
        };
        match tag {
            0 => break,
            5 => addr = Some(v),
            10 => size = Some(v),
            _ => {}
        }
    }
    match (addr.and_then(|x| elf.addr_to_abs(x)), size) {
        (Some(off), Some(sz)) => {
            let end = elf.abs(elf.len);
            Strs::Range(off, sz.min(end.saturating_sub(off)))
        }
        _ => Strs::None,
    }
}
