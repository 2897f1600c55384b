//! A layer's text elements, each laid out once. usvg parses a layer whole: it shapes every text
//! element and flattens its glyphs into paths, though a receipt's order layer repeats most of
//! its elements from order to order (the labels, the product's line, the amounts, the minute it
//! was paid) and only a few are the order's own (its number, the buyer's address). That parse
//! was a third of a receipt's time in the server (`usvg::text` 12 % of its CPU while the
//! receipts drained after `bench/checkout.sh`).
//!
//! Here a layer whose root holds nothing but text elements is cut into one small document per
//! element (the root's start tag, the element, the end tag). In SVG each text element is laid
//! out on its own (its place comes from its own attributes), so each document draws exactly
//! what the element draws in the whole layer; the test
//! `a_receipt_from_its_pieces_is_the_receipt_from_its_trees` in `render` holds the two to the
//! byte. Each element's drawing (its glyph spans and its extent) is kept by the rendering
//! thread once the same element has been seen twice, so an order's own text is never kept
//! (`repeated_elements_are_drawn_from_what_was_kept`).
//! Anything else (another element, a reference to one, a DOCTYPE, a namespace other than SVG's
//! and XML's, text the glyph module does not draw) leaves the layer to be parsed whole.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::rc::Rc;

use resvg::{tiny_skia, usvg};
use stoa_kernel::Result;

use super::glyphs::{self, Placed};

/// Bytes of kept spans per thread before the cache starts over (a receipt's repeated text in
/// one language is ~100 KB of coverage; the threads that render are the two quiet ones and
/// tokio's blocking threads while they live).
const KEPT_BYTES: usize = 1024 * 1024;
/// Elements remembered as seen once before the memory of them starts over.
const SEEN_MOST: usize = 16 * 1024;
/// Elements of a layer cut this way at most, and the longest element's source: a layer with
/// more or longer ones is parsed whole (long text is likely to be more than the glyph module
/// draws, and would be parsed twice).
const ELEMENTS_MOST: usize = 256;
const ELEMENT_BYTES_MOST: usize = 2048;

/// One text element, drawn: its glyph spans, and what its drawing touches (usvg's stroke
/// bounding box of it, as the layer's bands are found by).
pub(super) struct Piece {
    pub spans: Vec<Placed>,
    pub bounds: Option<tiny_skia::Rect>,
}

#[derive(Default)]
struct Kept {
    pieces: HashMap<String, Rc<Piece>>,
    bytes: usize,
    /// Hashes of elements seen once: an element is kept the second time it is drawn.
    seen: HashSet<u64>,
    hasher: std::collections::hash_map::RandomState,
}

thread_local! {
    static KEPT: std::cell::RefCell<Kept> = std::cell::RefCell::default();
}

/// `layer` as its text elements drawn, in order, or `None` when it is not a layer of plain text
/// elements (the caller parses it whole). `parse` is the renderer's own parse.
pub(super) fn pieces(
    layer: &str,
    parse: impl Fn(&str) -> Result<usvg::Tree>,
) -> Option<Vec<Rc<Piece>>> {
    let elements = documents(layer)?;
    let mut out = Vec::with_capacity(elements.len());
    for doc in elements {
        let kept = KEPT.with_borrow(|k| k.pieces.get(&doc).cloned());
        if let Some(p) = kept {
            out.push(p);
            continue;
        }
        let tree = parse(&doc).ok()?;
        let spans = glyphs::placed(&tree, tiny_skia::Transform::identity())?;
        let bounds = tree
            .root()
            .children()
            .iter()
            .map(|n| n.abs_stroke_bounding_box())
            .reduce(|a, b| {
                tiny_skia::Rect::from_ltrb(
                    a.left().min(b.left()),
                    a.top().min(b.top()),
                    a.right().max(b.right()),
                    a.bottom().max(b.bottom()),
                )
                .unwrap_or(a)
            });
        let piece = Rc::new(Piece { spans, bounds });
        KEPT.with_borrow_mut(|k| k.keep_if_seen(doc, &piece));
        out.push(piece);
    }
    Some(out)
}

/// How many pieces this thread keeps.
#[cfg(test)]
pub(super) fn kept() -> usize {
    KEPT.with_borrow(|k| k.pieces.len())
}

impl Kept {
    fn keep_if_seen(&mut self, doc: String, piece: &Rc<Piece>) {
        let h = self.hasher.hash_one(&doc);
        if self.seen.insert(h) {
            if self.seen.len() > SEEN_MOST {
                self.seen.clear();
            }
            return;
        }
        let bytes = doc.len() + piece.spans.iter().map(Placed::bytes).sum::<usize>();
        if bytes > KEPT_BYTES {
            return;
        }
        if self.bytes + bytes > KEPT_BYTES {
            self.pieces.clear();
            self.bytes = 0;
        }
        self.bytes += bytes;
        self.pieces.insert(doc, piece.clone());
    }
}

