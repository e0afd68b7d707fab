//! Search, links, jump history, the data inspector, marks, the diagnostics
//! list, copy and save, driven through TestBackend.

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use fwview::model::{Builder, Format, NodeId, Source, Span, Tree};
use fwview::tui::{handle_event, popup::Popup, theme, ui, App, Message};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;

/// header [0,16) { magic [0,4) "FWV1", count [4,8) -> table }, table
/// [16,48) { [0] [16,32) "vadd", [1] [32,48) "scale" }, blob [48, len).
fn toy(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    let h = b.group(p, "header", 0, 16);
    b.leaf(h, "magic", 0, 4, "\"FWV1\"");
    let c = b.leaf(h, "count", 4, 4, "2");
    b.link(c, b.span(16, 32));
    let t = b.group(p, "table", 16, 32);
    b.leaf(t, "[0] vadd", 16, 16, "kernel vadd");
    b.leaf(t, "[1] scale", 32, 16, "kernel scale");
    b.group(p, "blob", 48, len - 48);
    b.warn(40, 2, "an odd byte");
    b.error(60, 4, "a bad word");
    Some(Format::Json)
}

fn bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    v[..4].copy_from_slice(b"FWV1");
    v[4] = 2;
    v[16..20].copy_from_slice(b"vadd");
    v[32..37].copy_from_slice(b"scale");
    for (i, at) in [100usize, 200, 300].into_iter().enumerate() {
        v[at..at + 4].copy_from_slice(&[0xde, i as u8, 0xbe, 0xef]);
    }
    v[400..404].copy_from_slice(b"VADD");
    v
}

fn toy_tree(src: Arc<Source>, name: &str, _options: fwview::model::Options) -> Tree {
    Tree::build(src, name, toy)
}

fn app_of(v: Vec<u8>) -> App {
    let tree = toy_tree(
        Arc::new(Source::from_vec(v)),
        "toy.bin",
        fwview::model::Options::default(),
    );
    let mut app = App::new(tree, "toy.bin");
    app.rebuild = toy_tree;
    app
}

fn draw(app: &mut App) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(140, 40)).unwrap();
    t.draw(|f| ui::render(app, f)).unwrap();
    t.backend().buffer().clone()
}

