//! PDI images and CDO command streams: the PDIs inside the sample xclbins,
//! found by a walk of the xclbin section table written here, checked against
//! a decode of their command words written here too; PDIs the tests build
//! themselves for every generic command, long headers, broken checksums,
//! truncation and unknown commands; the compact record variant.

use crate::common;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fwview::formats::{cdo, pdi};
use fwview::model::{Builder, Format, NodeId, Source, Span, Tree};
use serde_json::Value;

use common::json::{
    self, child, has_child, items, json_of_written, kids, messages as diags, name, path,
    val as value,
};

// ---------------------------------------------------------------------------
// reading words

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

fn words(b: &[u8], o: usize, n: usize) -> Vec<u32> {
    (0..n).map(|i| u32_at(b, o + 4 * i)).collect()
}

// ---------------------------------------------------------------------------
// PDIs in the sample xclbins, found without fwview

#[derive(Debug)]
struct Found {
    file: String,
    /// "PDI" for a PDI section, "AIE#k" for the k-th image of an
    /// AIE_PARTITION.
    what: String,
    bytes: Vec<u8>,
    start_columns: Vec<u16>,
}

fn xclbins() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/xclbin");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xclbin"))
        .collect();
    v.sort();
    v
}

/// The PDI sections (kind 18) and AIE_PARTITION (kind 32) images of one
/// xclbin: header at 0x130, section count at +0x90, 40-byte section headers
/// from 0x1C8.
fn pdis_in(path: &Path) -> Vec<Found> {
    let b = std::fs::read(path).unwrap();
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let n = u32_at(&b, 0x130 + 0x90) as usize;
    let mut out = Vec::new();
    for i in 0..n {
        let h = 0x1c8 + 40 * i;
        let kind = u32_at(&b, h);
        let off = u64_at(&b, h + 0x18) as usize;
        let size = u64_at(&b, h + 0x20) as usize;
        match kind {
            18 => out.push(Found {
                file: file.clone(),
                what: "PDI".into(),
                bytes: b[off..off + size].to_vec(),
                start_columns: vec![],
            }),
            32 => {
                let s = off;
                let (nc, oc) = (u32_at(&b, s + 0x28) as usize, u32_at(&b, s + 0x2c) as usize);
                let cols: Vec<u16> = (0..nc)
                    .map(|k| u16::from_le_bytes([b[s + oc + 2 * k], b[s + oc + 2 * k + 1]]))
                    .collect();
                let (np, op) = (u32_at(&b, s + 0x78) as usize, u32_at(&b, s + 0x7c) as usize);
                for k in 0..np {
                    let a = s + op + 96 * k;
                    let (ni, oi) = (u32_at(&b, a + 16) as usize, u32_at(&b, a + 20) as usize);
                    out.push(Found {
                        file: file.clone(),
                        what: format!("AIE#{k}"),
                        bytes: b[s + oi..s + oi + ni].to_vec(),
                        start_columns: cols.clone(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

fn all_pdis() -> Vec<Found> {
    xclbins().iter().flat_map(|p| pdis_in(p)).collect()
}

/// Partition header offset, CDO offset.
fn locate(p: &[u8]) -> (usize, usize) {
    let ph = 4 * u32_at(p, 0x10 + 0x10) as usize;
    let cdo = 4 * u32_at(p, ph + 0x20) as usize;
    (ph, cdo)
}

fn is_compact(p: &[u8]) -> bool {
    let (ph, _) = locate(p);
    let w = words(p, ph + 0x70, 3);
    w[0] == 1 && w[2] == (w[1] << 16 | 0x8966)
}

/// One command of a standard CDO: offset in the PDI, command word's low
/// half, payload.
#[derive(Debug, Clone, PartialEq)]
struct Cmd {
    off: usize,
    /// Header words: 2 for a long header (length 255 and a length word).
    hl: usize,
    key: u32,
    payload: Vec<u32>,
}

/// The command words of the PDI's CDO, walked from the header's length.
fn decode(p: &[u8]) -> Vec<Cmd> {
    let (_, cdo) = locate(p);
    let len = u32_at(p, cdo + 12) as usize;
    let end = cdo + 20 + 4 * len;
    let mut o = cdo + 20;
    let mut v = Vec::new();
    while o < end {
        let h = u32_at(p, o);
        let (mut n, mut hl) = ((h >> 16 & 0xff) as usize, 1);
        if n == 255 {
            n = u32_at(p, o + 4) as usize;
            hl = 2;
        }
        v.push(Cmd {
            off: o,
            hl,
            key: h & 0xffff,
            payload: words(p, o + 4 * hl, n),
        });
        o += 4 * (hl + n);
    }
    assert_eq!(o, end, "the stream ends at its stated length");
    v
}

/// The columns and rows the commands' addresses name (bits 31..25 and
/// 24..20).
fn tiles(
    cmds: &[Cmd],
) -> (
    std::collections::BTreeSet<u32>,
    std::collections::BTreeSet<u32>,
) {
    let mut cols = std::collections::BTreeSet::new();
    let mut rows = std::collections::BTreeSet::new();
    for c in cmds {
        let a = match c.key {
            0x102 | 0x103 => c.payload[0],
            0x105 => c.payload[1],
            _ => continue,
        };
        cols.insert(a >> 25);
        rows.insert(a >> 20 & 0x1f);
    }
    (cols, rows)
}

fn list(s: &std::collections::BTreeSet<u32>) -> String {
    s.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn key_name(key: u32) -> &'static str {
    match key {
        0x102 => "MASK_WRITE",
        0x103 => "WRITE",
        0x105 => "DMA_WRITE",
        0x111 => "NOP",
        _ => panic!("the samples use four commands, not 0x{key:x}"),
    }
}

// ---------------------------------------------------------------------------
// running fwview

fn off(n: &Value) -> usize {
    json::off(n) as usize
}

fn size(n: &Value) -> usize {
    json::size(n) as usize
}

/// The command name of an item named `[i] NAME`.
fn item_name(n: &Value) -> &str {
    name(n).split_once("] ").unwrap().1
}

/// The leading 0x… number of a value.
fn hexv(s: &str) -> u64 {
    let t = s.trim_start_matches('"');
    let t = t
        .strip_prefix("0x")
        .unwrap_or_else(|| panic!("no hex in {s}"));
    let end = t.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(t.len());
    u64::from_str_radix(&t[..end], 16).unwrap()
}

/// The leading decimal number of a value.
fn decv(s: &str) -> u64 {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s[..end].parse().unwrap()
}

fn cdo_node(j: &Value) -> &Value {
    path(&j["root"], "partitions/[0] CDO")
}

// ---------------------------------------------------------------------------
// the samples

#[test]
fn the_samples_hold_42_pdis_30_of_them_compact() {
    let all = all_pdis();
    assert_eq!(all.len(), 42);
    assert_eq!(all.iter().filter(|f| is_compact(&f.bytes)).count(), 30);
}

#[test]
fn every_standard_pdi_decodes_command_for_command() {
    let mut seen = 0;
    for f in all_pdis().iter().filter(|f| !is_compact(&f.bytes)) {
        let ctx = format!("{} {}", f.file, f.what);
        let want = decode(&f.bytes);
        let j = json_of_written(&f.bytes, "image.pdi");
        assert_eq!(j["format"], "pdi", "{ctx}");
        assert!(
            diags(&j, "error").is_empty(),
            "{ctx}: {:?}",
            diags(&j, "error")
        );
        assert!(
            diags(&j, "warning").is_empty(),
            "{ctx}: {:?}",
            diags(&j, "warning")
        );
        let cdo = cdo_node(&j);
        // The summary counts what the independent walk counts.
        let mut by: BTreeMap<&str, u64> = BTreeMap::new();
        for c in &want {
            *by.entry(key_name(c.key)).or_default() += 1;
        }
        let sc = path(cdo, "summary/commands");
        assert_eq!(decv(value(sc)), want.len() as u64, "{ctx}");
        let got: BTreeMap<&str, u64> = kids(sc).iter().map(|k| (name(k), decv(value(k)))).collect();
        assert_eq!(got, by, "{ctx}");
        let dma: usize = want
            .iter()
            .filter(|c| c.key == 0x105)
            .map(|c| 4 * (c.payload.len() - 2))
            .sum();
        assert_eq!(
            decv(value(path(cdo, "summary/dma_bytes"))),
            dma as u64,
            "{ctx}"
        );
        let (cols, rows) = tiles(&want);
        assert_eq!(
            value(path(cdo, "summary/columns")),
            format!("{} (relative)", list(&cols)),
            "{ctx}"
        );
        assert_eq!(value(path(cdo, "summary/rows")), list(&rows), "{ctx}");
        // Every command is a node at its own bytes, named by its command.
        let cmds = items(child(cdo, "commands"));
        assert_eq!(cmds.len(), want.len(), "{ctx}");
        for (i, (n, c)) in cmds.iter().zip(&want).enumerate() {
            assert_eq!(name(n), format!("[{i}] {}", key_name(c.key)), "{ctx}");
            assert_eq!(off(n), c.off, "{ctx} command {i}");
            assert_eq!(size(n), 4 * (c.hl + c.payload.len()), "{ctx} command {i}");
            assert_eq!(has_child(n, "long_length"), c.hl == 2, "{ctx} command {i}");
            match c.key {
                0x103 => {
                    assert_eq!(hexv(value(child(n, "address"))), u64::from(c.payload[0]));
                    assert_eq!(hexv(value(child(n, "value"))), u64::from(c.payload[1]));
                }
                0x102 => {
                    assert_eq!(hexv(value(child(n, "address"))), u64::from(c.payload[0]));
                    assert_eq!(hexv(value(child(n, "mask"))), u64::from(c.payload[1]));
                    assert_eq!(hexv(value(child(n, "value"))), u64::from(c.payload[2]));
                }
                0x105 => {
                    assert_eq!(
                        hexv(value(child(n, "address_high"))),
                        u64::from(c.payload[0])
                    );
                    assert_eq!(
                        hexv(value(child(n, "address_low"))),
                        u64::from(c.payload[1])
                    );
                    let d = child(n, "data");
                    assert_eq!(off(d), c.off + 4 * c.hl + 8);
                    assert_eq!(size(d), 4 * (c.payload.len() - 2));
                }
                _ => {}
            }
        }
        // The stream ends where its header says: nothing incomplete.
        assert!(
            !has_child(cdo, "incomplete") && !has_child(cdo, "trailing"),
            "{ctx}"
        );
        seen += 1;
    }
    assert_eq!(seen, 12);
}

#[test]
fn color_threshold_has_the_known_counts() {
    let path_ = xclbins()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("color_threshold"))
        .unwrap();
    let f = pdis_in(&path_)
        .into_iter()
        .find(|f| f.what == "PDI")
        .unwrap();
    let j = json_of_written(&f.bytes, "image.pdi");
    let sc = path(cdo_node(&j), "summary/commands");
    for (n, c) in [
        ("WRITE", 148),
        ("MASK_WRITE", 18),
        ("DMA_WRITE", 52),
        ("NOP", 51),
    ] {
        assert_eq!(decv(value(child(sc, n))), c, "{n}");
    }
    assert_eq!(kids(sc).len(), 4);
    // The CDO ends exactly at the section's end.
    let cmds = path(cdo_node(&j), "commands");
    assert_eq!(off(cmds) + size(cmds), f.bytes.len());
}

#[test]
fn headers_are_decoded_with_their_checksums() {
    let f = all_pdis().into_iter().find(|f| f.what == "AIE#0").unwrap();
    let j = json_of_written(&f.bytes, "image.pdi");
    let r = &j["root"];
    assert!(value(child(r, "selectmap")).contains("32-bit bus"));
    let t = child(r, "image_header_table");
    assert!(value(child(t, "identification")).starts_with("\"PPDI\""));
    assert_eq!(hexv(value(child(t, "idcode"))), 0x14CA_8093);
    assert!(value(child(t, "version")).starts_with("0x00040000"));
    assert!(value(child(t, "checksum")).ends_with("(valid)"));
    let ih = path(r, "image_headers/[0] aie_image");
    assert_eq!(value(child(ih, "name")), "\"aie_image\"");
    assert_eq!(hexv(value(child(ih, "image_id"))), 0x1C00_0000);
    assert!(value(child(ih, "checksum")).ends_with("(valid)"));
    let ph = path(r, "partition_headers/[0]");
    assert!(value(child(ph, "checksum")).ends_with("(valid)"));
    let a = child(ph, "attributes");
    assert_eq!(value(child(a, "partition_type")), "2 (CDO)");
    assert_eq!(value(child(a, "exception_level")), "EL3");
    assert!(value(child(ph, "load_address")).contains("(none)"));
    let d = child(ph, "data_offset");
    assert!(
        value(d).starts_with("84 (0x54) words, at 0x150: "),
        "{}",
        value(d)
    );
    let h = path(cdo_node(&j), "header");
    assert_eq!(value(child(h, "identification")), "\"CDO\" (version 2)");
    assert!(value(child(h, "checksum")).ends_with("(valid)"));
}

/// Runs pdi::parse_in_partition on a whole file, as the xclbin parser does
/// for an AIE_PARTITION image.
fn in_partition(b: &mut Builder<'_>, parent: NodeId, at: Span) -> Option<Format> {
    pdi::parse_in_partition(b, parent, at, &[1, 2, 3, 4], None);
    Some(Format::Pdi)
}

#[test]
fn start_columns_give_physical_columns() {
    let f = all_pdis()
        .into_iter()
        .find(|f| f.file.contains("color_threshold") && f.what == "AIE#0")
        .unwrap();
    assert_eq!(f.start_columns, vec![1, 2, 3, 4]);
    let mut tree = Tree::build(
        Arc::new(Source::from_vec(f.bytes.clone())),
        "image",
        in_partition,
    );
    let mut out = Vec::new();
    fwview::export::json(&mut tree, "image", &mut out).unwrap();
    let j: Value = serde_json::from_slice(&out).unwrap();
    let cmds = items(path(cdo_node(&j), "commands"));
    let first = cmds.iter().find(|n| has_child(n, "address")).unwrap();
    let a = child(first, "address");
    let col = u32_at(&f.bytes, off(a)) >> 25;
    let phys: Vec<String> = [1, 2, 3, 4].iter().map(|s| (s + col).to_string()).collect();
    let want = format!(
        "{col} (physical column {}, {}, {} or {} (start column 1, 2, 3 or 4))",
        phys[0], phys[1], phys[2], phys[3]
    );
    assert_eq!(value(child(a, "column")), want);
    // The summary lists the physical columns per start column.
    let sum = path(cdo_node(&j), "summary");
    let (used, _) = tiles(&decode(&f.bytes));
    let per: Vec<String> = [1, 2, 3, 4]
        .iter()
        .map(|s| {
            let c: Vec<String> = used.iter().map(|c| (c + s).to_string()).collect();
            format!("{} at start column {s}", c.join(", "))
        })
        .collect();
    assert_eq!(value(child(sum, "physical_columns")), per.join("; "));
}

// ---------------------------------------------------------------------------
// the compact variant

/// The commands a compact image stands for, decoded here: (name, address,
/// mask, value, DMA data).
#[derive(Debug, PartialEq)]
struct Expanded {
    name: &'static str,
    addr: u64,
    mask: Option<u32>,
    value: Option<u32>,
    data: Option<Vec<u8>>,
}

fn expand_compact(p: &[u8]) -> Vec<Expanded> {
    let (ph, cdo) = locate(p);
    let bsize = u32_at(p, ph + 0x74) as usize;
    let start = cdo + 20;
    let pool = start + bsize;
    let mut o = start;
    let mut v = Vec::new();
    while o < pool {
        let (op, n) = (u32_at(p, o), u32_at(p, o + 4) as usize);
        o += 8;
        for _ in 0..n {
            match op {
                3 => {
                    v.push(Expanded {
                        name: "WRITE",
                        addr: u32_at(p, o).into(),
                        mask: None,
                        value: Some(u32_at(p, o + 4)),
                        data: None,
                    });
                    o += 8;
                }
                2 => {
                    v.push(Expanded {
                        name: "MASK_WRITE",
                        addr: u32_at(p, o).into(),
                        mask: Some(u32_at(p, o + 4)),
                        value: Some(u32_at(p, o + 8)),
                        data: None,
                    });
                    o += 12;
                }
                5 => {
                    let w = words(p, o, 4);
                    let s = pool + w[2] as usize;
                    let e = (s + 4 * (w[3] & 0xffff) as usize).min(p.len());
                    v.push(Expanded {
                        name: "DMA_WRITE",
                        addr: u64::from(w[0]) << 32 | u64::from(w[1]),
                        mask: None,
                        value: None,
                        data: Some(p[s..e].to_vec()),
                    });
                    o += 16;
                }
                _ => panic!("op {op}"),
            }
        }
    }
    v
}

/// The same, from the standard stream with its NOPs dropped.
fn expand_standard(p: &[u8]) -> Vec<Expanded> {
    decode(p)
        .into_iter()
        .filter(|c| c.key != 0x111)
        .map(|c| {
            let q = &c.payload;
            match c.key {
                0x103 => Expanded {
                    name: "WRITE",
                    addr: q[0].into(),
                    mask: None,
                    value: Some(q[1]),
                    data: None,
                },
                0x102 => Expanded {
                    name: "MASK_WRITE",
                    addr: q[0].into(),
                    mask: Some(q[1]),
                    value: Some(q[2]),
                    data: None,
                },
                0x105 => Expanded {
                    name: "DMA_WRITE",
                    addr: u64::from(q[0]) << 32 | u64::from(q[1]),
                    mask: None,
                    value: None,
                    data: Some(q[2..].iter().flat_map(|w| w.to_le_bytes()).collect()),
                },
                k => panic!("0x{k:x}"),
            }
        })
        .collect()
}

/// The expansion as fwview shows it: records, their commands, the pool.
fn expand_shown(j: &Value, p: &[u8]) -> Vec<Expanded> {
    let cdo = cdo_node(j);
    let pool = items(child(cdo, "data_pool"));
    let mut chunk = pool.iter();
    let mut v = Vec::new();
    for r in items(child(cdo, "records")) {
        for e in items(child(r, "commands")) {
            let nm = item_name(e);
            let x = match nm {
                "WRITE" => Expanded {
                    name: "WRITE",
                    addr: hexv(value(child(e, "address"))),
                    mask: None,
                    value: Some(hexv(value(child(e, "value"))) as u32),
                    data: None,
                },
                "MASK_WRITE" => Expanded {
                    name: "MASK_WRITE",
                    addr: hexv(value(child(e, "address"))),
                    mask: Some(hexv(value(child(e, "mask"))) as u32),
                    value: Some(hexv(value(child(e, "value"))) as u32),
                    data: None,
                },
                "DMA_WRITE" => {
                    let c = chunk.next().unwrap();
                    Expanded {
                        name: "DMA_WRITE",
                        addr: hexv(value(child(e, "address_high"))) << 32
                            | hexv(value(child(e, "address_low"))),
                        mask: None,
                        value: None,
                        data: Some(p[off(c)..off(c) + size(c)].to_vec()),
                    }
                }
                other => panic!("{other}"),
            };
            v.push(x);
        }
    }
    assert!(chunk.next().is_none());
    v
}

#[test]
fn compact_images_expand_to_their_commands() {
    let all = all_pdis();
    let mut matched = Vec::new();
    for f in all.iter().filter(|f| is_compact(&f.bytes)) {
        let ctx = format!("{} {}", f.file, f.what);
        let j = json_of_written(&f.bytes, "image.pdi");
        assert!(
            diags(&j, "error").is_empty(),
            "{ctx}: {:?}",
            diags(&j, "error")
        );
        // What the compact layout does in every real file is info, not a
        // warning: found in valid files, said once where it is.
        assert!(
            diags(&j, "warning").is_empty(),
            "{ctx}: {:?}",
            diags(&j, "warning")
        );
        let warns: Vec<_> = diags(&j, "info")
            .into_iter()
            .filter(|w| w.contains("inferred"))
            .collect();
        assert!(!warns.is_empty(), "{ctx}");
        assert!(warns.iter().any(|w| w.contains("checksum")), "{ctx}");
        assert!(
            warns.iter().any(|w| w.contains("cut 20 bytes short")),
            "{ctx}"
        );
        let shown = expand_shown(&j, &f.bytes);
        let mine = expand_compact(&f.bytes);
        assert_eq!(shown, mine, "{ctx}");
        let summary = path(cdo_node(&j), "summary/commands");
        assert_eq!(decv(value(summary)), mine.len() as u64, "{ctx}");
        // Compare with the standard PDI of the same file.
        for s in all.iter().filter(|s| s.file == f.file && s.what == "PDI") {
            let std = expand_standard(&s.bytes);
            if std.len() != shown.len() {
                continue;
            }
            // The pool's last DMA payload is cut 20 bytes short: its bytes
            // are a prefix of the standard command's.
            let same = shown.iter().zip(&std).all(|(a, b)| {
                a.name == b.name
                    && a.addr == b.addr
                    && a.mask == b.mask
                    && a.value == b.value
                    && match (&a.data, &b.data) {
                        (Some(x), Some(y)) => y.starts_with(x),
                        (None, None) => true,
                        _ => false,
                    }
            });
            if !same {
                continue;
            }
            let short: Vec<usize> = shown
                .iter()
                .zip(&std)
                .filter_map(|(a, b)| Some(b.data.as_ref()?.len() - a.data.as_ref()?.len()))
                .filter(|&d| d > 0)
                .collect();
            if short == [20] {
                matched.push(ctx.clone());
            }
        }
    }
    assert_eq!(
        matched,
        vec![
            "ryzenai-sw__cvml_ryzen14_1x4.xclbin AIE#14".to_string(),
            "ryzenai-sw__cvml_ryzen14_AMD_AIE2P_Nx4_Overlay.xclbin AIE#0".to_string(),
        ]
    );
}

// ---------------------------------------------------------------------------
// PDIs written here

const CDO_ID: u32 = 0x004F_4443;
const PPDI: u32 = 0x5050_4449;

fn not_sum(w: &[u32]) -> u32 {
    !w.iter().fold(0u32, |a, &x| a.wrapping_add(x))
}

/// A generic-module command word and its payload (long form when needed).
fn cmd(id: u32, payload: &[u32]) -> Vec<u32> {
    let n = payload.len() as u32;
    let mut v = if n < 255 {
        vec![n << 16 | 0x100 | id]
    } else {
        vec![255 << 16 | 0x100 | id, n]
    };
    v.extend_from_slice(payload);
    v
}

/// The same in the long form whatever its length.
fn long_cmd(id: u32, payload: &[u32]) -> Vec<u32> {
    let mut v = vec![255 << 16 | 0x100 | id, payload.len() as u32];
    v.extend_from_slice(payload);
    v
}

/// A partial PDI around a CDO of `stream`, laid out as the samples are,
/// with every checksum right.
fn make_pdi(stream: &[u32]) -> Vec<u8> {
    let mut cdo = vec![4, CDO_ID, 0x200, stream.len() as u32];
    cdo.push(not_sum(&cdo));
    cdo.extend_from_slice(stream);
    let total = cdo.len().div_ceil(4) * 4;
    let mut iht = [0u32; 32];
    iht[0] = 0x0004_0000;
    iht[1] = 1;
    iht[2] = 0x24;
    iht[3] = 1;
    iht[4] = 0x34;
    iht[6] = 0x14CA_8093;
    iht[10] = PPDI;
    iht[11] = 0x0020_1020;
    iht[12] = 0x30;
    iht[17] = 1;
    iht[31] = not_sum(&iht[..31]);
    let mut ih = [0u32; 16];
    ih[0] = 0x34;
    ih[1] = 1;
    let mut nm = [0u8; 16];
    nm[..9].copy_from_slice(b"aie_image");
    for k in 0..4 {
        ih[4 + k] = u32::from_le_bytes(nm[4 * k..4 * k + 4].try_into().unwrap());
    }
    ih[8] = 0x1C00_0000;
    ih[15] = not_sum(&ih[..15]);
    let mut ph = [0u32; 32];
    ph[0] = total as u32;
    ph[1] = cdo.len() as u32;
    ph[2] = total as u32;
    ph[6] = u32::MAX;
    ph[7] = u32::MAX;
    ph[8] = 0x54;
    ph[9] = 0x0200_0006;
    ph[10] = 1;
    ph[31] = not_sum(&ph[..31]);
    let mut out = pdi::SELECTMAP32.to_vec();
    for w in iht.iter().chain(&ih).chain(&ph).chain(&cdo) {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.resize(0x150 + 4 * total, 0);
    out
}

fn put(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn a_written_pdi_is_clean() {
    let s = [
        cmd(3, &[0x0023_4060, 1]),
        cmd(0x11, &[]),
        cmd(2, &[0x0021_4000, 0xff, 3]),
    ]
    .concat();
    let p = make_pdi(&s);
    let j = json_of_written(&p, "image.pdi");
    assert!(
        j["diagnostics"].as_array().unwrap().is_empty(),
        "{}",
        j["diagnostics"]
    );
    let cdo = cdo_node(&j);
    let c = items(child(cdo, "commands"));
    assert_eq!(c.len(), 3);
    assert_eq!(name(c[2]), "[2] MASK_WRITE");
    // 5 + 8 words: three zero words pad the partition to 16 bytes.
    assert_eq!(value(child(cdo, "padding")), "12 zero bytes (to 16 bytes)");
}

#[test]
fn every_generic_command_is_named_and_decoded() {
    // One command for every generic row of the decoder's table (END_MARK
    // last); the payload decoding and the node layout below are checked
    // against the loader's layouts.
    let rows: Vec<&cdo::Command> = cdo::COMMANDS
        .iter()
        .filter(|c| c.module == 1 && c.id != 0)
        .chain(cdo::command(1, 0))
        .collect();
    let a = 0x0654_3210u32; // column 3, row 5, register 0x43210
    let text = |s: &str| -> Vec<u32> {
        let mut b = s.as_bytes().to_vec();
        b.resize(s.len().div_ceil(4) * 4 + 4, 0);
        b.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    // Payloads as the loader takes them, by command id.
    let payload = |id: u32| -> Vec<u32> {
        match id {
            1 => vec![a, 0xf0, 0x10, 100],
            2 => vec![a, 0xff00, 0x1200],
            3 => vec![a, 0xdead_beef],
            4 => vec![250],
            5 => vec![0, a, 1, 2, 3, 4],
            6 => vec![0, a, 0xf, 0x1, 10, 1, 0x55],
            7 => vec![0x2, 0x1000, 0xff, 0x11],
            8 => vec![0x2, 0x2000, 0x22],
            9 => vec![0, 0x100, 0, a, 16, 0],
            10 => vec![7, 8],
            11 => vec![1, 0, 0x3000, 4, 9, 9],
            12 => vec![0, a, 8, 0x5a5a_5a5a],
            13 => vec![0, a, 16, 1, 2],
            0 | 14 | 18 | 28 | 32 | 36 => vec![],
            15 | 16 => vec![0x3, 1000],
            17 => vec![0, 0],
            19 => vec![2, 5],
            20 => text("board"),
            21 => vec![0, 0x4000, 8],
            22 => vec![0x1822_4018, 50],
            23 => text("hello"),
            24 => vec![0x1234],
            25 => [vec![1], text("mark")].concat(),
            26 => [vec![0x77], cmd(3, &[a, 5]), cmd(4, &[1])].concat(),
            27 => [vec![3], text("blk")].concat(),
            29 => vec![1],
            30 => vec![20],
            31 => cmd(3, &[a, 6]),
            33 => vec![9, 0x10, 0x20],
            34 => vec![1, 2, 0x10, 0x20],
            35 => vec![0x2],
            37 => vec![0x0001_0001, 0xff],
            38 => vec![0x77],
            _ => vec![1, 2],
        }
    };
    let mut s = Vec::new();
    for c in &rows {
        s.extend(cmd(c.id.into(), &payload(c.id.into())));
    }
    let j = json_of_written(&make_pdi(&s), "image.pdi");
    assert!(
        j["diagnostics"].as_array().unwrap().is_empty(),
        "{}",
        j["diagnostics"]
    );
    let cdo = cdo_node(&j);
    let c = items(child(cdo, "commands"));
    assert_eq!(c.len(), rows.len());
    assert!(rows.len() > 40, "{}", rows.len());
    for (n, row) in c.iter().zip(&rows) {
        assert_eq!(item_name(n), row.name);
        let h = child(n, "header");
        assert_eq!(
            value(child(h, "command")),
            format!("{} ({})", row.id, row.name)
        );
        assert_eq!(value(child(h, "module")), "1 (generic)");
        let len = payload(row.id.into()).len();
        assert_eq!(size(n), 4 + 4 * len, "{}", row.name);
    }
    let by = |nm: &str| *c.iter().find(|n| item_name(n) == nm).unwrap();
    let field = |nm: &str, f: &str| value(child(by(nm), f)).to_string();
    // Addresses decode to column, row and register.
    let addr = child(by("WRITE"), "address");
    assert_eq!(value(addr), "0x06543210 (col 3, row 5, reg 0x43210)");
    assert_eq!(
        value(child(addr, "column")),
        "3 (relative to the partition)"
    );
    assert_eq!(value(child(addr, "row")), "5");
    assert_eq!(value(child(addr, "register")), "0x43210");
    assert_eq!(field("WRITE", "value"), "0xdeadbeef");
    assert_eq!(field("MASK_WRITE", "mask"), "0x0000ff00");
    assert_eq!(field("MASK_WRITE", "value"), "0x00001200");
    assert_eq!(field("MASK_POLL", "expected"), "0x00000010");
    assert_eq!(field("MASK_POLL", "timeout"), "100 (0x64) us");
    assert_eq!(
        field("MASK_POLL64", "flags"),
        "0x00000001 (ignore a timeout)"
    );
    assert_eq!(field("MASK_POLL64", "error_code"), "0x00000055");
    assert_eq!(field("DELAY", "delay"), "250 (0xfa) us");
    assert!(field("DMA_WRITE", "data").starts_with("16 (0x10) bytes: 01 00 00 00 02"));
    assert_eq!(
        field("DMA_WRITE", "address_low"),
        "0x06543210 (col 3, row 5, reg 0x43210)"
    );
    assert_eq!(field("WRITE64", "address_high"), "0x00000002");
    assert!(value(by("WRITE64")).starts_with("0x200002000 = 0x00000022"));
    assert_eq!(field("MASK_WRITE64", "mask"), "0x000000ff");
    assert_eq!(field("DMA_XFER", "length"), "16 (0x10) words");
    assert_eq!(field("SET", "count"), "8 words");
    assert_eq!(field("SET", "value"), "0x5a5a5a5a");
    assert_eq!(
        field("DMA_WRITE_KEYHOLE", "keyhole_size"),
        "16 (0x10) words"
    );
    assert_eq!(
        field("NOP", "padding").split(':').next().unwrap(),
        "8 bytes"
    );
    assert_eq!(field("SET_BOARD", "text"), "\"board\"");
    assert_eq!(field("LOG_STRING", "text"), "\"hello\"");
    assert_eq!(field("MARKER", "text"), "\"mark\"");
    assert_eq!(field("BEGIN", "text"), "\"blk\"");
    // PROC and PSM_SEQUENCE carry commands of their own.
    let inner = items(child(by("PROC"), "commands"));
    assert_eq!(
        inner.iter().map(|n| item_name(n)).collect::<Vec<_>>(),
        ["WRITE", "DELAY"]
    );
    assert_eq!(value(child(inner[0], "value")), "0x00000005");
    let inner = items(child(by("PSM_SEQUENCE"), "commands"));
    assert_eq!(value(child(inner[0], "value")), "0x00000006");
    // The summary counts the nested commands too.
    let sum = path(cdo, "summary");
    assert_eq!(value(child(sum, "nested_commands")), "3");
    assert_eq!(decv(value(path(sum, "commands/WRITE"))), 3);
    assert_eq!(decv(value(child(sum, "dma_bytes"))), 16 + 8);
    assert_eq!(value(child(sum, "columns")), "3 (relative)");
    assert_eq!(value(child(sum, "rows")), "5");
    assert_eq!(value(child(sum, "wide_addresses")), "2");
}

#[test]
fn long_headers_are_read() {
    let data: Vec<u32> = (0..300).collect();
    let mut payload = vec![0, 0x0020_0000];
    payload.extend(&data);
    let s = [cmd(5, &payload), long_cmd(3, &[0x0023_4060, 7])].concat();
    assert_eq!(s[0] >> 16 & 0xff, 255);
    let p = make_pdi(&s);
    let j = json_of_written(&p, "image.pdi");
    assert!(
        j["diagnostics"].as_array().unwrap().is_empty(),
        "{}",
        j["diagnostics"]
    );
    let c = items(child(cdo_node(&j), "commands"));
    assert_eq!(c.len(), 2);
    assert_eq!(size(c[0]), 8 + 4 * 302);
    assert_eq!(value(child(c[0], "long_length")), "302 (0x12e) words");
    assert_eq!(
        value(child(child(c[0], "header"), "length")),
        "255 (long: the length is in the next word)"
    );
    let d = child(c[0], "data");
    assert_eq!(size(d), 1200);
    assert_eq!(off(d), 0x164 + 16);
    assert_eq!(item_name(c[1]), "WRITE");
    assert_eq!(size(c[1]), 16);
    assert_eq!(value(child(c[1], "value")), "0x00000007");
}

#[test]
fn broken_checksums_are_reported() {
    let s = cmd(3, &[0x0023_4060, 1]);
    let good = make_pdi(&s);
    // Each structure's checksum word, and a mismatch there.
    for (at, what) in [
        (0x8c, "image header table"),
        (0xcc, "image header"),
        (0x14c, "partition header"),
        (0x160, "CDO header"),
    ] {
        let mut p = good.clone();
        p[at] ^= 1;
        let j = json_of_written(&p, "image.pdi");
        let errs = diags(&j, "error");
        assert_eq!(errs.len(), 1, "{what}: {errs:?}");
        assert!(
            errs[0].starts_with(&format!("{what} checksum mismatch")),
            "{errs:?}"
        );
    }
    // A field changed under a right checksum.
    let mut p = good.clone();
    put(&mut p, 0x10 + 0x14, 0x1234);
    let j = json_of_written(&p, "image.pdi");
    let v = value(path(&j["root"], "image_header_table/checksum"));
    assert!(v.contains("(mismatch: computed"), "{v}");
}

#[test]
fn truncation_is_reported() {
    let s = [
        cmd(3, &[0x0023_4060, 1]),
        cmd(5, &[0, 0x0020_0000, 1, 2, 3, 4, 5, 6, 7]),
    ]
    .concat();
    let good = make_pdi(&s);
    // The file ends inside the DMA_WRITE's data.
    let cut = &good[..0x164 + 12 + 20];
    let j = json_of_written(cut, "image.pdi");
    let errs = diags(&j, "error");
    assert!(
        errs.iter()
            .any(|e| e.contains("runs") && e.contains("past the end of the PDI")),
        "{errs:?}"
    );
    assert!(
        errs.iter().any(|e| e.contains("past the end of its data")),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.contains("DMA_WRITE at 0x170 needs 40 bytes")),
        "{errs:?}"
    );
    let c = items(child(cdo_node(&j), "commands"));
    assert_eq!(c.len(), 2);
    assert_eq!(off(c[1]) + size(c[1]), cut.len());
    // A command that runs past the CDO's own length (the PDI goes on).
    let mut p = good.clone();
    put(&mut p, 0x15c, 5); // 5 words: the DMA_WRITE needs 10 more
    let cdo_w = words(&p, 0x150, 4);
    put(&mut p, 0x160, not_sum(&cdo_w));
    let j = json_of_written(&p, "image.pdi");
    let errs = diags(&j, "error");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("past the end of the command stream"),
        "{errs:?}"
    );
    // Headers cut short.
    let j = json_of_written(&good[..0x60], "image.pdi");
    assert!(diags(&j, "error")[0].starts_with("truncated: the image header table"));
}

#[test]
fn unknown_commands_are_shown_raw_and_parsing_goes_on() {
    let s = [
        vec![2 << 16 | 0x163, 0xaa, 0xbb], // module 1, command 99
        vec![1 << 16 | 0x0905, 0xcc],      // module 9
        cmd(3, &[0x0023_4060, 1]),
    ]
    .concat();
    let j = json_of_written(&make_pdi(&s), "image.pdi");
    let warns = diags(&j, "warning");
    assert_eq!(warns.len(), 2, "{warns:?}");
    assert!(
        warns[0].starts_with("unknown command 0x0163 (module 1, command 99)"),
        "{warns:?}"
    );
    assert!(
        warns[1].starts_with("unknown command 0x0905 (module 9, command 5)"),
        "{warns:?}"
    );
    let c = items(child(cdo_node(&j), "commands"));
    assert_eq!(c.len(), 3);
    assert_eq!(name(c[0]), "[0] CMD_0x0163");
    assert!(value(child(c[0], "payload")).starts_with("8 bytes: aa 00 00 00 bb"));
    assert_eq!(name(c[2]), "[2] WRITE");
}

#[test]
fn bytes_after_the_last_command_are_reported() {
    let s = cmd(3, &[0x0023_4060, 1]);
    let mut p = make_pdi(&s);
    // 5 + 3 words: the partition has no padding; add 16 bytes to it.
    put(&mut p, 0xd0 + 8, 12);
    let ph = words(&p, 0xd0, 31);
    put(&mut p, 0xd0 + 0x7c, not_sum(&ph));
    p.extend([0u8, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let j = json_of_written(&p, "image.pdi");
    let warns = diags(&j, "warning");
    assert_eq!(warns.len(), 1, "{warns:?}");
    assert!(
        warns[0].contains("16 bytes after the last command"),
        "{warns:?}"
    );
    assert!(has_child(cdo_node(&j), "trailing"));
}

#[test]
fn other_bus_widths_and_bare_cdos_are_recognised() {
    let s = cmd(3, &[0x0023_4060, 1]);
    let p = make_pdi(&s);
    for (pat, w) in [(pdi::SELECTMAP16, 16), (pdi::SELECTMAP8, 8)] {
        let mut q = p.clone();
        q[..16].copy_from_slice(&pat);
        let j = json_of_written(&q, "image.pdi");
        assert_eq!(j["format"], "pdi");
        assert!(value(child(&j["root"], "selectmap")).contains(&format!("{w}-bit bus")));
    }
    // The CDO alone.
    let j = json_of_written(&p[0x150..], "image.pdi");
    assert_eq!(j["format"], "pdi");
    assert!(
        j["diagnostics"].as_array().unwrap().is_empty(),
        "{}",
        j["diagnostics"]
    );
    let c = items(child(&j["root"], "commands"));
    assert_eq!(item_name(c[0]), "WRITE");
}

#[test]
fn a_huge_stream_opens_at_once() {
    // 1,200,000 WRITEs: the summary and diagnostics exist before any
    // command node is built.
    let n = 1_200_000u32;
    let mut s = Vec::with_capacity(3 * n as usize);
    for i in 0..n {
        s.extend([2 << 16 | 0x103, 0x0020_0000 | ((i % 0x1000) * 4), i]);
    }
    s.push(0x1ff); // an unknown command at the very end
    let p = make_pdi(&s);
    let mut tree = fwview::formats::build_from_bytes(p);
    assert_eq!(tree.format(), Some(Format::Pdi));
    let d = tree.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].message.starts_with("unknown command 0x01ff"));
    let root = tree.root();
    let find = |tree: &mut Tree, id, nm: &str| {
        tree.children(id)
            .into_iter()
            .find(|&k| tree.name(k) == nm)
            .unwrap()
    };
    let parts = find(&mut tree, root, "partitions");
    let cdo = find(&mut tree, parts, "[0] CDO");
    let cmds = find(&mut tree, cdo, "commands");
    let summary = find(&mut tree, cdo, "summary");
    assert!(!tree.is_built(cmds));
    assert_eq!(
        tree.value_text(cmds).as_deref(),
        Some("1200001 (0x124f81) commands")
    );
    let sc = find(&mut tree, summary, "commands");
    let w = find(&mut tree, sc, "WRITE");
    assert_eq!(tree.value_text(w).as_deref(), Some("1200000 (0x124f80)"));
    // Two groups of a million, then groups of a thousand.
    let groups = tree.children(cmds);
    let names: Vec<String> = groups.iter().map(|&g| tree.name(g).to_string()).collect();
    assert_eq!(names, ["[0..1000000)", "[1000000..1200001)"]);
    let last = *tree.children(groups[1]).last().unwrap();
    assert_eq!(tree.name(last), "[1200000..1200001)");
    let k = tree.children(last);
    assert_eq!(tree.name(k[0]), "[1200000] CMD_0x01ff");
    assert_eq!(tree.node(k[0]).unwrap().offset, 0x164 + 12 * u64::from(n));
}

#[test]
fn every_fixed_arity_is_enforced() {
    // For every generic command whose payload length the table fixes, a
    // stream with one word too few (and one too many, when bounded) raises
    // the arity warning naming the command.
    let mut checked = 0;
    for c in cdo::COMMANDS.iter().filter(|c| c.module == 1) {
        let Some((lo, hi)) = c.arity.bounds() else {
            continue;
        };
        let (id, name) = (c.id, c.name);
        let mut lens = Vec::new();
        if lo > 0 {
            lens.push(lo - 1);
        }
        if hi != u64::MAX {
            lens.push(hi + 1);
        }
        for n in lens {
            let payload = vec![0u32; n as usize];
            let mut stream = cmd(u32::from(id), &payload);
            stream.extend(cmd(0, &[]));
            let bytes = make_pdi(&stream);
            let j = json_of_written(&bytes, "image.pdi");
            let warns = diags(&j, "warning");
            let want = format!("{name} at 0x");
            assert!(
                warns
                    .iter()
                    .any(|w| w.starts_with(&want) && w.contains(&format!("has {n} payload words"))),
                "{name} with {n} words: {warns:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked}");
}

/// The generic commands whose payloads the loader's documentation lays out
/// (bootgen's CDO decoder and the platform loader's generic module): id,
/// name and payload words in order, optional ones in brackets, `…` for any
/// number of words more.
const LOADER: &[(u8, &str)] = &[
    (
        0x01,
        "MASK_POLL (addr, mask, expected, timeout_us [, flags [, error]])",
    ),
    (0x02, "MASK_WRITE (addr, mask, value)"),
    (0x03, "WRITE (addr, value)"),
    (0x04, "DELAY (us)"),
    (0x05, "DMA_WRITE (addr_hi, addr_lo, data…)"),
    (
        0x06,
        "MASK_POLL64 (addr_hi, addr_lo, mask, expected, timeout_us [, flags [, error]])",
    ),
    (0x07, "MASK_WRITE64 (addr_hi, addr_lo, mask, value)"),
    (0x08, "WRITE64 (addr_hi, addr_lo, value)"),
    (0x0c, "SET (addr_hi, addr_lo, count, value)"),
    (0x11, "NOP (…)"),
];

#[test]
fn the_command_table_follows_the_loaders_layouts() {
    use cdo::{Kind, Width};
    for &(id, doc) in LOADER {
        let (name, args) = doc.split_once(" (").unwrap();
        let args = args.strip_suffix(')').unwrap();
        let row = cdo::command(1, id).unwrap();
        assert_eq!(row.name, name, "command {id}");
        assert_eq!(cdo::command_name(1, id), Some(name));
        // The documented words: name, optional, any number more.
        let mut words = Vec::new();
        let mut optional = false;
        for a in args.split(',') {
            // "x [, y": the words after a bracket are optional.
            let w = a.trim_matches(|c| c == '[' || c == ']' || c == ' ');
            match w.strip_suffix('…') {
                Some(w) => words.push((w, optional, true)),
                None => words.push((w, optional, false)),
            }
            optional |= a.contains('[');
        }
        let fixed = words.iter().filter(|w| !w.2);
        let lo = fixed.clone().filter(|w| !w.1).count() as u64;
        let hi = if words.iter().any(|w| w.2) {
            u64::MAX
        } else {
            fixed.count() as u64
        };
        assert_eq!(
            row.arity.bounds().unwrap_or((0, u64::MAX)),
            (lo, hi),
            "{name}"
        );
        // The table's layout, word by word (a rest field once).
        let mut laid = Vec::new();
        for f in row.fields {
            match f.width {
                Width::Pair => {
                    laid.push((format!("{}_high", f.name), f.kind));
                    laid.push((format!("{}_low", f.name), f.kind));
                }
                _ => laid.push((f.name.to_string(), f.kind)),
            }
        }
        for (k, &(w, _, more)) in words.iter().enumerate() {
            let (fname, kind) = &laid[k];
            let ok = match w {
                "addr" => *kind == Kind::Aie,
                "addr_hi" => *kind == Kind::Addr64 && fname.ends_with("_high"),
                "addr_lo" => *kind == Kind::Addr64 && fname.ends_with("_low"),
                "mask" | "value" | "expected" => *kind == Kind::Hex && fname == w,
                "error" => *kind == Kind::Hex && fname.starts_with("error"),
                "count" => matches!(kind, Kind::Count(_)) && fname == w,
                "timeout_us" | "us" => *kind == Kind::Count("us"),
                "flags" => *kind == Kind::PollFlags,
                "data" => more && *kind == Kind::Dma,
                "" => more && *kind == Kind::Raw,
                _ => false,
            };
            assert!(ok, "{name}: word {k} ({w}) is {fname} {kind:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// register names

use cdo::aie_regs::{Gen, TileKind};

/// Lines of aie-rt's register headers (github.com/Xilinx/aie-rt,
/// driver/src/global/xaiemlgbl_params.h and xaie2pgbl_params.h, MIT, and
/// xaie2psgbl_params.h as it stood at commit 3999190f, before AIE2PS was
/// taken out of aie-rt's main branch), quoted as they stand, parsed here on
/// their own.
const AIE_RT_LINES: &str = "
#define XAIEMLGBL_CORE_MODULE_CORE_CONTROL                               0x00032000
#define XAIEMLGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0           0x0003F004
#define XAIEMLGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0_MASTER_ENABLE_LSB 31
#define XAIEMLGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0_MASTER_ENABLE_WIDTH 1
#define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_1                                0x0001D004
#define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_5_LOCK_ACQ_ID_LSB              0
#define XAIEMLGBL_MEMORY_MODULE_DMA_BD0_5_LOCK_ACQ_ID_WIDTH            4
#define XAIEMLGBL_MEMORY_MODULE_LOCK3_VALUE                              0x0001F030
#define XAIEMLGBL_PL_MODULE_STREAM_SWITCH_MASTER_CONFIG_SOUTH0           0x0003F008
#define XAIEMLGBL_PL_MODULE_TILE_CONTROL                                 0x00036030
#define XAIEMLGBL_NOC_MODULE_LOCK0_VALUE                                 0x00014000
#define XAIEMLGBL_NOC_MODULE_DMA_BD0_0                                   0x0001D000
#define XAIEMLGBL_MEM_TILE_MODULE_DMA_BD0_0                              0x000A0000
#define XAIEMLGBL_MEM_TILE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0       0x000B0000
#define XAIEMLGBL_MEM_TILE_MODULE_LOCK0_VALUE                            0x000C0000
#define XAIEMLGBL_MEM_TILE_MODULE_TILE_CONTROL                           0x00096030
#define XAIE2PGBL_CORE_MODULE_CORE_CONTROL                              0x00032000
#define XAIE2PGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0          0x0003F004
#define XAIE2PGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0_MASTER_ENABLE_LSB 31
#define XAIE2PGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0_MASTER_ENABLE_WIDTH 1
#define XAIE2PGBL_MEMORY_MODULE_DMA_BD0_1                               0x0001D004
#define XAIE2PGBL_MEMORY_MODULE_DMA_BD0_5_LOCK_ACQ_ID_LSB             0
#define XAIE2PGBL_MEMORY_MODULE_DMA_BD0_5_LOCK_ACQ_ID_WIDTH           4
#define XAIE2PGBL_MEMORY_MODULE_LOCK3_VALUE                             0x0001F030
#define XAIE2PGBL_PL_MODULE_STREAM_SWITCH_MASTER_CONFIG_SOUTH0          0x0003F008
#define XAIE2PGBL_PL_MODULE_TILE_CONTROL                                0x000FFF40
#define XAIE2PGBL_NOC_MODULE_LOCK0_VALUE                                0x00014000
#define XAIE2PGBL_NOC_MODULE_DMA_BD0_0                                  0x0001D000
#define XAIE2PGBL_MEM_TILE_MODULE_DMA_BD0_0                             0x000A0000
#define XAIE2PGBL_MEM_TILE_MODULE_DMA_MM2S_0_CONSTANT_PAD_VALUE         0x000A06E0
#define XAIE2PGBL_MEM_TILE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0      0x000B0000
#define XAIE2PGBL_MEM_TILE_MODULE_LOCK0_VALUE                           0x000C0000
#define XAIE2PGBL_MEM_TILE_MODULE_TILE_CONTROL                          0x000FFF20
#define XAIE2PSGBL_CORE_MODULE_CORE_CONTROL                             0x00038000
#define XAIE2PSGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0         0x0003F004
#define XAIE2PSGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0_MASTER_ENABLE_LSB 31
#define XAIE2PSGBL_CORE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0_MASTER_ENABLE_WIDTH 1
#define XAIE2PSGBL_MEMORY_MODULE_DMA_BD0_1                              0x0001D004
#define XAIE2PSGBL_MEMORY_MODULE_DMA_BD0_5_LOCK_ACQ_ID_LSB            0
#define XAIE2PSGBL_MEMORY_MODULE_DMA_BD0_5_LOCK_ACQ_ID_WIDTH          4
#define XAIE2PSGBL_MEMORY_MODULE_LOCK3_VALUE                            0x0001F030
#define XAIE2PSGBL_PL_MODULE_STREAM_SWITCH_MASTER_CONFIG_SOUTH0         0x0003F008
#define XAIE2PSGBL_PL_MODULE_TILE_CONTROL                               0x0007FF40
#define XAIE2PSGBL_NOC_MODULE_LOCK0_VALUE                               0x00000000
#define XAIE2PSGBL_NOC_MODULE_DMA_BD0_0                                 0x00009000
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_BD0_0                            0x000A0000
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_MM2S_0_START_QUEUE               0x000A0634
#define XAIE2PSGBL_MEM_TILE_MODULE_STREAM_SWITCH_MASTER_CONFIG_DMA0     0x000B0000
#define XAIE2PSGBL_MEM_TILE_MODULE_LOCK0_VALUE                          0x000C0000
#define XAIE2PSGBL_MEM_TILE_MODULE_TILE_CONTROL                         0x000FFF20
#define XAIE2PSGBL_UC_MODULE_CORE_CONTROL                                               0x000C0004
#define XAIE2PSGBL_UC_MODULE_CORE_PROGRAM_MEMORY                                        0x00080000
";

/// A row of each tile kind: the shim, memory tile and compute tile rows of
/// an NPU partition.
fn row_of(module: &str) -> u32 {
    match module {
        "NOC_MODULE" | "PL_MODULE" | "UC_MODULE" => 0,
        "MEM_TILE_MODULE" => 1,
        "CORE_MODULE" | "MEMORY_MODULE" => 2,
        m => panic!("{m}"),
    }
}

#[test]
fn register_names_and_offsets_are_aie_rts() {
    let mut checked = 0;
    let defs: BTreeMap<String, u32> = AIE_RT_LINES
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("#define")).then_some(())?;
            let name = w.next()?.to_string();
            let v = w.next()?;
            let v = match v.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16).unwrap(),
                None => v.parse().unwrap(),
            };
            Some((name, v))
        })
        .collect();
    for (macro_, &v) in &defs {
        if macro_.ends_with("_LSB") || macro_.ends_with("_WIDTH") {
            continue;
        }
        let (prefix, rest) = macro_.split_once('_').unwrap();
        let g = match prefix {
            "XAIEMLGBL" => Gen::AieMl,
            "XAIE2PGBL" => Gen::Aie2p,
            "XAIE2PSGBL" => Gen::Aie2ps,
            p => panic!("{p}"),
        };
        let module = [
            "MEM_TILE_MODULE",
            "MEMORY_MODULE",
            "CORE_MODULE",
            "NOC_MODULE",
            "PL_MODULE",
            "UC_MODULE",
        ]
        .into_iter()
        .find(|m| rest.starts_with(&format!("{m}_")))
        .unwrap();
        let reg = &rest[module.len() + 1..];
        let hit = g
            .lookup(row_of(module), v)
            .unwrap_or_else(|| panic!("{macro_}"));
        assert_eq!(hit.to_string(), reg, "{macro_}");
        assert_eq!(hit.reg.off, v, "{macro_}");
        checked += 1;
    }
    // Bit fields: the LSB/WIDTH pairs.
    for (macro_, &lsb) in defs.iter().filter(|(k, _)| k.ends_with("_LSB")) {
        let stem = macro_.strip_suffix("_LSB").unwrap();
        let width = defs[&format!("{stem}_WIDTH")];
        let (reg_macro, off) = defs
            .iter()
            .filter(|(k, _)| stem.starts_with(&format!("{k}_")))
            .map(|(k, v)| (k.clone(), *v))
            .next()
            .unwrap_or_else(|| {
                // DMA_BD0_5 is not quoted: its offset follows BD0_1's.
                let bd = stem.split("_DMA_BD0_5").next().unwrap();
                (
                    format!("{bd}_DMA_BD0_5"),
                    defs[&format!("{bd}_DMA_BD0_1")] + 16,
                )
            });
        let field = &stem[reg_macro.len() + 1..];
        let g = if stem.starts_with("XAIEMLGBL") {
            Gen::AieMl
        } else if stem.starts_with("XAIE2PSGBL") {
            Gen::Aie2ps
        } else {
            Gen::Aie2p
        };
        let hit = g.lookup(2, off).unwrap();
        let f = hit
            .fields
            .iter()
            .find(|f| f.name == field)
            .unwrap_or_else(|| panic!("{stem}"));
        assert_eq!(
            (u32::from(f.lsb), u32::from(f.width)),
            (lsb, width),
            "{stem}"
        );
        checked += 1;
    }
    assert_eq!(checked, 46);
    // XRT's AIE2 register list (github.com/Xilinx/XRT, src/runtime_src/xdp/
    // profile/plugin/aie_debug/generations/aie2_registers.h) agrees:
    // `cm_core_control = 0x00032000`, `mem_dma_bd0_0 = 0x000A0000`.
    assert_eq!(
        Gen::AieMl.lookup(2, 0x32000).unwrap().to_string(),
        "CORE_CONTROL"
    );
    assert_eq!(
        Gen::AieMl.lookup(1, 0xa0000).unwrap().to_string(),
        "DMA_BD0_0"
    );
}

/// The `"key": "value"` number of an xclbin's AIE_METADATA (kind 25), read
/// here from the section table.
fn metadata_number(path: &Path, key: &str) -> Option<u64> {
    let b = std::fs::read(path).unwrap();
    let n = u32_at(&b, 0x130 + 0x90) as usize;
    (0..n).find_map(|i| {
        let h = 0x1c8 + 40 * i;
        (u32_at(&b, h) == 25).then_some(())?;
        let off = u64_at(&b, h + 0x18) as usize;
        let size = u64_at(&b, h + 0x20) as usize;
        let text = String::from_utf8_lossy(&b[off..off + size]).into_owned();
        let at = text.find(&format!("\"{key}\""))?;
        let rest = text[at + key.len() + 2..].trim_start().strip_prefix(':')?;
        let rest = rest.trim_start().trim_start_matches('"');
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        rest[..end].parse().ok()
    })
}

#[test]
fn the_samples_rows_and_generations_are_as_the_names_assume() {
    let mut seen = 0;
    for x in xclbins() {
        let file = x.file_name().unwrap().to_string_lossy().into_owned();
        let Some(g) = metadata_number(&x, "hw_gen") else {
            continue;
        };
        seen += 1;
        // Phoenix (phx) is aie-rt's AIE2IPU (3), Strix (stx, AIE2P) its
        // AIE2P (4).
        let want = if file.contains("stx") || file.contains("AIE2P") {
            4
        } else {
            3
        };
        assert_eq!(g, want, "{file}");
        assert_eq!(
            Gen::from_hw_gen(g),
            Some(if g == 4 { Gen::Aie2p } else { Gen::AieMl })
        );
        assert_eq!(metadata_number(&x, "shim_row"), Some(0), "{file}");
        let mem = metadata_number(&x, "mem_tile_row_start")
            .or_else(|| metadata_number(&x, "reserved_row_start"));
        assert_eq!(mem, Some(1), "{file}");
        assert_eq!(metadata_number(&x, "aie_tile_row_start"), Some(2), "{file}");
    }
    assert_eq!(seen, 5);
    assert_eq!(TileKind::of_row(0), TileKind::Shim);
    assert_eq!(TileKind::of_row(1), TileKind::Mem);
    assert_eq!(TileKind::of_row(2), TileKind::Core);
    assert_eq!(TileKind::of_row(5), TileKind::Core);
}

/// The AIE_PARTITION section node of an xclbin's JSON.
fn partition_node(j: &Value) -> &Value {
    kids(&j["root"])
        .into_iter()
        .find(|k| name(k).ends_with("] AIE_PARTITION") && has_child(k, "pdi[0] image"))
        .unwrap()
}

/// The writes, mask writes and DMA writes of a PDI, decoded here: their
/// addresses.
fn write_addresses(p: &[u8]) -> Vec<u64> {
    let cmds = if is_compact(p) {
        expand_compact(p)
    } else {
        expand_standard(p)
    };
    cmds.iter().map(|c| c.addr).collect()
}

/// Prints, for every AIE partition image of the sample xclbins, how many of
/// its writes name an address that has a register name, and checks the
/// count the CDO summary gives.
/// `cargo test --release --test it pdi::register_name_coverage -- --nocapture`
#[test]
fn register_name_coverage() {
    let (mut all, mut named, mut in_memory) = (0usize, 0usize, 0usize);
    let mut lines = BTreeMap::new();
    let mut jsons = BTreeMap::new();
    for x in xclbins() {
        let hw_gen = metadata_number(&x, "hw_gen");
        let g = hw_gen.map_or(Some(Gen::AieMl), Gen::from_hw_gen).unwrap();
        for f in pdis_in(&x)
            .into_iter()
            .filter(|f| f.what.starts_with("AIE#"))
        {
            let addrs = write_addresses(&f.bytes);
            let mut n = 0;
            let mut mem = 0;
            for &a in &addrs {
                if a >> 32 != 0 {
                    continue;
                }
                let a = a as u32;
                if let Some(h) = g.lookup(a >> 20 & 0x1f, a & 0xf_ffff) {
                    n += 1;
                    if h.reg.size > 4 {
                        mem += 1;
                    }
                }
            }
            // fwview's own count, in the CDO summary.
            let j = jsons
                .entry(f.file.clone())
                .or_insert_with(|| json::json_of(&x));
            let k: usize = f.what.trim_start_matches("AIE#").parse().unwrap();
            let img = child(partition_node(j), &format!("pdi[{k}] image"));
            let shown = value(path(img, "partitions/[0] CDO/summary/registers")).to_string();
            assert!(
                shown.contains(&format!(": {n} of {} written addresses named", addrs.len())),
                "{} {}: {shown}",
                f.file,
                f.what
            );
            let e = lines.entry(f.file.clone()).or_insert((g, 0, 0, 0, 0));
            e.1 += 1;
            e.2 += addrs.len();
            e.3 += n;
            e.4 += mem;
            all += addrs.len();
            named += n;
            in_memory += mem;
        }
    }
    for (file, (g, images, total, n, mem)) in &lines {
        println!(
            "{file}: {} images, {}: {n} of {total} writes named ({:.1}%), {mem} of them into a memory",
            images,
            g.name(),
            100.0 * *n as f64 / *total as f64
        );
    }
    println!(
        "all: {named} of {all} writes named ({:.1}%), {in_memory} of them into a memory",
        100.0 * named as f64 / all as f64
    );
    assert!(all > 5000, "{all}");
    assert!(named * 100 >= all * 99, "{named} of {all}");
}

#[test]
fn register_names_show_in_the_tree_and_the_json() {
    let x = xclbins()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("color_threshold"))
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fwview"))
        .arg("--tree")
        .arg(&x)
        .output()
        .unwrap();
    assert!(out.status.success());
    let tree = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = tree.lines().map(str::trim).collect();
    // The partition's image writes BD 0 of compute tile (0, 2) with a
    // DMA_WRITE; its words as the bytes hold them.
    let f = pdis_in(&x).into_iter().find(|f| f.what == "AIE#0").unwrap();
    let bd = decode(&f.bytes)
        .into_iter()
        .find(|c| c.key == 0x105 && c.payload[1] == 0x0021_d000)
        .expect("a DMA_WRITE of BD 0 of tile (0, 2)");
    let image = lines
        .iter()
        .position(|l| l.starts_with("pdi[0] image ["))
        .unwrap();
    let at = image
        + lines[image..]
            .iter()
            .position(|l| l.contains("] 0x0021d000 (col 0, row 2, DMA_BD0_0 (0x1d000)) <- "))
            .expect("the DMA_BD0_0 write");
    // BD word 5's lock fields (aie-rt: LOCK_ACQ_ID bits 3..0, LOCK_REL_ID
    // bits 16..13).
    let w5 = bd.payload[2 + 5];
    let w = at
        + lines[at..]
            .iter()
            .position(|l| l.starts_with("[5] DMA_BD0_5 [") && l.ends_with(&format!("] 0x{w5:08x}")))
            .expect("BD word 5");
    let fields = &lines[w + 1..(w + 13).min(lines.len())];
    let has = |name: &str, v: u32, bits: &str| {
        fields
            .iter()
            .any(|l| l.starts_with(&format!("{name} [")) && l.ends_with(&format!("] {v} ({bits})")))
    };
    assert!(has("LOCK_ACQ_ID", w5 & 0xf, "bits 3..0"), "{fields:?}");
    assert!(
        has("LOCK_REL_ID", w5 >> 13 & 0xf, "bits 16..13"),
        "{fields:?}"
    );
    assert!(tree.contains("(col 0, row 1, STREAM_SWITCH_MASTER_CONFIG_"));
    // The JSON names the register of a WRITE's address, and the tile kind.
    let j = json::json_of(&x);
    let part = child(partition_node(&j), "pdi[0] image");
    let cdo = path(part, "partitions/[0] CDO");
    let cmds = items(child(cdo, "commands"));
    let w = cmds
        .iter()
        .find(|c| item_name(c) == "WRITE" && value(c).contains("STREAM_SWITCH_MASTER_CONFIG"))
        .unwrap();
    let a = child(w, "address");
    let word = u32_at(&f.bytes, off(a) - off(part));
    let o = word & 0xf_ffff;
    let name = Gen::AieMl.lookup(word >> 20 & 0x1f, o).unwrap().to_string();
    assert!(name.starts_with("STREAM_SWITCH_MASTER_CONFIG_"), "{name}");
    assert_eq!(value(child(a, "register")), format!("{name} (0x{o:05x})"));
    let row = word >> 20 & 0x1f;
    let kind = match row {
        0 => "shim tile",
        1 => "memory tile",
        _ => "compute tile",
    };
    assert_eq!(value(child(a, "row")), format!("{row} ({kind})"));
    let v = child(w, "value");
    let written = u32_at(&f.bytes, off(v) - off(part));
    assert_eq!(
        value(child(v, "MASTER_ENABLE")),
        format!("{} (bit 31)", written >> 31)
    );
    assert!(value(path(cdo, "summary/registers"))
        .starts_with("AIE-ML (AIE2) names (assumed: the xclbin gives no hw_gen): "));
}

#[test]
fn compact_dma_writes_name_their_registers_in_the_pool() {
    // aie-rt's xaie2pgbl_params.h: DMA_BD0_0 at 0x0001D000, its
    // BUFFER_LENGTH field LSB 0, WIDTH 14.
    let x = xclbins()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("AIE2P_Nx4"))
        .unwrap();
    let f = pdis_in(&x).into_iter().find(|f| f.what == "AIE#0").unwrap();
    assert!(is_compact(&f.bytes));
    let dma = expand_compact(&f.bytes)
        .into_iter()
        .find(|c| c.name == "DMA_WRITE" && c.addr == 0x0021_d000)
        .expect("a DMA_WRITE of BD 0 of tile (0, 2)");
    let data = dma.data.unwrap();
    let w0 = u32_at(&data, 0);
    let j = json::json_of(&x);
    let img = child(partition_node(&j), "pdi[0] image");
    let pool = path(img, "partitions/[0] CDO/data_pool");
    let chunk = items(pool)
        .into_iter()
        .find(|c| name(c).ends_with("] 0x0021d000"))
        .unwrap();
    let word = child(chunk, "[0] DMA_BD0_0");
    assert_eq!(value(word), format!("0x{w0:08x}"));
    assert_eq!(
        value(child(word, "BUFFER_LENGTH")),
        format!("0x{:x} (bits 13..0)", w0 & 0x3fff)
    );
    assert_eq!(kids(chunk).len(), data.len() / 4);
    assert!(value(path(img, "partitions/[0] CDO/summary/registers"))
        .starts_with("AIE2P names (hw_gen 4): "));
}
