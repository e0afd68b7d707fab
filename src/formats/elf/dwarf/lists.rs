//! Location and range lists: DWARF 5's `.debug_loclists` and
//! `.debug_rnglists` (each contribution's header and offset table, each
//! offset linked to its list), DWARF 4's `.debug_loc` and `.debug_ranges`;
//! each list a node, each entry at its bytes with its kind, its operands
//! as they are in the file (relocated in an object file), the range they
//! come to from the base the list or the unit that uses it gives
//! (`[0x1000, 0x1012)`), and a
//! location's DWARF expression as its operations; gcc's location views
//! between the lists, where the units' `DW_AT_GNU_locviews` say, as view
//! pairs linked to their list.
//!
//! This file knows the bytes and what it is given ([`Ctx`]), not the ELF
//! around them.

use std::sync::Arc;

use super::frame::Expr;
use super::line::{add, end_in, initial_length, leaf, Cur, Item};
use crate::model::record::{record, Record};
use crate::model::{Builder, Endian, NodeId, Radix, Seq, Step, Value};

record! {
    /// What follows a list unit's length (DWARF 5, 7.28 and 7.29), in the
    /// section's byte order; the fields are listed rather than shown from
    /// here.
    mod list_header: ListHeader (Endian::Little) {
        version: u16 = "version", Show::Dec,
        address_size: u8 = "address_size", Show::Auto,
        segment_selector_size: u8 = "segment_selector_size", Show::Auto,
        offset_entry_count: u32 = "offset_entry_count", Show::Auto,
    }
}

/// Lists or contributions listed at most.
const MAX_LISTS: u64 = 1 << 22;
/// Entries of one list read at most.
const MAX_ENTRIES: u64 = 1 << 16;

/// Which section.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    LocLists,
    RngLists,
    Loc,
    Ranges,
}

/// What the unit that uses a list says for reading it: its base address
/// (`DW_AT_low_pc`) and where its addresses start in `.debug_addr`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Base {
    pub low_pc: u64,
    pub addr_base: u64,
}

/// Where gcc's location views are, by their offset in the section, with
/// the offset of the list they are for (see [`Ctx::views`]).
pub(crate) type Views = Vec<(u64, Option<u64>)>;

/// One pair of location views: where it is, its size, where its second
/// number starts (from `at`), its two numbers.
struct ViewPair {
    at: u64,
    size: u64,
    split: u64,
    begin: u64,
    end: u64,
}

/// What reading a list section needs besides its bytes.
#[derive(Clone)]
pub(crate) struct Ctx {
    pub e: Endian,
    pub kind: Kind,
    /// The section in the byte space: offset and length.
    pub at: u64,
    pub len: u64,
    /// Bytes of an address where no header says (DWARF 4's sections).
    pub word: u8,
    /// In an object file, the section's relocations: offset in the
    /// section, the value the linker would put there; sorted by offset.
    pub relocs: Vec<(u64, u64)>,
    /// The addresses `.debug_addr`'s first contribution lists, for the
    /// entries that name one by index.
    pub addrs: Vec<u64>,
    pub expr: Expr,
    /// What the units say of the lists they use, by the list's offset in
    /// the section; sorted.
    pub bases: Vec<(u64, Base)>,
    /// Where gcc's location views are (`DW_AT_GNU_locviews`), by their
    /// offset in the section, with the offset of the list they are for;
    /// sorted. Each is a pair of ULEB128 view numbers for each entry of
    /// that list, between the lists.
    pub views: Views,
    /// `.debug_addr` as addresses from its start (relocated), of
    /// `addr_word` bytes, for the lists whose unit gives its address base.
    pub addr_words: Vec<u64>,
    pub addr_word: u64,
}

impl Ctx {
    fn reloc(&self, at: u64) -> Option<u64> {
        let off = at - self.at;
        let k = self.relocs.binary_search_by_key(&off, |r| r.0).ok()?;
        self.relocs.get(k).map(|r| r.1)
    }

    fn addr(&self, i: u64) -> Option<u64> {
        self.addrs.get(usize::try_from(i).ok()?).copied()
    }

