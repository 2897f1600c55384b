//! Generated images: file templates are SVG documents filled in with minijinja (every value
//! escaped) and rendered to PNG by `resvg` with the DejaVu fonts shipped in the binary, so
//! Cyrillic and Latin text look the same on every machine. Nothing outside the template is
//! loaded: external images and system fonts are off.
//!
//! A template is a stack of layers painted in order. When its first layer is the same for many
//! images (a receipt's background and labels in one language) and the image is asked at the
//! template's own size, that layer is prepared once and only the others are drawn per image
//! ([`layered`]).

mod glyphs;
mod layered;
mod pieces;

use std::sync::{Arc, OnceLock};

use minijinja::{AutoEscape, Environment, Value as JValue};
use resvg::usvg;
use serde_json::Value;
use stoa_kernel::{Error, Result};

const SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
const SANS_BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");

/// The order receipt (SPEC §9: 1485 × 1050).
pub const RECEIPT: &str = "generate-template-ecommerce-order-receipt-default";
/// The 'for planet' receipt: the same layout, same size.
pub const RECEIPT_FOR_PLANET: &str = "generate-template-ecommerce-order-receipt-for-planet-default";
/// A page's share image (Open Graph, 1200 × 630).
pub const OPENGRAPH: &str = "generate-template-opengraph-image-default";

/// A file template this server renders: its variant, the SVG templates of its layers (painted in
/// order, the same canvas each), its default size.
#[derive(Clone, Copy, Debug)]
pub struct Template {
    pub variant: &'static str,
    layers: &'static [&'static str],
    pub width: u32,
    pub height: u32,
}

/// Every file template.
pub const TEMPLATES: &[Template] = &[
    Template {
        variant: RECEIPT,
        layers: RECEIPT_LAYERS,
        width: 1485,
        height: 1050,
    },
    Template {
        variant: RECEIPT_FOR_PLANET,
        layers: RECEIPT_LAYERS,
        width: 1485,
        height: 1050,
    },
    Template {
        variant: OPENGRAPH,
        layers: &["opengraph"],
        width: 1200,
        height: 630,
    },
];

/// Largest side of a generated image.
pub const MAX_SIDE: u32 = 4000;

/// A receipt: what every order in a language shares, then the order's own text.
const RECEIPT_LAYERS: &[&str] = &["receipt.base", "receipt.order"];
const RECEIPT_BASE_SVG: &str = include_str!("../templates/receipt.base.svg");
const RECEIPT_ORDER_SVG: &str = include_str!("../templates/receipt.order.svg");
const OPENGRAPH_SVG: &str = include_str!("../templates/opengraph.svg");

fn fontdb() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(SANS.to_vec());
        db.load_font_data(SANS_BOLD.to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        Arc::new(db)
    })
    .clone()
}

fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        // `{{ title | tr(lang) }}`: a translation map's text in `lang`, else English, else any.
        env.add_filter("tr", |v: JValue, lang: String| -> String {
            if let Some(s) = v.as_str() {
                return s.to_owned();
            }
            let get = |k: &str| {
                v.get_attr(k)
                    .ok()
                    .filter(|x| !x.is_undefined() && !x.is_none())
            };
            get(&lang)
                .or_else(|| get("en"))
                .or_else(|| get("ru"))
                .map(|x| x.to_string())
                .unwrap_or_default()
        });
        // `{{ text | clip(40) }}`: at most n characters, with an ellipsis when cut.
        env.add_filter("clip", |s: String, n: usize| -> String {
            if s.chars().count() <= n {
                s
            } else {
                let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
                t.push('…');
                t
            }
        });
        let _ = env.add_template("receipt.base", RECEIPT_BASE_SVG);
        let _ = env.add_template("receipt.order", RECEIPT_ORDER_SVG);
        let _ = env.add_template("opengraph", OPENGRAPH_SVG);
        env
    })
}

