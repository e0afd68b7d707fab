//! Structural diff of two trees: nodes aligned by identity, compared as
//! typed values and as bytes. A walk over both trees at once builds lazy
//! parts on the way and drops them after, so two files of millions of nodes
//! are compared in bounded memory; a part whose bytes and value are equal
//! on both sides is not opened at all.

use std::ops::ControlFlow;

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use crate::model::{Format, NodeId, Numbers, SpaceId, Span, Tree, Value};

/// What happened to a node between A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// In both, value or bytes differ.
    Changed,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
}

impl Change {
    pub fn sign(self) -> char {
        match self {
            Change::Changed => '~',
            Change::Added => '+',
            Change::Removed => '-',
        }
    }
}

/// One side of a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// The node's bytes.
    pub span: Span,
    /// The value as shown, or `None` for a node without one.
    pub value: Option<String>,
    /// A hex preview of the first bytes, for nodes without a value.
    pub preview: String,
}

/// One change: where (B's address, or A's for a removed node) and the two
/// sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub change: Change,
    pub path: String,
    /// The address on the other side (A's for a changed or added node, B's
    /// for a removed one: where it is, or would be, there), where it is not
    /// `path`: the two sides' addresses differ below a compressed
    /// container paired with the plain form it holds.
    pub other: Option<String>,
    pub a: Option<Side>,
    pub b: Option<Side>,
    /// The same value and bytes at another place: an entry that moved when
    /// its siblings were put in another order.
    pub moved: bool,
}

/// How many nodes of each kind a diff reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub changed: u64,
    pub added: u64,
    pub removed: u64,
}

impl Counts {
    pub fn is_empty(&self) -> bool {
        self.changed == 0 && self.added == 0 && self.removed == 0
    }
}

/// The key that aligns a node with its counterpart: its name without a
/// leading `[N] ` index (sections, symbols and entries keep their identity
/// when their order changes), or the name itself when that is all there is.
pub fn identity(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix('[') {
        if let Some(close) = rest.find("] ") {
            let (idx, tail) = rest.split_at(close);
            if idx.bytes().all(|c| c.is_ascii_digit()) && !idx.is_empty() {
                let tail = tail.get(2..).unwrap_or_default();
                if !tail.is_empty() {
                    return tail;
                }
            }
        }
    }
    name
}

/// What aligns node `k` with its counterpart: the key its format gave it,
/// else its name without a leading index.
pub fn ident(t: &Tree, k: NodeId) -> CompactString {
    match t.key(k) {
        Some(key) => CompactString::from(key),
        None => CompactString::from(identity(t.name(k))),
    }
}

fn side(t: &Tree, id: NodeId) -> Option<Side> {
    let n = t.node(id)?;
    let bytes = t.node_bytes(id);
    Some(Side {
        span: n.span(),
        value: n.value.as_ref().map(|v| v.render(Numbers::Natural)),
        preview: crate::model::text::hex(bytes, 16),
    })
}

/// Both sides of a change; where the bytes differ only after the first 16,
/// the previews start at the first byte that differs (`+0xN: …`).
fn sides(a: &Tree, x: NodeId, b: &Tree, y: NodeId) -> (Option<Side>, Option<Side>) {
    let (mut sa, mut sb) = (side(a, x), side(b, y));
    if let (Some(p), Some(q)) = (sa.as_mut(), sb.as_mut()) {
        let (da, db) = (a.node_bytes(x), b.node_bytes(y));
        if p.preview == q.preview && da != db {
            let at = da.iter().zip(db).take_while(|(u, v)| u == v).count();
            let from = |d: &[u8]| {
                let t = d.get(at..).unwrap_or_default();
                format!("+{at:#x}: {}", crate::model::text::hex(t, 16))
            };
            p.preview = from(da);
            q.preview = from(db);
        }
    }
    (sa, sb)
}

/// Where a pair of nodes is: its address in A and in B (they differ where
/// an entry with a leading index moved).
#[derive(Clone, Copy)]
struct At<'p> {
    a: &'p str,
    b: &'p str,
}

/// `theirs` where it is not `ours`: a record's [`Record::other`].
fn other(ours: &str, theirs: &str) -> Option<String> {
    (ours != theirs).then(|| theirs.to_string())
}