    /// Address `i` of the unit's table (`unit`), else of `.debug_addr`'s
    /// first contribution.
    fn addr_of(&self, unit: Option<Base>, i: u64) -> Option<u64> {
        let Some(u) = unit.filter(|_| self.addr_word > 0) else {
            return self.addr(i);
        };
        let w = self.addr_word;
        let off = u.addr_base.checked_add(i.checked_mul(w)?)?;
        if off % w != 0 {
            return None;
        }
        self.addr_words.get(usize::try_from(off / w).ok()?).copied()
    }

    /// Where a list starting at `from` (byte space) ends at the latest:
    /// at `to`, or at the next list a unit uses (what lies between, gcc's
    /// location views say, need not read as a list).
    fn bound(&self, from: u64, to: u64) -> u64 {
        let off = from - self.at;
        let k = self.bases.partition_point(|b| b.0 <= off);
        let v = self.views.partition_point(|b| b.0 <= off);
        let next = [
            self.bases.get(k).map(|b| b.0),
            self.views.get(v).map(|b| b.0),
        ];
        next.into_iter()
            .flatten()
            .map(|n| self.at + n)
            .fold(to, u64::min)
    }

    /// The views at `off` (in the section), where no list a unit uses
    /// starts: `Some` with the offset of the list they are for, if known.
    fn views_at(&self, off: u64) -> Option<Option<u64>> {
        let k = self.views.binary_search_by_key(&off, |v| v.0).ok()?;
        if self.base_at(off).is_some() {
            return None;
        }
        self.views.get(k).map(|v| v.1)
    }

    /// What the unit that uses the list at `off` (in the section) says.
    fn base_at(&self, off: u64) -> Option<Base> {
        let k = self.bases.binary_search_by_key(&off, |b| b.0).ok()?;
        self.bases.get(k).map(|b| b.1)
    }
}

/// An entry kind's name, `DW_LLE_` or `DW_RLE_` and its suffix.
struct KindName(&'static str, &'static str);

impl std::fmt::Display for KindName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)?;
        f.write_str(self.1)
    }
}

/// One entry as read.
struct Entry {
    name: String,
    off: u64,
    size: u64,
    items: Vec<Item>,
    value: String,
    /// It ends its list.
    last: bool,
}

/// The operands of the entry kinds of DWARF 5: an index into
/// `.debug_addr`, an address, an unsigned LEB128.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Index,
    Addr,
    Uleb,
}

/// What an entry's operands make of the range, once read.
#[derive(Clone, Copy, PartialEq)]
enum Makes {
    End,
    Base,
    StartEnd,
    StartLength,
    OffsetPair,
    /// A location list's default location.
    Default,
    /// GNU's location view pair.
    Nothing,
}

/// One row of [`KINDS`].
type KindRow = (Option<u8>, Option<u8>, &'static str, &'static [Op], Makes);

/// The entry kinds of `.debug_loclists` (`DW_LLE_*`) and
/// `.debug_rnglists` (`DW_RLE_*`): their codes in each (range lists have
/// no default location and number the rest after it one lower), name,
/// operands and what they make. A location list's entries that make a
/// range, and its default location, are followed by a location
/// description.
#[rustfmt::skip]
const KINDS: [KindRow; 10] = [
    (Some(0), Some(0), "end_of_list", &[], Makes::End),
    (Some(1), Some(1), "base_addressx", &[Op::Index], Makes::Base),
    (Some(2), Some(2), "startx_endx", &[Op::Index, Op::Index], Makes::StartEnd),
    (Some(3), Some(3), "startx_length", &[Op::Index, Op::Uleb], Makes::StartLength),
    (Some(4), Some(4), "offset_pair", &[Op::Uleb, Op::Uleb], Makes::OffsetPair),
    (Some(5), None, "default_location", &[], Makes::Default),
    (Some(6), Some(5), "base_address", &[Op::Addr], Makes::Base),
    (Some(7), Some(6), "start_end", &[Op::Addr, Op::Addr], Makes::StartEnd),
    (Some(8), Some(7), "start_length", &[Op::Addr, Op::Uleb], Makes::StartLength),
    (Some(9), None, "GNU_view_pair", &[Op::Uleb, Op::Uleb], Makes::Nothing),
];

