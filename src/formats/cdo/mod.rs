//! CDO (configuration data object) command streams, version 2, as the
//! platform loader reads them from a PDI partition, the compact record
//! layout that some NPU partitions carry instead of a command stream, and
//! version 1 streams (`XNLX`, in sections: see `v1`).
//!
//! A stream may hold millions of commands. At parse time one fast pass walks
//! them for the summary (commands by type, DMA bytes, AIE columns and rows)
//! and the diagnostics, and notes where every thousandth command starts; the
//! command nodes themselves are built when their group is opened.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::text::hex32;
use crate::model::{group_size, num, text, Builder, Endian, NodeId, Seq, GROUP};

pub mod aie_regs;
mod commands;
mod compact;
mod layout;
mod names;
mod stream;
mod table;
mod v1;

use commands::*;
use compact::*;
use layout::*;
use names::*;
use stream::*;
use table::*;

pub(crate) use commands::{aie_children, bit_fields, dma_words};
pub use compact::{INFERRED, ODDITY};
pub use names::{aie_split, module_name};
pub(crate) use names::{aie_text, register};
pub use table::{
    command, command_name, Arity, Check, Command, Field, Kind, Width, COMMANDS, PAYLOAD,
};

const LE: Endian = Endian::Little;

/// "CDO\0" read as a little-endian word: the version 2 identification.
pub const CDO_ID: u32 = 0x004F_4443;
/// "XNLX": the version 1 identification.
pub const XNLX_ID: u32 = 0x584C_4E58;

/// The `header_words` of a five-word header (either version).
const FIVE_WORDS: u32 = 4;
/// PROC and PSM_SEQUENCE carry commands of their own; this many levels are
/// opened.
const MAX_DEPTH: u8 = 3;
/// Per-command problems reported one by one in a stream; the rest are
/// counted in one closing diagnostic.
const DIAG_BUDGET: u32 = 20;

/// What a stream is shown against: the start columns of the AIE partition
/// it configures, when known (empty otherwise), and the AIE generation
/// whose register names its addresses are shown with.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    pub start_columns: Vec<u16>,
    pub regs: Option<aie_regs::Gen>,
    /// Which register names are shown and why, for the summary (None for a
    /// stream outside an AIE partition).
    pub regs_from: Option<String>,
}

impl Ctx {
    /// The context of a stream an AIE partition carries: its start columns
    /// and the `hw_gen` of the xclbin's AIE_METADATA, if it has one (see
    /// [`aie_regs::Gen::for_partition`] for what is assumed without one).
    pub fn partition(start_columns: &[u16], hw_gen: Option<u64>) -> Ctx {
        let regs = aie_regs::Gen::for_partition(hw_gen);
        let from = match (regs, hw_gen) {
            (Some(g), None) => format!("{} names (assumed: the xclbin gives no hw_gen)", g.name()),
            (Some(g), Some(v)) => format!("{} names (hw_gen {v})", g.name()),
            (None, v) => format!("none known for hw_gen {}", v.unwrap_or_default()),
        };
        Ctx {
            start_columns: start_columns.to_vec(),
            regs,
            regs_from: Some(from),
        }
    }
}

