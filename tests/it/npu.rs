//! NPU control code. Transaction buffers: aiebu's real `ml_txn.bin` against
//! aiebu's own listing of it, op by op; buffers built here from the words
//! mlir-aie's tests list beside the ops that emit them (`test/Targets/NPU/`),
//! each op's offset, size, name, tile, register and value taken from those
//! ops. Instruction sequences: Riallto's `.seq` files, walked here with the
//! op lengths mlir-aie's IPU target writes. Detection, `--diff`, links and
//! hostile sizes.

use crate::common;
use std::collections::HashMap;
use std::path::PathBuf;

use common::json::{self, child, items, kids, name, path, val};
use fwview::model::Format;
use serde_json::Value;

fn asset(rel: &str) -> PathBuf {
    common::assets().join(rel)
}

fn raw(n: &Value) -> u64 {
    n["raw"]
        .as_u64()
        .unwrap_or_else(|| panic!("no raw value in {}", n["name"]))
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The ops of a transaction's JSON.
fn ops(j: &Value) -> Vec<&Value> {
    items(child(&j["root"], "ops"))
}

/// `[index] NAME` -> NAME.
fn op_name(n: &Value) -> &str {
    name(n).split_once("] ").map_or("", |x| x.1)
}

// ---------------------------------------------------------------------------
// aiebu's transaction and its listing

/// One line of aiebu's listing: the op's name and its operands.
fn listing() -> Vec<(String, Vec<u64>)> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/npu/aiebu__ml_txn.ctrltext.asm"),
    )
    .unwrap();
    text.lines()
        .filter(|l| l.starts_with("XAIE_IO_"))
        .map(|l| {
            let (op, rest) = l.split_once(char::is_whitespace).unwrap();
            let op = op
                .trim_start_matches("XAIE_IO_CUSTOM_OP_")
                .trim_start_matches("XAIE_IO_");
            let args = rest
                .split(',')
                .map(|a| {
                    let a = a.trim().trim_start_matches('@');
                    match a.strip_prefix("0x") {
                        Some(h) => u64::from_str_radix(h, 16).unwrap(),
                        None => a.parse().unwrap(),
                    }
                })
                .collect();
            (op.to_string(), args)
        })
        .collect()
}

#[test]
fn aiebu_transaction_matches_aiebus_listing_op_by_op() {
    let j = json::json_of(&asset("npu/aiebu__ml_txn.bin"));
    assert_eq!(j["format"], "npu-transaction");
    assert!(json::errors(&j).is_empty(), "{:?}", json::errors(&j));
    let b = std::fs::read(asset("npu/aiebu__ml_txn.bin")).unwrap();
    matches_aiebus_listing(&j["root"], &b, 0);
}

/// Checks the transaction whose header and ops are under `node`, its bytes
/// `b` at offset `base` of the file, against aiebu's listing of
/// `ml_txn.bin`, op by op.
pub(crate) fn matches_aiebus_listing(node: &Value, b: &[u8], base: u64) {
    let h = path(node, "header");
    assert_eq!(
        raw(child(h, "num_ops")),
        u64::from(u32::from_le_bytes(b[8..12].try_into().unwrap()))
    );
    assert_eq!(raw(child(h, "dev_gen")), u64::from(b[2]));
    let want = listing();
    let got = items(child(node, "ops"));
    assert_eq!(got.len(), want.len());
    // The ops lie end to end from the header to the size it gives.
    let mut at = base + 16;
    for (i, (g, (op, args))) in got.iter().zip(&want).enumerate() {
        let next = want.get(i + 1).map(|(o, a)| (o.as_str(), a));
        assert_eq!(json::off(g), at, "{}", name(g));
        at += json::size(g);
        assert_eq!(op_name(g), op, "{}", name(g));
        let addr = child(g, "address");
        assert_eq!(raw(addr), args[0], "{}", name(g));
        // The address split as aie-rt's AIE2P layout has it: column from
        // bit 25, row from bit 20.
        assert_eq!(json::lead(val(child(addr, "column"))), args[0] >> 25);
        assert_eq!(json::lead(val(child(addr, "row"))), (args[0] >> 20) & 0x1f);
        match op.as_str() {
            "WRITE" => assert_eq!(raw(child(g, "value")), args[1]),
            "MASKPOLL" => {
                assert_eq!(raw(child(g, "mask")), args[1]);
                assert_eq!(raw(child(g, "value")), args[2]);
            }
            "DDR_PATCH" => {
                assert_eq!(raw(child(g, "arg_index")), args[1]);
                assert_eq!(raw(child(g, "arg_plus")), args[2]);
            }
            "BLOCKWRITE" => {
                let data = child(g, "data");
                let words: Vec<u64> = kids(data).iter().map(|w| raw(w)).collect();
                assert_eq!(words.len(), args.len() - 1, "{}", name(g));
                for (k, (x, y)) in words.iter().zip(&args[1..]).enumerate() {
                    // aiebu's listing shows a BD's address word that the
                    // next op, a DDR_PATCH, patches as 0: the binary holds
                    // the patch's offset there.
                    let patched = next.is_some_and(|(o, a)| {
                        o == "DDR_PATCH" && a[0] == args[0] + 4 * k as u64 && a[2] == *x
                    });
                    assert!(
                        x == y || (*y == 0 && patched),
                        "{} word {k}: {x:#x} {y:#x}",
                        name(g)
                    );
                }
            }
            other => panic!("{other} in the listing"),
        }
    }
    assert_eq!(at, base + b.len() as u64);
}

