#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

//! CloudPayments and TipTop Pay (the same protocol): every test runs against both.

mod common;

use common::{
    Receiver, basic, basic_request, client, field, form, header, hmac_b64, pay_delivered,
    send_json_or_null, start, start_with_receiver,
};
use serde_json::{Value, json};
use stoa_fakes::{Delivered, Fake, Kind, Mode, Tamper};

const KINDS: [Kind; 2] = [Kind::CloudPayments, Kind::TipTopPay];

fn order(currency: &str) -> Value {
    json!({
        "Amount": 199,
        "Currency": currency,
        "Description": "Tree donation",
        "Email": "buyer@example.com",
        "InvoiceId": "invoice-7",
        "AccountId": "subject-3",
        "JsonData": {"invoiceId": "invoice-7", "email": "buyer@example.com"},
        "SuccessRedirectUrl": "http://shop.test/thanks",
    })
}

async fn call(fake: &Fake, path: &str, body: &Value) -> (u16, Value) {
    send_json_or_null(basic_request(fake, reqwest::Method::POST, path).json(body)).await
}

/// A fake whose notifications go to a receiver answering `{"code":0}`, and an order created from
/// `order("RUB")`: the fake, the receiver and the order's id.
async fn with_order(kind: Kind) -> (Fake, Receiver, String) {
    let (fake, rx) = start_with_receiver(kind, |_| (200, "{\"code\":0}".to_string())).await;
    let (_, v) = call(&fake, "/orders/create", &order("RUB")).await;
    let id = v["Model"]["Id"].as_str().unwrap().to_string();
    (fake, rx, id)
}

/// URL-decodes a form body as a whole (independent of the crate's helper).
fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'+' {
            out.push(b' ');
            i += 1;
        } else if b[i] == b'%' && i + 2 < b.len() {
            out.push(
                u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap(), 16).unwrap(),
            );
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn hmacs_ok(secret: &str, d: &Delivered) -> (bool, bool) {
    let c = header(&d.sent_headers, "content-hmac").map(|h| h == hmac_b64(secret, &d.sent_body));
    let x = header(&d.sent_headers, "x-content-hmac")
        .map(|h| h == hmac_b64(secret, &url_decode(&d.sent_body)));
    (c.unwrap_or(false), x.unwrap_or(false))
}

#[tokio::test]
async fn orders_create_answers_the_documented_model() {
    for kind in KINDS {
        let fake = start(kind).await;
        let (status, v) = call(&fake, "/orders/create", &order("RUB")).await;
        assert_eq!(status, 200);
        assert_eq!(v["Success"], true);
        assert!(v["Message"].is_null());
        let m = &v["Model"];
        let id = m["Id"].as_str().unwrap();
        assert!(!id.is_empty());
        assert!(m["Number"].is_number());
        assert_eq!(m["Amount"], 199);
        assert_eq!(m["Currency"], "RUB");
        assert_eq!(m["CurrencyCode"], 0);
        assert_eq!(m["Email"], "buyer@example.com");
        assert_eq!(m["Description"], "Tree donation");
        assert_eq!(m["Status"], "Created");
        assert_eq!(m["Url"], format!("{}/pay/{id}", fake.url));
        let seen = fake.requests();
        assert!(seen[0].auth_ok);
        assert!(seen[0].problems.is_empty(), "{:?}", seen[0].problems);
        let p = &fake.payments()[0];
        assert_eq!(
            (p.id.as_str(), p.amount.as_str(), p.currency.as_str()),
            (id, "199", "RUB")
        );
        assert_eq!(p.reference.as_deref(), Some("invoice-7"));
        assert_eq!(p.email.as_deref(), Some("buyer@example.com"));
        assert_eq!(p.success_url.as_deref(), Some("http://shop.test/thanks"));
        assert_eq!(p.raw["JsonData"]["invoiceId"], "invoice-7");

        // Without a Currency the provider's default applies.
        let mut no_cur = order("RUB");
        no_cur.as_object_mut().unwrap().remove("Currency");
        let (_, v) = call(&fake, "/orders/create", &no_cur).await;
        assert_eq!(
            v["Model"]["Currency"],
            if kind == Kind::TipTopPay {
                "KZT"
            } else {
                "RUB"
            }
        );
    }
}

