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
use crate::model::{read, Builder, Endian, Fact, Fields, Held, NodeId, Value};

const LE: Endian = Endian::Little;

/// A CUDA fatbin: 0xBA55ED50 little-endian.
pub const MAGIC: &[u8] = &[0x50, 0xed, 0x55, 0xba];

/// Entries shown in one container.
const MAX_LIST: u64 = 4096;
/// Containers told apart in one run of bytes.
const MAX_CONTAINERS: u64 = 1 << 20;

/// The size of an entry header up to the inflated size.
const ENTRY_HEADER: u64 = 0x40;

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
    let (Some(hs), Some(size)) = (read::u16_at(d, at + 6, LE), read::u64_at(d, at + 8, LE)) else {
        return len;
    };
    at.saturating_add(u64::from(hs).max(16))
        .saturating_add(size)
        .min(len)
}

/// The next container magic at or after `from`, on an 8-byte boundary of
/// `d` (where a linker puts them).
fn next_start(d: &[u8], from: u64) -> Option<u64> {
    let mut i = usize::try_from(from).ok()?;
    loop {
        let rel = memchr::memmem::find(d.get(i..)?, MAGIC)?;
        let at = i + rel;
        if at % 8 == 0 {
            return Some(at as u64);
        }
        i = at + 1;
    }
}

/// One fatbin container, or several back to back (each a node).
pub fn parse(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    super::parts::back_to_back(b, node, off, len, &PARTS);
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
    let kind = u64::from(b.read_u16(at, LE)?);
    let hsize = u64::from(b.read_u32(at + 4, LE)?);
    let psize = b.read_u64(at + 8, LE)?;
    let sm = if hsize >= 0x20 {
        b.read_u32(at + 0x1c, LE).map(u64::from)
    } else {
        None
    };
    Some(Entry {
        at,
        kind,
        hsize,
        psize,
        sm,
    })
}

