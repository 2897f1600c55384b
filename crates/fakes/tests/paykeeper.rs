#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

mod common;

use common::{
    Receiver, assert_last_problem_is, assert_last_problem_mentions, basic, basic_request, client,
    field, form, get_text, header, md5, pay_delivered, post_see_other, send_json, start,
};
use reqwest::Method;
use serde_json::Value;
use stoa_fakes::{Delivered, Fake, Kind, Mode, Tamper};

const TOKEN: &str = "/info/settings/token/";

async fn token(fake: &Fake) -> String {
    let (status, v) = send_json(basic_request(fake, Method::GET, TOKEN)).await;
    assert_eq!(status, 200);
    v["token"].as_str().unwrap().to_string()
}

async fn preview(fake: &Fake, fields: &[(&str, &str)]) -> Value {
    let req = basic_request(fake, Method::POST, "/change/invoice/preview/").form(fields);
    let (status, v) = send_json(req).await;
    assert_eq!(status, 200);
    v
}

async fn invoice(fake: &Fake) -> (String, Value) {
    let t = token(fake).await;
    let v = preview(
        fake,
        &[
            ("pay_amount", "1990.00"),
            ("clientid", "Ivan Petrov"),
            ("orderid", "intent-5"),
            ("client_email", "buyer@example.com"),
            ("service_name", "Tree"),
            ("client_phone", "+79990000000"),
            ("expiry", "2030-01-01"),
            ("token", &t),
        ],
    )
    .await;
    (v["invoice_id"].as_str().unwrap().to_string(), v)
}

async fn byid(fake: &Fake, id: &str) -> Value {
    let path = format!("/info/invoice/byid/?id={id}");
    send_json(basic_request(fake, Method::GET, &path)).await.1
}

/// PayKeeper's answer: `OK md5(id + secret seed)`.
fn merchant(seed: String) -> impl Fn(&common::Captured) -> (u16, String) + Send + Sync + 'static {
    move |c| {
        let id = field(&form(&c.body), "id").unwrap_or_default();
        (200, format!("OK {}", md5(&format!("{id}{seed}"))))
    }
}

/// A fake whose notifications go to a merchant answering as PayKeeper needs.
async fn with_merchant() -> (Fake, Receiver) {
    let fake = start(Kind::PayKeeper).await;
    let rx = Receiver::start(merchant(fake.creds.extra.clone())).await;
    fake.set_webhook_url(&rx.url);
    (fake, rx)
}

fn key_ok(seed: &str, d: &Delivered) -> bool {
    let f = form(&d.sent_body);
    let g = |k: &str| field(&f, k).unwrap_or_default();
    field(&f, "key")
        == Some(md5(&format!(
            "{}{}{}{}{seed}",
            g("id"),
            g("sum"),
            g("clientid"),
            g("orderid")
        )))
}

#[tokio::test]
async fn token_then_invoice_preview() {
    let fake = start(Kind::PayKeeper).await;
    let (id, v) = invoice(&fake).await;
    assert!(!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()));
    assert_eq!(v["invoice_url"], format!("{}/bill/{id}/", fake.url));
    assert!(v["invoice"].is_string());
    let seen = fake.requests();
    assert_eq!(seen.len(), 2);
    assert!(
        seen.iter().all(|s| s.auth_ok && s.problems.is_empty()),
        "{seen:?}"
    );
    let p = &fake.payments()[0];
    assert_eq!(p.id, id);
    assert_eq!((p.amount.as_str(), p.currency.as_str()), ("1990.00", "RUB"));
    assert_eq!(p.reference.as_deref(), Some("intent-5"));
    assert_eq!(p.email.as_deref(), Some("buyer@example.com"));
    assert_eq!(p.success_url, None);
    assert_eq!(p.raw["service_name"], "Tree");
    let inv = byid(&fake, &id).await;
    assert_eq!(inv["id"], id.as_str());
    assert_eq!(inv["status"], "created");
    assert_eq!(inv["orderid"], "intent-5");
    assert_eq!(inv["pay_amount"], "1990.00");
}

