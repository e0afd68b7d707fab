//! AMD partial PDI images (SelectMAP pattern, image header table, image
//! headers, partition headers) and the CDO command streams inside them. A
//! bare CDO (a file that starts with a CDO header) is read as well.

use std::sync::Arc;

use super::cdo::{self, Compact, Ctx};
use crate::model::record::record;
use crate::model::{named, num, text, Builder, Endian, Fields, Format, NodeId, Radix, Span, Value};

const LE: Endian = Endian::Little;

/// The SelectMAP bus-width pattern a PDI starts with (32-bit bus).
pub const SELECTMAP32: [u8; 16] = [
    0xdd, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 0xcc, 0xbb, 0xaa, 0x99,
];
/// The same pattern written for a 16-bit bus.
pub const SELECTMAP16: [u8; 16] = [
    0, 0, 0xdd, 0, 0x22, 0x11, 0x44, 0x33, 0x66, 0x55, 0x88, 0x77, 0xaa, 0x99, 0xcc, 0xbb,
];
/// The same pattern written for an 8-bit bus.
pub const SELECTMAP8: [u8; 16] = [
    0, 0, 0, 0xdd, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
];

/// The partial PDI identification "PPDI" (and "FPDI" for a full boot PDI),
/// read as a little-endian word.
const PPDI: u32 = 0x5050_4449;
const FPDI: u32 = 0x4650_4449;

record! {
    /// The image header table, at +0x10 of the PDI (after the SelectMAP
    /// pattern). Offsets are in words from the PDI's start.
    mod image_header_table: ImageHeaderTable (LE) {
        version: u32 = "version", Show::Wide(version_value),
        image_count: u32 = "image_count", Show::Auto,
        image_header_offset: u32 = "image_header_offset",
            Show::Wide(|v| offset_value(v, "the first image header")),
        partition_count: u32 = "partition_count", Show::Auto,
        partition_header_offset: u32 = "partition_header_offset",
            Show::Wide(|v| offset_value(v, "the first partition header")),
        secondary_boot_device_address: u32 = "secondary_boot_device_address", Show::HexWide,
        idcode: u32 = "idcode", Show::HexWide,
        attributes: u32 = "attributes", Show::Wide(|v| attributes_value(v, "")),
        pdi_id: u32 = "pdi_id", Show::HexWide,
        parent_id: u32 = "parent_id", Show::HexWide,
        identification: u32 = "identification", Show::Value(identification_value),
        header_sizes: u32 = "header_sizes", Show::Wide(header_sizes_value),
        meta_header_length: u32 = "meta_header_length", Show::Wide(words_value),
        meta_header_secure_iv: [u8; 12] = "meta_header_secure_iv", Show::Span(bytes_value),
        meta_header_key_source: u32 = "meta_header_key_source", Show::Wide(key_source_value),
        extended_idcode: u32 = "extended_idcode", Show::HexWide,
        auth_certificate_offset: u32 = "auth_certificate_offset",
            Show::Wide(|v| offset_value(v, "the header authentication certificate")),
        meta_header_grey_black_iv: [u8; 12] = "meta_header_grey_black_iv", Show::Span(bytes_value),
        reserved: [u8; 36] = "reserved", Show::Span(bytes_value),
        /// Shown with the sum it checks ([`checksum_field`]).
        checksum: u32 = "checksum", Show::Hidden,
    }
}

