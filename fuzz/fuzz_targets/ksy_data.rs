#![no_main]
//! A gallery `.ksy` description (chosen by the first byte) over the rest of
//! the input: mutated samples.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let (k, rest) = fwview_fuzz::ksy_pick(data);
    fwview_fuzz::run_ksy(&fwview_fuzz::ksy_dir().join(k), rest.to_vec());
});
