#![no_main]
//! Machine code as instructions: an ELF for a machine whose code fwview
//! decodes (the input's first byte picks it), built as `--code` builds it,
//! so that every executable section and function goes through the
//! disassembly layer with the layouts, sizes and symbols the input gives.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run_code(fwview_fuzz::shape("code", data));
});
