//! The fixed-stride tables: MEM_TOPOLOGY (and ASK_GROUP_TOPOLOGY),
//! CONNECTIVITY (and ASK_GROUP_CONNECTIVITY), IP_LAYOUT, DEBUG_IP_LAYOUT
//! and CLOCK_FREQ_TOPOLOGY. Counts and indices are checked when the file
//! opens; the entries are built when their table is opened.

use std::sync::Arc;

use super::{kind, table_count, Entry, Sec, LE, MAX_REPORTS};
use crate::model::{read_uint, text, Builder, ElemFn, Fields, NodeId, Radix, Raw, Value};

const MEM_DATA: u64 = 40;
const CONNECTION: u64 = 12;
const IP_DATA: u64 = 80;
const DEBUG_IP_DATA: u64 = 144;
const CLOCK_FREQ: u64 = 136;

pub(crate) fn mem_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "MEM_DDR3",
        1 => "MEM_DDR4",
        2 => "MEM_DRAM",
        3 => "MEM_STREAMING",
        4 => "MEM_PREALLOCATED_GLOB",
        5 => "MEM_ARE",
        6 => "MEM_HBM",
        7 => "MEM_BRAM",
        8 => "MEM_URAM",
        9 => "MEM_STREAMING_CONNECTION",
        10 => "MEM_HOST",
        11 => "MEM_PS_KERNEL",
        _ => return None,
    })
}

pub(crate) fn ip_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "IP_MB",
        1 => "IP_KERNEL",
        2 => "IP_DNASC",
        3 => "IP_DDR4_CONTROLLER",
        4 => "IP_MEM_DDR4",
        5 => "IP_MEM_HBM",
        6 => "IP_MEM_HBM_ECC",
        7 => "IP_PS_KERNEL",
        _ => return None,
    })
}

fn ip_control(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "AP_CTRL_HS",
        1 => "AP_CTRL_CHAIN",
        2 => "AP_CTRL_NONE",
        3 => "AP_CTRL_ME",
        4 => "ACCEL_ADAPTER",
        5 => "FAST_ADAPTER",
        _ => return None,
    })
}

fn ps_subtype(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "ST_PS",
        1 => "ST_DPU",
        _ => return None,
    })
}

fn ps_functional(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "FC_DPU",
        1 => "FC_PREPOST",
        _ => return None,
    })
}

pub(crate) fn debug_ip_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "UNDEFINED",
        1 => "LAPC",
        2 => "ILA",
        3 => "AXI_MM_MONITOR",
        4 => "AXI_TRACE_FUNNEL",
        5 => "AXI_MONITOR_FIFO_LITE",
        6 => "AXI_MONITOR_FIFO_FULL",
        7 => "ACCEL_MONITOR",
        8 => "AXI_STREAM_MONITOR",
        9 => "AXI_STREAM_PROTOCOL_CHECKER",
        10 => "TRACE_S2MM",
        11 => "AXI_DMA",
        12 => "TRACE_S2MM_FULL",
        13 => "AXI_NOC",
        14 => "ACCEL_DEADLOCK_DETECTOR",
        15 => "HSDP_TRACE",
        _ => return None,
    })
}

pub(crate) fn clock_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "CT_UNUSED",
        1 => "CT_DATA",
        2 => "CT_KERNEL",
        3 => "CT_SYSTEM",
        _ => return None,
    })
}

/// `name` of an element, or `[i]` alone when the name is empty.
fn elem_name(i: u64, name: &str) -> String {
    if name.is_empty() {
        format!("[{i}]")
    } else {
        format!("[{i}] {name}")
    }
}

fn fixed_at(b: &Builder<'_>, off: u64, len: u64) -> String {
    b.read_bytes(off, len).map(text::fixed).unwrap_or_default()
}

/// A table the connectivity sections point into.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table {
    /// Where its first entry starts.
    pub start: u64,
    /// How many entries it has (that fit in its section).
    pub count: u64,
    pub kind: &'static str,
}

/// The tables that other sections refer to by index.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ctx {
    pub ip: Option<Table>,
    pub mem: Option<Table>,
    pub group_mem: Option<Table>,
    /// The AIE generation the first AIE_METADATA gives (its
    /// `driver_config.hw_gen`).
    pub hw_gen: Option<u64>,
    /// True when the xclbin has an AIE_PARTITION: an NPU xclbin, whose
    /// PDI sections configure the AIE array too.
    pub npu: bool,
}

