//! `--targets`: every device image in a tree, at any depth, with the
//! target it is built for. An image is a node where a device format starts
//! (an AMDGPU, CUDA or Intel GT ELF, PTX, and LLVM bitcode or SPIR-V
//! inside an offload container); its target comes from its own bytes where
//! they name one (ELF `e_flags`, PTX `.target`, zebin's product family
//! note) and otherwise from what holds it (a bundle entry's id, an offload
//! binary's `arch`/`triple` strings, a fatbin entry's sm).

use std::io::{self, Write};

use crate::export::json_str;
use crate::formats::{amdgpu, elf, offload};
use crate::model::read::uint_at;
use crate::model::{text, Endian, NodeId, SpaceId, Tree, Value};

/// One device image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// The format's table name (`elf`, `zebin`, `ptx`, `bitcode`, `spirv`).
    pub format: &'static str,
    /// What it runs on: `gfx90a:xnack+`, `sm_80`, `dg2`.
    pub target: String,
    /// The offload kind of what holds it (`hip`, `hipv4`, `openmp`,
    /// `cuda`), or `-` where nothing says.
    pub kind: String,
    /// The node's address, as `--extract` takes it.
    pub path: String,
    pub space: SpaceId,
    pub offset: u64,
    pub size: u64,
}

/// What the container of an image says of it.
#[derive(Default)]
struct Context {
    kind: Option<String>,
    target: Option<String>,
    /// False for a bundle's host entry.
    device: bool,
}

/// A bundle entry id: `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+` is kind
/// `hipv4`, triple `amdgcn-amd-amdhsa-`, target id `gfx90a:xnack+`.
pub fn split_bundle_id(id: &str) -> (&str, &str, &str) {
    let Some((kind, rest)) = id.split_once('-') else {
        return (id, "", "");
    };
    // The triple has four parts (arch-vendor-os-environment); what
    // follows the fourth dash is the target id.
    let mut dashes = rest.match_indices('-').map(|(i, _)| i);
    match dashes.nth(3) {
        Some(i) => (
            kind,
            rest.get(..i).unwrap_or(rest),
            rest.get(i + 1..).unwrap_or(""),
        ),
        None => (kind, rest, ""),
    }
}

/// The name a bundle gives an entry's payload, without the ` [i]` it adds
/// where two share an id.
fn bundle_id_of(name: &str) -> &str {
    match name.rfind(" [") {
        Some(i) if name.ends_with(']') => name.get(..i).unwrap_or(name),
        _ => name,
    }
}

fn cstr(d: &[u8], off: u64) -> String {
    let s = usize::try_from(off)
        .ok()
        .and_then(|a| d.get(a..))
        .unwrap_or(&[]);
    let s = s.get(..s.len().min(256)).unwrap_or(&[]);
    let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    text::from_bytes(s.get(..end).unwrap_or(&[]))
}

/// The entry of the offload binary `bin` whose image starts at `rel`:
/// its offload kind and its `arch` (or `triple`) string.
fn offload_entry(bin: &[u8], rel: u64) -> Context {
    let mut c = Context {
        device: true,
        ..Context::default()
    };
    let (Some(eo), Some(es)) = (
        uint_at(bin, 16, 8, Endian::Little),
        uint_at(bin, 24, 8, Endian::Little),
    ) else {
        return c;
    };
    for i in 0..(es / 40).min(4096) {
        let e = eo + i * 40;
        let (Some(okind), Some(so), Some(sc), Some(io)) = (
            uint_at(bin, e + 2, 2, Endian::Little),
            uint_at(bin, e + 8, 8, Endian::Little),
            uint_at(bin, e + 16, 8, Endian::Little),
            uint_at(bin, e + 24, 8, Endian::Little),
        ) else {
            break;
        };
        if io != rel {
            continue;
        }
        let t = offload::offload_kind_text(okind as u16);
        let short = match (t.find('('), t.rfind(')')) {
            (Some(a), Some(z)) if a < z => t.get(a + 1..z).unwrap_or(""),
            _ => "",
        };
        if !short.is_empty() && short != "none" {
            c.kind = Some(short.to_lowercase().replace(" | ", "+"));
        }
        let (mut arch, mut triple) = (None, None);
        for j in 0..sc.min(256) {
            let (Some(k), Some(v)) = (
                uint_at(bin, so + j * 16, 8, Endian::Little),
                uint_at(bin, so + j * 16 + 8, 8, Endian::Little),
            ) else {
                break;
            };
            match cstr(bin, k).as_str() {
                "arch" => arch = Some(cstr(bin, v)),
                "triple" => triple = Some(cstr(bin, v)),
                _ => {}
            }
        }
        c.target = arch.filter(|a| !a.is_empty()).or(triple);
        break;
    }
    c
}

