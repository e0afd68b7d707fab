//! LLVM offload binaries (`10 FF 10 AD`): the container clang's offloading
//! toolchains (OpenMP, CUDA, HIP, SYCL) wrap device images in, standalone
//! or in a host object's `.llvm.offloading` section, several back to back.
//!
//! Every offset in a binary is relative to that binary's own header.
//! - Version 1 (what released LLVM writes): a 32-byte header (magic,
//!   version, size, entry offset, entry size) and one 40-byte entry.
//! - Version 2: the same 32 bytes, the last field an entry count; string
//!   entries gain a value size (24 bytes instead of 16).
//! - Version 3: a 40-byte header (magic, version, size, entries offset,
//!   entries count, inflated size). When the inflated size is not 0,
//!   everything after the entries offset is zstd or zlib compressed.
//!
//! An entry holds the image kind, the offload kind (bit flags), flags, a
//! string map (key and value offsets into a NUL-terminated string table)
//! and the image, which is opened by its own magic whatever the image kind
//! says.
//!
//! The tree: `header`; then, for one entry, `entry`, `strings` (one node a
//! key, its value the value), `string table` and `image`; for several,
//! `entries/[i]`, `strings/[i]`, `string table`, `images/[i]`. Several
//! binaries back to back are `[0]`, `[1]`…, each laid out so. A compressed
//! v3 binary shows `compressed` (its `compression` and `inflated`: the
//! bytes after the entries offset, inflated into a byte space of their own,
//! laid out there as above, each image opened there).

use std::collections::{BTreeMap, HashSet};

use compact_str::CompactString;

use super::compress::{self, Method};
use super::elf::{SectionHook, SHT_LLVM_OFFLOADING};
use super::image;
use crate::model::record::Record;
use crate::model::Format;
use crate::model::{text, Builder, Fact, Fields, Held, NodeId, Span, Value};

pub const MAGIC: &[u8] = &[0x10, 0xff, 0x10, 0xad];

mod names;
mod records;

use names::*;
pub use names::{image_kind_name, offload_kind_text};
use records::*;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

fn header_len(version: u32) -> u64 {
    if version >= 3 {
        HEADER_V3
    } else {
        HEADER_V1
    }
}

fn known(version: u32) -> bool {
    (1..=LATEST).contains(&version)
}

/// How many bytes the binary at `pos` takes, `rest` bytes being available:
/// its size field, cut to what is there; never 0.
fn extent(b: &Builder<'_>, pos: u64, rest: u64) -> u64 {
    let version = b.read_u32(head::AT.version.of(pos), LE);
    let size = b.read_u64(head::AT.size.of(pos), LE);
    let n = match (version, size) {
        (Some(v), Some(s)) if known(v) => s.max(header_len(v)).min(rest),
        (Some(_), Some(s)) if (16..=rest).contains(&s) => s,
        _ => rest,
    };
    n.max(1).min(rest.max(1))
}

/// Parses the offload binary (or binaries back to back) in `at`. One
/// binary filling the range is shown directly under `parent`; several are
/// shown as `[0]`, `[1]`…
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let first = extent(b, at.offset, at.len);
    if crate::model::align_up(first, ALIGN).is_some_and(|a| a >= at.len) {
        // Never empty: a binary takes at least one byte.
        let s = binary(b, parent, at.at(at.offset, first));
        if first < at.len {
            let pad = at.skip(first);
            b.leaf(parent, "padding", pad.offset, pad.len, Value::Size(pad.len));
        }
        if !s.is_empty() {
            b.set_value(parent, s);
        }
    } else {
        sequence(b, parent, at);
    }
}

/// The ELF reader's hook for a host object's `.llvm.offloading` section
/// (by type, or by name where an older linker left it PROGBITS).
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| s.typ == SHT_LLVM_OFFLOADING || s.name == ".llvm.offloading",
    decode: |b, id, _, _, at| {
        parse_section(b, id, at);
        true
    },
};

/// Parses the contents of a host object's `.llvm.offloading` section: one
/// or more offload binaries back to back, each starting 8-aligned, shown
/// as `[0]`, `[1]`…
pub fn parse_section(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    sequence(b, parent, at);
}

