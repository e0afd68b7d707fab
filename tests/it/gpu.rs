//! GPU device code: `--targets` and clang offload bundles, compared with
//! llvm-objdump-22 --offloading and clang-offload-bundler-22 on the
//! offload samples and on objects clang-22 builds here.

use std::path::{Path, PathBuf};
use std::process::Command as Proc;

use serde_json::Value;

use crate::common;

/// Builds a fixture from the tiny kernel with `$build(dir, args...)` in a
/// new temporary directory `$tmp`, binding what it returns to `$pat`; returns
/// from the test, saying so, when clang-22 cannot build HIP here.
macro_rules! hip_fixture {
    ($tmp:ident, $pat:pat = $build:ident $(, $arg:expr)*) => {
        let $tmp = tempfile::tempdir().expect("a temporary directory");
        let $pat = match $build($tmp.path() $(, $arg)*) {
            Some(v) => v,
            None => {
                eprintln!("skipped: clang-22 cannot build HIP here");
                return;
            }
        };
    };
}

/// Returns from the test when a reference tool is missing (a failure under
/// `FWVIEW_REQUIRE_TOOLS=1`: see `common::tool`).
macro_rules! need {
    ($($tool:expr),+) => {
        $(
            if !common::tool($tool) {
                return;
            }
        )+
    };
}

/// `fwview ARGS`: (exit code, standard output).
fn fwview_bytes(args: &[&std::ffi::OsStr]) -> (i32, Vec<u8>) {
    let out = common::fwview(args);
    (out.status.code().unwrap_or(-1), out.stdout)
}

fn fwview(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let (c, out) = fwview_bytes(args);
    (c, String::from_utf8_lossy(&out).into_owned())
}

fn targets_json(file: &Path) -> (i32, Vec<Value>) {
    let (code, out) = fwview(&["--targets".as_ref(), "--json".as_ref(), file.as_os_str()]);
    let v: Value = serde_json::from_str(&out).expect("--targets --json is JSON");
    (code, v.as_array().cloned().unwrap_or_default())
}

fn field<'a>(r: &'a Value, k: &str) -> &'a str {
    r[k].as_str().unwrap_or("")
}

