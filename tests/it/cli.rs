//! The headless contract (--json, --tree, --extract) on every bundled sample
//! and on random bytes, checked by running the real binary.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The format a sample must be detected as, from where it came from.
fn expected_format(p: &Path) -> &'static str {
    let s = p.to_string_lossy();
    if s.ends_with(".xclbin") {
        "xclbin"
    } else if s.ends_with(".xe") {
        "xe"
    } else if s.ends_with(".ar") {
        "ar"
    } else if s.ends_with(".offloadbin") {
        "offload"
    } else if s.contains("/zebin/") {
        "zebin"
    } else if s.ends_with(".o") || s.ends_with(".elf") {
        "elf"
    } else if s.ends_with(".hipfb") {
        "clang-offload-bundle"
    } else if s.ends_with(".seq") {
        "ipu-sequence"
    } else if s.contains("/npu/") && s.ends_with(".bin") {
        "npu-transaction"
    } else {
        panic!("no expected format for {s}")
    }
}

fn check_contract(j: &Value, path: &Path) -> usize {
    let size = j["size"].as_u64().unwrap();
    assert_eq!(size, std::fs::metadata(path).unwrap().len());
    assert_eq!(j["path"].as_str().unwrap(), path.to_str().unwrap());
    let f = j["format"].as_str().unwrap();
    assert!(
        [
            "xclbin",
            "xe",
            "elf",
            "zebin",
            "offload",
            "ar",
            "pdi",
            "clang-offload-bundle",
            "npu-transaction",
            "ipu-sequence",
            "raw"
        ]
        .contains(&f),
        "{f}"
    );
    assert_eq!(j["root"]["offset"], 0);
    assert_eq!(j["root"]["size"].as_u64().unwrap(), size);
    let st = common::contract::check_value(j, size)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    st.nodes as usize
}

#[test]
fn json_contract_holds_for_every_sample() {
    for p in common::sample_paths() {
        let j = common::json::json_of(&p);
        check_contract(&j, &p);
        assert_eq!(j["format"], expected_format(&p), "{}", p.display());
        let errors: Vec<&Value> = j["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
    }
}

#[test]
fn json_contract_holds_for_random_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // A fixed linear congruential generator: the same bytes every run.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for (i, len) in [0usize, 1, 7, 64, 4096, 65_537].into_iter().enumerate() {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) as u8
            })
            .collect();
        let p = dir.path().join(format!("random{i}.bin"));
        std::fs::write(&p, &bytes).unwrap();
        let j = common::json::json_of(&p);
        check_contract(&j, &p);
        assert_eq!(j["format"], "raw");
    }
}

#[test]
fn tree_prints_one_line_per_node() {
    for p in common::sample_paths() {
        let j = common::json::json_of(&p);
        let n = check_contract(&j, &p);
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .arg("--tree")
            .arg(&p)
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), n, "{}", p.display());
        let first = text.lines().next().unwrap();
        let root = &j["root"];
        assert!(
            first.starts_with(&format!(
                "{} [0x0+0x{:x}]",
                root["name"].as_str().unwrap(),
                j["size"].as_u64().unwrap()
            )),
            "{first}"
        );
        // Children are indented two spaces deeper than their parent.
        if let Some(c) = root["children"].as_array().and_then(|c| c.first()) {
            let second = text.lines().nth(1).unwrap();
            assert!(
                second.starts_with(&format!("  {} [0x", c["name"].as_str().unwrap())),
                "{second}"
            );
        }
    }
}

/// Every leaf of the first sample of each format extracts to exactly its
/// bytes in the file.
#[test]
fn extract_writes_the_bytes_of_a_node() {
    let dir = tempfile::tempdir().unwrap();
    for p in common::sample_paths() {
        let j = common::json::json_of(&p);
        let file = std::fs::read(&p).unwrap();
        // Walk to the first child of the first child, as far as it goes.
        let mut node = &j["root"];
        let mut path = Vec::new();
        while let Some(kids) = node["children"].as_array().filter(|k| !k.is_empty()) {
            let c = kids.last().unwrap();
            let name = c["name"].as_str().unwrap();
            // A name that siblings share is told apart by `#K`.
            let same = kids.iter().filter(|k| k["name"] == name).count();
            path.push(if same > 1 {
                format!("{name}#{}", same - 1)
            } else {
                name.to_string()
            });
            node = c;
            if path.len() == 3 {
                break;
            }
        }
        if path.is_empty() {
            continue;
        }
        let out = dir.path().join("out.bin");
        let _ = std::fs::remove_file(&out);
        let joined = path.join("/");
        Command::cargo_bin("fwview")
            .unwrap()
            .args(["--extract", &joined])
            .arg(&p)
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        let off = node["offset"].as_u64().unwrap() as usize;
        let size = node["size"].as_u64().unwrap() as usize;
        assert_eq!(
            std::fs::read(&out).unwrap(),
            &file[off..off + size],
            "{} {joined}",
            p.display()
        );
    }
}

