//! The file service: keeps uploads (content addressed, sniffed, measured), makes image sizes,
//! downloads from URLs, renders file templates, and serves `/files/…`.

mod serving;
mod shares;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use stoa_api::body::FilePart;
use stoa_api::files::{Stored, Uploads};
use stoa_api::module::BoxFuture;
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store};
use tokio::sync::Semaphore;

use crate::fetch::Fetcher;
use crate::sizes::{self, Size};
use crate::sniff::{self, Kind};
use crate::storage::Storage;

/// Objects up to this size are kept in memory once read (content-addressed ones only).
const CACHE_OBJECT_MAX: usize = 512 << 10;
/// Longest a request waits for one decode or render.
const WORK_TIMEOUT: Duration = Duration::from_secs(20);
/// Bytes the in-memory cache may hold.
const CACHE_BYTES: u64 = 64 << 20;

#[derive(Clone)]
struct ByLen;

impl quick_cache::Weighter<String, Bytes> for ByLen {
    fn weight(&self, _: &String, v: &Bytes) -> u64 {
        v.len() as u64 + 64
    }
}

pub struct Files {
    pub storage: Storage,
    store: Store,
    pub max_pixels: u64,
    upload_limit: usize,
    fetcher: Fetcher,
    cache: quick_cache::sync::Cache<String, Bytes, ByLen>,
    /// Decodes and renders at once (each can take a core for a while).
    work: Arc<Semaphore>,
    /// Slow sizes (AVIF, large originals) at once: one, so small resizes always find a worker.
    heavy: Arc<Semaphore>,
    /// One maker per original: its sizes are made one after another, and concurrent requests for
    /// a missing size wait for the first.
    making: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Images (sizes, share images) being made or waiting to be (past [`MAX_PENDING`] a new one
    /// is a 503 at once).
    pending: std::sync::atomic::AtomicUsize,
    /// Share images one client address may have made (not served: made) per window.
    share_makes: stoa_api::rate::Keyed,
    /// Image sizes one client address may have made per window.
    size_makes: stoa_api::rate::Keyed,
}

/// Share images one address may have made in [`SHARE_MAKES_WINDOW`]; ones already made are
/// served to anyone without counting.
const SHARE_MAKES: u32 = 30;
const SHARE_MAKES_WINDOW: Duration = Duration::from_secs(600);
/// Share images are kept this long after they were made; one still linked is made again on its
/// next request (a page whose title changed links a new one, so the old one is never asked for).
const SHARE_KEEP: Duration = Duration::from_secs(7 * 24 * 3600);

/// Images made or queued at once.
const MAX_PENDING: usize = 32;

/// An image counted in [`Files::pending`] until dropped.
struct Pending(Arc<Files>);

impl Drop for Pending {
    fn drop(&mut self) {
        self.0
            .pending
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Who waits for a render: a request ([`Pace::Asked`]: the blocking pool, a few at once, a 503
/// past [`WORK_TIMEOUT`]) or nobody ([`Pace::Background`]: the [`quiet`] threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    Asked,
    Background,
}

/// The threads background renders run on (one per core, made on first use), at the lowest CPU
/// priority: a receipt takes what requests and payments leave of the cores, so under a burst of
/// checkouts the receipts wait instead of slowing the payments, and catch up when it is over
/// (docs/files.md; the figures are in docs/benchmarks.md). On Linux a thread's nice value is
/// its own; elsewhere they run at the normal priority.
fn quiet() -> Result<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<std::result::Result<rayon::ThreadPool, String>> =
        std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(std::thread::available_parallelism().map_or(2, |n| n.get()))
            .thread_name(|i| format!("stoa-quiet-{i}"))
            .start_handler(|_| lowest_priority())
            .panic_handler(|_| tracing::error!("a background render panicked"))
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| Error::internal(format!("background render threads: {e}")))
}

/// Runs `f` on the [`quiet`] threads; a panic in it is an error here (and a logged one there).
async fn quietly<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    quiet()?.spawn(move || {
        let _ = tx.send(f());
    });
    rx.await
        .map_err(|_| Error::internal("the background render ended without an answer"))?
}

#[cfg(target_os = "linux")]
fn lowest_priority() {
    let me = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(me), 19) {
        tracing::warn!(error = %e, "background render thread: could not lower its priority");
    }
}

#[cfg(not(target_os = "linux"))]
fn lowest_priority() {}

