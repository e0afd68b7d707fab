//! No byte from a file reaches the terminal unescaped: ESC sequences, the
//! other C0 and C1 controls, DEL and the bidi overrides, in file names and
//! in the strings that formats carry (ELF section and symbol names, XCLBIN
//! section and platform names, XML text and attributes, offload strings, ar
//! member names). Checked in --tree (stdout and stderr), --json, the error
//! messages, and the TUI (through a pseudo-terminal).
//!
//! Each string carries a marker word (PWN…). Where a parser shows the
//! string, the marker must follow the escaped form of the control before
//! it; where it does not show it (yet), the test says so and checks the
//! rest.

use crate::common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::build::{self, Sec};
use common::contract::{around, terminal_unsafe_at};

/// Hostile strings: (text, what the marker after the control must follow
/// in --tree output, the marker).
const EVIL: &[(&str, &str, &str)] = &[
    ("\x1b[31mPWN1\x1b[0m", "\\x1b[31m", "PWN1"),
    ("\x1b]0;PWN2\x07", "\\x1b]0;", "PWN2"),
    ("\x1b]8;;x\x1b\\PWN3", "\\x1b\\", "PWN3"),
    ("\u{9b}31mPWN4", "\\u{9b}31m", "PWN4"),
    ("\u{85}PWN5\u{9d}0;t\u{9c}", "\\u{85}", "PWN5"),
    ("\u{202e}PWN6\u{202c}", "\\u{202e}", "PWN6"),
    ("\u{2066}PWN7\u{2069}", "\\u{2066}", "PWN7"),
    ("\u{200f}\u{61c}PWN8", "\\u{61c}", "PWN8"),
    ("\x07\x08\x7fPWN9\x0b\x0c", "\\x7f", "PWN9"),
    ("\rPWNA\x1bc", "\\r", "PWNA"),
];

fn assert_safe(what: &str, bytes: &[u8]) {
    if let Some(i) = terminal_unsafe_at(bytes) {
        panic!(
            "{what}: byte {i} could act on a terminal: {}",
            around(bytes, i)
        );
    }
}

/// Runs --json and --tree on `path`, checks every output byte, checks the
/// JSON contract, and returns the --tree text.
fn outputs_are_safe(path: &Path, what: &str) -> String {
    let p = path.as_os_str();
    let j = common::fwview(&["--json".as_ref(), p]);
    assert_eq!(j.status.code(), Some(0), "{what}: --json failed");
    assert_safe(&format!("{what}: --json stdout"), &j.stdout);
    assert_safe(&format!("{what}: --json stderr"), &j.stderr);
    let size = std::fs::metadata(path).unwrap().len();
    common::contract::check(&j.stdout, size).unwrap_or_else(|e| panic!("{what}: {e}"));
    let t = common::fwview(&["--tree".as_ref(), p]);
    assert_eq!(t.status.code(), Some(0), "{what}: --tree failed");
    assert_safe(&format!("{what}: --tree stdout"), &t.stdout);
    assert_safe(&format!("{what}: --tree stderr"), &t.stderr);
    String::from_utf8(t.stdout).expect("--tree writes UTF-8")
}