/// The documents of `layer`'s elements: each the root's start tag, one element and the end tag.
/// `None` unless the root's children are text elements (and white space and comments).
fn documents(layer: &str) -> Option<Vec<String>> {
    let doc = usvg::roxmltree::Document::parse(layer).ok()?;
    let root = doc.root_element();
    const SVG: &str = "http://www.w3.org/2000/svg";
    const XML: &str = "http://www.w3.org/XML/1998/namespace";
    if layer.contains("<!DOCTYPE")
        || root.tag_name().name() != "svg"
        || root.tag_name().namespace() != Some(SVG)
        || root.namespaces().any(|n| n.uri() != SVG && n.uri() != XML)
    {
        return None;
    }
    // The root's start tag, written again from its parsed attributes.
    let mut start = String::from(r#"<svg xmlns="http://www.w3.org/2000/svg""#);
    for a in root.attributes() {
        let prefix = match a.namespace() {
            None => "",
            Some(XML) => "xml:",
            Some(_) => return None,
        };
        start.push_str(&format!(
            r#" {prefix}{}="{}""#,
            a.name(),
            escaped(a.value())
        ));
    }
    start.push('>');
    let mut out = Vec::new();
    for child in root.children() {
        match child.node_type() {
            usvg::roxmltree::NodeType::Comment => {}
            usvg::roxmltree::NodeType::Text
                if child.text().is_some_and(|t| t.trim().is_empty()) => {}
            usvg::roxmltree::NodeType::Element
                if child.tag_name().name() == "text"
                    && child.tag_name().namespace() == Some(SVG)
                    && child.descendants().all(plain)
                    && out.len() < ELEMENTS_MOST
                    && child.range().len() <= ELEMENT_BYTES_MOST =>
            {
                out.push(format!("{start}{}</svg>", &layer[child.range()]));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A node of a text element that draws the same alone: text, or an element (the text, a
/// `tspan`) whose attributes refer to no other element (no `url(…)` paint, no `href`).
fn plain(n: usvg::roxmltree::Node) -> bool {
    match n.node_type() {
        usvg::roxmltree::NodeType::Text | usvg::roxmltree::NodeType::Comment => true,
        usvg::roxmltree::NodeType::Element => {
            matches!(n.tag_name().name(), "text" | "tspan")
                && n.attributes().all(|a| {
                    a.namespace()
                        .is_none_or(|ns| ns == "http://www.w3.org/XML/1998/namespace")
                        && a.name() != "href"
                        && !a.value().contains("url(")
                })
        }
        _ => false,
    }
}

/// `v` as an attribute's value again: the project's markup escape, and white space other than
/// spaces as references (a parser turns literal ones into spaces).
fn escaped(v: &str) -> String {
    stoa_kernel::markup::escape(v)
        .replace('\t', "&#9;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_is_kept_the_second_time_within_the_budget() {
        let piece = Rc::new(Piece {
            spans: Vec::new(),
            bounds: None,
        });
        let mut k = Kept::default();
        k.keep_if_seen("<a/>".into(), &piece);
        assert!(k.pieces.is_empty(), "kept when first seen");
        k.keep_if_seen("<a/>".into(), &piece);
        assert!(k.pieces.contains_key("<a/>"));
        // Past the budget the kept ones go, and the new one is kept.
        let big = "x".repeat(KEPT_BYTES - 2);
        k.keep_if_seen(big.clone(), &piece);
        k.keep_if_seen(big.clone(), &piece);
        assert_eq!(k.pieces.len(), 1);
        assert!(k.pieces.contains_key(&big) && k.bytes <= KEPT_BYTES);
        // One larger than the budget is never kept.
        let huge = "x".repeat(KEPT_BYTES + 1);
        k.keep_if_seen(huge.clone(), &piece);
        k.keep_if_seen(huge.clone(), &piece);
        assert!(!k.pieces.contains_key(&huge));
    }

    #[test]
    fn only_layers_of_plain_text_are_cut() {
        let head = r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" font-family="A &amp; B">"#;
        assert_eq!(escaped("a\tb\nc\r\"&<"), "a&#9;b&#10;c&#13;&quot;&amp;&lt;");
        let docs = documents(&format!(
            "{head}\n  <text x=\"1\" y=\"2\">a &lt; b</text><!-- c -->\n  <text x=\"3\" y=\"4\"><tspan>d</tspan></text></svg>"
        ))
        .expect("cut");
        assert_eq!(
            docs,
            [
                format!("{head}<text x=\"1\" y=\"2\">a &lt; b</text></svg>"),
                format!("{head}<text x=\"3\" y=\"4\"><tspan>d</tspan></text></svg>"),
            ]
        );
        for whole in [
            r#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/><text>a</text></svg>"#,
            r#"<svg xmlns="http://www.w3.org/2000/svg"><text fill="url(#g)">a</text></svg>"#,
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink"><text>a</text></svg>"#,
            r#"<svg xmlns="http://www.w3.org/2000/svg">loose text<text>a</text></svg>"#,
            r#"<svg xmlns="http://www.w3.org/2000/svg"><text><textPath href="p">a</textPath></text></svg>"#,
            r#"<!DOCTYPE svg [<!ENTITY e "x">]><svg xmlns="http://www.w3.org/2000/svg"><text>&e;</text></svg>"#,
            r#"<html xmlns="http://www.w3.org/2000/svg"><text>a</text></html>"#,
        ] {
            assert_eq!(documents(whole), None, "{whole}");
        }
        let long = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg"><text>{}</text></svg>"#,
            "a".repeat(ELEMENT_BYTES_MOST)
        );
        assert_eq!(documents(&long), None, "a long element");
    }
}
