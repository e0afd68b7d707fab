//! `.ksy` descriptions against Kaitai Struct's own implementation: gallery
//! formats compiled by `kaitai-struct-compiler` (npm, debug mode, so that
//! every attribute records where it was read) and run by the `kaitaistruct`
//! Python runtime over sample files (`tests/kaitai/samples.py`, an ELF
//! from `assets/`, ext2 from `mke2fs`); every leaf attribute Kaitai reads
//! must be a node of `fwview --ksy` at the same path, offset and size with
//! an equal value.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::common;

/// Each description (under tests/data/ksy) and the sample it reads.
const CASES: &[(&str, &str)] = &[
    ("image/png.ksy", "sample.png"),
    ("image/bmp.ksy", "sample.bmp"),
    ("image/gif.ksy", "sample.gif"),
    ("media/wav.ksy", "sample.wav"),
    ("archive/zip.ksy", "sample.zip"),
    ("archive/gzip.ksy", "sample.gz"),
    ("archive/cpio_old_le.ksy", "sample.cpio"),
    ("firmware/uimage.ksy", "sample.uimage"),
    ("hardware/dtb.ksy", "sample.dtb"),
    ("database/sqlite3.ksy", "sample.sqlite3"),
    ("database/gettext_mo.ksy", "sample.mo"),
    ("image/tga.ksy", "sample.tga"),
    ("image/pcx.ksy", "sample.pcx"),
    ("filesystem/mbr_partition_table.ksy", "sample.mbr"),
    ("media/standard_midi_file.ksy", "sample.mid"),
    ("media/id3v1_1.ksy", "sample.id3"),
    ("serialization/asn1/asn1_der.ksy", "sample.der"),
    ("image/ico.ksy", "sample.ico"),
    ("executable/dos_mz.ksy", "sample.mz"),
    ("media/au.ksy", "sample.au"),
    ("serialization/bson.ksy", "sample.bson"),
    ("firmware/ines.ksy", "sample.nes"),
    ("archive/android_img.ksy", "sample.androidimg"),
    ("network/pcap.ksy", "sample.pcap"),
    ("executable/elf.ksy", "sample.elf"),
    ("filesystem/ext2.ksy", "sample.ext2"),
];

fn ksy_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ksy")
}

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kaitai")
}

/// Where `npm install kaitai-struct-compiler js-yaml` put its packages:
/// `FWVIEW_KAITAI_NODE_PATH`, else `~/.cache/fwview-kaitai/node_modules`.
fn node_path() -> PathBuf {
    std::env::var_os("FWVIEW_KAITAI_NODE_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/fwview-kaitai/node_modules")
        })
}

fn kaitai_present() -> bool {
    let py = Command::new("python3")
        .args(["-c", "import kaitaistruct"])
        .output()
        .is_ok_and(|o| o.status.success());
    let js = Command::new("node")
        .args([
            "-e",
            "require('kaitai-struct-compiler'); require('js-yaml')",
        ])
        .env("NODE_PATH", node_path())
        .output()
        .is_ok_and(|o| o.status.success());
    common::present(
        "kaitai-struct-compiler (npm) and kaitaistruct (PyPI)",
        py && js,
    )
}

/// One node of fwview's tree, by path.
struct Got {
    offset: u64,
    size: u64,
    value: Option<String>,
    raw: Option<Value>,
}

/// Every node by its path of names; a node that opens a derived space
/// adds no name (Kaitai's path goes through it).
fn nodes(n: &Value, path: &str, space: u64, out: &mut HashMap<String, Got>) {
    for c in common::json::all_kids(n) {
        let name = c["name"].as_str().unwrap_or("");
        let sp = c["space"].as_u64().unwrap_or(0);
        let p = if sp != space {
            path.to_string()
        } else if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}/{name}")
        };
        if sp == space {
            out.entry(p.clone()).or_insert(Got {
                offset: c["offset"].as_u64().unwrap_or(0),
                size: c["size"].as_u64().unwrap_or(0),
                value: c["value"].as_str().map(str::to_string),
                raw: Some(c["raw"].clone()),
            });
        }
        nodes(c, &p, sp, out);
    }
}

