//! Bytes kept ready to send: the original, gzip and brotli versions, and an ETag — compressed
//! once when they are made, so serving them is a lookup and a write.

use std::io::Write;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use sha2::{Digest, Sha256};

/// A response body in every encoding we send.
#[derive(Clone, Debug)]
pub struct Packed {
    pub raw: Bytes,
    pub gzip: Bytes,
    pub br: Bytes,
    /// A strong ETag, quoted: `"…"`.
    pub etag: String,
}

/// How a body is encoded on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Br,
}

impl Encoding {
    /// The `Content-Encoding` value, or `None` for identity.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Br => Some("br"),
        }
    }
}

/// The best encoding `accept` (an `Accept-Encoding` value) allows: brotli, then gzip, else none.
/// An encoding with `q=0` is refused; `*` allows both.
pub fn choose(accept: &str) -> Encoding {
    match allowed(accept) {
        (true, _) => Encoding::Br,
        (false, true) => Encoding::Gzip,
        (false, false) => Encoding::Identity,
    }
}

/// Whether `accept` allows `(brotli, gzip)`.
fn allowed(accept: &str) -> (bool, bool) {
    // For br and gzip: named with q > 0 (Some(true)), named with q = 0 (Some(false)), or not
    // named; `*` stands for those not named (RFC 9110 §12.5.3).
    let (mut br, mut gzip, mut star) = (None, None, false);
    for part in accept.split(',') {
        let mut it = part.split(';');
        let name = it.next().unwrap_or_default().trim().to_ascii_lowercase();
        let refused = it.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        match name.as_str() {
            "br" => br = Some(!refused),
            "gzip" | "x-gzip" => gzip = Some(!refused),
            "*" => star = !refused,
            _ => {}
        }
    }
    (br.unwrap_or(star), gzip.unwrap_or(star))
}

/// Compresses `raw` both ways (gzip level 9, brotli quality 7: made once, sent many times).
/// Brotli's quality 9 made the demo home page (149 KB) 0.6 % smaller than quality 7, in 17 ms
/// instead of 7.5, and allocated a 33 MB hash table for it (quality 7: ~12 MB at the peak),
/// which the allocator then held at rest.
pub fn pack(raw: Bytes) -> Packed {
    let etag = etag(&raw);
    let gzip = gzip(&raw, 9).unwrap_or_else(|| raw.clone());
    let br = brotli(&raw, 7).unwrap_or_else(|| raw.clone());
    Packed {
        raw,
        gzip,
        br,
        etag,
    }
}

/// `raw` gzipped at `level` (0–9); `None` if the encoder failed.
pub fn gzip(raw: &[u8], level: u32) -> Option<Bytes> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    gz.write_all(raw).ok()?;
    gz.finish().ok().map(Bytes::from)
}

/// `raw` in brotli at `quality` (0–11, 4 MB window); `None` if the encoder failed.
pub fn brotli(raw: &[u8], quality: i32) -> Option<Bytes> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: 22,
        size_hint: raw.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &raw[..], &mut out, &params).ok()?;
    Some(Bytes::from(out))
}

/// A strong ETag for `bytes`: the first 16 bytes of their SHA-256, hex, quoted.
pub fn etag(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(34);
    s.push('"');
    for b in &d[..16] {
        s.push_str(&format!("{b:02x}"));
    }
    s.push('"');
    s
}

/// Whether an `If-None-Match` value names `etag` in any of its encodings (`"…"`, `"…-br"`,
/// `"…-gz"`: one content, so any of them proves the client has it), or is `*`. Weak validators
/// match too.
pub fn matches(if_none_match: &str, etag: &str) -> bool {
    let base = etag.trim_matches('"');
    if_none_match.split(',').any(|t| {
        let t = t.trim();
        let t = t.strip_prefix("W/").unwrap_or(t).trim_matches('"');
        t == "*" || t == base || t.strip_suffix("-br").or(t.strip_suffix("-gz")) == Some(base)
    })
}

impl Packed {
    /// The body for `encoding`.
    pub fn body(&self, encoding: Encoding) -> &Bytes {
        match encoding {
            Encoding::Identity => &self.raw,
            Encoding::Gzip => &self.gzip,
            Encoding::Br => &self.br,
        }
    }

