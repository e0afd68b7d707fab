//! Mangled symbol names are shown demangled as c++filt demangles them (or
//! not at all, never otherwise), on
//! objects that g++ and rustc build here: every symbol table entry and every
//! relocation whose symbol name is a C++ or Rust mangled name shows the
//! readable name in front of its value, the mangled name staying the node's
//! name (its address) and the `st_name` string.

use crate::common;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use assert_cmd::Command as Bin;
use serde_json::Value;

const CPP: &str = r#"
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
namespace ns {
template <class T> struct Box {
    T v;
    T get() const { return v; }
    template <class U> U as() const { return static_cast<U>(v); }
};
int f(int a, const char *b) { return a + *b; }
std::string g(const std::vector<std::string> &v, std::map<int, double> *m) {
    return v.empty() || !m ? "" : v[0];
}
struct S {
    S();
    virtual ~S();
    virtual int op(int);
    int operator()(long) const;
    static int counter;
};
struct T : virtual S { int op(int) override; };
S::S() {}
S::~S() {}
int S::op(int x) { return x; }
int S::operator()(long) const { return 1; }
int T::op(int x) { return x + 1; }
int S::counter = 3;
namespace {
int hidden(unsigned long long x) { return (int)x; }
}
int local() {
    static std::string once = "x";
    return (int)once.size() + hidden(2);
}
}
template <class T> T twice(T x) { return x + x; }
int use() {
    ns::Box<float> b{1};
    ns::T t;
    std::function<int(int)> fn = [](int x) { return x * 2; };
    auto p = std::make_unique<ns::Box<long>>();
    return twice(3) + (int)twice(2.0) + (int)b.get() + b.as<int>() + ns::f(1, "a") + fn(2) +
           (int)p->get() + t.op(1) + ns::local();
}
__attribute__((noinline, cold)) void rarely(int *p) { if (p) throw std::string("no"); }
int maybe(int *p, int n) {
    for (int i = 0; i < n; i++)
        if (__builtin_expect(p[i] == 7, 0)) rarely(p);
    return n;
}
extern "C" int plain_c(void) { return 0; }
"#;

const RUST: &str = r#"
#![crate_type = "lib"]
pub mod inner {
    pub struct W<T>(pub T);
    impl<T: Copy + core::ops::Add<Output = T>> W<T> {
        #[inline(never)]
        pub fn twice(&self) -> T { self.0 + self.0 }
    }
}
#[inline(never)]
pub fn go(x: u32) -> u32 { inner::W(x).twice() + inner::W(x as u64).twice() as u32 }
pub trait Tr { fn m(&self) -> usize; }
impl Tr for [u8] { fn m(&self) -> usize { self.len() } }
#[no_mangle]
pub fn dynm(x: &dyn Tr) -> usize { x.m() }
#[inline(never)]
pub fn boxed(v: Vec<String>) -> Box<dyn Fn(i32) -> usize> { Box::new(move |x| v.len() + x as usize) }
"#;

fn fwview_json(obj: &Path) -> Value {
    let out = Bin::cargo_bin("fwview")
        .unwrap()
        .arg("--json")
        .arg(obj)
        .output()
        .unwrap();
    assert!(out.status.success());
    common::contract::parse(&out.stdout).unwrap()
}

/// Each name as c++filt prints it, in one run.
fn cxxfilt(names: &[String]) -> HashMap<String, String> {
    let mut child = Command::new("c++filt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = names.join("\n");
    input.push('\n');
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), names.len());
    names
        .iter()
        .cloned()
        .zip(lines.iter().map(|s| s.to_string()))
        .collect()
}

/// A node that shows a symbol: (the mangled name, its value).
struct Shown {
    what: &'static str,
    name: String,
    value: String,
}

/// Every symbol table entry (a node with an `st_name` child) and every
/// relocation (a node with an `r_info` child), with the symbol name from
/// the node's name `[i] NAME` or `[i] TYPE NAME`.
fn symbol_nodes(root: &Value) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let kids = n["children"].as_array().unwrap();
        let has = |k: &str| kids.iter().any(|c| c["name"] == k);
        let name = n["name"].as_str().unwrap();
        let value = n["value"].as_str().unwrap_or("").to_string();
        if has("st_name") {
            if let Some((_, sym)) = name.split_once(' ') {
                out.push(Shown {
                    what: "symbol",
                    name: sym.to_string(),
                    value,
                });
            }
        } else if has("r_info") {
            let parts: Vec<&str> = name.splitn(3, ' ').collect();
            if let [_, _, sym] = parts[..] {
                out.push(Shown {
                    what: "relocation",
                    name: sym.to_string(),
                    value,
                });
            }
        }
        stack.extend(kids);
    }
    out
}

