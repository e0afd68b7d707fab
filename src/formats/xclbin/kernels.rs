//! The names of the arguments of an NPU xclbin's kernels, read from its
//! EMBEDDED_METADATA: what a transaction's `DDR_PATCH` names by index when
//! it is paired with the xclbin whose kernel runs it.

use super::layout::SECTION_HEADER;
use super::layout::{
    kind, times, version, Platform, SectionHeader, HEADER, MAX_SECTIONS, SECTIONS,
};

/// The arguments of the xclbin's NPU kernels (`type="dpu"` in its
/// EMBEDDED_METADATA), index and name, for the indices where every such
/// kernel gives the same name; empty when `d` is not an xclbin or has none.
pub fn dpu_kernel_args(d: &[u8]) -> Vec<(u64, String)> {
    let Some(xml) = metadata(d) else {
        return Vec::new();
    };
    let mut kernels: Vec<Vec<(u64, String)>> = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find("<kernel ") {
        let tail = rest.get(i..).unwrap_or("");
        let end = tail.find("</kernel>").unwrap_or(tail.len());
        let body = tail.get(..end).unwrap_or("");
        rest = tail.get(end..).unwrap_or("");
        let open = body
            .get(..body.find('>').unwrap_or(body.len()))
            .unwrap_or("");
        if attr(open, "type") != Some("dpu") {
            continue;
        }
        let mut args = Vec::new();
        let mut b = body;
        while let Some(k) = b.find("<arg ") {
            let t = b.get(k..).unwrap_or("");
            let tag = t.get(..t.find('>').unwrap_or(t.len())).unwrap_or("");
            if let (Some(n), Some(id)) = (attr(tag, "name"), attr(tag, "id")) {
                if let Ok(id) = id.parse::<u64>() {
                    args.push((id, n.to_string()));
                }
            }
            b = t.get(tag.len().max(1)..).unwrap_or("");
        }
        kernels.push(args);
    }
    let Some((first, others)) = kernels.split_first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter(|a| others.iter().all(|k| k.contains(a)))
        .cloned()
        .collect()
}

/// The text of the xclbin's EMBEDDED_METADATA section.
fn metadata(d: &[u8]) -> Option<&str> {
    if !super::detect(d) {
        return None;
    }
    let at = usize::try_from(HEADER + times::SIZE + version::SIZE).ok()?;
    let n = Platform::read(d.get(at..)?).ok()?.m_num_sections;
    for i in 0..u64::from(n).min(MAX_SECTIONS) {
        let s = usize::try_from(SECTIONS + i * SECTION_HEADER).ok()?;
        let h = SectionHeader::read(d.get(s..)?).ok()?;
        if h.kind != kind::EMBEDDED_METADATA {
            continue;
        }
        let a = usize::try_from(h.offset).ok()?;
        let bytes = d.get(a..a.checked_add(usize::try_from(h.size).ok()?)?)?;
        return std::str::from_utf8(bytes).ok();
    }
    None
}

/// The value of attribute `name` in the start tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let v = tag.get(i..)?;
    v.get(..v.find('"')?)
}
