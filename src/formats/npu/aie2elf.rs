//! aiebu's ELF for AIE2 and AIE2P NPUs (`EI_OSABI` 0x45 on `EM_M32`,
//! ELF32): what aiebu's assembler writes from a transaction buffer
//! (`aiebu-asm -t aie2txn`) or from its text listing (`-t aie2asm`), with a
//! control packet and a description of the kernel's external buffers.
//!
//! - `.ctrltext` holds the transaction, decoded by
//!   [`super::parse_transaction`]. Where a `DDR_PATCH` patches a shim DMA
//!   buffer descriptor's address, aiebu clears the address bits in the
//!   block write and records the patch as a relocation.
//! - `.ctrldata` holds the control packet buffer (`.ctrlpkt.pm.N` the
//!   program-memory ones): stream packets, each a packet header, a control
//!   header and one to four data words that the array writes at the
//!   control header's address, zero words between them.
//! - `.rela.dyn` holds one relocation a patch, its `r_offset` counted from
//!   the start of its symbol's section; the symbol is named by the
//!   kernel argument whose address goes there (its index in the xclbin's
//!   kernel, where 3 is the first buffer) or `control-packet`.
//! - `.preempt_save`/`.preempt_restore`, when the transaction preempts,
//!   hold aie-rt's save and restore transactions.

use super::layout::{packet, Packet, WORD};
use super::op::bytes_leaf;
use crate::formats::elf::{Elf, SectionHook, Vendor};
use crate::model::record::Record;
use crate::model::{Builder, NodeId, Radix, Seq, Span, Step, Value, GROUP};
use std::sync::Arc;

/// aiebu's `EI_OSABI` for AIE2 (and AIE2P) transaction ELFs.
pub const OSABI_AIE2: u8 = 0x45;
/// `EM_M32`, the machine aiebu writes.
pub const EM_M32: u16 = 1;

/// What a section of the file holds, by its name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    Transaction,
    Packets,
}

fn holds(name: &str) -> Option<Holds> {
    match name {
        ".ctrltext" | ".preempt_save" | ".preempt_restore" => Some(Holds::Transaction),
        ".ctrldata" => Some(Holds::Packets),
        _ if name.starts_with(".ctrlpkt.pm.") => Some(Holds::Packets),
        _ => None,
    }
}

/// True for aiebu's AIE2 ELF.
fn is_aie2(elf: &Elf) -> bool {
    elf.osabi == OSABI_AIE2 && elf.machine == EM_M32
}

/// The ELF reader's hook for the sections of aiebu's AIE2 ELF, by name.
pub static ELF_SECTION: SectionHook = SectionHook {
    claims: |s| holds(&s.name).is_some(),
    decode: |b, id, elf, s, at| {
        if !is_aie2(elf) {
            return false;
        }
        match holds(&s.name) {
            Some(Holds::Transaction) => super::parse_transaction(b, id, at),
            Some(Holds::Packets) => packets(b, id, at),
            None => return false,
        }
        true
    },
};

// ---------------------------------------------------------------------------
// relocations

/// aiebu's patch schemes, its relocation types: the type, its name, and
/// the bytes it patches from `r_offset` (offset and length), where aiebu's
/// writer places them for AIE2.
const SCHEMES: &[(u32, &str, u64, u64)] = &[
    (1, "uc_dma_remote_ptr_symbol", 0, 4),
    (2, "shim_dma_57", 0, 4),
    // The word at r_offset, under the mask the symbol's size holds.
    (3, "scaler_32", 0, 4),
    // r_offset is 8 bytes before the 48-bit address in the packet's data.
    (4, "control_packet_48", 8, 6),
    // r_offset is the buffer descriptor's first word; the address is in
    // its second and third words (46 bits of a 48-bit byte address).
    (5, "shim_dma_48", 4, 6),
    (6, "shim_dma_57_aie4", 0, 4),
    (7, "control_packet_57", 0, 4),
    (8, "unknown", 0, 4),
];

fn scheme(t: u64) -> Option<&'static (u32, &'static str, u64, u64)> {
    SCHEMES.iter().find(|s| u64::from(s.0) == t)
}

