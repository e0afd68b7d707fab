//! LLVM offload binaries: compared with llvm-objdump-22 --offloading and
//! llvm-offload-binary-22 where they are installed, with binaries the
//! tests build with those tools from images they make, and with v2/v3
//! binaries written here by hand from the header layout.

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command as Proc;
use std::sync::Arc;

use assert_cmd::Command;
use serde_json::Value;

use fwview::formats::{self, offload};

use fwview::model::{Builder, Format, NodeId, Source, Span, Tree};

use common::json::{
    check_nesting, diags, errors, find as get, has_diag, json_of, json_of_bytes, json_of_tree,
    kids, num, path as at, range, unquote, val,
};

// ---------------------------------------------------------------- helpers

const STANDALONE: &str =
    "debian-libomp-19-dev__devicertl-amdgpu-gfx90a__llvm.offloading-section.offloadbin";
const HOST_OBJECTS: &[&str] = &[
    "debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-amdgpu-gfx90a.o",
    "debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-nvptx-sm_80.o",
    "generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o",
];

fn run(cmd: &mut Proc) -> Vec<u8> {
    let out = cmd.output().expect("tool runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The tree the parser gives for a `.llvm.offloading` section's bytes, as
/// the ELF parser hands them over.
fn section_json(bytes: Vec<u8>) -> Value {
    fn dispatch(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
        if p == NodeId::ROOT && at.offset == 0 {
            offload::parse_section(b, p, at);
            Some(Format::Offload)
        } else {
            formats::dispatch(b, p, at)
        }
    }
    let mut t = Tree::build(Arc::new(Source::from_vec(bytes)), "section", dispatch);
    json_of_tree(&mut t)
}

/// One decoded entry: what the tree says about it.
#[derive(Debug)]
struct Shown {
    image_kind: u64,
    offload_kind: u64,
    flags: u64,
    strings: BTreeMap<String, String>,
    /// The image node's path (for --extract), range and value.
    image_path: String,
    image: (u64, u64),
    image_value: String,
}

/// The offload binaries a tree shows, in order: nodes whose `header/magic`
/// is the offload magic, not looking inside images.
fn binaries(root: &Value) -> Vec<(String, &Value)> {
    fn walk<'a>(n: &'a Value, path: &str, out: &mut Vec<(String, &'a Value)>) {
        let is_bin = get(n, "header")
            .and_then(|h| get(h, "magic"))
            .is_some_and(|m| val(m) == "10 ff 10 ad");
        if is_bin {
            out.push((path.to_string(), n));
            return;
        }
        for c in kids(n) {
            let name = c["name"].as_str().unwrap();
            let p = if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}/{name}")
            };
            walk(c, &p, out);
        }
    }
    let mut out = Vec::new();
    walk(root, "", &mut out);
    out
}

