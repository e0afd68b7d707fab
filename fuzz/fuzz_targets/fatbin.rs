#![no_main]
//! CUDA fatbin: the input behind `50 ED 55 BA`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("fatbin", data));
});