#[test]
fn extract_refuses_unknown_paths_and_existing_files() {
    let p = common::sample_paths().into_iter().next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", "no/such/node"])
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    assert!(stderr_of(&p, &["--extract", "no/such/node"], &out).contains("no node at path"));
    assert!(!out.exists());
    std::fs::write(&out, b"keep").unwrap();
    let j = common::json::json_of(&p);
    let first = j["root"]["children"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", &first])
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure();
    assert!(stderr_of(&p, &["--extract", &first], &out).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", &first, "--force"])
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert_ne!(std::fs::read(&out).unwrap(), b"keep");
}

fn stderr_of(file: &Path, args: &[&str], out: &Path) -> String {
    let o = Command::cargo_bin("fwview")
        .unwrap()
        .args(args)
        .arg(file)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    String::from_utf8(o.stderr).unwrap()
}

#[test]
fn bad_paths_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (p, what) in [
        (dir.path().join("missing"), "No such file"),
        (dir.path().to_path_buf(), "is a directory"),
        (PathBuf::from("/dev/null"), "character device"),
    ] {
        for flag in ["--json", "--tree"] {
            let out = Command::cargo_bin("fwview")
                .unwrap()
                .arg(flag)
                .arg(&p)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{}", p.display());
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(what), "{err}");
            assert!(out.stdout.is_empty());
        }
    }
}

#[test]
fn an_empty_file_opens_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("empty");
    std::fs::write(&p, b"").unwrap();
    let j = common::json::json_of(&p);
    check_contract(&j, &p);
    assert_eq!(j["root"]["value"], "empty file");
}

#[test]
fn the_interactive_mode_needs_a_terminal() {
    let p = common::sample_paths().into_iter().next().unwrap();
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a terminal"));
}

/// Every start offset of `pat` in `hay` (None matches any byte), by brute
/// force: the reference for --find.
fn naive(hay: &[u8], pat: &[Option<u8>], fold: bool) -> Vec<String> {
    (0..hay.len().saturating_sub(pat.len() - 1))
        .filter(|&i| {
            pat.iter().enumerate().all(|(j, p)| match p {
                None => true,
                Some(b) if fold => b.eq_ignore_ascii_case(&hay[i + j]),
                Some(b) => *b == hay[i + j],
            })
        })
        .map(|i| format!("0x{i:x}"))
        .collect()
}

#[test]
fn find_prints_every_match_offset() {
    for p in common::sample_paths() {
        let hay = std::fs::read(&p).unwrap();
        for (pattern, pat, fold) in [
            ("ELF", vec![Some(b'E'), Some(b'L'), Some(b'F')], false),
            (
                "x:7f 45 4c 46",
                vec![Some(0x7f), Some(0x45), Some(0x4c), Some(0x46)],
                false,
            ),
            (
                "x:00 ?? 00 ?? 01",
                vec![Some(0), None, Some(0), None, Some(1)],
                false,
            ),
            ("kernel", b"kernel".iter().map(|&b| Some(b)).collect(), true),
        ] {
            let mut cmd = Command::cargo_bin("fwview").unwrap();
            cmd.arg("--find").arg(pattern).arg(&p);
            if fold {
                cmd.arg("-i");
            }
            let out = cmd.output().unwrap();
            let got: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            let want = naive(&hay, &pat, fold);
            // As grep: 0 when something matched, 1 when nothing did.
            let code = if want.is_empty() { 1 } else { 0 };
            assert_eq!(out.status.code(), Some(code), "{} {pattern}", p.display());
            assert_eq!(got, want, "{} {pattern}", p.display());
        }
    }
}

