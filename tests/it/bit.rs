//! Xilinx `.bit` headers, standalone and in an XCLBIN's BITSTREAM section.
//! None of the bundled XCLBINs carries a bitstream (the Kria and PYNQ ones
//! hold metadata only, the NPU ones a 0-byte `dummy_bitstream`), so the
//! files are written here in the layout Vivado writes: a 2-byte length 9
//! and `0F F0 0F F0 0F F0 0F F0 00`, a 2-byte length 1, then fields `a`
//! (design name), `b` (part), `c` (date), `d` (time), each a key byte, a
//! big-endian 2-byte length and a NUL-terminated string, and `e`, a key
//! byte, a big-endian 4-byte length and the configuration data (padding,
//! the bus-width pattern `000000BB 11220044`, the sync word `AA995566`,
//! packets). Each field is checked at the offset a byte search of the file
//! finds, and the 'e' length plus the header against the section's size.

use crate::common;

use serde_json::Value;

use common::json::{child, find, json_of_bytes, lead, name, off, size, val};

const DESIGN: &str = "kv260_top;UserID=0XFFFFFFFF;Version=2022.1";
const PART: &str = "xck26-sfvc784-2LV-c";
const DATE: &str = "2022/05/16";
const TIME: &str = "12:34:56";
/// Padding, the bus-width detection pattern and two dummy words before
/// the sync word.
const PREAMBLE: &str = "ffffffffffffffffffffffffffffffff000000bb11220044ffffffffffffffff";

fn field(key: u8, s: &str) -> Vec<u8> {
    let mut v = vec![key];
    v.extend((s.len() as u16 + 1).to_be_bytes());
    v.extend(s.as_bytes());
    v.push(0);
    v
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A `.bit` file and its configuration data's length.
fn bitfile() -> (Vec<u8>, usize) {
    let mut data = hex(PREAMBLE);
    data.extend([0xaa, 0x99, 0x55, 0x66]);
    // Type 1 packets: NOOP, write to CMD, RCRC.
    for w in [0x2000_0000u32, 0x3000_8001, 0x0000_0007, 0x2000_0000] {
        data.extend(w.to_be_bytes());
    }
    let mut v = vec![
        0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x00,
    ];
    v.extend([0x00, 0x01]);
    v.extend(field(b'a', DESIGN));
    v.extend(field(b'b', PART));
    v.extend(field(b'c', DATE));
    v.extend(field(b'd', TIME));
    v.push(b'e');
    v.extend((data.len() as u32).to_be_bytes());
    let n = data.len();
    v.extend(data);
    (v, n)
}

fn search(hay: &[u8], needle: &[u8]) -> u64 {
    hay.windows(needle.len())
        .position(|w| w == needle)
        .expect("the bytes are in the file") as u64
}

/// Checks the `.bit` decoded under `n`, whose bytes start at `base` in
/// `file` and run `len` bytes.
fn check(n: &Value, file: &[u8], base: u64, len: u64, data_len: usize) {
    for (node, s) in [
        ("design_name", DESIGN),
        ("part", PART),
        ("date", DATE),
        ("time", TIME),
    ] {
        let g = child(n, node);
        let v = child(g, "value");
        let at = search(file, s.as_bytes());
        assert_eq!(off(v), at, "{node}");
        assert_eq!(size(v), s.len() as u64 + 1, "{node}");
        assert_eq!(val(v), format!("\"{s}\""));
        let l = child(g, "length");
        assert_eq!(off(l), at - 2);
        assert_eq!(lead(val(l)), s.len() as u64 + 1);
        assert_eq!(off(child(g, "key")), at - 3);
    }
    let d = child(n, "data");
    let l = child(d, "length");
    assert_eq!(lead(val(l)), data_len as u64);
    let header = off(l) + 4 - base;
    assert_eq!(header + data_len as u64, len, "header plus 'e' length");
    let sync = search(file, &[0xaa, 0x99, 0x55, 0x66]);
    assert_eq!(off(child(d, "sync_word")), sync);
    let p = child(d, "preamble");
    assert_eq!(
        (off(p), size(p)),
        (base + header, PREAMBLE.len() as u64 / 2)
    );
    let c = child(d, "configuration");
    assert_eq!((off(c), off(c) + size(c)), (sync + 4, base + len));
    assert!(
        val(d).contains(PART) && val(d).contains(DESIGN),
        "{}",
        val(d)
    );
}

#[test]
fn standalone_bit_file() {
    let (f, n) = bitfile();
    let j = json_of_bytes(f.clone());
    assert_eq!(j["format"], "xilinx-bit");
    assert!(
        common::json::diags(&j).is_empty(),
        "{:?}",
        common::json::diags(&j)
    );
    check(&j["root"], &f, 0, f.len() as u64, n);
}

/// The node of the payload of section `i` (its name starts `[i] `) at the
/// top of an XCLBIN's tree.
fn payload<'a>(root: &'a Value, kind: &str) -> &'a Value {
    root["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| name(k).starts_with("[0] ") && name(k).contains(kind))
        .unwrap_or_else(|| panic!("no {kind} payload"))
}

#[test]
fn bit_header_in_an_xclbin_bitstream_section() {
    let (bit, n) = bitfile();
    let x = common::build::xclbin(b"xilinx_kv260_base", &[(0, b"bitstream", &bit)]);
    let j = json_of_bytes(x.clone());
    let errors = common::json::errors(&j);
    assert!(errors.is_empty(), "{errors:?}");
    let sec = payload(&j["root"], "BITSTREAM");
    let base = search(&x, &bit[..13]);
    assert_eq!((off(sec), size(sec)), (base, bit.len() as u64));
    check(sec, &x, base, size(sec), n);
    // xclbinutil --info would print the same design and part; it is not
    // packaged for this system, so the byte search above stands for it.
}

#[test]
fn bit_length_that_disagrees_with_the_section() {
    let (bit, n) = bitfile();
    // Cut 8 bytes off: the 'e' length runs past the section.
    let short = &bit[..bit.len() - 8];
    let x = common::build::xclbin(b"p", &[(0, b"bitstream", short)]);
    let j = json_of_bytes(x);
    assert!(
        common::json::has_diag(&j, "error", "gives"),
        "{:?}",
        common::json::diags(&j)
    );
    let sec = payload(&j["root"], "BITSTREAM");
    let d = child(sec, "data");
    assert_eq!(off(d) + size(d), off(sec) + size(sec));
    // Four bytes more than the 'e' length: a trailing leaf and a warning.
    let mut long = bit.clone();
    long.extend([0, 0, 0, 0]);
    let j = json_of_bytes(long);
    assert!(common::json::has_diag(
        &j,
        "warning",
        "4 bytes after the bitstream"
    ));
    let t = child(&j["root"], "trailing");
    assert_eq!((off(t), size(t)), ((bit.len()) as u64, 4));
    assert_eq!(
        lead(val(child(child(&j["root"], "data"), "length"))),
        n as u64
    );
    assert!(find(&j["root"], "undecoded").is_none());
}