/// What a diff reports besides the changes of meaning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Report a reference whose index changed while what it names reads
    /// the same (`st_name: 2124 ".x" -> 2125 ".x"`): a change of the raw
    /// number only, left out by default.
    pub raw: bool,
}

/// How a node of A and its counterpart in B compare on their own: whether
/// their values read the same and their bytes are equal.
struct Same {
    value: bool,
    bytes: bool,
}

fn same(a: &Tree, x: NodeId, b: &Tree, y: NodeId) -> Option<Same> {
    let (nx, ny) = (a.node(x)?, b.node(y)?);
    let value = match (&nx.value, &ny.value) {
        (Some(p), Some(q)) => p.same_shown(q),
        (p, q) => p == q,
    };
    Some(Same {
        value,
        bytes: a.node_bytes(x) == b.node_bytes(y),
    })
}

/// Whether `x` in A is a reference whose index changed while what it
/// names reads the same as `y` in B (a string table offset, after a name
/// was added before it): a raw-only change.
fn raw_only(a: &Tree, x: NodeId, b: &Tree, y: NodeId) -> bool {
    let (Some(nx), Some(ny)) = (a.node(x), b.node(y)) else {
        return false;
    };
    matches!(
        (&nx.value, &ny.value),
        (Some(Value::StrAt { s: sa, .. }), Some(Value::StrAt { s: sb, .. }))
            if sa == sb && nx.name == ny.name
    )
}

/// Whether the pair `x`, `y` differs at all (itself or below it): what
/// [`Walk::pair`] reports or accounts for, known without walking below.
fn differs(a: &Tree, x: NodeId, b: &Tree, y: NodeId, moved: bool) -> bool {
    let (Some(nx), Some(ny), Some(s)) = (a.node(x), b.node(y), same(a, x, b, y)) else {
        return false;
    };
    !(s.value && s.bytes && !moved && nx.name == ny.name)
}

struct Walk<'e> {
    emit: &'e mut dyn FnMut(Record) -> ControlFlow<()>,
    counts: Counts,
    options: Options,
}

