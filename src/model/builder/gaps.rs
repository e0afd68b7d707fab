//! Gap leaves: what the bytes no child covers become.

use crate::model::space::SpaceBytes;

use compact_str::CompactString;

use crate::model::arena::{Builder, Gap};
use crate::model::arena::{Node, NodeId};
use crate::model::diagnostic::Severity;
use crate::model::space::SpaceId;
use crate::model::value::{self, Value};

/// The longest gap whose bytes are read to tell padding from other bytes.
const MAX_GAP_READ: u64 = 1 << 20;

/// The names gap leaves have: a walk that counts structures skips them.
pub const GAP_NAMES: [&str; 5] = ["padding", "unused", "unknown", "syntax", "contents"];

impl Builder<'_> {
    /// Says what the uncovered bytes of `id` (and of the nodes below it
    /// that say nothing) become; see [`Gap`].
    pub fn gaps(&mut self, id: NodeId, rule: Gap) {
        if let Some(n) = self.node_mut(id) {
            n.gaps = rule;
        }
    }

    /// The rule that holds at `id`: its own or its nearest ancestor's.
    fn gap_rule(&self, id: NodeId) -> Gap {
        let mut cur = Some(id);
        while let Some(k) = cur {
            let Some(n) = self.node(k) else { break };
            if n.gaps != Gap::Inherit {
                return n.gaps;
            }
            cur = n.parent;
        }
        Gap::Off
    }

    /// Adds the gap leaves of `also` and of every node from `from` on,
    /// whose children are built, then gives the nodes their ranges placed
    /// later: run once a build is done.
    pub(crate) fn close_gaps(&mut self, from: usize, also: Option<NodeId>) {
        let end = self.arena.nodes.len();
        if let Some(id) = also {
            self.close_gaps_of(id);
        }
        for i in from..end {
            // Most nodes are leaves: seen here, without a call.
            if self
                .node(NodeId::at(i))
                .is_some_and(|n| !n.unbuilt && !n.children.is_empty())
            {
                self.close_gaps_of(NodeId::at(i));
            }
        }
        for (id, off, size) in std::mem::take(&mut self.arena.placed_later) {
            self.set_range(id, off, size);
        }
    }

    fn close_gaps_of(&mut self, id: NodeId) {
        let (space, start, stop) = match self.node(id) {
            Some(Node {
                children: v,
                unbuilt: false,
                space,
                offset,
                size,
                ..
            }) if !v.is_empty() && *size > 0 => (*space, *offset, offset.saturating_add(*size)),
            _ => return,
        };
        // One pass over the children for the common case: built in file
        // order and covering the node.
        match self.sorted_and_covered(id, space, start, stop) {
            (true, true) => return,
            (true, false) => {}
            (false, _) => {
                self.sort_children(id, space);
                if self.covered(id, space, start, stop) {
                    return;
                }
            }
        }
        let rule = self.gap_rule(id);
        if matches!(rule, Gap::Off | Gap::Inherit) {
            return;
        }
        let kids: Vec<NodeId> = match self.node(id) {
            Some(n) if !n.unbuilt => n.children.clone(),
            _ => return,
        };
        let mut spans: Vec<(u64, u64)> = kids
            .iter()
            .filter_map(|&k| self.node(k))
            .filter(|n| n.space == space && n.size > 0)
            .map(|n| (n.offset, n.end()))
            .collect();
        if spans.is_empty() {
            return;
        }
        spans.sort_unstable();
        // Bytes another space was made from (compressed bytes, inflated
        // below): contents, whatever the rule says.
        let origins: Vec<(u64, u64)> = kids
            .iter()
            .filter_map(|&k| self.node(k))
            .filter(|n| n.space != space)
            .filter_map(|n| self.arena.spaces.get(n.space.index())?.origin)
            .filter(|o| o.from.space == space)
            .map(|o| (o.from.offset, o.from.end()))
            .collect();
        let mut holes = Vec::new();
        let mut pos = start;
        for (a, b) in spans {
            if a > pos {
                holes.push((pos, a.min(stop)));
            }
            pos = pos.max(b);
        }
        if pos < stop {
            holes.push((pos, stop));
        }
        holes.retain(|(a, b)| b > a);
        if holes.is_empty() {
            return;
        }
        let mut made = Vec::with_capacity(holes.len());
        for (i, &(a, b)) in holes.iter().enumerate() {
            let last = i + 1 == holes.len() && b == stop;
            let from_origin = origins.iter().any(|&(o, e)| o <= a && b <= e);
            let rule = if from_origin { Gap::Contents } else { rule };
            made.push(self.gap_leaf(id, space, a, b - a, rule, last));
        }
        // The leaves go among the children in offset order.
        let mut out = Vec::with_capacity(kids.len() + made.len());
        let mut next = holes.iter().zip(made.iter()).peekable();
        for k in kids {
            if let Some(n) = self.node(k) {
                if n.space == space {
                    while let Some(((a, _), &g)) = next.peek() {
                        if *a >= n.offset {
                            break;
                        }
                        out.push(g);
                        next.next();
                    }
                }
            }
            out.push(k);
        }
        out.extend(next.map(|(_, &g)| g));
        if let Some(n) = self.node_mut(id) {
            n.children = out;
        }
    }

    /// True when the children of `id` in its space, in the order they now
    /// have, leave no byte of `[start, stop)` uncovered (the usual case:
    /// fields one after the other), found without allocating.
    /// Whether the children of `id` in `space` are in file order, and
    /// whether they cover `[start, stop)` (meaningful when they are).
    fn sorted_and_covered(
        &self,
        id: NodeId,
        space: SpaceId,
        start: u64,
        stop: u64,
    ) -> (bool, bool) {
        let Some(n) = self.node(id) else {
            return (true, true);
        };
        let mut pos = start;
        let mut last = 0u64;
        let mut holes = false;
        for &k in &n.children {
            let Some(c) = self.node(k) else {
                continue;
            };
            if c.space != space {
                continue;
            }
            if c.offset < last {
                return (false, false);
            }
            last = c.offset;
            if c.size == 0 {
                continue;
            }
            holes |= c.offset > pos;
            pos = pos.max(c.end());
        }
        (true, !holes && pos >= stop)
    }

    fn covered(&self, id: NodeId, space: SpaceId, start: u64, stop: u64) -> bool {
        let Some(n) = self.node(id) else {
            return true;
        };
        let mut pos = start;
        for &k in &n.children {
            let Some(c) = self.node(k) else {
                continue;
            };
            if c.space != space || c.size == 0 {
                continue;
            }
            if c.offset > pos {
                return false;
            }
            pos = pos.max(c.end());
        }
        pos >= stop
    }

    /// Puts the children of `id` in its space in file order (a stable
    /// sort: those that start together keep the order the format gave
    /// them, such as the bit fields of one byte); children in other spaces
    /// keep their places.
    fn sort_children(&mut self, id: NodeId, space: SpaceId) {
        let Some(Node {
            children: v,
            unbuilt: false,
            ..
        }) = self.node(id)
        else {
            return;
        };
        let at = |k: &NodeId| self.node(*k).filter(|n| n.space == space).map(|n| n.offset);
        // Most nodes are built in file order: see that without allocating.
        if v.iter().filter_map(at).is_sorted() {
            return;
        }
        let slots: Vec<usize> = (0..v.len())
            .filter(|&i| v.get(i).and_then(at).is_some())
            .collect();
        let mut mine: Vec<(u64, NodeId)> = slots
            .iter()
            .filter_map(|&i| v.get(i).map(|&k| (at(&k).unwrap_or(0), k)))
            .collect();
        mine.sort_by_key(|&(o, _)| o);
        let mut out = v.clone();
        for (&i, &(_, k)) in slots.iter().zip(&mine) {
            if let Some(x) = out.get_mut(i) {
                *x = k;
            }
        }
        if let Some(n) = self.node_mut(id) {
            n.children = out;
        }
    }

    /// One gap leaf of `[off, off+size)` under `parent`, named and
    /// diagnosed as `rule` says.
    fn gap_leaf(
        &mut self,
        parent: NodeId,
        space: SpaceId,
        off: u64,
        size: u64,
        rule: Gap,
        last: bool,
    ) -> NodeId {
        let bytes: Option<SpaceBytes> = if space == self.space {
            None
        } else {
            self.arena.derived_bytes(space)
        };
        let zero = {
            let d: &[u8] = match &bytes {
                Some(b) => b,
                None if space == self.space => self.data,
                None => &[],
            };
            let s = usize::try_from(off).unwrap_or(usize::MAX).min(d.len());
            let e = usize::try_from(off.saturating_add(size))
                .unwrap_or(usize::MAX)
                .min(d.len());
            let b = d.get(s..e).unwrap_or_default();
            // A run longer than this is not read (a sparse file's hole would
            // be read from the disk): it is not known to be zero.
            size <= MAX_GAP_READ && b.len() as u64 == size && b.iter().all(|&x| x == 0)
        };
        if space == self.space && size <= MAX_GAP_READ {
            self.pages_read(off, size);
        }
        let unread = size > MAX_GAP_READ;
        let (name, diag): (&'static str, Option<(Severity, String)>) = match rule {
            Gap::Padding if zero || unread => ("padding", None),
            Gap::Padding => (
                "padding",
                Some((
                    Severity::Warning,
                    format!("{size} bytes of padding are not zero"),
                )),
            ),
            Gap::Unused if zero => ("padding", None),
            Gap::Unused if last => (
                "unused",
                Some((
                    Severity::Info,
                    format!("{} past the last structure", Value::Size(size)),
                )),
            ),
            Gap::Unused => (
                "unused",
                Some((
                    Severity::Info,
                    format!("{} that no structure describes", Value::Size(size)),
                )),
            ),
            Gap::Unknown => (
                "unknown",
                Some((
                    Severity::Info,
                    format!("{} the format does not describe", Value::Size(size)),
                )),
            ),
            Gap::Syntax if zero => ("padding", None),
            Gap::Syntax => ("syntax", None),
            _ => ("contents", None),
        };
        let nest = self.nest_of(parent);
        let id = NodeId::at(self.arena.nodes.len());
        let value = if zero && size != 1 {
            Value::with(size, value::Radix::Dec, " zero bytes")
        } else if zero {
            Value::with(size, value::Radix::Dec, " zero byte")
        } else {
            Value::Size(size)
        };
        let mut leaf = Node::new(
            CompactString::const_new(name),
            off,
            size,
            Some(value),
            space,
            Some(parent),
            nest,
        );
        leaf.gaps = Gap::Off;
        self.arena.nodes.push(leaf);
        if let Some((sev, m)) = diag {
            // Bytes a warning or an error already covers (a format that
            // stopped reading there and said why) are not told of twice.
            let end = off.saturating_add(size);
            let told = self.arena.diags.iter().any(|d| {
                d.span.space == space
                    && d.severity >= Severity::Warning
                    && d.span.offset <= off
                    && end <= d.span.offset.saturating_add(d.span.len)
            });
            if !told {
                self.diag_in(space, sev, off, size, m);
            }
        }
        id
    }
}
