//! ar archives: members and symbol tables against the `object` crate and
//! binutils `ar`, on ocloc's fat binary and on archives built here (GNU,
//! BSD and thin), and what a broken archive reports.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use fwview::formats::build_from_bytes;
use fwview::model::{Format, NodeId, Severity, Tree};

use common::tree::{child, label_name};

fn fat() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/zebin/generated_locally/ocloc22.43__add_fat.ar")
}

fn members(t: &mut Tree) -> Vec<NodeId> {
    t.children(NodeId::ROOT)
        .into_iter()
        .filter(|&k| t.name(k).starts_with('['))
        .collect()
}

/// Members and symbols of `d` checked against `object`'s archive reader.
fn compare(label: &str, d: &[u8]) -> Tree {
    let ar = object::read::archive::ArchiveFile::parse(d).unwrap();
    let mut t = build_from_bytes(d.to_vec());
    let errs: Vec<_> = t
        .diagnostics()
        .iter()
        .filter(|x| x.severity == Severity::Error)
        .collect();
    assert!(errs.is_empty(), "{label}: {errs:?}");
    let ms = members(&mut t);
    let theirs: Vec<_> = ar.members().map(|m| m.unwrap()).collect();
    // object leaves out the symbol and long name tables.
    let ours: Vec<NodeId> = ms
        .iter()
        .copied()
        .filter(|&m| {
            let n = label_name(t.name(m));
            !(n == "/" || n == "//" || n == "/SYM64/" || n.starts_with("__.SYMDEF"))
        })
        .collect();
    assert_eq!(ours.len(), theirs.len(), "{label}: members");
    for (&m, o) in ours.iter().zip(&theirs) {
        assert_eq!(
            label_name(t.name(m)),
            String::from_utf8_lossy(o.name()),
            "{label}"
        );
        let (fo, fs) = o.file_range();
        if ar.is_thin() {
            assert!(child(&mut t, m, "data").is_none());
            let h = child(&mut t, m, "header").unwrap();
            let sz = child(&mut t, h, "ar_size").unwrap();
            assert_eq!(
                t.value_text(sz)
                    .as_deref()
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap(),
                fs.to_string()
            );
            continue;
        }
        let dn = child(&mut t, m, "data").unwrap();
        assert_eq!(
            (t.node(dn).unwrap().offset, t.node(dn).unwrap().size),
            (fo, fs),
            "{label}: {}",
            t.name(m)
        );
    }
    if let Some(syms) = ar.symbols().unwrap() {
        let syms: Vec<_> = syms.map(|s| s.unwrap()).collect();
        let table = ms[0];
        let dn = child(&mut t, table, "data").unwrap();
        let arr = child(&mut t, dn, "offsets")
            .or_else(|| child(&mut t, dn, "ranlib"))
            .unwrap();
        let els = t.children(arr);
        assert_eq!(els.len(), syms.len(), "{label}: symbols");
        for (s, &e) in syms.iter().zip(&els) {
            assert_eq!(
                label_name(t.name(e)),
                String::from_utf8_lossy(s.name()),
                "{label}"
            );
            let l = t.link(e).unwrap();
            assert_eq!(l.offset, s.offset().0, "{label}");
        }
        // A GNU table lists as many names as its count says: the NUL that
        // pads the member to an even size is not one more (empty) name.
        if let Some(names) = child(&mut t, dn, "names") {
            let listed: Vec<String> = t
                .children(names)
                .iter()
                .map(|&k| t.value_text(k).unwrap())
                .collect();
            let want: Vec<String> = syms
                .iter()
                .map(|s| format!("\"{}\"", String::from_utf8_lossy(s.name())))
                .collect();
            assert_eq!(listed, want, "{label}: names");
            if let Some(pad) = child(&mut t, dn, "padding") {
                eprintln!("{label}: {}", t.value_text(pad).unwrap());
            }
        }
        eprintln!(
            "{label}: {} members, {} symbols agree",
            theirs.len(),
            syms.len()
        );
    }
    t
}

