//! Sign in with an OpenID Connect provider, end to end on SQLite and PostgreSQL against a local
//! fake provider (discovery, JWKS, authorize, token; `stoa_fakes::oidc`): the code flow with
//! PKCE, state and nonce; a tampered, foreign or expired ID token, a wrong nonce and a replayed or
//! forged state refused; and the account rules — a returning subject, linking by a confirmed
//! address only, linking from a signed-in session, never by an unverified address.

use std::collections::HashMap;

use serde_json::Value;
use stoa_fakes::oidc::{OidcFake, Tamper};
use stoa_kernel::value::{Val, now};
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_manual};

const START: &str = "/api/rbac/subjects/authentication/oidc/start";

async fn app(db: Db, fake: &OidcFake) -> TestApp {
    let (issuer, id, secret) = (
        fake.issuer.clone(),
        fake.client_id.clone(),
        fake.client_secret.clone(),
    );
    spawn_app_manual(db, move |c| {
        c.oidc_issuer = Some(issuer);
        c.oidc_client_id = Some(id);
        c.oidc_client_secret = Some(secret);
        c.oidc_name = Some("Example ID".into());
    })
    .await
    .expect("app")
}

/// A browser: follows nothing by itself, keeps cookies by name.
struct Browser {
    client: reqwest::Client,
    cookies: HashMap<String, String>,
}

struct Hop {
    status: u16,
    location: String,
}

impl Browser {
    fn new() -> Self {
        Self {
            client: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: HashMap::new(),
        }
    }

    async fn get(&mut self, url: &str) -> Hop {
        let cookie = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ");
        let mut req = self.client.get(url);
        if !cookie.is_empty() {
            req = req.header("cookie", cookie);
        }
        let res = req.send().await.unwrap();
        for c in res.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap();
            let (pair, rest) = c.split_once(';').unwrap_or((c, ""));
            let (k, v) = pair.split_once('=').unwrap();
            if v.is_empty() || rest.contains("Max-Age=0") {
                self.cookies.remove(k);
            } else {
                self.cookies.insert(k.to_owned(), v.to_owned());
            }
        }
        Hop {
            status: res.status().as_u16(),
            location: res
                .headers()
                .get("location")
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default(),
        }
    }

    fn jwt(&self) -> Option<&String> {
        self.cookies.get("rbac.subject.jwt")
    }
}

/// Starts a flow in `b` (with `query`) and follows it to the provider and back: the callback's
/// answer, and the callback URL (to replay).
async fn sign_in(app: &TestApp, b: &mut Browser, query: &str) -> (Hop, String) {
    let start = b.get(&app.url(&format!("{START}?{query}"))).await;
    assert_eq!(start.status, 302, "start: {}", start.location);
    assert!(b.cookies.contains_key("stoa_oidc"), "the flow's cookie");
    let at_provider = b.get(&start.location).await;
    assert_eq!(at_provider.status, 302, "the fake's authorize");
    let callback = at_provider.location.clone();
    assert!(
        callback.starts_with(&app.url("/api/rbac/subjects/authentication/oidc/callback?")),
        "{callback}"
    );
    (b.get(&callback).await, callback)
}

fn refused(hop: &Hop) -> String {
    assert_eq!(hop.status, 302);
    let q = hop
        .location
        .split_once('?')
        .map(|x| x.1)
        .unwrap_or_default();
    form_urlencoded::parse(q.as_bytes())
        .find(|(k, _)| k == "oidcError")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("not refused: {}", hop.location))
}

async fn me(app: &TestApp, jwt: &str) -> Value {
    let r = app
        .bearer(jwt)
        .get("/api/rbac/subjects/authentication/me")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.data().clone()
}

