//! The debugging information entries of one DWARF unit, as the tree they
//! form: each entry a node over its own bytes and those of its children
//! (up to the null entry that closes them), named by its tag, its value
//! the name it gives (`DW_AT_name`); inside it the abbreviation code, each
//! attribute at its bytes with its value as its form and name say, and the
//! child entries. References to other entries show the name of the entry
//! they point at and link to it; strings in `.debug_str` and
//! `.debug_line_str` link to their bytes.
//!
//! A unit is scanned once when its entries are opened (where each entry
//! starts, where its children end); each entry's attributes are read when
//! it is shown, so a unit of millions of entries opens at once.

use std::sync::Arc;

use gimli::{AttributeValue, DebugInfoOffset, Reader as _, SectionId, UnitOffset};

use super::debug::{Debug, Reader, Table};
use super::names::{attr_name, tag_name};
use crate::model::{Builder, Gap, NodeId, Radix, Seq, Span, Step, Value};

/// Entries of one unit beyond this many are not listed.
const MAX_ENTRIES: usize = 1 << 24;
/// Entries nested deeper than this are shown as bytes.
const MAX_DEPTH: u16 = 64;
/// Operations of a location expression shown at most.
const MAX_OPS: usize = 64;

/// Where one entry is, offsets from the start of its unit.
#[derive(Clone, Copy, Debug)]
struct Die {
    off: u64,
    /// Where its children end: after the null entry that closes them, or
    /// where the unit's entries stop when none does.
    end: u64,
    /// The index of its next sibling (of the entry after its children).
    next: u32,
    depth: u16,
    kids: bool,
    /// Its children end with a null entry (the byte before `end`).
    closed: bool,
}

/// One unit's entries, shared by the nodes built from them.
struct Shape {
    debug: Arc<Debug>,
    /// The unit's offset in `.debug_info`.
    unit: u64,
    table: Arc<Table>,
    /// What the unit's first entry sets for those after it.
    bases: Bases,
    dies: Vec<Die>,
}

#[derive(Clone, Copy, Default)]
pub(super) struct Bases {
    low_pc: u64,
    str_offsets: usize,
    addr: usize,
    loclists: usize,
    rnglists: usize,
}

impl Shape {
    /// The unit's first byte in the byte space.
    fn base(&self) -> u64 {
        self.debug.info.0 + self.unit
    }

    /// The index of the entry at unit offset `off`.
    fn index(&self, off: u64) -> Option<usize> {
        self.dies.binary_search_by_key(&off, |d| d.off).ok()
    }

    /// The sections and the unit as gimli reads them.
    fn open<'a: 'm, 'm>(
        &'m self,
        b: &Builder<'a>,
    ) -> Option<(gimli::Dwarf<Reader<'m, 'm>>, gimli::Unit<Reader<'m, 'm>>)> {
        let dwarf = self.debug.dwarf(b)?;
        let unit = self.unit_in(&dwarf.debug_info)?;
        Some((dwarf, unit))
    }

    /// The unit as gimli reads it from `info`.
    fn unit_in<'m>(
        &self,
        info: &gimli::DebugInfo<Reader<'m, 'm>>,
    ) -> Option<gimli::Unit<Reader<'m, 'm>>> {
        let at = DebugInfoOffset(usize::try_from(self.unit).ok()?);
        let header = info.header_from_offset(at).ok()?;
        Some(with_bases(header, self.table.abbrevs.clone(), self.bases))
    }
}

/// The unit `header` begins, as gimli reads its entries, with `bases`.
fn with_bases<'a, 'm>(
    header: gimli::UnitHeader<Reader<'a, 'm>>,
    abbrevs: Arc<gimli::Abbreviations>,
    bases: Bases,
) -> gimli::Unit<Reader<'a, 'm>> {
    gimli::Unit {
        header,
        abbreviations: abbrevs,
        name: None,
        comp_dir: None,
        low_pc: bases.low_pc,
        str_offsets_base: gimli::DebugStrOffsetsBase(bases.str_offsets),
        addr_base: gimli::DebugAddrBase(bases.addr),
        loclists_base: gimli::DebugLocListsBase(bases.loclists),
        rnglists_base: gimli::DebugRngListsBase(bases.rnglists),
        line_program: None,
        dwo_id: None,
    }
}

