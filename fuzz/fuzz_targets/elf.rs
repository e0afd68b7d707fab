#![no_main]
//! ELF (not zebin): the input behind `\x7fELF`, e_machine 205 changed to 62.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("elf", data));
});
