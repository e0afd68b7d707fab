//! XMOS XE: the real samples checked against an independent walk of their
//! sectors and an independent CRC (the xCORE `crc32` instruction, bit by
//! bit), plus XE files written here with known faults.

use crate::common;

use std::process::Command as Std;
use std::sync::Arc;

use assert_cmd::Command;
use serde_json::Value;

use fwview::formats;
use fwview::model::{Format, Source, Tree};

use common::json::{self, check_nesting, child, json_of, json_of_written, kids, path as at, val};

// ---------- independent reference code ----------

/// Where a little-endian ELF32's entry point is in its bytes: through the
/// PT_LOAD program header whose file bytes hold it.
fn elf32_entry_offset(e: &[u8]) -> Option<u64> {
    let u32at = |o: usize| u32::from_le_bytes(e[o..o + 4].try_into().unwrap());
    let u16at = |o: usize| u16::from_le_bytes(e[o..o + 2].try_into().unwrap());
    let entry = u32at(24);
    let (phoff, es, n) = (u32at(28) as usize, u16at(42) as usize, u16at(44) as usize);
    (0..n).map(|i| phoff + i * es).find_map(|h| {
        let (ty, off, vaddr, filesz) = (u32at(h), u32at(h + 4), u32at(h + 8), u32at(h + 16));
        (ty == 1 && entry >= vaddr && entry - vaddr < filesz)
            .then(|| u64::from(off + entry - vaddr))
    })
}

/// The sector CRC as the xCORE loader computes it: the `crc32` instruction
/// (data shifted in bit by bit, polynomial 0xEDB88320) over each 32-bit
/// little-endian word, register preset to all ones, one zero word appended,
/// result inverted.
fn xcore_crc(bytes: &[u8]) -> u32 {
    fn step(mut crc: u32, w: u32) -> u32 {
        for i in 0..32 {
            let fb = crc & 1;
            crc = (crc >> 1) | (((w >> i) & 1) << 31);
            if fb != 0 {
                crc ^= 0xEDB8_8320;
            }
        }
        crc
    }
    assert_eq!(bytes.len() % 4, 0, "the CRC runs over whole words");
    let mut c = 0xFFFF_FFFF;
    for w in bytes.chunks(4) {
        c = step(c, u32::from_le_bytes(w.try_into().unwrap()));
    }
    !step(c, 0)
}

fn type_name(t: u16) -> String {
    match t {
        1 => "BINARY",
        2 => "ELF",
        3 => "SYSCONFIG",
        4 => "NODEDESC",
        5 => "GOTO",
        6 => "CALL",
        8 => "XN",
        9 => "PROGINFO",
        0xC => "XSCOPE",
        0x5555 => "LAST",
        0xFFFF => "SKIP",
        _ => return format!("0x{t:x}"),
    }
    .to_string()
}

#[derive(Debug, Clone)]
struct Sec {
    off: usize,
    ty: u16,
    size: usize,
    pad: usize,
    /// (offset, length) of the data.
    data: (usize, usize),
    crc: Option<(u32, u32)>,
    /// node, tile, address for BINARY/ELF/GOTO/CALL.
    target: Option<(u16, u16, u64)>,
}

fn u16le(d: &[u8], o: usize) -> u16 {
    u16::from_le_bytes(d[o..o + 2].try_into().unwrap())
}
fn u32le(d: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(d[o..o + 4].try_into().unwrap())
}
fn u64le(d: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(d[o..o + 8].try_into().unwrap())
}

/// Walks the sectors of a well-formed XE.
fn walk(d: &[u8]) -> Vec<Sec> {
    assert_eq!(&d[..4], b"XMOS");
    let mut o = 8;
    let mut v = Vec::new();
    loop {
        let ty = u16le(d, o);
        let size = u64le(d, o + 4) as usize;
        let mut s = Sec {
            off: o,
            ty,
            size,
            pad: 0,
            data: (o + 16, 0),
            crc: None,
            target: None,
        };
        if size > 0 {
            s.pad = d[o + 12] as usize;
            s.data.1 = size - 8 - s.pad;
            let end = o + 12 + size;
            s.crc = Some((u32le(d, end - 4), xcore_crc(&d[o..end - 4])));
            if matches!(ty, 1 | 2 | 5 | 6) {
                let p = o + 16;
                s.target = Some((u16le(d, p), u16le(d, p + 2), u64le(d, p + 4)));
            }
        }
        v.push(s);
        o += 12 + size;
        if ty == 0x5555 {
            break;
        }
    }
    v
}

/// The boot order per tile, `(node, tile) -> types`, sorted by tile.
fn boot_order(secs: &[Sec]) -> Vec<((u16, u16), Vec<String>)> {
    let mut m: std::collections::BTreeMap<(u16, u16), Vec<String>> = Default::default();
    for s in secs {
        if let Some((n, t, _)) = s.target {
            m.entry((n, t)).or_default().push(type_name(s.ty));
        }
    }
    m.into_iter().collect()
}

// ---------- helpers ----------

/// `(offset, size)` as indices into the file's bytes.
fn range(n: &Value) -> (usize, usize) {
    let (o, s) = json::range(n);
    (o as usize, s as usize)
}

/// The diagnostics as (severity, offset, message).
fn diags(j: &Value) -> Vec<(String, usize, String)> {
    json::diags(j)
        .into_iter()
        .map(|d| (d.0, d.1 as usize, d.3))
        .collect()
}

/// Diagnostics that are not about the bytes of an ELF image (those belong to
/// the ELF parser).
fn xe_diags(j: &Value, secs: &[Sec]) -> Vec<(String, usize, String)> {
    diags(j)
        .into_iter()
        .filter(|(_, off, _)| {
            !secs
                .iter()
                .any(|s| s.ty == 2 && *off >= s.data.0 + 12 && *off < s.data.0 + s.data.1)
        })
        .collect()
}

