//! Which format starts at a node: one enum for every format fwview decodes,
//! carried through the model instead of its name. The names printed for
//! it (`--json`'s `format`, the status line) and said of it (values and
//! messages) come from this one table; how each is detected and parsed is
//! the formats registry's.

/// Every format fwview decodes, in the order detection tries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// An NPU transaction buffer (aie-rt, mlir-aie's `insts.bin`).
    NpuTransaction,
    /// An NPU instruction sequence (Riallto's `.seq`), text or binary.
    IpuSequence,
    /// A format a Kaitai Struct description (`.ksy`) gives, loaded at run
    /// time.
    Ksy,
    /// JSON text (an XCLBIN's metadata sections); opened by the formats
    /// that hold it, never detected on its own.
    Json,
    /// XML text (an XE's configuration); likewise.
    Xml,
    /// MessagePack (an AMDGPU code object's metadata note); likewise.
    MsgPack,
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 21] = [
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
        Format::NpuTransaction,
        Format::IpuSequence,
        Format::Ksy,
        Format::Json,
        Format::Xml,
        Format::MsgPack,
    ];

    /// The name in `--json` (`format`) and on the node where it starts.
    pub const fn name(self) -> &'static str {
        self.names().0
    }

    /// The name as people say it, in values and messages.
    pub const fn label(self) -> &'static str {
        self.names().1
    }

    const fn names(self) -> (&'static str, &'static str) {
        match self {
            Format::Xclbin => ("xclbin", "XCLBIN"),
            Format::Xe => ("xe", "XMOS XE"),
            Format::Zebin => ("zebin", "ELF (Intel zebin)"),
            Format::Elf => ("elf", "ELF"),
            Format::Offload => ("offload", "LLVM offload binary"),
            Format::Ar => ("ar", "ar archive"),
            Format::Pdi => ("pdi", "PDI"),
            Format::SpirV => ("spirv", "SPIR-V"),
            Format::Bitcode => ("bitcode", "LLVM bitcode"),
            Format::CudaFatbin => ("cuda-fatbin", "CUDA fatbin"),
            Format::ClangBundle => ("clang-offload-bundle", "clang offload bundle"),
            Format::ClangBundleCompressed => (
                "clang-offload-bundle-compressed",
                "compressed clang offload bundle",
            ),
            Format::Ptx => ("ptx", "PTX"),
            Format::CudaFatbinWrapper => ("cuda-fatbin-wrapper", "CUDA fatbin wrapper"),
            Format::XilinxBit => ("xilinx-bit", "Xilinx bitstream"),
            Format::NpuTransaction => ("npu-transaction", "NPU transaction buffer"),
            Format::IpuSequence => ("ipu-sequence", "NPU instruction sequence"),
            Format::Ksy => ("ksy", "Kaitai Struct description"),
            Format::Json => ("json", "JSON"),
            Format::Xml => ("xml", "XML"),
            Format::MsgPack => ("msgpack", "MessagePack"),
        }
    }

    /// The format whose name is `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The name printed for a tree whose bytes no format claims.
pub const RAW: &str = "raw";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_listed_once_with_unique_names() {
        let mut names = std::collections::HashSet::new();
        let mut labels = std::collections::HashSet::new();
        for (i, f) in Format::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i, "{f:?}");
            assert!(names.insert(f.name()), "name {} twice", f.name());
            assert!(labels.insert(f.label()), "label {} twice", f.label());
            assert_eq!(Format::from_name(f.name()), Some(f));
            assert_ne!(f.name(), RAW);
        }
        assert_eq!(Format::MsgPack as usize + 1, Format::ALL.len());
    }
}
