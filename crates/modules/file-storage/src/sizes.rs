//! Image sizes on demand: `?w=&h=&fit=&format=` on a stored raster image. Widths and heights
//! come from an allow-list (a crawler cannot make a million variants); each variant is made once,
//! stored beside the original and served like any file from then on. Decoding is bounded: the
//! header's pixel count is checked before decoding, the decoder has memory limits, and decodes
//! run on the blocking pool a few at a time.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, imageops::FilterType};
use stoa_kernel::{Error, Result};

use crate::sniff::Kind;

/// The widths (and heights) a size may have.
pub const WIDTHS: &[u32] = &[64, 128, 256, 384, 640, 800, 1080, 1280, 1920];

/// The box a size is made in when it names no side (`?format=webp`): the original is never
/// re-encoded whole on request, only up to this.
pub const DEFAULT_BOX: u32 = 1920;

/// The largest side an AVIF variant has: the encoder's time and memory grow with the pixels it
/// writes (the review saw 31 CPU-s and 1.4 GB for one 40-megapixel AVIF), so larger asks are
/// made at this size.
pub const AVIF_BOX: u32 = 1280;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Fill the box, cropping the overflow (needs both `w` and `h`).
    Cover,
    /// Fit inside the box, keeping the whole image.
    Contain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Webp,
    Jpeg,
    Png,
    /// AV1 (rav1e, pure Rust): the smallest photographs, slowest to make.
    Avif,
}

impl Format {
    pub fn ext(self) -> &'static str {
        match self {
            Format::Webp => "webp",
            Format::Jpeg => "jpg",
            Format::Png => "png",
            Format::Avif => "avif",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Webp => "image/webp",
            Format::Jpeg => "image/jpeg",
            Format::Png => "image/png",
            Format::Avif => "image/avif",
        }
    }
}

/// One requested size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// 0: follow the other side.
    pub w: u32,
    pub h: u32,
    pub fit: Fit,
    pub format: Format,
}

impl Size {
    /// The stored variant's name (`w800-h0-contain.webp`).
    pub fn variant(&self) -> String {
        let fit = match self.fit {
            Fit::Cover => "cover",
            Fit::Contain => "contain",
        };
        format!("w{}-h{}-{fit}.{}", self.w, self.h, self.format.ext())
    }
}

