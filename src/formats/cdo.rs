//! CDO (configuration data object) command streams, version 2, as the
//! platform loader reads them from a PDI partition, and the compact record
//! layout that some NPU partitions carry instead of a command stream.
//!
//! A stream may hold millions of commands. At parse time one fast pass walks
//! them for the summary (commands by type, DMA bytes, AIE columns and rows)
//! and the diagnostics, and notes where every thousandth command starts; the
//! command nodes themselves are built when their group is opened.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::{group_size, num, text, Builder, Endian, NodeId, Seq, GROUP};

const LE: Endian = Endian::Little;

/// "CDO\0" read as a little-endian word: the version 2 identification.
pub const CDO_ID: u32 = 0x004F_4443;
/// "XNLX": the version 1 identification.
pub const XNLX_ID: u32 = 0x584C_4E58;

/// Commands are shown, and their start offsets remembered, in groups of this
/// many.
/// PROC and PSM_SEQUENCE carry commands of their own; this many levels are
/// opened.
const MAX_DEPTH: u8 = 3;
/// Per-command problems reported one by one in a stream; the rest are
/// counted in one closing diagnostic.
const DIAG_BUDGET: u32 = 20;

/// What a stream is shown against: the start columns of the AIE partition
/// it configures, when known (empty otherwise).
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    pub start_columns: Vec<u16>,
}

/// True if `d` starts with a CDO header (version 1 or 2).
pub fn is_cdo(d: &[u8]) -> bool {
    let w = |i: usize| -> Option<u32> {
        let s = d.get(i..)?;
        nom::number::complete::le_u32::<_, nom::error::Error<&[u8]>>(s)
            .ok()
            .map(|(_, v)| v)
    };
    d.len() >= 20 && w(0) == Some(4) && matches!(w(4), Some(CDO_ID) | Some(XNLX_ID))
}

// ---------------------------------------------------------------------------
// names

/// Names of the loader's modules (the command word's bits 15..8).
pub fn module_name(m: u8) -> Option<&'static str> {
    Some(match m {
        1 => "generic",
        2 => "PM",
        3 => "SEM",
        4 => "XilFPGA",
        5 => "XilSecure",
        6 => "PSM",
        7 => "loader",
        8 => "error manager",
        10 => "STL",
        11 => "XilNvm",
        12 => "XilPuf",
        13 => "XilOcp",
        _ => return None,
    })
}

/// Names of the generic module's commands, by command id.
const GENERIC: [&str; 43] = [
    "END_MARK",
    "MASK_POLL",
    "MASK_WRITE",
    "WRITE",
    "DELAY",
    "DMA_WRITE",
    "MASK_POLL64",
    "MASK_WRITE64",
    "WRITE64",
    "DMA_XFER",
    "INIT_SEQ",
    "CFI_READ",
    "SET",
    "DMA_WRITE_KEYHOLE",
    "SSIT_SYNC_MASTER",
    "SSIT_SYNC_SLAVES",
    "SSIT_WAIT_SLAVES",
    "NOP",
    "GET_DEVICE_ID",
    "EVENT_LOGGING",
    "SET_BOARD",
    "GET_BOARD",
    "SET_WDT_PARAM",
    "LOG_STRING",
    "LOG_ADDRESS",
    "MARKER",
    "PROC",
    "BEGIN",
    "END",
    "BREAK",
    "OT_CHECK",
    "PSM_SEQUENCE",
    "INPLACE_PLM_UPDATE",
    "SCATTER_WRITE",
    "SCATTER_WRITE2",
    "TAMPER_TRIGGER",
    "SET_FIPS_MASK",
    "SET_IPI_ACCESS",
    "RUN_PROC",
    "LIST_SET",
    "LIST_WRITE",
    "LIST_MASK_WRITE",
    "LIST_MASK_POLL",
];

fn pm_name(id: u8) -> Option<&'static str> {
    Some(match id {
        0x01 => "PM_GET_API_VERSION",
        0x03 => "PM_GET_DEVICE_STATUS",
        0x04 => "PM_GET_OP_CHARACTERISTIC",
        0x05 => "PM_REGISTER_NOTIFIER",
        0x06 => "PM_REQUEST_SUSPEND",
        0x07 => "PM_SELF_SUSPEND",
        0x08 => "PM_FORCE_POWERDOWN",
        0x09 => "PM_ABORT_SUSPEND",
        0x0a => "PM_REQUEST_WAKEUP",
        0x0b => "PM_SET_WAKEUP_SOURCE",
        0x0c => "PM_SYSTEM_SHUTDOWN",
        0x0d => "PM_REQUEST_DEVICE",
        0x0e => "PM_RELEASE_DEVICE",
        0x0f => "PM_SET_REQUIREMENT",
        0x10 => "PM_SET_MAX_LATENCY",
        0x11 => "PM_RESET_ASSERT",
        0x12 => "PM_RESET_GET_STATUS",
        0x1c => "PM_PINCTRL_REQUEST",
        0x1d => "PM_PINCTRL_RELEASE",
        0x1e => "PM_PINCTRL_GET_FUNCTION",
        0x1f => "PM_PINCTRL_SET_FUNCTION",
        0x20 => "PM_PINCTRL_CONFIG_PARAM_GET",
        0x21 => "PM_PINCTRL_CONFIG_PARAM_SET",
        0x22 => "PM_IOCTL",
        0x23 => "PM_QUERY_DATA",
        0x24 => "PM_CLOCK_ENABLE",
        0x25 => "PM_CLOCK_DISABLE",
        0x26 => "PM_CLOCK_GETSTATE",
        0x27 => "PM_CLOCK_SETDIVIDER",
        0x28 => "PM_CLOCK_GETDIVIDER",
        0x29 => "PM_CLOCK_SETRATE",
        0x2a => "PM_CLOCK_GETRATE",
        0x2b => "PM_CLOCK_SETPARENT",
        0x2c => "PM_CLOCK_GETPARENT",
        0x30 => "PM_PLL_SET_PARAMETER",
        0x31 => "PM_PLL_GET_PARAMETER",
        0x32 => "PM_PLL_SET_MODE",
        0x33 => "PM_PLL_GET_MODE",
        0x36 => "PM_ADD_SUBSYSTEM",
        0x37 => "PM_DESTROY_SUBSYSTEM",
        0x38 => "PM_DESCRIBE_NODES",
        0x39 => "PM_ADD_NODE",
        0x3a => "PM_ADD_NODE_PARENT",
        0x3b => "PM_ADD_NODE_NAME",
        0x3c => "PM_ADD_REQUIREMENT",
        0x3d => "PM_SET_CURRENT_SUBSYSTEM",
        0x3e => "PM_INIT_NODE",
        0x3f => "PM_FEATURE_CHECK",
        0x40 => "PM_ISO_CONTROL",
        0x41 => "PM_ACTIVATE_SUBSYSTEM",
        0x42 => "PM_SET_NODE_ACCESS",
        0x43 => "PM_BISR",
        0x44 => "PM_APPLY_TRIM",
        0x45 => "PM_NOC_CLOCK_ENABLE",
        0x46 => "PM_IF_NOC_CLOCK_ENABLE",
        0x47 => "PM_FORCE_HC",
        _ => return None,
    })
}

