//! What a search found and how far it got: the state the explorer keeps
//! of its last search, and the search itself, run on a tree of its own.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::model::Tree;
use crate::search::{self, NodeMatch, Pattern};

/// Builds a second tree of the same file, for background searches.
pub type Rebuild = super::document::Parse;

/// What a running search counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Bytes of the file searched, of `total`.
    Bytes { done: u64, total: u64 },
    /// Nodes looked at (node search, or finding the derived spaces).
    Nodes(u64),
}

/// A search still running in the background.
pub struct Running {
    pub cancel: Arc<AtomicBool>,
    pub progress: Progress,
}

/// Byte matches in one derived space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceHits {
    /// The address of the space's first node: it finds the space again.
    pub root: String,
    /// Where the space came from ([`crate::model::Space::describe`]).
    pub describe: String,
    /// Start offsets in the space, in order.
    pub matches: Vec<u64>,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub matches: Vec<u64>,
    pub derived: Vec<SpaceHits>,
    pub nodes: Vec<NodeMatch>,
    pub complete: bool,
}

/// The last search and where its matches are.
pub struct SearchState {
    pub id: u64,
    pub query: String,
    /// Bytes a byte match covers (0 for a node search).
    pub len: u64,
    /// Start offsets of byte matches in the file, in order.
    pub matches: Vec<u64>,
    /// Byte matches in derived spaces, after those in the file.
    pub derived: Vec<SpaceHits>,
    /// Node matches, in tree order.
    pub nodes: Vec<NodeMatch>,
    pub current: Option<usize>,
    /// The status bar says `match k of m` until the next key.
    pub shown: bool,
    pub running: Option<Running>,
    /// False when the search stopped early (cancelled, or too many).
    pub complete: bool,
    /// What the search is for.
    pub purpose: Purpose,
}

/// What a search runs for: `/`, a goto by name, or a filter of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Search,
    Goto,
    Filter,
}

impl SearchState {
    pub fn count(&self) -> usize {
        if self.len == 0 {
            self.nodes.len()
        } else {
            self.matches.len() + self.derived.iter().map(|d| d.matches.len()).sum::<usize>()
        }
    }

    /// The byte matches of group `g` (0: the file, then each derived space).
    pub(super) fn group(&self, g: usize) -> &[u64] {
        if g == 0 {
            &self.matches
        } else {
            self.derived.get(g - 1).map_or(&[], |d| &d.matches)
        }
    }

    /// Global index of the first match of group `g`.
    pub(super) fn base(&self, g: usize) -> usize {
        (0..g).map(|k| self.group(k).len()).sum()
    }

    /// Group and offset of global match `i`.
    pub(super) fn locate(&self, mut i: usize) -> Option<(usize, u64)> {
        for g in 0..=self.derived.len() {
            let m = self.group(g);
            if let Some(&o) = m.get(i) {
                return Some((g, o));
            }
            i -= m.len();
        }
        None
    }
}

/// Runs a search on `tree` (a tree of its own): the whole of it, unless
/// `cancel` is set.
pub fn run_search(
    tree: &mut Tree,
    pat: &Pattern,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Found {
    let mut f = Found::default();
    match pat {
        Pattern::Nodes { .. } | Pattern::Named(_) => {
            let found = search::find_pattern_nodes(tree, pat, cancel, &mut |n| {
                progress(Progress::Nodes(n))
            });
            if let Some((nodes, complete)) = found {
                f.nodes = nodes;
                f.complete = complete;
            }
        }
        Pattern::Bytes { bytes, fold } => {
            let total = tree.data().len() as u64;
            f.matches = search::find_bytes(bytes, *fold, tree.data(), cancel, &mut |done| {
                progress(Progress::Bytes { done, total })
            });
            let mut left = search::MAX_MATCHES.saturating_sub(f.matches.len());
            if !cancel.load(Ordering::Relaxed) && left > 0 {
                let roots =
                    search::space_roots(tree, cancel, &mut |n| progress(Progress::Nodes(n)));
                for (sid, root) in roots {
                    if cancel.load(Ordering::Relaxed) || left == 0 {
                        break;
                    }
                    let mut m = search::find_bytes(
                        bytes,
                        *fold,
                        tree.space_bytes(sid),
                        cancel,
                        &mut |_| {},
                    );
                    m.truncate(left);
                    left -= m.len();
                    if !m.is_empty() {
                        let describe = tree
                            .spaces()
                            .get(sid.index())
                            .map(|s| s.describe())
                            .unwrap_or_default();
                        f.derived.push(SpaceHits {
                            root,
                            describe,
                            matches: m,
                        });
                    }
                }
            }
            f.complete = !cancel.load(Ordering::Relaxed) && left > 0;
        }
    }
    f
}