/// Whether fwview's node says what Kaitai's leaf says; the reason if not.
fn same(leaf: &Value, got: &Got) -> Result<(), String> {
    let off = leaf["offset"].as_u64().unwrap_or(0);
    let size = leaf["size"].as_u64().unwrap_or(0);
    let kind = leaf["kind"].as_str().unwrap_or("");
    let placed = (got.offset, got.size) == (off, size)
        // A bit field: Kaitai's debug positions are those of the stream
        // after whole bytes; the node covers the bytes holding its bits.
        || (matches!(kind, "int" | "enum")
            && got.offset + got.size == off + size
            && got.offset <= off
            && got.offset + 1 >= off);
    if !placed {
        return Err(format!(
            "at 0x{:x}+0x{:x}, Kaitai 0x{off:x}+0x{size:x}",
            got.offset, got.size
        ));
    }
    let raw = got.raw.as_ref();
    let ok = match kind {
        "int" | "enum" => {
            let want = &leaf["value"];
            let r = raw.cloned().unwrap_or(Value::Null);
            let num_eq = r.as_i64().zip(want.as_i64()).is_some_and(|(a, b)| a == b)
                || r.as_u64().zip(want.as_u64()).is_some_and(|(a, b)| a == b);
            let name_ok = kind != "enum"
                || got
                    .value
                    .as_deref()
                    .is_some_and(|v| v.contains(leaf["name"].as_str().unwrap_or("?")));
            num_eq && name_ok
        }
        "float" => got
            .value
            .as_deref()
            .and_then(|v| v.parse::<f64>().ok())
            .zip(leaf["value"].as_f64())
            .is_some_and(|(a, b)| a == b || (a.is_nan() && b.is_nan())),
        "str" => {
            let want = leaf["value"].as_str().unwrap_or("");
            got.value.as_deref() == Some(format!("\"{want}\"").as_str())
                || got.value.as_deref().map(|v| v.trim_matches('"'))
                    == Some(fwview::model::text::clean(want).as_ref())
        }
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "value {:?} raw {:?}, Kaitai {}",
            got.value, raw, leaf
        ))
    }
}