#[test]
fn ocloc_fat_binary() {
    let d = std::fs::read(fat()).unwrap();
    let mut t = compare("fat", &d);
    let names: Vec<String> = members(&mut t)
        .iter()
        .map(|&m| label_name(t.name(m)).to_string())
        .collect();
    assert_eq!(
        names,
        [
            "pad_0",
            "64.12.0.0",
            "pad_1",
            "64.12.55.8",
            "pad_2",
            "64.12.60.7"
        ]
    );
    for m in members(&mut t) {
        let name = t.name(m).to_string();
        let dn = child(&mut t, m, "data").unwrap();
        let f = t.node_format(dn);
        if name.contains("64.") {
            assert_eq!(f, Some(Format::Zebin), "{name}");
            assert!(child(&mut t, dn, "sections").is_some());
        } else {
            assert_eq!(f, None, "{name}");
        }
        // Header fields, decoded here.
        let h = child(&mut t, m, "header").unwrap();
        let hb = &d[t.node(h).unwrap().offset as usize..][..60];
        assert_eq!(&hb[58..60], b"`\n");
        let size: u64 = std::str::from_utf8(&hb[48..58])
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(t.node(dn).unwrap().size, size);
        let mode = child(&mut t, h, "ar_mode").unwrap();
        assert_eq!(t.value_text(mode).as_deref(), Some("644 (rw-r--r--)"));
    }
    if common::tool("ar") {
        let out = Command::new("ar").arg("t").arg(fat()).output().unwrap();
        let listed: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(listed, names);
    }
}

fn objects(dir: &Path) -> Option<Vec<PathBuf>> {
    let srcs = [
        ("a.c", "int alpha(void){return 1;}\nint beta_value = 3;\n"),
        (
            "a_very_long_object_file_name.c",
            "int gamma_function_with_long_name(void){return 2;}\n",
        ),
        (
            "another_long_member_name_here.c",
            "static int s; int delta(void){return s;}\n",
        ),
    ];
    // Either compiler serves; clang-22 when it is there, else gcc.
    let cc = if common::runs("clang-22") {
        "clang-22"
    } else if common::tool("gcc") {
        "gcc"
    } else {
        return None;
    };
    let mut v = Vec::new();
    for (n, s) in srcs {
        let c = dir.join(n);
        std::fs::write(&c, s).unwrap();
        let o = c.with_extension("o");
        assert!(Command::new(cc)
            .arg("-c")
            .arg(&c)
            .arg("-o")
            .arg(&o)
            .status()
            .unwrap()
            .success());
        v.push(o);
    }
    Some(v)
}

/// Runs `tool args NAME OBJS...` in `dir` and returns the archive it wrote.
/// The tool must be there (asked of [`common::tool`] first) and succeed.
fn archive(tool: &str, args: &[&str], dir: &Path, name: &str, objs: &[PathBuf]) -> Vec<u8> {
    let out = dir.join(name);
    let st = Command::new(tool)
        .current_dir(dir)
        .args(args)
        .arg(&out)
        .args(objs.iter().map(|p| p.file_name().unwrap()))
        .status()
        .unwrap();
    assert!(st.success(), "{tool} {args:?} {name} failed: {st}");
    std::fs::read(&out).unwrap()
}

