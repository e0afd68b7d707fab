//! A function's instructions in a real terminal (80x24): one row each,
//! address, bytes and text in columns, as llvm-objdump prints them for an
//! object clang-22 compiles here; the hex pane and the rows follow each
//! other both ways. Skipped where tmux, clang-22, llvm-objdump-22 or
//! libLLVM is missing.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::tmux::Tmux;

const CLANG: &str = "clang-22";
const OBJDUMP: &str = "llvm-objdump-22";
const READELF: &str = "llvm-readelf-22";

const SOURCE: &str = "int g(int x) { return x * 3 + 7; }\n\
int f(int x) { int s = 0; for (int i = 0; i < x; i++) s += g(i) ^ i; return s; }\n";

/// One instruction as llvm-objdump prints it.
struct Insn {
    addr: u64,
    bytes: Vec<u8>,
    text: String,
}

/// The instructions of function `func` in `.text`, from `llvm-objdump -d`
/// with raw bytes: `  14: 8d 04 bf   \tleal\t(%rdi,%rdi,4), %eax`.
fn objdump(file: &Path, func: &str) -> Vec<Insn> {
    let out = Command::new(OBJDUMP)
        .arg("-d")
        .arg(file)
        .output()
        .expect("llvm-objdump runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut inside = false;
    let mut v = Vec::new();
    for line in text.lines() {
        if line.ends_with(&format!("<{func}>:")) {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if line.trim().is_empty() {
            break;
        }
        let Some((a, rest)) = line.split_once(':') else {
            continue;
        };
        let Some((bytes, t)) = rest.split_once('\t') else {
            continue;
        };
        let t = t.split(" <").next().unwrap_or(t);
        v.push(Insn {
            addr: u64::from_str_radix(a.trim(), 16).expect("an address"),
            bytes: bytes
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).expect("a hex byte"))
                .collect(),
            text: t.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }
    v
}

/// Where `.text` starts in the file, from llvm-readelf's section headers.
fn text_offset(file: &Path) -> u64 {
    section_offset(file, ".text")
}

/// [`SOURCE`] compiled by clang-22 for x86-64 into `dir/x.o`.
fn compile(dir: &Path) -> std::path::PathBuf {
    compile_as(dir, SOURCE, "x")
}

/// `src` compiled by clang-22 -O1 for x86-64 into `dir/NAME.o`.
fn compile_as(dir: &Path, src: &str, name: &str) -> std::path::PathBuf {
    let c = dir.join(format!("{name}.c"));
    let o = dir.join(format!("{name}.o"));
    std::fs::write(&c, src).unwrap();
    let ok = Command::new(CLANG)
        .args(["-O1", "-c", "--target=x86_64-linux-gnu", "-o"])
        .arg(&o)
        .arg(&c)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "clang-22 compiles");
    o
}

/// The status bar's first line: the selected node and its value.
fn selected(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len().saturating_sub(2)].to_string()
}

#[test]
fn a_functions_instructions_are_rows_in_sync_with_the_hex_pane() {
    if !common::tool(CLANG)
        || !common::tool(OBJDUMP)
        || !common::tool(READELF)
        || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let dir = common::scratch();
    let o = compile(dir.path());
    let insns = objdump(&o, "f");
    assert!(insns.len() >= 6, "{} instructions", insns.len());
    let base = text_offset(&o);

    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_fwview"), o.display());
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));
    // Go to the third instruction's first byte: its row is selected.
    let third = &insns[2];
    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to: 0x offset"));
    t.text(&format!("0x{:x}", base + third.addr));
    t.keys(&["Enter"]);
    let row = |i: &Insn| format!("0x{:08x}  ", i.addr);
    let s = t.wait("the function's rows", |s| s.contains(&row(third)));
    assert!(
        selected(&s).starts_with(&format!("0x{:08x}  {}", third.addr, third.text)),
        "the status line names the instruction:\n{s}"
    );
    // Every row: the address, then as many of its bytes as fit (with `…`
    // where cut), then the start of its text, the text in one column.
    let mut text_col = None;
    for i in &insns {
        let Some(line) = s.lines().find(|l| l.contains(&row(i))) else {
            continue;
        };
        let after = line.split_once(&row(i)).map(|x| x.1).unwrap_or_default();
        let cells: Vec<&str> = after.split_whitespace().collect();
        let mut k = 0;
        while let Some(b) = cells.get(k) {
            let hex = b.trim_end_matches('…');
            match u8::from_str_radix(hex, 16) {
                Ok(v) if hex.len() == 2 => {
                    assert_eq!(Some(&v), i.bytes.get(k), "byte {k} of {line}");
                    k += 1;
                    if b.ends_with('…') {
                        assert!(i.bytes.len() > k, "cut only where longer: {line}");
                        break;
                    }
                }
                _ => break,
            }
        }
        assert!(
            k >= 2.min(i.bytes.len()),
            "bytes shown at 80 columns: {line}"
        );
        if k < i.bytes.len() {
            assert!(after.contains('…'), "a cut shows `…`: {line}");
        }
        let mnemonic = i.text.split(' ').next().unwrap_or_default();
        let at = line.find(&format!("  {mnemonic}")).expect("the text") + 2;
        let col = line[..at].chars().count();
        assert_eq!(
            *text_col.get_or_insert(col),
            col,
            "aligned text: {line}\n{s}"
        );
        assert!(line.chars().count() <= 80);
    }
    assert!(text_col.is_some(), "rows shown:\n{s}");

    // The hex pane moves the selection: past the third instruction's
    // bytes, the fourth is selected.
    t.keys(&["Tab"]);
    for _ in 0..third.bytes.len() {
        t.keys(&["Right"]);
    }
    let fourth = &insns[3];
    let want = format!("0x{:08x}  {}", fourth.addr, fourth.text);
    t.wait("the next instruction selected", |s| {
        selected(s).starts_with(&want)
    });
    // And the rows move the hex cursor: Down in the tree goes to the fifth
    // instruction and its first byte.
    t.keys(&["Tab"]);
    t.keys(&["Down"]);
    let fifth = &insns[4];
    let s = t.wait("the cursor at the fifth instruction", |s| {
        s.contains(&format!("0x{:x} / 0x", base + fifth.addr))
    });
    assert!(
        selected(&s).starts_with(&format!("0x{:08x}  {}", fifth.addr, fifth.text)),
        "{s}"
    );
    t.keys(&["q"]);
}

