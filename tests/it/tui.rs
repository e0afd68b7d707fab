//! The explorer driven through ratatui's TestBackend: layout, the link
//! between the panes, every key, the mouse, small terminals.

use std::sync::Arc;

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use fwview::model::{Builder, Format, NodeId, Source, Span, Tree};
use fwview::tui::{handle_event, keys, theme, ui, App, Focus};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;

/// A format of our own for these tests, so that they do not change when a
/// real format's decoding does:
/// header [0,16) { magic [0,4), version [4,8) }, body [16,64) { a [16,32),
/// b [32,48) -> 0x4 }, tail [64,100).
fn toy(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    if len < 100 {
        return None;
    }
    let h = b.group(p, "header", 0, 16);
    b.leaf(h, "magic", 0, 4, "\"TOY\"");
    b.leaf(h, "version", 4, 4, "1");
    let body = b.group(p, "body", 16, 48);
    b.leaf(body, "a", 16, 16, "sixteen");
    let bb = b.leaf(body, "b", 32, 16, "points at version");
    b.link(bb, b.span(4, 4));
    b.leaf(
        p,
        "tail \u{1b}[31mred",
        64,
        36,
        "esc \u{1b}]0;title\u{7} bidi \u{202e}x",
    );
    Some(Format::Json)
}

fn toy_app(len: usize) -> App {
    let bytes: Vec<u8> = (0..len).map(|i| i as u8).collect();
    let tree = Tree::build(Arc::new(Source::from_vec(bytes)), "toy.bin", toy);
    App::new(tree, "dir/toy.bin")
}

fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ui::render(app, f)).unwrap();
    t.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn key(app: &mut App, code: KeyCode) {
    handle_event(app, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn name(app: &App) -> String {
    app.doc.tree.name(app.selected).to_string()
}

#[test]
fn layout_at_100x24() {
    let mut app = toy_app(100);
    insta::assert_snapshot!(text(&draw(&mut app, 110, 24)));
}

/// The hex pane takes 16, 8 or 4 bytes a row so that the tree keeps room
/// for a name and its value; the details line puts the name and value first.
#[test]
fn layout_at_80x24_and_120x30_keeps_names_and_values() {
    let mut app = toy_app(100);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Down);
    assert_eq!(name(&app), "version");
    let s80 = text(&draw(&mut app, 80, 24));
    assert_eq!(app.view.bytes_per_row, 4);
    insta::assert_snapshot!("layout_80x24", s80);
    assert!(s80.contains("version  1"), "{s80}");
    let s120 = text(&draw(&mut app, 120, 30));
    assert_eq!(app.view.bytes_per_row, 8);
    insta::assert_snapshot!("layout_120x30", s120);
    draw(&mut app, 200, 50);
    assert_eq!(app.view.bytes_per_row, 16);
    // The details line: name, value, size, range, then where it is.
    let details = s80.lines().nth(22).unwrap_or("");
    assert!(
        details.starts_with("version  1  4 bytes  [0x4..0x8)  in /header"),
        "{details}"
    );
}

#[test]
fn layout_in_a_40x10_terminal() {
    let mut app = toy_app(100);
    key(&mut app, KeyCode::Down);
    insta::assert_snapshot!(text(&draw(&mut app, 40, 10)));
}

#[test]
fn every_small_size_draws_without_panic() {
    for len in [0usize, 1, 100, 5000] {
        let mut app = toy_app(len);
        for w in 1..60 {
            for h in 1..14 {
                draw(&mut app, w, h);
                key(&mut app, KeyCode::Down);
                key(&mut app, KeyCode::Tab);
                key(&mut app, KeyCode::PageDown);
            }
        }
    }
}

#[test]
fn selecting_a_node_moves_the_hex_cursor_and_highlights_its_bytes() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    key(&mut app, KeyCode::Down); // header
    key(&mut app, KeyCode::Down); // body (header is closed)
    assert_eq!(name(&app), "body");
    assert_eq!(app.cursor, 16);
    let buf = draw(&mut app, 140, 24);
    // Row 1 of the hex pane is offset 0x10: its first byte cell is shaded.
    let (hx, hy) = (app.view.hex_inner.x + 10, app.view.hex_inner.y + 1);
    assert_eq!(buf[(hx, hy)].symbol(), "1");
    assert_eq!(buf[(hx, hy)].bg, theme::SELECTED_BG);
    // Bytes before the node are not.
    assert_ne!(buf[(hx, hy - 1)].bg, theme::SELECTED_BG);
    // Open body, go to its first child: the parent's bytes get the fainter shade.
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Right);
    assert_eq!(name(&app), "a");
    let buf = draw(&mut app, 140, 24);
    let b_row = app.view.hex_inner.y + 2; // 0x20, inside body but not a
    assert_eq!(buf[(hx, b_row)].bg, theme::ANCESTOR_BG[0]);
}

#[test]
fn moving_the_hex_cursor_selects_the_deepest_node() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Hex);
    key(&mut app, KeyCode::Right); // 1: header/magic
    assert_eq!(app.cursor, 1);
    assert_eq!(name(&app), "magic");
    assert_eq!(app.doc.tree.path_string(app.selected), "header/magic");
    key(&mut app, KeyCode::Down); // 17: body/a
    assert_eq!(app.cursor, 17);
    assert_eq!(app.doc.tree.path_string(app.selected), "body/a");
    key(&mut app, KeyCode::End);
    assert_eq!(app.cursor, 99);
    assert!(name(&app).starts_with("tail"));
    key(&mut app, KeyCode::Home);
    assert_eq!(app.cursor, 0);
    key(&mut app, KeyCode::Left);
    assert_eq!(app.cursor, 0);
}