/// The range `[lo, hi)` as shown.
fn range(lo: u64, hi: u64) -> String {
    format!("[0x{lo:x}, 0x{hi:x})")
}

/// Reads the DWARF 5 entry at `c`, `base` the list's base address so far
/// and `word` the bytes of an address.
fn entry5(
    c: &mut Cur<'_>,
    ctx: &Ctx,
    (word, unit, full): (u8, Option<Base>, bool),
    base: &mut Option<u64>,
) -> Result<Entry, String> {
    let off = c.pos;
    let code = c.uint(1).ok_or("no entry kind")? as u8;
    let loc = ctx.kind == Kind::LocLists;
    let found = KINDS
        .iter()
        .find(|k| if loc { k.0 } else { k.1 } == Some(code));
    let Some(&(_, _, suffix, ops, makes)) = found else {
        return Err(format!(
            "{} 0x{code:02x} is not one DWARF defines",
            if loc {
                "location list entry kind"
            } else {
                "range list entry kind"
            }
        ));
    };
    let name = KindName(if loc { "DW_LLE_" } else { "DW_RLE_" }, suffix);
    let expr = loc
        && matches!(
            makes,
            Makes::StartEnd | Makes::StartLength | Makes::OffsetPair | Makes::Default
        );
    let mut items = Vec::new();
    if full {
        let n = name.to_string();
        items.push(leaf(
            "kind",
            off,
            1,
            Value::named_hex(code.into(), Some(&n)),
        ));
    }
    let mut raw = [0u64; 2];
    let mut vals = [None; 2];
    for (k, &o) in ops.iter().enumerate() {
        let at = c.pos;
        let short = || format!("{name}: an operand does not read");
        let (v, label) = match o {
            Op::Index => {
                let i = c.uleb().ok_or_else(short)?;
                (i, "index")
            }
            Op::Addr => {
                let v = c.uint(u64::from(word)).ok_or_else(short)?;
                (ctx.reloc(at).unwrap_or(v), "address")
            }
            Op::Uleb => (
                c.uleb().ok_or_else(short)?,
                if k == 0 { "offset" } else { "length" },
            ),
        };
        let val = if o == Op::Index {
            ctx.addr_of(unit, v)
        } else {
            Some(v)
        };
        if let (Some(r), Some(x)) = (raw.get_mut(k), vals.get_mut(k)) {
            (*r, *x) = (v, val);
        }
        if full {
            let label = match (makes, k, o) {
                (Makes::OffsetPair, 1, _) => "end_offset",
                (Makes::OffsetPair, 0, _) => "start_offset",
                (Makes::StartEnd, 1, Op::Index) => "end_index",
                (Makes::StartEnd, 1, _) => "end",
                (_, 0, Op::Index) if makes != Makes::Base => "start_index",
                (_, 0, Op::Addr) if makes != Makes::Base => "start",
                _ => label,
            };
            let shown = match (o, val) {
                (Op::Index, Some(a)) => Value::with(v, Radix::Dec, format!(" (0x{a:x})")),
                (Op::Index, None) => Value::uint(v),
                (Op::Addr | Op::Uleb, _) => Value::hex(v),
            };
            items.push(leaf(label, at, c.pos - at, shown));
        }
    }
    let [a, b] = vals;
    if makes == Makes::Base {
        *base = a;
    }
    let mut value = String::new();
    match makes {
        _ if !full => {}
        Makes::Base => {
            if let Some(a) = a {
                value = format!("base 0x{a:x}");
            }
        }
        Makes::StartEnd => {
            if let (Some(a), Some(b)) = (a, b) {
                value = range(a, b);
            }
        }
        Makes::StartLength => {
            if let Some(a) = a {
                let [_, l] = raw;
                value = range(a, a.wrapping_add(l));
            }
        }
        Makes::OffsetPair => {
            let [x, y] = raw;
            value = match base {
                Some(b) => range(b.wrapping_add(x), b.wrapping_add(y)),
                None => format!("(0x{x:x}, 0x{y:x}) from the unit's base"),
            };
        }
        Makes::End => value = "end of list".into(),
        Makes::Default => value = "default".into(),
        Makes::Nothing => {}
    }
    if expr {
        let at = c.pos;
        let n = c
            .uleb()
            .ok_or_else(|| format!("{name}: its expression's length does not read"))?;
        located(c, ctx, (at, n, word, full), &mut items, &mut value)
            .ok_or_else(|| format!("{name}: its expression runs past the end"))?;
    }
    Ok(Entry {
        name: if full {
            name.to_string()
        } else {
            String::new()
        },
        off,
        size: c.pos - off,
        items,
        value,
        last: makes == Makes::End,
    })
}

