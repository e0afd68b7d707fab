//! CUDA fatbins (0xBA55ED50): standalone, in `.nv_fatbin` /
//! `__nv_relfatbin` sections (a linker puts one container after another
//! there) and as offload images. Each container's header, each entry's
//! header field by field, and each payload opened by its own bytes:
//! compressed ones (LZ4, zstd) inflated into a byte space of their own.
//!
//! NVIDIA publishes none of the layout. What is decoded here is what the
//! public reverse-engineered descriptions agree on (the cuda-fatbin-
//! decompression and `fatbinary` projects, ZLUDA's fatbin reader, the
//! nvopen-tools notes) and what cuobjdump prints, checked against the
//! fatbins of NVIDIA's CUDA runtime wheels (CUDA 12.9, LZ4; 13.x, zstd):
//!
//! - container header, 16 bytes: magic u32 `0xBA55ED50`, version u16 (1),
//!   header size u16 (16), then u64: the bytes of entries that follow it.
//! - entries back to back after it, each a header then its payload:
//!   - 0x00 u16 kind: 1 PTX, 2 ELF (cubin), 8 NVVM IR (LTO IR);
//!   - 0x02 u16 entry version, 0x0101 in every file seen;
//!   - 0x04 u32 the header's size (0x40, or more with options);
//!   - 0x08 u64 the payload's size in the file (padded to 8 bytes);
//!   - 0x10 u32 the compressed data's exact size (compressed entries);
//!   - 0x14 u32 where the options record is, from the entry's start (0:
//!     none); the record is a u32 offset and a u32 size, again from the
//!     entry's start, of the options (ptxas options for PTX; binary
//!     attributes for newer cubins);
//!   - 0x18 u16 minor, 0x1a u16 major: the code version (PTX ISA for PTX,
//!     cubin version for ELF);
//!   - 0x1c u32 the sm (`sm_80`: 80);
//!   - 0x20 u32, 0x24 u32 the object name's offset (from the entry's
//!     start) and size, 0 when absent;
//!   - 0x28 u64 flags: 0x1 64-bit, 0x2 debug, 0x4 produced by CUDA, 0x8 by
//!     OpenCL, 0x10 Linux host, 0x20 Mac host, 0x40 Windows host, 0x2000
//!     LZ4-compressed (the LZ4 block format), 0x8000 zstd-compressed;
//!   - 0x30 u64 reserved (0);
//!   - 0x38 u64 the payload's size once inflated.
//!
//! The next entry starts at the entry's start + header size + payload size.

use std::sync::Arc;

use super::compress::{self, Method};
use super::elf::{self, EM_CUDA};
use super::image;
use crate::model::record::{record, Record};
use crate::model::{read, Builder, Endian, Fact, Fields, Held, NodeId, Span, Value};

const LE: Endian = Endian::Little;

/// A CUDA fatbin: 0xBA55ED50 little-endian.
pub const MAGIC: &[u8] = &[0x50, 0xed, 0x55, 0xba];

/// Entries shown in one container.
const MAX_LIST: u64 = 4096;
/// Containers told apart in one run of bytes.
const MAX_CONTAINERS: u64 = 1 << 20;

/// A container's magic as a number.
const MAGIC_WORD: u32 = 0xba55_ed50;

fn magic_name(v: u64) -> Option<&'static str> {
    (v == u64::from(MAGIC_WORD)).then_some("CUDA fatbin")
}

record! {
    /// A container's header.
    mod header: Header (LE) {
        magic: u32 = "magic", Show::NamedHex(magic_name),
        version: u16 = "version", Show::Auto,
        header_size: u16 = "header size", Show::Auto,
        fat_size: u64 = "fat size", Show::Auto,
    }
}

