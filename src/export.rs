//! Headless output: the tree (or one node and what it holds) as JSON or
//! indented text, search hits, diagnostics and differences; the bytes of
//! one node are `crate::extract`'s. The tree is walked building lazy
//! children on the way and dropping them after, so even a table of
//! millions is printed in bounded memory.

#![forbid(unsafe_code)]

use std::io::{self, Write};

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use crate::diff::{Change, Counts, Side};
use crate::model::links::{built_target, built_target_in, LinkTargets};
use crate::model::{
    printed_address, text, Diagnostic, NodeId, Numbers, Raw, SpaceId, Span, Tree, FILE,
};
use crate::walk::Sink;

pub use crate::extract::{extract, write_bytes, ExtractError};

/// Writes `s` as a JSON string. Besides what JSON requires, every character
/// that could act on a terminal (C1 controls, bidi overrides) is written as
/// a `\u` escape, so the output is safe to print as it is.
pub fn json_str(out: &mut dyn Write, s: &str) -> io::Result<()> {
    let mut buf = Vec::with_capacity(s.len() + 2);
    push_json_str(&mut buf, s);
    out.write_all(&buf)
}

/// Bytes that go into a JSON string as they are: printable ASCII but `"`
/// and `\\`.
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x20;
    while b < 0x7f {
        t[b] = b != b'"' as usize && b != b'\\' as usize;
        b += 1;
    }
    t
};

/// Appends `s` as a JSON string to `buf` (see [`json_str`]).
#[inline]
fn push_json_str(buf: &mut Vec<u8>, s: &str) {
    push_json_utf8(buf, s.as_bytes());
}

/// The character that starts at `bytes[i]` and its width; U+FFFD and 0
/// where the bytes there are not UTF-8.
#[inline]
fn char_at(bytes: &[u8], i: usize) -> (char, usize) {
    let w = match bytes.get(i) {
        Some(0xc0..=0xdf) => 2,
        Some(0xe0..=0xef) => 3,
        Some(0xf0..=0xf7) => 4,
        _ => 1,
    };
    bytes
        .get(i..i + w)
        .and_then(|c| std::str::from_utf8(c).ok())
        .and_then(|c| c.chars().next())
        .map_or(('\u{fffd}', 0), |c| (c, w))
}

/// [`push_json_str`] of text held as bytes; a byte that is not part of a
/// UTF-8 character is written as the escape of U+FFFD.
fn push_json_utf8(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.push(b'"');
    // Runs of bytes that need no escape are copied whole; characters
    // beyond ASCII stay in the run unless they are unsafe on a terminal.
    let mut start = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if let Some(Ok(w)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
            if plain8(u64::from_le_bytes(w)) {
                i += 8;
                continue;
            }
        }
        if PLAIN[b as usize] {
            i += 1;
            continue;
        }
        if b >= 0x80 {
            let (c, w) = char_at(bytes, i);
            if w > 0 && !text::is_unsafe(c) {
                i += w;
                continue;
            }
            push_str(buf, bytes.get(start..i).unwrap_or_default());
            let _ = write!(buf, "\\u{:04x}", c as u32);
            i += w.max(1);
            start = i;
            continue;
        }
        push_str(buf, bytes.get(start..i).unwrap_or_default());
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            _ => {
                let _ = write!(buf, "\\u{:04x}", b);
            }
        }
        i += 1;
        start = i;
    }
    push_str(buf, bytes.get(start..).unwrap_or_default());
    buf.push(b'"');
}

/// How many bytes the exporters gather before they write.
const CHUNK: usize = 1 << 16;

/// Appends `v` in decimal. The digits are written where they go, last
/// first: a number made in a buffer of its own and then copied costs a
/// stall when the copy reads what was just written byte by byte.
#[inline(always)]
fn push_u64(buf: &mut Vec<u8>, v: u64) {
    if v < 10 {
        buf.push(b'0' + v as u8);
        return;
    }
    let n = v.ilog10() as usize + 1;
    let at = grow(buf, &[b'0'; 20]);
    let Some(dst) = buf.get_mut(at..) else {
        return;
    };
    let mut x = v;
    let mut i = n;
    // Two digits a step, from a table of the hundred pairs.
    while x >= 100 {
        let r = (x % 100) as usize * 2;
        x /= 100;
        i -= 2;
        if let (Some(d), Some(p)) = (dst.get_mut(i..i + 2), PAIRS.get(r..r + 2)) {
            d.copy_from_slice(p);
        }
    }
    if x >= 10 {
        let r = x as usize * 2;
        if let (Some(d), Some(p)) = (dst.get_mut(..2), PAIRS.get(r..r + 2)) {
            d.copy_from_slice(p);
        }
    } else if let Some(d) = dst.first_mut() {
        *d = b'0' + x as u8;
    }
    buf.truncate(at + n);
}