#[test]
fn a_ddr_patch_leads_to_the_bd_word_it_patches_and_a_push_to_its_bd() {
    let mut t = fwview::formats::build_tree(
        std::sync::Arc::new(fwview::model::Source::open(&asset("npu/aiebu__ml_txn.bin")).unwrap()),
        "ml_txn.bin",
    );
    let patch = t
        .find_path("ml_txn.bin/ops/[1] DDR_PATCH/address")
        .expect("the patch's address");
    let l = t.link(patch).expect("a link");
    // Op 0, a BLOCKWRITE of 8 words to DMA_BD0_0 at 0x801d000 from byte
    // 0x10 + 16: the patched 0x801d004 is its second word.
    assert_eq!((l.offset, l.len), (0x10 + 16 + 4, 4));
    let push = t
        .find_path("ml_txn.bin/ops/[2] WRITE/value")
        .expect("the push's value");
    let l = t.link(push).expect("a link");
    // The push starts BD 0 (0x30000: bits 3..0 are 0): op 0's first word.
    assert_eq!((l.offset, l.len), (0x10 + 16, 4));
}

// ---------------------------------------------------------------------------
// mlir-aie's word lists

/// What an op of a word list must decode to: its name, its size, and
/// (column, row, register offset, value) when it writes a register.
struct Want {
    name: &'static str,
    size: u64,
    write: Option<(u64, u64, u64, Option<u64>)>,
}

fn w(name: &'static str, size: u64, write: Option<(u64, u64, u64, Option<u64>)>) -> Want {
    Want { name, size, write }
}

/// The tile and offset of an absolute address in mlir-aie's NPU target
/// models (column shift 25, row shift 20).
fn split(a: u64) -> (u64, u64, u64) {
    (a >> 25, (a >> 20) & 0x1f, a & 0xf_ffff)
}

fn check_words(what: &str, words: &[u32], dev_gen: u64, want: &[Want]) -> Value {
    let j = json::json_of_bytes(bytes_of(words));
    assert_eq!(j["format"], "npu-transaction", "{what}");
    assert!(
        json::errors(&j).is_empty(),
        "{what}: {:?}",
        json::errors(&j)
    );
    assert_eq!(raw(path(&j["root"], "header/dev_gen")), dev_gen);
    let got = ops(&j);
    assert_eq!(got.len(), want.len(), "{what}");
    let mut at = 16;
    for (g, x) in got.iter().zip(want) {
        assert_eq!(op_name(g), x.name, "{what}");
        assert_eq!(
            (json::off(g), json::size(g)),
            (at, x.size),
            "{what}: {}",
            name(g)
        );
        at += x.size;
        if let Some((c, r, o, v)) = x.write {
            let a = child(g, "address");
            assert_eq!(split(raw(a)), (c, r, o), "{what}: {}", name(g));
            assert_eq!(json::lead(val(child(a, "column"))), c);
            assert_eq!(json::lead(val(child(a, "row"))), r);
            assert!(
                val(child(a, "register")).contains(&format!("0x{o:05x}")),
                "{what}"
            );
            if let Some(v) = v {
                assert_eq!(raw(child(g, "value")), v, "{what}: {}", name(g));
            }
        }
    }
    assert_eq!(at, words.len() as u64 * 4, "{what}");
    j
}

