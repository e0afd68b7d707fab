//! The fixed layouts of a CDO, each declared once: the headers of both
//! versions, a version 1 section header, a command word with its long
//! length, the compact layout's record header and entries, and the bytes
//! an AIE address word's parts lie in. The parsers read these records and
//! point their nodes and diagnostics at the offsets they give.

use crate::model::record::record;
use crate::model::text::hex32;
use crate::model::{Endian, Value};

const LE: Endian = Endian::Little;

/// The bytes of a CDO that are 32-bit words.
pub(super) const WORD: u64 = 4;

record! {
    /// A version 2 CDO header. Its fields are shown with what they mean
    /// (the words that follow, the identification, the checksum's
    /// verdict), so none is shown from the declaration.
    pub(super) mod header: Header (LE) {
        /// The words after this one (4 in a five-word header).
        header_words: u32 = "header_words", Show::Hidden,
        /// "CDO\0" (`CDO_ID`).
        identification: u32 = "identification", Show::Hidden,
        version: u32 = "version", Show::Hidden,
        /// The words of commands after the header.
        length: u32 = "length", Show::Hidden,
        /// The complement of the sum of the four words before it.
        checksum: u32 = "checksum", Show::Hidden,
    }
}

record! {
    /// A version 1 CDO header ("XNLX"): as version 2's, but its fourth
    /// word counts sections.
    pub(super) mod v1_header: V1Header (LE) {
        header_words: u32 = "header_words", Show::Value(v1_words_value),
        identification: u32 = "identification", Show::Value(v1_ident_value),
        version: u32 = "version", Show::Value(v1_version_value),
        sections: u32 = "sections", Show::Value(Value::uint),
        /// Shown with its verdict (`checksum`).
        checksum: u32 = "checksum", Show::Hidden,
    }
}

fn v1_words_value(v: u64) -> Value {
    Value::text(format!("{v} words follow"))
}

fn v1_ident_value(_: u64) -> Value {
    Value::text("\"XNLX\" (version 1)")
}

fn v1_version_value(v: u64) -> Value {
    Value::text(format!("{}.{:02} ({})", v >> 8, v & 0xff, hex32(v as u32)))
}

record! {
    /// A version 1 section header: its id, the words after its length
    /// word, and how many commands it holds.
    pub(super) mod section: Section (LE) {
        section_id: u32 = "section_id", Show::Value(Value::hex),
        /// Shown with where it ends the section.
        length: u32 = "length", Show::Hidden,
        commands: u32 = "commands", Show::Value(Value::uint),
    }
}

record! {
    /// A version 2 command header: the command word (its id, module,
    /// payload length in words, a reserved byte) and, when the length is
    /// 255, the long length word after it.
    pub(super) mod command: Command (LE) {
        command: u8 = "command", Show::Hidden,
        module: u8 = "module", Show::Hidden,
        length: u8 = "length", Show::Hidden,
        reserved: u8 = "reserved", Show::Hidden,
        long_length: u32 = "long_length", Show::Hidden,
    }
}

/// The size of a command word alone, without the long length.
pub(super) const COMMAND_WORD: u64 = command::AT.long_length.off;

record! {
    /// A compact record's header: the op its entries stand for and how
    /// many entries follow.
    pub(super) mod compact_record: CompactRecord (LE) {
        op: u32 = "op", Show::Hidden,
        count: u32 = "count", Show::Hidden,
    }
}

record! {
    /// A compact WRITE entry (op 3).
    pub(super) mod write_entry: WriteEntry (LE) {
        address: u32 = "address", Show::Hidden,
        value: u32 = "value", Show::Hidden,
    }
}

record! {
    /// A compact MASK_WRITE entry (op 2).
    pub(super) mod mask_write_entry: MaskWriteEntry (LE) {
        address: u32 = "address", Show::Hidden,
        mask: u32 = "mask", Show::Hidden,
        value: u32 = "value", Show::Hidden,
    }
}

record! {
    /// A compact DMA_WRITE entry (op 5): where its data lies in the pool
    /// after the record area; the length word's low 16 bits count words.
    pub(super) mod dma_entry: DmaEntry (LE) {
        address_high: u32 = "address_high", Show::Hidden,
        address_low: u32 = "address_low", Show::Hidden,
        pool_offset: u32 = "pool_offset", Show::Hidden,
        length: u32 = "length", Show::Hidden,
    }
}

/// The bytes of a 32-bit AIE address word that each of its parts lies
/// in: the register offset in bits 19..0 (the first three bytes), the row
/// in bits 24..20 (the middle two), the column in bits 31..25 (the last).
pub(crate) mod aie_word {
    use crate::model::record::At;

    pub(crate) const REGISTER: At = At { off: 0, size: 3 };
    pub(crate) const ROW: At = At { off: 2, size: 2 };
    pub(crate) const COLUMN: At = At { off: 3, size: 1 };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::At;

    #[test]
    fn layouts_are_the_loaders() {
        // Five header words, the checksum last; a section's three words; a
        // command word and its long length; compact entries of 2, 3 and 4
        // words after a two-word record header.
        assert_eq!((header::SIZE, header::AT.checksum.off), (20, 16));
        assert_eq!((v1_header::SIZE, v1_header::AT.sections.off), (20, 12));
        assert_eq!((section::SIZE, section::AT.length.off), (12, 4));
        assert_eq!((command::SIZE, COMMAND_WORD), (8, 4));
        assert_eq!(command::AT.length, At { off: 2, size: 1 });
        assert_eq!(compact_record::SIZE, 8);
        assert_eq!(
            (write_entry::SIZE, mask_write_entry::SIZE, dma_entry::SIZE),
            (8, 12, 16)
        );
        assert_eq!(dma_entry::AT.pool_offset.off, 8);
    }

    #[test]
    fn a_short_header_says_so() {
        let e = Header::read(&[4, 0, 0, 0, 0x43, 0x44]).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("identification", 20, 6));
    }
}
