//! DWARF debugging information entries against `readelf --debug-dump=info`:
//! every entry's offset, depth, abbreviation code and tag, every null
//! entry, every attribute's offset, name and value, for files gcc, g++ and
//! clang-22 write (DWARF 2, 4 and 5; shared libraries, and object files
//! whose offsets into the string sections are relocations). References
//! link to the entry they name, strings to their bytes. Damaged entries
//! are diagnosed where they are, and the entries before them stay.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::tree::{kids, value};
use fwview::model::{NodeId, Tree};

/// One line of readelf's listing of the entries.
#[derive(Clone, Debug, PartialEq)]
enum Item {
    Entry {
        depth: usize,
        off: u64,
        code: u64,
        tag: String,
    },
    Null {
        depth: usize,
        off: u64,
    },
    Attr {
        off: u64,
        name: String,
        value: String,
    },
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16)
        .unwrap_or_else(|_| panic!("no hex in {s:?}"))
}

/// What `readelf DUMP path` prints.
fn readelf(dump: &str, path: &Path) -> String {
    let out = Command::new("readelf")
        .arg(dump)
        .arg(path)
        .output()
        .expect("readelf runs");
    assert!(out.status.success(), "readelf {dump} {}", path.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The entries readelf lists, in its order; the null entries at the top
/// of a unit (padding after its last entry) left out.
fn readelf_items(path: &Path) -> Vec<Item> {
    let text = readelf("--debug-dump=info", path);
    let mut items = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('<') else {
            continue;
        };
        let (first, rest) = rest.split_once('>').unwrap();
        if let Some(rest) = rest.strip_prefix('<') {
            // ` <1><2e>: Abbrev Number: 6 (DW_TAG_structure_type)`
            let depth: usize = first.parse().unwrap();
            let (off, rest) = rest.split_once(">: Abbrev Number: ").unwrap();
            let (code, tag) = rest.split_once(' ').unwrap_or((rest, ""));
            let code: u64 = code.parse().unwrap();
            let off = hex(off);
            if code == 0 {
                if depth > 0 {
                    items.push(Item::Null { depth, off });
                }
                continue;
            }
            let tag = spec_name(tag.trim_start_matches('(').trim_end_matches(')')).to_string();
            items.push(Item::Entry {
                depth,
                off,
                code,
                tag,
            });
        } else {
            // `    <2f>   DW_AT_name        : P`
            let (name, value) = rest.split_once(':').unwrap();
            items.push(Item::Attr {
                off: hex(first),
                name: spec_name(name.trim()).to_string(),
                value: value.strip_prefix(' ').unwrap_or(value).to_string(),
            });
        }
    }
    items
}

/// The name the DWARF standard gives where binutils keeps an older one.
fn spec_name(readelf: &str) -> &str {
    match readelf {
        "DW_TAG_template_type_param" => "DW_TAG_template_type_parameter",
        "DW_TAG_template_value_param" => "DW_TAG_template_value_parameter",
        n => n,
    }
}

/// The node of the section named `name`.
fn section(t: &mut Tree, name: &str) -> NodeId {
    let root = t.root();
    let sections = common::tree::child(t, root, "sections").expect("sections");
    let end = format!("] {name}");
    t.children(sections)
        .into_iter()
        .find(|&k| t.name(k).ends_with(&end))
        .unwrap_or_else(|| panic!("no {name}"))
}

/// The `.debug_info` section's node (`.debug_info.dwo` in a `.dwo` file)
/// and its file offset.
fn debug_info(t: &mut Tree) -> (NodeId, u64) {
    let root = t.root();
    let sections = common::tree::child(t, root, "sections").expect("sections");
    let dwo = t
        .children(sections)
        .into_iter()
        .any(|k| t.name(k).ends_with("] .debug_info.dwo"));
    let sec = section(
        t,
        if dwo {
            ".debug_info.dwo"
        } else {
            ".debug_info"
        },
    );
    let at = t.node(sec).unwrap().offset;
    (sec, at)
}

/// Our entries in the order readelf lists them, each with its node.
fn our_items(t: &mut Tree) -> Vec<(Item, NodeId)> {
    let (sec, base) = debug_info(t);
    let mut out = Vec::new();
    for unit in kids(t, sec) {
        let entries = common::tree::child(t, unit, "entries").expect("entries");
        for e in kids(t, entries) {
            if t.name(e).starts_with("DW_TAG_") {
                walk(t, e, 0, base, &mut out);
            }
        }
    }
    out
}

fn walk(t: &mut Tree, e: NodeId, depth: usize, base: u64, out: &mut Vec<(Item, NodeId)>) {
    let off = t.node(e).unwrap().offset - base;
    let abbrev = common::tree::child(t, e, "abbrev").expect("abbrev");
    out.push((
        Item::Entry {
            depth,
            off,
            code: common::json::lead(&value(t, abbrev)),
            tag: t.name(e).to_string(),
        },
        e,
    ));
    for k in kids(t, e) {
        let name = t.name(k).to_string();
        let at = t.node(k).unwrap().offset - base;
        if name.starts_with("DW_TAG_") {
            walk(t, k, depth + 1, base, out);
        } else if name == "null" {
            out.push((
                Item::Null {
                    depth: depth + 1,
                    off: at,
                },
                k,
            ));
        } else if name != "abbrev" {
            out.push((
                Item::Attr {
                    off: at,
                    name,
                    value: value(t, k),
                },
                k,
            ));
        }
    }
}

/// The number a value starts with, signed: `0x4c`, `-2`, `29 (C11)`.
fn number(s: &str) -> Option<i128> {
    let w = s.split_whitespace().next()?.trim_end_matches(':');
    match w.strip_prefix("0x") {
        Some(h) => i128::from_str_radix(h, 16).ok(),
        None => w.parse().ok(),
    }
}

/// readelf's string or address without the note of where it is kept.
fn their_string(v: &str) -> &str {
    for p in [
        "(indirect string, offset: ",
        "(indirect line string, offset: ",
        "(indexed string: ",
        "(index: ",
    ] {
        if let Some(r) = v.strip_prefix(p) {
            return r.split_once("): ").map_or(r, |x| x.1);
        }
    }
    v
}

/// The operation names of a location expression: readelf's are in
/// parentheses after the bytes, ours are the value.
fn ops(s: &str) -> Vec<&str> {
    let s = match s.find("(DW_OP") {
        Some(i) => {
            let s = s[i + 1..].trim_end();
            s.strip_suffix(')').unwrap_or(s)
        }
        None => s,
    };
    s.split("; ")
        .map(|o| {
            let o = o.split(':').next().unwrap_or(o);
            o.split(" <").next().unwrap_or(o).trim()
        })
        .collect()
}

/// Compares every entry of `path` with readelf's listing; returns how
/// many attributes were compared.
fn compare(label: &str, path: &Path) -> usize {
    let want = readelf_items(path);
    let data = std::fs::read(path).unwrap();
    let mut t = common::tree::expanded(data.clone());
    let (_, base) = debug_info(&mut t);
    let got = our_items(&mut t);
    assert!(!want.is_empty(), "{label}: readelf lists entries");
    // Where each entry is and how far it reaches, for the links.
    let extent: HashMap<u64, u64> = got
        .iter()
        .filter(|(i, _)| matches!(i, Item::Entry { .. }))
        .map(|(i, id)| match i {
            Item::Entry { off, .. } => (*off, t.node(*id).unwrap().size),
            _ => unreachable!(),
        })
        .collect();
    let mut attrs = 0;
    for (k, (w, (g, id))) in want.iter().zip(&got).enumerate() {
        let here = format!("{label}: item {k}, readelf {w:?}, fwview {g:?}");
        if let Item::Entry { code, .. } = g {
            // The code links to its declaration in .debug_abbrev, which
            // starts with the same code.
            let a = common::tree::child(&mut t, *id, "abbrev").unwrap();
            let l = t
                .link(a)
                .unwrap_or_else(|| panic!("{here}: abbrev links nowhere"));
            let mut r = &data[l.offset as usize..(l.offset + l.len) as usize];
            assert_eq!(uleb(&mut r), *code, "{here}");
        }
        match (w, g) {
            (
                Item::Attr {
                    off: wo,
                    name: wn,
                    value: wv,
                },
                Item::Attr {
                    off: go,
                    name: gn,
                    value: gv,
                },
            ) => {
                assert_eq!((wo, wn), (go, gn), "{here}");
                attrs += 1;
                let link = t.link(*id);
                if let Some(r) = wv.strip_prefix("<0x") {
                    // A reference: the entry's offset, linked to all of it.
                    let to = hex(r.trim_end_matches('>'));
                    assert_eq!(number(gv), Some(to as i128), "{here}");
                    let l = link.unwrap_or_else(|| panic!("{here}: no link"));
                    assert_eq!(l.offset, base + to, "{here}");
                    if let Some(&n) = extent.get(&to) {
                        assert_eq!(l.len, n, "{here}");
                    }
                } else if let (Some(a), Some(b)) = (gv.find('"'), gv.rfind('"')) {
                    let ours = &gv[a + 1..b];
                    assert_eq!(ours, their_string(wv).trim_end(), "{here}");
                    if let Some(l) = link {
                        // The string's bytes and its NUL.
                        let s = &data[l.offset as usize..(l.offset + l.len) as usize];
                        assert_eq!(s, [ours.as_bytes(), b"\0"].concat(), "{here}");
                    } else {
                        assert!(
                            !wv.starts_with("(indirect"),
                            "{here}: a string in a section links to it"
                        );
                    }
                } else if gv.starts_with("DW_OP_") {
                    assert_eq!(ops(gv), ops(wv), "{here}");
                } else {
                    assert_eq!(number(gv), number(their_string(wv)), "{here}");
                }
            }
            _ => assert_eq!(w, g, "{here}"),
        }
    }
    assert_eq!(got.len(), want.len(), "{label}: items");
    attrs
}

/// Reads an unsigned LEB128 number from the front of `r`.
fn uleb(r: &mut &[u8]) -> u64 {
    let mut v = 0u64;
    for (k, &b) in r.iter().enumerate() {
        v |= u64::from(b & 0x7f) << (7 * k);
        if b & 0x80 == 0 {
            *r = &r[k + 1..];
            return v;
        }
    }
    panic!("LEB128 runs off the end");
}

/// readelf's `--debug-dump=abbrev` as lines: `table OFFSET`, `CODE TAG
/// has|no`, `ATTRIBUTE FORM[: CONSTANT]`.
fn readelf_abbrevs(path: &Path) -> Vec<String> {
    let text = readelf("--debug-dump=abbrev", path);
    let mut v = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        if let Some(off) = t.strip_prefix("Number TAG (") {
            v.push(format!("table 0x{:x}", hex(off.trim_end_matches(')'))));
        } else if t.starts_with("DW_AT value: 0") {
            continue;
        } else if t.starts_with("DW_AT") {
            let mut w = t.split_whitespace();
            let name = spec_name(w.next().unwrap());
            let rest: Vec<&str> = w.collect();
            v.push(format!("{name} {}", rest.join(" ")));
        } else if let Some((code, rest)) = t.split_once(' ') {
            let Ok(code) = code.parse::<u64>() else {
                continue;
            };
            let mut w = rest.split_whitespace();
            let tag = spec_name(w.next().unwrap());
            let kids = if rest.contains("[has children]") {
                "has"
            } else {
                "no"
            };
            v.push(format!("{code} {tag} {kids}"));
        }
    }
    v
}

