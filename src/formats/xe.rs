//! XMOS XE executables (`XMOS`, version 2.0): a header, then a list of
//! sectors that a loader processes in order. Each sector is a 12-byte header
//! (type, reserved, size) and, when the size is not 0, a contents block:
//! padding length, 3 reserved bytes, the data, padding to a 32-bit word and
//! a CRC. Program images (ELF or raw BINARY) are loaded onto tiles, and GOTO
//! or CALL sectors start them.
//!
//! The file is read in two passes. The first walks the sector list with
//! plain reads, checks every CRC and field and works out the boot order of
//! each tile, so that all diagnostics exist as soon as the file is open. The
//! second adds the nodes, in lazily built groups when there are many.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::{group_size, num, text, Builder, Endian, NodeId};

use super::xml;

const LE: Endian = Endian::Little;

pub const MAGIC: &[u8] = b"XMOS";

const BINARY: u16 = 0x1;
const ELF: u16 = 0x2;
const SYSCONFIG: u16 = 0x3;
const NODEDESC: u16 = 0x4;
const GOTO: u16 = 0x5;
const CALL: u16 = 0x6;
const XN: u16 = 0x8;
const PROGINFO: u16 = 0x9;
const XSCOPE: u16 = 0xC;
const LAST: u16 = 0x5555;
const SKIP: u16 = 0xFFFF;

/// The sector CRC is zlib's CRC-32 continued from this value (the xCORE
/// `crc32` instruction preset to all ones, with one zero word appended).
const CRC_START: u32 = 0x2144_DF1C;

/// Sectors read at most; real files have a few dozen.
const MAX_SECTORS: usize = 1_000_000;

/// How many children a node shows before they are grouped.
const GROUP: usize = crate::model::GROUP as usize;

/// How far back a GOTO or CALL looks for an image whose address it names.
const MATCH_BACK: usize = 256;

/// At most this many steps are spelled out in a tile's boot-order value.
const STEPS_SHOWN: usize = 32;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

/// The name of a sector type.
pub fn type_name(t: u16) -> Option<&'static str> {
    Some(match t {
        BINARY => "BINARY",
        ELF => "ELF",
        SYSCONFIG => "SYSCONFIG",
        NODEDESC => "NODEDESC",
        GOTO => "GOTO",
        CALL => "CALL",
        XN => "XN",
        PROGINFO => "PROGINFO",
        XSCOPE => "XSCOPE",
        LAST => "LAST",
        SKIP => "SKIP",
        _ => return None,
    })
}

fn label_of(t: u16) -> String {
    match type_name(t) {
        Some(n) => n.to_string(),
        None => format!("0x{t:x}"),
    }
}

/// The CRC of a sector, computed over `bytes`: the sector header and the
/// contents block up to the byte before the stored CRC.
pub fn sector_crc(bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(CRC_START);
    h.update(bytes);
    h.finalize()
}

/// Where a BINARY, ELF, GOTO or CALL sector is aimed.
#[derive(Clone, Copy, Debug)]
struct Target {
    node: u16,
    tile: u16,
    /// Load address (BINARY, ELF) or start address (GOTO, CALL).
    addr: u64,
}

/// One sector as the first pass found it.
#[derive(Clone, Debug)]
struct Sector {
    index: usize,
    off: u64,
    ty: u16,
    /// The size the header declares.
    size: u64,
    /// The end of the sector's bytes, cut to the end of the file.
    end: u64,
    /// The padding length in effect (cut to what the contents can hold).
    pad: u64,
    /// The data bytes present.
    data_len: u64,
    /// Stored and computed CRC, when the sector has one in the file.
    crc: Option<(u32, u32)>,
    target: Option<Target>,
    /// The entry point of an ELF image.
    entry: Option<u64>,
    /// For GOTO and CALL: the image range it starts.
    starts: Option<(u64, u64)>,
}

impl Sector {
    fn declared_end(&self) -> Option<u64> {
        self.off.checked_add(12)?.checked_add(self.size)
    }
    fn truncated(&self) -> bool {
        self.declared_end().is_none_or(|e| e > self.end)
    }
    fn data_off(&self) -> u64 {
        self.off.saturating_add(16)
    }
    fn name(&self) -> String {
        format!("[{}] {}", self.index, label_of(self.ty))
    }
    /// The image of a BINARY or ELF sector.
    fn image(&self) -> Option<(u64, u64)> {
        if !matches!(self.ty, BINARY | ELF) || self.data_len < 12 {
            return None;
        }
        Some((self.data_off().saturating_add(12), self.data_len - 12))
    }
    fn crc_verdict(&self) -> Option<String> {
        let (stored, computed) = self.crc?;
        Some(if stored == 0 {
            "not set".to_string()
        } else if stored == computed {
            "ok".to_string()
        } else {
            format!("mismatch: expected 0x{computed:08x}")
        })
    }
}