/// Appends `fill` (a constant: a copy of a fixed size, made without a call
/// to memcpy) and returns where it starts. The caller writes over it in
/// place, then cuts the length back to what it wrote: the bytes written are
/// never read back before they are stored, which would stall.
#[inline(always)]
fn grow<const K: usize>(buf: &mut Vec<u8>, fill: &[u8; K]) -> usize {
    let at = buf.len();
    buf.extend_from_slice(fill);
    at
}

/// `00` to `99`, two ASCII digits each.
const PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut k = 0;
    while k < 100 {
        t[2 * k] = b'0' + (k / 10) as u8;
        t[2 * k + 1] = b'0' + (k % 10) as u8;
        k += 1;
    }
    t
};

/// The 16 hex digits of `v` as ASCII, the first digit in the most
/// significant byte: computed in a register, with no table.
#[inline]
fn hex16(v: u64) -> u128 {
    const LOW: u128 = 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f;
    const ONES: u128 = 0x0101_0101_0101_0101_0101_0101_0101_0101;
    // Nibble k of `v` into byte k.
    let mut x = u128::from(v);
    x = (x | (x << 32)) & 0x0000_0000_ffff_ffff_0000_0000_ffff_ffff;
    x = (x | (x << 16)) & 0x0000_ffff_0000_ffff_0000_ffff_0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff_00ff_00ff_00ff_00ff;
    x = (x | (x << 4)) & LOW;
    // Bytes of 10 and more get `a`-`f`: add 0x27 more than `0`.
    let letters = ((x + ONES * 6) >> 4) & ONES;
    x + ONES * u128::from(b'0') + letters * 0x27
}

/// The 8 hex digits of `v` as ASCII bytes, most significant in the high
/// byte (see [`hex16`]).
#[inline]
fn hex8(v: u32) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut x = u64::from(v);
    // One nibble a byte.
    x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    let letters = ((x + ONES * 6) >> 4) & ONES;
    x + ONES * u64::from(b'0') + letters * 0x27
}

/// Appends `0x` and the hex digits of `v`, in place (see [`push_u64`]).
#[inline]
fn push_hex(buf: &mut Vec<u8>, v: u64) {
    let at = grow(buf, &[0; 18]);
    let end = buf.get_mut(at..).map_or(0, |d| put_hex(d, 0, v));
    buf.truncate(at + end);
}

/// True when none of the 8 bytes of `w` needs an escape in JSON: no
/// control, DEL, `"`, `\\` or byte beyond ASCII.
#[inline]
fn plain8(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    let bad = below
        | (w & HIGH)
        | has_zero(w ^ (ONES * u64::from(b'"')))
        | has_zero(w ^ (ONES * u64::from(b'\\')))
        | has_zero(w ^ (ONES * 0x7f));
    bad == 0
}

/// Appends `s`; strings up to 32 bytes without a call to memcpy (most
/// names, numbers and values are short).
#[inline(always)]
fn push_str(buf: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    if n > 32 {
        buf.extend_from_slice(s);
        return;
    }
    let at = grow(buf, &[0; 32]);
    if let Some(d) = buf.get_mut(at..) {
        copy_short(d, s);
    }
    buf.truncate(at + n);
}

/// A `String` writer over a byte buffer, so values render straight into it.
struct Utf8Buf<'a>(&'a mut Vec<u8>);

impl crate::model::value::Out for Utf8Buf<'_> {
    #[inline]
    fn dec(&mut self, v: u64) -> std::fmt::Result {
        push_u64(self.0, v);
        Ok(())
    }
    #[inline]
    fn hex(&mut self, v: u64) -> std::fmt::Result {
        push_hex(self.0, v);
        Ok(())
    }
}

