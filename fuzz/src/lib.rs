//! What every fuzz target does: shape the input so that detection picks the
//! target's format, build the tree, walk all of it, and check what must hold
//! for any input.
//!
//! - no panic (libFuzzer reports it as a crash), no hang (`-timeout`), no
//!   huge allocation (`-malloc_limit_mb`, `-rss_limit_mb`);
//! - every node's range lies inside its parent's, the root covers the file;
//! - the JSON export succeeds and carries no byte that could act on a
//!   terminal.

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

/// Builds the tree of `bytes` and walks all of it twice: once checking the
/// ranges, once writing the JSON document.
pub fn run(bytes: Vec<u8>) {
    let len = bytes.len() as u64;
    let mut tree = formats::build_from_bytes(bytes);

    let mut stack: Vec<(u64, u64)> = Vec::new();
    tree.walk(&mut |t, id, _depth, entering| {
        if !entering {
            stack.pop();
            return;
        }
        let n = t.node(id);
        let (s, e) = (n.offset, n.end());
        match stack.last() {
            Some(&(ps, pe)) => assert!(
                ps <= s && e <= pe,
                "node {:?} [{s:#x}, {e:#x}) lies outside its parent [{ps:#x}, {pe:#x})",
                n.name
            ),
            None => assert!(s == 0 && e == len, "root [{s:#x}, {e:#x}) is not the file"),
        }
        stack.push((s, e));
    });

    let mut out = Vec::new();
    fwview::export::json(&mut tree, "input", &mut out).expect("JSON export to memory");
    if let Some(i) = terminal_unsafe_at(&out) {
        let from = i.saturating_sub(40);
        panic!(
            "JSON carries a terminal-unsafe byte at {i}: {:?}",
            String::from_utf8_lossy(&out[from..(i + 40).min(out.len())])
        );
    }
}
