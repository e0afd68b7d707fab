//! XML text shown as an element tree, each element, attribute and text run
//! linked to its bytes. Used by XCLBIN's EMBEDDED_METADATA and by the XML
//! sectors of XE files.

use roxmltree::{Document, Node as XNode, ParsingOptions};

use crate::model::{text, Builder, NodeId};

/// Deeper elements than this are not opened (the rest is still bytes).
const MAX_DEPTH: usize = 64;

/// Parses the XML in `[off, off+len)` into children of `parent`. Trailing
/// NUL padding is ignored. Returns false (with a diagnostic) if the bytes
/// are not well-formed XML.
pub fn tree(b: &mut Builder<'_>, parent: NodeId, off: u64, len: u64) -> bool {
    let bytes = b.slice(off, len);
    let end = bytes.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    let bytes = bytes.get(..end).unwrap_or(&[]);
    let s = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            b.warn(off + e.valid_up_to() as u64, 1, "XML is not valid UTF-8");
            return false;
        }
    };
    let opts = ParsingOptions {
        allow_dtd: true,
        nodes_limit: 1_000_000,
        ..ParsingOptions::default()
    };
    let doc = match Document::parse_with_options(s, opts) {
        Ok(d) => d,
        Err(e) => {
            let pos = e.pos();
            let at = byte_of(s, pos.row, pos.col);
            b.warn(off + at as u64, 1, format!("XML: {e}"));
            return false;
        }
    };
    element(b, parent, off, doc.root_element(), 0);
    true
}

fn byte_of(s: &str, row: u32, col: u32) -> usize {
    let mut line_start = 0;
    for (i, l) in s.split_inclusive('\n').enumerate() {
        if i + 1 == row as usize {
            return line_start
                + l.char_indices()
                    .nth(col.saturating_sub(1) as usize)
                    .map_or(0, |(j, _)| j);
        }
        line_start += l.len();
    }
    0
}

fn element(b: &mut Builder<'_>, parent: NodeId, base: u64, e: XNode<'_, '_>, depth: usize) {
    let r = e.range();
    let tag = e.tag_name().name();
    // The value sums the element up: its text if it has only text, else
    // its attributes.
    let only_text = e.children().all(|c| c.is_text());
    let txt = e.text().map(str::trim).unwrap_or("");
    let value = if only_text && !txt.is_empty() {
        Some(format!("\"{}\"", text::clean(txt)))
    } else {
        let attrs: Vec<String> = e
            .attributes()
            .take(4)
            .map(|a| format!("{}=\"{}\"", a.name(), a.value()))
            .collect();
        if attrs.is_empty() {
            None
        } else {
            let more = if e.attributes().len() > 4 { " …" } else { "" };
            Some(format!("{}{more}", attrs.join(" ")))
        }
    };
    let id = b.add(
        parent,
        format!("<{tag}>"),
        base + r.start as u64,
        (r.end - r.start) as u64,
        value.map(Into::into),
    );
    for a in e.attributes() {
        let ar = a.range_value();
        b.leaf(
            id,
            format!("@{}", a.name()),
            base + ar.start as u64,
            (ar.end - ar.start) as u64,
            format!("\"{}\"", a.value()),
        );
    }
    if depth >= MAX_DEPTH {
        b.info(
            base + r.start as u64,
            1,
            format!("XML nests deeper than {MAX_DEPTH}; not opened further"),
        );
        return;
    }
    for c in e.children() {
        if c.is_element() {
            element(b, id, base, c, depth + 1);
        } else if c.is_text() && !only_text {
            if let Some(t) = c.text() {
                if !t.trim().is_empty() {
                    let tr = c.range();
                    b.leaf(
                        id,
                        "#text",
                        base + tr.start as u64,
                        (tr.end - tr.start) as u64,
                        format!("\"{}\"", t.trim()),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::model::{Builder, NodeId, Source, Tree};

    fn as_xml(b: &mut Builder<'_>, p: NodeId, off: u64, len: u64) -> Option<&'static str> {
        super::tree(b, p, off, len).then_some("xml")
    }

    fn build(bytes: &[u8]) -> Tree {
        Tree::build(Arc::new(Source::from_vec(bytes.to_vec())), "t", as_xml)
    }

    #[test]
    fn elements_and_attributes_have_their_bytes() {
        let xml = b"<a x=\"1\"><b>hi</b><c/></a>\0\0";
        let mut t = build(xml);
        t.expand_all();
        let a = t.find_path("<a>").expect("root element");
        assert_eq!(t.node(a).unwrap().offset, 0);
        assert_eq!(t.node(a).unwrap().size, 26);
        let x = t.find_path("<a>/@x").expect("attribute");
        assert_eq!(
            &xml[t.node(x).unwrap().offset as usize..t.node(x).unwrap().end() as usize],
            b"1"
        );
        let bb = t.find_path("<a>/<b>").expect("child");
        assert_eq!(t.value_text(bb).as_deref(), Some("\"hi\""));
        assert!(t.diagnostics().is_empty());
    }

    #[test]
    fn broken_xml_is_a_warning() {
        let t = build(b"<a><b></a>");
        assert_eq!(t.format(), "raw");
        assert_eq!(t.diagnostics().len(), 1);
    }
}