// ---------- an XE writer ----------

struct Xe(Vec<u8>);

impl Xe {
    fn new() -> Xe {
        Xe(b"XMOS\x02\x00\x00\x00".to_vec())
    }
    /// Adds a sector with contents; returns its offset.
    fn sector(&mut self, ty: u16, data: &[u8]) -> usize {
        let off = self.0.len();
        let pad = (4 - data.len() % 4) % 4;
        let size = 4 + data.len() + pad + 4;
        self.0.extend_from_slice(&ty.to_le_bytes());
        self.0.extend_from_slice(&[0, 0]);
        self.0.extend_from_slice(&(size as u64).to_le_bytes());
        self.0.extend_from_slice(&[pad as u8, 0, 0, 0]);
        self.0.extend_from_slice(data);
        self.0.extend(std::iter::repeat_n(0u8, pad));
        let crc = xcore_crc(&self.0[off..]);
        self.0.extend_from_slice(&crc.to_le_bytes());
        off
    }
    fn target(&mut self, ty: u16, node: u16, tile: u16, addr: u64, image: &[u8]) -> usize {
        let mut d = Vec::new();
        d.extend_from_slice(&node.to_le_bytes());
        d.extend_from_slice(&tile.to_le_bytes());
        d.extend_from_slice(&addr.to_le_bytes());
        d.extend_from_slice(image);
        self.sector(ty, &d)
    }
    fn nodedesc(&mut self, index: u16, id: u32) -> usize {
        let mut d = Vec::new();
        d.extend_from_slice(&index.to_le_bytes());
        d.extend_from_slice(&[0, 0]);
        d.extend_from_slice(&id.to_le_bytes());
        d.extend_from_slice(&0u32.to_le_bytes());
        self.sector(4, &d)
    }
    fn last(&mut self) -> usize {
        let off = self.0.len();
        self.0
            .extend_from_slice(&[0x55, 0x55, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        off
    }
}

/// A minimal valid ELF32 little-endian xCORE executable header.
fn tiny_elf(entry: u32) -> Vec<u8> {
    let mut e = vec![0x7f, b'E', b'L', b'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    e.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    e.extend_from_slice(&203u16.to_le_bytes()); // EM_XCORE
    e.extend_from_slice(&1u32.to_le_bytes());
    e.extend_from_slice(&entry.to_le_bytes());
    e.extend_from_slice(&0u32.to_le_bytes()); // phoff
    e.extend_from_slice(&0u32.to_le_bytes()); // shoff
    e.extend_from_slice(&0u32.to_le_bytes()); // flags
    e.extend_from_slice(&52u16.to_le_bytes());
    e.extend_from_slice(&32u16.to_le_bytes());
    e.extend_from_slice(&0u16.to_le_bytes());
    e.extend_from_slice(&40u16.to_le_bytes());
    e.extend_from_slice(&0u16.to_le_bytes());
    e.extend_from_slice(&0u16.to_le_bytes());
    assert_eq!(e.len(), 52);
    e
}

// ---------- the real samples ----------

#[test]
fn real_samples_sectors_match_an_independent_walk() {
    let mut total = 0;
    assert_eq!(common::samples_in("xmos", "xe").len(), 4, "four XE samples");
    for p in common::samples_in("xmos", "xe") {
        let d = std::fs::read(&p).unwrap();
        let secs = walk(&d);
        let j = json_of(&p);
        assert_eq!(j["format"], "xe");
        check_nesting(&j["root"]);
        let root = &j["root"];
        assert_eq!(val(at(root, "header/magic")), "\"XMOS\"");
        assert_eq!(
            val(at(root, "header/version")),
            format!("{}.{}", d[4], d[5])
        );

        let list = kids(child(root, "sectors"));
        assert_eq!(list.len(), secs.len(), "{}", p.display());
        for (i, (n, s)) in list.iter().zip(&secs).enumerate() {
            assert_eq!(n["name"], format!("[{i}] {}", type_name(s.ty)));
            assert_eq!(range(n), (s.off, 12 + s.size));
            let ty = at(n, "header/type");
            assert_eq!(
                val(ty),
                format!("0x{:x} ({})", s.ty, type_name(s.ty)),
                "type shown by name"
            );
            assert!(val(at(n, "header/size")).starts_with(&s.size.to_string()));
            if s.size == 0 {
                assert!(kids(n).into_iter().all(|c| c["name"] != "contents"));
                continue;
            }
            total += 1;
            assert_eq!(val(at(n, "contents/padding length")), s.pad.to_string());
            assert_eq!(range(at(n, "contents/data")), s.data);
            if s.pad > 0 {
                assert_eq!(
                    range(at(n, "contents/padding")),
                    (s.data.0 + s.data.1, s.pad)
                );
            }
            let (stored, computed) = s.crc.unwrap();
            assert_eq!(stored, computed, "sample CRCs all verify");
            let crc = at(n, "contents/crc");
            assert_eq!(range(crc), (s.off + 12 + s.size - 4, 4));
            assert_eq!(val(crc), format!("0x{stored:08x} (ok)"));
        }
        let errors: Vec<_> = diags(&j).into_iter().filter(|d| d.0 == "error").collect();
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
        let warnings: Vec<_> = xe_diags(&j, &secs)
            .into_iter()
            .filter(|d| d.0 == "warning")
            .collect();
        assert!(warnings.is_empty(), "{}: {warnings:?}", p.display());
    }
    assert_eq!(total, 44, "44 sectors with contents (and a CRC)");
}

#[test]
fn real_samples_sector_types_are_decoded() {
    for p in common::samples_in("xmos", "xe") {
        let d = std::fs::read(&p).unwrap();
        let secs = walk(&d);
        let j = json_of(&p);
        let list = kids(child(&j["root"], "sectors"));
        for (n, s) in list.iter().zip(&secs) {
            let (o, len) = s.data;
            match s.ty {
                4 => {
                    let data = at(n, "contents/data");
                    assert_eq!(
                        val(child(data, "jtag index")),
                        format!("0x{:x}", u16le(&d, o))
                    );
                    assert!(val(child(data, "jtag id"))
                        .starts_with(&format!("0x{:x}", u32le(&d, o + 4))));
                    assert_eq!(
                        val(child(data, "jtag user id")),
                        u32le(&d, o + 8).to_string()
                    );
                }
                2 => {
                    let (node, tile, addr) = s.target.unwrap();
                    let data = at(n, "contents/data");
                    assert_eq!(val(child(data, "node")), node.to_string());
                    assert_eq!(val(child(data, "tile")), tile.to_string());
                    assert_eq!(val(child(data, "load address")), format!("0x{addr:x}"));
                    let img = child(data, "image");
                    assert_eq!(range(img), (o + 12, len - 12));
                    assert_eq!(&d[o + 12..o + 16], b"\x7fELF");
                    assert!(!kids(img).is_empty(), "the ELF image is opened in place");
                }
                5 | 6 => {
                    let (node, tile, addr) = s.target.unwrap();
                    let data = at(n, "contents/data");
                    assert_eq!(val(child(data, "node")), node.to_string());
                    assert_eq!(val(child(data, "tile")), tile.to_string());
                    assert_eq!(val(child(data, "address")), format!("0x{addr:x}"));
                }
                3 | 8 | 0xC => {
                    let data = at(n, "contents/data");
                    let el = &kids(data)[0];
                    // The root element of the XML, as the bytes name it.
                    let text = std::str::from_utf8(&d[o..o + len]).unwrap();
                    let body = text.trim_start_matches(|c| c != '<');
                    let body = if body.starts_with("<?") {
                        &body[body.find("?>").unwrap() + 2..]
                    } else {
                        body
                    };
                    let body = body.trim_start();
                    let tag: String = body[1..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == ':' || *c == '_')
                        .collect();
                    assert_eq!(el["name"], format!("<{tag}>"));
                    if s.ty == 0xC {
                        assert_eq!(tag, "xSCOPEconfig");
                    }
                }
                9 => {
                    // Records: u16 kind, u16 length in words; they tile the data.
                    let data = at(n, "contents/data");
                    let mut p = o;
                    for r in kids(data) {
                        let words = u16le(&d, p + 2) as usize;
                        assert_eq!(range(r), (p, words * 4));
                        assert_eq!(
                            val(child(r, "kind")).split(' ').next().unwrap(),
                            u16le(&d, p).to_string()
                        );
                        p += words * 4;
                    }
                    assert_eq!(p, o + len);
                }
                0x5555 => assert!(val(n).contains("end")),
                t => panic!("unexpected sector type {t:#x} in a sample"),
            }
        }
    }
}

#[test]
fn real_samples_boot_order() {
    for p in common::samples_in("xmos", "xe") {
        let d = std::fs::read(&p).unwrap();
        let secs = walk(&d);
        let want = boot_order(&secs);
        let j = json_of(&p);
        let bo = child(&j["root"], "boot order");
        let got = kids(bo);
        assert_eq!(got.len(), want.len());
        for (k, (g, ((node, tile), steps))) in got.iter().zip(&want).enumerate() {
            assert_eq!(g["name"], format!("tile[{k}] (node {node}, tile {tile})"));
            assert_eq!(val(g), steps.join(", "));
            assert_eq!(kids(g).len(), steps.len());
        }
        // The spec's rule holds in every sample: one GOTO per tile, last.
        for (_, steps) in &want {
            assert_eq!(steps.last().map(String::as_str), Some("GOTO"));
            assert_eq!(steps.iter().filter(|s| *s == "GOTO").count(), 1);
        }
    }
}

/// The boot order gathers sectors from all over the file: its nodes own
/// no bytes, each step links to its sector, and copying a tile's node
/// copies nothing of other tiles.
#[test]
fn boot_order_nodes_own_no_bytes_and_link_to_their_sectors() {
    for p in common::samples_in("xmos", "xe") {
        let d = std::fs::read(&p).unwrap();
        let secs = walk(&d);
        let want = boot_order(&secs);
        let j = json_of(&p);
        let bo = child(&j["root"], "boot order");
        assert_eq!(bo["size"], 0);
        let mut t = formats::build_tree(Arc::new(Source::open(&p).unwrap()), "x");
        for (k, (g, ((node, tile), _))) in kids(bo).into_iter().zip(&want).enumerate() {
            assert_eq!(g["size"], 0, "{}", g["name"]);
            // The steps of this tile are the sectors of this tile, in
            // file order.
            let mine: Vec<&Sec> = secs
                .iter()
                .filter(|s| matches!(s.ty, 1 | 2 | 5 | 6))
                .filter(|s| s.target.is_some_and(|(n, t, _)| (n, t) == (*node, *tile)))
                .collect();
            let steps = kids(g);
            assert_eq!(steps.len(), mine.len());
            let path = format!("boot order/{}", g["name"].as_str().unwrap());
            let id = t.find_path(&path).unwrap();
            assert!(t.node_bytes(id).is_empty(), "{path}");
            for (j, (st, s)) in steps.iter().zip(&mine).enumerate() {
                assert_eq!(st["size"], 0);
                let id = t
                    .find_path(&format!("{path}/{}", st["name"].as_str().unwrap()))
                    .unwrap();
                let l = t.link(id).expect("a step links to its sector");
                assert_eq!(
                    (l.offset as usize, l.len as usize),
                    (s.off, 12 + s.size),
                    "tile {k} step {j}"
                );
            }
            // --extract of the tile writes nothing.
            let out = tempfile::NamedTempFile::new().unwrap();
            let r = Command::cargo_bin("fwview")
                .unwrap()
                .args(["--extract", &path, "--force", "-o"])
                .arg(out.path())
                .arg(&p)
                .output()
                .unwrap();
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            assert!(std::fs::read(out.path()).unwrap().is_empty(), "{path}");
        }
    }
}

#[test]
fn real_sample_elf_images_are_elf_nodes_and_gotos_link_to_them() {
    for p in common::samples_in("xmos", "xe") {
        let d = std::fs::read(&p).unwrap();
        let secs = walk(&d);
        let mut t = formats::build_tree(Arc::new(Source::open(&p).unwrap()), "x");
        // For each tile, the last image before a GOTO/CALL is what it starts
        // (every sample's start address is 0).
        let mut last_image: std::collections::HashMap<(u16, u16), (usize, usize)> =
            Default::default();
        for (i, s) in secs.iter().enumerate() {
            let name = format!("sectors/[{i}] {}", type_name(s.ty));
            let id = t.find_path(&name).unwrap();
            if s.size > 0 {
                let size = t.find_path(&format!("{name}/header/size")).unwrap();
                let l = t.link(size).expect("size links to the contents");
                assert_eq!((l.offset as usize, l.len as usize), (s.off + 12, s.size));
            }
            match s.ty {
                2 => {
                    let img = t.find_path(&format!("{name}/contents/data/image")).unwrap();
                    assert_eq!(t.node_format(img), Some(Format::Elf));
                    assert!(!t.children(img).is_empty());
                    let (n, tl, _) = s.target.unwrap();
                    last_image.insert((n, tl), (s.data.0 + 12, s.data.1 - 12));
                }
                5 | 6 => {
                    let (n, tl, _) = s.target.unwrap();
                    let want = last_image[&(n, tl)];
                    let l = t.link(id).expect("GOTO/CALL links to its image");
                    assert_eq!((l.offset as usize, l.len as usize), want);
                    let a = t
                        .find_path(&format!("{name}/contents/data/address"))
                        .unwrap();
                    // The address links to the first instruction the tile
                    // runs: the image's entry point, in the loaded segment
                    // that holds it.
                    let la = t.link(a).expect("the address links to the code");
                    let img = &d[l.offset as usize..(l.offset + l.len) as usize];
                    let want = l.offset + elf32_entry_offset(img).expect("an entry in a segment");
                    assert_eq!((la.offset, la.len), (want, 1), "{}", p.display());
                    // Following the link lands on the image node.
                    let hit = t.smallest_containing(l);
                    assert_eq!(t.name(hit), "image");
                    assert_eq!(t.node(hit).unwrap().offset, l.offset);
                }
                _ => {}
            }
        }
    }
}

#[test]
fn extract_a_tiles_elf_image() {
    let p = &common::samples_in("xmos", "xe")[0];
    let d = std::fs::read(p).unwrap();
    let secs = walk(&d);
    let (i, s) = secs
        .iter()
        .enumerate()
        .find(|(_, s)| s.ty == 2 && s.target.unwrap().1 == 1)
        .expect("an ELF for tile 1");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tile1.elf");
    Command::cargo_bin("fwview")
        .unwrap()
        .arg("--extract")
        .arg(format!("sectors/[{i}] ELF/contents/data/image"))
        .arg("-o")
        .arg(&out)
        .arg(p)
        .assert()
        .success();
    let got = std::fs::read(&out).unwrap();
    assert_eq!(got, &d[s.data.0 + 12..s.data.0 + s.data.1]);
    // It is a whole ELF32 xCORE file.
    let elf = object::read::elf::ElfFile32::<object::LittleEndian>::parse(&got[..]).unwrap();
    use object::read::elf::FileHeader;
    assert_eq!(
        elf.elf_header().e_machine(object::LittleEndian),
        object::elf::Machine(203)
    );
    if common::tool("readelf") {
        let o = Std::new("readelf").arg("-h").arg(&out).output().unwrap();
        assert!(o.status.success(), "readelf -h failed");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("XMOS xCORE"), "{text}");
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

// ---------- faults in real files ----------

#[test]
fn flipped_crc_is_a_mismatch_at_the_crc() {
    let p = &common::samples_in("xmos", "xe")[2];
    let mut d = std::fs::read(p).unwrap();
    let secs = walk(&d);
    let (i, s) = secs.iter().enumerate().find(|(_, s)| s.ty == 6).unwrap();
    let crc_off = s.off + 12 + s.size - 4;
    let good = s.crc.unwrap().1;
    d[crc_off] ^= 0x01;
    let j = json_of_written(&d, "t.xe");
    let n = &kids(child(&j["root"], "sectors"))[i];
    assert_eq!(
        val(at(n, "contents/crc")),
        format!(
            "0x{:08x} (mismatch: expected 0x{good:08x})",
            u32le(&d, crc_off)
        )
    );
    assert_eq!(at(n, "contents/crc")["raw"], u32le(&d, crc_off));
    assert_eq!(at(n, "header/size")["raw"], s.size as u64);
    // A CRC that does not match is a warning, as docs/headless.md's
    // severities say: the file still loads.
    assert!(diags(&j).iter().all(|d| d.0 != "error"));
    let errs: Vec<_> = diags(&j).into_iter().filter(|d| d.0 == "warning").collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].1, crc_off);
    assert!(errs[0].2.contains("CRC mismatch"));
    assert!(errs[0].2.contains(&format!("{good:08x}")));

    // A changed data byte: the stored CRC no longer fits either.
    let mut d2 = std::fs::read(p).unwrap();
    d2[s.data.0 + 4] ^= 0x80;
    let j = json_of_written(&d2, "t.xe");
    let errs: Vec<_> = diags(&j).into_iter().filter(|d| d.0 == "warning").collect();
    assert!(errs
        .iter()
        .any(|e| e.1 == crc_off && e.2.contains("CRC mismatch")));
    let want = xcore_crc(&d2[s.off..crc_off]);
    let n = &kids(child(&j["root"], "sectors"))[i];
    assert!(val(at(n, "contents/crc")).ends_with(&format!("(mismatch: expected 0x{want:08x})")));

    // A stored 0 means "not set", not a mismatch.
    let mut d3 = std::fs::read(p).unwrap();
    d3[crc_off..crc_off + 4].copy_from_slice(&[0; 4]);
    let j = json_of_written(&d3, "t.xe");
    assert!(diags(&j).iter().all(|d| d.0 != "error"));
    let n = &kids(child(&j["root"], "sectors"))[i];
    assert_eq!(val(at(n, "contents/crc")), "0 (not set)");
    assert!(val(n).contains("CRC not set"));
}

#[test]
fn truncated_file() {
    let p = &common::samples_in("xmos", "xe")[1];
    let d = std::fs::read(p).unwrap();
    let secs = walk(&d);
    // Cut inside the third ELF sector.
    let (i, s) = secs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.ty == 2)
        .nth(2)
        .unwrap();
    let cut = s.off + 12 + s.size / 2;
    let j = json_of_written(&d[..cut], "t.xe");
    check_nesting(&j["root"]);
    let list = kids(child(&j["root"], "sectors"));
    assert_eq!(list.len(), i + 1);
    assert_eq!(range(list[i]), (s.off, cut - s.off));
    let errs: Vec<_> = diags(&j).into_iter().filter(|d| d.0 == "error").collect();
    assert!(
        errs.iter()
            .any(|e| e.1 == s.off + 4 && e.2.contains("past the end")),
        "{errs:?}"
    );
    assert!(errs.iter().any(|e| e.2.contains("no LAST")), "{errs:?}");
    // The sectors before it are intact.
    for n in &list[..i] {
        assert!(val(n).ends_with("CRC ok"), "{}", n["name"]);
    }

    // Every cut of a small file opens without a panic.
    for c in [0, 3, 7, 8, 9, 19, 20, 27, 40, 41] {
        let j = json_of_written(&d[..c.min(d.len())], "t.xe");
        check_nesting(&j["root"]);
    }
}

// ---------- XE files written here ----------

/// Two nodes of two tiles each: BINARY, ELF, SKIP, CALL and GOTO sectors.
fn multi() -> (Xe, Vec<usize>) {
    let mut x = Xe::new();
    let sysconfig = b"<System><Node number=\"0\"/><Node number=\"1\"/></System>";
    let mut offs = vec![x.sector(3, sysconfig)];
    offs.push(x.nodedesc(0x8001, 0x5633));
    offs.push(x.nodedesc(0x8002, 0x5633));
    offs.push(x.target(2, 0, 0, 0, &tiny_elf(0x40100))); // 3: ELF 0/0
    offs.push(x.target(6, 0, 0, 0, &[])); // 4: CALL 0/0
    offs.push(x.target(1, 1, 0, 0x10000, &[0xAA; 64])); // 5: BINARY 1/0 at 0x10000
    offs.push(x.target(1, 1, 0, 0x20000, &[0xBB; 30])); // 6: BINARY 1/0 at 0x20000
    offs.push(x.sector(0xFFFF, b"whatever was here")); // 7: SKIP
    offs.push(x.target(6, 1, 0, 0x10004, &[])); // 8: CALL 1/0 into the first BINARY
    offs.push(x.target(2, 0, 1, 0, &tiny_elf(0x40000))); // 9: ELF 0/1
    offs.push(x.target(2, 0, 0, 0, &tiny_elf(0x40200))); // 10: ELF 0/0
    offs.push(x.target(1, 1, 1, 0x80000, &[1, 2, 3, 4, 5])); // 11: BINARY 1/1
    offs.push(x.target(5, 0, 0, 0, &[])); // 12: GOTO 0/0
    offs.push(x.target(5, 0, 1, 0, &[])); // 13: GOTO 0/1
    offs.push(x.target(5, 1, 0, 0x20010, &[])); // 14: GOTO 1/0 into the second BINARY
    offs.push(x.target(5, 1, 1, 0x80000, &[])); // 15: GOTO 1/1
    offs.push(x.sector(
        8,
        b"<?xml version=\"1.0\"?>\n<Network><Declarations/></Network>",
    ));
    offs.push(x.sector(0xC, b"<xSCOPEconfig ioMode=\"none\" enabled=\"false\"/>\0"));
    offs.push(x.last());
    (x, offs)
}

#[test]
fn written_multi_node_file() {
    let (x, offs) = multi();
    let d = x.0;
    let secs = walk(&d);
    assert_eq!(secs.len(), offs.len());
    let j = json_of_written(&d, "t.xe");
    check_nesting(&j["root"]);
    let bad = xe_diags(&j, &secs);
    assert!(bad.is_empty(), "{bad:?}");
    let root = &j["root"];
    let list = kids(child(root, "sectors"));
    assert_eq!(list.len(), secs.len());
    for (i, (n, s)) in list.iter().zip(&secs).enumerate() {
        assert_eq!(n["name"], format!("[{i}] {}", type_name(s.ty)));
        assert_eq!(range(n).0, offs[i]);
        if let Some((stored, computed)) = s.crc {
            assert_eq!(stored, computed);
            assert!(val(n).ends_with("CRC ok"), "{}", val(n));
        }
    }
    // BINARY: node, tile, load address and image bytes.
    let bin = at(list[5], "contents/data");
    assert_eq!(val(child(bin, "node")), "1");
    assert_eq!(val(child(bin, "tile")), "0");
    assert_eq!(val(child(bin, "load address")), "0x10000");
    assert_eq!(range(child(bin, "image")), (offs[5] + 16 + 12, 64));
    assert!(val(child(bin, "image")).contains("aa aa"));
    // SKIP is shown as skipped and starts nothing.
    assert!(val(list[7]).contains("skipped"));
    assert!(val(at(list[7], "contents/data")).contains("skipped"));
    // NODEDESC.
    let nd = at(list[2], "contents/data");
    assert_eq!(val(child(nd, "jtag index")), "0x8002");
    assert_eq!(val(child(nd, "jtag id")), "0x5633 (XS2)");
    // XML sectors are element trees.
    assert_eq!(kids(at(list[0], "contents/data"))[0]["name"], "<System>");
    assert_eq!(kids(at(list[16], "contents/data"))[0]["name"], "<Network>");
    let xs = &kids(at(list[17], "contents/data"))[0];
    assert_eq!(xs["name"], "<xSCOPEconfig>");
    assert_eq!(val(child(xs, "@ioMode")), "\"none\"");

    // Boot order, derived here from the walk.
    let want = boot_order(&secs);
    assert_eq!(want.len(), 4);
    let bo = kids(child(root, "boot order"));
    assert_eq!(bo.len(), 4);
    for (k, (g, ((node, tile), steps))) in bo.iter().zip(&want).enumerate() {
        assert_eq!(g["name"], format!("tile[{k}] (node {node}, tile {tile})"));
        assert_eq!(val(g), steps.join(", "));
    }
    assert_eq!(val(bo[0]), "ELF, CALL, ELF, GOTO");
    assert_eq!(val(bo[2]), "BINARY, BINARY, CALL, GOTO");

    // Links: each start sector points at the image it starts.
    let mut t = formats::build_from_bytes(d.clone());
    let link_of = |t: &mut Tree, i: usize| {
        let id = t
            .find_path(&format!("sectors/[{i}] {}", type_name(secs[i].ty)))
            .unwrap();
        let l = t.link(id).unwrap();
        (l.offset as usize, l.len as usize)
    };
    let image = |i: usize| (secs[i].data.0 + 12, secs[i].data.1 - 12);
    assert_eq!(link_of(&mut t, 4), image(3)); // CALL 0/0 -> its ELF
    assert_eq!(link_of(&mut t, 8), image(5)); // CALL 1/0 at 0x10004 -> BINARY at 0x10000
    assert_eq!(link_of(&mut t, 12), image(10)); // GOTO 0/0 -> the later ELF
    assert_eq!(link_of(&mut t, 13), image(9));
    assert_eq!(link_of(&mut t, 14), image(6)); // GOTO 1/0 at 0x20010 -> BINARY at 0x20000
    assert_eq!(link_of(&mut t, 15), image(11));
    // The ELF images are handed to the ELF parser.
    for i in [3, 9, 10] {
        let id = t
            .find_path(&format!("sectors/[{i}] ELF/contents/data/image"))
            .unwrap();
        assert_eq!(t.node_format(id), Some(Format::Elf));
    }
    // A boot-order step links to its sector.
    let step = t
        .find_path("boot order/tile[2] (node 1, tile 0)/[2] CALL")
        .unwrap();
    let l = t.link(step).unwrap();
    assert_eq!((l.offset as usize, l.len as usize), (offs[8], 32));
}

#[test]
fn missing_last_sector_and_bytes_after_it() {
    let (x, offs) = multi();
    let last = *offs.last().unwrap();
    let d = &x.0[..last];
    let j = json_of_written(d, "t.xe");
    let errs: Vec<_> = diags(&j).into_iter().filter(|d| d.0 == "error").collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].2.contains("no LAST"));
    assert_eq!(kids(child(&j["root"], "sectors")).len(), offs.len() - 1);

    let mut d = x.0.clone();
    d.extend_from_slice(b"tail!");
    let j = json_of_written(&d, "t.xe");
    let ds = diags(&j);
    assert!(ds.iter().all(|d| d.0 != "error"), "{ds:?}");
    let w: Vec<_> = ds
        .iter()
        .filter(|d| d.2.contains("after the LAST"))
        .collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, "warning");
    assert_eq!(w[0].1, x.0.len());
    assert_eq!(range(child(&j["root"], "trailing")), (x.0.len(), 5));

    // A header cut short after the last full sector.
    let d = &x.0[..last + 5];
    let j = json_of_written(d, "t.xe");
    let errs: Vec<String> = diags(&j)
        .into_iter()
        .filter(|d| d.0 == "error")
        .map(|d| d.2)
        .collect();
    assert!(
        errs.iter().any(|e| e.contains("sector header needs 12")),
        "{errs:?}"
    );
    assert!(errs.iter().any(|e| e.contains("no LAST")), "{errs:?}");
}

