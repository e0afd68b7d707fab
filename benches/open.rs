//! The explorer's speed and memory, as docs/benchmarks.md reports them:
//! - open + first frame of a 4 GiB sparse file, and of a 4 KiB one;
//! - first frame of an ELF with 1,000,000 symbols, and one key to the next
//!   frame with that table open;
//! - one redraw at 200x60.
//!
//! After the timings it prints the anonymous resident memory (RssAnon: what
//! the process holds beyond mapped file pages) with the large cases open.

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;

use criterion::Criterion;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use fwview::formats;
use fwview::model::{NodeId, Source};
use fwview::tui::{handle_event, ui, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

const W: u16 = 200;
const H: u16 = 60;

fn term() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(W, H)).expect("terminal")
}

fn open_and_draw(path: &std::path::Path, t: &mut Terminal<TestBackend>) -> App {
    let src = Arc::new(Source::open(path).expect("open"));
    let tree = formats::build_tree(src, "bench");
    let mut app = App::new(tree, "bench");
    t.draw(|f| ui::render(&mut app, f)).expect("draw");
    app
}

/// An ELF64 relocatable with `n` symbols named `sym_N`, in the layout a
/// linker writes: header, .strtab, .symtab, .shstrtab, section headers.
pub fn elf_with_symbols(n: u32) -> Vec<u8> {
    let mut strtab = vec![0u8];
    let mut name_off = Vec::with_capacity(n as usize);
    for i in 0..n {
        name_off.push(strtab.len() as u32);
        strtab.extend_from_slice(format!("sym_{i}").as_bytes());
        strtab.push(0);
    }
    let shstrtab = b"\0.strtab\0.symtab\0.shstrtab\0".to_vec();
    let strtab_off = 64u64;
    let symtab_off = (strtab_off + strtab.len() as u64).next_multiple_of(8);
    let symtab_size = 24 * (n as u64 + 1);
    let shstr_off = symtab_off + symtab_size;
    let sh_off = (shstr_off + shstrtab.len() as u64).next_multiple_of(8);
    let mut f = Vec::with_capacity((sh_off + 4 * 64) as usize);
    // ELF header
    f.extend_from_slice(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0");
    f.extend_from_slice(&1u16.to_le_bytes()); // ET_REL
    f.extend_from_slice(&62u16.to_le_bytes()); // x86-64
    f.extend_from_slice(&1u32.to_le_bytes());
    f.extend_from_slice(&0u64.to_le_bytes()); // entry
    f.extend_from_slice(&0u64.to_le_bytes()); // phoff
    f.extend_from_slice(&sh_off.to_le_bytes());
    f.extend_from_slice(&0u32.to_le_bytes());
    for v in [64u16, 0, 0, 64, 4, 3] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    f.extend_from_slice(&strtab);
    f.resize(symtab_off as usize, 0);
    f.extend_from_slice(&[0u8; 24]);
    for (i, off) in name_off.iter().enumerate() {
        f.extend_from_slice(&off.to_le_bytes());
        f.push(0x12); // GLOBAL FUNC
        f.push(0);
        f.extend_from_slice(&0xfff1u16.to_le_bytes()); // SHN_ABS
        f.extend_from_slice(&(i as u64 * 16).to_le_bytes());
        f.extend_from_slice(&16u64.to_le_bytes());
    }
    f.extend_from_slice(&shstrtab);
    f.resize(sh_off as usize, 0);
    let sh =
        |name: u32, ty: u32, off: u64, size: u64, link: u32, info: u32, align: u64, ent: u64| {
            let mut h = Vec::with_capacity(64);
            h.extend_from_slice(&name.to_le_bytes());
            h.extend_from_slice(&ty.to_le_bytes());
            h.extend_from_slice(&0u64.to_le_bytes());
            h.extend_from_slice(&0u64.to_le_bytes());
            h.extend_from_slice(&off.to_le_bytes());
            h.extend_from_slice(&size.to_le_bytes());
            h.extend_from_slice(&link.to_le_bytes());
            h.extend_from_slice(&info.to_le_bytes());
            h.extend_from_slice(&align.to_le_bytes());
            h.extend_from_slice(&ent.to_le_bytes());
            h
        };
    f.extend_from_slice(&[0u8; 64]);
    f.extend(sh(1, 3, strtab_off, strtab.len() as u64, 0, 0, 1, 0));
    f.extend(sh(9, 2, symtab_off, symtab_size, 1, 1, 8, 24));
    f.extend(sh(17, 3, shstr_off, shstrtab.len() as u64, 0, 0, 1, 0));
    f
}

/// Opens the largest lazily built table it finds (breadth-first, a few
/// levels down) and selects it, so that the next frames show it open.
fn open_biggest_table(app: &mut App) -> Option<NodeId> {
    let mut best: Option<(u64, NodeId)> = None;
    let mut level = vec![app.doc.tree.root()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for id in level {
            for k in app.doc.tree.children(id) {
                let n = app.doc.tree.node(k).unwrap();
                if !app.doc.tree.is_built(k) && best.is_none_or(|(s, _)| n.size > s) {
                    best = Some((n.size, k));
                }
                next.push(k);
            }
        }
        level = next;
    }
    let (_, id) = best?;
    app.select(id, true);
    app.open(id);
    Some(id)
}

fn rss_anon_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("RssAnon:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn key(app: &mut App, code: KeyCode) {
    handle_event(app, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = dir.path().join("sparse-4g.bin");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(4 << 30))
        .expect("sparse file");
    let small = dir.path().join("small-4k.bin");
    std::fs::write(&small, vec![0x5a; 4096]).expect("small file");
    let elf_path = dir.path().join("1m-symbols.o");
    std::fs::File::create(&elf_path)
        .and_then(|mut f| f.write_all(&elf_with_symbols(1_000_000)))
        .expect("elf");
    let xclbin = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/xclbin/ryzenai-sw__cvml_ryzen14_AMD_AIE2P_Nx4_Overlay.xclbin");

    // Memory, with the 4 GiB file and the 1M-symbol table open at once.
    let base = rss_anon_kib();
    let mut t = term();
    let mut big_app = open_and_draw(&big, &mut t);
    key(&mut big_app, KeyCode::Tab);
    key(&mut big_app, KeyCode::End);
    t.draw(|f| ui::render(&mut big_app, f)).expect("draw");
    let mut elf_app = open_and_draw(&elf_path, &mut t);
    if let Some(id) = open_biggest_table(&mut elf_app) {
        if let Some(&g) = elf_app.doc.tree.built_children(id).first() {
            elf_app.open(g);
        }
    }
    t.draw(|f| ui::render(&mut elf_app, f)).expect("draw");
    let after = rss_anon_kib();
    println!(
        "memory: RssAnon {} KiB before, {} KiB with both open: {:.1} MiB more (the 1M-symbol ELF, {:.1} MiB, is mapped, not copied)",
        base,
        after,
        after.saturating_sub(base) as f64 / 1024.0,
        std::fs::metadata(&elf_path).map(|m| m.len()).unwrap_or(0) as f64 / (1 << 20) as f64
    );
    black_box((big_app, elf_app));

    let mut c = Criterion::default().configure_from_args().sample_size(20);
    let mut t = term();
    c.bench_function("open + first frame, 4 GiB sparse file", |b| {
        b.iter(|| black_box(open_and_draw(&big, &mut t)))
    });
    c.bench_function("open + first frame, 4 KiB file", |b| {
        b.iter(|| black_box(open_and_draw(&small, &mut t)))
    });
    c.bench_function("open + first frame, ELF with 1,000,000 symbols", |b| {
        b.iter(|| black_box(open_and_draw(&elf_path, &mut t)))
    });
    let mut app = open_and_draw(&elf_path, &mut t);
    let table = open_biggest_table(&mut app);
    if let Some(id) = table {
        // Open the first group too, so a thousand symbols are on the tree.
        if let Some(&g) = app.doc.tree.built_children(id).first() {
            app.open(g);
        }
    }
    t.draw(|f| ui::render(&mut app, f)).expect("draw");
    c.bench_function("key + next frame, 1,000,000-symbol table open", |b| {
        let mut down = true;
        b.iter(|| {
            key(&mut app, if down { KeyCode::Down } else { KeyCode::Up });
            down = !down;
            t.draw(|f| ui::render(&mut app, f)).expect("draw");
        })
    });
    let mut xapp = open_and_draw(&xclbin, &mut t);
    for _ in 0..30 {
        key(&mut xapp, KeyCode::Down);
        key(&mut xapp, KeyCode::Right);
    }
    c.bench_function("redraw at 200x60", |b| {
        b.iter(|| {
            t.draw(|f| ui::render(&mut xapp, f)).expect("draw");
        })
    });
    c.final_summary();

    println!("table: {:?}", table.map(|id| app.doc.tree.path_string(id)));
}
