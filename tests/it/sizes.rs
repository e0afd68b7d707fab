//! Sizes: no function in `src` is over [`MAX_FN`] lines and no file over
//! [`MAX_FILE`], except the generated tables in [`GENERATED`] (each named
//! with the script that writes it). Functions and files still to split are
//! listed in [`KNOWN_FNS`] and [`KNOWN_FILES`]: a new one fails, and so
//! does an entry that is no longer over, so the lists only shrink.

use std::path::Path;

use super::imports::{blank, is_ident, rs_files};

const MAX_FN: usize = 150;
const MAX_FILE: usize = 1200;

/// Files written by a script, not by hand: path under `src`, the script.
const GENERATED: &[(&str, &str)] = &[
    ("formats/elf/reloc_tables.rs", "scripts/elf-relocs.py"),
    ("formats/elf/dwarf/frame/regs.rs", "scripts/dwarf-regs.py"),
    ("formats/cdo/aie_regs/aie2p.rs", "scripts/aie-registers.py"),
    ("formats/cdo/aie_regs/aie2ps.rs", "scripts/aie-registers.py"),
    ("formats/cdo/aie_regs/aieml.rs", "scripts/aie-registers.py"),
];

/// Functions over the limit still to split: file under `src`, name.
const KNOWN_FNS: &[(&str, &str)] = &[];

/// Files over the limit still to split, under `src`.
const KNOWN_FILES: &[&str] = &[];

/// Each function with a body in the code: its name, its first line and
/// its length in lines (signature through closing brace).
fn functions(code: &[u8]) -> Vec<(String, usize, usize)> {
    let line_of = |at: usize| code[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = code[i..].windows(3).position(|w| w == b"fn ") {
        let at = i + k;
        i = at + 3;
        if at > 0 && is_ident(code[at - 1]) {
            continue;
        }
        let name: String = code[i..]
            .iter()
            .take_while(|&&c| is_ident(c))
            .map(|&c| c as char)
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body's opening brace, unless a semicolon ends the item first.
        let Some(open) = code[i..].iter().position(|&c| c == b'{' || c == b';') else {
            break;
        };
        let open = i + open;
        if code[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = code.len() - 1;
        for (j, &c) in code.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((name, line_of(at), line_of(close) - line_of(at) + 1));
    }
    out
}

#[test]
fn no_function_or_file_over_the_limits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut problems = Vec::new();
    let mut over_fns = Vec::new();
    let mut over_files = Vec::new();
    for p in &files {
        let rel = p
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(p).expect("a source file is readable");
        if GENERATED.iter().any(|(g, _)| *g == rel) {
            continue;
        }
        let lines = text.lines().count();
        if lines > MAX_FILE {
            over_files.push(rel.clone());
            if !KNOWN_FILES.contains(&rel.as_str()) {
                problems.push(format!("{rel} has {lines} lines (at most {MAX_FILE})"));
            }
        }
        for (name, line, len) in functions(&blank(&text)) {
            if len > MAX_FN {
                over_fns.push((rel.clone(), name.clone()));
                if !KNOWN_FNS.contains(&(rel.as_str(), name.as_str())) {
                    problems.push(format!(
                        "{rel}:{line}: fn {name} has {len} lines (at most {MAX_FN})"
                    ));
                }
            }
        }
    }
    for (file, name) in KNOWN_FNS {
        if !over_fns.iter().any(|(f, n)| f == file && n == name) {
            problems.push(format!(
                "{file}: fn {name} is within the limit now: take it off KNOWN_FNS"
            ));
        }
    }
    for file in KNOWN_FILES {
        if !over_files.iter().any(|f| f == file) {
            problems.push(format!(
                "{file} is within the limit now: take it off KNOWN_FILES"
            ));
        }
    }
    for (file, script) in GENERATED {
        assert!(src.join(file).is_file(), "{file} (from {script}) is gone");
        assert!(
            root.join(script).is_file(),
            "{script} (writes {file}) is gone"
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_counts_bodies_not_strings_or_comments() {
    let code = "fn a() {\n    let s = \"}\n}\";\n    // }\n    let c = '}';\n}\ntrait T { fn b(&self); }\nfn c<T: Fn()>(t: T) where T: Copy { t() }\n";
    let f = functions(&blank(code));
    let got: Vec<_> = f.iter().map(|(n, l, len)| (n.as_str(), *l, *len)).collect();
    assert_eq!(got, [("a", 1, 6), ("c", 8, 1)]);
}