/// The sectors aimed at one tile, in file order.
#[derive(Clone, Debug)]
struct Tile {
    node: u16,
    tile: u16,
    steps: Vec<usize>,
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    let limit = off.saturating_add(len).min(b.file_len());
    if !header(b, parent, off, limit) {
        return;
    }
    let start = off + 8;
    let (mut secs, stop) = scan(b, start, limit);
    let tiles = boot(b, &mut secs);
    let end = secs.last().map_or(start, |s| s.end);
    let secs = Arc::new(secs);
    let tiles = Arc::new(tiles);

    let node = b.group(parent, "sectors", start, end - start);
    b.set_value(node, format!("{} sectors", secs.len()));
    let span: SpanFn = {
        let secs = secs.clone();
        Arc::new(move |i| secs.get(i).map_or((0, 0), |s| (s.off, s.end)))
    };
    let item: ItemFn = {
        let secs = secs.clone();
        Arc::new(move |b, p, i| {
            if let Some(s) = secs.get(i) {
                sector(b, p, s);
            }
        })
    };
    chunked(b, node, 0, secs.len(), &span, &item);

    if !tiles.is_empty() {
        let bo = b.group(parent, "boot order", start, end - start);
        b.set_value(
            bo,
            format!(
                "{} tile{}",
                tiles.len(),
                if tiles.len() == 1 { "" } else { "s" }
            ),
        );
        let span: SpanFn = {
            let (secs, tiles) = (secs.clone(), tiles.clone());
            Arc::new(move |i| tiles.get(i).map_or((0, 0), |t| tile_span(&secs, t)))
        };
        let item: ItemFn = {
            let (secs, tiles) = (secs.clone(), tiles.clone());
            Arc::new(move |b, p, i| {
                if let Some(t) = tiles.get(i) {
                    tile(b, p, i, t, &secs);
                }
            })
        };
        chunked(b, bo, 0, tiles.len(), &span, &item);
    }

    match stop {
        Stop::Last if end < limit => {
            b.warn(
                end,
                limit - end,
                format!("{} bytes after the LAST sector", limit - end),
            );
            let v = format!(
                "{} bytes after LAST: {}",
                limit - end,
                text::hex(b.slice(end, limit - end), 16)
            );
            b.leaf(parent, "trailing", end, limit - end, v);
        }
        Stop::ShortHeader(p) => {
            let rest = limit.saturating_sub(p);
            b.leaf(
                parent,
                "truncated sector header",
                p,
                rest,
                text::hex(b.slice(p, rest), 16),
            );
        }
        _ => {}
    }
}

/// Adds the 8-byte file header. False if it is not all there.
fn header(b: &mut Builder<'_>, parent: NodeId, off: u64, limit: u64) -> bool {
    let have = limit.saturating_sub(off);
    if have < 8 {
        b.raw(parent, "magic", off, have.min(4));
        b.error(
            off,
            have,
            format!("truncated: the XE header needs 8 bytes, {have} remain"),
        );
        return false;
    }
    let h = b.group(parent, "header", off, 8);
    b.leaf(h, "magic", off, 4, text::quoted(b.slice(off, 4)));
    let major = b.read_u8(off + 4).unwrap_or(0);
    let minor = b.read_u8(off + 5).unwrap_or(0);
    b.leaf(h, "version", off + 4, 2, format!("{major}.{minor}"));
    if (major, minor) != (2, 0) {
        b.warn(
            off + 4,
            2,
            format!("XE version {major}.{minor}; the known version is 2.0"),
        );
    }
    let res = b.read_u16(off + 6, LE).unwrap_or(0);
    b.leaf(h, "reserved", off + 6, 2, num(res.into()));
    if res != 0 {
        b.warn(
            off + 6,
            2,
            format!("header: reserved field is 0x{res:x}, not 0"),
        );
    }
    b.set_value(h, format!("XMOS XE {major}.{minor}"));
    true
}

