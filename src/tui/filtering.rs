//! Filtering the tree (`F`): only the nodes whose name or value holds a
//! text, or that hold a diagnostic of a severity, with the nodes above
//! them; and `*`, which opens a node's whole subtree.
//!
//! A text filter runs as a node search in the background (the same walk as
//! `/` `n:`); its matches are found again in the explorer's tree by their
//! addresses. Under a match every child shows; above one, only the
//! children on the way to a match.

use std::collections::HashSet;

use super::app::App;
use super::filter::{severity_filter, Filter, MAX_OPENED, MAX_SHOWN};
use crate::model::{text, NodeId};
use crate::search::NodeMatch;

impl App {
    /// The children of `id` as the tree shows them: all of those built,
    /// unless a filter thins them.
    pub fn shown_children(&self, id: NodeId) -> Vec<NodeId> {
        let kids = self.doc.tree.built_children(id);
        match &self.filter {
            Some(f) if f.thins(id) => kids
                .iter()
                .copied()
                .filter(|k| f.keep.contains(k))
                .collect(),
            _ => kids.to_vec(),
        }
    }

    /// Applies what was typed in the filter prompt: `!error`, `!warning`
    /// or `!info` keep the nodes holding such diagnostics; any other text
    /// starts a node search whose matches then make the filter.
    pub fn start_filter(&mut self, query: &str) {
        if let Some(sev) = severity_filter(query) {
            let mut found: Vec<NodeId> = Vec::new();
            let diags: Vec<_> = self
                .doc
                .tree
                .diagnostics()
                .iter()
                .filter(|d| sev.contains(&d.severity))
                .map(|d| d.span)
                .collect();
            for at in diags.into_iter().take(MAX_SHOWN) {
                let top = self.space_top(at.space).unwrap_or(self.doc.tree.root());
                found.push(self.doc.tree.smallest_containing_from(top, at));
            }
            self.apply_filter(query, found, true);
            return;
        }
        let pat = crate::search::Pattern::Nodes {
            text: query.to_string(),
            fold: !self.case_sensitive,
        };
        self.start_pattern(query, pat, super::matches::Purpose::Filter);
    }

    /// Makes the filter from a node search's matches.
    pub(super) fn filter_from(&mut self, query: &str, nodes: &[NodeMatch], complete: bool) {
        let mut found = Vec::new();
        for m in nodes.iter().take(MAX_SHOWN) {
            if let Some(id) = self.doc.tree.find_path(&m.path) {
                found.push(id);
            }
        }
        self.apply_filter(query, found, complete && nodes.len() <= MAX_SHOWN);
    }

    pub(super) fn apply_filter(&mut self, query: &str, found: Vec<NodeId>, complete: bool) {
        if found.is_empty() {
            self.message = Some((format!("no node matches {}", text::clean(query)), true));
            return;
        }
        let before = match self.filter.take() {
            Some(f) => f.before,
            None => self.opened.clone(),
        };
        let mut f = Filter {
            query: query.to_string(),
            matched: found.iter().copied().collect(),
            keep: HashSet::new(),
            complete,
            before,
        };
        for &id in &found {
            for a in self.id_path(id) {
                f.keep.insert(a);
            }
        }
        let n = f.matched.len();
        // Open the way to every match.
        let above: Vec<NodeId> = f.keep.iter().copied().filter(|k| f.thins(*k)).collect();
        self.filter = Some(f);
        for a in above {
            self.open(a);
        }
        if let Some(&first) = found.first() {
            self.select(first, true);
        }
        let more = if complete { "" } else { " (the first)" };
        self.message = Some((
            format!(
                "{n}{more} {} shown; Esc clears the filter",
                if n == 1 { "match" } else { "matches" }
            ),
            false,
        ));
    }

    /// Clears the filter, closing what it opened.
    pub fn clear_filter(&mut self) {
        let Some(f) = self.filter.take() else {
            return;
        };
        // The nodes above the selection stay open, to keep it shown.
        let sel = self.selected;
        let path: HashSet<NodeId> = self
            .id_path(sel)
            .into_iter()
            .filter(|&a| a != sel)
            .collect();
        let opened: Vec<NodeId> = self.opened.iter().copied().collect();
        for id in opened {
            if !f.before.contains(&id) && !path.contains(&id) {
                self.close(id);
            }
        }
        self.select(sel, false);
        self.message = Some(("filter cleared".into(), false));
    }

    /// Keeps the selection shown under a filter: the nodes on its way join
    /// those shown.
    pub(super) fn filter_keep(&mut self, id: NodeId) {
        if self.filter.is_none() {
            return;
        }
        let path = self.id_path(id);
        if let Some(f) = self.filter.as_mut() {
            f.keep.extend(path);
        }
    }

    /// Opens `id` and everything below it, breadth first, up to
    /// [`MAX_OPENED`] nodes.
    pub fn open_subtree(&mut self, id: NodeId) {
        let mut queue = std::collections::VecDeque::from([id]);
        let mut opened = 0usize;
        let mut cut = false;
        while let Some(k) = queue.pop_front() {
            if !self.doc.tree.has_children(k) {
                continue;
            }
            if opened >= MAX_OPENED {
                cut = true;
                break;
            }
            self.open(k);
            self.auto_opened.remove(&k);
            opened += 1;
            let kids = self.shown_children(k);
            opened += kids.len();
            queue.extend(kids);
        }
        self.keep_context();
        self.message = Some((
            if cut {
                format!("opened {opened} nodes; deeper ones stay closed (Space opens one)")
            } else {
                format!("opened all {opened} nodes below")
            },
            false,
        ));
    }
}
