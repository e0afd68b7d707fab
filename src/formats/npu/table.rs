//! The ops table: one row an op, giving its opcode, its name, how its
//! length is known and the layout of its fields. The walk, the op nodes,
//! their summaries and the checks all read these rows; adding an op is
//! adding a row.
//!
//! A field is placed by its first bit counted from the op's start, the
//! bits of each little-endian word numbered from its least significant
//! one: bit `8*k` is byte `k` of a transaction op, bit `32*w + b` is bit
//! `b` of word `w` of an instruction sequence op.
//!
//! Transaction layouts are aie-rt's `xaiegbl.h`/`xaie_txn.h` structures
//! (the version 0.1 header and its `XAie_*Hdr` structs, version 1.0 and its
//! `_opt` structs; custom ops carry `XAie_CustomOpHdr` and a payload);
//! instruction sequence layouts are those mlir-aie's IPU target wrote.

/// What a field holds and how it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The opcode.
    Opcode,
    /// A number shown in decimal.
    Dec,
    /// A number, a mask or an id shown in hex.
    Hex,
    /// Padding or reserved bits.
    Pad,
    /// The op's length in bytes, header included.
    Size,
    /// An AIE address: column, row and register offset in one word (the
    /// low word of a 64-bit field).
    Addr,
    /// A register offset in the tile the op's `column` and `row` fields
    /// name.
    Reg,
    /// The value written to (or polled at) the op's address.
    Value,
    /// The mask applied to the op's value.
    Mask,
    /// A byte count.
    Bytes,
    /// A named constant: the names, by value.
    Named(&'static [&'static str]),
    /// The direction of a DMA channel: 0 S2MM, 1 MM2S.
    Dir,
    /// A kernel argument's index (named when the file is paired with the
    /// xclbin that declares the kernel).
    Arg,
    /// Word `k` of the shim buffer descriptor the op's `bd_id` names.
    BdWord(u8),
    /// A job runner's register: `r0`..`r7` local to a job, `g0`..`g15`
    /// (8..23) global.
    JobReg,
    /// A local barrier, `lb0`..`lb15`.
    LocalBarrier,
    /// A remote barrier, `rb0`..`rb63` (1..64).
    RemoteBarrier,
    /// A tile: its row in bits 4..0, its column in bits 11..5.
    Tile,
    /// A DMA channel: 0..5 S2MM 0..5, 6 and up MM2S 0 and up.
    Actor,
    /// A byte offset into the control page, from the end of its header:
    /// where the uC-DMA buffer descriptors the op starts lie.
    PagePtr,
    /// The index of another page of the control code.
    Page,
}

/// One field of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    /// The first bit, from the op's start.
    pub at: u16,
    pub bits: u8,
    pub kind: Kind,
}

impl Field {
    /// The first byte and the byte count of a byte-aligned field.
    pub const fn bytes(&self) -> Option<(u64, u64)> {
        if self.at.is_multiple_of(8) && self.bits.is_multiple_of(8) {
            Some(((self.at / 8) as u64, (self.bits / 8) as u64))
        } else {
            None
        }
    }
}

/// What follows an op's fields, up to its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rest {
    /// Nothing (bytes left over are reported).
    None,
    /// Words written from the op's address on.
    Data,
    /// The addresses of registers read: `count` of them, 32-bit right after
    /// the field before or 64-bit after a padding word, as the length says.
    Registers,
    /// Bytes of a payload nothing more is known of.
    Payload,
}

/// How long an op is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Len {
    /// Always this many bytes (words, in a sequence).
    Fixed(u32),
    /// The 32-bit field at this byte gives it, in bytes.
    Field(u16),
    /// No serialized form is known: the walk cannot go past it.
    Unknown,
}

/// One op.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub code: u8,
    pub name: &'static str,
    pub len: Len,
    pub fields: &'static [Field],
    pub rest: Rest,
    /// The op node's value: text with `{field}` for a field's value.
    pub summary: &'static str,
}

const fn f(name: &'static str, at: u16, bits: u8, kind: Kind) -> Field {
    Field {
        name,
        at,
        bits,
        kind,
    }
}