/// Why the sector walk ended.
enum Stop {
    /// At the LAST sector.
    Last,
    /// Fewer than 12 bytes were left at this offset.
    ShortHeader(u64),
    /// At the end of the file, or at a sector cut by it, or at the cap.
    End,
}

/// The first pass: walks the sector list from `start`, checking each
/// sector as it goes.
fn scan(b: &mut Builder<'_>, start: u64, limit: u64) -> (Vec<Sector>, Stop) {
    let mut secs: Vec<Sector> = Vec::new();
    let mut p = start;
    let stop = loop {
        if p >= limit {
            break Stop::End;
        }
        if secs.len() >= MAX_SECTORS {
            b.error(
                p,
                limit - p,
                format!("more than {MAX_SECTORS} sectors; the rest is not read"),
            );
            break Stop::End;
        }
        let rem = limit - p;
        if rem < 12 {
            b.error(
                p,
                rem,
                format!("truncated: a sector header needs 12 bytes, {rem} remain"),
            );
            break Stop::ShortHeader(p);
        }
        let (Some(ty), Some(res), Some(size)) = (
            b.read_u16(p, LE),
            b.read_u16(p + 2, LE),
            b.read_u64(p + 4, LE),
        ) else {
            break Stop::End;
        };
        let s = check_sector(b, secs.len(), p, ty, res, size, limit);
        let (end, cut) = (s.end, s.truncated());
        secs.push(s);
        if ty == LAST {
            break Stop::Last;
        }
        if cut || end <= p {
            break Stop::End;
        }
        p = end;
    };
    if !matches!(stop, Stop::Last) {
        let at = secs.last().map_or(start, |s| s.end).min(limit);
        b.error(
            at,
            limit.saturating_sub(at),
            "no LAST sector (0x5555): the sector list is not terminated",
        );
    }
    (secs, stop)
}

/// Reads and checks one sector at `p`.
fn check_sector(
    b: &mut Builder<'_>,
    index: usize,
    p: u64,
    ty: u16,
    res: u16,
    size: u64,
    limit: u64,
) -> Sector {
    let label = format!("sector [{index}] {}", label_of(ty));
    if res != 0 {
        b.warn(
            p + 2,
            2,
            format!("{label}: reserved field is 0x{res:x}, not 0"),
        );
    }
    if type_name(ty).is_none() {
        b.warn(p, 2, format!("{label}: unknown sector type 0x{ty:x}"));
    }
    let declared = (p + 12).checked_add(size);
    let end = match declared {
        Some(e) if e <= limit => e,
        _ => {
            b.error(
                p + 4,
                8,
                format!(
                    "{label}: size {size} runs past the end of the file ({} bytes remain)",
                    limit - (p + 12)
                ),
            );
            limit
        }
    };
    let mut s = Sector {
        index,
        off: p,
        ty,
        size,
        end,
        pad: 0,
        data_len: 0,
        crc: None,
        target: None,
        entry: None,
        starts: None,
    };
    let cut = s.truncated();
    if size == 0 {
        if ty != LAST {
            b.warn(p + 4, 8, format!("{label}: no contents block (size 0)"));
        }
        return s;
    }
    if ty == LAST {
        b.warn(
            p + 4,
            8,
            format!("{label}: size {size}; the LAST sector should have no contents"),
        );
    }
    if size < 8 {
        b.error(
            p + 4,
            8,
            format!("{label}: size {size} is too small for a contents block (8 bytes at least)"),
        );
        return s;
    }
    if !size.is_multiple_of(4) {
        b.warn(
            p + 4,
            8,
            format!("{label}: size {size} is not a whole number of 32-bit words"),
        );
    }
    if let Some(padlen) = b.read_u8(p + 12).filter(|_| p + 13 <= end) {
        let room = size - 8;
        let padlen = u64::from(padlen);
        if padlen > room {
            b.error(
                p + 12,
                1,
                format!("{label}: padding length {padlen} is more than the {room} bytes the contents hold"),
            );
        } else if padlen > 3 {
            b.warn(
                p + 12,
                1,
                format!(
                    "{label}: padding length {padlen}; padding to a 32-bit word needs 3 at most"
                ),
            );
        }
        s.pad = padlen.min(room);
    }
    if let Some(r) = b.read_bytes(p + 13, 3).filter(|_| p + 16 <= end) {
        if r.iter().any(|&x| x != 0) {
            b.warn(
                p + 13,
                3,
                format!("{label}: reserved bytes are {}, not 0", text::hex(r, 3)),
            );
        }
    }
    if cut {
        s.data_len = end.saturating_sub(p + 16);
    } else {
        s.data_len = size - 8 - s.pad;
        let crc_off = end - 4;
        let stored = b.read_u32(crc_off, LE).unwrap_or(0);
        let computed = sector_crc(b.slice(p, crc_off - p));
        if stored != 0 && stored != computed {
            b.error(
                crc_off,
                4,
                format!("{label}: CRC mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}"),
            );
        }
        s.crc = Some((stored, computed));
    }
    check_data(b, &mut s, &label);
    s
}

