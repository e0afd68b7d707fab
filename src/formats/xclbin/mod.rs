//! AMD/Xilinx XCLBIN (`xclbin2\0`), the container Vitis writes for Alveo,
//! Kria and Zynq FPGAs and for Ryzen AI NPUs: a fixed header, a table of
//! section headers, and the sections' payloads. Layouts follow XRT's
//! `xclbin.h`; every offset in the file is from the start of the xclbin,
//! and every offset inside a section from the start of that section.

mod aie;
mod blobs;
pub mod kernels;
mod mirror;
mod tables;

use crate::formats::{json, xml};
use crate::model::{
    text, Builder, Configures, Fact, Fields, Format, NodeId, Radix, Raw, Span, Value,
};

mod layout;

use layout::*;
pub use layout::{detect, kind, kind_name, MAGIC, MAX_SECTIONS};

/// What plugs into the XCLBIN reader from outside it.
pub struct Hooks {
    /// Decodes the payload of a section of `kind` at the given span under
    /// its node; false where the reader's own decoding is to go on.
    pub section: fn(&mut Builder<'_>, u32, NodeId, Span) -> bool,
}

/// No hooks: the reader alone.
pub static NO_HOOKS: Hooks = Hooks {
    section: |_, _, _, _| false,
};

/// Decodes the xclbin in `at` under `parent`.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    parse_with(b, parent, at, &NO_HOOKS)
}

/// Decodes the xclbin in `xclbin` under `parent`, with `hooks`.
pub fn parse_with(b: &mut Builder<'_>, parent: NodeId, xclbin: Span, hooks: &Hooks) {
    b.leaf(parent, "magic", xclbin.offset, 8, Value::str("xclbin2"));
    if xclbin.len < SECTIONS {
        b.error(
            xclbin.offset,
            xclbin.len,
            format!(
                "truncated: the xclbin header needs {SECTIONS} bytes, the file has {}",
                xclbin.len
            ),
        );
    }
    let mut f = Fields::new(b, parent, xclbin.offset + MAGIC.len() as u64, LE);
    let sig = f
        .with("m_signature_length", 4, |v| match v as u32 as i32 {
            -1 => Value::note(Raw::I(-1), "no signature"),
            n if n >= 0 => Value::with(n as u64, Radix::Dec, " bytes (signed)"),
            n => Value::note(Raw::I(i64::from(n)), "corrupt"),
        })
        .map(|v| v as u32 as i32);
    let sig_at = xclbin.offset + MAGIC.len() as u64;
    if let Some(s) = sig.filter(|&s| s < -1) {
        f.builder().error(
            sig_at,
            4,
            format!("signature length {s} is corrupt (below -1)"),
        );
    }
    // Each field is shown when the range holds it.
    if xclbin.len >= 0x28 {
        f.bytes("reserved", 28);
    }
    if xclbin.len >= 0x128 {
        f.bytes("m_keyBlock", 256);
    }
    if xclbin.len >= HEADER {
        f.hex_wide("m_uniqueId", 8);
    }
    if xclbin.len < SECTIONS {
        return;
    }
    let Some((m_length, n, vbnv)) = axlf_header(b, parent, xclbin.offset + HEADER, xclbin.len)
    else {
        return;
    };

    // A signed xclbin ends with its signature, counted in m_length.
    if let Some(s) = sig.filter(|&s| s > 0) {
        let s = s as u64;
        match m_length.checked_sub(s) {
            Some(at) if m_length <= xclbin.len && at >= SECTIONS => {
                b.leaf(
                    parent,
                    "signature",
                    xclbin.offset + at,
                    s,
                    format!("PKCS#7 signature, {} bytes", Value::uint(s)),
                );
            }
            _ => b.error(
                sig_at,
                4,
                format!("the {s}-byte signature does not fit before m_length ({m_length})"),
            ),
        }
    }

    // The section table.
    let room = (xclbin.len - SECTIONS) / SECTION_HEADER;
    let num_at = xclbin.offset + HEADER + times::SIZE + version::SIZE;
    if n > MAX_SECTIONS {
        platform::AT.m_num_sections.error(
            b,
            num_at,
            format!("m_numSections is {n}; XRT accepts at most {MAX_SECTIONS}"),
        );
    }
    let mut count = n.min(MAX_SECTIONS);
    if count > room {
        platform::AT.m_num_sections.error(
            b,
            num_at,
            format!(
                "m_numSections {n} needs {} bytes of section headers; the file has room for {room}",
                n.saturating_mul(SECTION_HEADER)
            ),
        );
        count = room;
    }
    let table_end = SECTIONS + count * SECTION_HEADER;
    let elem: crate::model::ElemFn = std::sync::Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        section_header(b, p, i, at, xclbin);
    });
    b.array(
        parent,
        "sections",
        xclbin.offset + SECTIONS,
        count,
        SECTION_HEADER,
        elem,
    );

    let mut secs = section_entries(b, xclbin, count);
    overlaps(b, xclbin.offset, &mut secs);

    let sec_of = section_nodes(b, parent, xclbin.offset, &secs);
    let last = secs
        .iter()
        .filter(|e| e.in_file)
        .map(|e| e.rel.saturating_add(e.size))
        .fold(table_end, u64::max);
    mirror::parse(b, parent, xclbin, xclbin.offset.saturating_add(last), count);
    let ctx = tables::Ctx::new(b, &secs, &sec_of);
    // An FPGA xclbin is built for one platform; an NPU's says what it
    // configures by its AIE partitions.
    if !ctx.npu {
        let target = vbnv.filter(|v| !v.is_empty());
        b.fact(
            parent,
            Fact::Configures(Configures {
                format: Format::Xclbin,
                target: target.as_deref().unwrap_or("-").into(),
                kind: "fpga".into(),
            }),
        );
    }
    for (e, s) in secs.iter().zip(&sec_of) {
        let Some(sec) = *s else { continue };
        if e.decode {
            if !(hooks.section)(b, e.kind, sec.node, sec.span) {
                payload(b, e.kind, sec, &ctx);
            }
        } else if e.size > 0 {
            // Its bytes belong to the header or to another section: decoding
            // them again could repeat work without end (an xclbin whose
            // sections all hold the whole file).
            b.set_value(
                sec.node,
                Value::with(
                    e.size,
                    Radix::Auto,
                    " bytes, not decoded (they overlap other structures)",
                ),
            );
        }
    }
}