/// A byte-aligned field at byte `byte`.
const fn b(name: &'static str, byte: u16, bytes: u8, kind: Kind) -> Field {
    f(name, byte * 8, bytes * 8, kind)
}

const fn op(
    code: u8,
    name: &'static str,
    len: Len,
    fields: &'static [Field],
    rest: Rest,
    summary: &'static str,
) -> Op {
    Op {
        code,
        name,
        len,
        fields,
        rest,
        summary,
    }
}

use Kind::*;

/// XAie_Preempt_level.
pub const PREEMPT_LEVELS: &[&str] = &["NOOP", "MEM_TILE", "AIE_TILE", "AIE_REGISTERS", "INVALID"];
/// XAie_UsageType.
const USAGE: &[&str] = &["STATE_TABLE"];
/// XAie_StateTableFuncType.
const FUNCS: &[&str] = &["MUL", "INCR", "DECR"];

const WRITE: &str = "{address} = {value}";
const MASK_WRITE: &str = "{address} = {value} under mask {mask}";
const POLL: &str = "poll {address} & {mask} == {value}";
const POLL_BUSY: &str = "poll {address} & {mask} == {value}, busy";
const BLOCK: &str = "{address} <- {data}";
const TCT: &str =
    "wait for column {column}, row {row}, {direction} channel {channel} ({column_num} columns, {row_num} rows)";
const PATCH: &str = "{address} += argument {arg_index} + {arg_plus}";

// The ops both versions share: none has the op header with a column and
// a row, and custom ops carry `XAie_CustomOpHdr` (its `_opt` form has the
// same bytes): the opcode, three bytes of padding and the op's size.
#[rustfmt::skip]
mod shared {
    use crate::formats::npu::table::{b, op, Field, Kind::*, Len, Op, Rest, BARE, FUNCS, PREEMPT_LEVELS, USAGE};

