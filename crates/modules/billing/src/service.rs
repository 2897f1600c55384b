//! The billing core: payment intents grouped by (currency, type, interval), invoices started
//! through a provider adapter, and the webhook inbox. Every webhook is written to the inbox first
//! (raw body, headers, dedupe key) together with a job that applies it; the job verifies it and
//! applies it exactly once (the inbox row moves out of `received` in the same transaction as the
//! invoice and the intents change), then enqueues the jobs other modules asked for when intents
//! succeed. A crash between receipt and effect loses nothing: the job runs after restart. What
//! our own server reports paid (the dummy provider's webhook, a status API's answer) is applied
//! in the transaction that writes its entry, the job only when that fails: the receipt and its
//! effect commit together or not at all.

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

use crate::provider::{
    Ack, Created, Event, Incoming, InvoiceRef, NewPayment, Outcome as Said, Provider,
};

pub const JOB_WEBHOOK: &str = "billing.webhook";

/// Another module's work when intents succeed, done in the transaction that marks them (an
/// order moves on with its payment's commit, not in a job after it).
pub trait PaidHook: Send + Sync {
    /// `intents`: the rows just marked `succeeded`. An error undoes only this hook's writes; the
    /// payment stands and the hook's job runs instead.
    fn paid_in<'a, 'b>(
        &'a self,
        exec: &'a mut Exec<'b>,
        intents: &'a [Record],
    ) -> stoa_api::module::BoxFuture<'a, Result<()>>;
}

/// What runs when intents succeed: `hook` in the same transaction, and job `job` (payload
/// `{"intents": [ids]}`) when the hook fails.
#[derive(Clone)]
struct Listener {
    job: &'static str,
    hook: Arc<dyn PaidHook>,
}
pub const JOB_DUMMY_PAY: &str = "billing.dummy-pay";
/// Asks a provider's status API about an invoice still open after its webhook was expected.
pub const JOB_CHECK: &str = "billing.check";
/// Tells the admins about a payment whose amount or currency differs from its invoice.
pub const JOB_ALERT: &str = "billing.alert";
/// Re-queues accepted inbox entries left waiting (see [`Billing::sweep_inbox`]).
pub const JOB_INBOX_SWEEP: &str = "billing.inbox-sweep";
/// How long an accepted inbox entry may wait to be applied before the sweep gives it a job.
pub const INBOX_STALE: Duration = Duration::from_secs(10 * 60);
/// The most entries one sweep re-queues.
const INBOX_SWEEP_MAX: usize = 100;
/// The admins' email about a payment that does not match its invoice.
pub const ALERT_TEMPLATE: &str = "billing-payment-mismatch-admin";
/// The first status check after a payment was started, and the pause between checks.
pub const CHECK_AFTER: Duration = Duration::from_secs(15 * 60);
/// Inbox entries written from a status API answer (not a webhook): no provider is named so.
const STATUS_SOURCE: &str = "status-api";
/// Largest webhook body kept in the inbox.
pub const MAX_WEBHOOK_BODY: usize = 256 * 1024;
/// Bytes of an unverified (rejected) webhook's body kept in the inbox.
const REJECTED_BODY: usize = 2048;
/// Headers kept with an inbox entry (never cookies or credentials).
const KEPT_HEADERS: usize = 40;
/// What an unverified (rejected) webhook's headers may take in the inbox: the review stored
/// 297 KB of padding headers per forged request. Headers that carry a signature and the content
/// type come first; each value is cut at [`REJECTED_HEADER_VALUE`].
const REJECTED_HEADERS_BYTES: usize = 2048;
const REJECTED_HEADER_VALUE: usize = 512;
/// The retention job: entries it deletes per batch, and batches per run. Batches are small
/// because rows are read whole, and entries written before issue 47 kept ~300 KiB of headers.
const RETENTION_BATCH: u64 = 100;
const RETENTION_BATCHES: usize = 100;
/// The job that deletes rejected and ignored inbox entries past their retention.
pub const JOB_INBOX_RETENTION: &str = "billing.inbox-retention";

/// The headers an unverified webhook keeps: signature-like ones and the content type first, each
/// value cut, [`REJECTED_HEADERS_BYTES`] in all.
fn rejected_headers(headers: &[(String, String)]) -> Map<String, Value> {
    let telling = |k: &str| {
        [
            "sign",
            "hmac",
            "content-type",
            "user-agent",
            "webhook",
            "event",
        ]
        .iter()
        .any(|w| k.contains(w))
    };
    let mut ordered: Vec<&(String, String)> = headers.iter().filter(|(k, _)| telling(k)).collect();
    ordered.extend(headers.iter().filter(|(k, _)| !telling(k)));
    let mut out = Map::new();
    let mut used = 0;
    for (k, v) in ordered {
        let cut: String = v.chars().take(REJECTED_HEADER_VALUE).collect();
        let cost = k.len() + cut.len();
        if used + cost > REJECTED_HEADERS_BYTES {
            out.insert("x-stoa-headers-cut".into(), json!("the rest were not kept"));
            break;
        }
        used += cost;
        out.insert(k.clone(), json!(cut));
    }
    out
}

/// What happened to a webhook that was accepted.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    /// The inbox entry.
    pub id: Option<Uuid>,
    /// A copy of an entry already received: recorded, no effect.
    pub duplicate: bool,
    /// What the provider expects back.
    pub ack: Ack,
    /// The inbox entry its receiver applies itself (see [`Billing::dummy_pay`]): written
    /// without the job that would apply it, or an earlier copy still waiting to be applied.
    pending: Option<Uuid>,
}

/// What a verified event may do to its invoice.
enum Verdict {
    /// Pay this invoice.
    Apply(Record),
    /// Nothing to do (another event type, a declined attempt): acknowledged.
    Ignore(String),
    /// Refused: the error answered (4xx), and whether the admins are told.
    Reject(Error, bool),
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
    /// Days rejected and ignored inbox entries are kept.
    retention_days: u64,
    public_url: String,
    /// Webhooks per client IP (each is written before it is verified).
    webhook_rate: stoa_api::rate::Budget,
    /// What runs when intents succeed.
    listeners: RwLock<Vec<Listener>>,
}