#[test]
fn find_rejects_bad_patterns() {
    let p = common::sample_paths().into_iter().next().unwrap();
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--find", "x:1"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("two hex digits"));
}

/// An address split into its segments: the name (`\` escapes undone) and
/// the `#K` index among same-named siblings (0 when it is left out).
fn segments(path: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut name = String::new();
    let mut index: Option<String> = None;
    let mut chars = path.chars();
    let mut end = |name: &mut String, index: &mut Option<String>| {
        let k = index
            .take()
            .map_or(0, |k| k.parse().expect("#K is a number"));
        out.push((std::mem::take(name), k));
    };
    while let Some(c) = chars.next() {
        match (c, &mut index) {
            ('\\', _) => name.push(chars.next().expect("an escape escapes something")),
            ('/', _) => end(&mut name, &mut index),
            ('#', None) => index = Some(String::new()),
            (c, Some(k)) => k.push(c),
            (c, None) => name.push(c),
        }
    }
    end(&mut name, &mut index);
    out
}

/// The node of `--json` at an address, read independently of the tool.
fn json_at<'a>(root: &'a Value, path: &str) -> &'a Value {
    let mut n = root;
    for (name, k) in segments(path) {
        n = n["children"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["name"] == name.as_str())
            .nth(k)
            .unwrap_or_else(|| panic!("{path}: no {name}#{k}"));
    }
    n
}

/// `--find n:` prints every node whose name matches as `0xOFFSET  PATH`;
/// each PATH, given to `--extract`, writes exactly that node's bytes, and
/// names the node `--json` has there at that offset, repeated siblings
/// (the `<arg>`, `<port>` and `<connection>` elements of an xclbin's
/// metadata) each by its own `#K`.
#[test]
fn find_names_every_node_and_extract_takes_its_address() {
    let dir = common::assets().join("xclbin");
    for file in [
        "kria-apps-firmware__kv260-benchmark-b4096.xclbin",
        "riallto__color_threshold_v1_720p.xclbin",
    ] {
        let p = dir.join(file);
        let bytes = std::fs::read(&p).unwrap();
        let j = common::json::json_of(&p);
        for elem in ["<arg>", "<port>", "<connection>"] {
            let out = Command::cargo_bin("fwview")
                .unwrap()
                .arg("--find")
                .arg(format!("n:{elem}"))
                .arg(&p)
                .output()
                .unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            let lines: Vec<(u64, &str)> = text
                .lines()
                .map(|l| {
                    let (off, path) = l.split_once("  ").expect("0xOFFSET  PATH");
                    let off = off.strip_prefix("0x").expect("an offset in the file");
                    (u64::from_str_radix(off, 16).unwrap(), path)
                })
                .collect();
            assert!(lines.len() >= 2, "{file}: {elem} repeats: {text}");
            let mut seen = std::collections::BTreeSet::new();
            for &(off, path) in &lines {
                assert!(seen.insert(path), "{file}: {path} printed twice");
                let last = segments(path).pop().unwrap();
                assert_eq!(last.0, elem, "{path}");
                let n = json_at(&j["root"], path);
                assert_eq!(n["name"], elem);
                assert_eq!(n["space"], 0);
                assert_eq!(n["offset"].as_u64().unwrap(), off, "{path}");
                let size = n["size"].as_u64().unwrap();
                let got = Command::cargo_bin("fwview")
                    .unwrap()
                    .args(["--extract", path])
                    .arg(&p)
                    .args(["-o", "-"])
                    .output()
                    .unwrap();
                assert!(
                    got.status.success(),
                    "{path}: {}",
                    String::from_utf8_lossy(&got.stderr)
                );
                let want = &bytes[off as usize..(off + size) as usize];
                assert_eq!(got.stdout, want, "{file}: {path}");
                let tag = &elem[..elem.len() - 1];
                assert!(want.starts_with(tag.as_bytes()), "{path}");
            }
            eprintln!("{file}: {} {elem} nodes found and extracted", lines.len());
        }
        // The second and third <arg> are their own nodes, with their own
        // bytes.
        let args: Vec<Vec<u8>> = (1..3)
            .map(|k| {
                let path = format!(
                    "{}/<arg>#{k}",
                    kernel_path(&j["root"]).expect("a kernel with arguments")
                );
                let out = Command::cargo_bin("fwview")
                    .unwrap()
                    .args(["--extract", &path])
                    .arg(&p)
                    .args(["-o", "-"])
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{path}");
                out.stdout
            })
            .collect();
        assert!(args[0].starts_with(b"<arg ") && args[1].starts_with(b"<arg "));
        assert_ne!(args[0], args[1]);
    }
}