/// Ours, as the same lines.
fn our_abbrevs(t: &mut Tree) -> Vec<String> {
    let sec = section(t, ".debug_abbrev");
    let base = t.node(sec).unwrap().offset;
    let mut v = Vec::new();
    for table in kids(t, sec) {
        v.push(format!(
            "table 0x{:x}",
            t.node(table).unwrap().offset - base
        ));
        for d in kids(t, table) {
            if t.name(d) == "null" {
                continue;
            }
            let code = t.name(d).strip_prefix("abbrev ").unwrap().to_string();
            let tag_node = common::tree::at(t, d, "tag");
            let tag_value = value(t, tag_node);
            let tag = tag_value.split_once(" (").unwrap().1.trim_end_matches(')');
            let kids_node = common::tree::at(t, d, "children");
            let has = if value(t, kids_node).contains("has children") {
                "has"
            } else {
                "no"
            };
            v.push(format!("{code} {tag} {has}"));
            for k in kids(t, d) {
                let n = t.name(k).to_string();
                if n.starts_with("DW_AT") {
                    v.push(format!("{n} {}", value(t, k)));
                }
            }
        }
    }
    v
}

#[test]
fn abbreviation_tables_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("gcc") || !common::tool("g++") {
        return;
    }
    let dir = sources();
    let mut files = Vec::new();
    for v in ["-gdwarf-2", "-gdwarf-4", "-gdwarf-5"] {
        files.push(compile(
            dir.path(),
            "gcc",
            &["-shared", "-fPIC", "-O2", v, "a.c", "b.cc"],
            &format!("ab{v}.so"),
        ));
    }
    if common::tool("clang-22") {
        files.push(compile(
            dir.path(),
            "clang-22",
            &["-x", "c++", "-O1", "-g", "-c", "b.cc"],
            "clang.o",
        ));
    }
    for f in files {
        let want = readelf_abbrevs(&f);
        let mut t = common::tree::expanded(std::fs::read(&f).unwrap());
        let got = our_abbrevs(&mut t);
        assert!(want.len() > 20, "{}: {want:?}", f.display());
        assert_eq!(got, want, "{}", f.display());
    }
}

