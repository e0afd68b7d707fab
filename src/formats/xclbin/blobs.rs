//! Sections that are one fixed record followed by the image it describes:
//! MCS, BMC, SOFT_KERNEL, ASK_FLASH, VENDER_METADATA, AIE_RESOURCES_BIN.
//! Offsets and string offsets in them are from the section start.

use super::{field_hex, field_named, field_with, mpo_field, read, table_count, Sec, Strings};
use crate::model::{Builder, NodeId, Value};

/// One field of a record.
#[derive(Clone, Copy)]
enum F {
    /// A number of the given size.
    Num(&'static str, u64),
    /// An enum.
    Named(&'static str, u64, fn(u64) -> Option<&'static str>),
    /// A u32 string offset from the section start.
    Mpo(&'static str),
    /// A fixed char array.
    Str(&'static str, u64),
    /// Padding or reserved bytes.
    Raw(&'static str, u64),
}

impl F {
    fn size(self) -> u64 {
        match self {
            F::Num(_, s) | F::Named(_, s, _) | F::Str(_, s) | F::Raw(_, s) => s,
            F::Mpo(_) => 4,
        }
    }
}

/// Where a record keeps its image: the offsets (in the record) of the
/// image offset and image size fields, and their width.
struct Image {
    off_at: u64,
    size_at: u64,
    width: u64,
}

/// Decodes a record at the section start and the image it names.
fn record(b: &mut Builder<'_>, sec: Sec, name: &str, fields: &[F], image: Image) {
    let size: u64 = fields.iter().map(|f| f.size()).sum();
    if !sec.need(b, size, name) {
        return;
    }
    let rec = b.group(sec.node, name, sec.abs, size);
    let mut strings = Strings::new(size);
    let mut at = sec.abs;
    let mut title = None;
    let mut off_node = None;
    for &f in fields {
        match f {
            F::Num(n, s) => {
                let shown = field_with(b, rec, n, at, s, Value::uint);
                if at == sec.abs + image.off_at {
                    off_node = shown.map(|(_, id)| id);
                }
            }
            F::Named(n, s, names) => {
                field_named(b, rec, n, at, s, names);
            }
            F::Mpo(n) => {
                if let Some(rel) = mpo_field(b, rec, n, at, sec) {
                    let s = strings.check(b, sec, rel, at, &format!("{name}.{n}"));
                    if n == "mpo_name" {
                        title = s;
                    }
                }
            }
            F::Str(n, s) => {
                let v = b.fixed_str(rec, n, at, s).unwrap_or_default();
                if title.is_none() && n == "m_image_name" {
                    title = Some(v);
                }
            }
            F::Raw(n, s) => {
                b.raw(rec, n, at, s);
            }
        }
        at += f.size();
    }
    if let Some(t) = &title {
        b.set_value(rec, Value::str(t));
    }
    let off_at = sec.abs + image.off_at;
    let rel = read(b, off_at, image.width).unwrap_or(0);
    let len = read(b, sec.abs + image.size_at, image.width).unwrap_or(0);
    let mut budget = sec.len;
    if let Some(img) = blob(
        b,
        sec,
        "image",
        off_at,
        image.width,
        rel,
        len,
        &format!("{name} image"),
        &mut budget,
    ) {
        let (o, e) = b.range(img);
        let s = e - o;
        for id in off_node.into_iter().chain([rec]) {
            b.link(id, o, s);
        }
    }
}

/// Adds the node of `len` bytes `rel` bytes into the section, named by a
/// field at `field_at`, and looks for a known format in it while `budget`
/// (bytes left to decode) allows.
#[allow(clippy::too_many_arguments)]
fn blob(
    b: &mut Builder<'_>,
    sec: Sec,
    name: &str,
    field_at: u64,
    width: u64,
    rel: u64,
    len: u64,
    what: &str,
    budget: &mut u64,
) -> Option<NodeId> {
    if len == 0 {
        return None;
    }
    let Some(abs) = sec.range(rel, len) else {
        b.error(
            field_at,
            width,
            format!(
                "{what} [+0x{rel:x}+0x{len:x}] lies outside its section ({} bytes)",
                sec.len
            ),
        );
        return None;
    };
    let id = b.leaf(sec.node, name, abs, len, Value::Size(len));
    if len <= *budget {
        *budget -= len;
        b.nested(id, abs, len);
    }
    Some(id)
}

fn flash_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "FLT_UNKNOWN",
        1 => "FLT_BIN_PRIMARY",
        _ => return None,
    })
}

fn mcs_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "MCS_UNKNOWN",
        1 => "MCS_PRIMARY",
        2 => "MCS_SECONDARY",
        _ => return None,
    })
}

