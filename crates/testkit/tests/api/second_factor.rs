//! Two-factor sign-in (TOTP, RFC 6238) with recovery codes, `STOA_ADMIN_2FA=required`, and the
//! account's sessions — on SQLite and PostgreSQL. Codes are computed here from the shown secret.

use serde_json::json;
use stoa_testkit::users::{Account, PASSWORD};
use stoa_testkit::{TestApp, dual_test};

const AUTH: &str = "/api/rbac/subjects/authentication";

fn code_at(secret: &str, step: u64) -> String {
    let bytes = totp_rs::Secret::Encoded(secret.to_owned())
        .to_bytes()
        .unwrap();
    let t = totp_rs::TOTP::new(totp_rs::Algorithm::SHA1, 6, 1, 30, bytes).unwrap();
    t.generate(step * 30)
}

fn step_now() -> u64 {
    u64::try_from(time::OffsetDateTime::now_utc().unix_timestamp()).unwrap() / 30
}

/// Enrols `a` (bearer) and returns the secret, the recovery codes and the upgraded token.
async fn enrol(app: &TestApp, a: &Account) -> (String, Vec<String>, String) {
    let me = app.bearer(&a.jwt);
    let start = me
        .post(&format!("/api/rbac/subjects/{}/totp", a.id), &json!({}))
        .await;
    assert_eq!(start.status, 201, "{}", start.text);
    let secret = start.data()["secret"].as_str().unwrap().to_owned();
    assert!(
        start.data()["otpauthUrl"]
            .as_str()
            .unwrap()
            .starts_with("otpauth://totp/Stoa:")
    );
    // Without the password (a stolen session alone), or with a wrong one: no enrolment.
    let path = format!("/api/rbac/subjects/{}/totp/confirm", a.id);
    let code = code_at(&secret, step_now());
    let r = me.post(&path, &json!({"code": code})).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"]["password"].is_array(), "{}", r.text);
    let r = me
        .post(
            &path,
            &json!({"code": code, "password": "not-the-password-1"}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    // A wrong code does not enrol.
    let bad = me
        .post(
            &format!("/api/rbac/subjects/{}/totp/confirm", a.id),
            &json!({"code": "000000", "password": PASSWORD}),
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    let ok = me
        .post(
            &format!("/api/rbac/subjects/{}/totp/confirm", a.id),
            &json!({"code": code_at(&secret, step_now()), "password": PASSWORD}),
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    let codes: Vec<String> = ok.data()["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(codes.len(), 10);
    let jwt = ok.data()["jwt"].as_str().unwrap().to_owned();
    (secret, codes, jwt)
}

async fn password_step(app: &TestApp, email: &str) -> String {
    let r = app
        .anon()
        .post(
            &format!("{AUTH}/email-and-password/authentication"),
            &json!({"login": email, "password": PASSWORD}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["secondFactor"], "totp");
    assert!(
        r.data().get("jwt").is_none(),
        "no session before the second step: {}",
        r.text
    );
    assert!(r.header("set-cookie").is_none());
    r.data()["challenge"].as_str().unwrap().to_owned()
}

async fn second_step(app: &TestApp, challenge: &str, code: &str) -> stoa_testkit::Res {
    app.anon()
        .post(
            &format!("{AUTH}/second-factor"),
            &json!({"challenge": challenge, "code": code}),
        )
        .await
}

async fn totp_enrolment_sign_in_and_recovery_codes(app: TestApp) {
    let a = app.register("two@example.com").await;
    let (secret, codes, _) = enrol(&app, &a).await;
    let me = app.bearer(&a.jwt).get(&format!("{AUTH}/me")).await;
    assert_eq!(me.data()["secondFactor"]["enabled"], true, "{}", me.text);
    // Enrolling signed out every other session; the enrolling one carries on.
    // The password alone no longer signs in.
    let challenge = password_step(&app, "two@example.com").await;
    assert_eq!(second_step(&app, &challenge, "123456").await.status, 422);
    assert_eq!(
        second_step(&app, "forged", &code_at(&secret, step_now() + 1))
            .await
            .status,
        401
    );
    let next = code_at(&secret, step_now() + 1);
    let r = second_step(&app, &challenge, &next).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let jwt = r.data()["jwt"].as_str().unwrap().to_owned();
    let me = app.bearer(&jwt).get(&format!("{AUTH}/me")).await;
    assert_eq!(me.data()["id"], a.id.as_str());
    // The same code twice: refused (it was spent).
    let again = password_step(&app, "two@example.com").await;
    assert_eq!(second_step(&app, &again, &next).await.status, 422);
    // A recovery code works once, typed loosely.
    let loose = codes[3].to_ascii_uppercase().replace('-', " ");
    let r = second_step(&app, &again, &loose).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let third = password_step(&app, "two@example.com").await;
    assert_eq!(second_step(&app, &third, &codes[3]).await.status, 422);
    // Turning it off needs a code; then the password alone signs in again.
    let owner = app.bearer(&jwt);
    let path = format!("/api/rbac/subjects/{}/totp", a.id);
    let no = owner
        .call("DELETE", &path, Some(&json!({"code": "999999"})))
        .await;
    assert_eq!(no.status, 422, "{}", no.text);
    let off = owner
        .call("DELETE", &path, Some(&json!({"code": codes[5]})))
        .await;
    assert_eq!(off.status, 200, "{}", off.text);
    app.login("two@example.com", PASSWORD).await;
    // The secret and the codes never leave the server.
    let all = app.get(&format!("/api/rbac/subjects/{}", a.id)).await;
    assert!(!all.text.contains(&secret), "{}", all.text);
    for k in ["totpSecret", "totpPending", "recoveryCodes", "totpStep"] {
        assert!(all.data().get(k).is_none(), "{k} in {}", all.text);
    }
    // The audit log has the account's security events without secrets.
    let log = app.get("/api/platform/audits?limit=100").await;
    assert!(
        log.text.contains("two-factor sign-in turned on"),
        "{}",
        log.text
    );
    assert!(!log.text.contains(&secret) && !log.text.contains(&codes[0]));
}
dual_test!(totp_enrolment_sign_in_and_recovery_codes);

async fn sessions_are_listed_and_revoking_one_ends_it_at_once(app: TestApp) {
    let a = app.register("phones@example.com").await;
    let other = app.login("phones@example.com", PASSWORD).await;
    let me = app.bearer(&a.jwt);
    let list = me
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    assert_eq!(list.status, 200, "{}", list.text);
    let rows = list.data().as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{}", list.text);
    assert_eq!(rows.iter().filter(|r| r["current"] == true).count(), 1);
    let theirs = rows.iter().find(|r| r["current"] == false).unwrap();
    assert!(theirs["userAgent"].is_string() || theirs["userAgent"].is_null());
    for k in ["tokenHash", "spentHashes"] {
        assert!(theirs.get(k).is_none());
    }
    let them = app.bearer(&other.jwt);
    assert_eq!(
        them.get(&format!("{AUTH}/me")).await.data()["id"],
        a.id.as_str()
    );
    let sid = theirs["id"].as_str().unwrap();
    let r = me
        .delete(&format!("/api/rbac/subjects/{}/sessions/{sid}", a.id))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // At once: the revoked session's access token and refresh token stop working.
    let r = them
        .get(&format!("/api/rbac/subjects/{}/identities", a.id))
        .await;
    assert_eq!(r.status, 401, "{}", r.text);
    let r = app
        .anon()
        .post(
            &format!("{AUTH}/refresh"),
            &json!({"refresh": other.refresh}),
        )
        .await;
    assert_eq!(r.status, 401, "{}", r.text);
    let list = me
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    assert_eq!(list.data().as_array().unwrap().len(), 1);
    // A session is known live from its sign-in (no read on its first request); one revoked
    // before it was ever used is refused all the same.
    let spare = app.login("phones@example.com", PASSWORD).await;
    let list = me
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    let rows = list.data().as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{}", list.text);
    let spare_sid = rows.iter().find(|r| r["current"] == false).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = me
        .delete(&format!("/api/rbac/subjects/{}/sessions/{spare_sid}", a.id))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = app.bearer(&spare.jwt).get(&format!("{AUTH}/me")).await;
    assert_eq!(r.status, 401, "{}", r.text);
    let list = me
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    assert_eq!(list.data().as_array().unwrap().len(), 1);
    // Someone else's sessions are not yours to see or end.
    let b = app.register("stranger@example.com").await;
    let r = app
        .bearer(&b.jwt)
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    let mine = me
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    let my_sid = mine.data()[0]["id"].as_str().unwrap().to_owned();
    let r = app
        .bearer(&b.jwt)
        .delete(&format!("/api/rbac/subjects/{}/sessions/{my_sid}", b.id))
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
}
dual_test!(sessions_are_listed_and_revoking_one_ends_it_at_once);

/// An account signed in on many devices over the years keeps every expired session's row. Its
/// list shows the live ones all the same: it once read the first 200 not revoked, oldest first,
/// and dropped the expired among them, so it showed nothing, not even the asking session.
async fn the_list_of_sessions_reaches_past_years_of_expired_ones(app: TestApp) {
    use stoa_kernel::value::Val;
    // Ids made before the account's own session, so they come first in id order.
    let old: Vec<uuid::Uuid> = (0..250).map(|_| uuid::Uuid::now_v7()).collect();
    let a = app.register("years@example.com").await;
    let session = app.store.entity("rbac.session").unwrap();
    let expired = time::OffsetDateTime::now_utc() - time::Duration::days(3);
    let row = json!({
        "subjectId": a.id,
        "expiresAt": stoa_kernel::value::format_timestamp(expired),
    });
    let mut tx = app.store.begin().await.unwrap();
    for id in old {
        app.store
            .create_with_in(
                &mut tx.exec(),
                &session,
                row.as_object().unwrap(),
                &[(0, Val::Uuid(id))],
            )
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    let list = app
        .bearer(&a.jwt)
        .get(&format!("/api/rbac/subjects/{}/sessions", a.id))
        .await;
    assert_eq!(list.status, 200, "{}", list.text);
    let rows = list.data().as_array().unwrap().clone();
    assert_eq!(rows.len(), 1, "only the live session: {}", list.text);
    assert_eq!(rows[0]["current"], true, "{}", list.text);
}
dual_test!(the_list_of_sessions_reaches_past_years_of_expired_ones);

async fn required_admin_2fa_sends_an_admin_to_enrolment(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app_with(db, |c| c.admin_2fa = "required".into())
        .await
        .unwrap();
    let a = app.admin_account("boss@example.com").await;
    let boss = app.bearer(&a.jwt);
    let me = boss.get(&format!("{AUTH}/me")).await;
    assert_eq!(me.data()["admin"], false, "{}", me.text);
    assert_eq!(
        me.data()["secondFactor"],
        json!({"enabled": false, "required": true, "satisfied": false})
    );
    // Nothing an admin does, until enrolment…
    let r = boss.get("/api/platform/audits").await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert!(r.text.contains("two-factor"), "{}", r.text);
    let r = boss
        .post("/api/blog/articles", &json!({"slug": "nope"}))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    // …but what a visitor may.
    assert_eq!(boss.get("/api/blog/articles").await.status, 200);
    // An ordinary account is not asked.
    let u = app.register("plain@example.com").await;
    let me = app.bearer(&u.jwt).get(&format!("{AUTH}/me")).await;
    assert_eq!(me.data()["secondFactor"]["satisfied"], true);
    // Enrolment upgrades the session.
    let (secret, _, jwt) = enrol(&app, &a).await;
    let r = app.bearer(&jwt).get("/api/platform/audits").await;
    assert_eq!(r.status, 200, "{}", r.text);
    // An admin may not turn it off while it is required.
    let r = app
        .bearer(&jwt)
        .call(
            "DELETE",
            &format!("/api/rbac/subjects/{}/totp", a.id),
            Some(&json!({"code": code_at(&secret, step_now() + 1)})),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    // Another admin resets a lost factor (no code needed); the owner alone may not.
    let b = app.admin_account("deputy@example.com").await;
    let (_, _, b_jwt) = enrol(&app, &b).await;
    let r = app
        .bearer(&jwt)
        .call(
            "DELETE",
            &format!("/api/rbac/subjects/{}/totp", b.id),
            Some(&json!({})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let me = app.bearer(&b_jwt).get(&format!("{AUTH}/me")).await;
    assert_eq!(me.data()["secondFactor"]["enabled"], false, "{}", me.text);
    // The generic API cannot switch the factor or mark a session as passed.
    let r = app
        .patch(
            &format!("/api/rbac/subjects/{}", b.id),
            &json!({"totpEnabledAt": "2026-01-01T00:00:00Z"}),
        )
        .await;
    assert!(r.status == 200 || r.status == 422, "{}", r.text);
    let me = app.bearer(&b_jwt).get(&format!("{AUTH}/me")).await;
    assert_eq!(me.data()["secondFactor"]["enabled"], false, "{}", me.text);
    // The next sign-in takes both factors and is an admin at once.
    let ch = password_step(&app, "boss@example.com").await;
    let r = second_step(&app, &ch, &code_at(&secret, step_now() + 1)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let t = r.data()["jwt"].as_str().unwrap();
    assert_eq!(app.bearer(t).get("/api/platform/audits").await.status, 200);
    // A refreshed session keeps its second factor.
    let refresh = r.data()["refresh"].as_str().unwrap();
    let r = app
        .anon()
        .post(&format!("{AUTH}/refresh"), &json!({"refresh": refresh}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let t = r.data()["jwt"].as_str().unwrap();
    assert_eq!(app.bearer(t).get("/api/platform/audits").await.status, 200);
}
dual_test!(required_admin_2fa_sends_an_admin_to_enrolment, db);
