#![no_main]
//! SPIR-V module: the input as it is if it starts with the magic in either
//! byte order, else behind `03 02 23 07`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("spirv", data));
});
