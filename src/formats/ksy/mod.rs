//! Kaitai Struct descriptions (`.ksy`) loaded at run time and interpreted
//! over the bytes: no code is generated. [`spec`] reads a description
//! (with the place of every error), [`expr`] parses its expressions, and
//! [`run`] reads the bytes as Kaitai's generated parsers do; the items it
//! makes become nodes here.
//!
//! The descriptions in use are set once for the process ([`install`]):
//! one applied to the file (`--ksy`), and those that join detection (a
//! formats folder), each found by the bytes its first attribute's
//! `contents` requires.

pub mod bind;
pub mod expr;
pub mod run;
pub mod spec;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::model::{Builder, Format, Gap, NodeId, Seq, Span, Step, Tree, Value};

pub use bind::Bound;
pub use spec::Spec;

/// The descriptions this process uses.
#[derive(Default)]
pub struct Installed {
    /// Applied to the whole file.
    pub forced: Option<Arc<Spec>>,
    /// Tried on files and payloads by their magic.
    pub detected: Vec<Arc<Spec>>,
    /// Bound to sections of containers (a formats folder's
    /// `bindings.yaml`).
    pub bound: Vec<(Bound, Arc<Spec>)>,
    /// The formats folders: where a description named without a folder
    /// is looked for ([`describe`]), and absolute imports.
    pub folders: Vec<PathBuf>,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Sets the descriptions for the process; only the first call counts.
pub fn install(i: Installed) {
    let _ = INSTALLED.set(i);
}

fn installed() -> Option<&'static Installed> {
    INSTALLED.get()
}

/// Reads a description; `search` are the folders absolute imports are
/// looked for in. Errors are `file:line:col: message`.
pub fn load(path: &Path, search: &[PathBuf]) -> Result<Arc<Spec>, Vec<String>> {
    spec::load(path, search).map(Arc::new)
}

/// The `.ksy` files of a folder, read; the errors of those that fail.
pub fn load_dir(dir: &Path, search: &[PathBuf]) -> (Vec<Arc<Spec>>, Vec<String>) {
    let mut specs = Vec::new();
    let mut errors = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return (specs, errors);
    };
    let mut paths: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ksy"))
        .collect();
    paths.sort();
    for p in paths {
        match load(&p, search) {
            Ok(s) => specs.push(s),
            Err(e) => errors.extend(e),
        }
    }
    (specs, errors)
}

/// True if a description that joins detection matches the bytes `d`
/// start with.
pub fn detect(d: &[u8]) -> bool {
    installed().is_some_and(|i| matching(i, d).is_some())
}

/// True if a description applies to the whole file (`--ksy`).
pub fn forced() -> bool {
    installed().is_some_and(|i| i.forced.is_some())
}

/// True if a description that joins detection names the extension of
/// the file `name` in its `meta/file-extension` (and the bytes `d` start
/// with its magic, if it has one): the file is read with it before any
/// other format is tried.
pub fn named(name: &str, d: &[u8]) -> bool {
    installed().is_some_and(|i| by_extension(i, name, d).is_some())
}

fn by_extension<'i>(i: &'i Installed, name: &str, d: &[u8]) -> Option<&'i Arc<Spec>> {
    let ext = Path::new(name).extension()?.to_str()?;
    i.detected.iter().find(|s| {
        s.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
            && s.magic.as_ref().is_none_or(|m| d.starts_with(m))
    })
}

/// The description bound to the ELF section `name`, if any.
pub fn bound_section(name: &str) -> Option<&'static Arc<Spec>> {
    let i = installed()?;
    i.bound
        .iter()
        .find(|(b, _)| matches!(b, Bound::ElfSection(n) if n == name))
        .map(|(_, s)| s)
}

/// The description bound to XCLBIN sections of `kind`, if any.
pub fn bound_kind(kind: u32) -> Option<&'static Arc<Spec>> {
    let i = installed()?;
    i.bound
        .iter()
        .find(|(b, _)| *b == Bound::XclbinKind(kind))
        .map(|(_, s)| s)
}

/// Opens `[off, off+len)` under `node` (a section) with `spec`, in place:
/// the node is marked as the start of a description's format.
pub fn open_bound(b: &mut Builder<'_>, node: NodeId, at: Span, spec: &Arc<Spec>) {
    b.set_format(node, Format::Ksy);
    b.gaps(node, Gap::Unknown);
    apply(b, node, at, spec);
}