/// Checks the fixed fields of a sector's data and notes where it is aimed.
fn check_data(b: &mut Builder<'_>, s: &mut Sector, label: &str) {
    let d = s.data_off();
    let n = s.data_len;
    let cut = s.truncated();
    let fixed = matches!(s.ty, BINARY | ELF | GOTO | CALL | NODEDESC);
    if !fixed {
        return;
    }
    if n < 12 {
        if !cut {
            b.error(
                d,
                n,
                format!("{label}: data is {n} bytes; this sector type needs 12"),
            );
        }
        return;
    }
    if s.ty == NODEDESC {
        let res = b.read_u16(d + 2, LE).unwrap_or(0);
        if res != 0 {
            b.warn(
                d + 2,
                2,
                format!("{label}: reserved field is 0x{res:x}, not 0"),
            );
        }
    }
    if n > 12 && !cut && matches!(s.ty, NODEDESC | GOTO | CALL) {
        b.warn(
            d + 12,
            n - 12,
            format!(
                "{label}: {} bytes after the 12 this sector type holds",
                n - 12
            ),
        );
    }
    if matches!(s.ty, BINARY | ELF | GOTO | CALL) {
        let (Some(node), Some(tile), Some(addr)) = (
            b.read_u16(d, LE),
            b.read_u16(d + 2, LE),
            b.read_u64(d + 4, LE),
        ) else {
            return;
        };
        s.target = Some(Target { node, tile, addr });
    }
    if s.ty == ELF {
        if let Some(t) = s.target {
            if t.addr != 0 {
                b.warn(
                    d + 4,
                    8,
                    format!(
                        "{label}: load address 0x{:x}; an ELF sector's should be 0",
                        t.addr
                    ),
                );
            }
        }
        let img = d + 12;
        let img_len = n - 12;
        if b.slice(img, img_len.min(4)) != b"\x7fELF" {
            b.warn(
                img,
                img_len.min(4),
                format!("{label}: the image does not start with an ELF header"),
            );
        } else {
            s.entry = elf_entry(b, img, img_len);
        }
    }
}

/// The entry point of the ELF image at `off`.
fn elf_entry(b: &Builder<'_>, off: u64, len: u64) -> Option<u64> {
    let class = b.read_u8(off + 4)?;
    let e = if b.read_u8(off + 5)? == 2 {
        Endian::Big
    } else {
        LE
    };
    match class {
        1 if len >= 28 => b.read_u32(off + 24, e).map(u64::from),
        2 if len >= 32 => b.read_u64(off + 24, e),
        _ => None,
    }
}

/// Groups the BINARY, ELF, GOTO and CALL sectors by tile, checks each
/// tile's boot order and works out which image each GOTO and CALL starts.
fn boot(b: &mut Builder<'_>, secs: &mut [Sector]) -> Vec<Tile> {
    let mut map: BTreeMap<(u16, u16), Vec<usize>> = BTreeMap::new();
    for (i, s) in secs.iter().enumerate() {
        if let Some(t) = s.target {
            map.entry((t.node, t.tile)).or_default().push(i);
        }
    }
    let mut tiles = Vec::with_capacity(map.len());
    for ((node, tile), steps) in map {
        check_tile(b, secs, node, tile, &steps);
        tiles.push(Tile { node, tile, steps });
    }
    tiles
}

