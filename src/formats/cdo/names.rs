//! Module and command names, and AIE address decoding.

use super::*;

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

/// Names of the generic module's commands, by command id.
pub(super) const GENERIC: [&str; 43] = [
    "END_MARK",
    "MASK_POLL",
    "MASK_WRITE",
    "WRITE",
    "DELAY",
    "DMA_WRITE",
    "MASK_POLL64",
    "MASK_WRITE64",
    "WRITE64",
    "DMA_XFER",
    "INIT_SEQ",
    "CFI_READ",
    "SET",
    "DMA_WRITE_KEYHOLE",
    "SSIT_SYNC_MASTER",
    "SSIT_SYNC_SLAVES",
    "SSIT_WAIT_SLAVES",
    "NOP",
    "GET_DEVICE_ID",
    "EVENT_LOGGING",
    "SET_BOARD",
    "GET_BOARD",
    "SET_WDT_PARAM",
    "LOG_STRING",
    "LOG_ADDRESS",
    "MARKER",
    "PROC",
    "BEGIN",
    "END",
    "BREAK",
    "OT_CHECK",
    "PSM_SEQUENCE",
    "INPLACE_PLM_UPDATE",
    "SCATTER_WRITE",
    "SCATTER_WRITE2",
    "TAMPER_TRIGGER",
    "SET_FIPS_MASK",
    "SET_IPI_ACCESS",
    "RUN_PROC",
    "LIST_SET",
    "LIST_WRITE",
    "LIST_MASK_WRITE",
    "LIST_MASK_POLL",
];

pub(super) fn pm_name(id: u8) -> Option<&'static str> {
    Some(match id {
        0x01 => "PM_GET_API_VERSION",
        0x03 => "PM_GET_DEVICE_STATUS",
        0x04 => "PM_GET_OP_CHARACTERISTIC",
        0x05 => "PM_REGISTER_NOTIFIER",
        0x06 => "PM_REQUEST_SUSPEND",
        0x07 => "PM_SELF_SUSPEND",
        0x08 => "PM_FORCE_POWERDOWN",
        0x09 => "PM_ABORT_SUSPEND",
        0x0a => "PM_REQUEST_WAKEUP",
        0x0b => "PM_SET_WAKEUP_SOURCE",
        0x0c => "PM_SYSTEM_SHUTDOWN",
        0x0d => "PM_REQUEST_DEVICE",
        0x0e => "PM_RELEASE_DEVICE",
        0x0f => "PM_SET_REQUIREMENT",
        0x10 => "PM_SET_MAX_LATENCY",
        0x11 => "PM_RESET_ASSERT",
        0x12 => "PM_RESET_GET_STATUS",
        0x1c => "PM_PINCTRL_REQUEST",
        0x1d => "PM_PINCTRL_RELEASE",
        0x1e => "PM_PINCTRL_GET_FUNCTION",
        0x1f => "PM_PINCTRL_SET_FUNCTION",
        0x20 => "PM_PINCTRL_CONFIG_PARAM_GET",
        0x21 => "PM_PINCTRL_CONFIG_PARAM_SET",
        0x22 => "PM_IOCTL",
        0x23 => "PM_QUERY_DATA",
        0x24 => "PM_CLOCK_ENABLE",
        0x25 => "PM_CLOCK_DISABLE",
        0x26 => "PM_CLOCK_GETSTATE",
        0x27 => "PM_CLOCK_SETDIVIDER",
        0x28 => "PM_CLOCK_GETDIVIDER",
        0x29 => "PM_CLOCK_SETRATE",
        0x2a => "PM_CLOCK_GETRATE",
        0x2b => "PM_CLOCK_SETPARENT",
        0x2c => "PM_CLOCK_GETPARENT",
        0x30 => "PM_PLL_SET_PARAMETER",
        0x31 => "PM_PLL_GET_PARAMETER",
        0x32 => "PM_PLL_SET_MODE",
        0x33 => "PM_PLL_GET_MODE",
        0x36 => "PM_ADD_SUBSYSTEM",
        0x37 => "PM_DESTROY_SUBSYSTEM",
        0x38 => "PM_DESCRIBE_NODES",
        0x39 => "PM_ADD_NODE",
        0x3a => "PM_ADD_NODE_PARENT",
        0x3b => "PM_ADD_NODE_NAME",
        0x3c => "PM_ADD_REQUIREMENT",
        0x3d => "PM_SET_CURRENT_SUBSYSTEM",
        0x3e => "PM_INIT_NODE",
        0x3f => "PM_FEATURE_CHECK",
        0x40 => "PM_ISO_CONTROL",
        0x41 => "PM_ACTIVATE_SUBSYSTEM",
        0x42 => "PM_SET_NODE_ACCESS",
        0x43 => "PM_BISR",
        0x44 => "PM_APPLY_TRIM",
        0x45 => "PM_NOC_CLOCK_ENABLE",
        0x46 => "PM_IF_NOC_CLOCK_ENABLE",
        0x47 => "PM_FORCE_HC",
        _ => return None,
    })
}

/// The name of command `id` of module `module`, if it is a known one.
pub fn command_name(module: u8, id: u8) -> Option<&'static str> {
    match module {
        1 => GENERIC.get(id as usize).copied(),
        2 => pm_name(id),
        3 if id == 0 => Some("SEM_NPI_TABLE"),
        7 if id == 4 => Some("LDR_SET_IMAGE_INFO"),
        7 if id == 0x0c => Some("LDR_CFRAME_CLEAR_CHECK"),
        8 if id == 1 => Some("EM_SET_ACTION"),
        _ => None,
    }
}

/// The payload lengths (in words) a generic command accepts, when fixed
/// (`u64::MAX`: no upper bound).
pub fn generic_arity(id: u8) -> Option<(u64, u64)> {
    Some(match id {
        1 => (4, 6),
        2 => (3, 3),
        3 => (2, 2),
        4 => (1, 1),
        5 => (2, u64::MAX),
        6 => (5, 7),
        7 => (4, 4),
        8 => (3, 3),
        9 => (6, 6),
        11 => (4, u64::MAX),
        12 => (4, 4),
        13 => (3, u64::MAX),
        14 => (0, 0),
        15 | 16 => (2, 2),
        22 => (2, 2),
        24 => (1, 2),
        25..=27 => (1, u64::MAX),
        28 => (0, 0),
        29 => (0, 1),
        30 | 35 | 38 => (1, 1),
        33 => (2, u64::MAX),
        34 => (3, u64::MAX),
        37 => (2, 2),
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

pub(super) fn aie_text(a: u32) -> String {
    let (c, r, o) = aie_split(a);
    format!("col {c}, row {r}, reg 0x{o:05x}")
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
