//! Compressed debug sections (SHF_COMPRESSED zlib and zstd, GNU's
//! `.zdebug_`): the units of `.debug_info` decoded in its inflated bytes
//! as the units of an uncompressed one are, against `llvm-dwarfdump-22
//! --debug-info`; and the attributes that name a line program or a
//! location or range list link to it, in whichever space it is.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use super::dwarf::dwarfdump_entries;
use super::dwarf_cfi::{compile, compressed, hex, section, SOURCE};
use common::tree::kids;
use fwview::model::{NodeId, Tree};

/// The node `.debug_info`'s units are under: its inflated bytes when it
/// is compressed.
fn units_node(t: &mut Tree) -> NodeId {
    section(t, ".debug_info")
        .or_else(|| section(t, ".zdebug_info"))
        .and_then(|s| {
            let k = kids(t, s);
            k.into_iter().find(|&k| t.name(k) == "inflated").or(Some(s))
        })
        .expect("a .debug_info")
}

/// An item of `.debug_info`: name, offset in the section, value, node.
type Listed = (String, u64, String, NodeId);

/// Every entry (tag and offset in the section) and attribute (name,
/// offset, value as shown) under `.debug_info`, in order; with the
/// attributes' nodes.
fn listed(t: &mut Tree) -> Vec<Listed> {
    let top = units_node(t);
    let base = t.node(top).unwrap().offset;
    let mut out = Vec::new();
    let mut stack = vec![top];
    while let Some(id) = stack.pop() {
        let mut k = t.children(id);
        k.reverse();
        stack.extend(k);
        let name = t.name(id).to_string();
        if name.starts_with("DW_TAG_") || name.starts_with("DW_AT_") || name == "null" {
            let off = t.node(id).unwrap().offset - base;
            let v = t.value_text(id).unwrap_or_default();
            out.push((name, off, v, id));
        }
    }
    out
}

/// The entries of [`listed`]: offset and tag.
fn tags(got: &[Listed]) -> Vec<(u64, String)> {
    got.iter()
        .filter(|x| x.0.starts_with("DW_TAG_"))
        .map(|x| (x.1, x.0.clone()))
        .collect()
}

/// Whether the items of the compressed and the uncompressed file read the
/// same (name, offset, value), links aside.
fn same_items(compressed: &[Listed], plain: &[Listed]) -> bool {
    let strip = |v: &[Listed]| -> Vec<(String, u64, String)> {
        v.iter().map(|x| (x.0.clone(), x.1, x.2.clone())).collect()
    };
    strip(compressed) == strip(plain)
}

