//! ELF notes: namesz, descsz, type, owner name and description, the
//! description decoded for the owners whose notes have a known layout (GNU,
//! Go, FDO, LLVM offloading, and a machine's own through its vendor hook).

use super::records::{self, nhdr, property, Nhdr, Property};
use super::{constants, Elf};
use crate::model::{named, text, Builder, Endian, Fields, NodeId, Span, Value};

/// More notes than this in one section are not shown.
const MAX_NOTES: u64 = 65_536;

/// Parses the notes in `at` under `parent`.
pub(super) fn notes(
    b: &mut Builder<'_>,
    parent: NodeId,
    elf: &Elf,
    secname: &str,
    at: Span,
    align: u64,
) {
    let e = elf.e;
    let al = if align == 8 { 8 } else { 4 };
    let all = b.bytes(at);
    if !all.is_empty() && all.iter().all(|&c| c == 0) {
        b.leaf(
            parent,
            "zero-filled",
            at.offset,
            at.len,
            format!("{} zero bytes, no notes", at.len),
        );
        let m = format!(
            "note section {secname} is zero-filled ({} bytes): space reserved, no notes written",
            at.len
        );
        if elf.vendor.is_some_and(|v| v.zero_notes_expected(secname)) {
            b.info(at.offset, at.len, m);
        } else {
            b.warn(at.offset, at.len, m);
        }
        return;
    }
    let end = at.end();
    let mut pos = at.offset;
    let mut i = 0u64;
    while pos < end {
        if i >= MAX_NOTES {
            b.info(
                pos,
                end - pos,
                format!("more than {MAX_NOTES} notes; the rest are not shown"),
            );
            break;
        }
        let rest = end - pos;
        if rest < nhdr::SIZE {
            let tail = b.slice(pos, rest);
            if tail.iter().all(|&c| c == 0) {
                b.leaf(parent, "padding", pos, rest, format!("{rest} zero bytes"));
                b.warn(
                    pos,
                    rest,
                    format!("{rest} zero bytes after the last note of {secname}"),
                );
            } else {
                b.error(
                    pos,
                    rest,
                    format!("note [{i}] runs past its section {secname}: its header needs {} bytes, {rest} remain", nhdr::SIZE),
                );
            }
            break;
        }
        let Some((namesz, descsz, typ)) = header(b, pos, e) else {
            break;
        };
        // The description and the next note start `al`-aligned from the
        // note's start (4 in most notes, 8 in 64-bit GNU property notes).
        let desc_off =
            crate::model::align_up(nhdr::SIZE + u64::from(namesz), al).unwrap_or(u64::MAX);
        let total = desc_off
            .checked_add(descsz.into())
            .and_then(|x| crate::model::align_up(x, al))
            .unwrap_or(u64::MAX);
        // The last note's description may end without padding.
        let total_min = desc_off.saturating_add(descsz.into());
        let fits = total <= rest || total_min <= rest;
        let size = total.min(rest);
        let owner_len = u64::from(namesz).min(rest - nhdr::SIZE);
        let owner_raw = b.slice(pos + nhdr::SIZE, owner_len);
        let owner = match owner_raw.split_last() {
            Some((0, r)) => r,
            _ => owner_raw,
        };
        let core = elf.etype == 4;
        let tname = if let Some(v) = elf.vendor.filter(|v| v.owns_note(owner)) {
            v.note_type(owner, typ)
        } else {
            constants::note_type(owner, typ, core)
        };
        let owner_s = text::from_bytes(owner);
        let label = format!(
            "[{i}] {} {}",
            if owner_s.is_empty() {
                "(no owner)"
            } else {
                &owner_s
            },
            tname.map_or_else(|| format!("type {typ}"), str::to_string)
        );
        let id = b.group(parent, label, pos, size);
        let mut f = Fields::new(b, id, pos, e);
        if let Some(n) = Nhdr::show(&mut f).n_type {
            f.builder().set_value(n, named(typ.into(), tname));
        }
        if !fits {
            f.builder().error(
                pos,
                rest,
                format!(
                    "note [{i}] ({owner_s}) runs past its section {secname}: namesz {namesz} and descsz {descsz} need {total} bytes, {rest} remain"
                ),
            );
            if owner_len > 0 {
                f.span("name", owner_len, |_| Value::str_bytes(owner));
            }
            break;
        }
        if namesz > 0 {
            f.span("name", namesz.into(), |_| Value::str_bytes(owner));
        }
        if descsz > 0 {
            let d = at.at(pos + desc_off, descsz.into());
            desc(b, id, elf, owner, typ, d, al);
        }
        b.set_value(id, format!("{owner_s}, {} bytes of description", descsz));
        pos = pos.saturating_add(total.max(12));
        i += 1;
    }
}

