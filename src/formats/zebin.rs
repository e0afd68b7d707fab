//! Intel GT "zebin" specifics, on top of the ELF reader: the `.ze_info` YAML
//! as a tree (each key and value linked to its bytes), the `IntelGT` notes
//! decoded by their meaning, `R_ZE_*` relocation names, `.spv` as SPIR-V,
//! `.misc.*` and `.visaasm.*` as text, `.gtpin_info*` raw, and each
//! `.text.<kernel>` linked to its symbols and its `.ze_info` entry.

use crate::disasm::{self, Target};
use crate::formats::elf::{self, Elf, Sec, Sections, Vendor};
use crate::formats::spirv;
use crate::formats::yaml::{self, Y};
use crate::model::{num, text, Builder, Endian, Fact, Fields, Format, Gap, NodeId, Span};

pub const SHT_ZEBIN_SPIRV: u32 = 0xff00_0009;
pub const SHT_ZEBIN_ZEINFO: u32 = 0xff00_0011;
pub const SHT_ZEBIN_GTPIN_INFO: u32 = 0xff00_0012;
pub const SHT_ZEBIN_VISAASM: u32 = 0xff00_0013;
pub const SHT_ZEBIN_MISC: u32 = 0xff00_0014;

/// Intel GT's additions to the ELF reader.
pub struct IntelGt;

/// The vendor of EM_INTELGT files.
pub static INTEL_GT: IntelGt = IntelGt;

/// True for an ELF whose e_machine is 205 (EM_INTELGT), in either byte
/// order: a zebin.
pub fn detect(d: &[u8]) -> bool {
    let machine = match d.get(5) {
        Some(2) => [0, 205],
        _ => [205, 0],
    };
    elf::detect(d) && d.get(18..20) == Some(&machine[..])
}

impl Vendor for IntelGt {
    fn section_type(&self, t: u32) -> Option<&'static str> {
        Some(match t {
            SHT_ZEBIN_SPIRV => "SHT_ZEBIN_SPIRV",
            SHT_ZEBIN_ZEINFO => "SHT_ZEBIN_ZEINFO",
            SHT_ZEBIN_GTPIN_INFO => "SHT_ZEBIN_GTPIN_INFO",
            SHT_ZEBIN_VISAASM => "SHT_ZEBIN_VISAASM",
            SHT_ZEBIN_MISC => "SHT_ZEBIN_MISC",
            _ => return None,
        })
    }
    fn info_is_symbol(&self, t: u32) -> bool {
        t == SHT_ZEBIN_GTPIN_INFO
    }
    /// GPU code whose device its product family note names.
    fn device_code(&self, _flags: u32, _abiversion: u8) -> Option<Fact> {
        Some(Fact::DeviceCode { target: None })
    }
    fn reloc_name(&self, t: u32) -> Option<&'static str> {
        reloc_name(t)
    }
    fn owns_note(&self, owner: &[u8]) -> bool {
        owner == b"IntelGT"
    }
    fn note_type(&self, _owner: &[u8], t: u32) -> Option<&'static str> {
        note_type(t)
    }
    fn note_desc(
        &self,
        b: &mut Builder<'_>,
        parent: NodeId,
        _owner: &[u8],
        typ: u32,
        at: Span,
        e: Endian,
    ) {
        note_desc(b, parent, typ, at, e)
    }
    fn zero_notes_expected(&self, secname: &str) -> bool {
        secname == ".note.intelgt.metrics"
    }
    fn sections(&self) -> Box<dyn Sections> {
        Box::new(State::default())
    }
    /// Intel GT code, for the IGA platform the notes name.
    fn code_target(&self, b: &Builder<'_>, elf: &Elf) -> Option<Target> {
        Some(Target::new(
            disasm::INTELGT,
            code_platform(b, elf).unwrap_or(""),
            "",
        ))
    }
}

