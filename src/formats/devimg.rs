//! Device images as offload binaries carry them: LLVM bitcode (raw, or
//! behind the 0x0B17C0DE wrapper header), PTX text, CUDA fatbins and clang
//! offload bundles (plain and compressed). [`open`] is the one door: it
//! recognises an image by its own bytes, whatever a container says it is,
//! and hands ELF, offload binaries and the other top-level formats to the
//! ordinary dispatcher, SPIR-V to [`super::spirv`].

use std::sync::Arc;

use nom::number::complete::{le_u16, le_u32, le_u64, u8 as byte};

use crate::model::{group_size, named, num, text, Builder, Endian, LazyFn, NodeId, GROUP};

const LE: Endian = Endian::Little;

/// Raw bitcode: `BC` 0xC0DE.
pub const BITCODE_MAGIC: &[u8] = &[0x42, 0x43, 0xc0, 0xde];
/// The bitcode wrapper header's magic, 0x0B17C0DE little-endian.
pub const WRAPPER_MAGIC: &[u8] = &[0xde, 0xc0, 0x17, 0x0b];
/// A CUDA fatbin: 0xBA55ED50 little-endian.
pub const FATBIN_MAGIC: &[u8] = &[0x50, 0xed, 0x55, 0xba];
/// A clang offload bundle.
pub const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// A compressed clang offload bundle.
pub const CCOB_MAGIC: &[u8] = b"CCOB";

/// How many containers may open inside each other through this module
/// (bundles in bundles, fatbins in bundles…) before it stops.
const MAX_DEPTH: u32 = 8;
/// Eagerly built list entries (bundle and fatbin entries, PTX kernels).
const MAX_LIST: u64 = 4096;

/// The longest record operand list the bitcode walk decodes.
const MAX_ARRAY: u64 = 1 << 16;

/// The name of the device-image format `d` starts with, among the ones this
/// module decodes.
pub fn detect(d: &[u8]) -> Option<&'static str> {
    if d.starts_with(BITCODE_MAGIC) || d.starts_with(WRAPPER_MAGIC) {
        Some("bitcode")
    } else if d.starts_with(FATBIN_MAGIC) {
        Some("cuda-fatbin")
    } else if d.starts_with(BUNDLE_MAGIC) {
        Some("clang-offload-bundle")
    } else if d.starts_with(CCOB_MAGIC) {
        Some("clang-offload-bundle-compressed")
    } else if is_ptx(d) {
        Some("ptx")
    } else {
        None
    }
}

/// Recognises any image format fwview knows, in memory (for images that
/// are not in the file as they are, such as compressed ones).
pub fn sniff(d: &[u8]) -> Option<&'static str> {
    if let Some(f) = super::detect(d) {
        return Some(f);
    }
    if super::spirv::detect(d) {
        return Some("spirv");
    }
    detect(d)
}

/// A format name as people say it.
pub fn label(format: &str) -> &str {
    match format {
        "elf" => "ELF",
        "zebin" => "ELF (Intel zebin)",
        "offload" => "LLVM offload binary",
        "bitcode" => "LLVM bitcode",
        "ptx" => "PTX",
        "spirv" => "SPIR-V",
        "cuda-fatbin" => "CUDA fatbin",
        "clang-offload-bundle" => "clang offload bundle",
        "clang-offload-bundle-compressed" => "compressed clang offload bundle",
        "ar" => "ar archive",
        "xclbin" => "XCLBIN",
        "xe" => "XMOS XE",
        "pdi" => "PDI",
        other => other,
    }
}

/// Opens the image in `[off, off+len)` under `node` by its own magic:
/// returns the format found, if any.
pub fn open(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) -> Option<&'static str> {
    open_at(b, node, off, len, 0)
}

fn open_at(
    b: &mut Builder<'_>,
    node: NodeId,
    off: u64,
    len: u64,
    depth: u32,
) -> Option<&'static str> {
    if len == 0 {
        return None;
    }
    let d = b.slice(off, len);
    if super::detect(d).is_some() {
        return b.nested(node, off, len);
    }
    if super::spirv::detect(d) {
        super::spirv::parse(b, node, off, len);
        b.set_format(node, "spirv");
        return Some("spirv");
    }
    let f = detect(d)?;
    if depth >= MAX_DEPTH {
        b.info(
            off,
            len.min(1),
            format!("device images nest more than {MAX_DEPTH} deep here; not opened"),
        );
        return None;
    }
    match f {
        "bitcode" => bitcode(b, node, off, len),
        "cuda-fatbin" => fatbin(b, node, off, len, depth),
        "clang-offload-bundle" => bundle(b, node, off, len, depth),
        "clang-offload-bundle-compressed" => compressed_bundle(b, node, off, len),
        "ptx" => ptx(b, node, off, len),
        _ => return None,
    }
    b.set_format(node, f);
    Some(f)
}

fn rd16(d: &[u8], off: u64) -> Option<u16> {
    let s = d.get(usize::try_from(off).ok()?..)?;
    le_u16::<_, ()>(s).ok().map(|(_, v)| v)
}

fn rd32(d: &[u8], off: u64) -> Option<u32> {
    let s = d.get(usize::try_from(off).ok()?..)?;
    le_u32::<_, ()>(s).ok().map(|(_, v)| v)
}

fn rd64(d: &[u8], off: u64) -> Option<u64> {
    let s = d.get(usize::try_from(off).ok()?..)?;
    le_u64::<_, ()>(s).ok().map(|(_, v)| v)
}

fn rd8(d: &[u8], off: u64) -> Option<u8> {
    let s = d.get(usize::try_from(off).ok()?..)?;
    byte::<_, ()>(s).ok().map(|(_, v)| v)
}