/// The vendor of aiebu's AIE2 ELF: its relocation types, where they
/// patch, and XRT's note.
pub struct Aie2Elf;

/// The one [`Aie2Elf`].
pub static VENDOR: Aie2Elf = Aie2Elf;

/// XRT's note type of the file's UID (`.note.xrt.UID`).
const NT_XRT_UID: u32 = 4;

impl Vendor for Aie2Elf {
    fn reloc_name(&self, t: u32) -> Option<&'static str> {
        scheme(t.into()).map(|s| s.1)
    }
    fn reloc_patch(&self, typ: u64, r_offset: u64) -> Option<(u64, u64)> {
        let s = scheme(typ)?;
        Some((r_offset.checked_add(s.2)?, s.3))
    }
    fn owns_note(&self, owner: &[u8]) -> bool {
        owner == b"XRT"
    }
    fn note_type(&self, _owner: &[u8], t: u32) -> Option<&'static str> {
        (t == NT_XRT_UID).then_some("NT_XRT_UID")
    }
}

// ---------------------------------------------------------------------------
// control packets

/// A bit field of a packet's header word: its name, first bit and width.
type Bits = (&'static str, u32, u32);

/// The stream packet header.
const PACKET_HEADER: &[Bits] = &[
    ("packet_id", 0, 5),
    ("packet_type", 12, 3),
    ("source_row", 16, 5),
    ("source_column", 21, 7),
    ("parity", 31, 1),
];

/// The control packet header.
const CONTROL_HEADER: &[Bits] = &[
    ("address", 0, 20),
    ("beats", 20, 2),
    ("operation", 22, 2),
    ("return_stream_id", 24, 5),
    ("parity", 31, 1),
];

/// A control header's operations.
const OPERATIONS: &[&str] = &["write", "read", "write with return", "reserved"];

fn field(w: u32, (_, lo, n): Bits) -> u32 {
    (w >> lo) & ((1u32 << n) - 1)
}

/// The value of field `name` of `w` under `table`.
fn get(w: u32, table: &[Bits], name: &str) -> u32 {
    table
        .iter()
        .find(|f| f.0 == name)
        .map_or(0, |&f| field(w, f))
}

/// True when `w` has an odd number of bits set, as a header needs.
fn odd(w: u32) -> bool {
    w.count_ones() % 2 == 1
}

fn word(d: &[u8], at: u64) -> Option<u32> {
    super::le32(d, at)
}

/// The header words of the packet at `at` in `d`, the bytes past `d`'s
/// end read as 0.
fn read_packet(d: &[u8], at: u64) -> Packet {
    let s = usize::try_from(at)
        .ok()
        .and_then(|i| d.get(i..))
        .unwrap_or_default();
    Packet::read_zeroed(s, packet::ENDIAN).unwrap_or(Packet {
        packet_header: 0,
        control_header: 0,
    })
}

/// A packet's size in bytes from its start (headers and data, as its
/// control header gives them, even past the end of `d`), and the zero
/// words after it up to the next packet: `(packet, padding)`.
fn packet_len(d: &[u8], at: u64) -> (u64, u64) {
    let c = word(d, packet::AT.control_header.of(at)).unwrap_or(0);
    let n = packet::SIZE + WORD * data_words(c);
    let len = d.len() as u64;
    let end = at + n;
    let mut pad = end;
    while pad + WORD <= len && word(d, pad) == Some(0) {
        pad += WORD;
    }
    (n, pad - end)
}

/// The data words of a packet whose control header is `c`: its `beats`
/// field counts them less one.
fn data_words(c: u32) -> u64 {
    u64::from(get(c, CONTROL_HEADER, "beats")) + 1
}

/// Decodes the control packets in `sec`: each packet its own node (built
/// when shown), and the bytes after the last whole packet.
fn packets(b: &mut Builder<'_>, id: NodeId, sec: Span) {
    let d = b.bytes(sec);
    let mut marks = Vec::new();
    let mut count = 0u64;
    let mut at = 0u64;
    // Zero words before the first packet.
    while at + WORD <= sec.len && word(d, at) == Some(0) {
        at += WORD;
    }
    let first = at;
    let mut bad_parity = 0u64;
    while at + packet::SIZE <= sec.len {
        let (n, pad) = packet_len(d, at);
        if at + n > sec.len {
            break;
        }
        if count.is_multiple_of(GROUP) {
            marks.push(sec.offset + at);
        }
        let p = read_packet(d, at);
        if !odd(p.packet_header) || !odd(p.control_header) {
            bad_parity += 1;
        }
        count += 1;
        at += n + pad;
    }
    if first > 0 {
        bytes_leaf(b, id, "padding", sec.take(first));
    }
    let g = b.add(
        id,
        "packets",
        sec.offset + first,
        at - first,
        Some(Value::with(count, Radix::Dec, " control packets")),
    );
    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        let d = b.slice(at, sec.end().saturating_sub(at));
        let (n, pad) = packet_len(d, 0);
        packet(b, p, i, at, d, n, pad);
        Some(at + n + pad)
    });
    b.seq(g, Seq::from_marks(marks, count, sec.offset + at, step));
    if bad_parity > 0 {
        b.warn(
            sec.offset + first,
            at - first,
            format!("{bad_parity} packets have a header without odd parity"),
        );
    }
    if at < sec.len {
        b.error(
            sec.offset + at,
            sec.len - at,
            format!("{} bytes after the last whole control packet", sec.len - at),
        );
        bytes_leaf(b, id, "rest", sec.skip(at));
    }
}

