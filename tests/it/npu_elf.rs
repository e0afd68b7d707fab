//! Control-code ELFs for AIE2PS: aiebu's own test programs
//! (`test/control-code/*.asm`) as aiebu's assembler writes them, checked
//! against aiebu's disassembler listing of each ELF (op by op: mnemonic,
//! operands, the buffer descriptor a pointer names; each buffer
//! descriptor's fields and the words it copies) and against readelf's
//! section table.

use crate::common;
use std::collections::HashMap;
use std::path::PathBuf;

use common::json::{self, child, items, kids, name};
use serde_json::Value;

const SAMPLES: &[&str] = &["sanity_eop", "col_0", "pager_test_success"];

pub(crate) fn asset(stem: &str) -> PathBuf {
    common::assets().join(format!("npu/aiebu__{stem}.elf"))
}

pub(crate) fn raw(n: &Value) -> u64 {
    n["raw"]
        .as_u64()
        .unwrap_or_else(|| panic!("no raw value in {}", n["name"]))
}

/// One op of the listing's text: its mnemonic and operands.
struct ListedOp {
    op: String,
    args: Vec<String>,
}

/// One buffer descriptor of the listing's data: the label before it (if
/// any), its operands, and the words at the label it names.
struct ListedBd {
    label: Option<String>,
    high: u64,
    low: u64,
    words_label: String,
    size: u64,
    external: u64,
    next: u64,
}

#[derive(Default)]
struct Page {
    ops: Vec<ListedOp>,
    bds: Vec<ListedBd>,
    /// The words under each label, in the order listed.
    words: Vec<(String, Vec<u64>)>,
}

fn hex(s: &str) -> u64 {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// aiebu's disassembler listing, by section suffix (`.0.0`).
fn listing(stem: &str) -> Vec<(String, Page)> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/npu/aiebu__{stem}.dis.asm")),
    )
    .unwrap();
    let mut pages: Vec<(String, Page)> = Vec::new();
    let mut in_text = false;
    // The last label, and whether nothing has come under it yet.
    let mut label = String::new();
    let mut fresh = false;
    for line in text.lines() {
        let l = line.trim();
        if let Some(s) = l.strip_prefix(".section ") {
            let sec = s.split(',').next().unwrap();
            let (kind, suffix) = sec.split_at(9);
            in_text = kind == ".ctrltext";
            if !pages.iter().any(|p| p.0 == suffix) {
                pages.push((suffix.to_string(), Page::default()));
            }
            continue;
        }
        if l.is_empty() || l.starts_with(';') || l.starts_with('.') && !l.starts_with(".long") {
            continue;
        }
        let page = &mut pages.last_mut().unwrap().1;
        if let Some(lab) = l.strip_suffix(':') {
            label = lab.to_string();
            fresh = true;
            continue;
        }
        let (op, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        let args: Vec<String> = rest
            .split(',')
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
            .collect();
        if in_text {
            page.ops.push(ListedOp {
                op: op.to_string(),
                args,
            });
        } else if op == "UC_DMA_BD" {
            page.bds.push(ListedBd {
                label: fresh.then(|| label.clone()),
                high: hex(&args[0]),
                low: hex(&args[1]),
                words_label: args[2].trim_start_matches('@').to_string(),
                size: hex(&args[3]),
                external: hex(&args[4]),
                next: hex(&args[5]),
            });
        } else if op == ".long" {
            if fresh {
                page.words.push((label.clone(), Vec::new()));
            }
            page.words.last_mut().unwrap().1.push(hex(&args[0]));
        }
        fresh = false;
    }
    pages
}