/// What the `count` section headers of the xclbin in `xclbin`
/// say, with a diagnostic for each that does not fit.
fn section_entries(b: &mut Builder<'_>, xclbin: Span, count: u64) -> Vec<Entry> {
    let table_end = SECTIONS + count * SECTION_HEADER;
    let mut secs: Vec<Entry> = Vec::new();
    for i in 0..count {
        let at = xclbin.offset + SECTIONS + i * SECTION_HEADER;
        let SectionHeader {
            kind,
            offset: s_off,
            size: s_size,
            ..
        } = section_at(b, at);
        let label = label(i, kind);
        if kind_name(kind).is_none() {
            // Newer tools write kinds this reader does not know yet: an
            // info, since the file may well be valid.
            shdr::AT.kind.info(
                b,
                at,
                format!("{label}: unknown section kind {kind}; shown as raw bytes"),
            );
        }
        let inside = s_off <= xclbin.len && s_size <= xclbin.len - s_off;
        if !inside {
            let span = shdr::AT.offset.through(shdr::AT.size);
            b.error(
                span.of(at),
                span.size,
                format!(
                    "{label}: [0x{s_off:x}+0x{s_size:x}] lies outside the file ({} bytes)",
                    xclbin.len
                ),
            );
        }
        if s_size > 0 && s_off < table_end {
            shdr::AT.offset.error(
                b,
                at,
                format!("{label}: offset 0x{s_off:x} lies in the xclbin header or section table (which end at 0x{table_end:x})"),
            );
        }
        let cut = if s_off < xclbin.len {
            s_size.min(xclbin.len - s_off)
        } else {
            0
        };
        secs.push(Entry {
            index: i,
            kind,
            rel: s_off,
            size: cut,
            in_file: s_off <= xclbin.len,
            decode: s_off >= table_end,
        });
    }
    secs
}

/// One node per payload, under `parent`: `None` for a section outside
/// the file.
fn section_nodes(
    b: &mut Builder<'_>,
    parent: NodeId,
    off: u64,
    secs: &[Entry],
) -> Vec<Option<Sec>> {
    let mut sec_of: Vec<Option<Sec>> = Vec::with_capacity(secs.len());
    for e in secs {
        if !e.in_file {
            sec_of.push(None);
            continue;
        }
        let abs = off + e.rel;
        let name = read_name(b, off + SECTIONS + e.index * SECTION_HEADER);
        let value = format!("\"{name}\", {} bytes", Value::uint(e.size));
        let node = b.add(
            parent,
            label(e.index, e.kind),
            abs,
            e.size,
            Some(value.into()),
        );
        b.set_key(node, key(e.kind, &name));
        sec_of.push(Some(Sec {
            span: b.span(abs, e.size),
            node,
        }));
    }
    sec_of
}

