//! How each fuzz target turns its input into what it runs: the bytes
//! shaped so that detection picks the target's format (the magic put in
//! front unless it is already there, an ELF's e_machine set), and for the
//! targets that take no file what the first byte picks (a gallery `.ksy`
//! description, a disassembly target) and the tree or decoding they run.
//! One place for the fuzz targets and for `tests/hostile.rs`, which
//! replays fuzz inputs exactly as their target ran them (it includes this
//! file; it depends on `fwview` alone).

use fwview::formats;

/// The bytes a Xilinx `.bit` file starts with: the first field's length
/// (9), its bytes, and the second field's length (1).
pub const BIT_START: [u8; 13] = [
    0x00, 0x09, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x00, 0x00, 0x01,
];

/// The input of fuzz target `target` as the target parses it. `detect`,
/// `msgpack` (which does not take files) and names of no target keep the
/// bytes as they are.
pub fn shape(target: &str, data: &[u8]) -> Vec<u8> {
    match target {
        "xclbin" => with_magic(data, formats::xclbin::MAGIC),
        "xe" => with_magic(data, b"XMOS"),
        // Not a zebin: e_machine 205 (EM_INTELGT) changed to 62 (x86-64).
        "elf" => {
            let mut v = with_magic(data, b"\x7fELF");
            if formats::zebin::detect(&v) {
                set_machine(&mut v, 62);
            }
            v
        }
        "zebin" => elf_for(data, 205),
        "amdgpu" => elf_for(data, 224),
        // An ELF for a machine whose code is decoded, the first byte
        // picking which; the rest is the ELF from its magic on.
        "code" => match data.split_first() {
            Some((&m, rest)) => elf_for(rest, CODE_MACHINES[usize::from(m) % CODE_MACHINES.len()]),
            None => elf_for(data, 62),
        },
        "offload" => with_magic(data, formats::offload::MAGIC),
        "ar" => with_magic(data, b"!<arch>\n"),
        "pdi" => with_magic(data, &formats::pdi::SELECTMAP32),
        "bundle" => with_magic(data, formats::bundle::MAGIC),
        "ccob" => with_magic(data, formats::bundle::CCOB_MAGIC),
        "fatbin" => with_magic(data, formats::fatbin::MAGIC),
        "nvwrap" => with_magic(data, formats::nvwrap::MAGIC_BYTES),
        // Kept if it starts with the magic in either byte order.
        "spirv" if formats::spirv::detect(data) => data.to_vec(),
        "spirv" => with_magic(data, &formats::spirv::MAGIC.to_le_bytes()),
        "bit" => with_magic(data, &BIT_START),
        // A standalone CDO: kept if it starts with a version 1 header (the
        // word count 4, then `XNLX`), else behind the start of a version 2
        // header (`04 00 00 00`, `CDO\0`).
        "cdo" => {
            let v1 = [4u32.to_le_bytes(), formats::cdo::XNLX_ID.to_le_bytes()].concat();
            if data.starts_with(&v1) {
                data.to_vec()
            } else {
                let v2 = [4u32.to_le_bytes(), formats::cdo::CDO_ID.to_le_bytes()].concat();
                with_magic(data, &v2)
            }
        }
        // NPU control code: the first byte picks a transaction behind a
        // header made here (even) or the rest as it is (odd).
        "npu" => match data.split_first() {
            Some((&k, rest)) if k & 1 == 0 => {
                let major = k >> 1 & 1;
                let len = rest.len() as u32;
                let mut v = vec![major, 1 - major, 3, 6, 4, 1, 0, 0];
                v.extend_from_slice(&(len / 4).to_le_bytes());
                v.extend_from_slice(&len.saturating_add(16).to_le_bytes());
                v.extend_from_slice(rest);
                v
            }
            Some((_, rest)) => rest.to_vec(),
            None => Vec::new(),
        },
        _ => data.to_vec(),
    }
}

/// `data` as it is if it already starts with `magic`, else `magic` + `data`.
fn with_magic(data: &[u8], magic: &[u8]) -> Vec<u8> {
    if data.starts_with(magic) {
        data.to_vec()
    } else {
        [magic, data].concat()
    }
}

/// An ELF whose e_machine is `machine`, in the byte order e_ident names.
/// The machines the `code` target picks from: x86-64, i386, AArch64,
/// RISC-V, XCore, AMDGPU, Intel GT.
const CODE_MACHINES: [u16; 7] = [62, 3, 183, 243, 203, 224, 205];

fn elf_for(data: &[u8], machine: u16) -> Vec<u8> {
    let mut v = with_magic(data, b"\x7fELF");
    if v.len() < 20 {
        v.resize(20, 0);
    }
    set_machine(&mut v, machine);
    v
}

