//! Several instances on one PostgreSQL database: what one instance changes, the others learn at
//! once through `LISTEN`/`NOTIFY`.
//!
//! - **Changes** (`stoa_touch`): each key [`Store::touch`] bumps here is sent to the others, which
//!   bump their own counters. Every cache keyed on them — page bundles, the sitemap, permissions,
//!   live sessions, the paid counter — is then stale everywhere as soon as it is here, and each
//!   instance sends its own subscribers the `revalidate` events.
//! - **Live events** (`stoa_live`): what a module publishes (a chat message) goes through the
//!   [`ClusterBus`] to every instance's hub, so a subscriber reaches it whichever instance it
//!   is connected to. A body too large for a notification (8 000 bytes) is kept in a table for
//!   a minute and the notification names its row.
//!
//! A notification sent while an instance's listening connection was down is lost; when the
//! connection comes back, that instance treats everything as changed (its caches rebuild and
//! its subscribers revalidate). Nonces and rate-limit counters live in tables
//! ([`stoa_store::cluster::Shared`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use stoa_kernel::Result;
use stoa_store::Store;
use stoa_store::cluster::Shared;
use tokio::sync::{Notify, mpsc, watch};
use uuid::Uuid;

use crate::live::{Audience, Bus, Hub};

/// The channel of changed keys.
pub const TOUCH: &str = "stoa_touch";
/// The channel of live events.
pub const LIVE: &str = "stoa_live";
/// Longest payload sent inline (PostgreSQL's limit is 8 000 bytes).
const INLINE: usize = 7_000;
/// Live events waiting to be sent; past it one is dropped with a warning.
const QUEUE: usize = 4_096;
/// After sending changes, how long the sender gathers the next ones before it sends again. Each
/// `NOTIFY` is a transaction of its own that PostgreSQL commits one at a time (its queue's lock
/// is held through the commit): under a burst of writes, one per write was 4 commits a checkout
/// (docs/benchmarks.md, 2026-12-01). The other instances hear of a change at most this much later.
const TOUCH_PACE: Duration = Duration::from_millis(20);

/// This instance's part in a cluster.
pub struct Cluster {
    /// Names this instance in what it sends, so it skips its own notifications.
    instance: String,
    shared: Shared,
    touched: Arc<Touched>,
    live: mpsc::Sender<Outgoing>,
    outgoing: Mutex<Option<mpsc::Receiver<Outgoing>>>,
}

#[derive(Default)]
struct Touched {
    keys: Mutex<HashSet<String>>,
    wake: Notify,
}

struct Outgoing {
    kind: String,
    audience: Audience,
    data: String,
}

/// The live-event bus over PostgreSQL: delivers here at once and sends to the other instances.
pub struct ClusterBus {
    live: mpsc::Sender<Outgoing>,
}

impl Bus for ClusterBus {
    fn send(&self, hub: &Hub, kind: &str, audience: Audience, data: String) {
        let out = Outgoing {
            kind: kind.to_owned(),
            audience: audience.clone(),
            data: data.clone(),
        };
        hub.deliver(kind, audience, data);
        if self.live.try_send(out).is_err() {
            tracing::warn!(
                kind,
                "a live event was not sent to the other instances (queue full)"
            );
        }
    }
}

fn audience_json(a: &Audience) -> Value {
    match a {
        Audience::Everyone => json!("everyone"),
        Audience::Admins => json!("admins"),
        Audience::Subjects(s) => json!(s),
    }
}

fn audience_from(v: &Value) -> Option<Audience> {
    match v {
        Value::String(s) if s == "everyone" => Some(Audience::Everyone),
        Value::String(s) if s == "admins" => Some(Audience::Admins),
        Value::Array(_) => serde_json::from_value::<Vec<Uuid>>(v.clone())
            .ok()
            .map(Audience::Subjects),
        _ => None,
    }
}