/// What a section name of a bundle written as an object starts with.
const BUNDLE_SECTION: &str = "__CLANG_OFFLOAD_BUNDLE__";

/// What a bundle entry id says of its code object.
fn bundle_context(id: &str) -> Context {
    let (kind, triple, target) = split_bundle_id(id);
    Context {
        kind: Some(kind.to_string()),
        target: Some(if target.is_empty() {
            triple.trim_end_matches('-').to_string()
        } else {
            target.to_string()
        }),
        device: kind != "host",
    }
}

/// What holds the image at `id`, if anything.
fn context(tree: &Tree, id: NodeId) -> Option<Context> {
    let n = tree.node(id)?;
    // A compressed fatbin entry's payload, inflated: held as its payload.
    if n.name == "inflated" {
        let p = n.parent?;
        if tree.node(p).is_some_and(|pn| pn.name == "payload") {
            if let Some(c) = context(tree, p) {
                return Some(c);
            }
        }
    }
    // A bundle written as an object file (clang's -fgpu-rdc objects): one
    // section a target, named by the magic and the bundle id.
    if let Some((_, bid)) = n.name.split_once(BUNDLE_SECTION) {
        return Some(bundle_context(bid));
    }
    let p = n.parent?;
    let pn = tree.node(p)?;
    match tree.node_format(p) {
        Some("clang-offload-bundle") => return Some(bundle_context(bundle_id_of(&n.name))),
        Some("offload") => {
            let rel = n.offset.checked_sub(pn.offset)?;
            return Some(offload_entry(tree.node_bytes(p), rel));
        }
        _ => {}
    }
    // An offload binary with several images holds them in a group.
    if let Some(q) = pn.parent.and_then(|q| tree.node(q).map(|qn| (q, qn))) {
        if tree.node_format(q.0) == Some("offload") && pn.space == q.1.space {
            let rel = n.offset.checked_sub(q.1.offset)?;
            return Some(offload_entry(tree.node_bytes(q.0), rel));
        }
        // A fatbin entry: `[i] elf sm_80` holds its payload.
        if tree.node_format(q.0) == Some("cuda-fatbin") && n.name == "payload" {
            let sm = pn
                .name
                .split_whitespace()
                .find(|w| w.starts_with("sm_"))
                .map(str::to_string);
            return Some(Context {
                kind: Some("cuda".to_string()),
                target: sm,
                device: true,
            });
        }
    }
    None
}

/// The target an ELF header names, for the machines that run device code.
fn elf_target(d: &[u8]) -> Option<String> {
    let class = *d.get(4)?;
    let e = if *d.get(5)? == 2 {
        Endian::Big
    } else {
        Endian::Little
    };
    let rdn = |off: u64, n: u64| uint_at(d, off, n, e);
    let machine = rdn(18, 2)? as u16;
    let flags = rdn(if class == 2 { 48 } else { 36 }, 4)? as u32;
    let abi = *d.get(8)?;
    match machine {
        elf::EM_AMDGPU => Some(amdgpu::target_id(flags, abi)),
        elf::EM_CUDA => {
            // CUDA's ELF ABI v2 (EI_ABIVERSION 8) keeps the sm in bits
            // 8..16; before, in the low byte.
            let sm = if abi >= 8 {
                (flags >> 8) & 0xff
            } else {
                flags & 0xff
            };
            Some(format!("sm_{sm}"))
        }
        elf::EM_INTELGT => Some(String::new()),
        _ => None,
    }
}

