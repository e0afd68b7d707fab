#![no_main]
//! Xilinx `.bit` file: the input behind `00 09 0F F0 0F F0 0F F0 0F F0 00 00 01`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("bit", data));
});
