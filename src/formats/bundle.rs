//! Clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`): the entry table
//! and each code object opened by its own bytes; and compressed bundles
//! (`CCOB`): the header, and the bundle inflated into a byte space of its
//! own and opened there as a bundle.

use super::compress::{self, Method};
use super::image;
use md5::{Digest, Md5};

use super::elf::SectionHook;
use crate::model::read::{u64_at, uint_at};
use crate::model::record::{record, At, Record, Short};
use crate::model::{text, Builder, Endian, Fact, Fields, Format, Gap, Held, NodeId, Span, Value};

const LE: Endian = Endian::Little;

/// A clang offload bundle.
pub const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// A compressed clang offload bundle.
pub const CCOB_MAGIC: &[u8] = b"CCOB";

/// Entries shown.
const MAX_LIST: u64 = 4096;

/// Where a bundle's entry count is, and its entry table.
const COUNT_AT: u64 = MAGIC.len() as u64;
const TABLE: u64 = COUNT_AT + 8;

record! {
    /// The fixed part of a bundle entry; its triple follows.
    mod bentry: BundleEntry (LE) {
        offset: u64 = "offset", Show::Auto,
        size: u64 = "size", Show::Auto,
        triple_size: u64 = "triple size", Show::Auto,
    }
}

/// The bundle entry at `pos` in `d`.
fn entry_at(d: &[u8], pos: u64) -> Option<BundleEntry> {
    BundleEntry::read(d.get(usize::try_from(pos).ok()?..)?).ok()
}

record! {
    /// The first 8 bytes of every compressed bundle's header.
    mod ccob: Ccob (LE) {
        magic: [u8; 4] = "magic", Show::Text,
        version: u16 = "version", Show::Wide(Value::uint),
        method: u16 = "compression", Show::Named(|v| compression(v).map(Method::name)),
    }
}

record! {
    /// What follows in version 1.
    mod ccob_v1: CcobV1 (LE) {
        uncompressed_size: u32 = "uncompressed size", Show::Auto,
        hash: u64 = "hash", Show::Hex,
    }
}

record! {
    /// What follows in version 2.
    mod ccob_v2: CcobV2 (LE) {
        total_size: u32 = "total size", Show::Auto,
        uncompressed_size: u32 = "uncompressed size", Show::Auto,
        hash: u64 = "hash", Show::Hex,
    }
}

record! {
    /// What follows in version 3: the sizes in 64 bits.
    mod ccob_v3: CcobV3 (LE) {
        total_size: u64 = "total size", Show::Auto,
        uncompressed_size: u64 = "uncompressed size", Show::Auto,
        hash: u64 = "hash", Show::Hex,
    }
}

/// A compressed bundle's header after its first 8 bytes, in any version.
struct CcobTail {
    total: Option<u64>,
    announced: u64,
    hash: u64,
    /// Where the hash is, from the header's start, and its node.
    hash_at: u64,
    hash_node: Option<NodeId>,
}

/// Reads the header fields of `version` after the first 8 bytes (at `at`,
/// `d` being the bundle from there) and shows them under `f`'s parent.
fn ccob_tail(version: u16, d: &[u8], f: &mut Fields<'_, '_>) -> Option<Result<CcobTail, Short>> {
    let h = ccob::SIZE;
    // The versions differ in their types only.
    macro_rules! tail {
        ($rec:ident, $m:ident, |$t:ident| $total:expr) => {{
            let n = $rec::show(f).hash;
            $rec::read(d).map(|$t| CcobTail {
                total: $total,
                announced: $t.uncompressed_size.into(),
                hash: $t.hash,
                hash_at: h + $m::AT.hash.off,
                hash_node: n,
            })
        }};
    }
    Some(match version {
        1 => tail!(CcobV1, ccob_v1, |t| None),
        2 => tail!(CcobV2, ccob_v2, |t| Some(t.total_size.into())),
        3 => tail!(CcobV3, ccob_v3, |t| Some(t.total_size)),
        _ => return None,
    })
}

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

pub fn detect_compressed(d: &[u8]) -> bool {
    d.starts_with(CCOB_MAGIC)
}