impl std::fmt::Write for Utf8Buf<'_> {
    #[inline(always)]
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        push_str(self.0, s.as_bytes());
        Ok(())
    }
    #[inline]
    fn write_char(&mut self, c: char) -> std::fmt::Result {
        if c.is_ascii() {
            self.0.push(c as u8);
        } else {
            push_str(self.0, c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        Ok(())
    }
}

/// Writes the JSON document of the contract: path, size, format, the whole
/// tree under `root`, the byte spaces and the diagnostics.
pub fn json(tree: &mut Tree, path: &str, out: &mut dyn Write) -> io::Result<()> {
    let threads = crate::walk::threads_for(tree);
    json_with(tree, path, out, threads)
}

/// [`json`] with `threads` threads (the output is the same for any number).
pub fn json_with(
    tree: &mut Tree,
    path: &str,
    out: &mut dyn Write,
    threads: usize,
) -> io::Result<()> {
    json_from(tree, path, None, out, threads)
}

/// [`json`] of node `at` and what it holds (`--at`): the document says
/// `at`'s address, its `root` is `at`, and its diagnostics are those that
/// start in `at`'s bytes ([`Tree::starts_in`]).
pub fn json_at(tree: &mut Tree, path: &str, at: NodeId, out: &mut dyn Write) -> io::Result<()> {
    let threads = crate::walk::threads_for_node(tree, at);
    json_from(tree, path, Some(at), out, threads)
}

fn json_from(
    tree: &mut Tree,
    path: &str,
    at: Option<NodeId>,
    out: &mut dyn Write,
    threads: usize,
) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK * 2);
    buf.extend_from_slice(b"{\"path\": ");
    push_json_str(&mut buf, path);
    buf.extend_from_slice(b", \"size\": ");
    push_u64(&mut buf, tree.data().len() as u64);
    buf.extend_from_slice(b", \"format\": ");
    push_json_str(&mut buf, tree.format_name());
    if let Some(id) = at {
        buf.extend_from_slice(b", \"at\": ");
        push_json_str(&mut buf, printed_address(&tree.path_string(id)));
    }
    buf.extend_from_slice(b",\n\"root\": ");
    out.write_all(&buf)?;
    buf.clear();
    let from = at.unwrap_or(tree.root());
    crate::walk::walk_from(tree, from, &mut JsonSink::default(), out, threads)?;
    buf.extend_from_slice(b",\n\"spaces\": [");
    let file_len = tree.data().len() as u64;
    for (i, sp) in tree.spaces().iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"\n{\"id\": ");
        push_u64(&mut buf, i as u64);
        buf.extend_from_slice(b", \"name\": ");
        push_json_str(&mut buf, &sp.name);
        buf.extend_from_slice(b", \"size\": ");
        push_u64(&mut buf, sp.size(file_len));
        buf.extend_from_slice(b", \"from\": ");
        match sp.origin {
            None => buf.extend_from_slice(b"null"),
            Some(o) => {
                buf.extend_from_slice(b"{\"space\": ");
                push_u64(&mut buf, u64::from(o.from.space.0));
                buf.extend_from_slice(b", \"offset\": ");
                push_u64(&mut buf, o.from.offset);
                buf.extend_from_slice(b", \"size\": ");
                push_u64(&mut buf, o.from.len);
                buf.extend_from_slice(b", \"method\": ");
                push_json_str(&mut buf, o.method);
                buf.push(b'}');
            }
        }
        buf.push(b'}');
    }
    buf.extend_from_slice(b"],\n\"diagnostics\": [");
    for (i, d) in diagnostics_in(tree, at).enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"\n{\"severity\": \"");
        buf.extend_from_slice(d.severity.as_str().as_bytes());
        buf.extend_from_slice(b"\", \"space\": ");
        push_u64(&mut buf, u64::from(d.span.space.0));
        buf.extend_from_slice(b", \"offset\": ");
        push_u64(&mut buf, d.span.offset);
        buf.extend_from_slice(b", \"size\": ");
        push_u64(&mut buf, d.span.len);
        buf.extend_from_slice(b", \"message\": ");
        push_json_str(&mut buf, &d.message);
        buf.push(b'}');
        if buf.len() >= CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(b"]}\n");
    out.write_all(&buf)
}

fn push_tree_line(buf: &mut Vec<u8>, name: &str, at: Span, value: Option<&str>) {
    push_str(buf, name.as_bytes());
    buf.push(b' ');
    push_range(buf, at);
    if let Some(v) = value {
        buf.push(b' ');
        buf.extend_from_slice(v.as_bytes());
    }
}

/// `[0xOFFSET+0xSIZE]`, `[K:0xOFFSET+0xSIZE]` in derived space K: a
/// node's range and where a link points, as `--tree` writes them.
fn push_range(buf: &mut Vec<u8>, at: Span) {
    buf.push(b'[');
    if at.space != FILE {
        push_u64(buf, u64::from(at.space.0));
        buf.push(b':');
    }
    push_hex(buf, at.offset);
    buf.push(b'+');
    push_hex(buf, at.len);
    buf.push(b']');
}

/// The start of a tree line in the file's space, in one go: `depth * 2`
/// spaces, `name` (at most 32 bytes, already safe to show), then
/// ` [0x…+0x…]`. The common line of a big tree, written with one
/// reservation and one length update.
#[inline]
fn push_line_head(buf: &mut Vec<u8>, depth: usize, name: &str, offset: u64, size: u64) {
    let indent = depth * 2;
    let n = name.len();
    if indent > 32 || n > 32 {
        buf.reserve(indent + n + 64);
        buf.extend(std::iter::repeat_n(b' ', indent));
        push_tree_line(buf, name, Span::file(offset, size), None);
        return;
    }
    // At most 32 + 32 + 2 + 18 + 1 + 18 + 1 = 104 bytes are written; the
    // line is made of spaces first, so the indent costs nothing more.
    let at = grow(buf, &[b' '; 128]);
    let Some(line) = buf.get_mut(at..) else {
        return;
    };
    let mut end = indent;
    if let Some(d) = line.get_mut(end..) {
        copy_short(d, name.as_bytes());
    }
    end += n;
    if let Some(d) = line.get_mut(end..end + 2) {
        d.copy_from_slice(b" [");
    }
    end = put_hex(line, end + 2, offset);
    if let Some(d) = line.get_mut(end) {
        *d = b'+';
    }
    end = put_hex(line, end + 1, size);
    if let Some(d) = line.get_mut(end) {
        *d = b']';
    }
    buf.truncate(at + end + 1);
}

