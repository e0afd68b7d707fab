//! The model on its own: ranges kept inside parents, lazy arrays in groups,
//! lookups by offset and by path, the bounded-memory walk.

use std::ops::ControlFlow;
use std::sync::Arc;

use fwview::model::{Builder, Format, NodeId, Severity, Source, Span, Tree, Value};

use crate::common;

fn build(len: usize, f: fn(&mut Builder<'_>, NodeId, Span) -> Option<Format>) -> Tree {
    Tree::build(Arc::new(Source::from_vec(vec![0u8; len])), "t", f)
}

fn table(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    // 2,500,000 entries of 4 bytes each: grouped twice.
    b.array(
        p,
        "table",
        0,
        len / 4,
        4,
        Arc::new(|b, parent, i, off| {
            let e = b.group(parent, format!("[{i}]"), off, 4);
            b.leaf(e, "value", off, 4, i.to_string());
        }),
    );
    b.group(p, "a/b", 0, 1);
    Some(Format::Json)
}

#[test]
fn big_arrays_open_in_groups_of_at_most_1000() {
    let mut t = build(10_000_000, table);
    // Nothing is built before it is asked for.
    assert!(t.len() < 10);
    let table = t.children(t.root())[0];
    let groups = t.children(table);
    assert_eq!(groups.len(), 3);
    assert_eq!(t.name(groups[0]), "[0..1000000)");
    assert_eq!(t.name(groups[2]), "[2000000..2500000)");
    let sub = t.children(groups[2]);
    assert_eq!(sub.len(), 500);
    assert_eq!(t.name(sub[499]), "[2499000..2500000)");
    let leaves = t.children(sub[499]);
    assert_eq!(leaves.len(), 1000);
    assert_eq!(t.name(leaves[999]), "[2499999]");
    assert_eq!(t.node(leaves[999]).unwrap().offset, 9_999_996);
    assert!(t.len() < 3000, "only what was opened is built: {}", t.len());
}

#[test]
fn deepest_node_and_path_lookups_build_only_their_way() {
    let mut t = build(10_000_000, table);
    let id = t.deepest_at(4_000_001);
    assert_eq!(
        t.path_string(id),
        "table/[1000000..2000000)/[1000000..1001000)/[1000000]/value"
    );
    // One group of groups (1000) and one group of entries (1000, each with
    // its value) on the way: not the 2.5 million.
    assert!(t.len() < 5000, "{}", t.len());
    let found = t.find_path("table/[0..1000000)/[0..1000)/[7]").unwrap();
    assert_eq!(t.node(found).unwrap().offset, 28);
    // A name holding a slash is escaped in its address; the root's name
    // may lead.
    let ab = t.find_path("t/a\\/b").unwrap();
    assert_eq!(t.name(ab), "a/b");
    assert_eq!(t.path_string(ab), "a\\/b");
    assert!(t.find_path("a/b").is_none());
    assert!(t.find_path("table/nope").is_none());
}

#[test]
fn a_walk_visits_everything_and_forgets_it() {
    let mut t = build(40_000, table);
    let before = t.len();
    let mut seen = 0usize;
    let _ = t.walk(&mut |_, _, _, enter| {
        if enter {
            seen += 1;
        }
        std::ops::ControlFlow::Continue(())
    });
    // root, table, 10,000 entries in 10 groups, each entry with a value, a/b
    assert_eq!(seen, 1 + 1 + 10 + 20_000 + 1);
    assert_eq!(t.len(), before);
}

fn wild(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
    let g = b.group(p, "inside", 10, 10);
    b.group(g, "too far", 15, 100);
    b.array(
        p,
        "count too big",
        90,
        u64::MAX,
        8,
        Arc::new(|_, _, _, _| {}),
    );
    b.u32(p, "past the end", 98, fwview::model::Endian::Little);
    Some(Format::Json)
}

#[test]
fn ranges_are_cut_to_their_parent_with_diagnostics() {
    let mut t = build(100, wild);
    t.expand_all();
    let far = t.find_path("inside/too far").unwrap();
    assert_eq!(
        (t.node(far).unwrap().offset, t.node(far).unwrap().size),
        (15, 5)
    );
    let arr = t.find_path("count too big").unwrap();
    assert_eq!(t.node(arr).unwrap().size, 8);
    assert!(t.find_path("past the end").is_none());
    let d = t.diagnostics();
    assert_eq!(d.len(), 3, "{d:?}");
    assert_eq!(
        d.iter().filter(|d| d.severity == Severity::Error).count(),
        2
    );
    assert!(d
        .iter()
        .any(|d| d.span.offset == 98 && d.message.contains("truncated")));
}

fn selfish(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    // A "format" whose one payload is all of its own bytes.
    let g = b.group(p, "payload", at.offset, at.len);
    b.nested(g, at);
    Some(Format::Json)
}

#[test]
fn a_payload_that_is_its_own_container_is_not_opened_again() {
    let mut t = build(64, selfish);
    t.expand_all();
    assert_eq!(t.len(), 2, "root and one payload");
    assert_eq!(t.diagnostics().len(), 1);
    assert!(t.diagnostics()[0].message.contains("not opened again"));
}

fn prefixes(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    // A "format" with three payloads, each a prefix of its own bytes: each
    // would hold three more, as deep as nesting goes.
    for k in 1..=3 {
        let g = b.group(p, format!("payload {k}"), at.offset, at.len - k);
        b.nested(g, at.take(at.len - k));
    }
    Some(Format::Json)
}

#[test]
fn payloads_that_start_where_their_container_starts_are_not_opened() {
    let mut t = build(64, prefixes);
    t.expand_all();
    assert_eq!(t.len(), 4, "root and three payloads, none opened");
    assert_eq!(t.diagnostics().len(), 3);
    assert!(t
        .diagnostics()
        .iter()
        .all(|d| d.message.starts_with("starts where the enclosing")
            && d.message.ends_with("starts; not opened again")));
}

/// A table whose entries each raise a diagnostic when built, and whose
/// entries repeat names: addresses must tell them apart.
fn noisy(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    b.array(
        p,
        "rows",
        0,
        len / 4,
        4,
        Arc::new(|b, parent, i, off| {
            let e = b.group(parent, "row", off, 4);
            b.leaf(e, "n", off, 4, Value::uint(i));
            if i % 100 == 7 {
                b.warn(off, 4, format!("row {i} is odd"));
            }
        }),
    );
    Some(Format::Json)
}

#[test]
fn diagnostics_are_raised_once_however_often_a_node_is_rebuilt() {
    let mut t = build(40_000, noisy);
    let rows = t.children(t.root())[0];
    let groups = t.children(rows);
    t.children(groups[3]);
    let first: Vec<_> = t.diagnostics().to_vec();
    assert_eq!(first.len(), 10);
    // A node search walks (and releases) everything; walks again; then the
    // same group is rebuilt in a fresh walk.
    for _ in 0..3 {
        let (m, complete) = fwview::search::find_nodes(&mut t, "row", false);
        assert!(complete);
        assert_eq!(m.len(), 10_001, "the 10,000 rows and their table");
    }
    let after: Vec<_> = t.diagnostics().to_vec();
    assert_eq!(after.len(), 100, "each of the 100 odd rows once");
    for d in &first {
        assert_eq!(after.iter().filter(|x| *x == d).count(), 1);
    }
    let mut again = 0;
    let _ = t.walk(&mut |_, _, _, _| {
        again += 1;
        ControlFlow::Continue(())
    });
    assert_eq!(t.diagnostics().len(), 100);
}

#[test]
fn every_node_has_an_address_that_finds_it_again() {
    let mut t = build(4_000, noisy);
    let rows = t.children(t.root())[0];
    let kids = t.children(rows);
    assert_eq!(kids.len(), 1000, "1000 rows, no groups");
    assert_eq!(t.path_string(kids[0]), "rows/row#0");
    assert_eq!(t.path_string(kids[999]), "rows/row#999");
    for &k in [0usize, 1, 2, 500, 999].iter().map(|i| &kids[*i]) {
        let p = t.path_string(k);
        assert_eq!(t.find_path(&p), Some(k), "{p}");
    }
    // Without #K, the first of the name.
    assert_eq!(t.find_path("rows/row"), Some(kids[0]));
    assert_eq!(t.find_path("rows/row#1000"), None);
    // A node search hit carries the address of exactly that node.
    let (m, _) = fwview::search::find_nodes(&mut t, "42", false);
    let hit = m.iter().find(|m| m.span.offset == 42 * 4).unwrap();
    assert_eq!(hit.path, "rows/row#42/n");
    let id = t.find_path(&hit.path).unwrap();
    assert_eq!(t.node(id).unwrap().offset, 168);
}

#[test]
fn a_walk_stops_when_asked() {
    let mut t = build(40_000, table);
    let mut seen = 0usize;
    let flow = t.walk(&mut |_, _, _, enter| {
        if enter {
            seen += 1;
        }
        if seen == 50 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert!(flow.is_break());
    assert_eq!(seen, 50);
}

/// A "format" that keeps a compressed copy of its second half: the first
/// 8 bytes say how long the inflated bytes are; derive() inflates them.
fn packed(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    let want = b.read_u64(0, fwview::model::Endian::Little).unwrap_or(0);
    b.u64(p, "inflated size", 0, fwview::model::Endian::Little);
    let body = b.group(p, "body", 8, len - 8);
    let made = b.derive(
        body,
        "inflated",
        b.span(8, len - 8),
        "repeat",
        move |src, limit| {
            if want > limit {
                return Err(format!("{want} bytes is past the bound of {limit}"));
            }
            Ok(src.iter().copied().cycle().take(want as usize).collect())
        },
    );
    if let Some(root) = made {
        b.within(root, |b, root| {
            let n = b.file_len();
            b.leaf(
                root,
                "first",
                0,
                1,
                Value::uint(u64::from(b.read_u8(0).unwrap_or(0))),
            );
            b.array(
                root,
                "bytes",
                0,
                n,
                1,
                Arc::new(|b, parent, i, off| {
                    b.leaf(
                        parent,
                        format!("[{i}]"),
                        off,
                        1,
                        Value::uint(u64::from(b.read_u8(off).unwrap_or(0))),
                    );
                }),
            );
            if n > 2 {
                b.warn(2, 1, "a warning inside the derived space");
            }
        });
    }
    Some(Format::Json)
}

fn packed_file(inflated: u64, body: &[u8]) -> Vec<u8> {
    let mut v = inflated.to_le_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

#[test]
fn derived_spaces_hold_bytes_that_are_not_in_the_file() {
    let src = Arc::new(Source::from_vec(packed_file(5000, b"abc")));
    let mut t = Tree::build(src, "t", packed);
    let body = t.find_path("body").unwrap();
    let root = t.children(body)[0];
    let n = t.node(root).unwrap();
    assert_eq!((n.space.0, n.offset, n.size), (1, 0, 5000));
    assert_eq!(t.spaces().len(), 2);
    let sp = &t.spaces()[1];
    let o = sp.origin.unwrap();
    assert_eq!(
        (o.from.space.0, o.from.offset, o.from.len, o.method),
        (0, 8, 3, "repeat")
    );
    assert!(
        sp.describe()
            .contains("repeat, made from 0x8+0x3 of the file"),
        "{}",
        sp.describe()
    );
    assert_eq!(t.space_bytes(fwview::model::SpaceId(1)).len(), 5000);
    assert_eq!(&t.space_bytes(fwview::model::SpaceId(1))[..6], b"abcabc");
    // Nodes inside the space have offsets in it; lookups stay in it.
    let deep = t.smallest_containing_from(root, t.span_in(root, 4001, 1));
    assert_eq!(
        t.path_string(deep),
        "body/inflated/bytes/[4000..5000)/[4001]"
    );
    assert_eq!(t.node(deep).unwrap().space.0, 1);
    assert_eq!(t.node_bytes(deep), b"c");
    assert_eq!(t.space_root(deep), root);
    // The diagnostic is in space 1.
    assert!(t
        .diagnostics()
        .iter()
        .any(|d| d.span.space.0 == 1 && d.span.offset == 2));
    // Rebuilt after a walk, the space is found again, not made twice.
    let _ = t.walk(&mut |_, _, _, _| ControlFlow::Continue(()));
    let _ = t.walk(&mut |_, _, _, _| ControlFlow::Continue(()));
    assert_eq!(t.spaces().len(), 2);
    assert_eq!(
        t.diagnostics()
            .iter()
            .filter(|d| d.span.space.0 == 1)
            .count(),
        1
    );
}

#[test]
fn derived_spaces_are_bounded() {
    // 3 bytes may become at most 3 × 1024 + 1 MiB: 64 MiB is refused with
    // an error at the source bytes, and nothing is allocated.
    let src = Arc::new(Source::from_vec(packed_file(64 << 20, b"abc")));
    let mut t = Tree::build(src, "t", packed);
    let body = t.find_path("body").unwrap();
    assert!(t.children(body).is_empty());
    assert_eq!(t.spaces().len(), 1);
    let d = t
        .diagnostics()
        .iter()
        .find(|d| d.severity == Severity::Error)
        .unwrap();
    assert_eq!((d.span.space.0, d.span.offset, d.span.len), (0, 8, 3));
    assert!(d.message.contains("past the bound"), "{}", d.message);
}

#[test]
fn json_lists_spaces_and_every_node_says_its_space() {
    let src = Arc::new(Source::from_vec(packed_file(3000, b"xyz")));
    let mut t = Tree::build(src, "t", packed);
    let mut out = Vec::new();
    fwview::export::json(&mut t, "t", &mut out).unwrap();
    let st = common::contract::check(&out, 11).unwrap();
    let st2 = common::contract::check_parsed(&out, 11).unwrap();
    assert_eq!(st.nodes, st2.nodes);
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(j["spaces"][1]["from"]["method"], "repeat");
    assert_eq!(j["spaces"][1]["size"], 3000);
    let size = &j["root"]["children"][0];
    assert_eq!(size["name"], "inflated size");
    assert_eq!(size["raw"], 3000);
    assert_eq!(size["value"], "3000 (0xbb8)");
    let inflated = &j["root"]["children"][1]["children"][0];
    assert_eq!(inflated["space"], 1);
    assert_eq!(inflated["offset"], 0);
    // --tree marks nodes of derived spaces with their space.
    let mut txt = Vec::new();
    fwview::export::text_tree(&mut t, &mut txt).unwrap();
    let txt = String::from_utf8(txt).unwrap();
    assert!(
        txt.contains("    inflated [1:0x0+0xbb8] 3000 bytes, repeat from 0x8+0x3\n"),
        "{txt}"
    );
}

/// A format that leaves holes: a header, zeros around non-zero bytes, a
/// lazily built table whose entries leave a byte each, all added out of
/// order.
fn holes(b: &mut Builder<'_>, p: NodeId, _at: Span) -> Option<Format> {
    b.gaps(p, fwview::model::Gap::Unused);
    let t = b.group(p, "table", 32, 12);
    b.seq(
        t,
        fwview::model::Seq::fixed(
            32,
            4,
            3,
            Arc::new(|b, parent, i, off| {
                b.leaf(parent, format!("[{i}]"), off, 3, i.to_string());
                Some(off + 4)
            }),
        ),
    );
    let h = b.group(p, "header", 0, 8);
    b.leaf(h, "b", 4, 4, "b");
    b.leaf(h, "a", 0, 2, "a");
    b.gaps(h, fwview::model::Gap::Padding);
    Some(Format::Json)
}

#[test]
fn gap_leaves_fill_what_no_child_covers_in_file_order() {
    let mut d = vec![0u8; 48];
    d[20..24].copy_from_slice(b"junk");
    d[2] = 7; // padding that is not zero
    let mut t = Tree::build(Arc::new(Source::from_vec(d)), "t", holes);
    t.expand_all();
    let row = |t: &Tree, k: NodeId| {
        let n = t.node(k).unwrap();
        (t.name(k).to_string(), n.offset, n.size)
    };
    let top: Vec<_> = t
        .built_children(NodeId::ROOT)
        .iter()
        .map(|&k| row(&t, k))
        .collect();
    let want = [
        ("header", 0, 8),
        // One leaf a hole: zeros around non-zero bytes are not padding.
        ("unused", 8, 24),
        ("table", 32, 12),
        ("padding", 44, 4),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(n, o, s)| (n.to_string(), *o, *s))
        .collect();
    assert_eq!(top, want);
    let h = t.find_path("header").unwrap();
    let hs: Vec<_> = t.built_children(h).iter().map(|&k| row(&t, k)).collect();
    assert_eq!(
        hs,
        [
            ("a".into(), 0, 2),
            ("padding".into(), 2, 2),
            ("b".into(), 4, 4)
        ]
    );
    // Built lazily, the table's gaps too: one byte after each entry.
    let tb = t.find_path("table").unwrap();
    let names: Vec<_> = t
        .children(tb)
        .iter()
        .map(|&k| t.name(k).to_string())
        .collect();
    assert_eq!(
        names,
        ["[0]", "padding", "[1]", "padding", "[2]", "padding"]
    );
    let d: Vec<_> = t
        .diagnostics()
        .iter()
        .map(|g| (g.severity, g.span.offset, g.span.len))
        .collect();
    assert_eq!(
        d,
        [(Severity::Info, 8, 24), (Severity::Warning, 2, 2)],
        "{:?}",
        t.diagnostics()
    );
}