#[test]
fn gallery_formats_read_as_kaitai_reads_them() {
    if !kaitai_present() {
        return;
    }
    let dir = common::scratch();
    let out = Command::new("python3")
        .arg(scripts().join("samples.py"))
        .arg(dir.path())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // An ELF object from the toolchain (a sample of assets/).
    let elf = common::asset(
        "offload/debian-libomp-19-dev__libomptarget.devicertl.a__devicertl-amdgpu-gfx90a.o",
    );
    std::fs::copy(&elf, dir.path().join("sample.elf")).expect("copy the ELF sample");
    let ext2 = dir.path().join("sample.ext2");
    if common::tool("mke2fs") {
        let files = dir.path().join("root");
        std::fs::create_dir_all(files.join("sub")).unwrap();
        std::fs::write(files.join("hello.txt"), b"hello\n").unwrap();
        let st = Command::new("mke2fs")
            .args([
                "-q",
                "-F",
                "-t",
                "ext2",
                "-b",
                "1024",
                "-N",
                "32",
                "-E",
                "root_owner=0:0",
            ])
            .arg("-d")
            .arg(&files)
            .arg(&ext2)
            .arg("256")
            .env("E2FSPROGS_FAKE_TIME", "1700000000")
            .status()
            .expect("mke2fs runs");
        assert!(st.success());
    }
    let mut total = (0usize, 0usize);
    let mut report = Vec::new();
    let mut misses = Vec::new();
    let mut failed = Vec::new();
    for &(ksy, sample) in CASES {
        let data = dir.path().join(sample);
        if !data.exists() {
            report.push(format!("{ksy}: no sample"));
            continue;
        }
        let spec = ksy_dir().join(ksy);
        let r = Command::new("python3")
            .arg(scripts().join("reference.py"))
            .arg(&spec)
            .arg(ksy_dir())
            .arg(&data)
            .env("NODE_PATH", node_path())
            .output()
            .expect("python3 runs");
        if !r.status.success() {
            failed.push(format!(
                "{ksy}: Kaitai's reading failed: {}",
                String::from_utf8_lossy(&r.stderr)
            ));
            continue;
        }
        let want: Value = serde_json::from_slice(&r.stdout).expect("reference JSON");
        let leaves = want["leaves"].as_array().cloned().unwrap_or_default();
        let o = with_ksy(&spec, &["--json"], &data);
        if !o.status.success() {
            failed.push(format!(
                "{ksy}: fwview failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
            continue;
        }
        let doc: Value = common::contract::parse(&o.stdout).expect("fwview's JSON");
        let mut got = HashMap::new();
        nodes(&doc["root"], "", 0, &mut got);
        let mut ok = 0;
        for l in &leaves {
            let path = l["path"].as_str().unwrap_or("");
            match got.get(path).map(|g| same(l, g)) {
                Some(Ok(())) => ok += 1,
                Some(Err(why)) => misses.push(format!("{ksy}: {path}: {why}")),
                None => misses.push(format!("{ksy}: {path}: no node")),
            }
        }
        let unplaced = want["unplaced"].as_u64().unwrap_or(0);
        report.push(format!(
            "{ksy}: {ok}/{} leaves{}{}",
            leaves.len(),
            if unplaced > 0 {
                format!(" ({unplaced} in streams the reference cannot place)")
            } else {
                String::new()
            },
            want["error"]
                .as_str()
                .map(|e| format!(" (Kaitai stopped: {e})"))
                .unwrap_or_default()
        ));
        total.0 += ok;
        total.1 += leaves.len();
    }
    eprintln!("{}", report.join("\n"));
    for m in misses.iter().take(200) {
        eprintln!("miss: {m}");
    }
    let ratio = total.0 as f64 / total.1.max(1) as f64;
    eprintln!(
        "{} formats, {}/{} leaves ({:.2}%)",
        report.len(),
        total.0,
        total.1,
        ratio * 100.0
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(total.1 > 0);
    assert!(ratio >= MIN_RATIO, "{:.4} of the leaves match", ratio);
}

/// The share of Kaitai's leaves fwview must match (all of them match
/// today; docs/ksy.md lists what is not compared).
const MIN_RATIO: f64 = 0.99;

/// Writes `ksy` into `dir` as `NAME.ksy` and returns its path.
fn write_ksy(dir: &std::path::Path, name: &str, ksy: &str) -> PathBuf {
    let p = dir.join(format!("{name}.ksy"));
    std::fs::write(&p, ksy).unwrap();
    p
}

/// fwview with the description `ksy` applied to `data`, and `args` (the
/// output, `--at PATH`) between them.
fn with_ksy(ksy: &std::path::Path, args: &[&str], data: &std::path::Path) -> std::process::Output {
    let mut all = vec![OsStr::new("--ksy"), ksy.as_os_str()];
    all.extend(args.iter().map(OsStr::new));
    all.push(data.as_os_str());
    common::fwview(&all)
}

#[test]
fn description_errors_name_file_line_and_column() {
    let dir = common::scratch();
    let k = write_ksy(
        dir.path(),
        "bad",
        "meta:\n  id: bad\nseq:\n  - id: a\n    sizee: 4\n  - id: b\n    type: nosuch\n  - id: c\n    size: 1 +\n  - id: d\n    type: u1\n    enum: nosuch\n",
    );
    let data = dir.path().join("data");
    std::fs::write(&data, b"1234").unwrap();
    let o = with_ksy(&k, &["--tree"], &data);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for want in [
        "bad.ksy:5:5: unknown key \"sizee\"",
        "bad.ksy:6:5: unknown type \"nosuch\"",
        "bad.ksy:9:14: expression \"1 +\"",
        "bad.ksy:10:5: unknown enum \"nosuch\"",
    ] {
        assert!(err.contains(want), "{want} in {err}");
    }
}

#[test]
fn hostile_descriptions_end_in_diagnostics() {
    let dir = common::scratch();
    let data = dir.path().join("data");
    std::fs::write(&data, b"FWHD\x02\x00\x01\xa5").unwrap();
    for (name, body, want) in [
        (
            "rec",
            "seq:\n  - id: a\n    type: rec\n",
            "types nest more than",
        ),
        (
            "forever",
            "seq:\n  - id: a\n    size: 0\n    repeat: until\n    repeat-until: false\n",
            "stopped",
        ),
        (
            "huge",
            "seq:\n  - id: a\n    size: 0x7fffffffffffffff\n",
            "bytes asked for",
        ),
        (
            "div",
            "instances:\n  x:\n    value: 1 / 0\n",
            "div.ksy:5:5: x: division by zero",
        ),
        (
            "cycle",
            "instances:\n  y:\n    value: y + 1\n",
            "instance y needs its own value",
        ),
        (
            "zlib",
            "seq:\n  - id: a\n    size-eos: true\n    process: zlib\n",
            "does not decompress",
        ),
    ] {
        let k = write_ksy(dir.path(), name, &format!("meta:\n  id: {name}\n{body}"));
        let o = common::fwview_within(
            &[
                OsStr::new("--ksy"),
                k.as_os_str(),
                OsStr::new("--json"),
                data.as_os_str(),
            ],
            std::time::Duration::from_secs(30),
        );
        assert!(o.status.success(), "{name}");
        let doc: Value = common::contract::parse(&o.stdout).expect("JSON");
        let diags = doc["diagnostics"].to_string();
        assert!(diags.contains(want), "{name}: {want} in {diags}");
    }
}

/// The README's example: a made-up firmware header, applied with --ksy
/// and found by its magic in a formats folder.
const ACME: &str = r#"meta: {id: acme_fw, endian: le}
seq:
  - {id: magic, contents: "ACFW"}
  - {id: version, type: u2}
  - {id: kind, type: u1, enum: kind}
  - {id: num_blocks, type: u1}
  - {id: blocks, type: block, repeat: expr, repeat-expr: num_blocks}
types:
  block: {seq: [{id: load_addr, type: u4}, {id: len, type: u4}, {id: data, size: len}]}
enums:
  kind: {1: bootloader, 2: application}
"#;

#[test]
fn a_formats_folder_joins_detection() {
    let dir = common::scratch();
    let formats = dir.path().join("formats");
    std::fs::create_dir_all(&formats).unwrap();
    write_ksy(&formats, "acme_fw", ACME);
    let img = dir.path().join("fw.img");
    std::fs::write(
        &img,
        b"ACFW\x03\x00\x01\x02\x00\x00\x00\x80\x04\x00\x00\x00\xde\xad\xbe\xef\x00\x10\x00\x80\x02\x00\x00\x00\x4e\x71",
    )
    .unwrap();
    let o = common::fwview(&[
        OsStr::new("--formats"),
        formats.as_os_str(),
        OsStr::new("--tree"),
        img.as_os_str(),
    ]);
    let tree = String::from_utf8_lossy(&o.stdout);
    for want in [
        "fw.img [0x0+0x1e] ksy",
        "kind [0x6+0x1] 1 (bootloader)",
        "load_addr [0x14+0x4] 2147487744 (0x80001000)",
        "data [0x1c+0x2] [4e 71]",
    ] {
        assert!(tree.contains(want), "{want} in {tree}");
    }
    // Bytes that do not start with its magic are not claimed.
    std::fs::write(&img, b"ACFX\x03\x00").unwrap();
    let o = common::fwview(&[
        OsStr::new("--formats"),
        formats.as_os_str(),
        OsStr::new("--tree"),
        img.as_os_str(),
    ]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("ksy"));
}

#[test]
fn a_file_extension_chooses_the_description_first() {
    let dir = common::scratch();
    let formats = dir.path().join("formats");
    std::fs::create_dir_all(&formats).unwrap();
    // No contents to be found by: only the extension names it.
    write_ksy(
        &formats,
        "acme_cal",
        "meta: {id: acme_cal, endian: le, file-extension: [cal, acal]}\nseq:\n  - {id: version, type: u2}\n  - {id: gain, type: u4}\n",
    );
    let tree_of = |name: &str| {
        let f = dir.path().join(name);
        std::fs::write(&f, b"\x02\x00\x10\x27\x00\x00").unwrap();
        let o = common::fwview(&[
            OsStr::new("--formats"),
            formats.as_os_str(),
            OsStr::new("--tree"),
            f.as_os_str(),
        ]);
        assert!(o.status.success(), "{name}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    for name in ["unit.cal", "UNIT.ACAL"] {
        let tree = tree_of(name);
        for want in [
            format!("{name} [0x0+0x6] ksy"),
            "version [0x0+0x2] 2".to_string(),
            "gain [0x2+0x4] 10000 (0x2710)".to_string(),
        ] {
            assert!(tree.contains(&want), "{want} in {tree}");
        }
    }
    // Another extension: not read with it.
    assert!(!tree_of("unit.bin").contains("gain"));
}

/// A made-up header in a section of its own, described in a formats
/// folder and bound there to the section's name.
const ACME_HDR: &str = r#"meta: {id: acme_hdr, endian: le}
seq:
  - {id: magic, size: 4}
  - {id: version, type: u2}
  - {id: count, type: u2}
  - {id: entries, type: u4, repeat: expr, repeat-expr: count}
"#;

/// The offset and size of section `name` as `llvm-readelf-22 -S -W` lists
/// them.
fn readelf_section(obj: &std::path::Path, name: &str) -> (u64, u64) {
    let out = Command::new("llvm-readelf-22")
        .args(["-S", "-W"])
        .arg(obj)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == name))
        .unwrap_or_else(|| panic!("{name} in {text}"));
    // [Nr] Name Type Address Off Size ...
    let after = line.split(']').nth(1).unwrap();
    let f: Vec<&str> = after.split_whitespace().collect();
    let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
    (hex(f[3]), hex(f[4]))
}

#[test]
fn a_binding_opens_an_elf_section_with_its_description() {
    for t in ["clang-22", "llvm-objcopy-22", "llvm-readelf-22"] {
        if !common::tool(t) {
            return;
        }
    }
    let dir = common::scratch();
    let d = dir.path();
    let formats = d.join("formats");
    std::fs::create_dir_all(&formats).unwrap();
    write_ksy(&formats, "acme_hdr", ACME_HDR);
    std::fs::write(
        formats.join("bindings.yaml"),
        "elf:\n  .acme_hdr: acme_hdr.ksy\n",
    )
    .unwrap();
    std::fs::write(
        d.join("a.c"),
        "int counter = 1;\nint get(void) { return counter; }\n",
    )
    .unwrap();
    let payload: Vec<u8> = [
        &b"ACME"[..],
        &2u16.to_le_bytes(),
        &3u16.to_le_bytes(),
        &0x1000u32.to_le_bytes(),
        &0x2000u32.to_le_bytes(),
        &0xdead_beefu32.to_le_bytes(),
    ]
    .concat();
    std::fs::write(d.join("hdr.bin"), &payload).unwrap();
    let ok = Command::new("clang-22")
        .args(["-c", "-O1", "a.c", "-o", "a.o"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(ok.success());
    let ok = Command::new("llvm-objcopy-22")
        .args(["--add-section", ".acme_hdr=hdr.bin", "a.o", "b.o"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(ok.success());
    let obj = d.join("b.o");
    let (at, len) = readelf_section(&obj, ".acme_hdr");
    assert_eq!(len, payload.len() as u64);

    let o = common::fwview(&[
        OsStr::new("--formats"),
        formats.as_os_str(),
        OsStr::new("--json"),
        obj.as_os_str(),
    ]);
    assert!(o.status.success());
    let doc: Value = common::contract::parse(&o.stdout).expect("JSON");
    let sections = common::json::find_deep(&doc["root"], "sections").expect("sections");
    let sec = common::json::kids(sections)
        .into_iter()
        .find(|k| common::json::name(k).ends_with(" .acme_hdr"))
        .expect("the section's node");
    assert_eq!(common::json::range(sec), (at, len));
    let field = |name: &str| common::json::child(sec, name);
    assert_eq!(common::json::range(field("magic")), (at, 4));
    assert_eq!(common::json::range(field("version")), (at + 4, 2));
    assert_eq!(field("version")["raw"], 2);
    assert_eq!(common::json::range(field("count")), (at + 6, 2));
    let items = common::json::items(field("entries"));
    let got: Vec<(u64, u64, u64)> = items
        .iter()
        .map(|i| {
            (
                common::json::off(i),
                common::json::size(i),
                i["raw"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (at + 8, 4, 0x1000),
            (at + 12, 4, 0x2000),
            (at + 16, 4, 0xdead_beef)
        ]
    );
    // Without the binding, the section is not read so.
    let plain = common::fwview(&[OsStr::new("--json"), obj.as_os_str()]);
    let doc: Value = common::contract::parse(&plain.stdout).expect("JSON");
    assert!(common::json::find_deep(&doc["root"], "entries").is_none());
}

/// `valid: in-enum: true` accepts a member of the attribute's enum and
/// reports any other value at its bytes, as Kaitai's
/// ValidationNotInEnumError does.
#[test]
fn in_enum_validation_reports_a_value_outside_the_enum() {
    let dir = common::scratch();
    let k = write_ksy(
        dir.path(),
        "kinds",
        "meta:\n  id: kinds\nseq:\n  - id: magic\n    contents: [0x4b]\n  - id: kind\n    type: u1\n    enum: kind\n    valid:\n      in-enum: true\nenums:\n  kind:\n    1: one\n    2: two\n",
    );
    let run = |byte: u8| {
        let data = dir.path().join(format!("data{byte}"));
        std::fs::write(&data, [0x4b, byte]).unwrap();
        let o = with_ksy(&k, &["--tree"], &data);
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
    };
    let good = run(2);
    assert!(good.contains("two"), "{good}");
    assert!(!good.contains("not valid"), "{good}");
    let bad = run(7);
    assert!(
        bad.contains("kind: not valid: 7 is not a member of its enum"),
        "{bad}"
    );
}

/// An attribute left out by its `if`: a seq attribute has no node; an
/// instance, whose node is listed before it is read, shows `null` where
/// its object starts, whether it is read by the walk or when opened.
#[test]
fn an_instance_left_out_by_its_if_shows_null() {
    let dir = common::scratch();
    let k = write_ksy(
        dir.path(),
        "opt",
        "meta: {id: opt, endian: le}\nseq:\n  - {id: a, type: u1}\n  - {id: b, type: u1, if: a == 9}\ninstances:\n  c: {value: a + 1, if: a == 9}\n  d: {pos: 2, type: u1, if: a == 9}\n  e: {pos: 2, type: u1}\n",
    );
    let run = |first: u8, at: Option<&str>| {
        let data = dir.path().join(format!("data{first}"));
        std::fs::write(&data, [first, 2, 3, 4]).unwrap();
        let o = match at {
            Some(p) => with_ksy(&k, &["--tree", "--at", p], &data),
            None => with_ksy(&k, &["--tree"], &data),
        };
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Without --at, the first line is the file's.
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        let skip = usize::from(at.is_none());
        out.lines()
            .skip(skip)
            .map(str::trim)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        run(1, None),
        [
            "a [0x0+0x1] 1",
            "c [0x0+0x0] null",
            "d [0x0+0x0] null",
            "e [0x2+0x1] 3"
        ]
    );
    assert_eq!(run(1, Some("d")), ["d [0x0+0x0] null"]);
    assert_eq!(
        run(9, None),
        [
            "a [0x0+0x1] 9",
            "b [0x1+0x1] 2",
            "c [0x0+0x0] 10 (0xa)",
            "d [0x2+0x1] 3",
            "e [0x2+0x1] 3"
        ]
    );
    // The same in the elements of a repeat, whose instances are read
    // with the element.
    let k = write_ksy(
        dir.path(),
        "opts",
        "meta: {id: opts, endian: le}\nseq:\n  - {id: xs, type: x, repeat: eos}\ntypes:\n  x:\n    seq:\n      - {id: a, type: u1}\n    instances:\n      c: {value: a + 1, if: a == 9}\n      d: {pos: 0, type: u1, if: a == 9}\n",
    );
    let data = dir.path().join("elements");
    std::fs::write(&data, [9u8, 1].repeat(1000)).unwrap();
    let o = with_ksy(&k, &["--tree"], &data);
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().map(str::trim).skip(3).take(8).collect();
    assert_eq!(
        lines,
        [
            "[0] [0x0+0x1]",
            "a [0x0+0x1] 9",
            "c [0x0+0x0] 10 (0xa)",
            "d [0x0+0x1] 9",
            "[1] [0x1+0x1]",
            "a [0x1+0x1] 1",
            "c [0x1+0x0] null",
            "d [0x1+0x0] null"
        ]
    );
}

/// A value instance whose value is an object (`linked_section` of the
/// gallery's `elf.ksy`, the section header `sh_link` names) shows at that
/// object's bytes, named by its type: for every section of a clang-22
/// object that links to another, the header `llvm-readelf-22` lists at
/// that index.
#[test]
fn a_value_instance_naming_an_object_shows_at_its_bytes() {
    if !common::tool("llvm-readelf-22") {
        return;
    }
    let obj = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets/offload/generated_locally/clang22__saxpy_omp_gfx1100_gfx90a.o");
    let out = Command::new("llvm-readelf-22")
        .args(["-h", "-S", "-W"])
        .arg(&obj)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |name: &str| -> u64 {
        let l = text
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        let v = l
            .split(':')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        v.parse().unwrap()
    };
    let (shoff, shentsize) = (
        field("Start of section headers"),
        field("Size of section headers"),
    );
    // [Nr] Name Type Address Off Size ES Flg Lk Inf Al: Lk third from the end.
    let links: Vec<(usize, u64)> = text
        .lines()
        .filter_map(|l| {
            let (nr, rest) = l.trim_start().strip_prefix('[')?.split_once(']')?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let lk = f.get(f.len().checked_sub(3)?)?.parse().ok()?;
            Some((nr.trim().parse().ok()?, lk))
        })
        .collect();
    assert!(links.iter().filter(|l| l.1 != 0).count() >= 3, "{text}");
    let ksy = ksy_dir().join("executable/elf.ksy");
    for (nr, lk) in links {
        let at = format!("header/section_headers/[{nr}]/linked_section");
        let o = with_ksy(&ksy, &["--tree", "--at", &at], &obj);
        let got = String::from_utf8_lossy(&o.stdout).trim().to_string();
        let want = if lk == 0 {
            // Left out by its `if` (an index of 0 names no section).
            "null".to_string()
        } else {
            format!(
                "[{:#x}+{shentsize:#x}] section_header",
                shoff + lk * shentsize
            )
        };
        assert!(got.ends_with(&want), "{at}: {got}, want {want}");
    }
}
