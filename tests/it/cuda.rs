//! CUDA fatbins and their host wrappers, on real files: the fatbins NVIDIA
//! ships in its CUDA wheels on PyPI (relocatable objects in
//! `libcudadevrt.a`, LZ4 in CUDA 12.9 and zstd in CUDA 13; a shared library
//! whose `.nv_fatbin` holds many containers back to back). Those files stay
//! out of the repository (NVIDIA's licence does not let them be
//! redistributed on their own): the tests download the wheels with pip,
//! pinned by hash, and skip with a message where the network is not there.
//!
//! No NVIDIA tool runs here, so the checks are what can be known without
//! one: the ELF layout from the `object` crate, each inflated cubin read by
//! `llvm-readelf-22` (which names the sm of CUDA `e_flags`), each inflated
//! size against the size its entry states, and the containers and zstd
//! frames counted by a byte search. Files made here test the diagnostics.

use std::path::{Path, PathBuf};
use std::process::Command as Proc;

use fwview::model::{Format, NodeId, Raw, Tree};

use common::tree::at;

use crate::common;

/// A wheel on PyPI: (project, version, sha256 of the wheel).
struct Wheel {
    project: &'static str,
    version: &'static str,
    sha256: &'static str,
}

const CUDA_RUNTIME_13: Wheel = Wheel {
    project: "nvidia-cuda-runtime",
    version: "13.5.37",
    sha256: "df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d",
};

const CUDA_RUNTIME_12: Wheel = Wheel {
    project: "nvidia-cuda-runtime-cu12",
    version: "12.9.79",
    sha256: "25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3",
};

const NVJPEG_12: Wheel = Wheel {
    project: "nvidia-nvjpeg-cu12",
    version: "12.4.0.76",
    sha256: "3888f10b32fbd58e80166c48e01073732d752fa5f167b7cb5b9615f1c6375a20",
};

/// Where downloaded wheels are kept between runs.
fn cache() -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("test-downloads");
    std::fs::create_dir_all(&dir).expect("a download directory");
    dir
}

/// The member `member` of wheel `w`, downloaded once (pip checks its
/// hash); `None`, with a message, where it cannot be had.
fn wheel_member(w: &Wheel, member: &str) -> Option<Vec<u8>> {
    let dir = cache().join(format!("{}-{}", w.project, w.version));
    let out = dir.join(member.replace('/', "_"));
    if let Ok(b) = std::fs::read(&out) {
        return Some(b);
    }
    std::fs::create_dir_all(&dir).ok()?;
    let req = dir.join("requirements.txt");
    std::fs::write(
        &req,
        format!("{}=={} --hash=sha256:{}\n", w.project, w.version, w.sha256),
    )
    .ok()?;
    let st = Proc::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--require-hashes"])
        .args([
            "--only-binary",
            ":all:",
            "--platform",
            "manylinux2014_x86_64",
        ])
        .args(["--python-version", "3.12", "--quiet"])
        // Without a network, give up soon.
        .args(["--timeout", "20", "--retries", "1", "-d"])
        .arg(&dir)
        .arg("-r")
        .arg(&req)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        eprintln!(
            "skipped: {} {} could not be downloaded (no network?)",
            w.project, w.version
        );
        return None;
    }
    let whl = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))?;
    let st = Proc::new("python3")
        .arg("-c")
        .arg("import sys, zipfile; open(sys.argv[3], 'wb').write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))")
        .arg(&whl)
        .arg(member)
        .arg(&out)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        eprintln!("skipped: {member} not read from {}", whl.display());
        return None;
    }
    std::fs::read(&out).ok()
}

/// The one object in an ar archive.
fn only_member(ar: &[u8]) -> Vec<u8> {
    let a = object::read::archive::ArchiveFile::parse(ar).expect("an archive");
    let members: Vec<_> = a.members().map(|m| m.expect("a member")).collect();
    assert_eq!(members.len(), 1);
    members[0].data(ar).expect("its bytes").to_vec()
}