/// The unit `header` begins, its abbreviation table read once for all
/// the units that share it, and the bases its first entry sets.
pub(super) fn read_unit<'a, 'm>(
    b: &Builder<'_>,
    debug: &'m Debug,
    dwarf: &gimli::Dwarf<Reader<'a, 'm>>,
    header: gimli::UnitHeader<Reader<'a, 'm>>,
) -> Result<(gimli::Unit<Reader<'a, 'm>>, Arc<Table>, Bases), String> {
    let table = table(b, debug, dwarf, &header)?;
    let bases = bases(dwarf, &header, &table.abbrevs);
    Ok((
        with_bases(header, table.abbrevs.clone(), bases),
        table,
        bases,
    ))
}

/// The abbreviation table of the unit `header` begins.
fn table(
    b: &Builder<'_>,
    debug: &Debug,
    dwarf: &gimli::Dwarf<Reader<'_, '_>>,
    header: &gimli::UnitHeader<Reader<'_, '_>>,
) -> Result<Arc<Table>, String> {
    let key = header.debug_abbrev_offset().0 as u64;
    debug.table(key, || {
        let abbrevs = dwarf.abbreviations(header).map_err(|e| e.to_string())?;
        let (space, decls) = declarations(b, debug, key);
        Ok(Table {
            abbrevs,
            decls,
            space,
        })
    })
}

/// Adds the node `entries` at `at` under the unit's `node`,
/// whose entries are read when it is opened. `unit` is the unit's offset
/// in `.debug_info`.
pub(super) fn list(b: &mut Builder<'_>, node: NodeId, debug: &Arc<Debug>, unit: u64, at: Span) {
    let id = b.leaf(
        node,
        "entries",
        at.offset,
        at.len,
        Value::text("debugging information entries"),
    );
    b.gaps(id, Gap::Padding);
    let debug = debug.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| {
            let Some(shape) = scan(b, &debug, unit) else {
                return;
            };
            let n = shape.dies.len();
            siblings(b, id, &Arc::new(shape), 0, n);
        }),
    );
}

/// Reads where each entry of the unit at `unit` starts and ends; raises
/// what does not read as a diagnostic and keeps the entries before it.
fn scan(b: &mut Builder<'_>, debug: &Arc<Debug>, unit: u64) -> Option<Shape> {
    let base = debug.info.0 + unit;
    let (mut dies, bases, error, table) = {
        let dwarf = debug.dwarf(b)?;
        let header = dwarf
            .debug_info
            .header_from_offset(DebugInfoOffset(usize::try_from(unit).ok()?))
            .ok()?;
        let end = header.length_including_self() as u64;
        let (_, table, bases) = match read_unit(b, debug, &dwarf, header.clone()) {
            Ok(u) => u,
            Err(e) => {
                b.error(base, end, format!("DWARF abbreviations: {e}"));
                return None;
            }
        };
        let abbrevs = table.abbrevs.clone();
        let mut raw = header.entries_raw(&abbrevs, None).ok()?;
        let mut dies: Vec<Die> = Vec::new();
        // The entries whose children are not closed yet.
        let mut open: Vec<usize> = Vec::new();
        let mut error = None;
        while !raw.is_empty() {
            let off = raw.next_offset().0 as u64;
            if dies.len() == MAX_ENTRIES {
                error = Some((
                    off,
                    format!("more than {MAX_ENTRIES} entries: the rest are not listed"),
                ));
                break;
            }
            match raw.read_abbreviation() {
                Err(e) => {
                    error = Some((off, format!("DWARF entry: {e}")));
                    break;
                }
                // A null entry closes the children of the last open entry;
                // at the top it is padding.
                Ok(None) => {
                    if let Some(i) = open.pop() {
                        let next = dies.len() as u32;
                        if let Some(d) = dies.get_mut(i) {
                            d.end = off + 1;
                            d.next = next;
                            d.closed = true;
                        }
                    }
                }
                Ok(Some(a)) => {
                    let i = dies.len();
                    dies.push(Die {
                        off,
                        end: off,
                        next: i as u32 + 1,
                        depth: u16::try_from(open.len()).unwrap_or(u16::MAX),
                        kids: a.has_children(),
                        closed: false,
                    });
                    if let Err(e) = raw.skip_attributes(a.attributes()) {
                        error = Some((off, format!("DWARF entry: {e}")));
                        break;
                    }
                    if a.has_children() {
                        open.push(i);
                    } else if let Some(d) = dies.get_mut(i) {
                        d.end = raw.next_offset().0 as u64;
                    }
                }
            }
        }
        // Entries whose children the unit does not close end where the
        // entries read stop.
        let stop = match &error {
            Some((off, _)) => *off,
            None => end,
        };
        let count = dies.len() as u32;
        for i in open {
            if let Some(d) = dies.get_mut(i) {
                d.end = stop;
                d.next = count;
            }
        }
        (dies, bases, error, table)
    };
    if let Some((off, message)) = error {
        let end = debug.info.1.saturating_sub(unit);
        b.error(base + off, end.saturating_sub(off).max(1), message);
    }
    // An entry cut short by an error keeps at least its code's byte.
    for d in dies.iter_mut() {
        d.end = d.end.max(d.off + 1);
    }
    Some(Shape {
        debug: debug.clone(),
        unit,
        bases,
        dies,
        table,
    })
}

