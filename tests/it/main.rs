//! The integration tests, one crate so that they compile and link once: a
//! module per subject (`cargo test --release --test it elf::` runs one).
//! The hostile-input tests are a crate of their own (`tests/hostile.rs`),
//! run again under the `hostile` profile; both share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod ar;
mod at;
mod bit;
mod cdo_v1;
mod cli;
mod code_frame;
mod coverage;
mod cuda;
mod debug_builds;
mod demangle;
mod diff;
mod diff_pairs;
mod disasm;
mod dwarf;
mod dwarf_cfi;
mod dwarf_gz;
mod dwarf_line;
mod dwarf_lists;
mod elf;
mod elf_placed;
mod elf_sections;
mod extract_safety;
mod file_changed;
mod folders;
mod gpu;
mod imports;
mod ksy;
mod model;
mod navigate;
mod npu;
mod npu_aie2elf;
mod npu_elf;
mod oddfiles;
mod offload;
mod offsets;
mod parallel;
mod pdi;
mod sizes;
mod spirv;
mod targets;
mod terminal_safety;
mod tmux;
mod tmux_code;
mod tmux_diff;
mod tmux_folder;
mod tmux_ksy;
mod tui;
mod xclbin;
mod xe;
mod zebin;
