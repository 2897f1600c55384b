#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

mod common;

use common::{Receiver, assert_last_problem_is, client, header, md5, start, start_with_receiver};
use serde_json::Value;
use stoa_fakes::{Delivered, Fake, Kind, Mode, Tamper};

fn fields(merchant: &str) -> Vec<(String, String)> {
    [
        ("MerchantId", merchant),
        ("Currency", "USDT (TRC20)"),
        ("AmountUSD", "25.50"),
        ("Email", "buyer@example.com"),
        ("ClientId", "subject-1"),
        ("BillingID", "intent-77"),
        ("Test", "true"),
        ("ReturnUrl", "true"),
        ("SuccessUrl", "https://shop.test/ok"),
        ("CancelUrl", "https://shop.test/cancel"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

async fn create(fake: &Fake, f: &[(String, String)]) -> reqwest::Response {
    client()
        .post(format!("{}/Payment", fake.url))
        .form(f)
        .send()
        .await
        .unwrap()
}

async fn created_id(fake: &Fake) -> String {
    let v: Value = create(fake, &fields(&fake.creds.public_id))
        .await
        .json()
        .await
        .unwrap();
    v["id"].as_i64().unwrap().to_string()
}

/// A fake whose webhooks go to a receiver answering an empty 200, and a payment created from `fields`:
/// the fake, the receiver and the payment's id.
async fn with_payment() -> (Fake, Receiver, String) {
    let (fake, rx) = start_with_receiver(Kind::OxProcessing, |_| (200, String::new())).await;
    let id = created_id(&fake).await;
    (fake, rx, id)
}

fn sig_ok(fake: &Fake, d: &Delivered) -> bool {
    let b: Value = serde_json::from_str(&d.sent_body).unwrap();
    let s = format!(
        "{}:{}:{}:{}:{}",
        b["PaymentId"],
        b["MerchantId"].as_str().unwrap(),
        b["Email"].as_str().unwrap(),
        b["Currency"].as_str().unwrap(),
        fake.creds.secret
    );
    b["Signature"].as_str() == Some(md5(&s).as_str())
}

#[tokio::test]
async fn payment_form_with_return_url_answers_json() {
    let fake = start(Kind::OxProcessing).await;
    let r = create(&fake, &fields(&fake.creds.public_id)).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let id = v["id"].as_i64().unwrap().to_string();
    assert_eq!(v["redirectUrl"], format!("{}/pay/{id}", fake.url));
    let seen = &fake.requests()[0];
    assert!(seen.auth_ok);
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    let p = &fake.payments()[0];
    assert_eq!(p.id, id);
    assert_eq!(
        (p.amount.as_str(), p.currency.as_str()),
        ("25.50", "USDT (TRC20)")
    );
    assert_eq!(p.reference.as_deref(), Some("intent-77"));
    assert_eq!(p.email.as_deref(), Some("buyer@example.com"));
    assert_eq!(p.success_url.as_deref(), Some("https://shop.test/ok"));

    // multipart/form-data is documented too.
    let mut mp = reqwest::multipart::Form::new();
    for (k, v) in fields(&fake.creds.public_id) {
        mp = mp.text(k, v);
    }
    let r = client()
        .post(format!("{}/Payment", fake.url))
        .multipart(mp)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        fake.requests()[1].problems.is_empty(),
        "{:?}",
        fake.requests()[1].problems
    );

    // Without ReturnUrl the browser is sent to the form.
    let plain: Vec<_> = fields(&fake.creds.public_id)
        .into_iter()
        .filter(|(k, _)| k != "ReturnUrl")
        .collect();
    let r = create(&fake, &plain).await;
    assert_eq!(r.status(), 302);
    assert!(
        r.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with(&format!("{}/pay/", fake.url))
    );
    assert_eq!(fake.payments().len(), 3);
}

#[tokio::test]
async fn merchant_id_and_required_fields() {
    let fake = start(Kind::OxProcessing).await;
    let r = create(&fake, &fields("0xMR_someone_else")).await;
    assert_eq!(r.status(), 400);
    assert!(!fake.requests()[0].auth_ok);

    let no_email: Vec<_> = fields(&fake.creds.public_id)
        .into_iter()
        .filter(|(k, _)| k != "Email")
        .collect();
    assert_eq!(create(&fake, &no_email).await.status(), 400);
    assert_last_problem_is(&fake, "Email missing");
    let no_amount: Vec<_> = fields(&fake.creds.public_id)
        .into_iter()
        .filter(|(k, _)| k != "AmountUSD")
        .collect();
    assert_eq!(create(&fake, &no_amount).await.status(), 400);

    // The original system's spelling: accepted (the binder ignores case) but recorded.
    let loose: Vec<(String, String)> = [
        ("MerchantId", fake.creds.public_id.as_str()),
        ("currency", "USDT"),
        ("amountusd", "10"),
        ("email", "buyer@example.com"),
        ("ClientId", "s"),
        ("BillingId", "i"),
        ("ReturnUrl", "true"),
        ("test", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let r = create(&fake, &loose).await;
    assert_eq!(r.status(), 200);
    let problems = fake.requests().pop().unwrap().problems;
    for expected in [
        "field amountusd should be spelled AmountUSD",
        "field BillingId should be spelled BillingID",
        "field currency should be spelled Currency",
    ] {
        assert!(problems.contains(&expected.to_string()), "{problems:?}");
    }
    assert!(
        problems.iter().any(|p| p.contains("names no network")),
        "{problems:?}"
    );
    assert_eq!(fake.payments().len(), 1);
}

#[tokio::test]
async fn webhook_is_json_with_the_md5_signature_and_needs_http_200() {
    let (fake, rx, id) = with_payment().await;
    let d = fake.pay(&id, Tamper::None).await;
    assert_eq!(d.status, 200);
    assert!(fake.answer_ok(&d));
    let got = rx.last();
    assert_eq!(
        header(&got.headers, "content-type"),
        Some("application/json")
    );
    assert!(sig_ok(&fake, &d));
    let b: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(b["PaymentId"].as_i64().unwrap().to_string(), id);
    assert_eq!(b["MerchantId"], fake.creds.public_id.as_str());
    assert_eq!(b["Status"], "Success");
    assert_eq!(b["AmountUSD"], 25.5);
    assert_eq!(b["Currency"], "USDT (TRC20)");
    assert_eq!(b["BillingID"], "intent-77");
    assert_eq!(b["ClientId"], "subject-1");
    assert_eq!(b["Email"], "buyer@example.com");
    assert_eq!(b["Test"], true);
    assert_eq!(b["Insufficient"], false);

    let created = Receiver::start(|_| (201, String::new())).await;
    fake.set_webhook_url(&created.url);
    let id2 = created_id(&fake).await;
    let d = fake.pay(&id2, Tamper::None).await;
    assert_eq!(d.status, 201);
    assert!(!fake.answer_ok(&d), "the docs require HTTP 200");
}

#[tokio::test]
async fn every_tamper_produces_what_it_says() {
    let (fake, rx, id) = with_payment().await;
    let b = |d: &Delivered| serde_json::from_str::<Value>(&d.sent_body).unwrap();

    let d = fake.pay(&id, Tamper::ForgedSignature).await;
    assert!(b(&d)["Signature"].is_string() && !sig_ok(&fake, &d));
    let d = fake.pay(&id, Tamper::MissingSignature).await;
    assert!(b(&d).get("Signature").is_none());
    // The signature does not cover the amount: a changed amount still verifies (the merchant must compare).
    let d = fake.pay(&id, Tamper::BodyChangedAfterSigning).await;
    assert!(sig_ok(&fake, &d));
    assert_eq!(b(&d)["AmountUSD"], 26.5);
    let d = fake.pay(&id, Tamper::Amount("1".into())).await;
    assert!(sig_ok(&fake, &d));
    assert_eq!(b(&d)["AmountUSD"], 1);
    let d = fake.pay(&id, Tamper::Currency("BTC".into())).await;
    assert!(sig_ok(&fake, &d));
    assert_eq!(b(&d)["Currency"], "BTC");
    let d = fake.pay(&id, Tamper::UnknownPayment).await;
    assert!(sig_ok(&fake, &d));
    assert_ne!(b(&d)["BillingID"], "intent-77");
    assert_ne!(b(&d)["PaymentId"].as_i64().unwrap().to_string(), id);
    let d = fake.pay(&id, Tamper::Declined).await;
    assert!(sig_ok(&fake, &d));
    assert_eq!(b(&d)["Status"], "Canceled");
    let id2 = created_id(&fake).await;
    let d = fake.pay(&id2, Tamper::OldTimestamp).await;
    assert!(sig_ok(&fake, &d));
    assert_eq!(b(&d)["Status"], "Success");
    assert_eq!(rx.all().len(), 8);
}

#[tokio::test]
async fn failing_mode() {
    let fake = start(Kind::OxProcessing).await;
    fake.set_mode(Mode::Failing);
    assert_eq!(
        create(&fake, &fields(&fake.creds.public_id)).await.status(),
        500
    );
    assert!(fake.payments().is_empty());
    assert_eq!(fake.requests().len(), 1);
}
