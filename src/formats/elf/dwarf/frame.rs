//! Call frame information: `.eh_frame` and `.debug_frame`, each CIE and
//! FDE at its bytes (length, CIE id or pointer, version, augmentation and
//! its data with the pointer encodings named, alignment factors, return
//! address register, initial location and address range), then its call
//! frame instructions as operations with their operands, registers named
//! as `llvm-dwarfdump` names them for the machine. An FDE's initial
//! location links to the code it covers and is named by the function
//! there; its CIE pointer links to its CIE. In an object file the fields
//! relocations set (initial locations, `.debug_frame`'s CIE pointers,
//! RISC-V's address ranges) are what the linker would put there.
//!
//! `.eh_frame_hdr`: its header and its binary search table, each entry
//! linked to its FDE.
//!
//! This file knows the bytes and what it is given ([`Ctx`]), not the ELF
//! around them.

use std::sync::Arc;

use super::line::{add, leaf, Cur, Item};
use crate::model::{Builder, Endian, NodeId, Radix, Seq, Step, Value};

/// Entries listed at most.
const MAX_ENTRIES: u64 = 1 << 22;
/// Instructions of one entry read at most.
const MAX_INSNS: u64 = 1 << 16;
/// Bytes read at most for an augmentation string.
const MAX_AUG: u64 = 256;

/// Where an address's code is and what names it: its byte in the byte
/// space, and the function it falls in (`<f>`, `<f+0x10>`). The section
/// is the one a relocation names, in an object file.
pub(crate) type Code = Arc<dyn Fn(Option<u32>, u64) -> (Option<u64>, Option<String>) + Send + Sync>;

/// What reading `.eh_frame` or `.debug_frame` needs besides its bytes.
pub(crate) struct Ctx {
    pub e: Endian,
    /// The section in the byte space: offset and length.
    pub at: u64,
    pub len: u64,
    /// Its address (`sh_addr`): pc-relative pointers count from it.
    pub addr: u64,
    /// `.eh_frame` (GCC's format) rather than `.debug_frame`.
    pub eh: bool,
    /// Bytes of an address.
    pub word: u8,
    /// `e_machine`, for the names of registers.
    pub machine: u16,
    /// In an object file, the section's relocations: offset in the
    /// section, the value the linker would put there, the section of the
    /// symbol; sorted by offset.
    pub relocs: Vec<(u64, u64, u32)>,
    /// An object file: a pc-relative field a REL relocation sets holds
    /// the addend, which is what the linker's value comes to.
    pub relocatable: bool,
    pub code: Code,
    /// A DWARF expression (its bytes, the address size) as its
    /// operations.
    pub expr: Expr,
}

/// What [`Ctx::expr`] is.
pub(crate) type Expr = Arc<dyn Fn(&[u8], u8) -> String + Send + Sync>;

impl Ctx {
    fn reloc(&self, off: u64) -> Option<(u64, u32)> {
        let k = self.relocs.binary_search_by_key(&off, |r| r.0).ok()?;
        self.relocs.get(k).map(|r| (r.1, r.2))
    }

    /// The address pc-relative pointers at `at` (in the byte space) count
    /// from: none in an object file.
    fn pc(&self, at: u64) -> Option<u64> {
        (!self.relocatable).then(|| self.addr.wrapping_add(at - self.at))
    }

    fn cursor<'d>(&self, d: &'d [u8], off: u64) -> Cur<'d> {
        Cur {
            d,
            pos: self.at + off,
            end: self.at + self.len,
            e: self.e,
        }
    }
}

// ---- pointer encodings ----

/// `DW_EH_PE_omit`.
const OMIT: u8 = 0xff;

/// The name of pointer encoding `enc`: `DW_EH_PE_pcrel | DW_EH_PE_sdata4`.
pub(super) fn encoding_name(enc: u8) -> String {
    if enc == OMIT {
        return "DW_EH_PE_omit".into();
    }
    let format = match enc & 0x0f {
        0x00 => "DW_EH_PE_absptr",
        0x01 => "DW_EH_PE_uleb128",
        0x02 => "DW_EH_PE_udata2",
        0x03 => "DW_EH_PE_udata4",
        0x04 => "DW_EH_PE_udata8",
        0x08 => "DW_EH_PE_signed",
        0x09 => "DW_EH_PE_sleb128",
        0x0a => "DW_EH_PE_sdata2",
        0x0b => "DW_EH_PE_sdata4",
        0x0c => "DW_EH_PE_sdata8",
        _ => "DW_EH_PE_?",
    };
    let mut parts = Vec::new();
    if enc & 0x80 != 0 {
        parts.push("DW_EH_PE_indirect");
    }
    match enc & 0x70 {
        0x00 => {}
        0x10 => parts.push("DW_EH_PE_pcrel"),
        0x20 => parts.push("DW_EH_PE_textrel"),
        0x30 => parts.push("DW_EH_PE_datarel"),
        0x40 => parts.push("DW_EH_PE_funcrel"),
        0x50 => parts.push("DW_EH_PE_aligned"),
        _ => parts.push("DW_EH_PE_?rel"),
    }
    parts.push(format);
    parts.join(" | ")
}