/// `llvm-dwarfdump-22 --debug-info` of `path`.
fn dump(path: &Path) -> String {
    let out = Command::new("llvm-dwarfdump-22")
        .arg("--debug-info")
        .arg(path)
        .output()
        .expect("llvm-dwarfdump-22 runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The attributes that name a line program or a list.
const LINKED: [&str; 4] = [
    "DW_AT_stmt_list",
    "DW_AT_location",
    "DW_AT_ranges",
    "DW_AT_frame_base",
];

/// The attributes of [`LINKED`] whose value llvm-dwarfdump gives as an
/// offset in their section (`(0x00000000`, `indexed (0x1) loclist =
/// 0x00000031`): name and offset, in order.
fn their_links(text: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((name, value)) = line.trim_start().split_once('\t') else {
            continue;
        };
        if !LINKED.contains(&name) {
            continue;
        }
        let v = value.trim_start_matches('(');
        let v = match v.split_once("list = ") {
            Some((_, r)) if v.starts_with("indexed") => r,
            _ => v,
        };
        if let Some(h) = v.strip_prefix("0x") {
            let n: String = h.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
            out.push((name.to_string(), hex(&n)));
        }
    }
    out
}

/// Where the links of our attributes of [`LINKED`] go: name and offset
/// in the line or list section they land in; each lands on that section's
/// unit (a line program) or list starting there.
fn our_links(label: &str, t: &mut Tree) -> Vec<(String, u64)> {
    linked(label, t)
        .into_iter()
        .map(|(name, off, _)| (name, off))
        .collect()
}

/// [`our_links`] with the node each lands on.
fn linked(label: &str, t: &mut Tree) -> Vec<(String, u64, NodeId)> {
    let mut sections = Vec::new();
    for name in [
        ".debug_line",
        ".debug_loclists",
        ".debug_rnglists",
        ".debug_loc",
        ".debug_ranges",
    ] {
        let zname = name.replacen(".debug", ".zdebug", 1);
        if let Some(s) = section(t, name).or_else(|| section(t, &zname)) {
            let n = t.node(s).unwrap();
            sections.push((s, n.space, n.offset, n.offset + n.size));
        }
    }
    let mut out = Vec::new();
    for (name, _, _, id) in listed(t) {
        if !LINKED.contains(&name.as_str()) {
            continue;
        }
        let Some(l) = t.link(id) else { continue };
        let Some(&(sec, _, base, _)) = sections
            .iter()
            .find(|s| s.1 == l.space && (s.2..s.3).contains(&l.offset))
        else {
            panic!("{label}: {name} links to {l:?}, in no line or list section");
        };
        // Followed as the explorer follows a link into a space.
        let to = t.smallest_containing_from(sec, l);
        let lands = t.path(to).into_iter().rev().find(|&k| {
            let n = t.node(k).unwrap();
            n.space == l.space
                && n.offset == l.offset
                && (n.name.starts_with("list [") || n.name.starts_with("unit ["))
        });
        let Some(node) = lands else {
            panic!(
                "{label}: {name} links to {} ({}), not to a list or unit starting there",
                l.start_text(),
                t.path_string(to)
            );
        };
        out.push((name, l.offset - base, node));
    }
    out
}

/// Builds `cmd` in `dir`; the object or library.
fn build(dir: &Path, cmd: &str) -> PathBuf {
    compile(dir, cmd).1
}

#[test]
fn compressed_units_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("clang-22") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.c"), SOURCE).unwrap();
    let mut plan = vec![
        (
            "clang-22 -g -O2 -c a.c plain5.o",
            "clang-22 -g -O2 -gz=zlib -c a.c zlib5.o",
        ),
        (
            "clang-22 -g -O2 -c a.c plain5.o",
            "clang-22 -g -O2 -gz=zstd -c a.c zstd5.o",
        ),
        (
            "clang-22 -gdwarf-4 -O2 -c a.c plain4.o",
            "clang-22 -gdwarf-4 -O2 -gz=zlib -c a.c zlib4.o",
        ),
        (
            "clang-22 -g -O2 -shared -fPIC a.c plain5.so",
            "clang-22 -g -O2 -shared -fPIC -gz=zlib a.c zlib5.so",
        ),
    ];
    if common::tool("gcc") {
        plan.push((
            "gcc -g -O2 -gno-record-gcc-switches -c a.c gplain.o",
            "gcc -g -O2 -gno-record-gcc-switches -gz=zlib -c a.c gzlib.o",
        ));
    }
    let (mut entries, mut attrs, mut links) = (0, 0, 0);
    for (plain, gz) in plan {
        let plain = build(p, plain);
        let path = build(p, gz);
        let label = gz.to_string();
        assert!(
            compressed(&path, ".debug_info"),
            "{label}: .debug_info compressed"
        );
        let text = dump(&path);
        let (want_tags, want_strings) = dwarfdump_entries(&path);
        let mut t = common::tree::expanded(std::fs::read(&path).unwrap());
        let got = listed(&mut t);
        let tags = tags(&got);
        assert_eq!(tags, want_tags, "{label}: entries");
        let strings: Vec<(String, String)> = got
            .iter()
            .filter(|x| x.0.starts_with("DW_AT_"))
            .filter_map(|x| {
                let (a, b) = (x.2.find('"')?, x.2.rfind('"')?);
                (a < b).then(|| (x.0.clone(), x.2[a + 1..b].to_string()))
            })
            .collect();
        assert_eq!(strings, want_strings, "{label}: strings");
        // Every attribute reads as the same build's uncompressed one
        // (which the uncompressed comparisons hold to readelf and
        // llvm-dwarfdump).
        let mut u = common::tree::expanded(std::fs::read(&plain).unwrap());
        assert!(same_items(&got, &listed(&mut u)), "{label}: attributes");
        // The attributes that name a line program or a list link to it.
        let ours = our_links(&label, &mut t);
        assert_eq!(ours, their_links(&text), "{label}: links");
        entries += tags.len();
        attrs += got.len();
        links += ours.len();
    }
    eprintln!("{entries} entries, {attrs} items and {links} list and line links of compressed units equal to llvm-dwarfdump-22's");
    assert!(
        entries > 100 && links > 20,
        "{entries} entries, {links} links"
    );
}

