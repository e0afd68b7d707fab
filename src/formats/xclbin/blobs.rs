//! Sections that are one fixed record followed by the image it describes:
//! MCS, BMC, SOFT_KERNEL, ASK_FLASH, VENDER_METADATA, AIE_RESOURCES_BIN.
//! Offsets and string offsets in them are from the section start.

use super::layout::{mpo_field, table_count, Sec, Strings, LE};
use crate::model::record::record;
use crate::model::{read_uint, Builder, Fields, NodeId, Value};

/// Where a record keeps its image: the offsets (in the record) of the
/// image offset and image size fields, and their width.
struct Image {
    off_at: u64,
    size_at: u64,
    width: u64,
}

/// What a record's fields tell the rest of its decoding.
struct Rec {
    sec: Sec,
    name: &'static str,
    strings: Strings,
    /// What the record is called (its name string or image name).
    title: Option<String>,
    /// The node of the image offset field.
    image: Option<NodeId>,
}

impl Rec {
    /// An `mpo_*` field, its string checked and given a node.
    fn mpo(&mut self, f: &mut Fields<'_, '_>, n: &str) {
        let at = f.at();
        if let Some(rel) = mpo_field(f, n, self.sec) {
            let what = format!("{}.{n}", self.name);
            let s = self.strings.check(f.builder(), self.sec, rel, at, &what);
            if n == "mpo_name" {
                self.title = s;
            }
        }
    }
}

/// Decodes a record of `size` bytes at the section start, its fields read
/// by `layout`, and the image it names.
fn record(
    b: &mut Builder<'_>,
    sec: Sec,
    name: &'static str,
    size: u64,
    image: Image,
    layout: impl FnOnce(&mut Fields<'_, '_>, &mut Rec),
) {
    if !sec.need(b, size, name) {
        return;
    }
    let node = b.group(sec.node, name, sec.span.offset, size);
    let mut r = Rec {
        sec,
        name,
        strings: Strings::new(size),
        title: None,
        image: None,
    };
    let mut f = Fields::new(b, node, sec.span.offset, LE);
    layout(&mut f, &mut r);
    debug_assert!(!f.ok() || f.at() == sec.span.offset + size, "{name}: size");
    if let Some(t) = &r.title {
        b.set_value(node, Value::str(t));
    }
    let off_at = sec.span.offset + image.off_at;
    let rel = read_uint(b, off_at, image.width, LE).unwrap_or(0);
    let len = read_uint(b, sec.span.offset + image.size_at, image.width, LE).unwrap_or(0);
    let mut budget = sec.span.len;
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
        let to = b.range(img);
        for id in r.image.into_iter().chain([node]) {
            b.link(id, to);
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
                sec.span.len
            ),
        );
        return None;
    };
    let id = b.leaf(sec.node, name, abs, len, Value::Size(len));
    if len <= *budget {
        *budget -= len;
        b.nested(id, b.span(abs, len));
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
    let image = Image {
        off_at: 0,
        size_at: 8,
        width: 8,
    };
    record(b, sec, "bmc", 248, image, |f, r| {
        f.u64("m_offset");
        r.image = f.last();
        f.u64("m_size");
        r.title = f.text("m_image_name", 64);
        f.text("m_device_name", 64);
        f.text("m_version", 64);
        f.text("m_md5value", 33);
        f.bytes("m_padding", 7);
    });
}

/// The image offset and size that most records keep at 4 and 8.
const IMAGE_AT_4: Image = Image {
    off_at: 4,
    size_at: 8,
    width: 4,
};

/// `m_image_offset` and `m_image_size`, u32 each.
fn image_fields(f: &mut Fields<'_, '_>, r: &mut Rec) {
    f.u32("m_image_offset");
    r.image = f.last();
    f.u32("m_image_size");
}

pub(crate) fn soft_kernel(b: &mut Builder<'_>, sec: Sec) {
    record(b, sec, "soft_kernel", 80, IMAGE_AT_4, |f, r| {
        r.mpo(f, "mpo_name");
        image_fields(f, r);
        r.mpo(f, "mpo_version");
        r.mpo(f, "mpo_md5_value");
        r.mpo(f, "mpo_symbol_name");
        f.u32("m_num_instances");
        f.bytes("padding", 36);
        f.bytes("reservedExt", 16);
    });
}