/// The CHECK words `test/Targets/NPU/npu_instgen.mlir` and
/// `npu2_instgen.mlir` share, after their headers: two write32, two
/// blockwrite, a maskwrite32 and a sync.
const INSTGEN_BODY: &[u32] = &[
    0x00000000, 0x00000000, 0x06400DEF, 0x00000000, 0x00000042, 0x00000018, // write32
    0x00000000, 0x00000000, 0xABC00DEF, 0x00000000, 0x00000314, 0x00000018, // write32
    0x00000001, 0x00000000, 0x12345679, 0x00000030, 0x00000064, 0x00000065, 0x00000066, 0x00000067,
    0x00000068, 0x00000069, 0x0000006A, 0x0000006B, // blockwrite
    0x00000001, 0x00000101, 0x02100064, 0x00000030, 0x00000064, 0x00000065, 0x00000066, 0x00000067,
    0x00000068, 0x00000069, 0x0000006A, 0x0000006B, // blockwrite
    0x00000003, 0x00000000, 0x0430567A, 0x00000000, 0x00001001, 0xF00FF00F,
    0x0000001C, // maskwrite32
    0x00000080, 0x00000010, 0x00030401, 0x05010200, // sync
];

/// `npu_instgen.mlir` (npu1: header 0.1, device generation 3), ending in
/// a load_pdi.
fn npu_instgen() -> Vec<u32> {
    let mut w = vec![0x06030100, 0x00000104, 0x00000007, 0x000000DC];
    w.extend_from_slice(INSTGEN_BODY);
    w.extend_from_slice(&[0x00020008, 0x00000400, 0x12345678, 0x00000ABC]);
    w
}

/// What the shared ops are, from their MLIR.
fn instgen_body() -> Vec<Want> {
    vec![
        // write32 { column = 3, row = 4, address = 0xabc00def, value = 0x42 }
        w("WRITE", 24, Some((3, 4, 0xdef, Some(0x42)))),
        // write32 { address = 0xabc00def, value = 0x314 }
        w(
            "WRITE",
            24,
            Some((
                0xabc00def >> 25,
                (0xabc00def >> 20) & 0x1f,
                0xdef,
                Some(0x314),
            )),
        ),
        // blockwrite { address = 0x12345679 } of 8 words 100..107
        w(
            "BLOCKWRITE",
            48,
            Some((0x12345679 >> 25, (0x12345679 >> 20) & 0x1f, 0x45679, None)),
        ),
        // blockwrite { column = 1, row = 1, address = 100 }
        w("BLOCKWRITE", 48, Some((1, 1, 100, None))),
        // maskwrite32 { column = 2, row = 3, address = 0x567A, value = 0x1001, mask = 0xf00ff00f }
        w("MASKWRITE", 28, Some((2, 3, 0x567a, Some(0x1001)))),
        // sync { column = 3, row = 4, direction = 1, channel = 5, column_num = 1, row_num = 2 }
        w("TCT", 16, None),
    ]
}

#[test]
fn mlir_aie_npu_instgen_words_decode_to_their_ops() {
    let mut want = instgen_body();
    // load_pdi { address = 0xabc12345678, id = 2, size = 1024 }
    want.push(w("LOADPDI", 16, None));
    let j = check_words("npu_instgen", &npu_instgen(), 3, &want);
    let o = ops(&j);
    assert_eq!(raw(child(o[4], "mask")), 0xf00ff00f);
    for (k, g) in o[2..4].iter().enumerate() {
        assert_eq!(raw(child(g, "size")), 48, "blockwrite {k}");
        // The data: the 8 words of @write_data, 100 to 107.
        let (at, n) = json::range(child(g, "data"));
        let words = npu_instgen();
        let data = &words[at as usize / 4..(at + n) as usize / 4];
        assert_eq!(data, (100..108).collect::<Vec<u32>>());
    }
    let tct = o[5];
    for (f, v) in [
        ("column", 3),
        ("row", 4),
        ("direction", 1),
        ("channel", 5),
        ("column_num", 1),
        ("row_num", 2),
    ] {
        assert_eq!(json::lead(val(child(tct, f))), v, "sync {f}");
    }
    assert!(val(child(tct, "direction")).contains("MM2S"));
    let pdi = o[6];
    assert_eq!(raw(child(pdi, "pdi_id")), 2);
    assert_eq!(raw(child(pdi, "pdi_size")), 1024);
    assert_eq!(raw(child(pdi, "pdi_address")), 0xabc12345678);
}

/// `npu2_instgen.mlir` (npu2: device generation 4), ending in a preempt.
#[test]
fn mlir_aie_npu2_instgen_words_decode_to_their_ops() {
    let mut words = vec![0x06040100, 0x00000108, 0x00000007, 0x000000D0];
    words.extend_from_slice(INSTGEN_BODY);
    words.push(0x00000306); // preempt { level = 3 }
    let mut want = instgen_body();
    want.push(w("PREEMPT", 4, None));
    let j = check_words("npu2_instgen", &words, 4, &want);
    let p = ops(&j)[6];
    assert_eq!(raw(child(p, "level")), 3);
    assert!(val(child(p, "level")).contains("AIE_REGISTERS"));
    assert!(val(path(&j["root"], "summary/register_names")).contains("AIE2P"));
}