impl Ctx {
    /// Finds the first IP_LAYOUT, MEM_TOPOLOGY and ASK_GROUP_TOPOLOGY.
    pub fn new(b: &Builder<'_>, secs: &[Entry], sec_of: &[Option<Sec>]) -> Ctx {
        let find = |want: u32, stride: u64, name: &'static str| {
            secs.iter().zip(sec_of).find_map(|(e, s)| {
                let s = s.filter(|_| e.kind == want)?;
                let count = read_uint(b, s.abs, 4, LE).filter(|_| s.len >= 4)? as u32 as i32;
                let room = s.len.saturating_sub(8) / stride;
                Some(Table {
                    start: s.abs + 8,
                    count: u64::try_from(count).unwrap_or(0).min(room),
                    kind: name,
                })
            })
        };
        let hw_gen = secs.iter().zip(sec_of).find_map(|(e, s)| {
            let s = s.filter(|_| e.kind == kind::AIE_METADATA)?;
            hw_gen(b.slice(s.abs, s.len))
        });
        Ctx {
            ip: find(kind::IP_LAYOUT, IP_DATA, "IP_LAYOUT"),
            mem: find(kind::MEM_TOPOLOGY, MEM_DATA, "MEM_TOPOLOGY"),
            group_mem: find(kind::ASK_GROUP_TOPOLOGY, MEM_DATA, "ASK_GROUP_TOPOLOGY"),
            hw_gen,
            npu: secs.iter().any(|e| e.kind == kind::AIE_PARTITION),
        }
    }
}

/// The number after the first `"hw_gen"` key of an AIE_METADATA JSON text
/// (written as a number or as a string of digits).
pub(crate) fn hw_gen(json: &[u8]) -> Option<u64> {
    const KEY: &[u8] = b"\"hw_gen\"";
    let at = json.windows(KEY.len()).position(|w| w == KEY)?;
    let rest = json.get(at + KEY.len()..)?;
    let rest = rest.trim_ascii_start().strip_prefix(b":")?;
    let rest = rest.trim_ascii_start();
    let rest = rest.strip_prefix(b"\"").unwrap_or(rest);
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    std::str::from_utf8(rest.get(..n)?).ok()?.parse().ok()
}

/// KiB as a size with a readable unit beside.
fn kib(v: u64) -> Value {
    let unit = if v >= 1 << 20 && v.is_multiple_of(1 << 20) {
        format!(" ({} GiB)", v >> 20)
    } else if v >= 1 << 10 && v.is_multiple_of(1 << 10) {
        format!(" ({} MiB)", v >> 10)
    } else {
        String::new()
    };
    Value::with(v, Radix::Auto, format!(" KiB{unit}"))
}

/// An address; all ones means none.
fn addr(v: u64) -> Value {
    if v == u64::MAX {
        Value::named_hex(v, Some("none"))
    } else {
        Value::hex(v)
    }
}

// ---- MEM_TOPOLOGY / ASK_GROUP_TOPOLOGY ----

pub(crate) fn mem_topology(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, 4, "mem_topology's m_count") {
        return;
    }
    let n = table_count(b, sec, "m_count", sec.abs, 4, true, sec.abs + 8, MEM_DATA);
    if sec.len >= 8 {
        Fields::new(b, sec.node, sec.abs + 4, LE).bytes("padding", 4);
        let elem: ElemFn = Arc::new(mem_data);
        b.array(sec.node, "m_mem_data", sec.abs + 8, n, MEM_DATA, elem);
    }
}

