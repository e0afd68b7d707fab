//! Keys and mouse events to commands: a pure function of the event and of
//! whether a prompt is taking text.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};

use super::command::Command;

/// What the keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The panes (or a popup that takes movement keys).
    Normal,
    /// A prompt: printable keys are text.
    Text,
    /// One letter is awaited (a mark's name, a copy choice, y/n).
    Letter,
    /// A folder's list (`fwview DIR`): printable keys but `q` and `?`
    /// type its filter.
    List,
}

/// Every key: the help popup shows this table and the key table of
/// `docs/keys.md` is made of it (a test checks). Both columns are
/// Markdown: keys in backticks, letters in italics; the help shows them
/// plain.
pub const KEYS: &[(&str, &str)] = &[
    (
        "`↑` `↓` / `k` `j`",
        "move up / down (tree: rows; hex: one row of bytes)",
    ),
    (
        "`←` `→` / `h` `l`",
        "tree: close, or go to the parent / open, or go to the first child; hex: previous / next byte",
    ),
    (
        "`PgUp` `PgDn` (`Ctrl-b` `Ctrl-f`), `Ctrl-u` `Ctrl-d`",
        "move by a page, by half a page",
    ),
    (
        "`Home` `End` / `G`",
        "first / last row, or first / last byte",
    ),
    (
        "`Enter`",
        "follow the node's link, else open / close it",
    ),
    (
        "`Space`",
        "open / close the node",
    ),
    (
        "`z`",
        "close every node but the root (nodes opened only to show the cursor close again by themselves when it leaves them)",
    ),
    (
        "`*`",
        "open the node and everything below it (up to 20,000 nodes; deeper ones stay closed)",
    ),
    (
        "`s`",
        "the strings of the file and of every derived byte space, as `strings -a -n 4` finds them (printable ASCII and tab, 4 or more), found in the background, at most 1,000,000 (Enter jumps)",
    ),
    (
        "`o`",
        "overview of the file in up to 512 blocks: each one's entropy as a bar and what it looks like (zeros, text, compressed or encrypted), measured in the background (Enter jumps)",
    ),
    (
        "`v`",
        "choose a range of bytes: from the cursor to wherever it moves next (shaded in the hex pane, its size on the status bar); `y` `b` copies it and `x` writes it instead of the node's bytes; `v` or `Esc` ends it",
    ),
    (
        "`F`",
        "filter the tree: only nodes whose name or value holds a text (as `/` `n:` finds them, in the background), or `!error`, `!warning`, `!info`: nodes holding such diagnostics; the nodes above them show too, every child of a match shows; `Esc` clears it",
    ),
    (
        "`Tab`",
        "switch focus between the tree and the hex pane",
    ),
    (
        "`]` `[`",
        "next / previous sibling",
    ),
    (
        "`Ctrl-w`",
        "two files (`fwview A B`): give the keys to the other file's panes (a click in a pane does too); the other file's tree follows the selection to the node at the same address",
    ),
    (
        "`c` `C`",
        "two files: next / previous change, as `--diff` reports them (`~` changed, `+` added, `-` removed; differing bytes reversed in the hex panes)",
    ),
    (
        "`=`",
        "two files: show only what changed in both trees, or everything again (`Esc` too)",
    ),
    (
        "`g`",
        "go to an offset: `0x1f0`, `496`, `+16`, `-0x10` (relative to the cursor), `K:0x1f0` in byte space K (`0:` the file) as `y` `o` copies them; `v:0x401000` a virtual address of the executable around the selection; a node address as `y` `p` copies it; a symbol or any node by name (`n` goes to the next of that name). `Tab` completes names and addresses",
    ),
    (
        "`/`",
        "search: `text`, `x:7f 45 ?? 46` (hex bytes, `??` any byte), `n:name` (node names and values); `Ctrl-t` in the prompt toggles case (the title says which). Searches run in the background (the status bar counts bytes or nodes, `Esc` cancels); byte searches cover the file and every derived byte space, node searches every node",
    ),
    (
        "in a prompt",
        "`←` `→` `Home` `End` (`Ctrl-a` `Ctrl-e`) move, `Ctrl-←` `Ctrl-→` by words; `Ctrl-u` deletes to the start, `Ctrl-w` a word, `Ctrl-k` to the end; `↑` `↓` walk what was entered before; the last entry is offered and `Enter` on an empty line repeats it",
    ),
    (
        "`n` `N`",
        "next / previous match, wrapping around (the status bar then says `search wrapped`); `match k of m` shows until the next key, and a match in a derived space says which space",
    ),
    (
        "`f`",
        "follow the selected node's link (an offset to its target, an index to its entry)",
    ),
    (
        "`Ctrl-o` / `Ctrl-n`, `Alt-←` / `Alt-→`",
        "back / forward through the jump list (goto, follow, search hit, click, mark); `Ctrl-i` is `Tab` in a terminal, so forward is `Ctrl-n`",
    ),
    (
        "`i`",
        "data inspector: u8…u64 and i8…i64 in both byte orders, f32, f64, Unix time, the character",
    ),
    (
        "`e`",
        "inspector: swap which byte order is shown first",
    ),
    (
        "`m` *a-z*",
        "set a mark at the cursor; marks are kept per file between runs, as vim keeps them, in `$XDG_STATE_HOME/fwview/marks` (else `~/.local/state/fwview/marks`)",
    ),
    (
        "`'` *a-z*",
        "jump to a mark",
    ),
    (
        "`M`",
        "list the marks (Enter jumps)",
    ),
    (
        "`!`",
        "list the diagnostics by offset, long messages wrapped (Enter jumps); the status bar counts errors, warnings and info, and a tree row holding an error is marked `✗` in the error colour",
    ),
    (
        "`w`",
        "share the screen: tree and hex as they fit, the hex pane wide (as many bytes a row as fit beside a narrow tree), the hex pane alone",
    ),
    (
        "`d`",
        "the selected node in full: name, value, size, range, link, path and its diagnostics, wrapped (↑ ↓ scroll, Esc closes)",
    ),
    (
        "`y`",
        "copy through OSC 52 (works over SSH): `o` offset (`K:0x…` in derived space K), `v` value, `b` the node's bytes as hex, `p` path",
    ),
    (
        "`x`",
        "write the selected node's bytes (from its own byte space) to a file: the prompt offers the node's name as a file name (`.bin` added when it has no extension), `~` is the home directory, a directory is refused and an existing file is replaced only after asking; the write runs in the background, the status bar shows how far it got, `Esc` cancels it and removes the partial file",
    ),
    (
        "`K`",
        "read the selected node's bytes with a `.ksy` description (a path, or a file of the formats folder): the node gains a child with its tree, read again when the `.ksy` is saved",
    ),
    (
        "`#`",
        "numbers in values: as each prefers (natural), all hex, all decimal; the status bar says `#hex` or `#decimal`",
    ),
    (
        "`?`",
        "this help: every key (`↑` `↓` `PgUp` `PgDn` scroll it, `Esc` closes it)",
    ),
    (
        "`q`",
        "quit (`Ctrl-c` too, from anywhere: a prompt, a popup, a pending letter)",
    ),
    (
        "`Esc`",
        "cancel a running search or write, close a popup or the inspector, clear the filter (it never quits: `q` does); with nothing left to close in a file opened from a folder's list, back to the list",
    ),
    (
        "`Backspace`",
        "in a file opened from a folder's list: on the root, back to the list, its cursor and filter as they were",
    ),
    (
        "in a folder's list",
        "`fwview DIR` lists the folder's files (recursively, as `--targets DIR` reads them) with size, format and the targets of their device images, filled in as a background scan reads them (the status bar counts files and bytes); typing filters the list by path, letters of either case (`Q` finds a `q`), `Backspace` deletes, `Esc` clears the filter; `↑` `↓` `PgUp` `PgDn` `Home` `End`, the wheel and a click move; `Enter` (or a click on the selected row) explores the file; `?` this help; `q` quits",
    ),
    (
        "mouse",
        "click a tree row or a byte to select it; the wheel scrolls the pane under it",
    ),
];

