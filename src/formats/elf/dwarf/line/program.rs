//! The line program's state machine: each opcode read and run, the row
//! it appends kept with it.

use std::fmt::Write as _;

use compact_str::CompactString;

use super::header::Header;
use super::read::{Ctx, Cur};

/// An operand of a standard opcode.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Operand {
    Uleb,
    Sleb,
    /// `DW_LNS_fixed_advance_pc`'s 2-byte operand.
    Half,
}

/// The standard opcodes 1 to 12 and their operands (DWARF 5, 6.2.5.2).
pub(super) const STANDARD: [&[Operand]; 12] = [
    &[],              // DW_LNS_copy
    &[Operand::Uleb], // DW_LNS_advance_pc
    &[Operand::Sleb], // DW_LNS_advance_line
    &[Operand::Uleb], // DW_LNS_set_file
    &[Operand::Uleb], // DW_LNS_set_column
    &[],              // DW_LNS_negate_stmt
    &[],              // DW_LNS_set_basic_block
    &[],              // DW_LNS_const_add_pc
    &[Operand::Half], // DW_LNS_fixed_advance_pc
    &[],              // DW_LNS_set_prologue_end
    &[],              // DW_LNS_set_epilogue_begin
    &[Operand::Uleb], // DW_LNS_set_isa
];

// ---- the state machine ----

/// The line table's registers (DWARF 5, 6.2.2), with the section of the
/// address in an object file.
#[derive(Clone, Copy, Debug)]
pub(super) struct State {
    pub(super) addr: u64,
    pub(super) op_index: u64,
    pub(super) file: u64,
    /// 32 bits, wrapping, as llvm-dwarfdump keeps it.
    pub(super) line: u32,
    pub(super) column: u64,
    pub(super) is_stmt: bool,
    pub(super) basic_block: bool,
    pub(super) end_sequence: bool,
    pub(super) prologue_end: bool,
    pub(super) epilogue_begin: bool,
    pub(super) isa: u64,
    pub(super) discriminator: u64,
    pub(super) sec: Option<u32>,
}

impl State {
    pub(super) fn new(h: &Header) -> State {
        State {
            addr: 0,
            op_index: 0,
            file: 1,
            line: 1,
            column: 0,
            is_stmt: h.default_is_stmt,
            basic_block: false,
            end_sequence: false,
            prologue_end: false,
            epilogue_begin: false,
            isa: 0,
            discriminator: 0,
            sec: None,
        }
    }

    /// Advances by `adv` operations.
    pub(super) fn advance(&mut self, h: &Header, adv: u64) {
        let min = u64::from(h.min_inst);
        if h.max_ops <= 1 {
            self.addr = self.addr.wrapping_add(min.wrapping_mul(adv));
        } else {
            let max = u64::from(h.max_ops);
            let ops = self.op_index.wrapping_add(adv);
            self.addr = self.addr.wrapping_add(min.wrapping_mul(ops / max));
            self.op_index = ops % max;
        }
    }

    /// After a row is appended.
    pub(super) fn appended(&mut self, h: &Header) {
        if self.end_sequence {
            *self = State::new(h);
        } else {
            self.discriminator = 0;
            self.basic_block = false;
            self.prologue_end = false;
            self.epilogue_begin = false;
        }
    }

    /// The row as shown, `0x0000000000401126 x.c:12:7 is_stmt`, into
    /// `s`.
    pub(super) fn write(&self, h: &Header, s: &mut CompactString) {
        // Written by hand: rows are the most numerous nodes of a debug
        // build, and the formatter costs more than the rest of a row.
        let mut hex = *b"0x0000000000000000 ";
        for (i, c) in hex.iter_mut().skip(2).take(16).enumerate() {
            let nibble = (self.addr >> (60 - 4 * i)) & 0xf;
            *c = b"0123456789abcdef"
                .get(nibble as usize)
                .copied()
                .unwrap_or(b'0');
        }
        s.push_str(std::str::from_utf8(&hex).unwrap_or_default());
        match h.file(self.file) {
            Some(e) if !e.path.is_empty() => s.push_str(&e.path),
            _ => {
                let _ = write!(s, "[{}]", self.file);
            }
        }
        let mut n = itoa::Buffer::new();
        s.push(':');
        s.push_str(n.format(self.line));
        s.push(':');
        s.push_str(n.format(self.column));
        for (on, name) in [
            (self.is_stmt, " is_stmt"),
            (self.basic_block, " basic_block"),
            (self.end_sequence, " end_sequence"),
            (self.prologue_end, " prologue_end"),
            (self.epilogue_begin, " epilogue_begin"),
        ] {
            if on {
                s.push_str(name);
            }
        }
        for (v, name) in [
            (self.isa, "isa"),
            (self.discriminator, "discriminator"),
            (self.op_index, "op_index"),
        ] {
            if v != 0 {
                let _ = write!(s, " {name}={v}");
            }
        }
    }
}