/// (file offset, size, index) of section `name`, from the object crate.
fn section(bytes: &[u8], name: &str) -> (u64, u64, usize) {
    use object::{Object, ObjectSection};
    let f = object::File::parse(bytes).expect("an ELF");
    let s = f.section_by_name(name).expect(name);
    let (o, l) = s.file_range().expect("in the file");
    (o, l, s.index().0)
}

fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

fn number(t: &mut Tree, id: NodeId, path: &str) -> u64 {
    let id = at(t, id, path);
    match t
        .node(id)
        .and_then(|n| n.value.as_ref())
        .and_then(|v| v.raw())
    {
        Some(Raw::U(v)) => v,
        _ => panic!("{}: not a number", t.path_string(id)),
    }
}

fn text(t: &mut Tree, id: NodeId, path: &str) -> String {
    let id = at(t, id, path);
    t.value_text(id).unwrap_or_default()
}

/// The sm llvm-readelf-22 names in the `Flags:` line of the ELF `bytes`.
fn readelf_sm(dir: &Path, bytes: &[u8]) -> String {
    let p = dir.join("entry.cubin");
    std::fs::write(&p, bytes).expect("written");
    let out = Proc::new("llvm-readelf-22")
        .arg("-h")
        .arg(&p)
        .output()
        .expect("llvm-readelf-22 runs");
    assert!(out.status.success(), "llvm-readelf-22 rejects an entry");
    let s = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = |key: &str| -> String {
        s.lines()
            .find_map(|l| l.trim_start().strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} line"))
            .trim()
            .to_string()
    };
    let flags = line("Flags:");
    if let Some(sm) = flags
        .split(|c: char| c == ',' || c.is_whitespace())
        .find(|w| w.starts_with("sm_"))
    {
        return sm.to_string();
    }
    // An sm this llvm-readelf has no name for (sm_107): the number where
    // the ABI version llvm-readelf reads puts it (v2, EI_ABIVERSION 8 and
    // up: bits 8..15; v1: the low byte).
    let v = u32::from_str_radix(flags.trim_start_matches("0x"), 16).expect("hex flags");
    let abi: u32 = line("ABI Version:").parse().expect("a number");
    let sm = if abi >= 8 { (v >> 8) & 0xff } else { v & 0xff };
    format!("sm_{sm}")
}

/// Checks every entry of the container at `fb`: the inflated size against
/// the header's, an ELF entry's sm against llvm-readelf-22's reading of its
/// e_flags, a PTX entry's `.target`. Returns (entries, zstd entries).
fn check_container(t: &mut Tree, fb: NodeId, dir: &Path, readelf: bool) -> (usize, usize) {
    let mut n = 0;
    let mut zstd = 0;
    for e in t.children(fb) {
        if !t.name(e).starts_with('[') {
            continue;
        }
        n += 1;
        let name = t.name(e).to_string();
        let arch = text(t, e, "header/arch");
        assert!(name.ends_with(&format!(" {arch}")), "{name} / {arch}");
        let flags = text(t, e, "header/flags");
        let payload = at(t, e, "payload");
        let compressed = flags.contains("LZ4") || flags.contains("zstd");
        let bytes = if compressed {
            zstd += usize::from(flags.contains("zstd"));
            let inf = at(t, payload, "inflated");
            let want = number(t, e, "header/inflated size");
            assert_eq!(t.node(inf).map(|n| n.size), Some(want), "{name}");
            t.node_bytes(inf).to_vec()
        } else {
            t.node_bytes(payload).to_vec()
        };
        if name.contains(" ELF ") {
            assert!(bytes.starts_with(b"\x7fELF"), "{name}");
            if readelf {
                assert_eq!(readelf_sm(dir, &bytes), arch, "{name}");
            }
        } else if name.contains(" PTX ") {
            let s = String::from_utf8_lossy(&bytes);
            let target = s
                .lines()
                .find_map(|l| l.trim().strip_prefix(".target "))
                .expect("a .target line");
            assert!(target.starts_with(&arch), "{name}: .target {target}");
        }
    }
    (n, zstd)
}