    /// The ETag of the body in `encoding`: each encoding is its own representation (caches
    /// that keep several by `Vary: Accept-Encoding` must not mix them up).
    pub fn etag_for(&self, encoding: Encoding) -> String {
        etag_for(&self.etag, encoding)
    }

    /// Bytes held, all encodings together.
    pub fn weight(&self) -> usize {
        self.raw.len() + self.gzip.len() + self.br.len() + self.etag.len()
    }
}

/// The ETag `etag` (quoted) of the body in `encoding`.
fn etag_for(etag: &str, encoding: Encoding) -> String {
    match encoding {
        Encoding::Identity => etag.to_owned(),
        Encoding::Gzip => format!("{}-gz\"", etag.trim_end_matches('"')),
        Encoding::Br => format!("{}-br\"", etag.trim_end_matches('"')),
    }
}

/// The best encoding the request's `Accept-Encoding` allows.
pub fn accepted(headers: &HeaderMap) -> Encoding {
    choose(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default(),
    )
}

/// `packed` as the answer to a request with `headers`: `304` when the client has it, else the
/// body in the best encoding it accepts, as `content_type`, revalidated on each use (`no-cache`).
pub fn respond(packed: &Packed, headers: &HeaderMap, content_type: &'static str) -> Response {
    let encoding = accepted(headers);
    answer(headers, &packed.etag, encoding, content_type, || {
        Body::from(packed.body(encoding).clone())
    })
}

/// The answer with the ETag `etag` (the content's, quoted) for `encoding`: `304` when the
/// request's `If-None-Match` names it in any encoding, else `body()` as `content_type`,
/// revalidated on each use (`no-cache`).
fn answer(
    headers: &HeaderMap,
    etag: &str,
    encoding: Encoding,
    content_type: &'static str,
    body: impl FnOnce() -> Body,
) -> Response {
    let tag = HeaderValue::from_str(&etag_for(etag, encoding)).ok();
    let has_it = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|inm| matches(inm, etag));
    let mut res = if has_it && tag.is_some() {
        let mut res = Response::new(Body::empty());
        *res.status_mut() = StatusCode::NOT_MODIFIED;
        res
    } else {
        let mut res = Response::new(body());
        let h = res.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        if let Some(v) = encoding.header() {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(v));
        }
        res
    };
    let h = res.headers_mut();
    if let Some(e) = tag {
        h.insert(header::ETAG, e);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    res
}

/// A large document made once at start (the OpenAPI document, 2.2 MB; `/api/meta`), kept
/// gzip-compressed: its raw bytes are held only until [`Lazy::settle`] packs it (on a blocking
/// thread beside the start, or for the first request that comes before), a tenth of the memory at
/// rest. Brotli is made from the gzip by the first request that prefers it; a request that accepts
/// neither gets the gzip inflated as it is sent, 64 KB at a time.
pub struct Lazy {
    raw: std::sync::Mutex<Option<Bytes>>,
    kept: std::sync::OnceLock<Kept>,
    br: tokio::sync::OnceCell<Option<Bytes>>,
}

/// A [`Lazy`] document once packed.
struct Kept {
    /// The gzip of the document, or the document itself when `gzipped` is false (the encoder
    /// failed, or the document was empty).
    bytes: Bytes,
    gzipped: bool,
    /// The document's strong ETag, quoted.
    etag: String,
}

/// How long one chunk of an inflated identity answer is.
const INFLATE_CHUNK: usize = 64 * 1024;

impl Lazy {
    pub fn new(raw: Bytes) -> Self {
        Self {
            raw: std::sync::Mutex::new(Some(raw)),
            kept: std::sync::OnceLock::new(),
            br: tokio::sync::OnceCell::new(),
        }
    }

    /// Packs the document now, if not done yet, and lets its raw bytes go. Blocks for the
    /// compression (~30 ms for the OpenAPI document): call it on a blocking thread.
    pub fn settle(&self) {
        self.packed();
    }

