//! AMD/Xilinx XCLBIN (`xclbin2\0`), the container Vitis writes for Alveo,
//! Kria and Zynq FPGAs and for Ryzen AI NPUs: a fixed header, a table of
//! section headers, and the sections' payloads. Layouts follow XRT's
//! `xclbin.h`; every offset in the file is from the start of the xclbin,
//! and every offset inside a section from the start of that section.

mod aie;
mod blobs;
mod mirror;
mod tables;

use std::collections::BTreeSet;

use crate::formats::{json, xml};
use crate::model::{
    read_uint, text, Builder, Configures, Endian, Fact, Fields, Format, NodeId, Radix, Raw, Value,
};

pub const MAGIC: &[u8] = b"xclbin2\0";

pub(crate) const LE: Endian = Endian::Little;

/// Where the axlf_header starts.
const HEADER: u64 = 0x130;
/// Where the section headers start.
const SECTIONS: u64 = 0x1C8;
/// The size of one section header.
const SECTION_HEADER: u64 = 40;
/// The most sections XRT accepts.
pub const MAX_SECTIONS: u64 = 0x10000;
/// How many diagnostics of one kind a table reports before it sums up.
pub(crate) const MAX_REPORTS: u64 = 100;
/// The longest string value shown in full, in characters.
const MAX_SHOWN: usize = 256;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

/// The name of a section kind (`axlf_section_kind`).
pub fn kind_name(k: u32) -> Option<&'static str> {
    Some(match k {
        0 => "BITSTREAM",
        1 => "CLEARING_BITSTREAM",
        2 => "EMBEDDED_METADATA",
        3 => "FIRMWARE",
        4 => "DEBUG_DATA",
        5 => "SCHED_FIRMWARE",
        6 => "MEM_TOPOLOGY",
        7 => "CONNECTIVITY",
        8 => "IP_LAYOUT",
        9 => "DEBUG_IP_LAYOUT",
        10 => "DESIGN_CHECK_POINT",
        11 => "CLOCK_FREQ_TOPOLOGY",
        12 => "MCS",
        13 => "BMC",
        14 => "BUILD_METADATA",
        15 => "KEYVALUE_METADATA",
        16 => "USER_METADATA",
        17 => "DNA_CERTIFICATE",
        18 => "PDI",
        19 => "BITSTREAM_PARTIAL_PDI",
        20 => "PARTITION_METADATA",
        21 => "EMULATION_DATA",
        22 => "SYSTEM_METADATA",
        23 => "SOFT_KERNEL",
        24 => "ASK_FLASH",
        25 => "AIE_METADATA",
        26 => "ASK_GROUP_TOPOLOGY",
        27 => "ASK_GROUP_CONNECTIVITY",
        28 => "SMARTNIC",
        29 => "AIE_RESOURCES",
        30 => "OVERLAY",
        31 => "VENDER_METADATA",
        32 => "AIE_PARTITION",
        33 => "IP_METADATA",
        34 => "AIE_RESOURCES_BIN",
        35 => "AIE_TRACE_METADATA",
        36 => "DTBO",
        _ => return None,
    })
}

fn mode_name(m: u64) -> Option<&'static str> {
    Some(match m {
        0 => "XCLBIN_FLAT",
        1 => "XCLBIN_PR",
        2 => "XCLBIN_TANDEM_STAGE2",
        3 => "XCLBIN_TANDEM_STAGE2_WITH_PR",
        4 => "XCLBIN_HW_EMU",
        5 => "XCLBIN_SW_EMU",
        6 => "XCLBIN_HW_EMU_PR",
        _ => return None,
    })
}

/// Kinds whose payload is JSON text.
fn is_json(k: u32) -> bool {
    matches!(k, 14 | 15 | 20 | 22 | 25 | 33 | 35)
}

// ---- shared helpers for the section decoders ----

/// A section's payload: its absolute range (cut to the file) and its node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sec {
    pub abs: u64,
    pub len: u64,
    pub node: NodeId,
}

impl Sec {
    pub fn end(&self) -> u64 {
        self.abs.saturating_add(self.len)
    }
    /// The absolute offset of `[rel, rel+size)` if it lies in the section.
    pub fn range(&self, rel: u64, size: u64) -> Option<u64> {
        (rel <= self.len && size <= self.len - rel).then(|| self.abs + rel)
    }
    /// True if the section has `need` bytes; otherwise reports it.
    pub fn need(&self, b: &mut Builder<'_>, need: u64, what: &str) -> bool {
        if self.len >= need {
            return true;
        }
        b.error(
            self.abs,
            self.len,
            format!("{what} needs {need} bytes; the section has {}", self.len),
        );
        false
    }
}

