//! The layout of an XCLBIN file: its header and section header records,
//! section kinds, and the helpers the section decoders share (a section's
//! place, its strings, its arrays and table counts).

use std::collections::BTreeSet;

use crate::model::record::{record, At};
use crate::model::{text, Builder, Endian, Fields, NodeId, Radix, Raw, Span, Value};

pub const MAGIC: &[u8] = b"xclbin2\0";

pub(crate) const LE: Endian = Endian::Little;

/// Where the axlf_header starts.
pub(super) const HEADER: u64 = 0x130;
/// Where the section headers start.
pub(super) const SECTIONS: u64 = 0x1C8;
/// The size of one section header.
pub(super) const SECTION_HEADER: u64 = shdr::SIZE;

record! {
    /// `axlf_header` up to its version.
    pub(super) mod times: Times (LE) {
        m_length: u64 = "m_length", Show::Auto,
        m_time_stamp: u64 = "m_timeStamp", Show::Wide(date),
        m_feature_rom_time_stamp: u64 = "m_featureRomTimeStamp", Show::Wide(date),
    }
}

record! {
    /// `axlf_header`'s version, shown under one `version` node.
    pub(super) mod version: Version (LE) {
        patch: u16 = "m_versionPatch", Show::Auto,
        major: u8 = "m_versionMajor", Show::Auto,
        minor: u8 = "m_versionMinor", Show::Auto,
    }
}

record! {
    /// `axlf_header` after its version.
    pub(super) mod platform: Platform (LE) {
        m_mode: u16 = "m_mode", Show::Named(mode_name),
        m_action_mask: u16 = "m_actionMask", Show::Wide(action_mask),
        m_interface_uuid: [u8; 16] = "m_interface_uuid", Show::Uuid,
        m_platform_vbnv: [u8; 64] = "m_platformVBNV", Show::Text,
        uuid: [u8; 16] = "uuid", Show::Uuid,
        m_debug_bin: [u8; 16] = "m_debug_bin", Show::Text,
        m_num_sections: u32 = "m_numSections", Show::Auto,
        padding: [u8; 4] = "padding", Show::Bytes,
    }
}

record! {
    /// One section header (`axlf_section_header`).
    pub(super) mod shdr: SectionHeader (LE) {
        kind: u32 = "m_sectionKind", Show::Named(|v| kind_name(v as u32)),
        name: [u8; 16] = "m_sectionName", Show::Text,
        padding: [u8; 4] = "padding", Show::Bytes,
        offset: u64 = "m_sectionOffset", Show::Hex,
        size: u64 = "m_sectionSize", Show::Auto,
    }
}

record! {
    /// An `array_offset`: how many entries an array has and where it is,
    /// from the section start.
    pub(crate) mod array_offset: ArrayOffset (LE) {
        size: u32 = "size", Show::Auto,
        offset: u32 = "offset", Show::Hex,
    }
}

/// The `array_offset` at `at` as (count, offset from the section start),
/// or `None` where it is not all there.
pub(crate) fn array_at(b: &Builder<'_>, at: u64) -> Option<(u64, u64)> {
    ArrayOffset::read(b.slice(at, array_offset::SIZE))
        .ok()
        .map(|a| (u64::from(a.size), u64::from(a.offset)))
}

/// The section header at `at`: all zeros where it is not all there.
pub(super) fn section_at(b: &Builder<'_>, at: u64) -> SectionHeader {
    SectionHeader::read(b.slice(at, SECTION_HEADER)).unwrap_or(SectionHeader {
        kind: 0,
        name: [0; 16],
        padding: [0; 4],
        offset: 0,
        size: 0,
    })
}
/// The most sections XRT accepts.
pub const MAX_SECTIONS: u64 = 0x10000;
/// How many diagnostics of one kind a table reports before it sums up.
pub(crate) const MAX_REPORTS: u64 = 100;
/// The longest string value shown in full, in characters.
pub(super) const MAX_SHOWN: usize = 256;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

/// Declares the section kinds once: a constant each, and the table of
/// their names.
macro_rules! kinds {
    ($($name:ident = $v:literal,)*) => {
        /// The section kinds (`axlf_section_kind`).
        pub mod kind {
            $(pub const $name: u32 = $v;)*
            /// Every kind and its name, in order of value.
            pub const ALL: &[(u32, &str)] = &[$(($v, stringify!($name)),)*];
        }
    };
}

