#![no_main]
//! A mutated `.ksy` description (the input up to its first NUL) over the
//! bytes after it.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run_ksy_text(data);
});
