#![no_main]
//! A standalone CDO stream: the input as it is if it starts with a version 1
//! header (`04 00 00 00 XNLX`), else behind `04 00 00 00 CDO\0` (version 2).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("cdo", data));
});
