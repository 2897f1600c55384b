//! A payment provider is an adapter: start a payment for an invoice, and read its webhooks
//! (the key that identifies an event, then the verified event). The billing core does the rest:
//! the inbox, exactly-once application, amounts and the intents.

use std::future::Future;
use std::pin::Pin;

use rust_decimal::Decimal;
use serde_json::Value;
use stoa_kernel::{Error, Result};
use uuid::Uuid;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a provider needs to start a payment.
#[derive(Clone, Debug)]
pub struct NewPayment {
    pub invoice: Uuid,
    pub intents: Vec<Uuid>,
    /// Whole amount in `currency` (exact decimal).
    pub amount: Decimal,
    /// Currency slug (`rub`, `kzt`, `usd`).
    pub currency: String,
    pub email: Option<String>,
    pub description: String,
    pub success_url: String,
    pub cancel_url: String,
    /// `one_off` or `subscription`.
    pub kind: String,
    pub interval: Option<String>,
}

/// A started payment.
#[derive(Clone, Debug)]
pub struct Created {
    pub provider_id: String,
    pub payment_url: String,
}

/// A webhook as received: lower-case header names and the raw body.
pub struct Incoming<'a> {
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl Incoming<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Result<Value> {
        serde_json::from_slice(self.body)
            .map_err(|e| Error::bad_request(format!("the webhook body is not JSON: {e}")))
    }
}

/// What a verified webhook says.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The invoice it is about: ours (`invoice`) or the provider's id for it (`provider_id`).
    pub invoice: Option<Uuid>,
    pub provider_id: Option<String>,
    /// A value that must equal the invoice's `providerId` (providers without a signature prove
    /// the webhook knows the payment's secret id).
    pub token: Option<String>,
    /// Paid (true) or a state that does not pay (false: failed, pending…).
    pub paid: bool,
    /// The amount the provider says was paid, when it says.
    pub amount: Option<Decimal>,
    /// The currency slug the provider says, when it says.
    pub currency: Option<String>,
}

pub trait Provider: Send + Sync {
    fn name(&self) -> &'static str;
    /// Starts a payment (an outgoing call for real providers), outside any transaction.
    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>>;
    /// The provider's id of the event in a webhook, read without trusting it: the inbox's dedupe
    /// key. `None` when the body has none (the body's digest is used).
    fn event_key(&self, w: &Incoming<'_>) -> Option<String>;
    /// Verifies the webhook and reads it. An error means "not from the provider" (rejected).
    fn verify<'a>(&'a self, w: &'a Incoming<'a>) -> BoxFuture<'a, Result<Event>>;
    /// The body the provider expects back.
    fn ack(&self) -> Value {
        serde_json::json!({"data": {"ok": true}})
    }
    /// Does the provider need the buyer's email to start a payment?
    fn needs_email(&self) -> bool {
        true
    }
}

/// The dummy provider: no outside service. The payment page is the success page; the provider
/// reports the payment by its own webhook after a delay (a job), carrying the invoice id and the
/// invoice's secret provider id as proof (a forged webhook without it is rejected).
pub struct Dummy;

impl Provider for Dummy {
    fn name(&self) -> &'static str {
        "dummy"
    }

    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>> {
        Box::pin(async move {
            let token: String = (0..2)
                .map(|_| Uuid::new_v4().simple().to_string())
                .collect();
            Ok(Created {
                provider_id: token,
                payment_url: p.success_url.clone(),
            })
        })
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        let v: Value = serde_json::from_slice(w.body).ok()?;
        v.pointer("/data/id")
            .and_then(Value::as_str)
            .map(|id| format!("invoice:{id}"))
    }

    fn verify<'a>(&'a self, w: &'a Incoming<'a>) -> BoxFuture<'a, Result<Event>> {
        Box::pin(async move {
            let v = w.json()?;
            let invoice = v
                .pointer("/data/id")
                .and_then(Value::as_str)
                .and_then(|s| Uuid::parse_str(s).ok())
                .ok_or_else(|| Error::bad_field("data.id", "must be the invoice id"))?;
            let token = v
                .pointer("/data/token")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::bad_field("data.token", "is required"))?;
            let paid = v.pointer("/data/status").and_then(Value::as_str) != Some("failed");
            Ok(Event {
                invoice: Some(invoice),
                provider_id: None,
                token: Some(token.to_owned()),
                paid,
                amount: None,
                currency: None,
            })
        })
    }

    fn needs_email(&self) -> bool {
        false
    }
}