/// Sets e_machine (bytes 18 and 19) in the byte order e_ident names.
fn set_machine(v: &mut [u8], machine: u16) {
    let m = if v.get(5) == Some(&2) {
        machine.to_be_bytes()
    } else {
        machine.to_le_bytes()
    };
    if let Some(f) = v.get_mut(18..20) {
        f.copy_from_slice(&m);
    }
}

/// The tree of `bytes` with instructions, as `--code` builds it (the
/// `code` target's).
pub fn code_tree(bytes: Vec<u8>) -> fwview::model::Tree {
    let options = fwview::model::Options {
        code: true,
        arg_names: None,
        nested_only: false,
    };
    formats::build_tree_with(
        std::sync::Arc::new(fwview::model::Source::from_vec(bytes)),
        "input",
        options,
    )
}

/// The gallery descriptions (in `tests/data/ksy`, their imports beside
/// them) the `ksy_data` target picks from by the input's first byte.
pub const KSY: [&str; 8] = [
    "executable/elf.ksy",
    "archive/zip.ksy",
    "image/png.ksy",
    "hardware/dtb.ksy",
    "media/wav.ksy",
    "filesystem/ext2.ksy",
    "serialization/asn1/asn1_der.ksy",
    "archive/gzip.ksy",
];

/// The `ksy_data` target's input as the gallery description its first
/// byte picks (a path in [`KSY`]) and the data after that byte.
pub fn ksy_pick(input: &[u8]) -> (&'static str, &[u8]) {
    let (pick, data) = input.split_first().map_or((0, &[][..]), |(&p, d)| (p, d));
    (KSY[usize::from(pick) % KSY.len()], data)
}

/// `bytes` read with the description at `spec`: its tree, as `K` reads a
/// node (a description that does not load leaves the bytes as they are).
pub fn ksy_tree(spec: &std::path::Path, bytes: Vec<u8>) -> fwview::model::Tree {
    let mut tree = formats::build_tree_with(
        std::sync::Arc::new(fwview::model::Source::from_vec(bytes)),
        "input",
        fwview::model::Options::default(),
    );
    let root = tree.root();
    let _ = formats::describe(&mut tree, root, &spec.to_string_lossy());
    tree
}

/// The `ksy_spec` target's tree: the input up to its first NUL written to
/// `spec` as a description, read over the bytes after the NUL, with the
/// length of those bytes; `None` where the file cannot be written.
pub fn ksy_text_tree(spec: &std::path::Path, input: &[u8]) -> Option<(fwview::model::Tree, usize)> {
    let (text, data) = match input.iter().position(|&b| b == 0) {
        Some(k) => (&input[..k], input.get(k + 1..).unwrap_or_default()),
        None => (input, &[][..]),
    };
    std::fs::write(spec, text).ok()?;
    Some((ksy_tree(spec, data.to_vec()), data.len()))
}

/// The targets [`decode`] picks from by the input's first byte: each ISA the
/// engines decode, AMDGPU with processors LLVM handles and ones it must
/// never be given.
pub const TARGETS: [(&str, &str, &str); 12] = [
    ("x86_64-unknown-linux-gnu", "", ""),
    ("i386-unknown-linux-gnu", "", ""),
    ("aarch64", "", "+all"),
    ("riscv64", "", "+m,+a,+f,+d,+c"),
    ("riscv32", "", "+c"),
    ("xcore", "", ""),
    ("amdgcn-amd-amdhsa", "gfx90a", "+xnack"),
    ("amdgcn-amd-amdhsa", "gfx1100", ""),
    ("amdgcn-amd-amdhsa", "gfx1200", ""),
    ("amdgcn-amd-amdhsa", "gfx700", ""),
    ("amdgcn-amd-amdhsa", "gfx1300", ""),
    ("r600-amd-amdhsa", "cypress", ""),
];

/// Decodes all of `data[1..]` for the target `data[0]` picks, one
/// instruction after another as a function is decoded: each instruction is
/// at least 1 byte and no more than what is left, its text is bounded and
/// safe to print, and the walk ends.
pub fn decode(data: &[u8]) {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let (triple, cpu, features) = TARGETS[usize::from(pick) % TARGETS.len()];
    let t = fwview::disasm::Target::new(triple, cpu, features);
    let _ = fwview::disasm::with_engine(&t, |e| {
        let mut off = 0usize;
        let mut steps = 0usize;
        while off < bytes.len() {
            let i = e.decode(&bytes[off..], 0x1000 + off as u64);
            assert!(
                i.len >= 1 && i.len <= bytes.len() - off,
                "length {} at {off} of {}",
                i.len,
                bytes.len()
            );
            assert!(i.text.len() <= 4096, "text of {} bytes", i.text.len());
            assert!(
                fwview::model::text::terminal_unsafe_at(i.text.as_bytes()).is_none(),
                "{:?}",
                i.text
            );
            off += i.len;
            steps += 1;
            assert!(steps <= bytes.len(), "more instructions than bytes");
        }
    });
}
