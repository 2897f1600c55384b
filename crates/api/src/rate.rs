//! Keyed rate limits (a burst per window for each key: a client IP, an account), answering 429
//! with `Retry-After`. Idle keys are dropped now and then, so the map stays small under a spray
//! of addresses.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use stoa_kernel::{Error, Result};
use stoa_store::cluster::Shared;

/// The client of a request, resolved once by the server ([`resolve_client`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// The client address a per-IP limit keys on: the server's [`ClientIp`], else the connection's
/// peer (`unknown` without one).
pub fn client_ip(req: &axum::extract::Request) -> String {
    if let Some(c) = req.extensions().get::<ClientIp>() {
        return c.0.to_string();
    }
    req.extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or_else(|| "unknown".to_owned(), |c| c.0.ip().to_string())
}

/// The client behind a connection from `peer`: the peer itself, unless it is a trusted proxy;
/// then the rightmost `X-Forwarded-For` address that is not a trusted proxy (what the nearest
/// proxy saw), or the proxy itself when the header is missing or malformed.
pub fn resolve_client(
    peer: IpAddr,
    headers: &axum::http::HeaderMap,
    trusted: &[ipnet::IpNet],
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted_peer(*ip, trusted);
    if !is_trusted(&peer) {
        return peer;
    }
    let mut hops: Vec<&str> = Vec::new();
    for v in headers.get_all("x-forwarded-for") {
        let Ok(v) = v.to_str() else { return peer };
        hops.extend(v.split(',').map(str::trim));
    }
    let mut client = peer;
    for hop in hops.iter().rev() {
        match hop.parse::<IpAddr>() {
            Ok(ip) => {
                client = canonical(ip);
                if !is_trusted(&client) {
                    return client;
                }
            }
            Err(_) => return client,
        }
    }
    client
}

/// Is `peer` one of the trusted reverse proxies (whose `X-Forwarded-*` headers are believed)?
pub fn trusted_peer(peer: IpAddr, trusted: &[ipnet::IpNet]) -> bool {
    trusted.iter().any(|n| n.contains(&canonical(peer)))
}

/// The key per-address bounds count on: an IPv4 address, or the /64 network of an IPv6 one (a
/// single client commonly has a whole /64).
pub fn address_key(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => IpAddr::V6(std::net::Ipv6Addr::from(
            u128::from(v6) & !((1u128 << 64) - 1),
        )),
        v4 => v4,
    }
}

/// An IPv4 address written as IPv6 (`::ffff:1.2.3.4`) read as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Checks between two prunes of idle keys.
const PRUNE_EVERY: u64 = 4096;

pub struct Keyed {
    limiter: DefaultKeyedRateLimiter<String>,
    what: &'static str,
    checks: AtomicU64,
}

fn quota(burst: u32, window: Duration) -> Quota {
    let n = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
    let period = window / n.get();
    Quota::with_period(period.max(Duration::from_nanos(1)))
        .unwrap_or_else(|| Quota::per_second(n))
        .allow_burst(n)
}

impl Keyed {
    /// `burst` requests per key in `window`, refilled evenly; `what` names it in logs.
    pub fn new(burst: u32, window: Duration, what: &'static str) -> Self {
        Self {
            limiter: RateLimiter::keyed(quota(burst, window)),
            what,
            checks: AtomicU64::new(0),
        }
    }

    /// One request for `key`: 429 with the seconds to wait when over the limit.
    pub fn check(&self, key: &str) -> Result<()> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune();
        }
        match self.limiter.check_key(&key.to_owned()) {
            Ok(()) => Ok(()),
            Err(not_until) => Err(tripped(
                self.what,
                not_until.wait_time_from(DefaultClock::default().now()),
            )),
        }
    }

    /// Drops idle keys.
    pub fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// Failure counts per key over a fixed window that starts at a key's first failure: only