/// Copies `src` (at most 32 bytes) to the start of `dst` (at least as
/// long) with copies of fixed sizes, without a call to memcpy.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    /// The first and the last `K` bytes of `src` (`K <= src.len() <= 2K`),
    /// which together cover it: two copies of a fixed size.
    #[inline(always)]
    fn ends<const K: usize>(dst: &mut [u8], src: &[u8]) {
        let n = src.len();
        if let (Some(d), Some(s)) = (dst.get_mut(..K), src.get(..K)) {
            d.copy_from_slice(s);
        }
        if let (Some(d), Some(s)) = (dst.get_mut(n - K..n), src.get(n - K..n)) {
            d.copy_from_slice(s);
        }
    }
    match src.len() {
        16.. => ends::<16>(dst, src),
        8.. => ends::<8>(dst, src),
        4.. => ends::<4>(dst, src),
        2.. => ends::<2>(dst, src),
        1 => {
            if let (Some(d), Some(s)) = (dst.first_mut(), src.first()) {
                *d = *s;
            }
        }
        _ => {}
    }
}

/// Writes `0x` and the hex digits of `v` into `line` at `at` (up to 18
/// bytes are stored: those after the number are left to be overwritten)
/// and returns where the number ends.
#[inline(always)]
fn put_hex(line: &mut [u8], at: usize, v: u64) -> usize {
    let n = ((64 - v.leading_zeros()).div_ceil(4).max(1)) as usize;
    if let Some(d) = line.get_mut(at..at + 2) {
        d.copy_from_slice(b"0x");
    }
    // The digits that count first, in memory order; in 64-bit arithmetic
    // below 2^32, which most offsets and sizes are.
    match u32::try_from(v) {
        Ok(w) => {
            if let Some(d) = line.get_mut(at + 2..at + 10) {
                d.copy_from_slice(&(hex8(w) << (8 * (8 - n))).to_be_bytes());
            }
        }
        Err(_) => {
            if let Some(d) = line.get_mut(at + 2..at + 18) {
                d.copy_from_slice(&(hex16(v) << (8 * (16 - n))).to_be_bytes());
            }
        }
    }
    at + 2 + n
}

/// Writes the tree as indented text, one node a line.
pub fn text_tree(tree: &mut Tree, out: &mut dyn Write) -> io::Result<()> {
    text_tree_in(tree, out, Numbers::Natural)
}

/// Writes the tree as indented text, numbers as `mode` asks.
pub fn text_tree_in(tree: &mut Tree, out: &mut dyn Write, mode: Numbers) -> io::Result<()> {
    let threads = crate::walk::threads_for(tree);
    text_tree_with(tree, out, mode, threads)
}

/// Writes the tree as indented text with `threads` threads (the output is
/// the same for any number).
pub fn text_tree_with(
    tree: &mut Tree,
    out: &mut dyn Write,
    mode: Numbers,
    threads: usize,
) -> io::Result<()> {
    let root = tree.root();
    text_tree_from(tree, root, out, mode, threads)
}

/// Writes node `at` and what it holds as indented text (`--at`), `at`
/// unindented.
pub fn text_tree_at(tree: &mut Tree, at: NodeId, out: &mut dyn Write) -> io::Result<()> {
    let threads = crate::walk::threads_for_node(tree, at);
    text_tree_from(tree, at, out, Numbers::Natural, threads)
}

fn text_tree_from(
    tree: &mut Tree,
    from: NodeId,
    out: &mut dyn Write,
    mode: Numbers,
    threads: usize,
) -> io::Result<()> {
    let mut sink = TextSink {
        mode,
        targets: Targets::default(),
    };
    crate::walk::walk_from(tree, from, &mut sink, out, threads)
}

/// Writes a node a line: indent, name, range, value.
struct TextSink {
    mode: Numbers,
    /// The nodes links lead to.
    targets: Targets,
}

