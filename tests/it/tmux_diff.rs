//! fwview A B in a real terminal: two trees side by side, marks, the
//! change keys. Skipped where tmux is not installed.

use crate::common;

use common::tmux::Tmux;

fn line_with<'a>(s: &'a str, what: &str) -> &'a str {
    s.lines().find(|l| l.contains(what)).unwrap_or("")
}

#[test]
fn two_xe_builds_side_by_side() {
    let a = common::asset("xmos/UltranetReceiver__bin_Debug_Ultranet_Receiver_Debug.xe")
        .display()
        .to_string();
    let b = common::asset("xmos/UltranetReceiver__bin_Release_Ultranet_Receiver.xe")
        .display()
        .to_string();
    let cmd = format!("{} {a} {b}", env!("CARGO_BIN_EXE_fwview"));
    let Some(t) = Tmux::start(&cmd, 200, 40) else {
        return;
    };
    t.wait("the diff counts", |s| s.contains(" changed  +"));
    // Open the sector list (the third row).
    t.keys(&["j", "j", "l"]);
    let s = t.wait("the sectors", |s| s.contains("[0] NODEDESC"));
    // Both files, the sectors aligned row by row.
    assert!(s.contains("Debug_Ultranet_Receiver_Debug.xe"), "{s}");
    assert!(s.contains("Release_Ultranet_Receiver.xe"), "{s}");
    let row = line_with(&s, "[0] NODEDESC");
    assert_eq!(row.matches("[0] NODEDESC").count(), 2, "{s}");
    // The same sector on both sides: blank sign column.
    assert!(row.starts_with("│      ▶"), "{row}");
    let row = line_with(&s, "[3] ELF");
    assert!(row.starts_with("│~"), "{row}");
    assert!(
        row.contains("153450-byte") && row.contains("288446-byte"),
        "{row}"
    );

    // ]c: the first change is sector 1, whose image grew by one byte.
    t.keys(&["]", "c"]);
    let s = t.wait("the first change", |s| s.contains("00000028  02 00"));
    assert_eq!(s.matches("00000028  02 00").count(), 2, "{s}");
    // The next change opens what holds it.
    t.keys(&["]", "c"]);
    let s = t.wait("padding length", |s| s.contains("padding length"));
    let row = line_with(&s, "padding length");
    assert!(row.starts_with("│~"), "{row}");
    assert!(
        row.contains("length [0x34+0x1] 1") && row.contains("length [0x34+0x1] 0"),
        "{row}"
    );
    // [c goes back.
    t.keys(&["[", "c"]);
    t.wait("back on sector 1", |s| {
        s.contains("00000028  02 00") && !s.contains("00000034  01")
    });

    // = shows only what differs: sector 0 is the same on both sides.
    t.keys(&["="]);
    let s = t.wait("only changes", |s| s.contains("only changes"));
    assert!(!s.contains("[0] NODEDESC"), "{s}");
    assert!(s.contains("[3] ELF"), "{s}");
    t.keys(&["q"]);
}

#[test]
fn one_changed_byte_and_a_file_against_itself() {
    let a = common::asset("xclbin/pynq__pl_server_default.xclbin")
        .display()
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.xclbin");
    let mut bytes = std::fs::read(&a).unwrap();
    // m_uniqueId's low byte.
    bytes[0x128] ^= 0xff;
    std::fs::write(&b, &bytes).unwrap();
    let cmd = format!("{} {a} {}", env!("CARGO_BIN_EXE_fwview"), b.display());
    let Some(t) = Tmux::start(&cmd, 160, 36) else {
        return;
    };
    let s = t.wait("the diff counts", |s| s.contains(" changed  +"));
    assert!(s.contains("~1 changed  +0 added  -0 removed"), "{s}");
    let row = line_with(&s, "m_uniqueId");
    assert!(row.starts_with("│~"), "{row}");
    assert!(
        row.contains("0x00000000611e2fdc") && row.contains("0x00000000611e2f23"),
        "{row}"
    );
    t.keys(&["]", "c"]);
    let s = t.wait("the changed field in hex", |s| {
        s.contains("00000128  dc 2f")
    });
    assert!(s.contains("00000128  23 2f"), "{s}");
    // The differing byte is marked so that it reads without colour: reversed.
    let esc = t.out(&["capture-pane", "-p", "-e", "-t", "t"]);
    let line = esc.lines().find(|l| l.contains("00000128")).unwrap_or("");
    assert!(
        line.contains("\x1b[7m") || line.contains(";7m") || line.contains(";7;"),
        "{line:?}"
    );
    t.keys(&["q"]);
    drop(t);

    let cmd = format!("{} {a} {a}", env!("CARGO_BIN_EXE_fwview"));
    let Some(t) = Tmux::start(&cmd, 160, 36) else {
        return;
    };
    let s = t.wait("the diff answer", |s| s.contains("no difference"));
    assert!(
        !s.lines()
            .any(|l| l.starts_with("│~") || l.starts_with("│+") || l.starts_with("│-")),
        "{s}"
    );
    t.keys(&["q"]);
}

