//! The fixed-stride tables: MEM_TOPOLOGY (and ASK_GROUP_TOPOLOGY),
//! CONNECTIVITY (and ASK_GROUP_CONNECTIVITY), IP_LAYOUT, DEBUG_IP_LAYOUT
//! and CLOCK_FREQ_TOPOLOGY. Counts and indices are checked when the file
//! opens; the entries are built when their table is opened.

use std::sync::Arc;

use super::layout::{kind, table_count, Entry, Sec, LE, MAX_REPORTS};
use crate::model::record::{record, At, Record};
use crate::model::{read_uint, text, Builder, ElemFn, Fields, NodeId, Radix, Raw, Value};

record! {
    /// `mem_data` (xclbin.h), a MEM_TOPOLOGY entry. For a streaming
    /// bank the union of size and base address is [`stream`]'s instead.
    mod mem_data: MemData (LE) {
        m_type: u8 = "m_type", Show::Named(mem_type),
        m_used: u8 = "m_used", Show::Named(used_name),
        padding: [u8; 6] = "padding", Show::Bytes,
        m_size: u64 = "m_size", Show::Wide(kib),
        m_base_address: u64 = "m_base_address", Show::Wide(addr),
        m_tag: [u8; 16] = "m_tag", Show::Text,
    }
}

record! {
    /// The other arm of `mem_data`'s union, for a streaming bank.
    mod stream: Stream (LE) {
        route_id: u64 = "route_id", Show::Auto,
        flow_id: u64 = "flow_id", Show::Auto,
    }
}

record! {
    /// `connection` (xclbin.h): an argument of a kernel, the IP_LAYOUT
    /// entry and the memory bank it is connected to (shown with the names
    /// of the entries they point at).
    mod connection: Connection (LE) {
        arg_index: i32 = "arg_index", Show::Int,
        m_ip_layout_index: i32 = "m_ip_layout_index", Show::Int,
        mem_data_index: i32 = "mem_data_index", Show::Int,
    }
}

record! {
    /// `ip_data` (xclbin.h), an IP_LAYOUT entry; its `properties` are a
    /// union decoded as its type says.
    mod ip_data: IpData (LE) {
        m_type: u32 = "m_type", Show::Named(ip_type),
        properties: u32 = "properties", Show::Hidden,
        m_base_address: u64 = "m_base_address", Show::Wide(addr),
        m_name: [u8; 64] = "m_name", Show::Text,
    }
}

record! {
    /// `properties` of an IP of type 4 to 6 (memory and debug IPs).
    mod ip_index: IpIndex (LE) {
        m_index: u16 = "m_index", Show::Auto,
        m_pc_index: u8 = "m_pc_index", Show::Auto,
        unused: [u8; 1] = "unused", Show::Bytes,
    }
}

record! {
    /// `debug_ip_data` (xclbin.h), a DEBUG_IP_LAYOUT entry.
    mod debug_ip_data: DebugIpData (LE) {
        m_type: u8 = "m_type", Show::Named(debug_ip_type),
        m_index_lowbyte: u8 = "m_index_lowbyte", Show::Auto,
        m_properties: u8 = "m_properties", Show::HexWide,
        m_major: u8 = "m_major", Show::Auto,
        m_minor: u8 = "m_minor", Show::Auto,
        m_index_highbyte: u8 = "m_index_highbyte", Show::Auto,
        m_reserved: [u8; 2] = "m_reserved", Show::Bytes,
        m_base_address: u64 = "m_base_address", Show::Wide(addr),
        m_name: [u8; 128] = "m_name", Show::Text,
    }
}

record! {
    /// `clock_freq` (xclbin.h), a CLOCK_FREQ_TOPOLOGY entry.
    mod clock_freq: ClockFreq (LE) {
        m_freq_mhz: u16 = "m_freq_Mhz", Show::Wide(mhz),
        m_type: u8 = "m_type", Show::Named(clock_type),
        m_unused: [u8; 5] = "m_unused", Show::Bytes,
        m_name: [u8; 128] = "m_name", Show::Text,
    }
}

