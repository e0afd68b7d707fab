//! What the symbol tables of every archive flavour share: where each
//! member is, an entry that names and links to the member it points at,
//! the names that follow a table, and the big-endian table of GNU (`/`,
//! `/SYM64/`), MSVC's first linker member and AIX's global symbol tables.

use std::sync::Arc;

use crate::model::{read_uint, text, Builder, Endian, NodeId, Radix, Value};

/// Where a member is, for the symbol tables that point at it.
#[derive(Clone, Debug)]
pub struct Member {
    /// Its header's offset (from the start of the byte space).
    pub at: u64,
    /// Its header and data.
    pub len: u64,
    pub name: String,
}

/// The members of an archive, sorted by offset.
pub type Members = Arc<Vec<Member>>;

/// The member whose header starts at `at`.
pub fn member_at(ms: &[Member], at: u64) -> Option<&Member> {
    let k = ms.binary_search_by_key(&at, |m| m.at).ok()?;
    ms.get(k)
}

/// A symbol table entry at `[o, o+len)` naming symbol `name` of member
/// header offset `v` (`base` added): its value names the member and it
/// links to it; an offset where no member starts is an error.
#[allow(clippy::too_many_arguments)]
pub fn symbol_entry(
    b: &mut Builder<'_>,
    p: NodeId,
    label: String,
    (o, len): (u64, u64),
    v: u64,
    width: u8,
    base: u64,
    ms: &[Member],
) {
    let abs = base.saturating_add(v);
    match member_at(ms, abs) {
        Some(m) => {
            let shown = Value::with(v, Radix::Hex, format!(" ({})", m.name)).with_width(width);
            let id = b.leaf(p, label, o, len, shown);
            b.link(id, b.span(m.at, m.len));
        }
        None => {
            let shown = Value::with(v, Radix::Hex, " (no member there)").with_width(width);
            b.leaf(p, &label, o, len, shown);
            b.error(
                o,
                len,
                format!("symbol {label}: no member header at offset 0x{v:x}"),
            );
        }
    }
}

/// Where each NUL-terminated name of `names` starts, at most `n` of them;
/// and the bytes they take.
pub fn name_starts(names: &[u8], n: u64) -> (Vec<usize>, usize) {
    let mut starts = Vec::with_capacity(n.min(names.len() as u64) as usize);
    let mut p = 0usize;
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    for name in names.split_inclusive(|&c| c == 0).take(n) {
        starts.push(p);
        p += name.len();
    }
    (starts, p)
}

/// The name that starts at `starts[i]` of the names at `[s, end)`.
pub fn name_of(b: &Builder<'_>, starts: &[usize], i: u64, s: u64, end: u64) -> String {
    usize::try_from(i)
        .ok()
        .and_then(|k| starts.get(k))
        .and_then(|&st| b.read_cstr(s + st as u64, end))
        .map(|(x, _)| text::from_bytes(x))
        .unwrap_or_default()
}

/// The names of a symbol table at `[s, s+len)` and what follows them up
/// to `end` (the NUL that pads a member to an even size is not one more
/// name).
pub fn names_and_padding(b: &mut Builder<'_>, d: NodeId, s: u64, len: u64, end: u64) {
    if len > 0 {
        let names = b.group(d, "names", s, len);
        crate::formats::elf::strings_node(b, names, s, len);
    }
    let rest = end.saturating_sub(s + len);
    if rest > 0 {
        let pad = b.slice(s + len, rest);
        let v = if pad.iter().all(|&c| c == 0) {
            Value::with(
                rest,
                Radix::Dec,
                if rest == 1 {
                    " zero byte"
                } else {
                    " zero bytes"
                },
            )
        } else {
            Value::text(text::hex(pad, 16))
        };
        b.leaf(d, "padding", s + len, rest, v);
    }
}

/// The GNU symbol table (and MSVC's first linker member): a big-endian
/// count, that many member offsets, then the names.
pub fn symtab(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64, w: u64, base: u64, ms: Members) {
    let e = Endian::Big;
    let Some(count) = read_uint(b, a, w, e) else {
        return;
    };
    b.set_value(d, format!("symbol table, {count} symbols"));
    b.leaf(d, "count", a, w, Value::uint(count).with_width(w as u8));
    let room = l.saturating_sub(w) / w;
    let n = count.min(room);
    if count > room {
        b.error(
            a,
            w,
            format!("symbol table: {count} offsets do not fit in {l} bytes"),
        );
    }
    let s = a + w + n * w;
    let names_end = a + l;
    let (starts, used) = name_starts(b.slice(s, names_end.saturating_sub(s)), n);
    let starts = Arc::new(starts);
    b.array(
        d,
        "offsets",
        a + w,
        n,
        w,
        Arc::new(move |b, p, i, o| {
            let Some(v) = read_uint(b, o, w, e) else {
                return;
            };
            let name = name_of(b, &starts, i, s, names_end);
            symbol_entry(b, p, format!("[{i}] {name}"), (o, w), v, w as u8, base, &ms);
        }),
    );
    let names_len = (used as u64).min(names_end.saturating_sub(s));
    names_and_padding(b, d, s, names_len, names_end);
}

/// More members than this are not shown.
pub const MAX_MEMBERS: u64 = 1_000_000;
