//! The seven real payment providers, each against its local fake (`stoa-fakes`, written from the
//! providers' documentation), on SQLite and PostgreSQL: the create call as documented, the hosted
//! payment, the signed webhook paying the order; forged, unsigned, altered, replayed, stale,
//! mismatched and unknown webhooks refused with a 4xx and kept in the inbox with the reason; a
//! provider down or slow failing the checkout cleanly; the status API settling an invoice whose
//! webhook was lost.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stoa_fakes::{Creds, Delivered, Fake, Kind, Mode, Tamper};
use stoa_testkit::smtp::Sink;
use stoa_testkit::{Db, TestApp, providers_from_env, spawn_app_manual};

use super::commerce::{
    attribute, currency, guest, inbox_in, monthly, order_row, orders, price_key,
};

const ADMIN_MAIL: &str = "payments-admin@example.com";

struct Shop {
    tree: String,
    price_key: Value,
    currencies: Vec<(String, String)>,
}

impl Shop {
    fn currency(&self, slug: &str) -> &str {
        &self.currencies.iter().find(|(s, _)| s == slug).unwrap().1
    }
}

/// The currency a provider is tried in.
fn currency_of(kind: Kind) -> &'static str {
    match kind {
        Kind::TipTopPay => "kzt",
        Kind::PayselectionInternational | Kind::OxProcessing => "usd",
        Kind::Stripe => "eur",
        _ => "rub",
    }
}

/// The tree's price in each currency.
fn price_in(slug: &str) -> &'static str {
    match slug {
        "rub" => "199",
        "kzt" => "995.5",
        "usd" => "2.5",
        _ => "2.25",
    }
}

async fn start(db: Db, kind: Kind, sink: &Sink) -> (TestApp, Fake, Shop) {
    let fake = Fake::start(kind, Creds::test(kind)).await.expect("fake");
    let env = fake.creds.env(kind, &fake.url);
    let smtp = sink.url.clone();
    let app = spawn_app_manual(db, move |c| {
        c.providers = providers_from_env(&env);
        c.payment_providers = None;
        c.smtp_url = Some(smtp);
        c.providers.provider_timeout = 2;
    })
    .await
    .expect("app");
    fake.set_webhook_url(&app.url(&format!(
        "/api/billing/payment-intents/{}/webhook",
        kind.name()
    )));
    app.admin_account(ADMIN_MAIL).await;
    let key = price_key(&app).await;
    let tree = app
        .create(
            "/api/ecommerce/products",
            &json!({"slug": "tree", "title": {"en": "A tree", "ru": "Дерево"}}),
        )
        .await;
    let mut currencies = Vec::new();
    for (slug, symbol, default) in [
        ("rub", "₽", true),
        ("kzt", "₸", false),
        ("usd", "$", false),
        ("eur", "€", false),
    ] {
        let c = currency(&app, slug, symbol, default).await;
        attribute(
            &app,
            &tree["id"],
            &key["id"],
            json!({"number": price_in(slug)}),
            Some(&c["id"]),
        )
        .await;
        currencies.push((slug.to_owned(), c["id"].as_str().unwrap().to_owned()));
    }
    let shop = Shop {
        tree: tree["id"].as_str().unwrap().to_owned(),
        price_key: key["id"].clone(),
        currencies,
    };
    (app, fake, shop)
}

struct Checkout {
    order: String,
    invoice: Value,
    status: u16,
    text: String,
}