/// Reads the description `name` (a `.ksy` path, or a file of the formats
/// folders, `.ksy` optional) and reads node `id`'s bytes with it: a new
/// child of the node covers them, the description's tree under it, as a
/// nested format opens in place. Returns the child and the description's
/// path; errors are `file:line:col: message` lines.
pub fn describe(tree: &mut Tree, id: NodeId, name: &str) -> Result<(NodeId, PathBuf), String> {
    let folders: &[PathBuf] = installed().map_or(&[], |i| &i.folders);
    let path = find(name, folders).ok_or_else(|| {
        format!("{name}: no such description (a .ksy path, or a file of the formats folder)")
    })?;
    let mut search = folders.to_vec();
    if let Some(d) = path.parent() {
        search.push(d.to_path_buf());
    }
    let spec = load(&path, &search).map_err(|e| e.join("\n"))?;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let g = tree
        .graft(id, &spec.id, &mut |b, g, off, len| {
            b.set_format(g, Format::Ksy);
            b.gaps(g, Gap::Unknown);
            b.set_value(g, Value::text(format!("described by {file}")));
            let at = b.span(off, len);
            apply(b, g, at, &spec);
        })
        .ok_or_else(|| "no such node".to_string())?;
    Ok((g, path))
}

/// Where the description `name` is: as a path (relative to the working
/// folder), else in one of `folders`, with or without `.ksy`.
fn find(name: &str, folders: &[PathBuf]) -> Option<PathBuf> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let given = Path::new(name);
    let with_ext = given.with_extension("ksy");
    let here = [given.to_path_buf(), with_ext.clone()];
    let there = folders
        .iter()
        .flat_map(|d| [d.join(given), d.join(&with_ext)]);
    here.into_iter()
        .chain(there)
        .find(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}

fn matching<'i>(i: &'i Installed, d: &[u8]) -> Option<&'i Arc<Spec>> {
    i.detected.iter().find(|s| {
        s.magic
            .as_ref()
            .is_some_and(|m| !m.is_empty() && d.starts_with(m))
    })
}

/// Parses `at` under `parent` with the description that applies there.
pub fn parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    let Some(i) = installed() else {
        return;
    };
    let top = b.node(parent).is_some_and(|n| n.parent.is_none()) && b.space() == crate::model::FILE;
    let d = b.bytes(at);
    let named = || {
        let name = b.node(parent).map_or("", |n| n.name.as_str());
        by_extension(i, name, d)
    };
    let spec = match (&i.forced, top) {
        (Some(s), true) => s.clone(),
        (None, true) if named().is_some() => match named() {
            Some(s) => s.clone(),
            None => return,
        },
        _ => match matching(i, d) {
            Some(s) => s.clone(),
            None => return,
        },
    };
    apply(b, parent, at, &spec);
}

/// What a run returned, its items, its problems and its derived bytes.
type Ran<T> = (T, Vec<run::Item>, Vec<run::Fail>, Vec<Arc<[u8]>>);

/// What the nodes of one reading of a description share: the
/// description, and the interpreter's state for the nodes built when
/// opened.
struct Shared {
    spec: Arc<Spec>,
    st: Mutex<run::State>,
    /// Where the bytes read start: problems with no place in the data are
    /// shown there.
    root: u64,
    /// An emptied list of items, for the next run to fill rather than
    /// grow a new one (an element of a repeat is a run).
    spare: Mutex<Vec<run::Item>>,
}

