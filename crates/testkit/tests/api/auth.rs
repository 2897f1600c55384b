//! Accounts and sessions, end to end on both databases: journeys, reset by mail through a local
//! SMTP sink, wallet sign-in with real secp256k1 signatures, token tampering, refresh rotation,
//! cookies and CSRF, rate limits.

use std::str::FromStr;
use std::time::Duration;

use k256::ecdsa::SigningKey;
use serde_json::{Value, json};
use sha3::{Digest, Keccak256};
use stoa_testkit::smtp::Sink;
use stoa_testkit::users::{AUTH, PASSWORD};
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_with};
use time::OffsetDateTime;

fn p(path: &str) -> String {
    format!("{AUTH}/{path}")
}

async fn refresh(app: &TestApp, token: &str) -> stoa_testkit::Res {
    app.anon()
        .post(&p("refresh"), &json!({"refresh": token}))
        .await
}

async fn journey(app: TestApp) {
    let a = app.register("Journey@Example.com ").await;
    assert_eq!(a.email, "Journey@Example.com ");
    let me = app.as_account(&a).get(&p("me")).await;
    assert_eq!(me.status, 200);
    assert_eq!(
        me.data()["identities"][0]["email"],
        "journey@example.com",
        "email normalised"
    );
    assert_eq!(me.data()["roles"][0]["slug"], "user");
    assert_eq!(me.header("cache-control"), Some("no-store"));
    let r = refresh(&app, &a.refresh).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let (jwt2, refresh2) = (
        r.data()["jwt"].as_str().unwrap().to_owned(),
        r.data()["refresh"].as_str().unwrap().to_owned(),
    );
    assert_ne!(refresh2, a.refresh);
    let out = app.bearer(&jwt2).post(&p("logout"), &json!({})).await;
    assert_eq!(out.status, 200, "{}", out.text);
    assert_eq!(
        refresh(&app, &refresh2).await.status,
        401,
        "refresh after logout"
    );
    assert_eq!(
        refresh(&app, &a.refresh).await.status,
        401,
        "the old refresh"
    );
    assert_eq!(
        app.bearer(&jwt2).get(&p("me")).await.status,
        401,
        "access after logout"
    );
    // Anonymous `me` is null, not an error.
    let anon = app.anon().get(&p("me")).await;
    assert_eq!((anon.status, anon.data().clone()), (200, Value::Null));
    // Signing in again works.
    app.login("journey@example.com", PASSWORD).await;
}
dual_test!(journey);

async fn failures_look_alike(app: TestApp) {
    app.register("same@example.com").await;
    let wrong = app
        .anon()
        .post(
            &p("email-and-password/authentication"),
            &json!({"login": "same@example.com", "password": "not-the-password-1"}),
        )
        .await;
    let unknown = app
        .anon()
        .post(
            &p("email-and-password/authentication"),
            &json!({"login": "nobody@example.com", "password": "not-the-password-1"}),
        )
        .await;
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.status, unknown.status);
    let strip = |mut v: Value| {
        v.as_object_mut().map(|m| m.remove("requestId"));
        v
    };
    assert_eq!(strip(wrong.body.clone()), strip(unknown.body.clone()));
    // Forgot-password answers the same for both.
    let f1 = app
        .anon()
        .post(
            &p("email-and-password/forgot-password"),
            &json!({"email": "same@example.com"}),
        )
        .await;
    let f2 = app
        .anon()
        .post(
            &p("email-and-password/forgot-password"),
            &json!({"email": "nobody@example.com"}),
        )
        .await;
    assert_eq!(
        (f1.status, f1.data().clone()),
        (f2.status, f2.data().clone())
    );
    assert_eq!(f1.status, 201);
}
dual_test!(failures_look_alike);

