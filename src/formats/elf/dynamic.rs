//! The dynamic table: each entry with its tag named and its value
//! resolved (a string, an address), found by section or by segment.

use std::sync::Arc;

use super::{
    constants,
    contents::{entsize_check, label},
    Elf, Sec,
};
use crate::model::{num, Builder, NodeId, Value};

pub(super) fn dynamic(
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
pub(super) enum Strs {
    Section(u32),
    /// An absolute range (found through DT_STRTAB and DT_STRSZ).
    Range(u64, u64),
    None,
}

pub(super) fn dyn_entry(b: &mut Builder<'_>, p: NodeId, elf: &Elf, strtab: Strs, i: u64, o: u64) {
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
/// The dynamic string table that DT_STRTAB and DT_STRSZ name.
pub(super) fn dyn_strings(b: &Builder<'_>, elf: &Elf, a: u64, n: u64) -> Strs {
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
