//! The interpreter: a [`Spec`] run over bytes. It reads objects as Kaitai
//! Struct's generated parsers do (the same streams, positions, bit
//! buffers and expression semantics) into items, each at its bytes, which
//! `mod.rs` hands to the builder. Every read is checked; steps, depth,
//! items and derived bytes are bounded, and every problem is a failure at
//! a data offset or at a place in the description.
//!
//! Reading is lazy where the tree lets it be: an instance is read when an
//! expression needs it (once per object) or when its node is opened, and
//! the elements of a repeat in the bytes given are read again, a group at
//! a time, when their node is opened. A run keeps what later runs need in
//! a [`State`] (its streams and derived bytes); objects live as long as
//! something (an expression's value, a node still to be opened) holds
//! them.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use rustc_hash::FxHashSet;

use super::expr::{Expr, Op};
use super::spec::{Attr, Endian, Enum, Loc, Prim, Process, Repeat, Spec, Type};
use crate::formats::compress;
use crate::model::{space, Radix, Value};

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

/// An object read (or being read) of a user type.
pub struct Obj {
    ty: usize,
    /// The object that holds it; `None` for the top-level one.
    parent: Option<Weak<Obj>>,
    io: usize,
    /// How many objects and instances it is below the top-level one.
    depth: u32,
    params: Vec<(String, V)>,
    m: Mutex<ObjMut>,
}

impl std::fmt::Debug for Obj {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Obj(type {})", self.ty)
    }
}

/// What is learnt of an object as it is read.
#[derive(Default)]
struct ObjMut {
    le: Option<bool>,
    /// The values of its seq attributes, by their index (those that no
    /// expression of the description names are not kept).
    fields: Vec<V>,
    /// How many bytes each seq attribute took (`_sizeof`).
    sizes: Vec<Option<u64>>,
    /// The values of its instances, by their index, once read.
    inst: Vec<Option<V>>,
    /// Instances being read.
    busy: Vec<usize>,
    /// Where its seq started and ended (absolute, in its stream's space).
    start: u64,
    end: u64,
}

fn lk(o: &Obj) -> MutexGuard<'_, ObjMut> {
    o.m.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
pub struct Item {
    pub name: String,
    pub space: usize,
    pub off: u64,
    pub size: u64,
    pub value: Option<Value>,
    pub kids: Vec<usize>,
    /// The item opens derived space `k` by this method (its kids are in it).
    pub derive: Option<(usize, &'static str)>,
    /// A structure: its range grows to cover its kids.
    pub group: bool,
    /// It grew past its own bytes (to instances read elsewhere).
    pub grown: bool,
    /// Its children (for an instance: the node itself) are read when it
    /// is opened.
    pub later: Option<Later>,
}

impl Item {
    /// A structure at `[off, off+size)` of `space`, to be filled.
    fn group(name: impl Into<String>, space: usize, off: u64, size: u64) -> Item {
        Item {
            name: name.into(),
            space,
            off,
            size,
            value: None,
            kids: Vec::new(),
            derive: None,
            group: true,
            grown: false,
            later: None,
        }
    }
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
}

/// The names expressions of `spec` use (attributes, instances,
/// parameters): a seq attribute no expression names need not keep its
/// value.
pub fn names_used(spec: &Spec) -> FxHashSet<String> {
    fn walk(e: &Expr, out: &mut FxHashSet<String>) {
        match e {
            Expr::Name(n) => {
                out.insert(n.clone());
            }
            Expr::Attr(b, n) => {
                out.insert(n.clone());
                walk(b, out);
            }
            Expr::Call(b, n, args) => {
                out.insert(n.clone());
                walk(b, out);
                args.iter().for_each(|a| walk(a, out));
            }
            Expr::List(xs) => xs.iter().for_each(|a| walk(a, out)),
            Expr::Index(a, b) | Expr::Bin(_, a, b) => {
                walk(a, out);
                walk(b, out);
            }
            Expr::Neg(a) | Expr::Inv(a) | Expr::Not(a) | Expr::Cast(a, _) => walk(a, out),
            Expr::If(a, b, c) => {
                walk(a, out);
                walk(b, out);
                walk(c, out);
            }
            Expr::Int(_)
            | Expr::Float(_)
            | Expr::Str(_)
            | Expr::Bool(_)
            | Expr::Enum(..)
            | Expr::SizeOf(_) => {}
        }
    }
    fn ty(t: &Type, out: &mut FxHashSet<String>) {
        match t {
            Type::User { args, .. } => args.iter().for_each(|a| walk(a, out)),
            Type::Switch { on, cases } => {
                walk(on, out);
                for (k, t) in cases {
                    if let Some(k) = k {
                        walk(k, out);
                    }
                    ty(t, out);
                }
            }
            _ => {}
        }
    }
    let mut out = FxHashSet::default();
    for t in &spec.types {
        if let Some(Endian::Switch(on, cases)) = &t.endian {
            walk(on, &mut out);
            cases.iter().for_each(|(k, _)| walk(k, &mut out));
        }
        for a in t.seq.iter().chain(&t.instances) {
            ty(&a.ty, &mut out);
            if let Repeat::Expr(e) | Repeat::Until(e) = &a.repeat {
                walk(e, &mut out);
            }
            for e in [&a.cond, &a.size, &a.pos, &a.io, &a.value]
                .into_iter()
                .flatten()
            {
                walk(e, &mut out);
            }
            if let Some(Process::Xor(e) | Process::Rotate(_, e)) = &a.process {
                walk(e, &mut out);
            }
            if let Some(v) = &a.valid {
                for e in [&v.eq, &v.min, &v.max, &v.expr].into_iter().flatten() {
                    walk(e, &mut out);
                }
                v.any_of.iter().for_each(|e| walk(e, &mut out));
            }
        }
    }
    out
}

pub struct Run<'a> {
    spec: &'a Spec,
    data: &'a [u8],
    used: &'a FxHashSet<String>,
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
}

#[derive(Clone)]
struct Cx {
    obj: Arc<Obj>,
    index: Option<i128>,
    under: Option<V>,
}