record! {
    /// An image header.
    mod image_header: ImageHeader (LE) {
        partition_header_offset: u32 = "partition_header_offset",
            Show::Wide(|v| offset_value(v, "its first partition header")),
        partition_count: u32 = "partition_count", Show::Auto,
        revoke_id: u32 = "revoke_id", Show::HexWide,
        attributes: u32 = "attributes", Show::Wide(|v| attributes_value(v, "")),
        name: [u8; 16] = "name", Show::Text,
        image_id: u32 = "image_id", Show::HexWide,
        unique_id: u32 = "unique_id", Show::HexWide,
        parent_unique_id: u32 = "parent_unique_id", Show::HexWide,
        function_id: u32 = "function_id", Show::HexWide,
        memcpy_address_low: u32 = "memcpy_address_low", Show::HexWide,
        memcpy_address_high: u32 = "memcpy_address_high", Show::HexWide,
        reserved: u32 = "reserved", Show::HexWide,
        /// Shown with the sum it checks ([`checksum_field`]).
        checksum: u32 = "checksum", Show::Hidden,
    }
}

record! {
    /// A partition header. Lengths are in words; the data offset is in
    /// words from the PDI's start. The compact layout's marker words sit in
    /// the reserved bytes.
    mod partition_header: PartitionHeader (LE) {
        encrypted_length: u32 = "encrypted_length", Show::Wide(words_value),
        unencrypted_length: u32 = "unencrypted_length", Show::Wide(words_value),
        total_length: u32 = "total_length", Show::Wide(words_value),
        next_partition_header: u32 = "next_partition_header",
            Show::Wide(|v| offset_value(v, "the next partition header (0: none)")),
        exec_address: u64 = "exec_address", Show::HexWide,
        load_address: u64 = "load_address", Show::Wide(load_address_value),
        /// Shown with the partition type the attributes give.
        data_offset: u32 = "data_offset", Show::Hidden,
        attributes: u32 = "attributes", Show::Wide(partition_attributes_value),
        section_count: u32 = "section_count", Show::Auto,
        checksum_offset: u32 = "checksum_offset", Show::HexWide,
        partition_id: u32 = "partition_id", Show::HexWide,
        auth_certificate_offset: u32 = "auth_certificate_offset", Show::HexWide,
        secure_header_iv: [u8; 12] = "secure_header_iv", Show::Span(bytes_value),
        key_source: u32 = "key_source", Show::Wide(key_source_value),
        grey_black_iv: [u8; 12] = "grey_black_iv", Show::Span(bytes_value),
        revoke_id: u32 = "revoke_id", Show::HexWide,
        /// Shown by whether the header has the compact layout's marker.
        reserved: [u8; 24] = "reserved", Show::Hidden,
        compact_flag: u32 = "compact_flag", Show::Hidden,
        compact_record_bytes: u32 = "compact_record_bytes", Show::Hidden,
        compact_marker: u32 = "compact_marker", Show::Hidden,
        /// Shown with the sum it checks ([`checksum_field`]).
        checksum: u32 = "checksum", Show::Hidden,
    }
}

/// Header sizes, in bytes.
const IHT_LEN: u64 = image_header_table::SIZE;
const IH_LEN: u64 = image_header::SIZE;
const PH_LEN: u64 = partition_header::SIZE;

/// Where the image header table starts in a PDI: after the SelectMAP
/// pattern.
const TABLE_AT: u64 = SELECTMAP32.len() as u64;

/// More images or partitions than this are not shown (the loader supports
/// 32 partitions).
const MAX_ENTRIES: u64 = 256;

/// The compact layout's marker in partition header word +0x78 (low half).
const COMPACT_MAGIC: u32 = 0x8966;

/// The SelectMAP bus width `d` starts with, if any.
pub fn selectmap_width(d: &[u8]) -> Option<u32> {
    let p = d.get(..16)?;
    if p == SELECTMAP32 {
        Some(32)
    } else if p == SELECTMAP16 {
        Some(16)
    } else if p == SELECTMAP8 {
        Some(8)
    } else {
        None
    }
}

pub fn detect(d: &[u8]) -> bool {
    selectmap_width(d).is_some() || cdo::is_cdo(d)
}

pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    parse_with(b, parent, at, Ctx::default());
}

