//! Intel zebin: the IntelGT notes against what ocloc's device configs imply,
//! the `.ze_info` tree against its own bytes, kernels against the `object`
//! crate, and, where ocloc is installed, a zebin built here.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use fwview::formats::build_from_bytes;
use fwview::model::{NodeId, Severity, Tree};
use object::{Object, ObjectSection, ObjectSymbol};

use common::tree::{child, value};

fn zebin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/zebin/generated_locally")
}

fn child_ends(t: &mut Tree, id: NodeId, suffix: &str) -> Option<NodeId> {
    t.children(id)
        .into_iter()
        .find(|&k| t.name(k).ends_with(suffix))
}

fn bytes<'a>(d: &'a [u8], t: &Tree, id: NodeId) -> &'a [u8] {
    let n = t.node(id).unwrap();
    &d[n.offset as usize..(n.offset + n.size) as usize]
}

fn link_bytes<'a>(d: &'a [u8], t: &Tree, id: NodeId) -> &'a [u8] {
    let l = t.link(id).expect("a link");
    &d[l.offset as usize..(l.offset + l.len) as usize]
}

/// The IntelGT notes of a zebin, decoded here from the bytes: type → desc.
fn raw_notes(d: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let f = object::File::parse(d).unwrap();
    let s = f.section_by_name(".note.intelgt.compat").unwrap();
    let n = s.data().unwrap();
    let mut v = Vec::new();
    let mut o = 0;
    let rd = |o: usize| u32::from_le_bytes(n[o..o + 4].try_into().unwrap());
    while o + 12 <= n.len() {
        let (namesz, descsz, typ) = (rd(o) as usize, rd(o + 4) as usize, rd(o + 8));
        let name = &n[o + 12..o + 12 + namesz];
        assert_eq!(name, b"IntelGT\0");
        let d0 = o + 12 + namesz.div_ceil(4) * 4;
        v.push((typ, n[d0..d0 + descsz].to_vec()));
        o = d0 + descsz.div_ceil(4) * 4;
    }
    v
}

/// The decoded children of the note of type `typ` in `.note.intelgt.compat`.
fn note(t: &mut Tree, typ: &str) -> NodeId {
    let g = child(t, NodeId::ROOT, "sections").unwrap();
    let s = child_ends(t, g, "] .note.intelgt.compat").unwrap();
    child_ends(t, s, typ).unwrap_or_else(|| panic!("no note {typ}"))
}

/// What the product configs ocloc names (architecture.release.revision)
/// imply: the product family.
fn family_of(config: &str) -> (u32, &'static str) {
    match config {
        c if c.starts_with("12.0.") => (29, "IGFX_TIGERLAKE_LP"),
        c if c.starts_with("12.55.") => (1270, "IGFX_DG2"),
        c if c.starts_with("12.60.") => (1271, "IGFX_PVC"),
        c => panic!("unknown config {c}"),
    }
}

