#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

mod common;

use std::time::{Duration, Instant};

use common::{
    Receiver, assert_last_problem_mentions, client, get_text, header, hmac_hex, pay_delivered,
    post_see_other, send_json, start, start_with_receiver,
};
use serde_json::Value;
use stoa_fakes::{Fake, Kind, Mode, Tamper};

const SUCCESS: &str = "http://shop.test/checkout/done?session={CHECKOUT_SESSION_ID}";

fn payment_form() -> Vec<(&'static str, &'static str)> {
    vec![
        ("mode", "payment"),
        ("line_items[0][price_data][currency]", "usd"),
        ("line_items[0][price_data][unit_amount]", "1050"),
        ("line_items[0][price_data][product_data][name]", "Tree"),
        ("line_items[0][quantity]", "2"),
        ("customer_email", "buyer@example.com"),
        ("success_url", SUCCESS),
        ("cancel_url", "http://shop.test/cart"),
        ("client_reference_id", "intent-42"),
        ("metadata[paymentIntentId]", "intent-42"),
    ]
}

async fn create(fake: &Fake, form: &[(&str, &str)]) -> (u16, Value) {
    send_json(
        client()
            .post(format!("{}/v1/checkout/sessions", fake.url))
            .bearer_auth(&fake.creds.secret)
            .form(form),
    )
    .await
}

async fn get(fake: &Fake, path: &str) -> (u16, Value) {
    send_json(
        client()
            .get(format!("{}{path}", fake.url))
            .bearer_auth(&fake.creds.secret),
    )
    .await
}

/// A fake whose webhooks go to a receiver answering 200, and a session created from `payment_form()`:
/// the fake, the receiver, the session and its id.
async fn with_session() -> (Fake, Receiver, Value, String) {
    let (fake, rx) = start_with_receiver(Kind::Stripe, Receiver::ok()).await;
    let (_, s) = create(&fake, &payment_form()).await;
    let id = s["id"].as_str().unwrap().to_string();
    (fake, rx, s, id)
}

/// Checks a captured event's `Stripe-Signature` against the fake's webhook secret.
fn assert_signed(fake: &Fake, got: &common::Captured, what: &str) -> i64 {
    verify(
        &fake.creds.extra,
        header(&got.headers, "stripe-signature").unwrap(),
        &got.body,
    )
    .expect(what)
}

/// Verifies a `Stripe-Signature` independently; returns the timestamp when a v1 signature matches.
fn verify(secret: &str, header_value: &str, body: &str) -> Option<i64> {
    let mut t = None;
    let mut sigs = Vec::new();
    for part in header_value.split(',') {
        match part.split_once('=') {
            Some(("t", v)) => t = v.parse::<i64>().ok(),
            Some(("v1", v)) => sigs.push(v.to_string()),
            _ => {}
        }
    }
    let t = t?;
    let expected = hmac_hex(secret, &format!("{t}.{body}"));
    sigs.contains(&expected).then_some(t)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn create_session_answers_the_documented_object() {
    let fake = start(Kind::Stripe).await;
    let (status, s) = create(&fake, &payment_form()).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["object"], "checkout.session");
    let id = s["id"].as_str().unwrap();
    assert!(id.starts_with("cs_test_"));
    assert_eq!(s["amount_total"], 2100);
    assert_eq!(s["currency"], "usd");
    assert_eq!(s["mode"], "payment");
    assert_eq!(s["status"], "open");
    assert_eq!(s["payment_status"], "unpaid");
    assert_eq!(s["url"], format!("{}/pay/{id}", fake.url));
    assert_eq!(s["client_reference_id"], "intent-42");
    assert_eq!(s["metadata"]["paymentIntentId"], "intent-42");
    assert_eq!(s["customer_email"], "buyer@example.com");

    let seen = fake.requests();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].auth_ok);
    assert_eq!(seen[0].signature_ok, None);
    assert!(seen[0].problems.is_empty(), "{:?}", seen[0].problems);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path, "/v1/checkout/sessions");
    assert!(header(&seen[0].headers, "authorization").is_some());

    let p = &fake.payments()[0];
    assert_eq!(p.id, id);
    assert_eq!(p.amount, "21.00");
    assert_eq!(p.currency, "usd");
    assert_eq!(p.email.as_deref(), Some("buyer@example.com"));
    assert_eq!(p.reference.as_deref(), Some("intent-42"));
    assert_eq!(p.success_url.as_deref(), Some(SUCCESS));
    assert_eq!(p.raw["line_items"][0]["price_data"]["unit_amount"], "1050");

    let (status, again) = get(&fake, &format!("/v1/checkout/sessions/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(again["id"], id);
    let (status, missing) = get(&fake, "/v1/checkout/sessions/cs_test_nope").await;
    assert_eq!(status, 404);
    assert_eq!(missing["error"]["code"], "resource_missing");
}

#[tokio::test]
async fn wrong_or_missing_key_is_401_and_basic_auth_works() {
    let fake = start(Kind::Stripe).await;
    let url = format!("{}/v1/checkout/sessions", fake.url);
    let r = client()
        .post(&url)
        .form(&payment_form())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["type"], "invalid_request_error");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not provide an API key")
    );

    let r = client()
        .post(&url)
        .bearer_auth("sk_test_wrong0000")
        .form(&payment_form())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid API Key provided")
    );

    let r = client()
        .post(&url)
        .basic_auth(&fake.creds.secret, Some(""))
        .form(&payment_form())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let auth: Vec<bool> = fake.requests().iter().map(|s| s.auth_ok).collect();
    assert_eq!(auth, vec![false, false, true]);
    assert_eq!(fake.payments().len(), 1);
}

