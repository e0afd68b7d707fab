//! Runs one case on a thread of its own, so that a panic is caught and a
//! hang is seen (the waiting side gives up after a while; the stuck thread
//! is left behind and dies with the test process).

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Once};
use std::thread;
use std::time::{Duration, Instant};

/// The stack a case gets: what fwview's main thread has (8 MiB), so that a
/// recursion the binary could not survive fails here too. Unoptimised
/// builds use far bigger frames and get more.
pub const STACK: usize = if cfg!(debug_assertions) { 64 } else { 8 } << 20;

/// Threads whose names start with this report panics to their case, not
/// to stderr.
const PREFIX: &str = "case ";

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps quiet for case threads and
/// remembers their message; other threads get the default report.
pub fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let prev = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let ours = thread::current()
                .name()
                .is_some_and(|n| n.starts_with(PREFIX));
            if ours {
                let msg = info.to_string();
                PANIC.with(|p| *p.borrow_mut() = Some(msg));
            } else {
                prev(info);
            }
        }));
    });
}

fn payload_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

#[derive(Debug)]
pub enum Failure {
    /// The case panicked: the message with its location.
    Panic(String),
    /// No result after this long.
    Hang(Duration),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Panic(m) => write!(f, "panic: {}", m.replace('\n', " ")),
            Failure::Hang(d) => write!(f, "no result after {:.1} s: hangs", d.as_secs_f64()),
        }
    }
}

/// Runs `f` on a new thread named after `label`; returns its value and the
/// time it took, or how it failed.
pub fn run<T: Send + 'static>(
    label: &str,
    hang_after: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<(T, Duration), Failure> {
    quiet_panics();
    let (tx, rx) = mpsc::channel();
    let name: String = format!("{PREFIX}{label}")
        .chars()
        .filter(|&c| c != '\0')
        .collect();
    thread::Builder::new()
        .name(name)
        .stack_size(STACK)
        .spawn(move || {
            let t0 = Instant::now();
            let r = panic::catch_unwind(AssertUnwindSafe(f));
            let took = t0.elapsed();
            let r = r.map_err(|p| {
                PANIC
                    .with(|m| m.borrow_mut().take())
                    .unwrap_or_else(|| payload_text(p.as_ref()))
            });
            let _ = tx.send((r, took));
        })
        .expect("a thread for the case");
    match rx.recv_timeout(hang_after) {
        Ok((Ok(v), took)) => Ok((v, took)),
        Ok((Err(m), _)) => Err(Failure::Panic(m)),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Failure::Hang(hang_after)),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(Failure::Panic("the case thread died".into()))
        }
    }
}