/// `libcudadevrt.a` of a CUDA runtime wheel: one relocatable object whose
/// `__nv_relfatbin` is one container, its wrapper in `.nvFatBinSegment`
/// pointing there through its relocation.
fn relocatable(w: &Wheel, lib: &str, method: &str) {
    let readelf = common::tool("llvm-readelf-22");
    let Some(ar) = wheel_member(w, lib) else {
        return;
    };
    let obj = only_member(&ar);
    let (fo, fl, fi) = section(&obj, "__nv_relfatbin");
    let (_, _, wi) = section(&obj, ".nvFatBinSegment");
    let data = &obj[fo as usize..(fo + fl) as usize];
    assert_eq!(count(data, fwview::formats::fatbin::MAGIC), 1);
    let mut t = fwview::formats::build_from_bytes(obj.clone());
    let fb = t
        .find_path(&format!("sections/[{fi}] __nv_relfatbin"))
        .expect("the fatbin section");
    assert_eq!(t.node(fb).map(|n| (n.offset, n.size)), Some((fo, fl)));
    assert_eq!(t.node_format(fb), Some(Format::CudaFatbin));
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let (n, zstd) = check_container(&mut t, fb, tmp.path(), readelf);
    assert!(n >= 10, "{n} entries");
    if method == "zstd" {
        // Every entry is one zstd frame: as many as the frame magics.
        assert_eq!(zstd, count(data, &[0x28, 0xb5, 0x2f, 0xfd]));
        assert_eq!(zstd, n);
    }
    // The wrapper's pointer: relocated to the fatbin section's start.
    let wr = t
        .find_path(&format!("sections/[{wi}] .nvFatBinSegment/wrapper"))
        .expect("the wrapper");
    assert_eq!(
        text(&mut t, wr, "magic"),
        "0x466243b1 (__fatBinC_Wrapper_t)"
    );
    let p = at(&mut t, wr, "data");
    let link = t.link(p).expect("a link");
    assert_eq!((link.offset, link.len), (fo, fl));
    t.expand_all();
    let bad = common::tree::warnings_and_errors(&t);
    assert!(bad.is_empty(), "{bad:?}");
    // --targets lists every entry, inflated, as CUDA code for the sm its
    // entry names.
    let a = tmp.path().join("lib.a");
    std::fs::write(&a, &ar).expect("written");
    let out = assert_cmd::Command::cargo_bin("fwview")
        .expect("the fwview binary")
        .arg("--targets")
        .arg(&a)
        .output()
        .expect("fwview runs");
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n, "{out}");
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f[2], "cuda", "{l}");
        assert!(f[3].contains(&format!(" {}/payload", f[1])), "{l}");
    }
}

#[test]
fn cuda13_relocatable_fatbin_zstd() {
    relocatable(&CUDA_RUNTIME_13, "nvidia/cu13/lib/libcudadevrt.a", "zstd");
}

#[test]
fn cuda12_relocatable_fatbin_lz4() {
    relocatable(
        &CUDA_RUNTIME_12,
        "nvidia/cuda_runtime/lib/libcudadevrt.a",
        "lz4",
    );
}

/// libnvjpeg.so of NVIDIA's nvjpeg wheel (its cubins are LZ4-compressed
/// and carry `.debug_frame`); `None`, with a message, where it cannot be
/// downloaded.
pub(crate) fn nvjpeg_library() -> Option<Vec<u8>> {
    wheel_member(&NVJPEG_12, "nvidia/nvjpeg/lib/libnvjpeg.so.12")
}

/// libcudadevrt.a of NVIDIA's CUDA 12 runtime wheel (relocatable cubins,
/// sm_50 to sm_121, LZ4-compressed); `None`, with a message, where it
/// cannot be downloaded.
pub(crate) fn cudadevrt_archive() -> Option<Vec<u8>> {
    wheel_member(&CUDA_RUNTIME_12, "nvidia/cuda_runtime/lib/libcudadevrt.a")
}

