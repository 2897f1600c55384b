//! The notification engine on SQLite and PostgreSQL, against a real SMTP sink and a local Telegram
//! Bot API: retries with backoff, failure after the last attempt and an admin's resend,
//! `sendAfter`, and the CRM form's checks, spam guards and alerts.

use std::time::Duration;

use serde_json::{Value, json};
use stoa_fakes::telegram::TelegramFake;
use stoa_notification::mail::{Email, Mailer};
use stoa_testkit::smtp::Sink;
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_manual};

const TOKEN: &str = "4242:test-token";
const STAFF_CHAT: &str = "-1001234";

async fn app(db: Db, sink: &Sink, attempts: u32, telegram: Option<&TelegramFake>) -> TestApp {
    let url = sink.url.clone();
    let tg = telegram.map(|t| t.url.clone());
    spawn_app_manual(db, move |c| {
        c.smtp_url = Some(url);
        c.notify_attempts = attempts;
        c.notify_backoff = 1;
        if let Some(u) = tg {
            c.telegram_api_url = u;
            c.telegram_bot_token = Some(TOKEN.into());
            c.telegram_admin_chat = Some(STAFF_CHAT.into());
        }
    })
    .await
    .expect("app")
}

/// Runs due jobs until `done` holds, for at most `secs` seconds.
async fn until(app: &TestApp, secs: u64, mut done: impl AsyncFnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        app.drain_jobs().await;
        if done().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The outbox row sent to `to` (as an admin reads it).
async fn outbox(app: &TestApp, to: &str) -> Value {
    let r = app
        .get(&format!(
            "/api/notification/notifications?filters[and][0][column]=reciever&filters[and][0][method]=eq&filters[and][0][value]={to}"
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.data()[0].clone()
}

/// The admin's "send again" of notification `id`.
async fn resend(app: &TestApp, id: uuid::Uuid) -> stoa_testkit::Res {
    app.post(
        &format!("/api/notification/notifications/{id}/send"),
        &json!({}),
    )
    .await
}

async fn queue(app: &TestApp, to: &str, after: Option<Duration>) -> uuid::Uuid {
    let mailer = app.ctx.need::<Mailer>().unwrap();
    mailer
        .queue(Email {
            topic: "security",
            template_variant: "reset-password",
            to,
            language: "en",
            data: json!({}),
            secret: json!({"resetUrl": "http://example.test/reset?code=1"}),
            send_after: after.map(|d| stoa_kernel::value::now() + d),
            ..Default::default()
        })
        .await
        .unwrap()
}

async fn a_refused_mail_is_retried_with_backoff(db: Db) {
    let sink = Sink::start().await;
    sink.refuse(2);
    let app = app(db, &sink, 5, None).await;
    queue(&app, "retry@example.com", None).await;
    assert!(
        until(&app, 15, async || !sink.mails().is_empty()).await,
        "the mail arrived on the third attempt"
    );
    let m = sink.wait_for("retry@example.com").await;
    assert!(m.text().contains("http://example.test/reset?code=1"));
    let refused = sink.refused_at.lock().unwrap().clone();
    assert_eq!(refused.len(), 2);
    // Backoff between attempts: 1 s, then 2 s.
    let arrived = sink.accepted_at.lock().unwrap()[0];
    assert!(
        refused[1] - refused[0] >= Duration::from_millis(900),
        "{refused:?}"
    );
    assert!(
        arrived - refused[1] >= Duration::from_millis(1800),
        "{refused:?}"
    );
    let n = outbox(&app, "retry@example.com").await;
    assert_eq!(n["status"], "sent", "{n}");
    assert_eq!(n["attempts"], 3, "{n}");
    assert!(n["error"].is_null(), "{n}");
    assert!(n.get("secretData").is_none());
}
dual_test!(a_refused_mail_is_retried_with_backoff, db);

async fn a_mail_that_keeps_failing_is_failed_then_resent(db: Db) {
    let sink = Sink::start().await;
    sink.refuse(u64::MAX);
    let app = app(db, &sink, 3, None).await;
    let id = queue(&app, "down@example.com", None).await;
    let failed = until(&app, 15, async || {
        outbox(&app, "down@example.com").await["status"] == "failed"
    })
    .await;
    let n = outbox(&app, "down@example.com").await;
    assert!(failed, "{n}");
    assert_eq!(n["attempts"], 3, "{n}");
    assert!(
        n["error"].as_str().unwrap_or_default().contains("refused"),
        "the admin sees why: {n}"
    );
    assert_eq!(sink.refused_at.lock().unwrap().len(), 3);
    // The admin fixes the mail server and sends it again.
    sink.refuse(0);
    let r = resend(&app, id).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["queued"], true);
    assert!(until(&app, 10, async || !sink.mails().is_empty()).await);
    assert_eq!(outbox(&app, "down@example.com").await["status"], "sent");
    // The failed mail kept its secret for the retry: the link is in it.
    assert!(
        sink.mails()[0].text().contains("reset?code=1"),
        "{}",
        sink.mails()[0].text()
    );
    // Not a second time.
    let r = resend(&app, id).await;
    assert_eq!(r.data()["queued"], false, "{}", r.text);
    app.drain_jobs().await;
    assert_eq!(sink.mails().len(), 1);
    // Only admins act on the outbox.
    let user = app.register("nosy@example.com").await;
    let r = app
        .as_account(&user)
        .post(
            &format!("/api/notification/notifications/{id}/send"),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    // A failed mail re-pointed at another address is not sent there with its secret.
    sink.refuse(u64::MAX);
    let id = queue(&app, "owner@example.com", None).await;
    assert!(
        until(&app, 15, async || {
            outbox(&app, "owner@example.com").await["status"] == "failed"
        })
        .await
    );
    sink.refuse(0);
    let r = app
        .patch(
            &format!("/api/notification/notifications/{id}"),
            &json!({"reciever": "thief@example.com"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = resend(&app, id).await;
    assert_eq!(r.status, 200, "{}", r.text);
    app.drain_jobs().await;
    assert!(
        until(&app, 10, async || {
            outbox(&app, "thief@example.com").await["error"]
                .as_str()
                .is_some_and(|e| e.contains("recipient was changed"))
        })
        .await,
        "{}",
        outbox(&app, "thief@example.com").await
    );
    assert!(
        sink.mails()
            .iter()
            .all(|m| !m.to.iter().any(|t| t.contains("thief"))),
        "the secret went to the new address"
    );
}
dual_test!(a_mail_that_keeps_failing_is_failed_then_resent, db);

async fn a_burst_of_mail_goes_out_together_each_once(db: Db) {
    let sink = Sink::start().await;
    let url = sink.url.clone();
    // One job at a time: what one delivery does is what is seen.
    let app = spawn_app_manual(db, move |c| {
        c.smtp_url = Some(url);
        c.job_concurrency = Some(1);
    })
    .await
    .expect("app");
    app.drain_jobs().await;
    let n = 24;
    for i in 0..n {
        queue(&app, &format!("burst{i}@example.com"), None).await;
    }
    // One pass runs one job. The first delivery job takes the other due mails along; a schedule
    // that fell due meanwhile (a loaded machine: seen on PostgreSQL beside the whole suite) may
    // take a pass before it.
    for _ in 0..5 {
        assert_eq!(app.tick_jobs().await, 1);
        if !sink.mails().is_empty() {
            break;
        }
    }
    assert_eq!(sink.mails().len(), n, "one delivery sent the whole burst");
    // The other jobs find theirs sent: nothing goes twice.
    app.drain_jobs().await;
    let mails = sink.mails();
    assert_eq!(mails.len(), n, "each once");
    for i in 0..n {
        let to = format!("burst{i}@example.com");
        assert_eq!(
            mails.iter().filter(|m| m.to.contains(&to)).count(),
            1,
            "{to}"
        );
        let row = outbox(&app, &to).await;
        assert_eq!(row["status"], "sent", "{row}");
        assert_eq!(row["attempts"], 1, "{row}");
    }
    // Over the transport's kept connections, not one connection a mail.
    let c = sink.connections.load(std::sync::atomic::Ordering::Relaxed);
    assert!(c <= 8, "{c} connections for {n} mails");
}
dual_test!(a_burst_of_mail_goes_out_together_each_once, db);

async fn send_after_is_honoured(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, &sink, 5, None).await;
    queue(&app, "later@example.com", Some(Duration::from_secs(3))).await;
    app.drain_jobs().await;
    // Send-all only sends what is due.
    let r = app
        .post("/api/notification/topics/send-all", &json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["queued"], 0, "{}", r.text);
    app.drain_jobs().await;
    assert!(sink.mails().is_empty(), "not before its time");
    assert_eq!(outbox(&app, "later@example.com").await["status"], "new");
    assert!(until(&app, 10, async || !sink.mails().is_empty()).await);
    assert_eq!(outbox(&app, "later@example.com").await["status"], "sent");
}
dual_test!(send_after_is_honoured, db);

async fn a_template_renders_for_the_admin(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, &sink, 5, None).await;
    let t = app
        .get("/api/notification/templates?filters[and][0][column]=variant&filters[and][0][method]=eq&filters[and][0][value]=reset-password")
        .await;
    let id = t.data()[0]["id"].as_str().unwrap().to_owned();
    let r = app
        .post(
            &format!("/api/notification/templates/{id}/render"),
            &json!({"data": {"resetUrl": "http://x.test/r"}, "language": "ru"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["subject"], "Сброс пароля");
    assert!(
        r.data()["body"]
            .as_str()
            .unwrap()
            .contains("http://x.test/r")
    );
}
dual_test!(a_template_renders_for_the_admin, db);

/// A form with a required name, an email and a count of at least 1.
pub(crate) async fn form(app: &TestApp, slug: &str) -> String {
    let form = app
        .create(
            "/api/crm/forms",
            &json!({"slug": slug, "adminTitle": "Contact us"}),
        )
        .await;
    let id = form["id"].as_str().unwrap().to_owned();
    for (i, (s, kind, required, min)) in [
        ("name", "text", true, None),
        ("email", "email", false, None),
        ("count", "number", false, Some("1")),
    ]
    .into_iter()
    .enumerate()
    {
        let input = app
            .create(
                "/api/crm/inputs",
                &json!({"slug": format!("{slug}-{s}"), "type": kind, "isRequired": required, "min": min, "label": {"en": s, "ru": s}}),
            )
            .await;
        app.create(
            "/api/crm/forms-to-inputs",
            &json!({"formId": id, "inputId": input["id"], "orderIndex": i}),
        )
        .await;
    }
    id
}

async fn requests(app: &TestApp) -> usize {
    app.get("/api/crm/requests?limit=100")
        .await
        .data()
        .as_array()
        .unwrap()
        .len()
}

async fn crm_requests_are_checked_and_told(db: Db) {
    let sink = Sink::start().await;
    let tg = TelegramFake::start(TOKEN).await.unwrap();
    let app = app(db, &sink, 5, Some(&tg)).await;
    let admin = app.admin_account("boss@example.com").await;
    let id = form(&app, "contact").await;
    let url = format!("/api/crm/forms/{id}/requests");
    let visitor = app.anon();

    let r = visitor
        .post(
            &url,
            &json!({"contact-name": "Ann", "contact-email": "not-an-email"}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"]["contact-email"].is_array(), "{}", r.text);
    let r = visitor
        .post(&url, &json!({"contact-name": "Ann", "contact-count": -3}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"]["contact-count"].is_array(), "{}", r.text);
    let r = visitor
        .post(&url, &json!({"contact-email": "a@b.example"}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"]["contact-name"].is_array(), "{}", r.text);
    assert_eq!(requests(&app).await, 0);

    // A bot fills the honeypot: it is told all went well, and nothing is kept.
    let r = visitor
        .post(
            &url,
            &json!({"contact-name": "Bot", "_gotcha": "http://spam.example"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(requests(&app).await, 0);

    // A person: stored, the admins told by email and Telegram (in the site's language, ru),
    // and the sender thanked in theirs. Nothing public changed: cached pages stay.
    let public = app.store.public_version();
    let r = visitor
        .send_with_lang(
            &url,
            &json!({"contact-name": "Ann", "contact-email": "ann@example.com", "contact-count": "2"}),
            "en-GB,en;q=0.9",
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(requests(&app).await, 1);
    // (The admin's registration mailed a confirmation code too.)
    assert!(
        until(&app, 10, async || sink
            .mails()
            .iter()
            .any(
                |m| m.to.contains(&admin.email) && m.text().contains("Ann")
            )
            && sink
                .mails()
                .iter()
                .any(|m| m.to.iter().any(|t| t == "ann@example.com"))
            && !tg.sent().is_empty())
        .await,
        "mails: {:?}, telegram: {:?}",
        sink.mails().len(),
        tg.sent()
    );
    let to_admin = sink.wait_for_text(&admin.email, "Ann").await;
    assert!(to_admin.text().contains("Ann"), "{}", to_admin.text());
    assert!(
        to_admin.text().contains("Посетитель"),
        "{}",
        to_admin.text()
    );
    let thanks = sink.wait_for("ann@example.com").await;
    assert!(thanks.text().contains("Thank you"), "{}", thanks.text());
    assert_eq!(
        app.store.public_version(),
        public,
        "a form request, its mail and its jobs clear no public cache"
    );
    let alert = tg
        .wait_for(STAFF_CHAT, Duration::from_secs(5))
        .await
        .unwrap();
    assert!(alert.text.contains("Новая заявка"), "{}", alert.text);
    assert!(alert.text.contains("Ann"), "{}", alert.text);

    // Signed in: the request records its sender.
    let user = app.register("member@example.com").await;
    let r = app
        .as_account(&user)
        .post(
            &format!("/api/rbac/subjects/{}/crm-module/form/request", user.id),
            &json!({"formId": id, "contact-name": "Member"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["payload"]["subjectId"], user.id.as_str());
    let r = app
        .as_account(&user)
        .post(
            &format!("/api/rbac/subjects/{}/crm-module/form/request", admin.id),
            &json!({"formId": id, "contact-name": "Member"}),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);

    // The 11th submission in a minute from one address is refused.
    let other = form(&app, "flood").await;
    let flood = format!("/api/crm/forms/{other}/requests");
    for _ in 0..10 {
        let r = visitor.post(&flood, &json!({"flood-name": "x"})).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let r = visitor.post(&flood, &json!({"flood-name": "x"})).await;
    assert_eq!(r.status, 429, "{}", r.text);
    // Refused before its body is read: a body that is not even JSON is told to wait, not 400.
    let r = app
        .send(
            app.client
                .post(app.url(&flood))
                .header("content-type", "application/json")
                .body("{"),
        )
        .await;
    assert_eq!(r.status, 429, "{}", r.text);
}
dual_test!(crm_requests_are_checked_and_told, db);

/// Notifications queued for `to` whose title starts with `title`.
async fn queued(app: &TestApp, to: &str, title: &str) -> usize {
    app.rows_where("/api/notification/notifications", "reciever", to)
        .await
        .iter()
        .filter(|n| n["title"].as_str().is_some_and(|t| t.starts_with(title)))
        .count()
}

/// Issue 47, fix 4: the form does not relay a stranger's text to an address the stranger typed
/// (the review mailed "Your account is locked, verify at http://evil…" to 60 victims in 0.5 s):
/// the confirmation carries none of the request, one address gets at most 3 a day, and past 20
/// alerts an hour the admins get one digest instead of a mail per request.
async fn a_form_relays_nothing_to_the_address_typed_into_it(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, &sink, 5, None).await;
    let admin = app.admin_account("boss@example.com").await;
    let id = form(&app, "relay").await;
    let url = format!("/api/crm/forms/{id}/requests");
    let visitor = app.anon();
    let lure = "Your account is locked, verify at http://evil.example/login";
    for _ in 0..4 {
        let r = visitor
            .send_with_lang(
                &url,
                &json!({"relay-name": lure, "relay-email": "victim@example.com"}),
                "en",
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    assert!(
        until(&app, 10, async || sink
            .mails()
            .iter()
            .any(|m| m.to.iter().any(|t| t == "victim@example.com"))
            && sink.mails().iter().any(
                |m| m.to.contains(&admin.email) && m.text().contains("evil.example")
            ))
        .await,
        "mails: {}",
        sink.mails().len()
    );
    let thanks = sink.wait_for("victim@example.com").await;
    assert!(thanks.text().contains("Thank you"), "{}", thanks.text());
    assert!(!thanks.text().contains("evil"), "{}", thanks.text());
    assert_eq!(
        queued(&app, "victim@example.com", "We received").await,
        3,
        "three confirmations a day to one address"
    );
    // The admins still see what was sent.
    let alert = sink.wait_for_text(&admin.email, "evil.example").await;
    assert!(alert.text().contains("Посетитель"), "{}", alert.text());
    // A flood: five forms, five requests each (the per-form limit), from one address.
    for n in 0..5 {
        let other = form(&app, &format!("flood{n}")).await;
        for _ in 0..5 {
            let r = visitor
                .post(
                    &format!("/api/crm/forms/{other}/requests"),
                    &json!({format!("flood{n}-name"): "x"}),
                )
                .await;
            assert_eq!(r.status, 201, "{}", r.text);
        }
    }
    assert_eq!(
        queued(&app, &admin.email, "Новая заявка").await,
        20,
        "one alert a request up to 20 an hour"
    );
    assert_eq!(
        queued(&app, &admin.email, "Ещё заявки").await,
        1,
        "then one digest for the hour"
    );
}
dual_test!(a_form_relays_nothing_to_the_address_typed_into_it, db);

/// Sites made before issue 47 have a confirmation that listed what was sent: the upgrade
/// rewrites it when the admins left it as seeded, and keeps one they edited.
async fn the_old_confirmation_is_rewritten_unless_edited(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, &sink, 5, None).await;
    let path = "/api/notification/templates";
    let rows = app
        .rows_where(path, "variant", stoa_crm::requests::RECEIVED)
        .await;
    let id = rows[0]["id"].as_str().expect("id").to_owned();
    let old = stoa_crm::requests::old_received_body();
    let r = app
        .patch(&format!("{path}/{id}"), &json!({"body": old}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    stoa_crm::requests::update_received_as(&app.store, "test.received.1")
        .await
        .expect("update");
    let now = app.get(&format!("{path}/{id}")).await;
    let body = now.data()["body"].to_string();
    assert!(!body.contains("for f in fields"), "{body}");
    assert!(body.contains("Thank you"), "{body}");
    // An edited one is the admins'.
    let edited = json!({"en": "Thanks, {{ fields }}", "ru": "Спасибо"});
    app.patch(&format!("{path}/{id}"), &json!({"body": edited}))
        .await;
    stoa_crm::requests::update_received_as(&app.store, "test.received.2")
        .await
        .expect("update");
    let kept = app.get(&format!("{path}/{id}")).await;
    assert_eq!(kept.data()["body"], edited);
}
dual_test!(the_old_confirmation_is_rewritten_unless_edited, db);

async fn telegram_is_linked_and_notified(db: Db) {
    let sink = Sink::start().await;
    let tg = TelegramFake::start(TOKEN).await.unwrap();
    let app = app(db, &sink, 5, Some(&tg)).await;
    let user = app.register("tg@example.com").await;
    app.confirm_email(&sink, &user).await;
    let me = app.as_account(&user);
    let url = format!("/api/rbac/subjects/{}/identities", user.id);
    let login = |id: u64, token: &str| {
        let mut f = json!({"id": id, "first_name": "Ann", "username": "ann_tg", "auth_date": stoa_kernel::value::now().unix_timestamp()})
            .as_object()
            .cloned()
            .unwrap();
        let hash = stoa_rbac::telegram_login::sign(&f, token);
        f.insert("hash".into(), json!(hash));
        f.insert("provider".into(), json!("telegram"));
        Value::Object(f)
    };
    // Signed by another bot, or altered after signing: refused.
    let r = me.post(&url, &login(777, "1:other")).await;
    assert_eq!(r.status, 401, "{}", r.text);
    let mut altered = login(777, TOKEN);
    altered["id"] = json!(778);
    let r = me.post(&url, &altered).await;
    assert_eq!(r.status, 401, "{}", r.text);
    let r = me.post(&url, &login(777, TOKEN)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    // The account's address is told.
    assert!(
        until(&app, 10, async || sink.mails().iter().any(|m| m
            .to
            .iter()
            .any(|t| t == "tg@example.com")
            && m.text().contains("777")))
        .await
    );
    let told = sink.wait_for_text("tg@example.com", "777").await;
    assert!(told.text().contains("was linked"), "{}", told.text());
    // Another account cannot take the same Telegram.
    let other = app.register("tg2@example.com").await;
    app.confirm_email(&sink, &other).await;
    let r = app
        .as_account(&other)
        .post(
            &format!("/api/rbac/subjects/{}/identities", other.id),
            &login(777, TOKEN),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);

    // An admin notifies the subject on Telegram and by email.
    let notify = format!("/api/rbac/subjects/{}/notify", user.id);
    let body = |method: &str, variant: &str| {
        json!({"notification": {"topic": {"slug": "information"}, "template": {"variant": variant},
               "notification": {"method": method, "data": "{\"resetUrl\": \"http://x.test/tg_link\"}"}},
               "language": "en"})
    };
    let r = app.post(&notify, &body("telegram", "reset-password")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["queued"], 1);
    let r = app.post(&notify, &body("email", "reset-password")).await;
    assert_eq!(r.data()["queued"], 1, "{}", r.text);
    assert!(until(&app, 10, async || !tg.sent().is_empty()).await);
    sink.wait_for_text("tg@example.com", "http://x.test/tg_link")
        .await;
    let got = tg.wait_for("777", Duration::from_secs(1)).await.unwrap();
    assert!(got.text.contains("http://x.test/tg_link"), "{}", got.text);
    // Telegram could not parse the `_` as Markdown: sent again as plain text, not lost.
    assert_eq!(got.parse_mode, None, "{got:?}");
    let r = app.post(&notify, &body("email", "no-such-template")).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(
        r.text.contains("notification.template.variant"),
        "{}",
        r.text
    );
    let r = app.post(&notify, &body("pigeon", "reset-password")).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = me.post(&notify, &body("email", "reset-password")).await;
    assert_eq!(r.status, 403, "{}", r.text);
}
dual_test!(telegram_is_linked_and_notified, db);

/// A submission arrives in the admins' inbox as 'new' with its sender's address and language; an
/// admin's answer is mailed to that address in that language (their words and the form's title),
/// and the submission becomes 'in progress'. Without an address, or with an empty answer, a 422
/// says why; only admins answer.
async fn an_admin_answers_a_submission_by_mail(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, &sink, 5, None).await;
    app.admin_account("boss@example.com").await;
    let id = form(&app, "ask").await;
    app.patch(
        &format!("/api/crm/forms/{id}"),
        &json!({"title": {"en": "Ask us", "ru": "Спросите нас"}}),
    )
    .await;
    let url = format!("/api/crm/forms/{id}/requests");
    let r = app
        .anon()
        .send_with_lang(
            &url,
            &json!({"ask-name": "Аня", "ask-email": " Anya@Example.com "}),
            "ru",
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let request = r.data()["id"].as_str().unwrap().to_owned();
    let row = app.get(&format!("/api/crm/requests/{request}")).await;
    assert_eq!(row.data()["status"], "new", "{}", row.text);
    assert_eq!(row.data()["email"], "anya@example.com", "{}", row.text);
    assert_eq!(row.data()["language"], "ru", "{}", row.text);

    let reply = format!("/api/crm/requests/{request}/reply");
    let r = app
        .post(&reply, &json!({"subject": "О посадке", "text": "  "}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"]["text"].is_array(), "{}", r.text);
    let stranger = app.register("someone@example.com").await;
    let r = app
        .as_account(&stranger)
        .post(&reply, &json!({"subject": "x", "text": "y"}))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);

    let r = app
        .post(
            &reply,
            &json!({"subject": "О посадке", "text": "Здравствуйте! Сажаем весной."}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["to"], "anya@example.com", "{}", r.text);
    assert_eq!(r.data()["status"], "in_progress", "{}", r.text);
    let row = app.get(&format!("/api/crm/requests/{request}")).await;
    assert_eq!(row.data()["status"], "in_progress", "{}", row.text);
    assert!(
        until(&app, 10, async || sink
            .mails()
            .iter()
            .any(|m| m.subject().as_deref() == Some("О посадке")))
        .await,
        "the answer is mailed"
    );
    let mail = sink
        .wait_for_text("anya@example.com", "Сажаем весной")
        .await;
    assert_eq!(mail.subject().as_deref(), Some("О посадке"));
    assert!(mail.text().contains("«Спросите нас»"), "{}", mail.text());
    assert!(
        mail.text().contains("Ответ на вашу заявку"),
        "{}",
        mail.text()
    );

    // A submission without an address cannot be answered.
    let r = app
        .anon()
        .post(&url, &json!({"ask-name": "Без почты"}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let silent = r.data()["id"].as_str().unwrap().to_owned();
    let r = app
        .post(
            &format!("/api/crm/requests/{silent}/reply"),
            &json!({"subject": "Hi", "text": "Hello"}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("no email address"), "{}", r.text);
    // The inbox is searched by address.
    let found = app.get("/api/crm/requests?search=anya%40example").await;
    assert_eq!(
        found.data().as_array().map(Vec::len),
        Some(1),
        "{}",
        found.text
    );
}
dual_test!(an_admin_answers_a_submission_by_mail, db);

/// The notification routes are typed (`stoa_api::endpoint`): what the document says each takes
/// and answers is made from the handler's types, so it names every field the handler sends
/// (`sendAfter`, a preview's `language`), and what the types refuse is refused, naming the field
/// or parameter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_routes_document_is_its_types() {
    let app = stoa_testkit::spawn_app(Db::Sqlite).await.expect("app");
    let doc = app.get("/api/openapi.json").await;
    assert_eq!(doc.status, 200);
    let doc: Value = serde_json::from_str(&doc.text).expect("json");
    let op = |path: &str, method: &str| doc["paths"][path][method].clone();
    // A part of the document with the component schemas it names written in (one level).
    let expand = |v: &Value| -> String {
        let mut out = v.to_string();
        for (name, schema) in doc["components"]["schemas"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let r = format!("{{\"$ref\":\"#/components/schemas/{name}\"}}");
            if out.contains(&r) {
                out = out.replace(&r, &schema.to_string());
            }
        }
        out
    };
    let send = op("/api/notification/notifications/{id}/send", "post");
    assert_eq!(send["operationId"], "notificationSend");
    assert_eq!(send["x-agent"], true, "still a tool for agents");
    assert_eq!(send["parameters"][0]["name"], "id");
    assert_eq!(send["parameters"][0]["schema"]["format"], "uuid");
    let sent = expand(&send["responses"]["200"]);
    for f in ["\"ok\"", "\"status\"", "\"queued\"", "\"sendAfter\""] {
        assert!(sent.contains(f), "{f} in {sent}");
    }
    let render = op("/api/notification/templates/{id}/render", "post");
    let body = expand(&render["requestBody"]);
    assert!(
        body.contains("\"data\"") && body.contains("\"ru\""),
        "{body}"
    );
    assert!(expand(&render["responses"]["200"]).contains("\"language\""));
    let all = op("/api/notification/topics/send-all", "post");
    assert!(
        all["parameters"].as_array().is_none_or(Vec::is_empty),
        "{all}"
    );
    assert!(all["requestBody"].is_null(), "{all}");
    // A language the type does not take, data that is not an object: 422 naming each.
    let t = "/api/notification/templates/01900000-0000-7000-8000-000000000000/render";
    for (bad, name) in [
        (json!({"language": "de"}), "language"),
        (json!({"data": "x"}), "data"),
    ] {
        let r = app.post(t, &bad).await;
        assert_eq!(r.status, 422, "{bad}: {}", r.text);
        assert!(r.text.contains(name), "{bad} names {name}: {}", r.text);
    }
    // A path parameter that is not a uuid: 400 naming it; a good one that names nothing: 404.
    let r = app
        .post("/api/notification/notifications/nope/send", &json!({}))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("\"id\""), "{}", r.text);
    let r = app
        .post(
            "/api/notification/notifications/01900000-0000-7000-8000-000000000000/send",
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
}

/// The mailer keeps topics and templates between mails (a paid order's mail reads neither):
/// a template an admin edits is the next mail's, subject and body.
async fn an_edited_template_is_the_next_mails(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, &sink, 5, None).await;
    app.drain_jobs().await;
    queue(&app, "before@example.com", None).await;
    assert!(until(&app, 10, async || sink.mails().len() == 1).await);
    let first = sink.mails()[0].raw.clone();
    assert!(!first.contains("Edited subject"), "{first}");
    let path = "/api/notification/templates";
    let rows = app.rows_where(path, "variant", "reset-password").await;
    let id = rows[0]["id"].as_str().expect("id").to_owned();
    let r = app
        .patch(
            &format!("{path}/{id}"),
            &json!({"subject": {"en": "Edited subject"}, "body": {"en": "Edited body {{ resetUrl }}"}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    queue(&app, "after@example.com", None).await;
    assert!(until(&app, 10, async || sink.mails().len() == 2).await);
    let second = sink
        .mails()
        .into_iter()
        .find(|m| m.to.iter().any(|t| t.contains("after@example.com")))
        .expect("the second mail")
        .raw;
    assert!(second.contains("Edited subject"), "{second}");
    assert!(second.contains("Edited body"), "{second}");
}
dual_test!(an_edited_template_is_the_next_mails, db);