// ---------------------------------------------------------------- bitcode

/// Reads an LLVM bitstream: fields of any width, least significant bit
/// first within little-endian bytes.
struct Bits<'a> {
    d: &'a [u8],
    /// Current position, in bits from the start of `d`.
    pos: u64,
    /// End, in bits.
    end: u64,
    /// How many more values a walk may decode: a corrupt record can claim
    /// millions of zero-width values.
    budget: u64,
}

impl<'a> Bits<'a> {
    fn new(d: &'a [u8]) -> Self {
        Bits {
            d,
            pos: 0,
            end: (d.len() as u64).saturating_mul(8),
            budget: 1 << 22,
        }
    }

    fn read(&mut self, n: u32) -> Option<u64> {
        if n > 64 || self.pos.checked_add(u64::from(n))? > self.end {
            return None;
        }
        let mut v: u64 = 0;
        let mut got: u32 = 0;
        while got < n {
            let b = rd8(self.d, self.pos / 8)?;
            let at = (self.pos % 8) as u32;
            let take = (8 - at).min(n - got);
            let bits = (u64::from(b) >> at) & ((1u64 << take) - 1);
            v |= bits << got;
            got += take;
            self.pos += u64::from(take);
        }
        Some(v)
    }

    /// A variable-width integer in chunks of `n` bits.
    fn vbr(&mut self, n: u32) -> Option<u64> {
        if !(2..=32).contains(&n) {
            return None;
        }
        let hi = 1u64 << (n - 1);
        let mut v: u64 = 0;
        let mut shift: u32 = 0;
        loop {
            let piece = self.read(n)?;
            if shift >= 64 {
                return None;
            }
            v |= (piece & (hi - 1)).checked_shl(shift).unwrap_or(0);
            if piece & hi == 0 {
                return Some(v);
            }
            shift += n - 1;
        }
    }

    fn align32(&mut self) {
        self.pos = self.pos.div_ceil(32).saturating_mul(32).min(self.end);
    }
}

