//! The command table: one row a command, giving its module and id, its
//! name, the payload lengths it accepts, the layout of its payload, the
//! summary shown beside it and the checks of the fast pass. The stream walk,
//! the checks and the payload decoding all read this table; adding a command
//! is adding a row.

/// The payload lengths (in words) a command accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Not checked.
    Any,
    /// Exactly this many words.
    Fixed(u64),
    /// From the first to the second, both included.
    Range(u64, u64),
    /// This many or more.
    AtLeast(u64),
}

impl Arity {
    /// The accepted lengths as `(lo, hi)` (`hi` `u64::MAX`: no upper
    /// bound), when they are checked.
    pub const fn bounds(self) -> Option<(u64, u64)> {
        match self {
            Arity::Any => None,
            Arity::Fixed(n) => Some((n, n)),
            Arity::Range(lo, hi) => Some((lo, hi)),
            Arity::AtLeast(lo) => Some((lo, u64::MAX)),
        }
    }

    /// True if a payload of `n` words is accepted.
    pub fn accepts(self, n: u64) -> bool {
        self.bounds().is_none_or(|(lo, hi)| n >= lo && n <= hi)
    }

    /// The accepted lengths in words, for a message: `2`, `4 to 6`,
    /// `at least 2`.
    pub fn expected(self) -> String {
        match self {
            Arity::Any => "any number".to_string(),
            Arity::Fixed(n) => n.to_string(),
            Arity::Range(lo, hi) => format!("{lo} to {hi}"),
            Arity::AtLeast(lo) => format!("at least {lo}"),
        }
    }
}

/// How many payload words a field takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// One word.
    Word,
    /// Two words (a 64-bit address).
    Pair,
    /// Every word left in the payload (the last field of a layout).
    Rest,
}

impl Width {
    /// Words taken from word `i` of an `n`-word payload.
    pub const fn words(self, i: u64, n: u64) -> u64 {
        match self {
            Width::Word => 1,
            Width::Pair => 2,
            Width::Rest => n.saturating_sub(i),
        }
    }
}

/// What a field holds and how it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A 32-bit partition-relative AIE address, split into column, row and
    /// register offset.
    Aie,
    /// A 64-bit address as its high then its low word (`NAME_high`,
    /// `NAME_low`); the low word is an AIE address when the high one is 0.
    Addr64,
    /// A 64-bit address as its low then its high word (`NAME_low`,
    /// `NAME_high`), the high word optional.
    Addr64LowFirst,
    /// A mask, a value or an id, in hex.
    Hex,
    /// A count or a length, with its unit ("" for none).
    Count(&'static str),
    /// MASK_POLL's flags: what happens on a timeout.
    PollFlags,
    /// The rest of the payload as bytes.
    Raw,
    /// The rest of the payload: data the command writes. Linked from the
    /// command, and counted as DMA bytes in the summary.
    Dma,
    /// The rest of the payload: text up to its first NUL.
    Text,
    /// The rest of the payload: a command stream of its own.
    Commands,
}

/// One field of a payload layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub width: Width,
    pub kind: Kind,
}

/// A check of the fast pass, beyond the payload length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The command's first address field names an AIE tile: its column and
    /// row count in the summary (a 64-bit address with a high word counts
    /// as a wide address).
    Tile,
}

/// One command the decoder knows.
#[derive(Clone, Copy, Debug)]
pub struct Command {
    pub module: u8,
    pub id: u8,
    pub name: &'static str,
    pub arity: Arity,
    /// The payload, field by field (words past the last field are not
    /// shown).
    pub fields: &'static [Field],
    /// The command node's value: text with `{field}` for a field's value,
    /// `{field?}` for one shown as `?` when the payload lacks it (without
    /// the `?`, a missing field gives the payload length instead), and
    /// `{field:hex}` for an address as plain hex, `{field:words}` for the
    /// rest of the payload in words rather than bytes. None: the payload
    /// length.
    pub summary: Option<&'static str>,
    pub checks: &'static [Check],
}

// ---------------------------------------------------------------------------
// building rows

