//! What every fuzz target does: shape the input so that detection picks the
//! target's format, build the tree, walk all of it, and check what must hold
//! for any input.
//!
//! - no panic (libFuzzer reports it as a crash), no hang (`-timeout`), no
//!   huge allocation (`-malloc_limit_mb`, `-rss_limit_mb`);
//! - the JSON export succeeds, stays within a bound proportional to the
//!   input, and carries no byte that could act on a terminal.
//!
//! That every child lies inside its parent is the model's own rule
//! (`Builder::add` cuts ranges); `tests/hostile.rs` checks it in the JSON.

use fwview::formats;
use fwview::model::text::terminal_unsafe_at;

mod shape;
pub use shape::{code_tree, decode, ksy_pick, shape, KSY, TARGETS};

/// The JSON one input may produce: a tree shows each byte a bounded number
/// of times. Far above what real files give (under 10 times their size),
/// far below what tables that all claim the same bytes would (quadratic).
/// The same bound as `tests/hostile.rs`.
pub fn out_limit(len: usize) -> usize {
    (64 << 20) + 256 * len
}

/// Takes the JSON as it is written without keeping it: counts it against
/// the bound and looks for terminal-unsafe bytes. The last bytes of each
/// write are kept, so that a sequence split over two writes is seen.
struct Check {
    written: usize,
    cap: usize,
    /// The last (up to) two bytes written.
    tail: [u8; 2],
    tail_len: usize,
}

impl Check {
    fn unsafe_at(&self, w: &[u8], i: usize) -> ! {
        let from = i.saturating_sub(40);
        panic!(
            "the JSON carries a terminal-unsafe byte: {:?}",
            String::from_utf8_lossy(&w[from..(i + 40).min(w.len())])
        );
    }
}