#[test]
fn tree_keys_open_close_and_walk() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(name(&app), "header");
    key(&mut app, KeyCode::Char('l')); // open
    assert!(app.opened.contains(&app.selected));
    key(&mut app, KeyCode::Char('l')); // first child
    assert_eq!(name(&app), "magic");
    keys(&mut app, "]");
    assert_eq!(name(&app), "version");
    keys(&mut app, "]"); // no next sibling: stays, and says so
    assert_eq!(name(&app), "version");
    assert_eq!(
        app.message.as_ref().map(|m| m.0.as_str()),
        Some("the last of its siblings")
    );
    keys(&mut app, "[");
    assert_eq!(name(&app), "magic");
    key(&mut app, KeyCode::Char('h')); // leaf: to parent
    assert_eq!(name(&app), "header");
    key(&mut app, KeyCode::Left); // open: close
    assert!(!app.opened.contains(&app.selected));
    key(&mut app, KeyCode::Enter); // no link: toggles open
    assert!(app.opened.contains(&app.selected));
    key(&mut app, KeyCode::Char(' '));
    assert!(!app.opened.contains(&app.selected));
    key(&mut app, KeyCode::End);
    assert!(name(&app).starts_with("tail"));
    key(&mut app, KeyCode::Home);
    assert_eq!(app.selected, app.doc.tree.root());
    key(&mut app, KeyCode::PageDown);
    assert!(name(&app).starts_with("tail"));
    key(&mut app, KeyCode::PageUp);
    assert_eq!(app.selected, app.doc.tree.root());
    key(&mut app, KeyCode::Up); // at the top: stays
    assert_eq!(app.selected, app.doc.tree.root());
    // vim and less: G to the last row, Ctrl-d / Ctrl-u by half a page.
    keys(&mut app, "G");
    assert!(name(&app).starts_with("tail"));
    keys(&mut app, "jjjj");
    let mut app = many_app();
    let s = text(&draw(&mut app, 80, 24));
    let rows = app.view.tree_rows;
    assert!(rows > 4, "{s}");
    ctrl(&mut app, 'd');
    let half = app.selected;
    ctrl(&mut app, 'd');
    ctrl(&mut app, 'u');
    assert_eq!(app.selected, half);
    ctrl(&mut app, 'u');
    assert_eq!(app.selected, app.doc.tree.root());
    key(&mut app, KeyCode::PageDown);
    let page = app.selected;
    assert_ne!(page, half);
}

#[test]
fn enter_follows_a_link() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    keys(&mut app, "jjl"); // body, open
    keys(&mut app, "l]"); // a, then b
    assert_eq!(name(&app), "b");
    key(&mut app, KeyCode::Enter);
    assert_eq!(name(&app), "version");
    assert_eq!(app.cursor, 4);
}

#[test]
fn goto_takes_hex_decimal_and_relative_offsets() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    for (input, want) in [("0x20", 0x20), ("+5", 0x25), ("-0x3", 0x22), ("90", 90)] {
        keys(&mut app, "g");
        keys(&mut app, input);
        key(&mut app, KeyCode::Enter);
        assert_eq!(app.cursor, want, "goto {input}");
        assert!(app.popup.is_none());
    }
    assert!(name(&app).starts_with("tail"));
    // Past the end and nonsense: the cursor stays and the status says why.
    keys(&mut app, "g");
    keys(&mut app, "0x1000");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, 90);
    let msg = text(&draw(&mut app, 140, 24));
    assert!(msg.contains("past the end"), "{msg}");
    keys(&mut app, "gzz");
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Enter);
    assert!(text(&draw(&mut app, 140, 24)).contains("not an offset"));
    // Esc closes the prompt without moving.
    keys(&mut app, "g12");
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
    assert!(!app.quit);
    assert_eq!(app.cursor, 90);
}

#[test]
fn help_lists_every_key_and_esc_closes_it() {
    let mut app = toy_app(100);
    keys(&mut app, "?");
    // Page through the help at 80x24, collecting what it shows.
    let mut seen = String::new();
    for _ in 0..20 {
        let s = text(&draw(&mut app, 80, 24));
        assert!(s.lines().all(|l| l.chars().count() <= 80));
        seen.push_str(&s);
        key(&mut app, KeyCode::PageDown);
    }
    let words: std::collections::HashSet<&str> = seen
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|w| !w.is_empty())
        .collect();
    for (k, d) in keys::KEYS {
        // Every key, and every word of what it does, whole: the lines are
        // wrapped between words.
        for w in keys::plain(k).split(' ').chain(keys::plain(d).split(' ')) {
            assert!(w.is_empty() || words.contains(w), "help lacks {w:?} of {k}");
        }
    }
    assert!(seen.contains("Alt-←") && seen.contains("Alt-→"));
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
    assert!(!app.quit);
    key(&mut app, KeyCode::Esc);
    assert!(!app.quit, "Esc never quits");
    assert!(text(&draw(&mut app, 80, 24)).contains("q quits"));
    let mut app = toy_app(100);
    keys(&mut app, "q");
    assert!(app.quit);
}