const fn f(name: &'static str, width: Width, kind: Kind) -> Field {
    Field { name, width, kind }
}
const fn aie(name: &'static str) -> Field {
    f(name, Width::Word, Kind::Aie)
}
const fn addr64(name: &'static str) -> Field {
    f(name, Width::Pair, Kind::Addr64)
}
const fn hex(name: &'static str) -> Field {
    f(name, Width::Word, Kind::Hex)
}
const fn count(name: &'static str, unit: &'static str) -> Field {
    f(name, Width::Word, Kind::Count(unit))
}
const fn addr64_low_first(name: &'static str) -> Field {
    f(name, Width::Pair, Kind::Addr64LowFirst)
}
const fn flags(name: &'static str) -> Field {
    f(name, Width::Word, Kind::PollFlags)
}
const fn dma(name: &'static str) -> Field {
    f(name, Width::Rest, Kind::Dma)
}
const fn raw(name: &'static str) -> Field {
    f(name, Width::Rest, Kind::Raw)
}
const fn text(name: &'static str) -> Field {
    f(name, Width::Rest, Kind::Text)
}
const fn commands(name: &'static str) -> Field {
    f(name, Width::Rest, Kind::Commands)
}

/// The layout of a payload nothing more is known of.
pub const PAYLOAD: &[Field] = &[raw("payload")];

/// The layout of a compact DMA_WRITE entry's address.
pub const ADDRESS64: &[Field] = &[addr64("address")];

const fn cmd(module: u8, id: u8, name: &'static str) -> Command {
    Command {
        module,
        id,
        name,
        arity: Arity::Any,
        fields: PAYLOAD,
        summary: None,
        checks: &[],
    }
}

/// A generic-module command of `arity` with payload `fields`.
const fn gen(id: u8, name: &'static str, arity: Arity, fields: &'static [Field]) -> Command {
    Command {
        arity,
        fields,
        ..cmd(1, id, name)
    }
}

impl Command {
    const fn shows(self, summary: &'static str) -> Command {
        Command {
            summary: Some(summary),
            ..self
        }
    }
    const fn tile(self) -> Command {
        Command {
            checks: &[Check::Tile],
            ..self
        }
    }
}

use Arity::{Any, AtLeast, Fixed, Range};

const POLL: &str = "poll {address} & {mask?} == {expected?}, timeout {timeout?} us";
const MASK_WRITE: &str = "{address} = {value?} under mask {mask?}";
const WRITE: &str = "{address} = {value?}";
const DMA: &str = "{address} <- {data} bytes";

