//! `--targets`: every device image in a tree, at any depth, with the
//! target it is built for. An image is a node where a device format starts
//! (an AMDGPU, CUDA or Intel GT ELF, PTX, and LLVM bitcode or SPIR-V
//! inside an offload container); its target comes from its own bytes where
//! they name one (ELF `e_flags`, PTX `.target`, zebin's product family
//! note) and otherwise from what holds it (a bundle entry's id, an offload
//! binary's `arch`/`triple` strings, a fatbin entry's sm). Devices that do
//! not run GPU code are listed too, where a parser says what the bytes
//! configure: an FPGA xclbin's platform, an NPU's AIE partitions, an XE's
//! tile programs ([`crate::model::Fact::Configures`]). All of it is
//! read from the facts the parsers record ([`crate::model::Facts`]), never
//! from node names or values.

use std::io::{self, Write};

use crate::export::json_str;
use crate::model::{text, Format, NodeId, Span, Tree};

/// One device image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// The format's table name (`elf`, `zebin`, `ptx`, `bitcode`, `spirv`).
    pub format: Format,
    /// What it runs on: `gfx90a:xnack+`, `sm_80`, `dg2`.
    pub target: String,
    /// The offload kind of what holds it (`hip`, `hipv4`, `openmp`,
    /// `cuda`), or `-` where nothing says.
    pub kind: String,
    /// The node's address, as `--extract` takes it.
    pub path: String,
    /// The image's bytes.
    pub span: Span,
}

/// An image whose target its subtree names, awaiting it.
struct Open {
    node: NodeId,
    index: usize,
    format: Format,
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
                t.drop_spaces_from(mark);
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
                            Format::Zebin => "intel-gt".to_string(),
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
        let facts = t.facts(id);
        // A target named inside an open image's subtree.
        if let (Some(o), Some(named)) = (
            self.open.last(),
            facts.and_then(|f| f.names_target.as_ref()),
        ) {
            if let Some(r) = self.out.get_mut(o.index) {
                if r.target.is_empty() {
                    r.target = named.to_string();
                }
            }
        }
        if let Some(c) = facts.and_then(|f| f.configures.as_ref()) {
            self.out.push(Image {
                format: c.format,
                target: c.target.to_string(),
                kind: c.kind.to_string(),
                path: t.path_string(id),
                span: n.span(),
            });
            return false;
        }
        let Some(format) = t.node_format(id) else {
            return true;
        };
        let held = facts.and_then(|f| f.held.as_ref());
        if held.is_some_and(|h| !h.device) {
            return true;
        }
        let code = facts.and_then(|f| f.device_code.as_ref());
        let own: String = match format {
            Format::Elf | Format::Zebin => match code {
                Some(t) => t.as_deref().unwrap_or("").to_string(),
                None if held.is_some() => String::new(),
                None => return true,
            },
            Format::Ptx => code.and_then(|t| t.as_deref()).unwrap_or("").to_string(),
            Format::Bitcode | Format::SpirV => String::new(),
            _ => return true,
        };
        // A GPU code object whose header names its target holds no other
        // image: its sections, notes and symbols need not be built.
        let done = format == Format::Elf && !own.is_empty() || format == Format::Ptx;
        let target = if own.is_empty() {
            held.and_then(|h| h.target.as_deref())
                .unwrap_or("")
                .to_string()
        } else {
            own
        };
        let kind = held
            .and_then(|h| h.kind.as_deref())
            .or((format == Format::Ptx).then_some("cuda"))
            .unwrap_or("-")
            .to_string();
        let index = self.out.len();
        self.out.push(Image {
            format,
            target,
            kind,
            path: t.path_string(id),
            span: n.span(),
        });
        // Bitcode outside a container is a device image only when its
        // triple says so (checked when it is read).
        let needs_target = matches!(format, Format::Bitcode | Format::SpirV) && held.is_none();
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
    out.retain(|r| !(r.format == Format::Bitcode && r.kind == "-" && !is_device_triple(&r.target)));
    out
}

fn is_device_triple(t: &str) -> bool {
    ["amdgcn", "nvptx", "spir", "r600"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// One line an image: format, target, kind, address.
pub fn write_text(images: &[Image], out: &mut dyn Write) -> io::Result<()> {
    write_text_of(None, images, out)
}

/// As [`write_text`], each line led by `file` and a tab when given (the
/// shown name of the file the images are in, escaped by the caller).
pub fn write_text_of(file: Option<&str>, images: &[Image], out: &mut dyn Write) -> io::Result<()> {
    for r in images {
        if let Some(f) = file {
            write!(out, "{f}\t")?;
        }
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

/// One image as a JSON object, led by `"schema"` and `"file"` when a file
/// is given (the JSON Lines records of many files).
fn write_object(file: Option<&str>, r: &Image, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"{")?;
    if let Some(f) = file {
        write!(out, "\"schema\": {SCHEMA}, \"file\": ")?;
        json_str(out, f)?;
        out.write_all(b", ")?;
    }
    out.write_all(b"\"format\": ")?;
    json_str(out, r.format.name())?;
    out.write_all(b", \"target\": ")?;
    json_str(out, &r.target)?;
    out.write_all(b", \"kind\": ")?;
    json_str(out, &r.kind)?;
    out.write_all(b", \"path\": ")?;
    json_str(out, &r.path)?;
    write!(
        out,
        ", \"space\": {}, \"offset\": {}, \"size\": {}}}",
        r.span.space, r.span.offset, r.span.len
    )
}

/// The version of the JSON Lines record ([`write_json_lines`]); it
/// changes only when a field changes meaning or goes away.
pub const SCHEMA: u32 = 1;

/// The images as one JSON list of objects.
pub fn write_json(images: &[Image], out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"[")?;
    for (i, r) in images.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"\n  ")?;
        write_object(None, r, out)?;
    }
    out.write_all(if images.is_empty() { b"]\n" } else { b"\n]\n" })?;
    Ok(())
}

/// The images of `file` as JSON Lines: one object a line, each with
/// `"schema"` and `"file"` before the fields [`write_json`] gives.
pub fn write_json_lines(file: &str, images: &[Image], out: &mut dyn Write) -> io::Result<()> {
    for r in images {
        write_object(Some(file), r, out)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundle_ids_split_into_kind_triple_and_target() {
        use crate::formats::bundle::split_id;
        assert_eq!(
            split_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
            ("hipv4", "amdgcn-amd-amdhsa-", "gfx90a:xnack+")
        );
        assert_eq!(
            split_id("host-x86_64-unknown-linux-gnu-"),
            ("host", "x86_64-unknown-linux-gnu", "")
        );
        assert_eq!(
            split_id("openmp-amdgcn-amd-amdhsa--gfx942"),
            ("openmp", "amdgcn-amd-amdhsa-", "gfx942")
        );
    }

    #[test]
    fn ptx_target_is_read() {
        assert_eq!(
            crate::formats::ptx::target(b"//\n.version 8.0\n.target sm_80, debug\n").as_deref(),
            Some("sm_80")
        );
    }
}