impl Shared {
    /// Runs `f` with an interpreter over `data` and the shared state, then
    /// keeps the state; returns what `f` returned and the run's items,
    /// problems and derived bytes.
    fn run<T>(&self, data: &[u8], f: impl FnOnce(&mut run::Run<'_>) -> T) -> Ran<T> {
        let mut guard = self
            .st
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let st = std::mem::take(&mut *guard);
        let mut r = run::Run::new(&self.spec, data, st);
        if let Ok(mut s) = self.spare.lock() {
            r.items = std::mem::take(&mut *s);
        }
        let out = f(&mut r);
        let items = std::mem::take(&mut r.items);
        let fails = std::mem::take(&mut r.diags);
        let derived = r.st.derived.clone();
        *guard = r.st;
        (out, items, fails, derived)
    }

    /// Takes back the items of a run, once emitted.
    fn give_back(&self, mut items: Vec<run::Item>) {
        if items.capacity() > SPARE_ITEMS {
            return;
        }
        items.clear();
        if let Ok(mut s) = self.spare.lock() {
            *s = items;
        }
    }
}

/// The largest list of items kept for the next run.
const SPARE_ITEMS: usize = 1 << 12;

/// Runs `spec` over `at` and adds what it reads under `parent`.
pub fn apply(b: &mut Builder<'_>, parent: NodeId, at: Span, spec: &Arc<Spec>) {
    let sh = Arc::new(Shared {
        spec: spec.clone(),
        st: Mutex::new(run::State::default()),
        root: at.offset,
        spare: Mutex::new(Vec::new()),
    });
    // The main file's top-level type is the first read.
    let (res, mut items, fails, derived) = sh.run(b.data(), |r| r.root(0, at.offset, at.len));
    // Instances read elsewhere, not yet read: no gap leaves at the top.
    if spec
        .types
        .iter()
        .any(|t| t.instances.iter().any(|a| a.pos.is_some()))
    {
        b.gaps(parent, Gap::Off);
    }
    extent(&mut items, 0, 0);
    let kids = items.first().map(|i| i.kids.clone()).unwrap_or_default();
    for k in kids {
        emit(b, parent, &mut items, &derived, k, at, &sh);
    }
    for f in fails {
        report(b, f, at.offset, true);
    }
    if let Err(f) = res {
        report(b, f, at.offset, false);
    }
}

/// Builds the node `id` of instance `k` of `obj` when it is opened: its
/// range and value are the instance's, its children what it reads.
fn open_instance(sh: &Arc<Shared>, b: &mut Builder<'_>, id: NodeId, obj: &Arc<run::Obj>, k: usize) {
    let (res, mut items, fails, derived) = sh.run(b.data(), |r| r.open_instance(obj, k));
    extent(&mut items, 0, 0);
    let top = items.first().and_then(|i| i.kids.first().copied());
    if let Some(it) = top.and_then(|t| items.get_mut(t)) {
        b.set_range(id, it.off, it.size);
        if let Some(v) = it.value.take() {
            b.set_value(id, v);
        }
        if it.group {
            b.gaps(id, if it.grown { Gap::Off } else { Gap::Unknown });
        }
        let (off, size) = (it.off, it.size);
        let kids = std::mem::take(&mut it.kids);
        let later = it.take_later();
        for c in kids {
            emit(b, id, &mut items, &derived, c, b.span(off, size), sh);
        }
        if let Some(run::Later::Repeat { .. }) = &later {
            if let Some(seq) = later.and_then(|l| elements(sh, l)) {
                b.seq_now(id, seq);
            }
        }
    }
    for f in fails {
        report(b, f, sh.root, true);
    }
    if let Err(f) = res {
        report(b, f, sh.root, true);
    }
}

/// The elements of a repeat, read a group at a time as they are opened.
fn elements(sh: &Arc<Shared>, later: run::Later) -> Option<Seq> {
    let run::Later::Repeat {
        obj,
        attr,
        io,
        marks,
        count,
        stop,
    } = later
    else {
        return None;
    };
    let sh = sh.clone();
    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
        let (res, mut items, fails, derived) =
            sh.run(b.data(), |r| r.open_element(&obj, attr, io, i, at));
        extent(&mut items, 0, 0);
        let kids = items
            .first_mut()
            .map(|i| std::mem::take(&mut i.kids))
            .unwrap_or_default();
        // The holder's range, in the space being built.
        let r = b.range(p);
        let holder = b.span(r.offset, r.len);
        for k in kids {
            emit(b, p, &mut items, &derived, k, holder, &sh);
        }
        sh.give_back(items);
        for f in fails {
            report(b, f, sh.root, true);
        }
        match res {
            Ok(end) => Some(end),
            Err(f) => {
                report(b, f, sh.root, false);
                None
            }
        }
    });
    Some(Seq::from_marks(marks, count, stop, step))
}

fn report(b: &mut Builder<'_>, f: run::Fail, root: u64, warn: bool) {
    let (at, note) = match f.at {
        Some((0, o)) => (o, ""),
        Some(_) => (root, " (in derived bytes)"),
        None => (root, ""),
    };
    let size = u64::from(at < b.file_len());
    let msg = format!("{}{note}", f.msg);
    if warn {
        b.warn(at, size, msg);
    } else {
        b.error(at, size, msg);
    }
}