/// Parses a PDI that an AIE partition carries: like [`parse`], and shows
/// which physical columns the partition may start at beside each decoded
/// AIE address, and the register each address names (of the generation
/// `hw_gen` gives, the xclbin's AIE_METADATA one; see [`Ctx::partition`]).
pub fn parse_in_partition(
    b: &mut Builder<'_>,
    parent: NodeId,
    at: Span,
    start_columns: &[u16],
    hw_gen: Option<u64>,
) {
    if detect(b.bytes(at)) {
        b.set_format(parent, Format::Pdi);
        parse_with(b, parent, at, Ctx::partition(start_columns, hw_gen));
    }
}

fn parse_with(b: &mut Builder<'_>, parent: NodeId, at: Span, ctx: Ctx) {
    let end = at.end().min(b.file_len());
    let ctx = Arc::new(ctx);
    let Some(width) = selectmap_width(b.slice(at.offset, 16)) else {
        if cdo::is_cdo(b.slice(at.offset, 20)) {
            cdo::parse(b, parent, at, &ctx, None);
        }
        return;
    };
    let pattern = b.slice(at.offset, 16);
    b.leaf(
        parent,
        "selectmap",
        at.offset,
        16,
        format!(
            "SelectMAP bus-width pattern for a {width}-bit bus: {}",
            text::hex(pattern, 16)
        ),
    );
    let pdi = Pdi {
        off: at.offset,
        end,
        ctx,
    };
    pdi.parse(b, parent);
}

use crate::model::text::hex32;

/// The unit of a PDI's offsets and lengths.
const WORD: u64 = 4;

/// NOT of the wrapping sum of the words in `[s, e)`.
fn checksum(b: &Builder<'_>, s: u64, e: u64) -> u32 {
    let mut sum = 0u32;
    let mut o = s;
    while o + WORD <= e {
        sum = sum.wrapping_add(b.read_u32(o, LE).unwrap_or(0));
        o += WORD;
    }
    !sum
}

/// One PDI in `[off, end)`.
struct Pdi {
    off: u64,
    end: u64,
    ctx: Arc<Ctx>,
}

// ---------------------------------------------------------------------------
// fields beyond what the cursor shows by itself (every structure is known to
// lie inside the PDI before its fields are read)

/// A word: the number, then `rest` made from it.
fn with(
    f: &mut Fields<'_, '_>,
    name: &str,
    radix: Radix,
    rest: impl FnOnce(u32) -> String,
) -> Option<u32> {
    f.field(name, 4, |v| {
        Value::with(v, radix, rest(v as u32)).with_width(4)
    })
    .map(|v| v as u32)
}

/// A length in words, and in bytes.
fn words_value(v: u64) -> Value {
    Value::with(v, Radix::Auto, format!(" words, {} bytes", num(4 * v)))
}

/// A word offset from the PDI's start, and what lies there.
fn offset_value(v: u64, what: &str) -> Value {
    let rest = format!(" words, at 0x{:x}: {what}", 4 * v);
    Value::with(v, Radix::Auto, rest)
}

/// An attributes word in hex, and `note`.
fn attributes_value(v: u64, note: &str) -> Value {
    Value::with(v, Radix::HexWide, note)
}

/// A partition's attributes word: its type and exception level.
fn partition_attributes_value(v: u64) -> Value {
    let tname = partition_type((v >> 24) as u32 & 7).unwrap_or("?");
    attributes_value(v, &format!(": {tname}, EL{}", (v >> 1) & 3))
}

/// Reserved or IV bytes, shown as hex (or as zero bytes).
fn bytes_value(d: &[u8]) -> Value {
    if d.iter().all(|&x| x == 0) {
        format!("{} zero bytes", d.len()).into()
    } else {
        text::hex(d, 16).into()
    }
}

fn version_value(v: u64) -> Value {
    let note = match v {
        0x0102_0000 | 0x0103_0000 => " (v1)",
        0x0002_0000 => " (v2)",
        0x0003_0000 => " (v3)",
        0x0004_0000 => " (v4)",
        _ => "",
    };
    Value::with(v, Radix::HexWide, note)
}