/// A clang offload bundle: the entry table, then each code object opened
/// by its own bytes.
fn parse_one(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let d = b.bytes(at);
    b.leaf(
        node,
        "magic",
        at.offset,
        COUNT_AT.min(at.len),
        Value::str_bytes(MAGIC),
    );
    let Some(count) = b.u64(node, "entry count", at.offset + COUNT_AT, LE) else {
        return;
    };
    // Read the table first: its size is known only at its end.
    let mut pos: u64 = TABLE;
    let mut items: Vec<(u64, u64, u64, u64)> = Vec::new();
    while (items.len() as u64) < count.min(MAX_LIST) {
        let n = items.len();
        let Some(BundleEntry {
            offset: o,
            size: s,
            triple_size: ts,
        }) = entry_at(d, pos)
        else {
            b.error(
                at.offset + pos.min(at.len),
                at.len - pos.min(at.len),
                format!("bundle entry {n} is truncated"),
            );
            break;
        };
        if ts > at.len - (pos + bentry::SIZE).min(at.len) {
            bentry::AT.triple_size.error(
                b,
                at.offset + pos,
                format!("bundle entry {n}: triple size {ts} runs past the end"),
            );
            break;
        }
        items.push((pos, o, s, ts));
        pos += bentry::SIZE + ts;
    }
    if count > MAX_LIST {
        b.warn(
            at.offset + COUNT_AT,
            TABLE - COUNT_AT,
            format!("{count} bundle entries; showing the first {MAX_LIST}"),
        );
    }
    let table = b.group(node, "entries", at.offset + TABLE, pos - TABLE);
    b.set_value(table, format!("{} entries", items.len()));
    let mut payloads = Vec::new();
    for (i, &(pos, o, s, ts)) in items.iter().enumerate() {
        let t_at = pos + bentry::SIZE;
        let triple = text::from_bytes(d.get(t_at as usize..(t_at + ts) as usize).unwrap_or(&[]));
        let e = b.group(table, format!("[{i}]"), at.offset + pos, bentry::SIZE + ts);
        b.set_value(e, Value::str(&triple));
        let of = BundleEntry::show(&mut Fields::new(b, e, at.offset + pos, LE)).offset;
        let t = b.group(e, "triple", at.offset + t_at, ts);
        b.set_value(t, Value::str(&triple));
        id_parts(b, t, at.offset + t_at, &triple);
        if o > at.len || s > at.len - o.min(at.len) {
            let span = bentry::AT.offset.through(bentry::AT.size);
            b.error(
                span.of(at.offset + pos),
                span.size,
                format!("bundle entry {i}: code object [0x{o:x}+0x{s:x}] runs past the end of the bundle (0x{:x} bytes)", at.len),
            );
        }
        let o = o.min(at.len);
        let object = at.part(o, s);
        if let Some(of) = of {
            b.link(of, object);
        }
        payloads.push((triple, object));
    }
    let mut used = std::collections::HashSet::new();
    for (i, (id, object)) in payloads.into_iter().enumerate() {
        let mut name = if id.is_empty() {
            format!("[{i}]")
        } else {
            id.clone()
        };
        if !used.insert(name.clone()) {
            name = format!("{name} [{i}]");
        }
        let p = b.group(node, name, object.offset, object.len);
        b.fact(p, Fact::Held(held(&id)));
        image::open_image(b, p, object);
    }
    b.set_value(
        node,
        format!("clang offload bundle, {} entries", items.len()),
    );
}

/// The parts of a bundle entry id at `at` (`hipv4-amdgcn-amd-amdhsa--gfx90a`):
/// the offload kind, the target triple (four parts) and the target id.
fn id_parts(b: &mut Builder<'_>, node: NodeId, at: u64, id: &str) {
    if id.len() as u64 > 4096 || !id.is_ascii() || !id.contains('-') {
        return;
    }
    let (kind, triple, tid) = split_id(id);
    // The dashes between the parts.
    b.gaps(node, Gap::Syntax);
    let dash = '-'.len_utf8() as u64;
    let k = kind.len() as u64;
    b.leaf(node, "offload kind", at, k, Value::str(kind));
    let t0 = at + k + dash;
    let t = triple.len() as u64;
    b.leaf(node, "target triple", t0, t, Value::str(triple));
    if !tid.is_empty() {
        b.leaf(
            node,
            "target id",
            t0 + t + dash,
            tid.len() as u64,
            Value::str(tid),
        );
    }
}