/// Grows structures to cover their kids in the same space; returns the
/// range of item `id`.
fn extent(items: &mut [run::Item], id: usize, depth: usize) -> (u64, u64) {
    let Some(it) = items.get(id) else {
        return (0, 0);
    };
    let (mut lo, mut hi) = (it.off, it.off.saturating_add(it.size));
    if depth > 4 * run::MAX_DEPTH as usize {
        return (lo, hi);
    }
    let group = it.group;
    let space = it.space;
    let n = it.kids.len();
    for j in 0..n {
        let Some(&k) = items.get(id).and_then(|i| i.kids.get(j)) else {
            break;
        };
        let (s, e) = extent(items, k, depth + 1);
        let same = items.get(k).is_some_and(|c| c.space == space);
        if group && same {
            lo = lo.min(s);
            hi = hi.max(e);
        }
    }
    if let Some(it) = items.get_mut(id) {
        it.grown |= group && (lo, hi) != (it.off, it.off.saturating_add(it.size));
        it.off = lo;
        it.size = hi - lo;
    }
    (lo, hi)
}

fn emit(
    b: &mut Builder<'_>,
    parent: NodeId,
    items: &mut Vec<run::Item>,
    derived: &[Arc<[u8]>],
    id: usize,
    holder: Span,
    sh: &Arc<Shared>,
) {
    let Some(it) = items.get_mut(id) else {
        return;
    };
    let kids = std::mem::take(&mut it.kids);
    if let run::Extra::Derive(d) = &it.extra {
        let (k, method) = **d;
        let name = std::mem::take(&mut it.name);
        let bytes = derived
            .get(k.wrapping_sub(1))
            .map(|d| d.to_vec())
            .unwrap_or_default();
        let Some(node) = b.derive(parent, &name, holder, method, move |_, _| Ok(bytes)) else {
            return;
        };
        b.within(node, |b, n| {
            for c in kids {
                emit(b, n, items, derived, c, b.span(0, 0), sh);
            }
        });
        return;
    }
    let (off, size, group, grown) = (it.off, it.size, it.group, it.grown);
    let value = it.value.take();
    let name = std::mem::take(&mut it.name);
    let extra = std::mem::replace(&mut it.extra, run::Extra::None);
    let node = b.add(parent, name, off, size, value);
    // An instance read with its element: as its node would be opened.
    let later = match extra {
        run::Extra::Later(l) => Some(*l),
        run::Extra::Placed(o, n) => {
            b.place_later(node, o, u64::from(n));
            None
        }
        run::Extra::PlacedFar(r) => {
            b.place_later(node, r.0, r.1);
            None
        }
        run::Extra::None | run::Extra::Derive(_) => None,
    };
    if group {
        // A structure that gathers instances read elsewhere has no gaps:
        // the bytes between are not its own.
        b.gaps(node, if grown { Gap::Off } else { Gap::Unknown });
    }
    for c in kids {
        emit(b, node, items, derived, c, b.span(off, size), sh);
    }
    match later {
        Some(run::Later::Instance(obj, k)) => {
            let sh = sh.clone();
            b.lazy_self(
                node,
                Arc::new(move |b: &mut Builder<'_>, id| open_instance(&sh, b, id, &obj, k)),
            );
        }
        Some(l @ run::Later::Repeat { .. }) => {
            if let Some(seq) = elements(sh, l) {
                b.seq(node, seq);
            }
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Source;

    fn nothing(_: &mut Builder<'_>, _: NodeId, _at: Span) -> Option<Format> {
        None
    }

    /// A tree over `data` with the description `ksy` applied to its root;
    /// returns the tree and the description's node.
    fn described(data: Vec<u8>, ksy: &str) -> (Tree, NodeId, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.ksy");
        std::fs::write(&path, ksy).unwrap();
        let mut tree = Tree::build(Arc::new(Source::from_vec(data)), "data", nothing);
        let root = tree.root();
        let (g, _) = describe(&mut tree, root, path.to_str().unwrap()).unwrap();
        (tree, g, dir)
    }

    fn child(tree: &mut Tree, id: NodeId, name: &str) -> NodeId {
        let kids = tree.children(id);
        *kids.iter().find(|&&k| tree.name(k) == name).unwrap()
    }

    #[test]
    fn an_instance_is_read_when_its_node_is_opened() {
        let ksy = "meta: {id: t, endian: le}\nseq:\n  - {id: a, type: u1}\ninstances:\n  far: {pos: 100, type: u4}\n  near: {pos: 2, type: u2}\n";
        let (mut tree, g, _d) = described(vec![1, 2, 3, 4], ksy);
        let far = child(&mut tree, g, "far");
        let near = child(&mut tree, g, "near");
        // Not read yet: no diagnostic, no value, a child to open.
        assert!(tree.diagnostics().is_empty(), "{:?}", tree.diagnostics());
        assert!(tree.has_children(far));
        assert_eq!(tree.value_text(near), None);
        tree.expand(near);
        assert_eq!(tree.value_text(near).as_deref(), Some("1027 (0x403)"));
        let n = tree.node(near).unwrap();
        assert_eq!((n.offset, n.size), (2, 2));
        assert!(tree.diagnostics().is_empty());
        tree.expand(far);
        let d = tree.diagnostics();
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("bytes asked for"), "{d:?}");
    }

    #[test]
    fn sizes_of_types_and_of_what_was_read() {
        let ksy = "meta: {id: t, endian: le}\nseq:\n  - {id: h, type: hdr}\n  - {id: name, type: strz, encoding: ASCII}\ntypes:\n  hdr:\n    seq:\n      - {id: magic, contents: [1, 2]}\n      - {id: a, type: u4}\n      - {id: b, type: b4}\n      - {id: c, type: b4}\n      - {id: d, type: u1, repeat: expr, repeat-expr: 3}\n      - {id: e, size: 2}\n  var:\n    seq:\n      - {id: n, type: u1}\n      - {id: m, size: n}\ninstances:\n  fixed: {value: sizeof<hdr>}\n  prim: {value: sizeof<u8be>}\n  whole: {value: _sizeof}\n  of_h: {value: h._sizeof}\n  of_name: {value: name._sizeof}\n  not_fixed: {value: sizeof<var>}\n";
        let mut data = vec![1, 2, 0, 0, 0, 0, 0x12, 9, 9, 9, 5, 5];
        data.extend_from_slice(b"abc\0");
        let (mut tree, g, _d) = described(data, ksy);
        for (name, want) in [
            ("fixed", "12 (0xc)"),
            ("prim", "8"),
            ("whole", "16 (0x10)"),
            ("of_h", "12 (0xc)"),
            ("of_name", "4"),
        ] {
            let n = child(&mut tree, g, name);
            tree.expand(n);
            assert_eq!(tree.value_text(n).as_deref(), Some(want), "{name}");
        }
        assert!(tree.diagnostics().is_empty(), "{:?}", tree.diagnostics());
        let n = child(&mut tree, g, "not_fixed");
        tree.expand(n);
        let d = tree.diagnostics();
        assert!(
            d.iter()
                .any(|d| d.message.contains("sizeof<var>: its size is not fixed")),
            "{d:?}"
        );
    }

    #[test]
    fn a_long_repeat_is_built_a_group_at_a_time() {
        let ksy = "meta: {id: t, endian: le}\nseq:\n  - {id: items, type: item, repeat: eos}\ntypes:\n  item:\n    seq:\n      - {id: x, type: u1}\n      - {id: y, type: u1}\n";
        let (mut tree, g, _d) = described(vec![7; 5000], ksy);
        let items = child(&mut tree, g, "items");
        assert_eq!(tree.value_text(items).as_deref(), Some("2500 items"));
        assert!(!tree.is_built(items));
        let before = tree.len();
        let groups = tree.children(items);
        assert_eq!(groups.len(), 3);
        // Only the groups are built: none of the 2500 items.
        assert!(tree.len() - before < 10, "{}", tree.len() - before);
        let last = *groups.last().unwrap();
        assert_eq!(tree.name(last), "[2000..2500)");
        let first = tree.children(last)[0];
        assert_eq!(tree.name(first), "[2000]");
        let n = tree.node(first).unwrap();
        assert_eq!((n.offset, n.size), (4000, 2));
        let y = child(&mut tree, first, "y");
        assert_eq!(tree.node(y).unwrap().offset, 4001);
    }
}