fn providers(me: &Value) -> Vec<String> {
    me["identities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["provider"].as_str().unwrap().to_owned())
        .collect()
}

async fn the_code_flow_signs_in_and_refuses_what_does_not_check(db: Db) {
    let fake = OidcFake::start().await.unwrap();
    let app = app(db, &fake).await;
    fake.set_user("sub-ada", Some("ada@example.com"), true);

    // First time: a new account, signed in, back on the page it started from.
    let mut b = Browser::new();
    let (hop, callback) = sign_in(&app, &mut b, "redirect=/ru/rbac/subject/profile&lang=ru").await;
    assert_eq!(hop.status, 302);
    assert_eq!(hop.location, "/ru/rbac/subject/profile");
    assert!(
        !b.cookies.contains_key("stoa_oidc"),
        "the flow's cookie is cleared"
    );
    let jwt = b.jwt().expect("signed in").clone();
    let first = me(&app, &jwt).await;
    assert_eq!(providers(&first), ["oidc"]);
    let identity = &first["identities"][0];
    assert_eq!(
        identity["account"], "ada@example.com",
        "named by the address, not issuer#subject"
    );
    assert_eq!(identity["email"], "ada@example.com");
    assert_eq!(fake.tokens_issued(), 1);

    // The same callback again (a replayed state): refused, nobody signed in.
    let mut replay = Browser::new();
    replay.cookies = b.cookies.clone();
    replay.cookies.remove("rbac.subject.jwt");
    replay.cookies.remove("rbac.subject.refresh");
    let again = replay.get(&callback).await;
    assert_eq!(refused(&again), "state");
    assert!(replay.jwt().is_none());

    // Second time: the same account.
    let mut b2 = Browser::new();
    let (hop, _) = sign_in(&app, &mut b2, "redirect=/en/").await;
    assert_eq!(hop.location, "/en/");
    assert_eq!(me(&app, b2.jwt().unwrap()).await["id"], first["id"]);

    // A callback carrying another state than the browser's flow: refused.
    let mut b3 = Browser::new();
    let start = b3.get(&app.url(&format!("{START}?redirect=/en/"))).await;
    let at = b3.get(&start.location).await;
    let forged = at.location.replace("state=", "state=x");
    assert_eq!(refused(&b3.get(&forged).await), "state");
    // And one with no flow cookie at all (another browser).
    let mut stranger = Browser::new();
    assert_eq!(refused(&stranger.get(&at.location).await), "state");

    // ID tokens that do not check: refused, nobody signed in.
    for t in [
        Tamper::WrongKey,
        Tamper::EditedPayload,
        Tamper::WrongNonce,
        Tamper::WrongAudience,
        Tamper::Expired,
        Tamper::WrongIssuer,
    ] {
        fake.set_tamper(t);
        let mut b = Browser::new();
        let (hop, _) = sign_in(&app, &mut b, "redirect=/en/&lang=en").await;
        assert_eq!(refused(&hop), "token", "{t:?}");
        assert!(
            hop.location
                .starts_with("/en/rbac/subject/authentication/select-method?"),
            "{}",
            hop.location
        );
        assert!(b.jwt().is_none(), "{t:?}: nobody signed in");
    }
    fake.set_tamper(Tamper::None);

    // A redirect elsewhere than this site is not followed after sign-in.
    let mut b4 = Browser::new();
    let (hop, _) = sign_in(&app, &mut b4, "redirect=//evil.example/&lang=ru").await;
    assert_eq!(hop.location, "/ru/");
    // Nor one a browser would read as another site once it drops a tab or reads a backslash.
    for evil in [
        "/%09/evil.example/",
        "/%5Cevil.example/",
        "/%0A/evil.example",
    ] {
        let mut b5 = Browser::new();
        let (hop, _) = sign_in(&app, &mut b5, &format!("redirect={evil}&lang=ru")).await;
        assert_eq!(hop.location, "/ru/", "{evil}");
    }
}
dual_test!(the_code_flow_signs_in_and_refuses_what_does_not_check, db);

/// Marks the email identity of `email` confirmed, around the API (as the mailed code would).
async fn confirm(app: &TestApp, email: &str) {
    let rows = app.rows_where("/api/rbac/identities", "email", email).await;
    let e = app.store.entity("rbac.identity").unwrap();
    for r in rows
        .iter()
        .filter(|r| r["provider"] == "email_and_password")
    {
        let id = uuid::Uuid::parse_str(r["id"].as_str().unwrap()).unwrap();
        let mut tx = app.store.begin().await.unwrap();
        stoa_store::repo::set_if(
            &mut tx.exec(),
            &e,
            id,
            &[("verifiedAt", Val::Timestamp(now()))],
            &[],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }
}

async fn accounts_are_linked_only_by_a_confirmed_address_or_from_a_session(db: Db) {
    let fake = OidcFake::start().await.unwrap();
    let app = app(db, &fake).await;

    // An account whose address was never confirmed: the provider's verified address does not
    // take it over; the sign-in is refused with the reason.
    let owner = app.register("grace@example.com").await;
    fake.set_user("sub-grace", Some("grace@example.com"), true);
    let mut b = Browser::new();
    let (hop, _) = sign_in(&app, &mut b, "redirect=/en/").await;
    assert_eq!(refused(&hop), "unconfirmed");
    assert!(b.jwt().is_none());

    // Confirmed: the same provider subject now signs in to that account, linked.
    confirm(&app, "grace@example.com").await;
    let mut b = Browser::new();
    let (hop, _) = sign_in(&app, &mut b, "redirect=/en/").await;
    assert_eq!(hop.location, "/en/");
    let m = me(&app, b.jwt().unwrap()).await;
    assert_eq!(
        m["id"].as_str(),
        Some(owner.id.as_str()),
        "linked to the confirmed account"
    );
    let mut p = providers(&m);
    p.sort();
    assert_eq!(p, ["email_and_password", "oidc"]);

    // An address the provider did not verify is not used: a new account.
    let victim = app.register("henry@example.com").await;
    confirm(&app, "henry@example.com").await;
    fake.set_user("sub-mallory", Some("henry@example.com"), false);
    let mut b = Browser::new();
    let (hop, _) = sign_in(&app, &mut b, "redirect=/en/").await;
    assert_eq!(hop.status, 302);
    let m = me(&app, b.jwt().unwrap()).await;
    assert_ne!(
        m["id"].as_str(),
        Some(victim.id.as_str()),
        "no takeover by an unverified address"
    );
    assert_eq!(providers(&m), ["oidc"]);
    assert!(
        m["identities"][0]["email"].is_null(),
        "an unverified address is not kept"
    );

    // From a signed-in session (a recent sign-in, a confirmed address): linked to that account.
    fake.set_user("sub-henry-work", Some("henry@work.example"), true);
    let mut b = Browser::new();
    b.cookies
        .insert("rbac.subject.jwt".into(), victim.jwt.clone());
    let (hop, _) = sign_in(&app, &mut b, "redirect=/en/rbac/subject/profile&link=1").await;
    assert_eq!(hop.location, "/en/rbac/subject/profile");
    let m = me(&app, &victim.jwt).await;
    let mut p = providers(&m);
    p.sort();
    assert_eq!(p, ["email_and_password", "oidc"]);
    // …and that provider account now signs in to it.
    let mut b = Browser::new();
    let (_, _) = sign_in(&app, &mut b, "redirect=/en/").await;
    assert_eq!(
        me(&app, b.jwt().unwrap()).await["id"].as_str(),
        Some(victim.id.as_str())
    );

    // A provider account linked to one account cannot be linked to another.
    let mut b = Browser::new();
    b.cookies
        .insert("rbac.subject.jwt".into(), owner.jwt.clone());
    let (hop, _) = sign_in(&app, &mut b, "redirect=/en/&link=1").await;
    assert_eq!(refused(&hop), "elsewhere");

    // Linking from a page elsewhere (a cross-site navigation) is refused.
    let r = app
        .send(
            app.plain
                .get(app.url(&format!("{START}?link=1")))
                .bearer_auth(&owner.jwt)
                .header("sec-fetch-site", "cross-site"),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);

    // Linking needs a session: anonymous, it is a 401.
    let r = app.anon().get(&format!("{START}?link=1")).await;
    assert_eq!(r.status, 401, "{}", r.text);
}
dual_test!(
    accounts_are_linked_only_by_a_confirmed_address_or_from_a_session,
    db
);

async fn without_a_provider_the_routes_are_not_there(db: Db) {
    let app = stoa_testkit::spawn_app(db).await.expect("app");
    let r = app.anon().get(START).await;
    assert_eq!(r.status, 404, "{}", r.text);
    let r = app
        .anon()
        .get("/api/rbac/subjects/authentication/oidc/callback?code=x&state=y&authuser=0")
        .await;
    assert_eq!(
        r.status, 404,
        "any query is taken, then: not configured: {}",
        r.text
    );
}
dual_test!(without_a_provider_the_routes_are_not_there, db);
