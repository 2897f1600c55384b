//! Live events: what changed, pushed to open pages as Server-Sent Events (`GET /api/live`).
//!
//! Modules [`Hub::publish`] an event with its audience — everyone (revalidation of public data),
//! administrators (revalidation of private data), or named subjects (the members of a chat). The
//! audience is decided by the publisher, where the data is; a subscriber is only ever sent the
//! events addressed to it, so a non-member of a chat never receives one of its events.
//!
//! Every event has an id, `<epoch>.<n>`: `epoch` names this hub (it changes when the server
//! restarts), `n` counts up. The hub keeps the latest events in a ring bounded in count and bytes;
//! a client that reconnects with `Last-Event-ID` is sent what it missed from the ring, or a
//! `reset` event when the ring no longer reaches back that far (or the id is from another epoch),
//! after which the client reloads what it shows. A subscriber too slow for the channel is treated
//! the same way. Nothing is lost silently.
//!
//! The [`Bus`] is the seam for several instances: events go out through it and come back to
//! every hub; the in-process bus is the default.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::routing::get;
use futures::Stream;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use uuid::Uuid;

use crate::auth::Caller;
use crate::crud::AppState;
use crate::routes::{Access, RouteBook};

/// Who an event is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audience {
    /// Every subscriber, signed in or not (changes to public data).
    Everyone,
    /// Administrators only (changes to private data).
    Admins,
    /// These subjects (and no one else, administrators included).
    Subjects(Vec<Uuid>),
}

impl Audience {
    fn reaches(&self, who: &Who) -> bool {
        match self {
            Audience::Everyone => true,
            Audience::Admins => who.admin,
            Audience::Subjects(s) => who.subject.is_some_and(|me| s.contains(&me)),
        }
    }
}

/// One event.
#[derive(Debug)]
pub struct Event {
    /// Position in this hub's stream.
    pub n: u64,
    /// `revalidate`, `chat.message`, …
    pub kind: String,
    pub audience: Audience,
    /// The JSON payload, serialised once.
    pub data: String,
}

impl Event {
    fn size(&self) -> usize {
        self.kind.len() + self.data.len() + 64
    }
}

/// Carries events between hubs. [`LocalBus`] delivers to the hub of this process; a bus over
/// PostgreSQL LISTEN/NOTIFY (or any broker) lets several instances share one stream of changes.
pub trait Bus: Send + Sync {
    fn send(&self, hub: &Hub, kind: &str, audience: Audience, data: String);
}

/// The in-process bus.
pub struct LocalBus;

impl Bus for LocalBus {
    fn send(&self, hub: &Hub, kind: &str, audience: Audience, data: String) {
        hub.deliver(kind, audience, data);
    }
}

/// The limits of a hub.
#[derive(Clone, Copy, Debug)]
pub struct HubLimits {
    /// Events kept for resuming.
    pub ring_events: usize,
    /// Bytes kept for resuming.
    pub ring_bytes: usize,
    /// Open subscriptions at once; past it `GET /api/live` answers 503.
    pub subscribers: usize,
    /// Open subscriptions of one subject (or of anonymous visitors from one address).
    pub per_subscriber: usize,
    /// Open subscriptions from one client address, whoever is signed in (guests made at will
    /// from one address share it).
    pub per_address: usize,
}

impl Default for HubLimits {
    fn default() -> Self {
        Self {
            ring_events: 8192,
            ring_bytes: 8 * 1024 * 1024,
            subscribers: 10_000,
            per_subscriber: 16,
            per_address: 32,
        }
    }
}

struct Ring {
    events: VecDeque<Arc<Event>>,
    bytes: usize,
}

/// The event hub of one process.
pub struct Hub {
    epoch: String,
    next: AtomicU64,
    ring: Mutex<Ring>,
    tx: broadcast::Sender<Arc<Event>>,
    limits: HubLimits,
    open: AtomicUsize,
    per: Mutex<std::collections::HashMap<String, usize>>,
    bus: Box<dyn Bus>,
    /// Set when the server stops: every stream ends, so a graceful shutdown is not held open.
    closing: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("epoch", &self.epoch)
            .field("open", &self.open.load(Ordering::Relaxed))
            .finish()
    }
}