fn entries_of(path: &str, bin: &Value) -> Vec<Shown> {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}/{b}")
        }
    };
    let flat = get(bin, "entry").is_some();
    let entries: Vec<&Value> = if flat {
        vec![at(bin, "entry")]
    } else {
        kids(at(bin, "entries"))
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let smap = if flat {
                get(bin, "strings")
            } else {
                get(bin, "strings").and_then(|s| get(s, &format!("[{i}]")))
            };
            let strings = smap
                .map(|m| {
                    kids(m)
                        .iter()
                        .map(|kv| {
                            (
                                kv["name"].as_str().unwrap().to_string(),
                                unquote(val(kv)).to_string(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let (image_path, img) = if flat {
                (join(path, "image"), at(bin, "image"))
            } else {
                (
                    join(path, &format!("images/[{i}]")),
                    at(bin, &format!("images/[{i}]")),
                )
            };
            Shown {
                image_kind: num(at(e, "image kind")),
                offload_kind: num(at(e, "offload kind")),
                flags: num(at(e, "flags")),
                strings,
                image_path,
                image: range(img),
                image_value: val(img).to_string(),
            }
        })
        .collect()
}

fn all_entries(root: &Value) -> Vec<Shown> {
    binaries(root)
        .into_iter()
        .flat_map(|(p, b)| entries_of(&p, b))
        .collect()
}

/// `llvm-objdump-22 --offloading FILE`, one map per image.
fn objdump(path: &Path) -> Vec<BTreeMap<String, String>> {
    let out = String::from_utf8(run(Proc::new("llvm-objdump-22")
        .arg("--offloading")
        .arg(path)))
    .unwrap();
    out.split("OFFLOADING IMAGE [")
        .skip(1)
        .map(|block| {
            block
                .lines()
                .skip(1)
                .filter_map(|l| {
                    let l = l.trim_end();
                    let (k, v) = l.split_once(char::is_whitespace)?;
                    Some((k.to_string(), v.trim().to_string()))
                })
                .collect()
        })
        .collect()
}

fn objdump_kind(k: &str) -> &'static [u64] {
    match k {
        "elf" => &[1],
        "llvm ir" => &[2],
        "cubin" => &[3],
        "fatbinary" => &[4],
        "ptx" => &[5],
        // llvm-objdump 22 names no other kind (SPIR-V included).
        _ => &[0, 6],
    }
}

fn objdump_producer(p: &str) -> u64 {
    match p {
        "openmp" => 1,
        "cuda" => 2,
        "hip" => 4,
        "sycl" => 8,
        _ => 0,
    }
}

fn compare_with_objdump(file: &Path, shown: &[Shown]) {
    let od = objdump(file);
    assert_eq!(od.len(), shown.len(), "image count of {}", file.display());
    for (o, s) in od.iter().zip(shown) {
        assert!(
            objdump_kind(&o["kind"]).contains(&s.image_kind),
            "{o:?} vs {s:?}"
        );
        assert_eq!(
            objdump_producer(&o["producer"]),
            s.offload_kind,
            "{o:?} vs {s:?}"
        );
        assert_eq!(o["arch"], s.strings["arch"]);
        assert_eq!(o["triple"], s.strings["triple"]);
    }
}

/// The image llvm-offload-binary-22 extracts from `file` for `arch`.
fn reference_image(file: &Path, arch: &str, dir: &Path) -> Vec<u8> {
    let out = dir.join(format!("ref-{arch}.img"));
    run(Proc::new("llvm-offload-binary-22")
        .arg(file)
        .arg(format!("--image=file={},arch={arch}", out.display())));
    std::fs::read(&out).unwrap()
}

fn fwview_extract(file: &Path, path: &str, dir: &Path) -> Vec<u8> {
    let out = dir.join("fw.img");
    let _ = std::fs::remove_file(&out);
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", path])
        .arg(file)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    std::fs::read(&out).unwrap()
}

fn rd64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap())
}

/// The `.llvm.offloading` section of a host object: (file offset, bytes).
fn offloading_section(path: &Path) -> (u64, Vec<u8>) {
    use object::{Object, ObjectSection};
    let data = std::fs::read(path).unwrap();
    let obj = object::File::parse(&*data).unwrap();
    let s = obj
        .section_by_name(".llvm.offloading")
        .expect(".llvm.offloading");
    let (off, _) = s.file_range().unwrap();
    (off, s.data().unwrap().to_vec())
}

// ---------------------------------------------------------------- hand-written binaries

/// One entry to write.
struct E {
    image_kind: u16,
    offload_kind: u16,
    flags: u32,
    strings: Vec<(&'static str, &'static str)>,
    image: Vec<u8>,
}

fn align8(v: &mut Vec<u8>) {
    while !v.len().is_multiple_of(8) {
        v.push(0);
    }
}

/// A version 1 binary laid out as LLVM 22 does: header, entry, string
/// entries, strings, image, each of the last two 8-aligned.
fn write_v1(e: &E) -> Vec<u8> {
    let n = e.strings.len() as u64;
    let str_entries = 32 + 40;
    let mut table = vec![0u8];
    let mut offs = Vec::new();
    let table_at = str_entries + 16 * n;
    for (k, v) in &e.strings {
        let ko = table_at + table.len() as u64;
        table.extend_from_slice(k.as_bytes());
        table.push(0);
        let vo = table_at + table.len() as u64;
        table.extend_from_slice(v.as_bytes());
        table.push(0);
        offs.push((ko, vo));
    }
    let img_at = (table_at + table.len() as u64).div_ceil(8) * 8;
    let size = (img_at + e.image.len() as u64).div_ceil(8) * 8;
    let mut out = Vec::new();
    out.extend_from_slice(&[0x10, 0xff, 0x10, 0xad]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&32u64.to_le_bytes());
    out.extend_from_slice(&40u64.to_le_bytes());
    out.extend_from_slice(&e.image_kind.to_le_bytes());
    out.extend_from_slice(&e.offload_kind.to_le_bytes());
    out.extend_from_slice(&e.flags.to_le_bytes());
    out.extend_from_slice(&str_entries.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&img_at.to_le_bytes());
    out.extend_from_slice(&(e.image.len() as u64).to_le_bytes());
    for (ko, vo) in offs {
        out.extend_from_slice(&ko.to_le_bytes());
        out.extend_from_slice(&vo.to_le_bytes());
    }
    out.extend_from_slice(&table);
    align8(&mut out);
    out.extend_from_slice(&e.image);
    align8(&mut out);
    assert_eq!(out.len() as u64, size);
    out
}

/// A version 2 or 3 binary (uncompressed) with several entries, laid out
/// as LLVM main writes them: header, entries, 24-byte string entries, the
/// strings, then the images.
fn write_multi(version: u32, es: &[E]) -> Vec<u8> {
    let hlen: u64 = if version >= 3 { 40 } else { 32 };
    let n = es.len() as u64;
    let total_strings: u64 = es.iter().map(|e| e.strings.len() as u64).sum();
    let str_entries = hlen + 40 * n;
    let table_at = str_entries + 24 * total_strings;
    let mut table = vec![0u8];
    let mut sents = Vec::new();
    for e in es {
        for (k, v) in &e.strings {
            let ko = table_at + table.len() as u64;
            table.extend_from_slice(k.as_bytes());
            table.push(0);
            let vo = table_at + table.len() as u64;
            table.extend_from_slice(v.as_bytes());
            table.push(0);
            sents.push((ko, vo, v.len() as u64));
        }
    }
    let img_at = (table_at + table.len() as u64).div_ceil(8) * 8;
    let total_img: u64 = es.iter().map(|e| e.image.len() as u64).sum();
    let size = (img_at + total_img).div_ceil(8) * 8;
    let mut out = Vec::new();
    out.extend_from_slice(&[0x10, 0xff, 0x10, 0xad]);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&hlen.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    if version >= 3 {
        out.extend_from_slice(&0u64.to_le_bytes());
    }
    let (mut so, mut io) = (str_entries, img_at);
    for e in es {
        out.extend_from_slice(&e.image_kind.to_le_bytes());
        out.extend_from_slice(&e.offload_kind.to_le_bytes());
        out.extend_from_slice(&e.flags.to_le_bytes());
        out.extend_from_slice(&so.to_le_bytes());
        out.extend_from_slice(&(e.strings.len() as u64).to_le_bytes());
        out.extend_from_slice(&io.to_le_bytes());
        out.extend_from_slice(&(e.image.len() as u64).to_le_bytes());
        so += 24 * e.strings.len() as u64;
        io += e.image.len() as u64;
    }
    for (ko, vo, vs) in sents {
        out.extend_from_slice(&ko.to_le_bytes());
        out.extend_from_slice(&vo.to_le_bytes());
        out.extend_from_slice(&vs.to_le_bytes());
    }
    out.extend_from_slice(&table);
    align8(&mut out);
    for e in es {
        out.extend_from_slice(&e.image);
    }
    align8(&mut out);
    assert_eq!(out.len() as u64, size);
    out
}

/// Compresses a v3 binary the way LLVM main does: the header as it is
/// (size and inflated size updated), then everything after the entries
/// offset compressed, padded to 8.
fn compress_v3(plain: &[u8], zstd: bool) -> Vec<u8> {
    let eo = rd64(plain, 16) as usize;
    let body = &plain[eo..];
    let packed = if zstd {
        zstd::encode_all(body, 3).unwrap()
    } else {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(body).unwrap();
        z.finish().unwrap()
    };
    let mut out = plain[..eo].to_vec();
    out[8..16].copy_from_slice(&((eo + packed.len()) as u64).to_le_bytes());
    out[32..40].copy_from_slice(&(plain.len() as u64).to_le_bytes());
    out.extend_from_slice(&packed);
    align8(&mut out);
    out
}

fn elf_image() -> Vec<u8> {
    // A minimal ELF64 header: enough for the magic to say what it is.
    let mut v = b"\x7fELF\x02\x01\x01\0".to_vec();
    v.resize(64, 0);
    v[16] = 1; // ET_REL
    v[18] = 0xe0; // EM_AMDGPU
    v[20] = 1; // EV_CURRENT
    v[52] = 64; // e_ehsize
    v
}

fn bitcode_image() -> Vec<u8> {
    // Raw bitcode magic and an empty IDENTIFICATION_BLOCK: ENTER_SUBBLOCK
    // (abbreviation ID 1 in two bits), block ID 13 (VBR8), abbreviation
    // width 5 (VBR4), aligned to 32 bits, a length of 0 words.
    let mut v = b"BC\xc0\xde".to_vec();
    v.extend_from_slice(&[0x35, 0x14, 0, 0, 0, 0, 0, 0]);
    v
}

fn simple() -> E {
    E {
        image_kind: 1,
        offload_kind: 1,
        flags: 0,
        strings: vec![("triple", "amdgcn-amd-amdhsa"), ("arch", "gfx90a")],
        image: elf_image(),
    }
}

// ---------------------------------------------------------------- real samples

#[test]
fn standalone_sample() {
    let file = common::asset("offload").join(STANDALONE);
    let data = std::fs::read(&file).unwrap();
    let v = json_of(&file);
    assert_eq!(v["format"], "offload");
    assert!(errors(&v).is_empty(), "{:?}", diags(&v));
    check_nesting(&v["root"]);
    let root = &v["root"];
    // Independent decode of the header and the entry.
    let eo = rd64(&data, 16) as usize;
    assert_eq!(num(at(root, "header/size")), rd64(&data, 8));
    assert_eq!(num(at(root, "header/entry offset")), eo as u64);
    assert_eq!(num(at(root, "entry/string count")), rd64(&data, eo + 16));
    let shown = all_entries(root);
    assert_eq!(shown.len(), 1);
    let s = &shown[0];
    assert_eq!(s.image, (rd64(&data, eo + 24), rd64(&data, eo + 32)));
    assert_eq!(s.image_kind, 2);
    assert_eq!(s.offload_kind, 1);
    assert!(
        s.image_value.starts_with("LLVM bitcode"),
        "{}",
        s.image_value
    );
    // The empty key and empty value the sample carries.
    assert_eq!(s.strings["(empty key)"], "");
    assert_eq!(s.strings["triple"], "amdgcn-amd-amdhsa");
    assert_eq!(
        at(root, "image/[0] IDENTIFICATION_BLOCK/producer")["value"],
        "\"LLVM19.1.7\""
    );
    assert_eq!(
        at(root, "image/[1] MODULE_BLOCK/triple")["value"],
        "\"amdgcn-amd-amdhsa\""
    );

    if !common::tool("llvm-objdump-22") || !common::tool("llvm-offload-binary-22") {
        return;
    }
    compare_with_objdump(&file, &shown);
    let dir = tempfile::tempdir().unwrap();
    let reference = reference_image(&file, "gfx90a", dir.path());
    assert_eq!(fwview_extract(&file, "image", dir.path()), reference);
}

#[test]
fn sections_of_host_objects() {
    for name in HOST_OBJECTS {
        let file = common::asset("offload").join(name);
        let (off, sec) = offloading_section(&file);
        let v = section_json(sec.clone());
        assert!(errors(&v).is_empty(), "{name}: {:?}", diags(&v));
        check_nesting(&v["root"]);
        let shown = all_entries(&v["root"]);
        // Independent walk of the section: binaries back to back, 8-aligned.
        let mut pos = 0usize;
        let mut n = 0;
        while pos + 32 <= sec.len() && sec[pos..pos + 4] == [0x10, 0xff, 0x10, 0xad] {
            let eo = rd64(&sec, pos + 16) as usize;
            let (io, is) = (rd64(&sec, pos + eo + 24), rd64(&sec, pos + eo + 32));
            assert_eq!(shown[n].image, (pos as u64 + io, is), "{name} [{n}]");
            pos = (pos + rd64(&sec, pos + 8) as usize).div_ceil(8) * 8;
            n += 1;
        }
        assert_eq!(n, shown.len(), "{name}");
        if name.contains("saxpy") {
            assert_eq!(n, 2, "the clang 22 object holds two binaries");
            assert_eq!(shown[0].strings["arch"], "gfx1100");
            assert_eq!(shown[1].strings["arch"], "gfx90a");
        }
        let _ = off;
        if !common::tool("llvm-objdump-22") || !common::tool("llvm-offload-binary-22") {
            continue;
        }
        compare_with_objdump(&file, &shown);
        let dir = tempfile::tempdir().unwrap();
        for s in &shown {
            let reference = reference_image(&file, &s.strings["arch"], dir.path());
            let (o, l) = s.image;
            assert_eq!(&sec[o as usize..(o + l) as usize], &reference[..], "{name}");
        }
    }
}

/// The host objects opened whole. Their `.llvm.offloading` sections reach
/// this parser through the ELF parser; until that hands them over, the test
/// says it skipped.
#[test]
fn host_objects_end_to_end() {
    for name in HOST_OBJECTS {
        let file = common::asset("offload").join(name);
        let v = json_of(&file);
        assert!(errors(&v).is_empty(), "{name}: {:?}", diags(&v));
        let (sec_off, sec) = offloading_section(&file);
        let shown = all_entries(&v["root"]);
        if shown.is_empty() {
            eprintln!("skipped: {name}: the ELF parser does not hand .llvm.offloading over yet");
            continue;
        }
        check_nesting(&v["root"]);
        let mut pos = 0usize;
        for (n, s) in shown.iter().enumerate() {
            let eo = rd64(&sec, pos + 16) as usize;
            let io = rd64(&sec, pos + eo + 24);
            let is = rd64(&sec, pos + eo + 32);
            assert_eq!(s.image, (sec_off + pos as u64 + io, is), "{name} [{n}]");
            pos = (pos + rd64(&sec, pos + 8) as usize).div_ceil(8) * 8;
        }
        if !common::tool("llvm-objdump-22") || !common::tool("llvm-offload-binary-22") {
            continue;
        }
        compare_with_objdump(&file, &shown);
        let dir = tempfile::tempdir().unwrap();
        for s in &shown {
            let reference = reference_image(&file, &s.strings["arch"], dir.path());
            assert_eq!(
                fwview_extract(&file, &s.image_path, dir.path()),
                reference,
                "{name}"
            );
        }
    }
}

// ---------------------------------------------------------------- built with llvm-offload-binary-22

/// Images the test makes, each named so that llvm-offload-binary-22 sets
/// the image kind from the extension.
struct Made {
    file: PathBuf,
    triple: &'static str,
    arch: &'static str,
    kind: &'static str,
    extra: Option<(&'static str, &'static str)>,
    /// What fwview must say the image is.
    format: &'static str,
}

fn make_images(dir: &Path) -> Vec<Made> {
    let src = dir.join("k.c");
    std::fs::write(&src, "int add(int a, int b) { return a + b; }\n").unwrap();
    let mut v = Vec::new();
    let bc = dir.join("host.bc");
    run(Proc::new("clang-22")
        .args(["-c", "-emit-llvm", "-o"])
        .arg(&bc)
        .arg(&src));
    v.push(Made {
        file: bc.clone(),
        triple: "x86_64-pc-linux-gnu",
        arch: "generic",
        kind: "openmp",
        extra: Some(("producer-note", "made by the test")),
        format: "LLVM bitcode",
    });
    // The same bitcode behind a wrapper header.
    let raw = std::fs::read(&bc).unwrap();
    let mut wrapped = Vec::new();
    wrapped.extend_from_slice(&0x0b17_c0deu32.to_le_bytes());
    wrapped.extend_from_slice(&0u32.to_le_bytes());
    wrapped.extend_from_slice(&20u32.to_le_bytes());
    wrapped.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    wrapped.extend_from_slice(&0x0100_0007u32.to_le_bytes());
    wrapped.extend_from_slice(&raw);
    let wbc = dir.join("wrapped.bc");
    std::fs::write(&wbc, &wrapped).unwrap();
    v.push(Made {
        file: wbc,
        triple: "x86_64-pc-linux-gnu",
        arch: "wrapped",
        kind: "openmp",
        extra: None,
        format: "LLVM bitcode",
    });
    let gpu = dir.join("gpu.o");
    run(Proc::new("clang-22")
        .args([
            "--target=amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-nogpulib",
            "-c",
            "-o",
        ])
        .arg(&gpu)
        .arg(&src));
    v.push(Made {
        file: gpu.clone(),
        triple: "amdgcn-amd-amdhsa",
        arch: "gfx90a",
        kind: "hip",
        extra: None,
        format: "ELF",
    });
    let spv = dir.join("k.spv");
    run(Proc::new("clang-22")
        .args(["--target=spirv64", "-c", "-o"])
        .arg(&spv)
        .arg(&src));
    v.push(Made {
        file: spv,
        triple: "spirv64-unknown-unknown",
        arch: "spirv",
        kind: "sycl",
        extra: None,
        format: "SPIR-V",
    });
    if common::tool("llc-22") {
        let ll = dir.join("k.ll");
        run(Proc::new("clang-22")
            .args([
                "--target=nvptx64-nvidia-cuda",
                "-nogpulib",
                "-S",
                "-emit-llvm",
                "-o",
            ])
            .arg(&ll)
            .arg(&src));
        let ptx = dir.join("k.s");
        run(Proc::new("llc-22")
            .args(["-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_70", "-o"])
            .arg(&ptx)
            .arg(&ll));
        v.push(Made {
            file: ptx,
            triple: "nvptx64-nvidia-cuda",
            arch: "sm_70",
            kind: "cuda",
            extra: None,
            format: "PTX",
        });
    }
    if common::tool("clang-offload-bundler-22") {
        let fb = dir.join("k.fatbin");
        run(Proc::new("clang-offload-bundler-22")
            .args([
                "-type=o",
                "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a",
                "-input=/dev/null",
            ])
            .arg(format!("-input={}", gpu.display()))
            .arg(format!("-output={}", fb.display())));
        v.push(Made {
            file: fb,
            triple: "amdgcn-amd-amdhsa",
            arch: "gfx90a-bundle",
            kind: "hip",
            extra: None,
            format: "clang offload bundle",
        });
    }
    // A kind that the bytes contradict: random bytes called an object.
    let junk = dir.join("junk.o");
    std::fs::write(&junk, b"not an object, just bytes\n").unwrap();
    v.push(Made {
        file: junk,
        triple: "x86_64-pc-linux-gnu",
        arch: "junk",
        kind: "openmp",
        extra: None,
        format: "not recognised",
    });
    v
}

fn pack(dir: &Path, out: &Path, images: &[Made]) {
    let mut cmd = Proc::new("llvm-offload-binary-22");
    cmd.arg("-o").arg(out);
    for m in images {
        let mut s = format!(
            "--image=file={},triple={},arch={},kind={}",
            m.file.display(),
            m.triple,
            m.arch,
            m.kind
        );
        if let Some((k, v)) = m.extra {
            s.push_str(&format!(",{k}={v}"));
        }
        cmd.arg(s);
    }
    cmd.current_dir(dir);
    run(&mut cmd);
}

#[test]
fn binaries_built_by_llvm_offload_binary() {
    let tools = ["llvm-offload-binary-22", "llvm-objdump-22", "clang-22"];
    if !tools.into_iter().all(common::tool) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let made = make_images(d);
    let out = d.join("all.offloadbin");
    pack(d, &out, &made);
    let data = std::fs::read(&out).unwrap();
    let v = json_of(&out);
    assert!(errors(&v).is_empty(), "{:?}", diags(&v));
    check_nesting(&v["root"]);
    let shown = all_entries(&v["root"]);
    assert_eq!(shown.len(), made.len());
    compare_with_objdump(&out, &shown);
    for (m, s) in made.iter().zip(&shown) {
        let bytes = std::fs::read(&m.file).unwrap();
        let (o, l) = s.image;
        assert_eq!(
            &data[o as usize..(o + l) as usize],
            &bytes[..],
            "{}",
            m.arch
        );
        assert_eq!(s.strings["triple"], m.triple);
        assert_eq!(s.strings["arch"], m.arch);
        if let Some((k, val)) = m.extra {
            assert_eq!(s.strings[k], val);
        }
        assert!(
            s.image_value.starts_with(m.format),
            "{}: {}",
            m.arch,
            s.image_value
        );
        assert_eq!(
            fwview_extract(&out, &s.image_path, d),
            reference_image(&out, m.arch, d),
            "{}",
            m.arch
        );
    }
    // The junk image is called an object: an info, nothing worse.
    let junk = shown.iter().find(|s| s.strings["arch"] == "junk").unwrap();
    assert!(diags(&v)
        .iter()
        .any(|x| x.0 == "info" && x.1 == junk.image.0 && x.3.contains("disagrees")));
    // The bitcode: triple as llvm-dis says, producer as llvm-bcanalyzer says.
    let bc = shown
        .iter()
        .find(|s| s.strings["arch"] == "generic")
        .unwrap();
    if common::tool("llvm-dis-22") {
        let dis = String::from_utf8(run(Proc::new("llvm-dis-22")
            .arg("-o")
            .arg("-")
            .arg(d.join("host.bc"))))
        .unwrap();
        let triple = dis
            .lines()
            .find_map(|l| l.strip_prefix("target triple = "))
            .unwrap();
        let img = at(&v["root"], &bc.image_path);
        let mb = kids(img)
            .into_iter()
            .find(|c| c["name"].as_str().unwrap().ends_with("MODULE_BLOCK"))
            .unwrap();
        assert_eq!(val(at(mb, "triple")), triple);
        let w = shown
            .iter()
            .find(|s| s.strings["arch"] == "wrapped")
            .unwrap();
        let wimg = at(&v["root"], &w.image_path);
        assert_eq!(num(at(wimg, "wrapper header/offset")), 20);
        assert!(
            val(at(wimg, "bitcode")).contains(triple),
            "{}",
            val(at(wimg, "bitcode"))
        );
    }
    if common::tool("llvm-bcanalyzer-22") {
        let dump = String::from_utf8(run(Proc::new("llvm-bcanalyzer-22")
            .arg("--dump")
            .arg(d.join("host.bc"))))
        .unwrap();
        let producer = dump
            .lines()
            .find_map(|l| l.split("record string = '").nth(1))
            .map(|s| s.trim_end_matches('\''))
            .unwrap();
        let img = at(&v["root"], &bc.image_path);
        assert_eq!(
            val(at(img, "[0] IDENTIFICATION_BLOCK/producer")),
            format!("\"{producer}\"")
        );
    }
    // The PTX: directives as the text has them.
    if let Some(p) = shown.iter().find(|s| s.strings["arch"] == "sm_70") {
        let text = std::fs::read_to_string(d.join("k.s")).unwrap();
        let img = at(&v["root"], &p.image_path);
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix(".version "))
            .unwrap();
        assert_eq!(val(at(img, ".version")), format!("\"{version}\""));
        assert_eq!(val(at(img, ".target")), "\"sm_70\"");
        assert_eq!(val(at(img, "functions/add")), "function");
        assert_eq!(
            val(at(img, "lines")),
            format!("{} lines", text.lines().count())
        );
    }
    // The bundle: its code object opened in place, byte for byte.
    if let Some(b) = shown.iter().find(|s| s.strings["arch"] == "gfx90a-bundle") {
        let img = at(&v["root"], &b.image_path);
        assert_eq!(num(at(img, "entry count")), 2);
        let co = at(img, "hipv4-amdgcn-amd-amdhsa--gfx90a");
        assert!(val(co).starts_with("ELF"), "{}", val(co));
        let (o, l) = range(co);
        assert_eq!(
            &data[o as usize..(o + l) as usize],
            &std::fs::read(d.join("gpu.o")).unwrap()[..]
        );
    }
}

