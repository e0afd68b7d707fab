//! A `.ksy` read into a typed description: its types (nested, scoped),
//! attributes, instances, enums and parameters, every expression parsed.
//! Every problem is an error naming the file, line and column.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::expr::{self, Expr};
use crate::formats::yaml::{self, Y};

/// How many files one description may import, all told.
const MAX_FILES: usize = 64;
/// How many errors are kept.
const MAX_ERRORS: usize = 50;

/// Where something is in a description: the file's index in the high
/// 32 bits, the byte offset in it in the low ones.
pub type Loc = u64;

/// A byte order, fixed or chosen by an expression.
#[derive(Clone, Debug)]
pub enum Endian {
    Le,
    Be,
    Switch(Expr, Vec<(Expr, bool)>),
}

/// A primitive read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    /// Unsigned integer of this many bytes; `Some(true)`: little-endian.
    U(u8, Option<bool>),
    S(u8, Option<bool>),
    F(u8, Option<bool>),
    /// Bit-sized integer; `Some(true)`: little-endian bits.
    B(u8, Option<bool>),
}

/// What an attribute's bytes are.
#[derive(Clone, Debug)]
pub enum Type {
    /// No `type`: bytes.
    Bytes,
    Prim(Prim),
    /// `str` (`z`: `strz`).
    Str {
        z: bool,
    },
    /// A user type by its path, with its arguments.
    User {
        path: Vec<String>,
        args: Vec<Expr>,
    },
    Switch {
        on: Expr,
        cases: Vec<(Option<Expr>, Type)>,
    },
}

#[derive(Clone, Debug)]
pub enum Repeat {
    No,
    Eos,
    Expr(Expr),
    Until(Expr),
}

#[derive(Clone, Debug)]
pub enum Process {
    Zlib,
    Xor(Expr),
    /// Rotate left (`true`) or right by an expression, in groups of 1 byte.
    Rotate(bool, Expr),
}

#[derive(Clone, Debug, Default)]
pub struct Valid {
    pub eq: Option<Expr>,
    pub min: Option<Expr>,
    pub max: Option<Expr>,
    pub any_of: Vec<Expr>,
    pub expr: Option<Expr>,
    /// `in-enum: true`: the value is one of its enum's members.
    pub in_enum: bool,
}

/// An attribute of `seq`, or an instance.
#[derive(Clone, Debug)]
pub struct Attr {
    pub id: String,
    pub at: Loc,
    pub doc: Option<String>,
    pub ty: Type,
    pub repeat: Repeat,
    pub cond: Option<Expr>,
    pub size: Option<Expr>,
    pub size_eos: bool,
    pub terminator: Option<u8>,
    pub consume: bool,
    pub include: bool,
    pub eos_error: bool,
    pub pad_right: Option<u8>,
    pub contents: Option<Vec<u8>>,
    pub encoding: Option<String>,
    pub enum_: Option<EnumRef>,
    pub process: Option<Process>,
    pub valid: Option<Valid>,
    pub pos: Option<Expr>,
    pub io: Option<Expr>,
    pub value: Option<Expr>,
    /// Some expression of the description names it (by its `id`, in any
    /// type): its value is kept once read.
    pub named: bool,
}

/// An attribute's `enum:`: the path it names and the enum that path finds
/// from the attribute's type, found once when the description is checked.
#[derive(Clone, Debug)]
pub struct EnumRef {
    pub path: Vec<String>,
    pub found: Option<Arc<Enum>>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub id: String,
    pub enum_: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default)]
pub struct Enum {
    pub members: Vec<(i128, String)>,
    /// The first member of each value and of each name, by index into
    /// `members` ([`Enum::index`]).
    by_value: FxHashMap<i128, usize>,
    by_name: FxHashMap<String, usize>,
}

impl Enum {
    /// Indexes the members once they are all read.
    fn index(&mut self) {
        for (k, (v, n)) in self.members.iter().enumerate() {
            self.by_value.entry(*v).or_insert(k);
            self.by_name.entry(n.clone()).or_insert(k);
        }
    }
    pub fn name_of(&self, v: i128) -> Option<&str> {
        let k = *self.by_value.get(&v)?;
        self.members.get(k).map(|m| m.1.as_str())
    }
    pub fn value_of(&self, name: &str) -> Option<i128> {
        let k = *self.by_name.get(name)?;
        self.members.get(k).map(|m| m.0)
    }
}