#[derive(Clone, Copy)]
enum Op {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

fn char6(v: u64) -> u8 {
    match v {
        0..=25 => b'a' + v as u8,
        26..=51 => b'A' + (v - 26) as u8,
        52..=61 => b'0' + (v - 52) as u8,
        62 => b'.',
        _ => b'_',
    }
}

/// One record of a block: its code, its operands, and its bit range.
struct Record {
    code: u64,
    ops: Vec<u64>,
    start: u64,
    end: u64,
}

fn scalar(bits: &mut Bits<'_>, op: Op) -> Option<u64> {
    bits.budget = bits.budget.checked_sub(1)?;
    match op {
        Op::Literal(v) => Some(v),
        Op::Fixed(w) => bits.read(w),
        Op::Vbr(w) => bits.vbr(w),
        Op::Char6 => bits.read(6).map(|v| u64::from(char6(v))),
        Op::Array | Op::Blob => None,
    }
}

fn abbreviated(bits: &mut Bits<'_>, abbrev: &[Op]) -> Option<(u64, Vec<u64>)> {
    let mut vals: Vec<u64> = Vec::new();
    let mut i = 0;
    while let Some(&op) = abbrev.get(i) {
        match op {
            Op::Array => {
                let elem = *abbrev.get(i + 1)?;
                let n = bits.vbr(6)?;
                // Longer arrays are not what this walk looks for (strings
                // such as the triple); a count beyond the bits left is
                // corrupt.
                if n > MAX_ARRAY || n > bits.end.saturating_sub(bits.pos) {
                    return None;
                }
                for _ in 0..n {
                    vals.push(scalar(bits, elem)?);
                }
                i += 2;
                continue;
            }
            Op::Blob => {
                let n = bits.vbr(6)?;
                bits.align32();
                let skip = n.checked_mul(8)?;
                if bits.pos.checked_add(skip)? > bits.end {
                    return None;
                }
                bits.pos += skip;
                bits.align32();
            }
            _ => vals.push(scalar(bits, op)?),
        }
        i += 1;
    }
    if vals.is_empty() {
        return None;
    }
    let code = vals.remove(0);
    Some((code, vals))
}

/// Reads the records of the block whose contents start at the current
/// position and end at bit `end`, skipping sub-blocks, until `want` says
/// stop or the block ends. Abbreviations defined in the block are used;
/// a record using one from BLOCKINFO ends the walk.
fn records(bits: &mut Bits<'_>, width: u32, end: u64, want: &mut dyn FnMut(Record) -> bool) {
    let mut abbrevs: Vec<Vec<Op>> = Vec::new();
    let saved = bits.end;
    bits.end = end.min(saved);
    for _ in 0..100_000 {
        if bits.pos >= bits.end {
            break;
        }
        let start = bits.pos;
        let Some(id) = bits.read(width) else { break };
        let rec = match id {
            0 => break,
            1 => {
                let (Some(_), Some(_)) = (bits.vbr(8), bits.vbr(4)) else {
                    break;
                };
                bits.align32();
                let Some(words) = bits.read(32) else { break };
                bits.pos = bits
                    .pos
                    .saturating_add(words.saturating_mul(32))
                    .min(bits.end);
                continue;
            }
            2 => {
                let Some(n) = bits.vbr(5) else { break };
                let mut ops = Vec::new();
                let mut ok = true;
                for _ in 0..n.min(1000) {
                    let op = match bits.read(1) {
                        Some(1) => bits.vbr(8).map(Op::Literal),
                        Some(_) => match bits.read(3) {
                            Some(1) => bits
                                .vbr(5)
                                .and_then(|w| (w <= 64).then_some(Op::Fixed(w as u32))),
                            Some(2) => bits
                                .vbr(5)
                                .and_then(|w| (w <= 32).then_some(Op::Vbr(w as u32))),
                            Some(3) => Some(Op::Array),
                            Some(4) => Some(Op::Char6),
                            Some(5) => Some(Op::Blob),
                            _ => None,
                        },
                        None => None,
                    };
                    match op {
                        Some(op) => ops.push(op),
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok || n > 1000 || abbrevs.len() >= 10_000 {
                    break;
                }
                abbrevs.push(ops);
                continue;
            }
            3 => {
                let (Some(code), Some(n)) = (bits.vbr(6), bits.vbr(6)) else {
                    break;
                };
                if n > MAX_ARRAY || n > bits.end.saturating_sub(bits.pos) {
                    break;
                }
                let mut ops = Vec::new();
                for _ in 0..n {
                    bits.budget = bits.budget.saturating_sub(1);
                    if bits.budget == 0 {
                        break;
                    }
                    match bits.vbr(6) {
                        Some(v) => ops.push(v),
                        None => break,
                    }
                }
                Record {
                    code,
                    ops,
                    start,
                    end: bits.pos,
                }
            }
            n => {
                let Some(a) = usize::try_from(n - 4).ok().and_then(|i| abbrevs.get(i)) else {
                    break;
                };
                let a = a.clone();
                let Some((code, ops)) = abbreviated(bits, &a) else {
                    break;
                };
                Record {
                    code,
                    ops,
                    start,
                    end: bits.pos,
                }
            }
        };
        if !want(rec) {
            break;
        }
    }
    bits.end = saved;
}

fn block_name(id: u64) -> Option<&'static str> {
    Some(match id {
        0 => "BLOCKINFO",
        8 => "MODULE_BLOCK",
        9 => "PARAMATTR_BLOCK",
        10 => "PARAMATTR_GROUP_BLOCK",
        11 => "CONSTANTS_BLOCK",
        12 => "FUNCTION_BLOCK",
        13 => "IDENTIFICATION_BLOCK",
        14 => "VALUE_SYMTAB_BLOCK",
        15 => "METADATA_BLOCK",
        16 => "METADATA_ATTACHMENT",
        17 => "TYPE_BLOCK",
        18 => "USELIST_BLOCK",
        19 => "MODULE_STRTAB_BLOCK",
        20 => "GLOBALVAL_SUMMARY_BLOCK",
        21 => "OPERAND_BUNDLE_TAGS_BLOCK",
        22 => "METADATA_KIND_BLOCK",
        23 => "STRTAB_BLOCK",
        24 => "FULL_LTO_GLOBALVAL_SUMMARY_BLOCK",
        25 => "SYMTAB_BLOCK",
        26 => "SYNC_SCOPE_NAMES_BLOCK",
        _ => return None,
    })
}

fn chars(ops: &[u64]) -> Vec<u8> {
    ops.iter().map(|&c| c as u8).collect()
}

/// What the first blocks of a bitcode module say about it.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct BitcodeInfo {
    pub producer: Option<String>,
    pub triple: Option<String>,
}

/// Decodes LLVM bitcode (wrapped or raw) in `[off, off+len)` under `node`.
fn bitcode(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    let d = b.slice(off, len);
    if d.starts_with(WRAPPER_MAGIC) {
        let h = b.group(node, "wrapper header", off, 20.min(len));
        b.leaf(h, "magic", off, 4.min(len), "0x0b17c0de (bitcode wrapper)");
        let (Some(version), Some(start), Some(size), Some(cpu)) =
            (rd32(d, 4), rd32(d, 8), rd32(d, 12), rd32(d, 16))
        else {
            b.error(
                off,
                len,
                "bitcode wrapper header is truncated: it needs 20 bytes",
            );
            return;
        };
        b.leaf(h, "version", off + 4, 4, num(u64::from(version)));
        let so = b.leaf(h, "offset", off + 8, 4, num(u64::from(start)));
        b.leaf(h, "size", off + 12, 4, num(u64::from(size)));
        b.leaf(h, "cpu type", off + 16, 4, format!("0x{cpu:08x}"));
        let (start, size) = (u64::from(start), u64::from(size));
        if start > len || start.saturating_add(size) > len {
            b.error(
                off + 8,
                8,
                format!(
                    "wrapped bitcode [0x{start:x}+0x{size:x}] runs past the end of the image (0x{len:x} bytes)"
                ),
            );
        }
        let start = start.min(len);
        let size = size.min(len - start);
        let inner = b.group(node, "bitcode", off + start, size);
        b.link(so, off + start, size);
        if b.slice(off + start, size).starts_with(BITCODE_MAGIC) {
            let info = raw_bitcode(b, inner, off + start, size);
            b.set_value(inner, summary(&info));
        } else {
            b.error(
                off + start,
                size.min(4),
                "the wrapper's bitcode does not start with BC 0xC0DE",
            );
        }
        return;
    }
    raw_bitcode(b, node, off, len);
}

fn summary(info: &BitcodeInfo) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &info.triple {
        parts.push(format!("triple \"{t}\""));
    }
    if let Some(p) = &info.producer {
        parts.push(format!("producer \"{p}\""));
    }
    if parts.is_empty() {
        "LLVM bitcode".to_string()
    } else {
        format!("LLVM bitcode, {}", parts.join(", "))
    }
}