    fn packed(&self) -> &Kept {
        self.kept.get_or_init(|| {
            let raw = self
                .raw
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
                .unwrap_or_default();
            let etag = etag(&raw);
            match gzip(&raw, 9) {
                Some(gz) if !raw.is_empty() => Kept {
                    bytes: gz,
                    gzipped: true,
                    etag,
                },
                _ => Kept {
                    bytes: raw,
                    gzipped: false,
                    etag,
                },
            }
        })
    }

    /// The packed document, packed on a blocking thread by the first caller when
    /// [`Lazy::settle`] has not run yet.
    async fn kept(self: &Arc<Self>) -> &Kept {
        if self.kept.get().is_none() {
            let me = self.clone();
            if tokio::task::spawn_blocking(move || me.settle())
                .await
                .is_err()
            {
                // The blocking pool is gone (shutting down): pack here.
                self.settle();
            }
        }
        self.packed()
    }

    /// The brotli form, made once from the gzip on a blocking thread; `None` when it cannot be
    /// (the document is not gzipped, or an encoder failed).
    async fn brotli(self: &Arc<Self>) -> Option<Bytes> {
        let me = self.clone();
        self.br
            .get_or_init(|| async move {
                tokio::task::spawn_blocking(move || {
                    use std::io::Read;
                    let kept = me.packed();
                    if !kept.gzipped {
                        return None;
                    }
                    let mut raw = Vec::new();
                    flate2::read::GzDecoder::new(&kept.bytes[..])
                        .read_to_end(&mut raw)
                        .ok()?;
                    brotli(&raw, 7)
                })
                .await
                .ok()
                .flatten()
            })
            .await
            .clone()
    }

    /// The document as the answer to a request with `headers`, as [`respond`] answers with a
    /// [`Packed`] body: `304` when the client has it, else the best encoding it accepts.
    pub async fn respond(
        self: &Arc<Self>,
        headers: &HeaderMap,
        content_type: &'static str,
    ) -> Response {
        let kept = self.kept().await;
        let (takes_br, takes_gzip) = allowed(
            headers
                .get(header::ACCEPT_ENCODING)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default(),
        );
        let br = if takes_br && kept.gzipped {
            self.brotli().await
        } else {
            None
        };
        // Without brotli to send: gzip when the client takes it, else the document itself.
        let encoding = match (&br, takes_gzip && kept.gzipped) {
            (Some(_), _) => Encoding::Br,
            (None, true) => Encoding::Gzip,
            (None, false) => Encoding::Identity,
        };
        let body = move || match (encoding, br) {
            (Encoding::Br, Some(br)) => Body::from(br),
            (Encoding::Identity, _) if kept.gzipped => inflating(kept.bytes.clone()),
            _ => Body::from(kept.bytes.clone()),
        };
        answer(headers, &kept.etag, encoding, content_type, body)
    }
}