/// The address of the first `<kernel>` element with three `<arg>`s or more.
fn kernel_path(root: &Value) -> Option<String> {
    fn walk(n: &Value, path: &mut Vec<String>) -> Option<String> {
        let kids = n["children"].as_array()?;
        let args = kids.iter().filter(|c| c["name"] == "<arg>").count();
        if n["name"] == "<kernel>" && args >= 3 {
            return Some(path.join("/"));
        }
        for c in kids {
            let name = c["name"].as_str()?;
            let same = kids.iter().filter(|s| s["name"] == name).count();
            let k = kids
                .iter()
                .take_while(|s| !std::ptr::eq(*s, c))
                .filter(|s| s["name"] == name)
                .count();
            let esc = name
                .replace('\\', "\\\\")
                .replace('/', "\\/")
                .replace('#', "\\#");
            path.push(if same > 1 { format!("{esc}#{k}") } else { esc });
            if let Some(f) = walk(c, path) {
                return Some(f);
            }
            path.pop();
        }
        None
    }
    walk(root, &mut Vec::new())
}

/// Flags that print or cut one file's tree are usage errors with two
/// files, in a terminal or not, and say what to use instead.
#[test]
fn one_file_flags_with_two_files_are_usage_errors() {
    let p = common::sample_paths().into_iter().next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    for args in [
        vec!["--tree".to_string()],
        vec!["--json".to_string()],
        vec![
            "--extract".to_string(),
            "/".to_string(),
            "-o".to_string(),
            out.display().to_string(),
        ],
    ] {
        let o = Command::cargo_bin("fwview")
            .unwrap()
            .args(&args)
            .arg(&p)
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("{} takes one file", args[0])) && err.contains("--diff"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert!(!out.exists());
}

/// `-o` and `--force` mean nothing without `--extract`: both are usage
/// errors, as is raw output to a terminal (tested in tmux) without `--force`.
#[test]
fn extract_options_are_checked() {
    let p = common::sample_paths().into_iter().next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    for args in [
        vec!["-o".to_string(), out.display().to_string()],
        vec!["--force".to_string()],
    ] {
        Command::cargo_bin("fwview")
            .unwrap()
            .args(&args)
            .arg(&p)
            .assert()
            .code(2);
    }
    assert!(!out.exists());
    // Nor with the modes that print: they write to standard output.
    for mode in [
        &["--tree"][..],
        &["--json"],
        &["--targets"],
        &["--find", "zz"],
    ] {
        let o = Command::cargo_bin("fwview")
            .unwrap()
            .args(mode)
            .arg("-o")
            .arg(&out)
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{mode:?}");
        assert!(o.stdout.is_empty(), "{mode:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains("--extract"), "{mode:?}: {err}");
        assert!(!out.exists(), "{mode:?}");
    }
}

/// `--extract ''` (an unset shell variable, say) is a usage error and
/// writes nothing; the whole file is spelt `/`, and its bytes are the file.
#[test]
fn extract_of_the_empty_path_is_refused_and_slash_is_the_file() {
    let p = common::sample_paths().into_iter().next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let o = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", ""])
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`/`"));
    assert!(!out.exists(), "the empty path wrote {}", out.display());
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", "/"])
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&p).unwrap());
}

