//! Lazy sequences and arrays: items built when their parent is opened,
//! in groups.

use std::sync::Arc;

use compact_str::CompactString;

use crate::model::arena::NodeId;
use crate::model::arena::{Builder, ElemFn};
use crate::model::value::{self, Value};

/// Builds item `index` at `offset` under `parent` in a [`Seq`]:
/// `(builder, parent, index, offset)`; returns where the next item starts,
/// or `None` when no item could be read there (the rest are not shown).
pub type Step = Arc<dyn Fn(&mut Builder<'_>, NodeId, u64, u64) -> Option<u64> + Send + Sync>;

/// Where a sequence's items start.
enum Starts {
    /// Item `i` starts at `base + i * stride`.
    Stride { base: u64, stride: u64 },
    /// The start of every [`GROUP`]-th item, from a scan.
    Marks(Vec<u64>),
}

/// A lazily built sequence of items, fixed-size or variable-size: the one
/// primitive behind every long list (tables, command streams, string
/// tables, text lines). Only every [`GROUP`]-th start is kept, so a list of
/// millions costs a few kilobytes until it is opened.
pub struct Seq {
    starts: Starts,
    count: u64,
    /// Where the last item ends.
    stop: u64,
    step: Step,
}

impl Seq {
    /// `count` items of `stride` bytes from `base`.
    pub fn fixed(base: u64, stride: u64, count: u64, step: Step) -> Seq {
        Seq {
            starts: Starts::Stride { base, stride },
            count,
            stop: base.saturating_add(count.saturating_mul(stride)),
            step,
        }
    }

    /// Variable-size items from `start`: `next(off)` says where the item at
    /// `off` ends (`None`: no item there, the list ends). Scans at most to
    /// `end` and at most `max` items.
    pub fn scan(
        start: u64,
        end: u64,
        max: u64,
        mut next: impl FnMut(u64) -> Option<u64>,
        step: Step,
    ) -> Seq {
        let mut marks = Vec::new();
        let mut count = 0u64;
        let mut off = start;
        while off < end && count < max {
            let Some(n) = next(off) else {
                break;
            };
            if n <= off {
                break;
            }
            if count.is_multiple_of(GROUP) {
                marks.push(off);
            }
            count += 1;
            off = n.min(end);
        }
        Seq {
            starts: Starts::Marks(marks),
            count,
            stop: off,
            step,
        }
    }

    /// Items whose every [`GROUP`]-th start the caller already knows.
    pub fn from_marks(marks: Vec<u64>, count: u64, stop: u64, step: Step) -> Seq {
        Seq {
            starts: Starts::Marks(marks),
            count,
            stop,
            step,
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Where the items end.
    pub fn stop(&self) -> u64 {
        self.stop
    }

    fn zero_size(&self) -> bool {
        matches!(self.starts, Starts::Stride { stride: 0, .. })
    }

    /// Where item `i` starts, for `i` a multiple of [`GROUP`] (or the end).
    fn start_of(&self, i: u64) -> u64 {
        if i >= self.count {
            return self.stop;
        }
        match &self.starts {
            Starts::Stride { base, stride } => base.saturating_add(i.saturating_mul(*stride)),
            Starts::Marks(m) => m.get((i / GROUP) as usize).copied().unwrap_or(self.stop),
        }
    }
}

/// How many children an array node shows before it groups them.
pub const GROUP: u64 = 1000;

/// The size of the groups that `n` children are shown in: the smallest
/// power of [`GROUP`] that leaves at most [`GROUP`] groups.
pub fn group_size(n: u64) -> u64 {
    let mut g = GROUP;
    while n.div_ceil(g) > GROUP {
        g = g.saturating_mul(GROUP);
    }
    g
}

impl Builder<'_> {
    /// Adds an array of `count` elements of `stride` bytes from `off`. Its
    /// elements are built by `elem` when the array is opened, in groups of
    /// at most [`GROUP`] so that a table of millions opens at once. A count
    /// that does not fit in the parent is cut to what fits, with an error.
    pub fn array(
        &mut self,
        parent: NodeId,
        name: &str,
        off: u64,
        count: u64,
        stride: u64,
        elem: ElemFn,
    ) -> NodeId {
        let pend = self.range(parent).end();
        let room = pend.saturating_sub(off);
        let mut n = count;
        if stride == 0 {
            n = n.min(GROUP);
        } else if count.saturating_mul(stride) > room {
            n = room / stride;
            self.error(
                off,
                room,
                format!(
                    "{name}: {count} entries of {stride} bytes need {} bytes, only {room} remain; showing {n}",
                    count as u128 * stride as u128
                ),
            );
        }
        let id = self.add(
            parent,
            name,
            off,
            n * stride,
            Some(Value::with(n, value::Radix::Dec, " entries")),
        );
        if n > 0 {
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
                elem(b, p, i, at);
                Some(at.saturating_add(stride))
            });
            self.seq(id, Seq::fixed(off, stride, n, step));
        }
        id
    }

    /// Makes `node` show the items of `seq`, built when it is opened: up to
    /// [`GROUP`] items directly, more in groups `[a..b)` of groups, as many
    /// levels as the count needs.
    pub fn seq(&mut self, node: NodeId, seq: Seq) {
        if seq.count == 0 {
            return;
        }
        let seq = Arc::new(seq);
        let count = seq.count;
        self.lazy(
            node,
            Arc::new(move |b: &mut Builder<'_>, id| b.fill(id, 0, count, &seq)),
        );
    }

    /// Adds the items of `seq` under `node` now, as [`Builder::seq`] would
    /// when `node` is opened: for a lazy builder of `node` whose sequence
    /// is only known once it runs (its scan is the costly part).
    pub fn seq_now(&mut self, node: NodeId, seq: Seq) {
        if seq.count == 0 {
            return;
        }
        let count = seq.count;
        self.fill(node, 0, count, &Arc::new(seq));
    }

    fn fill(&mut self, parent: NodeId, lo: u64, hi: u64, seq: &Arc<Seq>) {
        let n = hi - lo;
        if n <= GROUP {
            // `lo` is 0 or a multiple of a group size, so its start is known.
            let mut off = seq.start_of(lo);
            self.reserve(parent, n as usize);
            for i in lo..hi {
                match (seq.step)(self, parent, i, off) {
                    Some(next) if next > off || seq.zero_size() => off = next,
                    _ => break,
                }
            }
            return;
        }
        let g = group_size(n);
        let dense = self.arena.dense.get(parent).is_some();
        let mut s = lo;
        while s < hi {
            let e = s.saturating_add(g).min(hi);
            let so = seq.start_of(s);
            let eo = seq.start_of(e).max(so);
            let mut label = CompactString::const_new("[");
            label.push_str(itoa::Buffer::new().format(s));
            label.push_str("..");
            label.push_str(itoa::Buffer::new().format(e));
            label.push(')');
            let gid = self.add(parent, label, so, eo - so, None);
            if dense {
                self.dense(gid);
            }
            let sq = seq.clone();
            self.lazy(
                gid,
                Arc::new(move |b: &mut Builder<'_>, id| b.fill(id, s, e, &sq)),
            );
            s = e;
        }
    }
}