/// failures are counted, so a key's own successful requests never use its budget. Bounded in
/// keys: past `MAX_FAILURE_KEYS`, expired entries are dropped, then the oldest.
pub struct Failures {
    window: Duration,
    map: std::sync::Mutex<std::collections::HashMap<String, (u32, std::time::Instant)>>,
}

const MAX_FAILURE_KEYS: usize = 100_000;

impl Failures {
    pub fn new(window: Duration) -> Self {
        Self {
            window,
            map: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Failures of `key` in its current window, and the time until that window ends.
    pub fn count(&self, key: &str) -> (u32, Duration) {
        let Ok(m) = self.map.lock() else {
            return (0, Duration::ZERO);
        };
        match m.get(key) {
            Some((n, since)) if since.elapsed() < self.window => {
                (*n, self.window.saturating_sub(since.elapsed()))
            }
            _ => (0, Duration::ZERO),
        }
    }

    /// One more failure of `key`.
    pub fn add(&self, key: &str) {
        let Ok(mut m) = self.map.lock() else { return };
        if m.len() >= MAX_FAILURE_KEYS && !m.contains_key(key) {
            let window = self.window;
            m.retain(|_, (_, since)| since.elapsed() < window);
            if m.len() >= MAX_FAILURE_KEYS
                && let Some(oldest) = m
                    .iter()
                    .min_by_key(|(_, (_, t))| *t)
                    .map(|(k, _)| k.clone())
            {
                m.remove(&oldest);
            }
        }
        let e = m
            .entry(key.to_owned())
            .or_insert((0, std::time::Instant::now()));
        if e.1.elapsed() >= self.window {
            *e = (0, std::time::Instant::now());
        }
        e.0 = e.0.saturating_add(1);
    }

    /// Forgets `key`'s failures.
    pub fn clear(&self, key: &str) {
        if let Ok(mut m) = self.map.lock() {
            m.remove(key);
        }
    }

    /// Drops expired keys.
    pub fn prune(&self) {
        let window = self.window;
        if let Ok(mut m) = self.map.lock() {
            m.retain(|_, (_, since)| since.elapsed() < window);
            m.shrink_to_fit();
        }
    }
}

/// Counts per key over a fixed window that starts at a key's first count: in this process
/// ([`Failures`]), or — several instances on PostgreSQL — in the table they share
/// ([`Shared`], with the prefix its keys are written under: `"<prefix> <key>"`), so a client
/// spread over instances gains nothing.
pub struct Window {
    local: Failures,
    window: Duration,
    shared: Option<(Shared, &'static str)>,
}

impl Window {
    pub fn new(window: Duration, shared: Option<(Shared, &'static str)>) -> Self {
        Self {
            local: Failures::new(window),
            window,
            shared,
        }
    }

    /// The count of `key` in its current window, and the time until that window ends.
    pub async fn count(&self, key: &str) -> Result<(u32, Duration)> {
        match &self.shared {
            Some((s, prefix)) => s.count(&format!("{prefix} {key}")).await,
            None => Ok(self.local.count(key)),
        }
    }

    /// One more of `key`.
    pub async fn add(&self, key: &str) -> Result<()> {
        match &self.shared {
            Some((s, prefix)) => s
                .hit(&format!("{prefix} {key}"), self.window)
                .await
                .map(|_| ()),
            None => {
                self.local.add(key);
                Ok(())
            }
        }
    }

    /// One more of `key` while fewer than `limit` were admitted in its window; else 429 (the
    /// refused one is not counted here; a shared count may include it, which admits no more).
    pub async fn admit(&self, key: &str, limit: u32, what: &'static str) -> Result<()> {
        let limit = limit.max(1);
        match &self.shared {
            Some((s, prefix)) => {
                let (n, left) = s.hit(&format!("{prefix} {key}"), self.window).await?;
                if n > limit {
                    return Err(tripped(what, left));
                }
            }
            None => {
                let (n, left) = self.local.count(key);
                if n >= limit {
                    return Err(tripped(what, left));
                }
                self.local.add(key);
            }
        }
        Ok(())
    }

    /// Forgets `key`'s count.
    pub async fn clear(&self, key: &str) -> Result<()> {
        match &self.shared {
            Some((s, prefix)) => s.clear(&format!("{prefix} {key}")).await,
            None => {
                self.local.clear(key);
                Ok(())
            }
        }
    }

    /// Drops expired local keys (the shared table is pruned by [`Shared::prune`]).
    pub fn prune(&self) {
        self.local.prune();
    }
}

/// A burst per key in a window: a token bucket refilled evenly in this process ([`Keyed`]), or —
/// several instances on PostgreSQL — a fixed [`Window`] in the table they share.
pub enum Budget {
    Local(Keyed),
    Shared {
        window: Window,
        burst: u32,
        what: &'static str,
    },
}

impl Budget {
    /// `burst` per key in `window`; `what` names it in logs; `shared`: the table and key prefix.
    pub fn new(
        burst: u32,
        window: Duration,
        what: &'static str,
        shared: Option<(Shared, &'static str)>,
    ) -> Self {
        match shared {
            Some(s) => Budget::Shared {
                window: Window::new(window, Some(s)),
                burst,
                what,
            },
            None => Budget::Local(Keyed::new(burst, window, what)),
        }
    }

    /// One request for `key`: 429 with the time to wait when over the budget.
    pub async fn check(&self, key: &str) -> Result<()> {
        match self {
            Budget::Local(k) => k.check(key),
            Budget::Shared {
                window,
                burst,
                what,
            } => window.admit(key, *burst, what).await,
        }
    }

    /// Drops idle local keys.
    pub fn prune(&self) {
        if let Budget::Local(k) = self {
            k.prune();
        }
    }
}

/// A 429 for the limit `what`, logged.
pub fn tripped(what: &'static str, wait: Duration) -> Error {
    tracing::warn!(
        limit = what,
        retry_after = wait.as_secs(),
        "rate limit tripped"
    );
    too_many(wait)
}

/// A 429 asking to wait `wait`.
pub fn too_many(wait: Duration) -> Error {
    let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    Error::TooManyRequests {
        message: format!("too many requests; try again in {secs} s"),
        retry_after: secs,
    }
}

/// At most `per_address` of some costly work (a search) at once per client address: the next
/// one from that address waits its turn (up to `wait`, then a 429), so one client cannot hold
/// every worker while others wait.
pub struct PerAddress {
    per_address: usize,
    wait: Duration,
    what: &'static str,
    turns:
        std::sync::Mutex<std::collections::HashMap<IpAddr, std::sync::Arc<tokio::sync::Semaphore>>>,
}

impl PerAddress {
    pub fn new(per_address: usize, wait: Duration, what: &'static str) -> Self {
        Self {
            per_address: per_address.max(1),
            wait,
            what,
            turns: std::sync::Mutex::default(),
        }
    }

    /// A turn for `ip` (kept until dropped).
    pub async fn turn(&self, ip: IpAddr) -> Result<Turn<'_>> {
        let key = address_key(ip);
        let sem = {
            let mut m = self.turns.lock().unwrap_or_else(|p| p.into_inner());
            m.entry(key)
                .or_insert_with(|| {
                    std::sync::Arc::new(tokio::sync::Semaphore::new(self.per_address))
                })
                .clone()
        };
        let permit = tokio::time::timeout(self.wait, sem.clone().acquire_owned()).await;
        match permit {
            Ok(Ok(p)) => Ok(Turn {
                of: self,
                key,
                sem: Some(sem),
                _permit: Some(p),
            }),
            _ => {
                drop(Turn {
                    of: self,
                    key,
                    sem: Some(sem),
                    _permit: None,
                });
                Err(Error::TooManyRequests {
                    message: format!(
                        "your address already runs {} {} at once; wait for them to finish",
                        self.per_address, self.what
                    ),
                    retry_after: 1,
                })
            }
        }
    }
}

/// A turn of [`PerAddress`]: the address's entry goes when nobody holds or waits for it.
pub struct Turn<'a> {
    of: &'a PerAddress,
    key: IpAddr,
    sem: Option<std::sync::Arc<tokio::sync::Semaphore>>,
    _permit: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self._permit.take();
        let mut m = self.of.turns.lock().unwrap_or_else(|p| p.into_inner());
        // Our copy goes under the map's lock (where every copy is taken), so the last one out
        // sees only the map's.
        self.sem.take();
        if m.get(&self.key)
            .is_some_and(|s| std::sync::Arc::strong_count(s) == 1)
        {
            m.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One address runs one search at a time: its second waits, past the wait it is a 429;
    /// another address is not held up; entries go when unused.
    #[tokio::test]
    async fn one_turn_per_address() {
        let p = PerAddress::new(1, Duration::from_millis(200), "searches");
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = p.turn(a).await.unwrap();
        assert_eq!(p.turn(a).await.err().map(|e| e.status()), Some(429));
        let other = p.turn(b).await.unwrap();
        drop((first, other));
        let again = p.turn(a).await;
        assert!(again.is_ok());
        drop(again);
        assert!(p.turns.lock().unwrap().is_empty(), "no entry left");
    }

    #[test]
    fn bursts_then_refuses_with_a_retry_after() {
        let l = Keyed::new(10, Duration::from_secs(60), "test");
        for _ in 0..10 {
            l.check("1.2.3.4").unwrap();
        }
        match l.check("1.2.3.4") {
            Err(Error::TooManyRequests { retry_after, .. }) => {
                assert!((1..=6).contains(&retry_after))
            }
            other => panic!("{other:?}"),
        }
        l.check("5.6.7.8").unwrap();
    }

    #[test]
    fn failures_count_within_their_window_and_clear() {
        let f = Failures::new(Duration::from_millis(200));
        assert_eq!(f.count("a").0, 0);
        f.add("a");
        f.add("a");
        let (n, left) = f.count("a");
        assert_eq!(n, 2);
        assert!(left > Duration::ZERO && left <= Duration::from_millis(200));
        assert_eq!(f.count("b").0, 0);
        f.clear("a");
        assert_eq!(f.count("a").0, 0);
        f.add("a");
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(f.count("a").0, 0, "the window ended");
        f.add("a");
        assert_eq!(f.count("a").0, 1, "a new window");
    }

    #[test]
    fn the_client_is_read_from_trusted_proxies_only() {
        let nets: Vec<ipnet::IpNet> = vec![
            "10.0.0.0/8".parse().unwrap(),
            "127.0.0.1/32".parse().unwrap(),
        ];
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let mut h = axum::http::HeaderMap::new();
        h.append("x-forwarded-for", "6.6.6.6, 1.2.3.4".parse().unwrap());
        h.append("x-forwarded-for", "10.1.1.1".parse().unwrap());
        // Not a proxy: its header is the client's own claim, ignored.
        assert_eq!(resolve_client(ip("5.5.5.5"), &h, &nets), ip("5.5.5.5"));
        // Through two proxies: the rightmost untrusted hop; the spoofed 6.6.6.6 is never used.
        assert_eq!(resolve_client(ip("127.0.0.1"), &h, &nets), ip("1.2.3.4"));
        assert_eq!(
            resolve_client(ip("::ffff:127.0.0.1"), &h, &nets),
            ip("1.2.3.4")
        );
        // No header, or a malformed hop: the proxy (or the last good hop) itself.
        let empty = axum::http::HeaderMap::new();
        assert_eq!(
            resolve_client(ip("10.0.0.2"), &empty, &nets),
            ip("10.0.0.2")
        );
        let mut bad = axum::http::HeaderMap::new();
        bad.insert("x-forwarded-for", "1.2.3.4, junk".parse().unwrap());
        assert_eq!(resolve_client(ip("10.0.0.2"), &bad, &nets), ip("10.0.0.2"));
        assert_eq!(resolve_client(ip("10.0.0.2"), &h, &[]), ip("10.0.0.2"));
    }
}
