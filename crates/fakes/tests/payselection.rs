#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

mod common;

use common::{
    Receiver, assert_last_problem_mentions, client, header, hmac_hex, pay_delivered,
    send_json_or_null, start, start_with_receiver,
};
use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};
use stoa_fakes::{Creds, Delivered, Fake, Kind, Mode, Tamper};

const PATH: &str = "/webpayments/paylink_create";

fn paylink(order_id: &str, webhook: &str) -> Value {
    json!({
        "PaymentRequest": {
            "OrderId": order_id,
            "Amount": "100.00",
            "Currency": "RUB",
            "Description": "Order 1",
            "RebillFlag": false,
            "ExtraData": {"WebhookUrl": webhook, "SuccessUrl": "http://shop.test/ok", "DeclineUrl": "http://shop.test/no"},
        },
        "CustomerInfo": {"Email": "buyer@example.com", "ReceiptEmail": "buyer@example.com"},
    })
}

/// Posts `body` to paylink_create signed over `line2` with `key`.
async fn create_signed(
    fake: &Fake,
    body: &Value,
    key: &str,
    line2: &str,
    rid: &str,
) -> (u16, Value) {
    let text = body.to_string();
    let msg = format!("POST\n{line2}\n{}\n{rid}\n{text}", fake.creds.public_id);
    let req = signed(fake, Method::POST, PATH, rid, hmac_hex(key, &msg));
    send_json_or_null(req.header("Content-Type", "application/json").body(text)).await
}

/// A request to `path` carrying the site id, the request id `rid` and the signature `sig`.
fn signed(fake: &Fake, method: Method, path: &str, rid: &str, sig: String) -> RequestBuilder {
    client()
        .request(method, format!("{}{path}", fake.url))
        .header("X-SITE-ID", &fake.creds.public_id)
        .header("X-REQUEST-ID", rid)
        .header("X-REQUEST-SIGNATURE", sig)
}

/// Posts a paylink for `order_id` signed with the public key over `line2`; the status.
async fn create_over(fake: &Fake, order_id: &str, line2: &str, rid: &str) -> u16 {
    let body = paylink(order_id, "http://x.test/h");
    create_signed(fake, &body, &fake.creds.extra, line2, rid)
        .await
        .0
}

async fn create(fake: &Fake, body: &Value) -> (u16, Value) {
    let rid = uuid::Uuid::new_v4().to_string();
    create_signed(fake, body, &fake.creds.extra, PATH, &rid).await
}

async fn order_status(fake: &Fake, order_id: &str, key: &str) -> (u16, Value) {
    let rid = uuid::Uuid::new_v4().to_string();
    let path = format!("/orders/{order_id}");
    let msg = format!("GET\n{path}\n{}\n{rid}", fake.creds.public_id);
    send_json_or_null(signed(fake, Method::GET, &path, &rid, hmac_hex(key, &msg))).await
}

fn webhook_sig_ok(fake: &Fake, url: &str, d: &Delivered) -> bool {
    let expected = hmac_hex(
        &fake.creds.secret,
        &format!("POST\n{url}\n{}\n{}", fake.creds.public_id, d.sent_body),
    );
    header(&d.sent_headers, "x-webhook-signature") == Some(expected.as_str())
}

#[tokio::test]
async fn paylink_create_checks_the_public_key_signature_and_answers_id_and_url() {
    for kind in [Kind::Payselection, Kind::PayselectionInternational] {
        let fake = start(kind).await;
        let (status, v) = create(&fake, &paylink("order-1", "http://shop.test/hook")).await;
        assert_eq!(status, 200, "{v}");
        let id = v["Id"].as_str().unwrap();
        assert_eq!(v["Url"], format!("{}/pay/{id}", fake.url));
        let seen = &fake.requests()[0];
        assert!(seen.auth_ok);
        assert_eq!(seen.signature_ok, Some(true));
        assert!(seen.problems.is_empty(), "{:?}", seen.problems);
        let p = &fake.payments()[0];
        assert_eq!(p.id, id);
        assert_eq!((p.amount.as_str(), p.currency.as_str()), ("100.00", "RUB"));
        assert_eq!(p.reference.as_deref(), Some("order-1"));
        assert_eq!(p.email.as_deref(), Some("buyer@example.com"));
        assert_eq!(p.success_url.as_deref(), Some("http://shop.test/ok"));

        // The merchant's site name as the second line is accepted too (Payselection's own modules sign so).
        fake.set_site_name("shop.example");
        assert_eq!(
            create_over(&fake, "order-2", "shop.example", "rid-2").await,
            200
        );
        fake.set_webhook_url(
            "http://127.0.0.1:4000/api/billing/payment-intents/payselection/webhook",
        );
        assert_eq!(
            create_over(&fake, "order-3", "127.0.0.1:4000", "rid-3").await,
            200
        );
        assert_eq!(
            create_over(&fake, "order-4", "evil.example", "rid-4").await,
            401
        );
        assert_eq!(fake.payments().len(), 3);
    }
}