/// What a name means in a type's expressions: one of its parameters, of
/// its `seq` attributes or of its instances (by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    Param(usize),
    Seq(usize),
    Inst(usize),
}

/// A type: the top level of a file, or one of `types`.
#[derive(Clone, Debug, Default)]
pub struct TypeDef {
    pub name: String,
    pub parent: Option<usize>,
    pub children: Vec<(String, usize)>,
    pub endian: Option<Endian>,
    pub bit_le: Option<bool>,
    pub encoding: Option<String>,
    pub params: Vec<Param>,
    pub seq: Vec<Attr>,
    pub instances: Vec<Attr>,
    pub enums: Vec<(String, Arc<Enum>)>,
    pub doc: Option<String>,
    /// Its parameters, attributes and instances by name (the first of a
    /// name, parameters before attributes before instances).
    pub names: FxHashMap<String, Member>,
    /// Its enums by name (index into `enums`).
    enum_index: FxHashMap<String, usize>,
}

impl TypeDef {
    /// Indexes names once the type is read.
    fn index(&mut self) {
        let params = self.params.iter().map(|p| &p.id);
        let params = params.enumerate().map(|(k, n)| (n, Member::Param(k)));
        let seq = self
            .seq
            .iter()
            .enumerate()
            .map(|(k, a)| (&a.id, Member::Seq(k)));
        let inst = self.instances.iter().enumerate();
        let inst = inst.map(|(k, a)| (&a.id, Member::Inst(k)));
        for (n, m) in params.chain(seq).chain(inst) {
            self.names.entry(n.clone()).or_insert(m);
        }
        for (k, (n, _)) in self.enums.iter().enumerate() {
            self.enum_index.entry(n.clone()).or_insert(k);
        }
    }

    /// The enum named `name` of this type.
    pub fn enum_named(&self, name: &str) -> Option<&Arc<Enum>> {
        let k = *self.enum_index.get(name)?;
        self.enums.get(k).map(|e| &e.1)
    }
}

/// A description read from a file and the files it imports.
#[derive(Debug, Default)]
pub struct Spec {
    /// Each file's path and text.
    pub files: Vec<(PathBuf, String)>,
    pub types: Vec<TypeDef>,
    /// The top-level type of each file imported, by its `meta/id`.
    pub imported: Vec<(String, usize)>,
    /// `meta/id` of the main file.
    pub id: String,
    /// `meta/file-extension` of the main file.
    pub extensions: Vec<String>,
    /// The bytes the first attribute's `contents` requires, if it has one.
    pub magic: Option<Vec<u8>>,
    /// Some expression asks for a size (`_sizeof`).
    pub asks_sizeof: bool,
}

impl Spec {
    /// `file:line:col` of `at`.
    pub fn place(&self, at: Loc) -> String {
        place(&self.files, at)
    }

    /// The type that `path` names, seen from type `from` (its own
    /// types, its ancestors', then the imported files').
    pub fn lookup(&self, from: usize, path: &[String]) -> Option<usize> {
        let (first, rest) = path.split_first()?;
        let mut scope = Some(from);
        let mut found = None;
        while let Some(s) = scope {
            let t = self.types.get(s)?;
            if let Some(&(_, c)) = t.children.iter().find(|c| &c.0 == first) {
                found = Some(c);
                break;
            }
            if t.parent.is_none() && &t.name == first {
                found = Some(s);
                break;
            }
            scope = t.parent;
        }
        let mut cur = match found {
            Some(c) => c,
            None => self.imported.iter().find(|i| &i.0 == first)?.1,
        };
        for p in rest {
            cur = self.types.get(cur)?.children.iter().find(|c| &c.0 == p)?.1;
        }
        Some(cur)
    }

    /// The enum that `path` names, seen from type `from`.
    pub fn lookup_enum(&self, from: usize, path: &[String]) -> Option<Arc<Enum>> {
        let (name, types) = path.split_last()?;
        let mut scope = if types.is_empty() {
            Some(from)
        } else {
            Some(self.lookup(from, types)?)
        };
        while let Some(s) = scope {
            let t = self.types.get(s)?;
            if let Some(e) = t.enum_named(name) {
                return Some(e.clone());
            }
            if !types.is_empty() {
                return None;
            }
            scope = t.parent;
        }
        None
    }
}

