//! The interpreter: a [`Spec`] run over bytes. It reads objects as Kaitai
//! Struct's generated parsers do (the same streams, positions, bit
//! buffers and expression semantics) into items, each at its bytes, which
//! `mod.rs` hands to the builder. Every read is checked; steps, depth,
//! items and derived bytes are bounded, and every problem is a failure at
//! a data offset or at a place in the description.
//!
//! Reading is lazy where the tree lets it be: an instance is read when an
//! expression needs it (once per object) or when its node is opened (or,
//! if it shows one value, with the element of a repeat that holds it), and
//! the elements of a repeat in the bytes given are read again, a group at
//! a time, when their node is opened. A run keeps what later runs need in
//! a [`State`] (its streams and derived bytes); objects live as long as
//! something (an expression's value, a node still to be opened) holds
//! them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use compact_str::CompactString;
use rustc_hash::FxHashSet;

use super::expr::{Expr, Op};
use super::spec::{Attr, Endian, EnumRef, Loc, Member, Prim, Process, Repeat, Spec, Type};
use crate::formats::compress;
use crate::model::{space, Radix, Value};

mod eval;
mod obj;
mod read;
mod settle;

pub use obj::{Obj, V};

/// Expression evaluations and reads in one run (the tree's first build, or
/// the opening of one node), and [`STEPS_PER_BYTE`] more for each byte
/// given.
pub const MAX_STEPS: u64 = 20_000_000;
/// Steps a run may take for each byte it is given, beyond [`MAX_STEPS`].
pub const STEPS_PER_BYTE: u64 = 4;
/// Objects and instances nested in each other.
pub const MAX_DEPTH: u32 = 48;
/// Nodes one run may make.
pub const MAX_ITEMS: usize = 4_000_000;
/// Streams a description may open, all told.
pub const MAX_IOS: usize = 4_000_000;

/// Why a run stopped: at data bytes (`space`, absolute offset), or at a
/// place in the description.
#[derive(Clone, Debug)]
pub struct Fail {
    pub at: Option<(usize, u64)>,
    pub msg: String,
    /// `msg` names its place in the description already.
    pub placed: bool,
}

type Res<T> = Result<T, Fail>;

/// A stream: a window of a space (0: the bytes given, k: derived space
/// k-1), with its position and bit buffer.
#[derive(Clone)]
struct Io {
    space: usize,
    base: u64,
    len: u64,
    pos: u64,
    bits: u128,
    nbits: u32,
}

/// What a node that is built when opened reads then.
#[derive(Clone)]
pub enum Later {
    /// Instance `k` of the object.
    Instance(Arc<Obj>, usize),
    /// The elements of a repeated attribute of the object, from the start
    /// of every [`crate::model::GROUP`]-th of them.
    Repeat {
        obj: Arc<Obj>,
        attr: AttrRef,
        /// The stream they are read in: a copy of the one they were first
        /// read in.
        io: usize,
        marks: Vec<u64>,
        count: u64,
        stop: u64,
    },
}

/// An attribute of a type: one of its `seq` or one of its `instances`.
#[derive(Clone, Copy, Debug)]
pub enum AttrRef {
    Seq(usize, usize),
    Inst(usize, usize),
}

impl AttrRef {
    fn get(self, spec: &Spec) -> Option<&Attr> {
        match self {
            AttrRef::Seq(t, k) => spec.types.get(t)?.seq.get(k),
            AttrRef::Inst(t, k) => spec.types.get(t)?.instances.get(k),
        }
    }
}

/// A node to be: `space` is the interpreter's (0 or a derived one).
/// Items are made by the million (an element of a repeat is a few dozen):
/// what few have is boxed, keeping an item within 128 bytes, which are
/// moved without a call, and an element's instances are made without
/// allocating.
pub struct Item {
    pub name: CompactString,
    pub off: u64,
    pub size: u64,
    pub value: Option<Value>,
    pub kids: Vec<usize>,
    pub extra: Extra,
    pub space: u32,
    /// A structure: its range grows to cover its kids.
    pub group: bool,
    /// It grew past its own bytes (to instances read elsewhere).
    pub grown: bool,
}

