//! The layout of an XE file: sector types, the header and sector records,
//! and what the first pass keeps of each sector, tile and problem.

use crate::model::record::record;
use crate::model::{text, Builder, Endian, Radix, Raw, Severity, Value};

pub(super) const LE: Endian = Endian::Little;

pub const MAGIC: &[u8] = b"XMOS";

pub(super) const BINARY: u16 = 0x1;
pub(super) const ELF: u16 = 0x2;
pub(super) const SYSCONFIG: u16 = 0x3;
pub(super) const NODEDESC: u16 = 0x4;
pub(super) const GOTO: u16 = 0x5;
pub(super) const CALL: u16 = 0x6;
pub(super) const XN: u16 = 0x8;
pub(super) const PROGINFO: u16 = 0x9;
pub(super) const XSCOPE: u16 = 0xC;
pub(super) const LAST: u16 = 0x5555;

record! {
    /// The file header.
    pub(super) mod file_header: FileHeader (LE) {
        magic: [u8; 4] = "magic", Show::Span(Value::str_bytes),
        version: u16 = "version", Show::Value(version_text),
        reserved: u16 = "reserved", Show::Auto,
    }
}

/// The version as the tools write it: the low byte is the major.
pub(super) fn version_text(v: u64) -> Value {
    Value::text(format!("{}.{}", v & 0xff, v >> 8))
}

record! {
    /// A sector's header (its size counts the contents after it).
    pub(super) mod sector_header: SectorHeader (LE) {
        ty: u16 = "type", Show::NamedHex(|v| type_name(v as u16)),
        reserved: u16 = "reserved", Show::Auto,
        size: u64 = "size", Show::Wide(Value::uint),
    }
}

record! {
    /// The start of a sector's contents, before its data.
    pub(super) mod contents: Contents (LE) {
        padding_length: u8 = "padding length", Show::Auto,
        reserved: [u8; 3] = "reserved", Show::Bytes,
    }
}

record! {
    /// The data of BINARY, ELF, GOTO and CALL sectors starts with the
    /// tile they aim at and an address (shown as a load address or the
    /// address it starts at, by the sector's type).
    pub(super) mod load: Load (LE) {
        node: u16 = "node", Show::Auto,
        tile: u16 = "tile", Show::Auto,
        address: u64 = "address", Show::Hidden,
    }
}

record! {
    /// A NODEDESC sector's data.
    pub(super) mod node_desc: NodeDesc (LE) {
        jtag_index: u16 = "jtag index", Show::Hex,
        reserved: u16 = "reserved", Show::Auto,
        jtag_id: u32 = "jtag id", Show::Wide(|v| Value::named_hex(v, arch_of(v))),
        jtag_user_id: u32 = "jtag user id", Show::Auto,
    }
}

/// A sector header's size, and where a sector's data starts.
pub(super) const SECTOR_HEADER: u64 = sector_header::SIZE;
pub(super) const DATA_AT: u64 = SECTOR_HEADER + contents::SIZE;
pub(super) const SKIP: u16 = 0xFFFF;

/// The sector CRC is zlib's CRC-32 continued from this value (the xCORE
/// `crc32` instruction preset to all ones, with one zero word appended).
pub(super) const CRC_START: u32 = 0x2144_DF1C;

/// Sectors read at most; real files have a few dozen.
pub(super) const MAX_SECTORS: u64 = 1_000_000;

/// How many times one empty sector may repeat before the rest of the file
/// is not read as sectors: a mebibyte of them.
pub(super) const MAX_REPEATS: u64 = text::ZERO_SCAN as u64 / 12;

/// How far back a GOTO or CALL looks for an image whose address it names.
pub(super) const MATCH_BACK: usize = 256;

/// At most this many steps are spelled out in a tile's boot-order value.
pub(super) const STEPS_SHOWN: usize = 32;

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