/// The `.target` of a PTX module (`sm_80`).
fn ptx_target(d: &[u8]) -> Option<String> {
    let d = d.get(..d.len().min(1 << 16)).unwrap_or(d);
    for line in d.split(|&c| c == b'\n') {
        let l = text::from_bytes(line);
        let l = l.trim();
        if let Some(rest) = l.strip_prefix(".target") {
            let t = rest
                .split(|c: char| c == ',' || c.is_whitespace())
                .find(|w| !w.is_empty())?;
            return Some(t.to_string());
        }
    }
    None
}

/// An image whose target its subtree names, awaiting it.
struct Open {
    node: NodeId,
    index: usize,
    format: &'static str,
    /// Kept only if a target is found (bitcode not in a container).
    needs_target: bool,
}

#[derive(Default)]
struct Finder {
    out: Vec<Image>,
    open: Vec<Open>,
    drop: Vec<usize>,
}

impl Finder {
    /// Visits `id` and, unless it is a device code object whose target its
    /// header gives (nothing inside it is another image), what lies below,
    /// forgetting what it built on the way out.
    fn visit(&mut self, t: &mut Tree, id: NodeId) {
        if self.enter(t, id) {
            let was_lazy = !t.is_built(id);
            let mark = t.mark();
            t.expand(id);
            let n = t.built_children(id).len();
            for i in 0..n {
                let Some(&k) = t.built_children(id).get(i) else {
                    break;
                };
                self.visit(t, k);
            }
            if was_lazy {
                t.release_below(id, mark);
            }
        }
        self.leave(id);
    }

    fn leave(&mut self, id: NodeId) {
        if self.open.last().is_some_and(|o| o.node == id) {
            if let Some(o) = self.open.pop() {
                let empty = self.out.get(o.index).is_none_or(|r| r.target.is_empty());
                if empty {
                    if o.needs_target {
                        self.drop.push(o.index);
                    } else if let Some(r) = self.out.get_mut(o.index) {
                        r.target = match o.format {
                            "zebin" => "intel-gt".to_string(),
                            _ => "-".to_string(),
                        };
                    }
                }
            }
        }
    }

    /// Looks at node `id` on the way down; false where what lies below
    /// holds nothing to find.
    fn enter(&mut self, t: &Tree, id: NodeId) -> bool {
        let Some(n) = t.node(id) else {
            return true;
        };
        // A target named inside an open image's subtree.
        if let Some(o) = self.open.last() {
            let fill = match (o.format, &n.value) {
                ("zebin", Some(Value::Named { name: Some(s), .. }))
                    if n.name == "product family" =>
                {
                    Some(s.strip_prefix("IGFX_").unwrap_or(s).to_ascii_lowercase())
                }
                ("bitcode" | "spirv", Some(Value::Str(s))) if n.name == "triple" => {
                    Some(s.to_string())
                }
                _ => None,
            };
            if let Some(f) = fill {
                let i = o.index;
                if let Some(r) = self.out.get_mut(i) {
                    if r.target.is_empty() {
                        r.target = f;
                    }
                }
            }
        }
        let Some(format) = t.node_format(id) else {
            return true;
        };
        let ctx = context(t, id);
        if ctx.as_ref().is_some_and(|c| !c.device) {
            return true;
        }
        let bytes = t.node_bytes(id);
        let own = match format {
            "elf" | "zebin" => match elf_target(bytes) {
                Some(s) => Some(s),
                None if ctx.is_some() => Some(String::new()),
                None => return true,
            },
            "ptx" => Some(ptx_target(bytes).unwrap_or_default()),
            "bitcode" | "spirv" => Some(String::new()),
            _ => return true,
        };
        // A GPU code object whose header names its target holds no other
        // image: its sections, notes and symbols need not be built.
        let done =
            format == "elf" && own.as_ref().is_some_and(|s| !s.is_empty()) || format == "ptx";
        let from_ctx = ctx.as_ref().and_then(|c| c.target.clone());
        let target = match own {
            Some(s) if !s.is_empty() => s,
            _ => from_ctx.unwrap_or_default(),
        };
        let kind = ctx
            .as_ref()
            .and_then(|c| c.kind.clone())
            .or_else(|| (format == "ptx").then(|| "cuda".to_string()))
            .unwrap_or_else(|| "-".to_string());
        let index = self.out.len();
        self.out.push(Image {
            format,
            target,
            kind,
            path: t.path_string(id),
            space: n.space,
            offset: n.offset,
            size: n.size,
        });
        // Bitcode outside a container is a device image only when its
        // triple says so (checked when it is read).
        let needs_target = matches!(format, "bitcode" | "spirv") && ctx.is_none();
        self.open.push(Open {
            node: id,
            index,
            format,
            needs_target,
        });
        !done
    }
}