impl std::io::Write for Check {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.written += b.len();
        assert!(
            self.written <= self.cap,
            "output amplification: the JSON passed {} MiB",
            self.cap >> 20
        );
        // Sequences (of at most three bytes) that start in the kept tail.
        let t = self.tail_len;
        let mut seam = [0u8; 4];
        seam[..t].copy_from_slice(&self.tail[..t]);
        let n = b.len().min(2);
        seam[t..t + n].copy_from_slice(&b[..n]);
        if let Some(i) = terminal_unsafe_at(&seam[..t + n]).filter(|&i| i < t) {
            self.unsafe_at(&seam[..t + n], i);
        }
        // Sequences that start in this write (one cut short at its end is
        // seen by the next write's seam).
        if let Some(i) = terminal_unsafe_at(b) {
            self.unsafe_at(b, i);
        }
        let all = &seam[..t + n];
        let keep: &[u8] = if b.len() >= 2 {
            &b[b.len() - 2..]
        } else {
            &all[all.len().saturating_sub(2)..]
        };
        self.tail[..keep.len()].copy_from_slice(keep);
        self.tail_len = keep.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Builds the tree of `bytes` and writes all of it as JSON (the walk builds
/// every lazy node and releases it after), checking what is written.
pub fn run(bytes: Vec<u8>) {
    let len = bytes.len();
    check(formats::build_from_bytes(bytes), len);
}

/// As [`run`], with machine code decoded into instructions (`--code`): the
/// engines (libLLVM, IGA) are untrusted too.
pub fn run_code(bytes: Vec<u8>) {
    let len = bytes.len();
    check(code_tree(bytes), len);
}

/// Writes all of `tree` as JSON, checking what is written.
/// Where the gallery's descriptions are.
pub fn ksy_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/ksy")
}

/// `bytes` read with the description at `spec` (its tree, as `K` reads a
/// node), exported as JSON with the checks of [`run`]. A description that
/// does not load is no failure.
pub fn run_ksy(spec: &std::path::Path, bytes: Vec<u8>) {
    let len = bytes.len();
    check(shape::ksy_tree(spec, bytes), len);
}

/// A description's text and data from one input: the text up to the
/// first NUL (the rest is the data), read as `run_ksy` reads.
pub fn run_ksy_text(input: &[u8]) {
    let Ok(dir) = tempfile_dir() else {
        return;
    };
    if let Some((tree, len)) = shape::ksy_text_tree(&dir.join("input.ksy"), input) {
        check(tree, len);
    }
}

/// A folder of this process for the descriptions it writes.
fn tempfile_dir() -> std::io::Result<std::path::PathBuf> {
    let d = std::env::temp_dir().join(format!("fwview-fuzz-ksy-{}", std::process::id()));
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn check(mut tree: fwview::model::Tree, len: usize) {
    let mut out = Check {
        written: 0,
        cap: out_limit(len),
        tail: [0; 2],
        tail_len: 0,
    };
    fwview::export::json(&mut tree, "input", &mut out).expect("JSON export");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ksy_targets_read_gallery_descriptions_and_mutated_ones() {
        for k in super::KSY {
            let spec = super::ksy_dir().join(k);
            assert!(spec.is_file(), "{k}");
            super::run_ksy(&spec, b"\x7fELF\x02\x01\x01PK\x03\x04\x89PNG".to_vec());
        }
        super::run_ksy_text(
            b"meta: {id: x, endian: le}\nseq:\n  - {id: a, type: u2, repeat: eos}\n\0abcdef",
        );
        super::run_ksy_text(b"meta: {id: x\nseq: [[[\0");
    }

    use super::*;
    use std::io::Write;

    /// Every target of the `disasm` fuzz target decodes a few kilobytes of
    /// arbitrary bytes within its contract (refused ones decode nothing).
    #[test]
    fn every_disasm_target_holds_its_contract() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut bytes = vec![0u8; 4096];
        for b in &mut bytes {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        for pick in 0..TARGETS.len() as u8 {
            // LLVM 22's AMDGPU decoder crashes on these bytes for gfx90a
            // (see `llvm_22_amdgpu_decoder_crashes`).
            if TARGETS[usize::from(pick)].1 == "gfx90a" {
                continue;
            }
            bytes[0] = pick;
            decode(&bytes);
        }
    }

    /// What the `disasm` target found: LLVM 22's AMDGPU decoder ends the
    /// process (SIGSEGV, while printing) on this 8-byte MUBUF encoding for
    /// gfx90a and gfx942; `llvm-mc-22 --disassemble` does the same. The
    /// fuzz targets decode in their own process, as the library does, so
    /// this still ends the test: ignored until LLVM is fixed
    /// (`cargo test --lib -- --ignored` shows it). fwview itself decodes in
    /// a worker process and shows the bytes as one unknown instruction with
    /// a warning (`it::disasm::a_decoder_that_crashes_costs_one_instruction`).
    #[test]
    #[ignore]
    fn llvm_22_amdgpu_decoder_crashes() {
        decode(&[6, 0xce, 0xf1, 0xa4, 0xe3, 0x10, 0x4c, 0xe0, 0xff]);
    }

    #[test]
    fn a_sequence_split_over_writes_is_seen() {
        let unsafe_seqs: [&[u8]; 4] = [b"\x1b", b"\xc2\x9b", b"\xe2\x80\xae", b"\xd8\x9c"];
        for seq in unsafe_seqs {
            let mut text = b"{\"name\": \"0123456789".to_vec();
            text.extend_from_slice(seq);
            text.extend_from_slice(b"abcdef\"}\n");
            for cut in 0..=text.len() {
                for cut2 in cut..=text.len() {
                    let r = std::panic::catch_unwind(|| {
                        let mut c = Check {
                            written: 0,
                            cap: 1 << 20,
                            tail: [0; 2],
                            tail_len: 0,
                        };
                        for part in [&text[..cut], &text[cut..cut2], &text[cut2..]] {
                            let _ = c.write(part);
                        }
                    });
                    assert!(r.is_err(), "{seq:x?} cut at {cut} and {cut2} was missed");
                }
            }
        }
        let mut c = Check {
            written: 0,
            cap: 1 << 20,
            tail: [0; 2],
            tail_len: 0,
        };
        for part in [&b"{\"a\": \"\xc3"[..], b"\xa9\xe2\x82", b"\xac\"}\n"] {
            assert!(c.write(part).is_ok());
        }
    }
}
