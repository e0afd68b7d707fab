//! The exporters on several threads write exactly what one thread writes:
//! the same tree, the same spaces, the same diagnostics.

use crate::common;

use fwview::export::{json_with, text_tree_with};
use fwview::formats::build_from_bytes;
use fwview::model::Numbers;

fn both(bytes: &[u8], threads: usize) -> (Vec<u8>, Vec<u8>, Vec<String>) {
    let mut t = build_from_bytes(bytes.to_vec());
    let mut j = Vec::new();
    json_with(&mut t, "x", &mut j, threads).unwrap();
    let mut t = build_from_bytes(bytes.to_vec());
    let mut txt = Vec::new();
    text_tree_with(&mut t, &mut txt, Numbers::Natural, threads).unwrap();
    let mut d: Vec<String> = t.diagnostics().iter().map(|d| format!("{d:?}")).collect();
    d.sort();
    (j, txt, d)
}

#[test]
fn every_sample_is_written_the_same_on_any_number_of_threads() {
    for (rel, bytes) in common::samples() {
        let one = both(&bytes, 1);
        for threads in [2, 3] {
            let many = both(&bytes, threads);
            assert!(
                one.0 == many.0,
                "{rel}: --json differs on {threads} threads"
            );
            assert!(
                one.1 == many.1,
                "{rel}: --tree differs on {threads} threads"
            );
            assert_eq!(
                one.2, many.2,
                "{rel}: diagnostics differ on {threads} threads"
            );
        }
    }
}

#[test]
fn damaged_samples_too() {
    for (rel, bytes) in common::samples().into_iter().take(12) {
        let mut m = bytes.clone();
        let n = m.len();
        for k in 1..6 {
            let at = n * k / 7;
            m[at] ^= 0xff;
        }
        let one = both(&m, 1);
        let many = both(&m, 2);
        assert!(one.0 == many.0, "{rel} (damaged): --json differs");
        assert!(one.1 == many.1, "{rel} (damaged): --tree differs");
        assert_eq!(one.2, many.2, "{rel} (damaged): diagnostics differ");
    }
}

/// An ELF object of `n` global symbols, made with the `object` crate.
fn object_of_symbols(n: usize) -> Vec<u8> {
    use object::write::{Object, Symbol, SymbolSection};
    use object::{Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let text = o.section_id(object::write::StandardSection::Text);
    o.append_section_data(text, &[0xc3; 16], 16);
    for i in 0..n {
        o.add_symbol(Symbol {
            name: format!("symbol_{i}").into_bytes(),
            value: (i % 16) as u64,
            size: 1,
            kind: SymbolKind::Text,
            scope: SymbolScope::Linkage,
            weak: false,
            section: SymbolSection::Section(text),
            flags: SymbolFlags::None,
        });
    }
    o.write().unwrap()
}

/// A writer that fails once `left` bytes are written.
struct Failing {
    left: usize,
}

impl std::io::Write for Failing {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if b.len() > self.left {
            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        }
        self.left -= b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_write_that_fails_ends_the_walk_on_every_thread() {
    // An archive of two objects whose symbol tables print megabytes
    // each: the worker of the second waits for the writer, which stops
    // with an error while it writes the first.
    let member = object_of_symbols(40_000);
    let mut ar = b"!<arch>\n".to_vec();
    for name in ["a.o/", "b.o/"] {
        ar.extend_from_slice(
            format!(
                "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                0,
                0,
                0,
                644,
                member.len()
            )
            .as_bytes(),
        );
        ar.extend_from_slice(&member);
        if member.len() % 2 == 1 {
            ar.push(b'\n');
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut t = build_from_bytes(ar);
        let r = json_with(&mut t, "x", &mut Failing { left: 30 << 20 }, 2);
        let _ = tx.send(r.is_err());
    });
    let failed = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the walk ended");
    assert!(failed, "the error is returned");
}

/// A line program of some 900,000 opcodes, large enough that the walk
/// opens it and hands its groups to its workers: the same output on any
/// number of threads.
#[test]
fn a_large_line_program_is_written_the_same_on_any_number_of_threads() {
    if !common::tool("clang-22") {
        return;
    }
    let dir = common::scratch();
    let mut src = String::new();
    for i in 0..30_000 {
        src.push_str(&format!(
            "int f{i}(int x) {{\n  int y = x * {i};\n  y += 3;\n  if (y > 7)\n    y -= 2;\n  return y;\n}}\n"
        ));
    }
    let c = dir.path().join("big.c");
    let o = dir.path().join("big.o");
    std::fs::write(&c, src).unwrap();
    let st = std::process::Command::new("clang-22")
        .args(["-g", "-O0", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .status()
        .expect("clang-22 runs");
    assert!(st.success(), "clang-22 -g -O0 -c big.c");
    let bytes = std::fs::read(&o).unwrap();
    let one = both(&bytes, 1);
    assert!(
        one.1.windows(b"program".len()).any(|w| w == b"program"),
        "a line program is listed"
    );
    for threads in [2, 3] {
        let many = both(&bytes, threads);
        assert!(one.0 == many.0, "--json differs on {threads} threads");
        assert!(one.1 == many.1, "--tree differs on {threads} threads");
        assert_eq!(one.2, many.2, "diagnostics differ on {threads} threads");
    }
}
