//! fwview in a real terminal: tmux runs it, send-keys types, capture-pane
//! reads the screen. Skipped where tmux is not installed.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::tmux::Tmux;

/// The sample the terminal tests open.
fn sample() -> String {
    common::asset("xclbin/pynq__pl_server_default.xclbin")
        .display()
        .to_string()
}

#[test]
fn goto_help_and_quit_in_a_real_terminal() {
    // tmux does not always record a dead pane's exit status, so a shell
    // writes it to a file.
    let dir = tempfile::tempdir().unwrap();
    let status_file = dir.path().join("status");
    let cmd = format!(
        "sh -c '{} {}; echo $? > {}'",
        env!("CARGO_BIN_EXE_fwview"),
        common::asset("xclbin/pynq__pl_server_default.xclbin").display(),
        status_file.display()
    );
    let Some(t) = Tmux::start(&cmd, 120, 36) else {
        return;
    };
    let s = t.wait("the first frame", |s| {
        s.contains("Structure") && s.contains("Hex")
    });
    assert!(s.contains("pynq__pl_server_default.xclbin"));
    assert!(s.contains("0x0 / 0xe4d"), "{s}");
    assert_eq!(t.var("#{alternate_on}"), "1");

    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to: 0x offset"));
    t.text("0x1c8");
    t.keys(&["Enter"]);
    let s = t.wait("the cursor at 0x1c8", |s| s.contains("0x1c8 / 0xe4d"));
    assert!(!s.contains("Go to: 0x offset"));
    assert!(
        s.contains("000001c0"),
        "the hex pane shows the row of 0x1c8:\n{s}"
    );

    t.keys(&["?"]);
    let s = t.wait("the help popup", |s| s.contains("Keys (Esc closes"));
    assert!(s.contains("go to an offset"));
    t.keys(&["Escape"]);
    t.wait("the help to close", |s| !s.contains("Keys (Esc closes"));

    t.keys(&["q"]);
    wait_dead(&t);
    let status = std::fs::read_to_string(&status_file).unwrap_or_default();
    assert_eq!(status.trim(), "0", "exit status; screen:\n{}", t.screen());
    assert_eq!(
        t.var("#{alternate_on}"),
        "0",
        "the alternate screen was left"
    );
}

#[test]
fn resizing_redraws_down_to_40x10() {
    let cmd = format!(
        "{} {}",
        env!("CARGO_BIN_EXE_fwview"),
        common::asset("xclbin/pynq__pl_server_default.xclbin").display()
    );
    let Some(t) = Tmux::start(&cmd, 100, 30) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));
    t.cmd(&["resize-window", "-t", "t", "-x", "40", "-y", "10"]);
    let s = t.wait("the small frame", |s| {
        s.lines().count() <= 10 && s.contains("Hex")
    });
    assert!(s.lines().all(|l| l.chars().count() <= 40), "{s}");
    t.cmd(&["resize-window", "-t", "t", "-x", "130", "-y", "40"]);
    t.wait("the large frame", |s| {
        s.contains("00000000  78 63 6c 62 69 6e 32 00")
    });
    t.keys(&["q"]);
}

/// The cursor offset the status bar shows, as text like `0x3a9e0`.
fn cursor_of(screen: &str) -> String {
    let status = screen
        .lines()
        .rev()
        .find(|l| l.contains(" / 0x"))
        .unwrap_or("");
    let before = status.split(" / 0x").next().unwrap_or("");
    before.rsplit(' ').next().unwrap_or("").to_string()
}

