//! The dummy provider: no outside service. The payment page is the success page; the provider
//! reports the payment by its own webhook after a delay (a job), carrying the invoice id and the
//! invoice's secret provider id as proof (a forged webhook without it is rejected).

use serde_json::Value;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{BoxFuture, Created, Event, Incoming, NewPayment, Outcome, Provider};

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

    fn local(&self) -> bool {
        true
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        let v: Value = serde_json::from_slice(w.body).ok()?;
        v.pointer("/data/id")
            .and_then(Value::as_str)
            .map(|id| format!("invoice:{id}"))
    }

    fn verify(&self, w: &Incoming<'_>, _at: Option<OffsetDateTime>) -> Result<Event> {
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
        let outcome = if v.pointer("/data/status").and_then(Value::as_str) == Some("failed") {
            Outcome::Failed("the test payment failed".into())
        } else {
            Outcome::Paid
        };
        let mut e = Event::about(Some(invoice), None, outcome);
        e.token = Some(token.to_owned());
        Ok(e)
    }

    fn needs_email(&self) -> bool {
        false
    }
}
