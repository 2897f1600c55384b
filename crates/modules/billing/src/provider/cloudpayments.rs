//! CloudPayments and TipTopPay (the same API, in Russia and in Kazakhstan): a payment link from
//! `orders/create` (HTTP Basic with the Public ID and the API secret), notifications signed in the
//! `Content-HMAC` header (base64 HMAC-SHA256 of the raw body with the API secret) and answered
//! with `{"code":0}` at the top level, and `payments/find` by our invoice id as the status API.

use serde_json::{Value, json};
use stoa_api::config::ProviderConfig;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;

use super::sign::{base64, hmac_sha256, same};
use super::{
    Ack, BoxFuture, Created, Event, Http, Incoming, InvoiceRef, NewPayment, Outcome, Provider,
    Widget, WidgetGlobal, decimal_of, field, refused, set, text_of, uuid_of,
};

pub struct CloudPayments {
    name: &'static str,
    currencies: &'static [&'static str],
    http: Http,
    api: String,
    public_id: String,
    secret: String,
    /// The widget's script (`STOA_*_WIDGET_URL`).
    widget_url: String,
}

pub fn from_config(c: &ProviderConfig, http: &Http) -> Vec<std::sync::Arc<dyn Provider>> {
    let mut out: Vec<std::sync::Arc<dyn Provider>> = Vec::new();
    for (name, currencies, api, id, secret, widget) in [
        (
            "cloudpayments",
            &["rub"][..],
            &c.cloudpayments_api_url,
            &c.cloudpayments_public_id,
            &c.cloudpayments_api_secret,
            &c.cloudpayments_widget_url,
        ),
        (
            "tiptoppay",
            &["kzt"][..],
            &c.tiptoppay_api_url,
            &c.tiptoppay_public_id,
            &c.tiptoppay_api_secret,
            &c.tiptoppay_widget_url,
        ),
    ] {
        if let (Some(public_id), Some(secret)) = (set(id), set(secret)) {
            out.push(std::sync::Arc::new(CloudPayments {
                name,
                currencies,
                http: http.clone(),
                api: api.trim_end_matches('/').to_owned(),
                public_id,
                secret,
                widget_url: widget.trim().to_owned(),
            }));
        }
    }
    out
}

/// A notification's or a payment's fields as an event.
fn event_of(f: &serde_json::Map<String, Value>) -> Event {
    let data: Option<Value> = match f.get("Data") {
        Some(Value::String(s)) => serde_json::from_str(s).ok(),
        Some(v @ Value::Object(_)) => Some(v.clone()),
        _ => None,
    };
    let invoice = uuid_of(f.get("InvoiceId"))
        .or_else(|| data.as_ref().and_then(|d| uuid_of(d.get("invoiceId"))));
    let operation = text_of(f.get("OperationType")).unwrap_or_else(|| "Payment".into());
    let status = text_of(f.get("Status")).unwrap_or_default();
    let outcome = if operation != "Payment" {
        Outcome::Other(format!("a {operation} operation"))
    } else if status == "Completed" {
        Outcome::Paid
    } else if let Some(reason) = text_of(f.get("Reason")) {
        Outcome::Failed(format!("declined: {reason}"))
    } else if status == "Authorized" {
        Outcome::Other("authorised, not yet charged".into())
    } else {
        Outcome::Failed(format!(
            "status {}",
            if status.is_empty() {
                "unknown"
            } else {
                &status
            }
        ))
    };
    Event::about(invoice, None, outcome).paid_amount(
        decimal_of(f.get("Amount")),
        text_of(f.get("Currency")).as_deref(),
    )
}

impl CloudPayments {
    fn post(&self, path: &str, body: &Value) -> reqwest::RequestBuilder {
        self.http
            .client()
            .post(format!("{}{path}", self.api))
            .basic_auth(&self.public_id, Some(&self.secret))
            .json(body)
    }
}