#[test]
fn boot_order_rules() {
    // Tile 0/0: image, no GOTO. Tile 0/1: two GOTOs. Tile 0/2: ELF after GOTO.
    let mut x = Xe::new();
    let a = x.target(2, 0, 0, 0, &tiny_elf(0x40000));
    x.target(2, 0, 1, 0, &tiny_elf(0x40000));
    x.target(5, 0, 1, 0, &[]);
    let g2 = x.target(5, 0, 1, 0, &[]);
    x.target(2, 0, 2, 0, &tiny_elf(0x40000));
    x.target(5, 0, 2, 0, &[]);
    let late = x.target(6, 0, 2, 0, &[]);
    let orphan = x.target(5, 3, 0, 0, &[]); // GOTO with nothing loaded
                                            // Tile 4/0: a GOTO naming the entry point of the earlier of two ELFs.
    let first = x.target(2, 4, 0, 0, &tiny_elf(0x40100));
    x.target(2, 4, 0, 0, &tiny_elf(0x40200));
    let named = x.target(5, 4, 0, 0x40100, &[]);
    x.last();
    let secs = walk(&x.0);
    let j = json_of_written(&x.0, "t.xe");
    let ds = xe_diags(&j, &secs);
    let err_at = |off: usize, text: &str| {
        assert!(
            ds.iter()
                .any(|d| d.0 == "error" && d.1 == off && d.2.contains(text)),
            "no error {text:?} at {off:#x}: {ds:?}"
        )
    };
    err_at(a, "no GOTO");
    err_at(g2, "2 GOTO sectors");
    err_at(late, "after the tile's GOTO");
    assert!(ds
        .iter()
        .any(|d| d.0 == "warning" && d.1 == orphan && d.2.contains("no image")));
    assert_eq!(ds.iter().filter(|d| d.0 == "error").count(), 3, "{ds:?}");
    // The spec wants 0 after an ELF image; the link still finds the ELF.
    assert!(ds
        .iter()
        .any(|d| d.0 == "warning" && d.1 == named + 20 && d.2.contains("should be 0")));
    let mut t = formats::build_from_bytes(x.0.clone());
    let i = secs.iter().position(|s| s.off == named).unwrap();
    let id = t.find_path(&format!("sectors/[{i}] GOTO")).unwrap();
    let l = t.link(id).unwrap();
    assert_eq!(l.offset as usize, first + 16 + 12);
    assert_eq!(l.len, 52);
    let bo = kids(child(&j["root"], "boot order"));
    assert_eq!(val(bo[1]), "ELF, GOTO, GOTO");
    assert_eq!(val(bo[2]), "ELF, GOTO, CALL");
}

