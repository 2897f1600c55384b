//! The authorization matrix: every route of the OpenAPI document called as {anonymous, user,
//! another user, admin} and compared with `tests/data/authz-matrix.tsv` (regenerate with
//! `STOA_UPDATE_AUTHZ_MATRIX=1` and review the diff). Plus IDOR: one user on every route scoped
//! to another subject.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use stoa_testkit::{TestApp, dual_test};

const MATRIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/authz-matrix.tsv");

fn class(status: u16, what: &str) -> &'static str {
    assert!(status < 500, "{what} answered {status}");
    match status {
        401 => "401",
        403 => "403",
        _ => "ok",
    }
}

/// The concrete path for an operation: subject-scoped routes name user A.
fn concrete(path: &str, a: &str) -> String {
    let mut out = path.replace(
        "/api/rbac/subjects/{id}/",
        &format!("/api/rbac/subjects/{a}/"),
    );
    for p in ["{id}", "{identityId}"] {
        out = out.replace(p, "01900000-0000-7000-8000-000000000000");
    }
    out.replace("{file}", "index.css")
}

fn body(method: &str, path: &str) -> Option<Value> {
    match method {
        "POST" | "PATCH" if path.ends_with("/bulk") => Some(json!([])),
        "POST" | "PATCH" => Some(json!({})),
        _ => None,
    }
}