fn sequence(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let end = at.end();
    let mut pos = at.offset;
    let mut i = 0u64;
    while pos < end {
        let rest = end - pos;
        let d = b.slice(pos, rest);
        if !detect(d) {
            if text::looks_zero(d) {
                b.leaf(parent, "padding", pos, rest, text::zero_note(rest));
            } else {
                b.error(
                    pos,
                    rest.min(4),
                    format!("bytes at 0x{pos:x} are not an offload binary (no 10 ff 10 ad magic); {rest} bytes left unread"),
                );
                b.leaf(parent, "trailing bytes", pos, rest, text::hex(d, 16));
            }
            break;
        }
        let ext = extent(b, pos, rest);
        let g = b.group(parent, format!("[{i}]"), pos, ext);
        b.set_format(g, Format::Offload);
        let s = binary(b, g, at.at(pos, ext));
        b.set_value(g, s);
        // The next binary starts at the 8-aligned end of this one.
        let Some(next) = crate::model::align_up(pos - at.offset + ext, ALIGN)
            .and_then(|r| at.offset.checked_add(r))
        else {
            break;
        };
        if next <= pos {
            break;
        }
        pos = next;
        i += 1;
    }
}

/// One binary, `[base, base+len)` (its size cut to what is there).
#[derive(Clone, Copy)]
struct Bin {
    /// Where relative offset `skip` is in the space being built.
    base: u64,
    len: u64,
    version: u32,
    /// Relative offsets below this are not in the space being built: 0 for
    /// a binary in the file, the entries offset for the inflated bytes of
    /// a compressed one (its header stays in the file).
    skip: u64,
}

/// A binary's bytes, read at offsets relative to its header.
#[derive(Clone, Copy)]
struct Rel<'a> {
    d: &'a [u8],
    skip: u64,
}

impl<'a> Rel<'a> {
    /// The bytes from relative offset `rel` on.
    fn at(self, rel: u64) -> Option<&'a [u8]> {
        let i = usize::try_from(rel.checked_sub(self.skip)?).ok()?;
        self.d.get(i..)
    }
}

impl Bin {
    fn abs(&self, rel: u64) -> u64 {
        self.base.saturating_add(rel.saturating_sub(self.skip))
    }
    /// True if `[rel, rel+size)` lies inside the binary (and in the space
    /// being built).
    fn holds(&self, rel: u64, size: u64) -> bool {
        rel >= self.skip && rel <= self.len && size <= self.len - rel
    }
    fn rel<'a>(&self, b: &Builder<'a>) -> Rel<'a> {
        Rel {
            d: b.slice(self.base, self.len.saturating_sub(self.skip)),
            skip: self.skip,
        }
    }
    fn string_entry(&self) -> u64 {
        if self.version >= 2 {
            string_v2::SIZE
        } else {
            string_v1::SIZE
        }
    }
}

/// The entry at `at` in `d`, with where it is.
fn read_entry(d: Rel<'_>, at: u64) -> Option<(u64, Entry)> {
    Entry::read(d.at(at)?).ok().map(|e| (at, e))
}

/// The record `R` at `at` in `d`.
fn read_at<R: Record>(d: Rel<'_>, at: u64) -> Option<R> {
    R::read_in(d.at(at)?, LE).ok()
}

/// The NUL-terminated string at `at` in `d`: its bytes and whether a NUL
/// ended it.
fn cstr(d: Rel<'_>, at: u64) -> Option<(&[u8], bool)> {
    let s = d.at(at)?;
    Some(match memchr::memchr(0, s) {
        Some(n) => (s.get(..n).unwrap_or(&[]), true),
        None => (s, false),
    })
}

