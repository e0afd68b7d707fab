//! Many files at once: `--targets` and `--find` over a directory tree give
//! exactly the single-file outputs of its regular files, concatenated in
//! path order and each line led by the file; the odd entries of the tree
//! (a FIFO, a socket, a dangling and a looping symbolic link, an empty
//! file, a file without read permission) are one warning line each and
//! never a hang; `--diff DIR_A DIR_B` pairs files by relative path.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(120);

fn run(args: &[&OsStr]) -> Output {
    common::fwview_within(args, LIMIT)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// The test tree: every sample of assets/ copied into nested folders
/// (three levels, by its place in the list), plus the odd entries.
/// Returns the root and the regular, readable, non-empty files in it.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    files: Vec<PathBuf>,
    noperm: Option<PathBuf>,
}

fn tree() -> Tree {
    let dir = common::scratch();
    let root = dir.path().join("pkg");
    let mut files = Vec::new();
    for (i, src) in common::sample_paths().into_iter().enumerate() {
        let sub = match i % 3 {
            0 => root.clone(),
            1 => root.join("lib"),
            _ => root.join("lib").join("deep").join("er"),
        };
        std::fs::create_dir_all(&sub).unwrap();
        let name = src.file_name().unwrap();
        let to = sub.join(name);
        std::fs::copy(&src, &to).unwrap();
        files.push(to);
    }
    let odd = root.join("lib").join("odd");
    std::fs::create_dir_all(&odd).unwrap();
    mkfifo(&odd.join("fifo"));
    let _sock = std::os::unix::net::UnixListener::bind(odd.join("sock")).unwrap();
    std::fs::write(odd.join("empty"), b"").unwrap();
    std::os::unix::fs::symlink(odd.join("nowhere"), odd.join("dangling")).unwrap();
    std::os::unix::fs::symlink(odd.join("loop_b"), odd.join("loop_a")).unwrap();
    std::os::unix::fs::symlink(odd.join("loop_a"), odd.join("loop_b")).unwrap();
    let noperm = if common::is_root() {
        None
    } else {
        let p = odd.join("noperm");
        std::fs::copy(&files[0], &p).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
        Some(p)
    };
    // Path order: name by name, a folder's files right after its name.
    files.sort();
    Tree {
        _dir: dir,
        root,
        files,
        noperm,
    }
}

/// The single-file output of `args` + FILE for every file, each line led
/// by `lead(FILE)`, concatenated.
fn concatenated(files: &[PathBuf], args: &[&str], lead: impl Fn(&Path) -> String) -> String {
    let mut want = String::new();
    for f in files {
        let mut a: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        a.push(f.as_os_str());
        let o = run(&a);
        for line in stdout(&o).lines() {
            want.push_str(&lead(f));
            want.push_str(line);
            want.push('\n');
        }
    }
    want
}

/// One warning line on stderr names `path` and says `reason`.
fn warned(err: &str, path: &Path, reason: &str) {
    let lead = format!("fwview: {}: ", path.display());
    let n = err
        .lines()
        .filter(|l| l.starts_with(&lead) && l.contains(reason))
        .count();
    assert_eq!(n, 1, "one warning for {lead}{reason}; stderr:\n{err}");
}