fn identification_value(v: u64) -> Value {
    let v = v as u32;
    let kind = match v {
        PPDI => " (partial PDI)",
        FPDI => " (full boot PDI)",
        _ => " (unknown)",
    };
    Value::text(format!("{} ({}){kind}", ident_text(v), hex32(v)))
}

fn header_sizes_value(hs: u64) -> Value {
    let rest = format!(
        ": table {} words, image header {} words, partition header {} words",
        hs & 0xff,
        (hs >> 8) & 0xff,
        (hs >> 16) & 0xff
    );
    Value::with(hs, Radix::HexWide, rest)
}

fn key_source_value(k: u64) -> Value {
    let name = key_source(k as u32).unwrap_or("unknown");
    Value::with(k, Radix::HexWide, format!(" ({name})"))
}

fn load_address_value(x: u64) -> Value {
    let n = if x == u64::MAX { " (none)" } else { "" };
    Value::with(x, Radix::HexWide, n)
}

/// Leaves for the bit fields of the attributes word `v` at `at`, under its
/// node.
fn attribute_bits(b: &mut Builder<'_>, node: Option<NodeId>, at: u64, v: u32, bits: &[BitField]) {
    if let Some(id) = node {
        bit_fields(b, id, at, v, bits);
    }
}

/// The bit fields of the image header table's attributes word.
const TABLE_ATTRIBUTES: &[BitField] = &[
    ("idcode_check_bypass", 0, 1, yes_no),
    ("creator_id", 1, 0x1f, plain),
    ("secondary_boot_device", 6, 0x3f, plain),
    ("dpa_countermeasure", 12, 3, plain),
    ("puf_helper_data_location", 14, 3, plain),
];

/// The bit fields of an image header's attributes word.
const IMAGE_ATTRIBUTES: &[BitField] = &[
    ("owner", 3, 7, plain),
    ("copy_to_memory", 6, 1, yes_no),
    ("delay_load", 7, 1, yes_no),
    ("delay_handoff", 8, 1, yes_no),
    ("low_power_domain", 9, 1, yes_no),
    ("full_power_domain", 10, 1, yes_no),
    ("system_power_domain", 11, 1, yes_no),
    ("pl_power_domain", 12, 1, yes_no),
];

/// The bit fields of a partition's attributes word.
const PARTITION_ATTRIBUTES: &[BitField] = &[
    ("trustzone_secure", 0, 1, yes_no),
    ("exception_level", 1, 3, |x| format!("EL{x}")),
    ("exec_state", 3, 1, |x| {
        if x == 0 { "0 (AArch64)" } else { "1 (AArch32)" }.to_string()
    }),
    ("destination_cpu", 8, 0xf, |x| {
        named(x.into(), destination_cpu(x)).to_string()
    }),
    ("checksum_type", 12, 3, |x| {
        named(
            x.into(),
            match x {
                0 => Some("none"),
                3 => Some("SHA3"),
                _ => None,
            },
        )
        .to_string()
    }),
    ("puf_helper_data_location", 14, 3, plain),
    ("owner", 16, 3, plain),
    ("big_endian", 18, 1, yes_no),
    ("high_vectors", 23, 1, yes_no),
    ("partition_type", 24, 7, |x| {
        named(x.into(), partition_type(x)).to_string()
    }),
    ("dpa_countermeasure", 27, 3, plain),
];

