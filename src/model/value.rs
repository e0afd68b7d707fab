//! Typed node values. A parser stores what it read (a number with its
//! width, a named constant, flags, text, a date); the text a user sees is
//! made only when a node is shown or printed, in the radix the viewer asks
//! for.

use std::fmt::{self, Write};
use std::sync::Arc;

use compact_str::CompactString;

use super::text;

/// How a number prefers to be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Radix {
    /// Small values in decimal, larger ones in decimal with hex beside:
    /// `7`, `4096 (0x1000)`.
    #[default]
    Auto,
    /// `0x1000`.
    Hex,
    /// `4096`.
    Dec,
    /// Hex with every digit of the value's width: `0x00001000` for a
    /// 4-byte field (as `Hex` when the width is not known).
    HexWide,
}

/// How the viewer wants numbers shown: as each value prefers, or all in
/// hex, or all in decimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Numbers {
    #[default]
    Natural,
    Hex,
    Dec,
}

impl Numbers {
    /// The next mode in the cycle natural → hex → decimal → natural.
    pub fn next(self) -> Numbers {
        match self {
            Numbers::Natural => Numbers::Hex,
            Numbers::Hex => Numbers::Dec,
            Numbers::Dec => Numbers::Natural,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Numbers::Natural => "natural",
            Numbers::Hex => "hex",
            Numbers::Dec => "decimal",
        }
    }
    fn radix(self, own: Radix) -> Radix {
        match self {
            Numbers::Natural => own,
            Numbers::Hex => Radix::Hex,
            Numbers::Dec => Radix::Dec,
        }
    }
}

/// The integer behind a value, for scripts (`"raw"` in `--json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raw {
    U(u64),
    I(i64),
}

/// A node's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An unsigned integer read from `width` bytes (0: computed, not read).
    U { v: u64, width: u8, radix: Radix },
    /// A signed integer.
    I { v: i64, width: u8 },
    /// A number with a name for it: `3 (SHT_RELA)`, or `3 (unknown)`. The
    /// number shows in `radix`; a hex one as `0x3 (SHT_RELA)`.
    Named {
        v: u64,
        radix: Radix,
        name: Option<CompactString>,
    },
    /// A bit set with the names of its bits: `0x6 (ALLOC | EXECINSTR)`.
    Flags { v: u64, names: CompactString },
    /// A number and what it means in words: `-1 (not signed)`. `v` holds
    /// the bits of an `i64` when `signed`.
    Note {
        v: u64,
        signed: bool,
        note: CompactString,
    },
    /// A byte count: `16 bytes`.
    Size(u64),
    /// A number followed by words about it, shown as they are:
    /// `300 MHz`, `0x80 -> "kernel_init"`, `128 (0x80) KiB`.
    With {
        v: u64,
        signed: bool,
        width: u8,
        radix: Radix,
        rest: CompactString,
    },
    /// Seconds since 1970-01-01 UTC.
    Date(i64),
    /// A string from the file, shown in quotes.
    Str(CompactString),
    /// An index into a string table and the string there: `27 ".text"`.
    StrAt { v: u64, s: CompactString },
    /// Free text, shown as it is.
    Text(CompactString),
    /// Free text about a symbol whose name is mangled (C++ `_Z…`, Rust
    /// `_R…`): shown as the demangled name, ` — `, then the text; as the
    /// text alone where the name does not demangle. Demangled only when
    /// shown. See [`Value::symbol`]. `s` holds the text and then the
    /// name, which starts at byte `at` (one string: the value stays as
    /// small as the others).
    Symbol { s: CompactString, at: u32 },
    /// One machine instruction's text (mnemonic and operands), as the
    /// decoder printed it: shown as it is, like [`Value::Text`], and known
    /// as code by viewers that draw instructions their own way. `src` is
    /// the source line it came from, where the file's line table says: a
    /// part of the value viewers show beside the text, not in it.
    Insn {
        text: CompactString,
        src: Option<Arc<SourceLine>>,
    },
}

