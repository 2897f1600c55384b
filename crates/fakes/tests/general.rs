#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

mod common;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use common::{Receiver, client, get_text, post_see_other, start};
use stoa_fakes::{Creds, Kind, Tamper};

#[test]
fn kinds_have_stable_names() {
    let names: Vec<&str> = Kind::ALL.iter().map(Kind::name).collect();
    assert_eq!(
        names,
        [
            "stripe",
            "cloudpayments",
            "tiptoppay",
            "payselection",
            "payselection-international",
            "paykeeper",
            "0xprocessing"
        ]
    );
    for k in Kind::ALL {
        assert_eq!(Kind::parse(k.name()), Some(k));
    }
    assert_eq!(Kind::parse("dummy"), None);
}

#[test]
fn test_credentials_and_env() {
    let s = Creds::test(Kind::Stripe);
    assert!(s.secret.starts_with("sk_test_") && s.extra.starts_with("whsec_"));
    assert_ne!(
        Creds::test(Kind::Payselection),
        Creds::test(Kind::PayselectionInternational)
    );
    assert_ne!(
        Creds::test(Kind::CloudPayments),
        Creds::test(Kind::TipTopPay)
    );
    let url = "http://127.0.0.1:9";
    let env = |k: Kind| {
        let mut v: Vec<String> = Creds::test(k)
            .env(k, url)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        env(Kind::Stripe),
        [
            "STOA_STRIPE_API_URL",
            "STOA_STRIPE_SECRET_KEY",
            "STOA_STRIPE_WEBHOOK_SECRET"
        ]
    );
    assert_eq!(
        env(Kind::CloudPayments),
        [
            "STOA_CLOUDPAYMENTS_API_SECRET",
            "STOA_CLOUDPAYMENTS_API_URL",
            "STOA_CLOUDPAYMENTS_PUBLIC_ID",
            "STOA_CLOUDPAYMENTS_WIDGET_URL"
        ]
    );
    assert_eq!(
        env(Kind::TipTopPay),
        [
            "STOA_TIPTOPPAY_API_SECRET",
            "STOA_TIPTOPPAY_API_URL",
            "STOA_TIPTOPPAY_PUBLIC_ID",
            "STOA_TIPTOPPAY_WIDGET_URL"
        ]
    );
    assert_eq!(
        env(Kind::Payselection),
        [
            "STOA_PAYSELECTION_API_URL",
            "STOA_PAYSELECTION_PUBLIC_KEY",
            "STOA_PAYSELECTION_SECRET_KEY",
            "STOA_PAYSELECTION_SITE_ID"
        ]
    );
    assert_eq!(
        env(Kind::PayselectionInternational),
        [
            "STOA_PAYSELECTION_INT_API_URL",
            "STOA_PAYSELECTION_INT_PUBLIC_KEY",
            "STOA_PAYSELECTION_INT_SECRET_KEY",
            "STOA_PAYSELECTION_INT_SITE_ID"
        ]
    );
    assert_eq!(
        env(Kind::PayKeeper),
        [
            "STOA_PAYKEEPER_PASSWORD",
            "STOA_PAYKEEPER_SECRET",
            "STOA_PAYKEEPER_URL",
            "STOA_PAYKEEPER_USER"
        ]
    );
    assert_eq!(
        env(Kind::OxProcessing),
        [
            "STOA_OXPROCESSING_API_URL",
            "STOA_OXPROCESSING_MERCHANT_ID",
            "STOA_OXPROCESSING_WEBHOOK_PASSWORD"
        ]
    );
    let c = Creds::test(Kind::PayKeeper);
    let pk = c.env(Kind::PayKeeper, url);
    assert!(pk.contains(&("STOA_PAYKEEPER_URL".to_string(), url.to_string())));
    assert!(pk.contains(&("STOA_PAYKEEPER_USER".to_string(), c.public_id.clone())));
    assert!(pk.contains(&("STOA_PAYKEEPER_PASSWORD".to_string(), c.secret.clone())));
    assert!(pk.contains(&("STOA_PAYKEEPER_SECRET".to_string(), c.extra.clone())));
    let ps = Creds::test(Kind::PayselectionInternational);
    assert!(ps.env(Kind::PayselectionInternational, url).contains(&(
        "STOA_PAYSELECTION_INT_PUBLIC_KEY".to_string(),
        ps.extra.clone()
    )));
}

#[tokio::test]
async fn every_kind_starts_serves_pages_and_records_unknown_endpoints() {
    for kind in Kind::ALL {
        let fake = start(kind).await;
        assert!(fake.url.starts_with("http://127.0.0.1:") && !fake.url.ends_with('/'));
        let r = client()
            .get(format!("{}/no/such/endpoint", fake.url))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{kind:?}");
        let seen = fake.requests();
        assert_eq!(seen.len(), 1);
        assert!(seen[0].problems[0].starts_with("no such endpoint"));
        let r = client()
            .get(format!("{}/pay/unknown-id", fake.url))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404);
        assert!(r.text().await.unwrap().contains("lang=\"en\""));
        assert_eq!(fake.requests().len(), 1, "pages are not recorded");
    }
}