/// The IGA platform of a zebin's code, from its `IntelGT` notes: the
/// gfxcore family, else the product family, else the product config's
/// architecture (what IGC itself maps to IGA's platforms).
fn code_platform(b: &Builder<'_>, elf: &Elf) -> Option<&'static str> {
    let notes = elf::owned_notes(b, elf, b"IntelGT");
    let word = |typ: u32| {
        notes
            .iter()
            .find(|&&(t, _, n)| t == typ && n == 4)
            .and_then(|&(_, d, _)| b.read_u32(d, elf.e))
    };
    let product = word(1);
    word(2)
        .and_then(|core| core_platform(core, product.unwrap_or(0)))
        .or_else(|| product.and_then(product_platform))
        .or_else(|| word(6).and_then(|c| config_platform(bits(c, 22, 10), bits(c, 14, 8))))
}

/// The IGA platform of a gfxcore family (and the product, where it tells
/// the platforms of one core apart).
fn core_platform(core: u32, product: u32) -> Option<&'static str> {
    Some(match core {
        11 if product == 17 => "gen8lp",
        11 => "gen8",
        12 if matches!(product, 22 | 23) => "gen9lp",
        12 if matches!(product, 19 | 20) => "gen9p5",
        12 => "gen9",
        13 | 14 => "gen10",
        15 | 16 => "gen11",
        17 | 18 => "xe",
        0x0c05 => "xe_hp",
        0x0c07 => "xe_hpg",
        0x0c08 => "xe_hpc",
        0x0c09 => "xe2",
        0x1e00 => "xe3",
        0x2300 | 0x2301 => "xe3p_xpc",
        _ => return None,
    })
}

/// The IGA platform of a product family.
fn product_platform(product: u32) -> Option<&'static str> {
    Some(match product {
        16 => "gen8",
        17 => "gen8lp",
        18 => "gen9",
        19 | 20 => "gen9p5",
        22 | 23 => "gen9lp",
        24 => "gen10",
        25..=28 => "gen11",
        29..=33 | 1210 => "xe",
        1250 => "xe_hp",
        1270 | 1272 | 1273 => "xe_hpg",
        1271 => "xe_hpc",
        1274 | 1275 => "xe2",
        1300 | 1340 => "xe3",
        1380 => "xe3p_xpc",
        _ => return None,
    })
}

/// The IGA platform of a product config's architecture and release
/// (`12.60` is Xe-HPC, `20.x` Xe2).
fn config_platform(arch: u32, release: u32) -> Option<&'static str> {
    Some(match (arch, release) {
        (12, 0..=10) => "xe",
        (12, 50..=59 | 70..=74) => "xe_hpg",
        (12, 60..=69) => "xe_hpc",
        (20, _) => "xe2",
        (30, _) => "xe3",
        _ => return None,
    })
}

impl Sections for State {
    fn section(&mut self, b: &mut Builder<'_>, id: NodeId, elf: &Elf, s: &Sec, at: Span) -> bool {
        section(b, id, elf, s, at, self)
    }
    fn finish(&mut self, b: &mut Builder<'_>, elf: &Elf, built: &[(usize, NodeId)]) {
        finish(b, elf, built, self)
    }
}

/// Relocation types of EM_INTELGT.
pub fn reloc_name(t: u32) -> Option<&'static str> {
    Some(match t {
        0 => "R_ZE_NONE",
        1 => "R_ZE_SYM_ADDR",
        2 => "R_ZE_SYM_ADDR_32",
        3 => "R_ZE_SYM_ADDR_32_HI",
        4 => "R_PER_THREAD_PAYLOAD_OFFSET_32",
        _ => return None,
    })
}

/// Note types of owner `IntelGT`.
pub fn note_type(t: u32) -> Option<&'static str> {
    Some(match t {
        1 => "NT_INTELGT_PRODUCT_FAMILY",
        2 => "NT_INTELGT_GFXCORE_FAMILY",
        3 => "NT_INTELGT_TARGET_METADATA",
        4 => "NT_INTELGT_ZEBIN_VERSION",
        5 => "NT_INTELGT_VISA_ABI_VERSION",
        6 => "NT_INTELGT_PRODUCT_CONFIG",
        7 => "NT_INTELGT_INDIRECT_ACCESS_DETECTION_VERSION",
        8 => "NT_INTELGT_INDIRECT_ACCESS_BUFFER_MAJOR_VERSION",
        _ => return None,
    })
}