/// An entry's location description: its length (read from `at`, `n`)
/// and its `n` bytes at `c`, shown as operations for addresses of `word`
/// bytes and added to the entry's value (unless not `full`: then only
/// passed over).
fn located(
    c: &mut Cur<'_>,
    ctx: &Ctx,
    (at, n, word, full): (u64, u64, u8, bool),
    items: &mut Vec<Item>,
    value: &mut String,
) -> Option<()> {
    let p = c.pos;
    c.skip(n)?;
    let bytes =
        c.d.get(usize::try_from(p).ok()?..usize::try_from(c.pos).ok()?)?;
    if !full {
        return Some(());
    }
    items.push(leaf("expression_length", at, p - at, Value::uint(n)));
    let s = (ctx.expr)(bytes, word);
    items.push(leaf("expression", p, n, Value::text(&s)));
    if !value.is_empty() {
        value.push_str(": ");
    }
    value.push_str(&s);
    Some(())
}

/// Reads the DWARF 4 entry at `c` (`.debug_loc` or `.debug_ranges`).
fn entry4(c: &mut Cur<'_>, ctx: &Ctx, base: &mut Option<u64>, full: bool) -> Result<Entry, String> {
    let off = c.pos;
    let w = u64::from(ctx.word);
    let short = || "a list entry does not fit".to_string();
    let a = c.uint(w).ok_or_else(short)?;
    let b = c.uint(w).ok_or_else(short)?;
    let a = ctx.reloc(off).unwrap_or(a);
    let b = ctx.reloc(off + w).unwrap_or(b);
    let max = if w == 8 { u64::MAX } else { 0xffff_ffff };
    let mut items = vec![];
    let (name, mut value, last) = if a == 0 && b == 0 {
        items.push(leaf("start", off, w, Value::hex(a)));
        items.push(leaf("end", off + w, w, Value::hex(b)));
        ("end_of_list", "end of list".to_string(), true)
    } else if a == max {
        *base = Some(b);
        items.push(leaf("selector", off, w, Value::hex(a)));
        items.push(leaf("base_address", off + w, w, Value::hex(b)));
        ("base_address", format!("base 0x{b:x}"), false)
    } else {
        items.push(leaf("start", off, w, Value::hex(a)));
        items.push(leaf("end", off + w, w, Value::hex(b)));
        let v = match base {
            Some(x) => range(x.wrapping_add(a), x.wrapping_add(b)),
            None => format!("(0x{a:x}, 0x{b:x}) from the unit's base"),
        };
        ("entry", v, false)
    };
    if name == "entry" && ctx.kind == Kind::Loc {
        let at = c.pos;
        let n = c
            .uint(2)
            .ok_or_else(|| "its expression's length does not fit".to_string())?;
        located(c, ctx, (at, n, ctx.word, full), &mut items, &mut value)
            .ok_or_else(|| "its expression runs past the section's end".to_string())?;
    }
    Ok(Entry {
        name: name.to_string(),
        off,
        size: c.pos - off,
        items,
        value,
        last,
    })
}