#[tokio::test]
async fn pay_without_payment_or_webhook_url_delivers_nothing() {
    let fake = start(Kind::CloudPayments).await;
    let d = fake.pay("never-created", Tamper::None).await;
    assert_eq!(d.status, 0);
    assert!(!fake.answer_ok(&d));
    let d = fake.pay("never-created", Tamper::UnknownPayment).await;
    assert_eq!(d.status, 0);
    assert!(d.body.contains("webhook URL"));
    let rx = Receiver::start(|_| (200, "{\"code\":0}".to_string())).await;
    fake.set_webhook_url(&rx.url);
    let d = fake.pay("never-created", Tamper::UnknownPayment).await;
    assert_eq!(d.status, 200);
    assert_eq!(rx.all().len(), 1);
}

#[tokio::test]
async fn stop_closes_the_listener() {
    let fake = start(Kind::Stripe).await;
    let addr = fake.url.trim_start_matches("http://").to_string();
    assert!(tokio::net::TcpStream::connect(&addr).await.is_ok());
    fake.stop();
    let mut closed = false;
    for _ in 0..10_000 {
        if tokio::net::TcpStream::connect(&addr).await.is_err() {
            closed = true;
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(closed, "the listener is closed after stop");
}

#[test]
fn the_binary_prints_its_address_and_serves() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stoa-fakes"))
        .args([
            "--kind",
            "paykeeper",
            "--port",
            "0",
            "--webhook-url",
            "http://127.0.0.1:9/hook",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening ")
        .expect("the first line is `listening URL`")
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"));
    let mut rest = Vec::new();
    loop {
        let mut l = String::new();
        assert!(
            out.read_line(&mut l).unwrap() > 0,
            "`ready` follows the env lines"
        );
        if l.trim() == "ready" {
            break;
        }
        rest.push(l.trim().to_string());
    }
    let expected: Vec<String> = Creds::test(Kind::PayKeeper)
        .env(Kind::PayKeeper, &url)
        .into_iter()
        .map(|(k, v)| format!("env {k}={v}"))
        .collect();
    assert_eq!(rest, expected);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let status = rt.block_on(async {
        let c = Creds::test(Kind::PayKeeper);
        client()
            .get(format!("{url}/info/settings/token/"))
            .basic_auth(c.public_id, Some(c.secret))
            .send()
            .await
            .unwrap()
            .status()
    });
    child.kill().unwrap();
    let _ = child.wait();
    assert_eq!(status, 200);

    let bad = Command::new(env!("CARGO_BIN_EXE_stoa-fakes"))
        .args(["--kind", "nope"])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(bad.code(), Some(2));
}

#[tokio::test]
async fn hosted_page_pays_without_a_webhook_url_and_declines() {
    use serde_json::{Value, json};
    let fake = start(Kind::CloudPayments).await;
    let auth = common::basic(&fake.creds.public_id, &fake.creds.secret);
    let create = |invoice: &'static str| {
        client()
            .post(format!("{}/orders/create", fake.url))
            .header("Authorization", auth.clone())
            .json(&json!({"Amount": 10, "Currency": "RUB", "Description": "d", "InvoiceId": invoice, "FailRedirectUrl": "http://shop.test/failed"}))
            .send()
    };
    let find = |invoice: &'static str| {
        client()
            .post(format!("{}/payments/find", fake.url))
            .header("Authorization", auth.clone())
            .json(&json!({"InvoiceId": invoice}))
            .send()
    };
    let v: Value = create("inv-a").await.unwrap().json().await.unwrap();
    let id = v["Model"]["Id"].as_str().unwrap().to_string();
    let page = format!("{}/pay/{id}?return=http%3A%2F%2Fshop.test%2Fr", fake.url);
    let html = get_text(&page).await;
    assert!(
        html.contains(&format!(
            "action=\"/pay/{id}?return=http%3A%2F%2Fshop.test%2Fr\""
        )),
        "{html}"
    );
    assert!(html.contains(">Decline</button>"));
    assert_eq!(post_see_other(&page).await, "http://shop.test/r");
    let f: Value = find("inv-a").await.unwrap().json().await.unwrap();
    assert_eq!(f["Model"]["Status"], "Completed");
    assert!(fake.deliveries().is_empty(), "nowhere to post");

    let v: Value = create("inv-b").await.unwrap().json().await.unwrap();
    let id = v["Model"]["Id"].as_str().unwrap().to_string();
    let decline = format!("{}/pay/{id}/decline", fake.url);
    assert_eq!(post_see_other(&decline).await, "http://shop.test/failed");
    let f: Value = find("inv-b").await.unwrap().json().await.unwrap();
    assert_eq!(f["Model"]["Status"], "Declined");
}