/// The value aiebu's listing writes for an operand, as the raw number the
/// ELF holds (labels apart).
fn operand(a: &str) -> u64 {
    if let Some(r) = a.strip_prefix("$r") {
        return r.parse().unwrap();
    }
    if let Some(g) = a.strip_prefix("$g") {
        return 8 + g.parse::<u64>().unwrap();
    }
    if let Some(b) = a.strip_prefix("$lb") {
        return b.parse().unwrap();
    }
    if let Some(b) = a.strip_prefix("$rb") {
        return 1 + b.parse::<u64>().unwrap();
    }
    if let Some(t) = a.strip_prefix("TILE_") {
        let (c, r) = t.split_once('_').unwrap();
        return c.parse::<u64>().unwrap() << 5 | r.parse::<u64>().unwrap();
    }
    if let Some(n) = a.strip_prefix("MM2S_") {
        return 6 + n.parse::<u64>().unwrap();
    }
    if let Some(n) = a.strip_prefix("S2MM_") {
        return n.parse().unwrap();
    }
    hex(a)
}

/// The fields that hold the operands aiebu's listing writes for an op, in
/// its order (the ISA's operands less the padding and the job size).
fn operand_fields(op: &str) -> &'static [&'static str] {
    match op {
        "START_JOB" | "START_JOB_DEFERRED" | "LAUNCH_JOB" => &["job_id"],
        "UC_DMA_WRITE_DES" => &["wait_handle", "descriptor_ptr"],
        "UC_DMA_WRITE_DES_SYNC" => &["descriptor_ptr"],
        "WAIT_UC_DMA" => &["wait_handle"],
        "LOCAL_BARRIER" => &["local_barrier_id", "num_participants"],
        "WRITE_32" | "POLL_32" => &["address", "value"],
        "MASK_WRITE_32" | "MASK_POLL_32" => &["address", "mask", "value"],
        "WAIT_TCTS" => &["tile_id", "actor_id", "target_tcts"],
        "END_JOB" | "EOF" | "NOP" | "YIELD" => &[],
        other => panic!("{other}: not in this test's list"),
    }
}

/// The section node named `[i] NAME`.
pub(crate) fn section<'a>(j: &'a Value, sec: &str) -> &'a Value {
    let secs = child(&j["root"], "sections");
    kids(secs)
        .into_iter()
        .find(|n| name(n).split_once("] ").is_some_and(|x| x.1 == sec))
        .unwrap_or_else(|| panic!("no section {sec}"))
}

/// The JSON of the ELF `file`, which opens as ELF with neither errors
/// nor warnings.
pub(crate) fn clean_elf(file: &std::path::Path) -> Value {
    let j = json::json_of(file);
    let f = file.display();
    assert_eq!(j["format"], "elf", "{f}");
    assert!(json::errors(&j).is_empty(), "{f}: {:?}", json::errors(&j));
    let w = json::messages(&j, "warning");
    assert!(w.is_empty(), "{f}: {w:?}");
    j
}

pub(crate) fn link(n: &Value) -> Option<(u64, u64)> {
    let l = n.get("link")?;
    Some((l["offset"].as_u64()?, l["size"].as_u64()?))
}

