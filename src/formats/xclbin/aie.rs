//! AIE_PARTITION (kind 32): the NPU partition a Ryzen AI xclbin loads, its
//! start columns, and its PDIs with their CDO groups. Every array is an
//! `array_offset` {count, offset from the section start}; names are
//! offsets of NUL-terminated strings from the section start.
//!
//! All offsets are checked, and every array and image gets its node, when
//! the file opens; the records themselves are built when opened.

use std::sync::Arc;

use super::{
    arr_field, check_arr, field, field_hex, field_named, field_uuid, field_wide, field_with,
    mpo_field, read, sec_str, Sec, Strings,
};
use crate::formats::pdi;
use crate::model::{Builder, ElemFn, NodeId, Value};

const PARTITION: u64 = 184;
const AIE_PDI: u64 = 96;
const CDO_GROUP: u64 = 96;
/// How many PDIs, and how many CDO groups, get their arrays and images
/// checked and shown when the file opens.
const MAX_TARGETS: u64 = 4096;
/// How many values a summary lists.
const LISTED: u64 = 8;

fn cdo_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "CT_UNKNOWN",
        1 => "CT_PRIMARY",
        2 => "CT_LITE",
        3 => "CT_PREPOST",
        _ => return None,
    })
}

/// Up to [`LISTED`] values of `n` of `size` bytes from `abs`, joined.
fn list(b: &Builder<'_>, abs: u64, n: u64, size: u64, hex: bool) -> String {
    let mut parts: Vec<String> = (0..n.min(LISTED))
        .filter_map(|k| read(b, abs + k * size, size))
        .map(|v| {
            if hex {
                format!("0x{v:x}")
            } else {
                v.to_string()
            }
        })
        .collect();
    if n > LISTED {
        parts.push("…".to_string());
    }
    parts.join(", ")
}

/// The array an `array_offset` at `at` names, if it all lies in the
/// section (for summaries; the checks report the rest).
fn target(b: &Builder<'_>, sec: Sec, at: u64, elem: u64) -> Option<(u64, u64)> {
    let n = read(b, at, 4)?;
    let rel = read(b, at + 4, 4)?;
    Some((sec.range(rel, n.checked_mul(elem)?)?, n))
}

fn name_at(b: &Builder<'_>, sec: Sec, at: u64) -> String {
    read(b, at, 4)
        .and_then(|rel| sec_str(b, sec, rel))
        .map(|(_, _, s, _)| s)
        .unwrap_or_default()
}