#[test]
fn reserved_fields_and_odd_sizes() {
    let mut x = Xe::new();
    let nd = x.nodedesc(0x8001, 0x2633);
    let e = x.target(2, 0, 0, 0, &tiny_elf(0x40000));
    x.target(5, 0, 0, 0, &[]);
    let unknown = x.sector(0x7, b"abcd");
    x.last();
    let mut d = x.0.clone();
    d[6] = 1; // header reserved
    d[e + 2] = 2; // sector header reserved
    d[e + 14] = 3; // contents reserved
    d[nd + 16 + 2] = 4; // NODEDESC reserved
                        // Fix the CRCs the edits broke, so only the reserved fields are odd.
    for s in [nd, e] {
        let size = u64le(&d, s + 4) as usize;
        let c = xcore_crc(&d[s..s + 12 + size - 4]);
        d[s + 12 + size - 4..s + 12 + size].copy_from_slice(&c.to_le_bytes());
    }
    let secs = walk(&d);
    let j = json_of_written(&d, "t.xe");
    let ds = xe_diags(&j, &secs);
    assert!(ds.iter().all(|d| d.0 != "error"), "{ds:?}");
    for off in [6, e + 2, e + 13, nd + 18] {
        assert!(
            ds.iter()
                .any(|d| d.0 == "warning" && d.1 == off && d.2.contains("reserved")),
            "no reserved warning at {off:#x}: {ds:?}"
        );
    }
    assert!(ds
        .iter()
        .any(|d| d.1 == unknown && d.2.contains("unknown sector type")));
    let list = kids(child(&j["root"], "sectors"));
    assert_eq!(list[3]["name"], "[3] 0x7");
    assert_eq!(val(at(list[0], "contents/data/jtag id")), "0x2633 (XS1)");

    // A size running past the end of the file, on a sector that is not last.
    let mut d2 = x.0.clone();
    d2[e + 4..e + 12].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let j = json_of_written(&d2, "t.xe");
    check_nesting(&j["root"]);
    assert!(diags(&j)
        .iter()
        .any(|d| d.0 == "error" && d.1 == e + 4 && d.2.contains("past the end")));
}

