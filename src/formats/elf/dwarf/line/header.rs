//! A line program unit's header: the fixed fields, the standard opcode
//! lengths, and the directory and file tables (DWARF 2 to 4's strings,
//! DWARF 5's entry formats and forms), read into a [`Header`] with the
//! nodes it is shown as.

use compact_str::CompactString;

use crate::model::{Radix, Value};

use super::read::{
    initial_length, leaf, Ctx, Cur, Item, Strings, MAX_ENTRIES, MAX_FORMATS, MAX_STRING,
};

/// One directory or file entry: its path and directory index.
#[derive(Clone, Debug, Default)]
pub(super) struct Entry {
    pub(super) path: CompactString,
    pub(super) dir: u64,
}

/// A unit's header as the program reads it, with the nodes it is shown as.
pub(super) struct Header {
    /// Where the unit ends in the section.
    pub(super) end: u64,
    pub(super) version: u16,
    pub(super) dwarf64: bool,
    pub(super) address_size: u8,
    pub(super) min_inst: u8,
    pub(super) max_ops: u8,
    pub(super) default_is_stmt: bool,
    pub(super) line_base: i8,
    pub(super) line_range: u8,
    pub(super) opcode_base: u8,
    /// The operand counts of the standard opcodes 1 to `opcode_base - 1`.
    pub(super) lengths: Vec<u8>,
    pub(super) files: Vec<Entry>,
    /// Where the program starts in the section.
    pub(super) program: u64,
    pub(super) items: Vec<Item>,
    /// What did not read, at its offset in the section.
    pub(super) problem: Option<(u64, u64, String)>,
}

impl Header {
    /// The name of file register value `f`: DWARF 5 counts files from 0,
    /// earlier versions from 1.
    pub(super) fn file(&self, f: u64) -> Option<&Entry> {
        let k = if self.version >= 5 {
            f
        } else {
            f.checked_sub(1)?
        };
        self.files.get(usize::try_from(k).ok()?)
    }
}

/// A header field's shape: what [`read_header`] reads for it.
#[derive(Clone, Copy)]
pub(super) enum Shape {
    U8,
    I8,
    U16,
    /// 4 bytes, or 8 in 64-bit DWARF.
    Word,
}

/// The fields between the unit length and the standard opcode lengths:
/// name, shape, the first version that has it. Read in this order.
pub(super) const FIELDS: [(&str, Shape, u16); 10] = [
    ("version", Shape::U16, 2),
    ("address_size", Shape::U8, 5),
    ("segment_selector_size", Shape::U8, 5),
    ("header_length", Shape::Word, 2),
    ("minimum_instruction_length", Shape::U8, 2),
    ("maximum_operations_per_instruction", Shape::U8, 4),
    ("default_is_stmt", Shape::U8, 2),
    ("line_base", Shape::I8, 2),
    ("line_range", Shape::U8, 2),
    ("opcode_base", Shape::U8, 2),
];

/// Where a string's bytes are in the byte space: offset and length.
pub(super) type Place = Option<(u64, u64)>;

/// The string at `off` of `sec` (`d` the byte space, `file` the file's
/// bytes), with where its bytes are when they are in that space.
pub(super) fn string_in(
    d: &[u8],
    file: &[u8],
    sec: &Strings,
    off: u64,
) -> Option<(Vec<u8>, Place)> {
    let (d, x, n) = match sec {
        Strings::None => return None,
        Strings::At(x, n) => (d, *x, *n),
        Strings::File(x, n) => (file, *x, *n),
        Strings::Own(b) => (&b[..], 0, b.len() as u64),
    };
    if off >= n {
        return None;
    }
    let (s, _) = crate::model::read::cstr_at(d, x + off, x + n.min(off + MAX_STRING))?;
    let at = matches!(sec, Strings::At(..)).then_some((x + off, s.len() as u64 + 1));
    Some((s.to_vec(), at))
}

