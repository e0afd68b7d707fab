//! Many files at once: `--targets`, `--find` and `--diff` over files and
//! directories. Directories are walked recursively (symbolic links below
//! them are not followed unless asked); the files are read on every core,
//! each by one worker that parses it, writes its records into a buffer and
//! drops its tree; the buffers are written in path order, so the output is
//! the same whatever the thread timing. A file that cannot be read is one
//! warning line, and the scan goes on.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use walkdir::WalkDir;

use crate::export::json_str;
use crate::model::{printed_address, text, Format, Options, Source, Tree};
use crate::targets::SCHEMA;

/// A regular file found under one of the paths given.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    /// The path to open: the path given, joined with the path below it.
    pub path: PathBuf,
    /// The path below the directory given (the file's name for a file
    /// given itself).
    pub rel: PathBuf,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// The regular files, sorted by path (name by name, as `Path` orders
    /// them: a directory's files come right after its name).
    pub files: Vec<Found>,
    /// Symbolic links below a directory given, not followed.
    pub links: usize,
    /// Paths that gave a warning (not a regular file, not readable).
    pub warned: usize,
}

/// A path as a terminal may show it: its bytes as text, escaped.
pub fn shown(path: &Path) -> String {
    text::clean(&raw(path)).into_owned()
}

/// A path's bytes as text, bytes that are not UTF-8 as `\xNN` (for JSON,
/// which escapes the rest).
fn raw(path: &Path) -> String {
    text::from_bytes(path.as_os_str().as_encoded_bytes())
}

/// One warning line on standard error: `fwview: PATH: REASON`.
pub fn warn_line(path: &Path, reason: &str) -> String {
    format!("fwview: {}: {}", shown(path), text::clean(reason))
}

/// What a path is when it is not a regular file or a directory.
fn special(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "is a FIFO, skipped";
        }
        if ft.is_socket() {
            return "is a socket, skipped";
        }
        if ft.is_char_device() {
            return "is a character device, skipped";
        }
        if ft.is_block_device() {
            return "is a block device, skipped";
        }
    }
    let _ = ft;
    "is not a regular file, skipped"
}

/// Why the walk could not go into or past `e`.
fn walk_error(e: &walkdir::Error, at: &Path) -> String {
    if e.loop_ancestor().is_some() {
        return "a symbolic link loop, skipped".into();
    }
    if let Some(io) = e.io_error() {
        if io.kind() == io::ErrorKind::NotFound
            && std::fs::symlink_metadata(at).is_ok_and(|m| m.file_type().is_symlink())
        {
            return "a dangling symbolic link, skipped".into();
        }
        #[cfg(unix)]
        if io.raw_os_error() == Some(libc::ELOOP) {
            return "a symbolic link loop, skipped".into();
        }
        return format!("{io}, skipped");
    }
    format!("{e}, skipped")
}

/// Finds the regular files under `roots`: a file given is taken as it is,
/// a directory is walked recursively. A symbolic link given is followed;
/// those below a directory only when `follow` is set (then a loop or a
/// dangling link is a warning). Everything else (a FIFO, a socket, a
/// device, a directory that cannot be read) is one call of `warn`; nothing
/// is opened here.
pub fn collect(roots: &[PathBuf], follow: bool, warn: &mut dyn FnMut(&Path, &str)) -> Walked {
    let mut w = Walked::default();
    for root in roots {
        for entry in WalkDir::new(root)
            .follow_links(follow)
            .follow_root_links(true)
            .sort_by_file_name()
        {
            let en = match entry {
                Ok(en) => en,
                Err(e) => {
                    let at = e.path().unwrap_or(root).to_path_buf();
                    warn(&at, &walk_error(&e, &at));
                    w.warned += 1;
                    continue;
                }
            };
            let ft = en.file_type();
            if ft.is_dir() {
                continue;
            }
            if ft.is_symlink() {
                w.links += 1;
                continue;
            }
            if !ft.is_file() {
                warn(en.path(), special(ft));
                w.warned += 1;
                continue;
            }
            let rel = match en.path().strip_prefix(root) {
                Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
                _ => en
                    .path()
                    .file_name()
                    .map_or_else(|| en.path().to_path_buf(), PathBuf::from),
            };
            w.files.push(Found {
                path: en.into_path(),
                rel,
            });
        }
    }
    w.files.sort();
    w.files.dedup_by(|a, b| a.path == b.path);
    w
}