#[tokio::test]
async fn wrong_key_site_or_headers_are_rejected() {
    let fake = start(Kind::Payselection).await;
    let body = paylink("order-1", "http://shop.test/hook");

    let (status, v) = create_signed(&fake, &body, &fake.creds.secret, PATH, "r1").await;
    assert_eq!(status, 401);
    assert!(v["Code"].is_string() && v["Description"].is_string());
    let seen = fake.requests().pop().unwrap();
    assert_eq!(seen.signature_ok, Some(false));
    assert!(
        seen.problems.iter().any(|p| p.contains("secret key")),
        "{:?}",
        seen.problems
    );

    let (status, _) = create_signed(&fake, &body, "not-the-key", PATH, "r2").await;
    assert_eq!(status, 401);
    assert_last_problem_mentions(&fake, "does not verify");

    // The international site's credentials do not work on the RUB site.
    let int = Creds::test(Kind::PayselectionInternational);
    let r = client()
        .post(format!("{}{PATH}", fake.url))
        .header("X-SITE-ID", &int.public_id)
        .header("X-REQUEST-ID", "r3")
        .header(
            "X-REQUEST-SIGNATURE",
            hmac_hex(
                &int.extra,
                &format!("POST\n{PATH}\n{}\nr3\n{body}", int.public_id),
            ),
        )
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(!fake.requests().pop().unwrap().auth_ok);

    let r = client()
        .post(format!("{}{PATH}", fake.url))
        .header("X-SITE-ID", &fake.creds.public_id)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let seen = fake.requests().pop().unwrap();
    assert!(seen.problems.contains(&"X-REQUEST-ID missing".to_string()));
    assert!(
        seen.problems
            .contains(&"X-REQUEST-SIGNATURE missing".to_string())
    );
    assert!(fake.payments().is_empty());
}

#[tokio::test]
async fn missing_and_malformed_fields() {
    let fake = start(Kind::Payselection).await;
    let mut no_amount = paylink("o", "http://shop.test/hook");
    no_amount["PaymentRequest"]
        .as_object_mut()
        .unwrap()
        .remove("Amount");
    let (status, v) = create(&fake, &no_amount).await;
    assert_eq!(status, 400);
    assert!(v["Code"].is_string());
    assert!(v["Description"].as_str().unwrap().contains("Amount"));
    assert!(
        fake.requests()[0]
            .problems
            .contains(&"PaymentRequest.Amount missing".to_string())
    );

    let mut numeric = paylink("o2", "http://shop.test/hook");
    numeric["PaymentRequest"]["Amount"] = json!(100);
    numeric["PaymentRequest"]["Currency"] = json!("rub");
    let customer = numeric
        .as_object_mut()
        .unwrap()
        .remove("CustomerInfo")
        .unwrap();
    numeric["PaymentRequest"]["CustomerInfo"] = customer;
    let (status, _) = create(&fake, &numeric).await;
    assert_eq!(status, 200);
    let problems = fake.requests().pop().unwrap().problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("Amount must be a string")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("upper-case")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("top level")),
        "{problems:?}"
    );

    // X-REQUEST-ID is an idempotency key: reusing it is recorded.
    for order_id in ["o3", "o4"] {
        let body = paylink(order_id, "http://h.test/");
        create_signed(&fake, &body, &fake.creds.extra, PATH, "same").await;
    }
    assert_last_problem_mentions(&fake, "reused");
}