/// What the unit's first entry says for those after it: the bases of its
/// indexed strings, addresses and lists, and its low address. Read from
/// that entry alone (gimli's `Unit::new` reads the line program too, once
/// a unit: many units could share one large program).
fn bases(
    dwarf: &gimli::Dwarf<Reader<'_, '_>>,
    header: &gimli::UnitHeader<Reader<'_, '_>>,
    abbrevs: &gimli::Abbreviations,
) -> Bases {
    use AttributeValue as A;
    let mut out = Bases::default();
    // A split unit (in a .dwo file) has no base attributes: its bases are
    // past the headers of its .dwo sections, as gimli's Unit::new sets them.
    if dwarf.file_type == gimli::DwarfFileType::Dwo {
        let (enc, ft) = (header.encoding(), dwarf.file_type);
        out.str_offsets = gimli::DebugStrOffsetsBase::default_for_encoding_and_file(enc, ft).0;
        out.loclists = gimli::DebugLocListsBase::default_for_encoding_and_file(enc, ft).0;
        out.rnglists = gimli::DebugRngListsBase::default_for_encoding_and_file(enc, ft).0;
    }
    let mut entries = header.entries(abbrevs);
    let Ok(Some(root)) = entries.next_dfs() else {
        return out;
    };
    let mut low = None;
    for a in root.attrs() {
        match a.value() {
            A::DebugStrOffsetsBase(x) => out.str_offsets = x.0,
            A::DebugAddrBase(x) => out.addr = x.0,
            A::DebugLocListsBase(x) => out.loclists = x.0,
            A::DebugRngListsBase(x) => out.rnglists = x.0,
            v if a.name() == gimli::DW_AT_low_pc => low = Some(v),
            _ => {}
        }
    }
    out.low_pc = match low {
        Some(A::Addr(x)) => x,
        Some(A::DebugAddrIndex(i)) => dwarf
            .debug_addr
            .get_address(header.address_size(), gimli::DebugAddrBase(out.addr), i)
            .unwrap_or(0),
        _ => 0,
    };
    out
}

/// Where each declaration of the abbreviation table at `table` (an offset
/// into `.debug_abbrev`) is: code, offset in the byte space, length;
/// sorted by code.
fn declarations(
    b: &Builder<'_>,
    debug: &Debug,
    table: u64,
) -> (crate::model::SpaceId, Vec<(u64, u64, u64)>) {
    let mut out = Vec::new();
    let Some(abbrev) = debug.place(SectionId::DebugAbbrev) else {
        return (b.space(), out);
    };
    let d = debug.bytes(b, SectionId::DebugAbbrev);
    let Ok(at) = usize::try_from(table) else {
        return (abbrev.space, out);
    };
    for item in super::abbrev::items(d, at) {
        if let super::abbrev::Item::Decl(at, decl) = item {
            out.push((decl.code, abbrev.offset + at as u64, (decl.end - at) as u64));
        }
    }
    out.sort_by_key(|x| x.0);
    (abbrev.space, out)
}