/// Parses one binary at `at` under `node`; returns a one-line summary of
/// it.
fn binary(b: &mut Builder<'_>, node: NodeId, at: Span) -> String {
    let d = Rel {
        d: b.bytes(at),
        skip: 0,
    };
    let Some(Head { version, size, .. }) = read_at::<Head>(d, 0) else {
        b.leaf(node, "magic", at.offset, 4.min(at.len), "10 ff 10 ad");
        b.error(
            at.offset,
            at.len,
            format!(
                "offload binary header is truncated: it needs at least 16 bytes, {} remain",
                at.len
            ),
        );
        return String::new();
    };
    if !known(version) {
        let h = b.group(node, "header", at.offset, head::SIZE);
        let n = Head::show(&mut Fields::new(b, h, at.offset, LE));
        if let Some(v) = n.version {
            b.set_value(v, Value::named(u64::from(version), None));
        }
        head::AT.version.error(
            b,
            at.offset,
            format!("unknown offload binary version {version} (fwview knows 1 to {LATEST}); its contents are shown as raw bytes"),
        );
        if at.len > head::SIZE {
            b.leaf(
                node,
                "contents",
                at.offset + head::SIZE,
                at.len - head::SIZE,
                text::hex(d.at(head::SIZE).unwrap_or(&[]), 16),
            );
        }
        return format!("offload binary, unknown version {version}");
    }
    let bin = Bin {
        base: at.offset,
        len: at.len,
        version,
        skip: 0,
    };
    let hlen = header_len(version);
    let h = b.group(node, "header", at.offset, hlen.min(at.len));
    let Some(hd) = header(b, h, bin, size) else {
        return format!("offload binary v{version}, truncated");
    };
    let (eo, f4, count) = (hd.offset, hd.count, hd.entries);
    if version >= 3 && hd.inflated != 0 {
        if let Some(id) = hd.offset_node {
            if bin.holds(eo, 0) {
                b.link(id, at.skip(eo));
            }
        }
        return compressed(b, node, bin, eo, f4, hd.inflated);
    }
    if version == 1 && f4 != ENTRY {
        b.warn(
            hd.count_at.0,
            hd.count_at.1,
            format!("entry size {f4}: an entry is {ENTRY} bytes"),
        );
    }
    if count == 0 {
        return format!("offload binary v{version}, no entries");
    }
    let name = hd.offset_name;
    if !bin.holds(eo, 0) || (count > 0 && !bin.holds(eo, 1)) {
        b.error(
            hd.offset_at.0,
            hd.offset_at.1,
            format!(
                "{name} 0x{eo:x} lies outside the binary (size 0x{:x})",
                at.len
            ),
        );
        return format!("offload binary v{version}, entries outside the binary");
    }
    if eo < hlen {
        b.warn(
            hd.offset_at.0,
            hd.offset_at.1,
            format!("{name} 0x{eo:x} overlaps the {hlen}-byte header"),
        );
    }
    let room = at.len - eo;
    let fit = room / ENTRY;
    let mut n = count.min(fit);
    if count > fit {
        b.error(
            at.offset + eo,
            room,
            format!(
                "{count} {} of {ENTRY} bytes at 0x{eo:x} need {} bytes; the binary has {room} from there",
                if count == 1 { "entry" } else { "entries" },
                u128::from(count) * u128::from(ENTRY)
            ),
        );
    }
    if n > MAX_ENTRIES {
        b.warn(
            hd.count_at.0,
            hd.count_at.1,
            format!("{n} entries; showing the first {MAX_ENTRIES}"),
        );
        n = MAX_ENTRIES;
    }
    if let Some(id) = hd.offset_node {
        b.link(id, at.part(eo, n * ENTRY));
    }
    let entries: Vec<(u64, Entry)> = (0..n)
        .filter_map(|i| read_entry(d, eo + i * ENTRY))
        .collect();
    layout(b, node, bin, &entries, count == 1)
}

/// A known version's header as read, with where its entries offset and
/// its count (version 1: the entry size) are.
struct Header {
    offset: u64,
    count: u64,
    /// How many entries the binary has.
    entries: u64,
    inflated: u64,
    offset_name: &'static str,
    /// Where the entries offset and the count are: (offset, size).
    offset_at: (u64, u64),
    count_at: (u64, u64),
    offset_node: Option<NodeId>,
}

/// Shows the header of a known version under `h`, with diagnostics on its
/// size; returns it if it is all there.
fn header(b: &mut Builder<'_>, h: NodeId, bin: Bin, size: u64) -> Option<Header> {
    let (base, len, version) = (bin.base, bin.len, bin.version);
    let hlen = header_len(version);
    let d = b.slice(base, len);
    let rel = Rel { d, skip: 0 };
    let mut f = Fields::new(b, h, base, LE).quiet().within(base + len);
    let size_node = Head::show(&mut f).size;
    let tail = base + head::SIZE;
    let read = if version == 1 {
        let n = TailV1::show(&mut f);
        read_at::<TailV1>(rel, head::SIZE).map(|r| Header {
            offset: r.entry_offset,
            count: r.entry_size,
            entries: 1,
            inflated: 0,
            offset_name: "entry offset",
            offset_at: (
                tail_v1::AT.entry_offset.of(tail),
                tail_v1::AT.entry_offset.size,
            ),
            count_at: (tail_v1::AT.entry_size.of(tail), tail_v1::AT.entry_size.size),
            offset_node: n.entry_offset,
        })
    } else {
        let n = TailV2::show(&mut f);
        let r = read_at::<TailV2>(rel, head::SIZE);
        let inflated = if version >= 3 {
            Inflated::show(&mut f);
            read_at::<Inflated>(rel, HEADER_V1).map(|i| i.inflated_size)
        } else {
            Some(0)
        };
        r.zip(inflated).map(|(r, inflated)| Header {
            offset: r.entries_offset,
            count: r.entries_count,
            entries: r.entries_count,
            inflated,
            offset_name: "entries offset",
            offset_at: (
                tail_v2::AT.entries_offset.of(tail),
                tail_v2::AT.entries_offset.size,
            ),
            count_at: (
                tail_v2::AT.entries_count.of(tail),
                tail_v2::AT.entries_count.size,
            ),
            offset_node: n.entries_offset,
        })
    };
    if let Some(sz) = size_node {
        b.link(sz, b.span(base, len));
    }
    let at = head::AT.size;
    if size > len {
        b.error(
            at.of(base),
            at.size,
            format!("size {size} (0x{size:x}) runs past the end: only {len} bytes remain from 0x{base:x}"),
        );
    } else if size < hlen {
        b.error(
            at.of(base),
            at.size,
            format!("size {size} is smaller than the {hlen}-byte header of version {version}"),
        );
    }
    if len < hlen {
        b.error(
            base,
            len,
            format!("offload binary header is truncated: version {version} needs {hlen} bytes, {len} remain"),
        );
    }
    read
}

