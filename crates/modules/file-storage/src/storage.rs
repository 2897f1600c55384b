//! Where file bytes live: a local folder (`STOA_DATA_DIR/files`, the default) or an
//! S3-compatible bucket (`STOA_FILES=s3://bucket[/prefix]`), both through `object_store`.
//!
//! Keys are paths below the root: `<sha256>.<ext>` for uploads and generated files (content
//! addressed, so never rewritten), `sizes/<sha256>/<variant>.<ext>` for image sizes, and
//! `demo/…` for the demo site's images.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use stoa_api::config::FileConfig;
use stoa_kernel::{Error, Result};

#[derive(Clone, Debug)]
pub struct Storage {
    inner: Arc<dyn ObjectStore>,
    /// `disk` or `s3`, for logs and errors.
    pub backend: &'static str,
}

/// One stored object's size and last change (seconds since the epoch).
#[derive(Clone, Copy, Debug)]
pub struct Meta {
    pub size: u64,
    pub modified: i64,
}

fn path(key: &str) -> Result<Path> {
    Path::parse(key).map_err(|e| Error::bad_request(format!("bad file key '{key}': {e}")))
}

fn unavailable(backend: &str, e: object_store::Error) -> Error {
    Error::Unavailable(format!("file storage ({backend}) failed: {e}"))
}

impl Storage {
    /// The configured backend: `files` unset → the local folder `local_root`.
    pub fn from_config(
        cfg: &FileConfig,
        local_root: &std::path::Path,
    ) -> stoa_api::module::ModuleResult<Self> {
        match cfg.files.as_deref().filter(|f| !f.is_empty()) {
            None => Self::local(local_root),
            Some(url) => {
                let rest = url.strip_prefix("s3://").ok_or_else(|| {
                    format!("STOA_FILES must be s3://bucket[/prefix] (or unset for the data folder), not '{url}'")
                })?;
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                if bucket.is_empty() {
                    return Err("STOA_FILES names no bucket (s3://bucket)".into());
                }
                let mut b = object_store::aws::AmazonS3Builder::new()
                    .with_bucket_name(bucket)
                    .with_region(&cfg.s3_region)
                    .with_virtual_hosted_style_request(false);
                if let Some(e) = &cfg.s3_endpoint {
                    b = b.with_endpoint(e).with_allow_http(e.starts_with("http://"));
                }
                match (&cfg.s3_access_key_id, &cfg.s3_secret_access_key) {
                    (Some(k), Some(s)) => {
                        b = b.with_access_key_id(k).with_secret_access_key(s);
                    }
                    (None, None) => {}
                    _ => {
                        return Err("set both STOA_S3_ACCESS_KEY_ID and STOA_S3_SECRET_ACCESS_KEY, or neither".into());
                    }
                }
                let store = b.build().map_err(|e| format!("STOA_FILES: {e}"))?;
                let inner: Arc<dyn ObjectStore> = if prefix.trim_matches('/').is_empty() {
                    Arc::new(store)
                } else {
                    Arc::new(object_store::prefix::PrefixStore::new(
                        store,
                        prefix.trim_matches('/'),
                    ))
                };
                Ok(Self {
                    inner,
                    backend: "s3",
                })
            }
        }
    }

    /// A folder on this machine (created when missing).
    pub fn local(root: &std::path::Path) -> stoa_api::module::ModuleResult<Self> {
        std::fs::create_dir_all(root)
            .map_err(|e| format!("cannot create the files folder {}: {e}", root.display()))?;
        let fs = object_store::local::LocalFileSystem::new_with_prefix(root)
            .map_err(|e| format!("files folder {}: {e}", root.display()))?;
        Ok(Self {
            inner: Arc::new(fs),
            backend: "disk",
        })
    }

    /// Writes `bytes` under `key` (whole or not at all: both backends write atomically).
    pub async fn put(&self, key: &str, bytes: Bytes) -> Result<()> {
        self.inner
            .put(&path(key)?, PutPayload::from_bytes(bytes))
            .await
            .map(|_| ())
            .map_err(|e| unavailable(self.backend, e))
    }

    /// Size and last change of `key`, or `None` when nothing is stored there.
    pub async fn meta(&self, key: &str) -> Result<Option<Meta>> {
        match self.inner.head(&path(key)?).await {
            Ok(m) => Ok(Some(Meta {
                size: m.size,
                modified: m.last_modified.timestamp(),
            })),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(self.backend, e)),
        }
    }

    /// The whole object, or `None`.
    pub async fn read(&self, key: &str) -> Result<Option<Bytes>> {
        match self.inner.get(&path(key)?).await {
            Ok(r) => r
                .bytes()
                .await
                .map(Some)
                .map_err(|e| unavailable(self.backend, e)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(self.backend, e)),
        }
    }

    /// Bytes `range` of the object.
    pub async fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes> {
        self.inner
            .get_range(&path(key)?, range)
            .await
            .map_err(|e| unavailable(self.backend, e))
    }

    pub async fn delete(&self, key: &str) -> Result<()> {
        match self.inner.delete(&path(key)?).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(unavailable(self.backend, e)),
        }
    }

    /// Keys directly or deeply below `prefix` (`None`: everything) with their last change.
    pub async fn list(&self, prefix: Option<&str>) -> Result<Vec<(String, i64)>> {
        let p = prefix.map(path).transpose()?;
        self.inner
            .list(p.as_ref())
            .map_ok(|m| (m.location.to_string(), m.last_modified.timestamp()))
            .try_collect()
            .await
            .map_err(|e| unavailable(self.backend, e))
    }
}
