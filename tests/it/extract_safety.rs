//! Extraction writes the path the user gave and nothing else: names from
//! the file never become paths, an existing file is kept unless --force is
//! given, and --force does replace it.

use crate::common;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;

use common::build;

/// Runs fwview in `cwd`.
fn fwview_in(cwd: &Path, args: &[&OsStr]) -> Output {
    Command::cargo_bin("fwview")
        .unwrap()
        .current_dir(cwd)
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("fwview runs")
}

/// Every path under `dir`, relative, with each file's bytes.
fn snapshot(dir: &Path) -> BTreeSet<(PathBuf, Vec<u8>)> {
    let mut out = BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                todo.push(p);
                out.insert((rel, Vec::new()));
            } else if meta.file_type().is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert((rel, t.as_os_str().as_encoded_bytes().to_vec()));
            } else {
                out.insert((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// An archive whose member names try to be paths.
fn path_like_archive() -> Vec<u8> {
    build::ar(&[
        (b"../../escaped", b"AAAA"),
        (b"/tmp/fwview-absolute-escape", b"BBBB"),
        (b"sub/dir/file", b"CCCC"),
        (b"..", b"DDDD"),
        (b"~", b"EEEE"),
    ])
}

/// The layout of the test: `root/work/` is the current directory, the
/// input is in `root/in/`, the output goes to `root/out/`; nothing else may
/// change anywhere under `root`.
struct Layout {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    input: PathBuf,
    out: PathBuf,
}

fn layout(bytes: &[u8]) -> Layout {
    let tmp = common::scratch();
    let root = tmp.path().to_path_buf();
    let work = root.join("work/a/b");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(root.join("in")).unwrap();
    std::fs::create_dir_all(root.join("out")).unwrap();
    let input = root.join("in/archive.a");
    std::fs::write(&input, bytes).unwrap();
    Layout {
        _tmp: tmp,
        out: root.join("out"),
        root,
        work,
        input,
    }
}

#[test]
fn extraction_writes_only_the_output_path() {
    let l = layout(&path_like_archive());
    let before = snapshot(&l.root);
    // Every node the tree shows, extracted one by one.
    let j = fwview_in(&l.work, &["--json".as_ref(), l.input.as_os_str()]);
    assert!(j.status.success());
    let doc = common::contract::parse(&j.stdout).unwrap();
    // The root first: its address is `/`.
    let mut paths = vec!["/".to_string()];
    let mut stack = vec![(doc["root"].clone(), String::new())];
    while let Some((n, p)) = stack.pop() {
        for c in n["children"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let cp = if p.is_empty() {
                name.to_string()
            } else {
                format!("{p}/{name}")
            };
            paths.push(cp.clone());
            stack.push((c.clone(), cp));
        }
    }
    // And the member names as paths, whether or not the tree has them.
    for p in [
        "../../escaped",
        "/tmp/fwview-absolute-escape",
        "sub/dir/file",
        "..",
        "~",
    ] {
        paths.push(p.to_string());
    }
    let mut written = Vec::new();
    for (i, np) in paths.iter().enumerate() {
        let out = l.out.join(format!("x{i}.bin"));
        let r = fwview_in(
            &l.work,
            &[
                "--extract".as_ref(),
                np.as_ref(),
                "-o".as_ref(),
                out.as_os_str(),
                l.input.as_os_str(),
            ],
        );
        if r.status.success() {
            written.push(out);
        } else {
            assert!(!out.exists(), "a failed extraction left {}", out.display());
        }
    }
    assert!(!written.is_empty(), "the root at least extracts");
    // Nothing changed but the new files in out/.
    let after = snapshot(&l.root);
    let new: BTreeSet<PathBuf> = after
        .difference(&before)
        .map(|(p, _)| l.root.join(p))
        .collect();
    let expected: BTreeSet<PathBuf> = written.iter().cloned().collect();
    assert_eq!(new, expected, "files created besides the -o paths");
    assert!(before.is_subset(&after), "something was changed or removed");
    assert!(!Path::new("/tmp/fwview-absolute-escape").exists());
    // The root's bytes are the file.
    assert_eq!(
        std::fs::read(&written[0]).unwrap(),
        std::fs::read(&l.input).unwrap()
    );
}

#[test]
fn extracted_bytes_are_the_nodes_bytes() {
    // An XCLBIN starts with its 8-byte magic: that node, whatever else the
    // parser shows, extracts as exactly "xclbin2\0".
    let Some((_, d)) = common::samples()
        .into_iter()
        .find(|(n, _)| n.ends_with(".xclbin"))
    else {
        eprintln!("skipped: no XCLBIN sample");
        return;
    };
    let l = layout(&d);
    let j = fwview_in(&l.work, &["--json".as_ref(), l.input.as_os_str()]);
    let doc = common::contract::parse(&j.stdout).unwrap();
    // Every top-level node: its bytes are the file's bytes of its range.
    // Siblings of one name (the padding between sections) are told apart
    // by `#K`.
    let top = doc["root"]["children"].as_array().unwrap();
    for (i, c) in top.iter().enumerate() {
        let plain = c["name"].as_str().unwrap();
        let same = |k: &serde_json::Value| k["name"] == c["name"];
        let name = if top.iter().filter(|k| same(k)).count() > 1 {
            let nth = top[..i].iter().filter(|k| same(k)).count();
            format!("{plain}#{nth}")
        } else {
            plain.to_string()
        };
        let name = name.as_str();
        let off = c["offset"].as_u64().unwrap() as usize;
        let size = c["size"].as_u64().unwrap() as usize;
        let out = l.out.join(format!("{off}.bin"));
        let r = fwview_in(
            &l.work,
            &[
                "--extract".as_ref(),
                name.as_ref(),
                "-o".as_ref(),
                out.as_os_str(),
                l.input.as_os_str(),
            ],
        );
        assert!(r.status.success(), "extract {name}");
        assert_eq!(std::fs::read(&out).unwrap(), &d[off..off + size], "{name}");
        let msg = String::from_utf8_lossy(&r.stderr);
        assert!(msg.contains(&format!("wrote {size} bytes to")), "{msg}");
    }
    // -o - writes to stdout, and nothing to the disk.
    let before = snapshot(&l.root);
    let r = fwview_in(
        &l.work,
        &[
            "--extract".as_ref(),
            "/".as_ref(),
            "-o".as_ref(),
            "-".as_ref(),
            l.input.as_os_str(),
        ],
    );
    assert!(r.status.success());
    assert_eq!(r.stdout, d);
    assert!(r.stderr.is_empty());
    assert_eq!(snapshot(&l.root), before);
}

#[test]
fn an_existing_file_is_kept_without_force() {
    let l = layout(b"!<arch>\n");
    let out = l.out.join("exists.bin");
    std::fs::write(&out, b"precious").unwrap();
    let args = |force: bool| {
        let mut a: Vec<&OsStr> = vec![
            "--extract".as_ref(),
            "/".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        if force {
            a.push("--force".as_ref());
        }
        a.push(l.input.as_os_str());
        a
    };
    let r = fwview_in(&l.work, &args(false));
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("exists; pass --force to overwrite it"),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");

    // --force replaces it with the node's bytes (longer and shorter).
    let r = fwview_in(&l.work, &args(true));
    assert!(r.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), b"!<arch>\n");
    std::fs::write(&out, b"a much longer precious file than the input").unwrap();
    let r = fwview_in(&l.work, &args(true));
    assert!(r.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), b"!<arch>\n");
}

#[test]
fn symlinks_and_directories_at_the_output_path() {
    let l = layout(b"!<arch>\n");
    // A symlink to a file elsewhere: not followed without --force.
    let target = l.root.join("in/target.txt");
    std::fs::write(&target, b"keep me").unwrap();
    let link = l.out.join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    // A dangling symlink: writing through it would create a file elsewhere.
    let dangling_target = l.root.join("in/created-through-link");
    let dangling = l.out.join("dangling.bin");
    std::os::unix::fs::symlink(&dangling_target, &dangling).unwrap();
    // A directory.
    let dir = l.out.join("adir");
    std::fs::create_dir(&dir).unwrap();
    // A path whose parent does not exist.
    let orphan = l.out.join("no/such/dir/x.bin");
    for (what, o, reason) in [
        ("symlink", &link, "exists"),
        ("dangling symlink", &dangling, "exists"),
        (
            "directory",
            &dir,
            "is a directory; give the name of a file to write",
        ),
        ("missing parent", &orphan, "cannot write "),
    ] {
        let before = snapshot(&l.root);
        let r = fwview_in(
            &l.work,
            &[
                "--extract".as_ref(),
                "/".as_ref(),
                "-o".as_ref(),
                o.as_os_str(),
                l.input.as_os_str(),
            ],
        );
        assert_eq!(r.status.code(), Some(1), "{what}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.contains(reason), "{what}: {err}");
        // The message names the output, not the input.
        assert!(err.contains(&*o.to_string_lossy()), "{what}: {err}");
        assert!(!err.contains(&*l.input.to_string_lossy()), "{what}: {err}");
        assert_eq!(snapshot(&l.root), before, "{what}: something changed");
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    assert!(!dangling_target.exists());
    // --force on a directory still fails, and leaves it alone.
    let r = fwview_in(
        &l.work,
        &[
            "--extract".as_ref(),
            "/".as_ref(),
            "-o".as_ref(),
            dir.as_os_str(),
            "--force".as_ref(),
            l.input.as_os_str(),
        ],
    );
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("is a directory"), "{err}");
    assert!(dir.is_dir());
}

/// A device is written to as a shell's `>` writes to it, without --force:
/// nothing is lost.
#[test]
fn a_device_is_written_without_force() {
    let l = layout(b"!<arch>\n");
    let r = fwview_in(
        &l.work,
        &[
            "--extract".as_ref(),
            "/".as_ref(),
            "-o".as_ref(),
            "/dev/null".as_ref(),
            l.input.as_os_str(),
        ],
    );
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stderr).contains("to /dev/null"));
}