/// The name of command `id` of module `module`, if it is a known one.
pub fn command_name(module: u8, id: u8) -> Option<&'static str> {
    match module {
        1 => GENERIC.get(id as usize).copied(),
        2 => pm_name(id),
        3 if id == 0 => Some("SEM_NPI_TABLE"),
        7 if id == 4 => Some("LDR_SET_IMAGE_INFO"),
        7 if id == 0x0c => Some("LDR_CFRAME_CLEAR_CHECK"),
        8 if id == 1 => Some("EM_SET_ACTION"),
        _ => None,
    }
}

/// The payload lengths (in words) a generic command accepts, when fixed
/// (`u64::MAX`: no upper bound).
pub fn generic_arity(id: u8) -> Option<(u64, u64)> {
    Some(match id {
        1 => (4, 6),
        2 => (3, 3),
        3 => (2, 2),
        4 => (1, 1),
        5 => (2, u64::MAX),
        6 => (5, 7),
        7 => (4, 4),
        8 => (3, 3),
        9 => (6, 6),
        11 => (4, u64::MAX),
        12 => (4, 4),
        13 => (3, u64::MAX),
        14 => (0, 0),
        15 | 16 => (2, 2),
        22 => (2, 2),
        24 => (1, 2),
        25..=27 => (1, u64::MAX),
        28 => (0, 0),
        29 => (0, 1),
        30 | 35 | 38 => (1, 1),
        33 => (2, u64::MAX),
        34 => (3, u64::MAX),
        37 => (2, 2),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// formatting

/// "1 command", "2 commands".
fn count_of(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{} {what}s", num(n))
    }
}

use crate::model::text::hex32;

fn hex64(hi: u32, lo: u32) -> String {
    if hi == 0 {
        hex32(lo)
    } else {
        format!("0x{hi:x}{lo:08x}")
    }
}

/// Column, row and register offset of a partition-relative AIE-ML address.
pub fn aie_split(a: u32) -> (u32, u32, u32) {
    (a >> 25, (a >> 20) & 0x1f, a & 0xf_ffff)
}

fn aie_text(a: u32) -> String {
    let (c, r, o) = aie_split(a);
    format!("col {c}, row {r}, reg 0x{o:05x}")
}

/// "1, 2, 3 or 4": a list for prose.
fn or_list<T: std::fmt::Display>(v: &[T]) -> String {
    let mut s = String::new();
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(if i + 1 == v.len() { " or " } else { ", " });
        }
        s.push_str(&x.to_string());
    }
    s
}

/// The physical columns relative column `col` lands in, one per start
/// column of the partition.
fn physical(col: u32, ctx: &Ctx) -> Option<String> {
    if ctx.start_columns.is_empty() {
        return None;
    }
    let phys: Vec<u64> = ctx
        .start_columns
        .iter()
        .map(|&s| u64::from(s) + u64::from(col))
        .collect();
    Some(format!(
        "physical column {} (start column {})",
        or_list(&phys),
        or_list(&ctx.start_columns)
    ))
}

fn bits_list(mask: u128) -> String {
    let v: Vec<String> = (0..128u32)
        .filter(|i| mask >> i & 1 == 1)
        .map(|i| i.to_string())
        .collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

// ---------------------------------------------------------------------------
// command words

/// A decoded command word (and long length, if any).
#[derive(Clone, Copy, Debug)]
struct Head {
    off: u64,
    word: u32,
    long: bool,
    /// Payload length in words.
    words: u64,
}

impl Head {
    fn module(&self) -> u8 {
        (self.word >> 8) as u8
    }
    fn id(&self) -> u8 {
        self.word as u8
    }
    fn key(&self) -> u16 {
        self.word as u16
    }
    fn payload(&self) -> u64 {
        self.off + if self.long { 8 } else { 4 }
    }
    fn end(&self) -> u64 {
        self.payload().saturating_add(self.words.saturating_mul(4))
    }
    /// The loader stops at module 1's command 0 and at an all-ones word.
    fn is_end_mark(&self) -> bool {
        self.key() == 0x0100 || self.word == u32::MAX
    }
    fn name(&self) -> String {
        if self.word == u32::MAX {
            return "END_MARK".to_string();
        }
        match command_name(self.module(), self.id()) {
            Some(n) => n.to_string(),
            None => format!("CMD_0x{:04x}", self.key()),
        }
    }
}

enum HeadErr {
    /// Fewer than 4 bytes remain.
    NoWord,
    /// A long header without its length word.
    NoLength(u32),
}

fn word(b: &Builder<'_>, off: u64, end: u64) -> Option<u32> {
    if off.checked_add(4)? > end {
        return None;
    }
    b.read_u32(off, LE)
}

fn head(b: &Builder<'_>, off: u64, end: u64) -> Result<Head, HeadErr> {
    let w = word(b, off, end).ok_or(HeadErr::NoWord)?;
    if w == u32::MAX {
        return Ok(Head {
            off,
            word: w,
            long: false,
            words: 0,
        });
    }
    let n = (w >> 16) & 0xff;
    if n == 255 {
        let l = word(b, off + 4, end).ok_or(HeadErr::NoLength(w))?;
        Ok(Head {
            off,
            word: w,
            long: true,
            words: u64::from(l),
        })
    } else {
        Ok(Head {
            off,
            word: w,
            long: false,
            words: u64::from(n),
        })
    }
}

// ---------------------------------------------------------------------------
// the fast pass

/// What one pass over a stream found, for the summary node.
struct Tally {
    /// Commands by (module << 8) | id.
    by_cmd: BTreeMap<u16, u64>,
    /// The generic module's commands, counted apart (they are most of a
    /// stream, and an array is faster than the map).
    generic: [u64; 64],
    dma_bytes: u64,
    cols: u128,
    rows: u32,
    /// Addresses above 32 bits (not AIE partition addresses).
    wide: u64,
    nested: u64,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            by_cmd: BTreeMap::new(),
            generic: [0; 64],
            dma_bytes: 0,
            cols: 0,
            rows: 0,
            wide: 0,
            nested: 0,
        }
    }
}

impl Tally {
    fn count(&mut self, key: u16, n: u64) {
        match self.generic.get_mut(usize::from(key).wrapping_sub(0x100)) {
            Some(c) if key >= 0x100 => *c += n,
            _ => *self.by_cmd.entry(key).or_insert(0) += n,
        }
    }

    /// Counts by command key, in key order.
    fn counts(&self) -> Vec<(u16, u64)> {
        let mut v: Vec<(u16, u64)> = self.by_cmd.iter().map(|(&k, &n)| (k, n)).collect();
        for (i, &n) in self.generic.iter().enumerate() {
            if n > 0 {
                v.push((0x100 + i as u16, n));
            }
        }
        v.sort_unstable();
        v
    }

    fn touch(&mut self, hi: u32, lo: u32) {
        if hi != 0 {
            self.wide += 1;
            return;
        }
        let (c, r, _) = aie_split(lo);
        self.cols |= 1u128 << c;
        self.rows |= 1u32 << r;
    }
}

/// Diagnostics of one stream, counted against a budget.
struct Budget {
    left: u32,
    dropped: u64,
}

