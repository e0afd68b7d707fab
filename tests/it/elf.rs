//! ELF: fwview's tree against the `object` crate, binutils `readelf` and
//! `llvm-readelf`, on the samples, on the test binary itself, on objects
//! built here with clang and gcc, and on small ELFs written by the tests.

#![allow(clippy::type_complexity)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::prelude::*;
use common::assets;
use common::json::lead;
use common::tree::{child, errors, has_diag, kids, label_name, val};
use fwview::formats::build_from_bytes;
use fwview::model::{Format, Severity};
use object::read::elf::{FileHeader, Rel, Rela, SectionHeader, Sym};
use object::Endianness;

// ---------------------------------------------------------------- helpers

/// The ELF images inside the XE samples.
fn xe_elfs() -> Vec<(String, Vec<u8>)> {
    let out = common::xe_tile_elfs();
    assert!(out.len() >= 6, "the XE samples hold ELF sectors");
    out
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for dir in [
        "offload",
        "offload/generated_locally",
        "zebin/generated_locally",
    ] {
        for e in std::fs::read_dir(assets().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if !p.is_file() {
                continue;
            }
            let d = std::fs::read(&p).unwrap();
            if d.starts_with(b"\x7fELF") {
                v.push((p.display().to_string(), d));
            }
        }
    }
    v.extend(xe_elfs());
    v
}

// ------------------------------------------------- comparison with object

fn compare_with_object(label: &str, data: &[u8]) {
    match data.get(4) {
        Some(1) => compare::<object::elf::FileHeader32<Endianness>>(label, data),
        Some(2) => compare::<object::elf::FileHeader64<Endianness>>(label, data),
        _ => panic!("{label}: not ELF"),
    }
}

fn compare<E: FileHeader<Endian = Endianness>>(label: &str, data: &[u8]) {
    let h = E::parse(data).unwrap();
    let en = h.endian().unwrap();
    let secs = h.sections(en, data).unwrap();
    let mut t = build_from_bytes(data.to_vec());
    let root = t.root();
    assert_eq!(errors(&t), Vec::<String>::new(), "{label}: errors");
    let hdr = child(&mut t, root, "header").unwrap();
    assert_eq!(
        val(&mut t, hdr, "e_machine"),
        u64::from(h.e_machine(en).0),
        "{label}"
    );
    assert_eq!(
        val(&mut t, hdr, "e_type"),
        u64::from(h.e_type(en).0),
        "{label}"
    );
    let sh = child(&mut t, root, "section headers").unwrap();
    let elems = kids(&mut t, sh);
    assert_eq!(elems.len(), secs.len(), "{label}: section count");
    let mut symbols = 0usize;
    let mut relocs = 0usize;
    for (i, (s, &id)) in secs.iter().zip(&elems).enumerate() {
        let name = String::from_utf8_lossy(secs.section_name(en, s).unwrap()).into_owned();
        let nm = t.name(id).to_string();
        assert_eq!(label_name(&nm), name, "{label}: section {i} name");
        assert_eq!(
            val(&mut t, id, "sh_name"),
            u64::from(s.sh_name(en)),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_type"),
            u64::from(s.sh_type(en).0),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_flags"),
            s.sh_flags(en).0,
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_addr"),
            s.sh_addr(en).into(),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_offset"),
            s.sh_offset(en).into(),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_size"),
            s.sh_size(en).into(),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_link"),
            u64::from(s.sh_link(en)),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_info"),
            u64::from(s.sh_info(en)),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_addralign"),
            s.sh_addralign(en).into(),
            "{label} [{i}]"
        );
        assert_eq!(
            val(&mut t, id, "sh_entsize"),
            s.sh_entsize(en).into(),
            "{label} [{i}]"
        );
        // sh_offset links to the section's bytes.
        if s.sh_type(en) != object::elf::SHT_NOBITS && s.sh_size(en).into() > 0 {
            let so = child(&mut t, id, "sh_offset").unwrap();
            let l = t.link(so).unwrap();
            assert_eq!(
                (l.offset, l.len),
                (s.sh_offset(en).into(), s.sh_size(en).into())
            );
        }
        let contents = || format!("[{i}] {name}");
        let st = s.sh_type(en);
        if st == object::elf::SHT_SYMTAB || st == object::elf::SHT_DYNSYM {
            let table = object::read::elf::SymbolTable::<E, &[u8]>::parse(
                en,
                data,
                &secs,
                object::SectionIndex(i),
                s,
            )
            .unwrap();
            let g = child(&mut t, root, "sections").unwrap();
            let node = child(&mut t, g, &contents()).unwrap();
            let els = kids(&mut t, node);
            assert_eq!(els.len(), table.symbols().len(), "{label}: {name} count");
            for (k, (sym, &sid)) in table.symbols().iter().zip(&els).enumerate() {
                let want =
                    String::from_utf8_lossy(table.symbol_name(en, sym).unwrap()).into_owned();
                assert_eq!(
                    val(&mut t, sid, "st_name"),
                    u64::from(sym.st_name(en)),
                    "{label} sym {k}"
                );
                assert_eq!(
                    val(&mut t, sid, "st_value"),
                    sym.st_value(en).into(),
                    "{label} sym {k}"
                );
                assert_eq!(
                    val(&mut t, sid, "st_size"),
                    sym.st_size(en).into(),
                    "{label} sym {k}"
                );
                assert_eq!(
                    val(&mut t, sid, "st_info"),
                    u64::from(sym.st_info().0),
                    "{label} sym {k}"
                );
                assert_eq!(
                    val(&mut t, sid, "st_other"),
                    u64::from(sym.st_other().0),
                    "{label} sym {k}"
                );
                assert_eq!(
                    val(&mut t, sid, "st_shndx"),
                    u64::from(sym.st_shndx(en).0),
                    "{label} sym {k}"
                );
                let sn = child(&mut t, sid, "st_name").unwrap();
                if !want.is_empty() {
                    assert_eq!(label_name(t.name(sid)), want, "{label} sym {k}");
                    let l = t.link(sn).unwrap();
                    assert_eq!(
                        &data[l.offset as usize..(l.offset + l.len - 1) as usize],
                        want.as_bytes()
                    );
                }
            }
            symbols += els.len();
        }
        let rels: Option<Vec<(u64, u64, u32, u32, Option<i64>)>> =
            if let Some((r, _)) = s.rel(en, data).unwrap() {
                Some(
                    r.iter()
                        .map(|x| {
                            (
                                x.r_offset(en).into(),
                                x.r_info(en).into(),
                                x.r_sym(en),
                                x.r_type(en).0,
                                None,
                            )
                        })
                        .collect(),
                )
            } else {
                s.rela(en, data).unwrap().map(|(r, _)| {
                    r.iter()
                        .map(|x| {
                            (
                                x.r_offset(en).into(),
                                x.r_info(en, false).into(),
                                x.r_sym(en, false),
                                x.r_type(en, false).0,
                                Some(x.r_addend(en).into()),
                            )
                        })
                        .collect()
                })
            };
        if let Some(rels) = rels {
            let g = child(&mut t, root, "sections").unwrap();
            let node = child(&mut t, g, &contents()).unwrap();
            let els = kids(&mut t, node);
            assert_eq!(els.len(), rels.len(), "{label}: {name} count");
            for (k, (r, &rid)) in rels.iter().zip(&els).enumerate() {
                assert_eq!(val(&mut t, rid, "r_offset"), r.0, "{label} {name} [{k}]");
                let info = child(&mut t, rid, "r_info").unwrap();
                assert_eq!(
                    lead(t.value_text(info).as_deref().unwrap()),
                    r.1,
                    "{label} {name} [{k}]"
                );
                assert_eq!(
                    val(&mut t, info, "sym"),
                    u64::from(r.2),
                    "{label} {name} [{k}]"
                );
                assert_eq!(
                    val(&mut t, info, "type"),
                    u64::from(r.3),
                    "{label} {name} [{k}]"
                );
                if let Some(a) = r.4 {
                    let an = child(&mut t, rid, "r_addend").unwrap();
                    let v: i64 = t
                        .value_text(an)
                        .unwrap()
                        .split(' ')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    assert_eq!(v, a, "{label} {name} [{k}]");
                }
            }
            relocs += els.len();
        }
    }
    eprintln!(
        "{label}: {} sections, {symbols} symbols, {relocs} relocations agree",
        secs.len()
    );
}

