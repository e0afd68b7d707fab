//! Searches: starting them (in the background for big files and for node
//! searches), their progress, and walking their matches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::app::{App, BACKGROUND_SEARCH};
use super::Message;
use crate::model::text;
use crate::search::{self, NodeMatch, Pattern};

/// A byte search still running in the background.
pub struct Running {
    pub cancel: Arc<AtomicBool>,
    pub done: u64,
    pub total: u64,
}

/// The last search and where its matches are.
pub struct SearchState {
    pub id: u64,
    pub query: String,
    /// Bytes a byte match covers (0 for a node search).
    pub len: u64,
    /// Start offsets of byte matches, in order.
    pub matches: Vec<u64>,
    /// Node matches, in tree order.
    pub nodes: Vec<NodeMatch>,
    pub current: Option<usize>,
    pub running: Option<Running>,
    /// False when the search stopped early (cancelled, or too many).
    pub complete: bool,
}

impl SearchState {
    pub fn count(&self) -> usize {
        if self.len == 0 {
            self.nodes.len()
        } else {
            self.matches.len()
        }
    }
}

impl App {
    // ---- search ----

    /// Starts a search for `query` in the prompt's syntax.
    pub fn start_search(&mut self, query: &str) {
        if let Some(old) = self.search.as_ref().and_then(|s| s.running.as_ref()) {
            old.cancel.store(true, Ordering::Relaxed);
        }
        let pat = match Pattern::parse(query, self.case_sensitive) {
            Ok(p) => p,
            Err(e) => {
                self.message = Some((e, true));
                return;
            }
        };
        self.next_search_id += 1;
        let id = self.next_search_id;
        let mut st = SearchState {
            id,
            query: query.to_string(),
            len: pat.len() as u64,
            matches: Vec::new(),
            nodes: Vec::new(),
            current: None,
            running: None,
            complete: true,
        };
        match pat {
            Pattern::Nodes { text, fold } => {
                let (nodes, complete) = search::find_nodes(&mut self.tree, &text, fold);
                st.nodes = nodes;
                st.complete = complete;
                self.search = Some(st);
                self.after_search();
            }
            Pattern::Bytes { bytes, fold } => {
                let src = self.tree.source().clone();
                match &self.tx {
                    Some(tx) if src.len() > BACKGROUND_SEARCH => {
                        let cancel = Arc::new(AtomicBool::new(false));
                        st.running = Some(Running {
                            cancel: cancel.clone(),
                            done: 0,
                            total: src.len(),
                        });
                        self.search = Some(st);
                        let tx = tx.clone();
                        std::thread::spawn(move || {
                            let mut progress = |done| {
                                let _ = tx.send(Message::SearchProgress { id, done });
                            };
                            let m = search::find_bytes(
                                &bytes,
                                fold,
                                src.bytes(),
                                &cancel,
                                &mut progress,
                            );
                            let cancelled = cancel.load(Ordering::Relaxed);
                            let _ = tx.send(Message::SearchDone {
                                id,
                                matches: m,
                                cancelled,
                            });
                        });
                    }
                    _ => {
                        let m = search::find_bytes(
                            &bytes,
                            fold,
                            src.bytes(),
                            &AtomicBool::new(false),
                            &mut |_| {},
                        );
                        st.complete = m.len() < search::MAX_MATCHES;
                        st.matches = m;
                        self.search = Some(st);
                        self.after_search();
                    }
                }
            }
        }
    }

    /// Takes a message from a background search.
    pub fn on_message(&mut self, msg: Message) {
        let Some(st) = self.search.as_mut() else {
            return;
        };
        match msg {
            Message::SearchProgress { id, done } if id == st.id => {
                if let Some(r) = st.running.as_mut() {
                    r.done = done;
                }
            }
            Message::SearchDone {
                id,
                matches,
                cancelled,
            } if id == st.id => {
                st.running = None;
                st.complete = !cancelled && matches.len() < search::MAX_MATCHES;
                st.matches = matches;
                if cancelled {
                    self.message = Some((
                        format!("search cancelled; {} matches so far", st.matches.len()),
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
    pub(super) fn after_search(&mut self) {
        let Some(st) = self.search.as_ref() else {
            return;
        };
        if st.count() == 0 {
            self.message = Some((format!("no match for {}", text::clean(&st.query)), true));
            return;
        }
        self.next_match(true, true);
    }

    /// Moves to the next (or previous) match, wrapping around.
    pub(super) fn next_match(&mut self, forward: bool, from_cursor: bool) {
        let Some(st) = self.search.as_ref() else {
            self.message = Some(("no search yet: press / to search".into(), false));
            return;
        };
        let n = st.count();
        if n == 0 {
            self.message = Some((format!("no match for {}", text::clean(&st.query)), true));
            return;
        }
        let offs = |i: usize| -> u64 {
            if st.len == 0 {
                st.nodes.get(i).map_or(0, |m| m.offset)
            } else {
                st.matches.get(i).copied().unwrap_or(0)
            }
        };
        let i = if st.len > 0 {
            // Byte matches: by the cursor, so that n after moving around
            // goes to the next match from here.
            let c = self.cursor;
            let first_after = if from_cursor {
                st.matches.partition_point(|&m| m < c)
            } else {
                st.matches.partition_point(|&m| m <= c)
            };
            if forward {
                if first_after >= n {
                    0
                } else {
                    first_after
                }
            } else {
                let before = st.matches.partition_point(|&m| m < c);
                if before == 0 {
                    n - 1
                } else {
                    before - 1
                }
            }
        } else {
            match (st.current, forward) {
                (None, _) => 0,
                (Some(c), true) => (c + 1) % n,
                (Some(c), false) => (c + n - 1) % n,
            }
        };
        let wrapped = match st.current {
            Some(c) => n > 1 && if forward { i <= c } else { i >= c },
            None => false,
        };
        let (off, size, path) = if st.len == 0 {
            let m = st.nodes.get(i).cloned();
            (offs(i), m.as_ref().map_or(0, |m| m.size), m.map(|m| m.path))
        } else {
            (offs(i), st.len, None)
        };
        if let Some(st) = self.search.as_mut() {
            st.current = Some(i);
        }
        self.remember();
        match path.and_then(|p| self.tree.find_path(&p)) {
            Some(id) => self.select(id, true),
            None => {
                let id = self.tree.smallest_containing(off, size);
                self.select(id, false);
                self.cursor = off.min(self.file_len().saturating_sub(1));
                self.scroll_hex_to(self.cursor);
            }
        }
        if wrapped {
            self.message = Some(("search wrapped around".into(), false));
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
        let first = st.matches.partition_point(|&m| m + st.len <= start);
        st.matches
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&m| m < end)
            .map(|&m| (m, m + st.len))
            .collect()
    }
}
