//! What the symbol tables of every archive flavour share: where each
//! member is, an entry that names and links to the member it points at,
//! the names that follow a table, and the big-endian table of GNU (`/`,
//! `/SYM64/`), MSVC's first linker member and AIX's global symbol tables.

use std::sync::Arc;

use crate::model::{read_uint, text, Builder, Endian, NodeId, Radix, Span, Value};

/// Where a member is, for the symbol tables that point at it.
#[derive(Clone, Debug)]
pub struct Member {
    /// Its header and data.
    pub at: Span,
    pub name: String,
}

/// The members of an archive, sorted by offset.
pub type Members = Arc<Vec<Member>>;

/// The member whose header starts at `at`.
pub fn member_at(ms: &[Member], at: u64) -> Option<&Member> {
    let k = ms.binary_search_by_key(&at, |m| m.at.offset).ok()?;
    ms.get(k)
}

/// A symbol table entry at `at` naming symbol `name` of member
/// header offset `v` (`base` added): its value names the member and it
/// links to it; an offset where no member starts is an error.
#[allow(clippy::too_many_arguments)]
pub fn symbol_entry(
    b: &mut Builder<'_>,
    p: NodeId,
    label: String,
    at: Span,
    v: u64,
    width: u8,
    base: u64,
    ms: &[Member],
) {
    let abs = base.saturating_add(v);
    match member_at(ms, abs) {
        Some(m) => {
            let shown = Value::with(v, Radix::Hex, format!(" ({})", m.name)).with_width(width);
            let id = b.leaf(p, label, at.offset, at.len, shown);
            b.link(id, m.at);
        }
        None => {
            let shown = Value::with(v, Radix::Hex, " (no member there)").with_width(width);
            b.leaf(p, &label, at.offset, at.len, shown);
            b.error(
                at.offset,
                at.len,
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

/// The name that starts at `starts[i]` of the names at `names`.
pub fn name_of(b: &Builder<'_>, starts: &[usize], i: u64, names: Span) -> String {
    usize::try_from(i)
        .ok()
        .and_then(|k| starts.get(k))
        .and_then(|&st| b.read_cstr(names.offset + st as u64, names.end()))
        .map(|(x, _)| text::from_bytes(x))
        .unwrap_or_default()
}

/// The names of a symbol table, the first `used` bytes of `names`, and
/// what follows them to its end (the NUL that pads a member to an even
/// size is not one more name).
pub fn names_and_padding(b: &mut Builder<'_>, d: NodeId, names: Span, used: u64) {
    let (taken, rest) = (names.take(used), names.skip(used));
    if !taken.is_empty() {
        let g = b.group(d, "names", taken.offset, taken.len);
        crate::formats::elf::strings_node(b, g, taken);
    }
    if !rest.is_empty() {
        let pad = b.bytes(rest);
        let v = if pad.iter().all(|&c| c == 0) {
            Value::with(
                rest.len,
                Radix::Dec,
                if rest.len == 1 {
                    " zero byte"
                } else {
                    " zero bytes"
                },
            )
        } else {
            Value::text(text::hex(pad, 16))
        };
        b.leaf(d, "padding", rest.offset, rest.len, v);
    }
}

/// The GNU symbol table (and MSVC's first linker member): a big-endian
/// count, that many member offsets, then the names.
pub fn symtab(b: &mut Builder<'_>, d: NodeId, at: Span, w: u64, base: u64, ms: Members) {
    let e = Endian::Big;
    let Some(count) = read_uint(b, at.offset, w, e) else {
        return;
    };
    b.set_value(d, format!("symbol table, {count} symbols"));
    b.leaf(
        d,
        "count",
        at.offset,
        w,
        Value::uint(count).with_width(w as u8),
    );
    let room = at.len.saturating_sub(w) / w;
    let n = count.min(room);
    if count > room {
        b.error(
            at.offset,
            w,
            format!(
                "symbol table: {count} offsets do not fit in {} bytes",
                at.len
            ),
        );
    }
    let names = at.skip(w + n * w);
    let (starts, used) = name_starts(b.bytes(names), n);
    let starts = Arc::new(starts);
    b.array(
        d,
        "offsets",
        at.offset + w,
        n,
        w,
        Arc::new(move |b, p, i, o| {
            let Some(v) = read_uint(b, o, w, e) else {
                return;
            };
            let name = name_of(b, &starts, i, names);
            let entry = b.span(o, w);
            symbol_entry(b, p, format!("[{i}] {name}"), entry, v, w as u8, base, &ms);
        }),
    );
    names_and_padding(b, d, names, used as u64);
}

/// More members than this are not shown.
pub const MAX_MEMBERS: u64 = 1_000_000;