#[tokio::test]
async fn malformed_requests_are_rejected_or_recorded() {
    let fake = start(Kind::Stripe).await;
    let without = |name: &str| {
        payment_form()
            .into_iter()
            .filter(|(k, _)| *k != name)
            .collect::<Vec<_>>()
    };

    let (status, v) = create(&fake, &without("mode")).await;
    assert_eq!(status, 400);
    assert_eq!(v["error"]["code"], "parameter_missing");
    assert_eq!(v["error"]["param"], "mode");

    let (status, v) = create(&fake, &without("line_items[0][quantity]")).await;
    assert_eq!(status, 400);
    assert_eq!(v["error"]["param"], "line_items[0][quantity]");

    let (status, v) = create(&fake, &without("line_items[0][price_data][unit_amount]")).await;
    assert_eq!(status, 400);
    assert_eq!(
        v["error"]["param"],
        "line_items[0][price_data][unit_amount]"
    );

    let mut upper = payment_form();
    upper[1] = ("line_items[0][price_data][currency]", "USD");
    let (status, v) = create(&fake, &upper).await;
    assert_eq!(status, 200);
    assert_eq!(v["currency"], "usd");
    let last = fake.requests().pop().unwrap();
    assert!(
        last.problems.iter().any(|p| p.contains("lower-case")),
        "{:?}",
        last.problems
    );

    let (status, v) = create(&fake, &without("success_url")).await;
    assert_eq!(status, 200);
    assert!(v["success_url"].is_null());
    assert_last_problem_mentions(&fake, "success_url");

    let mut sub = payment_form();
    sub[0] = ("mode", "subscription");
    let (status, v) = create(&fake, &sub).await;
    assert_eq!(status, 400);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("recurring price")
    );

    let mut unknown = payment_form();
    unknown.push(("amount", "10"));
    let (status, v) = create(&fake, &unknown).await;
    assert_eq!(status, 400);
    assert_eq!(v["error"]["code"], "parameter_unknown");

    let mut bad_email = payment_form();
    bad_email[5] = ("customer_email", "not-an-email");
    let (status, _) = create(&fake, &bad_email).await;
    assert_eq!(status, 400);

    assert_eq!(
        fake.payments().len(),
        2,
        "only the accepted sessions are payments"
    );
    assert!(fake.requests().iter().all(|s| s.auth_ok));
}

