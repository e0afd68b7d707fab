//! AMD partial PDI images (SelectMAP pattern, image header table, image
//! headers, partition headers) and the CDO command streams inside them. A
//! bare CDO (a file that starts with a CDO header) is read as well.

use std::sync::Arc;

use super::cdo::{self, Compact, Ctx};
use crate::model::{named, num, text, Builder, Endian, Fields, Format, NodeId, Radix, Value};

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

/// Header sizes, in bytes.
const IHT_LEN: u64 = 128;
const IH_LEN: u64 = 64;
const PH_LEN: u64 = 128;

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

pub fn parse(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) {
    parse_with(b, parent, off, len, Ctx::default());
}

/// Parses a PDI that an AIE partition carries: like [`parse`], and shows
/// which physical columns the partition may start at beside each decoded
/// AIE address, and the register each address names (of the generation
/// `hw_gen` gives, the xclbin's AIE_METADATA one; see [`Ctx::partition`]).
pub fn parse_in_partition(
    b: &mut Builder<'_>,
    parent: NodeId,
    off: u64,
    len: u64,
    start_columns: &[u16],
    hw_gen: Option<u64>,
) {
    if detect(b.slice(off, len)) {
        b.set_format(parent, Format::Pdi);
        parse_with(b, parent, off, len, Ctx::partition(start_columns, hw_gen));
    }
}

fn parse_with(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64, ctx: Ctx) {
    let end = off.saturating_add(len).min(b.file_len());
    let ctx = Arc::new(ctx);
    let Some(width) = selectmap_width(b.slice(off, 16)) else {
        if cdo::is_cdo(b.slice(off, 20)) {
            cdo::parse(b, parent, off, end - off, &ctx, None);
        }
        return;
    };
    let pattern = b.slice(off, 16);
    b.leaf(
        parent,
        "selectmap",
        off,
        16,
        format!(
            "SelectMAP bus-width pattern for a {width}-bit bus: {}",
            text::hex(pattern, 16)
        ),
    );
    let pdi = Pdi { off, end, ctx };
    pdi.parse(b, parent);
}

use crate::model::text::hex32;

