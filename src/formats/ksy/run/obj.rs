//! The values of the expression language, and the objects a run reads:
//! what each was given and where it is, and what is learnt of it as it is
//! read, each slot set once (objects are shared by the runs that read
//! their parts, and read without a lock).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crate::formats::ksy::spec::Enum;

/// A value of the expression language.
#[derive(Clone, Debug)]
pub enum V {
    Null,
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(Arc<str>),
    Bytes(Arc<[u8]>),
    Arr(Arc<Vec<V>>),
    Obj(Arc<Obj>),
    Io(usize),
    Enum(Arc<Enum>, i128),
}

/// An object read (or being read) of a user type.
pub struct Obj {
    pub(super) ty: usize,
    /// The object that holds it; `None` for the top-level one.
    pub(super) parent: Option<Weak<Obj>>,
    pub(super) io: usize,
    /// How many objects and instances it is below the top-level one.
    pub(super) depth: u32,
    pub(super) params: Vec<(String, V)>,
    /// Where its seq starts (absolute, in its stream's space).
    pub(super) start: u64,
    /// Its byte order, once known: [`LE_UNKNOWN`], [`LE_NO`] or
    /// [`LE_YES`]. Set before its seq is read, read by every number in
    /// it.
    pub(super) le: AtomicU8,
    /// Where its seq ended (absolute, in its stream's space); its start
    /// until it is read.
    pub(super) end: AtomicU64,
    /// The values of its seq attributes, by their index, once read (those
    /// that no expression of the description names are not kept).
    pub(super) fields: Box<[OnceLock<V>]>,
    /// How many bytes each seq attribute took (`_sizeof`).
    pub(super) sizes: Box<[OnceLock<u64>]>,
    /// The values of its instances, by their index, once read.
    pub(super) inst: Box<[OnceLock<V>]>,
}

const LE_UNKNOWN: u8 = 0;
const LE_NO: u8 = 1;
const LE_YES: u8 = 2;

/// Slots, each set once.
fn slots<T>(n: usize) -> Box<[OnceLock<T>]> {
    (0..n).map(|_| OnceLock::new()).collect()
}

impl Obj {
    /// An object of no type yet with `nseq` seq attributes and `ninst`
    /// instances, nothing read: the makers of one set the rest.
    pub(super) fn unread(nseq: usize, ninst: usize) -> Obj {
        Obj {
            ty: 0,
            parent: None,
            io: 0,
            depth: 0,
            params: Vec::new(),
            start: 0,
            le: AtomicU8::new(LE_UNKNOWN),
            end: AtomicU64::new(0),
            fields: slots(nseq),
            sizes: slots(nseq),
            inst: slots(ninst),
        }
    }

    /// Seq attribute `k`, null where it is not read or not kept.
    pub(super) fn field(&self, k: usize) -> V {
        self.fields
            .get(k)
            .and_then(OnceLock::get)
            .cloned()
            .unwrap_or(V::Null)
    }

    /// Instance `k`, once read.
    pub(super) fn kept(&self, k: usize) -> Option<&V> {
        self.inst.get(k).and_then(OnceLock::get)
    }

    pub(super) fn end(&self) -> u64 {
        self.end.load(Ordering::Relaxed)
    }

    pub(super) fn le(&self) -> Option<bool> {
        match self.le.load(Ordering::Relaxed) {
            LE_NO => Some(false),
            LE_YES => Some(true),
            _ => None,
        }
    }

    pub(super) fn set_le(&self, le: Option<bool>) {
        let v = match le {
            None => LE_UNKNOWN,
            Some(false) => LE_NO,
            Some(true) => LE_YES,
        };
        self.le.store(v, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for Obj {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Obj(type {})", self.ty)
    }
}