/// `/n:retq` finds the returns in functions not yet opened, as many as
/// llvm-objdump prints; `y v` copies the instruction's text.
#[test]
fn mnemonics_are_found_and_copied_in_the_explorer() {
    if !common::tool(CLANG) || !common::tool(OBJDUMP) || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let dir = common::scratch();
    let o = compile(dir.path());
    let rets: Vec<Insn> = ["g", "f"]
        .iter()
        .flat_map(|f| objdump(&o, f))
        .filter(|i| i.text == "retq")
        .collect();
    assert!(!rets.is_empty());
    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_fwview"), o.display());
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));
    t.keys(&["/"]);
    t.wait("the search prompt", |s| s.contains("Search:"));
    t.text("n:retq");
    t.keys(&["Enter"]);
    let s = t.wait("the first match", |s| s.contains("match 1 of"));
    assert!(
        s.contains(&format!("match 1 of {}", rets.len())),
        "{} returns:\n{s}",
        rets.len()
    );
    assert!(
        selected(&s).starts_with(&format!("0x{:08x}  retq", rets[0].addr)),
        "{s}"
    );
    t.keys(&["y"]);
    t.wait("the copy menu", |s| s.contains("Copy (Esc cancels)"));
    t.keys(&["v"]);
    t.wait("the copy", |s| {
        s.contains("copied the instruction's text to the clipboard")
    });
    t.keys(&["q"]);
}

/// Two builds side by side (`fwview A B`): a statement inserted in B is
/// one added row in the function, and the instructions after it, at new
/// addresses, pair with theirs in A unmarked.
#[test]
fn the_side_by_side_view_aligns_instructions_as_a_sequence() {
    if !common::tool(CLANG) || !common::tool(OBJDUMP) || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let src = "volatile int v;\nvoid steps(void) { v = 1; v = 2; v = 3; v = 4; v = 5; }\n";
    let dir = common::scratch();
    let a = compile_as(dir.path(), src, "a");
    let b = compile_as(dir.path(), &src.replace("v = 2;", "v = 2; v = 42;"), "b");
    let added = objdump(&b, "steps")
        .into_iter()
        .find(|i| i.text.starts_with("movl $0x2a,"))
        .expect("the store of 42");
    let cmd = format!(
        "{} {} {}",
        env!("CARGO_BIN_EXE_fwview"),
        a.display(),
        b.display()
    );
    let Some(t) = Tmux::start(&cmd, 240, 30) else {
        return;
    };
    t.wait("the diff counts", |s| s.contains(" changed  +"));
    let row = format!("0x{:08x}  ", added.addr);
    // The panes of a line: A's tree, A's hex, B's tree, B's hex.
    let panes = |l: &str| -> Vec<String> { l.split("││").map(str::to_string).collect() };
    // The keys to B, whose tree holds the added row; c until it shows.
    t.keys(&["C-w"]);
    let mut s = t.screen();
    for _ in 0..60 {
        if s.contains("movl $0x2a") {
            break;
        }
        t.keys(&["c"]);
        s = t.wait("the next change", |_| true);
    }
    // B's tree holds the added row, marked; A's tree has no such row.
    assert!(
        !s.lines()
            .filter(|l| l.contains("││"))
            .any(|l| panes(l)[0].contains("movl $0x2a")),
        "{s}"
    );
    let line = s
        .lines()
        .find(|l| l.contains("movl $0x2a") && l.contains("││"))
        .unwrap_or_else(|| panic!("the added row:\n{s}"));
    let b = panes(line).get(2).cloned().unwrap_or_default();
    assert!(b.contains(&format!("+ {row}")), "{line}");
    // The stores after it moved by the new instruction's length, pair
    // with A's and are no change.
    for _ in 0..4 {
        t.keys(&["j"]);
    }
    let s = t.wait("the rows after it", |s| s.contains("movl $0x5, (%rip)"));
    for k in 3..=5 {
        let store = format!("movl $0x{k}, (%rip)");
        for side in [0, 2] {
            let l = s
                .lines()
                .map(panes)
                .filter_map(|p| p.get(side).cloned())
                .find(|p| p.contains(&store))
                .unwrap_or_else(|| panic!("the store of {k}:\n{s}"));
            assert!(!l.contains("~ 0x") && !l.contains("+ 0x"), "unmarked: {l}");
        }
    }
    t.keys(&["q"]);
}