#[test]
fn aiebu_control_code_elfs_match_aiebus_disassembly() {
    for stem in SAMPLES {
        let j = clean_elf(&asset(stem));
        let pages = listing(stem);
        assert!(!pages.is_empty(), "{stem}");
        for (suffix, page) in &pages {
            let text = section(&j, &format!(".ctrltext{suffix}"));
            let data = section(&j, &format!(".ctrldata{suffix}"));
            // Buffer descriptors and words in the data, in file order.
            let dk = kids(data);
            let bds: Vec<&Value> = dk
                .iter()
                .copied()
                .filter(|n| name(n).ends_with("] UC_DMA_BD"))
                .collect();
            let words: Vec<&Value> = dk
                .iter()
                .copied()
                .filter(|n| name(n).starts_with("words of "))
                .collect();
            assert_eq!(bds.len(), page.bds.len(), "{stem}{suffix}: BDs");
            let mut labels: HashMap<&str, u64> = HashMap::new();
            let mut words_at: HashMap<&str, u64> = HashMap::new();
            for (g, w) in bds.iter().zip(&page.bds) {
                let what = format!("{stem}{suffix} {}", name(g));
                assert_eq!(raw(child(g, "remote_ptr_high")), w.high, "{what}");
                assert_eq!(raw(child(g, "remote_ptr_low")), w.low, "{what}");
                assert_eq!(raw(child(g, "size")), w.size, "{what}");
                assert_eq!(raw(child(g, "external")), w.external, "{what}");
                assert_eq!(raw(child(g, "next_bd")), w.next, "{what}");
                assert_eq!(json::size(g), 16);
                if let Some(l) = &w.label {
                    labels.insert(l, json::off(g));
                }
                let (to, _) = link(child(g, "local_ptr")).expect("a link to the words");
                words_at.entry(&w.words_label).or_insert(to);
            }
            assert_eq!(words.len(), page.words.len(), "{stem}{suffix}: word blocks");
            for (g, (lab, want)) in words.iter().zip(&page.words) {
                let got: Vec<u64> = kids(g).iter().map(|w| raw(w)).collect();
                assert_eq!(&got, want, "{stem}{suffix} {lab}");
                assert_eq!(
                    words_at.get(lab.as_str()),
                    Some(&json::off(g)),
                    "{stem}{suffix} {lab}"
                );
            }
            // The ops, end to end from the page header on.
            let ops = items(child(text, "ops"));
            assert_eq!(ops.len(), page.ops.len(), "{stem}{suffix}: ops");
            let mut at = json::off(text) + 16;
            for (g, want) in ops.iter().zip(&page.ops) {
                let what = format!("{stem}{suffix} {}", name(g));
                assert_eq!(json::off(g), at, "{what}");
                at += json::size(g);
                assert_eq!(name(g).split_once("] ").unwrap().1, want.op, "{what}");
                let fields = operand_fields(&want.op);
                assert_eq!(fields.len(), want.args.len(), "{what}");
                for (f, a) in fields.iter().zip(&want.args) {
                    let n = child(g, f);
                    match a.strip_prefix('@') {
                        Some(l) => {
                            let to = labels[l];
                            assert_eq!(link(n), Some((to, 16)), "{what} {f}");
                        }
                        None => assert_eq!(raw(n), operand(a), "{what} {f}"),
                    }
                }
            }
            // A job's size runs from its START_JOB through its END_JOB.
            for (i, g) in ops.iter().enumerate() {
                if name(g).ends_with("] START_JOB") {
                    let end = ops[i..]
                        .iter()
                        .find(|o| name(o).ends_with("] END_JOB"))
                        .unwrap();
                    assert_eq!(
                        raw(child(g, "size")),
                        json::off(end) + json::size(end) - json::off(g),
                        "{stem}{suffix} {}",
                        name(g)
                    );
                }
            }
        }
    }
}

#[test]
fn control_code_sections_lie_where_readelf_says() {
    if !common::tool("readelf") {
        return;
    }
    for stem in SAMPLES {
        let seen = sections_lie_where("readelf", &asset(stem), ".ctrl");
        assert!(seen >= 2, "{stem}");
    }
}