fn check_notes(label: &str, d: &[u8], family: (u32, &str), revision: Option<u32>) {
    let raw = raw_notes(d);
    let word = |typ: u32| -> u32 {
        let r = raw.iter().find(|r| r.0 == typ).unwrap();
        u32::from_le_bytes(r.1[..4].try_into().unwrap())
    };
    assert_eq!(word(1), family.0, "{label}: product family");
    let mut t = build_from_bytes(d.to_vec());
    let n = note(&mut t, "NT_INTELGT_PRODUCT_FAMILY");
    let pf = child(&mut t, n, "product family").unwrap();
    assert_eq!(
        value(&t, pf),
        format!("{} ({})", family.0, family.1),
        "{label}"
    );
    let n = note(&mut t, "NT_INTELGT_GFXCORE_FAMILY");
    let gf = child(&mut t, n, "gfxcore family").unwrap();
    // ocloc 22.43 leaves the core family unset (0).
    assert_eq!(
        value(&t, gf),
        format!("{} (IGFX_UNKNOWN_CORE)", word(2)),
        "{label}"
    );
    // TARGET_METADATA, decoded here bit by bit.
    let tm = word(3);
    let n = note(&mut t, "NT_INTELGT_TARGET_METADATA");
    let g = child(&mut t, n, "target metadata").unwrap();
    let field = |t: &mut Tree, name: &str| -> u32 {
        let c = child(t, g, name).unwrap();
        value(t, c)
            .split([' ', ','])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(field(&mut t, "generatorSpecificFlags"), tm & 0xff);
    assert_eq!(field(&mut t, "minHwRevisionId"), (tm >> 8) & 0x1f);
    assert_eq!(field(&mut t, "validateRevisionId"), (tm >> 13) & 1);
    assert_eq!(field(&mut t, "disableExtendedValidation"), (tm >> 14) & 1);
    assert_eq!(field(&mut t, "maxHwRevisionId"), (tm >> 16) & 0x1f);
    assert_eq!(field(&mut t, "generatorId"), tm >> 21 & 7);
    assert_eq!(tm >> 21 & 7, 1, "{label}: IGC wrote it");
    let gid = child(&mut t, g, "generatorId").unwrap();
    assert!(value(&t, gid).starts_with("1 (IGC)"));
    if let Some(rev) = revision {
        assert_eq!(
            field(&mut t, "minHwRevisionId"),
            rev,
            "{label}: min revision = the config's"
        );
        assert_eq!(
            field(&mut t, "maxHwRevisionId"),
            rev,
            "{label}: max revision = the config's"
        );
    }
    let n = note(&mut t, "NT_INTELGT_ZEBIN_VERSION");
    let v = child(&mut t, n, "zebin version").unwrap();
    assert_eq!(value(&t, v), "\"1.20\"");
    // readelf calls this file's metrics note corrupt: fwview says no more
    // than info.
    assert!(
        t.diagnostics()
            .iter()
            .all(|d| d.severity < Severity::Warning),
        "{label}: {:?}",
        t.diagnostics()
    );
}

#[test]
fn notes_match_the_device_configs() {
    for (file, config) in [
        ("ocloc22.43__add_Gen12LPlp.bin", "12.0.0"),
        ("ocloc22.43__add_32_Gen12LPlp.bin", "12.0.0"),
        ("ocloc22.43__add_XE_HPG_COREdg2.bin", "12.55.0"),
        ("ocloc22.43__add_XE_HPC_COREpvc.bin", "12.60.7"),
        ("ocloc22.43__add_debug_XE_HPC_COREpvc.bin", "12.60.7"),
    ] {
        let d = std::fs::read(zebin_dir().join(file)).unwrap();
        // `-device dg2` names a family, not one config: its revision is 0.
        let rev = config.rsplit('.').next().unwrap().parse().unwrap();
        check_notes(file, &d, family_of(config), Some(rev));
    }
}

#[test]
fn fat_archive_members_match_their_names() {
    let d = std::fs::read(zebin_dir().join("ocloc22.43__add_fat.ar")).unwrap();
    let ar = object::read::archive::ArchiveFile::parse(&*d).unwrap();
    let mut seen = 0;
    for m in ar.members() {
        let m = m.unwrap();
        let name = String::from_utf8_lossy(m.name()).into_owned();
        let Some(config) = name.strip_prefix("64.") else {
            continue;
        };
        let data = m.data(&*d).unwrap();
        let rev = config.rsplit('.').next().unwrap().parse().unwrap();
        check_notes(&name, data, family_of(config), Some(rev));
        seen += 1;
    }
    assert_eq!(seen, 3);
}

/// Every `.ze_info` node: its bytes start with its key and its link holds
/// the value as written.
fn check_yaml(d: &[u8], t: &mut Tree, id: NodeId) -> usize {
    let mut n = 0;
    for k in t.children(id) {
        let name = t.name(k).to_string();
        // Whitespace and punctuation between the entries.
        if t.children(k).is_empty() && fwview::model::GAP_NAMES.contains(&name.as_str()) {
            continue;
        }
        let b = bytes(d, t, k);
        if !name.starts_with('[') {
            assert!(
                b.starts_with(name.as_bytes()),
                "{name}: {:?}",
                String::from_utf8_lossy(b)
            );
        }
        if t.children(k).is_empty() {
            let v = value(t, k);
            let l = link_bytes(d, t, k);
            let l = String::from_utf8_lossy(l);
            let unq = v.trim_matches('"');
            assert!(
                l == v || l.trim_matches(['\'', '"']) == unq,
                "{name}: link {l:?} vs value {v:?}"
            );
            n += 1;
        } else {
            n += check_yaml(d, t, k);
        }
    }
    n
}

fn kernels_and_links(label: &str, d: &[u8], kernels: &[&str]) {
    let obj = object::File::parse(d).unwrap();
    let mut t = build_from_bytes(d.to_vec());
    let g = child(&mut t, NodeId::ROOT, "sections").unwrap();
    let zi = child_ends(&mut t, g, "] .ze_info").unwrap();
    let leaves = check_yaml(d, &mut t, zi);
    assert!(leaves > 20, "{label}: {leaves} scalars");
    let v = child(&mut t, zi, "version").unwrap();
    assert_eq!(value(&t, v), "\"1.20\"");
    let ks = child(&mut t, zi, "kernels").unwrap();
    let names: Vec<String> = t
        .children(ks)
        .into_iter()
        .map(|k| t.name(k).to_string())
        .filter(|n| n != "syntax")
        .collect();
    let want: Vec<String> = kernels
        .iter()
        .enumerate()
        .map(|(i, k)| format!("[{i}] {k}"))
        .collect();
    assert_eq!(names, want, "{label}");
    for (i, k) in kernels.iter().enumerate() {
        let sec = obj.section_by_name(&format!(".text.{k}")).unwrap();
        let (so, ss) = sec.file_range().unwrap();
        let node = child_ends(&mut t, g, &format!("] .text.{k}")).unwrap();
        assert_eq!(
            (t.node(node).unwrap().offset, t.node(node).unwrap().size),
            (so, ss),
            "{label}"
        );
        // The code links to its .ze_info entry and back.
        let entry = child(&mut t, ks, &format!("[{i}] {k}")).unwrap();
        let eb = String::from_utf8_lossy(link_bytes(d, &t, node)).into_owned();
        assert!(eb.starts_with("name:"), "{label}: {eb:?}");
        assert_eq!(
            eb.lines().next().unwrap().split_whitespace().nth(1),
            Some(*k)
        );
        // The entry links to the kernel's first instruction: following
        // it selects the node that starts where the code starts.
        let l = t.link(entry).unwrap();
        assert_eq!((l.offset, l.len), (so, ss.min(1)), "{label}");
        let hit = t.smallest_containing(l);
        assert_eq!(t.node(hit).unwrap().offset, so, "{label}");
        // The symbols in that section, linked to their table entries.
        let in_sec: Vec<String> = obj
            .symbols()
            .filter(|s| s.section_index() == Some(sec.index()))
            .map(|s| s.name().unwrap().to_string())
            .collect();
        assert!(in_sec.contains(&k.to_string()));
        let shown: Vec<String> = t
            .children(node)
            .into_iter()
            .filter_map(|c| t.name(c).strip_prefix("symbol ").map(str::to_string))
            .collect();
        assert_eq!(shown, in_sec, "{label}");
        for c in t.children(node) {
            let nm = t.name(c).to_string();
            let Some(sname) = nm.strip_prefix("symbol ") else {
                continue;
            };
            let l = t.link(c).unwrap();
            let st_name = u32::from_le_bytes(
                d[l.offset as usize..l.offset as usize + 4]
                    .try_into()
                    .unwrap(),
            );
            let strtab = obj.section_by_name(".strtab").unwrap();
            let sd = strtab.data().unwrap();
            let end = sd[st_name as usize..].iter().position(|&c| c == 0).unwrap();
            assert_eq!(
                &sd[st_name as usize..st_name as usize + end],
                sname.as_bytes()
            );
        }
    }
    // .spv: SPIR-V header words, read here.
    let spv = obj.section_by_name(".spv").unwrap();
    let sd = spv.data().unwrap();
    let w = |i: usize| u32::from_le_bytes(sd[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(w(0), 0x0723_0203);
    let sn = child_ends(&mut t, g, "] .spv").unwrap();
    let ver = child(&mut t, sn, "version").unwrap();
    assert_eq!(
        value(&t, ver),
        format!("{}.{}", w(1) >> 16 & 0xff, w(1) >> 8 & 0xff)
    );
    let bound = child(&mut t, sn, "bound").unwrap();
    assert!(value(&t, bound).starts_with(&w(3).to_string()));
    // .misc.* as text.
    if let Some(m) = obj
        .sections()
        .find(|s| s.name().unwrap_or("").starts_with(".misc."))
    {
        let node = child_ends(&mut t, g, &format!("] {}", m.name().unwrap())).unwrap();
        let tx = child(&mut t, node, "text").unwrap();
        let want = String::from_utf8_lossy(m.data().unwrap());
        assert_eq!(
            value(&t, tx),
            format!("\"{}\"", want.trim_end_matches('\0'))
        );
    }
}

#[test]
fn ze_info_and_kernels() {
    for f in std::fs::read_dir(zebin_dir()).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "bin") {
            let d = std::fs::read(&p).unwrap();
            kernels_and_links(&p.display().to_string(), &d, &["add", "scale"]);
        }
    }
}

const KERNELS: &str = r#"
global int counter = 5;
constant int table[4] = {1, 2, 3, 4};
int helper(int x) { return table[x & 3] + counter; }
kernel void first(global int *out) { out[get_global_id(0)] = helper(get_global_id(0)); }
kernel void second(global float *a, float s) { a[get_global_id(0)] *= s; counter++; }
"#;

#[test]
fn a_zebin_built_by_ocloc() {
    if !common::tool("ocloc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), KERNELS).unwrap();
    let out = Command::new("ocloc")
        .current_dir(dir.path())
        .env("IGC_EnableZEBinary", "1")
        .args([
            "compile",
            "-file",
            "k.cl",
            "-device",
            "tgllp",
            "-options",
            "-cl-std=CL2.0",
            "-output",
            "k",
        ])
        .output()
        .unwrap();
    let built = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"));
    let Some(bin) = built.filter(|_| out.status.success()) else {
        // ocloc is there but could not compile (no compiler back end for
        // the device, say): a skip, unless every reference tool must work.
        let why = String::from_utf8_lossy(&out.stdout);
        assert!(!common::tools_required(), "ocloc could not build: {why}");
        eprintln!("skipped: ocloc could not build: {why}");
        return;
    };
    let d = std::fs::read(&bin).unwrap();
    assert_eq!(&d[18..20], &[205, 0], "a zebin (EM_INTELGT)");
    check_notes("ocloc tgllp", &d, family_of("12.0.0"), Some(0));
    // IGC adds a kernel of its own for program-scope symbols.
    kernels_and_links(
        "ocloc tgllp",
        &d,
        &["first", "second", "Intel_Symbol_Table_Void_Program"],
    );
    // Relocations: R_ZE_* names, and each one's symbol against object.
    let obj = object::File::parse(&*d).unwrap();
    let mut t = build_from_bytes(d.clone());
    let g = child(&mut t, NodeId::ROOT, "sections").unwrap();
    let mut n = 0;
    for s in obj.sections() {
        let name = s.name().unwrap();
        if !name.starts_with(".rel") {
            continue;
        }
        let node = child_ends(&mut t, g, &format!("] {name}")).unwrap();
        let target = obj
            .section_by_name(name.trim_start_matches(".rela").trim_start_matches(".rel"))
            .unwrap();
        let relocs: Vec<_> = target.relocations().collect();
        let els = t.children(node);
        assert_eq!(els.len(), relocs.len(), "{name}");
        for ((off, r), &id) in relocs.iter().zip(&els) {
            let object::RelocationFlags::Elf { r_type } = r.flags() else {
                panic!("not ELF")
            };
            let want = match r_type.0 {
                0 => "R_ZE_NONE",
                1 => "R_ZE_SYM_ADDR",
                2 => "R_ZE_SYM_ADDR_32",
                3 => "R_ZE_SYM_ADDR_32_HI",
                4 => "R_PER_THREAD_PAYLOAD_OFFSET_32",
                x => panic!("unexpected type {x}"),
            };
            let label = t.name(id).to_string();
            let object::RelocationTarget::Symbol(si) = r.target() else {
                panic!("no symbol")
            };
            let sym = obj.symbol_by_index(si).unwrap().name().unwrap().to_string();
            assert!(
                label.ends_with(&format!("{want} {sym}")),
                "{label} vs {want} {sym}"
            );
            // r_offset links into the kernel's code.
            let l = t.link(id).unwrap();
            assert_eq!(l.offset, target.file_range().unwrap().0 + off);
            n += 1;
        }
    }
    assert!(n >= 4, "{n} relocations");
    // The build options are in .misc.buildOptions.
    let m = obj.section_by_name(".misc.buildOptions").unwrap();
    assert!(String::from_utf8_lossy(m.data().unwrap()).contains("-cl-std=CL2.0"));
}

#[test]
fn extract_ze_info_by_path() {
    use assert_cmd::prelude::*;
    let f = zebin_dir().join("ocloc22.43__add_XE_HPG_COREdg2.bin");
    let d = std::fs::read(&f).unwrap();
    let obj = object::File::parse(&*d).unwrap();
    let want = obj
        .section_by_name(".ze_info")
        .unwrap()
        .data()
        .unwrap()
        .to_vec();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ze_info.yaml");
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", "sections/[6] .ze_info"])
        .arg(&f)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), want);
    // And one value, by its YAML path.
    let out = dir.path().join("simd_size.txt");
    Command::cargo_bin("fwview")
        .unwrap()
        .args([
            "--extract",
            "sections/[6] .ze_info/kernels/[1] scale/execution_env/simd_size",
        ])
        .arg(&f)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let got = std::fs::read_to_string(&out).unwrap();
    assert!(got.starts_with("simd_size:"), "{got:?}");
}

