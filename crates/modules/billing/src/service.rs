//! The billing core: payment intents grouped by (currency, type, interval), invoices started
//! through a provider adapter, and the webhook inbox. Every webhook is written to the inbox first
//! (raw body, headers, dedupe key) together with a job that applies it; the job verifies it and
//! applies it exactly once (the inbox row moves out of `received` in the same transaction as the
//! invoice and the intents change), then enqueues the jobs other modules asked for when intents
//! succeed. A crash between receipt and effect loses nothing: the job runs after restart. What
//! our own server reports paid (the dummy provider's webhook, a status API's answer) is applied
//! in the transaction that writes its entry, the job only when that fails: the receipt and its
//! effect commit together or not at all.

mod checks;
mod inbox;
mod invoices;
mod settlement;
mod upkeep;

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
use crate::rows::{CurrencyRow, IntentInvoiceRow, IntentRow, InvoiceRow, WebhookRow};

/// A payment provider buyers may choose.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "BillingProvider")]
pub struct Offered {
    pub provider: String,
    /// The currencies it takes (empty: any)
    pub currencies: Vec<&'static str>,
    /// Whether open invoices are checked against the provider's status API
    pub status_api: bool,
    /// The provider's own card widget, opened over the page (CloudPayments, TipTopPay)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widget: Option<crate::provider::Widget>,
}

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
    Apply(InvoiceRow),
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
    ) -> stoa_api::module::ModuleResult<Self> {
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
                        return Err(stoa_api::module::ModuleError::Config(format!(
                            "STOA_PAYMENT_PROVIDERS: '{p}' is not a payment provider (known: {})",
                            crate::PROVIDERS.join(", ")
                        )));
                    }
                    if !providers.contains_key(p) {
                        return Err(stoa_api::module::ModuleError::Config(format!(
                            "STOA_PAYMENT_PROVIDERS names '{p}', but its credentials are not set: set {}",
                            crate::provider::required_settings(p)
                        )));
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
    pub fn offered(&self) -> Vec<Offered> {
        self.allowed
            .iter()
            .filter_map(|name| {
                let p = self.providers.get(name.as_str())?;
                Some(Offered {
                    provider: name.clone(),
                    currencies: p.currencies().to_vec(),
                    status_api: p.has_status(),
                    widget: p.widget(),
                })
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
    invoice: InvoiceRow,
    payment: Payment,
}

/// The intents an invoice pays: their ids, and their rows oldest first.
struct Payment {
    ids: Vec<Uuid>,
    intents: Vec<IntentRow>,
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
    let ids: Vec<Uuid> = rows.iter().filter_map(Record::id).collect();
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
