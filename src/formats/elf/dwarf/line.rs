//! DWARF line programs (`.debug_line`): each unit's header field by field
//! (versions 2 to 5: the standard opcode lengths, the directory and file
//! tables, DWARF 5's entry formats and their forms, strings in
//! `.debug_line_str` and `.debug_str` linked to their bytes), then each
//! opcode of its program at its bytes, standard, extended and special,
//! with its operands; an opcode that appends a row to the line table shows
//! the row in its value (`0x0000000000401126 x.c:12:7 is_stmt`) and links
//! to the code at its address. A unit's opcodes are read when the unit is
//! opened, in groups of [`GROUP`].
//!
//! The same reader gives the rows of every unit as [`Lines`], which
//! instructions look their source line up in. In an object file the
//! operands of `DW_LNE_set_address` and the header's string offsets are
//! what the relocations put there, and each sequence belongs to the
//! section its address's relocation names.
//!
//! This file knows the bytes, the byte space and the relocations it is
//! given ([`Ctx`]), not the ELF around them.

use std::fmt::Write as _;
use std::sync::Arc;

use compact_str::CompactString;
use gimli::{EndianSlice, LittleEndian};

use crate::model::{Builder, Endian, NodeId, Radix, Seq, SourceLine, Step, Value, GROUP};

/// Units listed at most.
const MAX_UNITS: u64 = 1 << 20;
/// Directory or file entries read at most in one table.
const MAX_ENTRIES: u64 = 1 << 16;
/// Entry formats read at most in one table.
const MAX_FORMATS: u64 = 64;
/// Opcodes of one unit read at most.
const MAX_OPS: u64 = 1 << 26;
/// Bytes read at most for a string shown.
const MAX_STRING: u64 = 4096;

/// Where code is for an address: its section in a relocatable file (the
/// one the address's relocation names), and the address; the offset of
/// its byte in the byte space.
pub(crate) type CodeAt = Arc<dyn Fn(Option<u32>, u64) -> Option<u64> + Send + Sync>;

/// What reading `.debug_line` needs besides its bytes.
pub(crate) struct Ctx {
    pub e: Endian,
    /// `.debug_line` in the byte space: offset and length.
    pub at: u64,
    pub len: u64,
    /// `.debug_line_str` and `.debug_str`.
    pub line_str: Strings,
    pub str: Strings,
    /// In an object file, the relocations of `.debug_line`: offset in the
    /// section, the value the linker would put there, and the section of
    /// the symbol; sorted by offset.
    pub relocs: Vec<(u64, u64, u32)>,
    /// The bytes of the code at an address.
    pub code_at: CodeAt,
}

impl Ctx {
    fn reloc(&self, off: u64) -> Option<(u64, u32)> {
        let k = self.relocs.binary_search_by_key(&off, |r| r.0).ok()?;
        self.relocs.get(k).map(|r| (r.1, r.2))
    }
}

// ---- reading ----

/// A bounded cursor over the section's bytes: offsets are the section's.
pub(super) struct Cur<'d> {
    pub d: &'d [u8],
    pub pos: u64,
    pub end: u64,
    pub e: Endian,
}

impl<'d> Cur<'d> {
    pub(super) fn rest(&self) -> &'d [u8] {
        let (Ok(a), Ok(z)) = (usize::try_from(self.pos), usize::try_from(self.end)) else {
            return &[];
        };
        self.d.get(a..z).unwrap_or_default()
    }
    pub(super) fn uint(&mut self, n: u64) -> Option<u64> {
        if self.end.saturating_sub(self.pos) < n {
            return None;
        }
        let v = crate::model::read::uint_at(self.d, self.pos, n, self.e)?;
        self.pos += n;
        Some(v)
    }
    pub(super) fn leb(&mut self, signed: bool) -> Option<u64> {
        let rest = self.rest();
        let mut r = EndianSlice::new(rest, LittleEndian);
        let v = if signed {
            gimli::leb128::read::signed(&mut r).ok()? as u64
        } else {
            gimli::leb128::read::unsigned(&mut r).ok()?
        };
        self.pos += (rest.len() - r.len()) as u64;
        Some(v)
    }
    pub(super) fn uleb(&mut self) -> Option<u64> {
        self.leb(false)
    }
    pub(super) fn sleb(&mut self) -> Option<i64> {
        self.leb(true).map(|v| v as i64)
    }
    /// A NUL-terminated string (the NUL read too).
    pub(super) fn cstr(&mut self) -> Option<&'d [u8]> {
        let rest = self.rest();
        let n = rest.iter().position(|&c| c == 0)?;
        self.pos += n as u64 + 1;
        rest.get(..n)
    }
    pub(super) fn skip(&mut self, n: u64) -> Option<()> {
        if self.end.saturating_sub(self.pos) < n {
            return None;
        }
        self.pos += n;
        Some(())
    }
}

