//! The folder list's data (`fwview DIR`): the files the walk of
//! `--targets DIR` finds, in path order, each with its size and, once the
//! background scan has read it, its format and the targets of its device
//! images (a [`Summary`], as `--targets` finds them), or why it could not
//! be read; and which of them a filter keeps. The view is `folder.rs`.
//!
//! A record is kept small (a path, a size, a state), so that a folder of
//! 100,000 files costs a few tens of MB.

use std::path::{Path, PathBuf};

use crate::folders::{self, Read, Summary};
use crate::model::{Format, Options};

/// What the scan knows of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Not read yet.
    Waiting,
    /// Read: its format and targets; `changed` when the file changed
    /// while it was read.
    Read {
        summary: Box<Summary>,
        changed: bool,
    },
    /// Not read, and why (a FIFO, an empty file, no permission…), as
    /// `--targets` warns of it.
    Failed(Box<str>),
}

/// One file of the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The path below the folder.
    pub rel: Box<Path>,
    /// Its size in bytes (as the walk found it).
    pub size: u64,
    pub state: State,
}

impl Entry {
    /// The format's name, once read (`-` when none was detected).
    pub fn format(&self) -> Option<&'static str> {
        match &self.state {
            State::Read { summary, .. } => Some(summary.format.map_or("-", Format::name)),
            _ => None,
        }
    }
}

/// What the walk of a folder found: every entry, in path order.
#[derive(Debug, Default)]
pub struct Walk {
    pub entries: Vec<Entry>,
    /// Symbolic links below the folder, not followed (as `--targets`).
    pub links: usize,
}

/// The folder's files and how far the scan has got.
#[derive(Debug)]
pub struct Listing {
    pub root: PathBuf,
    pub entries: Vec<Entry>,
    /// The walk has not reported yet.
    pub walking: bool,
    pub links: usize,
    /// Files the scan reads, and how many it has read.
    pub to_read: usize,
    pub read: usize,
    /// Bytes of those files, and of those read so far.
    pub bytes: u64,
    pub bytes_read: u64,
}

impl Listing {
    pub fn new(root: PathBuf) -> Listing {
        Listing {
            root,
            entries: Vec::new(),
            walking: true,
            links: 0,
            to_read: 0,
            read: 0,
            bytes: 0,
            bytes_read: 0,
        }
    }

    /// Takes what the walk found.
    pub fn walked(&mut self, w: Walk) {
        self.walking = false;
        self.links = w.links;
        self.to_read = w
            .entries
            .iter()
            .filter(|e| e.state == State::Waiting)
            .count();
        self.bytes = w
            .entries
            .iter()
            .filter(|e| e.state == State::Waiting)
            .map(|e| e.size)
            .sum();
        self.entries = w.entries;
    }

    /// Takes what reading entry `index` gave.
    pub fn scanned(&mut self, index: usize, r: Result<Read<Summary>, String>) {
        let Some(e) = self.entries.get_mut(index) else {
            return;
        };
        self.read += 1;
        self.bytes_read += e.size;
        e.state = match r {
            Ok(r) => State::Read {
                summary: Box::new(r.value),
                changed: r.changed,
            },
            Err(why) => State::Failed(why.into()),
        };
    }

    /// The walk and the scan are over.
    pub fn done(&self) -> bool {
        !self.walking && self.read >= self.to_read
    }

    /// The path to open entry `index` at.
    pub fn path(&self, index: usize) -> Option<PathBuf> {
        self.entries.get(index).map(|e| self.root.join(&e.rel))
    }

    /// The entries whose path (as shown) holds `filter`, letters of either
    /// case, in path order.
    pub fn matching(&self, filter: &str) -> Vec<usize> {
        let want = filter.to_lowercase();
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                want.is_empty() || folders::shown(&e.rel).to_lowercase().contains(&want)
            })
            .map(|(i, _)| i)
            .collect()
    }
}