#[tokio::test]
async fn pay_posts_a_signed_json_webhook_and_the_status_api_follows() {
    for kind in [Kind::Payselection, Kind::PayselectionInternational] {
        let (fake, rx) = start_with_receiver(kind, Receiver::ok()).await;
        let (_, v) = create(&fake, &paylink("order-9", "http://elsewhere.test/hook")).await;
        let id = v["Id"].as_str().unwrap().to_string();

        let (status, _) = order_status(&fake, "order-9", &fake.creds.secret).await;
        assert_eq!(status, 404);

        let (d, got) = pay_delivered(&fake, &rx, &id).await;
        assert_eq!(
            header(&got.headers, "x-site-id"),
            Some(fake.creds.public_id.as_str())
        );
        assert!(
            webhook_sig_ok(&fake, &rx.url, &d),
            "signature over POST\\n{{set webhook URL}}\\n{{site}}\\n{{body}}"
        );
        let b: Value = serde_json::from_str(&got.body).unwrap();
        assert_eq!(b["Event"], "Payment");
        assert_eq!(b["OrderId"], "order-9");
        assert_eq!(b["Amount"], "100.00");
        assert_eq!(b["Currency"], "RUB");
        assert_eq!(b["Email"], "buyer@example.com");
        assert!(b["TransactionId"].as_str().unwrap().starts_with("PS"));

        let (status, v) = order_status(&fake, "order-9", &fake.creds.secret).await;
        assert_eq!(status, 200);
        assert_eq!(v[0]["TransactionState"], "success");
        assert_eq!(v[0]["TransactionId"], b["TransactionId"]);
        assert_eq!(v[0]["StateDetails"]["Amount"], "100.00");
        assert_eq!(fake.requests().pop().unwrap().signature_ok, Some(true));
        let (status, _) = order_status(&fake, "order-9", &fake.creds.extra).await;
        assert_eq!(status, 401, "the gateway API is signed with the secret key");

        let bad = Receiver::start(|_| (400, "no".to_string())).await;
        fake.set_webhook_url(&bad.url);
        let (_, v) = create(&fake, &paylink("order-10", "http://elsewhere.test/hook")).await;
        let d = fake.pay(v["Id"].as_str().unwrap(), Tamper::None).await;
        assert!(!fake.answer_ok(&d));
    }
}

#[tokio::test]
async fn without_set_webhook_url_the_request_webhook_url_is_used() {
    let fake = start(Kind::Payselection).await;
    let rx = Receiver::start(Receiver::ok()).await;
    let (_, v) = create(&fake, &paylink("order-1", &rx.url)).await;
    let d = fake.pay(v["Id"].as_str().unwrap(), Tamper::None).await;
    assert_eq!(d.status, 200);
    assert!(webhook_sig_ok(&fake, &rx.url, &d));
}

#[tokio::test]
async fn every_tamper_produces_what_it_says() {
    let (fake, rx) = start_with_receiver(Kind::Payselection, Receiver::ok()).await;
    let (_, v) = create(&fake, &paylink("order-1", "http://x.test/")).await;
    let id = v["Id"].as_str().unwrap().to_string();
    let body = |d: &Delivered| serde_json::from_str::<Value>(&d.sent_body).unwrap();

    let d = fake.pay(&id, Tamper::ForgedSignature).await;
    assert!(header(&d.sent_headers, "x-webhook-signature").is_some());
    assert!(!webhook_sig_ok(&fake, &rx.url, &d));

    let d = fake.pay(&id, Tamper::MissingSignature).await;
    assert_eq!(header(&d.sent_headers, "x-webhook-signature"), None);
    assert!(header(&d.sent_headers, "x-site-id").is_some());

    let d = fake.pay(&id, Tamper::BodyChangedAfterSigning).await;
    assert!(!webhook_sig_ok(&fake, &rx.url, &d));
    assert_eq!(body(&d)["Amount"], "101.00");

    let d = fake.pay(&id, Tamper::Amount("1.00".into())).await;
    assert!(webhook_sig_ok(&fake, &rx.url, &d));
    assert_eq!(body(&d)["Amount"], "1.00");

    let d = fake.pay(&id, Tamper::Currency("USD".into())).await;
    assert!(webhook_sig_ok(&fake, &rx.url, &d));
    assert_eq!(body(&d)["Currency"], "USD");

    let d = fake.pay(&id, Tamper::UnknownPayment).await;
    assert!(webhook_sig_ok(&fake, &rx.url, &d));
    assert_ne!(body(&d)["OrderId"], "order-1");

    assert_eq!(
        order_status(&fake, "order-1", &fake.creds.secret).await.0,
        404,
        "nothing above paid the order"
    );

    let d = fake.pay(&id, Tamper::Declined).await;
    assert!(webhook_sig_ok(&fake, &rx.url, &d));
    assert_eq!(body(&d)["Event"], "Fail");
    let (_, st) = order_status(&fake, "order-1", &fake.creds.secret).await;
    assert_eq!(st[0]["TransactionState"], "declined");

    let (_, v) = create(&fake, &paylink("order-2", "http://x.test/")).await;
    let d = fake
        .pay(v["Id"].as_str().unwrap(), Tamper::OldTimestamp)
        .await;
    assert!(webhook_sig_ok(&fake, &rx.url, &d));
    assert_eq!(body(&d)["Event"], "Payment");
    assert_eq!(rx.all().len(), 8);
}

#[tokio::test]
async fn failing_mode() {
    let fake = start(Kind::Payselection).await;
    fake.set_mode(Mode::Failing);
    let (status, v) = create(&fake, &paylink("o", "http://x.test/")).await;
    assert_eq!(status, 500);
    assert!(v["Code"].is_string() && v["Description"].is_string());
    assert!(fake.payments().is_empty());
}