/// A node the header is shown as, made when the header is read.
pub(super) enum Item {
    Leaf {
        name: CompactString,
        off: u64,
        size: u64,
        value: Value,
        link: Option<(u64, u64)>,
    },
    Group {
        name: CompactString,
        off: u64,
        size: u64,
        value: Option<Value>,
        kids: Vec<Item>,
    },
}

/// One directory or file entry: its path and directory index.
#[derive(Clone, Debug, Default)]
struct Entry {
    path: CompactString,
    dir: u64,
}

/// A unit's header as the program reads it, with the nodes it is shown as.
struct Header {
    /// Where the unit ends in the section.
    end: u64,
    version: u16,
    dwarf64: bool,
    address_size: u8,
    min_inst: u8,
    max_ops: u8,
    default_is_stmt: bool,
    line_base: i8,
    line_range: u8,
    opcode_base: u8,
    /// The operand counts of the standard opcodes 1 to `opcode_base - 1`.
    lengths: Vec<u8>,
    files: Vec<Entry>,
    /// Where the program starts in the section.
    program: u64,
    items: Vec<Item>,
    /// What did not read, at its offset in the section.
    problem: Option<(u64, u64, String)>,
}

impl Header {
    /// The name of file register value `f`: DWARF 5 counts files from 0,
    /// earlier versions from 1.
    fn file(&self, f: u64) -> Option<&Entry> {
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
enum Shape {
    U8,
    I8,
    U16,
    /// 4 bytes, or 8 in 64-bit DWARF.
    Word,
}

/// The fields between the unit length and the standard opcode lengths:
/// name, shape, the first version that has it. Read in this order.
const FIELDS: [(&str, Shape, u16); 10] = [
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

/// An operand of a standard opcode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operand {
    Uleb,
    Sleb,
    /// `DW_LNS_fixed_advance_pc`'s 2-byte operand.
    Half,
}

/// The standard opcodes 1 to 12 and their operands (DWARF 5, 6.2.5.2).
const STANDARD: [&[Operand]; 12] = [
    &[],              // DW_LNS_copy
    &[Operand::Uleb], // DW_LNS_advance_pc
    &[Operand::Sleb], // DW_LNS_advance_line
    &[Operand::Uleb], // DW_LNS_set_file
    &[Operand::Uleb], // DW_LNS_set_column
    &[],              // DW_LNS_negate_stmt
    &[],              // DW_LNS_set_basic_block
    &[],              // DW_LNS_const_add_pc
    &[Operand::Half], // DW_LNS_fixed_advance_pc
    &[],              // DW_LNS_set_prologue_end
    &[],              // DW_LNS_set_epilogue_begin
    &[Operand::Uleb], // DW_LNS_set_isa
];

pub(super) fn leaf(name: &str, off: u64, size: u64, value: Value) -> Item {
    Item::Leaf {
        name: name.into(),
        off,
        size,
        value,
        link: None,
    }
}

/// A string section the header's forms point into.
#[derive(Clone, Default)]
pub(crate) enum Strings {
    #[default]
    None,
    /// In the byte space being built: offset and length.
    At(u64, u64),
    /// Elsewhere (the line program is in the inflated bytes of a
    /// compressed section): a copy of its bytes, inflated if need be.
    Own(Arc<[u8]>),
}

/// Where a string's bytes are in the byte space: offset and length.
type Place = Option<(u64, u64)>;

/// The string at `off` of `sec` (`d` the byte space), with where its
/// bytes are when they are in that space.
fn string_in(d: &[u8], sec: &Strings, off: u64) -> Option<(Vec<u8>, Place)> {
    let (d, x, n) = match sec {
        Strings::None => return None,
        Strings::At(x, n) => (d, *x, *n),
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
/// `d`, the whole byte space. `None` when not even its length reads.
fn read_header(d: &[u8], ctx: &Ctx, start: u64) -> Option<Header> {
    let base = ctx.at;
    let sec_end = base + ctx.len;
    let mut c = Cur {
        d,
        pos: base + start,
        end: sec_end,
        e: ctx.e,
    };
    let mut items = Vec::new();
    let first = c.uint(4)?;
    let dwarf64 = first == 0xffff_ffff;
    let len = if dwarf64 {
        items.push(leaf("dwarf64", c.pos - 4, 4, Value::hex(first)));
        let l = c.uint(8)?;
        items.push(leaf("unit_length", c.pos - 8, 8, Value::uint(l)));
        l
    } else {
        items.push(leaf("unit_length", c.pos - 4, 4, Value::uint(first)));
        first
    };
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
    let mut header_end = end;
    let fail = |h: &mut Header, at: u64, what: &str| {
        if h.problem.is_none() {
            h.problem = Some((at - base, end.saturating_sub(at).max(1), what.to_string()));
        }
    };
    for (name, shape, since) in FIELDS {
        if h.version != 0 && h.version < since {
            continue;
        }
        let at = c.pos;
        let (size, v) = match shape {
            Shape::U8 | Shape::I8 => (1, c.uint(1)),
            Shape::U16 => (2, c.uint(2)),
            Shape::Word => {
                let w = if dwarf64 { 8 } else { 4 };
                (w, c.uint(w))
            }
        };
        let Some(v) = v else {
            fail(
                &mut h,
                at,
                &format!("line program header: {name} does not fit"),
            );
            h.items = items;
            return Some(h);
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
                    fail(
                        &mut h,
                        at,
                        &format!("line program version {v}: only 2 to 5 are read"),
                    );
                    h.items = items;
                    return Some(h);
                }
            }
            "address_size" => h.address_size = v as u8,
            "header_length" => {
                header_end = c.pos.saturating_add(v);
                if header_end > end {
                    fail(
                        &mut h,
                        at,
                        &format!("line program header_length {v} runs past its unit"),
                    );
                    header_end = end;
                }
                h.program = header_end - base;
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
    c.end = header_end;
    // The standard opcode lengths.
    let n = u64::from(h.opcode_base.saturating_sub(1));
    let at = c.pos;
    let mut kids = Vec::new();
    for k in 1..=n {
        let o = c.pos;
        let Some(v) = c.uint(1) else {
            fail(
                &mut h,
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
    if h.version >= 5 {
        let ok = entries5(&mut c, ctx, &mut h, &mut items, true)
            .and_then(|_| entries5(&mut c, ctx, &mut h, &mut items, false));
        if ok.is_none() {
            fail(
                &mut h,
                c.pos,
                "line program header: the directory or file table does not read",
            );
        }
    } else if entries4(&mut c, &mut h, &mut items).is_none() {
        fail(
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

/// DWARF 2 to 4's tables: directories as strings, then files as a string
/// and three numbers, each table ending with an empty string.
fn entries4(c: &mut Cur<'_>, h: &mut Header, items: &mut Vec<Item>) -> Option<()> {
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
fn table4<'d>(
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
fn count(n: u64, many: &str) -> Value {
    let word = match (n, many) {
        (1, "directories") => "directory",
        (1, "files") => "file",
        _ => many,
    };
    Value::with(n, Radix::Dec, format!(" {word}"))
}

/// A content type's name: `DW_LNCT_path`.
fn lnct_name(t: u64) -> String {
    match u16::try_from(t)
        .ok()
        .and_then(|v| gimli::DwLnct(v).static_string())
    {
        Some(s) => s.to_string(),
        None => format!("DW_LNCT_0x{t:x}"),
    }
}

/// A form's name: `DW_FORM_line_strp`.
fn form_name(f: u64) -> String {
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
fn entries5(
    c: &mut Cur<'_>,
    ctx: &Ctx,
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
            let (value, link, text) = form(c, ctx, h.dwarf64, f)?;
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
type Read = (Value, Place, Option<String>);

/// One field of a DWARF 5 entry, read as form `f` says.
fn form(c: &mut Cur<'_>, ctx: &Ctx, dwarf64: bool, f: u64) -> Option<Read> {
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
            match string_in(c.d, sec, off) {
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

// ---- the state machine ----

/// The line table's registers (DWARF 5, 6.2.2), with the section of the
/// address in an object file.
#[derive(Clone, Copy, Debug)]
struct State {
    addr: u64,
    op_index: u64,
    file: u64,
    /// 32 bits, wrapping, as llvm-dwarfdump keeps it.
    line: u32,
    column: u64,
    is_stmt: bool,
    basic_block: bool,
    end_sequence: bool,
    prologue_end: bool,
    epilogue_begin: bool,
    isa: u64,
    discriminator: u64,
    sec: Option<u32>,
}

impl State {
    fn new(h: &Header) -> State {
        State {
            addr: 0,
            op_index: 0,
            file: 1,
            line: 1,
            column: 0,
            is_stmt: h.default_is_stmt,
            basic_block: false,
            end_sequence: false,
            prologue_end: false,
            epilogue_begin: false,
            isa: 0,
            discriminator: 0,
            sec: None,
        }
    }

    /// Advances by `adv` operations.
    fn advance(&mut self, h: &Header, adv: u64) {
        let min = u64::from(h.min_inst);
        if h.max_ops <= 1 {
            self.addr = self.addr.wrapping_add(min.wrapping_mul(adv));
        } else {
            let max = u64::from(h.max_ops);
            let ops = self.op_index.wrapping_add(adv);
            self.addr = self.addr.wrapping_add(min.wrapping_mul(ops / max));
            self.op_index = ops % max;
        }
    }

    /// After a row is appended.
    fn appended(&mut self, h: &Header) {
        if self.end_sequence {
            *self = State::new(h);
        } else {
            self.discriminator = 0;
            self.basic_block = false;
            self.prologue_end = false;
            self.epilogue_begin = false;
        }
    }

    /// The row as shown, `0x0000000000401126 x.c:12:7 is_stmt`, into
    /// `s`.
    fn write(&self, h: &Header, s: &mut CompactString) {
        // Written by hand: rows are the most numerous nodes of a debug
        // build, and the formatter costs more than the rest of a row.
        let mut hex = *b"0x0000000000000000 ";
        for (i, c) in hex.iter_mut().skip(2).take(16).enumerate() {
            let nibble = (self.addr >> (60 - 4 * i)) & 0xf;
            *c = b"0123456789abcdef"
                .get(nibble as usize)
                .copied()
                .unwrap_or(b'0');
        }
        s.push_str(std::str::from_utf8(&hex).unwrap_or_default());
        match h.file(self.file) {
            Some(e) if !e.path.is_empty() => s.push_str(&e.path),
            _ => {
                let _ = write!(s, "[{}]", self.file);
            }
        }
        let mut n = itoa::Buffer::new();
        s.push(':');
        s.push_str(n.format(self.line));
        s.push(':');
        s.push_str(n.format(self.column));
        for (on, name) in [
            (self.is_stmt, " is_stmt"),
            (self.basic_block, " basic_block"),
            (self.end_sequence, " end_sequence"),
            (self.prologue_end, " prologue_end"),
            (self.epilogue_begin, " epilogue_begin"),
        ] {
            if on {
                s.push_str(name);
            }
        }
        for (v, name) in [
            (self.isa, "isa"),
            (self.discriminator, "discriminator"),
            (self.op_index, "op_index"),
        ] {
            if v != 0 {
                let _ = write!(s, " {name}={v}");
            }
        }
    }
}

/// What an opcode's operands say, as numbers.
#[derive(Clone, Debug)]
enum Shown {
    Nothing,
    Uint(u64),
    Hex(u64),
    Int(i64),
    /// `DW_LNS_set_file`: the file register.
    File(u64),
    /// `DW_LNS_negate_stmt`: `is_stmt` after it.
    Stmt(bool),
    /// `DW_LNS_advance_pc`: operations, bytes.
    AdvancePc(u64, u64),
    /// `DW_LNS_const_add_pc`: bytes.
    ConstAddPc(u64),
    /// `DW_LNS_fixed_advance_pc`: bytes.
    Fixed(u64),
    /// A special opcode: address and line advance.
    Special(u64, i64),
    /// Operands skipped: how many, and of what.
    Skipped(u64, &'static str),
    Str(CompactString),
}

/// One opcode as read: where it is, what it is and what it did.
struct Op {
    /// Where it starts and its size, in the section.
    off: u64,
    size: u64,
    name: CompactString,
    /// What its operands say, made into a value only when it is shown.
    shown: Shown,
    /// The state when it appended a row.
    row: Option<State>,
    /// What about it is wrong.
    problem: Option<String>,
}

/// Reads and runs the opcode at `off` (in the section). `None` past the
/// program's end or where not even its first byte reads.
fn step(d: &[u8], ctx: &Ctx, h: &Header, st: &mut State, off: u64) -> Option<Op> {
    use gimli::constants as k;
    let end = ctx.at + h.end;
    let mut c = Cur {
        d,
        pos: ctx.at + off,
        end,
        e: ctx.e,
    };
    let opcode = c.uint(1)? as u8;
    let mut op = Op {
        off,
        size: 1,
        name: CompactString::const_new(""),
        shown: Shown::Nothing,
        row: None,
        problem: None,
    };
    let mut row = false;
    let cut = |c: &Cur<'_>, op: &mut Op| {
        op.problem = Some(format!("{}: its operands run past the unit's end", op.name));
        op.size = c.end - (ctx.at + off);
    };
    if opcode >= h.opcode_base {
        let adjusted = opcode - h.opcode_base;
        op.name = "special".into();
        // A line_range of 0 advances neither (as llvm-dwarfdump reads it).
        let (adv, dl) = match (
            adjusted.checked_div(h.line_range),
            adjusted.checked_rem(h.line_range),
        ) {
            (Some(a), Some(r)) => (u64::from(a), i64::from(h.line_base) + i64::from(r)),
            _ => {
                op.problem = Some("special opcode with a line_range of 0: no advance".into());
                (0, 0)
            }
        };
        st.advance(h, adv);
        st.line = st.line.wrapping_add(dl as u32);
        op.shown = Shown::Special(adv * u64::from(h.min_inst), dl);
        row = true;
    } else if opcode == 0 {
        // Extended: ULEB length, then the sub-opcode and its operands.
        let Some(len) = c.uleb() else {
            op.name = "extended".into();
            cut(&c, &mut op);
            return Some(op);
        };
        let body = c.pos;
        let stop = body.saturating_add(len);
        if len == 0 || stop > end {
            op.name = "extended".into();
            op.problem = Some(format!("extended opcode of {len} bytes: not read"));
            op.size = stop.min(end) - (ctx.at + off);
            return Some(op);
        }
        c.end = stop;
        let sub = c.uint(1).unwrap_or(0) as u8;
        let dw = gimli::DwLne(sub);
        op.name = match dw.static_string() {
            Some(s) => s.into(),
            None => format!("DW_LNE_0x{sub:02x}").into(),
        };
        match dw {
            k::DW_LNE_end_sequence => {
                st.end_sequence = true;
                row = true;
            }
            k::DW_LNE_set_address => {
                let n = stop - c.pos;
                let at = c.pos;
                match c.uint(n).filter(|_| (1..=8).contains(&n)) {
                    Some(raw) => {
                        let (a, sec) = match ctx.reloc(at - ctx.at) {
                            Some((v, s)) => (v, Some(s)),
                            None => (raw, None),
                        };
                        st.addr = a;
                        st.op_index = 0;
                        st.sec = sec;
                        op.shown = Shown::Hex(a);
                    }
                    None => op.problem = Some(format!("an address of {n} bytes: not read")),
                }
            }
            k::DW_LNE_define_file => {
                let name = c.cstr().map(crate::model::text::from_bytes);
                let _ = (c.uleb(), c.uleb(), c.uleb());
                op.shown = name.map_or(Shown::Nothing, |n| Shown::Str(n.into()));
            }
            k::DW_LNE_set_discriminator => match c.uleb() {
                Some(v) => {
                    st.discriminator = v;
                    op.shown = Shown::Uint(v);
                }
                None => op.problem = Some("its operand does not read".into()),
            },
            _ => {
                op.shown = Shown::Skipped(len - 1, " bytes of operands, skipped");
            }
        }
        c.pos = stop;
    } else {
        let known = STANDARD.get(usize::from(opcode) - 1).copied();
        let declared = h.lengths.get(usize::from(opcode) - 1).copied().unwrap_or(0);
        op.name = match gimli::DwLns(opcode).static_string() {
            Some(s) => s.into(),
            None => format!("DW_LNS_0x{opcode:02x}").into(),
        };
        let fits = known.is_some_and(|o| o.len() == usize::from(declared));
        if !fits {
            // Unknown, or declared with other operands than DWARF gives
            // it: as many ULEBs as the header says, skipped.
            for _ in 0..declared {
                if c.uleb().is_none() {
                    cut(&c, &mut op);
                    return Some(op);
                }
            }
            op.shown = Shown::Skipped(
                u64::from(declared),
                " operands, skipped as the header declares",
            );
            if known.is_some() {
                op.problem = Some(format!(
                    "{}: the header declares {declared} operands; it has {}",
                    op.name,
                    known.map_or(0, |o| o.len())
                ));
            }
        } else {
            let operand = known.and_then(|o| o.first().copied());
            let v = match operand {
                Some(Operand::Uleb) => c.uleb(),
                Some(Operand::Sleb) => c.sleb().map(|v| v as u64),
                Some(Operand::Half) => c.uint(2),
                None => Some(0),
            };
            let Some(v) = v else {
                cut(&c, &mut op);
                return Some(op);
            };
            let dl = gimli::DwLns(opcode);
            match dl {
                k::DW_LNS_copy => row = true,
                k::DW_LNS_advance_pc => {
                    st.advance(h, v);
                    op.shown = Shown::AdvancePc(v, v.wrapping_mul(u64::from(h.min_inst)));
                }
                k::DW_LNS_advance_line => {
                    st.line = st.line.wrapping_add(v as u32);
                    op.shown = Shown::Int(v as i64);
                }
                k::DW_LNS_set_file => {
                    st.file = v;
                    op.shown = Shown::File(v);
                }
                k::DW_LNS_set_column => {
                    st.column = v;
                    op.shown = Shown::Uint(v);
                }
                k::DW_LNS_negate_stmt => {
                    st.is_stmt = !st.is_stmt;
                    op.shown = Shown::Stmt(st.is_stmt);
                }
                k::DW_LNS_set_basic_block => st.basic_block = true,
                k::DW_LNS_const_add_pc => {
                    let adv = (255 - h.opcode_base)
                        .checked_div(h.line_range)
                        .map_or(0, u64::from);
                    st.advance(h, adv);
                    op.shown = Shown::ConstAddPc(adv * u64::from(h.min_inst));
                }
                k::DW_LNS_fixed_advance_pc => {
                    st.addr = st.addr.wrapping_add(v);
                    st.op_index = 0;
                    op.shown = Shown::Fixed(v);
                }
                k::DW_LNS_set_prologue_end => st.prologue_end = true,
                k::DW_LNS_set_epilogue_begin => st.epilogue_begin = true,
                k::DW_LNS_set_isa => {
                    st.isa = v;
                    op.shown = Shown::Uint(v);
                }
                _ => {}
            }
        }
    }
    op.size = c.pos - (ctx.at + off);
    if row {
        op.row = Some(*st);
        st.appended(h);
    }
    Some(op)
}

// ---- nodes ----

/// Makes `id`, `.debug_line` at `[at, at+len)`, list its units when
/// opened, read with what `ctx` makes then (so that nothing, not even the
/// relocations, is read before).
pub(crate) fn units(
    b: &mut Builder<'_>,
    id: NodeId,
    len: u64,
    ctx: impl Fn(&Builder<'_>) -> Arc<Ctx> + Send + Sync + 'static,
) -> bool {
    if len < 4 {
        return false;
    }
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let ctx = ctx(b);
            let (a, l, e) = (ctx.at, ctx.len, ctx.e);
            let next = move |b: &Builder<'_>, off: u64| unit_end(b, off, e, a + l);
            let c = ctx.clone();
            let step: Step = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
                let end = next(b, off)?;
                unit(b, p, &c, i, off - c.at);
                Some(end)
            });
            let seq = Seq::scan(a, a + l, MAX_UNITS, |off| next(b, off), step);
            b.seq_now(id, seq);
        }),
    );
    true
}

/// Where the unit or contribution whose initial length is at `off` ends
/// (its 32-bit length, or the 64-bit one after the escape), at most at
/// `limit`.
pub(super) fn unit_end(b: &Builder<'_>, off: u64, e: Endian, limit: u64) -> Option<u64> {
    end_in(b.data(), off, e, limit)
}

/// [`unit_end`] in the bytes `d`.
pub(super) fn end_in(d: &[u8], off: u64, e: Endian, limit: u64) -> Option<u64> {
    let read = |o: u64, n: u64| crate::model::read::uint_at(d, o, n, e);
    let len = read(off, 4)?;
    let end = if len == 0xffff_ffff {
        off.checked_add(12)?.checked_add(read(off + 4, 8)?)?
    } else {
        off.checked_add(4)?.checked_add(len)?
    };
    Some(end.min(limit))
}

/// One unit at `start` (in the section): its header's fields and its
/// program, read when opened.
fn unit(b: &mut Builder<'_>, p: NodeId, ctx: &Arc<Ctx>, i: u64, start: u64) {
    let Some(h) = read_header(b.data(), ctx, start) else {
        return;
    };
    let at = ctx.at + start;
    let node = b.group(p, format!("unit [{i}]"), at, h.end - start);
    let first = h
        .files
        .first()
        .map(|e| format!(", {}", e.path))
        .unwrap_or_default();
    b.set_value(
        node,
        Value::text(format!(
            "DWARF {}{first}, {} file{}",
            h.version,
            h.files.len(),
            if h.files.len() == 1 { "" } else { "s" }
        )),
    );
    let ctx = ctx.clone();
    b.lazy(
        node,
        Arc::new(move |b: &mut Builder<'_>, node| {
            let Some(h) = read_header(b.data(), &ctx, start) else {
                return;
            };
            let base = ctx.at;
            let hdr = b.group(node, "header", base + start, h.program - start);
            for item in &h.items {
                add(b, hdr, item);
            }
            if let Some((o, n, m)) = &h.problem {
                b.error(base + o, *n, m.clone());
                return;
            }
            if h.program < h.end {
                program(b, node, &ctx, Arc::new(h));
            }
        }),
    );
}

pub(super) fn add(b: &mut Builder<'_>, p: NodeId, item: &Item) {
    match item {
        Item::Leaf {
            name,
            off,
            size,
            value,
            link,
        } => {
            let id = b.leaf(p, name, *off, *size, value.clone());
            if let Some((o, n)) = link {
                b.link(id, *o, *n);
            }
        }
        Item::Group {
            name,
            off,
            size,
            value,
            kids,
        } => {
            let id = b.group(p, name, *off, *size);
            if let Some(v) = value {
                b.set_value(id, v.clone());
            }
            for k in kids {
                add(b, id, k);
            }
        }
    }
}

/// The states at every [`GROUP`]-th opcode of a program, and where each
/// such opcode is (in the section).
struct Marks {
    /// Which program's marks these are, among all built.
    id: u64,
    states: Vec<State>,
    offsets: Vec<u64>,
}

/// The [`Marks::id`] of the next marks made.
static NEXT_MARKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// Where the opcode this thread built last left the state: the
    /// program's [`Marks::id`], the next opcode's index and offset, and
    /// the state. A group is built in order on one thread, so each opcode
    /// runs once.
    static LAST: std::cell::Cell<Option<(u64, u64, u64, State)>> =
        const { std::cell::Cell::new(None) };
}

impl Marks {
    /// The state before the opcode at `off` (in the section), the `i`-th:
    /// where the one before left it, else from the group's first.
    fn state(&self, d: &[u8], ctx: &Ctx, h: &Header, i: u64, off: u64) -> Option<State> {
        if let Some((k, j, o, st)) = LAST.get() {
            if (k, j, o) == (self.id, i, off) {
                return Some(st);
            }
        }
        let g = usize::try_from(i / GROUP).ok()?;
        let mut st = *self.states.get(g)?;
        let mut at = *self.offsets.get(g)?;
        // Not built in order (never, as groups are): run from the mark.
        while at < off {
            at += step(d, ctx, h, &mut st, at)?.size.max(1);
        }
        Some(st)
    }
}

/// The unit's program under `node`: its opcodes, in groups.
fn program(b: &mut Builder<'_>, node: NodeId, ctx: &Arc<Ctx>, h: Arc<Header>) {
    let from = ctx.at + h.program;
    let to = ctx.at + h.end;
    let id = b.group(node, "program", from, to - from);
    let ctx = ctx.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let d = b.data();
            let mut st = State::new(&h);
            let mut off = h.program;
            let mut marks = Vec::new();
            let mut states = Vec::new();
            let mut offsets = Vec::new();
            let mut count = 0u64;
            let mut rows = 0u64;
            while off < h.end && count < MAX_OPS {
                if count.is_multiple_of(GROUP) {
                    marks.push(ctx.at + off);
                    states.push(st);
                    offsets.push(off);
                }
                let Some(op) = step(d, &ctx, &h, &mut st, off) else {
                    break;
                };
                rows += u64::from(op.row.is_some());
                count += 1;
                off += op.size.max(1);
            }
            if count == MAX_OPS && off < h.end {
                b.info(
                    ctx.at + off,
                    h.end - off,
                    format!("more than {MAX_OPS} opcodes; the rest are not listed"),
                );
            }
            b.set_value(
                id,
                Value::text(format!(
                    "{count} opcode{}, {rows} row{}",
                    if count == 1 { "" } else { "s" },
                    if rows == 1 { "" } else { "s" }
                )),
            );
            let m = Arc::new(Marks {
                id: NEXT_MARKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                states,
                offsets,
            });
            let (c, hh) = (ctx.clone(), h.clone());
            let seqstep: Step = Arc::new(move |b: &mut Builder<'_>, p, i, at| {
                let off = at - c.at;
                let mut st = m.state(b.data(), &c, &hh, i, off)?;
                let op = step(b.data(), &c, &hh, &mut st, off)?;
                let next = at + op.size.max(1);
                LAST.set(Some((m.id, i + 1, next - c.at, st)));
                opcode(b, p, &c, &hh, &op);
                Some(next)
            });
            b.seq_now(id, Seq::from_marks(marks, count, ctx.at + off, seqstep));
        }),
    );
}

/// An opcode's value: its operands, or the row it appends (and, for a
/// special opcode, what it advanced).
fn value(op: &Op, h: &Header) -> Value {
    if let Some(r) = &op.row {
        let mut s = CompactString::with_capacity(64);
        r.write(h, &mut s);
        if let Shown::Special(a, l) = op.shown {
            let mut n = itoa::Buffer::new();
            s.push_str(" (address += ");
            s.push_str(n.format(a));
            s.push_str(", line += ");
            s.push_str(n.format(l));
            s.push(')');
        }
        return Value::Text(s);
    }
    match &op.shown {
        Shown::Nothing | Shown::Special(..) => Value::text(""),
        Shown::Uint(v) => Value::uint(*v),
        Shown::Hex(v) => Value::hex(*v),
        Shown::Int(v) => Value::int(*v),
        Shown::File(v) => match h.file(*v).filter(|e| !e.path.is_empty()) {
            Some(e) => Value::with(*v, Radix::Dec, format!(" ({})", e.path)),
            None => Value::uint(*v),
        },
        Shown::Stmt(on) => Value::text(if *on { "is_stmt" } else { "not is_stmt" }),
        Shown::AdvancePc(v, n) => Value::with(*v, Radix::Dec, format!(" (address += {n})")),
        Shown::ConstAddPc(n) => Value::text(format!("address += {n}")),
        Shown::Fixed(v) => Value::with(*v, Radix::Hex, " (address += it)"),
        Shown::Skipped(n, what) => Value::with(*n, Radix::Dec, *what),
        Shown::Str(t) => Value::str(t),
    }
}

/// One opcode's node: named by its opcode, valued by its operands or the
/// row it appends, linked to the code at that row's address.
fn opcode(b: &mut Builder<'_>, p: NodeId, ctx: &Ctx, h: &Header, op: &Op) {
    let at = ctx.at + op.off;
    let value = value(op, h);
    let id = b.leaf(p, &op.name, at, op.size, value);
    if let Some(m) = &op.problem {
        b.warn(at, op.size, m.clone());
    }
    if let Some(r) = op.row.filter(|r| !r.end_sequence) {
        if let Some(o) = (ctx.code_at)(r.sec, r.addr) {
            b.link(id, o, 1);
        }
    }
}

// ---- the table instructions look up ----

/// One sequence of rows: its section (in an object file), its addresses
/// `[lo, hi)`, and its rows as (address, file, line, column), file as an
/// index into [`Lines::files`].
struct Sequence {
    sec: Option<u32>,
    lo: u64,
    hi: u64,
    rows: Vec<(u64, u32, u32, u32)>,
}

/// Every unit's rows, for looking up the source line of an address.
#[derive(Default)]
pub(crate) struct Lines {
    seqs: Vec<Sequence>,
    files: Vec<CompactString>,
    /// Which table it is, for as long as the program runs (0: empty).
    id: u64,
}

impl Lines {
    /// Reads every unit of `.debug_line`.
    pub(crate) fn read(d: &[u8], ctx: &Ctx) -> Lines {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut out = Lines {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            ..Lines::default()
        };
        let mut start = 0u64;
        let mut n = 0u64;
        while start < ctx.len && n < MAX_UNITS {
            let Some(h) = read_header(d, ctx, start) else {
                break;
            };
            n += 1;
            let next = h.end.max(start + 1);
            if h.problem.is_none() {
                out.unit(d, ctx, &h);
            }
            start = next;
        }
        out.seqs.sort_by_key(|s| (s.sec, s.lo));
        out
    }

    fn unit(&mut self, d: &[u8], ctx: &Ctx, h: &Header) {
        let base = self.files.len();
        let count = if h.version >= 5 { 0 } else { 1 };
        for e in &h.files {
            self.files.push(e.path.clone());
        }
        let file = |f: u64| -> u32 {
            f.checked_sub(count)
                .filter(|&k| k < h.files.len() as u64)
                .map_or(u32::MAX, |k| (base as u64 + k) as u32)
        };
        let mut st = State::new(h);
        let mut off = h.program;
        let mut rows = Vec::new();
        let mut ops = 0u64;
        while off < h.end && ops < MAX_OPS {
            let Some(op) = step(d, ctx, h, &mut st, off) else {
                break;
            };
            ops += 1;
            off += op.size.max(1);
            let Some(r) = op.row else {
                continue;
            };
            rows.push((r.addr, file(r.file), r.line, r.column as u32));
            if r.end_sequence {
                let lo = rows.first().map_or(0, |x| x.0);
                if lo < r.addr {
                    self.seqs.push(Sequence {
                        sec: r.sec,
                        lo,
                        hi: r.addr,
                        rows: std::mem::take(&mut rows),
                    });
                } else {
                    rows.clear();
                }
            }
        }
    }

    /// Which table it is: no two tables the program reads have the same.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Which row gives the source line of address `addr` (in section
    /// `sec` for an object file), as (sequence, row): instructions of one
    /// row share its line.
    pub(crate) fn row(&self, sec: Option<u32>, addr: u64) -> Option<(usize, usize)> {
        let k = self.seqs.partition_point(|s| (s.sec, s.lo) <= (sec, addr));
        let k = k.checked_sub(1)?;
        let s = self.seqs.get(k)?;
        if s.sec != sec || addr >= s.hi {
            return None;
        }
        let j = s.rows.partition_point(|r| r.0 <= addr);
        Some((k, j.checked_sub(1)?))
    }

    /// The source line of a row that [`Lines::row`] gave, where it has a
    /// line.
    pub(crate) fn source(&self, (k, j): (usize, usize)) -> Option<SourceLine> {
        let &(_, f, line, column) = self.seqs.get(k)?.rows.get(j)?;
        if line == 0 {
            return None;
        }
        Some(SourceLine {
            file: self.files.get(f as usize)?.clone(),
            line: line.into(),
            column: column.into(),
        })
    }
}