    pub const NOOP: Op = op(5, "NOOP", Len::Fixed(4), BARE, Rest::None, "no operation");
    pub const PREEMPT: Op = op(6, "PREEMPT", Len::Fixed(4), &[b("opcode", 0, 1, Opcode), b("level", 1, 1, Named(PREEMPT_LEVELS)), b("reserved", 2, 2, Pad)], Rest::None, "preemption point, {level}");
    pub const LOADPDI: Op = op(8, "LOADPDI", Len::Fixed(16), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("pdi_id", 2, 2, Dec), b("pdi_size", 4, 4, Bytes), b("pdi_address", 8, 8, Hex),
    ], Rest::None, "load PDI {pdi_id}, {pdi_size} at {pdi_address}");
    pub const LOAD_PM_START: Op = op(9, "LOAD_PM_START", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("load_sequence_count", 1, 3, Dec), b("pm_load_id", 4, 4, Dec),
    ], Rest::None, "program memory load {pm_load_id}, {load_sequence_count} loads");
    pub const CREATE_SCRATCHPAD: Op = op(10, "CREATE_SCRATCHPAD", Len::Fixed(16), &[
        b("opcode", 0, 1, Opcode), b("usage_type", 1, 1, Named(USAGE)), b("padding", 2, 2, Pad), b("buffer_size", 4, 4, Bytes), b("scratch_offset", 8, 8, Hex),
    ], Rest::None, "{buffer_size} for the {usage_type} at scratch offset {scratch_offset}");
    pub const UPDATE_STATE_TABLE: Op = op(11, "UPDATE_STATE_TABLE", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("state_table_index", 1, 1, Dec), b("function", 2, 1, Named(FUNCS)), b("reserved", 3, 1, Pad), b("argument", 4, 4, Hex),
    ], Rest::None, "state table {state_table_index}: {function} {argument}");
    pub const UPDATE_REG: Op = op(12, "UPDATE_REG", Len::Fixed(12), &[
        b("opcode", 0, 1, Opcode), b("state_table_index", 1, 1, Dec), b("function", 2, 1, Named(FUNCS)), b("reserved", 3, 1, Pad), b("argument", 4, 4, Hex),
        b("address", 8, 4, Addr),
    ], Rest::None, "{address} from state table {state_table_index}: {function} {argument}");
    pub const UPDATE_SCRATCH: Op = op(13, "UPDATE_SCRATCH", Len::Fixed(4), BARE, Rest::None, "update the scratchpad");
    // aie-rt writes a block set and a shim DMA BD configuration as
    // BLOCKWRITE ops: these opcodes name commands of its in-memory list, and
    // no serialized form of them is defined.
    const UNKNOWN: &str = "no serialized form known";
    pub const BLOCKSET: Op = op(2, "BLOCKSET", Len::Unknown, &[b("opcode", 0, 1, Opcode)], Rest::None, UNKNOWN);
    pub const SHIMDMA_BD: Op = op(14, "CONFIG_SHIMDMA_BD", Len::Unknown, &[b("opcode", 0, 1, Opcode)], Rest::None, UNKNOWN);
    pub const SHIMDMA_DMABUF_BD: Op = op(15, "CONFIG_SHIMDMA_DMABUF_BD", Len::Unknown, &[b("opcode", 0, 1, Opcode)], Rest::None, UNKNOWN);
    pub const PM_END: Op = op(200, "LOAD_PM_END_INTERNAL", Len::Unknown, &[b("opcode", 0, 1, Opcode)], Rest::None, UNKNOWN);

    /// A TCT: the custom op header and `tct_op_t` (a word and a config
    /// word) as mlir-aie fills them.
    pub const TCT_FIELDS: &[Field] = &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size),
        b("direction", 8, 1, Dir), b("row", 9, 1, Dec), b("column", 10, 1, Dec), b("reserved", 11, 1, Pad),
        b("reserved_config", 12, 1, Pad), b("row_num", 13, 1, Dec), b("column_num", 14, 1, Dec), b("channel", 15, 1, Dec),
    ];
    pub const READ_REGS: Op = op(0x82, "READ_REGS", Len::Field(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size), b("count", 8, 4, Dec),
    ], Rest::Registers, "read {count} registers");
    pub const RECORD_TIMER: Op = op(0x83, "RECORD_TIMER", Len::Field(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size), b("id", 8, 4, Dec),
    ], Rest::None, "record timer {id}");
    /// `XAie_Txn_MergeSync`'s word: the token count, then the column count.
    pub const MERGE_SYNC: Op = op(0x84, "MERGE_SYNC", Len::Field(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size),
        b("num_tokens", 8, 1, Dec), b("num_columns", 9, 1, Dec), b("reserved", 10, 2, Pad), b("config", 12, 4, Hex),
    ], Rest::None, "merge {num_tokens} tokens over {num_columns} columns");
    /// A custom op nothing more is known of: its header and its payload.
    pub const CUSTOM: Op = op(0x80, "CUSTOM_OP", Len::Field(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size),
    ], Rest::Payload, "custom op");
}

pub use shared::CUSTOM;
use shared::*;

/// A masked write or poll of version 0.1 (`XAie_MaskWrite32Hdr`,
/// `XAie_MaskPoll32Hdr`).
#[rustfmt::skip]
const MASKED_V0: &[Field] = &[
        b("opcode", 0, 1, Opcode), b("column", 1, 1, Dec), b("row", 2, 1, Dec), b("padding", 3, 5, Pad),
        b("address", 8, 8, Addr), b("value", 16, 4, Value), b("mask", 20, 4, Mask), b("size", 24, 4, Size),
    ];

/// A masked write or poll of version 1.0 (`XAie_MaskWrite32Hdr_opt`,
/// `XAie_MaskPoll32Hdr_opt`).
#[rustfmt::skip]
const MASKED_V1: &[Field] = &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("address", 4, 4, Addr), b("value", 8, 4, Value), b("mask", 12, 4, Mask),
    ];

/// The ops whose layout both transaction versions share.
#[rustfmt::skip]
pub static TXN_SHARED: &[Op] = &[
    BLOCKSET,
    NOOP,
    PREEMPT,
    LOADPDI,
    LOAD_PM_START,
    CREATE_SCRATCHPAD,
    UPDATE_STATE_TABLE,
    UPDATE_REG,
    UPDATE_SCRATCH,
    SHIMDMA_BD,
    SHIMDMA_DMABUF_BD,
    op(0x80, "TCT", Len::Field(4), TCT_FIELDS, Rest::None, TCT),
    READ_REGS,
    RECORD_TIMER,
    MERGE_SYNC,
    PM_END,
];

