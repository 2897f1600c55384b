//! What a file is, from its bytes: the type (never the client's claim), an allow-list of types,
//! image dimensions from the header only (a decompression bomb is refused before any pixel is
//! decoded), and a safe version of the original name kept as metadata.

use stoa_kernel::{Error, Result};

/// A type we keep: its MIME type and the extension stored files get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub mime: &'static str,
    pub ext: &'static str,
    /// Raster images we can decode (sizes on demand).
    pub raster: bool,
}

/// The allow-list: images, video, audio and PDF. Nothing a browser would run as a document.
pub const ALLOWED: &[Kind] = &[
    Kind {
        mime: "image/png",
        ext: "png",
        raster: true,
    },
    Kind {
        mime: "image/jpeg",
        ext: "jpg",
        raster: true,
    },
    Kind {
        mime: "image/webp",
        ext: "webp",
        raster: true,
    },
    Kind {
        mime: "image/gif",
        ext: "gif",
        raster: true,
    },
    Kind {
        mime: "image/avif",
        ext: "avif",
        raster: false,
    },
    Kind {
        mime: "image/svg+xml",
        ext: "svg",
        raster: false,
    },
    Kind {
        mime: "video/mp4",
        ext: "mp4",
        raster: false,
    },
    Kind {
        mime: "video/webm",
        ext: "webm",
        raster: false,
    },
    Kind {
        mime: "audio/mpeg",
        ext: "mp3",
        raster: false,
    },
    Kind {
        mime: "audio/ogg",
        ext: "ogg",
        raster: false,
    },
    Kind {
        mime: "application/pdf",
        ext: "pdf",
        raster: false,
    },
];

/// The kind of a stored file by its extension (for serving).
pub fn by_ext(ext: &str) -> Option<&'static Kind> {
    let ext = ext.to_ascii_lowercase();
    let ext = if ext == "jpeg" { "jpg" } else { ext.as_str() };
    ALLOWED.iter().find(|k| k.ext == ext)
}

fn allowed_list() -> String {
    ALLOWED.iter().map(|k| k.ext).collect::<Vec<_>>().join(", ")
}

/// The type of `bytes`, refused when it is not on the allow-list (whatever the name says).
pub fn kind(field: &str, bytes: &[u8]) -> Result<&'static Kind> {
    if bytes.is_empty() {
        return Err(Error::invalid_field(field, "the file is empty"));
    }
    let mime = match infer::get(bytes).map(|t| t.mime_type()) {
        Some("text/xml" | "application/xml") | None if is_svg(bytes) => "image/svg+xml",
        Some(m) => m,
        None => "",
    };
    ALLOWED.iter().find(|k| k.mime == mime).ok_or_else(|| {
        let seen = if mime.is_empty() {
            "an unrecognised type".to_owned()
        } else {
            format!("'{mime}'")
        };
        Error::UnsupportedMediaType(format!(
            "{field}: the file's content is {seen}, which is not accepted; allowed types: {}",
            allowed_list()
        ))
    })
}

/// An SVG document: UTF-8 text whose root element is `<svg` (after an optional XML declaration,
/// comments and doctype).
fn is_svg(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let Ok(text) =
        std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
    else {
        return false;
    };
    let mut t = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(rest) = t.strip_prefix("<?xml") {
            t = rest.split_once("?>").map_or("", |x| x.1).trim_start();
        } else if let Some(rest) = t.strip_prefix("<!--") {
            t = rest.split_once("-->").map_or("", |x| x.1).trim_start();
        } else if t.len() >= 9 && t[..9].eq_ignore_ascii_case("<!doctype") {
            t = t.split_once('>').map_or("", |x| x.1).trim_start();
        } else {
            break;
        }
    }
    t.starts_with("<svg") && t[4..].starts_with(|c: char| c.is_whitespace() || c == '>')
}

