#![no_main]
//! Detection and the full tree build of raw bytes, whatever they are.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(data.to_vec());
});
