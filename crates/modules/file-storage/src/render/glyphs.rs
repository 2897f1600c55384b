//! Text drawn from glyphs rasterised once. resvg draws a line of text as one path of all its
//! glyphs' outlines, rasterised anew for every image: for a receipt's order layer that filling
//! was a seventh of the server's CPU behind a burst of payments (`fill_path` in a profile of
//! `bench/checkout.sh`), though its few dozen glyphs repeat from receipt to receipt. Here each
//! glyph is rasterised once per size and position within a pixel (across to an eighth of a
//! pixel, as text renderers round it; down exactly, as a line's glyphs share their baseline)
//! into a coverage mask the rendering thread keeps. Each image adds up the masks of a span's
//! glyphs (as one path of them all covers a pixel two glyphs share) and blends that in the
//! span's colour. The result differs from resvg's only at the edges of glyphs, by that rounding
//! (test `glyph_drawn_text_is_resvgs_text_but_for_rounding` in `render`).
//!
//! Only what the receipt's layers hold is drawn this way: text at the top level of the image,
//! in a solid fill (by the nonzero rule, which usvg sets for all text: SVG's `fill-rule` does
//! not apply to it), unstroked, undecorated, in plain outline fonts (no
//! colour, bitmap or SVG glyphs, no variable fonts: a span's variations, such as the weight
//! usvg sets from `font-weight`, mean nothing to a font without axes), its glyphs neither
//! rotated nor skewed. Any other tree is drawn by resvg whole ([`placed`] decides before
//! anything is drawn). usvg wraps text with a transform, an opacity, a clip, a mask or a filter
//! of its own or of the image's in a group, so such text is not at the top level.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use resvg::{tiny_skia, usvg};
use skrifa::MetadataProvider;

/// Positions within a pixel a glyph is rasterised at, across.
const STEPS: f32 = 8.0;
/// Masks kept per thread before the cache starts over (a glyph of 30 px is ~600 bytes: a few
/// MB at most, for more glyphs and sizes than a receipt ever holds).
const MASKS_KEPT: usize = 4096;
/// The largest glyph mask, and the largest span, in pixels: larger text is left to resvg
/// (which clips it to the image instead of allocating it whole).
const MASK_MOST: usize = 256 * 1024;
const SPAN_MOST: usize = 4 * 1024 * 1024;
/// Positions beyond this many pixels from the image are left to resvg.
const FAR_OUT: f32 = 1.0e6;

/// A glyph's coverage at one size and position within a pixel: `w` × `h` levels, its top left
/// corner at (`left`, `top`) from the whole pixel it is drawn at.
struct Mask {
    left: i32,
    top: i32,
    w: usize,
    h: usize,
    alpha: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    /// The font database, by address: trees parsed with another one number their fonts apart.
    /// Sound because the renderer's one database lives as long as the process (`render::fontdb`).
    db: usize,
    font: usvg::fontdb::ID,
    glyph: u32,
    /// The transform's scale (sx, sy), as bits.
    scale: (u32, u32),
    /// The position within the pixel: across in steps of 1 / [`STEPS`], down exactly (the
    /// bits of the fraction: a line's glyphs share their baseline, and tiny-skia samples four
    /// rows a pixel, so a baseline rounded even to a quarter pixel moved whole edges).
    sub: (u8, u32),
    anti_alias: bool,
}

thread_local! {
    /// Kept by each thread that renders: the two quiet rendering threads, and tokio's blocking
    /// threads for as long as each lives. `None`: a glyph this module does not draw (the tree
    /// is left to resvg).
    static MASKS: std::cell::RefCell<HashMap<Key, Option<Rc<Mask>>>> =
        std::cell::RefCell::default();
}

/// A span of text to blend: its glyphs' coverage added up, `w` × `h` levels whose top left
/// corner is the pixel (`x`, `y`), and its colour (straight RGB and alpha).
pub(super) struct Placed {
    x: i64,
    y: i64,
    w: usize,
    h: usize,
    alpha: Vec<u8>,
    rgba: [u8; 4],
}

impl Placed {
    /// The bytes it holds.
    pub(super) fn bytes(&self) -> usize {
        self.alpha.len() + std::mem::size_of::<Self>()
    }
}

