//! A payment provider is an adapter: start a payment for an invoice (its outgoing "create" call),
//! verify and read its webhooks, say what it expects back, and — where it has one — ask its status
//! API. The billing core does the rest: the inbox, amounts and currencies, exactly-once
//! application and the intents. docs/payments.md describes each provider.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rust_decimal::Decimal;
use serde_json::{Value, json};
use stoa_api::config::ProviderConfig;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

mod cloudpayments;
mod dummy;
mod oxprocessing;
mod paykeeper;
mod payselection;
pub mod sign;
mod stripe;

pub use dummy::Dummy;

/// A provider's own card widget, opened over the page (CloudPayments, TipTopPay).
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Widget {
    /// The widget script's URL
    pub script: String,
    /// The public id the widget takes
    pub public_id: String,
    /// The constructor the script defines
    pub global: WidgetGlobal,
}

/// The constructor a widget script defines.
#[derive(Clone, Copy, Debug, serde::Serialize, schemars::JsonSchema)]
pub enum WidgetGlobal {
    #[serde(rename = "cp.CloudPayments")]
    CloudPayments,
    #[serde(rename = "tiptop.Widget")]
    TipTop,
}

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

/// An invoice as a status API needs it: ours and the provider's id.
#[derive(Clone, Debug)]
pub struct InvoiceRef {
    pub id: Uuid,
    pub provider_id: String,
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

    /// A header the provider always sends: 400 naming it when absent.
    pub fn need_header(&self, name: &str) -> Result<&str> {
        self.header(name)
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| Error::bad_request(format!("the {name} header is missing")))
    }

    pub fn json(&self) -> Result<Value> {
        serde_json::from_slice(self.body)
            .map_err(|e| Error::bad_request(format!("the webhook body is not JSON: {e}")))
    }

    /// The body's fields: a form (`application/x-www-form-urlencoded`) or a flat JSON object.
    pub fn fields(&self) -> Result<serde_json::Map<String, Value>> {
        let looks_json = self
            .header("content-type")
            .is_some_and(|c| c.contains("json"))
            || self.body.first() == Some(&b'{');
        if looks_json {
            return match self.json()? {
                Value::Object(m) => Ok(m),
                _ => Err(Error::bad_request("the webhook body is not an object")),
            };
        }
        Ok(form_urlencoded::parse(self.body)
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect())
    }
}

/// What a verified webhook says about a payment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The payment went through.
    Paid,
    /// The payment failed or was declined (nothing to apply; the buyer may try again).
    Failed(String),
    /// An event we have no use for (another event type).
    Other(String),
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
    pub outcome: Outcome,
    /// The amount the provider says was paid, when it says.
    pub amount: Option<Decimal>,
    /// The currency slug the provider says, when it says.
    pub currency: Option<String>,
    /// A subscription's later payment: the provider's id of that payment (a new paid invoice of
    /// the same intents).
    pub renewal: Option<String>,
}

impl Event {
    pub fn about(invoice: Option<Uuid>, provider_id: Option<String>, outcome: Outcome) -> Self {
        Self {
            invoice,
            provider_id,
            token: None,
            outcome,
            amount: None,
            currency: None,
            renewal: None,
        }
    }

    pub fn paid_amount(mut self, amount: Option<Decimal>, currency: Option<&str>) -> Self {
        self.amount = amount;
        self.currency = currency.map(str::to_lowercase);
        self
    }
}

/// The answer a provider expects to a webhook it delivered.
#[derive(Clone, Debug, PartialEq)]
pub enum Ack {
    Json(Value),
    Text(String),
}

