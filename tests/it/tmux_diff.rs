//! fwview A B in a real terminal: two trees side by side, marks, the
//! change keys. Skipped where tmux is not installed.

use crate::common;

use common::tmux::Tmux;

/// fwview on two files in a terminal of `w` by `h`.
fn two(a: &std::path::Path, b: &std::path::Path, w: u16, h: u16) -> Option<Tmux> {
    let cmd = format!(
        "{} {} {}",
        env!("CARGO_BIN_EXE_fwview"),
        a.display(),
        b.display()
    );
    Tmux::start(&cmd, w, h)
}

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
    assert!(row.starts_with("│    ▶   [0] NODEDESC"), "{row}");
    let row = line_with(&s, "[3] ELF");
    assert!(row.starts_with("│    ▶ ~ [3] ELF"), "{row}");
    assert!(
        row.contains("[0x1554+0x2578c]") && row.contains("[0x1554+0x466e0]"),
        "{row}"
    );

    // c: the first change is sector 1, whose image grew by one byte.
    t.keys(&["c"]);
    let s = t.wait("the first change", |s| s.contains("0x28 / 0x2bf44"));
    assert!(s.contains("[1] ELF  node 0, tile 0, 5355-byte"), "{s}");
    // The next change opens what holds it.
    t.keys(&["c"]);
    let s = t.wait("padding length", |s| s.contains("padding length  1"));
    let row = line_with(&s, "padding length");
    assert_eq!(
        row.matches("~ padding length [0x34+0x1]").count(),
        2,
        "{row}"
    );
    // The other file's padding, with the keys there.
    t.keys(&["C-w"]);
    t.wait("B's padding", |s| s.contains("padding length  0"));
    // C goes back, in B as in A.
    t.keys(&["C"]);
    t.wait("back on sector 1", |s| s.contains("5356-byte ELF image"));

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
    assert_eq!(row.matches("~ m_uniqueId").count(), 2, "{row}");
    t.keys(&["c"]);
    let s = t.wait("the changed field in hex", |s| {
        s.contains("m_uniqueId  0x00000000611e2fdc")
    });
    let row = line_with(&s, "00000128  dc 2f");
    assert!(row.contains("00000128  23 2f"), "{s}");
    // The differing byte is marked so that it reads without colour:
    // reversed, in B's pane too, where the cursor is only underlined.
    let esc = t.out(&["capture-pane", "-p", "-e", "-t", "t"]);
    let line = esc.lines().find(|l| l.contains("00000128")).unwrap_or("");
    let b = line.rsplit("00000128").next().unwrap_or("");
    assert!(
        b.contains("\x1b[7m") || b.contains(";7m") || b.contains(";7;"),
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
        !["▼ ~", "▶ ~", "▼ +", "▶ +", "▼ -", "▶ -", "      ~ "]
            .iter()
            .any(|m| s.contains(m)),
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
    let Some(t) = two(&a, &b, 80, 24) else {
        return;
    };
    let s = t.wait("the hex panes", |s| s.contains("xclb "));
    assert!(s.contains("color_threshold"), "{s}");
    assert!(s.contains("edge_detect"), "{s}");
    assert_eq!(s.matches("78 63 6c 62  xclb ").count(), 2, "{s}");
}