const C: &str = r#"
struct point { int x; char *name; unsigned bits : 3; };
enum colour { RED = 1, DARK = -2 };
static int counter;
int table[4][2];
enum colour shade;
static inline int twice(int v) { return v * 2; }
int walk(struct point *p, int n) {
    int sum = 0;
    for (int i = 0; i < n; i++) sum += twice(p[i].x) + (p[i].bits ? counter++ : 0);
    return sum;
}
"#;

const CXX: &str = r#"
namespace geo {
template <typename T, int N> struct vec { T v[N]; T at(int i) const { return v[i]; } };
class shape { public: virtual ~shape(); virtual double area() const = 0; protected: int id = 7; };
class square : public shape { double s; public: explicit square(double s) : s(s) {} double area() const override { return s * s; } };
shape::~shape() {}
}
double total(const geo::shape &a, geo::vec<float, 3> v) { return a.area() + v.at(1); }
geo::square make() { return geo::square(2.0); }
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A scratch directory with the C and C++ sources, `a.c` and `b.cc`.
fn sources() -> tempfile::TempDir {
    let dir = common::scratch();
    write(dir.path(), "a.c", C);
    write(dir.path(), "b.cc", CXX);
    dir
}

/// Runs `cc args`, writing `out` in `dir`.
fn compile(dir: &Path, cc: &str, args: &[&str], out: &str) -> PathBuf {
    let o = dir.join(out);
    let st = Command::new(cc)
        .args(args)
        .arg("-o")
        .arg(&o)
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(st.success(), "{cc} {args:?}");
    o
}

