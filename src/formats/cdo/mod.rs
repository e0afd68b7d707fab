//! CDO (configuration data object) command streams, version 2, as the
//! platform loader reads them from a PDI partition, the compact record
//! layout that some NPU partitions carry instead of a command stream, and
//! version 1 streams (`XNLX`, in sections: see `v1`).
//!
//! A stream may hold millions of commands. At parse time one fast pass walks
//! them for the summary (commands by type, DMA bytes, AIE columns and rows)
//! and the diagnostics, and notes where every thousandth command starts; the
//! command nodes themselves are built when their group is opened.

use std::sync::Arc;

use crate::model::text::hex32;
use crate::model::{num, text, Builder, NodeId, Span};

pub mod aie_regs;
mod commands;
mod compact;
mod layout;
mod names;
mod shared;
mod stream;
mod table;
mod v1;

use commands::*;
use compact::*;
use layout::*;
use names::*;
use shared::*;
use stream::*;

pub(crate) use commands::{aie_children, bit_fields, dma_words};
pub use compact::{INFERRED, ODDITY};
pub use names::{aie_split, module_name};
pub(crate) use names::{aie_text, register};
pub use shared::{Compact, Ctx, CDO_ID, XNLX_ID};
pub use table::{
    command, command_name, Arity, Check, Command, Field, Kind, Width, COMMANDS, PAYLOAD,
};

/// True if `d` starts with a CDO header (version 1 or 2).
pub fn is_cdo(d: &[u8]) -> bool {
    Header::read(d)
        .is_ok_and(|h| h.header_words == FIVE_WORDS && matches!(h.identification, CDO_ID | XNLX_ID))
}

// ---------------------------------------------------------------------------
// the header and the stream

/// Parses the CDO in `at` under `parent`: its header, a summary, its
/// commands (or, for `compact`, its records and data pool) and what follows
/// them.
pub fn parse(
    b: &mut Builder<'_>,
    parent: NodeId,
    at: Span,
    ctx: &Arc<Ctx>,
    compact: Option<Compact>,
) {
    // Cut to the file (empty where it starts past the end).
    let cdo = at.take(b.file_len().saturating_sub(at.offset));
    let lim = cdo.end();
    let ident = header::AT.identification;
    if cdo.len >= header::SIZE && word(b, ident.of(cdo.offset), lim) == Some(XNLX_ID) {
        v1::parse(b, parent, cdo);
        return;
    }
    let Some(stream) = header(b, parent, cdo) else {
        return;
    };
    let (start, declared) = stream;
    if let Some(c) = compact {
        parse_compact(b, parent, cdo.at(start, lim - start), c, ctx, declared);
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
    let stream = b.span(start, end - start);
    let w = walk(b, stream, 0, Some((&mut tally, &mut budget)));
    budget.close(b, stream);
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
    trailing(b, parent, cdo.offset, b.span(end, lim - end));
}

/// Parses the header of the CDO in `cdo`; returns where the commands start
/// and where the header says they end.
fn header(b: &mut Builder<'_>, parent: NodeId, cdo: Span) -> Option<(u64, u64)> {
    let lim = cdo.end();
    let at = header::AT;
    let h = match Header::read(b.bytes(cdo)) {
        Ok(h) => h,
        Err(short) => {
            b.error(
                cdo.offset,
                short.have,
                format!(
                    "truncated: a CDO header needs {} bytes at 0x{:x}, {} remain",
                    short.need, cdo.offset, short.have
                ),
            );
            if !cdo.is_empty() {
                let bytes = b.bytes(cdo);
                b.leaf(parent, "header", cdo.offset, cdo.len, text::hex(bytes, 16));
            }
            return None;
        }
    };
    let (remaining, ident, version, length) =
        (h.header_words, h.identification, h.version, h.length);
    let hlen = WORD * (u64::from(remaining) + 1);
    let hid = b.group(parent, "header", cdo.offset, header::SIZE);
    b.leaf(
        hid,
        "header_words",
        at.header_words.of(cdo.offset),
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
        at.identification.of(cdo.offset),
        at.identification.size,
        id_text,
    );
    b.leaf(
        hid,
        "version",
        at.version.of(cdo.offset),
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
            cdo.offset,
            format!("not a CDO: identification {}", hex32(ident)),
        );
        return None;
    }
    let start = cdo.offset + hlen;
    let declared = start.saturating_add(WORD * u64::from(length));
    let lid = b.leaf(
        hid,
        "length",
        at.length.of(cdo.offset),
        at.length.size,
        format!(
            "{} words ({} bytes of commands)",
            num(length.into()),
            num(4 * u64::from(length))
        ),
    );
    if start < lim {
        b.link(lid, b.span(start, declared.min(lim) - start));
    }
    let sum = remaining
        .wrapping_add(ident)
        .wrapping_add(version)
        .wrapping_add(length);
    let want = !sum;
    checksum(b, hid, at.checksum.of(cdo.offset), h.checksum, want);
    if remaining != FIVE_WORDS {
        at.header_words.warn(
            b,
            cdo.offset,
            format!("the CDO header says {remaining} words follow its first, not 4"),
        );
        if remaining < FIVE_WORDS || start > lim {
            return None;
        }
        header_extra(b, parent, b.span(cdo.offset, hlen));
    }
    Some((start, declared))
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