/// `<64 hex>` — the name of a content-addressed object.
fn is_hash(stem: &str) -> bool {
    stem.len() == 64
        && stem
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// `/files/<key>` → `<key>`.
pub fn key_of_url(url: &str) -> Option<&str> {
    url.strip_prefix("/files/").filter(|k| safe_key(k))
}

pub use stoa_api::files::{safe_key, share_id, share_version};

impl Files {
    pub fn new(
        storage: Storage,
        store: Store,
        config: &stoa_api::config::Config,
    ) -> stoa_api::module::ModuleResult<Self> {
        let f = &config.files;
        Ok(Self {
            storage,
            store,
            max_pixels: f.image_max_pixels,
            upload_limit: config.upload_limit,
            fetcher: Fetcher {
                allow: crate::fetch::parse_allow(f.fetch_allow.as_deref())?,
                timeout: Duration::from_secs(f.fetch_timeout.max(1)),
                max_bytes: config.upload_limit,
            },
            cache: quick_cache::sync::Cache::with_weighter(4096, CACHE_BYTES, ByLen),
            work: Arc::new(Semaphore::new(
                std::thread::available_parallelism()
                    .map_or(2, |n| n.get())
                    .max(1),
            )),
            heavy: Arc::new(Semaphore::new(1)),
            making: Mutex::new(HashMap::new()),
            pending: std::sync::atomic::AtomicUsize::new(0),
            // Image sizes one address may have made in a window (`STOA_IMAGE_SIZES_PER_ADDRESS`,
            // 200: a first look at a gallery makes one or two per image; every allowed name of
            // one image is about 800).
            size_makes: stoa_api::rate::Keyed::new(
                f.image_sizes_per_address.max(1),
                SHARE_MAKES_WINDOW,
                "image sizes made per address",
            ),
            share_makes: stoa_api::rate::Keyed::new(
                SHARE_MAKES,
                SHARE_MAKES_WINDOW,
                "share images made per address",
            ),
        })
    }

    /// Checks and keeps `bytes` (sent for `field`, originally called `name`): the type from the
    /// bytes on the allow-list, the size, the dimensions without decoding. Stored once per
    /// content; the same bytes uploaded twice share one object.
    pub async fn keep(&self, field: &str, bytes: Bytes, name: Option<&str>) -> Result<Stored> {
        if bytes.len() > self.upload_limit {
            return Err(Error::PayloadTooLarge(format!(
                "{field}: the file is larger than {} bytes (STOA_UPLOAD_LIMIT)",
                self.upload_limit
            )));
        }
        let kind = sniff::kind(field, &bytes)?;
        let (w, h) = sniff::dimensions(field, kind, &bytes, self.max_pixels)?;
        let sha = hex::encode(Sha256::digest(&bytes));
        let key = format!("{sha}.{}", kind.ext);
        if self.storage.meta(&key).await?.is_none() {
            self.storage.put(&key, bytes.clone()).await?;
        }
        let mut meta = Map::new();
        meta.insert("size".into(), json!(bytes.len()));
        meta.insert("mimeType".into(), json!(kind.mime));
        meta.insert("extension".into(), json!(kind.ext));
        meta.insert("width".into(), json!(w));
        meta.insert("height".into(), json!(h));
        if let Some(n) = name.map(sniff::clean_name).filter(|n| !n.is_empty()) {
            meta.insert("originalName".into(), json!(n));
        }
        Ok(Stored {
            url: format!("/files/{key}"),
            meta,
        })
    }

    /// Creates a `file-storage.file` row for `stored` with the admin's `fields`.
    pub async fn record(&self, stored: Stored, fields: &Map<String, Value>) -> Result<Record> {
        let mut tx = self.store.begin().await?;
        let row = self.record_in(&mut tx.exec(), stored, fields).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// [`Self::record`] in the caller's transaction (a receipt's row commits with its order's
    /// link and mail).
    pub async fn record_in(
        &self,
        exec: &mut stoa_store::db::Exec<'_>,
        stored: Stored,
        fields: &Map<String, Value>,
    ) -> Result<Record> {
        let e = self.store.entity("file-storage.file")?;
        let mut input = fields.clone();
        input.insert("file".into(), json!(stored.url));
        input.extend(stored.meta);
        self.store.create_in(exec, &e, &input).await
    }

    /// Downloads `url` (safely) and keeps it as a file row.
    pub async fn from_url(&self, url: &str, fields: &Map<String, Value>) -> Result<Record> {
        let d = self.fetcher.get(url).await?;
        let stored = self.keep("url", d.bytes, d.name.as_deref()).await?;
        self.record(stored, fields).await
    }

    /// Renders the file template `variant` with `data` and keeps the PNG as a file row.
    pub async fn generate(
        &self,
        variant: &str,
        size: (u32, u32),
        data: Value,
        fields: &Map<String, Value>,
        pace: Pace,
    ) -> Result<Record> {
        let stored = self.generate_file(variant, size, data, pace).await?;
        self.record(stored, fields).await
    }

    /// Renders the file template `variant` with `data` and stores the PNG, without its row (the
    /// caller writes it with [`Self::record_in`]).
    pub async fn generate_file(
        &self,
        variant: &str,
        size: (u32, u32),
        data: Value,
        pace: Pace,
    ) -> Result<Stored> {
        let bytes = self.render(variant, size, data, pace).await?;
        self.keep("file", Bytes::from(bytes), Some(&format!("{variant}.png")))
            .await
    }

    /// The URL a file row holds.
    pub async fn url_of(&self, id: uuid::Uuid) -> Result<Option<String>> {
        let e = self.store.entity("file-storage.file")?;
        // A hidden file's too (a receipt): the module that linked it decides who sees it.
        match stoa_store::publish::with_drafts(self.store.get(&e, id)).await {
            Ok(r) => Ok(crate::rows::FileRow::of(&r)?.file),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Hides the file rows `ids` from visitors (their lists and reads by id), in one
    /// transaction; returns how many were shown before. What a module that keeps private files
    /// here (receipts) hides its older rows with.
    pub async fn hide(&self, ids: &[uuid::Uuid]) -> Result<u64> {
        let e = self.store.entity("file-storage.file")?;
        let (id, hidden) = e
            .field_index("id")
            .zip(e.field_index(stoa_kernel::model::HIDDEN))
            .ok_or_else(|| Error::internal("file-storage.file.hidden is not declared"))?;
        let mut tx = self.store.begin().await?;
        let mut n = 0;
        for f in ids {
            n += stoa_store::repo::update_where(
                &mut tx.exec(),
                &e,
                &[(hidden, Val::Bool(true))],
                &[(id, Val::Uuid(*f)), (hidden, Val::Bool(false))],
                None,
            )
            .await?;
        }
        tx.commit().await?;
        Ok(n)
    }

    /// Has the site a file row standing for the template `variant` (DOMAIN: templates are file
    /// rows whose variant names them)?
    pub async fn has_template(&self, variant: &str) -> Result<bool> {
        let e = self.store.entity("file-storage.file")?;
        Ok(!self
            .store
            .find_by(&e, &[("variant", Val::Text(variant.to_owned()))], 1)
            .await?
            .is_empty())
    }

    /// Runs a decode or a render on the blocking pool, a few at a time (`heavy` ones, one at a
    /// time in all, so small resizes always find a worker), to its end: its slots are held until
    /// the work really ends, so slow inputs cannot pile up more threads. A caller that stops
    /// waiting does not stop it.
    async fn on_pool<T: Send + 'static>(
        &self,
        what: &'static str,
        heavy: bool,
        f: impl FnOnce() -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let closed = |_| Error::Unavailable("shutting down".into());
        let slow = if heavy {
            Some(self.heavy.clone().acquire_owned().await.map_err(closed)?)
        } else {
            None
        };
        let permit = self.work.clone().acquire_owned().await.map_err(closed)?;
        tokio::task::spawn_blocking(move || {
            let _slots = (permit, slow);
            f()
        })
        .await
        .map_err(|e| Error::internal(format!("{what} task: {e}")))?
    }

    /// Renders a template to PNG: for a request on the blocking pool ([`Self::on_pool`]); for
    /// work nobody is waiting on (a paid order's receipt, made by a background job) on the
    /// [`quiet`] threads, with no [`WORK_TIMEOUT`]: under load it waits for idle CPU, and the
    /// job's own timeout bounds it.
    pub async fn render(
        &self,
        variant: &str,
        (w, h): (u32, u32),
        data: Value,
        pace: Pace,
    ) -> Result<Vec<u8>> {
        crate::render::template_of(variant)?;
        let variant = variant.to_owned();
        let make = move || crate::render::png(&variant, w, h, &data);
        match pace {
            // A caller waiting past WORK_TIMEOUT gets a 503; the render goes on in its slot.
            Pace::Asked => tokio::time::timeout(WORK_TIMEOUT, self.on_pool("render", false, make))
                .await
                .unwrap_or_else(|_| {
                    Err(Error::Unavailable(format!(
                        "the render took longer than {} s; try again later",
                        WORK_TIMEOUT.as_secs()
                    )))
                }),
            Pace::Background => quietly(make).await,
        }
    }

    /// The bytes and type of a stored file by its URL (`/files/…`), for mail attachments.
    pub async fn load(&self, url: &str) -> Result<Option<(Bytes, &'static str)>> {
        let Some(key) = key_of_url(url) else {
            return Ok(None);
        };
        let mime = ext_of(key)
            .and_then(sniff::by_ext)
            .map_or("application/octet-stream", |k| k.mime);
        Ok(self.storage.read(key).await?.map(|b| (b, mime)))
    }

    /// The stored object under `key`, read through the memory cache for immutable objects.
    async fn object(&self, key: &str, immutable: bool) -> Result<Option<Bytes>> {
        if immutable && let Some(b) = self.cache.get(key) {
            return Ok(Some(b));
        }
        let b = self.storage.read(key).await?;
        if immutable
            && let Some(b) = &b
            && b.len() <= CACHE_OBJECT_MAX
        {
            self.cache.insert(key.to_owned(), b.clone());
        }
        Ok(b)
    }

    /// The object under `key`, made by `make` and stored when missing. The making runs on its
    /// own task: a request that stops waiting after [`WORK_TIMEOUT`] gets a 503, but the object
    /// is still finished and kept, so the next request is served it instead of paying again. One
    /// maker at a time per `maker` (an original's sizes one after another; concurrent requests
    /// for a missing object wait and then read what the first made); at most [`MAX_PENDING`]
    /// made or queued at once, a 503 past that.
    async fn made_once<F, Fut>(
        self: &Arc<Self>,
        maker: &str,
        key: &str,
        make: F,
    ) -> Result<Option<Bytes>>
    where
        F: FnOnce(Arc<Self>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<Option<Bytes>>> + Send,
    {
        use std::sync::atomic::Ordering;
        if let Some(b) = self.object(key, true).await? {
            return Ok(Some(b));
        }
        if self.pending.fetch_add(1, Ordering::AcqRel) >= MAX_PENDING {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            return Err(Error::Unavailable(
                "the server is making many images now; try again in a few seconds".into(),
            ));
        }
        // Given back however the making ends (a panic in it too).
        let pending = Pending(self.clone());
        let lock = {
            let mut m = self
                .making
                .lock()
                .map_err(|_| Error::internal("the makers' lock"))?;
            m.entry(maker.to_owned()).or_default().clone()
        };
        let (this, maker, key) = (self.clone(), maker.to_owned(), key.to_owned());
        let task = tokio::spawn(async move {
            let out = async {
                let _one = lock.clone().lock_owned().await;
                if let Some(b) = this.object(&key, true).await? {
                    return Ok(Some(b));
                }
                let Some(b) = make(this.clone()).await? else {
                    return Ok(None);
                };
                this.storage.put(&key, b.clone()).await?;
                if b.len() <= CACHE_OBJECT_MAX {
                    this.cache.insert(key.clone(), b.clone());
                }
                Ok(Some(b))
            }
            .await;
            // The entry goes when no other request holds it: our copy is dropped under the map's
            // lock, where every holder took its copy, so the last one out sees the count at one.
            if let Ok(mut m) = this.making.lock() {
                drop(lock);
                if m.get(&maker).is_some_and(|a| Arc::strong_count(a) == 1) {
                    m.remove(&maker);
                }
            }
            drop(pending);
            out
        });
        match tokio::time::timeout(WORK_TIMEOUT, task).await {
            Ok(done) => done.map_err(|e| Error::internal(format!("making task: {e}")))?,
            Err(_) => Err(Error::Unavailable(format!(
                "this image is still being made (over {} s); it is kept when done, try again shortly",
                WORK_TIMEOUT.as_secs()
            ))),
        }
    }

    /// The stored size `size` of the original `key` (made now when missing, see
    /// [`Self::made_once`]); slow ones (AVIF, large originals) one at a time in all, so small
    /// resizes are not starved.
    async fn sized(
        self: &Arc<Self>,
        key: &str,
        kind: &Kind,
        size: Size,
        client: Option<std::net::IpAddr>,
    ) -> Result<Option<(String, Bytes)>> {
        let stem = key.split('.').next().unwrap_or_default();
        let vkey = format!("sizes/{stem}/{}", size.variant());
        let (key, kind) = (key.to_owned(), *kind);
        let made = self
            .made_once(stem, &vkey, move |this| async move {
                // Only a new size counts against its asker: one made already is served to anyone.
                if let Some(ip) = client {
                    this.size_makes
                        .check(&stoa_api::rate::address_key(ip).to_string())?;
                }
                let Some(orig) = this.storage.read(&key).await? else {
                    return Ok(None);
                };
                let pixels = sniff::dimensions("file", &kind, &orig, this.max_pixels)
                    .map_or(u64::MAX, |(w, h)| u64::from(w) * u64::from(h));
                let max = this.max_pixels;
                let bytes = this
                    .on_pool("resize", size.heavy(pixels), move || {
                        sizes::make(&orig, &kind, size, max)
                    })
                    .await?;
                Ok(Some(Bytes::from(bytes)))
            })
            .await?;
        Ok(made.map(|b| (vkey, b)))
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn ext_of(key: &str) -> Option<&str> {
    key.rsplit('/').next()?.rsplit_once('.').map(|x| x.1)
}

fn not_found() -> Error {
    Error::NotFound {
        message: "no such file".into(),
        code: "file_not_found",
    }
}

/// Where the bytes of a response come from.
enum Source<'a> {
    Whole(Bytes),
    Ranged(&'a Files, &'a str),
}
use Source::{Ranged, Whole};

/// `bytes=a-b`, `bytes=a-`, `bytes=-n` → the byte range in an object of `len` bytes.
/// `Ok(None)`: serve the whole object (no header, several ranges, or a unit we do not know).
fn range(headers: &HeaderMap, len: u64) -> std::result::Result<Option<std::ops::Range<u64>>, ()> {
    let Some(v) = headers.get(header::RANGE).and_then(|v| v.to_str().ok()) else {
        return Ok(None);
    };
    let Some(spec) = v.trim().strip_prefix("bytes=") else {
        return Ok(None);
    };
    if spec.contains(',') {
        return Ok(None);
    }
    let (a, b) = spec.split_once('-').ok_or(())?;
    let (a, b) = (a.trim(), b.trim());
    let r = match (a.is_empty(), b.is_empty()) {
        (true, false) => {
            let n: u64 = b.parse().map_err(|_| ())?;
            if n == 0 {
                return Err(());
            }
            len.saturating_sub(n)..len
        }
        (false, _) => {
            let start: u64 = a.parse().map_err(|_| ())?;
            let end = if b.is_empty() {
                len
            } else {
                b.parse::<u64>().map_err(|_| ())?.saturating_add(1).min(len)
            };
            if start >= len || end <= start {
                return Err(());
            }
            start..end
        }
        (true, true) => return Err(()),
    };
    Ok(Some(r))
}

fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        })
}

async fn send(
    headers: &HeaderMap,
    len: u64,
    src: Source<'_>,
    etag: &str,
    mime: &'static str,
    immutable: bool,
    attachment: bool,
) -> Response {
    let mut h = HeaderMap::new();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if immutable {
            "public, max-age=31536000, immutable"
        } else {
            "public, max-age=3600"
        }),
    );
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
        ),
    );
    if attachment {
        h.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment"),
        );
    }
    if etag_matches(headers, etag) {
        return (StatusCode::NOT_MODIFIED, h).into_response();
    }
    let r = match range(headers, len) {
        Ok(r) => r,
        Err(()) => {
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{len}")) {
                h.insert(header::CONTENT_RANGE, v);
            }
            return (StatusCode::RANGE_NOT_SATISFIABLE, h).into_response();
        }
    };
    let (status, r) = match r {
        Some(r) => {
            if let Ok(v) = HeaderValue::from_str(&format!("bytes {}-{}/{len}", r.start, r.end - 1))
            {
                h.insert(header::CONTENT_RANGE, v);
            }
            (StatusCode::PARTIAL_CONTENT, r)
        }
        None => (StatusCode::OK, 0..len),
    };
    let body = match src {
        Whole(b) => Ok(b.slice(r.start as usize..r.end as usize)),
        Ranged(files, key) => {
            if r.is_empty() {
                Ok(Bytes::new())
            } else {
                files.storage.read_range(key, r).await
            }
        }
    };
    match body {
        Ok(b) => (status, h, Body::from(b)).into_response(),
        Err(e) => stoa_api::error::error_response(&e),
    }
}