/// Width and height of an image, read from its header; `(0, 0)` for other files. An image larger
/// than `max_pixels` is refused here, before anything is decoded.
pub fn dimensions(field: &str, kind: &Kind, bytes: &[u8], max_pixels: u64) -> Result<(u32, u32)> {
    let (w, h) = if kind.raster {
        let format = image::ImageFormat::from_mime_type(kind.mime)
            .ok_or_else(|| Error::internal(format!("no decoder for {}", kind.mime)))?;
        image::ImageReader::with_format(std::io::Cursor::new(bytes), format)
            .into_dimensions()
            .map_err(|e| Error::invalid_field(field, format!("the image cannot be read: {e}")))?
    } else if kind.mime == "image/svg+xml" {
        svg_size(bytes).unwrap_or((0, 0))
    } else {
        (0, 0)
    };
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(Error::invalid_field(
            field,
            format!(
                "the image is {w} × {h} pixels; at most {max_pixels} pixels are accepted (STOA_IMAGE_MAX_PIXELS)"
            ),
        ));
    }
    Ok((w, h))
}

fn svg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let tree = resvg::usvg::Tree::from_data(bytes, &resvg::usvg::Options::default()).ok()?;
    let s = tree.size();
    Some((s.width().round() as u32, s.height().round() as u32))
}

/// The original file name without a path, control characters or anything but letters, digits,
/// spaces and `.-_()`, at most 200 characters; kept only as metadata, never as a path.
pub fn clean_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = base
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| {
            if c.is_alphanumeric() || " .-_()".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(200)
        .collect();
    cleaned.trim().trim_start_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([10, 200, 30]));
        assert!(img.write_to(&mut out, image::ImageFormat::Png).is_ok());
        out.into_inner()
    }

    /// A valid PNG header claiming `w` × `h` with the pixel data of a 1 × 1 image.
    pub fn bomb(w: u32, h: u32) -> Vec<u8> {
        let mut b = png(1, 1);
        b[16..20].copy_from_slice(&w.to_be_bytes());
        b[20..24].copy_from_slice(&h.to_be_bytes());
        let crc = crc32fast::hash(&b[12..29]);
        b[29..33].copy_from_slice(&crc.to_be_bytes());
        b
    }

    #[test]
    fn types_come_from_the_bytes() {
        assert_eq!(kind("file", &png(2, 2)).map(|k| k.ext).ok(), Some("png"));
        let html = b"<!doctype html><html><script>alert(1)</script></html>";
        let e = kind("file", html).err().map(|e| e.status());
        assert_eq!(e, Some(415));
        assert_eq!(
            kind(
                "file",
                b"<?xml version=\"1.0\"?>\n<!-- c --><svg xmlns=\"http://www.w3.org/2000/svg\"/>"
            )
            .map(|k| k.mime)
            .ok(),
            Some("image/svg+xml")
        );
        assert!(kind("file", b"<svgx>").is_err());
        assert!(kind("file", b"").is_err());
    }

    #[test]
    fn dimensions_come_from_the_header_and_bombs_are_refused() {
        let k = &ALLOWED[0];
        assert_eq!(dimensions("file", k, &png(3, 2), 10).ok(), Some((3, 2)));
        // A header claiming 50 000 × 50 000: refused without decoding (the data is 1 px).
        assert_eq!(dimensions("file", k, &bomb(7, 5), 100).ok(), Some((7, 5)));
        let err = dimensions("file", k, &bomb(50_000, 50_000), 40_000_000).err();
        assert_eq!(err.map(|e| e.status()), Some(422));
    }

    #[test]
    fn names_lose_paths_and_odd_characters() {
        assert_eq!(clean_name("../../etc/passwd"), "passwd");
        assert_eq!(clean_name("C:\\x\\фото 1.png"), "фото 1.png");
        assert_eq!(clean_name("a<b>\"c\u{0}.png"), "a_b__c.png");
        assert_eq!(clean_name(".htaccess"), "htaccess");
    }
}