impl Cx {
    fn of(obj: Arc<Obj>) -> Cx {
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
    pub fn new(spec: &'a Spec, data: &'a [u8], used: &'a FxHashSet<String>, st: State) -> Self {
        Run {
            spec,
            data,
            used,
            st,
            items: Vec::new(),
            steps: 0,
            max_steps: MAX_STEPS.saturating_add((data.len() as u64).saturating_mul(STEPS_PER_BYTE)),
            depth: 0,
            diags: Vec::new(),
            pending: Vec::new(),
            quiet: 0,
        }
    }

    /// Runs the top-level type over `[off, off+len)`; the root item is 0.
    pub fn root(&mut self, ty: usize, off: u64, len: u64) -> Res<()> {
        let io = self.new_io(0, off, len)?;
        self.items.push(Item::group(String::new(), 0, off, 0));
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
        let (space, start) = {
            let io = self.io(obj.io).ok().map(|i| i.space).unwrap_or(0);
            (io, lk(obj).start)
        };
        self.items.push(Item::group(String::new(), space, start, 0));
        let r = self.instance_node(obj, k, 0);
        let r2 = self.finish_pending();
        r.and(r2)
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
        self.items.push(Item::group(String::new(), space, off, 0));
        let cx = Cx {
            obj: obj.clone(),
            index: Some(i as i128),
            under: None,
        };
        let name = format!("[{i}]");
        let r = self
            .one(&cx, a, &name, 0, io, Some(i as i128))
            .map_err(|f| self.placed(a, f));
        let r2 = self.finish_pending();
        r?;
        r2?;
        Ok(self.here(io).1)
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

    /// Reads `n` bytes at the position of `io` (aligned to a byte).
    fn read_bytes(&mut self, io: usize, n: u64) -> Res<(u64, &[u8])> {
        let i = self.io_mut(io)?;
        i.nbits = 0;
        i.bits = 0;
        let (space, base, pos, len) = (i.space, i.base, i.pos, i.len);
        if n > len.saturating_sub(pos) {
            return fail(
                Some((space, base + pos)),
                format!(
                    "{n} bytes asked for, {} left in the stream",
                    len.saturating_sub(pos)
                ),
            );
        }
        if let Ok(i) = self.io_mut(io) {
            i.pos += n;
        }
        let abs = base + pos;
        let d = self.space_bytes(space);
        let s = usize::try_from(abs).unwrap_or(usize::MAX);
        let e = usize::try_from(abs + n).unwrap_or(usize::MAX);
        match d.get(s..e) {
            Some(b) => Ok((abs, b)),
            None => fail(Some((space, abs)), "bytes past the end of the data"),
        }
    }

    fn read_bits(&mut self, io: usize, n: u32, le: bool) -> Res<(u64, u64, u64)> {
        let (space, abs0, nbits0) = {
            let i = self.io(io)?;
            (i.space, i.base + i.pos, i.nbits)
        };
        let start = if nbits0 > 0 { abs0 - 1 } else { abs0 };
        let need = n.saturating_sub(nbits0);
        let nbytes = need.div_ceil(8);
        let (space_, base, pos, len) = {
            let i = self.io(io)?;
            (i.space, i.base, i.pos, i.len)
        };
        if u64::from(nbytes) > len.saturating_sub(pos) {
            return fail(Some((space, abs0)), "bits past the end of the stream");
        }
        let bytes: Vec<u8> = self
            .space_bytes(space_)
            .get((base + pos) as usize..(base + pos + u64::from(nbytes)) as usize)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let i = self.io_mut(io)?;
        i.pos += u64::from(nbytes);
        let mask = |k: u32| {
            if k >= 128 {
                u128::MAX
            } else {
                (1u128 << k) - 1
            }
        };
        let v;
        if le {
            for b in bytes {
                i.bits |= u128::from(b) << i.nbits;
                i.nbits += 8;
            }
            v = i.bits & mask(n);
            i.bits >>= n;
            i.nbits -= n;
        } else {
            for b in bytes {
                i.bits = (i.bits << 8) | u128::from(b);
                i.nbits += 8;
            }
            v = (i.bits >> (i.nbits - n)) & mask(n);
            i.nbits -= n;
            i.bits &= mask(i.nbits);
        }
        let end = i.base + i.pos;
        Ok((start, end.saturating_sub(start), v as u64))
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
                name: name.to_string(),
                space,
                off,
                size,
                value,
                kids: Vec::new(),
                derive: None,
                group: false,
                grown: false,
                later: None,
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
        let inherited = parent.and_then(|p| lk(p).le);
        let start = self.here(io).1;
        let me = Arc::new(Obj {
            ty,
            parent: parent.map(Arc::downgrade),
            io,
            depth: odepth,
            params,
            m: Mutex::new(ObjMut {
                le: inherited,
                fields: vec![V::Null; t.seq.len()],
                sizes: vec![None; t.seq.len()],
                inst: vec![None; t.instances.len()],
                busy: Vec::new(),
                start,
                end: start,
            }),
        });
        if parent.is_none() && self.st.root.is_none() {
            self.st.root = Some(me.clone());
        }
        let cx = Cx::of(me.clone());
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
        lk(&me).le = le;
        for (k, a) in t.seq.iter().enumerate() {
            let (sp, start) = self.here(io);
            self.attr(&cx, a, item, AttrRef::Seq(ty, k))?;
            let (sp2, end) = self.here(io);
            if sp == sp2 && a.pos.is_none() {
                if let Some(s) = lk(&me).sizes.get_mut(k) {
                    *s = Some(end.saturating_sub(start));
                }
            }
        }
        lk(&me).end = self.here(io).1;
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
                    let mut it = Item::group(a.id.clone(), space, end, 0);
                    it.group = false;
                    it.later = Some(Later::Instance(me.clone(), k));
                    self.push_item(item, it)?;
                }
            } else {
                self.pending.push((me.clone(), item));
            }
        }
        Ok(me)
    }

    /// The value of instance `k` of `obj`, read once.
    fn instance(&mut self, obj: &Arc<Obj>, k: usize) -> Res<V> {
        if let Some(Some(v)) = lk(obj).inst.get(k) {
            return Ok(v.clone());
        }
        self.quiet += 1;
        let r = self.read_instance(obj, k, NO_ITEM);
        self.quiet -= 1;
        r
    }

    /// Reads instance `k` of `obj` for its node under `item`; a value is
    /// taken as it was computed, if it was.
    fn instance_node(&mut self, obj: &Arc<Obj>, k: usize, item: usize) -> Res<V> {
        let spec = self.spec;
        let a = spec.types.get(obj.ty).and_then(|t| t.instances.get(k));
        if let (Some(a), Some(Some(v))) = (a, lk(obj).inst.get(k).cloned()) {
            if a.value.is_some() {
                if let Some(val) = scalar_value(&v, 0) {
                    let (space, off) = self.items.get(item).map_or((0, 0), |i| (i.space, i.off));
                    self.leaf(item, &a.id, space, off, 0, Some(val))?;
                }
                return Ok(v);
            }
        }
        self.read_instance(obj, k, item)
    }

    fn read_instance(&mut self, obj: &Arc<Obj>, k: usize, item: usize) -> Res<V> {
        let spec = self.spec;
        let Some(a) = spec.types.get(obj.ty).and_then(|t| t.instances.get(k)) else {
            return fail(None, "no such instance");
        };
        if lk(obj).busy.contains(&k) {
            return Err(self.spec_fail(a.at, format!("instance {} needs its own value", a.id)));
        }
        if self.depth >= MAX_DEPTH || obj.depth >= MAX_DEPTH {
            return Err(self.spec_fail(a.at, format!("instances nest more than {MAX_DEPTH} deep")));
        }
        lk(obj).busy.push(k);
        self.depth += 1;
        self.st.evaluated += 1;
        let r = self.attr(&Cx::of(obj.clone()), a, item, AttrRef::Inst(obj.ty, k));
        self.depth -= 1;
        let mut m = lk(obj);
        m.busy.retain(|&b| b != k);
        let v = r?;
        if let Some(slot) = m.inst.get_mut(k) {
            if slot.is_none() {
                *slot = Some(v.clone());
            }
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
                return Ok(V::Null);
            }
        }
        if let Some(e) = &a.value {
            let v = self.eval(cx, e)?;
            let v = match &a.enum_ {
                Some(path) => self.as_enum(cx, path, v, a.at)?,
                None => v,
            };
            if let Some(val) = scalar_value(&v, 0) {
                let (space, off) = self.items.get(item).map_or((0, 0), |i| (i.space, i.off));
                self.leaf(item, &a.id, space, off, 0, Some(val))?;
            }
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
        if let AttrRef::Seq(_, k) = which {
            if self.used.contains(&a.id) {
                if let Some(f) = lk(&cx.obj).fields.get_mut(k) {
                    *f = v.clone();
                }
            }
        }
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
        let g = self.push_item(item, Item::group(a.id.clone(), space, start, 0))?;
        // Elements in the bytes given become nodes when the repeat's node
        // is opened: here they are read for their values and where they
        // start.
        let lazy = g != NO_ITEM && self.lazy_in(space);
        if lazy {
            self.quiet += 1;
        }
        let keep = self.used.contains(&a.id);
        let mut marks = Vec::new();
        let saved = self.io(io)?.clone();
        let r = self.repeat(cx, a, g, io, rep, keep, lazy.then_some(&mut marks));
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
                it.later = Some(Later::Repeat {
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

    /// Reads the elements of a repeat under item `g`; `keep`: their values
    /// are returned; `marks`: where every GROUP-th element starts is noted.
    #[allow(clippy::too_many_arguments)]
    fn repeat(
        &mut self,
        cx: &Cx,
        a: &Attr,
        g: usize,
        io: usize,
        rep: &Repeat,
        keep: bool,
        mut marks: Option<&mut Vec<u64>>,
    ) -> Res<(Vec<V>, u64, bool)> {
        let mut out = Vec::new();
        let count = match rep {
            Repeat::Expr(e) => Some(self.int(cx, e, a.at)?),
            _ => None,
        };
        let mut i: i128 = 0;
        loop {
            self.step()?;
            if let Some(n) = count {
                if i >= n {
                    break;
                }
            }
            if matches!(rep, Repeat::Eos) {
                let s = self.io(io)?;
                if s.pos >= s.len {
                    break;
                }
            }
            if let Some(m) = marks.as_deref_mut() {
                let s = self.io(io)?;
                if s.nbits != 0 {
                    return Ok((out, i as u64, false));
                }
                if (i as u64).is_multiple_of(crate::model::GROUP) {
                    m.push(s.base + s.pos);
                }
            }
            let icx = Cx {
                obj: cx.obj.clone(),
                index: Some(i),
                under: None,
            };
            let name = format!("[{i}]");
            let before = self.here(io);
            let v = self.one(&icx, a, &name, g, io, Some(i))?;
            if marks.is_some() && self.here(io) == before {
                // An element of no bytes: the elements cannot be found
                // again by where they start.
                return Ok((out, i as u64, false));
            }
            if let Repeat::Until(e) = rep {
                let ucx = Cx {
                    obj: cx.obj.clone(),
                    index: Some(i),
                    under: Some(v.clone()),
                };
                let done = self.eval(&ucx, e)?;
                if keep {
                    out.push(v);
                }
                if truth(&done).map_err(|m| self.spec_fail(a.at, m))? {
                    i += 1;
                    break;
                }
            } else if keep {
                out.push(v);
            }
            i += 1;
        }
        Ok((out, i as u64, true))
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

    /// Reads one value of `a` (one element of a repeat) as item `name`.
    fn one(
        &mut self,
        cx: &Cx,
        a: &Attr,
        name: &str,
        parent: usize,
        io: usize,
        _index: Option<i128>,
    ) -> Res<V> {
        let spec = self.spec;
        let (space, start) = self.here(io);
        if let Some(c) = &a.contents {
            let (off, b) = self.read_bytes(io, c.len() as u64)?;
            if b != c.as_slice() {
                return fail(
                    Some((space, off)),
                    format!("{name}: expected {}, found {}", hex(c), hex(b)),
                );
            }
            let v = Arc::<[u8]>::from(b);
            self.leaf(
                parent,
                name,
                space,
                off,
                c.len() as u64,
                Some(bytes_value(&v)),
            )?;
            return Ok(V::Bytes(v));
        }
        let ty = match self.resolve(cx, &a.ty)? {
            Some(t) => t,
            None if a.size.is_some() || a.size_eos => &Type::Bytes,
            None => return Ok(V::Null),
        };
        let my_ty = cx.obj.ty;
        // Sized: a size, size-eos, or a terminator for bytes and str.
        let sized = a.size.is_some()
            || a.size_eos
            || (a.terminator.is_some() && matches!(ty, Type::Bytes | Type::Str { .. }))
            || matches!(ty, Type::Str { z: true });
        if let Type::Prim(p) = ty {
            if a.size.is_none() {
                let v = self.prim(cx, *p, io, name, parent, my_ty)?;
                let v = match &a.enum_ {
                    Some(path) => {
                        let ev = self.as_enum(cx, path, v, a.at)?;
                        if let (V::Enum(en, x), Some(&last)) =
                            (&ev, self.items.get(parent).and_then(|p| p.kids.last()))
                        {
                            if let Some(it) = self.items.get_mut(last) {
                                it.value = Some(Value::Named {
                                    v: *x as u64,
                                    radix: Radix::Auto,
                                    name: en.name_of(*x).map(Into::into),
                                });
                            }
                        }
                        ev
                    }
                    None => v,
                };
                self.validate(cx, a, &v, (space, start))?;
                return Ok(v);
            }
        }
        if !sized {
            if let Type::User { path, args } = ty {
                let Some(t) = spec.lookup(my_ty, path) else {
                    return Err(self.spec_fail(a.at, format!("unknown type {}", path.join("::"))));
                };
                let mut vals = Vec::new();
                for e in args {
                    vals.push(self.eval(cx, e)?);
                }
                let it = self.push_item(parent, Item::group(name.to_string(), space, start, 0))?;
                let o = self.object(t, vals, Some(&cx.obj), io, it)?;
                let (_, end) = self.here(io);
                if let Some(i) = self.items.get_mut(it) {
                    i.size = end.saturating_sub(start);
                }
                let v = V::Obj(o);
                self.validate(cx, a, &v, (space, start))?;
                return Ok(v);
            }
        }
        // The raw bytes.
        let (raw_off, raw): (u64, Arc<[u8]>) = if let Some(e) = &a.size {
            let n = self.int(cx, e, a.at)?;
            let Ok(n) = u64::try_from(n) else {
                return fail(Some((space, start)), format!("{name}: size {n}"));
            };
            let (o, b) = self.read_bytes(io, n)?;
            (o, Arc::from(b))
        } else if a.size_eos {
            let left = {
                let i = self.io(io)?;
                i.len.saturating_sub(i.pos)
            };
            let (o, b) = self.read_bytes(io, left)?;
            (o, Arc::from(b))
        } else {
            let term = a.terminator.unwrap_or(0);
            let (pos, left) = {
                let i = self.io(io)?;
                (i.pos, i.len.saturating_sub(i.pos))
            };
            let (o, b) = {
                let i = self.io(io)?;
                let (sp, abs) = (i.space, i.base + i.pos);
                let d = self.space_bytes(sp);
                let s = d.get(abs as usize..(abs + left) as usize).unwrap_or(&[]);
                (abs, s)
            };
            let found = memchr::memchr(term, b);
            let (take, advance) = match found {
                Some(k) => {
                    let k = k as u64;
                    let take = if a.include { k + 1 } else { k };
                    let adv = if a.consume { k + 1 } else { k };
                    (take, adv)
                }
                None if a.eos_error => {
                    return fail(
                        Some((space, o)),
                        format!("{name}: terminator 0x{term:02x} not found"),
                    )
                }
                None => (left, left),
            };
            let bytes: Arc<[u8]> = Arc::from(b.get(..take as usize).unwrap_or(&[]));
            let i = self.io_mut(io)?;
            i.pos = pos + advance;
            i.nbits = 0;
            i.bits = 0;
            // The item covers what was consumed.
            let v =
                self.finish_bytes(cx, a, ty, name, parent, (space, o, advance), bytes, my_ty)?;
            self.validate(cx, a, &v, (space, o))?;
            return Ok(v);
        };
        // Sized bytes: pad-right and a terminator inside.
        let mut b: Arc<[u8]> = raw.clone();
        if a.process.is_none() {
            if let Some(p) = a.pad_right {
                let end = b.iter().rposition(|&c| c != p).map_or(0, |k| k + 1);
                b = Arc::from(b.get(..end).unwrap_or(&[]));
            }
            let term = match ty {
                Type::Str { z: true } => Some(a.terminator.unwrap_or(0)),
                _ => a.terminator,
            };
            if let Some(t) = term {
                if let Some(k) = b.iter().position(|&c| c == t) {
                    let keep = if a.include { k + 1 } else { k };
                    b = Arc::from(b.get(..keep).unwrap_or(&[]));
                }
            }
        }
        let v = self.finish_bytes(
            cx,
            a,
            ty,
            name,
            parent,
            (space, raw_off, raw.len() as u64),
            b,
            my_ty,
        )?;
        self.validate(cx, a, &v, (space, raw_off))?;
        Ok(v)
    }

    /// Turns bytes read at `(space, off, size)` into the attribute's value:
    /// processed, decoded as a string, or parsed as a user type in a
    /// substream of their own.
    #[allow(clippy::too_many_arguments)]
    fn finish_bytes(
        &mut self,
        cx: &Cx,
        a: &Attr,
        ty: &Type,
        name: &str,
        parent: usize,
        (space, off, size): (usize, u64, u64),
        bytes: Arc<[u8]>,
        my_ty: usize,
    ) -> Res<V> {
        let spec = self.spec;
        // Processed bytes become a derived space.
        let (space2, base2, bytes, container) = if let Some(p) = &a.process {
            let (out, method) = match p {
                Process::Zlib => {
                    let limit = space::budget(size, self.st.derived_total);
                    match compress::inflate(&bytes, compress::Method::Zlib, limit) {
                        Ok(v) if v.len() as u64 <= limit => (v, "zlib"),
                        Ok(_) => {
                            return fail(
                                Some((space, off)),
                                format!("{name}: zlib makes more than {limit} bytes; not opened"),
                            )
                        }
                        Err(e) => return fail(Some((space, off)), format!("{name}: {e}")),
                    }
                }
                Process::Xor(k) => {
                    let key: Vec<u8> = match self.eval(cx, k)? {
                        V::Int(v) => vec![v as u8],
                        V::Bytes(b) => b.to_vec(),
                        other => {
                            return Err(self.spec_fail(a.at, format!("xor key {}", show(&other))))
                        }
                    };
                    let out = if key.is_empty() {
                        bytes.to_vec()
                    } else {
                        bytes
                            .iter()
                            .zip(key.iter().cycle())
                            .map(|(b, k)| b ^ k)
                            .collect()
                    };
                    (out, "xor")
                }
                Process::Rotate(left, k) => {
                    let n = self.int(cx, k, a.at)?.rem_euclid(8) as u32;
                    let out = bytes
                        .iter()
                        .map(|b| {
                            if *left {
                                b.rotate_left(n)
                            } else {
                                b.rotate_right(n)
                            }
                        })
                        .collect();
                    (out, if *left { "rol" } else { "ror" })
                }
            };
            self.st.derived_total += out.len() as u64;
            let rc: Arc<[u8]> = Arc::from(out);
            self.st.derived.push(rc.clone());
            let k = self.st.derived.len();
            let holder = self.push_item(parent, Item::group(name.to_string(), space, off, size))?;
            let d = self.push_item(
                holder,
                Item {
                    name: format!("{name} ({method})"),
                    space: k,
                    off: 0,
                    size: rc.len() as u64,
                    value: None,
                    kids: Vec::new(),
                    derive: Some((k, method)),
                    group: false,
                    grown: false,
                    later: None,
                },
            )?;
            (k, 0u64, rc, Some(d))
        } else {
            (space, off, bytes, None)
        };
        match ty {
            Type::User { path, args } => {
                let Some(t) = spec.lookup(my_ty, path) else {
                    return Err(self.spec_fail(a.at, format!("unknown type {}", path.join("::"))));
                };
                let mut vals = Vec::new();
                for e in args {
                    vals.push(self.eval(cx, e)?);
                }
                let sub = self.new_io(space2, base2, bytes.len() as u64)?;
                // Processed bytes: the derived space's node is the object's.
                let it = match container {
                    Some(d) => d,
                    None => self.push_item(parent, Item::group(name, space2, base2, size))?,
                };
                let o = self.object(t, vals, Some(&cx.obj), sub, it)?;
                Ok(V::Obj(o))
            }
            Type::Str { .. } => {
                let enc = a
                    .encoding
                    .clone()
                    .or_else(|| self.type_meta(my_ty, |t| t.encoding.clone()))
                    .unwrap_or_else(|| "UTF-8".into());
                let s = decode(&bytes, &enc);
                if container.is_none() {
                    self.leaf(parent, name, space, off, size, Some(Value::str(&s)))?;
                }
                Ok(V::Str(Arc::from(s)))
            }
            _ => {
                if container.is_none() {
                    self.leaf(parent, name, space, off, size, Some(bytes_value(&bytes)))?;
                }
                Ok(V::Bytes(bytes))
            }
        }
    }

    /// The first of `f` over type `ty` and its ancestors.
    fn type_meta<T>(&self, ty: usize, f: impl Fn(&super::spec::TypeDef) -> Option<T>) -> Option<T> {
        let mut cur = Some(ty);
        while let Some(c) = cur {
            let t = self.spec.types.get(c)?;
            if let Some(v) = f(t) {
                return Some(v);
            }
            cur = t.parent;
        }
        None
    }

    fn prim(
        &mut self,
        cx: &Cx,
        p: Prim,
        io: usize,
        name: &str,
        parent: usize,
        my_ty: usize,
    ) -> Res<V> {
        let obj_le = lk(&cx.obj).le;
        let space = self.io(io)?.space;
        let need_le = |e: Option<bool>, r: &Self| -> Res<bool> {
            match e.or(obj_le) {
                Some(x) => Ok(x),
                None => fail(
                    Some(r.here(io)),
                    format!("{name}: no byte order (meta/endian) for a multi-byte number"),
                ),
            }
        };
        match p {
            Prim::U(n, e) | Prim::S(n, e) | Prim::F(n, e) => {
                let le = if n == 1 { true } else { need_le(e, self)? };
                let (off, b) = self.read_bytes(io, u64::from(n))?;
                let mut v: u64 = 0;
                if le {
                    for &x in b.iter().rev() {
                        v = (v << 8) | u64::from(x);
                    }
                } else {
                    for &x in b {
                        v = (v << 8) | u64::from(x);
                    }
                }
                let (val, shown) = match p {
                    Prim::U(..) => (
                        V::Int(i128::from(v)),
                        Value::U {
                            v,
                            width: n,
                            radix: Radix::Auto,
                        },
                    ),
                    Prim::S(..) => {
                        let bits = u32::from(n) * 8;
                        let s = ((v << (64 - bits)) as i64) >> (64 - bits);
                        (V::Int(i128::from(s)), Value::I { v: s, width: n })
                    }
                    _ => {
                        let f = if n == 4 {
                            f64::from(f32::from_bits(v as u32))
                        } else {
                            f64::from_bits(v)
                        };
                        (V::Float(f), Value::text(format!("{f:?}")))
                    }
                };
                self.leaf(parent, name, space, off, u64::from(n), Some(shown))?;
                Ok(val)
            }
            Prim::B(n, e) => {
                let le = e
                    .or_else(|| self.type_meta(my_ty, |t| t.bit_le))
                    .unwrap_or(false);
                let (off, size, v) = self.read_bits(io, u32::from(n), le)?;
                let (val, shown) = if n == 1 {
                    (
                        V::Bool(v != 0),
                        Value::U {
                            v,
                            width: 0,
                            radix: Radix::Dec,
                        },
                    )
                } else {
                    (
                        V::Int(i128::from(v)),
                        Value::U {
                            v,
                            width: 0,
                            radix: Radix::Auto,
                        },
                    )
                };
                self.leaf(parent, name, space, off, size, Some(shown))?;
                Ok(val)
            }
        }
    }

    fn as_enum(&mut self, cx: &Cx, path: &[String], v: V, at: Loc) -> Res<V> {
        let ty = cx.obj.ty;
        let Some(en) = self.spec.lookup_enum(ty, path) else {
            return Err(self.spec_fail(at, format!("unknown enum {}", path.join("::"))));
        };
        match v {
            V::Int(x) => Ok(V::Enum(en, x)),
            V::Bool(b) => Ok(V::Enum(en, i128::from(b))),
            other => Ok(other),
        }
    }

    fn validate(&mut self, cx: &Cx, a: &Attr, v: &V, at: (usize, u64)) -> Res<()> {
        let Some(val) = &a.valid else {
            return Ok(());
        };
        let vcx = Cx {
            obj: cx.obj.clone(),
            index: cx.index,
            under: Some(v.clone()),
        };
        let bad = |what: String| fail(Some(at), format!("{}: not valid: {what}", a.id));
        if let Some(e) = &val.eq {
            let x = self.eval(&vcx, e)?;
            if !self.equal(v, &x)? {
                return bad(format!("{} is not {}", show(v), show(&x)));
            }
        }
        if let Some(e) = &val.min {
            let x = self.eval(&vcx, e)?;
            if self.cmp(v, &x)? == std::cmp::Ordering::Less {
                return bad(format!("{} is less than {}", show(v), show(&x)));
            }
        }
        if let Some(e) = &val.max {
            let x = self.eval(&vcx, e)?;
            if self.cmp(v, &x)? == std::cmp::Ordering::Greater {
                return bad(format!("{} is more than {}", show(v), show(&x)));
            }
        }
        if !val.any_of.is_empty() {
            let mut ok = false;
            for e in &val.any_of {
                let x = self.eval(&vcx, e)?;
                if self.equal(v, &x)? {
                    ok = true;
                    break;
                }
            }
            if !ok {
                return bad(format!("{} is none of the values allowed", show(v)));
            }
        }
        if val.in_enum {
            if let V::Enum(en, x) = v {
                if en.name_of(*x).is_none() {
                    return bad(format!("{x} is not a member of its enum"));
                }
            }
        }
        if let Some(e) = &val.expr {
            let x = self.eval(&vcx, e)?;
            if !truth(&x).map_err(|m| self.spec_fail(a.at, m))? {
                return bad(format!("{} fails the expression", show(v)));
            }
        }
        Ok(())
    }

    // ---- expressions ----

    fn member(&mut self, o: &Arc<Obj>, name: &str) -> Res<V> {
        match name {
            "_root" => {
                return Ok(self.st.root.clone().map_or(V::Null, V::Obj));
            }
            "_parent" => {
                return match &o.parent {
                    None => Ok(V::Null),
                    Some(p) => match p.upgrade() {
                        Some(p) => Ok(V::Obj(p)),
                        None => fail(None, "_parent is no longer read"),
                    },
                };
            }
            "_io" => return Ok(V::Io(o.io)),
            "_sizeof" => {
                let m = lk(o);
                return Ok(V::Int(i128::from(m.end.saturating_sub(m.start))));
            }
            _ => {}
        }
        if let Some((_, v)) = o.params.iter().find(|p| p.0 == name) {
            return Ok(v.clone());
        }
        let t = self.spec.types.get(o.ty);
        if let Some(k) = t.and_then(|t| t.seq.iter().position(|a| a.id == name)) {
            return Ok(lk(o).fields.get(k).cloned().unwrap_or(V::Null));
        }
        if let Some(k) = t.and_then(|t| t.instances.iter().position(|a| a.id == name)) {
            return self.instance(o, k);
        }
        fail(
            None,
            format!(
                "{} has no attribute {name}",
                t.map_or("?", |t| t.name.as_str())
            ),
        )
    }

    /// `X._sizeof`: an attribute's size as it was read; else the value's.
    fn sizeof_attr(&mut self, cx: &Cx, base: &Expr, name: &str) -> Res<V> {
        let (owner, field) = match base {
            Expr::Name(n) => (Some(cx.obj.clone()), n.as_str()),
            Expr::Attr(b, n) => match self.eval(cx, b)? {
                V::Obj(o) => (Some(o), n.as_str()),
                _ => (None, ""),
            },
            _ => (None, ""),
        };
        let read = owner.and_then(|o| {
            let k = self
                .spec
                .types
                .get(o.ty)?
                .seq
                .iter()
                .position(|a| a.id == field)?;
            lk(&o).sizes.get(k).copied().flatten()
        });
        match read {
            Some(n) => Ok(V::Int(i128::from(n))),
            None => {
                let b = self.eval(cx, base)?;
                self.attr_of(b, name)
            }
        }
    }

    /// `sizeof<T>`: the size of a primitive type or of a user type of
    /// fixed size.
    fn sizeof_type(&mut self, cx: &Cx, name: &str) -> Res<V> {
        let path: Vec<String> = name
            .trim_end_matches("[]")
            .split("::")
            .map(str::to_string)
            .collect();
        let size = match prim_size(name) {
            Some(n) => Some(n),
            None => match self.spec.lookup(cx.obj.ty, &path) {
                Some(t) => fixed_size(self.spec, t, 0),
                None => return fail(None, format!("sizeof<{name}>: unknown type")),
            },
        };
        match size {
            Some(n) => Ok(V::Int(i128::from(n))),
            None => fail(None, format!("sizeof<{name}>: its size is not fixed")),
        }
    }

    fn eval(&mut self, cx: &Cx, e: &Expr) -> Res<V> {
        self.step()?;
        Ok(match e {
            Expr::Int(v) => V::Int(*v),
            Expr::Float(v) => V::Float(*v),
            Expr::Str(s) => V::Str(Arc::from(s.as_str())),
            Expr::Bool(b) => V::Bool(*b),
            Expr::List(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.eval(cx, i)?);
                }
                if !out.is_empty() && out.iter().all(|v| matches!(v, V::Int(0..=255))) {
                    V::Bytes(
                        out.iter()
                            .map(|v| if let V::Int(x) = v { *x as u8 } else { 0 })
                            .collect(),
                    )
                } else {
                    V::Arr(Arc::new(out))
                }
            }
            Expr::Name(n) => match n.as_str() {
                "_index" => match cx.index {
                    Some(i) => V::Int(i),
                    None => return fail(None, "_index outside a repeat"),
                },
                "_" => match &cx.under {
                    Some(v) => v.clone(),
                    None => return fail(None, "_ outside repeat-until or valid"),
                },
                _ => {
                    let o = cx.obj.clone();
                    self.member(&o, n)?
                }
            },
            Expr::Attr(base, name) if name == "_sizeof" => self.sizeof_attr(cx, base, name)?,
            Expr::Attr(base, name) => {
                let b = self.eval(cx, base)?;
                self.attr_of(b, name)?
            }
            Expr::Call(base, name, args) => {
                let b = self.eval(cx, base)?;
                let mut a = Vec::new();
                for x in args {
                    a.push(self.eval(cx, x)?);
                }
                call(b, name, &a)?
            }
            Expr::Index(base, i) => {
                let b = self.eval(cx, base)?;
                let i = self.eval(cx, i)?;
                let V::Int(i) = i else {
                    return fail(None, format!("index {} is not an integer", show(&i)));
                };
                let got = match &b {
                    V::Arr(a) => usize::try_from(i).ok().and_then(|k| a.get(k)).cloned(),
                    V::Bytes(a) => usize::try_from(i)
                        .ok()
                        .and_then(|k| a.get(k))
                        .map(|x| V::Int(i128::from(*x))),
                    _ => return fail(None, format!("{} cannot be indexed", show(&b))),
                };
                match got {
                    Some(v) => v,
                    None => return fail(None, format!("index {i} is out of range")),
                }
            }
            Expr::Neg(x) => match self.eval(cx, x)? {
                V::Int(v) => V::Int(-v),
                V::Float(v) => V::Float(-v),
                o => return fail(None, format!("-{}", show(&o))),
            },
            Expr::Inv(x) => match self.eval(cx, x)? {
                V::Int(v) => V::Int(!v),
                o => return fail(None, format!("~{}", show(&o))),
            },
            Expr::Not(x) => {
                let v = self.eval(cx, x)?;
                V::Bool(!test(&v)?)
            }
            Expr::If(c, a, b) => {
                let v = self.eval(cx, c)?;
                if test(&v)? {
                    self.eval(cx, a)?
                } else {
                    self.eval(cx, b)?
                }
            }
            Expr::Cast(x, _) => self.eval(cx, x)?,
            Expr::SizeOf(name) => self.sizeof_type(cx, name)?,
            Expr::Enum(path, member) => {
                let ty = cx.obj.ty;
                let Some(en) = self.spec.lookup_enum(ty, path) else {
                    return fail(None, format!("unknown enum {}", path.join("::")));
                };
                match en.value_of(member) {
                    Some(v) => V::Enum(en, v),
                    None => return fail(None, format!("enum {} has no {member}", path.join("::"))),
                }
            }
            Expr::Bin(op, a, b) => {
                let x = self.eval(cx, a)?;
                match op {
                    Op::And => {
                        if !test(&x)? {
                            return Ok(V::Bool(false));
                        }
                        let y = self.eval(cx, b)?;
                        return Ok(V::Bool(test(&y)?));
                    }
                    Op::Or => {
                        if test(&x)? {
                            return Ok(V::Bool(true));
                        }
                        let y = self.eval(cx, b)?;
                        return Ok(V::Bool(test(&y)?));
                    }
                    _ => {}
                }
                let y = self.eval(cx, b)?;
                self.binary(*op, x, y)?
            }
        })
    }

    fn attr_of(&mut self, b: V, name: &str) -> Res<V> {
        Ok(match (&b, name) {
            (V::Obj(o), _) => {
                let o = o.clone();
                return self.member(&o, name);
            }
            (V::Io(i), "pos") => V::Int(i128::from(self.io(*i)?.pos)),
            (V::Io(i), "size") => V::Int(i128::from(self.io(*i)?.len)),
            (V::Io(i), "eof") => {
                let s = self.io(*i)?;
                V::Bool(s.pos >= s.len && s.nbits == 0)
            }
            _ => return call(b, name, &[]),
        })
    }

    fn equal(&self, a: &V, b: &V) -> Res<bool> {
        Ok(self.cmp(a, b)? == std::cmp::Ordering::Equal)
    }

    fn cmp(&self, a: &V, b: &V) -> Res<std::cmp::Ordering> {
        use std::cmp::Ordering;
        let num = |v: &V| match v {
            V::Int(x) | V::Enum(_, x) => Some(*x as f64),
            V::Float(x) => Some(*x),
            _ => None,
        };
        Ok(match (a, b) {
            (V::Int(x) | V::Enum(_, x), V::Int(y) | V::Enum(_, y)) => x.cmp(y),
            (V::Bool(x), V::Bool(y)) => x.cmp(y),
            (V::Str(x), V::Str(y)) => x.cmp(y),
            (V::Bytes(x), V::Bytes(y)) => x.cmp(y),
            (V::Obj(x), V::Obj(y)) => Arc::as_ptr(x).cmp(&Arc::as_ptr(y)),
            (V::Null, V::Null) => Ordering::Equal,
            _ => match (num(a), num(b)) {
                (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Less),
                _ => {
                    return fail(
                        None,
                        format!("{} and {} cannot be compared", show(a), show(b)),
                    )
                }
            },
        })
    }

    fn binary(&self, op: Op, x: V, y: V) -> Res<V> {
        use std::cmp::Ordering::*;
        match op {
            Op::Eq => return Ok(V::Bool(self.equal(&x, &y)?)),
            Op::Ne => return Ok(V::Bool(!self.equal(&x, &y)?)),
            Op::Lt => return Ok(V::Bool(self.cmp(&x, &y)? == Less)),
            Op::Le => return Ok(V::Bool(self.cmp(&x, &y)? != Greater)),
            Op::Gt => return Ok(V::Bool(self.cmp(&x, &y)? == Greater)),
            Op::Ge => return Ok(V::Bool(self.cmp(&x, &y)? != Less)),
            _ => {}
        }
        let over = || fail(None, format!("{op:?} overflows"));
        match (x, y) {
            (V::Int(a) | V::Enum(_, a), V::Int(b) | V::Enum(_, b)) => Ok(V::Int(match op {
                Op::Add => match a.checked_add(b) {
                    Some(v) => v,
                    None => return over(),
                },
                Op::Sub => match a.checked_sub(b) {
                    Some(v) => v,
                    None => return over(),
                },
                Op::Mul => match a.checked_mul(b) {
                    Some(v) => v,
                    None => return over(),
                },
                Op::Div => {
                    if b == 0 {
                        return fail(None, "division by zero");
                    }
                    floor_div(a, b)
                }
                Op::Mod => {
                    if b == 0 {
                        return fail(None, "modulo by zero");
                    }
                    a.rem_euclid(b)
                }
                Op::Shl => {
                    if !(0..128).contains(&b) {
                        return over();
                    }
                    a << b
                }
                Op::Shr => {
                    if b < 0 {
                        return over();
                    }
                    if b >= 128 {
                        if a < 0 {
                            -1
                        } else {
                            0
                        }
                    } else {
                        a >> b
                    }
                }
                Op::BitAnd => a & b,
                Op::BitOr => a | b,
                Op::BitXor => a ^ b,
                _ => return fail(None, format!("{op:?} on integers")),
            })),
            (V::Str(a), V::Str(b)) if op == Op::Add => {
                Ok(V::Str(Arc::from(format!("{a}{b}").as_str())))
            }
            (V::Bool(a), V::Bool(b)) if matches!(op, Op::BitAnd | Op::BitOr | Op::BitXor) => {
                Ok(V::Bool(match op {
                    Op::BitAnd => a & b,
                    Op::BitOr => a | b,
                    _ => a ^ b,
                }))
            }
            (a, b) => {
                let f = |v: &V| match v {
                    V::Int(x) => Some(*x as f64),
                    V::Float(x) => Some(*x),
                    _ => None,
                };
                match (f(&a), f(&b)) {
                    (Some(p), Some(q)) => Ok(V::Float(match op {
                        Op::Add => p + q,
                        Op::Sub => p - q,
                        Op::Mul => p * q,
                        Op::Div => p / q,
                        Op::Mod => p.rem_euclid(q),
                        _ => return fail(None, format!("{op:?} on floats")),
                    })),
                    _ => fail(None, format!("{op:?} on {} and {}", show(&a), show(&b))),
                }
            }
        }
    }
}

/// The size in bytes of a primitive type named as in `sizeof<u4>`.
fn prim_size(name: &str) -> Option<u64> {
    let (kind, rest) = name.split_at_checked(1)?;
    let digits = rest.trim_end_matches(['l', 'b', 'e']);
    let n: u64 = digits.parse().ok()?;
    match kind {
        "u" | "s" if [1, 2, 4, 8].contains(&n) => Some(n),
        "f" if [4, 8].contains(&n) => Some(n),
        "b" if (1..=64).contains(&n) => Some(n.div_ceil(8)),
        _ => None,
    }
}

/// The size of type `ty` where it is the same for every object: each seq
/// attribute's size fixed (a primitive, `contents`, a literal `size`, a
/// literal `repeat-expr` of such, a user type of fixed size), none
/// conditional or placed elsewhere; bit fields packed together.
fn fixed_size(spec: &Spec, ty: usize, depth: u32) -> Option<u64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let t = spec.types.get(ty)?;
    let mut bytes = 0u64;
    let mut bits = 0u64;
    for a in &t.seq {
        if a.cond.is_some() || a.pos.is_some() || a.io.is_some() || a.size_eos {
            return None;
        }
        let count = match &a.repeat {
            Repeat::No => 1,
            Repeat::Expr(Expr::Int(n)) => u64::try_from(*n).ok()?,
            _ => return None,
        };
        if let Type::Prim(Prim::B(n, _)) = a.ty {
            if a.size.is_none() && count == 1 {
                bits += u64::from(n);
                continue;
            }
        }
        bytes = bytes.checked_add(bits.div_ceil(8))?;
        bits = 0;
        let one = if let Some(c) = &a.contents {
            c.len() as u64
        } else if let Some(e) = &a.size {
            match e {
                Expr::Int(n) => u64::try_from(*n).ok()?,
                _ => return None,
            }
        } else {
            match &a.ty {
                Type::Prim(Prim::U(n, _) | Prim::S(n, _) | Prim::F(n, _)) => u64::from(*n),
                Type::User { path, args } if args.is_empty() => {
                    fixed_size(spec, spec.lookup(ty, path)?, depth + 1)?
                }
                _ => return None,
            }
        };
        bytes = bytes.checked_add(one.checked_mul(count)?)?;
    }
    bytes.checked_add(bits.div_ceil(8))
}