impl Budget {
    fn new() -> Self {
        Budget {
            left: DIAG_BUDGET,
            dropped: 0,
        }
    }
    fn warn(&mut self, b: &mut Builder<'_>, off: u64, size: u64, msg: String) {
        if self.left > 0 {
            self.left -= 1;
            b.warn(off, size, msg);
        } else {
            self.dropped += 1;
        }
    }
    fn close(&self, b: &mut Builder<'_>, off: u64, size: u64) {
        if self.dropped > 0 {
            b.warn(
                off,
                size,
                format!(
                    "{} more problems of this kind in this command stream are not listed",
                    self.dropped
                ),
            );
        }
    }
}

/// Where the commands of a stream start: the offset of every GROUP-th one.
struct Walk {
    count: u64,
    marks: Vec<u64>,
    /// Where the last counted command ends (cut to the stream).
    stop: u64,
    end_mark: bool,
}

/// Walks the commands in `[start, end)`. With `tally`, counts them, checks
/// them (adding diagnostics) and walks nested streams too; without, only
/// notes where they start.
fn walk(
    b: &mut Builder<'_>,
    start: u64,
    end: u64,
    depth: u8,
    mut tally: Option<(&mut Tally, &mut Budget)>,
) -> Walk {
    let mut w = Walk {
        count: 0,
        marks: Vec::new(),
        stop: start,
        end_mark: false,
    };
    let mut off = start;
    while off < end {
        let h = match head(b, off, end) {
            Ok(h) => h,
            Err(e) => {
                if tally.is_some() {
                    let msg = match e {
                        HeadErr::NoWord => format!(
                            "{} bytes at the end of the command stream are too few for a command word",
                            end - off
                        ),
                        HeadErr::NoLength(hw) => format!(
                            "command word 0x{hw:08x} announces a long length, but the stream ends before the length word"
                        ),
                    };
                    b.error(off, end - off, msg);
                }
                break;
            }
        };
        if w.count.is_multiple_of(GROUP) {
            w.marks.push(off);
        }
        w.count += 1;
        let cend = h.end();
        if let Some((t, budget)) = tally.as_mut() {
            check(b, &h, end, depth, t, budget);
        }
        if cend > end {
            if tally.is_some() {
                b.error(
                    off,
                    end - off,
                    format!(
                        "{} at 0x{off:x} needs {} bytes, {} bytes past the end of the command stream",
                        h.name(),
                        cend - off,
                        cend - end
                    ),
                );
            }
            w.stop = end;
            break;
        }
        off = cend;
        w.stop = off;
        if h.is_end_mark() {
            w.end_mark = true;
            break;
        }
    }
    w
}