#[test]
fn mouse_clicks_select_rows_and_bytes_and_the_wheel_scrolls() {
    let mut app = toy_app(5000);
    draw(&mut app, 140, 24);
    let click = |app: &mut App, x: u16, y: u16| {
        handle_event(
            app,
            Event::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: x,
                row: y,
                modifiers: KeyModifiers::NONE,
            }),
        )
    };
    // The third row of the tree (root, header, body) is "body".
    let t = app.view.tree_area;
    click(&mut app, t.x + 6, t.y + 3);
    assert_eq!(name(&app), "body");
    // A byte: row 2, column of byte 3 -> offset 0x23.
    let h = app.view.hex_inner;
    click(&mut app, h.x + 10 + 9, h.y + 2);
    assert_eq!(app.cursor, 0x23);
    assert_eq!(app.focus, Focus::Hex);
    assert_eq!(name(&app), "b");
    // The same byte in the text column.
    click(&mut app, h.x + 60 + 4, h.y + 1);
    assert_eq!(app.cursor, 0x14);
    let top = app.hex_top;
    handle_event(
        &mut app,
        Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: h.x + 5,
            row: h.y + 5,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(app.hex_top, top + 3);
}

#[test]
fn file_text_is_escaped_on_screen() {
    let mut app = toy_app(100);
    let screen = text(&draw(&mut app, 200, 24));
    assert!(screen.contains("tail \\x1b[31mred"), "{screen}");
    assert!(!screen.contains('\u{1b}'));
    assert!(!screen.contains('\u{202e}'));
    assert!(!screen.contains('\u{7}'));
}

#[test]
fn an_empty_file_opens_and_says_so() {
    let tree = fwview::formats::build_from_bytes(Vec::new());
    let mut app = App::new(tree, "empty");
    let screen = text(&draw(&mut app, 100, 20));
    assert!(screen.contains("(empty file)"));
    assert!(screen.contains("the file is empty"));
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::End);
    assert_eq!(app.cursor, 0);
}

#[test]
fn an_unknown_format_is_one_node_with_a_working_hex_pane() {
    let tree = fwview::formats::build_from_bytes(vec![0xAB; 4096]);
    let mut app = App::new(tree, "blob");
    assert_eq!(app.doc.tree.format(), None);
    assert!(app.doc.tree.built_children(app.doc.tree.root()).is_empty());
    draw(&mut app, 100, 20);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::PageDown);
    assert_eq!(
        app.cursor,
        app.view.bytes_per_row * u64::from(app.view.hex_inner.height)
    );
    let screen = text(&draw(&mut app, 100, 20));
    assert!(screen.contains(&format!("{:08x}", app.cursor)));
}

/// header [0,16), packed [16,48): its bytes XOR 0x55, twice over, are a
/// derived space "unpacked" of 64 bytes { inner a [0,8), inner b [8,32),
/// rest [32,64) }, which holds "SECRET" at 8 and 40; the file does not.
fn packed(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    if len < 48 {
        return None;
    }
    b.group(p, "header", 0, 16);
    let g = b.group(p, "packed", 16, 32);
    let u = b.derive(g, "unpacked", b.span(16, 32), "xor", |src, limit| {
        let v: Vec<u8> = src.iter().chain(src).map(|x| x ^ 0x55).collect();
        if v.len() as u64 > limit {
            return Err("too big".into());
        }
        Ok(v)
    })?;
    b.within(u, |b, u| {
        b.leaf(u, "inner a", 0, 8, "eight");
        b.leaf(u, "inner b", 8, 24, "twenty-four");
        b.leaf(u, "rest", 32, 32, "the copy");
        b.warn(40, 6, "a secret");
    });
    Some(Format::Json)
}

fn packed_tree(src: Arc<Source>, name: &str, _options: fwview::model::Options) -> Tree {
    Tree::build(src, name, packed)
}

fn packed_app() -> App {
    let mut v = vec![0u8; 100];
    for (i, c) in b"SECRET".iter().enumerate() {
        v[24 + i] = c ^ 0x55;
    }
    let tree = packed_tree(
        Arc::new(Source::from_vec(v)),
        "packed.bin",
        fwview::model::Options::default(),
    );
    let mut app = App::new(tree, "packed.bin");
    app.rebuild = packed_tree;
    app
}

fn select_named(app: &mut App, n: &str) {
    for _ in 0..20 {
        if name(app) == n {
            return;
        }
        key(app, KeyCode::Char('l'));
        if name(app) != n {
            key(app, KeyCode::Char('j'));
        }
    }
    assert_eq!(name(app), n);
}

