//! CDO version 1 ("XNLX"): a small CDO written here word by word as
//! bootgen's `cdo-binary.c` writes and reads them (`encode_v1`,
//! `decode_v1`): the header (words following, identification 0x584C4E58,
//! version, section count, NOT of the sum of the four words before it),
//! then each section as its id, its length (the words after the length
//! word), its command count and its commands, each command a 32-bit id and
//! a payload whose length the id fixes (DMA_WRITE: address, length, offset,
//! `offset` alignment words, `length` data words; DMA_XFER: six words,
//! then `length` data words when the source address is 0; NPI_WRITE:
//! address, flags, length, data; CFU_SET_CRC32: flags, then the CRC when
//! the flags are not 0; CFU_CFRAME_READ: 20 words); 0xFFFFFFFF ends a
//! section before its count. Every field is checked at its offset.

use crate::common;

use serde_json::Value;

use common::json::{child, diags, find, json_of_written, kids, lead, name, off, size, val};

const XNLX: u32 = 0x584C_4E58;

/// The words of one command.
fn cmd(id: u32, payload: &[u32]) -> Vec<u32> {
    let mut v = vec![id];
    v.extend_from_slice(payload);
    v
}

/// A section: id, length (words after the length word), count, commands.
fn section(id: u32, count: u32, cmds: &[Vec<u32>]) -> Vec<u32> {
    let body: Vec<u32> = cmds.concat();
    let mut v = vec![id, body.len() as u32 + 1, count];
    v.extend(body);
    v
}