#[test]
fn search_follow_history_and_marks_in_a_real_terminal() {
    let xe = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/xmos/COMS20001-game-of-life__pgm_generator.xe");
    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_fwview"), xe.display());
    let Some(t) = Tmux::start(&cmd, 150, 40) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));

    // Search node names: the first GOTO sector.
    t.keys(&["/"]);
    t.wait("the search prompt", |s| s.contains("Search:"));
    t.text("n:GOTO");
    t.keys(&["Enter"]);
    let s = t.wait("the first match", |s| s.contains("match 1 of"));
    assert_eq!(cursor_of(&s), "0x3a9e0", "{s}");
    t.keys(&["n"]);
    t.wait("the second match", |s| s.contains("match 2 of"));
    t.keys(&["N"]);
    let s = t.wait("back to the first match", |s| s.contains("match 1 of"));
    assert!(s.contains("[6] GOTO"), "{s}");

    // Follow the GOTO to the image it starts.
    t.keys(&["f"]);
    let s = t.wait("the jump", |s| cursor_of(s) != "0x3a9e0");
    let image = cursor_of(&s);
    t.keys(&["C-o"]);
    t.wait("back at the GOTO", |s| cursor_of(s) == "0x3a9e0");
    t.keys(&["C-n"]);
    t.wait("forward at the image", |s| cursor_of(s) == image);

    // Mark it, go elsewhere, come back by the mark.
    t.keys(&["m"]);
    t.keys(&["a"]);
    t.wait("the mark", |s| s.contains("mark a set"));
    t.keys(&["g"]);
    t.text("0x10");
    t.keys(&["Enter"]);
    t.wait("the goto", |s| cursor_of(s) == "0x10");
    t.keys(&["'"]);
    t.keys(&["a"]);
    t.wait("the mark jump", |s| cursor_of(s) == image);
    t.keys(&["q"]);
}

#[test]
fn hash_cycles_numbers_between_natural_hex_and_decimal() {
    let cmd = format!(
        "{} {}",
        env!("CARGO_BIN_EXE_fwview"),
        common::asset("xclbin/pynq__pl_server_default.xclbin").display()
    );
    let Some(t) = Tmux::start(&cmd, 200, 50) else {
        return;
    };
    // The section count, 3: --json gives it as raw 3.
    let s = t.wait("the first frame", |s| s.contains("m_uniqueId"));
    assert!(s.contains("sections [0x1c8+0x78] 3 entries"), "{s}");
    assert!(!s.contains("#hex") && !s.contains("#decimal"), "{s}");
    for _ in 0..7 {
        t.keys(&["j"]);
    }
    t.wait("sections selected", |s| {
        s.contains("sections  3 entries  120 bytes  [0x1c8..0x240)")
    });
    t.keys(&["#"]);
    let s = t.wait("hex numbers", |s| s.contains("#hex"));
    assert!(s.contains("sections [0x1c8+0x78] 0x3 entries"), "{s}");
    assert!(
        s.contains("sections  0x3 entries  120 bytes  [0x1c8..0x240)"),
        "the details line:\n{s}"
    );
    assert!(s.contains("numbers shown hex"), "{s}");
    t.keys(&["#"]);
    let s = t.wait("decimal numbers", |s| s.contains("#decimal"));
    assert!(s.contains("sections [0x1c8+0x78] 3 entries"), "{s}");
    t.keys(&["#"]);
    let s = t.wait("natural numbers", |s| s.contains("numbers shown natural"));
    assert!(s.contains("sections [0x1c8+0x78] 3 entries"), "{s}");
    assert!(!s.contains("#hex") && !s.contains("#decimal"), "{s}");
    t.keys(&["q"]);
}

/// `--extract … -o -` would put a node's raw bytes, escapes and all, on the
/// screen: on a terminal it is refused (exit 2) unless `--force`.
#[test]
fn raw_extract_to_a_terminal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let status_file = dir.path().join("status");
    let cmd = format!(
        "sh -c '{} --extract magic {} -o -; echo $? > {}; sleep 20'",
        env!("CARGO_BIN_EXE_fwview"),
        common::asset("xclbin/pynq__pl_server_default.xclbin").display(),
        status_file.display()
    );
    let Some(t) = Tmux::start(&cmd, 101, 10) else {
        return;
    };
    let s = t.wait("the refusal", |s| s.contains("not writing raw bytes"));
    assert!(s.contains("--force"), "{s}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !status_file.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let code = std::fs::read_to_string(&status_file).unwrap();
    assert_eq!(code.trim(), "2");
}