impl Walk<'_> {
    fn out(&mut self, r: Record) -> ControlFlow<()> {
        match r.change {
            Change::Changed => self.counts.changed += 1,
            Change::Added => self.counts.added += 1,
            Change::Removed => self.counts.removed += 1,
        }
        (self.emit)(r)
    }

    /// Compares `x` in A with `y` in B, at `at`: the pair's own change
    /// first, then what changed below it. Returns whether anything under
    /// them differed (as [`differs`] tells beforehand).
    fn pair(
        &mut self,
        a: &mut Tree,
        x: NodeId,
        b: &mut Tree,
        y: NodeId,
        at: At<'_>,
        moved: bool,
    ) -> Result<bool, ()> {
        let Some(s) = same(a, x, b, y) else {
            return Ok(false);
        };
        // A reference whose index changed while what it names reads the
        // same is no change to report (unless raw changes are asked for):
        // the table's change is reported there. Its bytes differ all the
        // same, and it accounts for them (true), so that what holds it is
        // not reported for them either.
        if !self.options.raw && !moved && raw_only(a, x, b, y) {
            return Ok(true);
        }
        if s.value && s.bytes {
            // Nothing but its place or its index changed. Where the entries
            // kept their order (one was added or removed before it) that is
            // no change of its own; where the order changed, it moved.
            if !differs(a, x, b, y, moved) {
                return Ok(false);
            }
            if moved {
                let r = Record {
                    change: Change::Changed,
                    path: at.b.to_string(),
                    other: other(at.b, at.a),
                    a: side(a, x),
                    b: side(b, y),
                    moved: true,
                };
                if self.out(r).is_break() {
                    return Err(());
                }
            }
            return Ok(true);
        }
        if let Some(r) = self.unwrapped(a, x, b, y, at) {
            return r;
        }
        let (lazy_a, lazy_b) = (!a.is_built(x), !b.is_built(y));
        let (mark_a, mark_b) = (a.mark(), b.mark());
        a.expand(x);
        b.expand(y);
        let pairs = children_paired(a, x, b, y);
        // Whether some byte differs where no child that differs is: known
        // from the children alone, so that the pair's own change is
        // reported before theirs.
        let unexplained = !s.bytes && {
            let cov = covered(a, x, b, y, &pairs);
            let (da, db) = (a.node_bytes(x), b.node_bytes(y));
            if da.len() == db.len() {
                let (oa, ob) = (
                    a.node(x).map_or(0, |n| n.offset),
                    b.node(y).map_or(0, |n| n.offset),
                );
                first_unexplained(da, db, oa, ob, &cov.a, &cov.b)
            } else {
                cov.a.is_empty() && cov.b.is_empty()
            }
        };
        let mut r = Ok(true);
        if !s.value || unexplained {
            let (sa, sb) = sides(a, x, b, y);
            let rec = Record {
                change: Change::Changed,
                path: at.b.to_string(),
                other: other(at.b, at.a),
                a: sa,
                b: sb,
                moved: false,
            };
            if self.out(rec).is_break() {
                r = Err(());
            }
        }
        if r.is_ok() {
            r = self.children(a, b, &pairs, at).map(|()| true);
        }
        release(a, x, lazy_a, mark_a);
        release(b, y, lazy_b, mark_b);
        r
    }

    /// Where one side is a container of another format whose bytes, once
    /// inflated, are the other side's format (a compressed bundle against a
    /// plain one): one change for the container, then the inflated content
    /// compared with the other side. `None` where that is not the case.
    fn unwrapped(
        &mut self,
        a: &mut Tree,
        x: NodeId,
        b: &mut Tree,
        y: NodeId,
        at: At<'_>,
    ) -> Option<Result<bool, ()>> {
        let (ia, ib) = through(a, x, b, y)?;
        let r = Record {
            change: Change::Changed,
            path: at.b.to_string(),
            other: other(at.b, at.a),
            a: side(a, x),
            b: side(b, y),
            moved: false,
        };
        if self.out(r).is_break() {
            return Some(Err(()));
        }
        let pa = if ia != x {
            a.path_string(ia)
        } else {
            at.a.to_string()
        };
        let pb = if ib != y {
            b.path_string(ib)
        } else {
            at.b.to_string()
        };
        let inside = At { a: &pa, b: &pb };
        Some(self.pair(a, ia, b, ib, inside, false).map(|_| true))
    }

    /// Walks the pairs of children of a pair, in order: each pair compared,
    /// each child one side lacks reported removed or added.
    fn children(
        &mut self,
        a: &mut Tree,
        b: &mut Tree,
        pairs: &[Paired],
        at: At<'_>,
    ) -> Result<(), ()> {
        for &(k, other, moved) in pairs {
            match (k, other) {
                (Some(k), Some(other)) => {
                    let (pa, pb) = (join(at.a, &a.segment(k)), join(at.b, &b.segment(other)));
                    self.pair(a, k, b, other, At { a: &pa, b: &pb }, moved)?;
                }
                (Some(k), None) => {
                    let seg = a.segment(k);
                    let r = Record {
                        change: Change::Removed,
                        path: join(at.a, &seg),
                        other: (at.a != at.b).then(|| join(at.b, &seg)),
                        a: side(a, k),
                        b: None,
                        moved: false,
                    };
                    if self.out(r).is_break() {
                        return Err(());
                    }
                }
                (None, Some(k)) => {
                    let seg = b.segment(k);
                    let r = Record {
                        change: Change::Added,
                        path: join(at.b, &seg),
                        other: (at.a != at.b).then(|| join(at.a, &seg)),
                        a: None,
                        b: side(b, k),
                        moved: false,
                    };
                    if self.out(r).is_break() {
                        return Err(());
                    }
                }
                (None, None) => {}
            }
        }
        Ok(())
    }
}

/// The ranges (in the parents' spaces) of the children of `x` and `y` that
/// differ, added or removed: what accounts for bytes of the parents that
/// differ.
fn covered(a: &Tree, x: NodeId, b: &Tree, y: NodeId, pairs: &[Paired]) -> Covered {
    let (sa, sb) = (
        a.node(x).map_or(crate::model::FILE, |n| n.space),
        b.node(y).map_or(crate::model::FILE, |n| n.space),
    );
    let range = |t: &Tree, k: NodeId, sp: SpaceId| -> Option<(u64, u64)> {
        let n = t.node(k)?;
        (n.space == sp).then(|| (n.offset, n.end()))
    };
    let mut cov = Covered::default();
    for &(k, other, moved) in pairs {
        match (k, other) {
            (Some(k), Some(other)) => {
                if differs(a, k, b, other, moved) {
                    cov.a.extend(range(a, k, sa));
                    cov.b.extend(range(b, other, sb));
                }
            }
            (Some(k), None) => cov.a.extend(range(a, k, sa)),
            (None, Some(k)) => cov.b.extend(range(b, k, sb)),
            (None, None) => {}
        }
    }
    cov
}