record! {
    /// An entry's header, as long as it gets (its header size says how
    /// much of it there is: at least the first 16 bytes, then in steps,
    /// [`STEPS`]).
    mod entry_header: EntryHeader (LE) {
        kind: u16 = "kind", Show::Named(kind_name),
        version: u16 = "version", Show::Hex,
        header_size: u32 = "header size", Show::Auto,
        payload_size: u64 = "payload size", Show::Auto,
        compressed_size: u32 = "compressed size", Show::Auto,
        options_offset: u32 = "options offset", Show::Hex,
        code_version: u32 = "code version", Show::Value(code_version),
        arch: u32 = "arch", Show::Value(|v| Value::text(format!("sm_{v}"))),
        name_offset: u32 = "object name offset", Show::Hex,
        name_size: u32 = "object name size", Show::Auto,
        flags: u64 = "flags", Show::Flags(flag_names),
        reserved: u64 = "reserved", Show::Hex,
        inflated_size: u64 = "inflated size", Show::Auto,
    }
}

/// The first bytes of every entry header.
const ENTRY_MIN: u64 = entry_header::AT.payload_size.end();

/// How much of an entry header there is, by its header size: the fields
/// up to the longest of these that fits are shown and read.
const STEPS: [u64; 6] = [
    ENTRY_MIN,
    entry_header::AT.options_offset.end(),
    entry_header::AT.arch.end(),
    entry_header::AT.name_size.end(),
    entry_header::AT.flags.end(),
    entry_header::SIZE,
];

/// The part of an entry header whose header size is `hs`.
fn entry_part(hs: u64) -> u64 {
    STEPS
        .iter()
        .rev()
        .find(|&&s| s <= hs)
        .copied()
        .unwrap_or(ENTRY_MIN)
}

/// The code version, minor in the low half and major in the high one:
/// `12.8`.
fn code_version(v: u64) -> Value {
    Value::text(format!("{}.{}", v >> 16, v & 0xffff))
}

record! {
    /// The options record an entry header may point at.
    mod options: Options (LE) {
        offset: u32 = "offset", Show::Hex,
        size: u32 = "size", Show::Auto,
    }
}

const KIND_PTX: u64 = 1;
const KIND_ELF: u64 = 2;
const KIND_NVVM: u64 = 8;

const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

fn kind_name(k: u64) -> Option<&'static str> {
    match k {
        KIND_PTX => Some("PTX"),
        KIND_ELF => Some("ELF"),
        KIND_NVVM => Some("NVVM IR"),
        _ => None,
    }
}

/// The short kind in an entry's name: `[0] ELF sm_80`.
fn kind_short(k: u64) -> &'static str {
    match k {
        KIND_PTX => "PTX",
        KIND_ELF => "ELF",
        KIND_NVVM => "NVVM",
        _ => "unknown",
    }
}

/// The entry flags by name: `0x2011 (64-bit | Linux | LZ4)`.
pub fn flag_names(v: u64) -> String {
    const F: &[(u64, &str)] = &[
        (0x1, "64-bit"),
        (0x2, "debug"),
        (0x4, "CUDA"),
        (0x8, "OpenCL"),
        (0x10, "Linux"),
        (0x20, "Mac"),
        (0x40, "Windows"),
        (FLAG_LZ4, "LZ4"),
        (FLAG_ZSTD, "zstd"),
    ];
    crate::model::text::flag_names(v, F, "")
}

/// Where the container at `at` of `d` ends: after its header and the size
/// it states, cut to `d`.
fn extent(d: &[u8], at: u64) -> u64 {
    let len = d.len() as u64;
    let Some(h) = usize::try_from(at)
        .ok()
        .and_then(|i| d.get(i..))
        .and_then(|d| Header::read(d).ok())
    else {
        return len;
    };
    at.saturating_add(u64::from(h.header_size).max(header::SIZE))
        .saturating_add(h.fat_size)
        .min(len)
}

/// The next container magic at or after `from`, on an 8-byte boundary of
/// `d` (where a linker puts them).
fn next_start(d: &[u8], from: u64) -> Option<u64> {
    // The magic cannot overlap itself: every match is found.
    let i = usize::try_from(from).ok()?;
    memchr::memmem::find_iter(d.get(i..)?, MAGIC)
        .map(|rel| i + rel)
        .find(|at| at % 8 == 0)
        .map(|at| at as u64)
}

/// One fatbin container, or several back to back (each a node).
pub fn parse(b: &mut Builder<'_>, node: NodeId, at: Span) {
    super::parts::back_to_back(b, node, at, &PARTS);
}