// ---------- runs of empty sectors ----------

/// Empty sectors in a row (a header, then zeros) are reported once for the
/// run, with its count and extent; the sectors after the run keep their
/// own diagnostics at their bytes, and every sector is in the list.
#[test]
fn a_run_of_empty_sectors_is_one_diagnostic() {
    const RUN: usize = 2500;
    let mut x = Xe::new();
    x.0.extend(std::iter::repeat_n(0u8, 12 * RUN));
    let bad = x.target(2, 0, 0, 0, &tiny_elf(0x40000));
    x.target(5, 0, 0, 0, &[]);
    x.last();
    // A flipped CRC byte on the ELF sector after the run.
    let size = u64le(&x.0, bad + 4) as usize;
    let crc_off = bad + 12 + size - 4;
    x.0[crc_off] ^= 0x10;
    let secs = walk(&x.0);
    assert_eq!(secs.len(), RUN + 3);
    let j = json_of_written(&x.0, "t.xe");
    check_nesting(&j["root"]);
    let ds = xe_diags(&j, &secs);
    let run_end = 8 + 12 * RUN;
    let runs: Vec<_> = ds.iter().filter(|d| d.2.contains("2500 sectors")).collect();
    assert_eq!(runs.len(), 2, "{ds:?}");
    for (want, d) in ["unknown sector type 0x0", "no contents block"]
        .iter()
        .zip(&runs)
    {
        assert_eq!(d.0, "warning");
        assert!(d.2.contains(want), "{d:?}");
        assert!(d.2.contains(&format!("from 0x8 to 0x{run_end:x}")), "{d:?}");
    }
    // The CRC mismatch is still at its bytes, a warning.
    let errs: Vec<_> = ds
        .iter()
        .filter(|d| d.0 == "warning" && d.2.contains("CRC"))
        .collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].1, crc_off);
    assert!(errs[0].2.contains("CRC mismatch"), "{errs:?}");
    assert!(errs[0].2.starts_with(&format!("sector [{RUN}] ELF")));
    // The list: groups of a thousand, every sector where the walk has it.
    let list = child(&j["root"], "sectors");
    assert_eq!(val(list), format!("{} sectors", RUN + 3));
    let groups = kids(list);
    assert_eq!(groups[0]["name"], "[0..1000)");
    assert_eq!(groups[2]["name"], format!("[2000..{})", RUN + 3));
    let all: Vec<&Value> = groups.iter().flat_map(|g| kids(g)).collect();
    assert_eq!(all.len(), secs.len());
    for (n, s) in all.iter().zip(&secs) {
        assert_eq!(range(n).0, s.off);
    }
    let elf = all[RUN];
    assert_eq!(elf["name"], format!("[{RUN}] ELF"));
    assert!(val(at(elf, "contents/crc")).contains("mismatch"));
    // The GOTO after the run still starts the ELF image.
    let mut t = formats::build_from_bytes(x.0.clone());
    let g = t
        .find_path(&format!("sectors/[2000..{})/[{}] GOTO", RUN + 3, RUN + 1))
        .unwrap();
    let l = t.link(g).unwrap();
    assert_eq!(l.offset as usize, bad + 16 + 12);
}