/// Cuts a long text for showing.
pub(crate) fn short(s: String) -> String {
    if s.chars().count() > MAX_SHOWN {
        let mut t: String = s.chars().take(MAX_SHOWN).collect();
        t.push('…');
        t
    } else {
        s
    }
}

/// The NUL-terminated string `rel` bytes into the section: its absolute
/// offset, size (with its NUL if found), text, and whether a NUL ends it.
pub(crate) fn sec_str(b: &Builder<'_>, sec: Sec, rel: u64) -> Option<(u64, u64, String, bool)> {
    let abs = sec.range(rel, 1)?;
    let (bytes, nul) = b.read_cstr(abs, sec.end())?;
    let size = bytes.len() as u64 + u64::from(nul);
    Some((abs, size, short(text::from_bytes(bytes)), nul))
}

/// An `mpo_*` field: a u32 offset of a string from the section start,
/// shown with the string and linked to it. Returns the offset.
pub(crate) fn mpo_field(f: &mut Fields<'_, '_>, name: &str, sec: Sec) -> Option<u64> {
    let Some(rel) = f.peek(f.at(), 4) else {
        return f.u32(name);
    };
    let found = sec_str(f.builder(), sec, rel);
    let v = match &found {
        Some((_, _, s, _)) => Value::with(rel, Radix::Hex, format!(" -> \"{s}\"")),
        None => Value::with(rel, Radix::Hex, " (outside the section)"),
    };
    f.field(name, 4, |_| v)?;
    if let (Some((abs, size, _, _)), Some(id)) = (found, f.last()) {
        f.builder().link(id, abs, size.max(1));
    }
    Some(rel)
}

/// The strings of a section that have nodes, and the bytes they may not
/// cover (the section's fixed header).
pub(crate) struct Strings {
    seen: BTreeSet<u64>,
    protect: u64,
}

impl Strings {
    pub fn new(protect: u64) -> Self {
        Strings {
            seen: BTreeSet::new(),
            protect,
        }
    }

    /// Checks the string an `mpo_*` field at `field_off` names: an error
    /// if it lies outside the section, a warning if no NUL ends it. Adds a
    /// node for it under the section (once). Returns its text.
    pub fn check(
        &mut self,
        b: &mut Builder<'_>,
        sec: Sec,
        rel: u64,
        field_off: u64,
        what: &str,
    ) -> Option<String> {
        let Some((abs, size, s, nul)) = sec_str(b, sec, rel) else {
            b.error(
                field_off,
                4,
                format!(
                    "{what}: string offset 0x{rel:x} lies outside its section ({} bytes)",
                    sec.len
                ),
            );
            return None;
        };
        if !nul {
            b.warn(
                abs,
                size,
                format!("{what}: the string at +0x{rel:x} has no NUL before the section ends"),
            );
        }
        if rel >= self.protect && self.seen.insert(rel) {
            b.leaf(
                sec.node,
                format!("str +0x{rel:x}"),
                abs,
                size,
                Value::str(&s),
            );
        }
        Some(s)
    }
}

/// An `array_offset` field ({u32 count, u32 offset from the section
/// start}) as a node with both, linked to the array. Returns both.
pub(crate) fn arr_field(
    f: &mut Fields<'_, '_>,
    name: &str,
    sec: Sec,
    elem: u64,
) -> Option<(u64, u64)> {
    let at = f.at();
    let (Some(count), Some(rel)) = (f.peek(at, 4), f.peek(at + 4, 4)) else {
        f.u64(name);
        return None;
    };
    let what = match elem {
        1 => format!(" bytes at +0x{rel:x}"),
        e => format!(" × {e} bytes at +0x{rel:x}"),
    };
    f.field(name, 8, |_| Value::with(count, Radix::Dec, what))?;
    let (p, id) = (f.parent(), f.last()?);
    f.seek(at);
    f.under(id);
    f.u32("size");
    f.hex("offset", 4);
    f.under(p);
    if count > 0 && rel < sec.len {
        let size = count.saturating_mul(elem).min(sec.len - rel);
        f.builder().link(id, sec.abs + rel, size);
    }
    Some((count, rel))
}

