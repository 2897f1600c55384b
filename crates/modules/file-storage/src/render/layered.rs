//! A template in layers, at its own size: its first layer (the background, the header, the
//! labels: the same for every order in one language) is rasterised, filtered and deflated once
//! and kept, in bands of [`BAND`] rows; each image then draws only its own text (the other
//! layers) on a copy of the bands that text touches, and the PNG is those bands deflated anew
//! between the kept ones. A receipt took 7.3 ms as one rendering (parse, rasterise 1.56 M
//! pixels, filter, deflate); drawn this way it takes a fraction of that (`cargo run --release -p
//! stoa-file-storage --example receipt_time`; figures in docs/benchmarks.md).
//!
//! The PNG is assembled here rather than by the `png` crate, because the crate has no way to
//! splice kept data into a stream: each kept band, and each run of consecutive redrawn bands, is
//! a raw deflate segment of its own (no reference to data before it; ended by a sync flush on a
//! byte boundary), whose first row is filtered without the row above it (so a redrawn run never
//! invalidates the next band's filters), and the zlib checksum of the whole is combined from the
//! segments' own.

use std::sync::{Arc, Mutex};

use resvg::{tiny_skia, usvg};
use stoa_kernel::{Error, Result};

use super::glyphs;
use super::pieces::Piece;

/// The layers drawn over the first: parsed whole, or as their text elements each drawn once
/// ([`super::pieces`]).
pub enum Layers {
    Trees(Vec<usvg::Tree>),
    Pieces(Vec<std::rc::Rc<Piece>>),
}

/// Rows per band: smaller redraws less around each line of text (a line of 30 px text touches
/// five bands of 8 rows, 40 rows, or three of 16, 48), larger deflates a little better.
pub const BAND: u32 = 8;
/// Kept first layers (a language and a site name each; a receipt's is 4.7 MB of pixels and
/// ~60 KB deflated): a bounded cache, the oldest dropped first.
const KEPT: usize = 4;

/// A first layer, prepared.
struct Prepared {
    width: u32,
    height: u32,
    /// Its pixels, RGB (it is opaque).
    rgb: Vec<u8>,
    /// Per band: the filtered rows deflated as one raw segment, and their Adler-32 and length.
    bands: Vec<Segment>,
    /// Per row: the filter it was given (a redrawn row takes its kept row's, unscored).
    filters: Vec<u8>,
}

struct Segment {
    deflated: Vec<u8>,
    adler: u32,
    len: u64,
}

type Cache = Mutex<Vec<(String, Arc<Prepared>)>>;

fn cache() -> &'static Cache {
    static C: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    C.get_or_init(|| Mutex::new(Vec::new()))
}