#[test]
fn gnu_bsd_and_thin_archives() {
    let dir = tempfile::tempdir().unwrap();
    let Some(objs) = objects(dir.path()) else {
        return;
    };
    let mut done = 0;
    if common::tool("ar") {
        let d = archive("ar", &["rcs"], dir.path(), "gnu.a", &objs);
        let mut t = compare("gnu", &d);
        let ms = members(&mut t);
        assert_eq!(label_name(t.name(ms[0])), "/");
        assert_eq!(label_name(t.name(ms[1])), "//");
        // The long name's header says /N; the name comes from the table.
        let h = child(&mut t, ms[3], "header").unwrap();
        let n = child(&mut t, h, "ar_name").unwrap();
        assert!(t.value_text(n).as_deref().unwrap().starts_with("\"/"));
        let dn = child(&mut t, ms[2], "data").unwrap();
        assert_eq!(t.node_format(dn), Some(Format::Elf));
        done += 1;

        let d = archive("ar", &["rcsT"], dir.path(), "thin.a", &objs);
        assert!(d.starts_with(b"!<thin>\n"));
        compare("thin", &d);
        done += 1;
    }
    if common::tool("llvm-ar-22") {
        for fmt in ["bsd", "darwin", "gnu"] {
            let name = format!("llvm-{fmt}.a");
            let d = archive(
                "llvm-ar-22",
                &[&format!("--format={fmt}"), "rcs"],
                dir.path(),
                &name,
                &objs,
            );
            let mut t = compare(&name, &d);
            if fmt != "gnu" {
                let ms = members(&mut t);
                assert!(label_name(t.name(ms[0])).starts_with("__.SYMDEF"));
                let m = ms[2];
                let h = child(&mut t, m, "header").unwrap();
                let n = child(&mut t, h, "ar_name").unwrap();
                assert!(t.value_text(n).as_deref().unwrap().starts_with("\"#1/"));
                assert!(child(&mut t, m, "name").is_some());
            }
            done += 1;
        }
    }
    eprintln!("{done} archives compared");
}

#[test]
fn broken_archives_report() {
    let d = std::fs::read(fat()).unwrap();
    // Cut in the middle of the second member's data.
    let t = build_from_bytes(d[..3000].to_vec());
    assert!(t
        .diagnostics()
        .iter()
        .any(|x| x.severity == Severity::Error && x.message.contains("runs past the end")));
    // A bad size field.
    let mut bad = d.clone();
    bad[8 + 48..8 + 58].copy_from_slice(b"12x4      ");
    let mut t = build_from_bytes(bad);
    assert!(t
        .diagnostics()
        .iter()
        .any(|x| x.message.contains("not a decimal number")));
    assert!(!members(&mut t).is_empty());
    // A bad terminator.
    let mut bad = d.clone();
    bad[8 + 58] = b'X';
    let t = build_from_bytes(bad);
    assert!(t
        .diagnostics()
        .iter()
        .any(|x| x.message.contains("ar_fmag")));
}

/// The IP versions `ocloc ids NAME` prints for a device or release name,
/// or None when ocloc does not know the name.
fn ocloc_ids(name: &str) -> Option<Vec<String>> {
    let out = Command::new("ocloc").args(["ids", name]).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let rest = text.split("Matched ids:").nth(1)?;
    Some(
        rest.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

fn dotted(v: (u32, u32, u32)) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// Every device and release name of the IP version table gives, through
/// `ocloc ids`, exactly the versions the table gives it; and every device
/// name `ocloc compile --help` lists that stands for one version is in the
/// table.
#[test]
fn ip_versions_match_ocloc_ids() {
    use fwview::formats::intel_ip::{IP_VERSIONS, RELEASES};
    if !common::tool("ocloc") {
        return;
    }
    for (v, names) in IP_VERSIONS {
        for n in *names {
            assert_eq!(ocloc_ids(n), Some(vec![dotted(*v)]), "ocloc ids {n}");
        }
    }
    for (r, vs) in RELEASES {
        let want: Vec<String> = vs.iter().map(|v| dotted(*v)).collect();
        assert_eq!(ocloc_ids(r), Some(want), "ocloc ids {r}");
    }
    // The device names ocloc's help lists.
    let out = Command::new("ocloc")
        .args(["compile", "--help"])
        .output()
        .unwrap();
    let help =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let listed = help
        .split("<device_type> can be:")
        .nth(1)
        .and_then(|s| s.lines().next())
        .expect("ocloc's help lists the device types");
    let listed: Vec<&str> = listed
        .split(',')
        .map(|s| s.trim().split(' ').next().unwrap_or(""))
        .filter(|s| !s.is_empty() && *s != "version")
        .collect();
    assert!(listed.len() > 20, "{listed:?}");
    let known: Vec<&str> = IP_VERSIONS
        .iter()
        .flat_map(|(_, n)| n.iter().copied())
        .chain(RELEASES.iter().map(|(r, _)| *r))
        .collect();
    for n in listed {
        let ids = ocloc_ids(n).unwrap_or_default();
        if ids.len() == 1 || RELEASES.iter().any(|(r, _)| *r == n) {
            assert!(known.contains(&n), "{n} ({ids:?}) is not in the table");
        }
    }
}

/// The fat binary's members show the device names that ocloc gives their
/// IP versions: `ocloc ids DEVICE` prints the member's version for each.
#[test]
fn fat_binary_members_name_their_devices() {
    let d = std::fs::read(fat()).unwrap();
    let mut t = build_from_bytes(d);
    let mut seen = 0;
    for m in members(&mut t) {
        let name = label_name(t.name(m)).to_string();
        let value = t.value_text(m).unwrap();
        let Some(ip) = name.strip_prefix("64.") else {
            assert!(!value.contains("IP version"), "{name}: {value}");
            continue;
        };
        let (_, rest) = value.split_once(" bytes, ").unwrap();
        let (devices, about) = rest.split_once(" (").unwrap();
        assert!(
            about.ends_with(&format!("64-bit, IP version {ip})")),
            "{value}"
        );
        seen += 1;
        if !common::tool("ocloc") {
            continue;
        }
        for dev in devices.split(", ") {
            assert_eq!(ocloc_ids(dev), Some(vec![ip.to_string()]), "{dev}");
        }
        let release = about.split(", ").next().unwrap();
        assert!(
            ocloc_ids(release).unwrap().contains(&ip.to_string()),
            "{release} {ip}"
        );
    }
    assert_eq!(seen, 3);
}

/// What `llvm-ar-22 tv` lists: each member's name and size.
fn llvm_listing(path: &Path) -> Vec<(String, u64)> {
    let out = Command::new("llvm-ar-22")
        .arg("tv")
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "llvm-ar-22 tv {}", path.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            // rw-r--r-- 0/0   1072 Jan  1 00:00 1970 a.o
            let w: Vec<&str> = l.split_whitespace().collect();
            let name = w[7..].join(" ");
            (name, w[2].parse().unwrap())
        })
        .collect()
}

