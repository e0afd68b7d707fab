//! Symbol tables: each entry with its fields in file order, its name from
//! the linked string table, and a link to the bytes it names.

use std::sync::Arc;

use compact_str::CompactString;

use super::records::{self, either};
use super::{
    constants,
    shared::{entsize_check, label},
    Elf, Sec,
};
use crate::model::{text, Builder, Fields, NodeId, Raw, Span, Value};

/// A symbol table entry, as read.
pub(crate) struct Sym {
    pub name: u32,
    pub value: u64,
    pub size: u64,
    pub info: u8,
    pub other: u8,
    pub shndx: u16,
    /// The section index: `shndx`, or for SHN_XINDEX the entry of the
    /// SHT_SYMTAB_SHNDX table once [`resolve`] found it.
    pub sec: u32,
}

impl Sym {
    pub fn typ(&self) -> u8 {
        self.info & 0xf
    }
    pub fn bind(&self) -> u8 {
        self.info >> 4
    }
}

pub(crate) fn read_sym(b: &Builder<'_>, elf: &Elf, o: u64) -> Option<Sym> {
    either!(elf.is64, sym32 | sym64 as S => {
        records::read::<S::Rec>(b, o, elf.e).map(|r| Sym {
            name: r.st_name,
            value: r.st_value.into(),
            size: r.st_size.into(),
            info: r.st_info,
            other: r.st_other,
            shndx: r.st_shndx,
            sec: r.st_shndx.into(),
        })
    })
}

/// Symbol `i` of table `symtab`, its section index looked up in the
/// table's SHT_SYMTAB_SHNDX section when st_shndx is SHN_XINDEX.
pub(crate) fn read_sym_at(b: &Builder<'_>, elf: &Elf, symtab: u32, i: u64) -> Option<Sym> {
    let mut sym = read_sym(b, elf, sym_entry(elf, symtab, i)?)?;
    resolve(b, elf, symtab, i, &mut sym);
    Some(sym)
}

/// Sets `sym.sec` from the SHT_SYMTAB_SHNDX table of `symtab` when the
/// symbol's st_shndx is SHN_XINDEX (`sym` is entry `i`).
pub(crate) fn resolve(b: &Builder<'_>, elf: &Elf, symtab: u32, i: u64, sym: &mut Sym) {
    if sym.shndx == constants::SHN_XINDEX {
        if let Some(x) = elf.xindex(b, symtab, i) {
            sym.sec = x;
        }
    }
}

/// The section index that the symbol of a shown section index stands
/// for: `None` for the reserved indexes (and for an SHN_XINDEX that no
/// table resolved).
pub(crate) fn real_section(sym: &Sym) -> Option<u32> {
    if sym.shndx == constants::SHN_XINDEX {
        return (sym.sec != u32::from(constants::SHN_XINDEX)).then_some(sym.sec);
    }
    (sym.shndx != 0 && sym.shndx < 0xff00).then_some(sym.sec)
}

/// Symbol `i` of table `symtab` as its entry reads (its section index
/// as st_shndx gives it), with the entry's bytes; none past the table.
pub(crate) fn sym_and_entry(
    b: &Builder<'_>,
    elf: &Elf,
    symtab: u32,
    i: u64,
) -> Option<(Sym, Span)> {
    let o = sym_entry(elf, symtab, i)?;
    Some((read_sym(b, elf, o)?, b.span(o, elf.sym_size())))
}

/// The absolute offset of entry `i` of symbol table section `symtab`.
pub(crate) fn sym_entry(elf: &Elf, symtab: u32, i: u64) -> Option<u64> {
    let table = elf.data(elf.sec(symtab.into())?)?;
    let es = elf.sym_size();
    let o = i.checked_mul(es)?;
    (o.checked_add(es)? <= table.len).then_some(table.offset + o)
}

/// The name to show for symbol `i` of `symtab` (a section symbol shows its
/// section's name).
pub(crate) fn sym_name(b: &Builder<'_>, elf: &Elf, symtab: u32, i: u64) -> Option<String> {
    let sym = read_sym_at(b, elf, symtab, i)?;
    let strtab = elf.sec(symtab.into())?.link;
    if sym.name == 0 {
        if sym.typ() == 3 {
            return Some(elf.sec_name(sym.sec.into()));
        }
        return None;
    }
    elf.string(b, strtab, sym.name.into()).ok().map(|s| s.text)
}