impl Uploads for Files {
    fn store<'a>(&'a self, part: &'a FilePart) -> BoxFuture<'a, Result<Stored>> {
        Box::pin(self.keep(&part.field, part.bytes.clone(), part.file_name.as_deref()))
    }

    fn keep_hidden<'a>(&'a self, part: &'a FilePart) -> BoxFuture<'a, Result<Value>> {
        Box::pin(async move {
            let stored = self
                .keep(&part.field, part.bytes.clone(), part.file_name.as_deref())
                .await?;
            let mut fields = Map::new();
            fields.insert(stoa_kernel::model::HIDDEN.into(), Value::Bool(true));
            if let Some(n) = stored.meta.get("originalName") {
                fields.insert("adminTitle".into(), n.clone());
            }
            Ok(self.record(stored, &fields).await?.to_json())
        })
    }

    fn discard_hidden<'a>(&'a self, id: uuid::Uuid) -> BoxFuture<'a, Result<bool>> {
        Box::pin(stoa_store::publish::with_drafts(async move {
            let e = self.store.entity("file-storage.file")?;
            let hidden = e
                .field_index(stoa_kernel::model::HIDDEN)
                .ok_or_else(|| Error::internal("file-storage.file.hidden is not declared"))?;
            let mut tx = self.store.begin().await?;
            let gone =
                stoa_store::repo::delete_if(&mut tx.exec(), &e, id, &[(hidden, Val::Bool(true))])
                    .await?
                    .is_some();
            // Links to it go with it (the commit counts both).
            tx.commit().await?;
            Ok(gone)
        }))
    }
}