/// `arch` of every image llvm-objdump-22 --offloading lists.
fn objdump_arches(file: &Path) -> Vec<String> {
    let out = Proc::new("llvm-objdump-22")
        .arg("--offloading")
        .arg(file)
        .output()
        .expect("llvm-objdump-22 runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("arch"))
        .map(|a| a.trim().to_string())
        .collect()
}

const TINY_HIP: &str = r#"
typedef struct { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);
__attribute__((global)) void saxpy(float a, float *x, float *y, int n) {
  if (n > 0) y[0] = a * x[0] + y[0];
}
"#;

/// Builds the tiny kernel with clang-22 for gfx90a and gfx942:xnack+:
/// (host object, device-only bundle).
fn hip_build(dir: &Path, extra: &[&str]) -> Option<(PathBuf, PathBuf)> {
    let src = dir.join("k.hip");
    // A kernel name of its own per directory, so that two objects link.
    let tag: String = dir
        .file_name()?
        .to_string_lossy()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    std::fs::write(&src, TINY_HIP.replace("saxpy", &format!("saxpy_{tag}"))).ok()?;
    let obj = dir.join("k.o");
    let dev = dir.join("k.hipfb");
    // With -fgpu-rdc the device-only step writes one file a target: only
    // the object is built.
    let rdc = extra.contains(&"-fgpu-rdc");
    for (out, more) in [(&obj, &[][..]), (&dev, &["--offload-device-only"][..])] {
        if rdc && out == &dev {
            continue;
        }
        let st = Proc::new("clang-22")
            .args([
                "-x",
                "hip",
                "--offload-arch=gfx90a",
                "--offload-arch=gfx942:xnack+",
            ])
            .args(["-nogpulib", "-nogpuinc", "-c"])
            .args(extra)
            .args(more)
            .arg(&src)
            .arg("-o")
            .arg(out)
            .status()
            .ok()?;
        if !st.success() {
            return None;
        }
    }
    Some((obj, dev))
}

fn bundler_list(file: &Path) -> Vec<String> {
    let out = Proc::new("clang-offload-bundler-22")
        .args(["--list", "--type=o"])
        .arg(format!("--input={}", file.display()))
        .output()
        .expect("clang-offload-bundler-22 runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn targets_of_the_offload_samples_equal_llvm_objdump() {
    need!("llvm-objdump-22");
    for rel in [
        "offload/debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-amdgpu-gfx90a.o",
        "offload/debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-nvptx-sm_80.o",
        "offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o",
    ] {
        let f = common::asset(rel);
        let (code, recs) = targets_json(&f);
        assert_eq!(code, 0, "{rel}");
        let got: Vec<String> = recs
            .iter()
            .map(|r| field(r, "target").to_string())
            .collect();
        assert_eq!(got, objdump_arches(&f), "{rel}");
        for r in &recs {
            assert_eq!(field(r, "format"), "bitcode", "{rel}");
            assert_eq!(field(r, "kind"), "openmp", "{rel}");
            // The address opens the image: its bytes start with the
            // bitcode magic and have the size given.
            let (c, out) = fwview_bytes(&[
                "--extract".as_ref(),
                field(r, "path").as_ref(),
                "-o".as_ref(),
                "-".as_ref(),
                f.as_os_str(),
            ]);
            assert_eq!(c, 0);
            assert!(out.starts_with(b"BC\xc0\xde"), "{rel}");
        }
    }
}

/// (What xclbins configure is listed too: tests/it/xclbin.rs.)
#[test]
fn targets_of_zebins() {
    let dg2 = common::asset("zebin/generated_locally/ocloc22.43__add_XE_HPG_COREdg2.bin");
    let (code, out) = fwview(&["--targets".as_ref(), dg2.as_os_str()]);
    assert_eq!(code, 0);
    assert_eq!(out, "zebin\tdg2\t-\t/\n");
    let fat = common::asset("zebin/generated_locally/ocloc22.43__add_fat.ar");
    let (code, recs) = targets_json(&fat);
    assert_eq!(code, 0);
    let got: Vec<&str> = recs.iter().map(|r| field(r, "target")).collect();
    assert_eq!(got, ["tigerlake_lp", "dg2", "pvc"]);
}

#[test]
fn hip_objects_targets_and_bundles_equal_the_bundler() {
    need!("clang-22", "clang-offload-bundler-22");
    hip_fixture!(tmp, (obj, dev) = hip_build, &[]);
    let ids = bundler_list(&dev);
    let device: Vec<&String> = ids.iter().filter(|i| !i.starts_with("host-")).collect();
    assert_eq!(device.len(), 2, "{ids:?}");
    for f in [&obj, &dev] {
        let (code, recs) = targets_json(f);
        assert_eq!(code, 0);
        let got: Vec<(&str, &str, &str)> = recs
            .iter()
            .map(|r| (field(r, "format"), field(r, "target"), field(r, "kind")))
            .collect();
        assert_eq!(
            got,
            [
                ("elf", "gfx90a", "hipv4"),
                ("elf", "gfx942:xnack+", "hipv4")
            ],
            "{}",
            f.display()
        );
    }
    // Every entry's bytes equal what the bundler writes for it.
    let (_, recs) = targets_json(&dev);
    for (r, id) in recs.iter().zip(device) {
        assert!(field(r, "path").ends_with(id.as_str()), "{id}");
        let want = tmp.path().join("want.co");
        let st = Proc::new("clang-offload-bundler-22")
            .args(["--unbundle", "--type=o"])
            .arg(format!("--input={}", dev.display()))
            .arg(format!("--targets={id}"))
            .arg(format!("--output={}", want.display()))
            .status()
            .expect("bundler runs");
        assert!(st.success());
        let got = tmp.path().join("got.co");
        let (c, _) = fwview(&[
            "--extract".as_ref(),
            field(r, "path").as_ref(),
            "-o".as_ref(),
            got.as_os_str(),
            "--force".as_ref(),
            dev.as_os_str(),
        ]);
        assert_eq!(c, 0);
        assert_eq!(std::fs::read(&got).ok(), std::fs::read(&want).ok(), "{id}");
        assert_eq!(
            r["size"].as_u64(),
            std::fs::metadata(&want).ok().map(|m| m.len())
        );
    }
}

/// `fwview --extract PATH FILE` into memory.
fn extract(file: &Path, path: &str) -> Vec<u8> {
    let (c, out) = fwview_bytes(&[
        "--extract".as_ref(),
        path.as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
        file.as_os_str(),
    ]);
    assert_eq!(c, 0, "{path}");
    out
}

/// llvm-objdump-22 --offloading writes every bundle entry of a host
/// object as FILE.N.ID in the directory it runs in: (N, ID, bytes) of the
/// device entries.
fn objdump_bundles(file: &Path) -> Vec<(usize, String, Vec<u8>)> {
    let dir = file.parent().expect("a directory");
    let st = Proc::new("llvm-objdump-22")
        .arg("--offloading")
        .arg(file.file_name().expect("a file name"))
        .current_dir(dir)
        .output()
        .expect("llvm-objdump-22 runs");
    assert!(st.status.success());
    let stem = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    for l in String::from_utf8_lossy(&st.stdout).lines() {
        let Some(name) = l.strip_prefix("Extracting offload bundle: ") else {
            continue;
        };
        let Some(rest) = name.strip_prefix(&format!("{stem}.")) else {
            continue;
        };
        let Some((n, id)) = rest.split_once('.') else {
            continue;
        };
        if id.starts_with("host-") {
            continue;
        }
        let bytes = std::fs::read(dir.join(name)).expect("the extracted entry");
        out.push((n.parse().expect("a bundle number"), id.to_string(), bytes));
    }
    out
}

/// Every device image of `file` (a host object with `.hip_fatbin`) equals
/// what llvm-objdump-22 --offloading extracts, bundle by bundle. The
/// bytes it writes for a compressed bundle are not the entry's (llvm-22
/// writes other memory there), so only the ids of the bundles in
/// `compressed` are compared; their bytes are checked against the
/// bundler in the test of compressed bundles.
fn same_as_objdump(file: &Path, bundles: usize, compressed: &[usize]) {
    let want = objdump_bundles(file);
    let (code, recs) = targets_json(file);
    assert_eq!(code, 0);
    assert_eq!(recs.len(), want.len(), "{}", file.display());
    for (r, (n, id, bytes)) in recs.iter().zip(&want) {
        let path = field(r, "path");
        assert!(path.ends_with(&format!("/{id}")), "{path} {id}");
        if bundles > 1 {
            assert!(path.contains(&format!("/bundle [{n}]/")), "{path}");
        }
        if !compressed.contains(n) {
            let got = extract(file, path);
            assert!(
                &got == bytes,
                "{path}: {} bytes, llvm-objdump-22 wrote {}",
                got.len(),
                bytes.len()
            );
        }
        // The target is the id's target id.
        assert!(id.ends_with(field(r, "target")), "{id}");
    }
    let distinct: std::collections::BTreeSet<usize> = want.iter().map(|w| w.0).collect();
    assert_eq!(distinct.len(), bundles);
}

#[test]
fn hip_fatbin_sections_equal_llvm_objdump_back_to_back_and_compressed() {
    need!(
        "clang-22",
        "llvm-objdump-22",
        "ld.lld-22",
        "clang-offload-bundler-22"
    );
    hip_fixture!(tmp, (obj, _) = hip_build, &[]);
    same_as_objdump(&obj, 1, &[]);
    let one = tmp.path().join("one.o");
    std::fs::rename(&obj, &one).expect("rename");
    let build_in = |name: &str, extra: &[&str]| {
        let sub = tmp.path().join(name);
        std::fs::create_dir(&sub).expect("mkdir");
        hip_build(&sub, extra).map(|(o, _)| o)
    };
    let (Some(two), Some(three)) = (build_in("b", &[]), build_in("c", &["--offload-compress"]))
    else {
        return;
    };
    same_as_objdump(&three, 1, &[0]);
    let (_, recs) = targets_json(&three);
    assert!(recs
        .iter()
        .all(|r| field(r, "path").contains("/compressed/inflated/") && r["space"] != 0));
    let link = |a: &Path, b: &Path, out: &str| {
        let out = tmp.path().join(out);
        let st = Proc::new("ld.lld-22")
            .arg("-r")
            .arg(a)
            .arg(b)
            .arg("-o")
            .arg(&out)
            .status()
            .expect("ld.lld-22 runs");
        assert!(st.success());
        out
    };
    // Two objects linked together: two bundles in one section, the
    // second at the next 4096-byte boundary.
    let both = link(&one, &two, "both.o");
    same_as_objdump(&both, 2, &[]);
    // A plain bundle, then a compressed one (llvm-objdump-22 stops at
    // the first: it looks for more of the first one's kind only). The
    // second, extracted, is what the bundler reads.
    let mixed = link(&one, &three, "mixed.o");
    let (code, recs) = targets_json(&mixed);
    assert_eq!(code, 0);
    assert_eq!(recs.len(), 4);
    let second = tmp.path().join("second.ccob");
    std::fs::write(
        &second,
        extract(&mixed, "sections/[6] .hip_fatbin/bundle [1]"),
    )
    .expect("write");
    let ids = bundler_list(&second);
    let device: Vec<&String> = ids.iter().filter(|i| !i.starts_with("host-")).collect();
    assert_eq!(device.len(), 2, "{ids:?}");
    for (r, id) in recs[2..].iter().zip(device) {
        let path = field(r, "path");
        assert_eq!(
            path,
            format!("sections/[6] .hip_fatbin/bundle [1]/compressed/inflated/{id}")
        );
        let want = tmp.path().join("want.co");
        let st = Proc::new("clang-offload-bundler-22")
            .args(["--unbundle", "--type=o"])
            .arg(format!("--input={}", second.display()))
            .arg(format!("--targets={id}"))
            .arg(format!("--output={}", want.display()))
            .status()
            .expect("bundler runs");
        assert!(st.success());
        assert!(extract(&mixed, path) == std::fs::read(&want).expect("the entry"));
    }
}

#[test]
fn compressed_bundles_v2_v3_and_back_to_back_equal_the_bundler() {
    need!("clang-22", "clang-offload-bundler-22");
    hip_fixture!(tmp, (_, dev) = hip_build, &[]);
    let ids = bundler_list(&dev);
    // Each entry as the bundler writes it.
    let mut parts = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let p = tmp.path().join(format!("e{i}"));
        let st = Proc::new("clang-offload-bundler-22")
            .args(["--unbundle", "--type=o"])
            .arg(format!("--input={}", dev.display()))
            .arg(format!("--targets={id}"))
            .arg(format!("--output={}", p.display()))
            .status()
            .expect("bundler runs");
        assert!(st.success());
        parts.push(p);
    }
    let mut all = Vec::new();
    for v in ["2", "3"] {
        let out = tmp.path().join(format!("v{v}.ccob"));
        let mut cmd = Proc::new("clang-offload-bundler-22");
        cmd.env("COMPRESSED_BUNDLE_FORMAT_VERSION", v)
            .args(["-compress", "--type=o"])
            .arg(format!("--targets={}", ids.join(",")))
            .arg(format!("--output={}", out.display()));
        for p in &parts {
            cmd.arg(format!("--input={}", p.display()));
        }
        assert!(cmd.status().expect("bundler runs").success());
        let d = std::fs::read(&out).expect("the compressed bundle");
        assert_eq!(&d[..4], b"CCOB");
        assert_eq!(d[4], v.parse::<u8>().expect("a version"));
        // The bundler reads it back as we do.
        assert_eq!(bundler_list(&out), ids);
        let (code, recs) = targets_json(&out);
        assert_eq!(code, 0);
        check_entries(&out, &recs, &ids, &parts, "");
        // No diagnostics: the hash matches, the sizes agree.
        let (_, json) = fwview(&["--json".as_ref(), out.as_os_str()]);
        let j: Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(j["diagnostics"].as_array().map(Vec::len), Some(0), "v{v}");
        all.extend(d);
    }
    // v2 then v3 back to back: each bounded by its own total size.
    let cat = tmp.path().join("cat.ccob");
    std::fs::write(&cat, &all).expect("write");
    let (code, recs) = targets_json(&cat);
    assert_eq!(code, 0);
    assert_eq!(recs.len(), 4);
    check_entries(&cat, &recs[..2], &ids, &parts, "bundle [0]/");
    check_entries(&cat, &recs[2..], &ids, &parts, "bundle [1]/");
}

/// The device records of one bundle: the address names the entry id, the
/// bytes are what the bundler wrote for it.
fn check_entries(file: &Path, recs: &[Value], ids: &[String], parts: &[PathBuf], pre: &str) {
    let device: Vec<usize> = (0..ids.len())
        .filter(|&i| !ids[i].starts_with("host-"))
        .collect();
    assert_eq!(recs.len(), device.len());
    for (r, &i) in recs.iter().zip(&device) {
        let path = field(r, "path");
        assert_eq!(path, format!("{pre}compressed/inflated/{}", ids[i]));
        assert_eq!(
            extract(file, path),
            std::fs::read(&parts[i]).expect("the entry")
        );
    }
}

/// A gfx90a code object clang-22 builds from the tiny kernel.
fn code_object(dir: &Path) -> Option<PathBuf> {
    code_object_with(dir, &[])
}

/// The same, with more clang-22 options.
fn code_object_with(dir: &Path, extra: &[&str]) -> Option<PathBuf> {
    let (_, dev) = hip_build(dir, extra)?;
    let co = dir.join("gfx90a.co");
    let st = Proc::new("clang-offload-bundler-22")
        .args(["--unbundle", "--type=o"])
        .arg(format!("--input={}", dev.display()))
        .arg("--targets=hipv4-amdgcn-amd-amdhsa--gfx90a")
        .arg(format!("--output={}", co.display()))
        .status()
        .ok()?;
    st.success().then_some(co)
}

/// (key, scalar) of every leaf under `v`, in order; array items as `-`.
fn leaves(v: &Value, out: &mut Vec<(String, String)>) {
    match v["children"].as_array() {
        Some(c) if !c.is_empty() => c.iter().for_each(|c| leaves(c, out)),
        _ => {
            let name = field(v, "name");
            // Map and array headers and keys: not values.
            if fwview::model::GAP_NAMES.contains(&name) {
                return;
            }
            let key = if name.starts_with('[') { "-" } else { name };
            let val = match &v["raw"] {
                Value::Number(n) => n.to_string(),
                _ => field(v, "value").trim_matches('"').to_string(),
            };
            out.push((key.to_string(), val));
        }
    }
}

/// The same from llvm-readelf-22's YAML of the metadata note.
fn yaml_leaves(yaml: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut on = false;
    for l in yaml.lines() {
        let t = l.trim();
        if t == "---" {
            on = true;
            continue;
        }
        if t == "..." {
            break;
        }
        if !on {
            continue;
        }
        let mut t = t;
        let mut dash = false;
        while let Some(r) = t.strip_prefix("- ") {
            t = r.trim_start();
            dash = true;
        }
        match t.split_once(':') {
            Some((k, v)) if !v.trim().is_empty() => out.push((
                k.trim().to_string(),
                v.trim().trim_matches('\'').to_string(),
            )),
            Some(_) => {}
            None if dash => out.push(("-".to_string(), t.trim_matches('\'').to_string())),
            None => {}
        }
    }
    out
}

#[test]
fn amdgpu_metadata_equals_llvm_readelf() {
    need!("clang-22", "clang-offload-bundler-22", "llvm-readelf-22");
    hip_fixture!(tmp, co = code_object);
    let out = Proc::new("llvm-readelf-22")
        .arg("--notes")
        .arg(&co)
        .output()
        .expect("llvm-readelf-22 runs");
    let want = yaml_leaves(&String::from_utf8_lossy(&out.stdout));
    assert!(want.len() > 50, "{want:?}");
    let (_, json) = fwview(&["--json".as_ref(), co.as_os_str()]);
    let j: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(j["diagnostics"].as_array().map(Vec::len), Some(0));
    let meta = common::json::find_deep(&j["root"], "metadata").expect("the metadata node");
    let mut got = Vec::new();
    leaves(meta, &mut got);
    assert_eq!(got, want);
    // Every key and value has bytes inside the note.
    let (o, s) = (meta["offset"].as_u64(), meta["size"].as_u64());
    assert!(o.is_some() && s > Some(0));
    // The kernel's name and its descriptor symbol are there.
    assert!(got
        .iter()
        .any(|(k, v)| k == ".symbol" && v.ends_with(".kd")));
}

/// `EI_ABIVERSION` of code objects of versions 4, 5 and 6: the number
/// llvm-readelf-22 -h reads, named as AMDGPUUsage lists the HSA ABI
/// versions (`ELFABIVERSION_AMDGPU_HSA_V4` is 2, V5 3, V6 4).
#[test]
fn amdgpu_abi_version_names_the_code_object_version() {
    need!("clang-22", "clang-offload-bundler-22", "llvm-readelf-22");
    for v in [4u64, 5, 6] {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        let opt = format!("-mcode-object-version={v}");
        let Some(co) = code_object_with(tmp.path(), &[&opt]) else {
            eprintln!("skipped: clang-22 cannot build HIP here");
            return;
        };
        let out = Proc::new("llvm-readelf-22")
            .arg("-h")
            .arg(&co)
            .output()
            .expect("llvm-readelf-22 runs");
        let s = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = |k: &str| {
            s.lines()
                .find_map(|l| l.trim().strip_prefix(k))
                .map(|r| r.trim().to_string())
                .unwrap_or_default()
        };
        assert_eq!(line("OS/ABI:"), "AMDGPU - HSA");
        let abi: u64 = line("ABI Version:").parse().expect("a number");
        assert_eq!(abi + 2, v, "{s}");
        let bytes = std::fs::read(&co).expect("the code object");
        let mut t = fwview::formats::build_from_bytes(bytes);
        let id = t
            .find_path("header/e_ident/EI_ABIVERSION")
            .expect("EI_ABIVERSION");
        assert_eq!(
            t.value_text(id).as_deref(),
            Some(format!("{abi} (code object v{v})").as_str())
        );
    }
}

#[test]
fn msgpack_hostile_documents_end_in_diagnostics() {
    // A map announcing 2^32-1 entries in a few bytes, an array nested
    // 100 deep, a string longer than what is left: each a diagnostic,
    // quickly.
    let cases: Vec<Vec<u8>> = vec![
        vec![0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, b'a', 0x01],
        std::iter::repeat_n(0x91u8, 100).chain([0x01]).collect(),
        vec![0xdb, 0xff, 0xff, 0xff, 0x00, b'x'],
        vec![0x82, 0xa1, b'a'],
    ];
    for c in cases {
        let mut tree = fwview::model::Tree::build(
            std::sync::Arc::new(fwview::model::Source::from_vec(c.clone())),
            "doc",
            |b, parent, at: fwview::model::Span| {
                fwview::formats::msgpack::parse(b, parent, at);
                Some(fwview::model::Format::MsgPack)
            },
        );
        tree.expand_all();
        assert!(!tree.diagnostics().is_empty() || c.len() == 101, "{c:02x?}");
    }
}

/// Every `.amdhsa_` directive llvm-objdump-22 prints for the kernel
/// descriptors of code object `co`, and every field it prints as a comment
/// (`; SHARED_VGPR_COUNT 0`), equals the field fwview decodes: (the JSON,
/// the last kernel's node, how many were compared).
fn descriptor_matches_objdump(co: &Path) -> (Value, Value, usize) {
    let out = Proc::new("llvm-objdump-22")
        .args(["-d", "--section=.rodata"])
        .arg(co)
        .output()
        .expect("llvm-objdump-22 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (_, json) = fwview(&["--json".as_ref(), co.as_os_str()]);
    let j: Value = serde_json::from_str(&json).expect("JSON");
    let mut kernel: Option<Value> = None;
    let mut checked = 0;
    for l in text.lines() {
        let t = l.trim();
        if let Some(k) = t.strip_prefix(".amdhsa_kernel ") {
            kernel =
                common::json::find_deep(&j["root"], &format!("kernel descriptor {k}")).cloned();
            assert!(kernel.is_some(), "no descriptor for {k}");
            continue;
        }
        let pair = t
            .strip_prefix(".amdhsa_")
            .map(|r| r.to_string())
            .or_else(|| t.strip_prefix("; ").map(str::to_ascii_lowercase));
        let Some((d, v)) = pair.as_deref().and_then(|r| r.split_once(' ')) else {
            continue;
        };
        // Not stored in the descriptor: the assembler's reservations.
        if d.starts_with("reserve_") {
            continue;
        }
        let Some(k) = kernel.as_ref() else {
            continue;
        };
        // Comments name fields without a directive; other comments are
        // not fields.
        let Some(n) = common::json::find_deep(k, d) else {
            assert!(t.starts_with(';'), "no field {d}");
            continue;
        };
        assert_eq!(n["raw"].to_string(), v, "{d} in {}", co.display());
        checked += 1;
    }
    (j, kernel.expect("a kernel"), checked)
}

/// The descriptors of GFX10, GFX11 and GFX12 code objects, whose
/// `COMPUTE_PGM_RSRC3` differs from GFX9's, against llvm-objdump-22.
#[test]
fn kernel_descriptors_of_gfx10_to_12_equal_llvm_objdump() {
    need!("clang-22", "llvm-objdump-22");
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let src = tmp.path().join("k.hip");
    std::fs::write(&src, TINY_HIP).expect("write");
    for arch in ["gfx1030", "gfx1100", "gfx1200"] {
        let co = tmp.path().join(format!("{arch}.co"));
        let st = Proc::new("clang-22")
            .args(["-x", "hip", &format!("--offload-arch={arch}")])
            .args(["-nogpulib", "-nogpuinc", "-c", "--offload-device-only"])
            .arg("--no-gpu-bundle-output")
            .arg(&src)
            .arg("-o")
            .arg(&co)
            .status()
            .expect("clang-22 runs");
        assert!(st.success(), "{arch}");
        let (_, k, checked) = descriptor_matches_objdump(&co);
        assert!(checked >= 30, "{arch}: {checked} directives");
        let r3 = common::json::find_deep(&k, "compute_pgm_rsrc3").expect("rsrc3");
        assert!(
            !common::json::kids(r3).is_empty(),
            "{arch}: rsrc3 not decoded"
        );
    }
}

#[test]
fn kernel_descriptors_equal_llvm_objdump_directives() {
    need!("clang-22", "clang-offload-bundler-22", "llvm-objdump-22");
    hip_fixture!(tmp, co = code_object);
    let (j, kernel, checked) = descriptor_matches_objdump(&co);
    assert!(checked >= 30, "{checked} directives");
    // The metadata's register counts fit in what the descriptor allocates.
    let k = &kernel;
    let meta = common::json::find_deep(&j["root"], "metadata").expect("metadata");
    let count = |name: &str| common::json::find_deep(meta, name).and_then(|n| n["raw"].as_u64());
    let alloc = |name: &str| common::json::find_deep(k, name).and_then(|n| n["raw"].as_u64());
    let (v, s) = (count(".vgpr_count"), count(".sgpr_count"));
    assert!(v.is_some() && alloc("next_free_vgpr") >= v);
    assert!(s.is_some() && alloc("next_free_sgpr") >= s);
}

#[test]
fn hip_wrapper_points_at_the_bundle() {
    need!("clang-22");
    hip_fixture!(tmp, (obj, _) = hip_build, &[]);
    let bytes = std::fs::read(&obj).expect("the object");
    // Where .hip_fatbin is, from the object crate.
    use object::{Object, ObjectSection};
    let f = object::File::parse(&*bytes).expect("an object");
    let fatbin = f.section_by_name(".hip_fatbin").expect(".hip_fatbin");
    let (at, size) = fatbin.file_range().expect("in the file");
    let seg = f
        .section_by_name(".hipFatBinSegment")
        .expect(".hipFatBinSegment");
    let data = seg.data().expect("its bytes");
    assert_eq!(&data[..4], b"FPIH");
    let mut tree = fwview::formats::build_from_bytes(bytes.clone());
    let id = tree
        .find_path("sections/[8] .hipFatBinSegment/wrapper/binary")
        .expect("the wrapper's pointer");
    let link = tree.link(id).expect("a link");
    assert_eq!((link.offset, link.len), (at, size));
    let m = tree
        .find_path("sections/[8] .hipFatBinSegment/wrapper/magic")
        .expect("magic");
    assert_eq!(tree.value_text(m).as_deref(), Some("0x48495046 (HIPF)"));
    // Linked into a shared library: the word is 0 and a dynamic
    // relocation writes the address.
    if !common::tool("ld.lld-22") {
        return;
    }
    let so = tmp.path().join("k.so");
    let st = Proc::new("ld.lld-22")
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&so)
        .status()
        .expect("ld.lld-22 runs");
    assert!(st.success());
    let bytes = std::fs::read(&so).expect("the library");
    let f = object::File::parse(&*bytes).expect("an object");
    let (at, size) = f
        .section_by_name(".hip_fatbin")
        .and_then(|s| s.file_range())
        .expect(".hip_fatbin");
    let idx = f
        .section_by_name(".hipFatBinSegment")
        .expect(".hipFatBinSegment")
        .index()
        .0;
    let mut tree = fwview::formats::build_from_bytes(bytes.clone());
    let id = tree
        .find_path(&format!(
            "sections/[{idx}] .hipFatBinSegment/wrapper/binary"
        ))
        .expect("the wrapper's pointer");
    let link = tree.link(id).expect("a link");
    assert_eq!((link.offset, link.len), (at, size));
}

#[test]
fn openmp_and_rdc_objects_targets_equal_the_llvm_tools() {
    need!("clang-22", "llvm-objdump-22", "clang-offload-bundler-22");
    let tmp = tempfile::tempdir().expect("a temporary directory");
    // OpenMP offload (the new driver): an offload binary an image.
    let c = tmp.path().join("o.c");
    std::fs::write(
        &c,
        "int main(){int x=0;\n#pragma omp target map(tofrom:x)\n x=1; return x;}\n",
    )
    .expect("write");
    let o = tmp.path().join("o.o");
    let st = Proc::new("clang-22")
        .args([
            "-fopenmp",
            "--offload-arch=gfx90a,gfx942",
            "-nogpulib",
            "-c",
        ])
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .status()
        .expect("clang-22 runs");
    if !st.success() {
        eprintln!("skipped: clang-22 cannot build OpenMP offload here");
        return;
    }
    let (code, recs) = targets_json(&o);
    assert_eq!(code, 0);
    let got: Vec<&str> = recs.iter().map(|r| field(r, "target")).collect();
    assert_eq!(got, objdump_arches(&o));
    assert!(recs.iter().all(|r| field(r, "kind") == "openmp"));
    // -fgpu-rdc: the bundle written as an object, a section a target.
    let rdc_dir = tmp.path().join("rdc");
    std::fs::create_dir(&rdc_dir).expect("mkdir");
    let Some((rdc, _)) = hip_build(&rdc_dir, &["-fgpu-rdc"]) else {
        return;
    };
    let ids = bundler_list(&rdc);
    let device: Vec<&String> = ids.iter().filter(|i| !i.starts_with("host-")).collect();
    assert_eq!(device.len(), 2, "{ids:?}");
    let (code, recs) = targets_json(&rdc);
    assert_eq!(code, 0);
    assert_eq!(recs.len(), device.len());
    for r in &recs {
        let id = device
            .iter()
            .find(|id| field(r, "path").ends_with(id.as_str()))
            .expect("a listed id");
        assert!(id.ends_with(field(r, "target")), "{id}");
        assert_eq!(field(r, "format"), "bitcode");
        let want = tmp.path().join("want.bc");
        let st = Proc::new("clang-offload-bundler-22")
            .args(["--unbundle", "--type=o"])
            .arg(format!("--input={}", rdc.display()))
            .arg(format!("--targets={id}"))
            .arg(format!("--output={}", want.display()))
            .status()
            .expect("bundler runs");
        assert!(st.success());
        assert!(extract(&rdc, field(r, "path")) == std::fs::read(&want).expect("the entry"));
    }
}

/// The object clang-22 makes of the C source `src` with `args` (and
/// `-c`), or None (said) where it cannot build OpenMP offload here.
fn omp_object(src: &str, args: &[&str]) -> Option<Vec<u8>> {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let c = tmp.path().join("o.c");
    std::fs::write(&c, src).expect("write");
    let o = tmp.path().join("o.o");
    let st = Proc::new("clang-22")
        .args(args)
        .arg("-c")
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .status()
        .expect("clang-22 runs");
    if !st.success() {
        eprintln!("skipped: clang-22 cannot build OpenMP offload with {args:?} here");
        return None;
    }
    Some(std::fs::read(&o).expect("the object"))
}

#[test]
fn offload_entries_resolve_as_the_object_crate_reads_the_relocations() {
    need!("clang-22");
    use object::{Object, ObjectSection, ObjectSymbol, RelocationTarget};
    let Some(bytes) = omp_object(
        "int g;\nint main(){int x=0;\n#pragma omp target map(tofrom:x)\n x=1;\n#pragma omp target map(tofrom:x)\n x=2; return x;}\n",
        &["-fopenmp", "--offload-arch=gfx90a", "-nogpulib"],
    ) else {
        return;
    };
    let f = object::File::parse(&*bytes).expect("an object");
    let sec = f
        .section_by_name("llvm_offload_entries")
        .expect("llvm_offload_entries");
    // Per entry (56 bytes): the address symbol and the name's string.
    let mut want: Vec<(String, String)> = Vec::new();
    let mut addr = std::collections::BTreeMap::new();
    let mut name = std::collections::BTreeMap::new();
    for (off, r) in sec.relocations() {
        let RelocationTarget::Symbol(si) = r.target() else {
            continue;
        };
        let sym = f.symbol_by_index(si).expect("a symbol");
        match off % 56 {
            16 => {
                addr.insert(off / 56, sym.name().unwrap_or("").to_string());
            }
            24 => {
                let s = f
                    .section_by_index(sym.section_index().expect("a section"))
                    .expect("the section");
                let d = s.data().expect("bytes");
                let at = (sym.address() as i64 + r.addend()) as usize;
                let end = d[at..].iter().position(|&c| c == 0).unwrap_or(0);
                name.insert(
                    off / 56,
                    String::from_utf8_lossy(&d[at..at + end]).into_owned(),
                );
            }
            _ => {}
        }
    }
    for (k, n) in &name {
        want.push((n.clone(), addr.get(k).cloned().unwrap_or_default()));
    }
    assert_eq!(want.len() as u64, sec.size() / 56);
    assert!(want.len() >= 2);
    let mut tree = fwview::formats::build_from_bytes(bytes.clone());
    tree.expand_all();
    let idx = sec.index().0;
    for (i, (n, a)) in want.iter().enumerate() {
        let base = format!("sections/[{idx}] llvm_offload_entries/[{i}]");
        let id = tree.find_path(&format!("{base}/name")).expect("name");
        assert_eq!(tree.value_text(id), Some(format!("\"{n}\"")));
        let id = tree.find_path(&format!("{base}/address")).expect("address");
        assert_eq!(tree.value_text(id), Some(format!("0 ({a})")));
        let id = tree.find_path(&format!("{base}/kind")).expect("kind");
        assert_eq!(tree.value_text(id).as_deref(), Some("1 (OpenMP)"));
    }
}

/// A 32-bit host object (i686, offloading to 32-bit NVPTX as LTO
/// bitcode, which needs no CUDA): its entries are 44 bytes, each an
/// 8-byte aligned global of its own, and its relocations are REL. Each
/// entry is where clang's `.offloading.entry.NAME` symbol says, of the
/// symbol's size, with that name.
#[test]
fn offload_entries_of_a_32_bit_object_are_where_their_symbols_say() {
    need!("clang-22");
    use object::{Object, ObjectSection, ObjectSymbol};
    let Some(bytes) = omp_object(
        "#pragma omp declare target\nint g = 3;\n#pragma omp end declare target\nint main(){int x=0;\n#pragma omp target map(tofrom:x)\n x=g;\n#pragma omp target map(tofrom:x)\n x=2; return x;}\n",
        &[
            "-m32",
            "-fopenmp",
            "-fopenmp-targets=nvptx-nvidia-cuda",
            "-Xopenmp-target",
            "-march=sm_52",
            "-foffload-lto",
            "-nogpulib",
        ],
    ) else {
        return;
    };
    let f = object::File::parse(&*bytes).expect("an object");
    let sec = f
        .section_by_name("llvm_offload_entries")
        .expect("llvm_offload_entries");
    let mut want: Vec<(u64, u64, String)> = f
        .symbols()
        .filter(|s| s.section_index() == Some(sec.index()))
        .filter_map(|s| {
            let n = s.name().ok()?.strip_prefix(".offloading.entry.")?;
            Some((s.address(), s.size(), n.to_string()))
        })
        .collect();
    want.sort();
    assert!(want.len() >= 3, "{want:?}");
    let mut tree = fwview::formats::build_from_bytes(bytes.clone());
    tree.expand_all();
    let idx = sec.index().0;
    let (so, _) = sec.file_range().expect("in the file");
    let sect = tree
        .find_path(&format!("sections/[{idx}] llvm_offload_entries"))
        .expect("the section");
    assert_eq!(
        tree.value_text(sect),
        Some(format!("{} offload entries", want.len()))
    );
    for (i, (at, size, n)) in want.iter().enumerate() {
        let base = format!("sections/[{idx}] llvm_offload_entries/[{i}]");
        let e = tree.find_path(&base).expect("the entry");
        assert_eq!(
            tree.node(e).map(|n| (n.offset, n.size)),
            Some((so + at, *size))
        );
        let id = tree.find_path(&format!("{base}/name")).expect("name");
        assert_eq!(tree.value_text(id), Some(format!("\"{n}\"")));
    }
    assert!(tree.diagnostics().is_empty(), "{:?}", tree.diagnostics());
}

/// A plain bundle with the given entries (id, code object).
fn make_bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut head = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    head.extend((entries.len() as u64).to_le_bytes());
    let table: usize = entries.iter().map(|(id, _)| 24 + id.len()).sum();
    let mut at = (head.len() + table) as u64;
    let mut body: Vec<u8> = Vec::new();
    for (id, code) in entries {
        head.extend(at.to_le_bytes());
        head.extend((code.len() as u64).to_le_bytes());
        head.extend((id.len() as u64).to_le_bytes());
        head.extend(id.as_bytes());
        body.extend_from_slice(code);
        at += code.len() as u64;
    }
    head.extend(body);
    head
}

