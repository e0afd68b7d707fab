//! Machine code as instructions, when the reader asks for it
//! ([`crate::model::Options::code`]): which target an ELF's code is for
//! (from e_machine, e_flags, the class, the byte order and, for RISC-V,
//! `.riscv.attributes`), and the instructions of a function or of a section
//! without functions, decoded by [`crate::disasm`] only when the node is
//! opened.

use std::sync::Arc;

use super::shared::Names;
use super::{constants, Elf};
use crate::disasm::{self, Target, MAX_INSNS};
use crate::model::read::u32_at;
use crate::model::{Builder, Endian, NodeId, Seq, SourceLine, Span, Step, Value, GROUP};

/// `SHT_RISCV_ATTRIBUTES`.
const SHT_RISCV_ATTRIBUTES: u32 = 0x7000_0003;
/// `Tag_RISCV_arch` in the `riscv` subsection of `.riscv.attributes`.
const TAG_RISCV_ARCH: u64 = 5;

/// The target of an ELF's code, if its machine is one the engine decodes.
pub(super) fn target(b: &Builder<'_>, elf: &Elf) -> Option<Target> {
    let be = elf.e == Endian::Big;
    // A machine with a vendor says it itself (AMDGPU: the processor and
    // features e_flags name; Intel GT: the platform its notes name).
    if let Some(t) = elf.vendor.and_then(|v| v.code_target(b, elf)) {
        return Some(t);
    }
    let t = match elf.machine {
        constants::EM_X86_64 if elf.is64 => Target::new("x86_64-unknown-linux-gnu", "", ""),
        constants::EM_386 => Target::new("i386-unknown-linux-gnu", "", ""),
        // llvm-objdump decodes every AArch64 extension unless told a
        // processor; so does fwview.
        constants::EM_AARCH64 => Target::new(if be { "aarch64_be" } else { "aarch64" }, "", "+all"),
        constants::EM_RISCV => Target::new(
            if elf.is64 { "riscv64" } else { "riscv32" },
            "",
            &riscv_features(b, elf),
        ),
        constants::EM_XCORE => Target::new("xcore", "", ""),
        _ => return None,
    };
    Some(t)
}

/// The single-letter RISC-V extensions passed on as features (the base
/// `i`/`e` is the triple's).
const RISCV_LETTERS: &str = "mafdqcvhb";

/// RISC-V features: from the `Tag_RISCV_arch` string of
/// `.riscv.attributes` where there is one, else from e_flags (RVC, the
/// float ABI).
fn riscv_features(b: &Builder<'_>, elf: &Elf) -> String {
    if let Some(arch) = riscv_arch(b, elf) {
        return arch_features(&arch).join(",");
    }
    let mut f = Vec::new();
    if elf.flags & 1 != 0 {
        f.push("+c");
    }
    match (elf.flags >> 1) & 3 {
        1 => f.push("+f"),
        2 => f.extend(["+f", "+d"]),
        3 => f.extend(["+f", "+d", "+q"]),
        _ => {}
    }
    f.join(",")
}

/// `rv64i2p1_m2p0_zicsr2p0` as features: `+m`, `+zicsr`.
pub(super) fn arch_features(arch: &str) -> Vec<String> {
    let lower = arch.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("rv64")
        .or_else(|| lower.strip_prefix("rv32"))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, part) in rest.split('_').enumerate() {
        // The version (`2p1`) ends each extension's name.
        let name = part.trim_end_matches(|c: char| c.is_ascii_digit() || c == 'p');
        if k == 0 {
            // The base and the single letters after it: `i2p1` or `gc`.
            for c in name.chars() {
                let letters: &[char] = match c {
                    'g' => &['m', 'a', 'f', 'd'],
                    c if RISCV_LETTERS.contains(c) => &[c],
                    _ => &[],
                };
                for l in letters {
                    out.push(format!("+{l}"));
                }
            }
        } else if (name.len() == 1 && RISCV_LETTERS.contains(name))
            || (name.len() > 1 && name.chars().all(|c| c.is_ascii_alphanumeric()))
        {
            out.push(format!("+{name}"));
        }
    }
    out.dedup();
    out
}

