//! The tree's filter (`F`) as data: what matched and what shows. The app
//! makes and clears it in `filtering.rs`.

use std::collections::HashSet;

use crate::model::{NodeId, Severity};

/// At most this many matches are shown by a filter.
pub const MAX_SHOWN: usize = 10_000;
/// `*` opens at most this many nodes.
pub const MAX_OPENED: usize = 20_000;

/// The filter in force.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// What was typed.
    pub query: String,
    /// The nodes that matched.
    pub matched: HashSet<NodeId>,
    /// Every node shown: the matches and the nodes above them.
    pub keep: HashSet<NodeId>,
    /// False where the matches were cut short.
    pub complete: bool,
    /// The open nodes before the filter, given back when it is cleared.
    pub(super) before: HashSet<NodeId>,
}

impl Filter {
    /// Whether `id`'s children are thinned: it is above a match and not
    /// one itself.
    pub(super) fn thins(&self, id: NodeId) -> bool {
        self.keep.contains(&id) && !self.matched.contains(&id)
    }
}

/// The severity a `!` filter names, and those above it.
pub(super) fn severity_filter(q: &str) -> Option<&'static [Severity]> {
    match q.trim().to_ascii_lowercase().as_str() {
        "!error" | "!errors" => Some(&[Severity::Error]),
        "!warning" | "!warnings" => Some(&[Severity::Error, Severity::Warning]),
        "!info" | "!" => Some(&[Severity::Error, Severity::Warning, Severity::Info]),
        _ => None,
    }
}