impl Cluster {
    /// `Some` on PostgreSQL.
    pub fn new(store: &Store) -> Option<Self> {
        let shared = Shared::of(&store.db)?;
        let (live, rx) = mpsc::channel(QUEUE);
        Some(Self {
            instance: Uuid::new_v4().simple().to_string(),
            shared,
            touched: Arc::default(),
            live,
            outgoing: Mutex::new(Some(rx)),
        })
    }

    /// The bus the hub is made with.
    pub fn bus(&self) -> Box<dyn Bus> {
        Box::new(ClusterBus {
            live: self.live.clone(),
        })
    }

    /// Listens (before returning, so nothing sent after start-up is missed), sends this
    /// instance's changes and events, and stops when `hub` is dropped.
    pub async fn start(&self, store: &Store, hub: &Arc<Hub>) -> Result<()> {
        let listener = self.shared.listen(&[TOUCH, LIVE]).await?;
        let Some(outgoing) = self.outgoing.lock().ok().and_then(|mut o| o.take()) else {
            return Ok(());
        };
        let stopped = hub.stopped();
        let touched = Arc::downgrade(&self.touched);
        store.tell_changes(Box::new(move |key| {
            if let Some(t) = touched.upgrade() {
                if let Ok(mut keys) = t.keys.lock() {
                    keys.insert(key.to_owned());
                }
                t.wake.notify_one();
            }
        }));
        tokio::spawn(send_changes(
            self.shared.clone(),
            self.instance.clone(),
            self.touched.clone(),
            stopped.clone(),
        ));
        tokio::spawn(send_events(
            self.shared.clone(),
            self.instance.clone(),
            outgoing,
        ));
        tokio::spawn(prune_events(self.shared.clone(), stopped.clone()));
        tokio::spawn(receive(
            listener,
            self.shared.clone(),
            self.instance.clone(),
            store.clone(),
            Arc::downgrade(hub),
            stopped,
        ));
        Ok(())
    }
}

/// Payloads of `instance keys…` under [`INLINE`] bytes each.
fn change_payloads(instance: &str, keys: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = instance.to_owned();
    for k in keys {
        if cur.len() + 1 + k.len() > INLINE && cur.len() > instance.len() {
            out.push(std::mem::replace(&mut cur, instance.to_owned()));
        }
        cur.push(' ');
        cur.push_str(k);
    }
    if cur.len() > instance.len() {
        out.push(cur);
    }
    out
}

async fn send_changes(
    shared: Shared,
    instance: String,
    touched: Arc<Touched>,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            () = touched.wake.notified() => {}
            _ = stopped.changed() => return,
        }
        let keys: Vec<String> = match touched.keys.lock() {
            Ok(mut k) => k.drain().collect(),
            Err(_) => return,
        };
        let payloads = change_payloads(&instance, &keys);
        if shared.is_closed() {
            return;
        }
        if let Err(e) = shared.notify_all(TOUCH, &payloads).await {
            // The pool closed while this was sent: the server is stopping, not failing.
            if shared.is_closed() {
                return;
            }
            tracing::error!(error = %e, "changes were not sent to the other instances");
        }
        tokio::select! {
            () = tokio::time::sleep(TOUCH_PACE) => {}
            _ = stopped.changed() => return,
        }
    }
}

/// Drops the bodies of large live events once every instance has had its minute to read them.
async fn prune_events(shared: Shared, mut stopped: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stopped.changed() => return,
        }
        if shared.is_closed() {
            return;
        }
        if let Err(e) = shared.prune_events().await {
            tracing::error!(error = %e, "old live event bodies were not dropped");
        }
    }
}

/// Live events sent in one statement at most.
const EVENT_BATCH: usize = 64;

