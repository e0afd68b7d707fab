//! Decoders in a process of their own. A decoder library is untrusted
//! code run on untrusted bytes: LLVM 22's AMDGPU decoder, for one, ends
//! the process on some encodings. So when the program says so
//! ([`isolate`]), engines decode in a worker process (the same
//! executable, started with [`ARG`]), a window of bytes at a time. There
//! is one worker for all threads: code one thread asked for ahead (the
//! functions after the one it decodes) serves the thread that decodes it.
//!
//!
//! - the worker answers with one record per instruction; the caller keeps
//!   them and hands them out as it asks for the instructions in turn;
//! - a worker that dies, or says nothing for [`QUIET`], is ended and
//!   started again; the window is asked for once more, the worker then
//!   answering instruction by instruction, so that the instruction it dies
//!   on is known: that one is [`UNKNOWN`] of the ISA's
//!   unit with a [`Fault`], and decoding goes on after it;
//! - after [`MAX_FAULTS`] faults the program gives up: the rest is one
//!   unknown run with a fault that says so.
//!
//! The protocol is private to one executable, both ends built together:
//! a request is `careful: u8, last: u8, addr: u64`, the target's three
//! strings (`u16` length, bytes) and the bytes (`u32` length, bytes); the
//! answer, a record per instruction (`len: u32`, `flags: u8`, the target
//! address `u64` when flag 1 is set, the text as `u32` length and bytes),
//! then `0u32` for the end, or `u32::MAX` when the worker has no engine
//! for the target, followed by why (`kind: u8`, the library's path as
//! `u16` length and bytes). Integers are little-endian. A request of no
//! bytes is answered by the end alone, or by why there is no engine: an
//! engine made after [`isolate`] asks so, and only the worker loads the
//! decoder libraries.

use std::collections::VecDeque;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::decoder::{precheck, Decoder, Fault, Insn, Missing, Target, UNKNOWN};

/// The argument that makes the executable a worker.
pub const ARG: &str = "__decode-worker";

/// The environment variable that, set to `1`, keeps decoders in the
/// program's own process.
pub const ENV_IN_PROCESS: &str = "FWVIEW_DECODE_IN_PROCESS";

/// The longest a worker may say nothing while decoding.
pub const QUIET: Duration = Duration::from_secs(10);

/// Faults (deaths and silences) the workers may have before the program
/// stops asking.
pub const MAX_FAULTS: u32 = 8;

/// The bytes sent at a time.
const WINDOW: usize = 1 << 16;

/// The bytes past an instruction a decoder may read to decide it: a
/// window that is not the end of the code stops this far from its end.
const LOOKAHEAD: usize = 64;

/// The longest instruction text accepted from a worker.
const MAX_TEXT: usize = 1 << 16;

/// The worker executable, once the program asked for isolation.
static EXE: OnceLock<PathBuf> = OnceLock::new();

/// Makes every engine made from now on decode in worker processes that
/// run `exe` (the running executable, which must call [`serve_if_asked`]
/// first thing), unless [`ENV_IN_PROCESS`] is `1`.
pub fn isolate(exe: PathBuf) {
    if std::env::var_os(ENV_IN_PROCESS).is_some_and(|v| v == "1") {
        return;
    }
    let _ = EXE.set(exe);
}

/// Whether engines decode in worker processes.
pub(super) fn isolated() -> bool {
    EXE.get().is_some()
}

/// When the process was started as a worker, serves requests on standard
/// input until it closes, and gives the exit status; otherwise `None`.
pub fn serve_if_asked() -> Option<std::process::ExitCode> {
    if std::env::args_os().nth(1).is_none_or(|a| a != ARG) {
        return None;
    }
    // LLVM's library is loaded while the first request comes (most are
    // for it); a request waits for the load to end.
    let _ = std::thread::Builder::new()
        .name("load libLLVM".into())
        .spawn(|| super::llvm::get().is_some());
    let r = serve(io::stdin().lock(), io::stdout().lock());
    Some(match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::from(2),
    })
}

// The worker's side.

/// One request, as the worker reads it.
struct Request {
    careful: bool,
    last: bool,
    addr: u64,
    target: Target,
    bytes: Vec<u8>,
}

