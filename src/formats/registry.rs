//! The one table of formats: each format's id, the name the tree and
//! `--json` give it, the name people say, how its bytes are recognised, its
//! parser, and where it may be found. Every nested format is opened through
//! [`crate::model::Builder::nested`], which keeps the one depth limit and
//! the one same-bytes guard, then calls [`dispatch`] here.
//!
//! A new format is one module and one arm in [`Format::row`] (and its id in
//! [`Format::ALL`], where it is tried in order).

use crate::model::{Builder, Gap, NodeId};

use super::{ar, bit, bitcode, bundle, elf, fatbin, nvwrap, offload, pdi, ptx, spirv, xclbin, xe};

/// Every format fwview decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Format {
    Xclbin,
    Xe,
    Zebin,
    Elf,
    Offload,
    Ar,
    Pdi,
    SpirV,
    Bitcode,
    CudaFatbin,
    ClangBundle,
    ClangBundleCompressed,
    Ptx,
    CudaFatbinWrapper,
    XilinxBit,
}

/// Where a format's bytes are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Place {
    /// The file itself.
    Top = 1,
    /// A section of a container: an ELF section, an XCLBIN section, an XE
    /// image.
    Section = 2,
    /// A member of an ar archive.
    Member = 4,
    /// A device image: an offload binary's image, a bundle's code object, a
    /// fatbin's payload.
    Image = 8,
    /// All of a derived byte space (inflated bytes).
    Derived = 16,
}

/// A set of [`Place`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Places(u8);

impl Places {
    pub const ANYWHERE: Places = Places(31);

    pub const fn contains(self, p: Place) -> bool {
        self.0 & p as u8 != 0
    }
}