#[test]
fn object_agrees_on_samples() {
    for (label, d) in samples() {
        compare_with_object(&label, &d);
    }
}

#[test]
fn object_agrees_on_the_test_binary() {
    let exe = std::env::current_exe().unwrap();
    let d = std::fs::read(&exe).unwrap();
    if !d.starts_with(b"\x7fELF") {
        eprintln!("skipped: the test binary is not ELF");
        return;
    }
    compare_with_object(&exe.display().to_string(), &d);
}

/// C source with data, calls and relocations.
const C_SRC: &str = r#"
extern int ext_counter;
extern int ext_func(int);
static int local_table[4] = {1, 2, 3, 4};
int global_value = 42;
const char *greeting = "hello";
int use_them(int x) { return ext_func(x) + ext_counter + local_table[x & 3] + global_value + greeting[0]; }
"#;

fn build(cc: &str, args: &[&str], dir: &Path, name: &str) -> Option<Vec<u8>> {
    let src = dir.join("t.c");
    std::fs::write(&src, C_SRC).unwrap();
    let out = dir.join(name);
    let st = Command::new(cc)
        .args(args)
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .ok()?;
    if !st.status.success() {
        eprintln!(
            "{cc} {args:?} failed: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        return None;
    }
    std::fs::read(&out).ok()
}

/// (label, target triple args) that clang builds without headers.
const CLANG_TARGETS: &[(&str, &[&str])] = &[
    ("x86_64", &["--target=x86_64-linux-gnu", "-O1"]),
    ("i386", &["--target=i386-linux-gnu", "-O1"]),
    ("aarch64", &["--target=aarch64-linux-gnu", "-O1"]),
    ("riscv64", &["--target=riscv64-linux-gnu", "-O1"]),
    ("riscv32", &["--target=riscv32-unknown-elf", "-O1"]),
    ("ppc64-be", &["--target=powerpc64-linux-gnu", "-O1"]),
    ("ppc32-be", &["--target=powerpc-linux-gnu", "-O1"]),
    ("s390x-be", &["--target=s390x-linux-gnu", "-O1"]),
    (
        "amdgpu",
        &[
            "--target=amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-nogpulib",
            "-O1",
        ],
    ),
];

fn clang_objects(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    if !common::tool("clang-22") {
        return v;
    }
    for (name, args) in CLANG_TARGETS {
        if let Some(d) = build("clang-22", args, dir, &format!("{name}.o")) {
            v.push((name.to_string(), d));
        }
    }
    v
}

#[test]
fn object_agrees_on_built_objects() {
    let dir = tempfile::tempdir().unwrap();
    let mut objs = clang_objects(dir.path());
    if common::tool("gcc") {
        for (n, args) in [
            ("gcc-O2", &["-O2"][..]),
            ("gcc-pic-g", &["-fPIC", "-g"][..]),
        ] {
            if let Some(d) = build("gcc", args, dir.path(), &format!("{n}.o")) {
                objs.push((n.into(), d));
            }
        }
        // A shared object: dynamic section, dynsym, PLT relocations.
        let so = dir.path().join("t.so");
        let src = dir.path().join("t.c");
        let ok = Command::new("gcc")
            .args([
                "-shared",
                "-fPIC",
                "-Wl,--unresolved-symbols=ignore-all",
                "-o",
            ])
            .arg(&so)
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            objs.push(("gcc-shared".into(), std::fs::read(&so).unwrap()));
        }
        // An executable: program headers, and crt objects' GNU property
        // notes (8-byte aligned in ELF64).
        let main = dir.path().join("m.c");
        std::fs::write(&main, "int main(void) { return 0; }\n").unwrap();
        let exe = dir.path().join("m");
        if Command::new("gcc")
            .arg("-o")
            .arg(&exe)
            .arg(&main)
            .status()
            .is_ok_and(|s| s.success())
        {
            let d = std::fs::read(&exe).unwrap();
            let mut t = build_from_bytes(d.clone());
            let g = child(&mut t, fwview::model::NodeId::ROOT, "sections").unwrap();
            let ks = t.children(g);
            if let Some(p) = ks
                .into_iter()
                .find(|&k| t.name(k).ends_with("] .note.gnu.property"))
            {
                let n = t.children(p)[0];
                assert_eq!(t.name(n), "[0] GNU NT_GNU_PROPERTY_TYPE_0");
                assert!(child(&mut t, n, "properties").is_some());
                assert_eq!(t.node(n).unwrap().size, t.node(p).unwrap().size);
            }
            objs.push(("gcc-exe".into(), d));
        }
    }
    for (label, d) in &objs {
        compare_with_object(label, d);
    }
}

// --------------------------------------------------- comparison with readelf

/// `readelf -s -W`'s .symtab lines: (value, size, type, bind, name).
fn readelf_syms(path: &Path) -> Vec<(u64, u64, String, String, String)> {
    let out = Command::new("readelf")
        .args(["-s", "-W"])
        .arg(path)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    let mut v = Vec::new();
    let mut in_symtab = false;
    for line in s.lines() {
        if line.starts_with("Symbol table") {
            in_symtab = line.contains("'.symtab'");
            continue;
        }
        if !in_symtab {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 7 || !f[0].ends_with(':') || f[0] == "Num:" {
            continue;
        }
        let size = if let Some(h) = f[2].strip_prefix("0x") {
            u64::from_str_radix(h, 16).unwrap()
        } else {
            f[2].parse().unwrap()
        };
        let name = f.get(7..).map(|x| x.join(" ")).unwrap_or_default();
        v.push((
            u64::from_str_radix(f[1], 16).unwrap(),
            size,
            f[3].to_string(),
            f[4].to_string(),
            name,
        ));
    }
    v
}

/// `readelf -r -W`: per section name, (offset, info, type name).
fn readelf_relocs(tool: &str, path: &Path) -> Vec<(String, Vec<(u64, u64, String)>)> {
    let out = Command::new(tool)
        .args(["-r", "-W"])
        .arg(path)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<(String, Vec<(u64, u64, String)>)> = Vec::new();
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("Relocation section '") {
            let name = rest.split('\'').next().unwrap().to_string();
            v.push((name, Vec::new()));
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            continue;
        }
        let (Ok(o), Ok(i)) = (u64::from_str_radix(f[0], 16), u64::from_str_radix(f[1], 16)) else {
            continue;
        };
        if let Some(last) = v.last_mut() {
            last.1.push((o, i, f[2].to_string()));
        }
    }
    v
}