fn screen(app: &mut App) -> String {
    let b = draw(app);
    let mut s = String::new();
    for y in 0..b.area.height {
        for x in 0..b.area.width {
            s.push_str(b[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

fn press(app: &mut App, code: KeyCode, m: KeyModifiers) {
    handle_event(app, Event::Key(KeyEvent::new(code, m)));
}
fn key(app: &mut App, code: KeyCode) {
    press(app, code, KeyModifiers::NONE);
}
fn typ(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}
fn search(app: &mut App, q: &str) {
    typ(app, "/");
    typ(app, q);
    key(app, KeyCode::Enter);
}
fn name(app: &App) -> String {
    app.doc.tree.name(app.selected).to_string()
}

#[test]
fn text_search_finds_walks_and_wraps() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    search(&mut app, "vadd");
    assert_eq!(app.cursor, 16);
    assert_eq!(name(&app), "[0] vadd");
    assert!(screen(&mut app).contains("match 1 of 1"));
    // Ctrl-t in the prompt: any case.
    typ(&mut app, "/");
    press(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert!(!app.case_sensitive);
    assert!(screen(&mut app).contains("any case"));
    typ(&mut app, "vadd");
    key(&mut app, KeyCode::Enter);
    let st = app.search.as_ref().unwrap();
    assert_eq!(st.matches, [16, 400]);
    // From the cursor (16) the first match is the one under it.
    assert_eq!(app.cursor, 16);
    typ(&mut app, "n");
    assert_eq!(app.cursor, 400);
    assert!(screen(&mut app).contains("match 2 of 2"));
    typ(&mut app, "n");
    assert_eq!(app.cursor, 16, "n wraps to the first match");
    assert!(screen(&mut app).contains("wrapped"));
    typ(&mut app, "N");
    assert_eq!(app.cursor, 400, "N wraps to the last match");
}

#[test]
fn hex_search_with_wildcards_highlights_visible_matches() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    search(&mut app, "x:de ?? be ef");
    assert_eq!(app.search.as_ref().unwrap().matches, [100, 200, 300]);
    assert_eq!(app.cursor, 100);
    typ(&mut app, "n");
    assert_eq!(app.cursor, 200);
    // Every match on screen is shaded; the cursor's row is shown.
    let buf = draw(&mut app);
    let h = app.view.hex_inner;
    let top = app.hex_top * 16;
    for m in [200u64, 300] {
        if m >= top && m < top + 16 * u64::from(h.height) {
            let row = (m - top) / 16;
            let col = 10 + (m % 16) * 3 + (m % 16) / 8;
            let cell = &buf[(h.x + col as u16 + 1, h.y + row as u16)];
            let line: String = (0..140)
                .map(|x| buf[(x, h.y + row as u16)].symbol().to_string())
                .collect();
            assert_eq!(
                cell.bg,
                theme::MATCH_BG,
                "match at {m}: {line} col {col} top {top}"
            );
        }
    }
    // A bad pattern says why and keeps the last search.
    search(&mut app, "x:zz");
    assert!(screen(&mut app).contains("not a hex byte"));
    assert_eq!(app.search.as_ref().unwrap().matches.len(), 3);
}

#[test]
fn node_search_selects_matching_nodes() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    search(&mut app, "n:kernel");
    assert_eq!(name(&app), "[0] vadd");
    typ(&mut app, "n");
    assert_eq!(name(&app), "[1] scale");
    assert_eq!(app.cursor, 32);
    typ(&mut app, "n");
    assert_eq!(name(&app), "[0] vadd");
    search(&mut app, "n:nothing-like-this");
    assert!(screen(&mut app).contains("no match"));
    // Text that is in no byte, only in a node's name: the message says
    // where to look.
    search(&mut app, "0] vadd");
    let m = app
        .message
        .as_ref()
        .map(|m| m.0.clone())
        .unwrap_or_default();
    assert!(m.contains("n:0] vadd looks in node names"), "{m}");
}

#[test]
fn follow_back_and_forward() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "jll]"); // header, open, magic, count
    assert_eq!(name(&app), "count");
    assert!(screen(&mut app).contains("Enter follows"));
    typ(&mut app, "f");
    assert_eq!(name(&app), "table");
    assert_eq!(app.cursor, 16);
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(name(&app), "count");
    assert_eq!(app.cursor, 4);
    press(&mut app, KeyCode::Char('n'), KeyModifiers::CONTROL);
    assert_eq!(name(&app), "table");
    // A goto is a jump too; going back twice returns to count.
    typ(&mut app, "g");
    typ(&mut app, "0x30");
    key(&mut app, KeyCode::Enter);
    assert_eq!(name(&app), "blob");
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(name(&app), "table");
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(name(&app), "count");
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert!(screen(&mut app).contains("no earlier jump"));
    // Enter follows as f does.
    key(&mut app, KeyCode::Enter);
    assert_eq!(name(&app), "table");
    // A search hit is recorded.
    search(&mut app, "scale");
    assert_eq!(app.cursor, 32);
    press(&mut app, KeyCode::Left, KeyModifiers::ALT);
    assert_eq!(app.cursor, 16);
}

#[test]
fn the_inspector_shows_the_cursor_bytes() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "i");
    let s = screen(&mut app);
    assert!(s.contains("Inspector (LE first"), "{s}");
    // "FWV1" as a little-endian u32.
    let le = u32::from_le_bytes(*b"FWV1").to_string();
    let be = u32::from_be_bytes(*b"FWV1").to_string();
    let row = |s: &str, a: &str, b: &str| {
        s.lines()
            .any(|l| l.contains(&format!("u32    {a} ")) && l.contains(&format!(": {b} ")))
    };
    assert!(row(&s, &le, &be), "{s}");
    assert!(s.contains("char 'F' U+0046"));
    typ(&mut app, "e");
    let s = screen(&mut app);
    assert!(s.contains("Inspector (BE first"));
    assert!(row(&s, &be, &le), "{s}");
    typ(&mut app, "i");
    assert!(!screen(&mut app).contains("Inspector"));
}