/// What `llvm-nm-22 --print-armap` lists: each symbol of the symbol table
/// and its member, in the table's order.
fn llvm_armap(path: &Path) -> Vec<(String, String)> {
    llvm_map(path, "Archive map\n")
}

/// What `llvm-nm-22 --print-armap` lists under `heading` (`Archive map`,
/// or `Archive EC map` for an ARM64EC library).
fn llvm_map(path: &Path, heading: &str) -> Vec<(String, String)> {
    let out = Command::new("llvm-nm-22")
        .arg("--print-armap")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let Some(map) = text.split(heading).nth(1) else {
        return Vec::new();
    };
    map.lines()
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let (s, m) = l.rsplit_once(" in ").unwrap();
            (s.to_string(), m.to_string())
        })
        .collect()
}

/// The names of the members that hold symbol tables, long names or the
/// big archive's member table.
fn is_table(name: &str) -> bool {
    matches!(
        name,
        "/" | "//"
            | "/SYM64/"
            | "/<ECSYMBOLS>/"
            | "member table"
            | "symbol table"
            | "symbol table (64-bit)"
    ) || name.starts_with("__.SYMDEF")
}

/// A top-level node's name as `llvm-ar` would give it: `[k] NAME` is
/// member NAME, a table keeps its name.
fn top_name(t: &Tree, id: NodeId) -> String {
    let n = t.name(id);
    if n.starts_with('[') {
        label_name(n).to_string()
    } else {
        n.to_string()
    }
}

/// Our files (every member that is not a table): name, size, node.
fn our_files(t: &mut Tree) -> Vec<(String, u64, NodeId)> {
    let root = t.root();
    let mut out = Vec::new();
    for k in t.children(root) {
        let n = top_name(t, k);
        if !t.name(k).starts_with('[') || is_table(&n) {
            continue;
        }
        // The member's value: its size (a BSD name left out), then
        // what it is.
        let size = common::json::lead(&t.value_text(k).unwrap());
        out.push((n, size, k));
    }
    out
}