/// The `Tag_RISCV_arch` string of the file's `.riscv.attributes`.
fn riscv_arch(b: &Builder<'_>, elf: &Elf) -> Option<String> {
    let s = elf
        .secs
        .iter()
        .find(|s| s.typ == SHT_RISCV_ATTRIBUTES || s.name == ".riscv.attributes")?;
    let at = elf.data(s)?;
    let d = b.bytes(at);
    // 'A', then subsections: u32 length, vendor name, NUL, then
    // sub-subsections: tag (ULEB), u32 length, attributes.
    let mut rest = d.strip_prefix(b"A")?;
    while rest.len() > LEN {
        let len = u32_at(rest, 0, elf.e)? as usize;
        let sub = rest.get(..len)?;
        rest = rest.get(len.max(1)..)?;
        let body = sub.get(LEN..)?;
        let (vendor, mut p) = cut_nul(body)?;
        if vendor != b"riscv" {
            continue;
        }
        while p.len() > 5 {
            let (tag, n) = uleb(p)?;
            let size = u32_at(p, n as u64, elf.e)? as usize;
            let attrs = p.get(n + LEN..size.max(n + LEN))?;
            if tag == 1 {
                if let Some(a) = find_arch(attrs) {
                    return Some(a);
                }
            }
            p = p.get(size.max(1)..)?;
        }
    }
    None
}

/// The arch string among a file's attributes: tag, then a ULEB value for
/// even tags and a NUL-terminated string for odd ones (4 and 5 say so
/// themselves: 4 is a number, 5 a string).
fn find_arch(mut p: &[u8]) -> Option<String> {
    while !p.is_empty() {
        let (tag, n) = uleb(p)?;
        p = p.get(n..)?;
        if tag % 2 == 1 {
            let (text, rest) = cut_nul(p)?;
            if tag == TAG_RISCV_ARCH {
                return std::str::from_utf8(text).ok().map(str::to_string);
            }
            p = rest;
        } else {
            let (_, n) = uleb(p)?;
            p = p.get(n..)?;
        }
    }
    None
}

/// The size of the length of a subsection and of a sub-subsection.
const LEN: usize = 4;

/// The NUL-terminated string at the start of `d` and the bytes after its
/// NUL.
fn cut_nul(d: &[u8]) -> Option<(&[u8], &[u8])> {
    let nul = memchr::memchr(0, d)?;
    let (text, rest) = d.split_at(nul);
    Some((text, rest.strip_prefix(b"\0")?))
}