/// The bytes a defined symbol names, within its section.
pub(crate) fn sym_bytes(elf: &Elf, sym: &Sym) -> Option<Span> {
    let sec = real_section(sym)?;
    if sym.typ() == 4 {
        return None;
    }
    let s = elf.sec(sec.into())?;
    let code = elf.data(s)?;
    let rel = if relocatable(elf) {
        sym.value
    } else {
        sym.value.checked_sub(s.addr)?
    };
    (rel <= code.len).then(|| code.part(rel, sym.size))
}

/// True when values and offsets are section-relative (ET_REL, and the
/// zebin relocatable type).
pub(crate) fn relocatable(elf: &Elf) -> bool {
    elf.etype == 1 || elf.etype == 0xff11
}

pub(super) fn symtab(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    tname: &str,
) -> NodeId {
    let es = elf.sym_size();
    entsize_check(b, elf, s, es, at.len);
    let count = at.len / es;
    let el = elf.clone();
    let si = s.index;
    let id = b.array(
        g,
        &label(s),
        at.offset,
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
    let Some(mut sym) = read_sym(b, elf, o) else {
        return;
    };
    resolve(b, elf, si, i, &mut sym);
    let es = elf.sym_size();
    let strtab = elf.sec(si.into()).map_or(0, |s| s.link);
    let name = if sym.name == 0 {
        Ok(None)
    } else {
        elf.string_bytes(b, strtab, sym.name.into()).map(Some)
    };
    let shown = match &name {
        Ok(Some((bytes, _))) => text_of(bytes),
        _ => std::borrow::Cow::Borrowed(""),
    };
    let id = b.group_owned(p, symbol_label(elf, &sym, i, &name, &shown), o, es);
    b.reserve(id, 6);
    if let Some(to) = sym_bytes(elf, &sym) {
        b.link(id, to);
    }
    let (t, bind) = (
        constants::sym_type(sym.typ()),
        constants::sym_bind(sym.bind()),
    );
    let vis = constants::sym_vis(sym.other);
    let xindex = sym.shndx == constants::SHN_XINDEX;
    let secname = match constants::shndx(sym.shndx.into()) {
        Some(_) if xindex && real_section(&sym).is_some() => elf.sec_name_cow(sym.sec.into()),
        Some(n) => std::borrow::Cow::Borrowed(n),
        None => elf.sec_name_cow(sym.shndx.into()),
    };
    // The fields in file order, as numbers; the name and the section are
    // given what they name.
    let mut f = Fields::new(b, id, o, elf.e).quiet();
    let (name_node, shndx_node) = either!(elf.is64, sym32 | sym64 as S => {
        let n = S::Rec::show(&mut f);
        (n.st_name.zip(Some(S::AT.st_name)), n.st_shndx.zip(Some(S::AT.st_shndx)))
    });
    if let Some((node, at)) = name_node {
        name_field(b, node, i, at.of(o), sym.name, &name, &shown);
    }
    if let Some((node, at)) = shndx_node {
        shndx_field(b, elf, node, i, at.of(o), &sym, &secname);
    }
    let v = join(&[
        t,
        " ",
        bind,
        " ",
        vis,
        " ",
        &secname,
        " value ",
        crate::model::value::hex_digits(sym.value, &mut [0; 18]),
        " size ",
        itoa::Buffer::new().format(sym.size),
    ]);
    b.set_value(id, Value::symbol(&shown, v));
}

/// A symbol's name as read: none (`st_name` 0), its bytes with where they
/// are in the string table, or why it cannot be read.
type NameAt<'a> = Result<Option<(&'a [u8], Span)>, String>;

/// A symbol's node label: `[i] name`, a section symbol's section name, or
/// `[i]` alone.
fn symbol_label(elf: &Elf, sym: &Sym, i: u64, name: &NameAt<'_>, shown: &str) -> CompactString {
    let mut ib = itoa::Buffer::new();
    let index = ib.format(i);
    match name {
        Ok(Some(_)) if !shown.is_empty() => join(&["[", index, "] ", shown]),
        Ok(None) if sym.typ() == 3 => {
            let n = elf.sec_name_cow(sym.sec.into());
            if n.is_empty() {
                join(&["[", index, "]"])
            } else {
                join(&["[", index, "] ", &n])
            }
        }
        _ => join(&["[", index, "]"]),
    }
}

