//! Offsets by hand: a byte offset written as `base + 8` in `src/formats`
//! repeats a layout that a `record!` declaration, a field's `AT`, a cursor
//! or a named width states once. Every `name + literal` left in the code
//! (outside tests) is listed here with its reason: in [`OFFSETS`] the few
//! byte offsets still written so (at most [`MAX_OFFSETS`]), in
//! [`NOT_OFFSETS`] the sums that are no byte offset (a nesting depth, the
//! next index of a list, a count). A new site fails until it is listed, and
//! a listed one that is gone fails too, so the lists only shrink.

use std::collections::BTreeMap;
use std::path::Path;

use super::imports::{blank, rs_files, without_tests};

/// At most this many byte offsets written as `name + literal`.
const MAX_OFFSETS: usize = 30;

/// Byte offsets still written as `name + literal`: file under
/// `src/formats`, the line as written (trimmed), why.
const OFFSETS: &[(&str, &str, &str)] = &[
    (
        "elf/dwarf/abbrev.rs",
        "Item::Null(at) => (at + 1).min(d.len()),",
        "past a one-byte null entry",
    ),
    (
        "elf/dwarf/abbrev.rs",
        "let mut from = x.tag_end + 1;",
        "past the one-byte children flag after the tag",
    ),
    (
        "elf/dwarf/entries.rs",
        "d.end = d.end.max(d.off + 1);",
        "an entry takes at least its one-byte code, so the walk moves on",
    ),
    (
        "elf/dwarf/entries.rs",
        "d.end = off + 1;",
        "a null entry is its one-byte code",
    ),
    (
        "elf/dwarf/frame/entry.rs",
        "items.push(leaf(\"segment_selector_size\", at + 1, 1, Value::uint(s)));",
        "the byte after address_size in a version 4 CIE, whose fields before it vary in length",
    ),
    (
        "elf/dwarf/frame/hdr.rs",
        "end: off + 2 * size,",
        "the two encoded values of a search table row, each as wide as its encoding",
    ),
    (
        "elf/dwarf/frame/mod.rs",
        "Some(c.at + end.max(s + 4))",
        "an entry takes at least its 4-byte length, so the walk moves on",
    ),
    (
        "elf/dwarf/frame/mod.rs",
        "off = end.max(off + 4);",
        "an entry takes at least its 4-byte length, so the walk moves on",
    ),
    (
        "elf/dwarf/frame/mod.rs",
        "|off| entry_end(d, &ctx, off - ctx.at).map(|e| ctx.at + e.max(off - ctx.at + 4)),",
        "an entry takes at least its 4-byte length, so the walk moves on",
    ),
    (
        "elf/dwarf/line/mod.rs",
        "let next = h.end.max(start + 1);",
        "a unit takes at least one byte, so the walk moves on",
    ),
    (
        "elf/dwarf/line/mod.rs",
        "off.checked_add(12)?.checked_add(read(off + 4, 8)?)?",
        "DWARF64's initial length: 0xffffffff, then the 8-byte length",
    ),
    (
        "elf/dwarf/mod.rs",
        "let (Some(len), Some(word)) = (b.read_u32(sec.offset, elf.e), b.read_u8(sec.offset + 6)) else {",
        "a unit header's address size, read before the version says which header layout follows",
    ),
    (
        "parts.rs",
        "let end = (self.extent)(d, at).max(at + 1).min(len);",
        "a part takes at least one byte, so the scan moves on",
    ),
];

