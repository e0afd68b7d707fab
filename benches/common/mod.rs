//! What the benches share: the ELF object of 1,000,000 symbols
//! (`sym_0000000` … `sym_0999999`, assembled by `as`) and opening a file
//! as the viewer does.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use fwview::formats;
use fwview::model::{Source, Tree};

pub const SYMBOLS: u32 = 1_000_000;

/// The symbol [`object`] renames when asked for the odd copy.
pub const RENAMED: u32 = 500_000;

/// The object of [`SYMBOLS`] symbols, assembled once and kept in the
/// target directory; with `odd`, symbol [`RENAMED`] is called
/// `sym_x500000` instead. `None` where `as` is missing or fails.
pub fn object(odd: bool) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let name = if odd {
        "1m-symbols-renamed"
    } else {
        "1m-symbols"
    };
    let obj = dir.join(format!("{name}.o"));
    if obj.exists() {
        return Some(obj);
    }
    let src = dir.join(format!("{name}.s"));
    let mut s = String::with_capacity(SYMBOLS as usize * 40);
    s.push_str(".text\n");
    for n in 0..SYMBOLS {
        if odd && n == RENAMED {
            s.push_str(&format!(".globl sym_x{n}\nsym_x{n}:\n"));
        } else {
            s.push_str(&format!(".globl sym_{n:07}\nsym_{n:07}:\n"));
        }
    }
    std::fs::write(&src, s).ok()?;
    let ok = Command::new("as")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&src);
    ok.then_some(obj)
}

/// The tree of the file at `path`, as the viewer builds it.
pub fn open(path: &Path) -> Tree {
    let src = Arc::new(Source::open(path).expect("open"));
    formats::build_tree(src, "bench")
}
