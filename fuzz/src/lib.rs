//! What every fuzz target does: shape the input so that detection picks the
//! target's format, build the tree, walk all of it, and check what must hold
//! for any input.
//!
//! - no panic (libFuzzer reports it as a crash), no hang (`-timeout`), no
//!   huge allocation (`-malloc_limit_mb`, `-rss_limit_mb`);
//! - the JSON export succeeds, stays within a bound proportional to the
//!   input, and carries no byte that could act on a terminal.
//!
//! That every child lies inside its parent is the model's own rule
//! (`Builder::add` cuts ranges); `tests/hostile.rs` checks it in the JSON.

use fwview::formats;

/// `data` as it is if it already starts with `magic`, else `magic` + `data`.
pub fn with_magic(data: &[u8], magic: &[u8]) -> Vec<u8> {
    if data.starts_with(magic) {
        data.to_vec()
    } else {
        let mut v = Vec::with_capacity(magic.len() + data.len());
        v.extend_from_slice(magic);
        v.extend_from_slice(data);
        v
    }
}

/// An ELF whose e_machine says EM_INTELGT (205), in the byte order that
/// e_ident names, so that detection calls it a zebin.
pub fn as_zebin(data: &[u8]) -> Vec<u8> {
    let mut v = with_magic(data, b"\x7fELF");
    if v.len() < 20 {
        v.resize(20, 0);
    }
    let m: [u8; 2] = if v.get(5) == Some(&2) {
        [0, 205]
    } else {
        [205, 0]
    };
    if let Some(f) = v.get_mut(18..20) {
        f.copy_from_slice(&m);
    }
    v
}

/// An ELF that is not a zebin: e_machine 205 is changed to 62 (x86-64).
pub fn as_plain_elf(data: &[u8]) -> Vec<u8> {
    let mut v = with_magic(data, b"\x7fELF");
    if formats::elf::is_zebin(&v) {
        if let Some(f) = v.get_mut(18..20) {
            let be = f == [0, 205];
            f.copy_from_slice(if be { &[0, 62] } else { &[62, 0] });
        }
    }
    v
}

/// True if `b` holds a byte sequence that a terminal could act on: a C0
/// control other than newline, DEL, a C1 control (UTF-8 `C2 80..9F`), or a
/// bidirectional formatting character.
pub fn terminal_unsafe_at(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let bad = match c {
            b'\n' => false,
            0..=0x1f | 0x7f => true,
            0xc2 => matches!(b.get(i + 1), Some(0x80..=0x9f)),
            // U+061C ARABIC LETTER MARK
            0xd8 => b.get(i + 1) == Some(&0x9c),
            // U+200E, U+200F, U+202A..U+202E, U+2066..U+2069
            0xe2 => matches!(
                (b.get(i + 1), b.get(i + 2)),
                (Some(0x80), Some(0x8e | 0x8f | 0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
            ),
            _ => false,
        };
        if bad {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The JSON one input may produce: a tree shows each byte a bounded number
/// of times. Far above what real files give (under 10 times their size),
/// far below what tables that all claim the same bytes would (quadratic).
/// The same bound as `tests/hostile.rs`.
pub fn out_limit(len: usize) -> usize {
    (64 << 20) + 256 * len
}

/// Takes the JSON as it is written without keeping it: counts it against
/// the bound and looks for terminal-unsafe bytes (the few bytes before each
/// write are kept, so that a sequence split over two writes is seen).
struct Check {
    written: usize,
    cap: usize,
    tail: Vec<u8>,
}

impl std::io::Write for Check {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.written += b.len();
        assert!(
            self.written <= self.cap,
            "output amplification: the JSON passed {} MiB",
            self.cap >> 20
        );
        let mut w = std::mem::take(&mut self.tail);
        w.extend_from_slice(b);
        if let Some(i) = terminal_unsafe_at(&w) {
            let from = i.saturating_sub(40);
            panic!(
                "the JSON carries a terminal-unsafe byte: {:?}",
                String::from_utf8_lossy(&w[from..(i + 40).min(w.len())])
            );
        }
        let keep = w.len().saturating_sub(2);
        self.tail = w.split_off(keep);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Builds the tree of `bytes` and writes all of it as JSON (the walk builds
/// every lazy node and releases it after), checking what is written.
pub fn run(bytes: Vec<u8>) {
    let len = bytes.len();
    let mut tree = formats::build_from_bytes(bytes);
    let mut out = Check {
        written: 0,
        cap: out_limit(len),
        tail: Vec::new(),
    };
    fwview::export::json(&mut tree, "input", &mut out).expect("JSON export");
}

/// A SPIR-V module: `data` as it is if it starts with the magic in either
/// byte order, else behind the little-endian magic `03 02 23 07`.
pub fn as_spirv(data: &[u8]) -> Vec<u8> {
    if formats::spirv::detect(data) {
        data.to_vec()
    } else {
        with_magic(data, &formats::spirv::MAGIC.to_le_bytes())
    }
}

/// The bytes a Xilinx `.bit` file starts with: the first field's length
/// (9), its bytes, and the second field's length (1).
pub const BIT_START: [u8; 13] = [
    0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x00, 0x00, 0x01,
];

/// A standalone CDO: `data` as it is if it starts with a CDO header of
/// either version (the word count 4, then `CDO\0` or `XNLX`), else behind
/// the start of a version 2 header (`04 00 00 00`, `CDO\0`).
pub fn as_cdo(data: &[u8]) -> Vec<u8> {
    let v1 = [4u32.to_le_bytes(), formats::cdo::XNLX_ID.to_le_bytes()].concat();
    if data.starts_with(&v1) {
        data.to_vec()
    } else {
        let v2 = [4u32.to_le_bytes(), formats::cdo::CDO_ID.to_le_bytes()].concat();
        with_magic(data, &v2)
    }
}
