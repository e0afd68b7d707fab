//! Checks shared by the diff tests.

use fwview::diff::{Change, Record};
use fwview::model::Tree;

/// Every record's path is an address in its file (A's for a removed node,
/// B's otherwise) of a node at the place and size the record gives.
pub fn paths_name_their_nodes(recs: &[Record], ta: &mut Tree, tb: &mut Tree) {
    for r in recs {
        let (t, s) = match r.change {
            Change::Removed => (&mut *ta, r.a.as_ref().expect("side A")),
            _ => (&mut *tb, r.b.as_ref().expect("side B")),
        };
        let id = t
            .find_path(&r.path)
            .unwrap_or_else(|| panic!("{} names no node", r.path));
        let n = t.node(id).expect("a node");
        assert_eq!(
            (n.space, n.offset, n.size),
            (s.span.space, s.span.offset, s.span.len),
            "{}",
            r.path
        );
    }
}