/// Parses the format in `[off, off+len)` under a node.
pub type Parse = fn(&mut Builder<'_>, NodeId, u64, u64);

/// One row of the table.
pub struct Row {
    /// The name in `--json` (`format`) and on the node where it starts.
    pub name: &'static str,
    /// The name as people say it, in values and messages.
    pub label: &'static str,
    /// True if the bytes start with this format.
    pub detect: fn(&[u8]) -> bool,
    pub parse: Parse,
    /// Where it is looked for.
    pub found: Places,
    /// What the payloads it opens are (where a format found in them is).
    pub holds: Place,
    /// What its bytes that no structure covers become.
    pub gaps: Gap,
    // More columns join here as formats need them (an ELF vendor's hooks,
    // chosen by machine and OS ABI, are kept beside the ELF reader).
}

fn zebin_detect(d: &[u8]) -> bool {
    elf::detect(d) && elf::is_zebin(d)
}

fn elf_detect(d: &[u8]) -> bool {
    elf::detect(d) && !elf::is_zebin(d)
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 15] = [
        Format::Xclbin,
        Format::Xe,
        Format::Zebin,
        Format::Elf,
        Format::Offload,
        Format::Ar,
        Format::Pdi,
        Format::SpirV,
        Format::Bitcode,
        Format::CudaFatbin,
        Format::ClangBundle,
        Format::ClangBundleCompressed,
        Format::Ptx,
        Format::CudaFatbinWrapper,
        Format::XilinxBit,
    ];

    /// The format's row of the table.
    pub const fn row(self) -> Row {
        const ANY: Places = Places::ANYWHERE;
        match self {
            Format::Xclbin => Row {
                name: "xclbin",
                label: "XCLBIN",
                detect: xclbin::detect,
                parse: xclbin::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unused,
            },
            Format::Xe => Row {
                name: "xe",
                label: "XMOS XE",
                detect: xe::detect,
                parse: xe::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unused,
            },
            Format::Zebin => Row {
                name: "zebin",
                label: "ELF (Intel zebin)",
                detect: zebin_detect,
                parse: elf::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unused,
            },
            Format::Elf => Row {
                name: "elf",
                label: "ELF",
                detect: elf_detect,
                parse: elf::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unused,
            },
            Format::Offload => Row {
                name: "offload",
                label: "LLVM offload binary",
                detect: offload::detect,
                parse: offload::parse,
                found: ANY,
                holds: Place::Image,
                gaps: Gap::Unused,
            },
            Format::Ar => Row {
                name: "ar",
                label: "ar archive",
                detect: ar::detect,
                parse: ar::parse,
                found: ANY,
                holds: Place::Member,
                gaps: Gap::Unused,
            },
            Format::Pdi => Row {
                name: "pdi",
                label: "PDI",
                detect: pdi::detect,
                parse: pdi::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unused,
            },
            Format::SpirV => Row {
                name: "spirv",
                label: "SPIR-V",
                detect: spirv::detect,
                parse: spirv::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unknown,
            },
            Format::Bitcode => Row {
                name: "bitcode",
                label: "LLVM bitcode",
                detect: bitcode::detect,
                parse: bitcode::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Contents,
            },
            Format::CudaFatbin => Row {
                name: "cuda-fatbin",
                label: "CUDA fatbin",
                detect: fatbin::detect,
                parse: fatbin::parse,
                found: ANY,
                holds: Place::Image,
                gaps: Gap::Unused,
            },
            Format::ClangBundle => Row {
                name: "clang-offload-bundle",
                label: "clang offload bundle",
                detect: bundle::detect,
                parse: bundle::parse,
                found: ANY,
                holds: Place::Image,
                gaps: Gap::Unused,
            },
            Format::ClangBundleCompressed => Row {
                name: "clang-offload-bundle-compressed",
                label: "compressed clang offload bundle",
                detect: bundle::detect_compressed,
                parse: bundle::parse_compressed,
                found: ANY,
                holds: Place::Derived,
                gaps: Gap::Unused,
            },
            // Text: where a device image or a file may be, not in any ELF
            // or XCLBIN section whose text happens to start so.
            Format::Ptx => Row {
                name: "ptx",
                label: "PTX",
                detect: ptx::detect,
                parse: ptx::parse,
                found: Places(
                    Place::Top as u8
                        | Place::Member as u8
                        | Place::Image as u8
                        | Place::Derived as u8,
                ),
                holds: Place::Section,
                gaps: Gap::Syntax,
            },
            // `.nvFatBinSegment` bytes on their own (in an ELF the section
            // is decoded by name, its pointers linked).
            Format::CudaFatbinWrapper => Row {
                name: "cuda-fatbin-wrapper",
                label: "CUDA fatbin wrapper",
                detect: nvwrap::detect,
                parse: nvwrap::parse,
                found: Places(Place::Top as u8 | Place::Section as u8),
                holds: Place::Section,
                gaps: Gap::Unused,
            },
            // A `.bit` file, or an XCLBIN's BITSTREAM section.
            Format::XilinxBit => Row {
                name: "xilinx-bit",
                label: "Xilinx bitstream",
                detect: bit::detect,
                parse: bit::parse,
                found: ANY,
                holds: Place::Section,
                gaps: Gap::Unknown,
            },
        }
    }

    /// The name in `--json` and on nodes.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The name as people say it.
    pub const fn label(self) -> &'static str {
        self.row().label
    }

    /// The format whose table name is `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The first format, in table order, that may be found at `place` and
    /// whose bytes `d` start with.
    pub fn detect(d: &[u8], place: Place) -> Option<Format> {
        Format::ALL.into_iter().find(|f| {
            let r = f.row();
            r.found.contains(place) && (r.detect)(d)
        })
    }
}

/// Opens the device image in `[off, off+len)` under `node` through the
/// one nesting path, and gives `node` a value saying what it is and how
/// big. Returns the format found.
pub fn open_image(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) -> Option<Format> {
    let f = if len == 0 {
        None
    } else {
        b.nested(node, off, len).and_then(Format::from_name)
    };
    b.set_value(node, image_value(f, len));
    f
}

