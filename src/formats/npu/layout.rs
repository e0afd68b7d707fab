//! The fixed layouts of NPU control code, each declared once: a
//! transaction's header, a control-code page header, a uC-DMA buffer
//! descriptor and a control packet's two header words. The parsers read
//! these records and place their nodes and diagnostics at the offsets
//! they give.

use crate::model::record::record;
use crate::model::{Endian, Radix, Value};

const LE: Endian = Endian::Little;

/// The size of a 32-bit word of control code.
pub(super) const WORD: u64 = 4;

/// The name of an aie-rt device generation (`XAIE_DEV_GEN_*`).
pub(super) fn dev_gen_name(g: u64) -> Option<&'static str> {
    Some(match g {
        1 => "AIE",
        2 => "AIE-ML",
        3 => "AIE2IPU",
        4 => "AIE2P",
        5 => "AIE2PS",
        6 => "AIE2P_STRIX_A0",
        8 => "AIE2P_STRIX_A0",
        9 => "AIE2P_STRIX_B0",
        _ => return None,
    })
}

fn bytes_value(v: u64) -> Value {
    Value::with(v, Radix::Dec, " bytes")
}

record! {
    /// A transaction's header (aie-rt's `XAie_TxnHeader`): its version,
    /// the device it was written for, its op count and its size in bytes.
    pub mod txn_header: TxnHeader (LE) {
        major: u8 = "major", Show::Value(Value::dec),
        minor: u8 = "minor", Show::Value(Value::dec),
        dev_gen: u8 = "dev_gen", Show::Value(|g| crate::model::named(g, dev_gen_name(g))),
        rows: u8 = "num_rows", Show::Value(Value::dec),
        cols: u8 = "num_cols", Show::Value(Value::dec),
        mem_tile_rows: u8 = "num_mem_tile_rows", Show::Value(Value::dec),
        padding: u16 = "padding", Show::Value(Value::hex),
        ops: u32 = "num_ops", Show::Value(Value::dec),
        size: u32 = "txn_size", Show::Value(bytes_value),
    }
}

record! {
    /// A control-code page header, as aiebu's assembler writes it.
    pub(super) mod page_header: PageHeader (LE) {
        /// 0xffff.
        magic: u16 = "magic", Show::HexWide,
        page_index: u16 = "page_index", Show::Value(Value::dec),
        out_of_order_page_len: u16 = "out_of_order_page_len", Show::Value(bytes_value),
        out_of_order_page_len_restore: u16 = "out_of_order_page_len_restore",
            Show::Value(bytes_value),
        cur_page_len: u16 = "cur_page_len", Show::Value(bytes_value),
        in_order_page_len: u16 = "in_order_page_len", Show::Value(bytes_value),
        reserved: u32 = "reserved", Show::HexWide,
    }
}

record! {
    /// A uC-DMA buffer descriptor: its size in words (low 15 bits), its
    /// flags (bit 0 the next BD follows, bit 1 external, bit 2 the local
    /// pointer is relative to the BD), the local pointer and the remote
    /// address (its high word's top 3 bits are not part of it). Shown bit
    /// by bit, so no field is shown from the declaration.
    pub(super) mod uc_dma_bd: UcDmaBd (LE) {
        size: u16 = "size", Show::Hidden,
        flags: u8 = "flags", Show::Hidden,
        reserved: u8 = "reserved", Show::Hidden,
        local_ptr: u32 = "local_ptr", Show::Hidden,
        remote_ptr_low: u32 = "remote_ptr_low", Show::Hidden,
        remote_ptr_high: u32 = "remote_ptr_high", Show::Hidden,
    }
}

record! {
    /// The two header words that start a control packet, each shown by
    /// its bit fields; its data words follow.
    pub(super) mod packet: Packet (LE) {
        packet_header: u32 = "packet_header", Show::Hidden,
        control_header: u32 = "control_header", Show::Hidden,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_the_writers() {
        // aie-rt's 16-byte transaction header, aiebu's 16-byte page header
        // and BD, a packet's two header words.
        assert_eq!((txn_header::SIZE, txn_header::AT.ops.off), (16, 8));
        assert_eq!(txn_header::AT.size.off, 12);
        assert_eq!((page_header::SIZE, page_header::AT.reserved.off), (16, 12));
        assert_eq!((uc_dma_bd::SIZE, uc_dma_bd::AT.remote_ptr_low.off), (16, 8));
        assert_eq!(uc_dma_bd::SIZE, crate::formats::npu::table::BD);
        assert_eq!(packet::SIZE, 8);
    }

    #[test]
    fn a_short_header_says_so() {
        let e = TxnHeader::read(&[1, 0, 3, 6, 5, 1, 0, 0, 9]).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("num_ops", 16, 9));
    }
}