/// Strings referenced by the string entries: (relative offset, length
/// including the NUL if there is one, text).
type Strings = BTreeMap<u64, (u64, String)>;

/// Each entry's string map: its keys and values.
type Maps = Vec<Vec<(String, String)>>;

fn layout(
    b: &mut Builder<'_>,
    node: NodeId,
    bin: Bin,
    entries: &[(u64, Entry)],
    flat: bool,
) -> String {
    // Where each entry's string entries and image really are, cut to the
    // binary, with a diagnostic for what is not.
    let mut strs: Vec<(u64, u64)> = Vec::new();
    let mut imgs: Vec<Option<(u64, u64)>> = Vec::new();
    let entries_parent = if flat {
        node
    } else {
        let lo = entries.first().map_or(0, |e| e.0);
        let g = b.group(node, "entries", bin.abs(lo), entries.len() as u64 * ENTRY);
        b.set_value(g, format!("{} entries", entries.len()));
        g
    };
    let mut entry_ids = Vec::with_capacity(entries.len());
    let mut budget = MAX_STRINGS_TOTAL;
    for (i, (at, e)) in entries.iter().enumerate() {
        let name = if flat {
            "entry".to_string()
        } else {
            format!("[{i}]")
        };
        let a = bin.abs(*at);
        let g = b.group(entries_parent, name, a, ENTRY);
        entry_ids.push(g);
        // The entry was read from these bytes: every field fits.
        let nodes = Entry::show(&mut Fields::new(b, g, a, LE));
        if let Some(n) = nodes.flags {
            b.set_value(n, flags_value(e.flags, bin.version));
        }
        strs.push(string_entries(b, bin, (a, e), nodes.str_off, &mut budget));
        imgs.push(image_place(b, bin, (a, e), nodes.img_off));
    }
    let (table, maps) = string_maps(b, node, bin, &strs, flat);
    // Entries are told apart by kind, triple and arch when two files are
    // compared, not by their order.
    for (i, ((_, e), &g)) in entries.iter().zip(&entry_ids).enumerate() {
        if let Some(k) = entry_key(e, maps.get(i).map(Vec::as_slice).unwrap_or(&[])) {
            b.set_key(g, k);
        }
    }
    // The string table: every string the maps use.
    if let (Some((&lo, _)), Some(hi)) = (
        table.iter().next(),
        table.iter().map(|(o, (l, _))| o + l).max(),
    ) {
        let t = b.group(node, "string table", bin.abs(lo), hi - lo);
        b.set_value(t, format!("{} strings", table.len()));
        for (o, (l, s)) in &table {
            b.leaf(t, format!("[0x{o:x}]"), bin.abs(*o), *l, Value::str(s));
        }
    }
    let summaries = images(b, node, bin, entries, &imgs, (&maps, flat));
    let mut s = format!("offload binary v{}", bin.version);
    let shown: Vec<&String> = summaries.iter().take(3).collect();
    if !shown.is_empty() {
        s.push_str(": ");
        s.push_str(
            &shown
                .iter()
                .map(|x| x.as_str())
                .collect::<Vec<_>>()
                .join("; "),
        );
        if summaries.len() > 3 {
            s.push_str(&format!("; … ({} entries)", summaries.len()));
        }
    }
    s
}

/// Where the string entries of entry `e` (at `a`) are, as `(relative
/// offset, count)`: the count cut to the binary and to what is left of
/// `budget`, with a diagnostic for what is cut; its field `so` linked.
fn string_entries(
    b: &mut Builder<'_>,
    bin: Bin,
    (a, e): (u64, &Entry),
    so: Option<NodeId>,
    budget: &mut u64,
) -> (u64, u64) {
    let stride = bin.string_entry();
    let mut sn = e.str_count;
    if sn > 0 && !bin.holds(e.str_off, 1) {
        entry::AT.str_off.error(
            b,
            a,
            format!(
                "string offset 0x{:x} lies outside the binary (size 0x{:x})",
                e.str_off, bin.len
            ),
        );
        sn = 0;
    } else if sn > 0 {
        let fit = (bin.len - e.str_off) / stride;
        if sn > fit {
            entry::AT.str_count.error(
                b,
                a,
                format!(
                    "{sn} string entries of {stride} bytes at 0x{:x} run past the end of the binary; {fit} fit",
                    e.str_off
                ),
            );
            sn = fit;
        }
        let cap = MAX_STRINGS.min(*budget);
        if sn > cap {
            entry::AT.str_count.warn(
                b,
                a,
                format!("{sn} string entries; showing the first {cap}"),
            );
            sn = cap;
        }
        *budget -= sn;
        if let Some(so) = so {
            b.link(so, b.span(bin.abs(e.str_off), sn * stride));
        }
    }
    (e.str_off, sn)
}

