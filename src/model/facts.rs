//! What parsers learn about the bytes at a node that consumers need as data
//! rather than as display text: which device code starts there, for which
//! target, and what the container holding it says of it. Parsers record
//! facts through [`crate::model::Builder::fact`]; `--targets` and the
//! folder scan read them through [`crate::model::Tree::facts`], never by
//! matching node names or values.

use std::sync::Arc;

use compact_str::CompactString;

use super::Format;

/// One fact about a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// A container holds an image here, and says what for.
    Held(Held),
    /// Device code starts here: its own bytes say it runs on a GPU (an
    /// AMDGPU, CUDA or Intel GT ELF, PTX), and name the target where they
    /// can (`gfx90a:xnack+`, `sm_80`); `None` where the target is named
    /// further in (a zebin's product family note).
    DeviceCode { target: Option<CompactString> },
    /// A target named inside an image, for the image that holds this node:
    /// a zebin's product family (`dg2`), a bitcode or SPIR-V module's
    /// triple.
    NamesTarget(CompactString),
    /// What the bytes here configure or run on, where that is not GPU code:
    /// an FPGA platform an xclbin is built for, an NPU's AIE partition,
    /// an xCORE tile's program. Nothing below holds another image.
    Configures(Configures),
    /// An executable or shared object maps these virtual addresses to
    /// these bytes (its loaded sections, else its loadable segments):
    /// recorded on the image's own node, so that an address can be found
    /// in the bytes of the image that holds a node.
    Addresses(Arc<[Mapping]>),
    /// The bytes are not here but in a file of their own, at this path
    /// relative to the container's (a thin archive's member).
    External(CompactString),
}

/// `size` bytes at virtual address `addr` are those at `offset` of the
/// image's byte space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub addr: u64,
    pub size: u64,
    pub offset: u64,
}

/// A device the bytes at a node are built for, as `--targets` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Configures {
    /// The format of what configures it (`xclbin`, `pdi`, `elf`).
    pub format: Format,
    /// The device: an FPGA platform's VBNV, `aie2 (4 columns)`, `XS2`.
    pub target: CompactString,
    /// What sort of device, or where on it: `fpga`, `npu`, an xCORE
    /// program's `node 0 tile 1`.
    pub kind: CompactString,
}

/// Every fact recorded for one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// What the container holding this node's image says of it.
    pub held: Option<Held>,
    /// `Some` where device code starts here; inside, its own target.
    pub device_code: Option<Option<CompactString>>,
    /// A target named here for the enclosing image.
    pub names_target: Option<CompactString>,
    /// A device these bytes configure or run on.
    pub configures: Option<Configures>,
    /// Where this image's virtual addresses are, sorted by address.
    pub addresses: Option<Arc<[Mapping]>>,
    /// Where the bytes are kept instead, relative to the container.
    pub external: Option<CompactString>,
}

/// A container's word on the image it holds: the offload kind (`hip`,
/// `hipv4`, `openmp`, `cuda`) and the target (`gfx90a`, `sm_80`, a
/// triple) where it names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Held {
    pub kind: Option<CompactString>,
    pub target: Option<CompactString>,
    /// False for a host entry (a bundle's `host-…` code object).
    pub device: bool,
}

impl Facts {
    /// Adds `f`; a fact of the same sort recorded before is replaced.
    pub fn add(&mut self, f: Fact) {
        match f {
            Fact::Held(h) => self.held = Some(h),
            Fact::DeviceCode { target } => self.device_code = Some(target),
            Fact::NamesTarget(t) => self.names_target = Some(t),
            Fact::Configures(c) => self.configures = Some(c),
            Fact::Addresses(mut m) => {
                if let Some(ms) = Arc::get_mut(&mut m) {
                    ms.sort_unstable_by_key(|m| (m.addr, m.size));
                }
                self.addresses = Some(m)
            }
            Fact::External(p) => self.external = Some(p),
        }
    }

    /// The offset of virtual address `addr` in the image's byte space,
    /// where a mapping holds it (the smallest such mapping: sections nest
    /// inside segments).
    pub fn offset_of(&self, addr: u64) -> Option<u64> {
        let map = self.addresses.as_deref()?;
        map.iter()
            .filter(|m| addr >= m.addr && addr - m.addr < m.size)
            .min_by_key(|m| m.size)
            .and_then(|m| m.offset.checked_add(addr - m.addr))
    }
}