/// Reads a pointer encoded as `enc` at `c`: its value and the section a
/// relocation names. `base` is the address the field's offset counts
/// from for `DW_EH_PE_pcrel` (`None`: not applied, for a range) and
/// `data` the one for `DW_EH_PE_datarel`; `word` the bytes of an
/// absolute pointer. A relocated field is what the relocation puts there,
/// the pc-relative part of it undone as the linker's would be.
pub(super) fn pointer(
    c: &mut Cur<'_>,
    enc: u8,
    word: u8,
    pc: Option<u64>,
    data: u64,
    reloc: impl Fn(u64) -> Option<(u64, u32)>,
) -> Result<(u64, Option<u32>), String> {
    let at = c.pos;
    let short = || format!("pointer ({}) does not fit", encoding_name(enc));
    let raw = match enc & 0x0f {
        0x00 => c.uint(u64::from(word)).ok_or_else(short)?,
        0x01 => c.uleb().ok_or_else(short)?,
        0x02 => c.uint(2).ok_or_else(short)?,
        0x03 => c.uint(4).ok_or_else(short)?,
        0x04 => c.uint(8).ok_or_else(short)?,
        0x09 => c.sleb().ok_or_else(short)? as u64,
        0x0a => c.uint(2).ok_or_else(short)? as u16 as i16 as u64,
        0x0b | 0x08 => c.uint(4).ok_or_else(short)? as u32 as i32 as u64,
        0x0c => c.uint(8).ok_or_else(short)?,
        _ => {
            return Err(format!(
                "pointer encoding 0x{enc:02x} is not one DWARF defines"
            ))
        }
    };
    let mask = if word >= 8 {
        u64::MAX
    } else {
        (1u64 << (u32::from(word) * 8)) - 1
    };
    if let Some((v, sec)) = reloc(at) {
        return Ok((v & mask, Some(sec)));
    }
    let v = match (enc & 0x70, pc) {
        (0x10, Some(base)) => raw.wrapping_add(base),
        (0x30, Some(_)) => raw.wrapping_add(data),
        _ => raw,
    };
    Ok((v & mask, None))
}

// ---- registers ----

/// x86-64's DWARF registers 0 to 48 as llvm names them.
const X86_64: [&str; 49] = [
    "RAX", "RDX", "RCX", "RBX", "RSI", "RDI", "RBP", "RSP", "R8", "R9", "R10", "R11", "R12", "R13",
    "R14", "R15", "RIP", "XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7", "XMM8",
    "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15", "ST0", "ST1", "ST2", "ST3",
    "ST4", "ST5", "ST6", "ST7", "MM0", "MM1", "MM2", "MM3", "MM4", "MM5", "MM6", "MM7",
];

/// i386's DWARF registers 0 to 9.
const I386: [&str; 10] = [
    "EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI", "EIP", "EFLAGS",
];

/// The name of DWARF register `r` on `machine` as `llvm-dwarfdump` prints
/// it in call frame instructions (`RSP`, `W29`, `X2`, `LR`), else
/// `reg<N>`.
pub(super) fn register(machine: u16, r: u64) -> String {
    let known = match (machine, r) {
        (62, 0..=48) => X86_64.get(r as usize).map(|s| s.to_string()),
        (62, 67..=82) => Some(format!("XMM{}", r - 51)),
        (3, 0..=9) => I386.get(r as usize).map(|s| s.to_string()),
        (3, 21..=28) => Some(format!("XMM{}", r - 21)),
        (183, 0..=30) => Some(format!("W{r}")),
        (183, 31) => Some("WSP".into()),
        (183, 64..=95) => Some(format!("B{}", r - 64)),
        (243, 0..=31) => Some(format!("X{r}")),
        (243, 32..=63) => Some(format!("F{}_H", r - 32)),
        (40, 0..=12) => Some(format!("R{r}")),
        (40, 13) => Some("SP".into()),
        (40, 14) => Some("LR".into()),
        (40, 15) => Some("PC".into()),
        (40, 256..=287) => Some(format!("D{}", r - 256)),
        _ => None,
    };
    known.unwrap_or_else(|| format!("reg{r}"))
}

