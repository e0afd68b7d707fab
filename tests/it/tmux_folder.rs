//! A folder in a real terminal (`fwview DIR`): the list of its files with
//! the formats and targets the single-file outputs give, a filter typed,
//! a file explored and left again with the cursor where it was, `q`.
//! Skipped where tmux is not installed.

use crate::common;

use std::path::{Path, PathBuf};

use common::tmux::Tmux;

/// The two samples with device code, where the test tree puts them.
const SAMPLES: [(&str, &str); 2] = [
    (
        "offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o",
        "lib/kernels/saxpy_omp.o",
    ),
    (
        "zebin/generated_locally/ocloc22.43__add_fat.ar",
        "lib/deep/er/add_fat.ar",
    ),
];

/// The tree: nested folders, the two samples, an empty file, a FIFO.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = common::scratch();
    let root = dir.path().join("pkg");
    for (from, to) in SAMPLES {
        let to = root.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(common::asset(from), &to).unwrap();
    }
    std::fs::write(root.join("lib/empty"), b"").unwrap();
    let fifo = root.join("lib/fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    (dir, root)
}

/// What `fwview --targets FILE` prints for a file: its targets, each once,
/// in order, joined by spaces; and the file's format as `--json` names it.
fn single_file_facts(file: &Path) -> (String, String) {
    let o = common::fwview(&[file.as_os_str(), "--targets".as_ref()]);
    let mut targets: Vec<String> = Vec::new();
    for line in String::from_utf8(o.stdout).unwrap().lines() {
        let t = line.split('\t').nth(1).unwrap().to_string();
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    assert!(!targets.is_empty(), "{} has device code", file.display());
    let o = common::fwview(&[file.as_os_str(), "--json".as_ref()]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let format = json["format"].as_str().unwrap().to_string();
    (format, targets.join(" "))
}

/// The command tmux runs: fwview on the folder, its exit status written to
/// a file, its marks kept in the scratch folder.
fn command(root: &Path, status: &Path) -> String {
    format!(
        "sh -c 'XDG_STATE_HOME={} {} {}; echo $? > {}'",
        root.parent().unwrap().display(),
        env!("CARGO_BIN_EXE_fwview"),
        root.display(),
        status.display()
    )
}

/// The details line: the path of the file under the cursor first.
fn details(screen: &str) -> &str {
    let lines: Vec<&str> = screen.lines().collect();
    lines
        .get(lines.len().saturating_sub(2))
        .copied()
        .unwrap_or("")
}

/// Waits for the explorer, its root node the file `name`.
fn explorer_of(t: &Tmux, name: &str) {
    let s = t.wait("the explorer", |s| s.contains("Structure"));
    assert!(
        s.lines().nth(1).is_some_and(|l| l.contains(name)),
        "the root node shows:\n{s}"
    );
}

fn quit_with_0(t: &Tmux, status: &Path) {
    t.keys(&["q"]);
    crate::tmux::wait_dead(t);
    let code = std::fs::read_to_string(status).unwrap_or_default();
    assert_eq!(code.trim(), "0", "exit status; screen:\n{}", t.screen());
}

#[test]
fn a_folder_lists_its_files_with_formats_and_targets_at_80x24() {
    let (dir, root) = folder();
    let status = dir.path().join("status");
    let Some(t) = Tmux::start(&command(&root, &status), 80, 24) else {
        return;
    };
    let s = t.wait("the scan to end", |s| s.contains("3/3 files read"));
    assert!(s.contains("4 of 4 files"), "{s}");
    for (_, rel) in SAMPLES {
        let (format, targets) = single_file_facts(&root.join(rel));
        let row = s
            .lines()
            .find(|l| l.contains(rel))
            .unwrap_or_else(|| panic!("no row for {rel}:\n{s}"));
        let cells: Vec<&str> = row.trim_matches(['│', ' ']).split("  ").collect();
        assert!(cells.contains(&format.as_str()), "{format} in {row}");
        assert!(row.contains(&format!("  {targets}")), "{targets} in {row}");
    }
    let row = |name: &str| s.lines().find(|l| l.contains(name)).unwrap_or("");
    assert!(row("lib/fifo").contains("is a FIFO, skipped"), "{s}");
    assert!(row("lib/empty").contains("is empty, skipped"), "{s}");

    // A filter narrows the list; the cursor goes to its last row.
    t.text("lib/k");
    let s = t.wait("the filter", |s| s.contains("filter: lib/k"));
    assert!(s.contains("1 of 4 files"), "{s}");
    assert!(!s.contains("add_fat"), "{s}");
    t.keys(&["BSpace"]);
    let s = t.wait("the wider filter", |s| s.contains("filter: lib/ "));
    assert!(s.contains("4 of 4 files"), "{s}");
    t.keys(&["End"]);
    let kernels = SAMPLES[0].1;
    t.wait("the cursor on the last file", |s| {
        details(s).starts_with(kernels)
    });

    // Enter explores it; Esc, with nothing to close, comes back.
    t.keys(&["Enter"]);
    explorer_of(&t, "saxpy_omp.o");
    t.keys(&["Escape"]);
    let s = t.wait("the list again", |s| s.contains("filter: lib/ "));
    assert!(details(&s).starts_with(kernels), "{s}");

    // Backspace on the root comes back too.
    t.keys(&["Enter"]);
    t.wait("the explorer", |s| s.contains("Structure"));
    t.keys(&["BSpace"]);
    let s = t.wait("the list again", |s| s.contains("filter: lib/ "));
    assert!(details(&s).starts_with(kernels), "{s}");
    quit_with_0(&t, &status);
}

#[test]
fn a_folder_lists_its_files_at_40x10() {
    let (dir, root) = folder();
    let status = dir.path().join("status");
    let Some(t) = Tmux::start(&command(&root, &status), 40, 10) else {
        return;
    };
    let s = t.wait("the scan to end", |s| s.contains("3/3 files read"));
    assert!(s.lines().count() <= 10, "{s}");
    assert!(s.lines().all(|l| l.chars().count() <= 40), "{s}");
    let (format, targets) = single_file_facts(&root.join(SAMPLES[0].1));
    t.text("kern");
    let s = t.wait("the filter", |s| s.contains("1 of 4"));
    let row = s
        .lines()
        .find(|l| l.contains("saxpy_omp.o"))
        .unwrap_or_else(|| panic!("no row:\n{s}"));
    assert!(row.contains(&format!("  {format}  ")), "{row}");
    let first = targets.split(' ').next().unwrap();
    assert!(row.contains(first), "{first} in {row}");

    t.keys(&["Enter"]);
    let s = t.wait("the explorer", |s| s.contains("Hex"));
    assert!(s.contains("saxpy_omp.o"), "{s}");
    t.keys(&["Escape"]);
    let s = t.wait("the list again", |s| s.contains("filter: kern"));
    assert!(details(&s).starts_with("lib/kernels/saxpy"), "{s}");
    quit_with_0(&t, &status);
}

/// A relocatable x86-64 ELF of about 50 MB that takes a while to parse:
/// `sections` code sections of 65,536 bytes, each with a function symbol of
/// one byte at every offset, all shown where their bytes are.
fn slow_elf(sections: u16) -> Vec<u8> {
    const PER: u64 = 65_536;
    let mut strtab = vec![0u8];
    let mut symtab = vec![0u8; 24];
    for s in 0..sections {
        for i in 0..PER {
            let name = strtab.len() as u32;
            strtab.extend_from_slice(format!("f{s}_{i}\0").as_bytes());
            symtab.extend_from_slice(&name.to_le_bytes());
            symtab.extend_from_slice(&[0x12, 0]); // GLOBAL FUNC
            symtab.extend_from_slice(&(s + 1).to_le_bytes());
            symtab.extend_from_slice(&i.to_le_bytes());
            symtab.extend_from_slice(&1u64.to_le_bytes());
        }
    }
    let shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0";
    let mut d = vec![0u8; 64];
    // name, type, flags, offset, size, link, info, entsize
    type Shdr = (u32, u32, u64, u64, u64, u32, u32, u64);
    let mut secs: Vec<Shdr> = vec![(0, 0, 0, 0, 0, 0, 0, 0)];
    for _ in 0..sections {
        secs.push((1, 1, 6, d.len() as u64, PER, 0, 0, 0));
        d.resize(d.len() + PER as usize, 0x90);
    }
    let n = u32::from(sections);
    for (name, typ, bytes, link, es) in [
        (7, 2, &symtab[..], n + 2, 24),
        (15, 3, &strtab[..], 0, 0),
        (23, 3, &shstr[..], 0, 0),
    ] {
        secs.push((
            name,
            typ,
            0,
            d.len() as u64,
            bytes.len() as u64,
            link,
            1,
            es,
        ));
        d.extend_from_slice(bytes);
    }
    while !d.len().is_multiple_of(8) {
        d.push(0);
    }
    let shoff = d.len() as u64;
    for (name, typ, flags, off, size, link, info, es) in &secs {
        for v in [name, typ] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        for v in [flags, &0, off, size] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        for v in [link, info] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        for v in [&1, es] {
            d.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut h = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    for v in [1u16, 62] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&1u32.to_le_bytes());
    for v in [0, 0, shoff] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&0u32.to_le_bytes());
    let count = secs.len() as u16;
    for v in [64u16, 0, 0, 64, count, count - 1] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    d[..64].copy_from_slice(&h);
    d
}

/// Enter on a large file parses it off the screen's thread: the list says
/// it is opening it and still answers keys (the cursor moves), Esc gives
/// it up, and Enter again opens the explorer once it is parsed.
#[test]
fn a_large_file_opens_while_the_list_answers_at_80x24() {
    let dir = common::scratch();
    let root = dir.path().join("pkg");
    std::fs::create_dir_all(&root).unwrap();
    let big = slow_elf(24);
    assert!(big.len() > 50 << 20, "{} bytes", big.len());
    std::fs::write(root.join("big.o"), big).unwrap();
    std::fs::copy(common::asset(SAMPLES[0].0), root.join("small.o")).unwrap();
    let status = dir.path().join("status");
    let Some(t) = Tmux::start(&command(&root, &status), 80, 24) else {
        return;
    };
    t.wait("the scan to end", |s| s.contains("2/2 files read"));
    t.wait("the cursor on the large file", |s| {
        details(s).starts_with("big.o")
    });

    t.keys(&["Enter"]);
    t.wait("the opening line", |s| s.contains("opening big.o…"));
    // The list answers while the file is parsed.
    t.keys(&["Down"]);
    let s = t.wait("the cursor moved, the file still opening", |s| {
        details(s).starts_with("small.o") && s.contains("opening big.o…")
    });
    assert!(!s.contains("Structure"), "{s}");
    t.keys(&["Escape"]);
    let s = t.wait("the opening given up", |s| {
        s.contains("opening big.o cancelled")
    });
    assert!(details(&s).starts_with("small.o"), "{s}");

    // Opened again, and waited for: the explorer.
    t.keys(&["Up", "Enter"]);
    explorer_of(&t, "big.o");
    t.keys(&["Escape"]);
    let s = t.wait("the list again", |s| s.contains("2/2 files read"));
    assert!(details(&s).starts_with("big.o"), "{s}");
    quit_with_0(&t, &status);
}