/// The ops of a version 0.1 transaction that [`TXN_SHARED`] lacks
/// (`XAie_OpHdr`: opcode, column and row, then the fields at 8-byte
/// alignment).
#[rustfmt::skip]
pub static TXN_V0: &[Op] = &[
    op(0, "WRITE", Len::Field(20), &[
        b("opcode", 0, 1, Opcode), b("column", 1, 1, Dec), b("row", 2, 1, Dec), b("padding", 3, 5, Pad),
        b("address", 8, 8, Addr), b("value", 16, 4, Value), b("size", 20, 4, Size),
    ], Rest::None, WRITE),
    // aie-rt's struct has a column byte at 3 and a row byte at 4 after the
    // op header; mlir-aie writes them at 4 and 5. The tile is its address's.
    op(1, "BLOCKWRITE", Len::Field(12), &[
        b("opcode", 0, 1, Opcode), b("column", 1, 1, Dec), b("row", 2, 1, Dec), b("tile_bytes", 3, 5, Hex),
        b("address", 8, 4, Addr), b("size", 12, 4, Size),
    ], Rest::Data, BLOCK),
    // No aie-rt struct serializes a block set; aiebu's transaction walker
    // takes its size from byte 12, as a BLOCKWRITE's: the op is walked
    // over and its bytes after the address and size shown raw.
    op(2, "BLOCKSET", Len::Field(12), &[
        b("opcode", 0, 1, Opcode), b("column", 1, 1, Dec), b("row", 2, 1, Dec), b("tile_bytes", 3, 5, Hex),
        b("address", 8, 4, Addr), b("size", 12, 4, Size),
    ], Rest::Payload, "{address}: a block set, no serialized form known"),
    op(3, "MASKWRITE", Len::Field(24), MASKED_V0, Rest::None, MASK_WRITE),
    op(4, "MASKPOLL", Len::Field(24), MASKED_V0, Rest::None, POLL),
    op(7, "MASKPOLL_BUSY", Len::Field(24), MASKED_V0, Rest::None, POLL_BUSY),
    // patch_op_t: op_base (type, size), action, then 64-bit fields.
    op(0x81, "DDR_PATCH", Len::Field(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size),
        b("op_type", 8, 4, Hex), b("op_size", 12, 4, Dec), b("action", 16, 4, Hex), b("padding_action", 20, 4, Pad),
        b("address", 24, 8, Addr), b("arg_index", 32, 8, Arg), b("arg_plus", 40, 8, Hex),
    ], Rest::None, PATCH),
];

/// The ops of a version 1.0 ("optimized") transaction that [`TXN_SHARED`]
/// lacks (`XAie_OpHdr_opt`: the opcode and three bytes of padding, then
/// 32-bit fields).
#[rustfmt::skip]
pub static TXN_V1: &[Op] = &[
    op(0, "WRITE", Len::Fixed(12), WRITE_OPT, Rest::None, WRITE),
    op(1, "BLOCKWRITE", Len::Field(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("address", 4, 4, Addr), b("size", 8, 4, Size),
    ], Rest::Data, BLOCK),
    op(3, "MASKWRITE", Len::Fixed(16), MASKED_V1, Rest::None, MASK_WRITE),
    op(4, "MASKPOLL", Len::Fixed(16), MASKED_V1, Rest::None, POLL),
    op(7, "MASKPOLL_BUSY", Len::Fixed(16), MASKED_V1, Rest::None, POLL_BUSY),
    // patch_op_opt_t: a 32-bit address, an 8-bit argument index.
    op(0x81, "DDR_PATCH", Len::Field(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("size", 4, 4, Size),
        b("address", 8, 4, Addr), b("arg_index", 12, 1, Arg), b("padding_arg", 13, 3, Pad), b("arg_plus", 16, 8, Hex),
    ], Rest::None, PATCH),
];

/// A sequence op's field in word `w`, bits `lsb` up, `bits` wide.
const fn w(name: &'static str, word: u16, lsb: u16, bits: u8, kind: Kind) -> Field {
    f(name, word * 32 + lsb, bits, kind)
}