/// Draws `tree` onto `pixmap` under `transform`: its text from the kept glyphs when the tree is
/// only such text, otherwise by resvg.
#[cfg(test)]
pub(super) fn draw(
    tree: &usvg::Tree,
    transform: tiny_skia::Transform,
    pixmap: &mut tiny_skia::PixmapMut,
) {
    match placed(tree, transform) {
        Some(spans) => {
            let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
            for span in &spans {
                blend::<4>(pixmap.data_mut(), w, 0..h, span);
            }
        }
        None => resvg::render(tree, transform, pixmap),
    }
}

/// Every span of `tree`'s text placed under `transform`, or `None` when anything in it is not
/// plain text this module draws.
pub(super) fn placed(tree: &usvg::Tree, transform: tiny_skia::Transform) -> Option<Vec<Placed>> {
    let db = Arc::as_ptr(tree.fontdb()) as usize;
    let mut out = Vec::new();
    for node in tree.root().children() {
        let usvg::Node::Text(text) = node else {
            return None;
        };
        let anti_alias = text.rendering_mode() != usvg::TextRendering::OptimizeSpeed;
        for span in text.layouted() {
            if span.stroke.is_some()
                || span.underline.is_some()
                || span.overline.is_some()
                || span.line_through.is_some()
            {
                return None;
            }
            if !span.visible {
                continue;
            }
            let Some(fill) = &span.fill else { continue };
            let usvg::Paint::Color(c) = fill.paint() else {
                return None;
            };
            // The glyphs' masks and the whole pixels they are drawn at.
            let mut glyphs = Vec::with_capacity(span.positioned_glyphs.len());
            for glyph in &span.positioned_glyphs {
                // A glyph at the top level is placed by the transform alone, as resvg does.
                let t = transform.pre_concat(glyph.outline_transform());
                if t.kx != 0.0 || t.ky != 0.0 || !(t.tx.abs() < FAR_OUT && t.ty.abs() < FAR_OUT) {
                    return None;
                }
                let (x, sx) = whole_and_step(t.tx);
                let y = t.ty.floor();
                let key = Key {
                    db,
                    font: glyph.font,
                    glyph: glyph.id.0,
                    scale: (t.sx.to_bits(), t.sy.to_bits()),
                    sub: (sx, (t.ty - y).to_bits()),
                    anti_alias,
                };
                let mask = mask_of(tree.fontdb(), key, t)?;
                if mask.w > 0 {
                    glyphs.push((mask, i64::from(x), y as i64));
                }
            }
            if let Some(span) = added_up(&glyphs, *c, fill.opacity().get()) {
                out.push(span?);
            }
        }
    }
    Some(out)
}

/// The glyphs' masks added up into one span's coverage (saturating: where two glyphs share a
/// pixel their coverage adds, as in one path of both). `None` for no glyph; `Some(None)` for a
/// span too large to draw this way.
fn added_up(
    glyphs: &[(Rc<Mask>, i64, i64)],
    c: usvg::Color,
    opacity: f32,
) -> Option<Option<Placed>> {
    let corners = |(m, x, y): &(Rc<Mask>, i64, i64)| {
        let (l, t) = (x + i64::from(m.left), y + i64::from(m.top));
        (l, t, l + m.w as i64, t + m.h as i64)
    };
    let (l, t, r, b) = glyphs
        .iter()
        .map(corners)
        .reduce(|a, g| (a.0.min(g.0), a.1.min(g.1), a.2.max(g.2), a.3.max(g.3)))?;
    let (w, h) = ((r - l) as usize, (b - t) as usize);
    if w.checked_mul(h).is_none_or(|n| n > SPAN_MOST) {
        return Some(None);
    }
    let mut alpha = vec![0u8; w * h];
    for g in glyphs {
        let (gl, gt, _, _) = corners(g);
        let m = &g.0;
        let (dx, dy) = ((gl - l) as usize, (gt - t) as usize);
        for (row, src) in m.alpha.chunks_exact(m.w).enumerate() {
            let at = (dy + row) * w + dx;
            for (d, &k) in alpha[at..at + m.w].iter_mut().zip(src) {
                *d = d.saturating_add(k);
            }
        }
    }
    Some(Some(Placed {
        x: l,
        y: t,
        w,
        h,
        alpha,
        rgba: [c.red, c.green, c.blue, (opacity * 255.0).round() as u8],
    }))
}