#[test]
fn entries_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("gcc") || !common::tool("g++") {
        return;
    }
    let dir = sources();
    let mut total = 0;
    for v in ["-gdwarf-2", "-gdwarf-4", "-gdwarf-5"] {
        for opt in ["-O0", "-O2"] {
            let lib = compile(
                dir.path(),
                "gcc",
                &["-shared", "-fPIC", opt, v, "a.c"],
                &format!("c{v}{opt}.so"),
            );
            total += compare(&format!("gcc {v} {opt}"), &lib);
        }
        let obj = compile(
            dir.path(),
            "g++",
            &["-c", "-O1", v, "b.cc"],
            &format!("cxx{v}.o"),
        );
        total += compare(&format!("g++ {v}"), &obj);
    }
    // clang-22 writes DWARF 5 with indexed strings and addresses
    // (.debug_str_offsets, .debug_addr): in objects, relocated.
    if common::tool("clang-22") {
        for target in [
            "x86_64-linux-gnu",
            "i386-linux-gnu",
            "riscv64-linux-gnu",
            "s390x-linux-gnu",
        ] {
            for (src, lang) in [("a.c", "c"), ("b.cc", "c++")] {
                let obj = compile(
                    dir.path(),
                    "clang-22",
                    &[
                        &format!("--target={target}"),
                        "-x",
                        lang,
                        "-O1",
                        "-g",
                        "-ffreestanding",
                        "-c",
                        src,
                    ],
                    &format!("{target}-{lang}.o"),
                );
                total += compare(&format!("clang-22 {target} {lang}"), &obj);
            }
        }
    }
    assert!(total > 1000, "{total} attributes compared");
}

