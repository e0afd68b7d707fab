//! Searching a file: text, hex bytes with `??` wildcards, or node names and
//! values. The prompt in the explorer and `--find` share this syntax:
//!
//! - `text` (or `t:text`): UTF-8 text, case-sensitive unless asked;
//! - `x:7f 45 4c 46`, `x:de ?? be ef`: bytes, `??` matching any byte;
//! - `n:text`: nodes whose name or value holds the text.

use std::sync::atomic::{AtomicBool, Ordering};

use memchr::memmem;

use std::ops::ControlFlow;

use crate::model::{NodeId, Numbers, SpaceId, Span, Tree};

/// At most this many matches are kept.
pub const MAX_MATCHES: usize = 1 << 24;

/// Bytes searched between two looks at the cancel flag.
const CHUNK: usize = 64 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Bytes, `None` matching any byte; `fold` makes ASCII letters match
    /// either case.
    Bytes { bytes: Vec<Option<u8>>, fold: bool },
    /// Nodes whose name or value holds the text.
    Nodes { text: String, fold: bool },
    /// Nodes of this name (see [`find_named`]): what `g` goes to when given
    /// a name.
    Named(String),
}

impl Pattern {
    /// Parses the prompt's syntax. `case_sensitive` applies to text and
    /// node searches.
    pub fn parse(s: &str, case_sensitive: bool) -> Result<Pattern, String> {
        if let Some(h) = s.strip_prefix("x:") {
            let mut bytes = Vec::new();
            let digits: Vec<char> = h.chars().filter(|c| !c.is_whitespace()).collect();
            if digits.is_empty() {
                return Err("x: needs hex bytes, like x:7f 45 4c 46".into());
            }
            if !digits.len().is_multiple_of(2) {
                return Err("x: needs whole bytes (two hex digits each)".into());
            }
            for pair in digits.chunks(2) {
                let p: String = pair.iter().collect();
                if p == "??" {
                    bytes.push(None);
                } else {
                    let b = u8::from_str_radix(&p, 16)
                        .map_err(|_| format!("x: {p} is not a hex byte"))?;
                    bytes.push(Some(b));
                }
            }
            return Ok(Pattern::Bytes { bytes, fold: false });
        }
        if let Some(t) = s.strip_prefix("n:") {
            if t.is_empty() {
                return Err("n: needs text to look for in node names and values".into());
            }
            return Ok(Pattern::Nodes {
                text: t.to_string(),
                fold: !case_sensitive,
            });
        }
        let t = s.strip_prefix("t:").unwrap_or(s);
        if t.is_empty() {
            return Err("nothing to search for".into());
        }
        Ok(Pattern::Bytes {
            bytes: t.bytes().map(Some).collect(),
            fold: !case_sensitive,
        })
    }

