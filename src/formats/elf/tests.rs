//! Tests of the ELF reader on files written here.

use crate::formats::build_from_bytes;

/// An ELF64 LE relocatable file: null, .text, .symtab with `n` symbols,
/// .strtab, .shstrtab.
#[allow(clippy::type_complexity)]
fn many_symbols(n: u32) -> Vec<u8> {
    let mut strtab = vec![0u8];
    let mut symtab = vec![0u8; 24];
    for i in 1..n {
        let name = strtab.len() as u32;
        strtab.extend_from_slice(format!("sym{i}").as_bytes());
        strtab.push(0);
        symtab.extend_from_slice(&name.to_le_bytes());
        symtab.push(0x12); // GLOBAL FUNC
        symtab.push(0);
        symtab.extend_from_slice(&1u16.to_le_bytes());
        symtab.extend_from_slice(&u64::from(i % 16).to_le_bytes());
        symtab.extend_from_slice(&0u64.to_le_bytes());
    }
    let shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0".to_vec();
    let mut d = vec![0u8; 64];
    let text_off = d.len() as u64;
    d.extend_from_slice(&[0x90; 16]);
    let sym_off = d.len() as u64;
    d.extend_from_slice(&symtab);
    let str_off = d.len() as u64;
    d.extend_from_slice(&strtab);
    let shstr_off = d.len() as u64;
    d.extend_from_slice(&shstr);
    while !d.len().is_multiple_of(8) {
        d.push(0);
    }
    let shoff = d.len() as u64;
    let secs: [(u32, u32, u64, u64, u64, u32, u32, u64); 5] = [
        (0, 0, 0, 0, 0, 0, 0, 0),
        (1, 1, 6, text_off, 16, 0, 0, 0),
        (7, 2, 0, sym_off, symtab.len() as u64, 3, 1, 24),
        (15, 3, 0, str_off, strtab.len() as u64, 0, 0, 0),
        (23, 3, 0, shstr_off, shstr.len() as u64, 0, 0, 0),
    ];
    for (name, typ, flags, off, size, link, info, es) in secs {
        d.extend_from_slice(&name.to_le_bytes());
        d.extend_from_slice(&typ.to_le_bytes());
        d.extend_from_slice(&flags.to_le_bytes());
        d.extend_from_slice(&0u64.to_le_bytes());
        d.extend_from_slice(&off.to_le_bytes());
        d.extend_from_slice(&size.to_le_bytes());
        d.extend_from_slice(&link.to_le_bytes());
        d.extend_from_slice(&info.to_le_bytes());
        d.extend_from_slice(&1u64.to_le_bytes());
        d.extend_from_slice(&es.to_le_bytes());
    }
    let mut h = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&62u16.to_le_bytes());
    h.extend_from_slice(&1u32.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes());
    h.extend_from_slice(&shoff.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    for v in [64u16, 0, 0, 64, 5, 4] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    d[..64].copy_from_slice(&h);
    d
}

#[test]
fn a_million_symbols_open_lazily() {
    let d = many_symbols(1_000_000);
    let t0 = std::time::Instant::now();
    let mut t = build_from_bytes(d);
    eprintln!("opened 1,000,000 symbols in {:?}", t0.elapsed());
    // Opening built a handful of nodes, not a million.
    assert!(t.len() < 1000, "{} nodes built at open", t.len());
    let id = t
        .find_path("sections/[2] .symtab/[999000..1000000)/[999999] sym999999")
        .expect("symbol 999,999 is reachable");
    let name = t.find_path("sections/[2] .symtab/[999000..1000000)/[999999] sym999999/st_name");
    let name = name.expect("st_name");
    assert_eq!(
        t.value_text(name).as_deref(),
        Some(&*format!("{} \"sym999999\"", {
            // The string's index: "\0" then "symI\0" for I in 1..999999.
            let mut idx = 1u64;
            for i in 1..999_999u64 {
                idx += format!("sym{i}").len() as u64 + 1;
            }
            idx
        }))
    );
    assert!(t
        .value_text(id)
        .unwrap_or_default()
        .starts_with("FUNC GLOBAL"));
    eprintln!("symbol 999,999 built {:?} after the start", t0.elapsed());
    assert!(
        t.len() < 20_000,
        "{} nodes after opening one group",
        t.len()
    );
}