/// Entries (offset in the section, tag) and string attributes (name,
/// string), in order.
pub(crate) type Listed = (Vec<(u64, String)>, Vec<(String, String)>);

/// What `llvm-dwarfdump-22 --debug-info` lists of a file: each entry's
/// offset in its section and tag, and each attribute whose value is a
/// string with that string, in order.
pub(crate) fn dwarfdump_entries(path: &Path) -> Listed {
    let out = Command::new("llvm-dwarfdump-22")
        .arg("--debug-info")
        .arg(path)
        .output()
        .expect("llvm-dwarfdump-22 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (mut tags, mut strings) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let tag = line
            .split_once(':')
            .filter(|(off, rest)| off.starts_with("0x") && rest.trim().starts_with("DW_TAG_"));
        if let Some((off, rest)) = tag {
            tags.push((hex(off), rest.trim().to_string()));
        } else if let Some((name, value)) = line.trim_start().split_once('\t') {
            // A file index llvm-dwarfdump gives as the file's path.
            if name.ends_with("_file") {
                continue;
            }
            if let Some(v) = value
                .strip_prefix("(\"")
                .and_then(|v| v.strip_suffix("\")"))
            {
                strings.push((name.to_string(), v.to_string()));
            }
        }
    }
    (tags, strings)
}

