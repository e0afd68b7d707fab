//! XML text shown as an element tree, each element, attribute and text run
//! linked to its bytes. Used by XCLBIN's EMBEDDED_METADATA and by the XML
//! sectors of XE files.

use roxmltree::{Document, Node as XNode, ParsingOptions};

use crate::model::{Builder, Gap, NodeId, Span, Value};

/// Deeper elements than this are not opened (the rest is still bytes).
const MAX_DEPTH: usize = 64;

/// Parses the XML at `src` into children of `parent`. Trailing
/// NUL padding is ignored. Returns false (with a diagnostic) if the bytes
/// are not well-formed XML.
pub fn tree(b: &mut Builder<'_>, parent: NodeId, src: Span) -> bool {
    b.gaps(parent, Gap::Syntax);
    let off = src.offset;
    let bytes = b.slice(off, src.len);
    let bytes = crate::model::text::strip_padding(bytes, 0);
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
    element(b, parent, off, s, doc.root_element(), 0);
    true
}

/// An attribute as written, namespace declarations included: the offset
/// of its value in the text, its qualified name and its value.
struct Attr<'s> {
    at: usize,
    len: usize,
    qname: &'s str,
    value: String,
}

/// The attributes of element `e` in the order written: roxmltree's, with
/// their prefixes, and the `xmlns`/`xmlns:p` declarations it keeps apart.
fn attributes<'s>(s: &'s str, e: XNode<'_, '_>) -> Vec<Attr<'s>> {
    let mut out: Vec<Attr<'s>> = e
        .attributes()
        .map(|a| {
            let q = a.range_qname();
            let v = a.range_value();
            Attr {
                at: v.start,
                len: v.end - v.start,
                qname: s.get(q).unwrap_or(""),
                value: a.value().to_string(),
            }
        })
        .collect();
    out.extend(declarations(s, e.range().start));
    out.sort_by_key(|a| a.at);
    out
}

/// The namespace declarations in the start tag at `start`.
fn declarations(s: &str, start: usize) -> Vec<Attr<'_>> {
    let mut out = Vec::new();
    let tag = s.get(start..).unwrap_or("");
    let mut quote: Option<char> = None;
    let mut value_start = 0;
    let mut name: Option<&str> = None;
    // After the `<`.
    for (i, c) in tag.char_indices().skip(1) {
        let next = i + c.len_utf8();
        match quote {
            Some(q) if c == q => {
                if let Some(n) = name.take() {
                    out.push(Attr {
                        at: start + value_start,
                        len: i - value_start,
                        qname: n,
                        value: unescape(tag.get(value_start..i).unwrap_or("")),
                    });
                }
                quote = None;
            }
            Some(_) => {}
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                value_start = next;
            }
            None if c == '>' => break,
            None if c.is_ascii_whitespace() => {
                // An attribute name starts after the whitespace.
                let rest = tag.get(next..).unwrap_or("");
                let n = rest
                    .find(|ch: char| {
                        ch.is_ascii_whitespace() || ch == '=' || ch == '>' || ch == '/'
                    })
                    .unwrap_or(rest.len());
                let word = rest.get(..n).unwrap_or("");
                if word == "xmlns" || word.starts_with("xmlns:") {
                    name = Some(word);
                } else if word.starts_with(|ch: char| ch.is_alphabetic() || ch == '_') {
                    name = None;
                }
            }
            None => {}
        }
    }
    out
}