static PARTS: super::parts::Parts = super::parts::Parts {
    name: "fatbin",
    summary: "CUDA fatbins",
    many: "fatbin containers",
    max: MAX_CONTAINERS,
    extent,
    next_start,
    format: |_| crate::model::Format::CudaFatbin,
    open: parse_one,
};

/// What an entry header says, as far as the entry list needs it.
struct Entry {
    at: u64,
    kind: u64,
    hsize: u64,
    psize: u64,
    sm: Option<u64>,
}

fn read_entry(b: &Builder<'_>, at: u64) -> Option<Entry> {
    let d = b.slice(at, entry_header::SIZE);
    let have = d.len() as u64;
    if have < ENTRY_MIN {
        return None;
    }
    let r = EntryHeader::read_zeroed(d, LE).ok()?;
    let hsize = u64::from(r.header_size);
    let arch = entry_header::AT.arch.end();
    Some(Entry {
        at,
        kind: u64::from(r.kind),
        hsize,
        psize: r.payload_size,
        sm: (hsize >= arch && have >= arch).then_some(u64::from(r.arch)),
    })
}

/// One container at `at`: the bytes past its stated size (up to the next
/// container) are padding.
fn parse_one(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let h = b.group(node, "header", at.offset, header::SIZE.min(at.len));
    let d = b.slice(at.offset, header::SIZE);
    let mut f = Fields::new(b, h, at.offset, LE);
    let n = Header::show(&mut f);
    let (Some(_), Some(_), Some(_), Ok(r)) =
        (n.version, n.header_size, n.fat_size, Header::read(d))
    else {
        return;
    };
    let (version, hsize, fsize) = (r.version, u64::from(r.header_size), r.fat_size);
    if version != 1 {
        header::AT.version.warn(
            b,
            at.offset,
            format!("fatbin version {version}; 1 is the only one known"),
        );
    }
    if hsize < header::SIZE {
        header::AT.header_size.error(
            b,
            at.offset,
            format!(
                "fatbin header size {hsize} is less than the {} bytes it has",
                header::SIZE
            ),
        );
    }
    let start = hsize.max(header::SIZE).min(at.len);
    let mut end = start.saturating_add(fsize);
    if end > at.len {
        header::AT.fat_size.error(
            b,
            at.offset,
            format!(
                "fatbin size {fsize} runs past the end of the image: {} bytes remain",
                at.len - start
            ),
        );
        end = at.len;
    }
    let mut pos = start;
    let mut n = 0u64;
    while pos < end && n < MAX_LIST {
        let room = end - pos;
        let Some(e) = read_entry(b, at.offset + pos).filter(|_| room >= ENTRY_MIN) else {
            b.error(
                at.offset + pos,
                room,
                format!("{room} bytes left in the fatbin, too few for an entry header"),
            );
            break;
        };
        if e.hsize < ENTRY_MIN || e.hsize > room {
            entry_header::AT.header_size.error(
                b,
                at.offset + pos,
                format!(
                    "fatbin entry header size {} is impossible here ({room} bytes left)",
                    e.hsize
                ),
            );
            break;
        }
        let mut pend = (pos + e.hsize).saturating_add(e.psize);
        if pend > end {
            entry_header::AT.payload_size.error(
                b,
                at.offset + pos,
                format!(
                    "fatbin entry payload of {} bytes runs past the fatbin's end",
                    e.psize
                ),
            );
            pend = end;
        }
        let name = match e.sm {
            Some(a) => format!("[{n}] {} sm_{a}", kind_short(e.kind)),
            None => format!("[{n}] {}", kind_short(e.kind)),
        };
        let g = b.group(node, name, at.offset + pos, pend - pos);
        let entry_end = at.offset + pend;
        b.lazy(
            g,
            Arc::new(move |b: &mut Builder<'_>, g| {
                if let Some(e) = read_entry(b, e.at) {
                    entry(b, g, &e, entry_end);
                }
            }),
        );
        pos = pend;
        n += 1;
    }
    if pos < end && n >= MAX_LIST {
        b.warn(
            at.offset + pos,
            end - pos,
            format!("more than {MAX_LIST} entries; the rest are not shown"),
        );
    }
    if end < at.len {
        let rest = at.skip(end);
        let pad = b.bytes(rest);
        let v = if pad.iter().all(|&c| c == 0) {
            "zero"
        } else {
            "not zero"
        };
        b.leaf(
            node,
            "padding",
            rest.offset,
            rest.len,
            format!("{} bytes, {v}", rest.len),
        );
    }
    b.set_value(node, format!("CUDA fatbin, {n} entries"));
}

