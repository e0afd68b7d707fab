//! The one table of formats: for each [`Format`] (whose names the model
//! keeps), how its bytes are recognised, its parser, and where it may be
//! found. Every nested format is opened through
//! [`crate::model::Builder::nested`], which keeps the one depth limit and
//! the one same-bytes guard, then calls [`dispatch`] here.
//!
//! A new format is one module, its id in [`Format`] (whose order is the
//! order detection tries them in), and one arm in [`row`].

use crate::model::{Builder, Format, Gap, NodeId, Span};

use super::{
    amdgpu, ar, bit, bitcode, bundle, elf, fatbin, hipwrap, ksy, npu, nvwrap, offload,
    offload_entries, pdi, ptx, spirv, xclbin, xe, zebin,
};

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

/// Parses the format in a span of the space being built under a node.
pub type Parse = fn(&mut Builder<'_>, NodeId, Span);

/// One row of the table.
pub struct Row {
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

fn ipu_detect(d: &[u8]) -> bool {
    npu::detect_sequence_text(d) || npu::detect_sequence_binary(d)
}

fn elf_detect(d: &[u8]) -> bool {
    elf::detect(d) && !zebin::detect(d)
}

/// What plugs into the ELF reader: each machine's vendor, and the sections
/// other formats define.
static ELF_HOOKS: elf::Hooks = elf::Hooks {
    vendor: elf_vendor,
    sections: &[
        // A description the user bound to the section's name comes first:
        // the user's word on their own section.
        &KSY_SECTION,
        &offload::ELF_SECTION,
        &hipwrap::ELF_SECTION,
        &nvwrap::ELF_SECTION,
        &offload_entries::ELF_SECTION,
        &bundle::ELF_SECTION,
        &npu::ctrlcode::ELF_SECTION,
        &npu::aie2elf::ELF_SECTION,
    ],
};

/// An ELF section bound to a `.ksy` description by its name.
static KSY_SECTION: elf::SectionHook = elf::SectionHook {
    claims: |s| ksy::bound_section(&s.name).is_some(),
    decode: |b, id, _, s, at| {
        let Some(spec) = ksy::bound_section(&s.name) else {
            return false;
        };
        ksy::open_bound(b, id, at, spec);
        true
    },
};

/// What plugs into the XCLBIN reader: sections bound to `.ksy`
/// descriptions by their kind.
static XCLBIN_HOOKS: xclbin::Hooks = xclbin::Hooks {
    section: |b, kind, node, at| {
        let Some(spec) = ksy::bound_kind(kind) else {
            return false;
        };
        ksy::open_bound(b, node, at, spec);
        true
    },
};

fn xclbin_parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    xclbin::parse_with(b, parent, at, &XCLBIN_HOOKS)
}

/// What the machine of an ELF file adds to the generic ELF reader (its
/// section, note and relocation types, its sections' contents), found by
/// e_machine and EI_OSABI.
fn elf_vendor(machine: u16, osabi: u8) -> Option<&'static dyn elf::Vendor> {
    match machine {
        npu::aie2elf::EM_M32 if osabi == npu::aie2elf::OSABI_AIE2 => Some(&npu::aie2elf::VENDOR),
        elf::EM_INTELGT => Some(&zebin::INTEL_GT),
        elf::EM_AMDGPU => Some(&amdgpu::AMDGPU),
        elf::EM_CUDA => Some(&fatbin::CUDA),
        _ => None,
    }
}

fn elf_parse(b: &mut Builder<'_>, parent: NodeId, at: Span) {
    elf::parse(b, parent, at, &ELF_HOOKS)
}

/// Files and what holds files: anywhere but a section.
const FILES: Places =
    Places(Place::Top as u8 | Place::Member as u8 | Place::Image as u8 | Place::Derived as u8);