/// What reading one file gave.
pub struct Read<T> {
    pub value: T,
    /// The file changed (size or time) or shrank while it was read.
    pub changed: bool,
    pub bytes: u64,
}

fn stamp(path: &Path) -> Option<(u64, Option<std::time::SystemTime>)> {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// Bytes of files the workers may hold at once. A parse touches much of
/// a large file (its symbol, string and relocation tables and its debug
/// information are read): those pages count in the process's memory for as
/// long as the file is open, so two large libraries read side by side
/// would hold both. A file that does not fit waits until the others are
/// done; one alone always goes, and so do small files beside it.
const BUDGET: u64 = 128 << 20;

/// A file this small goes beside any other.
const SMALL: u64 = 8 << 20;

/// The most of [`BUDGET`] a file read for nested formats only takes: such
/// a scan gives back the pages it read as it goes, and holds the inflated
/// bytes of one image at a time (`model::source::Pager`,
/// `Tree::drop_spaces_from`), so its memory does not grow with the file's
/// size. Two such files of any size go side by side.
const SCAN_SHARE: u64 = BUDGET / 2;

/// The bytes held by workers now, of [`BUDGET`], and how many workers
/// wait for a share too large to go now.
static HELD: std::sync::Mutex<(u64, usize)> = std::sync::Mutex::new((0, 0));
static FREED: std::sync::Condvar = std::sync::Condvar::new();

/// A worker's share of [`BUDGET`], given back when dropped.
struct Budget(u64);

impl Budget {
    /// Waits for `size` bytes of the budget. A large file waits until it
    /// fits; while one waits, small files wait too, so that it is not
    /// passed over until the list runs out.
    fn take(size: u64) -> Budget {
        let mut st = HELD.lock().unwrap_or_else(|e| e.into_inner());
        if size > SMALL {
            st.1 += 1;
            while st.0 > 0 && st.0 + size > BUDGET {
                st = FREED.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            st.1 -= 1;
        } else {
            while st.1 > 0 {
                st = FREED.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        }
        st.0 += size;
        FREED.notify_all();
        Budget(size)
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        let mut st = HELD.lock().unwrap_or_else(|e| e.into_inner());
        st.0 = st.0.saturating_sub(self.0);
        FREED.notify_all();
    }
}

/// Opens `path`, parses it with `options`, runs `work` on the tree and
/// drops it. An empty file, or one that cannot be opened, is the reason.
pub fn with_tree<T>(
    path: &Path,
    options: Options,
    work: impl FnOnce(&mut Tree) -> T,
) -> Result<Read<T>, String> {
    let before = stamp(path);
    // Taken before the file is opened (a small one is read into memory),
    // given back when its tree is gone.
    let size = before.map_or(0, |(len, _)| len);
    let _share = Budget::take(if options.nested_only {
        size.min(SCAN_SHARE)
    } else {
        size
    });
    // A scan for nested formats reads few pages of a file: it maps it.
    let src = if options.nested_only {
        Source::open_for_scan(path)
    } else {
        Source::open(path)
    };
    let src = Arc::new(src.map_err(|e| format!("{e}, skipped"))?);
    if src.is_empty() {
        return Err("is empty, skipped".into());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let mut tree = crate::formats::build_tree_with(src.clone(), &name, options);
    let value = work(&mut tree);
    drop(tree);
    let changed = src.file_changed() || stamp(path) != before;
    Ok(Read {
        value,
        changed,
        bytes: src.len(),
    })
}

/// What the folder list (`fwview DIR`) shows of a file: its format and
/// the targets of its device images, as `--targets` finds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The format of the file as a whole (None: none detected).
    pub format: Option<Format>,
    /// The images' targets as `--targets` prints them, each once, in the
    /// order of the images.
    pub targets: Vec<String>,
    /// How many images `--targets` lists.
    pub images: usize,
}

/// Opens `path` and reads its [`Summary`] with `options`: the root's
/// format and [`crate::targets::find`] on the tree, which is then dropped.
pub fn summarize(path: &Path, options: Options) -> Result<Read<Summary>, String> {
    with_tree(path, options, |tree| {
        let format = tree.node_format(tree.root());
        let images = crate::targets::find(tree);
        let mut targets: Vec<String> = Vec::new();
        for im in &images {
            if !targets.contains(&im.target) {
                targets.push(im.target.clone());
            }
        }
        Summary {
            format,
            targets,
            images: images.len(),
        }
    })
}

/// The message for a file that changed while it was read.
pub const CHANGED: &str =
    "changed while it was read; what is printed for it may mix old and new bytes";

/// Runs `work` on every item on the rayon pool and hands each result to
/// `emit` in the items' order, as soon as it and all before it are done.
/// Workers take the items in order, so few results wait. `emit` returns
/// false to stop (a closed pipe): the items not yet started are not.
pub fn in_order<I: Sync, T: Send>(
    items: &[I],
    work: impl Fn(&I) -> T + Sync,
    emit: impl FnMut(usize, T) -> bool,
) {
    let order: Vec<usize> = (0..items.len()).collect();
    in_order_taken(items, &order, work, emit);
}

/// As [`in_order`], but the workers take the largest files first (by
/// their size now): the largest file of a folder takes longest, and
/// started last it would leave one core working alone at the end. The
/// results still go to `emit` in the items' order; those of smaller files
/// wait meanwhile (a file's records, not its bytes).
pub fn in_order_largest_first<T: Send>(
    files: &[Found],
    work: impl Fn(&Found) -> T + Sync,
    emit: impl FnMut(usize, T) -> bool,
) {
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len()))
        .collect();
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes.get(i).copied().unwrap_or(0)));
    in_order_taken(files, &order, work, emit);
}