/// libnvjpeg.so: `.nv_fatbin` holds containers back to back, one per
/// translation unit, each named by a wrapper whose pointer the linker
/// filled in.
#[test]
fn shared_library_containers_back_to_back_and_wrappers() {
    let readelf = common::tool("llvm-readelf-22");
    let Some(so) = wheel_member(&NVJPEG_12, "nvidia/nvjpeg/lib/libnvjpeg.so.12") else {
        return;
    };
    let (fo, fl, fi) = section(&so, ".nv_fatbin");
    let (wo, wl, wi) = section(&so, ".nvFatBinSegment");
    let data = &so[fo as usize..(fo + fl) as usize];
    // Containers start on 8-byte boundaries: every magic there is one.
    let magics: Vec<u64> = (0..data.len().saturating_sub(3))
        .step_by(8)
        .filter(|&i| data[i..].starts_with(fwview::formats::fatbin::MAGIC))
        .map(|i| fo + i as u64)
        .collect();
    assert!(magics.len() > 1);
    let mut t = fwview::formats::build_from_bytes(so.clone());
    let fb = t
        .find_path(&format!("sections/[{fi}] .nv_fatbin"))
        .expect("the fatbin section");
    let containers: Vec<NodeId> = t
        .children(fb)
        .into_iter()
        .filter(|&c| t.name(c).starts_with("fatbin ["))
        .collect();
    let starts: Vec<u64> = containers
        .iter()
        .filter_map(|&c| t.node(c).map(|n| n.offset))
        .collect();
    assert_eq!(starts, magics);
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut entries = 0;
    for &c in &containers {
        assert_eq!(t.node_format(c), Some(Format::CudaFatbin));
        entries += check_container(&mut t, c, tmp.path(), readelf).0;
    }
    assert!(entries > containers.len());
    // Each wrapper's pointer, read here and mapped through the section
    // addresses by the object crate, is where fwview links it: a container.
    use object::{Object, ObjectSection};
    let f = object::File::parse(&*so).expect("an ELF");
    let to_offset = |addr: u64| -> u64 {
        f.sections()
            .find(|s| addr >= s.address() && addr < s.address() + s.size())
            .and_then(|s| s.file_range().map(|(o, _)| o + (addr - s.address())))
            .expect("an address in a section")
    };
    let recs = &so[wo as usize..(wo + wl) as usize];
    assert_eq!(recs.len() % 24, 0);
    let n = recs.len() / 24;
    let ws = t
        .find_path(&format!("sections/[{wi}] .nvFatBinSegment"))
        .expect("the wrappers");
    for (i, r) in recs.chunks(24).enumerate() {
        assert_eq!(&r[..4], &[0xb1, 0x43, 0x62, 0x46]);
        let addr = u64::from_le_bytes(r[8..16].try_into().expect("8 bytes"));
        let want = to_offset(addr);
        assert!(starts.contains(&want), "wrapper {i} points at 0x{want:x}");
        let name = if n == 1 {
            "wrapper".to_string()
        } else {
            format!("wrapper [{i}]")
        };
        let p = at(&mut t, ws, &format!("{name}/data"));
        let link = t.link(p).expect("a link");
        assert_eq!(link.offset, want, "{name}");
    }
    t.expand_all();
    let bad = common::tree::warnings_and_errors(&t);
    assert!(bad.is_empty(), "{bad:?}");
}

// ---------------------------------------------------------------- made here

