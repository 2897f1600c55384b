//! Sending: one worker at a time per endpoint (a lease on its row), deliveries in the order they
//! were written, the first failure holding the ones after it until its retry (so a receiver sees
//! each record's events in order), exponential backoff, and an endpoint failing for
//! `STOA_HOOKS_DISABLE_AFTER_DAYS` disabled with a mail to the admins. Also: the endpoint's
//! checks on generic writes, its secret, replays and test pings, and the minute's sweep (old
//! deliveries and events deleted; endpoints with due deliveries and no worker woken).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::{Val, now};
use stoa_kernel::{Error, Result};
use stoa_notification::mail::{Email, Mailer};
use stoa_rbac::subjects::Subjects;
use stoa_store::guard::{Effects, WriteGuard};
use stoa_store::jobs::{NewJob, enqueue};
use stoa_store::{Record, Store, repo};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use crate::rows::{DeliveryRow, EndpointRow, EventRow};
use crate::send::{Attempt, Outcome};

mod sweep;

pub const PUMP_JOB: &str = "webhook.pump";
pub const SWEEP_JOB: &str = "webhook.sweep";

/// Events modules name themselves (not a field's move), beside every entity's created, updated
/// and deleted and the entities' declared signals.
pub const NAMED: &[&str] = &["rbac.subject.registered"];

/// The event a test sends.
pub const PING: &str = "webhook.ping";

/// Deliveries one worker sends before it lets go of the endpoint (another job carries on).
const BATCH: usize = 20;
/// How long a worker holds an endpoint: longer than a batch can take.
const LEASE: time::Duration = time::Duration::minutes(10);
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

#[derive(Clone, Debug)]
pub struct Settings {
    pub allow: Vec<SocketAddr>,
    pub timeout: Duration,
    /// Before the first retry; doubled each time after, up to an hour.
    pub retry: Duration,
    pub disable_after: time::Duration,
    pub keep: time::Duration,
    pub language: String,
    pub public_url: String,
}

pub struct Hooks {
    store: Store,
    t: crate::Tables,
    settings: Settings,
    mailer: Arc<Mailer>,
    subjects: Arc<Subjects>,
    /// Where the sweep's scan of old events goes on from (it starts over at the end).
    prune_after: std::sync::Mutex<Option<Uuid>>,
}

/// What a worker found after a batch.
enum Next {
    /// More deliveries are due now.
    More,
    /// The next delivery is due at this time.
    Wait(OffsetDateTime),
    /// Nothing pending.
    Idle,
    /// The endpoint is gone or inactive.
    Stopped,
}

fn ts(t: OffsetDateTime) -> Val {
    Val::Timestamp(t)
}

impl Hooks {
    pub fn new(
        store: Store,
        settings: Settings,
        mailer: Arc<Mailer>,
        subjects: Arc<Subjects>,
    ) -> stoa_api::module::ModuleResult<Self> {
        Ok(Self {
            t: crate::Tables::of(&store)?,
            store,
            settings,
            mailer,
            subjects,
            prune_after: std::sync::Mutex::new(None),
        })
    }