/// Every known command, by module and id. The generic module's rows come
/// first, each at the index of its id.
#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd(1, 0, "END_MARK").shows("end of the command stream"),
    gen(1, "MASK_POLL", Range(4, 6), &[aie("address"), hex("mask"), hex("expected"), count("timeout", "us"), flags("flags"), hex("error_code"), raw("extra")]).shows(POLL).tile(),
    gen(2, "MASK_WRITE", Fixed(3), &[aie("address"), hex("mask"), hex("value"), raw("extra")]).shows(MASK_WRITE).tile(),
    gen(3, "WRITE", Fixed(2), &[aie("address"), hex("value"), raw("extra")]).shows(WRITE).tile(),
    gen(4, "DELAY", Fixed(1), &[count("delay", "us"), raw("extra")]).shows("wait {delay?} us"),
    gen(5, "DMA_WRITE", AtLeast(2), &[addr64("address"), dma("data")]).shows(DMA).tile(),
    gen(6, "MASK_POLL64", Range(5, 7), &[addr64("address"), hex("mask"), hex("expected"), count("timeout", "us"), flags("flags"), hex("error_code"), raw("extra")]).shows(POLL).tile(),
    gen(7, "MASK_WRITE64", Fixed(4), &[addr64("address"), hex("mask"), hex("value"), raw("extra")]).shows(MASK_WRITE).tile(),
    gen(8, "WRITE64", Fixed(3), &[addr64("address"), hex("value"), raw("extra")]).shows(WRITE).tile(),
    gen(9, "DMA_XFER", Fixed(6), &[addr64("source"), addr64("destination"), count("length", "words"), hex("flags"), raw("extra")]).shows("{length?} words from {source:hex?} to {destination:hex?}"),
    gen(10, "INIT_SEQ", Any, &[raw("data")]),
    gen(11, "CFI_READ", AtLeast(4), &[hex("params"), addr64("destination"), count("read_length", "words"), raw("data")]).shows("read {read_length?} words to {destination:hex?}"),
    gen(12, "SET", Fixed(4), &[addr64("address"), count("count", "words"), hex("value"), raw("extra")]).shows("{address} <- {count?} words of {value?}").tile(),
    gen(13, "DMA_WRITE_KEYHOLE", AtLeast(3), &[addr64("address"), count("keyhole_size", "words"), dma("data")]).shows(DMA).tile(),
    gen(14, "SSIT_SYNC_MASTER", Fixed(0), PAYLOAD),
    gen(15, "SSIT_SYNC_SLAVES", Fixed(2), &[hex("mask"), count("timeout", ""), raw("extra")]),
    gen(16, "SSIT_WAIT_SLAVES", Fixed(2), &[hex("mask"), count("timeout", ""), raw("extra")]),
    gen(17, "NOP", Any, &[raw("padding")]).shows("{padding:words} padding words"),
    gen(18, "GET_DEVICE_ID", Any, PAYLOAD),
    gen(19, "EVENT_LOGGING", Any, &[hex("sub_command"), raw("arguments")]),
    gen(20, "SET_BOARD", Any, &[text("text")]).shows("{text}"),
    gen(21, "GET_BOARD", Any, &[addr64("address"), count("max_size", "words")]),
    gen(22, "SET_WDT_PARAM", Fixed(2), &[hex("node_id"), count("periodicity", "ms")]),
    gen(23, "LOG_STRING", Any, &[text("text")]).shows("{text}"),
    gen(24, "LOG_ADDRESS", Range(1, 2), &[addr64_low_first("address")]).shows("{address}"),
    gen(25, "MARKER", AtLeast(1), &[hex("type"), text("text")]).shows("{text}"),
    gen(26, "PROC", AtLeast(1), &[hex("proc_id"), commands("commands")]),
    gen(27, "BEGIN", AtLeast(1), &[count("end_offset", "words"), text("text")]),
    gen(28, "END", Fixed(0), PAYLOAD),
    gen(29, "BREAK", Range(0, 1), &[count("level", "")]),
    gen(30, "OT_CHECK", Fixed(1), &[count("delay", "ms")]),
    gen(31, "PSM_SEQUENCE", Any, &[commands("commands")]),
    gen(32, "INPLACE_PLM_UPDATE", Any, PAYLOAD),
    gen(33, "SCATTER_WRITE", AtLeast(2), &[hex("value"), raw("addresses")]),
    gen(34, "SCATTER_WRITE2", AtLeast(3), &[hex("value1"), hex("value2"), raw("addresses")]),
    gen(35, "TAMPER_TRIGGER", Fixed(1), &[hex("response")]),
    gen(36, "SET_FIPS_MASK", Any, PAYLOAD),
    gen(37, "SET_IPI_ACCESS", Fixed(2), &[hex("api_ids"), hex("permissions")]),
    gen(38, "RUN_PROC", Fixed(1), &[hex("proc_id")]),
    gen(39, "LIST_SET", Any, PAYLOAD),
    gen(40, "LIST_WRITE", Any, PAYLOAD),
    gen(41, "LIST_MASK_WRITE", Any, PAYLOAD),
    gen(42, "LIST_MASK_POLL", Any, PAYLOAD),
    cmd(2, 0x01, "PM_GET_API_VERSION"),
    cmd(2, 0x03, "PM_GET_DEVICE_STATUS"),
    cmd(2, 0x04, "PM_GET_OP_CHARACTERISTIC"),
    cmd(2, 0x05, "PM_REGISTER_NOTIFIER"),
    cmd(2, 0x06, "PM_REQUEST_SUSPEND"),
    cmd(2, 0x07, "PM_SELF_SUSPEND"),
    cmd(2, 0x08, "PM_FORCE_POWERDOWN"),
    cmd(2, 0x09, "PM_ABORT_SUSPEND"),
    cmd(2, 0x0a, "PM_REQUEST_WAKEUP"),
    cmd(2, 0x0b, "PM_SET_WAKEUP_SOURCE"),
    cmd(2, 0x0c, "PM_SYSTEM_SHUTDOWN"),
    cmd(2, 0x0d, "PM_REQUEST_DEVICE"),
    cmd(2, 0x0e, "PM_RELEASE_DEVICE"),
    cmd(2, 0x0f, "PM_SET_REQUIREMENT"),
    cmd(2, 0x10, "PM_SET_MAX_LATENCY"),
    cmd(2, 0x11, "PM_RESET_ASSERT"),
    cmd(2, 0x12, "PM_RESET_GET_STATUS"),
    cmd(2, 0x1c, "PM_PINCTRL_REQUEST"),
    cmd(2, 0x1d, "PM_PINCTRL_RELEASE"),
    cmd(2, 0x1e, "PM_PINCTRL_GET_FUNCTION"),
    cmd(2, 0x1f, "PM_PINCTRL_SET_FUNCTION"),
    cmd(2, 0x20, "PM_PINCTRL_CONFIG_PARAM_GET"),
    cmd(2, 0x21, "PM_PINCTRL_CONFIG_PARAM_SET"),
    cmd(2, 0x22, "PM_IOCTL"),
    cmd(2, 0x23, "PM_QUERY_DATA"),
    cmd(2, 0x24, "PM_CLOCK_ENABLE"),
    cmd(2, 0x25, "PM_CLOCK_DISABLE"),
    cmd(2, 0x26, "PM_CLOCK_GETSTATE"),
    cmd(2, 0x27, "PM_CLOCK_SETDIVIDER"),
    cmd(2, 0x28, "PM_CLOCK_GETDIVIDER"),
    cmd(2, 0x29, "PM_CLOCK_SETRATE"),
    cmd(2, 0x2a, "PM_CLOCK_GETRATE"),
    cmd(2, 0x2b, "PM_CLOCK_SETPARENT"),
    cmd(2, 0x2c, "PM_CLOCK_GETPARENT"),
    cmd(2, 0x30, "PM_PLL_SET_PARAMETER"),
    cmd(2, 0x31, "PM_PLL_GET_PARAMETER"),
    cmd(2, 0x32, "PM_PLL_SET_MODE"),
    cmd(2, 0x33, "PM_PLL_GET_MODE"),
    cmd(2, 0x36, "PM_ADD_SUBSYSTEM"),
    cmd(2, 0x37, "PM_DESTROY_SUBSYSTEM"),
    cmd(2, 0x38, "PM_DESCRIBE_NODES"),
    cmd(2, 0x39, "PM_ADD_NODE"),
    cmd(2, 0x3a, "PM_ADD_NODE_PARENT"),
    cmd(2, 0x3b, "PM_ADD_NODE_NAME"),
    cmd(2, 0x3c, "PM_ADD_REQUIREMENT"),
    cmd(2, 0x3d, "PM_SET_CURRENT_SUBSYSTEM"),
    cmd(2, 0x3e, "PM_INIT_NODE"),
    cmd(2, 0x3f, "PM_FEATURE_CHECK"),
    cmd(2, 0x40, "PM_ISO_CONTROL"),
    cmd(2, 0x41, "PM_ACTIVATE_SUBSYSTEM"),
    cmd(2, 0x42, "PM_SET_NODE_ACCESS"),
    cmd(2, 0x43, "PM_BISR"),
    cmd(2, 0x44, "PM_APPLY_TRIM"),
    cmd(2, 0x45, "PM_NOC_CLOCK_ENABLE"),
    cmd(2, 0x46, "PM_IF_NOC_CLOCK_ENABLE"),
    cmd(2, 0x47, "PM_FORCE_HC"),
    cmd(3, 0, "SEM_NPI_TABLE"),
    cmd(7, 4, "LDR_SET_IMAGE_INFO"),
    cmd(7, 0x0c, "LDR_CFRAME_CLEAR_CHECK"),
    cmd(8, 1, "EM_SET_ACTION"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_rows_sit_at_their_ids() {
        for (i, c) in COMMANDS.iter().take_while(|c| c.module == 1).enumerate() {
            assert_eq!(usize::from(c.id), i, "{}", c.name);
        }
    }

    #[test]
    fn rows_are_unique_and_layouts_well_formed() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(
                !COMMANDS
                    .iter()
                    .skip(i + 1)
                    .any(|d| (d.module, d.id) == (c.module, c.id) || d.name == c.name),
                "{} twice",
                c.name
            );
            for (k, fd) in c.fields.iter().enumerate() {
                let want = match fd.kind {
                    Kind::Aie | Kind::Hex | Kind::Count(_) | Kind::PollFlags => Width::Word,
                    Kind::Addr64 | Kind::Addr64LowFirst => Width::Pair,
                    Kind::Raw | Kind::Dma | Kind::Text | Kind::Commands => Width::Rest,
                };
                assert_eq!(fd.width, want, "{} {}", c.name, fd.name);
                assert!(
                    fd.width != Width::Rest || k + 1 == c.fields.len(),
                    "{}: {} takes the rest but is not last",
                    c.name,
                    fd.name
                );
                assert!(
                    !c.fields.iter().skip(k + 1).any(|g| g.name == fd.name),
                    "{}: {} twice",
                    c.name,
                    fd.name
                );
            }
            // Every field a summary names is in the layout.
            let mut s = c.summary.unwrap_or("");
            while let Some((_, rest)) = s.split_once('{') {
                let (spec, after) = rest.split_once('}').unwrap_or((rest, ""));
                let name = spec.split([':', '?']).next().unwrap_or("");
                assert!(
                    c.fields.iter().any(|fd| fd.name == name),
                    "{}: {{{spec}}}",
                    c.name
                );
                s = after;
            }
            if c.checks.contains(&Check::Tile) {
                assert!(
                    c.fields
                        .iter()
                        .any(|fd| matches!(fd.kind, Kind::Aie | Kind::Addr64)),
                    "{}",
                    c.name
                );
            }
        }
    }
}
