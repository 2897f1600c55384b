//! Stripe: a Checkout Session per invoice (one call with inline `price_data`, instead of the
//! original's Product and Price per amount), webhooks signed in the `Stripe-Signature` header
//! (HMAC-SHA256 over `{timestamp}.{payload}`, 5-minute tolerance), the session read back as the
//! status API. Subscriptions: the session's subscription carries our invoice id in its metadata,
//! so each later `invoice.paid` is a renewal of the same intents.

use rust_decimal::Decimal;
use serde_json::Value;
use stoa_api::config::ProviderConfig;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use super::sign::{hex, hmac_sha256, same_hex};
use super::{
    BoxFuture, Created, Event, Http, Incoming, InvoiceRef, NewPayment, Outcome, Provider, field,
    set, text_of, uuid_of,
};

/// Seconds a signature's timestamp may be away from the receipt (Stripe's default tolerance).
pub const TOLERANCE: i64 = 300;

pub struct Stripe {
    http: Http,
    api: String,
    key: String,
    webhook_secret: String,
}

pub fn from_config(c: &ProviderConfig, http: &Http) -> Option<std::sync::Arc<dyn Provider>> {
    Some(std::sync::Arc::new(Stripe {
        http: http.clone(),
        api: c.stripe_api_url.trim_end_matches('/').to_owned(),
        key: set(&c.stripe_secret_key)?,
        webhook_secret: set(&c.stripe_webhook_secret)?,
    }))
}

/// Decimal places of a currency's minor unit, as Stripe counts them.
fn exponent(currency: &str) -> u32 {
    match currency {
        "bif" | "clp" | "djf" | "gnf" | "jpy" | "kmf" | "krw" | "mga" | "pyg" | "rwf" | "ugx"
        | "vnd" | "vuv" | "xaf" | "xof" | "xpf" => 0,
        "bhd" | "jod" | "kwd" | "omr" | "tnd" => 3,
        _ => 2,
    }
}

/// `199.5` rub → `19950`.
pub fn minor_units(amount: Decimal, currency: &str) -> Result<i64> {
    let too_large = || Error::invalid_field("amount", "is too large for Stripe");
    let scaled = amount
        .checked_mul(Decimal::from(10_i64.pow(exponent(currency))))
        .ok_or_else(too_large)?
        .round();
    i64::try_from(scaled).map_err(|_| too_large())
}

fn major_units(minor: Option<&Value>, currency: &str) -> Option<Decimal> {
    let n: i64 = text_of(minor)?.parse().ok()?;
    Some(Decimal::new(n, exponent(currency)))
}

/// Reads a Checkout Session object.
fn session_event(s: &Value) -> Event {
    let currency = s["currency"].as_str().unwrap_or_default().to_lowercase();
    let invoice =
        uuid_of(s.get("client_reference_id")).or_else(|| uuid_of(s.pointer("/metadata/invoiceId")));
    let outcome = match (s["status"].as_str(), s["payment_status"].as_str()) {
        (Some("complete"), Some("paid" | "no_payment_required")) => Outcome::Paid,
        (Some("expired"), _) => Outcome::Failed("the checkout session expired".into()),
        (status, payment) => Outcome::Other(format!(
            "the session is {} and its payment {}",
            status.unwrap_or("unknown"),
            payment.unwrap_or("unknown")
        )),
    };
    Event::about(invoice, s["id"].as_str().map(str::to_owned), outcome).paid_amount(
        major_units(s.get("amount_total"), &currency),
        Some(&currency),
    )
}

impl Stripe {
    /// A request to Stripe's API, with the secret key.
    fn call(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .client()
            .request(method, format!("{}{path}", self.api))
            .bearer_auth(&self.key)
    }
}

impl Provider for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>> {
        Box::pin(async move {
            let currency = p.currency.to_lowercase();
            let unit = minor_units(p.amount, &currency)?.to_string();
            let invoice = p.invoice.to_string();
            let intents = p
                .intents
                .iter()
                .map(Uuid::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let subscription = p.kind == "subscription";
            let mut form: Vec<(&str, String)> = vec![
                (
                    "mode",
                    if subscription {
                        "subscription"
                    } else {
                        "payment"
                    }
                    .into(),
                ),
                ("line_items[0][quantity]", "1".into()),
                ("line_items[0][price_data][currency]", currency.clone()),
                ("line_items[0][price_data][unit_amount]", unit),
                (
                    "line_items[0][price_data][product_data][name]",
                    p.description.chars().take(250).collect(),
                ),
                ("success_url", p.success_url.clone()),
                ("cancel_url", p.cancel_url.clone()),
                ("client_reference_id", invoice.clone()),
                ("metadata[invoiceId]", invoice.clone()),
                ("metadata[paymentIntentIds]", intents.clone()),
            ];
            if let Some(e) = &p.email {
                form.push(("customer_email", e.clone()));
            }
            if subscription {
                let interval = match p.interval.as_deref() {
                    Some(i @ ("day" | "week" | "month" | "year")) => i,
                    other => {
                        return Err(Error::invalid_field(
                            "interval",
                            format!(
                                "Stripe bills subscriptions by day, week, month or year, not {}",
                                other.unwrap_or("nothing")
                            ),
                        ));
                    }
                };
                form.push((
                    "line_items[0][price_data][recurring][interval]",
                    interval.into(),
                ));
                form.push(("subscription_data[metadata][invoiceId]", invoice.clone()));
                form.push(("subscription_data[metadata][paymentIntentIds]", intents));
            } else {
                form.push(("payment_intent_data[metadata][invoiceId]", invoice.clone()));
            }
            let v = self
                .http
                .json(
                    "stripe",
                    self.call(reqwest::Method::POST, "/v1/checkout/sessions")
                        // A retried checkout never opens a second session for one invoice.
                        .header("Idempotency-Key", format!("stoa-invoice-{invoice}"))
                        .form(&form),
                )
                .await?;
            Ok(Created {
                provider_id: field("stripe", &v, "/id")?.to_owned(),
                payment_url: field("stripe", &v, "/url")?.to_owned(),
            })
        })
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        let v: Value = serde_json::from_slice(w.body).ok()?;
        v["id"].as_str().map(str::to_owned)
    }