/// Intel's PRODUCT_FAMILY numbers (gmmlib's igfxfmid.h).
pub fn product_family(v: u32) -> Option<&'static str> {
    const OLD: [&str; 34] = [
        "IGFX_UNKNOWN",
        "IGFX_GRANTSDALE_G",
        "IGFX_ALVISO_G",
        "IGFX_LAKEPORT_G",
        "IGFX_CALISTOGA_G",
        "IGFX_BROADWATER_G",
        "IGFX_CRESTLINE_G",
        "IGFX_BEARLAKE_G",
        "IGFX_CANTIGA_G",
        "IGFX_CEDARVIEW_G",
        "IGFX_EAGLELAKE_G",
        "IGFX_IRONLAKE_G",
        "IGFX_GT",
        "IGFX_IVYBRIDGE",
        "IGFX_HASWELL",
        "IGFX_VALLEYVIEW",
        "IGFX_BROADWELL",
        "IGFX_CHERRYVIEW",
        "IGFX_SKYLAKE",
        "IGFX_KABYLAKE",
        "IGFX_COFFEELAKE",
        "IGFX_WILLOWVIEW",
        "IGFX_BROXTON",
        "IGFX_GEMINILAKE",
        "IGFX_CANNONLAKE",
        "IGFX_ICELAKE",
        "IGFX_ICELAKE_LP",
        "IGFX_LAKEFIELD",
        "IGFX_JASPERLAKE / IGFX_ELKHARTLAKE",
        "IGFX_TIGERLAKE_LP",
        "IGFX_ROCKETLAKE",
        "IGFX_ALDERLAKE_S",
        "IGFX_ALDERLAKE_P",
        "IGFX_ALDERLAKE_N",
    ];
    if let Some(n) = OLD.get(v as usize) {
        return Some(n);
    }
    Some(match v {
        1210 => "IGFX_DG1",
        1250 => "IGFX_XE_HP_SDV",
        1270 => "IGFX_DG2",
        1271 => "IGFX_PVC",
        1272 => "IGFX_METEORLAKE",
        1273 => "IGFX_ARROWLAKE",
        1274 => "IGFX_BMG",
        1275 => "IGFX_LUNARLAKE",
        1300 => "IGFX_PTL",
        1340 => "IGFX_NVL_XE3G",
        1360 => "IGFX_NVL",
        1380 => "IGFX_CRI",
        _ => return None,
    })
}

/// Intel's GFXCORE_FAMILY numbers (gmmlib's igfxfmid.h).
pub fn gfxcore_family(v: u32) -> Option<&'static str> {
    Some(match v {
        0 => "IGFX_UNKNOWN_CORE",
        1 => "IGFX_GEN3_CORE",
        2 => "IGFX_GEN3_5_CORE",
        3 => "IGFX_GEN4_CORE",
        4 => "IGFX_GEN4_5_CORE",
        5 => "IGFX_GEN5_CORE",
        6 => "IGFX_GEN5_5_CORE",
        7 => "IGFX_GEN5_75_CORE",
        8 => "IGFX_GEN6_CORE",
        9 => "IGFX_GEN7_CORE",
        10 => "IGFX_GEN7_5_CORE",
        11 => "IGFX_GEN8_CORE",
        12 => "IGFX_GEN9_CORE",
        13 => "IGFX_GEN10_CORE",
        14 => "IGFX_GEN10LP_CORE",
        15 => "IGFX_GEN11_CORE",
        16 => "IGFX_GEN11LP_CORE",
        17 => "IGFX_GEN12_CORE",
        18 => "IGFX_GEN12LP_CORE",
        0x0c05 => "IGFX_XE_HP_CORE",
        0x0c07 => "IGFX_XE_HPG_CORE",
        0x0c08 => "IGFX_XE_HPC_CORE",
        0x0c09 => "IGFX_XE2_HPG_CORE / IGFX_XE2_LPG_CORE",
        0x1e00 => "IGFX_XE3_CORE",
        0x2300 => "IGFX_XE3P_CORE",
        0x2301 => "IGFX_XE3P_HPM",
        _ => return None,
    })
}

/// The bit fields of NT_INTELGT_TARGET_METADATA: (name, low bit, width).
pub const TARGET_METADATA: [(&str, u32, u32); 8] = [
    ("generatorSpecificFlags", 0, 8),
    ("minHwRevisionId", 8, 5),
    ("validateRevisionId", 13, 1),
    ("disableExtendedValidation", 14, 1),
    ("reservedBit", 15, 1),
    ("maxHwRevisionId", 16, 5),
    ("generatorId", 21, 3),
    ("reserved", 24, 8),
];

/// The bit fields of NT_INTELGT_PRODUCT_CONFIG (a GMD id): (name, low bit, width).
pub const PRODUCT_CONFIG: [(&str, u32, u32); 4] = [
    ("revision", 0, 6),
    ("reserved", 6, 8),
    ("release", 14, 8),
    ("architecture", 22, 10),
];