/// Where an instruction came from in the source, as a line table gives
/// it: the file's name as the table spells it, the line (from 1) and the
/// column (0: not known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    pub file: CompactString,
    pub line: u64,
    pub column: u64,
}

impl fmt::Display for SourceLine {
    /// `file.c:12:7`, or `file.c:12` where the column is not known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.column != 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

impl Value {
    pub fn uint(v: u64) -> Value {
        Value::U {
            v,
            width: 0,
            radix: Radix::Auto,
        }
    }
    pub fn hex(v: u64) -> Value {
        Value::U {
            v,
            width: 0,
            radix: Radix::Hex,
        }
    }
    pub fn dec(v: u64) -> Value {
        Value::U {
            v,
            width: 0,
            radix: Radix::Dec,
        }
    }
    /// Hex with all the digits of `width` bytes: `0x0000abcd` for 4.
    pub fn hex_wide(v: u64, width: u8) -> Value {
        Value::U {
            v,
            width,
            radix: Radix::HexWide,
        }
    }
    /// `v` in `radix`, then `rest` as it is (`rest` brings its own
    /// leading space).
    pub fn with(v: u64, radix: Radix, rest: impl AsRef<str>) -> Value {
        Value::With {
            v,
            signed: false,
            width: 0,
            radix,
            rest: CompactString::from(rest.as_ref()),
        }
    }
    pub fn int(v: i64) -> Value {
        Value::I { v, width: 0 }
    }
    /// A string from the file (already decoded), shown quoted.
    pub fn str(s: impl AsRef<str>) -> Value {
        Value::Str(CompactString::from(s.as_ref()))
    }
    /// Bytes from the file decoded as text (invalid UTF-8 as `\xNN`), quoted.
    pub fn str_bytes(b: &[u8]) -> Value {
        match text::as_str(b) {
            Some(s) => Value::Str(CompactString::from(s)),
            None => Value::Str(CompactString::from(text::from_bytes(b))),
        }
    }
    /// String-table index `v` and the bytes of the string it names.
    pub fn str_at(v: u64, b: &[u8]) -> Value {
        let s = match text::as_str(b) {
            Some(s) => CompactString::from(s),
            None => CompactString::from(text::from_bytes(b)),
        };
        Value::StrAt { v, s }
    }
    pub fn text(s: impl AsRef<str>) -> Value {
        Value::Text(CompactString::from(s.as_ref()))
    }
    /// An instruction's text.
    pub fn insn(s: impl AsRef<str>) -> Value {
        Value::Insn {
            text: CompactString::from(s.as_ref()),
            src: None,
        }
    }
    /// An instruction's text and the source line it came from.
    pub fn insn_from(s: impl AsRef<str>, src: Option<Arc<SourceLine>>) -> Value {
        Value::Insn {
            text: CompactString::from(s.as_ref()),
            src,
        }
    }
    /// Whether the value is an instruction's text.
    pub fn is_insn(&self) -> bool {
        matches!(self, Value::Insn { .. })
    }
    /// The source line an instruction came from, where the value is one
    /// and its file says.
    pub fn source_line(&self) -> Option<&SourceLine> {
        match self {
            Value::Insn { src, .. } => src.as_deref(),
            _ => None,
        }
    }
    /// Whether two values are the same as their text shows them: an
    /// instruction's source line is left out (two builds of one function
    /// whose lines moved hold the same instructions).
    pub fn same_shown(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Insn { text: a, .. }, Value::Insn { text: b, .. }) => a == b,
            (a, b) => a == b,
        }
    }
    /// Text about the symbol `name`: a [`Value::Symbol`] where the name
    /// looks mangled, else plain [`Value::Text`] (one comparison, nothing
    /// kept beside the text).
    pub fn symbol(name: &str, text: CompactString) -> Value {
        let Ok(at) = u32::try_from(text.len()) else {
            return Value::Text(text);
        };
        if !super::demangle::looks_mangled(name) {
            return Value::Text(text);
        }
        let mut s = text;
        s.push_str(name);
        Value::Symbol { s, at }
    }
    /// The text and the symbol name of a [`Value::Symbol`].
    fn symbol_parts(s: &str, at: u32) -> (&str, &str) {
        let at = at as usize;
        (s.get(..at).unwrap_or(s), s.get(at..).unwrap_or_default())
    }
    pub fn named(v: u64, name: Option<&str>) -> Value {
        Value::Named {
            v,
            radix: Radix::Dec,
            name: name.map(CompactString::from),
        }
    }
    pub fn named_hex(v: u64, name: Option<&str>) -> Value {
        Value::Named {
            v,
            radix: Radix::Hex,
            name: name.map(CompactString::from),
        }
    }
    pub fn flags(v: u64, names: impl AsRef<str>) -> Value {
        Value::Flags {
            v,
            names: CompactString::from(names.as_ref()),
        }
    }
    pub fn note(v: Raw, note: impl AsRef<str>) -> Value {
        let (v, signed) = split(v);
        Value::Note {
            v,
            signed,
            note: CompactString::from(note.as_ref()),
        }
    }
    /// The same value marked as read from `width` bytes.
    pub fn with_width(self, w: u8) -> Value {
        match self {
            Value::U { v, radix, .. } => Value::U { v, width: w, radix },
            Value::I { v, .. } => Value::I { v, width: w },
            Value::With {
                v,
                signed,
                radix,
                rest,
                ..
            } => Value::With {
                v,
                signed,
                width: w,
                radix,
                rest,
            },
            other => other,
        }
    }

    /// Whether the value says in words what a link from its node leads
    /// to: a reference resolved to what it names (a string-table index
    /// and its string, a number and the name it stands for, a number with
    /// words about it, text about an entry or a symbol). A bare number (an
    /// offset, an address, a size, an index shown as a number only) does
    /// not; where its node has a link, the exporters name the node it
    /// leads to (see [`super::Tree::bare_link`]). Decided by the kind of
    /// value alone, never by its text.
    #[inline]
    pub fn names_target(&self) -> bool {
        !matches!(
            self,
            Value::U { .. } | Value::I { .. } | Value::Size(_) | Value::Named { name: None, .. }
        )
    }

    /// Whether a link from a node with `value` (none, or one that does not
    /// [`Value::names_target`]) has its target named by the exporters.
    #[inline]
    pub fn bare(value: Option<&Value>) -> bool {
        value.is_none_or(|v| !v.names_target())
    }

    /// The integer behind the value, where there is one.
    pub fn raw(&self) -> Option<Raw> {
        match self {
            Value::U { v, .. } | Value::Named { v, .. } | Value::Flags { v, .. } => {
                Some(Raw::U(*v))
            }
            Value::Size(v) | Value::StrAt { v, .. } => Some(Raw::U(*v)),
            Value::I { v, .. } | Value::Date(v) => Some(Raw::I(*v)),
            Value::Note { v, signed, .. } | Value::With { v, signed, .. } => {
                Some(join(*v, *signed))
            }
            Value::Str(_) | Value::Text(_) | Value::Symbol { .. } | Value::Insn { .. } => None,
        }
    }

    /// The kind of value, for scripts.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::U { .. } => "uint",
            Value::I { .. } => "int",
            Value::Named { .. } => "enum",
            Value::Flags { .. } => "flags",
            Value::Note { .. } | Value::With { .. } => "number",
            Value::Size(_) => "size",
            Value::Date(_) => "date",
            Value::Str(_) => "string",
            Value::StrAt { .. } => "strref",
            Value::Text(_) | Value::Symbol { .. } => "text",
            Value::Insn { .. } => "insn",
        }
    }

    /// Writes the value as the viewer wants numbers shown.
    pub fn write_to<W: Write + ?Sized>(&self, out: &mut W, mode: Numbers) -> fmt::Result {
        self.write_out(&mut AnyOut(out), mode)
    }

    /// Like [`Value::write_to`], to an output that may write numbers its
    /// own way.
    pub fn write_out<O: Out + ?Sized>(&self, out: &mut O, mode: Numbers) -> fmt::Result {
        match self {
            Value::U { v, width, radix } => write_wide(out, *v, *width, mode.radix(*radix)),
            Value::I { v, .. } => write_int(out, *v, mode),
            Value::Named { v, radix, name } => {
                write_num(out, *v, mode.radix(short(*radix)))?;
                out.write_str(" (")?;
                out.write_str(name.as_deref().unwrap_or("unknown"))?;
                out.write_char(')')
            }
            Value::Flags { v, names } => {
                write_num(out, *v, mode.radix(Radix::Hex))?;
                if names.is_empty() {
                    Ok(())
                } else {
                    out.write_str(" (")?;
                    out.write_str(names)?;
                    out.write_char(')')
                }
            }
            Value::Note { v, signed, note } => {
                match join(*v, *signed) {
                    Raw::U(u) => write_num(out, u, mode.radix(Radix::Dec))?,
                    Raw::I(i) => write_int(out, i, mode)?,
                }
                out.write_str(" (")?;
                out.write_str(note)?;
                out.write_char(')')
            }
            Value::With {
                v,
                signed,
                width,
                radix,
                rest,
            } => {
                match join(*v, *signed) {
                    Raw::U(u) => write_wide(out, u, *width, mode.radix(*radix))?,
                    Raw::I(i) => write_int(out, i, mode)?,
                }
                out.write_str(rest)
            }
            Value::Size(n) => {
                write_num(out, *n, mode.radix(Radix::Dec))?;
                out.write_str(if *n == 1 { " byte" } else { " bytes" })
            }
            Value::Date(s) => {
                match u64::try_from(*s) {
                    Ok(u) => write_num(out, u, mode.radix(Radix::Dec))?,
                    Err(_) => write_int(out, *s, mode)?,
                }
                out.write_str(" (")?;
                match text::utc(*s) {
                    Some(d) => out.write_str(&d)?,
                    None => out.write_str("out of range")?,
                }
                out.write_char(')')
            }
            Value::Str(s) => {
                out.write_char('"')?;
                out.write_str(s)?;
                out.write_char('"')
            }
            Value::StrAt { v, s } => {
                write_num(out, *v, mode.radix(Radix::Dec))?;
                out.write_str(" \"")?;
                out.write_str(s)?;
                out.write_char('"')
            }
            Value::Text(s) | Value::Insn { text: s, .. } => out.write_str(s),
            Value::Symbol { s, at } => {
                let (text, name) = Value::symbol_parts(s, *at);
                if let Some(d) = super::demangle::demangle(name) {
                    out.write_str(&d)?;
                    out.write_str(" \u{2014} ")?;
                }
                out.write_str(text)
            }
        }
    }

    /// The value as text, numbers as `mode` asks, characters as the file
    /// has them (for `--json` and comparisons; see [`Value::shown`]).
    pub fn render(&self, mode: Numbers) -> String {
        let mut s = String::new();
        let _ = self.write_to(&mut s, mode);
        s
    }

    /// The value as text to show on a terminal: [`Value::render`] with
    /// controls and bidi characters escaped ([`text::clean`]).
    pub fn shown(&self, mode: Numbers) -> String {
        let s = self.render(mode);
        match text::clean(&s) {
            std::borrow::Cow::Borrowed(_) => s,
            std::borrow::Cow::Owned(o) => o,
        }
    }
}