/// Runs `work` on `items[order[0]]`, `items[order[1]]`, … on the rayon
/// pool, and hands each result to `emit` in the items' own order.
fn in_order_taken<I: Sync, T: Send>(
    items: &[I],
    order: &[usize],
    work: impl Fn(&I) -> T + Sync,
    mut emit: impl FnMut(usize, T) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|s| {
        let (work, next, stop) = (&work, &next, &stop);
        s.spawn(move || {
            rayon::scope(|rs| {
                for _ in 0..rayon::current_num_threads() {
                    let tx = tx.clone();
                    rs.spawn(move |_| {
                        while !stop.load(Ordering::Relaxed) {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&i) = order.get(k) else {
                                break;
                            };
                            let Some(item) = items.get(i) else {
                                break;
                            };
                            if tx.send((i, work(item))).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
            drop(tx);
        });
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        'recv: for (i, v) in rx.iter() {
            waiting.insert(i, v);
            while let Some(v) = waiting.remove(&due) {
                if !emit(due, v) {
                    stop.store(true, Ordering::Relaxed);
                    break 'recv;
                }
                due += 1;
            }
        }
    });
}

/// A progress bar on standard error while it is a terminal; nothing
/// otherwise. Warnings go through it so that they do not tear the bar.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(files: usize) -> Progress {
        let target = if io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(files as u64), target);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} files, {elapsed} {wide_msg}")
        {
            bar.set_style(style);
        }
        Progress { bar }
    }

    pub fn warn(&self, path: &Path, reason: &str) {
        let line = warn_line(path, reason);
        self.bar.suspend(|| eprintln!("{line}"));
    }

    pub fn say(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    pub fn step(&self) {
        self.bar.inc(1);
    }

    pub fn done(&self) {
        self.bar.finish_and_clear();
    }
}