fn bits(v: u32, lo: u32, width: u32) -> u32 {
    crate::model::bits(v.into(), lo, width) as u32
}

/// The byte of a 4-byte word that holds bit `bit`, for an absolute range.
fn bit_byte(d: u64, bit: u32, width: u32, e: Endian) -> (u64, u64) {
    const WORD: u64 = 4;
    let first = u64::from(bit / 8);
    let end = u64::from((bit + width).div_ceil(8));
    match e {
        Endian::Little => (d + first, end - first),
        Endian::Big => (d + WORD - end, end - first),
    }
}

fn bitfields(
    b: &mut Builder<'_>,
    g: NodeId,
    v: u32,
    d: u64,
    e: Endian,
    fields: &[(&str, u32, u32)],
) {
    for &(name, lo, w) in fields {
        let x = bits(v, lo, w);
        let (o, n) = bit_byte(d, lo, w, e);
        let range = if w == 1 {
            format!("bit {lo}")
        } else {
            format!("bits {}..{lo}", lo + w - 1)
        };
        let shown = match (name, x) {
            ("generatorId", 0) => "0 (UNREGISTERED)".to_string(),
            ("generatorId", 1) => "1 (IGC)".to_string(),
            ("generatorId", 2) => "2 (NGEN)".to_string(),
            ("validateRevisionId" | "disableExtendedValidation" | "reservedBit", 1) => {
                "1 (true)".to_string()
            }
            ("validateRevisionId" | "disableExtendedValidation" | "reservedBit", 0) => {
                "0 (false)".to_string()
            }
            _ => num(x.into()).to_string(),
        };
        b.leaf(g, name, o, n, format!("{shown}, {range}"));
    }
}

/// Decodes the description of an IntelGT note.
pub(crate) fn note_desc(b: &mut Builder<'_>, parent: NodeId, typ: u32, at: Span, e: Endian) {
    let mut f = Fields::new(b, parent, at.offset, e);
    let word = if at.len == 4 {
        f.peek(at.offset, 4)
    } else {
        None
    };
    match (typ, word) {
        (1, Some(_)) => {
            let v = f.named("product family", 4, |v| product_family(v as u32));
            // The device it is built for, as `--targets` names it (`dg2`).
            let name = v.and_then(|v| product_family(v as u32));
            if let (Some(name), Some(node)) = (name, f.last_fitted()) {
                let t = name
                    .strip_prefix("IGFX_")
                    .unwrap_or(name)
                    .to_ascii_lowercase();
                f.builder().fact(node, Fact::NamesTarget(t.into()));
            }
        }
        (2, Some(_)) => {
            f.named("gfxcore family", 4, |v| gfxcore_family(v as u32));
        }
        (3, Some(v)) => {
            let v = v as u32;
            let g = b.group(parent, "target metadata", at.offset, 4);
            b.set_value(g, format!("0x{v:08x}"));
            bitfields(b, g, v, at.offset, e, &TARGET_METADATA);
        }
        (6, Some(v)) => {
            let v = v as u32;
            let g = b.group(parent, "product config", at.offset, 4);
            b.set_value(
                g,
                format!(
                    "0x{v:08x} ({}.{}.{})",
                    bits(v, 22, 10),
                    bits(v, 14, 8),
                    bits(v, 0, 6)
                ),
            );
            bitfields(b, g, v, at.offset, e, &PRODUCT_CONFIG);
        }
        (5, Some(_)) => {
            f.u32("vISA ABI version");
        }
        (7, Some(_)) => {
            f.u32("indirect access detection version");
        }
        (8, Some(_)) => {
            f.u32("indirect access buffer major version");
        }
        (4, _) => {
            f.span("zebin version", at.len, |s| {
                let end = memchr::memchr(0, s).unwrap_or(s.len());
                text::quoted(s.get(..end).unwrap_or(&[])).into()
            });
        }
        (1..=3 | 5..=8, None) => {
            b.raw(parent, "desc", at.offset, at.len);
            b.warn(
                at.offset,
                at.len,
                format!(
                    "IntelGT note type {typ} should have a 4-byte description, not {} bytes",
                    at.len
                ),
            );
        }
        _ => {
            b.raw(parent, "desc", at.offset, at.len);
        }
    }
}

/// What the sections pass on to the crate-private `finish`, which links
/// each `.text.<kernel>` to its `.ze_info` entry once every section is
/// read.
#[derive(Default)]
pub struct State {
    kernels: Vec<Entry>,
}