fn compare_with_readelf(tool: &str, label: &str, path: &Path, names_too: bool) {
    let data = std::fs::read(path).unwrap();
    let mut t = build_from_bytes(data);
    let root = t.root();
    let g = child(&mut t, root, "sections").unwrap();
    if tool == "readelf" {
        let syms = readelf_syms(path);
        if !syms.is_empty() {
            let ks = t.children(g);
            let node = ks.into_iter().find(|&k| t.name(k).ends_with("] .symtab"));
            let node = node.unwrap();
            let els = kids(&mut t, node);
            assert_eq!(els.len(), syms.len(), "{label}: symbols");
            for (k, (s, &id)) in syms.iter().zip(&els).enumerate() {
                assert_eq!(val(&mut t, id, "st_value"), s.0, "{label} sym {k}");
                assert_eq!(val(&mut t, id, "st_size"), s.1, "{label} sym {k}");
                let info = child(&mut t, id, "st_info").unwrap();
                let iv = t.value_text(info).unwrap();
                assert!(
                    iv.contains(&format!("{} {}", s.3, s.2)),
                    "{label} sym {k}: {iv} vs {} {}",
                    s.3,
                    s.2
                );
                // readelf shows section symbols with an empty name.
                let ours = label_name(t.name(id)).to_string();
                if !s.4.is_empty() {
                    assert_eq!(ours.trim(), s.4, "{label} sym {k}");
                }
            }
        }
    }
    for (sec, rels) in readelf_relocs(tool, path) {
        let ks = t.children(g);
        let node = ks
            .into_iter()
            .find(|&k| t.name(k).ends_with(&format!("] {sec}")))
            .unwrap();
        let els = kids(&mut t, node);
        assert_eq!(els.len(), rels.len(), "{label}: {sec}");
        for (k, (r, &id)) in rels.iter().zip(&els).enumerate() {
            assert_eq!(val(&mut t, id, "r_offset"), r.0, "{label} {sec} [{k}]");
            let info = child(&mut t, id, "r_info").unwrap();
            assert_eq!(
                lead(t.value_text(info).as_deref().unwrap()),
                r.1,
                "{label} {sec} [{k}]"
            );
            if names_too {
                let ty = child(&mut t, info, "type").unwrap();
                let tv = t.value_text(ty).unwrap();
                assert!(
                    tv.ends_with(&format!("({})", r.2)),
                    "{label} {sec} [{k}]: {tv} vs {}",
                    r.2
                );
            }
        }
    }
}

#[test]
fn readelf_agrees() {
    if !common::tool("readelf") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<(String, PathBuf, bool)> = Vec::new();
    for (label, d) in samples() {
        let p = dir.path().join(format!("s{}.elf", paths.len()));
        std::fs::write(&p, &d).unwrap();
        // Binutils names x86-64 relocations as the psABI does; zebin and
        // XCORE relocation names it does not know.
        let x86 = d.get(18) == Some(&62);
        paths.push((label, p, x86));
    }
    for (label, d) in clang_objects(dir.path()) {
        let p = dir.path().join(format!("{label}.o"));
        std::fs::write(&p, &d).unwrap();
        paths.push((
            label.clone(),
            p,
            matches!(label.as_str(), "x86_64" | "i386" | "aarch64" | "riscv64"),
        ));
    }
    let exe = std::env::current_exe().unwrap();
    paths.push(("test binary".into(), exe, true));
    for (label, p, names) in &paths {
        compare_with_readelf("readelf", label, p, *names);
    }
}