fn check_tile(b: &mut Builder<'_>, secs: &mut [Sector], node: u16, tile: u16, steps: &[usize]) {
    let who = format!("node {node} tile {tile}");
    let mut images: Vec<usize> = Vec::new();
    let mut gotos: Vec<usize> = Vec::new();
    let mut late: Vec<usize> = Vec::new();
    for &i in steps {
        let Some(s) = secs.get(i) else {
            continue;
        };
        let (ty, off, name) = (s.ty, s.off, s.name());
        if !gotos.is_empty() && matches!(ty, BINARY | ELF | CALL) {
            late.push(i);
        }
        match ty {
            BINARY | ELF => images.push(i),
            GOTO | CALL => {
                if ty == GOTO {
                    gotos.push(i);
                }
                let addr = s.target.map_or(0, |t| t.addr);
                let Some(&last) = images.last() else {
                    b.warn(
                        off,
                        12,
                        format!(
                            "sector {name} starts {who}, but no image was loaded there before it"
                        ),
                    );
                    continue;
                };
                let chosen = if addr != 0 {
                    images
                        .iter()
                        .rev()
                        .take(MATCH_BACK)
                        .copied()
                        .find(|&k| secs.get(k).is_some_and(|im| runs_at(im, addr)))
                        .unwrap_or(last)
                } else {
                    last
                };
                let last_is_elf = secs.get(last).is_some_and(|im| im.ty == ELF);
                if addr != 0 && last_is_elf {
                    b.warn(
                        s.data_off() + 4,
                        8,
                        format!("sector {name}: address 0x{addr:x}; after an ELF image it should be 0 (the loader starts at _start)"),
                    );
                }
                let range = secs.get(chosen).and_then(Sector::image);
                if let Some(s) = secs.get_mut(i) {
                    s.starts = range;
                }
            }
            _ => {}
        }
    }
    if gotos.is_empty() {
        if let Some(&i) = images.last() {
            if let Some(s) = secs.get(i) {
                b.error(
                    s.off,
                    12,
                    format!(
                        "{who} loads an image (sector {}) but has no GOTO sector",
                        s.name()
                    ),
                );
            }
        }
    }
    if let Some(s) = gotos.get(1).and_then(|&i| secs.get(i)) {
        b.error(
            s.off,
            12,
            format!(
                "{who} has {} GOTO sectors (the second is {}); exactly one is allowed",
                gotos.len(),
                s.name()
            ),
        );
    }
    if let (Some(s), Some(g)) = (
        late.first().and_then(|&i| secs.get(i)),
        gotos.first().and_then(|&i| secs.get(i)),
    ) {
        let more = if late.len() > 1 {
            format!(" (and {} more)", late.len() - 1)
        } else {
            String::new()
        };
        b.error(
            s.off,
            12,
            format!(
                "sector {} for {who} comes after the tile's GOTO (sector {}){more}; GOTO must follow all of a tile's CALL, BINARY and ELF sectors",
                s.name(),
                g.name()
            ),
        );
    }
}

/// True if the image of `s` begins execution at `addr`: an ELF whose entry
/// point it is, or a BINARY loaded over it.
fn runs_at(s: &Sector, addr: u64) -> bool {
    match s.ty {
        ELF => s.entry == Some(addr),
        BINARY => {
            let (Some(t), Some((_, len))) = (s.target, s.image()) else {
                return false;
            };
            addr >= t.addr && addr - t.addr < len
        }
        _ => false,
    }
}

fn tile_span(secs: &[Sector], t: &Tile) -> (u64, u64) {
    let first = t.steps.first().and_then(|&i| secs.get(i));
    let last = t.steps.last().and_then(|&i| secs.get(i));
    match (first, last) {
        (Some(a), Some(z)) => (a.off, z.end.max(a.off)),
        _ => (0, 0),
    }
}

