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

/// One command the decoder knows: its module and id, its name, and the
/// payload lengths (in words) it accepts when fixed (`u64::MAX`: no upper
/// bound).
#[derive(Clone, Copy, Debug)]
pub struct Command {
    pub module: u8,
    pub id: u8,
    pub name: &'static str,
    pub arity: Option<(u64, u64)>,
}

/// Every known command, by module and id.
pub static COMMANDS: &[Command] = &[
    Command {
        module: 1,
        id: 0,
        name: "END_MARK",
        arity: None,
    },
    Command {
        module: 1,
        id: 1,
        name: "MASK_POLL",
        arity: Some((4, 6)),
    },
    Command {
        module: 1,
        id: 2,
        name: "MASK_WRITE",
        arity: Some((3, 3)),
    },
    Command {
        module: 1,
        id: 3,
        name: "WRITE",
        arity: Some((2, 2)),
    },
    Command {
        module: 1,
        id: 4,
        name: "DELAY",
        arity: Some((1, 1)),
    },
    Command {
        module: 1,
        id: 5,
        name: "DMA_WRITE",
        arity: Some((2, u64::MAX)),
    },
    Command {
        module: 1,
        id: 6,
        name: "MASK_POLL64",
        arity: Some((5, 7)),
    },
    Command {
        module: 1,
        id: 7,
        name: "MASK_WRITE64",
        arity: Some((4, 4)),
    },
    Command {
        module: 1,
        id: 8,
        name: "WRITE64",
        arity: Some((3, 3)),
    },
    Command {
        module: 1,
        id: 9,
        name: "DMA_XFER",
        arity: Some((6, 6)),
    },
    Command {
        module: 1,
        id: 10,
        name: "INIT_SEQ",
        arity: None,
    },
    Command {
        module: 1,
        id: 11,
        name: "CFI_READ",
        arity: Some((4, u64::MAX)),
    },
    Command {
        module: 1,
        id: 12,
        name: "SET",
        arity: Some((4, 4)),
    },
    Command {
        module: 1,
        id: 13,
        name: "DMA_WRITE_KEYHOLE",
        arity: Some((3, u64::MAX)),
    },
    Command {
        module: 1,
        id: 14,
        name: "SSIT_SYNC_MASTER",
        arity: Some((0, 0)),
    },
    Command {
        module: 1,
        id: 15,
        name: "SSIT_SYNC_SLAVES",
        arity: Some((2, 2)),
    },
    Command {
        module: 1,
        id: 16,
        name: "SSIT_WAIT_SLAVES",
        arity: Some((2, 2)),
    },
    Command {
        module: 1,
        id: 17,
        name: "NOP",
        arity: None,
    },
    Command {
        module: 1,
        id: 18,
        name: "GET_DEVICE_ID",
        arity: None,
    },
    Command {
        module: 1,
        id: 19,
        name: "EVENT_LOGGING",
        arity: None,
    },
    Command {
        module: 1,
        id: 20,
        name: "SET_BOARD",
        arity: None,
    },
    Command {
        module: 1,
        id: 21,
        name: "GET_BOARD",
        arity: None,
    },
    Command {
        module: 1,
        id: 22,
        name: "SET_WDT_PARAM",
        arity: Some((2, 2)),
    },
    Command {
        module: 1,
        id: 23,
        name: "LOG_STRING",
        arity: None,
    },
    Command {
        module: 1,
        id: 24,
        name: "LOG_ADDRESS",
        arity: Some((1, 2)),
    },
    Command {
        module: 1,
        id: 25,
        name: "MARKER",
        arity: Some((1, u64::MAX)),
    },
    Command {
        module: 1,
        id: 26,
        name: "PROC",
        arity: Some((1, u64::MAX)),
    },
    Command {
        module: 1,
        id: 27,
        name: "BEGIN",
        arity: Some((1, u64::MAX)),
    },
    Command {
        module: 1,
        id: 28,
        name: "END",
        arity: Some((0, 0)),
    },
    Command {
        module: 1,
        id: 29,
        name: "BREAK",
        arity: Some((0, 1)),
    },
    Command {
        module: 1,
        id: 30,
        name: "OT_CHECK",
        arity: Some((1, 1)),
    },
    Command {
        module: 1,
        id: 31,
        name: "PSM_SEQUENCE",
        arity: None,
    },
    Command {
        module: 1,
        id: 32,
        name: "INPLACE_PLM_UPDATE",
        arity: None,
    },
    Command {
        module: 1,
        id: 33,
        name: "SCATTER_WRITE",
        arity: Some((2, u64::MAX)),
    },
    Command {
        module: 1,
        id: 34,
        name: "SCATTER_WRITE2",
        arity: Some((3, u64::MAX)),
    },
    Command {
        module: 1,
        id: 35,
        name: "TAMPER_TRIGGER",
        arity: Some((1, 1)),
    },
    Command {
        module: 1,
        id: 36,
        name: "SET_FIPS_MASK",
        arity: None,
    },
    Command {
        module: 1,
        id: 37,
        name: "SET_IPI_ACCESS",
        arity: Some((2, 2)),
    },
    Command {
        module: 1,
        id: 38,
        name: "RUN_PROC",
        arity: Some((1, 1)),
    },
    Command {
        module: 1,
        id: 39,
        name: "LIST_SET",
        arity: None,
    },
    Command {
        module: 1,
        id: 40,
        name: "LIST_WRITE",
        arity: None,
    },
    Command {
        module: 1,
        id: 41,
        name: "LIST_MASK_WRITE",
        arity: None,
    },
    Command {
        module: 1,
        id: 42,
        name: "LIST_MASK_POLL",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x01,
        name: "PM_GET_API_VERSION",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x03,
        name: "PM_GET_DEVICE_STATUS",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x04,
        name: "PM_GET_OP_CHARACTERISTIC",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x05,
        name: "PM_REGISTER_NOTIFIER",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x06,
        name: "PM_REQUEST_SUSPEND",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x07,
        name: "PM_SELF_SUSPEND",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x08,
        name: "PM_FORCE_POWERDOWN",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x09,
        name: "PM_ABORT_SUSPEND",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x0a,
        name: "PM_REQUEST_WAKEUP",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x0b,
        name: "PM_SET_WAKEUP_SOURCE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x0c,
        name: "PM_SYSTEM_SHUTDOWN",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x0d,
        name: "PM_REQUEST_DEVICE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x0e,
        name: "PM_RELEASE_DEVICE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x0f,
        name: "PM_SET_REQUIREMENT",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x10,
        name: "PM_SET_MAX_LATENCY",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x11,
        name: "PM_RESET_ASSERT",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x12,
        name: "PM_RESET_GET_STATUS",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x1c,
        name: "PM_PINCTRL_REQUEST",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x1d,
        name: "PM_PINCTRL_RELEASE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x1e,
        name: "PM_PINCTRL_GET_FUNCTION",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x1f,
        name: "PM_PINCTRL_SET_FUNCTION",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x20,
        name: "PM_PINCTRL_CONFIG_PARAM_GET",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x21,
        name: "PM_PINCTRL_CONFIG_PARAM_SET",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x22,
        name: "PM_IOCTL",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x23,
        name: "PM_QUERY_DATA",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x24,
        name: "PM_CLOCK_ENABLE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x25,
        name: "PM_CLOCK_DISABLE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x26,
        name: "PM_CLOCK_GETSTATE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x27,
        name: "PM_CLOCK_SETDIVIDER",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x28,
        name: "PM_CLOCK_GETDIVIDER",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x29,
        name: "PM_CLOCK_SETRATE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x2a,
        name: "PM_CLOCK_GETRATE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x2b,
        name: "PM_CLOCK_SETPARENT",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x2c,
        name: "PM_CLOCK_GETPARENT",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x30,
        name: "PM_PLL_SET_PARAMETER",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x31,
        name: "PM_PLL_GET_PARAMETER",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x32,
        name: "PM_PLL_SET_MODE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x33,
        name: "PM_PLL_GET_MODE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x36,
        name: "PM_ADD_SUBSYSTEM",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x37,
        name: "PM_DESTROY_SUBSYSTEM",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x38,
        name: "PM_DESCRIBE_NODES",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x39,
        name: "PM_ADD_NODE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x3a,
        name: "PM_ADD_NODE_PARENT",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x3b,
        name: "PM_ADD_NODE_NAME",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x3c,
        name: "PM_ADD_REQUIREMENT",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x3d,
        name: "PM_SET_CURRENT_SUBSYSTEM",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x3e,
        name: "PM_INIT_NODE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x3f,
        name: "PM_FEATURE_CHECK",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x40,
        name: "PM_ISO_CONTROL",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x41,
        name: "PM_ACTIVATE_SUBSYSTEM",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x42,
        name: "PM_SET_NODE_ACCESS",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x43,
        name: "PM_BISR",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x44,
        name: "PM_APPLY_TRIM",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x45,
        name: "PM_NOC_CLOCK_ENABLE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x46,
        name: "PM_IF_NOC_CLOCK_ENABLE",
        arity: None,
    },
    Command {
        module: 2,
        id: 0x47,
        name: "PM_FORCE_HC",
        arity: None,
    },
    Command {
        module: 3,
        id: 0,
        name: "SEM_NPI_TABLE",
        arity: None,
    },
    Command {
        module: 7,
        id: 4,
        name: "LDR_SET_IMAGE_INFO",
        arity: None,
    },
    Command {
        module: 7,
        id: 0x0c,
        name: "LDR_CFRAME_CLEAR_CHECK",
        arity: None,
    },
    Command {
        module: 8,
        id: 1,
        name: "EM_SET_ACTION",
        arity: None,
    },
];

/// The table row of command `id` of module `module`.
pub fn command(module: u8, id: u8) -> Option<&'static Command> {
    // The generic module's rows come first, in id order: most commands of
    // a stream are found without a search.
    match COMMANDS.get(usize::from(id)) {
        Some(c) if module == 1 && c.module == 1 && c.id == id => Some(c),
        _ => COMMANDS.iter().find(|c| c.module == module && c.id == id),
    }
}

/// The name of command `id` of module `module`, if it is a known one.
pub fn command_name(module: u8, id: u8) -> Option<&'static str> {
    command(module, id).map(|c| c.name)
}

/// The payload lengths (in words) a generic command accepts, when fixed
/// (`u64::MAX`: no upper bound).
pub fn generic_arity(id: u8) -> Option<(u64, u64)> {
    command(1, id).and_then(|c| c.arity)
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