/// Reads the header of the unit at `start` (an offset in the section) from
/// `d`, the whole byte space (`file` the file's bytes, which strings may
/// be in). `None` when not even its length reads.
pub(super) fn read_header(d: &[u8], file: &[u8], ctx: &Ctx, start: u64) -> Option<Header> {
    let base = ctx.at;
    let sec_end = base + ctx.len;
    let mut c = Cur {
        d,
        pos: base + start,
        end: sec_end,
        e: ctx.e,
    };
    let mut items = Vec::new();
    let (len, dwarf64) = initial_length(&mut c, &mut items, "unit_length")?;
    let end = c.pos.saturating_add(len).min(sec_end);
    c.end = end;
    let mut h = Header {
        end: end - base,
        version: 0,
        dwarf64,
        address_size: 0,
        min_inst: 1,
        max_ops: 1,
        default_is_stmt: true,
        line_base: 0,
        line_range: 0,
        opcode_base: 0,
        lengths: Vec::new(),
        files: Vec::new(),
        program: end - base,
        items: Vec::new(),
        problem: None,
    };
    if c.pos.saturating_add(len) > sec_end {
        h.problem = Some((
            start,
            end - base - start,
            format!(
                "line program: unit_length {len} runs past the section's end by {} bytes",
                c.pos.saturating_add(len) - sec_end
            ),
        ));
    }
    let at = Fail { base, end };
    let Some(header_end) = fixed_fields(&mut c, &mut h, &mut items, &at) else {
        h.items = items;
        return Some(h);
    };
    c.end = header_end;
    opcode_lengths(&mut c, &mut h, &mut items, &at);
    let tables = if h.version >= 5 {
        let on = (ctx, file);
        entries5(&mut c, on, &mut h, &mut items, true)
            .and_then(|_| entries5(&mut c, on, &mut h, &mut items, false))
    } else {
        entries4(&mut c, &mut h, &mut items)
    };
    if tables.is_none() {
        at.fail(
            &mut h,
            c.pos,
            "line program header: the directory or file table does not read",
        );
    }
    if c.pos < header_end && h.problem.is_none() {
        items.push(leaf(
            "unused",
            c.pos,
            header_end - c.pos,
            Value::Size(header_end - c.pos),
        ));
    }
    h.items = items;
    Some(h)
}

/// Where a header's first problem is put: from its offset to the unit's
/// end (`base` the section's offset in the byte space).
struct Fail {
    base: u64,
    end: u64,
}

impl Fail {
    /// Keeps `what` at `at` (in the byte space) as the header's problem,
    /// unless it has one already.
    fn fail(&self, h: &mut Header, at: u64, what: &str) {
        if h.problem.is_none() {
            h.problem = Some((
                at - self.base,
                self.end.saturating_sub(at).max(1),
                what.to_string(),
            ));
        }
    }
}

/// Reads [`FIELDS`] into `h` and `items`; returns where the header ends
/// (as `header_length` says, within the unit), or `None` when a field
/// does not read or the version is not one of 2 to 5.
fn fixed_fields(c: &mut Cur<'_>, h: &mut Header, items: &mut Vec<Item>, f: &Fail) -> Option<u64> {
    let end = f.end;
    let mut header_end = end;
    for (name, shape, since) in FIELDS {
        if h.version != 0 && h.version < since {
            continue;
        }
        let at = c.pos;
        let (size, v) = match shape {
            Shape::U8 | Shape::I8 => (1, c.uint(1)),
            Shape::U16 => (2, c.uint(2)),
            Shape::Word => {
                let w = if h.dwarf64 { 8 } else { 4 };
                (w, c.uint(w))
            }
        };
        let Some(v) = v else {
            f.fail(h, at, &format!("line program header: {name} does not fit"));
            return None;
        };
        let value = match (name, shape) {
            (_, Shape::I8) => Value::int(v as u8 as i8 as i64),
            ("header_length", _) => Value::uint(v),
            ("version", _) => Value::dec(v),
            _ => Value::uint(v),
        };
        items.push(leaf(name, at, size, value));
        match name {
            "version" => {
                h.version = v as u16;
                if !(2..=5).contains(&h.version) {
                    f.fail(
                        h,
                        at,
                        &format!("line program version {v}: only 2 to 5 are read"),
                    );
                    return None;
                }
            }
            "address_size" => h.address_size = v as u8,
            "header_length" => {
                header_end = c.pos.saturating_add(v);
                if header_end > end {
                    f.fail(
                        h,
                        at,
                        &format!("line program header_length {v} runs past its unit"),
                    );
                    header_end = end;
                }
                h.program = header_end - f.base;
            }
            "minimum_instruction_length" => h.min_inst = v as u8,
            "maximum_operations_per_instruction" => h.max_ops = v as u8,
            "default_is_stmt" => h.default_is_stmt = v != 0,
            "line_base" => h.line_base = v as u8 as i8,
            "line_range" => h.line_range = v as u8,
            "opcode_base" => h.opcode_base = v as u8,
            _ => {}
        }
    }
    Some(header_end)
}

