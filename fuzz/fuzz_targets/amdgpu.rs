#![no_main]
//! AMDGPU code object: an ELF whose e_machine says EM_AMDGPU (224), so that
//! the AMDGPU vendor decodes its metadata notes and kernel descriptors.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fwview_fuzz::run(fwview_fuzz::shape("amdgpu", data));
});