/// A `kernels` or `functions` entry of `.ze_info`.
struct Entry {
    name: String,
    node: NodeId,
    /// Its bytes.
    at: Span,
}

/// Decodes a zebin-specific section; false if `s` is not one.
pub(crate) fn section(
    b: &mut Builder<'_>,
    id: NodeId,
    _elf: &Elf,
    s: &Sec,
    at: Span,
    st: &mut State,
) -> bool {
    let n = s.name.as_str();
    if s.typ == SHT_ZEBIN_SPIRV || n == ".spv" {
        if spirv::detect(b.bytes(at)) {
            b.set_format(id, Format::SpirV);
            spirv::parse(b, id, at);
        } else {
            let magic = at.take(4);
            b.warn(
                magic.offset,
                magic.len,
                format!("{n} does not start with the SPIR-V magic"),
            );
        }
        return true;
    }
    if s.typ == SHT_ZEBIN_ZEINFO || n == ".ze_info" {
        zeinfo(b, id, at, st);
        return true;
    }
    if s.typ == SHT_ZEBIN_GTPIN_INFO || n.starts_with(".gtpin_info") {
        b.raw(id, "data", at.offset, at.len);
        return true;
    }
    if s.typ == SHT_ZEBIN_MISC
        || s.typ == SHT_ZEBIN_VISAASM
        || n.starts_with(".misc.")
        || n.starts_with(".visaasm")
    {
        let bytes = b.bytes(at);
        let end = text::strip_padding(bytes, 0).len();
        let shown = bytes.get(..end.min(4096)).unwrap_or(&[]);
        let mut v = text::quoted(shown);
        if end > 4096 {
            v.push('…');
        }
        b.leaf(id, "text", at.offset, at.len, v);
        return true;
    }
    false
}

/// Links each `.text.<kernel>` to its `.ze_info` entry (and back) and shows
/// the symbols that point into it.
pub(crate) fn finish(b: &mut Builder<'_>, elf: &Elf, built: &[(usize, NodeId)], st: &State) {
    use crate::formats::elf::{sym_and_entry, sym_bytes};
    let symtab = elf.symtab();
    let mut syms: Vec<(u64, u16, String, Span, Span)> = Vec::new();
    if let Some(si) = symtab {
        let strtab = elf.sec(si.into()).map_or(0, |s| s.link);
        for i in 0..100_000 {
            let Some((sym, entry)) = sym_and_entry(b, elf, si, i) else {
                break;
            };
            let Some(named) = sym_bytes(elf, &sym) else {
                continue;
            };
            let name = elf
                .string(b, strtab, sym.name.into())
                .map(|s| s.text)
                .unwrap_or_default();
            syms.push((i, sym.shndx, name, entry, named));
        }
    }
    for &(i, node) in built {
        let Some(s) = elf.secs.get(i) else {
            continue;
        };
        let Some(kname) = s.name.strip_prefix(".text.") else {
            continue;
        };
        let Some(code) = elf.data(s) else {
            continue;
        };
        let mut v = format!("code of {kname}");
        if let Some(k) = st.kernels.iter().find(|k| k.name == kname) {
            b.link(node, k.at);
            // The entry leads to the kernel's first instruction: the
            // node that holds the code's first byte.
            b.link(k.node, code.take(1));
            v.push_str(", linked to its .ze_info entry");
        }
        b.set_value(node, v);
        for (si, shndx, name, entry, named) in &syms {
            if usize::from(*shndx) != i {
                continue;
            }
            let label = if name.is_empty() {
                format!("symbol [{si}]")
            } else {
                format!("symbol {name}")
            };
            let value = format!("symbol [{si}], {} bytes", named.len);
            let n = b.leaf(node, label, named.offset, named.len, value);
            b.link(n, *entry);
        }
    }
}

// ---- .ze_info ----

