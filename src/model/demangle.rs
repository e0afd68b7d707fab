//! Mangled symbol names made readable: C++ (Itanium ABI, `_Z…`) and Rust
//! (legacy `_ZN…17h<hash>E` and v0 `_R…`), as `c++filt` shows them.
//!
//! Only names that start like a mangled name are tried, so a table of plain
//! C names costs one comparison a name. A name that does not demangle, or
//! whose demangled form would be longer than [`MAX_OUT`], is left as it is.

use std::fmt::{self, Write};

/// The longest mangled name tried, in bytes.
pub const MAX_IN: usize = 4096;

/// The longest demangled name kept, in bytes: back-references let a short
/// mangled name stand for a very long one.
pub const MAX_OUT: usize = 16 * 1024;

/// Whether `name` starts like a C++ or Rust mangled name: the cheap test
/// before [`demangle`].
#[inline]
pub fn looks_mangled(name: &str) -> bool {
    name.len() > 2 && (name.starts_with("_Z") || name.starts_with("_R"))
}

/// The readable form of a mangled name, or `None` when `name` is not one
/// (or is too long either way). The result is safe to show: anything a
/// terminal could act on is escaped.
pub fn demangle(name: &str) -> Option<String> {
    if !looks_mangled(name) || name.len() > MAX_IN || !name.is_ascii() {
        return None;
    }
    let mut out = Capped::default();
    let done = match rust(name) {
        // With the hashes (a legacy name's last segment, a crate's
        // disambiguator), as c++filt prints them.
        Some(d) => write!(out, "{d}").is_ok(),
        None => {
            let sym = cpp_demangle::Symbol::new(name.as_bytes()).ok()?;
            let mut opts = cpp_demangle::DemangleOptions::default();
            // c++filt leaves out the return type of the function that
            // holds a local entity (`f<int>()::x`, not `void f<int>()::x`).
            if local(name) {
                opts = opts.no_return_type();
            }
            sym.structured_demangle(&mut out, &opts).is_ok()
        }
    };
    if !done || out.s.is_empty() {
        return None;
    }
    // cpp_demangle spells a few things its own way.
    let s = out.s;
    let s = special(&s, "{vtable(", "vtable for ")
        .or_else(|| special(&s, "{vtt(", "VTT for "))
        .or_else(|| thunk(&s))
        .unwrap_or(s);
    let s = empty_packs(int_literals(s));
    if lost_parameters(&s, name) {
        return None;
    }
    Some(s)
}