/// Integer division rounding down (toward negative infinity).
pub fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// [`truth`] as a failure where the value is no boolean.
fn test(v: &V) -> Res<bool> {
    truth(v).map_err(|m| Fail {
        at: None,
        msg: m,
        placed: false,
    })
}

fn truth(v: &V) -> Result<bool, String> {
    match v {
        V::Bool(b) => Ok(*b),
        V::Int(i) => Ok(*i != 0),
        V::Null => Ok(false),
        o => Err(format!("{} is not a boolean", show(o))),
    }
}

/// Methods and properties of values that are not objects or streams.
fn call(b: V, name: &str, args: &[V]) -> Res<V> {
    let int_arg = |k: usize| match args.get(k) {
        Some(V::Int(v)) => Some(*v),
        _ => None,
    };
    Ok(match (&b, name) {
        (V::Arr(a), "size" | "length") => V::Int(a.len() as i128),
        (V::Bytes(a), "size" | "length" | "_sizeof") => V::Int(a.len() as i128),
        (V::Str(s), "length") => V::Int(s.chars().count() as i128),
        (V::Str(s), "reverse") => V::Str(Arc::from(s.chars().rev().collect::<String>().as_str())),
        (V::Str(s), "substring") => {
            let (Some(from), Some(to)) = (int_arg(0), int_arg(1)) else {
                return fail(None, "substring(from, to) takes two integers");
            };
            let out: String = s
                .chars()
                .skip(from.max(0) as usize)
                .take((to - from).max(0) as usize)
                .collect();
            V::Str(Arc::from(out.as_str()))
        }
        (V::Str(s), "to_i") => {
            let radix = int_arg(0).unwrap_or(10);
            let r = u32::try_from(radix).unwrap_or(10);
            match i128::from_str_radix(s.trim(), r) {
                Ok(v) => V::Int(v),
                Err(_) => return fail(None, format!("{s:?} is not a number in base {r}")),
            }
        }
        (V::Str(_), "to_s") => b.clone(),
        (V::Int(v), "to_s") => V::Str(Arc::from(v.to_string().as_str())),
        (V::Int(_), "to_i") => b.clone(),
        (V::Float(f), "to_i") => V::Int(f.trunc() as i128),
        (V::Bool(x), "to_i") => V::Int(i128::from(*x)),
        (V::Enum(_, v), "to_i") => V::Int(*v),
        (V::Bytes(a), "to_s") => {
            let enc = match args.first() {
                Some(V::Str(e)) => e.to_string(),
                _ => "UTF-8".into(),
            };
            V::Str(Arc::from(decode(a, &enc).as_str()))
        }
        (V::Bytes(a), "first") => a.first().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Bytes(a), "last") => a.last().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Bytes(a), "min") => a.iter().min().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Bytes(a), "max") => a.iter().max().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Arr(a), "first") => a.first().cloned().unwrap_or(V::Null),
        (V::Arr(a), "last") => a.last().cloned().unwrap_or(V::Null),
        (V::Arr(a), "min" | "max") => {
            let mut best: Option<&V> = None;
            for v in a.iter() {
                best = match best {
                    None => Some(v),
                    Some(b) => {
                        let o = match (v, b) {
                            (V::Int(x), V::Int(y)) => x.cmp(y),
                            (V::Str(x), V::Str(y)) => x.cmp(y),
                            _ => return fail(None, "min/max of values that do not compare"),
                        };
                        let take = if name == "min" {
                            o == std::cmp::Ordering::Less
                        } else {
                            o == std::cmp::Ordering::Greater
                        };
                        if take {
                            Some(v)
                        } else {
                            Some(b)
                        }
                    }
                };
            }
            best.cloned().unwrap_or(V::Null)
        }
        _ => return fail(None, format!("{} has no {name}", show(&b))),
    })
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