fn mem_data(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let ty = read_uint(b, at, 1, LE).unwrap_or(0);
    let used = read_uint(b, at + 1, 1, LE).unwrap_or(0);
    let size = read_uint(b, at + 8, 8, LE).unwrap_or(0);
    let base = read_uint(b, at + 16, 8, LE).unwrap_or(0);
    let tag = fixed_at(b, at + 24, 16);
    let id = b.group(p, elem_name(i, &tag), at, MEM_DATA);
    let streaming = matches!(ty, 3 | 9);
    let summary = if streaming {
        format!("route {size}, flow {base}")
    } else {
        format!("{}, base 0x{base:x}", kib(size))
    };
    b.set_value(
        id,
        format!(
            "{}, {}, {summary}",
            mem_type(ty).unwrap_or("unknown type"),
            if used != 0 { "used" } else { "unused" }
        ),
    );
    let mut f = Fields::new(b, id, at, LE);
    f.named("m_type", 1, mem_type);
    f.named("m_used", 1, |v| {
        Some(if v != 0 { "used" } else { "unused" })
    });
    f.bytes("padding", 6);
    if streaming {
        f.u64("route_id");
        f.u64("flow_id");
    } else {
        f.with("m_size", 8, kib);
        f.with("m_base_address", 8, addr);
    }
    f.text("m_tag", 16);
}

// ---- CONNECTIVITY / ASK_GROUP_CONNECTIVITY ----

/// Checks one index against the table it names; reports it out of range.
fn check_index(
    b: &mut Builder<'_>,
    at: u64,
    v: i32,
    t: Option<Table>,
    what: &str,
    i: u64,
    bad: &mut u64,
) {
    let Some(t) = t else { return };
    if v >= 0 && (v as u64) < t.count {
        return;
    }
    *bad += 1;
    if *bad <= MAX_REPORTS {
        // A warning, not an error: XRT loads such files, and a real Kria
        // xclbin has two of these (xclbinutil calls them corruption).
        b.warn(
            at,
            4,
            format!(
                "connection [{i}]: {what} {v} is out of range; {} has {} entries (xclbinutil calls this corruption)",
                t.kind, t.count
            ),
        );
    }
}

pub(crate) fn connectivity(b: &mut Builder<'_>, sec: Sec, ctx: &Ctx, grouped: bool) {
    if !sec.need(b, 4, "connectivity's m_count") {
        return;
    }
    let n = table_count(b, sec, "m_count", sec.abs, 4, true, sec.abs + 4, CONNECTION);
    let mem = if grouped {
        ctx.group_mem.or(ctx.mem)
    } else {
        ctx.mem.or(ctx.group_mem)
    };
    let ip = ctx.ip;
    if n > 0 && ip.is_none() {
        b.warn(
            sec.abs,
            4,
            "connections name IP_LAYOUT entries, but there is no IP_LAYOUT section",
        );
    }
    if n > 0 && mem.is_none() {
        b.warn(
            sec.abs,
            4,
            "connections name memory banks, but there is no MEM_TOPOLOGY section",
        );
    }
    let mut bad = 0u64;
    for i in 0..n {
        let at = sec.abs + 4 + i * CONNECTION;
        let ip_i = read_uint(b, at + 4, 4, LE).unwrap_or(0) as u32 as i32;
        let mem_i = read_uint(b, at + 8, 4, LE).unwrap_or(0) as u32 as i32;
        check_index(b, at + 4, ip_i, ip, "m_ip_layout_index", i, &mut bad);
        check_index(b, at + 8, mem_i, mem, "mem_data_index", i, &mut bad);
    }
    if bad > MAX_REPORTS {
        b.warn(
            sec.abs,
            4,
            format!("{} more connection indices out of range", bad - MAX_REPORTS),
        );
    }
    let elem: ElemFn =
        Arc::new(move |b: &mut Builder<'_>, p, i, at| connection(b, p, i, at, ip, mem));
    b.array(sec.node, "m_connection", sec.abs + 4, n, CONNECTION, elem);
}

/// The entry `v` of table `t`: its offset and the name it shows.
fn resolve(
    b: &Builder<'_>,
    t: Option<Table>,
    v: i32,
    stride: u64,
    name_at: u64,
    name_len: u64,
) -> Option<(u64, String)> {
    let t = t?;
    let v = u64::try_from(v).ok().filter(|&v| v < t.count)?;
    let at = t.start + v * stride;
    Some((at, fixed_at(b, at + name_at, name_len)))
}

/// An index into a table, shown with the name of the entry it names (read
/// by [`resolve`]) and linked to it.
fn index_field(f: &mut Fields<'_, '_>, name: &str, target: Option<(u64, String)>, stride: u64) {
    let to = target.as_ref().map(|t| t.0);
    f.field(name, 4, |v| match target {
        Some((_, s)) => Value::with(v, Radix::Dec, format!(" -> \"{s}\"")).with_width(4),
        None => Value::note(Raw::I(i64::from(v as u32 as i32)), "out of range"),
    });
    if let (Some(to), Some(id)) = (to, f.last().filter(|_| f.ok())) {
        f.builder().link(id, to, stride);
    }
}

fn connection(
    b: &mut Builder<'_>,
    p: NodeId,
    i: u64,
    at: u64,
    ip: Option<Table>,
    mem: Option<Table>,
) {
    let arg = read_uint(b, at, 4, LE).unwrap_or(0) as u32 as i32;
    let ip_i = read_uint(b, at + 4, 4, LE).unwrap_or(0) as u32 as i32;
    let mem_i = read_uint(b, at + 8, 4, LE).unwrap_or(0) as u32 as i32;
    let ip_t = resolve(b, ip, ip_i, IP_DATA, 16, 64);
    let mem_t = resolve(b, mem, mem_i, MEM_DATA, 24, 16);
    let show = |t: &Option<(u64, String)>, v: i32| match t {
        Some((_, s)) => s.clone(),
        None => format!("#{v}?"),
    };
    let id = b.group(p, format!("[{i}]"), at, CONNECTION);
    b.set_value(
        id,
        format!(
            "arg {arg}: {} -> {}",
            show(&ip_t, ip_i),
            show(&mem_t, mem_i)
        ),
    );
    let mut f = Fields::new(b, id, at, LE);
    f.int("arg_index", 4);
    index_field(&mut f, "m_ip_layout_index", ip_t, IP_DATA);
    index_field(&mut f, "mem_data_index", mem_t, MEM_DATA);
}

// ---- IP_LAYOUT ----

pub(crate) fn ip_layout(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, 4, "ip_layout's m_count") {
        return;
    }
    let n = table_count(b, sec, "m_count", sec.abs, 4, true, sec.abs + 8, IP_DATA);
    if sec.len >= 8 {
        Fields::new(b, sec.node, sec.abs + 4, LE).bytes("padding", 4);
        let elem: ElemFn = Arc::new(ip_data);
        b.array(sec.node, "m_ip_data", sec.abs + 8, n, IP_DATA, elem);
    }
}

