//! LLVM bitcode, raw (`BC` 0xC0DE) or behind the 0x0B17C0DE wrapper
//! header: the wrapper's fields, the top-level blocks, and the producer,
//! triple, data layout and source file name the first blocks hold.

use crate::model::read::u8_at;
use compact_str::CompactString;

use crate::model::record::record;
use crate::model::{text, Builder, Endian, Fact, Fields, NodeId, Span, Value};

/// Raw bitcode: `BC` 0xC0DE.
pub const BITCODE_MAGIC: &[u8] = &[0x42, 0x43, 0xc0, 0xde];
/// The bitcode wrapper header's magic, 0x0B17C0DE little-endian.
pub const WRAPPER_MAGIC: &[u8] = &[0xde, 0xc0, 0x17, 0x0b];

/// The longest record operand list the bitcode walk decodes.
const MAX_ARRAY: u64 = 1 << 16;

/// Raw bitcode is its magic and then a block: the first abbreviation ID
/// (two bits, the top level's width) is 1, ENTER_SUBBLOCK, as LLVM's
/// reader requires of the top level. Four bytes of data that happen to
/// be `BC` 0xC0DE (a table of magic numbers in a tool's `.rodata`) are
/// not taken for bitcode; the magic alone is.
pub fn detect(d: &[u8]) -> bool {
    let block_next = d.get(BITCODE_MAGIC.len()).is_none_or(|b| b & 3 == 1);
    (d.starts_with(BITCODE_MAGIC) && block_next) || d.starts_with(WRAPPER_MAGIC)
}

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
            let b = u8_at(self.d, self.pos / 8)?;
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

record! {
    /// The wrapper header Darwin puts before bitcode: where the bitcode is
    /// in the image, and for which CPU.
    mod wrapper: Wrapper (Endian::Little) {
        magic: u32 = "magic", Show::Hidden,
        version: u32 = "version", Show::Auto,
        offset: u32 = "offset", Show::Auto,
        size: u32 = "size", Show::Auto,
        cpu_type: u32 = "cpu type", Show::Hex,
    }
}

/// What the first blocks of a bitcode module say about it.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct BitcodeInfo {
    pub producer: Option<String>,
    pub triple: Option<String>,
}