fn bytes_value(b: &[u8]) -> Value {
    if b.len() <= 16 {
        Value::text(hex(b))
    } else {
        Value::Size(b.len() as u64)
    }
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
        V::Bool(b) => Value::text(b.to_string()),
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

/// Bytes as text in an encoding Kaitai names.
pub fn decode(b: &[u8], enc: &str) -> String {
    let e = enc.to_ascii_uppercase().replace(['_', ' '], "-");
    match e.as_str() {
        "UTF-16LE" | "UTF-16BE" => {
            let le = e.ends_with("LE");
            let units = b.chunks_exact(2).map(|c| match c {
                [x, y] if le => u16::from_le_bytes([*x, *y]),
                [x, y] => u16::from_be_bytes([*x, *y]),
                _ => 0,
            });
            char::decode_utf16(units)
                .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        }
        "ISO-8859-1" | "LATIN1" | "LATIN-1" | "ISO8859-1" => {
            b.iter().map(|&c| char::from(c)).collect()
        }
        _ => String::from_utf8_lossy(b).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ksy::expr::parse;

    /// An object of no type, for expressions that name no attribute.
    fn bare_obj() -> Arc<Obj> {
        Arc::new(Obj {
            ty: 0,
            parent: None,
            io: 0,
            depth: 0,
            params: Vec::new(),
            m: Mutex::new(ObjMut::default()),
        })
    }

    fn ev(s: &str) -> V {
        let spec = Spec::default();
        let used = FxHashSet::default();
        let mut r = Run::new(&spec, &[], &used, State::default());
        r.st.ios.push(Io {
            space: 0,
            base: 0,
            len: 10,
            pos: 3,
            bits: 0,
            nbits: 0,
        });
        let cx = Cx {
            obj: bare_obj(),
            index: Some(4),
            under: None,
        };
        let e = parse(s).unwrap();
        r.eval(&cx, &e).unwrap()
    }

    fn int(s: &str) -> i128 {
        match ev(s) {
            V::Int(i) => i,
            o => panic!("{s}: {o:?}"),
        }
    }

    #[test]
    fn arithmetic_as_kaitai() {
        assert_eq!(int("7 / 2"), 3);
        assert_eq!(int("-7 / 2"), -4);
        assert_eq!(int("-7 % 3"), 2);
        assert_eq!(int("7 % 3"), 1);
        assert_eq!(int("1 << 4 | 3"), 19);
        assert_eq!(int("0xff & ~0x0f"), 0xf0);
        assert_eq!(int("5 ^ 3"), 6);
        assert_eq!(int("2 + 3 * 4 - 1"), 13);
        assert_eq!(int("true ? 1 : 2"), 1);
        assert_eq!(int("1 > 2 or 3 == 3 ? 10 : 20"), 10);
        assert_eq!(int("_index * 2"), 8);
        assert_eq!(int("_io.size - _io.pos"), 7);
        assert_eq!(int("'123'.to_i + 1"), 124);
        assert_eq!(int("'ff'.to_i(16)"), 255);
        assert_eq!(int("'abc'.length"), 3);
        assert_eq!(int("[1, 2, 3].size"), 3);
        assert_eq!(int("[5, 2, 9].max"), 9);
        assert_eq!(int("[5, 2, 9][1]"), 2);
        assert_eq!(int("[5, 2, 9].last"), 9);
        assert_eq!(int("3.7.to_i"), 3);
        assert_eq!(int("12.as<u4>"), 12);
        assert!(matches!(ev("'abc'.reverse"), V::Str(s) if &*s == "cba"));
        assert!(matches!(ev("'hello'.substring(1, 3)"), V::Str(s) if &*s == "el"));
        assert!(matches!(ev("42.to_s"), V::Str(s) if &*s == "42"));
        assert!(matches!(ev("'a' + 'b'"), V::Str(s) if &*s == "ab"));
        assert!(matches!(ev("not (1 < 2)"), V::Bool(false)));
        assert!(matches!(ev("_io.eof"), V::Bool(false)));
        assert!(matches!(ev("7.0 / 2"), V::Float(f) if f == 3.5));
    }

    #[test]
    fn errors_not_panics() {
        let spec = Spec::default();
        let used = FxHashSet::default();
        let mut r = Run::new(&spec, &[], &used, State::default());
        let cx = Cx::of(bare_obj());
        for s in ["1 / 0", "1 % 0", "[1][5]", "'a' - 1", "1 << 200", "nothing"] {
            assert!(r.eval(&cx, &parse(s).unwrap()).is_err(), "{s}");
        }
    }

    #[test]
    fn an_instance_is_read_once_and_only_when_needed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.ksy");
        std::fs::write(
            &path,
            "meta: {id: t, endian: le}\nseq:\n  - {id: a, type: u1}\ninstances:\n  far: {pos: 100, type: u4}\n  big: {pos: 0, type: u2}\n  twice: {value: big + big}\n",
        )
        .unwrap();
        let spec = crate::formats::ksy::spec::load(&path, &[]).unwrap();
        let used = names_used(&spec);
        let data = [1u8, 2, 3, 4];
        let mut r = Run::new(&spec, &data, &used, State::default());
        r.root(0, 0, 4).unwrap();
        // `far` would fail: it is not read, nor is anything else.
        assert_eq!(r.st.evaluated, 0);
        assert!(r.diags.is_empty());
        let root = r.st.root.clone().unwrap();
        let v = r.instance(&root, 2).unwrap();
        assert!(matches!(v, V::Int(0x0402)), "{v:?}");
        // `twice` and `big`, `big` once.
        assert_eq!(r.st.evaluated, 2);
        assert!(matches!(r.instance(&root, 1).unwrap(), V::Int(0x0201)));
        assert_eq!(r.st.evaluated, 2);
        let f = r.open_instance(&root, 0).unwrap_err();
        assert!(f.msg.contains("bytes asked for"), "{}", f.msg);
    }

    #[test]
    fn decoding() {
        assert_eq!(decode(b"h\0i\0", "UTF-16LE"), "hi");
        assert_eq!(decode(b"\0h\0i", "utf-16be"), "hi");
        assert_eq!(decode(&[0xe9], "ISO-8859-1"), "é");
        assert_eq!(decode(b"ok", "ASCII"), "ok");
    }
}