record! {
    /// The head of MEM_TOPOLOGY and IP_LAYOUT: a count, padded to 8 bytes.
    mod count_padded: CountPadded (LE) {
        m_count: i32 = "m_count", Show::Int,
        padding: [u8; 4] = "padding", Show::Bytes,
    }
}

record! {
    /// The head of CONNECTIVITY: a count.
    mod count32: Count32 (LE) {
        m_count: i32 = "m_count", Show::Int,
    }
}

record! {
    /// The head of DEBUG_IP_LAYOUT: an unsigned count, padded to 8 bytes.
    mod debug_count: DebugCount (LE) {
        m_count: u16 = "m_count", Show::Auto,
        padding: [u8; 6] = "padding", Show::Bytes,
    }
}

record! {
    /// The head of CLOCK_FREQ_TOPOLOGY: a count.
    mod count16: Count16 (LE) {
        m_count: i16 = "m_count", Show::Int,
    }
}

record! {
    /// `properties` of a kernel IP (type 1): interrupt enable and id in
    /// the first byte, then the control protocol.
    mod ip_kernel: IpKernel (LE) {
        interrupt: u8 = "interrupt", Show::Hidden,
        m_ip_control: u8 = "m_ip_control", Show::Hidden,
        unused: [u8; 2] = "unused", Show::Hidden,
    }
}

record! {
    /// `properties` of a PS kernel IP (type 7): subtype and function in
    /// the first byte, the kernel id in the last two (12 bits).
    mod ps_kernel: PsKernel (LE) {
        kind: u8 = "kind", Show::Hidden,
        unused: u8 = "unused", Show::Hidden,
        m_kernel_id: u16 = "m_kernel_id", Show::Hidden,
    }
}

/// Adds a table head's padding (the bytes after its count) under the
/// section.
fn head_padding(b: &mut Builder<'_>, sec: Sec, padding: At) {
    Fields::new(b, sec.node, padding.of(sec.span.offset), LE).bytes("padding", padding.size);
}

const MEM_DATA: u64 = mem_data::SIZE;
const CONNECTION: u64 = connection::SIZE;
const IP_DATA: u64 = ip_data::SIZE;
const DEBUG_IP_DATA: u64 = debug_ip_data::SIZE;
const CLOCK_FREQ: u64 = clock_freq::SIZE;

fn used_name(v: u64) -> Option<&'static str> {
    Some(if v != 0 { "used" } else { "unused" })
}

fn mhz(v: u64) -> Value {
    Value::with(v, Radix::Dec, " MHz")
}

/// The memory types (`MEM_TYPE`) of streaming banks, whose size and base
/// address are a route and a flow.
const MEM_STREAMING: u64 = 3;
const MEM_STREAMING_CONNECTION: u64 = 9;

/// The IP types (`IP_TYPE`) whose `properties` are decoded.
const IP_KERNEL: u64 = 1;
const IP_MEM_DDR4: u64 = 4;
const IP_MEM_HBM_ECC: u64 = 6;
const IP_PS_KERNEL: u64 = 7;

pub(crate) fn mem_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "MEM_DDR3",
        1 => "MEM_DDR4",
        2 => "MEM_DRAM",
        MEM_STREAMING => "MEM_STREAMING",
        4 => "MEM_PREALLOCATED_GLOB",
        5 => "MEM_ARE",
        6 => "MEM_HBM",
        7 => "MEM_BRAM",
        8 => "MEM_URAM",
        MEM_STREAMING_CONNECTION => "MEM_STREAMING_CONNECTION",
        10 => "MEM_HOST",
        11 => "MEM_PS_KERNEL",
        _ => return None,
    })
}

