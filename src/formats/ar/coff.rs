//! What MSVC's import libraries (`lib.exe`, `llvm-lib`, `llvm-dlltool`)
//! add to a Unix archive: the second linker member (a little-endian
//! member count and offsets, then a symbol count, each symbol's 16-bit
//! member index and the names, sorted) and the short import members
//! (`IMPORT_OBJECT_HEADER`: `Sig1` 0, `Sig2` 0xFFFF, then the machine,
//! time stamp, size of data, ordinal or hint and the type bits, followed
//! by the symbol and DLL names). The long import format's members are COFF
//! objects, named by their machine and shown as bytes.

use std::sync::Arc;

use super::tables::{member_at, name_of, name_starts, names_and_padding, symbol_entry, Members};
use crate::model::record::record;
use crate::model::{read_uint, text, Builder, Endian, Fields, NodeId, Radix, Span, Value};

const LE: Endian = Endian::Little;

/// `IMAGE_FILE_MACHINE_*`: the machines of COFF objects and imports.
const MACHINES: &[(u16, &str)] = &[
    (0x014c, "I386"),
    (0x0162, "R3000"),
    (0x0166, "R4000"),
    (0x0168, "R10000"),
    (0x0169, "WCEMIPSV2"),
    (0x01a2, "SH3"),
    (0x01a3, "SH3DSP"),
    (0x01a6, "SH4"),
    (0x01a8, "SH5"),
    (0x01c0, "ARM"),
    (0x01c2, "THUMB"),
    (0x01c4, "ARMNT"),
    (0x01d3, "AM33"),
    (0x01f0, "POWERPC"),
    (0x01f1, "POWERPCFP"),
    (0x0200, "IA64"),
    (0x0266, "MIPS16"),
    (0x0366, "MIPSFPU"),
    (0x0466, "MIPSFPU16"),
    (0x0ebc, "EBC"),
    (0x5032, "RISCV32"),
    (0x5064, "RISCV64"),
    (0x5128, "RISCV128"),
    (0x6232, "LOONGARCH32"),
    (0x6264, "LOONGARCH64"),
    (0x8664, "AMD64"),
    (0x9041, "M32R"),
    (0xa641, "ARM64EC"),
    (0xa64e, "ARM64X"),
    (0xaa64, "ARM64"),
];

fn machine(v: u64) -> Option<&'static str> {
    MACHINES.iter().find(|m| u64::from(m.0) == v).map(|m| m.1)
}

/// `IMPORT_OBJECT_TYPE`: what the import is.
const TYPES: [&str; 3] = ["CODE", "DATA", "CONST"];

/// `IMPORT_OBJECT_NAME_TYPE`: how the name exported is made from the
/// symbol's.
const NAME_TYPES: [&str; 5] = [
    "ORDINAL",
    "NAME",
    "NAME_NOPREFIX",
    "NAME_UNDECORATE",
    "NAME_EXPORTAS",
];

record! {
    /// `IMPORT_OBJECT_HEADER` (winnt.h): a short import member's header.
    /// The ordinal or hint and the type bits are shown by [`import`].
    mod import_header: ImportHeader (LE) {
        sig1: u16 = "Sig1", Show::HexWide,
        sig2: u16 = "Sig2", Show::HexWide,
        version: u16 = "Version", Show::Dec,
        machine: u16 = "Machine", Show::NamedHex(machine),
        time_date_stamp: u32 = "TimeDateStamp", Show::Value(|v| Value::Date(v as i64)),
        size_of_data: u32 = "SizeOfData", Show::Auto,
        ordinal_or_hint: u16 = "Ordinal", Show::Hidden,
        kind: u16 = "Type", Show::Hidden,
    }
}

record! {
    /// `IMAGE_FILE_HEADER` (winnt.h): a COFF object's header.
    mod file_header: FileHeader (LE) {
        machine: u16 = "Machine", Show::NamedHex(machine),
        number_of_sections: u16 = "NumberOfSections", Show::Auto,
        time_date_stamp: u32 = "TimeDateStamp", Show::Auto,
        pointer_to_symbol_table: u32 = "PointerToSymbolTable", Show::Hex,
        number_of_symbols: u32 = "NumberOfSymbols", Show::Auto,
        size_of_optional_header: u16 = "SizeOfOptionalHeader", Show::Auto,
        characteristics: u16 = "Characteristics", Show::Hex,
    }
}

/// The size of `IMPORT_OBJECT_HEADER`.
const IMPORT_HDR: u64 = import_header::SIZE;
/// The second linker member's counts and member offsets are u32, its
/// symbols' member indices u16.
const COUNT: u64 = 4;
const OFFSET: u64 = 4;
const INDEX: u64 = 2;