    /// A transaction for the endpoint's bookkeeping (who sends to it, since when it fails, when
    /// it last got something): these writes do not move the endpoints' change counter, so the
    /// write tap does not read the subscriptions again after every batch.
    async fn bookkeeping(&self) -> Result<stoa_store::Tx> {
        self.store.db.begin().await
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Every event name an endpoint may subscribe to, sorted.
    pub fn names(&self) -> Vec<String> {
        crate::events::names(&self.store.registry)
    }

    /// The job's payload is `{"endpoint": id}`.
    pub async fn pump_job(&self, payload: &Value) -> Result<()> {
        let id = payload["endpoint"]
            .as_str()
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(|| Error::internal("webhook.pump without an endpoint"))?;
        self.pump(id).await
    }

    /// Sends what is due to endpoint `id`, batch by batch, while this worker may.
    pub async fn pump(&self, id: Uuid) -> Result<()> {
        for _ in 0..10 {
            let Some(token) = self.lease(id).await? else {
                return Ok(());
            };
            let next = self.deliver_some(id, &token).await;
            self.release(id, &token).await?;
            match next? {
                Next::More => continue,
                Next::Wait(at) => return self.wake_at(id, at).await,
                Next::Stopped => return Ok(()),
                // A delivery written while the lease was let go is sent now: its own job may
                // have found the endpoint held and left it to this worker.
                Next::Idle => match self.head(id).await? {
                    Some(_) => continue,
                    None => return Ok(()),
                },
            }
        }
        self.wake_at(id, now()).await
    }

    /// A job that sends to `id` at `at`.
    async fn wake_at(&self, id: Uuid, at: OffsetDateTime) -> Result<()> {
        let job = NewJob::now(PUMP_JOB, json!({"endpoint": id}))
            .at(at)
            .dedupe(format!(
                "{PUMP_JOB}:{id}:{}",
                at.unix_timestamp_nanos() / 1_000_000
            ));
        let mut tx = self.store.begin().await?;
        enqueue(&mut tx.exec(), &job).await?;
        tx.commit().await
    }

    /// Takes endpoint `id` for this worker: `None` when it is inactive, gone or held by another.
    async fn lease(&self, id: Uuid) -> Result<Option<String>> {
        let mut tx = self.bookkeeping().await?;
        let mut exec = tx.exec();
        let Some(row) = repo::get(&mut exec, &self.t.endpoint, id).await? else {
            return Ok(None);
        };
        let row = EndpointRow::of(&row)?;
        if row.is_active != Some(true) {
            return Ok(None);
        }
        let held_by = row.leased_by;
        if held_by.is_some() && row.leased_until.is_some_and(|until| until > now()) {
            return Ok(None);
        }
        let token = Uuid::new_v4().to_string();
        let taken = repo::set_if(
            &mut exec,
            &self.t.endpoint,
            id,
            &[
                ("leasedBy", Val::Text(token.clone())),
                ("leasedUntil", ts(now() + LEASE)),
            ],
            &[("leasedBy", held_by.map_or(Val::Null, Val::Text))],
        )
        .await?;
        tx.commit().await?;
        Ok(taken.map(|_| token))
    }

    /// Extends this worker's lease on `id`; false when another worker holds it now.
    async fn renew(&self, id: Uuid, token: &str) -> Result<bool> {
        let mut tx = self.bookkeeping().await?;
        let kept = repo::set_if(
            &mut tx.exec(),
            &self.t.endpoint,
            id,
            &[("leasedUntil", ts(now() + LEASE))],
            &[("leasedBy", Val::Text(token.to_owned()))],
        )
        .await?;
        tx.commit().await?;
        Ok(kept.is_some())
    }

    async fn release(&self, id: Uuid, token: &str) -> Result<()> {
        let mut tx = self.bookkeeping().await?;
        repo::set_if(
            &mut tx.exec(),
            &self.t.endpoint,
            id,
            &[("leasedBy", Val::Null), ("leasedUntil", Val::Null)],
            &[("leasedBy", Val::Text(token.to_owned()))],
        )
        .await?;
        tx.commit().await
    }

    /// The oldest pending delivery to `id`.
    async fn head(&self, id: Uuid) -> Result<Option<DeliveryRow>> {
        let q = FindQuery::all()
            .eq(&self.t.delivery, "endpointId", Val::Uuid(id))?
            .eq(&self.t.delivery, "status", Val::Text("pending".into()))?
            .sort(&self.t.delivery, "id", false)?
            .take(1);
        let head = self.store.find(&self.t.delivery, &q).await?.rows.pop();
        head.as_ref().map(DeliveryRow::of).transpose()
    }

    /// Sends up to a batch of due deliveries to `id`, oldest first, stopping at a failure.
    async fn deliver_some(&self, id: Uuid, token: &str) -> Result<Next> {
        let Ok(endpoint) = self.store.get(&self.t.endpoint, id).await else {
            return Ok(Next::Stopped);
        };
        let endpoint = EndpointRow::of(&endpoint)?;
        let secret = self.secret(id).await?;
        let url = endpoint.url.as_deref().unwrap_or_default();
        for _ in 0..BATCH {
            let Some(head) = self.head(id).await? else {
                return Ok(Next::Idle);
            };
            let due = head.next_attempt_at.unwrap_or_else(now);
            if due > now() {
                return Ok(Next::Wait(due));
            }
            // Still this worker's: a slow batch renews its lease before each send, and stops if
            // it lost it (another worker carries on from the same head, in order).
            if !self.renew(id, token).await? {
                return Ok(Next::Stopped);
            }
            let did = head.id;
            let attempts = head.attempts.unwrap_or(0) + 1;
            let event = head.event_id.unwrap_or_default();
            let Some(body) = self.body(did, event, attempts).await? else {
                continue;
            };
            let outcome = Attempt {
                url,
                secret: &secret,
                body: &body,
                event_id: &event.to_string(),
                event_type: head.kind.as_deref().unwrap_or_default(),
                attempt: attempts,
                allow: &self.settings.allow,
                timeout: self.settings.timeout,
            }
            .send()
            .await;
            if outcome.ok {
                self.delivered(id, did, attempts, &outcome).await?;
                continue;
            }
            return self
                .retry_or_disable(id, &endpoint, did, attempts, &outcome)
                .await;
        }
        Ok(Next::More)
    }

    /// What delivery `did` sends: its event's payload; `None` when the event is no longer kept
    /// (kept past STOA_HOOKS_KEEP_DAYS), the delivery then failed with nothing to send.
    async fn body(&self, did: Uuid, event: Uuid, attempts: i64) -> Result<Option<Vec<u8>>> {
        match self.store.get(&self.t.event, event).await {
            Ok(e) => {
                let payload = EventRow::of(&e)?.payload.unwrap_or(Value::Null);
                serde_json::to_vec(&payload)
                    .map(Some)
                    .map_err(Error::internal)
            }
            Err(Error::NotFound { .. }) => {
                self.finish(
                    did,
                    "failed",
                    attempts,
                    None,
                    &fail("the event is no longer kept"),
                )
                .await?;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Records that delivery `did` to `id` arrived: the endpoint no longer failing.
    async fn delivered(&self, id: Uuid, did: Uuid, attempts: i64, outcome: &Outcome) -> Result<()> {
        self.finish(did, "delivered", attempts, None, outcome)
            .await?;
        let mut tx = self.bookkeeping().await?;
        repo::set_if(
            &mut tx.exec(),
            &self.t.endpoint,
            id,
            &[("failingSince", Val::Null), ("lastDeliveryAt", ts(now()))],
            &[],
        )
        .await?;
        tx.commit().await
    }

    /// Records that attempt `attempts` of delivery `did` to `id` failed: it is tried again after
    /// the backoff, and the endpoint is disabled once it has failed for too long.
    async fn retry_or_disable(
        &self,
        id: Uuid,
        endpoint: &EndpointRow,
        did: Uuid,
        attempts: i64,
        outcome: &Outcome,
    ) -> Result<Next> {
        let next = now() + self.backoff(attempts);
        self.finish(did, "pending", attempts, Some(next), outcome)
            .await?;
        tracing::info!(endpoint = %id, delivery = %did, attempts, error = outcome.error.as_deref().unwrap_or(""), "a webhook delivery failed; it is retried");
        let since = endpoint.failing_since.unwrap_or_else(now);
        if now() - since >= self.settings.disable_after {
            let url = endpoint.url.as_deref().unwrap_or_default();
            self.disable(id, url, since, outcome.error.as_deref().unwrap_or(""))
                .await?;
            return Ok(Next::Stopped);
        }
        if endpoint.failing_since.is_none() {
            let mut tx = self.bookkeeping().await?;
            repo::set_if(
                &mut tx.exec(),
                &self.t.endpoint,
                id,
                &[("failingSince", ts(since))],
                &[("failingSince", Val::Null)],
            )
            .await?;
            tx.commit().await?;
        }
        Ok(Next::Wait(next))
    }

    fn backoff(&self, attempts: i64) -> time::Duration {
        let shift = (attempts - 1).clamp(0, 20) as u32;
        let wait = self
            .settings
            .retry
            .saturating_mul(1u32 << shift)
            .min(MAX_BACKOFF);
        time::Duration::try_from(wait).unwrap_or(time::Duration::HOUR)
    }

    /// Records attempt `attempts` of delivery `id`: its status, when to try again, what came back.
    async fn finish(
        &self,
        id: Uuid,
        status: &str,
        attempts: i64,
        next: Option<OffsetDateTime>,
        o: &Outcome,
    ) -> Result<()> {
        let mut set = vec![
            ("updatedAt", ts(now())),
            ("status", Val::Text(status.into())),
            ("attempts", Val::Int(attempts)),
            (
                "responseStatus",
                o.status.map_or(Val::Null, |s| Val::Int(i64::from(s))),
            ),
            (
                "error",
                o.error
                    .as_ref()
                    .map_or(Val::Null, |e| Val::Text(e.chars().take(1000).collect())),
            ),
            ("response", Val::Text(o.response.clone())),
            ("durationMs", Val::Int(o.duration_ms)),
        ];
        if let Some(t) = next {
            set.push(("nextAttemptAt", ts(t)));
        }
        if status == "delivered" {
            set.push(("deliveredAt", ts(now())));
        }
        let mut tx = self.store.begin().await?;
        repo::set_if(&mut tx.exec(), &self.t.delivery, id, &set, &[]).await?;
        tx.commit().await
    }

    /// Stops sending to `id` (its pending deliveries wait for it to be enabled again) and tells
    /// the admins.
    async fn disable(&self, id: Uuid, url: &str, since: OffsetDateTime, error: &str) -> Result<()> {
        let days = self.settings.disable_after.whole_days();
        let reason = format!("every delivery failed for {days} days; the last: {error}");
        let mut tx = self.store.begin().await?;
        let done = repo::set_if(
            &mut tx.exec(),
            &self.t.endpoint,
            id,
            &[
                ("isActive", Val::Bool(false)),
                // Counted again from the first failure after it is turned on again.
                ("failingSince", Val::Null),
                ("disabledAt", ts(now())),
                (
                    "disabledReason",
                    Val::Text(reason.chars().take(500).collect()),
                ),
            ],
            &[("isActive", Val::Bool(true))],
        )
        .await?;
        tx.commit().await?;
        if done.is_none() {
            return Ok(());
        }
        tracing::warn!(endpoint = %id, url, "a webhook endpoint failed for {days} days and was disabled");
        let data = json!({
            "url": url,
            "since": since.format(&Rfc3339).unwrap_or_default(),
            "days": days,
            "error": error,
            "endpointUrl": format!("{}/admin/webhook/endpoint?edit={id}", self.settings.public_url),
        });
        let admins = self.subjects.admin_recipients().await?;
        for (to, lang) in &admins {
            self.mailer
                .queue(Email {
                    topic: "security",
                    template_variant: crate::DISABLED_TEMPLATE,
                    to,
                    language: lang.as_deref().unwrap_or(&self.settings.language),
                    data: data.clone(),
                    secret: Value::Null,
                    attachments: Vec::new(),
                    ..Default::default()
                })
                .await?;
        }
        Ok(())
    }

    /// The endpoint's signing secret.
    pub async fn secret(&self, id: Uuid) -> Result<String> {
        let mut conn = self.store.db.read().await?;
        let got = repo::read_text(&mut conn.exec(), &self.t.endpoint, id, &["secret"]).await?;
        got.and_then(|mut v| v.pop().flatten())
            .ok_or_else(|| Error::not_found(format!("webhook endpoint {id} not found")))
    }

    /// A new signing secret for `id` (the old one stops working at once).
    pub async fn rotate(&self, id: Uuid) -> Result<String> {
        let secret = match stoa_kernel::value::default_val(
            self.t
                .endpoint
                .field("secret")
                .ok_or_else(|| Error::internal("webhook.endpoint has no secret"))?,
        ) {
            Some(Val::Text(s)) => s,
            _ => return Err(Error::internal("no secret was made")),
        };
        let mut tx = self.store.begin().await?;
        repo::set_if(
            &mut tx.exec(),
            &self.t.endpoint,
            id,
            &[("secret", Val::Text(secret.clone()))],
            &[],
        )
        .await?
        .ok_or_else(|| Error::not_found(format!("webhook endpoint {id} not found")))?;
        tx.commit().await?;
        Ok(secret)
    }

    /// Sends delivery `id`'s event again, as a new delivery after the pending ones.
    pub async fn replay(&self, id: Uuid) -> Result<Record> {
        let old = DeliveryRow::of(&self.store.get(&self.t.delivery, id).await?)?;
        let endpoint = old.endpoint_id.unwrap_or_default();
        let event = old.event_id.unwrap_or_default();
        let mut tx = self.store.begin().await?;
        let mut exec = tx.exec();
        let row = crate::events::write_delivery(
            &mut exec,
            &self.t.delivery,
            (endpoint, event),
            old.kind.as_deref().unwrap_or_default(),
            crate::events::Written::Pending(true),
        )
        .await?;
        enqueue(
            &mut exec,
            &NewJob::now(PUMP_JOB, json!({"endpoint": endpoint})),
        )
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Sends a `webhook.ping` event to `id` now and answers its delivery: delivered, or failed
    /// with why (a test is never retried).
    pub async fn test(&self, id: Uuid) -> Result<Record> {
        let endpoint = EndpointRow::of(&self.store.get(&self.t.endpoint, id).await?)?;
        let secret = self.secret(id).await?;
        let event_id = Uuid::now_v7();
        let payload = json!({
            "id": event_id,
            "type": PING,
            "createdAt": now().format(&Rfc3339).unwrap_or_default(),
            "entity": "webhook.endpoint",
            "data": {"id": id, "url": endpoint.url.as_deref()},
        });
        let body = serde_json::to_vec(&payload).map_err(Error::internal)?;
        // Sent first, written after with how it went: a test is never a pending delivery a
        // worker could pick up and retry, nor one that holds the real ones behind it.
        let outcome = Attempt {
            url: endpoint.url.as_deref().unwrap_or_default(),
            secret: &secret,
            body: &body,
            event_id: &event_id.to_string(),
            event_type: PING,
            attempt: 1,
            allow: &self.settings.allow,
            timeout: self.settings.timeout,
        }
        .send()
        .await;
        let mut tx = self.store.begin().await?;
        let mut exec = tx.exec();
        let mut input = Map::new();
        input.insert("type".into(), json!(PING));
        input.insert("entity".into(), json!("webhook.endpoint"));
        input.insert("recordId".into(), json!(id));
        input.insert("payload".into(), payload);
        crate::events::insert(&mut exec, &self.t.event, &input, event_id).await?;
        let status = if outcome.ok { "delivered" } else { "failed" };
        let row = crate::events::write_delivery(
            &mut exec,
            &self.t.delivery,
            (id, event_id),
            PING,
            crate::events::Written::Done(status, &outcome),
        )
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Checks an endpoint's `url` and `events` as written through the API.
    fn check(&self, input: &Map<String, Value>) -> Result<bool> {
        let mut woke = false;
        if let Some(url) = input.get("url") {
            let url = url
                .as_str()
                .ok_or_else(|| Error::invalid_field("url", "give the URL as text"))?;
            stoa_api::outbound::check_url(url, &self.settings.allow, "url")?;
            woke = true;
        }
        if let Some(events) = input.get("events") {
            let events = events
                .as_str()
                .ok_or_else(|| Error::invalid_field("events", "give the event names as text"))?;
            let patterns = crate::events::patterns(events);
            if patterns.is_empty() {
                return Err(Error::invalid_field(
                    "events",
                    "name at least one event, or * for every event",
                ));
            }
            let names = self.names();
            for p in &patterns {
                let known = match p.strip_suffix('*') {
                    Some(prefix) => {
                        !prefix.contains('*') && names.iter().any(|n| n.starts_with(prefix))
                    }
                    None => names.iter().any(|n| n == p),
                };
                if !known {
                    return Err(Error::invalid_field(
                        "events",
                        format!(
                            "no event is called '{p}' (GET /api/webhook/event-types lists them; * at the end matches a prefix)"
                        ),
                    ));
                }
            }
        }
        if input.get("isActive").and_then(Value::as_bool) == Some(true) {
            woke = true;
        }
        Ok(woke)
    }
}

/// A failure that did not reach the network.
fn fail(why: &str) -> Outcome {
    Outcome {
        ok: false,
        status: None,
        error: Some(why.to_owned()),
        response: String::new(),
        duration_ms: 0,
    }
}

/// Generic writes of endpoints: the URL and the event names checked; an endpoint enabled again
/// or pointed elsewhere is sent its waiting deliveries at once.
pub struct EndpointGuard {
    hooks: Arc<Hooks>,
}

impl EndpointGuard {
    pub fn new(hooks: Arc<Hooks>) -> Self {
        Self { hooks }
    }
}

impl WriteGuard for EndpointGuard {
    fn fields(&self) -> &[&'static str] {
        &[]
    }

    fn writes(&self) -> &[&'static str] {
        &[]
    }

    fn check(&self, old: &Record, input: &Map<String, Value>, _actor: &str) -> Result<Effects> {
        let mut effects = Effects::default();
        if self.hooks.check(input)?
            && let Some(id) = old.id()
        {
            effects
                .jobs
                .push(NewJob::now(PUMP_JOB, json!({"endpoint": id})));
        }
        Ok(effects)
    }

    fn check_create(&self, input: &Map<String, Value>) -> Result<()> {
        if input.get("url").is_none_or(Value::is_null) {
            return Err(Error::invalid_field("url", "is required"));
        }
        self.hooks.check(input).map(drop)
    }
}

/// The admins' mail about a disabled endpoint, seeded once (admins may edit it).
pub fn templates() -> Vec<Value> {
    vec![json!({
        "slug": crate::DISABLED_TEMPLATE,
        "adminTitle": "Webhook endpoint disabled (admins)",
        "variant": crate::DISABLED_TEMPLATE,
        "title": "A webhook endpoint was disabled",
        "subject": {
            "en": "Webhook endpoint disabled: {{ url }}",
            "ru": "Адрес вебхуков отключён: {{ url }}"
        },
        "body": {
            "en": "Every delivery to {{ url }} failed for {{ days }} days (since {{ since }}), so Stoa stopped sending to it.\n\nThe last error: {{ error }}\n\nNothing is lost: the events wait for it. Fix the receiver, then enable the endpoint again and they are sent in order: {{ endpointUrl }}\n",
            "ru": "Все отправки на {{ url }} не удавались {{ days }} дн. (с {{ since }}), поэтому Stoa перестала отправлять туда события.\n\nПоследняя ошибка: {{ error }}\n\nНичего не потеряно: события ждут. Исправьте приёмник и снова включите адрес — события уйдут по порядку: {{ endpointUrl }}\n"
        }
    })]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disabled_mail_renders_in_both_languages() {
        let data = json!({"url": "https://example.com/hook", "days": 3, "since": "2026-11-01T00:00:00Z", "error": "the endpoint answered 500", "endpointUrl": "http://h/admin/webhook/endpoint/x"});
        for t in templates() {
            let rendered = stoa_notification::mail::render_seed(&t, &data);
            assert_eq!(rendered.len(), 2, "en and ru");
            for (lang, subject, body) in rendered {
                assert!(
                    subject.contains("https://example.com/hook"),
                    "{lang}: {subject}"
                );
                assert!(body.contains("the endpoint answered 500"), "{lang}: {body}");
                assert!(
                    body.contains("http://h/admin/webhook/endpoint/x"),
                    "{lang}: {body}"
                );
            }
        }
    }
}
