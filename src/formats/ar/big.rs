//! AIX big archives (`<bigaf>\n`, `llvm-ar --format=bigarchive`): a
//! fixed-length header giving the offsets of the member table, the global
//! symbol tables (32-bit and 64-bit objects') and the first and last
//! members; members chained by the offsets in their headers, each header
//! followed by the member's name and the terminator `` `\n``. The member
//! table lists every member's offset (in ASCII digits) and name; the
//! symbol tables are as GNU's `/SYM64/` (8-byte big-endian count and
//! offsets, then the names).

use std::collections::HashSet;
use std::sync::Arc;

use super::header::{self, ascii, decimal, BIG_AR, BIG_FL};
use super::tables::{
    name_of, name_starts, names_and_padding, symbol_entry, symtab, Member, Members, MAX_MEMBERS,
};
use crate::model::{text, Builder, NodeId, Span, Value};

pub const MAGIC: &[u8] = b"<bigaf>\n";

const FL: u64 = header::len(BIG_FL);
const AR: u64 = header::len(BIG_AR);
/// What ends a member header, after the name.
const FMAG: &[u8] = b"`\n";
/// The width of a number in the member table.
const NUM: u64 = 20;

/// What a header in the archive begins.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    MemberTable,
    Symbols,
    Symbols64,
}

/// One header as read.
struct Item {
    at: u64,
    kind: Kind,
    name: String,
    namlen: u64,
    size: u64,
    /// Its data, cut to the archive.
    data: Span,
}

/// The header at `at`, if it fits before `end`; a problem is reported.
fn read(b: &mut Builder<'_>, at: u64, end: u64, kind: Kind) -> Option<Item> {
    if at.checked_add(AR + 2).is_none_or(|e| e > end) {
        b.error(
            at.min(end),
            end.saturating_sub(at),
            format!("big archive: a member header at 0x{at:x} does not fit"),
        );
        return None;
    }
    let num = |b: &Builder<'_>, n: &str| header::number(b, BIG_AR, at, n);
    let (Some(size), Some(namlen)) = (num(b, "ar_size"), num(b, "ar_namlen")) else {
        b.error(
            at,
            AR,
            format!("big archive: the member header at 0x{at:x} has a size or name length that is not a decimal number"),
        );
        return None;
    };
    let name_end = at + AR + namlen + (namlen & 1);
    let data = name_end + FMAG.len() as u64;
    if data > end {
        b.error(
            at,
            end - at,
            format!("big archive: the name of the member at 0x{at:x} runs past the end"),
        );
        return None;
    }
    let name = text::from_bytes(b.slice(at + AR, namlen));
    if size > end - data {
        b.error(
            data,
            end - data,
            format!("big archive: member \"{name}\": ar_size {size} runs past the end"),
        );
    }
    Some(Item {
        at,
        kind,
        name,
        namlen,
        size,
        data: b.span(data, size.min(end - data)),
    })
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let end = at.end();
    let h = b.group(parent, "header", at.offset, FL.min(at.len));
    header::fields(
        b,
        h,
        at.offset,
        BIG_FL,
        "",
        "fixed-length header",
        (at.offset, AR),
    );
    if at.len < FL {
        return;
    }
    let num = |b: &Builder<'_>, n: &str| header::number(b, BIG_FL, at.offset, n).unwrap_or(0);
    let tables = [
        (num(b, "fl_memoff"), Kind::MemberTable),
        (num(b, "fl_gstoff"), Kind::Symbols),
        (num(b, "fl_gst64off"), Kind::Symbols64),
    ];
    let (first, last) = (num(b, "fl_fstmoff"), num(b, "fl_lstmoff"));
    let mut items: Vec<Item> = Vec::new();
    let mut seen = HashSet::new();
    // The members, first to last along their chain.
    let mut rel = first;
    while rel != 0 && (items.len() as u64) < MAX_MEMBERS && seen.insert(rel) {
        let Some(it) = read(b, at.offset.saturating_add(rel), end, Kind::File) else {
            break;
        };
        items.push(it);
        if rel == last {
            break;
        }
        let next =
            header::number(b, BIG_AR, at.offset.saturating_add(rel), "ar_nxtmem").unwrap_or(0);
        if next != 0 && next <= rel {
            let (o, l) = header::at(BIG_AR, "ar_nxtmem").unwrap_or_default();
            b.error(
                at.offset + rel + o,
                l,
                format!("big archive: the member at 0x{rel:x} names 0x{next:x} as the next, not after it"),
            );
            break;
        }
        rel = next;
    }
    for (t, kind) in tables {
        if t != 0 && seen.insert(t) {
            if let Some(it) = read(b, at.offset.saturating_add(t), end, kind) {
                items.push(it);
            }
        }
    }
    items.sort_by_key(|i| i.at);
    let members: Members = Arc::new(
        items
            .iter()
            .map(|i| Member {
                at: b.span(i.at, i.data.end() - i.at),
                name: i.name.clone(),
            })
            .collect(),
    );
    let mut k = 0;
    for it in &items {
        let label = match it.kind {
            Kind::File => {
                k += 1;
                format!("[{}] {}", k - 1, it.name)
            }
            Kind::MemberTable => "member table".to_string(),
            Kind::Symbols => "symbol table".to_string(),
            Kind::Symbols64 => "symbol table (64-bit)".to_string(),
        };
        item(b, parent, label, it, at.offset, &members);
    }
}

