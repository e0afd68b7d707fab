#![no_main]
//! NPU control code: the first byte picks a transaction (even: the rest
//! behind a version 0.1 or 1.0 header whose op count and size are the
//! rest's) or the rest as it is (odd: an instruction sequence, text or
//! binary, or a transaction with its own header).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("npu", data));
});