pub(crate) fn partition(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, PARTITION, "aie_partition") {
        return;
    }
    let s = sec.abs;
    let hdr = b.group(sec.node, "aie_partition", s, PARTITION);
    let mut strings = Strings::new(PARTITION);
    field(b, hdr, "schema_version", s, 1);
    b.raw(hdr, "padding0", s + 1, 3);
    let mut name = None;
    if let Some(rel) = mpo_field(b, hdr, "mpo_name", s + 4, sec) {
        name = strings.check(b, sec, rel, s + 4, "aie_partition.mpo_name");
    }
    field(b, hdr, "operations_per_cycle", s + 8, 4);
    b.raw(hdr, "padding", s + 12, 4);
    field_wide(b, hdr, "inference_fingerprint", s + 0x10, 8);
    field_wide(b, hdr, "pre_post_fingerprint", s + 0x18, 8);
    let info = b.group(hdr, "info", s + 0x20, 88);
    let width = field(b, info, "column_width", s + 0x20, 2).unwrap_or(0);
    b.raw(info, "padding", s + 0x22, 6);
    let cols_at = arr_field(b, info, "start_columns", s + 0x28, sec, 2);
    b.raw(info, "reserved", s + 0x30, 72);
    let pdis_at = arr_field(b, hdr, "aie_pdi", s + 0x78, sec, AIE_PDI);
    if let Some(rel) = mpo_field(b, hdr, "kernel_commit_id", s + 0x80, sec) {
        strings.check(b, sec, rel, s + 0x80, "aie_partition.kernel_commit_id");
    }
    b.raw(hdr, "reserved", s + 0x84, 52);

    // The columns the partition may start at.
    let mut cols: Vec<u16> = Vec::new();
    if let Some((abs, n)) =
        cols_at.and_then(|c| check_arr(b, sec, s + 0x28, c, 2, "aie_partition.info.start_columns"))
    {
        cols = (0..n)
            .filter_map(|k| b.read_u16(abs + 2 * k, super::LE))
            .collect();
        let elem: ElemFn = Arc::new(|b: &mut Builder<'_>, p, i, at| {
            field(b, p, &format!("[{i}]"), at, 2);
        });
        let id = b.array(sec.node, "start_columns", abs, n, 2, elem);
        b.set_value(id, list(b, abs, n, 2, false));
    }
    let pdis = pdis_at.map_or(0, |p| p.0);
    b.set_value(
        hdr,
        format!(
            "\"{}\", column width {width}, start columns [{}], {pdis} PDI{}",
            name.unwrap_or_default(),
            cols.iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            if pdis == 1 { "" } else { "s" }
        ),
    );

    let Some((abs, n)) =
        pdis_at.and_then(|p| check_arr(b, sec, s + 0x78, p, AIE_PDI, "aie_partition.aie_pdi"))
    else {
        return;
    };
    let elem: ElemFn = Arc::new(move |b: &mut Builder<'_>, p, i, at| aie_pdi(b, p, i, at, sec));
    b.array(sec.node, "aie_pdi", abs, n, AIE_PDI, elem);
    let shown = n.min(MAX_TARGETS);
    if n > shown {
        b.info(
            abs + shown * AIE_PDI,
            (n - shown) * AIE_PDI,
            format!("only the first {shown} of {n} PDIs are checked and given image nodes"),
        );
    }
    let mut groups_left = MAX_TARGETS;
    // Images that repeat or overlap could make the same bytes be decoded
    // again and again: decode at most twice the section's bytes.
    let mut budget = sec.len.saturating_mul(2);
    let mut spent_out = false;
    // Arrays may overlap too: give element nodes to at most twice the
    // section's bytes in all, so a small file cannot make a huge tree.
    let mut arrays = Budget::new(sec.len.saturating_mul(2));
    for i in 0..shown {
        let e = abs + i * AIE_PDI;
        let img = (
            read(b, e + 16, 4).unwrap_or(0),
            read(b, e + 20, 4).unwrap_or(0),
        );
        if let Some((iabs, ilen)) =
            check_arr(b, sec, e + 16, img, 1, &format!("aie_pdi[{i}].pdi_image"))
        {
            let id = b.leaf(
                sec.node,
                format!("pdi[{i}] image"),
                iabs,
                ilen,
                Value::Size(ilen),
            );
            if ilen <= budget {
                budget -= ilen;
                pdi::parse_in_partition(b, id, iabs, ilen, &cols);
            } else if !spent_out {
                spent_out = true;
                b.warn(
                    iabs,
                    ilen,
                    "PDI images overlap so much that the rest are not decoded",
                );
            }
        }
        let cg = (
            read(b, e + 24, 4).unwrap_or(0),
            read(b, e + 28, 4).unwrap_or(0),
        );
        let what = format!("aie_pdi[{i}].cdo_groups");
        let Some((gabs, gn)) = check_arr(b, sec, e + 24, cg, CDO_GROUP, &what) else {
            continue;
        };
        let name = format!("pdi[{i}] cdo_groups");
        if !arrays.take(gn.saturating_mul(CDO_GROUP)) {
            arrays.skip(b, sec.node, &name, gabs, gn.saturating_mul(CDO_GROUP));
            continue;
        }
        let elem: ElemFn =
            Arc::new(move |b: &mut Builder<'_>, p, j, at| cdo_group(b, p, j, at, sec));
        b.array(sec.node, &name, gabs, gn, CDO_GROUP, elem);
        let checked = gn.min(groups_left);
        groups_left -= checked;
        for j in 0..checked {
            let g = gabs + j * CDO_GROUP;
            let what = format!("aie_pdi[{i}].cdo_groups[{j}]");
            if let Some(rel) = read(b, g, 4) {
                strings.check(b, sec, rel, g, &format!("{what}.mpo_name"));
            }
            id_array(
                b,
                sec,
                g + 16,
                8,
                &format!("pdi[{i}] cdo[{j}] dpu_kernel_ids"),
                &format!("{what}.dpu_kernel_ids"),
                &mut arrays,
            );
            id_array(
                b,
                sec,
                g + 24,
                4,
                &format!("pdi[{i}] cdo[{j}] pre_cdo_groups"),
                &format!("{what}.pre_cdo_groups"),
                &mut arrays,
            );
        }
    }
    if groups_left == 0 {
        b.info(
            sec.abs,
            0,
            format!("only the first {MAX_TARGETS} CDO groups are checked and given nodes"),
        );
    }
}

/// How many bytes of arrays may still get element nodes.
struct Budget {
    left: u64,
    warned: bool,
}

impl Budget {
    fn new(bytes: u64) -> Budget {
        Budget {
            left: bytes,
            warned: false,
        }
    }

    /// Takes `bytes` from the budget, if they are there.
    fn take(&mut self, bytes: u64) -> bool {
        match self.left.checked_sub(bytes) {
            Some(l) => {
                self.left = l;
                true
            }
            None => false,
        }
    }

    /// Shows an array past the budget as one node, and says why once.
    fn skip(&mut self, b: &mut Builder<'_>, p: NodeId, name: &str, abs: u64, len: u64) {
        let v = Value::with(len, crate::model::Radix::Auto, " bytes, not opened");
        b.leaf(p, name, abs, len, v);
        if !self.warned {
            self.warned = true;
            b.warn(
                abs,
                len,
                "arrays overlap so much that the rest are shown as bytes only",
            );
        }
    }
}

/// Checks an array of ids an `array_offset` at `at` names and adds its node.
fn id_array(
    b: &mut Builder<'_>,
    sec: Sec,
    at: u64,
    size: u64,
    name: &str,
    what: &str,
    budget: &mut Budget,
) {
    let arr = (read(b, at, 4).unwrap_or(0), read(b, at + 4, 4).unwrap_or(0));
    let Some((abs, n)) = check_arr(b, sec, at, arr, size, what) else {
        return;
    };
    if !budget.take(n.saturating_mul(size)) {
        budget.skip(b, sec.node, name, abs, n.saturating_mul(size));
        return;
    }
    let hex = size == 8;
    let elem: ElemFn = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        field_with(b, p, &format!("[{i}]"), at, size, |v| {
            if hex {
                Value::hex(v)
            } else {
                Value::uint(v)
            }
        });
    });
    let id = b.array(sec.node, name, abs, n, size, elem);
    b.set_value(id, list(b, abs, n, size, hex));
}