/// The value an image node shows: what it is and how big.
pub fn image_value(f: Option<Format>, size: u64) -> String {
    if size == 0 {
        return "empty".to_string();
    }
    match f {
        Some(f) => format!("{}, {size} bytes", f.label()),
        None => format!("not recognised, {size} bytes"),
    }
}

/// Where bytes opened under `parent` are: the file, the whole of a derived
/// space, or what the nearest enclosing format holds.
fn place_of(b: &Builder<'_>, parent: NodeId) -> Place {
    let Some(p) = b.node(parent) else {
        return Place::Top;
    };
    let derived_root = match p.parent.and_then(|q| b.node(q)) {
        Some(q) => q.space != p.space,
        None => false,
    };
    if derived_root {
        return Place::Derived;
    }
    let mut up = Some(parent);
    // The node being opened carries no format yet; an enclosing one does.
    while let Some(id) = up {
        let Some(n) = b.node(id) else { break };
        if let Some(f) = b.format_of(id).and_then(Format::from_name) {
            if id != parent {
                return f.row().holds;
            }
        }
        up = n.parent;
    }
    Place::Top
}

/// Detects the format in `[off, off+len)` and parses it under `parent`:
/// what [`crate::model::Builder::nested`] calls, and the top level.
pub fn dispatch(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) -> Option<&'static str> {
    let place = place_of(b, parent);
    let f = Format::detect(b.slice(off, len), place)?;
    let row = f.row();
    // Marked before it is parsed, so that what it opens knows where it is.
    b.set_format(parent, row.name);
    b.gaps(parent, row.gaps);
    (row.parse)(b, parent, off, len);
    Some(row.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_row_and_a_unique_name() {
        let mut names = std::collections::HashSet::new();
        let mut labels = std::collections::HashSet::new();
        for (i, f) in Format::ALL.into_iter().enumerate() {
            // ALL lists each id once, in declaration order.
            assert_eq!(f as usize, i, "{f:?}");
            assert!(names.insert(f.name()), "name {} twice", f.name());
            assert!(labels.insert(f.label()), "label {} twice", f.label());
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        // The last id is the last in ALL: none is missing.
        assert_eq!(Format::XilinxBit as usize + 1, Format::ALL.len());
    }

    /// What docs/formats.md says each sample is, by its kind of file: the
    /// format and the bytes it is detected by.
    fn expected(path: &std::path::Path) -> Option<(Format, &'static [u8])> {
        let ext = path.extension()?.to_str()?;
        let in_zebin = path.components().any(|c| c.as_os_str() == "zebin");
        Some(match ext {
            "xclbin" => (Format::Xclbin, b"xclbin2\0"),
            "xe" => (Format::Xe, b"XMOS"),
            "o" => (Format::Elf, b"\x7fELF"),
            "bin" if in_zebin => (Format::Zebin, b"\x7fELF"),
            "offloadbin" => (Format::Offload, b"\x10\xff\x10\xad"),
            "ar" => (Format::Ar, b"!<arch>\n"),
            "hipfb" => (Format::ClangBundle, b"__CLANG_OFFLOAD_BUNDLE__"),
            _ => return None,
        })
    }

    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x != "md") {
                out.push(p);
            }
        }
    }

    #[test]
    fn every_sample_is_detected_as_documented() {
        let mut all = Vec::new();
        files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
            &mut all,
        );
        all.sort();
        assert!(all.len() >= 20, "{} samples", all.len());
        for p in &all {
            let Some((want, magic)) = expected(p) else {
                panic!("{}: no expected format for this kind of file", p.display());
            };
            let d = std::fs::read(p).unwrap_or_default();
            assert!(d.starts_with(magic), "{}", p.display());
            assert_eq!(
                Format::detect(&d, Place::Top),
                Some(want),
                "{}",
                p.display()
            );
            let tree = crate::formats::build_from_bytes(d);
            assert_eq!(tree.format(), want.name(), "{}", p.display());
        }
    }
}