/// The `st_name` field's node `n`, at `at`: its string, linked.
fn name_field(
    b: &mut Builder<'_>,
    n: NodeId,
    i: u64,
    at: u64,
    st_name: u32,
    name: &NameAt<'_>,
    shown: &str,
) {
    let v = match name {
        Ok(Some(_)) => Value::StrAt {
            v: st_name.into(),
            s: CompactString::from(shown),
        },
        Err(_) => Value::note(Raw::U(st_name.into()), "bad string index"),
        Ok(None) => return,
    };
    b.set_value(n, v);
    match name {
        Ok(Some((_, to))) => b.link(n, *to),
        Err(m) => b.error(
            at,
            records::sym64::AT.st_name.size,
            format!("symbol [{i}] st_name: bad string index: {m}"),
        ),
        Ok(None) => {}
    }
}

/// The `st_shndx` field's node `sh`, at `at`: the section it names,
/// linked to the section's header.
fn shndx_field(
    b: &mut Builder<'_>,
    elf: &Elf,
    sh: NodeId,
    i: u64,
    at: u64,
    sym: &Sym,
    secname: &str,
) {
    let xindex = sym.shndx == constants::SHN_XINDEX;
    let v = if xindex {
        let to = match real_section(sym) {
            Some(x) => format!("SHN_XINDEX: section [{x}] {secname}"),
            None => "SHN_XINDEX, not in a section index table".to_string(),
        };
        Value::named(sym.shndx.into(), Some(&to))
    } else {
        Value::named(sym.shndx.into(), Some(secname))
    };
    b.set_value(sh, v);
    if xindex && real_section(sym).is_none() {
        b.warn(
            at,
            records::sym64::AT.st_shndx.size,
            format!("symbol [{i}]: st_shndx is SHN_XINDEX but no SHT_SYMTAB_SHNDX entry gives its section"),
        );
    }
    if let Some(x) = real_section(sym) {
        if let Some(s) = elf.sec(x.into()) {
            b.link(sh, b.span(s.hdr, elf.shentsize.min(elf.shdr_size())));
        }
    }
}

/// The parts one after the other, kept inline when short: one copy, and
/// one allocation at most (labels and summaries are made for every symbol).
fn join(parts: &[&str]) -> CompactString {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if total <= 24 {
        // Inline: no allocation for most labels.
        let mut b = [0u8; 24];
        let mut at = 0;
        for p in parts {
            if let Some(d) = b.get_mut(at..at + p.len()) {
                d.copy_from_slice(p.as_bytes());
            }
            at += p.len();
        }
        return CompactString::from(
            text::as_str(b.get(..total).unwrap_or_default()).unwrap_or_default(),
        );
    }
    let mut s = String::with_capacity(total);
    for p in parts {
        s.push_str(p);
    }
    CompactString::from(s)
}

/// Bytes from the file as safe text, borrowed when nothing needs escaping.
pub(crate) fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match text::as_str(bytes) {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(text::from_bytes(bytes)),
    }
}

/// An SHT_SYMTAB_SHNDX section: for each symbol of the table its sh_link
/// names, the section index that an st_shndx of SHN_XINDEX stands for (0
/// for the other symbols).
pub(super) fn shndx_table(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    tname: &str,
) -> NodeId {
    entsize_check(b, elf, s, 4, at.len);
    let count = at.len / 4;
    let el = elf.clone();
    let table = s.link;
    let id = b.array(
        g,
        &label(s),
        at.offset,
        count,
        4,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u32(o, el.e) else {
                return;
            };
            let mut ib = itoa::Buffer::new();
            let index = ib.format(i);
            let label = match sym_name(b, &el, table, i) {
                Some(n) if !n.is_empty() => join(&["[", index, "] ", &n]),
                _ => join(&["[", index, "]"]),
            };
            let value = if v == 0 {
                Value::uint(0)
            } else {
                Value::named(v.into(), Some(&el.sec_name_cow(v.into())))
            };
            let n = b.leaf(p, label, o, 4, value);
            if v != 0 {
                if let Some(t) = el.sec(v.into()) {
                    b.link(n, b.span(t.hdr, el.shentsize.min(el.shdr_size())));
                }
            }
        }),
    );
    b.set_value(id, format!("{tname}, {count} entries"));
    if elf
        .sec(table.into())
        .is_none_or(|t| t.typ != constants::SHT_SYMTAB)
    {
        b.warn(
            s.hdr,
            4,
            format!(
                "section index table [{}] {}: sh_link {table} is not a symbol table",
                s.index, s.name
            ),
        );
    }
    id
}
