//! Unix `ar` archives (`!<arch>\n`, and thin archives `!<thin>\n`): each
//! member's 60-byte header and its data, with GNU (`//` table, `/N`) and BSD
//! (`#1/N`) long names, the symbol tables (`/`, `/SYM64/`, `__.SYMDEF`),
//! and the formats found in the members opened in place.

use std::sync::Arc;

use crate::model::{read_uint, text, Builder, Endian, Fields, NodeId, Radix, Value};

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(b"!<arch>\n") || d.starts_with(b"!<thin>\n")
}

const HDR: u64 = 60;
/// More members than this are not shown.
const MAX_MEMBERS: u64 = 1_000_000;

/// A header's fields: (name, offset, size).
/// An ASCII header field as written, without its padding spaces.
fn ascii(d: &[u8]) -> String {
    text::from_bytes(d).trim_end().to_string()
}

fn decimal(s: &str) -> Option<u64> {
    if s.is_empty() {
        return Some(0);
    }
    if !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn mode_str(m: u64) -> String {
    let mut s = String::with_capacity(9);
    for shift in [6u32, 3, 0] {
        let p = (m >> shift) & 7;
        s.push(if p & 4 != 0 { 'r' } else { '-' });
        s.push(if p & 2 != 0 { 'w' } else { '-' });
        s.push(if p & 1 != 0 { 'x' } else { '-' });
    }
    s
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    let thin = b.slice(off, 8) == b"!<thin>\n";
    let magic = if thin {
        Value::text("\"!<thin>\\n\" (thin archive)")
    } else {
        Value::str("!<arch>\n")
    };
    b.leaf(parent, "magic", off, 8, magic);
    let end = off.saturating_add(len);
    let mut pos = off + 8;
    let mut i = 0u64;
    // The GNU long name table, once seen: its absolute range.
    let mut longnames: Option<(u64, u64)> = None;
    while pos < end {
        if i >= MAX_MEMBERS {
            b.info(
                pos,
                end - pos,
                format!("more than {MAX_MEMBERS} members; the rest are not shown"),
            );
            break;
        }
        let rest = end - pos;
        if rest < HDR {
            if b.slice(pos, rest).iter().all(|&c| c == b'\n') {
                b.leaf(parent, "padding", pos, rest, Value::Size(rest));
            } else {
                b.error(
                    pos,
                    rest,
                    format!("member [{i}]: a header needs 60 bytes, {rest} remain"),
                );
            }
            break;
        }
        let raw_name = ascii(b.slice(pos, 16));
        let size_s = ascii(b.slice(pos + 48, 10));
        let Some(size) = decimal(&size_s) else {
            b.error(
                pos + 48,
                10,
                format!("member [{i}]: ar_size \"{size_s}\" is not a decimal number"),
            );
            b.group(parent, format!("[{i}] (bad header)"), pos, HDR);
            break;
        };
        let data = pos + HDR;
        let avail = end - data;
        let special = raw_name == "/"
            || raw_name == "//"
            || raw_name == "/SYM64/"
            || raw_name.starts_with("__.SYMDEF");
        // Thin archives keep only the tables in the archive.
        let stored = if thin && !special { 0 } else { size };
        let dlen = stored.min(avail);
        if stored > avail {
            b.error(
                data,
                avail,
                format!("member [{i}] \"{raw_name}\": ar_size {size} runs past the end of the archive ({avail} bytes remain)"),
            );
        }
        // Resolve the name.
        let mut name = raw_name.clone();
        let mut bsd_name_len = 0u64;
        if let Some(n) = raw_name.strip_prefix("#1/") {
            match decimal(n) {
                Some(k) if k <= dlen => {
                    bsd_name_len = k;
                    let s = b.slice(data, k);
                    let e = memchr::memchr(0, s).unwrap_or(s.len());
                    name = text::from_bytes(s.get(..e).unwrap_or(&[]));
                }
                _ => b.error(
                    pos,
                    16,
                    format!("member [{i}]: BSD long name length \"{n}\" does not fit the member"),
                ),
            }
        } else if !special && raw_name.starts_with('/') && raw_name.len() > 1 {
            let idx = raw_name.get(1..).and_then(decimal);
            match (idx, longnames) {
                (Some(k), Some((la, ll))) if k < ll => {
                    let s = b.slice(la + k, ll - k);
                    let e = memchr::memmem::find(s, b"/\n")
                        .or_else(|| memchr::memchr(b'\n', s))
                        .unwrap_or(s.len());
                    name = text::from_bytes(s.get(..e).unwrap_or(&[]));
                }
                _ => b.error(
                    pos,
                    16,
                    format!("member [{i}]: long name \"{raw_name}\" is not in the long name table"),
                ),
            }
        } else if !special {
            if let Some(n) = raw_name.strip_suffix('/') {
                name = n.to_string();
            }
        }
        let padded = dlen + (dlen & 1);
        let total = (HDR + padded).min(end - pos);
        let label = format!("[{i}] {name}");
        let m = b.group(parent, label, pos, total);
        header(b, m, pos, &name, size);
        let (content, clen) = (data + bsd_name_len, dlen - bsd_name_len);
        if bsd_name_len > 0 {
            b.leaf(m, "name", data, bsd_name_len, Value::str(&name));
        }
        if thin && !special {
            let v = Value::with(size, Radix::Dec, " bytes, stored outside the thin archive");
            b.set_value(m, v);
        } else if let Some(d) = super::intel_ip::describe(&name) {
            // An ocloc fat binary member, named by pointer size and IP
            // version.
            b.set_value(m, Value::with(size, Radix::Dec, format!(" bytes, {d}")));
        } else {
            b.set_value(m, Value::Size(size));
        }
        if clen > 0 {
            let d = b.group(m, "data", content, clen);
            match raw_name.as_str() {
                "/" => symtab(b, d, content, clen, 4, off),
                "/SYM64/" => symtab(b, d, content, clen, 8, off),
                "//" => {
                    longnames = Some((content, clen));
                    b.set_value(d, "long name table");
                    long_names(b, d, content, clen);
                }
                _ if name.starts_with("__.SYMDEF") => {
                    bsd_symdef(b, d, content, clen, name.contains("64"), off)
                }
                _ => match b.nested(d, content, clen) {
                    Some(f) => b.set_value(d, f.name()),
                    None => {
                        let v = text::hex(b.slice(content, clen), 16);
                        b.set_value(d, v);
                    }
                },
            }
        }
        if padded > dlen && data + dlen < end {
            let pad = b.slice(data + dlen, 1);
            b.leaf(m, "padding", data + dlen, 1, text::hex(pad, 1));
        }
        pos = pos.saturating_add(HDR).saturating_add(padded);
        i += 1;
    }
}

fn header(b: &mut Builder<'_>, m: NodeId, pos: u64, name: &str, size: u64) {
    let h = b.group(m, "header", pos, HDR);
    let mut f = Fields::new(b, h, pos, Endian::Little);
    f.span("ar_name", 16, |d| {
        let t = ascii(d);
        if t == name || t.strip_suffix('/') == Some(name) {
            Value::str(&t)
        } else {
            Value::text(format!("\"{t}\" ({name})"))
        }
    });
    f.span("ar_date", 12, |d| {
        let t = ascii(d);
        match decimal(&t).and_then(|s| i64::try_from(s).ok()) {
            Some(s) => Value::Date(s),
            None => Value::str(&t),
        }
    });
    for id in ["ar_uid", "ar_gid"] {
        f.span(id, 6, |d| {
            let t = ascii(d);
            match decimal(&t).filter(|_| !t.is_empty()) {
                Some(v) => Value::dec(v),
                None => Value::text(&t),
            }
        });
    }
    // Octal in the file, shown as written.
    f.span("ar_mode", 8, |d| {
        let t = ascii(d);
        match u64::from_str_radix(&t, 8) {
            Ok(mo) => Value::text(format!("{t} ({})", mode_str(mo))),
            Err(_) => Value::str(&t),
        }
    });
    f.span("ar_size", 10, |_| Value::uint(size));
    let fmag = f.span("ar_fmag", 2, |d| {
        if d == b"`\n" {
            Value::str("`\n")
        } else {
            Value::text(format!("\"{}\" (bad)", ascii(d)))
        }
    });
    if fmag.is_some_and(|d| d != b"`\n") {
        b.error(
            pos + 58,
            2,
            format!("member \"{name}\": ar_fmag is not \"`\\n\""),
        );
    }
}

/// The GNU symbol table: a big-endian count, that many member offsets, then
/// the names.
fn symtab(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64, w: u64, base: u64) {
    let e = crate::model::Endian::Big;
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
    // Where each name starts, so that each offset shows its symbol.
    let s = a + w + n * w;
    let names_bytes = b.slice(s, (a + l).saturating_sub(s));
    let mut starts = Vec::with_capacity(n.min(names_bytes.len() as u64) as usize);
    let mut p = 0usize;
    while (starts.len() as u64) < n && p < names_bytes.len() {
        starts.push(p);
        let rest = names_bytes.get(p..).unwrap_or(&[]);
        p += memchr::memchr(0, rest).map_or(rest.len(), |k| k + 1);
    }
    let starts = Arc::new(starts);
    let names_end = a + l;
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
            let name = usize::try_from(i)
                .ok()
                .and_then(|k| starts.get(k))
                .and_then(|&st| b.read_cstr(s + st as u64, names_end))
                .map(|(x, _)| text::from_bytes(x))
                .unwrap_or_default();
            let shown = Value::with(v, Radix::Hex, " (member header)").with_width(w as u8);
            let id = b.leaf(p, format!("[{i}] {name}"), o, w, shown);
            // Offsets count from the archive's start.
            b.link(id, base.saturating_add(v), HDR);
        }),
    );
    // The names: as many as the count says; what follows them (the NUL
    // that pads the member to an even size) is not one more name.
    let s = a + w + n * w;
    let names_len = (p as u64).min((a + l).saturating_sub(s));
    if names_len > 0 {
        let names = b.group(d, "names", s, names_len);
        crate::formats::elf::strings_node(b, names, s, names_len);
    }
    let rest = (a + l).saturating_sub(s + names_len);
    if rest > 0 {
        let pad = b.slice(s + names_len, rest);
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
        b.leaf(d, "padding", s + names_len, rest, v);
    }
}

