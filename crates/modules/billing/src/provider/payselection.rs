//! Payselection (RUB) and Payselection International: a payment link from
//! `webpayments/paylink_create`, the request signed in `X-REQUEST-SIGNATURE` (hex HMAC-SHA256 with
//! the site's public key over `POST\n{path}\n{site id}\n{request id}\n{body}`); webhooks signed
//! in `X-WEBHOOK-SIGNATURE` (hex HMAC-SHA256 with the secret key over
//! `POST\n{webhook url}\n{site id}\n{body}`) and naming the site in `X-SITE-ID`.

use serde_json::{Value, json};
use stoa_api::config::ProviderConfig;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;

use super::sign::{hex, hmac_sha256, same, same_hex};
use super::{
    BoxFuture, Created, Event, Http, Incoming, NewPayment, Outcome, Provider, decimal_of, field,
    set, text_of, two_places, uuid_of,
};

const CREATE: &str = "/webpayments/paylink_create";

pub struct Payselection {
    name: &'static str,
    currencies: &'static [&'static str],
    http: Http,
    api: String,
    site_id: String,
    secret_key: String,
    public_key: String,
    webhook_url: String,
}

pub fn from_config(
    c: &ProviderConfig,
    http: &Http,
    public_url: &str,
) -> Vec<std::sync::Arc<dyn Provider>> {
    let mut out: Vec<std::sync::Arc<dyn Provider>> = Vec::new();
    for (name, currencies, api, site, secret, public) in [
        (
            "payselection",
            &["rub"][..],
            &c.payselection_api_url,
            &c.payselection_site_id,
            &c.payselection_secret_key,
            &c.payselection_public_key,
        ),
        (
            "payselection-international",
            &["usd", "eur"][..],
            &c.payselection_int_api_url,
            &c.payselection_int_site_id,
            &c.payselection_int_secret_key,
            &c.payselection_int_public_key,
        ),
    ] {
        if let (Some(site_id), Some(secret_key), Some(public_key)) =
            (set(site), set(secret), set(public))
        {
            out.push(std::sync::Arc::new(Payselection {
                name,
                currencies,
                http: http.clone(),
                api: api.trim_end_matches('/').to_owned(),
                site_id,
                secret_key,
                public_key,
                webhook_url: format!("{public_url}/api/billing/payment-intents/{name}/webhook"),
            }));
        }
    }
    out
}

/// The request signature: hex HMAC-SHA256 with `key` over the method, path, site id, request id
/// and body, one per line.
pub fn request_signature(key: &str, path: &str, site: &str, request: &str, body: &str) -> String {
    hex(&hmac_sha256(
        key.as_bytes(),
        format!("POST\n{path}\n{site}\n{request}\n{body}").as_bytes(),
    ))
}

impl Provider for Payselection {
    fn name(&self) -> &'static str {
        self.name
    }

    fn currencies(&self) -> &'static [&'static str] {
        self.currencies
    }

    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>> {
        Box::pin(async move {
            let email = p.email.clone().unwrap_or_default();
            let body = json!({
                "PaymentRequest": {
                    "OrderId": p.invoice,
                    "Amount": two_places(p.amount),
                    "Currency": p.currency.to_uppercase(),
                    "Description": p.description,
                    "RebillFlag": false,
                    "ExtraData": {
                        "SuccessUrl": p.success_url,
                        "DeclineUrl": p.cancel_url,
                        "WebhookUrl": self.webhook_url,
                    },
                },
                "CustomerInfo": {"Email": email, "ReceiptEmail": email},
            })
            .to_string();
            let request_id = p.invoice.to_string();
            let signature =
                request_signature(&self.public_key, CREATE, &self.site_id, &request_id, &body);
            let v = self
                .http
                .json(
                    self.name,
                    self.http
                        .client()
                        .post(format!("{}{CREATE}", self.api))
                        .header("content-type", "application/json")
                        .header("X-SITE-ID", &self.site_id)
                        .header("X-REQUEST-ID", &request_id)
                        .header("X-REQUEST-SIGNATURE", signature)
                        .body(body),
                )
                .await?;
            Ok(Created {
                provider_id: text_of(v.get("Id")).unwrap_or_else(|| request_id.clone()),
                payment_url: field(self.name, &v, "/Url")?.to_owned(),
            })
        })
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        let v: Value = serde_json::from_slice(w.body).ok()?;
        Some(format!(
            "{}:{}",
            text_of(v.get("TransactionId"))?,
            text_of(v.get("Event")).unwrap_or_default()
        ))
    }

    fn verify(&self, w: &Incoming<'_>, _at: Option<OffsetDateTime>) -> Result<Event> {
        let site = w.need_header("X-SITE-ID")?;
        let given = w.need_header("X-WEBHOOK-SIGNATURE")?;
        if !same(site.trim(), &self.site_id) {
            return Err(Error::Unauthorized(format!(
                "the webhook names another {} site",
                self.name
            )));
        }
        let mut signed = format!("POST\n{}\n{}\n", self.webhook_url, self.site_id).into_bytes();
        signed.extend_from_slice(w.body);
        let expected = hex(&hmac_sha256(self.secret_key.as_bytes(), &signed));
        if !same_hex(given, &expected) {
            return Err(Error::Unauthorized(format!(
                "the {} X-WEBHOOK-SIGNATURE does not match the body",
                self.name
            )));
        }
        let v = w.json()?;
        let kind = text_of(v.get("Event")).unwrap_or_default();
        let outcome = match kind.as_str() {
            "Payment" => Outcome::Paid,
            "Fail" => Outcome::Failed(format!(
                "declined: {}",
                text_of(v.get("ErrorMessage"))
                    .or_else(|| text_of(v.get("Description")))
                    .unwrap_or_else(|| "no reason given".into())
            )),
            other => Outcome::Other(format!("event {other} is not used")),
        };
        Ok(
            Event::about(uuid_of(v.get("OrderId")), None, outcome).paid_amount(
                decimal_of(v.get("Amount")),
                text_of(v.get("Currency")).as_deref(),
            ),
        )
    }
}