#[test]
fn offload_binary_inside_an_offload_binary() {
    if !common::tool("llvm-offload-binary-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let img = d.join("dev.o");
    std::fs::write(&img, elf_image()).unwrap();
    let inner = d.join("inner.bin");
    run(Proc::new("llvm-offload-binary-22")
        .arg("-o")
        .arg(&inner)
        .arg(format!(
            "--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx942,kind=hip",
            img.display()
        )));
    let outer = d.join("outer.bin");
    run(Proc::new("llvm-offload-binary-22")
        .arg("-o")
        .arg(&outer)
        .arg(format!(
            "--image=file={},triple=x86_64-pc-linux-gnu,arch=wrapper,kind=openmp",
            inner.display()
        )));
    let v = json_of(&outer);
    assert!(errors(&v).is_empty(), "{:?}", diags(&v));
    let root = &v["root"];
    let image = at(root, "image");
    assert!(
        val(image).starts_with("LLVM offload binary"),
        "{}",
        val(image)
    );
    assert_eq!(val(at(image, "strings/arch")), "\"gfx942\"");
    assert_eq!(num(at(image, "entry/offload kind")), 4);
    assert!(val(at(image, "image")).starts_with("ELF"));
    let inner_bytes = std::fs::read(&inner).unwrap();
    let data = std::fs::read(&outer).unwrap();
    let (o, l) = range(image);
    assert_eq!(&data[o as usize..(o + l) as usize], &inner_bytes[..]);
    // Inner offsets are relative to the inner header.
    let (io, il) = range(at(image, "image"));
    let eo = rd64(&inner_bytes, 16) as usize;
    assert_eq!(
        (io - o, il),
        (rd64(&inner_bytes, eo + 24), rd64(&inner_bytes, eo + 32))
    );
}

#[test]
fn hand_written_v1_matches_llvm() {
    if !common::tool("llvm-objdump-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bytes = write_v1(&simple());
    let f = dir.path().join("v1.bin");
    std::fs::write(&f, &bytes).unwrap();
    // llvm-objdump-22 reads what the test wrote: the writer is right.
    let od = objdump(&f);
    assert_eq!(od[0]["arch"], "gfx90a");
    let v = json_of(&f);
    assert!(diags(&v).is_empty(), "{:?}", diags(&v));
    compare_with_objdump(&f, &all_entries(&v["root"]));
}

// ---------------------------------------------------------------- v2 and v3, by hand

fn two_entries() -> Vec<E> {
    vec![
        E {
            image_kind: 1,
            offload_kind: 4,
            flags: 0,
            strings: vec![("triple", "amdgcn-amd-amdhsa"), ("arch", "gfx90a")],
            image: elf_image(),
        },
        E {
            image_kind: 2,
            offload_kind: 8,
            flags: 0,
            strings: vec![
                ("triple", "spirv64-intel"),
                ("arch", ""),
                ("symbols", "k1\0k2"),
            ],
            image: bitcode_image(),
        },
    ]
}

fn check_two(v: &Value, data: &[u8], version: u64) {
    assert!(errors(v).is_empty(), "{:?}", diags(v));
    check_nesting(&v["root"]);
    let root = &v["root"];
    assert_eq!(num(at(root, "header/version")), version);
    assert_eq!(num(at(root, "header/entries count")), 2);
    let shown = all_entries(root);
    assert_eq!(shown.len(), 2);
    let es = two_entries();
    for (i, (e, s)) in es.iter().zip(&shown).enumerate() {
        assert_eq!(s.image_kind, u64::from(e.image_kind));
        assert_eq!(s.offload_kind, u64::from(e.offload_kind));
        assert_eq!(s.flags, u64::from(e.flags));
        let (o, l) = s.image;
        assert_eq!(&data[o as usize..(o + l) as usize], &e.image[..], "[{i}]");
        for (k, val) in &e.strings {
            // Strings as the file holds them (NULs included).
            assert_eq!(&s.strings[*k], val, "[{i}] {k}");
        }
    }
    assert!(shown[0].image_value.starts_with("ELF"));
    assert!(shown[1].image_value.starts_with("LLVM bitcode"));
    assert_eq!(val(at(root, "entries/[1]/offload kind")), "8 (SYCL)");
    // Version 2 string entries carry the value's size.
    assert_eq!(num(at(root, "strings/[1]/symbols/value size")), 5);
}

#[test]
fn hand_written_v2() {
    let data = write_multi(2, &two_entries());
    let v = json_of_bytes(data.clone());
    check_two(&v, &data, 2);
    // The 32-byte header.
    assert_eq!(range(at(&v["root"], "header")), (0, 32));
}

#[test]
fn metadata_only_entry() {
    let mut es = two_entries();
    es.push(E {
        image_kind: 0,
        offload_kind: 8,
        flags: 1,
        strings: vec![("triple", "spirv64-intel"), ("arch", "meta")],
        image: Vec::new(),
    });
    let data = write_multi(2, &es);
    let v = json_of_bytes(data);
    assert!(diags(&v).is_empty(), "{:?}", diags(&v));
    let shown = all_entries(&v["root"]);
    assert_eq!(shown[2].flags, 1);
    assert_eq!(
        val(at(&v["root"], "entries/[2]/flags")),
        "1 (metadata only, no image)"
    );
    assert_eq!(shown[2].image.1, 0);
    assert_eq!(shown[2].image_value, "none (metadata only)");
}

#[test]
fn hand_written_v3_uncompressed() {
    let data = write_multi(3, &two_entries());
    let v = json_of_bytes(data.clone());
    check_two(&v, &data, 3);
    assert_eq!(range(at(&v["root"], "header")), (0, 40));
    assert_eq!(num(at(&v["root"], "header/inflated size")), 0);
}

fn check_compressed(zstd: bool) {
    let plain = write_multi(3, &two_entries());
    let data = compress_v3(&plain, zstd);
    let v = json_of_bytes(data.clone());
    assert!(errors(&v).is_empty(), "{:?}", diags(&v));
    assert!(diags(&v).iter().all(|d| d.0 == "info"), "{:?}", diags(&v));
    check_nesting(&v["root"]);
    let root = &v["root"];
    let method = if zstd { "zstd" } else { "zlib" };
    assert_eq!(num(at(root, "header/inflated size")), plain.len() as u64);
    assert_eq!(num(at(root, "header/size")), rd64(&data, 8));
    let c = at(root, "compressed");
    assert_eq!(range(c), (40, rd64(&data, 8) - 40));
    assert!(val(c).starts_with(method), "{}", val(c));
    assert!(val(at(c, "compression")).starts_with(method));
    // The entries, laid out in the inflated space as in a plain binary,
    // at their offsets less the entries offset.
    let eo = rd64(&plain, 16);
    let inf = at(c, "inflated");
    let k = inf["space"].as_u64().unwrap();
    assert_ne!(k, 0);
    assert_eq!(range(inf), (0, plain.len() as u64 - eo));
    let sp = &v["spaces"][k as usize];
    assert_eq!(sp["from"]["space"], 0);
    assert_eq!(sp["from"]["offset"], 40);
    assert_eq!(sp["from"]["size"], rd64(&data, 8) - 40);
    assert_eq!(sp["from"]["method"], method);
    let shown = entries_of("compressed/inflated", inf);
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[0].strings["arch"], "gfx90a");
    assert_eq!(shown[0].offload_kind, 4);
    assert_eq!(val(at(inf, "entries/[0]/offload kind")), "4 (HIP)");
    assert!(
        shown[0].image_value.starts_with("ELF, 64 bytes"),
        "{}",
        shown[0].image_value
    );
    // The image's range in the space is its offset in the plain binary
    // less the entries offset.
    let io = rd64(&plain, eo as usize + 24);
    assert_eq!(shown[0].image, (io - eo, 64));
    // Entry 1 says bitcode and is: no info about it. Entry 0 says object
    // and is ELF: none either.
    assert!(diags(&v).is_empty(), "{:?}", diags(&v));
    assert_eq!(shown[1].strings["triple"], "spirv64-intel");
    assert_eq!(shown[1].strings["symbols"], "k1\0k2");
    assert!(shown[1].image_value.starts_with("LLVM bitcode"));
}

#[test]
fn hand_written_v3_zstd() {
    check_compressed(true);
}

#[test]
fn hand_written_v3_zlib() {
    check_compressed(false);
}

#[test]
fn inflated_size_mismatch_is_a_warning() {
    let plain = write_multi(3, &two_entries());
    let mut data = compress_v3(&plain, false);
    let claimed = plain.len() as u64 + 64;
    patch64(&mut data, 32, claimed);
    let v = json_of_bytes(data);
    assert!(
        has_diag(
            &v,
            "warning",
            &format!("the header announces {}", claimed - 40)
        ),
        "{:?}",
        diags(&v)
    );
}

#[test]
fn compressed_kind_disagreeing_is_info() {
    let mut es = two_entries();
    es[0].image_kind = 5; // PTX, but the bytes are ELF
    let data = compress_v3(&write_multi(3, &es), true);
    let v = json_of_bytes(data);
    let ds = diags(&v);
    assert_eq!(ds.len(), 1, "{ds:?}");
    // At the image, in the inflated space.
    let plain = write_multi(3, &es);
    let eo = rd64(&plain, 16);
    let io = rd64(&plain, eo as usize + 24);
    assert!(
        ds[0].0 == "info" && ds[0].1 == io - eo && ds[0].3.contains("5 (PTX)"),
        "{ds:?}"
    );
    assert_eq!(v["diagnostics"][0]["space"], 1);
}

#[test]
fn compressed_garbage_is_an_error() {
    let plain = write_multi(3, &two_entries());
    let mut data = compress_v3(&plain, true);
    for b in &mut data[48..56] {
        *b ^= 0x5a;
    }
    let v = json_of_bytes(data);
    assert!(
        has_diag(&v, "error", "does not decompress"),
        "{:?}",
        diags(&v)
    );
}

#[test]
fn back_to_back_in_a_section() {
    let mut sec = write_v1(&simple());
    let mut second = simple();
    second.strings = vec![("triple", "nvptx64-nvidia-cuda"), ("arch", "sm_90")];
    second.image = vec![0xab; 61]; // not a multiple of 8: the binary is padded
    sec.extend_from_slice(&write_v1(&second));
    sec.extend_from_slice(&write_multi(2, &two_entries()));
    sec.extend_from_slice(&[0; 16]);
    let v = section_json(sec.clone());
    assert!(errors(&v).is_empty(), "{:?}", diags(&v));
    let shown = all_entries(&v["root"]);
    assert_eq!(shown.len(), 4);
    assert_eq!(shown[1].strings["arch"], "sm_90");
    let first = rd64(&sec, 8);
    assert_eq!(range(at(&v["root"], "[1]")).0, first);
    let eo = rd64(&sec, first as usize + 16) as usize;
    let io = rd64(&sec, first as usize + eo + 24);
    assert_eq!(shown[1].image, (first + io, 61));
    assert_eq!(val(at(&v["root"], "padding")), "16 zero bytes");
}

// ---------------------------------------------------------------- corruptions

fn patch64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn unknown_version_shows_raw_bytes() {
    let mut d = write_v1(&simple());
    d[4] = 9;
    let v = json_of_bytes(d.clone());
    assert!(
        has_diag(&v, "error", "unknown offload binary version 9"),
        "{:?}",
        diags(&v)
    );
    let c = at(&v["root"], "contents");
    assert_eq!(range(c), (16, d.len() as u64 - 16));
    assert_eq!(val(at(&v["root"], "header/version")), "9 (unknown)");
}

#[test]
fn size_past_the_end() {
    let mut d = write_v1(&simple());
    let n = d.len() as u64;
    patch64(&mut d, 8, n + 100);
    let v = json_of_bytes(d);
    let ds = diags(&v);
    assert!(
        ds.iter()
            .any(|x| x.0 == "error" && x.1 == 8 && x.3.contains("runs past the end")),
        "{ds:?}"
    );
    // Everything that is there is still shown.
    assert!(val(at(&v["root"], "image")).starts_with("ELF"));
}

#[test]
fn offsets_outside_the_binary() {
    let base = write_v1(&simple());
    let n = base.len() as u64;
    let cases: &[(usize, &str)] = &[
        (16, "entry offset 0x"),      // header: entry offset
        (32 + 8, "string offset 0x"), // entry: string offset
        (32 + 24, "image offset 0x"), // entry: image offset
        (72, "key offset 0x"),        // first string entry: key offset
        (80, "value offset 0x"),      // first string entry: value offset
    ];
    for &(field, what) in cases {
        let mut d = base.clone();
        patch64(&mut d, field, n + 0x100);
        let v = json_of_bytes(d);
        let ds = diags(&v);
        assert!(
            ds.iter().any(|x| x.0 == "error"
                && x.3.contains(what)
                && x.3.contains("lies outside the binary")),
            "{what}: {ds:?}"
        );
    }
    // An image that starts inside but runs past the end.
    let mut d = base.clone();
    patch64(&mut d, 32 + 32, n);
    let v = json_of_bytes(d);
    assert!(
        has_diag(&v, "error", "runs past the end of the binary"),
        "{:?}",
        diags(&v)
    );
}

#[test]
fn unterminated_string() {
    let mut e = simple();
    e.image = b"NO-NUL-HERE-AT-ALL-1234".to_vec();
    e.image.resize(24, b'x');
    let mut d = write_v1(&e);
    // Point the first value at the image, which holds no NUL up to the end.
    let img_at = rd64(&d, 32 + 24);
    patch64(&mut d, 80, img_at);
    let v = json_of_bytes(d);
    let ds = diags(&v);
    assert!(
        ds.iter()
            .any(|x| x.0 == "error" && x.1 == img_at && x.3.contains("unterminated string")),
        "{ds:?}"
    );
}

#[test]
fn image_kind_disagreeing_is_info() {
    let mut e = simple();
    e.image_kind = 6; // SPIR-V, but the bytes are ELF
    let d = write_v1(&e);
    let v = json_of_bytes(d);
    let ds = diags(&v);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0].0, "info");
    assert!(
        ds[0].3.contains("6 (SPIR-V)") && ds[0].3.contains("ELF"),
        "{ds:?}"
    );
    // The image is still opened by its magic.
    assert!(val(at(&v["root"], "image")).starts_with("ELF"));
}