/// Shows `axlf_header` at `h` (the xclbin `len` bytes long) under
/// `parent`; returns its m_length, m_numSections and m_platformVBNV.
fn axlf_header(
    b: &mut Builder<'_>,
    parent: NodeId,
    h: u64,
    len: u64,
) -> Option<(u64, u64, Option<String>)> {
    let hdr = b.group(parent, "header", h, SECTIONS - HEADER);
    let d = b.slice(h, SECTIONS - HEADER);
    let t = Times::read(d).ok();
    let m_length = t.map_or(len, |t| t.m_length);
    let mut f = Fields::new(b, hdr, h, LE);
    Times::show(&mut f);
    if m_length > len {
        times::AT.m_length.error(
            b,
            h,
            format!(
                "m_length is {m_length} bytes but the file has only {len}: the xclbin is truncated"
            ),
        );
    } else if m_length < len {
        times::AT.m_length.warn(
            b,
            h,
            format!(
                "m_length is {m_length} bytes; {} bytes follow the xclbin",
                len - m_length
            ),
        );
    }
    let v_at = h + times::SIZE;
    let v = Version::read(d.get(times::SIZE as usize..).unwrap_or(&[])).unwrap_or(Version {
        patch: 0,
        major: 0,
        minor: 0,
    });
    let ver = b.leaf(
        hdr,
        "version",
        v_at,
        version::SIZE,
        format!("{}.{}.{}", v.major, v.minor, v.patch),
    );
    let mut f = Fields::new(b, ver, v_at, LE);
    Version::show(&mut f);
    f.under(hdr);
    Platform::show(&mut f);
    let p = Platform::read(
        d.get((times::SIZE + version::SIZE) as usize..)
            .unwrap_or(&[]),
    )
    .ok()?;
    let vbnv = text::fixed(&p.m_platform_vbnv);
    Some((m_length, u64::from(p.m_num_sections), Some(vbnv)))
}

fn label(i: u64, kind: u32) -> String {
    match kind_name(kind) {
        Some(k) => format!("[{i}] {k}"),
        None => format!("[{i}] kind {kind}"),
    }
}

/// What identifies a section when two files are compared: its kind and
/// name (its index changes when sections are put in another order).
fn key(kind: u32, name: &str) -> String {
    let l = label(0, kind);
    format!("{} {name}", l.strip_prefix("[0] ").unwrap_or(&l))
}

fn read_name(b: &Builder<'_>, hdr: u64) -> String {
    b.read_bytes(shdr::AT.name.of(hdr), shdr::AT.name.size)
        .map(text::fixed)
        .unwrap_or_default()
}

/// Reports sections whose payloads overlap, and marks all but the first
/// of them not to be decoded.
fn overlaps(b: &mut Builder<'_>, off: u64, secs: &mut [Entry]) {
    let mut spans: Vec<usize> = (0..secs.len())
        .filter(|&i| secs.get(i).is_some_and(|e| e.in_file && e.size > 0))
        .collect();
    spans.sort_by_key(|&i| secs.get(i).map(|e| (e.rel, e.index)));
    let mut reported = 0u64;
    let mut widest: Option<usize> = None;
    for i in spans {
        let (Some(e), Some(w)) = (secs.get(i), widest.and_then(|w| secs.get(w))) else {
            widest = Some(i);
            continue;
        };
        {
            let w_end = w.rel + w.size;
            if e.rel < w_end {
                reported += 1;
                if reported <= MAX_REPORTS {
                    let both = w_end.min(e.rel + e.size) - e.rel;
                    b.error(
                        off + e.rel,
                        both,
                        format!(
                            "{} and {} overlap in [0x{:x}+0x{both:x}]",
                            label(w.index, w.kind),
                            label(e.index, e.kind),
                            e.rel
                        ),
                    );
                }
                let inside = e.rel + e.size <= w_end;
                if let Some(e) = secs.get_mut(i) {
                    e.decode = false;
                }
                if inside {
                    continue;
                }
            }
        }
        widest = Some(i);
    }
    if reported > MAX_REPORTS {
        b.error(
            off,
            0,
            format!("{} more overlapping sections", reported - MAX_REPORTS),
        );
    }
}

/// One section header of the table, linked to its payload.
fn section_header(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64, xclbin: Span) {
    let SectionHeader {
        kind,
        offset: s_off,
        size: s_size,
        ..
    } = section_at(b, at);
    let name = read_name(b, at);
    let id = b.group(p, label(i, kind), at, SECTION_HEADER);
    b.set_key(id, key(kind, &name));
    b.set_value(
        id,
        format!("\"{name}\" at 0x{s_off:x}, {} bytes", Value::uint(s_size)),
    );
    let payload = (s_off < xclbin.len && s_size > 0)
        .then(|| (xclbin.offset + s_off, s_size.min(xclbin.len - s_off)));
    let nodes = SectionHeader::show(&mut Fields::new(b, id, at, LE));
    if let (Some((abs, size)), Some(o)) = (payload, nodes.offset) {
        b.link(o, b.span(abs, size));
    }
    if let Some((abs, size)) = payload {
        b.link(id, b.span(abs, size));
    }
}

