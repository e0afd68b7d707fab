//! Survives a mapped file being truncated while it is open. Reading a mapped
//! page past the file's new end raises SIGBUS; the handler maps a zero page
//! over the faulting page instead, so the read returns zeros, and records
//! that the file changed. Faults outside our maps keep the default action.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

/// How many maps can be protected at once. Each is a file over 16 MiB
/// (smaller files are copied); when every slot is taken, [`register`] says
/// so and the caller copies the file instead.
const SLOTS: usize = 256;
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static LENS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static CHANGED: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// True once a read fell past the end of a file that shrank while mapped.
pub fn file_changed() -> bool {
    CHANGED.load(Ordering::Relaxed)
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    for i in 0..SLOTS {
        let start = STARTS[i].load(Ordering::Relaxed);
        let len = LENS[i].load(Ordering::Relaxed);
        if start != 0 && addr >= start && addr < start + len {
            let page = PAGE.load(Ordering::Relaxed);
            let at = addr & !(page - 1);
            // SAFETY: the page lies inside a mapping we own; replacing it
            // with an anonymous read-only zero page is what we want. mmap is
            // async-signal-safe.
            let r = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if r != libc::MAP_FAILED {
                CHANGED.store(true, Ordering::Relaxed);
                return;
            }
        }
    }
    // Not ours: fall back to the default action, which the retried access
    // then triggers.
    // SAFETY: resetting a signal's disposition is async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

fn install() {
    // SAFETY: plain sigaction setup with a handler of the SA_SIGINFO form.
    unsafe {
        let p = libc::sysconf(libc::_SC_PAGESIZE);
        if p > 0 {
            PAGE.store(p as usize, Ordering::Relaxed);
        }
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigbus as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
    }
}

/// Protects the mapping at `start` of `len` bytes. Returns false when no
/// slot is free: the mapping is then NOT protected and must not be used.
#[must_use]
pub fn register(start: usize, len: usize) -> bool {
    INSTALL.call_once(install);
    for i in 0..SLOTS {
        if STARTS[i]
            .compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            LENS[i].store(len, Ordering::SeqCst);
            return true;
        }
    }
    false
}

/// Stops protecting the mapping at `start` (it is being unmapped).
pub fn unregister(start: usize) {
    for i in 0..SLOTS {
        if STARTS[i].load(Ordering::SeqCst) == start {
            LENS[i].store(0, Ordering::SeqCst);
            STARTS[i].store(0, Ordering::SeqCst);
        }
    }
}
