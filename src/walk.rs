//! The exporters' walk over a whole tree, on every core. Lazy parts of the
//! file (groups of a symbol table, of a string table, of a command stream)
//! are independent: each is built and written by a worker with a tree of
//! its own over the same bytes, while the first thread walks the rest and
//! writes every part in tree order. The output is byte for byte what one
//! thread writes; diagnostics raised in the parts join the tree's own.
//!
//! A worker hands its part over in chunks as it goes, so the part the
//! first thread waits for is written while it is made, and a worker ahead
//! of the writer waits once the chunks not yet written pass a bound:
//! what waits to be written is bounded, however much a part prints (the
//! DWARF of a code object prints tens of megabytes).

use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

use crate::model::{Diagnostic, NodeId, Tree};

/// What writes nodes: called on entering and on leaving every node.
pub trait Sink: Send + 'static {
    fn enter(&mut self, t: &Tree, id: NodeId, depth: usize, buf: &mut Vec<u8>);
    fn leave(&mut self, t: &Tree, id: NodeId, depth: usize, buf: &mut Vec<u8>);
    /// A sink for the nodes below one just entered, in the state they
    /// start in.
    fn below(&self) -> Self;
}

/// How many bytes are gathered before they are written.
pub const CHUNK: usize = 1 << 16;

/// Smallest and largest lazy part handed to a worker, in bytes of the file.
const PART_MIN: u64 = 2 << 10;
const PART_MAX: u64 = 8 << 20;
/// How much more a byte of a dense node weighs (see
/// `Builder::dense`): a part of a line program of 1000 opcodes weighs
/// about what a part of 1000 symbols does.
const DENSE: u64 = 16;
/// Files smaller than this are walked on one thread.
pub const PARALLEL_FROM: u64 = 8 << 20;
/// Parts handed out a worker before the first thread waits for the
/// oldest: enough to keep every worker busy, few enough that the parts
/// waiting to be written stay small.
const AHEAD: usize = 8;
/// The bytes of a part a worker gathers before it hands them over.
const PART_CHUNK: usize = 1 << 18;
/// The bytes handed over and not yet written past which a worker that is
/// not making the oldest part waits.
const HELD_MAX: usize = 16 << 20;

/// How many threads to walk `tree` with: `FWVIEW_THREADS` if set, else one
/// for small files and, for larger ones, one a core (at most 8). (Counting
/// the threads running elsewhere at start was tried: the count is a moment's
/// and mostly saw the shell that started fwview, so it ran on one thread.)
pub fn threads_for(tree: &Tree) -> usize {
    threads_for_size(tree.data().len() as u64)
}

/// How many threads to walk node `id` and what it holds with: as
/// [`threads_for`] says for a file of the node's size.
pub fn threads_for_node(tree: &Tree, id: NodeId) -> usize {
    threads_for_size(tree.node(id).map_or(0, |n| n.size))
}

fn threads_for_size(size: u64) -> usize {
    if let Some(n) = std::env::var("FWVIEW_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        return n.clamp(1, 64);
    }
    if size < PARALLEL_FROM {
        return 1;
    }
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    cores.max(1)
}

/// Walks the whole tree into `out` through `sink`, with `threads` threads
/// (1: no other thread).
pub fn walk<S: Sink>(
    tree: &mut Tree,
    sink: &mut S,
    out: &mut dyn Write,
    threads: usize,
) -> io::Result<()> {
    let root = tree.root();
    walk_from(tree, root, sink, out, threads)
}