/// What an item's node has besides its range, value and children.
pub enum Extra {
    None,
    /// It opens derived space `k` by this method (its kids are in it).
    Derive(Box<(usize, &'static str)>),
    /// Its children (for an instance: the node itself) are read when it
    /// is opened.
    Later(Box<Later>),
    /// An instance read with the element that holds it, as opening its
    /// node would have set it: its value is the item's, and its range
    /// `[off, off+size)` is set once its siblings' gaps are made.
    Placed(u64, u32),
    /// The same, of a range too long for `Placed`.
    PlacedFar(Box<(u64, u64)>),
}

impl Item {
    /// A structure at `[off, off+size)` of `space`, to be filled.
    fn group(name: impl Into<CompactString>, space: usize, off: u64, size: u64) -> Item {
        Item {
            name: name.into(),
            off,
            size,
            value: None,
            kids: Vec::new(),
            extra: Extra::None,
            space: u32::try_from(space).unwrap_or(u32::MAX),
            group: true,
            grown: false,
        }
    }

    /// Its space, as streams number them.
    pub fn space(&self) -> usize {
        self.space as usize
    }

    fn set_later(&mut self, l: Later) {
        self.extra = Extra::Later(Box::new(l));
    }

    /// What is read when its node is opened, taken out.
    pub fn take_later(&mut self) -> Option<Later> {
        if !matches!(self.extra, Extra::Later(_)) {
            return None;
        }
        match std::mem::replace(&mut self.extra, Extra::None) {
            Extra::Later(l) => Some(*l),
            _ => None,
        }
    }

    /// Sets what opening its node, an instance's, would have: `s`.
    fn settle_as(&mut self, s: Settled) {
        self.value = s.value;
        // (One that read no node has no range either.)
        self.extra = match s.range {
            None => Extra::None,
            Some((off, size)) => match u32::try_from(size) {
                Ok(n) => Extra::Placed(off, n),
                Err(_) => Extra::PlacedFar(Box::new((off, size))),
            },
        };
    }
}

/// What opening an instance's node gives it, read with its element (see
/// `settle.rs`): its range (none where it read no node) and value.
struct Settled {
    range: Option<(u64, u64)>,
    value: Option<Value>,
}

/// What [`Run::eval`] keeps of an expression evaluated in objects of one
/// type.
enum Memo {
    /// It reads the object itself: evaluated each time.
    No,
    /// Its value: it reads from `_root` down.
    Value(V),
    /// Its value in the objects of one parent: it reads from `_parent`
    /// down. The parent is held weakly, so its place is not another's
    /// while it is kept here.
    ByParent(Weak<Obj>, V),
}

/// What runs over one description and its bytes share: streams, derived
/// bytes, the top-level object.
#[derive(Default)]
pub struct State {
    pub derived: Vec<Arc<[u8]>>,
    derived_total: u64,
    ios: Vec<Io>,
    root: Option<Arc<Obj>>,
    /// Instances read, all told (for tests: each is read once).
    pub evaluated: u64,
    /// Instances (type, index) not read with their elements any more
    /// (see [`Run::settle`]).
    unsettled: FxHashSet<(usize, usize)>,
    /// Values of expressions read from `_root` or `_parent` down (see
    /// [`Run::eval`]).
    memo: rustc_hash::FxHashMap<(usize, usize), Memo>,
}

pub struct Run<'a> {
    spec: &'a Spec,
    data: &'a [u8],
    pub st: State,
    pub items: Vec<Item>,
    steps: u64,
    max_steps: u64,
    depth: u32,
    /// Problems that did not stop the run (an instance that failed).
    pub diags: Vec<Fail>,
    /// Objects whose instances are still to be read for the tree (in
    /// derived bytes, where nodes are not built when opened).
    pending: Vec<(Arc<Obj>, usize)>,
    /// Reading for values only: no items.
    quiet: u32,
    /// In a run that reads elements of a repeat: the items of the
    /// instances to read with them (see [`Run::settle`]).
    settling: Option<Vec<(usize, Arc<Obj>, usize)>>,
    /// How many times a name read as null (not read yet, or left out by
    /// its `if`): see [`Run::eval`].
    nulls: u64,
    /// The instances being read, innermost last: (the object's address,
    /// the instance's index).
    busy: Vec<(usize, usize)>,
    /// An expression asks for an attribute's size (`_sizeof`): the size of
    /// each is kept.
    sizeof: bool,
}

/// Where an expression is evaluated: the object (borrowed, not held),
/// the repeat's index, and `_`.
#[derive(Clone)]
struct Cx<'o> {
    obj: &'o Arc<Obj>,
    index: Option<i128>,
    under: Option<V>,
}

