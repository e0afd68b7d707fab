//! Where the bytes come from: a read-only memory map of the file, or an
//! in-memory copy for small files and for data built in tests.

use std::io::Read;
use std::path::Path;

/// Files up to this size are copied into memory instead of being mapped:
/// a copy cannot be pulled from under us if the file is truncated while
/// open, and reading a few MiB costs less than a page fault per page.
pub const COPY_LIMIT: u64 = 16 * 1024 * 1024;

/// Files up to this size are copied by [`Source::open_for_scan`].
pub const SCAN_COPY_LIMIT: u64 = 64 * 1024;

/// The block the kernel maps around one read of a map (its default
/// fault-around, 16 pages of 4 KiB): what [`Pager`] counts a read as.
pub const READ_BLOCK: u64 = 64 * 1024;

/// The most bytes read from standard input or a pipe, which cannot be
/// mapped: they are read into memory.
pub const STREAM_LIMIT: u64 = 2 << 30;

enum Inner {
    Map(memmap2::Mmap),
    Mem(Vec<u8>),
}

/// The bytes of one file, never written.
pub struct Source {
    inner: Inner,
    /// Protects a map from the file shrinking under it.
    #[cfg(unix)]
    guard: Option<crate::guard::Guard>,
}

impl Source {
    /// Opens a file: a regular file only. Directories, FIFOs, sockets and
    /// devices are refused with an error naming what the path is.
    pub fn open(path: &Path) -> std::io::Result<Source> {
        Source::open_copying(path, COPY_LIMIT)
    }

    /// Opens a file as [`Source::open`] does, mapping it when it is over
    /// 64 KiB (`SCAN_COPY_LIMIT`): for a scan that reads a few pages of each file
    /// (its headers, where nested formats start), which a copy would read
    /// whole.
    pub fn open_for_scan(path: &Path) -> std::io::Result<Source> {
        Source::open_copying(path, SCAN_COPY_LIMIT)
    }