/// Counts one command into the tally and checks it.
fn check(b: &mut Builder<'_>, h: &Head, end: u64, depth: u8, t: &mut Tally, budget: &mut Budget) {
    t.count(h.key(), 1);
    if h.word == u32::MAX {
        return;
    }
    let m = h.module();
    let id = h.id();
    let Some(name) = command_name(m, id) else {
        budget.warn(
            b,
            h.off,
            4,
            format!(
                "unknown command 0x{:04x} (module {m}, command {id}) at 0x{:x}, {} payload words: shown raw",
                h.key(),
                h.off,
                h.words
            ),
        );
        return;
    };
    if m != 1 {
        return;
    }
    let p = h.payload();
    let cend = h.end().min(end);
    let arg = |b: &Builder<'_>, i: u64| -> Option<u32> {
        if i >= h.words {
            return None;
        }
        word(b, p + 4 * i, cend)
    };
    if let Some((lo, hi)) = generic_arity(id) {
        if h.words < lo || h.words > hi {
            let want = if lo == hi {
                format!("{lo}")
            } else if hi == u64::MAX {
                format!("at least {lo}")
            } else {
                format!("{lo} to {hi}")
            };
            budget.warn(
                b,
                h.off,
                cend - h.off,
                format!(
                    "{name} at 0x{:x} has {} payload words, expected {want}",
                    h.off, h.words
                ),
            );
        }
    }
    match id {
        1..=3 => {
            if let Some(a) = arg(b, 0) {
                t.touch(0, a);
            }
        }
        5 | 13 => {
            if let (Some(hi), Some(lo)) = (arg(b, 0), arg(b, 1)) {
                t.touch(hi, lo);
            }
            let skip = if id == 5 { 2 } else { 3 };
            t.dma_bytes = t
                .dma_bytes
                .saturating_add(h.words.saturating_sub(skip).saturating_mul(4));
        }
        6..=8 | 12 => {
            if let (Some(hi), Some(lo)) = (arg(b, 0), arg(b, 1)) {
                t.touch(hi, lo);
            }
        }
        26 | 31 => {
            let s = if id == 26 { p + 4 } else { p };
            let s = s.min(cend);
            if depth + 1 < MAX_DEPTH && s < cend {
                let inner = walk(b, s, cend, depth + 1, Some((&mut *t, &mut *budget)));
                t.nested += inner.count;
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// lazily built lists of variable-size items

// ---------------------------------------------------------------------------
// building command nodes

/// The payload of one command: `n` words from `off`, readable up to `lim`.
struct Pay {
    node: NodeId,
    off: u64,
    n: u64,
    lim: u64,
}

impl Pay {
    fn at(&self, i: u64) -> u64 {
        self.off.saturating_add(i.saturating_mul(4))
    }
    fn get(&self, b: &Builder<'_>, i: u64) -> Option<u32> {
        if i >= self.n {
            return None;
        }
        word(b, self.at(i), self.lim)
    }
    fn leaf(
        &self,
        b: &mut Builder<'_>,
        i: u64,
        name: &str,
        f: impl Fn(u32) -> String,
    ) -> Option<u32> {
        let v = self.get(b, i)?;
        b.leaf(self.node, name, self.at(i), 4, f(v));
        Some(v)
    }
    fn hex(&self, b: &mut Builder<'_>, i: u64, name: &str) -> Option<u32> {
        self.leaf(b, i, name, hex32)
    }
    fn num(&self, b: &mut Builder<'_>, i: u64, name: &str, unit: &str) -> Option<u32> {
        self.leaf(b, i, name, |v| {
            if unit.is_empty() {
                num(v.into()).to_string()
            } else {
                format!("{} {unit}", num(v.into()))
            }
        })
    }
    /// A 32-bit partition-relative address, decoded to its AIE tile.
    fn addr(&self, b: &mut Builder<'_>, i: u64, name: &str, ctx: &Ctx) -> Option<u32> {
        let v = self.get(b, i)?;
        let at = self.at(i);
        let id = b.leaf(
            self.node,
            name,
            at,
            4,
            format!("{} ({})", hex32(v), aie_text(v)),
        );
        aie_children(b, id, at, v, ctx);
        Some(v)
    }
    /// A high/low address pair; the low word is decoded as an AIE address
    /// when the high word is 0.
    fn addr64(&self, b: &mut Builder<'_>, i: u64, prefix: &str, ctx: &Ctx) -> Option<(u32, u32)> {
        let hi = self.hex(b, i, &format!("{prefix}_high"))?;
        let lo = if hi == 0 {
            self.addr(b, i + 1, &format!("{prefix}_low"), ctx)?
        } else {
            self.hex(b, i + 1, &format!("{prefix}_low"))?
        };
        Some((hi, lo))
    }
    /// Words `from..` as one raw node; returns its range.
    fn rest(&self, b: &mut Builder<'_>, from: u64, name: &str) -> Option<(u64, u64)> {
        if from >= self.n {
            return None;
        }
        let s = self.at(from);
        let e = self.at(self.n).min(self.lim);
        if s >= e {
            return None;
        }
        let bytes = b.slice(s, e - s);
        b.leaf(
            self.node,
            name,
            s,
            e - s,
            format!("{} bytes: {}", num(e - s), text::hex(bytes, 16)),
        );
        Some((s, e - s))
    }
    /// Words `from..` as text up to the first NUL.
    fn string(&self, b: &mut Builder<'_>, from: u64, name: &str) -> Option<String> {
        if from >= self.n {
            return None;
        }
        let s = self.at(from);
        let e = self.at(self.n).min(self.lim);
        if s >= e {
            return None;
        }
        let t = format!("\"{}\"", text::fixed(b.slice(s, e - s)));
        b.leaf(self.node, name, s, e - s, t.clone());
        Some(t)
    }
}

/// Column, row and register children of an address word at `at`.
fn aie_children(b: &mut Builder<'_>, id: NodeId, at: u64, v: u32, ctx: &Ctx) {
    let (c, r, o) = aie_split(v);
    let col = match physical(c, ctx) {
        Some(p) => format!("{c} ({p})"),
        None => format!("{c} (relative to the partition)"),
    };
    // Bits 31..25 lie in the word's last byte, 24..20 in its last two,
    // 19..0 in its first three.
    b.leaf(id, "column", at + 3, 1, col);
    b.leaf(id, "row", at + 2, 2, r.to_string());
    b.leaf(id, "register", at, 3, format!("0x{o:05x}"));
}

/// Summary text for an address: hex, and the tile when it is a 32-bit one.
fn addr_text(hi: u32, lo: u32) -> String {
    if hi == 0 {
        format!("{} ({})", hex32(lo), aie_text(lo))
    } else {
        hex64(hi, lo)
    }
}

fn header_node(b: &mut Builder<'_>, node: NodeId, h: &Head, lim: u64) {
    let off = h.off;
    let hid = b.leaf(node, "header", off, 4, hex32(h.word));
    let m = h.module();
    let id = h.id();
    let cname = if h.word == u32::MAX {
        Some("END_MARK")
    } else {
        command_name(m, id)
    };
    b.leaf(
        hid,
        "command",
        off,
        1,
        crate::model::named(id.into(), cname),
    );
    b.leaf(
        hid,
        "module",
        off + 1,
        1,
        crate::model::named(m.into(), module_name(m)),
    );
    let n = (h.word >> 16) & 0xff;
    let lv = if h.long {
        "255 (long: the length is in the next word)".to_string()
    } else {
        format!("{n} words")
    };
    b.leaf(hid, "length", off + 2, 1, lv);
    b.leaf(hid, "reserved", off + 3, 1, num(u64::from(h.word >> 24)));
    if h.long && off + 8 <= lim {
        b.leaf(
            node,
            "long_length",
            off + 4,
            4,
            format!("{} words", num(h.words)),
        );
    }
}

/// Builds the node of the command at `off` (its range cut to `end`) under
/// `parent`, named `[index] NAME`. Returns where the next command starts.
fn build_cmd(
    b: &mut Builder<'_>,
    parent: NodeId,
    index: u64,
    off: u64,
    end: u64,
    ctx: &Arc<Ctx>,
    depth: u8,
) -> Option<u64> {
    let h = head(b, off, end).ok()?;
    let cend = h.end().min(end);
    let node = b.group(parent, format!("[{index}] {}", h.name()), off, cend - off);
    header_node(b, node, &h, cend);
    let pay = Pay {
        node,
        off: h.payload(),
        n: h.words,
        lim: cend,
    };
    let v = payload(b, &h, &pay, ctx, depth);
    b.set_value(node, v);
    if h.end() > end {
        let cut = h.end() - end;
        let v = b
            .node(node)
            .and_then(|n| n.value.as_ref())
            .map(|v| v.to_string())
            .unwrap_or_default();
        b.set_value(node, format!("{v} [cut: {cut} bytes past the stream]"));
    }
    Some(h.end())
}

/// Decodes the payload fields of a command and returns its summary text.
fn payload(b: &mut Builder<'_>, h: &Head, p: &Pay, ctx: &Arc<Ctx>, depth: u8) -> String {
    let words = || format!("{} payload words", num(h.words));
    if h.word == u32::MAX {
        return "end of the command stream".to_string();
    }
    if h.module() != 1 {
        p.rest(b, 0, "payload");
        return match command_name(h.module(), h.id()) {
            Some(_) => words(),
            None => format!(
                "unknown command: module {}, command {}, {}",
                h.module(),
                h.id(),
                words()
            ),
        };
    }
    let id = h.id();
    let s = match id {
        0 => {
            p.rest(b, 0, "payload");
            "end of the command stream".to_string()
        }
        1 | 6 => {
            let (hi, lo, k) = if id == 1 {
                match p.addr(b, 0, "address", ctx) {
                    Some(a) => (0, a, 1),
                    None => return words(),
                }
            } else {
                match p.addr64(b, 0, "address", ctx) {
                    Some((hi, lo)) => (hi, lo, 2),
                    None => return words(),
                }
            };
            let mask = p.hex(b, k, "mask");
            let exp = p.hex(b, k + 1, "expected");
            let t = p.num(b, k + 2, "timeout", "us");
            p.leaf(b, k + 3, "flags", |v| {
                let n = match v {
                    0 => " (fail on timeout)",
                    1 => " (ignore a timeout)",
                    2 => " (defer the error to the end of the partition)",
                    3 => " (break to the end of the block)",
                    _ => "",
                };
                format!("{}{n}", hex32(v))
            });
            p.hex(b, k + 4, "error_code");
            p.rest(b, k + 5, "extra");
            format!(
                "poll {} & {} == {}, timeout {} us",
                addr_text(hi, lo),
                mask.map_or("?".into(), hex32),
                exp.map_or("?".into(), hex32),
                t.map_or("?".into(), |v| v.to_string())
            )
        }
        2 | 7 => {
            let (hi, lo, k) = if id == 2 {
                match p.addr(b, 0, "address", ctx) {
                    Some(a) => (0, a, 1),
                    None => return words(),
                }
            } else {
                match p.addr64(b, 0, "address", ctx) {
                    Some((hi, lo)) => (hi, lo, 2),
                    None => return words(),
                }
            };
            let mask = p.hex(b, k, "mask");
            let val = p.hex(b, k + 1, "value");
            p.rest(b, k + 2, "extra");
            format!(
                "{} = {} under mask {}",
                addr_text(hi, lo),
                val.map_or("?".into(), hex32),
                mask.map_or("?".into(), hex32)
            )
        }
        3 | 8 => {
            let (hi, lo, k) = if id == 3 {
                match p.addr(b, 0, "address", ctx) {
                    Some(a) => (0, a, 1),
                    None => return words(),
                }
            } else {
                match p.addr64(b, 0, "address", ctx) {
                    Some((hi, lo)) => (hi, lo, 2),
                    None => return words(),
                }
            };
            let val = p.hex(b, k, "value");
            p.rest(b, k + 1, "extra");
            format!("{} = {}", addr_text(hi, lo), val.map_or("?".into(), hex32))
        }
        4 => {
            let d = p.num(b, 0, "delay", "us");
            p.rest(b, 1, "extra");
            format!("wait {} us", d.map_or("?".into(), |v| v.to_string()))
        }
        5 | 13 => {
            let Some((hi, lo)) = p.addr64(b, 0, "address", ctx) else {
                return words();
            };
            let k = if id == 13 {
                p.num(b, 2, "keyhole_size", "words");
                3
            } else {
                2
            };
            let n = h.words.saturating_sub(k).saturating_mul(4);
            if let Some((s, l)) = p.rest(b, k, "data") {
                b.link(p.node, s, l);
            }
            format!("{} <- {} bytes", addr_text(hi, lo), num(n))
        }
        9 => {
            let src = p.addr64(b, 0, "source", ctx);
            let dst = p.addr64(b, 2, "destination", ctx);
            let len = p.num(b, 4, "length", "words");
            p.hex(b, 5, "flags");
            p.rest(b, 6, "extra");
            format!(
                "{} words from {} to {}",
                len.map_or("?".into(), |v| v.to_string()),
                src.map_or("?".into(), |(h, l)| hex64(h, l)),
                dst.map_or("?".into(), |(h, l)| hex64(h, l))
            )
        }
        10 => {
            p.rest(b, 0, "data");
            words()
        }
        11 => {
            p.hex(b, 0, "params");
            let dst = p.addr64(b, 1, "destination", ctx);
            let len = p.num(b, 3, "read_length", "words");
            p.rest(b, 4, "data");
            format!(
                "read {} words to {}",
                len.map_or("?".into(), |v| v.to_string()),
                dst.map_or("?".into(), |(h, l)| hex64(h, l))
            )
        }
        12 => {
            let Some((hi, lo)) = p.addr64(b, 0, "address", ctx) else {
                return words();
            };
            let n = p.num(b, 2, "count", "words");
            let v = p.hex(b, 3, "value");
            p.rest(b, 4, "extra");
            format!(
                "{} <- {} words of {}",
                addr_text(hi, lo),
                n.map_or("?".into(), |v| v.to_string()),
                v.map_or("?".into(), hex32)
            )
        }
        15 | 16 => {
            p.hex(b, 0, "mask");
            p.num(b, 1, "timeout", "");
            p.rest(b, 2, "extra");
            words()
        }
        17 => {
            p.rest(b, 0, "padding");
            format!("{} padding words", num(h.words))
        }
        19 => {
            p.hex(b, 0, "sub_command");
            p.rest(b, 1, "arguments");
            words()
        }
        20 | 23 => p.string(b, 0, "text").unwrap_or_else(words),
        21 => {
            p.addr64(b, 0, "address", ctx);
            p.num(b, 2, "max_size", "words");
            words()
        }
        22 => {
            p.hex(b, 0, "node_id");
            p.num(b, 1, "periodicity", "ms");
            words()
        }
        24 => {
            let lo = p.hex(b, 0, "address_low");
            let hi = p.hex(b, 1, "address_high").unwrap_or(0);
            lo.map_or_else(words, |lo| hex64(hi, lo))
        }
        25 => {
            p.hex(b, 0, "type");
            p.string(b, 1, "text").unwrap_or_else(words)
        }
        26 | 31 => {
            let k = if id == 26 {
                p.hex(b, 0, "proc_id");
                1
            } else {
                0
            };
            let s = p.at(k).min(p.lim);
            let e = p.at(p.n).min(p.lim);
            if s < e {
                if depth + 1 < MAX_DEPTH {
                    nested(b, p.node, s, e, ctx, depth + 1);
                } else {
                    p.rest(b, k, "commands");
                }
            }
            words()
        }
        27 => {
            p.num(b, 0, "end_offset", "words");
            p.string(b, 1, "text");
            words()
        }
        29 => {
            p.num(b, 0, "level", "");
            words()
        }
        30 => {
            p.num(b, 0, "delay", "ms");
            words()
        }
        33 => {
            p.hex(b, 0, "value");
            p.rest(b, 1, "addresses");
            words()
        }
        34 => {
            p.hex(b, 0, "value1");
            p.hex(b, 1, "value2");
            p.rest(b, 2, "addresses");
            words()
        }
        35 => {
            p.hex(b, 0, "response");
            words()
        }
        37 => {
            p.hex(b, 0, "api_ids");
            p.hex(b, 1, "permissions");
            words()
        }
        38 => {
            p.hex(b, 0, "proc_id");
            words()
        }
        _ => {
            p.rest(b, 0, "payload");
            if command_name(1, id).is_some() {
                words()
            } else {
                format!("unknown command: module 1, command {id}, {}", words())
            }
        }
    };
    s
}

/// A `commands` node for the stream nested in `[s, e)`; its commands are
/// built when it is opened, bytes the walk could not read follow it as `rest`.
fn nested(b: &mut Builder<'_>, parent: NodeId, s: u64, e: u64, ctx: &Arc<Ctx>, depth: u8) {
    let w = walk(b, s, e, depth, None);
    let node = b.add(
        parent,
        "commands",
        s,
        e - s,
        Some(count_of(w.count, "command").into()),
    );
    let stop = w.stop;
    if let Some(seq) = command_seq(w, e, ctx, depth) {
        b.seq(node, seq);
    }
    if stop < e {
        let bytes = b.slice(stop, e - stop);
        b.leaf(parent, "rest", stop, e - stop, text::hex(bytes, 16));
    }
}

fn command_seq(w: Walk, end: u64, ctx: &Arc<Ctx>, depth: u8) -> Option<Seq> {
    if w.count == 0 {
        return None;
    }
    let ctx = ctx.clone();
    Some(Seq::from_marks(
        w.marks,
        w.count,
        w.stop,
        Arc::new(move |b: &mut Builder<'_>, parent, i, off| {
            build_cmd(b, parent, i, off, end, &ctx, depth)
        }),
    ))
}

// ---------------------------------------------------------------------------
// the header and the stream

/// The compact layout's record area length, when the partition header says
/// the data is in that layout.
#[derive(Clone, Copy, Debug)]
pub struct Compact {
    pub record_bytes: u64,
}

/// Parses the CDO in `[off, off+len)` under `parent`: its header, a summary,
/// its commands (or, for `compact`, its records and data pool) and what
/// follows them.
pub fn parse(
    b: &mut Builder<'_>,
    parent: NodeId,
    off: u64,
    len: u64,
    ctx: &Arc<Ctx>,
    compact: Option<Compact>,
) {
    let lim = off.saturating_add(len).min(b.file_len());
    let Some(stream) = header(b, parent, off, lim) else {
        return;
    };
    let (start, declared) = stream;
    if let Some(c) = compact {
        parse_compact(b, parent, start, lim, c, ctx, declared);
        return;
    }
    let mut end = declared;
    if declared > lim {
        b.error(
            start,
            lim - start,
            format!(
                "the CDO header gives {} bytes of commands, {} bytes past the end of its data (0x{lim:x})",
                declared - start,
                declared - lim
            ),
        );
        end = lim;
    }
    let mut tally = Tally::default();
    let mut budget = Budget::new();
    let w = walk(b, start, end, 0, Some((&mut tally, &mut budget)));
    budget.close(b, start, end - start);
    summary(b, parent, start, w.count, &tally, ctx);
    let stop = w.stop;
    let end_mark = w.end_mark;
    let cmds = b.add(
        parent,
        "commands",
        start,
        stop - start,
        Some(count_of(w.count, "command").into()),
    );
    if let Some(seq) = command_seq(w, end, ctx, 0) {
        b.seq(cmds, seq);
    }
    if stop < end {
        let bytes = b.slice(stop, end - stop);
        let zero = text::looks_zero(bytes);
        let name = if end_mark {
            "after_end_mark"
        } else {
            "incomplete"
        };
        b.leaf(parent, name, stop, end - stop, text::hex(bytes, 16));
        if end_mark && !zero {
            b.warn(
                stop,
                end - stop,
                format!(
                    "{} bytes of the command stream follow its end mark",
                    end - stop
                ),
            );
        }
    }
    trailing(b, parent, off, end, lim);
}

/// Shows and checks the bytes between the end of the commands and `lim`:
/// zero padding up to the next 16 bytes is expected, anything else is
/// reported.
fn trailing(b: &mut Builder<'_>, parent: NodeId, cdo: u64, end: u64, lim: u64) {
    if end >= lim {
        return;
    }
    let bytes = b.slice(end, lim - end);
    let zero = text::looks_zero(bytes);
    let pad = (16 - (end - cdo) % 16) % 16;
    let n = lim - end;
    if zero && n <= pad {
        b.leaf(
            parent,
            "padding",
            end,
            n,
            format!("{n} zero bytes (to 16 bytes)"),
        );
        return;
    }
    b.leaf(
        parent,
        "trailing",
        end,
        n,
        format!("{} bytes: {}", n, text::hex(bytes, 16)),
    );
    let what = if zero { "zero bytes" } else { "bytes" };
    b.warn(
        end,
        n,
        format!("{n} {what} after the last command, more than the zero padding to 16 bytes"),
    );
}

/// Parses the CDO header at `off`; returns where the commands start and
/// where the header says they end.
fn header(b: &mut Builder<'_>, parent: NodeId, off: u64, lim: u64) -> Option<(u64, u64)> {
    if off.saturating_add(20) > lim {
        b.error(
            off,
            lim.saturating_sub(off),
            format!(
                "truncated: a CDO header needs 20 bytes at 0x{off:x}, {} remain",
                lim.saturating_sub(off)
            ),
        );
        if off < lim {
            let bytes = b.slice(off, lim - off);
            b.leaf(parent, "header", off, lim - off, text::hex(bytes, 16));
        }
        return None;
    }
    let w = |b: &Builder<'_>, i: u64| word(b, off + 4 * i, lim).unwrap_or(0);
    let remaining = w(b, 0);
    let ident = w(b, 1);
    let version = w(b, 2);
    let length = w(b, 3);
    let stored = w(b, 4);
    let hlen = 4 * (u64::from(remaining) + 1);
    let hid = b.group(parent, "header", off, 20);
    b.leaf(
        hid,
        "header_words",
        off,
        4,
        format!("{} words follow", num(remaining.into())),
    );
    let id_text = match ident {
        CDO_ID => "\"CDO\" (version 2)".to_string(),
        XNLX_ID => "\"XNLX\" (version 1)".to_string(),
        _ => format!("{} (unknown)", hex32(ident)),
    };
    b.leaf(hid, "identification", off + 4, 4, id_text);
    b.leaf(
        hid,
        "version",
        off + 8,
        4,
        format!(
            "{}.{:02x} ({})",
            version >> 8,
            version & 0xff,
            hex32(version)
        ),
    );
    if ident == XNLX_ID {
        b.leaf(hid, "sections", off + 12, 4, num(length.into()));
        b.info(
            off,
            20,
            "CDO version 1 (XNLX): its sections are not decoded",
        );
        return None;
    }
    if ident != CDO_ID {
        b.error(
            off + 4,
            4,
            format!("not a CDO: identification {}", hex32(ident)),
        );
        return None;
    }
    let start = off + hlen;
    let declared = start.saturating_add(4 * u64::from(length));
    let lid = b.leaf(
        hid,
        "length",
        off + 12,
        4,
        format!(
            "{} words ({} bytes of commands)",
            num(length.into()),
            num(4 * u64::from(length))
        ),
    );
    if start < lim {
        b.link(lid, start, declared.min(lim) - start);
    }
    let sum = w(b, 0)
        .wrapping_add(ident)
        .wrapping_add(version)
        .wrapping_add(length);
    let want = !sum;
    let verdict = if want == stored {
        format!("{} (valid)", hex32(stored))
    } else {
        format!("{} (mismatch: computed {})", hex32(stored), hex32(want))
    };
    b.leaf(hid, "checksum", off + 16, 4, verdict);
    if want != stored {
        b.error(
            off + 16,
            4,
            format!(
                "CDO header checksum mismatch: stored {}, computed {}",
                hex32(stored),
                hex32(want)
            ),
        );
    }
    if remaining != 4 {
        b.warn(
            off,
            4,
            format!("the CDO header says {remaining} words follow its first, not 4"),
        );
        if remaining < 4 || start > lim {
            return None;
        }
        let extra = b.slice(off + 20, hlen - 20);
        b.leaf(
            parent,
            "header_extra",
            off + 20,
            hlen - 20,
            text::hex(extra, 16),
        );
    }
    Some((start, declared))
}

/// The summary node: commands by type, DMA bytes, columns and rows.
fn summary(b: &mut Builder<'_>, parent: NodeId, at: u64, count: u64, t: &Tally, ctx: &Ctx) {
    let mut parts = Vec::new();
    for (k, n) in t.counts() {
        let name = Head {
            off: 0,
            word: if k == 0xffff { u32::MAX } else { u32::from(k) },
            long: false,
            words: 0,
        }
        .name();
        parts.push((name, n));
    }
    let listed: Vec<String> = parts.iter().map(|(n, c)| format!("{c} {n}")).collect();
    let sid = b.add(
        parent,
        "summary",
        at,
        0,
        Some(if listed.is_empty() {
            count_of(count, "command").into()
        } else {
            format!("{}: {}", count_of(count, "command"), listed.join(", ")).into()
        }),
    );
    let cid = b.leaf(sid, "commands", at, 0, num(count));
    for (name, n) in &parts {
        b.leaf(cid, name, at, 0, num(*n));
    }
    if t.nested > 0 {
        b.leaf(sid, "nested_commands", at, 0, num(t.nested));
    }
    b.leaf(sid, "dma_bytes", at, 0, num(t.dma_bytes));
    b.leaf(
        sid,
        "columns",
        at,
        0,
        format!("{} (relative)", bits_list(t.cols)),
    );
    if !ctx.start_columns.is_empty() && t.cols != 0 {
        let per: Vec<String> = ctx
            .start_columns
            .iter()
            .map(|&sc| {
                let cols: Vec<String> = (0..128u32)
                    .filter(|i| t.cols >> i & 1 == 1)
                    .map(|i| (u32::from(sc) + i).to_string())
                    .collect();
                format!("{} at start column {sc}", cols.join(", "))
            })
            .collect();
        b.leaf(sid, "physical_columns", at, 0, per.join("; "));
    }
    b.leaf(sid, "rows", at, 0, bits_list(u128::from(t.rows)));
    if t.wide > 0 {
        b.leaf(sid, "wide_addresses", at, 0, num(t.wide));
    }
}

// ---------------------------------------------------------------------------
// the compact layout

/// Bytes per entry of a compact record with op `op`.
fn stride(op: u32) -> Option<u64> {
    match op {
        3 => Some(8),
        2 => Some(12),
        5 => Some(16),
        _ => None,
    }
}

/// Said wherever the compact layout is shown: nothing public describes it.
pub const INFERRED: &str = "layout inferred from the data; no public document describes it";
/// Said of the compact layout's known oddities.
pub const ODDITY: &str = "a known oddity of the compact layout, which is inferred from the data";

/// One record: its op, its first entry, its entry count.
#[derive(Clone, Copy)]
struct Rec {
    off: u64,
    op: u32,
    n: u64,
}

fn rec_at(b: &Builder<'_>, off: u64, end: u64) -> Option<Rec> {
    let op = word(b, off, end)?;
    let n = word(b, off + 4, end)?;
    let st = stride(op)?;
    let room = (end - off - 8) / st;
    Some(Rec {
        off,
        op,
        n: u64::from(n).min(room),
    })
}

impl Rec {
    fn entries(&self) -> u64 {
        self.off + 8
    }
    fn end(&self) -> u64 {
        self.entries() + self.n * stride(self.op).unwrap_or(8)
    }
}

fn op_name(op: u32) -> &'static str {
    match op {
        3 => "WRITE",
        2 => "MASK_WRITE",
        5 => "DMA_WRITE",
        _ => "?",
    }
}

/// The record area `[start, start+B)` and the data pool after it, up to
/// `lim`.
fn parse_compact(
    b: &mut Builder<'_>,
    parent: NodeId,
    start: u64,
    lim: u64,
    c: Compact,
    ctx: &Arc<Ctx>,
    declared: u64,
) {
    b.info(
        start,
        0,
        format!("compact CDO records instead of a command stream: {INFERRED}"),
    );
    let mut area_end = start.saturating_add(c.record_bytes);
    if area_end > lim {
        b.error(
            start,
            lim - start,
            format!(
                "the compact record area of {} bytes runs {} bytes past the end of the data ({INFERRED})",
                c.record_bytes,
                area_end - lim
            ),
        );
        area_end = lim;
    }
    let pool = area_end;
    if declared != pool {
        b.warn(
            start.saturating_sub(8),
            4,
            format!(
                "the CDO length ({} bytes of commands) describes the original command stream, not these records ({ODDITY})",
                declared - start
            ),
        );
    }
    // The fast pass: records, their commands, the pool they use.
    let mut t = Tally::default();
    let mut budget = Budget::new();
    let mut marks = Vec::new();
    let mut count = 0u64;
    let mut cmds = 0u64;
    let mut off = start;
    while off < area_end {
        let op = word(b, off, area_end);
        let Some(r) = rec_at(b, off, area_end) else {
            match op {
                Some(op) if off + 8 <= area_end => b.error(
                    off,
                    4,
                    format!("unknown compact record op {op} at 0x{off:x}: the rest of the record area is not decoded ({INFERRED})"),
                ),
                _ => b.error(
                    off,
                    area_end - off,
                    format!("{} bytes at the end of the record area are too few for a record", area_end - off),
                ),
            }
            break;
        };
        let want = word(b, off + 4, area_end).map_or(0, u64::from);
        if want > r.n {
            b.error(
                off,
                area_end - off,
                format!(
                    "compact record at 0x{off:x} has {want} entries, only {} fit in the record area",
                    r.n
                ),
            );
        }
        if count.is_multiple_of(GROUP) {
            marks.push(off);
        }
        count += 1;
        cmds += r.n;
        let key = 0x0100 | r.op as u16;
        t.count(key, r.n);
        let st = stride(r.op).unwrap_or(8);
        for j in 0..r.n {
            let e = r.entries() + j * st;
            let w = |i: u64| word(b, e + 4 * i, area_end).unwrap_or(0);
            if r.op == 5 {
                t.touch(w(0), w(1));
                let po = u64::from(w(2));
                let lw = u64::from(w(3) & 0xffff);
                t.dma_bytes += 4 * lw;
                let ds = pool.saturating_add(po);
                let de = ds.saturating_add(4 * lw);
                if de > lim {
                    let have = lim.saturating_sub(ds);
                    budget.warn(
                        b,
                        e,
                        st,
                        format!(
                            "DMA_WRITE data at pool offset 0x{po:x} needs {} bytes, {have} remain: the payload is cut {} bytes short ({ODDITY})",
                            4 * lw,
                            de - lim.max(ds)
                        ),
                    );
                }
            } else {
                t.touch(0, w(0));
            }
        }
        off = r.end();
        if r.n < want {
            break;
        }
    }
    let stop = off;
    budget.close(b, start, area_end - start);
    summary(b, parent, start, cmds, &t, ctx);
    let rid = b.add(
        parent,
        "records",
        start,
        area_end - start,
        Some(
            format!(
                "{} records, {} commands ({INFERRED})",
                num(count),
                num(cmds)
            )
            .into(),
        ),
    );
    let ctx2 = ctx.clone();
    let seq = Seq::from_marks(
        marks,
        count,
        stop,
        Arc::new(move |b: &mut Builder<'_>, parent, i, off| {
            build_record(b, parent, i, off, area_end, pool, lim, &ctx2)
        }),
    );
    b.seq(rid, seq);
    if stop < area_end {
        let bytes = b.slice(stop, area_end - stop);
        b.leaf(
            parent,
            "incomplete",
            stop,
            area_end - stop,
            text::hex(bytes, 16),
        );
    }
    if pool < lim {
        let pid = b.add(
            parent,
            "data_pool",
            pool,
            lim - pool,
            Some(format!("{} bytes of DMA_WRITE data", num(lim - pool)).into()),
        );
        b.lazy(
            pid,
            Arc::new(move |b: &mut Builder<'_>, id| pool_chunks(b, id, start, stop, pool, lim)),
        );
    }
}

/// One record node with its entries, each shown as the command it stands
/// for.
#[allow(clippy::too_many_arguments)]
fn build_record(
    b: &mut Builder<'_>,
    parent: NodeId,
    index: u64,
    off: u64,
    area_end: u64,
    pool: u64,
    lim: u64,
    ctx: &Arc<Ctx>,
) -> Option<u64> {
    let r = rec_at(b, off, area_end)?;
    let name = op_name(r.op);
    let st = stride(r.op)?;
    let rid = b.add(
        parent,
        format!("[{index}] {name}"),
        off,
        r.end() - off,
        Some(format!("{} × {name}", num(r.n)).into()),
    );
    b.leaf(rid, "op", off, 4, format!("{} ({name})", r.op));
    b.leaf(rid, "count", off + 4, 4, num(r.n));
    let ctx = ctx.clone();
    let op = r.op;
    b.array(
        rid,
        "commands",
        r.entries(),
        r.n,
        st,
        Arc::new(move |b: &mut Builder<'_>, parent, j, e| {
            entry(b, parent, j, e, op, pool, lim, &ctx);
        }),
    );
    Some(r.end())
}