/// Our symbol tables, each as (symbol, member) in its order; the member
/// is the one the entry links to.
fn our_symbol_tables(t: &mut Tree) -> Vec<Vec<(String, String)>> {
    let root = t.root();
    let tops: Vec<(u64, String)> = t
        .children(root)
        .into_iter()
        .map(|k| (t.node(k).unwrap().offset, top_name(t, k)))
        .collect();
    let mut out = Vec::new();
    for k in t.children(root) {
        let n = top_name(t, k);
        if !is_table(&n) || n == "//" || n == "member table" {
            continue;
        }
        let d = child(t, k, "data").unwrap();
        let arr = ["indices", "offsets", "ranlib"]
            .iter()
            .find_map(|a| {
                child(t, d, a).filter(|_| *a != "offsets" || child(t, d, "indices").is_none())
            })
            .unwrap();
        let mut table = Vec::new();
        for e in common::tree::kids(t, arr) {
            let l = t
                .link(e)
                .unwrap_or_else(|| panic!("{} links nowhere", t.path_string(e)));
            let m = tops.iter().find(|x| x.0 == l.offset).unwrap();
            table.push((label_name(t.name(e)).to_string(), m.1.clone()));
        }
        out.push(table);
    }
    out
}

/// The import members `llvm-readobj-22 --coff-imports` describes: DLL,
/// type, name type, symbol (without `__imp_`).
fn llvm_imports(path: &Path) -> Vec<[String; 4]> {
    let out = Command::new("llvm-readobj-22")
        .arg("--coff-imports")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut v = Vec::new();
    for block in text.split("\nFile: ").skip(1) {
        if !block.contains("Format: COFF-import-file") {
            continue;
        }
        let dll = block.lines().next().unwrap().to_string();
        let field = |k: &str| {
            block
                .lines()
                .filter_map(|l| l.strip_prefix(k))
                .next_back()
                .unwrap()
                .to_string()
        };
        let sym = field("Symbol: ");
        let sym = sym.strip_prefix("__imp_").unwrap_or(&sym).to_string();
        v.push([dll, field("Type: "), field("Name type: "), sym]);
    }
    v
}

/// Ours, in the same terms.
fn our_imports(t: &mut Tree) -> Vec<[String; 4]> {
    let mut v = Vec::new();
    for (_, _, m) in our_files(t) {
        let d = child(t, m, "data").unwrap();
        let Some(h) = child(t, d, "header") else {
            continue;
        };
        let Some(ty) = child(t, h, "Type") else {
            continue;
        };
        let word = |t: &mut Tree, n: &str| {
            let k = child(t, ty, n).unwrap();
            let v = t.value_text(k).unwrap();
            let inner = v.split_once('(').unwrap().1.trim_end_matches(')');
            inner.to_ascii_lowercase()
        };
        let name_type = match word(t, "NameType").as_str() {
            "name_noprefix" => "noprefix".to_string(),
            "name_undecorate" => "undecorate".to_string(),
            "name_exportas" => "export as".to_string(),
            w => w.to_string(),
        };
        let s = |t: &mut Tree, n: &str| {
            let k = child(t, d, n).unwrap();
            t.value_text(k).unwrap().trim_matches('"').to_string()
        };
        v.push([s(t, "DLL"), word(t, "Type"), name_type, s(t, "symbol")]);
    }
    v
}