#[test]
fn the_hex_pane_shows_the_selected_nodes_byte_space() {
    let mut app = packed_app();
    select_named(&mut app, "unpacked");
    assert_eq!(app.space().0, 1);
    assert_eq!(app.cursor, 0);
    let s = text(&draw(&mut app, 140, 30));
    assert!(
        s.contains("Hex of space 1: unpacked: xor, made from 0x10+0x20 of the file"),
        "{s}"
    );
    assert!(s.contains("0x0 / 0x40 in space 1"), "{s}");
    // The derived bytes, not the file's: "SECRET" at 8 and 40.
    assert!(
        s.contains("00000000  55 55 55 55 55 55 55 55  53 45 43 52 45 54"),
        "{s}"
    );
    assert!(s.contains("00000030  55 55"), "64 bytes, four rows:\n{s}");
    // The cursor maps to the deepest node of the space.
    key(&mut app, KeyCode::Tab);
    for _ in 0..9 {
        key(&mut app, KeyCode::Right);
    }
    assert_eq!((name(&app), app.cursor), ("inner b".to_string(), 9));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    assert_eq!((name(&app), app.cursor), ("rest".to_string(), 41));
    // The selection's shade is on the derived bytes of "rest".
    let buf = draw(&mut app, 140, 30);
    let s = text(&buf);
    let row = s.lines().position(|l| l.contains("00000020  55")).unwrap();
    let x = s.lines().nth(row).unwrap().find("00000020").unwrap() as u16 + 10;
    let y = row as u16;
    assert_eq!(buf[(x, y)].bg, theme::SELECTED_BG);
    // y b copies the node's own bytes, y o the offset in its space.
    keys(&mut app, "yb");
    let want: Vec<u8> = app.doc.tree.node_bytes(app.selected).to_vec();
    assert_eq!(want.len(), 32);
    assert_eq!(
        app.clipboard.take().unwrap(),
        fwview::model::text::hex(&want, want.len())
    );
    assert!(want.starts_with(&[0x55; 8]) && &want[8..14] == b"SECRET");
    keys(&mut app, "yo");
    assert_eq!(app.clipboard.take().unwrap(), "1:0x29");
    keys(&mut app, "yp");
    assert_eq!(
        app.clipboard.take().unwrap(),
        app.doc.tree.path_string(app.selected)
    );
    // x writes the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rest.bin");
    keys(&mut app, "x");
    ctrl(&mut app, 'u');
    keys(&mut app, out.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    assert_eq!(std::fs::read(&out).unwrap(), want);
    // Goto is in the space too.
    keys(&mut app, "g0x10");
    key(&mut app, KeyCode::Enter);
    assert_eq!((name(&app), app.cursor), ("inner b".to_string(), 16));
    keys(&mut app, "g0x40");
    key(&mut app, KeyCode::Enter);
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .0
        .contains("past the end of this byte space"));
}

#[test]
fn byte_search_reaches_derived_spaces_and_says_which() {
    let mut app = packed_app();
    keys(&mut app, "/SECRET");
    key(&mut app, KeyCode::Enter);
    let st = app.search.as_ref().unwrap();
    assert!(st.matches.is_empty(), "not in the file as it is");
    assert_eq!(st.derived.len(), 1);
    assert_eq!(st.derived[0].matches, [8, 40]);
    assert_eq!(st.count(), 2);
    assert_eq!(
        (name(&app), app.cursor, app.space()),
        ("inner b".to_string(), 8, fwview::model::SpaceId(1))
    );
    let s = text(&draw(&mut app, 140, 30));
    assert!(s.contains("match 1 of 2"), "{s}");
    assert!(
        s.contains("in unpacked: xor, made from 0x10+0x20 of the file"),
        "{s}"
    );
    // The match is shaded in the derived space's bytes.
    keys(&mut app, "n");
    assert_eq!((name(&app), app.cursor), ("rest".to_string(), 40));
    assert!(text(&draw(&mut app, 140, 30)).contains("match 2 of 2"));
    assert_eq!(app.matches_in(0, 64), [(8, 14), (40, 46)]);
    keys(&mut app, "n");
    assert_eq!(app.cursor, 8);
    // A diagnostic in the derived space jumps there.
    key(&mut app, KeyCode::Home);
    keys(&mut app, "!");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        (name(&app), app.cursor, app.space()),
        ("rest".to_string(), 40, fwview::model::SpaceId(1))
    );
    assert!(app.message.as_ref().unwrap().0.contains("a secret"));
    // Back in the file there are no matches to shade.
    key(&mut app, KeyCode::Home);
    assert_eq!(app.space().0, 0);
    assert!(app.matches_in(0, 100).is_empty());
}

/// 200 leaves of 4 bytes under the root.
fn many(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    if len < 800 {
        return None;
    }
    for i in 0..200u64 {
        b.leaf(p, format!("item{i}"), i * 4, 4, "v");
    }
    Some(Format::Json)
}

fn many_app() -> App {
    let tree = Tree::build(Arc::new(Source::from_vec(vec![0; 800])), "many.bin", many);
    App::new(tree, "many.bin")
}

/// The row of `s` (a drawn screen) that holds `what`.
fn row_of(s: &str, what: &str) -> Option<usize> {
    s.lines().position(|l| l.contains(what))
}

#[test]
fn the_selection_stays_in_view_after_a_resize() {
    let mut app = many_app();
    draw(&mut app, 120, 40);
    for _ in 0..30 {
        key(&mut app, KeyCode::Down);
    }
    let s = text(&draw(&mut app, 120, 40));
    assert!(row_of(&s, "item29 [").is_some(), "{s}");
    // Smaller: the selected row is still on screen at once.
    let s = text(&draw(&mut app, 120, 12));
    assert!(row_of(&s, "item29 [").is_some(), "{s}");
}

