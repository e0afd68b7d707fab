//! Survives a mapped file being truncated while it is open. Reading a mapped
//! page past the file's new end raises SIGBUS; the handler maps a zero page
//! over the faulting page instead, so the read returns zeros, and records
//! that this map's file changed.
//!
//! Faults outside our maps, and SIGBUS sent by a process, go to whatever
//! handled SIGBUS before: the previous handler is called as it asked to be
//! (with or without `SA_SIGINFO`); a previous default action or "ignore" is
//! put back and then takes effect, as it would have without us.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

/// How many maps can be protected at once. Each is a file over 16 MiB
/// (smaller files are copied); when every slot is taken, [`register`] says
/// so and the caller copies the file instead.
const SLOTS: usize = 256;
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static LENS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
/// Per slot: a read fell past the end of that map's file.
static CHANGED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
/// Any map's, ever: for a process that shows one file.
static ANY_CHANGED: AtomicBool = AtomicBool::new(false);
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();
/// Our handler is in place (sigaction did not fail).
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The SIGBUS action in place before ours, written once by [`install`]
/// before `PREVIOUS_SET` says it may be read.
struct Previous(UnsafeCell<MaybeUninit<libc::sigaction>>);
// SAFETY: written once, before PREVIOUS_SET is set (Release); read only
// after PREVIOUS_SET is seen (Acquire), never written again.
unsafe impl Sync for Previous {}
static PREVIOUS: Previous = Previous(UnsafeCell::new(MaybeUninit::zeroed()));
static PREVIOUS_SET: AtomicBool = AtomicBool::new(false);

/// A protected map. While it lives, reads past the end of the map's file
/// read zeros; dropping it stops the protection (drop it before the map is
/// unmapped).
#[derive(Debug)]
pub struct Guard {
    slot: usize,
}

impl Guard {
    /// True once a read fell past the end of this map's file, which shrank
    /// while mapped: the bytes there read as zeros.
    pub fn file_changed(&self) -> bool {
        CHANGED[self.slot].load(Ordering::Relaxed)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        LENS[self.slot].store(0, Ordering::SeqCst);
        CHANGED[self.slot].store(false, Ordering::SeqCst);
        STARTS[self.slot].store(0, Ordering::SeqCst);
    }
}

/// True once a read fell past the end of any protected map's file. For
/// callers that show one file and do not hold its [`Guard`]; others ask
/// [`Guard::file_changed`].
pub fn file_changed() -> bool {
    ANY_CHANGED.load(Ordering::Relaxed)
}

/// The slot of the map holding `addr`, if it is one of ours.
fn slot_of(addr: usize) -> Option<usize> {
    (0..SLOTS).find(|&i| {
        let start = STARTS[i].load(Ordering::Relaxed);
        let len = LENS[i].load(Ordering::Relaxed);
        start != 0 && addr >= start && addr - start < len
    })
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let code = unsafe { (*info).si_code };
    // Only a fault (si_code > 0) carries the faulting address; a SIGBUS
    // sent by kill() or sigqueue() is never ours.
    if code > 0 {
        // SAFETY: as above; for a fault, si_addr is the faulting address.
        let addr = unsafe { (*info).si_addr() } as usize;
        if let Some(i) = slot_of(addr) {
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
                CHANGED[i].store(true, Ordering::Relaxed);
                ANY_CHANGED.store(true, Ordering::Relaxed);
                return;
            }
        }
    }
    // SAFETY: info and ctx are the kernel's, passed on unchanged.
    unsafe { chain(sig, info, ctx, code > 0) }
}

/// Hands a SIGBUS that is not ours to the action that was in place before.
///
/// # Safety
/// Only from the SIGBUS handler, with the kernel's `info` and `ctx`.
unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void, fault: bool) {
    let default = {
        // SAFETY: an all-zero sigaction is SIG_DFL with no flags.
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = libc::SIG_DFL;
        sa
    };
    let old: &libc::sigaction = if PREVIOUS_SET.load(Ordering::Acquire) {
        // SAFETY: written by install() before PREVIOUS_SET was set.
        unsafe { (*PREVIOUS.0.get()).assume_init_ref() }
    } else {
        &default
    };
    let h = old.sa_sigaction;
    if h == libc::SIG_IGN && !fault {
        // Sent, and ignored before we came: ignore it.
        return;
    }
    if h == libc::SIG_DFL || h == libc::SIG_IGN {
        // Put the old action back. A fault is retried on return and meets
        // it (for an ignored fault the kernel applies the default action);
        // a sent signal is raised again, pending until this handler returns.
        // SAFETY: sigaction and raise are async-signal-safe.
        unsafe {
            libc::sigaction(sig, old, std::ptr::null_mut());
            if !fault {
                libc::raise(sig);
            }
        }
        return;
    }
    if old.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous action asked for this form of handler.
        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(h) };
        f(sig, info, ctx);
    } else {
        // SAFETY: the previous action is a plain handler.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
        f(sig);
    }
}

fn install() {
    // SAFETY: plain sigaction setup with a handler of the SA_SIGINFO form;
    // the previous action is written into PREVIOUS, which nothing reads
    // until PREVIOUS_SET is set.
    unsafe {
        let p = libc::sysconf(libc::_SC_PAGESIZE);
        if p > 0 {
            PAGE.store(p as usize, Ordering::Relaxed);
        }
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigbus as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        let old = (*PREVIOUS.0.get()).as_mut_ptr();
        if libc::sigaction(libc::SIGBUS, &sa, old) == 0 {
            PREVIOUS_SET.store(true, Ordering::Release);
            INSTALLED.store(true, Ordering::Release);
        }
    }
}

/// Protects the mapping at `start` of `len` bytes until the returned
/// [`Guard`] is dropped. None when no slot is free (or the handler could
/// not be installed): the mapping is then NOT protected and must not be
/// used.
#[must_use]
pub fn register(start: usize, len: usize) -> Option<Guard> {
    INSTALL.call_once(install);
    if !INSTALLED.load(Ordering::Acquire) || start == 0 || len == 0 {
        return None;
    }
    for slot in 0..SLOTS {
        if STARTS[slot]
            .compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            CHANGED[slot].store(false, Ordering::SeqCst);
            LENS[slot].store(len, Ordering::SeqCst);
            return Some(Guard { slot });
        }
    }
    None
}