async fn registration_rules(app: TestApp) {
    let reg = |body: Value| {
        let app = &app;
        async move {
            app.anon()
                .post(&p("email-and-password/registration"), &body)
                .await
        }
    };
    assert_eq!(
        reg(json!({"login": "r1@example.com", "password": PASSWORD, "roles": ["admin"]}))
            .await
            .status,
        403
    );
    assert_eq!(
        reg(json!({"login": "r1@example.com", "password": PASSWORD, "roles": [{"slug": "user"}]}))
            .await
            .status,
        201
    );
    assert_eq!(
        reg(json!({"login": "R1@example.com", "password": PASSWORD}))
            .await
            .status,
        409
    );
    let short = reg(json!({"login": "r2@example.com", "password": "short"})).await;
    assert_eq!(short.status, 422);
    assert!(
        short.body["fields"]["password"].is_array(),
        "{}",
        short.text
    );
    assert_eq!(
        reg(json!({"login": "r2@example.com", "password": "password123"}))
            .await
            .status,
        422,
        "common password"
    );
    assert_eq!(
        reg(json!({"login": "r2@example.com", "password": "x".repeat(129)}))
            .await
            .status,
        400
    );
    assert_eq!(
        reg(json!({"login": "not-an-email", "password": PASSWORD}))
            .await
            .status,
        422
    );
    // The admin role is never granted by registration.
    let a = app.login("r1@example.com", PASSWORD).await;
    assert_eq!(
        app.as_account(&a).get("/api/rbac/permissions").await.status,
        403
    );
}
dual_test!(registration_rules);