/// Decodes one section's payload.
fn payload(b: &mut Builder<'_>, kind: u32, sec: Sec, ctx: &tables::Ctx) {
    match kind {
        kind::EMBEDDED_METADATA => {
            if sec.span.len > 0 {
                xml::tree(b, sec.node, sec.span);
            }
        }
        kind::MEM_TOPOLOGY | kind::ASK_GROUP_TOPOLOGY => tables::mem_topology(b, sec),
        kind::CONNECTIVITY => tables::connectivity(b, sec, ctx, false),
        kind::ASK_GROUP_CONNECTIVITY => tables::connectivity(b, sec, ctx, true),
        kind::IP_LAYOUT => tables::ip_layout(b, sec),
        kind::DEBUG_IP_LAYOUT => tables::debug_ip_layout(b, sec),
        kind::CLOCK_FREQ_TOPOLOGY => tables::clock_freq_topology(b, sec),
        kind::MCS => blobs::mcs(b, sec),
        kind::BMC => blobs::bmc(b, sec),
        kind::SOFT_KERNEL => blobs::soft_kernel(b, sec),
        kind::ASK_FLASH => blobs::flash(b, sec),
        kind::VENDER_METADATA => blobs::vender_metadata(b, sec),
        kind::AIE_PARTITION => aie::partition(b, sec, ctx.hw_gen),
        // An NPU xclbin's PDI holds AIE configuration: its addresses are
        // shown with their registers, as an AIE_PARTITION's images are.
        kind::PDI if ctx.npu && crate::formats::pdi::detect(b.bytes(sec.span)) => {
            crate::formats::pdi::parse_in_partition(b, sec.node, sec.span, &[], ctx.hw_gen);
        }
        kind::AIE_RESOURCES_BIN => blobs::aie_resources_bin(b, sec),
        k if is_json(k) => {
            if sec.span.len > 0 {
                json::tree(b, sec.node, sec.span);
            }
        }
        k if kind_name(k).is_some() => {
            if sec.span.len > 0 {
                b.nested(sec.node, sec.span);
            }
        }
        _ => {
            b.set_value(
                sec.node,
                Value::with(sec.span.len, Radix::Auto, " bytes of an unknown kind"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc() {
        assert_eq!(date(0).to_string(), "0 (not set)");
        assert_eq!(
            date(0x60a6_0140).to_string(),
            "1621492032 (2021-05-20 06:27:12 UTC)"
        );
        assert_eq!(
            date(4_107_542_399).to_string(),
            "4107542399 (2100-02-28 23:59:59 UTC)"
        );
        assert!(date(u64::MAX).to_string().ends_with("(not a date)"));
    }

    /// The layouts of XRT's `axlf_header` and `axlf_section_header`
    /// (xclbin.h), and its `axlf_section_kind` numbering.
    #[test]
    fn records_match_xrt_and_short_slices_are_errors() {
        let v_at = times::SIZE;
        let p_at = v_at + version::SIZE;
        assert_eq!((v_at, p_at), (0x18, 0x1c));
        assert_eq!(times::AT.m_feature_rom_time_stamp.off, 0x10);
        assert_eq!(p_at + platform::AT.m_interface_uuid.off, 0x20);
        assert_eq!(p_at + platform::AT.m_platform_vbnv.off, 0x30);
        assert_eq!(p_at + platform::AT.uuid.off, 0x70);
        assert_eq!(p_at + platform::AT.m_num_sections.off, 0x90);
        assert_eq!(p_at + platform::SIZE, SECTIONS - HEADER);
        assert_eq!(shdr::SIZE, 40);
        assert_eq!((shdr::AT.offset.off, shdr::AT.size.off), (0x18, 0x20));
        assert_eq!(shdr::AT.offset.through(shdr::AT.size).size, 16);
        assert!(SectionHeader::read(&[0; 39]).is_err());
        assert!(Platform::read(&[0; 0x7b]).is_err() && Platform::read(&[0; 0x7c]).is_ok());
        assert!(Times::read(&[0; 23]).is_err() && Version::read(&[0; 3]).is_err());
        assert!(kind::ALL.iter().enumerate().all(|(i, k)| k.0 as usize == i));
        assert_eq!((kind::MEM_TOPOLOGY, kind::ASK_GROUP_CONNECTIVITY), (6, 27));
        assert_eq!(kind_name(kind::DTBO), Some("DTBO"));
    }

    #[test]
    fn action_mask_names_its_bits() {
        assert_eq!(action_mask(0).to_string(), "0 (none)");
        assert_eq!(action_mask(3).to_string(), "3 (AM_LOAD_AIE | AM_LOAD_PDI)");
        assert_eq!(action_mask(5).to_string(), "5 (AM_LOAD_AIE | unknown 0x4)");
    }
}