/// Where the tree shows a marker, the escaped control must be right before
/// it. Returns how many of the markers the tree shows.
fn markers_escaped(tree: &str, what: &str) -> usize {
    let mut shown = 0;
    for (_, esc, marker) in EVIL {
        if !tree.contains(marker) {
            continue;
        }
        shown += 1;
        let want = format!("{esc}{marker}");
        assert!(
            tree.contains(&want),
            "{what}: {marker} is shown, but not as {want:?}:\n{}",
            tree.lines()
                .filter(|l| l.contains(marker))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    shown
}

fn report(what: &str, shown: usize, expected: usize) {
    if shown < expected {
        eprintln!(
            "note: {what}: the tree shows {shown} of {expected} hostile strings \
             (the parser does not show them yet); the output bytes were checked"
        );
    }
}

// ---- file names ----

#[test]
fn hostile_file_names() {
    let dir = common::scratch();
    for (i, (evil, esc, marker)) in EVIL.iter().enumerate() {
        let name = format!("f{i}-{evil}.bin");
        let p = dir.path().join(&name);
        std::fs::write(&p, b"xclbin2\0not really").unwrap();
        let tree = outputs_are_safe(&p, &format!("file name {name:?}"));
        // The root line is the file name, escaped.
        let first = tree.lines().next().unwrap();
        assert!(
            first.contains(&format!("{esc}{marker}")),
            "root line {first:?} should hold {esc}{marker}"
        );
        // JSON: "path" decodes to exactly the path given and the root's
        // name to exactly the file name (nothing lost, nothing misleading:
        // the unsafe characters travel as JSON escapes).
        let j = common::fwview(&["--json".as_ref(), p.as_os_str()]);
        let doc = common::contract::parse(&j.stdout).unwrap();
        assert_eq!(doc["path"].as_str(), Some(p.to_str().unwrap()));
        assert_eq!(doc["root"]["name"].as_str(), Some(name.as_str()));
    }
}

#[test]
fn file_names_that_are_not_utf8() {
    let dir = common::scratch();
    // A lone C1 byte (0x9b is CSI on some terminals), a stray 0xff, ESC.
    let raw: &[u8] = b"n-\x9b31mPWN-\xff-\x1b[2J.bin";
    let p = dir.path().join(OsStr::from_bytes(raw));
    std::fs::write(&p, b"\x7fELF").unwrap();
    outputs_are_safe(&p, "a non-UTF-8 file name");
}

#[test]
fn hostile_names_in_messages() {
    let dir = common::scratch();
    for (i, (evil, _, _)) in EVIL.iter().enumerate() {
        // A directory, a missing file: refusals name the path.
        let d = dir.path().join(format!("d{i}-{evil}"));
        std::fs::create_dir(&d).unwrap();
        let out = common::fwview(&["--tree".as_ref(), d.as_os_str()]);
        assert_eq!(out.status.code(), Some(1));
        assert_safe("refusal of a directory", &out.stderr);
        let m = dir.path().join(format!("m{i}-{evil}"));
        let out = common::fwview(&["--json".as_ref(), m.as_os_str()]);
        assert_eq!(out.status.code(), Some(1));
        assert_safe("refusal of a missing file", &out.stderr);
        // --extract names its output path and the node path it was given.
        let f = dir.path().join(format!("in{i}"));
        std::fs::write(&f, b"!<arch>\n").unwrap();
        let o = dir.path().join(format!("o{i}-{evil}"));
        let out = common::fwview(&[
            "--extract".as_ref(),
            "/".as_ref(),
            "-o".as_ref(),
            o.as_os_str(),
            f.as_os_str(),
        ]);
        assert_eq!(out.status.code(), Some(0));
        assert_safe("extract message", &out.stderr);
        let out = common::fwview(&[
            "--extract".as_ref(),
            evil.as_ref(),
            "-o".as_ref(),
            o.as_os_str(),
            f.as_os_str(),
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert_safe("no such node message", &out.stderr);
    }
}

// ---- strings inside formats ----

fn evil_bytes(i: usize) -> &'static [u8] {
    EVIL[i % EVIL.len()].0.as_bytes()
}

#[test]
fn ar_member_names() {
    let dir = common::scratch();
    // Long names through the GNU `//` table: any byte but `/\n`.
    let members: Vec<(Vec<u8>, Vec<u8>)> = EVIL
        .iter()
        .map(|(e, _, _)| (format!("m-{e}.o").into_bytes(), b"data".to_vec()))
        .collect();
    let refs: Vec<(&[u8], &[u8])> = members
        .iter()
        .map(|(a, b)| (a.as_slice(), b.as_slice()))
        .collect();
    let p = dir.path().join("long.a");
    std::fs::write(&p, build::ar(&refs)).unwrap();
    if common::tool("ar") {
        let out = std::process::Command::new("ar")
            .arg("t")
            .arg(&p)
            .output()
            .unwrap();
        assert!(out.status.success(), "ar t reads the archive");
        assert!(
            out.stdout.windows(4).any(|w| w == b"PWN1"),
            "ar t lists the names"
        );
    }
    let tree = outputs_are_safe(&p, "ar long names");
    report(
        "ar long names",
        markers_escaped(&tree, "ar long names"),
        EVIL.len(),
    );

    // Short names in the header itself (at most 15 bytes).
    let short: Vec<(Vec<u8>, Vec<u8>)> = [
        &b"\x1b[31mPWN1"[..],
        "\u{9b}31mPWN4".as_bytes(),
        "\u{202e}PWN6".as_bytes(),
    ]
    .iter()
    .map(|n| (n.to_vec(), b"x".to_vec()))
    .collect();
    let refs: Vec<(&[u8], &[u8])> = short
        .iter()
        .map(|(a, b)| (a.as_slice(), b.as_slice()))
        .collect();
    let p = dir.path().join("short.a");
    std::fs::write(&p, build::ar_short(&refs)).unwrap();
    let tree = outputs_are_safe(&p, "ar short names");
    report(
        "ar short names",
        markers_escaped(&tree, "ar short names"),
        3,
    );
}

fn evil_elf(machine: u16) -> Vec<u8> {
    let mut secs: Vec<Sec> = EVIL
        .iter()
        .map(|(e, _, _)| Sec::new(format!(".s{e}").as_bytes(), build::SHT_PROGBITS, b"\xc3"))
        .collect();
    if machine == build::EM_INTELGT {
        // zeinfo YAML naming a kernel with the hostile strings.
        let mut y = String::from("version: '1.20'\nkernels:\n");
        for (e, _, _) in EVIL {
            let quoted = e
                .chars()
                .map(|c| {
                    if (c as u32) < 0x20 || c == '\x7f' {
                        format!("\\x{:02x}", c as u32)
                    } else {
                        c.to_string()
                    }
                })
                .collect::<String>();
            y.push_str(&format!(
                "  - name: \"{quoted}\"\n    execution_env:\n      simd_size: 8\n"
            ));
        }
        secs.push(Sec::new(b".ze_info", 0xff00_0011, y.as_bytes()));
    }
    let syms: Vec<(&[u8], u16, u64, u64)> = EVIL
        .iter()
        .map(|(e, _, _)| (e.as_bytes(), 1u16, 0u64, 1u64))
        .collect();
    build::elf64(machine, &secs, &syms)
}

#[test]
fn elf_section_and_symbol_names() {
    let dir = common::scratch();
    for (label, machine) in [("elf", build::EM_X86_64), ("zebin", build::EM_INTELGT)] {
        let p = dir.path().join(format!("{label}.o"));
        std::fs::write(&p, evil_elf(machine)).unwrap();
        if common::tool("readelf") {
            let out = std::process::Command::new("readelf")
                .args(["-W", "-S", "-s"])
                .arg(&p)
                .output()
                .unwrap();
            assert!(out.status.success(), "readelf reads the {label} file");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("Error"), "readelf: {err}");
            assert!(
                out.stdout.windows(4).any(|w| w == b"PWN3"),
                "readelf shows the names"
            );
        }
        let tree = outputs_are_safe(&p, label);
        report(label, markers_escaped(&tree, label), EVIL.len());
    }
}

#[test]
fn xclbin_names_and_xml() {
    let dir = common::scratch();
    // Valid XML may hold C1 controls and bidi overrides as they are.
    let mut xml = String::from("<project name=\"");
    xml.push_str("\u{9b}31mPWN4\u{202e}PWN6");
    xml.push_str("\"><platform>");
    for (e, _, _) in EVIL
        .iter()
        .filter(|(e, _, _)| !e.chars().any(|c| (c as u32) < 0x20 || c == '\x7f'))
    {
        xml.push_str(&format!("<device name=\"{e}\">{e}</device>"));
    }
    xml.push_str("</platform></project>");
    // Invalid XML: a raw ESC (the parser must still show something safe).
    let bad = "<project>\x1b[31mPWN1\x1b]0;PWN2\x07</project>";
    let names: Vec<&[u8]> = vec![
        b"\x1b[31mPWN1\x1b[0m",
        "\u{9b}31mPWN4".as_bytes(),
        "\u{202e}PWN6\u{202c}".as_bytes(),
        b"\x07\x08\x7fPWN9",
    ];
    let mut secs: Vec<(u32, &[u8], &[u8])> =
        vec![(2, names[0], xml.as_bytes()), (2, names[1], bad.as_bytes())];
    for n in &names[2..] {
        secs.push((99, n, b"raw bytes"));
    }
    let v = build::xclbin("\x1b]0;PWN2\x07\u{2066}PWN7".as_bytes(), &secs);
    let p = dir.path().join("evil.xclbin");
    std::fs::write(&p, v).unwrap();
    let tree = outputs_are_safe(&p, "xclbin");
    report("xclbin", markers_escaped(&tree, "xclbin"), 7);
}

#[test]
fn xe_xml_sectors() {
    let dir = common::scratch();
    let mut xml = String::from("<?xml version=\"1.0\"?><Network>");
    for (e, _, _) in EVIL
        .iter()
        .filter(|(e, _, _)| !e.chars().any(|c| (c as u32) < 0x20 || c == '\x7f'))
    {
        xml.push_str(&format!("<Node Id=\"{e}\">{e}</Node>"));
    }
    xml.push_str("</Network>");
    let bad = "<xSCOPEconfig>\x1b[31mPWN1</xSCOPEconfig>";
    let v = build::xe(&[
        (0x8, xml.as_bytes()),
        (0xc, bad.as_bytes()),
        (0x3, evil_bytes(0)),
    ]);
    let p = dir.path().join("evil.xe");
    std::fs::write(&p, v).unwrap();
    let tree = outputs_are_safe(&p, "xe");
    report("xe", markers_escaped(&tree, "xe"), 5);
}

#[test]
fn offload_strings() {
    let dir = common::scratch();
    let strings: Vec<(&[u8], &[u8])> = vec![
        (b"triple", evil_bytes(0)),
        (b"arch", evil_bytes(1)),
        (evil_bytes(3), evil_bytes(5)),
        (b"producer", evil_bytes(6)),
    ];
    let v = build::offload(b"\x7fELF\x02\x01\x01", &strings, 1);
    let p = dir.path().join("evil.offloadbin");
    std::fs::write(&p, &v).unwrap();
    if common::tool("llvm-objdump-22") {
        let out = std::process::Command::new("llvm-objdump-22")
            .arg("--offloading")
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            out.stdout.windows(4).any(|w| w == b"PWN2"),
            "llvm-objdump-22 reads the offload binary: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tree = outputs_are_safe(&p, "offload");
    report("offload", markers_escaped(&tree, "offload"), 4);
}

// ---- the TUI, through a pseudo-terminal ----

/// Runs the TUI on `path` in a pseudo-terminal, sends `keys` (moving and
/// opening nodes), then `q`; returns everything it wrote.
fn tui_output(path: &Path, keys: &[u8]) -> Option<Vec<u8>> {
    in_pty(&[path.as_os_str()], keys)
}

/// Runs fwview with `args` in a pseudo-terminal, sends `keys` and `q`
/// unless it has ended by then; returns everything it wrote.
fn in_pty(args: &[&OsStr], keys: &[u8]) -> Option<Vec<u8>> {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;

    let bin = PathBuf::from(env!("CARGO_BIN_EXE_fwview"));
    let (mut m, mut s) = (-1, -1);
    let ws = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: valid out-pointers; a NULL name and termios are allowed.
    let r = unsafe { libc::openpty(&mut m, &mut s, std::ptr::null_mut(), std::ptr::null(), &ws) };
    if r != 0 {
        return None;
    }
    // SAFETY: openpty returned two fresh descriptors that we now own.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(m), OwnedFd::from_raw_fd(s)) };
    let mut cmd = std::process::Command::new(bin);
    cmd.args(args)
        .env("TERM", "xterm-256color")
        .stdin(slave.try_clone().ok()?)
        .stdout(slave.try_clone().ok()?)
        .stderr(slave);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            libc::ioctl(0, libc::TIOCSCTTY, 0);
            Ok(())
        });
    }
    let mut child = cmd.spawn().ok()?;
    drop(cmd);
    let mut reader = std::fs::File::from(master);
    let mut writer = reader.try_clone().ok()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        let _ = tx.send(all);
    });
    std::thread::sleep(Duration::from_millis(800));
    if let Ok(Some(_)) = child.try_wait() {
        return rx.recv_timeout(Duration::from_secs(10)).ok();
    }
    for k in keys {
        let _ = writer.write_all(&[*k]);
        std::thread::sleep(Duration::from_millis(30));
    }
    let _ = writer.write_all(b"q");
    let t0 = std::time::Instant::now();
    while t0.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if child.try_wait().ok().flatten().is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the TUI did not quit on q");
    }
    drop(writer);
    rx.recv_timeout(Duration::from_secs(10)).ok()
}