/// A note's description, at `at`.
fn desc(b: &mut Builder<'_>, parent: NodeId, elf: &Elf, owner: &[u8], typ: u32, at: Span, al: u64) {
    let e = elf.e;
    if let Some(v) = elf.vendor.filter(|v| v.owns_note(owner)) {
        v.note_desc(b, parent, owner, typ, at, e);
        return;
    }
    match (owner, typ) {
        (b"GNU", 1) if at.len >= 16 => {
            let g = b.group(parent, "desc", at.offset, at.len);
            let os_name = |os: u64| match os {
                0 => Some("Linux"),
                1 => Some("Hurd"),
                2 => Some("Solaris"),
                3 => Some("FreeBSD"),
                _ => None,
            };
            let mut f = Fields::new(b, g, at.offset, e);
            let os = f.named("os", 4, os_name).unwrap_or(0);
            let ver: Vec<String> = ["major", "minor", "subminor"]
                .iter()
                .filter_map(|k| f.u32(k))
                .map(|v| v.to_string())
                .collect();
            b.set_value(
                g,
                format!(
                    "{} ABI {}",
                    os_name(os).unwrap_or("unknown OS"),
                    ver.join(".")
                ),
            );
        }
        (b"GNU", 3) => {
            Fields::new(b, parent, at.offset, e).span("build id", at.len, |bytes| {
                let hex: String = bytes.iter().take(64).map(|x| format!("{x:02x}")).collect();
                hex.into()
            });
        }
        (b"GNU", 5) => properties(b, parent, elf, at, al),
        // XMOS: the tools' version (NUL-terminated), the architecture
        // (`XS1`, `XS2`) and the silicon revision (`REVA`, `REVB`), as text.
        (b"XMOS", 1..=3) => {
            let what = match typ {
                1 => "tools version",
                2 => "architecture",
                _ => "revision",
            };
            Fields::new(b, parent, at.offset, e)
                .span(what, at.len, |s| Value::str_bytes(before_nul(s)));
        }
        (b"GNU", 4)
        | (b"Go", 4)
        | (b"FDO", 0xcafe_1a7e)
        | (b"LLVMOMPOFFLOAD", _)
        | (b"AMD", 11) => {
            Fields::new(b, parent, at.offset, e)
                .span("desc", at.len, |s| text::quoted(before_nul(s)).into());
        }
        _ => {
            Fields::new(b, parent, at.offset, e).bytes("desc", at.len);
        }
    }
}