/// Whether cpp_demangle dropped a parameter of a constructor template
/// (`A<T>::A<U>(U*, int)` mangles its parameters without a return type,
/// and cpp_demangle takes the first of them for one). Only a constructor
/// without parameters (mangled `v`) comes out right. Such a name is better
/// left mangled than shown with a wrong signature.
fn lost_parameters(shown: &str, name: &str) -> bool {
    let mangled = name.split('.').next().unwrap_or(name);
    if mangled.ends_with('v') {
        return false;
    }
    let shown = shown.split(" [clone").next().unwrap_or(shown);
    let Some(inner) = shown.strip_suffix(')') else {
        return false;
    };
    // The `(` that opens the parameter list.
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' | '>' => depth += 1,
            '(' | '<' if depth > 0 => depth -= 1,
            '(' => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(head) = open.and_then(|i| inner.get(..i)) else {
        return false;
    };
    if !head.ends_with('>') {
        return false;
    }
    // The components of the qualified name, at the top level of `<>`.
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    let b = head.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth = depth.saturating_sub(1),
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => {
                parts.push(head.get(from..i).unwrap_or_default());
                from = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(head.get(from..).unwrap_or_default());
    let base = |p: &str| p.split('<').next().unwrap_or_default().to_string();
    match parts.as_slice() {
        [.., class, ctor] => !ctor.is_empty() && base(class) == base(ctor),
        _ => false,
    }
}

/// An empty parameter pack, which cpp_demangle writes as an argument of its
/// own (`f<int, >`, `g(int, )`, or what qualifies it alone: `h(&&)`), and
/// c++filt leaves out (`f<int>`, `g(int)`, `h()`). No argument starts with
/// `>` or `)`, nor is a bare `&&`, `&` or `*`.
fn empty_packs(s: String) -> String {
    const BARE: [&str; 5] = ["&&", "&", "*", "const&", "const&&"];
    if !(s.contains(", >") || s.contains(", )") || s.contains("&)") || s.contains("*)")) {
        return s;
    }
    let mut s = s.replace(", >", ">").replace(", )", ")");
    for bare in BARE {
        s = s
            .replace(&format!("({bare})"), "()")
            .replace(&format!(", {bare})"), ")");
    }
    s
}

/// Integer literals in template arguments as c++filt writes them: with a
/// suffix (`0ul`) where cpp_demangle writes a cast (`(unsigned long)0`).
/// Literals of other types (`(char)97`) are cast in both.
fn int_literals(s: String) -> String {
    const SUFFIXES: [(&str, &str); 5] = [
        ("(unsigned long long)", "ull"),
        ("(long long)", "ll"),
        ("(unsigned long)", "ul"),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
    ];
    if !s.contains("(unsigned ") && !s.contains("(long") {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    'next: while let Some(i) = rest.find('(') {
        let (before, at) = rest.split_at(i);
        out.push_str(before);
        for (cast, suffix) in SUFFIXES {
            let Some(after) = at.strip_prefix(cast) else {
                continue;
            };
            let sign = usize::from(after.starts_with('-'));
            let digits = after
                .bytes()
                .skip(sign)
                .take_while(u8::is_ascii_digit)
                .count();
            let end = sign + digits;
            let (Some(number), Some(tail)) = (after.get(..end), after.get(end..)) else {
                continue;
            };
            let joined = tail
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if digits > 0 && !joined {
                out.push_str(number);
                out.push_str(suffix);
                rest = tail;
                continue 'next;
            }
        }
        out.push('(');
        rest = at.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Whether the name is that of an entity local to a function (`_ZZ…`), or
/// a special name for one (a guard variable `_ZGVZ…`, a thread-local's
/// `_ZTHZ…`, `_ZTWZ…`).
fn local(name: &str) -> bool {
    ["_ZZ", "_ZGVZ", "_ZTHZ", "_ZTWZ"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// `{virtual override thunk(OFFSETS, F)}` as c++filt names it: a
/// `non-virtual thunk to F` (one `{offset(N)}`), a `virtual thunk to F`
/// (one `{virtual offset(A, B)}`), a `covariant return thunk to F` (two).
fn thunk(s: &str) -> Option<String> {
    let inner = s
        .strip_prefix("{virtual override thunk(")?
        .strip_suffix(")}")?;
    let (is_virtual, rest) = skip_offset(inner)?;
    if let Some((_, f)) = skip_offset(rest) {
        return Some(format!("covariant return thunk to {f}"));
    }
    let kind = if is_virtual { "virtual" } else { "non-virtual" };
    Some(format!("{kind} thunk to {rest}"))
}

/// An offset at the start of `s` and the `, ` after it: whether it is a
/// virtual one, and what follows.
fn skip_offset(s: &str) -> Option<(bool, &str)> {
    let (is_virtual, r) = match s.strip_prefix("{offset(") {
        Some(r) => (false, r),
        None => (true, s.strip_prefix("{virtual offset(")?),
    };
    let end = r.find(")}, ")?;
    Some((is_virtual, r.get(end + 4..)?))
}

/// `{vtable(T)}` as `vtable for T`, say.
fn special(s: &str, open: &str, words: &str) -> Option<String> {
    let inner = s.strip_prefix(open)?.strip_suffix(")}")?;
    Some(format!("{words}{inner}"))
}

/// A Rust name: v0 (`_R…`), or legacy (`_ZN…E`, the same start as a C++
/// name) when its last segment is a hash (`17h` and 16 hex digits), which
/// is how c++filt tells the two apart.
fn rust(name: &str) -> Option<rustc_demangle::Demangle<'_>> {
    let d = rustc_demangle::try_demangle(name).ok()?;
    if name.starts_with("_R") {
        return Some(d);
    }
    // The alternate form leaves out a legacy name's hash, and only that.
    let mut full = Capped::default();
    let mut short = Capped::default();
    (write!(full, "{d}").is_ok() && write!(short, "{d:#}").is_ok() && full.s != short.s)
        .then_some(d)
}

/// A string that refuses to grow past [`MAX_OUT`].
#[derive(Default)]
struct Capped {
    s: String,
}

impl Write for Capped {
    fn write_str(&mut self, t: &str) -> fmt::Result {
        if self.s.len() + t.len() > MAX_OUT {
            return Err(fmt::Error);
        }
        self.s.push_str(t);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each as `c++filt` (GNU Binutils 2.40) prints it.
    #[test]
    fn cpp_rust_and_plain_names() {
        for (mangled, want) in [
            ("_Z3fooi", "foo(int)"),
            ("_ZN3foo3barEv", "foo::bar()"),
            (
                "_ZN4core3fmt5write17h0123456789abcdefE",
                "core::fmt::write::h0123456789abcdef",
            ),
            ("_RNvCs2OpA4fNwd7R_1r2go", "r[20c418149eb3754d]::go"),
            ("_ZTVN2ns1SE", "vtable for ns::S"),
            ("_ZTTN2ns1SE", "VTT for ns::S"),
            ("_Z3foov.cold", "foo() [clone .cold]"),
            ("_ZZ3foovE1x", "foo()::x"),
            ("_ZGVZ3foovE1x", "guard variable for foo()::x"),
            ("_Z1fILm0EEvv", "void f<0ul>()"),
            ("_ZTv0_n24_N2ns1TD0Ev", "virtual thunk to ns::T::~T()"),
            ("_ZThn8_N1C1fEv", "non-virtual thunk to C::f()"),
            ("_ZTch0_h16_N1C1fEv", "covariant return thunk to C::f()"),
            ("_Z1fIJEEvDpOT_", "void f<>()"),
            ("_Z1fIJEEviDpOT_", "void f<>(int)"),
            ("_ZZ1fIiEvvE1x", "f<int>()::x"),
            ("_ZGVZ1fIiEvvE1x", "guard variable for f<int>()::x"),
            (
                "_ZSt12__get_helperILm1ESt14default_deleteIN2ns3BoxIlEEEJEERT0_RSt11_Tuple_implIXT_EJS5_DpT1_EE",
                "std::default_delete<ns::Box<long> >& std::__get_helper<1ul, \
                 std::default_delete<ns::Box<long> >>(std::_Tuple_impl<1ul, \
                 std::default_delete<ns::Box<long> >>&)",
            ),
            ("_Z1fILln3EEvv", "void f<-3l>()"),
            ("_Z1fILj7ELx8ELy9ELc97ELb1EEvv", "void f<7u, 8ll, 9ull, (char)97, true>()"),
            (
                "_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17h0d1415181ace9ee5E",
                "core::ops::function::FnOnce::call_once{{vtable.shim}}::h0d1415181ace9ee5",
            ),
        ] {
            assert_eq!(demangle(mangled).as_deref(), Some(want), "{mangled}");
        }
        // A constructor template: cpp_demangle would drop its parameters
        // (c++filt: `std::unique_ptr<int, std::default_delete<int> >::
        // unique_ptr<std::default_delete<int>, void>(int*)`).
        assert_eq!(
            demangle("_ZNSt10unique_ptrIiSt14default_deleteIiEEC1IS1_vEEPi"),
            None
        );
        assert_eq!(
            demangle("_ZNSt10unique_ptrIiSt14default_deleteIiEEC1IS1_vEEv").as_deref(),
            Some(
                "std::unique_ptr<int, std::default_delete<int> >::\
                 unique_ptr<std::default_delete<int>, void>()"
            )
        );
        for plain in [
            "main",
            "",
            "_",
            "_Z",
            "_start",
            "_Zfoo",
            "_R",
            "\u{1b}_Z3fooi",
        ] {
            assert_eq!(demangle(plain), None, "{plain:?}");
        }
    }

    #[test]
    fn long_and_hostile_names_are_left_alone() {
        let long = format!("_Z{}{}v", 5000, "a".repeat(5000));
        assert_eq!(demangle(&long), None);
        // Each S_ doubles what the name stands for.
        let mut bomb = String::from("_Z1fIA1_iE");
        for _ in 0..40 {
            bomb.push_str("S_");
        }
        let _ = demangle(&bomb);
        let _ = demangle("_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ");
        let _ = demangle(&format!("_Z{}", "P".repeat(3000)));
    }
}