impl<'o> Cx<'o> {
    fn of(obj: &'o Arc<Obj>) -> Cx<'o> {
        Cx {
            obj,
            index: None,
            under: None,
        }
    }
}

fn fail<T>(at: Option<(usize, u64)>, msg: impl Into<String>) -> Res<T> {
    Err(Fail {
        at,
        msg: msg.into(),
        placed: false,
    })
}

/// The item a run hands out when it makes none (reading for values only).
const NO_ITEM: usize = usize::MAX;

impl<'a> Run<'a> {
    pub fn new(spec: &'a Spec, data: &'a [u8], st: State) -> Self {
        Run {
            spec,
            data,
            st,
            items: Vec::new(),
            steps: 0,
            max_steps: MAX_STEPS.saturating_add((data.len() as u64).saturating_mul(STEPS_PER_BYTE)),
            depth: 0,
            diags: Vec::new(),
            pending: Vec::new(),
            quiet: 0,
            settling: None,
            nulls: 0,
            busy: Vec::new(),
            sizeof: spec.asks_sizeof,
        }
    }

    /// Runs the top-level type over `[off, off+len)`; the root item is 0.
    pub fn root(&mut self, ty: usize, off: u64, len: u64) -> Res<()> {
        let io = self.new_io(0, off, len)?;
        self.items.push(Item::group("", 0, off, 0));
        let seq = self.object(ty, Vec::new(), None, io, 0);
        self.finish_pending()?;
        seq.map(|_| ())
    }

    /// Reads the instances of the objects in derived bytes for the tree,
    /// once the seq of what holds them is read (so that `_root` and
    /// `_parent` are complete, as Kaitai's lazy getters see them).
    fn finish_pending(&mut self) -> Res<()> {
        let mut k = 0;
        while let Some((o, item)) = self.pending.get(k).cloned() {
            k += 1;
            let n = self.spec.types.get(o.ty).map_or(0, |t| t.instances.len());
            for i in 0..n {
                if let Err(f) = self.instance_node(&o, i, item) {
                    if self.steps > self.max_steps || self.items.len() >= MAX_ITEMS {
                        return Err(f);
                    }
                    self.diags.push(f);
                }
            }
        }
        Ok(())
    }

    /// Reads instance `k` of `obj` for its node, under item 0 (its value
    /// is kept, if it was not yet).
    pub fn open_instance(&mut self, obj: &Arc<Obj>, k: usize) -> Res<()> {
        let (_, r) = self.instance_under_root(obj, k);
        let r2 = self.finish_pending();
        r.and(r2)
    }

    /// Reads instance `k` of `obj` for its node under a new item at the
    /// object's start, that no item holds: the root of what it reads, and
    /// item 0 of a run that reads nothing else. Returns that item.
    fn instance_under_root(&mut self, obj: &Arc<Obj>, k: usize) -> (usize, Res<V>) {
        let space = self.io(obj.io).map_or(0, |i| i.space);
        let root = self.items.len();
        self.items.push(Item::group("", space, obj.start, 0));
        (root, self.instance_node(obj, k, root))
    }

    /// Reads element `i` of a repeated attribute at `off` of stream `io`
    /// (the repeat's own copy of its stream) for its nodes, under item 0;
    /// returns where it ends.
    pub fn open_element(
        &mut self,
        obj: &Arc<Obj>,
        attr: AttrRef,
        io: usize,
        i: u64,
        off: u64,
    ) -> Res<u64> {
        let spec = self.spec;
        let Some(a) = attr.get(spec) else {
            return fail(None, "no such attribute");
        };
        let copy = self.io_mut(io)?;
        copy.pos = off.saturating_sub(copy.base);
        copy.bits = 0;
        copy.nbits = 0;
        let space = copy.space;
        self.items.push(Item::group("", space, off, 0));
        let cx = Cx {
            obj,
            index: Some(i as i128),
            under: None,
        };
        let name = crate::model::text::index(i);
        self.settling = Some(Vec::with_capacity(16));
        let r = self
            .one(&cx, a, &name, 0, io, Some(i as i128))
            .map_err(|f| self.placed(a, f));
        let r2 = self.finish_pending();
        if r.is_err() || r2.is_err() {
            self.unsettle();
        }
        r?;
        r2?;
        let end = self.here(io).1;
        self.settle();
        Ok(end)
    }

