//! One CIE or FDE read at its bytes: its fields as items, what it is
//! (the CIE an FDE reads with), and where its instructions are.

use super::super::line::{initial_length, leaf, Cur, Item};
use super::read::{encoding_name, pointer, register, Ctx, MAX_AUG, OMIT};
use crate::model::{Radix, Value};

/// What a CIE says that its FDEs read with.
#[derive(Clone, Debug)]
pub(super) struct Cie {
    pub(super) augmentation: String,
    pub(super) code_align: u64,
    pub(super) data_align: i64,
    pub(super) word: u8,
    pub(super) fde_enc: u8,
    pub(super) lsda_enc: u8,
    /// The augmentation starts with `z`: FDEs have augmentation data.
    pub(super) z: bool,
    /// Where its initial instructions are, in the byte space.
    pub(super) insns: (u64, u64),
}

/// What one entry is.
pub(super) enum Kind {
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
pub(super) struct Entry {
    /// Where it ends, in the section.
    pub(super) end: u64,
    pub(super) items: Vec<Item>,
    pub(super) kind: Kind,
    /// Its instructions, in the byte space.
    pub(super) insns: (u64, u64),
    pub(super) problem: Option<(u64, u64, String)>,
}

/// Where the entry at `off` (in the section) ends, in the section, at
/// most at its end.
pub(super) fn entry_end(d: &[u8], ctx: &Ctx, off: u64) -> Option<u64> {
    let end = super::super::line::end_in(d, ctx.at + off, ctx.e, ctx.at + ctx.len)?;
    Some(end - ctx.at)
}

/// Reads the entry at `off` (in the section). `deep`: an FDE's CIE is read
/// too.
pub(super) fn read_entry(d: &[u8], ctx: &Ctx, off: u64, deep: bool) -> Option<Entry> {
    let mut c = ctx.cursor(d, off);
    let mut items = Vec::new();
    let (len, dwarf64) = initial_length(&mut c, &mut items, "length")?;
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
    if len != 0 {
        c.end = end;
        entry_body(&mut c, d, ctx, deep, dwarf64, &mut items, &mut e);
    }
    e.items = items;
    Some(e)
}

/// What follows an entry's length (`c` bounded by the entry): a CIE, or an
/// FDE (whose CIE is read too when `deep`).
fn entry_body(
    c: &mut Cur<'_>,
    d: &[u8],
    ctx: &Ctx,
    deep: bool,
    dwarf64: bool,
    items: &mut Vec<Item>,
    e: &mut Entry,
) {
    let end = c.end;
    let word = if dwarf64 { 8 } else { 4 };
    let id_at = c.pos;
    let Some(id) = c.uint(word) else {
        fail(e, id_at, end, "call frame entry: its CIE id does not fit");
        return;
    };
    let is_cie = if ctx.eh {
        id == 0
    } else {
        id == if dwarf64 { u64::MAX } else { 0xffff_ffff }
    };
    if is_cie {
        items.push(leaf("CIE_id", id_at, word, Value::hex(id)));
        if let Some(cie) = read_cie(c, ctx, items, e) {
            e.insns = cie.insns;
            e.kind = Kind::Cie(cie);
        }
        return;
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
    let read = fde_cie(d, ctx, cie, deep);
    let Ok(cie_read) = read.clone() else {
        if let Err(m) = &read {
            if !m.is_empty() {
                fail(e, id_at, end, m);
            }
        }
        e.kind = Kind::Fde {
            cie: cie.unwrap_or(0),
            read,
            begin: 0,
            range: 0,
            sec: None,
        };
        return;
    };
    if let Some((begin, range, sec)) = read_fde(c, ctx, &cie_read, items, e) {
        e.insns = (c.pos, end);
        e.kind = Kind::Fde {
            cie: cie_link.map_or(0, |l| l.0 - ctx.at),
            read: Ok(cie_read),
            begin,
            range,
            sec,
        };
    }
}

/// The CIE at `cie` (in the section) of an FDE, read when `deep`; why not
/// otherwise (an empty message when not `deep`).
fn fde_cie(d: &[u8], ctx: &Ctx, cie: Option<u64>, deep: bool) -> Result<Cie, String> {
    match cie {
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
    }
}

/// An FDE's fields after its CIE pointer, read as `cie` says: its initial
/// location and address range (returned with the section the location's
/// relocation names), then its augmentation data. `None` where they do
/// not read (the problem noted in `e`).
fn read_fde(
    c: &mut Cur<'_>,
    ctx: &Ctx,
    cie: &Cie,
    items: &mut Vec<Item>,
    e: &mut Entry,
) -> Option<(u64, u64, Option<u32>)> {
    let end = c.end;
    let enc = if ctx.eh { cie.fde_enc } else { 0 };
    let at = c.pos;
    let reloc = |o: u64| ctx.reloc(o - ctx.at);
    let (begin, sec) = match pointer(c, enc, cie.word, ctx.pc(at), 0, reloc) {
        Ok(v) => v,
        Err(m) => {
            fail(e, at, end, &format!("FDE initial_location: {m}"));
            return None;
        }
    };
    let begin_at = (at, c.pos - at);
    let at = c.pos;
    let range = match pointer(c, enc & 0x0f, cie.word, None, 0, reloc) {
        Ok(v) => v.0,
        Err(m) => {
            fail(e, at, end, &format!("FDE address_range: {m}"));
            return None;
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
            fail(e, at, end, "FDE augmentation_length does not fit");
            return None;
        };
        items.push(leaf("augmentation_length", at, c.pos - at, Value::uint(n)));
        let data_end = c.pos.saturating_add(n);
        if data_end > end {
            fail(e, at, end, "FDE augmentation data runs past its end");
            return None;
        }
        if cie.lsda_enc != OMIT && n > 0 {
            let at = c.pos;
            match pointer(c, cie.lsda_enc, cie.word, ctx.pc(at), 0, reloc) {
                Ok((v, _)) => items.push(leaf("lsda", at, c.pos - at, Value::hex(v))),
                Err(m) => fail(e, at, end, &format!("FDE LSDA: {m}")),
            }
        }
        c.pos = data_end;
    }
    Some((begin, range, sec))
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
        cie_augmentation(c, ctx, aug, &mut cie, aug_len, items, e)?;
    }
    cie.insns = (c.pos, end);
    Some(cie)
}

/// A CIE's augmentation data of `n` bytes, read as its augmentation string
/// `aug` says (`z` first): pointer encodings and the personality routine.
/// `None` when it runs past the entry's end (the problem noted in `e`).
fn cie_augmentation(
    c: &mut Cur<'_>,
    ctx: &Ctx,
    aug: &[u8],
    cie: &mut Cie,
    n: u64,
    items: &mut Vec<Item>,
    e: &mut Entry,
) -> Option<()> {
    let (at, end) = (c.pos, c.end);
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
    Some(())
}