fn raw_bitcode(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) -> BitcodeInfo {
    let mut info = BitcodeInfo::default();
    b.leaf(node, "magic", off, 4.min(len), "BC 0xC0DE (LLVM bitcode)");
    let d = b.slice(off, len);
    let mut bits = Bits::new(d);
    bits.pos = 32;
    for i in 0..64u32 {
        if bits.end.saturating_sub(bits.pos) < 32 {
            break;
        }
        let start = bits.pos / 8;
        if bits.read(2) != Some(1) {
            // Not a block: the rest is padding or not bitcode.
            if d.get(start as usize..)
                .is_some_and(|r| r.iter().any(|&c| c != 0))
            {
                b.warn(
                    off + start,
                    len - start,
                    "bytes after the last bitcode block are not a block",
                );
            }
            break;
        }
        let (Some(id), Some(width)) = (bits.vbr(8), bits.vbr(4)) else {
            break;
        };
        bits.align32();
        let Some(words) = bits.read(32) else {
            b.error(off + start, len - start, "truncated bitcode block header");
            break;
        };
        let body = bits.pos;
        let want_end = body.saturating_add(words.saturating_mul(32));
        let end = if want_end > bits.end {
            b.error(
                off + start,
                len - start,
                format!("bitcode block of {words} words runs past the end of the bitcode"),
            );
            bits.end
        } else {
            want_end
        };
        let name = block_name(id).map_or_else(|| format!("block {id}"), str::to_string);
        let g = b.group(node, format!("[{i}] {name}"), off + start, end / 8 - start);
        b.set_value(g, format!("{} bytes", end / 8 - start));
        match id {
            13 => identification(b, g, off, &mut bits, width as u32, end, &mut info),
            8 => module(b, g, off, &mut bits, width as u32, end, &mut info),
            _ => {}
        }
        bits.pos = end;
    }
    b.set_value(node, summary(&info));
    info
}

fn rec_leaf(b: &mut Builder<'_>, parent: NodeId, off: u64, r: &Record, name: &str, value: String) {
    let s = r.start / 8;
    let e = r.end.div_ceil(8);
    b.leaf(parent, name, off + s, e - s, value);
}

fn identification(
    b: &mut Builder<'_>,
    g: NodeId,
    off: u64,
    bits: &mut Bits<'_>,
    width: u32,
    end: u64,
    info: &mut BitcodeInfo,
) {
    let mut found: Vec<Record> = Vec::new();
    records(bits, width, end, &mut |r| {
        found.push(r);
        found.len() < 16
    });
    for r in &found {
        match r.code {
            1 => {
                let s = text::from_bytes(&chars(&r.ops));
                rec_leaf(b, g, off, r, "producer", format!("\"{s}\""));
                info.producer = Some(s);
            }
            2 => {
                let v = r.ops.first().copied().unwrap_or(0);
                rec_leaf(b, g, off, r, "epoch", num(v).to_string());
            }
            _ => {}
        }
    }
}