/// Walks node `from` and every node below it into `out` through `sink`
/// (`from` at depth 0), with `threads` threads (1: no other thread).
pub fn walk_from<S: Sink>(
    tree: &mut Tree,
    from: NodeId,
    sink: &mut S,
    out: &mut dyn Write,
    threads: usize,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK * 2);
    if threads <= 1 {
        let mut err = None;
        let _ = tree.walk_from(from, 0, &mut |t, id, depth, entering| {
            if entering {
                sink.enter(t, id, depth, &mut buf);
            } else {
                sink.leave(t, id, depth, &mut buf);
            }
            if buf.len() >= CHUNK {
                if let Err(e) = out.write_all(&buf) {
                    err = Some(e);
                    return ControlFlow::Break(());
                }
                buf.clear();
            }
            ControlFlow::Continue(())
        });
        if let Some(e) = err {
            return Err(e);
        }
        return out.write_all(&buf);
    }
    let (job_tx, job_rx) = mpsc::channel::<Job<S>>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (res_tx, res_rx) = mpsc::channel::<(usize, Msg)>();
    let shared = Shared {
        pool: Arc::new(Mutex::new(Vec::new())),
        held: Arc::new(AtomicUsize::new(0)),
        head: Arc::new(AtomicUsize::new(0)),
        stop: Arc::new(AtomicBool::new(false)),
        gate: Arc::new((Mutex::new(()), Condvar::new())),
    };
    let mut handles = Vec::new();
    for _ in 0..threads {
        let rx = job_rx.clone();
        let tx = res_tx.clone();
        let shared = shared.clone();
        let mut wt = tree.reopen();
        handles.push(std::thread::spawn(move || loop {
            let job = match rx.lock() {
                Ok(r) => r.recv(),
                Err(_) => return,
            };
            let Ok(job) = job else {
                return;
            };
            let idx = job.idx;
            let done = run_job(&mut wt, job, &tx, &shared);
            if tx.send((idx, Msg::Done(done))).is_err() {
                return;
            }
        }));
    }
    drop(res_tx);
    let mut m = Main {
        out,
        queue: VecDeque::new(),
        results: HashMap::new(),
        res_rx,
        job_tx: Some(job_tx),
        next: 0,
        ahead: AHEAD * threads,
        shared,
    };
    let r = m.go(tree, from, 0, sink, &mut buf);
    let r = r.and_then(|_| {
        m.queue.push_back(Seg::Text(std::mem::take(&mut buf)));
        m.drain(tree, 0)
    });
    // Workers stop when the job channel closes, and end the part they make
    // (nothing more is written after an error).
    m.job_tx = None;
    m.shared.stop.store(true, Ordering::Release);
    m.shared.wake();
    for h in handles {
        let _ = h.join();
    }
    r
}

struct Job<S> {
    idx: usize,
    path: String,
    depth: usize,
    sink: S,
}

/// What a worker made of a part: its last bytes (those after the chunks
/// it handed over) and the diagnostics raised, or `None` when the part
/// must be walked by the first thread (it made a byte space, whose number
/// only that thread's tree can give). The chunks handed over before are
/// the start of what that thread writes: they were made before the space.
type Done = Option<(Vec<u8>, Vec<Diagnostic>)>;

/// What a worker says of a part: a chunk of its bytes, or that it is done.
enum Msg {
    Chunk(Vec<u8>),
    Done(Done),
}

/// What the first thread and the workers share.
#[derive(Clone)]
struct Shared {
    /// Buffers the first thread has written, for workers to fill again: a
    /// part's chunks are allocated once, not once a chunk.
    pool: Arc<Mutex<Vec<Vec<u8>>>>,
    /// Bytes handed over by workers and not yet written.
    held: Arc<AtomicUsize>,
    /// The oldest part not yet written, whose worker never waits.
    head: Arc<AtomicUsize>,
    /// Set when the first thread writes no more.
    stop: Arc<AtomicBool>,
    /// Where a worker ahead of the writer waits: the first thread wakes
    /// it whenever `held`, `head` or `stop` change.
    gate: Arc<(Mutex<()>, Condvar)>,
}

/// At most this many buffers wait in the pool, none larger than
/// [`POOL_CAP`].
const POOL_MAX: usize = 32;
const POOL_CAP: usize = 4 * PART_CHUNK;

impl Shared {
    /// Waits until part `idx` may hand over another chunk: it is the
    /// oldest part not yet written, or the chunks held are within bound.
    /// False when the first thread writes no more.
    fn wait_turn(&self, idx: usize) -> bool {
        let (lock, cv) = &*self.gate;
        let Ok(mut g) = lock.lock() else {
            return false;
        };
        // Checked under the lock the first thread takes to wake us, so
        // that no change between the check and the wait goes unseen.
        loop {
            if self.stop.load(Ordering::Acquire) {
                return false;
            }
            if self.head.load(Ordering::Acquire) == idx
                || self.held.load(Ordering::Acquire) <= HELD_MAX
            {
                return true;
            }
            g = match cv.wait(g) {
                Ok(g) => g,
                Err(_) => return false,
            };
        }
    }