/// `text` as the help shows it: Markdown's backticks and italics taken out.
pub fn plain(text: &str) -> String {
    text.replace(['`', '*'], "")
}

/// The key table of `docs/keys.md`, made of [`KEYS`].
pub fn doc_table() -> String {
    let mut s = String::from("| key | does |\n|---|---|\n");
    for (k, d) in KEYS {
        s.push_str(&format!("| {k} | {d} |\n"));
    }
    s
}

pub fn map_key(k: KeyEvent, mode: Mode) -> Option<Command> {
    if k.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && k.code == KeyCode::Char('c') {
        return Some(Command::Interrupt);
    }
    if mode == Mode::Text {
        use tui_input::InputRequest as R;
        let word = ctrl || k.modifiers.contains(KeyModifiers::ALT);
        return match k.code {
            KeyCode::Esc => Some(Command::Escape),
            KeyCode::Enter => Some(Command::Submit),
            KeyCode::Backspace => Some(Command::Backspace),
            KeyCode::Up => Some(Command::Up),
            KeyCode::Down => Some(Command::Down),
            KeyCode::Char('t') if ctrl => Some(Command::ToggleCase),
            KeyCode::Tab => Some(Command::Complete),
            KeyCode::Char('p') if ctrl => Some(Command::Up),
            KeyCode::Char('n') if ctrl => Some(Command::Down),
            KeyCode::Left if word => Some(Command::Edit(R::GoToPrevWord)),
            KeyCode::Right if word => Some(Command::Edit(R::GoToNextWord)),
            KeyCode::Left => Some(Command::Edit(R::GoToPrevChar)),
            KeyCode::Right => Some(Command::Edit(R::GoToNextChar)),
            KeyCode::Home => Some(Command::Edit(R::GoToStart)),
            KeyCode::End => Some(Command::Edit(R::GoToEnd)),
            KeyCode::Delete => Some(Command::Edit(R::DeleteNextChar)),
            KeyCode::Char('a') if ctrl => Some(Command::Edit(R::GoToStart)),
            KeyCode::Char('e') if ctrl => Some(Command::Edit(R::GoToEnd)),
            KeyCode::Char('b') if ctrl => Some(Command::Edit(R::GoToPrevChar)),
            KeyCode::Char('f') if ctrl => Some(Command::Edit(R::GoToNextChar)),
            KeyCode::Char('u') if ctrl => Some(Command::Edit(R::DeleteFromStart)),
            KeyCode::Char('k') if ctrl => Some(Command::Edit(R::DeleteTillEnd)),
            KeyCode::Char('w') if ctrl => Some(Command::Edit(R::DeletePrevWord)),
            KeyCode::Char('h') if ctrl => Some(Command::Backspace),
            KeyCode::Char('d') if ctrl => Some(Command::Edit(R::DeleteNextChar)),
            KeyCode::Char('y') if ctrl => Some(Command::Edit(R::Yank)),
            KeyCode::Char(c) if !ctrl => Some(Command::Input(c)),
            _ => None,
        };
    }
    if mode == Mode::Letter {
        return match k.code {
            KeyCode::Esc => Some(Command::Escape),
            KeyCode::Char(c) if !ctrl => Some(Command::Input(c)),
            _ => Some(Command::Escape),
        };
    }
    if mode == Mode::List {
        return match k.code {
            KeyCode::Char('q') if !ctrl => Some(Command::Quit),
            KeyCode::Char('?') => Some(Command::OpenHelp),
            KeyCode::Char(c) if !ctrl => Some(Command::Input(c)),
            KeyCode::Backspace => Some(Command::Backspace),
            KeyCode::Esc => Some(Command::Escape),
            KeyCode::Enter => Some(Command::Activate),
            KeyCode::Up => Some(Command::Up),
            KeyCode::Down => Some(Command::Down),
            KeyCode::PageUp => Some(Command::PageUp),
            KeyCode::PageDown => Some(Command::PageDown),
            KeyCode::Home => Some(Command::Home),
            KeyCode::End => Some(Command::End),
            _ => None,
        };
    }
    let alt = k.modifiers.contains(KeyModifiers::ALT);
    match k.code {
        KeyCode::Char('o') if ctrl => return Some(Command::Back),
        KeyCode::Char('n') if ctrl => return Some(Command::Forward),
        KeyCode::Char('w') if ctrl => return Some(Command::SwitchFile),
        KeyCode::Left if alt => return Some(Command::Back),
        KeyCode::Right if alt => return Some(Command::Forward),
        _ => {}
    }
    Some(match k.code {
        KeyCode::Char('q') => Command::Quit,
        KeyCode::Esc => Command::Escape,
        KeyCode::Up | KeyCode::Char('k') => Command::Up,
        KeyCode::Down | KeyCode::Char('j') => Command::Down,
        KeyCode::Left | KeyCode::Char('h') => Command::Left,
        KeyCode::Right | KeyCode::Char('l') => Command::Right,
        KeyCode::PageUp => Command::PageUp,
        KeyCode::PageDown => Command::PageDown,
        KeyCode::Char('b') if ctrl => Command::PageUp,
        KeyCode::Char('f') if ctrl => Command::PageDown,
        KeyCode::Char('u') if ctrl => Command::HalfPageUp,
        KeyCode::Char('d') if ctrl => Command::HalfPageDown,
        KeyCode::Char('G') => Command::End,
        KeyCode::Home => Command::Home,
        KeyCode::End => Command::End,
        KeyCode::Enter => Command::Activate,
        KeyCode::Backspace => Command::Backspace,
        KeyCode::Char(' ') => Command::Toggle,
        KeyCode::Tab | KeyCode::BackTab => Command::SwitchFocus,
        KeyCode::Char(']') => Command::NextSibling,
        KeyCode::Char('[') => Command::PrevSibling,
        KeyCode::Char('g') => Command::OpenGoto,
        KeyCode::Char('?') => Command::OpenHelp,
        KeyCode::Char('/') => Command::OpenSearch,
        KeyCode::Char('n') => Command::NextMatch,
        KeyCode::Char('N') => Command::PrevMatch,
        KeyCode::Char('f') => Command::Follow,
        KeyCode::Char('i') => Command::ToggleInspector,
        KeyCode::Char('e') => Command::SwapEndian,
        KeyCode::Char('m') => Command::StartMark,
        KeyCode::Char('\'') => Command::StartJump,
        KeyCode::Char('M') => Command::ListMarks,
        KeyCode::Char('!') => Command::ListDiagnostics,
        KeyCode::Char('d') => Command::ShowNode,
        KeyCode::Char('w') => Command::CyclePanes,
        KeyCode::Char('y') => Command::OpenCopy,
        KeyCode::Char('x') => Command::OpenSave,
        KeyCode::Char('#') => Command::CycleNumbers,
        KeyCode::Char('z') => Command::CollapseAll,
        KeyCode::Char('*') => Command::OpenSubtree,
        KeyCode::Char('F') => Command::OpenFilter,
        KeyCode::Char('v') => Command::Visual,
        KeyCode::Char('s') => Command::ListStrings,
        KeyCode::Char('o') => Command::OpenOverview,
        KeyCode::Char('K') => Command::OpenDescribe,
        KeyCode::Char('c') => Command::NextChange,
        KeyCode::Char('C') => Command::PrevChange,
        KeyCode::Char('=') => Command::OnlyChanges,
        _ => return None,
    })
}

