//! Instances read with the element that holds them. A repeat's elements
//! are read a group at a time, when the group is opened; an instance of
//! an element is a node read when it is opened, each in a run of its own.
//! For the instances that show one value (a `value`, or a primitive read
//! at a `pos`) that run is most of the cost of a large repeat (the symbols
//! of an ELF), so an element's run reads them once the element is read,
//! and its nodes get what opening them would have given: the same range,
//! value and place among their siblings ([`crate::model::Builder::place_later`]).
//!
//! An instance that fails, raises a problem, or reads more than one node
//! is left to be read when opened, as before, and its kind (its type and
//! index) is not read with its elements again: what the user sees of it
//! is what reading it alone shows.

use std::sync::Arc;

use super::{Extra, Later, Obj, Run, Settled, Type};
use crate::formats::ksy::spec::{Attr, Repeat};

/// True for an instance that shows as one node with a value: a `value`,
/// or a primitive, string or byte array read once, unprocessed.
fn one_value(a: &Attr) -> bool {
    a.value.is_some()
        || (matches!(a.repeat, Repeat::No)
            && a.process.is_none()
            && matches!(a.ty, Type::Prim(_) | Type::Str { .. } | Type::Bytes))
}

impl Run<'_> {
    /// True where instance `k` (`a`) of an object of type `ty` is to be
    /// read with its element: this run reads elements, and it is one to.
    pub(super) fn to_settle(&self, ty: usize, k: usize, a: &Attr) -> bool {
        self.settling.is_some() && one_value(a) && !self.st.unsettled.contains(&(ty, k))
    }

    /// Notes item `at`, instance `k` of `obj`, to be read with its element
    /// (its item has no [`Later`] meanwhile).
    pub(super) fn note_settle(&mut self, at: usize, obj: &Arc<Obj>, k: usize) {
        if let Some(list) = self.settling.as_mut() {
            list.push((at, obj.clone(), k));
        }
    }

    /// Gives the items noted to be read with their element the [`Later`]
    /// that reads each when opened: the element failed.
    pub(super) fn unsettle(&mut self) {
        for (at, obj, k) in self.settling.take().unwrap_or_default() {
            if let Some(it) = self.items.get_mut(at) {
                it.set_later(Later::Instance(obj, k));
            }
        }
    }

    /// Reads the instances noted by [`Run::note_settle`], each as its own
    /// run would (with the same bound of steps), after the element.
    pub(super) fn settle(&mut self) {
        let list = self.settling.take().unwrap_or_default();
        for (at, obj, k) in list {
            let (diags, pending) = (self.diags.len(), self.pending.len());
            let (steps, depth) = (self.steps, self.depth);
            self.steps = 0;
            self.depth = 0;
            let value = self
                .spec
                .types
                .get(obj.ty)
                .and_then(|t| t.instances.get(k))
                .is_some_and(|a| a.value.is_some());
            let got = if value {
                // A `value` reads no bytes and makes at most its own leaf,
                // at the object's start: computed alone, it gives what
                // that leaf would.
                let r = self.instance(&obj, k);
                self.steps = steps;
                self.depth = depth;
                let clean = self.diags.len() == diags && self.pending.len() == pending;
                let space = self.io(obj.io).map_or(0, |io| io.space);
                match r {
                    Ok(v) if clean => Some(match self.shown_at(&v, space, obj.start) {
                        Some((off, size, val)) => Settled {
                            range: Some((off, size)),
                            value: Some(val),
                        },
                        None => Settled {
                            range: None,
                            value: None,
                        },
                    }),
                    _ => None,
                }
            } else {
                // What the instance reads goes under an item of its own,
                // not in the tree, as it would under the root of its own
                // run.
                let (items, r) = self.instance_under_root(&obj, k);
                self.steps = steps;
                self.depth = depth;
                let clean = r.is_ok() && self.diags.len() == diags && self.pending.len() == pending;
                let got = if clean { self.one_node(items) } else { None };
                self.items.truncate(items);
                got
            };
            self.diags.truncate(diags);
            self.pending.truncate(pending);
            let (ty, it) = (obj.ty, self.items.get_mut(at));
            match (got, it) {
                (Some(s), Some(it)) => it.settle_as(s),
                (None, Some(it)) => {
                    it.set_later(Later::Instance(obj, k));
                    self.st.unsettled.insert((ty, k));
                }
                _ => {
                    self.st.unsettled.insert((ty, k));
                }
            }
        }
    }

    /// What item `root` (made by [`Run::settle`]) holds: nothing, or one
    /// node with no nodes of its own. `None` for anything else.
    fn one_node(&mut self, root: usize) -> Option<Settled> {
        let only = match self.items.get(root)?.kids.as_slice() {
            [] => None,
            [k] => Some(*k),
            _ => return None,
        };
        match only {
            None => Some(Settled {
                range: None,
                value: None,
            }),
            Some(k) => {
                let it = self.items.get_mut(k)?;
                if !it.kids.is_empty() || !matches!(it.extra, Extra::None) || it.group {
                    return None;
                }
                // As the tree's extent gives it.
                let size = it.off.saturating_add(it.size) - it.off;
                Some(Settled {
                    range: Some((it.off, size)),
                    value: it.value.take(),
                })
            }
        }
    }
}
