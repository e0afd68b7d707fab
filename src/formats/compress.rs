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