/// The split units of `.dwo` files (`.debug_info.dwo`, their strings
/// through `.debug_str_offsets.dwo`) as llvm-dwarfdump-22 lists them:
/// gcc's and clang-22's, DWARF 4 (GNU's split DWARF) and 5. (readelf
/// 2.40 reads a DWARF 5 `.dwo`'s indexed strings without the offsets
/// table's header, so its names are off by one entry.)
#[test]
fn split_units_in_dwo_files_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") {
        return;
    }
    let dir = sources();
    let (mut entries, mut strings) = (0, 0);
    let mut builds = vec![("gcc", "-gdwarf-5"), ("gcc", "-gdwarf-4")];
    if common::tool("clang-22") {
        builds.extend([("clang-22", "-gdwarf-5"), ("clang-22", "-gdwarf-4")]);
    }
    for (cc, v) in builds {
        for (src, lang) in [("a.c", "c"), ("b.cc", "c++")] {
            let stem = format!("split-{cc}{v}-{lang}");
            compile(
                dir.path(),
                cc,
                &["-x", lang, "-O1", v, "-gsplit-dwarf", "-c", src],
                &format!("{stem}.o"),
            );
            let dwo = dir.path().join(format!("{stem}.dwo"));
            assert!(dwo.exists(), "{cc} {v} wrote no {}", dwo.display());
            let label = format!("{cc} {v} {lang}");
            let (want_tags, want_strings) = dwarfdump_entries(&dwo);
            let mut t = common::tree::expanded(std::fs::read(&dwo).unwrap());
            let (sec, base) = debug_info(&mut t);
            let (mut tags, mut strs) = (Vec::new(), Vec::new());
            let mut stack = vec![sec];
            while let Some(id) = stack.pop() {
                let mut kids = t.children(id);
                kids.reverse();
                stack.extend(kids);
                let name = t.name(id).to_string();
                let n = t.node(id).unwrap();
                if name.starts_with("DW_TAG_") {
                    tags.push((n.offset - base, name));
                } else if name.starts_with("DW_AT_") {
                    let v = t.value_text(id).unwrap_or_default();
                    if let (Some(a), Some(b)) = (v.find('"'), v.rfind('"')) {
                        if a < b {
                            strs.push((name, v[a + 1..b].to_string()));
                        }
                    }
                }
            }
            assert_eq!(tags, want_tags, "{label}: entries");
            assert_eq!(strs, want_strings, "{label}: strings");
            entries += tags.len();
            strings += strs.len();
        }
    }
    eprintln!(
        "{entries} entries and {strings} strings of 8 .dwo files equal to llvm-dwarfdump-22's"
    );
    assert!(
        entries > 100 && strings > 50,
        "{entries} entries, {strings} strings"
    );
}

/// The entries of a small gcc object, for the damage tests: its bytes and
/// where `.debug_info` starts.
fn small_object(dir: &Path) -> (Vec<u8>, u64) {
    write(dir, "a.c", C);
    let o = compile(dir, "gcc", &["-c", "-O1", "-gdwarf-4", "a.c"], "a.o");
    let data = std::fs::read(o).unwrap();
    let mut t = common::tree::expanded(data.clone());
    let (_, at) = debug_info(&mut t);
    (data, at)
}

#[test]
fn an_unknown_abbreviation_code_is_an_error_at_its_entry() {
    if !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    let (mut data, base) = small_object(dir.path());
    let mut t = common::tree::expanded(data.clone());
    let items = our_items(&mut t);
    // The fifth entry's code becomes one the table does not have.
    let (cut, before) = items
        .iter()
        .filter_map(|(i, _)| match i {
            Item::Entry { off, .. } => Some(*off),
            _ => None,
        })
        .enumerate()
        .nth(4)
        .map(|(k, off)| (off, k))
        .unwrap();
    data[(base + cut) as usize] = 0x7f;
    let mut t = common::tree::expanded(data);
    let got = our_items(&mut t);
    let entries = got
        .iter()
        .filter(|(i, _)| matches!(i, Item::Entry { .. }))
        .count();
    assert_eq!(entries, before, "the entries before the damage stay");
    let at = t
        .diagnostics()
        .iter()
        .find(|d| d.message.contains("DWARF entry"))
        .unwrap_or_else(|| panic!("no diagnostic: {:?}", common::tree::errors(&t)));
    assert_eq!(at.span.offset, base + cut, "{}", at.message);
}

#[test]
fn entries_nested_past_the_limit_are_not_opened() {
    if !common::tool("gcc") {
        return;
    }
    // 200 nested lexical blocks.
    let dir = common::scratch();
    let mut src = String::from("int f(int x) {\n");
    for k in 0..200 {
        src.push_str(&format!("{{ int v{k} = x + {k}; x ^= v{k};\n"));
    }
    src.push_str(&"}".repeat(200));
    src.push_str("\nreturn x; }\n");
    write(dir.path(), "deep.c", &src);
    let o = compile(dir.path(), "gcc", &["-c", "-O0", "-g", "deep.c"], "deep.o");
    let mut t = common::tree::expanded(std::fs::read(o).unwrap());
    let items = our_items(&mut t);
    let deepest = items
        .iter()
        .filter_map(|(i, _)| match i {
            Item::Entry { depth, .. } => Some(*depth),
            _ => None,
        })
        .max()
        .unwrap();
    assert_eq!(deepest, 64, "entries are listed down to depth 64");
    assert!(
        t.diagnostics()
            .iter()
            .any(|d| d.message.contains("nest deeper than 64")),
        "{:?}",
        common::tree::warnings_and_errors(&t)
    );
}

