//! AIE_PARTITION (kind 32): the NPU partition a Ryzen AI xclbin loads, its
//! start columns, and its PDIs with their CDO groups. Every array is an
//! `array_offset` {count, offset from the section start}; names are
//! offsets of NUL-terminated strings from the section start.
//!
//! All offsets are checked, and every array and image gets its node, when
//! the file opens; the records themselves are built when opened.

use std::sync::Arc;

use super::layout::{arr_field, check_arr, mpo_field, sec_str, Sec, Strings, LE};
use crate::formats::pdi;
use crate::model::{read_uint, Builder, Configures, ElemFn, Fact, Fields, Format, NodeId, Value};

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
        .filter_map(|k| read_uint(b, abs + k * size, size, LE))
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
    let n = read_uint(b, at, 4, LE)?;
    let rel = read_uint(b, at + 4, 4, LE)?;
    Some((sec.range(rel, n.checked_mul(elem)?)?, n))
}

fn name_at(b: &Builder<'_>, sec: Sec, at: u64) -> String {
    read_uint(b, at, 4, LE)
        .and_then(|rel| sec_str(b, sec, rel))
        .map(|(_, _, s, _)| s)
        .unwrap_or_default()
}

/// The AIE_PARTITION section `sec`; `hw_gen` is the AIE generation the
/// xclbin's AIE_METADATA gives, if it has one.
pub(crate) fn partition(b: &mut Builder<'_>, sec: Sec, hw_gen: Option<u64>) {
    if !sec.need(b, PARTITION, "aie_partition") {
        return;
    }
    let mut strings = Strings::new(PARTITION);
    let (cols, pdis_at) = partition_header(b, sec, hw_gen, &mut strings);
    let s = sec.abs;
    let Some((abs, n)) =
        pdis_at.and_then(|p| check_arr(b, sec, s + 0x78, p, AIE_PDI, "aie_partition.aie_pdi"))
    else {
        return;
    };
    partition_pdis(b, sec, hw_gen, &mut strings, &cols, abs, n);
}

/// The AIE_PARTITION header (and its start columns): returns the columns
/// and where the array of PDIs is.
fn partition_header(
    b: &mut Builder<'_>,
    sec: Sec,
    hw_gen: Option<u64>,
    strings: &mut Strings,
) -> (Vec<u16>, Option<(u64, u64)>) {
    let s = sec.abs;
    let hdr = b.group(sec.node, "aie_partition", s, PARTITION);
    let mut f = Fields::new(b, hdr, s, LE);
    f.u8("schema_version");
    f.bytes("padding0", 3);
    let mut name = None;
    if let Some(rel) = mpo_field(&mut f, "mpo_name", sec) {
        name = strings.check(f.builder(), sec, rel, s + 4, "aie_partition.mpo_name");
    }
    f.u32("operations_per_cycle");
    f.bytes("padding", 4);
    f.hex_wide("inference_fingerprint", 8);
    f.hex_wide("pre_post_fingerprint", 8);
    let info = f.builder().group(hdr, "info", s + 0x20, 88);
    f.under(info);
    let width = f.u16("column_width").unwrap_or(0);
    f.bytes("padding", 6);
    let cols_at = arr_field(&mut f, "start_columns", sec, 2);
    f.bytes("reserved", 72);
    f.under(hdr);
    let pdis_at = arr_field(&mut f, "aie_pdi", sec, AIE_PDI);
    if let Some(rel) = mpo_field(&mut f, "kernel_commit_id", sec) {
        strings.check(
            f.builder(),
            sec,
            rel,
            s + 0x80,
            "aie_partition.kernel_commit_id",
        );
    }
    f.bytes("reserved", 52);

    // The columns the partition may start at.
    let mut cols: Vec<u16> = Vec::new();
    if let Some((abs, n)) =
        cols_at.and_then(|c| check_arr(b, sec, s + 0x28, c, 2, "aie_partition.info.start_columns"))
    {
        cols = (0..n)
            .filter_map(|k| b.read_u16(abs + 2 * k, super::layout::LE))
            .collect();
        let elem: ElemFn = Arc::new(|b: &mut Builder<'_>, p, i, at| {
            Fields::new(b, p, at, LE).u16(&format!("[{i}]"));
        });
        let id = b.array(sec.node, "start_columns", abs, n, 2, elem);
        b.set_value(id, list(b, abs, n, 2, false));
    }
    let pdis = pdis_at.map_or(0, |p| p.0);
    // What it configures, for --targets: the generation and the width.
    let generation = crate::formats::cdo::aie_regs::Gen::for_partition(hw_gen);
    b.fact(
        sec.node,
        Fact::Configures(Configures {
            format: Format::Pdi,
            target: crate::formats::cdo::aie_regs::npu_target(generation, width).into(),
            kind: "npu".into(),
        }),
    );
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

    (cols, pdis_at)
}

/// The partition's `n` PDIs at `abs`: their images, decoded, and their
/// CDO groups.
fn partition_pdis(
    b: &mut Builder<'_>,
    sec: Sec,
    hw_gen: Option<u64>,
    strings: &mut Strings,
    cols: &[u16],
    abs: u64,
    n: u64,
) {
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
            read_uint(b, e + 16, 4, LE).unwrap_or(0),
            read_uint(b, e + 20, 4, LE).unwrap_or(0),
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
                pdi::parse_in_partition(b, id, iabs, ilen, cols, hw_gen);
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
            read_uint(b, e + 24, 4, LE).unwrap_or(0),
            read_uint(b, e + 28, 4, LE).unwrap_or(0),
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
            if let Some(rel) = read_uint(b, g, 4, LE) {
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
    let arr = (
        read_uint(b, at, 4, LE).unwrap_or(0),
        read_uint(b, at + 4, 4, LE).unwrap_or(0),
    );
    let Some((abs, n)) = check_arr(b, sec, at, arr, size, what) else {
        return;
    };
    if !budget.take(n.saturating_mul(size)) {
        budget.skip(b, sec.node, name, abs, n.saturating_mul(size));
        return;
    }
    let hex = size == 8;
    let elem: ElemFn = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        let mut f = Fields::new(b, p, at, LE);
        if hex {
            f.hex(&format!("[{i}]"), size);
        } else {
            f.uint(&format!("[{i}]"), size);
        }
    });
    let id = b.array(sec.node, name, abs, n, size, elem);
    b.set_value(id, list(b, abs, n, size, hex));
}

/// One aie_pdi record: its UUID, image and CDO groups.
fn aie_pdi(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64, sec: Sec) {
    let id = b.group(p, format!("[{i}]"), at, AIE_PDI);
    let mut f = Fields::new(b, id, at, LE);
    let uuid = f.uuid("uuid").unwrap_or_default();
    let img = arr_field(&mut f, "pdi_image", sec, 1);
    arr_field(&mut f, "cdo_groups", sec, CDO_GROUP);
    f.bytes("reserved", 64);
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
    let mut f = Fields::new(b, id, at, LE);
    mpo_field(&mut f, "mpo_name", sec);
    let ty = f.named("cdo_type", 1, cdo_type).unwrap_or(0);
    f.bytes("padding", 3);
    let pdi_id = f.hex("pdi_id", 8).unwrap_or(0);
    arr_field(&mut f, "dpu_kernel_ids", sec, 8);
    arr_field(&mut f, "pre_cdo_groups", sec, 4);
    f.bytes("reserved", 64);
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