#[test]
fn a_jump_keeps_rows_of_context_around_the_selection() {
    let mut app = many_app();
    draw(&mut app, 120, 30);
    // Down to the bottom edge: three rows below the selection stay visible.
    for _ in 0..40 {
        key(&mut app, KeyCode::Down);
    }
    let s = text(&draw(&mut app, 120, 30));
    let sel = row_of(&s, "item39 [").expect("selected row shown");
    assert!(row_of(&s, "item42 [").is_some_and(|r| r == sel + 3), "{s}");
    // A goto to a node far below: context above it.
    keys(&mut app, "g");
    keys(&mut app, "0x200");
    key(&mut app, KeyCode::Enter);
    assert_eq!(name(&app), "item128");
    let s = text(&draw(&mut app, 120, 30));
    let sel = row_of(&s, "item128 [").expect("selected row shown");
    assert!(row_of(&s, "item125 [").is_some_and(|r| r + 3 == sel), "{s}");
}

#[test]
fn two_key_commands_hint_and_say_when_the_second_key_means_nothing() {
    let mut app = toy_app(100);
    keys(&mut app, "m");
    let s = text(&draw(&mut app, 120, 24));
    assert!(s.contains("press a letter to set a mark"), "{s}");
    key(&mut app, KeyCode::Esc);
    assert!(app.pending.is_none());
    keys(&mut app, "'");
    assert!(text(&draw(&mut app, 120, 24)).contains("press a mark's letter"));
    keys(&mut app, "a");
    assert!(text(&draw(&mut app, 120, 24)).contains("no mark a"));
    keys(&mut app, "yz");
    let s = text(&draw(&mut app, 120, 24));
    assert!(s.contains("y z: nothing to copy"), "{s}");
}

#[test]
fn the_inspector_finds_room_or_says_there_is_none() {
    // 8 bytes whose f32 and f64 read as ordinary decimals.
    let mut bytes: Vec<u8> = (0..100).map(|i| i as u8).collect();
    bytes[40..44].copy_from_slice(&2.0257797f32.to_le_bytes());
    bytes[44..48].copy_from_slice(&[0; 4]);
    let tree = Tree::build(Arc::new(Source::from_vec(bytes)), "toy.bin", toy);
    let mut app = App::new(tree, "toy.bin");
    keys(&mut app, "g40");
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "i");
    // 40x10: no room, and the details line says so, whole.
    let s = text(&draw(&mut app, 40, 10));
    let (w, h) = fwview::tui::inspector::Shape::Narrow.size();
    assert!(
        s.contains(&format!("inspector needs {w}x{h} (i hides it)")),
        "{s}"
    );
    // At 80x24, 120x30 and 160x44 every value is shown whole.
    let u64le = u64::from_le_bytes(app.doc.tree.data()[40..48].try_into().unwrap());
    let u64be = u64::from_be_bytes(app.doc.tree.data()[40..48].try_into().unwrap());
    for (w, h) in [(80, 24), (120, 30), (160, 44), (200, 50)] {
        let s = text(&draw(&mut app, w, h));
        assert!(s.contains("Inspector (LE first"), "{w}x{h}\n{s}");
        assert!(!s.contains("no room"), "{w}x{h}\n{s}");
        assert!(s.contains(&u64le.to_string()), "{w}x{h}\n{s}");
        assert!(s.contains(&format!("BE: {u64be}")), "{w}x{h}\n{s}");
        assert!(s.contains("f32    2.0257797 "), "{w}x{h}\n{s}");
        assert!(!s.contains("e0"), "{w}x{h}\n{s}");
        assert!(
            s.lines()
                .filter(|l| l.contains("BE: "))
                .all(|l| !l.contains('…')),
            "{w}x{h}: nothing cut\n{s}"
        );
    }
    insta::assert_snapshot!("inspector_80x24", text(&draw(&mut app, 80, 24)));
}

/// Opened only to show the cursor, a node closes again when the cursor
/// leaves it; nodes the user opened stay open; `z` closes them all.
#[test]
fn the_tree_follows_the_cursor_without_piling_up_open_nodes() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    let header = app.doc.tree.find_path("header").unwrap();
    let body = app.doc.tree.find_path("body").unwrap();
    // A goto into body/a opens body; one to the tail closes it again.
    keys(&mut app, "g0x11");
    key(&mut app, KeyCode::Enter);
    assert_eq!(name(&app), "a");
    assert!(app.opened.contains(&body));
    keys(&mut app, "g0x41");
    key(&mut app, KeyCode::Enter);
    assert!(name(&app).starts_with("tail"));
    assert!(!app.opened.contains(&body), "body closed behind the cursor");
    // Hex moves do the same.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Home);
    assert_eq!(name(&app), "magic");
    key(&mut app, KeyCode::End);
    assert!(!app.opened.contains(&header));
    // Opened by the user, a node stays open.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Home);
    keys(&mut app, "jl");
    assert!(app.opened.contains(&header));
    keys(&mut app, "g0x11");
    key(&mut app, KeyCode::Enter);
    assert!(app.opened.contains(&header));
    assert!(app.opened.contains(&body));
    // z closes everything but the root and keeps the selection in view.
    keys(&mut app, "z");
    assert!(!app.opened.contains(&header) && !app.opened.contains(&body));
    assert_eq!(name(&app), "body");
    assert!(app.opened.contains(&app.doc.tree.root()));
    assert!(text(&draw(&mut app, 140, 24)).contains("every node closed"));
}