// ---- entries ----

/// What a CIE says that its FDEs read with.
#[derive(Clone, Debug)]
pub(super) struct Cie {
    augmentation: String,
    code_align: u64,
    data_align: i64,
    word: u8,
    fde_enc: u8,
    lsda_enc: u8,
    /// The augmentation starts with `z`: FDEs have augmentation data.
    z: bool,
    /// Where its initial instructions are, in the byte space.
    insns: (u64, u64),
}

/// What one entry is.
enum Kind {
    Cie(Cie),
    Fde {
        cie: u64,
        /// The CIE as read, or why it does not read.
        read: Result<Cie, String>,
        begin: u64,
        range: u64,
        sec: Option<u32>,
    },
    /// `.eh_frame`'s zero length: the end.
    Terminator,
}

/// One entry as read: where it is, its fields as nodes, what it is, and
/// what did not read (at its offset in the byte space).
struct Entry {
    /// Where it ends, in the section.
    end: u64,
    items: Vec<Item>,
    kind: Kind,
    /// Its instructions, in the byte space.
    insns: (u64, u64),
    problem: Option<(u64, u64, String)>,
}

/// Where the entry at `off` (in the section) ends, in the section, at
/// most at its end.
fn entry_end(d: &[u8], ctx: &Ctx, off: u64) -> Option<u64> {
    let end = super::line::end_in(d, ctx.at + off, ctx.e, ctx.at + ctx.len)?;
    Some(end - ctx.at)
}