/// One container at `[off, off+len)`: the bytes past its stated size (up
/// to the next container) are padding.
fn parse_one(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    let h = b.group(node, "header", off, 16.min(len));
    let mut f = Fields::new(b, h, off, LE);
    f.field("magic", 4, |v| {
        Value::named_hex(v, (v == 0xba55_ed50).then_some("CUDA fatbin"))
    });
    let version = f.u16("version");
    let hsize = f.u16("header size");
    let fsize = f.u64("fat size");
    let (Some(version), Some(hsize), Some(fsize)) = (version, hsize, fsize) else {
        return;
    };
    if version != 1 {
        b.warn(
            off + 4,
            2,
            format!("fatbin version {version}; 1 is the only one known"),
        );
    }
    if hsize < 16 {
        b.error(
            off + 6,
            2,
            format!("fatbin header size {hsize} is less than the 16 bytes it has"),
        );
    }
    let start = hsize.max(16).min(len);
    let mut end = start.saturating_add(fsize);
    if end > len {
        b.error(
            off + 8,
            8,
            format!(
                "fatbin size {fsize} runs past the end of the image: {} bytes remain",
                len - start
            ),
        );
        end = len;
    }
    let mut pos = start;
    let mut n = 0u64;
    while pos < end && n < MAX_LIST {
        let room = end - pos;
        let Some(e) = read_entry(b, off + pos).filter(|_| room >= 16) else {
            b.error(
                off + pos,
                room,
                format!("{room} bytes left in the fatbin, too few for an entry header"),
            );
            break;
        };
        if e.hsize < 16 || e.hsize > room {
            b.error(
                off + pos + 4,
                4,
                format!(
                    "fatbin entry header size {} is impossible here ({room} bytes left)",
                    e.hsize
                ),
            );
            break;
        }
        let mut pend = (pos + e.hsize).saturating_add(e.psize);
        if pend > end {
            b.error(
                off + pos + 8,
                8,
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
        let g = b.group(node, name, off + pos, pend - pos);
        let entry_end = off + pend;
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
            off + pos,
            end - pos,
            format!("more than {MAX_LIST} entries; the rest are not shown"),
        );
    }
    if end < len {
        let pad = b.slice(off + end, len - end);
        let v = if pad.iter().all(|&c| c == 0) {
            "zero"
        } else {
            "not zero"
        };
        b.leaf(
            node,
            "padding",
            off + end,
            len - end,
            format!("{} bytes, {v}", len - end),
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
    let mut f = Fields::new(b, eh, at, LE);
    f.named("kind", 2, kind_name);
    f.hex("version", 2);
    f.u32("header size");
    let mut flags = 0u64;
    let mut csize = 0u64;
    let mut usize_ = None;
    let mut opt = 0u64;
    let mut name = (0u64, 0u64);
    f.u64("payload size");
    if hs >= 0x18 {
        csize = f.u32("compressed size").unwrap_or(0);
        opt = f.hex("options offset", 4).unwrap_or(0);
    }
    if hs >= 0x20 {
        let minor = b.read_u16(at + 0x18, LE).unwrap_or(0);
        let major = b.read_u16(at + 0x1a, LE).unwrap_or(0);
        let mut f = Fields::new(b, eh, at + 0x18, LE);
        f.builder()
            .leaf(eh, "code version", at + 0x18, 4, format!("{major}.{minor}"));
        f.skip(4);
        f.field("arch", 4, |v| Value::text(format!("sm_{v}")));
    }
    if hs >= 0x28 {
        let mut f = Fields::new(b, eh, at + 0x20, LE);
        let o = f.hex("object name offset", 4).unwrap_or(0);
        let l = f.u32("object name size").unwrap_or(0);
        name = (o, l);
    }
    if hs >= 0x30 {
        let mut f = Fields::new(b, eh, at + 0x28, LE);
        flags = f.flags("flags", 8, flag_names).unwrap_or(0);
    }
    if hs >= ENTRY_HEADER {
        let mut f = Fields::new(b, eh, at + 0x30, LE);
        f.hex("reserved", 8);
        usize_ = f.u64("inflated size");
    }
    if opt != 0 {
        options(b, eh, at, hs, opt);
    }
    if name.0 != 0 && name.1 != 0 {
        if name.0.saturating_add(name.1) <= hs {
            b.fixed_str(eh, "object name", at + name.0, name.1);
        } else {
            b.warn(
                at + 0x20,
                8,
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
    let p = b.group(g, "payload", pstart, plen);
    b.fact(p, Fact::Held(held(e)));
    let zstd = flags & FLAG_ZSTD != 0;
    let lz4 = flags & FLAG_LZ4 != 0 && !zstd;
    if !lz4 && !zstd {
        let f = image::open_image(b, p, pstart, plen);
        check_opened(b, e, p, f, pstart, plen);
        return;
    }
    // Compressed: the data is the first `compressed size` bytes.
    let clen = if csize == 0 || csize > plen {
        if csize > plen {
            b.error(
                at + 0x10,
                4,
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
    let made = if lz4 {
        b.derive(p, "inflated", pstart, clen, "lz4", |src, limit| {
            inflate_lz4(src, announced, limit)
        })
    } else {
        b.derive(p, "inflated", pstart, clen, "zstd", |src, limit| {
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
        b.error(
            at + 0x38,
            8,
            format!(
                "the entry says it inflates to {announced} bytes; its {mname} data makes {got}"
            ),
        );
    }
    let mut found = None;
    let mut elf_sm = None;
    b.within(node, |b, node| {
        let len = b.file_len();
        found = b.nested(node, 0, len);
        elf_sm = elf_sm_of(b.slice(0, 64));
    });
    check_kind(b, e, found, pstart, clen);
    check_sm(b, e, elf_sm, pstart, clen);
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
    at: u64,
    len: u64,
) {
    check_kind(b, e, found, at, len);
    let sm = elf_sm_of(b.slice(at, len.min(64)));
    check_sm(b, e, sm, at, len);
}

fn check_kind(
    b: &mut Builder<'_>,
    e: &Entry,
    found: Option<crate::model::Format>,
    at: u64,
    len: u64,
) {
    use crate::model::Format;
    let ok = match e.kind {
        KIND_ELF => matches!(found, Some(Format::Elf)),
        KIND_PTX => matches!(found, Some(Format::Ptx)),
        _ => true,
    };
    if !ok {
        let what = found.map_or("bytes not recognised", Format::label);
        b.warn(
            at,
            len.min(4),
            format!(
                "an entry of kind {} holds {what}",
                kind_name(e.kind).unwrap_or("?")
            ),
        );
    }
}

fn check_sm(b: &mut Builder<'_>, e: &Entry, elf_sm: Option<u64>, at: u64, len: u64) {
    if let (Some(want), Some(got)) = (e.sm, elf_sm) {
        if want != got {
            b.warn(
                at,
                len.min(64),
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
    if opt.saturating_add(8) > hs {
        b.warn(
            at + 0x14,
            4,
            format!("options record at 0x{opt:x} lies outside the {hs}-byte entry header"),
        );
        return;
    }
    let og = b.group(eh, "options", at + opt, 8);
    let mut f = Fields::new(b, og, at + opt, LE);
    let o = f.hex("offset", 4).unwrap_or(0);
    let l = f.u32("size").unwrap_or(0);
    if l == 0 {
        return;
    }
    if o.saturating_add(l) > hs {
        b.warn(
            at + opt,
            8,
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