/// One aie_pdi record: its UUID, image and CDO groups.
fn aie_pdi(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64, sec: Sec) {
    let id = b.group(p, format!("[{i}]"), at, AIE_PDI);
    let uuid = field_uuid(b, id, "uuid", at).unwrap_or_default();
    let img = arr_field(b, id, "pdi_image", at + 16, sec, 1);
    arr_field(b, id, "cdo_groups", at + 24, sec, CDO_GROUP);
    b.raw(id, "reserved", at + 32, 64);
    let groups: Vec<String> = match target(b, sec, at + 24, CDO_GROUP) {
        Some((g, n)) => (0..n.min(LISTED))
            .map(|j| format!("\"{}\"", name_at(b, sec, g + j * CDO_GROUP)))
            .collect(),
        None => Vec::new(),
    };
    b.set_value(
        id,
        format!(
            "{uuid}, image {} bytes, CDO groups [{}]",
            img.map_or(0, |x| x.0),
            groups.join(", ")
        ),
    );
    if let Some((abs, n)) = target(b, sec, at + 16, 1) {
        b.link(id, abs, n);
    }
}

/// One cdo_group record.
fn cdo_group(b: &mut Builder<'_>, p: NodeId, j: u64, at: u64, sec: Sec) {
    let name = name_at(b, sec, at);
    let label = if name.is_empty() {
        format!("[{j}]")
    } else {
        format!("[{j}] {name}")
    };
    let id = b.group(p, label, at, CDO_GROUP);
    mpo_field(b, id, "mpo_name", at, sec);
    let ty = field_named(b, id, "cdo_type", at + 4, 1, cdo_type).unwrap_or(0);
    b.raw(id, "padding", at + 5, 3);
    let pdi_id = field_hex(b, id, "pdi_id", at + 8, 8).map_or(0, |x| x.0);
    arr_field(b, id, "dpu_kernel_ids", at + 16, sec, 8);
    arr_field(b, id, "pre_cdo_groups", at + 24, sec, 4);
    b.raw(id, "reserved", at + 32, 64);
    let kernels = target(b, sec, at + 16, 8).map_or(String::new(), |(a, n)| list(b, a, n, 8, true));
    let pre = target(b, sec, at + 24, 4).map_or(String::new(), |(a, n)| list(b, a, n, 4, false));
    b.set_value(
        id,
        format!(
            "{}, pdi_id 0x{pdi_id:x}, kernel ids [{kernels}], pre-groups [{pre}]",
            cdo_type(ty).unwrap_or("unknown type")
        ),
    );
}