/// What an opcode's operands say, as numbers.
#[derive(Clone, Debug)]
pub(super) enum Shown {
    Nothing,
    Uint(u64),
    Hex(u64),
    Int(i64),
    /// `DW_LNS_set_file`: the file register.
    File(u64),
    /// `DW_LNS_negate_stmt`: `is_stmt` after it.
    Stmt(bool),
    /// `DW_LNS_advance_pc`: operations, bytes.
    AdvancePc(u64, u64),
    /// `DW_LNS_const_add_pc`: bytes.
    ConstAddPc(u64),
    /// `DW_LNS_fixed_advance_pc`: bytes.
    Fixed(u64),
    /// A special opcode: address and line advance.
    Special(u64, i64),
    /// Operands skipped: how many, and of what.
    Skipped(u64, &'static str),
    Str(CompactString),
}

/// An opcode's name: DWARF's, or the number of one DWARF does not name.
#[derive(Clone, Copy, Debug)]
pub(super) enum Name {
    Known(&'static str),
    /// A standard opcode: `DW_LNS_0x0d`.
    Lns(u8),
    /// An extended opcode: `DW_LNE_0x80`.
    Lne(u8),
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Name::Known(s) => f.write_str(s),
            Name::Lns(k) => write!(f, "DW_LNS_0x{k:02x}"),
            Name::Lne(k) => write!(f, "DW_LNE_0x{k:02x}"),
        }
    }
}

/// One opcode as read: where it is, what it is and what it did.
pub(super) struct Op {
    /// Where it starts and its size, in the section.
    pub(super) off: u64,
    pub(super) size: u64,
    pub(super) name: Name,
    /// What its operands say, made into a value only when it is shown.
    pub(super) shown: Shown,
    /// Whether it appended a row: the state [`step`] left is the row
    /// then, until [`State::appended`] makes it the next row's.
    pub(super) row: bool,
    /// What about it is wrong.
    pub(super) problem: Option<String>,
}

/// Reads and runs the opcode at `off` (in the section). `None` past the
/// program's end or where not even its first byte reads. When the opcode
/// appends a row (`row`), `st` is that row: the caller calls
/// [`State::appended`] before the next opcode.
pub(super) fn step(d: &[u8], ctx: &Ctx, h: &Header, st: &mut State, off: u64) -> Option<Op> {
    let mut c = Cur {
        d,
        pos: ctx.at + off,
        end: ctx.at + h.end,
        e: ctx.e,
    };
    let opcode = c.uint(1)? as u8;
    let mut op = Op {
        off,
        size: 1,
        name: Name::Known(""),
        shown: Shown::Nothing,
        row: false,
        problem: None,
    };
    // Whether the opcode appends a row; `None` when it did not read whole
    // (its size and problem are set then).
    let row = if opcode >= h.opcode_base {
        special(h, st, &mut op, opcode - h.opcode_base);
        Some(true)
    } else if opcode == 0 {
        extended(&mut c, ctx, st, &mut op)
    } else {
        standard(&mut c, ctx, h, st, &mut op, opcode)
    };
    let Some(row) = row else {
        return Some(op);
    };
    op.size = c.pos - (ctx.at + off);
    op.row = row;
    Some(op)
}

/// Marks `op` cut short: its operands run past the unit's end (`c.end`).
fn cut(c: &Cur<'_>, ctx: &Ctx, op: &mut Op) {
    op.problem = Some(format!("{}: its operands run past the unit's end", op.name));
    op.size = c.end - (ctx.at + op.off);
}

/// A special opcode, `adjusted` by the opcode base: advances the address
/// and the line at once (and appends a row).
fn special(h: &Header, st: &mut State, op: &mut Op, adjusted: u8) {
    op.name = Name::Known("special");
    // A line_range of 0 advances neither (as llvm-dwarfdump reads it).
    let (adv, dl) = match (
        adjusted.checked_div(h.line_range),
        adjusted.checked_rem(h.line_range),
    ) {
        (Some(a), Some(r)) => (u64::from(a), i64::from(h.line_base) + i64::from(r)),
        _ => {
            op.problem = Some("special opcode with a line_range of 0: no advance".into());
            (0, 0)
        }
    };
    st.advance(h, adv);
    st.line = st.line.wrapping_add(dl as u32);
    op.shown = Shown::Special(adv * u64::from(h.min_inst), dl);
}