/// The image of `base` (the first layer's SVG) with `layers` drawn over it, as a PNG of
/// `width` × `height` (the template's own size: a scale of 1). `None` when the first layer is
/// not opaque (the caller renders the whole image instead).
pub fn png(
    base: &str,
    layers: &Layers,
    width: u32,
    height: u32,
    parse: impl Fn(&str) -> Result<usvg::Tree>,
) -> Result<Option<Vec<u8>>> {
    let Some(prepared) = prepared(base, width, height, parse)? else {
        return Ok(None);
    };
    let dirty = match layers {
        Layers::Trees(trees) => dirty_bands(trees, width, height),
        Layers::Pieces(pieces) => bands_of(pieces.iter().filter_map(|p| p.bounds), width, height),
    };
    // Per band: the redrawn run of bands starting there, as its last band and its segment.
    let mut segments: Vec<Option<(u32, Segment)>> =
        (0..prepared.bands.len()).map(|_| None).collect();
    let row = width as usize * 3;
    // Text the glyph module draws (a receipt's order layer) is blended straight onto the kept
    // RGB rows; anything else is drawn by resvg on RGBA copies of them.
    let placed;
    let (spans, trees): (Option<Vec<&glyphs::Placed>>, &[usvg::Tree]) = match layers {
        Layers::Trees(trees) => {
            placed = trees.iter().try_fold(Vec::new(), |mut all, tree| {
                all.extend(glyphs::placed(tree, tiny_skia::Transform::identity())?);
                Some(all)
            });
            (placed.as_ref().map(|p| p.iter().collect()), trees)
        }
        Layers::Pieces(pieces) => (
            Some(pieces.iter().flat_map(|p| p.spans.iter()).collect()),
            &[],
        ),
    };
    SCRATCH.with_borrow_mut(|sc| -> Result<()> {
        for (first, last) in runs(&dirty) {
            let y0 = first * BAND;
            let y1 = ((last + 1) * BAND).min(height);
            let rows = (y0 as usize)..(y1 as usize);
            // The kept pixels of these rows, in buffers this thread keeps (no zeroing, no
            // page faults: they were a tenth of a receipt's time).
            let kept = &prepared.rgb[rows.start * row..rows.end * row];
            let mut rgb = std::mem::take(&mut sc.rgb);
            rgb.clear();
            match &spans {
                Some(spans) => {
                    rgb.extend_from_slice(kept);
                    for span in spans {
                        glyphs::blend::<3>(&mut rgb, width as usize, rows.clone(), span);
                    }
                }
                None => {
                    let mut px = std::mem::take(&mut sc.pixels);
                    px.clear();
                    px.extend(
                        kept.as_chunks::<3>()
                            .0
                            .iter()
                            .flat_map(|&[r, g, b]| [r, g, b, 255]),
                    );
                    let size = tiny_skia::IntSize::from_wh(width, y1 - y0)
                        .ok_or_else(|| Error::internal("cannot allocate the image"))?;
                    let mut pixmap = tiny_skia::Pixmap::from_vec(px, size)
                        .ok_or_else(|| Error::internal("cannot allocate the image"))?;
                    let shift = tiny_skia::Transform::from_translate(0.0, -(y0 as f32));
                    for tree in trees {
                        resvg::render(tree, shift, &mut pixmap.as_mut());
                    }
                    rgb_of(pixmap.data(), &mut rgb);
                    sc.pixels = pixmap.take();
                }
            }
            // The run is one segment: its bands stand together in the stream, so its rows
            // may refer to each other; only its first row is filtered without the one above
            // and its deflate starts afresh (the kept bands around it know nothing of it).
            let seg = segment_with(&rgb, row, Some(&prepared.filters[rows.clone()]), sc);
            sc.rgb = rgb;
            segments[first as usize] = Some((last, seg?));
        }
        Ok(())
    })?;
    Ok(Some(assemble(&prepared, &segments)))
}

