//! What the parts of the CDO reader share: the identifications, the
//! context a stream is shown against, the limits of the walk, and the
//! header and trailing checks both versions make. Of the other parts it
//! uses only the layouts and the register tables, so that each part takes
//! what it shares from here and none takes from the module file.

use crate::model::text::{self, hex32};
use crate::model::{Builder, Endian, NodeId, Span};

use super::aie_regs;
use super::layout::header;

pub(super) const LE: Endian = Endian::Little;

/// "CDO\0" read as a little-endian word: the version 2 identification.
pub const CDO_ID: u32 = 0x004F_4443;
/// "XNLX": the version 1 identification.
pub const XNLX_ID: u32 = 0x584C_4E58;

/// The `header_words` of a five-word header (either version).
pub(super) const FIVE_WORDS: u32 = 4;
/// PROC and PSM_SEQUENCE carry commands of their own; this many levels are
/// opened.
pub(super) const MAX_DEPTH: u8 = 3;
/// Per-command problems reported one by one in a stream; the rest are
/// counted in one closing diagnostic.
pub(super) const DIAG_BUDGET: u32 = 20;

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

/// The compact layout's record area length, when the partition header says
/// the data is in that layout.
#[derive(Clone, Copy, Debug)]
pub struct Compact {
    pub record_bytes: u64,
}

/// Shows and checks the bytes `rest` after the commands of the CDO at
/// `cdo`: zero padding up to the next 16 bytes is expected, anything else is
/// reported.
pub(super) fn trailing(b: &mut Builder<'_>, parent: NodeId, cdo: u64, rest: Span) {
    if rest.is_empty() {
        return;
    }
    let end = rest.offset;
    let bytes = b.slice(end, rest.len);
    let zero = text::looks_zero(bytes);
    let pad = (16 - (end - cdo) % 16) % 16;
    let n = rest.len;
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

/// The words of a CDO header (either version) in `head` past its first
/// five, as one leaf.
pub(super) fn header_extra(b: &mut Builder<'_>, parent: NodeId, head: Span) {
    let at = head.skip(header::SIZE);
    let extra = b.bytes(at);
    b.leaf(
        parent,
        "header_extra",
        at.offset,
        at.len,
        text::hex(extra, 16),
    );
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