/// Where the image of entry `e` (at `a`) is, as `(relative offset,
/// size)` cut to the binary, with a diagnostic for what is not; its field
/// `io` linked.
fn image_place(
    b: &mut Builder<'_>,
    bin: Bin,
    (a, e): (u64, &Entry),
    io: Option<NodeId>,
) -> Option<(u64, u64)> {
    if e.img_size == 0 && bin.holds(e.img_off, 0) {
        return Some((e.img_off, 0));
    }
    if !bin.holds(e.img_off, 0) {
        entry::AT.img_off.error(
            b,
            a,
            format!(
                "image offset 0x{:x} lies outside the binary (size 0x{:x})",
                e.img_off, bin.len
            ),
        );
        return None;
    }
    let mut s = e.img_size;
    if !bin.holds(e.img_off, s) {
        entry::AT.img_size.error(
            b,
            a,
            format!(
                "image [0x{:x}+0x{:x}] runs past the end of the binary (size 0x{:x})",
                e.img_off, e.img_size, bin.len
            ),
        );
        s = bin.len - e.img_off;
    }
    if let Some(io) = io {
        b.link(io, b.span(bin.abs(e.img_off), s));
    }
    Some((e.img_off, s))
}

/// The string maps at `strs` (one `(offset, count)` an entry): their
/// nodes, the strings they use and each map's keys and values.
fn string_maps(
    b: &mut Builder<'_>,
    node: NodeId,
    bin: Bin,
    strs: &[(u64, u64)],
    flat: bool,
) -> (Strings, Maps) {
    let stride = bin.string_entry();
    let mut table: Strings = BTreeMap::new();
    let mut maps: Maps = vec![Vec::new(); strs.len()];
    let spans: Vec<(u64, u64)> = strs
        .iter()
        .filter(|s| s.1 > 0)
        .map(|&(o, n)| (o, o + n * stride))
        .collect();
    let (Some(lo), Some(hi)) = (
        spans.iter().map(|s| s.0).min(),
        spans.iter().map(|s| s.1).max(),
    ) else {
        return (table, maps);
    };
    let outer = if flat {
        None
    } else {
        let g = b.group(node, "strings", bin.abs(lo), hi - lo);
        Some(g)
    };
    for (i, &(o, n)) in strs.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let g = match outer {
            None => b.group(node, "strings", bin.abs(o), n * stride),
            Some(p) => b.group(p, format!("[{i}]"), bin.abs(o), n * stride),
        };
        b.set_value(g, format!("{n} strings"));
        let mut names = HashSet::new();
        for j in 0..n {
            if let Some(kv) = string_entry(b, g, bin, (o + j * stride, j), &mut table, &mut names) {
                if let Some(m) = maps.get_mut(i) {
                    m.push(kv);
                }
            }
        }
    }
    if let Some(p) = outer {
        b.set_value(
            p,
            format!("{} maps", strs.iter().filter(|s| s.1 > 0).count()),
        );
    }
    (table, maps)
}

/// The images, each opened by its own magic; returns one summary an
/// image.
fn images(
    b: &mut Builder<'_>,
    node: NodeId,
    bin: Bin,
    entries: &[(u64, Entry)],
    imgs: &[Option<(u64, u64)>],
    (maps, flat): (&Maps, bool),
) -> Vec<String> {
    let mut summaries = Vec::new();
    let outer = if flat {
        None
    } else {
        let placed: Vec<(u64, u64)> = imgs.iter().flatten().copied().collect();
        match (
            placed.iter().map(|p| p.0).min(),
            placed.iter().map(|p| p.0 + p.1).max(),
        ) {
            (Some(lo), Some(hi)) => {
                let g = b.group(node, "images", bin.abs(lo), hi - lo);
                b.set_value(g, format!("{} images", placed.len()));
                Some(g)
            }
            _ => None,
        }
    };
    for (i, ((_, e), img)) in entries.iter().zip(imgs).enumerate() {
        let Some((io, is)) = *img else { continue };
        let parent = outer.unwrap_or(node);
        let name = if flat {
            "image".to_string()
        } else {
            format!("[{i}]")
        };
        let id = b.group(parent, name, bin.abs(io), is);
        let f = if is == 0 {
            b.set_value(
                id,
                if bin.version >= 2 && e.flags & 1 != 0 {
                    "none (metadata only)"
                } else {
                    "empty"
                },
            );
            None
        } else {
            b.fact(
                id,
                Fact::Held(held(e, maps.get(i).map(Vec::as_slice).unwrap_or(&[]))),
            );
            let at = b.span(bin.abs(io), is);
            let f = image::open_image(b, id, at);
            check_kind(b, at, e.image_kind, f);
            f
        };
        let map = maps.get(i).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(k) = entry_key(e, map) {
            b.set_key(id, k);
        }
        summaries.push(entry_summary(e, map, f));
    }
    summaries
}

