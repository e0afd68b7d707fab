//! The model on its own: ranges kept inside parents, lazy arrays in groups,
//! lookups by offset and by path, the bounded-memory walk.

use std::sync::Arc;

use fwview::model::{Builder, NodeId, Severity, Source, Tree};

fn build(len: usize, f: fn(&mut Builder<'_>, NodeId, u64, u64) -> Option<&'static str>) -> Tree {
    Tree::build(Arc::new(Source::from_vec(vec![0u8; len])), "t", f)
}

fn table(b: &mut Builder<'_>, p: NodeId, _o: u64, len: u64) -> Option<&'static str> {
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
    Some("table")
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

fn wild(b: &mut Builder<'_>, p: NodeId, _o: u64, _l: u64) -> Option<&'static str> {
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
    Some("wild")
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
        .any(|d| d.offset == 98 && d.message.contains("truncated")));
}

fn selfish(b: &mut Builder<'_>, p: NodeId, off: u64, len: u64) -> Option<&'static str> {
    // A "format" whose one payload is all of its own bytes.
    let g = b.group(p, "payload", off, len);
    b.nested(g, off, len);
    Some("selfish")
}

#[test]
fn a_payload_that_is_its_own_container_is_not_opened_again() {
    let mut t = build(64, selfish);
    t.expand_all();
    assert_eq!(t.len(), 2, "root and one payload");
    assert_eq!(t.diagnostics().len(), 1);
    assert!(t.diagnostics()[0].message.contains("not opened again"));
}
