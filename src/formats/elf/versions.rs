//! Symbol versions: `.gnu.version` (SHT_GNU_versym, one version index a
//! dynamic symbol), `.gnu.version_d` (SHT_GNU_verdef: the versions the
//! object defines, each Verdef with its Verdaux names) and
//! `.gnu.version_r` (SHT_GNU_verneed: per needed file a Verneed with its
//! Vernaux versions). Names come from the string table sh_link names.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use compact_str::CompactString;

use super::shared::entsize_check;
use super::symbols::sym_name;
use super::{constants, Elf, Sec, Str};
use crate::model::{Builder, Endian, Fields, NodeId, Span, Value};

/// More records than this in one chain are not followed.
const MAX_RECORDS: u64 = 1 << 16;

/// One record of a version section, as read (offsets absolute).
enum Rec {
    /// A Verdef (20 bytes): `k`-th in its chain; `name` is its first
    /// Verdaux's name.
    Def {
        off: u64,
        k: u64,
        ndx: u16,
        name: Option<u32>,
    },
    /// A Verdaux (8 bytes): `j`-th of Verdef `k`.
    DefAux { off: u64, k: u64, j: u64 },
    /// A Verneed (16 bytes).
    Need {
        off: u64,
        k: u64,
        file: u32,
        cnt: u16,
    },
    /// A Vernaux (16 bytes).
    NeedAux {
        off: u64,
        k: u64,
        j: u64,
        other: u16,
        name: u32,
    },
}

/// The records of the verdef (`need` false) or verneed section at `at`,
/// following the chains, and the problems met: (offset, size, message).
fn walk(b: &Builder<'_>, e: Endian, at: Span, need: bool) -> (Vec<Rec>, Vec<(u64, u64, String)>) {
    let mut recs = Vec::new();
    let mut bad = Vec::new();
    let mut seen = HashSet::new();
    let (size, aux_size, what, aux_what) = if need {
        (16, 16, "Verneed", "Vernaux")
    } else {
        (20, 8, "Verdef", "Verdaux")
    };
    let fits = |rel: u64, n: u64| rel.checked_add(n).is_some_and(|end| end <= at.len);
    let mut rel = 0u64;
    let mut k = 0u64;
    while k < MAX_RECORDS {
        let o = at.offset.saturating_add(rel);
        if !fits(rel, size) {
            bad.push((
                o.min(at.end()),
                at.len.saturating_sub(rel),
                format!(
                    "{what} [{k}] at 0x{rel:x} runs past its section ({} bytes)",
                    at.len
                ),
            ));
            break;
        }
        if !seen.insert(rel) {
            bad.push((
                o,
                size,
                format!("{what} [{k}] at 0x{rel:x} was already read: the chain loops"),
            ));
            break;
        }
        let rd16 = |x: u64| b.read_u16(o + x, e).unwrap_or(0);
        let rd32 = |x: u64| b.read_u32(o + x, e).unwrap_or(0);
        let (cnt, aux, next) = if need {
            (rd16(2), rd32(8), rd32(12))
        } else {
            (rd16(6), rd32(12), rd32(16))
        };
        let last = recs.len();
        if need {
            recs.push(Rec::Need {
                off: o,
                k,
                file: rd32(4),
                cnt,
            });
        } else {
            recs.push(Rec::Def {
                off: o,
                k,
                ndx: rd16(4),
                name: None,
            });
        }
        let mut arel = rel.saturating_add(aux.into());
        for j in 0..u64::from(cnt) {
            let ao = at.offset.saturating_add(arel);
            if !fits(arel, aux_size) {
                bad.push((
                    ao.min(at.end()),
                    at.len.saturating_sub(arel),
                    format!(
                        "{aux_what} [{k}.{j}] at 0x{arel:x} runs past its section ({} bytes)",
                        at.len
                    ),
                ));
                break;
            }
            if !seen.insert(arel) {
                // Records may share their names (a version defined twice
                // under one name): the shared ones are shown once, where
                // they were first read.
                if !need && j == 0 {
                    let name = b.read_u32(ao, e).unwrap_or(0);
                    if let Some(Rec::Def { name: n, .. }) = recs.get_mut(last) {
                        *n = Some(name);
                    }
                }
                break;
            }
            let ard16 = |x: u64| b.read_u16(ao + x, e).unwrap_or(0);
            let ard32 = |x: u64| b.read_u32(ao + x, e).unwrap_or(0);
            let anext = if need {
                let name = ard32(8);
                recs.push(Rec::NeedAux {
                    off: ao,
                    k,
                    j,
                    other: ard16(6),
                    name,
                });
                ard32(12)
            } else {
                let name = ard32(0);
                if j == 0 {
                    if let Some(Rec::Def { name: n, .. }) = recs.get_mut(last) {
                        *n = Some(name);
                    }
                }
                recs.push(Rec::DefAux { off: ao, k, j });
                ard32(4)
            };
            if anext == 0 {
                if j + 1 < u64::from(cnt) {
                    bad.push((
                        ao,
                        aux_size,
                        format!(
                            "{what} [{k}] counts {cnt} {aux_what} entries, its chain ends after {}",
                            j + 1
                        ),
                    ));
                }
                break;
            }
            if u64::from(anext) < aux_size {
                bad.push((
                    ao,
                    aux_size,
                    format!("{aux_what} [{k}.{j}]: its next offset {anext} points inside it ({aux_size} bytes)"),
                ));
                break;
            }
            arel = arel.saturating_add(anext.into());
        }
        k += 1;
        if next == 0 {
            break;
        }
        if u64::from(next) < size {
            bad.push((
                o,
                size,
                format!(
                    "{what} [{}]: its next offset {next} points inside it ({size} bytes)",
                    k - 1
                ),
            ));
            break;
        }
        rel = rel.saturating_add(next.into());
    }
    (recs, bad)
}

