//! Whole-file scans of bytes, for the explorer's overviews: the strings a
//! file holds (as `strings -a -n 4` finds them) and how much each block of
//! it looks like text, zeros or compressed data (its Shannon entropy).
//! Both look at each byte once and keep memory bounded.

use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes `strings` counts as text: printable ASCII and the tab.
#[inline]
fn printable(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) || b == b'\t'
}

/// How often a scan looks at its cancel flag and reports progress.
const STEP: usize = 1 << 22;

/// The runs of at least `min` printable bytes in `data`, as (offset,
/// length), at most `limit` of them; with them, whether the scan went to
/// the end (not cancelled, not cut at `limit`). `progress` hears how many
/// bytes were looked at.
pub fn strings(
    data: &[u8],
    min: usize,
    limit: usize,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Vec<(u64, u32)>, bool) {
    let min = min.max(1);
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (ci, chunk) in data.chunks(STEP).enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return (out, false);
        }
        let base = ci * STEP;
        for (i, &b) in chunk.iter().enumerate() {
            if printable(b) {
                start.get_or_insert(base + i);
                continue;
            }
            if let Some(s) = start.take() {
                let n = base + i - s;
                if n >= min {
                    if out.len() >= limit {
                        return (out, false);
                    }
                    out.push((s as u64, u32::try_from(n).unwrap_or(u32::MAX)));
                }
            }
        }
        progress((base + chunk.len()) as u64);
    }
    if let Some(s) = start {
        let n = data.len() - s;
        if n >= min {
            if out.len() >= limit {
                return (out, false);
            }
            out.push((s as u64, u32::try_from(n).unwrap_or(u32::MAX)));
        }
    }
    (out, true)
}

/// What a block of bytes is like.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    pub offset: u64,
    pub size: u64,
    /// Shannon entropy in bits a byte, 0 to 8.
    pub entropy: f32,
    /// The share of zero bytes, 0 to 1.
    pub zeros: f32,
    /// The share of printable bytes, 0 to 1.
    pub text: f32,
}

/// What a block looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// All (or all but one in a thousand) zero bytes.
    Zeros,
    /// Nine in ten bytes printable or line ends.
    Text,
    /// Close to 8 bits a byte: compressed or encrypted.
    Random,
    /// Half or more zero bytes.
    MostlyZeros,
    Other,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Zeros => "zeros",
            Kind::Text => "text",
            Kind::Random => "compressed or encrypted",
            Kind::MostlyZeros => "mostly zeros",
            Kind::Other => "",
        }
    }
}

impl Block {
    /// What the block looks like.
    pub fn kind(&self) -> Kind {
        if self.zeros >= 0.999 {
            Kind::Zeros
        } else if self.text >= 0.9 {
            Kind::Text
        } else if self.entropy >= 7.5 {
            Kind::Random
        } else if self.zeros >= 0.5 {
            Kind::MostlyZeros
        } else {
            Kind::Other
        }
    }
}

/// The smallest block measured.
pub const MIN_BLOCK: usize = 4096;

/// The file cut into at most `blocks` blocks of equal size (a multiple of
/// 256 bytes, at least [`MIN_BLOCK`]), each measured; None when cancelled.
pub fn blocks(data: &[u8], blocks: usize, cancel: &AtomicBool) -> Option<Vec<Block>> {
    let len = data.len();
    if len == 0 {
        return Some(Vec::new());
    }
    let per = len
        .div_ceil(blocks.max(1))
        .next_multiple_of(256)
        .max(MIN_BLOCK);
    let mut out = Vec::with_capacity(len.div_ceil(per));
    for (i, b) in data.chunks(per).enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let mut hist = [0u64; 256];
        for &x in b {
            hist[x as usize] += 1;
        }
        let n = b.len() as f64;
        let entropy: f64 = hist
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.log2()
            })
            .sum();
        let text: u64 = (0u8..=255)
            .filter(|&x| printable(x) || x == b'\n' || x == b'\r')
            .map(|x| hist[x as usize])
            .sum();
        out.push(Block {
            offset: (i * per) as u64,
            size: b.len() as u64,
            // A block of one byte value sums to -0.
            entropy: (entropy as f32).max(0.0).abs(),
            zeros: (hist[0] as f64 / n) as f32,
            text: (text as f64 / n) as f32,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_runs_of_printable_bytes() {
        let d = b"\0abc\0abcd\tef\x01xyz12\x7fQRST";
        let never = AtomicBool::new(false);
        let (s, done) = strings(d, 4, 100, &never, &mut |_| {});
        assert!(done);
        assert_eq!(s, vec![(5, 7), (13, 5), (19, 4)]);
        // Cut at the limit: said.
        let (s, done) = strings(d, 4, 2, &never, &mut |_| {});
        assert_eq!((s.len(), done), (2, false));
    }

    #[test]
    fn blocks_measure_entropy_zeros_and_text() {
        let mut d = vec![0u8; MIN_BLOCK];
        d.extend((0..4096u32).map(|i| i as u8));
        d.extend(std::iter::repeat_n(b'a', 4096));
        let never = AtomicBool::new(false);
        let b = blocks(&d, 3, &never).unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!((b[0].entropy, b[0].kind()), (0.0, Kind::Zeros));
        assert!((b[1].entropy - 8.0).abs() < 1e-6, "{}", b[1].entropy);
        assert_eq!(b[1].kind(), Kind::Random);
        assert_eq!(b[2].kind(), Kind::Text);
    }
}