/// Where section `name` starts in the file, from llvm-readelf's section
/// headers: `[ 2] .text PROGBITS 0000000000000000 000040 …`, the offset
/// after the address.
fn section_offset(file: &Path, name: &str) -> u64 {
    let out = Command::new(READELF)
        .args(["-S", "--wide"])
        .arg(file)
        .output()
        .expect("llvm-readelf runs");
    let s = String::from_utf8_lossy(&out.stdout);
    let line = s
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == name))
        .unwrap_or_else(|| panic!("a {name} section"));
    let w: Vec<&str> = line.split(']').nth(1).unwrap().split_whitespace().collect();
    u64::from_str_radix(w[3], 16).expect("an offset")
}

#[test]
fn a_line_row_follows_to_its_instruction_and_rows_show_their_source_line() {
    if !common::tool(CLANG)
        || !common::tool(OBJDUMP)
        || !common::tool(READELF)
        || !common::tool("llvm-dwarfdump-22")
        || fwview::disasm::Engine::library().is_none()
    {
        return;
    }
    let dir = common::scratch();
    let c = dir.path().join("x.c");
    let o = dir.path().join("x.o");
    std::fs::write(&c, SOURCE).unwrap();
    // Compiled where it is, so that the line table names it `x.c`.
    let ok = Command::new(CLANG)
        .current_dir(dir.path())
        .args([
            "-g",
            "-O1",
            "-c",
            "--target=x86_64-linux-gnu",
            "-o",
            "x.o",
            "x.c",
        ])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "clang-22 compiles");
    // The last opcode that appends a row inside a function, and the row's
    // address, from `llvm-dwarfdump -v --debug-line`.
    let out = Command::new("llvm-dwarfdump-22")
        .args(["-v", "--debug-line"])
        .arg(&o)
        .output()
        .expect("llvm-dwarfdump runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut opcode = None;
    let mut chosen = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some((off, _)) = t.split_once(": ").filter(|(o, _)| o.len() == 10) {
            opcode = u64::from_str_radix(off.trim_start_matches("0x"), 16).ok();
        } else if t.starts_with("0x") && !t.contains("end_sequence") {
            let addr = u64::from_str_radix(&t[2..18], 16).unwrap();
            if addr > 0 {
                chosen = opcode.map(|o| (o, addr));
            }
        }
    }
    let (op, addr) = chosen.expect("a row past the first address");
    let insns = objdump(&o, "f");
    let insn = insns
        .iter()
        .find(|i| i.addr == addr)
        .unwrap_or_else(|| panic!("an instruction at 0x{addr:x}"));
    let at = section_offset(&o, ".debug_line") + op;

    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_fwview"), o.display());
    let Some(t) = Tmux::start(&cmd, 160, 40) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));
    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to: 0x offset"));
    t.text(&format!("0x{at:x}"));
    t.keys(&["Enter"]);
    let s = t.wait("the row", |s| {
        selected(s).contains(&format!("0x{addr:016x} x.c:"))
    });
    assert!(selected(&s).contains("x.c:"), "{s}");
    // `f`: the instruction at the row's address, its row showing the
    // source line it came from.
    t.keys(&["f"]);
    let want = format!("0x{:08x}  {}", insn.addr, insn.text);
    let s = t.wait("the instruction", |s| selected(s).starts_with(&want));
    let line = s
        .lines()
        .find(|l| l.contains(&format!("0x{:08x}  ", insn.addr)) && l.contains(&insn.text))
        .unwrap_or_else(|| panic!("its row:\n{s}"));
    assert!(line.contains("; x.c:"), "the source line beside it: {line}");
    t.keys(&["q"]);
    drop(t);
    // At 80 columns the row has no room for it: the status line says it,
    // after the instruction's text.
    let Some(t) = Tmux::start(&cmd, 80, 24) else {
        return;
    };
    t.wait("the first frame", |s| s.contains("Structure"));
    t.keys(&["g"]);
    t.wait("the goto prompt", |s| s.contains("Go to: 0x offset"));
    t.text(&format!("0x{:x}", text_offset(&o) + insn.addr));
    t.keys(&["Enter"]);
    let s = t.wait("the instruction", |s| selected(s).starts_with(&want));
    let status = selected(&s);
    assert!(
        status.starts_with(&format!("{want}  x.c:")),
        "its source line after its text: {status}"
    );
    t.keys(&["q"]);
}