#[test]
fn reload_when_the_file_is_rewritten() {
    let a = common::asset("xclbin/pynq__pl_server_default.xclbin")
        .display()
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("watched.xclbin");
    let orig = std::fs::read(&a).unwrap();
    std::fs::write(&f, &orig).unwrap();
    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_fwview"), f.display());
    let Some(t) = Tmux::start(&cmd, 160, 30) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("m_uniqueId"));
    // Select m_uniqueId (the sixth row).
    t.keys(&["j", "j", "j", "j", "j"]);
    t.wait("m_uniqueId selected", |s| s.contains("0x128 / 0xe4d"));

    // A new file renamed over the old one.
    let mut b = orig.clone();
    b[0x128] ^= 0xff;
    let tmp = dir.path().join("new");
    std::fs::write(&tmp, &b).unwrap();
    std::fs::rename(&tmp, &f).unwrap();
    let s = t.wait("the reload", |s| s.contains("reloaded:"));
    assert!(
        s.contains("reloaded: ~1 changed  +0 added  -0 removed"),
        "{s}"
    );
    assert!(s.contains("0x00000000611e2f23"), "{s}");
    // The selection stayed on the same address.
    assert!(s.contains("0x128 / 0xe4d"), "{s}");
    // The changed row carries the diff's sign, its neighbours none.
    let row = |s: &str, name: &str| {
        s.lines()
            .find(|l| l.contains(name) && l.contains("[0x"))
            .map(str::to_string)
            .unwrap_or_default()
    };
    assert!(row(&s, "m_uniqueId").contains("~ m_uniqueId"), "{s}");
    assert!(!row(&s, "m_keyBlock").contains("~ "), "{s}");
    // Esc clears the marks.
    t.keys(&["Escape"]);
    let s = t.wait("marks cleared", |s| s.contains("reload marks cleared"));
    assert!(!row(&s, "m_uniqueId").contains("~ m_uniqueId"), "{s}");

    // Truncated and rewritten in place, shorter than before.
    std::fs::write(&f, orig.get(..1000).unwrap()).unwrap();
    let s = t.wait("the second reload", |s| s.contains("0x128 / 0x3e8"));
    assert!(s.contains("reloaded: ~"), "{s}");
    assert!(s.contains("0x00000000611e2fdc"), "{s}");
    // Still alive: a key still answers.
    t.keys(&["q"]);
}

/// At 80x24 the titles keep the part of the names that differs, and the
/// hex panes take as many bytes a row as their text column shows whole.
#[test]
fn two_files_at_80_columns() {
    let a = common::asset("xclbin/riallto__color_threshold_v1_720p.xclbin");
    let b = common::asset("xclbin/riallto__edge_detect_720p.xclbin");
    let cmd = format!(
        "{} {} {}",
        env!("CARGO_BIN_EXE_fwview"),
        a.display(),
        b.display()
    );
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    let s = t.wait("the hex panes", |s| s.contains("A bytes"));
    assert!(s.contains("color_threshold"), "{s}");
    assert!(s.contains("edge_detect"), "{s}");
    assert_eq!(s.matches("78 63 6c 62  xclb ").count(), 2, "{s}");
}
