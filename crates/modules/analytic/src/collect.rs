//! First-party, cookie-free analytics: page views and named events, counted per day.
//!
//! A hit (`POST /api/analytic/collect`) is checked, reduced to what is counted — the path without
//! its query, the referrer's host, the language, a device class — and buffered in memory; every
//! couple of seconds the buffer is written as daily counters in one transaction
//! (`analytic.count`, one row per day, metric and key, bumped in place). Nothing identifies a
//! visitor: no cookie is set and no address is stored. Visitors are counted by a hash of
//! address and browser under a salt that is random, kept in memory only and replaced every day,
//! so yesterday's hashes cannot be recomputed even by the operator.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use stoa_kernel::query::{FilterValue, FindQuery, Op};
use stoa_kernel::value::{Val, now};
use stoa_kernel::{Error, Result};
use stoa_store::cluster::Shared;
use stoa_store::{Store, repo};

/// Hits buffered between flushes; past it new hits are dropped (and counted as dropped).
pub const BUFFER: usize = 20_000;
/// Distinct visitors remembered per day (past it, each hit counts as a new visitor).
const SEEN_CAP: usize = 500_000;
/// Distinct pages (or referrers, events) counted per day; the rest are counted under `(other)`.
const KEYS_PER_DAY: usize = 2_000;
/// How long a day's salt and its seen visitors are kept in the shared state (past midnight, so
/// late flushes of the day still find them; then they are pruned).
const SALT_KEPT: std::time::Duration = std::time::Duration::from_secs(2 * 24 * 3600);
/// Counter rows one dashboard reads at most.
const DASHBOARD_ROWS: usize = 100_000;

/// Named events the site sends.
pub const EVENTS: &[&str] = &[
    "donation-started",
    "checkout-started",
    "checkout-completed",
    "form-submitted",
    "sign-up",
];

#[derive(Debug, Clone)]
struct Hit {
    day: String,
    /// `view` or `event`.
    event: Option<String>,
    path: String,
    referrer: Option<String>,
    language: String,
    device: &'static str,
    /// For a view: the digest of the address and user agent, held in memory until the flush
    /// salts it (never stored).
    visitor: Option<[u8; 32]>,
}

/// Hits counted, by day, metric and key.
type Counts = HashMap<(String, &'static str, String), i64>;

struct Day {
    day: String,
    /// The day's salt: random, the same on every instance (kept in the shared state on
    /// PostgreSQL), forgotten with the day. `None` until the first flush of the day reads it.
    salt: Option<[u8; 32]>,
    seen: HashSet<[u8; 16]>,
    /// Keys counted today per metric (to bound distinct keys).
    keys: HashMap<&'static str, HashSet<String>>,
}

pub struct Collector {
    store: Store,
    /// Several instances on one PostgreSQL database: the day's salt and who was seen today.
    shared: Option<Shared>,
    buf: Mutex<Vec<Hit>>,
    today: Mutex<Day>,
    pub dropped: AtomicU64,
    /// Held through a flush: a flush that finds another under way waits for it, so every hit
    /// buffered before `flush` was called is written when it returns.
    flushing: tokio::sync::Mutex<()>,
}

fn day_of(t: time::OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day())
}

fn fresh_salt() -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    s[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    s
}

/// The device class of a user agent; `None` for a crawler (not counted).
pub fn device(ua: &str) -> Option<&'static str> {
    let l = ua.to_ascii_lowercase();
    if [
        "bot",
        "crawler",
        "spider",
        "slurp",
        "facebookexternalhit",
        "preview",
    ]
    .iter()
    .any(|b| l.contains(b))
    {
        return None;
    }
    if l.contains("ipad") || l.contains("tablet") {
        Some("tablet")
    } else if l.contains("mobi") || l.contains("android") || l.contains("iphone") {
        Some("mobile")
    } else {
        Some("desktop")
    }
}

/// The path of a page as counted: no query or fragment, at most 200 characters.
fn clean_path(p: &str) -> Result<String> {
    let p = p.split(['?', '#']).next().unwrap_or("");
    if !p.starts_with('/') || p.starts_with("//") || p.chars().count() > 200 || p.contains('\0') {
        return Err(Error::invalid_field(
            "path",
            "must be the page's path, starting with / (at most 200 characters)",
        ));
    }
    // `/ru/` and `/ru` are one page.
    let trimmed = p.trim_end_matches('/');
    Ok(if trimmed.is_empty() { "/" } else { trimmed }.to_owned())
}