#[test]
fn llvm_readelf_agrees_on_relocation_names() {
    if !common::tool("llvm-readelf-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let objs = clang_objects(dir.path());
    for (label, d) in objs {
        let p = dir.path().join(format!("{label}.o"));
        std::fs::write(&p, &d).unwrap();
        compare_with_readelf("llvm-readelf-22", &label, &p, true);
    }
}

// ------------------------------------------------------------ header names

#[test]
fn header_fields_are_named() {
    let cases: Vec<(Vec<u8>, &str, &str, &str)> = vec![
        (
            std::fs::read(assets().join("zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin"))
                .unwrap(),
            "205 (INTELGT)",
            "2 (ELFCLASS64)",
            "1 (ELFDATA2LSB, little-endian)",
        ),
        (
            std::fs::read(
                assets().join("zebin/generated_locally/ocloc22.43__add_32_Gen12LPlp.bin"),
            )
            .unwrap(),
            "205 (INTELGT)",
            "1 (ELFCLASS32)",
            "1 (ELFDATA2LSB, little-endian)",
        ),
        (
            xe_elfs().remove(0).1,
            "203 (XCORE)",
            "1 (ELFCLASS32)",
            "1 (ELFDATA2LSB, little-endian)",
        ),
    ];
    for (d, machine, class, data) in cases {
        let mut t = build_from_bytes(d);
        let root = t.root();
        let h = child(&mut t, root, "header").unwrap();
        let m = child(&mut t, h, "e_machine").unwrap();
        assert_eq!(t.value_text(m).as_deref(), Some(machine));
        let id = child(&mut t, h, "e_ident").unwrap();
        let c = child(&mut t, id, "EI_CLASS").unwrap();
        assert_eq!(t.value_text(c).as_deref(), Some(class));
        let dd = child(&mut t, id, "EI_DATA").unwrap();
        assert_eq!(t.value_text(dd).as_deref(), Some(data));
    }
    let dir = tempfile::tempdir().unwrap();
    for (label, d) in clang_objects(dir.path()) {
        let want = match label.as_str() {
            "amdgpu" => "224 (AMDGPU)",
            "x86_64" => "62 (X86_64)",
            "aarch64" => "183 (AARCH64)",
            "riscv64" | "riscv32" => "243 (RISCV)",
            "ppc64-be" => "21 (PPC64)",
            "ppc32-be" => "20 (PPC)",
            "s390x-be" => "22 (S390)",
            "i386" => "3 (386)",
            _ => continue,
        };
        let mut t = build_from_bytes(d.clone());
        let root = t.root();
        let h = child(&mut t, root, "header").unwrap();
        let m = child(&mut t, h, "e_machine").unwrap();
        assert_eq!(t.value_text(m).as_deref(), Some(want), "{label}");
        if label.ends_with("-be") {
            let id = child(&mut t, h, "e_ident").unwrap();
            let dd = child(&mut t, id, "EI_DATA").unwrap();
            assert_eq!(
                t.value_text(dd).as_deref(),
                Some("2 (ELFDATA2MSB, big-endian)")
            );
        }
        if label == "amdgpu" {
            let f = child(&mut t, h, "e_flags").unwrap();
            assert!(
                t.value_text(f).as_deref().unwrap().contains("gfx90a"),
                "{label}"
            );
            let id = child(&mut t, h, "e_ident").unwrap();
            let o = child(&mut t, id, "EI_OSABI").unwrap();
            assert_eq!(t.value_text(o).as_deref(), Some("64 (AMDGPU - HSA)"));
        }
    }
    let mut cuda = minimal_elf(true, false);
    cuda[18] = 190;
    let mut t = build_from_bytes(cuda);
    let h = child(&mut t, fwview::model::NodeId::ROOT, "header").unwrap();
    let m = child(&mut t, h, "e_machine").unwrap();
    assert_eq!(t.value_text(m).as_deref(), Some("190 (CUDA)"));
}

// ------------------------------------------------ ELFs written by the tests

/// A section for [`write_elf`].
struct S {
    name: &'static str,
    typ: u32,
    flags: u64,
    data: Vec<u8>,
    link: u32,
    info: u32,
    entsize: u64,
}

fn put(v: &mut Vec<u8>, x: u64, n: usize, big: bool) {
    let b = x.to_le_bytes();
    let mut s = b[..n].to_vec();
    if big {
        s.reverse();
    }
    v.extend_from_slice(&s);
}

/// Writes an ELF (REL) with the given sections after a null one; appends
/// `.shstrtab`. Returns the bytes and each section's data offset.
fn write_elf(is64: bool, big: bool, secs: &[S]) -> (Vec<u8>, Vec<u64>) {
    let w = if is64 { 8 } else { 4 };
    let hsize = if is64 { 64 } else { 52 };
    let shsize = if is64 { 64 } else { 40 };
    let mut shstr = vec![0u8];
    let mut name_offs = Vec::new();
    for s in secs.iter().map(|s| s.name).chain([".shstrtab"]) {
        name_offs.push(shstr.len() as u32);
        shstr.extend_from_slice(s.as_bytes());
        shstr.push(0);
    }
    let mut body = vec![0u8; hsize];
    let mut offs = Vec::new();
    for s in secs {
        while body.len() % 8 != 0 {
            body.push(0);
        }
        offs.push(body.len() as u64);
        body.extend_from_slice(&s.data);
    }
    let shstr_off = body.len() as u64;
    body.extend_from_slice(&shstr);
    while body.len() % 8 != 0 {
        body.push(0);
    }
    let shoff = body.len() as u64;
    let n = secs.len() + 2;
    let mut sh = vec![0u8; shsize];
    let all: Vec<(u32, u32, u64, u64, u64, u32, u32, u64)> = secs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                name_offs[i],
                s.typ,
                s.flags,
                offs[i],
                s.data.len() as u64,
                s.link,
                s.info,
                s.entsize,
            )
        })
        .chain([(
            name_offs[secs.len()],
            3,
            0,
            shstr_off,
            shstr.len() as u64,
            0,
            0,
            0,
        )])
        .collect();
    for (nm, ty, fl, of, sz, ln, inf, es) in all {
        put(&mut sh, nm.into(), 4, big);
        put(&mut sh, ty.into(), 4, big);
        put(&mut sh, fl, w, big);
        put(&mut sh, 0, w, big);
        put(&mut sh, of, w, big);
        put(&mut sh, sz, w, big);
        put(&mut sh, ln.into(), 4, big);
        put(&mut sh, inf.into(), 4, big);
        put(&mut sh, 1, w, big);
        put(&mut sh, es, w, big);
    }
    body.extend_from_slice(&sh);
    let mut h = vec![
        0x7f,
        b'E',
        b'L',
        b'F',
        if is64 { 2 } else { 1 },
        if big { 2 } else { 1 },
        1,
        0,
    ];
    h.resize(16, 0);
    put(&mut h, 1, 2, big); // ET_REL
    put(&mut h, 62, 2, big);
    put(&mut h, 1, 4, big);
    put(&mut h, 0, w, big); // entry
    put(&mut h, 0, w, big); // phoff
    put(&mut h, shoff, w, big);
    put(&mut h, 0, 4, big);
    put(&mut h, hsize as u64, 2, big);
    put(&mut h, 0, 2, big);
    put(&mut h, 0, 2, big);
    put(&mut h, shsize as u64, 2, big);
    put(&mut h, n as u64, 2, big);
    put(&mut h, (n - 1) as u64, 2, big);
    body[..hsize].copy_from_slice(&h);
    (body, offs)
}

fn sym(is64: bool, big: bool, name: u32, value: u64, size: u64, info: u8, shndx: u16) -> Vec<u8> {
    let mut v = Vec::new();
    if is64 {
        put(&mut v, name.into(), 4, big);
        v.push(info);
        v.push(0);
        put(&mut v, shndx.into(), 2, big);
        put(&mut v, value, 8, big);
        put(&mut v, size, 8, big);
    } else {
        put(&mut v, name.into(), 4, big);
        put(&mut v, value, 4, big);
        put(&mut v, size, 4, big);
        v.push(info);
        v.push(0);
        put(&mut v, shndx.into(), 2, big);
    }
    v
}

/// .text, .symtab, .strtab, .rela.text, .note: in every class and order.
fn minimal_elf(is64: bool, big: bool) -> Vec<u8> {
    sample_elf(is64, big).0
}

fn sample_elf(is64: bool, big: bool) -> (Vec<u8>, Vec<u64>) {
    let w = if is64 { 8 } else { 4 };
    let text = (0u8..32).collect::<Vec<u8>>();
    let strtab = b"\0main\0helper\0".to_vec();
    let mut symtab = sym(is64, big, 0, 0, 0, 0, 0);
    symtab.extend(sym(is64, big, 1, 4, 12, 0x12, 1)); // main, GLOBAL FUNC in .text
    symtab.extend(sym(is64, big, 6, 0, 0, 0x10, 0)); // helper, undefined
    let mut rela = Vec::new();
    put(&mut rela, 8, w, big);
    let info = if is64 {
        (2u64 << 32) | 4
    } else {
        (2u64 << 8) | 4
    };
    put(&mut rela, info, w, big);
    put(&mut rela, (-4i64) as u64, w, big);
    let mut note = Vec::new();
    put(&mut note, 4, 4, big);
    put(&mut note, 8, 4, big);
    put(&mut note, 3, 4, big);
    note.extend_from_slice(b"GNU\0");
    note.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4]);
    let secs = vec![
        S {
            name: ".text",
            typ: 1,
            flags: 6,
            data: text,
            link: 0,
            info: 0,
            entsize: 0,
        },
        S {
            name: ".symtab",
            typ: 2,
            flags: 0,
            data: symtab,
            link: 3,
            info: 1,
            entsize: if is64 { 24 } else { 16 },
        },
        S {
            name: ".strtab",
            typ: 3,
            flags: 0,
            data: strtab,
            link: 0,
            info: 0,
            entsize: 0,
        },
        S {
            name: ".rela.text",
            typ: 4,
            flags: 0x40,
            data: rela,
            link: 2,
            info: 1,
            entsize: 3 * w as u64,
        },
        S {
            name: ".note.gnu.build-id",
            typ: 7,
            flags: 2,
            data: note,
            link: 0,
            info: 0,
            entsize: 0,
        },
    ];
    write_elf(is64, big, &secs)
}