/// One entry under its node `g`: its header, options, object name, and
/// payload (inflated where it is compressed), ending at `end`.
fn entry(b: &mut Builder<'_>, g: NodeId, e: &Entry, end: u64) {
    let at = e.at;
    let hs = e.hsize;
    let eh = b.group(g, "header", at, hs);
    // The entry lies in the container: the part its header size says is
    // there fits.
    let part = entry_part(hs);
    let r = EntryHeader::read_zeroed(b.slice(at, part), LE).ok();
    let mut f = Fields::new(b, eh, at, LE);
    EntryHeader::show_part(&mut f, 0, part);
    let flags = r.map_or(0, |r| r.flags);
    let csize = r.map_or(0, |r| u64::from(r.compressed_size));
    let opt = r.map_or(0, |r| u64::from(r.options_offset));
    let name = r.map_or((0, 0), |r| {
        (u64::from(r.name_offset), u64::from(r.name_size))
    });
    let usize_ = r
        .filter(|_| part >= entry_header::SIZE)
        .map(|r| r.inflated_size);
    if opt != 0 {
        options(b, eh, at, hs, opt);
    }
    if name.0 != 0 && name.1 != 0 {
        if name.0.saturating_add(name.1) <= hs {
            b.fixed_str(eh, "object name", at + name.0, name.1);
        } else {
            let at_name = entry_header::AT
                .name_offset
                .through(entry_header::AT.name_size);
            at_name.warn(
                b,
                at,
                format!(
                    "object name at 0x{:x}+0x{:x} lies outside the entry header",
                    name.0, name.1
                ),
            );
        }
    }
    let pstart = at + hs;
    let plen = end.saturating_sub(pstart);
    if plen == 0 {
        return;
    }
    let payload = b.span(pstart, plen);
    let p = b.group(g, "payload", pstart, plen);
    b.fact(p, Fact::Held(held(e)));
    let zstd = flags & FLAG_ZSTD != 0;
    let lz4 = flags & FLAG_LZ4 != 0 && !zstd;
    if !lz4 && !zstd {
        let f = image::open_image(b, p, payload);
        check_opened(b, e, p, f, payload);
        return;
    }
    // Compressed: the data is the first `compressed size` bytes.
    let clen = if csize == 0 || csize > plen {
        if csize > plen {
            entry_header::AT.compressed_size.error(
                b,
                at,
                format!("compressed size {csize} is more than the payload's {plen} bytes"),
            );
        }
        plen
    } else {
        csize
    };
    let mname = if lz4 { "LZ4" } else { "zstd" };
    b.set_value(p, format!("{mname}-compressed, {clen} bytes"));
    let announced = usize_.unwrap_or(0);
    let data = payload.take(clen);
    let made = if lz4 {
        b.derive(p, "inflated", data, "lz4", |src, limit| {
            inflate_lz4(src, announced, limit)
        })
    } else {
        b.derive(p, "inflated", data, "zstd", |src, limit| {
            compress::inflate(src, Method::Zstd, limit)
        })
    };
    let Some(node) = made else {
        return;
    };
    // The inflated bytes are the image the entry holds.
    b.fact(node, Fact::Held(held(e)));
    let got = b.node(node).map_or(0, |n| n.size);
    if usize_.is_some() && got != announced {
        entry_header::AT.inflated_size.error(
            b,
            at,
            format!(
                "the entry says it inflates to {announced} bytes; its {mname} data makes {got}"
            ),
        );
    }
    let mut found = None;
    let mut elf_sm = None;
    b.within(node, |b, node| {
        let len = b.file_len();
        found = b.nested(node, b.span(0, len));
        elf_sm = elf_sm_of(b.slice(0, 64));
    });
    check_kind(b, e, found, data);
    check_sm(b, e, elf_sm, data);
}

