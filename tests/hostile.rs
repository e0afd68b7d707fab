//! Hostile input: every sample, mutated in hundreds of deterministic ways,
//! must build its whole tree and JSON document without a panic, within a
//! time bound, within a memory bound, and keep the JSON contract. Crafted
//! files test the depth limits, self-reference and absurd counts; every
//! crash a fuzzer finds goes to `tests/data/hostile/` and runs here.
//!
//! Knobs (environment):
//! - `FWVIEW_HOSTILE=full`: run every mutation of every file (slow).
//! - `FWVIEW_HOSTILE_SCALE=N`: N times the default budget of bytes per file.
//! - `FWVIEW_HOSTILE_ONLY=substring`: only the files whose name holds it.
//!
//! A failing input is written to `<target>/tmp/hostile/` for replay with
//! `fwview --json`.

mod common;

use fwview::model::Format;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::build::{self, Sec, XHdr};
use common::{contract, runner};

// ---------------------------------------------------------------------------
// Memory: each case runs on a thread of its own, so a per-thread count of
// live bytes measures what the case allocated. One request above HUGE is a
// count from the file used as a size: it is refused (the process aborts),
// after saying which case asked.

const HUGE: usize = 4 << 30;

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LABEL: Cell<[u8; 160]> = const { Cell::new([0; 160]) };
}

fn note(delta: isize) {
    let _ = LIVE.try_with(|l| {
        let v = l.get() + delta;
        l.set(v);
        let _ = PEAK.try_with(|p| {
            if v > p.get() {
                p.set(v)
            }
        });
    });
}