fn read_u16(r: &mut impl Read) -> io::Result<u16> {
    let mut b = [0; 2];
    r.read_exact(&mut b)?;
    Ok(u16::from_le_bytes(b))
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn read_bytes(r: &mut impl Read, n: usize) -> io::Result<Vec<u8>> {
    let mut v = Vec::new();
    r.take(n as u64).read_to_end(&mut v)?;
    if v.len() != n {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(v)
}

fn read_string(r: &mut impl Read) -> io::Result<String> {
    let n = read_u16(r)?;
    String::from_utf8(read_bytes(r, n.into())?).map_err(|_| io::ErrorKind::InvalidData.into())
}

impl Request {
    /// The next request, or `None` at the end of the input.
    fn read(r: &mut impl Read) -> io::Result<Option<Request>> {
        let mut flags = [0; 2];
        match r.read_exact(&mut flags) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let addr = read_u64(r)?;
        let triple = read_string(r)?;
        let cpu = read_string(r)?;
        let features = read_string(r)?;
        let n = read_u32(r)?;
        let bytes = read_bytes(r, n as usize)?;
        Ok(Some(Request {
            careful: flags[0] != 0,
            last: flags[1] != 0,
            addr,
            target: Target {
                triple,
                cpu,
                features,
            },
            bytes,
        }))
    }

    fn write(w: &mut impl Write, req: &Ask<'_>) -> io::Result<()> {
        w.write_all(&[u8::from(req.careful), u8::from(req.last)])?;
        w.write_all(&req.addr.to_le_bytes())?;
        for s in [&req.target.triple, &req.target.cpu, &req.target.features] {
            let n = u16::try_from(s.len()).map_err(|_| io::ErrorKind::InvalidInput)?;
            w.write_all(&n.to_le_bytes())?;
            w.write_all(s.as_bytes())?;
        }
        let n = u32::try_from(req.bytes.len()).map_err(|_| io::ErrorKind::InvalidInput)?;
        w.write_all(&n.to_le_bytes())?;
        w.write_all(req.bytes)?;
        w.flush()
    }
}

/// The end of an answer.
const END: u32 = 0;
/// The answer when the worker has no engine for the target.
const NO_ENGINE: u32 = u32::MAX;

/// How many engines a worker keeps.
const KEPT: usize = 8;

/// Serves requests from `input` until it ends, each answered on `output`.
fn serve(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut r = BufReader::new(input);
    let mut w = BufWriter::with_capacity(WINDOW, output);
    let mut engines: Vec<(Target, Result<Decoder, Missing>)> = Vec::new();
    while let Some(req) = Request::read(&mut r)? {
        let i = match engines.iter().position(|(t, _)| *t == req.target) {
            Some(i) => i,
            None => {
                if engines.len() >= KEPT {
                    drop(engines.remove(0));
                }
                engines.push((req.target.clone(), Decoder::new(&req.target)));
                engines.len() - 1
            }
        };
        let e = match engines.get_mut(i).map(|(_, e)| e.as_mut()) {
            Some(Ok(e)) => e,
            Some(Err(m)) => {
                write_missing(&mut w, m)?;
                continue;
            }
            None => {
                write_missing(&mut w, &Missing::Library)?;
                continue;
            }
        };
        let mut off = 0usize;
        while let Some(rest) = req.bytes.get(off..).filter(|r| !r.is_empty()) {
            if !req.last && rest.len() < LOOKAHEAD {
                break;
            }
            let i = e.decode(rest, req.addr.wrapping_add(off as u64));
            let Ok(len @ 1..) = u32::try_from(i.len) else {
                break;
            };
            w.write_all(&len.to_le_bytes())?;
            match i.target {
                Some(t) => {
                    w.write_all(&[1])?;
                    w.write_all(&t.to_le_bytes())?;
                }
                None => w.write_all(&[0])?,
            }
            let text = i.text.as_bytes();
            let text = text.get(..MAX_TEXT).unwrap_or(text);
            w.write_all(&(text.len() as u32).to_le_bytes())?;
            w.write_all(text)?;
            if req.careful {
                w.flush()?;
            }
            off += i.len;
        }
        w.write_all(&END.to_le_bytes())?;
        w.flush()?;
    }
    Ok(())
}

/// `NO_ENGINE` and why: the kind of [`Missing`] and the library named.
fn write_missing(w: &mut impl Write, m: &Missing) -> io::Result<()> {
    let (kind, library) = match m {
        Missing::Library => (0u8, ""),
        Missing::Target { library } => (1, library.as_str()),
        Missing::IgaLibrary => (2, ""),
        Missing::IgaPlatform { library } => (3, library.as_str()),
        // What the target alone says: the caller knows it too.
        Missing::Processor { .. } | Missing::NoPlatform => (4, ""),
    };
    let library = library
        .get(..library.len().min(u16::MAX.into()))
        .unwrap_or("");
    w.write_all(&NO_ENGINE.to_le_bytes())?;
    w.write_all(&[kind])?;
    w.write_all(&(library.len() as u16).to_le_bytes())?;
    w.write_all(library.as_bytes())?;
    w.flush()
}

/// Why a worker has no engine for `t`, as it said.
fn missing(kind: u8, library: String, t: &Target) -> Missing {
    match kind {
        1 => Missing::Target { library },
        2 => Missing::IgaLibrary,
        3 => Missing::IgaPlatform { library },
        4 => precheck(t).err().unwrap_or(Missing::Library),
        _ => Missing::Library,
    }
}

// The caller's side.

/// A request as the caller sends it.
struct Ask<'a> {
    careful: bool,
    last: bool,
    addr: u64,
    target: &'a Target,
    bytes: &'a [u8],
}

/// What a worker answers, record by record.
enum Answer {
    Insn(Insn),
    End,
    /// The kind of [`Missing`] and the library it names.
    NoEngine(u8, String),
}

fn read_answer(r: &mut impl Read) -> io::Result<Answer> {
    let len = read_u32(r)?;
    match len {
        END => return Ok(Answer::End),
        NO_ENGINE => {
            let mut kind = [0];
            r.read_exact(&mut kind)?;
            let n = read_u16(r)?;
            let library = String::from_utf8_lossy(&read_bytes(r, n.into())?).into_owned();
            return Ok(Answer::NoEngine(kind[0], library));
        }
        _ => {}
    }
    let mut flag = [0];
    r.read_exact(&mut flag)?;
    let target = if flag[0] & 1 != 0 {
        Some(read_u64(r)?)
    } else {
        None
    };
    let n = read_u32(r)? as usize;
    if n > MAX_TEXT {
        return Err(io::ErrorKind::InvalidData.into());
    }
    let text = String::from_utf8(read_bytes(r, n)?)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok(Answer::Insn(Insn {
        len: len as usize,
        text,
        target,
        fault: None,
    }))
}

/// A worker process, with a thread that writes its requests and one that
/// reads its answers, so that the caller neither waits to send nor for
/// more than the answer it needs.
struct Client {
    child: Child,
    requests: Option<mpsc::Sender<Vec<u8>>>,
    answers: Receiver<io::Result<Vec<Answer>>>,
    /// Answers received and not yet taken.
    ready: VecDeque<Answer>,
    /// The end of what the worker wrote on its standard error.
    said: Arc<Mutex<Vec<u8>>>,
    quiet: Duration,
}

/// How much of a worker's standard error is kept.
const SAID: usize = 4096;

impl Client {
    fn spawn(mut cmd: Command, quiet: Duration) -> io::Result<Client> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        let (requests, to_write) = mpsc::channel::<Vec<u8>>();
        std::thread::Builder::new()
            .name("decoder requests".into())
            .spawn(move || {
                let mut w = stdin;
                for r in to_write {
                    if w.write_all(&r).and_then(|()| w.flush()).is_err() {
                        return;
                    }
                }
            })?;
        let (tx, answers) = mpsc::channel();
        std::thread::Builder::new()
            .name("decoder answers".into())
            .spawn(move || {
                // Answers go over in batches: what the worker wrote in one
                // go, or a whole run.
                let mut r = BufReader::with_capacity(WINDOW, stdout);
                let mut batch = Vec::new();
                loop {
                    match read_answer(&mut r) {
                        Ok(a) => {
                            let end = matches!(a, Answer::End | Answer::NoEngine(..));
                            batch.push(a);
                            if (end || r.buffer().is_empty())
                                && tx.send(Ok(std::mem::take(&mut batch))).is_err()
                            {
                                return;
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Ok(std::mem::take(&mut batch)));
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
            })?;
        let said = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&said);
        std::thread::Builder::new()
            .name("decoder stderr".into())
            .spawn(move || {
                let mut r = stderr;
                let mut buf = [0u8; 1024];
                while let Ok(n @ 1..) = r.read(&mut buf) {
                    if let Ok(mut k) = keep.lock() {
                        k.extend_from_slice(buf.get(..n).unwrap_or_default());
                        let over = k.len().saturating_sub(SAID);
                        k.drain(..over);
                    }
                }
            })?;
        Ok(Client {
            child,
            requests: Some(requests),
            answers,
            ready: VecDeque::new(),
            said,
            quiet,
        })
    }

    /// Sends a request; `false` when the worker can no longer take one.
    fn send(&mut self, ask: &Ask<'_>) -> bool {
        let mut buf = Vec::with_capacity(ask.bytes.len() + 64);
        Request::write(&mut buf, ask).is_ok()
            && self.requests.as_ref().is_some_and(|r| r.send(buf).is_ok())
    }

    /// The next answer, or how the worker failed (it is then ended).
    fn next(&mut self) -> Result<Answer, Fault> {
        loop {
            if let Some(a) = self.ready.pop_front() {
                return Ok(a);
            }
            match self.answers.recv_timeout(self.quiet) {
                Ok(Ok(batch)) => self.ready.extend(batch),
                Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return Err(self.end(false)),
                Err(RecvTimeoutError::Timeout) => return Err(self.end(true)),
            }
        }
    }

    /// Ends the worker, and says how it failed.
    fn end(&mut self, silent: bool) -> Fault {
        self.requests = None;
        let _ = self.child.kill();
        let status = self.child.wait();
        if silent {
            return Fault::Silent {
                secs: self.quiet.as_secs(),
            };
        }
        // The stderr thread may still be reading the last words.
        std::thread::sleep(Duration::from_millis(20));
        let said = self.said.lock().map(|k| last_line(&k)).unwrap_or_default();
        #[cfg(unix)]
        let signal = {
            use std::os::unix::process::ExitStatusExt;
            status.ok().and_then(|s| s.signal())
        };
        #[cfg(not(unix))]
        let signal = {
            let _ = status;
            None
        };
        Fault::Died { signal, said }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.requests = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The last non-empty line of `b`, made safe to show and bounded.
fn last_line(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let line = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    line.trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(200)
        .collect()
}

/// A window of bytes asked to be decoded from its start, and what came
/// back.
struct Run {
    /// Which run it is, for as long as the program runs.
    id: u64,
    target: Target,
    unit: usize,
    /// The address of its first byte.
    base: u64,
    bytes: Vec<u8>,
    /// Whether the window ends where the code does.
    last: bool,
    /// The instructions answered and not yet handed out, with their
    /// offsets.
    got: VecDeque<(usize, Insn)>,
    /// The offset the next answer is for.
    pos: usize,
    /// Whether the run is answered to its end.
    done: bool,
    /// Whether the current worker was asked for it.
    sent: bool,
    /// Whether it is asked for one answer at a time (after a fault).
    careful: bool,
    /// Whether a caller may still want it; its answers are dropped if not.
    wanted: bool,
    /// Why the worker has no engine for the target, where it said so.
    missing: Option<Missing>,
}

impl Run {
    fn new(target: &Target, unit: usize, bytes: &[u8], addr: u64) -> Run {
        let w = bytes.get(..WINDOW).unwrap_or(bytes);
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Run {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            target: target.clone(),
            unit,
            base: addr,
            bytes: w.to_vec(),
            last: w.len() == bytes.len(),
            got: VecDeque::new(),
            pos: 0,
            done: false,
            sent: false,
            careful: false,
            wanted: true,
            missing: None,
        }
    }

    /// Whether the run holds the instruction of `target` at `addr` over
    /// `bytes`: the same address, and the same bytes as far as a decoder
    /// may look.
    fn serves(&self, target: &Target, bytes: &[u8], addr: u64) -> bool {
        let Some(off) = addr.checked_sub(self.base) else {
            return false;
        };
        let Some(here) = usize::try_from(off).ok().and_then(|o| self.bytes.get(o..)) else {
            return false;
        };
        let seen = here.len().min(LOOKAHEAD);
        self.wanted
            && !here.is_empty()
            && self.target == *target
            && bytes.len().min(LOOKAHEAD) == seen
            && bytes.get(..seen) == here.get(..seen)
            && (self.last || here.len() >= LOOKAHEAD)
    }

    /// A fault for the rest of the run, which then is done.
    fn fail_rest(&mut self, f: Fault) {
        let rest = self.bytes.len().saturating_sub(self.pos);
        if rest > 0 && self.wanted {
            self.got.push_back((
                self.pos,
                Insn {
                    len: rest,
                    text: UNKNOWN.to_string(),
                    target: None,
                    fault: Some(f),
                },
            ));
        }
        self.pos += rest;
        self.done = true;
    }
}

/// The most runs kept.
const KEPT_RUNS: usize = 256;

/// The most bytes asked for ahead of what a caller needs now.
const AHEAD: usize = 4 * WINDOW;

/// Decoding through a worker: the worker, the runs asked for in the order
/// it answers them, and how many faults there were.
struct Worker {
    client: Option<Client>,
    runs: VecDeque<Run>,
    /// Whether some run may not have been sent.
    unsent: bool,
    faults: u32,
    start: fn() -> io::Result<Client>,
}

/// The worker every thread's engines decode in: one process, so that code
/// one thread asked for ahead serves another thread that decodes it.
static WORKER: Mutex<Worker> = Mutex::new(Worker::new(start));

/// The worker this executable starts.
fn start() -> io::Result<Client> {
    let exe = EXE.get().ok_or(io::ErrorKind::NotFound)?;
    let mut cmd = Command::new(exe);
    cmd.arg(ARG);
    // The worker decodes in the dialect this process was asked for.
    cmd.env(
        super::syntax::ENV_X86_SYNTAX,
        super::syntax::x86_syntax().name(),
    );
    Client::spawn(cmd, QUIET)
}

impl Worker {
    /// No worker yet; `start` starts one when there is something to ask.
    const fn new(start: fn() -> io::Result<Client>) -> Worker {
        Worker {
            client: None,
            runs: VecDeque::new(),
            unsent: false,
            faults: 0,
            start,
        }
    }

    /// Asks the worker for every run it was not asked for yet, starting
    /// one if needed.
    fn send(&mut self) {
        if !self.unsent {
            return;
        }
        self.unsent = false;
        if self.faults >= MAX_FAULTS {
            for r in self.runs.iter_mut().filter(|r| !r.done) {
                r.fail_rest(Fault::GaveUp {
                    faults: self.faults,
                });
            }
            return;
        }
        if self.client.is_none() {
            match (self.start)() {
                Ok(c) => self.client = Some(c),
                Err(e) => {
                    for r in self.runs.iter_mut().filter(|r| !r.done) {
                        r.fail_rest(Fault::NoWorker(e.to_string()));
                    }
                    return;
                }
            }
        }
        let Some(c) = self.client.as_mut() else {
            return;
        };
        for r in self.runs.iter_mut().filter(|r| !r.done && !r.sent) {
            let ask = Ask {
                careful: r.careful,
                last: r.last,
                addr: r.base.wrapping_add(r.pos as u64),
                target: &r.target,
                bytes: r.bytes.get(r.pos..).unwrap_or_default(),
            };
            r.sent = c.send(&ask);
        }
    }

    /// Takes in the worker's next answer, for the first run not done.
    fn pump(&mut self) {
        self.send();
        let Some(c) = self.client.as_mut() else {
            // Nothing will answer: the first run waiting fails.
            if let Some(r) = self.runs.iter_mut().find(|r| !r.done) {
                r.fail_rest(Fault::NoWorker("no decoder process runs".into()));
            }
            return;
        };
        let Some(r) = self.runs.iter_mut().find(|r| !r.done) else {
            return;
        };
        // Every answer already received for the run is taken in at once:
        // the runs are looked through once a batch, not once an
        // instruction.
        let answer = loop {
            match c.next() {
                Ok(Answer::Insn(i)) => {
                    let len = i.len.clamp(1, r.bytes.len().saturating_sub(r.pos).max(1));
                    if r.wanted {
                        r.got.push_back((r.pos, Insn { len, ..i }));
                    }
                    r.pos += len;
                    if c.ready.is_empty() {
                        return;
                    }
                }
                other => break other,
            }
        };
        match answer {
            Ok(Answer::Insn(_)) => {}
            Ok(Answer::End) => r.done = true,
            Ok(Answer::NoEngine(kind, library)) => {
                r.missing = Some(missing(kind, library, &r.target));
                r.fail_rest(Fault::NoWorker(
                    "the decoder process has no engine for this target".into(),
                ));
            }
            Err(f) => {
                self.client = None;
                self.faults += 1;
                if r.careful {
                    // Answered one at a time: it failed on the next one.
                    let rest = r.bytes.len().saturating_sub(r.pos);
                    let len = r.unit.clamp(1, rest.max(1));
                    if r.wanted {
                        r.got.push_back((
                            r.pos,
                            Insn {
                                len,
                                text: UNKNOWN.to_string(),
                                target: None,
                                fault: Some(f),
                            },
                        ));
                    }
                    r.pos += len;
                    r.careful = false;
                    r.done = r.pos >= r.bytes.len();
                } else {
                    r.careful = true;
                }
                for r in self.runs.iter_mut() {
                    r.sent = false;
                }
                self.unsent = true;
            }
        }
        // Runs nobody wants, answered to their end, are let go.
        self.runs.retain(|r| r.wanted || !r.done);
    }

    /// The index of the run that holds the instruction at `addr`, asking
    /// for one if none does, and whether it was asked for now. `hint` is
    /// the run the caller took from last, mostly the one it needs.
    fn find(
        &mut self,
        hint: u64,
        t: &Target,
        unit: usize,
        bytes: &[u8],
        addr: u64,
    ) -> (usize, bool) {
        if let Some(j) = self
            .runs
            .iter()
            .position(|r| r.id == hint)
            .filter(|&j| self.runs.get(j).is_some_and(|r| r.serves(t, bytes, addr)))
        {
            return (j, false);
        }
        if let Some(j) = self.runs.iter().position(|r| r.serves(t, bytes, addr)) {
            return (j, false);
        }
        self.runs.push_back(Run::new(t, unit, bytes, addr));
        self.unsent = true;
        (self.runs.len() - 1, true)
    }

    /// The instruction of `t` at the start of `bytes`, at `addr`; `hint`
    /// is the caller's: the run it took from last, updated.
    fn decode(&mut self, hint: &mut u64, t: &Target, unit: usize, bytes: &[u8], addr: u64) -> Insn {
        loop {
            let (j, fresh) = self.find(*hint, t, unit, bytes, addr);
            let Some(id) = self.runs.get(j).map(|r| r.id) else {
                break;
            };
            if let Some(i) = self.take(id, addr) {
                *hint = id;
                return i;
            }
            // The run has no instruction at `addr`: let it go, and ask for
            // one of its own unless that was it.
            if let Some(r) = self.runs.iter_mut().find(|r| r.id == id) {
                r.wanted = false;
                r.got.clear();
            }
            if fresh {
                break;
            }
        }
        Insn {
            len: unit.clamp(1, bytes.len()),
            text: UNKNOWN.to_string(),
            target: None,
            fault: None,
        }
    }

    /// The instruction at `addr` from run `id`, waiting for the worker's
    /// answers as needed; `None` if the run has none there.
    fn take(&mut self, id: u64, addr: u64) -> Option<Insn> {
        loop {
            let j = self.runs.iter().position(|r| r.id == id)?;
            let r = self.runs.get_mut(j)?;
            let off = addr.wrapping_sub(r.base) as usize;
            // Answers before `addr` were passed by.
            while r.got.front().is_some_and(|(o, _)| *o < off) {
                r.got.pop_front();
            }
            match r.got.front() {
                Some((o, _)) if *o == off => {
                    let i = r.got.pop_front().map(|(_, i)| i);
                    let spent = |r: &Run| !r.wanted || (r.done && r.got.is_empty());
                    if self.runs.front().is_some_and(spent) || self.runs.len() > KEPT_RUNS {
                        self.tidy(id);
                    }
                    return i;
                }
                Some(_) => return None,
                None if r.done || r.pos > off => return None,
                None => self.pump(),
            }
        }
    }

    /// Lets go of the runs handed out to their end (but run `id`, the one
    /// in use) and, past [`KEPT_RUNS`], of the oldest.
    fn tidy(&mut self, id: u64) {
        self.runs
            .retain(|r| r.id == id || !(r.done && r.got.is_empty()));
        let over = self.runs.len().saturating_sub(KEPT_RUNS);
        for r in self.runs.iter_mut().take(over) {
            r.wanted = false;
            r.got.clear();
        }
        self.runs.retain(|r| r.wanted || !r.done);
    }

    /// Asks the worker whether it has an engine for `t`: a run of no
    /// bytes, answered by its end alone or by why there is none.
    fn probe(&mut self, t: &Target, unit: usize) -> Result<(), Missing> {
        let run = Run::new(t, unit, &[], 0);
        let id = run.id;
        self.runs.push_back(run);
        self.unsent = true;
        loop {
            let Some(r) = self.runs.iter_mut().find(|r| r.id == id) else {
                return Ok(());
            };
            if r.done {
                r.wanted = false;
                let m = r.missing.take();
                self.runs.retain(|r| r.id != id);
                return m.map_or(Ok(()), Err);
            }
            self.pump();
        }
    }

    /// Asks ahead for the runs a caller says it will want, in order.
    fn expect(&mut self, t: &Target, unit: usize, runs: &[(&[u8], u64)]) {
        let mut ahead: usize = self
            .runs
            .iter()
            .filter(|r| !r.done)
            .map(|r| r.bytes.len() - r.pos.min(r.bytes.len()))
            .sum();
        for &(bytes, addr) in runs {
            let asked = || {
                self.runs
                    .iter()
                    .any(|r| r.base == addr && r.serves(t, bytes, addr))
            };
            if bytes.is_empty() || asked() {
                continue;
            }
            if ahead >= AHEAD {
                break;
            }
            let r = Run::new(t, unit, bytes, addr);
            ahead += r.bytes.len();
            self.runs.push_back(r);
            self.unsent = true;
        }
        self.send();
    }
}

/// Starts the worker if none runs, so that it loads its library while
/// this process reads the file: for a caller that knows it will decode.
pub fn prestart() {
    if !isolated() {
        return;
    }
    if let Ok(mut w) = WORKER.lock() {
        if w.client.is_none() && w.faults < MAX_FAULTS {
            w.client = (w.start)().ok();
        }
    }
}

/// Whether the worker has an engine for `t` (asked once a target for
/// as long as the program runs): the worker loads the decoder libraries,
/// this process does not. A worker that cannot be asked is taken to have
/// one: decoding then says what went wrong, instruction by instruction.
pub(super) fn probe(t: &Target, unit: usize) -> Result<(), Missing> {
    static KNOWN: Mutex<Vec<(Target, Result<(), Missing>)>> = Mutex::new(Vec::new());
    if let Some((_, r)) = KNOWN
        .lock()
        .ok()
        .and_then(|k| k.iter().find(|(k, _)| k == t).cloned())
    {
        return r;
    }
    let r = match WORKER.lock() {
        Ok(mut w) => w.probe(t, unit),
        Err(_) => Ok(()),
    };
    if let Ok(mut k) = KNOWN.lock() {
        k.push((t.clone(), r.clone()));
    }
    r
}

/// Ends the worker, if one runs, and waits for it: called as the program
/// ends, so that the worker's time counts as the program's.
pub fn finish() {
    let client = WORKER.lock().ok().and_then(|mut w| w.client.take());
    drop(client);
}

/// An engine whose decoder runs in the worker.
pub(super) struct Remote {
    target: Target,
    unit: usize,
    /// The run this engine took its last instruction from.
    hint: u64,
}

impl Remote {
    pub(super) fn new(target: &Target, unit: usize) -> Remote {
        Remote {
            target: target.clone(),
            unit,
            hint: u64::MAX,
        }
    }

    /// The instruction at the start of `bytes`, at `addr`.
    pub(super) fn decode(&mut self, bytes: &[u8], addr: u64) -> Insn {
        match WORKER.lock() {
            Ok(mut w) => w.decode(&mut self.hint, &self.target, self.unit, bytes, addr),
            Err(_) => Insn {
                len: bytes.len(),
                text: UNKNOWN.to_string(),
                target: None,
                fault: Some(Fault::NoWorker("a thread failed while decoding".into())),
            },
        }
    }

    /// Says which code will be decoded next (each from its start), so
    /// that the worker decodes it while the caller is busy.
    pub(super) fn expect(&mut self, runs: &[(&[u8], u64)]) {
        if let Ok(mut w) = WORKER.lock() {
            w.expect(&self.target, self.unit, runs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(req: &Ask<'_>) -> Vec<Insn> {
        let mut input = Vec::new();
        Request::write(&mut input, req).unwrap();
        let mut output = Vec::new();
        serve(&input[..], &mut output).unwrap();
        let mut r = &output[..];
        let mut v = Vec::new();
        loop {
            match read_answer(&mut r).unwrap() {
                Answer::Insn(i) => v.push(i),
                Answer::End => return v,
                Answer::NoEngine(..) => panic!("no engine"),
            }
        }
    }

    /// A worker answers what the engine in this process decodes, and stops
    /// short of the end of a window that is not the end of the code.
    #[test]
    fn a_worker_answers_as_the_engine_decodes() {
        let t = Target::new("x86_64-unknown-linux-gnu", "", "");
        let Ok(mut e) = Decoder::new(&t) else {
            return;
        };
        let bytes: Vec<u8> = [0x55u8, 0x48, 0x89, 0xe5, 0x90, 0xc3].repeat(40);
        let mut want = Vec::new();
        let mut off = 0;
        while off < bytes.len() {
            let i = e.decode(&bytes[off..], 0x1000 + off as u64);
            off += i.len;
            want.push(i);
        }
        let ask = |last| Ask {
            careful: false,
            last,
            addr: 0x1000,
            target: &t,
            bytes: &bytes,
        };
        assert_eq!(answers(&ask(true)), want);
        let short = answers(&ask(false));
        let covered: usize = short.iter().map(|i| i.len).sum();
        // It stops at the first instruction that starts less than
        // LOOKAHEAD bytes from the end.
        let stop = bytes.len() - LOOKAHEAD;
        assert!(covered > stop && covered <= stop + 16, "{covered}");
        assert_eq!(short[..], want[..short.len()]);
    }

    /// A request of no bytes asks whether the worker has an engine: the
    /// end alone where it has, why not where it has none.
    #[test]
    fn a_worker_says_whether_it_has_an_engine() {
        let x86 = Target::new("x86_64-unknown-linux-gnu", "", "");
        let Ok(_) = Decoder::new(&x86) else {
            return;
        };
        let nonsense = Target::new("nonsense-unknown-none", "", "");
        let mut input = Vec::new();
        for t in [&x86, &nonsense] {
            let ask = Ask {
                careful: false,
                last: true,
                addr: 0,
                target: t,
                bytes: &[],
            };
            Request::write(&mut input, &ask).unwrap();
        }
        let mut output = Vec::new();
        serve(&input[..], &mut output).unwrap();
        let mut r = &output[..];
        assert!(matches!(read_answer(&mut r).unwrap(), Answer::End));
        let Answer::NoEngine(kind, library) = read_answer(&mut r).unwrap() else {
            panic!("an engine for nonsense");
        };
        assert_eq!(
            missing(kind, library, &nonsense),
            Decoder::new(&nonsense).err().unwrap()
        );
        assert!(r.is_empty());
    }

    fn fake(script: &str) -> io::Result<Client> {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        Client::spawn(c, Duration::from_millis(300))
    }

    /// A worker that dies, or says nothing, is a fault at the bytes it was
    /// given (after it was asked once more, one instruction at a time);
    /// after [`MAX_FAULTS`] the program stops asking.
    #[cfg(unix)]
    #[test]
    fn a_worker_that_dies_or_hangs_is_a_fault() {
        let t = Target::new("x86_64-unknown-linux-gnu", "", "");
        let bytes = [0x90u8; 100];
        let mut w = Worker::new(|| fake("head -c 1 >/dev/null; echo oops >&2; kill -SEGV $$"));
        let i = w.decode(&mut 0, &t, 1, &bytes, 0);
        assert_eq!((i.len, i.text.as_str()), (1, UNKNOWN));
        assert_eq!(
            i.fault,
            Some(Fault::Died {
                signal: Some(11),
                said: "oops".into()
            })
        );
        w.start = || fake("sleep 30");
        let i = w.decode(&mut 0, &t, 1, &bytes[1..], 1);
        assert_eq!((i.len, i.fault), (1, Some(Fault::Silent { secs: 0 })));
        // Two asks each: four faults so far.
        assert_eq!(w.faults, 4);
        w.faults = MAX_FAULTS;
        let i = w.decode(&mut 0, &t, 1, &bytes[2..], 2);
        assert_eq!(
            (i.len, i.fault),
            (98, Some(Fault::GaveUp { faults: MAX_FAULTS }))
        );
    }

    /// A worker's answers are handed out in turn, runs asked for ahead
    /// included, and are the engine's own.
    #[test]
    fn runs_asked_ahead_are_answered_in_turn() {
        let t = Target::new("x86_64-unknown-linux-gnu", "", "");
        let Ok(mut e) = Decoder::new(&t) else {
            return;
        };
        // The worker is the fwview executable, which cargo builds beside
        // the test binary (`target/PROFILE/fwview`, the test in `deps/`).
        fn beside() -> io::Result<PathBuf> {
            let exe = std::env::current_exe()?;
            let dir = exe.parent().and_then(|p| p.parent());
            let f = dir.ok_or(io::ErrorKind::NotFound)?.join("fwview");
            f.exists()
                .then_some(f)
                .ok_or(io::ErrorKind::NotFound.into())
        }
        if beside().is_err() {
            eprintln!("no fwview executable beside the tests: nothing to run");
            return;
        }
        let bytes: Vec<u8> = [0x55u8, 0x48, 0x89, 0xe5, 0x90, 0xc3].repeat(30);
        let mut w = Worker::new(|| {
            let mut c = Command::new(beside()?);
            c.arg(ARG);
            Client::spawn(c, QUIET)
        });
        let fns: Vec<(&[u8], u64)> = (0..5)
            .map(|k| (&bytes[k * 36..k * 36 + 36], k as u64 * 36))
            .collect();
        w.expect(&t, 1, &fns[1..]);
        let mut hint = u64::MAX;
        for (b, a) in fns {
            let mut off = 0;
            while off < b.len() {
                let got = w.decode(&mut hint, &t, 1, &b[off..], a + off as u64);
                let want = e.decode(&b[off..], a + off as u64);
                assert_eq!(got, want, "at {}", a + off as u64);
                off += got.len;
            }
        }
        assert_eq!(w.faults, 0);
    }
}