/// One packet at `at` (its bytes `d` from there): `n` bytes of headers and
/// data, `pad` zero bytes after.
fn packet(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64, d: &[u8], n: u64, pad: u64) {
    let Packet {
        packet_header: h,
        control_header: c,
    } = read_packet(d, 0);
    let addr = get(c, CONTROL_HEADER, "address");
    let op = get(c, CONTROL_HEADER, "operation");
    let beats = (n - packet::SIZE) / WORD;
    let id = b.group(p, format!("[{i}] packet"), at, n + pad);
    b.set_value(
        id,
        format!(
            "id {}: {} {beats} words at 0x{addr:05x}",
            get(h, PACKET_HEADER, "packet_id"),
            OPERATIONS.get(op as usize).copied().unwrap_or("?"),
        ),
    );
    header(b, id, "packet_header", at, h, PACKET_HEADER);
    let ch = packet::AT.control_header.of(at);
    header(b, id, "control_header", ch, c, CONTROL_HEADER);
    if beats > 0 {
        let data = packet::SIZE;
        let dg = b.group(id, "data", at + data, WORD * beats);
        for k in 0..beats {
            let v = word(d, data + WORD * k).unwrap_or(0);
            let to = addr.wrapping_add(4 * k as u32);
            b.leaf(
                dg,
                format!("[{k}]"),
                at + data + WORD * k,
                WORD,
                Value::with(v.into(), Radix::HexWide, format!(" (to 0x{to:05x})")).with_width(4),
            );
        }
    }
    if pad > 0 {
        bytes_leaf(b, id, "padding", b.span(at + n, pad));
    }
}

/// A header word and its bit fields.
fn header(b: &mut Builder<'_>, p: NodeId, name: &str, at: u64, w: u32, table: &[Bits]) {
    let g = b.group(p, name, at, 4);
    b.set_value(g, Value::hex_wide(w.into(), 4));
    for &f in table {
        let v = u64::from(field(w, f));
        let value = match f.0 {
            "address" => Value::hex_wide(v, 3),
            "beats" => Value::with(v + 1, Radix::Dec, " words"),
            "operation" => crate::model::named(v, OPERATIONS.get(v as usize).copied()),
            "parity" => Value::with(
                v,
                Radix::Dec,
                if odd(w) { " (odd)" } else { " (even: wrong)" },
            ),
            _ => Value::dec(v),
        };
        // The bytes the field's bits lie in.
        let (first, last) = (f.1 / 8, (f.1 + f.2 - 1) / 8);
        b.leaf(
            g,
            f.0,
            at + u64::from(first),
            u64::from(last - first + 1),
            value,
        );
    }
}