#[tokio::test]
async fn auth_token_and_amount_are_required() {
    let fake = start(Kind::PayKeeper).await;
    let r = client()
        .get(format!("{}{TOKEN}", fake.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = client()
        .get(format!("{}{TOKEN}", fake.url))
        .header("Authorization", basic(&fake.creds.public_id, "wrong"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(fake.requests().iter().all(|s| !s.auth_ok));

    let v = preview(&fake, &[("pay_amount", "10")]).await;
    assert_eq!(v["result"], "fail");
    assert_last_problem_is(&fake, "token missing");
    let v = preview(&fake, &[("pay_amount", "10"), ("token", "made-up")]).await;
    assert_eq!(v["result"], "fail");
    let t = token(&fake).await;
    let v = preview(&fake, &[("orderid", "x"), ("token", &t)]).await;
    assert_eq!(v["result"], "fail");
    assert!(v["msg"].is_string());
    assert_last_problem_is(&fake, "pay_amount missing");
    let v = preview(&fake, &[("pay_amount", "10.005"), ("token", &t)]).await;
    assert_eq!(v["result"], "fail");
    let v = preview(
        &fake,
        &[("pay_amount", "10"), ("token", &t), ("expiry", "next week")],
    )
    .await;
    assert!(v["invoice_id"].is_string());
    assert_last_problem_mentions(&fake, "expiry");
    assert_eq!(fake.payments().len(), 1);
}

#[tokio::test]
async fn notification_is_keyed_and_needs_the_ok_hash_answer() {
    let (fake, rx) = with_merchant().await;
    let (id, _) = invoice(&fake).await;
    let (d, got) = pay_delivered(&fake, &rx, &id).await;
    assert!(
        header(&got.headers, "content-type")
            .unwrap()
            .starts_with("application/x-www-form-urlencoded")
    );
    assert!(key_ok(&fake.creds.extra, &d));
    let f = form(&got.body);
    assert_eq!(field(&f, "sum").as_deref(), Some("1990.00"));
    assert_eq!(field(&f, "orderid").as_deref(), Some("intent-5"));
    assert_eq!(field(&f, "clientid").as_deref(), Some("Ivan Petrov"));
    assert_eq!(
        field(&f, "client_email").as_deref(),
        Some("buyer@example.com")
    );
    let inv = byid(&fake, &id).await;
    assert_eq!(inv["status"], "paid");
    assert_eq!(inv["paymentid"].as_str(), field(&f, "id").as_deref());

    // `{"data":{"ok":true}}` (the original system's answer) is not delivery.
    let json_answer = Receiver::start(|_| (200, "{\"data\":{\"ok\":true}}".to_string())).await;
    fake.set_webhook_url(&json_answer.url);
    let (id2, _) = invoice(&fake).await;
    let d = fake.pay(&id2, Tamper::None).await;
    assert_eq!(d.status, 200);
    assert!(!fake.answer_ok(&d));
    // Nor is the hash of another id.
    let wrong = Receiver::start(|_| (200, format!("OK {}", md5("other")))).await;
    fake.set_webhook_url(&wrong.url);
    let (id3, _) = invoice(&fake).await;
    assert!(!fake.answer_ok(&fake.pay(&id3, Tamper::None).await));
}

#[tokio::test]
async fn every_tamper_produces_what_it_says() {
    let (fake, _rx) = with_merchant().await;
    let seed = fake.creds.extra.clone();
    let (id, _) = invoice(&fake).await;
    let f = |d: &Delivered, k: &str| field(&form(&d.sent_body), k);

    let d = fake.pay(&id, Tamper::ForgedSignature).await;
    assert!(f(&d, "key").is_some() && !key_ok(&seed, &d));
    let d = fake.pay(&id, Tamper::MissingSignature).await;
    assert_eq!(f(&d, "key"), None);
    let d = fake.pay(&id, Tamper::BodyChangedAfterSigning).await;
    assert!(!key_ok(&seed, &d));
    assert_eq!(f(&d, "sum").as_deref(), Some("1991.00"));
    let d = fake.pay(&id, Tamper::Amount("1.00".into())).await;
    assert!(key_ok(&seed, &d));
    assert_eq!(f(&d, "sum").as_deref(), Some("1.00"));
    let d = fake.pay(&id, Tamper::UnknownPayment).await;
    assert!(key_ok(&seed, &d));
    assert_ne!(f(&d, "orderid").as_deref(), Some("intent-5"));
    assert_eq!(
        byid(&fake, &id).await["status"],
        "created",
        "nothing above paid the invoice"
    );

    // Not applicable to PayKeeper (no currency field; failures are not notified): as None.
    for t in [
        Tamper::Currency("USD".into()),
        Tamper::Declined,
        Tamper::OldTimestamp,
    ] {
        let (i, _) = invoice(&fake).await;
        let d = fake.pay(&i, t.clone()).await;
        assert!(key_ok(&seed, &d), "{t:?}");
        assert_eq!(f(&d, "sum").as_deref(), Some("1990.00"));
        assert!(fake.answer_ok(&d));
        assert_eq!(byid(&fake, &i).await["status"], "paid");
    }
}

#[tokio::test]
async fn bill_page_and_failing_mode() {
    let (fake, rx) = with_merchant().await;
    let (id, v) = invoice(&fake).await;
    let page = get_text(v["invoice_url"].as_str().unwrap()).await;
    assert!(page.contains("1990.00") && page.contains("RUB") && page.contains(">Pay</button>"));
    // No success URL in PayKeeper's create call: the page returns to `?return=`.
    let back = "?return=http%3A%2F%2Fshop.test%2Fback";
    let location = post_see_other(&format!("{}/bill/{id}/{back}", fake.url)).await;
    assert_eq!(location, "http://shop.test/back");
    assert_eq!(rx.all().len(), 1);
    assert_eq!(byid(&fake, &id).await["status"], "paid");

    fake.set_mode(Mode::Failing);
    let (status, v) = send_json(basic_request(&fake, Method::GET, TOKEN)).await;
    assert_eq!(status, 500);
    assert_eq!(v["result"], "fail");
}