async fn reset_by_mail(db: Db) {
    let sink = Sink::start().await;
    let url = sink.url.clone();
    let Some(app) = spawn_app_with(db, |c| c.smtp_url = Some(url)).await else {
        return eprintln!("skipped: no PostgreSQL");
    };
    let a = app.register("reset@example.com").await;
    let other = app.login("reset@example.com", PASSWORD).await;
    let r = app
        .anon()
        .send_with_lang(
            &p("email-and-password/forgot-password"),
            &json!({"email": "reset@example.com"}),
            "ru",
        )
        .await;
    assert_eq!(r.status, 201);
    let mail = sink.wait_for("reset@example.com").await;
    let text = mail.text();
    assert!(
        text.contains("Сброс") || text.contains("пароль"),
        "Russian template: {text}"
    );
    let code = text
        .split("code=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("a reset link")
        .to_owned();
    let reset = |code: String, pw: &str, confirm: &str| {
        let app = &app;
        let body = json!({"code": code, "password": pw, "passwordConfirmation": confirm});
        async move {
            app.anon()
                .post(&p("email-and-password/reset-password"), &body)
                .await
        }
    };
    let new_pw = "quiet-harbour-42-teapot";
    assert_eq!(
        reset(code.clone(), new_pw, "something-else-entirely")
            .await
            .status,
        422
    );
    let ok = reset(code.clone(), new_pw, new_pw).await;
    assert_eq!(ok.status, 201, "{}", ok.text);
    assert_eq!(
        reset(code.clone(), new_pw, new_pw).await.status,
        400,
        "single use"
    );
    for t in [&a.refresh, &other.refresh] {
        assert_eq!(refresh(&app, t).await.status, 401, "sessions die on reset");
    }
    assert_eq!(app.as_account(&other).get(&p("me")).await.status, 401);
    app.login("reset@example.com", new_pw).await;
    // The notification is in the outbox, sent, without the link.
    let n = app.get("/api/notification/notifications").await;
    assert_eq!(n.data()[0]["status"], "sent", "{}", n.text);
    assert!(!n.text.contains(&code));

    // At most five attempts per code.
    app.anon()
        .post(
            &p("email-and-password/forgot-password"),
            &json!({"email": "reset@example.com"}),
        )
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let code2 = loop {
        let c = sink
            .mails()
            .iter()
            .filter_map(|m| {
                m.text()
                    .split("code=")
                    .nth(1)
                    .and_then(|s| s.split_whitespace().next())
                    .map(str::to_owned)
            })
            .find(|c| *c != code);
        if let Some(c) = c {
            break c;
        }
        assert!(tokio::time::Instant::now() < deadline, "second mail");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (id, _) = code2.split_once('.').unwrap();
    for _ in 0..5 {
        assert_eq!(
            reset(format!("{id}.wrongwrongwrongwrongwr"), new_pw, new_pw)
                .await
                .status,
            400
        );
    }
    assert_eq!(
        reset(code2, "another-fine-password-9", "another-fine-password-9")
            .await
            .status,
        400,
        "locked after 5 attempts"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_by_mail_sqlite() {
    reset_by_mail(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_by_mail_postgres() {
    reset_by_mail(Db::Postgres).await;
}

async fn identities(app: TestApp) {
    let a = app.register("ids@example.com").await;
    let other = app.login("ids@example.com", PASSWORD).await;
    let me = app.as_account(&a);
    let list = me
        .get(&format!("/api/rbac/subjects/{}/identities", a.id))
        .await;
    assert_eq!(list.status, 200, "{}", list.text);
    let iid = list.data()[0]["id"].as_str().unwrap().to_owned();
    let item = format!("/api/rbac/subjects/{}/identities/{iid}", a.id);
    // Change password: the current one is required.
    let bad = me
        .patch(
            &item,
            &json!({"password": "wrong-password-123", "newPassword": "brand-new-secret-77"}),
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    let good = me
        .patch(
            &item,
            &json!({"password": PASSWORD, "newPassword": "brand-new-secret-77"}),
        )
        .await;
    assert_eq!(good.status, 200, "{}", good.text);
    assert_eq!(
        refresh(&app, &other.refresh).await.status,
        401,
        "other sessions end"
    );
    assert_eq!(me.get(&p("me")).await.status, 200, "this session stays");
    // Change email: the password is required.
    assert_eq!(
        me.patch(
            &item,
            &json!({"email": "new@example.com", "password": "wrong-password-123"})
        )
        .await
        .status,
        422
    );
    assert_eq!(
        me.patch(
            &item,
            &json!({"email": "New@Example.com", "password": "brand-new-secret-77"})
        )
        .await
        .status,
        200
    );
    app.login("new@example.com", "brand-new-secret-77").await;
    // The identity route's change-password.
    let cp = me
        .patch(
            &format!("/api/rbac/identities/{iid}/change-password"),
            &json!({"password": "brand-new-secret-77", "newPassword": "third-secret-word-5"}),
        )
        .await;
    assert_eq!(cp.status, 200, "{}", cp.text);
    // The last identity cannot go.
    let del = me.delete(&item).await;
    assert_eq!(del.status, 409, "{}", del.text);
    // With a wallet linked, the email identity can go.
    let key = wallet_key(1);
    let (message, sig) = sign_in_message(&app, &key, |_| {}).await;
    let linked = me
        .post(&format!("/api/rbac/subjects/{}/identities", a.id), &json!({"provider": "ethereum_virtual_machine", "message": message, "signature": sig, "address": address(&key)}))
        .await;
    assert_eq!(linked.status, 201, "{}", linked.text);
    // The account's address is told (the outbox holds the notice; no SMTP here).
    let told = app
        .get("/api/notification/notifications?filters[and][0][column]=reciever&filters[and][0][method]=eq&filters[and][0][value]=new@example.com")
        .await;
    assert!(
        told.data()
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["title"] == "A wallet was linked to your account"),
        "{}",
        told.text
    );
    assert_eq!(me.delete(&item).await.status, 200);
    assert_eq!(
        me.get(&format!("/api/rbac/subjects/{}/identities", a.id))
            .await
            .data()
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}
dual_test!(identities);

// ---- wallet --------------------------------------------------------------------------------

fn wallet_key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed.max(1); 32].into()).unwrap()
}

fn address_bytes(key: &SigningKey) -> [u8; 20] {
    let point = key.verifying_key().to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    hash[12..].try_into().unwrap()
}

fn address(key: &SigningKey) -> String {
    format!("0x{}", hex::encode(address_bytes(key)))
}

fn sign(msg: &siwe::Message, key: &SigningKey) -> String {
    let hash = msg.eip191_hash().unwrap();
    let (sig, rec) = key.sign_prehash_recoverable(&hash).unwrap();
    let mut bytes = sig.to_bytes().to_vec();
    bytes.push(rec.to_byte() + 27);
    format!("0x{}", hex::encode(bytes))
}

/// A fresh nonce from the server, a message for this site (changed by `edit`), signed by `key`.
async fn sign_in_message(
    app: &TestApp,
    key: &SigningKey,
    edit: impl FnOnce(&mut siwe::Message),
) -> (String, String) {
    let n = app
        .anon()
        .post(&p("ethereum-virtual-machine/nonce"), &json!({}))
        .await;
    assert_eq!(n.status, 201, "{}", n.text);
    let d = n.data();
    let mut msg = siwe::Message {
        domain: d["domain"].as_str().unwrap().parse().unwrap(),
        address: address_bytes(key),
        statement: Some("Sign in to Stoa".into()),
        uri: d["uri"].as_str().unwrap().parse().unwrap(),
        version: siwe::Version::V1,
        chain_id: 1,
        nonce: d["nonce"].as_str().unwrap().to_owned(),
        issued_at: siwe::TimeStamp::from(OffsetDateTime::now_utc()),
        expiration_time: Some(siwe::TimeStamp::from(
            OffsetDateTime::now_utc() + Duration::from_secs(300),
        )),
        not_before: None,
        request_id: None,
        resources: vec![],
    };
    edit(&mut msg);
    let sig = sign(&msg, key);
    (msg.to_string(), sig)
}

async fn wallet_sign_in(app: TestApp) {
    let key = wallet_key(7);
    let addr = address(&key);
    let login = |message: String, signature: String, address: String| {
        let app = &app;
        async move {
            app.anon()
                .post(
                    &p("ethereum-virtual-machine"),
                    &json!({"message": message, "signature": signature, "address": address}),
                )
                .await
        }
    };
    let (m, s) = sign_in_message(&app, &key, |_| {}).await;
    let ok = login(m.clone(), s.clone(), addr.clone()).await;
    assert_eq!(ok.status, 201, "{}", ok.text);
    let first = app
        .bearer(ok.data()["jwt"].as_str().unwrap())
        .get(&p("me"))
        .await;
    assert_eq!(first.data()["identities"][0]["account"], addr);
    // Same wallet again: the same subject.
    let (m2, s2) = sign_in_message(&app, &key, |_| {}).await;
    let again = login(m2, s2, addr.clone()).await;
    assert_eq!(again.status, 201);
    assert_eq!(
        app.bearer(again.data()["jwt"].as_str().unwrap())
            .get(&p("me"))
            .await
            .data()["id"],
        first.data()["id"]
    );
    // Replay.
    assert_eq!(
        login(m.clone(), s.clone(), addr.clone()).await.status,
        401,
        "replay"
    );
    // Unknown nonce.
    let (m, s) = sign_in_message(&app, &key, |x| x.nonce = "abcdefgh12345678".into()).await;
    assert_eq!(login(m, s, addr.clone()).await.status, 401, "unknown nonce");
    // Wrong domain, wrong URI, wrong chain.
    let (m, s) = sign_in_message(&app, &key, |x| x.domain = "evil.example".parse().unwrap()).await;
    assert_eq!(login(m, s, addr.clone()).await.status, 401, "domain");
    let (m, s) = sign_in_message(&app, &key, |x| {
        x.uri = iri_string::types::UriString::from_str("https://evil.example/").unwrap()
    })
    .await;
    assert_eq!(login(m, s, addr.clone()).await.status, 401, "uri");
    for chain in [5u64, 137] {
        let (m, s) = sign_in_message(&app, &key, |x| x.chain_id = chain).await;
        assert_eq!(login(m, s, addr.clone()).await.status, 401, "chain {chain}");
    }
    let (m, s) = sign_in_message(&app, &key, |x| x.chain_id = 11_155_111).await;
    assert_eq!(login(m, s, addr.clone()).await.status, 201, "Sepolia");
    // Expired message.
    let (m, s) = sign_in_message(&app, &key, |x| {
        x.expiration_time = Some(siwe::TimeStamp::from(
            OffsetDateTime::now_utc() - Duration::from_secs(1),
        ))
    })
    .await;
    assert_eq!(
        login(m, s.clone(), addr.clone()).await.status,
        401,
        "expired"
    );
    // Signed by another key.
    let other = wallet_key(9);
    let (m, _) = sign_in_message(&app, &key, |_| {}).await;
    let parsed = siwe::Message::from_str(&m).unwrap();
    assert_eq!(
        login(m, sign(&parsed, &other), addr.clone()).await.status,
        401,
        "other signer"
    );
    // A 100 KB message.
    let big = login("x".repeat(100 * 1024), s.clone(), addr.clone()).await;
    assert!((400..500).contains(&big.status), "{}", big.status);
    // Garbage.
    assert_eq!(
        login("hello".into(), "0x00".into(), addr.clone())
            .await
            .status,
        400
    );
    // A wallet linked to one subject cannot be linked to another.
    let b = app.register("wallet-b@example.com").await;
    let (m, s) = sign_in_message(&app, &key, |_| {}).await;
    let link = app
        .as_account(&b)
        .post(&format!("/api/rbac/subjects/{}/identities", b.id), &json!({"provider": "ethereum-virtual-machine", "message": m, "signature": s, "address": addr}))
        .await;
    assert_eq!(link.status, 409, "{}", link.text);
}
dual_test!(wallet_sign_in);

// ---- tokens --------------------------------------------------------------------------------

#[derive(serde::Serialize)]
struct Claims {
    sub: String,
    sid: String,
    iat: i64,
    exp: i64,
    typ: &'static str,
    subject: Value,
}

async fn tampered_tokens(app: TestApp) {
    let a = app.register("jwt@example.com").await;
    let me = |t: String| {
        let app = &app;
        async move { app.bearer(&t).get(&p("me")).await.status }
    };
    assert_eq!(me(a.jwt.clone()).await, 200);
    let parts: Vec<&str> = a.jwt.split('.').collect();
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let none = format!(
        "{}.{}.",
        b64.encode(br#"{"alg":"none","typ":"JWT"}"#),
        parts[1]
    );
    assert_eq!(me(none).await, 401, "alg none");
    let claims = serde_json::from_slice::<Value>(&b64.decode(parts[1]).unwrap()).unwrap();
    let now = OffsetDateTime::now_utc().unix_timestamp();
    let forge = |key: &[u8], exp: i64| {
        let c = Claims {
            sub: a.id.clone(),
            sid: claims["sid"].as_str().unwrap().to_owned(),
            iat: now - 100,
            exp,
            typ: "access",
            subject: json!({"id": a.id}),
        };
        jsonwebtoken::encode(
            &jsonwebtoken::Header::default(),
            &c,
            &jsonwebtoken::EncodingKey::from_secret(key),
        )
        .unwrap()
    };
    assert_eq!(
        me(forge(app.jwt_secret.as_bytes(), now + 600)).await,
        200,
        "a well-made token passes"
    );
    assert_eq!(
        me(forge(b"another-key-another-key-another-key!", now + 600)).await,
        401,
        "wrong key"
    );
    assert_eq!(
        me(forge(app.jwt_secret.as_bytes(), now - 1)).await,
        401,
        "expired"
    );
    let hs512 = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS512),
        &Claims {
            sub: a.id.clone(),
            sid: claims["sid"].as_str().unwrap().to_owned(),
            iat: now,
            exp: now + 600,
            typ: "access",
            subject: json!({"id": a.id}),
        },
        &jsonwebtoken::EncodingKey::from_secret(app.jwt_secret.as_bytes()),
    )
    .unwrap();
    assert_eq!(me(hs512).await, 401, "algorithm pinned");
    assert_eq!(
        me(a.refresh.clone()).await,
        401,
        "a refresh token is not an access token"
    );
    assert_eq!(me("garbage".into()).await, 401);
}
dual_test!(tampered_tokens);

async fn refresh_reuse_revokes_the_family(app: TestApp) {
    let a = app.register("reuse@example.com").await;
    let r2 = refresh(&app, &a.refresh).await;
    assert_eq!(r2.status, 201);
    let t2 = r2.data()["refresh"].as_str().unwrap().to_owned();
    let j2 = r2.data()["jwt"].as_str().unwrap().to_owned();
    assert_eq!(refresh(&app, &a.refresh).await.status, 401, "a spent token");
    assert_eq!(
        refresh(&app, &t2).await.status,
        401,
        "its successor is revoked too"
    );
    assert_eq!(
        app.bearer(&j2).get(&p("me")).await.status,
        401,
        "and the access token"
    );
    // Other sessions of the account are untouched.
    let b = app.login("reuse@example.com", PASSWORD).await;
    assert_eq!(refresh(&app, &b.refresh).await.status, 201);
}
dual_test!(refresh_reuse_revokes_the_family);

async fn deleted_subjects_lose_access(app: TestApp) {
    let a = app.register("gone@example.com").await;
    assert_eq!(
        app.delete(&format!("/api/rbac/subjects/{}", a.id))
            .await
            .status,
        200
    );
    assert_eq!(app.as_account(&a).get(&p("me")).await.status, 401);
    assert_eq!(refresh(&app, &a.refresh).await.status, 401);
}
dual_test!(deleted_subjects_lose_access);

async fn cookies_and_csrf(app: TestApp) {
    let r = app
        .anon()
        .post(
            &p("email-and-password/registration"),
            &json!({"login": "cookie@example.com", "password": PASSWORD}),
        )
        .await;
    let cookies: Vec<&str> = r
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    for c in &cookies {
        assert!(
            c.contains("HttpOnly") && c.contains("SameSite=Lax") && c.contains("Path=/"),
            "{c}"
        );
        assert!(!c.contains("Secure"), "plain http: {c}");
    }
    let jwt = r.data()["jwt"].as_str().unwrap();
    let id = app.bearer(jwt).get(&p("me")).await.data()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cookie = format!("rbac.subject.jwt={jwt}");
    let path = format!("/api/rbac/subjects/{id}/identities");
    let get = app
        .send(app.plain.get(app.url(&path)).header("cookie", &cookie))
        .await;
    assert_eq!(get.status, 200, "cookie auth: {}", get.text);
    let foreign = app
        .send(
            app.plain
                .post(app.url(&path))
                .header("cookie", &cookie)
                .header("origin", "https://evil.example")
                .json(&json!({"provider": "email_and_password"})),
        )
        .await;
    assert_eq!(foreign.status, 403, "{}", foreign.text);
    let missing = app
        .send(
            app.plain
                .post(app.url(&path))
                .header("cookie", &cookie)
                .json(&json!({"provider": "email_and_password"})),
        )
        .await;
    assert_eq!(missing.status, 403, "no Origin");
    let same = app
        .send(
            app.plain
                .post(app.url(&path))
                .header("cookie", &cookie)
                .header("origin", &app.base)
                .json(&json!({"provider": "email_and_password"})),
        )
        .await;
    assert_eq!(
        same.status, 422,
        "same origin passes to validation: {}",
        same.text
    );
    // Behind https the cookies are Secure.
    let r = app
        .send(
            app.plain
                .post(app.url(&p("email-and-password/authentication")))
                .header("x-forwarded-proto", "https")
                .json(&json!({"login": "cookie@example.com", "password": PASSWORD})),
        )
        .await;
    assert!(
        r.headers
            .get_all("set-cookie")
            .iter()
            .all(|v| v.to_str().unwrap_or("").contains("Secure"))
    );
    // Logout clears both cookies.
    let out = app
        .send(app.plain.post(app.url(&p("logout"))).bearer_auth(jwt))
        .await;
    assert_eq!(out.status, 200);
    assert!(
        out.headers
            .get_all("set-cookie")
            .iter()
            .all(|v| v.to_str().unwrap_or("").contains("Max-Age=0"))
    );
}
dual_test!(cookies_and_csrf);

/// Login CSRF: a page on another site cannot sign the visitor in as someone else. Unsafe
/// requests that say they come from another site are refused with or without a cookie, and the
/// credential routes read JSON only.
async fn sign_in_from_another_site_is_refused(app: TestApp) {
    app.register("csrf-attacker@example.com").await;
    let url = app.url(&p("email-and-password/authentication"));
    let creds = json!({"login": "csrf-attacker@example.com", "password": PASSWORD});
    let form = format!("login=csrf-attacker%40example.com&password={PASSWORD}");
    // The classic attack: a form posted from the attacker's page.
    let r = app
        .send(
            app.plain
                .post(&url)
                .header("origin", "https://evil.example")
                .header("sec-fetch-site", "cross-site")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form.clone()),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert!(r.headers.get("set-cookie").is_none());
    for (origin, site) in [
        (Some("https://evil.example"), None),
        (Some("null"), None),
        (None, Some("cross-site")),
        (None, Some("same-site")),
        (Some(app.base.as_str()), Some("cross-site")),
    ] {
        let mut req = app.plain.post(&url).json(&creds);
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        if let Some(s) = site {
            req = req.header("sec-fetch-site", s);
        }
        let r = app.send(req).await;
        assert_eq!(r.status, 403, "{origin:?} {site:?}: {}", r.text);
    }
    // Not JSON: refused before it is read, whoever sends it.
    for ct in [
        "application/x-www-form-urlencoded",
        "text/plain",
        "multipart/form-data; boundary=x",
    ] {
        let r = app
            .send(
                app.plain
                    .post(&url)
                    .header("content-type", ct)
                    .body(creds.to_string()),
            )
            .await;
        assert_eq!(r.status, 415, "{ct}: {}", r.text);
    }
    let r = app.send(app.plain.post(&url).body(creds.to_string())).await;
    assert_eq!(r.status, 415, "no content type: {}", r.text);
    // This site's own page, and a script or server (no browser headers): signed in.
    for req in [
        app.plain
            .post(&url)
            .header("origin", &app.base)
            .header("sec-fetch-site", "same-origin")
            .json(&creds),
        app.plain.post(&url).json(&creds),
    ] {
        let r = app.send(req).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    // Any other write from another site, signed out: refused too.
    let r = app
        .send(
            app.plain
                .post(app.url("/api/crm/forms/00000000-0000-0000-0000-000000000000/requests"))
                .header("sec-fetch-site", "cross-site")
                .json(&json!({})),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
}
dual_test!(sign_in_from_another_site_is_refused);

async fn secret_key(app: TestApp) {
    let key = app.secret_key.clone();
    let with = |k: &str| {
        app.plain
            .get(app.url("/api/rbac/identities"))
            .header("x-rbac-secret-key", k.to_owned())
    };
    assert_eq!(app.send(with(&key)).await.status, 200);
    assert_eq!(app.send(with("wrong")).await.status, 401);
    assert_eq!(app.anon().get("/api/rbac/identities").await.status, 401);
    // Never from a cookie.
    let c = app
        .send(
            app.plain
                .get(app.url("/api/rbac/identities"))
                .header("cookie", format!("rbac.secret-key={key}")),
        )
        .await;
    assert_eq!(c.status, 401);
}
dual_test!(secret_key);

async fn rate_limited(db: Db) {
    // A window far longer than the test: no slot refills while it runs, so the count is exact
    // however slow the machine.
    let Some(app) = spawn_app_with(db, |c| {
        c.auth_rate_burst = 10;
        c.auth_rate_window = 600;
    })
    .await
    else {
        return eprintln!("skipped: no PostgreSQL");
    };
    // Registration itself counts: one request.
    app.register("limited@example.com").await;
    let wrong = json!({"login": "limited@example.com", "password": "wrong-password-000"});
    let mut limited = 0;
    for _ in 0..20 {
        let r = app
            .anon()
            .post(&p("email-and-password/authentication"), &wrong)
            .await;
        assert!(r.status == 401 || r.status == 429, "{}", r.text);
        if r.status == 429 {
            limited += 1;
            let retry: u64 = r
                .header("retry-after")
                .and_then(|v| v.parse().ok())
                .expect("Retry-After");
            assert!((1..=60).contains(&retry), "{retry}");
        }
    }
    assert_eq!(limited, 11, "{limited} of 20 were limited");
    // The limit comes before the body: over the limit, an oversized body (a 413 otherwise) is
    // answered 429. Sent by hand, headers only: the server answers without reading the body, and
    // a client still writing 3 MB could see the closed connection before the answer.
    let mut conn = app
        .raw(&format!(
            "POST {} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{{\"login\":\"",
            p("email-and-password/authentication"),
            3 << 20
        ))
        .await;
    let head = stoa_testkit::read_head(&mut conn).await;
    assert!(head.starts_with("HTTP/1.1 429"), "{head}");
    // The limit lifts by itself.
    let Some(quick) = spawn_app_with(db, |c| {
        c.auth_rate_burst = 2;
        c.auth_rate_window = 2;
    })
    .await
    else {
        return;
    };
    quick.register("lifts@example.com").await;
    let mut tries = 0;
    while quick
        .anon()
        .post(&p("email-and-password/authentication"), &wrong)
        .await
        .status
        != 429
    {
        tries += 1;
        assert!(tries < 50, "never limited");
    }
    tokio::time::sleep(Duration::from_millis(2100)).await;
    quick.login("lifts@example.com", PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_sqlite() {
    rate_limited(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_postgres() {
    rate_limited(Db::Postgres).await;
}