impl Sink for TextSink {
    fn enter(&mut self, t: &Tree, id: NodeId, depth: usize, buf: &mut Vec<u8>) {
        const SPACES: &[u8] = &[b' '; 32];
        let Some(n) = t.node(id) else {
            return;
        };
        // Escaped where it holds a control or bidi character (most names
        // are plain ASCII, checked inline).
        let plain = text::is_plain(n.name.as_bytes());
        if plain && depth <= 16 && n.name.len() <= 32 && n.space == FILE {
            push_line_head(buf, depth, &n.name, n.offset, n.size);
        } else {
            buf.reserve(depth * 2 + n.name.len() + 128);
            let mut indent = depth * 2;
            while indent > 0 {
                let k = indent.min(32);
                push_str(buf, SPACES.get(..k).unwrap_or_default());
                indent -= k;
            }
            let name = if plain {
                std::borrow::Cow::Borrowed(n.name.as_str())
            } else {
                text::clean(&n.name)
            };
            push_tree_line(buf, &name, n.span(), None);
        }
        if let Some(v) = &n.value {
            buf.push(b' ');
            let at = buf.len();
            let _ = v.write_out(&mut Utf8Buf(buf), self.mode);
            // An instruction's source line after its text, as the
            // explorer shows it: `  ; file.c:12:7`.
            if let Some(src) = v.source_line() {
                use std::fmt::Write as _;
                let mut s = String::new();
                let _ = write!(s, "  ; {src}");
                push_str(buf, s.as_bytes());
            }
            clean_tail(buf, at);
        }
        // Where a bare number points (the explorer's `f`): ` -> [0x…+0x…]`,
        // then the address of the node that starts there, where one does.
        // A value that names what it points at (a string, a section's
        // name, a symbol's) says it already (`Tree::bare_link`).
        if let Some(l) = t.bare_link(id) {
            self.arrow(t, id, l, buf);
        }
        buf.push(b'\n');
    }
    fn leave(&mut self, _: &Tree, _: NodeId, _: usize, _: &mut Vec<u8>) {}
    fn below(&self) -> Self {
        TextSink {
            mode: self.mode,
            targets: self.targets.clone(),
        }
    }
}

impl TextSink {
    /// ` -> [0x…+0x…]` and the address of the node there, if any (few
    /// nodes: kept out of the way of the others).
    #[inline(never)]
    fn arrow(&self, t: &Tree, id: NodeId, l: Span, buf: &mut Vec<u8>) {
        buf.extend_from_slice(b" -> ");
        push_range(buf, l);
        self.targets.path(t, id, l, |p| {
            buf.push(b' ');
            let at = buf.len();
            push_str(buf, p.as_bytes());
            clean_tail(buf, at);
        });
    }
}

/// The nodes links lead to, for the exporters: for a link whose node's
/// value does not name its target ([`Tree::bare_link`]), the address of
/// the node the explorer's `f` selects, where that node starts at the
/// link's offset ([`Tree::link_target`]), names cut as
/// [`Tree::short_path`] cuts them. Found in a tree of its own over the
/// same bytes, built as far as the links ask and dropped past a bound;
/// one for the walk's threads.
#[derive(Clone, Default)]
struct Targets(Arc<Mutex<Resolver>>);

/// Nodes the resolver's tree may build, past those it was made with,
/// before they are forgotten.
const RESOLVER_NODES: usize = 1 << 16;
/// The longest address given, in characters as `--tree` shows it (its
/// names escaped for a terminal): with names cut to 64 characters, what a
/// link adds to the output is bounded however deep the nodes nest.
const PATH_MAX: usize = 256;
/// Addresses the resolver keeps before it forgets them all.
const RESOLVER_PATHS: usize = 1 << 12;

#[derive(Default)]
struct Resolver {
    targets: Option<LinkTargets>,
    /// The address found for each link (none where no node starts there).
    found: FxHashMap<(SpaceId, u64, u64), Option<Box<str>>>,
}

impl Targets {
    /// Calls `f` with the address of the node link `l` of node `from` of
    /// tree `t` leads to; not where no node starts at the link's offset.
    /// A link into a derived space is looked for below the root of that
    /// space that `from` is in (links lead within the space they are in).
    fn path(&self, t: &Tree, from: NodeId, l: Span, f: impl FnOnce(&str)) {
        let Ok(mut r) = self.0.lock() else {
            return;
        };
        let r = &mut *r;
        let key = (l.space, l.offset, l.len);
        if !r.found.contains_key(&key) {
            if r.found.len() >= RESOLVER_PATHS {
                r.found.clear();
            }
            let top = (l.space != FILE).then(|| t.space_root(from));
            // In the tree being written where it is built that far, else
            // in the resolver's.
            let built = match top {
                None => built_target(t, l),
                Some(top) => built_target_in(t, top, l),
            };
            let p = match built {
                Some(id) => id.map(|id| t.short_path(id)),
                None => {
                    // Past the bound, the nodes built since it was made
                    // are forgotten.
                    if let Some(x) = r.targets.as_mut().filter(|x| x.grown() > RESOLVER_NODES) {
                        x.forget();
                    }
                    let x = r.targets.get_or_insert_with(|| LinkTargets::new(t));
                    match top {
                        None => x.path(l),
                        Some(top) => x.path_in(&t.path_string(top), l),
                    }
                }
            };
            // An address too long to read is left out.
            let p = p.filter(|p| text::clean(p).chars().count() <= PATH_MAX);
            r.found
                .insert(key, p.map(|p| Box::from(printed_address(&p))));
        }
        if let Some(Some(p)) = r.found.get(&key) {
            f(p);
        }
    }
}