/// Checks that the sections of `file` whose names start with `prefix` lie
/// where `readelf -S -W` (or llvm-readelf's) says; returns how many.
pub(crate) fn sections_lie_where(readelf: &str, file: &std::path::Path, prefix: &str) -> usize {
    let out = std::process::Command::new(readelf)
        .args(["-S", "-W"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{readelf} {}", file.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let j = json::json_of(file);
    let mut seen = 0;
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix('[') else {
            continue;
        };
        let f: Vec<&str> = rest
            .split(']')
            .nth(1)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if f.len() < 5 || !f[0].starts_with(prefix) {
            continue;
        }
        let n = section(&j, f[0]);
        let off = u64::from_str_radix(f[3], 16).unwrap();
        let size = u64::from_str_radix(f[4], 16).unwrap();
        assert_eq!(
            (json::off(n), json::size(n)),
            (off, size),
            "{} {}",
            file.display(),
            f[0]
        );
        seen += 1;
    }
    seen
}

/// The memory tile registers the samples' `WRITE_32`s write, as aie-rt's
/// AIE2PS header names them (`xaie2psgbl_params.h` at commit 3999190f,
/// MIT), quoted.
const AIE2PS_LINES: &str = "
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_S2MM_0_START_QUEUE               0x000A0604
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_MM2S_0_START_QUEUE               0x000A0634
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_MM2S_1_START_QUEUE               0x000A063C
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_MM2S_2_START_QUEUE               0x000A0644
#define XAIE2PSGBL_MEM_TILE_MODULE_DMA_MM2S_3_START_QUEUE               0x000A064C
";

/// Every `WRITE_32` of aiebu's listings to a memory tile (row 1; column at
/// bit 25, row at bit 20) names the AIE2PS register it writes.
#[test]
fn control_code_writes_name_their_aie2ps_registers() {
    let names: HashMap<u64, &str> = AIE2PS_LINES
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().skip(1);
            let name = w.next()?.strip_prefix("XAIE2PSGBL_MEM_TILE_MODULE_")?;
            Some((hex(w.next()?), name))
        })
        .collect();
    let mut checked = 0;
    for stem in SAMPLES {
        let j = json::json_of(&asset(stem));
        for (suffix, page) in listing(stem) {
            let text = section(&j, &format!(".ctrltext{suffix}"));
            let ops = items(child(text, "ops"));
            for (g, want) in ops.iter().zip(&page.ops) {
                if want.op != "WRITE_32" {
                    continue;
                }
                let a = operand(&want.args[0]);
                // One test program writes 0x2a0604: row 2 is a compute
                // tile, which has no register there.
                if (a >> 20) & 0x1f != 1 {
                    continue;
                }
                let reg = names[&(a & 0xf_ffff)];
                let v = child(g, "address")["value"].as_str().unwrap_or_default();
                let want = format!("col {}, row 1, {reg} (0x{:05x})", a >> 25, a & 0xf_ffff);
                assert!(v.contains(&want), "{stem}{suffix} {}: {v}", name(g));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 31);
}

/// The `.ctrltext*` sections `llvm-readelf-22 -S -W` lists in `file`: index
/// and name.
pub(crate) fn ctrltext_sections(file: &std::path::Path) -> Vec<(u64, String, u64)> {
    let out = std::process::Command::new("llvm-readelf-22")
        .args(["-S", "-W"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "llvm-readelf-22 {}", file.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix('[')?;
            let (i, rest) = rest.split_once(']')?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let name = *f.first()?;
            name.starts_with(".ctrltext").then(|| {
                let off = u64::from_str_radix(f.get(3).copied().unwrap_or("0"), 16).unwrap();
                (i.trim().parse().unwrap(), name.to_string(), off)
            })
        })
        .collect()
}

/// `--targets` lists each page of control code an AIE2PS ELF carries
/// (`EI_OSABI` 0x40 is aiebu's AIE2PS ABI) as code for an `aie2ps` NPU, at
/// the section llvm-readelf names.
#[test]
fn targets_lists_each_page_of_aie2ps_control_code() {
    if !common::tool("llvm-readelf-22") {
        return;
    }
    for stem in SAMPLES {
        let file = asset(stem);
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(bytes[7], 0x40, "{stem}: EI_OSABI");
        let want: Vec<String> = ctrltext_sections(&file)
            .iter()
            .map(|(i, n, _)| format!("elf\taie2ps\tnpu\tsections/[{i}] {n}"))
            .collect();
        assert!(!want.is_empty(), "{stem}");
        let out = common::fwview(&["--targets".as_ref(), file.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{stem}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().collect::<Vec<_>>(), want, "{stem}");
    }
}