/// The ops of an instruction sequence: the opcode in the top byte of an
/// op's first word, lengths in words.
#[rustfmt::skip]
pub static IPU: &[Op] = &[
    op(2, "WRITE32", Len::Fixed(3), &[
        w("opcode", 0, 24, 8, Opcode), w("column", 0, 16, 8, Dec), w("row", 0, 8, 8, Dec), w("reserved", 0, 0, 8, Pad),
        w("address", 1, 0, 32, Reg), w("value", 2, 0, 32, Value),
    ], Rest::None, WRITE),
    op(3, "SYNC", Len::Fixed(2), &[
        w("opcode", 0, 24, 8, Opcode), w("column", 0, 16, 8, Dec), w("row", 0, 8, 8, Dec), w("reserved", 0, 1, 7, Pad),
        w("direction", 0, 0, 1, Dir),
        w("channel", 1, 24, 8, Dec), w("column_num", 1, 16, 8, Dec), w("row_num", 1, 8, 8, Dec), w("reserved_config", 1, 0, 8, Pad),
    ], Rest::None, TCT),
    op(6, "WRITEBD_EXTEND_SHIMTILE", Len::Fixed(10), &[
        w("opcode", 0, 24, 8, Opcode), w("column", 0, 16, 8, Dec), w("column_num", 0, 8, 8, Dec), w("ddr_id", 0, 4, 4, Dec),
        w("bd_id", 0, 0, 4, Dec), w("address_increment", 1, 0, 32, Hex),
        w("bd_word0", 2, 0, 32, BdWord(0)), w("bd_word1", 3, 0, 32, BdWord(1)), w("bd_word2", 4, 0, 32, BdWord(2)),
        w("bd_word3", 5, 0, 32, BdWord(3)), w("bd_word4", 6, 0, 32, BdWord(4)), w("bd_word5", 7, 0, 32, BdWord(5)),
        w("bd_word6", 8, 0, 32, BdWord(6)), w("bd_word7", 9, 0, 32, BdWord(7)),
    ], Rest::None, "shim BD {bd_id} of column {column}, buffer {ddr_id}"),
];

/// A 32-bit write (or poll) of a value to an address, after the opcode and
/// three bytes of padding: a version 1.0 transaction's `WRITE`
/// (`XAie_Write32Hdr_opt`) and control code's `WRITE_32` and `POLL_32`.
#[rustfmt::skip]
const WRITE_OPT: &[Field] = &[
    b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("address", 4, 4, Addr), b("value", 8, 4, Value),
];
/// A job's start: its id and its size in bytes, from this op through its
/// END_JOB.
#[rustfmt::skip]
const JOB: &[Field] = &[
    b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("job_id", 2, 2, Dec), b("size", 4, 2, Bytes), b("padding_end", 6, 2, Pad),
];
/// An op of no operands: the opcode and padding.
const BARE: &[Field] = &[b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad)];
/// A masked write or poll of a register.
#[rustfmt::skip]
const MASKED_CERT: &[Field] = &[
    b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("address", 4, 4, Addr), b("mask", 8, 4, Mask), b("value", 12, 4, Value),
];
/// A job runner register and a 32-bit value.
#[rustfmt::skip]
const REG_VALUE: &[Field] = &[
    b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("dest", 2, 1, JobReg), b("padding_dest", 3, 1, Pad), b("value", 4, 4, Hex),
];