/// A jump out of view puts the selected row three rows from the top.
#[test]
fn a_jump_out_of_view_leaves_context_above_the_selection() {
    let mut app = many_app();
    draw(&mut app, 120, 30);
    for (to, item) in [
        ("0x200", "item128 ["),
        ("0x80", "item32 ["),
        ("0x240", "item144 ["),
    ] {
        keys(&mut app, "g");
        keys(&mut app, to);
        key(&mut app, KeyCode::Enter);
        let s = text(&draw(&mut app, 120, 30));
        // Row 0 is the border; the selection is on the fourth row of the pane.
        assert_eq!(row_of(&s, item), Some(4), "goto {to}\n{s}");
    }
}

fn ctrl(app: &mut App, c: char) {
    handle_event(
        app,
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    );
}

fn prompt_value(app: &App) -> String {
    match &app.popup {
        Some(fwview::tui::popup::Popup::Prompt(p)) => p.value().to_string(),
        other => panic!("no prompt: {other:?}"),
    }
}

/// Prompts edit like a shell's line: the cursor moves, Ctrl-u and Ctrl-w
/// delete, Up and Down walk what was entered, the last entry is offered.
#[test]
fn prompts_edit_and_remember() {
    let mut app = toy_app(100);
    draw(&mut app, 120, 24);
    keys(&mut app, "g0x20");
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Left);
    keys(&mut app, "1");
    assert_eq!(prompt_value(&app), "0x120");
    key(&mut app, KeyCode::Home);
    key(&mut app, KeyCode::Delete);
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Backspace);
    assert_eq!(prompt_value(&app), "x12");
    ctrl(&mut app, 'u');
    assert_eq!(prompt_value(&app), "");
    keys(&mut app, "+ 0x10");
    ctrl(&mut app, 'w');
    assert_eq!(prompt_value(&app), "+ ");
    ctrl(&mut app, 'u');
    keys(&mut app, "0x21");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, 0x21);
    keys(&mut app, "g0x30");
    key(&mut app, KeyCode::Enter);
    // The last entry is offered; Enter on an empty line repeats it.
    keys(&mut app, "g");
    let s = text(&draw(&mut app, 120, 24));
    assert!(s.contains("0x30 (Enter repeats"), "{s}");
    keys(&mut app, "+1");
    key(&mut app, KeyCode::Up);
    assert_eq!(prompt_value(&app), "0x30");
    key(&mut app, KeyCode::Up);
    assert_eq!(prompt_value(&app), "0x21");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    assert_eq!(prompt_value(&app), "+1", "the line being typed comes back");
    ctrl(&mut app, 'u');
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, 0x30);
    // An empty search with nothing before says nothing.
    keys(&mut app, "/");
    key(&mut app, KeyCode::Enter);
    assert!(app.popup.is_none());
    let s = text(&draw(&mut app, 120, 24));
    assert!(!s.contains("matches"), "{s}");
    assert!(app.message.is_none());
}

/// The key table of a Markdown file of the crate: from its `| key | does |`
/// header to the first blank line.
fn key_table_in(file: &str) -> String {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .find("| key | does |")
        .unwrap_or_else(|| panic!("{file} has no key table"));
    let end = text[start..]
        .find("\n\n")
        .map_or(text.len(), |e| start + e + 1);
    text[start..end].to_string()
}

/// The key table of docs/keys.md is the one the help shows.
#[test]
fn documented_key_table_is_the_help_table() {
    let want = keys::doc_table();
    assert!(
        key_table_in("docs/keys.md") == want,
        "the key table of docs/keys.md differs from the keys table; it should read:\n{want}"
    );
}

/// README's short key table names only keys the help's table has.
#[test]
fn readme_names_only_keys_the_help_has() {
    let known: std::collections::HashSet<&str> = keys::KEYS
        .iter()
        .flat_map(|(k, _)| k.split('`').skip(1).step_by(2))
        .collect();
    let mut named = 0;
    for row in key_table_in("README.md").lines().skip(2) {
        let first = row.split('|').nth(1).unwrap_or("");
        for k in first.split('`').skip(1).step_by(2) {
            assert!(
                known.contains(k),
                "README names {k}, a key the help does not have"
            );
            named += 1;
        }
    }
    assert!(named >= 10, "README's key table names {named} keys");
}

/// On the root, h and Space say why nothing happens; the root's bytes take
/// the selection's shade when it is selected.
#[test]
fn the_root_answers_and_is_shaded_when_selected() {
    let mut app = toy_app(100);
    draw(&mut app, 140, 24);
    assert_eq!(app.selected, app.doc.tree.root());
    keys(&mut app, "h");
    assert!(text(&draw(&mut app, 140, 24)).contains("at the root"));
    keys(&mut app, " ");
    assert!(text(&draw(&mut app, 140, 24)).contains("the root stays open"));
    assert!(app.opened.contains(&app.doc.tree.root()));
    let buf = draw(&mut app, 140, 24);
    let (hx, hy) = (app.view.hex_inner.x + 10, app.view.hex_inner.y + 3);
    assert_eq!(buf[(hx, hy)].bg, theme::SELECTED_BG);
}

/// Three diagnostics made out of order, one with a long message.
fn noisy(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
    let len = at.len;
    if len < 100 {
        return None;
    }
    b.leaf(p, "a", 0, 50, "x");
    b.leaf(p, "b", 50, 50, "y");
    b.warn(80, 1, "late warning");
    let long: String = (0..40).map(|i| format!("word{i} ")).collect();
    b.error(10, 1, format!("early error {long}end"));
    b.info(40, 1, "a note");
    Some(Format::Json)
}