impl Provider for CloudPayments {
    fn name(&self) -> &'static str {
        self.name
    }

    fn currencies(&self) -> &'static [&'static str] {
        self.currencies
    }

    /// CloudPayments' widget (`new cp.CloudPayments().pay(…)`); TipTopPay's is the same API
    /// under `tiptop.Widget`. A payment made in it carries our invoice id (`invoiceId`), so its
    /// notification settles the invoice as a hosted payment's does.
    fn widget(&self) -> Option<Widget> {
        // Only a script the CSP lets the page load is offered.
        stoa_api::config::origin(&self.widget_url).map(|_| Widget {
            script: self.widget_url.clone(),
            public_id: self.public_id.clone(),
            global: if self.name == "tiptoppay" {
                WidgetGlobal::TipTop
            } else {
                WidgetGlobal::CloudPayments
            },
        })
    }

    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>> {
        Box::pin(async move {
            let amount: f64 = super::two_places(p.amount).parse().unwrap_or_default();
            let mut body = json!({
                "Amount": amount,
                "Currency": p.currency.to_uppercase(),
                "Description": p.description,
                "RequireConfirmation": false,
                "SendEmail": false,
                "InvoiceId": p.invoice,
                "JsonData": {"invoiceId": p.invoice, "paymentIntentIds": p.intents},
                "SuccessRedirectUrl": p.success_url,
                "FailRedirectUrl": p.cancel_url,
            });
            if let Some(e) = &p.email {
                body["Email"] = json!(e);
                body["AccountId"] = json!(e);
            }
            if p.kind == "subscription" {
                // Its recurring charges are not read back as renewals yet: a subscription
                // would lapse while the buyer is still charged.
                return Err(Error::invalid_field(
                    "provider",
                    format!(
                        "subscriptions are not taken through {} yet; choose Stripe",
                        self.name
                    ),
                ));
            }
            let v = self
                .http
                .json(self.name, self.post("/orders/create", &body))
                .await?;
            if v["Success"].as_bool() != Some(true) {
                return Err(refused(
                    self.name,
                    v["Message"].as_str().unwrap_or("Success is false"),
                ));
            }
            Ok(Created {
                provider_id: text_of(v.pointer("/Model/Id"))
                    .ok_or_else(|| refused(self.name, "its answer has no Model.Id"))?,
                payment_url: field(self.name, &v, "/Model/Url")?.to_owned(),
            })
        })
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        let f = w.fields().ok()?;
        let tx = text_of(f.get("TransactionId"))?;
        Some(format!(
            "{tx}:{}:{}",
            text_of(f.get("OperationType")).unwrap_or_default(),
            text_of(f.get("Status")).unwrap_or_default()
        ))
    }

    fn verify(&self, w: &Incoming<'_>, _at: Option<OffsetDateTime>) -> Result<Event> {
        let given = w.need_header("Content-HMAC")?;
        let expected = base64(&hmac_sha256(self.secret.as_bytes(), w.body));
        if !same(given.trim(), &expected) {
            return Err(Error::Unauthorized(format!(
                "the {} Content-HMAC does not match the body",
                self.name
            )));
        }
        Ok(event_of(&w.fields()?))
    }

    fn ack(&self, _w: &Incoming<'_>) -> Ack {
        Ack::Json(json!({"code": 0}))
    }

    fn status<'a>(&'a self, invoice: &'a InvoiceRef) -> BoxFuture<'a, Result<Option<Event>>> {
        Box::pin(async move {
            let v = self
                .http
                .json(
                    self.name,
                    self.post("/payments/find", &json!({"InvoiceId": invoice.id})),
                )
                .await?;
            match (v["Success"].as_bool(), v["Model"].as_object()) {
                (Some(true), Some(m)) => {
                    let mut e = event_of(m);
                    // A declined attempt: the buyer may still pay on the same page.
                    if let Outcome::Failed(why) = &e.outcome {
                        e.outcome = Outcome::Other(format!("the last attempt was {why}"));
                    }
                    Ok(Some(e))
                }
                _ => Ok(None),
            }
        })
    }

    fn has_status(&self) -> bool {
        true
    }
}