/// Where a printed address is the root's (a file that is itself a device
/// image, a diff of two files of no known format) it is `/`, and
/// `--extract` takes it.
#[test]
fn printed_root_addresses_are_slash() {
    let zebin = common::assets().join("zebin/generated_locally/ocloc22.43__add_Gen12LPlp.bin");
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--targets")
        .arg(&zebin)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim_end().rsplit('\t').next(), Some("/"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::write(&a, b"abc").unwrap();
    std::fs::write(&b, b"abd").unwrap();
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--diff", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["path"], "/");
    let got = Command::cargo_bin("fwview")
        .unwrap()
        .args(["--extract", v[0]["path"].as_str().unwrap(), "-o", "-"])
        .arg(&b)
        .output()
        .unwrap();
    assert!(got.status.success());
    assert_eq!(got.stdout, b"abd");
}

/// A shell word quoted for `sh -c`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `--extract … -o -` with a terminal on standard output: refused, exit 2,
/// nothing written; with `--force` the bytes go to the terminal. Run under
/// `script`, which gives the command a pseudo-terminal.
#[test]
fn raw_bytes_to_a_terminal_need_force() {
    if !common::tool("script") {
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("fwview");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.bin");
    std::fs::write(&file, b"MAGIC-BYTES\n").unwrap();
    let run = |force: bool| {
        let cmd = format!(
            "{} --extract / -o - {}{}",
            sh_quote(bin.to_str().unwrap()),
            sh_quote(file.to_str().unwrap()),
            if force { " --force" } else { "" }
        );
        // -e: script exits with the command's status; the typescript goes
        // nowhere, what the command wrote comes out on script's stdout.
        std::process::Command::new("script")
            .args(["-q", "-e", "-c", &cmd, "/dev/null"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let refused = run(false);
    let screen = String::from_utf8_lossy(&refused.stdout);
    assert_eq!(refused.status.code(), Some(2), "{screen}");
    assert!(
        screen.contains("not writing raw bytes to a terminal"),
        "{screen}"
    );
    assert!(!screen.contains("MAGIC-BYTES"), "{screen}");
    let forced = run(true);
    let screen = String::from_utf8_lossy(&forced.stdout);
    assert_eq!(forced.status.code(), Some(0), "{screen}");
    assert!(screen.contains("MAGIC-BYTES"), "{screen}");
}

/// Every long option `--help` lists (`--name`), read from the help text.
fn flags_in_help() -> Vec<String> {
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let mut flags: Vec<String> = help
        .lines()
        .filter_map(|l| {
            // `  -o, --output <OUT>  …` or `      --json  …`.
            let l = l.trim_start();
            let l = match l.as_bytes() {
                [b'-', c, b',', b' ', ..] if *c != b'-' => &l[4..],
                _ => l,
            };
            let name = l.strip_prefix("--")?.split([' ', '\t']).next()?;
            Some(name.to_string())
        })
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

/// `--completions SHELL` and `--man` are made from the same definition as
/// `--help`: each names every option `--help` lists, bash takes its script,
/// and man renders the page.
#[test]
fn completions_and_man_page_name_every_option() {
    let flags = flags_in_help();
    for want in [
        "extract",
        "output",
        "force",
        "json",
        "tree",
        "completions",
        "man",
    ] {
        assert!(
            flags.iter().any(|f| f == want),
            "--help lacks --{want}: {flags:?}"
        );
    }
    let gen = |args: &[&str]| {
        let out = Command::cargo_bin("fwview")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = gen(&["--completions", shell]);
        for f in &flags {
            // fish lists long options as `-l name`.
            let named = script.contains(&format!("--{f}")) || script.contains(&format!("-l {f}"));
            assert!(named, "{shell} completions lack --{f}");
        }
    }
    let man = gen(&["--man"]);
    assert!(man.contains(".TH fwview 1"));
    for f in &flags {
        // roff writes a dash as `\-`.
        let roff = format!("\\-\\-{}", f.replace('-', "\\-"));
        assert!(man.contains(&roff), "the man page lacks --{f}");
    }
    // The shells and man themselves take what was made.
    if common::tool("bash") {
        let script = gen(&["--completions", "bash"]);
        let out = std::process::Command::new("bash")
            .args(["-c", "source /dev/stdin && complete -p fwview"])
            .stdin_bytes(script.as_bytes())
            .unwrap();
        assert!(out.contains("fwview"), "bash: {out}");
    }
    if common::tool("man") {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("fwview.1");
        std::fs::write(&page, &man).unwrap();
        let out = std::process::Command::new("man")
            .arg("-l")
            .arg(&page)
            .env("MANWIDTH", "200")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for f in &flags {
            assert!(
                text.contains(&format!("--{f}")),
                "man shows no --{f}:\n{text}"
            );
        }
        // Keys, exit status, environment and files follow the options;
        // every key of the one key table is there, and every variable
        // the program reads.
        for section in ["KEYS", "EXIT STATUS", "ENVIRONMENT", "FILES"] {
            assert!(text.contains(section), "man has no {section}:\n{text}");
        }
        for (k, _) in fwview::tui::keys::KEYS {
            let k = fwview::tui::keys::plain(k);
            assert!(text.contains(&k), "man lacks the key {k}");
        }
        for v in [
            "FWVIEW_LLVM",
            "FWVIEW_IGA",
            "FWVIEW_DECODE_IN_PROCESS",
            "FWVIEW_THREADS",
            "NO_COLOR",
            "fwview/marks",
        ] {
            assert!(text.contains(v), "man lacks {v}");
        }
    }
    // Neither takes a FILE, nor anything else.
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--man", "--json"])
        .assert()
        .code(2);
    Command::cargo_bin("fwview")
        .unwrap()
        .args(["--completions", "tcsh"])
        .assert()
        .code(2);
}

/// Runs a command with `input` on its standard input; its stdout as text.
trait StdinBytes {
    fn stdin_bytes(&mut self, input: &[u8]) -> std::io::Result<String>;
}

impl StdinBytes for std::process::Command {
    fn stdin_bytes(&mut self, input: &[u8]) -> std::io::Result<String> {
        use std::io::Write;
        let mut child = self
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        child.stdin.take().unwrap().write_all(input)?;
        let out = child.wait_with_output()?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// `-` reads standard input and a FIFO (a shell's `<(…)`) is read whole:
/// the tree is the file's, its root named `stdin` or by the FIFO.
#[test]
fn standard_input_and_pipes_are_read_into_memory() {
    for p in common::sample_paths().into_iter().take(4) {
        let bytes = std::fs::read(&p).unwrap();
        let want = Command::cargo_bin("fwview")
            .unwrap()
            .arg("--tree")
            .arg(&p)
            .output()
            .unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let want = String::from_utf8_lossy(&want.stdout).replacen(&name, "stdin", 1);
        let got = Command::cargo_bin("fwview")
            .unwrap()
            .args(["--tree", "-"])
            .write_stdin(bytes.clone())
            .output()
            .unwrap();
        assert_eq!(got.status.code(), Some(0), "{}", p.display());
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            want,
            "{}",
            p.display()
        );

        // A pipe given by name, as a shell's `<(…)` gives it: the writer
        // has it open before fwview opens it (`/dev/fd/63`, a FIFO).
        #[cfg(unix)]
        {
            let got = Command::new("bash")
                .arg("-c")
                .arg(r#""$0" --tree <(cat "$1")"#)
                .arg(assert_cmd::cargo::cargo_bin("fwview"))
                .arg(&p)
                .output()
                .unwrap();
            assert_eq!(got.status.code(), Some(0), "{}", p.display());
            let got = String::from_utf8_lossy(&got.stdout);
            // The root is named by the pipe's name (its descriptor).
            let root = got.split(" [").next().unwrap_or("");
            assert!(root.parse::<u32>().is_ok(), "{root}: the pipe's name");
            assert_eq!(got, want.replacen("stdin", root, 1), "{}", p.display());
        }
    }
}

/// `--help`'s first line (and the man page's NAME) names every format of
/// README's table that is detected on its own, not only a few.
#[test]
fn help_names_the_formats() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    // Forms of another row (wrappers, entries, the compressed bundle), and
    // the rows that are no format of their own.
    let within = [
        "compressed bundle",
        "HIP host wrapper",
        "CUDA host wrapper",
        "offload entries",
        "your own, in `.ksy`",
        "anything else",
    ];
    let names: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| ["))
        .filter_map(|l| l.split_once("](docs/").map(|x| x.0))
        .filter(|n| !within.contains(n))
        .collect();
    assert!(names.len() >= 15, "{names:?}");
    let out = Command::cargo_bin("fwview")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let first = help.lines().next().unwrap_or("");
    for n in names {
        for part in n.split(" / ") {
            assert!(first.contains(part), "--help does not name {part}: {first}");
        }
    }
    assert!(first.contains(".ksy"), "{first}");
}