/// A ULEB128 of at most 10 bytes and how many bytes it took.
fn uleb(d: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &c) in d.iter().take(10).enumerate() {
        v |= u64::from(c & 0x7f).checked_shl(7 * i as u32)?;
        if c & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Where code is: what it is for, its ELF, and the index of its section.
#[derive(Clone)]
pub(super) struct Place {
    pub t: Arc<Target>,
    pub elf: Arc<Elf>,
    pub sec: u32,
    /// The section's functions in order, as `(start, len, pc)`: those
    /// after the one being decoded are asked for ahead.
    pub funcs: Arc<[(u64, u64, u64)]>,
}

impl Place {
    /// The symbols of the ELF, read when its code is first decoded (not
    /// when the file opens) and kept for its other functions.
    fn names(&self, b: &Builder<'_>) -> &Names {
        self.elf.names.get_or_init(|| Names::read(b, &self.elf))
    }

    /// The rows of the ELF's line programs, read when its code is first
    /// decoded and kept for its other functions.
    fn lines(&self, b: &Builder<'_>) -> &super::dwarf::Lines {
        self.elf
            .lines
            .get_or_init(|| super::dwarf::line_table(b, &self.elf))
    }
}

/// Makes `node` (a function, or a section without functions, over
/// `code`) open into its instructions; `pc` is the address of its first
/// byte.
pub(super) fn instructions(b: &mut Builder<'_>, node: NodeId, place: &Place, code: Span, pc: u64) {
    if code.is_empty() {
        return;
    }
    // A tree that looks for links' targets learns the first instruction's
    // name without decoding, where the function is short enough that its
    // instructions are not grouped and an engine will decode it: a kernel
    // descriptor's entry leads there.
    let unit = place.t.unit() as u64;
    let first = b.finding_targets()
        && code.len <= GROUP.saturating_mul(unit)
        && b.node(node).is_some_and(|n| n.offset == code.offset)
        && disasm::with_engine(&place.t, |_| ()).is_ok();
    let place = place.clone();
    b.lazy(
        node,
        Arc::new(move |b, id| decode_all(b, id, &place, code, pc)),
    );
    if first {
        b.lead(node, insn_name(pc));
    }
}

/// The name of the instruction at `addr`.
fn insn_name(addr: u64) -> compact_str::CompactString {
    compact_str::format_compact!("0x{addr:08x}")
}

/// What one pass over a function found.
struct Scan {
    /// The first [`KEPT`] instructions, with their offsets.
    first: Vec<(u64, disasm::Insn)>,
    /// Every [`GROUP`]-th instruction's offset.
    marks: Vec<u64>,
    count: u64,
    /// Where decoding stopped.
    end: u64,
}

/// The most functions asked for at once, the one being decoded and those
/// after it.
const AHEAD: usize = 64;

/// The most instructions of one function the pass that counts them keeps
/// for its groups, which take them when they are built instead of
/// decoding them again (an export builds every group just after the
/// pass). Past them, a group decodes its instructions itself.
const KEPT: u64 = 32 * GROUP;

/// The instructions a function's pass kept, by offset, each handed out
/// once.
struct Kept {
    insns: Vec<(u64, Option<disasm::Insn>)>,
    /// How many are not handed out yet.
    left: usize,
}

impl Kept {
    /// The kept instruction at `at`, if there is one and it was not
    /// handed out before; the list is let go once all are.
    fn take(&mut self, at: u64) -> Option<disasm::Insn> {
        let k = self.insns.binary_search_by_key(&at, |(a, _)| *a).ok()?;
        let i = self.insns.get_mut(k)?.1.take()?;
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            self.insns = Vec::new();
        }
        Some(i)
    }
}

/// Functions decoded to find where a link leads (a kernel descriptor's
/// entry), kept for the tree that shows them, which would decode them
/// again: each as its target, offset, address and bytes, and what the pass
/// found. The pass holds offsets: another function with the same bytes at
/// the same address (the sections of an object all start at 0; the same
/// object in another file read in the same process) is not it.
struct Lent {
    target: Arc<Target>,
    start: u64,
    pc: u64,
    bytes: Vec<u8>,
    scan: Scan,
}

/// The most instructions kept in [`LENT`]; past them the oldest function
/// kept is let go (and decoded again where it is shown).
const LENT_MAX: usize = 64 * 1024;

static LENT: std::sync::Mutex<std::collections::VecDeque<Lent>> =
    std::sync::Mutex::new(std::collections::VecDeque::new());

/// Takes the pass over `bytes` at offset `start` and address `pc` kept in
/// [`LENT`], if there is one.
fn take_lent(t: &Arc<Target>, start: u64, pc: u64, bytes: &[u8]) -> Option<Scan> {
    let mut lent = LENT.lock().ok()?;
    let k = lent
        .iter()
        .position(|l| l.start == start && l.pc == pc && l.bytes == bytes && l.target == *t)?;
    lent.remove(k).map(|l| l.scan)
}

/// Whether a pass over the function at offset `start` and address `pc`
/// of `len` bytes is kept.
fn is_lent(lent: &std::collections::VecDeque<Lent>, start: u64, pc: u64, len: u64) -> bool {
    lent.iter()
        .any(|l| l.start == start && l.pc == pc && l.bytes.len() as u64 == len)
}