#[test]
fn a_damaged_abbreviation_table_is_diagnosed_at_its_bytes() {
    if !common::tool("gcc") {
        return;
    }
    let dir = common::scratch();
    let (data, _) = small_object(dir.path());
    let mut t = common::tree::expanded(data.clone());
    let sec = section(&mut t, ".debug_abbrev");
    let (at, len) = (t.node(sec).unwrap().offset, t.node(sec).unwrap().size);
    // The first declaration's children byte (after a one-byte code and
    // tag) becomes 7.
    let mut bad = data.clone();
    bad[at as usize + 2] = 7;
    let t = common::tree::expanded(bad);
    assert!(
        t.diagnostics()
            .iter()
            .any(|d| d.span.offset == at + 2 && d.message.contains("children byte 7")),
        "{:?}",
        common::tree::warnings_and_errors(&t)
    );
    // The table cut in the middle of a declaration: the last bytes
    // become a LEB128 number that never ends.
    let mut cut = data;
    for b in &mut cut[(at + len - 3) as usize..(at + len) as usize] {
        *b = 0x80;
    }
    let t = common::tree::expanded(cut);
    assert!(
        t.diagnostics()
            .iter()
            .any(|d| d.message.contains("abbreviation declaration does not read")),
        "{:?}",
        common::tree::warnings_and_errors(&t)
    );
}

#[test]
fn units_that_share_one_large_abbreviation_table_read_it_once() {
    use common::build::{elf64, Sec, EM_X86_64, SHT_PROGBITS};
    // 40,000 declarations (codes 1 to 40,000: DW_TAG_variable, no
    // children, no attributes), and 20,000 DWARF 4 units that all use that
    // table, each one entry of the last code. Reading the table once a
    // unit would mean 800 million declarations.
    let n: u32 = 40_000;
    let mut abbrev = Vec::new();
    let leb = |v: &mut Vec<u8>, mut x: u32| loop {
        let b = (x & 0x7f) as u8;
        x >>= 7;
        if x == 0 {
            v.push(b);
            break;
        }
        v.push(b | 0x80);
    };
    for code in 1..=n {
        leb(&mut abbrev, code);
        abbrev.extend_from_slice(&[0x34, 0, 0, 0]);
    }
    abbrev.push(0);
    let mut code = Vec::new();
    leb(&mut code, n);
    let units = 20_000;
    let mut info = Vec::new();
    for _ in 0..units {
        info.extend_from_slice(&(7 + code.len() as u32).to_le_bytes());
        info.extend_from_slice(&4u16.to_le_bytes());
        info.extend_from_slice(&0u32.to_le_bytes());
        info.push(8);
        info.extend_from_slice(&code);
    }
    let elf = elf64(
        EM_X86_64,
        &[
            Sec::new(b".debug_info", SHT_PROGBITS, &info),
            Sec::new(b".debug_abbrev", SHT_PROGBITS, &abbrev),
        ],
        &[],
    );
    let start = std::time::Instant::now();
    let mut t = common::tree::expanded(elf);
    let items = our_items(&mut t);
    let took = start.elapsed();
    assert_eq!(items.len(), units, "one entry a unit");
    assert!(
        items
            .iter()
            .all(|(i, _)| matches!(i, Item::Entry { code, .. } if *code == u64::from(n))),
        "every entry has the last code"
    );
    assert!(
        took < std::time::Duration::from_secs(30),
        "{took:?} to open 20,000 units that share a table"
    );
}