#[test]
fn truncated_and_trailing() {
    let v = json_of_bytes(vec![0x10, 0xff, 0x10, 0xad, 1, 0, 0, 0, 9]);
    assert!(has_diag(&v, "error", "truncated"), "{:?}", diags(&v));
    let mut d = write_v1(&simple());
    d.truncate(20);
    let v = json_of_bytes(d);
    assert!(
        has_diag(&v, "error", "runs past the end"),
        "{:?}",
        diags(&v)
    );
    assert!(has_diag(&v, "error", "truncated"), "{:?}", diags(&v));
    let mut sec = write_v1(&simple());
    sec.extend_from_slice(b"garbage!");
    let v = section_json(sec);
    assert!(
        has_diag(&v, "error", "not an offload binary"),
        "{:?}",
        diags(&v)
    );
}

#[test]
fn every_prefix_and_bit_flip_is_safe() {
    let mut seeds = vec![write_v1(&simple()), write_multi(2, &two_entries())];
    for (kind, image) in [
        (4, fatbin_bytes().0),
        (4, bundle_bytes()),
        (5, FATBIN_PTX.to_vec()),
    ] {
        let mut e = simple();
        e.image_kind = kind;
        e.image = image;
        seeds.push(write_v1(&e));
    }
    seeds.push(compress_v3(&write_multi(3, &two_entries()), true));
    seeds.push(compress_v3(&write_multi(3, &two_entries()), false));
    for s in &seeds {
        for cut in 0..s.len() {
            let mut t = formats::build_from_bytes(s[..cut].to_vec());
            json_of_tree(&mut t);
        }
        for i in 0..s.len().min(300) {
            for bit in [0x01u8, 0x80] {
                let mut d = s.clone();
                d[i] ^= bit;
                let mut t = formats::build_from_bytes(d);
                check_nesting(&json_of_tree(&mut t)["root"]);
            }
        }
    }
}