/// The children of `x` in A paired with those of `y` in B, as the diff
/// and the view of two files pair them (both built already): runs of
/// instructions as sequences ([`align_code`]), the rest by identity and
/// occurrence; each with whether it moved.
pub fn children_paired(a: &Tree, x: NodeId, b: &Tree, y: NodeId) -> Vec<Paired> {
    let ka = a.built_children(x);
    let kb = b.built_children(y);
    match align_code(a, ka, b, kb) {
        Some(p) => p.into_iter().map(|(k, o)| (k, o, false)).collect(),
        None => by_identity(a, x, ka, b, y, kb),
    }
}

/// Where `x` in A and `y` in B are of different formats and one holds, in
/// a derived byte space a few levels down, the other's format (a
/// compressed bundle's inflated bundle against a plain bundle): the nodes
/// to compare instead, the container's inner node on its side and the node
/// itself on the other. `None` where that is not the case.
pub fn through(a: &mut Tree, x: NodeId, b: &mut Tree, y: NodeId) -> Option<(NodeId, NodeId)> {
    let fa = a.node_format(x)?;
    let fb = b.node_format(y)?;
    if fa == fb {
        return None;
    }
    match inner(b, y, fa) {
        Some(k) => Some((x, k)),
        None => Some((inner(a, x, fb)?, y)),
    }
}

/// A pair of children (either may be missing: removed or added) and
/// whether the pair moved.
pub type Paired = (Option<NodeId>, Option<NodeId>, bool);

/// The children `ka` of `x` in A and `kb` of `y` in B paired by identity
/// and occurrence: A's in their order (each with its counterpart, or
/// alone where it was removed), then B's that A has not. Entries whose
/// order changed and whose place in the parent changed are marked moved.
fn by_identity(
    a: &Tree,
    x: NodeId,
    ka: &[NodeId],
    b: &Tree,
    y: NodeId,
    kb: &[NodeId],
) -> Vec<Paired> {
    // B's children by (identity, occurrence).
    let mut seen: FxHashMap<CompactString, usize> = FxHashMap::default();
    let mut index: FxHashMap<(CompactString, usize), usize> = FxHashMap::default();
    for (i, &k) in kb.iter().enumerate() {
        let key = ident(b, k);
        let n = seen.entry(key.clone()).or_insert(0);
        index.insert((key, *n), i);
        *n += 1;
    }
    seen.clear();
    // Each child of A with the index of its counterpart in B.
    let matched: Vec<(NodeId, Option<usize>)> = ka
        .iter()
        .map(|&k| {
            let key = ident(a, k);
            let n = seen.entry(key.clone()).or_insert(0);
            let occ = *n;
            *n += 1;
            (k, index.get(&(key, occ)).copied())
        })
        .collect();
    // Whether the entries both sides have appear in another order.
    let reordered = matched
        .iter()
        .filter_map(|m| m.1)
        .zip(matched.iter().filter_map(|m| m.1).skip(1))
        .any(|(p, q)| q < p);
    // Where a child is in its parent.
    let rel = |t: &Tree, c: NodeId, p: NodeId| {
        let o = |n: NodeId| t.node(n).map_or(0, |n| n.offset);
        o(c).wrapping_sub(o(p))
    };
    let mut used = vec![false; kb.len()];
    let mut out = Vec::with_capacity(ka.len().max(kb.len()));
    for (k, j) in matched {
        match j.and_then(|j| Some((j, *kb.get(j)?))) {
            Some((j, other)) => {
                if let Some(u) = used.get_mut(j) {
                    *u = true;
                }
                // Listed in another order and at another place in its
                // parent: moved.
                let moved = reordered && rel(a, k, x) != rel(b, other, y);
                out.push((Some(k), Some(other), moved));
            }
            None => out.push((Some(k), None, false)),
        }
    }
    for (j, &k) in kb.iter().enumerate() {
        if !used.get(j).copied().unwrap_or(true) {
            out.push((None, Some(k), false));
        }
    }
    out
}

/// Whether `ks` are instructions, all of them (and at least one).
fn all_code(t: &Tree, ks: &[NodeId]) -> bool {
    !ks.is_empty()
        && ks.iter().all(|&k| {
            t.node(k)
                .and_then(|n| n.value.as_ref())
                .is_some_and(|v| v.is_insn())
        })
}