/// A bundle entry id: `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+` is kind
/// `hipv4`, triple `amdgcn-amd-amdhsa-`, target id `gfx90a:xnack+`.
pub fn split_id(id: &str) -> (&str, &str, &str) {
    let Some((kind, rest)) = id.split_once('-') else {
        return (id, "", "");
    };
    // The triple has four parts (arch-vendor-os-environment); what
    // follows the fourth dash is the target id.
    let split = rest.match_indices('-').map(|(i, _)| i).nth(3);
    match split.and_then(|i| rest.split_at_checked(i)) {
        Some((triple, tid)) => (kind, triple, tid.strip_prefix('-').unwrap_or(tid)),
        None => (kind, rest, ""),
    }
}

/// What an entry id says of its code object: its offload kind, and its
/// target id (else its triple); a `host-…` entry is no device code.
pub fn held(id: &str) -> Held {
    let (kind, triple, target) = split_id(id);
    let target = if target.is_empty() {
        triple.trim_end_matches('-')
    } else {
        target
    };
    Held {
        kind: Some(kind.into()),
        target: Some(target.into()),
        device: kind != "host",
    }
}

/// The ELF reader's hook for a bundle written as an object file (clang's
/// `-fgpu-rdc` objects): one section a target, named by the magic and the
/// entry id. It records what the id says; the generic decoding opens the
/// code object.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| s.name.starts_with(SECTION_PREFIX),
    decode: |b, id, _, s, _| {
        if let Some(bid) = s.name.strip_prefix(SECTION_PREFIX) {
            b.fact(id, Fact::Held(held(bid)));
        }
        false
    },
};

/// What the name of a section that holds a bundle's entry starts with.
const SECTION_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";

/// Bundles (plain or compressed) back to back, as a linker concatenates
/// them in `.hip_fatbin`: at most this many are told apart.
const MAX_BUNDLES: u64 = 4096;

/// Where the bundle at `at` ends: a plain bundle at the end of its table
/// or of its last code object, whichever is later; a compressed one (v2,
/// v3) at its header's total size; v1 and anything unreadable at `len`.
fn extent(d: &[u8], at: u64) -> u64 {
    let len = d.len() as u64;
    let rest = d.get(at as usize..).unwrap_or(&[]);
    if rest.starts_with(MAGIC) {
        let Some(count) = u64_at(rest, COUNT_AT, LE) else {
            return len;
        };
        let mut pos: u64 = TABLE;
        let mut end = pos;
        for _ in 0..count.min(MAX_LIST) {
            let Some(BundleEntry {
                offset: o,
                size: s,
                triple_size: ts,
            }) = entry_at(rest, pos)
            else {
                return len;
            };
            pos = match pos
                .checked_add(bentry::SIZE)
                .and_then(|p| p.checked_add(ts))
            {
                Some(p) => p,
                None => return len,
            };
            end = end.max(pos).max(o.saturating_add(s));
        }
        return at.saturating_add(end).min(len);
    }
    if rest.starts_with(CCOB_MAGIC) {
        // Only the fields needed: a header cut short still says its size.
        let field = |at: At| uint_at(rest, at.off, at.size, LE);
        let total = match field(ccob::AT.version) {
            Some(2) => field(ccob_v2::AT.total_size.after(ccob::SIZE)),
            Some(3) => field(ccob_v3::AT.total_size.after(ccob::SIZE)),
            _ => None,
        };
        if let Some(t) = total.filter(|&t| t >= 8) {
            return at.saturating_add(t).min(len);
        }
    }
    len
}