    /// Wakes the workers waiting for their turn (after `held`, `head` or
    /// `stop` changed).
    fn wake(&self) {
        let (lock, cv) = &*self.gate;
        let _g = lock.lock();
        cv.notify_all();
    }

    fn buffer(&self) -> Vec<u8> {
        self.pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_else(|| Vec::with_capacity(PART_CHUNK + CHUNK))
    }

    /// Takes back a buffer written out.
    fn recycle(&self, mut b: Vec<u8>) {
        if b.capacity() > POOL_CAP {
            return;
        }
        b.clear();
        if let Ok(mut p) = self.pool.lock() {
            if p.len() < POOL_MAX {
                p.push(b);
            }
        }
    }
}

fn run_job<S: Sink>(
    wt: &mut Tree,
    mut job: Job<S>,
    tx: &mpsc::Sender<(usize, Msg)>,
    shared: &Shared,
) -> Done {
    let spaces = wt.spaces().len();
    let diags = wt.diagnostics().len();
    let id = wt.find_path(&job.path)?;
    let idx = job.idx;
    let mut buf = shared.buffer();
    // Chunks are handed over while no byte space was made.
    let mut handing = true;
    wt.walk_below(id, job.depth, &mut |t, k, d, entering| {
        if entering {
            job.sink.enter(t, k, d, &mut buf);
        } else {
            job.sink.leave(t, k, d, &mut buf);
        }
        if handing && buf.len() >= PART_CHUNK {
            handing = t.spaces().len() == spaces;
            if handing {
                // Ahead of the writer, past the bound: wait for it.
                if !shared.wait_turn(idx) {
                    return ControlFlow::Break(());
                }
                let chunk = std::mem::replace(&mut buf, shared.buffer());
                shared.held.fetch_add(chunk.len(), Ordering::AcqRel);
                handing = tx.send((idx, Msg::Chunk(chunk))).is_ok();
            }
        }
        ControlFlow::Continue(())
    });
    if wt.spaces().len() != spaces {
        return None;
    }
    let raised = wt.diagnostics().get(diags..).unwrap_or_default().to_vec();
    Some((buf, raised))
}

/// What the first thread received of a part and has not written.
#[derive(Default)]
struct Got {
    chunks: VecDeque<Vec<u8>>,
    done: Option<Done>,
}

enum Seg<S> {
    Text(Vec<u8>),
    Part {
        idx: usize,
        path: String,
        depth: usize,
        sink: S,
    },
}

struct Main<'o, S> {
    out: &'o mut dyn Write,
    queue: VecDeque<Seg<S>>,
    results: HashMap<usize, Got>,
    res_rx: mpsc::Receiver<(usize, Msg)>,
    job_tx: Option<mpsc::Sender<Job<S>>>,
    next: usize,
    ahead: usize,
    shared: Shared,
}

