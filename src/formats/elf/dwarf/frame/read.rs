//! What reading call frames needs: the context ([`Ctx`]: where the
//! section is, the machine, the relocations, what names code), pointer
//! encodings (`DW_EH_PE_*`) and the machine's register names.

use std::sync::Arc;

use super::super::line::Cur;
use crate::model::Endian;

/// Entries listed at most.
pub(super) const MAX_ENTRIES: u64 = 1 << 22;
/// Instructions of one entry read at most.
pub(super) const MAX_INSNS: u64 = 1 << 16;
/// Bytes read at most for an augmentation string.
pub(super) const MAX_AUG: u64 = 256;

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
    pub(super) fn reloc(&self, off: u64) -> Option<(u64, u32)> {
        let k = self.relocs.binary_search_by_key(&off, |r| r.0).ok()?;
        self.relocs.get(k).map(|r| (r.1, r.2))
    }

    /// The address pc-relative pointers at `at` (in the byte space) count
    /// from: none in an object file.
    pub(super) fn pc(&self, at: u64) -> Option<u64> {
        (!self.relocatable).then(|| self.addr.wrapping_add(at - self.at))
    }

    pub(super) fn cursor<'d>(&self, d: &'d [u8], off: u64) -> Cur<'d> {
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
pub(super) const OMIT: u8 = 0xff;

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

/// The name of DWARF register `r` on `machine` as `llvm-dwarfdump` prints
/// it in call frame instructions (`RSP`, `W29`, `X2`, `SP_64`), else
/// `reg<N>`.
pub(super) fn register(machine: u16, r: u64) -> String {
    super::regs::for_machine(machine)
        .and_then(|t| {
            let r = u16::try_from(r).ok()?;
            let i = t.binary_search_by_key(&r, |&(n, _)| n).ok()?;
            t.get(i).map(|&(_, name)| name.to_string())
        })
        .unwrap_or_else(|| format!("reg{r}"))
}

/// Whether the registers of `machine` have names (and its call frames are
/// read).
pub(crate) fn named_machine(machine: u16) -> bool {
    super::regs::for_machine(machine).is_some()
}
