//! PayKeeper: an invoice link from `change/invoice/preview/` (after a security token from
//! `info/settings/token/`, both with HTTP Basic); POST notifications proven by `key` = md5 of
//! id, sum, clientid, orderid and the secret seed, answered `OK {md5(id + secret seed)}`; and
//! `info/invoice/byid/` as the status API. The original did not check the key at all.

use serde_json::Value;
use stoa_api::config::ProviderConfig;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;

use super::sign::{md5_hex, same_hex};
use super::{
    Ack, BoxFuture, Created, Event, Http, Incoming, InvoiceRef, NewPayment, Outcome, Provider,
    decimal_of, field, refused, set, text_of, two_places, uuid_of,
};

pub struct PayKeeper {
    http: Http,
    base: String,
    user: String,
    password: String,
    secret: String,
}

pub fn from_config(c: &ProviderConfig, http: &Http) -> Option<std::sync::Arc<dyn Provider>> {
    Some(std::sync::Arc::new(PayKeeper {
        http: http.clone(),
        base: set(&c.paykeeper_url)?.trim_end_matches('/').to_owned(),
        user: set(&c.paykeeper_user)?,
        password: set(&c.paykeeper_password)?,
        secret: set(&c.paykeeper_secret)?,
    }))
}

impl PayKeeper {
    fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.http
            .client()
            .get(format!("{}{path}", self.base))
            .basic_auth(&self.user, Some(&self.password))
    }

    /// A PayKeeper answer that reports a failure in its body (`result: fail`).
    fn ok(v: Value) -> Result<Value> {
        if v["result"].as_str() == Some("fail") {
            return Err(refused(
                "paykeeper",
                v["msg"].as_str().unwrap_or("result: fail"),
            ));
        }
        Ok(v)
    }
}

impl Provider for PayKeeper {
    fn name(&self) -> &'static str {
        "paykeeper"
    }

    fn currencies(&self) -> &'static [&'static str] {
        &["rub"]
    }

    fn create<'a>(&'a self, p: &'a NewPayment) -> BoxFuture<'a, Result<Created>> {
        Box::pin(async move {
            let token = Self::ok(
                self.http
                    .json("paykeeper", self.get("/info/settings/token/"))
                    .await?,
            )?;
            let token = field("paykeeper", &token, "/token")?.to_owned();
            let email = p.email.clone().unwrap_or_default();
            let expiry = (time::OffsetDateTime::now_utc() + time::Duration::days(7)).date();
            let form = [
                ("pay_amount", two_places(p.amount)),
                ("clientid", email.clone()),
                ("orderid", p.invoice.to_string()),
                ("client_email", email),
                ("service_name", p.description.clone()),
                ("client_phone", String::new()),
                ("expiry", expiry.to_string()),
                ("token", token),
            ];
            let v = Self::ok(
                self.http
                    .json(
                        "paykeeper",
                        self.http
                            .client()
                            .post(format!("{}/change/invoice/preview/", self.base))
                            .basic_auth(&self.user, Some(&self.password))
                            .form(&form),
                    )
                    .await?,
            )?;
            Ok(Created {
                provider_id: text_of(v.get("invoice_id"))
                    .ok_or_else(|| refused("paykeeper", "its answer has no invoice_id"))?,
                payment_url: field("paykeeper", &v, "/invoice_url")?.to_owned(),
            })
        })
    }

    fn event_key(&self, w: &Incoming<'_>) -> Option<String> {
        text_of(w.fields().ok()?.get("id")).map(|id| format!("payment:{id}"))
    }

    fn verify(&self, w: &Incoming<'_>, _at: Option<OffsetDateTime>) -> Result<Event> {
        let f = w.fields()?;
        let get = |k: &str| text_of(f.get(k)).unwrap_or_default();
        let key = get("key");
        if key.is_empty() {
            return Err(Error::bad_request("the PayKeeper notification has no key"));
        }
        // PayKeeper signs the sum with two decimals; it is hashed as received and, failing
        // that, formatted so.
        let key_for = |sum: &str| {
            md5_hex(
                format!(
                    "{}{sum}{}{}{}",
                    get("id"),
                    get("clientid"),
                    get("orderid"),
                    self.secret
                )
                .as_bytes(),
            )
        };
        let formatted = decimal_of(f.get("sum")).map(two_places).unwrap_or_default();
        if !same_hex(&key, &key_for(&get("sum"))) && !same_hex(&key, &key_for(&formatted)) {
            return Err(Error::Unauthorized(
                "the PayKeeper key does not match the notification".into(),
            ));
        }
        // PayKeeper notifies only successful payments, in roubles.
        Ok(Event::about(uuid_of(f.get("orderid")), None, Outcome::Paid)
            .paid_amount(decimal_of(f.get("sum")), Some("rub")))
    }

    fn ack(&self, w: &Incoming<'_>) -> Ack {
        let id = w
            .fields()
            .ok()
            .and_then(|f| text_of(f.get("id")))
            .unwrap_or_default();
        Ack::Text(format!(
            "OK {}",
            md5_hex(format!("{id}{}", self.secret).as_bytes())
        ))
    }

    fn status<'a>(&'a self, invoice: &'a InvoiceRef) -> BoxFuture<'a, Result<Option<Event>>> {
        Box::pin(async move {
            if invoice.provider_id.is_empty() {
                return Ok(None);
            }
            let id: String =
                form_urlencoded::byte_serialize(invoice.provider_id.as_bytes()).collect();
            let v = Self::ok(
                self.http
                    .json(
                        "paykeeper",
                        self.get(&format!("/info/invoice/byid/?id={id}")),
                    )
                    .await?,
            )?;
            let status = v["status"].as_str().unwrap_or_default();
            let outcome = match status {
                "paid" => Outcome::Paid,
                "expired" => Outcome::Failed("the invoice expired".into()),
                other => Outcome::Other(format!("the invoice is {other}")),
            };
            Ok(Some(
                Event::about(Some(invoice.id), Some(invoice.provider_id.clone()), outcome)
                    .paid_amount(decimal_of(v.get("pay_amount")), Some("rub")),
            ))
        })
    }

    fn has_status(&self) -> bool {
        true
    }
}
