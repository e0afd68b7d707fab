#![no_main]
//! AMD PDI: the input behind the 32-bit SelectMAP bus-width pattern.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("pdi", data));
});
