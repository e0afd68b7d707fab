//! Every target LLVM 22 compiles C for: the relocations and header flags
//! fwview shows against `llvm-readelf-22`, and the relocation names
//! against LLVM's own tables.

use crate::common;

use std::path::Path;
use std::process::Command;

/// The relocation names are generated from LLVM's `ELFRelocs/*.def`
/// (llvm-22-dev): the generated file is what the generator writes today.
#[test]
fn relocation_tables_are_current() {
    let include = Path::new("/usr/include/llvm-22/llvm/BinaryFormat/ELFRelocs");
    if !common::present("llvm-22-dev", include.is_dir()) || !common::tool("python3") {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/elf-relocs.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "src/formats/elf/reloc_tables.rs is not what scripts/elf-relocs.py writes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