/// The nodes of one header and its data.
fn item(b: &mut Builder<'_>, parent: NodeId, label: String, it: &Item, base: u64, ms: &Members) {
    let m = b.group(parent, label, it.at, it.data.end() - it.at);
    b.set_value(m, Value::Size(it.size));
    let h = b.group(m, "header", it.at, it.data.offset - it.at);
    let what = format!("member \"{}\"", it.name);
    header::fields(b, h, it.at, BIG_AR, &it.name, &what, (base, AR));
    let name_at = it.at + AR;
    if it.namlen > 0 {
        b.leaf(h, "ar_name", name_at, it.namlen, Value::str(&it.name));
    }
    if it.namlen & 1 == 1 {
        let pad = b.slice(name_at + it.namlen, 1);
        b.leaf(h, "padding", name_at + it.namlen, 1, text::hex(pad, 1));
    }
    let width = FMAG.len() as u64;
    let fmag = it.data.offset - width;
    let t = b.slice(fmag, width);
    if t == FMAG {
        b.leaf(h, "ar_fmag", fmag, width, Value::str_bytes(t));
    } else {
        b.leaf(
            h,
            "ar_fmag",
            fmag,
            width,
            Value::text(format!("\"{}\" (bad)", t.escape_ascii())),
        );
        b.error(
            fmag,
            width,
            format!("{what}: the header does not end in \"`\\n\""),
        );
    }
    if it.data.is_empty() {
        return;
    }
    let d = b.group(m, "data", it.data.offset, it.data.len);
    let ms = ms.clone();
    match it.kind {
        Kind::File => match b.nested(d, it.data) {
            Some(f) => b.set_value(d, f.name()),
            None => {
                let v = text::hex(b.bytes(it.data), 16);
                b.set_value(d, v);
            }
        },
        Kind::MemberTable => member_table(b, d, it.data, base, &ms),
        Kind::Symbols | Kind::Symbols64 => symtab(b, d, it.data, 8, base, ms),
    }
}

/// The member table: the member count, each member's offset, in ASCII
/// digits of 20 bytes, then the names.
fn member_table(b: &mut Builder<'_>, d: NodeId, at: Span, base: u64, ms: &Members) {
    let Some(n) = b
        .read_bytes(at.offset, NUM)
        .and_then(|x| decimal(&ascii(x)))
    else {
        b.error(
            at.offset,
            NUM.min(at.len),
            "member table: the count is not a decimal number",
        );
        return;
    };
    b.set_value(d, format!("member table, {n} members"));
    b.leaf(d, "count", at.offset, NUM, Value::uint(n));
    let room = at.len.saturating_sub(NUM) / NUM;
    if n > room {
        b.error(
            at.offset,
            NUM,
            format!("member table: {n} offsets do not fit in {} bytes", at.len),
        );
    }
    let n = n.min(room);
    let names = at.skip(NUM + n * NUM);
    let (starts, used) = name_starts(b.bytes(names), n);
    let starts = Arc::new(starts);
    let ms = ms.clone();
    b.array(
        d,
        "offsets",
        at.offset + NUM,
        n,
        NUM,
        Arc::new(move |b, p, i, o| {
            let name = name_of(b, &starts, i, names);
            let label = format!("[{i}] {name}");
            match b.read_bytes(o, NUM).and_then(|x| decimal(&ascii(x))) {
                Some(v) => {
                    let entry = b.span(o, NUM);
                    symbol_entry(b, p, label, entry, v, 0, base, &ms);
                }
                None => {
                    b.leaf(p, &label, o, NUM, Value::text(ascii(b.slice(o, NUM))));
                    b.error(
                        o,
                        NUM,
                        format!("member table: offset {i} is not a decimal number"),
                    );
                }
            }
        }),
    );
    names_and_padding(b, d, names, used as u64);
}