#[test]
fn random_damage_to_the_real_sample_is_safe() {
    let data = std::fs::read(common::asset("offload").join(STANDALONE)).unwrap();
    // The header, the entry, the strings, and the bitcode's first blocks.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut d = data.clone();
        for k in 0..4 {
            let i = ((x >> (k * 16)) % 0x400) as usize;
            d[i] ^= (x >> (k * 8 + 3)) as u8 | 1;
        }
        let mut t = formats::build_from_bytes(d);
        check_nesting(&json_of_tree(&mut t)["root"]);
    }
}

// ---------------------------------------------------------------- links

#[test]
fn offsets_link_to_what_they_name() {
    let d = write_v1(&simple());
    let mut t = formats::build_from_bytes(d.clone());
    let link = |t: &mut Tree, p: &str| {
        let id = t.find_path(p).unwrap_or_else(|| panic!("{p}"));
        let l = t.link(id).unwrap_or_else(|| panic!("{p} has no link"));
        (l.offset, l.len)
    };
    let range_of = |t: &mut Tree, p: &str| {
        let id = t.find_path(p).unwrap();
        (t.node(id).unwrap().offset, t.node(id).unwrap().size)
    };
    assert_eq!(
        link(&mut t, "header/entry offset"),
        range_of(&mut t, "entry")
    );
    assert_eq!(
        link(&mut t, "entry/string offset"),
        range_of(&mut t, "strings")
    );
    assert_eq!(
        link(&mut t, "entry/image offset"),
        range_of(&mut t, "image")
    );
    let (ko, kl) = link(&mut t, "strings/triple/key offset");
    assert_eq!(&d[ko as usize..(ko + kl) as usize], b"triple\0");
    let (vo, vl) = link(&mut t, "strings/arch/value offset");
    assert_eq!(&d[vo as usize..(vo + vl) as usize], b"gfx90a\0");
}