/// The checksum word at the cursor: NOT of the sum of the words from `base`
/// to it. Returns whether it is valid.
fn checksum_field(f: &mut Fields<'_, '_>, base: u64, what: &str, mismatch_is_error: bool) -> bool {
    let at = f.at();
    let want = checksum(f.builder(), base, at);
    let Some(stored) = with(f, "checksum", Radix::HexWide, |v| {
        if v == want {
            " (valid)".to_string()
        } else {
            format!(" (mismatch: computed {})", hex32(want))
        }
    }) else {
        return false;
    };
    let ok = want == stored;
    if !ok && mismatch_is_error {
        f.builder().error(
            at,
            4,
            format!(
                "{what} checksum mismatch: stored {}, computed {}",
                hex32(stored),
                hex32(want)
            ),
        );
    }
    ok
}

/// Identification words as text: the word's bytes from the most
/// significant.
fn ident_text(v: u32) -> String {
    text::quoted(&v.to_be_bytes())
}

fn partition_type(t: u32) -> Option<&'static str> {
    Some(match t {
        0 => "reserved",
        1 => "ELF",
        2 => "CDO",
        3 => "CFI",
        4 => "raw",
        5 => "raw ELF",
        6 => "CFI GSC",
        7 => "CFI GSC unmask",
        _ => return None,
    })
}

fn destination_cpu(c: u32) -> Option<&'static str> {
    Some(match c {
        0 => "none",
        1 => "A72-0",
        2 => "A72-1",
        3 => "A72-2",
        4 => "A72-3",
        5 => "R5-0",
        6 => "R5-1",
        7 => "R5-lockstep",
        8 => "PSM",
        _ => return None,
    })
}

fn key_source(k: u32) -> Option<&'static str> {
    Some(match k {
        0 => "none",
        0xC5C3_A5A3 => "user key 0",
        0xC3A5_C5B3 => "user key 1",
        0xC5C3_A5C3 => "user key 2",
        0xC3A5_C5D3 => "user key 3",
        0xC5C3_A5E3 => "user key 4",
        0xC3A5_C5F3 => "user key 5",
        0xC5C3_A563 => "user key 6",
        0xC3A5_C573 => "user key 7",
        0x5C3C_A5A3 => "eFUSE user key 0",
        0x5C3C_A5A5 => "eFUSE user black key 0",
        0x5C3C_A5A7 => "eFUSE user grey key 0",
        0xC3A5_C5A3 => "eFUSE user key 1",
        0xC3A5_C5A5 => "eFUSE user black key 1",
        0xC3A5_C5A7 => "eFUSE user grey key 1",
        _ => return None,
    })
}

