//! Odd files each get a clear outcome, in every mode (--json, --tree,
//! --extract): the empty file, one byte, a sparse file of 4 GiB + 1, a FIFO
//! (refused without blocking), /dev/zero (refused), a directory, a socket, a
//! missing path, a symlink loop, a file without read permission. A refusal
//! is exit code 1, nothing on stdout, one line on stderr naming the path and
//! the reason, and no output file.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(30);

/// The three modes, `--extract` writing into `dir`.
fn modes(dir: &Path) -> Vec<(&'static str, Vec<std::ffi::OsString>, PathBuf)> {
    let out = dir.join("extracted.bin");
    vec![
        ("--json", vec!["--json".into()], out.clone()),
        ("--tree", vec!["--tree".into()], out.clone()),
        (
            "--extract",
            vec![
                "--extract".into(),
                "no/such/node".into(),
                "-o".into(),
                out.clone().into(),
            ],
            out,
        ),
    ]
}

/// Asserts the refusal of `path` in every mode: exit code 1, nothing on
/// stdout, one line on stderr that names the path and holds `reason`.
fn refused(path: &Path, reason: &str) {
    let dir = common::scratch();
    for (mode, args, out_file) in modes(dir.path()) {
        let mut a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_os_str()).collect();
        a.push(path.as_os_str());
        let out = common::fwview_within(&a, LIMIT);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{mode} {}: exit code; stderr: {err}",
            path.display()
        );
        assert!(
            out.stdout.is_empty(),
            "{mode} {}: stdout not empty",
            path.display()
        );
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "{mode} {}: stderr is {err:?}",
            path.display()
        );
        let want = format!("fwview: {}: ", path.display());
        assert!(
            lines[0].starts_with(&want) && lines[0].contains(reason),
            "{mode}: stderr {:?} should start with {want:?} and say {reason:?}",
            lines[0]
        );
        assert!(!out_file.exists(), "{mode} left an output file");
    }
}

/// Runs --json, --tree and a failing --extract on a file fwview can read.
/// Returns the JSON document.
fn readable(path: &Path, size: u64) -> serde_json::Value {
    let p = path.as_os_str();
    let out = common::fwview_within(&["--json".as_ref(), p], LIMIT);
    assert_eq!(out.status.code(), Some(0), "--json {}", path.display());
    assert!(out.stderr.is_empty(), "--json wrote to stderr");
    common::contract::check(&out.stdout, size).expect("the JSON contract");
    let doc = common::contract::parse(&out.stdout).unwrap();

    let out = common::fwview_within(&["--tree".as_ref(), p], LIMIT);
    assert_eq!(out.status.code(), Some(0), "--tree {}", path.display());
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().expect("a root line");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(
        first.starts_with(&format!("{name} [0x0+0x{size:x}]")),
        "root line {first:?}"
    );

    let dir = common::scratch();
    let o = dir.path().join("x.bin");
    let out = common::fwview_within(
        &[
            "--extract".as_ref(),
            "no/such/node".as_ref(),
            "-o".as_ref(),
            o.as_os_str(),
            p,
        ],
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("no node at path no/such/node"), "{err:?}");
    assert!(!o.exists());
    doc
}

#[test]
fn empty_file() {
    let dir = common::scratch();
    let p = dir.path().join("empty");
    std::fs::write(&p, b"").unwrap();
    let doc = readable(&p, 0);
    assert_eq!(doc["format"], "raw");
    assert_eq!(doc["root"]["value"], "empty file");
    // The root of an empty file extracts as an empty file.
    let o = dir.path().join("root.bin");
    let out = common::fwview_within(
        &[
            "--extract".as_ref(),
            "/".as_ref(),
            "-o".as_ref(),
            o.as_os_str(),
            p.as_os_str(),
        ],
        LIMIT,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(&o).unwrap(), b"");
}

#[test]
fn one_byte() {
    let dir = common::scratch();
    for b in [0u8, 0x7f, b'X', 0x10, b'!', 0xdd] {
        let p = dir.path().join(format!("one-{b:02x}"));
        std::fs::write(&p, [b]).unwrap();
        let doc = readable(&p, 1);
        assert_eq!(doc["format"], "raw");
        assert_eq!(doc["root"]["value"], "unknown format");
    }
}