/// The standard opcode lengths, one byte for each of the opcodes 1 to
/// `opcode_base - 1`.
fn opcode_lengths(c: &mut Cur<'_>, h: &mut Header, items: &mut Vec<Item>, f: &Fail) {
    let n = u64::from(h.opcode_base.saturating_sub(1));
    let at = c.pos;
    let mut kids = Vec::new();
    for k in 1..=n {
        let o = c.pos;
        let Some(v) = c.uint(1) else {
            f.fail(
                h,
                o,
                "line program header: the standard opcode lengths do not fit",
            );
            break;
        };
        h.lengths.push(v as u8);
        let name = gimli::DwLns(k as u8)
            .static_string()
            .map_or_else(|| format!("[{k}]"), str::to_string);
        kids.push(leaf(&name, o, 1, Value::uint(v)));
    }
    items.push(Item::Group {
        name: "standard_opcode_lengths".into(),
        off: at,
        size: c.pos - at,
        value: Some(Value::with(n, Radix::Dec, " opcodes")),
        kids,
    });
}

/// DWARF 2 to 4's tables: directories as strings, then files as a string
/// and three numbers, each table ending with an empty string.
pub(super) fn entries4(c: &mut Cur<'_>, h: &mut Header, items: &mut Vec<Item>) -> Option<()> {
    table4(
        c,
        items,
        "include_directories",
        "directories",
        |_, o, at, s| {
            Some(leaf(
                &format!("[{o}]"),
                at,
                s.len() as u64 + 1,
                Value::str_bytes(s),
            ))
        },
    )?;
    let mut files = Vec::new();
    table4(c, items, "file_names", "files", |c, k, o, s| {
        let mut parts = vec![leaf("name", o, c.pos - o, Value::str_bytes(s))];
        let mut e = Entry {
            path: crate::model::text::from_bytes(s).into(),
            dir: 0,
        };
        for name in ["directory_index", "modification_time", "length"] {
            let p = c.pos;
            let v = c.uleb()?;
            if name == "directory_index" {
                e.dir = v;
            }
            parts.push(leaf(name, p, c.pos - p, Value::uint(v)));
        }
        files.push(e);
        Some(Item::Group {
            name: format!("[{k}]").into(),
            off: o,
            size: c.pos - o,
            value: Some(Value::str_bytes(s)),
            kids: parts,
        })
    })?;
    h.files = files;
    Some(())
}

/// One of DWARF 2 to 4's tables, `name`, of `what`: entries from 1, each
/// starting with a string that `entry` reads the rest after (given the
/// cursor after the string, the index, where the entry starts and the
/// string), to an empty string.
pub(super) fn table4<'d>(
    c: &mut Cur<'d>,
    items: &mut Vec<Item>,
    name: &str,
    what: &str,
    mut entry: impl FnMut(&mut Cur<'d>, u64, u64, &'d [u8]) -> Option<Item>,
) -> Option<()> {
    let at = c.pos;
    let mut kids = Vec::new();
    let mut k = 1u64;
    loop {
        let o = c.pos;
        let s = c.cstr()?;
        if s.is_empty() {
            kids.push(leaf("end", o, 1, Value::text(format!("end of the {what}"))));
            break;
        }
        kids.push(entry(c, k, o, s)?);
        k += 1;
        if k > MAX_ENTRIES {
            return None;
        }
    }
    items.push(Item::Group {
        name: name.into(),
        off: at,
        size: c.pos - at,
        value: Some(count(k - 1, what)),
        kids,
    });
    Some(())
}