/// Keeps a copy of `scan` (of every instruction over `bytes` at offset
/// `start` and address `pc`, none faulted) in [`LENT`].
fn lend(t: &Arc<Target>, start: u64, pc: u64, bytes: &[u8], scan: &Scan) {
    if scan.first.len() as u64 != scan.count
        || scan.first.len() > LENT_MAX
        || scan.first.iter().any(|(_, i)| i.fault.is_some())
    {
        return;
    }
    let Ok(mut lent) = LENT.lock() else {
        return;
    };
    let mut held: usize = lent.iter().map(|l| l.scan.first.len()).sum();
    while held + scan.first.len() > LENT_MAX {
        match lent.pop_front() {
            Some(l) => held -= l.scan.first.len(),
            None => break,
        }
    }
    lent.push_back(Lent {
        target: t.clone(),
        start,
        pc,
        bytes: bytes.to_vec(),
        scan: Scan {
            first: scan.first.clone(),
            marks: scan.marks.clone(),
            count: scan.count,
            end: scan.end,
        },
    });
}

fn decode_all(b: &mut Builder<'_>, id: NodeId, place: &Place, code: Span, pc: u64) {
    let bytes = b.bytes(code);
    // A tree that looks for a link's target decodes the function it leads
    // into and keeps it for the tree that shows it; that tree takes it
    // instead of decoding it again.
    let finding = b.finding_targets();
    let lent = if finding {
        None
    } else {
        take_lent(&place.t, code.offset, pc, bytes)
    };
    let scan = match lent {
        Some(s) => Ok(s),
        None => scan(b, place, bytes, code.offset, pc, finding),
    };
    let Ok(scan) = scan else {
        return;
    };
    if finding {
        lend(&place.t, code.offset, pc, bytes, &scan);
    }
    build(b, id, place, scan, code, pc);
}

/// Decodes the function of `bytes` at `start` (address `pc`), asking the
/// engine ahead for the functions after it, unless `alone` (a function
/// looked into to find a link's target: the next one is not wanted).
fn scan(
    b: &Builder<'_>,
    place: &Place,
    bytes: &[u8],
    start: u64,
    pc: u64,
    alone: bool,
) -> Result<Scan, disasm::Missing> {
    // This function and the ones after it, in the order they are asked
    // for, but those kept decoded.
    let k = place.funcs.partition_point(|f| f.0 < start);
    let ahead: Vec<(&[u8], u64)> = {
        let lent = LENT.lock().ok();
        place
            .funcs
            .get(k..)
            .unwrap_or_default()
            .iter()
            .take(if alone { 1 } else { AHEAD })
            .filter(|&&(a, l, p)| {
                a == start || !lent.as_ref().is_some_and(|lent| is_lent(lent, a, p, l))
            })
            .map(|&(a, l, pc)| (b.slice(a, l), pc))
            .collect()
    };
    disasm::with_engine(&place.t, |e| {
        e.expect(&ahead);
        let mut s = Scan {
            first: Vec::new(),
            marks: Vec::new(),
            count: 0,
            end: start,
        };
        let mut off = 0usize;
        while (s.count as usize) < MAX_INSNS {
            let Some(rest) = bytes.get(off..).filter(|r| !r.is_empty()) else {
                break;
            };
            let i = e.decode(rest, pc.wrapping_add(off as u64));
            if i.len == 0 {
                break;
            }
            let at = start + off as u64;
            if s.count.is_multiple_of(GROUP) {
                s.marks.push(at);
            }
            off += i.len;
            if s.count < KEPT {
                s.first.push((at, i));
            }
            s.count += 1;
        }
        s.end = start + off as u64;
        s
    })
}