/// A named constant's number shows in decimal unless it asked for hex.
fn short(r: Radix) -> Radix {
    match r {
        Radix::Auto => Radix::Dec,
        r => r,
    }
}

/// Where values are written: text, and numbers, which an output may
/// write digit by digit in place (the exporters' byte buffers do) rather
/// than through a buffer of their own.
pub trait Out: Write {
    /// `v` in decimal.
    fn dec(&mut self, v: u64) -> fmt::Result {
        self.write_str(itoa::Buffer::new().format(v))
    }
    /// `0x` and the hex digits of `v`.
    fn hex(&mut self, v: u64) -> fmt::Result {
        self.write_str(hex_digits(v, &mut [0; 18]))
    }
}

impl Out for String {}

/// Any `fmt::Write` as an [`Out`].
struct AnyOut<'a, W: ?Sized>(&'a mut W);

impl<W: Write + ?Sized> Write for AnyOut<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_str(s)
    }
    fn write_char(&mut self, c: char) -> fmt::Result {
        self.0.write_char(c)
    }
}

impl<W: Write + ?Sized> Out for AnyOut<'_, W> {}

/// A raw number as bits and a sign flag (how values keep it small).
fn split(v: Raw) -> (u64, bool) {
    match v {
        Raw::U(u) => (u, false),
        Raw::I(i) => (i as u64, true),
    }
}

