//! Inflating compressed payloads into derived byte spaces, bounded.

use std::io::Read;

/// A compression method LLVM's containers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Zlib,
    Zstd,
}

impl Method {
    /// The name a derived space records.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        }
    }
}

/// Inflates `data` with `method`, reading at most `limit + 1` bytes so
/// that a payload longer than `limit` shows.
pub fn inflate(data: &[u8], method: Method, limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let cap = limit.saturating_add(1);
    let r = match method {
        Method::Zstd => match zstd::stream::read::Decoder::new(data) {
            Ok(d) => d.take(cap).read_to_end(&mut out),
            Err(e) => Err(e),
        },
        Method::Zlib => flate2::read::ZlibDecoder::new(data)
            .take(cap)
            .read_to_end(&mut out),
    };
    match r {
        Ok(_) => Ok(out),
        Err(e) => Err(format!(
            "{} payload does not decompress: {e}",
            method.name()
        )),
    }
}

/// Inflates what a header announces as `announced` bytes, within `limit`
/// (the bound on a derived space): bytes past `announced` are dropped and
/// `over` is set; past `limit`, an error.
pub fn inflate_at_most(
    data: &[u8],
    method: Method,
    announced: u64,
    limit: u64,
    over: &mut bool,
) -> Result<Vec<u8>, String> {
    let cap = announced.min(limit);
    let mut out = inflate(data, method, cap)?;
    if out.len() as u64 > cap {
        if cap < announced {
            return Err(format!(
                "{} makes more than {limit} bytes (the bound on derived bytes); not opened",
                method.name()
            ));
        }
        *over = true;
        out.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
    }
    Ok(out)
}

/// The MD5 digest of `data` (RFC 1321): what clang's compressed offload
/// bundles keep the first 8 bytes of, as a check of the inflated bundle.
pub fn md5(data: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    // K[i] = floor(|sin(i + 1)| * 2^32).
    let k: [u32; 64] =
        std::array::from_fn(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32);
    let mut h: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let bits = (data.len() as u64).wrapping_mul(8);
    let mut tail = Vec::with_capacity(128);
    let whole = data.len() / 64 * 64;
    tail.extend_from_slice(data.get(whole..).unwrap_or(&[]));
    tail.push(0x80);
    while tail.len() % 64 != 56 {
        tail.push(0);
    }
    tail.extend_from_slice(&bits.to_le_bytes());
    let blocks = data
        .get(..whole)
        .unwrap_or(&[])
        .chunks_exact(64)
        .chain(tail.chunks_exact(64));
    for block in blocks {
        let m: [u32; 16] = std::array::from_fn(|i| {
            let w = block.get(i * 4..i * 4 + 4).unwrap_or(&[0; 4]);
            u32::from_le_bytes([
                w.first().copied().unwrap_or(0),
                w.get(1).copied().unwrap_or(0),
                w.get(2).copied().unwrap_or(0),
                w.get(3).copied().unwrap_or(0),
            ])
        });
        let [mut a, mut b, mut c, mut d] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f
                .wrapping_add(a)
                .wrapping_add(k.get(i).copied().unwrap_or(0))
                .wrapping_add(m.get(g).copied().unwrap_or(0));
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S.get(i).copied().unwrap_or(0)));
        }
        let [h0, h1, h2, h3] = h;
        h = [
            h0.wrapping_add(a),
            h1.wrapping_add(b),
            h2.wrapping_add(c),
            h3.wrapping_add(d),
        ];
    }
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(h) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: [u8; 16]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn md5_of_the_rfc_examples() {
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }
}