/// The name at index `idx` of string table `strtab`, or a note of why not.
fn name_of(b: &Builder<'_>, elf: &Elf, strtab: u32, idx: u32) -> Result<Str, String> {
    elf.string(b, strtab, idx.into())
}

/// A field naming a string of `strtab`: its index, the string, a link to it.
fn name_field(f: &mut Fields<'_, '_>, elf: &Elf, strtab: u32, name: &str) -> Option<String> {
    let at = f.at();
    let idx = f.peek(at, 4)? as u32;
    let got = name_of(f.builder(), elf, strtab, idx);
    match got {
        Ok(st) => {
            f.field(name, 4, |v| Value::StrAt {
                v,
                s: CompactString::from(st.text.as_str()),
            });
            if let Some(n) = f.last() {
                f.builder().link(n, st.at);
            }
            Some(st.text)
        }
        Err(m) => {
            f.field(name, 4, |v| {
                Value::note(crate::model::Raw::U(v), "bad string index")
            });
            f.builder()
                .error(at, 4, format!("{name}: bad string index: {m}"));
            None
        }
    }
}

fn ver_flags(v: u64) -> String {
    let mut on = Vec::new();
    for (bit, n) in [(1, "BASE"), (2, "WEAK"), (4, "INFO")] {
        if v & bit != 0 {
            on.push(n);
        }
    }
    if on.is_empty() {
        "none".into()
    } else {
        on.join(" | ")
    }
}

/// An SHT_GNU_verdef or SHT_GNU_verneed section: its records in file
/// order, each with its fields.
pub(super) fn defs_or_needs(b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) {
    let need = s.typ == constants::SHT_GNU_VERNEED;
    let e = elf.e;
    let strtab = s.link;
    let (recs, bad) = walk(b, e, at, need);
    for (o, n, m) in bad {
        b.error(o, n, format!("section [{}] {}: {m}", s.index, s.name));
    }
    let mut entries = 0;
    for r in &recs {
        match *r {
            Rec::Def { off, k, name, .. } => {
                entries += 1;
                let shown = name
                    .and_then(|n| name_of(b, elf, strtab, n).ok())
                    .map(|x| x.text)
                    .unwrap_or_default();
                let g = b.group(id, format!("verdef [{k}] {shown}"), off, 20);
                let mut f = Fields::new(b, g, off, e);
                f.u16("vd_version");
                let flags = f.flags("vd_flags", 2, ver_flags).unwrap_or(0);
                let ndx = f.u16("vd_ndx").unwrap_or(0);
                let cnt = f.u16("vd_cnt").unwrap_or(0);
                f.hex_wide("vd_hash", 4);
                f.u32("vd_aux");
                f.u32("vd_next");
                b.set_value(
                    g,
                    format!(
                        "index {ndx}, flags {}, {cnt} name{}",
                        ver_flags(flags),
                        if cnt == 1 { "" } else { "s" }
                    ),
                );
            }
            Rec::DefAux { off, k, j, .. } => {
                let g = b.group(id, format!("verdaux [{k}.{j}]"), off, 8);
                let mut f = Fields::new(b, g, off, e);
                let n = name_field(&mut f, elf, strtab, "vda_name");
                f.u32("vda_next");
                if let Some(n) = n {
                    b.set_name(g, format!("verdaux [{k}.{j}] {n}"));
                    b.set_value(
                        g,
                        if j == 0 {
                            "name".to_string()
                        } else {
                            format!("parent {j}")
                        },
                    );
                }
            }
            Rec::Need { off, k, file, cnt } => {
                entries += 1;
                let shown = name_of(b, elf, strtab, file)
                    .map(|x| x.text)
                    .unwrap_or_default();
                let g = b.group(id, format!("verneed [{k}] {shown}"), off, 16);
                let mut f = Fields::new(b, g, off, e);
                f.u16("vn_version");
                f.u16("vn_cnt");
                name_field(&mut f, elf, strtab, "vn_file");
                f.u32("vn_aux");
                f.u32("vn_next");
                b.set_value(
                    g,
                    format!("{cnt} version{}", if cnt == 1 { "" } else { "s" }),
                );
            }
            Rec::NeedAux {
                off, k, j, other, ..
            } => {
                let g = b.group(id, format!("vernaux [{k}.{j}]"), off, 16);
                let mut f = Fields::new(b, g, off, e);
                f.hex_wide("vna_hash", 4);
                let flags = f.flags("vna_flags", 2, ver_flags).unwrap_or(0);
                f.u16("vna_other");
                let n = name_field(&mut f, elf, strtab, "vna_name");
                f.u32("vna_next");
                if let Some(n) = n {
                    b.set_name(g, format!("vernaux [{k}.{j}] {n}"));
                }
                b.set_value(g, format!("index {other}, flags {}", ver_flags(flags)));
            }
        }
    }
    if u64::from(s.info) != entries {
        b.warn(
            s.hdr,
            4,
            format!(
                "section [{}] {}: sh_info says {} entries, the chain has {entries}",
                s.index, s.name, s.info
            ),
        );
    }
}