fn join(v: u64, signed: bool) -> Raw {
    if signed {
        Raw::I(v as i64)
    } else {
        Raw::U(v)
    }
}

const _: () = assert!(std::mem::size_of::<Value>() <= 40);

fn write_wide<W: Out + ?Sized>(out: &mut W, v: u64, width: u8, r: Radix) -> fmt::Result {
    match r {
        Radix::HexWide if width > 0 => {
            write!(out, "0x{v:0w$x}", w = usize::from(width) * 2)
        }
        r => write_num(out, v, r),
    }
}

fn write_num<W: Out + ?Sized>(out: &mut W, v: u64, r: Radix) -> fmt::Result {
    match r {
        Radix::Dec => out.dec(v),
        Radix::Hex | Radix::HexWide => out.hex(v),
        Radix::Auto => {
            out.dec(v)?;
            if v >= 10 {
                out.write_str(" (")?;
                out.hex(v)?;
                out.write_char(')')?;
            }
            Ok(())
        }
    }
}

/// `0x` and the hex digits of `v`, written into the end of `buf`.
#[inline]
pub fn hex_bytes(v: u64, buf: &mut [u8; 18]) -> &[u8] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let n = ((64 - v.leading_zeros()).div_ceil(4).max(1)) as usize;
    let mut x = v;
    for c in buf.iter_mut().rev().take(n) {
        *c = DIGITS.get((x & 0xf) as usize).copied().unwrap_or(b'0');
        x >>= 4;
    }
    let start = 16 - n;
    if let Some(p) = buf.get_mut(start..start + 2) {
        p.copy_from_slice(b"0x");
    }
    buf.get(start..).unwrap_or_default()
}