#[test]
fn targets_of_a_tree_are_the_single_file_outputs_in_path_order() {
    let t = tree();
    let want = concatenated(&t.files, &["--targets"], |f| format!("{}\t", f.display()));
    assert!(want.lines().count() >= 10, "the samples carry images");
    let o = run(&[OsStr::new("--targets"), t.root.as_os_str()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "stderr: {err}");
    assert_eq!(stdout(&o), want);

    // Each odd entry: one warning line; symbolic links are not followed.
    let odd = t.root.join("lib").join("odd");
    warned(&err, &odd.join("fifo"), "is a FIFO");
    warned(&err, &odd.join("sock"), "is a socket");
    warned(&err, &odd.join("empty"), "is empty");
    if let Some(p) = &t.noperm {
        warned(&err, p, "ermission denied");
    }
    assert!(!err.contains("dangling"), "links are not followed: {err}");
    assert!(
        err.contains("3 symbolic links not followed"),
        "the summary counts the links: {err}"
    );
    // The summary: files read, files with images, images per target.
    let images = want.lines().count();
    let with: std::collections::BTreeSet<&str> =
        want.lines().filter_map(|l| l.split('\t').next()).collect();
    let summary = format!("fwview: {} files read (", t.files.len());
    assert!(err.contains(&summary), "{summary:?} in {err}");
    assert!(
        err.contains(&format!(
            ", {} with device images, {images} images",
            with.len()
        )),
        "{err}"
    );
    let mut per: std::collections::BTreeMap<&str, usize> = Default::default();
    for l in want.lines() {
        *per.entry(l.split('\t').nth(2).unwrap()).or_default() += 1;
    }
    let each: Vec<String> = per.iter().map(|(t, n)| format!("{t} {n}")).collect();
    assert!(
        err.contains(&format!("fwview: images per target: {}\n", each.join(", "))),
        "{err}"
    );

    // Following links: the dangling one and the loop are warnings too.
    let o = run(&[
        OsStr::new("--targets"),
        OsStr::new("--follow"),
        t.root.as_os_str(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "stderr: {err}");
    assert_eq!(stdout(&o), want);
    warned(&err, &odd.join("dangling"), "a dangling symbolic link");
    warned(&err, &odd.join("loop_a"), "a symbolic link loop");
    warned(&err, &odd.join("loop_b"), "a symbolic link loop");

    // The same output on one thread and on three.
    for n in ["1", "3"] {
        let o = assert_cmd::Command::cargo_bin("fwview")
            .unwrap()
            .env("RAYON_NUM_THREADS", n)
            .arg("--targets")
            .arg(&t.root)
            .timeout(LIMIT)
            .output()
            .unwrap();
        assert_eq!(stdout(&o), want, "on {n} threads");
    }
}

#[test]
fn targets_json_lines_are_the_single_file_records_with_the_file() {
    let t = tree();
    let mut want: Vec<Value> = Vec::new();
    for f in &t.files {
        let o = run(&[OsStr::new("--targets"), OsStr::new("--json"), f.as_os_str()]);
        let list: Value = serde_json::from_slice(&o.stdout).unwrap();
        for r in list.as_array().unwrap() {
            let mut m = serde_json::Map::new();
            m.insert("schema".into(), Value::from(1));
            m.insert("file".into(), Value::from(f.display().to_string()));
            for (k, v) in r.as_object().unwrap() {
                m.insert(k.clone(), v.clone());
            }
            want.push(Value::Object(m));
        }
    }
    let o = run(&[
        OsStr::new("--targets"),
        OsStr::new("--json"),
        t.root.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn find_over_a_tree_is_the_single_file_outputs_led_by_the_file() {
    let t = tree();
    for pat in ["n:target", "x:7f 45 4c 46"] {
        let want = concatenated(&t.files, &["--find", pat], |f| format!("{}:", f.display()));
        assert!(!want.is_empty(), "{pat} matches in the samples");
        let o = run(&[OsStr::new("--find"), OsStr::new(pat), t.root.as_os_str()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), want, "--find {pat}");
    }
    // Several paths, files and a folder, are taken in path order.
    let lib = t.root.join("lib");
    let first = t.files[0].clone();
    let o = run(&[
        OsStr::new("--find"),
        OsStr::new("n:target"),
        lib.as_os_str(),
        first.as_os_str(),
    ]);
    let mut some: Vec<PathBuf> = t
        .files
        .iter()
        .filter(|f| f.starts_with(&lib) || **f == first)
        .cloned()
        .collect();
    some.sort();
    let want = concatenated(&some, &["--find", "n:target"], |f| {
        format!("{}:", f.display())
    });
    assert_eq!(stdout(&o), want);
}

#[test]
fn nothing_readable_is_exit_2_and_one_file_is_as_before() {
    let dir = common::scratch();
    let d = dir.path().join("odd");
    std::fs::create_dir(&d).unwrap();
    mkfifo(&d.join("fifo"));
    std::fs::write(d.join("empty"), b"").unwrap();
    let o = run(&[OsStr::new("--targets"), d.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    warned(&stderr(&o), &d.join("fifo"), "is a FIFO");
    warned(&stderr(&o), &d.join("empty"), "is empty");
    let o = run(&[OsStr::new("--find"), OsStr::new("x:00"), d.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // One file: no file column, and exit 1 without images.
    let f = common::asset("zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin");
    let o = run(&[OsStr::new("--targets"), f.as_os_str()]);
    assert_eq!(stdout(&o), "zebin\ttigerlake_lp\t-\t/\n");
    assert!(o.stderr.is_empty());
    // A folder without images: 1.
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("text"), b"no images here\n").unwrap();
    let o = run(&[OsStr::new("--targets"), plain.as_os_str()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // --find as grep: 1 when nothing matched, 0 when something did.
    let o = run(&[OsStr::new("--find"), OsStr::new("zebra"), plain.as_os_str()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let o = run(&[
        OsStr::new("--find"),
        OsStr::new("images"),
        plain.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Two folders: `same` in both, `changed` differing, `gone` only in A,
/// `sub/new` only in B.
fn two_folders(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a"), dir.join("b"));
    for d in [&a, &b] {
        std::fs::create_dir_all(d.join("sub")).unwrap();
    }
    let z = |n: &str| common::asset(&format!("zebin/generated_locally/ocloc22.43__{n}"));
    std::fs::copy(z("add_XE_HPG_COREdg2.bin"), a.join("sub/same")).unwrap();
    std::fs::copy(z("add_XE_HPG_COREdg2.bin"), b.join("sub/same")).unwrap();
    std::fs::copy(z("add_Gen12LPlp.bin"), a.join("changed")).unwrap();
    std::fs::copy(z("add_32_Gen12LPlp.bin"), b.join("changed")).unwrap();
    std::fs::copy(z("add_XE_HPC_COREpvc.bin"), a.join("gone")).unwrap();
    std::fs::copy(z("add_debug_XE_HPC_COREpvc.bin"), b.join("sub/new")).unwrap();
    (a, b)
}

#[test]
fn diff_of_two_folders_pairs_files_by_relative_path() {
    let dir = common::scratch();
    let (a, b) = two_folders(dir.path());
    let single = |json: bool| {
        let mut args = vec![OsStr::new("--diff")];
        if json {
            args.push(OsStr::new("--json"));
        }
        args.push(a.join("changed").into_os_string().leak());
        args.push(b.join("changed").into_os_string().leak());
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1));
        stdout(&o)
    };
    let lines = single(false);
    assert!(!lines.is_empty());
    let mut want = String::from("changed: changed\n");
    for l in lines.lines() {
        want.push_str(&format!("  {l}\n"));
    }
    want.push_str("removed: gone\nadded: sub/new\n");
    let o = run(&[OsStr::new("--diff"), a.as_os_str(), b.as_os_str()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), want);
    assert!(
        stderr(&o).contains("1 pair the same, 1 changed, 1 added, 1 removed"),
        "{}",
        stderr(&o)
    );

    // JSON Lines: the changes are the single-file --diff --json list.
    let changes: Value = serde_json::from_str(&single(true)).unwrap();
    let o = run(&[
        OsStr::new("--diff"),
        OsStr::new("--json"),
        a.as_os_str(),
        b.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let got: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let want = vec![
        serde_json::json!({"schema": 1, "file": "changed", "status": "changed", "changes": changes}),
        serde_json::json!({"schema": 1, "file": "gone", "status": "removed"}),
        serde_json::json!({"schema": 1, "file": "sub/new", "status": "added"}),
    ];
    assert_eq!(got, want);

    // A folder against itself: nothing, 0.
    let o = run(&[OsStr::new("--diff"), a.as_os_str(), a.as_os_str()]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    // A folder against a file: trouble.
    let o = run(&[
        OsStr::new("--diff"),
        a.as_os_str(),
        a.join("gone").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("is not a directory"), "{}", stderr(&o));
    // A folder against nothing: trouble, and the reason the system gives.
    let missing = dir.path().join("missing");
    let o = run(&[OsStr::new("--diff"), a.as_os_str(), missing.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(
        stderr(&o).contains("No such file or directory"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn diff_of_folders_with_an_unreadable_file_is_trouble() {
    let dir = common::scratch();
    let (a, b) = two_folders(dir.path());
    mkfifo(&b.join("fifo"));
    let o = run(&[OsStr::new("--diff"), a.as_os_str(), b.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    warned(&stderr(&o), &b.join("fifo"), "is a FIFO");
    // The rest is still reported.
    assert!(stdout(&o).contains("removed: gone\n"));
}

/// Every regular file under `dir`, in path order.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                todo.push(e.path());
            } else if ft.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// `--targets` reads a file only for its nested formats (no symbol,
/// string or relocation tables, debug information or instructions): the
/// images it finds so, with their addresses, byte spaces, offsets and
/// sizes, are those a full read of the file finds, on every asset and
/// test file.
#[test]
fn targets_read_for_nested_formats_only_are_those_of_a_full_read() {
    use fwview::model::{Options, Source};
    use std::sync::Arc;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = files_under(&common::assets());
    files.extend(files_under(&root.join("tests/data")));
    let mut images = 0;
    for f in &files {
        let read = |nested_only: bool| {
            let src = Arc::new(Source::open(f).unwrap());
            let options = Options {
                nested_only,
                ..Options::default()
            };
            let mut t = fwview::formats::build_tree_with(src, "file", options);
            fwview::targets::find(&mut t)
        };
        let full = read(false);
        assert_eq!(read(true), full, "{}", f.display());
        images += full.len();
    }
    assert!(images >= 40, "{images} images in {} files", files.len());
}

/// The code objects of the bundle sample, as (entry id, bytes), read from
/// its header here: magic, count, then offset, size, id length and id per
/// entry.
fn sample_code_objects() -> Vec<(String, Vec<u8>)> {
    let b = std::fs::read(common::asset(
        "hip/debian-librocsparse0-5.3.0__hip_fatbin-first-bundle.hipfb",
    ))
    .unwrap();
    let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    assert_eq!(&b[..24], b"__CLANG_OFFLOAD_BUNDLE__");
    let mut at = 32;
    let mut out = Vec::new();
    for _ in 0..u64_at(24) {
        let (off, size, n) = (u64_at(at), u64_at(at + 8), u64_at(at + 16));
        let id = String::from_utf8(b[at + 24..at + 24 + n].to_vec()).unwrap();
        at += 24 + n;
        if size > 0 && id.starts_with("hipv4-") {
            out.push((id, b[off..off + size].to_vec()));
        }
    }
    out
}

/// The peak resident memory of `fwview ARGS` in KiB, as GNU time's `%M`
/// gives it, with its exit code; output goes to a file. (Not the child's
/// own `ru_maxrss`: a process started from this one, by vfork or fork,
/// keeps the high-water mark of the test process it was a copy of until
/// it execs, and the kernel carries that mark over the exec.) None where
/// GNU time is not installed, outside CI.
fn peak_kib(args: &[&OsStr], out: &Path) -> Option<(i32, u64)> {
    if !common::tool("/usr/bin/time") {
        return None;
    }
    let dir = common::scratch();
    let mem = dir.path().join("mem");
    let mut a: Vec<&OsStr> = vec![
        OsStr::new("-f"),
        OsStr::new("%M"),
        OsStr::new("-o"),
        mem.as_os_str(),
        OsStr::new(env!("CARGO_BIN_EXE_fwview")),
    ];
    a.extend_from_slice(args);
    let o = std::process::Command::new("/usr/bin/time")
        .args(&a)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    let kib = std::fs::read_to_string(&mem).unwrap();
    let kib = kib.lines().last().unwrap_or("").trim().parse().unwrap();
    Some((o.code().unwrap_or(-1), kib))
}

/// A fat binary of many code objects spread over hundreds of MiB (a
/// sparse file: the holes between them read as zeros) is scanned for its
/// images without holding the pages it read: `--targets` lists every
/// image, and its peak memory stays far below the file's size. Without
/// giving the pages back, each image read kept the block the kernel maps
/// around a read, and the peak grew with the file (300 MiB here).
#[test]
fn targets_of_a_big_fat_binary_hold_little_memory() {
    let objs = sample_code_objects();
    assert!(objs.len() >= 4, "{} code objects in the sample", objs.len());
    const ENTRIES: usize = 1200;
    const STRIDE: u64 = 256 << 10;
    let ids: Vec<String> = (0..ENTRIES)
        .map(|i| format!("{}-{i}", objs[i % objs.len()].0))
        .collect();
    let table: usize = ids.iter().map(|id| 24 + id.len()).sum();
    let first = (32 + table as u64).div_ceil(STRIDE) * STRIDE;
    let mut head = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    head.extend((ENTRIES as u64).to_le_bytes());
    for (i, id) in ids.iter().enumerate() {
        head.extend((first + i as u64 * STRIDE).to_le_bytes());
        head.extend((objs[i % objs.len()].1.len() as u64).to_le_bytes());
        head.extend((id.len() as u64).to_le_bytes());
        head.extend(id.as_bytes());
    }
    let dir = common::scratch();
    let p = dir.path().join("big.hipfb");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(&head).unwrap();
        for i in 0..ENTRIES {
            f.seek(SeekFrom::Start(first + i as u64 * STRIDE)).unwrap();
            f.write_all(&objs[i % objs.len()].1).unwrap();
        }
        f.set_len(first + ENTRIES as u64 * STRIDE).unwrap();
    }
    let size = std::fs::metadata(&p).unwrap().len();
    assert!(size > 300 << 20, "{size} bytes");
    let scratch = common::scratch();
    let out = scratch.path().join("out");
    // The file alone, and the folder that holds it: both scan it.
    for arg in [p.as_os_str(), dir.path().as_os_str()] {
        let Some((code, kib)) = peak_kib(&[OsStr::new("--targets"), arg], &out) else {
            return;
        };
        assert_eq!(code, 0, "{arg:?}");
        let lines = std::fs::read_to_string(&out).unwrap();
        let images = lines.lines().filter(|l| l.contains("hipv4-amdgcn")).count();
        assert_eq!(images, ENTRIES, "{arg:?}");
        assert!(
            kib < 100 << 10,
            "--targets {arg:?} of a {} MiB fat binary peaked at {} MiB",
            size >> 20,
            kib >> 10
        );
    }
}

/// A host object whose `.nv_fatbin` holds many LZ4-compressed PTX entries
/// of 4 MiB each once inflated (1.2 GiB in all, from a file of a few
/// hundred KiB) is scanned one inflated entry at a time: `--targets` lists
/// every entry and its peak memory stays far below what they inflate to.
/// Before, every inflated entry was kept until the scan ended, and those
/// past the bound on derived bytes held at once (1 GiB) were not listed.
#[test]
fn targets_of_many_compressed_entries_hold_one_at_a_time() {
    use common::build::{elf64, Sec, EM_X86_64, SHT_PROGBITS};
    const ENTRIES: usize = 300;
    const FLAG_LZ4: u64 = 0x2000;
    let mut ptx =
        b"//\n.version 7.0\n.target sm_75\n.address_size 64\n.visible .entry kern(\n)\n{\n ret;\n}\n"
            .to_vec();
    while ptx.len() < 4 << 20 {
        ptx.extend_from_slice(b"// padding the PTX out to a big image\n");
    }
    ptx.push(0);
    let mut packed = lz4_flex::block::compress(&ptx);
    let clen = packed.len();
    packed.resize(clen.div_ceil(8) * 8, 0);
    let mut entries = Vec::new();
    for _ in 0..ENTRIES {
        let mut e = Vec::new();
        e.extend_from_slice(&1u16.to_le_bytes()); // PTX
        e.extend_from_slice(&0x0101u16.to_le_bytes());
        e.extend_from_slice(&64u32.to_le_bytes());
        e.extend_from_slice(&(packed.len() as u64).to_le_bytes());
        e.extend_from_slice(&(clen as u32).to_le_bytes());
        e.extend_from_slice(&0u32.to_le_bytes());
        e.extend_from_slice(&0u16.to_le_bytes());
        e.extend_from_slice(&7u16.to_le_bytes());
        e.extend_from_slice(&75u32.to_le_bytes());
        e.extend_from_slice(&[0; 8]);
        e.extend_from_slice(&(FLAG_LZ4 | 0x1 | 0x4 | 0x10).to_le_bytes());
        e.extend_from_slice(&0u64.to_le_bytes());
        e.extend_from_slice(&(ptx.len() as u64).to_le_bytes());
        assert_eq!(e.len(), 64);
        entries.extend_from_slice(&e);
        entries.extend_from_slice(&packed);
    }
    let mut fat = Vec::new();
    fat.extend_from_slice(&0xba55_ed50u32.to_le_bytes());
    fat.extend_from_slice(&1u16.to_le_bytes());
    fat.extend_from_slice(&16u16.to_le_bytes());
    fat.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    fat.extend_from_slice(&entries);
    let elf = elf64(
        EM_X86_64,
        &[Sec::new(b".nv_fatbin", SHT_PROGBITS, &fat)],
        &[],
    );
    let dir = common::scratch();
    let p = dir.path().join("host.o");
    std::fs::write(&p, &elf).unwrap();
    let scratch = common::scratch();
    let out = scratch.path().join("out");
    let Some((code, kib)) = peak_kib(&[OsStr::new("--targets"), p.as_os_str()], &out) else {
        return;
    };
    assert_eq!(code, 0);
    let lines = std::fs::read_to_string(&out).unwrap();
    let ptx_lines = lines
        .lines()
        .filter(|l| l.starts_with("ptx\tsm_75\tcuda\t") && l.ends_with("/inflated"))
        .count();
    assert_eq!(ptx_lines, ENTRIES, "{lines}");
    let inflated = (ENTRIES * ptx.len()) >> 20;
    assert!(
        kib < 100 << 10,
        "--targets of {inflated} MiB of inflated entries peaked at {} MiB",
        kib >> 10
    );
}
