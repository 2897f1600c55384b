//! Serving stored files: sizes and formats made once, ranges, validators and caching headers.

use super::*;

impl Files {
    /// `GET /files/<key>[?w=&h=&fit=&format=]`.
    pub async fn serve(
        self: &Arc<Self>,
        key: &str,
        query: Option<&str>,
        client: Option<std::net::IpAddr>,
        headers: &HeaderMap,
    ) -> Response {
        match self.try_serve(key, query, client, headers).await {
            Ok(r) => r,
            Err(e) => stoa_api::error::error_response(&e),
        }
    }

    pub(super) async fn try_serve(
        self: &Arc<Self>,
        key: &str,
        query: Option<&str>,
        client: Option<std::net::IpAddr>,
        headers: &HeaderMap,
    ) -> Result<Response> {
        if !safe_key(key) {
            return Err(not_found());
        }
        let ext = ext_of(key).unwrap_or_default();
        let kind = sniff::by_ext(ext);
        let stem = key
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .split('.')
            .next()
            .unwrap_or_default();
        let addressed = is_hash(stem) && !key.contains('/');
        let size = match kind {
            Some(k) => sizes::parse(query, k)?,
            None => None,
        };
        if size.is_some() && !addressed {
            return Err(Error::bad_request(
                "sizes are made only for uploaded raster images (/files/<sha256>.<png|jpg|webp|gif>)",
            ));
        }
        if let (Some(size), Some(k)) = (size, kind) {
            return self.serve_size(key, stem, k, size, client, headers).await;
        }
        let mime = kind.map_or("application/octet-stream", |k| k.mime);
        // SVG can script and PDF can carry JavaScript: opened directly they download instead of
        // running on our origin (an <img> still shows an SVG).
        let attachment = kind.is_none_or(|k| matches!(k.ext, "svg" | "pdf"));
        if addressed {
            return self
                .serve_addressed(key, stem, mime, attachment, headers)
                .await;
        }
        let meta = self.storage.meta(key).await?.ok_or_else(not_found)?;
        let etag = format!("\"{:x}-{:x}\"", meta.size, meta.modified);
        Ok(send(
            headers,
            meta.size,
            Ranged(self, key),
            &etag,
            mime,
            false,
            attachment,
        )
        .await)
    }

    /// Serves the stored size `size` of the uploaded image `key` (made now when missing).
    async fn serve_size(
        self: &Arc<Self>,
        key: &str,
        stem: &str,
        kind: &Kind,
        size: Size,
        client: Option<std::net::IpAddr>,
        headers: &HeaderMap,
    ) -> Result<Response> {
        let (vkey, bytes) = self
            .sized(key, kind, size, client)
            .await?
            .ok_or_else(not_found)?;
        let etag = format!("\"{stem}-{}\"", vkey.rsplit('/').next().unwrap_or_default());
        Ok(send(
            headers,
            bytes.len() as u64,
            Whole(bytes),
            &etag,
            size.format.mime(),
            true,
            false,
        )
        .await)
    }

    /// Serves the uploaded (content-addressed) file `key`: small objects come whole from the
    /// memory cache (filled on first read); larger ones are read by range from storage.
    async fn serve_addressed(
        &self,
        key: &str,
        stem: &str,
        mime: &'static str,
        attachment: bool,
        headers: &HeaderMap,
    ) -> Result<Response> {
        let etag = format!("\"{stem}\"");
        let hit = self.cache.get(key);
        stoa_api::metrics::METRICS.cache_lookup("file", hit.is_some());
        let small = match hit {
            Some(b) => Some(b),
            None => {
                let meta = self.storage.meta(key).await?.ok_or_else(not_found)?;
                if meta.size as usize > CACHE_OBJECT_MAX {
                    return Ok(send(
                        headers,
                        meta.size,
                        Ranged(self, key),
                        &etag,
                        mime,
                        true,
                        attachment,
                    )
                    .await);
                }
                self.object(key, true).await?
            }
        };
        let b = small.ok_or_else(not_found)?;
        Ok(send(
            headers,
            b.len() as u64,
            Whole(b),
            &etag,
            mime,
            true,
            attachment,
        )
        .await)
    }
}