fn zeinfo(b: &mut Builder<'_>, id: NodeId, at: Span, st: &mut State) {
    b.gaps(id, Gap::Syntax);
    let bytes = text::strip_padding(b.bytes(at), 0);
    let src = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            // The runtime rejects a module whose .ze_info it cannot read.
            b.error(
                at.offset + e.valid_up_to() as u64,
                1,
                ".ze_info is not valid UTF-8",
            );
            return;
        }
    };
    let doc = yaml::read(src, at.offset);
    if doc.truncated {
        b.info(
            at.offset,
            at.len,
            "the .ze_info YAML is too large; only its start is shown",
        );
    }
    if let Some((pos, msg)) = doc.error {
        // At the end of the text: its last byte.
        let pos = pos.min(at.end().saturating_sub(1));
        b.error(pos, 1, format!(".ze_info: YAML error: {msg}"));
    }
    let Some(root) = doc.root else {
        return;
    };
    let top: Vec<(String, u64, u64, Y)> = match root {
        Y::Map { entries, .. } => entries,
        other => {
            let (s, _) = other.span();
            emit(b, id, "value".into(), s, other, 0, &mut Vec::new());
            return;
        }
    };
    for (k, ks, _ke, v) in top {
        let mut found = Vec::new();
        let record = k == "kernels" || k == "functions";
        emit(b, id, k, ks, v, 0, &mut found);
        if record {
            st.kernels.extend(found);
        }
    }
}

/// Adds `v` under `parent` as `name`, its range from `start` (the key's
/// start, or the value's) to the value's end, linked to the value's bytes.
/// Sequence items that are mappings with a `name` are recorded in `found`.
fn emit(
    b: &mut Builder<'_>,
    parent: NodeId,
    name: String,
    start: u64,
    v: Y,
    depth: usize,
    found: &mut Vec<Entry>,
) -> NodeId {
    let (vs, ve) = v.span();
    let start = start.min(vs);
    let end = ve.max(start);
    match v {
        Y::Scalar {
            text: t, quoted, ..
        } => {
            let shown = if quoted {
                format!("\"{}\"", text::clean(&t))
            } else {
                t
            };
            let n = b.leaf(parent, name, start, end - start, shown);
            b.link(n, b.span(vs, ve.saturating_sub(vs)));
            n
        }
        Y::Map { entries, .. } => {
            let g = b.group(parent, name, start, end - start);
            b.link(g, b.span(vs, ve.saturating_sub(vs)));
            let mut summary = None;
            let mut first = None;
            for (k, ks, _ke, ev) in entries {
                if let Y::Scalar { text: t, .. } = &ev {
                    if k == "name" {
                        summary = Some(format!("name {t}"));
                    } else if first.is_none() {
                        first = Some(format!("{k} {t}"));
                    }
                }
                emit(b, g, k, ks, ev, depth + 1, found);
            }
            if let Some(s) = summary.or(first) {
                b.set_value(g, s);
            }
            g
        }
        Y::Seq { items, .. } => {
            let g = b.group(parent, name, start, end - start);
            b.set_value(g, format!("{} items", items.len()));
            for (i, it) in items.into_iter().enumerate() {
                let item_name = match &it {
                    Y::Map { entries, .. } => {
                        entries
                            .iter()
                            .find(|e| e.0 == "name")
                            .and_then(|e| match &e.3 {
                                Y::Scalar { text: t, .. } => Some(t.clone()),
                                _ => None,
                            })
                    }
                    _ => None,
                };
                let label = match &item_name {
                    Some(n) => format!("[{i}] {n}"),
                    None => format!("[{i}]"),
                };
                let (is, ie) = it.span();
                let n = emit(b, g, label, is, it, depth + 1, &mut Vec::new());
                if depth == 0 {
                    if let Some(kn) = item_name {
                        found.push(Entry {
                            name: kn,
                            node: n,
                            at: b.span(is, ie.saturating_sub(is)),
                        });
                    }
                }
            }
            g
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_metadata_bits() {
        // PVC sample: 0x00270700 → min rev 7, max rev 7, generator IGC.
        let v = 0x0027_0700;
        assert_eq!(bits(v, 8, 5), 7);
        assert_eq!(bits(v, 16, 5), 7);
        assert_eq!(bits(v, 21, 3), 1);
        assert_eq!(bit_byte(100, 8, 5, Endian::Little), (101, 1));
        assert_eq!(bit_byte(100, 8, 5, Endian::Big), (102, 1));
        assert_eq!(bit_byte(100, 22, 10, Endian::Little), (102, 2));
    }

    #[test]
    fn names() {
        assert_eq!(product_family(29), Some("IGFX_TIGERLAKE_LP"));
        assert_eq!(product_family(1271), Some("IGFX_PVC"));
        assert_eq!(gfxcore_family(0x0c08), Some("IGFX_XE_HPC_CORE"));
        assert_eq!(reloc_name(4), Some("R_PER_THREAD_PAYLOAD_OFFSET_32"));
    }
}