async fn send_events(shared: Shared, instance: String, mut rx: mpsc::Receiver<Outgoing>) {
    while let Some(first) = rx.recv().await {
        // What queued meanwhile goes with it: one statement for a burst (a paid order tells the
        // buyer, the admins and the counters' pages at once).
        let mut batch = vec![first];
        while batch.len() < EVENT_BATCH {
            match rx.try_recv() {
                Ok(o) => batch.push(o),
                Err(_) => break,
            }
        }
        let mut payloads = Vec::with_capacity(batch.len());
        for o in &batch {
            let body = json!({
                "i": instance,
                "k": o.kind,
                "a": audience_json(&o.audience),
                "d": o.data,
            })
            .to_string();
            if body.len() <= INLINE {
                payloads.push(body);
                continue;
            }
            match shared.put_event(&body).await {
                Ok(id) => payloads.push(json!({"i": instance, "ref": id}).to_string()),
                Err(e) => {
                    tracing::error!(error = %e, kind = o.kind, "a live event was not sent to the other instances");
                }
            }
        }
        if let Err(e) = shared.notify_all(LIVE, &payloads).await {
            tracing::error!(error = %e, events = payloads.len(), "live events were not sent to the other instances");
        }
    }
}

async fn receive(
    mut listener: sqlx::postgres::PgListener,
    shared: Shared,
    instance: String,
    store: Store,
    hub: Weak<Hub>,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let got = tokio::select! {
            r = listener.try_recv() => r,
            _ = stopped.changed() => return,
        };
        match got {
            Ok(Some(n)) => {
                if n.channel() == TOUCH {
                    let mut parts = n.payload().split(' ');
                    if parts.next() == Some(instance.as_str()) {
                        continue;
                    }
                    for key in parts {
                        if key == stoa_store::jobs::KEY {
                            // Another instance enqueued work: claim now, not at the next poll.
                            stoa_store::jobs::wake_all();
                        }
                        store.changed_elsewhere(key);
                    }
                } else if n.channel() == LIVE {
                    let Some(hub) = hub.upgrade() else { return };
                    deliver(&shared, &instance, &hub, n.payload()).await;
                }
            }
            Ok(None) => {
                // The connection dropped and is made again on the next call: whatever was sent
                // meanwhile is lost, so everything counts as changed.
                tracing::warn!("the cluster's listening connection was lost; reconnecting");
                store.all_changed_elsewhere();
            }
            Err(sqlx::Error::PoolClosed) => return,
            Err(e) => {
                tracing::error!(error = %e, "the cluster's listening connection failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

async fn deliver(shared: &Shared, instance: &str, hub: &Hub, payload: &str) {
    let Ok(mut v) = serde_json::from_str::<Value>(payload) else {
        return;
    };
    if v["i"].as_str() == Some(instance) {
        return;
    }
    if let Some(id) = v["ref"].as_i64() {
        match shared.event(id).await {
            Ok(Some(body)) => match serde_json::from_str(&body) {
                Ok(b) => v = b,
                Err(_) => return,
            },
            Ok(None) => {
                tracing::warn!(
                    id,
                    "a live event from another instance expired before it was read"
                );
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, "a live event from another instance could not be read");
                return;
            }
        }
    }
    let (Some(kind), Some(audience), Some(data)) =
        (v["k"].as_str(), audience_from(&v["a"]), v["d"].as_str())
    else {
        return;
    };
    hub.deliver(kind, audience, data.to_owned());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_payloads_stay_under_the_limit_and_carry_every_key() {
        let keys: Vec<String> = (0..2_000).map(|i| format!("module.entity{i}")).collect();
        let p = change_payloads("me", &keys);
        assert!(p.len() > 1);
        assert!(p.iter().all(|x| x.len() <= INLINE && x.starts_with("me ")));
        let back: Vec<&str> = p.iter().flat_map(|x| x.split(' ').skip(1)).collect();
        assert_eq!(back, keys.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(change_payloads("me", &[]).is_empty());
    }

    #[test]
    fn audiences_survive_the_wire() {
        let s = Uuid::new_v4();
        for a in [
            Audience::Everyone,
            Audience::Admins,
            Audience::Subjects(vec![s]),
        ] {
            assert_eq!(audience_from(&audience_json(&a)), Some(a));
        }
        assert_eq!(audience_from(&json!("someone")), None);
    }
}