fn long_names(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64) {
    let bytes = b.slice(a, l);
    let mut pos = 0usize;
    let mut k = 0;
    while pos < bytes.len() && k < 1_000_000 {
        let rest = bytes.get(pos..).unwrap_or(&[]);
        let n = memchr::memchr(b'\n', rest).map_or(rest.len(), |x| x + 1);
        let s = rest.get(..n).unwrap_or(&[]);
        let shown = s
            .strip_suffix(b"/\n")
            .or_else(|| s.strip_suffix(b"\n"))
            .unwrap_or(s);
        if !shown.is_empty() {
            b.leaf(
                d,
                format!("[{pos}]"),
                a + pos as u64,
                n as u64,
                Value::str_bytes(shown),
            );
        }
        pos += n.max(1);
        k += 1;
    }
}

/// The BSD `__.SYMDEF` table: a byte count of ranlib entries (string
/// index, member offset), the entries, a byte count of strings, the strings.
fn bsd_symdef(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64, wide: bool, base: u64) {
    let e = crate::model::Endian::Little;
    let w: u64 = if wide { 8 } else { 4 };
    let rd = move |b: &Builder<'_>, o: u64| {
        if wide {
            b.read_u64(o, e)
        } else {
            b.read_u32(o, e).map(u64::from)
        }
    };
    let Some(bytes) = rd(b, a) else {
        return;
    };
    b.set_value(d, "BSD symbol table");
    b.leaf(
        d,
        "ranlib size",
        a,
        w,
        Value::uint(bytes).with_width(w as u8),
    );
    let ent = 2 * w;
    let room = l.saturating_sub(w);
    if bytes > room {
        b.error(
            a,
            w,
            format!("__.SYMDEF: {bytes} bytes of entries do not fit"),
        );
        return;
    }
    let strx_base = a + w + bytes + w;
    b.array(
        d,
        "ranlib",
        a + w,
        bytes / ent,
        ent,
        Arc::new(move |b, p, i, o| {
            let (Some(sx), Some(mo)) = (rd(b, o), rd(b, o + w)) else {
                return;
            };
            let name = b
                .read_cstr(strx_base.saturating_add(sx), a + l)
                .map(|(s, _)| text::from_bytes(s));
            let shown = Value::with(mo, Radix::Hex, " (member header)");
            let id = b.leaf(
                p,
                format!("[{i}] {}", name.unwrap_or_default()),
                o,
                ent,
                shown,
            );
            b.link(id, base.saturating_add(mo), HDR);
        }),
    );
    let so = a + w + bytes;
    if let Some(ssize) = rd(b, so) {
        b.leaf(
            d,
            "strings size",
            so,
            w,
            Value::uint(ssize).with_width(w as u8),
        );
        let sl = ssize.min((a + l).saturating_sub(so + w));
        if sl > 0 {
            let names = b.group(d, "strings", so + w, sl);
            crate::formats::elf::strings_node(b, names, so + w, sl);
        }
    }
}