#[test]
fn marks_set_jump_and_list() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "g");
    typ(&mut app, "200");
    key(&mut app, KeyCode::Enter);
    typ(&mut app, "ma");
    typ(&mut app, "g");
    typ(&mut app, "0x10");
    key(&mut app, KeyCode::Enter);
    typ(&mut app, "mb");
    typ(&mut app, "gg"); // "g" then "g" typed in the prompt
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Home);
    typ(&mut app, "'a");
    assert_eq!(app.cursor, 200);
    typ(&mut app, "'z");
    assert!(screen(&mut app).contains("no mark z"));
    typ(&mut app, "M");
    let s = screen(&mut app);
    assert!(
        s.contains("Marks") && s.contains(" a ") && s.contains("0xc8") && s.contains("0x10"),
        "{s}"
    );
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, 0x10);
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(app.cursor, 200, "a mark jump is undone by Ctrl-o");
}

#[test]
fn the_diagnostics_list_jumps_and_the_status_counts() {
    let mut app = app_of(bytes(1000));
    let s = screen(&mut app);
    assert!(s.contains("1 error") && s.contains("1 warning"), "{s}");
    // The bytes a diagnostic is about are shaded (row 3, byte 12 = 60).
    let buf = draw(&mut app);
    let h = app.view.hex_inner;
    assert_eq!(buf[(h.x + 10 + 12 * 3 + 1, h.y + 3)].bg, theme::DIAG_BG);
    assert_ne!(buf[(h.x + 10 + 11 * 3 + 1, h.y + 3)].bg, theme::DIAG_BG);
    typ(&mut app, "!");
    let s = screen(&mut app);
    assert!(s.contains("an odd byte") && s.contains("a bad word"));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, 60);
    assert_eq!(name(&app), "blob");
    assert!(screen(&mut app).contains("error: a bad word"));
}

#[test]
fn copy_puts_text_on_the_clipboard() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "jll"); // header/magic
    typ(&mut app, "yo");
    assert_eq!(app.clipboard.take().as_deref(), Some("0x0"));
    assert!(screen(&mut app).contains("copied offset 0x0"));
    typ(&mut app, "yv");
    assert_eq!(app.clipboard.take().as_deref(), Some("\"FWV1\""));
    typ(&mut app, "yb");
    assert_eq!(app.clipboard.take().as_deref(), Some("46 57 56 31"));
    typ(&mut app, "yp");
    assert_eq!(app.clipboard.take().as_deref(), Some("header/magic"));
    typ(&mut app, "h"); // header has no value
    typ(&mut app, "yv");
    assert!(app.clipboard.is_none());
    assert!(screen(&mut app).contains("no value"));
}

#[test]
fn save_writes_the_node_and_asks_before_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("table.bin");
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "jj"); // table
    typ(&mut app, "x");
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert_eq!(std::fs::read(&out).unwrap(), &bytes(1000)[16..48]);
    std::fs::write(&out, b"keep").unwrap();
    typ(&mut app, "x");
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert!(screen(&mut app).contains("exists. Overwrite it? y/n"));
    typ(&mut app, "n");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    typ(&mut app, "x");
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    typ(&mut app, "y");
    assert_eq!(std::fs::read(&out).unwrap(), &bytes(1000)[16..48]);
}

/// Pumps background messages into the app until `done` holds.
fn pump(app: &mut App, rx: &mpsc::Receiver<Message>, done: impl Fn(&App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "background search did not finish"
        );
        if let Ok(m) = rx.recv_timeout(Duration::from_millis(50)) {
            app.on_message(m);
        }
    }
}

