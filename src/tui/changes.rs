//! What changed between two trees, by address, as the diff reports it:
//! the marks of the rows of the view of two files and of the rows a reload
//! changed.

use std::ops::ControlFlow;
use std::sync::Arc;

use ratatui::style::{Color, Modifier, Style};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::diff::{self, Change, Counts};
use crate::model::Tree;

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

/// Which of two files an explorer shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

/// An explorer's part in the view of two files: which file it shows, the
/// two names (its own first), whether it has the keys, and what the diff
/// of the two found, once it has answered.
#[derive(Clone)]
pub struct Compare {
    pub side: Side,
    pub names: (String, String),
    pub focused: bool,
    pub changes: Option<Arc<Changes>>,
}

impl Compare {
    /// The mark of the row of the node at `path`: pending until the diff
    /// has answered.
    pub fn mark(&self, path: &str) -> Mark {
        match &self.changes {
            Some(c) => c.of(self.side, path),
            None => Mark::Pending,
        }
    }
}

/// The addresses the diff reported on one side, and the addresses above
/// them.
#[derive(Default)]
pub struct Marks {
    exact: FxHashMap<String, Change>,
    above: FxHashSet<String>,
}

impl Marks {
    /// Marks the addresses above `path`, and `path` itself as `change`
    /// when the node there is on this side.
    fn add(&mut self, path: &str, change: Option<Change>) {
        for p in prefixes(path) {
            if !self.above.contains(p) {
                self.above.insert(p.to_string());
            }
        }
        if let Some(c) = change {
            self.exact.insert(path.to_string(), c);
        }
    }
}

/// What the diff reported, as each side's addresses: the two differ below
/// a compressed container paired with the plain form it holds.
#[derive(Default)]
pub struct Changes {
    pub a: Marks,
    pub b: Marks,
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
    /// Keeps one record of the diff: the node's address on each side where
    /// it has one, the place it would be on the other.
    pub fn add(&mut self, r: &diff::Record) {
        let other = r.other.as_deref().unwrap_or(&r.path);
        match r.change {
            Change::Changed => {
                self.b.add(&r.path, Some(Change::Changed));
                self.a.add(other, Some(Change::Changed));
            }
            Change::Added => {
                self.b.add(&r.path, Some(Change::Added));
                self.a.add(other, None);
            }
            Change::Removed => {
                self.a.add(&r.path, Some(Change::Removed));
                self.b.add(other, None);
            }
        }
    }

    /// Runs the diff of two trees and keeps what it reports.
    pub fn compute(a: &mut Tree, b: &mut Tree) -> Changes {
        let mut c = Changes::default();
        let counts = diff::diff(a, b, diff::Options::default(), &mut |r| {
            c.add(&r);
            ControlFlow::Continue(())
        });
        c.counts = counts;
        c
    }

    fn side(&self, side: Side) -> &Marks {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    /// The mark of the node at `path` on `side`: removed (A) or added (B)
    /// where the diff said so, changed where it or something below it
    /// changed.
    pub fn of(&self, side: Side, path: &str) -> Mark {
        let m = self.side(side);
        match m.exact.get(path) {
            Some(Change::Removed) => Mark::Removed,
            Some(Change::Added) => Mark::Added,
            Some(Change::Changed) => Mark::Changed,
            None if m.above.contains(path) => Mark::Changed,
            None => Mark::Same,
        }
    }

    /// Whether the node at `path` on `side` is itself a change (not only
    /// above one).
    pub fn is_change(&self, side: Side, path: &str) -> bool {
        self.side(side).exact.contains_key(path)
    }

    /// Whether something reported on `side` lies below (not at) `path`.
    pub(super) fn inside(&self, side: Side, path: &str) -> bool {
        self.side(side).above.contains(path)
    }
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