/// `test/Targets/NPU/npu_blockwrite_instgen.mlir`'s CHECK words: a
/// `writebd` of BD 6 of the memory tile at column 3, row 1, a write32 and a
/// sync.
const NPU_BLOCKWRITE_INSTGEN: &[u32] = &[
    0x06030100, 0x00000104, 0x00000003, 0x00000068, // header
    0x00000001, 0x00000000, 0x061A00C0, 0x00000030, 0x00000001, 0x00580002, 0x000C0005, 0x00100007,
    0x00000009, 0x00000000, 0x059A000C, 0x84038201, // writebd
    0x00000000, 0x00000000, 0x06400DEF, 0x00000000, 0x00000042, 0x00000018, 0x00000080, 0x00000010,
    0x00030401, 0x05010200,
];

#[test]
fn a_block_write_to_a_bd_shows_each_word_as_that_bds_fields() {
    let j = check_words(
        "npu_blockwrite_instgen",
        NPU_BLOCKWRITE_INSTGEN,
        3,
        &[
            // BD 6 of a memory tile: its registers from 0xA0000, 0x20 apart.
            w("BLOCKWRITE", 48, Some((3, 1, 0xa0000 + 6 * 0x20, None))),
            w("WRITE", 24, Some((3, 4, 0xdef, Some(0x42)))),
            w("TCT", 16, None),
        ],
    );
    let data = child(ops(&j)[0], "data");
    let words = kids(data);
    assert_eq!(words.len(), 8);
    for (k, word) in words.iter().enumerate() {
        assert_eq!(name(word), format!("[{k}] DMA_BD6_{k}"));
    }
    // The writebd's attributes, each in its field.
    let field = |k: usize, f: &str| json::lead(val(child(words[k], f)));
    assert_eq!(field(0, "BUFFER_LENGTH"), 1);
    let all: Vec<(&str, u64)> = words
        .iter()
        .flat_map(|w| kids(w).into_iter().map(|f| (name(f), json::lead(val(f)))))
        .collect();
    for (f, v) in [
        ("NEXT_BD", 5),
        ("USE_NEXT_BD", 1),
        ("VALID_BD", 1),
        ("LOCK_REL_VALUE", 4),
        ("LOCK_REL_ID", 3),
        ("LOCK_ACQ_ENABLE", 1),
        ("LOCK_ACQ_VALUE", 2),
        ("LOCK_ACQ_ID", 1),
    ] {
        assert!(all.contains(&(f, v)), "{f} = {v} in {all:?}");
    }
}

/// `test/Targets/NPU/npu_read_reg_instgen.mlir`: a read of tile (2, 3)
/// offset 0x100, as one 32-bit address after the count.
#[test]
fn a_read_regs_op_names_its_registers() {
    let words = [
        0x06040100, 0x00000108, 0x00000001, 0x00000020, 0x82, 0x10, 1, 0x04300100,
    ];
    let j = check_words(
        "npu_read_reg_instgen",
        &words,
        4,
        &[w("READ_REGS", 16, None)],
    );
    let r = child(ops(&j)[0], "registers");
    let k = kids(r);
    assert_eq!(k.len(), 1);
    assert_eq!(split(raw(k[0])), (2, 3, 0x100));
}

// ---------------------------------------------------------------------------
// Riallto's instruction sequences

/// The words of a `.seq` file, read here.
fn seq_words(b: &[u8]) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut at = 0u64;
    for line in b.split_inclusive(|&c| c == b'\n') {
        let s = std::str::from_utf8(line).unwrap().trim_end();
        out.push((at, u32::from_str_radix(s, 16).unwrap()));
        at += line.len() as u64;
    }
    out
}