#[test]
fn big_files_are_searched_in_the_background() {
    let mut v = bytes(64 << 20);
    let at = (40 << 20) + 3;
    v[at..at + 4].copy_from_slice(b"vadd");
    let mut app = app_of(v);
    let (tx, rx) = mpsc::channel();
    app.tx = Some(tx);
    draw(&mut app);
    search(&mut app, "vadd");
    assert!(app.search.as_ref().unwrap().running.is_some());
    // The UI keeps answering while the search runs.
    typ(&mut app, "j");
    let _ = screen(&mut app);
    pump(&mut app, &rx, |a| {
        a.search.as_ref().is_some_and(|s| s.running.is_none())
    });
    assert_eq!(app.search.as_ref().unwrap().matches, [16, at as u64]);
    assert!(screen(&mut app).contains("match"));
    // Esc cancels a running search instead of quitting.
    search(&mut app, "x:ff ff ff ff");
    key(&mut app, KeyCode::Esc);
    assert!(!app.quit);
    pump(&mut app, &rx, |a| {
        a.search.as_ref().is_some_and(|s| s.running.is_none())
    });
    assert!(
        !app.search.as_ref().unwrap().complete || app.search.as_ref().unwrap().matches.is_empty()
    );
    assert!(matches!(app.popup, None | Some(Popup::Help { .. })));
}

/// `--find`'s lines: offset and address of every node match.
fn find_cli(q: &str, file: &std::path::Path) -> Vec<(u64, String)> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fwview"))
        .args(["--find", q])
        .arg(file)
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (off, path) = l.split_once("  ").unwrap();
            let off = u64::from_str_radix(off.trim_start_matches("0x"), 16).unwrap();
            (off, path.to_string())
        })
        .collect()
}

#[test]
fn node_search_runs_in_the_background_and_lands_on_each_repeated_element() {
    // The metadata repeats <arg> and @name under each <kernel>: every match
    // must land on its own node, not the first of its name.
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/xclbin/riallto__color_threshold_v1_720p.xclbin");
    for q in ["n:<arg>", "n:@name"] {
        let want = find_cli(q, &file);
        assert!(want.len() >= 6, "{q}: {want:?}");
        let src = Arc::new(Source::open(&file).unwrap());
        let tree = fwview::formats::build_tree(src, "color_threshold.xclbin");
        let mut app = App::new(tree, "color_threshold.xclbin");
        let (tx, rx) = mpsc::channel();
        app.tx = Some(tx);
        draw(&mut app);
        search(&mut app, q);
        assert!(app.search.as_ref().unwrap().running.is_some());
        pump(&mut app, &rx, |a| {
            a.search.as_ref().is_some_and(|s| s.running.is_none())
        });
        assert_eq!(app.search.as_ref().unwrap().count(), want.len(), "{q}");
        for (k, (off, path)) in want.iter().enumerate() {
            if k > 0 {
                typ(&mut app, "n");
            }
            let n = app.doc.tree.node(app.selected).unwrap();
            assert_eq!(
                (n.offset, app.doc.tree.path_string(app.selected)),
                (*off, path.clone()),
                "{q}: match {}",
                k + 1
            );
            assert_eq!(app.cursor, *off);
            let s = screen(&mut app);
            assert!(
                s.contains(&format!("match {} of {}", k + 1, want.len())),
                "{q}: match {}:\n{s}",
                k + 1
            );
        }
        // n from the last wraps to the first; N from there to the last.
        typ(&mut app, "n");
        assert_eq!(app.cursor, want[0].0, "{q}");
        typ(&mut app, "N");
        let last = want.last().unwrap();
        assert_eq!(app.cursor, last.0, "{q}");
    }
}

/// A long write runs in the background with its progress in the status
/// bar; Esc cancels it and no half-written file is left.
#[test]
fn long_writes_run_in_the_background_and_esc_cancels_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("blob.bin");
    let mut app = app_of(bytes(256 << 20));
    let (tx, rx) = mpsc::channel();
    app.tx = Some(tx);
    draw(&mut app);
    typ(&mut app, "jjj"); // blob: the rest of the file
    assert_eq!(name(&app), "blob");
    typ(&mut app, "x");
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert!(app.writing.is_some(), "the write runs in the background");
    let s = screen(&mut app);
    assert!(s.contains("writing ") && s.contains("(Esc cancels)"), "{s}");
    key(&mut app, KeyCode::Esc);
    assert!(!app.quit);
    pump(&mut app, &rx, |a| a.writing.is_none());
    assert!(screen(&mut app).contains("write cancelled"));
    assert!(!out.exists(), "the partial file is removed");
    // Left alone, it finishes and says so.
    typ(&mut app, "x");
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |a| a.writing.is_none());
    assert!(screen(&mut app).contains("wrote 268435408 bytes"));
    assert_eq!(std::fs::metadata(&out).unwrap().len(), (256 << 20) - 48);
}