/// Checks every symbol-showing node of `obj` against c++filt: a mangled
/// name shows exactly as c++filt prints it, or (a constructor template,
/// whose parameters cpp_demangle loses) is left mangled, which must stay
/// rare. Returns how many were demangled.
fn check(obj: &Path) -> usize {
    let j = fwview_json(obj);
    let shown = symbol_nodes(&j["root"]);
    assert!(!shown.is_empty(), "{}: no symbols", obj.display());
    let names: Vec<String> = shown.iter().map(|s| s.name.clone()).collect();
    let filt = cxxfilt(&names);
    let mut demangled = 0;
    let mut left = Vec::new();
    for s in &shown {
        let want = &filt[&s.name];
        let mangled = s.name.starts_with("_Z") || s.name.starts_with("_R");
        if mangled && want != &s.name && !s.value.contains('\u{2014}') {
            // Left mangled: what fwview cannot show as c++filt does, it
            // does not show at all.
            left.push(format!("{} ({want})", s.name));
        } else if mangled && want != &s.name {
            let prefix = format!("{want} \u{2014} ");
            assert!(
                s.value.starts_with(&prefix),
                "{}: {} {}: c++filt says {want:?}, fwview shows {:?}",
                obj.display(),
                s.what,
                s.name,
                s.value
            );
            // What follows is the value as it was, naming the mangled
            // symbol where it did before.
            let rest = &s.value[prefix.len()..];
            assert!(!rest.contains('\u{2014}'), "{}", s.value);
            if s.what == "relocation" {
                assert!(rest.contains(&s.name), "{}", s.value);
            }
            demangled += 1;
        } else {
            assert!(
                !s.value.contains('\u{2014}'),
                "{}: {} {} is not mangled (c++filt: {want:?}), yet shows {:?}",
                obj.display(),
                s.what,
                s.name,
                s.value
            );
        }
    }
    for l in &left {
        eprintln!("{}: left mangled: {l}", obj.display());
    }
    assert!(
        left.len() * 10 <= demangled,
        "{}: {} names left mangled, {demangled} demangled",
        obj.display(),
        left.len()
    );
    // The --tree lines carry the same values.
    let out = Bin::cargo_bin("fwview")
        .unwrap()
        .arg("--tree")
        .arg(obj)
        .output()
        .unwrap();
    let tree = String::from_utf8(out.stdout).unwrap();
    for s in shown.iter().filter(|s| s.value.contains('\u{2014}')) {
        assert!(tree.contains(&s.value), "--tree lacks {:?}", s.value);
    }
    demangled
}

#[test]
fn cpp_symbols_are_shown_as_cxxfilt_shows_them() {
    if !common::tool("g++") || !common::tool("c++filt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.cpp");
    std::fs::write(&src, CPP).unwrap();
    for opt in ["-O0", "-O2"] {
        let obj = dir.path().join(format!("t{opt}.o"));
        let st = Command::new("g++")
            .args(["-c", opt, "-std=c++17", "-fPIC"])
            .arg(&src)
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap();
        assert!(st.success(), "g++ {opt}");
        let n = check(&obj);
        assert!(n >= 20, "{opt}: only {n} names demangled");
        eprintln!("g++ {opt}: {n} symbols and relocations demangled as c++filt does");
    }
}

#[test]
fn rust_symbols_are_shown_as_cxxfilt_shows_them() {
    if !common::tool("rustc") || !common::tool("c++filt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("r.rs");
    std::fs::write(&src, RUST).unwrap();
    for mangling in ["legacy", "v0"] {
        let obj = dir.path().join(format!("r-{mangling}.o"));
        let mut cmd = Command::new("rustc");
        cmd.args(["-O", "--emit=obj", "--crate-name", "r"]);
        if mangling == "v0" {
            cmd.args(["-C", "symbol-mangling-version=v0"]);
        }
        let st = cmd.arg(&src).arg("-o").arg(&obj).status().unwrap();
        assert!(st.success(), "rustc {mangling}");
        let n = check(&obj);
        assert!(n >= 3, "{mangling}: only {n} names demangled");
        eprintln!("rustc {mangling}: {n} symbols and relocations demangled as c++filt does");
    }
}
