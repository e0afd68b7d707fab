//! Module names, text helpers and AIE address decoding.

use super::aie_regs;
use super::shared::Ctx;
use crate::model::num;
use crate::model::text::hex32;

// ---------------------------------------------------------------------------
// names

/// Names of the loader's modules (the command word's bits 15..8).
pub fn module_name(m: u8) -> Option<&'static str> {
    Some(match m {
        1 => "generic",
        2 => "PM",
        3 => "SEM",
        4 => "XilFPGA",
        5 => "XilSecure",
        6 => "PSM",
        7 => "loader",
        8 => "error manager",
        10 => "STL",
        11 => "XilNvm",
        12 => "XilPuf",
        13 => "XilOcp",
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// formatting

/// "1 command", "2 commands".
pub(super) fn count_of(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{} {what}s", num(n))
    }
}

pub(super) fn hex64(hi: u32, lo: u32) -> String {
    if hi == 0 {
        hex32(lo)
    } else {
        format!("0x{hi:x}{lo:08x}")
    }
}

/// Column, row and register offset of a partition-relative AIE-ML address.
pub fn aie_split(a: u32) -> (u32, u32, u32) {
    (a >> 25, (a >> 20) & 0x1f, a & 0xf_ffff)
}

/// "col 0, row 2, DMA_BD0_1 (0x1d004)" when the register is known,
/// "col 0, row 2, reg 0x1d004" otherwise.
pub(crate) fn aie_text(a: u32, ctx: &Ctx) -> String {
    let (c, r, o) = aie_split(a);
    match register(r, o, ctx) {
        Some(h) => format!("col {c}, row {r}, {h} (0x{o:05x})"),
        None => format!("col {c}, row {r}, reg 0x{o:05x}"),
    }
}

/// The register at offset `o` of a tile in row `r`, when the stream's
/// generation is known.
pub(crate) fn register(r: u32, o: u32, ctx: &Ctx) -> Option<aie_regs::Hit> {
    ctx.regs.and_then(|g| g.lookup(r, o))
}

/// "1, 2, 3 or 4": a list for prose.
pub(super) fn or_list<T: std::fmt::Display>(v: &[T]) -> String {
    let mut s = String::new();
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(if i + 1 == v.len() { " or " } else { ", " });
        }
        s.push_str(&x.to_string());
    }
    s
}

/// The physical columns relative column `col` lands in, one per start
/// column of the partition.
pub(super) fn physical(col: u32, ctx: &Ctx) -> Option<String> {
    if ctx.start_columns.is_empty() {
        return None;
    }
    let phys: Vec<u64> = ctx
        .start_columns
        .iter()
        .map(|&s| u64::from(s) + u64::from(col))
        .collect();
    Some(format!(
        "physical column {} (start column {})",
        or_list(&phys),
        or_list(&ctx.start_columns)
    ))
}

pub(super) fn bits_list(mask: u128) -> String {
    let v: Vec<String> = (0..128u32)
        .filter(|i| mask >> i & 1 == 1)
        .map(|i| i.to_string())
        .collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}
