#![no_main]
//! A gallery `.ksy` description (chosen by the first byte) over the rest of
//! the input: mutated samples.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let k = fwview_fuzz::KSY[usize::from(pick) % fwview_fuzz::KSY.len()];
    fwview_fuzz::run_ksy(&fwview_fuzz::ksy_dir().join(k), rest.to_vec());
});
