//! Archives: Unix `ar` (`!<arch>\n`) in its GNU, BSD/Darwin and MSVC
//! flavours, GNU thin archives (`!<thin>\n`) and AIX big archives
//! (`<bigaf>\n`, `big.rs`). Each member's header and data, with GNU (`//`
//! table, `/N`) and BSD (`#1/N`) long names; the symbol tables (GNU `/`
//! and `/SYM64/`, BSD `__.SYMDEF`, `__.SYMDEF SORTED`, `__.SYMDEF_64`,
//! MSVC's first and second linker members and ARM64EC's `/<ECSYMBOLS>/`,
//! `coff.rs`), each symbol naming
//! and linking to its member; MSVC short import members decoded; the
//! formats found in the other members opened in place. A thin archive's
//! members are named, not read: each records the path of the file that
//! holds it.

mod big;
mod coff;
mod header;
mod tables;

use std::sync::Arc;

use crate::model::{read_uint, text, Builder, Endian, Fact, NodeId, Radix, Span, Value};

use header::{ascii, decimal};
use tables::{symbol_entry, symtab, Member, Members, MAX_MEMBERS};

/// The magic of a Unix archive, and of a GNU thin one.
const MAGIC: &[u8] = b"!<arch>\n";
const THIN: &[u8] = b"!<thin>\n";

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC) || d.starts_with(THIN) || d.starts_with(big::MAGIC)
}

const HDR: u64 = header::len(header::AR);

/// What a member of a Unix archive is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The first `/`: the GNU symbol table, MSVC's first linker member.
    Symbols,
    /// A `/` after the first: MSVC's second linker member.
    Linker2,
    /// `/<ECSYMBOLS>/`: MSVC's ARM64EC symbol table.
    EcSymbols,
    /// `/SYM64/`: the GNU symbol table with 64-bit offsets.
    Symbols64,
    /// `//`: the long name table.
    LongNames,
    /// `__.SYMDEF…`: the BSD symbol table (64-bit for `__.SYMDEF_64`).
    SymDef { wide: bool },
    /// A file.
    File,
}

/// One member's header as read: where it is and what it holds.
struct Entry {
    pos: u64,
    name: String,
    kind: Kind,
    size: u64,
    /// Its data as stored here (none for a thin archive's file).
    data: u64,
    dlen: u64,
    /// A BSD name's length, at the start of the data.
    bsd_name_len: u64,
    /// Header, data and padding, cut to the archive.
    total: u64,
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let (off, len) = (at.offset, at.len);
    let width = MAGIC.len() as u64;
    if b.slice(off, width) == big::MAGIC {
        big::parse(b, parent, off, len);
        return;
    }
    let thin = b.slice(off, width) == THIN;
    let magic = if thin {
        Value::text("\"!<thin>\\n\" (thin archive)")
    } else {
        Value::str("!<arch>\n")
    };
    b.leaf(parent, "magic", off, width, magic);
    let end = off.saturating_add(len);
    let entries = scan(b, parent, off + width, end, thin);
    let members: Members = Arc::new(
        entries
            .iter()
            .map(|e| Member {
                at: e.pos,
                len: e.total,
                name: e.name.clone(),
            })
            .collect(),
    );
    // Where the second linker member's offsets are, and how many: the
    // EC symbol table's indices count into them.
    let linker2 = entries
        .iter()
        .find(|e| e.kind == Kind::Linker2)
        .and_then(|e| coff::linker2_offsets(b, e.data, e.dlen));
    for (i, e) in entries.iter().enumerate() {
        member(b, parent, i, e, (thin, linker2), off, &members);
    }
}