/// What identifies an entry: its offload kind, triple and arch.
/// What an entry says of its image: its offload kind (`hip`,
/// `openmp+hip`) and its `arch` string, else its `triple`.
fn held(e: &Entry, map: &[(String, String)]) -> Held {
    let short = offload_kind_short(e.offload_kind);
    let kind = (!short.is_empty() && short != "none")
        .then(|| CompactString::from(short.to_lowercase().replace(" | ", "+")));
    let get = |k: &str| {
        map.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let target = get("arch")
        .filter(|a| !a.is_empty())
        .or(get("triple"))
        .map(CompactString::from);
    Held {
        kind,
        target,
        device: true,
    }
}

fn entry_key(e: &Entry, map: &[(String, String)]) -> Option<String> {
    let get = |k: &str| {
        map.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    if get("triple").is_none() && get("arch").is_none() {
        return None;
    }
    Some(format!(
        "{} {} {}",
        offload_kind_short(e.offload_kind),
        get("triple").unwrap_or_default(),
        get("arch").unwrap_or_default()
    ))
}

fn entry_summary(e: &Entry, map: &[(String, String)], f: Option<Format>) -> String {
    let get = |k: &str| {
        map.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let mut parts = vec![offload_kind_short(e.offload_kind)];
    parts.push(match f {
        Some(f) => f.label().to_string(),
        None => image_kind_name(e.image_kind)
            .unwrap_or("unknown")
            .to_string(),
    });
    if let Some(t) = get("triple") {
        parts.push(t.to_string());
    }
    if let Some(a) = get("arch") {
        parts.push(a.to_string());
    }
    parts.join(" ")
}

fn check_kind(b: &mut Builder<'_>, at: Span, kind: u16, f: Option<Format>) {
    let Some(want) = expected(kind) else { return };
    let kname = Value::named(u64::from(kind), image_kind_name(kind));
    match f {
        Some(f) if want.contains(&f) => {}
        Some(f) => b.info(
            at.offset,
            at.len,
            format!("image kind {kname} disagrees with the image bytes, which are {}", f.label()),
        ),
        None => b.info(
            at.offset,
            at.len,
            format!("image kind {kname} disagrees with the image bytes, which fwview does not recognise"),
        ),
    }
}

/// Decodes string entry `index` of a map, at `rel` in the binary, under
/// `g`; returns its key and value.
fn string_entry(
    b: &mut Builder<'_>,
    g: NodeId,
    bin: Bin,
    (rel, index): (u64, u64),
    table: &mut Strings,
    names: &mut HashSet<String>,
) -> Option<(String, String)> {
    let d = bin.rel(b);
    let stride = bin.string_entry();
    let v2 = if bin.version >= 2 {
        read_at::<StringV2>(d, rel)
    } else {
        None
    };
    let (ko, vo, vs) = match v2 {
        Some(s) => (s.key_offset, s.value_offset, Some(s.value_size)),
        None => {
            let s = read_at::<StringV1>(d, rel)?;
            (s.key_offset, s.value_offset, None)
        }
    };
    let at = bin.abs(rel);
    // The key.
    let key = match cstr(d, ko) {
        None => {
            string_v1::AT.key_offset.error(
                b,
                at,
                format!(
                    "key offset 0x{ko:x} lies outside the binary (size 0x{:x})",
                    bin.len
                ),
            );
            None
        }
        Some((s, ended)) => {
            if !ended {
                b.error(
                    bin.abs(ko),
                    s.len() as u64,
                    format!(
                        "unterminated string at 0x{:x}: no NUL before the end of the binary",
                        bin.abs(ko)
                    ),
                );
            }
            let t = text::from_bytes(s);
            table.insert(ko, (s.len() as u64 + u64::from(ended), t.clone()));
            Some((t, ko, s.len() as u64 + u64::from(ended)))
        }
    };
    // The value: NUL-terminated in version 1, sized from version 2 on.
    let value = match vs {
        None => {
            match cstr(d, vo) {
                None => {
                    string_v1::AT.value_offset.error(
                        b,
                        at,
                        format!(
                            "value offset 0x{vo:x} lies outside the binary (size 0x{:x})",
                            bin.len
                        ),
                    );
                    None
                }
                Some((s, ended)) => {
                    if !ended {
                        b.error(
                        bin.abs(vo),
                        s.len() as u64,
                        format!("unterminated string at 0x{:x}: no NUL before the end of the binary", bin.abs(vo)),
                    );
                    }
                    let t = text::from_bytes(s);
                    table.insert(vo, (s.len() as u64 + u64::from(ended), t.clone()));
                    Some((t, vo, s.len() as u64 + u64::from(ended)))
                }
            }
        }
        Some(vs) => {
            if !bin.holds(vo, vs) {
                b.error(
                    string_v2::AT.value_offset.of(at),
                    string_v2::AT.value_size.end() - string_v2::AT.value_offset.off,
                    format!(
                        "value [0x{vo:x}+0x{vs:x}] lies outside the binary (size 0x{:x})",
                        bin.len
                    ),
                );
                None
            } else {
                let s = d
                    .at(vo)
                    .and_then(|r| r.get(..usize::try_from(vs).ok()?))
                    .unwrap_or(&[]);
                let t = text::from_bytes(s);
                // Keep the NUL LLVM writes after a value in the table's view.
                let nul = u64::from(d.at(vo + vs).and_then(|r| r.first()) == Some(&0));
                let prev = table.get(&vo).map_or(0, |p| p.0);
                if vs + nul >= prev {
                    table.insert(vo, (vs + nul, t.clone()));
                }
                Some((t, vo, vs))
            }
        }
    };
    let ktext = key.as_ref().map_or("?".to_string(), |k| k.0.clone());
    let vtext = value.as_ref().map_or("?".to_string(), |v| v.0.clone());
    let mut name = if ktext.is_empty() {
        "(empty key)".to_string()
    } else {
        ktext.clone()
    };
    if !names.insert(name.clone()) {
        name = format!("{name} [{index}]");
    }
    let e = b.group(g, name, at, stride);
    b.set_value(e, Value::str(&vtext));
    // The offsets were read from these bytes: every field fits.
    let mut f = Fields::new(b, e, at, LE);
    let (kn, vn) = if vs.is_some() {
        let n = StringV2::show(&mut f);
        (n.key_offset, n.value_offset)
    } else {
        let n = StringV1::show(&mut f);
        (n.key_offset, n.value_offset)
    };
    if let (Some(n), Some((_, o, l))) = (kn, key) {
        b.link(n, b.span(bin.abs(o), l));
    }
    if let (Some(n), Some((_, o, l))) = (vn, value) {
        b.link(n, b.span(bin.abs(o), l));
    }
    Some((ktext, vtext))
}

// ---------------------------------------------------------------- version 3, compressed

/// The compression of a v3 payload, as LLVM decides it: zstd if the bytes
/// start with a zstd frame, zlib otherwise.
pub fn compression(d: &[u8]) -> Method {
    if d.starts_with(ZSTD_MAGIC) {
        Method::Zstd
    } else {
        Method::Zlib
    }
}

fn zlib_header_ok(d: &[u8]) -> bool {
    match d {
        [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

/// A compressed binary: everything after the entries offset `eo` is
/// inflated into a byte space of its own, and the entries, strings and
/// images are laid out there, at their offsets less `eo`.
fn compressed(
    b: &mut Builder<'_>,
    node: NodeId,
    bin: Bin,
    eo: u64,
    count: u64,
    inflated: u64,
) -> String {
    let v = bin.version;
    if !bin.holds(eo, 0) {
        b.error(
            bin.abs(head::SIZE + tail_v2::AT.entries_offset.off),
            tail_v2::AT.entries_offset.size,
            format!(
                "entries offset 0x{eo:x} lies outside the binary (size 0x{:x})",
                bin.len
            ),
        );
        return format!("offload binary v{v}, compressed, entries outside the binary");
    }
    if inflated < eo {
        b.error(
            bin.abs(INFLATED_AT),
            inflated::AT.inflated_size.size,
            format!("inflated size {inflated} is smaller than the entries offset {eo}"),
        );
    }
    let packed = b.span(bin.abs(eo), bin.len - eo);
    let d = b.bytes(packed);
    let method = compression(d);
    let m = method.name();
    let body = inflated.saturating_sub(eo);
    let c = b.group(node, "compressed", packed.offset, packed.len);
    b.set_value(
        c,
        format!(
            "{m}, {} bytes; inflates to {body} bytes after the {eo}-byte header",
            packed.len
        ),
    );
    if method == Method::Zstd {
        b.leaf(
            c,
            "compression",
            packed.offset,
            4,
            "zstd (frame magic 28 b5 2f fd)",
        );
    } else if zlib_header_ok(d) {
        b.leaf(c, "compression", packed.offset, 2, "zlib (deflate)");
    } else {
        b.leaf(
            c,
            "compression",
            packed.offset,
            packed.len.min(2),
            "zlib (by LLVM's rule: not zstd)",
        );
        b.warn(
            packed.offset,
            packed.len.min(2),
            "compressed payload starts with neither a zstd frame nor a zlib header",
        );
    }
    let mut over = false;
    let made = b.derive(c, "inflated", packed, m, |src, limit| {
        compress::inflate_at_most(src, method, body, limit, &mut over)
    });
    let Some(id) = made else {
        return format!("offload binary v{v}, {m}-compressed, not inflated");
    };
    let got = b.range(id).end();
    if over {
        b.warn(
            packed.offset,
            packed.len,
            format!("payload inflates to more than the {body} bytes the header announces"),
        );
    } else if got < body {
        b.warn(
            packed.offset,
            packed.len,
            format!("payload inflates to {got} bytes, the header announces {body}"),
        );
    }
    let inner = Bin {
        base: 0,
        len: eo.saturating_add(got),
        version: v,
        skip: eo,
    };
    let mut summary = String::new();
    b.within(id, |b, id| {
        let fit = got / ENTRY;
        let mut n = count.min(fit);
        if n < count {
            b.warn(
                0,
                got,
                format!(
                    "the inflated binary holds {n} of the {count} entries the header announces"
                ),
            );
        }
        if n > MAX_ENTRIES {
            b.warn(
                0,
                got,
                format!("{n} entries; showing the first {MAX_ENTRIES}"),
            );
            n = MAX_ENTRIES;
        }
        let d = inner.rel(b);
        let entries: Vec<(u64, Entry)> = (0..n)
            .filter_map(|i| read_entry(d, eo + i * ENTRY))
            .collect();
        summary = layout(b, id, inner, &entries, count == 1);
    });
    let head = format!("offload binary v{v}");
    let rest = summary.strip_prefix(&head).unwrap_or("");
    format!("{head}, {m}-compressed{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::At;

    #[test]
    fn offload_kinds_are_bit_flags() {
        assert_eq!(offload_kind_text(0), "0 (none)");
        assert_eq!(offload_kind_text(4), "4 (HIP)");
        assert_eq!(offload_kind_text(8), "8 (SYCL)");
        assert_eq!(offload_kind_text(5), "5 (OpenMP | HIP)");
        assert_eq!(offload_kind_text(0x12), "18 (CUDA | unknown 0x10)");
    }

    /// The layouts of LLVM's `OffloadBinary::Header`, `Entry` and
    /// `StringEntry` (llvm/Object/OffloadBinary.h).
    #[test]
    fn records_match_llvm_and_short_slices_are_errors() {
        let at = |a: At| (a.off, a.size);
        assert_eq!(
            (head::SIZE, HEADER_V1, HEADER_V3, INFLATED_AT),
            (16, 32, 40, 32)
        );
        assert_eq!(at(head::AT.size), (8, 8));
        assert_eq!(at(tail_v1::AT.entry_size), (8, 8));
        assert_eq!(at(tail_v2::AT.entries_offset), (0, 8));
        assert_eq!(entry::SIZE, 40);
        assert_eq!(at(entry::AT.flags), (4, 4));
        assert_eq!(at(entry::AT.str_count), (16, 8));
        assert_eq!(at(entry::AT.img_size), (32, 8));
        assert_eq!((string_v1::SIZE, string_v2::SIZE), (16, 24));
        assert_eq!(at(string_v2::AT.value_size), (16, 8));
        let d = [0u8; 40];
        assert!(Entry::read(&d).is_ok());
        assert_eq!(
            Entry::read(&d[..39]).map_err(|e| e.field),
            Err("image size")
        );
        assert!(TailV1::read(&d[..15]).is_err() && TailV2::read(&d[..16]).is_ok());
        assert!(Inflated::read(&d[..7]).is_err() && Head::read(&d[..15]).is_err());
        assert!(StringV1::read(&d[..15]).is_err() && StringV2::read(&d[..23]).is_err());
    }

    #[test]
    fn extent_never_zero() {
        let mut t = crate::formats::build_from_bytes(vec![0x10, 0xff, 0x10, 0xad, 1, 0, 0, 0]);
        assert!(!t.diagnostics().is_empty());
        let _ = t.children(t.root());
    }
}