#[tokio::test]
async fn pay_posts_a_signed_checkout_session_completed_event() {
    let (fake, rx, _, id) = with_session().await;

    let (_, got) = pay_delivered(&fake, &rx, &id).await;
    assert_eq!(got.method, "POST");
    let t = assert_signed(&fake, &got, "signature verifies");
    assert!((now() - t).abs() < 60);
    assert!(
        header(&got.headers, "content-type")
            .unwrap()
            .starts_with("application/json")
    );

    let ev: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(ev["object"], "event");
    assert!(ev["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(ev["type"], "checkout.session.completed");
    let obj = &ev["data"]["object"];
    assert_eq!(obj["id"], id.as_str());
    assert_eq!(obj["amount_total"], 2100);
    assert_eq!(obj["currency"], "usd");
    assert_eq!(obj["status"], "complete");
    assert_eq!(obj["payment_status"], "paid");
    assert_eq!(obj["client_reference_id"], "intent-42");
    assert_eq!(obj["metadata"]["paymentIntentId"], "intent-42");
    assert!(obj["payment_intent"].as_str().unwrap().starts_with("pi_"));

    let (_, after) = get(&fake, &format!("/v1/checkout/sessions/{id}")).await;
    assert_eq!(after["status"], "complete");
    assert_eq!(after["payment_status"], "paid");
    assert_eq!(after["payment_intent"], obj["payment_intent"]);
    let (status, fetched) = get(&fake, &format!("/v1/events/{}", ev["id"].as_str().unwrap())).await;
    assert_eq!(status, 200);
    assert_eq!(fetched, ev);

    // The merchant's answer decides delivery: a 500 is not delivered.
    let bad = Receiver::start(|_| (500, "oops".to_string())).await;
    fake.set_webhook_url(&bad.url);
    let (_, s2) = create(&fake, &payment_form()).await;
    let d2 = fake.pay(s2["id"].as_str().unwrap(), Tamper::None).await;
    assert_eq!(d2.status, 500);
    assert!(!fake.answer_ok(&d2));
    assert_eq!(fake.deliveries().len(), 2);
}

#[tokio::test]
async fn subscription_sessions_also_post_invoice_paid_with_the_subscription_metadata() {
    let (fake, rx) = start_with_receiver(Kind::Stripe, Receiver::ok()).await;
    let mut form = payment_form();
    form[0] = ("mode", "subscription");
    form.push(("line_items[0][price_data][recurring][interval]", "month"));
    form.push(("subscription_data[metadata][paymentIntentId]", "intent-sub"));
    let (status, s) = create(&fake, &form).await;
    assert_eq!(status, 200, "{s}");
    let id = s["id"].as_str().unwrap().to_string();

    let d = fake.pay(&id, Tamper::None).await;
    assert!(fake.answer_ok(&d));
    let got = rx.all();
    assert_eq!(got.len(), 2);
    let mut types = Vec::new();
    for g in &got {
        assert_signed(&fake, g, "each event is signed");
        let ev: Value = serde_json::from_str(&g.body).unwrap();
        types.push(ev["type"].as_str().unwrap().to_string());
    }
    assert_eq!(types, vec!["checkout.session.completed", "invoice.paid"]);
    let session: Value = serde_json::from_str(&got[0].body).unwrap();
    let invoice: Value = serde_json::from_str(&got[1].body).unwrap();
    let (so, io) = (&session["data"]["object"], &invoice["data"]["object"]);
    assert!(so["subscription"].as_str().unwrap().starts_with("sub_"));
    assert_eq!(io["object"], "invoice");
    assert_eq!(io["status"], "paid");
    assert_eq!(io["subscription"], so["subscription"]);
    assert_eq!(io["id"], so["invoice"]);
    assert_eq!(io["amount_paid"], 2100);
    assert_eq!(io["currency"], "usd");
    assert_eq!(
        io["subscription_details"]["metadata"]["paymentIntentId"],
        "intent-sub"
    );
    assert_eq!(fake.deliveries().len(), 2);
}

#[tokio::test]
async fn every_tamper_produces_what_it_says() {
    let (fake, rx, _, id) = with_session().await;
    let secret = fake.creds.extra.clone();
    let event = |d: &stoa_fakes::Delivered| serde_json::from_str::<Value>(&d.sent_body).unwrap();
    let sig =
        |d: &stoa_fakes::Delivered| header(&d.sent_headers, "stripe-signature").map(str::to_string);

    let d = fake.pay(&id, Tamper::ForgedSignature).await;
    assert_eq!(d.status, 200);
    assert!(sig(&d).is_some());
    assert_eq!(verify(&secret, &sig(&d).unwrap(), &d.sent_body), None);

    let d = fake.pay(&id, Tamper::MissingSignature).await;
    assert_eq!(sig(&d), None);

    let d = fake.pay(&id, Tamper::BodyChangedAfterSigning).await;
    assert_eq!(verify(&secret, &sig(&d).unwrap(), &d.sent_body), None);
    assert_ne!(event(&d)["data"]["object"]["amount_total"], 2100);

    let d = fake.pay(&id, Tamper::Amount("99.00".into())).await;
    assert!(verify(&secret, &sig(&d).unwrap(), &d.sent_body).is_some());
    assert_eq!(event(&d)["data"]["object"]["amount_total"], 9900);

    let d = fake.pay(&id, Tamper::Currency("EUR".into())).await;
    assert!(verify(&secret, &sig(&d).unwrap(), &d.sent_body).is_some());
    assert_eq!(event(&d)["data"]["object"]["currency"], "eur");
    assert_eq!(event(&d)["data"]["object"]["amount_total"], 2100);

    let d = fake.pay(&id, Tamper::OldTimestamp).await;
    let t = verify(&secret, &sig(&d).unwrap(), &d.sent_body).expect("old but correctly signed");
    assert!(now() - t >= 590, "t is ten minutes old");

    let d = fake.pay(&id, Tamper::UnknownPayment).await;
    assert!(verify(&secret, &sig(&d).unwrap(), &d.sent_body).is_some());
    let o = event(&d)["data"]["object"].clone();
    assert_ne!(o["id"], id.as_str());
    assert_ne!(o["client_reference_id"], "intent-42");
    assert_ne!(o["metadata"]["paymentIntentId"], "intent-42");
    let (status, _) = get(
        &fake,
        &format!("/v1/checkout/sessions/{}", o["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(status, 404);

    // None of the above changed the session.
    let (_, now_s) = get(&fake, &format!("/v1/checkout/sessions/{id}")).await;
    assert_eq!(now_s["status"], "open");

    let d = fake.pay(&id, Tamper::Declined).await;
    assert!(verify(&secret, &sig(&d).unwrap(), &d.sent_body).is_some());
    let ev = event(&d);
    assert_eq!(ev["type"], "checkout.session.expired");
    assert_eq!(ev["data"]["object"]["status"], "expired");
    assert_eq!(ev["data"]["object"]["payment_status"], "unpaid");
    let (_, after) = get(&fake, &format!("/v1/checkout/sessions/{id}")).await;
    assert_eq!(after["status"], "expired");
    assert_eq!(rx.all().len(), 8);

    // Forged events cannot be fetched back; genuine ones can.
    let forged_id = serde_json::from_str::<Value>(&rx.all()[0].body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(get(&fake, &format!("/v1/events/{forged_id}")).await.0, 404);
}

#[tokio::test]
async fn failing_and_slow_modes() {
    let fake = start(Kind::Stripe).await;
    fake.set_mode(Mode::Failing);
    let (status, v) = create(&fake, &payment_form()).await;
    assert_eq!(status, 500);
    assert_eq!(v["error"]["type"], "api_error");
    assert!(fake.payments().is_empty());
    assert_eq!(fake.requests().len(), 1);

    fake.set_mode(Mode::Slow(Duration::from_millis(300)));
    let started = Instant::now();
    let (status, _) = create(&fake, &payment_form()).await;
    assert_eq!(status, 200);
    assert!(started.elapsed() >= Duration::from_millis(300));

    fake.set_mode(Mode::Normal);
    let started = Instant::now();
    let (status, _) = create(&fake, &payment_form()).await;
    assert_eq!(status, 200);
    assert!(started.elapsed() < Duration::from_millis(300));
}

#[tokio::test]
async fn idempotency_keys_replay_or_conflict() {
    let fake = start(Kind::Stripe).await;
    let send = |form: Vec<(&'static str, &'static str)>| {
        client()
            .post(format!("{}/v1/checkout/sessions", fake.url))
            .bearer_auth(&fake.creds.secret)
            .header("Idempotency-Key", "k-1")
            .form(&form)
            .send()
    };
    let a: Value = send(payment_form()).await.unwrap().json().await.unwrap();
    let b = send(payment_form()).await.unwrap();
    assert_eq!(
        b.headers()
            .get("idempotent-replayed")
            .map(|v| v.to_str().unwrap()),
        Some("true")
    );
    let b: Value = b.json().await.unwrap();
    assert_eq!(a["id"], b["id"]);
    let mut other = payment_form();
    other[2] = ("line_items[0][price_data][unit_amount]", "999");
    let c = send(other).await.unwrap();
    assert_eq!(c.status(), 400);
    let c: Value = c.json().await.unwrap();
    assert_eq!(c["error"]["type"], "idempotency_error");
    assert_eq!(fake.payments().len(), 1);
}

#[tokio::test]
async fn hosted_page_pays_and_redirects_to_the_success_url() {
    let (fake, rx, s, id) = with_session().await;
    let page = client()
        .get(s["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    assert!(html.contains("<html lang=\"en\">"));
    assert!(html.contains("<title>"));
    assert!(html.contains("<button type=\"submit\">Pay</button>"));
    assert!(html.contains("21.00") && html.contains("usd"));
    assert!(fake.requests().len() == 1, "hosted pages are not API calls");

    let location = post_see_other(&format!("{}/pay/{id}", fake.url)).await;
    assert_eq!(location, SUCCESS.replace("{CHECKOUT_SESSION_ID}", &id));
    let got = rx.last();
    assert_signed(&fake, &got, "signed");
    let (_, after) = get(&fake, &format!("/v1/checkout/sessions/{id}")).await;
    assert_eq!(after["payment_status"], "paid");
    let html = get_text(&format!("{}/pay/{id}", fake.url)).await;
    assert!(html.contains("Paid") && !html.contains(">Pay</button>"));
}
