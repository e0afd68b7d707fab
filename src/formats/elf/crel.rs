//! CREL, LLVM's compact relocations (`SHT_CREL`, `clang -Wa,--crel`): a
//! ULEB128 header (`count << 3 | addends << 2 | shift`), then per
//! relocation a first byte whose low 2 bits (3 with addends) say which of
//! symbol, type and addend change, whose other bits start the offset's
//! delta (continued as a ULEB128 when the byte's top bit is set), then the
//! changes as SLEB128 deltas.

use gimli::{EndianSlice, LittleEndian};

/// The header's flag that every entry may carry an addend delta.
const ADDENDS: u64 = 4;

/// A CREL section's header.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Header {
    pub value: u64,
    pub len: u64,
    pub count: u64,
    pub addends: bool,
    pub shift: u32,
}

/// The header at the start of `d`; `None` when its ULEB128 does not read.
pub(crate) fn header(d: &[u8]) -> Option<Header> {
    let mut r = Reader { d, pos: 0 };
    let value = r.leb(false)?;
    Some(Header {
        value,
        len: r.pos as u64,
        count: value >> 3,
        addends: value & ADDENDS != 0,
        shift: (value % ADDENDS) as u32,
    })
}

/// Where the decoding is: the next entry's position (relative to the
/// section) and the sums so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct State {
    pub pos: u64,
    offset: u64,
    sym: u32,
    typ: u32,
    addend: u64,
}

impl State {
    /// The state before the first entry.
    pub(crate) fn start(h: &Header) -> State {
        State {
            pos: h.len,
            ..State::default()
        }
    }
}

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

/// Decodes the entry at `st` of the CREL section `d` of an ELF64 (`is64`)
/// or ELF32 file and moves `st` past it; the error says what did not read.
/// Sums wrap at the file's word (offsets and addends) and at 32 bits
/// (symbol and type), as LLVM's reader does.
pub(crate) fn next(d: &[u8], h: &Header, st: &mut State, is64: bool) -> Result<Entry, String> {
    let flag_bits = if h.addends { 3 } else { 2 };
    let word = |v: u64| if is64 { v } else { v & 0xffff_ffff };
    let at = usize::try_from(st.pos).map_err(|_| "its first byte".to_string())?;
    let mut r = Reader { d, pos: at };
    let b0 = *d.get(at).ok_or("its first byte")?;
    r.pos += 1;
    let mut delta = u64::from(b0 >> flag_bits);
    if b0 >= 0x80 {
        let more = r.leb(false).ok_or("the offset delta")?;
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
    let mut next = *st;
    next.offset = word(next.offset.wrapping_add(delta));
    let slots = e.fields.iter_mut().zip(e.deltas.iter_mut()).skip(1);
    for (bit, (field, dv)) in [1u8, 2, 4].into_iter().zip(slots) {
        if b0 & bit == 0 || (bit == 4 && !h.addends) {
            continue;
        }
        let s = r.pos;
        let v = r.leb(true).ok_or("a symbol, type or addend delta")?;
        *field = Some((s as u64, (r.pos - s) as u64));
        *dv = v as i64;
        match bit {
            1 => next.sym = next.sym.wrapping_add(v as u32),
            2 => next.typ = next.typ.wrapping_add(v as u32),
            _ => next.addend = word(next.addend.wrapping_add(v)),
        }
    }
    next.pos = r.pos as u64;
    *st = next;
    e.len = (r.pos - at) as u64;
    e.offset = word(next.offset.wrapping_shl(h.shift));
    e.sym = next.sym;
    e.typ = next.typ;
    e.addend = next.addend;
    Ok(e)
}

/// The entries of the CREL section `d`, at most `max`, up to the first
/// that does not read.
pub(crate) fn entries(
    d: &[u8],
    is64: bool,
    max: u64,
) -> (Header, impl Iterator<Item = Entry> + '_) {
    let h = header(d).unwrap_or_default();
    let mut st = State::start(&h);
    let n = h.count.min(max);
    (
        h,
        (0..n).map_while(move |_| next(d, &h, &mut st, is64).ok()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(d: &[u8], is64: bool) -> Vec<Entry> {
        entries(d, is64, u64::MAX).1.collect()
    }

    #[test]
    fn deltas_add_up() {
        // 2 entries, addends, shift 0: header 2 << 3 | 4 = 0x14.
        // Entry 0: offset +4, symbol +6, type +4, addend -4: flags 7,
        // first byte 4 << 3 | 7 = 0x27, then sleb 6, 4, -4 (0x7c).
        // Entry 1: offset +7, type -2 (0x7e): 7 << 3 | 2 = 0x3a.
        let d = [0x14, 0x27, 6, 4, 0x7c, 0x3a, 0x7e];
        let h = header(&d).unwrap();
        assert_eq!((h.count, h.addends, h.shift), (2, true, 0));
        let es = all(&d, true);
        let e: Vec<_> = es
            .iter()
            .map(|e| (e.offset, e.sym, e.typ, e.addend as i64))
            .collect();
        assert_eq!(e, vec![(4, 6, 4, -4), (11, 6, 2, -4)]);
        assert_eq!((es[1].at, es[1].len), (5, 2));
    }

    #[test]
    fn a_long_offset_delta_continues_as_uleb() {
        // No addends (2 flag bits): a delta of 0x100 is its low 5 bits (0)
        // in the first byte with the top bit set, then 0x100 >> 5 = 8 as
        // ULEB128.
        let d = [0x08, 0x80, 8];
        assert_eq!(all(&d, false)[0].offset, 0x100);
    }

    #[test]
    fn a_short_section_stops_at_its_entry() {
        let d = [0x14, 0x27, 6];
        let h = header(&d).unwrap();
        let mut st = State::start(&h);
        assert!(next(&d, &h, &mut st, true).is_err());
        assert_eq!(st.pos, 1);
        assert!(all(&d, true).is_empty());
    }
}