#[test]
fn all_classes_and_byte_orders() {
    for (is64, big) in [(false, false), (false, true), (true, false), (true, true)] {
        let (d, offs) = sample_elf(is64, big);
        let label = format!(
            "ELF{} {}",
            if is64 { 64 } else { 32 },
            if big { "BE" } else { "LE" }
        );
        compare_with_object(&label, &d);
        let mut t = build_from_bytes(d.clone());
        assert_eq!(errors(&t), Vec::<String>::new(), "{label}");
        let g = child(&mut t, fwview::model::NodeId::ROOT, "sections").unwrap();
        // The symbol links to its bytes and its section header.
        let st = child(&mut t, g, "[2] .symtab").unwrap();
        let main = child(&mut t, st, "[1] main").unwrap();
        let l = t.link(main).unwrap();
        assert_eq!((l.offset, l.len), (offs[0] + 4, 12), "{label}");
        let shx = child(&mut t, main, "st_shndx").unwrap();
        let l = t.link(shx).unwrap();
        let hdrs = child(&mut t, fwview::model::NodeId::ROOT, "section headers").unwrap();
        let text_hdr = child(&mut t, hdrs, "[1] .text").unwrap();
        assert_eq!(l.offset, t.node(text_hdr).unwrap().offset, "{label}");
        // The relocation links to its target bytes and its symbol.
        let rl = child(&mut t, g, "[4] .rela.text").unwrap();
        let r = child(&mut t, rl, "[0] R_X86_64_PLT32 helper").unwrap();
        let l = t.link(r).unwrap();
        assert_eq!(l.offset, offs[0] + 8, "{label}");
        let info = child(&mut t, r, "r_info").unwrap();
        let sn = child(&mut t, info, "sym").unwrap();
        let l = t.link(sn).unwrap();
        let es = if is64 { 24 } else { 16 };
        assert_eq!((l.offset, l.len), (offs[1] + 2 * es, es), "{label}");
        let ad = child(&mut t, r, "r_addend").unwrap();
        assert_eq!(t.value_text(ad).as_deref(), Some("-4"));
        // sh_link and sh_info link to headers; e_shstrndx to the name table.
        let rh = child(&mut t, hdrs, "[4] .rela.text").unwrap();
        let sl = child(&mut t, rh, "sh_link").unwrap();
        let symtab_hdr = child(&mut t, hdrs, "[2] .symtab").unwrap();
        assert_eq!(
            t.link(sl).unwrap().offset,
            t.node(symtab_hdr).unwrap().offset
        );
        let si = child(&mut t, rh, "sh_info").unwrap();
        assert_eq!(t.link(si).unwrap().offset, t.node(text_hdr).unwrap().offset);
        let h = child(&mut t, fwview::model::NodeId::ROOT, "header").unwrap();
        let shoff = child(&mut t, h, "e_shoff").unwrap();
        assert_eq!(t.link(shoff).unwrap().offset, t.node(hdrs).unwrap().offset);
        let shstrndx = child(&mut t, h, "e_shstrndx").unwrap();
        let shstr = child(&mut t, g, "[6] .shstrtab").unwrap();
        assert_eq!(
            t.link(shstrndx).unwrap().offset,
            t.node(shstr).unwrap().offset
        );
        // Strings and notes.
        let strs = child(&mut t, g, "[3] .strtab").unwrap();
        let s = child(&mut t, strs, "[0x6]").unwrap();
        assert_eq!(t.value_text(s).as_deref(), Some("\"helper\""));
        let notes = child(&mut t, g, "[5] .note.gnu.build-id").unwrap();
        let n = child(&mut t, notes, "[0] GNU NT_GNU_BUILD_ID").unwrap();
        let id = child(&mut t, n, "build id").unwrap();
        assert_eq!(t.value_text(id).as_deref(), Some("deadbeef01020304"));
    }
}

fn set(d: &mut [u8], at: usize, x: u64, n: usize) {
    d[at..at + n].copy_from_slice(&x.to_le_bytes()[..n]);
}

#[test]
fn diagnostics_for_broken_files() {
    let (good, _) = sample_elf(true, false);
    let shoff = u64::from_le_bytes(good[40..48].try_into().unwrap()) as usize;
    let hdr = |i: usize| shoff + 64 * i;
    // A section outside the file.
    let mut d = good.clone();
    set(&mut d, hdr(1) + 24, 0x10_0000, 8);
    let t = build_from_bytes(d);
    assert!(
        has_diag(&t, Severity::Error, "lies outside the file"),
        "{:?}",
        t.diagnostics()
    );
    // A bad string index (sh_name past .shstrtab; st_name past .strtab).
    let mut d = good.clone();
    set(&mut d, hdr(1), 0xffff, 4);
    let t = build_from_bytes(d);
    assert!(has_diag(&t, Severity::Error, "bad string index"));
    let mut d = good.clone();
    let symtab_off =
        u64::from_le_bytes(good[hdr(2) + 24..hdr(2) + 32].try_into().unwrap()) as usize;
    set(&mut d, symtab_off + 24, 0x7777, 4);
    let mut t = build_from_bytes(d);
    t.expand_all();
    assert!(has_diag(&t, Severity::Error, "bad string index"));
    // A note past its section: descsz too large.
    let mut d = good.clone();
    let note_off = u64::from_le_bytes(good[hdr(5) + 24..hdr(5) + 32].try_into().unwrap()) as usize;
    set(&mut d, note_off + 4, 4000, 4);
    let t = build_from_bytes(d);
    assert!(has_diag(&t, Severity::Error, "runs past its section"));
    // An entsize mismatch.
    let mut d = good.clone();
    set(&mut d, hdr(2) + 56, 16, 8);
    let t = build_from_bytes(d);
    assert!(has_diag(&t, Severity::Error, "entsize mismatch"));
    // A segment outside the file: add a program header table.
    let mut d = good.clone();
    let phoff = d.len();
    let mut ph = Vec::new();
    put(&mut ph, 1, 4, false);
    put(&mut ph, 5, 4, false);
    put(&mut ph, 0x5000, 8, false);
    put(&mut ph, 0, 8, false);
    put(&mut ph, 0, 8, false);
    put(&mut ph, 0x100, 8, false);
    put(&mut ph, 0x100, 8, false);
    put(&mut ph, 0x1000, 8, false);
    d.extend_from_slice(&ph);
    set(&mut d, 32, phoff as u64, 8);
    set(&mut d, 54, 56, 2);
    set(&mut d, 56, 1, 2);
    let mut t = build_from_bytes(d);
    assert!(has_diag(&t, Severity::Error, "segment [0] PT_LOAD"));
    let h = child(&mut t, fwview::model::NodeId::ROOT, "header").unwrap();
    let p = child(&mut t, h, "e_phoff").unwrap();
    assert_eq!(t.link(p).unwrap().offset, phoff as u64);
    // A truncated file still shows what is there.
    let t = build_from_bytes(good[..40].to_vec());
    assert!(!t.diagnostics().is_empty());
    let t = build_from_bytes(good[..shoff + 100].to_vec());
    assert!(has_diag(&t, Severity::Error, "section header table"));
}

