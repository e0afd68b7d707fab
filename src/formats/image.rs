//! A device image inside a container (a bundle's code object, an offload
//! binary's image, a fatbin's payload): opened through the one nesting
//! path, its node valued with what it is and how big.

use crate::model::{Builder, Format, NodeId, Span};

/// Opens the device image at `at` under `node` through the one nesting
/// path, and gives `node` a value saying what it is and how big. Returns
/// the format found.
pub fn open_image(b: &mut Builder<'_>, node: NodeId, at: Span) -> Option<Format> {
    let f = if at.is_empty() {
        None
    } else {
        b.nested(node, at)
    };
    b.set_value(node, image_value(f, at.len));
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