fn module(
    b: &mut Builder<'_>,
    g: NodeId,
    off: u64,
    bits: &mut Bits<'_>,
    width: u32,
    end: u64,
    info: &mut BitcodeInfo,
) {
    let mut found: Vec<Record> = Vec::new();
    let (mut triple, mut layout) = (false, false);
    records(bits, width, end, &mut |r| {
        match r.code {
            2 => triple = true,
            3 => layout = true,
            _ => {}
        }
        if matches!(r.code, 1 | 2 | 3 | 16) {
            found.push(r);
        }
        !(triple && layout) && found.len() < 64
    });
    for r in &found {
        match r.code {
            1 => {
                let v = r.ops.first().copied().unwrap_or(0);
                rec_leaf(b, g, off, r, "version", num(v).to_string());
            }
            2 => {
                let s = text::from_bytes(&chars(&r.ops));
                rec_leaf(b, g, off, r, "triple", format!("\"{s}\""));
                info.triple = Some(s);
            }
            3 => {
                let s = text::from_bytes(&chars(&r.ops));
                rec_leaf(b, g, off, r, "datalayout", format!("\"{s}\""));
            }
            16 => {
                let s = text::from_bytes(&chars(&r.ops));
                rec_leaf(b, g, off, r, "source filename", format!("\"{s}\""));
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------- PTX

/// Skips whitespace and comments at the start of `d`; returns where the
/// first token starts.
fn skip_blank(d: &[u8]) -> Option<usize> {
    let mut i = 0;
    for _ in 0..d.len() {
        match d.get(i..)? {
            [b' ' | b'\t' | b'\r' | b'\n', ..] => i += 1,
            [b'/', b'/', rest @ ..] => {
                i += 2 + memchr::memchr(b'\n', rest).map_or(rest.len(), |n| n + 1);
            }
            [b'/', b'*', rest @ ..] => {
                i += 2 + memchr::memmem::find(rest, b"*/").map(|n| n + 2)?;
            }
            _ => return Some(i),
        }
    }
    Some(i)
}

/// True for PTX assembly text: after comments and blank space, it starts
/// with a `.version` directive.
pub fn is_ptx(d: &[u8]) -> bool {
    let head = d.get(..d.len().min(64 * 1024)).unwrap_or(d);
    match skip_blank(head) {
        Some(i) => head.get(i..).is_some_and(|r| {
            r.starts_with(b".version") && r.get(8).is_some_and(|c| matches!(c, b' ' | b'\t'))
        }),
        None => false,
    }
}

/// The lines of `d`: (start, end) pairs, line ends not included.
fn lines(d: &[u8]) -> impl Iterator<Item = (u64, u64)> + '_ {
    let mut start = 0usize;
    let mut done = false;
    let mut nl = memchr::memchr_iter(b'\n', d);
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        match nl.next() {
            Some(i) => {
                let r = (start as u64, i as u64);
                start = i + 1;
                Some(r)
            }
            None => {
                done = true;
                (start < d.len()).then_some((start as u64, d.len() as u64))
            }
        }
    })
}

fn count_lines(d: &[u8]) -> u64 {
    let n = memchr::memchr_iter(b'\n', d).count() as u64;
    n + u64::from(d.last().is_some_and(|&c| c != b'\n'))
}

fn trim(s: &[u8]) -> &[u8] {
    let a = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let e = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(a, |i| i + 1);
    s.get(a..e).unwrap_or(&[])
}

/// The name a `.entry` or `.func` line declares.
fn declared_name(rest: &[u8]) -> Option<&[u8]> {
    let mut r = trim(rest);
    if r.first() == Some(&b'(') {
        // A return parameter list comes first.
        let close = memchr::memchr(b')', r)?;
        r = trim(r.get(close + 1..)?);
    }
    let end = r
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')))
        .unwrap_or(r.len());
    let name = r.get(..end)?;
    (!name.is_empty()).then_some(name)
}

/// If the PTX line `t` declares a kernel (`.entry`) or a device function
/// (`.func`), possibly after linkage directives: its name and which.
fn declaration(t: &[u8]) -> Option<(String, &'static str)> {
    if memchr::memmem::find(t, b".entry").is_none() && memchr::memmem::find(t, b".func").is_none() {
        return None;
    }
    let mut rest = t;
    loop {
        rest = trim(rest);
        let end = rest
            .iter()
            .position(|c| c.is_ascii_whitespace() || *c == b'(')
            .unwrap_or(rest.len());
        let word = rest.get(..end)?;
        let kind = match word {
            b".entry" => "kernel",
            b".func" => "function",
            w if w.starts_with(b".") && !w.is_empty() => {
                rest = rest.get(end..)?;
                continue;
            }
            _ => return None,
        };
        let name = declared_name(rest.get(end..)?)?;
        return Some((text::from_bytes(name), kind));
    }
}

fn ptx(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    let d = b.slice(off, len);
    let text_len = d.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1) as u64;
    let body = d.get(..text_len as usize).unwrap_or(&[]);
    let mut decls: Vec<(u64, u64, String, &'static str)> = Vec::new();
    let mut seen = [false; 3];
    for (s, e) in lines(body) {
        let line = body.get(s as usize..e as usize).unwrap_or(&[]);
        let t = trim(line);
        if !t.starts_with(b".") {
            continue;
        }
        for (k, dir) in [".version", ".target", ".address_size"].iter().enumerate() {
            if !seen[k] && t.starts_with(dir.as_bytes()) {
                seen[k] = true;
                let v = t.get(dir.len()..).unwrap_or(&[]);
                let v = v.split(|&c| c == b'/').next().unwrap_or(&[]);
                b.leaf(
                    node,
                    dir,
                    off + s,
                    e - s,
                    format!("\"{}\"", text::from_bytes(trim(v))),
                );
            }
        }
        if (decls.len() as u64) < MAX_LIST {
            if let Some((name, kind)) = declaration(t) {
                decls.push((s, e, name, kind));
            }
        }
    }
    if let (Some(first), Some(last)) = (decls.first(), decls.last()) {
        let (lo, hi) = (first.0, last.1);
        let n_k = decls.iter().filter(|k| k.3 == "kernel").count();
        let g = b.group(node, "functions", off + lo, hi - lo);
        b.set_value(g, format!("{n_k} kernels, {} functions", decls.len() - n_k));
        let mut used = std::collections::HashSet::new();
        for (s, e, name, kind) in &decls {
            let mut nm = name.clone();
            if !used.insert(nm.clone()) {
                nm = format!("{name} @{s}");
            }
            b.leaf(g, nm, off + s, e - s, *kind);
        }
    }
    let n = count_lines(body);
    let l = b.group(node, "lines", off, text_len);
    b.set_value(l, format!("{n} lines"));
    if n > 0 {
        let f: LazyFn =
            Arc::new(move |b: &mut Builder<'_>, id| line_nodes(b, id, off, text_len, 1, n));
        b.lazy(l, f);
    }
    if text_len < len {
        b.leaf(
            node,
            "terminator",
            off + text_len,
            len - text_len,
            format!("{} NUL bytes", len - text_len),
        );
    }
    b.set_value(node, "PTX text");
}

/// The `n` lines of `[off, off+len)`, the first numbered `first`: as leaves
/// if there are few, else in lazily built groups.
fn line_nodes(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64, first: u64, n: u64) {
    let d = b.slice(off, len);
    if n <= GROUP {
        for (i, (s, e)) in lines(d).enumerate() {
            let t = d.get(s as usize..e as usize).unwrap_or(&[]);
            b.leaf(
                parent,
                format!("line {}", first + i as u64),
                off + s,
                e - s,
                format!("\"{}\"", text::from_bytes(t)),
            );
        }
        return;
    }
    let step = group_size(n);
    // Group boundaries only: one pass, no per-line memory.
    let mut start = 0u64;
    let mut count = 0u64;
    let mut a = first;
    let mut groups: Vec<(u64, u64, u64, u64)> = Vec::new();
    for (_, e) in lines(d) {
        count += 1;
        if count == step {
            let end = (e + 1).min(len);
            groups.push((start, end, a, count));
            a += count;
            start = end;
            count = 0;
        }
    }
    if count > 0 {
        groups.push((start, len, a, count));
    }
    for (s, e, a, c) in groups {
        let g = b.group(
            parent,
            format!("lines {}..{}", a, a + c - 1),
            off + s,
            e - s,
        );
        let f: LazyFn =
            Arc::new(move |b: &mut Builder<'_>, id| line_nodes(b, id, off + s, e - s, a, c));
        b.lazy(g, f);
    }
}

// ---------------------------------------------------------------- CUDA fatbin

fn fatbin_kind(k: u16) -> Option<&'static str> {
    match k {
        1 => Some("PTX"),
        2 => Some("ELF"),
        _ => None,
    }
}

/// A CUDA fatbin. NVIDIA documents none of it: the container header
/// (magic, version, header size, size of what follows) is the part the CUDA
/// headers show; the entry fields past the header and payload sizes are
/// as cuobjdump output and public reverse-engineering agree.
fn fatbin(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64, depth: u32) {
    let d = b.slice(off, len);
    let h = b.group(node, "header", off, 16.min(len));
    b.leaf(h, "magic", off, 4.min(len), "0xba55ed50 (CUDA fatbin)");
    let version = b.u16(h, "version", off + 4, LE);
    let hsize = b.u16(h, "header size", off + 6, LE);
    let fsize = b.u64(h, "fat size", off + 8, LE);
    let (Some(_), Some(hsize), Some(fsize)) = (version, hsize, fsize) else {
        return;
    };
    let start = u64::from(hsize).max(16).min(len);
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
    let mut i = 0u64;
    let mut summary = Vec::new();
    while pos.saturating_add(16) <= end && i < MAX_LIST {
        let (Some(kind), Some(ev), Some(ehs), Some(psize)) = (
            rd16(d, pos),
            rd16(d, pos + 2),
            rd32(d, pos + 4),
            rd64(d, pos + 8),
        ) else {
            break;
        };
        let ehs = u64::from(ehs);
        if ehs < 16 || ehs > end - pos {
            b.error(
                off + pos + 4,
                4,
                format!("fatbin entry header size {ehs} is impossible here"),
            );
            break;
        }
        let mut pend = (pos + ehs).saturating_add(psize);
        if pend > end {
            b.error(
                off + pos + 8,
                8,
                format!("fatbin entry payload of {psize} bytes runs past the fatbin's end"),
            );
            pend = end;
        }
        let arch = if ehs >= 0x20 {
            rd32(d, pos + 0x1c)
        } else {
            None
        };
        let kname = fatbin_kind(kind).unwrap_or("unknown");
        let ename = match arch {
            Some(a) => format!("[{i}] {kname} sm_{a}"),
            None => format!("[{i}] {kname}"),
        };
        summary.push(ename.clone());
        let g = b.group(node, ename, off + pos, pend - pos);
        let eh = b.group(g, "header", off + pos, ehs);
        b.leaf(
            eh,
            "kind",
            off + pos,
            2,
            named(u64::from(kind), fatbin_kind(kind)),
        );
        b.leaf(eh, "version", off + pos + 2, 2, format!("0x{ev:04x}"));
        b.leaf(eh, "header size", off + pos + 4, 4, num(ehs));
        let ps = b.leaf(eh, "payload size", off + pos + 8, 8, num(psize));
        b.link(ps, off + pos + ehs, pend - pos - ehs);
        if ehs >= 0x20 {
            if let (Some(minor), Some(major), Some(a)) =
                (rd16(d, pos + 0x18), rd16(d, pos + 0x1a), arch)
            {
                b.leaf(
                    eh,
                    "code version",
                    off + pos + 0x18,
                    4,
                    format!("{major}.{minor}"),
                );
                b.leaf(eh, "arch", off + pos + 0x1c, 4, format!("sm_{a}"));
            }
        }
        if ehs >= 0x30 {
            if let Some(fl) = rd64(d, pos + 0x28) {
                b.leaf(eh, "flags", off + pos + 0x28, 8, format!("0x{fl:x}"));
            }
        }
        let plen = pend - pos - ehs;
        if plen > 0 {
            let p = b.group(g, "payload", off + pos + ehs, plen);
            let f = open_at(b, p, off + pos + ehs, plen, depth + 1);
            b.set_value(p, image_value(f, plen));
        }
        pos = pend.max(pos + 16);
        i += 1;
    }
    b.set_value(node, format!("CUDA fatbin, {i} entries"));
}

/// The value an image node shows: what it is and how big.
pub fn image_value(f: Option<&str>, size: u64) -> String {
    if size == 0 {
        return "empty".to_string();
    }
    match f {
        Some(f) => format!("{}, {size} bytes", label(f)),
        None => format!("not recognised, {size} bytes"),
    }
}

// ---------------------------------------------------------------- clang offload bundles

fn bundle(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64, depth: u32) {
    let d = b.slice(off, len);
    b.leaf(
        node,
        "magic",
        off,
        24.min(len),
        "\"__CLANG_OFFLOAD_BUNDLE__\"",
    );
    let Some(count) = b.u64(node, "entry count", off + 24, LE) else {
        return;
    };
    // Read the table first: its size is known only at its end.
    let mut pos: u64 = 32;
    let mut items: Vec<(u64, u64, u64, u64)> = Vec::new();
    while (items.len() as u64) < count.min(MAX_LIST) {
        let n = items.len();
        let (Some(o), Some(s), Some(ts)) = (rd64(d, pos), rd64(d, pos + 8), rd64(d, pos + 16))
        else {
            b.error(
                off + pos.min(len),
                len - pos.min(len),
                format!("bundle entry {n} is truncated"),
            );
            break;
        };
        if ts > len - (pos + 24).min(len) {
            b.error(
                off + pos + 16,
                8,
                format!("bundle entry {n}: triple size {ts} runs past the end"),
            );
            break;
        }
        items.push((pos, o, s, ts));
        pos += 24 + ts;
    }
    if count > MAX_LIST {
        b.warn(
            off + 24,
            8,
            format!("{count} bundle entries; showing the first {MAX_LIST}"),
        );
    }
    let table = b.group(node, "entries", off + 32, pos - 32);
    b.set_value(table, format!("{} entries", items.len()));
    let mut payloads = Vec::new();
    for (i, &(at, o, s, ts)) in items.iter().enumerate() {
        let triple = text::from_bytes(
            d.get((at + 24) as usize..(at + 24 + ts) as usize)
                .unwrap_or(&[]),
        );
        let e = b.group(table, format!("[{i}]"), off + at, 24 + ts);
        b.set_value(e, format!("\"{triple}\""));
        let of = b.leaf(e, "offset", off + at, 8, num(o));
        b.leaf(e, "size", off + at + 8, 8, num(s));
        b.leaf(e, "triple size", off + at + 16, 8, num(ts));
        b.leaf(e, "triple", off + at + 24, ts, format!("\"{triple}\""));
        if o > len || s > len - o.min(len) {
            b.error(
                off + at,
                16,
                format!("bundle entry {i}: code object [0x{o:x}+0x{s:x}] runs past the end of the bundle (0x{len:x} bytes)"),
            );
        }
        let o = o.min(len);
        let s = s.min(len - o);
        b.link(of, off + o, s);
        payloads.push((triple, o, s));
    }
    let mut used = std::collections::HashSet::new();
    for (i, (triple, o, s)) in payloads.into_iter().enumerate() {
        let mut name = if triple.is_empty() {
            format!("[{i}]")
        } else {
            triple
        };
        if !used.insert(name.clone()) {
            name = format!("{name} [{i}]");
        }
        let p = b.group(node, name, off + o, s);
        let f = open_at(b, p, off + o, s, depth + 1);
        b.set_value(p, image_value(f, s));
    }
    b.set_value(
        node,
        format!("clang offload bundle, {} entries", items.len()),
    );
}

fn compression_name(m: u16) -> Option<&'static str> {
    match m {
        0 => Some("zlib"),
        1 => Some("zstd"),
        _ => None,
    }
}

/// A compressed clang offload bundle ("CCOB"): a header, then the plain
/// bundle compressed with zlib or zstd.
fn compressed_bundle(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    let d = b.slice(off, len);
    let (Some(version), Some(method)) = (rd16(d, 4), rd16(d, 6)) else {
        b.leaf(node, "magic", off, 4.min(len), "\"CCOB\"");
        b.error(off, len, "compressed offload bundle header is truncated");
        return;
    };
    let hlen: u64 = match version {
        1 => 20,
        2 => 24,
        3 => 32,
        _ => 8,
    };
    let hlen = hlen.min(len);
    let h = b.group(node, "header", off, hlen);
    b.leaf(h, "magic", off, 4, "\"CCOB\"");
    b.leaf(h, "version", off + 4, 2, num(u64::from(version)));
    b.leaf(
        h,
        "compression",
        off + 6,
        2,
        named(u64::from(method), compression_name(method)),
    );
    let fields: &[(&str, u64, u64)] = match version {
        1 => &[("uncompressed size", 8, 4), ("hash", 12, 8)],
        2 => &[
            ("total size", 8, 4),
            ("uncompressed size", 12, 4),
            ("hash", 16, 8),
        ],
        3 => &[
            ("total size", 8, 8),
            ("uncompressed size", 16, 8),
            ("hash", 24, 8),
        ],
        _ => {
            b.error(
                off + 4,
                2,
                format!("unknown compressed offload bundle version {version}"),
            );
            b.leaf(
                node,
                "data",
                off + hlen,
                len - hlen,
                text::hex(d.get(hlen as usize..).unwrap_or(&[]), 16),
            );
            return;
        }
    };
    let mut total = None;
    for &(name, at, size) in fields {
        let v = if size == 4 {
            rd32(d, at).map(u64::from)
        } else {
            rd64(d, at)
        };
        match v {
            Some(v) if name == "hash" => {
                b.leaf(h, name, off + at, size, format!("0x{v:016x}"));
            }
            Some(v) => {
                b.leaf(h, name, off + at, size, num(v));
                if name == "total size" {
                    total = Some(v);
                }
            }
            None => {
                b.error(
                    off + at.min(len),
                    len - at.min(len),
                    format!("compressed bundle header: {name} is truncated"),
                );
                return;
            }
        }
    }
    let mut end = len;
    if let Some(t) = total {
        if t > len {
            b.error(
                off + 8,
                8,
                format!("total size {t} runs past the end: only {len} bytes remain"),
            );
        } else if t >= hlen {
            end = t;
        }
    }
    b.leaf(
        node,
        "compressed",
        off + hlen,
        end - hlen,
        format!(
            "{} bytes, {}",
            end - hlen,
            compression_name(method).unwrap_or("unknown compression")
        ),
    );
    b.set_value(node, format!("compressed clang offload bundle v{version}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_read_lsb_first() {
        let d = [0b1010_0101u8, 0xff, 0x01, 0x00];
        let mut b = Bits::new(&d);
        assert_eq!(b.read(2), Some(0b01));
        assert_eq!(b.read(3), Some(0b001));
        assert_eq!(b.read(3), Some(0b101));
        assert_eq!(b.read(9), Some(0x1ff));
        b.align32();
        assert_eq!(b.pos, 32);
        assert_eq!(b.read(1), None);
        // VBR-6: 0b100011 then 0b000001 = 3 + (1 << 5).
        let d = [0b0110_0011u8, 0x00, 0, 0];
        let mut b = Bits::new(&d);
        assert_eq!(b.vbr(6), Some(3 | (1 << 5)));
        assert_eq!(Bits::new(&[0xff; 4]).vbr(6), None);
    }

    #[test]
    fn char6_alphabet() {
        let s: Vec<u8> = [0, 25, 26, 51, 52, 61, 62, 63]
            .iter()
            .map(|&v| char6(v))
            .collect();
        assert_eq!(s, b"azAZ09._");
    }

    #[test]
    fn ptx_is_recognised_by_its_version_directive() {
        assert!(is_ptx(
            b"//\n// Generated\n//\n\n.version 8.0\n.target sm_90\n"
        ));
        assert!(is_ptx(b"/* c */ .version 7.0\n"));
        assert!(!is_ptx(b".versionx 7.0"));
        assert!(!is_ptx(b"hello world\n"));
        assert!(!is_ptx(b"/* never closed .version 7.0"));
    }

    #[test]
    fn ptx_declarations() {
        assert_eq!(
            declaration(b".visible .entry kern(").map(|d| d.0),
            Some("kern".to_string())
        );
        assert_eq!(
            declaration(b".visible .func  (.param .b32 r) add(").map(|d| (d.0, d.1)),
            Some(("add".to_string(), "function"))
        );
        assert_eq!(declaration(b"call.uni (r), add, (x);"), None);
        assert_eq!(declaration(b"// .entry in a comment"), None);
    }

    #[test]
    fn long_ptx_lines_are_grouped() {
        let mut t = b".version 8.0\n.target sm_90\n".to_vec();
        for i in 0..2500 {
            t.extend_from_slice(format!("// line {i}\n").as_bytes());
        }
        let img = t.clone();
        // Alone in a file, PTX is not a top-level format; open it as an
        // image is opened.
        fn dispatch(b: &mut Builder<'_>, p: NodeId, off: u64, len: u64) -> Option<&'static str> {
            if p == 0 {
                open(b, p, off, len)
            } else {
                crate::formats::dispatch(b, p, off, len)
            }
        }
        let src = std::sync::Arc::new(crate::model::Source::from_vec(img));
        let mut tree = crate::model::Tree::build(src, "x", dispatch);
        assert_eq!(tree.format(), "ptx");
        let lines = tree.find_path("lines").unwrap();
        assert_eq!(tree.value_text(lines).as_deref(), Some("2502 lines"));
        let groups = tree.children(lines);
        assert_eq!(groups.len(), 3);
        assert_eq!(tree.name(groups[2]), "lines 2001..2502");
        let last = tree.children(groups[2]);
        assert_eq!(last.len(), 502);
        assert_eq!(
            tree.value_text(last[501]).as_deref(),
            Some("\"// line 2499\"")
        );
        let end = tree.node(last[501]).unwrap().end();
        assert_eq!(end + 1, t.len() as u64);
    }

    /// Writes a bitstream, least significant bit first.
    #[derive(Default)]
    struct W {
        out: Vec<u8>,
        bits: u64,
    }

    impl W {
        fn emit(&mut self, v: u64, n: u32) {
            for i in 0..n {
                if self.bits.is_multiple_of(8) {
                    self.out.push(0);
                }
                if v >> i & 1 == 1 {
                    let last = self.out.len() - 1;
                    self.out[last] |= 1 << (self.bits % 8);
                }
                self.bits += 1;
            }
        }
        fn vbr(&mut self, mut v: u64, n: u32) {
            let hi = 1u64 << (n - 1);
            while v >= hi {
                self.emit(v & (hi - 1) | hi, n);
                v >>= n - 1;
            }
            self.emit(v, n);
        }
        fn align32(&mut self) {
            while !self.bits.is_multiple_of(32) {
                self.emit(0, 1);
            }
        }
    }

    #[test]
    fn identification_block_is_decoded() {
        let mut w = W::default();
        w.emit(0xdec04342, 32);
        w.emit(1, 2); // ENTER_SUBBLOCK
        w.vbr(13, 8);
        w.vbr(3, 4);
        w.align32();
        let len_at = w.out.len();
        w.emit(0, 32);
        let body = w.bits;
        // DEFINE_ABBREV [literal 1, array of char6]
        w.emit(2, 3);
        w.vbr(3, 5);
        w.emit(1, 1);
        w.vbr(1, 8);
        w.emit(0, 1);
        w.emit(3, 3);
        w.emit(0, 1);
        w.emit(4, 3);
        w.emit(4, 3); // the abbreviation
        w.vbr(4, 6);
        for c in [37u64, 37, 47, 38] {
            w.emit(c, 6); // "LLVM" in char6
        }
        w.emit(3, 3); // UNABBREV_RECORD: EPOCH 0
        w.vbr(2, 6);
        w.vbr(1, 6);
        w.vbr(0, 6);
        w.emit(0, 3); // END_BLOCK
        w.align32();
        let words = ((w.bits - body) / 32) as u32;
        w.out[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());
        let mut bits = Bits::new(&w.out);
        bits.pos = body;
        let mut seen = Vec::new();
        records(&mut bits, 3, w.bits, &mut |r| {
            seen.push((r.code, r.ops));
            true
        });
        assert_eq!(seen, vec![(1, vec![76, 76, 86, 77]), (2, vec![0])]);
        assert_eq!(text::from_bytes(&chars(&seen[0].1)), "LLVM");
    }

    #[test]
    fn hostile_bitcode_ends_quickly() {
        // An abbreviation of zero-width array elements, then records that
        // each claim 60000 of them: the walk's budget stops it.
        let mut w = W::default();
        w.emit(2, 3);
        w.vbr(3, 5);
        w.emit(1, 1);
        w.vbr(1, 8);
        w.emit(0, 1);
        w.emit(3, 3);
        w.emit(0, 1);
        w.emit(1, 3);
        w.vbr(0, 5);
        for _ in 0..100_000 {
            w.emit(4, 3);
            w.vbr(60_000, 6);
        }
        let mut bits = Bits::new(&w.out);
        let mut n = 0;
        let end = bits.end;
        records(&mut bits, 3, end, &mut |_| {
            n += 1;
            true
        });
        assert!(n < 100, "{n} records decoded");
    }
}