/// `n` directories or files: `1 file`, `2 files`.
pub(super) fn count(n: u64, many: &str) -> Value {
    let word = match (n, many) {
        (1, "directories") => "directory",
        (1, "files") => "file",
        _ => many,
    };
    Value::with(n, Radix::Dec, format!(" {word}"))
}

/// A content type's name: `DW_LNCT_path`.
pub(super) fn lnct_name(t: u64) -> String {
    match u16::try_from(t)
        .ok()
        .and_then(|v| gimli::DwLnct(v).static_string())
    {
        Some(s) => s.to_string(),
        None => format!("DW_LNCT_0x{t:x}"),
    }
}

/// A form's name: `DW_FORM_line_strp`.
pub(super) fn form_name(f: u64) -> String {
    match u16::try_from(f)
        .ok()
        .and_then(|v| gimli::DwForm(v).static_string())
    {
        Some(s) => s.to_string(),
        None => format!("DW_FORM_0x{f:x}"),
    }
}

/// DWARF 5's directory (`dirs`) or file table: its entry formats, then
/// its entries, each field read as its form says.
pub(super) fn entries5(
    c: &mut Cur<'_>,
    on: (&Ctx, &[u8]),
    h: &mut Header,
    items: &mut Vec<Item>,
    dirs: bool,
) -> Option<()> {
    let (what, one) = if dirs {
        ("directory", "directories")
    } else {
        ("file_name", "file_names")
    };
    let o = c.pos;
    let nf = c.uint(1)?;
    items.push(leaf(
        &format!("{what}_entry_format_count"),
        o,
        1,
        Value::uint(nf),
    ));
    if nf > MAX_FORMATS {
        return None;
    }
    let at = c.pos;
    let mut formats = Vec::new();
    let mut kids = Vec::new();
    for k in 0..nf {
        let o = c.pos;
        let t = c.uleb()?;
        let tp = c.pos;
        let f = c.uleb()?;
        formats.push((t, f));
        kids.push(Item::Group {
            name: format!("[{k}]").into(),
            off: o,
            size: c.pos - o,
            value: Some(Value::text(format!("{}, {}", lnct_name(t), form_name(f)))),
            kids: vec![
                leaf(
                    "content_type",
                    o,
                    tp - o,
                    Value::named(t, Some(&lnct_name(t))),
                ),
                leaf("form", tp, c.pos - tp, Value::named(f, Some(&form_name(f)))),
            ],
        });
    }
    items.push(Item::Group {
        name: format!("{what}_entry_format").into(),
        off: at,
        size: c.pos - at,
        value: None,
        kids,
    });
    let o = c.pos;
    let n = c.uleb()?;
    items.push(leaf(
        &format!("{}_count", if dirs { "directories" } else { "file_names" }),
        o,
        c.pos - o,
        Value::uint(n),
    ));
    if n > MAX_ENTRIES {
        return None;
    }
    let at = c.pos;
    let mut kids = Vec::new();
    for k in 0..n {
        let o = c.pos;
        let mut parts = Vec::new();
        let mut e = Entry::default();
        for &(t, f) in &formats {
            let p = c.pos;
            let (value, link, text) = form(c, on, h.dwarf64, f)?;
            if t == u64::from(gimli::DW_LNCT_path.0) {
                if let Some(s) = &text {
                    e.path = s.as_str().into();
                }
            }
            if t == u64::from(gimli::DW_LNCT_directory_index.0) {
                if let Value::U { v, .. } = &value {
                    e.dir = *v;
                }
            }
            parts.push(Item::Leaf {
                name: lnct_name(t).trim_start_matches("DW_LNCT_").into(),
                off: p,
                size: c.pos - p,
                value,
                link,
            });
        }
        kids.push(Item::Group {
            name: format!("[{k}]").into(),
            off: o,
            size: c.pos - o,
            value: Some(Value::str(&e.path)),
            kids: parts,
        });
        if !dirs {
            h.files.push(e);
        }
    }
    items.push(Item::Group {
        name: one.into(),
        off: at,
        size: c.pos - at,
        value: Some(count(n, if dirs { "directories" } else { "files" })),
        kids,
    });
    Some(())
}