/// Sums that are no byte offset: file under `src/formats`, the line as
/// written (trimmed), what the sum is.
const NOT_OFFSETS: &[(&str, &str, &str)] = &[
    (
        "bitcode.rs",
        "let elem = *abbrev.get(i + 1)?;",
        "the index of the next abbreviation operand",
    ),
    (
        "cdo/commands.rs",
        "if !p.has(i + 1) {",
        "the index of the second word of a 64-bit pair",
    ),
    (
        "cdo/commands.rs",
        "if depth + 1 < MAX_DEPTH {",
        "a nesting depth",
    ),
    (
        "cdo/commands.rs",
        "let hi = if p.has(i + 1) {",
        "the index of the second word of a 64-bit pair",
    ),
    (
        "cdo/commands.rs",
        "nested(f.builder(), p.node, at, ctx, depth + 1);",
        "a nesting depth",
    ),
    (
        "cdo/names.rs",
        "s.push_str(if i + 1 == v.len() { \" or \" } else { \", \" });",
        "whether this is the last item of a list",
    ),
    (
        "cdo/stream.rs",
        "if depth + 1 < MAX_DEPTH && s < cend {",
        "a nesting depth",
    ),
    (
        "cdo/stream.rs",
        "if let (Some(hi), Some(lo)) = (arg(b, i), arg(b, i + 1)) {",
        "the index of the second word of a 64-bit pair",
    ),
    (
        "cdo/stream.rs",
        "let inner = walk(b, nested, depth + 1, Some((&mut *t, &mut *budget)));",
        "a nesting depth",
    ),
    (
        "elf/code.rs",
        "return Some((v, i + 1));",
        "the number of bytes a LEB128 took: the index of its last byte plus one",
    ),
    (
        "elf/dwarf/entries.rs",
        "i = (d.next as usize).max(i + 1);",
        "the index of the next entry in a unit's list",
    ),
    (
        "elf/dwarf/entries.rs",
        "siblings(b, node, shape, i + 1, d.next as usize);",
        "the index of the next entry in a unit's list",
    ),
    (
        "elf/dwarf/line/mod.rs",
        "LAST.set(Some((m.id, i + 1, next - c.at, st)));",
        "the index of the next row",
    ),
    (
        "elf/hash.rs",
        "j = Some(k + 1);",
        "the index of the next symbol",
    ),
    (
        "elf/strings.rs",
        ".map(|(i, _)| (i + 1) * unit)",
        "the length of a string with its terminator, in characters, times their width",
    ),
    (
        "elf/versions.rs",
        "if j + 1 < u64::from(cnt) {",
        "the number of entries read so far",
    ),
    (
        "elf/versions.rs",
        "j + 1",
        "the number of entries read so far",
    ),
    (
        "json/scan.rs",
        "if depth + 1 >= MAX_DEPTH {",
        "a nesting depth",
    ),
    (
        "json/scan.rs",
        "let (rest, _) = entry(i, depth + 1, object)?;",
        "a nesting depth",
    ),
    (
        "ksy/mod.rs",
        "let (s, e) = extent(items, k, depth + 1);",
        "a nesting depth",
    ),
    (
        "ksy/run/eval.rs",
        "fixed_size(spec, spec.lookup(ty, path)?, depth + 1)?",
        "a nesting depth",
    ),
    (
        "ksy/run/mod.rs",
        "let odepth = parent.map_or(0, |p| p.depth + 1);",
        "a nesting depth",
    ),
    (
        "ksy/run/read.rs",
        "depth: owner.depth + 1,",
        "a nesting depth",
    ),
    (
        "ksy/run/read.rs",
        "let deep = self.depth.max(owner.depth).saturating_add(nest + 2);",
        "a nesting depth",
    ),
    (
        "ksy/run/read.rs",
        "let one = self.element_size(a, &probe, io, le, nest + 1)?;",
        "a nesting depth",
    ),
    (
        "msgpack.rs",
        "p = self.item(b, g, &format!(\"[{i}]\"), p, p, depth + 1)?;",
        "a nesting depth",
    ),
    (
        "msgpack.rs",
        "p = self.item(b, g, &key, kstart, vstart, depth + 1)?;",
        "a nesting depth",
    ),
    (
        "npu/aie2elf.rs",
        "\"beats\" => Value::with(v + 1, Radix::Dec, \" words\"),",
        "the field holds the number of words less one",
    ),
    (
        "npu/aie2elf.rs",
        "u64::from(last - first + 1),",
        "the number of bits from the first to the last",
    ),
    (
        "npu/op.rs",
        "let (s2, l2) = *at.get(i + 1)?;",
        "the index of the second word of a 64-bit pair",
    ),
    (
        "npu/op.rs",
        "lo | u64::from(*words.get(i + 1)?) << 32",
        "the index of the second word of a 64-bit pair",
    ),
    (
        "ptx.rs",
        "name.push_str(itoa::Buffer::new().format(i + 1));",
        "a line number counted from 1",
    ),
    (
        "spirv/mod.rs",
        "*slot = (k + 1) as u8;",
        "operand k is word k + 1 of an instruction, after its opcode word",
    ),
    (
        "xml.rs",
        "element(b, id, base, s, c, depth + 1);",
        "a nesting depth",
    ),
    (
        "xml.rs",
        "if i + 1 == row as usize {",
        "a row number counted from 1",
    ),
    (
        "yaml.rs",
        "let key = value(evs, depth + 1)?;",
        "a nesting depth",
    ),
    (
        "yaml.rs",
        "let v = value(evs, depth + 1).unwrap_or(Y::Scalar {",
        "a nesting depth",
    ),
    (
        "yaml.rs",
        "let v = value(evs, depth + 1)?;",
        "a nesting depth",
    ),
    (
        "zebin.rs",
        "emit(b, g, k, ks, ev, depth + 1, found);",
        "a nesting depth",
    ),
    (
        "zebin.rs",
        "let n = emit(b, g, label, is, it, depth + 1, &mut Vec::new());",
        "a nesting depth",
    ),
];

fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `line` holds `name + literal` as `grep -E
/// "\b[a-z_]+ \+ (0x[0-9a-f]+|[0-9]+)\b"` finds it: a run of lower-case
/// letters and `_` that starts a word, ` + `, a decimal or hex literal
/// that ends one. Returns how many times.
fn sites(line: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while let Some(k) = line[i..].windows(3).position(|w| w == b" + ") {
        let at = i + k;
        i = at + 1;
        // Before: [a-z_]+ from a word boundary.
        let mut s = at;
        while s > 0 && (line[s - 1].is_ascii_lowercase() || line[s - 1] == b'_') {
            s -= 1;
        }
        if s == at || (s > 0 && word(line[s - 1])) {
            continue;
        }
        // After: a literal to a word boundary.
        let rest = &line[at + 3..];
        let lit = if rest.starts_with(b"0x") {
            let h = rest[2..]
                .iter()
                .take_while(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
                .count();
            (h > 0).then_some(2 + h)
        } else {
            let d = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            (d > 0).then_some(d)
        };
        if lit.is_some_and(|len| rest.get(len).is_none_or(|&c| !word(c))) {
            n += 1;
        }
    }
    n
}

/// Every site in `src/formats` outside tests: (file, trimmed line) to how
/// many times it is there.
fn found() -> BTreeMap<(String, String), usize> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats");
    let mut files = Vec::new();
    rs_files(&root, &mut files);
    let mut out = BTreeMap::new();
    for p in files {
        let text = std::fs::read_to_string(&p).expect("readable");
        let code = without_tests(&String::from_utf8_lossy(&blank(&text)));
        let rel = p.strip_prefix(&root).expect("under src/formats");
        // Lines as written (strings and comments kept), read where the
        // blanked code shows a site.
        let shown: Vec<&str> = text.lines().collect();
        for (k, line) in code.lines().enumerate() {
            let n = sites(line.as_bytes());
            if n > 0 {
                let key = (
                    rel.to_string_lossy().into_owned(),
                    shown.get(k).map_or("", |l| l.trim()).to_string(),
                );
                *out.entry(key).or_insert(0) += n;
            }
        }
    }
    out
}

#[test]
fn the_site_reader_matches_grep() {
    assert_eq!(sites(b"let p = at + 1;"), 1);
    assert_eq!(sites(b"base + 0x10, off + 4"), 2);
    assert_eq!(sites(b"p2 + 4"), 0);
    assert_eq!(sites(b"At + 4"), 0);
    assert_eq!(sites(b"x + y"), 0);
    assert_eq!(sites(b"a + 4u64"), 0);
    assert_eq!(sites(b"self.at + 8"), 1);
}

#[test]
fn offsets_by_hand_are_few_and_each_has_a_reason() {
    let mut listed: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (file, line, why) in OFFSETS.iter().chain(NOT_OFFSETS) {
        assert!(!why.is_empty(), "{file}: {line}: no reason");
        *listed
            .entry((file.to_string(), line.to_string()))
            .or_insert(0) += 1;
    }
    let found = found();
    let mut msg = String::new();
    for (k, n) in &found {
        let have = listed.get(k).copied().unwrap_or(0);
        if have < *n {
            msg.push_str(&format!("\nnot listed ({}): {}: {}", n - have, k.0, k.1));
        }
    }
    for (k, n) in &listed {
        let there = found.get(k).copied().unwrap_or(0);
        if there < *n {
            msg.push_str(&format!("\nlisted, gone ({}): {}: {}", n - there, k.0, k.1));
        }
    }
    assert!(msg.is_empty(), "sites of name + literal:{msg}");
    assert!(
        OFFSETS.len() <= MAX_OFFSETS,
        "{} byte offsets by hand, at most {MAX_OFFSETS}",
        OFFSETS.len()
    );
}