/// An ELF64 header alone: a CUDA cubin of ABI v1 for `sm`.
fn cubin(sm: u8) -> Vec<u8> {
    let mut e = vec![0u8; 64];
    e[..4].copy_from_slice(b"\x7fELF");
    e[4] = 2; // ELFCLASS64
    e[5] = 1; // little-endian
    e[6] = 1;
    e[7] = 0x33; // ELFOSABI_CUDA
    e[8] = 7; // ABI v1: the sm in the low byte of e_flags
    e[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    e[18..20].copy_from_slice(&190u16.to_le_bytes()); // EM_CUDA
    e[20..24].copy_from_slice(&1u32.to_le_bytes());
    e[48..52].copy_from_slice(&(0x0050_0500 | u32::from(sm)).to_le_bytes());
    e[52..54].copy_from_slice(&64u16.to_le_bytes());
    e[54..56].copy_from_slice(&56u16.to_le_bytes());
    e[58..60].copy_from_slice(&64u16.to_le_bytes());
    e
}

const PTX: &[u8] =
    b"//\n.version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n ret;\n}\n";

/// One entry: (kind, sm, flags, data as stored, inflated size, options).
struct Made<'a> {
    kind: u16,
    sm: u32,
    flags: u64,
    data: Vec<u8>,
    inflated: u64,
    options: Option<&'a [u8]>,
}

fn entry_bytes(m: &Made<'_>) -> Vec<u8> {
    let opt = m.options.unwrap_or(b"");
    let hs = if opt.is_empty() {
        64
    } else {
        (72 + opt.len()).next_multiple_of(8)
    };
    let padded = m.data.len().next_multiple_of(8);
    let mut e = Vec::new();
    e.extend_from_slice(&m.kind.to_le_bytes());
    e.extend_from_slice(&0x0101u16.to_le_bytes());
    e.extend_from_slice(&(hs as u32).to_le_bytes());
    e.extend_from_slice(&(padded as u64).to_le_bytes());
    let compressed = m.flags & 0xa000 != 0;
    e.extend_from_slice(&(if compressed { m.data.len() as u32 } else { 0 }).to_le_bytes());
    e.extend_from_slice(&(if opt.is_empty() { 0u32 } else { 0x40 }).to_le_bytes());
    e.extend_from_slice(&0u16.to_le_bytes()); // minor
    e.extend_from_slice(&8u16.to_le_bytes()); // major
    e.extend_from_slice(&m.sm.to_le_bytes());
    e.extend_from_slice(&[0; 8]); // no object name
    e.extend_from_slice(&m.flags.to_le_bytes());
    e.extend_from_slice(&[0; 8]);
    e.extend_from_slice(&(if compressed { m.inflated } else { 0 }).to_le_bytes());
    if !opt.is_empty() {
        e.extend_from_slice(&72u32.to_le_bytes());
        e.extend_from_slice(&(opt.len() as u32).to_le_bytes());
        e.extend_from_slice(opt);
        e.resize(hs, 0);
    }
    e.extend_from_slice(&m.data);
    e.resize(hs + padded, 0);
    e
}

fn container(entries: &[Made<'_>]) -> Vec<u8> {
    let body: Vec<u8> = entries.iter().flat_map(entry_bytes).collect();
    let mut c = Vec::new();
    c.extend_from_slice(fwview::formats::fatbin::MAGIC);
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&16u16.to_le_bytes());
    c.extend_from_slice(&(body.len() as u64).to_le_bytes());
    c.extend_from_slice(&body);
    c
}

const LZ4_64: u64 = 0x2011;
const ZSTD_64: u64 = 0x8011;

