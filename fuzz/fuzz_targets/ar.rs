#![no_main]
//! Unix ar archive: the input behind `!<arch>\n`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("ar", data));
});