/// Reads the member headers from `pos` to `end`: names resolved, sizes
/// checked; the problems of the headers reported here.
fn scan(b: &mut Builder<'_>, parent: NodeId, mut pos: u64, end: u64, thin: bool) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    // The long name table, once seen: its range.
    let mut longnames: Option<(u64, u64)> = None;
    let mut i = 0u64;
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
                    format!("member [{i}]: a header needs {HDR} bytes, {rest} remain"),
                );
            }
            break;
        }
        let raw_name = ascii(b.slice(pos, 16));
        let Some(size) = header::number(b, header::AR, pos, "ar_size") else {
            let (o, l) = header::at(header::AR, "ar_size").unwrap_or_default();
            let s = ascii(b.slice(pos + o, l));
            b.error(
                pos + o,
                l,
                format!("member [{i}]: ar_size \"{s}\" is not a decimal number"),
            );
            b.group(parent, format!("[{i}] (bad header)"), pos, HDR);
            break;
        };
        let kind = match raw_name.as_str() {
            "/" if out.iter().any(|e| e.kind == Kind::Symbols) => Kind::Linker2,
            "/" => Kind::Symbols,
            "/SYM64/" => Kind::Symbols64,
            "//" => Kind::LongNames,
            "/<ECSYMBOLS>/" => Kind::EcSymbols,
            _ => Kind::File,
        };
        let data = pos + HDR;
        let avail = end - data;
        // Thin archives keep only the tables in the archive.
        let stored = if thin && kind == Kind::File { 0 } else { size };
        let dlen = stored.min(avail);
        if stored > avail {
            b.error(
                data,
                avail,
                format!("member [{i}] \"{raw_name}\": ar_size {size} runs past the end of the archive ({avail} bytes remain)"),
            );
        }
        let mut name = raw_name.clone();
        let mut bsd_name_len = 0u64;
        if let Some(n) = raw_name.strip_prefix("#1/") {
            match decimal(n) {
                Some(k) if k <= dlen => {
                    bsd_name_len = k;
                    name = text::fixed(b.slice(data, k));
                }
                _ => b.error(
                    pos,
                    16,
                    format!("member [{i}]: BSD long name length \"{n}\" does not fit the member"),
                ),
            }
        } else if kind == Kind::File && raw_name.starts_with('/') && raw_name.len() > 1 {
            let idx = raw_name.get(1..).and_then(decimal);
            match (idx, longnames) {
                (Some(k), Some((la, ll))) if k < ll => {
                    let s = b.slice(la + k, ll - k);
                    let e = memchr::memmem::find(s, b"/\n")
                        .or_else(|| memchr::memchr2(b'\n', 0, s))
                        .unwrap_or(s.len());
                    name = text::from_bytes(s.get(..e).unwrap_or(&[]));
                }
                _ => b.error(
                    pos,
                    16,
                    format!("member [{i}]: long name \"{raw_name}\" is not in the long name table"),
                ),
            }
        } else if kind == Kind::File {
            if let Some(n) = raw_name.strip_suffix('/') {
                name = n.to_string();
            }
        }
        let kind = match kind {
            Kind::File if name.starts_with("__.SYMDEF") => Kind::SymDef {
                wide: name.contains("64"),
            },
            k => k,
        };
        if kind == Kind::LongNames {
            longnames = Some((data, dlen));
        }
        let padded = dlen + (dlen & 1);
        let total = (HDR + padded).min(end - pos);
        out.push(Entry {
            pos,
            name,
            kind,
            size,
            data,
            dlen,
            bsd_name_len,
            total,
        });
        pos = pos.saturating_add(HDR).saturating_add(padded);
        i += 1;
    }
    out
}