/// Reads the entry at `off` (in the section). `deep`: an FDE's CIE is read
/// too.
fn read_entry(d: &[u8], ctx: &Ctx, off: u64, deep: bool) -> Option<Entry> {
    let mut c = ctx.cursor(d, off);
    let mut items = Vec::new();
    let first = c.uint(4)?;
    let dwarf64 = first == 0xffff_ffff;
    let len = if dwarf64 {
        items.push(leaf("dwarf64", c.pos - 4, 4, Value::hex(first)));
        let l = c.uint(8)?;
        items.push(leaf("length", c.pos - 8, 8, Value::uint(l)));
        l
    } else {
        items.push(leaf("length", c.pos - 4, 4, Value::uint(first)));
        first
    };
    let sec_end = ctx.at + ctx.len;
    let end = c.pos.saturating_add(len).min(sec_end);
    let mut e = Entry {
        end: end - ctx.at,
        items: Vec::new(),
        kind: Kind::Terminator,
        insns: (end, end),
        problem: None,
    };
    if c.pos.saturating_add(len) > sec_end {
        e.problem = Some((
            ctx.at + off,
            end - ctx.at - off,
            format!(
                "call frame entry: length {len} runs past the section's end by {} bytes",
                c.pos.saturating_add(len) - sec_end
            ),
        ));
    }
    if len == 0 {
        e.items = items;
        return Some(e);
    }
    c.end = end;
    let word = if dwarf64 { 8 } else { 4 };
    let id_at = c.pos;
    let Some(id) = c.uint(word) else {
        e.items = items;
        fail(
            &mut e,
            id_at,
            end,
            "call frame entry: its CIE id does not fit",
        );
        return Some(e);
    };
    let is_cie = if ctx.eh {
        id == 0
    } else {
        id == if dwarf64 { u64::MAX } else { 0xffff_ffff }
    };
    if is_cie {
        items.push(leaf("CIE_id", id_at, word, Value::hex(id)));
        let cie = read_cie(&mut c, ctx, &mut items, &mut e);
        e.items = items;
        if let Some(cie) = cie {
            e.insns = cie.insns;
            e.kind = Kind::Cie(cie);
        }
        return Some(e);
    }
    // An FDE: its CIE, by offset from this field (.eh_frame) or in the
    // section (.debug_frame, relocated in an object file).
    let cie = if ctx.eh {
        (id_at - ctx.at).checked_sub(id)
    } else {
        Some(ctx.reloc(id_at - ctx.at).map_or(id, |r| r.0))
    };
    let cie_link = cie
        .filter(|&o| o < ctx.len)
        .and_then(|o| Some((ctx.at + o, entry_end(d, ctx, o)?.checked_sub(o)?)));
    items.push(Item::Leaf {
        name: "CIE_pointer".into(),
        off: id_at,
        size: word,
        value: match cie {
            Some(o) => Value::with(id, Radix::Hex, format!(" (CIE at 0x{o:x})")),
            None => Value::with(id, Radix::Hex, " (before the section)"),
        },
        link: cie_link,
    });
    let read = match cie {
        Some(o) if deep && o < ctx.len => match read_entry(d, ctx, o, false) {
            Some(Entry {
                kind: Kind::Cie(c),
                problem: None,
                ..
            }) => Ok(c),
            Some(Entry {
                problem: Some(p), ..
            }) => Err(p.2),
            _ => Err(format!("FDE: no CIE at 0x{o:x}")),
        },
        Some(o) if deep => Err(format!("FDE: its CIE at 0x{o:x} is past the section's end")),
        _ if deep => Err("FDE: its CIE would be before the section".into()),
        _ => Err(String::new()),
    };
    let Ok(cie) = read.clone() else {
        e.items = items;
        if let Err(m) = &read {
            if !m.is_empty() {
                fail(&mut e, id_at, end, m);
            }
        }
        e.kind = Kind::Fde {
            cie: cie.unwrap_or(0),
            read,
            begin: 0,
            range: 0,
            sec: None,
        };
        return Some(e);
    };
    let enc = if ctx.eh { cie.fde_enc } else { 0 };
    let at = c.pos;
    let reloc = |o: u64| ctx.reloc(o - ctx.at);
    let (begin, sec) = match pointer(&mut c, enc, cie.word, ctx.pc(at), 0, reloc) {
        Ok(v) => v,
        Err(m) => {
            e.items = items;
            fail(&mut e, at, end, &format!("FDE initial_location: {m}"));
            return Some(e);
        }
    };
    let begin_at = (at, c.pos - at);
    let at = c.pos;
    let range = match pointer(&mut c, enc & 0x0f, cie.word, None, 0, reloc) {
        Ok(v) => v.0,
        Err(m) => {
            e.items = items;
            fail(&mut e, at, end, &format!("FDE address_range: {m}"));
            return Some(e);
        }
    };
    let (code, name) = (ctx.code)(sec, begin);
    items.push(Item::Leaf {
        name: "initial_location".into(),
        off: begin_at.0,
        size: begin_at.1,
        value: Value::with(
            begin,
            Radix::Hex,
            name.map(|n| format!(" {n}")).unwrap_or_default(),
        ),
        link: code.map(|o| (o, range.max(1))),
    });
    items.push(leaf(
        "address_range",
        at,
        c.pos - at,
        Value::with(
            range,
            Radix::Hex,
            format!(" (to 0x{:x})", begin.wrapping_add(range)),
        ),
    ));
    if cie.z {
        let at = c.pos;
        let Some(n) = c.uleb() else {
            e.items = items;
            fail(&mut e, at, end, "FDE augmentation_length does not fit");
            return Some(e);
        };
        items.push(leaf("augmentation_length", at, c.pos - at, Value::uint(n)));
        let data_end = c.pos.saturating_add(n);
        if data_end > end {
            e.items = items;
            fail(&mut e, at, end, "FDE augmentation data runs past its end");
            return Some(e);
        }
        if cie.lsda_enc != OMIT && n > 0 {
            let at = c.pos;
            match pointer(&mut c, cie.lsda_enc, cie.word, ctx.pc(at), 0, reloc) {
                Ok((v, _)) => items.push(leaf("lsda", at, c.pos - at, Value::hex(v))),
                Err(m) => fail(&mut e, at, end, &format!("FDE LSDA: {m}")),
            }
        }
        c.pos = data_end;
    }
    e.items = items;
    e.insns = (c.pos, end);
    e.kind = Kind::Fde {
        cie: cie_link.map_or(0, |l| l.0 - ctx.at),
        read: Ok(cie),
        begin,
        range,
        sec,
    };
    Some(e)
}

/// Notes the first problem of `e`, from `at` to `end`.
fn fail(e: &mut Entry, at: u64, end: u64, what: &str) {
    if e.problem.is_none() {
        e.problem = Some((at, end.saturating_sub(at).max(1), what.to_string()));
    }
}

/// How a CIE field after the augmentation string is read.
#[derive(Clone, Copy)]
enum Shape {
    Byte,
    Uleb,
    Sleb,
    /// A byte in version 1, else an unsigned LEB128.
    Register,
}