    fn open_copying(path: &Path, copy_limit: u64) -> std::io::Result<Source> {
        use std::io::{Error, ErrorKind};
        let meta = std::fs::metadata(path)?;
        let ft = meta.file_type();
        if ft.is_dir() {
            return Err(Error::new(ErrorKind::InvalidInput, "is a directory"));
        }
        if !ft.is_file() {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                let what = if ft.is_fifo() {
                    "is a FIFO"
                } else if ft.is_char_device() {
                    "is a character device"
                } else if ft.is_block_device() {
                    "is a block device"
                } else if ft.is_socket() {
                    "is a socket"
                } else {
                    "is not a regular file"
                };
                return Err(Error::new(ErrorKind::InvalidInput, what));
            }
            #[cfg(not(unix))]
            return Err(Error::new(ErrorKind::InvalidInput, "is not a regular file"));
        }
        // Without blocking: should the path become a FIFO after the look
        // above, opening it must not wait for a writer.
        #[cfg(unix)]
        let mut file = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)?
        };
        #[cfg(not(unix))]
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(Source::from_vec(Vec::new()));
        }
        if len <= copy_limit {
            let mut buf = Vec::with_capacity(len as usize);
            file.read_to_end(&mut buf)?;
            return Ok(Source::from_vec(buf));
        }
        // SAFETY: the map is read-only. If another process truncates the
        // file while it is mapped, reading past the new end raises SIGBUS;
        // `crate::guard` turns that into zero pages instead of a crash.
        let map = unsafe { memmap2::MmapOptions::new().map(&file)? };
        #[cfg(unix)]
        let guard = {
            let _ = map.advise(memmap2::Advice::Random);
            let guard = crate::guard::register(map.as_ptr() as usize, map.len());
            if guard.is_none() {
                // Every guard slot is taken: an unprotected map could kill
                // the process, so read the file instead.
                drop(map);
                let mut buf = Vec::new();
                buf.try_reserve_exact(len as usize)
                    .map_err(|e| std::io::Error::new(ErrorKind::OutOfMemory, e))?;
                file.read_to_end(&mut buf)?;
                return Ok(Source::from_vec(buf));
            }
            guard
        };
        Ok(Source {
            inner: Inner::Map(map),
            #[cfg(unix)]
            guard,
        })
    }

    /// Opens what a user names as the file to read: `-` is standard input
    /// and a FIFO (a pipe, a shell's `<(…)`) is read whole into memory, at
    /// most `STREAM_LIMIT` (2 GiB) bytes; anything else as [`Source::open`].
    pub fn open_named(path: &Path) -> std::io::Result<Source> {
        if path.as_os_str() == "-" {
            return Source::read_stream(std::io::stdin().lock(), STREAM_LIMIT);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
                return Source::read_fifo(path);
            }
        }
        Source::open(path)
    }

    /// Reads a FIFO whole. It is opened without waiting for a writer, then
    /// read with waits: a pipe with a writer (a shell's `<(…)`) gives its
    /// bytes, one nobody has open for writing gives nothing at once, which
    /// is an error rather than an empty file.
    #[cfg(unix)]
    fn read_fifo(path: &Path) -> std::io::Result<Source> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        let fd = f.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        let s = Source::read_stream(f, STREAM_LIMIT)?;
        if s.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "is a FIFO with nothing written to it",
            ));
        }
        Ok(s)
    }

    /// Reads a stream to its end into memory; more than `limit` bytes is
    /// an error that says to save them to a file.
    pub fn read_stream(r: impl Read, limit: u64) -> std::io::Result<Source> {
        let mut buf = Vec::new();
        r.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
        if buf.len() as u64 > limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!(
                    "more than {limit} bytes from a pipe, the most fwview reads into memory: save them to a file and open that"
                ),
            ));
        }
        Ok(Source::from_vec(buf))
    }

    /// Wraps bytes already in memory.
    pub fn from_vec(v: Vec<u8>) -> Source {
        Source {
            inner: Inner::Mem(v),
            #[cfg(unix)]
            guard: None,
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.inner {
            Inner::Map(m) => m,
            Inner::Mem(v) => v,
        }
    }

    pub fn len(&self) -> u64 {
        self.bytes().len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    /// True when the bytes are a memory map rather than a copy.
    pub fn is_mapped(&self) -> bool {
        matches!(self.inner, Inner::Map(_))
    }

    /// Gives back the pages of the map that reads brought into the
    /// process: they stop counting in its memory, and a later read finds
    /// the same bytes again in the page cache. Nothing for a copy, which is
    /// the process's own memory.
    pub fn release(&self) {
        #[cfg(unix)]
        if let Inner::Map(m) = &self.inner {
            // SAFETY: the map is shared, read-only and never written
            // through, so MADV_DONTNEED only drops this process's page
            // table entries: the next read of a page maps it again from the
            // page cache, with the file's bytes as before (as for any read
            // of a map, a file changed by another process shows its new
            // bytes, which the guard and the change check already report).
            // No reference into the map is invalidated: the addresses stay
            // mapped for the life of `self`.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// True when the file shrank while mapped and a read fell past its new
    /// end: the bytes there read as zeros. Always false for a copy.
    pub fn file_changed(&self) -> bool {
        #[cfg(unix)]
        return self.guard.as_ref().is_some_and(|g| g.file_changed());
        #[cfg(not(unix))]
        false
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        // Stop protecting the map before it is unmapped.
        #[cfg(unix)]
        drop(self.guard.take());
    }
}

/// Hands back to the system, as a scan goes, the pages of a mapped file
/// that its reads brought in ([`Source::release`]). A scan for nested
/// formats reads a few places of each image it finds (headers, notes,
/// tables at the image's end, the compressed bytes it inflates); the kernel
/// maps a whole block around each read, so a file of many images would
/// otherwise hold a block or more of each for as long as it is open:
/// hundreds of MiB for a fat binary of a thousand code objects. Parsers and
/// walks report what they are done with; once the reports add up to
/// [`Pager::STEP`] bytes, every page of the map is given back at once. Not
/// only the reported ranges: a read that no report covers (a header looked
/// at to find the next container, a pointer's target checked) would
/// otherwise stay. A page still in use is mapped again from the page cache
/// at its next read, for the cost of a minor fault.
pub(crate) struct Pager {
    src: std::sync::Arc<Source>,
    /// Bytes of the blocks reported since the last release.
    done: u64,
}

impl Pager {
    /// How many bytes reported done give back the map's pages: big enough
    /// that the system calls are few, small enough that what is held
    /// between them is a small part of memory.
    pub const STEP: u64 = 4 << 20;

    /// A pager for `src`, when it is a map (a copy has nothing to give).
    pub fn new(src: &std::sync::Arc<Source>) -> Option<Pager> {
        src.is_mapped().then(|| Pager {
            src: src.clone(),
            done: 0,
        })
    }

    /// `[off, off+len)` of the file has been read and will not be read
    /// again soon. It counts as the blocks the kernel maps around reads of
    /// it: even one byte brings in a block ([`READ_BLOCK`]).
    pub fn done(&mut self, off: u64, len: u64) {
        let first = off / READ_BLOCK;
        let last = off.saturating_add(len.max(1) - 1) / READ_BLOCK;
        let blocks = last - first + 1;
        self.done = self.done.saturating_add(blocks.saturating_mul(READ_BLOCK));
        if self.done >= Pager::STEP {
            self.src.release();
            self.done = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream is read to its end; past the limit it is an error that
    /// says what to do, not a partial file.
    #[test]
    fn streams_are_read_whole_up_to_the_limit() {
        let s = Source::read_stream(&b"0123456789"[..], 10).unwrap();
        assert_eq!(s.bytes(), b"0123456789");
        let e = Source::read_stream(&b"0123456789!"[..], 10).err().unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("save them to a file"), "{e}");
    }
}
