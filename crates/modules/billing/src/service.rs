//! The billing core: payment intents grouped by (currency, type, interval), invoices started
//! through a provider adapter, and the webhook inbox. Every webhook is written to the inbox first
//! (raw body, headers, dedupe key) together with a job that applies it; the job verifies it and
//! applies it exactly once (the inbox row moves out of `received` in the same transaction as the
//! invoice and the intents change), then enqueues the jobs other modules asked for when intents
//! succeed. A crash between receipt and effect loses nothing: the job runs after restart.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};
use stoa_kernel::model::Entity;
use stoa_kernel::value::{Val, fields, now};
use stoa_kernel::{Error, Result};
use stoa_store::jobs::{NewJob, enqueue};
use stoa_store::{Exec, Record, Store, repo};
use uuid::Uuid;

use crate::provider::{Created, Dummy, Event, Incoming, NewPayment, Provider};

pub const JOB_WEBHOOK: &str = "billing.webhook";
pub const JOB_DUMMY_PAY: &str = "billing.dummy-pay";
/// Largest webhook body kept in the inbox.
pub const MAX_WEBHOOK_BODY: usize = 256 * 1024;
/// Headers kept with an inbox entry (never cookies or credentials).
const KEPT_HEADERS: usize = 40;

/// What happened to a webhook.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Received {
    pub id: Option<Uuid>,
    pub duplicate: bool,
}

/// What processing one inbox entry did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Already processed (or being replayed by someone else): nothing done.
    Skipped,
    Rejected(String),
    Ignored(String),
    /// The invoice was paid; these intents succeeded.
    Paid(Vec<Uuid>),
}

struct Entities {
    intent: Arc<Entity>,
    invoice: Arc<Entity>,
    i2c: Arc<Entity>,
    i2i: Arc<Entity>,
    webhook: Arc<Entity>,
    currency: Arc<Entity>,
}

pub struct Billing {
    store: Store,
    e: Entities,
    providers: HashMap<&'static str, Arc<dyn Provider>>,
    allowed: Vec<String>,
    dummy_delay: Duration,
    public_url: String,
    /// Webhooks per client IP (each is written before it is verified).
    webhook_rate: stoa_api::rate::Keyed,
    /// Jobs to enqueue (payload `{"intents": [...]}`) when intents succeed.
    listeners: RwLock<Vec<&'static str>>,
}