/// The five predefined entities and character references in a value.
fn unescape(v: &str) -> String {
    if !v.contains('&') {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some((before, after)) = rest.split_once('&') {
        out.push_str(before);
        let Some((ent, tail)) = after.split_once(';') else {
            out.push('&');
            out.push_str(after);
            return out;
        };
        let c = match ent {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "apos" => Some('\''),
            "quot" => Some('"'),
            _ => ent
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => out.push(c),
            None => {
                out.push('&');
                out.push_str(ent);
                out.push(';');
            }
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// An element's name as written, with its prefix.
fn qname<'s>(s: &'s str, e: XNode<'_, 's>) -> &'s str {
    let tag = s
        .get(e.range().start..)
        .and_then(|t| t.strip_prefix('<'))
        .unwrap_or("");
    let n = tag
        .find(|ch: char| ch.is_ascii_whitespace() || ch == '>' || ch == '/')
        .unwrap_or(tag.len());
    match tag.get(..n) {
        Some(q) if !q.is_empty() => q,
        _ => e.tag_name().name(),
    }
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

fn element(
    b: &mut Builder<'_>,
    parent: NodeId,
    base: u64,
    s: &str,
    e: XNode<'_, '_>,
    depth: usize,
) {
    let r = e.range();
    let tag = qname(s, e);
    let attrs = attributes(s, e);
    // The value sums the element up: its text if it has only text, else
    // its attributes.
    let only_text = e.children().all(|c| c.is_text());
    let txt = e.text().map(str::trim).unwrap_or("");
    let value = if only_text && !txt.is_empty() {
        Some(Value::str(txt))
    } else {
        let shown: Vec<String> = attrs
            .iter()
            .take(4)
            .map(|a| format!("{}=\"{}\"", a.qname, a.value))
            .collect();
        if shown.is_empty() {
            None
        } else {
            let more = if attrs.len() > 4 { " …" } else { "" };
            Some(Value::text(format!("{}{more}", shown.join(" "))))
        }
    };
    let id = b.add(
        parent,
        format!("<{tag}>"),
        base + r.start as u64,
        (r.end - r.start) as u64,
        value,
    );
    // Elements named by an attribute (`<kernel name="…">`, `<arg id="…">`)
    // are told apart by it rather than by their order.
    if let Some(a) = attrs
        .iter()
        .find(|a| a.qname == "name")
        .or_else(|| attrs.iter().find(|a| a.qname == "id"))
    {
        b.set_key(id, format!("<{tag} {}=\"{}\">", a.qname, a.value));
    }
    for a in &attrs {
        b.leaf(
            id,
            format!("@{}", a.qname),
            base + a.at as u64,
            a.len as u64,
            Value::str(&a.value),
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
            element(b, id, base, s, c, depth + 1);
        } else if c.is_text() && !only_text {
            if let Some(t) = c.text() {
                if !t.trim().is_empty() {
                    let tr = c.range();
                    b.leaf(
                        id,
                        "#text",
                        base + tr.start as u64,
                        (tr.end - tr.start) as u64,
                        Value::str(t.trim()),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::model::{Builder, Format, NodeId, Source, Span, Tree};

    fn as_xml(b: &mut Builder<'_>, p: NodeId, at: Span) -> Option<Format> {
        super::tree(b, p, at).then_some(crate::model::Format::Xml)
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
    fn namespaces_are_kept() {
        let xml = br#"<Network xmlns="http://www.xmos.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.xmos.com a.xsd"><xsi:x a='1&amp;2'/></Network>"#;
        let mut t = build(xml);
        t.expand_all();
        assert!(t.diagnostics().is_empty(), "{:?}", t.diagnostics());
        let at = |t: &mut Tree, p: &str| {
            let id = t.find_path(p).expect(p);
            let n = t.node(id).unwrap();
            let bytes = xml[n.offset as usize..n.end() as usize].to_vec();
            (String::from_utf8(bytes).unwrap(), t.value_text(id).unwrap())
        };
        assert_eq!(
            at(&mut t, "<Network>/@xmlns"),
            (
                "http://www.xmos.com".to_string(),
                "\"http://www.xmos.com\"".to_string()
            )
        );
        assert_eq!(
            at(&mut t, "<Network>/@xmlns:xsi").0,
            "http://www.w3.org/2001/XMLSchema-instance"
        );
        assert_eq!(
            at(&mut t, "<Network>/@xsi:schemaLocation").0,
            "http://www.xmos.com a.xsd"
        );
        assert_eq!(at(&mut t, "<Network>/<xsi:x>/@a").1, "\"1&2\"");
        let net = t.find_path("<Network>").unwrap();
        assert!(t
            .value_text(net)
            .unwrap()
            .starts_with("xmlns=\"http://www.xmos.com\" xmlns:xsi="));
    }

    #[test]
    fn broken_xml_is_a_warning() {
        let t = build(b"<a><b></a>");
        assert_eq!(t.format(), None);
        assert_eq!(t.diagnostics().len(), 1);
    }
}
