//! Finished public pages as bytes: per (language, resolved page), the whole HTML document
//! compressed both ways with its ETag, so a hit is a lookup and a write.
//!
//! An entry is good while the page's bundle is the one it was made from: the bundle cache (host)
//! already follows the data (the store's public change counter, and a TTL for other instances'
//! writes). When the bundle was rebuilt but came out equal, the bytes are kept. The cache is
//! bounded in bytes; past the bound the least recently used pages go.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use stoa_api::pack::Packed;

/// What identifies a page's bytes: its language and the resolved page (id and normalised URL,
/// which carries the values of its dynamic segments). Never the raw request path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub lang: &'static str,
    pub page: String,
    pub url: String,
    /// The server-rendered document (else the client-rendered shell, for requests whose query
    /// the page may read).
    pub ssr: bool,
}

impl Key {
    /// The key of `bundle` in `lang`, or `None` when the bundle names no page.
    pub fn of(lang: &'static str, bundle: &Value) -> Option<Self> {
        let page = bundle["page"]["id"].as_str()?.to_owned();
        let url = bundle["url"].as_str()?;
        Some(Self {
            lang,
            page,
            // The host's normal form (bundles carry it already; a bundle made elsewhere may not).
            url: stoa_api::module::page_path(url).ok()?,
            ssr: true,
        })
    }
}

struct Entry {
    bundle: Arc<Value>,
    packed: Arc<Packed>,
    used: u64,
}

/// The cache.
pub struct PageCache {
    limit: usize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    map: HashMap<Key, Entry>,
    bytes: usize,
    tick: u64,
}

impl PageCache {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The bytes of `key` when they were made from `bundle` (or an equal one).
    pub fn get(&self, key: &Key, bundle: &Arc<Value>) -> Option<Arc<Packed>> {
        let mut g = self.inner.lock().ok()?;
        g.tick += 1;
        let tick = g.tick;
        let e = g.map.get_mut(key)?;
        if !Arc::ptr_eq(&e.bundle, bundle) && *e.bundle != **bundle {
            return None;
        }
        e.bundle = bundle.clone();
        e.used = tick;
        Some(e.packed.clone())
    }

    /// Keeps `packed` for `key`, made from `bundle`; evicts the least recently used pages past
    /// the bound. A page larger than a quarter of the bound is not kept.
    pub fn put(&self, key: Key, bundle: Arc<Value>, packed: Arc<Packed>) {
        let weight = packed.weight();
        if weight > self.limit / 4 {
            return;
        }
        let Ok(mut g) = self.inner.lock() else {
            return;
        };
        g.tick += 1;
        let used = g.tick;
        if let Some(old) = g.map.insert(
            key,
            Entry {
                bundle,
                packed,
                used,
            },
        ) {
            g.bytes -= old.packed.weight();
        }
        g.bytes += weight;
        while g.bytes > self.limit {
            let Some(oldest) = g
                .map
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = g.map.remove(&oldest) {
                g.bytes -= e.packed.weight();
            }
        }
    }

    /// Pages and bytes held.
    pub fn size(&self) -> (usize, usize) {
        self.inner.lock().map_or((0, 0), |g| (g.map.len(), g.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use serde_json::json;

    fn bundle(id: &str, url: &str, title: &str) -> Arc<Value> {
        Arc::new(json!({"page": {"id": id}, "url": url, "meta": {"title": title}}))
    }

    #[test]
    fn keys_are_the_resolved_page_not_the_raw_path() {
        let a = Key::of("ru", &bundle("p1", "//blog///a/", "x"));
        let b = Key::of("ru", &bundle("p1", "/blog/a", "x"));
        assert_eq!(a, b);
        assert_ne!(a, Key::of("en", &bundle("p1", "/blog/a", "x")));
        assert!(Key::of("ru", &json!({"url": "/"})).is_none());
    }

    #[test]
    fn hits_follow_the_bundle_and_the_bound_evicts_the_oldest() {
        let cache = PageCache::new(40_000);
        let b1 = bundle("p1", "/", "one");
        let k1 = Key::of("ru", &b1).unwrap_or_else(|| unreachable!());
        let packed = |n: usize| Arc::new(stoa_api::pack::pack(Bytes::from(vec![b'x'; n])));
        cache.put(k1.clone(), b1.clone(), packed(2_000));
        assert!(cache.get(&k1, &b1).is_some());
        // Rebuilt but equal: still a hit.
        assert!(cache.get(&k1, &bundle("p1", "/", "one")).is_some());
        // Changed: a miss.
        assert!(cache.get(&k1, &bundle("p1", "/", "two")).is_none());
        // Bounded in bytes: older pages go first.
        for i in 0..30 {
            let b = bundle(&format!("p{i}"), &format!("/{i}"), "t");
            let k = Key::of("en", &b).unwrap_or_else(|| unreachable!());
            cache.put(k, b, packed(3_000));
        }
        let (n, bytes) = cache.size();
        assert!(bytes <= 40_000, "{bytes}");
        assert!(n < 31);
        assert!(cache.get(&k1, &b1).is_none());
        // Too big for the cache: not kept.
        let big = bundle("big", "/big", "t");
        let kb = Key::of("en", &big).unwrap_or_else(|| unreachable!());
        cache.put(kb.clone(), big.clone(), packed(60_000));
        assert!(cache.get(&kb, &big).is_none());
    }
}
