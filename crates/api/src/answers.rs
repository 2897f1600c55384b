//! Visitors' answers kept as bytes: a public read (`GET /api/blog/articles/{id}`, a list) asked
//! again by anyone without credentials is answered from memory, before routing and the layers,
//! while nothing it was read from has changed.
//!
//! How an answer gets in: the connection's service ([`Answers::lookup`], then
//! [`Answers::collect`]) runs a request that could be served from here (a `GET` under `/api/`
//! with no body and no credentials) inside a collector. Whatever decides the answer says so as it goes:
//! - authorization names the tables its verdict came from ([`depends_on`]);
//! - the handler names the entities it reads, *before* it reads them (so a write that commits
//!   meanwhile leaves the entry already stale), and offers its body ([`offer`]);
//! - anything that makes the answer depend on the caller marks it [`personal`].
//!
//! An answer is kept only when it was offered, is a 200 without cookies, and is not personal.
//! It is good while every change counter it named is where it was (the store counts every
//! committed write, and other instances' writes as they are told) and for at most
//! [`TTL`], the safety net for writes nobody told this process of (another process on
//! the same SQLite file). The headers kept are the final answer's (security headers, totals,
//! cursors), less those made per request; the request id, the metrics and the log line are made
//! per request as the layers make them, and the body is compressed on first need, once.
//!
//! Bounded in bytes (least recently used first, as `quick_cache` keeps them); an answer larger
//! than [`LARGEST`] is never kept.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use stoa_store::Store;

use crate::pack::Encoding;

/// How long the server trusts a kept answer without a change counted here.
pub const TTL: Duration = Duration::from_secs(5);
/// The largest body kept (larger answers are read each time).
pub const LARGEST: usize = 512 * 1024;
/// Bodies smaller than this are sent as they are (as the compression layer does: it compresses
/// from this size on).
const COMPRESS_ABOVE: usize = 1024;

/// What the request's handling said of its answer.
#[derive(Default)]
struct Collected {
    deps: Vec<(String, u64)>,
    body: Option<Bytes>,
    personal: bool,
    route: Option<Arc<str>>,
}

tokio::task_local! {
    static COLLECT: RefCell<Collected>;
}

/// Whether the request being handled is collected (could be kept): callers skip the work of
/// naming their tables when not.
pub fn collecting() -> bool {
    COLLECT.try_with(|_| ()).is_ok()
}

/// The answer depends on entity `key` (`module.entity`) as it is now: call before reading it.
pub fn depends_on(store: &Store, key: &str) {
    let _ = COLLECT.try_with(|c| {
        c.borrow_mut()
            .deps
            .push((key.to_owned(), store.version(key)))
    });
}

/// The handler's body, to keep when the rest allows.
pub fn offer(body: Bytes) {
    let _ = COLLECT.try_with(|c| c.borrow_mut().body = Some(body));
}

/// The answer depends on who asked: never keep it.
pub fn personal() {
    let _ = COLLECT.try_with(|c| c.borrow_mut().personal = true);
}

/// The route's template (for the metrics of answers served from here).
pub fn route(template: &str) {
    let _ = COLLECT.try_with(|c| {
        let mut c = c.borrow_mut();
        if c.route.as_deref() != Some(template) {
            c.route = Some(Arc::from(template));
        }
    });
}

/// One kept answer.
pub struct Answer {
    raw: Bytes,
    gzip: OnceLock<Option<Bytes>>,
    br: OnceLock<Option<Bytes>>,
    /// The final answer's headers, less those made per request.
    headers: HeaderMap,
    route: Option<Arc<str>>,
    deps: Vec<(String, u64)>,
    made: Instant,
}

impl Answer {
    /// The body in `encoding`, compressed on first need (once for everyone), and the encoding
    /// it is really in (plain bytes should an encoder fail).
    fn body(&self, encoding: Encoding) -> (Encoding, Bytes) {
        let made = match encoding {
            Encoding::Identity => None,
            Encoding::Gzip => self
                .gzip
                .get_or_init(|| crate::pack::gzip(&self.raw, 6))
                .clone(),
            Encoding::Br => self
                .br
                .get_or_init(|| crate::pack::brotli(&self.raw, 5))
                .clone(),
        };
        match made {
            Some(b) => (encoding, b),
            None => (Encoding::Identity, self.raw.clone()),
        }
    }
}

#[derive(Clone)]
struct Weigh;

impl quick_cache::Weighter<String, Arc<Answer>> for Weigh {
    fn weight(&self, k: &String, v: &Arc<Answer>) -> u64 {
        // The compressed copies, when made, add at most about half again; the headers (the
        // security policy alone is ~500 bytes), the dependencies and the entry itself are
        // counted as they are, plus the table's own share.
        let headers: usize = v
            .headers
            .iter()
            .map(|(n, x)| n.as_str().len() + x.len() + 64)
            .sum();
        let deps: usize = v.deps.iter().map(|(d, _)| d.len() + 48).sum();
        (k.len() + v.raw.len() + v.raw.len() / 2 + headers + deps + 512) as u64
    }
}