/// Warnings during the walk, before any bar is drawn.
fn warn_now(path: &Path, reason: &str) {
    eprintln!("{}", warn_line(path, reason));
}

/// How a run ended: the exit code to give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Success (an image found, the folders the same, a search run).
    Ok,
    /// No image, or folders that differ.
    No,
    /// Nothing could be read, or (for `--diff`) a file could not be.
    Trouble,
}

/// What a file's worker hands back: its records, what it read, and why
/// it could not.
type Done<T> = (Result<Read<T>, String>, PathBuf);

/// Writes the buffers of `files` as they come, with warnings for those
/// that could not be read or changed; `tally` sees each value read.
/// Returns how many were read, and stops on a write error.
fn drain<T: Send>(
    files: &[Found],
    work: impl Fn(&Found) -> Done<T> + Sync,
    out: &mut dyn Write,
    mut tally: impl FnMut(&T, u64),
    buf_of: impl Fn(&T) -> &[u8],
) -> io::Result<usize> {
    let progress = Progress::new(files.len());
    let mut read = 0;
    let mut err = None;
    in_order_largest_first(files, work, |_, (r, path)| {
        progress.step();
        match r {
            Ok(r) => {
                read += 1;
                tally(&r.value, r.bytes);
                if r.changed {
                    progress.warn(&path, CHANGED);
                }
                if let Err(e) = out.write_all(buf_of(&r.value)) {
                    err = Some(e);
                    return false;
                }
            }
            Err(reason) => progress.warn(&path, &reason),
        }
        true
    });
    progress.done();
    match err {
        Some(e) => Err(e),
        None => Ok(read),
    }
}

