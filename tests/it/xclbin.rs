//! XCLBIN: fwview against XRT's own reader (`xrt::xclbin` from Debian's
//! libxrt-dev, through the small program in tests/xrt/), against xclbins
//! written here field by field, and against corruptions of them.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::OnceLock;

use serde_json::Value;

use fwview::formats::build_from_bytes;
use fwview::model::{Format, Severity, Tree};

use common::json::{
    find, json_of, kids, lead, located as diags, name, off, path as get, size, unquote, val,
};

// ---------------------------------------------------------------------
// Reading fwview's --json
// ---------------------------------------------------------------------

/// The root's payload node of section `i` (named `[i] KIND`).
fn payload(j: &Value, i: usize) -> &Value {
    let prefix = format!("[{i}] ");
    kids(&j["root"])
        .into_iter()
        .find(|k| name(k).starts_with(&prefix))
        .unwrap_or_else(|| panic!("no payload node {prefix}"))
}
fn payload_of<'a>(j: &'a Value, kind: &str) -> Option<&'a Value> {
    kids(&j["root"])
        .into_iter()
        .find(|k| name(k).split_once(' ').is_some_and(|(_, k)| k == kind))
}
/// Every child lies inside its parent (the JSON contract).
fn check_ranges(n: &Value) -> usize {
    let mut count = 1;
    for k in kids(n) {
        assert!(
            off(k) >= off(n) && off(k) + size(k) <= off(n) + size(n),
            "{} [{}+{}] outside {} [{}+{}]",
            name(k),
            off(k),
            size(k),
            name(n),
            off(n),
            size(n)
        );
        count += check_ranges(k);
    }
    count
}

// ---------------------------------------------------------------------
// XRT's reader
// ---------------------------------------------------------------------

/// Builds tests/xrt/xclbin_dump.cpp once; None (after saying why) when
/// XRT's headers or g++ are not installed.
fn xrt_dump() -> Option<&'static Path> {
    static TOOL: OnceLock<Option<PathBuf>> = OnceLock::new();
    TOOL.get_or_init(|| {
        let headers = Path::new("/usr/include/xrt/xclbin.h").exists();
        if !common::present("libxrt-dev", headers) || !common::tool("g++") {
            return None;
        }
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/xrt/xclbin_dump.cpp");
        let exe = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("xclbin_dump_{}", std::process::id()));
        let out = Process::new("g++")
            .args(["-std=c++17", "-O1", "-I/usr/include/xrt"])
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .args(["-lxrt_coreutil", "-luuid"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "building the XRT reader failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(exe)
    })
    .as_deref()
}

#[derive(Default, Debug)]
struct Xrt {
    uuid: String,
    xsa: String,
    sections: Vec<(u32, String, u64, u64)>,
    ips: Vec<(String, u64)>,
    kernels: BTreeSet<String>,
    cus: BTreeMap<String, BTreeSet<String>>,
    mems: Vec<(u64, String, u64, u64, u64, u64)>,
}

fn xrt_read(tool: &Path, file: &Path) -> Xrt {
    let out = Process::new(tool).arg(file).output().unwrap();
    assert!(
        out.status.success(),
        "XRT could not read {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut x = Xrt::default();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "uuid" => x.uuid = f[1].to_string(),
            "xsa" => x.xsa = f[1].to_string(),
            "section" => x.sections.push((
                f[1].parse().unwrap(),
                f[2].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )),
            "ip" => x.ips.push((f[1].to_string(), f[2].parse().unwrap())),
            "kernel" => {
                x.kernels.insert(f[1].to_string());
            }
            "cu" => {
                x.cus
                    .entry(f[1].to_string())
                    .or_default()
                    .insert(f[2].to_string());
            }
            "mem" => x.mems.push((
                f[1].parse().unwrap(),
                f[2].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
                f[6].parse().unwrap(),
            )),
            other => panic!("unexpected line {other}"),
        }
    }
    x
}