/// readelf's `--debug-dump=str-offsets` entries: (index, offset, string).
fn readelf_str_offsets(path: &Path) -> Vec<(u64, u64, String)> {
    let text = readelf("--debug-dump=str-offsets", path);
    let mut v = Vec::new();
    for l in text.lines() {
        let t = l.trim_start();
        let mut w = t.splitn(2, ' ');
        let (Some(i), Some(rest)) = (w.next(), w.next()) else {
            continue;
        };
        let Ok(i) = i.parse::<u64>() else { continue };
        let (off, s) = rest.split_once("  ").unwrap_or((rest, ""));
        v.push((i, hex(off), s.to_string()));
    }
    v
}

/// readelf's `--debug-dump=addr` entries: (index, address).
fn readelf_addrs(path: &Path) -> Vec<(u64, u64)> {
    let text = readelf("--debug-dump=addr", path);
    text.lines()
        .filter_map(|l| {
            let (i, a) = l.trim().split_once(":\t")?;
            Some((i.parse().ok()?, hex(a.trim())))
        })
        .collect()
}

/// Our entries of the section `name`: (index, value).
fn our_entries(t: &mut Tree, name: &str) -> Vec<(u64, String, NodeId)> {
    let sec = section(t, name);
    let mut v = Vec::new();
    for c in kids(t, sec) {
        let list = t
            .children(c)
            .into_iter()
            .find(|&k| matches!(t.name(k), "offsets" | "addresses"))
            .expect("entries");
        for e in kids(t, list) {
            let i = t.name(e).trim_matches(['[', ']']).parse().unwrap();
            v.push((i, value(t, e), e));
        }
    }
    v
}

#[test]
fn indexed_strings_and_addresses_agree_with_readelf() {
    if !common::tool("readelf") || !common::tool("clang-22") {
        return;
    }
    let dir = sources();
    let mut files = vec![compile(
        dir.path(),
        "clang-22",
        &["-shared", "-fPIC", "-O1", "-g", "a.c", "b.cc"],
        "two-units.so",
    )];
    for target in ["x86_64-linux-gnu", "riscv64-linux-gnu", "s390x-linux-gnu"] {
        files.push(compile(
            dir.path(),
            "clang-22",
            &[
                &format!("--target={target}"),
                "-x",
                "c++",
                "-O1",
                "-g",
                "-ffreestanding",
                "-c",
                "b.cc",
            ],
            &format!("{target}.o"),
        ));
    }
    for f in files {
        let label = f.display().to_string();
        let data = std::fs::read(&f).unwrap();
        let mut t = common::tree::expanded(data.clone());
        let want = readelf_str_offsets(&f);
        let got = our_entries(&mut t, ".debug_str_offsets");
        assert!(want.len() > 10, "{label}: {want:?}");
        assert_eq!(got.len(), want.len(), "{label}");
        for ((wi, wo, ws), (gi, gv, id)) in want.iter().zip(&got) {
            assert_eq!(wi, gi, "{label}");
            assert_eq!(common::json::lead(gv), *wo, "{label}: [{wi}]");
            let s = gv.split_once(' ').map(|x| x.1).unwrap_or("");
            assert_eq!(common::json::unquote(s), ws, "{label}: [{wi}]");
            let l = t
                .link(*id)
                .unwrap_or_else(|| panic!("{label}: [{wi}] links nowhere"));
            let bytes = &data[l.offset as usize..(l.offset + l.len) as usize];
            assert_eq!(bytes, [ws.as_bytes(), b"\0"].concat(), "{label}: [{wi}]");
        }
        let want = readelf_addrs(&f);
        let got = our_entries(&mut t, ".debug_addr");
        assert!(!want.is_empty(), "{label}");
        let got: Vec<(u64, u64)> = got
            .iter()
            .map(|(i, v, _)| (*i, common::json::lead(v)))
            .collect();
        assert_eq!(got, want, "{label}");
    }
}