fn properties(b: &mut Builder<'_>, parent: NodeId, elf: &Elf, at: Span, al: u64) {
    let e: Endian = elf.e;
    let g = b.group(parent, "properties", at.offset, at.len);
    let end = at.end();
    let mut pos = at.offset;
    let mut i = 0;
    while end.saturating_sub(pos) >= property::SIZE && i < 4096 {
        let Some(Property {
            pr_type: t,
            pr_datasz: sz,
        }) = records::read(b, pos, e)
        else {
            break;
        };
        let datasz = u64::from(sz);
        let total =
            property::SIZE.saturating_add(crate::model::align_up(datasz, al).unwrap_or(u64::MAX));
        let size = total.min(end - pos);
        let tn = match t {
            1 => Some("GNU_PROPERTY_STACK_SIZE"),
            2 => Some("GNU_PROPERTY_NO_COPY_ON_PROTECTED"),
            0xb000_8000 => Some("GNU_PROPERTY_1_NEEDED"),
            0xc000_0000 if elf.machine == constants::EM_AARCH64 => {
                Some("GNU_PROPERTY_AARCH64_FEATURE_1_AND")
            }
            0xc000_0002 => Some("GNU_PROPERTY_X86_FEATURE_1_AND"),
            0xc000_8001 => Some("GNU_PROPERTY_X86_FEATURE_2_NEEDED"),
            0xc000_8002 => Some("GNU_PROPERTY_X86_ISA_1_NEEDED"),
            0xc001_0001 => Some("GNU_PROPERTY_X86_FEATURE_2_USED"),
            0xc001_0002 => Some("GNU_PROPERTY_X86_ISA_1_USED"),
            _ => None,
        };
        let id = b.group(g, format!("[{i}] {}", tn.unwrap_or("property")), pos, size);
        let mut f = Fields::new(b, id, pos, e);
        if let Some(n) = Property::show(&mut f).pr_type {
            f.builder()
                .set_value(n, format!("0x{t:x} ({})", tn.unwrap_or("unknown")));
        }
        if property::SIZE + datasz > end - pos {
            f.builder().error(
                pos,
                end - pos,
                format!("GNU property [{i}] runs past its note"),
            );
            break;
        }
        if datasz == 4 {
            let v = f.peek(pos + property::SIZE, 4).unwrap_or(0) as u32;
            let shown = match (t, elf.machine) {
                (0xc000_0002, _) => bitnames(v, &[(1, "IBT"), (2, "SHSTK")]),
                (0xc000_0000, constants::EM_AARCH64) => {
                    bitnames(v, &[(1, "BTI"), (2, "PAC"), (4, "GCS")])
                }
                (0xc000_8002 | 0xc001_0002, _) => bitnames(
                    v,
                    &[
                        (1, "x86-64-baseline"),
                        (2, "x86-64-v2"),
                        (4, "x86-64-v3"),
                        (8, "x86-64-v4"),
                    ],
                ),
                _ => format!("0x{v:x}"),
            };
            f.span("pr_data", 4, |_| shown.as_str().into());
            b.set_value(id, shown);
        } else if datasz > 0 {
            f.bytes("pr_data", datasz);
        }
        pos = pos.saturating_add(total);
        i += 1;
    }
}

fn bitnames(v: u32, t: &[(u32, &str)]) -> String {
    let on: Vec<&str> = t
        .iter()
        .filter(|(bit, _)| v & bit != 0)
        .map(|&(_, n)| n)
        .collect();
    if on.is_empty() {
        format!("0x{v:x}")
    } else {
        format!("0x{v:x} ({})", on.join(", "))
    }
}

/// The bytes before the first NUL (all of them when there is none).
fn before_nul(s: &[u8]) -> &[u8] {
    let end = memchr::memchr(0, s).unwrap_or(s.len());
    s.get(..end).unwrap_or(&[])
}

/// A note's namesz, descsz and type, at `pos`.
fn header(b: &Builder<'_>, pos: u64, e: Endian) -> Option<(u32, u32, u32)> {
    let h: Nhdr = records::read(b, pos, e)?;
    Some((h.n_namesz, h.n_descsz, h.n_type))
}

/// The most notes [`owned`] reads in one section.
const MAX_READ: usize = 256;

/// The notes of `owner` in the file's note sections, for a reader that
/// wants their values rather than nodes: (type, absolute offset of the
/// description, its length). Notes that do not fit end the section's list.
pub(crate) fn owned(b: &Builder<'_>, elf: &Elf, owner: &[u8]) -> Vec<(u32, u64, u64)> {
    let e = elf.e;
    let mut out = Vec::new();
    for s in elf.secs.iter().filter(|s| s.typ == constants::SHT_NOTE) {
        let Some(at) = elf.data(s) else {
            continue;
        };
        let al = if s.align == 8 { 8 } else { 4 };
        let end = at.end();
        let mut pos = at.offset;
        for _ in 0..MAX_READ {
            let Some((namesz, descsz, typ)) = header(b, pos, e) else {
                break;
            };
            let Some(desc) = crate::model::align_up(nhdr::SIZE + u64::from(namesz), al) else {
                break;
            };
            let d = pos.saturating_add(desc);
            if d.saturating_add(descsz.into()) > end {
                break;
            }
            let name = b.slice(pos + nhdr::SIZE, namesz.into());
            let name = name.strip_suffix(&[0]).unwrap_or(name);
            if name == owner {
                out.push((typ, d, u64::from(descsz)));
            }
            let Some(next) = crate::model::align_up(desc + u64::from(descsz), al) else {
                break;
            };
            pos = pos.saturating_add(next.max(nhdr::SIZE));
            if pos >= end {
                break;
            }
        }
    }
    out
}
