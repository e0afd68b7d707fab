//! Symbol hash tables: `.hash` (SHT_HASH: nbucket, nchain, the buckets and
//! the chains) and `.gnu.hash` (SHT_GNU_HASH: nbuckets, symoffset, the
//! Bloom filter's size and shift, its words, the buckets and the chain
//! values). Entries name the dynamic symbols they stand for; the buckets'
//! node tells how long the buckets' lists are.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::records::{self, gnu_hash, sysv_hash, GnuHash, SysvHash};
use super::symbols::sym_name;
use super::{Elf, Sec};
use crate::model::{Builder, Fields, NodeId, Span, Value};

/// `n lists of length k`, shortest first: `0:1 2:3` (one empty list,
/// three of two symbols).
fn histogram(lengths: &[u64]) -> String {
    let mut h: BTreeMap<u64, u64> = BTreeMap::new();
    for &n in lengths {
        *h.entry(n).or_default() += 1;
    }
    let parts: Vec<String> = h.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    format!(
        "{} buckets, list lengths {}",
        lengths.len(),
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(" ")
        }
    )
}

/// A symbol index named with the symbol's name.
fn sym_value(b: &Builder<'_>, elf: &Elf, table: u32, v: u64) -> Value {
    match sym_name(b, elf, table, v) {
        Some(n) if v != 0 && !n.is_empty() => Value::named(v, Some(&n)),
        _ => Value::uint(v),
    }
}

/// `[i] name` for symbol `i`, `[i]` when it has no name.
fn sym_label(b: &Builder<'_>, elf: &Elf, table: u32, i: u64) -> String {
    match sym_name(b, elf, table, i) {
        Some(n) if !n.is_empty() => format!("[{i}] {n}"),
        _ => format!("[{i}]"),
    }
}

/// The size of a bucket or chain entry (and of a symbol index).
const ENTRY: u64 = 4;

/// A hash section too short for its header.
fn short(b: &mut Builder<'_>, s: &Sec, at: Span, need: u64) {
    b.error(
        at.offset,
        at.len,
        format!(
            "section [{}] {}: a hash table header needs {need} bytes, the section has {}",
            s.index, s.name, at.len
        ),
    );
}

/// An SHT_HASH section.
pub(super) fn sysv(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) {
    let e = elf.e;
    let table = s.link;
    if at.len < sysv_hash::SIZE {
        short(b, s, at, sysv_hash::SIZE);
        return;
    }
    let mut f = Fields::new(b, id, at.offset, e);
    SysvHash::show(&mut f);
    let fitted = f.ok();
    let Some(h) = records::read::<SysvHash>(b, at.offset, e).filter(|_| fitted) else {
        return;
    };
    let (nb, nc) = (u64::from(h.nbucket), u64::from(h.nchain));
    let room = (at.len - sysv_hash::SIZE) / ENTRY;
    if nb.saturating_add(nc) > room {
        b.error(
            at.offset,
            sysv_hash::SIZE,
            format!(
                "section [{}] {}: nbucket {nb} and nchain {nc} need {} bytes, {} remain",
                s.index,
                s.name,
                sysv_hash::SIZE + ENTRY * (nb + nc),
                at.len
            ),
        );
    }
    let nb = nb.min(room);
    let nc = nc.min(room - nb);
    let bucket_at = at.offset + sysv_hash::SIZE;
    let chain_at = bucket_at + ENTRY * nb;
    // The length of each bucket's list, each chain entry visited once.
    let mut seen = vec![false; nc as usize];
    let mut lengths = Vec::with_capacity(nb as usize);
    for i in 0..nb {
        let mut n = 0u64;
        let mut y = b.read_u32(bucket_at + ENTRY * i, e).unwrap_or(0);
        while y != 0 {
            let Some(slot) = seen.get_mut(y as usize) else {
                break;
            };
            if *slot {
                break;
            }
            *slot = true;
            n += 1;
            y = b.read_u32(chain_at + ENTRY * u64::from(y), e).unwrap_or(0);
        }
        lengths.push(n);
    }
    buckets(b, id, elf, table, bucket_at, nb, &lengths);
    let el = elf.clone();
    b.array(
        id,
        "chains",
        chain_at,
        nc,
        4,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u32(o, el.e) else {
                return;
            };
            let val = sym_value(b, &el, table, v.into());
            let label = sym_label(b, &el, table, i);
            b.leaf(p, label, o, 4, val);
        }),
    );
}