/// Compares what fwview shows with what XRT read.
fn compare_with_xrt(x: &Xrt, j: &Value, what: &str) {
    let root = &j["root"];
    assert_eq!(val(get(root, "header/uuid")), x.uuid, "{what}: uuid");
    assert_eq!(
        unquote(val(get(root, "header/m_platformVBNV"))),
        x.xsa,
        "{what}: VBNV"
    );

    // The section table, header by header, and one payload node each.
    let table = get(root, "sections");
    assert_eq!(kids(table).len(), x.sections.len(), "{what}: section count");
    for (i, (h, (kind, sname, soff, ssize))) in kids(table).into_iter().zip(&x.sections).enumerate()
    {
        assert_eq!(
            lead(val(get(h, "m_sectionKind"))),
            u64::from(*kind),
            "{what}: [{i}] kind"
        );
        assert_eq!(
            unquote(val(get(h, "m_sectionName"))),
            sname,
            "{what}: [{i}] name"
        );
        assert_eq!(
            lead(val(get(h, "m_sectionOffset"))),
            *soff,
            "{what}: [{i}] offset"
        );
        assert_eq!(
            lead(val(get(h, "m_sectionSize"))),
            *ssize,
            "{what}: [{i}] size"
        );
        let p = payload(j, i);
        assert_eq!((off(p), size(p)), (*soff, *ssize), "{what}: payload [{i}]");
        assert!(
            name(h).starts_with(&format!("[{i}] ")),
            "{what}: header name {}",
            name(h)
        );
    }

    // IPs: every entry of IP_LAYOUT, in order, with its base address.
    let ips: Vec<(String, u64)> = match payload_of(j, "IP_LAYOUT") {
        Some(p) => kids(get(p, "m_ip_data"))
            .into_iter()
            .map(|e| {
                (
                    unquote(val(get(e, "m_name"))).to_string(),
                    lead(val(get(e, "m_base_address"))),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    assert_eq!(ips, x.ips, "{what}: IP names and bases");

    // Kernels: the <kernel> elements of EMBEDDED_METADATA, and their
    // compute units among the IP names.
    let mut kernels = BTreeSet::new();
    if let Some(p) = payload_of(j, "EMBEDDED_METADATA") {
        collect_kernels(p, &mut kernels);
    }
    assert_eq!(kernels, x.kernels, "{what}: kernel names");
    for (k, cus) in &x.cus {
        let ours: BTreeSet<String> = ips
            .iter()
            .filter(|(n, _)| n.split_once(':').is_some_and(|(kn, _)| kn == k))
            .map(|(n, _)| n.clone())
            .collect();
        assert_eq!(&ours, cus, "{what}: compute units of {k}");
    }

    // Memories: XRT reads the grouped topology when there is one.
    let topo = payload_of(j, "ASK_GROUP_TOPOLOGY").or_else(|| payload_of(j, "MEM_TOPOLOGY"));
    let mems: Vec<(u64, String, u64, u64, u64, u64)> = match topo {
        Some(p) => kids(get(p, "m_mem_data"))
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    i as u64,
                    unquote(val(get(e, "m_tag"))).to_string(),
                    lead(val(get(e, "m_type"))),
                    lead(val(get(e, "m_used"))),
                    lead(val(get(e, "m_size"))),
                    lead(val(get(e, "m_base_address"))),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    assert_eq!(mems, x.mems, "{what}: memories");
}

fn collect_kernels(n: &Value, out: &mut BTreeSet<String>) {
    if name(n) == "<kernel>" {
        if let Some(a) = find(n, "@name") {
            out.insert(unquote(val(a)).to_string());
        }
    }
    for k in kids(n) {
        collect_kernels(k, out);
    }
}

#[test]
fn samples_match_xrt() {
    let Some(tool) = xrt_dump() else { return };
    assert_eq!(
        common::samples_in("xclbin", "xclbin").len(),
        11,
        "the 11 sample xclbins"
    );
    for s in common::samples_in("xclbin", "xclbin") {
        let what = s.file_name().unwrap().to_string_lossy().into_owned();
        let x = xrt_read(tool, &s);
        let j = json_of(&s);
        compare_with_xrt(&x, &j, &what);
    }
}

#[test]
fn samples_have_no_errors_and_keep_the_contract() {
    for s in common::samples_in("xclbin", "xclbin") {
        let j = json_of(&s);
        assert_eq!(j["format"], "xclbin");
        assert_eq!(
            j["size"].as_u64().unwrap(),
            std::fs::metadata(&s).unwrap().len()
        );
        let errors = diags(&j, "error");
        assert!(errors.is_empty(), "{}: {errors:?}", s.display());
        let n = check_ranges(&j["root"]);
        assert!(n > 50, "{}: only {n} nodes", s.display());
        // The one oddity of the xclbin structures in the real files: two
        // connections of the Kria DPU xclbin name an IP that IP_LAYOUT does
        // not have. (What the PDI decoder finds inside PDIs is its own.)
        let pdis = nested_ranges(&j);
        for (at, m) in diags(&j, "warning") {
            if pdis.iter().any(|(o, e)| (*o..*e).contains(&at)) {
                continue;
            }
            assert!(
                m.contains("m_ip_layout_index 2 is out of range"),
                "{}: {m}",
                s.display()
            );
        }
    }
}

/// The byte ranges of payloads another format's decoder opens: PDI
/// sections, AIE partition images, soft kernel images.
fn nested_ranges(j: &Value) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    for p in kids(&j["root"]) {
        let kind = name(p).split_once(' ').map_or("", |(_, k)| k);
        if matches!(kind, "PDI" | "BITSTREAM_PARTIAL_PDI") {
            v.push((off(p), off(p) + size(p)));
        }
        for k in kids(p) {
            if name(k).ends_with(" image") || name(k) == "image" {
                v.push((off(k), off(k) + size(k)));
            }
        }
    }
    v
}

// ---------------------------------------------------------------------
// Independent decodes of the samples
// ---------------------------------------------------------------------

fn le(d: &[u8], at: usize, n: usize) -> u64 {
    d[at..at + n]
        .iter()
        .rev()
        .fold(0, |a, &b| (a << 8) | u64::from(b))
}
fn cstr(d: &[u8], at: usize) -> String {
    let end = d[at..].iter().position(|&c| c == 0).unwrap() + at;
    String::from_utf8(d[at..end].to_vec()).unwrap()
}
/// The sections of an xclbin: (kind, offset, size).
fn section_table(d: &[u8]) -> Vec<(u32, usize, usize)> {
    let n = le(d, 0x1C0, 4) as usize;
    (0..n)
        .map(|i| {
            let h = 0x1C8 + 40 * i;
            (
                le(d, h, 4) as u32,
                le(d, h + 0x18, 8) as usize,
                le(d, h + 0x20, 8) as usize,
            )
        })
        .collect()
}

#[test]
fn header_fields_are_decoded() {
    let s = &common::samples_in("xclbin", "xclbin")[3]; // riallto__color_threshold_v1_720p
    let j = json_of(s);
    let h = get(&j["root"], "header");
    assert_eq!(
        val(get(h, "m_timeStamp")),
        "1621492032 (2021-05-20 06:27:12 UTC)"
    );
    assert_eq!(val(get(h, "version")), "2.11.598");
    assert_eq!(val(get(h, "m_mode")), "4 (XCLBIN_HW_EMU)");
    assert_eq!(val(get(h, "m_actionMask")), "1 (AM_LOAD_AIE)");
    assert_eq!(
        val(get(h, "m_interface_uuid")),
        "00000000-0000-0000-0000-000000000000"
    );
    assert_eq!(val(get(h, "m_debug_bin")), "\"\"");
    // xclbin.h: "-1 indicates no signature".
    assert_eq!(
        val(get(&j["root"], "m_signature_length")),
        "-1 (no signature)"
    );
    assert_eq!(val(get(&j["root"], "magic")), "\"xclbin2\"");
    let k = common::samples_in("xclbin", "xclbin")[0].clone(); // kria k26: 2022-05-16
    let j = json_of(&k);
    assert_eq!(
        val(get(&j["root"], "header/m_timeStamp")),
        "1652670920 (2022-05-16 03:15:20 UTC)"
    );
    assert_eq!(val(get(&j["root"], "header/version")), "2.13.477");
}

#[test]
fn aie_partitions_match_an_independent_decode() {
    let mut seen = 0;
    for s in common::samples_in("xclbin", "xclbin") {
        let d = std::fs::read(&s).unwrap();
        let Some(i) = section_table(&d).iter().position(|e| e.0 == 32) else {
            continue;
        };
        let (_, so, _) = section_table(&d)[i];
        seen += 1;
        let j = json_of(&s);
        let p = payload(&j, i);
        let ncols = le(&d, so + 0x28, 4) as usize;
        let cols_at = so + le(&d, so + 0x2C, 4) as usize;
        let cols: Vec<String> = (0..ncols)
            .map(|k| le(&d, cols_at + 2 * k, 2).to_string())
            .collect();
        assert_eq!(val(get(p, "start_columns")), cols.join(", "));
        let npdi = le(&d, so + 0x78, 4) as usize;
        let pdis_at = so + le(&d, so + 0x7C, 4) as usize;
        let pdis = get(p, "aie_pdi");
        assert_eq!(kids(pdis).len(), npdi);
        for k in 0..npdi {
            let e = pdis_at + 96 * k;
            let ours = &kids(pdis)[k];
            let uuid = &d[e..e + 16];
            let hex: String = uuid.iter().map(|b| format!("{b:02x}")).collect();
            let dashed = format!(
                "{}-{}-{}-{}-{}",
                &hex[..8],
                &hex[8..12],
                &hex[12..16],
                &hex[16..20],
                &hex[20..]
            );
            assert_eq!(val(get(ours, "uuid")), dashed);
            // The image node holds exactly the bytes the array_offset names.
            let img = get(p, &format!("pdi[{k}] image"));
            assert_eq!(off(img), (so as u64) + le(&d, e + 20, 4));
            assert_eq!(size(img), le(&d, e + 16, 4));
            let ngroups = le(&d, e + 24, 4) as usize;
            let groups_at = so + le(&d, e + 28, 4) as usize;
            let groups = get(p, &format!("pdi[{k}] cdo_groups"));
            assert_eq!(kids(groups).len(), ngroups);
            for g in 0..ngroups {
                let ga = groups_at + 96 * g;
                let gname = cstr(&d, so + le(&d, ga, 4) as usize);
                let node = &kids(groups)[g];
                assert_eq!(name(node), format!("[{g}] {gname}"));
                assert!(val(get(node, "mpo_name")).ends_with(&format!("-> \"{gname}\"")));
                let ty = ["CT_UNKNOWN", "CT_PRIMARY", "CT_LITE", "CT_PREPOST"][d[ga + 4] as usize];
                assert_eq!(val(get(node, "cdo_type")), format!("{} ({ty})", d[ga + 4]));
                let nk = le(&d, ga + 16, 4) as usize;
                let ka = so + le(&d, ga + 20, 4) as usize;
                let ids: Vec<String> = (0..nk)
                    .map(|q| format!("0x{:x}", le(&d, ka + 8 * q, 8)))
                    .collect();
                assert!(
                    val(node).contains(&format!("kernel ids [{}]", ids.join(", "))),
                    "{}",
                    val(node)
                );
                let np = le(&d, ga + 24, 4) as usize;
                let pa = so + le(&d, ga + 28, 4) as usize;
                let pre: Vec<String> = (0..np).map(|q| le(&d, pa + 4 * q, 4).to_string()).collect();
                assert!(
                    val(node).contains(&format!("pre-groups [{}]", pre.join(", "))),
                    "{}",
                    val(node)
                );
            }
        }
    }
    assert_eq!(seen, 7, "seven samples carry an AIE_PARTITION");
}

/// Walks fwview's JSON tree of a JSON section beside serde_json's parse of
/// the same text, checking every node's bytes say what its path says.
fn check_json_node(n: &Value, expect: &Value, data: &[u8], is_member: bool) {
    let bytes = &data[off(n) as usize..(off(n) + size(n)) as usize];
    let text = std::str::from_utf8(bytes).unwrap();
    let parsed: Value = if is_member {
        let obj: serde_json::Map<String, Value> =
            serde_json::from_str(&format!("{{{text}}}")).unwrap();
        assert_eq!(obj.len(), 1);
        let (k, v) = obj.into_iter().next().unwrap();
        assert_eq!(k, name(n));
        v
    } else {
        serde_json::from_str(text).unwrap()
    };
    assert_eq!(&parsed, expect, "node {} holds {text}", name(n));
    match expect {
        Value::Object(m) => {
            assert_eq!(kids(n).len(), m.len());
            for k in kids(n) {
                check_json_node(k, &m[name(k)], data, true);
            }
        }
        Value::Array(a) => {
            assert_eq!(kids(n).len(), a.len().min(1000));
            for (i, k) in kids(n).into_iter().enumerate() {
                assert_eq!(name(k), format!("[{i}]"));
                check_json_node(k, &a[i], data, false);
            }
        }
        Value::String(s) => {
            // The value is the decoded string itself (--json escapes it,
            // the TUI and --tree show controls escaped).
            let shown = s.clone();
            let shown = if shown.chars().count() > 256 {
                format!("{}…", shown.chars().take(256).collect::<String>())
            } else {
                shown
            };
            assert_eq!(val(n), format!("\"{shown}\""));
        }
        other => assert_eq!(val(n), other.to_string()),
    }
}

#[test]
fn json_metadata_nodes_hold_their_own_bytes() {
    let mut checked = 0;
    for s in common::samples_in("xclbin", "xclbin") {
        let d = std::fs::read(&s).unwrap();
        let j = json_of(&s);
        for (i, (kind, so, sz)) in section_table(&d).into_iter().enumerate() {
            if ![14, 15, 20, 22, 25, 33, 35].contains(&kind) {
                continue;
            }
            let text = String::from_utf8(d[so..so + sz].to_vec()).unwrap();
            let doc: Value = serde_json::from_str(text.trim_end_matches('\0')).unwrap();
            let p = payload(&j, i);
            let m = doc.as_object().unwrap();
            assert_eq!(kids(p).len(), m.len());
            for k in kids(p) {
                check_json_node(k, &m[name(k)], &d, true);
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} JSON sections");
}

// ---------------------------------------------------------------------
// Links, through the library
// ---------------------------------------------------------------------

fn link_target(t: &mut Tree, path: &str) -> String {
    let id = t.find_path(path).unwrap_or_else(|| panic!("no {path}"));
    let l = t.link(id).unwrap_or_else(|| panic!("{path} has no link"));
    let to = t.smallest_containing(l);
    t.path_string(to)
}

/// Following the link of `path` selects `to` or a node inside it of the
/// same bytes (a one-element array's element, a nested format's root).
#[track_caller]
fn follows(t: &mut Tree, path: &str, to: &str) {
    let got = link_target(t, path);
    assert!(
        got == to || got.starts_with(&format!("{to}/")),
        "{path} leads to {got}, not {to}"
    );
}

#[test]
fn links_lead_where_the_values_point() {
    let s = &common::samples_in("xclbin", "xclbin")[3]; // riallto__color_threshold_v1_720p
    let mut t = common::tree::expanded(std::fs::read(s).unwrap());
    assert_eq!(
        link_target(&mut t, "sections/[1] MEM_TOPOLOGY"),
        "[1] MEM_TOPOLOGY"
    );
    assert_eq!(
        link_target(
            &mut t,
            "[3] CONNECTIVITY/m_connection/[3]/m_ip_layout_index"
        ),
        "[2] IP_LAYOUT/m_ip_data/[1] color_threshold_1_tile_720p:Riallto"
    );
    assert_eq!(
        link_target(&mut t, "[3] CONNECTIVITY/m_connection/[3]/mem_data_index"),
        "[1] MEM_TOPOLOGY/m_mem_data/[1] SRAM"
    );
    // The grouped connectivity points into the grouped topology.
    assert_eq!(
        link_target(
            &mut t,
            "[9] ASK_GROUP_CONNECTIVITY/m_connection/[0]/mem_data_index"
        ),
        "[10] ASK_GROUP_TOPOLOGY/m_mem_data/[0] HOST"
    );
    let a = "[8] AIE_PARTITION";
    for (from, to) in [
        ("aie_partition/aie_pdi", "aie_pdi"),
        ("aie_partition/info/start_columns", "start_columns"),
        ("aie_partition/mpo_name", "str +0xb8"),
        ("aie_pdi/[0]", "pdi[0] image"),
        ("aie_pdi/[0]/pdi_image", "pdi[0] image"),
        ("aie_pdi/[0]/cdo_groups", "pdi[0] cdo_groups"),
        ("pdi[0] cdo_groups/[0] DPU/mpo_name", "str +0x19d8"),
        (
            "pdi[0] cdo_groups/[0] DPU/dpu_kernel_ids",
            "pdi[0] cdo[0] dpu_kernel_ids",
        ),
        (
            "pdi[0] cdo_groups/[0] DPU/pre_cdo_groups",
            "pdi[0] cdo[0] pre_cdo_groups",
        ),
    ] {
        follows(&mut t, &format!("{a}/{from}"), &format!("{a}/{to}"));
    }
    follows(&mut t, "sections/[7] PDI/m_sectionOffset", "[7] PDI");
    follows(&mut t, "sections/[7] PDI", "[7] PDI");
}

// ---------------------------------------------------------------------
// XCLBINs written here
// ---------------------------------------------------------------------

fn le16(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&(x as u16).to_le_bytes());
}
fn le32(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&(x as u32).to_le_bytes());
}
fn le64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn chars(v: &mut Vec<u8>, s: &str, n: usize) {
    let mut b = s.as_bytes().to_vec();
    b.resize(n, 0);
    v.extend_from_slice(&b);
}
fn pad(v: &mut Vec<u8>, n: usize) {
    v.extend(std::iter::repeat_n(0u8, n));
}
fn align(v: &mut Vec<u8>, a: usize) {
    while !v.len().is_multiple_of(a) {
        v.push(0);
    }
}
fn put32(v: &mut [u8], at: usize, x: u64) {
    v[at..at + 4].copy_from_slice(&(x as u32).to_le_bytes());
}
fn put64(v: &mut [u8], at: usize, x: u64) {
    v[at..at + 8].copy_from_slice(&x.to_le_bytes());
}

const UUID: [u8; 16] = [
    0x3f, 0x1c, 0x9e, 0x20, 0x55, 0x41, 0x4a, 0x2b, 0x8c, 0x6d, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
];
const TIME: u64 = 1_700_000_000; // 2023-11-14 22:13:20 UTC

/// An xclbin of the given (kind, name, payload) sections, each payload
/// 8-aligned after the section table.
fn xclbin(sections: &[(u32, &str, Vec<u8>)]) -> Vec<u8> {
    let n = sections.len();
    let table_end = 0x1C8 + 40 * n;
    let first = table_end.next_multiple_of(8);
    let mut offsets = Vec::new();
    let mut pos = first;
    for (_, _, d) in sections {
        offsets.push(pos);
        pos = (pos + d.len()).next_multiple_of(8);
    }
    let mut v = Vec::new();
    v.extend_from_slice(b"xclbin2\0");
    le32(&mut v, u32::MAX as u64); // -1: no signature
    v.extend(std::iter::repeat_n(0xFFu8, 28 + 256));
    le64(&mut v, 0x1234_5678);
    le64(&mut v, pos as u64); // m_length
    le64(&mut v, TIME);
    le64(&mut v, 0);
    le16(&mut v, 7); // patch
    v.push(2);
    v.push(14);
    le16(&mut v, 0); // XCLBIN_FLAT
    le16(&mut v, 3); // AM_LOAD_AIE | AM_LOAD_PDI
    pad(&mut v, 16);
    chars(&mut v, "xilinx_u250_gen3x16_xdma_4_1_202210_1", 64);
    v.extend_from_slice(&UUID);
    chars(&mut v, "debug.bin", 16);
    le32(&mut v, n as u64);
    pad(&mut v, 4);
    assert_eq!(v.len(), 0x1C8);
    for ((kind, sname, d), o) in sections.iter().zip(&offsets) {
        le32(&mut v, u64::from(*kind));
        chars(&mut v, sname, 16);
        pad(&mut v, 4);
        le64(&mut v, *o as u64);
        le64(&mut v, d.len() as u64);
    }
    for ((_, _, d), o) in sections.iter().zip(&offsets) {
        v.resize(*o, 0);
        v.extend_from_slice(d);
    }
    v.resize(pos, 0);
    v
}

fn mem_topology() -> Vec<u8> {
    let mut v = Vec::new();
    le32(&mut v, 3);
    pad(&mut v, 4);
    for (ty, used, kib, base, tag) in [
        (1u8, 1u8, 16u64 << 20, 0x40_0000_0000u64, "DDR[0]"),
        (1, 0, 16 << 20, 0x50_0000_0000, "DDR[1]"),
        (7, 1, 128, 0x3000_0000, "PLRAM[0]"),
    ] {
        v.push(ty);
        v.push(used);
        pad(&mut v, 6);
        le64(&mut v, kib);
        le64(&mut v, base);
        chars(&mut v, tag, 16);
    }
    v
}

fn ip_layout() -> Vec<u8> {
    let mut v = Vec::new();
    le32(&mut v, 2);
    pad(&mut v, 4);
    // krnl_a: interrupt enabled, id 3, AP_CTRL_CHAIN.
    for (ty, props, base, n) in [
        (1u64, 0x0107u64, 0x180_0000u64, "krnl_a:krnl_a_1"),
        (1, 0x0000, 0x181_0000, "krnl_b:krnl_b_1"),
    ] {
        le32(&mut v, ty);
        le32(&mut v, props);
        le64(&mut v, base);
        chars(&mut v, n, 64);
    }
    v
}

fn connectivity() -> Vec<u8> {
    let mut v = Vec::new();
    le32(&mut v, 3);
    for (a, ip, mem) in [(0u64, 0u64, 0u64), (1, 0, 2), (0, 1, 1)] {
        le32(&mut v, a);
        le32(&mut v, ip);
        le32(&mut v, mem);
    }
    v
}

fn clock_freq_topology() -> Vec<u8> {
    let mut v = Vec::new();
    le16(&mut v, 3);
    for (mhz, ty, n) in [
        (300u64, 1u8, "DATA_CLK"),
        (500, 2, "KERNEL_CLK"),
        (100, 3, "SYSTEM_CLK"),
    ] {
        le16(&mut v, mhz);
        v.push(ty);
        pad(&mut v, 5);
        chars(&mut v, n, 128);
    }
    v
}

fn debug_ip_layout() -> Vec<u8> {
    let mut v = Vec::new();
    le16(&mut v, 3);
    pad(&mut v, 6);
    for (ty, index, props, major, minor, base, n) in [
        (
            3u8,
            0x0102u16,
            0x80u8,
            1u8,
            2u8,
            0x180_2000u64,
            "krnl_a_1/m_axi_gmem-DDR[0]",
        ),
        (7, 5, 0, 1, 0, 0x180_3000, "krnl_a_1"),
        (10, 0x300, 0, 1, 1, 0x180_4000, "trace_s2mm"),
    ] {
        v.push(ty);
        v.push(index as u8);
        v.push(props);
        v.push(major);
        v.push(minor);
        v.push((index >> 8) as u8);
        pad(&mut v, 2);
        le64(&mut v, base);
        chars(&mut v, n, 128);
    }
    v
}

/// A minimal but valid ELF64 header: the image a soft kernel carries.
fn tiny_elf() -> Vec<u8> {
    let mut v = b"\x7fELF\x02\x01\x01".to_vec();
    pad(&mut v, 9);
    le16(&mut v, 2); // ET_EXEC
    le16(&mut v, 183); // EM_AARCH64
    le32(&mut v, 1);
    le64(&mut v, 0); // entry
    le64(&mut v, 0); // phoff
    le64(&mut v, 0); // shoff
    le32(&mut v, 0);
    le16(&mut v, 64);
    le16(&mut v, 56);
    le16(&mut v, 0);
    le16(&mut v, 64);
    le16(&mut v, 0);
    le16(&mut v, 0);
    v
}

fn soft_kernel() -> Vec<u8> {
    let mut v = vec![0u8; 80];
    let name = v.len();
    v.extend_from_slice(b"sk_scale\0");
    let version = v.len();
    v.extend_from_slice(b"1.0.2\0");
    let md5 = v.len();
    v.extend_from_slice(b"0123456789abcdef0123456789abcdef\0");
    let symbol = v.len();
    v.extend_from_slice(b"kernel_init\0");
    align(&mut v, 8);
    let image = v.len();
    let elf = tiny_elf();
    v.extend_from_slice(&elf);
    for (at, x) in [
        (0, name),
        (4, image),
        (8, elf.len()),
        (12, version),
        (16, md5),
        (20, symbol),
        (24, 4),
    ] {
        put32(&mut v, at, x as u64);
    }
    v
}

/// Where the fields of the AIE partition written here are.
struct Aie {
    bytes: Vec<u8>,
    group: usize,
}

fn aie_partition() -> Aie {
    let mut v = vec![0u8; 184];
    let name = v.len();
    v.extend_from_slice(b"npu_partition\0");
    let commit = v.len();
    v.extend_from_slice(b"c0ffee\0");
    align(&mut v, 2);
    let cols = v.len();
    for c in [1u64, 5] {
        le16(&mut v, c);
    }
    align(&mut v, 8);
    let image = v.len();
    v.extend(std::iter::repeat_n(0xA5u8, 100));
    let gname = v.len();
    v.extend_from_slice(b"DPU_GROUP\0");
    align(&mut v, 8);
    let kernels = v.len();
    le64(&mut v, 0x100);
    le64(&mut v, 0x101);
    let pre = v.len();
    le32(&mut v, 7);
    align(&mut v, 8);
    let group = v.len();
    le32(&mut v, gname as u64);
    v.push(1); // CT_PRIMARY
    pad(&mut v, 3);
    le64(&mut v, 0x42);
    le32(&mut v, 2);
    le32(&mut v, kernels as u64);
    le32(&mut v, 1);
    le32(&mut v, pre as u64);
    pad(&mut v, 64);
    let pdi = v.len();
    v.extend_from_slice(&UUID);
    le32(&mut v, 100);
    le32(&mut v, image as u64);
    le32(&mut v, 1);
    le32(&mut v, group as u64);
    pad(&mut v, 64);
    put32(&mut v, 4, name as u64);
    put32(&mut v, 8, 2048);
    put64(&mut v, 0x10, 0xfeed);
    v[0x20] = 4; // column width
    put32(&mut v, 0x28, 2);
    put32(&mut v, 0x2C, cols as u64);
    put32(&mut v, 0x78, 1);
    put32(&mut v, 0x7C, pdi as u64);
    put32(&mut v, 0x80, commit as u64);
    Aie { bytes: v, group }
}

const XML: &str = r#"<?xml version="1.0"?>
<project name="written"><platform><device name="fpga0"><core name="OCL_REGION_0">
<kernel name="krnl_a" language="c"><instance name="krnl_a_1"/></kernel>
<kernel name="krnl_b" language="c"><instance name="krnl_b_1"/></kernel>
</core></device></platform></project>
"#;

const BUILD: &str = r#"{"build_metadata": {"xclbin": {"generated_by": {"name": "v++", "version": "2023.2"}, "packaged_by": {"name": "xclbinutil"}}, "list": [1, 2.5, true, null]}}"#;

/// 24 MiB: the size of a real Alveo bitstream.
const BITSTREAM: usize = 24 << 20;
const UNKNOWN_KIND: u32 = 77;

fn written() -> Vec<u8> {
    let mut bit = vec![0u8; BITSTREAM];
    for (i, b) in bit.iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3];
    }
    xclbin(&[
        (6, "mem_topology", mem_topology()),
        (8, "ip_layout", ip_layout()),
        (7, "connectivity", connectivity()),
        (11, "clocks", clock_freq_topology()),
        (9, "debug_ip", debug_ip_layout()),
        (2, "metadata", XML.as_bytes().to_vec()),
        (14, "build", BUILD.as_bytes().to_vec()),
        (23, "soft_kernel", soft_kernel()),
        (32, "aie_partition", aie_partition().bytes),
        (UNKNOWN_KIND, "mystery", b"\x01\x02\x03\x04\x05".to_vec()),
        (0, "bitstream", bit),
    ])
}

/// Writes `bytes` where the tests keep temporary files; returns the path.
fn write_tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let p = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{}_{name}.xclbin", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn written_xclbin_matches_xrt_and_what_was_written() {
    let bytes = written();
    let path = write_tmp("written", &bytes);
    let start = std::time::Instant::now();
    let j = json_of(&path);
    let took = start.elapsed();
    assert!(
        took.as_secs() < 20,
        "fwview --json took {took:?} on a {} MiB xclbin",
        bytes.len() >> 20
    );
    if let Some(tool) = xrt_dump() {
        compare_with_xrt(&xrt_read(tool, &path), &j, "written");
    }
    check_ranges(&j["root"]);
    let root = &j["root"];
    assert!(diags(&j, "error").is_empty(), "{:?}", diags(&j, "error"));
    let nested = nested_ranges(&j);
    let warnings: Vec<(u64, String)> = diags(&j, "warning")
        .into_iter()
        .filter(|(at, _)| !nested.iter().any(|(o, e)| (*o..*e).contains(at)))
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    // An unknown kind occurs in valid files (newer tools write kinds this
    // reader does not know): an info at its header.
    let infos = diags(&j, "info");
    assert!(
        infos
            .iter()
            .any(|(at, m)| *at == 0x1C8 + 40 * 9 && m.contains("unknown section kind 77")),
        "{infos:?}"
    );

    // Header.
    assert_eq!(
        val(get(root, "header/m_length")),
        format!("{} (0x{:x})", bytes.len(), bytes.len())
    );
    assert_eq!(
        val(get(root, "header/m_timeStamp")),
        "1700000000 (2023-11-14 22:13:20 UTC)"
    );
    assert_eq!(val(get(root, "header/version")), "2.14.7");
    assert_eq!(val(get(root, "header/m_mode")), "0 (XCLBIN_FLAT)");
    assert_eq!(
        val(get(root, "header/m_actionMask")),
        "3 (AM_LOAD_AIE | AM_LOAD_PDI)"
    );
    assert_eq!(
        val(get(root, "header/uuid")),
        "3f1c9e20-5541-4a2b-8c6d-010203040506"
    );
    assert_eq!(val(get(root, "header/m_debug_bin")), "\"debug.bin\"");
    // The numbers behind the values, for scripts: what was written.
    let raw = |p: &str| get(root, p)["raw"].clone();
    assert_eq!(raw("header/m_length"), bytes.len() as u64);
    assert_eq!(raw("header/m_timeStamp"), TIME);
    assert_eq!(raw("header/m_mode"), 0);
    assert_eq!(raw("header/m_actionMask"), 3);
    assert_eq!(raw("m_signature_length"), -1);
    assert_eq!(raw("header/uuid"), Value::Null);
    assert_eq!(raw("header/m_debug_bin"), Value::Null);
    assert_eq!(
        val(get(root, "sections/[9] kind 77/m_sectionKind")),
        "77 (unknown)"
    );
    assert_eq!(
        val(get(root, "sections/[3] CLOCK_FREQ_TOPOLOGY/m_sectionKind")),
        "11 (CLOCK_FREQ_TOPOLOGY)"
    );

    // CLOCK_FREQ_TOPOLOGY: entries right after the 2-byte count.
    let clocks = get(payload(&j, 3), "m_clock_freq");
    let got: Vec<(String, &str, &str, u64)> = kids(clocks)
        .into_iter()
        .map(|c| {
            (
                name(c).to_string(),
                val(get(c, "m_freq_Mhz")),
                val(get(c, "m_type")),
                off(c),
            )
        })
        .collect();
    let base = off(payload(&j, 3));
    assert_eq!(
        got,
        vec![
            (
                "[0] DATA_CLK".to_string(),
                "300 MHz",
                "1 (CT_DATA)",
                base + 2
            ),
            (
                "[1] KERNEL_CLK".to_string(),
                "500 MHz",
                "2 (CT_KERNEL)",
                base + 2 + 136
            ),
            (
                "[2] SYSTEM_CLK".to_string(),
                "100 MHz",
                "3 (CT_SYSTEM)",
                base + 2 + 272
            ),
        ]
    );

    // DEBUG_IP_LAYOUT.
    let dbg = get(payload(&j, 4), "m_debug_ip_data");
    assert_eq!(kids(dbg).len(), 3);
    let first = &kids(dbg)[0];
    assert_eq!(name(first), "[0] krnl_a_1/m_axi_gmem-DDR[0]");
    assert_eq!(val(get(first, "m_type")), "3 (AXI_MM_MONITOR)");
    assert_eq!(val(get(first, "m_index_lowbyte")), "2");
    assert_eq!(val(get(first, "m_index_highbyte")), "1");
    assert_eq!(val(get(first, "m_properties")), "0x80");
    assert_eq!(val(get(first, "m_base_address")), "0x1802000");
    assert!(
        val(first).contains("AXI_MM_MONITOR index 258, version 1.2"),
        "{}",
        val(first)
    );
    assert_eq!(val(get(kids(dbg)[1], "m_type")), "7 (ACCEL_MONITOR)");
    assert_eq!(val(get(kids(dbg)[2], "m_type")), "10 (TRACE_S2MM)");
    assert!(val(kids(dbg)[2]).contains("index 768"));

    // IP_LAYOUT properties and CONNECTIVITY resolved.
    let a = get(payload(&j, 1), "m_ip_data/[0] krnl_a:krnl_a_1");
    assert_eq!(val(get(a, "m_type")), "1 (IP_KERNEL)");
    assert_eq!(
        val(get(a, "properties")),
        "0x00000107 (interrupt enabled, id 3, AP_CTRL_CHAIN)"
    );
    assert_eq!(val(get(a, "properties/m_ip_control")), "1 (AP_CTRL_CHAIN)");
    let c = get(payload(&j, 2), "m_connection/[1]");
    assert_eq!(val(c), "arg 1: krnl_a:krnl_a_1 -> PLRAM[0]");
    assert_eq!(val(get(c, "mem_data_index")), "2 -> \"PLRAM[0]\"");
    let m = get(payload(&j, 0), "m_mem_data/[2] PLRAM[0]");
    assert_eq!(val(get(m, "m_type")), "7 (MEM_BRAM)");
    assert_eq!(val(get(m, "m_size")), "128 (0x80) KiB");
    assert_eq!(
        val(get(payload(&j, 0), "m_mem_data/[0] DDR[0]/m_size")),
        "16777216 (0x1000000) KiB (16 GiB)"
    );

    // JSON metadata.
    let b = payload(&j, 6);
    assert_eq!(
        val(get(b, "build_metadata/xclbin/generated_by/version")),
        "\"2023.2\""
    );
    assert_eq!(val(get(b, "build_metadata/list")), "array, 4 elements");
    assert_eq!(val(get(b, "build_metadata/list/[1]")), "2.5");
    assert_eq!(val(get(b, "build_metadata/list/[3]")), "null");

    // SOFT_KERNEL: strings resolved, image found.
    let sk = payload(&j, 7);
    assert_eq!(val(get(sk, "soft_kernel")), "\"sk_scale\"");
    assert_eq!(
        val(get(sk, "soft_kernel/mpo_symbol_name")),
        "0x80 -> \"kernel_init\""
    );
    assert_eq!(val(get(sk, "soft_kernel/m_num_instances")), "4");
    let img = get(sk, "image");
    assert_eq!(size(img), 64);
    assert_eq!(&bytes[off(img) as usize..off(img) as usize + 4], b"\x7fELF");

    // AIE_PARTITION written here.
    let aie = payload(&j, 8);
    assert_eq!(
        val(get(aie, "aie_partition")),
        "\"npu_partition\", column width 4, start columns [1, 5], 1 PDI"
    );
    assert_eq!(
        val(get(aie, "aie_partition/kernel_commit_id")),
        "0xc6 -> \"c0ffee\""
    );
    assert_eq!(
        val(get(aie, "pdi[0] cdo_groups/[0] DPU_GROUP")),
        "CT_PRIMARY, pdi_id 0x42, kernel ids [0x100, 0x101], pre-groups [7]"
    );
    assert_eq!(size(get(aie, "pdi[0] image")), 100);

    // The unknown kind: raw bytes, nothing decoded.
    let u = payload(&j, 9);
    assert_eq!(name(u), "[9] kind 77");
    assert_eq!(size(u), 5);
    assert!(kids(u).is_empty());

    // The bitstream: one node of its full size.
    let bit = payload(&j, 10);
    assert_eq!(name(bit), "[10] BITSTREAM");
    assert_eq!(size(bit), BITSTREAM as u64);
    assert_eq!(off(bit) + size(bit), bytes.len() as u64);
    let _ = std::fs::remove_file(path);
}

#[test]
fn written_xclbin_links_and_nests() {
    let mut t = common::tree::expanded(written());
    // The soft kernel's image is an ELF, opened as one.
    let img = t.find_path("[7] SOFT_KERNEL/image").unwrap();
    assert_eq!(t.node_format(img), Some(Format::Elf));
    follows(
        &mut t,
        "[7] SOFT_KERNEL/soft_kernel/m_image_offset",
        "[7] SOFT_KERNEL/image",
    );
    assert_eq!(
        link_target(&mut t, "[7] SOFT_KERNEL/soft_kernel/mpo_version"),
        "[7] SOFT_KERNEL/str +0x59"
    );
    assert_eq!(
        link_target(&mut t, "sections/[10] BITSTREAM"),
        "[10] BITSTREAM"
    );
    assert_eq!(
        link_target(
            &mut t,
            "[2] CONNECTIVITY/m_connection/[2]/m_ip_layout_index"
        ),
        "[1] IP_LAYOUT/m_ip_data/[1] krnl_b:krnl_b_1"
    );
}

// ---------------------------------------------------------------------
// Corruptions: each diagnostic, at the offending bytes
// ---------------------------------------------------------------------

/// Offsets of the sections of `written()`.
fn offsets_of(d: &[u8]) -> Vec<usize> {
    section_table(d).iter().map(|e| e.1).collect()
}

fn diagnostics(bytes: Vec<u8>) -> Vec<(Severity, u64, String)> {
    let t = common::tree::expanded(bytes);
    t.diagnostics()
        .iter()
        .map(|d| (d.severity, d.span.offset, d.message.clone()))
        .collect()
}

#[track_caller]
fn expect(bytes: Vec<u8>, sev: Severity, at: u64, words: &str) {
    let ds = diagnostics(bytes);
    assert!(
        ds.iter()
            .any(|(s, o, m)| *s == sev && *o == at && m.contains(words)),
        "no {sev:?} at 0x{at:x} saying {words:?}; got {ds:#?}"
    );
}

/// A smaller version of `written()` (no big bitstream) for corruptions.
fn small() -> Vec<u8> {
    xclbin(&[
        (6, "mem_topology", mem_topology()),
        (8, "ip_layout", ip_layout()),
        (7, "connectivity", connectivity()),
        (11, "clocks", clock_freq_topology()),
        (9, "debug_ip", debug_ip_layout()),
        (23, "soft_kernel", soft_kernel()),
        (32, "aie_partition", aie_partition().bytes),
        (0, "bitstream", vec![0xAB; 4096]),
    ])
}

#[test]
fn the_small_xclbin_is_clean() {
    let path = write_tmp("small", &small());
    let j = json_of(&path);
    let _ = std::fs::remove_file(path);
    assert!(diags(&j, "error").is_empty(), "{:?}", diags(&j, "error"));
    // Only the soft kernel's ELF is another decoder's business.
    let nested = nested_ranges(&j);
    for (at, m) in diags(&j, "warning").into_iter().chain(diags(&j, "info")) {
        assert!(
            nested.iter().any(|(o, e)| (o..e).contains(&&at)),
            "0x{at:x}: {m}"
        );
    }
}

#[test]
fn m_length_is_checked_against_the_file() {
    let mut d = small();
    let len = d.len() as u64;
    put64(&mut d, 0x130, len + 64);
    expect(d, Severity::Error, 0x130, "truncated");
    let mut d = small();
    put64(&mut d, 0x130, len - 8);
    expect(d, Severity::Warning, 0x130, "8 bytes follow");
}

#[test]
fn sections_outside_the_file_or_overlapping_are_errors() {
    let d0 = small();
    let len = d0.len() as u64;
    let mut d = d0.clone();
    put64(&mut d, 0x1C8 + 40 * 7 + 0x18, len + 0x100);
    expect(
        d,
        Severity::Error,
        0x1C8 + 40 * 7 + 0x18,
        "outside the file",
    );
    let mut d = d0.clone();
    put64(&mut d, 0x1C8 + 40 * 7 + 0x20, len); // size runs past the end
    expect(
        d,
        Severity::Error,
        0x1C8 + 40 * 7 + 0x18,
        "outside the file",
    );
    // Section [1] moved 8 bytes into section [0].
    let mut d = d0.clone();
    let o = offsets_of(&d0);
    put64(&mut d, 0x1C8 + 40 + 0x18, o[0] as u64 + 8);
    expect(
        d,
        Severity::Error,
        o[0] as u64 + 8,
        "[0] MEM_TOPOLOGY and [1] IP_LAYOUT overlap",
    );
    // A section inside the header.
    let mut d = d0.clone();
    put64(&mut d, 0x1C8 + 0x18, 0x100);
    expect(
        d,
        Severity::Error,
        0x1C8 + 0x18,
        "xclbin header or section table",
    );
    // Too many sections.
    let mut d = d0.clone();
    put32(&mut d, 0x1C0, 0x20000);
    expect(d.clone(), Severity::Error, 0x1C0, "at most 65536");
    expect(d, Severity::Error, 0x1C0, "room for");
}

#[test]
fn counts_that_do_not_fit_are_errors() {
    let d0 = small();
    let o = offsets_of(&d0);
    for (i, at, width, what) in [
        (0usize, 0usize, 4usize, "m_count 1000"),
        (1, 0, 4, "m_count 1000"),
        (2, 0, 4, "m_count 1000"),
        (3, 0, 2, "m_count 1000"),
        (4, 0, 2, "m_count 1000"),
    ] {
        let mut d = d0.clone();
        d[o[i] + at..o[i] + at + width].copy_from_slice(&1000u32.to_le_bytes()[..width]);
        expect(d, Severity::Error, (o[i] + at) as u64, what);
    }
    let mut d = d0.clone();
    put32(&mut d, o[1], u32::MAX as u64);
    expect(d, Severity::Error, o[1] as u64, "negative");
}

#[test]
fn array_and_string_offsets_outside_their_section_are_errors() {
    let d0 = small();
    let o = offsets_of(&d0);
    let aie = o[6];
    let group = aie + aie_partition().group;
    for (field, value, words) in [
        (
            aie + 0x7C,
            0x7FFF_0000u64,
            "aie_partition.aie_pdi: array offset 0x7fff0000 lies outside",
        ),
        (aie + 0x2C, 0x7FFF_0000, "start_columns: array offset"),
        (
            group + 20,
            0x7FFF_0000,
            "cdo_groups[0].dpu_kernel_ids: array offset",
        ),
        (
            group + 28,
            0x7FFF_0000,
            "cdo_groups[0].pre_cdo_groups: array offset",
        ),
    ] {
        let mut d = d0.clone();
        put32(&mut d, field, value);
        expect(d, Severity::Error, field as u64 - 4, words);
    }
    // A count that runs past the section.
    let mut d = d0.clone();
    put32(&mut d, aie + 0x78, 1000);
    expect(
        d,
        Severity::Error,
        aie as u64 + 0x78,
        "1000 entries of 96 bytes",
    );
    // String offsets.
    for (field, words) in [
        (aie + 4, "aie_partition.mpo_name: string offset 0xffffff"),
        (aie + 0x80, "aie_partition.kernel_commit_id: string offset"),
        (group, "cdo_groups[0].mpo_name: string offset"),
        (o[5] + 20, "soft_kernel.mpo_symbol_name: string offset"),
    ] {
        let mut d = d0.clone();
        put32(&mut d, field, 0xFF_FFFF);
        expect(d, Severity::Error, field as u64, words);
    }
    // An image outside its section.
    let mut d = d0.clone();
    put32(&mut d, o[5] + 8, 0x10_0000);
    expect(d, Severity::Error, o[5] as u64 + 4, "soft_kernel image");
}

#[test]
fn connectivity_indices_out_of_range_are_reported() {
    let d0 = small();
    let o = offsets_of(&d0);
    let entry = o[2] + 4 + 12; // connection [1]
    let mut d = d0.clone();
    put32(&mut d, entry + 4, 9);
    expect(
        d,
        Severity::Warning,
        entry as u64 + 4,
        "m_ip_layout_index 9 is out of range; IP_LAYOUT has 2",
    );
    let mut d = d0.clone();
    put32(&mut d, entry + 8, u32::MAX as u64);
    expect(
        d,
        Severity::Warning,
        entry as u64 + 8,
        "mem_data_index -1 is out of range; MEM_TOPOLOGY has 3",
    );
}

#[test]
fn unknown_kinds_and_signatures() {
    let mut d = small();
    put32(&mut d, 0x1C8 + 40 * 7, 1234);
    expect(
        d.clone(),
        Severity::Info,
        0x1C8 + 40 * 7,
        "unknown section kind 1234",
    );
    assert_eq!(
        diagnostics(d)
            .iter()
            .filter(|e| e.0 == Severity::Error)
            .count(),
        0
    );
    // A signed xclbin: the signature at the end, counted in m_length.
    let mut d = small();
    let len = d.len() as u64;
    d.extend_from_slice(&[0x30; 16]);
    put32(&mut d, 8, 16);
    put64(&mut d, 0x130, len + 16);
    let mut t = common::tree::expanded(d);
    assert!(t.diagnostics().is_empty(), "{:?}", t.diagnostics());
    let s = t.find_path("signature").unwrap();
    assert_eq!(
        (t.node(s).unwrap().offset, t.node(s).unwrap().size),
        (len, 16)
    );
    let s = t.find_path("m_signature_length").unwrap();
    assert_eq!(t.value_text(s).as_deref(), Some("16 bytes (signed)"));
}

#[test]
fn truncated_and_mangled_files_never_panic() {
    let base = small();
    for cut in [
        9usize,
        0x40,
        0x130,
        0x1C7,
        0x1C8,
        0x1F0,
        0x300,
        base.len() / 2,
        base.len() - 1,
    ] {
        let ds = diagnostics(base[..cut].to_vec());
        assert!(
            ds.iter().any(|d| d.0 == Severity::Error),
            "cut at {cut}: {ds:?}"
        );
    }
    // Deterministic byte flips over the samples and the written file.
    let mut files: Vec<Vec<u8>> = common::samples_in("xclbin", "xclbin")
        .iter()
        .filter(|p| std::fs::metadata(p).unwrap().len() < 100_000)
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    files.push(base);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for f in &files {
        for _ in 0..25 {
            let mut d = f.clone();
            for _ in 0..8 {
                // Mostly the header and section table, some anywhere.
                let r = next() as usize;
                let at = 8 + if r.is_multiple_of(3) {
                    r % (d.len() - 8)
                } else {
                    r % 0x3F8
                };
                d[at] = next() as u8;
            }
            let t = common::tree::expanded(d);
            assert!(t.len() > 1);
        }
    }
}

#[test]
fn the_largest_sample_opens_in_milliseconds() {
    let s = common::samples_in("xclbin", "xclbin")
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let bytes = std::fs::read(&s).unwrap();
    let start = std::time::Instant::now();
    let t = build_from_bytes(bytes);
    let took = start.elapsed();
    eprintln!("{}: opened in {took:?} ({} nodes)", s.display(), t.len());
    // Generous for unoptimised test builds; release opens it in about a millisecond.
    assert!(took.as_millis() < 1000, "{took:?}");
}

/// xclbinutil's mirror data after the last section: its markers and JSON
/// found here with a plain search, every `section_header` of the JSON (read
/// with serde_json's event-free reader, duplicates kept) equal to the
/// section table, and one changed value a warning at that value.
#[test]
fn mirror_data_is_decoded_and_checked_against_the_section_table() {
    const START: &[u8] = b"XCLBIN_MIRROR_DATA_START";
    const END: &[u8] = b"XCLBIN_MIRROR_DATA_END";
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    for s in common::samples_in("xclbin", "xclbin") {
        let d = std::fs::read(&s).unwrap();
        let a = memchr::memmem::rfind(&d, START).expect("every sample has mirror data");
        let e = memchr::memmem::rfind(&d, END).unwrap() + END.len();
        let j = json_of(&s);
        let m = find(&j["root"], "mirror data").expect("a mirror data node");
        assert_eq!(
            (m["offset"].as_u64().unwrap(), m["size"].as_u64().unwrap()),
            (a as u64, (e - a) as u64)
        );
        assert_eq!(get(m, "start marker")["size"], START.len());
        assert_eq!(get(m, "end marker")["offset"], e - END.len());
        // What the JSON says, read here: the section headers in order.
        let text = std::str::from_utf8(&d[a + START.len()..e - END.len()]).unwrap();
        let mut headers = Vec::new();
        let mut rest = text;
        while let Some(p) = rest.find("\"section_header\":") {
            rest = &rest[p + "\"section_header\":".len()..];
            let mut de = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            let v = de.next().unwrap().unwrap();
            headers.push(v);
            rest = &rest[de.byte_offset()..];
        }
        let table = section_table(&d);
        assert_eq!(headers.len(), table.len(), "{}", s.display());
        for (h, (kind, off, size)) in headers.iter().zip(&table) {
            assert_eq!(h["Kind"].as_str().unwrap().parse::<u32>().unwrap(), *kind);
            assert_eq!(hex(h["Offset"].as_str().unwrap()), *off as u64);
            assert_eq!(hex(h["Size"].as_str().unwrap()), *size as u64);
        }
        // The JSON is a tree of the same members.
        let doc: Value = serde_json::from_str(text).unwrap();
        let tops: Vec<&str> = kids(get(m, "json"))
            .into_iter()
            .map(name)
            .filter(|n| *n != "section_header")
            .collect();
        let want: Vec<&str> = doc
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|n| *n != "section_header")
            .collect();
        let mut tops = tops;
        tops.sort_unstable();
        assert_eq!(tops, want);
        let mirror_diags: Vec<_> = j["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["message"].as_str().unwrap().contains("mirror"))
            .collect();
        assert!(mirror_diags.is_empty(), "{mirror_diags:?}");
    }
    // One Offset changed in the mirror: a warning at that value.
    let s = &common::samples_in("xclbin", "xclbin")[0];
    let mut d = std::fs::read(s).unwrap();
    let a = memchr::memmem::rfind(&d, START).unwrap();
    let key = b"\"Offset\":\"";
    let v = a + memchr::memmem::find(&d[a..], key).unwrap() + key.len();
    let c = d[v + 2];
    d[v + 2] = if c == b'1' { b'2' } else { b'1' };
    let t = build_from_bytes(d);
    let w: Vec<_> = t
        .diagnostics()
        .iter()
        .filter(|g| g.message.contains("mirror data"))
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].severity, fwview::model::Severity::Warning);
    assert_eq!(
        w[0].span.offset as usize,
        v - 1,
        "at the value, its quote included"
    );
}

