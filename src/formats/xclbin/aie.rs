//! AIE_PARTITION (kind 32): the NPU partition a Ryzen AI xclbin loads, its
//! start columns, and its PDIs with their CDO groups. Every array is an
//! `array_offset` {count, offset from the section start}; names are
//! offsets of NUL-terminated strings from the section start.
//!
//! All offsets are checked, and every array and image gets its node, when
//! the file opens; the records themselves are built when opened.

use std::sync::Arc;

use super::layout::{arr_field, array_at, check_arr, mpo_field, sec_str, Sec, Strings, LE};
use crate::formats::pdi;
use crate::model::record::{record, At};
use crate::model::{
    read_uint, Builder, Configures, ElemFn, Fact, Fields, Format, NodeId, Span, Value,
};

record! {
    /// `aie_partition` (xclbin.h). Its `mpo_*` fields and arrays are
    /// shown with what they point at; `info` is [`aie_partition_info`].
    mod aie_partition: AiePartition (LE) {
        schema_version: u8 = "schema_version", Show::Auto,
        padding0: [u8; 3] = "padding0", Show::Bytes,
        mpo_name: u32 = "mpo_name", Show::Hidden,
        operations_per_cycle: u32 = "operations_per_cycle", Show::Auto,
        padding: [u8; 4] = "padding", Show::Bytes,
        inference_fingerprint: u64 = "inference_fingerprint", Show::HexWide,
        pre_post_fingerprint: u64 = "pre_post_fingerprint", Show::HexWide,
        info: [u8; 88] = "info", Show::Hidden,
        aie_pdi: [u8; 8] = "aie_pdi", Show::Hidden,
        kernel_commit_id: u32 = "kernel_commit_id", Show::Hidden,
        reserved: [u8; 52] = "reserved", Show::Bytes,
    }
}

record! {
    /// `aie_partition_info` (xclbin.h), the partition's `info`.
    mod aie_partition_info: PartitionInfo (LE) {
        column_width: u16 = "column_width", Show::Auto,
        padding: [u8; 6] = "padding", Show::Bytes,
        start_columns: [u8; 8] = "start_columns", Show::Hidden,
        reserved: [u8; 72] = "reserved", Show::Bytes,
    }
}

record! {
    /// `aie_pdi` (xclbin.h): a PDI image and its CDO groups.
    mod aie_pdi: AiePdi (LE) {
        uuid: [u8; 16] = "uuid", Show::Uuid,
        pdi_image: [u8; 8] = "pdi_image", Show::Hidden,
        cdo_groups: [u8; 8] = "cdo_groups", Show::Hidden,
        reserved: [u8; 64] = "reserved", Show::Bytes,
    }
}

record! {
    /// `cdo_group` (xclbin.h).
    mod cdo_group: CdoGroup (LE) {
        mpo_name: u32 = "mpo_name", Show::Hidden,
        cdo_type: u8 = "cdo_type", Show::Named(cdo_type),
        padding: [u8; 3] = "padding", Show::Bytes,
        pdi_id: u64 = "pdi_id", Show::Hex,
        dpu_kernel_ids: [u8; 8] = "dpu_kernel_ids", Show::Hidden,
        pre_cdo_groups: [u8; 8] = "pre_cdo_groups", Show::Hidden,
        reserved: [u8; 64] = "reserved", Show::Bytes,
    }
}