#[test]
fn offloading_sections_go_to_the_offload_parser() {
    for p in [
        "offload/debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-amdgpu-gfx90a.o",
        "offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o",
    ] {
        let d = std::fs::read(assets().join(p)).unwrap();
        let mut t = build_from_bytes(d);
        let g = child(&mut t, fwview::model::NodeId::ROOT, "sections").unwrap();
        let ks = t.children(g);
        let s = ks
            .into_iter()
            .find(|&k| t.name(k).ends_with("] .llvm.offloading"))
            .unwrap();
        let off = t.node(s).unwrap().offset;
        let inner = t.children(s);
        assert!(!inner.is_empty(), "{p}: the offload parser added nothing");
        assert_eq!(t.node(inner[0]).unwrap().offset, off, "{p}");
    }
}

#[test]
fn json_ranges_nest_and_samples_have_no_errors() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        "offload",
        "offload/generated_locally",
        "zebin/generated_locally",
    ] {
        for e in std::fs::read_dir(assets().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                files.push(p);
            }
        }
    }
    for f in files {
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .arg("--json")
            .arg(&f)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", f.display());
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        fn walk(n: &serde_json::Value) {
            let (o, s) = (n["offset"].as_u64().unwrap(), n["size"].as_u64().unwrap());
            for c in n["children"].as_array().unwrap() {
                let (co, cs) = (c["offset"].as_u64().unwrap(), c["size"].as_u64().unwrap());
                assert!(
                    co >= o && co + cs <= o + s,
                    "{} outside {}",
                    c["name"],
                    n["name"]
                );
                walk(c);
            }
        }
        walk(&j["root"]);
        for d in j["diagnostics"].as_array().unwrap() {
            assert_ne!(d["severity"], "error", "{}: {d}", f.display());
        }
    }
}

#[test]
fn damaged_files_never_panic() {
    let mut files: Vec<Vec<u8>> = vec![
        std::fs::read(assets().join("zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin"))
            .unwrap(),
        std::fs::read(assets().join("zebin/generated_locally/ocloc22.43__add_32_Gen12LPlp.bin"))
            .unwrap(),
        std::fs::read(
            assets().join("offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o"),
        )
        .unwrap(),
        std::fs::read(assets().join("zebin/generated_locally/ocloc22.43__add_fat.ar")).unwrap(),
        sample_elf(false, true).0,
    ];
    files.push(xe_elfs().remove(0).1);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for f in &files {
        for cut in (0..f.len()).step_by(f.len() / 40 + 1) {
            let mut t = build_from_bytes(f[..cut].to_vec());
            t.expand_all();
        }
        for _ in 0..300 {
            let mut d = f.clone();
            for _ in 0..(1 + rnd() % 8) {
                let n = d.len() as u64;
                // Headers and tables: the start, and the end where section
                // headers usually are.
                let at = match rnd() % 3 {
                    0 => rnd() % n.min(64),
                    1 => n - 1 - rnd() % (n / 6 + 1),
                    _ => rnd() % n,
                } as usize;
                d[at] = match rnd() % 4 {
                    0 => 0xff,
                    1 => 0,
                    2 => d[at].wrapping_add(1),
                    _ => rnd() as u8,
                };
            }
            let t0 = std::time::Instant::now();
            let mut t = build_from_bytes(d);
            t.expand_all();
            // A damaged file of a few KB must not blow up into millions of
            // nodes (a section at offset 0 once nested the file in itself).
            assert!(t.len() < 2_000_000, "{} nodes", t.len());
            assert!(t0.elapsed().as_secs() < 20, "{:?}", t0.elapsed());
        }
    }
}

#[test]
fn a_copy_of_the_magic_is_not_an_elf() {
    // glibc's dl-load.o keeps an ELF header template in .rodata.
    let mut tmpl = b"\x7fELF\x02\x01\x01".to_vec();
    tmpl.resize(64, 0);
    let mut inner = minimal_elf(false, false);
    let secs = [
        S {
            name: ".rodata",
            typ: 1,
            flags: 2,
            data: tmpl,
            link: 0,
            info: 0,
            entsize: 0,
        },
        S {
            name: ".embedded",
            typ: 1,
            flags: 0,
            data: std::mem::take(&mut inner),
            link: 0,
            info: 0,
            entsize: 0,
        },
    ];
    let (d, _) = write_elf(true, false, &secs);
    let mut t = build_from_bytes(d);
    assert_eq!(errors(&t), Vec::<String>::new());
    let g = child(&mut t, fwview::model::NodeId::ROOT, "sections").unwrap();
    let r = child(&mut t, g, "[1] .rodata").unwrap();
    assert_eq!(t.node_format(r), None);
    // A real ELF in a section is opened in place.
    let e = child(&mut t, g, "[2] .embedded").unwrap();
    assert_eq!(t.node_format(e), Some(Format::Elf));
    assert!(child(&mut t, e, "section headers").is_some());
}