    fn new_io(&mut self, space: usize, base: u64, len: u64) -> Res<usize> {
        self.push_io(Io {
            space,
            base,
            len,
            pos: 0,
            bits: 0,
            nbits: 0,
        })
    }

    fn push_io(&mut self, io: Io) -> Res<usize> {
        if self.st.ios.len() >= MAX_IOS {
            return fail(None, format!("more than {MAX_IOS} streams; stopped"));
        }
        self.st.ios.push(io);
        Ok(self.st.ios.len() - 1)
    }

    fn step(&mut self) -> Res<()> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return fail(None, format!("more than {} steps; stopped", self.max_steps));
        }
        Ok(())
    }

    fn space_bytes(&self, space: usize) -> &[u8] {
        if space == 0 {
            self.data
        } else {
            self.st.derived.get(space - 1).map_or(&[], |v| &v[..])
        }
    }

    fn io(&self, io: usize) -> Res<&Io> {
        match self.st.ios.get(io) {
            Some(i) => Ok(i),
            None => fail(None, "no such stream"),
        }
    }

    fn io_mut(&mut self, io: usize) -> Res<&mut Io> {
        match self.st.ios.get_mut(io) {
            Some(i) => Ok(i),
            None => fail(None, "no such stream"),
        }
    }
    /// `(space, absolute offset)` of the position of `io`.
    fn here(&self, io: usize) -> (usize, u64) {
        self.st
            .ios
            .get(io)
            .map_or((0, 0), |i| (i.space, i.base + i.pos))
    }

    fn push_item(&mut self, parent: usize, it: Item) -> Res<usize> {
        if self.quiet > 0 {
            return Ok(NO_ITEM);
        }
        if self.items.len() >= MAX_ITEMS {
            return fail(None, format!("more than {MAX_ITEMS} nodes; stopped"));
        }
        self.items.push(it);
        let id = self.items.len() - 1;
        if let Some(p) = self.items.get_mut(parent) {
            p.kids.push(id);
        }
        Ok(id)
    }

    fn leaf(
        &mut self,
        parent: usize,
        name: &str,
        space: usize,
        off: u64,
        size: u64,
        value: Option<Value>,
    ) -> Res<usize> {
        if self.quiet > 0 {
            return Ok(NO_ITEM);
        }
        self.push_item(
            parent,
            Item {
                value,
                group: false,
                ..Item::group(name, space, off, size)
            },
        )
    }

    /// True when nodes read now in `space` are built when opened: in the
    /// bytes given, not in derived ones (whose builder is another's).
    fn lazy_in(&self, space: usize) -> bool {
        space == 0
    }

    // ---- objects ----

    /// Reads an object of type `ty` from the position of `io`; `item` is
    /// the item it fills (made by the caller).
    fn object(
        &mut self,
        ty: usize,
        args: Vec<V>,
        parent: Option<&Arc<Obj>>,
        io: usize,
        item: usize,
    ) -> Res<Arc<Obj>> {
        self.depth += 1;
        let r = self.object_inner(ty, args, parent, io, item);
        self.depth -= 1;
        r
    }

    fn object_inner(
        &mut self,
        ty: usize,
        args: Vec<V>,
        parent: Option<&Arc<Obj>>,
        io: usize,
        item: usize,
    ) -> Res<Arc<Obj>> {
        let spec = self.spec;
        let Some(t) = spec.types.get(ty) else {
            return fail(None, "no such type");
        };
        let odepth = parent.map_or(0, |p| p.depth + 1);
        if self.depth > MAX_DEPTH || odepth > MAX_DEPTH {
            return fail(
                Some(self.here(io)),
                format!(
                    "types nest more than {MAX_DEPTH} deep here (type {})",
                    t.name
                ),
            );
        }
        let params = t
            .params
            .iter()
            .zip(args)
            .map(|(p, v)| (p.id.clone(), v))
            .collect();
        let inherited = parent.and_then(|p| p.le());
        let start = self.here(io).1;
        let me = Arc::new(Obj {
            ty,
            parent: parent.map(Arc::downgrade),
            io,
            depth: odepth,
            params,
            start,
            end: AtomicU64::new(start),
            ..Obj::unread(t.seq.len(), t.instances.len())
        });
        me.set_le(inherited);
        if parent.is_none() && self.st.root.is_none() {
            self.st.root = Some(me.clone());
        }
        let cx = Cx::of(&me);
        let le = match &t.endian {
            Some(Endian::Le) => Some(true),
            Some(Endian::Be) => Some(false),
            Some(Endian::Switch(on, cases)) => {
                let v = self.eval(&cx, on)?;
                let mut found = None;
                for (k, le) in cases {
                    let kv = self.eval(&cx, k)?;
                    if self.equal(&v, &kv)? {
                        found = Some(*le);
                        break;
                    }
                }
                match found {
                    Some(x) => Some(x),
                    None => {
                        return fail(
                            Some(self.here(io)),
                            format!("{}: no endianness case for {}", t.name, show(&v)),
                        )
                    }
                }
            }
            None => inherited,
        };
        me.set_le(le);
        if let (0, Some(it)) = (self.quiet, self.items.get_mut(item)) {
            it.kids.reserve(t.seq.len() + t.instances.len());
        }
        for (k, a) in t.seq.iter().enumerate() {
            let (sp, start) = self.here(io);
            let v = self.attr(&cx, a, item, AttrRef::Seq(ty, k))?;
            let (sp2, end) = self.here(io);
            // Its size, if an expression asks for one, and its value, if
            // one names it.
            let sized = self.sizeof && sp == sp2 && a.pos.is_none();
            if let (true, Some(s)) = (sized, me.sizes.get(k)) {
                let _ = s.set(end.saturating_sub(start));
            }
            if let (true, Some(f)) = (a.named, me.fields.get(k)) {
                let _ = f.set(v);
            }
        }
        me.end.store(self.here(io).1, Ordering::Relaxed);
        // Instances: nodes read when opened; in derived bytes, read once
        // the seq of the whole run is.
        if !t.instances.is_empty() && self.quiet == 0 {
            let space = self.io(io)?.space;
            if self.lazy_in(space) {
                // Listed after the seq; a structure with instances read
                // elsewhere has no gap leaves (its bytes may be theirs).
                let end = self.here(io).1;
                if t.instances.iter().any(|a| a.pos.is_some()) {
                    if let Some(it) = self.items.get_mut(item) {
                        it.grown = true;
                    }
                }
                for (k, a) in t.instances.iter().enumerate() {
                    let mut it = Item::group(a.id.as_str(), space, end, 0);
                    it.group = false;
                    let settle = self.to_settle(ty, k, a);
                    if !settle {
                        it.set_later(Later::Instance(me.clone(), k));
                    }
                    let at = self.push_item(item, it)?;
                    if settle {
                        self.note_settle(at, &me, k);
                    }
                }
            } else {
                self.pending.push((me.clone(), item));
            }
        }
        Ok(me)
    }

    /// The value of instance `k` of `obj`, read once.
    fn instance(&mut self, obj: &Arc<Obj>, k: usize) -> Res<V> {
        self.quiet += 1;
        let r = self.read_instance_or_kept(obj, k, NO_ITEM, true);
        self.quiet -= 1;
        r
    }

    /// Reads instance `k` of `obj` for its node under `item`; a value is
    /// taken as it was computed, if it was.
    fn instance_node(&mut self, obj: &Arc<Obj>, k: usize, item: usize) -> Res<V> {
        let spec = self.spec;
        let a = spec.types.get(obj.ty).and_then(|t| t.instances.get(k));
        if let (Some(a), Some(v)) = (a, obj.kept(k).cloned()) {
            if a.value.is_some() {
                self.value_leaf(a, item, &v)?;
                return Ok(v);
            }
        }
        self.read_instance(obj, k, item)
    }

    fn read_instance(&mut self, obj: &Arc<Obj>, k: usize, item: usize) -> Res<V> {
        self.read_instance_or_kept(obj, k, item, false)
    }

    /// Reads instance `k` of `obj` under `item`; `kept`: its value as read
    /// before, if it was.
    fn read_instance_or_kept(
        &mut self,
        obj: &Arc<Obj>,
        k: usize,
        item: usize,
        kept: bool,
    ) -> Res<V> {
        let spec = self.spec;
        let Some(a) = spec.types.get(obj.ty).and_then(|t| t.instances.get(k)) else {
            return fail(None, "no such instance");
        };
        if let (true, Some(v)) = (kept, obj.kept(k)) {
            return Ok(v.clone());
        }
        // The object is held while its instance is read: its address is
        // its own.
        let me = (Arc::as_ptr(obj) as usize, k);
        if self.busy.contains(&me) {
            return Err(self.spec_fail(a.at, format!("instance {} needs its own value", a.id)));
        }
        if self.depth >= MAX_DEPTH || obj.depth >= MAX_DEPTH {
            return Err(self.spec_fail(a.at, format!("instances nest more than {MAX_DEPTH} deep")));
        }
        self.busy.push(me);
        self.depth += 1;
        self.st.evaluated += 1;
        let r = self.attr(&Cx::of(obj), a, item, AttrRef::Inst(obj.ty, k));
        self.depth -= 1;
        self.busy.pop();
        let v = r?;
        // Kept for the expressions that name it (read again, if opened).
        if let (true, Some(slot)) = (a.named, obj.inst.get(k)) {
            let _ = slot.set(v.clone());
        }
        Ok(v)
    }

    /// Names the attribute's place in a failure that has none in the data.
    fn placed(&self, a: &Attr, mut f: Fail) -> Fail {
        if f.at.is_none() && !f.placed {
            f.msg = format!("{}: {}: {}", self.spec.place(a.at), a.id, f.msg);
            f.placed = true;
        }
        f
    }

    /// The leaf of instance `a` that shows value `v` under `item`, where
    /// [`Run::shown_at`] places it; none when read for its value only, or
    /// for a value no leaf shows.
    fn value_leaf(&mut self, a: &Attr, item: usize, v: &V) -> Res<()> {
        if self.quiet != 0 {
            return Ok(());
        }
        let (space, off) = self.items.get(item).map_or((0, 0), |i| (i.space(), i.off));
        if let Some((off, size, val)) = self.shown_at(v, space, off) {
            self.leaf(item, &a.id, space, off, size, Some(val))?;
        }
        Ok(())
    }

    /// Where an instance's leaf for value `v` goes, in byte space `space`,
    /// and what it shows: an object (`_parent._parent`, a section header
    /// another one names) at its own bytes where they are in that space,
    /// named by its type; null as `null`, and any other value as
    /// [`scalar_value`] shows it, at `at`, of no size. `None` for a value
    /// no leaf shows (a stream, an array of objects).
    fn shown_at(&self, v: &V, space: usize, at: u64) -> Option<(u64, u64, Value)> {
        let o = match v {
            V::Obj(o) => o,
            V::Null => return Some((at, 0, Value::text("null"))),
            v => return scalar_value(v, 0).map(|val| (at, 0, val)),
        };
        let name = self
            .spec
            .types
            .get(o.ty)
            .map_or("object", |t| t.name.as_str());
        let val = Value::text(name);
        match self.io(o.io) {
            Ok(io) if io.space == space => Some((o.start, o.end().saturating_sub(o.start), val)),
            _ => Some((at, 0, val)),
        }
    }

    /// Reads attribute `a` of the object of `cx` (a `seq` entry or an
    /// instance) under `item`; returns its value.
    fn attr(&mut self, cx: &Cx, a: &Attr, item: usize, which: AttrRef) -> Res<V> {
        // A problem with no place in the data is placed at the attribute
        // in the description.
        self.attr_at(cx, a, item, which)
            .map_err(|f| self.placed(a, f))
    }

    fn attr_at(&mut self, cx: &Cx, a: &Attr, item: usize, which: AttrRef) -> Res<V> {
        self.step()?;
        if let Some(c) = &a.cond {
            let v = self.eval(cx, c)?;
            if !truth(&v).map_err(|m| self.spec_fail(a.at, m))? {
                // A seq attribute left out has no node; an instance's node
                // is listed before it is read, and shows that it is null.
                if let AttrRef::Inst(..) = which {
                    self.value_leaf(a, item, &V::Null)?;
                }
                return Ok(V::Null);
            }
        }
        if let Some(e) = &a.value {
            let v = self.eval(cx, e)?;
            let v = match &a.enum_ {
                Some(e) => self.as_enum(e, v, a.at)?,
                None => v,
            };
            self.value_leaf(a, item, &v)?;
            return Ok(v);
        }
        let obj_io = cx.obj.io;
        let io = match &a.io {
            Some(e) => match self.eval(cx, e)? {
                V::Io(i) => i,
                other => {
                    return Err(
                        self.spec_fail(a.at, format!("io is {}, not a stream", show(&other)))
                    )
                }
            },
            None => obj_io,
        };
        let saved = match &a.pos {
            Some(e) => {
                let p = self.int(cx, e, a.at)?;
                let i = self.io_mut(io)?;
                let saved = (i.pos, i.bits, i.nbits);
                let Ok(p) = u64::try_from(p) else {
                    return fail(Some((i.space, i.base)), format!("{}: position {p}", a.id));
                };
                i.pos = p;
                i.nbits = 0;
                i.bits = 0;
                Some(saved)
            }
            None => None,
        };
        let r = self.attr_read(cx, a, item, io, which);
        if let Some((p, b, n)) = saved {
            if let Ok(i) = self.io_mut(io) {
                i.pos = p;
                i.bits = b;
                i.nbits = n;
            }
        }
        let v = r?;
        self.describe(item, a);
        Ok(v)
    }

    /// A structure read for `a` (under `item`) without a value of its own
    /// shows the first line of the attribute's `doc`.
    fn describe(&mut self, item: usize, a: &Attr) {
        let Some(doc) = &a.doc else {
            return;
        };
        let Some(&last) = self.items.get(item).and_then(|i| i.kids.last()) else {
            return;
        };
        if let Some(it) = self.items.get_mut(last) {
            if it.name == a.id && it.value.is_none() {
                let line = doc.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                it.value = Some(Value::text(line.trim()));
            }
        }
    }

    fn attr_read(&mut self, cx: &Cx, a: &Attr, item: usize, io: usize, which: AttrRef) -> Res<V> {
        let rep = match &a.repeat {
            Repeat::No => return self.one(cx, a, &a.id, item, io, None),
            rep => rep,
        };
        let (space, start) = self.here(io);
        let g = self.push_item(item, Item::group(a.id.as_str(), space, start, 0))?;
        // Elements in the bytes given become nodes when the repeat's node
        // is opened: here they are read for their values and where they
        // start.
        let lazy = g != NO_ITEM && self.lazy_in(space);
        if lazy {
            self.quiet += 1;
        }
        let keep = a.named;
        let mut marks = Vec::new();
        let saved = self.io(io)?.clone();
        // Elements of a size known beforehand need not be read to be found.
        let known = if lazy && !keep {
            self.uniform_repeat(cx, a, io, rep, &mut marks)
        } else {
            None
        };
        let r = match known {
            Some(count) => Ok((Vec::new(), count, true)),
            None => self.repeat(cx, a, g, io, rep, keep, lazy.then_some(&mut marks)),
        };
        if lazy {
            self.quiet -= 1;
        }
        let (out, count, mut lazy) = match r? {
            (out, count, true) => (out, count, lazy),
            (_, _, false) => {
                // Elements that start inside a byte cannot be found again
                // from a byte offset: read them now, for their nodes too.
                *self.io_mut(io)? = saved;
                let (out, count, _) = self.repeat(cx, a, g, io, rep, keep, None)?;
                (out, count, false)
            }
        };
        if count == 0 {
            lazy = false;
        }
        // The elements are read again in a copy of the stream, so that
        // reading them moves no position another reader sees.
        let copy = if lazy {
            let c = self.io(io)?.clone();
            Some(self.push_io(c)?)
        } else {
            None
        };
        let (_, end) = self.here(io);
        if let Some(it) = self.items.get_mut(g) {
            it.size = end.saturating_sub(start);
            it.value = Some(Value::text(format!("{count} items")));
            if let Some(io) = copy {
                it.set_later(Later::Repeat {
                    obj: cx.obj.clone(),
                    attr: which,
                    io,
                    marks,
                    count,
                    stop: end,
                });
            }
        }
        Ok(V::Arr(Arc::new(out)))
    }

    fn spec_fail(&self, at: Loc, msg: impl AsRef<str>) -> Fail {
        Fail {
            at: None,
            msg: format!("{}: {}", self.spec.place(at), msg.as_ref()),
            placed: true,
        }
    }

    fn int(&mut self, cx: &Cx, e: &Expr, at: Loc) -> Res<i128> {
        match self.eval(cx, e)? {
            V::Int(v) => Ok(v),
            V::Enum(_, v) => Ok(v),
            V::Bool(b) => Ok(i128::from(b)),
            other => Err(self.spec_fail(at, format!("{} is not an integer", show(&other)))),
        }
    }

    /// The type an attribute reads, with a switch resolved (`None`: no case
    /// matches and there is no default).
    fn resolve<'t>(&mut self, cx: &Cx, ty: &'t Type) -> Res<Option<&'t Type>> {
        let Type::Switch { on, cases } = ty else {
            return Ok(Some(ty));
        };
        let v = self.eval(cx, on)?;
        let mut default = None;
        for (k, t) in cases {
            match k {
                None => default = Some(t),
                Some(k) => {
                    let kv = self.eval(cx, k)?;
                    if self.equal(&v, &kv)? {
                        return self.resolve(cx, t);
                    }
                }
            }
        }
        match default {
            Some(t) => self.resolve(cx, t),
            None => Ok(None),
        }
    }
}