fn side(name: &str, v: &str) -> Result<u32> {
    let n: u32 = v
        .parse()
        .map_err(|_| Error::bad_field(name, format!("'{v}' is not a whole number")))?;
    if !WIDTHS.contains(&n) {
        return Err(Error::bad_field(
            name,
            format!(
                "{n} is not an offered size; use one of {}",
                WIDTHS
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(n)
}

/// The size a query asks for; `None` when it asks for none (the original). Unknown parameters
/// are refused, so a typo is not silently served the original.
pub fn parse(query: Option<&str>, original: &Kind) -> Result<Option<Size>> {
    let Some(q) = query.filter(|q| !q.is_empty()) else {
        return Ok(None);
    };
    let (mut w, mut h, mut fit, mut format) = (0, 0, None, None);
    for (k, v) in url::form_urlencoded::parse(q.as_bytes()) {
        match &*k {
            "w" => w = side("w", &v)?,
            "h" => h = side("h", &v)?,
            "fit" => {
                fit = Some(match &*v {
                    "cover" => Fit::Cover,
                    "contain" => Fit::Contain,
                    _ => return Err(Error::bad_field("fit", "use cover or contain")),
                })
            }
            "format" => {
                format = Some(match &*v {
                    "webp" => Format::Webp,
                    "jpeg" | "jpg" => Format::Jpeg,
                    "png" => Format::Png,
                    "avif" => Format::Avif,
                    _ => return Err(Error::bad_field("format", "use avif, webp, jpeg or png")),
                })
            }
            // Cache busters some CDNs and editors add.
            "v" => {}
            other => {
                return Err(Error::bad_field(
                    other,
                    "unknown parameter; sizes take w, h, fit and format",
                ));
            }
        }
    }
    if w == 0 && h == 0 && format.is_none() {
        return Ok(None);
    }
    if !original.raster {
        return Err(Error::bad_request(format!(
            "{} files are served as they are; sizes are made for png, jpeg, webp and gif",
            original.ext
        )));
    }
    let format = format.unwrap_or(match original.ext {
        "png" | "gif" => Format::Png,
        "jpg" => Format::Jpeg,
        _ => Format::Webp,
    });
    let fit = fit.unwrap_or(if w > 0 && h > 0 {
        Fit::Cover
    } else {
        Fit::Contain
    });
    Ok(Some(Size { w, h, fit, format }.bounded()))
}

impl Size {
    /// This size within what a request may make: no side means [`DEFAULT_BOX`], AVIF sides at
    /// most [`AVIF_BOX`] (the variant's name says what was made, so asks that end the same share
    /// one variant).
    pub fn bounded(self) -> Self {
        let mut s = self;
        if s.w == 0 && s.h == 0 {
            s.w = DEFAULT_BOX;
            s.h = DEFAULT_BOX;
            s.fit = Fit::Contain;
        }
        if s.format == Format::Avif && s.w.max(s.h) > AVIF_BOX {
            // Scaled as a whole, so a cropped size keeps its shape (1920 × 1080 → 1280 × 720).
            let (w, h) = (u64::from(s.w), u64::from(s.h));
            let side = w.max(h);
            s.w = (w * u64::from(AVIF_BOX) / side) as u32;
            s.h = (h * u64::from(AVIF_BOX) / side) as u32;
        }
        s
    }

    /// Whether making this size from an original of `pixels` is slow work (AVIF, or a large
    /// original to decode): slow work runs one at a time, so it never takes every worker.
    pub fn heavy(&self, pixels: u64) -> bool {
        self.format == Format::Avif || pixels > HEAVY_PIXELS
    }
}

/// Originals over this many pixels are slow to decode and shrink.
pub const HEAVY_PIXELS: u64 = 12_000_000;

/// Decodes `bytes` (at most `max_pixels`) and makes `size`. Never enlarges the image.
pub fn make(bytes: &[u8], kind: &Kind, size: Size, max_pixels: u64) -> Result<Vec<u8>> {
    let format = ImageFormat::from_mime_type(kind.mime)
        .ok_or_else(|| Error::bad_request(format!("{} cannot be resized", kind.mime)))?;
    // The pixel count from the header first: a bomb is refused before anything is decoded.
    crate::sniff::dimensions("file", kind, bytes, max_pixels)?;
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(max_pixels.saturating_mul(5));
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| Error::invalid_field("file", format!("the image cannot be decoded: {e}")))?;
    let out = resize(img, size);
    encode(&out, size.format)
}

fn resize(img: DynamicImage, size: Size) -> DynamicImage {
    let (w0, h0) = (img.width(), img.height());
    let (w, h) = (size.w.min(w0), size.h.min(h0));
    // A much larger original is first shrunk with a fast box filter to twice the target, so the
    // fine filter below works on a few megapixels, not forty.
    let (tw, th) = (
        if w > 0 {
            w
        } else {
            (u64::from(w0) * u64::from(h) / u64::from(h0.max(1))) as u32
        },
        if h > 0 {
            h
        } else {
            (u64::from(h0) * u64::from(w) / u64::from(w0.max(1))) as u32
        },
    );
    let factor = (w0 / (2 * tw).max(1)).min(h0 / (2 * th).max(1));
    let img = if factor >= 2 {
        img.thumbnail_exact((w0 / factor).max(1), (h0 / factor).max(1))
    } else {
        img
    };
    let (w0, h0) = (img.width(), img.height());
    let (w, h) = (w.min(w0), h.min(h0));
    match (w, h, size.fit) {
        (0, 0, _) => img,
        (w, 0, _) => img.resize(w, u32::MAX, FilterType::CatmullRom),
        (0, h, _) => img.resize(u32::MAX, h, FilterType::CatmullRom),
        (w, h, Fit::Cover) => img.resize_to_fill(w, h, FilterType::CatmullRom),
        (w, h, Fit::Contain) => img.resize(w, h, FilterType::CatmullRom),
    }
}

/// AVIF encoder speed (1 slowest … 10 fastest) and quality (1 … 100): speed 8 makes an 800-px
/// photograph in well under a second on one core, quality 60 looks like JPEG 82 at about half
/// its bytes.
const AVIF_SPEED: u8 = 8;
const AVIF_QUALITY: u8 = 60;

/// Encodes `img` (jpeg at quality 82; webp is lossless: the pure-Rust encoder makes no lossy
/// webp; avif lossy, see [`AVIF_QUALITY`]).
pub fn encode(img: &DynamicImage, format: Format) -> Result<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    let res = match format {
        Format::Png => img.write_to(&mut out, ImageFormat::Png),
        Format::Webp => img.to_rgba8().write_to(&mut out, ImageFormat::WebP),
        Format::Jpeg => {
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 82);
            img.to_rgb8().write_with_encoder(enc)
        }
        Format::Avif => {
            let enc = image::codecs::avif::AvifEncoder::new_with_speed_quality(
                &mut out,
                AVIF_SPEED,
                AVIF_QUALITY,
            );
            img.to_rgba8().write_with_encoder(enc)
        }
    };
    res.map_err(|e| Error::internal(format!("encoding the image: {e}")))?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sniff::by_ext;

    #[test]
    fn only_offered_sizes_are_made() {
        let png = by_ext("png").copied().unwrap_or(crate::sniff::ALLOWED[0]);
        assert_eq!(parse(None, &png).ok(), Some(None));
        assert_eq!(parse(Some("v=3"), &png).ok(), Some(None));
        let s = parse(Some("w=800&format=webp"), &png).ok().flatten();
        assert_eq!(s.map(|s| s.variant()), Some("w800-h0-contain.webp".into()));
        let s = parse(Some("w=256&h=256"), &png).ok().flatten();
        assert_eq!(s.map(|s| s.variant()), Some("w256-h256-cover.png".into()));
        // AVIF within its box, keeping a crop's shape; no side means the default box.
        let s = parse(Some("w=1920&h=1080&format=avif"), &png)
            .ok()
            .flatten();
        assert_eq!(s.map(|s| s.variant()), Some("w1280-h720-cover.avif".into()));
        let s = parse(Some("format=webp"), &png).ok().flatten();
        assert_eq!(
            s.map(|s| s.variant()),
            Some("w1920-h1920-contain.webp".into())
        );
        for bad in [
            "w=801",
            "w=-1",
            "w=abc",
            "format=bmp",
            "fit=fill",
            "x=1",
            "format=heic",
        ] {
            assert_eq!(
                parse(Some(bad), &png).err().map(|e| e.status()),
                Some(400),
                "{bad}"
            );
        }
        let svg = by_ext("svg").copied().unwrap_or(crate::sniff::ALLOWED[0]);
        assert!(parse(Some("w=64"), &svg).is_err());
    }

    #[test]
    fn sizes_keep_the_ratio_and_never_enlarge() {
        let mut src = Cursor::new(Vec::new());
        let img = image::RgbImage::from_pixel(300, 150, image::Rgb([1, 2, 3]));
        assert!(img.write_to(&mut src, ImageFormat::Png).is_ok());
        let png = by_ext("png").copied().unwrap_or(crate::sniff::ALLOWED[0]);
        let size = |w, h, fit, format| Size { w, h, fit, format };
        let dims = |bytes: Vec<u8>| {
            image::load_from_memory(&bytes)
                .map(|i| (i.width(), i.height()))
                .ok()
        };
        let out = make(
            src.get_ref(),
            &png,
            size(128, 0, Fit::Contain, Format::Webp),
            1_000_000,
        );
        assert_eq!(out.ok().and_then(dims), Some((128, 64)));
        let out = make(
            src.get_ref(),
            &png,
            size(64, 64, Fit::Cover, Format::Jpeg),
            1_000_000,
        );
        assert_eq!(out.ok().and_then(dims), Some((64, 64)));
        let out = make(
            src.get_ref(),
            &png,
            size(640, 0, Fit::Contain, Format::Png),
            1_000_000,
        );
        assert_eq!(out.ok().and_then(dims), Some((300, 150)));
        let out = make(
            src.get_ref(),
            &png,
            size(64, 0, Fit::Contain, Format::Png),
            1000,
        );
        assert_eq!(out.err().map(|e| e.status()), Some(422));
    }
}