/// Escapes, for a terminal, the text written to `buf` from `at` on (the
/// value just rendered there); rewritten only where it holds a control or
/// bidi character.
#[inline]
fn clean_tail(buf: &mut Vec<u8>, at: usize) {
    let Some(tail) = buf.get(at..) else {
        return;
    };
    if text::is_plain(tail) {
        return;
    }
    let s = String::from_utf8_lossy(tail);
    if let std::borrow::Cow::Owned(c) = text::clean(&s) {
        buf.truncate(at);
        buf.extend_from_slice(c.as_bytes());
    }
}

/// Writes nodes as the JSON contract's NODE objects.
#[derive(Default)]
struct JsonSink {
    /// One flag a level: whether the next child written there is the first.
    first: Vec<bool>,
    /// The value being written, as text (UTF-8).
    val: Vec<u8>,
    /// The nodes links lead to.
    targets: Targets,
}

impl Sink for JsonSink {
    fn enter(&mut self, t: &Tree, id: NodeId, _: usize, buf: &mut Vec<u8>) {
        let Some(n) = t.node(id) else {
            return;
        };
        if let Some(f) = self.first.last_mut() {
            if !std::mem::replace(f, false) {
                buf.push(b',');
            }
            buf.push(b'\n');
        }
        self.first.push(true);
        buf.extend_from_slice(b"{\"name\": ");
        push_json_str(buf, &n.name);
        buf.extend_from_slice(b", \"offset\": ");
        push_u64(buf, n.offset);
        buf.extend_from_slice(b", \"size\": ");
        push_u64(buf, n.size);
        buf.extend_from_slice(b", \"space\": ");
        push_u64(buf, u64::from(n.space.0));
        buf.extend_from_slice(b", \"value\": ");
        match &n.value {
            Some(v) => {
                self.val.clear();
                let _ = v.write_out(&mut Utf8Buf(&mut self.val), Numbers::Natural);
                // Utf8Buf only ever appends whole `str`s and chars.
                push_json_utf8(buf, &self.val);
                buf.extend_from_slice(b", \"raw\": ");
                match v.raw() {
                    Some(Raw::U(u)) => push_u64(buf, u),
                    Some(Raw::I(i)) => {
                        buf.extend_from_slice(itoa::Buffer::new().format(i).as_bytes())
                    }
                    None => buf.extend_from_slice(b"null"),
                }
            }
            None => buf.extend_from_slice(b"null, \"raw\": null"),
        }
        // Where `f` goes in the explorer: a range of a byte space, and,
        // where the value does not name it, the address of the node there.
        if let Some(l) = t.link(id) {
            buf.extend_from_slice(b", \"link\": {\"space\": ");
            push_u64(buf, u64::from(l.space.0));
            buf.extend_from_slice(b", \"offset\": ");
            push_u64(buf, l.offset);
            buf.extend_from_slice(b", \"size\": ");
            push_u64(buf, l.len);
            if crate::model::Value::bare(n.value.as_ref()) {
                self.targets.path(t, id, l, |p| {
                    buf.extend_from_slice(b", \"path\": ");
                    push_json_str(buf, p);
                });
            }
            buf.push(b'}');
        }
        // An instruction's source line, from the line table.
        if let Some(src) = n.value.as_ref().and_then(|v| v.source_line()) {
            buf.extend_from_slice(b", \"line\": {\"file\": ");
            push_json_str(buf, &src.file);
            buf.extend_from_slice(b", \"line\": ");
            push_u64(buf, src.line);
            buf.extend_from_slice(b", \"column\": ");
            push_u64(buf, src.column);
            buf.push(b'}');
        }
        buf.extend_from_slice(b", \"children\": [");
    }
    fn leave(&mut self, _: &Tree, _: NodeId, _: usize, buf: &mut Vec<u8>) {
        self.first.pop();
        buf.extend_from_slice(b"]}");
    }
    fn below(&self) -> Self {
        JsonSink {
            first: vec![true],
            val: Vec::new(),
            targets: self.targets.clone(),
        }
    }
}

/// The diagnostics printed: all, or with `at` (`--at`) those that start in
/// its bytes ([`Tree::starts_in`]).
fn diagnostics_in(tree: &Tree, at: Option<NodeId>) -> impl Iterator<Item = &Diagnostic> {
    let shown = at.and_then(|id| tree.node(id)).map(|n| n.span());
    tree.diagnostics()
        .iter()
        .filter(move |d| shown.is_none_or(|s| tree.starts_in(s, d.span)))
}

/// Writes the diagnostics as lines for stderr; one in a derived space shows
/// it as `[K:0x…+0x…]`.
pub fn diagnostics_text(tree: &Tree, out: &mut dyn Write) -> io::Result<()> {
    diagnostics_text_in(tree, None, out)
}