/// Adds, under `parent`, the entry at index `first` and its siblings
/// after it, up to index `stop`: directly, or in groups when there are
/// many.
fn siblings(b: &mut Builder<'_>, parent: NodeId, shape: &Arc<Shape>, first: usize, stop: usize) {
    let base = shape.base();
    let mut marks = Vec::new();
    let mut count = 0u64;
    let mut i = first;
    let mut end = base;
    while let Some(d) = shape.dies.get(i).filter(|_| i < stop) {
        if count.is_multiple_of(crate::model::GROUP) {
            marks.push(base + d.off);
        }
        count += 1;
        end = base + d.end;
        i = (d.next as usize).max(i + 1);
    }
    let s = shape.clone();
    let step: Step = Arc::new(move |b: &mut Builder<'_>, p, _, at| {
        let i = s.index(at.checked_sub(s.base())?)?;
        let d = s.dies.get(i)?;
        entry(b, p, &s, i);
        Some(s.base() + d.end)
    });
    b.seq_now(parent, Seq::from_marks(marks, count, end, step));
}

/// Adds entry `i` under `parent`: its node, named by its tag and valued by
/// its name, whose contents are built when it is opened.
fn entry(b: &mut Builder<'_>, parent: NodeId, shape: &Arc<Shape>, i: usize) {
    let Some(d) = shape.dies.get(i).copied() else {
        return;
    };
    let at = shape.base() + d.off;
    let strings = shape.debug.strings(b);
    let (tag, name) = match shape.unit_in(&strings.info) {
        Some(unit) => match unit.entry(UnitOffset(d.off as usize)) {
            Ok(e) => (e.tag(), name_of(|v| strings.attr_string(&unit, v), &e)),
            Err(_) => (gimli::DwTag(0), None),
        },
        None => (gimli::DwTag(0), None),
    };
    let id = b.add(parent, tag_name(tag.0.into()), at, d.end - d.off, name);
    let s = shape.clone();
    b.lazy(
        id,
        Arc::new(move |b: &mut Builder<'_>, id| contents(b, id, &s, i)),
    );
}

/// The name entry `e` gives itself, as a value.
/// `string` reads a string attribute's value.
fn name_of<'m>(
    string: impl Fn(AttributeValue<Reader<'m, 'm>>) -> Option<Reader<'m, 'm>>,
    e: &gimli::DebuggingInformationEntry<Reader<'m, 'm>>,
) -> Option<Value> {
    let v = e.attr_value(gimli::DW_AT_name)?;
    let s = string(v)?;
    Some(Value::str_bytes(&s.to_slice().ok()?))
}

