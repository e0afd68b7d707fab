#![no_main]
//! Intel zebin: the input behind `\x7fELF`, with e_machine set to 205.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("zebin", data));
});
