//! The records of an offload binary, each declared once: the header's
//! parts by version, the entry and the string entries; and the sizes and
//! bounds its reader keeps to.

use super::names::{image_kind_name, offload_kind_value};
use crate::model::record::record;
use crate::model::{Endian, Value};

pub(super) const LE: Endian = Endian::Little;

record! {
    /// The first 16 bytes of every version's header.
    pub(super) mod head: Head (LE) {
        magic: [u8; 4] = "magic", Show::Bytes,
        version: u32 = "version", Show::Wide(Value::uint),
        size: u64 = "size", Show::Wide(Value::uint),
    }
}

record! {
    /// What follows the first 16 bytes in version 1.
    pub(super) mod tail_v1: TailV1 (LE) {
        entry_offset: u64 = "entry offset", Show::Wide(Value::uint),
        entry_size: u64 = "entry size", Show::Wide(Value::uint),
    }
}

record! {
    /// What follows the first 16 bytes from version 2 on.
    pub(super) mod tail_v2: TailV2 (LE) {
        entries_offset: u64 = "entries offset", Show::Wide(Value::uint),
        entries_count: u64 = "entries count", Show::Wide(Value::uint),
    }
}

record! {
    /// What version 3 adds after version 2's header.
    pub(super) mod inflated: Inflated (LE) {
        inflated_size: u64 = "inflated size", Show::Wide(Value::uint),
    }
}

record! {
    /// One entry, in every version (its flags are shown as the version
    /// says, once read).
    pub(super) mod entry: Entry (LE) {
        image_kind: u16 = "image kind", Show::Named(|v| image_kind_name(v as u16)),
        offload_kind: u16 = "offload kind", Show::Value(|v| offload_kind_value(v as u16)),
        flags: u32 = "flags", Show::Auto,
        str_off: u64 = "string offset", Show::Auto,
        str_count: u64 = "string count", Show::Auto,
        img_off: u64 = "image offset", Show::Auto,
        img_size: u64 = "image size", Show::Auto,
    }
}

record! {
    /// A string entry of version 1: a key and a NUL-terminated value.
    pub(super) mod string_v1: StringV1 (LE) {
        key_offset: u64 = "key offset", Show::Auto,
        value_offset: u64 = "value offset", Show::Auto,
    }
}

record! {
    /// A string entry from version 2 on: the value has a size.
    pub(super) mod string_v2: StringV2 (LE) {
        key_offset: u64 = "key offset", Show::Auto,
        value_offset: u64 = "value offset", Show::Auto,
        value_size: u64 = "value size", Show::Auto,
    }
}

/// Header of versions 1 and 2.
pub(super) const HEADER_V1: u64 = head::SIZE + tail_v1::SIZE;
/// Header of version 3.
pub(super) const HEADER_V3: u64 = HEADER_V1 + inflated::SIZE;
/// Where version 3's inflated size is.
pub(super) const INFLATED_AT: u64 = HEADER_V1 + inflated::AT.inflated_size.off;
/// One entry, in every version.
pub(super) const ENTRY: u64 = entry::SIZE;
/// Binaries in a section start at multiples of this.
pub(super) const ALIGN: u64 = 8;
/// The newest version fwview knows.
pub(super) const LATEST: u32 = 3;
/// Entries and string entries decoded per binary and per entry.
pub(super) const MAX_ENTRIES: u64 = 1000;
pub(super) const MAX_STRINGS: u64 = 1000;
/// String entries decoded per binary, all entries together.
pub(super) const MAX_STRINGS_TOTAL: u64 = 10_000;
pub(super) const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