/// An SHT_GNU_HASH section.
pub(super) fn gnu(b: &mut Builder<'_>, id: NodeId, elf: &Arc<Elf>, s: &Sec, at: Span) {
    let e = elf.e;
    let w = elf.word();
    let table = s.link;
    if at.len < gnu_hash::SIZE {
        short(b, s, at, gnu_hash::SIZE);
        return;
    }
    let mut f = Fields::new(b, id, at.offset, e);
    GnuHash::show(&mut f);
    let fitted = f.ok();
    let Some(h) = records::read::<GnuHash>(b, at.offset, e).filter(|_| fitted) else {
        return;
    };
    let (nb, symoffset, bloom) = (
        u64::from(h.nbuckets),
        u64::from(h.symoffset),
        u64::from(h.bloom_size),
    );
    let rest = at.len - gnu_hash::SIZE;
    let bloom_room = rest / w;
    let bloom = if bloom > bloom_room {
        gnu_hash::AT.bloom_size.error(
            b,
            at.offset,
            format!(
                "section [{}] {}: bloom_size {bloom} needs {} bytes, {rest} remain",
                s.index,
                s.name,
                bloom as u128 * w as u128
            ),
        );
        bloom_room
    } else {
        bloom
    };
    let bloom_at = at.offset + gnu_hash::SIZE;
    let bucket_at = bloom_at + bloom * w;
    let rest = rest - bloom * w;
    let nb = if nb > rest / ENTRY {
        gnu_hash::AT.nbuckets.error(
            b,
            at.offset,
            format!(
                "section [{}] {}: nbuckets {nb} needs {} bytes, {rest} remain",
                s.index,
                s.name,
                u128::from(ENTRY) * u128::from(nb)
            ),
        );
        rest / ENTRY
    } else {
        nb
    };
    let chain_at = bucket_at + ENTRY * nb;
    let nc = (rest - ENTRY * nb) / ENTRY;
    let mut seen = vec![false; nc as usize];
    let mut lengths = Vec::with_capacity(nb as usize);
    for i in 0..nb {
        let first = b.read_u32(bucket_at + ENTRY * i, e).unwrap_or(0);
        let mut n = 0u64;
        if first != 0 {
            let mut j = u64::from(first).checked_sub(symoffset);
            while let Some(k) = j {
                let Some(slot) = seen.get_mut(k as usize) else {
                    break;
                };
                if *slot {
                    break;
                }
                *slot = true;
                n += 1;
                if b.read_u32(chain_at + ENTRY * k, e).unwrap_or(1) & 1 != 0 {
                    break;
                }
                j = Some(k + 1);
            }
        }
        lengths.push(n);
    }
    let el = elf.clone();
    b.array(
        id,
        "bloom",
        bloom_at,
        bloom,
        w,
        Arc::new(move |b, p, i, o| {
            if let Some(v) = el.read_word(b, o) {
                b.leaf(
                    p,
                    format!("[{i}]"),
                    o,
                    el.word(),
                    Value::hex_wide(v, el.word() as u8),
                );
            }
        }),
    );
    buckets(b, id, elf, table, bucket_at, nb, &lengths);
    let el = elf.clone();
    b.array(
        id,
        "chains",
        chain_at,
        nc,
        4,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u32(o, el.e) else {
                return;
            };
            let label = sym_label(b, &el, table, symoffset + i);
            let val = if v & 1 != 0 {
                Value::with(v.into(), crate::model::Radix::Hex, " (end of list)")
            } else {
                Value::hex(v.into())
            };
            b.leaf(p, label, o, 4, val);
        }),
    );
}

/// The bucket array of either hash table: `nb` words at `at`, each the
/// symbol its chain starts at; the node's value the histogram of chain
/// lengths.
fn buckets(
    b: &mut Builder<'_>,
    id: NodeId,
    elf: &Arc<Elf>,
    table: u32,
    at: u64,
    nb: u64,
    lengths: &[u64],
) {
    let el = elf.clone();
    let bk = b.array(
        id,
        "buckets",
        at,
        nb,
        4,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u32(o, el.e) else {
                return;
            };
            let val = sym_value(b, &el, table, v.into());
            b.leaf(p, format!("[{i}]"), o, 4, val);
        }),
    );
    b.set_value(bk, histogram(lengths));
}
