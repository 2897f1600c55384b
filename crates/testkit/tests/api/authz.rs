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
        // A read takes no body (a GET with one is a 400 before anything, issue 47).
        let body = (method != "GET").then_some(&body);
        let r = app.as_account(&a).call(&method, &url, body).await;
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

async fn post_category(c: &stoa_testkit::users::As<'_>) -> u16 {
    c.post("/api/blog/categories", &json!({})).await.status
}

/// Permission rows take effect as soon as they change (the cached table is rebuilt).
async fn permission_changes_apply_at_once(app: TestApp) {
    let find = |m: &str, path: &str| {
        format!(
            "/api/rbac/permissions?filters[and][0][column]=method&filters[and][0][method]=eq&filters[and][0][value]={m}&filters[and][1][column]=path&filters[and][1][method]=eq&filters[and][1][value]={path}"
        )
    };
    // Twice: the second is a visitor's kept answer (stoa_api::answers), which must not
    // outlive the permission either.
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 200);
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
    // A permission no role holds grants nothing (it was public before the explicit flag).
    let p = app
        .create(
            "/api/rbac/permissions",
            &json!({"method": "POST", "path": "/api/blog/categories"}),
        )
        .await;
    assert_eq!(p["public"], json!(false), "{p}");
    assert_eq!(post_category(&app.anon()).await, 401, "no role: nobody");
    assert_eq!(post_category(&u).await, 403, "no role: nobody");
    // Linked to the user role: users only.
    let roles = app.get("/api/rbac/roles?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=user").await;
    app.create(
        "/api/rbac/roles-to-permissions",
        &json!({"roleId": roles.data()[0]["id"], "permissionId": p["id"]}),
    )
    .await;
    assert_eq!(post_category(&app.anon()).await, 401);
    assert_eq!(post_category(&u).await, 201);
    // Public by its flag, and closed again when the flag is turned off.
    let pid = p["id"].as_str().unwrap();
    app.patch(
        &format!("/api/rbac/permissions/{pid}"),
        &json!({"public": true}),
    )
    .await;
    assert_eq!(post_category(&app.anon()).await, 201, "public: everyone");
    app.patch(
        &format!("/api/rbac/permissions/{pid}"),
        &json!({"public": false}),
    )
    .await;
    assert_eq!(post_category(&app.anon()).await, 401);
    // Deleting a role never opens what it held: the permission is left with no role.
    let editors = app
        .create(
            "/api/rbac/roles",
            &json!({"title": "Editors", "slug": "editors"}),
        )
        .await;
    let tags = app
        .create(
            "/api/rbac/permissions",
            &json!({"method": "POST", "path": "/api/blog/articles"}),
        )
        .await;
    app.create(
        "/api/rbac/roles-to-permissions",
        &json!({"roleId": editors["id"], "permissionId": tags["id"]}),
    )
    .await;
    let del = app
        .delete(&format!(
            "/api/rbac/roles/{}",
            editors["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(del.status, 200, "{}", del.text);
    assert_eq!(
        app.anon()
            .post("/api/blog/articles", &json!({}))
            .await
            .status,
        401,
        "a deleted role's permission is not public"
    );
    assert_eq!(u.post("/api/blog/articles", &json!({})).await.status, 403);
}
dual_test!(permission_changes_apply_at_once);

/// The id of the first row `url` lists.
async fn first_id(app: &TestApp, url: &str) -> String {
    let r = app.get(url).await;
    r.data()[0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no row at {url}: {}", r.text))
        .to_owned()
}

fn filter_eq(route: &str, pairs: &[(&str, &str)]) -> String {
    let mut q = format!("/api/rbac/{route}?limit=100");
    for (i, (k, v)) in pairs.iter().enumerate() {
        q.push_str(&format!(
            "&filters[and][{i}][column]={k}&filters[and][{i}][method]=eq&filters[and][{i}][value]={v}"
        ));
    }
    q
}

/// Guard rails: through the API nobody deletes their own account or their own admin rights,
/// the admin role and the root permission stay, and the last admin stays admin (409 with the
/// reason each time); with two admins one may demote the other.
async fn admins_cannot_saw_off_their_branch(app: TestApp) {
    let a = app.admin_account("rails-a@example.com").await;
    let me = app.as_account(&a);
    let admin_role = first_id(&app, &filter_eq("roles", &[("slug", "admin")])).await;
    let root = first_id(
        &app,
        &filter_eq("permissions", &[("method", "*"), ("path", "*")]),
    )
    .await;
    let grant = first_id(
        &app,
        &filter_eq("roles-to-permissions", &[("permissionId", &root)]),
    )
    .await;
    let my_link = first_id(
        &app,
        &filter_eq(
            "subjects-to-roles",
            &[("subjectId", &a.id), ("roleId", &admin_role)],
        ),
    )
    .await;
    let refused = |r: stoa_testkit::Res, why: &str| {
        assert_eq!(r.status, 409, "{why}: {}", r.text);
        assert!(
            r.body["error"].as_str().is_some_and(|m| !m.is_empty()),
            "{}",
            r.text
        );
    };
    refused(
        me.delete(&format!("/api/rbac/subjects/{}", a.id)).await,
        "own account",
    );
    refused(
        me.delete(&format!("/api/rbac/subjects-to-roles/{my_link}"))
            .await,
        "own admin link",
    );
    let user_role = first_id(&app, &filter_eq("roles", &[("slug", "user")])).await;
    refused(
        me.patch(
            &format!("/api/rbac/subjects-to-roles/{my_link}"),
            &json!({"roleId": user_role}),
        )
        .await,
        "own demotion by edit",
    );
    refused(
        me.patch(
            "/api/rbac/subjects-to-roles/bulk",
            &json!([{"id": my_link, "data": {"roleId": user_role}}]),
        )
        .await,
        "own demotion in bulk",
    );
    refused(
        me.delete(&format!("/api/rbac/roles/{admin_role}")).await,
        "the admin role",
    );
    refused(
        me.delete(&format!("/api/rbac/permissions/{root}")).await,
        "the root permission",
    );
    refused(
        me.patch(
            &format!("/api/rbac/permissions/{root}"),
            &json!({"path": "/api/x"}),
        )
        .await,
        "the root permission changed",
    );
    refused(
        me.delete(&format!("/api/rbac/roles-to-permissions/{grant}"))
            .await,
        "the root grant",
    );
    // A multipart edit the rails cannot read is refused rather than let through.
    let r = app
        .send(
            app.plain
                .patch(app.url(&format!("/api/rbac/subjects-to-roles/{my_link}")))
                .bearer_auth(&a.jwt)
                .multipart(
                    reqwest::multipart::Form::new()
                        .text("data", json!({"roleId": user_role}).to_string()),
                ),
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.text);
    // The secret key (no account) cannot remove the last admin either.
    refused(
        app.delete(&format!("/api/rbac/subjects-to-roles/{my_link}"))
            .await,
        "the last admin",
    );
    refused(
        app.delete(&format!("/api/rbac/subjects/{}", a.id)).await,
        "the last admin's account",
    );
    // Everything still works for a.
    assert_eq!(me.get("/api/rbac/permissions").await.status, 200);
    // With a second admin, a may remove b's admin rights and account.
    let b = app.admin_account("rails-b@example.com").await;
    let b_link = first_id(
        &app,
        &filter_eq(
            "subjects-to-roles",
            &[("subjectId", &b.id), ("roleId", &admin_role)],
        ),
    )
    .await;
    let r = me
        .delete(&format!("/api/rbac/subjects-to-roles/{b_link}"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        app.as_account(&b).get("/api/rbac/permissions").await.status,
        403
    );
    let r = me.delete(&format!("/api/rbac/subjects/{}", b.id)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    // The rails hold for whoever the permission table lets make these writes, not only admins:
    // users granted deletes of role links still cannot remove the last admin.
    let p = app
        .create(
            "/api/rbac/permissions",
            &json!({"method": "DELETE", "path": "/api/rbac/subjects-to-roles/[rbac.subjects-to-roles.id]"}),
        )
        .await;
    app.create(
        "/api/rbac/roles-to-permissions",
        &json!({"roleId": user_role, "permissionId": p["id"]}),
    )
    .await;
    let c = app.register("rails-c@example.com").await;
    let r = app
        .as_account(&c)
        .delete(&format!("/api/rbac/subjects-to-roles/{my_link}"))
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(me.get("/api/rbac/permissions").await.status, 200);
    // And an ordinary role can be deleted.
    let extra = app
        .create(
            "/api/rbac/roles",
            &json!({"title": "Extra", "slug": "extra"}),
        )
        .await;
    let r = me
        .delete(&format!(
            "/api/rbac/roles/{}",
            extra["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}
dual_test!(admins_cannot_saw_off_their_branch);

/// Accounts are not listed to visitors, and a subject id spelled differently in the path (percent
/// encoded, braced) is still checked against the caller.
async fn accounts_stay_private_however_the_path_is_spelled(app: TestApp) {
    let a = app.register("spell-a@example.com").await;
    let b = app.register("spell-b@example.com").await;
    assert_eq!(app.anon().get("/api/rbac/subjects").await.status, 401);
    assert_eq!(
        app.anon()
            .get(&format!("/api/rbac/subjects/{}", a.id))
            .await
            .status,
        401
    );
    assert_eq!(
        app.as_account(&b).get("/api/rbac/subjects").await.status,
        403
    );
    assert_eq!(
        app.get("/api/rbac/subjects").await.status,
        200,
        "admins list"
    );
    let encoded: String = a.id.chars().map(|c| format!("%{:02X}", c as u32)).collect();
    let id = uuid::Uuid::parse_str(&a.id).unwrap();
    for spelled in [
        encoded,
        format!("%7B{}%7D", a.id),
        id.simple().to_string(),
        a.id.to_uppercase(),
    ] {
        let path = format!("/api/rbac/subjects/{spelled}/identities");
        let r = app.as_account(&b).get(&path).await;
        assert!(
            r.status == 403 || r.status == 400,
            "{path}: {} {}",
            r.status,
            r.text
        );
        assert!(!r.text.contains("spell-a@"), "{}", r.text);
    }
    // Its owner may use any spelling the router reads as the same id.
    let r = app
        .as_account(&a)
        .get(&format!("/api/rbac/subjects/{}/identities", id.simple()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = app
        .as_account(&b)
        .get("/api/rbac/subjects/%ZZ/identities")
        .await;
    assert!(r.status == 400 || r.status == 404, "{}", r.text);
}
dual_test!(accounts_stay_private_however_the_path_is_spelled);

/// The topics and templates the platform's own mail needs cannot be deleted or renamed away
/// through the API (the reset mail would silently stop); other ones can.
async fn mail_setup_in_use_is_kept(app: TestApp) {
    let one = |route: &str, field: &str, value: &str| {
        format!(
            "/api/notification/{route}?filters[and][0][column]={field}&filters[and][0][method]=eq&filters[and][0][value]={value}"
        )
    };
    let security = first_id(&app, &one("topics", "slug", "security")).await;
    let reset = first_id(&app, &one("templates", "variant", "reset-password")).await;
    for (path, body) in [
        (format!("/api/notification/topics/{security}"), None),
        (format!("/api/notification/templates/{reset}"), None),
        (
            format!("/api/notification/topics/{security}"),
            Some(json!({"slug": "sec"})),
        ),
        (
            format!("/api/notification/templates/{reset}"),
            Some(json!({"variant": "default"})),
        ),
    ] {
        let r = match &body {
            None => app.delete(&path).await,
            Some(b) => app.patch(&path, b).await,
        };
        assert_eq!(r.status, 409, "{path} {body:?}: {}", r.text);
        assert!(
            r.text.contains("in use") || r.text.contains("own mail"),
            "{}",
            r.text
        );
    }
    // Their texts may change.
    let r = app
        .patch(
            &format!("/api/notification/templates/{reset}"),
            &json!({"title": "Reset"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // A topic of the admin's own may go.
    let t = app
        .create(
            "/api/notification/topics",
            &json!({"slug": "news", "title": "News", "type": "info"}),
        )
        .await;
    let r = app
        .delete(&format!(
            "/api/notification/topics/{}",
            t["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}
dual_test!(mail_setup_in_use_is_kept);

/// A database from before the `public` flag read "no role" as public. Its upgrade (seed
/// `rbac.public-flag.v1`) keeps unlinked permissions of routes declared public open and closes the
/// rest (an admin's roleless row, a deleted role's leftovers).
async fn permissions_from_before_the_public_flag_are_migrated(app: TestApp) {
    use stoa_kernel::value::Val;
    let articles = first_id(
        &app,
        &filter_eq(
            "permissions",
            &[("method", "GET"), ("path", "/api/blog/articles")],
        ),
    )
    .await;
    // As the old schema left it: no flag anywhere.
    app.write_raw(
        "rbac.permission",
        articles.parse().unwrap(),
        &[("public", Val::Bool(false))],
    )
    .await;
    app.create(
        "/api/rbac/permissions",
        &json!({"method": "POST", "path": "/api/blog/categories"}),
    )
    .await;
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 401);
    let mut tx = app.store.begin().await.unwrap();
    stoa_store::seed::unmark(&mut tx.exec(), stoa_rbac::seed::PUBLIC_FLAG_SEED)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    stoa_rbac::seed::seed(&app.store, &app.operations)
        .await
        .unwrap();
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 200);
    assert_eq!(
        app.anon()
            .post("/api/blog/categories", &json!({}))
            .await
            .status,
        401
    );
}
dual_test!(permissions_from_before_the_public_flag_are_migrated);

/// What `GET /api/rbac/access` says a visitor and a user may call is what the gate does: every
/// route it denies is refused in the authorization matrix (`authz-matrix.tsv`, held against real
/// calls by `matrix`), and every route it allows gets past the gate.
async fn the_access_answer_is_the_gate_s(app: TestApp) {
    let a = app.register("access-a@example.com").await;
    let expected = std::fs::read_to_string(MATRIX).unwrap();
    let cells: BTreeMap<(String, String), Vec<String>> = expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let cells = f[2..].iter().map(|s| (*s).to_owned()).collect();
            ((f[0].to_owned(), f[1].to_owned()), cells)
        })
        .collect();
    let visitor = app.get("/api/rbac/access").await;
    assert_eq!(visitor.status, 200, "{}", visitor.text);
    let user = app
        .get(&format!("/api/rbac/access?subjectId={}", a.id))
        .await;
    assert_eq!(user.status, 200, "{}", user.text);
    assert_eq!(visitor.data()["roles"], json!([]));
    assert_eq!(visitor.data()["admin"], json!(false));
    assert_eq!(user.data()["roles"].as_array().unwrap().len(), 1);
    let mut wrong = Vec::new();
    for (answer, column, who) in [(&visitor, 0, "a visitor"), (&user, 1, "a user")] {
        let routes = answer.data()["routes"].as_array().unwrap().clone();
        assert_eq!(
            routes.len(),
            app.operations.len(),
            "every route is answered"
        );
        for r in &routes {
            let (m, p) = (r["method"].as_str().unwrap(), r["path"].as_str().unwrap());
            let Some(row) = cells.get(&(m.to_owned(), p.to_owned())) else {
                continue;
            };
            let passed = row[column] == "ok";
            let allowed = r["allowed"] == json!(true);
            // A handler may refuse what the gate lets by (an admin-only branch); the gate never
            // lets by what the table denies.
            if !allowed && passed {
                wrong.push(format!("{who}: {m} {p} is denied but was served"));
            }
            if allowed && r["via"].as_str().is_none_or(str::is_empty) {
                wrong.push(format!("{who}: {m} {p} is allowed by no permission"));
            }
            // Refused by their handlers, not the gate: a refresh with no token, and the MCP
            // server without an API key.
            let by_handler = [
                "POST /api/rbac/subjects/authentication/refresh",
                "POST /mcp",
            ];
            if allowed && !passed && !by_handler.contains(&format!("{m} {p}").as_str()) {
                wrong.push(format!(
                    "{who}: {m} {p} is allowed but was refused ({})",
                    row[column]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let route = |answer: &stoa_testkit::Res, m: &str, p: &str| {
        answer.data()["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["method"] == m && r["path"] == p)
            .cloned()
            .unwrap()
    };
    let articles = route(&visitor, "GET", "/api/blog/articles/{id}");
    assert_eq!(articles["allowed"], json!(true));
    assert_eq!(articles["public"], json!(true));
    assert_eq!(
        articles["permission"],
        "/api/blog/articles/[blog.articles.id]"
    );
    assert_eq!(articles["access"], "public");
    assert_eq!(
        route(&visitor, "POST", "/api/blog/articles")["allowed"],
        json!(false)
    );
    let totp = route(&user, "POST", "/api/rbac/subjects/{id}/totp");
    assert_eq!(totp["allowed"], json!(true));
    assert_eq!(totp["public"], json!(false));
    assert_eq!(
        totp["via"],
        "POST /api/rbac/subjects/[rbac.subjects.id]/totp"
    );
    // The user role alone answers as the subject that holds only it.
    let role = user.data()["roles"][0].as_str().unwrap().to_owned();
    let by_role = app.get(&format!("/api/rbac/access?roleId={role}")).await;
    assert_eq!(by_role.data()["routes"], user.data()["routes"]);
    // The admin's own answer: everything, through the root permission.
    let boss = app.admin_account("access-admin@example.com").await;
    let admin = app
        .as_account(&boss)
        .get(&format!("/api/rbac/access?subjectId={}", boss.id))
        .await;
    assert_eq!(admin.status, 200, "{}", admin.text);
    assert_eq!(admin.data()["admin"], json!(true));
    let roots = admin.data()["rootRoles"].as_array().unwrap().clone();
    assert!(
        admin.data()["roles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| roots.contains(r))
    );
    assert!(
        admin.data()["routes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["allowed"] == json!(true))
    );
    // Asked wrongly, or by someone who may not.
    let both = app
        .get(&format!(
            "/api/rbac/access?subjectId={}&roleId={role}",
            a.id
        ))
        .await;
    assert_eq!(both.status, 422, "{}", both.text);
    assert!(both.text.contains("roleId"), "{}", both.text);
    let nobody = app
        .get("/api/rbac/access?subjectId=01900000-0000-7000-8000-000000000000")
        .await;
    assert_eq!(nobody.status, 404, "{}", nobody.text);
    assert_eq!(app.get("/api/rbac/access?subjectId=x").await.status, 400);
    assert_eq!(app.as_account(&a).get("/api/rbac/access").await.status, 403);
    assert_eq!(app.anon().get("/api/rbac/access").await.status, 401);
}
dual_test!(the_access_answer_is_the_gate_s);
