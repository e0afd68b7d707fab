#![no_main]
//! AMDGPU code object: an ELF whose e_machine says EM_AMDGPU (224), so that
//! the AMDGPU vendor decodes its metadata notes and kernel descriptors.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut v = fwview_fuzz::with_magic(data, b"\x7fELF");
    if v.len() < 20 {
        v.resize(20, 0);
    }
    let m: [u8; 2] = if v.get(5) == Some(&2) {
        [0, 224]
    } else {
        [224, 0]
    };
    if let Some(f) = v.get_mut(18..20) {
        f.copy_from_slice(&m);
    }
    fwview_fuzz::run(v);
});