/// Reads the list at `from` up to `to` (byte space): its entries, and
/// what did not read (at its offset). Not `full`: only where each entry
/// is and whether it ends the list, for finding where the list ends.
fn read_list(
    d: &[u8],
    ctx: &Ctx,
    (from, to): (u64, u64),
    word: u8,
    full: bool,
) -> (Vec<Entry>, Option<(u64, String)>) {
    let mut c = Cur {
        d,
        pos: from,
        end: to,
        e: ctx.e,
    };
    // A list starts from the base address of the unit that uses it.
    let unit = ctx.base_at(from - ctx.at);
    let mut base = unit.map(|u| u.low_pc);
    let mut out = Vec::new();
    while c.pos < to {
        if out.len() as u64 == MAX_ENTRIES {
            return (
                out,
                Some((
                    c.pos,
                    format!("more than {MAX_ENTRIES} entries in a list; the rest are not read"),
                )),
            );
        }
        let start = c.pos;
        let e = match ctx.kind {
            Kind::LocLists | Kind::RngLists => entry5(&mut c, ctx, (word, unit, full), &mut base),
            Kind::Loc | Kind::Ranges => entry4(&mut c, ctx, &mut base, full),
        };
        match e {
            Ok(e) => {
                let last = e.last;
                out.push(e);
                if last {
                    break;
                }
            }
            Err(m) => return (out, Some((start, m))),
        }
    }
    (out, None)
}