#[test]
fn riallto_sequences_decode_op_by_op() {
    let files = common::samples_in("npu", "seq");
    assert_eq!(files.len(), 4);
    for p in files {
        let b = std::fs::read(&p).unwrap();
        let words = seq_words(&b);
        let j = json::json_of(&p);
        assert_eq!(j["format"], "ipu-sequence", "{}", p.display());
        assert!(json::errors(&j).is_empty(), "{}", p.display());
        // The prolog: its first word counts its words.
        let n = words[0].1 as usize;
        assert_eq!(json::lead(val(child(&j["root"], "prolog"))), n as u64);
        let got = items(child(&j["root"], "ops"));
        let mut i = n;
        let mut k = 0;
        while i < words.len() {
            let (at, w0) = words[i];
            let g = got[k];
            assert_eq!(json::off(g), at, "{}: op {k}", p.display());
            // Opcodes and lengths as mlir-aie's IPU target writes them.
            let (op, len) = match w0 >> 24 {
                2 => ("WRITE32", 3),
                3 => ("SYNC", 2),
                6 => ("WRITEBD_EXTEND_SHIMTILE", 10),
                x => panic!("{}: opcode {x}", p.display()),
            };
            assert_eq!(op_name(g), op);
            let last = words[i + len - 1].0 + 8;
            assert_eq!(
                json::off(g) + json::size(g),
                last,
                "{}: op {k}",
                p.display()
            );
            let f = |name: &str| json::lead(val(child(g, name)));
            match op {
                "WRITE32" => {
                    assert_eq!(f("column"), u64::from((w0 >> 16) & 0xff));
                    assert_eq!(f("row"), u64::from((w0 >> 8) & 0xff));
                    assert_eq!(raw(child(g, "address")), u64::from(words[i + 1].1));
                    assert_eq!(raw(child(g, "value")), u64::from(words[i + 2].1));
                }
                "SYNC" => {
                    assert_eq!(f("direction"), u64::from(w0 & 1));
                    assert_eq!(f("channel"), u64::from(words[i + 1].1 >> 24));
                }
                _ => {
                    assert_eq!(f("bd_id"), u64::from(w0 & 0xf));
                    assert_eq!(f("ddr_id"), u64::from((w0 >> 4) & 0xf));
                    // The shim BD's words, with their registers' names.
                    for b in 0..8 {
                        let word = child(g, &format!("bd_word{b}"));
                        assert_eq!(raw(word), u64::from(words[i + 2 + b].1));
                        assert!(val(word).contains(&format!("DMA_BD{}_{b}", w0 & 0xf)));
                    }
                }
            }
            i += len;
            k += 1;
        }
        assert_eq!(got.len(), k);
    }
}

#[test]
fn a_sync_leads_to_the_push_on_its_channel_and_the_push_to_its_bd() {
    let p = asset("npu/riallto__color_detect_720p.seq");
    let b = std::fs::read(&p).unwrap();
    let words = seq_words(&b);
    let mut t = fwview::formats::build_tree(
        std::sync::Arc::new(fwview::model::Source::open(&p).unwrap()),
        "s",
    );
    let sync = t.find_path("s/ops/[8] SYNC").expect("the sync");
    let l = t.link(sync).expect("a link");
    // Its last op before: a WRITE32 of 0x1d204 (S2MM channel 0's task
    // queue), whose value is the word 2 lines before the sync.
    let at = words.iter().position(|w| w.0 == l.offset).expect("a word");
    assert_eq!(words[at - 1].1, 0x1d204);
    assert_eq!(words[at - 2].1 >> 24, 2);
    // And the push leads to BD 0's first word: the WRITEBD of BD 0.
    let push = t.find_path("s/ops/[7] WRITE32/value").expect("the push");
    let l = t.link(push).expect("a link");
    let at = words.iter().position(|w| w.0 == l.offset).expect("a word");
    assert_eq!(words[at - 2].1 >> 24, 6);
    assert_eq!(words[at - 2].1 & 0xf, words[words.len() - 3].1 & 0xf);
}