#[test]
fn sparse_file_of_4_gib_and_one() {
    let dir = common::scratch();
    let p = dir.path().join("sparse");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len((4 << 30) + 1).unwrap();
    drop(f);
    let t0 = Instant::now();
    let doc = readable(&p, (4 << 30) + 1);
    assert_eq!(doc["size"], (4u64 << 30) + 1);
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "a sparse file of zeros took {:?}",
        t0.elapsed()
    );
}

/// Each format's magic, then 4 GiB of zeros: opening it (the tree the TUI
/// shows first) must take no time, however many zero-filled structures a
/// parser could read from it: under 50 ms, a frame's time (each opens in
/// a few milliseconds or less).
#[test]
fn sparse_4_gib_behind_each_magic_opens_at_once() {
    let dir = common::scratch();
    for (name, magic) in [
        ("xclbin", &b"xclbin2\0"[..]),
        ("xe", b"XMOS\x02\x00\x00\x00"),
        ("elf", b"\x7fELF\x02\x01\x01\0"),
        ("offload", b"\x10\xff\x10\xad\x01\0\0\0"),
        ("ar", b"!<arch>\n"),
        ("pdi", &fwview::formats::pdi::SELECTMAP32),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, magic).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len((4 << 30) + 1)
            .unwrap();
        let label = name.to_string();
        let r = common::runner::run(name, Duration::from_secs(60), move || {
            let src = Arc::new(fwview::model::Source::open(&p).expect("opens"));
            let mut t = fwview::formats::build_tree(src, &label);
            // What the TUI builds at once: the root's children and theirs.
            for k in t.children(t.root()) {
                t.children(k);
            }
            t.len()
        });
        match r {
            Ok((nodes, took)) => {
                eprintln!("{name} + 4 GiB of zeros: opened in {took:?}, {nodes} nodes");
                assert!(
                    took < Duration::from_millis(50),
                    "{name} + 4 GiB of zeros took {took:?} to open ({nodes} nodes)"
                );
                assert!(
                    nodes < 100_000,
                    "{name} + 4 GiB of zeros built {nodes} nodes at once"
                );
            }
            Err(e) => panic!("{name} + 4 GiB of zeros: {e}"),
        }
    }
}

#[test]
fn fifo_is_refused_without_blocking() {
    let dir = common::scratch();
    let p = dir.path().join("fifo");
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // Nobody ever writes to it: opening it for reading would block.
    refused(&p, "is a FIFO");
}

#[test]
fn dev_zero_is_refused() {
    let p = Path::new("/dev/zero");
    if !p.exists() {
        eprintln!("skipped: no /dev/zero");
        return;
    }
    refused(p, "is a character device");
}

#[test]
fn directory_is_refused() {
    let dir = common::scratch();
    refused(dir.path(), "is a directory");
}

#[test]
fn socket_is_refused() {
    let dir = common::scratch();
    let p = dir.path().join("sock");
    let _l = std::os::unix::net::UnixListener::bind(&p).unwrap();
    refused(&p, "is a socket");
}

#[test]
fn missing_path_is_refused() {
    let dir = common::scratch();
    refused(&dir.path().join("not-there"), "No such file or directory");
    // Through a dangling symlink, and a symlink loop.
    let d = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &d).unwrap();
    refused(&d, "No such file or directory");
    let a = dir.path().join("loop-a");
    let b = dir.path().join("loop-b");
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    refused(&a, "symbolic links");
}

#[test]
fn unreadable_file_is_refused() {
    if common::is_root() {
        eprintln!("skipped: running as root, for whom read permission is not checked");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = common::scratch();
    let p = dir.path().join("secret");
    std::fs::write(&p, b"xclbin2\0").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    refused(&p, "Permission denied");
    // And a readable file in a directory that cannot be searched.
    let sub = dir.path().join("closed");
    std::fs::create_dir(&sub).unwrap();
    let inner = sub.join("f");
    std::fs::write(&inner, b"x").unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o000)).unwrap();
    refused(&inner, "Permission denied");
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
}