/// One entry of a compact record, shown as the command it stands for.
#[allow(clippy::too_many_arguments)]
fn entry(
    b: &mut Builder<'_>,
    parent: NodeId,
    j: u64,
    e: u64,
    op: u32,
    pool: u64,
    lim: u64,
    ctx: &Ctx,
) {
    let name = op_name(op);
    let st = stride(op).unwrap_or(8);
    let node = b.group(parent, format!("[{j}] {name}"), e, st);
    let p = Pay {
        node,
        off: e,
        n: st / 4,
        lim: e + st,
    };
    let v = match op {
        3 => {
            let a = p.addr(b, 0, "address", ctx);
            let v = p.hex(b, 1, "value");
            format!(
                "{} = {}",
                a.map_or("?".into(), |a| addr_text(0, a)),
                v.map_or("?".into(), hex32)
            )
        }
        2 => {
            let a = p.addr(b, 0, "address", ctx);
            let m = p.hex(b, 1, "mask");
            let v = p.hex(b, 2, "value");
            format!(
                "{} = {} under mask {}",
                a.map_or("?".into(), |a| addr_text(0, a)),
                v.map_or("?".into(), hex32),
                m.map_or("?".into(), hex32)
            )
        }
        _ => {
            let a = p.addr64(b, 0, "address", ctx);
            let po = p.get(b, 2).map_or(0, u64::from);
            let lf = p.get(b, 3).unwrap_or(0);
            let lw = u64::from(lf & 0xffff);
            let ds = pool.saturating_add(po);
            let pid = b.leaf(
                node,
                "pool_offset",
                p.at(2),
                4,
                format!("{} (file offset 0x{ds:x})", num(po)),
            );
            b.leaf(
                node,
                "length",
                p.at(3),
                4,
                format!("{} words, flag {} (meaning unknown)", num(lw), lf >> 16),
            );
            if ds < lim {
                let l = (4 * lw).min(lim - ds);
                b.link(pid, ds, l);
                b.link(node, ds, l);
            }
            format!(
                "{} <- {} bytes",
                a.map_or("?".into(), |(h, l)| addr_text(h, l)),
                num(4 * lw)
            )
        }
    };
    b.set_value(node, v);
}