pub(crate) fn ip_type(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "IP_MB",
        IP_KERNEL => "IP_KERNEL",
        2 => "IP_DNASC",
        3 => "IP_DDR4_CONTROLLER",
        IP_MEM_DDR4 => "IP_MEM_DDR4",
        5 => "IP_MEM_HBM",
        IP_MEM_HBM_ECC => "IP_MEM_HBM_ECC",
        IP_PS_KERNEL => "IP_PS_KERNEL",
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
                let c = count_padded::AT.m_count;
                let count = read_uint(b, c.of(s.span.offset), c.size, LE)
                    .filter(|_| s.span.len >= c.end())? as u32 as i32;
                let room = s.span.len.saturating_sub(count_padded::SIZE) / stride;
                Some(Table {
                    start: s.span.offset.saturating_add(count_padded::SIZE),
                    count: u64::try_from(count).unwrap_or(0).min(room),
                    kind: name,
                })
            })
        };
        let hw_gen = secs.iter().zip(sec_of).find_map(|(e, s)| {
            let s = s.filter(|_| e.kind == kind::AIE_METADATA)?;
            hw_gen(b.bytes(s.span))
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
    if !sec.need(b, count_padded::AT.m_count.end(), "mem_topology's m_count") {
        return;
    }
    use count_padded::{AT, SIZE};
    let n = table_count(b, sec, "m_count", (AT.m_count, true), SIZE, MEM_DATA);
    if sec.span.len >= SIZE {
        head_padding(b, sec, AT.padding);
        let elem: ElemFn = Arc::new(mem_data);
        b.array(sec.node, "m_mem_data", sec.at(SIZE), n, MEM_DATA, elem);
    }
}

fn mem_data(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let r = MemData::read_zeroed(b.slice(at, MEM_DATA), LE).ok();
    let ty = r.map_or(0, |r| u64::from(r.m_type));
    let used = r.map_or(0, |r| r.m_used);
    let size = r.map_or(0, |r| r.m_size);
    let base = r.map_or(0, |r| r.m_base_address);
    let tag = r.map_or_else(String::new, |r| text::fixed(&r.m_tag));
    let id = b.group(p, elem_name(i, &tag), at, MEM_DATA);
    let streaming = matches!(ty, MEM_STREAMING | MEM_STREAMING_CONNECTION);
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
    if streaming {
        MemData::show_part(&mut f, 0, mem_data::AT.m_size.off);
        Stream::show(&mut f);
        MemData::show_part(&mut f, mem_data::AT.m_tag.off, MEM_DATA);
    } else {
        MemData::show(&mut f);
    }
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
    if !sec.need(b, count32::SIZE, "connectivity's m_count") {
        return;
    }
    use count32::{AT, SIZE};
    let n = table_count(b, sec, "m_count", (AT.m_count, true), SIZE, CONNECTION);
    let mem = if grouped {
        ctx.group_mem.or(ctx.mem)
    } else {
        ctx.mem.or(ctx.group_mem)
    };
    let ip = ctx.ip;
    if n > 0 && ip.is_none() {
        b.warn(
            sec.span.offset,
            4,
            "connections name IP_LAYOUT entries, but there is no IP_LAYOUT section",
        );
    }
    if n > 0 && mem.is_none() {
        b.warn(
            sec.span.offset,
            4,
            "connections name memory banks, but there is no MEM_TOPOLOGY section",
        );
    }
    let mut bad = 0u64;
    for i in 0..n {
        let at = sec.at(SIZE) + i * CONNECTION;
        let r = Connection::read_zeroed(b.slice(at, CONNECTION), LE).ok();
        let ip_i = r.map_or(0, |r| r.m_ip_layout_index);
        let mem_i = r.map_or(0, |r| r.mem_data_index);
        let (ip_at, mem_at) = (
            connection::AT.m_ip_layout_index.of(at),
            connection::AT.mem_data_index.of(at),
        );
        check_index(b, ip_at, ip_i, ip, "m_ip_layout_index", i, &mut bad);
        check_index(b, mem_at, mem_i, mem, "mem_data_index", i, &mut bad);
    }
    if bad > MAX_REPORTS {
        b.warn(
            sec.span.offset,
            4,
            format!("{} more connection indices out of range", bad - MAX_REPORTS),
        );
    }
    let elem: ElemFn =
        Arc::new(move |b: &mut Builder<'_>, p, i, at| connection(b, p, i, at, ip, mem));
    b.array(sec.node, "m_connection", sec.at(SIZE), n, CONNECTION, elem);
}

/// The entry `v` of table `t` (of `stride`-byte entries whose name is
/// at `name`): its offset and the name it shows.
fn resolve(
    b: &Builder<'_>,
    t: Option<Table>,
    v: i32,
    stride: u64,
    name: At,
) -> Option<(u64, String)> {
    let t = t?;
    let v = u64::try_from(v).ok().filter(|&v| v < t.count)?;
    let at = t.start + v * stride;
    Some((at, fixed_at(b, name.of(at), name.size)))
}

/// An index into a table (its node `id`, its value `v`), shown with the
/// name of the entry it names (read by [`resolve`]) and linked to it.
fn index_field(
    b: &mut Builder<'_>,
    id: Option<NodeId>,
    v: i32,
    target: Option<(u64, String)>,
    stride: u64,
) {
    let Some(id) = id else { return };
    match target {
        Some((to, s)) => {
            let v = u64::from(v as u32);
            b.set_value(
                id,
                Value::with(v, Radix::Dec, format!(" -> \"{s}\"")).with_width(4),
            );
            b.link(id, b.span(to, stride));
        }
        None => b.set_value(id, Value::note(Raw::I(i64::from(v)), "out of range")),
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
    let r = Connection::read_zeroed(b.slice(at, CONNECTION), LE).ok();
    let arg = r.map_or(0, |r| r.arg_index);
    let ip_i = r.map_or(0, |r| r.m_ip_layout_index);
    let mem_i = r.map_or(0, |r| r.mem_data_index);
    let ip_t = resolve(b, ip, ip_i, IP_DATA, ip_data::AT.m_name);
    let mem_t = resolve(b, mem, mem_i, MEM_DATA, mem_data::AT.m_tag);
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
    let n = Connection::show(&mut f);
    index_field(b, n.m_ip_layout_index, ip_i, ip_t, IP_DATA);
    index_field(b, n.mem_data_index, mem_i, mem_t, MEM_DATA);
}

// ---- IP_LAYOUT ----

pub(crate) fn ip_layout(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, count_padded::AT.m_count.end(), "ip_layout's m_count") {
        return;
    }
    use count_padded::{AT, SIZE};
    let n = table_count(b, sec, "m_count", (AT.m_count, true), SIZE, IP_DATA);
    if sec.span.len >= SIZE {
        head_padding(b, sec, AT.padding);
        let elem: ElemFn = Arc::new(ip_data);
        b.array(sec.node, "m_ip_data", sec.at(SIZE), n, IP_DATA, elem);
    }
}

fn ip_data(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let r = IpData::read_zeroed(b.slice(at, IP_DATA), LE).ok();
    let ty = r.map_or(0, |r| u64::from(r.m_type));
    let base = r.map_or(0, |r| r.m_base_address);
    let name = r.map_or_else(String::new, |r| text::fixed(&r.m_name));
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
    IpData::show_part(&mut f, 0, ip_data::AT.properties.off);
    properties(&mut f, ty);
    IpData::show_part(&mut f, ip_data::AT.m_base_address.off, IP_DATA);
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
        IP_KERNEL => {
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
            let c = ip_kernel::AT.m_ip_control;
            b.leaf(id, "m_ip_control", c.of(at), c.size, ctrl_v);
        }
        IP_PS_KERNEL => {
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
            let k = ps_kernel::AT.m_kernel_id;
            b.leaf(id, "m_kernel_id", k.of(at), k.size, Value::uint(kid));
        }
        IP_MEM_DDR4..=IP_MEM_HBM_ECC => {
            let rest = format!(" (index {}, pc index {})", v & 0xFFFF, (v >> 16) & 0xFF);
            let id = b.leaf(p, "properties", at, 4, wide(v, rest));
            IpIndex::show(&mut Fields::new(b, id, at, LE));
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
    if !sec.need(
        b,
        debug_count::AT.m_count.end(),
        "debug_ip_layout's m_count",
    ) {
        return;
    }
    use debug_count::{AT, SIZE};
    let n = table_count(b, sec, "m_count", (AT.m_count, false), SIZE, DEBUG_IP_DATA);
    if sec.span.len >= SIZE {
        head_padding(b, sec, AT.padding);
        let elem: ElemFn = Arc::new(debug_ip_data);
        let start = sec.at(SIZE);
        b.array(sec.node, "m_debug_ip_data", start, n, DEBUG_IP_DATA, elem);
    }
}

fn debug_ip_data(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let r = DebugIpData::read_zeroed(b.slice(at, DEBUG_IP_DATA), LE).ok();
    let ty = r.map_or(0, |r| u64::from(r.m_type));
    let index = r.map_or(0, |r| {
        u64::from(r.m_index_lowbyte) | u64::from(r.m_index_highbyte) << 8
    });
    let (major, minor) = r.map_or((0, 0), |r| (r.m_major, r.m_minor));
    let base = r.map_or(0, |r| r.m_base_address);
    let name = r.map_or_else(String::new, |r| text::fixed(&r.m_name));
    let id = b.group(p, elem_name(i, &name), at, DEBUG_IP_DATA);
    b.set_value(
        id,
        format!(
            "{} index {index}, version {major}.{minor}, at {}",
            debug_ip_type(ty).unwrap_or("unknown type"),
            addr(base)
        ),
    );
    DebugIpData::show(&mut Fields::new(b, id, at, LE));
}

// ---- CLOCK_FREQ_TOPOLOGY ----

pub(crate) fn clock_freq_topology(b: &mut Builder<'_>, sec: Sec) {
    if !sec.need(b, count16::SIZE, "clock_freq_topology's m_count") {
        return;
    }
    use count16::{AT, SIZE};
    let n = table_count(b, sec, "m_count", (AT.m_count, true), SIZE, CLOCK_FREQ);
    let elem: ElemFn = Arc::new(clock_freq);
    b.array(sec.node, "m_clock_freq", sec.at(SIZE), n, CLOCK_FREQ, elem);
}

fn clock_freq(b: &mut Builder<'_>, p: NodeId, i: u64, at: u64) {
    let r = ClockFreq::read_zeroed(b.slice(at, CLOCK_FREQ), LE).ok();
    let mhz = r.map_or(0, |r| r.m_freq_mhz);
    let ty = r.map_or(0, |r| u64::from(r.m_type));
    let name = r.map_or_else(String::new, |r| text::fixed(&r.m_name));
    let id = b.group(p, elem_name(i, &name), at, CLOCK_FREQ);
    b.set_value(
        id,
        format!("{} {mhz} MHz", clock_type(ty).unwrap_or("unknown type")),
    );
    ClockFreq::show(&mut Fields::new(b, id, at, LE));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries as xclbin.h (XRT) lays them out.
    #[test]
    fn entries_match_xclbin_h_and_short_slices_are_errors() {
        assert_eq!((MEM_DATA, CONNECTION, IP_DATA), (40, 12, 80));
        assert_eq!((DEBUG_IP_DATA, CLOCK_FREQ), (144, 136));
        assert_eq!(mem_data::AT.m_size.off, stream::AT.route_id.after(8).off);
        assert_eq!(mem_data::AT.m_tag, At { off: 24, size: 16 });
        assert_eq!(connection::AT.mem_data_index.off, 8);
        assert_eq!(ip_data::AT.m_name, At { off: 16, size: 64 });
        assert_eq!(ip_index::SIZE, ip_data::AT.properties.size);
        assert_eq!(debug_ip_data::AT.m_index_highbyte.off, 5);
        assert_eq!(debug_ip_data::AT.m_name, At { off: 16, size: 128 });
        assert_eq!(clock_freq::AT.m_name.off, 8);
        let e = IpData::read(&[0; 20]).unwrap_err();
        assert_eq!((e.field, e.need, e.have), ("m_name", 80, 20));
        assert_eq!(
            Connection::read(&[0; 11]).unwrap_err().field,
            "mem_data_index"
        );
        assert_eq!(ClockFreq::read(&[]).unwrap_err().field, "m_freq_Mhz");
        let mut d = [0u8; 40];
        d[0] = 9;
        d[24..27].copy_from_slice(b"HBM");
        let r = MemData::read(&d).unwrap();
        assert_eq!((r.m_type, text::fixed(&r.m_tag).as_str()), (9, "HBM"));
    }
}
