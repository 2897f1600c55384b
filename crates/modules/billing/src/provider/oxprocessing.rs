//! 0xProcessing (crypto): a payment form from `Payment` (multipart, amount in USD, paid in
//! the coin and network of `STOA_OXPROCESSING_CURRENCY`), webhooks proven by `Signature` = md5 of `{PaymentId}:{MerchantId}:{Email}:{Currency}:
//! {webhook password}`. The signature covers neither the amount nor our reference, so the invoice
//! is found by the signed PaymentId and the amount is checked against it like every provider's.

use serde_json::Value;
use stoa_api::config::ProviderConfig;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;

use super::sign::{md5_hex, same, same_hex};
use super::{
    BoxFuture, Created, Event, Http, Incoming, NewPayment, Outcome, Provider, decimal_of, refused,
    set, text_of, two_places,
};

pub struct OxProcessing {
    http: Http,
    api: String,
    merchant: String,
    password: String,
    currency: String,
    test: bool,
}

pub fn from_config(c: &ProviderConfig, http: &Http) -> Option<std::sync::Arc<dyn Provider>> {
    Some(std::sync::Arc::new(OxProcessing {
        http: http.clone(),
        api: c.oxprocessing_api_url.trim_end_matches('/').to_owned(),
        merchant: set(&c.oxprocessing_merchant_id)?,
        password: set(&c.oxprocessing_webhook_password)?,
        currency: c.oxprocessing_currency.clone(),
        test: c.oxprocessing_test,
    }))
}

fn first<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().find_map(|k| v.get(*k).filter(|x| !x.is_null()))
}

impl Provider for OxProcessing {
    fn name(&self) -> &'static str {
        "0xprocessing"
    }

    fn currencies(&self) -> &'static [&'static str] {
        &["usd"]
    }

    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>> {
        Box::pin(async move {
            let email = p.email.clone().unwrap_or_default();
            let form = reqwest::multipart::Form::new()
                .text("MerchantId", self.merchant.clone())
                .text("Currency", self.currency.clone())
                .text("AmountUSD", two_places(p.amount))
                .text("Email", email.clone())
                .text("ClientId", email)
                .text("BillingID", p.invoice.to_string())
                .text("Test", self.test.to_string())
                .text("ReturnUrl", "true")
                .text("SuccessUrl", p.success_url.clone())
                .text("CancelUrl", p.cancel_url.clone());
            let v = self
                .http
                .json(
                    "0xprocessing",
                    self.http
                        .client()
                        .post(format!("{}/Payment", self.api))
                        .multipart(form),
                )
                .await?;
            let url = text_of(first(&v, &["redirectUrl", "RedirectUrl", "url"]))
                .ok_or_else(|| refused("0xprocessing", "its answer has no redirectUrl"))?;
            let id = text_of(first(&v, &["id", "Id", "paymentId", "PaymentId"]))
                .ok_or_else(|| refused("0xprocessing", "its answer has no payment id"))?;
            Ok(Created {
                provider_id: id,
                payment_url: url,
            })
        })
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        let f = w.fields().ok()?;
        Some(format!(
            "{}:{}",
            text_of(f.get("PaymentId"))?,
            text_of(f.get("Status")).unwrap_or_default()
        ))
    }

    fn verify(&self, w: &Incoming<'_>, _at: Option<OffsetDateTime>) -> Result<Event> {
        let f = w.fields()?;
        let get = |k: &str| text_of(f.get(k)).unwrap_or_default();
        let given = get("Signature");
        if given.is_empty() {
            return Err(Error::bad_request(
                "the 0xProcessing webhook has no Signature",
            ));
        }
        let expected = md5_hex(
            format!(
                "{}:{}:{}:{}:{}",
                get("PaymentId"),
                get("MerchantId"),
                get("Email"),
                get("Currency"),
                self.password
            )
            .as_bytes(),
        );
        if !same_hex(&given, &expected) || !same(&get("MerchantId"), &self.merchant) {
            return Err(Error::Unauthorized(
                "the 0xProcessing Signature does not match the webhook".into(),
            ));
        }
        let status = get("Status");
        let test = f.get("Test").and_then(Value::as_bool).unwrap_or(false)
            || matches!(get("Test").to_ascii_lowercase().as_str(), "true" | "1");
        let outcome = match status.as_str() {
            // 0xProcessing: test callbacks are never credited outside test mode.
            _ if test && !self.test => {
                Outcome::Other("a test payment, not credited outside test mode".into())
            }
            "Success" => Outcome::Paid,
            "Canceled" | "Cancelled" | "Expired" => Outcome::Failed(format!("status {status}")),
            other => Outcome::Other(format!("status {other}")),
        };
        // Found by the signed PaymentId only: BillingID is not signed.
        Ok(Event::about(None, Some(get("PaymentId")), outcome)
            .paid_amount(decimal_of(f.get("AmountUSD")), Some("usd")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::sign::md5_hex;

    fn adapter() -> OxProcessing {
        OxProcessing {
            http: Http::new(std::time::Duration::from_secs(1)).unwrap_or_else(|e| panic!("{e}")),
            api: String::new(),
            merchant: "M1".into(),
            password: "pw".into(),
            currency: "USDT (TRC20)".into(),
            test: false,
        }
    }

    fn callback(test: Value, status: &str) -> String {
        let sig = md5_hex(b"77:M1:a@b.c:USDT (TRC20):pw");
        serde_json::json!({"PaymentId": 77, "MerchantId": "M1", "Email": "a@b.c", "Currency": "USDT (TRC20)",
            "Status": status, "AmountUSD": 5, "BillingID": "x", "Test": test, "Signature": sig})
        .to_string()
    }

    #[test]
    fn test_callbacks_are_not_credited_and_the_signed_payment_id_finds_the_invoice() {
        let a = adapter();
        let body = callback(Value::Bool(false), "Success");
        let w = Incoming {
            headers: &[],
            body: body.as_bytes(),
        };
        let e = a.verify(&w, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.outcome, Outcome::Paid);
        assert_eq!(e.provider_id.as_deref(), Some("77"));
        assert_eq!(e.invoice, None, "BillingID is not signed");
        for test in [Value::Bool(true), Value::String("true".into())] {
            let body = callback(test, "Success");
            let w = Incoming {
                headers: &[],
                body: body.as_bytes(),
            };
            let e = a.verify(&w, None).unwrap_or_else(|e| panic!("{e}"));
            assert!(matches!(e.outcome, Outcome::Other(_)), "{e:?}");
        }
        let forged = callback(Value::Bool(false), "Success").replace("M1", "M2");
        let w = Incoming {
            headers: &[],
            body: forged.as_bytes(),
        };
        assert_eq!(a.verify(&w, None).err().map(|e| e.status()), Some(401));
    }
}