/// The TUI's own output is full of escape sequences; what must not be
/// there is any hostile string as it was in the file, nor any C1 or bidi
/// character. Returns how many markers appear after their escaped control
/// (names in the tree and the status line; the hex pane's text column
/// shows a control byte as a placeholder instead).
fn tui_is_safe(out: &[u8], what: &str) -> usize {
    let s = String::from_utf8_lossy(out);
    for (i, c) in s.char_indices() {
        let u = c as u32;
        let bad = (0x80..=0x9f).contains(&u)
            || matches!(u, 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069);
        assert!(!bad, "{what}: the TUI wrote U+{u:04X} at {i}");
    }
    let mut shown = 0;
    for (evil, esc, marker) in EVIL {
        // The raw string, up to and with its marker, never.
        let raw_head = &evil[..evil.find(marker).unwrap() + marker.len()];
        assert!(
            !s.contains(raw_head),
            "{what}: the TUI wrote {raw_head:?} as it is"
        );
        if s.contains(&format!("{esc}{marker}")) {
            shown += 1;
        }
    }
    // No BEL: a raw one would ring, and ratatui never sends one.
    assert!(!out.contains(&0x07), "{what}: the TUI wrote BEL");
    shown
}

#[test]
fn tui_shows_hostile_names_escaped() {
    let dir = common::scratch();
    let keys = b"llllljljljljljljljlj";
    let mut checked = 0;
    for (i, (evil, _, _)) in EVIL.iter().enumerate() {
        if evil.contains('/') {
            continue;
        }
        let p = dir.path().join(format!("t{i}-{evil}.a"));
        let members: Vec<(&[u8], &[u8])> = vec![(evil.as_bytes(), b"x")];
        std::fs::write(&p, build::ar(&members)).unwrap();
        let Some(out) = tui_output(&p, keys) else {
            eprintln!("skipped: no pseudo-terminal available");
            return;
        };
        assert!(!out.is_empty(), "the TUI wrote nothing");
        let shown = tui_is_safe(&out, &format!("TUI on {i}"));
        assert!(
            shown >= 1,
            "the TUI shows the file name of case {i} (escaped)"
        );
        checked += 1;
    }
    // Strings inside formats, as far as their parsers show them.
    for (label, bytes) in [
        ("elf", evil_elf(build::EM_X86_64)),
        ("zebin", evil_elf(build::EM_INTELGT)),
    ] {
        let p = dir.path().join(label);
        std::fs::write(&p, bytes).unwrap();
        if let Some(out) = tui_output(&p, keys) {
            tui_is_safe(&out, &format!("TUI on {label}"));
            checked += 1;
        }
    }
    eprintln!("{checked} TUI sessions checked");
}