// ---------------------------------------------------------------- device images by hand

const FATBIN_PTX: &[u8] =
    b"//\n.version 7.0\n.target sm_75\n.address_size 64\n.visible .entry kern(\n)\n{\n ret;\n}\n\0";

/// A CUDA fatbin holding one PTX entry: (fatbin, entry header, payload).
fn fatbin_bytes() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut payload = FATBIN_PTX.to_vec();
    align8(&mut payload);
    let mut entry = Vec::new();
    entry.extend_from_slice(&1u16.to_le_bytes()); // PTX
    entry.extend_from_slice(&0x0101u16.to_le_bytes());
    entry.extend_from_slice(&64u32.to_le_bytes());
    entry.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    entry.resize(0x18, 0);
    entry.extend_from_slice(&0u16.to_le_bytes());
    entry.extend_from_slice(&7u16.to_le_bytes());
    entry.extend_from_slice(&75u32.to_le_bytes());
    entry.resize(64, 0);
    let mut fat = Vec::new();
    fat.extend_from_slice(&0xba55_ed50u32.to_le_bytes());
    fat.extend_from_slice(&1u16.to_le_bytes());
    fat.extend_from_slice(&16u16.to_le_bytes());
    fat.extend_from_slice(&((entry.len() + payload.len()) as u64).to_le_bytes());
    fat.extend_from_slice(&entry);
    fat.extend_from_slice(&payload);
    (fat, entry, payload)
}

