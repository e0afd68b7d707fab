//! XMOS XE executables (`XMOS`, version 2.0): a header, then a list of
//! sectors that a loader processes in order. Each sector is a 12-byte header
//! (type, reserved, size) and, when the size is not 0, a contents block:
//! padding length, 3 reserved bytes, the data, padding to a 32-bit word and
//! a CRC. Program images (ELF or raw BINARY) are loaded onto tiles, and GOTO
//! or CALL sectors start them.
//!
//! The file is read in two passes. The first walks the sector list with
//! plain reads, checks every CRC and field and works out the boot order of
//! each tile, so that all diagnostics exist as soon as the file is open;
//! it keeps only every [`GROUP`]-th sector's offset and the sectors aimed
//! at a tile. Problems that repeat from sector to sector (a run of empty
//! sectors) are reported once for the run, with its count and extent. The
//! second pass adds the nodes, as a lazy [`Seq`], sector by sector as they
//! are opened.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::record::{record, Record};
use crate::model::{
    read_uint, text, Builder, Configures, Fact, Fields, Format, NodeId, Radix, Raw, Seq, Span,
    Step, Value, GROUP,
};

use super::xml;

mod image;
mod sector;

use image::{elf_addr_at, elf_entry};

use sector::{
    arch_of, contents, file_header, label_of, load, node_desc, sector_header, Contents, FileHeader,
    Folder, Load, NodeDesc, Problems, Sector, SectorHeader, Target, Tile, BINARY, CALL, DATA_AT,
    ELF, GOTO, LAST, LE, MATCH_BACK, MAX_REPEATS, MAX_SECTORS, NODEDESC, PROGINFO, SECTOR_HEADER,
    SKIP, STEPS_SHOWN, SYSCONFIG, XN, XSCOPE,
};
pub use sector::{detect, sector_crc, type_name, MAGIC};

/// What the first pass keeps of the sector list.
struct List {
    /// The offset of every [`GROUP`]-th sector.
    marks: Vec<u64>,
    count: u64,
    /// Where the last sector ends.
    end: u64,
    /// The sectors aimed at a tile (BINARY, ELF, GOTO, CALL), in order.
    aimed: Vec<Sector>,
    /// Each node's architecture, from its NODEDESC sector's JTAG id, in
    /// node order.
    archs: Vec<Option<&'static str>>,
    stop: Stop,
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    // Cut to the file (empty where it starts past the end).
    let xe = at.take(b.file_len().saturating_sub(at.offset));
    let limit = xe.end();
    if !header(b, parent, xe) {
        return;
    }
    let sectors = xe.skip(file_header::SIZE);
    let List {
        marks,
        count,
        end,
        mut aimed,
        archs,
        stop,
    } = scan(b, sectors);
    let archs = Arc::new(archs);
    let tiles = boot(b, &mut aimed);
    let aimed = Arc::new(aimed);
    let tiles = Arc::new(tiles);