/// `0x` and the hex digits of `v`, written into `buf`.
#[inline]
pub fn hex_digits(v: u64, buf: &mut [u8; 18]) -> &str {
    let b = hex_bytes(v, buf);
    // SAFETY: `0x` and hex digits are ASCII.
    unsafe { std::str::from_utf8_unchecked(b) }
}

fn write_int<W: Out + ?Sized>(out: &mut W, v: i64, mode: Numbers) -> fmt::Result {
    if v >= 0 {
        return write_num(out, v as u64, mode.radix(Radix::Auto));
    }
    out.write_char('-')?;
    match mode {
        Numbers::Hex => out.hex(v.unsigned_abs()),
        _ => out.dec(v.unsigned_abs()),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f, Numbers::Natural)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(CompactString::from(s))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::text(s)
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::text(s)
    }
}

impl From<CompactString> for Value {
    fn from(s: CompactString) -> Value {
        Value::text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_render_as_asked() {
        assert_eq!(Value::uint(7).to_string(), "7");
        assert_eq!(Value::uint(4096).to_string(), "4096 (0x1000)");
        assert_eq!(Value::uint(4096).render(Numbers::Hex), "0x1000");
        assert_eq!(Value::uint(4096).render(Numbers::Dec), "4096");
        assert_eq!(Value::hex(0x10).to_string(), "0x10");
        assert_eq!(Value::hex(0x10).render(Numbers::Dec), "16");
        assert_eq!(Value::int(-4).to_string(), "-4");
        assert_eq!(Value::int(-4).render(Numbers::Hex), "-0x4");
        assert_eq!(
            Value::named(3, Some("SHT_RELA")).to_string(),
            "3 (SHT_RELA)"
        );
        assert_eq!(Value::named(99, None).to_string(), "99 (unknown)");
        assert_eq!(
            Value::named_hex(1, Some("SHT_PROGBITS")).to_string(),
            "0x1 (SHT_PROGBITS)"
        );
        assert_eq!(
            Value::flags(6, "ALLOC | EXECINSTR").to_string(),
            "0x6 (ALLOC | EXECINSTR)"
        );
        assert_eq!(Value::str_at(27, b".text").to_string(), "27 \".text\"");
        assert_eq!(hex_digits(0, &mut [0; 18]), "0x0");
        assert_eq!(hex_digits(u64::MAX, &mut [0; 18]), "0xffffffffffffffff");
        assert_eq!(hex_digits(0x2255188, &mut [0; 18]), "0x2255188");
        assert_eq!(Value::hex_wide(0xab, 4).to_string(), "0x000000ab");
        assert_eq!(Value::hex_wide(0xab, 4).render(Numbers::Dec), "171");
        assert_eq!(Value::with(300, Radix::Dec, " MHz").to_string(), "300 MHz");
        assert_eq!(
            Value::with(128, Radix::Auto, " KiB").to_string(),
            "128 (0x80) KiB"
        );
        assert_eq!(
            Value::Date(1_700_000_000).to_string(),
            "1700000000 (2023-11-14 22:13:20 UTC)"
        );
        assert_eq!(Value::Size(1).to_string(), "1 byte");
        assert_eq!(Value::Size(16).to_string(), "16 bytes");
        // Text as the file has it; escaped where it is shown.
        assert_eq!(Value::str("a\u{1b}b").to_string(), "\"a\u{1b}b\"");
        assert_eq!(
            Value::str("a\u{1b}b").shown(Numbers::Natural),
            "\"a\\x1bb\""
        );
        assert_eq!(Value::str_bytes(b"x\xff").to_string(), "\"x\\xff\"");
    }

    #[test]
    fn raw_is_the_integer_behind() {
        assert_eq!(Value::named(3, None).raw(), Some(Raw::U(3)));
        assert_eq!(Value::int(-1).raw(), Some(Raw::I(-1)));
        assert_eq!(Value::text("x").raw(), None);
        assert_eq!(Value::from("plain".to_string()).raw(), None);
    }

    #[test]
    fn symbols_show_their_name_demangled_in_front() {
        let v = Value::symbol("_Z3fooi", CompactString::from("FUNC GLOBAL"));
        assert_eq!(v.render(Numbers::Natural), "foo(int) \u{2014} FUNC GLOBAL");
        assert_eq!((v.kind(), v.raw()), ("text", None));
        // A plain name keeps nothing beside the text.
        let v = Value::symbol("main", CompactString::from("FUNC GLOBAL"));
        assert_eq!(v, Value::Text(CompactString::from("FUNC GLOBAL")));
        // Mangled-looking, but not a name: the text alone.
        let v = Value::symbol("_Zzz", CompactString::from("FUNC GLOBAL"));
        assert_eq!(v.render(Numbers::Natural), "FUNC GLOBAL");
        // Every node holds a value: the variant does not make it larger.
        assert!(std::mem::size_of::<Value>() <= 48);
    }
}
