//! `K` in a real terminal: the selected node read with a `.ksy` named in
//! the prompt (a path relative to the working folder, or a file of the
//! formats folder), and read again when the description is saved.

use crate::common;

use common::tmux::Tmux;

/// A made-up header; `version` becomes a `u4` when the test edits it.
const HDR: &str = "meta: {id: acme_hdr, endian: le}\nseq:\n  - {id: magic, size: 4}\n  - {id: version, type: u2}\n  - {id: count, type: u2}\n";

/// The header's bytes: version 2, count 3 (read as one `u4`: 196610).
const DATA: &[u8] = b"ACME\x02\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00";

/// fwview on `DATA` (as `data.bin` in `d`, formats in `d/config`) in a
/// terminal of `w`x`h`, the top node read with `K` and the description
/// `name`; `None` without tmux.
fn open_with_k(d: &std::path::Path, w: u16, h: u16, name: &str) -> Option<Tmux> {
    std::fs::write(d.join("data.bin"), DATA).unwrap();
    let cmd = format!(
        "cd {} && XDG_CONFIG_HOME={} {} data.bin",
        d.display(),
        d.join("config").display(),
        env!("CARGO_BIN_EXE_fwview")
    );
    let t = Tmux::start(&cmd, w, h)?;
    t.wait("the first frame", |s| s.contains("data.bin"));
    t.keys(&["K"]);
    t.wait("the description prompt", |s| s.contains("Read the"));
    t.text(name);
    t.keys(&["Enter"]);
    let s = t.wait("the described node", |s| s.contains("acme_hdr"));
    assert!(!s.contains("Read the"), "{s}");
    Some(t)
}

fn describe_and_edit(w: u16, h: u16, name: &str) {
    let dir = common::scratch();
    let d = dir.path();
    let formats = d.join("config/fwview/formats");
    std::fs::create_dir_all(&formats).unwrap();
    let ksy = if name.starts_with("formats:") {
        formats.join("acme_hdr.ksy")
    } else {
        d.join("hdr.ksy")
    };
    std::fs::write(&ksy, HDR).unwrap();
    let Some(t) = open_with_k(d, w, h, name.trim_start_matches("formats:")) else {
        return;
    };
    // Open it, and go to `version`, its second child.
    t.keys(&["l"]);
    t.wait("it open", |s| s.contains("▼ acme_hdr"));
    t.keys(&["j", "j"]);
    let s = t.wait("version selected", |s| {
        s.contains("0x4 /") && s.contains("version")
    });
    assert!(s.contains("version") && !s.contains("196610"), "{s}");
    // Saved again: a u4 where the u2 was.
    std::fs::write(&ksy, HDR.replace("version, type: u2", "version, type: u4")).unwrap();
    let s = t.wait("the description read again", |s| s.contains("196610"));
    assert!(s.contains("version"), "{s}");
    t.keys(&["q"]);
}

/// A node search (`/`, `n:`) sees the nodes `K` added.
#[test]
fn a_search_finds_the_nodes_k_added() {
    let dir = common::scratch();
    let d = dir.path();
    std::fs::write(d.join("hdr.ksy"), HDR).unwrap();
    let Some(t) = open_with_k(d, 80, 24, "hdr.ksy") else {
        return;
    };
    // Search a name only the description gives.
    t.keys(&["/"]);
    t.wait("the search prompt", |s| s.contains("Search:"));
    t.text("n:count");
    t.keys(&["Enter"]);
    let s = t.wait("the match", |s| {
        s.contains("match 1 of 1") || s.contains("no match")
    });
    assert!(s.contains("match 1 of 1"), "{s}");
    assert!(s.contains("count"), "{s}");
    t.keys(&["q"]);
}

#[test]
fn k_reads_the_node_with_a_ksy_and_again_when_it_is_saved_80x24() {
    describe_and_edit(80, 24, "hdr.ksy");
}

#[test]
fn k_reads_the_node_with_a_ksy_of_the_formats_folder_40x10() {
    describe_and_edit(40, 10, "formats:acme_hdr");
}