/// What an entry says of its payload: CUDA code for its sm.
fn held(e: &Entry) -> Held {
    Held {
        kind: Some("cuda".into()),
        target: e.sm.map(|a| format!("sm_{a}").into()),
        device: true,
    }
}

/// Checks an uncompressed payload: its format against the entry's kind,
/// and an ELF's sm against the entry's.
fn check_opened(
    b: &mut Builder<'_>,
    e: &Entry,
    _p: NodeId,
    found: Option<crate::model::Format>,
    at: Span,
) {
    check_kind(b, e, found, at);
    let head = at.take(64);
    let sm = elf_sm_of(b.bytes(head));
    check_sm(b, e, sm, at);
}

fn check_kind(b: &mut Builder<'_>, e: &Entry, found: Option<crate::model::Format>, at: Span) {
    use crate::model::Format;
    let ok = match e.kind {
        KIND_ELF => matches!(found, Some(Format::Elf)),
        KIND_PTX => matches!(found, Some(Format::Ptx)),
        _ => true,
    };
    if !ok {
        let what = found.map_or("bytes not recognised", Format::label);
        let magic = at.take(4);
        b.warn(
            magic.offset,
            magic.len,
            format!(
                "an entry of kind {} holds {what}",
                kind_name(e.kind).unwrap_or("?")
            ),
        );
    }
}

fn check_sm(b: &mut Builder<'_>, e: &Entry, elf_sm: Option<u64>, at: Span) {
    if let (Some(want), Some(got)) = (e.sm, elf_sm) {
        if want != got {
            let head = at.take(64);
            b.warn(
                head.offset,
                head.len,
                format!("the entry is for sm_{want}; its ELF's e_flags say sm_{got}"),
            );
        }
    }
}

/// The sm a CUDA ELF's `e_flags` name: bits 8..16 in the ELF ABI v2
/// (`EI_ABIVERSION` 8 and up), the low byte before.
pub fn elf_sm_of(d: &[u8]) -> Option<u64> {
    if !d.starts_with(b"\x7fELF") || *d.get(5)? != 1 {
        return None;
    }
    let class = *d.get(4)?;
    if read::u16_at(d, 18, LE)? != EM_CUDA {
        return None;
    }
    let flags = read::u32_at(d, if class == 2 { 48 } else { 36 }, LE)?;
    Some(sm_of_flags(flags, *d.get(8)?))
}

/// The sm a CUDA ELF's e_flags name: CUDA's ELF ABI v2 (EI_ABIVERSION 8)
/// keeps it in bits 8..16; before, in the low byte.
fn sm_of_flags(flags: u32, abiversion: u8) -> u64 {
    let flags = u64::from(flags);
    if abiversion >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    }
}

/// What a CUDA ELF adds to the ELF reader: that it is GPU code, for the
/// sm its e_flags name.
pub struct Cuda;

pub static CUDA: Cuda = Cuda;

impl elf::Vendor for Cuda {
    fn device_code(&self, flags: u32, abiversion: u8) -> Option<Fact> {
        let sm = sm_of_flags(flags, abiversion);
        Some(Fact::DeviceCode {
            target: Some(format!("sm_{sm}").into()),
        })
    }
}