/// An extended opcode: a ULEB length, then the sub-opcode and its
/// operands. Whether it appends a row; `None` when it does not read whole.
fn extended(c: &mut Cur<'_>, ctx: &Ctx, st: &mut State, op: &mut Op) -> Option<bool> {
    use gimli::constants as k;
    let Some(len) = c.uleb() else {
        op.name = Name::Known("extended");
        cut(c, ctx, op);
        return None;
    };
    let body = c.pos;
    let stop = body.saturating_add(len);
    if len == 0 || stop > c.end {
        op.name = Name::Known("extended");
        op.problem = Some(format!("extended opcode of {len} bytes: not read"));
        op.size = stop.min(c.end) - (ctx.at + op.off);
        return None;
    }
    c.end = stop;
    let sub = c.uint(1).unwrap_or(0) as u8;
    let dw = gimli::DwLne(sub);
    op.name = dw.static_string().map_or(Name::Lne(sub), Name::Known);
    let mut row = false;
    match dw {
        k::DW_LNE_end_sequence => {
            st.end_sequence = true;
            row = true;
        }
        k::DW_LNE_set_address => {
            let n = stop - c.pos;
            let at = c.pos;
            match c.uint(n).filter(|_| (1..=8).contains(&n)) {
                Some(raw) => {
                    let (a, sec) = match ctx.reloc(at - ctx.at) {
                        Some((v, s)) => (v, Some(s)),
                        None => (raw, None),
                    };
                    st.addr = a;
                    st.op_index = 0;
                    st.sec = sec;
                    op.shown = Shown::Hex(a);
                }
                None => op.problem = Some(format!("an address of {n} bytes: not read")),
            }
        }
        k::DW_LNE_define_file => {
            let name = c.cstr().map(crate::model::text::from_bytes);
            let _ = (c.uleb(), c.uleb(), c.uleb());
            op.shown = name.map_or(Shown::Nothing, |n| Shown::Str(n.into()));
        }
        k::DW_LNE_set_discriminator => match c.uleb() {
            Some(v) => {
                st.discriminator = v;
                op.shown = Shown::Uint(v);
            }
            None => op.problem = Some("its operand does not read".into()),
        },
        _ => {
            op.shown = Shown::Skipped(len - 1, " bytes of operands, skipped");
        }
    }
    c.pos = stop;
    Some(row)
}

/// A standard opcode (1 to `opcode_base - 1`) with the operands the header
/// declares for it. Whether it appends a row; `None` when it does not read
/// whole.
fn standard(
    c: &mut Cur<'_>,
    ctx: &Ctx,
    h: &Header,
    st: &mut State,
    op: &mut Op,
    opcode: u8,
) -> Option<bool> {
    let known = STANDARD.get(usize::from(opcode) - 1).copied();
    let declared = h.lengths.get(usize::from(opcode) - 1).copied().unwrap_or(0);
    op.name = gimli::DwLns(opcode)
        .static_string()
        .map_or(Name::Lns(opcode), Name::Known);
    let fits = known.is_some_and(|o| o.len() == usize::from(declared));
    if !fits {
        // Unknown, or declared with other operands than DWARF gives
        // it: as many ULEBs as the header says, skipped.
        for _ in 0..declared {
            if c.uleb().is_none() {
                cut(c, ctx, op);
                return None;
            }
        }
        op.shown = Shown::Skipped(
            u64::from(declared),
            " operands, skipped as the header declares",
        );
        if known.is_some() {
            op.problem = Some(format!(
                "{}: the header declares {declared} operands; it has {}",
                op.name,
                known.map_or(0, |o| o.len())
            ));
        }
        return Some(false);
    }
    let operand = known.and_then(|o| o.first().copied());
    let v = match operand {
        Some(Operand::Uleb) => c.uleb(),
        Some(Operand::Sleb) => c.sleb().map(|v| v as u64),
        Some(Operand::Half) => c.uint(2),
        None => Some(0),
    };
    let Some(v) = v else {
        cut(c, ctx, op);
        return None;
    };
    Some(run_standard(h, st, op, opcode, v))
}

/// Runs standard opcode `opcode` with its operand `v` (0 when it has
/// none); whether it appends a row.
fn run_standard(h: &Header, st: &mut State, op: &mut Op, opcode: u8, v: u64) -> bool {
    use gimli::constants as k;
    match gimli::DwLns(opcode) {
        k::DW_LNS_copy => return true,
        k::DW_LNS_advance_pc => {
            st.advance(h, v);
            op.shown = Shown::AdvancePc(v, v.wrapping_mul(u64::from(h.min_inst)));
        }
        k::DW_LNS_advance_line => {
            st.line = st.line.wrapping_add(v as u32);
            op.shown = Shown::Int(v as i64);
        }
        k::DW_LNS_set_file => {
            st.file = v;
            op.shown = Shown::File(v);
        }
        k::DW_LNS_set_column => {
            st.column = v;
            op.shown = Shown::Uint(v);
        }
        k::DW_LNS_negate_stmt => {
            st.is_stmt = !st.is_stmt;
            op.shown = Shown::Stmt(st.is_stmt);
        }
        k::DW_LNS_set_basic_block => st.basic_block = true,
        k::DW_LNS_const_add_pc => {
            let adv = (255 - h.opcode_base)
                .checked_div(h.line_range)
                .map_or(0, u64::from);
            st.advance(h, adv);
            op.shown = Shown::ConstAddPc(adv * u64::from(h.min_inst));
        }
        k::DW_LNS_fixed_advance_pc => {
            st.addr = st.addr.wrapping_add(v);
            st.op_index = 0;
            op.shown = Shown::Fixed(v);
        }
        k::DW_LNS_set_prologue_end => st.prologue_end = true,
        k::DW_LNS_set_epilogue_begin => st.epilogue_begin = true,
        k::DW_LNS_set_isa => {
            st.isa = v;
            op.shown = Shown::Uint(v);
        }
        _ => {}
    }
    false
}