/// Location views as read: the pairs, what did not read (at its offset),
/// the bound they were read up to, and where they end (after the last
/// pair, or at the bound where one did not read).
struct ReadViews {
    pairs: Vec<ViewPair>,
    problem: Option<(u64, &'static str)>,
    to: u64,
    end: u64,
}

/// The views at `from`, read up to the next list or views (at most `to`):
/// what [`views`] shows and [`list_end`] steps over.
fn views_from(d: &[u8], ctx: &Ctx, from: u64, to: u64) -> ReadViews {
    let to = ctx.bound(from, to);
    let (pairs, problem) = read_views(d, ctx, from, to);
    let end = match (&problem, pairs.last()) {
        (None, Some(x)) => x.at + x.size,
        _ => to,
    };
    ReadViews {
        pairs,
        problem,
        to,
        end,
    }
}

/// The view pairs from `from` to `to`, and what did not read (at its
/// offset).
fn read_views(
    d: &[u8],
    ctx: &Ctx,
    from: u64,
    to: u64,
) -> (Vec<ViewPair>, Option<(u64, &'static str)>) {
    let mut c = Cur {
        d,
        pos: from,
        end: to,
        e: ctx.e,
    };
    let mut out = Vec::new();
    while c.pos < to {
        let at = c.pos;
        if out.len() as u64 == MAX_ENTRIES {
            return (
                out,
                Some((at, "more view pairs than a list has entries at most")),
            );
        }
        let begin = c.uleb();
        let split = c.pos - at;
        let (Some(begin), Some(end)) = (begin, c.uleb()) else {
            return (out, Some((at, "a view number does not read")));
        };
        out.push(ViewPair {
            at,
            size: c.pos - at,
            split,
            begin,
            end,
        });
    }
    (out, None)
}

/// gcc's location views at `from` under `p` (up to the next list or
/// views, at most `to`), linked to the list they are for; where they end.
fn views(b: &mut Builder<'_>, p: NodeId, ctx: &Ctx, from: u64, to: u64, list: Option<u64>) -> u64 {
    let ReadViews {
        pairs,
        problem,
        to,
        end,
    } = views_from(b.data(), ctx, from, to);
    let node = b.group(
        p,
        format!("views [0x{:x}]", from - ctx.at),
        from,
        end - from,
    );
    let n = pairs.len();
    let pl = if n == 1 { "" } else { "s" };
    let value = match list {
        Some(l) => format!("{n} view pair{pl}, for list [0x{l:x}]"),
        None => format!("{n} view pair{pl}"),
    };
    b.set_value(node, Value::text(value));
    if let Some(l) = list.and_then(|l| ctx.at.checked_add(l)) {
        if l < ctx.at + ctx.len {
            b.link(node, b.span(l, 1));
        }
    }
    for p in pairs {
        let id = b.group(node, "view pair", p.at, p.size);
        b.set_value(id, Value::text(format!("view {} to {}", p.begin, p.end)));
        b.leaf(id, "begin", p.at, p.split, Value::dec(p.begin));
        let rest = p.size - p.split;
        b.leaf(id, "end", p.at + p.split, rest, Value::dec(p.end));
    }
    if let Some((at, m)) = problem {
        b.info(
            at,
            to.saturating_sub(at).max(1),
            format!("location views: {m}; the rest is shown as bytes"),
        );
    }
    end
}

/// Where the list at `from` ends (at most at `to`).
fn list_end(d: &[u8], ctx: &Ctx, from: u64, to: u64, word: u8) -> u64 {
    if ctx.views_at(from - ctx.at).is_some() {
        return views_from(d, ctx, from, to).end;
    }
    let to = ctx.bound(from, to);
    let (entries, problem) = read_list(d, ctx, (from, to), word, false);
    if problem.is_some() {
        return to;
    }
    entries.last().map_or(to, |e| e.off + e.size)
}

/// The list at `from` under `p`, named by its offset in the section.
fn list(b: &mut Builder<'_>, p: NodeId, ctx: &Ctx, from: u64, to: u64, word: u8) -> u64 {
    if let Some(l) = ctx.views_at(from - ctx.at) {
        return views(b, p, ctx, from, to, l);
    }
    let to = ctx.bound(from, to);
    let (entries, problem) = read_list(b.data(), ctx, (from, to), word, true);
    let end = match (&problem, entries.last()) {
        (Some(_), _) | (None, None) => to,
        (None, Some(e)) => e.off + e.size,
    };
    let node = b.group(p, format!("list [0x{:x}]", from - ctx.at), from, end - from);
    let n = entries.len();
    b.set_value(
        node,
        Value::text(format!("{n} entr{}", if n == 1 { "y" } else { "ies" })),
    );
    for e in &entries {
        let id = b.group(node, &e.name, e.off, e.size);
        b.set_value(id, Value::text(&e.value));
        for i in &e.items {
            add(b, id, i);
        }
    }
    // The lists are read one after another, as `llvm-dwarfdump
    // --debug-loclists` reads them; what lies between the lists that units
    // use (gcc's location views) need not read as a list, so a list that
    // does not read is said, not called an error.
    if let Some((at, m)) = problem {
        b.info(
            at,
            to.saturating_sub(at).max(1),
            format!("{m}; the rest is shown as bytes (lists are read one after another, and what lies between those the units use, such as gcc's location views, need not read as one)"),
        );
    }
    end
}

/// Makes `id`, a list section, list its contents when opened, read with
/// what `ctx` makes then.
pub(crate) fn section(
    b: &mut Builder<'_>,
    id: NodeId,
    len: u64,
    ctx: impl Fn(&Builder<'_>) -> Arc<Ctx> + Send + Sync + 'static,
) -> bool {
    if len == 0 {
        return false;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let ctx = ctx(b);
            let (a, end) = (ctx.at, ctx.at + ctx.len);
            let c = ctx.clone();
            let d = b.data();
            let seq = match ctx.kind {
                Kind::Loc | Kind::Ranges => {
                    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, _, off| {
                        Some(list(b, p, &c, off, end, c.word))
                    });
                    Seq::scan(
                        a,
                        end,
                        MAX_LISTS,
                        |off| Some(list_end(d, &ctx, off, end, ctx.word)),
                        step,
                    )
                }
                Kind::LocLists | Kind::RngLists => {
                    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
                        let next = end_in(b.data(), off, c.e, end)?;
                        unit(b, p, &c, i, off, next);
                        Some(next)
                    });
                    Seq::scan(a, end, MAX_LISTS, |off| end_in(d, off, ctx.e, end), step)
                }
            };
            if seq.stop() < end {
                let stop = seq.stop();
                b.error(
                    stop,
                    end - stop,
                    "list section: the bytes after the last list are not one",
                );
            }
            b.seq_now(id, seq);
        }),
    );
    true
}