/// Reads stored files for other modules (mail attachments).
impl stoa_api::files::FileReader for Files {
    fn load<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Option<(Bytes, &'static str)>>> {
        Box::pin(Files::load(self, url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Background renders run at the lowest priority, make the same PNG as a request's render,
    /// and a panic in one answers an error instead of leaving its caller waiting.
    #[tokio::test]
    async fn background_renders_run_quietly_and_make_the_same_png() {
        #[cfg(target_os = "linux")]
        {
            let nice = quietly(|| {
                rustix::process::getpriority_process(Some(rustix::thread::gettid()))
                    .map_err(|e| Error::internal(e.to_string()))
            })
            .await
            .expect("nice");
            assert_eq!(nice, 19);
        }
        let data = json!({"language": "en", "ecommerce": {"order": {"id": "o-1"}}});
        let t = crate::render::template_of(crate::render::RECEIPT).expect("template");
        let want =
            crate::render::png(crate::render::RECEIPT, t.width, t.height, &data).expect("png");
        let got =
            quietly(move || crate::render::png(crate::render::RECEIPT, t.width, t.height, &data))
                .await
                .expect("quiet png");
        assert!(got == want, "the same bytes");
        let e = quietly::<()>(|| panic!("boom"))
            .await
            .expect_err("an error");
        assert!(e.to_string().contains("without an answer"), "{e}");
        // The threads survive it.
        assert_eq!(quietly(|| Ok(2 + 2)).await.expect("after"), 4);
    }

    fn with_range(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(v) {
            h.insert(header::RANGE, v);
        }
        h
    }

    #[test]
    fn ranges_are_read_as_rfc_9110_says() {
        assert_eq!(range(&with_range("bytes=0-9"), 100), Ok(Some(0..10)));
        assert_eq!(range(&with_range("bytes=90-"), 100), Ok(Some(90..100)));
        assert_eq!(range(&with_range("bytes=-5"), 100), Ok(Some(95..100)));
        assert_eq!(range(&with_range("bytes=50-500"), 100), Ok(Some(50..100)));
        assert_eq!(range(&with_range("bytes=100-"), 100), Err(()));
        assert_eq!(range(&with_range("bytes=5-1"), 100), Err(()));
        assert_eq!(range(&with_range("bytes=0-1,5-6"), 100), Ok(None));
        assert_eq!(range(&HeaderMap::new(), 100), Ok(None));
    }

    #[test]
    fn keys_stay_inside_the_root() {
        assert!(safe_key("demo/logo.svg"));
        for bad in [
            "", "../x", "a/../b", ".env", "a//b", "a/.git/x", "a\\b", "a%2f",
        ] {
            assert!(!safe_key(bad), "{bad}");
        }
        assert!(is_hash(&"a".repeat(64)));
        assert!(!is_hash(&"A".repeat(64)));
    }
}