/// `--targets` lists what an xclbin configures: an NPU's AIE partitions
/// (one line each, at the section XRT lists as kind 32), or the platform
/// an FPGA xclbin is built for, by the VBNV XRT reads.
#[test]
fn targets_name_the_platform_or_the_aie_partitions() {
    let Some(tool) = xrt_dump() else { return };
    for s in common::samples_in("xclbin", "xclbin") {
        let what = s.file_name().unwrap().to_string_lossy().into_owned();
        let x = xrt_read(tool, &s);
        let out = common::fwview(&["--targets".as_ref(), s.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{what}");
        let lines: Vec<Vec<String>> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').map(String::from).collect())
            .collect();
        let partitions: Vec<String> = x
            .sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.0 == 32)
            .map(|(i, _)| format!("[{i}] AIE_PARTITION"))
            .collect();
        if partitions.is_empty() {
            let xsa = if x.xsa.is_empty() { "-" } else { &x.xsa };
            assert_eq!(lines, [["xclbin", xsa, "fpga", "/"]], "{what}");
            continue;
        }
        assert_eq!(lines.len(), partitions.len(), "{what}");
        for (l, p) in lines.iter().zip(&partitions) {
            assert_eq!(
                (l[0].as_str(), l[2].as_str(), &l[3]),
                ("pdi", "npu", p),
                "{what}"
            );
            let gen = l[1].split(' ').next().unwrap_or("");
            assert!(["aie2", "aie2p"].contains(&gen), "{what}: {}", l[1]);
            assert!(l[1].contains(" column"), "{what}: {}", l[1]);
        }
    }
}

/// XRT's `mem_topology` (xclbin.h) as a `.ksy` a user would write.
const MEM_TOPOLOGY_KSY: &str = r#"meta: {id: mem_topology, endian: le}
seq:
  - {id: m_count, type: s4}
  - {id: pad, size: 4}
  - {id: m_mem_data, type: mem_data, repeat: expr, repeat-expr: m_count}
types:
  mem_data:
    seq:
      - {id: m_type, type: u1}
      - {id: m_used, type: u1}
      - {id: padding, size: 6}
      - {id: m_size, type: u8}
      - {id: m_base_address, type: u8}
      - {id: m_tag, type: strz, size: 16, encoding: ASCII}
"#;

/// A formats folder's binding of an XCLBIN section kind (by name or
/// number) opens every such section with the description, in place: each
/// memory bank of the group topology (what XRT lists) where XRT reads it,
/// with XRT's values; the memory topology (kind 6, same layout) likewise
/// at the offset XRT gives.
#[test]
fn a_binding_opens_an_xclbin_section_kind_with_its_description() {
    let Some(tool) = xrt_dump() else { return };
    let dir = common::scratch();
    let formats = dir.path().join("formats");
    std::fs::create_dir_all(&formats).unwrap();
    std::fs::write(formats.join("mem.ksy"), MEM_TOPOLOGY_KSY).unwrap();
    std::fs::write(
        formats.join("bindings.yaml"),
        "xclbin:\n  ASK_GROUP_TOPOLOGY: mem.ksy\n  6: mem.ksy\n",
    )
    .unwrap();
    let mut checked = 0;
    for s in common::samples_in("xclbin", "xclbin") {
        let what = s.file_name().unwrap().to_string_lossy().into_owned();
        let x = xrt_read(tool, &s);
        let Some((i, sec)) = x.sections.iter().enumerate().find(|(_, s)| s.0 == 26) else {
            continue;
        };
        if x.mems.is_empty() {
            continue;
        }
        let o = common::fwview(&[
            "--formats".as_ref(),
            formats.as_os_str(),
            "--json".as_ref(),
            s.as_os_str(),
        ]);
        assert!(o.status.success(), "{what}");
        let j: Value = common::contract::parse(&o.stdout).expect("JSON");
        if let Some((k, mem)) = x.sections.iter().enumerate().find(|(_, s)| s.0 == 6) {
            let p = payload(&j, k);
            assert_eq!(off(get(p, "m_count")), mem.2, "{what}");
            assert_eq!(off(get(p, "m_mem_data")), mem.2 + 8, "{what}");
        }
        let p = payload(&j, i);
        assert_eq!(off(p), sec.2, "{what}");
        assert_eq!(off(get(p, "m_count")), sec.2, "{what}");
        let banks = common::json::items(get(p, "m_mem_data"));
        // XRT lists the banks in use, each with its index.
        assert!(banks.len() >= x.mems.len(), "{what}");
        for m in &x.mems {
            let b = banks[m.0 as usize];
            let at = sec.2 + 8 + 40 * m.0;
            assert_eq!(off(b), at, "{what} bank {}", m.0);
            assert_eq!(off(get(b, "m_tag")), at + 24, "{what}");
            assert_eq!(unquote(val(get(b, "m_tag"))), m.1, "{what}");
            assert_eq!(get(b, "m_type")["raw"], m.2, "{what}");
            assert_eq!(get(b, "m_used")["raw"], m.3, "{what}");
            assert_eq!(get(b, "m_size")["raw"], m.4, "{what}");
            assert_eq!(get(b, "m_base_address")["raw"], m.5, "{what}");
        }
        checked += 1;
    }
    assert!(checked >= 2, "{checked} samples with memory banks");
}
