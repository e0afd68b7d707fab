//! `.debug_abbrev`: the abbreviation tables the units of `.debug_info`
//! point at, one after the other. Each table a node, each declaration in
//! it a node at its bytes (code, tag, whether entries have children, each
//! attribute's name and form, an implicit constant where the form is
//! `DW_FORM_implicit_const`), and the null code that ends the table. An
//! entry's abbreviation code in `.debug_info` links here.

use std::sync::Arc;

use gimli::{EndianSlice, LittleEndian};

use super::names::{attr_name, form_name, tag_name};
use crate::model::{Builder, NodeId, Radix, Seq, Span, Step, Value};

/// Tables and declarations listed at most.
const MAX_ITEMS: u64 = 1 << 22;

/// One attribute specification: name, form, implicit constant, and where
/// it ends (it starts where the one before ends).
#[derive(Clone, Copy, Debug)]
pub(super) struct Spec {
    pub name: u64,
    pub form: u64,
    pub implicit: Option<i64>,
    pub end: usize,
}

/// One declaration read from a table: where its parts end, offsets into
/// the section's bytes.
#[derive(Clone, Debug)]
pub(super) struct Decl {
    pub code: u64,
    pub code_end: usize,
    pub tag: u64,
    pub tag_end: usize,
    pub children: u8,
    pub specs: Vec<Spec>,
    /// After the (0, 0) pair that ends the attributes.
    pub end: usize,
}

/// Attribute specifications of one declaration read at most.
const MAX_SPECS: usize = 1 << 12;

/// Reads the declaration at `at` of `d` (`.debug_abbrev`'s bytes).
/// `Ok(None)`: the null code that ends a table; `Err(at)`: it does not
/// read, from `at` on.
pub(super) fn decl(d: &[u8], at: usize) -> Result<Option<Decl>, usize> {
    let mut r = EndianSlice::new(d.get(at..).ok_or(at)?, LittleEndian);
    let pos = |r: &EndianSlice<'_, LittleEndian>| d.len() - r.len();
    let uleb = |r: &mut EndianSlice<'_, LittleEndian>| {
        let from = d.len() - r.len();
        gimli::leb128::read::unsigned(r).map_err(|_| from)
    };
    let code = uleb(&mut r)?;
    if code == 0 {
        return Ok(None);
    }
    let code_end = pos(&r);
    let tag = uleb(&mut r)?;
    let tag_end = pos(&r);
    let children = gimli::Reader::read_u8(&mut r).map_err(|_| tag_end)?;
    let mut specs = Vec::new();
    loop {
        let name = uleb(&mut r)?;
        let form = uleb(&mut r)?;
        if name == 0 && form == 0 {
            break;
        }
        let implicit = if form == u64::from(gimli::DW_FORM_implicit_const.0) {
            let from = pos(&r);
            Some(gimli::leb128::read::signed(&mut r).map_err(|_| from)?)
        } else {
            None
        };
        if specs.len() == MAX_SPECS {
            return Err(pos(&r));
        }
        specs.push(Spec {
            name,
            form,
            implicit,
            end: pos(&r),
        });
    }
    Ok(Some(Decl {
        code,
        code_end,
        tag,
        tag_end,
        children,
        specs,
        end: pos(&r),
    }))
}

/// What reading a table finds at one offset.
pub(super) enum Item {
    /// A declaration starting at the offset.
    Decl(usize, Decl),
    /// The null code that ends the table, at the offset.
    Null(usize),
    /// Bytes that do not read as a declaration, from the offset on.
    Bad(usize),
}

/// The declarations of the table at `at` of `d`, in order, then what ends
/// it: the null code, bytes that do not read, or nothing after
/// `MAX_ITEMS` declarations.
pub(super) fn items(d: &[u8], at: usize) -> impl Iterator<Item = Item> + '_ {
    let mut off = Some(at);
    let mut n = 0u64;
    std::iter::from_fn(move || {
        let at = off.take()?;
        match decl(d, at) {
            Ok(Some(x)) if n < MAX_ITEMS => {
                n += 1;
                off = Some(x.end);
                Some(Item::Decl(at, x))
            }
            Ok(Some(_)) => None,
            Ok(None) => Some(Item::Null(at)),
            Err(e) => Some(Item::Bad(e)),
        }
    })
}