/// What entry `i` holds: its abbreviation code, its attributes, its
/// children and the null entry that closes them.
fn contents(b: &mut Builder<'_>, node: NodeId, shape: &Arc<Shape>, i: usize) {
    let Some(d) = shape.dies.get(i).copied() else {
        return;
    };
    let base = shape.base();
    let Some((dwarf, unit)) = shape.open(b) else {
        return;
    };
    let Ok(mut raw) = unit.entries_raw(Some(UnitOffset(d.off as usize))) else {
        return;
    };
    let Ok(Some(abbrev)) = raw.read_abbreviation() else {
        return;
    };
    let after = raw.next_offset().0 as u64;
    let tag = tag_name(abbrev.tag().0.into());
    let kids = if abbrev.has_children() {
        "has children"
    } else {
        "no children"
    };
    let code = b.leaf(
        node,
        "abbrev",
        base + d.off,
        after - d.off,
        Value::note(
            crate::model::Raw::U(abbrev.code()),
            format!("{tag}, {kids}"),
        ),
    );
    // Its declaration in .debug_abbrev.
    let decls = &shape.table.decls;
    if let Ok(k) = decls.binary_search_by_key(&abbrev.code(), |x| x.0) {
        if let Some(&(_, at, len)) = decls.get(k) {
            b.link(code, Span::new(shape.table.space, at, len));
        }
    }
    for spec in abbrev.attributes() {
        let from = raw.next_offset().0 as u64;
        let attr = match raw.read_attribute(*spec) {
            Ok(a) => a,
            Err(e) => {
                b.error(
                    base + from,
                    d.end.saturating_sub(from).max(1),
                    format!("DWARF attribute {}: {e}", attr_name(spec.name().0.into())),
                );
                break;
            }
        };
        let to = raw.next_offset().0 as u64;
        let mut v = attr.value();
        // A constant that a relocation sets (in an object file, an offset
        // into another section in a data form, a function's length on
        // RISC-V): as the linker would.
        if let AttributeValue::Data4(_) | AttributeValue::Data8(_) = attr.raw_value() {
            if let Some(x) = shape
                .debug
                .relocated(SectionId::DebugInfo, shape.unit + from)
            {
                v = relocated(v, x);
            }
        }
        let (value, link) = attr_value(&dwarf, &unit, shape, v);
        let id = b.leaf(
            node,
            attr_name(spec.name().0.into()),
            base + from,
            to.saturating_sub(from),
            value,
        );
        if let Some(l) = link {
            b.link(id, l);
        }
    }
    if d.kids {
        if d.depth >= MAX_DEPTH {
            let from = raw.next_offset().0 as u64;
            b.warn(
                base + from,
                d.end.saturating_sub(from),
                format!("DWARF entries nest deeper than {MAX_DEPTH}; not opened further"),
            );
        } else {
            siblings(b, node, shape, i + 1, d.next as usize);
        }
    }
    if d.closed {
        b.leaf(
            node,
            "null",
            base + d.end - 1,
            1,
            Value::text("end of children"),
        );
    }
}

/// Value `v`, read from a data form, with `x` (what a relocation puts in
/// the field) in place of the number read.
fn relocated<'a, 'm>(v: AttributeValue<Reader<'a, 'm>>, x: u64) -> AttributeValue<Reader<'a, 'm>> {
    use AttributeValue as A;
    let Ok(o) = usize::try_from(x) else {
        return v;
    };
    match v {
        A::Data4(_) | A::Data8(_) => A::Data8(x),
        A::Udata(_) => A::Udata(x),
        A::Sdata(_) => A::Sdata(x as i64),
        A::SecOffset(_) => A::SecOffset(o),
        A::DebugLineRef(_) => A::DebugLineRef(gimli::DebugLineOffset(o)),
        A::LocationListsRef(_) => A::LocationListsRef(gimli::LocationListsOffset(o)),
        A::RangeListsRef(_) => A::RangeListsRef(gimli::RawRangeListsOffset(o)),
        A::DebugMacinfoRef(_) => A::DebugMacinfoRef(gimli::DebugMacinfoOffset(o)),
        A::DebugMacroRef(_) => A::DebugMacroRef(gimli::DebugMacroOffset(o)),
        v => v,
    }
}

