//! `.eh_frame_hdr`: its header fields and its binary search table, each
//! entry linked to its FDE.

use std::sync::Arc;

use super::super::line::{add, leaf, Cur, Item};
use super::read::{encoding_name, pointer, OMIT};
use crate::model::record::record;
use crate::model::{Builder, Endian, NodeId, Span, Value};

record! {
    /// The fixed start of `.eh_frame_hdr`: its version and how what
    /// follows is encoded (the fields are listed with their encodings'
    /// names rather than shown from here).
    mod fixed: Fixed (Endian::Little) {
        version: u8 = "version", Show::Dec,
        eh_frame_ptr_enc: u8 = "eh_frame_ptr_enc", Show::Hex,
        fde_count_enc: u8 = "fde_count_enc", Show::Hex,
        table_enc: u8 = "table_enc", Show::Hex,
    }
}

/// Where the FDE at an address is: its bytes in the byte space.
pub(crate) type FdeAt = Arc<dyn Fn(&Builder<'_>, u64) -> Option<Span> + Send + Sync>;

/// Lists `.eh_frame_hdr` at `at`, the section at address `addr`: its
/// header fields and its search table, each entry linked to its FDE
/// (found through `fde_at`, an address to its bytes in the byte space).
pub(crate) fn header(
    b: &mut Builder<'_>,
    id: NodeId,
    at: Span,
    addr: u64,
    e: Endian,
    word: u8,
    fde_at: &FdeAt,
) -> bool {
    let d = b.data();
    let end = at.end();
    let mut c = Cur {
        d,
        pos: at.offset,
        end,
        e,
    };
    let Ok(h) = Fixed::read(c.rest()) else {
        return false;
    };
    c.pos += fixed::SIZE;
    let (version, ptr_enc, count_enc, table_enc) =
        (h.version, h.eh_frame_ptr_enc, h.fde_count_enc, h.table_enc);
    let enc = |name, field: crate::model::record::At, v: u8| {
        leaf(
            name,
            field.of(at.offset),
            field.size,
            Value::named_hex(v.into(), Some(&encoding_name(v))),
        )
    };
    let mut items = vec![
        leaf(
            "version",
            at.offset,
            fixed::AT.version.size,
            Value::dec(version.into()),
        ),
        enc("eh_frame_ptr_enc", fixed::AT.eh_frame_ptr_enc, ptr_enc),
        enc("fde_count_enc", fixed::AT.fde_count_enc, count_enc),
        enc("table_enc", fixed::AT.table_enc, table_enc),
    ];
    let no_reloc = |_: u64| None;
    let pc = |c: &Cur<'_>| addr.wrapping_add(c.pos - at.offset);
    let p = c.pos;
    let mut problem = None;
    let mut count = None;
    if version != 1 {
        problem = Some((
            at.offset,
            1,
            format!(".eh_frame_hdr version {version}: only 1 is read"),
        ));
    } else if ptr_enc != OMIT {
        let base = pc(&c);
        match pointer(&mut c, ptr_enc, word, Some(base), addr, no_reloc) {
            Ok((v, _)) => {
                let mut l = leaf("eh_frame_ptr", p, c.pos - p, Value::hex(v));
                if let Item::Leaf { link, .. } = &mut l {
                    *link = fde_at(b, v).map(|x| (x.offset, 1));
                }
                items.push(l);
            }
            Err(m) => problem = Some((p, end - p, format!(".eh_frame_hdr eh_frame_ptr: {m}"))),
        }
        if problem.is_none() && count_enc != OMIT {
            let p = c.pos;
            let base = pc(&c);
            match pointer(&mut c, count_enc, word, Some(base), addr, no_reloc) {
                Ok((v, _)) => {
                    items.push(leaf("fde_count", p, c.pos - p, Value::uint(v)));
                    count = Some(v);
                }
                Err(m) => problem = Some((p, end - p, format!(".eh_frame_hdr fde_count: {m}"))),
            }
        }
    }
    for item in &items {
        add(b, id, item);
    }
    if let Some((o, n, m)) = problem {
        b.error(o, n.max(1), m);
        return true;
    }
    let Some(count) = count.filter(|_| table_enc != OMIT) else {
        return true;
    };
    // Each entry: two pointers of the table's encoding, fixed in size.
    let size = match table_enc & 0x0f {
        0x02 | 0x0a => 2,
        0x03 | 0x0b => 4,
        0x04 | 0x0c => 8,
        0x00 => u64::from(word),
        _ => {
            b.error(
                fixed::AT.table_enc.of(at.offset),
                fixed::AT.table_enc.size,
                format!(
                    ".eh_frame_hdr table_enc {}: not of a fixed size",
                    encoding_name(table_enc)
                ),
            );
            return true;
        }
    };
    let from = c.pos;
    let room = (end - from) / (2 * size);
    if count > room {
        b.error(
            from,
            end - from,
            format!(".eh_frame_hdr fde_count {count}: room for {room} entries"),
        );
    }
    let fde_at = fde_at.clone();
    let step: crate::model::ElemFn = Arc::new(move |b: &mut Builder<'_>, p, i, off| {
        let mut c = Cur {
            d: b.data(),
            pos: off,
            end: off + 2 * size,
            e,
        };
        let base = addr.wrapping_add(off - at.offset);
        let Ok((loc, _)) = pointer(&mut c, table_enc, word, Some(base), addr, |_| None) else {
            return;
        };
        let base = addr.wrapping_add(off + size - at.offset);
        let Ok((fde, _)) = pointer(&mut c, table_enc, word, Some(base), addr, |_| None) else {
            return;
        };
        let node = b.group(p, format!("[{i}]"), off, 2 * size);
        b.set_value(node, Value::text(format!("0x{loc:x}: FDE at 0x{fde:x}")));
        b.leaf(node, "initial_location", off, size, Value::hex(loc));
        let f = b.leaf(node, "fde", off + size, size, Value::hex(fde));
        if let Some(to) = fde_at(b, fde) {
            b.link(f, to);
            b.link(node, to);
        }
    });
    b.array(id, "table", from, count.min(room), 2 * size, step);
    true
}
