//! aiebu's AIE2 ELFs (`EI_OSABI` 0x45): `basic.elf` as aiebu's test builds
//! it from `ml_txn.bin`, `ctrl_pkt0.bin` and `external_buffer_id.json`
//! (its md5 is aiebu's gold), and the same from aiebu's text listing of
//! the transaction. Checked against llvm-readelf's section table and
//! relocations, aiebu's listing of the transaction (op by op, as for the
//! bare transaction), and the JSON's buffers and patch locations.

use crate::common;
use crate::npu::matches_aiebus_listing;
use crate::npu_elf::{asset, clean_elf, link, raw, section, sections_lie_where};

use common::json::{self, child, items, kids, name};
use serde_json::Value;

const SAMPLES: &[&str] = &["basic", "ctrl_packet1"];

fn readelf(args: &[&str], stem: &str) -> String {
    let out = std::process::Command::new("llvm-readelf-22")
        .args(args)
        .arg(asset(stem))
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The buffers of aiebu's `external_buffer_id.json`: the xrt id, whether
/// it is the control packet buffer, and its patch locations' offsets.
fn buffers() -> Vec<(u64, bool, Vec<u64>)> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/npu/aiebu__external_buffer_id.json"),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["external_buffers"]
        .as_object()
        .unwrap()
        .values()
        .map(|b| {
            let locs = b["control_packet_patch_locations"]
                .as_array()
                .map(|a| a.iter().map(|l| l["offset"].as_u64().unwrap()).collect())
                .unwrap_or_default();
            (
                b["xrt_id"].as_u64().unwrap(),
                b["ctrl_pkt_buffer"].as_bool().unwrap_or(false),
                locs,
            )
        })
        .collect()
}

#[test]
fn aie2_elf_sections_lie_where_llvm_readelf_says() {
    if !common::tool("llvm-readelf-22") {
        return;
    }
    for stem in SAMPLES {
        assert_eq!(
            sections_lie_where("llvm-readelf-22", &asset(stem), "."),
            8,
            "{stem}"
        );
    }
}

#[test]
fn aie2_elf_transaction_matches_aiebus_listing_op_by_op() {
    for stem in SAMPLES {
        let j = clean_elf(&asset(stem));
        let text = section(&j, ".ctrltext");
        let b = std::fs::read(asset(stem)).unwrap();
        let (a, l) = (json::off(text) as usize, json::size(text) as usize);
        matches_aiebus_listing(text, &b[a..a + l], a as u64);
    }
}

/// One relocation as llvm-readelf prints it: offset, type, symbol name,
/// addend.
fn readelf_relocs(stem: &str) -> Vec<(u64, u64, String, u64)> {
    readelf(&["-r"], stem)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() != 7 || f[5] != "+" {
                return None;
            }
            let off = u64::from_str_radix(f[0], 16).ok()?;
            let info = u64::from_str_radix(f[1], 16).ok()?;
            Some((
                off,
                info & 0xff,
                f[4].to_string(),
                u64::from_str_radix(f[6], 16).ok()?,
            ))
        })
        .collect()
}

#[test]
fn aie2_elf_relocations_are_llvm_readelfs_and_patch_what_the_json_says() {
    if !common::tool("llvm-readelf-22") {
        return;
    }
    let bufs = buffers();
    for stem in SAMPLES {
        let want = readelf_relocs(stem);
        assert_eq!(want.len(), 48, "{stem}");
        let j = json::json_of(&asset(stem));
        let rela = section(&j, ".rela.dyn");
        let data = section(&j, ".ctrldata");
        let text = section(&j, ".ctrltext");
        let got = kids(rela);
        assert_eq!(got.len(), want.len(), "{stem}");
        let ops = items(child(text, "ops"));
        for (g, (off, typ, sym, add)) in got.iter().zip(&want) {
            let what = format!("{stem} {}", name(g));
            assert_eq!(raw(child(g, "r_offset")), *off, "{what}");
            assert_eq!(raw(child(g, "r_addend")), *add, "{what}");
            let info = child(g, "r_info");
            assert_eq!(raw(child(info, "type")), *typ, "{what}");
            assert!(name(g).ends_with(&format!(" {sym}")), "{what}");
            match typ {
                // A patch of the control packets: at a location the JSON
                // gives for the buffer of kernel argument `xrt_id + 3`,
                // 8 bytes past r_offset, 6 bytes long.
                4 => {
                    assert!(name(g).contains("control_packet_48"), "{what}");
                    let x: u64 = sym.parse().unwrap();
                    let buf = bufs.iter().find(|b| b.0 + 3 == x).unwrap();
                    assert!(buf.2.contains(&(off + 8)), "{what}");
                    assert_eq!(link(g), Some((json::off(data) + off + 8, 6)), "{what}");
                }
                // A shim buffer descriptor's address in a block write of
                // the transaction, its words 1 and 2: the DDR_PATCH after
                // the block write names that word, the argument (the
                // control packet buffer of the JSON) and the addend.
                5 => {
                    assert!(name(g).contains("shim_dma_48"), "{what}");
                    let (to, n) = link(g).expect("a link");
                    assert_eq!((to, n), (json::off(text) + off + 4, 6), "{what}");
                    let i = ops
                        .iter()
                        .position(|o| json::off(o) <= to && to < json::off(o) + json::size(o))
                        .unwrap();
                    assert!(name(ops[i]).ends_with("] BLOCKWRITE"), "{what}");
                    let first = kids(child(ops[i], "data"))[0];
                    let word = (to - json::off(first)) / 4;
                    let patch = ops[i + 1];
                    assert!(name(patch).ends_with("] DDR_PATCH"), "{what}");
                    assert_eq!(
                        raw(child(patch, "address")),
                        raw(child(ops[i], "address")) + 4 * word,
                        "{what}"
                    );
                    assert_eq!(word % 8, 1, "{what}");
                    assert_eq!(raw(child(patch, "arg_plus")), *add, "{what}");
                    let arg = raw(child(patch, "arg_index"));
                    let buf = bufs.iter().find(|b| b.0 == arg).unwrap();
                    assert!(buf.1 && sym == "control-packet", "{what}");
                }
                other => panic!("{what}: type {other}"),
            }
        }
    }
}