pub(crate) fn flash(b: &mut Builder<'_>, sec: Sec) {
    record(b, sec, "flash", 72, IMAGE_AT_4, |f, r| {
        f.named("m_flash_type", 2, flash_type);
        f.bytes("padding", 2);
        image_fields(f, r);
        r.mpo(f, "mpo_name");
        r.mpo(f, "mpo_version");
        r.mpo(f, "mpo_md5_value");
        f.bytes("reserved", 32);
        f.bytes("reservedExt", 16);
    });
}

pub(crate) fn vender_metadata(b: &mut Builder<'_>, sec: Sec) {
    record(b, sec, "vender_metadata", 48, IMAGE_AT_4, |f, r| {
        r.mpo(f, "mpo_name");
        image_fields(f, r);
        f.bytes("padding", 36);
    });
}

pub(crate) fn aie_resources_bin(b: &mut Builder<'_>, sec: Sec) {
    record(b, sec, "aie_resources_bin", 76, IMAGE_AT_4, |f, r| {
        r.mpo(f, "mpo_name");
        image_fields(f, r);
        r.mpo(f, "mpo_version");
        f.u32("m_start_column");
        f.u32("m_num_columns");
        f.bytes("padding", 36);
        f.bytes("reservedExt", 16);
    });
}

record! {
    /// `mcs`'s head (xclbin.h): how many chunks follow.
    mod mcs_head: McsHead (LE) {
        m_count: i8 = "m_count", Show::Int,
        m_unused: [u8; 7] = "m_unused", Show::Bytes,
    }
}

record! {
    /// `mcs_chunk` (xclbin.h): a chunk's type and where its data is.
    mod mcs_chunk: McsChunk (LE) {
        m_type: u8 = "m_type", Show::Named(mcs_type),
        m_unused: [u8; 7] = "m_unused", Show::Bytes,
        m_offset: u64 = "m_offset", Show::Hex,
        m_size: u64 = "m_size", Show::Auto,
    }
}

/// MCS: a count, then chunks that each name their data in the section.
pub(crate) fn mcs(b: &mut Builder<'_>, sec: Sec) {
    const CHUNK: u64 = mcs_chunk::SIZE;
    const HEAD: u64 = mcs_head::SIZE;
    if !sec.need(b, HEAD, "mcs") {
        return;
    }
    let n = table_count(b, sec, "m_count", (mcs_head::AT.m_count, true), HEAD, CHUNK);
    let mut f = Fields::new(b, sec.node, mcs_head::AT.m_unused.of(sec.span.offset), LE);
    McsHead::show_part(&mut f, mcs_head::AT.m_unused.off, HEAD);
    let table = b.group(sec.node, "m_chunk", sec.at(HEAD), n * CHUNK);
    // Chunks that overlap could make the same bytes be decoded again and
    // again: decode at most twice the section's bytes.
    let mut budget = sec.span.len.saturating_mul(2);
    b.set_value(table, Value::note(crate::model::Raw::U(n), "entries"));
    for i in 0..n {
        let at = sec.at(HEAD) + i * CHUNK;
        let r = McsChunk::read(b.slice(at, CHUNK)).ok();
        let (ty, rel, len) = r.map_or((0, 0, 0), |r| (u64::from(r.m_type), r.m_offset, r.m_size));
        let id = b.group(table, format!("[{i}]"), at, CHUNK);
        b.set_value(
            id,
            format!(
                "{}, {} bytes at +0x{rel:x}",
                mcs_type(ty).unwrap_or("unknown type"),
                Value::uint(len)
            ),
        );
        let off = McsChunk::show(&mut Fields::new(b, id, at, LE)).m_offset;
        if let Some(data) = blob(
            b,
            sec,
            &format!("[{i}] data"),
            mcs_chunk::AT.m_offset.of(at),
            mcs_chunk::AT.m_offset.size,
            rel,
            len,
            &format!("MCS chunk [{i}]"),
            &mut budget,
        ) {
            let to = b.range(data);
            b.link(id, to);
            if let Some(f) = off {
                b.link(f, to);
            }
        }
    }
}