/// Where the table at `at` of `d` ends (after its null code, or where
/// its declarations stop reading), and how many declarations it has.
pub(super) fn table_end(d: &[u8], at: usize) -> (usize, u64) {
    let mut end = at;
    let mut n = 0;
    for item in items(d, at) {
        end = match item {
            Item::Decl(_, x) => {
                n += 1;
                x.end
            }
            // After the null code's byte.
            Item::Null(at) => (at + 1).min(d.len()),
            Item::Bad(_) => d.len(),
        };
    }
    (end, n)
}

/// Makes `id`, the section `.debug_abbrev` at `sec`, list its tables when
/// opened.
pub(super) fn tables(b: &mut Builder<'_>, id: NodeId, sec: Span) -> bool {
    if sec.is_empty() {
        return false;
    }
    let base = sec.offset;
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let d = b.bytes(sec);
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
                let d = b.bytes(sec);
                let at = usize::try_from(off.checked_sub(base)?).ok()?;
                let (end, n) = table_end(d, at);
                if end <= at {
                    return None;
                }
                let t = b.add(
                    p,
                    format!("table [{i}]"),
                    off,
                    (end - at) as u64,
                    Some(Value::with(
                        n,
                        Radix::Dec,
                        if n == 1 {
                            " declaration"
                        } else {
                            " declarations"
                        },
                    )),
                );
                b.lazy(
                    t,
                    Arc::new(move |b: &mut Builder<'_>, t| table(b, t, sec, at)),
                );
                Some(base + end as u64)
            });
            let seq = Seq::scan(
                base,
                sec.end(),
                MAX_ITEMS,
                |off| {
                    let at = usize::try_from(off - base).ok()?;
                    Some(base + table_end(d, at).0 as u64)
                },
                step,
            );
            b.seq_now(id, seq);
        }),
    );
    true
}

/// The declarations of the table at `at` (from the start of the section
/// at `sec`), and the null code that ends it.
fn table(b: &mut Builder<'_>, t: NodeId, sec: Span, at: usize) {
    let base = sec.offset;
    let d = b.slice(base, sec.len);
    for item in items(d, at) {
        match item {
            Item::Decl(at, x) => declaration(b, t, base, at, &x),
            Item::Null(at) => {
                b.leaf(t, "null", base + at as u64, 1, Value::text("end of table"));
            }
            Item::Bad(e) => b.error(
                base + e as u64,
                (d.len() - e).max(1) as u64,
                "DWARF abbreviation declaration does not read: the table ends here",
            ),
        }
    }
}

/// The node of declaration `x`, which starts at `at`.
fn declaration(b: &mut Builder<'_>, t: NodeId, a: u64, at: usize, x: &Decl) {
    let tag_name = tag_name(x.tag);
    let kids = match x.children {
        0 => "no children",
        1 => "has children",
        _ => "children byte not 0 or 1",
    };
    let id = b.add(
        t,
        format!("abbrev {}", x.code),
        a + at as u64,
        (x.end - at) as u64,
        Some(Value::text(format!("{tag_name}, {kids}"))),
    );
    let at64 = |o: usize| a + o as u64;
    b.leaf(
        id,
        "code",
        at64(at),
        (x.code_end - at) as u64,
        Value::dec(x.code),
    );
    b.leaf(
        id,
        "tag",
        at64(x.code_end),
        (x.tag_end - x.code_end) as u64,
        Value::named(x.tag, Some(&tag_name)),
    );
    b.leaf(
        id,
        "children",
        at64(x.tag_end),
        1,
        Value::named(x.children.into(), Some(kids)),
    );
    let mut from = x.tag_end + 1;
    for s in &x.specs {
        let form = form_name(s.form);
        let v = match s.implicit {
            Some(c) => Value::text(format!("{form}: {c}")),
            None => Value::text(form),
        };
        b.leaf(id, attr_name(s.name), at64(from), (s.end - from) as u64, v);
        from = s.end;
    }
    if x.end > from {
        b.leaf(
            id,
            "end",
            at64(from),
            (x.end - from) as u64,
            Value::text("end of attributes"),
        );
    }
    if x.children > 1 {
        b.warn(
            at64(x.tag_end),
            1,
            format!(
                "DWARF abbreviation {}: children byte {} (not 0 or 1)",
                x.code, x.children
            ),
        );
    }
}