/// A field's value, where it points, and the string it names.
pub(super) type Read = (Value, Place, Option<String>);

/// One field of a DWARF 5 entry, read as form `f` says (its strings with
/// `ctx`, or in `file`, the file's bytes).
pub(super) fn form(
    c: &mut Cur<'_>,
    (ctx, file): (&Ctx, &[u8]),
    dwarf64: bool,
    f: u64,
) -> Option<Read> {
    use gimli::constants as k;
    let word = if dwarf64 { 8 } else { 4 };
    let f16 = u16::try_from(f).ok()?;
    let fv = gimli::DwForm(f16);
    let num = |v: u64| (Value::uint(v), None, None);
    Some(match fv {
        k::DW_FORM_string => {
            let s = c.cstr()?;
            let t = crate::model::text::from_bytes(s);
            (Value::str_bytes(s), None, Some(t))
        }
        k::DW_FORM_line_strp | k::DW_FORM_strp => {
            let at = c.pos;
            let raw = c.uint(word)?;
            let off = ctx.reloc(at - ctx.at).map_or(raw, |r| r.0);
            let sec = if fv == k::DW_FORM_line_strp {
                &ctx.line_str
            } else {
                &ctx.str
            };
            match string_in(c.d, file, sec, off) {
                Some((s, link)) => (
                    Value::str_at(off, &s),
                    link,
                    Some(crate::model::text::from_bytes(&s)),
                ),
                None => (
                    Value::with(
                        off,
                        Radix::Hex,
                        if fv == k::DW_FORM_line_strp {
                            " (not in .debug_line_str)"
                        } else {
                            " (not in .debug_str)"
                        },
                    ),
                    None,
                    None,
                ),
            }
        }
        k::DW_FORM_strp_sup | k::DW_FORM_sec_offset => num(c.uint(word)?),
        k::DW_FORM_strx | k::DW_FORM_udata => num(c.uleb()?),
        k::DW_FORM_sdata => (Value::int(c.sleb()?), None, None),
        k::DW_FORM_strx1 | k::DW_FORM_data1 => num(c.uint(1)?),
        k::DW_FORM_strx2 | k::DW_FORM_data2 => num(c.uint(2)?),
        k::DW_FORM_strx3 => num(c.uint(3)?),
        k::DW_FORM_strx4 | k::DW_FORM_data4 => num(c.uint(4)?),
        k::DW_FORM_data8 => num(c.uint(8)?),
        k::DW_FORM_data16 => {
            let at = c.pos;
            c.skip(16)?;
            let b = crate::model::read::bytes_at(c.d, at, 16)?;
            let mut s = String::with_capacity(32);
            for x in b {
                s.push_str(&format!("{x:02x}"));
            }
            (Value::text(s), None, None)
        }
        k::DW_FORM_block => {
            let n = c.uleb()?;
            c.skip(n)?;
            (Value::with(n, Radix::Dec, " byte block"), None, None)
        }
        k::DW_FORM_block1 => {
            let n = c.uint(1)?;
            c.skip(n)?;
            (Value::with(n, Radix::Dec, " byte block"), None, None)
        }
        k::DW_FORM_block2 => {
            let n = c.uint(2)?;
            c.skip(n)?;
            (Value::with(n, Radix::Dec, " byte block"), None, None)
        }
        k::DW_FORM_block4 => {
            let n = c.uint(4)?;
            c.skip(n)?;
            (Value::with(n, Radix::Dec, " byte block"), None, None)
        }
        _ => return None,
    })
}