/// Every flavour of archive `llvm-ar-22` writes (GNU, GNU thin, GNU with a
/// 64-bit symbol table, BSD, Darwin, AIX big archives of 32- and 64-bit
/// objects) and the MSVC import libraries of `llvm-dlltool-22` and
/// `llvm-lib-22`: no diagnostic; every member `llvm-ar-22 tv`
/// lists, with its size, and nothing else; every symbol
/// `llvm-nm-22 --print-armap` lists (the EC map of an ARM64EC library
/// too), linked to its member; every short import member as
/// `llvm-readobj-22 --coff-imports` reads it.
#[test]
fn every_archive_flavour_agrees_with_the_llvm_tools() {
    for t in ["llvm-ar-22", "llvm-nm-22", "llvm-readobj-22", "clang-22"] {
        if !common::tool(t) {
            return;
        }
    }
    let dir = common::scratch();
    let Some(objs) = objects(dir.path()) else {
        return;
    };
    let p = dir.path();
    let c = p.join("a.c");
    let a32 = p.join("a32.o");
    let st = Command::new("clang-22")
        .args(["-m32", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&a32)
        .status()
        .unwrap();
    assert!(st.success());
    let mut objs32 = objs.clone();
    objs32[0] = a32;
    let mut built: Vec<(String, PathBuf)> = Vec::new();
    // Name, llvm-ar's arguments, 32-bit objects, 64-bit symbol tables
    // (llvm-ar writes them for archives past SYM64_THRESHOLD bytes).
    let flavours: &[(&str, &[&str], bool, bool)] = &[
        ("gnu", &["--format=gnu", "rcs"], false, false),
        ("thin", &["--format=gnu", "rcsT"], false, false),
        ("sym64", &["--format=gnu", "rcs"], false, true),
        ("bsd", &["--format=bsd", "rcs"], false, false),
        ("darwin", &["--format=darwin", "rcs"], false, false),
        ("darwin64", &["--format=darwin", "rcs"], false, true),
        ("big", &["--format=bigarchive", "rcs"], false, false),
        ("big32", &["--format=bigarchive", "rcs"], true, false),
    ];
    for (name, args, m32, sym64) in flavours {
        let file = format!("{name}.a");
        let objs = if *m32 { &objs32 } else { &objs };
        let mut cmd = Command::new("llvm-ar-22");
        if *sym64 {
            cmd.env("SYM64_THRESHOLD", "0");
        }
        let st = cmd
            .current_dir(p)
            .args(*args)
            .arg(&file)
            .args(objs.iter().map(|o| o.file_name().unwrap()))
            .status()
            .unwrap();
        assert!(st.success(), "llvm-ar-22 {args:?} {file}");
        built.push((name.to_string(), p.join(file)));
    }
    // Import libraries.
    std::fs::write(
        p.join("imp.def"),
        "LIBRARY a_dll_name_longer_than_sixteen.dll\nEXPORTS\n  func1\n  func2 @5\n  data1 DATA\n  by_ordinal @7 NONAME\n  cst CONSTANT\n",
    )
    .unwrap();
    if common::tool("llvm-dlltool-22") {
        let st = Command::new("llvm-dlltool-22")
            .current_dir(p)
            .args(["-m", "i386:x86-64", "-d", "imp.def", "-l", "dlltool.lib"])
            .status()
            .unwrap();
        assert!(st.success());
        built.push(("dlltool".into(), p.join("dlltool.lib")));
    }
    if common::tool("llvm-lib-22") {
        // x64, and ARM64EC: an EC symbol table, and imports named by
        // NAME_EXPORTAS.
        for (label, machine) in [("lib", "x64"), ("ec", "arm64ec")] {
            let st = Command::new("llvm-lib-22")
                .current_dir(p)
                .arg("/def:imp.def")
                .arg(format!("/machine:{machine}"))
                .arg(format!("/out:{label}.lib"))
                .status()
                .unwrap();
            assert!(st.success(), "llvm-lib-22 /machine:{machine}");
            built.push((label.into(), p.join(format!("{label}.lib"))));
        }
    }
    for (label, path) in &built {
        let bytes = std::fs::read(path).unwrap();
        let mut t = common::tree::expanded(bytes);
        let bad = common::tree::warnings_and_errors(&t);
        assert!(bad.is_empty(), "{label}: {bad:#?}");
        // Nor a note: the newline that pads the long name table to an even
        // size (the gnu flavour's two long names take 65 bytes) is padding,
        // not a byte past the last structure.
        let notes: Vec<_> = t.diagnostics().iter().map(|d| &d.message).collect();
        assert!(notes.is_empty(), "{label}: {notes:#?}");
        let files = our_files(&mut t);
        // llvm-ar lists a thin archive's members by their paths, which
        // are relative to the archive's directory.
        let shown = |n: &str| {
            if *label == "thin" {
                p.join(n).display().to_string()
            } else {
                n.to_string()
            }
        };
        let ours: Vec<(String, u64)> = files.iter().map(|f| (shown(&f.0), f.1)).collect();
        assert_eq!(ours, llvm_listing(path), "{label}: members");
        let first = t.children(t.root())[1];
        let want = match label.as_str() {
            "sym64" => Some("/SYM64/"),
            "darwin64" => Some("__.SYMDEF_64"),
            _ => None,
        };
        if let Some(w) = want {
            assert_eq!(top_name(&t, first), w, "{label}");
        }
        if *label == "thin" {
            for (n, _, m) in &files {
                let f = t.facts(*m).and_then(|f| f.external.clone());
                assert_eq!(f.as_deref(), Some(n.as_str()), "{label}: {n}");
            }
        }
        let tables = our_symbol_tables(&mut t);
        let armap = llvm_armap(path);
        let is_lib = path.extension().is_some_and(|e| e == "lib");
        let nsyms = if is_lib {
            // The second linker member is the map llvm-nm prints; the
            // first lists the same symbols in member order.
            let ec = *label == "ec";
            assert_eq!(tables.len(), if ec { 3 } else { 2 }, "{label}");
            assert_eq!(tables[1], armap, "{label}: second linker member");
            if ec {
                let want = llvm_map(path, "Archive EC map\n");
                assert!(!want.is_empty(), "{label}");
                assert_eq!(tables[2], want, "{label}: EC symbol table");
            }
            let mut first = tables[0].clone();
            let mut want = armap.clone();
            first.sort();
            want.sort();
            assert_eq!(first, want, "{label}: first linker member");
            let imports = our_imports(&mut t);
            assert_eq!(imports, llvm_imports(path), "{label}: imports");
            assert_eq!(imports.len(), 5, "{label}");
            tables[1..].iter().map(Vec::len).sum()
        } else {
            let all: Vec<(String, String)> = tables.concat();
            assert_eq!(all, armap, "{label}: symbols");
            all.len()
        };
        assert!(nsyms > 0, "{label}: no symbols");
        eprintln!(
            "{label}: {} members, {} symbol tables, {nsyms} symbols agree",
            files.len(),
            tables.len()
        );
    }
}

/// The tools that read archives and bitcode keep their magic numbers as
/// constants: `llvm::object`'s `ArchiveMagic`, `ThinArchiveMagic` and
/// `BigArchiveMagic` each in a section of its own ("!<arch>\n" and a NUL),
/// binutils readelf's `.data.rel.ro` a table that starts with `BC` 0xC0DE.
/// Built the same way here, none of them opens as an archive or as
/// bitcode, and the object has no diagnostic; a section holding a real
/// archive (an empty one, the magic alone) still opens.
#[test]
fn magic_numbers_kept_as_constants_are_not_containers() {
    if !common::tool("clang-22") {
        return;
    }
    let dir = common::scratch();
    std::fs::write(
        dir.path().join("magics.c"),
        r#"const char ArchiveMagic[] = "!<arch>\n";
const char ThinArchiveMagic[] = "!<thin>\n";
const char BigArchiveMagic[] = "<bigaf>\n";
const unsigned long magic_table[] = { 0xdec04342, 0x79f90, 0x79fd0 };
__attribute__((section("empty_archive"))) const char empty[8] = "!<arch>\n";
"#,
    )
    .unwrap();
    let (_, o) =
        super::dwarf_cfi::compile(dir.path(), "clang-22 -c -fdata-sections magics.c magics.o");
    let mut t = common::tree::expanded(std::fs::read(&o).unwrap());
    let notes: Vec<_> = t.diagnostics().iter().map(|d| &d.message).collect();
    assert!(notes.is_empty(), "{notes:#?}");
    let root = t.root();
    let sections = common::tree::child(&mut t, root, "sections").unwrap();
    let mut seen = 0;
    for s in common::tree::kids(&mut t, sections) {
        let name = t.name(s).to_string();
        let format = t.node_format(s);
        if name.ends_with("empty_archive") {
            assert_eq!(format, Some(Format::Ar), "{name}");
            seen += 1;
        } else if name.contains("Magic") || name.contains("magic_table") {
            assert_eq!(format, None, "{name}");
            seen += 1;
        }
    }
    assert_eq!(seen, 5, "the five constants' sections");
}
