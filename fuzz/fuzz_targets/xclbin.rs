#![no_main]
//! XCLBIN: the input behind `xclbin2\0` (kept if it is already there).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("xclbin", data));
});