    fn verify(&self, w: &Incoming<'_>, at: Option<OffsetDateTime>) -> Result<Event> {
        self.check_signature(w, at)?;
        let v = w.json()?;
        Ok(event_of(
            v["type"].as_str().unwrap_or_default(),
            &v["data"]["object"],
        ))
    }

    fn status<'a>(&'a self, invoice: &'a InvoiceRef) -> BoxFuture<'a, Result<Option<Event>>> {
        Box::pin(async move {
            if invoice.provider_id.is_empty() {
                return Ok(None);
            }
            let v = self
                .http
                .json(
                    "stripe",
                    self.call(
                        reqwest::Method::GET,
                        &format!("/v1/checkout/sessions/{}", urlencode(&invoice.provider_id)),
                    ),
                )
                .await?;
            Ok(Some(session_event(&v)))
        })
    }

    fn has_status(&self) -> bool {
        true
    }
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

impl Stripe {
    /// The `Stripe-Signature` header: a v1 HMAC of `t.body` with the endpoint's secret, and (with
    /// `at`) a timestamp within the tolerance.
    fn check_signature(&self, w: &Incoming<'_>, at: Option<OffsetDateTime>) -> Result<()> {
        let header = w.need_header("Stripe-Signature")?;
        let mut t: Option<i64> = None;
        let mut v1: Vec<&str> = Vec::new();
        for part in header.split(',') {
            match part.trim().split_once('=') {
                Some(("t", x)) => t = x.parse().ok(),
                Some(("v1", x)) => v1.push(x),
                _ => {}
            }
        }
        let t = t.ok_or_else(|| {
            Error::bad_request("the Stripe-Signature header has no timestamp (t=)")
        })?;
        if v1.is_empty() {
            return Err(Error::bad_request(
                "the Stripe-Signature header has no v1 signature",
            ));
        }
        let mut signed = t.to_string().into_bytes();
        signed.push(b'.');
        signed.extend_from_slice(w.body);
        let expected = hex(&hmac_sha256(self.webhook_secret.as_bytes(), &signed));
        if !v1.iter().any(|s| same_hex(s, &expected)) {
            return Err(Error::Unauthorized(
                "the Stripe signature does not match the body".into(),
            ));
        }
        if let Some(now) = at {
            let age = now.unix_timestamp() - t;
            if age.abs() > TOLERANCE {
                return Err(Error::bad_request(format!(
                    "the Stripe signature is {age} s old; more than the {TOLERANCE} s tolerance (a replay?)"
                )));
            }
        }
        Ok(())
    }
}

/// What an event of kind `kind` about `obj` (its `data.object`) means for our invoices.
fn event_of(kind: &str, obj: &Value) -> Event {
    match kind {
        "checkout.session.completed"
        | "checkout.session.async_payment_succeeded"
        | "checkout.session.async_payment_failed"
        | "checkout.session.expired" => {
            let mut e = session_event(obj);
            if kind == "checkout.session.async_payment_failed" {
                e.outcome = Outcome::Failed("the asynchronous payment failed".into());
            } else if kind == "checkout.session.completed" && e.outcome != Outcome::Paid {
                // Paid later by an asynchronous method: its own event follows.
                e.outcome = Outcome::Other(
                    "the session completed unpaid; waiting for the asynchronous payment".into(),
                );
            }
            e
        }
        // `invoice.payment_succeeded` accompanies it for the same invoice: one is enough.
        "invoice.paid" => {
            let currency = obj["currency"].as_str().unwrap_or_default().to_lowercase();
            let ours = uuid_of(obj.pointer("/parent/subscription_details/metadata/invoiceId"))
                .or_else(|| uuid_of(obj.pointer("/subscription_details/metadata/invoiceId")));
            match obj["billing_reason"].as_str() {
                Some("subscription_create") => Event::about(
                    ours,
                    None,
                    Outcome::Other(
                        "the subscription's first invoice: its checkout session pays it".into(),
                    ),
                ),
                _ if ours.is_none() => Event::about(
                    None,
                    None,
                    Outcome::Other("an invoice of a subscription we did not start".into()),
                ),
                _ => {
                    let mut e = Event::about(ours, None, Outcome::Paid).paid_amount(
                        major_units(obj.get("amount_paid"), &currency),
                        Some(&currency),
                    );
                    e.renewal = obj["id"].as_str().map(str::to_owned);
                    e
                }
            }
        }
        other => Event::about(
            None,
            None,
            Outcome::Other(format!("event {other} is not used")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minor_units_follow_the_currency() {
        let d = |s: &str| s.parse::<Decimal>().unwrap_or_default();
        assert_eq!(minor_units(d("199.5"), "rub").ok(), Some(19950));
        assert_eq!(minor_units(d("500"), "jpy").ok(), Some(500));
        assert_eq!(minor_units(d("1.234"), "kwd").ok(), Some(1234));
        assert_eq!(
            major_units(Some(&serde_json::json!(19950)), "rub"),
            Some(d("199.5"))
        );
    }
}