/// Two runs of instructions (the children of a function in two builds)
/// aligned as sequences by their text, in order: an instruction inserted
/// or removed is one pair with a side missing, however many instructions
/// after it moved to other addresses; a run of changed instructions is
/// paired position by position. `None` where either side is not all
/// instructions (children then pair by identity).
pub fn align_code(
    a: &Tree,
    ka: &[NodeId],
    b: &Tree,
    kb: &[NodeId],
) -> Option<Vec<(Option<NodeId>, Option<NodeId>)>> {
    if !all_code(a, ka) || !all_code(b, kb) {
        return None;
    }
    let text = |t: &Tree, ks: &[NodeId]| -> Vec<String> {
        ks.iter()
            .map(|&k| t.value_in(k, Numbers::Natural).unwrap_or_default())
            .collect()
    };
    let (ta, tb) = (text(a, ka), text(b, kb));
    let mut out = Vec::with_capacity(ka.len().max(kb.len()));
    let at = |ks: &[NodeId], i: usize| ks.get(i).copied();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ta, &tb) {
        let (ra, rb) = (op.old_range(), op.new_range());
        // Equal runs and replaced runs pair position by position; what one
        // side has more of stands alone.
        for i in 0..ra.len().max(rb.len()) {
            let x = (i < ra.len()).then(|| at(ka, ra.start + i)).flatten();
            let y = (i < rb.len()).then(|| at(kb, rb.start + i)).flatten();
            out.push((x, y));
        }
    }
    Some(out)
}

/// Where `x` of `src` and `y` of `dst` are of different formats and `dst`
/// holds `src`'s format in a container below `y`: the inner node of `dst`
/// to pair with `x` (as [`through`] finds it on that side).
pub fn inner_for(src: &Tree, x: NodeId, dst: &mut Tree, y: NodeId) -> Option<NodeId> {
    let fs = src.node_format(x)?;
    let fd = dst.node_format(y)?;
    if fs == fd {
        return None;
    }
    inner(dst, y, fs)
}

/// Where `path` (from `x` down, in `src`) goes through a container of
/// `x` whose inner node holds the format of `y` in `dst` (the other way
/// round of [`inner_for`]): the index in `path` of that inner node, which
/// pairs with `y`.
pub fn inner_on_path(src: &Tree, path: &[NodeId], dst: &Tree, y: NodeId) -> Option<usize> {
    let x = *path.first()?;
    let fs = src.node_format(x)?;
    let fd = dst.node_format(y)?;
    if fs == fd {
        return None;
    }
    let space = src.node(x)?.space;
    path.iter()
        .enumerate()
        .skip(1)
        .take(INNER_DEPTH)
        .find(|&(_, &k)| {
            src.node(k).is_some_and(|n| n.space != space) && src.node_format(k) == Some(fd)
        })
        .map(|(j, _)| j)
}

/// How many levels below a container [`inner`] looks for its content.
const INNER_DEPTH: usize = 4;

/// The first node below `id`, at most a few levels down, that is the root
/// of a derived byte space and holds format `fmt`.
fn inner(t: &mut Tree, id: NodeId, fmt: Format) -> Option<NodeId> {
    let space = t.node(id)?.space;
    let mut level = vec![id];
    for _ in 0..INNER_DEPTH {
        let mut next = Vec::new();
        for k in level {
            for c in t.children(k) {
                let n = t.node(c)?;
                if n.space != space && t.node_format(c) == Some(fmt) {
                    return Some(c);
                }
                if next.len() < 64 {
                    next.push(c);
                }
            }
        }
        level = next;
    }
    None
}

/// The ranges of the children that differ, on each side (in the parent's
/// space).
#[derive(Default)]
struct Covered {
    a: Vec<(u64, u64)>,
    b: Vec<(u64, u64)>,
}

fn release(t: &mut Tree, id: NodeId, was_lazy: bool, mark: usize) {
    if was_lazy {
        t.release_below(id, mark);
    }
}