pub fn map_mouse(m: MouseEvent) -> Option<Command> {
    match m.kind {
        MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
            Some(Command::Click(m.column, m.row))
        }
        MouseEventKind::ScrollUp => Some(Command::ScrollUp(m.column, m.row)),
        MouseEventKind::ScrollDown => Some(Command::ScrollDown(m.column, m.row)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn vim_and_arrow_keys_agree() {
        for (a, b) in [
            (KeyCode::Up, KeyCode::Char('k')),
            (KeyCode::Down, KeyCode::Char('j')),
            (KeyCode::Left, KeyCode::Char('h')),
            (KeyCode::Right, KeyCode::Char('l')),
        ] {
            assert_eq!(map_key(key(a), Mode::Normal), map_key(key(b), Mode::Normal));
        }
    }

    /// Every key the map knows is in the table the help and
    /// `docs/keys.md` show.
    #[test]
    fn every_mapped_key_is_documented() {
        let doc: String = KEYS.iter().map(|(k, d)| format!("{k} {d}\n")).collect();
        for c in ' '..='~' {
            for m in [KeyModifiers::NONE, KeyModifiers::CONTROL] {
                let ev = KeyEvent::new(KeyCode::Char(c), m);
                let got = map_key(ev, Mode::Normal);
                // Ctrl with a key that means what the key means alone.
                let same = m == KeyModifiers::CONTROL
                    && got == map_key(key(KeyCode::Char(c)), Mode::Normal);
                if got.is_none() || same {
                    continue;
                }
                let name = match (m, c) {
                    (_, ' ') => "`Space`".to_string(),
                    (KeyModifiers::CONTROL, c) => format!("`Ctrl-{c}`"),
                    (_, c) => format!("`{c}`"),
                };
                assert!(doc.contains(&name), "{name} is not documented");
            }
        }
        for (code, name) in [
            (KeyCode::Up, "`↑`"),
            (KeyCode::Down, "`↓`"),
            (KeyCode::Left, "`←`"),
            (KeyCode::Right, "`→`"),
            (KeyCode::PageUp, "`PgUp`"),
            (KeyCode::PageDown, "`PgDn`"),
            (KeyCode::Home, "`Home`"),
            (KeyCode::End, "`End`"),
            (KeyCode::Enter, "`Enter`"),
            (KeyCode::Tab, "`Tab`"),
            (KeyCode::Esc, "`Esc`"),
        ] {
            assert!(map_key(key(code), Mode::Normal).is_some());
            assert!(doc.contains(name), "{name} is not documented");
        }
        assert!(doc.contains("`Alt-←`") && doc.contains("`Alt-→`"));
    }

    #[test]
    fn prompts_take_text() {
        assert_eq!(
            map_key(key(KeyCode::Char('q')), Mode::Text),
            Some(Command::Input('q'))
        );
        assert_eq!(
            map_key(key(KeyCode::Char('q')), Mode::Normal),
            Some(Command::Quit)
        );
        assert_eq!(
            map_key(key(KeyCode::Esc), Mode::Text),
            Some(Command::Escape)
        );
        assert_eq!(
            map_key(
                KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
                Mode::Text
            ),
            Some(Command::Interrupt)
        );
    }
}