#[test]
fn aie2_elf_control_packets_hold_the_patched_addresses() {
    let bufs = buffers();
    let j = json::json_of(&asset("basic"));
    let data = section(&j, ".ctrldata");
    let packets = items(child(data, "packets"));
    // Packets lie end to end over the whole section.
    let mut at = json::off(data);
    for p in &packets {
        assert_eq!(json::off(p), at, "{}", name(p));
        at += json::size(p);
    }
    assert_eq!(at, json::off(data) + json::size(data));
    // Every patch location of the JSON is the second data word of a
    // packet that writes a shim or memory tile buffer descriptor's first
    // words (0x1d000 + 0x20 * n, 0xa0000 + 0x20 * n).
    let locs: Vec<u64> = bufs.iter().flat_map(|b| b.2.clone()).collect();
    assert_eq!(locs.len(), 12);
    for loc in locs {
        let at = json::off(data) + loc;
        let p = packets
            .iter()
            .find(|p| json::off(p) <= at && at < json::off(p) + json::size(p))
            .unwrap();
        let words = kids(child(p, "data"));
        assert_eq!(json::off(words[1]), at, "{}", name(p));
        let addr = raw(child(child(p, "control_header"), "address"));
        assert!(
            addr & 0x1f == 0
                && ((0x1d000..0x1d200).contains(&addr) || (0xa0000..0xa0600).contains(&addr)),
            "{} 0x{addr:x}",
            name(p)
        );
    }
}

/// `.ctrldata` cut 24 bytes short in its section header: the last packet
/// (3 words from 0x5f60) no longer fits, and the 8 bytes left of it are an
/// error where they start.
#[test]
fn a_cut_control_packet_is_an_error_at_its_bytes() {
    let mut b = std::fs::read(asset("basic")).unwrap();
    // sh_size of section 2 (.ctrldata): the section headers start at
    // 0x7950, 40 bytes each, sh_size at 20.
    let at = 0x7950 + 2 * 40 + 20;
    assert_eq!(b[at..at + 4], 0x5f80u32.to_le_bytes());
    b[at..at + 4].copy_from_slice(&(0x5f80u32 - 24).to_le_bytes());
    let j = json::json_of_bytes(b);
    let errs = json::located(&j, "error");
    assert!(
        errs.iter()
            .any(|(o, m)| *o == 0xc0 + 0x5f60 && m.contains("after the last whole control packet")),
        "{errs:?}"
    );
    let data = section(&j, ".ctrldata");
    assert_eq!(items(child(data, "packets")).len(), 763);
}

/// aie-rt's device generations (`XAIE_DEV_GEN_*` in `xaiegbl_defs.h`) by
/// the short name `--targets` gives their register set: AIE-ML and its
/// first NPU (2, 3) are `aie2`, AIE2P and the Strix devices (4, 8, 9)
/// `aie2p`, AIE2PS (5) `aie2ps`.
fn generation(dev_gen: u8) -> &'static str {
    match dev_gen {
        2 | 3 => "aie2",
        4 | 8 | 9 => "aie2p",
        5 => "aie2ps",
        _ => "aie",
    }
}

/// `--targets` lists a transaction, bare or in an AIE2 ELF's `.ctrltext`,
/// as configuring the NPU generation and columns its header gives (bytes
/// 2 and 4), at the section llvm-readelf names.
#[test]
fn targets_lists_the_transactions_generation_and_columns() {
    if !common::tool("llvm-readelf-22") {
        return;
    }
    let txn = common::assets().join("npu/aiebu__ml_txn.bin");
    let mut cases = vec![(txn.clone(), 0u64, "/".to_string())];
    for stem in SAMPLES {
        let file = asset(stem);
        for (i, n, off) in crate::npu_elf::ctrltext_sections(&file) {
            cases.push((file.clone(), off, format!("sections/[{i}] {n}")));
        }
    }
    assert!(
        cases.len() > SAMPLES.len(),
        "every AIE2 ELF has a .ctrltext"
    );
    let mut files: Vec<_> = cases.iter().map(|c| c.0.clone()).collect();
    files.dedup();
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let want: Vec<String> = cases
            .iter()
            .filter(|c| c.0 == file)
            .map(|(_, off, path)| {
                let h = &bytes[*off as usize..];
                let cols = h[4];
                let s = if cols == 1 { "" } else { "s" };
                format!(
                    "npu-transaction\t{} ({cols} column{s})\tnpu\t{path}",
                    generation(h[2])
                )
            })
            .collect();
        let out = common::fwview(&["--targets".as_ref(), file.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{}", file.display());
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().collect::<Vec<_>>(), want, "{}", file.display());
    }
}