/// Checks an array an `array_offset` at `field_off` names. Returns its
/// absolute offset and how many entries fit in the section.
pub(crate) fn check_arr(
    b: &mut Builder<'_>,
    sec: Sec,
    field_off: u64,
    (count, rel): (u64, u64),
    elem: u64,
    what: &str,
) -> Option<(u64, u64)> {
    if count == 0 {
        return None;
    }
    if rel >= sec.len {
        b.error(
            field_off,
            8,
            format!(
                "{what}: array offset 0x{rel:x} lies outside its section ({} bytes)",
                sec.len
            ),
        );
        return None;
    }
    let room = sec.len - rel;
    let need = count.saturating_mul(elem);
    let n = if need > room {
        let n = room / elem.max(1);
        b.error(
            field_off,
            8,
            format!(
                "{what}: {count} entries of {elem} bytes at +0x{rel:x} need {need} bytes; only {room} remain in the section; showing {n}"
            ),
        );
        n
    } else {
        count
    };
    Some((sec.abs + rel, n))
}

/// Reads a table's entry count at `off` (`size` bytes, signed if
/// `signed`), adds it as a node and checks that `count` entries of
/// `stride` bytes from `start` fit in the section. Returns how many fit.
#[allow(clippy::too_many_arguments)]
pub(crate) fn table_count(
    b: &mut Builder<'_>,
    sec: Sec,
    name: &str,
    off: u64,
    size: u64,
    signed: bool,
    start: u64,
    stride: u64,
) -> u64 {
    let mut f = Fields::new(b, sec.node, off, LE);
    let count = if signed {
        match f.int(name, size) {
            Some(c) if c < 0 => {
                b.error(off, size, format!("{name} is negative ({c})"));
                0
            }
            Some(c) => c as u64,
            None => 0,
        }
    } else {
        f.uint(name, size).unwrap_or(0)
    };
    let room = sec.end().saturating_sub(start);
    let need = count.saturating_mul(stride);
    if need > room {
        let n = room / stride.max(1);
        b.error(
            off,
            size,
            format!(
                "{name} {count} needs {need} bytes of {stride}-byte entries; the section has {room} after its head; showing {n}"
            ),
        );
        return n;
    }
    count
}

fn date(v: u64) -> Value {
    match i64::try_from(v).ok().filter(|&s| text::utc(s).is_some()) {
        _ if v == 0 => Value::note(Raw::U(0), "not set"),
        Some(s) => Value::Date(s),
        None => Value::note(Raw::U(v), "not a date"),
    }
}

fn action_mask(v: u64) -> Value {
    const ACTIONS: &[(u64, &str)] = &[(1, "AM_LOAD_AIE"), (2, "AM_LOAD_PDI")];
    let names = if v == 0 {
        "none".to_string()
    } else {
        text::flag_names(v, ACTIONS, "unknown ")
    };
    Value::with(v, Radix::Dec, format!(" ({names})"))
}

