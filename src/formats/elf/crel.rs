//! CREL, LLVM's compact relocations (`SHT_CREL`, `clang -Wa,--crel`): a
//! ULEB128 header (`count << 3 | addends << 2 | shift`), then per
//! relocation a first byte whose low 2 bits (3 with addends) say which of
//! symbol, type and addend change, whose other bits start the offset's
//! delta (continued as a ULEB128 when the byte's top bit is set), then the
//! changes as SLEB128 deltas.

use gimli::{EndianSlice, LittleEndian};

/// The header's flag that every entry may carry an addend delta.
const ADDENDS: u64 = 4;

/// One relocation as decoded, with where its bytes are (relative to the
/// section) and where each of its deltas is.
#[derive(Clone, Debug, Default)]
pub(crate) struct Entry {
    pub at: u64,
    pub len: u64,
    /// (start, length) of the offset delta with the flags (the first byte
    /// and its continuation), and of the symbol, type and addend deltas
    /// that are there.
    pub fields: [Option<(u64, u64)>; 4],
    /// The deltas as read: offset (in units of `1 << shift`), symbol,
    /// type, addend.
    pub deltas: [i64; 4],
    pub offset: u64,
    pub sym: u32,
    pub typ: u32,
    pub addend: u64,
}

/// A CREL section as decoded.
#[derive(Debug, Default)]
pub(crate) struct Crel {
    pub header: u64,
    pub header_len: u64,
    pub count: u64,
    pub addends: bool,
    pub shift: u32,
    pub entries: Vec<Entry>,
    /// Where and why the decoding stopped before `count` entries.
    pub error: Option<(u64, String)>,
}

struct Reader<'d> {
    d: &'d [u8],
    pos: usize,
}

impl Reader<'_> {
    fn leb(&mut self, signed: bool) -> Option<u64> {
        let rest = self.d.get(self.pos..)?;
        let mut r = EndianSlice::new(rest, LittleEndian);
        let v = if signed {
            gimli::leb128::read::signed(&mut r).ok()? as u64
        } else {
            gimli::leb128::read::unsigned(&mut r).ok()?
        };
        self.pos += rest.len() - r.len();
        Some(v)
    }
}

/// Decodes the CREL section `d` of an ELF64 (`is64`) or ELF32 file. Sums
/// wrap at the file's word (offsets and addends) and at 32 bits (symbol
/// and type), as LLVM's reader does.
pub(crate) fn decode(d: &[u8], is64: bool) -> Crel {
    let mut c = Crel::default();
    let mut r = Reader { d, pos: 0 };
    let Some(hdr) = r.leb(false) else {
        c.error = Some((0, "CREL header: ULEB128 does not read".into()));
        return c;
    };
    c.header = hdr;
    c.header_len = r.pos as u64;
    c.count = hdr >> 3;
    c.addends = hdr & ADDENDS != 0;
    c.shift = (hdr % ADDENDS) as u32;
    let flag_bits = if c.addends { 3 } else { 2 };
    let word = |v: u64| if is64 { v } else { v & 0xffff_ffff };
    let (mut offset, mut sym, mut typ, mut addend) = (0u64, 0u32, 0u32, 0u64);
    for k in 0..c.count {
        let at = r.pos;
        let bad = |what: &str| Some((at as u64, format!("CREL entry {k}: {what} does not read")));
        let Some(&b0) = d.get(r.pos) else {
            c.error = bad("its first byte");
            break;
        };
        r.pos += 1;
        let mut delta = u64::from(b0 >> flag_bits);
        if b0 >= 0x80 {
            let Some(more) = r.leb(false) else {
                c.error = bad("the offset delta");
                break;
            };
            delta = delta
                .wrapping_add(more.wrapping_shl(7 - flag_bits))
                .wrapping_sub(0x80 >> flag_bits);
        }
        let mut e = Entry {
            at: at as u64,
            ..Entry::default()
        };
        e.fields[0] = Some((at as u64, (r.pos - at) as u64));
        e.deltas[0] = delta as i64;
        offset = word(offset.wrapping_add(delta));
        let mut failed = false;
        let slots = e.fields.iter_mut().zip(e.deltas.iter_mut()).skip(1);
        for (bit, (field, delta)) in [1u8, 2, 4].into_iter().zip(slots) {
            if b0 & bit == 0 || (bit == 4 && !c.addends) {
                continue;
            }
            let s = r.pos;
            let Some(v) = r.leb(true) else {
                failed = true;
                break;
            };
            *field = Some((s as u64, (r.pos - s) as u64));
            *delta = v as i64;
            match bit {
                1 => sym = sym.wrapping_add(v as u32),
                2 => typ = typ.wrapping_add(v as u32),
                _ => addend = word(addend.wrapping_add(v)),
            }
        }
        if failed {
            c.error = bad("a symbol, type or addend delta");
            break;
        }
        e.len = (r.pos - at) as u64;
        e.offset = word(offset.wrapping_shl(c.shift));
        e.sym = sym;
        e.typ = typ;
        e.addend = addend;
        c.entries.push(e);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_add_up() {
        // 2 entries, addends, shift 0: header 2 << 3 | 4 = 0x14.
        // Entry 0: offset +4, symbol +6, type +4, addend -4: flags 7,
        // first byte 4 << 3 | 7 = 0x27, then sleb 6, 4, -4 (0x7c).
        // Entry 1: offset +7, type -2 (0x7e): 7 << 3 | 2 = 0x3a.
        let d = [0x14, 0x27, 6, 4, 0x7c, 0x3a, 0x7e];
        let c = decode(&d, true);
        assert!(c.error.is_none());
        assert_eq!(c.count, 2);
        let e: Vec<_> = c
            .entries
            .iter()
            .map(|e| (e.offset, e.sym, e.typ, e.addend as i64))
            .collect();
        assert_eq!(e, vec![(4, 6, 4, -4), (11, 6, 2, -4)]);
        assert_eq!(c.entries[1].at, 5);
        assert_eq!(c.entries[1].len, 2);
    }

    #[test]
    fn a_long_offset_delta_continues_as_uleb() {
        // No addends (2 flag bits): a delta of 0x100 is its low 5 bits (0)
        // in the first byte with the top bit set, then 0x100 >> 5 = 8 as
        // ULEB128.
        let d = [0x08, 0x80, 8];
        let c = decode(&d, false);
        assert!(c.error.is_none(), "{:?}", c.error);
        assert_eq!(c.entries[0].offset, 0x100);
    }

    #[test]
    fn a_short_section_is_an_error_at_its_entry() {
        let d = [0x14, 0x27, 6];
        let c = decode(&d, true);
        assert_eq!(c.entries.len(), 0);
        assert_eq!(c.error.as_ref().map(|e| e.0), Some(1));
    }
}