/// Ranges sorted and merged where they overlap or touch.
fn merged(c: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut v = c.to_vec();
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// True if some byte differs between `da` (at `oa`) and `db` (at `ob`) at
/// a position that no range of `ca` (for A) or of `cb` (for B) holds.
fn first_unexplained(
    da: &[u8],
    db: &[u8],
    oa: u64,
    ob: u64,
    ca: &[(u64, u64)],
    cb: &[(u64, u64)],
) -> bool {
    let (ca, cb) = (merged(ca), merged(cb));
    let inside = |c: &[(u64, u64)], at: u64| {
        let i = c.partition_point(|&(s, _)| s <= at);
        i > 0 && c.get(i - 1).is_some_and(|&(_, e)| at < e)
    };
    const CHUNK: usize = 4096;
    let mut i = 0usize;
    while i < da.len() {
        let e = (i + CHUNK).min(da.len());
        let (x, y) = (da.get(i..e), db.get(i..e));
        if x != y {
            for p in i..e {
                if da.get(p) != db.get(p) {
                    let p64 = p as u64;
                    if !inside(&ca, oa + p64) || !inside(&cb, ob + p64) {
                        return true;
                    }
                }
            }
        }
        i = e;
    }
    false
}

fn join(path: &str, seg: &str) -> String {
    if path.is_empty() {
        seg.to_string()
    } else {
        let mut s = String::with_capacity(path.len() + 1 + seg.len());
        s.push_str(path);
        s.push('/');
        s.push_str(seg);
        s
    }
}

/// Compares tree `a` with tree `b`, calling `emit` for every change in tree
/// order, a node's own change before the changes below it (returning
/// `Break` stops). A node is reported changed where its
/// value differs, or where its bytes differ and no node below it accounts
/// for that; added and removed nodes are reported at the top of what was
/// added or removed.
pub fn diff(
    a: &mut Tree,
    b: &mut Tree,
    options: Options,
    emit: &mut dyn FnMut(Record) -> ControlFlow<()>,
) -> Counts {
    let mut w = Walk {
        emit,
        counts: Counts::default(),
        options,
    };
    let (ra, rb) = (a.root(), b.root());
    let _ = w.pair(a, ra, b, rb, At { a: "", b: "" }, false);
    w.counts
}

/// Every change as a list (for tests and small files).
pub fn changes(a: &mut Tree, b: &mut Tree) -> Vec<Record> {
    changes_with(a, b, Options::default())
}

/// Every change as a list, with `options`.
pub fn changes_with(a: &mut Tree, b: &mut Tree, options: Options) -> Vec<Record> {
    let mut v = Vec::new();
    diff(a, b, options, &mut |r| {
        v.push(r);
        ControlFlow::Continue(())
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xml(text: &str) -> Tree {
        use crate::model::{Builder, Source, Span};
        fn parse(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<crate::model::Format> {
            crate::formats::xml::tree(b, p, at).then_some(crate::model::Format::Xml)
        }
        let src = std::sync::Arc::new(Source::from_vec(text.as_bytes().to_vec()));
        Tree::build(src, "t", parse)
    }

    /// Elements with a `name` are aligned by it: the same kernels in
    /// another order are moves, not changes of every attribute.
    #[test]
    fn elements_align_by_their_name() {
        let mut a = xml(r#"<p><kernel name="add" n="1"/><kernel name="mul" n="2"/></p>"#);
        let mut b = xml(r#"<p><kernel name="mul" n="2"/><kernel name="add" n="1"/></p>"#);
        let c = changes(&mut a, &mut b);
        assert!(!c.is_empty());
        assert!(c.iter().all(|r| r.moved), "{c:#?}");
        // A real change inside one of them is found at its own node.
        let mut b = xml(r#"<p><kernel name="mul" n="2"/><kernel name="add" n="7"/></p>"#);
        let c = changes(&mut a, &mut b);
        let changed: Vec<&str> = c
            .iter()
            .filter(|r| !r.moved)
            .map(|r| r.path.as_str())
            .collect();
        assert!(changed.contains(&"<p>/<kernel>#1/@n"), "{c:#?}");
        assert!(!changed.iter().any(|p| p.contains("@name")), "{c:#?}");
    }

    #[test]
    fn identity_drops_a_leading_index() {
        assert_eq!(identity("[3] .text"), ".text");
        assert_eq!(identity("[12] sym_1"), "sym_1");
        assert_eq!(identity("[3]"), "[3]");
        assert_eq!(identity("[0..1000)"), "[0..1000)");
        assert_eq!(identity("[x] y"), "[x] y");
        assert_eq!(identity("e_type"), "e_type");
    }
}