    /// The number of bytes a byte match covers (0 for node searches).
    pub fn len(&self) -> usize {
        match self {
            Pattern::Bytes { bytes, .. } => bytes.len(),
            Pattern::Nodes { .. } | Pattern::Named(_) => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn eq(p: Option<u8>, b: u8, fold: bool) -> bool {
    match p {
        None => true,
        Some(p) if fold => p.eq_ignore_ascii_case(&b),
        Some(p) => p == b,
    }
}

fn matches_at(pat: &[Option<u8>], data: &[u8], at: usize, fold: bool) -> bool {
    match data.get(at..at + pat.len()) {
        Some(w) => pat.iter().zip(w).all(|(&p, &b)| eq(p, b, fold)),
        None => false,
    }
}

/// Finds every start offset of `pat` in `data` (overlapping matches
/// included), in order. Looks at `cancel` between chunks and calls
/// `progress` with the bytes done; returns what it found so far if
/// cancelled. Stops at [`MAX_MATCHES`].
pub fn find_bytes(
    pat: &[Option<u8>],
    fold: bool,
    data: &[u8],
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Vec<u64> {
    let mut out = Vec::new();
    if pat.is_empty() || pat.len() > data.len() {
        return out;
    }
    // Anchor on the longest run of exact bytes; check the rest around it.
    let (mut best_start, mut best_len, mut run_start) = (0usize, 0usize, 0usize);
    for (i, p) in pat.iter().enumerate() {
        let exact = matches!(p, Some(b) if !(fold && b.is_ascii_alphabetic()));
        if !exact {
            run_start = i + 1;
        } else if i + 1 - run_start > best_len {
            best_start = run_start;
            best_len = i + 1 - run_start;
        }
    }
    let anchor: Vec<u8> = pat
        .get(best_start..best_start + best_len)
        .unwrap_or_default()
        .iter()
        .map(|b| b.unwrap_or(0))
        .collect();
    let finder = memmem::Finder::new(&anchor);
    let last_start = data.len() - pat.len();
    let mut chunk_start = 0usize;
    while chunk_start <= last_start {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        let chunk_end = (chunk_start + CHUNK).min(last_start + 1);
        if best_len > 0 {
            // Positions of the anchor for matches starting in this chunk.
            let hay_start = chunk_start + best_start;
            let hay_end = (chunk_end - 1 + best_start + best_len).min(data.len());
            let hay = data.get(hay_start..hay_end).unwrap_or_default();
            let mut pos = 0;
            while let Some(i) = finder.find(hay.get(pos..).unwrap_or_default()) {
                let m = chunk_start + pos + i;
                if matches_at(pat, data, m, fold) {
                    out.push(m as u64);
                    if out.len() >= MAX_MATCHES {
                        return out;
                    }
                }
                pos += i + 1;
            }
        } else {
            for m in chunk_start..chunk_end {
                if matches_at(pat, data, m, fold) {
                    out.push(m as u64);
                    if out.len() >= MAX_MATCHES {
                        return out;
                    }
                }
            }
        }
        progress(chunk_end as u64);
        chunk_start = chunk_end;
    }
    out
}

/// A node that matched a node search: where it is and how to find it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeMatch {
    /// The node's bytes.
    pub span: Span,
    /// The node's address ([`Tree::path_string`]): it names this node only.
    pub path: String,
}

/// How often a node search reports progress, in nodes.
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// Finds the nodes whose name or value holds `text`, in tree order,
/// building lazy parts as it goes (and forgetting them after). Every node
/// is looked at, derived spaces included. `progress` hears how many nodes
/// were looked at, every [`PROGRESS_EVERY`]; setting `cancel` stops the
/// walk. Returns the matches and whether the walk ran to the end (not
/// cancelled, and fewer than [`MAX_MATCHES`] matches).
pub fn find_nodes_with(
    tree: &mut Tree,
    text: &str,
    fold: bool,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Vec<NodeMatch>, bool) {
    let fold = fold && text.is_ascii();
    let needle: Vec<u8> = if fold {
        text.to_ascii_lowercase().into_bytes()
    } else {
        text.as_bytes().to_vec()
    };
    let finder = memchr::memmem::Finder::new(&needle);
    let mut val = String::new();
    let mut low: Vec<u8> = Vec::new();
    let mut hit = |s: &str| -> bool {
        if fold {
            low.clear();
            low.extend(s.bytes().map(|b| b.to_ascii_lowercase()));
            finder.find(&low).is_some()
        } else {
            finder.find(s.as_bytes()).is_some()
        }
    };
    let mut matches = |n: &crate::model::Node| {
        hit(&n.name)
            || n.value.as_ref().is_some_and(|v| {
                val.clear();
                let _ = v.write_to(&mut val, Numbers::Natural);
                hit(&val)
            })
    };
    find_nodes_where(tree, &mut matches, cancel, progress)
}

/// Finds the nodes named `name`: their name is `name`, or demangles to it
/// (a C++ function's name with or without its parameters: `ns::f` or
/// `ns::f(int)`), in tree order, as [`find_nodes_with`] walks.
pub fn find_named(
    tree: &mut Tree,
    name: &str,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Vec<NodeMatch>, bool) {
    // A mangled name holds the last identifier of what it demangles to:
    // the names that do not are not demangled.
    let last = name
        .split('(')
        .next()
        .unwrap_or(name)
        .rsplit("::")
        .next()
        .unwrap_or(name)
        .trim();
    let mut matches = |n: &crate::model::Node| {
        n.name == name
            || (!last.is_empty()
                && n.name.contains(last)
                && crate::model::demangle::looks_mangled(&n.name)
                && crate::model::demangle::demangle(&n.name).is_some_and(|d| {
                    d == name || d.split_once('(').is_some_and(|(f, _)| f == name)
                }))
    };
    find_nodes_where(tree, &mut matches, cancel, progress)
}

/// The nodes a node pattern finds (None for a byte pattern).
pub fn find_pattern_nodes(
    tree: &mut Tree,
    pat: &Pattern,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Option<(Vec<NodeMatch>, bool)> {
    match pat {
        Pattern::Bytes { .. } => None,
        Pattern::Nodes { text, fold } => Some(find_nodes_with(tree, text, *fold, cancel, progress)),
        Pattern::Named(name) => Some(find_named(tree, name, cancel, progress)),
    }
}

/// The walk of the node searches: every node but the root for which
/// `matches` holds.
fn find_nodes_where(
    tree: &mut Tree,
    matches: &mut dyn FnMut(&crate::model::Node) -> bool,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Vec<NodeMatch>, bool) {
    let mut out = Vec::new();
    let mut seen = 0u64;
    let mut complete = true;
    let root = tree.root();
    let _ = tree.walk(&mut |t, id: NodeId, _depth, enter| {
        if !enter {
            return ControlFlow::Continue(());
        }
        seen += 1;
        if seen.is_multiple_of(PROGRESS_EVERY) {
            progress(seen);
            if cancel.load(Ordering::Relaxed) {
                complete = false;
                return ControlFlow::Break(());
            }
        }
        if id == root {
            return ControlFlow::Continue(());
        }
        let Some(n) = t.node(id) else {
            return ControlFlow::Continue(());
        };
        if matches(n) {
            out.push(NodeMatch {
                span: n.span(),
                path: t.path_string(id),
            });
            if out.len() >= MAX_MATCHES {
                complete = false;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    progress(seen);
    (out, complete)
}

/// [`find_nodes_with`], not cancelled and not reporting progress.
pub fn find_nodes(tree: &mut Tree, text: &str, fold: bool) -> (Vec<NodeMatch>, bool) {
    find_nodes_with(tree, text, fold, &AtomicBool::new(false), &mut |_| {})
}

/// Every byte space of the tree, made: a walk over the whole tree, so that
/// every derived space exists (the walk forgets the nodes, not the spaces).
pub fn make_all_spaces(tree: &mut Tree, cancel: &AtomicBool) {
    let _ = tree.walk(&mut |_, _, _, enter| {
        if enter && cancel.load(Ordering::Relaxed) {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
}

/// The derived byte spaces of a tree and where each starts: a walk over the
/// whole tree (cancellable; `progress` hears the nodes walked) that makes
/// every space and returns, for each, its id and the address
/// ([`Tree::path_string`]) of the first node in it, in tree order. The
/// address finds the same space in another tree of the same file.
pub fn space_roots(
    tree: &mut Tree,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Vec<(SpaceId, String)> {
    let mut out: Vec<(SpaceId, String)> = Vec::new();
    let mut seen = 0u64;
    let _ = tree.walk(&mut |t, id: NodeId, _depth, enter| {
        if !enter {
            return ControlFlow::Continue(());
        }
        seen += 1;
        if seen.is_multiple_of(PROGRESS_EVERY) {
            progress(seen);
            if cancel.load(Ordering::Relaxed) {
                return ControlFlow::Break(());
            }
        }
        if let Some(n) = t.node(id) {
            if n.space != crate::model::FILE && !out.iter().any(|(s, _)| *s == n.space) {
                out.push((n.space, t.path_string(id)));
            }
        }
        ControlFlow::Continue(())
    });
    progress(seen);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(p: &str, cs: bool, data: &[u8]) -> Vec<u64> {
        match Pattern::parse(p, cs).unwrap() {
            Pattern::Bytes { bytes, fold } => {
                find_bytes(&bytes, fold, data, &AtomicBool::new(false), &mut |_| {})
            }
            Pattern::Nodes { .. } | Pattern::Named(_) => panic!("not a byte pattern"),
        }
    }

    #[test]
    fn the_three_syntaxes_parse() {
        assert_eq!(
            Pattern::parse("x:7f 45 ?? 46", true),
            Ok(Pattern::Bytes {
                bytes: vec![Some(0x7f), Some(0x45), None, Some(0x46)],
                fold: false
            })
        );
        assert_eq!(Pattern::parse("x:7f45", true).unwrap().len(), 2);
        assert!(Pattern::parse("x:7f4", true).is_err());
        assert!(Pattern::parse("x:zz", true).is_err());
        assert!(matches!(
            Pattern::parse("n:vadd", false),
            Ok(Pattern::Nodes { fold: true, .. })
        ));
        assert_eq!(Pattern::parse("t:x:y", true).unwrap().len(), 3);
        assert!(Pattern::parse("", true).is_err());
    }

    #[test]
    fn literal_wildcard_and_caseless_matches() {
        let d = b"abcABCabc\xde\x01\xbe\xef\xde\x02\xbe\xef";
        assert_eq!(find("abc", true, d), [0, 6]);
        assert_eq!(find("abc", false, d), [0, 3, 6]);
        assert_eq!(find("x:de ?? be ef", true, d), [9, 13]);
        assert_eq!(find("x:?? be", true, d), [10, 14]);
        assert_eq!(find("x:??", true, b"ab"), [0, 1]);
        // Overlapping matches all count.
        assert_eq!(find("aa", true, b"aaaa"), [0, 1, 2]);
        assert!(find("abcdefghijklmnop", true, d).is_empty());
    }

    #[test]
    fn matches_across_chunk_boundaries_are_found() {
        let mut d = vec![0u8; CHUNK + 10];
        d[CHUNK - 2..CHUNK + 2].copy_from_slice(b"WXYZ");
        assert_eq!(find("WXYZ", true, &d), [CHUNK as u64 - 2]);
        assert_eq!(find("x:57 ?? 59 5a", true, &d), [CHUNK as u64 - 2]);
    }

    #[test]
    fn a_cancelled_search_stops() {
        let d = vec![b'a'; 3 * CHUNK];
        let cancel = AtomicBool::new(true);
        assert!(find_bytes(&[Some(b'a')], false, &d, &cancel, &mut |_| {}).is_empty());
    }
}