pub(crate) fn bmc(b: &mut Builder<'_>, sec: Sec) {
    record(
        b,
        sec,
        "bmc",
        &[
            F::Num("m_offset", 8),
            F::Num("m_size", 8),
            F::Str("m_image_name", 64),
            F::Str("m_device_name", 64),
            F::Str("m_version", 64),
            F::Str("m_md5value", 33),
            F::Raw("m_padding", 7),
        ],
        Image {
            off_at: 0,
            size_at: 8,
            width: 8,
        },
    );
}

pub(crate) fn soft_kernel(b: &mut Builder<'_>, sec: Sec) {
    record(
        b,
        sec,
        "soft_kernel",
        &[
            F::Mpo("mpo_name"),
            F::Num("m_image_offset", 4),
            F::Num("m_image_size", 4),
            F::Mpo("mpo_version"),
            F::Mpo("mpo_md5_value"),
            F::Mpo("mpo_symbol_name"),
            F::Num("m_num_instances", 4),
            F::Raw("padding", 36),
            F::Raw("reservedExt", 16),
        ],
        Image {
            off_at: 4,
            size_at: 8,
            width: 4,
        },
    );
}

pub(crate) fn flash(b: &mut Builder<'_>, sec: Sec) {
    record(
        b,
        sec,
        "flash",
        &[
            F::Named("m_flash_type", 2, flash_type),
            F::Raw("padding", 2),
            F::Num("m_image_offset", 4),
            F::Num("m_image_size", 4),
            F::Mpo("mpo_name"),
            F::Mpo("mpo_version"),
            F::Mpo("mpo_md5_value"),
            F::Raw("reserved", 32),
            F::Raw("reservedExt", 16),
        ],
        Image {
            off_at: 4,
            size_at: 8,
            width: 4,
        },
    );
}

pub(crate) fn vender_metadata(b: &mut Builder<'_>, sec: Sec) {
    record(
        b,
        sec,
        "vender_metadata",
        &[
            F::Mpo("mpo_name"),
            F::Num("m_image_offset", 4),
            F::Num("m_image_size", 4),
            F::Raw("padding", 36),
        ],
        Image {
            off_at: 4,
            size_at: 8,
            width: 4,
        },
    );
}

pub(crate) fn aie_resources_bin(b: &mut Builder<'_>, sec: Sec) {
    record(
        b,
        sec,
        "aie_resources_bin",
        &[
            F::Mpo("mpo_name"),
            F::Num("m_image_offset", 4),
            F::Num("m_image_size", 4),
            F::Mpo("mpo_version"),
            F::Num("m_start_column", 4),
            F::Num("m_num_columns", 4),
            F::Raw("padding", 36),
            F::Raw("reservedExt", 16),
        ],
        Image {
            off_at: 4,
            size_at: 8,
            width: 4,
        },
    );
}

/// MCS: a count, then chunks that each name their data in the section.
pub(crate) fn mcs(b: &mut Builder<'_>, sec: Sec) {
    const CHUNK: u64 = 24;
    if !sec.need(b, 8, "mcs") {
        return;
    }
    let n = table_count(b, sec, "m_count", sec.abs, 1, true, sec.abs + 8, CHUNK);
    b.raw(sec.node, "m_unused", sec.abs + 1, 7);
    let table = b.group(sec.node, "m_chunk", sec.abs + 8, n * CHUNK);
    // Chunks that overlap could make the same bytes be decoded again and
    // again: decode at most twice the section's bytes.
    let mut budget = sec.len.saturating_mul(2);
    b.set_value(table, Value::note(crate::model::Raw::U(n), "entries"));
    for i in 0..n {
        let at = sec.abs + 8 + i * CHUNK;
        let ty = read(b, at, 1).unwrap_or(0);
        let rel = read(b, at + 8, 8).unwrap_or(0);
        let len = read(b, at + 16, 8).unwrap_or(0);
        let id = b.group(table, format!("[{i}]"), at, CHUNK);
        b.set_value(
            id,
            format!(
                "{}, {} bytes at +0x{rel:x}",
                mcs_type(ty).unwrap_or("unknown type"),
                Value::uint(len)
            ),
        );
        field_named(b, id, "m_type", at, 1, mcs_type);
        b.raw(id, "m_unused", at + 1, 7);
        let off = field_hex(b, id, "m_offset", at + 8, 8);
        super::field(b, id, "m_size", at + 16, 8);
        if let Some(data) = blob(
            b,
            sec,
            &format!("[{i}] data"),
            at + 8,
            8,
            rel,
            len,
            &format!("MCS chunk [{i}]"),
            &mut budget,
        ) {
            let (o, e) = b.range(data);
            let s = e - o;
            b.link(id, o, s);
            if let Some((_, f)) = off {
                b.link(f, o, s);
            }
        }
    }
}