/// What the ring holds after a given id.
#[derive(Debug)]
pub enum Since {
    /// The events after it, in order.
    Events(Vec<Arc<Event>>),
    /// The ring no longer reaches back that far, or the id is from another epoch: reload.
    Reset,
}

impl Hub {
    pub fn new(limits: HubLimits) -> Self {
        Self::with_bus(limits, Box::new(LocalBus))
    }

    pub fn with_bus(limits: HubLimits, bus: Box<dyn Bus>) -> Self {
        let (tx, _) = broadcast::channel(1024);
        let epoch = Uuid::new_v4().simple().to_string()[..12].to_owned();
        Self {
            epoch,
            next: AtomicU64::new(1),
            ring: Mutex::new(Ring {
                events: VecDeque::new(),
                bytes: 0,
            }),
            tx,
            limits,
            open: AtomicUsize::new(0),
            per: Mutex::default(),
            bus,
            closing: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Sends `data` to `audience` as a `kind` event.
    pub fn publish(&self, kind: &str, audience: Audience, data: &Value) {
        if matches!(&audience, Audience::Subjects(s) if s.is_empty()) {
            return;
        }
        self.bus.send(self, kind, audience, data.to_string());
    }

    /// Takes an event from the bus into this hub: numbered, kept in the ring, sent to the
    /// subscribers.
    pub fn deliver(&self, kind: &str, audience: Audience, data: String) {
        let Ok(mut ring) = self.ring.lock() else {
            return;
        };
        let event = Arc::new(Event {
            n: self.next.fetch_add(1, Ordering::AcqRel),
            kind: kind.to_owned(),
            audience,
            data,
        });
        ring.bytes += event.size();
        ring.events.push_back(event.clone());
        while ring.events.len() > self.limits.ring_events || ring.bytes > self.limits.ring_bytes {
            match ring.events.pop_front() {
                Some(old) => ring.bytes -= old.size(),
                None => break,
            }
        }
        // Sent under the lock, so subscribers see events in ring order.
        let _ = self.tx.send(event);
    }

    /// The id a client resumes from.
    pub fn id_of(&self, e: &Event) -> String {
        format!("{}.{}", self.epoch, e.n)
    }

    /// The id of the newest event (`<epoch>.0` before the first).
    pub fn last_id(&self) -> String {
        format!(
            "{}.{}",
            self.epoch,
            self.next.load(Ordering::Acquire).saturating_sub(1)
        )
    }

    /// The events after `last` (an id this hub gave out).
    pub fn since(&self, last: &str) -> Since {
        let Some(n) = last
            .split_once('.')
            .filter(|(e, _)| *e == self.epoch)
            .and_then(|(_, n)| n.parse::<u64>().ok())
        else {
            return Since::Reset;
        };
        let Ok(ring) = self.ring.lock() else {
            return Since::Reset;
        };
        let newest = self.next.load(Ordering::Acquire).saturating_sub(1);
        if n > newest {
            return Since::Reset;
        }
        let oldest = ring.events.front().map_or(newest + 1, |e| e.n);
        // Everything after `n` must still be here: n + 1 >= oldest.
        if n + 1 < oldest {
            return Since::Reset;
        }
        Since::Events(ring.events.iter().filter(|e| e.n > n).cloned().collect())
    }

    /// Changes when the hub closes, and fails once it is dropped: what background tasks that
    /// serve it wait on to stop.
    pub fn stopped(&self) -> tokio::sync::watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Sends `data` to `audience` on this instance only (events every instance makes for
    /// itself, such as `revalidate` from its change counters).
    pub fn publish_here(&self, kind: &str, audience: Audience, data: &Value) {
        if matches!(&audience, Audience::Subjects(s) if s.is_empty()) {
            return;
        }
        self.deliver(kind, audience, data.to_string());
    }

    /// Ends every open stream (the server is stopping); later subscriptions end at once.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// How many subscriptions are open.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// Opens a subscription for `who` (counted against the limits until it is dropped).
    fn subscribe(self: &Arc<Self>, who: &Who) -> crate::error::ApiResult<Subscription> {
        if self.open.fetch_add(1, Ordering::AcqRel) >= self.limits.subscribers {
            self.open.fetch_sub(1, Ordering::AcqRel);
            return Err(stoa_kernel::Error::Unavailable(
                "too many open live connections; try again in a minute".into(),
            )
            .into());
        }
        // The subject (or an anonymous visitor's address) within `per_subscriber`; a signed-in
        // subject's address as well, within `per_address`.
        let mut limited = vec![(who.key.clone(), self.limits.per_subscriber)];
        if let Some(a) = who.address.as_ref().filter(|a| **a != who.key) {
            limited.push((a.clone(), self.limits.per_address));
        }
        let over = {
            let mut per = self.per.lock().map_err(|_| {
                crate::error::ApiError::from(stoa_kernel::Error::internal("live hub poisoned"))
            })?;
            let mut over = false;
            for (k, limit) in &limited {
                let n = per.entry(k.clone()).or_insert(0);
                *n += 1;
                over |= *n > *limit;
            }
            over
        };
        let keys = limited.into_iter().map(|(k, _)| k).collect();
        let sub = Subscription {
            hub: self.clone(),
            keys,
            rx: self.tx.subscribe(),
            closing: self.closing.subscribe(),
        };
        if over {
            return Err(stoa_kernel::Error::TooManyRequests {
                message: "too many live connections from this account or address; close some \
                          tabs"
                    .into(),
                retry_after: 60,
            }
            .into());
        }
        Ok(sub)
    }
}

/// Who a subscription is for.
#[derive(Clone, Debug)]
struct Who {
    subject: Option<Uuid>,
    admin: bool,
    /// What the per-subscriber limit counts: the subject, else the client address.
    key: String,
    /// The client address (`ip:…`), counted as well for a signed-in subject.
    address: Option<String>,
}

struct Subscription {
    hub: Arc<Hub>,
    keys: Vec<String>,
    rx: broadcast::Receiver<Arc<Event>>,
    closing: tokio::sync::watch::Receiver<bool>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.open.fetch_sub(1, Ordering::AcqRel);
        if let Ok(mut per) = self.hub.per.lock() {
            for k in &self.keys {
                if let Some(n) = per.get_mut(k) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        per.remove(k);
                    }
                }
            }
        }
    }
}