/// The kept answers of one server.
pub struct Answers {
    store: Store,
    cache: quick_cache::sync::Cache<String, Arc<Answer>, Weigh>,
    /// Longest an answer is trusted without a change counted here.
    ttl: Duration,
}

/// What the caller of [`Answers::lookup`] does next.
pub enum Lookup {
    /// The answer, ready to send.
    Hit(Response),
    /// Not kept (or stale): run the request in [`Answers::collect`] under this key.
    Miss(String),
    /// Not a request answered from here.
    Pass,
}

/// Headers that are made per request, never replayed.
fn per_request(name: &header::HeaderName) -> bool {
    name == header::CONTENT_LENGTH
        || name == header::CONTENT_ENCODING
        || name == header::TRANSFER_ENCODING
        || name == header::DATE
        || name.as_str() == "x-request-id"
}

impl Answers {
    /// Keeps up to `bytes` of answers (0: none), each trusted for at most `ttl`.
    pub fn new(store: Store, bytes: usize, ttl: Duration) -> Option<Arc<Self>> {
        (bytes > 0).then(|| {
            Arc::new(Self {
                store,
                // quick_cache sizes its table from an estimate of the entries: ~8 KB each.
                cache: quick_cache::sync::Cache::with_weighter(
                    (bytes / 8192).max(16),
                    bytes as u64,
                    Weigh,
                ),
                ttl,
            })
        })
    }

    /// The key of `req` when it could be answered from here: a `GET` under `/api/` with no body
    /// and nothing that names a caller (no `Authorization`, no secret key, no session cookie).
    /// An `Accept-Encoding` that allows neither brotli nor gzip nor plain bytes goes the long
    /// way (the compression layer answers it).
    fn key_of(req: &Request) -> Option<&str> {
        if req.method() != Method::GET {
            return None;
        }
        let pq = req.uri().path_and_query()?.as_str();
        if !pq.starts_with("/api/") || pq.len() > 8 * 1024 {
            return None;
        }
        let h = req.headers();
        if h.contains_key(header::CONTENT_LENGTH)
            || h.contains_key(header::TRANSFER_ENCODING)
            || crate::auth::has_credentials(h)
        {
            return None;
        }
        Some(pq)
    }

    /// The encoding to send: `None` when the request must go the long way.
    fn encoding(headers: &HeaderMap, len: usize) -> Option<Encoding> {
        let Some(accept) = headers.get(header::ACCEPT_ENCODING) else {
            return Some(Encoding::Identity);
        };
        match crate::pack::choose(accept.to_str().ok()?) {
            // `identity;q=0` and the like: the compression layer decides (406).
            Encoding::Identity => None,
            // The compression layer compresses from 1 KB on (`SizeAbove` is inclusive).
            _ if len < COMPRESS_ABOVE => Some(Encoding::Identity),
            e => Some(e),
        }
    }

    fn fresh(&self, a: &Answer) -> bool {
        a.made.elapsed() < self.ttl && a.deps.iter().all(|(k, v)| self.store.version(k) == *v)
    }

    /// The kept answer to `req`, or what to do instead.
    pub fn lookup(&self, req: &Request) -> Lookup {
        let Some(key) = Self::key_of(req) else {
            return Lookup::Pass;
        };
        if let Some(a) = self.cache.get(key) {
            if self.fresh(&a) {
                if let Some(encoding) = Self::encoding(req.headers(), a.raw.len()) {
                    let (encoding, body) = a.body(encoding);
                    let mut res = Response::new(Body::from(body));
                    *res.headers_mut() = a.headers.clone();
                    if let Some(v) = encoding.header() {
                        res.headers_mut()
                            .insert(header::CONTENT_ENCODING, HeaderValue::from_static(v));
                    }
                    if let Some(r) = &a.route {
                        res.extensions_mut().insert(Route(r.clone()));
                    }
                    crate::metrics::METRICS.cache_lookup("api", true);
                    return Lookup::Hit(res);
                }
                return Lookup::Pass;
            }
            self.cache.remove(key);
        }
        crate::metrics::METRICS.cache_lookup("api", false);
        Lookup::Miss(key.to_owned())
    }

    /// The kept answer at `key` (a request's path and query) as its handler made it — the body
    /// and the handler's own headers — for a caller who went the long way and whose answer is
    /// the visitors' (signed in, not an admin): the gate has let them in; what they read is the
    /// same rows.
    pub fn reuse(&self, key: &str) -> Option<Response> {
        let a = self.cache.get(key)?;
        if !self.fresh(&a) {
            return None;
        }
        let mut res = Response::new(Body::from(a.raw.clone()));
        for (k, v) in &a.headers {
            if k == header::CONTENT_TYPE
                || k.as_str().starts_with("x-total-count")
                || k == "x-next-cursor"
            {
                res.headers_mut().append(k.clone(), v.clone());
            }
        }
        crate::metrics::METRICS.cache_lookup("api", true);
        Some(res)
    }