fn place(files: &[(PathBuf, String)], at: Loc) -> String {
    let (fi, off) = ((at >> 32) as usize, (at & 0xffff_ffff) as usize);
    let Some((path, src)) = files.get(fi) else {
        return "?".into();
    };
    let before = src.get(..off.min(src.len())).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{}:{line}:{col}", path.display())
}

/// Reads the description in `path`; `search` lists the folders that
/// absolute imports (`/common/foo`) are looked for in.
pub fn load(path: &Path, search: &[PathBuf]) -> Result<Spec, Vec<String>> {
    let mut r = Reader {
        spec: Spec::default(),
        errors: Vec::new(),
        search: search.to_vec(),
    };
    match r.file(path, None) {
        Some(root) => {
            r.spec.types.iter_mut().for_each(TypeDef::index);
            r.check(root);
            mark_named(&mut r.spec);
            if let Some(t) = r.spec.types.get(root) {
                r.spec.id = t.name.clone();
                r.spec.magic = t.seq.first().and_then(|a| a.contents.clone());
            }
        }
        None if r.errors.is_empty() => r.errors.push(format!("{}: not read", path.display())),
        None => {}
    }
    if r.errors.is_empty() {
        Ok(r.spec)
    } else {
        Err(r.errors)
    }
}

/// Marks the attributes some expression names ([`Attr::named`]), and
/// whether one asks for a size.
fn mark_named(spec: &mut Spec) {
    fn ty<'e>(t: &'e Type, f: &mut impl FnMut(&'e str)) {
        match t {
            Type::User { args, .. } => args.iter().for_each(|a| a.names(f)),
            Type::Switch { on, cases } => {
                on.names(f);
                for (k, t) in cases {
                    if let Some(k) = k {
                        k.names(f);
                    }
                    ty(t, f);
                }
            }
            _ => {}
        }
    }
    let mut used = rustc_hash::FxHashSet::default();
    let mut f = |n: &str| {
        used.insert(n.to_string());
    };
    for t in &spec.types {
        if let Some(Endian::Switch(on, cases)) = &t.endian {
            on.names(&mut f);
            cases.iter().for_each(|(k, _)| k.names(&mut f));
        }
        for a in t.seq.iter().chain(&t.instances) {
            ty(&a.ty, &mut f);
            if let Repeat::Expr(e) | Repeat::Until(e) = &a.repeat {
                e.names(&mut f);
            }
            for e in [&a.cond, &a.size, &a.pos, &a.io, &a.value]
                .into_iter()
                .flatten()
            {
                e.names(&mut f);
            }
            if let Some(Process::Xor(e) | Process::Rotate(_, e)) = &a.process {
                e.names(&mut f);
            }
            if let Some(v) = &a.valid {
                for e in [&v.eq, &v.min, &v.max, &v.expr].into_iter().flatten() {
                    e.names(&mut f);
                }
                v.any_of.iter().for_each(|e| e.names(&mut f));
            }
        }
    }
    spec.asks_sizeof = used.contains("_sizeof");
    for t in &mut spec.types {
        for a in t.seq.iter_mut().chain(&mut t.instances) {
            a.named = used.contains(&a.id);
        }
    }
}

struct Reader {
    spec: Spec,
    errors: Vec<String>,
    search: Vec<PathBuf>,
}

fn text(y: &Y) -> Option<&str> {
    match y {
        Y::Scalar { text, .. } => Some(text),
        _ => None,
    }
}

fn start(y: &Y) -> u64 {
    y.span().0
}

impl Reader {
    fn err(&mut self, at: Loc, msg: impl AsRef<str>) {
        if self.errors.len() < MAX_ERRORS {
            let p = place(&self.spec.files, at);
            self.errors.push(format!("{p}: {}", msg.as_ref()));
        }
    }

