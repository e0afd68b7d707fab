//! What changed between two trees, by address, as the diff reports it:
//! the marks of the two-file view's rows and of the rows a reload changed,
//! and how the children of two nodes pair up.

use std::ops::ControlFlow;

use compact_str::CompactString;
use ratatui::style::{Color, Modifier, Style};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::diff::{self, Change, Counts};
use crate::model::{NodeId, Tree};

/// The mark of one aligned row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Same,
    Changed,
    Added,
    Removed,
    /// The background diff has not answered yet.
    Pending,
}

impl Mark {
    pub fn sign(self) -> char {
        match self {
            Mark::Same => ' ',
            Mark::Changed => '~',
            Mark::Added => '+',
            Mark::Removed => '-',
            Mark::Pending => '?',
        }
    }
    pub fn style(self) -> Style {
        match self {
            Mark::Same | Mark::Pending => Style::new(),
            Mark::Changed => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Mark::Added => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            Mark::Removed => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }
}

/// The addresses the diff reported, and the addresses above them.
#[derive(Default)]
pub struct Changes {
    pub exact: FxHashMap<String, Change>,
    pub above: FxHashSet<String>,
    pub counts: Counts,
}

/// Splits an address at its unescaped `/`.
fn prefixes(path: &str) -> Vec<&str> {
    let mut out = vec![""];
    let mut esc = false;
    for (i, c) in path.char_indices() {
        if esc {
            esc = false;
        } else if c == '\\' {
            esc = true;
        } else if c == '/' {
            out.push(path.get(..i).unwrap_or_default());
        }
    }
    out
}

impl Changes {
    pub fn add(&mut self, path: String, change: Change) {
        for p in prefixes(&path) {
            if !self.above.contains(p) {
                self.above.insert(p.to_string());
            }
        }
        self.exact.insert(path, change);
    }

    /// Runs the diff of two trees and keeps what it reports.
    pub fn compute(a: &mut Tree, b: &mut Tree) -> Changes {
        let mut c = Changes::default();
        let counts = diff::diff(a, b, &mut |r| {
            c.add(r.path, r.change);
            ControlFlow::Continue(())
        });
        c.counts = counts;
        c
    }

    /// The mark of a row present on both sides.
    pub(super) fn both(&self, path: &str) -> Mark {
        if self.exact.contains_key(path) || self.above.contains(path) {
            Mark::Changed
        } else {
            Mark::Same
        }
    }

    /// The mark of a node of B (the newer tree) at `path`: added where the
    /// diff said so, changed where it or something below it changed.
    pub fn of_b(&self, path: &str) -> Mark {
        match self.exact.get(path) {
            Some(Change::Added) => Mark::Added,
            Some(_) => Mark::Changed,
            None if self.above.contains(path) => Mark::Changed,
            None => Mark::Same,
        }
    }

    /// Whether something reported lies below (not at) `path`.
    pub(super) fn inside(&self, path: &str) -> bool {
        self.above.contains(path)
    }
}

/// One row: the node on each side (or none), its depth, address and mark.
#[derive(Clone, Debug)]
pub struct Row {
    pub a: Option<NodeId>,
    pub b: Option<NodeId>,
    pub depth: usize,
    pub path: String,
    pub mark: Mark,
    pub has_kids: bool,
}

/// Pairs the children of two nodes by identity and occurrence, in B's
/// order with A's unmatched children where they stood.
/// Instructions pair as sequences ([`diff::align_code`]).
pub fn align(
    a: &Tree,
    ka: &[NodeId],
    b: &Tree,
    kb: &[NodeId],
) -> Vec<(Option<NodeId>, Option<NodeId>)> {
    if let Some(p) = diff::align_code(a, ka, b, kb) {
        return p;
    }
    let mut seen: FxHashMap<CompactString, usize> = FxHashMap::default();
    let mut index: FxHashMap<(CompactString, usize), usize> = FxHashMap::default();
    for (i, &k) in ka.iter().enumerate() {
        let key = diff::ident(a, k);
        let n = seen.entry(key.clone()).or_insert(0);
        index.insert((key, *n), i);
        *n += 1;
    }
    seen.clear();
    let mut used = vec![false; ka.len()];
    let mut out = Vec::with_capacity(ka.len().max(kb.len()));
    let mut next_a = 0usize;
    for &k in kb {
        let key = diff::ident(b, k);
        let n = seen.entry(key.clone()).or_insert(0);
        let occ = *n;
        *n += 1;
        match index.get(&(key, occ)).copied() {
            Some(i) => {
                // A's unmatched children before this one come first.
                while next_a < i {
                    if !used.get(next_a).copied().unwrap_or(true) {
                        if let Some(u) = used.get_mut(next_a) {
                            *u = true;
                        }
                        out.extend(ka.get(next_a).map(|&x| (Some(x), None)));
                    }
                    next_a += 1;
                }
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                out.push((ka.get(i).copied(), Some(k)));
            }
            None => out.push((None, Some(k))),
        }
    }
    for (i, &x) in ka.iter().enumerate() {
        if !used.get(i).copied().unwrap_or(true) {
            out.push((Some(x), None));
        }
    }
    out
}

pub fn join(path: &str, seg: &str) -> String {
    if path.is_empty() {
        seg.to_string()
    } else {
        format!("{path}/{seg}")
    }
}

#[cfg(test)]
mod tests {
    use super::prefixes;

    #[test]
    fn prefixes_skip_escaped_slashes() {
        assert_eq!(prefixes("a/b\\/c/d"), vec!["", "a", "a/b\\/c"]);
        assert_eq!(prefixes("x"), vec![""]);
    }
}
