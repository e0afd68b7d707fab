//! The mirror data xclbinutil appends after the sections:
//! `XCLBIN_MIRROR_DATA_START`, a JSON copy of the header and of every
//! section header (with the payloads of the sections it can write back as
//! JSON), then `XCLBIN_MIRROR_DATA_END`. xclbinutil reads it back to
//! rebuild the file; the loader never looks at it. Each `section_header`
//! of the copy is checked against the section table it mirrors.

use crate::formats::json;
use crate::model::{text, Builder, NodeId, Span, Value};

use super::layout::{kind_name, section_at, SECTIONS, SECTION_HEADER};

pub(crate) const START: &[u8] = b"XCLBIN_MIRROR_DATA_START";
pub(crate) const END: &[u8] = b"XCLBIN_MIRROR_DATA_END";
/// How far past the last section the start marker is looked for.
const WINDOW: u64 = 4096;

/// What the section table says of section `i`: kind, name, offset, size.
struct Row {
    kind: u64,
    name: String,
    offset: u64,
    size: u64,
}

fn row(b: &Builder<'_>, off: u64, i: u64) -> Row {
    let h = section_at(b, off + SECTIONS + i * SECTION_HEADER);
    Row {
        kind: u64::from(h.kind),
        name: text::fixed(&h.name),
        offset: h.offset,
        size: h.size,
    }
}

/// A number as the mirror writes it: `0x…` in hex, else decimal.
fn number(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Looks for the mirror data in `xclbin` from `from` (after the last
/// section) and, if it is there, adds it under `parent` and checks it
/// against the `count` section headers.
pub(crate) fn parse(b: &mut Builder<'_>, parent: NodeId, xclbin: Span, from: u64, count: u64) {
    let stop = xclbin.end();
    let from = from.clamp(xclbin.offset, stop);
    // xclbinutil writes it right after the last section; a little room is
    // left for alignment, and no more is searched.
    let area = b.slice(from, (stop - from).min(WINDOW));
    let Some(s) = memchr::memmem::find(area, START) else {
        return;
    };
    let start = from + s as u64;
    let body = start + START.len() as u64;
    // JSON text holds no NUL: the end marker is before the first one.
    let after = b.slice(body, stop - body);
    let after = after
        .get(..memchr::memchr(0, after).unwrap_or(after.len()))
        .unwrap_or_default();
    let (json_end, end) = match memchr::memmem::find(after, END) {
        Some(e) => {
            let e = body + e as u64;
            (e, e + END.len() as u64)
        }
        None => {
            let e = body + after.len() as u64;
            b.warn(
                start,
                START.len() as u64,
                "XCLBIN_MIRROR_DATA_START without XCLBIN_MIRROR_DATA_END: the mirror data is taken to run to the first NUL or the end",
            );
            (e, e)
        }
    };
    let node = b.group(parent, "mirror data", start, end - start);
    b.leaf(
        node,
        "start marker",
        start,
        START.len() as u64,
        Value::str("XCLBIN_MIRROR_DATA_START"),
    );
    let doc = b.group(node, "json", body, json_end - body);
    if end > json_end {
        b.leaf(
            node,
            "end marker",
            json_end,
            END.len() as u64,
            Value::str("XCLBIN_MIRROR_DATA_END"),
        );
    }
    if !json::tree(b, doc, b.span(body, json_end - body)) {
        b.set_value(
            node,
            "xclbinutil's JSON copy of the header and sections (not well-formed)",
        );
        return;
    }
    let text = b.slice(body, json_end - body);
    let open = text
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(0);
    let Some(members) = json::object_members(text, open) else {
        return;
    };
    let at = |p: usize| body + p as u64;
    let headers: Vec<&json::Member> = members
        .iter()
        .filter(|m| m.key == "section_header" && m.is_object)
        .collect();
    b.set_value(
        node,
        format!(
            "xclbinutil's JSON copy of the header and {} section headers",
            headers.len()
        ),
    );
    if headers.len() as u64 != count {
        let (a, z) = headers
            .first()
            .map_or((open, open + b"{".len()), |m| (m.key_at, m.val_end));
        b.warn(
            at(a),
            (z - a) as u64,
            format!(
                "the mirror data lists {} section headers; the section table has {count}",
                headers.len()
            ),
        );
    }
    for (i, h) in headers.iter().enumerate() {
        let i = i as u64;
        if i >= count {
            break;
        }
        let Some(fields) = json::object_members(text, h.val_at) else {
            continue;
        };
        let want = row(b, xclbin.offset, i);
        let label = match kind_name(want.kind as u32) {
            Some(k) => format!("[{i}] {k}"),
            None => format!("[{i}] kind {}", want.kind),
        };
        for f in &fields {
            let (what, same, table) = match f.key.as_str() {
                "Kind" => (
                    "Kind",
                    number(&f.text) == Some(want.kind),
                    want.kind.to_string(),
                ),
                "Name" => ("Name", f.text == want.name, format!("\"{}\"", want.name)),
                "Offset" => (
                    "Offset",
                    number(&f.text) == Some(want.offset),
                    format!("0x{:x}", want.offset),
                ),
                "Size" => (
                    "Size",
                    number(&f.text) == Some(want.size),
                    format!("0x{:x}", want.size),
                ),
                _ => continue,
            };
            if !same {
                b.warn(
                    at(f.val_at),
                    (f.val_end - f.val_at) as u64,
                    format!(
                        "mirror data: section_header {i} has {what} {}, the section table's {label} has {table}",
                        text::clean(&f.text)
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn numbers_read_as_the_mirror_writes_them() {
        assert_eq!(number("0x380"), Some(0x380));
        assert_eq!(number("14"), Some(14));
        assert_eq!(number("0x"), None);
        assert_eq!(number("x"), None);
    }
}