#[test]
fn without_section_headers_segments_show_their_contents() {
    if !common::tool("gcc") || !common::tool("readelf") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("m.c");
    std::fs::write(&main, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.path().join("m");
    assert!(Command::new("gcc")
        .arg("-o")
        .arg(&exe)
        .arg(&main)
        .status()
        .unwrap()
        .success());
    let out = Command::new("readelf")
        .args(["-l", "-W"])
        .arg(&exe)
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let interp = listing
        .lines()
        .find_map(|l| l.trim().strip_prefix("[Requesting program interpreter: "))
        .map(|s| s.trim_end_matches(']').to_string());
    let dynamic = Command::new("readelf")
        .args(["-d", "-W"])
        .arg(&exe)
        .output()
        .unwrap();
    let needed: Vec<String> = String::from_utf8_lossy(&dynamic.stdout)
        .lines()
        .filter_map(|l| {
            l.split_once("Shared library: [")
                .map(|x| x.1.trim_end_matches(']').to_string())
        })
        .collect();
    let mut d = std::fs::read(&exe).unwrap();
    // Drop the section header table: e_shoff, e_shnum, e_shstrndx = 0.
    d[40..48].fill(0);
    d[60..64].fill(0);
    let mut t = build_from_bytes(d);
    assert_eq!(errors(&t), Vec::<String>::new());
    let ph = child(&mut t, fwview::model::NodeId::ROOT, "program headers").unwrap();
    let n = kids(&mut t, ph).len();
    let want: usize = listing
        .lines()
        .find_map(|l| {
            l.strip_prefix("There are ")
                .and_then(|r| r.split(' ').next()?.parse().ok())
        })
        .unwrap();
    assert_eq!(n, want, "{listing}");
    let seg = child(&mut t, fwview::model::NodeId::ROOT, "segments").unwrap();
    if let Some(interp) = interp {
        let ks = t.children(seg);
        let i = ks
            .into_iter()
            .find(|&k| t.name(k).ends_with("PT_INTERP"))
            .unwrap();
        assert_eq!(t.value_text(i).as_deref(), Some(&*format!("\"{interp}\"")));
    }
    // DT_NEEDED names, through DT_STRTAB and DT_STRSZ.
    let ks = t.children(seg);
    let dy = ks
        .into_iter()
        .find(|&k| t.name(k).ends_with("PT_DYNAMIC"))
        .unwrap();
    let ours: Vec<String> = kids(&mut t, dy)
        .into_iter()
        .filter(|&k| t.name(k).ends_with("DT_NEEDED"))
        .map(|k| t.value_text(k).unwrap().trim_matches('"').to_string())
        .collect();
    assert_eq!(ours, needed);
    assert!(!needed.is_empty());
}

/// `readelf -n -W`: per section, (owner, data size, type name, rest).
fn readelf_notes(path: &Path) -> Vec<(String, Vec<(String, u64, String, String)>)> {
    let out = Command::new("readelf")
        .args(["-n", "-W"])
        .arg(path)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<(String, Vec<(String, u64, String, String)>)> = Vec::new();
    for line in s.lines() {
        if let Some(sec) = line.strip_prefix("Displaying notes found in: ") {
            v.push((sec.to_string(), Vec::new()));
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 2 || line.trim_start().starts_with("Owner") {
            continue;
        }
        let mut head = f[0].split_whitespace();
        let (Some(owner), Some(size)) = (head.next(), head.next()) else {
            continue;
        };
        let Some(size) = size
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
        else {
            continue;
        };
        let ty = f[1].split(' ').next().unwrap_or("").to_string();
        let rest = f
            .get(2..)
            .map(|r| r.join("\t"))
            .unwrap_or_default()
            .trim()
            .to_string();
        if let Some(last) = v.last_mut() {
            last.1.push((owner.to_string(), size, ty, rest));
        }
    }
    v
}

#[test]
fn readelf_agrees_on_gnu_notes() {
    if !common::tool("readelf") || !common::tool("gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("m.c");
    std::fs::write(&main, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.path().join("m");
    assert!(Command::new("gcc")
        .arg("-Wl,--build-id")
        .arg("-o")
        .arg(&exe)
        .arg(&main)
        .status()
        .unwrap()
        .success());
    let mut checked = 0;
    for p in [exe, std::env::current_exe().unwrap()] {
        let d = std::fs::read(&p).unwrap();
        let mut t = build_from_bytes(d);
        let g = child(&mut t, fwview::model::NodeId::ROOT, "sections").unwrap();
        for (sec, notes) in readelf_notes(&p) {
            let ks = t.children(g);
            let node = ks
                .into_iter()
                .find(|&k| t.name(k).ends_with(&format!("] {sec}")))
                .unwrap();
            let ours = t.children(node);
            assert_eq!(ours.len(), notes.len(), "{sec}");
            for (&n, (owner, size, ty, rest)) in ours.iter().zip(&notes) {
                assert_eq!(
                    t.name(n),
                    format!(
                        "[{}] {owner} {ty}",
                        t.name(n)[1..].split(']').next().unwrap()
                    )
                );
                assert_eq!(val(&mut t, n, "n_descsz"), *size, "{sec}");
                if let Some(id) = rest.strip_prefix("Build ID: ") {
                    let b = child(&mut t, n, "build id").unwrap();
                    assert_eq!(t.value_text(b).as_deref(), Some(id));
                }
                if let Some(abi) = rest.strip_prefix("OS: Linux, ABI: ") {
                    let b = child(&mut t, n, "desc").unwrap();
                    assert_eq!(
                        t.value_text(b).as_deref(),
                        Some(&*format!("Linux ABI {abi}"))
                    );
                }
                if rest.contains("x86-64-baseline") {
                    let pr = child(&mut t, n, "properties").unwrap();
                    let k = t.children(pr);
                    assert!(k.iter().any(|&x| t
                        .value_text(x)
                        .unwrap_or_default()
                        .contains("x86-64-baseline")));
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 2, "{checked} notes");
}

// ------------------------------------------------- field order, compression

/// In every ELF of the samples, the leaf children of a node (in its own
/// byte space) come in increasing offset order, so walking them never makes
/// the hex cursor jump back.
#[test]
fn leaf_fields_are_in_file_order() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["offload", "xmos"] {
        for e in std::fs::read_dir(assets().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if p.is_file() && (ext == "o" || ext == "xe") {
                files.push(p);
            }
        }
    }
    assert!(!files.is_empty());
    let mut elfs = 0;
    for f in files {
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .arg("--json")
            .arg(&f)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", f.display());
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        fn is_elf(n: &serde_json::Value) -> bool {
            n["children"].as_array().unwrap().iter().any(|c| {
                c["name"] == "header"
                    && c["children"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["name"] == "e_ident")
            })
        }
        fn check(f: &Path, n: &serde_json::Value, path: &str) {
            let kids = n["children"].as_array().unwrap();
            let mut last: Option<(u64, &serde_json::Value)> = None;
            for c in kids {
                if c["space"] != n["space"] || !c["children"].as_array().unwrap().is_empty() {
                    continue;
                }
                let o = c["offset"].as_u64().unwrap();
                if let Some((lo, ln)) = last {
                    assert!(
                        o >= lo,
                        "{}: {path}: {} at 0x{o:x} comes after {} at 0x{lo:x}",
                        f.display(),
                        c["name"],
                        ln["name"]
                    );
                }
                last = Some((o, c));
            }
            for c in kids {
                check(f, c, &format!("{path}/{}", c["name"].as_str().unwrap()));
            }
        }
        fn find(f: &Path, n: &serde_json::Value, elfs: &mut usize) {
            if is_elf(n) {
                *elfs += 1;
                check(f, n, n["name"].as_str().unwrap());
                return;
            }
            for c in n["children"].as_array().unwrap() {
                find(f, c, elfs);
            }
        }
        find(&f, &j["root"], &mut elfs);
    }
    assert!(elfs > 5, "only {elfs} ELF images found in the samples");
}

/// The sections of `path` as `object` reads them (decompressed bytes).
fn object_sections(data: &[u8]) -> Vec<(String, Vec<u8>)> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(data).unwrap();
    f.sections()
        .map(|s| {
            (
                s.name().unwrap_or("").to_string(),
                s.data().unwrap_or(&[]).to_vec(),
            )
        })
        .collect()
}

/// Compressed debug sections (zlib from gcc and objcopy, zstd from objcopy
/// where it can write it) open into an inflated space holding exactly the
/// bytes `objcopy --decompress-debug-sections` writes; `--extract` of the
/// inflated node writes them; `--json` lists the space and its origin.
#[test]
fn compressed_sections_inflate_like_objcopy() {
    if !common::tool("gcc") || !common::tool("objcopy") {
        eprintln!("skipped: gcc or objcopy not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("c.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nstruct point { int x, y; };\n\
         static const char *names[] = {\"alpha\", \"beta\"};\n\
         int sum(struct point *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i].x * p[i].y; return s; }\n\
         int main(void) { struct point p[2] = {{1,2},{3,4}}; printf(\"%s %d\\n\", names[1], sum(p, 2)); return 0; }\n",
    )
    .unwrap();
    let plain = dir.path().join("plain.o");
    let ok = Command::new("gcc")
        .args(["-g", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&plain)
        .status()
        .unwrap()
        .success();
    assert!(ok, "gcc -g -c failed");
    let mut cases: Vec<(&str, PathBuf)> = Vec::new();
    let gz = dir.path().join("gcc-gz.o");
    if Command::new("gcc")
        .args(["-g", "-gz=zlib", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&gz)
        .status()
        .unwrap()
        .success()
    {
        cases.push(("zlib", gz));
    }
    for m in ["zlib", "zstd"] {
        let out = dir.path().join(format!("objcopy-{m}.o"));
        let st = Command::new("objcopy")
            .arg(format!("--compress-debug-sections={m}"))
            .arg(&plain)
            .arg(&out)
            .output()
            .unwrap();
        if st.status.success() {
            cases.push((m, out));
        } else {
            eprintln!("objcopy cannot write {m}: skipped for {m}");
        }
    }
    assert!(!cases.is_empty());
    for (method, path) in cases {
        let data = std::fs::read(&path).unwrap();
        let dec = path.with_extension("dec.o");
        let ok = Command::new("objcopy")
            .arg("--decompress-debug-sections")
            .arg(&path)
            .arg(&dec)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let want = object_sections(&std::fs::read(&dec).unwrap());
        let mut t = build_from_bytes(data.clone());
        let root = t.root();
        let secs = child(&mut t, root, "sections").unwrap();
        let mut seen = 0;
        for k in t.children(secs) {
            let name = label_name(t.name(k)).to_string();
            if !name.starts_with(".debug_") {
                continue;
            }
            let Some(inf) = child(&mut t, k, "inflated") else {
                continue;
            };
            seen += 1;
            let expect = &want.iter().find(|(n, _)| *n == name).unwrap().1;
            assert_eq!(t.node_bytes(inf), &expect[..], "{method}: {name}");
            let addr = t.path_string(inf);
            let out = path.with_extension(format!("{}.bin", &name[1..]));
            Command::cargo_bin("fwview")
                .unwrap()
                .arg("--extract")
                .arg(&addr)
                .arg(&path)
                .arg("-o")
                .arg(&out)
                .assert()
                .success();
            assert_eq!(
                std::fs::read(&out).unwrap(),
                *expect,
                "{method}: --extract {addr}"
            );
        }
        assert!(seen >= 3, "{method}: only {seen} inflated debug sections");
        assert!(errors(&t).is_empty(), "{method}: {:?}", errors(&t));
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .arg("--json")
            .arg(&path)
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let spaces = j["spaces"].as_array().unwrap();
        assert!(spaces.len() > seen, "{method}: {} spaces", spaces.len());
        for sp in spaces.iter().skip(1) {
            assert_eq!(sp["name"], "inflated");
            assert_eq!(sp["from"]["method"], method);
            assert_eq!(sp["from"]["space"], 0);
        }
    }
}

/// A ch_size that disagrees with the inflated bytes is an error at the
/// field; the bytes still open.
#[test]
fn compressed_size_mismatch_is_reported() {
    if !common::tool("gcc") || !common::tool("objcopy") {
        eprintln!("skipped: gcc or objcopy not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("c.c");
    std::fs::write(&src, "int f(int x) { return x * 3; }\n").unwrap();
    let plain = dir.path().join("plain.o");
    assert!(Command::new("gcc")
        .args(["-g", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&plain)
        .status()
        .unwrap()
        .success());
    let z = dir.path().join("z.o");
    assert!(Command::new("objcopy")
        .arg("--compress-debug-sections=zlib")
        .arg(&plain)
        .arg(&z)
        .status()
        .unwrap()
        .success());
    let mut data = std::fs::read(&z).unwrap();
    // Find .debug_info's Chdr through object and add 1 to ch_size.
    use object::{Object, ObjectSection};
    let off = {
        let f = object::File::parse(&*data).unwrap();
        let s = f.section_by_name(".debug_info").unwrap();
        s.file_range().unwrap().0 as usize
    };
    let size = u64::from_le_bytes(data[off + 8..off + 16].try_into().unwrap());
    data[off + 8..off + 16].copy_from_slice(&(size + 1).to_le_bytes());
    let t = build_from_bytes(data);
    assert!(
        has_diag(&t, Severity::Error, "inflates to"),
        "{:?}",
        errors(&t)
    );
}

/// Header and table fields that are integers carry them in `--json`'s
/// `raw` whatever their text says (`e_type`, `e_version`, `e_flags`,
/// `sh_flags`, `p_flags` had `"raw": null`): the raw value is the
/// little-endian integer of the node's own bytes, read here.
#[test]
fn integer_fields_keep_their_raw_value_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![PathBuf::from(env!("CARGO_BIN_EXE_fwview"))];
    if build("gcc", &[], dir.path(), "x.o").is_some() {
        files.push(dir.path().join("x.o"));
    }
    let names = ["e_type", "e_version", "e_flags", "sh_flags", "p_flags"];
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let j = common::json::json_of(&f);
        let mut seen = 0;
        let mut stack = vec![&j["root"]];
        while let Some(n) = stack.pop() {
            if let Some(k) = n["children"].as_array() {
                stack.extend(k.iter());
            }
            let name = n["name"].as_str().unwrap_or("");
            if !names.contains(&name) {
                continue;
            }
            let (o, s) = (
                n["offset"].as_u64().unwrap() as usize,
                n["size"].as_u64().unwrap() as usize,
            );
            let mut v = [0u8; 8];
            v[..s].copy_from_slice(&bytes[o..o + s]);
            assert_eq!(
                n["raw"].as_u64(),
                Some(u64::from_le_bytes(v)),
                "{name} at {o:#x} of {}",
                f.display()
            );
            seen += 1;
        }
        assert!(seen > 10, "{}: {seen}", f.display());
    }
}

/// `--json` gives each node's link: the entry point's field points at the
/// entry's bytes, as the object crate finds them.
#[test]
fn json_links_point_where_the_fields_say() {
    use object::{Object, ObjectSection};
    let exe = std::env::current_exe().unwrap();
    let data = std::fs::read(&exe).unwrap();
    let obj = object::File::parse(&*data).unwrap();
    let entry = obj.entry();
    let want = obj
        .sections()
        .find_map(|s| {
            let (off, size) = s.file_range()?;
            (entry >= s.address() && entry - s.address() < size).then(|| off + entry - s.address())
        })
        .expect("the entry is in a section");
    let doc = common::json::json_of(&exe);
    let header = doc["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "header")
        .unwrap();
    let e_entry = header["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "e_entry")
        .unwrap();
    assert_eq!(e_entry["link"]["offset"].as_u64(), Some(want), "{e_entry}");
    assert_eq!(e_entry["link"]["space"].as_u64(), Some(0));
    // Nodes without a link have no key.
    assert!(header.get("link").is_none());
    // The contract holds with links in it.
    let n = common::contract::check_value(&doc, data.len() as u64).unwrap();
    assert!(n.nodes > 0);
}