/// An attribute's value as its form and name say, and where it points:
/// the entry it refers to, or the string in its section.
fn attr_value(
    dwarf: &gimli::Dwarf<Reader<'_, '_>>,
    unit: &gimli::Unit<Reader<'_, '_>>,
    shape: &Shape,
    v: AttributeValue<Reader<'_, '_>>,
) -> (Value, Option<Span>) {
    use AttributeValue as A;
    let named = |n: u64, s: Option<&str>| Value::named(n, s);
    let link = list_link(dwarf, unit, shape, &v);
    let value = match v {
        A::Addr(a) => Value::hex(a),
        A::DebugAddrIndex(x) => match dwarf.address(unit, x) {
            Ok(a) => Value::with(a, Radix::Hex, format!(" (address index {})", x.0)),
            Err(_) => Value::with(x.0 as u64, Radix::Dec, " (address index)"),
        },
        A::Block(r) => Value::with(r.len() as u64, Radix::Dec, " byte block"),
        A::Data1(x) => Value::dec(x.into()),
        A::Data2(x) => Value::dec(x.into()),
        A::Data4(x) => Value::dec(x.into()),
        A::Data8(x) => Value::dec(x),
        A::Data16(x) => Value::text(format!("0x{x:032x}")),
        A::Sdata(x) => Value::int(x),
        A::Udata(x) | A::FileIndex(x) => Value::dec(x),
        A::Exprloc(e) => Value::text(expression(e, unit.encoding(), shape.debug.machine)),
        A::Flag(f) => Value::dec(f.into()),
        A::UnitRef(o) => {
            let to = o.0 as u64;
            let target = shape.index(to).and_then(|k| shape.dies.get(k));
            let label = match unit.entry(o) {
                Ok(e) => match name_of(|v| dwarf.attr_string(unit, v).ok(), &e) {
                    Some(Value::Str(s)) => format!(" ({s})"),
                    _ => format!(" ({})", tag_name(e.tag().0.into())),
                },
                Err(_) => " (no entry there)".to_string(),
            };
            let (offset, size) = match target {
                Some(t) => (shape.base() + t.off, t.end - t.off),
                None => (shape.base() + to, 1),
            };
            let link = Span::new(shape.debug.here, offset, size);
            return (Value::with(shape.unit + to, Radix::Hex, label), Some(link));
        }
        A::DebugInfoRef(o) => {
            let to = o.0 as u64;
            let link = Span::new(shape.debug.here, shape.debug.info.0 + to, 1);
            return (Value::hex(to), (to < shape.debug.info.1).then_some(link));
        }
        A::DebugInfoRefSup(o) => Value::hex(o.0 as u64),
        A::SecOffset(o) => Value::hex(o as u64),
        A::DebugLineRef(o) => Value::hex(o.0 as u64),
        A::LocationListsRef(o) => Value::hex(o.0 as u64),
        A::DebugMacinfoRef(o) => Value::hex(o.0 as u64),
        A::DebugMacroRef(o) => Value::hex(o.0 as u64),
        A::RangeListsRef(o) => Value::hex(o.0 as u64),
        A::DebugAddrBase(o) => Value::hex(o.0 as u64),
        A::DebugLocListsBase(o) => Value::hex(o.0 as u64),
        A::DebugRngListsBase(o) => Value::hex(o.0 as u64),
        A::DebugStrOffsetsBase(o) => Value::hex(o.0 as u64),
        A::DebugLocListsIndex(x) => match dwarf.locations_offset(unit, x) {
            Ok(o) => Value::with(
                o.0 as u64,
                Radix::Hex,
                format!(" (location list index {})", x.0),
            ),
            Err(_) => Value::with(
                x.0 as u64,
                Radix::Dec,
                " (location list index, not in .debug_loclists)",
            ),
        },
        A::DebugRngListsIndex(x) => match dwarf.ranges_offset(unit, x) {
            Ok(o) => Value::with(
                o.0 as u64,
                Radix::Hex,
                format!(" (range list index {})", x.0),
            ),
            Err(_) => Value::with(
                x.0 as u64,
                Radix::Dec,
                " (range list index, not in .debug_rnglists)",
            ),
        },
        A::DebugTypesRef(s) => Value::hex(s.0),
        A::DwoId(x) => Value::hex(x.0),
        A::String(s) => match s.to_slice() {
            Ok(s) => Value::str_bytes(&s),
            Err(_) => Value::text("?"),
        },
        A::DebugStrRef(o) => return strp(dwarf, unit, shape, SectionId::DebugStr, o.0, v),
        A::DebugLineStrRef(o) => return strp(dwarf, unit, shape, SectionId::DebugLineStr, o.0, v),
        A::DebugStrOffsetsIndex(x) => {
            match dwarf
                .debug_str_offsets
                .get_str_offset(unit.format(), unit.str_offsets_base, x)
            {
                Ok(o) => return strp(dwarf, unit, shape, SectionId::DebugStr, o.0, v),
                Err(_) => Value::with(
                    x.0 as u64,
                    Radix::Dec,
                    " (string index, not in .debug_str_offsets)",
                ),
            }
        }
        A::DebugStrRefSup(o) => Value::hex(o.0 as u64),
        A::Encoding(x) => named(x.0.into(), x.static_string()),
        A::DecimalSign(x) => named(x.0.into(), x.static_string()),
        A::Endianity(x) => named(x.0.into(), x.static_string()),
        A::Accessibility(x) => named(x.0.into(), x.static_string()),
        A::Visibility(x) => named(x.0.into(), x.static_string()),
        A::Virtuality(x) => named(x.0.into(), x.static_string()),
        A::Language(x) => named(x.0.into(), x.static_string()),
        A::AddressClass(x) => named(x.0, x.static_string()),
        A::IdentifierCase(x) => named(x.0.into(), x.static_string()),
        A::CallingConvention(x) => named(x.0.into(), x.static_string()),
        A::Inline(x) => named(x.0.into(), x.static_string()),
        A::Ordering(x) => named(x.0.into(), x.static_string()),
    };
    (value, link)
}