/// Decodes the xclbin in `[off, off+len)` under `parent`.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    b.leaf(parent, "magic", off, 8, Value::str("xclbin2"));
    if len < SECTIONS {
        b.error(
            off,
            len,
            format!("truncated: the xclbin header needs {SECTIONS} bytes, the file has {len}"),
        );
    }
    let mut f = Fields::new(b, parent, off + 8, LE);
    let sig = f
        .with("m_signature_length", 4, |v| match v as u32 as i32 {
            -1 => Value::note(Raw::I(-1), "no signature"),
            n if n >= 0 => Value::with(n as u64, Radix::Dec, " bytes (signed)"),
            n => Value::note(Raw::I(i64::from(n)), "corrupt"),
        })
        .map(|v| v as u32 as i32);
    if let Some(s) = sig.filter(|&s| s < -1) {
        f.builder().error(
            off + 8,
            4,
            format!("signature length {s} is corrupt (below -1)"),
        );
    }
    // Each field is shown when the range holds it.
    if len >= 0x28 {
        f.bytes("reserved", 28);
    }
    if len >= 0x128 {
        f.bytes("m_keyBlock", 256);
    }
    if len >= HEADER {
        f.hex_wide("m_uniqueId", 8);
    }
    if len < SECTIONS {
        return;
    }
    let h = off + HEADER;
    let hdr = b.group(parent, "header", h, SECTIONS - HEADER);
    let mut f = Fields::new(b, hdr, h, LE);
    let m_length = f.u64("m_length").unwrap_or(len);
    if m_length > len {
        f.builder().error(
            h,
            8,
            format!(
                "m_length is {m_length} bytes but the file has only {len}: the xclbin is truncated"
            ),
        );
    } else if m_length < len {
        f.builder().warn(
            h,
            8,
            format!(
                "m_length is {m_length} bytes; {} bytes follow the xclbin",
                len - m_length
            ),
        );
    }
    f.with("m_timeStamp", 8, date);
    f.with("m_featureRomTimeStamp", 8, date);
    let patch = f.peek(h + 0x18, 2).unwrap_or(0);
    let major = f.peek(h + 0x1A, 1).unwrap_or(0);
    let minor = f.peek(h + 0x1B, 1).unwrap_or(0);
    let ver = f.builder().leaf(
        hdr,
        "version",
        h + 0x18,
        4,
        format!("{major}.{minor}.{patch}"),
    );
    f.under(ver);
    f.u16("m_versionPatch");
    f.u8("m_versionMajor");
    f.u8("m_versionMinor");
    f.under(hdr);
    f.named("m_mode", 2, mode_name);
    f.with("m_actionMask", 2, action_mask);
    f.uuid("m_interface_uuid");
    let vbnv = f.text("m_platformVBNV", 64);
    f.uuid("uuid");
    f.text("m_debug_bin", 16);
    let n = f.u32("m_numSections").unwrap_or(0);
    f.bytes("padding", 4);

    // A signed xclbin ends with its signature, counted in m_length.
    if let Some(s) = sig.filter(|&s| s > 0) {
        let s = s as u64;
        match m_length.checked_sub(s) {
            Some(at) if m_length <= len && at >= SECTIONS => {
                b.leaf(
                    parent,
                    "signature",
                    off + at,
                    s,
                    format!("PKCS#7 signature, {} bytes", Value::uint(s)),
                );
            }
            _ => b.error(
                off + 8,
                4,
                format!("the {s}-byte signature does not fit before m_length ({m_length})"),
            ),
        }
    }

    // The section table.
    let room = (len - SECTIONS) / SECTION_HEADER;
    if n > MAX_SECTIONS {
        b.error(
            h + 0x90,
            4,
            format!("m_numSections is {n}; XRT accepts at most {MAX_SECTIONS}"),
        );
    }
    let mut count = n.min(MAX_SECTIONS);
    if count > room {
        b.error(
            h + 0x90,
            4,
            format!(
                "m_numSections {n} needs {} bytes of section headers; the file has room for {room}",
                n.saturating_mul(SECTION_HEADER)
            ),
        );
        count = room;
    }
    let table_end = SECTIONS + count * SECTION_HEADER;
    let base = off;
    let xlen = len;
    let elem: crate::model::ElemFn = std::sync::Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        section_header(b, p, i, at, base, xlen);
    });
    b.array(
        parent,
        "sections",
        off + SECTIONS,
        count,
        SECTION_HEADER,
        elem,
    );

    let mut secs: Vec<Entry> = Vec::new();
    for i in 0..count {
        let at = off + SECTIONS + i * SECTION_HEADER;
        let kind = read_uint(b, at, 4, LE).unwrap_or(0) as u32;
        let s_off = read_uint(b, at + 0x18, 8, LE).unwrap_or(0);
        let s_size = read_uint(b, at + 0x20, 8, LE).unwrap_or(0);
        let label = label(i, kind);
        if kind_name(kind).is_none() {
            // Newer tools write kinds this reader does not know yet: an
            // info, since the file may well be valid.
            b.info(
                at,
                4,
                format!("{label}: unknown section kind {kind}; shown as raw bytes"),
            );
        }
        let inside = s_off <= len && s_size <= len - s_off;
        if !inside {
            b.error(
                at + 0x18,
                16,
                format!("{label}: [0x{s_off:x}+0x{s_size:x}] lies outside the file ({len} bytes)"),
            );
        }
        if s_size > 0 && s_off < table_end {
            b.error(
                at + 0x18,
                8,
                format!("{label}: offset 0x{s_off:x} lies in the xclbin header or section table (which end at 0x{table_end:x})"),
            );
        }
        let cut = if s_off < len {
            s_size.min(len - s_off)
        } else {
            0
        };
        secs.push(Entry {
            index: i,
            kind,
            rel: s_off,
            size: cut,
            in_file: s_off <= len,
            decode: s_off >= table_end,
        });
    }
    overlaps(b, off, &mut secs);

    // One node per payload.
    let mut sec_of: Vec<Option<Sec>> = Vec::with_capacity(secs.len());
    for e in &secs {
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
            abs,
            len: e.size,
            node,
        }));
    }
    let last = secs
        .iter()
        .filter(|e| e.in_file)
        .map(|e| e.rel.saturating_add(e.size))
        .fold(table_end, u64::max);
    mirror::parse(b, parent, off, len, off.saturating_add(last), count);
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
            payload(b, e.kind, sec, &ctx);
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