/// The CIE's fields from the code alignment factor to the augmentation
/// data's length (read when the augmentation starts with `z`).
const CIE_FIELDS: [(&str, Shape); 4] = [
    ("code_alignment_factor", Shape::Uleb),
    ("data_alignment_factor", Shape::Sleb),
    ("return_address_register", Shape::Register),
    ("augmentation_length", Shape::Uleb),
];

/// A CIE's fields after its id.
fn read_cie(c: &mut Cur<'_>, ctx: &Ctx, items: &mut Vec<Item>, e: &mut Entry) -> Option<Cie> {
    let end = c.end;
    let at = c.pos;
    let Some(version) = c.uint(1) else {
        fail(e, at, end, "CIE version does not fit");
        return None;
    };
    items.push(leaf("version", at, 1, Value::dec(version)));
    if !matches!(version, 1 | 3 | 4) {
        fail(
            e,
            at,
            end,
            &format!("CIE version {version}: only 1, 3 and 4 are read"),
        );
        return None;
    }
    let at = c.pos;
    let aug = match c.cstr() {
        Some(s) if (s.len() as u64) < MAX_AUG => s,
        _ => {
            fail(e, at, end, "CIE augmentation string does not read");
            return None;
        }
    };
    let augmentation = crate::model::text::from_bytes(aug);
    items.push(leaf("augmentation", at, c.pos - at, Value::str_bytes(aug)));
    let mut cie = Cie {
        augmentation: augmentation.clone(),
        code_align: 1,
        data_align: 1,
        word: ctx.word,
        fde_enc: 0,
        lsda_enc: OMIT,
        z: aug.first() == Some(&b'z'),
        insns: (end, end),
    };
    if aug.starts_with(b"eh") {
        let at = c.pos;
        if c.uint(u64::from(ctx.word)).is_none() {
            fail(e, at, end, "CIE eh_data does not fit");
            return None;
        }
        items.push(leaf("eh_data", at, u64::from(ctx.word), Value::Size(0)));
    }
    if version >= 4 {
        let at = c.pos;
        let (Some(a), Some(s)) = (c.uint(1), c.uint(1)) else {
            fail(e, at, end, "CIE address_size does not fit");
            return None;
        };
        items.push(leaf("address_size", at, 1, Value::uint(a)));
        items.push(leaf("segment_selector_size", at + 1, 1, Value::uint(s)));
        if matches!(a, 1 | 2 | 4 | 8) {
            cie.word = a as u8;
        } else {
            fail(e, at, 1, &format!("CIE address_size {a}: not 1, 2, 4 or 8"));
            return None;
        }
    }
    let mut aug_len = 0;
    for (name, shape) in CIE_FIELDS {
        let at = c.pos;
        let shape = match shape {
            Shape::Register if version == 1 => Shape::Byte,
            s => s,
        };
        if name == "augmentation_length" && !cie.z {
            continue;
        }
        let v = match shape {
            Shape::Byte => c.uint(1),
            Shape::Sleb => c.sleb().map(|v| v as u64),
            _ => c.uleb(),
        };
        let Some(v) = v else {
            fail(e, at, end, &format!("CIE {name} does not read"));
            return None;
        };
        let value = match (name, shape) {
            (_, Shape::Sleb) => Value::int(v as i64),
            ("return_address_register", _) => {
                Value::with(v, Radix::Dec, format!(" ({})", register(ctx.machine, v)))
            }
            _ => Value::uint(v),
        };
        match name {
            "augmentation_length" => aug_len = v,
            "code_alignment_factor" => cie.code_align = v,
            "data_alignment_factor" => cie.data_align = v as i64,
            _ => {}
        }
        items.push(leaf(name, at, c.pos - at, value));
    }
    if cie.z {
        let (at, n) = (c.pos, aug_len);
        let data_end = c.pos.saturating_add(n);
        if data_end > end {
            fail(e, at, end, "CIE augmentation data runs past its end");
            return None;
        }
        let start = c.pos;
        let mut kids = Vec::new();
        c.end = data_end;
        for &ch in aug.iter().skip(1) {
            let at = c.pos;
            let enc_field = |c: &mut Cur<'_>, kids: &mut Vec<Item>, name: &str| {
                let v = c.uint(1)? as u8;
                kids.push(leaf(
                    name,
                    at,
                    1,
                    Value::named_hex(v.into(), Some(&encoding_name(v))),
                ));
                Some(v)
            };
            match ch {
                b'R' => match enc_field(c, &mut kids, "fde_pointer_encoding") {
                    Some(v) => cie.fde_enc = v,
                    None => break,
                },
                b'L' => match enc_field(c, &mut kids, "lsda_pointer_encoding") {
                    Some(v) => cie.lsda_enc = v,
                    None => break,
                },
                b'P' => {
                    let Some(enc) = enc_field(c, &mut kids, "personality_encoding") else {
                        break;
                    };
                    let p = c.pos;
                    match pointer(c, enc & 0x7f, cie.word, ctx.pc(p), 0, |o| {
                        ctx.reloc(o - ctx.at)
                    }) {
                        Ok((v, _)) => kids.push(leaf("personality", p, c.pos - p, Value::hex(v))),
                        Err(m) => {
                            fail(e, p, data_end, &format!("CIE personality: {m}"));
                            break;
                        }
                    }
                }
                // A signal frame; BTI and MTE on AArch64: no data.
                b'S' | b'B' | b'G' => {}
                _ => break,
            }
        }
        items.push(Item::Group {
            name: "augmentation_data".into(),
            off: start,
            size: n,
            value: Some(Value::Size(n)),
            kids,
        });
        c.pos = data_end;
        c.end = end;
    }
    cie.insns = (c.pos, end);
    Some(cie)
}