/// Where a location or range list an attribute names is: its first byte
/// in `.debug_loclists` or `.debug_rnglists` (DWARF 5), `.debug_loc` or
/// `.debug_ranges` (earlier versions); or the line program
/// `DW_AT_stmt_list` names, all of it.
fn list_link(
    dwarf: &gimli::Dwarf<Reader<'_, '_>>,
    unit: &gimli::Unit<Reader<'_, '_>>,
    shape: &Shape,
    v: &AttributeValue<Reader<'_, '_>>,
) -> Option<Span> {
    use AttributeValue as A;
    let v5 = unit.header.version() >= 5;
    let (id, off) = match *v {
        A::LocationListsRef(o) if v5 => (SectionId::DebugLocLists, o.0),
        A::LocationListsRef(o) => (SectionId::DebugLoc, o.0),
        A::RangeListsRef(o) if v5 => (SectionId::DebugRngLists, o.0),
        A::RangeListsRef(o) => (SectionId::DebugRanges, o.0),
        A::DebugLocListsIndex(x) => (
            SectionId::DebugLocLists,
            dwarf.locations_offset(unit, x).ok()?.0,
        ),
        A::DebugRngListsIndex(x) => (
            SectionId::DebugRngLists,
            dwarf.ranges_offset(unit, x).ok()?.0,
        ),
        A::DebugLineRef(o) => (SectionId::DebugLine, o.0),
        _ => return None,
    };
    let sec = shape.debug.place(id)?;
    let off = off as u64;
    if off >= sec.len {
        return None;
    }
    let size = match id {
        SectionId::DebugLine => {
            let d = gimli::Section::reader(&dwarf.debug_line).to_slice().ok()?;
            let end = super::line::end_in(&d, off, shape.debug.e, sec.len)?;
            end.checked_sub(off)?
        }
        _ => 1,
    };
    Some(sec.at(sec.offset + off, size))
}

/// A string attribute that refers to `section` at `off`: its offset and
/// text, linked to its bytes.
fn strp(
    dwarf: &gimli::Dwarf<Reader<'_, '_>>,
    unit: &gimli::Unit<Reader<'_, '_>>,
    shape: &Shape,
    section: SectionId,
    off: usize,
    v: AttributeValue<Reader<'_, '_>>,
) -> (Value, Option<Span>) {
    let Some(bytes) = dwarf
        .attr_string(unit, v)
        .ok()
        .and_then(|s| s.to_slice().ok().map(|s| s.into_owned()))
    else {
        return (
            Value::with(
                off as u64,
                Radix::Hex,
                format!(" (not in {})", section.name()),
            ),
            None,
        );
    };
    let link = shape
        .debug
        .place(section)
        .filter(|at| (off as u64) < at.len)
        .map(|at| at.at(at.offset + off as u64, bytes.len() as u64 + 1));
    (Value::str_at(off as u64, &bytes), link)
}

/// RISC-V's DWARF registers 0 to 63 by their ABI names, as its psABI
/// gives them (x2 is `sp`, f10 is `fa0`).
const RISCV: [&str; 64] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
    "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
    "t5", "t6", "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1",
    "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8",
    "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
];