#[test]
fn diagnostics_are_counted_listed_by_offset_whole_and_marked_in_the_tree() {
    let tree = Tree::build(Arc::new(Source::from_vec(vec![0; 100])), "n.bin", noisy);
    let mut app = App::new(tree, "n.bin");
    let s = text(&draw(&mut app, 200, 30));
    assert!(s.contains("1 error  1 warning  1 info"), "{s}");
    // The node holding the error is marked, in colour and without it.
    let row = s.lines().find(|l| l.contains(" a [0x0+0x32] x")).unwrap();
    assert!(row.contains("✗ a ["), "{s}");
    assert!(!s.lines().any(|l| l.contains("✗ b [")), "{s}");
    keys(&mut app, "!");
    let s = text(&draw(&mut app, 200, 30));
    let at = |w: &str| s.find(w).unwrap_or_else(|| panic!("{w} missing:\n{s}"));
    assert!(at("early error") < at("a note") && at("a note") < at("late warning"));
    // The long message is whole, wrapped under itself.
    assert!(s.contains("word39 end"), "{s}");
    // Enter jumps to the selected row, in the order shown.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.cursor, 40);
}

/// A damaged XE file: a sector whose size runs past the end is an error,
/// marked on its row; one whose CRC no longer fits is a warning, counted
/// and not marked.
#[test]
fn a_bad_sector_is_marked_in_the_tree() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/xmos/COMS20001-game-of-life__pgm_generator.xe"
    );
    let good = std::fs::read(p).unwrap();
    let errors = |app: &App| -> Vec<fwview::model::Diagnostic> {
        app.doc
            .tree
            .diagnostics()
            .iter()
            .filter(|d| d.severity == fwview::model::Severity::Error)
            .cloned()
            .collect()
    };
    // The first sector's CRC is at 0x24 (`--tree` shows `crc [0x24+0x4]`).
    let mut v = good.clone();
    v[0x24] ^= 1;
    let mut app = App::new(fwview::formats::build_from_bytes(v), "bad.xe");
    assert!(errors(&app).is_empty());
    let s = text(&draw(&mut app, 160, 40));
    assert!(s.contains("1 warning") && !s.contains('✗'), "{s}");

    // Its size (at 0xc, 8 bytes) past the end of the file.
    let mut v = good;
    v[0xc..0x14].copy_from_slice(&0xff_ffffu64.to_le_bytes());
    let mut app = App::new(fwview::formats::build_from_bytes(v), "bad.xe");
    let errs = errors(&app);
    assert!(errs.iter().any(|e| e.span.offset == 0xc), "{errs:?}");
    keys(&mut app, "g0xc");
    key(&mut app, KeyCode::Enter);
    assert_eq!(name(&app), "size");
    // The row above, so that the selection's colours are not on it.
    keys(&mut app, "k");
    let buf = draw(&mut app, 160, 40);
    let s = text(&buf);
    let y = s.lines().position(|l| l.contains("✗ size")).expect(&s) as u16;
    let x = s
        .lines()
        .nth(y as usize)
        .unwrap()
        .chars()
        .position(|c| c == '✗')
        .unwrap() as u16;
    assert_eq!(buf[(x, y)].fg, theme::error().fg.unwrap());
    assert!(s.contains(&format!("{} errors", errs.len())), "{s}");
}

#[test]
fn small_counts_read_as_words() {
    let mut app = toy_app(1);
    keys(&mut app, "g0x5");
    key(&mut app, KeyCode::Enter);
    let s = text(&draw(&mut app, 120, 24));
    assert!(s.contains("(0x1 byte)"), "{s}");
    assert!(s.contains("  1 byte  "), "{s}");
}

/// Ctrl-c quits from a prompt, a popup and a pending letter, as the help
/// says; Esc with the inspector open closes it and does not quit.
#[test]
fn ctrl_c_quits_from_anywhere_and_esc_closes_the_inspector() {
    for opener in ["g", "/", "x", "?", "M", "!", "y", "m", "'"] {
        let mut app = toy_app(100);
        draw(&mut app, 80, 24);
        keys(&mut app, opener);
        assert!(
            app.popup.is_some() || app.pending.is_some(),
            "{opener} opens something"
        );
        ctrl(&mut app, 'c');
        assert!(app.quit, "Ctrl-c after {opener} quits");
    }
    let mut app = toy_app(100);
    keys(&mut app, "i");
    let s = text(&draw(&mut app, 120, 40));
    assert!(s.contains("Inspector"), "{s}");
    key(&mut app, KeyCode::Esc);
    let s = text(&draw(&mut app, 120, 40));
    assert!(!s.contains("Inspector"), "{s}");
    assert!(!s.contains("nothing to close"), "{s}");
    assert!(!app.quit);
    key(&mut app, KeyCode::Esc);
    let s = text(&draw(&mut app, 120, 40));
    assert!(s.contains("nothing to close"), "{s}");
    assert!(!app.quit);
}

/// The last line of the screen: the status bar.
fn status_line(s: &str) -> String {
    s.lines().last().unwrap_or("").to_string()
}