/// NOT of the wrapping sum of the words in `[s, e)`.
fn checksum(b: &Builder<'_>, s: u64, e: u64) -> u32 {
    let mut sum = 0u32;
    let mut o = s;
    while o + 4 <= e {
        sum = sum.wrapping_add(b.read_u32(o, LE).unwrap_or(0));
        o += 4;
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

/// A word shown in hex, all eight digits.
fn hex(f: &mut Fields<'_, '_>, name: &str) -> Option<u32> {
    f.field(name, 4, |v| Value::hex_wide(v, 4))
        .map(|v| v as u32)
}

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
fn words(f: &mut Fields<'_, '_>, name: &str) -> Option<u32> {
    with(f, name, Radix::Auto, |v| {
        format!(" words, {} bytes", num(4 * u64::from(v)))
    })
}

/// A word shown as `value` makes it; returns it and its node, for links and
/// bit fields.
fn word_node(
    f: &mut Fields<'_, '_>,
    name: &str,
    value: impl FnOnce(u32) -> Value,
) -> Option<(u32, NodeId)> {
    let v = f.field(name, 4, |v| value(v as u32))?;
    Some((v as u32, f.last_fitted()?))
}

/// `size` reserved or IV bytes, shown as hex (or as zero bytes).
fn bytes(f: &mut Fields<'_, '_>, name: &str, size: u64) {
    f.span(name, size, |d| {
        if d.iter().all(|&x| x == 0) {
            format!("{size} zero bytes").into()
        } else {
            text::hex(d, 16).into()
        }
    });
}

/// An attributes word in hex (and `note`), with leaves for its bit fields.
fn attributes(f: &mut Fields<'_, '_>, note: &str, bits: &[BitField]) -> u32 {
    let at = f.at();
    let v = word_node(f, "attributes", |v| {
        Value::with(v.into(), Radix::HexWide, note).with_width(4)
    });
    if let Some((v, id)) = v {
        bit_fields(f.builder(), id, at, v, bits);
    }
    v.map_or(0, |(v, _)| v)
}

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
    fn parse(&self, b: &mut Builder<'_>, parent: NodeId) {
        let t = self.off + 0x10;
        let Some((images, ih_off, parts, ph_off)) = self.table(b, parent, t) else {
            return;
        };
        // Image headers, one after the other from the table's offset.
        let ih_start = self.off + 4 * u64::from(ih_off);
        let n_img = self.fit(b, ih_start, u64::from(images), IH_LEN, "image headers");
        if n_img > 0 {
            let g = b.group(parent, "image_headers", ih_start, n_img * IH_LEN);
            for i in 0..n_img {
                self.image_header(b, g, i, ih_start + i * IH_LEN);
            }
        }
        // Partition headers, then their data.
        let ph_start = self.off + 4 * u64::from(ph_off);
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
        let node = b.group(parent, "image_header_table", t, IHT_LEN);
        let mut f = Fields::new(b, node, t, LE);
        with(&mut f, "version", Radix::HexWide, |v| {
            match v {
                0x0102_0000 | 0x0103_0000 => " (v1)",
                0x0002_0000 => " (v2)",
                0x0003_0000 => " (v3)",
                0x0004_0000 => " (v4)",
                _ => "",
            }
            .to_string()
        });
        let images = f.u32("image_count").unwrap_or(0) as u32;
        let ih = self
            .offset(
                &mut f,
                "image_header_offset",
                IH_LEN,
                "the first image header",
            )
            .unwrap_or(0);
        let parts = f.u32("partition_count").unwrap_or(0) as u32;
        let ph = self
            .offset(
                &mut f,
                "partition_header_offset",
                PH_LEN,
                "the first partition header",
            )
            .unwrap_or(0);
        hex(&mut f, "secondary_boot_device_address");
        hex(&mut f, "idcode");
        attributes(
            &mut f,
            "",
            &[
                ("idcode_check_bypass", 0, 1, yes_no),
                ("creator_id", 1, 0x1f, plain),
                ("secondary_boot_device", 6, 0x3f, plain),
                ("dpa_countermeasure", 12, 3, plain),
                ("puf_helper_data_location", 14, 3, plain),
            ],
        );
        hex(&mut f, "pdi_id");
        hex(&mut f, "parent_id");
        let ident = f
            .field("identification", 4, |v| {
                let v = v as u32;
                let kind = match v {
                    PPDI => " (partial PDI)",
                    FPDI => " (full boot PDI)",
                    _ => " (unknown)",
                };
                Value::text(format!("{} ({}){kind}", ident_text(v), hex32(v)))
            })
            .unwrap_or(0) as u32;
        if ident != PPDI && ident != FPDI {
            f.builder().warn(
                t + 0x28,
                4,
                format!(
                    "PDI identification {} is neither \"PPDI\" nor \"FPDI\"",
                    hex32(ident)
                ),
            );
        }
        with(&mut f, "header_sizes", Radix::HexWide, |hs| {
            format!(
                ": table {} words, image header {} words, partition header {} words",
                hs & 0xff,
                (hs >> 8) & 0xff,
                (hs >> 16) & 0xff
            )
        });
        words(&mut f, "meta_header_length");
        bytes(&mut f, "meta_header_secure_iv", 12);
        with(&mut f, "meta_header_key_source", Radix::HexWide, |k| {
            format!(" ({})", key_source(k).unwrap_or("unknown"))
        });
        hex(&mut f, "extended_idcode");
        self.offset(
            &mut f,
            "auth_certificate_offset",
            0,
            "the header authentication certificate",
        );
        bytes(&mut f, "meta_header_grey_black_iv", 12);
        bytes(&mut f, "reserved", 36);
        checksum_field(&mut f, t, "image header table", true);
        Some((images, ih, parts, ph))
    }

    /// A word offset from the PDI's start, linked to what it points at
    /// (`target` bytes of it).
    fn offset(&self, f: &mut Fields<'_, '_>, name: &str, target: u64, what: &str) -> Option<u32> {
        let (v, id) = word_node(f, name, |v| {
            let rest = format!(" words, at 0x{:x}: {what}", 4 * u64::from(v));
            Value::with(v.into(), Radix::Auto, rest).with_width(4)
        })?;
        let to = self.off + 4 * u64::from(v);
        if v != 0 && to < self.end {
            f.builder().link(id, to, target.min(self.end - to));
        }
        Some(v)
    }

    fn image_header(&self, b: &mut Builder<'_>, parent: NodeId, i: u64, at: u64) {
        let name = text::fixed(b.slice(at + 0x10, 16));
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
        self.offset(
            &mut f,
            "partition_header_offset",
            PH_LEN,
            "its first partition header",
        );
        f.u32("partition_count");
        hex(&mut f, "revoke_id");
        attributes(
            &mut f,
            "",
            &[
                ("owner", 3, 7, plain),
                ("copy_to_memory", 6, 1, yes_no),
                ("delay_load", 7, 1, yes_no),
                ("delay_handoff", 8, 1, yes_no),
                ("low_power_domain", 9, 1, yes_no),
                ("full_power_domain", 10, 1, yes_no),
                ("system_power_domain", 11, 1, yes_no),
                ("pl_power_domain", 12, 1, yes_no),
            ],
        );
        f.text("name", 16);
        hex(&mut f, "image_id");
        hex(&mut f, "unique_id");
        hex(&mut f, "parent_unique_id");
        hex(&mut f, "function_id");
        hex(&mut f, "memcpy_address_low");
        hex(&mut f, "memcpy_address_high");
        hex(&mut f, "reserved");
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
        let node = b.group(parent, format!("[{i}]"), at, PH_LEN);
        let mut f = Fields::new(b, node, at, LE);
        let enc = words(&mut f, "encrypted_length").unwrap_or(0);
        let unenc = words(&mut f, "unencrypted_length").unwrap_or(0);
        let total = words(&mut f, "total_length").unwrap_or(0);
        self.offset(
            &mut f,
            "next_partition_header",
            PH_LEN,
            "the next partition header (0: none)",
        );
        f.field("exec_address", 8, |x| Value::hex_wide(x, 8));
        f.field("load_address", 8, |x| {
            let n = if x == u64::MAX { " (none)" } else { "" };
            Value::with(x, Radix::HexWide, n).with_width(8)
        });
        let peek =
            |f: &mut Fields<'_, '_>, rel: u64| f.builder().read_u32(at + rel, LE).unwrap_or(0);
        let data_off = peek(&mut f, 0x20);
        let data_at = self.off + 4 * u64::from(data_off);
        let a = peek(&mut f, 0x24);
        let ptype = (a >> 24) & 7;
        let tname = partition_type(ptype).unwrap_or("?");
        self.offset(
            &mut f,
            "data_offset",
            4 * u64::from(total),
            &format!("the partition's data ({tname})"),
        );
        attributes(
            &mut f,
            &format!(": {tname}, EL{}", (a >> 1) & 3),
            &[
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
            ],
        );
        f.u32("section_count");
        hex(&mut f, "checksum_offset");
        hex(&mut f, "partition_id");
        hex(&mut f, "auth_certificate_offset");
        bytes(&mut f, "secure_header_iv", 12);
        with(&mut f, "key_source", Radix::HexWide, |k| {
            format!(" ({})", key_source(k).unwrap_or("unknown"))
        });
        bytes(&mut f, "grey_black_iv", 12);
        hex(&mut f, "revoke_id");
        // The compact layout's marker sits in the reserved words.
        let m0 = peek(&mut f, 0x70);
        let m1 = peek(&mut f, 0x74);
        let m2 = peek(&mut f, 0x78);
        let compact = m0 == 1 && m1 != 0 && m2 == (m1 << 16 | COMPACT_MAGIC) && ptype == 2;
        if compact {
            bytes(&mut f, "reserved", 24);
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
            bytes(&mut f, "reserved", 36);
        }
        let valid = checksum_field(&mut f, at, "partition header", !compact);
        if compact && !valid {
            // Computed before the marker words were set?
            let stored = b.read_u32(at + 0x7c, LE).unwrap_or(0);
            if checksum(b, at, at + 0x70) == stored {
                b.info(
                    at + 0x7c,
                    4,
                    format!(
                        "partition header checksum matches the header without its compact marker words \
                         (+0x70..+0x7b): it was computed before they were set ({})",
                        cdo::ODDITY
                    ),
                );
            } else {
                b.error(
                    at + 0x7c,
                    4,
                    format!(
                        "partition header checksum mismatch: stored {}, computed {} (also without the compact marker words)",
                        hex32(stored),
                        hex32(checksum(b, at, at + 0x7c))
                    ),
                );
            }
        }
        if total < unenc || total < enc {
            b.warn(
                at,
                12,
                format!("partition {i}: total length {total} words is less than its encrypted ({enc}) or unencrypted ({unenc}) length"),
            );
        }
        if data_off == 0 || total == 0 {
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
            cdo::parse(b, node, d.start, len, &self.ctx, d.compact);
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
