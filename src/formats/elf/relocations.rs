//! Relocation tables (REL and RELA): each entry with its type named for
//! the machine and its symbol resolved.

use std::sync::Arc;

use super::symbols::{read_sym, relocatable, sym_entry, sym_name, Sym};
use super::{
    constants,
    contents::{entsize_check, label},
    Elf, Sec,
};
use crate::model::{named, num, Builder, Fields, NodeId, Value};

#[allow(clippy::too_many_arguments)]
pub(super) fn relocs(
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

/// One REL or RELA entry as read: where it applies, its info word split
/// into symbol index and type, and its addend as stored (`None` for REL).
#[derive(Clone, Copy)]
pub(crate) struct Rel {
    pub offset: u64,
    pub info: u64,
    pub sym: u64,
    pub typ: u64,
    pub addend: Option<u64>,
}

/// The entry at `o` of a REL (`rela` false) or RELA table; `None` when its
/// offset or info word does not read.
pub(crate) fn read_rel(b: &Builder<'_>, elf: &Elf, o: u64, rela: bool) -> Option<Rel> {
    let w = elf.word();
    let offset = elf.read_word(b, o)?;
    let info = elf.read_word(b, o + w)?;
    let (sym, typ) = if elf.is64 {
        (info >> 32, info & 0xffff_ffff)
    } else {
        (info >> 8, info & 0xff)
    };
    let addend = if rela {
        elf.read_word(b, o + 2 * w)
    } else {
        None
    };
    Some(Rel {
        offset,
        info,
        sym,
        typ,
        addend,
    })
}

/// The first `max` entries of relocation section `r` (REL or RELA), up to
/// the first that does not read; `None` when `r` has no bytes in the file.
pub(crate) fn rels<'e>(
    b: &'e Builder<'_>,
    elf: &'e Elf,
    r: &Sec,
    max: u64,
) -> Option<impl Iterator<Item = Rel> + 'e> {
    let (ra, rl) = elf.data(r)?;
    let rela = r.typ == constants::SHT_RELA;
    let es = elf.word() * if rela { 3 } else { 2 };
    Some((0..(rl / es).min(max)).map_while(move |k| read_rel(b, elf, ra + k * es, rela)))
}

/// Symbol `sym` of symbol table section `symtab`, as a relocation names
/// it: read when its entry starts inside the table.
pub(crate) fn rel_sym(b: &Builder<'_>, elf: &Elf, symtab: u32, sym: u64) -> Option<Sym> {
    let st = elf.sec(symtab.into())?;
    let (sa, sl) = elf.data(st)?;
    let so = sym.checked_mul(elf.sym_size())?;
    if so >= sl {
        return None;
    }
    read_sym(b, elf, sa + so)
}

fn reloc(b: &mut Builder<'_>, p: NodeId, elf: &Elf, ri: u32, rela: bool, i: u64, o: u64) {
    let w = elf.word();
    let Some(Rel {
        offset: r_offset,
        info,
        sym,
        typ,
        ..
    }) = read_rel(b, elf, o, rela)
    else {
        return;
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
    // Quiet: every entry of the array lies inside the section's bytes.
    let mut f = Fields::new(b, id, o, elf.e).quiet();
    f.field("r_offset", w, num);
    // Where the relocation applies.
    let target = if relocatable(elf) {
        elf.sec(rs.info.into())
            .and_then(|t| elf.data(t))
            .and_then(|(ta, tl)| (r_offset < tl).then(|| (ta + r_offset, 4u64.min(tl - r_offset))))
    } else {
        elf.addr_to_abs(r_offset).map(|x| (x, 4))
    };
    if let Some((ta, tl)) = target {
        f.link(ta, tl);
        f.builder().link(id, ta, tl);
    }
    let inf = f.builder().group(id, "r_info", o + w, w);
    f.builder()
        .set_value(inf, Value::hex(info).with_width(w as u8));
    // `sym` and `type` are packed in r_info: ELF64 a 4-byte symbol index
    // and a 4-byte type, ELF32 a 3-byte index and a 1-byte type, each in
    // the order the byte order puts them.
    let (type_len, sym_len) = if elf.is64 { (4, 4) } else { (1, 3) };
    let type_field = |f: &mut Fields<'_, '_>| {
        f.field("type", type_len, |v| named(v, tname));
    };
    let sym_field = |f: &mut Fields<'_, '_>| {
        let sym_at = f.at();
        f.field("sym", sym_len, |v| match &symname {
            Some(n) => Value::named(v, Some(n)),
            None => num(v),
        });
        if sym == 0 {
            return;
        }
        match sym_entry(elf, symtab, sym) {
            Some(so) => f.link(so, elf.sym_size()),
            None => f.builder().error(
                sym_at,
                sym_len,
                format!(
                    "relocation [{i}] of [{ri}] {}: symbol {sym} is not in symbol table [{symtab}]",
                    rs.name
                ),
            ),
        }
    };
    f.under(inf);
    if elf.e == crate::model::Endian::Little {
        type_field(&mut f);
        sym_field(&mut f);
    } else {
        sym_field(&mut f);
        type_field(&mut f);
    }
    let addend = if rela {
        f.under(id).int("r_addend", w)
    } else {
        None
    };
    let mut v = format!("{tshow} at 0x{r_offset:x}");
    if let Some(n) = &symname {
        v.push_str(&format!(" {n}"));
    }
    if let Some(ad) = addend {
        v.push_str(&format!(" {}{ad}", if ad >= 0 { "+" } else { "" }));
    }
    // Shown with the symbol's name demangled in front, where it is mangled.
    let v = match (Value::from(v), &symname) {
        (Value::Text(t), Some(n)) => Value::symbol(n, t),
        (v, _) => v,
    };
    b.set_value(id, v);
}