/// A `.ze_info` that is not YAML: the runtime refuses the module, so the
/// file is in error, at a byte of the section.
#[test]
fn ze_info_that_is_not_yaml_is_an_error() {
    let f = zebin_dir().join("ocloc22.43__add_XE_HPG_COREdg2.bin");
    let mut d = std::fs::read(&f).unwrap();
    let (o, n) = {
        let obj = object::File::parse(&*d).unwrap();
        let s = obj.section_by_name(".ze_info").unwrap();
        let (o, n) = s.file_range().unwrap();
        (o as usize, n as usize)
    };
    let t = build_from_bytes(d.clone());
    assert!(t
        .diagnostics()
        .iter()
        .all(|g| g.severity != Severity::Error));
    // A flow sequence that never closes.
    let bad = b"version: [1.20, \n";
    d[o..o + bad.len()].copy_from_slice(bad);
    d[o + bad.len()..o + n].fill(b' ');
    let t = build_from_bytes(d);
    let errs: Vec<_> = t
        .diagnostics()
        .iter()
        .filter(|g| g.severity == Severity::Error)
        .collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].message.contains(".ze_info"), "{errs:?}");
    assert!(
        (o..o + n).contains(&(errs[0].span.offset as usize)),
        "{errs:?}"
    );
}
