//! Xilinx `.bit` bitstream files, standalone and as an XCLBIN's BITSTREAM
//! section: the header's fields (all big-endian) — a 2-byte length and the
//! 9 bytes `0F F0 0F F0 0F F0 0F F0 00`, a 2-byte length of 1, then
//! key-length-value fields: `a` design name, `b` part, `c` date, `d` time
//! (each a 2-byte length and a NUL-terminated string), and `e` (a 4-byte
//! length) with the configuration data after it. The data is shown as the
//! bytes before the sync word (padding and the bus-width pattern), the
//! sync word `AA 99 55 66`, and the configuration packets as one payload.

use crate::model::record::record;
use crate::model::{read_uint, text, Builder, Endian, Fields, NodeId, Radix, Span, Value};

const BE: Endian = Endian::Big;

/// The bytes a `.bit` file starts with: the first field's length (9), its
/// bytes, and the second field's length (1).
const START: [u8; 13] = [
    0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x00, 0x00, 0x01,
];

record! {
    /// What every `.bit` file starts with: the first field's length and
    /// bytes, and the second field's length.
    mod head: Head (BE) {
        header_length: u16 = "header_length", Show::Auto,
        header: [u8; 9] = "header", Show::Bytes,
        key_length: u16 = "key_length", Show::Auto,
    }
}

/// A field's key, one byte.
const KEY: u64 = 1;
/// The length after the key of field `e` (the data), and of the others.
const DATA_LENGTH: u64 = 4;
const LENGTH: u64 = 2;

/// The configuration sync word.
const SYNC: [u8; 4] = [0xaa, 0x99, 0x55, 0x66];
/// How far into the data the sync word is looked for.
const SYNC_WINDOW: u64 = 4096;
/// Fields beyond this many are not read.
const MAX_FIELDS: u32 = 32;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(&START)
}

/// What a field key means.
fn key_name(k: u8) -> Option<&'static str> {
    Some(match k {
        b'a' => "design_name",
        b'b' => "part",
        b'c' => "date",
        b'd' => "time",
        b'e' => "data",
        _ => return None,
    })
}

/// Parses the `.bit` file in `at` under `parent`.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let end = at.end().min(b.file_len());
    Head::show(&mut Fields::new(b, parent, at.offset, BE));
    let mut pos = at.offset + head::SIZE;
    let mut design = None;
    let mut part = None;
    let mut fields = 0u32;
    loop {
        if pos >= end {
            b.error(
                at.offset,
                end - at.offset,
                "the .bit header ends before its 'e' field (the configuration data)",
            );
            return;
        }
        fields += 1;
        if fields > MAX_FIELDS {
            b.error(
                pos,
                end - pos,
                format!("more than {MAX_FIELDS} .bit header fields; the rest are not read"),
            );
            let bytes = b.slice(pos, end - pos);
            b.leaf(parent, "undecoded", pos, end - pos, text::hex(bytes, 16));
            return;
        }
        let key = b.read_u8(pos).unwrap_or(0);
        let wide = key == b'e';
        let lsize = if wide { DATA_LENGTH } else { LENGTH };
        let name = key_name(key)
            .map(str::to_string)
            .unwrap_or_else(|| format!("field_{}", text::from_bytes(&[key])));
        if pos + KEY + lsize > end {
            b.error(
                pos,
                end - pos,
                format!("the .bit field '{}' is cut short", char::from(key)),
            );
            let bytes = b.slice(pos, end - pos);
            b.leaf(parent, "undecoded", pos, end - pos, text::hex(bytes, 16));
            return;
        }
        let flen = read_uint(b, pos + KEY, lsize, BE).unwrap_or(0);
        let vstart = pos + KEY + lsize;
        let room = end - vstart;
        let vlen = flen.min(room);
        if flen > room {
            b.error(
                pos + KEY,
                lsize,
                format!(
                    "the .bit field '{}' gives {flen} bytes, {room} remain{}",
                    char::from(key),
                    if wide {
                        " (the section or file is shorter than the bitstream)"
                    } else {
                        ""
                    }
                ),
            );
        }
        if wide {
            let g = b.group(parent, "data", pos, KEY + lsize + vlen);
            let mut f = Fields::new(b, g, pos, BE);
            f.field("key", KEY, |_| Value::text("'e'"));
            f.field("length", lsize, |v| Value::with(v, Radix::Auto, " bytes"));
            data(b, g, b.span(vstart, vlen));
            let value = match (&design, &part) {
                (Some(d), Some(p)) => format!("{vlen} bytes for {p}, design {d}"),
                _ => format!("{vlen} bytes"),
            };
            b.set_value(g, Value::text(value));
            let after = vstart + vlen;
            if after < end {
                let bytes = b.slice(after, end - after);
                b.leaf(parent, "trailing", after, end - after, text::hex(bytes, 16));
                b.warn(
                    after,
                    end - after,
                    format!(
                        "{} bytes after the bitstream: the header and its 'e' length make {} bytes, the data holds {}",
                        end - after,
                        after - at.offset,
                        end - at.offset
                    ),
                );
            }
            return;
        }
        let g = b.group(parent, &name, pos, KEY + lsize + vlen);
        let mut f = Fields::new(b, g, pos, BE);
        f.field("key", KEY, |v| {
            Value::text(format!("'{}'", text::from_bytes(&[v as u8])))
        });
        f.uint("length", lsize);
        let raw = b.slice(vstart, vlen);
        let nul = raw.iter().position(|&c| c == 0);
        let s = text::from_bytes(raw.get(..nul.unwrap_or(raw.len())).unwrap_or(&[]));
        b.leaf(g, "value", vstart, vlen, Value::str(&s));
        b.set_value(g, Value::str(&s));
        if nul.is_none() && vlen > 0 {
            b.warn(
                vstart,
                vlen,
                format!("the .bit field '{}' has no NUL", char::from(key)),
            );
        }
        if key_name(key).is_none() {
            b.info(
                pos,
                KEY,
                format!("unknown .bit header field key 0x{key:02x}"),
            );
        }
        match key {
            b'a' => design = Some(s),
            b'b' => part = Some(s),
            _ => {}
        }
        pos = vstart + vlen;
    }
}

/// The configuration data in `at`: what precedes the sync word, the sync
/// word, and the packets after it.
fn data(b: &mut Builder<'_>, g: NodeId, at: Span) {
    if at.len == 0 {
        return;
    }
    let window = b.slice(at.offset, at.len.min(SYNC_WINDOW));
    let Some(sync) = memchr::memmem::find(window, &SYNC).map(|p| p as u64) else {
        let bytes = b.bytes(at);
        b.leaf(g, "configuration", at.offset, at.len, text::hex(bytes, 16));
        b.info(
            at.offset,
            at.len.min(SYNC_WINDOW),
            format!("no sync word (AA 99 55 66) in the first {SYNC_WINDOW} bytes of the bitstream"),
        );
        return;
    };
    if sync > 0 {
        let bytes = b.slice(at.offset, sync);
        b.leaf(g, "preamble", at.offset, sync, text::hex(bytes, 16));
    }
    let width = SYNC.len() as u64;
    b.leaf(
        g,
        "sync_word",
        at.offset + sync,
        width,
        Value::text("0xaa995566"),
    );
    let rest = at.len - sync - width;
    if rest > 0 {
        b.leaf(
            g,
            "configuration",
            at.offset + sync + width,
            rest,
            Value::with(rest, Radix::Dec, " bytes of configuration packets"),
        );
    }
}