/// The ops of the control code aiebu assembles for AIE2PS and AIE4 NPUs
/// (its `aie2ps` ISA): the opcode, a padding byte, then the operands in
/// order, little-endian, each at the byte after the one before.
#[rustfmt::skip]
pub static CERT: &[Op] = &[
    op(0x00, "START_JOB", Len::Fixed(8), JOB, Rest::None, "job {job_id}, {size}"),
    op(0x01, "UC_DMA_WRITE_DES", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("wait_handle", 2, 1, JobReg), b("padding_handle", 3, 1, Pad),
        b("descriptor_ptr", 4, 2, PagePtr), b("padding_end", 6, 2, Pad),
    ], Rest::None, "uC-DMA from {descriptor_ptr}, handle in {wait_handle}"),
    op(0x02, "WAIT_UC_DMA", Len::Fixed(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("wait_handle", 2, 1, JobReg), b("padding_end", 3, 1, Pad),
    ], Rest::None, "wait for the uC-DMA of {wait_handle}"),
    op(0x03, "MASK_WRITE_32", Len::Fixed(16), MASKED_CERT, Rest::None, MASK_WRITE),
    op(0x05, "WRITE_32", Len::Fixed(12), WRITE_OPT, Rest::None, WRITE),
    op(0x06, "WAIT_TCTS", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("tile_id", 2, 2, Tile), b("actor_id", 4, 1, Actor),
        b("padding_actor", 5, 1, Pad), b("target_tcts", 6, 1, Dec), b("padding_end", 7, 1, Pad),
    ], Rest::None, "wait for {target_tcts} task completion tokens from {actor_id} of {tile_id}"),
    op(0x07, "END_JOB", Len::Fixed(4), BARE, Rest::None, "end of the job"),
    op(0x08, "YIELD", Len::Fixed(4), BARE, Rest::None, "yield"),
    op(0x09, "UC_DMA_WRITE_DES_SYNC", Len::Fixed(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("descriptor_ptr", 2, 2, PagePtr),
    ], Rest::None, "uC-DMA from {descriptor_ptr}, waited for"),
    op(0x0b, "WRITE_32_D", Len::Fixed(12), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("flags", 2, 1, Hex), b("padding_flags", 3, 1, Pad),
        b("address", 4, 4, Addr), b("value", 8, 4, Value),
    ], Rest::None, WRITE),
    op(0x0c, "READ_32", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("value", 2, 1, JobReg), b("padding_value", 3, 1, Pad), b("address", 4, 4, Addr),
    ], Rest::None, "{value} = {address}"),
    op(0x0d, "READ_32_D", Len::Fixed(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("address", 2, 1, JobReg), b("value", 3, 1, JobReg),
    ], Rest::None, "{value} = the register {address} holds the address of"),
    op(0x0e, "APPLY_OFFSET_57", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("table_ptr", 2, 2, PagePtr), b("num_entries", 4, 2, Dec), b("offset", 6, 2, Hex),
    ], Rest::None, "add offset {offset} to {num_entries} buffer descriptors from {table_ptr}"),
    op(0x0f, "ADD", Len::Fixed(8), REG_VALUE, Rest::None, "{dest} += {value}"),
    op(0x10, "MOV", Len::Fixed(8), REG_VALUE, Rest::None, "{dest} = {value}"),
    op(0x11, "LOCAL_BARRIER", Len::Fixed(4), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("local_barrier_id", 2, 1, LocalBarrier), b("num_participants", 3, 1, Dec),
    ], Rest::None, "barrier {local_barrier_id} of {num_participants} jobs"),
    op(0x12, "REMOTE_BARRIER", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("remote_barrier_id", 2, 1, RemoteBarrier), b("padding_id", 3, 1, Pad),
        b("party_mask", 4, 4, Hex),
    ], Rest::None, "barrier {remote_barrier_id} of the job runners {party_mask}"),
    op(0x13, "POLL_32", Len::Fixed(12), WRITE_OPT, Rest::None, "poll {address} == {value}"),
    op(0x14, "MASK_POLL_32", Len::Fixed(16), MASKED_CERT, Rest::None, POLL),
    op(0x15, "TRACE", Len::Fixed(4), &[b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("info", 2, 2, Hex)], Rest::None, "trace {info}"),
    op(0x16, "NOP", Len::Fixed(4), BARE, Rest::None, "no operation"),
    op(0x17, "START_JOB_DEFERRED", Len::Fixed(8), JOB, Rest::None, "deferred job {job_id}, {size}"),
    op(0x18, "LAUNCH_JOB", Len::Fixed(4), &[b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("job_id", 2, 2, Dec)], Rest::None, "launch job {job_id}"),
    op(0x19, "PREEMPTION_CHECKPOINT", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("id", 2, 2, Dec),
        b("save_control_code_offset", 4, 2, Page), b("restore_control_code_offset", 6, 2, Page),
    ], Rest::None, "preemption checkpoint {id}: save {save_control_code_offset}, restore {restore_control_code_offset}"),
    op(0x1a, "LOAD_PDI", Len::Fixed(6), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 1, Pad), b("pdi_id", 2, 2, Dec), b("pdi_host_addr_offset", 4, 2, Page),
    ], Rest::None, "load PDI {pdi_id} from {pdi_host_addr_offset}"),
    op(0x1b, "LOAD_LAST_PDI", Len::Fixed(4), BARE, Rest::None, "load the last PDI again"),
    op(0x1c, "SAVE_TIMESTAMPS", Len::Fixed(8), &[
        b("opcode", 0, 1, Opcode), b("padding", 1, 3, Pad), b("unq_id", 4, 4, Dec),
    ], Rest::None, "save timestamps, id {unq_id}"),
    op(0xff, "EOF", Len::Fixed(4), BARE, Rest::None, "end of the page's ops"),
];