// ---- instructions ----

/// One call frame instruction: its opcode's name, where it is, what its
/// operands say (as `llvm-dwarfdump` writes them: `RSP +8`, `2 to
/// 0x4`) and the operands at their bytes.
struct Insn {
    name: String,
    off: u64,
    size: u64,
    text: String,
    operands: Vec<Item>,
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
fn insn(
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
                        words.push(format!("0x{v:x}"));
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

// ---- nodes ----

/// Makes `id`, `.eh_frame` or `.debug_frame`, list its entries when
/// opened, read with what `ctx` makes then.
pub(crate) fn entries(
    b: &mut Builder<'_>,
    id: NodeId,
    len: u64,
    ctx: impl Fn(&Builder<'_>) -> Arc<Ctx> + Send + Sync + 'static,
) -> bool {
    if len < 4 {
        return false;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let ctx = ctx(b);
            let c = ctx.clone();
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, _, off| {
                let s = off - c.at;
                let end = entry_end(b.data(), &c, s)?;
                entry(b, p, &c, s);
                Some(c.at + end.max(s + 4))
            });
            let d = b.data();
            let (cies, fdes) = count(d, &ctx);
            let seq = Seq::scan(
                ctx.at,
                ctx.at + ctx.len,
                MAX_ENTRIES,
                |off| entry_end(d, &ctx, off - ctx.at).map(|e| ctx.at + e.max(off - ctx.at + 4)),
                step,
            );
            if seq.stop() < ctx.at + ctx.len {
                let stop = seq.stop();
                b.error(
                    stop,
                    ctx.at + ctx.len - stop,
                    "call frame entries: the bytes after the last entry are not one",
                );
            }
            b.seq_now(id, seq);
            b.set_value(
                id,
                Value::text(format!(
                    "{cies} CIE{}, {fdes} FDE{}",
                    if cies == 1 { "" } else { "s" },
                    if fdes == 1 { "" } else { "s" }
                )),
            );
        }),
    );
    true
}

/// The CIEs and FDEs of the section.
fn count(d: &[u8], ctx: &Ctx) -> (u64, u64) {
    let (mut n, mut cies, mut fdes) = (0u64, 0u64, 0u64);
    let mut off = 0;
    let word = |c: &mut Cur<'_>| -> Option<(bool, u64, u64)> {
        let l = c.uint(4)?;
        let (w, l) = if l == 0xffff_ffff {
            (8, c.uint(8)?)
        } else {
            (4, l)
        };
        Some((w == 8, l, c.uint(w).unwrap_or(0)))
    };
    while off < ctx.len && n < MAX_ENTRIES {
        let mut c = ctx.cursor(d, off);
        let Some((w64, l, id)) = word(&mut c) else {
            break;
        };
        let Some(end) = entry_end(d, ctx, off) else {
            break;
        };
        n += 1;
        if l != 0 {
            let cie = if ctx.eh {
                id == 0
            } else {
                id == if w64 { u64::MAX } else { 0xffff_ffff }
            };
            if cie {
                cies += 1;
            } else {
                fdes += 1;
            }
        }
        off = end.max(off + 4);
    }
    (cies, fdes)
}

