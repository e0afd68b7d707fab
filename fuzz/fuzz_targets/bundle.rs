#![no_main]
//! Clang offload bundle: the input behind `__CLANG_OFFLOAD_BUNDLE__` (one
//! bundle or several back to back).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("bundle", data));
});