/// Waits for the pane's program to end.
fn wait_dead(t: &Tmux) {
    let start = std::time::Instant::now();
    while t.var("#{pane_dead}") != "1" {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "did not quit:\n{}",
            t.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn alive(t: &Tmux) -> bool {
    std::thread::sleep(std::time::Duration::from_millis(300));
    t.var("#{pane_dead}") != "1"
}

/// The status bar (the last line).
fn status(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

/// A left click at a screen cell (0-based), as the terminal sends it.
fn click(t: &Tmux, x: u16, y: u16) {
    t.text(&format!("\x1b[<0;{};{}M", x + 1, y + 1));
    t.text(&format!("\x1b[<0;{};{}m", x + 1, y + 1));
}

/// Two files take the keys, prompts, help and mouse of one: Esc and `/`
/// then Esc do not quit, `?` shows the help, `g` goes to an offset, `/`
/// finds, a click selects in the pane clicked, `q` quits.
fn two_files_take_the_keys_of_one(w: u16, h: u16) {
    let a = common::asset("xclbin/riallto__color_threshold_v1_720p.xclbin");
    let b = common::asset("xclbin/riallto__edge_detect_720p.xclbin");
    let Some(t) = two(&a, &b, w, h) else {
        return;
    };
    t.wait("the diff counts", |s| s.contains("~278 changed"));
    t.keys(&["Escape"]);
    let s = t.wait("Esc answered", |s| s.contains("nothing to close"));
    assert!(alive(&t), "{s}");
    t.keys(&["/"]);
    t.wait("the search prompt", |s| s.contains("Search"));
    t.keys(&["Escape"]);
    let s = t.wait("the prompt closed", |s| !s.contains("Search"));
    assert!(alive(&t), "{s}");
    t.keys(&["?"]);
    t.wait("the help", |s| s.contains("Keys (Esc closes"));
    t.keys(&["Escape"]);
    t.wait("the help closed", |s| !s.contains("Keys (Esc closes"));
    assert!(alive(&t));
    // A click on B's second tree row (magic) selects it there and gives
    // B the keys.
    click(&t, w / 2 + 8, 2);
    let s = t.wait("the row clicked", |s| s.contains("magic  \"xclbin2\""));
    if w >= 80 {
        assert!(status(&s).contains("edge_detect"), "{s}");
    }
    // g: the cursor at 0x40, in m_keyBlock.
    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to"));
    t.text("0x40");
    t.keys(&["Enter"]);
    let s = t.wait("the cursor at 0x40", |s| s.contains("00000040  ff"));
    assert!(s.contains("m_keyBlock  ff ff"), "{s}");
    // /: a node by name.
    t.keys(&["/"]);
    t.wait("the search prompt", |s| s.contains("Search"));
    t.text("n:m_uniqueId");
    t.keys(&["Enter"]);
    t.wait("m_uniqueId found", |s| s.contains("m_uniqueId  0x00"));
    t.keys(&["q"]);
    wait_dead(&t);
}

#[test]
fn two_files_take_the_keys_of_one_at_80x24() {
    two_files_take_the_keys_of_one(80, 24);
}

#[test]
fn two_files_take_the_keys_of_one_at_40x10() {
    two_files_take_the_keys_of_one(40, 10);
}

/// Either file rewritten: it is parsed again and the two are compared again.
#[test]
fn two_files_reload_when_one_changes() {
    let a = common::asset("xclbin/pynq__pl_server_default.xclbin");
    let dir = tempfile::tempdir().unwrap();
    let orig = std::fs::read(&a).unwrap();
    let (fa, fb) = (dir.path().join("a.xclbin"), dir.path().join("b.xclbin"));
    std::fs::write(&fa, &orig).unwrap();
    std::fs::write(&fb, &orig).unwrap();
    let Some(t) = two(&fa, &fb, 80, 24) else {
        return;
    };
    t.wait("the diff answer", |s| s.contains("no difference"));
    // B rewritten with m_uniqueId's low byte changed.
    let mut b = orig.clone();
    b[0x128] ^= 0xff;
    let tmp = dir.path().join("new");
    std::fs::write(&tmp, &b).unwrap();
    std::fs::rename(&tmp, &fb).unwrap();
    let s = t.wait("the new diff", |s| s.contains("~1 changed"));
    assert!(s.contains("reloaded: ~1 changed"), "{s}");
    assert!(s.contains("~1 changed  +0 added  -0 removed"), "{s}");
    assert_eq!(
        line_with(&s, "m_uniqueId").matches("~ m_uniqueId").count(),
        2,
        "{s}"
    );
    // A rewritten the same way: no difference again.
    std::fs::write(&fa, &b).unwrap();
    t.wait("no difference again", |s| s.contains("no difference"));
    t.keys(&["q"]);
    wait_dead(&t);
}

/// A plain bundle against the compressed bundle of another build: the rows
/// that pair through the container are marked on both sides (the plain
/// side's entries too, whose addresses the compressed side's changes do
/// not share), and the partner of the selection sits on the same screen
/// line though the compressed side has three rows more above it.
fn plain_and_compressed_builds_side_by_side(w: u16, h: u16) {
    if !common::tool("clang-22") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (plain, comp) = crate::diff_pairs::plain_and_compressed(tmp.path());
    let Some(t) = two(&plain, &comp, w, h) else {
        return;
    };
    t.wait("the diff counts", |s| s.contains(" changed  +"));
    // The root's rows: magic, entry count, entries, padding, the host
    // entry, then the gfx90a entry.
    t.keys(&["j", "j", "j", "j", "j", "j"]);
    // On one screen line: the plain side's entry, marked, and its partner
    // inside the compressed side's inflated bundle, marked.
    let s = t.wait("the two gfx90a entries on one line", |s| {
        line_with(s, "▶ ~ hipv4-a").matches("▶ ~ hipv4-a").count() == 2
    });
    let row = line_with(&s, "▶ ~ hipv4-a");
    let a_part = row.split("││").next().unwrap_or("");
    assert!(a_part.starts_with("│  ▶ ~ hipv4-a"), "{row}\n{s}");
    assert!(row.contains("│      ▶ ~ hipv4-a"), "{row}\n{s}");
    t.keys(&["q"]);
}

#[test]
fn plain_and_compressed_builds_side_by_side_at_80x24() {
    plain_and_compressed_builds_side_by_side(80, 24);
}

#[test]
fn plain_and_compressed_builds_side_by_side_at_40x10() {
    plain_and_compressed_builds_side_by_side(40, 10);
}