/// True when `at` starts with a short import member's header (`Sig1` 0,
/// `Sig2` 0xFFFF, version 0; an anonymous object has these signatures and
/// a version of 1 or more).
pub fn is_import(b: &Builder<'_>, at: Span) -> bool {
    at.len >= IMPORT_HDR
        && ImportHeader::read(b.slice(at.offset, IMPORT_HDR))
            .is_ok_and(|h| (h.sig1, h.sig2, h.version) == (0, 0xffff, 0))
}

/// The machine of the COFF object at `at`: a known machine and no
/// optional header (an object, not an image).
pub fn object_machine(b: &Builder<'_>, at: Span) -> Option<&'static str> {
    if at.len < file_header::SIZE {
        return None;
    }
    let h = FileHeader::read(b.slice(at.offset, file_header::SIZE)).ok()?;
    if h.size_of_optional_header != 0 {
        return None;
    }
    machine(u64::from(h.machine))
}

/// A short import member at `at`, under `d`.
pub fn import(b: &mut Builder<'_>, d: NodeId, at: Span) {
    use import_header::AT;
    let bits = read_uint(b, AT.kind.of(at.offset), AT.kind.size, LE).unwrap_or(0);
    let (ty, name_ty) = (bits & 3, (bits >> 2) & 7);
    let size = read_uint(b, AT.size_of_data.of(at.offset), AT.size_of_data.size, LE).unwrap_or(0);
    let h = b.group(d, "header", at.offset, IMPORT_HDR);
    let mut f = Fields::new(b, h, at.offset, LE);
    ImportHeader::show_part(&mut f, 0, AT.size_of_data.end());
    let ord_name = if name_ty == 0 { "Ordinal" } else { "Hint" };
    let ord = f.dec(ord_name, AT.ordinal_or_hint.size);
    let names =
        |t: &[&'static str], v: u64| usize::try_from(v).ok().and_then(|k| t.get(k).copied());
    f.flags("Type", AT.kind.size, |_| {
        format!(
            "{}, {}",
            names(&TYPES, ty).unwrap_or("type ?"),
            names(&NAME_TYPES, name_ty).unwrap_or("name type ?")
        )
    });
    if let Some(t) = f.last_fitted() {
        let (kind_at, width) = (AT.kind.of(at.offset), AT.kind.size);
        let mut g = Fields::new(b, t, kind_at, LE);
        g.field("Type", width, |_| Value::named(ty, names(&TYPES, ty)));
        g.seek(kind_at);
        g.field("NameType", width, |_| {
            Value::named(name_ty, names(&NAME_TYPES, name_ty))
        });
        g.seek(kind_at);
        g.field("Reserved", width, |v| Value::hex(v >> 5));
    }
    let end = at.end();
    let want = at.offset + IMPORT_HDR + size;
    if want > end {
        b.error(
            AT.size_of_data.of(at.offset),
            AT.size_of_data.size,
            format!(
                "import member: SizeOfData {size} runs past the member ({} bytes remain)",
                at.len - IMPORT_HDR
            ),
        );
    }
    let mut pos = at.offset + IMPORT_HDR;
    let mut strs: Vec<String> = Vec::new();
    let labels: &[&str] = if name_ty == 4 {
        &["symbol", "DLL", "export name"]
    } else {
        &["symbol", "DLL"]
    };
    for label in labels {
        let Some((s, ended)) = b.read_cstr(pos, want.min(end)) else {
            break;
        };
        let n = s.len() as u64 + u64::from(ended);
        b.leaf(d, *label, pos, n, Value::str_bytes(s));
        strs.push(text::from_bytes(s));
        pos += n;
    }
    let (sym, dll) = (
        strs.first().map_or("?", String::as_str),
        strs.get(1).map_or("?", String::as_str),
    );
    let how = match (name_ty, ord) {
        (0, Some(o)) => format!(", ordinal {o}"),
        _ => String::new(),
    };
    let ty = names(&TYPES, ty).unwrap_or("?").to_ascii_lowercase();
    b.set_value(d, format!("import of {ty} {sym} from {dll}{how}"));
}

/// MSVC's second linker member at `at`, under `d`: the member count and
/// offsets, the symbol count, each symbol's member index (from 1) and the
/// names.
pub fn second_linker(b: &mut Builder<'_>, d: NodeId, at: Span, base: u64, ms: Members) {
    let Some(m) = read_uint(b, at.offset, COUNT, LE) else {
        return;
    };
    b.leaf(
        d,
        "member count",
        at.offset,
        COUNT,
        Value::uint(m).with_width(4),
    );
    let room = at.len.saturating_sub(COUNT) / OFFSET;
    if m > room {
        b.error(
            at.offset,
            COUNT,
            format!(
                "second linker member: {m} member offsets do not fit in {} bytes",
                at.len
            ),
        );
    }
    let m = m.min(room);
    let offs = at.offset + COUNT;
    let ms2 = ms.clone();
    b.array(
        d,
        "offsets",
        offs,
        m,
        OFFSET,
        Arc::new(move |b, p, i, o| {
            if let Some(v) = read_uint(b, o, OFFSET, LE) {
                let entry = b.span(o, OFFSET);
                symbol_entry(b, p, format!("[{i}]"), entry, v, OFFSET as u8, base, &ms2);
            }
        }),
    );
    // Not cut to `at`: a member too short for its count reads on.
    let nat = offs + OFFSET * m;
    let rest = b.span(nat, at.end().saturating_sub(nat));
    match indexed(b, d, rest, (offs, m), base, ms) {
        Some(n) => b.set_value(d, format!("second linker member, {n} symbols")),
        None => b.set_value(d, "second linker member"),
    }
}

/// Where the second linker member with data at `data` keeps its member
/// offsets, and how many fit (for the EC symbol table, whose indices
/// count into them).
pub fn linker2_offsets(b: &Builder<'_>, data: Span) -> Option<(u64, u64)> {
    let m = read_uint(b, data.offset, COUNT, LE)?;
    Some((
        data.offset + COUNT,
        m.min(data.len.saturating_sub(COUNT) / OFFSET),
    ))
}

/// The ARM64EC symbol table (`/<ECSYMBOLS>/`) at `at`, under `d`: a
/// symbol count, each symbol's member index into the second linker
/// member's offsets (`linker2`: where they are and how many), the names.
pub fn ec_symbols(
    b: &mut Builder<'_>,
    d: NodeId,
    at: Span,
    linker2: Option<(u64, u64)>,
    base: u64,
    ms: Members,
) {
    if linker2.is_none() {
        b.error(
            at.offset,
            at.len,
            "EC symbol table: no second linker member gives the members its indices count",
        );
    }
    if let Some(n) = indexed(b, d, at, linker2.unwrap_or((0, 0)), base, ms) {
        b.set_value(d, format!("EC symbol table, {n} symbols"));
    }
}

/// A symbol count at the start of `at`, then each symbol's 16-bit member
/// index (from 1, into the `m` member offsets at `offs`) and the names, to
/// its end. Returns the count.
fn indexed(
    b: &mut Builder<'_>,
    d: NodeId,
    at: Span,
    (offs, m): (u64, u64),
    base: u64,
    ms: Members,
) -> Option<u64> {
    let n = read_uint(b, at.offset, COUNT, LE)?;
    b.leaf(
        d,
        "symbol count",
        at.offset,
        COUNT,
        Value::uint(n).with_width(4),
    );
    let end = at.end();
    let idx = at.offset + COUNT;
    let room = end.saturating_sub(idx) / INDEX;
    if n > room {
        b.error(at.offset, COUNT, format!("{n} symbol indices do not fit"));
    }
    let count = n;
    let n = n.min(room);
    let s = idx + INDEX * n;
    let names = b.span(s, end.saturating_sub(s));
    let (starts, used) = name_starts(b.bytes(names), n);
    let starts = Arc::new(starts);
    b.array(
        d,
        "indices",
        idx,
        n,
        INDEX,
        Arc::new(move |b, p, i, o| {
            let Some(k) = read_uint(b, o, INDEX, LE) else {
                return;
            };
            let name = name_of(b, &starts, i, names);
            let member = k
                .checked_sub(1)
                .filter(|&k| k < m)
                .and_then(|k| read_uint(b, offs + OFFSET * k, OFFSET, LE))
                .and_then(|v| member_at(&ms, base.saturating_add(v)));
            match member {
                Some(x) => {
                    let v = Value::with(k, Radix::Dec, format!(" ({})", x.name));
                    let id = b.leaf(p, format!("[{i}] {name}"), o, INDEX, v);
                    b.link(id, x.at);
                }
                None => {
                    b.leaf(p, format!("[{i}] {name}"), o, INDEX, Value::uint(k));
                    b.error(
                        o,
                        INDEX,
                        format!("symbol {name}: member index {k} names no member"),
                    );
                }
            }
        }),
    );
    names_and_padding(b, d, names, used as u64);
    Some(count)
}