/// True if `d` starts with a CDO header (version 1 or 2).
pub fn is_cdo(d: &[u8]) -> bool {
    Header::read(d)
        .is_ok_and(|h| h.header_words == FIVE_WORDS && matches!(h.identification, CDO_ID | XNLX_ID))
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
    let ident = header::AT.identification;
    if off.saturating_add(header::SIZE) <= lim && word(b, ident.of(off), lim) == Some(XNLX_ID) {
        v1::parse(b, parent, off, lim);
        return;
    }
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
    let mut tally = Tally {
        regs: ctx.regs,
        ..Tally::default()
    };
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
    let at = header::AT;
    let h = match Header::read(b.slice(off, lim.saturating_sub(off))) {
        Ok(h) => h,
        Err(short) => {
            b.error(
                off,
                short.have,
                format!(
                    "truncated: a CDO header needs {} bytes at 0x{off:x}, {} remain",
                    short.need, short.have
                ),
            );
            if off < lim {
                let bytes = b.slice(off, lim - off);
                b.leaf(parent, "header", off, lim - off, text::hex(bytes, 16));
            }
            return None;
        }
    };
    let (remaining, ident, version, length) =
        (h.header_words, h.identification, h.version, h.length);
    let hlen = WORD * (u64::from(remaining) + 1);
    let hid = b.group(parent, "header", off, header::SIZE);
    b.leaf(
        hid,
        "header_words",
        at.header_words.of(off),
        at.header_words.size,
        format!("{} words follow", num(remaining.into())),
    );
    let id_text = match ident {
        CDO_ID => "\"CDO\" (version 2)".to_string(),
        _ => format!("{} (unknown)", hex32(ident)),
    };
    b.leaf(
        hid,
        "identification",
        at.identification.of(off),
        at.identification.size,
        id_text,
    );
    b.leaf(
        hid,
        "version",
        at.version.of(off),
        at.version.size,
        format!(
            "{}.{:02x} ({})",
            version >> 8,
            version & 0xff,
            hex32(version)
        ),
    );
    if ident != CDO_ID {
        at.identification.error(
            b,
            off,
            format!("not a CDO: identification {}", hex32(ident)),
        );
        return None;
    }
    let start = off + hlen;
    let declared = start.saturating_add(WORD * u64::from(length));
    let lid = b.leaf(
        hid,
        "length",
        at.length.of(off),
        at.length.size,
        format!(
            "{} words ({} bytes of commands)",
            num(length.into()),
            num(4 * u64::from(length))
        ),
    );
    if start < lim {
        b.link(lid, start, declared.min(lim) - start);
    }
    let sum = remaining
        .wrapping_add(ident)
        .wrapping_add(version)
        .wrapping_add(length);
    let want = !sum;
    checksum(b, hid, at.checksum.of(off), h.checksum, want);
    if remaining != FIVE_WORDS {
        at.header_words.warn(
            b,
            off,
            format!("the CDO header says {remaining} words follow its first, not 4"),
        );
        if remaining < FIVE_WORDS || start > lim {
            return None;
        }
        header_extra(b, parent, off, hlen);
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
    if let Some(from) = &ctx.regs_from {
        let v = if ctx.regs.is_some() && t.writes > 0 {
            format!(
                "{from}: {} of {} written addresses named ({:.1}%)",
                t.named,
                t.writes,
                100.0 * t.named as f64 / t.writes as f64
            )
        } else {
            from.clone()
        };
        b.leaf(sid, "registers", at, 0, v);
    }
}

/// The words of a CDO header (either version) past its first five,
/// `[off+header::SIZE, off+hlen)`, as one leaf.
pub(super) fn header_extra(b: &mut Builder<'_>, parent: NodeId, off: u64, hlen: u64) {
    let (at, n) = (off + header::SIZE, hlen - header::SIZE);
    let extra = b.slice(at, n);
    b.leaf(parent, "header_extra", at, n, text::hex(extra, 16));
}

/// A CDO header's checksum word at `at` (either version) with its verdict,
/// and an error where it is not the one the header's words make.
pub(super) fn checksum(b: &mut Builder<'_>, hid: NodeId, at: u64, stored: u32, want: u32) {
    let verdict = if want == stored {
        format!("{} (valid)", hex32(stored))
    } else {
        format!("{} (mismatch: computed {})", hex32(stored), hex32(want))
    };
    b.leaf(hid, "checksum", at, 4, verdict);
    if want != stored {
        b.error(
            at,
            4,
            format!(
                "CDO header checksum mismatch: stored {}, computed {}",
                hex32(stored),
                hex32(want)
            ),
        );
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
            ..Ctx::default()
        };
        assert_eq!(
            physical(1, &ctx).as_deref(),
            Some("physical column 2, 3, 4 or 5 (start column 1, 2, 3 or 4)")
        );
        // Register names, once the generation is known.
        assert_eq!(aie_text(0x0021_d004, &ctx), "col 0, row 2, reg 0x1d004");
        let ml = Ctx::partition(&[], None);
        assert_eq!(
            aie_text(0x0021_d004, &ml),
            "col 0, row 2, DMA_BD0_1 (0x1d004)"
        );
        assert_eq!(
            aie_text(0x0020_0400, &ml),
            "col 0, row 2, DATAMEMORY+0x400 (0x00400)"
        );
        assert_eq!(
            Ctx::partition(&[], Some(4)).regs,
            Some(aie_regs::Gen::Aie2p)
        );
        assert_eq!(
            Ctx::partition(&[], Some(3)).regs,
            Some(aie_regs::Gen::AieMl)
        );
        assert_eq!(Ctx::partition(&[], Some(1)).regs, None);
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
