//! Outgoing webhooks end to end on SQLite and PostgreSQL, against a real receiver on a local
//! port: signed deliveries of a paid order and a registration, the receiver down for a while and
//! then up (every event delivered, in order per record, each event id once), replays, a failing
//! endpoint disabled, and forged targets (loopback, private, a redirect to loopback) refused.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use stoa_kernel::value::{Val, now};
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_manual};

use crate::commerce::order_in;

/// What the receiver got, and how it answers now.
#[derive(Default)]
struct Inbox {
    got: Vec<(HeaderMap, String)>,
    /// 200 when true, 503 otherwise.
    up: bool,
    /// Answer every request with a redirect to this URL instead.
    redirect: Option<String>,
}

struct Receiver {
    url: String,
    port: u16,
    inbox: Arc<Mutex<Inbox>>,
}

impl Receiver {
    async fn start(up: bool) -> Self {
        let inbox = Arc::new(Mutex::new(Inbox {
            up,
            ..Inbox::default()
        }));
        let app = axum::Router::new()
            .route(
                "/hook",
                post(
                    |State(i): State<Arc<Mutex<Inbox>>>, h: HeaderMap, body: String| async move {
                        let mut i = i.lock().unwrap();
                        i.got.push((h, body));
                        if let Some(to) = &i.redirect {
                            return (StatusCode::FOUND, [("location", to.clone())], String::new());
                        }
                        if i.up {
                            (StatusCode::OK, [("x-ok", "1".to_owned())], "thanks".into())
                        } else {
                            (
                                StatusCode::SERVICE_UNAVAILABLE,
                                [("x-ok", "0".to_owned())],
                                "down for maintenance".into(),
                            )
                        }
                    },
                ),
            )
            .with_state(inbox.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            url: format!("http://127.0.0.1:{port}/hook"),
            port,
            inbox,
        }
    }

    fn set_up(&self, up: bool) {
        self.inbox.lock().unwrap().up = up;
    }

    /// The bodies received (parsed) with their headers, in the order they came.
    fn received(&self) -> Vec<(HeaderMap, Value)> {
        self.inbox
            .lock()
            .unwrap()
            .got
            .iter()
            .map(|(h, b)| (h.clone(), serde_json::from_str(b).unwrap_or(Value::Null)))
            .collect()
    }

    fn raw(&self) -> Vec<(HeaderMap, String)> {
        self.inbox.lock().unwrap().got.clone()
    }
}

async fn app(db: Db, allow: &[u16]) -> TestApp {
    let allow = allow
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    spawn_app_manual(db, move |c| {
        c.hooks.hooks_allow = Some(allow);
        c.hooks.hooks_retry_ms = 100;
        c.hooks.hooks_timeout = 5;
    })
    .await
    .expect("app")
}