fn sse(hub: &Hub, e: &Event) -> SseEvent {
    SseEvent::default()
        .id(hub.id_of(e))
        .event(e.kind.as_str())
        .data(e.data.as_str())
}

fn reset(hub: &Hub) -> SseEvent {
    SseEvent::default()
        .id(hub.last_id())
        .event("reset")
        .data("{}")
}

/// The stream of one subscription: first what it missed (or a reset), then live events.
fn stream(
    sub: Subscription,
    who: Who,
    last: Option<String>,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    // The receiver exists before the ring is read, so nothing falls between the two.
    let hub = sub.hub.clone();
    let mut backlog: VecDeque<SseEvent> = VecDeque::new();
    let mut seen = 0u64;
    match last.as_deref().map(|l| hub.since(l)) {
        None => {
            backlog.push_back(
                SseEvent::default()
                    .id(hub.last_id())
                    .event("hello")
                    .data(json!({"id": hub.last_id()}).to_string()),
            );
            seen = hub.next.load(Ordering::Acquire).saturating_sub(1);
        }
        Some(Since::Reset) => {
            backlog.push_back(reset(&hub));
            seen = hub.next.load(Ordering::Acquire).saturating_sub(1);
        }
        Some(Since::Events(events)) => {
            for e in events {
                seen = e.n;
                if e.audience.reaches(&who) {
                    backlog.push_back(sse(&hub, &e));
                }
            }
            if seen == 0 {
                seen = last
                    .as_deref()
                    .and_then(|l| l.split_once('.'))
                    .and_then(|(_, n)| n.parse().ok())
                    .unwrap_or(0);
            }
        }
    }
    futures::stream::unfold(
        (sub, who, backlog, seen),
        |(mut sub, who, mut backlog, mut seen)| async move {
            loop {
                if let Some(e) = backlog.pop_front() {
                    return Some((Ok(e), (sub, who, backlog, seen)));
                }
                let received = tokio::select! {
                    r = sub.rx.recv() => r,
                    _ = sub.closing.wait_for(|c| *c) => return None,
                };
                match received {
                    Ok(e) => {
                        if e.n <= seen {
                            continue;
                        }
                        seen = e.n;
                        if e.audience.reaches(&who) {
                            let out = sse(&sub.hub, &e);
                            return Some((Ok(out), (sub, who, backlog, seen)));
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Too slow for the channel: catch up from the ring, or reset.
                        let hub = sub.hub.clone();
                        match hub.since(&format!("{}.{seen}", hub.epoch)) {
                            Since::Events(events) => {
                                for e in events {
                                    seen = e.n;
                                    if e.audience.reaches(&who) {
                                        backlog.push_back(sse(&hub, &e));
                                    }
                                }
                            }
                            Since::Reset => {
                                seen = hub.next.load(Ordering::Acquire).saturating_sub(1);
                                backlog.push_back(reset(&hub));
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        },
    )
}

/// `Last-Event-ID` (sent by `EventSource` on reconnect) or `?lastEventId=`.
fn last_event_id(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| {
            form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .find(|(k, _)| k == "lastEventId")
                .map(|(_, v)| v.into_owned())
        })
        .filter(|v| !v.is_empty() && v.len() <= 64)
}

/// `GET /api/live`: the caller's events as Server-Sent Events.
pub fn routes(hub: Arc<Hub>) -> RouteBook<AppState> {
    RouteBook::new().add(
        Access::Public,
        "GET",
        "/api/live",
        get(move |State(_s): State<AppState>, req: Request| {
            let hub = hub.clone();
            async move {
                let caller = Caller::of(&req);
                let address = req
                    .extensions()
                    .get::<crate::rate::ClientIp>()
                    .map(|c| format!("ip:{}", crate::rate::address_key(c.0)));
                let key = match caller.subject {
                    Some(s) => format!("s:{s}"),
                    None => address
                        .clone()
                        .unwrap_or_else(|| format!("ip:{}", crate::rate::client_ip(&req))),
                };
                let who = Who {
                    subject: caller.subject,
                    admin: caller.admin,
                    key,
                    address,
                };
                let last = last_event_id(req.headers(), req.uri().query());
                let sub = match hub.subscribe(&who) {
                    Ok(s) => s,
                    Err(e) => return e.into_response(),
                };
                let mut res = Sse::new(stream(sub, who, last))
                    .keep_alive(KeepAlive::new().interval(Duration::from_secs(20)))
                    .into_response();
                let h = res.headers_mut();
                h.insert(
                    axum::http::header::CACHE_CONTROL,
                    axum::http::HeaderValue::from_static("no-store"),
                );
                // nginx and similar proxies: pass the stream through unbuffered.
                h.insert(
                    "x-accel-buffering",
                    axum::http::HeaderValue::from_static("no"),
                );
                *res.status_mut() = StatusCode::OK;
                res
            }
        }),
        json!({
            "operationId": "live",
            "tags": ["live"],
            "summary": "Live events (Server-Sent Events): `revalidate` {entities} when data the caller may see changes; `chat.*` for the chats the caller is in; `reset` when the caller must reload (it missed more than the server keeps). Reconnect with Last-Event-ID to receive what was missed.",
            "parameters": [{"name": "lastEventId", "in": "query", "required": false, "schema": {"type": "string"}}],
            "responses": {
                "200": {"description": "An event stream", "content": {"text/event-stream": {}}},
                "429": {"description": "Too many connections from this account or address"},
                "503": {"description": "Too many connections in all"}
            }
        }),
    )
}

/// Publishes `revalidate` {entities} when entities change: public ones to everyone, private ones
/// to administrators. Checks the store's change counters every `every`; ends when the hub does.
pub async fn watch_store(store: stoa_store::Store, hub: std::sync::Weak<Hub>, every: Duration) {
    let keys: Vec<(String, bool)> = store
        .registry
        .entities()
        .iter()
        // Private: declared so, or a relation touching private records (who wrote in which chat).
        .map(|e| (e.key(), !store.registry.publicly_readable(e)))
        .collect();
    let mut seen: Vec<(u64, u64)> = keys
        .iter()
        .map(|(k, _)| (store.version(k), store.seen_version(k)))
        .collect();
    let mut any = store.any_version();
    loop {
        tokio::time::sleep(every).await;
        let Some(hub) = hub.upgrade() else {
            return;
        };
        let now = store.any_version();
        if now == any {
            continue;
        }
        any = now;
        let (mut public, mut private) = (Vec::new(), Vec::new());
        for (i, (key, is_private)) in keys.iter().enumerate() {
            let v = (store.version(key), store.seen_version(key));
            if v != seen[i] {
                // A public entity whose change no visitor may see (a hidden file written, a
                // draft): only administrators' pages show it.
                let visitors_see = v.1 != seen[i].1;
                seen[i] = v;
                if *is_private || !visitors_see {
                    private.push(key.as_str());
                } else {
                    public.push(key.as_str());
                }
            }
        }
        // Each instance sees every change in its counters (see `cluster`) and tells its own
        // subscribers.
        if !public.is_empty() {
            hub.publish_here(
                "revalidate",
                Audience::Everyone,
                &json!({"entities": public}),
            );
        }
        if !private.is_empty() {
            hub.publish_here(
                "revalidate",
                Audience::Admins,
                &json!({"entities": private}),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub(events: usize) -> Hub {
        Hub::new(HubLimits {
            ring_events: events,
            ..Default::default()
        })
    }

    #[test]
    fn resumes_from_the_ring_or_resets() {
        let h = hub(3);
        assert!(matches!(h.since(&h.last_id()), Since::Events(v) if v.is_empty()));
        let start = h.last_id();
        for i in 0..2 {
            h.publish("x", Audience::Everyone, &json!({"i": i}));
        }
        let Since::Events(v) = h.since(&start) else {
            panic!("expected events")
        };
        assert_eq!(v.len(), 2);
        for i in 2..6 {
            h.publish("x", Audience::Everyone, &json!({"i": i}));
        }
        // Six published, three kept: the start is out of reach.
        assert!(matches!(h.since(&start), Since::Reset));
        assert!(matches!(h.since("otherepoch.1"), Since::Reset));
        assert!(matches!(h.since("garbage"), Since::Reset));
        let third_last = format!("{}.{}", h.epoch, 3);
        assert!(matches!(h.since(&third_last), Since::Events(v) if v.len() == 3));
        assert!(matches!(h.since(&format!("{}.99", h.epoch)), Since::Reset));
    }

    #[test]
    fn the_ring_is_bounded_in_bytes() {
        let h = Hub::new(HubLimits {
            ring_bytes: 1000,
            ..Default::default()
        });
        for _ in 0..100 {
            h.publish("x", Audience::Everyone, &json!({"pad": "y".repeat(100)}));
        }
        let ring = h.ring.lock().unwrap();
        assert!(ring.bytes <= 1000, "{}", ring.bytes);
        assert!(ring.events.len() < 10);
    }

    #[test]
    fn audiences() {
        let a = Uuid::new_v4();
        let b = Uuid::new_v4();
        let who = |s: Option<Uuid>, admin| Who {
            subject: s,
            admin,
            key: String::new(),
            address: None,
        };
        assert!(Audience::Everyone.reaches(&who(None, false)));
        assert!(!Audience::Admins.reaches(&who(Some(a), false)));
        assert!(Audience::Admins.reaches(&who(Some(a), true)));
        assert!(Audience::Subjects(vec![a]).reaches(&who(Some(a), false)));
        assert!(!Audience::Subjects(vec![a]).reaches(&who(Some(b), true)));
        assert!(!Audience::Subjects(vec![a]).reaches(&who(None, false)));
    }
}