/// GNU's `.zdebug_` sections (`objcopy --compress-debug-sections=zlib-gnu`)
/// read as SHF_COMPRESSED ones: the units as llvm-dwarfdump-22 lists them
/// from the object before it was compressed.
#[test]
fn gnu_zdebug_units_agree_with_llvm_dwarfdump() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") || !common::tool("objcopy") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.c"), SOURCE).unwrap();
    let plain = build(p, "gcc -g -O2 -c a.c plain.o");
    let gnu = p.join("gnu.o");
    let st = Command::new("objcopy")
        .arg("--compress-debug-sections=zlib-gnu")
        .arg(&plain)
        .arg(&gnu)
        .status()
        .expect("objcopy runs");
    assert!(st.success());
    let mut t = common::tree::expanded(std::fs::read(&gnu).unwrap());
    assert!(section(&mut t, ".zdebug_info").is_some(), "a .zdebug_info");
    let got = listed(&mut t);
    // llvm-dwarfdump-22 no longer reads `.zdebug_` sections: its listing
    // of the same object before objcopy compressed it.
    let (want_tags, _) = dwarfdump_entries(&plain);
    let tags = tags(&got);
    assert_eq!(tags, want_tags, "entries");
    let mut u = common::tree::expanded(std::fs::read(&plain).unwrap());
    assert!(same_items(&got, &listed(&mut u)), "attributes");
    assert!(tags.len() > 20);
}

/// The ranges `[a, b)` of a text, in order (the first two numbers of each
/// bracket).
fn ranges(text: &str) -> Option<(u64, u64)> {
    let r = text.trim_start().strip_prefix('[')?;
    let (a, rest) = r.split_once(", ")?;
    let b = rest.split(')').next()?;
    Some((hex(a), hex(b)))
}

/// The ranges llvm-dwarfdump-22 `--debug-info` renders inline under each
/// attribute of [`LINKED`] that names a list: name and ranges, in order.
fn their_ranges(text: &str) -> Vec<(String, Vec<(u64, u64)>)> {
    let mut out: Vec<(String, Vec<(u64, u64)>)> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if open {
            if let Some(r) = ranges(line) {
                if let Some(last) = out.last_mut() {
                    last.1.push(r);
                }
                continue;
            }
            open = false;
        }
        if !their_links(line).is_empty() && !line.contains("DW_AT_stmt_list") {
            let name = line.trim_start().split('\t').next().unwrap_or("");
            out.push((name.to_string(), Vec::new()));
            open = true;
        }
    }
    out
}

/// The ranges of the list each of our attributes links to: the values
/// of its entries that come to a range.
fn our_ranges(label: &str, t: &mut Tree) -> Vec<(String, Vec<(u64, u64)>)> {
    let mut out = Vec::new();
    for (name, _, node) in linked(label, t) {
        if name == "DW_AT_stmt_list" {
            continue;
        }
        let rs = kids(t, node)
            .into_iter()
            .filter_map(|k| ranges(&t.value_text(k).unwrap_or_default()))
            .collect();
        out.push((name, rs));
    }
    out
}