/// `v` as a whole pixel and a step within it (rounded to the nearest of [`STEPS`]).
fn whole_and_step(v: f32) -> (i32, u8) {
    let steps = (v * STEPS).round();
    let whole = (steps / STEPS).floor();
    (whole as i32, (steps - whole * STEPS) as u8)
}

/// The kept mask of `key`, rasterised now if it is new; `None` when the glyph is not a plain
/// outline.
fn mask_of(db: &usvg::fontdb::Database, key: Key, t: tiny_skia::Transform) -> Option<Rc<Mask>> {
    MASKS.with_borrow_mut(|masks| {
        if let Some(m) = masks.get(&key) {
            return m.clone();
        }
        if masks.len() >= MASKS_KEPT {
            masks.clear();
        }
        let m = rasterise(db, key, t).map(Rc::new);
        masks.insert(key, m.clone());
        m
    })
}

fn rasterise(db: &usvg::fontdb::Database, key: Key, t: tiny_skia::Transform) -> Option<Mask> {
    let path = outline(db, key.font, key.glyph)?;
    let Some(path) = path else {
        // A glyph without an outline (a space): nothing to draw.
        return Some(Mask {
            left: 0,
            top: 0,
            w: 0,
            h: 0,
            alpha: Vec::new(),
        });
    };
    let at = tiny_skia::Transform::from_row(
        t.sx,
        0.0,
        0.0,
        t.sy,
        f32::from(key.sub.0) / STEPS,
        f32::from_bits(key.sub.1),
    );
    let b = path.clone().transform(at)?.bounds();
    // The glyph's own extent (its place in the image is added when drawn): a glyph larger
    // than [`MASK_MOST`] is left to resvg.
    if !(b.width() * b.height() < MASK_MOST as f32
        && b.left().abs() < FAR_OUT
        && b.top().abs() < FAR_OUT)
    {
        return None;
    }
    let (left, top) = (b.left().floor() as i32 - 1, b.top().floor() as i32 - 1);
    let (right, bottom) = (b.right().ceil() as i32 + 1, b.bottom().ceil() as i32 + 1);
    let (w, h) = (
        u32::try_from(right - left).ok()?,
        u32::try_from(bottom - top).ok()?,
    );
    let mut mask = tiny_skia::Mask::new(w, h)?;
    mask.fill_path(
        &path,
        tiny_skia::FillRule::Winding,
        key.anti_alias,
        at.post_translate(-left as f32, -top as f32),
    );
    Some(Mask {
        left,
        top,
        w: w as usize,
        h: h as usize,
        alpha: mask.data().to_vec(),
    })
}

/// The outline of `glyph` in font units (y up), `Some(None)` for a glyph without one, `None`
/// for a font or glyph this module does not draw (colour, bitmap or SVG glyphs, variable fonts).
fn outline(
    db: &usvg::fontdb::Database,
    font: usvg::fontdb::ID,
    glyph: u32,
) -> Option<Option<tiny_skia::Path>> {
    db.with_face_data(font, |data, index| {
        let f = skrifa::FontRef::from_index(data, index).ok()?;
        let special = [*b"COLR", *b"SVG ", *b"CBDT", *b"sbix", *b"EBDT"];
        if !f.axes().is_empty()
            || special
                .iter()
                .any(|t| f.table_data(skrifa::Tag::new(t)).is_some())
        {
            return None;
        }
        let g = f.outline_glyphs().get(skrifa::GlyphId::new(glyph))?;
        let mut pen = Pen(tiny_skia::PathBuilder::new());
        let location = f.axes().location(std::iter::empty::<(skrifa::Tag, f32)>());
        g.draw(
            skrifa::outline::DrawSettings::unhinted(skrifa::prelude::Size::unscaled(), &location),
            &mut pen,
        )
        .ok()?;
        Some(pen.0.finish())
    })?
}

struct Pen(tiny_skia::PathBuilder);

impl skrifa::outline::OutlinePen for Pen {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(x, y);
    }
    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        self.0.quad_to(cx0, cy0, x, y);
    }
    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        self.0.cubic_to(cx0, cy0, cx1, cy1, x, y);
    }
    fn close(&mut self) {
        self.0.close();
    }
}