/// `--targets PATH…`: one line an image, the file first
/// (`FILE<TAB>format<TAB>target<TAB>kind<TAB>address`), or with `json`
/// one JSON object a line with `"schema"` and `"file"`; then a summary on
/// standard error. `Ok` when an image was found, `No` when none, `Trouble`
/// when no file could be read.
pub fn targets(
    roots: &[PathBuf],
    json: bool,
    follow: bool,
    options: Options,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let walked = collect(roots, follow, &mut warn_now);
    let work = |f: &Found| -> Done<(Vec<u8>, Vec<String>)> {
        let r = with_tree(&f.path, options, |tree| {
            let mut images = crate::targets::find(tree);
            let mut buf = Vec::new();
            for im in &mut images {
                if im.path.is_empty() {
                    im.path = printed_address("").to_string();
                }
            }
            // Writing into a Vec cannot fail.
            let _ = if json {
                crate::targets::write_json_lines(&raw(&f.path), &images, &mut buf)
            } else {
                crate::targets::write_text_of(Some(&shown(&f.path)), &images, &mut buf)
            };
            (buf, images.into_iter().map(|i| i.target).collect())
        });
        (r, f.path.clone())
    };
    let mut with_images = 0usize;
    let mut per_target: BTreeMap<String, usize> = BTreeMap::new();
    let mut bytes = 0u64;
    let read = drain(
        &walked.files,
        work,
        out,
        |(_, ts), n| {
            bytes += n;
            if !ts.is_empty() {
                with_images += 1;
            }
            for t in ts {
                *per_target.entry(t.clone()).or_default() += 1;
            }
        },
        |(buf, _)| buf,
    )?;
    out.flush()?;
    let images: usize = per_target.values().sum();
    let skipped = walked.files.len() - read + walked.warned;
    let mut line = format!(
        "fwview: {read} file{} read ({}), {with_images} with device images, {images} image{}",
        plural(read),
        size_text(bytes),
        plural(images),
    );
    if skipped > 0 {
        line.push_str(&format!("; {skipped} skipped"));
    }
    if walked.links > 0 {
        line.push_str(&format!(
            "; {} symbolic link{} not followed (--follow)",
            walked.links,
            plural(walked.links)
        ));
    }
    eprintln!("{line}");
    if !per_target.is_empty() {
        let each: Vec<String> = per_target
            .iter()
            .map(|(t, n)| format!("{} {n}", text::clean(if t.is_empty() { "-" } else { t })))
            .collect();
        eprintln!("fwview: images per target: {}", each.join(", "));
    }
    Ok(if read == 0 {
        Outcome::Trouble
    } else if images == 0 {
        Outcome::No
    } else {
        Outcome::Ok
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn size_text(n: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let f = n as f64;
    if f >= 1024.0 * MIB {
        format!("{:.1} GiB", f / (1024.0 * MIB))
    } else if f >= MIB {
        format!("{:.1} MiB", f / MIB)
    } else {
        format!("{n} bytes")
    }
}

/// `--find PATTERN PATH…`: every match as `FILE:0xOFFSET` (`FILE:K:0x…` in
/// a derived space), node matches followed by two spaces and the address.
/// As grep: `Ok` when something matched, `No` when nothing did, `Trouble`
/// when no file could be read.
pub fn find(
    roots: &[PathBuf],
    pat: &crate::search::Pattern,
    follow: bool,
    options: Options,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let walked = collect(roots, follow, &mut warn_now);
    let work = |f: &Found| -> Done<(Vec<u8>, u64)> {
        let lead = format!("{}:", shown(&f.path));
        let r = with_tree(&f.path, options, |tree| {
            let mut buf = Vec::new();
            let n = crate::export::find_matches(tree, pat, &lead, &mut buf).unwrap_or(0);
            (buf, n)
        });
        (r, f.path.clone())
    };
    let mut matches = 0;
    let read = drain(
        &walked.files,
        work,
        out,
        |(_, n), _| matches += n,
        |(b, _)| b,
    )?;
    out.flush()?;
    Ok(if read == 0 {
        Outcome::Trouble
    } else if matches == 0 {
        Outcome::No
    } else {
        Outcome::Ok
    })
}

/// One pair of `--diff DIR_A DIR_B`, by relative path.
struct Pair {
    rel: PathBuf,
    a: Option<PathBuf>,
    b: Option<PathBuf>,
}

/// What comparing a pair gave.
enum Compared {
    Same,
    Changed(Vec<u8>),
    /// A file could not be read: its path and why.
    Trouble(PathBuf, String),
}

/// Compares the files `a` and `b`: the same bytes are the same without
/// parsing; otherwise today's `--diff` of the two trees, as text lines
/// indented two spaces or as one JSON list on one line.
fn compare(
    a: &Path,
    b: &Path,
    json: bool,
    options: Options,
    changes: crate::diff::Options,
) -> Compared {
    let open = |p: &Path| Source::open(p).map(Arc::new).map_err(|e| e.to_string());
    let sa = match open(a) {
        Ok(s) => s,
        Err(e) => return Compared::Trouble(a.to_path_buf(), e),
    };
    let sb = match open(b) {
        Ok(s) => s,
        Err(e) => return Compared::Trouble(b.to_path_buf(), e),
    };
    if sa.bytes() == sb.bytes() {
        return Compared::Same;
    }
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut ta = crate::formats::build_tree_with(sa, &name(a), options);
    let mut tb = crate::formats::build_tree_with(sb, &name(b), options);
    let mut buf = Vec::new();
    let counts = if json {
        crate::export::diff_json(&mut ta, &mut tb, changes, &mut buf)
    } else {
        crate::export::diff_text(&mut ta, &mut tb, changes, &mut buf)
    };
    match counts {
        Ok(c) if c.is_empty() => Compared::Same,
        Ok(_) if json => {
            // One record a line: the list's own line breaks go (a JSON
            // string holds none).
            buf.retain(|&c| c != b'\n');
            Compared::Changed(buf)
        }
        Ok(_) => {
            let mut indented = Vec::with_capacity(buf.len() + buf.len() / 16);
            for line in buf.split_inclusive(|&c| c == b'\n') {
                indented.extend_from_slice(b"  ");
                indented.extend_from_slice(line);
            }
            Compared::Changed(indented)
        }
        Err(e) => Compared::Trouble(a.to_path_buf(), e.to_string()),
    }
}

/// `--diff DIR_A DIR_B`: files paired by their path below each directory.
/// A file only in A is `removed: REL`, only in B `added: REL`; a pair
/// that differs is `changed: REL` and today's `--diff` lines below it,
/// indented two spaces. With `json`, one object a line:
/// `{"schema", "file", "status", "changes"}` (`changes` only for
/// `changed`, today's `--diff --json` list). `Ok` when all is the same,
/// `No` when anything differs, `Trouble` when a file could not be read.
pub fn diff(
    dir_a: &Path,
    dir_b: &Path,
    json: bool,
    follow: bool,
    options: Options,
    changes: crate::diff::Options,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut trouble = false;
    let mut side = |d: &Path| {
        let w = collect(&[d.to_path_buf()], follow, &mut |p, r| {
            trouble = true;
            warn_now(p, r)
        });
        w.files
            .into_iter()
            .map(|f| (f.rel, f.path))
            .collect::<BTreeMap<_, _>>()
    };
    let mut a = side(dir_a);
    let mut b = side(dir_b);
    let rels: BTreeSet<PathBuf> = a.keys().chain(b.keys()).cloned().collect();
    let pairs: Vec<Pair> = rels
        .into_iter()
        .map(|rel| Pair {
            a: a.remove(&rel),
            b: b.remove(&rel),
            rel,
        })
        .collect();
    let progress = Progress::new(pairs.len());
    let (mut added, mut removed, mut changed, mut same) = (0usize, 0usize, 0usize, 0usize);
    let mut err = None;
    in_order(
        &pairs,
        |p| match (&p.a, &p.b) {
            (Some(x), Some(y)) => Some(compare(x, y, json, options, changes)),
            _ => None,
        },
        |i, c| {
            progress.step();
            let Some(p) = pairs.get(i) else {
                return true;
            };
            let mut buf = Vec::new();
            let status = match (&p.a, &p.b, c) {
                (Some(_), None, _) => {
                    removed += 1;
                    "removed"
                }
                (None, Some(_), _) => {
                    added += 1;
                    "added"
                }
                (_, _, Some(Compared::Changed(lines))) => {
                    changed += 1;
                    buf = lines;
                    "changed"
                }
                (_, _, Some(Compared::Trouble(path, why))) => {
                    trouble = true;
                    progress.warn(&path, &why);
                    return true;
                }
                _ => {
                    same += 1;
                    return true;
                }
            };
            let mut line = Vec::new();
            if json {
                let _ = write!(line, "{{\"schema\": {SCHEMA}, \"file\": ");
                let _ = json_str(&mut line, &raw(&p.rel));
                let _ = write!(line, ", \"status\": \"{status}\"");
                if !buf.is_empty() {
                    line.extend_from_slice(b", \"changes\": ");
                    line.extend_from_slice(&buf);
                }
                line.extend_from_slice(b"}\n");
            } else {
                let _ = writeln!(line, "{status}: {}", shown(&p.rel));
                line.extend_from_slice(&buf);
            }
            if let Err(e) = out.write_all(&line) {
                err = Some(e);
                return false;
            }
            true
        },
    );
    progress.done();
    if let Some(e) = err {
        return Err(e);
    }
    out.flush()?;
    eprintln!(
        "fwview: {} pair{} the same, {changed} changed, {added} added, {removed} removed",
        same,
        plural(same),
    );
    Ok(if trouble {
        Outcome::Trouble
    } else if added + removed + changed > 0 {
        Outcome::No
    } else {
        Outcome::Ok
    })
}