/// One entry's node: its fields, and its instructions when opened.
fn entry(b: &mut Builder<'_>, p: NodeId, ctx: &Arc<Ctx>, off: u64) {
    let Some(e) = read_entry(b.data(), ctx, off, true) else {
        return;
    };
    let at = ctx.at + off;
    let size = e.end - off;
    let (name, value) = match &e.kind {
        Kind::Terminator => (
            "terminator".to_string(),
            Value::text("zero length: the end"),
        ),
        Kind::Cie(c) => (
            format!("CIE [0x{off:x}]"),
            Value::text(format!(
                "\"{}\", code_align {}, data_align {}",
                c.augmentation, c.code_align, c.data_align
            )),
        ),
        Kind::Fde {
            cie,
            read,
            begin,
            range,
            sec,
        } => {
            let (_, label) = (ctx.code)(*sec, *begin);
            let label = label.map(|l| format!(" {l}")).unwrap_or_default();
            (
                format!("FDE [0x{off:x}]"),
                match read {
                    Ok(_) => Value::text(format!(
                        "pc=0x{begin:x}...0x{:x}{label}",
                        begin.wrapping_add(*range)
                    )),
                    Err(_) => Value::text(format!("CIE at 0x{cie:x} does not read")),
                },
            )
        }
    };
    let node = b.group(p, name, at, size);
    b.set_value(node, value);
    for item in &e.items {
        add(b, node, item);
    }
    if let Some((o, n, m)) = &e.problem {
        b.error(*o, *n, m.clone());
        return;
    }
    let cie = match &e.kind {
        Kind::Cie(c) => c.clone(),
        Kind::Fde { read: Ok(c), .. } => c.clone(),
        _ => return,
    };
    let (from, to) = e.insns;
    if from >= to {
        return;
    }
    let id = b.group(node, "instructions", from, to - from);
    let start = match &e.kind {
        Kind::Fde { begin, .. } => *begin,
        _ => 0,
    };
    let ctx = ctx.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            instructions(b, id, &ctx, &cie, (from, to), start);
        }),
    );
}

/// The instructions in `[from, to)` under `id`, `loc` the address they
/// start at.
fn instructions(
    b: &mut Builder<'_>,
    id: NodeId,
    ctx: &Ctx,
    cie: &Cie,
    (from, to): (u64, u64),
    mut loc: u64,
) {
    let d = b.data();
    let mut c = Cur {
        d,
        pos: from,
        end: to,
        e: ctx.e,
    };
    let word = cie.word;
    let expr = |bytes: &[u8]| (ctx.expr)(bytes, word);
    let mut n = 0u64;
    let mut list = Vec::new();
    let mut problem = None;
    while c.pos < to {
        if n == MAX_INSNS {
            problem = Some((
                c.pos,
                format!("more than {MAX_INSNS} instructions; the rest are not read"),
            ));
            break;
        }
        let start = c.pos;
        match insn(&mut c, ctx, cie, &mut loc, &expr) {
            Ok(i) => list.push(i),
            // At the instruction, to the entry's end.
            Err((_, m)) => {
                problem = Some((start, m));
                break;
            }
        }
        n += 1;
    }
    for i in &list {
        let node = b.group(id, &i.name, i.off, i.size);
        b.set_value(node, Value::text(&i.text));
        for o in &i.operands {
            add(b, node, o);
        }
    }
    b.set_value(
        id,
        Value::text(format!("{n} instruction{}", if n == 1 { "" } else { "s" })),
    );
    if let Some((at, m)) = problem {
        b.error(at, to.saturating_sub(at).max(1), m);
    }
}

// ---- .eh_frame_hdr ----