/// The DMA_WRITE payloads in the pool, one node each, in the order of the
/// records that use them.
fn pool_chunks(b: &mut Builder<'_>, parent: NodeId, start: u64, stop: u64, pool: u64, lim: u64) {
    // Collect the DMA records (bounded by the record area), then show their
    // entries' data in groups.
    let mut recs: Vec<(Rec, u64)> = Vec::new();
    let mut total = 0u64;
    let mut off = start;
    while off < stop {
        let Some(r) = rec_at(b, off, stop) else {
            break;
        };
        if r.op == 5 && r.n > 0 {
            recs.push((r, total));
            total += r.n;
        }
        off = r.end();
    }
    let recs = Arc::new(recs);
    chunk_fill(b, parent, 0, total, &recs, pool, lim);
}

/// The data range of DMA entry `k` (counted over all DMA records).
fn chunk_range(
    b: &Builder<'_>,
    recs: &[(Rec, u64)],
    k: u64,
    pool: u64,
    lim: u64,
) -> Option<(u64, u64, u32)> {
    let i = recs
        .partition_point(|(_, first)| *first <= k)
        .checked_sub(1)?;
    let (r, first) = recs.get(i)?;
    let e = r.entries() + (k - first) * 16;
    let lo = b.read_u32(e + 4, LE)?;
    let po = u64::from(b.read_u32(e + 8, LE)?);
    let lw = u64::from(b.read_u32(e + 12, LE)? & 0xffff);
    let ds = pool.saturating_add(po).min(lim);
    let de = ds.saturating_add(4 * lw).min(lim);
    Some((ds, de - ds, lo))
}