/// Decodes LLVM bitcode (wrapped or raw) in `at` under `node`.
pub fn parse(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let d = b.bytes(at);
    if d.starts_with(WRAPPER_MAGIC) {
        use wrapper::AT;
        let h = b.group(node, "wrapper header", at.offset, wrapper::SIZE.min(at.len));
        let magic = AT.magic.size.min(at.len);
        b.leaf(h, "magic", at.offset, magic, "0x0b17c0de (bitcode wrapper)");
        let Ok(Wrapper {
            offset: start,
            size,
            ..
        }) = Wrapper::read(d)
        else {
            b.error(
                at.offset,
                at.len,
                "bitcode wrapper header is truncated: it needs 20 bytes",
            );
            return;
        };
        let mut f = Fields::new(b, h, AT.version.of(at.offset), Endian::Little);
        let so = Wrapper::show_part(&mut f, AT.version.off, wrapper::SIZE).offset;
        let (start, size) = (u64::from(start), u64::from(size));
        if start > at.len || start.saturating_add(size) > at.len {
            let place = AT.offset.through(AT.size);
            b.error(
                place.of(at.offset),
                place.size,
                format!(
                    "wrapped bitcode [0x{start:x}+0x{size:x}] runs past the end of the image (0x{:x} bytes)",
                    at.len
                ),
            );
        }
        let bc = at.part(start, size);
        let inner = b.group(node, "bitcode", bc.offset, bc.len);
        if let Some(so) = so {
            b.link(so, bc);
        }
        if b.bytes(bc).starts_with(BITCODE_MAGIC) {
            let info = raw_bitcode(b, inner, bc);
            b.set_value(inner, summary(&info));
        } else {
            let magic = bc.take(4);
            b.error(
                magic.offset,
                magic.len,
                "the wrapper's bitcode does not start with BC 0xC0DE",
            );
        }
        return;
    }
    raw_bitcode(b, node, at);
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

fn raw_bitcode(b: &mut Builder<'_>, node: NodeId, at: Span) -> BitcodeInfo {
    let mut info = BitcodeInfo::default();
    b.leaf(
        node,
        "magic",
        at.offset,
        4.min(at.len),
        "BC 0xC0DE (LLVM bitcode)",
    );
    let d = b.bytes(at);
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
                .is_some_and(|r| !text::looks_zero(r))
            {
                b.warn(
                    at.offset + start,
                    at.len - start,
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
            b.error(
                at.offset + start,
                at.len - start,
                "truncated bitcode block header",
            );
            break;
        };
        let body = bits.pos;
        let want_end = body.saturating_add(words.saturating_mul(32));
        let end = if want_end > bits.end {
            b.error(
                at.offset + start,
                at.len - start,
                format!("bitcode block of {words} words runs past the end of the bitcode"),
            );
            bits.end
        } else {
            want_end
        };
        let name = block_name(id).map_or_else(|| format!("block {id}"), str::to_string);
        let g = b.group(
            node,
            format!("[{i}] {name}"),
            at.offset + start,
            end / 8 - start,
        );
        b.set_value(g, Value::Size(end / 8 - start));
        match id {
            13 => identification(b, g, at.offset, &mut bits, width as u32, end, &mut info),
            8 => module(b, g, at.offset, &mut bits, width as u32, end, &mut info),
            _ => {}
        }
        bits.pos = end;
    }
    b.set_value(node, summary(&info));
    info
}

/// What a known record holds.
#[derive(Clone, Copy)]
enum Holds {
    /// A number: its first operand.
    Num(&'static str),
    /// A string: its operands as characters.
    Str(&'static str),
    /// A string that names the module's target (its triple): a fact for
    /// `--targets` as well as a leaf.
    Target(&'static str),
}

/// The records of an IDENTIFICATION_BLOCK shown, by code.
const IDENTIFICATION: &[(u64, Holds)] = &[(1, Holds::Str("producer")), (2, Holds::Num("epoch"))];

/// The records of a MODULE_BLOCK shown, by code.
const MODULE: &[(u64, Holds)] = &[
    (1, Holds::Num("version")),
    (2, Holds::Target("triple")),
    (3, Holds::Str("datalayout")),
    (16, Holds::Str("source filename")),
];

/// A leaf for every record of `found` that `known` names, over the bytes
/// its bits lie in. Returns the string of the last record of code `keep`.
fn record_leaves(
    b: &mut Builder<'_>,
    parent: NodeId,
    off: u64,
    found: &[Record],
    known: &[(u64, Holds)],
    keep: u64,
) -> Option<String> {
    let mut kept = None;
    for r in found {
        let Some(&(_, holds)) = known.iter().find(|k| k.0 == r.code) else {
            continue;
        };
        let mut target = None;
        let (name, value) = match holds {
            Holds::Num(name) => (name, Value::uint(r.ops.first().copied().unwrap_or(0))),
            Holds::Str(name) | Holds::Target(name) => {
                let s = text::from_bytes(&chars(&r.ops));
                let v = Value::str(&s);
                if matches!(holds, Holds::Target(_)) {
                    target = Some(CompactString::from(s.as_str()));
                }
                if r.code == keep {
                    kept = Some(s);
                }
                (name, v)
            }
        };
        let s = r.start / 8;
        let e = r.end.div_ceil(8);
        let leaf = b.leaf(parent, name, off + s, e - s, value);
        if let Some(t) = target {
            b.fact(leaf, Fact::NamesTarget(t));
        }
    }
    kept
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
    if let Some(s) = record_leaves(b, g, off, &found, IDENTIFICATION, 1) {
        info.producer = Some(s);
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
    if let Some(s) = record_leaves(b, g, off, &found, MODULE, 2) {
        info.triple = Some(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_bitcode_is_its_magic_and_a_block() {
        // What clang-22 -emit-llvm writes first: IDENTIFICATION_BLOCK.
        assert!(detect(b"BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00"));
        assert!(detect(b"BC\xc0\xde"));
        assert!(detect(b"\xde\xc0\x17\x0b\x00\x00\x00\x00"));
        // The first bytes of binutils readelf's .data.rel.ro: a table
        // that starts with the magic, then zeros (END_BLOCK at the top
        // level), and a record (abbreviation ID 3).
        assert!(!detect(b"BC\xc0\xde\x00\x00\x00\x00\x90\x9f\x07\x00"));
        assert!(!detect(b"BC\xc0\xde\x03"));
    }

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
        let words = words.to_le_bytes();
        w.out[len_at..len_at + words.len()].copy_from_slice(&words);
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