pub trait Provider: Send + Sync {
    fn name(&self) -> &'static str;
    /// Currency slugs this provider takes (empty: any).
    fn currencies(&self) -> &'static [&'static str] {
        &[]
    }
    /// Starts a payment (an outgoing call for real providers), outside any transaction.
    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>>;
    /// The provider's id of the event in a webhook, read without trusting it: the inbox's dedupe
    /// key. `None` when the body has none (the body's digest is used).
    fn event_key(&self, w: &Incoming<'_>) -> Option<String>;
    /// Verifies the webhook's signature and reads it: 400 when the proof is missing or
    /// malformed, 401 when it is wrong. `at` is the receipt time, against which timestamps are
    /// checked; `None` re-checks an entry verified at receipt (a replay by an admin).
    fn verify(&self, w: &Incoming<'_>, at: Option<OffsetDateTime>) -> Result<Event>;
    /// The body the provider expects back for a webhook it delivered.
    fn ack(&self, _w: &Incoming<'_>) -> Ack {
        Ack::Json(json!({"data": {"ok": true}}))
    }
    /// Does the provider need the buyer's email to start a payment?
    fn needs_email(&self) -> bool {
        true
    }
    /// Asks the provider's status API about an invoice: `Ok(None)` when the provider has no
    /// such API or does not know the payment yet.
    fn status<'a>(&'a self, _invoice: &'a InvoiceRef) -> BoxFuture<'a, Result<Option<Event>>> {
        Box::pin(async { Ok(None) })
    }
    /// Whether [`Provider::status`] asks anything.
    fn has_status(&self) -> bool {
        false
    }
    /// The provider's own payment widget, for a page that opens its card form in place (the
    /// donation's card variant). Public values only. `None`: the provider has no widget.
    fn widget(&self) -> Option<Widget> {
        None
    }
    /// Whether [`Provider::create`] answers without leaving the process (no network call,
    /// nothing that can wait): such a payment is started inside the checkout's transaction
    /// ([`crate::service::Billing::start_in`]) instead of between two.
    fn local(&self) -> bool {
        false
    }
}

/// The outgoing HTTP client every provider shares: bounded in time so a provider that does not
/// answer costs the buyer a few seconds, never a hung checkout.
#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
}

impl Http {
    pub fn new(timeout: Duration) -> Result<Self> {
        stoa_api::tls::install();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(3)))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("Stoa/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal(format!("HTTP client: {e}")))?;
        Ok(Self { client })
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Sends a request and reads a JSON answer. No answer in time, a refused connection or an
    /// answer that is not JSON is 503 naming the provider; the provider's own error answer is
    /// 503 carrying its message.
    pub async fn json(&self, provider: &str, req: reqwest::RequestBuilder) -> Result<Value> {
        let (status, text) = self.text(provider, req).await?;
        if !(200..300).contains(&status) {
            tracing::warn!(provider, status, body = %short(&text), "the provider refused the request");
            return Err(Error::Unavailable(format!(
                "the payment provider '{provider}' refused the payment (HTTP {status}); try again later or choose another way to pay"
            )));
        }
        serde_json::from_str(&text).map_err(|_| {
            tracing::warn!(provider, status, body = %short(&text), "the provider's answer is not JSON");
            Error::Unavailable(format!(
                "the payment provider '{provider}' gave an answer we could not read; try again in a minute"
            ))
        })
    }

    pub async fn text(
        &self,
        provider: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<(u16, String)> {
        let res = req.send().await.map_err(|e| unreachable(provider, &e))?;
        let status = res.status().as_u16();
        let text = res.text().await.map_err(|e| unreachable(provider, &e))?;
        Ok((status, text))
    }
}

fn unreachable(provider: &str, e: &reqwest::Error) -> Error {
    let what = if e.is_timeout() {
        "did not answer in time"
    } else if e.is_connect() {
        "could not be reached"
    } else {
        "failed to answer"
    };
    tracing::warn!(provider, error = %e, "payment provider {what}");
    Error::Unavailable(format!(
        "the payment provider '{provider}' {what}; try again in a minute"
    ))
}

/// The first 300 characters of a provider's answer, for the log.
pub fn short(s: &str) -> String {
    s.chars().take(300).collect()
}

/// A provider's refusal carried in a 2xx answer (`Success: false`, an error code…).
pub fn refused(provider: &str, why: &str) -> Error {
    tracing::warn!(provider, reason = %short(why), "the provider refused the payment");
    Error::Unavailable(format!(
        "the payment provider '{provider}' refused the payment: {}",
        why.chars().take(200).collect::<String>()
    ))
}

/// A required string field of a provider's answer.
pub fn field<'v>(provider: &str, v: &'v Value, pointer: &str) -> Result<&'v str> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| refused(provider, &format!("its answer has no {pointer}")))
}

/// A string or number field as text.
pub fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A decimal from a string or number field.
pub fn decimal_of(v: Option<&Value>) -> Option<Decimal> {
    text_of(v).and_then(|s| s.trim().parse::<Decimal>().ok())
}

/// An amount with two decimals (`"199.00"`).
pub fn two_places(d: Decimal) -> String {
    format!("{:.2}", d.round_dp(2))
}

