#![no_main]
//! Compressed clang offload bundle: the input behind `CCOB` (header,
//! inflation bounded by the announced size, concatenated bundles).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("ccob", data));
});
