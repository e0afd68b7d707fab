//! GPU device code: `--targets` and clang offload bundles, compared with
//! llvm-objdump-22 --offloading and clang-offload-bundler-22 on the
//! offload samples and on objects clang-22 builds here.

use std::path::{Path, PathBuf};
use std::process::Command as Proc;

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::have;

macro_rules! need {
    ($($tool:expr),+) => {
        $(
            if !have($tool) {
                eprintln!("skipped: {} is not installed", $tool);
                return;
            }
        )+
    };
}

fn asset(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// `fwview ARGS`: (exit code, standard output).
fn fwview_bytes(args: &[&std::ffi::OsStr]) -> (i32, Vec<u8>) {
    let out = Command::cargo_bin("fwview")
        .expect("the fwview binary")
        .args(args)
        .output()
        .expect("fwview runs");
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
    std::fs::write(&src, TINY_HIP).ok()?;
    let obj = dir.join("k.o");
    let dev = dir.join("k.hipfb");
    for (out, more) in [(&obj, &[][..]), (&dev, &["--offload-device-only"][..])] {
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
        let f = asset(rel);
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

#[test]
fn targets_of_zebins_and_none_in_xclbins() {
    let dg2 = asset("zebin/generated_locally/ocloc22.43__add_XE_HPG_COREdg2.bin");
    let (code, out) = fwview(&["--targets".as_ref(), dg2.as_os_str()]);
    assert_eq!(code, 0);
    assert_eq!(out, "zebin\tdg2\t-\t\n");
    let fat = asset("zebin/generated_locally/ocloc22.43__add_fat.ar");
    let (code, recs) = targets_json(&fat);
    assert_eq!(code, 0);
    let got: Vec<&str> = recs.iter().map(|r| field(r, "target")).collect();
    assert_eq!(got, ["tigerlake_lp", "dg2", "pvc"]);
    let dir = asset("xclbin");
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("xclbin samples").flatten() {
        let (code, recs) = targets_json(&e.path());
        assert_eq!(code, 1, "{}", e.path().display());
        assert!(recs.is_empty());
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn hip_objects_targets_and_bundles_equal_the_bundler() {
    need!("clang-22", "clang-offload-bundler-22");
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let Some((obj, dev)) = hip_build(tmp.path(), &[]) else {
        eprintln!("skipped: clang-22 cannot build HIP here");
        return;
    };
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