kinds! {
    BITSTREAM = 0,
    CLEARING_BITSTREAM = 1,
    EMBEDDED_METADATA = 2,
    FIRMWARE = 3,
    DEBUG_DATA = 4,
    SCHED_FIRMWARE = 5,
    MEM_TOPOLOGY = 6,
    CONNECTIVITY = 7,
    IP_LAYOUT = 8,
    DEBUG_IP_LAYOUT = 9,
    DESIGN_CHECK_POINT = 10,
    CLOCK_FREQ_TOPOLOGY = 11,
    MCS = 12,
    BMC = 13,
    BUILD_METADATA = 14,
    KEYVALUE_METADATA = 15,
    USER_METADATA = 16,
    DNA_CERTIFICATE = 17,
    PDI = 18,
    BITSTREAM_PARTIAL_PDI = 19,
    PARTITION_METADATA = 20,
    EMULATION_DATA = 21,
    SYSTEM_METADATA = 22,
    SOFT_KERNEL = 23,
    ASK_FLASH = 24,
    AIE_METADATA = 25,
    ASK_GROUP_TOPOLOGY = 26,
    ASK_GROUP_CONNECTIVITY = 27,
    SMARTNIC = 28,
    AIE_RESOURCES = 29,
    OVERLAY = 30,
    VENDER_METADATA = 31,
    AIE_PARTITION = 32,
    IP_METADATA = 33,
    AIE_RESOURCES_BIN = 34,
    AIE_TRACE_METADATA = 35,
    DTBO = 36,
}

/// The name of a section kind (`axlf_section_kind`).
pub fn kind_name(k: u32) -> Option<&'static str> {
    kind::ALL.iter().find(|e| e.0 == k).map(|e| e.1)
}

pub(super) fn mode_name(m: u64) -> Option<&'static str> {
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
pub(super) fn is_json(k: u32) -> bool {
    matches!(
        k,
        kind::BUILD_METADATA
            | kind::KEYVALUE_METADATA
            | kind::PARTITION_METADATA
            | kind::SYSTEM_METADATA
            | kind::AIE_METADATA
            | kind::IP_METADATA
            | kind::AIE_TRACE_METADATA
    )
}

// ---- shared helpers for the section decoders ----

/// A section's payload: its range (cut to the file) and its node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sec {
    pub span: Span,
    pub node: NodeId,
}

impl Sec {
    pub fn end(&self) -> u64 {
        self.span.end()
    }
    /// The absolute offset `rel` bytes into the section: where what
    /// follows a head of `rel` bytes starts.
    pub fn at(&self, rel: u64) -> u64 {
        self.span.offset.saturating_add(rel)
    }
    /// The absolute offset of `[rel, rel+size)` if it lies in the section.
    pub fn range(&self, rel: u64, size: u64) -> Option<u64> {
        (rel <= self.span.len && size <= self.span.len - rel).then(|| self.span.offset + rel)
    }
    /// True if the section has `need` bytes; otherwise reports it.
    pub fn need(&self, b: &mut Builder<'_>, need: u64, what: &str) -> bool {
        if self.span.len >= need {
            return true;
        }
        b.error(
            self.span.offset,
            self.span.len,
            format!(
                "{what} needs {need} bytes; the section has {}",
                self.span.len
            ),
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
        let to = f.place(abs, size.max(1));
        f.builder().link(id, to);
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
                    sec.span.len
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
    let Some((count, rel)) = array_at(f.builder(), at) else {
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
    ArrayOffset::show(f);
    f.under(p);
    if count > 0 && rel < sec.span.len {
        let size = count.saturating_mul(elem).min(sec.span.len - rel);
        let to = f.place(sec.span.offset + rel, size);
        f.builder().link(id, to);
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
    if rel >= sec.span.len {
        b.error(
            field_off,
            8,
            format!(
                "{what}: array offset 0x{rel:x} lies outside its section ({} bytes)",
                sec.span.len
            ),
        );
        return None;
    }
    let room = sec.span.len - rel;
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
    Some((sec.span.offset + rel, n))
}

/// Reads a table's entry count (the field `count` of the section's head,
/// signed if `signed`), adds it as a node and checks that `count` entries
/// of `stride` bytes after the `head` bytes of the head fit in the
/// section. Returns how many fit.
pub(crate) fn table_count(
    b: &mut Builder<'_>,
    sec: Sec,
    name: &str,
    (count, signed): (At, bool),
    head: u64,
    stride: u64,
) -> u64 {
    let (off, size) = (count.of(sec.span.offset), count.size);
    let start = sec.span.offset.saturating_add(head);
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

pub(super) fn date(v: u64) -> Value {
    match i64::try_from(v).ok().filter(|&s| text::utc(s).is_some()) {
        _ if v == 0 => Value::note(Raw::U(0), "not set"),
        Some(s) => Value::Date(s),
        None => Value::note(Raw::U(v), "not a date"),
    }
}

pub(super) fn action_mask(v: u64) -> Value {
    const ACTIONS: &[(u64, &str)] = &[(1, "AM_LOAD_AIE"), (2, "AM_LOAD_PDI")];
    let names = if v == 0 {
        "none".to_string()
    } else {
        text::flag_names(v, ACTIONS, "unknown ")
    };
    Value::with(v, Radix::Dec, format!(" ({names})"))
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