/// Messages come first on the status bar, so that they show at 80 and at
/// 40 columns whatever the file's name.
#[test]
fn messages_show_first_at_80_and_40_columns() {
    for (w, h) in [(80, 24), (40, 10)] {
        let bytes: Vec<u8> = (0..100).map(|i| i as u8).collect();
        let long = "a-rather-long-file-name-that-fills-the-status-bar-on-its-own.bin";
        let tree = Tree::build(Arc::new(Source::from_vec(bytes)), long, toy);
        let mut app = App::new(tree, long);
        draw(&mut app, w, h);
        for (typed, want) in [("/qqqzzz", "no match"), ("gzzz", "zzz: not an offset")] {
            keys(&mut app, typed);
            key(&mut app, KeyCode::Enter);
            let s = text(&draw(&mut app, w, h));
            assert!(
                status_line(&s).trim_start().starts_with(want),
                "{w}x{h} {typed}: {}",
                status_line(&s)
            );
        }
        keys(&mut app, "mb");
        let s = text(&draw(&mut app, w, h));
        assert!(
            status_line(&s).trim_start().starts_with("mark b set"),
            "{w}x{h}: {}",
            status_line(&s)
        );
    }
}

/// The details line drops what does not fit whole: no range cut in the
/// middle of a number; `d` shows every field in full.
#[test]
fn the_details_line_fits_and_d_shows_the_node_in_full() {
    let mut app = toy_app(100);
    keys(&mut app, "jj");
    for w in 30..80 {
        let s = text(&draw(&mut app, w, 24));
        let details = s.lines().rev().nth(1).unwrap_or("");
        if let Some(i) = details.find('[') {
            assert!(details[i..].contains(')'), "{w}: {details}");
        }
    }
    let s = text(&draw(&mut app, 20, 24));
    let details = s.lines().rev().nth(1).unwrap_or("").to_string();
    key(&mut app, KeyCode::Char('d'));
    let s = text(&draw(&mut app, 40, 24));
    assert!(s.contains(" Node "), "{s}");
    for want in ["name", "path", "bytes", "/body", "[0x10..0x40)"] {
        assert!(s.contains(want), "{want}: {s}");
    }
    assert!(!details.contains("[0x10..0x40)"), "{details}");
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

/// `g` takes `K:0x…`, the form `y o` copies offsets in: it leaves a
/// derived space for the file (`0:`) and enters one from the file.
#[test]
fn goto_takes_a_space_and_leaves_a_derived_one() {
    let mut app = packed_app();
    keys(&mut app, "g1:0x28");
    key(&mut app, KeyCode::Enter);
    assert_eq!((app.space().0, app.cursor), (1, 0x28), "{:?}", app.message);
    assert_eq!(name(&app), "rest");
    // A plain offset stays in the space; 0: goes back to the file.
    keys(&mut app, "g0x8");
    key(&mut app, KeyCode::Enter);
    assert_eq!((app.space().0, app.cursor), (1, 8));
    keys(&mut app, "g0:0x30");
    key(&mut app, KeyCode::Enter);
    assert_eq!((app.space().0, app.cursor), (0, 0x30), "{:?}", app.message);
    for (bad, want) in [
        ("g7:0", "no byte space 7"),
        ("g1:0x999", "past the end of byte space 1"),
        ("gx:1", "not an offset"),
    ] {
        keys(&mut app, bad);
        key(&mut app, KeyCode::Enter);
        let m = app.message.clone().unwrap_or_default().0;
        assert!(m.contains(want), "{bad}: {m}");
        assert_eq!(app.space().0, 0);
    }
}

/// `M` lists each mark with its offset and the address of the node marked.
#[test]
fn the_mark_list_names_the_nodes() {
    let mut app = toy_app(100);
    keys(&mut app, "jlj");
    assert_eq!(name(&app), "magic");
    keys(&mut app, "ma");
    keys(&mut app, "g0x20");
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "mbM");
    let s = text(&draw(&mut app, 100, 30));
    assert!(s.contains(" a 0x0  /header/magic"), "{s}");
    assert!(s.contains(" b 0x20  /body/b"), "{s}");
}

/// `w` widens the hex pane beside a narrow tree, then shows it alone,
/// then goes back: at 80x24, 4, 8 and 16 bytes a row; at 200x50 the hex
/// pane alone takes 32.
#[test]
fn w_widens_the_hex_pane_and_then_shows_it_alone() {
    let mut app = toy_app(4096);
    let bpr = |app: &mut App, w, h| {
        let s = text(&draw(app, w, h));
        (app.view.bytes_per_row, s.contains("Structure"))
    };
    assert_eq!(bpr(&mut app, 80, 24), (4, true));
    keys(&mut app, "w");
    assert_eq!(bpr(&mut app, 80, 24), (8, true));
    keys(&mut app, "w");
    assert_eq!(bpr(&mut app, 80, 24), (16, false));
    assert_eq!(bpr(&mut app, 200, 50), (32, false));
    // Keys still move the cursor by rows of what is shown.
    key(&mut app, KeyCode::Down);
    assert_eq!(app.cursor, 32);
    keys(&mut app, "w");
    assert_eq!(bpr(&mut app, 80, 24), (4, true));
    // Too narrow to set them side by side (40x10): stacked as before, the
    // hex pane never narrower than there.
    let (auto, _) = bpr(&mut app, 40, 10);
    keys(&mut app, "w");
    assert_eq!(bpr(&mut app, 40, 10), (auto, true));
}

/// README stays the short page a newcomer reads first: at most 12 KB, the
/// reference being in docs/.
#[test]
fn readme_stays_short() {
    let n = std::fs::read("README.md").map(|d| d.len()).unwrap_or(0);
    assert!(n > 0 && n <= 12 * 1024, "README.md is {n} bytes");
}