/// Version index → name, from the object's verdef and verneed sections.
fn version_names(b: &Builder<'_>, elf: &Elf) -> HashMap<u16, String> {
    let mut m = HashMap::new();
    for s in &elf.secs {
        let need = match s.typ {
            constants::SHT_GNU_VERDEF => false,
            constants::SHT_GNU_VERNEED => true,
            _ => continue,
        };
        let Some(at) = elf.data(s) else {
            continue;
        };
        let (recs, _) = walk(b, elf.e, at, need);
        for r in recs {
            let (ndx, name) = match r {
                Rec::Def {
                    ndx, name: Some(n), ..
                } => (ndx, n),
                Rec::NeedAux { other, name, .. } => (other, name),
                _ => continue,
            };
            if let Ok(st) = name_of(b, elf, s.link, name) {
                m.entry(ndx).or_insert(st.text);
            }
        }
    }
    m
}

/// An SHT_GNU_versym section: one entry a symbol of the dynamic symbol
/// table sh_link names, its version index named with the version it
/// refers to (bit 15: hidden).
pub(super) fn versym(
    b: &mut Builder<'_>,
    g: NodeId,
    elf: &Arc<Elf>,
    s: &Sec,
    at: Span,
    tname: &str,
) -> NodeId {
    entsize_check(b, elf, s, 2, at.len);
    let count = at.len / 2;
    let names = Arc::new(version_names(b, elf));
    let el = elf.clone();
    let table = s.link;
    let id = b.array(
        g,
        &super::shared::label(s),
        at.offset,
        count,
        2,
        Arc::new(move |b, p, i, o| {
            let Some(v) = b.read_u16(o, el.e) else {
                return;
            };
            let label = match sym_name(b, &el, table, i) {
                Some(n) if !n.is_empty() => format!("[{i}] {n}"),
                _ => format!("[{i}]"),
            };
            let ndx = v & 0x7fff;
            let hidden = v & 0x8000 != 0;
            let name = match ndx {
                0 => Some("*local*".to_string()),
                1 => Some("*global*".to_string()),
                _ => names.get(&ndx).cloned(),
            };
            let shown = match (name, hidden) {
                (Some(n), true) => format!("{n}, hidden"),
                (Some(n), false) => n,
                (None, true) => "no such version, hidden".into(),
                (None, false) => "no such version".into(),
            };
            b.leaf(p, label, o, 2, Value::named_hex(v.into(), Some(&shown)));
        }),
    );
    b.set_value(id, format!("{tname}, {count} symbols"));
    if elf
        .sec(table.into())
        .is_none_or(|t| t.typ != constants::SHT_DYNSYM)
    {
        b.warn(
            s.hdr,
            4,
            format!(
                "version table [{}] {}: sh_link {table} is not a dynamic symbol table",
                s.index, s.name
            ),
        );
    }
    id
}
