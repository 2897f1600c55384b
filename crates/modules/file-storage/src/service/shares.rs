//! Share images made per page and language, and the sweep of files nothing links any more.

use super::*;

impl Files {
    /// `GET /files/share/<lang>/<page>.png`: the share image of a page titled `title` on the
    /// site `site`, made once per (language, title, site) and kept.
    pub async fn share(
        self: &Arc<Self>,
        lang: &str,
        title: &str,
        site: &str,
        client: Option<std::net::IpAddr>,
        headers: &HeaderMap,
    ) -> Response {
        let id = share_id(lang, title, site);
        let key = format!("share/{id}.png");
        let data = json!({"title": title, "site": site, "language": lang});
        let made = self.made_once(&key, &key, move |this| async move {
            // Only a new image counts against its asker: one made already is served to anyone.
            if let Some(ip) = client {
                this.share_makes
                    .check(&stoa_api::rate::address_key(ip).to_string())?;
            }
            let png = this
                .on_pool("render", false, move || {
                    crate::render::png(crate::render::OPENGRAPH, 1200, 630, &data)
                })
                .await?;
            Ok(Some(Bytes::from(png)))
        });
        match made.await {
            Ok(None) => stoa_api::error::error_response(&not_found()),
            Ok(Some(b)) => {
                send(
                    headers,
                    b.len() as u64,
                    Whole(b),
                    &format!("\"{}\"", &id[..32]),
                    "image/png",
                    false,
                    false,
                )
                .await
            }
            Err(e) => stoa_api::error::error_response(&e),
        }
    }

    /// Deletes stored objects no file row points at (older than `grace`, so an upload whose row
    /// is being written is kept), and their sizes. Returns how many originals went.
    pub async fn sweep(&self, grace: Duration) -> Result<usize> {
        let e = self.store.entity("file-storage.file")?;
        let cutoff = now_secs() - grace.as_secs() as i64;
        let mut gone = 0;
        for (key, modified) in self.storage.list(None).await? {
            if key.contains('/') || modified > cutoff {
                continue;
            }
            let stem = key.split('.').next().unwrap_or_default();
            if !is_hash(stem) {
                continue;
            }
            let url = format!("/files/{key}");
            let used = !self
                .store
                .find_by(&e, &[("file", Val::Text(url))], 1)
                .await?
                .is_empty();
            if used {
                continue;
            }
            for (k, _) in self.storage.list(Some(&format!("sizes/{stem}"))).await? {
                self.storage.delete(&k).await?;
                self.cache.remove(&k);
            }
            self.storage.delete(&key).await?;
            self.cache.remove(&key);
            gone += 1;
        }
        // Share images past their keep: made again if still linked.
        let stale = now_secs() - SHARE_KEEP.as_secs() as i64;
        for (key, modified) in self.storage.list(Some("share")).await? {
            if modified < stale && key.ends_with(".png") {
                self.storage.delete(&key).await?;
                self.cache.remove(&key);
                gone += 1;
            }
        }
        Ok(gone)
    }
}