/// A format's row of the table; `None` for formats that only the format
/// holding them opens (JSON, XML).
pub const fn row(f: Format) -> Option<Row> {
    const ANY: Places = Places::ANYWHERE;
    Some(match f {
        Format::Xclbin => Row {
            detect: xclbin::detect,
            parse: xclbin_parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unused,
        },
        Format::Xe => Row {
            detect: xe::detect,
            parse: xe::parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unused,
        },
        Format::Zebin => Row {
            detect: zebin::detect,
            parse: elf_parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unused,
        },
        Format::Elf => Row {
            detect: elf_detect,
            parse: elf_parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unused,
        },
        Format::Offload => Row {
            detect: offload::detect,
            parse: offload::parse,
            found: ANY,
            holds: Place::Image,
            gaps: Gap::Unused,
        },
        Format::Ar => Row {
            detect: ar::detect,
            parse: ar::parse,
            found: ANY,
            holds: Place::Member,
            gaps: Gap::Unused,
        },
        Format::Pdi => Row {
            detect: pdi::detect,
            parse: pdi::parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unused,
        },
        Format::SpirV => Row {
            detect: spirv::detect,
            parse: spirv::parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unknown,
        },
        Format::Bitcode => Row {
            detect: bitcode::detect,
            parse: bitcode::parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Contents,
        },
        Format::CudaFatbin => Row {
            detect: fatbin::detect,
            parse: fatbin::parse,
            found: ANY,
            holds: Place::Image,
            gaps: Gap::Unused,
        },
        Format::ClangBundle => Row {
            detect: bundle::detect,
            parse: bundle::parse,
            found: ANY,
            holds: Place::Image,
            gaps: Gap::Unused,
        },
        Format::ClangBundleCompressed => Row {
            detect: bundle::detect_compressed,
            parse: bundle::parse_compressed,
            found: ANY,
            holds: Place::Derived,
            gaps: Gap::Unused,
        },
        // Text: where a device image or a file may be, not in any ELF
        // or XCLBIN section whose text happens to start so.
        Format::Ptx => Row {
            detect: ptx::detect,
            parse: ptx::parse,
            found: FILES,
            holds: Place::Section,
            gaps: Gap::Syntax,
        },
        // `.nvFatBinSegment` bytes on their own (in an ELF the section
        // is decoded by name, its pointers linked).
        Format::CudaFatbinWrapper => Row {
            detect: nvwrap::detect,
            parse: nvwrap::parse,
            found: Places(Place::Top as u8 | Place::Section as u8),
            holds: Place::Section,
            gaps: Gap::Unused,
        },
        // A `.bit` file, or an XCLBIN's BITSTREAM section.
        Format::XilinxBit => Row {
            detect: bit::detect,
            parse: bit::parse,
            found: ANY,
            holds: Place::Section,
            gaps: Gap::Unknown,
        },
        // NPU control code: files and what holds files, never a section
        // (whose bytes any table of words may resemble).
        Format::NpuTransaction => Row {
            detect: npu::detect_transaction,
            parse: npu::parse_transaction,
            found: FILES,
            holds: Place::Section,
            gaps: Gap::Unknown,
        },
        // `.seq` text (its line ends are syntax) or binary words.
        Format::IpuSequence => Row {
            detect: ipu_detect,
            parse: npu::parse_sequence,
            found: FILES,
            holds: Place::Section,
            gaps: Gap::Syntax,
        },
        // A user's description: by the bytes its first attribute's
        // `contents` requires, anywhere.
        Format::Ksy => Row {
            detect: ksy::detect,
            parse: ksy::parse,
            found: ANY,
            holds: Place::Image,
            gaps: Gap::Unknown,
        },
        Format::Json | Format::Xml | Format::MsgPack => return None,
    })
}

/// The first format, in table order, that may be found at `place` and
/// whose bytes `d` start with.
pub fn detect(d: &[u8], place: Place) -> Option<Format> {
    Format::ALL
        .into_iter()
        .find(|&f| row(f).is_some_and(|r| r.found.contains(place) && (r.detect)(d)))
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
        if let Some(r) = b.format_of(id).and_then(row) {
            if id != parent {
                return r.holds;
            }
        }
        up = n.parent;
    }
    Place::Top
}

/// Detects the format in `at` and parses it under `parent`: what
/// [`crate::model::Builder::nested`] calls, and the top level.
pub fn dispatch(b: &mut Builder<'_>, parent: NodeId, at: Span) -> Option<Format> {
    let place = place_of(b, parent);
    // A description given for the file (`--ksy`), or one that names the
    // file's extension, is what the file is.
    let whole_file =
        b.space() == crate::model::FILE && b.node(parent).is_some_and(|n| n.parent.is_none());
    let named = || {
        let name = b.node(parent).map_or("", |n| n.name.as_str());
        ksy::named(name, b.bytes(at))
    };
    let f = if whole_file && (ksy::forced() || named()) {
        Format::Ksy
    } else {
        detect(b.bytes(at), place)?
    };
    let r = row(f)?;
    // Marked before it is parsed, so that what it opens knows where it is.
    b.set_format(parent, f);
    b.gaps(parent, r.gaps);
    (r.parse)(b, parent, at);
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_formats_opened_by_their_holders_have_no_row() {
        for f in Format::ALL {
            let held_only = matches!(f, Format::Json | Format::Xml | Format::MsgPack);
            assert_eq!(row(f).is_none(), held_only, "{f:?}");
        }
    }

    /// What docs/formats.md says each sample is, by its kind of file: the
    /// format and the bytes it is detected by.
    fn expected(path: &std::path::Path) -> Option<(Format, &'static [u8])> {
        let ext = path.extension()?.to_str()?;
        let in_zebin = path.components().any(|c| c.as_os_str() == "zebin");
        let in_npu = path.components().any(|c| c.as_os_str() == "npu");
        Some(match ext {
            "xclbin" => (Format::Xclbin, b"xclbin2\0"),
            "xe" => (Format::Xe, b"XMOS"),
            "o" => (Format::Elf, b"\x7fELF"),
            // aiebu's control-code ELFs.
            "elf" if in_npu => (Format::Elf, b"\x7fELF"),
            "bin" if in_zebin => (Format::Zebin, b"\x7fELF"),
            // A version 0.1 transaction header.
            "bin" if in_npu => (Format::NpuTransaction, b"\x00\x01"),
            "offloadbin" => (Format::Offload, b"\x10\xff\x10\xad"),
            "ar" => (Format::Ar, b"!<arch>\n"),
            "hipfb" => (Format::ClangBundle, b"__CLANG_OFFLOAD_BUNDLE__"),
            // Riallto's sequences: a 17-word prolog, its first word 0x11.
            "seq" => (Format::IpuSequence, b"00000011\n"),
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
            assert_eq!(detect(&d, Place::Top), Some(want), "{}", p.display());
            let tree = crate::formats::build_from_bytes(d);
            assert_eq!(tree.format(), Some(want), "{}", p.display());
        }
    }
}