/// Lists resolve as the units that use them say: a DWARF 4 list's
/// offsets from its unit's base address, a DWARF 5 list's address
/// indices through its unit's `DW_AT_addr_base`; every range of every
/// list an attribute names equal to llvm-dwarfdump-22 `--debug-info`'s
/// rendering of it, on gcc (with its location views) and clang-22
/// objects and shared libraries, DWARF 4 and 5, plain and compressed.
#[test]
fn lists_resolve_as_their_units_say() {
    if !common::tool("llvm-dwarfdump-22") || !common::tool("gcc") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.c"), SOURCE).unwrap();
    let mut plan = vec![
        "gcc -g -O2 -c a.c g5.o",
        "gcc -gdwarf-4 -O2 -c a.c g4.o",
        "gcc -g -O2 -shared -fPIC a.c g5.so",
        "gcc -gdwarf-4 -O2 -shared -fPIC a.c g4.so",
        "gcc -g -O2 -ffunction-sections -shared -fPIC a.c g5fs.so",
    ];
    if common::tool("clang-22") {
        plan.extend([
            "clang-22 -g -O2 -c a.c c5.o",
            "clang-22 -gdwarf-4 -O2 -c a.c c4.o",
            "clang-22 -g -O2 -ffunction-sections -shared -fPIC a.c c5fs.so",
            "clang-22 -gdwarf-4 -O2 -ffunction-sections -shared -fPIC a.c c4fs.so",
            "clang-22 -g -O2 -gz=zlib -shared -fPIC a.c c5z.so",
        ]);
    }
    let (mut lists, mut n) = (0, 0);
    for cmd in plan {
        let path = build(p, cmd);
        let want = their_ranges(&dump(&path));
        let mut t = common::tree::expanded(std::fs::read(&path).unwrap());
        let got = our_ranges(cmd, &mut t);
        assert_eq!(got, want, "{cmd}");
        lists += got.len();
        n += got.iter().map(|g| g.1.len()).sum::<usize>();
    }
    eprintln!("{lists} lists, {n} ranges equal to llvm-dwarfdump-22's");
    assert!(lists > 20 && n > 40, "{lists} lists, {n} ranges");
}

/// `(offset, section offset of the relocated section's data)`: the
/// offsets `llvm-readelf-22 -r` gives for `.rela.debug_info`, and where
/// `llvm-readelf-22 -S` puts `.debug_info`.
fn readelf_relocs(path: &Path) -> (Vec<u64>, u64) {
    let run = |args: &[&str]| {
        let o = Command::new("llvm-readelf-22")
            .args(args)
            .arg(path)
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    let r = run(&["-r", "--wide"]);
    let mut offsets = Vec::new();
    let mut inside = false;
    for line in r.lines() {
        if line.starts_with("Relocation section") {
            inside = line.contains("'.rela.debug_info'");
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or("");
        if inside && first.len() == 16 {
            if let Ok(v) = u64::from_str_radix(first, 16) {
                offsets.push(v);
            }
        }
    }
    let s = run(&["-S", "--wide"]);
    let at = s
        .lines()
        .find(|l| l.contains(" .debug_info "))
        .and_then(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let i = f.iter().position(|x| *x == ".debug_info")?;
            u64::from_str_radix(f.get(i + 3)?, 16).ok()
        })
        .expect(".debug_info in the section table");
    (offsets, at)
}

/// In an object whose `.debug_info` is compressed, each `.rela.debug_info`
/// entry links to the bytes it relocates: at its `r_offset` in the inflated
/// space (relocations apply to the uncompressed section), not in the
/// compressed bytes.
#[test]
fn relocations_of_a_compressed_section_link_into_its_inflated_bytes() {
    if !common::tool("llvm-readelf-22") || !common::tool("clang-22") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.c"), SOURCE).unwrap();
    for cmd in [
        "clang-22 -g -O2 -gz=zlib -c a.c zlib5.o",
        "clang-22 -g -O2 -gz=zstd -c a.c zstd5.o",
        "clang-22 -gdwarf-4 -O2 -gz=zlib -c a.c zlib4.o",
    ] {
        let obj = build(p, cmd);
        let (want, info_at) = readelf_relocs(&obj);
        assert!(want.len() > 3, "{cmd}: {want:?}");
        let j = common::json::json_of(&obj);
        let rela = common::json::kids(&j["root"])
            .into_iter()
            .flat_map(common::json::kids)
            .find(|n| common::json::name(n).ends_with(" .rela.debug_info"))
            .expect(".rela.debug_info");
        let mut got = Vec::new();
        for e in common::json::kids(rela) {
            let Some(l) = e.get("link") else { continue };
            let space = l["space"].as_u64().unwrap();
            // The space .debug_info's compressed bytes were inflated into
            // (after its 24-byte Chdr).
            let from = &j["spaces"][space as usize]["from"];
            assert_eq!(from["offset"].as_u64(), Some(info_at + 24), "{cmd}: {l}");
            got.push(l["offset"].as_u64().unwrap());
        }
        assert_eq!(got, want, "{cmd}");
    }
}
