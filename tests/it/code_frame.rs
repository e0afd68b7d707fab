//! The explorer with a function of 100,000 instructions: opening it
//! decodes it (a pass that counts and marks every thousandth instruction,
//! then the first thousand as rows) and draws the next frame within
//! 100 ms. The object is built here by clang-22 from generated assembly
//! (x86-64, a mix of instruction lengths); skipped where clang-22 or
//! libLLVM is missing. Decoders run in the test's own process.

use crate::common;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fwview::formats::build_tree_with;
use fwview::model::{NodeId, Options, Source};
use fwview::tui::{ui, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

const CLANG: &str = "clang-22";

/// The instructions of the function, in turn.
const BODY: [&str; 8] = [
    "addl $1, %eax",
    "movq %rdi, %rax",
    "leaq 8(%rsi,%rdx,4), %rcx",
    "imull $12345, %ecx, %edx",
    "xorl %r8d, %r9d",
    "movabsq $0x123456789abcdef0, %r10",
    "vpaddd %ymm1, %ymm2, %ymm3",
    "nop",
];

const COUNT: usize = 100_000;

/// The CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
fn a_function_of_100000_instructions_opens_within_a_frame() {
    if !common::tool(CLANG) || fwview::disasm::Engine::library().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut asm = String::from(".text\n.globl big\n.type big,@function\nbig:\n");
    for k in 0..COUNT - 1 {
        asm.push_str(BODY[k % BODY.len()]);
        asm.push('\n');
    }
    asm.push_str("ret\n.size big, .-big\n");
    let s = dir.path().join("big.s");
    let o = dir.path().join("big.o");
    std::fs::write(&s, asm).unwrap();
    let st = Command::new(CLANG)
        .args(["-c", "--target=x86_64-linux-gnu", "-o"])
        .arg(&o)
        .arg(&s)
        .status()
        .unwrap();
    assert!(st.success());
    let src = Arc::new(Source::open(&o).unwrap());
    // (open the function, then its first group): wall and CPU time each.
    let mut times: [Vec<(Duration, Duration)>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..5 {
        let tree = build_tree_with(
            Arc::clone(&src),
            "big.o",
            Options {
                code: true,
                arg_names: None,
                nested_only: false,
            },
        );
        let mut app = App::new(tree, "big.o");
        let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
        t.draw(|f| ui::render(&mut app, f)).unwrap();
        let func = find(&mut app, "big").expect("the function big");
        app.select(func, true);
        let (w, c) = (Instant::now(), thread_cpu());
        app.open(func);
        t.draw(|f| ui::render(&mut app, f)).unwrap();
        times[0].push((w.elapsed(), thread_cpu() - c));
        // Every instruction is there, in groups of a thousand.
        let groups = app.doc.tree.children(func);
        assert_eq!(groups.len(), COUNT.div_ceil(1000), "groups");
        assert!(screen(&t).contains("[0..1000)"), "the groups are drawn");
        let (w, c) = (Instant::now(), thread_cpu());
        app.select(groups[0], true);
        app.open(groups[0]);
        t.draw(|f| ui::render(&mut app, f)).unwrap();
        times[1].push((w.elapsed(), thread_cpu() - c));
        assert!(screen(&t).contains("addl $0x1, %eax"), "the rows are drawn");
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut cpus = Vec::new();
    for (what, v) in ["the function", "its first group"].iter().zip(times) {
        let wall = median(v.iter().map(|t| t.0).collect());
        let cpu = median(v.iter().map(|t| t.1).collect());
        eprintln!(
            "open {what} + next frame, {COUNT} instructions: median of 5 {:.1} ms wall, {:.1} ms CPU (load {})",
            wall.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3,
            load.trim()
        );
        cpus.push(cpu);
    }
    // The machine may be shared: the CPU time is the test's own.
    for cpu in cpus {
        assert!(cpu < Duration::from_millis(100), "{cpu:?}");
    }
}

fn screen(t: &Terminal<TestBackend>) -> String {
    t.backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect()
}

/// The node named `name`, breadth-first, building what it passes.
fn find(app: &mut App, name: &str) -> Option<NodeId> {
    let mut level = vec![app.doc.tree.root()];
    for _ in 0..8 {
        let mut next = Vec::new();
        for id in level {
            for k in app.doc.tree.children(id) {
                if app.doc.tree.name(k) == name {
                    return Some(k);
                }
                next.push(k);
            }
        }
        level = next;
    }
    None
}