#[test]
fn made_fatbins_inflate_and_say_what_does_not_agree() {
    let elf80 = cubin(80);
    let lz4 = lz4_flex::block::compress(&elf80);
    let zs = zstd::bulk::compress(PTX, 3).expect("zstd");
    let first = container(&[
        // Right in every way.
        Made {
            kind: 2,
            sm: 80,
            flags: LZ4_64,
            data: lz4.clone(),
            inflated: 64,
            options: None,
        },
        // Said to be for sm_86, its ELF is for sm_80.
        Made {
            kind: 2,
            sm: 86,
            flags: LZ4_64,
            data: lz4,
            inflated: 64,
            options: None,
        },
        // Said to inflate to one byte more than it does.
        Made {
            kind: 1,
            sm: 80,
            flags: ZSTD_64,
            data: zs,
            inflated: PTX.len() as u64 + 1,
            options: None,
        },
        // An ELF entry holding PTX.
        Made {
            kind: 2,
            sm: 80,
            flags: 0x11,
            data: PTX.to_vec(),
            inflated: 0,
            options: None,
        },
    ]);
    let second = container(&[Made {
        kind: 1,
        sm: 80,
        flags: 0x13,
        data: PTX.to_vec(),
        inflated: 0,
        options: Some(b"-O3 --verbose"),
    }]);
    let mut fat = first.clone();
    fat.resize(first.len().next_multiple_of(8), 0);
    let second_at = fat.len() as u64;
    fat.extend_from_slice(&second);
    let mut t = fwview::formats::build_from_bytes(fat.clone());
    assert_eq!(t.format(), Some(Format::CudaFatbin));
    let root = t.root();
    let c0 = at(&mut t, root, "fatbin [0]");
    let c1 = at(&mut t, root, "fatbin [1]");
    assert_eq!(t.node(c1).map(|n| n.offset), Some(second_at));
    assert_eq!(
        text(&mut t, c0, "[0] ELF sm_80/header/flags"),
        "0x2011 (64-bit | Linux | LZ4)"
    );
    let inf = at(&mut t, c0, "[0] ELF sm_80/payload/inflated");
    assert_eq!(t.node_bytes(inf), &elf80[..]);
    let inf = at(&mut t, c0, "[2] PTX sm_80/payload/inflated");
    assert_eq!(t.node_bytes(inf), PTX);
    assert_eq!(
        text(&mut t, c0, "[2] PTX sm_80/payload/inflated/.target"),
        "\"sm_80\""
    );
    assert_eq!(
        text(&mut t, c1, "[0] PTX sm_80/header/options text"),
        "\"-O3 --verbose\""
    );
    assert_eq!(
        text(&mut t, c1, "[0] PTX sm_80/header/flags"),
        "0x13 (64-bit | debug | Linux)"
    );
    assert_eq!(text(&mut t, c1, "[0] PTX sm_80/header/code version"), "8.0");
    t.expand_all();
    let mut got: Vec<String> = t.diagnostics().iter().map(|d| d.message.clone()).collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            "an entry of kind ELF holds PTX".to_string(),
            "the entry is for sm_86; its ELF's e_flags say sm_80".to_string(),
            format!(
                "the entry says it inflates to {} bytes; its zstd data makes {}",
                PTX.len() + 1,
                PTX.len()
            ),
        ]
    );
}

#[test]
fn broken_fatbins_end_in_diagnostics() {
    let good = container(&[Made {
        kind: 2,
        sm: 80,
        flags: LZ4_64,
        data: lz4_flex::block::compress(&cubin(80)),
        inflated: 64,
        options: None,
    }]);
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut v = good.clone();
    v.truncate(40);
    cases.push(("runs past the end", v));
    let mut v = good.clone();
    v[16 + 4..16 + 8].copy_from_slice(&4u32.to_le_bytes());
    cases.push(("header size 4 is impossible", v));
    let mut v = good.clone();
    v[16 + 16..16 + 20].copy_from_slice(&100_000u32.to_le_bytes());
    cases.push(("compressed size 100000", v));
    let mut v = good.clone();
    for b in &mut v[16 + 64..] {
        *b = 0xff;
    }
    cases.push(("LZ4 data does not inflate", v));
    let mut v = good.clone();
    v[4..6].copy_from_slice(&3u16.to_le_bytes());
    cases.push(("fatbin version 3", v));
    for (want, bytes) in cases {
        let mut t = fwview::formats::build_from_bytes(bytes);
        t.expand_all();
        assert!(
            t.diagnostics().iter().any(|d| d.message.contains(want)),
            "{want}: {:?}",
            t.diagnostics()
        );
    }
}

