#![no_main]
//! XMOS XE: the input behind `XMOS` (kept if it is already there).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("xe", data));
});