/// The gzip `gz` inflated as the body is sent, [`INFLATE_CHUNK`] at a time (the whole document is
/// never held: a slow reader holds one chunk).
fn inflating(gz: Bytes) -> Body {
    use std::io::Read;
    let mut inflate = flate2::read::GzDecoder::new(bytes::Buf::reader(gz));
    let mut failed = false;
    let chunks = std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let mut buf = vec![0u8; INFLATE_CHUNK];
        let mut n = 0;
        while n < buf.len() {
            match inflate.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) => {
                    failed = true;
                    return Some(Err(e));
                }
            }
        }
        if n == 0 {
            return None;
        }
        buf.truncate(n);
        Some(Ok(Bytes::from(buf)))
    });
    Body::from_stream(futures::stream::iter(chunks))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn choose_prefers_brotli_and_honours_q_zero() {
        assert_eq!(choose("gzip, deflate, br"), Encoding::Br);
        assert_eq!(choose("gzip"), Encoding::Gzip);
        assert_eq!(choose("br;q=0, gzip"), Encoding::Gzip);
        assert_eq!(choose("gzip;q=0"), Encoding::Identity);
        assert_eq!(choose(""), Encoding::Identity);
        assert_eq!(choose("identity"), Encoding::Identity);
        assert_eq!(choose("*"), Encoding::Br);
        assert_eq!(choose("GZIP ; q=0.5"), Encoding::Gzip);
        // `*` stands for what is not named: a refused brotli stays refused.
        assert_eq!(choose("br;q=0, *"), Encoding::Gzip);
        assert_eq!(choose("*, br;q=0, gzip;q=0"), Encoding::Identity);
        assert_eq!(choose("*;q=0, gzip"), Encoding::Gzip);
    }

    #[test]
    fn packed_bodies_decode_to_the_original() {
        let raw = Bytes::from("<p>Привет</p>".repeat(200));
        let p = pack(raw.clone());
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&p.gzip[..])
            .read_to_end(&mut out)
            .unwrap_or_default();
        assert_eq!(out, raw);
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &p.br[..], &mut out).unwrap_or_default();
        assert_eq!(out, raw);
        assert!(p.br.len() < raw.len() / 10 && p.gzip.len() < raw.len() / 10);
        assert_eq!(p.etag, etag(&raw));
        assert_eq!(p.etag.len(), 34);
    }

    /// A packed document lets its raw bytes go, and every encoding it answers in (the identity
    /// one inflated as it is sent, over several chunks) decodes to the original; a `304` for a
    /// client that has it in any encoding.
    #[tokio::test]
    async fn a_lazy_document_is_kept_gzipped_and_answers_in_every_encoding() {
        let raw: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("{{\"n\":{i}}},").into_bytes())
            .collect();
        assert!(raw.len() > 2 * INFLATE_CHUNK);
        let doc = Arc::new(Lazy::new(Bytes::from(raw.clone())));
        doc.settle();
        assert!(
            doc.raw.lock().expect("raw").is_none(),
            "the raw bytes are let go"
        );
        let ask = |accept: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(accept).expect("header"),
            );
            h
        };
        let body = |res: Response| async move {
            axum::body::to_bytes(res.into_body(), usize::MAX)
                .await
                .expect("body")
        };
        let mut etag = String::new();
        for (accept, encoding) in [
            ("identity", None),
            ("gzip", Some("gzip")),
            ("br, gzip", Some("br")),
        ] {
            let res = doc.respond(&ask(accept), "application/json").await;
            assert_eq!(res.status(), StatusCode::OK, "{accept}");
            assert_eq!(
                res.headers()
                    .get(header::CONTENT_ENCODING)
                    .map(|v| v.to_str().expect("ascii")),
                encoding,
                "{accept}"
            );
            etag = res.headers()[header::ETAG]
                .to_str()
                .expect("etag")
                .to_owned();
            let got = body(res).await;
            let mut out = Vec::new();
            match encoding {
                None => out = got.to_vec(),
                Some("gzip") => {
                    flate2::read::GzDecoder::new(&got[..])
                        .read_to_end(&mut out)
                        .expect("gunzip");
                }
                _ => brotli::BrotliDecompress(&mut &got[..], &mut out).expect("unbrotli"),
            }
            assert!(out == raw, "{accept}: the same document");
        }
        let mut again = ask("gzip");
        again.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(&etag).expect("etag"),
        );
        let res = doc.respond(&again, "application/json").await;
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    }

    /// The levels the kept API answers use (`crate::answers`) decode to the original too.
    #[test]
    fn compressed_bodies_decode_to_the_original() {
        let raw = Bytes::from("{\"data\":[{\"title\":\"Статья\"}]}".repeat(100));
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gzip(&raw, 6).expect("gzip")[..])
            .read_to_end(&mut out)
            .expect("gunzip");
        assert_eq!(out, raw);
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &brotli(&raw, 5).expect("brotli")[..], &mut out)
            .expect("unbrotli");
        assert_eq!(out, raw);
    }

    #[test]
    fn etags_match_strong_weak_and_star() {
        let e = "\"abc\"";
        assert!(matches("\"abc\"", e));
        assert!(matches("W/\"abc\"", e));
        assert!(matches("\"x\", \"abc\"", e));
        assert!(matches("*", e));
        assert!(!matches("\"abd\"", e));
        assert!(matches("\"abc-br\"", e));
        assert!(matches("W/\"abc-gz\"", e));
        assert!(!matches("\"abc-xx\"", e));
        assert!(!matches("", e));
    }
}