/// A clang offload bundle of an empty host entry and an ELF.
fn bundle_bytes() -> Vec<u8> {
    let triples = [
        "host-x86_64-unknown-linux-gnu-",
        "hipv4-amdgcn-amd-amdhsa--gfx90a",
    ];
    let table: usize = 32 + triples.iter().map(|t| 24 + t.len()).sum::<usize>();
    let elf = elf_image();
    let mut v = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    v.extend_from_slice(&2u64.to_le_bytes());
    for (t, size) in triples.iter().zip([0usize, elf.len()]) {
        v.extend_from_slice(&(table as u64).to_le_bytes());
        v.extend_from_slice(&(size as u64).to_le_bytes());
        v.extend_from_slice(&(t.len() as u64).to_le_bytes());
        v.extend_from_slice(t.as_bytes());
    }
    v.extend_from_slice(&elf);
    v
}

#[test]
fn cuda_fatbin_image() {
    let (fat, entry, payload) = fatbin_bytes();
    let mut e = simple();
    e.image_kind = 4;
    e.offload_kind = 2;
    e.image = fat.clone();
    let d = write_v1(&e);
    let v = json_of_bytes(d);
    assert!(diags(&v).is_empty(), "{:?}", diags(&v));
    let img = at(&v["root"], "image");
    assert!(val(img).starts_with("CUDA fatbin"));
    assert_eq!(
        num(at(img, "header/fat size")),
        (entry.len() + payload.len()) as u64
    );
    let e0 = at(img, "[0] PTX sm_75");
    assert_eq!(val(at(e0, "header/code version")), "7.0");
    let p = at(e0, "payload");
    assert!(val(p).starts_with("PTX"), "{}", val(p));
    assert_eq!(val(at(p, ".target")), "\"sm_75\"");
    assert_eq!(val(at(p, "functions/kern")), "kernel");
}