fn ip_data(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let ty = read_uint(b, at, 4, LE).unwrap_or(0);
    let base = read_uint(b, at + 8, 8, LE).unwrap_or(0);
    let name = fixed_at(b, at + 16, 64);
    let id = b.group(p, elem_name(i, &name), at, IP_DATA);
    b.set_value(
        id,
        format!(
            "{} \"{name}\" at {}",
            ip_type(ty).unwrap_or("unknown type"),
            addr(base)
        ),
    );
    let mut f = Fields::new(b, id, at, LE);
    f.named("m_type", 4, ip_type);
    properties(&mut f, ty);
    f.with("m_base_address", 8, addr);
    f.text("m_name", 64);
}

/// The `properties` union, decoded as the IP's type says.
fn properties(f: &mut Fields<'_, '_>, ty: u64) {
    let (p, at) = (f.parent(), f.at());
    f.skip(4);
    let b = f.builder();
    let Some(v) = read_uint(b, at, 4, LE) else {
        return;
    };
    match ty {
        1 => {
            let on = v & 1;
            let irq = (v & 0xFE) >> 1;
            let ctrl = (v & 0xFF00) >> 8;
            let rest = format!(
                " (interrupt {}, id {irq}, {})",
                if on != 0 { "enabled" } else { "disabled" },
                ip_control(ctrl).unwrap_or("unknown control")
            );
            let id = b.leaf(p, "properties", at, 4, wide(v, rest));
            b.leaf(id, "m_int_enable", at, 1, Value::dec(on));
            b.leaf(id, "m_interrupt_id", at, 1, Value::dec(irq));
            let ctrl_v = Value::named(ctrl, ip_control(ctrl));
            b.leaf(id, "m_ip_control", at + 1, 1, ctrl_v);
        }
        7 => {
            let sub = v & 3;
            let func = (v >> 4) & 3;
            let kid = (v >> 16) & 0xFFF;
            let rest = format!(
                " ({}, {}, kernel id 0x{kid:x})",
                ps_subtype(sub).unwrap_or("unknown subtype"),
                ps_functional(func).unwrap_or("unknown function")
            );
            let id = b.leaf(p, "properties", at, 4, wide(v, rest));
            b.leaf(id, "m_subtype", at, 1, Value::named(sub, ps_subtype(sub)));
            let func_v = Value::named(func, ps_functional(func));
            b.leaf(id, "m_functional", at, 1, func_v);
            b.leaf(id, "m_kernel_id", at + 2, 2, Value::uint(kid));
        }
        4..=6 => {
            let rest = format!(" (index {}, pc index {})", v & 0xFFFF, (v >> 16) & 0xFF);
            let id = b.leaf(p, "properties", at, 4, wide(v, rest));
            let mut f = Fields::new(b, id, at, LE);
            f.u16("m_index");
            f.u8("m_pc_index");
            f.bytes("unused", 1);
        }
        _ => {
            b.leaf(p, "properties", at, 4, Value::hex_wide(v, 4));
        }
    }
}