    let node = b.group(parent, "sectors", sectors.offset, end - sectors.offset);
    b.set_value(node, Value::with(count, Radix::Dec, " sectors"));
    let step: Step = {
        let aimed = aimed.clone();
        Arc::new(move |b: &mut Builder<'_>, p, i, at| {
            let s = reread(b, i, at, limit, &aimed)?;
            sector(b, p, &s, &archs);
            Some(s.end)
        })
    };
    b.seq(node, Seq::from_marks(marks, count, end, step));

    if !tiles.is_empty() {
        // A view of the sectors, gathered by tile: it owns no bytes (its
        // nodes are empty, at the list's end), its steps link to their
        // sectors, so that copying a tile copies nothing of other tiles.
        let bo = b.group(parent, "boot order", end, 0);
        let n = tiles.len() as u64;
        b.set_value(
            bo,
            Value::with(n, Radix::Dec, if n == 1 { " tile" } else { " tiles" }),
        );
        let step: Step = Arc::new(move |b: &mut Builder<'_>, p, k, at| {
            let t = tiles.get(usize::try_from(k).ok()?)?;
            tile(b, p, k, t, at, &aimed);
            Some(at)
        });
        b.seq(bo, Seq::fixed(end, 0, n, step));
    }

    match stop {
        Stop::Last if end < limit => {
            b.warn(
                end,
                limit - end,
                format!("{} bytes after the LAST sector", limit - end),
            );
            let v = Value::with(
                limit - end,
                Radix::Dec,
                format!(
                    " bytes after LAST: {}",
                    text::hex(b.slice(end, limit - end), 16)
                ),
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

/// Adds the 8-byte file header of the XE in `xe`. False if it is not all
/// there.
fn header(b: &mut Builder<'_>, parent: NodeId, xe: Span) -> bool {
    let have = xe.len;
    if have < file_header::SIZE {
        b.raw(
            parent,
            "magic",
            xe.offset,
            have.min(file_header::AT.magic.size),
        );
        b.error(
            xe.offset,
            have,
            format!(
                "truncated: the XE header needs {} bytes, {have} remain",
                file_header::SIZE
            ),
        );
        return false;
    }
    let h = b.group(parent, "header", xe.offset, file_header::SIZE);
    // The 8 bytes are there (checked above).
    let r = FileHeader::read(b.slice(xe.offset, file_header::SIZE)).ok();
    FileHeader::show(&mut Fields::new(b, h, xe.offset, LE));
    let v = r.map_or(0, |r| r.version);
    let (major, minor) = (v & 0xff, v >> 8);
    if (major, minor) != (2, 0) {
        file_header::AT.version.warn(
            b,
            xe.offset,
            format!("XE version {major}.{minor}; the known version is 2.0"),
        );
    }
    let res = r.map_or(0, |r| r.reserved);
    if res != 0 {
        file_header::AT.reserved.warn(
            b,
            xe.offset,
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

/// The first pass: walks the sector list in `sectors`, checking each
/// sector as it goes.
fn scan(b: &mut Builder<'_>, sectors: Span) -> List {
    let limit = sectors.end();
    let mut list = List {
        marks: Vec::new(),
        count: 0,
        end: sectors.offset,
        aimed: Vec::new(),
        archs: Vec::new(),
        stop: Stop::End,
    };
    let mut folder = Folder::default();
    // The header of the last sector, when it had no contents: the same
    // header again is the same sector again, with the same problems.
    let mut empty: Option<[u8; 12]> = None;
    // How many times it has repeated.
    let mut same = 0u64;
    let mut p = sectors.offset;
    list.stop = loop {
        if p >= limit {
            break Stop::End;
        }
        if list.count >= MAX_SECTORS {
            folder.flush(b);
            b.error(
                p,
                limit - p,
                format!("more than {MAX_SECTORS} sectors; the rest is not read"),
            );
            break Stop::End;
        }
        let rem = limit - p;
        if rem < 12 {
            folder.flush(b);
            b.error(
                p,
                rem,
                format!("truncated: a sector header needs 12 bytes, {rem} remain"),
            );
            break Stop::ShortHeader(p);
        }
        let Some(hdr) = b.read_bytes(p, 12) else {
            break Stop::End;
        };
        if let Some(e) = empty.filter(|e| e == hdr) {
            // The same empty sector as the one before, perhaps many times
            // over: only the run grows. Past a mebibyte of them, the rest
            // of the file is not read as sectors (a header and gigabytes of
            // zeros would otherwise be read to the end).
            let room = (MAX_REPEATS - same).min(MAX_SECTORS - list.count);
            if room == 0 {
                folder.flush(b);
                b.error(
                    p,
                    rem,
                    format!(
                        "the same empty sector repeats past 0x{p:x}; the remaining {rem} bytes are not read as sectors"
                    ),
                );
                break Stop::End;
            }
            let n = repeats(b, p, &e, room.min(rem / 12));
            same += n;
            let first = list.count;
            list.count += n;
            let mut k = first.next_multiple_of(GROUP);
            while k < list.count {
                list.marks.push(p + (k - first) * 12);
                k += GROUP;
            }
            folder.grow(n, p + n * 12);
            p += n * 12;
            list.end = p;
            continue;
        }
        if list.count.is_multiple_of(GROUP) {
            list.marks.push(p);
        }
        let index = list.count as usize;
        list.count += 1;
        let Some((ty, res, size)) = words12(b, p) else {
            break Stop::End;
        };
        let mut problems = Problems::default();
        let s = check_sector(b, index, p, ty, res, size, limit, &mut problems);
        same = 0;
        let (end, cut) = (s.end, s.truncated());
        empty = (size == 0 && ty != LAST).then(|| {
            let mut h = [0u8; 12];
            h.copy_from_slice(hdr);
            h
        });
        folder.add(b, &s, problems.0);
        list.end = end;
        if ty == NODEDESC {
            let id = (s.data_len >= 8)
                .then(|| read_uint(b, s.data_off() + 4, 4, LE))
                .flatten();
            list.archs.push(id.and_then(arch_of));
        }
        if s.target.is_some() {
            list.aimed.push(s);
        }
        if ty == LAST {
            break Stop::Last;
        }
        if cut || end <= p {
            break Stop::End;
        }
        p = end;
    };
    folder.finish(b);
    if !matches!(list.stop, Stop::Last) {
        let at = list.end.min(limit);
        b.error(
            at,
            limit.saturating_sub(at),
            "no LAST sector (0x5555): the sector list is not terminated",
        );
    }
    list
}

/// How many times (1 at least, `max` at most) the 12-byte header `h`
/// repeats from `p`.
fn repeats(b: &Builder<'_>, p: u64, h: &[u8; 12], max: u64) -> u64 {
    let bytes = b.slice(p, max.saturating_mul(12));
    let n = if h.iter().all(|&x| x == 0) {
        let zeros = bytes.iter().position(|&x| x != 0).unwrap_or(bytes.len());
        zeros / 12
    } else {
        bytes.chunks_exact(12).take_while(|c| c == h).count()
    };
    (n as u64).clamp(1, max.max(1))
}

/// The 12 bytes at `p` as two 16-bit words and a 64-bit one: a sector
/// header (type, reserved, size) or a load target (node, tile, address).
fn words12(b: &Builder<'_>, p: u64) -> Option<(u16, u16, u64)> {
    let h = SectorHeader::read(b.slice(p, SECTOR_HEADER)).ok()?;
    Some((h.ty, h.reserved, h.size))
}

/// The tile a BINARY, ELF, GOTO or CALL sector's data at `d` aims at.
fn load_at(b: &Builder<'_>, d: u64) -> Option<Target> {
    let l = Load::read(b.slice(d, load::SIZE)).ok()?;
    Some(Target {
        node: l.node,
        tile: l.tile,
        addr: l.address,
    })
}

/// Reads sector `i` at `at` again (for its nodes), with where it starts,
/// as the first pass found it.
fn reread(b: &Builder<'_>, i: u64, at: u64, limit: u64, aimed: &[Sector]) -> Option<Sector> {
    let (ty, res, size) = words12(b, at)?;
    let index = usize::try_from(i).ok()?;
    let mut quiet = Problems::default();
    let mut s = check_sector(b, index, at, ty, res, size, limit, &mut quiet);
    if let Ok(k) = aimed.binary_search_by_key(&index, |a| a.index) {
        s.starts = aimed.get(k).and_then(|a| a.starts);
        s.runs_from = aimed.get(k).and_then(|a| a.runs_from);
    }
    Some(s)
}

/// Reads and checks one sector at `p`.
#[allow(clippy::too_many_arguments)]
fn check_sector(
    b: &Builder<'_>,
    index: usize,
    p: u64,
    ty: u16,
    res: u16,
    size: u64,
    limit: u64,
    out: &mut Problems,
) -> Sector {
    let at = sector_header::AT;
    if res != 0 {
        out.warn(
            at.reserved.of(p),
            at.reserved.size,
            format!("reserved field is 0x{res:x}, not 0"),
        );
    }
    if type_name(ty).is_none() {
        out.warn(p, at.ty.size, format!("unknown sector type 0x{ty:x}"));
    }
    let size_at = (at.size.of(p), at.size.size);
    let declared = (p + SECTOR_HEADER).checked_add(size);
    let end = match declared {
        Some(e) if e <= limit => e,
        _ => {
            out.error(
                size_at.0,
                size_at.1,
                format!(
                    "size {size} runs past the end of the file ({} bytes remain)",
                    limit - (p + SECTOR_HEADER)
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
        entry_at: None,
        starts: None,
        runs_from: None,
    };
    let cut = s.truncated();
    if size == 0 {
        if ty != LAST {
            out.warn(size_at.0, size_at.1, "no contents block (size 0)");
        }
        return s;
    }
    if ty == LAST {
        out.warn(
            size_at.0,
            size_at.1,
            format!("size {size}; the LAST sector should have no contents"),
        );
    }
    if size < 8 {
        out.error(
            size_at.0,
            size_at.1,
            format!("size {size} is too small for a contents block (8 bytes at least)"),
        );
        return s;
    }
    if !size.is_multiple_of(4) {
        out.warn(
            size_at.0,
            size_at.1,
            format!("size {size} is not a whole number of 32-bit words"),
        );
    }
    // The contents' first bytes, as many as the sector holds.
    let c = p + SECTOR_HEADER;
    let cat = contents::AT;
    let have = end.saturating_sub(c);
    let head = Contents::read_zeroed(b.slice(c, have.min(contents::SIZE)), LE).ok();
    if let Some(padlen) = head.filter(|_| have >= cat.padding_length.end()) {
        let room = size - 8;
        let padlen = u64::from(padlen.padding_length);
        if padlen > room {
            out.error(
                cat.padding_length.of(c),
                cat.padding_length.size,
                format!("padding length {padlen} is more than the {room} bytes the contents hold"),
            );
        } else if padlen > 3 {
            out.warn(
                cat.padding_length.of(c),
                cat.padding_length.size,
                format!("padding length {padlen}; padding to a 32-bit word needs 3 at most"),
            );
        }
        s.pad = padlen.min(room);
    }
    if let Some(r) = head.filter(|_| have >= cat.reserved.end()) {
        if r.reserved.iter().any(|&x| x != 0) {
            out.warn(
                cat.reserved.of(c),
                cat.reserved.size,
                format!("reserved bytes are {}, not 0", text::hex(&r.reserved, 3)),
            );
        }
    }
    if cut {
        s.data_len = end.saturating_sub(p + DATA_AT);
    } else {
        s.data_len = size - 8 - s.pad;
        let crc_off = end - 4;
        let stored = b.read_u32(crc_off, LE).unwrap_or(0);
        let computed = sector_crc(b.slice(p, crc_off - p));
        if stored != 0 && stored != computed {
            out.warn(
                crc_off,
                4,
                format!("CRC mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}"),
            );
        }
        s.crc = Some((stored, computed));
    }
    check_data(b, &mut s, out);
    s
}

/// Checks the fixed fields of a sector's data and notes where it is aimed.
fn check_data(b: &Builder<'_>, s: &mut Sector, out: &mut Problems) {
    let d = s.data_off();
    let n = s.data_len;
    let cut = s.truncated();
    let fixed = matches!(s.ty, BINARY | ELF | GOTO | CALL | NODEDESC);
    if !fixed {
        return;
    }
    // NODEDESC's record and the others' load target are both 12 bytes.
    const FIXED: u64 = load::SIZE;
    if n < FIXED {
        if !cut {
            out.error(
                d,
                n,
                format!("data is {n} bytes; this sector type needs {FIXED}"),
            );
        }
        return;
    }
    if s.ty == NODEDESC {
        let res = NodeDesc::read(b.slice(d, node_desc::SIZE)).map_or(0, |r| r.reserved);
        if res != 0 {
            let at = node_desc::AT.reserved;
            out.warn(
                at.of(d),
                at.size,
                format!("reserved field is 0x{res:x}, not 0"),
            );
        }
    }
    if n > FIXED && !cut && matches!(s.ty, NODEDESC | GOTO | CALL) {
        out.warn(
            d + FIXED,
            n - FIXED,
            format!(
                "{} bytes after the {FIXED} this sector type holds",
                n - FIXED
            ),
        );
    }
    if matches!(s.ty, BINARY | ELF | GOTO | CALL) {
        let Some(t) = load_at(b, d) else {
            return;
        };
        s.target = Some(t);
    }
    if s.ty == ELF {
        if let Some(t) = s.target {
            if t.addr != 0 {
                out.warn(
                    load::AT.address.of(d),
                    load::AT.address.size,
                    format!("load address 0x{:x}; an ELF sector's should be 0", t.addr),
                );
            }
        }
        let img = d + FIXED;
        let img_len = n - FIXED;
        if b.slice(img, img_len.min(4)) != b"\x7fELF" {
            out.warn(
                img,
                img_len.min(4),
                "the image does not start with an ELF header",
            );
        } else {
            let image = b.span(img, img_len);
            s.entry = elf_entry(b, image);
            s.entry_at = s.entry.and_then(|e| elf_addr_at(b, image, e));
        }
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
                let image = secs.get(chosen);
                let range = image.and_then(Sector::image);
                // Where the tile runs from: an ELF's entry point, or the
                // address in a BINARY loaded at its target.
                let runs_from = image.and_then(|im| match im.ty {
                    ELF => im.entry_at,
                    _ => {
                        let (start, len) = range?;
                        let at = addr.checked_sub(im.target?.addr)?;
                        (at < len).then(|| start + at)
                    }
                });
                if let Some(s) = secs.get_mut(i) {
                    s.starts = range;
                    s.runs_from = runs_from;
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

fn sector(b: &mut Builder<'_>, parent: NodeId, s: &Sector, archs: &[Option<&'static str>]) {
    let id = b.group(parent, s.name(), s.off, s.end - s.off);
    // Two builds are compared sector for sector by type and tile.
    if let Some(t) = &s.target {
        b.set_key(
            id,
            format!("{} node {} tile {}", label_of(s.ty), t.node, t.tile),
        );
    }
    let mut summary = summary(b, s);
    if let Some(v) = s.crc_verdict() {
        summary.push_str(&format!("; CRC {v}"));
    } else if s.truncated() {
        summary.push_str("; cut off by the end of the file");
    }
    b.set_value(id, summary);
    if let Some((o, l)) = s.starts {
        b.link(id, b.span(o, l));
    }

    let p = s.off;
    let c_at = p + SECTOR_HEADER;
    let h = b.group(id, "header", p, SECTOR_HEADER);
    let n = SectorHeader::show(&mut Fields::new(b, h, p, LE));
    if s.size == 0 {
        if let Some(size) = n.size {
            b.set_value(size, Value::note(Raw::U(0), "no contents"));
        }
        return;
    }
    if let Some(size) = n.size {
        b.link(size, b.span(c_at, s.end - c_at));
    }

    let c = b.group(id, "contents", c_at, s.end - c_at);
    if s.size < 8 {
        b.set_value(c, text::hex(b.slice(c_at, s.end - c_at), 16));
        return;
    }
    // As much of the contents' start as the sector holds.
    Contents::show_part(&mut Fields::new(b, c, c_at, LE), 0, s.end - c_at);
    if p + DATA_AT >= s.end {
        return;
    }
    let d = b.group(c, "data", s.data_off(), s.data_len);
    let arch = s.target.as_ref().map(|t| {
        (
            archs.get(usize::from(t.node)).copied().flatten(),
            t.node,
            t.tile,
        )
    });
    data(b, d, s, arch);
    if s.truncated() {
        return;
    }
    let pad_off = s.data_off() + s.data_len;
    if s.pad > 0 {
        b.raw(c, "padding", pad_off, s.pad);
    }
    if let Some(v) = s.crc_value() {
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

/// Decodes the data of a sector under `d`; `tile` is the tile it is aimed
/// at (the architecture of its node, where the file names it; the node;
/// the tile).
fn data(
    b: &mut Builder<'_>,
    d: NodeId,
    s: &Sector,
    tile: Option<(Option<&'static str>, u16, u16)>,
) {
    let o = s.data_off();
    let n = s.data_len;
    match s.ty {
        NODEDESC => {
            // As many of the fields as the data holds.
            let mut f = Fields::new(b, d, o, LE);
            NodeDesc::show_part(&mut f, 0, n);
            if n > node_desc::SIZE {
                f.bytes("extra", n - node_desc::SIZE);
            }
        }
        BINARY | ELF | GOTO | CALL => {
            if n < load::SIZE {
                b.set_value(d, text::hex(b.slice(o, n), 16));
                return;
            }
            Load::show(&mut Fields::new(b, d, o, LE));
            let what = if matches!(s.ty, GOTO | CALL) {
                "address"
            } else {
                "load address"
            };
            let a = b.leaf(
                d,
                what,
                load::AT.address.of(o),
                load::AT.address.size,
                Value::hex(s.target.map_or(0, |t| t.addr)).with_width(8),
            );
            // The address links to the code the tile runs first; the
            // sector, to the image.
            match (s.runs_from, s.starts) {
                (Some(to), _) => b.link(a, b.span(to, 1)),
                (None, Some((to, tl))) => b.link(a, b.span(to, tl)),
                _ => {}
            }
            if n == load::SIZE {
                return;
            }
            if matches!(s.ty, GOTO | CALL) {
                b.raw(d, "extra", o + load::SIZE, n - load::SIZE);
                return;
            }
            let img = b.leaf(
                d,
                "image",
                o + load::SIZE,
                n - load::SIZE,
                Value::Size(n - load::SIZE),
            );
            if s.ty == ELF {
                b.nested(img, b.span(o + load::SIZE, n - load::SIZE));
                // A tile's program, for --targets.
                if let Some((arch, node, tile)) = tile {
                    b.fact(
                        img,
                        Fact::Configures(Configures {
                            format: Format::Elf,
                            target: arch.unwrap_or("xcore").into(),
                            kind: format!("node {node} tile {tile}").into(),
                        }),
                    );
                }
            } else {
                b.set_value(
                    img,
                    format!(
                        "{} bytes: {}",
                        n - load::SIZE,
                        text::hex(b.slice(o + load::SIZE, n - load::SIZE), 16)
                    ),
                );
            }
        }
        SYSCONFIG | XN | XSCOPE => {
            b.set_value(d, Value::with(n, Radix::Dec, " bytes of XML"));
            xml::tree(b, d, b.span(o, n));
        }
        PROGINFO => proginfo(b, d, b.span(o, n)),
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
fn proginfo(b: &mut Builder<'_>, d: NodeId, at: Span) {
    let end = at.end();
    let mut marks: Vec<u64> = Vec::new();
    let mut count = 0u64;
    let mut p = at.offset;
    while p + RECORD_HEAD <= end {
        let Some(len) = record_len(b, p) else {
            break;
        };
        if len < RECORD_HEAD || p + len > end {
            break;
        }
        if count.is_multiple_of(GROUP) {
            marks.push(p);
        }
        count += 1;
        p += len;
    }
    if p != end {
        b.set_value(
            d,
            format!(
                "{} bytes (not in the usual record layout): {}",
                at.len,
                text::hex(b.bytes(at), 16)
            ),
        );
        return;
    }
    b.set_value(
        d,
        Value::with(
            count,
            Radix::Dec,
            " records (u16 kind, u16 length in words)",
        ),
    );
    let step: Step = Arc::new(|b: &mut Builder<'_>, parent, i, a| {
        let len = record_len(b, a).filter(|&l| l >= RECORD_HEAD)?;
        record(b, parent, i, b.span(a, len));
        Some(a + len)
    });
    b.seq(d, Seq::from_marks(marks, count, end, step));
}

record! {
    /// A PROGINFO record's head: its kind and its length in words.
    mod proginfo_record: ProginfoRecord (LE) {
        kind: u16 = "kind", Show::Auto,
        length: u16 = "length", Show::Auto,
    }
}

/// The size of a PROGINFO record's head, of a word, and how many words a
/// record's summary shows.
const RECORD_HEAD: u64 = proginfo_record::SIZE;
const WORD: u64 = 4;
const WORDS_SHOWN: u64 = 8;

/// The length in bytes of the PROGINFO record at `p`.
fn record_len(b: &Builder<'_>, p: u64) -> Option<u64> {
    let at = proginfo_record::AT.length;
    read_uint(b, at.of(p), at.size, LE).map(|w| w * WORD)
}

/// The PROGINFO record `[i]` in `at`.
fn record(b: &mut Builder<'_>, parent: NodeId, i: u64, at: Span) {
    let kind = b.read_u16(at.offset, LE).unwrap_or(0);
    let words: Vec<String> = (at.offset + RECORD_HEAD..at.end())
        .step_by(WORD as usize)
        .take(WORDS_SHOWN as usize)
        .filter_map(|w| b.read_u32(w, LE))
        .map(|w| {
            if w < 10 {
                w.to_string()
            } else {
                format!("0x{w:x}")
            }
        })
        .collect();
    let more = if at.len > RECORD_HEAD + WORDS_SHOWN * WORD {
        " …"
    } else {
        ""
    };
    let r = b.group(parent, format!("[{i}]"), at.offset, at.len);
    b.set_value(r, format!("kind {kind}: {}{more}", words.join(" ")));
    let mut f = Fields::new(b, r, at.offset, LE);
    ProginfoRecord::show(&mut f);
    if at.len > RECORD_HEAD {
        f.bytes("words", at.len - RECORD_HEAD);
    }
}

/// The boot-order entry of one tile: the steps in order, each an empty
/// node at `at` (where the boot order is) linked to its sector.
fn tile(b: &mut Builder<'_>, parent: NodeId, k: u64, t: &Tile, at: u64, aimed: &Arc<Vec<Sector>>) {
    let id = b.group(
        parent,
        format!("tile[{k}] (node {}, tile {})", t.node, t.tile),
        at,
        0,
    );
    let mut names: Vec<String> = t
        .steps
        .iter()
        .take(STEPS_SHOWN)
        .filter_map(|&i| aimed.get(i))
        .map(|s| label_of(s.ty))
        .collect();
    if t.steps.len() > STEPS_SHOWN {
        names.push(format!("… ({} steps)", t.steps.len()));
    }
    b.set_value(id, names.join(", "));
    let steps = Arc::new(t.steps.clone());
    let step: Step = {
        let (aimed, steps) = (aimed.clone(), steps.clone());
        Arc::new(move |b: &mut Builder<'_>, p, j, at| {
            let ju = usize::try_from(j).ok()?;
            let s = steps.get(ju).and_then(|&i| aimed.get(i))?;
            let n = b.group(p, format!("[{j}] {}", label_of(s.ty)), at, 0);
            b.set_value(n, format!("sector [{}] at 0x{:x}", s.index, s.off));
            b.link(n, b.span(s.off, s.end - s.off));
            Some(at)
        })
    };
    b.seq(id, Seq::fixed(at, 0, steps.len() as u64, step));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The XE layout (XMOS's tools/xobjdump): an 8-byte file header, then
    /// sectors of a 12-byte header, a 4-byte contents start and the data,
    /// whose first 12 bytes are the tile and address (or the node
    /// descriptor).
    #[test]
    fn records_match_the_xe_layout_and_short_slices_are_errors() {
        assert_eq!((file_header::SIZE, SECTOR_HEADER, DATA_AT), (8, 12, 16));
        assert_eq!(file_header::AT.version.off, 4);
        assert_eq!(sector_header::AT.size.off, 4);
        assert_eq!(contents::AT.reserved.off, 1);
        assert_eq!((load::SIZE, node_desc::SIZE), (12, 12));
        assert_eq!(load::AT.address.off, 4);
        assert_eq!(node_desc::AT.jtag_user_id.off, 8);
        let e = FileHeader::read(b"XMOS\x02").unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("version", 8, 5));
        assert_eq!(SectorHeader::read(&[1, 0, 0, 0]).unwrap_err().field, "size");
        let h = SectorHeader::read(&[2, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!((h.ty, h.size), (ELF, 0x10));
        assert_eq!(sector::version_text(2).to_string(), "2.0");
    }

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