/// `x` offers the node's name as a file name, takes `~` for the home
/// directory, names the path in its errors and refuses a directory before
/// asking about overwriting.
#[test]
fn the_write_prompt_suggests_a_name_and_checks_the_path() {
    let home = tempfile::tempdir().unwrap();
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "jj"); // table
    typ(&mut app, "x");
    let s = screen(&mut app);
    assert!(s.contains("table.bin"), "{s}");
    // A directory: refused, and the path named.
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, home.path().to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    let s = screen(&mut app);
    assert!(!s.contains("Overwrite"), "{s}");
    assert!(
        s.contains(&format!("{} is a directory", home.path().display())),
        "{s}"
    );
    // A missing directory: the error names the path.
    typ(&mut app, "x");
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, "/nonexistent-dir/t.bin");
    key(&mut app, KeyCode::Enter);
    assert!(screen(&mut app).contains("cannot write /nonexistent-dir/t.bin"));
    // ~ is the home directory (HOME is read when the path is typed).
    let want = fwview::tui::write::expand_home("~/t.bin");
    if let Some(h) = std::env::var_os("HOME") {
        assert_eq!(want, std::path::Path::new(&h).join("t.bin"));
    }
    assert_eq!(
        fwview::tui::write::expand_home("a/~/b"),
        std::path::Path::new("a/~/b")
    );
    // The suggestion, accepted as it is, is written in the working
    // directory: here, under a path typed before it.
    typ(&mut app, "x");
    key(&mut app, KeyCode::Home);
    typ(&mut app, &format!("{}/", home.path().display()));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        std::fs::read(home.path().join("table.bin")).unwrap(),
        &bytes(1000)[16..48]
    );
}

/// `match k of m` is shown after n and goes away at the next move; a wrap
/// says so.
#[test]
fn the_match_count_clears_on_the_next_move() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    typ(&mut app, "/");
    press(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL);
    typ(&mut app, "vadd");
    key(&mut app, KeyCode::Enter);
    assert!(screen(&mut app).contains("match 1 of 2"));
    typ(&mut app, "j");
    assert!(!screen(&mut app).contains("match 1 of"));
    typ(&mut app, "n");
    assert!(screen(&mut app).contains("match 2 of 2"));
    typ(&mut app, "n");
    let s = screen(&mut app);
    assert!(s.contains("search wrapped: back at the first match"), "{s}");
    assert!(s.contains("match 1 of 2"), "{s}");
}

/// The file offset of virtual address `addr` of an executable, as the
/// object crate maps it through the sections.
fn file_offset_of(exe: &[u8], addr: u64) -> Option<u64> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(exe).ok()?;
    f.sections().find_map(|s| {
        let (off, size) = s.file_range()?;
        (addr >= s.address() && addr - s.address() < size).then(|| off + (addr - s.address()))
    })
}