/// Every device image in `tree`, in tree order.
pub fn find(tree: &mut Tree) -> Vec<Image> {
    let mut f = Finder::default();
    let root = tree.root();
    f.visit(tree, root);
    let Finder { mut out, drop, .. } = f;
    let mut drop = drop;
    drop.sort_unstable();
    for i in drop.into_iter().rev() {
        if i < out.len() {
            out.remove(i);
        }
    }
    // Host bitcode (an LTO object) is no device image.
    out.retain(|r| {
        !(matches!(r.format, "bitcode") && r.kind == "-" && !is_device_triple(&r.target))
    });
    out
}

fn is_device_triple(t: &str) -> bool {
    ["amdgcn", "nvptx", "spir", "r600"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// One line an image: format, target, kind, address.
pub fn write_text(images: &[Image], out: &mut dyn Write) -> io::Result<()> {
    for r in images {
        writeln!(
            out,
            "{}\t{}\t{}\t{}",
            r.format,
            text::clean(&r.target),
            r.kind,
            text::clean(&r.path)
        )?;
    }
    Ok(())
}

/// The images as one JSON list of objects.
pub fn write_json(images: &[Image], out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"[")?;
    for (i, r) in images.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"\n  {\"format\": ")?;
        json_str(out, r.format)?;
        out.write_all(b", \"target\": ")?;
        json_str(out, &r.target)?;
        out.write_all(b", \"kind\": ")?;
        json_str(out, &r.kind)?;
        out.write_all(b", \"path\": ")?;
        json_str(out, &r.path)?;
        write!(
            out,
            ", \"space\": {}, \"offset\": {}, \"size\": {}}}",
            r.space, r.offset, r.size
        )?;
    }
    out.write_all(if images.is_empty() { b"]\n" } else { b"\n]\n" })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_ids_split_into_kind_triple_and_target() {
        assert_eq!(
            split_bundle_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
            ("hipv4", "amdgcn-amd-amdhsa-", "gfx90a:xnack+")
        );
        assert_eq!(
            split_bundle_id("host-x86_64-unknown-linux-gnu-"),
            ("host", "x86_64-unknown-linux-gnu", "")
        );
        assert_eq!(
            split_bundle_id("openmp-amdgcn-amd-amdhsa--gfx942"),
            ("openmp", "amdgcn-amd-amdhsa-", "gfx942")
        );
        assert_eq!(bundle_id_of("hip-x [3]"), "hip-x");
    }

    #[test]
    fn ptx_target_is_read() {
        assert_eq!(
            ptx_target(b"//\n.version 8.0\n.target sm_80, debug\n").as_deref(),
            Some("sm_80")
        );
    }
}