pub(super) fn label_of(t: u16) -> String {
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
pub(super) struct Target {
    pub(super) node: u16,
    pub(super) tile: u16,
    /// Load address (BINARY, ELF) or start address (GOTO, CALL).
    pub(super) addr: u64,
}

/// One sector as the first pass found it.
#[derive(Clone, Debug)]
pub(super) struct Sector {
    pub(super) index: usize,
    pub(super) off: u64,
    pub(super) ty: u16,
    /// The size the header declares.
    pub(super) size: u64,
    /// The end of the sector's bytes, cut to the end of the file.
    pub(super) end: u64,
    /// The padding length in effect (cut to what the contents can hold).
    pub(super) pad: u64,
    /// The data bytes present.
    pub(super) data_len: u64,
    /// Stored and computed CRC, when the sector has one in the file.
    pub(super) crc: Option<(u32, u32)>,
    pub(super) target: Option<Target>,
    /// The entry point of an ELF image, and where its code is in the
    /// file.
    pub(super) entry: Option<u64>,
    pub(super) entry_at: Option<u64>,
    /// For GOTO and CALL: the image range it starts, and where in it the
    /// tile starts running (the ELF's entry point, or the address in a
    /// BINARY).
    pub(super) starts: Option<(u64, u64)>,
    pub(super) runs_from: Option<u64>,
}

impl Sector {
    pub(super) fn declared_end(&self) -> Option<u64> {
        self.off.checked_add(12)?.checked_add(self.size)
    }
    pub(super) fn truncated(&self) -> bool {
        self.declared_end().is_none_or(|e| e > self.end)
    }
    pub(super) fn data_off(&self) -> u64 {
        self.off.saturating_add(16)
    }
    pub(super) fn name(&self) -> String {
        format!("[{}] {}", self.index, label_of(self.ty))
    }
    /// The image of a BINARY or ELF sector.
    pub(super) fn image(&self) -> Option<(u64, u64)> {
        if !matches!(self.ty, BINARY | ELF) || self.data_len < 12 {
            return None;
        }
        Some((self.data_off().saturating_add(12), self.data_len - 12))
    }
    /// The CRC as the tree shows it.
    pub(super) fn crc_value(&self) -> Option<Value> {
        let (stored, computed) = self.crc?;
        let v = u64::from(stored);
        Some(if stored == 0 {
            Value::note(Raw::U(0), "not set")
        } else if stored == computed {
            Value::with(v, Radix::HexWide, " (ok)").with_width(4)
        } else {
            Value::with(
                v,
                Radix::HexWide,
                format!(" (mismatch: expected 0x{computed:08x})"),
            )
            .with_width(4)
        })
    }
    pub(super) fn crc_verdict(&self) -> Option<String> {
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

/// The sectors aimed at one tile, in file order (indices into the list of
/// aimed sectors).
#[derive(Clone, Debug)]
pub(super) struct Tile {
    pub(super) node: u16,
    pub(super) tile: u16,
    pub(super) steps: Vec<usize>,
}

/// A problem with one sector, before it is reported: its severity, bytes
/// and message (without the sector's label).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Problem {
    pub(super) sev: Severity,
    pub(super) off: u64,
    pub(super) size: u64,
    pub(super) msg: String,
}

/// Collects the problems of a sector.
#[derive(Default)]
pub(super) struct Problems(pub(super) Vec<Problem>);

impl Problems {
    pub(super) fn warn(&mut self, off: u64, size: u64, msg: impl Into<String>) {
        self.push(Severity::Warning, off, size, msg);
    }
    pub(super) fn error(&mut self, off: u64, size: u64, msg: impl Into<String>) {
        self.push(Severity::Error, off, size, msg);
    }
    pub(super) fn push(&mut self, sev: Severity, off: u64, size: u64, msg: impl Into<String>) {
        self.0.push(Problem {
            sev,
            off,
            size,
            msg: msg.into(),
        });
    }
}

/// Sectors in a row with the same type and the same problems, reported
/// as one diagnostic per problem with their count and extent.
pub(super) struct Run {
    pub(super) first: usize,
    pub(super) count: u64,
    pub(super) ty: u16,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) problems: Vec<Problem>,
}

impl Run {
    /// Reports the run: a single sector's problems as they are, a longer
    /// run's once each.
    pub(super) fn report(self, b: &mut Builder<'_>) {
        if self.count == 1 {
            let label = format!("sector [{}] {}", self.first, label_of(self.ty));
            for p in self.problems {
                b.diag(p.sev, p.off, p.size, format!("{label}: {}", p.msg));
            }
            return;
        }
        let last = self.first as u64 + self.count - 1;
        for p in self.problems {
            let size = self.end.saturating_sub(p.off);
            b.diag(
                p.sev,
                p.off,
                size,
                format!(
                    "{} sectors of type {} ([{}] to [{last}], from 0x{:x} to 0x{:x}): {}",
                    self.count,
                    label_of(self.ty),
                    self.first,
                    self.start,
                    self.end,
                    p.msg
                ),
            );
        }
    }
}

/// How many runs of sectors with problems are reported one by one; the
/// problems of the sectors after them are summed up in one diagnostic.
pub(super) const MAX_RUNS: u64 = 1000;

/// Folds the problems of the sectors, in order, into runs and reports
/// them.
#[derive(Default)]
pub(super) struct Folder {
    pub(super) run: Option<Run>,
    pub(super) reported: u64,
    /// Past [`MAX_RUNS`]: how many sectors had problems, from where to
    /// where, and the worst of them.
    pub(super) over: Option<(u64, u64, u64, Severity)>,
}

impl Folder {
    /// Adds a sector's problems: to the current run if they are the same
    /// as its sectors', else reports the run and starts another.
    pub(super) fn add(&mut self, b: &mut Builder<'_>, s: &Sector, problems: Vec<Problem>) {
        if let Some(r) = self.run.as_mut() {
            let same = r.ty == s.ty
                && r.end == s.off
                && r.problems.len() == problems.len()
                && r.problems
                    .iter()
                    .zip(&problems)
                    .all(|(a, p)| a.sev == p.sev && a.msg == p.msg && a.size == p.size);
            if same {
                r.count += 1;
                r.end = s.end;
                return;
            }
        }
        self.flush(b);
        if !problems.is_empty() {
            self.run = Some(Run {
                first: s.index,
                count: 1,
                ty: s.ty,
                start: s.off,
                end: s.end,
                problems,
            });
        }
    }

    /// The current run grows by `n` sectors ending at `end`.
    pub(super) fn grow(&mut self, n: u64, end: u64) {
        if let Some(r) = self.run.as_mut() {
            r.count += n;
            r.end = end;
        }
    }

    /// Reports the current run.
    pub(super) fn flush(&mut self, b: &mut Builder<'_>) {
        let Some(r) = self.run.take() else {
            return;
        };
        if self.reported < MAX_RUNS {
            self.reported += 1;
            r.report(b);
            return;
        }
        let worst = r
            .problems
            .iter()
            .map(|p| p.sev)
            .max()
            .unwrap_or(Severity::Info);
        self.over = Some(match self.over {
            None => (r.count, r.start, r.end, worst),
            Some((n, a, _, w)) => (n + r.count, a, r.end, w.max(worst)),
        });
    }

    /// Reports the current run and what was summed up.
    pub(super) fn finish(&mut self, b: &mut Builder<'_>) {
        self.flush(b);
        if let Some((n, a, z, w)) = self.over.take() {
            b.diag(
                w,
                a,
                z.saturating_sub(a),
                format!(
                    "{n} more sectors with problems from 0x{a:x} to 0x{z:x}, after {MAX_RUNS} reported; not listed one by one"
                ),
            );
        }
    }
}

/// The second pass: the nodes of one sector.
/// The architecture a NODEDESC sector's JTAG id names.
pub(super) fn arch_of(jtag: u64) -> Option<&'static str> {
    match jtag {
        0x2633 => Some("XS1"),
        0x5633 => Some("XS2"),
        _ => None,
    }
}