/// The next bundle of either kind at or after `from`.
fn next_start(d: &[u8], from: u64) -> Option<u64> {
    let tail = d.get(usize::try_from(from).ok()?..)?;
    tail.windows(4)
        .enumerate()
        .filter(|(_, w)| *w == CCOB_MAGIC || *w == b"__CL")
        .map(|(at, _)| at)
        .find(|&at| {
            tail.get(at..)
                .is_some_and(|w| w.starts_with(CCOB_MAGIC) || w.starts_with(MAGIC))
        })
        .map(|at| from + at as u64)
}

/// One bundle or several back to back; each opened by its own magic.
/// Several are one lazy list, a node each.
fn parse_all(b: &mut Builder<'_>, node: NodeId, at: Span) {
    super::parts::back_to_back(b, node, at, &PARTS);
}

static PARTS: super::parts::Parts = super::parts::Parts {
    name: "bundle",
    summary: "clang offload bundles",
    many: "bundles",
    max: MAX_BUNDLES,
    extent,
    next_start,
    format: |d| {
        if detect(d) {
            Format::ClangBundle
        } else {
            Format::ClangBundleCompressed
        }
    },
    open: |b, g, at| {
        if detect(b.bytes(at)) {
            parse_one(b, g, at);
        } else {
            parse_compressed_one(b, g, at);
        }
    },
};

/// A clang offload bundle (or several back to back): the entry table, then
/// each code object opened by its own bytes.
pub fn parse(b: &mut Builder<'_>, node: NodeId, at: Span) {
    parse_all(b, node, at);
}

/// A compressed clang offload bundle (or several back to back, each ending
/// where its header's total size says).
pub fn parse_compressed(b: &mut Builder<'_>, node: NodeId, at: Span) {
    parse_all(b, node, at);
}

/// How a compressed bundle is compressed (LLVM's compression formats).
fn compression(m: u64) -> Option<Method> {
    match m {
        0 => Some(Method::Zlib),
        1 => Some(Method::Zstd),
        _ => None,
    }
}

/// A compressed clang offload bundle ("CCOB"): a header, then the plain
/// bundle compressed with zlib or zstd, inflated into a space of its own.
/// A compressed bundle too short for its header: its magic, and an error.
fn truncated_header(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let magic = Value::str_bytes(CCOB_MAGIC);
    b.leaf(node, "magic", at.offset, 4.min(at.len), magic);
    let why = "compressed offload bundle header is truncated";
    b.error(at.offset, at.len, why);
}