impl Billing {
    pub fn new(
        store: Store,
        config: &stoa_api::config::Config,
    ) -> std::result::Result<Self, String> {
        let mut providers: HashMap<&'static str, Arc<dyn Provider>> = HashMap::new();
        providers.insert("dummy", Arc::new(Dummy));
        let mut allowed = Vec::new();
        for p in config
            .payment_providers
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            if !providers.contains_key(p) {
                let mut known: Vec<&str> = providers.keys().copied().collect();
                known.sort_unstable();
                return Err(format!(
                    "STOA_PAYMENT_PROVIDERS: '{p}' is not available here (available: {})",
                    known.join(", ")
                ));
            }
            if !allowed.iter().any(|a| a == p) {
                allowed.push(p.to_owned());
            }
        }
        if allowed.iter().any(|p| p == "dummy") {
            tracing::warn!(
                "the dummy payment provider is enabled: every checkout is paid without money. \
                 Set STOA_PAYMENT_PROVIDERS to real providers in production"
            );
        }
        let e = |k: &str| store.entity(k).map_err(|e| e.to_string());
        let entities = Entities {
            intent: e("billing.payment-intent")?,
            invoice: e("billing.invoice")?,
            i2c: e("billing.payment-intents-to-currencies")?,
            i2i: e("billing.payment-intents-to-invoices")?,
            webhook: e("billing.webhook")?,
            currency: e("billing.currency")?,
        };
        Ok(Self {
            store,
            e: entities,
            providers,
            allowed,
            dummy_delay: Duration::from_secs(config.dummy_webhook_delay),
            public_url: config.public_url(),
            webhook_rate: stoa_api::rate::Keyed::new(
                config.webhook_rate,
                Duration::from_secs(60),
                "webhook ip",
            ),
            listeners: RwLock::new(Vec::new()),
        })
    }

    /// The providers buyers may choose, in the configured order.
    pub fn allowed(&self) -> &[String] {
        &self.allowed
    }

    /// Enqueue job `job` with `{"intents": [ids]}` whenever intents succeed (in the transaction
    /// that marks them).
    pub fn on_paid(&self, job: &'static str) {
        if let Ok(mut l) = self.listeners.write() {
            l.push(job);
        }
    }

    /// The adapter of an allowed provider; 422 naming `provider` otherwise.
    pub fn provider(&self, name: &str) -> Result<Arc<dyn Provider>> {
        if !self.allowed.iter().any(|a| a == name) {
            return Err(Error::invalid_field(
                "provider",
                format!(
                    "Invalid provider '{}': choose one of {}",
                    name.chars().take(40).collect::<String>(),
                    self.allowed.join(", ")
                ),
            ));
        }
        self.providers
            .get(name)
            .cloned()
            .ok_or_else(|| Error::invalid_field("provider", "Invalid provider"))
    }

    /// Creates an intent for `amount` in `currency` (inside the caller's transaction).
    pub async fn create_intent(
        &self,
        exec: &mut Exec<'_>,
        amount: Decimal,
        currency: Uuid,
        kind: &str,
        interval: Option<&str>,
    ) -> Result<Uuid> {
        let row = self
            .store
            .create_in(
                exec,
                &self.e.intent,
                &fields(json!({"amount": amount.normalize().to_string(), "type": kind, "interval": interval})),
            )
            .await?;
        let id = Record::must_id(&row)?;
        self.store
            .create_in(
                exec,
                &self.e.i2c,
                &fields(json!({"paymentIntentId": id, "currencyId": currency})),
            )
            .await?;
        Ok(id)
    }

    /// A draft invoice for `intents` with `provider` (inside the caller's transaction); started
    /// by [`Billing::open_invoice`] after the transaction commits.
    pub async fn draft_invoice(
        &self,
        exec: &mut Exec<'_>,
        intents: &[Uuid],
        provider: &str,
        amount: Decimal,
        success_url: &str,
        cancel_url: &str,
    ) -> Result<Uuid> {
        let row = self
            .store
            .create_in(
                exec,
                &self.e.invoice,
                &fields(json!({
                    "status": "draft",
                    "provider": provider,
                    "amount": amount.normalize().to_string(),
                    "successUrl": success_url,
                    "cancelUrl": cancel_url,
                })),
            )
            .await?;
        let id = Record::must_id(&row)?;
        for i in intents {
            self.store
                .create_in(
                    exec,
                    &self.e.i2i,
                    &fields(json!({"paymentIntentId": i, "invoiceId": id})),
                )
                .await?;
        }
        Ok(id)
    }

    /// Call after committing writes made by [`Billing::create_intent`] / [`Billing::draft_invoice`].
    pub fn touch(&self) {
        for e in [&self.e.intent, &self.e.invoice, &self.e.i2c, &self.e.i2i] {
            self.store.touch(e);
        }
    }

    /// Starts the payment of a draft invoice with its provider (outside any transaction), then
    /// opens it. The dummy provider's webhook is scheduled in the same transaction.
    pub async fn open_invoice(&self, p: &NewPayment, provider: &str) -> Result<Record> {
        let adapter = self.provider(provider)?;
        let Created {
            provider_id,
            payment_url,
        } = match adapter.create(p).await {
            Ok(c) => c,
            Err(e) => {
                let mut tx = self.store.db.begin().await?;
                repo::set_if(
                    &mut tx.exec(),
                    &self.e.invoice,
                    p.invoice,
                    &[("status", Val::Text("failed".into()))],
                    &[("status", Val::Text("draft".into()))],
                )
                .await?;
                tx.commit().await?;
                self.store.touch(&self.e.invoice);
                tracing::warn!(invoice = %p.invoice, provider, error = %e, "the provider did not start the payment");
                return Err(Error::Unavailable(format!(
                    "the payment provider '{provider}' did not answer; try again in a minute"
                )));
            }
        };
        let mut tx = self.store.db.begin().await?;
        let row = {
            let mut exec = tx.exec();
            let row = repo::set_if(
                &mut exec,
                &self.e.invoice,
                p.invoice,
                &[
                    ("status", Val::Text("open".into())),
                    ("providerId", Val::Text(provider_id)),
                    ("paymentUrl", Val::Text(payment_url)),
                ],
                &[("status", Val::Text("draft".into()))],
            )
            .await?
            .ok_or_else(|| Error::conflict_field("invoice", "is no longer a draft"))?;
            if provider == "dummy" {
                let at = now()
                    + time::Duration::try_from(self.dummy_delay).unwrap_or(time::Duration::ZERO);
                enqueue(
                    &mut exec,
                    &NewJob::now(JOB_DUMMY_PAY, json!({"invoice": p.invoice}))
                        .at(at)
                        .dedupe(format!("dummy-pay:{}", p.invoice)),
                )
                .await?;
            }
            row
        };
        tx.commit().await?;
        self.store.touch(&self.e.invoice);
        Ok(row)
    }

    /// Admin: a new invoice for intent `id` with `provider` (DOMAIN's `POST
    /// /api/billing/payment-intents/:id/:provider`), e.g. after a provider failed to start the
    /// payment. Refused while the intent is settled or another of its invoices is open or paid,
    /// so one intent is never charged twice. Return URLs are the intent's earlier ones, never
    /// the caller's (no open redirect).
    pub async fn invoice_for(
        &self,
        id: Uuid,
        provider: &str,
        body: &serde_json::Map<String, Value>,
    ) -> Result<Record> {
        let adapter = self.provider(provider)?;
        let intent = self.store.get(&self.e.intent, id).await?;
        let status = intent.text("status").unwrap_or("requires_payment_method");
        if matches!(status, "succeeded" | "canceled") {
            return Err(Error::conflict_field(
                "status",
                format!("the payment intent is already {status}"),
            ));
        }
        let email = body
            .get("metadata")
            .and_then(|m| m.get("email"))
            .or_else(|| body.get("email"))
            .and_then(Value::as_str)
            .filter(|e| !e.trim().is_empty())
            .map(|e| stoa_kernel::value::normalise_email("metadata.email", e))
            .transpose()?;
        if email.is_none() && adapter.needs_email() {
            return Err(Error::invalid_field(
                "metadata.email",
                format!("is required by the provider '{provider}'"),
            ));
        }
        let earlier = self.invoices_of(&[id]).await?;
        if let Some(busy) = earlier
            .iter()
            .find(|i| matches!(i.text("status"), Some("open" | "paid" | "draft")))
        {
            return Err(Error::conflict_field(
                "invoice",
                format!(
                    "invoice {} of this intent is {}; a second one could charge twice",
                    busy.id().unwrap_or_default(),
                    busy.text("status").unwrap_or("?")
                ),
            ));
        }
        let currency = self
            .currency_slugs(&[id])
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Error::conflict_field("currencyId", "the payment intent has no currency")
            })?;
        let amount = intent
            .decimal("amount")
            .ok_or_else(|| Error::conflict_field("amount", "the payment intent has no amount"))?;
        let last = earlier.last();
        let url = |k: &str| {
            last.and_then(|i| i.text(k))
                .map_or_else(|| format!("{}/", self.public_url), str::to_owned)
        };
        let (success, cancel) = (url("successUrl"), url("cancelUrl"));
        let mut tx = self.store.db.begin().await?;
        let invoice = self
            .draft_invoice(&mut tx.exec(), &[id], provider, amount, &success, &cancel)
            .await?;
        tx.commit().await?;
        self.touch();
        self.open_invoice(
            &NewPayment {
                invoice,
                intents: vec![id],
                amount,
                currency,
                email,
                description: format!("Payment intent {id}"),
                success_url: success,
                cancel_url: cancel,
                kind: intent.text("type").unwrap_or("one_off").to_owned(),
                interval: intent.text("interval").map(str::to_owned),
            },
            provider,
        )
        .await
    }

    /// When every invoice of `intents` is a draft older than `grace` (or failed) — a checkout
    /// cut off before the provider was asked — marks the drafts failed and answers true. An
    /// open or paid invoice, or a recent draft, answers false and changes nothing.
    pub async fn abandon_drafts(&self, intents: &[Uuid], grace: time::Duration) -> Result<bool> {
        let invoices = self.invoices_of(intents).await?;
        let cutoff = now() - grace;
        let stale = |i: &Record| {
            i.text("createdAt")
                .and_then(stoa_kernel::value::parse_timestamp)
                .is_some_and(|t| t < cutoff)
        };
        let drafts: Vec<&Record> = invoices
            .iter()
            .filter(|i| i.text("status") == Some("draft"))
            .collect();
        if drafts.is_empty()
            || !drafts.iter().all(|i| stale(i))
            || invoices
                .iter()
                .any(|i| !matches!(i.text("status"), Some("draft" | "failed")))
        {
            return Ok(false);
        }
        let mut tx = self.store.db.begin().await?;
        for d in &drafts {
            let failed = repo::set_if(
                &mut tx.exec(),
                &self.e.invoice,
                Record::must_id(d)?,
                &[("status", Val::Text("failed".into()))],
                &[("status", Val::Text("draft".into()))],
            )
            .await?;
            if failed.is_none() {
                // Opened meanwhile: the payment did start after all.
                return Ok(false);
            }
        }
        tx.commit().await?;
        self.touch();
        tracing::warn!(
            invoices = drafts.len(),
            "draft invoices abandoned (the checkout was cut off before the provider was asked)"
        );
        Ok(true)
    }

    /// The intents' rows.
    pub async fn intents(&self, ids: &[Uuid]) -> Result<Vec<Record>> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        self.store
            .find_in(&self.e.intent, "id", &vals, ids.len().max(1))
            .await
    }

    /// The intent ↔ invoice links of `intents` and the invoices they name.
    async fn invoice_links(&self, intents: &[Uuid]) -> Result<(Vec<Record>, Vec<Record>)> {
        let vals: Vec<Val> = intents.iter().copied().map(Val::Uuid).collect();
        let links = self
            .store
            .find_in(
                &self.e.i2i,
                "paymentIntentId",
                &vals,
                intents.len().max(1) * 20,
            )
            .await?;
        let ids: Vec<Val> = links
            .iter()
            .filter_map(|l| l.uuid("invoiceId"))
            .collect::<HashSet<_>>()
            .into_iter()
            .map(Val::Uuid)
            .collect();
        let invoices = self
            .store
            .find_in(&self.e.invoice, "id", &ids, ids.len().max(1))
            .await?;
        Ok((links, invoices))
    }

    /// The invoices of `intents`, oldest first.
    pub async fn invoices_of(&self, intents: &[Uuid]) -> Result<Vec<Record>> {
        let (_, mut rows) = self.invoice_links(intents).await?;
        rows.sort_by(|a, b| a.text("createdAt").cmp(&b.text("createdAt")));
        Ok(rows)
    }

    /// One webhook from client `ip`: 429 past `STOA_WEBHOOK_RATE` a minute.
    pub fn limit(&self, ip: &str) -> Result<()> {
        self.webhook_rate.check(ip)
    }

    /// Writes a webhook to the inbox with the job that applies it. A second copy of the same
    /// body is recognised and not stored again.
    pub async fn receive(
        &self,
        provider: &str,
        headers: Vec<(String, String)>,
        body: &[u8],
    ) -> Result<Received> {
        let adapter = self.provider(provider).map_err(|_| {
            Error::not_found(format!(
                "no payment provider '{}' is enabled here",
                provider.chars().take(40).collect::<String>()
            ))
        })?;
        if body.len() > MAX_WEBHOOK_BODY {
            return Err(Error::PayloadTooLarge("webhook body too large".into()));
        }
        let text = String::from_utf8_lossy(body).into_owned();
        let kept: Vec<(String, String)> = headers
            .into_iter()
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "cookie" | "authorization" | "x-rbac-secret-key" | "proxy-authorization"
                )
            })
            .take(KEPT_HEADERS)
            .collect();
        let incoming = Incoming {
            headers: &kept,
            body,
        };
        // The dedupe key holds the body's digest too: a forged webhook naming a real event must
        // not make the real one look like a copy. Exactly-once application rests on the invoice
        // changing state once; the key only stops retransmissions being stored again.
        let digest = hex_digest(body);
        let key: String = adapter
            .event_key(&incoming)
            .unwrap_or_else(|| format!("body:{}", &digest[..16]))
            .chars()
            .take(300)
            .collect();
        let dedupe = format!("{provider}:{key}:{digest}");
        let headers_json: Map<String, Value> =
            kept.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let mut tx = self.store.db.begin().await?;
        let id = {
            let mut exec = tx.exec();
            // The dedupe key is unique: a copy already stored (or being stored concurrently)
            // makes the insert a conflict.
            let row = self
                .store
                .create_in(
                    &mut exec,
                    &self.e.webhook,
                    &fields(json!({
                        "provider": provider,
                        "eventKey": key,
                        "dedupeKey": dedupe,
                        "body": text,
                        "headers": headers_json,
                    })),
                )
                .await;
            match row {
                Ok(row) => {
                    let id = Record::must_id(&row)?;
                    enqueue(&mut exec, &NewJob::now(JOB_WEBHOOK, json!({"id": id}))).await?;
                    Some(id)
                }
                Err(Error::Conflict { .. }) => None,
                Err(e) => return Err(e),
            }
        };
        if id.is_none() {
            drop(tx);
            tracing::info!(provider, event = %key, "duplicate webhook: already in the inbox");
            return Ok(Received {
                id: None,
                duplicate: true,
            });
        }
        tx.commit().await?;
        self.store.touch(&self.e.webhook);
        Ok(Received {
            id,
            duplicate: false,
        })
    }

    /// The body the provider expects back.
    pub fn ack(&self, provider: &str) -> Value {
        self.providers
            .get(provider)
            .map_or_else(|| json!({"data": {"ok": true}}), |p| p.ack())
    }

    pub async fn process_job(&self, payload: &Value) -> Result<()> {
        let id = stoa_api::jobs::uuid_arg(payload, "id")?;
        let outcome = self.process(id).await?;
        tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
        Ok(())
    }

    async fn finish(&self, id: Uuid, status: &str, verified: bool, result: &str) -> Result<bool> {
        let mut tx = self.store.db.begin().await?;
        let done = repo::set_if(
            &mut tx.exec(),
            &self.e.webhook,
            id,
            &[
                ("status", Val::Text(status.into())),
                ("verified", Val::Bool(verified)),
                ("result", Val::Text(result.chars().take(2000).collect())),
                ("processedAt", Val::Timestamp(now())),
            ],
            &[("status", Val::Text("received".into()))],
        )
        .await?
        .is_some();
        tx.commit().await?;
        self.store.touch(&self.e.webhook);
        Ok(done)
    }

    /// Verifies and applies one inbox entry, once.
    pub async fn process(&self, id: Uuid) -> Result<Outcome> {
        let row = self.store.get(&self.e.webhook, id).await?;
        if row.text("status") != Some("received") {
            return Ok(Outcome::Skipped);
        }
        let provider = row.text("provider").unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = row
            .json("headers")
            .and_then(|h| h.as_object().cloned())
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
            .collect();
        let body = row.text("body").unwrap_or_default().as_bytes().to_vec();
        let Some(adapter) = self.providers.get(provider.as_str()).cloned() else {
            self.finish(id, "rejected", false, "the provider is not enabled")
                .await?;
            return Ok(Outcome::Rejected("the provider is not enabled".into()));
        };
        let incoming = Incoming {
            headers: &headers,
            body: &body,
        };
        let event = match adapter.verify(&incoming).await {
            Ok(e) => e,
            Err(Error::Unavailable(m)) => return Err(Error::Unavailable(m)),
            Err(e) => {
                let why = format!("not verified: {}", e.public_message());
                self.finish(id, "rejected", false, &why).await?;
                tracing::warn!(inbox = %id, provider, reason = %why, "webhook rejected");
                return Ok(Outcome::Rejected(why));
            }
        };
        self.apply(id, &provider, &event).await
    }

    async fn find_invoice(&self, provider: &str, event: &Event) -> Result<Option<Record>> {
        if let Some(i) = event.invoice {
            return Ok(self
                .store
                .find_by(&self.e.invoice, &[("id", Val::Uuid(i))], 1)
                .await?
                .into_iter()
                .next()
                .filter(|r| r.text("provider") == Some(provider)));
        }
        if let Some(p) = &event.provider_id {
            return Ok(self
                .store
                .find_by(
                    &self.e.invoice,
                    &[
                        ("providerId", Val::Text(p.clone())),
                        ("provider", Val::Text(provider.into())),
                    ],
                    1,
                )
                .await?
                .into_iter()
                .next());
        }
        Ok(None)
    }

    async fn currency_slugs(&self, intents: &[Uuid]) -> Result<HashSet<String>> {
        let cur: Vec<Val> = self
            .store
            .linked(
                &self.e.i2c,
                "paymentIntentId",
                intents,
                "currencyId",
                intents.len().max(1) * 2,
            )
            .await?
            .into_iter()
            .map(Val::Uuid)
            .collect();
        Ok(self
            .store
            .find_in(&self.e.currency, "id", &cur, cur.len().max(1))
            .await?
            .iter()
            .filter_map(|c| c.text("slug").map(str::to_lowercase))
            .collect())
    }

    async fn apply(&self, id: Uuid, provider: &str, event: &Event) -> Result<Outcome> {
        let Some(invoice) = self.find_invoice(provider, event).await? else {
            self.finish(id, "rejected", false, "no such invoice of this provider")
                .await?;
            return Ok(Outcome::Rejected("no such invoice".into()));
        };
        let invoice_id = Record::must_id(&invoice)?;
        if let Some(t) = &event.token {
            let expected = invoice.text("providerId").unwrap_or_default();
            let same: bool =
                subtle::ConstantTimeEq::ct_eq(t.as_bytes(), expected.as_bytes()).into();
            if !same || expected.is_empty() {
                self.finish(
                    id,
                    "rejected",
                    false,
                    "the proof does not match the invoice",
                )
                .await?;
                return Ok(Outcome::Rejected(
                    "the proof does not match the invoice".into(),
                ));
            }
        }
        if !event.paid {
            self.finish(id, "ignored", true, "the event does not pay the invoice")
                .await?;
            return Ok(Outcome::Ignored("not a payment".into()));
        }
        let due = invoice.decimal("amount").unwrap_or_default();
        let paid = event.amount.unwrap_or(due);
        if paid < due {
            let why = format!("paid {paid}, but the invoice is for {due}");
            self.finish(id, "rejected", true, &why).await?;
            return Ok(Outcome::Rejected(why));
        }
        let intent_ids = self
            .store
            .linked(
                &self.e.i2i,
                "invoiceId",
                &[invoice_id],
                "paymentIntentId",
                1000,
            )
            .await?;
        if let Some(c) = &event.currency {
            let slugs = self.currency_slugs(&intent_ids).await?;
            if !slugs.contains(&c.to_lowercase()) {
                let why = format!(
                    "paid in {c}, but the invoice is in {}",
                    slugs.into_iter().collect::<Vec<_>>().join(", ")
                );
                self.finish(id, "rejected", true, &why).await?;
                return Ok(Outcome::Rejected(why));
            }
        }
        let mut intents = self.intents(&intent_ids).await?;
        intents.sort_by(|a, b| a.text("createdAt").cmp(&b.text("createdAt")));
        let listeners: Vec<&'static str> =
            self.listeners.read().map(|l| l.clone()).unwrap_or_default();
        let mut tx = self.store.db.begin().await?;
        let succeeded = {
            let mut exec = tx.exec();
            // The inbox entry is claimed first: a concurrent run of the same entry stops here.
            let claimed = repo::set_if(
                &mut exec,
                &self.e.webhook,
                id,
                &[
                    ("status", Val::Text("processed".into())),
                    ("verified", Val::Bool(true)),
                    ("invoiceId", Val::Uuid(invoice_id)),
                    ("processedAt", Val::Timestamp(now())),
                ],
                &[("status", Val::Text("received".into()))],
            )
            .await?;
            if claimed.is_none() {
                return Ok(Outcome::Skipped);
            }
            let mut opened = None;
            for from in ["open", "draft", "failed"] {
                opened = repo::set_if(
                    &mut exec,
                    &self.e.invoice,
                    invoice_id,
                    &[("status", Val::Text("paid".into()))],
                    &[("status", Val::Text(from.into()))],
                )
                .await?;
                if opened.is_some() {
                    break;
                }
            }
            if opened.is_none() {
                repo::set_if(
                    &mut exec,
                    &self.e.webhook,
                    id,
                    &[
                        ("status", Val::Text("ignored".into())),
                        ("result", Val::Text("the invoice was already paid".into())),
                    ],
                    &[],
                )
                .await?;
                tx.commit().await?;
                self.store.touch(&self.e.webhook);
                return Ok(Outcome::Ignored("already paid".into()));
            }
            let mut left = paid;
            let mut succeeded = Vec::new();
            for it in &intents {
                let status = it.text("status").unwrap_or_default();
                if matches!(status, "succeeded" | "canceled") {
                    continue;
                }
                let amount = it.decimal("amount").unwrap_or_default();
                if amount > left {
                    continue;
                }
                let iid = Record::must_id(it)?;
                if repo::set_if(
                    &mut exec,
                    &self.e.intent,
                    iid,
                    &[("status", Val::Text("succeeded".into()))],
                    &[("status", Val::Text(status.into()))],
                )
                .await?
                .is_some()
                {
                    left -= amount;
                    succeeded.push(iid);
                }
            }
            repo::set_if(
                &mut exec,
                &self.e.webhook,
                id,
                &[(
                    "result",
                    Val::Text(format!(
                        "invoice paid; {} intent(s) succeeded",
                        succeeded.len()
                    )),
                )],
                &[],
            )
            .await?;
            if !succeeded.is_empty() {
                for job in &listeners {
                    enqueue(
                        &mut exec,
                        &NewJob::now(*job, json!({"intents": succeeded}))
                            .dedupe(format!("{job}:{invoice_id}")),
                    )
                    .await?;
                }
            }
            succeeded
        };
        tx.commit().await?;
        for e in [&self.e.webhook, &self.e.invoice, &self.e.intent] {
            self.store.touch(e);
        }
        tracing::info!(invoice = %invoice_id, intents = succeeded.len(), "invoice paid");
        Ok(Outcome::Paid(succeeded))
    }

    /// Puts an inbox entry back to `received` and enqueues its job again (admin replay).
    pub async fn replay(&self, id: Uuid) -> Result<Record> {
        let mut tx = self.store.db.begin().await?;
        let row = {
            let mut exec = tx.exec();
            let row = repo::set_if(
                &mut exec,
                &self.e.webhook,
                id,
                &[
                    ("status", Val::Text("received".into())),
                    ("result", Val::Text("replayed by an admin".into())),
                ],
                &[],
            )
            .await?
            .ok_or_else(|| Error::not_found(format!("billing.webhook {id} not found")))?;
            enqueue(&mut exec, &NewJob::now(JOB_WEBHOOK, json!({"id": id}))).await?;
            row
        };
        tx.commit().await?;
        self.store.touch(&self.e.webhook);
        Ok(row)
    }

    /// The dummy provider's own webhook, run as a job after the configured delay.
    pub async fn dummy_pay(&self, payload: &Value) -> Result<()> {
        let invoice = stoa_api::jobs::uuid_arg(payload, "invoice")?;
        let row = self.store.get(&self.e.invoice, invoice).await?;
        let token = row.text("providerId").unwrap_or_default();
        let body = json!({"data": {"id": invoice, "token": token, "status": "paid"}}).to_string();
        // Through the inbox like any provider's webhook; its job applies it.
        self.receive(
            "dummy",
            vec![("content-type".into(), "application/json".into())],
            body.as_bytes(),
        )
        .await?;
        Ok(())
    }

    /// The date each of `ids` was paid (the newest paid invoice's `updatedAt`): for subscription
    /// lapse. Intents without a paid invoice are absent.
    pub async fn paid_at(&self, intents: &[Uuid]) -> Result<HashMap<Uuid, String>> {
        let (links, invoices) = self.invoice_links(intents).await?;
        let paid: HashMap<Uuid, String> = invoices
            .iter()
            .filter(|i| i.text("status") == Some("paid"))
            .filter_map(|i| Some((i.id()?, i.text("updatedAt")?.to_owned())))
            .collect();
        let mut out: HashMap<Uuid, String> = HashMap::new();
        for l in &links {
            let (Some(intent), Some(inv)) = (l.uuid("paymentIntentId"), l.uuid("invoiceId")) else {
                continue;
            };
            if let Some(at) = paid.get(&inv) {
                let e = out.entry(intent).or_default();
                if *e < *at {
                    *e = at.clone();
                }
            }
        }
        Ok(out)
    }
}

fn hex_digest(body: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
