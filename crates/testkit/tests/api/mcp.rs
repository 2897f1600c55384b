//! The MCP server at `/mcp`, driven by the official TypeScript SDK's client
//! (`web/scripts/mcp/client.mjs`) on SQLite and PostgreSQL: tools listed by what the key may do,
//! reads, a write dry-run then confirmed, a write the key's roles forbid refused (and refused the
//! same over HTTP with the same key), a confirmation reused, given for other arguments or expired
//! refused, the resources read, and the writes in the audit log under the key.

use serde_json::{Value, json};
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_with};

/// Runs `steps` through the SDK client as `token`; the results, one per step.
fn agent(app: &TestApp, token: &str, steps: Value) -> Vec<Value> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../web/scripts/mcp/client.mjs"
    );
    let mut child = std::process::Command::new("node")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs (the web's packages installed: make web-deps)");
    let input = json!({"url": app.url("/mcp"), "token": token, "steps": steps});
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(input.to_string().as_bytes())
            .expect("write");
    }
    let out = child.wait_with_output().expect("the client ends");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|_| {
        panic!(
            "client output is not JSON: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    match v {
        Value::Array(a) => a,
        other => vec![other],
    }
}

/// Makes a permission (method, path) held by `role`.
async fn grant(app: &TestApp, role: &Value, method: &str, path: &str) {
    let p = app
        .create(
            "/api/rbac/permissions",
            &json!({"method": method, "path": path}),
        )
        .await;
    app.create(
        "/api/rbac/roles-to-permissions",
        &json!({"roleId": role["id"], "permissionId": p["id"]}),
    )
    .await;
}