/// The host of a referrer URL (none for the site itself or for something that is not a URL).
fn referrer_host(r: &str, own_host: &str) -> Option<String> {
    let rest = r.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?.rsplit('@').next()?;
    let host = host.split(':').next()?.to_ascii_lowercase();
    if host.is_empty() || host.len() > 100 || host == own_host {
        return None;
    }
    Some(host.trim_start_matches("www.").to_owned())
}

impl Collector {
    pub fn new(store: Store) -> Self {
        Self {
            shared: Shared::of(&store.db),
            store,
            buf: Mutex::new(Vec::new()),
            today: Mutex::new(Day {
                day: day_of(now()),
                salt: None,
                seen: HashSet::new(),
                keys: HashMap::new(),
            }),
            dropped: AtomicU64::new(0),
            flushing: tokio::sync::Mutex::new(()),
        }
    }

    /// Takes one hit from a visitor (`ip` and `ua` only feed today's salted hash) and buffers it.
    /// `own_host` is the site's (its own pages are not referrers).
    pub fn hit(&self, body: &Map<String, Value>, ip: &str, ua: &str, own_host: &str) -> Result<()> {
        let kind = body.get("type").and_then(Value::as_str).unwrap_or("view");
        let event = match kind {
            "view" => None,
            "event" => {
                let name = body.get("name").and_then(Value::as_str).unwrap_or_default();
                if !EVENTS.contains(&name) {
                    return Err(Error::invalid_field(
                        "name",
                        format!("must be one of: {}", EVENTS.join(", ")),
                    ));
                }
                Some(name.to_owned())
            }
            _ => return Err(Error::invalid_field("type", "must be view or event")),
        };
        let path = clean_path(body.get("path").and_then(Value::as_str).unwrap_or_default())?;
        let Some(device) = device(ua) else {
            return Ok(());
        };
        let language = body
            .get("language")
            .and_then(Value::as_str)
            .filter(|l| stoa_kernel::model::LANGUAGES.contains(l))
            .unwrap_or("other")
            .to_owned();
        let referrer = body
            .get("referrer")
            .and_then(Value::as_str)
            .and_then(|r| referrer_host(r, own_host));
        let today = day_of(now());
        let visitor = event.is_none().then(|| {
            let mut h = Sha256::new();
            h.update(ip.as_bytes());
            h.update([0]);
            h.update(ua.as_bytes());
            <[u8; 32]>::from(h.finalize())
        });
        let mut buf = self
            .buf
            .lock()
            .map_err(|_| Error::internal("analytics buffer poisoned"))?;
        if buf.len() >= BUFFER {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        buf.push(Hit {
            day: today,
            event,
            path,
            referrer,
            language,
            device,
            visitor,
        });
        Ok(())
    }

    /// Records a named event from the server (a paid order), as a hit without a visitor.
    pub fn server_event(&self, name: &str, path: &str) {
        if let Ok(mut buf) = self.buf.lock()
            && buf.len() < BUFFER
        {
            buf.push(Hit {
                day: day_of(now()),
                event: Some(name.to_owned()),
                path: path.to_owned(),
                referrer: None,
                language: "other".into(),
                device: "server",
                visitor: None,
            });
        }
    }

    /// The salt of `day`: on PostgreSQL the one every instance uses (the first written wins).
    async fn salt_of(&self, day: &str) -> Result<[u8; 32]> {
        let Some(shared) = &self.shared else {
            return Ok(fresh_salt());
        };
        let kept = shared
            .value_or(
                &format!("analytic:salt:{day}"),
                &hex::encode(fresh_salt()),
                SALT_KEPT,
            )
            .await?;
        let mut salt = [0u8; 32];
        hex::decode_to_slice(&kept, &mut salt)
            .map_err(|_| Error::internal("the shared analytics salt is not 32 bytes of hex"))?;
        Ok(salt)
    }

    /// Which of `hits` are a visitor's first view today: salted with the day's salt, looked up
    /// among the visitors this process saw, then (on PostgreSQL) among those every instance
    /// saw. Views of a day already gone (hits buffered over midnight) count no visitor.
    async fn visitors(&self, hits: &[Hit]) -> Result<Vec<bool>> {
        let mut out = vec![false; hits.len()];
        let Some(day) = hits.iter().map(|h| h.day.as_str()).max() else {
            return Ok(out);
        };
        {
            let mut d = self.day()?;
            if d.day.as_str() != day {
                // A new day: a new salt, and yesterday's visitors and keys are forgotten.
                *d = Day {
                    day: day.to_owned(),
                    salt: None,
                    seen: HashSet::new(),
                    keys: HashMap::new(),
                };
            }
        }
        if !hits.iter().any(|h| h.visitor.is_some() && h.day == day) {
            return Ok(out);
        }
        if self.day()?.salt.is_none() {
            let salt = self.salt_of(day).await?;
            self.day()?.salt.get_or_insert(salt);
        }
        let mut fresh = Vec::new();
        {
            let mut d = self.day()?;
            let salt = d.salt.unwrap_or_default();
            for (i, h) in hits.iter().enumerate() {
                let Some(inner) = h.visitor.filter(|_| h.day == d.day) else {
                    continue;
                };
                let mut hs = Sha256::new();
                hs.update(salt);
                hs.update(inner);
                let mut id = [0u8; 16];
                id.copy_from_slice(&hs.finalize()[..16]);
                if d.seen.len() >= SEEN_CAP || d.seen.insert(id) {
                    fresh.push((i, id));
                }
            }
        }
        match &self.shared {
            None => fresh.iter().for_each(|(i, _)| out[*i] = true),
            Some(shared) => {
                let tokens: Vec<String> = fresh
                    .iter()
                    .map(|(_, id)| format!("analytic:seen:{day}:{}", hex::encode(id)))
                    .collect();
                let first = shared.issue_many(&tokens, SALT_KEPT).await?;
                for ((i, _), t) in fresh.iter().zip(&tokens) {
                    out[*i] = first.contains(t);
                }
            }
        }
        Ok(out)
    }

    fn day(&self) -> Result<std::sync::MutexGuard<'_, Day>> {
        self.today
            .lock()
            .map_err(|_| Error::internal("analytics day poisoned"))
    }