/// clap quotes a rejected argument in its message; on a terminal it would
/// print an escape sequence in a file name (`fwview *` with two files) as
/// it is.
#[test]
fn usage_errors_quote_hostile_arguments_safely() {
    let mut checked = 0;
    for (evil, _, _) in EVIL {
        // Two files are a diff; a third is one too many.
        let args: Vec<&OsStr> = vec![
            "--json".as_ref(),
            "a.bin".as_ref(),
            "b.bin".as_ref(),
            evil.as_ref(),
        ];
        let Some(out) = in_pty(&args, b"") else {
            eprintln!("skipped: no pseudo-terminal available");
            return;
        };
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("unexpected argument"), "{text:?}");
        // clap may colour its own words; the argument must not come through.
        tui_is_safe(&out, &format!("usage error for {evil:?}"));
        checked += 1;
    }
    // Plain arguments keep clap's own (coloured) message.
    let out = in_pty(
        &["--json".as_ref(), "a".as_ref(), "b".as_ref(), "c".as_ref()],
        b"",
    )
    .unwrap();
    assert!(String::from_utf8_lossy(&out).contains("unexpected argument"));
    eprintln!("{checked} usage errors checked");
}

/// An ar member header for `name` (written as it is, up to 16 bytes) and
/// `size` bytes.
fn ar_header(name: &[u8], size: usize) -> Vec<u8> {
    let mut h = name.to_vec();
    h.resize(16, b' ');
    h.extend_from_slice(format!("{:<12}{:<6}{:<6}{:<8}{:<10}`\n", 0, 0, 0, 644, size).as_bytes());
    assert_eq!(h.len(), 60);
    h
}