    /// Reads one file; returns its top-level type.
    fn file(&mut self, path: &Path, from: Option<Loc>) -> Option<usize> {
        if self.spec.files.len() >= MAX_FILES {
            if let Some(at) = from {
                self.err(at, format!("more than {MAX_FILES} files imported"));
            }
            return None;
        }
        let src = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                let msg = format!("{}: {e}", path.display());
                match from {
                    Some(at) => self.err(at, msg),
                    None => self.errors.push(msg),
                }
                return None;
            }
        };
        let fi = self.spec.files.len() as u64;
        let doc = yaml::read(&src, fi << 32);
        self.spec.files.push((path.to_path_buf(), src));
        if let Some((at, msg)) = doc.error {
            self.err(at, format!("YAML: {msg}"));
            return None;
        }
        let Some(root) = doc.root else {
            self.err(fi << 32, "empty description");
            return None;
        };
        let Y::Map { entries, .. } = &root else {
            self.err(
                start(&root),
                "a description is a mapping (meta, seq, types, ...)",
            );
            return None;
        };
        let Some(meta) = entries.iter().find(|e| e.0 == "meta") else {
            self.err(start(&root), "no meta (meta/id names the format)");
            return None;
        };
        let id = match &meta.3 {
            Y::Map { entries, .. } => entries
                .iter()
                .find(|e| e.0 == "id")
                .and_then(|e| text(&e.3))
                .map(str::to_string),
            _ => None,
        };
        let Some(id) = id else {
            self.err(meta.1, "meta has no id");
            return None;
        };
        if let Some(&(_, t)) = self.spec.imported.iter().find(|i| i.0 == id) {
            return Some(t);
        }
        // Registered before it is read: imports may import it again.
        if from.is_some() {
            self.spec.imported.push((id.clone(), self.spec.types.len()));
        }
        Some(self.typedef(&root, id, None, Some(path)))
    }

    /// The imports of a file, read and registered.
    fn imports(&mut self, y: &Y, dir: &Path) {
        let Y::Seq { items, .. } = y else {
            self.err(start(y), "imports is a list");
            return;
        };
        for it in items {
            let Some(name) = text(it) else {
                self.err(start(it), "an import is a name");
                continue;
            };
            // Absolute: from the search folders, then from the folders
            // above this file (a copy of the gallery keeps its layout).
            let cands: Vec<PathBuf> = if let Some(abs) = name.strip_prefix('/') {
                self.search
                    .iter()
                    .map(PathBuf::as_path)
                    .chain(dir.ancestors().skip(1))
                    .map(|d| d.join(format!("{abs}.ksy")))
                    .collect()
            } else {
                vec![dir.join(format!("{name}.ksy"))]
            };
            match cands.iter().find(|p| p.is_file()) {
                Some(p) => {
                    let p = p.clone();
                    self.file(&p, Some(start(it)));
                }
                None => self.err(
                    start(it),
                    format!("import {name:?}: no such file (looked at {})", {
                        let v: Vec<String> =
                            cands.iter().map(|p| p.display().to_string()).collect();
                        v.join(", ")
                    }),
                ),
            }
        }
    }

    fn expr(&mut self, y: &Y) -> Option<Expr> {
        match y {
            Y::Scalar { text, quoted, .. } => match expr::parse(text) {
                Ok(e) => Some(e),
                Err(at) => {
                    self.err(
                        start(y) + at as u64 + u64::from(*quoted),
                        format!("expression {text:?}: cannot read it from here"),
                    );
                    None
                }
            },
            _ => {
                self.err(start(y), "an expression is a scalar");
                None
            }
        }
    }

    /// An expression where YAML may give a number, a bool or a string.
    fn expr_or_lit(&mut self, y: &Y) -> Option<Expr> {
        self.expr(y)
    }

    fn typedef(
        &mut self,
        y: &Y,
        name: String,
        parent: Option<usize>,
        file: Option<&Path>,
    ) -> usize {
        let idx = self.spec.types.len();
        self.spec.types.push(TypeDef {
            name,
            parent,
            ..TypeDef::default()
        });
        let Y::Map { entries, .. } = y else {
            self.err(start(y), "a type is a mapping");
            return idx;
        };
        let mut t = TypeDef::default();
        for (k, ks, _, v) in entries {
            match k.as_str() {
                "meta" => self.meta(v, &mut t, file),
                "doc" => t.doc = text(v).map(str::to_string),
                "doc-ref" => {}
                "params" => {
                    if let Y::Seq { items, .. } = v {
                        for p in items {
                            if let Some(pid) = field(p, "id").and_then(text) {
                                let enum_ = field(p, "enum")
                                    .and_then(text)
                                    .map(|s| s.split("::").map(str::to_string).collect());
                                t.params.push(Param {
                                    id: pid.to_string(),
                                    enum_,
                                });
                            } else {
                                self.err(start(p), "a parameter needs an id");
                            }
                        }
                    } else {
                        self.err(start(v), "params is a list");
                    }
                }
                "seq" => match v {
                    Y::Seq { items, .. } => {
                        for a in items {
                            let id = field(a, "id").and_then(text).map(str::to_string);
                            if let Some(at) = self.attr(a, id, false) {
                                t.seq.push(at);
                            }
                        }
                    }
                    _ => self.err(start(v), "seq is a list"),
                },
                "instances" => match v {
                    Y::Map { entries, .. } => {
                        for (iid, _, _, a) in entries {
                            if let Some(at) = self.attr(a, Some(iid.clone()), true) {
                                t.instances.push(at);
                            }
                        }
                    }
                    _ => self.err(start(v), "instances is a mapping"),
                },
                "enums" => match v {
                    Y::Map { entries, .. } => {
                        for (eid, _, _, e) in entries {
                            let en = self.enum_(e);
                            t.enums.push((eid.clone(), Arc::new(en)));
                        }
                    }
                    _ => self.err(start(v), "enums is a mapping"),
                },
                "types" | "to-string" => {}
                k if k.starts_with('-') => {}
                k => self.err(*ks, format!("unknown key {k:?}")),
            }
        }
        // Types last: their own types see this one's index as parent.
        t.name = self
            .spec
            .types
            .get_mut(idx)
            .map(|x| std::mem::take(&mut x.name))
            .unwrap_or_default();
        t.parent = parent;
        if let Some(slot) = self.spec.types.get_mut(idx) {
            *slot = t;
        }
        if let Some((_, _, _, Y::Map { entries, .. })) = entries.iter().find(|e| e.0 == "types") {
            for (tid, _, _, ty) in entries {
                let c = self.typedef(ty, tid.clone(), Some(idx), None);
                if let Some(slot) = self.spec.types.get_mut(idx) {
                    slot.children.push((tid.clone(), c));
                }
            }
        } else if let Some((_, ks, _, _)) = entries.iter().find(|e| e.0 == "types") {
            self.err(*ks, "types is a mapping");
        }
        idx
    }

    fn meta(&mut self, y: &Y, t: &mut TypeDef, file: Option<&Path>) {
        let Y::Map { entries, .. } = y else {
            self.err(start(y), "meta is a mapping");
            return;
        };
        for (k, ks, _, v) in entries {
            match k.as_str() {
                "endian" => {
                    t.endian = match v {
                        Y::Scalar { text, .. } if text == "le" => Some(Endian::Le),
                        Y::Scalar { text, .. } if text == "be" => Some(Endian::Be),
                        Y::Map { .. } => {
                            let on = field(v, "switch-on").and_then(|e| self.expr(e));
                            let mut cases = Vec::new();
                            if let Some(Y::Map { entries, .. }) = field(v, "cases") {
                                for (ck, cs, _, cv) in entries {
                                    let key = match expr::parse(ck) {
                                        Ok(e) => e,
                                        Err(_) => {
                                            self.err(*cs, format!("case {ck:?} is no expression"));
                                            continue;
                                        }
                                    };
                                    match text(cv) {
                                        Some("le") => cases.push((key, true)),
                                        Some("be") => cases.push((key, false)),
                                        _ => self.err(start(cv), "an endian case is le or be"),
                                    }
                                }
                            }
                            on.map(|on| Endian::Switch(on, cases))
                        }
                        _ => {
                            self.err(start(v), "endian is le, be or a switch-on");
                            None
                        }
                    }
                }
                "bit-endian" => match text(v) {
                    Some("le") => t.bit_le = Some(true),
                    Some("be") => t.bit_le = Some(false),
                    _ => self.err(start(v), "bit-endian is le or be"),
                },
                "encoding" => t.encoding = text(v).map(str::to_string),
                "file-extension" => {
                    if file.is_some() && self.spec.files.len() == 1 {
                        match v {
                            Y::Scalar { text, .. } => self.spec.extensions.push(text.clone()),
                            Y::Seq { items, .. } => {
                                let ext: Vec<String> =
                                    items.iter().filter_map(text).map(str::to_string).collect();
                                self.spec.extensions.extend(ext);
                            }
                            _ => {}
                        }
                    }
                }
                "imports" => {
                    if let Some(dir) = file.and_then(Path::parent) {
                        self.imports(v, dir);
                    }
                }
                "id" | "title" | "application" | "xref" | "tags" | "license" | "ks-version"
                | "ks-debug" | "ks-opaque-types" => {}
                k if k.starts_with('-') => {}
                k => self.err(*ks, format!("unknown key {k:?} in meta")),
            }
        }
    }

    fn enum_(&mut self, y: &Y) -> Enum {
        let mut en = Enum::default();
        let Y::Map { entries, .. } = y else {
            self.err(start(y), "an enum is a mapping of values to names");
            return en;
        };
        for (k, ks, _, v) in entries {
            let val = match expr::parse(k) {
                Ok(Expr::Int(i)) => i,
                Ok(Expr::Bool(b)) => i128::from(b),
                _ => {
                    self.err(*ks, format!("enum value {k:?} is not an integer"));
                    continue;
                }
            };
            let name = match v {
                Y::Scalar { text, .. } => Some(text.clone()),
                Y::Map { .. } => field(v, "id").and_then(text).map(str::to_string),
                _ => None,
            };
            match name {
                Some(n) => en.members.push((val, n)),
                None => self.err(start(v), "an enum member needs a name"),
            }
        }
        en.index();
        en
    }

    fn type_ref(&mut self, y: &Y) -> Option<Type> {
        match y {
            Y::Scalar { text, .. } => self.type_name(text, start(y)),
            Y::Map { .. } => {
                let on = field(y, "switch-on").and_then(|e| self.expr(e))?;
                let mut cases = Vec::new();
                match field(y, "cases") {
                    Some(Y::Map { entries, .. }) => {
                        for (ck, cs, _, cv) in entries {
                            let key = if ck == "_" {
                                None
                            } else {
                                match expr::parse(ck) {
                                    Ok(e) => Some(e),
                                    Err(at) => {
                                        self.err(
                                            *cs + at as u64,
                                            format!("case {ck:?} is no expression"),
                                        );
                                        continue;
                                    }
                                }
                            };
                            if let Some(t) = self.type_ref(cv) {
                                cases.push((key, t));
                            }
                        }
                    }
                    _ => self.err(start(y), "a switch needs cases"),
                }
                Some(Type::Switch { on, cases })
            }
            _ => {
                self.err(start(y), "a type is a name or a switch-on");
                None
            }
        }
    }

    fn type_name(&mut self, s: &str, at: Loc) -> Option<Type> {
        if let Some(t) = prim(s) {
            return Some(t);
        }
        let (name, args) = match s.strip_suffix(')').and_then(|t| t.split_once('(')) {
            Some((name, inner)) => match expr::parse(&format!("[{inner}]")) {
                Ok(Expr::List(a)) => (name, a),
                _ => {
                    let p = name.len() as u64;
                    self.err(at + p, format!("arguments of {s:?} cannot be read"));
                    return None;
                }
            },
            _ => (s, Vec::new()),
        };
        let path: Vec<String> = name.trim().split("::").map(str::to_string).collect();
        if path.iter().any(|p| !expr::is_name(p)) {
            self.err(at, format!("{s:?} is no type name"));
            return None;
        }
        Some(Type::User { path, args })
    }

    fn attr(&mut self, y: &Y, id: Option<String>, instance: bool) -> Option<Attr> {
        let Y::Map { entries, .. } = y else {
            self.err(start(y), "an attribute is a mapping");
            return None;
        };
        let at = start(y);
        let mut a = Attr {
            id: id.unwrap_or_default(),
            at,
            doc: None,
            ty: Type::Bytes,
            repeat: Repeat::No,
            cond: None,
            size: None,
            size_eos: false,
            terminator: None,
            consume: true,
            include: false,
            eos_error: true,
            pad_right: None,
            contents: None,
            encoding: None,
            enum_: None,
            process: None,
            valid: None,
            pos: None,
            io: None,
            value: None,
            named: false,
        };
        let mut repeat = None;
        let mut rexpr = None;
        let mut runtil = None;
        for (k, ks, _, v) in entries {
            match k.as_str() {
                "id" => {}
                "doc" => a.doc = text(v).map(str::to_string),
                "doc-ref" => {}
                "type" => a.ty = self.type_ref(v)?,
                "repeat" => repeat = text(v).map(str::to_string).map(|r| (r, start(v))),
                "repeat-expr" => rexpr = self.expr(v),
                "repeat-until" => runtil = self.expr(v),
                "if" => a.cond = self.expr(v),
                "size" => a.size = self.expr_or_lit(v),
                "size-eos" => a.size_eos = text(v) == Some("true"),
                "terminator" => a.terminator = self.byte(v),
                "consume" => a.consume = text(v) != Some("false"),
                "include" => a.include = text(v) == Some("true"),
                "eos-error" => a.eos_error = text(v) != Some("false"),
                "pad-right" => a.pad_right = self.byte(v),
                "contents" => a.contents = self.contents(v),
                "encoding" => a.encoding = text(v).map(str::to_string),
                "enum" => {
                    a.enum_ = text(v).map(|s| EnumRef {
                        path: s.split("::").map(str::to_string).collect(),
                        found: None,
                    })
                }
                "process" => a.process = self.process(v),
                "valid" => a.valid = self.valid(v),
                "pos" if instance => a.pos = self.expr(v),
                "io" if instance => a.io = self.expr(v),
                "value" if instance => a.value = self.expr(v),
                k if k.starts_with('-') => {}
                "parent" | "to-string" => {}
                k => self.err(*ks, format!("unknown key {k:?}")),
            }
        }
        if let Some((r, rs)) = repeat {
            a.repeat = match r.as_str() {
                "eos" => Repeat::Eos,
                "expr" => match rexpr {
                    Some(e) => Repeat::Expr(e),
                    None => {
                        self.err(rs, "repeat: expr needs repeat-expr");
                        Repeat::No
                    }
                },
                "until" => match runtil {
                    Some(e) => Repeat::Until(e),
                    None => {
                        self.err(rs, "repeat: until needs repeat-until");
                        Repeat::No
                    }
                },
                _ => {
                    self.err(rs, "repeat is eos, expr or until");
                    Repeat::No
                }
            };
        }
        if a.id.is_empty() {
            a.id = String::from("_unnamed");
        }
        Some(a)
    }

    fn byte(&mut self, y: &Y) -> Option<u8> {
        match self.expr(y) {
            Some(Expr::Int(v)) if (0..=255).contains(&v) => Some(v as u8),
            Some(_) => {
                self.err(start(y), "a byte is 0 to 255");
                None
            }
            None => None,
        }
    }

    fn contents(&mut self, y: &Y) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let items: Vec<&Y> = match y {
            Y::Seq { items, .. } => items.iter().collect(),
            other => vec![other],
        };
        for it in items {
            match it {
                Y::Scalar { text, quoted, .. } => {
                    let as_int = if *quoted {
                        None
                    } else {
                        match expr::parse(text) {
                            Ok(Expr::Int(v)) => Some(v),
                            _ => None,
                        }
                    };
                    match as_int {
                        Some(v) if (0..=255).contains(&v) => out.push(v as u8),
                        Some(_) => self.err(start(it), "a byte is 0 to 255"),
                        None => out.extend_from_slice(text.as_bytes()),
                    }
                }
                _ => self.err(start(it), "contents are bytes and strings"),
            }
        }
        Some(out)
    }

    fn process(&mut self, y: &Y) -> Option<Process> {
        let s = text(y)?;
        let (name, arg) = match s.strip_suffix(')').and_then(|t| t.split_once('(')) {
            Some((name, inner)) => (name, Some(inner.to_string())),
            _ => (s, None),
        };
        let arg_expr = |r: &mut Reader| match &arg {
            Some(a) => match expr::parse(a) {
                Ok(e) => Some(e),
                Err(at) => {
                    r.err(start(y) + at as u64, format!("process argument {a:?}"));
                    None
                }
            },
            None => {
                r.err(start(y), format!("process {name} needs an argument"));
                None
            }
        };
        match name.trim() {
            "zlib" => Some(Process::Zlib),
            "xor" => arg_expr(self).map(Process::Xor),
            "rol" => arg_expr(self).map(|e| Process::Rotate(true, e)),
            "ror" => arg_expr(self).map(|e| Process::Rotate(false, e)),
            other => {
                self.err(
                    start(y),
                    format!("process {other:?} is not supported (zlib, xor, rol, ror are)"),
                );
                None
            }
        }
    }

    fn valid(&mut self, y: &Y) -> Option<Valid> {
        let mut v = Valid::default();
        match y {
            Y::Scalar { .. } => v.eq = self.expr(y),
            Y::Map { entries, .. } => {
                for (k, ks, _, e) in entries {
                    match k.as_str() {
                        "eq" => v.eq = self.expr(e),
                        "min" => v.min = self.expr(e),
                        "max" => v.max = self.expr(e),
                        "expr" => v.expr = self.expr(e),
                        "any-of" => {
                            if let Y::Seq { items, .. } = e {
                                for it in items {
                                    if let Some(x) = self.expr(it) {
                                        v.any_of.push(x);
                                    }
                                }
                            }
                        }
                        "in-enum" => match e {
                            Y::Scalar { text, .. } if text == "true" => v.in_enum = true,
                            Y::Scalar { text, .. } if text == "false" => {}
                            _ => self.err(start(e), "in-enum is true or false"),
                        },
                        k => self.err(*ks, format!("unknown key {k:?} in valid")),
                    }
                }
            }
            _ => self.err(start(y), "valid is an expression or a mapping"),
        }
        Some(v)
    }

    /// Every type and enum that attributes name exists; each attribute's
    /// enum is kept with it.
    fn check(&mut self, _root: usize) {
        let mut problems = Vec::new();
        let mut found = Vec::new();
        for (ti, t) in self.spec.types.iter().enumerate() {
            for (ai, a) in t.seq.iter().chain(&t.instances).enumerate() {
                let mut tys = vec![&a.ty];
                while let Some(ty) = tys.pop() {
                    match ty {
                        Type::User { path, .. } if self.spec.lookup(ti, path).is_none() => {
                            problems.push((a.at, format!("unknown type {:?}", path.join("::"))));
                        }
                        Type::Switch { cases, .. } => tys.extend(cases.iter().map(|c| &c.1)),
                        _ => {}
                    }
                }
                if let Some(e) = &a.enum_ {
                    match self.spec.lookup_enum(ti, &e.path) {
                        Some(en) => found.push((ti, ai, en)),
                        None => {
                            problems.push((a.at, format!("unknown enum {:?}", e.path.join("::"))))
                        }
                    }
                }
            }
        }
        for (ti, ai, en) in found {
            if let Some(t) = self.spec.types.get_mut(ti) {
                let n = t.seq.len();
                let a = match ai.checked_sub(n) {
                    Some(i) => t.instances.get_mut(i),
                    None => t.seq.get_mut(ai),
                };
                if let Some(EnumRef { found, .. }) = a.and_then(|a| a.enum_.as_mut()) {
                    *found = Some(en);
                }
            }
        }
        for (at, m) in problems {
            self.err(at, m);
        }
    }
}