/// An API key for `subject` with `roles`, and its token.
async fn key(app: &TestApp, title: &str, subject: &str, roles: &[&Value]) -> (String, String) {
    let k = app
        .create(
            "/api/rbac/api-keys",
            &json!({"title": title, "subjectId": subject}),
        )
        .await;
    for r in roles {
        app.create(
            "/api/rbac/api-keys-to-roles",
            &json!({"apiKeyId": k["id"], "roleId": r["id"]}),
        )
        .await;
    }
    let id = k["id"].as_str().unwrap().to_owned();
    let t = app
        .post(&format!("/api/rbac/api-keys/{id}/token"), &json!({}))
        .await;
    assert_eq!(t.status, 201, "{}", t.text);
    let token = t.data()["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("stoa_ak_"), "{token}");
    // Only the beginning is kept in the record; the token itself is in no answer.
    let rec = app.get(&format!("/api/rbac/api-keys/{id}")).await;
    assert!(!rec.text.contains(&token), "{}", rec.text);
    assert_eq!(
        rec.data()["tokenPrefix"],
        json!(t.data()["tokenPrefix"]),
        "{}",
        rec.text
    );
    (id, token)
}

async fn mcp_agents_work_within_their_keys(db: Db) {
    let app = spawn_app_with(db, |c| c.mcp.mcp_confirm_ttl = 4)
        .await
        .expect("app");
    // A writer who may read and change articles and, through a second role, delete them; the
    // agent's key is given the first role only.
    let writer = app.register("writer-mcp@example.com").await;
    let writing = app
        .create(
            "/api/rbac/roles",
            &json!({"title": "Writing", "slug": "writing"}),
        )
        .await;
    let deleting = app
        .create(
            "/api/rbac/roles",
            &json!({"title": "Deleting", "slug": "deleting"}),
        )
        .await;
    grant(&app, &writing, "GET", "/api/blog/articles").await;
    grant(&app, &writing, "GET", "/api/blog/articles/{id}").await;
    grant(&app, &writing, "PATCH", "/api/blog/articles/{id}").await;
    grant(&app, &deleting, "DELETE", "/api/blog/articles/{id}").await;
    for r in [&writing, &deleting] {
        app.create(
            "/api/rbac/subjects-to-roles",
            &json!({"subjectId": writer.id, "roleId": r["id"]}),
        )
        .await;
    }
    let (key_id, token) = key(&app, "Content assistant", &writer.id, &[&writing]).await;
    let article = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "mcp-first", "title": {"en": "First words", "ru": "Первые слова"}}),
        )
        .await;
    let aid = article["id"].as_str().unwrap().to_owned();

    let r = agent(
        &app,
        &token,
        json!([
            {"op": "listTools"},
            {"op": "call", "name": "findBlogArticle", "arguments": {"filters": {"and": [{"column": "slug", "method": "eq", "value": "mcp-first"}]}, "limit": 5}},
            {"op": "call", "name": "updateBlogArticle", "arguments": {"id": aid, "data": {"title": {"en": "Better words", "ru": "Слова лучше"}}}},
        ]),
    );
    let tools: Vec<&str> = r[0]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r[0]))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for t in ["findBlogArticle", "getBlogArticle", "updateBlogArticle"] {
        assert!(tools.contains(&t), "{t} listed: {tools:?}");
    }
    // Only what the key's roles reach: not the account's other role, nothing of accounts.
    for t in [
        "deleteBlogArticle",
        "createBlogArticle",
        "findRbacSubject",
        "findEcommerceOrder",
    ] {
        assert!(!tools.contains(&t), "{t} not listed: {tools:?}");
    }
    let update = r[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "updateBlogArticle")
        .unwrap();
    assert!(
        update["description"]
            .as_str()
            .unwrap()
            .contains("confirmation"),
        "{update}"
    );
    assert_eq!(
        update["annotations"]["readOnlyHint"],
        json!(false),
        "{update}"
    );
    assert_eq!(r[1]["isError"], json!(false), "{}", r[1]);
    assert_eq!(r[1]["result"]["data"][0]["id"], json!(aid), "{}", r[1]);
    // The dry run changes nothing and answers the change and a confirmation.
    let dry = &r[2]["result"];
    assert_eq!(dry["dryRun"], json!(true), "{}", r[2]);
    assert_eq!(
        dry["changes"]["title"]["before"]["en"],
        json!("First words"),
        "{dry}"
    );
    assert_eq!(
        dry["changes"]["title"]["after"]["en"],
        json!("Better words"),
        "{dry}"
    );
    let confirmation = dry["confirmation"].as_str().unwrap().to_owned();
    let now = app.get(&format!("/api/blog/articles/{aid}")).await;
    assert_eq!(
        now.data()["title"]["en"],
        json!("First words"),
        "{}",
        now.text
    );

    let r = agent(
        &app,
        &token,
        json!([
            // Another change with this confirmation: refused.
            {"op": "call", "name": "updateBlogArticle", "arguments": {"id": aid, "data": {"title": {"en": "Other words", "ru": "Другие"}}, "confirmation": confirmation}},
            {"op": "call", "name": "updateBlogArticle", "arguments": {"data": {"title": {"ru": "Слова лучше", "en": "Better words"}}, "id": aid, "confirmation": confirmation}},
            {"op": "call", "name": "updateBlogArticle", "arguments": {"id": aid, "data": {"title": {"en": "Better words", "ru": "Слова лучше"}}, "confirmation": confirmation}},
            // A write the key's roles forbid (the account could): refused at the dry run.
            {"op": "call", "name": "deleteBlogArticle", "arguments": {"id": aid}},
            {"op": "read", "uri": "stoa://content-model"},
            {"op": "resources"},
        ]),
    );
    assert_eq!(r[0]["isError"], json!(true), "{}", r[0]);
    assert!(
        r[0]["result"]["error"]
            .as_str()
            .unwrap()
            .contains("other arguments"),
        "{}",
        r[0]
    );
    // The same call in another key order: confirmed, written.
    assert_eq!(r[1]["isError"], json!(false), "{}", r[1]);
    assert_eq!(r[1]["result"]["status"], json!(200), "{}", r[1]);
    assert_eq!(
        r[1]["result"]["data"]["title"]["en"],
        json!("Better words"),
        "{}",
        r[1]
    );
    let now = app.get(&format!("/api/blog/articles/{aid}")).await;
    assert_eq!(
        now.data()["title"]["ru"],
        json!("Слова лучше"),
        "{}",
        now.text
    );
    // Used once: refused the second time.
    assert_eq!(r[2]["isError"], json!(true), "{}", r[2]);
    assert!(
        r[2]["result"]["error"]
            .as_str()
            .unwrap()
            .contains("used already"),
        "{}",
        r[2]
    );
    // Not listed for this key, and refused when called anyway (nothing deleted).
    assert_eq!(r[3]["isError"], json!(true), "{}", r[3]);
    assert!(
        r[3]["result"]["error"]
            .as_str()
            .unwrap()
            .contains("may not"),
        "{}",
        r[3]
    );
    assert_eq!(
        app.get(&format!("/api/blog/articles/{aid}")).await.status,
        200
    );
    let model = &r[4]["contents"][0]["json"];
    assert!(
        model["entities"]
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e["name"] == "article")),
        "{}",
        r[4]
    );
    assert_eq!(
        r[5]["resources"][0]["uri"],
        json!("stoa://content-model"),
        "{}",
        r[5]
    );

    // The same key over HTTP: no more than through MCP.
    let k = app.bearer(&token);
    assert_eq!(
        k.get(&format!("/api/blog/articles/{aid}")).await.status,
        200
    );
    assert_eq!(
        k.delete(&format!("/api/blog/articles/{aid}")).await.status,
        403
    );
    assert_eq!(k.get("/api/rbac/subjects").await.status, 403);
    // Nor acts as its account where its roles are not what let it in: not its own routes (a
    // provider linked with a key would take the account), not its live channel.
    for path in [
        "/api/rbac/subjects/authentication/me",
        "/api/rbac/subjects/authentication/oidc/start?link=1",
        "/api/live",
    ] {
        let r = k.get(path).await;
        assert_eq!(r.status, 403, "{path}: {}", r.text);
    }
    // A key never changes accounts, roles or keys, whatever its roles.
    let admin = app.admin_account("boss-mcp@example.com").await;
    let roles = app.get("/api/rbac/roles?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=admin").await;
    let admin_role = roles.data()[0].clone();
    let (_, admin_token) = key(&app, "Admin agent", &admin.id, &[&admin_role]).await;
    let ak = app.bearer(&admin_token);
    assert_eq!(
        ak.get("/api/rbac/subjects").await.status,
        200,
        "an admin key reads accounts"
    );
    let r = ak
        .post(&format!("/api/rbac/api-keys/{key_id}/token"), &json!({}))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = ak
        .post(
            "/api/rbac/subjects-to-roles",
            &json!({"subjectId": writer.id, "roleId": admin_role["id"]}),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    // An admin's key reaches the operations modules offer agents; they too are confirmed first.
    let r = agent(
        &app,
        &admin_token,
        json!([
            {"op": "listTools"},
            {"op": "call", "name": "revalidate", "arguments": {}},
            {"op": "read", "uri": "stoa://pages/bundle?url=/en/"},
        ]),
    );
    let names: Vec<&str> = r[0]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r[0]))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for t in [
        "hostPagePublish",
        "revalidate",
        "notificationSend",
        "ecommerceOrderOverride",
        "deleteBlogArticle",
        "findRbacSubject",
    ] {
        assert!(names.contains(&t), "{t} listed for an admin key: {names:?}");
    }
    assert_eq!(r[1]["result"]["dryRun"], json!(true), "{}", r[1]);
    assert_eq!(
        r[1]["result"]["wouldCall"],
        json!("POST /api/revalidation/revalidate"),
        "{}",
        r[1]
    );
    assert!(r[2]["contents"][0]["uri"].as_str().is_some(), "{}", r[2]);
    let c = r[1]["result"]["confirmation"].as_str().unwrap();
    let r = agent(
        &app,
        &admin_token,
        json!([{"op": "call", "name": "revalidate", "arguments": {"confirmation": c}}]),
    );
    assert_eq!(
        r[0]["result"]["data"]["revalidated"],
        json!(true),
        "{}",
        r[0]
    );
    // The account's own token may delete (its second role); the key may not.
    assert_eq!(
        app.as_account(&writer)
            .delete(&format!("/api/blog/articles/{aid}"))
            .await
            .status,
        200
    );

    // Making a token is in the audit log, the hash by its name only.
    let made = app
        .get(&format!("/api/platform/audits?filters[and][0][column]=recordId&filters[and][0][method]=eq&filters[and][0][value]={key_id}&limit=100"))
        .await;
    let entries = made.data().as_array().unwrap();
    assert!(
        entries.iter().any(|e| e["action"] == "event"
            && e["redacted"]
                .as_array()
                .is_some_and(|r| r.iter().any(|x| x == "tokenHash"))),
        "{}",
        made.text
    );
    assert!(!made.text.contains(&token[8..]), "{}", made.text);
    // The write is in the audit log under the key, with its name.
    let log = app
        .get("/api/platform/audits?filters[and][0][column]=entity&filters[and][0][method]=eq&filters[and][0][value]=blog.article&limit=100")
        .await;
    let by_key: Vec<&Value> = log
        .data()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == json!(format!("api-key:{key_id}")))
        .collect();
    assert_eq!(by_key.len(), 1, "{}", log.text);
    assert_eq!(by_key[0]["action"], json!("update"));
    assert!(
        by_key[0]["actorName"].as_str().is_some_and(
            |n| n.contains("Content assistant") && n.contains("writer-mcp@example.com")
        ),
        "{}",
        by_key[0]
    );

    // An expired confirmation is refused.
    let other = app
        .create("/api/blog/articles", &json!({"slug": "mcp-second"}))
        .await;
    let oid = other["id"].as_str().unwrap().to_owned();
    let args = json!({"id": oid, "data": {"slug": "mcp-second-b"}});
    let r = agent(
        &app,
        &token,
        json!([{"op": "call", "name": "updateBlogArticle", "arguments": args}]),
    );
    let c = r[0]["result"]["confirmation"].as_str().unwrap().to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(4_500)).await;
    let mut confirmed = args.clone();
    confirmed["confirmation"] = json!(c);
    let r = agent(
        &app,
        &token,
        json!([{"op": "call", "name": "updateBlogArticle", "arguments": confirmed}]),
    );
    assert_eq!(r[0]["isError"], json!(true), "{}", r[0]);
    assert!(
        r[0]["result"]["error"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{}",
        r[0]
    );
    let now = app.get(&format!("/api/blog/articles/{oid}")).await;
    assert_eq!(now.data()["slug"], json!("mcp-second"), "{}", now.text);

    // A key past its expiry stops at once, and works again when the expiry is moved on.
    let expire = |at: &str| json!({"expiresAt": at});
    app.patch(
        &format!("/api/rbac/api-keys/{key_id}"),
        &expire("2020-01-01T00:00:00Z"),
    )
    .await;
    assert_eq!(
        app.bearer(&token).get("/api/blog/articles").await.status,
        401
    );
    app.patch(
        &format!("/api/rbac/api-keys/{key_id}"),
        &expire("2099-01-01T00:00:00Z"),
    )
    .await;
    assert_eq!(
        app.bearer(&token).get("/api/blog/articles").await.status,
        200
    );
    // A key turned off, a made-up key and no credentials: 401 before any tool.
    app.patch(
        &format!("/api/rbac/api-keys/{key_id}"),
        &json!({"isActive": false}),
    )
    .await;
    let r = agent(&app, &token, json!([{"op": "listTools"}]));
    assert!(
        r[0]["connectError"]
            .as_str()
            .is_some_and(|m| m.contains("401")),
        "{:?}",
        r
    );
    assert_eq!(
        app.bearer(&token).get("/api/blog/articles").await.status,
        401
    );
    let forged = format!(
        "stoa_ak_{}{}",
        "x".repeat(32),
        uuid::Uuid::now_v7().simple()
    );
    assert_eq!(
        app.bearer(&forged).get("/api/blog/articles").await.status,
        401
    );
    let r = app
        .send(
            app.plain
                .post(app.url("/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        )
        .await;
    assert_eq!(r.status, 401, "{}", r.text);
    assert!(
        r.header("www-authenticate")
            .is_some_and(|h| h.starts_with("Bearer"))
    );
}
dual_test!(mcp_agents_work_within_their_keys, db);