/// The instruction nodes of a function (at `code`) from the pass over it.
fn build(b: &mut Builder<'_>, id: NodeId, place: &Place, scan: Scan, code: Span, pc: u64) {
    let (start, end) = (code.offset, code.end());
    if scan.end < end {
        b.info(
            scan.end,
            end - scan.end,
            format!("more than {MAX_INSNS} instructions here; the rest are not decoded"),
        );
    }
    if scan.count <= GROUP {
        b.reserve(id, scan.first.len());
        for (at, i) in scan.first {
            leaf(b, id, place, at, i, pc.wrapping_add(at - start));
        }
        return;
    }
    let place = place.clone();
    let kept = std::sync::Mutex::new(Kept {
        left: scan.first.len(),
        insns: scan
            .first
            .into_iter()
            .map(|(at, i)| (at, Some(i)))
            .collect(),
    });
    let step: Step = Arc::new(move |b, p, _i, at| {
        let bytes = b.slice(at, end.saturating_sub(at));
        let addr = pc.wrapping_add(at.saturating_sub(start));
        let i = match kept.lock().ok().and_then(|mut k| k.take(at)) {
            Some(i) => i,
            None => disasm::with_engine(&place.t, |e| e.decode(bytes, addr)).ok()?,
        };
        if i.len == 0 {
            return None;
        }
        let next = at + i.len as u64;
        leaf(b, p, &place, at, i, addr);
        Some(next)
    });
    b.seq_now(id, Seq::from_marks(scan.marks, scan.count, scan.end, step));
}

/// One instruction: named by its address, valued by its text. A branch
/// or call names its target after the text as `llvm-objdump` does
/// (`jmp 0x1c <main+0x1c>`) and links to the target's first byte, which
/// the instruction there (or its function, or its section) holds. In a
/// relocatable file, the relocations that patch the instruction follow
/// the text instead, each as `[TYPE symbol+addend]`
/// (`callq 0xfb [R_X86_64_PLT32 ext-0x4]`): the target its bytes give is
/// then only a placeholder, neither named nor linked.
fn leaf(b: &mut Builder<'_>, parent: NodeId, place: &Place, at: u64, i: disasm::Insn, addr: u64) {
    if let Some(f) = &i.fault {
        b.warn(at, i.len as u64, f.message());
    }
    let mut text = i.text;
    let mut to = None;
    let mut relocated = false;
    let names = place.names(b);
    for r in names.relocs(place.sec, addr, i.len as u64) {
        text.push_str(" [");
        text.push_str(r);
        text.push(']');
        relocated = true;
    }
    if let Some(t) = i.target.filter(|_| !relocated) {
        let r = names.resolve(place.sec, t);
        if let Some(l) = r.label {
            text.push(' ');
            text.push_str(&l);
        }
        to = r.at;
    }
    // Its source line, from the line table: by section in an object
    // file, whose addresses are offsets in their section.
    let sec = names.relocatable().then_some(place.sec);
    let src = source_line(place.lines(b), sec, addr);
    let n = b.leaf_owned(
        parent,
        insn_name(addr),
        at,
        i.len as u64,
        Value::insn_from(text, src),
    );
    if let Some(o) = to {
        b.link(n, b.span(o, 1));
    }
}

/// The source line of `addr` (in section `sec` of an object file), one
/// value shared by the instructions of a line table's row: the thread
/// keeps the last row's.
fn source_line(
    lines: &super::dwarf::Lines,
    sec: Option<u32>,
    addr: u64,
) -> Option<Arc<SourceLine>> {
    type Last = Option<((u64, (usize, usize)), Option<Arc<SourceLine>>)>;
    thread_local! {
        static LAST: std::cell::RefCell<Last> = const { std::cell::RefCell::new(None) };
    }
    let row = lines.row(sec, addr)?;
    let key = (lines.id(), row);
    LAST.with(|last| {
        let mut last = last.try_borrow_mut().ok()?;
        match &*last {
            Some((k, src)) if *k == key => src.clone(),
            _ => {
                let src = lines.source(row).map(Arc::new);
                *last = Some((key, src.clone()));
                src
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn riscv_arch_strings_become_features() {
        assert_eq!(
            arch_features("rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0"),
            ["+m", "+a", "+f", "+d", "+c", "+zicsr", "+zifencei"]
        );
        assert_eq!(arch_features("rv32gc"), ["+m", "+a", "+f", "+d", "+c"]);
        assert!(arch_features("x86").is_empty());
    }
}
