//! Tests of the tree's links and short paths.

use super::*;

/// A file of 64 bytes: a group `a` over 0..32 with two leaves named by
/// a 100-character name and one named `p` (a bare number linked to
/// 16..24, a string linked to 0..8); bytes 32..64 a leaf `b`.
pub(crate) fn linked(b: &mut Builder<'_>, root: NodeId, _at: Span) -> Option<Format> {
    let long = "x".repeat(100);
    let a = b.group(root, "a", 0, 32);
    b.group(a, &long, 0, 8);
    b.group(a, format!("{long}y"), 8, 8);
    b.group(a, "t", 16, 16);
    let p = b.leaf(root, "p", 32, 8, Value::hex(16));
    b.link(p, b.span(16, 8));
    let s = b.leaf(root, "s", 40, 8, Value::str("x"));
    b.link(s, b.span(0, 8));
    let q = b.leaf(root, "q", 48, 8, Value::hex(20));
    b.link(q, b.span(20, 4));
    b.group(root, "r", 56, 8);
    None
}

#[test]
fn links_lead_to_the_node_that_starts_there_named_by_a_short_path() {
    let mut t = Tree::build(Arc::new(Source::from_vec(vec![0; 64])), "f", linked);
    let find = |t: &mut Tree, p: &str| t.find_path(p).expect(p);
    let p = find(&mut t, "p");
    let s = find(&mut t, "s");
    let q = find(&mut t, "q");
    // A bare number's link is named; a string's is not.
    let l = t.bare_link(p).expect("p's link");
    assert_eq!(t.bare_link(s), None);
    assert!(t.link(s).is_some());
    let to = t.link_target(l).expect("a node at 16");
    assert_eq!(t.short_path(to), "a/t");
    // Into the middle of `a/t`: no node starts there.
    let lq = t.link(q).expect("q's link");
    let f = t.follow(lq);
    assert_eq!(t.name(f), "t");
    assert_eq!(t.link_target(lq), None);
    assert_eq!(t.link_target(Span::file(64, 1)), None);
    // Names past 64 characters are cut to 60 and `…`; two that cut
    // the same are told apart by `#K`, and the cut address finds the
    // node again.
    let a = find(&mut t, "a");
    let kids = t.children(a);
    let cut = format!("a/{}…", "x".repeat(60));
    assert_eq!(t.short_path(kids[0]), format!("{cut}#0"));
    assert_eq!(t.short_path(kids[1]), format!("{cut}#1"));
    assert_eq!(t.find_path(&format!("{cut}#1")), Some(kids[1]));
    // The full address is as it was.
    assert_eq!(t.path_string(kids[1]), format!("a/{}y", "x".repeat(100)));
    assert_eq!(t.find_path(&t.path_string(kids[1])), Some(kids[1]));
}

/// A lazy node `z` whose children are a space made from bytes 0..8 (each
/// byte plus one) and a leaf in it.
fn derives(b: &mut Builder<'_>, root: NodeId, _at: Span) -> Option<Format> {
    let z = b.group(root, "z", 0, 8);
    b.lazy(
        z,
        Arc::new(|b: &mut Builder<'_>, z: NodeId| {
            let made = b.derive(z, "plus one", b.span(0, 8), "test", |src, _| {
                Ok(src.iter().map(|x| x + 1).collect())
            });
            if let Some(d) = made {
                b.within(d, |b, d| {
                    b.leaf(d, "first", 0, 1, Value::hex(0));
                });
            }
        }),
    );
    None
}

#[test]
fn dropped_spaces_keep_their_number_and_are_made_again() {
    let mut t = Tree::build(Arc::new(Source::from_vec((0..8).collect())), "f", derives);
    let z = t.find_path("z").expect("z");
    let mark = t.mark();
    t.expand(z);
    let d = t.find_path("z/plus one").expect("the space's node");
    let sid = t.node(d).map(|n| n.space).expect("a node");
    assert_eq!(t.space_bytes(sid), &[1, 2, 3, 4, 5, 6, 7, 8]);
    t.release_below(z, mark);
    t.drop_spaces_from(mark);
    // Given back: empty, but the same number and size.
    assert!(t.space_bytes(sid).is_empty());
    assert_eq!(t.spaces().len(), 2);
    assert_eq!(t.spaces()[1].size(8), 8);
    // Built again: the same space, its bytes made again.
    t.expand(z);
    let d = t.find_path("z/plus one").expect("the space's node again");
    assert_eq!(t.node(d).map(|n| n.space), Some(sid));
    assert_eq!(t.space_bytes(sid), &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(t.spaces().len(), 2);
}

/// Every node of `t` as built now, in the arena's order: its address,
/// space, range, value, link and format.
fn dump(t: &Tree) -> Vec<String> {
    (0..t.len())
        .map(NodeId::at)
        .filter_map(|id| {
            let n = t.node(id)?;
            Some(format!(
                "{} {}:{:x}+{:x} {:?} {:?} {:?} {}",
                t.path_string(id),
                n.space.index(),
                n.offset,
                n.size,
                t.value_text(id),
                t.link(id),
                t.node_format(id),
                t.is_built(id),
            ))
        })
        .collect()
}

/// A snapshot of a tree is the tree as it was: it stays so while the tree
/// builds on, and built in turn it is what a fresh tree builds (a real
/// xclbin, with its nested ELF, CDOs and PDIs, and an offload object).
#[test]
fn a_snapshot_is_the_tree_as_it_was() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    for f in [
        "xclbin/riallto__color_threshold_v1_720p.xclbin",
        "offload/debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-amdgpu-gfx90a.o",
    ] {
        let bytes = std::fs::read(root.join(f)).expect(f);
        let mut fresh = crate::formats::build_from_bytes(bytes.clone());
        let mut t = crate::formats::build_from_bytes(bytes);
        let first = dump(&t);
        let mut copy = t.snapshot();
        t.expand_all();
        fresh.expand_all();
        assert!(t.len() > first.len(), "{f}: the tree grew");
        assert_eq!(dump(&copy), first, "{f}: the snapshot as it was");
        copy.expand_all();
        assert_eq!(dump(&copy), dump(&fresh), "{f}: built");
        assert_eq!(copy.diagnostics(), fresh.diagnostics(), "{f}");
    }
}
