//! Page bundles cached per URL. An entry is good while no publicly readable entity changed since
//! it was built (the store's public change counter: private writes never clear it) and for at most
//! [`TTL`] (a safety net). Revalidation clears everything.
//!
//! One build per URL at a time: requests that find the entry out of date while it is being built
//! wait for that build instead of starting their own (32 concurrent readers of a page used to
//! build it 32 times when its entry expired); an entry that only outlived [`TTL`] (its data did
//! not change) is served as it is while one request rebuilds it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use stoa_kernel::{Error, Result};
use stoa_store::Store;

/// Longest an entry is trusted without a local change.
pub const TTL: Duration = Duration::from_secs(30);
/// Most URLs kept; past it the cache starts over.
pub const CAPACITY: usize = 2_000;

struct Entry {
    stamp: u64,
    at: Instant,
    /// `None`: no page has this URL.
    bundle: Option<Arc<Value>>,
}

enum Kept {
    /// Built at the current data version, within [`TTL`].
    Fresh(Option<Arc<Value>>),
    /// Built at the current data version, but older than [`TTL`].
    Old(Option<Arc<Value>>),
    Missing,
}

/// Takes the gate of `key`'s build out of the table when its builder is done (a later build gets
/// a new gate).
struct Ending<'a> {
    bundles: &'a Bundles,
    key: &'a str,
    gate: &'a Arc<tokio::sync::Mutex<()>>,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        if let Ok(mut b) = self.bundles.building.lock()
            && b.get(self.key).is_some_and(|g| Arc::ptr_eq(g, self.gate))
        {
            b.remove(self.key);
        }
    }
}

pub struct Bundles {
    store: Store,
    parts: Vec<Arc<dyn stoa_api::module::BundlePart>>,
    map: Mutex<HashMap<String, Entry>>,
    /// The URLs being built now, each with the gate its build holds.
    building: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    sitemap: tokio::sync::Mutex<Option<Sitemap>>,
    /// The blog's feed per language: (data stamp, built at, the feed; `None`: no feed).
    feeds: tokio::sync::Mutex<HashMap<String, Feed>>,
    /// Entries per sitemap file (`STOA_SITEMAP_URLS_PER_FILE`).
    per_file: usize,
    /// The page builder's unsaved edits, which an admin's framed preview lays over the page.
    pub drafts: crate::drafts::Drafts,
}

/// A feed as built: the data stamp it was built at, when, and the feed (`None`: none).
type Feed = (u64, Instant, Option<bytes::Bytes>);

/// The last sitemap built: for which site and data, when, and how long it took.
struct Sitemap {
    site: String,
    stamp: u64,
    at: Instant,
    took: Duration,
    /// `/sitemap.xml`: the one file, or the index.
    head: bytes::Bytes,
    /// `/sitemaps/{n}.xml` (at `n - 1`) when `head` is an index.
    files: Vec<bytes::Bytes>,
}

/// The sitemap is rebuilt after a change, but no sooner than this after the last build (and no
/// sooner than ten times that build took), so a stream of requests during a stream of writes
/// costs a lookup each.
pub const SITEMAP_MIN_AGE: Duration = Duration::from_secs(60);

/// A feed is rebuilt after a change, but no sooner than this after the last build.
pub const FEED_MIN_AGE: Duration = Duration::from_secs(30);