/// Blends the span `g`, source over, onto `rows` of an image `width` pixels wide whose pixels are `N`
/// bytes (premultiplied RGBA, or opaque RGB) and whose first row in `data` is `rows.start`;
/// whatever of the glyph falls outside is clipped.
pub(super) fn blend<const N: usize>(
    data: &mut [u8],
    width: usize,
    rows: std::ops::Range<usize>,
    g: &Placed,
) {
    let (x0, y0) = (g.x, g.y);
    let (w, first) = (width as i64, rows.start as i64);
    let cols = (x0.max(0) - x0)..((x0 + g.w as i64).min(w) - x0);
    if cols.is_empty() || y0 + g.h as i64 <= first || y0 >= rows.end as i64 {
        return;
    }
    let [r, gr, b, a] = g.rgba.map(u32::from);
    let (px, _) = data.as_chunks_mut::<N>();
    for row in 0..g.h as i64 {
        let y = y0 + row;
        if y < first || y >= rows.end as i64 {
            continue;
        }
        let src = &g.alpha[row as usize * g.w..][cols.start as usize..cols.end as usize];
        let at = ((y - first) * w + x0 + cols.start) as usize;
        for (d, &k) in px[at..at + src.len()].iter_mut().zip(src) {
            let alpha = div255(a * u32::from(k));
            if alpha == 0 {
                continue;
            }
            let keep = 255 - alpha;
            d[0] = div255(r * alpha + u32::from(d[0]) * keep) as u8;
            d[1] = div255(gr * alpha + u32::from(d[1]) * keep) as u8;
            d[2] = div255(b * alpha + u32::from(d[2]) * keep) as u8;
            if N == 4 {
                d[N - 1] = div255(255 * alpha + u32::from(d[N - 1]) * keep) as u8;
            }
        }
    }
}

/// `v / 255` rounded, for `v` up to 255 × 255.
fn div255(v: u32) -> u32 {
    (v + 128 + ((v + 128) >> 8)) >> 8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_blends_the_same_onto_rgb_and_opaque_rgba() {
        // Coverage from none to full, a colour whose channels all differ, opaque and half.
        let alpha: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for a in [255, 128] {
            let span = Placed {
                x: -3,
                y: 1,
                w: 64,
                h: 8,
                alpha: alpha.clone(),
                rgba: [200, 30, 90, a],
            };
            let (w, h) = (40, 12);
            let ground: Vec<[u8; 3]> = (0..w * h).map(|i| [i as u8, 255 - i as u8, 77]).collect();
            let mut rgb: Vec<u8> = ground.iter().flatten().copied().collect();
            let mut rgba: Vec<u8> = ground
                .iter()
                .flat_map(|&[r, g, b]| [r, g, b, 255])
                .collect();
            // RGB in two runs of rows, as the receipt's redrawn bands, RGBA whole.
            let (top, rest) = rgb.split_at_mut(w * 5 * 3);
            blend::<3>(top, w, 0..5, &span);
            blend::<3>(rest, w, 5..h, &span);
            blend::<4>(&mut rgba, w, 0..h, &span);
            let from_rgba: Vec<u8> = rgba.chunks(4).flat_map(|p| &p[..3]).copied().collect();
            assert_eq!(rgb, from_rgba, "alpha {a}");
            assert!(rgba.chunks(4).all(|p| p[3] == 255), "opaque stays opaque");
            let changed = rgb
                .chunks(3)
                .zip(&ground)
                .filter(|(p, g)| *p != &g[..])
                .count();
            // The span's columns 3..43 (the image's 0..40) in rows 1..9, 320 pixels, less the
            // few a faint coverage leaves as they were.
            assert!(changed > 200, "alpha {a}: {changed} pixels blended");
        }
    }

    #[test]
    fn positions_round_to_the_nearest_step() {
        assert_eq!(whole_and_step(10.0), (10, 0));
        assert_eq!(whole_and_step(10.3), (10, 2));
        assert_eq!(whole_and_step(10.97), (11, 0));
        assert_eq!(whole_and_step(-0.3), (-1, 6));
        for v in 0..=255 * 255 {
            assert_eq!(div255(v), (v as f64 / 255.0).round() as u32, "{v}");
        }
    }
}