impl<S: Sink> Main<'_, S> {
    fn go(
        &mut self,
        tree: &mut Tree,
        id: NodeId,
        depth: usize,
        sink: &mut S,
        buf: &mut Vec<u8>,
    ) -> io::Result<()> {
        // A node whose own range and value come with its children is built
        // before it is written.
        let first = tree.mark();
        let opened = tree.opens_self(id) && !tree.is_built(id);
        if opened {
            tree.expand(id);
        }
        sink.enter(tree, id, depth, buf);
        if self.part(tree, id) {
            let b = std::mem::take(buf);
            self.text(b)?;
            let idx = self.next;
            self.next += 1;
            let path = tree.path_string(id);
            let job = Job {
                idx,
                path: path.clone(),
                depth,
                sink: sink.below(),
            };
            let sent = self.job_tx.as_ref().is_some_and(|t| t.send(job).is_ok());
            if sent {
                self.queue.push_back(Seg::Part {
                    idx,
                    path,
                    depth,
                    sink: sink.below(),
                });
            } else {
                self.below_here(tree, id, depth, sink.below(), buf);
            }
            if self.parts() > self.ahead {
                self.drain(tree, self.ahead / 2)?;
            }
        } else {
            let was_lazy = opened || !tree.is_built(id);
            let mark = if opened { first } else { tree.mark() };
            tree.expand(id);
            let n = tree.built_children(id).len();
            for i in 0..n {
                let Some(&k) = tree.built_children(id).get(i) else {
                    break;
                };
                self.go(tree, k, depth + 1, sink, buf)?;
            }
            if was_lazy {
                tree.release_below(id, mark);
            }
        }
        sink.leave(tree, id, depth, buf);
        if buf.len() >= CHUNK {
            let b = std::mem::take(buf);
            self.text(b)?;
        }
        Ok(())
    }

    /// A lazy part of the file worth a worker: not built yet, in the file's
    /// own space, neither tiny nor huge (a huge one is opened here and its
    /// groups handed out).
    fn part(&self, tree: &Tree, id: NodeId) -> bool {
        let Some(n) = tree.node(id) else {
            return false;
        };
        // A dense node's bytes are each about a node: they weigh more.
        let weight = if tree.is_dense(id) {
            n.size.saturating_mul(DENSE)
        } else {
            n.size
        };
        n.space == crate::model::FILE
            && n.parent.is_some()
            && !tree.is_built(id)
            && (PART_MIN..=PART_MAX).contains(&weight)
    }

    /// Walks the nodes below `id` here (a part no worker could take).
    fn below_here(
        &mut self,
        tree: &mut Tree,
        id: NodeId,
        depth: usize,
        mut sink: S,
        buf: &mut Vec<u8>,
    ) {
        tree.walk_below(id, depth, &mut |t, k, d, entering| {
            if entering {
                sink.enter(t, k, d, buf);
            } else {
                sink.leave(t, k, d, buf);
            }
            ControlFlow::Continue(())
        });
    }

    /// Writes `b` now if nothing waits before it, else queues it.
    fn text(&mut self, b: Vec<u8>) -> io::Result<()> {
        if self.queue.is_empty() {
            self.out.write_all(&b)
        } else {
            self.queue.push_back(Seg::Text(b));
            Ok(())
        }
    }

    fn parts(&self) -> usize {
        self.queue
            .iter()
            .filter(|s| matches!(s, Seg::Part { .. }))
            .count()
    }

    /// Writes the oldest segments until at most `keep` parts wait (0: all).
    fn drain(&mut self, tree: &mut Tree, keep: usize) -> io::Result<()> {
        while !self.queue.is_empty() {
            if keep > 0 && self.parts() <= keep {
                return Ok(());
            }
            let Some(seg) = self.queue.pop_front() else {
                return Ok(());
            };
            match seg {
                Seg::Text(b) => self.out.write_all(&b)?,
                Seg::Part {
                    idx,
                    path,
                    depth,
                    sink,
                } => {
                    // The part's chunks are written as they come.
                    let mut written = 0;
                    let done = loop {
                        if let Some(g) = self.results.get_mut(&idx) {
                            while let Some(c) = g.chunks.pop_front() {
                                self.out.write_all(&c)?;
                                written += c.len();
                                self.shared.held.fetch_sub(c.len(), Ordering::AcqRel);
                                self.shared.recycle(c);
                                self.shared.wake();
                            }
                            if let Some(d) = g.done.take() {
                                self.results.remove(&idx);
                                break d;
                            }
                        }
                        match self.res_rx.recv() {
                            Ok((i, m)) => {
                                let g = self.results.entry(i).or_default();
                                match m {
                                    Msg::Chunk(c) => g.chunks.push_back(c),
                                    Msg::Done(d) => g.done = Some(d),
                                }
                            }
                            Err(_) => break None,
                        }
                    };
                    match done {
                        Some((bytes, diags)) => {
                            self.out.write_all(&bytes)?;
                            tree.absorb_diagnostics(diags);
                            self.shared.recycle(bytes);
                        }
                        None => {
                            // Done here, as one thread would; what was
                            // written of it already is its start.
                            let mut b = Vec::new();
                            if let Some(id) = tree.find_path(&path) {
                                self.below_here(tree, id, depth, sink, &mut b);
                            }
                            self.out.write_all(b.get(written..).unwrap_or_default())?;
                        }
                    }
                    self.shared.head.store(idx + 1, Ordering::Release);
                    self.shared.wake();
                }
            }
        }
        Ok(())
    }
}
