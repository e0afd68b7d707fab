#![no_main]
//! The disassembly engines alone: arbitrary bytes decoded for the target
//! the first byte picks (every ISA, AMDGPU processors LLVM decodes and
//! ones it must never be given).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::decode(data);
});