/// `g` takes more than offsets: a virtual address (`v:`), a node address
/// as `y p` copies it, a name (mangled or as it demangles), and Tab
/// completes a node address.
#[test]
fn goto_takes_a_virtual_address_a_name_and_a_node_address() {
    use std::process::Command;
    if !super::common::tool("g++") || !super::common::tool("nm") {
        return;
    }
    let dir = super::common::scratch();
    let src = dir.path().join("p.cc");
    std::fs::write(
        &src,
        "int counter;\n\
         namespace ns { int bar(int x) { counter += x; return x * 3; } }\n\
         int main(int c, char**) { return ns::bar(c); }\n",
    )
    .unwrap();
    let exe = dir.path().join("p");
    let ok = Command::new("g++")
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .unwrap();
    assert!(ok.success());
    let nm = Command::new("nm").arg(&exe).output().unwrap();
    let nm = String::from_utf8_lossy(&nm.stdout).to_string();
    let addr_of = |sym: &str| -> u64 {
        let line = nm
            .lines()
            .find(|l| l.split_whitespace().last() == Some(sym))
            .unwrap_or_else(|| panic!("{sym} not in nm's list:\n{nm}"));
        u64::from_str_radix(line.split_whitespace().next().unwrap(), 16).unwrap()
    };
    let bytes = std::fs::read(&exe).unwrap();
    let bar = addr_of("_ZN2ns3barEi");
    let want = file_offset_of(&bytes, bar).expect("bar in a section");

    let tree = fwview::formats::build_tree(Arc::new(Source::open(&exe).unwrap()), "p");
    let mut app = App::new(tree, "p");
    draw(&mut app);
    // A virtual address: the cursor on the function's first byte.
    typ(&mut app, &format!("gv:0x{bar:x}"));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, want, "{:?}", app.message);
    // An address in .bss has no bytes in the file: said, not moved.
    typ(&mut app, &format!("gv:{:x}", addr_of("counter")));
    key(&mut app, KeyCode::Enter);
    let m = app.message.clone().unwrap_or_default().0;
    assert!(m.contains("no section or segment"), "{m}");
    assert_eq!(app.cursor, want);
    // Names: as the symbol table has it, and as it demangles.
    for (typed, node) in [
        ("main", "main"),
        ("ns::bar", "_ZN2ns3barEi"),
        ("ns::bar(int)", "_ZN2ns3barEi"),
        ("_ZN2ns3barEi", "_ZN2ns3barEi"),
    ] {
        typ(&mut app, "g0");
        key(&mut app, KeyCode::Enter);
        typ(&mut app, &format!("g{typed}"));
        key(&mut app, KeyCode::Enter);
        assert_eq!(name(&app), node, "g{typed}: {:?}", app.message);
    }
    typ(&mut app, "gno_such_symbol");
    key(&mut app, KeyCode::Enter);
    let m = app.message.clone().unwrap_or_default().0;
    assert!(m.contains("not an offset, an address or the name"), "{m}");
    // A node address, as `y p` copies it, finds that very node.
    let target = app.doc.tree.path_string(app.selected);
    typ(&mut app, "g0");
    key(&mut app, KeyCode::Enter);
    assert_ne!(app.doc.tree.path_string(app.selected), target);
    typ(&mut app, &format!("g{target}"));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.doc.tree.path_string(app.selected), target);
    // Tab completes the last segment of an address, and lists the
    // candidates where several remain.
    typ(&mut app, "gheader/e_ty");
    key(&mut app, KeyCode::Tab);
    let value = |app: &App| match &app.popup {
        Some(Popup::Prompt(p)) => p.value().to_string(),
        other => panic!("no prompt: {other:?}"),
    };
    assert_eq!(value(&app), "header/e_type");
    key(&mut app, KeyCode::Esc);
    typ(&mut app, "gheader/e_sh");
    key(&mut app, KeyCode::Tab);
    assert_eq!(value(&app), "header/e_sh");
    let m = app.message.clone().unwrap_or_default().0;
    assert!(
        m.starts_with("4 e_shentsize e_shnum e_shoff e_shstrndx"),
        "{m}"
    );
    key(&mut app, KeyCode::Esc);
}

/// A relocatable object has no addresses yet: `g v:` says so.
#[test]
fn goto_an_address_in_an_object_says_there_are_none() {
    use std::process::Command;
    if !super::common::tool("gcc") {
        return;
    }
    let dir = super::common::scratch();
    let src = dir.path().join("o.c");
    std::fs::write(&src, "int f(int x) { return x + 1; }\n").unwrap();
    let obj = dir.path().join("o.o");
    let ok = Command::new("gcc")
        .args(["-c", "-o"])
        .arg(&obj)
        .arg(&src)
        .status()
        .unwrap();
    assert!(ok.success());
    let tree = fwview::formats::build_tree(Arc::new(Source::open(&obj).unwrap()), "o.o");
    let mut app = App::new(tree, "o.o");
    draw(&mut app);
    typ(&mut app, "gv:0x0");
    key(&mut app, KeyCode::Enter);
    let m = app.message.clone().unwrap_or_default().0;
    assert!(m.contains("no virtual addresses here"), "{m}");
}