/// Marks are kept per file between runs in the XDG state directory.
#[test]
fn marks_are_kept_between_runs() {
    let state = tempfile::tempdir().unwrap();
    let cmd = format!(
        "env XDG_STATE_HOME={} {} {}",
        state.path().display(),
        env!("CARGO_BIN_EXE_fwview"),
        sample()
    );
    let Some(t) = Tmux::start(&cmd, 120, 36) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));
    mark_a_at_0x1c8(&t);
    t.keys(&["q"]);
    wait_dead(&t);
    let kept = std::fs::read_to_string(state.path().join("fwview/marks")).unwrap();
    assert!(kept.starts_with("a\t456\t"), "{kept}");
    drop(t);
    // A second run finds the mark.
    let Some(t) = Tmux::start(&cmd, 120, 36) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("0x0 / 0xe4d"));
    t.text("'a");
    t.wait("the cursor back at 0x1c8", |s| s.contains("0x1c8 / 0xe4d"));
}

/// NO_COLOR and --color: no colour at all, the selection still shown (in
/// reverse video); --color always wins over NO_COLOR.
#[test]
fn no_color_and_the_color_flag() {
    let bin = env!("CARGO_BIN_EXE_fwview");
    let has_colour = |ansi: &str| {
        ansi.split('\u{1b}').any(|seq| {
            let Some(params) = seq.strip_prefix('[').and_then(|s| {
                s.strip_suffix('m')
                    .or_else(|| s.split_once('m').map(|p| p.0))
            }) else {
                return false;
            };
            params.split(';').any(|p| {
                matches!(
                    p.parse::<u32>(),
                    Ok(30..=37 | 40..=47 | 90..=97 | 100..=107 | 38 | 48)
                )
            })
        })
    };
    for (cmd, colour) in [
        (format!("env NO_COLOR=1 {bin} {}", sample()), false),
        (format!("{bin} --color never {}", sample()), false),
        (
            format!("env NO_COLOR=1 {bin} --color always {}", sample()),
            true,
        ),
        (format!("env -u NO_COLOR {bin} {}", sample()), true),
    ] {
        let Some(t) = Tmux::start(&cmd, 120, 36) else {
            return;
        };
        t.wait("the first frame", |s| s.contains("Structure"));
        let ansi = t.out(&["capture-pane", "-e", "-p", "-t", "t"]);
        assert_eq!(has_colour(&ansi), colour, "{cmd}:\n{ansi:?}");
        if !colour {
            assert!(
                ansi.contains("\u{1b}[7m")
                    || ansi.contains(";7m")
                    || ansi.contains("[1;7m")
                    || ansi.contains("7;"),
                "the selection is reversed: {ansi:?}"
            );
        }
    }
}

/// Goes to 0x1c8 of the sample and sets mark a there.
fn mark_a_at_0x1c8(t: &Tmux) {
    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to: 0x offset"));
    t.text("0x1c8");
    t.keys(&["Enter"]);
    t.wait("the cursor at 0x1c8", |s| s.contains("0x1c8 / 0xe4d"));
    t.text("ma");
    t.wait("the mark", |s| s.contains("mark a set at 0x1c8"));
}