#[test]
fn a_c1_character_and_a_byte_that_is_not_utf8_look_different() {
    // Two members: one named with the character U+009B (bytes C2 9B),
    // one with the lone byte 9B.
    let mut ar = b"!<arch>\n".to_vec();
    for name in [&b"a\xc2\x9bb/"[..], &b"a\x9bb/"[..]] {
        ar.extend(ar_header(name, 2));
        ar.extend_from_slice(b"xy");
    }
    let dir = common::scratch();
    let p = dir.path().join("c1.a");
    std::fs::write(&p, &ar).unwrap();
    let tree = outputs_are_safe(&p, "an archive with a C1 name");
    let char_line = tree.lines().find(|l| l.contains("a\\u{9b}b"));
    let byte_line = tree.lines().find(|l| l.contains("a\\x9bb"));
    assert!(
        char_line.is_some() && byte_line.is_some(),
        "U+009B shows as \\u{{9b}}, the byte 9B as \\x9b:\n{tree}"
    );
    // In --json, U+009B is text and comes back as itself; the lone byte
    // 9B is not UTF-8 and keeps the documented display form `\x9b`.
    let j = common::fwview(&["--json".as_ref(), p.as_os_str()]);
    let doc = common::contract::parse(&j.stdout).unwrap();
    let mut strings = Vec::new();
    json_strings(&doc["root"], &mut strings);
    assert!(
        strings.iter().any(|s| s.contains("a\u{9b}b")),
        "{strings:?}"
    );
    assert!(strings.iter().any(|s| s.contains("a\\x9bb")), "{strings:?}");
}