fn shown_names(app: &App) -> Vec<String> {
    app.visible()
        .into_iter()
        .map(|id| app.doc.tree.name(id).to_string())
        .collect()
}

/// `F` shows only the nodes that match and those above them; `Esc` gives
/// the tree back as it was; `!error` keeps the nodes holding errors.
#[test]
fn the_filter_shows_matches_with_their_ancestors_and_esc_clears_it() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    let all = shown_names(&app);
    assert_eq!(all, ["toy.bin", "header", "table", "blob"]);
    typ(&mut app, "Fscale");
    key(&mut app, KeyCode::Enter);
    assert_eq!(shown_names(&app), ["toy.bin", "table", "[1] scale"]);
    assert_eq!(name(&app), "[1] scale");
    let s = screen(&mut app);
    assert!(s.contains("Structure, filter scale (1)"), "{s}");
    // Moving stays among what is shown.
    key(&mut app, KeyCode::Up);
    assert_eq!(name(&app), "table");
    key(&mut app, KeyCode::Esc);
    assert!(app.filter.is_none());
    assert_eq!(shown_names(&app), all, "the tree as before the filter");
    // Diagnostics: the error at 60 is in blob; the warning at 40 in table.
    typ(&mut app, "F!error");
    key(&mut app, KeyCode::Enter);
    assert_eq!(shown_names(&app), ["toy.bin", "blob"]);
    typ(&mut app, "F!warning");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        shown_names(&app),
        ["toy.bin", "table", "[1] scale", "blob"],
        "{:?}",
        app.message
    );
    key(&mut app, KeyCode::Esc);
    // Nothing matches: said, and the tree stays whole.
    typ(&mut app, "Fqqqzzz");
    key(&mut app, KeyCode::Enter);
    assert!(app.filter.is_none());
    let m = app.message.clone().unwrap_or_default().0;
    assert!(m.contains("qqqzzz"), "{m}");
    let shown = shown_names(&app);
    assert!(all.iter().all(|n| shown.contains(n)), "{shown:?}");
}

/// `*` opens a node and everything below it.
#[test]
fn star_opens_the_whole_subtree() {
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    key(&mut app, KeyCode::Char('*'));
    assert_eq!(
        shown_names(&app),
        [
            "toy.bin",
            "header",
            "magic",
            "count",
            "table",
            "[0] vadd",
            "[1] scale",
            "blob"
        ]
    );
    let m = app.message.clone().unwrap_or_default().0;
    assert!(m.starts_with("opened all"), "{m}");
}

/// `v` chooses a range from the cursor; `y b` copies it and `x` writes
/// it instead of the node's bytes; `Esc` ends it.
#[test]
fn a_chosen_range_is_copied_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("range.bin");
    let mut app = app_of(bytes(1000));
    draw(&mut app);
    key(&mut app, KeyCode::Tab); // the hex pane
    typ(&mut app, "lv"); // from 1
    typ(&mut app, "lllll"); // to 6, both included
    assert_eq!(app.visual_range(), Some((1, 7)));
    let s = screen(&mut app);
    assert!(s.contains("range 0x1..0x7 (6 bytes)"), "{s}");
    typ(&mut app, "yb");
    assert_eq!(app.clipboard.take().as_deref(), Some("57 56 31 02 00 00"));
    typ(&mut app, "x");
    match &app.popup {
        Some(Popup::Prompt(p)) => assert!(p.value().contains("0x1-0x7"), "{}", p.value()),
        other => panic!("no prompt: {other:?}"),
    }
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    typ(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert_eq!(std::fs::read(&out).unwrap(), &bytes(1000)[1..7]);
    // Backwards from the start works the same; Esc ends the range.
    typ(&mut app, "hhh");
    assert_eq!(app.visual_range(), Some((1, 4)));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.visual_range(), None);
    typ(&mut app, "yb");
    let node = app.doc.tree.node_bytes(app.selected).len();
    let copied = app.clipboard.take().unwrap_or_default();
    assert_eq!(
        copied.split(' ').count(),
        node.min(65536),
        "the node's bytes again"
    );
}

