#![no_main]
//! LLVM offload binary: the input behind `10 FF 10 AD`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("offload", data));
});
