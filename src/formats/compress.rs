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

/// Inflates `data` with `method`, reading at most one byte more than `limit` so
/// that a payload longer than `limit` shows.
pub fn inflate(data: &[u8], method: Method, limit: u64) -> Result<Vec<u8>, String> {
    inflate_io(data, method, limit)
        .map_err(|e| format!("{} payload does not decompress: {e}", method.name()))
}

/// [`inflate`], with the decoder's own error, for callers that say it in
/// their words.
pub fn inflate_io(data: &[u8], method: Method, limit: u64) -> std::io::Result<Vec<u8>> {
    let cap = limit.saturating_add(1);
    if method == Method::Zstd {
        if let Some(out) = zstd_in_one(data, cap) {
            return Ok(out);
        }
    }
    let mut out = Vec::new();
    match method {
        Method::Zstd => zstd::stream::read::Decoder::new(data)?
            .take(cap)
            .read_to_end(&mut out)?,
        Method::Zlib => flate2::read::ZlibDecoder::new(data)
            .take(cap)
            .read_to_end(&mut out)?,
    };
    Ok(out)
}

/// zstd data whose frame says its size, that size at most `cap`,
/// inflated in one call into a buffer of that size, by a decoder kept for
/// the thread: faster than the stream (no copies through its window, no
/// regrowing, no decoder made per call). None where the size is not said
/// or the bytes do not inflate to exactly it (several frames, damage): the
/// stream then reads them as before.
fn zstd_in_one(data: &[u8], cap: u64) -> Option<Vec<u8>> {
    use std::cell::RefCell;
    thread_local! {
        static DECODER: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { RefCell::new(None) };
    }
    let size = zstd::zstd_safe::get_frame_content_size(data).ok()??;
    if size == 0 || size > cap {
        return None;
    }
    let mut out = Vec::with_capacity(usize::try_from(size).ok()?);
    DECODER.with(|d| {
        let mut d = d.try_borrow_mut().ok()?;
        if d.is_none() {
            *d = zstd::bulk::Decompressor::new().ok();
        }
        let n = d.as_mut()?.decompress_to_buffer(data, &mut out).ok()?;
        (n as u64 == size).then_some(())
    })?;
    Some(out)
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