/// s390x's DWARF registers 0 to 31, as its ELF ABI numbers them: the
/// general registers, then the floating-point ones, even ones first.
const S390: [&str; 32] = [
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
    "r15", "f0", "f2", "f4", "f6", "f1", "f3", "f5", "f7", "f8", "f10", "f12", "f14", "f9", "f11",
    "f13", "f15",
];

/// `DW_OP_regx` or `DW_OP_bregx` whose register does not fit in 16 bits,
/// as [`expression`] writes an operation (`DW_OP_bregx (reg83886088): 0`),
/// and the bytes after it; `None` for any other operation, or one that
/// does not read.
fn wide_register<'a, 'b>(mut r: Reader<'a, 'b>, code: u8) -> Option<(Reader<'a, 'b>, String)> {
    let name = gimli::DwOp(code).static_string()?;
    let (regx, bregx) = (gimli::DW_OP_regx.0, gimli::DW_OP_bregx.0);
    if code != regx && code != bregx {
        return None;
    }
    r.read_u8().ok()?;
    let reg = r.read_uleb128().ok()?;
    if u16::try_from(reg).is_ok() {
        return None;
    }
    let text = if code == bregx {
        let off = r.read_sleb128().ok()?;
        format!("{name} (reg{reg}): {off}")
    } else {
        format!("{name} (reg{reg})")
    };
    Some((r, text))
}

/// The name of DWARF register `r` on `machine` (`e_machine`).
fn register(machine: u16, r: gimli::Register) -> Option<&'static str> {
    match machine {
        3 => gimli::X86::register_name(r),
        8 => gimli::MIPS::register_name(r),
        21 => gimli::PowerPc64::register_name(r),
        22 => S390.get(usize::from(r.0)).copied(),
        40 => gimli::Arm::register_name(r),
        62 => gimli::X86_64::register_name(r),
        183 => gimli::AArch64::register_name(r),
        243 => RISCV.get(usize::from(r.0)).copied(),
        258 => gimli::LoongArch::register_name(r),
        _ => None,
    }
}

/// A location expression as its operations, registers named as the
/// machine names them: `DW_OP_breg7 (rsp): 8; DW_OP_stack_value`.
pub(super) fn expression(
    e: gimli::Expression<Reader<'_, '_>>,
    encoding: gimli::Encoding,
    machine: u16,
) -> String {
    use gimli::Operation as O;
    let mut r = e.0;
    let mut out = String::new();
    let mut n = 0;
    while !r.is_empty() {
        if n == MAX_OPS {
            out.push_str("; …");
            break;
        }
        let code = r.clone().read_u8().unwrap_or(0);
        let before = r.clone();
        let op = O::parse(&mut r, encoding);
        if n > 0 {
            out.push_str("; ");
        }
        let Ok(op) = op else {
            // gimli keeps a register in 16 bits; NVIDIA numbers its
            // registers past 2^24.
            match wide_register(before, code) {
                Some((rest, text)) => {
                    r = rest;
                    out.push_str(&text);
                    n += 1;
                    continue;
                }
                None => {
                    out.push_str("(does not read)");
                    break;
                }
            }
        };
        match gimli::DwOp(code).static_string() {
            Some(s) => out.push_str(s),
            None => out.push_str(&format!("DW_OP_0x{code:x}")),
        }
        if let O::Register { register: r } | O::RegisterOffset { register: r, .. } = op {
            if let Some(name) = register(machine, r) {
                out.push_str(" (");
                out.push_str(name);
                out.push(')');
            }
        }
        let operand = match op {
            O::FrameOffset { offset } => Some(offset.to_string()),
            O::Address { address } => Some(format!("0x{address:x}")),
            O::UnsignedConstant { value } => Some(value.to_string()),
            O::SignedConstant { value } => Some(value.to_string()),
            O::PlusConstant { value } => Some(value.to_string()),
            O::AddressIndex { index } | O::ConstantIndex { index } => Some(index.0.to_string()),
            O::RegisterOffset { offset, .. } => Some(offset.to_string()),
            O::Piece {
                size_in_bits,
                bit_offset: None,
            } => Some((size_in_bits / 8).to_string()),
            _ => None,
        };
        if let Some(x) = operand {
            out.push_str(": ");
            out.push_str(&x);
        }
        n += 1;
    }
    out
}