/// What the section table says of one section.
pub(crate) struct Entry {
    pub index: u64,
    pub kind: u32,
    /// Offset from the xclbin start.
    pub rel: u64,
    /// Size, cut to the file.
    pub size: u64,
    pub in_file: bool,
    /// False when its bytes overlap the header or an earlier section.
    pub decode: bool,
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
    b.read_bytes(hdr + 4, 16)
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
fn section_header(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64, base: u64, len: u64) {
    let kind = read_uint(b, at, 4, LE).unwrap_or(0) as u32;
    let name = read_name(b, at);
    let s_off = read_uint(b, at + 0x18, 8, LE).unwrap_or(0);
    let s_size = read_uint(b, at + 0x20, 8, LE).unwrap_or(0);
    let id = b.group(p, label(i, kind), at, SECTION_HEADER);
    b.set_key(id, key(kind, &name));
    b.set_value(
        id,
        format!("\"{name}\" at 0x{s_off:x}, {} bytes", Value::uint(s_size)),
    );
    let payload = (s_off < len && s_size > 0).then(|| (base + s_off, s_size.min(len - s_off)));
    let mut f = Fields::new(b, id, at, LE);
    f.named("m_sectionKind", 4, |v| kind_name(v as u32));
    f.text("m_sectionName", 16);
    f.bytes("padding", 4);
    f.hex("m_sectionOffset", 8);
    if let (Some((abs, size)), Some(o)) = (payload, f.last().filter(|_| f.ok())) {
        f.builder().link(o, abs, size);
    }
    f.u64("m_sectionSize");
    if let Some((abs, size)) = payload {
        b.link(id, abs, size);
    }
}

/// Decodes one section's payload.
fn payload(b: &mut Builder<'_>, kind: u32, sec: Sec, ctx: &tables::Ctx) {
    match kind {
        2 => {
            if sec.len > 0 {
                xml::tree(b, sec.node, sec.abs, sec.len);
            }
        }
        6 | 26 => tables::mem_topology(b, sec),
        7 => tables::connectivity(b, sec, ctx, false),
        27 => tables::connectivity(b, sec, ctx, true),
        8 => tables::ip_layout(b, sec),
        9 => tables::debug_ip_layout(b, sec),
        11 => tables::clock_freq_topology(b, sec),
        12 => blobs::mcs(b, sec),
        13 => blobs::bmc(b, sec),
        23 => blobs::soft_kernel(b, sec),
        24 => blobs::flash(b, sec),
        31 => blobs::vender_metadata(b, sec),
        32 => aie::partition(b, sec, ctx.hw_gen),
        // An NPU xclbin's PDI holds AIE configuration: its addresses are
        // shown with their registers, as an AIE_PARTITION's images are.
        18 if ctx.npu && crate::formats::pdi::detect(b.slice(sec.abs, sec.len)) => {
            crate::formats::pdi::parse_in_partition(b, sec.node, sec.abs, sec.len, &[], ctx.hw_gen);
        }
        34 => blobs::aie_resources_bin(b, sec),
        k if is_json(k) => {
            if sec.len > 0 {
                json::tree(b, sec.node, sec.abs, sec.len);
            }
        }
        k if kind_name(k).is_some() => {
            if sec.len > 0 {
                b.nested(sec.node, sec.abs, sec.len);
            }
        }
        _ => {
            b.set_value(
                sec.node,
                Value::with(sec.len, Radix::Auto, " bytes of an unknown kind"),
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

    #[test]
    fn action_mask_names_its_bits() {
        assert_eq!(action_mask(0).to_string(), "0 (none)");
        assert_eq!(action_mask(3).to_string(), "3 (AM_LOAD_AIE | AM_LOAD_PDI)");
        assert_eq!(action_mask(5).to_string(), "5 (AM_LOAD_AIE | unknown 0x4)");
    }
}