fn header(version: u32, sections: u32) -> Vec<u32> {
    let h = [4, XNLX, version, sections];
    let sum = h.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    let mut v = h.to_vec();
    v.push(!sum);
    v
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The commands of a section node, in order.
fn commands(s: &Value) -> Vec<&Value> {
    common::json::items(child(s, "commands_list"))
}

/// Checks the leaf `leaf` of `n`: at byte `at`, `len` bytes, its value
/// starting with `v` (decimal or 0x hex).
fn leaf(n: &Value, leaf: &str, at: usize, len: u64, v: u64) {
    let l = child(n, leaf);
    assert_eq!(off(l), at as u64, "{leaf} offset under {}", name(n));
    assert_eq!(size(l), len, "{leaf} size under {}", name(n));
    assert_eq!(
        lead(val(l)),
        v,
        "{leaf} value under {}: {}",
        name(n),
        val(l)
    );
}

/// Checks a command node at word `w` whose fields (all one word) are
/// `fields`, in order after the id word.
fn fields(c: &Value, w: usize, id: u32, cname: &str, fields: &[(&str, u32)]) {
    assert_eq!(name(c), cname);
    assert_eq!(off(c), 4 * w as u64, "{cname} offset");
    leaf(c, "command", 4 * w, 4, id.into());
    for (i, (f, v)) in fields.iter().enumerate() {
        leaf(c, f, 4 * (w + 1 + i), 4, (*v).into());
    }
}

#[test]
fn hand_written_v1_cdo_decodes_field_by_field() {
    let s0 = section(
        0x10,
        4,
        &[
            cmd(0x103, &[0xF123_4000, 0xAB]),
            cmd(0x102, &[0xF123_4004, 0xFF00, 0x1200]),
            // DMA_WRITE of 3 words after one alignment word.
            cmd(0x105, &[0xF000_0000, 3, 1, 0, 0x11, 0x22, 0x33]),
            cmd(0x101, &[0xF123_4008, 0x1, 0x1, 5]),
        ],
    );
    let mut cframe = vec![0x7, 0x1, 0x2000_0000, 16];
    cframe.extend((0..16).map(|i| 0x100 + i));
    let s1 = section(
        0x20,
        9,
        &[
            cmd(0x108, &[0x1, 0xF000_0010, 0xCD]),
            cmd(0x104, &[20]),
            // DMA_XFER from address 0: two data words follow.
            cmd(0x109, &[0, 0, 0x2, 0x3000_0000, 2, 0x5, 0xAA, 0xBB]),
            cmd(0x203, &[0xF600_0000, 0x1, 2, 0xC0, 0xC1]),
            cmd(0x301, &[1, 0xDEAD_BEEF]),
            cmd(0x301, &[0]),
            cmd(0x309, &cframe),
            vec![0xFFFF_FFFF],
        ],
    );
    let mut words = header(0x100, 2);
    let s0_at = words.len();
    words.extend(&s0);
    let s1_at = words.len();
    words.extend(&s1);
    let end = words.len();
    let mut data = bytes(&words);
    // Zero padding to 16 bytes.
    while !data.len().is_multiple_of(16) {
        data.push(0);
    }
    let j = json_of_written(&data, "v1.cdo");
    assert!(
        diags(&j).iter().all(|d| d.0 != "error" && d.0 != "warning"),
        "{:?}",
        diags(&j)
    );
    let root = &j["root"];
    let h = child(root, "header");
    leaf(h, "header_words", 0, 4, 4);
    assert_eq!(lead(val(child(h, "header_words"))), 4);
    assert!(val(child(h, "identification")).contains("XNLX"));
    leaf(h, "version", 8, 4, 1);
    assert!(val(child(h, "version")).starts_with("1.00"));
    leaf(h, "sections", 12, 4, 2);
    leaf(h, "checksum", 16, 4, words[4].into());
    assert!(val(child(h, "checksum")).ends_with("(valid)"));

    let list = child(root, "sections");
    assert_eq!(off(list), 20);
    assert_eq!(size(list), 4 * (end as u64 - 5));
    assert!(val(list).starts_with("2 sections, 11 "), "{}", val(list));
    let secs = kids(list);
    assert_eq!(secs.len(), 2);

    // Section 0.
    let s = secs[0];
    assert_eq!(name(s), "[0] section 0x00000010");
    assert_eq!((off(s), size(s)), (4 * s0_at as u64, 4 * s0.len() as u64));
    leaf(s, "section_id", 4 * s0_at, 4, 0x10);
    leaf(s, "length", 4 * s0_at + 4, 4, s0.len() as u64 - 2);
    leaf(s, "commands", 4 * s0_at + 8, 4, 4);
    let c = commands(s);
    assert_eq!(c.len(), 4);
    let mut w = s0_at + 3;
    fields(
        c[0],
        w,
        0x103,
        "WRITE",
        &[("address", 0xF123_4000), ("value", 0xAB)],
    );
    assert_eq!(val(c[0]), "0xf1234000 = 0x000000ab");
    w += 3;
    fields(
        c[1],
        w,
        0x102,
        "MASK_WRITE",
        &[
            ("address", 0xF123_4004),
            ("mask", 0xFF00),
            ("value", 0x1200),
        ],
    );
    w += 4;
    fields(
        c[2],
        w,
        0x105,
        "DMA_WRITE",
        &[("address", 0xF000_0000), ("length", 3), ("offset", 1)],
    );
    leaf(c[2], "alignment", 4 * (w + 4), 4, 0);
    let d = child(c[2], "data");
    assert_eq!((off(d), size(d)), (4 * (w + 5) as u64, 12));
    assert!(val(d).starts_with("11 00 00 00 22 00 00 00 33"));
    w += 8;
    fields(
        c[3],
        w,
        0x101,
        "MASK_POLL",
        &[
            ("address", 0xF123_4008),
            ("mask", 1),
            ("expected", 1),
            ("timeout", 5),
        ],
    );
    assert!(val(child(c[3], "timeout")).ends_with("ms"));
    w += 5;
    assert_eq!(w, s1_at);

    // Section 1: nine commands stated, seven before its END.
    let s = secs[1];
    assert_eq!(name(s), "[1] section 0x00000020");
    assert_eq!((off(s), size(s)), (4 * s1_at as u64, 4 * s1.len() as u64));
    leaf(s, "commands", 4 * s1_at + 8, 4, 9);
    let c = commands(s);
    assert_eq!(c.len(), 7);
    let mut w = s1_at + 3;
    fields(
        c[0],
        w,
        0x108,
        "WRITE64",
        &[
            ("address_high", 1),
            ("address_low", 0xF000_0010),
            ("value", 0xCD),
        ],
    );
    assert_eq!(val(c[0]), "0x1f0000010 = 0x000000cd");
    w += 4;
    fields(c[1], w, 0x104, "DELAY", &[("delay", 20)]);
    w += 2;
    fields(
        c[2],
        w,
        0x109,
        "DMA_XFER",
        &[
            ("source_high", 0),
            ("source_low", 0),
            ("destination_high", 2),
            ("destination_low", 0x3000_0000),
            ("length", 2),
            ("flags", 5),
        ],
    );
    let d = child(c[2], "data");
    assert_eq!((off(d), size(d)), (4 * (w + 7) as u64, 8));
    w += 9;
    fields(
        c[3],
        w,
        0x203,
        "NPI_WRITE",
        &[("address", 0xF600_0000), ("flags", 1), ("length", 2)],
    );
    assert_eq!(size(child(c[3], "data")), 8);
    w += 6;
    fields(
        c[4],
        w,
        0x301,
        "CFU_SET_CRC32",
        &[("flags", 1), ("crc", 0xDEAD_BEEF)],
    );
    w += 3;
    fields(c[5], w, 0x301, "CFU_SET_CRC32", &[("flags", 0)]);
    assert!(find(c[5], "crc").is_none());
    assert_eq!(size(c[5]), 8);
    w += 2;
    fields(
        c[6],
        w,
        0x309,
        "CFU_CFRAME_READ",
        &[
            ("flags", 7),
            ("address_high", 1),
            ("address_low", 0x2000_0000),
            ("length", 16),
        ],
    );
    let d = child(c[6], "data");
    assert_eq!((off(d), size(d)), (4 * (w + 5) as u64, 64));
    w += 21;
    leaf(s, "end", 4 * w, 4, 0xFFFF_FFFF);
    w += 1;
    assert_eq!(w, end);
    let pad = child(root, "padding");
    assert_eq!(
        (off(pad), size(pad)),
        (4 * end as u64, (data.len() - 4 * end) as u64)
    );
}

#[test]
fn broken_v1_cdos_say_where() {
    // A bad checksum, an unknown command id, and a section count past the
    // data: each an error at its word.
    let s0 = section(0x10, 2, &[cmd(0x103, &[0x10, 0x20]), cmd(0x1FF, &[1])]);
    let mut words = header(0x100, 3);
    words[4] ^= 1;
    words.extend(&s0);
    let j = json_of_written(&bytes(&words), "bad.cdo");
    let errors = common::json::located(&j, "error");
    let has = |at: usize, text: &str| {
        errors
            .iter()
            .any(|(o, m)| *o == at as u64 && m.contains(text))
    };
    assert!(has(16, "checksum mismatch"), "{errors:?}");
    assert!(
        has(4 * (5 + 3 + 3), "unknown command id 0x000001ff"),
        "{errors:?}"
    );
    assert!(has(12, "3 sections"), "{errors:?}");
    let s = kids(child(&j["root"], "sections"))[0];
    assert_eq!(commands(s).len(), 1);
    let u = child(s, "undecoded");
    assert_eq!((off(u), size(u)), (4 * 11, 8));
    // Every byte in a leaf: the section's children tile it.
    let mut at = off(s);
    for k in s["children"].as_array().unwrap() {
        assert_eq!(off(k), at);
        at += size(k);
    }
    assert_eq!(at, off(s) + size(s));
}