/// A 32-bit word in hex with all its digits, then what it means.
fn wide(v: u64, rest: String) -> Value {
    Value::with(v, Radix::HexWide, rest).with_width(4)
}

// ---- DEBUG_IP_LAYOUT ----

pub(crate) fn debug_ip_layout(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, 2, "debug_ip_layout's m_count") {
        return;
    }
    let n = table_count(
        b,
        sec,
        "m_count",
        sec.abs,
        2,
        false,
        sec.abs + 8,
        DEBUG_IP_DATA,
    );
    if sec.len >= 8 {
        Fields::new(b, sec.node, sec.abs + 2, LE).bytes("padding", 6);
        let elem: ElemFn = Arc::new(debug_ip_data);
        b.array(
            sec.node,
            "m_debug_ip_data",
            sec.abs + 8,
            n,
            DEBUG_IP_DATA,
            elem,
        );
    }
}

fn debug_ip_data(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let ty = read_uint(b, at, 1, LE).unwrap_or(0);
    let index =
        read_uint(b, at + 1, 1, LE).unwrap_or(0) | read_uint(b, at + 5, 1, LE).unwrap_or(0) << 8;
    let (major, minor) = (
        read_uint(b, at + 3, 1, LE).unwrap_or(0),
        read_uint(b, at + 4, 1, LE).unwrap_or(0),
    );
    let base = read_uint(b, at + 8, 8, LE).unwrap_or(0);
    let name = fixed_at(b, at + 16, 128);
    let id = b.group(p, elem_name(i, &name), at, DEBUG_IP_DATA);
    b.set_value(
        id,
        format!(
            "{} index {index}, version {major}.{minor}, at {}",
            debug_ip_type(ty).unwrap_or("unknown type"),
            addr(base)
        ),
    );
    let mut f = Fields::new(b, id, at, LE);
    f.named("m_type", 1, debug_ip_type);
    f.u8("m_index_lowbyte");
    f.hex_wide("m_properties", 1);
    f.u8("m_major");
    f.u8("m_minor");
    f.u8("m_index_highbyte");
    f.bytes("m_reserved", 2);
    f.with("m_base_address", 8, addr);
    f.text("m_name", 128);
}

// ---- CLOCK_FREQ_TOPOLOGY ----

pub(crate) fn clock_freq_topology(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, 2, "clock_freq_topology's m_count") {
        return;
    }
    let n = table_count(b, sec, "m_count", sec.abs, 2, true, sec.abs + 2, CLOCK_FREQ);
    let elem: ElemFn = Arc::new(clock_freq);
    b.array(sec.node, "m_clock_freq", sec.abs + 2, n, CLOCK_FREQ, elem);
}

fn clock_freq(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let mhz = read_uint(b, at, 2, LE).unwrap_or(0);
    let ty = read_uint(b, at + 2, 1, LE).unwrap_or(0);
    let name = fixed_at(b, at + 8, 128);
    let id = b.group(p, elem_name(i, &name), at, CLOCK_FREQ);
    b.set_value(
        id,
        format!("{} {mhz} MHz", clock_type(ty).unwrap_or("unknown type")),
    );
    let mut f = Fields::new(b, id, at, LE);
    f.with("m_freq_Mhz", 2, |v| Value::with(v, Radix::Dec, " MHz"));
    f.named("m_type", 1, clock_type);
    f.bytes("m_unused", 5);
    f.text("m_name", 128);
}