#[tokio::test]
async fn basic_auth_is_required() {
    for kind in KINDS {
        let fake = start(kind).await;
        let url = format!("{}/orders/create", fake.url);
        let r = client()
            .post(&url)
            .json(&order("RUB"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        let r = client()
            .post(&url)
            .header("Authorization", basic(&fake.creds.public_id, "wrong"))
            .json(&order("RUB"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        assert!(fake.requests().iter().all(|s| !s.auth_ok));
        assert!(fake.payments().is_empty());
    }
}

#[tokio::test]
async fn missing_and_malformed_fields() {
    for kind in KINDS {
        let fake = start(kind).await;
        let mut no_amount = order("RUB");
        no_amount.as_object_mut().unwrap().remove("Amount");
        let (status, v) = call(&fake, "/orders/create", &no_amount).await;
        assert_eq!(status, 200);
        assert_eq!(v["Success"], false);
        assert!(v["Message"].as_str().unwrap().contains("Amount"));
        assert!(
            fake.requests()[0]
                .problems
                .contains(&"Amount missing".to_string())
        );

        let mut no_desc = order("RUB");
        no_desc.as_object_mut().unwrap().remove("Description");
        let (_, v) = call(&fake, "/orders/create", &no_desc).await;
        assert_eq!(v["Success"], false);

        let (_, v) = call(&fake, "/orders/create", &order("rub")).await;
        assert_eq!(v["Success"], true);
        let last = fake.requests().pop().unwrap();
        assert!(
            last.problems
                .contains(&"Currency must be upper-case ISO (got rub)".to_string()),
            "{:?}",
            last.problems
        );

        let mut as_string = order("RUB");
        as_string["Amount"] = json!("199.999");
        let (_, v) = call(&fake, "/orders/create", &as_string).await;
        assert_eq!(v["Success"], true);
        let last = fake.requests().pop().unwrap();
        assert!(last.problems.iter().any(|p| p.contains("JSON number")));
        assert!(last.problems.iter().any(|p| p.contains("two decimals")));
        assert_eq!(fake.payments().len(), 2);
    }
}

#[tokio::test]
async fn pay_posts_a_signed_form_notification_that_needs_code_0() {
    for kind in KINDS {
        let (fake, rx, id) = with_order(kind).await;

        let (d, got) = pay_delivered(&fake, &rx, &id).await;
        assert!(
            header(&got.headers, "content-type")
                .unwrap()
                .starts_with("application/x-www-form-urlencoded")
        );
        assert_eq!(hmacs_ok(&fake.creds.secret, &d), (true, true));
        assert_eq!(
            header(&got.headers, "content-hmac"),
            header(&d.sent_headers, "content-hmac")
        );
        let f = form(&got.body);
        assert_eq!(field(&f, "Amount").as_deref(), Some("199.00"));
        assert_eq!(field(&f, "Currency").as_deref(), Some("RUB"));
        assert_eq!(field(&f, "PaymentAmount").as_deref(), Some("199.00"));
        assert_eq!(field(&f, "PaymentCurrency").as_deref(), Some("RUB"));
        assert_eq!(field(&f, "InvoiceId").as_deref(), Some("invoice-7"));
        assert_eq!(field(&f, "AccountId").as_deref(), Some("subject-3"));
        assert_eq!(field(&f, "Email").as_deref(), Some("buyer@example.com"));
        assert_eq!(field(&f, "Status").as_deref(), Some("Completed"));
        assert_eq!(field(&f, "OperationType").as_deref(), Some("Payment"));
        assert_eq!(field(&f, "TestMode").as_deref(), Some("1"));
        assert!(field(&f, "TransactionId").unwrap().parse::<i64>().is_ok());
        assert_eq!(
            field(&f, "DateTime").unwrap().len(),
            "2026-01-01 00:00:00".len()
        );
        let data: Value = serde_json::from_str(&field(&f, "Data").unwrap()).unwrap();
        assert_eq!(
            data,
            json!({"invoiceId": "invoice-7", "email": "buyer@example.com"})
        );

        // {"data":{"code":0}} (the original system's answer) is not what the provider needs.
        let wrapped = Receiver::start(|_| (200, "{\"data\":{\"code\":0}}".to_string())).await;
        fake.set_webhook_url(&wrapped.url);
        let (_, v) = call(&fake, "/orders/create", &order("RUB")).await;
        let d = fake
            .pay(v["Model"]["Id"].as_str().unwrap(), Tamper::None)
            .await;
        assert_eq!(d.status, 200);
        assert!(!fake.answer_ok(&d));
    }
}

#[tokio::test]
async fn status_api_finds_the_paid_transaction() {
    for kind in KINDS {
        let (fake, _rx, id) = with_order(kind).await;

        let (_, before) = call(&fake, "/payments/find", &json!({"InvoiceId": "invoice-7"})).await;
        assert_eq!(before["Success"], false);
        assert_eq!(before["Message"], "Not found");

        let d = fake.pay(&id, Tamper::None).await;
        let txn: i64 = field(&form(&d.sent_body), "TransactionId")
            .unwrap()
            .parse()
            .unwrap();
        for path in ["/payments/find", "/v2/payments/find"] {
            let (_, after) = call(&fake, path, &json!({"InvoiceId": "invoice-7"})).await;
            assert_eq!(after["Success"], true);
            assert_eq!(after["Model"]["Status"], "Completed");
            assert_eq!(after["Model"]["TransactionId"], txn);
            assert_eq!(after["Model"]["InvoiceId"], "invoice-7");
            assert_eq!(after["Model"]["Amount"], 199);
        }
        let (_, got) = call(&fake, "/payments/get", &json!({"TransactionId": txn})).await;
        assert_eq!(got["Model"]["InvoiceId"], "invoice-7");
        let today = time::OffsetDateTime::now_utc().date().to_string();
        let (_, list) = call(&fake, "/payments/list", &json!({"Date": today})).await;
        assert_eq!(list["Success"], true);
        let model = list["Model"].as_array().unwrap();
        assert_eq!(model.len(), 1);
        let jd: Value = serde_json::from_str(model[0]["JsonData"].as_str().unwrap()).unwrap();
        assert_eq!(jd["invoiceId"], "invoice-7");
        let (_, none) = call(&fake, "/payments/list", &json!({"Date": "2001-01-01"})).await;
        assert_eq!(none["Model"], json!([]));
    }
}

#[tokio::test]
async fn every_tamper_produces_what_it_says() {
    for kind in KINDS {
        let (fake, rx, id) = with_order(kind).await;
        let secret = fake.creds.secret.clone();
        let f = |d: &Delivered, k: &str| field(&form(&d.sent_body), k);

        let d = fake.pay(&id, Tamper::ForgedSignature).await;
        assert_eq!(hmacs_ok(&secret, &d), (false, false));
        assert!(header(&d.sent_headers, "content-hmac").is_some());

        let d = fake.pay(&id, Tamper::MissingSignature).await;
        assert_eq!(header(&d.sent_headers, "content-hmac"), None);
        assert_eq!(header(&d.sent_headers, "x-content-hmac"), None);

        let d = fake.pay(&id, Tamper::BodyChangedAfterSigning).await;
        assert_eq!(hmacs_ok(&secret, &d), (false, false));
        assert_eq!(f(&d, "Amount").as_deref(), Some("200.00"));

        let d = fake.pay(&id, Tamper::Amount("1.00".into())).await;
        assert_eq!(hmacs_ok(&secret, &d), (true, true));
        assert_eq!(f(&d, "Amount").as_deref(), Some("1.00"));
        assert_eq!(f(&d, "PaymentAmount").as_deref(), Some("1.00"));

        let d = fake.pay(&id, Tamper::Currency("USD".into())).await;
        assert_eq!(hmacs_ok(&secret, &d), (true, true));
        assert_eq!(f(&d, "Currency").as_deref(), Some("USD"));

        let d = fake.pay(&id, Tamper::UnknownPayment).await;
        assert_eq!(hmacs_ok(&secret, &d), (true, true));
        assert_ne!(f(&d, "InvoiceId").as_deref(), Some("invoice-7"));
        let data: Value = serde_json::from_str(&f(&d, "Data").unwrap()).unwrap();
        assert_ne!(data["invoiceId"], "invoice-7");

        // Still not paid at the provider.
        let (_, find) = call(&fake, "/payments/find", &json!({"InvoiceId": "invoice-7"})).await;
        assert_eq!(find["Success"], false);

        let d = fake.pay(&id, Tamper::Declined).await;
        assert_eq!(hmacs_ok(&secret, &d), (true, true));
        assert_eq!(f(&d, "Status"), None, "a Fail notification has no Status");
        assert_eq!(f(&d, "Reason").as_deref(), Some("InsufficientFunds"));
        assert_eq!(f(&d, "ReasonCode").as_deref(), Some("5051"));
        let (_, find) = call(&fake, "/payments/find", &json!({"InvoiceId": "invoice-7"})).await;
        assert_eq!(find["Model"]["Status"], "Declined");

        let (_, v) = call(&fake, "/orders/create", &order("RUB")).await;
        let d = fake
            .pay(v["Model"]["Id"].as_str().unwrap(), Tamper::OldTimestamp)
            .await;
        assert_eq!(hmacs_ok(&secret, &d), (true, true));
        assert_eq!(f(&d, "Status").as_deref(), Some("Completed"));
        assert_eq!(rx.all().len(), 8);
    }
}

#[tokio::test]
async fn failing_mode_answers_500_with_the_error_shape() {
    for kind in KINDS {
        let fake = start(kind).await;
        fake.set_mode(Mode::Failing);
        let (status, v) = call(&fake, "/orders/create", &order("RUB")).await;
        assert_eq!(status, 500);
        assert_eq!(v["Success"], false);
        assert!(fake.payments().is_empty());
        assert_eq!(fake.requests().len(), 1);
    }
}

/// The widget: its script where each provider serves it, and its "Pay" — refused with the
/// widget's own checks, otherwise recorded with the page's invoice id and paid: the Pay
/// notification reaches the shop, signed as for a hosted payment.
#[tokio::test]
async fn the_widget_pays_with_the_pages_invoice_and_notifies_the_shop() {
    for kind in KINDS {
        let (fake, rx) = start_with_receiver(kind, |_| (200, "{\"code\":0}".to_string())).await;
        let http = client();
        for path in ["/bundles/cloudpayments.js", "/bundles/widget.js"] {
            let r = http
                .get(format!("{}{path}", fake.url))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{path}");
            let js = r.text().await.unwrap();
            assert!(
                js.contains("window.cp.CloudPayments = Widget") && js.contains("tiptop.Widget")
            );
        }
        let currency = if kind == Kind::TipTopPay {
            "KZT"
        } else {
            "RUB"
        };
        let pay = |body: Value| {
            let http = http.clone();
            let url = format!("{}/widget/pay", fake.url);
            async move {
                let r = http
                    .post(url)
                    .header("content-type", "text/plain")
                    .body(body.to_string())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.headers().get("access-control-allow-origin").unwrap(), "*");
                r.json::<Value>().await.unwrap()
            }
        };
        let good = json!({
            "mode": "auth", "publicId": fake.creds.public_id, "amount": 398, "currency": currency,
            "description": "2 trees", "invoiceId": "invoice-9", "accountId": "donor@example.com",
            "email": "donor@example.com", "requireEmail": true, "skin": "mini",
            "data": {"invoiceId": "invoice-9"}
        });
        for (change, why) in [
            (json!({"publicId": "pk_other"}), "publicId"),
            (json!({"mode": "capture"}), "mode"),
            (json!({"email": null}), "email"),
            (json!({"amount": 0}), "Amount"),
        ] {
            let mut body = good.clone();
            for (k, v) in change.as_object().unwrap() {
                body[k] = v.clone();
            }
            let r = pay(body).await;
            assert_eq!(r["success"], false, "{why}: {r}");
            assert!(rx.all().is_empty(), "a refused payment notifies nobody");
        }
        let r = pay(good.clone()).await;
        assert_eq!(r["success"], true, "{r}");
        assert!(r["transactionId"].as_str().is_some_and(|t| !t.is_empty()));
        let got = rx.last();
        let f = form(&got.body);
        assert_eq!(field(&f, "InvoiceId").as_deref(), Some("invoice-9"));
        assert_eq!(field(&f, "Status").as_deref(), Some("Completed"));
        assert_eq!(field(&f, "Amount").as_deref(), Some("398.00"));
        assert_eq!(
            header(&got.headers, "content-hmac"),
            Some(hmac_b64(&fake.creds.secret, &got.body).as_str())
        );
    }
}