#[test]
fn diff_of_two_sequences_reports_the_changed_ops() {
    let a = asset("npu/riallto__color_detect_720p.seq");
    let b = asset("npu/riallto__color_detect_1080p.seq");
    let (wa, wb) = (
        seq_words(&std::fs::read(&a).unwrap()),
        seq_words(&std::fs::read(&b).unwrap()),
    );
    // The ops (by index) holding the lines that differ, found here.
    let mut changed = std::collections::BTreeSet::new();
    let mut i = wa[0].1 as usize;
    let mut k = 0;
    while i < wa.len() {
        let len = match wa[i].1 >> 24 {
            2 => 3,
            3 => 2,
            _ => 10,
        };
        if (i..i + len).any(|x| wa[x].1 != wb[x].1) {
            changed.insert(k);
        }
        i += len;
        k += 1;
    }
    assert!(!changed.is_empty());
    let out = common::fwview(&["--diff".as_ref(), a.as_os_str(), b.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let reported: std::collections::BTreeSet<usize> = text
        .lines()
        .filter_map(|l| l.strip_prefix("~ ops/["))
        .map(|l| l.split(']').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(reported, changed, "{text}");
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with('+') || l.starts_with('-')),
        "{text}"
    );
}

#[test]
fn diff_of_two_transactions_reports_the_changed_op() {
    // aiebu's transaction with the value of its third op, a WRITE, changed:
    // version 0.1 ops give their size (a BLOCKWRITE at byte 12, a custom
    // op at byte 4), and a WRITE's value lies at byte 16 (aie-rt's
    // XAie_BlockWrite32Hdr, XAie_CustomOpHdr, XAie_Write32Hdr).
    let a = asset("npu/aiebu__ml_txn.bin");
    let mut b = std::fs::read(&a).unwrap();
    let le = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let op0 = 16;
    assert_eq!(b[op0], 1, "a BLOCKWRITE first");
    let op1 = op0 + le(&b, op0 + 12);
    assert_eq!(b[op1], 0x81, "a DDR_PATCH second");
    let op2 = op1 + le(&b, op1 + 4);
    assert_eq!(b[op2], 0, "a WRITE third");
    b[op2 + 16] ^= 0x01;
    let dir = common::scratch();
    let changed = dir.path().join("ml_txn_changed.bin");
    std::fs::write(&changed, &b).unwrap();
    let out = common::fwview(&["--diff".as_ref(), a.as_os_str(), changed.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let reported: Vec<&str> = text.lines().filter(|l| l.starts_with("~ ")).collect();
    assert!(!reported.is_empty(), "{text}");
    assert!(
        reported.iter().all(|l| l.starts_with("~ ops/[2] WRITE")),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with('+') || l.starts_with('-')),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// detection

#[test]
fn a_hex_dump_is_not_a_sequence_but_a_sequence_without_its_prolog_is() {
    // An xclbin as lines of 8 hex digits: text that looks like a .seq.
    let x = std::fs::read(asset("xclbin/riallto__edge_detect_720p.xclbin")).unwrap();
    let dump: String = x
        .chunks_exact(4)
        .take(4096)
        .map(|c| format!("{:08X}\n", u32::from_le_bytes(c.try_into().unwrap())))
        .collect();
    assert_eq!(fwview::formats::detect(dump.as_bytes()), None);
    // The same words with a prolog count in front still are not ops.
    let fake = format!("{:08X}\n{dump}", 1);
    assert_eq!(fwview::formats::detect(fake.as_bytes()), None);
    // A real sequence's ops with another prolog, or none, are a sequence.
    let b = std::fs::read(asset("npu/riallto__edge_detect_720p.seq")).unwrap();
    let words = seq_words(&b);
    let n = words[0].1 as usize;
    let ops = &b[words[n].0 as usize..];
    assert_eq!(fwview::formats::detect(ops), Some(Format::IpuSequence));
    let mut other = b"00000002\n12345678\n".to_vec();
    other.extend_from_slice(ops);
    assert_eq!(fwview::formats::detect(&other), Some(Format::IpuSequence));
    let j = json::json_of_bytes(other);
    assert_eq!(json::lead(val(child(&j["root"], "prolog"))), 2);
    // With Windows line ends and a blank line at the end.
    let crlf = [
        String::from_utf8(b.clone())
            .unwrap()
            .replace('\n', "\r\n")
            .as_bytes(),
        b"\r\n",
    ]
    .concat();
    assert_eq!(fwview::formats::detect(&crlf), Some(Format::IpuSequence));
    let j = json::json_of_bytes(crlf);
    assert!(json::errors(&j).is_empty());
    assert_eq!(items(child(&j["root"], "ops")).len(), 18);
    // The same words as binary.
    let bin: Vec<u8> = words.iter().flat_map(|w| w.1.to_le_bytes()).collect();
    assert_eq!(fwview::formats::detect(&bin), Some(Format::IpuSequence));
    let j = json::json_of_bytes(bin);
    assert_eq!(val(path(&j["root"], "summary/form")), "binary");
    let text = json::json_of(&asset("npu/riallto__edge_detect_720p.seq"));
    assert_eq!(
        items(child(&j["root"], "ops")).len(),
        items(child(&text["root"], "ops")).len()
    );
}

// ---------------------------------------------------------------------------
// hostile sizes

#[test]
fn lying_counts_and_sizes_end_in_diagnostics() {
    // More ops than the bytes hold.
    let mut w = npu_instgen();
    w[2] = 9;
    let j = json::json_of_bytes(bytes_of(&w));
    assert!(
        json::has_diag(&j, "error", "the header gives 9 ops, the bytes hold 7"),
        "{:?}",
        json::errors(&j)
    );
    // An op whose size runs past the end.
    let mut w = npu_instgen();
    w[4 + 6 + 6 + 3] = 0x4000;
    let j = json::json_of_bytes(bytes_of(&w));
    assert!(
        json::has_diag(&j, "error", "BLOCKWRITE gives"),
        "{:?}",
        json::errors(&j)
    );
    // A size smaller than the op's fields (the second op's: a first op
    // that is not one is not a transaction).
    let mut w = npu_instgen();
    w[4 + 6 + 5] = 8;
    let j = json::json_of_bytes(bytes_of(&w));
    assert!(
        json::has_diag(&j, "error", "less than the 24 bytes of its fields"),
        "{:?}",
        json::errors(&j)
    );
    // A total size past the end of the file, and bytes after it.
    let mut b = bytes_of(&npu_instgen());
    b.truncate(b.len() - 8);
    let j = json::json_of_bytes(b);
    assert!(
        json::has_diag(&j, "error", "the header gives 220 bytes"),
        "{:?}",
        json::errors(&j)
    );
    let mut b = bytes_of(&npu_instgen());
    b.extend_from_slice(&[1, 2, 3, 4]);
    let j = json::json_of_bytes(b);
    assert!(json::has_diag(
        &j,
        "warning",
        "4 bytes after the 220 the header gives"
    ));
    // An op with no serialized form and no size stops the walk with an
    // error.
    let mut w = npu_instgen();
    w[4 + 6] = 14;
    let j = json::json_of_bytes(bytes_of(&w));
    assert!(
        json::has_diag(&j, "error", "CONFIG_SHIMDMA_BD (0x0e): no serialized form"),
        "{:?}",
        json::errors(&j)
    );
    // A sequence cut inside an op.
    let b = std::fs::read(asset("npu/riallto__color_detect_720p.seq")).unwrap();
    let cut = &b[..b.len() - 9];
    let j = json::json_of_written(cut, "cut.seq");
    assert_eq!(j["format"], "ipu-sequence");
    assert!(
        json::has_diag(&j, "error", "SYNC needs 2 words, 1 remain"),
        "{:?}",
        json::errors(&j)
    );
}

// ---------------------------------------------------------------------------
// kernel argument names from the paired xclbin

/// The arguments of the NPU kernels (`type="dpu"`) in an xclbin's
/// EMBEDDED_METADATA, as Python's XML parser reads them, kernel by kernel:
/// (index, name) pairs.
fn python_dpu_args(xclbin: &std::path::Path) -> Option<Vec<Vec<(u64, String)>>> {
    if !common::tool("python3") {
        return None;
    }
    let script = r#"
import struct, sys, xml.etree.ElementTree as ET
d = open(sys.argv[1], 'rb').read()
n = struct.unpack_from('<I', d, 0x1c0)[0]
for i in range(n):
    kind, = struct.unpack_from('<I', d, 0x1c8 + 40 * i)
    off, size = struct.unpack_from('<QQ', d, 0x1c8 + 40 * i + 24)
    if kind == 2:
        root = ET.fromstring(d[off:off + size].rstrip(b'\0'))
        for k in root.iter('kernel'):
            if k.get('type') == 'dpu':
                print(' '.join(a.get('id') + ':' + a.get('name') for a in k.iter('arg')))
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(xclbin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                l.split_whitespace()
                    .map(|a| {
                        let (i, n) = a.split_once(':').unwrap();
                        (i.parse().unwrap(), n.to_string())
                    })
                    .collect()
            })
            .collect(),
    )
}

/// `fwview --json ARGS…`, parsed.
fn json_with(args: &[&std::ffi::OsStr]) -> Value {
    let mut a: Vec<&std::ffi::OsStr> = vec!["--json".as_ref()];
    a.extend_from_slice(args);
    let out = common::fwview(&a);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The names the DDR_PATCH ops of a transaction's JSON give their
/// argument: `(index, value text)`.
fn patch_args(j: &Value) -> Vec<(u64, String)> {
    ops(j)
        .into_iter()
        .filter(|o| op_name(o) == "DDR_PATCH")
        .map(|o| {
            let a = child(o, "arg_index");
            (raw(a), val(a).to_string())
        })
        .collect()
}

#[test]
fn ddr_patches_name_their_kernel_argument_from_the_xclbin_given() {
    let txn = asset("npu/aiebu__ml_txn.bin");
    let x = asset("xclbin/ryzenai-sw__transformers_stx_dummy.xclbin");
    let Some(kernels) = python_dpu_args(&x) else {
        return;
    };
    assert_eq!(kernels.len(), 1, "{kernels:?}");
    let names: HashMap<u64, String> = kernels[0].iter().cloned().collect();
    let j = json_with(&["--xclbin".as_ref(), x.as_os_str(), txn.as_os_str()]);
    let got = patch_args(&j);
    assert!(!got.is_empty());
    for (i, v) in &got {
        assert_eq!(v, &format!("{i} ({})", names[i]));
    }
    // Without the xclbin (none beside the file), numbers alone.
    let plain = json::json_of(&txn);
    assert!(patch_args(&plain).iter().all(|(i, v)| v == &i.to_string()));
    assert!(!json::has_child(
        child(&plain["root"], "summary"),
        "kernel_arguments"
    ));
}

#[test]
fn a_transaction_or_sequence_pairs_with_the_xclbin_beside_it() {
    let dir = common::scratch();
    let d = dir.path();
    let x = asset("xclbin/ryzenai-sw__transformers_stx_dummy.xclbin");
    let Some(kernels) = python_dpu_args(&x) else {
        return;
    };
    let names: HashMap<u64, String> = kernels[0].iter().cloned().collect();
    // The only xclbin in the folder, under another stem.
    std::fs::copy(asset("npu/aiebu__ml_txn.bin"), d.join("ml_txn.bin")).unwrap();
    std::fs::copy(&x, d.join("other.xclbin")).unwrap();
    let j = json_with(&[d.join("ml_txn.bin").as_os_str()]);
    for (i, v) in patch_args(&j) {
        assert_eq!(v, format!("{i} ({})", names[&i]));
    }
    // Two xclbins, neither with the file's stem: none is taken.
    std::fs::copy(
        asset("xclbin/riallto__edge_detect_720p.xclbin"),
        d.join("third.xclbin"),
    )
    .unwrap();
    let j = json_with(&[d.join("ml_txn.bin").as_os_str()]);
    assert!(patch_args(&j).iter().all(|(i, v)| v == &i.to_string()));
    // The one with the same stem is.
    std::fs::copy(&x, d.join("ml_txn.xclbin")).unwrap();
    let j = json_with(&[d.join("ml_txn.bin").as_os_str()]);
    for (i, v) in patch_args(&j) {
        assert_eq!(v, format!("{i} ({})", names[&i]));
    }
    // Riallto's sequence beside its own xclbin, as Riallto ships them:
    // the summary lists the kernel's arguments.
    let rx = asset("xclbin/riallto__color_threshold_v1_720p.xclbin");
    let rk = python_dpu_args(&rx).unwrap();
    assert_eq!(rk.len(), 1, "{rk:?}");
    std::fs::copy(
        asset("npu/riallto__color_threshold_v1_720p.seq"),
        d.join("color_threshold_v1_720p.seq"),
    )
    .unwrap();
    std::fs::copy(&rx, d.join("color_threshold_v1_720p.xclbin")).unwrap();
    let j = json_with(&[d.join("color_threshold_v1_720p.seq").as_os_str()]);
    let listed = val(path(&j["root"], "summary/kernel_arguments"));
    let want: Vec<String> = rk[0].iter().map(|(i, n)| format!("{i} {n}")).collect();
    assert_eq!(json::unquote(listed), want.join(", "));
}

#[test]
fn a_version_0_1_block_set_is_walked_over_by_the_size_aiebu_reads() {
    // aiebu's transaction walker (assembler_blob.py) reads a BLOCKSET's
    // size at byte 12, as a BLOCKWRITE's (aie-rt's XAie_BlockWrite32Hdr):
    // a block set of 20 bytes, then a WRITE (XAie_Write32Hdr, 24 bytes).
    let mut t = vec![0u8, 1, 3, 6, 5, 1, 0, 0];
    t.extend_from_slice(&2u32.to_le_bytes());
    t.extend_from_slice(&(16u32 + 20 + 24).to_le_bytes());
    t.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
    t.extend_from_slice(&0x0021_d000u32.to_le_bytes());
    t.extend_from_slice(&20u32.to_le_bytes());
    t.extend_from_slice(&0x1234_5678u32.to_le_bytes());
    t.extend_from_slice(&[0, 0, 2, 0, 0, 0, 0, 0]);
    t.extend_from_slice(&0x0021_d004u64.to_le_bytes());
    t.extend_from_slice(&0xabcdu32.to_le_bytes());
    t.extend_from_slice(&24u32.to_le_bytes());
    let j = json::json_of_bytes(t);
    assert!(json::errors(&j).is_empty(), "{:?}", json::errors(&j));
    let o = ops(&j);
    assert_eq!(o.len(), 2);
    assert_eq!(op_name(o[0]), "BLOCKSET");
    assert_eq!((json::off(o[0]), json::size(o[0])), (16, 20));
    assert_eq!(raw(child(o[0], "address")), 0x0021_d000);
    assert_eq!(
        (
            json::off(child(o[0], "payload")),
            json::size(child(o[0], "payload"))
        ),
        (32, 4)
    );
    assert_eq!(op_name(o[1]), "WRITE");
    assert_eq!(raw(child(o[1], "value")), 0xabcd);
}
