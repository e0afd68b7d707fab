#![no_main]
//! CUDA fatbin wrappers (`__fatBinC_Wrapper_t`): the input behind
//! `B1 43 62 46`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("nvwrap", data));
});
