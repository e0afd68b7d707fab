//! String tables: each string at its index, built when opened, in groups
//! when many.

use std::sync::Arc;

use compact_str::CompactString;

use crate::model::{group_size, Builder, NodeId, Value, GROUP};

/// Shows a string table's strings, built when opened, in groups when many.
pub(crate) fn strings(b: &mut Builder<'_>, id: NodeId, a: u64, l: u64) {
    if l == 0 {
        return;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| string_range(b, id, a, a, a + l)),
    );
}

fn string_range(b: &mut Builder<'_>, parent: NodeId, table: u64, lo: u64, hi: u64) {
    let bytes = b.slice(lo, hi - lo);
    let nuls = memchr::memchr_iter(0, bytes).count() as u64;
    let count = nuls + u64::from(bytes.last().is_some_and(|&c| c != 0));
    if count <= GROUP {
        let mut pos = 0usize;
        while pos < bytes.len() {
            let rest = bytes.get(pos..).unwrap_or(&[]);
            let (s, n) = match memchr::memchr(0, rest) {
                Some(k) => (rest.get(..k).unwrap_or(&[]), k + 1),
                None => (rest, rest.len()),
            };
            let off = lo + pos as u64;
            let mut label = CompactString::const_new("[");
            label.push_str(crate::model::value::hex_digits(off - table, &mut [0; 18]));
            label.push(']');
            let id = b.group_owned(parent, label, off, n as u64);
            b.set_value(id, Value::str_bytes(s));
            pos += n.max(1);
        }
        return;
    }
    let g = group_size(count);
    let mut start = 0usize;
    let mut seen = 0u64;
    let mut cuts = Vec::new();
    for k in memchr::memchr_iter(0, bytes) {
        seen += 1;
        if seen.is_multiple_of(g) {
            cuts.push((start, k + 1));
            start = k + 1;
        }
    }
    if start < bytes.len() {
        cuts.push((start, bytes.len()));
    }
    for (s, e) in cuts {
        let (s, e) = (lo + s as u64, lo + e as u64);
        let gid = b.group(
            parent,
            format!("[0x{:x}..0x{:x})", s - table, e - table),
            s,
            e - s,
        );
        b.lazy(
            gid,
            Arc::new(move |b: &mut Builder<'_>, id| string_range(b, id, table, s, e)),
        );
    }
}