/// A header and then more zeros than a mebibyte of empty sectors: the walk
/// stops there and says so, and the file opens at once.
#[test]
fn zeros_past_a_mebibyte_are_not_read_as_sectors() {
    let mut d = b"XMOS\x02\x00\x00\x00".to_vec();
    d.resize(8 + (3 << 20), 0);
    let t0 = std::time::Instant::now();
    let mut t = formats::build_from_bytes(d.clone());
    for k in t.children(t.root()) {
        t.children(k);
    }
    let took = t0.elapsed();
    eprintln!("XE + 3 MiB of zeros: opened in {took:?}");
    let ds: Vec<_> = t.diagnostics().to_vec();
    assert!(ds.len() <= 4, "{ds:?}");
    let stop = ds
        .iter()
        .find(|d| d.message.contains("the same empty sector repeats"))
        .expect("the walk says where it stopped");
    let n = (1u64 << 20) / 12;
    assert_eq!(stop.span.offset, 8 + 12 * (n + 1));
    assert_eq!(stop.span.offset + stop.span.len, d.len() as u64);
    assert!(ds.iter().any(|d| d
        .message
        .starts_with(&format!("{} sectors of type 0x0", n + 1))));
}

/// Sectors whose problems differ from one sector to the next cannot be
/// folded into runs: the first thousand are reported one by one, the rest
/// in one diagnostic with their count and extent.
#[test]
fn problems_past_a_thousand_runs_are_summed_up() {
    let mut x = Xe::new();
    for i in 0..3000u16 {
        // Empty sectors of changing unknown types.
        x.0.extend_from_slice(&(0x100 + (i % 2)).to_le_bytes());
        x.0.extend_from_slice(&[0; 10]);
    }
    x.last();
    let t = formats::build_from_bytes(x.0.clone());
    let ds = t.diagnostics();
    assert!(ds.len() < 2100, "{} diagnostics", ds.len());
    let sum: Vec<_> = ds
        .iter()
        .filter(|d| d.message.contains("more sectors with problems"))
        .collect();
    assert_eq!(sum.len(), 1);
    assert!(
        sum[0].message.starts_with("2000 more sectors"),
        "{}",
        sum[0].message
    );
    assert_eq!(sum[0].span.offset, 8 + 12 * 1000);
    assert_eq!(sum[0].span.offset + sum[0].span.len, 8 + 12 * 3000);
    // The first thousand are there, each at its bytes.
    assert!(ds
        .iter()
        .any(|d| d.span.offset == 8 + 12 * 999
            && d.message.starts_with("sector [999] 0x101: unknown")));
}

/// `--targets` lists each tile's ELF program: its node's architecture (the
/// NODEDESC sector's JTAG id: 0x2633 XS1, 0x5633 XS2), node and tile, at
/// the image, in sector order; the walk here reads the bytes itself.
#[test]
fn targets_list_each_tiles_program() {
    for p in common::samples_in("xmos", "xe") {
        let d = std::fs::read(&p).unwrap();
        let secs = walk(&d);
        let archs: Vec<&str> = secs
            .iter()
            .filter(|s| s.ty == 4)
            .map(|s| match u32le(&d, s.data.0 + 4) {
                0x2633 => "XS1",
                0x5633 => "XS2",
                _ => "xcore",
            })
            .collect();
        let want: Vec<String> = secs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.ty == 2)
            .map(|(i, s)| {
                let (node, tile, _) = s.target.unwrap();
                format!(
                    "elf\t{}\tnode {node} tile {tile}\tsectors/[{i}] ELF/contents/data/image\n",
                    archs[node as usize]
                )
            })
            .collect();
        assert!(!want.is_empty());
        let out = common::fwview(&["--targets".as_ref(), p.as_os_str()]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            want.concat(),
            "{}",
            p.display()
        );
    }
}