#[test]
fn a_wrapper_section_on_its_own() {
    let mut w = Vec::new();
    w.extend_from_slice(&0x4662_43b1u32.to_le_bytes());
    w.extend_from_slice(&1u32.to_le_bytes());
    w.extend_from_slice(&0x1000u64.to_le_bytes());
    w.extend_from_slice(&0u64.to_le_bytes());
    let mut t = fwview::formats::build_from_bytes(w);
    assert_eq!(t.format(), Some(Format::CudaFatbinWrapper));
    let root = t.root();
    assert_eq!(text(&mut t, root, "wrapper/version"), "1 (fatbin)");
    assert_eq!(text(&mut t, root, "wrapper/data"), "0x1000");
}

/// NVVM IR entries (kind 8, what `nvcc -dlto` stores) carry LLVM bitcode
/// for the NVPTX target. No NVIDIA tool runs here, so the entry's payload is
/// bitcode that clang-22 writes for nvptx64, stored as is and LZ4-packed.
#[test]
fn nvvm_ir_entries_open_their_bitcode() {
    if !common::tool("clang-22") {
        return;
    }
    let dir = common::scratch();
    let src = dir.path().join("k.cu.ll");
    std::fs::write(
        &src,
        "target triple = \"nvptx64-nvidia-cuda\"\ndefine void @k() {\n  ret void\n}\n",
    )
    .unwrap();
    let bc = dir.path().join("k.bc");
    let ok = Proc::new("clang-22")
        .args(["-c", "-emit-llvm", "--target=nvptx64-nvidia-cuda", "-o"])
        .arg(&bc)
        .arg(&src)
        .status()
        .expect("clang-22 runs");
    assert!(ok.success(), "clang-22 writes bitcode");
    let bitcode = std::fs::read(&bc).unwrap();
    assert_eq!(&bitcode[..4], b"BC\xc0\xde");
    let packed = lz4_flex::block::compress(&bitcode);
    let fat = container(&[
        Made {
            kind: 8,
            sm: 80,
            flags: 0x11,
            data: bitcode.clone(),
            inflated: 0,
            options: None,
        },
        Made {
            kind: 8,
            sm: 80,
            flags: LZ4_64,
            data: packed,
            inflated: bitcode.len() as u64,
            options: None,
        },
    ]);
    let mut t = fwview::formats::build_from_bytes(fat);
    assert_eq!(t.format(), Some(Format::CudaFatbin));
    t.expand_all();
    let mut bitcode_nodes = Vec::new();
    let mut stack = vec![t.root()];
    while let Some(id) = stack.pop() {
        if t.node_format(id) == Some(Format::Bitcode) {
            bitcode_nodes.push(id);
        }
        stack.extend(t.built_children(id).iter().copied());
    }
    assert_eq!(bitcode_nodes.len(), 2, "both entries open as bitcode");
    // The payload is the bitcode and the zeros that pad the entry to 8
    // bytes (bitcode is a multiple of 4 bytes; its length here follows the
    // length of the temporary directory's path, which it records).
    for id in bitcode_nodes {
        let bytes = t.node_bytes(id);
        assert!(
            bytes.starts_with(&bitcode),
            "the node starts with the bitcode"
        );
        let pad = &bytes[bitcode.len()..];
        assert!(pad.len() < 8 && pad.iter().all(|&b| b == 0), "{pad:?}");
        assert!(bytes.len().is_multiple_of(8) || pad.is_empty());
    }
    let root = t.root();
    let entries: Vec<NodeId> = t
        .children(root)
        .into_iter()
        .filter(|&e| t.name(e).starts_with('['))
        .collect();
    let kinds: Vec<String> = entries
        .into_iter()
        .map(|e| text(&mut t, e, "header/kind"))
        .collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    for k in kinds {
        assert!(k.contains("NVVM"), "{k}");
    }
    assert!(
        common::tree::warnings_and_errors(&t).is_empty(),
        "{:?}",
        common::tree::warnings_and_errors(&t)
    );
}