/// A guest buys 2 trees in `currency` and checks out with `provider`.
async fn checkout(app: &TestApp, shop: &Shop, provider: &str, currency: &str) -> Checkout {
    let (subject, jwt) = guest(app).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(
            &orders(&subject),
            &json!({"productId": shop.tree, "quantity": 2, "billingModule": {"currency": {"id": shop.currency(currency)}}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let order = r.data()["id"].as_str().unwrap().to_owned();
    let r = me
        .post(
            &format!("{}/checkout", orders(&subject)),
            &json!({"provider": provider, "email": "buyer@example.com", "language": "en"}),
        )
        .await;
    let invoice = if r.status == 201 {
        r.data()["billingModule"]["invoices"][0].clone()
    } else {
        Value::Null
    };
    Checkout {
        order,
        invoice,
        status: r.status,
        text: r.text,
    }
}

async fn invoice_status(app: &TestApp, id: &str) -> String {
    app.get(&format!("/api/billing/invoices/{id}")).await.data()["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends exactly what a delivery sent, again.
async fn resend(app: &TestApp, path: &str, d: &Delivered) -> (u16, String) {
    let mut req = app.plain.post(app.url(path));
    for (k, v) in &d.sent_headers {
        if !matches!(k.as_str(), "host" | "content-length") {
            req = req.header(k, v);
        }
    }
    let r = req.body(d.sent_body.clone()).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn provider_flow(db: Db, kind: Kind) {
    let name = kind.name();
    let currency = currency_of(kind);
    let sink = Sink::start().await;
    let (app, fake, shop) = start(db, kind, &sink).await;
    let hook = format!("/api/billing/payment-intents/{name}/webhook");

    // Enabled by its credentials alone, with its currencies.
    let offered = app.anon().get("/api/billing/providers").await;
    assert_eq!(
        offered.data()[0]["provider"],
        json!(name),
        "{}",
        offered.text
    );
    assert_eq!(
        offered.data().as_array().unwrap().len(),
        1,
        "{}",
        offered.text
    );
    // CloudPayments and TipTop Pay offer their card widget (the donation's card variant): its
    // script, the public id, and the script's origin allowed by the site's CSP; the others none.
    let widget = &offered.data()[0]["widget"];
    let csp = app
        .anon()
        .get("/")
        .await
        .header("content-security-policy")
        .unwrap_or_default()
        .to_owned();
    if matches!(kind, Kind::CloudPayments | Kind::TipTopPay) {
        assert_eq!(widget["publicId"], json!(fake.creds.public_id), "{widget}");
        let script = widget["script"].as_str().unwrap_or_default();
        assert!(
            script.starts_with(&fake.url) && script.contains("/bundles/"),
            "{widget}"
        );
        for list in ["script-src", "frame-src", "connect-src"] {
            let sources = csp
                .split(';')
                .find(|d| d.trim().starts_with(list))
                .unwrap_or("");
            assert!(
                sources.contains(&fake.url),
                "{list} lacks the widget: {csp}"
            );
        }
    } else {
        assert!(widget.is_null(), "{widget}");
        assert!(!csp.contains(&fake.url), "{csp}");
    }

    // Checkout: the create call as the provider documents it.
    let c = checkout(&app, &shop, name, currency).await;
    assert_eq!(c.status, 201, "{}", c.text);
    let invoice = c.invoice["id"].as_str().unwrap().to_owned();
    assert_eq!(c.invoice["status"], json!("open"));
    let seen = fake.requests();
    assert!(!seen.is_empty(), "the fake saw no call");
    for s in &seen {
        assert!(s.auth_ok, "{name}: credentials refused: {s:?}");
        assert!(s.problems.is_empty(), "{name}: {:?} in {s:?}", s.problems);
        assert_ne!(
            s.signature_ok,
            Some(false),
            "{name}: bad request signature {s:?}"
        );
    }
    let payments = fake.payments();
    assert_eq!(payments.len(), 1);
    let payment = &payments[0];
    let due: rust_decimal::Decimal = c.invoice["amount"].as_str().unwrap().parse().unwrap();
    let asked: rust_decimal::Decimal = payment.amount.parse().unwrap();
    assert_eq!(asked.normalize(), due.normalize(), "{name}: {payment:?}");
    assert_eq!(
        due.normalize(),
        (price_in(currency).parse::<rust_decimal::Decimal>().unwrap()
            * rust_decimal::Decimal::from(2))
        .normalize()
    );
    if kind != Kind::OxProcessing {
        assert_eq!(payment.currency.to_lowercase(), currency, "{payment:?}");
    }
    assert!(
        payment
            .reference
            .as_deref()
            .is_some_and(|r| r.contains(&invoice)),
        "{name}: our invoice id is the reference: {payment:?}"
    );
    assert!(
        c.invoice["paymentUrl"]
            .as_str()
            .is_some_and(|u| u.starts_with(&fake.url)),
        "{}",
        c.invoice
    );

    // Bad webhooks: a 4xx each, kept in the inbox with the reason, and no effect.
    let mut bad = vec![
        (Tamper::ForgedSignature, 401),
        (Tamper::MissingSignature, 400),
        (Tamper::BodyChangedAfterSigning, 0),
        (Tamper::Amount("1".into()), 422),
        (Tamper::UnknownPayment, 404),
    ];
    if kind == Kind::Stripe {
        bad.push((Tamper::OldTimestamp, 400));
    }
    if !matches!(kind, Kind::PayKeeper | Kind::OxProcessing) {
        bad.push((Tamper::Currency("GBP".into()), 422));
    }
    let mut rejected = 0;
    for (tamper, expected) in bad {
        let d = fake.pay(&payment.id, tamper.clone()).await;
        if expected == 0 {
            assert!(
                (400..500).contains(&d.status),
                "{name} {tamper:?}: {} {}",
                d.status,
                d.body
            );
        } else {
            assert_eq!(d.status, expected, "{name} {tamper:?}: {}", d.body);
        }
        // …which the provider does not take as delivered (it will retry).
        assert!(!fake.answer_ok(&d), "{name} {tamper:?}: {}", d.body);
        rejected += 1;
        let entries = inbox_in(&app, "rejected").await;
        assert_eq!(
            entries.len(),
            rejected,
            "{name} {tamper:?}: one entry per refusal"
        );
        assert!(
            entries
                .iter()
                .all(|e| e["result"].as_str().is_some_and(|r| !r.is_empty())),
            "{entries:?}"
        );
        app.drain_jobs().await;
        assert_eq!(
            invoice_status(&app, &invoice).await,
            "open",
            "{name} {tamper:?}"
        );
        assert_eq!(order_row(&app, &c.order).await["status"], json!("paying"));
    }
    // The admins heard about the amount that did not match.
    sink.wait_for(ADMIN_MAIL).await;
    let mut told = false;
    for _ in 0..50 {
        told = sink
            .mails()
            .iter()
            .any(|m| m.to.iter().any(|t| t == ADMIN_MAIL) && m.text().contains("paid 1,"));
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(told, "{name}: no alert about the amount");

    // A declined attempt is acknowledged and changes nothing.
    if kind != Kind::PayKeeper {
        let d = fake.pay(&payment.id, Tamper::Declined).await;
        assert_eq!(d.status, 200, "{name} declined: {}", d.body);
        app.drain_jobs().await;
        assert_eq!(invoice_status(&app, &invoice).await, "open");
    }

    // The buyer pays: the signed webhook pays the invoice and the order.
    let d = fake.pay(&payment.id, Tamper::None).await;
    assert_eq!(d.status, 200, "{name}: {}", d.body);
    assert!(
        fake.answer_ok(&d),
        "{name}: the provider would not take our answer {:?}",
        d.body
    );
    app.drain_jobs().await;
    assert_eq!(invoice_status(&app, &invoice).await, "paid");
    assert_eq!(
        order_row(&app, &c.order).await["status"],
        json!("approving")
    );
    let processed = inbox_in(&app, "processed").await;
    assert_eq!(processed.len(), 1, "{processed:?}");
    assert_eq!(processed[0]["verified"], json!(true));

    // The same webhook again (a retry, or a replay within the tolerance): acknowledged the way
    // the provider expects, recorded as a copy, no effect.
    let (status, body) = resend(&app, &hook, &d).await;
    assert_eq!(status, 200, "{name} replay: {body}");
    app.drain_jobs().await;
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    let copies = inbox_in(&app, "ignored").await;
    assert!(
        copies
            .iter()
            .any(|e| e["result"].as_str().unwrap_or_default().contains("copy")),
        "{copies:?}"
    );
    let changes = app.get(&format!("/api/ecommerce/order-status-changes?filters[and][0][column]=orderId&filters[and][0][method]=eq&filters[and][0][value]={}", c.order)).await;
    assert_eq!(
        changes.data().as_array().unwrap().len(),
        2,
        "{}",
        changes.text
    );

    // Nothing answered 5xx, and no secret reached a response.
    let secrets = [fake.creds.secret.as_str(), fake.creds.extra.as_str()];
    for d in fake.deliveries() {
        assert!(d.status < 500, "{name}: {} {}", d.status, d.body);
        for s in secrets.iter().filter(|s| s.len() > 8) {
            assert!(!d.body.contains(*s), "{name}: a secret in an answer");
        }
    }
    let inbox = app.get("/api/billing/webhooks?limit=100").await;
    for s in secrets.iter().filter(|s| s.len() > 8) {
        assert!(!inbox.text.contains(*s), "{name}: a secret in the inbox");
    }

    // The provider down or slow: the buyer hears it within seconds, and the order goes back to
    // the cart to be paid again.
    for mode in [Mode::Failing, Mode::Slow(Duration::from_secs(5))] {
        fake.set_mode(mode);
        let t = Instant::now();
        let c = checkout(&app, &shop, name, currency).await;
        assert_eq!(c.status, 503, "{name} {mode:?}: {}", c.text);
        assert!(c.text.contains(name), "{}", c.text);
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{name} {mode:?}: {:?}",
            t.elapsed()
        );
        assert_eq!(order_row(&app, &c.order).await["status"], json!("new"));
    }
    fake.set_mode(Mode::Normal);
    let url = fake.url.clone();
    fake.stop();
    let c = checkout(&app, &shop, name, currency).await;
    assert_eq!(c.status, 503, "{name} down: {}", c.text);
    assert_eq!(order_row(&app, &c.order).await["status"], json!("new"));
    assert!(
        !c.text.contains(&url),
        "the provider's address is not shown: {}",
        c.text
    );
}

macro_rules! per_provider {
    ($($name:ident => $kind:expr),* $(,)?) => {
        $(
            async fn $name(db: Db) {
                provider_flow(db, $kind).await;
            }
            stoa_testkit::dual_test!($name, db);
        )*
    };
}

per_provider! {
    stripe => Kind::Stripe,
    cloudpayments => Kind::CloudPayments,
    tiptoppay => Kind::TipTopPay,
    payselection => Kind::Payselection,
    payselection_international => Kind::PayselectionInternational,
    paykeeper => Kind::PayKeeper,
    oxprocessing => Kind::OxProcessing,
}

/// The admin's status check of the payment intent that invoice `invoice` belongs to.
async fn intent_check(app: &TestApp, invoice: &str) -> String {
    let link = app
        .rows_where(
            "/api/billing/payment-intents-to-invoices",
            "invoiceId",
            invoice,
        )
        .await;
    let intent = link[0]["paymentIntentId"].as_str().unwrap().to_owned();
    format!("/api/billing/payment-intents/{intent}/check")
}

/// A lost webhook: the status API (Stripe, CloudPayments, TipTopPay, PayKeeper) settles the
/// invoice through the admin check, once.
async fn status_check(db: Db) {
    for kind in [Kind::Stripe, Kind::CloudPayments, Kind::PayKeeper] {
        let sink = Sink::start().await;
        let (app, fake, shop) = start(db, kind, &sink).await;
        let c = checkout(&app, &shop, kind.name(), currency_of(kind)).await;
        assert_eq!(c.status, 201, "{}", c.text);
        let invoice = c.invoice["id"].as_str().unwrap().to_owned();
        let check = intent_check(&app, &invoice).await;
        // Not paid yet: nothing changes.
        let r = app.post(&check, &json!({})).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_ne!(r.data()["status"], json!("succeeded"));
        // Paid, but the webhook never arrives.
        fake.set_webhook_url(&app.url("/nowhere"));
        let payment = fake.payments()[0].id.clone();
        let _ = fake.pay(&payment, Tamper::None).await;
        assert_eq!(invoice_status(&app, &invoice).await, "open");
        let r = app.post(&check, &json!({})).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(
            r.data()["status"],
            json!("succeeded"),
            "{}: {}",
            kind.name(),
            r.text
        );
        app.drain_jobs().await;
        assert_eq!(invoice_status(&app, &invoice).await, "paid");
        assert_eq!(
            order_row(&app, &c.order).await["status"],
            json!("approving")
        );
        // The order moved with the payment the admin's check applied, but that is the
        // platform's write, not the admin's: the audit log has no entry of it.
        let audits = app
            .rows_where("/api/platform/audits", "recordId", &c.order)
            .await;
        assert!(
            !audits.iter().any(|a| a.to_string().contains("approving")),
            "{audits:?}"
        );
        // Asked again: still once.
        let r = app.post(&check, &json!({})).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(inbox_in(&app, "processed").await.len(), 1);
        // Anonymous callers may not make us call a provider.
        let r = app.anon().post(&check, &json!({})).await;
        assert_eq!(r.status, 401, "{}", r.text);

        // Without anyone asking: the check scheduled when the invoice opened settles the next
        // lost webhook when it is due.
        let c = checkout(&app, &shop, kind.name(), currency_of(kind)).await;
        assert_eq!(c.status, 201, "{}", c.text);
        let invoice = c.invoice["id"].as_str().unwrap().to_owned();
        let job = app
            .get(&format!("/api/platform/jobs?filters[and][0][column]=dedupeKey&filters[and][0][method]=eq&filters[and][0][value]=check:{invoice}"))
            .await;
        let job = job.data()[0]["id"].as_str().unwrap().parse().unwrap();
        app.drain_jobs().await;
        assert_eq!(invoice_status(&app, &invoice).await, "open", "not due yet");
        let payment = fake.payments().last().unwrap().id.clone();
        let _ = fake.pay(&payment, Tamper::None).await;
        app.write_raw(
            "platform.job",
            job,
            &[(
                "runAt",
                stoa_kernel::value::Val::Timestamp(stoa_kernel::value::now()),
            )],
        )
        .await;
        app.drain_jobs().await;
        assert_eq!(
            invoice_status(&app, &invoice).await,
            "paid",
            "{}",
            kind.name()
        );
        assert_eq!(
            order_row(&app, &c.order).await["status"],
            json!("approving")
        );
    }
}
stoa_testkit::dual_test!(status_check, db);

/// A status API's "paid" that cannot be applied as it is written (a fault in the database: no
/// payment intent may succeed) is kept: the admin's check answers, the inbox entry waits
/// `received` with its job, nothing is paid. The fault gone, the job applies it — once, however
/// often the check is asked again.
async fn status_answer_that_cannot_be_applied_waits_with_its_job(db: Db) {
    let sink = Sink::start().await;
    let (app, fake, shop) = start(db, Kind::Stripe, &sink).await;
    let c = checkout(&app, &shop, "stripe", currency_of(Kind::Stripe)).await;
    assert_eq!(c.status, 201, "{}", c.text);
    let invoice = c.invoice["id"].as_str().unwrap().to_owned();
    let check = intent_check(&app, &invoice).await;
    fake.set_webhook_url(&app.url("/nowhere"));
    let payment = fake.payments()[0].id.clone();
    let _ = fake.pay(&payment, Tamper::None).await;
    let when = r#"new."status" = 'succeeded'"#;
    stoa_testkit::fault(
        &app.store.db,
        "billing_payment_intent",
        "status",
        when,
        true,
    )
    .await;
    let r = app.post(&check, &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_ne!(r.data()["status"], json!("succeeded"), "{}", r.text);
    let waiting = inbox_in(&app, "received").await;
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0]["invoiceId"], json!(invoice));
    assert_eq!(invoice_status(&app, &invoice).await, "open");
    assert_eq!(order_row(&app, &c.order).await["status"], json!("paying"));
    // Asked again while it waits: the same answer is already in the inbox, nothing more.
    let r = app.post(&check, &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(inbox_in(&app, "received").await.len(), 1);

    stoa_testkit::fault(
        &app.store.db,
        "billing_payment_intent",
        "status",
        when,
        false,
    )
    .await;
    app.drain_jobs().await;
    assert!(inbox_in(&app, "received").await.is_empty());
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(invoice_status(&app, &invoice).await, "paid");
    assert_eq!(
        order_row(&app, &c.order).await["status"],
        json!("approving")
    );
    let r = app.post(&check, &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["status"], json!("succeeded"), "{}", r.text);
    assert_eq!(inbox_in(&app, "processed").await.len(), 1, "applied once");
}
stoa_testkit::dual_test!(status_answer_that_cannot_be_applied_waits_with_its_job, db);

/// Money for an invoice an admin voided is not credited, and the admins are told.
async fn paid_after_void(db: Db) {
    let sink = Sink::start().await;
    let (app, fake, shop) = start(db, Kind::CloudPayments, &sink).await;
    let c = checkout(&app, &shop, "cloudpayments", "rub").await;
    assert_eq!(c.status, 201, "{}", c.text);
    let invoice = c.invoice["id"].as_str().unwrap().to_owned();
    let r = app
        .patch(
            &format!("/api/billing/invoices/{invoice}"),
            &json!({"status": "void"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let d = fake.pay(&fake.payments()[0].id, Tamper::None).await;
    assert_eq!(d.status, 200, "{}", d.body);
    app.drain_jobs().await;
    assert_eq!(invoice_status(&app, &invoice).await, "void");
    assert_eq!(order_row(&app, &c.order).await["status"], json!("paying"));
    let entries = inbox_in(&app, "ignored").await;
    assert!(
        entries
            .iter()
            .any(|e| e["result"].as_str().unwrap_or_default().contains("void")),
        "{entries:?}"
    );
    let mail = sink.wait_for(ADMIN_MAIL).await;
    assert!(mail.text().contains("void"), "{}", mail.text());
}
stoa_testkit::dual_test!(paid_after_void, db);

/// Configuration: a provider named without its credentials stops the server with the settings
/// it needs; secrets are redacted by `stoa config`.
#[test]
fn configuration() {
    let mut c = stoa_testkit::test_config();
    c.payment_providers = Some("stripe".into());
    c.providers.stripe_secret_key = Some("sk_test_secret_value".into());
    c.providers.stripe_webhook_secret = Some("whsec_secret_value".into());
    c.providers.paykeeper_password = Some("pk-password".into());
    let shown = c.redacted().to_string();
    for s in ["sk_test_secret_value", "whsec_secret_value", "pk-password"] {
        assert!(!shown.contains(s), "{shown}");
    }
    assert!(shown.contains("https://api.stripe.com"), "{shown}");
}

#[tokio::test]
async fn missing_credentials() {
    let (mut c, _dir) = stoa_testkit::sqlite_config();
    c.payment_providers = Some("dummy,cloudpayments".into());
    let err = match stoa_server::build(&c).await {
        Ok(_) => panic!("the server started without CloudPayments credentials"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("STOA_CLOUDPAYMENTS_PUBLIC_ID"), "{err}");
    c.payment_providers = Some("paypal".into());
    let err = match stoa_server::build(&c).await {
        Ok(_) => panic!("the server started with an unknown provider"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("not a payment provider"), "{err}");
    // Half of a provider's credentials stops the server too (never a silent fall back to the
    // dummy provider).
    c.payment_providers = None;
    c.providers.stripe_secret_key = Some("sk_live_x".into());
    let err = match stoa_server::build(&c).await {
        Ok(_) => panic!("the server started with half of Stripe's settings"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("STOA_STRIPE_WEBHOOK_SECRET"), "{err}");
}

/// Stripe subscriptions: the checkout opens a subscription-mode session whose subscription
/// carries our invoice id; the first payment delivers the order; each later `invoice.paid`
/// (billing_reason `subscription_cycle`) is recorded once as a new paid invoice of the same
/// intent, which keeps the subscription alive.
async fn stripe_subscription(db: Db) {
    let sink = Sink::start().await;
    let (app, fake, shop) = start(db, Kind::Stripe, &sink).await;
    let club = monthly(&app, &shop.price_key, &json!(shop.currency("usd")), "7").await;
    let (s, jwt) = guest(&app).await;
    let r = app
        .bearer(&jwt)
        .post(
            &format!(
                "/api/rbac/subjects/{s}/ecommerce-module/products/{}/checkout",
                club["id"].as_str().unwrap()
            ),
            &json!({"provider": "stripe", "email": "member@example.com", "billingModule": {"currency": {"id": shop.currency("usd")}}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let order = r.data()["ecommerceModule"]["orders"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let payment = fake.payments()[0].clone();
    assert_eq!(
        payment.raw["mode"],
        json!("subscription"),
        "{:?}",
        payment.raw
    );
    let d = fake.pay(&payment.id, Tamper::None).await;
    assert_eq!(d.status, 200, "{}", d.body);
    app.drain_jobs().await;
    assert_eq!(order_row(&app, &order).await["status"], json!("delivering"));
    // Every event the fake sent was acknowledged; the subscription's first invoice is paid by
    // its session, so it changes nothing.
    for d in fake.deliveries() {
        assert_eq!(d.status, 200, "{}", d.body);
    }
    let invoices = |app: &TestApp| {
        let url = app.url("/api/billing/invoices?filters[and][0][column]=status&filters[and][0][method]=eq&filters[and][0][value]=paid");
        let client = app.client.clone();
        async move {
            let r = client.get(url).send().await.unwrap();
            let v: Value = r.json().await.unwrap();
            v["data"].as_array().unwrap().len()
        }
    };
    assert_eq!(invoices(&app).await, 1);
    // A month later Stripe charges again: `invoice.paid` for the cycle, signed.
    let first = fake
        .deliveries()
        .into_iter()
        .find(|d| d.sent_body.contains("\"invoice.paid\""))
        .expect("the fake sent invoice.paid");
    let mut event: Value = serde_json::from_str(&first.sent_body).unwrap();
    event["id"] = json!("evt_renewal_1");
    event["data"]["object"]["id"] = json!("in_renewal_1");
    event["data"]["object"]["billing_reason"] = json!("subscription_cycle");
    let body = event.to_string();
    let t = time::OffsetDateTime::now_utc().unix_timestamp();
    let sig = stripe_signature(&fake.creds.extra, t, &body);
    let hook = app.url("/api/billing/payment-intents/stripe/webhook");
    for round in 0..2 {
        let r = app
            .plain
            .post(&hook)
            .header("content-type", "application/json")
            .header("stripe-signature", format!("t={t},v1={sig}"))
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "round {round}");
        app.drain_jobs().await;
        assert_eq!(
            invoices(&app).await,
            2,
            "one renewal invoice, round {round}"
        );
    }
    // A renewal with an amount that is not the subscription's is refused.
    event["id"] = json!("evt_renewal_2");
    event["data"]["object"]["id"] = json!("in_renewal_2");
    event["data"]["object"]["amount_paid"] = json!(100);
    let body = event.to_string();
    let sig = stripe_signature(&fake.creds.extra, t, &body);
    let r = app
        .plain
        .post(&hook)
        .header("stripe-signature", format!("t={t},v1={sig}"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 422);
    assert_eq!(invoices(&app).await, 2);
}
stoa_testkit::dual_test!(stripe_subscription, db);

/// Stripe's signature, computed independently of the adapter.
fn stripe_signature(secret: &str, t: i64, body: &str) -> String {
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Issue 47, fix 7: a provider that does not take the order's currency is refused with a 422
/// naming the currency (before, a USD order went to paykeeper as roubles and waited forever);
/// the order stays unpaid and can be paid in a currency the provider takes.
async fn a_provider_is_refused_for_a_currency_it_does_not_take(db: Db) {
    let sink = Sink::start().await;
    let (app, _fake, shop) = start(db, Kind::PayKeeper, &sink).await;
    let c = checkout(&app, &shop, "paykeeper", "usd").await;
    assert_eq!(c.status, 422, "{}", c.text);
    assert!(
        c.text.contains("USD") && c.text.contains("paykeeper"),
        "{}",
        c.text
    );
    let order = app.get(&format!("/api/ecommerce/orders/{}", c.order)).await;
    assert_eq!(order.data()["status"], json!("new"), "{}", order.text);
    let c = checkout(&app, &shop, "paykeeper", "rub").await;
    assert_eq!(c.status, 201, "{}", c.text);
}
stoa_testkit::dual_test!(a_provider_is_refused_for_a_currency_it_does_not_take, db);

/// Issue 47, fix 5: forged webhooks do not fill the inbox. The review's shape — a bad signature
/// and 40 headers of 8 KB — is refused and its entry keeps about 2 KB of headers (signature
/// first), not 297 KB; the retention job deletes rejected entries past their age and keeps the
/// accepted ones.
async fn a_forged_webhook_costs_the_inbox_little_and_is_deleted_in_time(db: Db) {
    let sink = Sink::start().await;
    let (app, fake, shop) = start(db, Kind::Stripe, &sink).await;
    // One real payment: its entry is accepted and kept.
    let c = checkout(&app, &shop, "stripe", "eur").await;
    assert_eq!(c.status, 201, "{}", c.text);
    let hook = app.url("/api/billing/payment-intents/stripe/webhook");
    let t = time::OffsetDateTime::now_utc().unix_timestamp();
    let body =
        json!({"id": "evt_forged", "type": "checkout.session.completed", "data": {"object": {}}})
            .to_string();
    let padding = "p".repeat(8 << 10);
    for n in 0..5 {
        let mut req = app
            .plain
            .post(&hook)
            .header("content-type", "application/json")
            .header("stripe-signature", format!("t={t},v1={}", "0".repeat(64)));
        for h in 0..40 {
            req = req.header(format!("x-pad-{h}"), padding.as_str());
        }
        let r = req.body(body.clone()).send().await.unwrap();
        assert!(
            (400..500).contains(&r.status().as_u16()),
            "forgery {n}: {}",
            r.status()
        );
    }
    let rejected = app
        .get("/api/billing/webhooks?filters[and][0][column]=status&filters[and][0][method]=eq&filters[and][0][value]=rejected&limit=100")
        .await;
    let rows = rejected.data().as_array().expect("rows").clone();
    assert_eq!(rows.len(), 5, "{}", rejected.text);
    for r in &rows {
        let kept = r["headers"].to_string();
        assert!(kept.len() < 3000, "{} bytes of headers kept", kept.len());
        assert!(kept.contains("stripe-signature"), "{kept}");
    }
    // Retention: every rejected entry older than the cut goes; accepted ones stay.
    drop(fake);
    let billing = app
        .ctx
        .need::<stoa_billing::service::Billing>()
        .expect("billing");
    let before = app.get("/api/billing/webhooks?limit=100").await;
    let total = before.data().as_array().map_or(0, Vec::len);
    assert_eq!(
        billing.expire_inbox().await.expect("expire"),
        0,
        "nothing is past the default 30 days"
    );
    let gone = billing
        .expire_inbox_before(time::OffsetDateTime::now_utc() + time::Duration::minutes(1))
        .await
        .expect("expire");
    assert_eq!(gone, 5);
    let after = app.get("/api/billing/webhooks?limit=100").await;
    let left = after.data().as_array().expect("rows").clone();
    assert_eq!(left.len(), total - 5);
    assert!(
        left.iter().all(|r| r["status"] != "rejected"),
        "{}",
        after.text
    );
}
stoa_testkit::dual_test!(
    a_forged_webhook_costs_the_inbox_little_and_is_deleted_in_time,
    db
);