/// An invoice id named by a webhook.
pub fn uuid_of(v: Option<&Value>) -> Option<Uuid> {
    text_of(v).and_then(|s| Uuid::parse_str(s.trim()).ok())
}

/// Every provider adapter that has its credentials in `config`, by name. The dummy provider is
/// always available.
pub fn available(config: &ProviderConfig, public_url: &str) -> Result<Vec<Arc<dyn Provider>>> {
    // Half a provider's credentials is a mistake, not "not configured": it must not quietly
    // leave the site on the dummy provider.
    for (name, settings) in credentials(config) {
        let given = settings.iter().filter(|(_, v)| set(v).is_some()).count();
        if given > 0 && given < settings.len() {
            return Err(Error::bad_request(format!(
                "only some of {name}'s settings are set: set {}",
                required_settings(name)
            )));
        }
    }
    let http = Http::new(Duration::from_secs(config.provider_timeout.max(1)))?;
    let mut out: Vec<Arc<dyn Provider>> = vec![Arc::new(Dummy)];
    out.extend(stripe::from_config(config, &http));
    out.extend(cloudpayments::from_config(config, &http));
    out.extend(payselection::from_config(config, &http, public_url));
    out.extend(paykeeper::from_config(config, &http));
    out.extend(oxprocessing::from_config(config, &http));
    Ok(out)
}

/// Per provider, its credentials: each environment variable with its value.
type Credentials<'c> = Vec<(&'static str, Vec<(&'static str, &'c Option<String>)>)>;

/// Each provider's credentials: the environment variables and their values in `c`.
fn credentials(c: &ProviderConfig) -> Credentials<'_> {
    vec![
        (
            "stripe",
            vec![
                ("STOA_STRIPE_SECRET_KEY", &c.stripe_secret_key),
                ("STOA_STRIPE_WEBHOOK_SECRET", &c.stripe_webhook_secret),
            ],
        ),
        (
            "cloudpayments",
            vec![
                ("STOA_CLOUDPAYMENTS_PUBLIC_ID", &c.cloudpayments_public_id),
                ("STOA_CLOUDPAYMENTS_API_SECRET", &c.cloudpayments_api_secret),
            ],
        ),
        (
            "tiptoppay",
            vec![
                ("STOA_TIPTOPPAY_PUBLIC_ID", &c.tiptoppay_public_id),
                ("STOA_TIPTOPPAY_API_SECRET", &c.tiptoppay_api_secret),
            ],
        ),
        (
            "payselection",
            vec![
                ("STOA_PAYSELECTION_SITE_ID", &c.payselection_site_id),
                ("STOA_PAYSELECTION_SECRET_KEY", &c.payselection_secret_key),
                ("STOA_PAYSELECTION_PUBLIC_KEY", &c.payselection_public_key),
            ],
        ),
        (
            "payselection-international",
            vec![
                ("STOA_PAYSELECTION_INT_SITE_ID", &c.payselection_int_site_id),
                (
                    "STOA_PAYSELECTION_INT_SECRET_KEY",
                    &c.payselection_int_secret_key,
                ),
                (
                    "STOA_PAYSELECTION_INT_PUBLIC_KEY",
                    &c.payselection_int_public_key,
                ),
            ],
        ),
        (
            "paykeeper",
            vec![
                ("STOA_PAYKEEPER_URL", &c.paykeeper_url),
                ("STOA_PAYKEEPER_USER", &c.paykeeper_user),
                ("STOA_PAYKEEPER_PASSWORD", &c.paykeeper_password),
                ("STOA_PAYKEEPER_SECRET", &c.paykeeper_secret),
            ],
        ),
        (
            "0xprocessing",
            vec![
                ("STOA_OXPROCESSING_MERCHANT_ID", &c.oxprocessing_merchant_id),
                (
                    "STOA_OXPROCESSING_WEBHOOK_PASSWORD",
                    &c.oxprocessing_webhook_password,
                ),
            ],
        ),
    ]
}

/// The settings `provider` needs, for the error naming what is missing.
pub fn required_settings(provider: &str) -> String {
    let none = ProviderConfig::default();
    credentials(&none)
        .into_iter()
        .find(|(name, _)| *name == provider)
        .map_or_else(
            || "nothing".to_owned(),
            |(_, settings)| {
                settings
                    .iter()
                    .map(|(env, _)| *env)
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        )
}

/// A setting that is set and not blank.
pub(crate) fn set(v: &Option<String>) -> Option<String> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}