#[test]
fn hostile_bundles_end_in_diagnostics() {
    let one = make_bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx90a", b"xyz")]);
    // A bomb: 64 MiB of zeros in a CCOB v3 that announces 16 bytes.
    let zeros = vec![0u8; 64 << 20];
    let z = zstd::encode_all(&zeros[..], 19).expect("zstd");
    let mut bomb = b"CCOB".to_vec();
    bomb.extend(3u16.to_le_bytes());
    bomb.extend(1u16.to_le_bytes());
    bomb.extend((32 + z.len() as u64).to_le_bytes());
    bomb.extend(16u64.to_le_bytes());
    bomb.extend(0u64.to_le_bytes());
    bomb.extend(&z);
    // A CCOB whose total size lies (past the end), then a second one.
    let mut liar = bomb.clone();
    liar[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    // An entry count of 2^64-1, a code object past the end.
    let mut count = one.clone();
    count[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut past = one.clone();
    past[32..40].copy_from_slice(&(1u64 << 40).to_le_bytes());
    // A thousand bundles back to back.
    let many: Vec<u8> = std::iter::repeat_n(one.clone(), 1000).flatten().collect();
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("bomb", bomb.clone(), true),
        ("liar", [liar, bomb].concat(), true),
        ("count", count, true),
        ("past", past, true),
        ("many", many, false),
        ("truncated", one[..30].to_vec(), true),
    ];
    for (name, bytes, diag) in cases {
        let t0 = std::time::Instant::now();
        let mut tree = fwview::formats::build_from_bytes(bytes);
        let mut out = Vec::new();
        fwview::export::json(&mut tree, "x", &mut out).expect("JSON");
        assert!(
            t0.elapsed().as_secs_f64() < 2.0,
            "{name}: {:?}",
            t0.elapsed()
        );
        assert_eq!(!tree.diagnostics().is_empty(), diag, "{name}");
        // What was inflated stayed within what the header announced.
        for sp in 1..tree.spaces().len() {
            let n = tree.space_bytes(fwview::model::SpaceId::at(sp)).len();
            assert!(n <= 1 << 20, "{name}: an inflated space of {n} bytes");
        }
    }
}

/// The ids of a bundle's device entries, each with its bytes as
/// clang-offload-bundler-22 writes them with `--unbundle` (`None` where it
/// will not: version 22 refuses some target ids of older bundles that its
/// `--list` shows, "invalid bundle id read from the bundle").
fn unbundle(file: &Path, dir: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    bundler_list(file)
        .into_iter()
        .filter(|id| !id.starts_with("host-"))
        .map(|id| {
            let out = dir.join(id.replace(':', "_"));
            let st = Proc::new("clang-offload-bundler-22")
                .args(["--unbundle", "--type=o"])
                .arg(format!("--input={}", file.display()))
                .arg(format!("--targets={id}"))
                .arg(format!("--output={}", out.display()))
                .stderr(std::process::Stdio::null())
                .status()
                .expect("clang-offload-bundler-22 runs");
            let bytes = st
                .success()
                .then(|| std::fs::read(&out).expect("the entry"));
            (id, bytes)
        })
        .collect()
}

/// A real bundle from a Debian ROCm library (the first of librocsparse's
/// `.hip_fatbin`): every device entry the bundler lists is one target
/// record, named for its target id, and its bytes are what the bundler
/// unbundles.
#[test]
fn a_real_rocm_bundle_equals_the_bundler() {
    need!("clang-offload-bundler-22");
    let f = common::asset("hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb");
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let entries = unbundle(&f, tmp.path());
    let (code, recs) = targets_json(&f);
    assert_eq!(code, 0);
    assert!(entries.len() >= 2, "{} entries", entries.len());
    assert_eq!(recs.len(), entries.len());
    let mut compared = 0;
    for (id, bytes) in &entries {
        let r = recs
            .iter()
            .find(|r| field(r, "path") == id)
            .unwrap_or_else(|| panic!("no target record for {id}"));
        assert_eq!(Some(field(r, "target")), id.rsplit("--").next(), "{id}");
        assert_eq!(field(r, "kind"), "hipv4");
        if let Some(bytes) = bytes {
            assert_eq!(&extract(&f, id), bytes, "{id}");
            compared += 1;
        }
    }
    assert!(compared >= 1, "the bundler unbundled no entry");
}

/// End to end on a whole real library (1.3 GB, fetched by
/// scripts/rocm-library.sh from Debian's librocsparse0 where apt-get and the
/// network are there): every bundle in `.hip_fatbin`, cut out and listed by
/// clang-offload-bundler-22, gives exactly the device images `--targets`
/// reports.
#[test]
fn a_whole_rocm_library_lists_what_the_bundler_lists() {
    need!("clang-offload-bundler-22");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let got = Proc::new("sh")
        .arg(root.join("scripts/rocm-library.sh"))
        .output()
        .ok()
        .filter(|o| o.status.success());
    let Some(got) = got else {
        eprintln!("skipped: librocsparse0 could not be fetched (no apt-get or no network)");
        return;
    };
    let lib = root.join(String::from_utf8_lossy(&got.stdout).trim());
    let bytes = std::fs::read(&lib).expect("the library");
    let (lo, hi) = {
        use object::{Object, ObjectSection};
        let o = object::File::parse(&*bytes).expect("an ELF");
        let s = o.section_by_name(".hip_fatbin").expect(".hip_fatbin");
        let (a, l) = s.file_range().expect("in the file");
        (a as usize, (a + l) as usize)
    };
    let magic = b"__CLANG_OFFLOAD_BUNDLE__";
    let mut starts: Vec<usize> = bytes[lo..hi]
        .windows(magic.len())
        .enumerate()
        .filter(|(_, w)| w == magic)
        .map(|(i, _)| lo + i)
        .collect();
    assert!(starts.len() > 100, "{} bundles", starts.len());
    starts.push(hi);
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut want = Vec::new();
    for (k, w) in starts.windows(2).enumerate() {
        let cut = tmp.path().join("bundle");
        std::fs::write(&cut, &bytes[w[0]..w[1]]).expect("write");
        for id in bundler_list(&cut) {
            if !id.starts_with("host-") {
                want.push(format!("bundle [{k}]/{id}"));
            }
        }
    }
    let (code, recs) = targets_json(&lib);
    assert_eq!(code, 0);
    let have: Vec<String> = recs
        .iter()
        .map(|r| {
            let p = field(r, "path");
            p.strip_prefix("sections/[16] .hip_fatbin/")
                .unwrap_or(p)
                .to_string()
        })
        .collect();
    // The bundler lists a bundle's entries in an order of its own.
    let (mut have, mut want) = (have, want);
    have.sort();
    want.sort();
    let missing: Vec<_> = want.iter().filter(|w| !have.contains(w)).take(5).collect();
    let extra: Vec<_> = have.iter().filter(|h| !want.contains(h)).take(5).collect();
    assert!(
        have == want,
        "{} images, the bundler {}; missing {missing:?}, extra {extra:?}",
        have.len(),
        want.len()
    );
}

/// From the object crate: where `.hip_fatbin` is in the file, its index,
/// and the index of `.hipFatBinSegment`.
fn hip_sections(bytes: &[u8]) -> ((u64, u64), usize, usize) {
    use object::{Object, ObjectSection};
    let f = object::File::parse(bytes).expect("an object");
    let index = |name: &str| f.section_by_name(name).expect(name).index().0;
    let range = f
        .section_by_name(".hip_fatbin")
        .and_then(|s| s.file_range())
        .expect(".hip_fatbin in the file");
    (range, index(".hip_fatbin"), index(".hipFatBinSegment"))
}

/// Checks that every link's `path` in `j` (the --json of `bytes`) names a
/// node of the file that starts at the link's offset; returns how many.
fn link_paths_start_at_their_offsets(bytes: &[u8], j: &Value) -> usize {
    let mut t = fwview::formats::build_from_bytes(bytes.to_vec());
    let mut stack = vec![&j["root"]];
    let mut checked = 0;
    while let Some(n) = stack.pop() {
        if let Some(p) = n["link"]["path"].as_str() {
            let id = t.find_path(p).unwrap_or_else(|| panic!("no node at {p}"));
            let node = t.node(id).expect("the node");
            let offset = n["link"]["offset"].as_u64().unwrap();
            assert_eq!(node.offset, offset, "{p}");
            assert_eq!(node.space, fwview::model::FILE, "{p}");
            // As the model finds it on its own.
            let size = n["link"]["size"].as_u64().unwrap();
            let l = fwview::model::Span::file(offset, size);
            let to = t.link_target(l).expect("a target");
            assert_eq!(t.short_path(to), p);
            checked += 1;
        }
        stack.extend(common::json::all_kids(n));
    }
    checked
}

/// The `.hipFatBinSegment` wrapper's pointer, a bare number, leads to the
/// `.hip_fatbin` section: in `--json` its link's `path` is that section's
/// address and `--tree` ends its line with it (the section's index, name
/// and range read by the object crate). A symbol's `st_name`, whose value
/// is the name it points at, keeps its link (space, offset in the string
/// table, as the object crate reads the name there) without a path. Every
/// link's path names a node that starts at the link's offset.
#[test]
fn links_name_the_node_they_lead_to_where_the_value_does_not() {
    need!("clang-22");
    hip_fixture!(tmp, (obj, _) = hip_build, &[]);
    let bytes = std::fs::read(&obj).expect("the object");
    let ((at, size), fatbin, seg) = hip_sections(&bytes);
    let want = format!("sections/[{fatbin}] .hip_fatbin");
    let j = common::json::json_of(&obj);
    let wrapper = common::json::find_deep(&j["root"], &format!("[{seg}] .hipFatBinSegment"))
        .and_then(|s| common::json::find_deep(s, "binary"))
        .expect("the wrapper's pointer");
    let link = &wrapper["link"];
    assert_eq!(
        (link["offset"].as_u64(), link["size"].as_u64()),
        (Some(at), Some(size))
    );
    assert_eq!(link["path"].as_str(), Some(want.as_str()), "{link}");
    let (code, tree) = fwview(&[std::ffi::OsStr::new("--tree"), obj.as_os_str()]);
    assert_eq!(code, 0);
    let line = tree
        .lines()
        .skip_while(|l| !l.contains(&format!("[{seg}] .hipFatBinSegment ")))
        .find(|l| l.trim_start().starts_with("binary "))
        .expect("the pointer's line");
    assert!(
        line.ends_with(&format!(" -> [{at:#x}+{size:#x}] {want}")),
        "{line}"
    );
    // Symbols' names: linked into the string table, no path.
    use object::{Object, ObjectSection, ObjectSymbol};
    let f = object::File::parse(&*bytes).expect("an object");
    let strings = f
        .section_by_name(".strtab")
        .and_then(|s| s.file_range())
        .expect(".strtab");
    let mut names = 0;
    for s in f.symbols() {
        let Ok(name) = s.name() else { continue };
        if name.is_empty() {
            continue;
        }
        let Some(entry) = common::json::find_deep(&j["root"], &format!("[{}] {name}", s.index().0))
        else {
            continue;
        };
        let st_name = common::json::find_deep(entry, "st_name").expect("st_name");
        let l = &st_name["link"];
        let from = l["offset"].as_u64().expect("st_name links");
        assert_eq!(l["space"].as_u64(), Some(0), "{st_name}");
        assert!(l.get("path").is_none(), "{st_name}");
        let (s0, len) = strings;
        assert!(
            s0 <= from && from + name.len() as u64 <= s0 + len,
            "{st_name}"
        );
        let got = &bytes[from as usize..from as usize + name.len()];
        assert_eq!(got, name.as_bytes(), "{st_name}");
        names += 1;
    }
    assert!(names > 5, "{names} symbols checked");
    let checked = link_paths_start_at_their_offsets(&bytes, &j);
    assert!(checked > 20, "{checked} links checked");
}

/// An offload binary's pointers (in `.llvm.offloading` of an OpenMP
/// object clang-22 builds): its entry offset and its image offset lead to
/// the entry and the image, the `path` of each naming a node of that
/// section which starts where the header (read here from the section's
/// bytes, as the object crate finds them) says; an offload entry's name,
/// a string linked to its bytes, has none.
#[test]
fn offload_binary_pointers_name_the_entry_and_the_image() {
    need!("clang-22");
    use object::{Object, ObjectSection};
    let Some(bytes) = omp_object(
        "int main(){int x=0;\n#pragma omp target map(tofrom:x)\n x=1; return x;}\n",
        &["-fopenmp", "--offload-arch=gfx90a", "-nogpulib"],
    ) else {
        return;
    };
    let f = object::File::parse(&*bytes).expect("an object");
    let sec = f
        .section_by_name(".llvm.offloading")
        .expect(".llvm.offloading");
    let (base, _) = sec.file_range().expect("in the file");
    let d = sec.data().expect("its bytes");
    let word = |at: usize| u64::from_le_bytes(d[at..at + 8].try_into().unwrap());
    // The header: magic, version, size, entry offset, entry size; the
    // entry: kinds, flags, string offset, string count, image offset.
    assert_eq!(&d[..4], b"\x10\xff\x10\xad");
    let entry = word(16);
    let image = word(entry as usize + 24);
    let prefix = format!("sections/[{}] .llvm.offloading/", sec.index().0);
    let j = common::json::json_of_bytes(bytes.clone());
    let link_of = |name: &str| -> Value {
        let n = common::json::find_deep(&j["root"], name).unwrap_or_else(|| panic!("{name}"));
        n["link"].clone()
    };
    let mut t = fwview::formats::build_from_bytes(bytes.clone());
    for (field, at) in [("entry offset", entry), ("image offset", image)] {
        let l = link_of(field);
        assert_eq!(l["offset"].as_u64(), Some(base + at), "{field}: {l}");
        let p = l["path"].as_str().unwrap_or_else(|| panic!("{field}: {l}"));
        assert!(p.starts_with(&prefix), "{field}: {p}");
        let id = t.find_path(p).expect("the path's node");
        assert_eq!(t.node(id).map(|n| n.offset), Some(base + at), "{p}");
    }
    // The offload entry's name: a string, linked to its bytes, no path.
    let entries = f
        .section_by_name("llvm_offload_entries")
        .expect("llvm_offload_entries");
    let name = common::json::find_deep(
        &j["root"],
        &format!("[{}] llvm_offload_entries", entries.index().0),
    )
    .and_then(|e| common::json::find_deep(e, "name"))
    .expect("an entry's name");
    let l = &name["link"];
    let at = l["offset"].as_u64().expect("the name links") as usize;
    let text = name["value"].as_str().expect("a string").trim_matches('"');
    assert_eq!(&bytes[at..at + text.len()], text.as_bytes(), "{name}");
    assert!(l.get("path").is_none(), "{name}");
    assert!(link_paths_start_at_their_offsets(&bytes, &j) >= 2);
}