/// Walks `root` as `--targets ROOT` does (recursively; symbolic links
/// below it not followed): its regular files wait to be read, and what it
/// warns of (a FIFO, a socket, a device, a folder that cannot be read)
/// is an entry that failed, with the reason. In path order.
pub fn walk(root: &Path) -> Walk {
    let mut odd: Vec<(PathBuf, String)> = Vec::new();
    let w = folders::collect(&[root.to_path_buf()], false, &mut |p, why| {
        odd.push((p.to_path_buf(), why.to_string()))
    });
    let mut entries: Vec<Entry> = w
        .files
        .into_iter()
        .map(|f| {
            let (size, state) = match std::fs::metadata(&f.path) {
                Ok(m) => (m.len(), State::Waiting),
                Err(e) => (0, State::Failed(format!("{e}, skipped").into())),
            };
            Entry {
                rel: f.rel.into_boxed_path(),
                size,
                state,
            }
        })
        .collect();
    entries.extend(odd.into_iter().map(|(p, why)| {
        Entry {
            size: std::fs::symlink_metadata(&p).map_or(0, |m| m.len()),
            rel: p
                .strip_prefix(root)
                .map_or_else(|_| p.clone(), Path::to_path_buf)
                .into_boxed_path(),
            state: State::Failed(why.into()),
        }
    }));
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    Walk {
        entries,
        links: w.links,
    }
}

/// Reads the waiting entries of `walk` (under `root`) on every core, as
/// `--targets` reads them (without instructions), and hands each result
/// to `emit` with the entry's index, in path order; `emit` returns false
/// to stop.
pub fn scan(
    root: &Path,
    walk: &Walk,
    mut emit: impl FnMut(usize, Result<Read<Summary>, String>) -> bool,
) {
    let jobs: Vec<(usize, PathBuf)> = walk
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.state == State::Waiting)
        .map(|(i, e)| (i, root.join(&e.rel)))
        .collect();
    let options = Options {
        code: false,
        arg_names: None,
        nested_only: true,
    };
    folders::in_order(
        &jobs,
        |(_, p)| folders::summarize(p, options),
        |k, r| jobs.get(k).is_some_and(|(i, _)| emit(*i, r)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rel: &str, state: State) -> Entry {
        Entry {
            rel: PathBuf::from(rel).into_boxed_path(),
            size: 10,
            state,
        }
    }

    fn listing() -> Listing {
        let mut l = Listing::new(PathBuf::from("/pkg"));
        l.walked(Walk {
            entries: vec![
                entry("a.o", State::Waiting),
                entry("lib/fifo", State::Failed("is a FIFO, skipped".into())),
                entry("lib/libHIP.so", State::Waiting),
                entry("lib/sub/kernel.hipfb", State::Waiting),
            ],
            links: 1,
        });
        l
    }

    #[test]
    fn the_filter_keeps_paths_holding_it_in_either_case() {
        let l = listing();
        assert_eq!(l.matching(""), vec![0, 1, 2, 3]);
        assert_eq!(l.matching("lib/"), vec![1, 2, 3]);
        assert_eq!(l.matching("HIP"), vec![2, 3]);
        assert_eq!(l.matching("Q"), Vec::<usize>::new());
        assert_eq!(l.matching("sub/k"), vec![3]);
    }

    #[test]
    fn what_is_read_fills_in_and_counts() {
        let mut l = listing();
        assert_eq!((l.to_read, l.bytes, l.read), (3, 30, 0));
        assert!(!l.done());
        l.scanned(
            2,
            Ok(Read {
                value: Summary {
                    format: Some(Format::Elf),
                    targets: vec!["gfx90a".into()],
                    images: 1,
                },
                changed: false,
                bytes: 10,
            }),
        );
        l.scanned(0, Err("is empty, skipped".into()));
        l.scanned(3, Err("Permission denied, skipped".into()));
        assert_eq!((l.read, l.bytes_read), (3, 30));
        assert!(l.done());
        assert_eq!(l.entries[2].format(), Some("elf"));
        assert_eq!(
            l.entries[0].state,
            State::Failed("is empty, skipped".into())
        );
        assert_eq!(l.path(3), Some(PathBuf::from("/pkg/lib/sub/kernel.hipfb")));
    }

    /// The walk gives path order, name by name (a folder's files right
    /// after its name), the odd entries among them with their reason.
    #[test]
    fn the_walk_is_in_path_order_with_the_odd_entries_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        std::fs::write(root.join("b/c/z"), b"z").unwrap();
        std::fs::write(root.join("b.txt"), b"bb").unwrap();
        std::fs::write(root.join("a"), b"").unwrap();
        #[cfg(unix)]
        {
            let c =
                std::ffi::CString::new(root.join("b/fifo").as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        }
        let w = walk(root);
        let rels: Vec<String> = w
            .entries
            .iter()
            .map(|e| e.rel.display().to_string())
            .collect();
        assert_eq!(rels, ["a", "b/c/z", "b/fifo", "b.txt"]);
        assert_eq!(w.entries[3].size, 2);
        assert_eq!(
            w.entries[2].state,
            State::Failed("is a FIFO, skipped".into())
        );
        assert_eq!(w.links, 1);
    }
}