/// What one thread reuses from receipt to receipt (a few hundred KB; the quiet render threads
/// are two).
#[derive(Default)]
struct Scratch {
    pixels: Vec<u8>,
    rgb: Vec<u8>,
    filtered: Vec<u8>,
    /// The deflater, reset for each segment: a new one allocates ~370 KB, and one per band of
    /// 8 rows was a tenth of a receipt's time.
    deflate: Option<flate2::Compress>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// The bands (of [`BAND`] rows) the layers' drawing touches, with a pixel's margin for
/// antialiasing.
pub(super) fn dirty_bands(layers: &[usvg::Tree], width: u32, height: u32) -> Vec<bool> {
    bands_of(
        layers.iter().flat_map(|t| {
            t.root()
                .children()
                .iter()
                .map(|n| n.abs_stroke_bounding_box())
        }),
        width,
        height,
    )
}

/// The bands the drawings of extent `rects` touch, with a pixel's margin for antialiasing.
fn bands_of(rects: impl Iterator<Item = tiny_skia::Rect>, width: u32, height: u32) -> Vec<bool> {
    let n = height.div_ceil(BAND) as usize;
    let mut dirty = vec![false; n];
    for r in rects {
        if r.right() < 0.0 || r.left() > width as f32 {
            continue;
        }
        let top = (r.top() - 2.0).floor().max(0.0) as u32;
        let bottom = ((r.bottom() + 2.0).ceil().max(0.0) as u32).min(height.saturating_sub(1));
        if top > bottom {
            continue;
        }
        for d in &mut dirty[(top / BAND) as usize..=(bottom / BAND) as usize] {
            *d = true;
        }
    }
    dirty
}

/// Runs of consecutive dirty bands, as (first, last).
fn runs(dirty: &[bool]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (i, d) in dirty.iter().enumerate() {
        if !d {
            continue;
        }
        let i = i as u32;
        match out.last_mut() {
            Some((_, last)) if *last + 1 == i => *last = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// The first layer `base` at `width` × `height`, from the cache or rendered now; `None` when it
/// is not opaque.
fn prepared(
    base: &str,
    width: u32,
    height: u32,
    parse: impl Fn(&str) -> Result<usvg::Tree>,
) -> Result<Option<Arc<Prepared>>> {
    // Found by the first layer's own text (a few KB, at most [`KEPT`] of them): exact, where a
    // hash could mistake one language's layer for another's.
    if let Ok(c) = cache().lock()
        && let Some((_, p)) = c
            .iter()
            .find(|(k, p)| k == base && p.width == width && p.height == height)
    {
        return Ok(Some(p.clone()));
    }
    let tree = parse(base)?;
    let size = tiny_skia::IntSize::from_wh(width, height)
        .ok_or_else(|| Error::internal("cannot allocate the image"))?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| Error::internal("cannot allocate the image"))?;
    let t = tiny_skia::Transform::from_scale(
        width as f32 / tree.size().width(),
        height as f32 / tree.size().height(),
    );
    resvg::render(&tree, t, &mut pixmap.as_mut());
    let mut rgb = Vec::new();
    if !rgb_of(pixmap.data(), &mut rgb) {
        return Ok(None);
    }
    let row = width as usize * 3;
    let mut sc = Scratch::default();
    let mut filters = Vec::with_capacity(height as usize);
    let bands = rgb
        .chunks(row * BAND as usize)
        .map(|b| {
            let seg = segment_with(b, row, None, &mut sc)?;
            filters.extend(sc.filtered.iter().step_by(row + 1));
            Ok(seg)
        })
        .collect::<Result<Vec<_>>>()?;
    let p = Arc::new(Prepared {
        width,
        height,
        rgb,
        bands,
        filters,
    });
    if let Ok(mut c) = cache().lock() {
        if c.len() >= KEPT {
            c.remove(0);
        }
        c.push((base.to_owned(), p.clone()));
    }
    Ok(Some(p))
}

/// Writes the colour channels of premultiplied RGBA `pixels` to `rgb` and says whether every
/// pixel was opaque (then premultiplied and straight are the same). `rgb` is reused as it is
/// when it has the right length (every byte is written), and the pixels go as fixed-size arrays
/// (no bounds checks): the per-pixel slice loop over a freshly zeroed `rgb` took 2.3 of a
/// receipt's 10 ms.
pub(crate) fn rgb_of(pixels: &[u8], rgb: &mut Vec<u8>) -> bool {
    let (px, _) = pixels.as_chunks::<4>();
    if rgb.len() != px.len() * 3 {
        rgb.clear();
        rgb.resize(px.len() * 3, 0);
    }
    let (out, _) = rgb.as_chunks_mut::<3>();
    let mut alpha = u8::MAX;
    for (o, p) in out.iter_mut().zip(px) {
        *o = [p[0], p[1], p[2]];
        alpha &= p[3];
    }
    alpha == u8::MAX
}

/// Rows of RGB (`row` bytes each; a band, or a run of redrawn bands), filtered (the first row
/// without the one above; each row as `filters` has it, or as its scores choose) and deflated as
/// a raw segment of its own (no reference to data before it) ending on a byte boundary, not
/// final, with this thread's buffers.
fn segment_with(
    rgb: &[u8],
    row: usize,
    filters: Option<&[u8]>,
    sc: &mut Scratch,
) -> Result<Segment> {
    let filtered = &mut sc.filtered;
    filtered.clear();
    filtered.reserve(rgb.len() + rgb.len() / row);
    let mut prev: Option<&[u8]> = None;
    for (i, cur) in rgb.chunks(row).enumerate() {
        let kind = match filters.and_then(|f| f.get(i)) {
            Some(&k) => k,
            None => chosen(prev, cur),
        };
        filter_row(kind, prev, cur, filtered);
        prev = Some(cur);
    }
    let c = match &mut sc.deflate {
        Some(c) => {
            c.reset();
            c
        }
        none => none.insert(flate2::Compress::new(flate2::Compression::fast(), false)),
    };
    let mut out = Vec::with_capacity(filtered.len() / 16 + 64);
    loop {
        let done = c.total_in() as usize;
        if let Err(e) = c.compress_vec(&filtered[done..], &mut out, flate2::FlushCompress::Sync) {
            // A deflater stopped mid-block is not made whole by `reset` (zlib-rs keeps its
            // open block): the next segment gets a new one.
            sc.deflate = None;
            return Err(Error::internal(format!("deflating the image: {e}")));
        }
        if c.total_in() as usize == filtered.len() && out.len() < out.capacity() {
            break;
        }
        out.reserve(out.capacity().max(4096));
    }
    Ok(Segment {
        adler: simd_adler32::adler32(&filtered.as_slice()),
        len: filtered.len() as u64,
        deflated: out,
    })
}

/// The filter for `cur`: whichever of None, Sub and Up leaves the least sum of absolute
/// differences (the usual heuristic; Sub and Up are what flat backgrounds and lines of text
/// need, and Average and Paeth took most of the filtering time for a few per cent of size), Up
/// only with a row above. The three scores are summed in one pass and only the chosen filter is
/// written. A redrawn row takes its kept row's filter instead: text over a background filters
/// much as the background does.
fn chosen(prev: Option<&[u8]>, cur: &[u8]) -> u8 {
    let (none, sub, up) = scores(prev, cur);
    if up < sub && up < none && prev.is_some() {
        2
    } else if sub < none {
        1
    } else {
        0
    }
}

/// Appends `cur` to `out` filtered by `kind` (None 0, Sub 1, Up 2: its type byte, then the row);
/// Up without a row above is Sub.
fn filter_row(kind: u8, prev: Option<&[u8]>, cur: &[u8], out: &mut Vec<u8>) {
    const BPP: usize = 3;
    let n = cur.len();
    let start = out.len();
    if kind == 2
        && let Some(p) = prev
    {
        out.push(2);
        out.extend(cur.iter().zip(&p[..n]).map(|(&x, &b)| x.wrapping_sub(b)));
    } else if kind != 0 {
        out.push(1);
        out.extend_from_slice(&cur[..BPP]);
        out.extend(
            cur[BPP..]
                .iter()
                .zip(&cur[..n - BPP])
                .map(|(&x, &a)| x.wrapping_sub(a)),
        );
    } else {
        out.push(0);
        out.extend_from_slice(cur);
    }
    debug_assert_eq!(out.len() - start, n + 1);
}

/// The sums of absolute differences (each filtered byte read as signed) of `cur` filtered with
/// None, Sub and Up (`u32::MAX` without a row above), in one pass. Summed in blocks of 128 bytes
/// into 16-bit lanes (128 × 128 fits), which the compiler turns into vector code: the sums over
/// whole rows in 32 bits took a fifth of a receipt's time.
fn scores(prev: Option<&[u8]>, cur: &[u8]) -> (u32, u32, u32) {
    const BPP: usize = 3;
    const BLOCK: usize = 128;
    // |x as i8|, without a branch: the lesser of x and -x as unsigned bytes.
    fn abs(x: u8) -> u16 {
        u16::from(x.min(x.wrapping_neg()))
    }
    let n = cur.len();
    let (mut none, mut sub, mut up) = (0u32, 0u32, 0u32);
    // Sub of the first pixel is the pixel itself.
    for &x in &cur[..BPP.min(n)] {
        sub += u32::from(abs(x));
    }
    let mut i = 0;
    while i < n {
        let end = (i + BLOCK).min(n);
        let c = &cur[i..end];
        let (mut bn, mut bs, mut bu) = (0u16, 0u16, 0u16);
        for &x in c {
            bn += abs(x);
        }
        // Sub: byte j against byte j - BPP, from the row's fourth byte on.
        let from = i.max(BPP);
        if from < end {
            for (&x, &a) in cur[from..end].iter().zip(&cur[from - BPP..end - BPP]) {
                bs += abs(x.wrapping_sub(a));
            }
        }
        if let Some(p) = prev {
            for (&x, &b) in c.iter().zip(&p[i..end]) {
                bu += abs(x.wrapping_sub(b));
            }
        }
        none += u32::from(bn);
        sub += u32::from(bs);
        up += u32::from(bu);
        i = end;
    }
    (none, sub, if prev.is_some() { up } else { u32::MAX })
}

/// The PNG: the kept bands with the redrawn ones in their place, one zlib stream.
fn assemble(p: &Prepared, redrawn: &[Option<(u32, Segment)>]) -> Vec<u8> {
    // The segments in order: a redrawn run in place of its bands, else the kept band.
    let mut order: Vec<&Segment> = Vec::with_capacity(p.bands.len());
    let mut i = 0;
    while i < p.bands.len() {
        match &redrawn[i] {
            Some((last, s)) => {
                order.push(s);
                i = *last as usize + 1;
            }
            None => {
                order.push(&p.bands[i]);
                i += 1;
            }
        }
    }
    let deflated: usize = order.iter().map(|s| s.deflated.len()).sum();
    let mut idat = Vec::with_capacity(deflated + 16);
    idat.extend_from_slice(b"IDAT");
    idat.extend_from_slice(&[0x78, 0x01]);
    let mut adler = 1u32;
    for s in order {
        idat.extend_from_slice(&s.deflated);
        adler = adler32_combine(adler, s.adler, s.len);
    }
    // The final block: empty, fixed codes.
    idat.extend_from_slice(&[0x03, 0x00]);
    idat.extend_from_slice(&adler.to_be_bytes());
    let mut png = Vec::with_capacity(idat.len() + 64);
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut ihdr = Vec::with_capacity(17);
    ihdr.extend_from_slice(b"IHDR");
    ihdr.extend_from_slice(&p.width.to_be_bytes());
    ihdr.extend_from_slice(&p.height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut png, &ihdr);
    chunk(&mut png, &idat);
    chunk(&mut png, b"IEND");
    png
}

/// Appends a chunk (`body` starts with its type) with its length and CRC.
fn chunk(png: &mut Vec<u8>, body: &[u8]) {
    png.extend_from_slice(&((body.len() - 4) as u32).to_be_bytes());
    png.extend_from_slice(body);
    png.extend_from_slice(&crc32fast::hash(body).to_be_bytes());
}

/// The Adler-32 of two pieces of data from each one's and the second one's length (zlib's
/// `adler32_combine`).
fn adler32_combine(a1: u32, a2: u32, len2: u64) -> u32 {
    const BASE: u64 = 65521;
    let rem = len2 % BASE;
    let mut sum1 = u64::from(a1 & 0xffff);
    let mut sum2 = (rem * sum1) % BASE;
    sum1 += u64::from(a2 & 0xffff) + BASE - 1;
    sum2 += u64::from(a1 >> 16) + u64::from(a2 >> 16) + BASE - rem;
    if sum1 >= BASE {
        sum1 -= BASE;
    }
    if sum1 >= BASE {
        sum1 -= BASE;
    }
    if sum2 >= BASE << 1 {
        sum2 -= BASE << 1;
    }
    if sum2 >= BASE {
        sum2 -= BASE;
    }
    (sum1 | (sum2 << 16)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redrawn_rows_are_filtered_as_their_kept_rows() {
        let (w, h) = (300u32, 100u32);
        let base = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="{w}" height="{h}" fill="#f4f1e8"/><rect x="0" y="40" width="150" height="30" fill="#1d2b21"/><circle cx="220" cy="50" r="40" fill="#c03"/></svg>"##
        );
        let parse = |svg: &str| super::super::tree_of(svg.as_bytes());
        let text = parse(&format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><text x="10" y="60" font-size="30" fill="#fff">Ab 12 Жж</text></svg>"##
        ))
        .expect("parses");
        let png = png(&base, &Layers::Trees(vec![text]), w, h, parse)
            .expect("renders")
            .expect("opaque");
        let kept = prepared(&base, w, h, parse)
            .expect("prepared")
            .expect("opaque");
        // The image's rows as stored: the IDAT chunks inflated, a filter byte before each row.
        let (mut at, mut idat) = (8, Vec::new());
        while at + 8 <= png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().expect("4")) as usize;
            if &png[at + 4..at + 8] == b"IDAT" {
                idat.extend_from_slice(&png[at + 8..at + 8 + len]);
            }
            at += 12 + len;
        }
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&idat[..]), &mut raw)
            .expect("inflates");
        let row = w as usize * 3 + 1;
        assert_eq!(raw.len(), row * h as usize);
        let filters: Vec<u8> = raw.iter().step_by(row).copied().collect();
        assert_eq!(filters, kept.filters);
        // And the text was drawn: the redrawn rows are not the kept ones.
        assert_ne!(
            image::load_from_memory(&png)
                .expect("decodes")
                .to_rgb8()
                .into_raw(),
            kept.rgb
        );
    }

    #[test]
    fn checksums_combine_as_the_whole_one() {
        let a = b"the first band".to_vec();
        let b: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = [a.as_slice(), b.as_slice()].concat();
        let (x, y) = (
            simd_adler32::adler32(&a.as_slice()),
            simd_adler32::adler32(&b.as_slice()),
        );
        assert_eq!(
            adler32_combine(x, y, b.len() as u64),
            simd_adler32::adler32(&whole.as_slice())
        );
        assert_eq!(adler32_combine(1, y, b.len() as u64), y);
    }

    #[test]
    fn rows_take_the_filters_they_are_given_and_come_back_whole() {
        let row = 12;
        let rgb: Vec<u8> = (0..row * 4).map(|i| (i * 37 % 251) as u8).collect();
        let mut sc = Scratch::default();
        // Up for the first row (none above) is Sub.
        let seg = segment_with(&rgb, row, Some(&[2, 0, 1, 2]), &mut sc).expect("segment");
        let kinds: Vec<u8> = sc.filtered.iter().step_by(row + 1).copied().collect();
        assert_eq!(kinds, [1, 0, 1, 2]);
        // Undone, the rows are the image again.
        let mut inflated = Vec::with_capacity(sc.filtered.len());
        flate2::Decompress::new(false)
            .decompress_vec(&seg.deflated, &mut inflated, flate2::FlushDecompress::Sync)
            .expect("inflates");
        assert_eq!(inflated, sc.filtered);
        let mut back: Vec<u8> = Vec::new();
        for (i, f) in inflated.chunks(row + 1).enumerate() {
            for j in 0..row {
                let a = if j >= 3 { back[i * row + j - 3] } else { 0 };
                let b = if i > 0 { back[(i - 1) * row + j] } else { 0 };
                back.push(match f[0] {
                    0 => f[1 + j],
                    1 => f[1 + j].wrapping_add(a),
                    _ => f[1 + j].wrapping_add(b),
                });
            }
        }
        assert_eq!(back, rgb);
        // Without filters given, each row's scores choose.
        segment_with(&rgb, row, None, &mut sc).expect("segment");
        let mut prev = None;
        for (i, cur) in rgb.chunks(row).enumerate() {
            assert_eq!(sc.filtered[i * (row + 1)], chosen(prev, cur));
            prev = Some(cur);
        }
    }

    #[test]
    fn filter_scores_are_the_plain_sums() {
        let abs = |x: u8| u32::from((x as i8).unsigned_abs());
        // A row longer than a block, with every byte value and a ragged end.
        let cur: Vec<u8> = (0..4455u32).map(|i| (i * 37 % 256) as u8).collect();
        let prev: Vec<u8> = (0..4455u32).map(|i| (i * 11 % 256) as u8).collect();
        let none: u32 = cur.iter().map(|&x| abs(x)).sum();
        let sub: u32 = cur[..3].iter().map(|&x| abs(x)).sum::<u32>()
            + (3..cur.len())
                .map(|j| abs(cur[j].wrapping_sub(cur[j - 3])))
                .sum::<u32>();
        let up: u32 = cur
            .iter()
            .zip(&prev)
            .map(|(&x, &b)| abs(x.wrapping_sub(b)))
            .sum();
        assert_eq!(scores(Some(&prev), &cur), (none, sub, up));
        assert_eq!(scores(None, &cur), (none, sub, u32::MAX));
        // The worst bytes (128: |-128|) fill every block to its bound without overflow.
        let worst = vec![128u8; 1000];
        assert_eq!(scores(None, &worst).0, 128_000);
    }

    #[test]
    fn dirty_bands_come_in_runs() {
        assert_eq!(
            runs(&[false, true, true, false, true]),
            vec![(1, 2), (4, 4)]
        );
        assert!(runs(&[false, false]).is_empty());
    }
}