const PARTITION: u64 = aie_partition::SIZE;
const AIE_PDI: u64 = aie_pdi::SIZE;
const CDO_GROUP: u64 = cdo_group::SIZE;
/// A start column (u16), a DPU kernel id (u64), a pre-CDO-group index
/// (u32).
const COLUMN: u64 = 2;
const KERNEL_ID: u64 = 8;
const GROUP_INDEX: u64 = 4;
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
    let (n, rel) = array_at(b, at)?;
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
    let at = aie_partition::AT.aie_pdi.of(sec.span.offset);
    let Some((abs, n)) =
        pdis_at.and_then(|p| check_arr(b, sec, at, p, AIE_PDI, "aie_partition.aie_pdi"))
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
    use aie_partition::AT;
    let s = sec.span.offset;
    let info_at = AT.info.of(s);
    let width = PartitionInfo::read(b.slice(info_at, aie_partition_info::SIZE))
        .map_or(0, |i| u64::from(i.column_width));
    let hdr = b.group(sec.node, "aie_partition", s, PARTITION);
    let mut f = Fields::new(b, hdr, s, LE);
    AiePartition::show_part(&mut f, 0, AT.padding0.end());
    let mut name = None;
    if let Some(rel) = mpo_field(&mut f, "mpo_name", sec) {
        let at = AT.mpo_name.of(s);
        name = strings.check(f.builder(), sec, rel, at, "aie_partition.mpo_name");
    }
    let fingerprints = AT.pre_post_fingerprint.end();
    AiePartition::show_part(&mut f, AT.operations_per_cycle.off, fingerprints);
    let info = f.builder().group(hdr, "info", info_at, AT.info.size);
    f.under(info);
    let cols_field = aie_partition_info::AT.start_columns;
    PartitionInfo::show_part(&mut f, 0, cols_field.off);
    let cols_at = arr_field(&mut f, "start_columns", sec, COLUMN);
    PartitionInfo::show_part(&mut f, cols_field.end(), aie_partition_info::SIZE);
    f.under(hdr);
    let pdis_at = arr_field(&mut f, "aie_pdi", sec, AIE_PDI);
    if let Some(rel) = mpo_field(&mut f, "kernel_commit_id", sec) {
        let at = AT.kernel_commit_id.of(s);
        strings.check(f.builder(), sec, rel, at, "aie_partition.kernel_commit_id");
    }
    AiePartition::show_part(&mut f, AT.reserved.off, PARTITION);

    // The columns the partition may start at.
    let mut cols: Vec<u16> = Vec::new();
    let what = "aie_partition.info.start_columns";
    if let Some((abs, n)) =
        cols_at.and_then(|c| check_arr(b, sec, cols_field.of(info_at), c, COLUMN, what))
    {
        cols = (0..n)
            .filter_map(|k| b.read_u16(abs + COLUMN * k, LE))
            .collect();
        let elem: ElemFn = Arc::new(|b: &mut Builder<'_>, p, i, at| {
            Fields::new(b, p, at, LE).u16(&format!("[{i}]"));
        });
        let id = b.array(sec.node, "start_columns", abs, n, COLUMN, elem);
        b.set_value(id, list(b, abs, n, COLUMN, false));
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
    let elem: ElemFn = Arc::new(move |b: &mut Builder<'_>, p, i, at| show_pdi(b, p, i, at, sec));
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
    let mut budget = sec.span.len.saturating_mul(2);
    let mut spent_out = false;
    // Arrays may overlap too: give element nodes to at most twice the
    // section's bytes in all, so a small file cannot make a huge tree.
    let mut arrays = Budget::new(sec.span.len.saturating_mul(2));
    for i in 0..shown {
        let e = abs + i * AIE_PDI;
        let img_at = aie_pdi::AT.pdi_image.of(e);
        let img = array_at(b, img_at).unwrap_or((0, 0));
        if let Some((iabs, ilen)) =
            check_arr(b, sec, img_at, img, 1, &format!("aie_pdi[{i}].pdi_image"))
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
                pdi::parse_in_partition(b, id, b.span(iabs, ilen), cols, hw_gen);
            } else if !spent_out {
                spent_out = true;
                b.warn(
                    iabs,
                    ilen,
                    "PDI images overlap so much that the rest are not decoded",
                );
            }
        }
        let cg_at = aie_pdi::AT.cdo_groups.of(e);
        let cg = array_at(b, cg_at).unwrap_or((0, 0));
        let what = format!("aie_pdi[{i}].cdo_groups");
        let Some((gabs, gn)) = check_arr(b, sec, cg_at, cg, CDO_GROUP, &what) else {
            continue;
        };
        let name = format!("pdi[{i}] cdo_groups");
        if !arrays.take(gn.saturating_mul(CDO_GROUP)) {
            arrays.skip(
                b,
                sec.node,
                &name,
                b.span(gabs, gn.saturating_mul(CDO_GROUP)),
            );
            continue;
        }
        let elem: ElemFn =
            Arc::new(move |b: &mut Builder<'_>, p, j, at| show_cdo_group(b, p, j, at, sec));
        b.array(sec.node, &name, gabs, gn, CDO_GROUP, elem);
        let checked = gn.min(groups_left);
        groups_left -= checked;
        for j in 0..checked {
            let g = gabs + j * CDO_GROUP;
            let what = format!("aie_pdi[{i}].cdo_groups[{j}]");
            let name_at = cdo_group::AT.mpo_name.of(g);
            if let Some(rel) = read_uint(b, name_at, 4, LE) {
                strings.check(b, sec, rel, name_at, &format!("{what}.mpo_name"));
            }
            id_array(
                b,
                sec,
                cdo_group::AT.dpu_kernel_ids.of(g),
                KERNEL_ID,
                &format!("pdi[{i}] cdo[{j}] dpu_kernel_ids"),
                &format!("{what}.dpu_kernel_ids"),
                &mut arrays,
            );
            id_array(
                b,
                sec,
                cdo_group::AT.pre_cdo_groups.of(g),
                GROUP_INDEX,
                &format!("pdi[{i}] cdo[{j}] pre_cdo_groups"),
                &format!("{what}.pre_cdo_groups"),
                &mut arrays,
            );
        }
    }
    if groups_left == 0 {
        b.info(
            sec.span.offset,
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
    fn skip(&mut self, b: &mut Builder<'_>, p: NodeId, name: &str, at: Span) {
        let v = Value::with(at.len, crate::model::Radix::Auto, " bytes, not opened");
        b.leaf(p, name, at.offset, at.len, v);
        if !self.warned {
            self.warned = true;
            b.warn(
                at.offset,
                at.len,
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
    let arr = array_at(b, at).unwrap_or((0, 0));
    let Some((abs, n)) = check_arr(b, sec, at, arr, size, what) else {
        return;
    };
    if !budget.take(n.saturating_mul(size)) {
        budget.skip(b, sec.node, name, b.span(abs, n.saturating_mul(size)));
        return;
    }
    let hex = size == KERNEL_ID;
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
fn show_pdi(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64, sec: Sec) {
    let id = b.group(p, format!("[{i}]"), at, AIE_PDI);
    let mut f = Fields::new(b, id, at, LE);
    let uuid = f.uuid("uuid").unwrap_or_default();
    let img = arr_field(&mut f, "pdi_image", sec, 1);
    arr_field(&mut f, "cdo_groups", sec, CDO_GROUP);
    AiePdi::show_part(&mut f, aie_pdi::AT.reserved.off, AIE_PDI);
    let groups: Vec<String> = match target(b, sec, aie_pdi::AT.cdo_groups.of(at), CDO_GROUP) {
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
    if let Some((abs, n)) = target(b, sec, aie_pdi::AT.pdi_image.of(at), 1) {
        b.link(id, b.span(abs, n));
    }
}

/// One cdo_group record.
fn show_cdo_group(b: &mut Builder<'_>, p: NodeId, j: u64, at: u64, sec: Sec) {
    let name = name_at(b, sec, at);
    let label = if name.is_empty() {
        format!("[{j}]")
    } else {
        format!("[{j}] {name}")
    };
    use cdo_group::AT;
    let r = CdoGroup::read(b.slice(at, CDO_GROUP)).ok();
    let (ty, pdi_id) = r.map_or((0, 0), |r| (u64::from(r.cdo_type), r.pdi_id));
    let id = b.group(p, label, at, CDO_GROUP);
    let mut f = Fields::new(b, id, at, LE);
    mpo_field(&mut f, "mpo_name", sec);
    CdoGroup::show_part(&mut f, AT.cdo_type.off, AT.pdi_id.end());
    arr_field(&mut f, "dpu_kernel_ids", sec, KERNEL_ID);
    arr_field(&mut f, "pre_cdo_groups", sec, GROUP_INDEX);
    CdoGroup::show_part(&mut f, AT.reserved.off, CDO_GROUP);
    let ids = |field: At, size, hex| {
        target(b, sec, field.of(at), size).map_or(String::new(), |(a, n)| list(b, a, n, size, hex))
    };
    let kernels = ids(AT.dpu_kernel_ids, KERNEL_ID, true);
    let pre = ids(AT.pre_cdo_groups, GROUP_INDEX, false);
    b.set_value(
        id,
        format!(
            "{}, pdi_id 0x{pdi_id:x}, kernel ids [{kernels}], pre-groups [{pre}]",
            cdo_type(ty).unwrap_or("unknown type")
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records as xclbin.h (XRT) lays them out.
    #[test]
    fn records_match_xclbin_h() {
        assert_eq!((PARTITION, AIE_PDI, CDO_GROUP), (184, 96, 96));
        assert_eq!(aie_partition::AT.info.off, 0x20);
        assert_eq!(aie_partition::AT.info.size, aie_partition_info::SIZE);
        assert_eq!(aie_partition::AT.aie_pdi.off, 0x78);
        assert_eq!(aie_partition::AT.kernel_commit_id.off, 0x80);
        let cols = aie_partition_info::AT
            .start_columns
            .after(aie_partition::AT.info.off);
        assert_eq!(cols.off, 0x28);
        assert_eq!(
            (aie_pdi::AT.pdi_image.off, aie_pdi::AT.cdo_groups.off),
            (16, 24)
        );
        let g = cdo_group::AT;
        assert_eq!(
            (g.pdi_id.off, g.dpu_kernel_ids.off, g.pre_cdo_groups.off),
            (8, 16, 24)
        );
    }
}