impl Bundles {
    pub fn new(
        store: Store,
        parts: Vec<Arc<dyn stoa_api::module::BundlePart>>,
        sitemap_per_file: usize,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            parts,
            map: Mutex::new(HashMap::new()),
            building: Mutex::new(HashMap::new()),
            sitemap: tokio::sync::Mutex::new(None),
            feeds: tokio::sync::Mutex::new(HashMap::new()),
            per_file: sitemap_per_file,
            drafts: crate::drafts::Drafts::default(),
        })
    }

    /// The blog's Atom feed in `lang` (its newest articles), or `None` when no page shows articles
    /// one by one. Kept until the data changes, and rebuilt no sooner than [`FEED_MIN_AGE`]:
    /// a request is a lookup, a rebuild one indexed read of [`crate::pages::FEED_ENTRIES`] rows.
    pub async fn feed(
        &self,
        public_url: &str,
        lang: &str,
        title: &str,
    ) -> Result<Option<bytes::Bytes>> {
        let stamp = self.store.public_version();
        let mut g = self.feeds.lock().await;
        if let Some((at_stamp, at, feed)) = g.get(lang)
            && (*at_stamp == stamp || at.elapsed() < FEED_MIN_AGE)
        {
            return Ok(feed.clone());
        }
        let entries =
            crate::pages::feed_entries(&self.store, "blog", "articles", crate::pages::FEED_ENTRIES)
                .await?;
        let feed = entries
            .map(|e| bytes::Bytes::from(crate::pages::feed_xml(public_url, lang, title, &e)));
        g.insert(lang.to_owned(), (stamp, Instant::now(), feed.clone()));
        Ok(feed)
    }

    /// A sitemap file, built once and kept (see [`SITEMAP_MIN_AGE`]); one build at a time.
    /// `part`: `None` for `/sitemap.xml` (the one file, or the index when the URLs need several
    /// files), `Some(n)` for `/sitemaps/{n}.xml`. Every file is rendered with the build and kept
    /// (at most `MAX_SITEMAP_PATHS` × languages entries in all), so a request is a lookup.
    pub async fn sitemap(
        &self,
        public_url: &str,
        languages: &[&str],
        part: Option<usize>,
    ) -> Result<Option<bytes::Bytes>> {
        let site = format!("{public_url} {}", languages.join(","));
        let stamp = self.store.public_version();
        let mut g = self.sitemap.lock().await;
        let fresh = g.as_ref().is_some_and(|m| {
            m.site == site
                && (m.stamp == stamp && m.at.elapsed() < TTL * 10
                    || m.at.elapsed() < SITEMAP_MIN_AGE.max(m.took * 10))
        });
        if !fresh {
            let started = Instant::now();
            let urls = stoa_store::publish::without_drafts(crate::pages::concrete_urls(
                &self.store,
                crate::pages::MAX_SITEMAP_PATHS,
            ))
            .await?;
            // Each URL is one entry per language.
            let per_file = (self.per_file.clamp(1, crate::pages::MAX_SITEMAP_URLS)
                / languages.len().max(1))
            .max(1);
            let render = |urls: &[String]| {
                bytes::Bytes::from(crate::pages::sitemap_xml(urls, public_url, languages))
            };
            let (head, files) = if urls.len() <= per_file {
                (render(&urls), Vec::new())
            } else {
                let files: Vec<_> = urls.chunks(per_file).map(render).collect();
                let index = crate::pages::sitemap_index_xml(public_url, files.len());
                (bytes::Bytes::from(index), files)
            };
            *g = Some(Sitemap {
                site,
                stamp,
                at: Instant::now(),
                took: started.elapsed(),
                head,
                files,
            });
        }
        let m = g
            .as_ref()
            .ok_or_else(|| Error::internal("sitemap missing"))?;
        Ok(match part {
            None => Some(m.head.clone()),
            Some(n) => n.checked_sub(1).and_then(|i| m.files.get(i)).cloned(),
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The bundle of the page `url` shows, or `None` when no page does.
    /// The bundle of `url` as visitors see it (drafts hidden whoever asks: it is shared).
    pub async fn get(&self, url: &str) -> Result<Option<Arc<Value>>> {
        stoa_store::publish::without_drafts(self.get_published(url)).await
    }

    /// The bundle of `url` with its drafts, built for this request and never kept: what an
    /// admin's preview shows. Drafts are seen only where the caller's scope shows them.
    pub async fn preview(&self, url: &str) -> Result<Option<Arc<Value>>> {
        let key = crate::pages::normalise(url)?;
        match crate::bundle::build(&self.store, &key, &self.parts).await {
            Ok(b) => Ok(Some(Arc::new(b))),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn get_published(&self, url: &str) -> Result<Option<Arc<Value>>> {
        let key = crate::pages::normalise(url)?;
        let stamp = self.store.public_version();
        let kept = self.kept(&key, stamp);
        if let Kept::Fresh(bundle) = kept {
            stoa_api::metrics::METRICS.cache_lookup("bundle", true);
            return Ok(bundle);
        }
        let (gate, mine) = self.gate(&key);
        if !mine && let Kept::Old(bundle) = kept {
            // Its data did not change; another request is rebuilding it.
            stoa_api::metrics::METRICS.cache_lookup("bundle", true);
            return Ok(bundle);
        }
        // The gate leaves the table with the request that put it there, however that ends (an
        // error, the request dropped).
        let _ending = mine.then(|| Ending {
            bundles: self,
            key: &key,
            gate: &gate,
        });
        let _building = gate.lock().await;
        // Built by the request this one waited for.
        if let Kept::Fresh(bundle) = self.kept(&key, stamp) {
            stoa_api::metrics::METRICS.cache_lookup("bundle", true);
            return Ok(bundle);
        }
        stoa_api::metrics::METRICS.cache_lookup("bundle", false);
        // Boxed: the build's state stays out of every cached request's future.
        let bundle = match Box::pin(crate::bundle::build(&self.store, &key, &self.parts)).await {
            Ok(b) => Some(Arc::new(b)),
            Err(Error::NotFound { .. }) => None,
            Err(e) => return Err(e),
        };
        if let Ok(mut map) = self.map.lock() {
            if map.len() >= CAPACITY {
                map.clear();
            }
            map.insert(
                key.clone(),
                Entry {
                    stamp,
                    at: Instant::now(),
                    bundle: bundle.clone(),
                },
            );
        }
        Ok(bundle)
    }

    /// What is kept for `key`, judged at `stamp`.
    fn kept(&self, key: &str, stamp: u64) -> Kept {
        match self.map.lock().ok().as_ref().and_then(|m| m.get(key)) {
            Some(e) if e.stamp == stamp && e.at.elapsed() < TTL => Kept::Fresh(e.bundle.clone()),
            Some(e) if e.stamp == stamp => Kept::Old(e.bundle.clone()),
            _ => Kept::Missing,
        }
    }

    /// The gate of `key`'s build, and whether this request put it there (and so builds).
    fn gate(&self, key: &str) -> (Arc<tokio::sync::Mutex<()>>, bool) {
        let Ok(mut b) = self.building.lock() else {
            return (Arc::default(), true);
        };
        match b.get(key) {
            Some(g) => (g.clone(), false),
            None => {
                let g: Arc<tokio::sync::Mutex<()>> = Arc::default();
                b.insert(key.to_owned(), g.clone());
                (g, true)
            }
        }
    }

    /// Forgets every cached bundle; returns how many there were.
    pub fn clear(&self) -> usize {
        self.map.lock().map_or(0, |mut m| {
            let n = m.len();
            m.clear();
            n
        })
    }
}

impl stoa_api::module::Pages for Bundles {
    fn bundle<'a>(
        &'a self,
        url: &'a str,
    ) -> stoa_api::module::BoxFuture<'a, Result<Option<Arc<Value>>>> {
        Box::pin(self.get(url))
    }

    fn preview<'a>(
        &'a self,
        url: &'a str,
    ) -> stoa_api::module::BoxFuture<'a, Result<Option<Arc<Value>>>> {
        Box::pin(stoa_store::publish::with_drafts(Bundles::preview(
            self, url,
        )))
    }

    fn preview_draft<'a>(
        &'a self,
        url: &'a str,
        key: &'a str,
    ) -> stoa_api::module::BoxFuture<'a, Result<Option<Arc<Value>>>> {
        Box::pin(stoa_store::publish::with_drafts(async move {
            let bundle = Bundles::preview(self, url).await?;
            Ok(match (bundle, self.drafts.get(key)) {
                (Some(b), Some(patches)) => {
                    let mut v = (*b).clone();
                    crate::drafts::apply(&mut v, &patches);
                    Some(Arc::new(v))
                }
                (b, _) => b,
            })
        }))
    }

    fn sitemap<'a>(
        &'a self,
        public_url: &'a str,
        languages: &'a [&'a str],
        part: Option<usize>,
    ) -> stoa_api::module::BoxFuture<'a, Result<Option<bytes::Bytes>>> {
        Box::pin(Bundles::sitemap(self, public_url, languages, part))
    }

    fn feed<'a>(
        &'a self,
        public_url: &'a str,
        lang: &'a str,
        title: &'a str,
    ) -> stoa_api::module::BoxFuture<'a, Result<Option<bytes::Bytes>>> {
        Box::pin(Bundles::feed(self, public_url, lang, title))
    }
}