async fn matrix(app: TestApp) {
    let a = app.register("matrix-a@example.com").await;
    let b = app.register("matrix-b@example.com").await;
    let admin = app.admin_account("matrix-admin@example.com").await;
    let mut ops: Vec<(String, String)> = app
        .operations
        .iter()
        .map(|o| (o.method.to_owned(), o.path.clone()))
        .collect();
    ops.sort();
    // Ending a session last keeps the others valid.
    ops.sort_by_key(|(_, p)| p.ends_with("/logout"));
    let mut got: BTreeMap<(String, String), [&'static str; 4]> = BTreeMap::new();
    for (method, path) in &ops {
        let url = concrete(path, &a.id);
        let b_ = body(method, path);
        let mut row = ["", "", "", ""];
        for (i, who) in [None, Some(&a), Some(&b), Some(&admin)]
            .into_iter()
            .enumerate()
        {
            let client = match who {
                Some(acc) => app.as_account(acc),
                None => app.anon(),
            };
            let r = client.call(method, &url, b_.as_ref()).await;
            row[i] = class(r.status, &format!("{method} {url} as #{i}"));
        }
        got.insert((method.clone(), path.clone()), row);
    }
    let rendered: String =
        std::iter::once("# method\tpath\tanonymous\tuser\tanother-user\tadmin\n".to_owned())
            .chain(
                got.iter()
                    .map(|((m, p), r)| format!("{m}\t{p}\t{}\n", r.join("\t"))),
            )
            .collect();
    if std::env::var("STOA_UPDATE_AUTHZ_MATRIX").is_ok_and(|v| v == "1") {
        std::fs::write(MATRIX, &rendered).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(MATRIX).unwrap_or_default();
    let want: BTreeMap<(String, String), Vec<String>> = expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                (f[0].to_owned(), f[1].to_owned()),
                f[2..].iter().map(|s| (*s).to_owned()).collect(),
            )
        })
        .collect();
    let mut mismatches = Vec::new();
    for (k, r) in &got {
        match want.get(k) {
            Some(w) if w.iter().map(String::as_str).eq(r.iter().copied()) => {}
            Some(w) => mismatches.push(format!("{} {}: expected {w:?}, got {r:?}", k.0, k.1)),
            None => mismatches.push(format!("{} {}: not in the table (got {r:?})", k.0, k.1)),
        }
    }
    for k in want.keys() {
        if !got.contains_key(k) {
            mismatches.push(format!("{} {}: in the table but not a route", k.0, k.1));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    // Sanity: the table says what we mean.
    let cell = |m: &str, p: &str| want[&(m.to_owned(), p.to_owned())].clone();
    assert_eq!(cell("GET", "/api/blog/articles"), ["ok", "ok", "ok", "ok"]);
    assert_eq!(
        cell("POST", "/api/blog/articles"),
        ["401", "403", "403", "ok"]
    );
    assert_eq!(
        cell("GET", "/api/rbac/identities"),
        ["401", "403", "403", "ok"]
    );
    assert_eq!(
        cell("GET", "/api/rbac/subjects/{id}/identities"),
        ["401", "ok", "403", "ok"]
    );
}
dual_test!(matrix);

async fn idor(app: TestApp) {
    let a = app.register("idor-a@example.com").await;
    let b = app.register("idor-b@example.com").await;
    let before = app
        .get(&format!("/api/rbac/subjects/{}/identities", b.id))
        .await;
    let b_identity = before.data()[0]["id"].as_str().unwrap().to_owned();
    let scoped: Vec<(String, String)> = app
        .operations
        .iter()
        .filter(|o| o.path.starts_with("/api/rbac/subjects/{id}/"))
        .map(|o| (o.method.to_owned(), o.path.clone()))
        .collect();
    assert!(scoped.len() >= 4, "{scoped:?}");
    for (method, path) in scoped {
        let url = path
            .replace("{id}", &b.id)
            .replace("{identityId}", &b_identity);
        let body = json!({"provider": "email_and_password", "email": "x@example.com", "password": "another-pass-123", "newPassword": "another-pass-456"});
        let r = app.as_account(&a).call(&method, &url, Some(&body)).await;
        assert!(
            r.status == 403 || r.status == 404,
            "{method} {url} as A: {} {}",
            r.status,
            r.text
        );
    }
    let after = app
        .get(&format!("/api/rbac/subjects/{}/identities", b.id))
        .await;
    assert_eq!(before.body, after.body, "B's identities changed");
    app.login("idor-b@example.com", stoa_testkit::users::PASSWORD)
        .await;
    // Nor through the identity route.
    let r = app
        .as_account(&a)
        .patch(
            &format!("/api/rbac/identities/{b_identity}/change-password"),
            &json!({"password": stoa_testkit::users::PASSWORD, "newPassword": "another-pass-456"}),
        )
        .await;
    assert!(r.status == 403 || r.status == 404, "{}", r.text);
    app.login("idor-b@example.com", stoa_testkit::users::PASSWORD)
        .await;
}
dual_test!(idor);

/// Permission rows take effect as soon as they change (the cached table is rebuilt).
async fn permission_changes_apply_at_once(app: TestApp) {
    let find = |m: &str, path: &str| {
        format!(
            "/api/rbac/permissions?filters[and][0][column]=method&filters[and][0][method]=eq&filters[and][0][value]={m}&filters[and][1][column]=path&filters[and][1][method]=eq&filters[and][1][value]={path}"
        )
    };
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 200);
    let rows = app.get(&find("GET", "/api/blog/articles")).await;
    let id = rows.data()[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        app.delete(&format!("/api/rbac/permissions/{id}"))
            .await
            .status,
        200
    );
    assert_eq!(
        app.anon().get("/api/blog/articles").await.status,
        401,
        "public read withdrawn"
    );
    // A permission linked to the user role opens a write to users only.
    let user = app.register("perm-user@example.com").await;
    let u = app.as_account(&user);
    assert_eq!(u.post("/api/blog/categories", &json!({})).await.status, 403);
    let p = app
        .create(
            "/api/rbac/permissions",
            &json!({"method": "POST", "path": "/api/blog/categories"}),
        )
        .await;
    assert_eq!(
        app.anon()
            .post("/api/blog/categories", &json!({}))
            .await
            .status,
        201,
        "no role: public"
    );
    let roles = app.get("/api/rbac/roles?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=user").await;
    app.create(
        "/api/rbac/roles-to-permissions",
        &json!({"roleId": roles.data()[0]["id"], "permissionId": p["id"]}),
    )
    .await;
    assert_eq!(
        app.anon()
            .post("/api/blog/categories", &json!({}))
            .await
            .status,
        401
    );
    assert_eq!(u.post("/api/blog/categories", &json!({})).await.status, 201);
}
dual_test!(permission_changes_apply_at_once);