/// A control-code uC-DMA buffer descriptor's size.
pub const BD: u64 = 16;

/// The text name of an operand that names a register, a barrier or a DMA
/// channel, as aiebu's listings write them.
pub fn operand_name(kind: Kind, x: u64) -> Option<String> {
    Some(match kind {
        Kind::JobReg if x < 8 => format!("r{x}"),
        Kind::JobReg if x < 24 => format!("g{}", x - 8),
        Kind::LocalBarrier => format!("lb{x}"),
        Kind::RemoteBarrier if x >= 1 => format!("rb{}", x - 1),
        Kind::Actor if x < 6 => format!("S2MM_{x}"),
        Kind::Actor => format!("MM2S_{}", x - 6),
        _ => return None,
    })
}

/// The row of opcode `code` in `table`.
pub fn find(table: &'static [Op], code: u8) -> Option<&'static Op> {
    table.iter().find(|o| o.code == code)
}

/// The bytes the fields of `row` take.
pub fn fields_end(row: &Op, seq: bool) -> u64 {
    let bits = row
        .fields
        .iter()
        .map(|f| u64::from(f.at) + u64::from(f.bits))
        .max()
        .unwrap_or(0);
    if seq {
        bits.div_ceil(32) * 4
    } else {
        bits.div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_well_formed() {
        for (t, seq) in [
            (TXN_V0, false),
            (TXN_V1, false),
            (TXN_SHARED, false),
            (CERT, false),
            (IPU, true),
        ] {
            for (i, o) in t.iter().enumerate() {
                assert!(
                    !t.iter()
                        .skip(i + 1)
                        .any(|p| p.code == o.code || p.name == o.name),
                    "{} twice",
                    o.name
                );
                assert_eq!(
                    o.fields.first().map(|f| f.kind),
                    Some(Kind::Opcode),
                    "{}",
                    o.name
                );
                for (k, fd) in o.fields.iter().enumerate() {
                    assert!(
                        !o.fields.iter().skip(k + 1).any(|g| g.name == fd.name),
                        "{}: {} twice",
                        o.name,
                        fd.name
                    );
                    // A field spans at most two words.
                    let lsb = fd.at % 32;
                    assert!(u16::from(fd.bits) + lsb <= 64, "{}: {}", o.name, fd.name);
                    if let Len::Fixed(n) = o.len {
                        let n = if seq { n * 32 } else { n * 8 };
                        assert!(
                            u32::from(fd.at) + u32::from(fd.bits) <= n,
                            "{}: {}",
                            o.name,
                            fd.name
                        );
                    }
                    if !seq {
                        assert!(fd.bytes().is_some(), "{}: {}", o.name, fd.name);
                    }
                }
                if let Len::Field(at) = o.len {
                    assert!(
                        o.fields
                            .iter()
                            .any(|fd| fd.kind == Kind::Size && fd.at == at * 8 && fd.bits == 32),
                        "{}",
                        o.name
                    );
                }
                // Every field a summary names is in the layout.
                let mut s = o.summary;
                while let Some((_, rest)) = s.split_once('{') {
                    let (name, after) = rest.split_once('}').unwrap_or((rest, ""));
                    assert!(
                        name == "data" || o.fields.iter().any(|fd| fd.name == name),
                        "{}: {{{name}}}",
                        o.name
                    );
                    s = after;
                }
            }
        }
    }
}