/// Waits for the pane's program to end.
pub fn wait_dead(t: &Tmux) {
    let start = Instant::now();
    while t.var("#{pane_dead}") != "1" {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "did not quit:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A file whose name is not UTF-8 opens, reloads when it is rewritten and
/// keeps its marks, in the session and in the marks file (keyed by the
/// name's bytes).
#[cfg(unix)]
#[test]
fn a_file_named_in_bytes_that_are_not_utf8_opens_reloads_and_keeps_marks() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let state = dir.join("state");
    let name = std::ffi::OsStr::from_bytes(b"pl\xff\xfeserver.xclbin");
    let file = dir.join(name);
    std::fs::copy(sample(), &file).unwrap();
    // The shell is handed the name's bytes by a script, not a command line.
    let script = dir.join("run.sh");
    let mut body = format!(
        "cd '{}' && exec env XDG_STATE_HOME='{}' '{}' '",
        dir.display(),
        state.display(),
        env!("CARGO_BIN_EXE_fwview")
    )
    .into_bytes();
    body.extend_from_slice(name.as_bytes());
    body.extend_from_slice(b"'\n");
    std::fs::write(&script, body).unwrap();
    let cmd = format!("sh {}", script.display());
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    let s = t.wait("the first frame", |s| s.contains("0x0 / 0xe4d"));
    assert!(s.contains("server.xclbin"), "{s}");
    mark_a_at_0x1c8(&t);

    // Rewrite m_uniqueId's low byte: the file reloads under its own name.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[0x128] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    let s = t.wait("the reload", |s| s.contains("reloaded"));
    assert!(s.contains("reloaded: ~"), "{s}");
    assert!(!s.contains("reload failed"), "{s}");
    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to: 0x offset"));
    t.text("0x10");
    t.keys(&["Enter"]);
    t.wait("the cursor at 0x10", |s| s.contains("0x10 / 0xe4d"));
    t.text("'a");
    t.wait("the mark kept over the reload", |s| {
        s.contains("0x1c8 / 0xe4d")
    });
    t.keys(&["q"]);
    wait_dead(&t);
    drop(t);

    // The marks file names the file by its bytes.
    let kept = std::fs::read(state.join("fwview/marks")).unwrap();
    let mut line = b"a\t456\t".to_vec();
    assert!(kept.starts_with(&line), "{kept:?}");
    line.clear();
    line.extend_from_slice(file.as_os_str().as_bytes());
    line.push(b'\n');
    assert!(kept.ends_with(&line), "{kept:?}");

    // A second run finds the mark.
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("0x0 / 0xe4d"));
    t.text("'a");
    t.wait("the cursor back at 0x1c8", |s| s.contains("0x1c8 / 0xe4d"));
    t.keys(&["q"]);
}

/// `… | fwview -`: the file comes in on standard input, the keys from the
/// terminal.
#[test]
fn a_file_on_standard_input_opens_with_keys_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let status_file = dir.path().join("status");
    let cmd = format!(
        "sh -c 'cat {} | {} -; echo $? > {}'",
        sample(),
        env!("CARGO_BIN_EXE_fwview"),
        status_file.display()
    );
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    let s = t.wait("the first frame", |s| {
        s.contains("Structure") && s.contains("Hex")
    });
    assert!(s.contains("stdin [0x0+0xe4d] xclbin"), "{s}");
    t.keys(&["j", "j"]);
    t.wait("the cursor to move", |s| s.contains("0x8 / 0xe4d"));
    t.keys(&["q"]);
    wait_dead(&t);
    let status = std::fs::read_to_string(&status_file).unwrap_or_default();
    assert_eq!(status.trim(), "0", "exit status; screen:\n{}", t.screen());
}

/// Deleting the open file is said on the status bar, and stays said; the
/// copy still open goes on working.
#[test]
fn deleting_the_open_file_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("victim.xclbin");
    std::fs::copy(sample(), &file).unwrap();
    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_fwview"), file.display());
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("0x0 / 0xe4d"));
    std::fs::remove_file(&file).unwrap();
    t.wait("the notice", |s| s.contains("the file was deleted"));
    t.keys(&["j", "j"]);
    let s = t.wait("the cursor to move", |s| s.contains("0x8 / 0xe4d"));
    assert!(s.contains("file deleted"), "{s}");
    t.keys(&["q"]);
}
