//! Searches: they run in the background on a second tree of the same file
//! (progress in the status bar, Esc cancels), and `n` / `N` walk their
//! matches. Byte searches cover the file and every derived byte space; node
//! searches every node. Matches are found again in the explorer's own tree
//! by their addresses.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::app::App;
use super::matches::{run_search, Progress, Purpose, Running, SearchState};
use super::message::Message;
use crate::model::space::FILE;
use crate::model::text;
use crate::search::Pattern;

impl App {
    /// Starts a search for `query` in the prompt's syntax: in the
    /// background when the app has a channel, else at once.
    pub fn start_search(&mut self, query: &str) {
        let pat = match Pattern::parse(query, self.case_sensitive) {
            Ok(p) => p,
            Err(e) => {
                self.message = Some((e, true));
                return;
            }
        };
        self.start_pattern(query, pat, Purpose::Search);
    }

    /// Starts a search for `pat`, shown as `query`, for `purpose`.
    pub fn start_pattern(&mut self, query: &str, pat: Pattern, purpose: Purpose) {
        if let Some(old) = self.search.as_ref().and_then(|s| s.running.as_ref()) {
            old.cancel.store(true, Ordering::Relaxed);
        }
        self.next_search_id += 1;
        let id = self.next_search_id;
        let mut st = SearchState {
            id,
            query: query.to_string(),
            len: pat.len() as u64,
            matches: Vec::new(),
            derived: Vec::new(),
            nodes: Vec::new(),
            current: None,
            shown: false,
            running: None,
            complete: true,
            purpose,
        };
        let src = self.doc.tree.source().clone();
        let name = self.doc.tree.name(self.doc.tree.root()).to_string();
        let rebuild = self.rebuild;
        let options = self.doc.tree.options();
        // The search's tree is read again, with the descriptions `K`
        // applied, in the same order, so that their nodes are searched too.
        let (describe, described) = (self.describe, self.doc.described.clone());
        let rebuild = move |src, name: &str, options| {
            let mut tree = rebuild(src, name, options);
            super::describe::apply_all(&mut tree, describe, &described);
            tree
        };
        match &self.tx {
            Some(tx) => {
                let cancel = Arc::new(AtomicBool::new(false));
                st.running = Some(Running {
                    cancel: cancel.clone(),
                    progress: Progress::Nodes(0),
                });
                self.search = Some(st);
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let mut tree = rebuild(src, &name, options);
                    let mut progress = |p| {
                        let _ = tx.send(Message::SearchProgress { id, progress: p });
                    };
                    let found = run_search(&mut tree, &pat, &cancel, &mut progress);
                    let cancelled = cancel.load(Ordering::Relaxed);
                    let _ = tx.send(Message::SearchDone {
                        id,
                        found,
                        cancelled,
                    });
                });
            }
            None => {
                let mut tree = rebuild(src, &name, options);
                let found = run_search(&mut tree, &pat, &AtomicBool::new(false), &mut |_| {});
                st.matches = found.matches;
                st.derived = found.derived;
                st.nodes = found.nodes;
                st.complete = found.complete;
                self.search = Some(st);
                self.after_search();
            }
        }
    }

    /// Takes a message from a background search.
    pub fn on_message(&mut self, msg: Message) {
        match msg {
            Message::WriteProgress { id, done } => return self.write_progress(id, done),
            Message::WriteDone {
                id,
                result,
                cancelled,
            } => return self.write_done(id, result, cancelled),
            Message::StringsProgress { id, done } => return self.strings_progress(id, done),
            Message::StringsDone {
                id,
                groups,
                complete,
            } => return self.strings_done(id, groups, complete),
            Message::OverviewDone { id, blocks } => return self.overview_done(id, blocks),
            Message::Select(id) => return self.select(id, true),
            _ => {}
        }
        let Some(st) = self.search.as_mut() else {
            return;
        };
        match msg {
            Message::SearchProgress { id, progress } if id == st.id => {
                if let Some(r) = st.running.as_mut() {
                    r.progress = progress;
                }
            }
            Message::SearchDone {
                id,
                found,
                cancelled,
            } if id == st.id => {
                st.running = None;
                st.complete = !cancelled && found.complete;
                st.matches = found.matches;
                st.derived = found.derived;
                st.nodes = found.nodes;
                if cancelled {
                    self.message = Some((
                        format!(
                            "search cancelled; {} so far",
                            super::status::count(st.count(), "match", "matches")
                        ),
                        false,
                    ));
                    return;
                }
                self.after_search();
            }
            _ => {}
        }
    }

    /// Goes to the first match at or after the cursor.
    fn after_search(&mut self) {
        let Some(st) = self.search.as_ref() else {
            return;
        };
        if st.count() == 0 {
            let msg = if st.purpose == Purpose::Goto {
                format!(
                    "{}: not an offset, an address or the name of a node",
                    text::clean(&st.query)
                )
            } else if st.purpose == Purpose::Search
                && !["x:", "n:", "t:"].iter().any(|p| st.query.starts_with(p))
            {
                // Plain text looks in the bytes: say where else it could.
                let q = text::clean(&st.query);
                format!("no match for {q} in the bytes; n:{q} looks in node names and values")
            } else {
                format!("no match for {}", text::clean(&st.query))
            };
            self.message = Some((msg, true));
            return;
        }
        if st.purpose == Purpose::Filter {
            let (query, nodes, complete) = (st.query.clone(), st.nodes.clone(), st.complete);
            self.search = None;
            self.filter_from(&query, &nodes, complete);
            return;
        }
        let named = (st.purpose == Purpose::Goto).then(|| (st.count(), st.complete));
        self.next_match(true, true);
        // More than one node of the name: say so, and how to reach the rest.
        if let Some((n, complete)) = named {
            if n > 1 && self.message.is_none() {
                let more = if complete { "" } else { " or more" };
                self.message = Some((
                    format!("{n}{more} nodes of that name: n / N go to the others"),
                    false,
                ));
            }
        }
    }

    /// The address of the first node of the selected node's space (None
    /// for the file).
    pub fn space_address(&self) -> Option<String> {
        let sp = self.doc.tree.node(self.selected).map_or(FILE, |n| n.space);
        (sp != FILE).then(|| {
            self.doc
                .tree
                .path_string(self.doc.tree.space_root(self.selected))
        })
    }

    /// Which group of byte matches the selected node's space is (0: the
    /// file), if it has any.
    fn current_group(&self, st: &SearchState) -> Option<usize> {
        match self.space_address() {
            None => Some(0),
            Some(a) => st.derived.iter().position(|d| d.root == a).map(|k| k + 1),
        }
    }

    /// Moves to the next (or previous) match, wrapping around.
    pub(super) fn next_match(&mut self, forward: bool, from_cursor: bool) {
        let Some(st) = self.search.as_ref() else {
            self.message = Some(("no search yet: press / to search".into(), false));
            return;
        };
        if st.running.is_some() && st.count() == 0 {
            self.message = Some(("the search is still running".into(), false));
            return;
        }
        let n = st.count();
        if n == 0 {
            self.message = Some((format!("no match for {}", text::clean(&st.query)), true));
            return;
        }
        let step = |c: Option<usize>| match (c, forward) {
            (None, _) => 0,
            (Some(c), true) => (c + 1) % n,
            (Some(c), false) => (c + n - 1) % n,
        };
        let i = if st.len > 0 {
            // Byte matches: by the cursor, so that n after moving around
            // goes to the next match from here.
            match self.current_group(st) {
                Some(g) => {
                    let m = st.group(g);
                    let base = st.base(g);
                    let c = self.cursor;
                    let after = if from_cursor {
                        m.partition_point(|&o| o < c)
                    } else {
                        m.partition_point(|&o| o <= c)
                    };
                    if forward {
                        (base + after) % n
                    } else {
                        let before = m.partition_point(|&o| o < c);
                        (base + n + before - 1) % n
                    }
                }
                None => step(st.current),
            }
        } else {
            step(st.current)
        };
        let wrapped = match st.current {
            Some(c) => n > 1 && if forward { i <= c } else { i >= c },
            None => false,
        };
        enum Target {
            Node(String, crate::model::Span),
            Bytes(Option<String>, u64),
        }
        let len = st.len;
        let target = if len == 0 {
            st.nodes
                .get(i)
                .map(|m| Target::Node(m.path.clone(), m.span))
        } else {
            st.locate(i).map(|(g, off)| {
                let root = g
                    .checked_sub(1)
                    .and_then(|k| st.derived.get(k))
                    .map(|d| d.root.clone());
                Target::Bytes(root, off)
            })
        };
        let Some(target) = target else {
            return;
        };
        if let Some(st) = self.search.as_mut() {
            st.current = Some(i);
            st.shown = true;
        }
        self.remember();
        let mut note = None;
        match target {
            Target::Node(path, at) => match self.doc.tree.find_path(&path) {
                Some(id) => self.select(id, true),
                None => {
                    let id = self.doc.tree.smallest_containing(at);
                    self.select(id, false);
                    self.cursor = at.offset.min(self.space_len().saturating_sub(1));
                    self.scroll_hex_to(self.cursor);
                    note = Some(format!("{} is not in the tree now", text::clean(&path)));
                }
            },
            Target::Bytes(root, off) => {
                let top = match &root {
                    None => Some(self.doc.tree.root()),
                    Some(r) => self.doc.tree.find_path(r),
                };
                match top {
                    Some(top) => {
                        let at = self.doc.tree.span_in(top, off, len);
                        let id = self.doc.tree.smallest_containing_from(top, at);
                        self.select(id, false);
                        self.cursor = off.min(self.space_len().saturating_sub(1));
                        self.scroll_hex_to(self.cursor);
                        if root.is_some() {
                            note = Some(format!("in {}", self.space_describe()));
                        }
                    }
                    None => note = Some("the match's byte space is not in the tree now".into()),
                }
            }
        }
        if wrapped {
            self.message = Some((
                if forward {
                    "search wrapped: back at the first match"
                } else {
                    "search wrapped: back at the last match"
                }
                .into(),
                false,
            ));
        } else if let Some(m) = note {
            self.message = Some((m, false));
        }
    }

    /// Byte matches that overlap `[start, end)`, as ranges.
    pub fn matches_in(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        let Some(st) = self.search.as_ref() else {
            return Vec::new();
        };
        if st.len == 0 {
            return Vec::new();
        }
        let Some(g) = self.current_group(st) else {
            return Vec::new();
        };
        let m = st.group(g);
        let first = m.partition_point(|&m| m + st.len <= start);
        m.get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&m| m < end)
            .map(|&m| (m, m + st.len))
            .collect()
    }
}
