//! Call frame instructions: each opcode with its operands, registers
//! named for the machine, as `llvm-dwarfdump` writes them.

use super::super::line::{leaf, Cur, Item};
use super::entry::Cie;
use super::read::{pointer, register, Ctx};
use crate::model::{Radix, Value};

/// One call frame instruction: its opcode's name, where it is, what its
/// operands say (as `llvm-dwarfdump` writes them: `RSP +8`, `2 to
/// 0x4`) and the operands at their bytes.
pub(super) struct Insn {
    pub(super) name: String,
    pub(super) off: u64,
    pub(super) size: u64,
    pub(super) text: String,
    pub(super) operands: Vec<Item>,
}

/// The operand shapes of the primary opcodes 0x00 to 0x16 and the
/// extensions after them: which each reads.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    /// An unsigned LEB128 register.
    Reg,
    /// An unsigned LEB128 offset, factored by the data alignment.
    Factored,
    /// A signed LEB128 offset, factored.
    SFactored,
    /// An unsigned LEB128 offset, as it is.
    Offset,
    /// A signed LEB128 offset... as it is (`DW_CFA_GNU_negative_offset_extended` negates it).
    Negated,
    /// A DWARF expression: its ULEB128 length, then its bytes.
    Expr,
    /// An address advance of 1, 2 or 4 bytes, factored by the code
    /// alignment.
    Delta(u8),
    /// An address in the FDE's encoding.
    Address,
}

/// The opcodes DWARF defines, their names and operands.
const OPCODES: [(u8, &str, &[Op]); 26] = [
    (0x00, "DW_CFA_nop", &[]),
    (0x01, "DW_CFA_set_loc", &[Op::Address]),
    (0x02, "DW_CFA_advance_loc1", &[Op::Delta(1)]),
    (0x03, "DW_CFA_advance_loc2", &[Op::Delta(2)]),
    (0x04, "DW_CFA_advance_loc4", &[Op::Delta(4)]),
    (0x05, "DW_CFA_offset_extended", &[Op::Reg, Op::Factored]),
    (0x06, "DW_CFA_restore_extended", &[Op::Reg]),
    (0x07, "DW_CFA_undefined", &[Op::Reg]),
    (0x08, "DW_CFA_same_value", &[Op::Reg]),
    (0x09, "DW_CFA_register", &[Op::Reg, Op::Reg]),
    (0x0a, "DW_CFA_remember_state", &[]),
    (0x0b, "DW_CFA_restore_state", &[]),
    (0x0c, "DW_CFA_def_cfa", &[Op::Reg, Op::Offset]),
    (0x0d, "DW_CFA_def_cfa_register", &[Op::Reg]),
    (0x0e, "DW_CFA_def_cfa_offset", &[Op::Offset]),
    (0x0f, "DW_CFA_def_cfa_expression", &[Op::Expr]),
    (0x10, "DW_CFA_expression", &[Op::Reg, Op::Expr]),
    (0x11, "DW_CFA_offset_extended_sf", &[Op::Reg, Op::SFactored]),
    (0x12, "DW_CFA_def_cfa_sf", &[Op::Reg, Op::SFactored]),
    (0x13, "DW_CFA_def_cfa_offset_sf", &[Op::SFactored]),
    (0x14, "DW_CFA_val_offset", &[Op::Reg, Op::Factored]),
    (0x15, "DW_CFA_val_offset_sf", &[Op::Reg, Op::SFactored]),
    (0x16, "DW_CFA_val_expression", &[Op::Reg, Op::Expr]),
    (0x2d, "DW_CFA_GNU_window_save", &[]),
    (0x2e, "DW_CFA_GNU_args_size", &[Op::Offset]),
    (
        0x2f,
        "DW_CFA_GNU_negative_offset_extended",
        &[Op::Reg, Op::Negated],
    ),
];