fn truth(v: &V) -> Result<bool, String> {
    match v {
        V::Bool(b) => Ok(*b),
        V::Int(i) => Ok(*i != 0),
        V::Null => Ok(false),
        o => Err(format!("{} is not a boolean", show(o))),
    }
}

/// Text for messages.
fn show(v: &V) -> String {
    match v {
        V::Null => "null".into(),
        V::Int(i) => i.to_string(),
        V::Float(f) => f.to_string(),
        V::Bool(b) => b.to_string(),
        V::Str(s) => format!("{s:?}"),
        V::Bytes(b) => hex(b),
        V::Arr(a) => format!("an array of {}", a.len()),
        V::Obj(_) => "an object".into(),
        V::Io(_) => "a stream".into(),
        V::Enum(e, x) => format!("{x} ({})", e.name_of(*x).unwrap_or("unknown")),
    }
}

fn hex(b: &[u8]) -> String {
    let mut s = String::from("[");
    for (i, x) in b.iter().take(16).enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{x:02x}"));
    }
    if b.len() > 16 {
        s.push_str(" …");
    }
    s.push(']');
    s
}

/// The node value of a computed (`value:`) instance.
fn scalar_value(v: &V, width: u8) -> Option<Value> {
    Some(match v {
        V::Int(i) => match u64::try_from(*i) {
            Ok(u) => Value::U {
                v: u,
                width,
                radix: Radix::Auto,
            },
            Err(_) => Value::I {
                v: i64::try_from(*i).ok()?,
                width,
            },
        },
        V::Bool(b) => Value::text(if *b { "true" } else { "false" }),
        V::Float(f) => Value::text(format!("{f:?}")),
        V::Str(s) => Value::str(s),
        V::Bytes(b) => bytes_value(b),
        V::Enum(e, x) => Value::Named {
            v: *x as u64,
            radix: Radix::Auto,
            name: e.name_of(*x).map(Into::into),
        },
        _ => return None,
    })
}