/// The options record at `opt` of the entry at `at` (header size `hs`):
/// offset and size of the options, then the options themselves.
fn options(b: &mut Builder<'_>, eh: NodeId, at: u64, hs: u64, opt: u64) {
    if opt.saturating_add(options::SIZE) > hs {
        entry_header::AT.options_offset.warn(
            b,
            at,
            format!("options record at 0x{opt:x} lies outside the {hs}-byte entry header"),
        );
        return;
    }
    let og = b.group(eh, "options", at + opt, options::SIZE);
    let r = Options::read(b.slice(at + opt, options::SIZE)).ok();
    let mut f = Fields::new(b, og, at + opt, LE);
    Options::show(&mut f);
    let (o, l) = r.map_or((0, 0), |r| (u64::from(r.offset), u64::from(r.size)));
    if l == 0 {
        return;
    }
    if o.saturating_add(l) > hs {
        b.warn(
            at + opt,
            options::SIZE,
            format!("options at 0x{o:x}+0x{l:x} lie outside the {hs}-byte entry header"),
        );
        return;
    }
    let text = b.slice(at + o, l);
    let printable = text
        .iter()
        .all(|&c| c == 0 || c == b'\t' || (0x20..0x7f).contains(&c));
    if printable {
        b.fixed_str(eh, "options text", at + o, l);
    } else {
        b.raw(eh, "attributes", at + o, l);
    }
}

/// Inflates an LZ4 block into at most `limit` bytes: first into the size
/// the entry announces, then (if that is too small) into as much as LZ4
/// can make of the data.
fn inflate_lz4(src: &[u8], announced: u64, limit: u64) -> Result<Vec<u8>, String> {
    let first = announced.min(limit);
    let most = (src.len() as u64)
        .saturating_mul(255)
        .saturating_add(64)
        .min(limit.saturating_add(1));
    for cap in [first, most] {
        let Ok(n) = usize::try_from(cap) else {
            continue;
        };
        let mut out = vec![0u8; n];
        match lz4_flex::block::decompress_into(src, &mut out) {
            Ok(k) => {
                out.truncate(k);
                return Ok(out);
            }
            Err(lz4_flex::block::DecompressError::OutputTooSmall { .. }) if cap < most => {}
            Err(e) => return Err(format!("LZ4 data does not inflate: {e}")),
        }
    }
    Err("LZ4 data does not inflate".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout the module's notes give (the public reverse-engineered
    /// descriptions and cuobjdump agree on it).
    #[test]
    fn records_match_the_notes_and_short_slices_are_errors() {
        assert_eq!(
            (header::SIZE, entry_header::SIZE, options::SIZE),
            (16, 0x40, 8)
        );
        assert_eq!(header::AT.fat_size.off, 8);
        let at = entry_header::AT;
        assert_eq!(
            (at.compressed_size.off, at.options_offset.off),
            (0x10, 0x14)
        );
        assert_eq!((at.code_version.off, at.arch.off), (0x18, 0x1c));
        assert_eq!((at.name_offset.off, at.flags.off), (0x20, 0x28));
        assert_eq!(at.inflated_size.off, 0x38);
        assert_eq!(STEPS, [0x10, 0x18, 0x20, 0x28, 0x30, 0x40]);
        assert_eq!(
            (entry_part(0x1c), entry_part(0x34), entry_part(0x48)),
            (0x18, 0x30, 0x40)
        );
        let e = Header::read(MAGIC).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("version", 16, 4));
        assert_eq!(EntryHeader::read(&[0; 0x30]).unwrap_err().field, "reserved");
        // A header of 0x18 bytes: what it leaves out reads as 0.
        let mut d = [0u8; 0x18];
        d[0] = 2;
        d[0x10] = 7;
        let r = EntryHeader::read_zeroed(&d, LE).unwrap();
        assert_eq!((r.kind, r.compressed_size, r.arch, r.flags), (2, 7, 0, 0));
        assert_eq!(code_version(0x0008_0007).to_string(), "8.7");
    }

    #[test]
    fn flags_by_name() {
        assert_eq!(flag_names(0x2011), "64-bit | Linux | LZ4");
        assert_eq!(flag_names(0x0100_8011), "64-bit | Linux | zstd | 0x1000000");
        assert_eq!(flag_names(0), "");
    }

    #[test]
    fn lz4_round_trip_and_short_announcement() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 97) as u8).collect();
        let c = lz4_flex::block::compress(&data);
        assert_eq!(inflate_lz4(&c, data.len() as u64, 1 << 20).unwrap(), data);
        // Announced too small: still all of it, for the size check to see.
        assert_eq!(inflate_lz4(&c, 10, 1 << 20).unwrap(), data);
        assert!(inflate_lz4(&[0xff, 0xff], 10, 100).is_err());
    }
}