fn chunk_fill(
    b: &mut Builder<'_>,
    parent: NodeId,
    lo: u64,
    hi: u64,
    recs: &Arc<Vec<(Rec, u64)>>,
    pool: u64,
    lim: u64,
) {
    let n = hi - lo;
    if n <= GROUP {
        for k in lo..hi {
            if let Some((s, l, a)) = chunk_range(b, recs, k, pool, lim) {
                b.leaf(
                    parent,
                    format!("[{k}] {}", hex32(a)),
                    s,
                    l,
                    format!("{} bytes: {}", num(l), text::hex(b.slice(s, l), 16)),
                );
            }
        }
        return;
    }
    let g = group_size(n);
    let mut s = lo;
    while s < hi {
        let e = s.saturating_add(g).min(hi);
        // The group spans its first and last chunks (the pool is filled in
        // record order).
        let first = chunk_range(b, recs, s, pool, lim).map_or(pool, |r| r.0);
        let last = chunk_range(b, recs, e - 1, pool, lim).map_or(lim, |r| r.0 + r.1);
        let (gs, ge) = if first <= last {
            (first, last)
        } else {
            (pool, lim)
        };
        let gid = b.group(parent, format!("[{s}..{e})"), gs, ge - gs);
        let rc = recs.clone();
        b.lazy(
            gid,
            Arc::new(move |b: &mut Builder<'_>, id| chunk_fill(b, id, s, e, &rc, pool, lim)),
        );
        s = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(command_name(1, 3), Some("WRITE"));
        assert_eq!(command_name(1, 0x11), Some("NOP"));
        assert_eq!(command_name(1, 42), Some("LIST_MASK_POLL"));
        assert_eq!(command_name(1, 43), None);
        assert_eq!(command_name(2, 0x0d), Some("PM_REQUEST_DEVICE"));
        assert_eq!(command_name(9, 1), None);
    }

    #[test]
    fn aie_fields() {
        assert_eq!(aie_split(0x0023_4060), (0, 2, 0x34060));
        assert_eq!(aie_split(0x0610_0000 | 0x1d000), (3, 1, 0x1d000));
        let ctx = Ctx {
            start_columns: vec![1, 2, 3, 4],
        };
        assert_eq!(
            physical(1, &ctx).as_deref(),
            Some("physical column 2, 3, 4 or 5 (start column 1, 2, 3 or 4)")
        );
    }

    #[test]
    fn detects_headers() {
        let mut d = vec![4u8, 0, 0, 0, 0x43, 0x44, 0x4f, 0];
        d.extend([0u8; 12]);
        assert!(is_cdo(&d));
        d[4] = 0;
        assert!(!is_cdo(&d));
        assert!(!is_cdo(&[4, 0, 0]));
    }
}