    /// Runs `handle` (the request's whole way through the layers) collecting what it says of
    /// its answer, and keeps the answer under `key` when it may.
    pub async fn collect<F>(self: Arc<Self>, key: String, handle: F) -> Response
    where
        F: Future<Output = Response>,
    {
        let (res, c) = COLLECT
            .scope(RefCell::new(Collected::default()), async {
                let res = handle.await;
                let c = COLLECT.with(|c| std::mem::take(&mut *c.borrow_mut()));
                (res, c)
            })
            .await;
        let stored = |v: &HeaderValue| {
            let v = v.as_bytes();
            v.windows(8).any(|w| w.eq_ignore_ascii_case(b"no-store"))
                || v.windows(7).any(|w| w.eq_ignore_ascii_case(b"private"))
        };
        if let Some(body) = c.body
            && !c.personal
            && !c.deps.is_empty()
            && res.status() == StatusCode::OK
            && body.len() <= LARGEST
            && !res.headers().contains_key(header::SET_COOKIE)
            // What the layers said must not be kept (the gate's `no-store` on accounts' routes).
            && !res.headers().get_all(header::CACHE_CONTROL).iter().any(stored)
            // The body sent is the one offered (a nested call on this task offered another).
            && res
                .headers()
                .get(header::CONTENT_LENGTH)
                .is_none_or(|l| l.to_str().ok().and_then(|l| l.parse().ok()) == Some(body.len()))
        {
            let mut headers = HeaderMap::with_capacity(res.headers().len());
            for (k, v) in res.headers() {
                if !per_request(k) {
                    headers.append(k.clone(), v.clone());
                }
            }
            self.cache.insert(
                key,
                Arc::new(Answer {
                    // A copy of its own size: the handler's buffer was reserved for the most
                    // rows the query allowed (an empty page of `limit=1000` held 512 KB).
                    raw: Bytes::copy_from_slice(&body),
                    gzip: OnceLock::new(),
                    br: OnceLock::new(),
                    headers,
                    route: c.route,
                    deps: c.deps,
                    made: Instant::now(),
                }),
            );
        }
        res
    }

    /// Answers kept now (for tests and the metrics).
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }
}

/// The route template of an answer served from here (the request-context layer reads it for
/// the metrics, as it reads the router's matched path).
#[derive(Clone)]
pub struct Route(pub Arc<str>);

#[cfg(test)]
mod tests {
    use super::*;

    fn req(uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut b = Request::builder().uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(Body::empty()).expect("request")
    }

    #[test]
    fn only_credentialless_api_reads_are_candidates() {
        assert_eq!(
            Answers::key_of(&req("/api/blog/articles?limit=5", &[])),
            Some("/api/blog/articles?limit=5")
        );
        assert_eq!(Answers::key_of(&req("/ru/", &[])), None);
        for h in [
            ("authorization", "Bearer x"),
            ("x-rbac-secret-key", "k"),
            ("cookie", "a=1; rbac.subject.jwt=x"),
            ("content-length", "3"),
        ] {
            assert_eq!(Answers::key_of(&req("/api/x", &[h])), None, "{h:?}");
        }
        assert_eq!(
            Answers::key_of(&req("/api/x", &[("cookie", "lang=ru")])),
            Some("/api/x")
        );
        let post = Request::builder()
            .method("POST")
            .uri("/api/x")
            .body(Body::empty())
            .expect("request");
        assert_eq!(Answers::key_of(&post), None);
    }

    #[test]
    fn encodings_follow_the_compression_layer() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(v).expect("v"),
            );
            m
        };
        assert_eq!(
            Answers::encoding(&HeaderMap::new(), 5000),
            Some(Encoding::Identity)
        );
        assert_eq!(Answers::encoding(&h("gzip"), 5000), Some(Encoding::Gzip));
        assert_eq!(Answers::encoding(&h("gzip, br"), 5000), Some(Encoding::Br));
        assert_eq!(Answers::encoding(&h("gzip"), 500), Some(Encoding::Identity));
        assert_eq!(Answers::encoding(&h("identity;q=0"), 5000), None);
    }

    /// An entry weighs what it holds: an empty page still counts its headers and dependencies,
    /// so many small answers cannot hold more than the bound says.
    #[test]
    fn an_entry_weighs_its_headers_and_dependencies_too() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; img-src 'self' data: blob:; script-src 'self'",
            ),
        );
        let a = Arc::new(Answer {
            raw: Bytes::from_static(b"{\"data\":[]}"),
            gzip: OnceLock::new(),
            br: OnceLock::new(),
            headers,
            route: None,
            deps: vec![("blog.article".into(), 3), ("rbac.permission".into(), 1)],
            made: Instant::now(),
        });
        let w = quick_cache::Weighter::weight(&Weigh, &"/api/blog/articles?limit=1000".into(), &a);
        assert!(w > 700, "{w}");
    }
}
