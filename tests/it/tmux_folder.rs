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
    let s = t.wait("the explorer", |s| s.contains("Structure"));
    assert!(
        s.lines().nth(1).is_some_and(|l| l.contains("saxpy_omp.o")),
        "the root node shows:\n{s}"
    );
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