fn parse_compressed_one(b: &mut Builder<'_>, node: NodeId, at: Span) {
    let d = b.bytes(at);
    let Ok(Ccob {
        version, method, ..
    }) = Ccob::read(d)
    else {
        truncated_header(b, node, at);
        return;
    };
    let method = u64::from(method);
    let hlen = ccob::SIZE
        + match version {
            1 => CcobV1::SIZE,
            2 => CcobV2::SIZE,
            3 => CcobV3::SIZE,
            _ => 0,
        };
    let hlen = hlen.min(at.len);
    let h = b.group(node, "header", at.offset, hlen);
    let mut f = Fields::new(b, h, at.offset, LE).quiet().within(at.end());
    Ccob::show(&mut f);
    let method_name = compression(method).map(Method::name);
    let rest = d.get(ccob::SIZE as usize..).unwrap_or(&[]);
    let tail = match ccob_tail(version, rest, &mut f) {
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            let rest = at.skip(ccob::SIZE + e.at.off);
            b.error(
                rest.offset,
                rest.len,
                format!("compressed bundle header: {} is truncated", e.field),
            );
            return;
        }
        None => {
            ccob::AT.version.error(
                b,
                at.offset,
                format!("unknown compressed offload bundle version {version}"),
            );
            let rest = at.skip(hlen);
            b.leaf(
                node,
                "data",
                rest.offset,
                rest.len,
                text::hex(d.get(hlen as usize..).unwrap_or(&[]), 16),
            );
            return;
        }
    };
    let announced = Some(tail.announced);
    let hash = tail
        .hash_node
        .map(|id| (id, at.offset + tail.hash_at, tail.hash));
    let mut end = at.len;
    if let Some(t) = tail.total {
        if t > at.len {
            // Version 3's 8 bytes, whatever the version.
            b.error(
                at.offset + ccob::SIZE,
                ccob_v3::AT.total_size.size,
                format!(
                    "total size {t} runs past the end: only {} bytes remain",
                    at.len
                ),
            );
        } else if t >= hlen {
            end = t;
        }
    }
    let packed = at.part(hlen, end - hlen);
    let c = b.group(node, "compressed", packed.offset, packed.len);
    b.set_value(
        c,
        format!(
            "{} bytes, {}",
            packed.len,
            method_name.unwrap_or("unknown compression")
        ),
    );
    b.set_value(node, format!("compressed clang offload bundle v{version}"));
    let Some(method) = compression(method) else {
        ccob::AT.method.error(
            b,
            at.offset,
            format!("unknown compression method {method}; the bundle is not inflated"),
        );
        return;
    };
    let Some(announced) = announced else { return };
    let mut over = false;
    let made = b.derive(c, "inflated", packed, method.name(), |src, limit| {
        compress::inflate_at_most(src, method, announced, limit, &mut over)
    });
    let Some(id) = made else { return };
    let got = b.range(id).end();
    if over {
        b.warn(
            packed.offset,
            packed.len,
            format!("the bundle inflates to more than the {announced} bytes the header announces; the rest is not shown"),
        );
    } else if got != announced {
        b.warn(
            packed.offset,
            packed.len,
            format!("the bundle inflates to {got} bytes, the header announces {announced}"),
        );
    }
    // The hash: the first 8 bytes of the inflated bundle's MD5.
    if let Some((hid, hash_at, want)) = hash {
        let mut sum = [0u8; 16];
        b.within(id, |b, _| sum = Md5::digest(b.data()).into());
        let mut first = [0u8; 8];
        first.copy_from_slice(sum.get(..8).unwrap_or(&[0; 8]));
        let got = u64::from_le_bytes(first);
        if got == want {
            b.set_value(
                hid,
                Value::named_hex(want, Some("matches the inflated bundle's MD5")),
            );
        } else {
            b.set_value(hid, Value::named_hex(want, Some("does not match")));
            b.warn(
                hash_at,
                8,
                format!("hash 0x{want:016x} does not match the inflated bundle, whose MD5 starts 0x{got:016x}"),
            );
        }
    }
    b.within(id, |b, id| {
        let n = b.file_len();
        if b.nested(id, b.span(0, n)).is_none() {
            b.error(
                0,
                n.min(24),
                "the inflated bytes are not a clang offload bundle",
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header layouts of LLVM's compressed offload bundles
    /// (clang/lib/Driver/OffloadBundler.cpp, versions 1 to 3).
    #[test]
    fn ccob_headers_match_llvm_and_short_slices_are_errors() {
        assert_eq!(ccob::SIZE, 8);
        assert_eq!((ccob::AT.version.off, ccob::AT.method.off), (4, 6));
        assert_eq!(ccob::SIZE + CcobV1::SIZE, 20);
        assert_eq!(ccob::SIZE + CcobV2::SIZE, 24);
        assert_eq!(ccob::SIZE + CcobV3::SIZE, 32);
        assert_eq!(ccob_v2::AT.total_size.after(ccob::SIZE).off, 8);
        assert_eq!(ccob_v3::AT.hash.after(ccob::SIZE).off, 24);
        assert!(Ccob::read(b"CCOB\x03\0").is_err());
        let e = CcobV3::read(&[0; 20]).unwrap_err();
        assert_eq!((e.field, e.at.off), ("hash", 16));
        assert!(CcobV1::read(&[0; 11]).is_err() && CcobV2::read(&[0; 16]).is_ok());
    }

    /// A bundle's entry: offset, size and triple size, 64 bits each, after
    /// the 24-byte magic and the count (clang's OffloadBundler).
    #[test]
    fn bundle_entries_match_clang_and_short_slices_are_errors() {
        assert_eq!((COUNT_AT, TABLE, bentry::SIZE), (24, 32, 24));
        assert_eq!(bentry::AT.triple_size.off, 16);
        assert!(entry_at(&[0; 24], 0).is_some() && entry_at(&[0; 24], 1).is_none());
        assert!(entry_at(&[0; 24], u64::MAX).is_none());
    }
}