fn refuse(size: usize) {
    let mut msg = [0u8; 256];
    let head = b"hostile: refusing an allocation of ";
    let mut n = 0;
    for &b in head {
        msg[n] = b;
        n += 1;
    }
    let mut digits = [0u8; 20];
    let mut d = 0;
    let mut s = size;
    loop {
        digits[d] = b'0' + (s % 10) as u8;
        d += 1;
        s /= 10;
        if s == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        msg[n] = digits[d];
        n += 1;
    }
    for &b in b" bytes in case: " {
        msg[n] = b;
        n += 1;
    }
    let label = LABEL.try_with(|l| l.get()).unwrap_or([0; 160]);
    for &b in label.iter().take_while(|&&b| b != 0) {
        if n < msg.len() - 1 {
            msg[n] = b;
            n += 1;
        }
    }
    msg[n] = b'\n';
    n += 1;
    // SAFETY: writing a buffer we own to stderr; no allocation here.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), n);
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged, except
// that requests above HUGE get a null pointer (an allowed answer).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.size() > HUGE {
            refuse(l.size());
            return std::ptr::null_mut();
        }
        note(l.size() as isize);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if l.size() > HUGE {
            refuse(l.size());
            return std::ptr::null_mut();
        }
        note(l.size() as isize);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        note(-(l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > HUGE {
            refuse(new);
            return std::ptr::null_mut();
        }
        note(new as isize - l.size() as isize);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Names the case running on this thread, for the message of `refuse`.
fn set_label(s: &str) {
    let mut b = [0u8; 160];
    for (d, s) in b.iter_mut().take(159).zip(s.bytes()) {
        *d = s;
    }
    LABEL.with(|l| l.set(b));
}

fn peak() -> usize {
    PEAK.with(|p| p.get()).max(0) as usize
}

// ---------------------------------------------------------------------------
// Limits.

/// The time one case may take (tree build + JSON), with margin for a busy
/// machine. Unoptimised builds are some 20 times slower.
const BOUND: Duration = Duration::from_secs(if cfg!(debug_assertions) { 40 } else { 2 });

/// When to stop waiting for a case and call it a hang.
const HANG: Duration = Duration::from_secs(if cfg!(debug_assertions) { 120 } else { 20 });

/// The memory one case may hold at its peak: far above what a real file
/// needs, far below what a count from the file used as a size would take.
fn mem_limit(len: usize) -> usize {
    (256 << 20) + 256 * len
}

/// The JSON one file may produce: a tree shows each byte a bounded number
/// of times. Far above what real files give (under 10 times their size),
/// far below what tables that all claim the same bytes would (quadratic).
fn out_limit(len: usize) -> usize {
    (64 << 20) + 256 * len
}

/// A writer into memory that fails past its cap.
struct Capped {
    buf: Vec<u8>,
    cap: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + b.len() > self.cap {
            return Err(std::io::Error::other(format!(
                "the output passed {} MiB",
                self.cap >> 20
            )));
        }
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// One case.

struct Outcome {
    took: Duration,
    peak: usize,
    stats: contract::Stats,
}

/// Builds the tree of `bytes` and its JSON on a thread of its own, then
/// checks everything the issue asks of any input.
fn run_case(label: &str, bytes: Vec<u8>) -> Result<Outcome, String> {
    run_built(label, bytes, fwview::formats::build_from_bytes)
}

/// [`run_case`] with the tree built by `build` (a parser run on its own,
/// as a fuzz target that does not take whole files runs it).
fn run_built(
    label: &str,
    bytes: Vec<u8>,
    build: fn(Vec<u8>) -> fwview::model::Tree,
) -> Result<Outcome, String> {
    run_built_as(label, bytes, build, contract::check)
}

/// The JSON of a tree read with a `.ksy` description, checked as far as
/// the contract holds for it: safe for a terminal and well formed. Its
/// instances read elsewhere (`pos`) lie outside their object by design
/// (docs/ksy.md), which the contract's nesting rule forbids, and its tree
/// is of the data after the fuzz input's first byte or description.
fn ksy_contract(json: &[u8], _: u64) -> Result<contract::Stats, String> {
    contract::safe_for_terminal(json)?;
    let mut de = serde_json::Deserializer::from_slice(json);
    de.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut de)
        .and_then(|serde::de::IgnoredAny| de.end())
        .map_err(|e| format!("the JSON does not parse: {e}"))?;
    Ok(contract::Stats::default())
}

/// [`run_built`], the JSON checked by `check`.
fn run_built_as(
    label: &str,
    bytes: Vec<u8>,
    build: fn(Vec<u8>) -> fwview::model::Tree,
    check: fn(&[u8], u64) -> Result<contract::Stats, String>,
) -> Result<Outcome, String> {
    let len = bytes.len();
    let lab = label.to_string();
    let r = runner::run(label, HANG, move || {
        set_label(&lab);
        PEAK.with(|p| p.set(LIVE.with(|l| l.get())));
        let base = LIVE.with(|l| l.get());
        let mut tree = build(bytes);
        let mut out = Capped {
            buf: Vec::new(),
            cap: out_limit(len),
        };
        let r = fwview::export::json(&mut tree, "input", &mut out);
        drop(tree);
        (
            r.map(|_| out.buf),
            peak().saturating_sub(base.max(0) as usize),
        )
    });
    let ((json, peak), took) = r.map_err(|f| f.to_string())?;
    let json = json.map_err(|e| {
        format!(
            "JSON export failed: {e} (the bound is {} MiB for {len} bytes)",
            out_limit(len) >> 20
        )
    })?;
    if took > BOUND {
        return Err(format!(
            "took {:.2} s, the bound is {:.0} s",
            took.as_secs_f64(),
            BOUND.as_secs_f64()
        ));
    }
    if peak > mem_limit(len) {
        return Err(format!(
            "held {} MiB at its peak, the bound is {} MiB",
            peak >> 20,
            mem_limit(len) >> 20
        ));
    }
    let stats = check(&json, len as u64)?;
    Ok(Outcome { took, peak, stats })
}

fn save(label: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    let _ = std::fs::create_dir_all(&dir);
    let name: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let p = dir.join(format!("{name}.bin"));
    let _ = std::fs::write(&p, bytes);
    p
}

/// Runs a crafted case and panics with the reason if it fails.
fn survive(label: &str, bytes: Vec<u8>) -> contract::Stats {
    let copy = bytes.clone();
    match run_case(label, bytes) {
        Ok(o) => o.stats,
        Err(e) => {
            let p = save(label, &copy);
            panic!("{label}: {e} (input saved to {})", p.display())
        }
    }
}

// ---------------------------------------------------------------------------
// Mutations.

#[derive(Clone, Copy, Debug)]
enum Mutation {
    Truncate(usize),
    Flip { at: usize, bit: u8 },
    U16 { at: usize, v: u16 },
    U32 { at: usize, v: u32, be: bool },
    U64 { at: usize, v: u64 },
    Fill { at: usize, len: usize, byte: u8 },
}

impl Mutation {
    fn apply(&self, d: &[u8]) -> Vec<u8> {
        let mut v = d.to_vec();
        let mut put = |at: usize, b: &[u8]| {
            if let Some(s) = v.get_mut(at..at + b.len()) {
                s.copy_from_slice(b);
            }
        };
        match *self {
            Mutation::Truncate(n) => {
                v.truncate(n);
            }
            Mutation::Flip { at, bit } => {
                if let Some(b) = v.get_mut(at) {
                    *b ^= 1 << bit;
                }
            }
            Mutation::U16 { at, v: x } => put(at, &x.to_le_bytes()),
            Mutation::U32 { at, v: x, be } => {
                put(at, &if be { x.to_be_bytes() } else { x.to_le_bytes() })
            }
            Mutation::U64 { at, v: x } => put(at, &x.to_le_bytes()),
            Mutation::Fill { at, len, byte } => {
                let end = (at + len).min(v.len());
                if let Some(s) = v.get_mut(at..end) {
                    s.fill(byte);
                }
            }
        }
        v
    }

    fn label(&self) -> String {
        match *self {
            Mutation::Truncate(n) => format!("truncate-to-{n}"),
            Mutation::Flip { at, bit } => format!("flip-bit{bit}-at-{at:#x}"),
            Mutation::U16 { at, v } => format!("u16le-at-{at:#x}={v:#x}"),
            Mutation::U32 { at, v, be } => {
                format!("u32{}-at-{at:#x}={v:#x}", if be { "be" } else { "le" })
            }
            Mutation::U64 { at, v } => format!("u64le-at-{at:#x}={v:#x}"),
            Mutation::Fill { at, len, byte } => format!("fill-{len}x{byte:#04x}-at-{at:#x}"),
        }
    }
}

/// splitmix64: a fixed, dependency-free sequence.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const SEED: u64 = 0x6677_7669_6577_2121;

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Every mutation of one file, grouped by kind.
fn mutations(name: &str, d: &[u8]) -> Vec<Vec<Mutation>> {
    let len = d.len();
    let mut rng = Rng::new(SEED ^ fnv(name));
    let head = len.min(512);
    let u32_at = |at: usize| {
        d.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    let u64_at = |at: usize| {
        d.get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    };

    // Words past the header that look like offsets or sizes into the file:
    // the structurally interesting positions deeper in.
    let mut deep32: Vec<usize> = (512..len.saturating_sub(3))
        .step_by(4)
        .filter(|&at| u32_at(at).is_some_and(|v| v >= 16 && (v as usize) <= len))
        .collect();
    let mut deep64: Vec<usize> = (512..len.saturating_sub(7))
        .step_by(8)
        .filter(|&at| u64_at(at).is_some_and(|v| v >= 16 && v <= len as u64))
        .collect();
    let pick = |v: &mut Vec<usize>, n: usize, rng: &mut Rng| {
        while v.len() > n {
            let i = rng.below(v.len());
            v.swap_remove(i);
        }
        v.sort_unstable();
    };
    pick(&mut deep32, 96, &mut rng);
    pick(&mut deep64, 48, &mut rng);

    let mut truncs: BTreeSet<usize> = (0..=16).collect();
    truncs.extend((20..=512).step_by(4));
    for k in [1, 2, 3, 4, 8, 16] {
        truncs.insert(len.saturating_sub(k));
    }
    truncs.insert(len / 2);
    for at in deep32.iter().take(16) {
        if let Some(v) = u32_at(*at) {
            let v = v as usize;
            truncs.extend([v.saturating_sub(1), v, v + 1]);
        }
    }
    for _ in 0..24 {
        truncs.insert(rng.below(len));
    }
    let truncs: Vec<Mutation> = truncs
        .into_iter()
        .filter(|&n| n < len)
        .map(Mutation::Truncate)
        .collect();

    let past = len as u64 + 4096;
    let mut hdr32 = Vec::new();
    for at in (0..head.saturating_sub(3)).step_by(4) {
        for v in [0, 1, u32::MAX, 0x7fff_ffff, len as u32, past as u32] {
            hdr32.push(Mutation::U32 { at, v, be: false });
        }
    }
    let mut hdr64 = Vec::new();
    for at in (0..head.saturating_sub(7)).step_by(8) {
        for v in [0, u64::MAX, len as u64, past, 1 << 32] {
            hdr64.push(Mutation::U64 { at, v });
        }
    }
    let mut hdr16 = Vec::new();
    for at in (0..len.min(128).saturating_sub(1)).step_by(2) {
        for v in [0, u16::MAX] {
            hdr16.push(Mutation::U16 { at, v });
        }
    }
    let mut hdr_be = Vec::new();
    for at in (0..len.min(64).saturating_sub(3)).step_by(4) {
        for v in [0, u32::MAX, len as u32] {
            hdr_be.push(Mutation::U32 { at, v, be: true });
        }
    }
    let mut deep = Vec::new();
    for &at in &deep32 {
        let old = u32_at(at).unwrap_or(0);
        for v in [0, u32::MAX, len as u32, old.wrapping_add(1)] {
            deep.push(Mutation::U32 { at, v, be: false });
        }
    }
    for &at in &deep64 {
        for v in [0, u64::MAX, len as u64] {
            deep.push(Mutation::U64 { at, v });
        }
    }
    let mut flips = Vec::new();
    for i in 0..256 {
        let at = if i < 128 {
            rng.below(head)
        } else {
            rng.below(len)
        };
        flips.push(Mutation::Flip {
            at,
            bit: (rng.next() % 8) as u8,
        });
    }
    let mut fills = Vec::new();
    for _ in 0..32 {
        let at = rng.below(len);
        let n = 1 + rng.below(64);
        let byte = [0u8, 0xff, 0x80][rng.below(3)];
        fills.push(Mutation::Fill { at, len: n, byte });
    }
    if len == 0 {
        return Vec::new();
    }
    vec![truncs, hdr32, hdr64, hdr16, hdr_be, deep, flips, fills]
}

/// At most `n` mutations, each kind getting its share, evenly spread over
/// the kind's list so that the whole header stays covered.
fn sample(kinds: Vec<Vec<Mutation>>, n: usize) -> Vec<Mutation> {
    let total: usize = kinds.iter().map(Vec::len).sum();
    if n >= total {
        return kinds.into_iter().flatten().collect();
    }
    let mut out = Vec::with_capacity(n);
    for k in kinds {
        let share = (k.len() * n).div_ceil(total).min(k.len());
        for i in 0..share {
            out.push(k[i * k.len() / share]);
        }
    }
    out
}

/// How many mutations a file of `len` bytes gets: all of them in full mode,
/// else as many as a budget of bytes allows, between a floor and a cap, times
/// `FWVIEW_HOSTILE_SCALE`.
fn cases_for(len: usize) -> usize {
    let full = std::env::var("FWVIEW_HOSTILE").is_ok_and(|v| v == "full");
    if full {
        return usize::MAX;
    }
    let scale: usize = std::env::var("FWVIEW_HOSTILE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let (budget, floor, cap) = if cfg!(debug_assertions) {
        (4usize << 20, 24usize, 200usize)
    } else {
        (64usize << 20, 200, 1000)
    };
    (budget / len.max(1))
        .clamp(floor, cap)
        .saturating_mul(scale)
}

/// The subjects: every sample, and the structures that samples only carry
/// nested, cut out so that their headers get the header mutations: the
/// first PDI of each XCLBIN, the first ELF of each XE.
fn subjects() -> Vec<(String, Vec<u8>)> {
    let mut out = common::samples();
    let mut extra = Vec::new();
    for (name, d) in &out {
        let pat: &[u8] = if name.ends_with(".xclbin") {
            &fwview::formats::pdi::SELECTMAP32
        } else if name.ends_with(".xe") {
            b"\x7fELF\x01\x01\x01"
        } else {
            continue;
        };
        if let Some(at) = memchr::memmem::find(d, pat) {
            let end = memchr::memmem::find(&d[at + 1..], pat).map_or(d.len(), |e| at + 1 + e);
            extra.push((format!("{name}@{at:#x}"), d[at..end].to_vec()));
        }
    }
    out.extend(extra);
    if let Ok(only) = std::env::var("FWVIEW_HOSTILE_ONLY") {
        out.retain(|(n, _)| n.contains(&only));
    }
    out
}

#[test]
fn every_sample_survives_hundreds_of_mutations() {
    let subjects = subjects();
    assert!(!subjects.is_empty(), "no samples in assets/");
    let mut jobs: Vec<(usize, Mutation)> = Vec::new();
    let mut per_file = Vec::new();
    for (i, (name, d)) in subjects.iter().enumerate() {
        let m = sample(mutations(name, d), cases_for(d.len()));
        per_file.push(m.len());
        jobs.extend(m.into_iter().map(|m| (i, m)));
    }
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let slowest: Mutex<(Duration, String)> = Mutex::new((Duration::ZERO, String::new()));
    let max_peak = AtomicUsize::new(0);
    let max_nodes = AtomicUsize::new(0);
    // Time spent on each subject (case thread time, microseconds).
    let spent: Vec<AtomicUsize> = subjects.iter().map(|_| AtomicUsize::new(0)).collect();
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(fi, m)) = jobs.get(j) else {
                    return;
                };
                let (name, d) = &subjects[fi];
                let label = format!("{name}:{}", m.label());
                let bytes = m.apply(d);
                match run_case(&label, bytes) {
                    Ok(o) => {
                        spent[fi].fetch_add(o.took.as_micros() as usize, Ordering::Relaxed);
                        max_peak.fetch_max(o.peak, Ordering::Relaxed);
                        max_nodes.fetch_max(o.stats.nodes as usize, Ordering::Relaxed);
                        let mut sl = slowest.lock().unwrap();
                        if o.took > sl.0 {
                            *sl = (o.took, label);
                        }
                    }
                    Err(e) => {
                        let p = save(&label, &m.apply(d));
                        if e.contains("hangs") {
                            // The stuck thread keeps a core: stop here.
                            stop.store(true, Ordering::Relaxed);
                        }
                        failures.lock().unwrap().push(format!(
                            "{label}: {e}\n    replay: fwview --json {}",
                            p.display()
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let (slow, slow_label) = slowest.into_inner().unwrap();
    eprintln!(
        "hostile: {} cases over {} files ({} to {} a file) in {:.1} s on {workers} threads; \
         slowest {:.3} s ({slow_label}); peak {} KiB; most nodes {}",
        jobs.len(),
        subjects.len(),
        per_file.iter().min().unwrap_or(&0),
        per_file.iter().max().unwrap_or(&0),
        t0.elapsed().as_secs_f64(),
        slow.as_secs_f64(),
        max_peak.load(Ordering::Relaxed) >> 10,
        max_nodes.load(Ordering::Relaxed),
    );
    let mut by_time: Vec<(usize, &str, usize)> = spent
        .iter()
        .zip(&subjects)
        .zip(&per_file)
        .map(|((t, (n, _)), &k)| (t.load(Ordering::Relaxed), n.as_str(), k))
        .collect();
    by_time.sort_unstable_by(|a, b| b.cmp(a));
    for (t, n, k) in by_time.iter().take(6) {
        eprintln!("hostile:   {:7.2} s  {k:5} cases  {n}", *t as f64 / 1e6);
    }
    if !failures.is_empty() {
        for f in failures.iter().take(40) {
            eprintln!("FAIL {f}");
        }
        panic!("{} of {} mutated inputs failed", failures.len(), jobs.len());
    }
}

#[test]
fn the_mutations_are_what_the_issue_asks() {
    let d: Vec<u8> = (0..4096u32).flat_map(|i| (i * 4).to_le_bytes()).collect();
    let kinds = mutations("x", &d);
    let all: Vec<Mutation> = kinds.iter().flatten().copied().collect();
    // Every 4-aligned offset of the first 512 bytes gets 0, 0xFFFFFFFF and
    // a past-the-end value.
    for at in (0..512).step_by(4) {
        for v in [0, u32::MAX, d.len() as u32 + 4096] {
            assert!(all.iter().any(
                |m| matches!(*m, Mutation::U32 { at: a, v: x, be: false } if a == at && x == v)
            ));
        }
    }
    assert!(
        all.iter()
            .filter(|m| matches!(m, Mutation::Truncate(_)))
            .count()
            > 150
    );
    assert!(
        all.iter()
            .filter(|m| matches!(m, Mutation::Flip { .. }))
            .count()
            >= 256
    );
    // Deep words that look like offsets get mutated too.
    assert!(all
        .iter()
        .any(|m| matches!(*m, Mutation::U32 { at, .. } if at >= 512)));
    // Same input, same list.
    let again: Vec<String> = mutations("x", &d)
        .iter()
        .flatten()
        .map(|m| m.label())
        .collect();
    let first: Vec<String> = all.iter().map(|m| m.label()).collect();
    assert_eq!(first, again);
    // A sample keeps every kind.
    let s = sample(kinds, 300);
    assert!(s.len() >= 300 && s.len() < 320, "{}", s.len());
    assert!(s.iter().any(|m| matches!(m, Mutation::Fill { .. })));
    assert!(s.iter().any(|m| matches!(m, Mutation::U16 { .. })));
}

// ---------------------------------------------------------------------------
// Regressions: every input a fuzzer or this test found, kept as a file in
// tests/data/hostile/. A file named `<target>-…` holds what that fuzz
// target was given (copy `fuzz/artifacts/<target>/crash-…` as it is); it is
// shaped here the way the target shapes it. Any other name is a whole file.

/// How the fuzz targets shape their input: the fuzz crate's own code.
#[path = "../fuzz/src/shape.rs"]
mod shape;

/// `d` shaped as fuzz target `target` shapes its input.
fn reshape(target: &str, d: Vec<u8>) -> Vec<u8> {
    shape::shape(target, &d)
}

#[test]
fn regressions_from_fuzzing() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile");
    let entries = common::files_in(&dir);
    let mut n = 0;
    let mut failed = Vec::new();
    for p in entries {
        if p.extension().is_some_and(|x| x == "md") {
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let target = name.split('-').next().unwrap_or("");
        let (_, r) = replay(target, &name, std::fs::read(&p).unwrap());
        if let Err(e) = r {
            failed.push(format!("{name}: {e}"));
        }
        n += 1;
    }
    eprintln!("{n} regression inputs");
    assert!(failed.is_empty(), "failed again:\n{}", failed.join("\n"));
}

/// The `msgpack` fuzz target's tree: the input decoded as one MessagePack
/// document, not a file that detection sees.
fn msgpack_tree(d: Vec<u8>) -> fwview::model::Tree {
    fwview::model::Tree::build(
        std::sync::Arc::new(fwview::model::Source::from_vec(d)),
        "input",
        |b, parent, at: fwview::model::Span| {
            fwview::formats::msgpack::parse(b, parent, at);
            Some(fwview::model::Format::MsgPack)
        },
    )
}

/// The `ksy_data` fuzz target's tree: the rest of the input read with the
/// gallery description its first byte picks.
fn ksy_data_tree(d: Vec<u8>) -> fwview::model::Tree {
    let (k, data) = shape::ksy_pick(&d);
    let spec = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ksy")
        .join(k);
    shape::ksy_tree(&spec, data.to_vec())
}

/// The `ksy_spec` fuzz target's tree: the description the input starts
/// with, written to a file of its own, read over the data after it.
fn ksy_spec_tree(d: Vec<u8>) -> fwview::model::Tree {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-ksy");
    let _ = std::fs::create_dir_all(&dir);
    let spec = dir.join(format!("{}.ksy", N.fetch_add(1, Ordering::Relaxed)));
    let (tree, _) = shape::ksy_text_tree(&spec, &d).expect("the description is written");
    let _ = std::fs::remove_file(&spec);
    tree
}

/// The `disasm` fuzz target on `d`, under the hang and time bounds: every
/// instruction of its bytes within the contract `shape::decode` checks.
fn run_decode(label: &str, d: Vec<u8>) -> Result<(), String> {
    let (_, took) =
        runner::run(label, HANG, move || shape::decode(&d)).map_err(|f| f.to_string())?;
    if took > BOUND {
        return Err(format!(
            "took {:.2} s, the bound is {:.0} s",
            took.as_secs_f64(),
            BOUND.as_secs_f64()
        ));
    }
    Ok(())
}

/// Runs input `d` of fuzz target `target` as the target runs it; returns
/// the bytes run (shaped as the target shapes them: as they are for the
/// targets that take no file) and how it went.
fn replay(target: &str, label: &str, d: Vec<u8>) -> (Vec<u8>, Result<(), String>) {
    let d = reshape(target, d);
    let r = match target {
        "msgpack" => run_built(label, d.clone(), msgpack_tree).map(drop),
        "ksy_data" => run_built_as(label, d.clone(), ksy_data_tree, ksy_contract).map(drop),
        "ksy_spec" => run_built_as(label, d.clone(), ksy_spec_tree, ksy_contract).map(drop),
        "disasm" => run_decode(label, d.clone()),
        "code" => run_built(label, d.clone(), shape::code_tree).map(drop),
        _ => run_case(label, d.clone()).map(drop),
    };
    (d, r)
}

/// Every input of the committed fuzz corpora (`fuzz/corpora/<target>.tar.zst`,
/// what fuzzing found, minimised), shaped as its target shapes it, under the
/// same bounds and contract as the mutations.
#[test]
fn committed_fuzz_corpora() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpora");
    let mut archives = common::files_in(&dir);
    archives.retain(|p| p.to_string_lossy().ends_with(".tar.zst"));
    assert!(!archives.is_empty(), "no corpora in {}", dir.display());
    let only = std::env::var("FWVIEW_HOSTILE_ONLY").ok();
    let mut failed = Vec::new();
    for a in archives {
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        let target = name.trim_end_matches(".tar.zst").to_string();
        if only.as_deref().is_some_and(|o| !target.contains(o)) {
            continue;
        }
        let mut z = zstd::stream::read::Decoder::new(std::fs::File::open(&a).unwrap()).unwrap();
        z.window_log_max(27).unwrap();
        let mut tar = tar::Archive::new(z);
        let (mut n, mut bytes) = (0, 0);
        for e in tar.entries().unwrap() {
            let mut e = e.unwrap();
            let path = e.path().unwrap().to_string_lossy().into_owned();
            let mut d = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut d).unwrap();
            if d.is_empty() && path.ends_with('/') {
                continue;
            }
            n += 1;
            bytes += d.len();
            let label = format!("corpus {path}");
            let (d, r) = replay(&target, &label, d);
            if let Err(e) = r {
                failed.push(format!(
                    "{label}: {e} (saved as {})",
                    save(&label, &d).display()
                ));
            }
        }
        eprintln!("{target}: {n} inputs, {bytes} bytes");
        assert!(n > 0, "{name} holds no inputs");
    }
    assert!(failed.is_empty(), "failed:\n{}", failed.join("\n"));
}

#[test]
fn reshaping_matches_the_fuzz_targets() {
    assert_eq!(reshape("xe", b"abc".to_vec()), b"XMOSabc");
    assert_eq!(reshape("xe", b"XMOSabc".to_vec()), b"XMOSabc");
    let z = reshape("zebin", Vec::new());
    assert_eq!(fwview::formats::detect(&z), Some(Format::Zebin));
    let e = reshape("elf", z);
    assert_eq!(fwview::formats::detect(&e), Some(Format::Elf));
    // The amdgpu target makes an ELF whose e_machine is EM_AMDGPU.
    let a = reshape("amdgpu", Vec::new());
    assert_eq!(&a[..4], b"\x7fELF");
    assert_eq!(&a[18..20], &[224, 0]);
    for t in ["xclbin", "offload", "ar", "pdi"] {
        assert_eq!(
            fwview::formats::detect(&reshape(t, vec![1, 2])).map(Format::name),
            Some(t)
        );
    }
    assert_eq!(
        fwview::formats::detect(&reshape("spirv", vec![1, 2])),
        Some(Format::SpirV)
    );
    let be = [0x07, 0x23, 0x02, 0x03, 1];
    assert_eq!(reshape("spirv", be.to_vec()), be);
    assert_eq!(
        fwview::formats::detect(&reshape("bit", vec![b'a'])),
        Some(Format::XilinxBit)
    );
    // A standalone CDO is opened by the PDI parser.
    let v2 = reshape("cdo", vec![0; 12]);
    assert_eq!(&v2[..8], b"\x04\0\0\0CDO\0");
    assert_eq!(fwview::formats::detect(&v2), Some(Format::Pdi));
    let v1 = [&b"\x04\0\0\0XNLX"[..], &[0; 12]].concat();
    assert_eq!(reshape("cdo", v1.clone()), v1);
    // NPU: an even first byte puts a header before a NOOP; an odd one
    // keeps the rest.
    let t = reshape("npu", vec![0, 5, 0, 0, 0]);
    assert_eq!(&t[..16], &[0, 1, 3, 6, 4, 1, 0, 0, 1, 0, 0, 0, 20, 0, 0, 0]);
    assert_eq!(fwview::formats::detect(&t), Some(Format::NpuTransaction));
    assert_eq!(reshape("npu", vec![1, 2, 3]), vec![2, 3]);
    assert_eq!(fwview::formats::detect(&v1), Some(Format::Pdi));
}

// ---------------------------------------------------------------------------
// Crafted: depth, self-reference, absurd counts.

#[test]
fn empty_and_tiny_inputs() {
    survive("empty", Vec::new());
    for magic in [
        &b"xclbin2\0"[..],
        b"XMOS",
        b"\x7fELF",
        b"\x10\xff\x10\xad",
        b"!<arch>\n",
        &fwview::formats::pdi::SELECTMAP32,
    ] {
        for n in 0..=magic.len() {
            survive(
                &format!("{:?}-prefix-{n}", &magic[..n]),
                magic[..n].to_vec(),
            );
        }
        // The magic and then nothing but one repeated byte.
        for fill in [0u8, 0xff] {
            let mut v = magic.to_vec();
            v.resize(4096, fill);
            survive(&format!("{magic:?}-then-{fill:#x}"), v);
        }
    }
}

#[test]
fn archives_of_archives_stop_at_the_depth_limit() {
    let mut v = build::ar(&[(b"leaf.o", b"data")]);
    for i in 0..200 {
        let name = format!("level{i}.a");
        v = build::ar(&[(name.as_bytes(), &v)]);
    }
    let st = survive("ar-200-deep", v);
    assert!(st.depth < 400, "tree depth {}", st.depth);
}

#[test]
fn offload_binaries_inside_offload_binaries() {
    let mut v = build::offload(b"\0\0\0\0", &[(b"triple", b"x")], 1);
    for _ in 0..200 {
        v = build::offload(&v, &[(b"arch", b"gfx90a"), (b"triple", b"amdgcn")], 1);
    }
    survive("offload-200-deep", v);

    // An image that is the whole binary: the binary inside itself.
    let mut v = build::offload(&[0u8; 64], &[(b"arch", b"self")], 1);
    let size = v.len() as u64;
    build::set64(&mut v, 56, 0);
    build::set64(&mut v, 64, size);
    survive("offload-image-is-itself", v);
}

#[test]
fn xclbin_whose_sections_all_hold_the_whole_file() {
    // Sixteen sections, each claiming the whole file, of kinds that carry
    // nested formats: without a limit on how often the same bytes are
    // opened again, that is 16^depth subtrees.
    for kind in [0u32, 3, 18, 19, 23, 32, 99] {
        let hdrs: Vec<XHdr> = (0..16)
            .map(|i| XHdr {
                kind,
                name: format!("s{i}").into_bytes(),
                offset: 0,
                size: 0x1c8 + 40 * 16,
            })
            .collect();
        let v = build::xclbin_raw(b"self", &hdrs, vec![0u8; 0x1c8 + 40 * 16]);
        survive(
            &format!("xclbin-16-sections-of-kind-{kind}-are-the-file"),
            v,
        );
    }
}

#[test]
fn elf_whose_sections_all_hold_the_whole_file() {
    let secs: Vec<Sec> = (0..16)
        .map(|i| {
            let ty = if i % 2 == 0 {
                build::SHT_LLVM_OFFLOADING
            } else {
                build::SHT_PROGBITS
            };
            Sec::new(format!(".s{i}").as_bytes(), ty, b"x")
        })
        .collect();
    for machine in [build::EM_X86_64, build::EM_INTELGT] {
        let mut v = build::elf64(machine, &secs, &[]);
        let shoff = u64::from_le_bytes(v[0x28..0x30].try_into().unwrap()) as usize;
        let len = v.len() as u64;
        for i in 1..=16 {
            build::set64(&mut v, shoff + 64 * i + 0x18, 0);
            build::set64(&mut v, shoff + 64 * i + 0x20, len);
        }
        survive(&format!("elf-{machine}-16-sections-are-the-file"), v);
    }
}

/// ELF section and symbol tables with counts and entry sizes no file can
/// hold, entry size 0 (a division), and the extended numbering escapes.
#[test]
fn elf_with_absurd_tables() {
    let secs = vec![Sec::new(b".text", build::SHT_PROGBITS, &[0xc3; 16])];
    let syms: Vec<(&[u8], u16, u64, u64)> = vec![(b"f", 1, 0, 16), (b"g", 1, 8, 8)];
    let base = build::elf64(build::EM_X86_64, &secs, &syms);
    let shoff = u64::from_le_bytes(base[0x28..0x30].try_into().unwrap()) as usize;
    let symtab = shoff + 64 * 2; // index 2: .symtab
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for es in [0u64, 1, 3, u64::MAX] {
        let mut v = base.clone();
        build::set64(&mut v, symtab + 0x38, es);
        cases.push((format!("symtab-entsize-{es:#x}"), v));
    }
    for size in [u64::MAX, 1 << 40, 24 * 0xffff_ffff] {
        let mut v = base.clone();
        build::set64(&mut v, symtab + 0x20, size);
        cases.push((format!("symtab-size-{size:#x}"), v));
    }
    for link in [0u32, 2, 0xffff, u32::MAX] {
        let mut v = base.clone();
        build::set32(&mut v, symtab + 0x28, link);
        cases.push((format!("symtab-link-{link:#x}"), v));
    }
    for (field, at, val) in [
        ("e_shnum", 0x3c, 0xffffu64),
        ("e_shnum", 0x3c, 0),
        ("e_shstrndx", 0x3e, 0xffff),
        ("e_shentsize", 0x3a, 0),
        ("e_shentsize", 0x3a, 1),
        ("e_phnum", 0x38, 0xffff),
        ("e_phentsize", 0x36, 0),
    ] {
        let mut v = base.clone();
        v[at..at + 2].copy_from_slice(&(val as u16).to_le_bytes());
        if field == "e_phnum" {
            build::set64(&mut v, 0x20, 64); // e_phoff
            v[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        }
        cases.push((format!("{field}-{val:#x}"), v));
    }
    // Extended numbering: e_shnum 0 and e_shstrndx SHN_XINDEX send the
    // reader to section 0's size and link, here absurd or pointing at
    // section 0 itself.
    for (size, link) in [(u64::MAX, u32::MAX), (0, 0), (1 << 32, 0)] {
        let mut v = base.clone();
        v[0x3c..0x3e].copy_from_slice(&0u16.to_le_bytes());
        v[0x3e..0x40].copy_from_slice(&0xffffu16.to_le_bytes());
        build::set64(&mut v, shoff + 0x20, size);
        build::set32(&mut v, shoff + 0x28, link);
        cases.push((format!("extended-numbering-{size:#x}-{link:#x}"), v));
    }
    // A section header table that starts inside itself or past the end.
    for off in [0u64, 1, base.len() as u64 - 1, u64::MAX - 63] {
        let mut v = base.clone();
        build::set64(&mut v, 0x28, off);
        cases.push((format!("e_shoff-{off:#x}"), v));
    }
    // A 32-bit ELF header on 64-bit tables, and the other byte order.
    for (at, b) in [(4, 1u8), (5, 2u8), (4, 0), (5, 0), (4, 9)] {
        let mut v = base.clone();
        v[at] = b;
        cases.push((format!("e_ident[{at}]={b}"), v));
    }
    for (label, v) in cases {
        survive(&format!("elf-{label}"), v);
    }
}

#[test]
fn xclbin_with_absurd_counts() {
    let xml = b"<project><platform name=\"p\"/></project>";
    let base = build::xclbin(b"platform", &[(2, b"metadata", xml), (6, b"mem", &[0; 48])]);
    let mut cases = Vec::new();
    for n in [0u32, 3, 0x10000, 0x10001, u32::MAX] {
        let mut v = base.clone();
        build::set32(&mut v, 0x1c0, n);
        cases.push((format!("numSections-{n:#x}"), v));
    }
    for len in [0u64, 1, u64::MAX] {
        let mut v = base.clone();
        build::set64(&mut v, 0x130, len);
        cases.push((format!("m_length-{len:#x}"), v));
    }
    // The mem_topology count (i32 at the payload's start) claims more.
    let mem = u64::from_le_bytes(base[0x1c8 + 40 + 24..0x1c8 + 40 + 32].try_into().unwrap());
    for n in [-1i32, i32::MAX, 2] {
        let mut v = base.clone();
        build::set32(&mut v, mem as usize, n as u32);
        cases.push((format!("mem_topology-count-{n}"), v));
    }
    for (off, size) in [(u64::MAX, 8), (8, u64::MAX), (u64::MAX - 7, 16)] {
        let mut v = base.clone();
        build::set64(&mut v, 0x1c8 + 24, off);
        build::set64(&mut v, 0x1c8 + 32, size);
        cases.push((format!("section-at-{off:#x}-size-{size:#x}"), v));
    }
    for (label, v) in cases {
        survive(&format!("xclbin-{label}"), v);
    }
}

/// An AIE_PARTITION whose hundreds of CDO groups each name arrays that
/// cover the whole section: every array is cut to fit, yet together they
/// show each byte hundreds of times (quadratic in the section size). Found
/// by the mutation test on a real sample (tests/data/hostile/
/// xclbin-aie-partition-overlapping-arrays.bin).
#[test]
fn xclbin_aie_partition_arrays_that_all_overlap() {
    let size = 0x10000usize;
    let mut p = vec![0u8; size];
    build::set32(&mut p, 0x78, 1); // aie_pdi: one, right after the header
    build::set32(&mut p, 0x7c, 0xb8);
    let groups = (size - 0x118) / 96;
    build::set32(&mut p, 0xb8 + 0x18, groups as u32); // cdo_groups
    build::set32(&mut p, 0xb8 + 0x1c, 0x118);
    for g in 0..groups {
        let at = 0x118 + 96 * g;
        p[at + 4] = 1; // PRIMARY
        build::set32(&mut p, at + 0x10, (size / 8) as u32); // dpu_kernel_ids
        build::set32(&mut p, at + 0x14, 0);
        build::set32(&mut p, at + 0x18, (size / 4) as u32); // pre_cdo_groups
        build::set32(&mut p, at + 0x1c, 0);
    }
    let v = build::xclbin(b"overlap", &[(32, b"aie_partition", &p)]);
    survive("xclbin-aie-partition-arrays-all-overlap", v);
}

#[test]
fn xe_with_absurd_sectors() {
    let base = build::xe(&[(0x8, b"<xn/>"), (0x9, &[0; 16])]);
    for size in [0u64, 1, 3, 8, u64::MAX, u64::MAX - 11, 1 << 40] {
        let mut v = base.clone();
        build::set64(&mut v, 8 + 4, size);
        survive(&format!("xe-sector-size-{size:#x}"), v);
    }
    // Ten thousand empty SKIP sectors and no LAST.
    let mut v = b"XMOS\x02\x00\x00\x00".to_vec();
    for _ in 0..10_000 {
        v.extend_from_slice(&[0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
    survive("xe-10000-empty-sectors", v);
    // A padding length above the data.
    let mut v = base.clone();
    v[8 + 12] = 0xff;
    survive("xe-padding-255", v);
}

#[test]
fn ar_with_absurd_headers() {
    let base = build::ar(&[(b"a.o", b"hello"), (b"b.o", b"world!")]);
    // The first member header after the magic is `//`, its size field at
    // 8 + 48, ten bytes.
    for size in [
        &b"9999999999"[..],
        b"-1        ",
        b"0x10      ",
        b"          ",
        b"18446744073709551615",
    ] {
        let mut v = base.clone();
        let n = size.len().min(10);
        v[8 + 48..8 + 48 + n].copy_from_slice(&size[..n]);
        survive(&format!("ar-size-{:?}", String::from_utf8_lossy(size)), v);
    }
    for name in [
        &b"/99999999999999"[..],
        b"/-1",
        b"/",
        b"//",
        b"#1/999999999",
        b"#1/-5",
    ] {
        let mut v = base.clone();
        let names_len = base[8 + 48..8 + 58]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .fold(0usize, |a, c| a * 10 + usize::from(c - b'0'));
        let second = 8 + 60 + names_len.next_multiple_of(2);
        let mut field = name.to_vec();
        field.resize(16, b' ');
        v[second..second + 16].copy_from_slice(&field);
        survive(
            &format!("ar-name-field-{:?}", String::from_utf8_lossy(name)),
            v,
        );
    }
    // A thousand empty members.
    let many: Vec<(Vec<u8>, Vec<u8>)> = (0..1000)
        .map(|i| (format!("m{i}").into_bytes(), Vec::new()))
        .collect();
    let refs: Vec<(&[u8], &[u8])> = many
        .iter()
        .map(|(a, b)| (a.as_slice(), b.as_slice()))
        .collect();
    survive("ar-1000-empty-members", build::ar_short(&refs));
}

#[test]
fn offload_with_absurd_fields() {
    let base = build::offload(
        b"\x7fELF",
        &[(b"arch", b"sm_80"), (b"triple", b"nvptx64")],
        1,
    );
    // Header: size +8, entry offset +16, entry size +24. Entry at 32:
    // string offset +8, string count +16, image offset +24, image size +32.
    for (what, at) in [
        ("size", 8),
        ("entry-offset", 16),
        ("entry-size", 24),
        ("string-offset", 40),
        ("string-count", 48),
        ("image-offset", 56),
        ("image-size", 64),
    ] {
        for val in [0u64, 1, 32, u64::MAX, u64::MAX - 31, 1 << 60] {
            let mut v = base.clone();
            build::set64(&mut v, at, val);
            survive(&format!("offload-{what}-{val:#x}"), v);
        }
    }
    // Versions the parser may not know.
    for ver in [0u32, 2, 3, u32::MAX] {
        let mut v = base.clone();
        build::set32(&mut v, 4, ver);
        survive(&format!("offload-version-{ver}"), v);
    }
    // A host object whose .llvm.offloading section holds many binaries.
    let one = build::offload(b"", &[(b"arch", b"a")], 0);
    let many: Vec<u8> = one.iter().copied().cycle().take(one.len() * 2000).collect();
    let elf = build::elf64(
        build::EM_X86_64,
        &[Sec::new(
            b".llvm.offloading",
            build::SHT_LLVM_OFFLOADING,
            &many,
        )],
        &[],
    );
    survive("elf-with-2000-offload-binaries", elf);
}

#[test]
fn pdi_with_absurd_counts() {
    // The first PDI of an NPU sample, its words set to what no PDI holds.
    let Some((name, d)) = common::samples()
        .into_iter()
        .find(|(n, _)| n.contains("riallto__color_threshold") && n.ends_with(".xclbin"))
    else {
        eprintln!("skipped: sample not found");
        return;
    };
    let pat = &fwview::formats::pdi::SELECTMAP32;
    let Some(at) = memchr::memmem::find(&d, pat) else {
        panic!("{name} holds no PDI");
    };
    let pdi = d[at..].to_vec();
    // Table words (+0x10): image count +0x04, image header offset +0x08,
    // partition count +0x0C, partition header offset +0x10. Partition
    // header (+0xD0): lengths +0x00..+0x08, data offset +0x20, sections +0x28.
    // CDO (+0x150): header length, length of the stream +0x0C; first command.
    let words = [
        0x14, 0x18, 0x1c, 0x20, 0xd0, 0xd4, 0xd8, 0xf0, 0xf8, 0x150, 0x15c, 0x164, 0x168,
    ];
    for w in words {
        for val in [0u32, 1, 0xff, 0x00ff_0000, u32::MAX, 0x4000_0000] {
            let mut v = pdi.clone();
            build::set32(&mut v, w, val);
            survive(&format!("pdi-word-{w:#x}={val:#x}"), v.clone());
            // And the same inside its XCLBIN.
            let mut x = d.clone();
            x[at..].copy_from_slice(&v);
            survive(&format!("xclbin-pdi-word-{w:#x}={val:#x}"), x);
        }
    }
}

#[test]
fn the_contract_checks_catch_what_they_must() {
    contract::self_test();
}

/// Words of a SPIR-V module, a version 1 CDO and a `.bit` header set to
/// what none of them holds: word counts, lengths and counts of 0, 1,
/// 0xffff and 2^32 - 1, at every word of the first 64.
#[test]
fn spirv_cdo_v1_and_bit_with_absurd_words() {
    // SPIR-V: the module in a zebin sample's .spv section, from its magic
    // to the end of the file.
    let mut subjects = Vec::new();
    if let Some((_, d)) = common::samples()
        .into_iter()
        .find(|(n, _)| n.ends_with("ocloc22.43__add_XE_HPC_COREpvc.bin"))
    {
        let at = memchr::memmem::find(&d, &[0x03, 0x02, 0x23, 0x07]).expect("a SPIR-V module");
        subjects.push(("spirv", d[at..].to_vec()));
    }
    // A version 1 CDO: header, one section of WRITE, DMA_WRITE, DMA_XFER
    // and NPI_WRITE.
    let mut w: Vec<u32> = vec![4, 0x584C_4E58, 0x100, 1];
    w.push(!w.iter().fold(0u32, |s, &x| s.wrapping_add(x)));
    let body = [
        0x103, 0x10, 0x20, 0x105, 0x30, 2, 1, 0, 7, 8, 0x109, 0, 0, 0, 0x40, 1, 0, 9, 0x203, 0x50,
        0, 1, 5,
    ];
    w.extend([0x10, body.len() as u32 + 1, 4]);
    w.extend(body);
    subjects.push(("cdo-v1", w.iter().flat_map(|x| x.to_le_bytes()).collect()));
    // A .bit header.
    let mut bit = vec![
        0, 9, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0, 0, 1,
    ];
    for (k, s) in [(b'a', &b"top\0"[..]), (b'b', b"xc7z020\0")] {
        bit.push(k);
        bit.extend((s.len() as u16).to_be_bytes());
        bit.extend(s);
    }
    bit.push(b'e');
    bit.extend(12u32.to_be_bytes());
    bit.extend([
        0xff, 0xff, 0xff, 0xff, 0xaa, 0x99, 0x55, 0x66, 0x20, 0, 0, 0,
    ]);
    subjects.push(("bit", bit));
    for (label, d) in subjects {
        survive(label, d.clone());
        for at in (0..d.len().min(256)).step_by(4) {
            for v in [0u32, 1, 0xffff, 0x0001_ffff, u32::MAX] {
                for be in [false, true] {
                    let mut m = d.clone();
                    let bytes = if be { v.to_be_bytes() } else { v.to_le_bytes() };
                    let end = (at + 4).min(m.len());
                    m[at..end].copy_from_slice(&bytes[..end - at]);
                    survive(&format!("{label}-word-{at:#x}={v:#x}-{be}"), m);
                }
            }
        }
    }
}