type ItemFn = Arc<dyn Fn(&mut Builder<'_>, NodeId, usize) + Send + Sync>;
type SpanFn = Arc<dyn Fn(usize) -> (u64, u64) + Send + Sync>;

/// Adds items `lo..hi` under `parent`: directly when there are few, else in
/// lazily built groups `[a..b)` of at most [`GROUP`].
fn chunked(
    b: &mut Builder<'_>,
    parent: NodeId,
    lo: usize,
    hi: usize,
    span: &SpanFn,
    item: &ItemFn,
) {
    let n = hi.saturating_sub(lo);
    if n <= GROUP {
        for i in lo..hi {
            item(b, parent, i);
        }
        return;
    }
    let g = group_size(n as u64) as usize;
    let mut s = lo;
    while s < hi {
        let e = s.saturating_add(g).min(hi);
        let (mut a, mut z) = (u64::MAX, 0);
        for i in s..e {
            let (x, y) = span(i);
            a = a.min(x);
            z = z.max(y);
        }
        let gid = b.group(parent, format!("[{s}..{e})"), a, z.saturating_sub(a));
        let (sp, it) = (span.clone(), item.clone());
        b.lazy(
            gid,
            Arc::new(move |b: &mut Builder<'_>, id| chunked(b, id, s, e, &sp, &it)),
        );
        s = e;
    }
}

/// The second pass: the nodes of one sector.
fn sector(b: &mut Builder<'_>, parent: NodeId, s: &Sector) {
    let id = b.group(parent, s.name(), s.off, s.end - s.off);
    let mut summary = summary(b, s);
    if let Some(v) = s.crc_verdict() {
        summary.push_str(&format!("; CRC {v}"));
    } else if s.truncated() {
        summary.push_str("; cut off by the end of the file");
    }
    b.set_value(id, summary);
    if let Some((o, l)) = s.starts {
        b.link(id, o, l);
    }

    let p = s.off;
    let h = b.group(id, "header", p, 12);
    let tv = match type_name(s.ty) {
        Some(n) => format!("0x{:x} ({n})", s.ty),
        None => format!("0x{:x} (unknown)", s.ty),
    };
    b.leaf(h, "type", p, 2, tv);
    b.u16(h, "reserved", p + 2, LE);
    let size = b.leaf(h, "size", p + 4, 8, num(s.size));
    if s.size == 0 {
        b.set_value(size, "0 (no contents)");
        return;
    }
    b.link(size, p + 12, s.end - (p + 12));

    let c = b.group(id, "contents", p + 12, s.end - (p + 12));
    if s.size < 8 {
        b.set_value(c, text::hex(b.slice(p + 12, s.end - (p + 12)), 16));
        return;
    }
    if p + 13 <= s.end {
        b.u8(c, "padding length", p + 12);
    }
    if p + 16 <= s.end {
        b.raw(c, "reserved", p + 13, 3);
    }
    if p + 16 >= s.end {
        return;
    }
    let d = b.group(c, "data", s.data_off(), s.data_len);
    data(b, d, s);
    if s.truncated() {
        return;
    }
    let pad_off = s.data_off() + s.data_len;
    if s.pad > 0 {
        b.raw(c, "padding", pad_off, s.pad);
    }
    if let Some((stored, _)) = s.crc {
        let v = match s.crc_verdict() {
            Some(v) if stored == 0 => format!("0 ({v})"),
            Some(v) => format!("0x{stored:08x} ({v})"),
            None => format!("0x{stored:08x}"),
        };
        b.leaf(c, "crc", s.end - 4, 4, v);
    }
}

/// A one-line description of a sector.
fn summary(b: &Builder<'_>, s: &Sector) -> String {
    let t = s.target;
    match (s.ty, t) {
        (BINARY, Some(t)) => format!(
            "node {}, tile {}, {} bytes at 0x{:x}",
            t.node,
            t.tile,
            s.data_len.saturating_sub(12),
            t.addr
        ),
        (ELF, Some(t)) => format!(
            "node {}, tile {}, {}-byte ELF image{}",
            t.node,
            t.tile,
            s.data_len.saturating_sub(12),
            if s.truncated() {
                " (what is left of it)"
            } else {
                ""
            }
        ),
        (GOTO | CALL, Some(t)) => {
            format!("node {}, tile {}, address 0x{:x}", t.node, t.tile, t.addr)
        }
        (NODEDESC, _) => match b.read_u32(s.data_off() + 4, LE).filter(|_| s.data_len >= 8) {
            Some(id) => format!("JTAG id 0x{id:x}"),
            None => "node descriptor".to_string(),
        },
        (SYSCONFIG | XN | XSCOPE, _) => format!("{} bytes of XML", s.data_len),
        (PROGINFO, _) => format!("{} bytes of program information", s.data_len),
        (SKIP, _) => "skipped by the loader".to_string(),
        (LAST, _) => "end of the sector list".to_string(),
        _ => format!("{} bytes of data", s.data_len),
    }
}

/// Decodes the data of a sector under `d`.
fn data(b: &mut Builder<'_>, d: NodeId, s: &Sector) {
    let o = s.data_off();
    let n = s.data_len;
    match s.ty {
        NODEDESC => {
            let fields: [(&str, u64, u64); 4] = [
                ("jtag index", 0, 2),
                ("reserved", 2, 2),
                ("jtag id", 4, 4),
                ("jtag user id", 8, 4),
            ];
            for (name, at, w) in fields {
                if at + w > n {
                    break;
                }
                let v = if w == 2 {
                    b.read_u16(o + at, LE).map(u64::from)
                } else {
                    b.read_u32(o + at, LE).map(u64::from)
                };
                let Some(v) = v else { break };
                let shown = if name == "jtag id" {
                    let family = match v {
                        0x2633 => Some("XS1"),
                        0x5633 => Some("XS2"),
                        _ => None,
                    };
                    match family {
                        Some(f) => format!("0x{v:x} ({f})"),
                        None => format!("0x{v:x}"),
                    }
                } else if name == "jtag index" {
                    format!("0x{v:x}")
                } else {
                    num(v).to_string()
                };
                b.leaf(d, name, o + at, w, shown);
            }
            if n > 12 {
                b.raw(d, "extra", o + 12, n - 12);
            }
        }
        BINARY | ELF | GOTO | CALL => {
            if n < 12 {
                b.set_value(d, text::hex(b.slice(o, n), 16));
                return;
            }
            b.u16(d, "node", o, LE);
            b.u16(d, "tile", o + 2, LE);
            let what = if matches!(s.ty, GOTO | CALL) {
                "address"
            } else {
                "load address"
            };
            let a = b.leaf(
                d,
                what,
                o + 4,
                8,
                format!("0x{:x}", s.target.map_or(0, |t| t.addr)),
            );
            if let Some((to, tl)) = s.starts {
                b.link(a, to, tl);
            }
            if n == 12 {
                return;
            }
            if matches!(s.ty, GOTO | CALL) {
                b.raw(d, "extra", o + 12, n - 12);
                return;
            }
            let img = b.leaf(d, "image", o + 12, n - 12, format!("{} bytes", n - 12));
            if s.ty == ELF {
                b.nested(img, o + 12, n - 12);
            } else {
                b.set_value(
                    img,
                    format!(
                        "{} bytes: {}",
                        n - 12,
                        text::hex(b.slice(o + 12, n - 12), 16)
                    ),
                );
            }
        }
        SYSCONFIG | XN | XSCOPE => {
            b.set_value(d, format!("{n} bytes of XML"));
            xml::tree(b, d, o, n);
        }
        PROGINFO => proginfo(b, d, o, n),
        SKIP => {
            b.set_value(
                d,
                format!("skipped ({n} bytes): {}", text::hex(b.slice(o, n), 16)),
            );
        }
        _ => {
            b.set_value(d, text::hex(b.slice(o, n), 16));
        }
    }
}

/// PROGINFO data: records of a u16 kind and a u16 length in 32-bit words
/// (the record header included), then that many words less one. The layout
/// is not documented; it is what every real file shows. Data that does not
/// fit it is shown as bytes.
fn proginfo(b: &mut Builder<'_>, d: NodeId, o: u64, n: u64) {
    let end = o + n;
    let mut spans: Vec<(u64, u64)> = Vec::new();
    let mut p = o;
    while p + 4 <= end {
        let Some(words) = b.read_u16(p + 2, LE) else {
            break;
        };
        let len = u64::from(words) * 4;
        if len < 4 || p + len > end {
            break;
        }
        spans.push((p, p + len));
        p += len;
    }
    if p != end {
        b.set_value(
            d,
            format!(
                "{n} bytes (not in the usual record layout): {}",
                text::hex(b.slice(o, n), 16)
            ),
        );
        return;
    }
    b.set_value(
        d,
        format!("{} records (u16 kind, u16 length in words)", spans.len()),
    );
    let spans = Arc::new(spans);
    let span: SpanFn = {
        let spans = spans.clone();
        Arc::new(move |i| spans.get(i).copied().unwrap_or((0, 0)))
    };
    let item: ItemFn = {
        let spans = spans.clone();
        Arc::new(move |b, parent, i| {
            if let Some(&(a, z)) = spans.get(i) {
                record(b, parent, i, a, z);
            }
        })
    };
    chunked(b, d, 0, spans.len(), &span, &item);
}

fn record(b: &mut Builder<'_>, parent: NodeId, i: usize, a: u64, z: u64) {
    let kind = b.read_u16(a, LE).unwrap_or(0);
    let words: Vec<String> = (a + 4..z)
        .step_by(4)
        .take(8)
        .filter_map(|w| b.read_u32(w, LE))
        .map(|w| {
            if w < 10 {
                w.to_string()
            } else {
                format!("0x{w:x}")
            }
        })
        .collect();
    let more = if z - a > 36 { " …" } else { "" };
    let r = b.group(parent, format!("[{i}]"), a, z - a);
    b.set_value(r, format!("kind {kind}: {}{more}", words.join(" ")));
    b.leaf(r, "kind", a, 2, num(kind.into()));
    b.u16(r, "length", a + 2, LE);
    if z > a + 4 {
        b.raw(r, "words", a + 4, z - a - 4);
    }
}

/// The boot-order entry of one tile: the steps in order, each linked to
/// its sector.
fn tile(b: &mut Builder<'_>, parent: NodeId, k: usize, t: &Tile, secs: &Arc<Vec<Sector>>) {
    let (a, z) = tile_span(secs, t);
    let id = b.group(
        parent,
        format!("tile[{k}] (node {}, tile {})", t.node, t.tile),
        a,
        z - a,
    );
    let mut names: Vec<String> = t
        .steps
        .iter()
        .take(STEPS_SHOWN)
        .filter_map(|&i| secs.get(i))
        .map(|s| label_of(s.ty))
        .collect();
    if t.steps.len() > STEPS_SHOWN {
        names.push(format!("… ({} steps)", t.steps.len()));
    }
    b.set_value(id, names.join(", "));
    let steps = Arc::new(t.steps.clone());
    let span: SpanFn = {
        let (secs, steps) = (secs.clone(), steps.clone());
        Arc::new(move |j| {
            steps
                .get(j)
                .and_then(|&i| secs.get(i))
                .map_or((0, 0), |s| (s.off, s.end))
        })
    };
    let item: ItemFn = {
        let secs = secs.clone();
        Arc::new(move |b, p, j| {
            if let Some(s) = steps.get(j).and_then(|&i| secs.get(i)) {
                let n = b.group(p, format!("[{j}] {}", label_of(s.ty)), s.off, s.end - s.off);
                b.set_value(n, format!("sector [{}] at 0x{:x}", s.index, s.off));
                b.link(n, s.off, s.end - s.off);
            }
        })
    };
    chunked(b, id, 0, t.steps.len(), &span, &item);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The xCORE `crc32` instruction, one word at a time, as the loader
    /// computes the sector CRC.
    fn xcore_crc(bytes: &[u8]) -> u32 {
        let step = |mut crc: u32, w: u32| {
            for i in 0..32 {
                let fb = crc & 1;
                crc = (crc >> 1) | (((w >> i) & 1) << 31);
                if fb != 0 {
                    crc ^= 0xEDB8_8320;
                }
            }
            crc
        };
        let mut c = 0xFFFF_FFFF;
        for w in bytes.chunks(4) {
            let mut a = [0u8; 4];
            a[..w.len()].copy_from_slice(w);
            c = step(c, u32::from_le_bytes(a));
        }
        !step(c, 0)
    }

    #[test]
    fn crc_start_value_matches_the_instruction() {
        let data: Vec<u8> = (0u32..64).map(|i| (i * 37 + 5) as u8).collect();
        assert_eq!(sector_crc(&data), xcore_crc(&data));
        assert_eq!(sector_crc(&[]), xcore_crc(&[]));
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name(0x9), Some("PROGINFO"));
        assert_eq!(type_name(0xC), Some("XSCOPE"));
        assert_eq!(type_name(0x7), None);
        assert_eq!(label_of(0x7), "0x7");
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let mut v = b"XMOS\x02\x00\x00\x00".to_vec();
        // A sector whose size is u64::MAX, and one too small for a CRC.
        v.extend_from_slice(&[2, 0, 0, 0]);
        v.extend_from_slice(&u64::MAX.to_le_bytes());
        let mut t = crate::formats::build_from_bytes(v.clone());
        t.expand_all();
        assert!(t
            .diagnostics()
            .iter()
            .any(|d| d.message.contains("runs past")));
        let mut w = b"XMOS\x02\x00\x00\x00".to_vec();
        w.extend_from_slice(&[5, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
        let mut t = crate::formats::build_from_bytes(w);
        t.expand_all();
        assert!(t
            .diagnostics()
            .iter()
            .any(|d| d.message.contains("too small")));
        for cut in 0..v.len() {
            let mut t = crate::formats::build_from_bytes(v[..cut].to_vec());
            t.expand_all();
        }
    }
}
