//! The dynamic table: each entry with its tag named and its value
//! resolved (a string, an address), found by section or by segment.

use std::sync::Arc;

use super::records::{self, either};
use super::{
    constants,
    shared::{entsize_check, label},
    Elf, Sec,
};
use crate::model::{Builder, Fields, NodeId, Span, Value};

pub(super) fn dynamic(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    tname: &str,
) -> NodeId {
    let es = dyn_size(elf);
    entsize_check(b, elf, s, es, at.len);
    let count = at.len / es;
    let el = elf.clone();
    let strtab = s.link;
    let id = b.array(
        g,
        &label(s),
        at.offset,
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
    /// A range of the space being built (found through DT_STRTAB and
    /// DT_STRSZ).
    Range(Span),
    None,
}

/// The size of a dynamic entry.
pub(super) fn dyn_size(elf: &Elf) -> u64 {
    either!(elf.is64, dyn32 | dyn64 as D => D::SIZE)
}

/// The tag and value of the dynamic entry at `o`.
fn read_dyn(b: &Builder<'_>, elf: &Elf, o: u64) -> Option<(u64, u64)> {
    either!(elf.is64, dyn32 | dyn64 as D => {
        records::read::<D::Rec>(b, o, elf.e).map(|r| (r.d_tag.into(), r.d_val.into()))
    })
}

pub(super) fn dyn_entry(b: &mut Builder<'_>, p: NodeId, elf: &Elf, strtab: Strs, i: u64, o: u64) {
    let Some((tag, val)) = read_dyn(b, elf, o) else {
        return;
    };
    let (name, kind) = constants::dtag(tag);
    let shown = name.map_or_else(|| format!("0x{tag:x}"), str::to_string);
    let id = b.group(p, format!("[{i}] {shown}"), o, dyn_size(elf));
    let mut f = Fields::new(b, id, o, elf.e);
    let (v, val_at) = either!(elf.is64, dyn32 | dyn64 as D => {
        (D::Rec::show(&mut f).d_val, D::AT.d_val)
    });
    let Some(v) = v else {
        return;
    };
    let mut summary = Value::uint(val);
    match kind {
        constants::DynVal::Str => match match strtab {
            Strs::Section(sec) => elf.string(b, sec, val),
            Strs::Range(at) => super::string_in(b, at, val, "the dynamic string table"),
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
                b.link(v, st.at);
            }
            Err(m) => val_at.error(
                b,
                o,
                format!("dynamic entry [{i}] {shown}: bad string index: {m}"),
            ),
        },
        constants::DynVal::Addr => {
            if let Some(x) = elf.addr_to_abs(val) {
                b.link(v, b.span(x, 1));
            }
            summary = Value::hex(val);
        }
        constants::DynVal::Plain => {}
    }
    b.set_value(id, summary);
}
/// The dynamic string table that DT_STRTAB and DT_STRSZ name, as the
/// dynamic table at `at` gives them.
pub(super) fn dyn_strings(b: &Builder<'_>, elf: &Elf, at: Span) -> Strs {
    let (mut addr, mut size) = (None, None);
    let n = at.len / dyn_size(elf);
    for k in 0..n.min(100_000) {
        let Some((tag, v)) = read_dyn(b, elf, at.offset + k * dyn_size(elf)) else {
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
            let end = elf.at.end();
            Strs::Range(b.span(off, sz.min(end.saturating_sub(off))))
        }
        _ => Strs::None,
    }
}
