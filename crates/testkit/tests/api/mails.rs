//! Every mail the platform sends, read as its recipient gets it, in Russian and in English:
//! proper MIME (MIME-Version, UTF-8 text and HTML alternatives, an encoded subject), in the
//! language the person used on the site, with no "None", "null" or bare ids, and links that
//! answer 200 for the person they are meant for. Account mail (confirmation, reset), order mail
//! (the buyer's, the admins'), CRM mail (the admins', the sender's) and an admin's notification.

use serde_json::{Value, json};
use stoa_testkit::smtp::{Mail, Sink};
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_manual};

const AUTH: &str = "/api/rbac/subjects/authentication";

fn cyrillic(s: &str) -> bool {
    s.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c))
}

/// The text with its links taken out.
fn without_links(text: &str, links: &[String]) -> String {
    links
        .iter()
        .fold(text.to_owned(), |t, l| t.replace(l.as_str(), " "))
}

/// Checks one mail: MIME, language, no placeholders or ids, and links that answer 200 (read
/// with `reader`'s bearer token when given). Returns its text.
async fn reads_right(app: &TestApp, mail: &Mail, lang: &str, reader: Option<&str>) -> String {
    let head = mail
        .raw
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(
        head.contains("mime-version: 1.0"),
        "MIME-Version: {}",
        mail.raw
    );
    assert!(
        head.contains("multipart/alternative") || head.contains("multipart/mixed"),
        "text and HTML alternatives: {head}"
    );
    let lower = mail.raw.to_ascii_lowercase();
    assert!(
        lower.contains("content-type: text/plain; charset=utf-8"),
        "a UTF-8 text part: {}",
        mail.raw
    );
    assert!(
        lower.contains("content-type: text/html; charset=utf-8"),
        "a UTF-8 HTML part: {}",
        mail.raw
    );
    let subject = mail.subject().expect("a subject");
    let text = mail.text();
    let html = mail.html().expect("an HTML part");
    assert!(html.contains(&format!("lang=\"{lang}\"")), "{html}");
    if lang == "ru" {
        assert!(cyrillic(&subject), "a Russian subject: {subject}");
        assert!(cyrillic(&text), "a Russian text: {text}");
    } else {
        assert!(!cyrillic(&subject), "an English subject: {subject}");
        assert!(!cyrillic(&text), "an English text: {text}");
    }
    let links = stoa_notification::compose::links(&text);
    let words = without_links(&format!("{subject}\n{text}"), &links);
    for bad in ["None", "null", "undefined", "{{", "}}"] {
        assert!(!words.contains(bad), "'{bad}' in: {words}");
    }
    for w in words.split(|c: char| !(c.is_ascii_hexdigit() || c == '-')) {
        assert!(
            uuid::Uuid::parse_str(w).is_err(),
            "an id where words belong: {words}"
        );
    }
    for link in &links {
        assert!(
            link.starts_with(&app.url("/")),
            "an absolute link to the site: {link}"
        );
        let path = &link[app.url("").len()..];
        if !path.starts_with("/admin") {
            assert!(
                path.starts_with(&format!("/{lang}/")) || path == format!("/{lang}"),
                "a link in the mail's language: {link}"
            );
        }
        let mut req = app.plain.get(link.as_str());
        if let Some(jwt) = reader {
            req = req.bearer_auth(jwt);
        }
        let r = app.send(req).await;
        assert_eq!(r.status, 200, "{link} answers {}", r.status);
        assert!(
            html.contains(&link.replace('&', "&amp;")),
            "the link is in the HTML too: {link}"
        );
    }
    text
}

/// An app whose mail goes to `sink` (`tweak` changes the rest of its configuration).
async fn app_mailing_to(
    db: Db,
    sink: &Sink,
    tweak: impl FnOnce(&mut stoa_server::Config),
) -> TestApp {
    let url = sink.url.clone();
    spawn_app_manual(db, move |c| {
        c.smtp_url = Some(url);
        tweak(c);
    })
    .await
    .expect("app")
}