    /// Writes the buffered hits as daily counters in one transaction. Returns the hits written.
    /// Every hit buffered before the call is written when it returns, also when the background
    /// flush had taken it a moment before (that flush is waited for).
    pub async fn flush(&self) -> Result<usize> {
        let _one_at_a_time = self.flushing.lock().await;
        let hits = match self.buf.lock() {
            Ok(mut b) => std::mem::take(&mut *b),
            Err(_) => return Err(Error::internal("analytics buffer poisoned")),
        };
        if hits.is_empty() {
            return Ok(0);
        }
        let new_visitor = self.visitors(&hits).await?;
        let counts = self.tally(&hits, &new_visitor)?;
        self.write_counts(&counts).await?;
        Ok(hits.len())
    }

    /// The counters `hits` bump, by day, metric and key (past [`KEYS_PER_DAY`] keys of a metric
    /// today, under `(other)`); `new_visitor` says which hits are a visitor's first of the day.
    fn tally(&self, hits: &[Hit], new_visitor: &[bool]) -> Result<Counts> {
        let mut counts: Counts = HashMap::new();
        let mut d = self.day()?;
        let mut bump = |day: &str, metric: &'static str, key: String| {
            let key = if metric == "total" || day != d.day {
                key
            } else {
                let set = d.keys.entry(metric).or_default();
                if set.contains(&key) || set.len() < KEYS_PER_DAY {
                    set.insert(key.clone());
                    key
                } else {
                    "(other)".to_owned()
                }
            };
            *counts.entry((day.to_owned(), metric, key)).or_default() += 1;
        };
        for (h, new_visitor) in hits.iter().zip(new_visitor) {
            match &h.event {
                None => {
                    bump(&h.day, "total", "views".into());
                    bump(&h.day, "page", h.path.clone());
                    bump(&h.day, "device", h.device.into());
                    bump(&h.day, "language", h.language.clone());
                    if let Some(r) = &h.referrer {
                        bump(&h.day, "referrer", r.clone());
                    }
                    if *new_visitor {
                        bump(&h.day, "total", "visitors".into());
                    }
                }
                Some(name) => bump(&h.day, "event", name.clone()),
            }
        }
        Ok(counts)
    }

    /// Adds `counts` to the stored daily counters, in one transaction.
    async fn write_counts(&self, counts: &Counts) -> Result<()> {
        let e = self.store.entity("analytic.count")?;
        let idx = |f: &str| {
            e.field_index(f)
                .ok_or_else(|| Error::internal(format!("analytic.count.{f} is not declared")))
        };
        let (id, created, updated, bucket, day, metric, key, value) = (
            idx("id")?,
            idx("createdAt")?,
            idx("updatedAt")?,
            idx("bucket")?,
            idx("day")?,
            idx("metric")?,
            idx("key")?,
            idx("value")?,
        );
        let t = now();
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            for ((d, m, k), n) in counts {
                let vals = [
                    (id, Val::Uuid(uuid::Uuid::now_v7())),
                    (created, Val::Timestamp(t)),
                    (updated, Val::Timestamp(t)),
                    (bucket, Val::Text(format!("{d}|{m}|{k}"))),
                    (day, Val::Text(d.clone())),
                    (metric, Val::Text((*m).to_owned())),
                    (key, Val::Text(k.clone())),
                    (value, Val::Int(*n)),
                ];
                repo::add_to(&mut exec, &e, &vals, bucket, value).await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// The admin dashboard for the last `days` days: views and visitors per day, top pages and
    /// referrers, devices, languages, events and the donation funnel.
    pub async fn dashboard(&self, days: i64) -> Result<Value> {
        let e = self.store.entity("analytic.count")?;
        let since = day_of(now() - time::Duration::days(days - 1));
        let q = FindQuery::all().filter(
            &e,
            "day",
            Op::Gte,
            FilterValue::One(Val::Text(since.clone())),
        )?;
        let rows = self.store.find_in_query(&e, q, DASHBOARD_ROWS).await?;
        let mut per_day: std::collections::BTreeMap<String, (i64, i64)> = (0..days)
            .map(|i| (day_of(now() - time::Duration::days(days - 1 - i)), (0, 0)))
            .collect();
        let mut sums: HashMap<String, HashMap<String, i64>> = HashMap::new();
        for r in &rows {
            let crate::rows::CountRow {
                day: Some(d),
                metric: Some(m),
                key: Some(k),
                value,
            } = crate::rows::CountRow::of(r)?
            else {
                continue;
            };
            let n = value.unwrap_or(0);
            match (m.as_str(), k.as_str()) {
                ("total", "views") => per_day.entry(d).or_default().0 += n,
                ("total", "visitors") => per_day.entry(d).or_default().1 += n,
                (m @ ("page" | "referrer" | "device" | "language" | "event"), k) => {
                    *sums
                        .entry(m.to_owned())
                        .or_default()
                        .entry(k.to_owned())
                        .or_default() += n;
                }
                _ => {}
            }
        }
        let top = |m: &str, n: usize| -> Vec<Value> {
            let mut v: Vec<(String, i64)> = sums
                .get(m)
                .map(|s| s.iter().map(|(k, n)| (k.clone(), *n)).collect())
                .unwrap_or_default();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            v.into_iter()
                .take(n)
                .map(|(k, n)| json!({"key": k, "count": n}))
                .collect()
        };
        let event = |name: &str| {
            sums.get("event")
                .and_then(|s| s.get(name))
                .copied()
                .unwrap_or(0)
        };
        let views: i64 = per_day.values().map(|v| v.0).sum();
        Ok(json!({
            "days": days,
            "since": since,
            "perDay": per_day.iter().map(|(d, (v, u))| json!({"day": d, "views": v, "visitors": u})).collect::<Vec<_>>(),
            "views": views,
            "visitors": per_day.values().map(|v| v.1).sum::<i64>(),
            "topPages": top("page", 10),
            "topReferrers": top("referrer", 10),
            "devices": top("device", 5),
            "languages": top("language", 5),
            "events": top("event", 20),
            "funnel": {
                "views": views,
                "started": event("donation-started"),
                "paid": event("checkout-completed"),
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_a_hit_to_what_is_counted() {
        assert_eq!(clean_path("/blog?utm=x#top").ok().as_deref(), Some("/blog"));
        assert_eq!(clean_path("/ru/").ok().as_deref(), Some("/ru"));
        assert_eq!(clean_path("/").ok().as_deref(), Some("/"));
        assert!(clean_path("https://evil.example/").is_err());
        assert!(clean_path("//evil.example").is_err());
        assert_eq!(
            referrer_host("https://www.google.com/search?q=1", "site.test").as_deref(),
            Some("google.com")
        );
        assert_eq!(referrer_host("http://site.test/about", "site.test"), None);
        assert_eq!(referrer_host("not a url", "site.test"), None);
        assert_eq!(
            device("Mozilla/5.0 (iPhone; CPU iPhone OS) Mobile"),
            Some("mobile")
        );
        assert_eq!(device("Googlebot/2.1"), None);
        assert_eq!(
            device("Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/120"),
            Some("desktop")
        );
    }
}