/// A bit field: name, shift, mask, how to show its value.
type BitField = (&'static str, u32, u32, fn(u32) -> String);

/// `name = value` leaves for bit fields of an attribute word at `at`.
fn bit_fields(b: &mut Builder<'_>, node: NodeId, at: u64, v: u32, fields: &[BitField]) {
    for &(name, shift, mask, f) in fields {
        let x = (v >> shift) & mask;
        // The byte holding the field's lowest bit.
        b.leaf(node, name, at + u64::from(shift / 8), 1, f(x));
    }
}

fn plain(x: u32) -> String {
    num(x.into()).to_string()
}

fn yes_no(x: u32) -> String {
    if x == 0 { "no" } else { "yes" }.to_string()
}

impl Pdi {
    /// Where an offset of `w` words from the PDI's start is.
    fn word(&self, w: u32) -> u64 {
        self.off + WORD * u64::from(w)
    }

    fn parse(&self, b: &mut Builder<'_>, parent: NodeId) {
        let t = self.off + TABLE_AT;
        let Some((images, ih_off, parts, ph_off)) = self.table(b, parent, t) else {
            return;
        };
        // Image headers, one after the other from the table's offset.
        let ih_start = self.word(ih_off);
        let n_img = self.fit(b, ih_start, u64::from(images), IH_LEN, "image headers");
        if n_img > 0 {
            let g = b.group(parent, "image_headers", ih_start, n_img * IH_LEN);
            for i in 0..n_img {
                self.image_header(b, g, i, ih_start + i * IH_LEN);
            }
        }
        // Partition headers, then their data.
        let ph_start = self.word(ph_off);
        let n_ph = self.fit(b, ph_start, u64::from(parts), PH_LEN, "partition headers");
        let mut datas = Vec::new();
        if n_ph > 0 {
            let g = b.group(parent, "partition_headers", ph_start, n_ph * PH_LEN);
            for i in 0..n_ph {
                if let Some(d) = self.partition_header(b, g, i, ph_start + i * PH_LEN) {
                    datas.push((i, d));
                }
            }
        }
        let mut last = [
            t + IHT_LEN,
            ih_start + n_img * IH_LEN,
            ph_start + n_ph * PH_LEN,
        ]
        .into_iter()
        .max()
        .unwrap_or(t)
        .min(self.end);
        if !datas.is_empty() {
            let inside = || datas.iter().filter(|(_, d)| d.start < self.end);
            let first = inside().map(|(_, d)| d.start).min().unwrap_or(self.end);
            let span_end = inside()
                .map(|(_, d)| d.start.saturating_add(d.len).min(self.end))
                .max()
                .unwrap_or(first);
            let g = b.group(parent, "partitions", first, span_end.saturating_sub(first));
            for (i, d) in &datas {
                self.partition_data(b, g, *i, d);
            }
            last = last.max(span_end);
        }
        if last < self.end {
            let n = self.end - last;
            let bytes = b.slice(last, n);
            if text::looks_zero(bytes) {
                b.leaf(parent, "padding", last, n, text::zero_note(n));
            } else {
                b.leaf(
                    parent,
                    "trailing",
                    last,
                    n,
                    format!("{n} bytes: {}", text::hex(bytes, 16)),
                );
                b.warn(
                    last,
                    n,
                    format!("{n} bytes after the last partition's data"),
                );
            }
        }
    }

    /// How many `size`-byte entries of `count` fit from `at`; reports the
    /// rest.
    fn fit(&self, b: &mut Builder<'_>, at: u64, count: u64, size: u64, what: &str) -> u64 {
        if count == 0 {
            return 0;
        }
        if at >= self.end {
            b.error(
                self.off,
                0,
                format!(
                    "{what} at 0x{at:x} lie past the end of the PDI (0x{:x})",
                    self.end
                ),
            );
            return 0;
        }
        let room = (self.end - at) / size;
        let n = count.min(room).min(MAX_ENTRIES);
        if n < count {
            if room < count {
                b.error(
                    at,
                    self.end - at,
                    format!(
                        "{count} {what} of {size} bytes at 0x{at:x} run past the end of the PDI; showing {n}"
                    ),
                );
            } else {
                b.warn(at, 0, format!("{count} {what}: showing the first {n}"));
            }
        }
        n
    }

    /// The image header table; returns (image count, image header word
    /// offset, partition count, partition header word offset).
    fn table(&self, b: &mut Builder<'_>, parent: NodeId, t: u64) -> Option<(u32, u32, u32, u32)> {
        use image_header_table::{ImageHeaderTable, AT};
        if t + IHT_LEN > self.end {
            b.error(
                t,
                self.end.saturating_sub(t),
                format!(
                    "truncated: the image header table needs {IHT_LEN} bytes at 0x{t:x}, {} remain",
                    self.end.saturating_sub(t)
                ),
            );
            return None;
        }
        let h = ImageHeaderTable::read(b.slice(t, IHT_LEN)).ok()?;
        let node = b.group(parent, "image_header_table", t, IHT_LEN);
        let mut f = Fields::new(b, node, t, LE);
        let n = ImageHeaderTable::show_part(&mut f, 0, AT.identification.end());
        self.link(
            f.builder(),
            n.image_header_offset,
            h.image_header_offset,
            IH_LEN,
        );
        self.link(
            f.builder(),
            n.partition_header_offset,
            h.partition_header_offset,
            PH_LEN,
        );
        attribute_bits(
            f.builder(),
            n.attributes,
            AT.attributes.of(t),
            h.attributes,
            TABLE_ATTRIBUTES,
        );
        if h.identification != PPDI && h.identification != FPDI {
            AT.identification.warn(
                f.builder(),
                t,
                format!(
                    "PDI identification {} is neither \"PPDI\" nor \"FPDI\"",
                    hex32(h.identification)
                ),
            );
        }
        let n = ImageHeaderTable::show_part(&mut f, AT.header_sizes.off, AT.checksum.off);
        self.link(
            f.builder(),
            n.auth_certificate_offset,
            h.auth_certificate_offset,
            0,
        );
        checksum_field(&mut f, t, "image header table", true);
        Some((
            h.image_count,
            h.image_header_offset,
            h.partition_count,
            h.partition_header_offset,
        ))
    }

    /// Links the node of a word offset from the PDI's start to what it
    /// points at (`target` bytes of it), unless it is 0 or past the end.
    fn link(&self, b: &mut Builder<'_>, node: Option<NodeId>, v: u32, target: u64) {
        let to = self.word(v);
        if let Some(id) = node {
            if v != 0 && to < self.end {
                b.link(id, b.span(to, target.min(self.end - to)));
            }
        }
    }

    fn image_header(&self, b: &mut Builder<'_>, parent: NodeId, i: u64, at: u64) {
        use image_header::{ImageHeader, AT};
        let Ok(h) = ImageHeader::read(b.slice(at, IH_LEN)) else {
            return;
        };
        let name = text::fixed(&h.name);
        let node = b.add(
            parent,
            if name.is_empty() {
                format!("[{i}]")
            } else {
                format!("[{i}] {name}")
            },
            at,
            IH_LEN,
            Some(format!("\"{name}\"").into()),
        );
        let mut f = Fields::new(b, node, at, LE);
        let n = ImageHeader::show_part(&mut f, 0, AT.checksum.off);
        self.link(
            f.builder(),
            n.partition_header_offset,
            h.partition_header_offset,
            PH_LEN,
        );
        attribute_bits(
            f.builder(),
            n.attributes,
            AT.attributes.of(at),
            h.attributes,
            IMAGE_ATTRIBUTES,
        );
        checksum_field(&mut f, at, "image header", true);
    }

    /// One partition header; returns where its data lies.
    fn partition_header(
        &self,
        b: &mut Builder<'_>,
        parent: NodeId,
        i: u64,
        at: u64,
    ) -> Option<Data> {
        use partition_header::{PartitionHeader, AT};
        let h = PartitionHeader::read(b.slice(at, PH_LEN)).ok()?;
        let node = b.group(parent, format!("[{i}]"), at, PH_LEN);
        let mut f = Fields::new(b, node, at, LE);
        let n = PartitionHeader::show_part(&mut f, 0, AT.data_offset.off);
        self.link(
            f.builder(),
            n.next_partition_header,
            h.next_partition_header,
            PH_LEN,
        );
        let (enc, unenc, total) = (h.encrypted_length, h.unencrypted_length, h.total_length);
        let data_at = self.word(h.data_offset);
        let ptype = (h.attributes >> 24) & 7;
        let tname = partition_type(ptype).unwrap_or("?");
        let data = f.field("data_offset", AT.data_offset.size, |v| {
            offset_value(v, &format!("the partition's data ({tname})")).with_width(4)
        });
        let data_node = data.and_then(|_| f.last_fitted());
        self.link(f.builder(), data_node, h.data_offset, 4 * u64::from(total));
        let n = PartitionHeader::show_part(&mut f, AT.attributes.off, AT.reserved.off);
        attribute_bits(
            f.builder(),
            n.attributes,
            AT.attributes.of(at),
            h.attributes,
            PARTITION_ATTRIBUTES,
        );
        let (m0, m1, m2) = (h.compact_flag, h.compact_record_bytes, h.compact_marker);
        let compact = m0 == 1 && m1 != 0 && m2 == (m1 << 16 | COMPACT_MAGIC) && ptype == 2;
        if compact {
            f.span("reserved", AT.reserved.size, bytes_value);
            with(&mut f, "compact_flag", Radix::Dec, |_| {
                " (compact CDO records, layout inferred)".to_string()
            });
            with(&mut f, "compact_record_bytes", Radix::Auto, |_| {
                " bytes of records".to_string()
            });
            with(&mut f, "compact_marker", Radix::HexWide, |_| {
                format!(": record bytes << 16 | 0x{COMPACT_MAGIC:04x}")
            });
        } else {
            let all = AT.reserved.through(AT.compact_marker);
            f.span("reserved", all.size, bytes_value);
        }
        let valid = checksum_field(&mut f, at, "partition header", !compact);
        if compact && !valid {
            // Computed before the marker words were set?
            let stored = h.checksum;
            if checksum(b, at, AT.compact_flag.of(at)) == stored {
                AT.checksum.info(
                    b,
                    at,
                    format!(
                        "partition header checksum matches the header without its compact marker words \
                         (+0x70..+0x7b): it was computed before they were set ({})",
                        cdo::ODDITY
                    ),
                );
            } else {
                let computed = checksum(b, at, AT.checksum.of(at));
                AT.checksum.error(
                    b,
                    at,
                    format!(
                        "partition header checksum mismatch: stored {}, computed {} (also without the compact marker words)",
                        hex32(stored),
                        hex32(computed)
                    ),
                );
            }
        }
        if total < unenc || total < enc {
            b.warn(
                at,
                AT.encrypted_length.through(AT.total_length).size,
                format!("partition {i}: total length {total} words is less than its encrypted ({enc}) or unencrypted ({unenc}) length"),
            );
        }
        if h.data_offset == 0 || total == 0 {
            return None;
        }
        Some(Data {
            start: data_at,
            len: 4 * u64::from(total),
            ptype,
            compact: compact.then_some(Compact {
                record_bytes: m1.into(),
            }),
        })
    }

    fn partition_data(&self, b: &mut Builder<'_>, parent: NodeId, i: u64, d: &Data) {
        if d.start >= self.end {
            b.error(
                self.off,
                0,
                format!(
                    "partition {i}'s data at 0x{:x} lies past the end of the PDI (0x{:x})",
                    d.start, self.end
                ),
            );
            return;
        }
        let mut len = d.len;
        let want_end = d.start.saturating_add(d.len);
        if want_end > self.end {
            let msg = format!(
                "partition {i}'s total length ({} bytes) runs {} bytes past the end of the PDI",
                d.len,
                want_end - self.end
            );
            if d.compact.is_some() {
                b.info(
                    d.start,
                    self.end - d.start,
                    format!(
                        "{msg}: the lengths are the original stream's ({})",
                        cdo::ODDITY
                    ),
                );
            } else {
                b.error(d.start, self.end - d.start, msg);
            }
            len = self.end - d.start;
        }
        let tname = partition_type(d.ptype).unwrap_or("?");
        let node = b.add(
            parent,
            format!("[{i}] {tname}"),
            d.start,
            len,
            Some(format!("{} bytes", num(len)).into()),
        );
        if d.ptype == 2 {
            cdo::parse(b, node, b.span(d.start, len), &self.ctx, d.compact);
        }
    }
}

/// Where a partition's data lies and what it is.
struct Data {
    start: u64,
    len: u64,
    ptype: u32,
    compact: Option<Compact>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(selectmap_width(&SELECTMAP32), Some(32));
        assert_eq!(selectmap_width(&SELECTMAP16), Some(16));
        assert_eq!(selectmap_width(&SELECTMAP8), Some(8));
        assert_eq!(selectmap_width(&[0; 16]), None);
        assert_eq!(ident_text(PPDI), "\"PPDI\"");
    }
}