/// The nodes of member `i`: its header, its name, its data as its kind
/// says, its padding.
fn member(
    b: &mut Builder<'_>,
    parent: NodeId,
    i: usize,
    e: &Entry,
    (thin, linker2): (bool, Option<(u64, u64)>),
    base: u64,
    members: &Members,
) {
    let m = b.group(parent, format!("[{i}] {}", e.name), e.pos, e.total);
    let h = b.group(m, "header", e.pos, HDR);
    let what = format!("member \"{}\"", e.name);
    header::fields(b, h, e.pos, header::AR, &e.name, &what, (base, HDR));
    let (content, clen) = (e.data + e.bsd_name_len, e.dlen - e.bsd_name_len);
    if e.bsd_name_len > 0 {
        b.leaf(m, "name", e.data, e.bsd_name_len, Value::str(&e.name));
    }
    // The file's size: a BSD name is not part of it.
    let size = e.size.saturating_sub(e.bsd_name_len);
    let outside = thin && e.kind == Kind::File;
    if outside {
        let v = Value::with(
            size,
            Radix::Dec,
            format!(" bytes, stored outside the thin archive in {}", e.name),
        );
        b.set_value(m, v);
        b.fact(m, Fact::External(e.name.as_str().into()));
    } else if let Some(d) = super::intel_ip::describe(&e.name) {
        // An ocloc fat binary member, named by pointer size and IP
        // version.
        b.set_value(m, Value::with(size, Radix::Dec, format!(" bytes, {d}")));
    } else {
        b.set_value(m, Value::Size(size));
    }
    if clen > 0 {
        let d = b.group(m, "data", content, clen);
        let ms = members.clone();
        match e.kind {
            Kind::Symbols => symtab(b, d, content, clen, 4, base, ms),
            Kind::Symbols64 => symtab(b, d, content, clen, 8, base, ms),
            Kind::Linker2 => coff::second_linker(b, d, content, clen, base, ms),
            Kind::EcSymbols => coff::ec_symbols(b, d, content, clen, linker2, base, ms),
            Kind::LongNames => {
                b.set_value(d, "long name table");
                long_names(b, d, content, clen);
            }
            Kind::SymDef { wide } => bsd_symdef(b, d, content, clen, wide, base, ms),
            Kind::File => file(b, d, content, clen),
        }
    }
    let dend = e.data + e.dlen;
    if e.total > HDR + e.dlen && dend < e.pos + e.total {
        let pad = b.slice(dend, 1);
        b.leaf(m, "padding", dend, 1, text::hex(pad, 1));
    }
}

/// A member that is a file: a format found in it, an MSVC short import
/// member, a COFF object, or bytes.
fn file(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64) {
    if coff::is_import(b, a, l) {
        coff::import(b, d, a, l);
        return;
    }
    if let Some(f) = b.nested(d, b.span(a, l)) {
        b.set_value(d, f.name());
        return;
    }
    match coff::object_machine(b, a, l) {
        Some(m) => b.set_value(d, format!("COFF object, {m}")),
        None => {
            let v = text::hex(b.slice(a, l), 16);
            b.set_value(d, v);
        }
    }
}

fn long_names(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64) {
    let bytes = b.slice(a, l);
    let mut pos = 0usize;
    // GNU ends a name with "/\n", MSVC with a NUL.
    for s in bytes
        .split_inclusive(|&c| c == b'\n' || c == 0)
        .take(1_000_000)
    {
        let n = s.len();
        let shown = s
            .strip_suffix(b"/\n")
            .or_else(|| s.strip_suffix(b"\n"))
            .or_else(|| s.strip_suffix(b"\0"))
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
        pos += n;
    }
}

/// The BSD `__.SYMDEF` table: a byte count of ranlib entries (string
/// index, member offset), the entries, a byte count of strings, the strings.
fn bsd_symdef(b: &mut Builder<'_>, d: NodeId, a: u64, l: u64, wide: bool, base: u64, ms: Members) {
    let e = Endian::Little;
    let w: u64 = if wide { 8 } else { 4 };
    let rd = move |b: &Builder<'_>, o: u64| read_uint(b, o, w, e);
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
                .map(|(s, _)| text::from_bytes(s))
                .unwrap_or_default();
            symbol_entry(
                b,
                p,
                format!("[{i}] {name}"),
                (o, ent),
                mo,
                w as u8,
                base,
                &ms,
            );
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