#[test]
fn bundle_image() {
    let mut e = simple();
    e.image_kind = 4;
    e.offload_kind = 4;
    e.image = bundle_bytes();
    let d = write_v1(&e);
    let v = json_of_bytes(d.clone());
    assert!(diags(&v).is_empty(), "{:?}", diags(&v));
    let img = at(&v["root"], "image");
    assert_eq!(
        val(at(img, "entries/[1]/triple")),
        "\"hipv4-amdgcn-amd-amdhsa--gfx90a\""
    );
    let co = at(img, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    let (o, l) = range(co);
    assert_eq!(&d[o as usize..(o + l) as usize], &elf_image()[..]);
    assert_eq!(val(at(img, "host-x86_64-unknown-linux-gnu-")), "empty");
    // A code object past the bundle's end.
    let mut b = bundle_bytes();
    let n = b.len() as u64;
    let second = 32 + 24 + 30;
    b[second + 8..second + 16].copy_from_slice(&n.to_le_bytes());
    e.image = b;
    let v = json_of_bytes(write_v1(&e));
    assert!(
        has_diag(&v, "error", "runs past the end of the bundle"),
        "{:?}",
        diags(&v)
    );
}

#[test]
fn compressed_bundle_header() {
    // CCOB version 2: total size u32, uncompressed size u32, hash u64; the
    // bundle inflated into a space of its own and opened there.
    let bundle = bundle_bytes();
    let data = zstd::encode_all(&bundle[..], 3).unwrap();
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(&2u16.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&((24 + data.len()) as u32).to_le_bytes());
    c.extend_from_slice(&(bundle.len() as u32).to_le_bytes());
    c.extend_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
    c.extend_from_slice(&data);
    let mut e = simple();
    e.image_kind = 4;
    e.image = c.clone();
    let d = write_v1(&e);
    let v = json_of_bytes(d.clone());
    // The made-up hash is not the bundle's MD5.
    let ds = diags(&v);
    assert!(
        ds.len() == 1 && ds[0].0 == "warning" && ds[0].3.contains("does not match"),
        "{ds:?}"
    );
    check_nesting(&v["root"]);
    let img = at(&v["root"], "image");
    assert!(val(img).starts_with("compressed clang offload bundle"));
    assert_eq!(val(at(img, "header/compression")), "1 (zstd)");
    assert_eq!(
        num(at(img, "header/uncompressed size")),
        bundle.len() as u64
    );
    let comp = at(img, "compressed");
    assert_eq!(range(comp).1, data.len() as u64);
    let inf = at(comp, "inflated");
    assert_eq!(range(inf), (0, bundle.len() as u64));
    let k = inf["space"].as_u64().unwrap();
    assert_eq!(v["spaces"][k as usize]["from"]["offset"], range(comp).0);
    assert_eq!(v["spaces"][k as usize]["from"]["method"], "zstd");
    assert_eq!(
        val(at(inf, "entries/[1]/triple")),
        "\"hipv4-amdgcn-amd-amdhsa--gfx90a\""
    );
    let co = at(inf, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    assert!(val(co).starts_with("ELF, 64 bytes"), "{}", val(co));
    assert_eq!(range(co).1, 64);
    // A size announced wrong is a warning.
    let mut bad = c.clone();
    bad[12..16].copy_from_slice(&((bundle.len() + 8) as u32).to_le_bytes());
    e.image = bad;
    let v = json_of_bytes(write_v1(&e));
    assert!(
        has_diag(&v, "warning", "the header announces"),
        "{:?}",
        diags(&v)
    );
}

/// A device object clang-22 compiles, holding a string no header has.
fn marked_gpu_object(dir: &Path) -> Vec<u8> {
    let src = dir.join("marked.c");
    std::fs::write(
        &src,
        "const char marker[] = \"only-in-the-inflated-bytes\";\nint add(int a, int b) { return a + b; }\n",
    )
    .unwrap();
    let gpu = dir.join("marked.o");
    run(Proc::new("clang-22")
        .args([
            "--target=amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-nogpulib",
            "-c",
            "-o",
        ])
        .arg(&gpu)
        .arg(&src));
    std::fs::read(&gpu).unwrap()
}

const MARKER: &[u8] = b"only-in-the-inflated-bytes";

fn find_lines(file: &Path, pattern: &str) -> Vec<String> {
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--find", pattern])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn compressed_binary_of_a_real_image() {
    if !common::tool("clang-22") || !common::tool("llvm-offload-binary-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gpu = marked_gpu_object(dir.path());
    // What llvm-offload-binary-22 extracts from a plain binary of it.
    let gpu_path = dir.path().join("marked.o");
    let plain1 = dir.path().join("plain.bin");
    run(Proc::new("llvm-offload-binary-22")
        .arg(format!(
            "--image=file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip",
            gpu_path.display()
        ))
        .arg("-o")
        .arg(&plain1));
    let reference = reference_image(&plain1, "gfx90a", dir.path());
    assert_eq!(reference, gpu);
    // The same image in a compressed v3 binary.
    let e = E {
        image_kind: 1,
        offload_kind: 4,
        flags: 0,
        strings: vec![("triple", "amdgcn-amd-amdhsa"), ("arch", "gfx90a")],
        image: gpu.clone(),
    };
    let plain = write_multi(3, &[e]);
    let data = compress_v3(&plain, true);
    assert!(memchr::memmem::find(&data, MARKER).is_none());
    let file = dir.path().join("compressed.bin");
    std::fs::write(&file, &data).unwrap();
    let v = json_of(&file);
    assert!(errors(&v).is_empty(), "{:?}", diags(&v));
    check_nesting(&v["root"]);
    let inf = at(&v["root"], "compressed/inflated");
    let k = inf["space"].as_u64().unwrap();
    let sp = &v["spaces"][k as usize];
    assert_eq!(sp["from"]["space"], 0);
    assert_eq!(sp["from"]["offset"], 40);
    assert_eq!(sp["from"]["size"], rd64(&data, 8) - 40);
    assert_eq!(sp["from"]["method"], "zstd");
    assert_eq!(sp["size"], plain.len() as u64 - 40);
    let img = at(inf, "image");
    assert!(val(img).starts_with("ELF, "), "{}", val(img));
    // --extract of the inflated image: what llvm-offload-binary-22
    // extracts, what clang-22 compiled.
    let got = fwview_extract(&file, "compressed/inflated/image", dir.path());
    assert_eq!(got, reference);
    // --find of a string only the inflated bytes hold.
    let at_plain = memchr::memmem::find(&plain, MARKER).unwrap() as u64;
    let lines = find_lines(&file, "only-in-the-inflated");
    assert_eq!(lines, vec![format!("{k}:0x{:x}", at_plain - 40)]);
}

#[test]
fn compressed_bundle_from_clang_offload_bundler() {
    if !common::tool("clang-22") || !common::tool("clang-offload-bundler-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gpu = marked_gpu_object(dir.path());
    let host = dir.path().join("host.o");
    std::fs::write(&host, b"").unwrap();
    let ccob = dir.path().join("bundle.ccob");
    let target = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    run(Proc::new("clang-offload-bundler-22")
        .args(["-type=o", "-compress"])
        .arg(format!("-targets=host-x86_64-unknown-linux-gnu,{target}"))
        .arg(format!("-input={}", host.display()))
        .arg(format!("-input={}", dir.path().join("marked.o").display()))
        .arg(format!("-output={}", ccob.display())));
    let unbundled = dir.path().join("unbundled.o");
    run(Proc::new("clang-offload-bundler-22")
        .args(["-type=o", "-unbundle"])
        .arg(format!("-targets={target}"))
        .arg(format!("-input={}", ccob.display()))
        .arg(format!("-output={}", unbundled.display())));
    let reference = std::fs::read(&unbundled).unwrap();
    assert_eq!(reference, gpu);
    let data = std::fs::read(&ccob).unwrap();
    assert!(memchr::memmem::find(&data, MARKER).is_none());
    // A compressed bundle is found in the file itself.
    let v = json_of(&ccob);
    assert_eq!(v["format"], "clang-offload-bundle-compressed");
    assert!(diags(&v).is_empty(), "{:?}", diags(&v));
    check_nesting(&v["root"]);
    let root = &v["root"];
    let version = u64::from(u16::from_le_bytes([data[4], data[5]]));
    assert_eq!(num(at(root, "header/version")), version);
    assert_eq!(val(at(root, "header/compression")), "1 (zstd)");
    assert!(
        val(at(root, "header/hash")).ends_with("(matches the inflated bundle's MD5)"),
        "{}",
        val(at(root, "header/hash"))
    );
    let inf = at(root, "compressed/inflated");
    let k = inf["space"].as_u64().unwrap();
    assert_eq!(
        v["spaces"][k as usize]["from"]["offset"],
        range(at(root, "compressed")).0
    );
    let co = at(inf, target);
    assert!(val(co).starts_with("ELF, "), "{}", val(co));
    let got = fwview_extract(&ccob, &format!("compressed/inflated/{target}"), dir.path());
    assert_eq!(got, reference);
    let lines = find_lines(&ccob, "only-in-the-inflated");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with(&format!("{k}:0x")), "{lines:?}");
}
