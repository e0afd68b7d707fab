//! Containers of one format back to back in one range (a linker
//! concatenates them): one node for a single container, else a lazy list
//! with a node a container.

use std::sync::Arc;

use crate::model::{Builder, Format, NodeId, Seq, Span, Step};

/// How a format's containers lie back to back.
pub(crate) struct Parts {
    /// Each container's node is `NAME [i]`.
    pub name: &'static str,
    /// What the list's value counts (`{n} SUMMARY back to back`).
    pub summary: &'static str,
    /// What the warning past `max` counts.
    pub many: &'static str,
    pub max: u64,
    /// How many bytes the container starting at `at` of `d` says it takes.
    pub extent: fn(&[u8], u64) -> u64,
    /// Where the next container starts at or after `from` in `d`, if any.
    pub next_start: fn(&[u8], u64) -> Option<u64>,
    /// The format of the container whose bytes are given.
    pub format: fn(&[u8]) -> Format,
    /// Decodes one container under its node.
    pub open: fn(&mut Builder<'_>, NodeId, Span),
}

impl Parts {
    /// Where the part of `d` that starts with the container at `at` ends:
    /// at the next container after this one's end, or at the end of `d`.
    fn end(&self, d: &[u8], at: u64) -> u64 {
        let len = d.len() as u64;
        let end = (self.extent)(d, at).max(at + 1).min(len);
        match (self.next_start)(d, end) {
            Some(n) if n < len => n,
            _ => len,
        }
    }
}

/// Decodes `at` under `node` as one container or several.
pub(crate) fn back_to_back(b: &mut Builder<'_>, node: NodeId, at: Span, p: &'static Parts) {
    let d = b.bytes(at);
    if p.end(d, 0) >= at.len {
        (p.open)(b, node, at);
        return;
    }
    let stop = at.end();
    let step: Step = Arc::new(move |b: &mut Builder<'_>, parent, i, pos| {
        let end = at.offset + p.end(b.bytes(at), pos.checked_sub(at.offset)?);
        let part = at.at(pos, end - pos);
        let g = b.group(parent, format!("{} [{i}]", p.name), part.offset, part.len);
        b.set_format(g, (p.format)(b.bytes(part)));
        // Each container is read when its node is opened (with the value
        // its reading gives it): a library's fat binary holds hundreds of
        // bundles of code objects, and listing them reads only where each
        // ends.
        b.lazy_self(
            g,
            Arc::new(move |b: &mut Builder<'_>, g| {
                (p.open)(b, g, part);
                b.pages_read(part.offset, part.len);
            }),
        );
        Some(end)
    });
    // Counting the containers reads the header of each: the pages those
    // reads bring in may go back as the count goes (`Builder::pages_read`).
    let seq = Seq::scan(
        at.offset,
        stop,
        p.max,
        |pos| {
            let end = at.offset + p.end(d, pos - at.offset);
            b.pages_read(pos, end.saturating_sub(pos));
            Some(end)
        },
        step,
    );
    let n = seq.count();
    if seq.stop() < stop {
        b.warn(
            seq.stop(),
            stop - seq.stop(),
            format!("more than {} {}; the rest are not shown", p.max, p.many),
        );
    }
    b.seq(node, seq);
    b.set_value(node, format!("{n} {} back to back", p.summary));
}