/// The admin's outbox view (`…/{id}/message`) of the one mail queued to `to`.
async fn outbox_message(app: &TestApp, to: &str) -> (String, Value) {
    let rows = app
        .rows_where("/api/notification/notifications", "reciever", to)
        .await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    let id = rows[0]["id"].as_str().unwrap().to_owned();
    let r = app
        .get(&format!("/api/notification/notifications/{id}/message"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    (id, r.data().clone())
}

/// Posts `body` to `path` as a visitor of the site in `lang` (the web client sends the page's
/// language; the browser's own is English here).
async fn post_in(app: &TestApp, lang: &str, jwt: Option<&str>, path: &str, body: &Value) -> Value {
    let mut req = app
        .plain
        .post(app.url(path))
        .header("accept-language", format!("{lang}, en;q=0.5"))
        .json(body);
    if let Some(j) = jwt {
        req = req.bearer_auth(j);
    }
    let r = app.send(req).await;
    assert!(r.status < 300, "{path}: {} {}", r.status, r.text);
    r.body.clone()
}

async fn every_mail_reads_right(db: Db) {
    let sink = Sink::start().await;
    let app = app_mailing_to(db, &sink, |c| {
        c.dummy_webhook_delay = 0;
        c.payment_timeout = 3600;
    })
    .await;
    let admin = app.admin_account("boss@example.com").await;
    // The admin uses the site in English: admin mail goes out in English.
    post_in(
        &app,
        "en",
        None,
        &format!("{AUTH}/email-and-password/authentication"),
        &json!({"login": "boss@example.com", "password": stoa_testkit::users::PASSWORD}),
    )
    .await;
    let catalog = crate::commerce::catalog(&app).await;
    let form = crate::notify::form(&app, "contact").await;
    // The site's name in each language heads its mail.
    app.create("/api/host/pages", &json!({"title": "Home", "url": "/"}))
        .await;
    for (lang, name) in [("ru", "для планеты"), ("en", "for planet")] {
        app.create(
            "/api/host/metadata",
            &json!({"title": name, "variant": "primary", "language": lang, "opengraphSiteName": name}),
        )
        .await;
    }
    app.create(
        "/api/notification/templates",
        &json!({"variant": "default", "slug": "project-news", "adminTitle": "Project news", "title": "Project news",
            "subject": {"en": "Project news", "ru": "Новости проекта"},
            "body": {"en": "Hello!\n\nThe spring planting begins; your account: {{ url }}\n",
                     "ru": "Здравствуйте!\n\nНачинается весенняя посадка; ваша учётная запись: {{ url }}\n"}}),
    )
    .await;
    for lang in ["ru", "en"] {
        // Account: the confirmation of a new address, then a password reset.
        let email = format!("{lang}-person@example.com");
        let t = post_in(
            &app,
            lang,
            None,
            &format!("{AUTH}/email-and-password/registration"),
            &json!({"login": email, "password": "a long enough password 1", "roles": ["user"]}),
        )
        .await;
        let jwt = t["data"]["jwt"].as_str().unwrap_or_default().to_owned();
        app.drain_jobs().await;
        let m = app.mail_to(&sink, &email, "verify-email").await;
        reads_right(&app, &m, lang, Some(&jwt)).await;
        let site = if lang == "ru" {
            "для планеты"
        } else {
            "for planet"
        };
        assert!(
            m.html().unwrap_or_default().contains(site),
            "headed with the site's name in {lang}"
        );
        post_in(
            &app,
            lang,
            None,
            &format!("{AUTH}/email-and-password/forgot-password"),
            &json!({"email": email}),
        )
        .await;
        app.drain_jobs().await;
        let m = app.mail_to(&sink, &email, "reset-password?code=").await;
        reads_right(&app, &m, lang, None).await;

        // An admin's notification, sent without a language: in the one the person signed up in.
        let person = app.bearer(&jwt).get(&format!("{AUTH}/me")).await;
        let person = person.data()["id"].as_str().unwrap().to_owned();
        let r = app
            .post(
                &format!("/api/rbac/subjects/{person}/notify"),
                &json!({"notification": {"topic": {"slug": "information"}, "template": {"variant": "default"},
                    "notification": {"data": {"url": app.url(&format!("/{lang}/rbac/subjects/settings"))}}}}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let m = app.mail_to(&sink, &email, "/rbac/subjects/settings").await;
        reads_right(&app, &m, lang, Some(&jwt)).await;

        // An order paid by a guest who typed an address: the buyer's mail and the admins'.
        let g = post_in(&app, lang, None, &format!("{AUTH}/init"), &json!({})).await;
        let gjwt = g["data"]["jwt"].as_str().unwrap().to_owned();
        let me = app.bearer(&gjwt).get(&format!("{AUTH}/me")).await;
        let subject = me.data()["id"].as_str().unwrap().to_owned();
        let orders = crate::commerce::orders(&subject);
        let o = post_in(
            &app,
            lang,
            Some(&gjwt),
            &orders,
            &json!({"productId": catalog.tree, "quantity": 2}),
        )
        .await;
        let order = o["data"]["id"].as_str().unwrap().to_owned();
        let buyer = format!("{lang}-buyer@example.com");
        post_in(
            &app,
            lang,
            Some(&gjwt),
            &format!("{orders}/checkout"),
            &json!({"provider": "dummy", "email": buyer, "language": lang, "ecommerceModule": {"orders": [{"id": order}]}}),
        )
        .await;
        for _ in 0..5 {
            app.drain_jobs().await;
        }
        let row = crate::commerce::order_row(&app, &order).await;
        let number = row["number"].as_i64().expect("a number once checked out");
        assert!(number >= 1001, "{row}");
        let m = app.mail_to(&sink, &buyer, &format!("№ {number}")).await;
        let text = reads_right(&app, &m, lang, Some(&gjwt)).await;
        assert!(
            text.contains(&format!("/{lang}/ecommerce/orders/{order}")),
            "the buyer's mail links the order's page: {text}"
        );
        let m = app
            .mail_to(&sink, "boss@example.com", &format!("№ {number}"))
            .await;
        let text = reads_right(&app, &m, "en", Some(&admin.jwt)).await;
        assert!(text.contains(&buyer), "the admins learn who bought: {text}");

        // A form sent by a visitor: the admins' mail and the sender's confirmation.
        let sender = format!("{lang}-sender@example.com");
        post_in(
            &app,
            lang,
            None,
            &format!("/api/crm/forms/{form}/requests"),
            &json!({"contact-name": "Ann", "contact-email": sender}),
        )
        .await;
        app.drain_jobs().await;
        let m = app.mail_to(&sink, &sender, "").await;
        reads_right(&app, &m, lang, None).await;
        let m = app.mail_to(&sink, "boss@example.com", &sender).await;
        reads_right(&app, &m, "en", Some(&admin.jwt)).await;
    }
    // Every mail sent was MIME with both alternatives (the loop above read each kind).
    for m in sink.mails() {
        assert!(m.html().is_some(), "{}", m.raw);
    }
}
dual_test!(every_mail_reads_right, db);

/// Without a mail server, mail stays in the outbox and the admin reads it there as it would be
/// sent — the confirmation code included, since nothing else could show it.
async fn the_outbox_shows_unsent_mail_whole(db: Db) {
    let app = spawn_app_manual(db, |_| {}).await.expect("app");
    let a = app.register("new@example.com").await;
    assert!(!a.jwt.is_empty());
    app.drain_jobs().await;
    let (id, m) = outbox_message(&app, "new@example.com").await;
    assert_eq!(m["delivered"], json!(false));
    let text = m["text"].as_str().unwrap();
    assert!(
        text.contains("verify-email?identity=") && !text.contains("(sent only to the recipient)"),
        "{text}"
    );
    assert!(m["html"].as_str().unwrap().contains("<a href="), "{m}");
    assert!(
        m["links"][0]
            .as_str()
            .unwrap()
            .contains("/rbac/subject/verify-email"),
        "{m}"
    );
    // Not an admin's: the outbox is the admins'.
    let r = app
        .bearer(&a.jwt)
        .get(&format!("/api/notification/notifications/{id}/message"))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
}
dual_test!(the_outbox_shows_unsent_mail_whole, db);

/// With a mail server, an admin reading a queued mail does not see its one-time secret.
async fn the_outbox_hides_secrets_of_mail_that_is_sent(db: Db) {
    let sink = Sink::start().await;
    sink.refuse(100);
    let app = app_mailing_to(db, &sink, |c| {
        c.notify_attempts = 5;
        c.notify_backoff = 3600;
    })
    .await;
    app.register("new@example.com").await;
    app.drain_jobs().await;
    let (id, m) = outbox_message(&app, "new@example.com").await;
    let text = m["text"].as_str().unwrap();
    assert!(text.contains("(sent only to the recipient)"), "{text}");
    assert!(!text.contains("verify-email?identity="), "{text}");
    // Nowhere in the answer either (no field of it carries the secret as kept).
    let whole = m.to_string();
    assert!(!whole.contains("verify-email?identity="), "{whole}");
    // A Russian mail says so in Russian.
    let r = app
        .send(
            app.plain
                .post(app.url(&format!("{AUTH}/email-and-password/registration")))
                .header("accept-language", "ru")
                .json(
                    &json!({"login": "ru@example.com", "password": stoa_testkit::users::PASSWORD}),
                ),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    app.drain_jobs().await;
    let (_, ru) = outbox_message(&app, "ru@example.com").await;
    let ru = ru["text"].as_str().unwrap();
    assert!(
        ru.contains("(отправлено только адресату)") && !ru.contains("sent only"),
        "{ru}"
    );
    // Once sent the secret is gone, and the outbox still says where it stood (not an empty gap).
    sink.refuse(0);
    let r = app
        .post(
            &format!("/api/notification/notifications/{id}/send"),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let sent = app
        .mail_to(&sink, "new@example.com", "verify-email?identity=")
        .await;
    let (_, m) = outbox_message(&app, "new@example.com").await;
    assert_eq!(m["status"], json!("sent"));
    let text = m["text"].as_str().unwrap();
    let code = sent.confirmation_code().expect("the mail had its code");
    assert!(!text.contains(&code), "the sent code is not kept: {text}");
    assert!(text.contains("(sent only to the recipient)"), "{text}");
}
dual_test!(the_outbox_hides_secrets_of_mail_that_is_sent, db);