async fn endpoint(app: &TestApp, url: &str, events: &str) -> (String, String) {
    let e = app
        .create(
            "/api/webhook/endpoints",
            &json!({"url": url, "events": events, "description": "the test receiver"}),
        )
        .await;
    let id = e["id"].as_str().unwrap().to_owned();
    assert!(
        e.get("secret").is_none(),
        "the secret is never in a record: {e}"
    );
    let r = app
        .get(&format!("/api/webhook/endpoints/{id}/secret"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let secret = r.data()["secret"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 64, "{secret}");
    (id, secret)
}

/// Runs due jobs, waiting for retries to fall due, until `done` holds (at most ~10 s).
async fn deliver_until(app: &TestApp, mut done: impl FnMut() -> bool) {
    for _ in 0..100 {
        app.drain_jobs().await;
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the deliveries did not finish in time");
}

fn verify(secret: &str, headers: &HeaderMap, body: &str) {
    let sig = headers
        .get("stoa-signature")
        .and_then(|v| v.to_str().ok())
        .expect("a Stoa-Signature header");
    let (t, v1) = sig
        .split_once(',')
        .and_then(|(t, v)| Some((t.strip_prefix("t=")?, v.strip_prefix("v1=")?)))
        .expect("t=…,v1=…");
    let age = time::OffsetDateTime::now_utc().unix_timestamp() - t.parse::<i64>().unwrap();
    assert!((0..300).contains(&age), "a fresh timestamp: {age} s");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    let want: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        v1, want,
        "the signature over t.body with the endpoint's secret"
    );
}

async fn deliveries(app: &TestApp, endpoint: &str) -> Vec<Value> {
    app.rows_where("/api/webhook/deliveries?limit=100", "endpointId", endpoint)
        .await
}

async fn outgoing_webhooks_arrive_signed_and_in_order_after_an_outage(db: Db) {
    let rx = Receiver::start(false).await;
    let app = app(db, &[rx.port]).await;
    let (ep, secret) = endpoint(&app, &rx.url, "ecommerce.order.* rbac.subject.registered").await;

    // An order paid for (new → paying → approving), a later status, and a registration.
    let order = order_in(&app, "paying").await;
    let oid = order["id"].as_str().unwrap().to_owned();
    for to in ["approving", "packaging"] {
        let r = app
            .post(
                &format!("/api/ecommerce/orders/{oid}/override"),
                &json!({"status": to, "reason": "test"}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    app.register("hook-reader@example.com").await;

    // The receiver is down: the first delivery is tried, fails, and holds the rest.
    app.drain_jobs().await;
    let first = rx.received().len();
    assert!(first >= 1, "the first delivery was tried");
    let ds = deliveries(&app, &ep).await;
    assert!(ds.iter().all(|d| d["status"] == "pending"), "{ds:?}");
    let tried: Vec<&Value> = ds
        .iter()
        .filter(|d| d["attempts"].as_i64() > Some(0))
        .collect();
    assert_eq!(
        tried.len(),
        1,
        "only the oldest is tried while it fails: {ds:?}"
    );
    assert_eq!(tried[0]["responseStatus"], json!(503));
    assert!(
        tried[0]["error"].as_str().unwrap().contains("503"),
        "{:?}",
        tried[0]
    );
    let e = app.get(&format!("/api/webhook/endpoints/{ep}")).await;
    assert!(e.data()["failingSince"].is_string(), "{}", e.text);

    // A while later it is up again: everything arrives.
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.drain_jobs().await;
    rx.set_up(true);
    let expected = ds.len();
    deliver_until(&app, || {
        let got = rx.received();
        let ok: std::collections::HashSet<String> = got
            .iter()
            .map(|(_, b)| b["id"].as_str().unwrap_or_default().to_owned())
            .collect();
        ok.len() == expected
    })
    .await;
    let ds = deliveries(&app, &ep).await;
    assert!(ds.iter().all(|d| d["status"] == "delivered"), "{ds:?}");
    let e = app.get(&format!("/api/webhook/endpoints/{ep}")).await;
    assert!(e.data()["failingSince"].is_null(), "{}", e.text);

    // Signed; each event id received once after the outage (the failed tries of the first
    // carried the same id); in the order written.
    let got = rx.raw();
    for (h, body) in &got {
        verify(&secret, h, body);
        assert_eq!(h["content-type"], "application/json");
        let v: Value = serde_json::from_str(body).unwrap();
        assert_eq!(
            h["stoa-event-id"].to_str().unwrap(),
            v["id"].as_str().unwrap()
        );
        assert_eq!(
            h["stoa-event-type"].to_str().unwrap(),
            v["type"].as_str().unwrap()
        );
    }
    let got = rx.received();
    let ids: Vec<&str> = got.iter().map(|(_, b)| b["id"].as_str().unwrap()).collect();
    // The first event was tried while the receiver was down, then again until it was up.
    let tries = ids.iter().take_while(|i| **i == ids[0]).count();
    assert!(tries > first, "retried while down: {ids:?}");
    let after: Vec<&str> = ids[tries - 1..].to_vec();
    let mut unique = after.clone();
    unique.dedup();
    assert_eq!(after, unique, "no event twice once delivered: {ids:?}");
    let mut sorted = after.clone();
    sorted.sort();
    assert_eq!(after, sorted, "delivered in the order written: {ids:?}");

    let of_order: Vec<String> = got
        .iter()
        .skip(tries - 1)
        .filter(|(_, b)| b["data"]["id"] == json!(oid))
        .map(|(_, b)| b["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        of_order,
        [
            "ecommerce.order.created",
            "ecommerce.order.updated",
            "ecommerce.order.status-changed",
            "ecommerce.order.updated",
            "ecommerce.order.status-changed",
            "ecommerce.order.paid",
            "ecommerce.order.updated",
            "ecommerce.order.status-changed",
        ],
        "the order's events in the order they happened"
    );
    let paid = got
        .iter()
        .map(|(_, b)| b)
        .find(|b| b["type"] == "ecommerce.order.paid")
        .unwrap();
    assert_eq!(paid["entity"], "ecommerce.order");
    assert_eq!(paid["data"]["status"], "approving");
    assert_eq!(paid["previous"]["status"], "paying");
    let registered = got
        .iter()
        .map(|(_, b)| b)
        .find(|b| b["type"] == "rbac.subject.registered")
        .expect("the registration was sent");
    assert_eq!(registered["data"]["login"], "hook-reader@example.com");
    assert_eq!(registered["data"]["provider"], "email_and_password");
    assert!(
        !got.iter()
            .any(|(_, b)| b["type"].as_str().unwrap().starts_with("rbac.identity")),
        "only what the endpoint subscribed to"
    );

    // A replay sends the same event (same id) again, marked as a replay.
    let paid_delivery = ds
        .iter()
        .find(|d| d["type"] == "ecommerce.order.paid")
        .unwrap();
    let r = app
        .post(
            &format!(
                "/api/webhook/deliveries/{}/replay",
                paid_delivery["id"].as_str().unwrap()
            ),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["isReplay"], json!(true));
    let before = rx.received().len();
    deliver_until(&app, || rx.received().len() == before + 1).await;
    let last = rx.received().pop().unwrap().1;
    assert_eq!(
        last["id"], paid["id"],
        "the same event id: a receiver deduplicates by it"
    );
}
dual_test!(
    outgoing_webhooks_arrive_signed_and_in_order_after_an_outage,
    db
);

async fn only_subscribed_events_are_written(db: Db) {
    let rx = Receiver::start(true).await;
    let app = app(db, &[rx.port]).await;
    let (ep, _) = endpoint(&app, &rx.url, "ecommerce.order.paid").await;
    let order = order_in(&app, "paying").await;
    let oid = order["id"].as_str().unwrap();
    let r = app
        .post(
            &format!("/api/ecommerce/orders/{oid}/override"),
            &json!({"status": "approving", "reason": "test"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    app.create("/api/blog/articles", &json!({"title": {"en": "Not sent"}}))
        .await;
    deliver_until(&app, || !rx.received().is_empty()).await;
    let events = app.get("/api/webhook/events?limit=100").await;
    let types: Vec<&str> = events
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["ecommerce.order.paid"],
        "one event, the one subscribed to"
    );
    assert_eq!(deliveries(&app, &ep).await.len(), 1);

    // An unknown event name, a bad URL: refused with the reason, naming the field.
    let r = app
        .post(
            "/api/webhook/endpoints",
            &json!({"url": rx.url, "events": "ecommerce.order.payed"}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(
        r.text.contains("events") && r.text.contains("ecommerce.order.payed"),
        "{}",
        r.text
    );
    let r = app.get("/api/webhook/event-types").await;
    assert_eq!(r.status, 200, "{}", r.text);
    let names: Vec<&str> = r
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for n in [
        "ecommerce.order.paid",
        "billing.invoice.paid",
        "crm.request.submitted",
        "rbac.subject.registered",
        "blog.article.created",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("webhook.") || n.starts_with("platform."))
    );
    // A visitor reads none of it.
    let anon = app.anon();
    for path in [
        "/api/webhook/endpoints",
        "/api/webhook/events",
        "/api/webhook/deliveries",
        "/api/webhook/event-types",
    ] {
        let r = anon.get(path).await;
        assert!(matches!(r.status, 401 | 403), "{path}: {}", r.status);
    }
    let r = anon
        .get(&format!("/api/webhook/endpoints/{ep}/secret"))
        .await;
    assert!(matches!(r.status, 401 | 403), "{}", r.status);
}
dual_test!(only_subscribed_events_are_written, db);

async fn forged_targets_are_refused(db: Db) {
    let rx = Receiver::start(true).await;
    // Only the receiver's own port is allowed; anything else local or private is refused.
    let app = app(db, &[rx.port]).await;
    let trap = Receiver::start(true).await;
    for url in [
        format!("http://127.0.0.1:{}/hook", trap.port),
        "http://10.0.0.7/hook".to_owned(),
        "http://[::1]:8080/hook".to_owned(),
        "http://169.254.169.254/latest/meta-data".to_owned(),
        "ftp://example.com/hook".to_owned(),
        "http://user:pw@example.com/hook".to_owned(),
    ] {
        let r = app
            .post(
                "/api/webhook/endpoints",
                &json!({"url": url, "events": "*"}),
            )
            .await;
        assert_eq!(r.status, 422, "{url}: {}", r.text);
        assert!(r.text.contains("url"), "{url}: {}", r.text);
    }
    // A name that resolves to loopback is accepted as text and refused when reached.
    let (named, _) = endpoint(&app, &format!("http://localhost:{}/hook", trap.port), "*").await;
    let r = app
        .post(&format!("/api/webhook/endpoints/{named}/test"), &json!({}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["status"], "failed");
    assert!(
        r.data()["error"]
            .as_str()
            .unwrap()
            .contains("private or reserved"),
        "{}",
        r.text
    );
    // An allowed receiver that redirects to loopback: not followed.
    rx.inbox.lock().unwrap().redirect = Some(format!("http://127.0.0.1:{}/hook", trap.port));
    let (ep, _) = endpoint(&app, &rx.url, "*").await;
    let r = app
        .post(&format!("/api/webhook/endpoints/{ep}/test"), &json!({}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["status"], "failed");
    assert_eq!(r.data()["responseStatus"], json!(302));
    assert!(
        r.data()["error"]
            .as_str()
            .unwrap()
            .contains("redirects are not followed"),
        "{}",
        r.text
    );
    assert!(
        trap.received().is_empty(),
        "nothing reached the forbidden target"
    );
    // A working test ping.
    rx.inbox.lock().unwrap().redirect = None;
    let r = app
        .post(&format!("/api/webhook/endpoints/{ep}/test"), &json!({}))
        .await;
    assert_eq!(r.data()["status"], "delivered", "{}", r.text);
    assert_eq!(rx.received().last().unwrap().1["type"], "webhook.ping");
}
dual_test!(forged_targets_are_refused, db);

async fn an_endpoint_failing_for_days_is_disabled_until_enabled_again(db: Db) {
    let rx = Receiver::start(false).await;
    let app = app(db, &[rx.port]).await;
    let admin = app.admin_account("hooks-admin@example.com").await;
    let (ep, secret) = endpoint(&app, &rx.url, "blog.article.created").await;
    app.create("/api/blog/articles", &json!({"title": {"en": "One"}}))
        .await;
    app.drain_jobs().await;
    assert!(!rx.received().is_empty(), "tried");
    // It has been failing for four days.
    let id = uuid::Uuid::parse_str(&ep).unwrap();
    let e = app.store.entity("webhook.endpoint").unwrap();
    let mut tx = app.store.begin().await.unwrap();
    stoa_store::repo::set_if(
        &mut tx.exec(),
        &e,
        id,
        &[(
            "failingSince",
            Val::Timestamp(now() - time::Duration::days(4)),
        )],
        &[],
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.drain_jobs().await;
    let e = app.get(&format!("/api/webhook/endpoints/{ep}")).await;
    assert_eq!(e.data()["isActive"], json!(false), "{}", e.text);
    assert!(
        e.data()["disabledReason"].as_str().unwrap().contains("503"),
        "{}",
        e.text
    );
    // …and the admins are told, with the address and how to turn it on again.
    let mails = app
        .rows_where(
            "/api/notification/notifications?limit=100",
            "reciever",
            &admin.email,
        )
        .await;
    let told: Vec<&Value> = mails
        .iter()
        .filter(|m| m["title"].as_str().is_some_and(|t| t.contains(&rx.url)))
        .collect();
    assert_eq!(
        told.len(),
        1,
        "one mail about the endpoint to the admin: {mails:?}"
    );
    // Disabled: a new event waits, nothing is sent.
    let sent = rx.received().len();
    app.create("/api/blog/articles", &json!({"title": {"en": "Two"}}))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.drain_jobs().await;
    assert_eq!(rx.received().len(), sent, "nothing sent while it is off");
    // Fixed and enabled again: both arrive, in order.
    rx.set_up(true);
    let r = app
        .patch(
            &format!("/api/webhook/endpoints/{ep}"),
            &json!({"isActive": true}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    deliver_until(&app, || {
        rx.received()
            .iter()
            .filter(|(_, b)| b["data"]["title"]["en"] == "Two")
            .count()
            == 1
    })
    .await;
    let titles: Vec<String> = rx
        .received()
        .iter()
        .skip(sent)
        .map(|(_, b)| b["data"]["title"]["en"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(titles, ["One", "Two"]);
    for (h, b) in rx.raw() {
        verify(&secret, &h, &b);
    }
    // A rotated secret signs from then on; the old one no longer does.
    let r = app
        .post(&format!("/api/webhook/endpoints/{ep}/secret"), &json!({}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let fresh = r.data()["secret"].as_str().unwrap().to_owned();
    assert_ne!(fresh, secret);
    let r = app
        .post(&format!("/api/webhook/endpoints/{ep}/test"), &json!({}))
        .await;
    assert_eq!(r.data()["status"], "delivered", "{}", r.text);
    let (h, b) = rx.raw().pop().unwrap();
    verify(&fresh, &h, &b);
}
dual_test!(
    an_endpoint_failing_for_days_is_disabled_until_enabled_again,
    db
);

/// Sets `field` of row `id` of `entity` to a time `days` ago, around the API.
async fn backdate(app: &TestApp, entity: &str, id: &str, field: &str, days: i64) {
    let e = app.store.entity(entity).unwrap();
    let id = uuid::Uuid::parse_str(id).unwrap();
    let mut tx = app.store.begin().await.unwrap();
    stoa_store::repo::set_if(
        &mut tx.exec(),
        &e,
        id,
        &[(field, Val::Timestamp(now() - time::Duration::days(days)))],
        &[],
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

async fn the_sweep_gives_up_and_forgets_what_is_older_than_kept(db: Db) {
    let rx = Receiver::start(true).await;
    let app = app(db, &[rx.port]).await;
    let (ep, _) = endpoint(&app, &rx.url, "blog.article.created").await;
    app.create("/api/blog/articles", &json!({"title": {"en": "Old"}}))
        .await;
    deliver_until(&app, || rx.received().len() == 1).await;
    // Turned off, a second event waits.
    let r = app
        .patch(
            &format!("/api/webhook/endpoints/{ep}"),
            &json!({"isActive": false}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    app.create("/api/blog/articles", &json!({"title": {"en": "Waiting"}}))
        .await;
    app.drain_jobs().await;
    let ds = deliveries(&app, &ep).await;
    assert_eq!(ds.len(), 2, "{ds:?}");
    let waiting = ds.iter().find(|d| d["status"] == "pending").unwrap();
    let delivered = ds.iter().find(|d| d["status"] == "delivered").unwrap();
    // Both are older than the 30 days kept.
    for d in [waiting, delivered] {
        for field in ["createdAt", "updatedAt"] {
            backdate(
                &app,
                "webhook.delivery",
                d["id"].as_str().unwrap(),
                field,
                31,
            )
            .await;
        }
        backdate(
            &app,
            "webhook.event",
            d["eventId"].as_str().unwrap(),
            "createdAt",
            31,
        )
        .await;
    }
    let hooks = app.ctx.need::<stoa_webhook::service::Hooks>().unwrap();
    hooks.sweep().await.unwrap();
    let r = app
        .get(&format!(
            "/api/webhook/deliveries/{}",
            waiting["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(r.data()["status"], "failed", "{}", r.text);
    assert!(
        r.data()["error"].as_str().unwrap().contains("30 days"),
        "{}",
        r.text
    );
    let r = app
        .get(&format!(
            "/api/webhook/events/{}",
            delivered["eventId"].as_str().unwrap()
        ))
        .await;
    assert_eq!(
        r.status, 404,
        "the delivered event is forgotten: {}",
        r.text
    );
    let r = app
        .get(&format!(
            "/api/webhook/deliveries/{}",
            delivered["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(r.status, 404, "with its delivery: {}", r.text);
    // The given-up one stays in the log for the days kept, then goes too.
    hooks.sweep().await.unwrap();
    assert_eq!(deliveries(&app, &ep).await.len(), 1);
    backdate(
        &app,
        "webhook.delivery",
        waiting["id"].as_str().unwrap(),
        "updatedAt",
        31,
    )
    .await;
    hooks.sweep().await.unwrap();
    assert!(deliveries(&app, &ep).await.is_empty());
    assert_eq!(rx.received().len(), 1, "nothing was sent while off");
}
dual_test!(the_sweep_gives_up_and_forgets_what_is_older_than_kept, db);

async fn a_paid_checkout_sends_the_order_and_the_invoice_paid(db: Db) {
    let rx = Receiver::start(true).await;
    let app = app(db, &[rx.port]).await;
    endpoint(&app, &rx.url, "ecommerce.order.paid billing.invoice.paid").await;
    let c = crate::commerce::catalog(&app).await;
    let bought = crate::commerce::buy(
        &app,
        &c.tree,
        2,
        json!({"provider": "dummy", "email": "buyer@example.com"}),
    )
    .await;
    let body = crate::commerce::dummy_payment(&app, &bought.invoice).await;
    let r = app
        .anon()
        .post("/api/billing/payment-intents/dummy/webhook", &body)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    deliver_until(&app, || rx.received().len() >= 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.drain_jobs().await;
    let got = rx.received();
    let of = |t: &str| -> Vec<Value> {
        got.iter()
            .filter(|(_, b)| b["type"] == t)
            .map(|(_, b)| b.clone())
            .collect()
    };
    let invoice = of("billing.invoice.paid");
    assert_eq!(invoice.len(), 1, "one invoice.paid: {got:?}");
    assert_eq!(
        invoice[0]["data"]["id"].as_str(),
        Some(bought.invoice.as_str())
    );
    assert_eq!(invoice[0]["data"]["status"], "paid");
    let order = of("ecommerce.order.paid");
    assert_eq!(order.len(), 1, "one order.paid: {got:?}");
    assert_eq!(order[0]["data"]["id"].as_str(), Some(bought.order.as_str()));
    assert_eq!(order[0]["previous"]["status"], "paying");
    assert_eq!(got.len(), 2, "nothing else: {got:?}");
}
dual_test!(a_paid_checkout_sends_the_order_and_the_invoice_paid, db);