/// The template of `variant`, or a 422 naming the ones there are.
pub fn template_of(variant: &str) -> Result<&'static Template> {
    TEMPLATES
        .iter()
        .find(|t| t.variant == variant)
        .ok_or_else(|| {
            Error::invalid_field(
                "variant",
                format!(
                    "'{variant}' is not a file template; use one of {}",
                    TEMPLATES
                        .iter()
                        .map(|t| t.variant)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

/// Renders `variant` with `data` to a PNG of `width` × `height`: at the template's own size
/// with its first layer prepared once ([`layered`]), else in one rendering.
pub fn png(variant: &str, width: u32, height: u32, data: &Value) -> Result<Vec<u8>> {
    png_with(variant, width, height, data, true)
}

/// [`png`] with the layers over the first parsed whole, never cut into their text elements
/// ([`pieces`]; public for the tests and `examples/receipt_time.rs`, which compare the two).
pub fn png_parsed_whole(variant: &str, width: u32, height: u32, data: &Value) -> Result<Vec<u8>> {
    png_with(variant, width, height, data, false)
}

fn png_with(variant: &str, width: u32, height: u32, data: &Value, cut: bool) -> Result<Vec<u8>> {
    let (t, layers) = layers_of(variant, width, height, data)?;
    if let [base, rest @ ..] = layers.as_slice()
        && !rest.is_empty()
        && (width, height) == (t.width, t.height)
    {
        let parse = |svg: &str| tree_of(svg.as_bytes());
        let cut = cut
            .then(|| {
                rest.iter()
                    .map(|l| pieces::pieces(l, parse))
                    .collect::<Option<Vec<_>>>()
            })
            .flatten();
        let layers = match cut {
            Some(p) => layered::Layers::Pieces(p.into_iter().flatten().collect()),
            None => layered::Layers::Trees(
                rest.iter()
                    .map(|l| tree_of(l.as_bytes()))
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        if let Some(png) = layered::png(base, &layers, width, height, parse)? {
            return Ok(png);
        }
    }
    whole(&layers, width, height)
}

/// Renders `variant` in one rendering, every layer each time (what [`png`] does at another size;
/// public for the tests and `examples/receipt_time.rs`, which compare the two).
pub fn png_in_one_rendering(
    variant: &str,
    width: u32,
    height: u32,
    data: &Value,
) -> Result<Vec<u8>> {
    let (_, layers) = layers_of(variant, width, height, data)?;
    whole(&layers, width, height)
}

fn whole(layers: &[String], width: u32, height: u32) -> Result<Vec<u8>> {
    let trees = layers
        .iter()
        .map(|l| tree_of(l.as_bytes()))
        .collect::<Result<Vec<_>>>()?;
    trees_to_png(&trees, width, height)
}

/// The template of `variant` and its layers filled in with `data`, at `width` × `height`.
fn layers_of(
    variant: &str,
    width: u32,
    height: u32,
    data: &Value,
) -> Result<(&'static Template, Vec<String>)> {
    if !(16..=MAX_SIDE).contains(&width) || !(16..=MAX_SIDE).contains(&height) {
        return Err(Error::invalid_field(
            "width",
            format!("width and height must be between 16 and {MAX_SIDE}"),
        ));
    }
    let t = template_of(variant)?;
    let mut ctx = data.clone();
    if let Some(o) = ctx.as_object_mut() {
        o.insert("width".into(), width.into());
        o.insert("height".into(), height.into());
    }
    let ctx = minijinja::Value::from_serialize(&ctx);
    let layers = t
        .layers
        .iter()
        .map(|name| {
            env()
                .get_template(name)
                .map_err(|e| Error::internal(format!("template {name}: {e}")))?
                .render(&ctx)
                .map_err(|e| {
                    Error::invalid_field("data", format!("the template cannot use this data: {e}"))
                })
        })
        .collect::<Result<Vec<String>>>()?;
    Ok((t, layers))
}

/// Rasterises an SVG document to `width` × `height` with the shipped fonts only.
pub fn svg_to_png(svg: &[u8], width: u32, height: u32) -> Result<Vec<u8>> {
    trees_to_png(&[tree_of(svg)?], width, height)
}

/// An SVG document parsed with the shipped fonts only, nothing loaded from outside.
fn tree_of(svg: &[u8]) -> Result<usvg::Tree> {
    let opts = usvg::Options {
        fontdb: fontdb(),
        font_family: "DejaVu Sans".into(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    usvg::Tree::from_data(svg, &opts)
        .map_err(|e| Error::internal(format!("the template is not valid SVG: {e}")))
}

/// Paints `layers` in order, each scaled to `width` × `height`, and encodes the image.
fn trees_to_png(layers: &[usvg::Tree], width: u32, height: u32) -> Result<Vec<u8>> {
    let n = (width as usize) * (height as usize);
    let mut buf = Buffers::take(n * 4);
    let ints = resvg::tiny_skia::IntSize::from_wh(width, height)
        .ok_or_else(|| Error::internal("cannot allocate the image"))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::from_vec(std::mem::take(&mut buf.0), ints)
        .ok_or_else(|| Error::internal("cannot allocate the image"))?;
    for tree in layers {
        let size = tree.size();
        let t = resvg::tiny_skia::Transform::from_scale(
            width as f32 / size.width(),
            height as f32 / size.height(),
        );
        resvg::render(tree, t, &mut pixmap.as_mut());
    }
    // An opaque image (a receipt's background covers it) is the same premultiplied or not: its
    // colour channels are encoded as they are, a quarter less to filter and deflate.
    if !layered::rgb_of(pixmap.data(), &mut buf.1) {
        return encode_png(
            &pixmap.take_demultiplied(),
            width,
            height,
            image::ExtendedColorType::Rgba8,
        );
    }
    let png = encode_png(&buf.1, width, height, image::ExtendedColorType::Rgb8);
    buf.0 = pixmap.take();
    buf.give_back();
    png
}

/// The pixel buffers of a rendering (RGBA, then RGB), kept between renderings: a receipt's are
/// 6 and 4.5 MB, and the allocator gave such blocks back to the system after each, so every
/// receipt paid a page fault per 4 KB to zero them again (11 % of the server's CPU in
/// bench/checkout.sh). At most [`KEPT`] pairs are kept (bounded memory); more renderings at
/// once allocate their own.
struct Buffers(Vec<u8>, Vec<u8>);

static POOL: std::sync::Mutex<Vec<Buffers>> = std::sync::Mutex::new(Vec::new());
/// Buffer pairs kept: one per core renders at once on this class of machine.
const KEPT: usize = 2;
/// Buffers larger than this (bytes, RGBA) are not kept: a rare large image must not pin its
/// memory.
const KEEP_UP_TO: usize = 1600 * 1600 * 4;

impl Buffers {
    /// A pair whose first buffer is `len` zeroed bytes.
    fn take(len: usize) -> Self {
        let mut b = POOL
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or(Buffers(Vec::new(), Vec::new()));
        b.0.clear();
        b.0.resize(len, 0);
        b
    }

    fn give_back(self) {
        if self.0.capacity() > KEEP_UP_TO {
            return;
        }
        if let Ok(mut p) = POOL.lock()
            && p.len() < KEPT
        {
            p.push(self);
        }
    }
}

/// PNG with the encoder's fast setting (fdeflate). With tiny-skia's default (zlib level 6) a
/// receipt (1485 × 1050) took about 38 ms, 30 of them in deflate, and receipts were a fifth of
/// the server's CPU in bench/checkout.sh; now about 10 ms, and the file is 87 KB instead of 36.
/// Opaque and as RGB: the encode 1.8 → 1.35 ms and 87 → 77 KB (`Sub` alone would be 0.95 ms but
/// 113 KB).
fn encode_png(
    pixels: &[u8],
    width: u32,
    height: u32,
    colour: image::ExtendedColorType,
) -> Result<Vec<u8>> {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut out = Vec::with_capacity(pixels.len() / 8);
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive)
        .write_image(pixels, width, height, colour)
        .map_err(|e| Error::internal(format!("encoding the image: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The tags of a TrueType file's table directory (numTables at byte 4, records of 16 bytes
    /// from byte 12, each starting with its tag).
    fn table_tags(font: &[u8]) -> Vec<[u8; 4]> {
        let n = u16::from_be_bytes([font[4], font[5]]) as usize;
        (0..n)
            .map(|i| {
                let at = 12 + 16 * i;
                [font[at], font[at + 1], font[at + 2], font[at + 3]]
            })
            .collect()
    }

    #[test]
    fn the_shipped_fonts_kern_by_gpos_alone() {
        // The legacy `kern` table was dropped (docs/dependencies.md): shaping gathered its
        // pairs for every text run, and GPOS holds the same kerning, which is what is applied.
        for font in [SANS, SANS_BOLD] {
            let tags = table_tags(font);
            assert!(tags.contains(b"GPOS"), "kerning comes from GPOS");
            assert!(tags.contains(b"glyf") && tags.contains(b"cmap"));
            assert!(!tags.contains(b"kern"), "the legacy kern table is back");
        }
    }

    #[test]
    fn receipts_render_at_their_size_with_cyrillic_text() {
        let data = json!({"language": "ru", "site": {"name": "Для планеты"}, "ecommerce": {"order": {
            "id": "0198a0b1-0000-7000-8000-000000000001", "email": "b@example.com",
            "checkoutTotal": "1500", "billingModuleCurrency": {"symbol": "₽", "slug": "rub"},
            "ordersToProducts": [{"quantity": 5, "product": {"title": {"ru": "Дерево", "en": "Tree"}},
                "total": [{"total": "1500"}]}]}}});
        let png = png(RECEIPT, 1485, 1050, &data);
        let img = png.ok().and_then(|b| image::load_from_memory(&b).ok());
        assert_eq!(
            img.as_ref().map(|i| (i.width(), i.height())),
            Some((1485, 1050))
        );
        // Text was drawn: the rendering is not one flat colour.
        let px = img.map(|i| i.to_rgba8()).map(|i| {
            let first = *i.get_pixel(0, 0);
            i.pixels().filter(|p| **p != first).count()
        });
        assert!(px.is_some_and(|n| n > 10_000), "{px:?}");
    }

    #[test]
    fn values_are_escaped_and_unknown_templates_refused() {
        let data = json!({"title": "</text><image href=\"file:///etc/passwd\"/><text>", "site": "S", "language": "en"});
        assert!(png(OPENGRAPH, 1200, 630, &data).is_ok());
        assert_eq!(
            png("nope", 100, 100, &data).err().map(|e| e.status()),
            Some(422)
        );
        assert_eq!(
            png(OPENGRAPH, 100_000, 100, &data)
                .err()
                .map(|e| e.status()),
            Some(422)
        );
    }

    fn receipt_data(lang: &str, lines: usize) -> Value {
        let line = json!({"quantity": 3, "product": {"title": {"ru": "Дерево у реки", "en": "A tree by the river"}},
            "total": [{"total": "1500", "billingModuleCurrency": {"symbol": "₽"}}]});
        json!({"language": lang, "site": {"name": "Для планеты"}, "paidAt": "2026-11-30 17:00 UTC",
            "ecommerce": {"order": {"id": "0198a0b1-0000-7000-8000-000000000001", "number": 1042,
            "email": "b@example.com", "checkoutTotal": "1500", "billingModuleCurrency": {"symbol": "₽"},
            "ordersToProducts": vec![line; lines]}}})
    }

    #[test]
    fn a_receipt_from_its_prepared_layer_is_the_receipt_rendered_in_one() {
        for (lang, lines) in [("ru", 1), ("en", 1), ("ru", 9), ("en", 0)] {
            let data = receipt_data(lang, lines);
            let fast = png(RECEIPT, 1485, 1050, &data).expect("layered");
            // Twice: the second one comes from the kept layer.
            assert_eq!(png(RECEIPT, 1485, 1050, &data).ok().as_ref(), Some(&fast));
            let slow = png_in_one_rendering(RECEIPT, 1485, 1050, &data).expect("whole");
            let (a, b) = (
                image::load_from_memory(&fast).expect("decodes").to_rgb8(),
                image::load_from_memory(&slow).expect("decodes").to_rgb8(),
            );
            assert_eq!(a.dimensions(), b.dimensions());
            // The order's text is drawn from kept glyphs (render/glyphs.rs), resvg's whole
            // rendering fills each line's outlines: the same but for the rounding of glyphs'
            // places within a pixel.
            within_rounding(&a, &b, &format!("{lang}, {lines} lines"));
            // And it is a receipt of this order: not the bare first layer.
            let other = receipt_data(if lang == "ru" { "en" } else { "ru" }, lines);
            assert_ne!(png(RECEIPT, 1485, 1050, &other).ok(), Some(fast.clone()));
        }
    }

    /// Most a channel of glyph-drawn text may differ from resvg's: a glyph placed up to a
    /// sixteenth of a pixel across from where resvg fills it moves an edge past at most one of
    /// the four places across a pixel tiny-skia samples, a quarter of the level (55 seen in
    /// receipts, 64 in the test's text). And the difference nine in ten differing pixels stay
    /// within (95 % seen).
    const MOST: u8 = 64;
    const FAR: u8 = 32;

    /// That glyph-drawn `ours` differs from resvg's `theirs` (the glyphs drew it, not resvg),
    /// and only within the rounding: by at most [`MOST`], nine in ten differing pixels by at
    /// most [`FAR`].
    fn within_rounding(ours: &image::RgbImage, theirs: &image::RgbImage, what: &str) {
        let (changed, worst, far) = differences(ours, theirs);
        assert!(
            changed > 0,
            "{what}: the text was drawn by resvg, not the glyphs"
        );
        assert!(
            worst <= MOST && far * 10 <= changed,
            "{what}: {changed} pixels differ, by up to {worst}, {far} by more than {FAR}"
        );
    }

    /// Of two images: how many pixels differ, by how much at most (in any channel), and how
    /// many by more than [`FAR`].
    fn differences(a: &image::RgbImage, b: &image::RgbImage) -> (usize, u8, usize) {
        let (mut changed, mut worst, mut far) = (0, 0, 0);
        for (x, y) in a.pixels().zip(b.pixels()) {
            let d = (0..3).map(|i| x[i].abs_diff(y[i])).max().unwrap_or(0);
            changed += usize::from(d > 0);
            far += usize::from(d > FAR);
            worst = worst.max(d);
        }
        (changed, worst, far)
    }

    #[test]
    fn glyph_drawn_text_is_resvgs_text_but_for_rounding() {
        use resvg::tiny_skia::{Pixmap, Transform};
        // Every size and position within a pixel the receipt uses and more: text at fractional
        // places, in three colours, one half transparent, bold, both scripts, end-anchored.
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300" font-family="DejaVu Sans">
            <text x="10.3" y="40.6" font-size="30" fill="#1d2b21">№ 1042 Дерево у реки</text>
            <text x="590" y="90.1" font-size="26.5" fill="#c03" text-anchor="end">b@example.com 1 500,00 ₽</text>
            <text x="12.9" y="150" font-size="40" font-weight="bold" fill="#1f5130" fill-opacity="0.5">Total: 1500 ₽ Итого</text>
            <text x="7" y="200" font-size="13" fill="#5b6b5f">and 3 more, и ещё 3 поз. — AVAWAY To</text>
            <text x="-5" y="290" font-size="60" fill="#000">Clipped at the edge</text>
            <text x="470" y="20" font-size="40" fill="#0a4">Edge Жж</text>
        </svg>"##;
        let tree = tree_of(svg.as_bytes()).expect("parses");
        let draw = |glyphs: bool, shift: f32| {
            let mut p = Pixmap::new(600, 300).expect("pixmap");
            p.fill(resvg::tiny_skia::Color::WHITE);
            let t = Transform::from_translate(0.0, shift);
            if glyphs {
                glyphs::draw(&tree, t, &mut p.as_mut());
            } else {
                resvg::render(&tree, t, &mut p.as_mut());
            }
            image::RgbImage::from_fn(600, 300, |x, y| {
                let c = p.pixel(x, y).expect("inside");
                image::Rgb([c.red(), c.green(), c.blue()])
            })
        };
        for shift in [0.0, -0.37, -8.0] {
            let (ours, theirs) = (draw(true, shift), draw(false, shift));
            let inked = theirs.pixels().filter(|p| p.0 != [255, 255, 255]).count();
            assert!(inked > 5_000, "{inked} pixels of text");
            within_rounding(
                &ours,
                &theirs,
                &format!("shift {shift}, {inked} pixels of text"),
            );
        }
        // A second drawing from the kept masks is the first.
        assert_eq!(draw(true, 0.0), draw(true, 0.0));
    }

    #[test]
    fn text_the_glyphs_do_not_draw_is_left_to_resvg() {
        use resvg::tiny_skia::{Pixmap, Transform};
        for svg in [
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="5" y="40" font-size="30" stroke="#000" fill="#c03">Ab</text></svg>"##,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="5" y="40" font-size="30" text-decoration="underline">Ab</text></svg>"##,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="5" y="40" font-size="30" transform="rotate(10)">Ab</text></svg>"##,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="5" y="40" font-size="30" rotate="10">Ab</text></svg>"##,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><linearGradient id="g"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#f00"/></linearGradient><text x="5" y="40" font-size="30" fill="url(#g)">Ab</text></svg>"##,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><rect width="9" height="9"/><text x="5" y="40" font-size="30">Ab</text></svg>"##,
        ] {
            let tree = tree_of(svg.as_bytes()).expect("parses");
            let mut ours = Pixmap::new(200, 60).expect("pixmap");
            let mut theirs = ours.clone();
            glyphs::draw(&tree, Transform::identity(), &mut ours.as_mut());
            resvg::render(&tree, Transform::identity(), &mut theirs.as_mut());
            assert!(ours.data().iter().any(|b| *b != 0), "{svg}: nothing drawn");
            assert!(ours == theirs, "{svg}: not drawn by resvg");
        }
    }

    #[test]
    fn a_receipt_from_its_pieces_is_the_receipt_from_its_trees() {
        for (lang, lines) in [("ru", 1), ("en", 1), ("ru", 9), ("en", 0), ("ru", 1)] {
            let data = receipt_data(lang, lines);
            // The order layer is cut: one piece for each of its text elements, each with its
            // glyphs (a receipt drawn from trees would pass the comparisons below as well).
            let (_, layers) = layers_of(RECEIPT, 1485, 1050, &data).expect("layers");
            let cut = pieces::pieces(&layers[1], |svg| tree_of(svg.as_bytes())).expect("cut");
            assert_eq!(cut.len(), layers[1].matches("<text").count());
            assert!(
                cut.iter()
                    .all(|p| p.bounds.is_some() && !p.spans.is_empty())
            );
            let whole = png_parsed_whole(RECEIPT, 1485, 1050, &data).expect("whole");
            // The first drawing parses every element, the second keeps them, the third draws
            // them from what was kept.
            for round in 0..3 {
                let cut = png(RECEIPT, 1485, 1050, &data).expect("cut");
                assert!(
                    cut == whole,
                    "{lang}, {lines} lines, round {round}: not the same bytes"
                );
            }
            // And `png` drew it from the pieces (they are kept).
            assert!(
                pieces::kept() > 0,
                "the receipt was not drawn from its pieces"
            );
            // Another order's own text over the kept pieces of this one.
            let mut other = data.clone();
            other["ecommerce"]["order"]["number"] = json!(77);
            other["ecommerce"]["order"]["email"] = json!("c@example.com");
            let cut = png(RECEIPT, 1485, 1050, &other).expect("cut");
            assert!(cut == png_parsed_whole(RECEIPT, 1485, 1050, &other).expect("whole"));
            assert!(cut != whole, "the order's number and email were not drawn");
        }
    }

    #[test]
    fn repeated_elements_are_drawn_from_what_was_kept() {
        use std::rc::Rc;
        let parse = |s: &str| tree_of(s.as_bytes());
        let data = receipt_data("ru", 1);
        let cut = |d: &Value| {
            let (_, l) = layers_of(RECEIPT, 1485, 1050, d).expect("layers");
            pieces::pieces(&l[1], parse).expect("cut")
        };
        let (_, l) = layers_of(RECEIPT, 1485, 1050, &data).expect("layers");
        let whole = tree_of(l[1].as_bytes()).expect("tree");
        let rects: Vec<_> = whole
            .root()
            .children()
            .iter()
            .map(|n| n.abs_stroke_bounding_box())
            .collect();
        let (a, b, c) = (cut(&data), cut(&data), cut(&data));
        // Each piece covers what its element covers in the whole layer.
        assert_eq!(a.iter().filter_map(|p| p.bounds).collect::<Vec<_>>(), rects);
        assert!(
            a.iter().zip(&b).all(|(x, y)| !Rc::ptr_eq(x, y)),
            "kept when first seen"
        );
        assert!(
            b.iter().zip(&c).all(|(x, y)| Rc::ptr_eq(x, y)),
            "not drawn from the kept"
        );
        // Another order: its number and address drawn anew, the rest from what was kept.
        let mut other = data.clone();
        other["ecommerce"]["order"]["number"] = json!(77);
        other["ecommerce"]["order"]["email"] = json!("c@example.com");
        let d = cut(&other);
        assert_eq!(
            c.iter().zip(&d).filter(|(x, y)| !Rc::ptr_eq(x, y)).count(),
            2
        );
    }

    #[test]
    fn a_receipt_redraws_only_the_bands_of_its_text() {
        let (_, layers) = layers_of(RECEIPT, 1485, 1050, &receipt_data("ru", 1)).expect("layers");
        let order = tree_of(layers[1].as_bytes()).expect("parses");
        let dirty = layered::dirty_bands(std::slice::from_ref(&order), 1485, 1050);
        let n = dirty.iter().filter(|d| **d).count();
        // The order's number, its date, the email, one line and the total: a fifth of the rows.
        assert!(n * 5 <= dirty.len(), "{n} of {} bands redrawn", dirty.len());
        assert!(n >= 5, "{n} bands: the text is not all redrawn");
    }

    #[test]
    fn another_size_is_rendered_in_one() {
        let data = receipt_data("ru", 2);
        let img = png(RECEIPT, 742, 525, &data)
            .ok()
            .and_then(|b| image::load_from_memory(&b).ok());
        assert_eq!(img.map(|i| (i.width(), i.height())), Some((742, 525)));
    }

    /// A 4 × 2 SVG rendered, decoded again, and checked to be stored as `colour`.
    fn decoded(svg: &[u8], colour: image::ColorType) -> Option<image::DynamicImage> {
        let img = svg_to_png(svg, 4, 2)
            .ok()
            .and_then(|b| image::load_from_memory(&b).ok());
        assert_eq!(img.as_ref().map(|i| i.color()), Some(colour));
        img
    }

    #[test]
    fn opaque_images_are_rgb_and_transparent_ones_keep_their_alpha() {
        let opaque = br##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"><rect width="4" height="2" fill="#336699"/></svg>"##;
        let img = decoded(opaque, image::ColorType::Rgb8);
        assert_eq!(
            img.map(|i| i.to_rgb8().get_pixel(3, 1).0),
            Some([0x33, 0x66, 0x99])
        );
        // Half covered: the other half stays transparent, the colour is not premultiplied.
        let half = br##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"><rect width="2" height="2" fill="#336699" fill-opacity="0.5"/></svg>"##;
        let img = decoded(half, image::ColorType::Rgba8);
        let px = img.map(|i| i.to_rgba8());
        assert_eq!(px.as_ref().map(|p| p.get_pixel(3, 0).0[3]), Some(0));
        let left = px.map(|p| p.get_pixel(0, 0).0);
        assert!(
            left.is_some_and(|[r, g, b, a]| (127..=128).contains(&a)
                && r.abs_diff(0x33) <= 2
                && g.abs_diff(0x66) <= 2
                && b.abs_diff(0x99) <= 2),
            "{left:?}"
        );
    }
}