/// Where the FDE at an address is: its bytes in the byte space.
pub(crate) type FdeAt = Arc<dyn Fn(&Builder<'_>, u64) -> Option<(u64, u64)> + Send + Sync>;

/// Lists `.eh_frame_hdr` at `[at, at+len)`, the section at address
/// `addr`: its header fields and its search table, each entry linked to
/// its FDE (found through `fde_at`, an address to its bytes in the byte
/// space and their length).
pub(crate) fn header(
    b: &mut Builder<'_>,
    id: NodeId,
    (at, len, addr): (u64, u64, u64),
    e: Endian,
    word: u8,
    fde_at: &FdeAt,
) -> bool {
    let d = b.data();
    let mut c = Cur {
        d,
        pos: at,
        end: at + len,
        e,
    };
    let (Some(version), Some(ptr_enc), Some(count_enc), Some(table_enc)) =
        (c.uint(1), c.uint(1), c.uint(1), c.uint(1))
    else {
        return false;
    };
    let (ptr_enc, count_enc, table_enc) = (ptr_enc as u8, count_enc as u8, table_enc as u8);
    let mut items = vec![
        leaf("version", at, 1, Value::dec(version)),
        leaf(
            "eh_frame_ptr_enc",
            at + 1,
            1,
            Value::named_hex(ptr_enc.into(), Some(&encoding_name(ptr_enc))),
        ),
        leaf(
            "fde_count_enc",
            at + 2,
            1,
            Value::named_hex(count_enc.into(), Some(&encoding_name(count_enc))),
        ),
        leaf(
            "table_enc",
            at + 3,
            1,
            Value::named_hex(table_enc.into(), Some(&encoding_name(table_enc))),
        ),
    ];
    let no_reloc = |_: u64| None;
    let pc = |c: &Cur<'_>| addr.wrapping_add(c.pos - at);
    let p = c.pos;
    let mut problem = None;
    let mut count = None;
    if version != 1 {
        problem = Some((
            at,
            1,
            format!(".eh_frame_hdr version {version}: only 1 is read"),
        ));
    } else if ptr_enc != OMIT {
        let base = pc(&c);
        match pointer(&mut c, ptr_enc, word, Some(base), addr, no_reloc) {
            Ok((v, _)) => {
                let mut l = leaf("eh_frame_ptr", p, c.pos - p, Value::hex(v));
                if let Item::Leaf { link, .. } = &mut l {
                    *link = fde_at(b, v).map(|x| (x.0, 1));
                }
                items.push(l);
            }
            Err(m) => {
                problem = Some((
                    p,
                    len - (p - at),
                    format!(".eh_frame_hdr eh_frame_ptr: {m}"),
                ))
            }
        }
        if problem.is_none() && count_enc != OMIT {
            let p = c.pos;
            let base = pc(&c);
            match pointer(&mut c, count_enc, word, Some(base), addr, no_reloc) {
                Ok((v, _)) => {
                    items.push(leaf("fde_count", p, c.pos - p, Value::uint(v)));
                    count = Some(v);
                }
                Err(m) => {
                    problem = Some((p, len - (p - at), format!(".eh_frame_hdr fde_count: {m}")))
                }
            }
        }
    }
    for item in &items {
        add(b, id, item);
    }
    if let Some((o, n, m)) = problem {
        b.error(o, n.max(1), m);
        return true;
    }
    let Some(count) = count.filter(|_| table_enc != OMIT) else {
        return true;
    };
    // Each entry: two pointers of the table's encoding, fixed in size.
    let size = match table_enc & 0x0f {
        0x02 | 0x0a => 2,
        0x03 | 0x0b => 4,
        0x04 | 0x0c => 8,
        0x00 => u64::from(word),
        _ => {
            b.error(
                at + 3,
                1,
                format!(
                    ".eh_frame_hdr table_enc {}: not of a fixed size",
                    encoding_name(table_enc)
                ),
            );
            return true;
        }
    };
    let from = c.pos;
    let room = (at + len - from) / (2 * size);
    if count > room {
        b.error(
            from,
            at + len - from,
            format!(".eh_frame_hdr fde_count {count}: room for {room} entries"),
        );
    }
    let fde_at = fde_at.clone();
    let step: crate::model::ElemFn = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
        let mut c = Cur {
            d: b.data(),
            pos: off,
            end: off + 2 * size,
            e,
        };
        let base = addr.wrapping_add(off - at);
        let Ok((loc, _)) = pointer(&mut c, table_enc, word, Some(base), addr, |_| None) else {
            return;
        };
        let base = addr.wrapping_add(off + size - at);
        let Ok((fde, _)) = pointer(&mut c, table_enc, word, Some(base), addr, |_| None) else {
            return;
        };
        let node = b.group(p, format!("[{i}]"), off, 2 * size);
        b.set_value(node, Value::text(format!("0x{loc:x}: FDE at 0x{fde:x}")));
        b.leaf(node, "initial_location", off, size, Value::hex(loc));
        let f = b.leaf(node, "fde", off + size, size, Value::hex(fde));
        if let Some((o, l)) = fde_at(b, fde) {
            b.link(f, o, l);
            b.link(node, o, l);
        }
    });
    b.array(id, "table", from, count.min(room), 2 * size, step);
    true
}