/// `s` lists the file's strings as `strings -a -n 4` does, and those of
/// derived byte spaces; Enter goes to one.
#[test]
fn the_strings_list_is_what_strings_finds() {
    use std::process::Command;
    if !super::common::tool("strings") || !super::common::tool("gcc") {
        return;
    }
    // An object whose debug sections are compressed: their inflated bytes
    // are byte spaces of their own.
    let dir = super::common::scratch();
    let src = dir.path().join("s.c");
    std::fs::write(
        &src,
        "const char *greeting = \"hello from a string\";\nint answer(void) { return 42; }\n",
    )
    .unwrap();
    let file = dir.path().join("s.o");
    let ok = Command::new("gcc")
        .args(["-g", "-gz=zlib", "-c", "-o"])
        .arg(&file)
        .arg(&src)
        .status()
        .unwrap();
    assert!(ok.success());
    let out = Command::new("strings")
        .args(["-a", "-n", "4", "-t", "x"])
        .arg(&file)
        .output()
        .unwrap();
    let want: Vec<(u64, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let l = l.trim_start();
            let (off, text) = l.split_once(' ').unwrap();
            (u64::from_str_radix(off, 16).unwrap(), text.to_string())
        })
        .collect();
    assert!(!want.is_empty());
    let tree = fwview::formats::build_tree(Arc::new(Source::open(&file).unwrap()), "b");
    let mut app = App::new(tree, "b");
    draw(&mut app);
    typ(&mut app, "s");
    let s = app.strings.as_ref().expect("strings found");
    let file_group = &s.groups[0];
    let got: Vec<(u64, String)> = (0..file_group.hits.len())
        .map(|i| {
            let (_, off, text) = app.string_text(i).unwrap();
            (off, text)
        })
        .collect();
    assert_eq!(got, want);
    // The compressed bundle's inflated bytes have strings of their own.
    assert!(s.groups.len() > 1, "no strings in a derived space");
    let first_derived = file_group.hits.len();
    let (root, off, text) = app.string_text(first_derived).unwrap();
    assert!(root.is_some());
    // Enter on it goes into that space, at the string.
    for _ in 0..first_derived {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    assert!(app.popup.is_none());
    assert_ne!(app.space().0, 0);
    assert_eq!(app.cursor, off);
    let data = app.space_data();
    assert_eq!(
        &data[off as usize..off as usize + text.len()],
        text.as_bytes()
    );
}

/// `o` measures blocks: zeros, random bytes and text are told apart, and
/// Enter goes to a block.
#[test]
fn the_overview_tells_zeros_random_bytes_and_text_apart() {
    let mut v = vec![0u8; 64 * 1024];
    let mut random = vec![0u8; 64 * 1024];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut random))
        .unwrap();
    v.extend(&random);
    v.extend(b"The quick brown fox jumps over the lazy dog.\n".repeat(1500));
    let mut app = app_of(v);
    draw(&mut app);
    typ(&mut app, "o");
    let blocks = app.overview.as_ref().unwrap().blocks.clone().unwrap();
    let kind_at = |off: u64| {
        blocks
            .iter()
            .find(|b| b.offset <= off && off < b.offset + b.size)
            .unwrap()
            .kind()
    };
    use fwview::scan::Kind;
    assert_eq!(kind_at(0), Kind::Zeros);
    assert_eq!(kind_at(64 * 1024 + 4096), Kind::Random);
    assert_eq!(kind_at(160 * 1024), Kind::Text);
    let s = screen(&mut app);
    assert!(s.contains("0.00  zeros") && !s.contains("-0.00"), "{s}");
    // The third block: Enter goes to its first byte.
    typ(&mut app, "jj");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, blocks[2].offset);
}