impl Billing {
    pub fn new(
        store: Store,
        config: &stoa_api::config::Config,
    ) -> std::result::Result<Self, String> {
        let public_url = config.public_url();
        let available = crate::provider::available(&config.providers, &public_url)
            .map_err(|e| e.to_string())?;
        let providers: HashMap<&'static str, Arc<dyn Provider>> =
            available.into_iter().map(|p| (p.name(), p)).collect();
        let mut allowed: Vec<String> = Vec::new();
        match config.payment_providers.as_deref().map(str::trim) {
            Some(list) if !list.is_empty() => {
                for p in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    if !crate::PROVIDERS.contains(&p) {
                        return Err(format!(
                            "STOA_PAYMENT_PROVIDERS: '{p}' is not a payment provider (known: {})",
                            crate::PROVIDERS.join(", ")
                        ));
                    }
                    if !providers.contains_key(p) {
                        return Err(format!(
                            "STOA_PAYMENT_PROVIDERS names '{p}', but its credentials are not set: set {}",
                            crate::provider::required_settings(p)
                        ));
                    }
                    if !allowed.iter().any(|a| a == p) {
                        allowed.push(p.to_owned());
                    }
                }
            }
            // Unset: every provider with credentials; the dummy one only while there are none.
            _ => {
                allowed = crate::PROVIDERS
                    .iter()
                    .filter(|p| **p != "dummy" && providers.contains_key(*p))
                    .map(|p| (*p).to_owned())
                    .collect();
                if allowed.is_empty() {
                    allowed.push("dummy".into());
                }
            }
        }
        if allowed.iter().any(|p| p == "dummy") {
            tracing::warn!(
                "the dummy payment provider is enabled: every checkout is paid without money. \
                 Set a provider's credentials (docs/payments.md) in production"
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
        let shared = stoa_store::cluster::Shared::of(&store.db);
        Ok(Self {
            store,
            e: entities,
            providers,
            allowed,
            dummy_delay: Duration::from_secs(config.dummy_webhook_delay),
            retention_days: config.webhook_retention_days.max(1),
            public_url,
            // Shared by the instances on PostgreSQL: a sender spread over them gains nothing.
            webhook_rate: stoa_api::rate::Budget::new(
                config.webhook_rate,
                Duration::from_secs(60),
                "webhook ip",
                shared.map(|s| (s, "billing.webhook")),
            ),
            listeners: RwLock::new(Vec::new()),
        })
    }

    /// The providers buyers may choose, in the configured order.
    pub fn allowed(&self) -> &[String] {
        &self.allowed
    }

    /// The enabled providers with the currencies each takes (empty: any), in the configured
    /// order: what the checkout offers and the admin shows.
    pub fn offered(&self) -> Vec<Value> {
        self.allowed
            .iter()
            .filter_map(|name| {
                let p = self.providers.get(name.as_str())?;
                let mut o = json!({"provider": name, "currencies": p.currencies(), "statusApi": p.has_status()});
                if let Some(w) = p.widget() {
                    o["widget"] = w;
                }
                Some(o)
            })
            .collect()
    }

    /// Run `hook` in the transaction that marks intents succeeded; should it fail, its writes are
    /// undone (a nested savepoint) and job `job` is enqueued there instead with
    /// `{"intents": [ids]}`, to do the same work later.
    pub fn on_paid_in(&self, job: &'static str, hook: Arc<dyn PaidHook>) {
        if let Ok(mut l) = self.listeners.write() {
            l.push(Listener { job, hook });
        }
    }

    /// Refuses `adapter` for a payment in `currency` (a slug) it does not take, naming the
    /// enabled providers that do: it would be sent an amount in the wrong currency, and the
    /// buyer's order would wait for a payment that never matches.
    pub fn takes(&self, adapter: &dyn Provider, currency: &str) -> Result<()> {
        let takes = |p: &dyn Provider| {
            p.currencies().is_empty()
                || p.currencies()
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(currency))
        };
        if takes(adapter) {
            return Ok(());
        }
        let others: Vec<&str> = self
            .allowed
            .iter()
            .filter(|n| {
                self.providers
                    .get(n.as_str())
                    .is_some_and(|p| takes(p.as_ref()))
            })
            .map(String::as_str)
            .collect();
        let code = currency.to_uppercase();
        Err(Error::invalid_field(
            "provider",
            if others.is_empty() {
                format!(
                    "{} does not take {code}, and no enabled provider does",
                    adapter.name()
                )
            } else {
                format!(
                    "{} does not take {code}; pay in {code} with {}",
                    adapter.name(),
                    others.join(", ")
                )
            },
        ))
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
            .link_in(
                exec,
                &self.e.i2c,
                ("paymentIntentId", id),
                ("currencyId", currency),
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
                .link_in(
                    exec,
                    &self.e.i2i,
                    ("paymentIntentId", *i),
                    ("invoiceId", id),
                )
                .await?;
        }
        Ok(id)
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
                let mut tx = self.store.begin().await?;
                repo::set_if(
                    &mut tx.exec(),
                    &self.e.invoice,
                    p.invoice,
                    &[("status", Val::Text("failed".into()))],
                    &[("status", Val::Text("draft".into()))],
                )
                .await?;
                tx.commit().await?;
                tracing::warn!(invoice = %p.invoice, provider, error = %e, "the provider did not start the payment");
                return Err(match e {
                    // The provider's words (unreachable, refused) or our own 4xx about the
                    // payment (an interval the provider cannot bill).
                    Error::Unavailable(_) => e,
                    e if e.status() < 500 => e,
                    _ => Error::Unavailable(format!(
                        "the payment provider '{provider}' did not answer; try again in a minute"
                    )),
                });
            }
        };
        let mut tx = self.store.begin().await?;
        let row = self
            .opened_in(
                &mut tx.exec(),
                p,
                adapter.as_ref(),
                Created {
                    provider_id,
                    payment_url,
                },
            )
            .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Starts the payment of draft invoice `p` inside the caller's transaction when its
    /// provider answers without leaving the process ([`Provider::local`]: the dummy one), so a
    /// checkout with it is one write transaction; `None` for any other provider, whose call
    /// must not hold a transaction open ([`Self::open_invoice`] after the commit). An error
    /// undoes the caller's transaction: nothing was started.
    pub async fn start_in(
        &self,
        exec: &mut Exec<'_>,
        p: &NewPayment,
        provider: &str,
    ) -> Result<Option<Record>> {
        let adapter = self.provider(provider)?;
        if !adapter.local() {
            return Ok(None);
        }
        let created = adapter.create(p).await?;
        self.opened_in(exec, p, adapter.as_ref(), created)
            .await
            .map(Some)
    }

    /// The draft invoice `p` opened with what its provider answered, and the job that settles
    /// it if no webhook comes (the dummy provider's own webhook, or a status check).
    async fn opened_in(
        &self,
        exec: &mut Exec<'_>,
        p: &NewPayment,
        adapter: &dyn Provider,
        created: Created,
    ) -> Result<Record> {
        let provider = adapter.name();
        let Created {
            provider_id,
            payment_url,
        } = created;
        let row = {
            let row = repo::set_if(
                exec,
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
                    exec,
                    &NewJob::now(JOB_DUMMY_PAY, json!({"invoice": p.invoice}))
                        .at(at)
                        .dedupe(format!("dummy-pay:{}", p.invoice)),
                )
                .await?;
            } else if adapter.has_status() {
                // A webhook lost on the way still settles the invoice: its status is asked.
                let at =
                    now() + time::Duration::try_from(CHECK_AFTER).unwrap_or(time::Duration::ZERO);
                enqueue(
                    exec,
                    &NewJob::now(JOB_CHECK, json!({"invoice": p.invoice}))
                        .at(at)
                        .dedupe(format!("check:{}", p.invoice)),
                )
                .await?;
            }
            row
        };
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
        let mut tx = self.store.begin().await?;
        let invoice = self
            .draft_invoice(&mut tx.exec(), &[id], provider, amount, &success, &cancel)
            .await?;
        tx.commit().await?;
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
        let mut tx = self.store.begin().await?;
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
        tracing::warn!(
            invoices = drafts.len(),
            "draft invoices abandoned (the checkout was cut off before the provider was asked)"
        );
        Ok(true)
    }

    /// The intents' rows, read through the caller's transaction.
    pub async fn intents_in(&self, exec: &mut Exec<'_>, ids: &[Uuid]) -> Result<Vec<Record>> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        let q = stoa_kernel::query::FindQuery::all()
            .any_of(&self.e.intent, "id", vals)?
            .take(ids.len().max(1) as u64);
        Ok(repo::find(exec, &self.e.intent, &q).await?.0)
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

    /// The invoices of `intents`, each with the intent it is of, oldest first.
    pub async fn invoices_by_intent(&self, intents: &[Uuid]) -> Result<Vec<(Uuid, Record)>> {
        let (links, rows) = self.invoice_links(intents).await?;
        let by_id: HashMap<Uuid, &Record> =
            rows.iter().filter_map(|r| Some((r.id()?, r))).collect();
        let mut out: Vec<(Uuid, Record)> = links
            .iter()
            .filter_map(|l| {
                let invoice = by_id.get(&l.uuid("invoiceId")?)?;
                Some((l.uuid("paymentIntentId")?, (*invoice).clone()))
            })
            .collect();
        out.sort_by(|a, b| a.1.text("createdAt").cmp(&b.1.text("createdAt")));
        Ok(out)
    }

    /// The invoices of `intents`, oldest first.
    pub async fn invoices_of(&self, intents: &[Uuid]) -> Result<Vec<Record>> {
        let (_, mut rows) = self.invoice_links(intents).await?;
        rows.sort_by(|a, b| a.text("createdAt").cmp(&b.text("createdAt")));
        Ok(rows)
    }

    /// One webhook from client `ip`: 429 past `STOA_WEBHOOK_RATE` a minute.
    pub async fn limit(&self, ip: &str) -> Result<()> {
        self.webhook_rate.check(ip).await
    }

    /// Receives a webhook: its signature is verified at once and what it says is checked against
    /// its invoice (amount, currency). Every webhook is written to the inbox with the verdict —
    /// a forged, malformed or mismatched one as `rejected` (answered 4xx, never applied), one of
    /// no use as `ignored` — and an accepted one with the job that applies it exactly once. A
    /// byte-identical copy of an accepted webhook (a provider's retry) is acknowledged and
    /// recorded as a copy, with no effect.
    pub async fn receive(
        &self,
        provider: &str,
        headers: Vec<(String, String)>,
        body: &[u8],
    ) -> Result<Received> {
        self.receive_as(provider, headers, body, true).await
    }

    /// [`Billing::receive`]; an accepted webhook is applied by its job when `queue`, otherwise
    /// in the transaction that writes it (with the job only when applying fails).
    async fn receive_as(
        &self,
        provider: &str,
        headers: Vec<(String, String)>,
        body: &[u8],
        queue: bool,
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
        let ack = adapter.ack(&incoming);
        // The dedupe key holds the body's digest too: a forged webhook naming a real event must
        // not make the real one look like a copy. Exactly-once application rests on the invoice
        // changing state once; the key only stops retransmissions being applied again.
        let digest = hex_digest(body);
        let key: String = adapter
            .event_key(&incoming)
            .unwrap_or_else(|| format!("body:{}", &digest[..16]))
            .chars()
            .take(200)
            .collect();
        let mut entry = Entry {
            provider,
            key: &key,
            dedupe: format!("{provider}:{key}:{digest}"),
            body,
            headers: &kept,
            inline: None,
        };
        let event = match adapter.verify(&incoming, Some(now())) {
            Ok(e) => e,
            Err(e) if e.status() >= 500 => return Err(e),
            Err(e) => {
                let why = format!("not verified: {}", e.public_message());
                tracing::warn!(provider, reason = %why, "webhook rejected");
                self.record(&entry, "rejected", false, &why, None, None)
                    .await?;
                return Err(e);
            }
        };
        match self.assess(provider, &event).await? {
            Verdict::Ignore(why) => {
                let (id, duplicate) = self
                    .record(&entry, "ignored", true, &why, None, None)
                    .await?;
                Ok(Received {
                    id,
                    duplicate,
                    ack,
                    pending: None,
                })
            }
            Verdict::Reject(e, alert) => {
                let why = e.public_message();
                tracing::warn!(provider, reason = %why, "webhook refused");
                let alert = alert.then(|| alert_of(provider, &why, event.invoice));
                self.record(&entry, "rejected", true, &why, None, alert)
                    .await?;
                Err(e)
            }
            Verdict::Apply(invoice) => {
                if !queue {
                    entry.inline = Some(Inline {
                        event: &event,
                        invoice: &invoice,
                        payment: self.payment_of(&invoice).await?,
                    });
                }
                let (id, duplicate) = self
                    .record(
                        &entry,
                        "received",
                        true,
                        "verified; being applied",
                        invoice.id(),
                        None,
                    )
                    .await?;
                let pending = match (queue, duplicate) {
                    (_, false) | (true, true) => None,
                    // A copy of an entry still waiting to be applied (its own application
                    // failed and its job has not run yet, or an earlier version's receiver
                    // stopped between the two): applied now.
                    (false, true) => self
                        .store
                        .find_by(
                            &self.e.webhook,
                            &[
                                ("dedupeKey", Val::Text(entry.dedupe.clone())),
                                ("status", Val::Text("received".into())),
                            ],
                            1,
                        )
                        .await?
                        .first()
                        .and_then(Record::id),
                };
                Ok(Received {
                    id,
                    duplicate,
                    ack,
                    pending,
                })
            }
        }
    }

    /// Writes an inbox entry in `status` (with the job that applies it when `received` and the
    /// entry asks for one, and the admins' alert when given). A second copy of an accepted entry
    /// is written as an `ignored` copy; rejected entries never block a later genuine one.
    async fn record(
        &self,
        entry: &Entry<'_>,
        status: &str,
        verified: bool,
        result: &str,
        invoice: Option<Uuid>,
        alert: Option<Value>,
    ) -> Result<(Option<Uuid>, bool)> {
        stoa_api::metrics::Metrics::outcome(
            &stoa_api::metrics::METRICS.webhooks,
            entry.provider,
            match status {
                "received" => "received",
                "ignored" => "ignored",
                "rejected" => "rejected",
                _ => "other",
            },
        );
        let mut text = String::from_utf8_lossy(entry.body).into_owned();
        if status == "rejected" && !verified && text.len() > REJECTED_BODY {
            // Unverified junk costs its sender more than it costs the inbox.
            let cut = (0..=REJECTED_BODY)
                .rev()
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(0);
            text.truncate(cut);
            text.push_str(" …[cut]");
        }
        let headers: Map<String, Value> = if status == "rejected" && !verified {
            rejected_headers(entry.headers)
        } else {
            entry
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect()
        };
        let dedupe = if status == "rejected" {
            format!("{}:rejected:{}", entry.dedupe, Uuid::new_v4().simple())
        } else {
            entry.dedupe.clone()
        };
        let row = |status: &str, result: &str, dedupe: &str| {
            let mut m = fields(json!({
                "provider": entry.provider,
                "eventKey": entry.key,
                "dedupeKey": dedupe,
                "body": text,
                "headers": headers,
                "status": status,
                "verified": verified,
                "result": result.chars().take(2000).collect::<String>(),
                "invoiceId": invoice,
            }));
            if status != "received" {
                m.insert("processedAt".into(), json!(now_text()));
            }
            m
        };
        let mut tx = self.store.begin().await?;
        let (id, duplicate) = {
            let mut exec = tx.exec();
            match self
                .store
                .create_in(&mut exec, &self.e.webhook, &row(status, result, &dedupe))
                .await
            {
                Ok(r) => {
                    let id = Record::must_id(&r)?;
                    if status == "received" {
                        let applied = match &entry.inline {
                            Some(i) => self.apply_nested(&mut exec, id, i).await?,
                            None => false,
                        };
                        if !applied {
                            enqueue(&mut exec, &NewJob::now(JOB_WEBHOOK, json!({"id": id})))
                                .await?;
                        }
                    }
                    if let Some(mut a) = alert {
                        a["inbox"] = json!(id);
                        enqueue(&mut exec, &NewJob::now(JOB_ALERT, a)).await?;
                    }
                    (Some(id), false)
                }
                // The same webhook is already in the inbox (or being written concurrently).
                Err(Error::Conflict { .. }) => (None, true),
                Err(e) => return Err(e),
            }
        };
        if duplicate {
            drop(tx);
            tracing::info!(provider = entry.provider, event = %entry.key, "duplicate webhook: acknowledged, no effect");
            let copy = format!("{}:copy:{}", entry.dedupe, Uuid::new_v4().simple());
            let mut tx = self.store.begin().await?;
            let r = self
                .store
                .create_in(
                    &mut tx.exec(),
                    &self.e.webhook,
                    &row(
                        "ignored",
                        "a copy of a webhook already received: acknowledged, no effect",
                        &copy,
                    ),
                )
                .await?;
            tx.commit().await?;
            return Ok((r.id(), true));
        }
        tx.commit().await?;
        Ok((id, false))
    }

    /// Applies the entry `id` just written, inside a nested savepoint of its transaction;
    /// `false` (its work undone) when that failed, and its job is to apply it instead.
    async fn apply_nested(&self, exec: &mut Exec<'_>, id: Uuid, i: &Inline<'_>) -> Result<bool> {
        let level = exec.begin_nested().await?;
        let failed = match self
            .apply_in(exec, id, i.event, i.invoice, &i.payment)
            .await
        {
            Ok(outcome) => match exec.end_nested(level, true).await {
                Ok(()) => {
                    tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
                    return Ok(true);
                }
                Err(e) => e,
            },
            Err(e) => e,
        };
        tracing::warn!(inbox = %id, error = %failed, "applying a webhook as it was written failed; its job applies it");
        exec.end_nested(level, false).await?;
        Ok(false)
    }

    pub async fn process_job(&self, payload: &Value) -> Result<()> {
        let id = stoa_api::jobs::uuid_arg(payload, "id")?;
        let outcome = self.process(id).await?;
        tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
        Ok(())
    }

    async fn finish(&self, id: Uuid, status: &str, verified: bool, result: &str) -> Result<bool> {
        let mut tx = self.store.begin().await?;
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
        Ok(done)
    }

    /// Verifies (the signature again; its timestamp was checked at receipt) and applies one
    /// inbox entry, once.
    pub async fn process(&self, id: Uuid) -> Result<Outcome> {
        let row = self.store.get(&self.e.webhook, id).await?;
        if row.text("status") != Some("received") {
            return Ok(Outcome::Skipped);
        }
        let provider = row.text("provider").unwrap_or_default().to_owned();
        let body = row.text("body").unwrap_or_default().as_bytes().to_vec();
        let event = if row
            .text("dedupeKey")
            .is_some_and(|k| k.starts_with(STATUS_SOURCE))
        {
            // Written by our own status check (no provider is named so): the status API's
            // answer, read over TLS from the provider, is the proof.
            match serde_json::from_slice::<StatusEntry>(&body) {
                Ok(s) => s.event(),
                Err(e) => {
                    let why = format!("unreadable status entry: {e}");
                    self.finish(id, "rejected", false, &why).await?;
                    return Ok(Outcome::Rejected(why));
                }
            }
        } else {
            let headers: Vec<(String, String)> = row
                .json("headers")
                .and_then(|h| h.as_object().cloned())
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
                .collect();
            let Some(adapter) = self.providers.get(provider.as_str()).cloned() else {
                self.finish(id, "rejected", false, "the provider is not enabled")
                    .await?;
                return Ok(Outcome::Rejected("the provider is not enabled".into()));
            };
            let incoming = Incoming {
                headers: &headers,
                body: &body,
            };
            match adapter.verify(&incoming, None) {
                Ok(e) => e,
                Err(e) if e.status() >= 500 => return Err(e),
                Err(e) => {
                    let why = format!("not verified: {}", e.public_message());
                    self.finish(id, "rejected", false, &why).await?;
                    tracing::warn!(inbox = %id, provider, reason = %why, "webhook rejected");
                    return Ok(Outcome::Rejected(why));
                }
            }
        };
        match self.assess(&provider, &event).await? {
            Verdict::Ignore(why) => {
                self.finish(id, "ignored", true, &why).await?;
                Ok(Outcome::Ignored(why))
            }
            Verdict::Reject(e, _) => {
                let why = e.public_message();
                self.finish(id, "rejected", true, &why).await?;
                Ok(Outcome::Rejected(why))
            }
            Verdict::Apply(invoice) => self.apply(id, &event, &invoice).await,
        }
    }

    async fn find_invoice(&self, provider: &str, event: &Event) -> Result<Option<Record>> {
        let (key, value) = match (event.invoice, &event.provider_id) {
            (Some(i), _) => ("id", Val::Uuid(i)),
            (None, Some(p)) => ("providerId", Val::Text(p.clone())),
            (None, None) => return Ok(None),
        };
        let found = self
            .store
            .find_by(
                &self.e.invoice,
                &[(key, value), ("provider", Val::Text(provider.into()))],
                1,
            )
            .await?
            .into_iter()
            .next();
        // When the event names both, they must be the same payment (our reference may be
        // outside what the provider signs).
        Ok(
            found.filter(|inv| match (&event.provider_id, inv.text("providerId")) {
                // An invoice the provider has not named yet is not this payment's (yet).
                (Some(said), ours) => ours.is_some_and(|o| !o.is_empty() && o == said),
                _ => true,
            }),
        )
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

    /// What a verified event may do: find its invoice, check the proof of providers without a
    /// signature, and check that the amount and currency paid are the invoice's.
    async fn assess(&self, provider: &str, event: &Event) -> Result<Verdict> {
        match &event.outcome {
            Said::Other(why) => return Ok(Verdict::Ignore(why.clone())),
            Said::Failed(why) => {
                return Ok(Verdict::Ignore(format!(
                    "the provider reports the payment did not go through ({why})"
                )));
            }
            Said::Paid => {}
        }
        let Some(invoice) = self.find_invoice(provider, event).await? else {
            return Ok(Verdict::Reject(
                Error::not_found(format!("no invoice of {provider} matches this webhook")),
                false,
            ));
        };
        if let Some(t) = &event.token {
            let expected = invoice.text("providerId").unwrap_or_default();
            if !crate::provider::sign::same(t, expected) {
                return Ok(Verdict::Reject(
                    Error::Unauthorized("the proof does not match the invoice".into()),
                    false,
                ));
            }
        }
        let due = invoice.decimal("amount").unwrap_or_default();
        // Every real provider states what was paid; a payment that does not is not credited.
        if event.amount.is_none() && provider != "dummy" {
            return Ok(Verdict::Reject(
                Error::bad_request("the payment does not say how much was paid"),
                false,
            ));
        }
        // Compared at the precision providers charge (cents): a price with more decimals is
        // charged rounded.
        if let Some(paid) = event.amount
            && paid.round_dp(2) != due.round_dp(2)
        {
            return Ok(Verdict::Reject(
                Error::invalid_field(
                    "amount",
                    format!(
                        "paid {}, but invoice {} is for {}",
                        paid.normalize(),
                        invoice.id().unwrap_or_default(),
                        due.normalize()
                    ),
                ),
                true,
            ));
        }
        if let Some(c) = &event.currency {
            let intents = self.intents_of_invoice(Record::must_id(&invoice)?).await?;
            let slugs = self.currency_slugs(&intents).await?;
            if !slugs.contains(&c.to_lowercase()) {
                let mut slugs: Vec<String> = slugs.into_iter().collect();
                slugs.sort();
                return Ok(Verdict::Reject(
                    Error::invalid_field(
                        "currency",
                        format!("paid in {c}, but the invoice is in {}", slugs.join(", ")),
                    ),
                    true,
                ));
            }
        }
        Ok(Verdict::Apply(invoice))
    }

    async fn intents_of_invoice(&self, invoice: Uuid) -> Result<Vec<Uuid>> {
        self.store
            .linked(
                &self.e.i2i,
                "invoiceId",
                &[invoice],
                "paymentIntentId",
                1000,
            )
            .await
    }

    /// Pays `invoice` for inbox entry `id` (a verified, assessed event): the entry is claimed,
    /// the invoice moves to paid once, and its intents succeed while the amount lasts. A
    /// subscription's renewal is recorded as a new paid invoice of the same intents.
    async fn apply(&self, id: Uuid, event: &Event, invoice: &Record) -> Result<Outcome> {
        let payment = self.payment_of(invoice).await?;
        let mut tx = self.store.begin().await?;
        let outcome = self
            .apply_in(&mut tx.exec(), id, event, invoice, &payment)
            .await?;
        // Skipped: nothing was written.
        if outcome != Outcome::Skipped {
            tx.commit().await?;
        }
        Ok(outcome)
    }

    /// The intents `invoice` pays, oldest first (read before the paying transaction).
    async fn payment_of(&self, invoice: &Record) -> Result<Payment> {
        let ids = self.intents_of_invoice(Record::must_id(invoice)?).await?;
        let mut intents = self.intents(&ids).await?;
        intents.sort_by(|a, b| a.text("createdAt").cmp(&b.text("createdAt")));
        Ok(Payment { ids, intents })
    }

    /// [`Self::apply`] inside the caller's transaction, with the invoice's intents read before.
    async fn apply_in(
        &self,
        exec: &mut Exec<'_>,
        id: Uuid,
        event: &Event,
        invoice: &Record,
        payment: &Payment,
    ) -> Result<Outcome> {
        let invoice_id = Record::must_id(invoice)?;
        let (intent_ids, intents) = (&payment.ids, &payment.intents);
        let paid = event
            .amount
            .unwrap_or_else(|| invoice.decimal("amount").unwrap_or_default());
        let listeners: Vec<Listener> = self.listeners.read().map(|l| l.clone()).unwrap_or_default();
        let succeeded = {
            // The inbox entry is claimed first: a concurrent run of the same entry stops here.
            let claimed = repo::set_if(
                exec,
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
            if let Some(renewal) = &event.renewal {
                return self
                    .renew(exec, id, invoice, renewal, paid, intent_ids)
                    .await;
            }
            let mut opened = None;
            for from in ["open", "draft", "failed"] {
                opened = repo::set_if(
                    exec,
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
                // Read before this transaction: open/draft/failed then means paid meanwhile.
                let status = invoice
                    .text("status")
                    .filter(|s| matches!(*s, "void" | "uncollectible"))
                    .unwrap_or("paid");
                let why = if status == "paid" {
                    "the invoice was already paid".to_owned()
                } else {
                    // Money arrived for an invoice an admin gave up on: someone must look.
                    let why = format!(
                        "a payment arrived for invoice {invoice_id}, which is {status}; nothing was marked paid"
                    );
                    let mut alert = alert_of(
                        invoice.text("provider").unwrap_or_default(),
                        &why,
                        Some(invoice_id),
                    );
                    alert["inbox"] = json!(id);
                    enqueue(exec, &NewJob::now(JOB_ALERT, alert)).await?;
                    why
                };
                repo::set_if(
                    exec,
                    &self.e.webhook,
                    id,
                    &[
                        ("status", Val::Text("ignored".into())),
                        ("result", Val::Text(why)),
                    ],
                    &[],
                )
                .await?;
                return Ok(Outcome::Ignored("already paid".into()));
            }
            let mut left = paid;
            let mut succeeded = Vec::new();
            let mut rows = Vec::new();
            for it in intents {
                let status = it.text("status").unwrap_or_default();
                if matches!(status, "succeeded" | "canceled") {
                    continue;
                }
                let amount = it.decimal("amount").unwrap_or_default();
                if amount > left {
                    continue;
                }
                let iid = Record::must_id(it)?;
                if let Some(row) = repo::set_if(
                    exec,
                    &self.e.intent,
                    iid,
                    &[("status", Val::Text("succeeded".into()))],
                    &[("status", Val::Text(status.into()))],
                )
                .await?
                {
                    left -= amount;
                    succeeded.push(iid);
                    rows.push(row);
                }
            }
            repo::set_if(
                exec,
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
                for l in &listeners {
                    run_listener(exec, l, &rows, invoice_id).await?;
                }
            }
            succeeded
        };
        tracing::info!(invoice = %invoice_id, intents = succeeded.len(), "invoice paid");
        Ok(Outcome::Paid(succeeded))
    }

    /// A subscription's later payment: a new paid invoice of the same intents (the newest paid
    /// invoice is what keeps a subscription's roles), once per provider payment.
    async fn renew(
        &self,
        exec: &mut Exec<'_>,
        inbox: Uuid,
        original: &Record,
        renewal: &str,
        paid: Decimal,
        intents: &[Uuid],
    ) -> Result<Outcome> {
        let provider = original.text("provider").unwrap_or_default();
        let q = stoa_kernel::query::FindQuery::all()
            .eq(&self.e.invoice, "providerId", Val::Text(renewal.into()))?
            .eq(&self.e.invoice, "provider", Val::Text(provider.into()))?
            .take(1);
        let result = if repo::find(exec, &self.e.invoice, &q).await?.0.is_empty() {
            let new_id = self
                .draft_invoice(
                    exec,
                    intents,
                    provider,
                    paid,
                    original.text("successUrl").unwrap_or_default(),
                    original.text("cancelUrl").unwrap_or_default(),
                )
                .await?;
            repo::set_if(
                exec,
                &self.e.invoice,
                new_id,
                &[
                    ("status", Val::Text("paid".into())),
                    ("providerId", Val::Text(renewal.into())),
                ],
                &[("status", Val::Text("draft".into()))],
            )
            .await?;
            format!("subscription renewed: invoice {new_id} paid")
        } else {
            "this renewal was already recorded".to_owned()
        };
        repo::set_if(
            exec,
            &self.e.webhook,
            inbox,
            &[("result", Val::Text(result.clone()))],
            &[],
        )
        .await?;
        Ok(Outcome::Ignored(result))
    }

    /// Asks the providers' status APIs about the open invoices of intent `id` (DOMAIN's `POST
    /// /payment-intents/:id/check`): a payment the provider reports is applied like its webhook
    /// (through the inbox, once); a payment the provider reports failed fails the invoice.
    /// Answers the intent as it is afterwards.
    pub async fn check(&self, id: Uuid) -> Result<Record> {
        let intent = self.store.get(&self.e.intent, id).await?;
        if matches!(
            intent.text("status"),
            Some("succeeded" | "canceled" | "failed")
        ) {
            return Ok(intent);
        }
        for invoice in self.invoices_of(&[id]).await? {
            if invoice.text("status") == Some("open") {
                self.check_invoice(&invoice).await?;
            }
        }
        self.store.get(&self.e.intent, id).await
    }

    /// One open invoice against its provider's status API. Answers whether it is settled
    /// (paid, failed, or nothing more to ask).
    pub async fn check_invoice(&self, invoice: &Record) -> Result<bool> {
        let provider = invoice.text("provider").unwrap_or_default().to_owned();
        let Some(adapter) = self.providers.get(provider.as_str()).cloned() else {
            return Ok(true);
        };
        if !adapter.has_status() || invoice.text("status") != Some("open") {
            return Ok(true);
        }
        let iid = Record::must_id(invoice)?;
        let r = InvoiceRef {
            id: iid,
            provider_id: invoice.text("providerId").unwrap_or_default().to_owned(),
        };
        let Some(mut event) = adapter.status(&r).await? else {
            return Ok(false);
        };
        // The status API answers about this invoice, whatever it names.
        event.invoice = Some(iid);
        match &event.outcome {
            Said::Paid => {
                let entry = StatusEntry::of(&event);
                let body =
                    serde_json::to_vec(&entry).map_err(|e| Error::internal(e.to_string()))?;
                let key = format!("status:{iid}");
                let mut e = Entry {
                    provider: &provider,
                    key: &key,
                    dedupe: format!("{STATUS_SOURCE}:{provider}:{iid}"),
                    body: &body,
                    headers: &[],
                    inline: None,
                };
                match self.assess(&provider, &event).await? {
                    Verdict::Apply(inv) => {
                        e.inline = Some(Inline {
                            event: &event,
                            invoice: &inv,
                            payment: self.payment_of(&inv).await?,
                        });
                        self.record(
                            &e,
                            "received",
                            true,
                            "reported paid by the status API",
                            inv.id(),
                            None,
                        )
                        .await?;
                    }
                    Verdict::Reject(err, alert) => {
                        let why = err.public_message();
                        let alert = alert.then(|| alert_of(&provider, &why, Some(iid)));
                        self.record(&e, "rejected", true, &why, Some(iid), alert)
                            .await?;
                    }
                    Verdict::Ignore(_) => {}
                }
                Ok(true)
            }
            Said::Failed(why) => {
                let mut tx = self.store.begin().await?;
                repo::set_if(
                    &mut tx.exec(),
                    &self.e.invoice,
                    iid,
                    &[("status", Val::Text("failed".into()))],
                    &[("status", Val::Text("open".into()))],
                )
                .await?;
                tx.commit().await?;
                tracing::info!(invoice = %iid, provider, reason = %why, "the provider reports the payment failed");
                Ok(true)
            }
            Said::Other(_) => Ok(false),
        }
    }

    /// The scheduled check of an invoice still open after its webhook was expected: an error
    /// (retried later by the job queue, with back-off) while the provider has no answer yet.
    pub async fn check_job(&self, payload: &Value) -> Result<()> {
        let id = stoa_api::jobs::uuid_arg(payload, "invoice")?;
        let Some(invoice) = self
            .store
            .find_by(&self.e.invoice, &[("id", Val::Uuid(id))], 1)
            .await?
            .into_iter()
            .next()
        else {
            return Ok(());
        };
        if self.check_invoice(&invoice).await? {
            Ok(())
        } else {
            Err(Error::Unavailable(format!(
                "invoice {id} is still open at its provider; asking again later"
            )))
        }
    }

    /// Puts an inbox entry back to `received` and enqueues its job again (admin replay).
    pub async fn replay(&self, id: Uuid) -> Result<Record> {
        let mut tx = self.store.begin().await?;
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
        Ok(row)
    }

    /// Deletes rejected and ignored inbox entries older than the retention
    /// (`STOA_WEBHOOK_RETENTION_DAYS`), at most [`RETENTION_BATCHES`] batches a run; accepted
    /// entries are kept with their invoice. Returns how many went.
    pub async fn expire_inbox(&self) -> Result<usize> {
        self.expire_inbox_before(now() - time::Duration::days(self.retention_days as i64))
            .await
    }

    /// Deletes rejected and ignored inbox entries that arrived before `before`.
    pub async fn expire_inbox_before(&self, before: time::OffsetDateTime) -> Result<usize> {
        let mut gone = 0;
        for _ in 0..RETENTION_BATCHES {
            let q = stoa_kernel::query::FindQuery::all()
                .filter(
                    &self.e.webhook,
                    "status",
                    stoa_kernel::query::Op::InArray,
                    stoa_kernel::query::FilterValue::Many(vec![
                        Val::Text("rejected".into()),
                        Val::Text("ignored".into()),
                    ]),
                )?
                .filter(
                    &self.e.webhook,
                    "createdAt",
                    stoa_kernel::query::Op::Lt,
                    stoa_kernel::query::FilterValue::One(Val::Timestamp(before)),
                )?
                .take(RETENTION_BATCH);
            let old = self
                .store
                .find_in_query(&self.e.webhook, q, RETENTION_BATCH as usize)
                .await?;
            if old.is_empty() {
                break;
            }
            let mut tx = self.store.begin().await?;
            {
                let mut exec = tx.exec();
                for row in &old {
                    repo::delete(&mut exec, &self.e.webhook, Record::must_id(row)?).await?;
                }
            }
            tx.commit().await?;
            gone += old.len();
            if old.len() < RETENTION_BATCH as usize {
                break;
            }
        }
        if gone > 0 {
            tracing::info!(
                entries = gone,
                "old rejected and ignored webhooks were deleted"
            );
        }
        Ok(gone)
    }

    /// Accepted inbox entries still `received` [`INBOX_STALE`] after they arrived get a job that
    /// applies them: a webhook job can die after its last attempt (a database away for longer),
    /// and entries written by earlier versions' dummy job had none. Applying claims the
    /// entry, so an entry whose own job still comes is applied once either way. Each entry is
    /// re-queued at most once per period; at most [`INBOX_SWEEP_MAX`] a run. Returns how many.
    pub async fn sweep_inbox(&self) -> Result<usize> {
        let before = now() - time::Duration::try_from(INBOX_STALE).unwrap_or(time::Duration::ZERO);
        let q = stoa_kernel::query::FindQuery::all()
            .eq(&self.e.webhook, "status", Val::Text("received".into()))?
            .filter(
                &self.e.webhook,
                "createdAt",
                stoa_kernel::query::Op::Lt,
                stoa_kernel::query::FilterValue::One(Val::Timestamp(before)),
            )?
            .take(INBOX_SWEEP_MAX as u64);
        let waiting = self
            .store
            .find_in_query(&self.e.webhook, q, INBOX_SWEEP_MAX)
            .await?;
        if waiting.is_empty() {
            return Ok(0);
        }
        let period = now().unix_timestamp() / INBOX_STALE.as_secs() as i64;
        let mut tx = self.store.begin().await?;
        let mut queued = 0;
        {
            let mut exec = tx.exec();
            for row in &waiting {
                let id = Record::must_id(row)?;
                let job = NewJob::now(JOB_WEBHOOK, json!({"id": id}))
                    .dedupe(format!("inbox-sweep:{id}:{period}"));
                if enqueue(&mut exec, &job).await?.is_some() {
                    queued += 1;
                }
            }
        }
        tx.commit().await?;
        if queued > 0 {
            tracing::warn!(
                entries = queued,
                "webhooks left waiting in the inbox were queued again"
            );
        }
        Ok(queued)
    }

    /// The dummy provider's own webhook, run as a job after the configured delay. It goes
    /// through the inbox like any provider's webhook (verified, assessed, recorded), and is
    /// applied in the transaction that writes its entry instead of by another job (one write
    /// transaction per payment, not two). Applying claims the entry (`received` → `processed`),
    /// so it happens once whoever gets there first; when applying fails, the entry is kept with
    /// its own job (this one ends), and a copy of the same webhook finds that entry waiting and
    /// applies it.
    pub async fn dummy_pay(&self, payload: &Value) -> Result<()> {
        let invoice = stoa_api::jobs::uuid_arg(payload, "invoice")?;
        let row = self.store.get(&self.e.invoice, invoice).await?;
        let token = row.text("providerId").unwrap_or_default();
        let body = json!({"data": {"id": invoice, "token": token, "status": "paid"}}).to_string();
        let received = self
            .receive_as(
                "dummy",
                vec![("content-type".into(), "application/json".into())],
                body.as_bytes(),
                false,
            )
            .await?;
        if let Some(id) = received.pending {
            let outcome = self.process(id).await?;
            tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
        }
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

/// An inbox entry about to be written.
struct Entry<'a> {
    provider: &'a str,
    key: &'a str,
    dedupe: String,
    body: &'a [u8],
    headers: &'a [(String, String)],
    /// An accepted entry is written with the job that applies it, or applied in the
    /// transaction that writes it (the job only when that fails).
    inline: Option<Inline<'a>>,
}

/// What applying an entry as it is written needs: the event, its invoice and the intents that
/// invoice pays, all read before the transaction.
struct Inline<'a> {
    event: &'a Event,
    invoice: &'a Record,
    payment: Payment,
}

/// The intents an invoice pays: their ids, and their rows oldest first.
struct Payment {
    ids: Vec<Uuid>,
    intents: Vec<Record>,
}

/// What a status API said, kept as an inbox entry's body.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusEntry {
    invoice: Option<Uuid>,
    provider_id: Option<String>,
    amount: Option<Decimal>,
    currency: Option<String>,
}

impl StatusEntry {
    fn of(e: &Event) -> Self {
        Self {
            invoice: e.invoice,
            provider_id: e.provider_id.clone(),
            amount: e.amount,
            currency: e.currency.clone(),
        }
    }

    fn event(self) -> Event {
        Event::about(self.invoice, self.provider_id, Said::Paid)
            .paid_amount(self.amount, self.currency.as_deref())
    }
}

/// The admins' alert job's payload (`inbox` is added once the entry exists).
/// Runs listener `l` on the intents just marked succeeded (`rows`), inside the payment's
/// transaction and a nested savepoint; on its failure the savepoint is rolled back and its job
/// queued instead.
async fn run_listener(
    exec: &mut Exec<'_>,
    l: &Listener,
    rows: &[Record],
    invoice: Uuid,
) -> Result<()> {
    let level = exec.begin_nested().await?;
    // The hook's writes are the platform's, not those of a request that happened to apply the
    // payment (an admin's status check).
    let ran = stoa_store::audit::unrecorded(l.hook.paid_in(exec, rows)).await;
    // Kept only when its savepoint is released too (a statement it failed and swallowed would
    // leave PostgreSQL's transaction aborted).
    let failed = match ran {
        Ok(()) => exec.end_nested(level, true).await.err(),
        Err(e) => Some(e),
    };
    let Some(e) = failed else {
        return Ok(());
    };
    tracing::warn!(job = l.job, invoice = %invoice, error = %e, "work on a payment failed in its transaction; it runs as a job");
    exec.end_nested(level, false).await?;
    let ids: Vec<Uuid> = rows.iter().filter_map(|r| r.uuid("id")).collect();
    enqueue(
        exec,
        &NewJob::now(l.job, json!({"intents": ids})).dedupe(format!("{}:{invoice}", l.job)),
    )
    .await
    .map(drop)
}

fn alert_of(provider: &str, why: &str, invoice: Option<Uuid>) -> Value {
    json!({"provider": provider, "why": why, "invoice": invoice})
}

fn now_text() -> String {
    stoa_kernel::value::format_timestamp(now())
}

fn hex_digest(body: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
