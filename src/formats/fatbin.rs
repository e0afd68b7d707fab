//! CUDA fatbins (0xBA55ED50): the container header, each entry's header,
//! and each payload opened by its own bytes (PTX, ELF cubins).

use super::registry;
use crate::model::read::{u16_at, u32_at, u64_at};
use crate::model::{Builder, Endian, Fields, NodeId};

const LE: Endian = Endian::Little;

/// A CUDA fatbin: 0xBA55ED50 little-endian.
pub const MAGIC: &[u8] = &[0x50, 0xed, 0x55, 0xba];

/// Entries shown.
const MAX_LIST: u64 = 4096;

pub fn detect(d: &[u8]) -> bool {
    d.starts_with(MAGIC)
}

fn fatbin_kind(k: u16) -> Option<&'static str> {
    match k {
        1 => Some("PTX"),
        2 => Some("ELF"),
        _ => None,
    }
}

/// A CUDA fatbin. NVIDIA documents none of it: the container header
/// (magic, version, header size, size of what follows) is the part the CUDA
/// headers show; the entry fields past the header and payload sizes are
/// as cuobjdump output and public reverse-engineering agree.
pub fn parse(b: &mut Builder<'_>, node: NodeId, off: u64, len: u64) {
    let d = b.slice(off, len);
    let h = b.group(node, "header", off, 16.min(len));
    b.leaf(h, "magic", off, 4.min(len), "0xba55ed50 (CUDA fatbin)");
    let mut f = Fields::new(b, h, off + 4, LE);
    let version = f.u16("version");
    let hsize = f.u16("header size");
    let fsize = f.u64("fat size");
    let (Some(_), Some(hsize), Some(fsize)) = (version, hsize, fsize) else {
        return;
    };
    let start = hsize.max(16).min(len);
    let mut end = start.saturating_add(fsize);
    if end > len {
        b.error(
            off + 8,
            8,
            format!(
                "fatbin size {fsize} runs past the end of the image: {} bytes remain",
                len - start
            ),
        );
        end = len;
    }
    let mut pos = start;
    let mut i = 0u64;
    let mut summary = Vec::new();
    while pos.saturating_add(16) <= end && i < MAX_LIST {
        let (Some(kind), Some(_), Some(ehs), Some(psize)) = (
            u16_at(d, pos, LE),
            u16_at(d, pos + 2, LE),
            u32_at(d, pos + 4, LE),
            u64_at(d, pos + 8, LE),
        ) else {
            break;
        };
        let ehs = u64::from(ehs);
        if ehs < 16 || ehs > end - pos {
            b.error(
                off + pos + 4,
                4,
                format!("fatbin entry header size {ehs} is impossible here"),
            );
            break;
        }
        let mut pend = (pos + ehs).saturating_add(psize);
        if pend > end {
            b.error(
                off + pos + 8,
                8,
                format!("fatbin entry payload of {psize} bytes runs past the fatbin's end"),
            );
            pend = end;
        }
        let arch = if ehs >= 0x20 {
            u32_at(d, pos + 0x1c, LE)
        } else {
            None
        };
        let kname = fatbin_kind(kind).unwrap_or("unknown");
        let ename = match arch {
            Some(a) => format!("[{i}] {kname} sm_{a}"),
            None => format!("[{i}] {kname}"),
        };
        summary.push(ename.clone());
        let g = b.group(node, ename, off + pos, pend - pos);
        let eh = b.group(g, "header", off + pos, ehs);
        let mut f = Fields::new(b, eh, off + pos, LE);
        f.named("kind", 2, |k| fatbin_kind(k as u16));
        f.hex("version", 2);
        f.u32("header size");
        f.u64("payload size");
        let ps = f.last();
        if let Some(ps) = ps {
            b.link(ps, off + pos + ehs, pend - pos - ehs);
        }
        if ehs >= 0x20 {
            if let (Some(minor), Some(major), Some(a)) =
                (u16_at(d, pos + 0x18, LE), u16_at(d, pos + 0x1a, LE), arch)
            {
                b.leaf(
                    eh,
                    "code version",
                    off + pos + 0x18,
                    4,
                    format!("{major}.{minor}"),
                );
                b.leaf(eh, "arch", off + pos + 0x1c, 4, format!("sm_{a}"));
            }
        }
        if ehs >= 0x30 && u64_at(d, pos + 0x28, LE).is_some() {
            Fields::new(b, eh, off + pos + 0x28, LE).hex("flags", 8);
        }
        let plen = pend - pos - ehs;
        if plen > 0 {
            let p = b.group(g, "payload", off + pos + ehs, plen);
            registry::open_image(b, p, off + pos + ehs, plen);
        }
        pos = pend.max(pos + 16);
        i += 1;
    }
    b.set_value(node, format!("CUDA fatbin, {i} entries"));
}