fn bytes_value(b: &[u8]) -> Value {
    if b.len() <= 16 {
        Value::text(hex(b))
    } else {
        Value::Size(b.len() as u64)
    }
}

/// Bytes as text in an encoding Kaitai names.
pub fn decode(b: &[u8], enc: &str) -> String {
    // Names compared as Kaitai compares them (upper case, `_` and ` ` as
    // `-`), without a copy: a name is compared for every string read.
    let norm = |c: u8| match c {
        b'_' | b' ' => b'-',
        c => c.to_ascii_uppercase(),
    };
    let is = |names: &[&str]| {
        names
            .iter()
            .any(|n| n.len() == enc.len() && n.bytes().zip(enc.bytes()).all(|(x, y)| x == norm(y)))
    };
    if is(&["UTF-16LE", "UTF-16BE"]) {
        let le = is(&["UTF-16LE"]);
        let units = b.chunks_exact(2).map(|c| match c {
            [x, y] if le => u16::from_le_bytes([*x, *y]),
            [x, y] => u16::from_be_bytes([*x, *y]),
            _ => 0,
        });
        char::decode_utf16(units)
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    } else if is(&["ISO-8859-1", "LATIN1", "LATIN-1", "ISO8859-1"]) {
        b.iter().map(|&c| char::from(c)).collect()
    } else {
        String::from_utf8_lossy(b).into_owned()
    }
}

#[cfg(test)]
mod tests;