/// One contribution of `.debug_loclists` or `.debug_rnglists` at
/// `[at, end)`, valued by its header: its header's fields, its offsets
/// and its lists read when it is opened.
fn unit(b: &mut Builder<'_>, p: NodeId, ctx: &Arc<Ctx>, i: u64, at: u64, end: u64) {
    let node = b.group(p, format!("unit [{i}]"), at, end - at);
    // The header follows the initial length: 4 bytes, or 12 in 64-bit
    // DWARF.
    let dwarf64 = crate::model::read::uint_at(b.data(), at, 4, ctx.e) == Some(0xffff_ffff);
    let h = at + if dwarf64 { 12 } else { 4 };
    let hd = crate::model::read::bytes_at(b.data(), h, end.saturating_sub(h))
        .and_then(|r| ListHeader::read_in(r, ctx.e).ok());
    if let Some(hd) = hd {
        b.set_value(
            node,
            Value::text(format!(
                "DWARF {}, {} offsets",
                hd.version, hd.offset_entry_count
            )),
        );
    }
    b.dense(node);
    let ctx = ctx.clone();
    b.lazy(
        node,
        Arc::new(move |b: &mut Builder<'_>, node| unit_body(b, node, &ctx, at, end)),
    );
}

/// What [`unit`] shows when opened.
fn unit_body(b: &mut Builder<'_>, node: NodeId, ctx: &Arc<Ctx>, at: u64, end: u64) {
    let mut c = Cur {
        d: b.data(),
        pos: at,
        end,
        e: ctx.e,
    };
    let mut items = Vec::new();
    let Some((_, dwarf64)) = initial_length(&mut c, &mut items, "unit_length") else {
        return;
    };
    let w = if dwarf64 { 8 } else { 4 };
    if end_in(b.data(), at, ctx.e, u64::MAX) > Some(ctx.at + ctx.len) {
        b.error(
            at,
            end - at,
            "list unit: unit_length runs past the section's end",
        );
    }
    let h = c.pos;
    let Ok(hd) = ListHeader::read_in(c.rest(), c.e) else {
        for it in &items {
            add(b, node, it);
        }
        b.error(h, end - h, "list unit: its header does not fit");
        return;
    };
    c.pos += list_header::SIZE;
    let (version, word, seg, count) = (
        u64::from(hd.version),
        u64::from(hd.address_size),
        u64::from(hd.segment_selector_size),
        u64::from(hd.offset_entry_count),
    );
    let lh = list_header::AT;
    let mut put = |name, field: crate::model::record::At, v| {
        items.push(leaf(name, field.of(h), field.size, v));
    };
    put("version", lh.version, Value::dec(version));
    put("address_size", lh.address_size, Value::uint(word));
    put(
        "segment_selector_size",
        lh.segment_selector_size,
        Value::uint(seg),
    );
    put(
        "offset_entry_count",
        lh.offset_entry_count,
        Value::uint(count),
    );
    for it in &items {
        add(b, node, it);
    }
    if version != 5 || !matches!(word, 1 | 2 | 4 | 8) {
        b.error(h, 4, format!("list unit: version {version}, address_size {word}: only version 5 with 1, 2, 4 or 8 is read"));
        return;
    }
    let base = c.pos;
    let room = (end - base) / w;
    if count > room {
        b.error(
            base,
            end - base,
            format!("list unit: offset_entry_count {count}, room for {room}"),
        );
        return;
    }
    let lists = base + count * w;
    if count > 0 {
        let off = b.group(node, "offsets", base, count * w);
        for k in 0..count {
            let o = base + k * w;
            let Some(v) = c.uint(w) else {
                break;
            };
            let to = base.saturating_add(v);
            let id = b.leaf(
                off,
                format!("[{k}]"),
                o,
                w,
                Value::with(
                    v,
                    Radix::Hex,
                    format!(" (list at 0x{:x})", to.saturating_sub(ctx.at)),
                ),
            );
            if (lists..end).contains(&to) {
                b.link(id, b.span(to, 1));
            }
        }
    }
    let word = word as u8;
    let c = ctx.clone();
    let step: Step =
        Arc::new(move |b: &mut Builder<'_>, p, _, off| Some(list(b, p, &c, off, end, word)));
    let d = b.data();
    let seq = Seq::scan(
        lists,
        end,
        MAX_LISTS,
        |off| Some(list_end(d, ctx, off, end, word)),
        step,
    );
    b.seq_now(node, seq);
}