/// [`diagnostics_text`] of those that start in node `at`'s bytes
/// ([`Tree::starts_in`]), or of all.
pub fn diagnostics_text_in(tree: &Tree, at: Option<NodeId>, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(CHUNK, out);
    for d in diagnostics_in(tree, at) {
        let sp = if d.span.space == FILE {
            String::new()
        } else {
            format!("{}:", d.span.space)
        };
        writeln!(
            out,
            "{}: [{sp}0x{:x}+0x{:x}] {}",
            d.severity.as_str(),
            d.span.offset,
            d.span.len,
            d.message
        )?;
    }
    out.flush()
}

/// Writes one line a change between `a` and `b`: `~ PATH: OLD -> NEW`,
/// `+ PATH`, `- PATH`. Returns the counts.
pub fn diff_text(
    a: &mut Tree,
    b: &mut Tree,
    options: crate::diff::Options,
    out: &mut dyn Write,
) -> io::Result<Counts> {
    let mut err = None;
    // The values, or the bytes where the values are the same (or none).
    let shown = |s: &Option<Side>, by_value: bool| -> String {
        match s {
            Some(Side { value: Some(v), .. }) if by_value => v.clone(),
            Some(s) => format!("[{}]", s.preview),
            None => String::new(),
        }
    };
    let counts = crate::diff::diff(a, b, options, &mut |r| {
        let by_value = r.a.as_ref().map(|s| &s.value) != r.b.as_ref().map(|s| &s.value);
        let line = match r.change {
            // Same value and bytes at another place: an entry that moved.
            Change::Changed if r.moved => format!(
                "~ {}: at {} -> at {}",
                r.path,
                r.a.as_ref().map_or(String::new(), where_),
                r.b.as_ref().map_or(String::new(), where_),
            ),
            Change::Changed => format!(
                "~ {}: {} -> {}",
                crate::model::printed_address(&r.path),
                shown(&r.a, by_value),
                shown(&r.b, by_value)
            ),
            c => format!("{} {}", c.sign(), crate::model::printed_address(&r.path)),
        };
        // Names and values as a terminal may show them.
        let line = text::clean(&line);
        match out
            .write_all(line.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
        {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                err = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(counts),
    }
}

/// Where a side lies, as `--find` prints it (`K:` before a derived space).
fn where_(s: &Side) -> String {
    s.span.start_text()
}

fn push_side(buf: &mut Vec<u8>, s: &Option<Side>) {
    let Some(s) = s else {
        buf.extend_from_slice(b"null");
        return;
    };
    buf.extend_from_slice(b"{\"space\": ");
    push_u64(buf, u64::from(s.span.space.0));
    buf.extend_from_slice(b", \"offset\": ");
    push_u64(buf, s.span.offset);
    buf.extend_from_slice(b", \"size\": ");
    push_u64(buf, s.span.len);
    buf.extend_from_slice(b", \"value\": ");
    match &s.value {
        Some(v) => push_json_str(buf, v),
        None => buf.extend_from_slice(b"null"),
    }
    buf.push(b'}');
}

/// Writes the changes between `a` and `b` as a JSON list of records
/// `{"change": "~"|"+"|"-", "path", "a_path", "a": SIDE|null, "b":
/// SIDE|null}`, SIDE = `{"space", "offset", "size", "value"}`: `path` is
/// B's address (A's for a removed node), `a_path` A's (null for an added
/// node).
pub fn diff_json(
    a: &mut Tree,
    b: &mut Tree,
    options: crate::diff::Options,
    out: &mut dyn Write,
) -> io::Result<Counts> {
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK * 2);
    buf.push(b'[');
    let mut first = true;
    let mut err = None;
    let counts = crate::diff::diff(a, b, options, &mut |r| {
        if !std::mem::replace(&mut first, false) {
            buf.push(b',');
        }
        buf.extend_from_slice(b"\n{\"change\": \"");
        let mut sign = [0u8; 4];
        buf.extend_from_slice(r.change.sign().encode_utf8(&mut sign).as_bytes());
        buf.extend_from_slice(b"\", \"path\": ");
        push_json_str(&mut buf, crate::model::printed_address(&r.path));
        buf.extend_from_slice(b", \"a_path\": ");
        match (r.change, &r.other) {
            (Change::Added, _) => buf.extend_from_slice(b"null"),
            (Change::Changed, Some(p)) => push_json_str(&mut buf, crate::model::printed_address(p)),
            _ => push_json_str(&mut buf, crate::model::printed_address(&r.path)),
        }
        buf.extend_from_slice(b", \"a\": ");
        push_side(&mut buf, &r.a);
        buf.extend_from_slice(b", \"b\": ");
        push_side(&mut buf, &r.b);
        buf.push(b'}');
        if buf.len() >= CHUNK {
            if let Err(e) = out.write_all(&buf) {
                err = Some(e);
                return ControlFlow::Break(());
            }
            buf.clear();
        }
        ControlFlow::Continue(())
    });
    if let Some(e) = err {
        return Err(e);
    }
    buf.extend_from_slice(b"]\n");
    out.write_all(&buf)?;
    Ok(counts)
}

/// `--find`: every match of `pat` in `tree`, one a line, each led by
/// `lead` (empty for one file, `FILE:` for many): its offset in hex
/// (`K:0x…` in a derived space K); node matches add two spaces and the
/// node's address. Returns the number of matches.
pub fn find_matches(
    tree: &mut Tree,
    pat: &crate::search::Pattern,
    lead: &str,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let mut n = 0u64;
    use crate::search::{self, Pattern};
    let never = std::sync::atomic::AtomicBool::new(false);
    match pat {
        Pattern::Bytes { bytes, fold } => {
            search::make_all_spaces(tree, &never);
            for sp in 0..tree.spaces().len() {
                let sid = SpaceId::at(sp);
                let data = tree.space_bytes(sid);
                for o in search::find_bytes(bytes, *fold, data, &never, &mut |_| {}) {
                    n += 1;
                    if sid == FILE {
                        writeln!(out, "{lead}0x{o:x}")?;
                    } else {
                        writeln!(out, "{lead}{sid}:0x{o:x}")?;
                    }
                }
            }
        }
        Pattern::Nodes { .. } | Pattern::Named(_) => {
            let found = search::find_pattern_nodes(tree, pat, &never, &mut |_| {});
            for m in found.map(|f| f.0).unwrap_or_default() {
                n += 1;
                let address = text::clean(crate::model::printed_address(&m.path));
                writeln!(out, "{lead}{}  {address}", m.span.start_text())?;
            }
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_plain_runs() {
        for v in [
            0u64,
            9,
            10,
            15,
            16,
            99,
            100,
            0xabcdef,
            12345,
            0xffff_ffff,
            1 << 32,
            u64::MAX,
        ] {
            let mut b = b"x".to_vec();
            push_u64(&mut b, v);
            assert_eq!(b, format!("x{v}").into_bytes());
            let mut b = b"x".to_vec();
            push_hex(&mut b, v);
            assert_eq!(b, format!("x0x{v:x}").into_bytes());
        }
        assert!(plain8(u64::from_le_bytes(*b"abcdefgh")));
        for bad in [
            *b"abc\"efgh",
            *b"abc\\efgh",
            *b"abc\x1befgh",
            *b"abc\x7fefgh",
            *b"abc\xc3efgh",
        ] {
            assert!(!plain8(u64::from_le_bytes(bad)));
        }
        let mut v = Vec::new();
        json_str(
            &mut v,
            "a long plain name, then \"quoted\" and \u{1b} and é",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "\"a long plain name, then \\\"quoted\\\" and \\u001b and é\""
        );
    }

    #[test]
    fn short_copies_and_line_heads_equal_formatting() {
        let name: String = ('a'..='z').chain('A'..='Z').collect();
        for n in 0..=40 {
            let part = name.get(..n).unwrap();
            let mut b = b"x".to_vec();
            push_str(&mut b, part.as_bytes());
            assert_eq!(b, format!("x{part}").into_bytes());
            for depth in [0, 1, 16, 17] {
                for (o, z) in [(0, 1), (0x1f0, 0xffff_ffff), (1 << 40, u64::MAX)] {
                    let mut b = b"x".to_vec();
                    push_line_head(&mut b, depth, part, o, z);
                    let want = format!("x{:w$}{part} [0x{o:x}+0x{z:x}]", "", w = depth * 2);
                    assert_eq!(String::from_utf8(b).unwrap(), want);
                }
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_escapes() {
        let mut b = Vec::new();
        push_json_utf8(&mut b, b"a\xe2\x80\xaeb\xc3\xa9\xff\xc3");
        let s = String::from_utf8(b).unwrap();
        assert_eq!(s, "\"a\\u202ebé\\ufffd\\ufffd\"");
    }

    #[test]
    fn json_strings_are_terminal_safe() {
        let mut v = Vec::new();
        json_str(&mut v, "a\"b\\c\n\u{1b}\u{85}\u{202e}é").unwrap();
        let s = String::from_utf8(v).unwrap();
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u001b\\u0085\\u202eé\"");
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\"b\\c\n\u{1b}\u{85}\u{202e}é");
    }

    #[test]
    fn json_of_raw_bytes_follows_the_contract() {
        let mut t = crate::formats::build_from_bytes(vec![1, 2, 3]);
        let mut v = Vec::new();
        json(&mut t, "x", &mut v).unwrap();
        let j: serde_json::Value = serde_json::from_slice(&v).unwrap();
        assert_eq!(j["format"], "raw");
        assert_eq!(j["size"], 3);
        assert_eq!(j["root"]["offset"], 0);
        assert_eq!(j["root"]["size"], 3);
        assert_eq!(j["root"]["children"].as_array().unwrap().len(), 0);
        assert_eq!(j["diagnostics"].as_array().unwrap().len(), 0);
    }
}
