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

/// One of the three magics, then nothing (an empty archive) or a header,
/// whose first byte (of a member's name, or of the big archive's first
/// offset) is never NUL: the magic as a C string, which the tools that
/// write archives keep in their `.rodata`, is not an archive.
pub fn detect(d: &[u8]) -> bool {
    [MAGIC, THIN, big::MAGIC]
        .into_iter()
        .find(|m| d.starts_with(m))
        .is_some_and(|m| d.get(m.len()) != Some(&0))
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
    /// Header, data and padding, cut to the archive.
    at: Span,
    name: String,
    kind: Kind,
    size: u64,
    /// Its data as stored here (none for a thin archive's file).
    data: Span,
    /// A BSD name's length, at the start of the data.
    bsd_name_len: u64,
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let width = MAGIC.len() as u64;
    if b.slice(at.offset, width) == big::MAGIC {
        big::parse(b, parent, at);
        return;
    }
    let thin = b.slice(at.offset, width) == THIN;
    let magic = if thin {
        Value::text("\"!<thin>\\n\" (thin archive)")
    } else {
        Value::str("!<arch>\n")
    };
    b.leaf(parent, "magic", at.offset, width, magic);
    let entries = scan(b, parent, at.skip(width), thin);
    let members: Members = Arc::new(
        entries
            .iter()
            .map(|e| Member {
                at: e.at,
                name: e.name.clone(),
            })
            .collect(),
    );
    // Where the second linker member's offsets are, and how many: the
    // EC symbol table's indices count into them.
    let linker2 = entries
        .iter()
        .find(|e| e.kind == Kind::Linker2)
        .and_then(|e| coff::linker2_offsets(b, e.data));
    for (i, e) in entries.iter().enumerate() {
        member(b, parent, i, e, (thin, linker2), at.offset, &members);
    }
}

/// Reads the member headers in `at`: names resolved, sizes checked; the
/// problems of the headers reported here.
fn scan(b: &mut Builder<'_>, parent: NodeId, at: Span, thin: bool) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    // The long name table, once seen.
    let mut longnames: Option<Span> = None;
    let (mut pos, end) = (at.offset, at.end());
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
                (Some(k), Some(table)) if k < table.len => {
                    let rest = table.skip(k);
                    let s = b.bytes(rest);
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
            longnames = Some(b.span(data, dlen));
        }
        let padded = dlen + (dlen & 1);
        let total = (HDR + padded).min(end - pos);
        out.push(Entry {
            at: b.span(pos, total),
            name,
            kind,
            size,
            data: b.span(data, dlen),
            bsd_name_len,
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
    let m = b.group(parent, format!("[{i}] {}", e.name), e.at.offset, e.at.len);
    let h = b.group(m, "header", e.at.offset, HDR);
    let what = format!("member \"{}\"", e.name);
    header::fields(b, h, e.at.offset, header::AR, &e.name, &what, (base, HDR));
    let content = e.data.skip(e.bsd_name_len);
    if e.bsd_name_len > 0 {
        b.leaf(
            m,
            "name",
            e.data.offset,
            e.bsd_name_len,
            Value::str(&e.name),
        );
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
    if !content.is_empty() {
        let d = b.group(m, "data", content.offset, content.len);
        let ms = members.clone();
        match e.kind {
            Kind::Symbols => symtab(b, d, content, 4, base, ms),
            Kind::Symbols64 => symtab(b, d, content, 8, base, ms),
            Kind::Linker2 => coff::second_linker(b, d, content, base, ms),
            Kind::EcSymbols => coff::ec_symbols(b, d, content, linker2, base, ms),
            Kind::LongNames => {
                b.set_value(d, "long name table");
                long_names(b, d, content);
            }
            Kind::SymDef { wide } => bsd_symdef(b, d, content, wide, base, ms),
            Kind::File => file(b, d, content),
        }
    }
    let dend = e.data.end();
    if e.at.len > HDR + e.data.len && dend < e.at.end() {
        let pad = b.slice(dend, 1);
        b.leaf(m, "padding", dend, 1, text::hex(pad, 1));
    }
}

/// A member that is a file: a format found in it, an MSVC short import
/// member, a COFF object, or bytes.
fn file(b: &mut Builder<'_>, d: NodeId, at: Span) {
    if coff::is_import(b, at) {
        coff::import(b, d, at);
        return;
    }
    if let Some(f) = b.nested(d, at) {
        b.set_value(d, f.name());
        return;
    }
    match coff::object_machine(b, at) {
        Some(m) => b.set_value(d, format!("COFF object, {m}")),
        None => {
            let v = text::hex(b.bytes(at), 16);
            b.set_value(d, v);
        }
    }
}

fn long_names(b: &mut Builder<'_>, d: NodeId, at: Span) {
    let bytes = b.bytes(at);
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
        let off = at.offset + pos as u64;
        if !shown.is_empty() {
            b.leaf(
                d,
                format!("[{pos}]"),
                off,
                n as u64,
                Value::str_bytes(shown),
            );
        } else if s == b"\n" && pos + n == bytes.len() {
            // GNU ar and llvm-ar pad the table to an even size with a
            // newline, counted in its size.
            b.leaf(d, "padding", off, 1, text::hex(s, 1));
        }
        pos += n;
    }
}

/// The BSD `__.SYMDEF` table: a byte count of ranlib entries (string
/// index, member offset), the entries, a byte count of strings, the strings.
fn bsd_symdef(b: &mut Builder<'_>, d: NodeId, at: Span, wide: bool, base: u64, ms: Members) {
    let e = Endian::Little;
    let w: u64 = if wide { 8 } else { 4 };
    let rd = move |b: &Builder<'_>, o: u64| read_uint(b, o, w, e);
    let Some(bytes) = rd(b, at.offset) else {
        return;
    };
    b.set_value(d, "BSD symbol table");
    b.leaf(
        d,
        "ranlib size",
        at.offset,
        w,
        Value::uint(bytes).with_width(w as u8),
    );
    let ent = 2 * w;
    let room = at.len.saturating_sub(w);
    if bytes > room {
        b.error(
            at.offset,
            w,
            format!("__.SYMDEF: {bytes} bytes of entries do not fit"),
        );
        return;
    }
    let strx_base = at.offset + w + bytes + w;
    b.array(
        d,
        "ranlib",
        at.offset + w,
        bytes / ent,
        ent,
        Arc::new(move |b, p, i, o| {
            let (Some(sx), Some(mo)) = (rd(b, o), rd(b, o + w)) else {
                return;
            };
            let name = b
                .read_cstr(strx_base.saturating_add(sx), at.end())
                .map(|(s, _)| text::from_bytes(s))
                .unwrap_or_default();
            let entry = b.span(o, ent);
            symbol_entry(b, p, format!("[{i}] {name}"), entry, mo, w as u8, base, &ms);
        }),
    );
    let so = at.offset + w + bytes;
    if let Some(ssize) = rd(b, so) {
        b.leaf(
            d,
            "strings size",
            so,
            w,
            Value::uint(ssize).with_width(w as u8),
        );
        let sl = ssize.min(at.end().saturating_sub(so + w));
        if sl > 0 {
            let names = b.group(d, "strings", so + w, sl);
            crate::formats::elf::strings_node(b, names, b.span(so + w, sl));
        }
    }
}