/// The value of `key` in a mapping.
fn field<'y>(y: &'y Y, key: &str) -> Option<&'y Y> {
    match y {
        Y::Map { entries, .. } => entries.iter().find(|e| e.0 == key).map(|e| &e.3),
        _ => None,
    }
}

/// A primitive type name: `u4`, `s2be`, `f8le`, `b12`, `str`, `strz`.
fn prim(s: &str) -> Option<Type> {
    if s == "str" {
        return Some(Type::Str { z: false });
    }
    if s == "strz" {
        return Some(Type::Str { z: true });
    }
    let (body, le) = if let Some(b) = s.strip_suffix("le") {
        (b, Some(true))
    } else if let Some(b) = s.strip_suffix("be") {
        (b, Some(false))
    } else {
        (s, None)
    };
    let mut cs = body.chars();
    let kind = cs.next()?;
    let n: u8 = cs.as_str().parse().ok()?;
    Some(Type::Prim(match kind {
        'u' if matches!(n, 1 | 2 | 4 | 8) => Prim::U(n, le),
        's' if matches!(n, 1 | 2 | 4 | 8) => Prim::S(n, le),
        'f' if matches!(n, 4 | 8) => Prim::F(n, le),
        'b' if (1..=64).contains(&n) => Prim::B(n, le),
        _ => return None,
    }))
}