/// Reads the instruction at `c`, `loc` the address its advances move.
/// `None` when it does not read (an unknown opcode, an operand past the
/// end): the rest of the entry is not read.
pub(super) fn insn(
    c: &mut Cur<'_>,
    ctx: &Ctx,
    cie: &Cie,
    loc: &mut u64,
    expr: &dyn Fn(&[u8]) -> String,
) -> Result<Insn, (u64, String)> {
    let off = c.pos;
    let byte = c.uint(1).ok_or((off, "no opcode".to_string()))? as u8;
    let mut ops = Vec::new();
    let text: String;
    let reg = |r: u64| register(ctx.machine, r);
    let factored = |v: i64| v.wrapping_mul(cie.data_align);
    let name: &str = match byte >> 6 {
        1 => {
            // RISC-V's linker sets the advance (R_RISCV_SET6 and SUB6).
            let raw = ctx
                .reloc(off - ctx.at)
                .map_or(byte & 0x3f, |r| r.0 as u8 & 0x3f);
            let d = u64::from(raw).wrapping_mul(cie.code_align);
            *loc = loc.wrapping_add(d);
            ops.push(leaf("delta", off, 1, Value::uint(u64::from(raw))));
            text = format!("{d} to 0x{:x}", *loc);
            "DW_CFA_advance_loc"
        }
        2 => {
            let r = u64::from(byte & 0x3f);
            ops.push(leaf(
                "register",
                off,
                1,
                Value::with(r, Radix::Dec, format!(" ({})", reg(r))),
            ));
            let at = c.pos;
            let v = c
                .uleb()
                .ok_or((at, "DW_CFA_offset: its offset does not read".to_string()))?;
            ops.push(leaf("offset", at, c.pos - at, Value::uint(v)));
            text = format!("{} {}", reg(r), factored(v as i64));
            "DW_CFA_offset"
        }
        3 => {
            let r = u64::from(byte & 0x3f);
            ops.push(leaf(
                "register",
                off,
                1,
                Value::with(r, Radix::Dec, format!(" ({})", reg(r))),
            ));
            text = reg(r);
            "DW_CFA_restore"
        }
        _ => {
            let Some(&(_, name, shape)) = OPCODES.iter().find(|o| o.0 == byte) else {
                return Err((
                    off,
                    format!("call frame instruction 0x{byte:02x} is not one DWARF defines"),
                ));
            };
            let name = if byte == 0x2d && ctx.machine == 183 {
                "DW_CFA_AARCH64_negate_ra_state"
            } else {
                name
            };
            ops.push(leaf("opcode", off, 1, Value::hex(byte.into())));
            let mut words: Vec<String> = Vec::new();
            for &o in shape {
                let at = c.pos;
                let short = || (at, format!("{name}: an operand does not read"));
                match o {
                    Op::Reg => {
                        let r = c.uleb().ok_or_else(short)?;
                        ops.push(leaf(
                            "register",
                            at,
                            c.pos - at,
                            Value::with(r, Radix::Dec, format!(" ({})", reg(r))),
                        ));
                        words.push(reg(r));
                    }
                    Op::Factored => {
                        let v = c.uleb().ok_or_else(short)?;
                        ops.push(leaf("offset", at, c.pos - at, Value::uint(v)));
                        words.push(factored(v as i64).to_string());
                    }
                    Op::SFactored => {
                        let v = c.sleb().ok_or_else(short)?;
                        ops.push(leaf("offset", at, c.pos - at, Value::int(v)));
                        words.push(factored(v).to_string());
                    }
                    Op::Offset => {
                        let v = c.uleb().ok_or_else(short)?;
                        ops.push(leaf("offset", at, c.pos - at, Value::uint(v)));
                        words.push(format!("{:+}", v as i64));
                    }
                    Op::Negated => {
                        let v = c.uleb().ok_or_else(short)?;
                        ops.push(leaf("offset", at, c.pos - at, Value::uint(v)));
                        words.push(factored((v as i64).wrapping_neg()).to_string());
                    }
                    Op::Expr => {
                        let n = c.uleb().ok_or_else(short)?;
                        let p = c.pos;
                        c.skip(n).ok_or_else(short)?;
                        let bytes = c.d.get(p as usize..c.pos as usize).unwrap_or_default();
                        let s = expr(bytes);
                        ops.push(leaf("length", at, p - at, Value::uint(n)));
                        ops.push(leaf("expression", p, n, Value::text(&s)));
                        words.push(s);
                    }
                    Op::Delta(k) => {
                        let v = c.uint(u64::from(k)).ok_or_else(short)?;
                        let v = ctx.reloc(at - ctx.at).map_or(v, |r| r.0);
                        let d = v.wrapping_mul(cie.code_align);
                        *loc = loc.wrapping_add(d);
                        ops.push(leaf("delta", at, u64::from(k), Value::uint(v)));
                        words.push(format!("{d} to 0x{:x}", *loc));
                    }
                    Op::Address => {
                        let enc = if ctx.eh { cie.fde_enc } else { 0 };
                        let (v, _) =
                            pointer(c, enc, cie.word, ctx.pc(at), 0, |o| ctx.reloc(o - ctx.at))
                                .map_err(|m| (at, format!("{name}: {m}")))?;
                        *loc = v;
                        ops.push(leaf("address", at, c.pos - at, Value::hex(v)));
                        // As llvm-dwarfdump writes it: hex without `0x`.
                        words.push(format!("{v:x}"));
                    }
                }
            }
            text = words.join(" ");
            name
        }
    };
    Ok(Insn {
        name: name.to_string(),
        off,
        size: c.pos - off,
        text,
        operands: ops,
    })
}