/// Every string of a parsed `--json` document: names and values.
fn json_strings(v: &serde_json::Value, out: &mut Vec<String>) {
    if let Some(s) = v.get("name").and_then(|s| s.as_str()) {
        out.push(s.to_string());
    }
    if let Some(s) = v.get("value").and_then(|s| s.as_str()) {
        out.push(s.to_string());
    }
    for k in v["children"].as_array().into_iter().flatten() {
        json_strings(k, out);
    }
}

#[test]
fn json_text_round_trips_exactly() {
    // Names and values in --json are the file's text: a JSON parser gives
    // back each hostile string character for character, while the bytes
    // of the output stay terminal-safe (checked in outputs_are_safe).
    let dir = common::scratch();
    let p = dir.path().join("rt.o");
    std::fs::write(&p, evil_elf(build::EM_X86_64)).unwrap();
    outputs_are_safe(&p, "round trip");
    let j = common::fwview(&["--json".as_ref(), p.as_os_str()]);
    let doc = common::contract::parse(&j.stdout).unwrap();
    let mut strings = Vec::new();
    json_strings(&doc["root"], &mut strings);
    for (e, _, _) in EVIL {
        // Section headers are named `[K] NAME`.
        let section = format!("] .s{e}");
        assert!(
            strings.iter().any(|s| s.ends_with(&section)),
            "no section header named {section:?} in --json"
        );
        let quoted = format!("\"{e}\"");
        assert!(
            strings.iter().any(|s| s.ends_with(&quoted)),
            "no value holding the symbol name {quoted:?} in --json"
        );
    }
    // An address as --find prints it (escaped) and as the file spells it
    // both reach the node.
    let f = common::fwview(&["--find".as_ref(), "n:PWN3".as_ref(), p.as_os_str()]);
    assert_safe("--find", &f.stdout);
    let text = String::from_utf8(f.stdout).unwrap();
    let shown = text
        .lines()
        .next()
        .and_then(|l| l.split_once("  "))
        .unwrap()
        .1;
    assert!(shown.contains("\\x1b"), "{shown}");
    let raw = shown.replace("\\x1b", "\x1b");
    for path in [shown, raw.as_str()] {
        let o = dir.path().join("node.bin");
        let out = common::fwview(&[
            "--extract".as_ref(),
            path.as_ref(),
            "--force".as_ref(),
            "-o".as_ref(),
            o.as_os_str(),
            p.as_os_str(),
        ]);
        assert_eq!(out.status.code(), Some(0), "--extract {path:?}");
        assert_eq!(std::fs::read(&o).unwrap(), b"\xc3", "--extract {path:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("wrote 1 byte to"), "{said}");
    }
}
