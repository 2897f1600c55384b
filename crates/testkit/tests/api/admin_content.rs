//! Issue 18 on the server: drafts and scheduled publishing, history and restore, the audit log,
//! and search over translated titles — on SQLite and PostgreSQL.

use serde_json::{Value, json};
use stoa_testkit::users::PASSWORD;
use stoa_testkit::{TestApp, dual_test};

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect()
}

async fn audit_of(app: &TestApp, entity: &str, id: &str) -> Vec<Value> {
    let filters = json!([
        {"column": "entity", "method": "eq", "value": entity},
        {"column": "recordId", "method": "eq", "value": id},
    ]);
    let order =
        json!([{"column": "createdAt", "method": "asc"}, {"column": "id", "method": "asc"}]);
    let r = app
        .get(&format!(
            "/api/platform/audits?filters={}&orderBy={}&limit=100",
            urlencode(&filters.to_string()),
            urlencode(&order.to_string())
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.data().as_array().cloned().unwrap_or_default()
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

async fn a_draft_is_invisible_to_visitors_until_published(app: TestApp) {
    let draft = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "draft-one", "status": "draft", "title": {"en": "Draft"}}),
        )
        .await;
    let live = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "live-one", "title": {"en": "Live"}}),
        )
        .await;
    let (d, l) = (draft["id"].as_str().unwrap(), live["id"].as_str().unwrap());
    assert_eq!(
        live["status"], "published",
        "the column defaults to published"
    );
    let visitor = app.anon();
    let list = visitor.get("/api/blog/articles?limit=100&count=true").await;
    assert_eq!(list.status, 200, "{}", list.text);
    let seen = ids(list.data());
    assert!(
        seen.contains(&l.to_owned()) && !seen.contains(&d.to_owned()),
        "{seen:?}"
    );
    assert_eq!(list.header("x-total-count"), Some("1"));
    let one = visitor.get(&format!("/api/blog/articles/{d}")).await;
    assert_eq!(one.status, 404, "{}", one.text);
    // Filtering on the status cannot reach it either.
    let f = urlencode(&json!([{"column": "status", "method": "eq", "value": "draft"}]).to_string());
    let by_status = visitor
        .get(&format!("/api/blog/articles?filters={f}"))
        .await;
    assert_eq!(by_status.status, 200, "{}", by_status.text);
    assert!(ids(by_status.data()).is_empty(), "{}", by_status.text);
    // The admin sees both.
    let all = app.get("/api/blog/articles?limit=100").await;
    let seen = ids(all.data());
    assert!(seen.contains(&d.to_owned()) && seen.contains(&l.to_owned()));
    assert_eq!(
        app.get(&format!("/api/blog/articles/{d}")).await.status,
        200
    );
    // A signed-in non-admin is a visitor here.
    let user = app.register("reader@example.com").await;
    assert_eq!(
        app.as_account(&user)
            .get(&format!("/api/blog/articles/{d}"))
            .await
            .status,
        404
    );
    // Published: visible at once.
    let p = app
        .patch(
            &format!("/api/blog/articles/{d}"),
            &json!({"status": "published"}),
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert_eq!(
        visitor.get(&format!("/api/blog/articles/{d}")).await.status,
        200
    );
}
dual_test!(a_draft_is_invisible_to_visitors_until_published);

async fn a_draft_widget_is_left_out_of_a_published_page(app: TestApp) {
    let page = app
        .create("/api/host/pages", &json!({"title": "Home", "url": "/"}))
        .await;
    let shown = app
        .create(
            "/api/host/widgets",
            &json!({"slug": "shown", "title": {"en": "Shown"}}),
        )
        .await;
    let hidden = app
        .create(
            "/api/host/widgets",
            &json!({"slug": "hidden", "status": "draft", "title": {"en": "Hidden"}}),
        )
        .await;
    let mut links = Vec::new();
    for (n, w) in [&shown, &hidden].into_iter().enumerate() {
        links.push(
            app.create(
                "/api/host/pages-to-widgets",
                &json!({"pageId": page["id"], "widgetId": w["id"], "orderIndex": n}),
            )
            .await,
        );
    }
    // The link table does not give the draft away either (list, count, by id); admins see both.
    let r = app
        .anon()
        .get("/api/host/pages-to-widgets?limit=100&count=true")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        ids(r.data()),
        [links[0]["id"].as_str().unwrap().to_owned()],
        "{}",
        r.text
    );
    assert_eq!(r.header("x-total-count"), Some("1"));
    let hidden_link = format!(
        "/api/host/pages-to-widgets/{}",
        links[1]["id"].as_str().unwrap()
    );
    assert_eq!(app.anon().get(&hidden_link).await.status, 404);
    assert_eq!(app.get(&hidden_link).await.status, 200);
    assert_eq!(
        ids(app.get("/api/host/pages-to-widgets?limit=100").await.data()).len(),
        2
    );
    let b = app
        .anon()
        .get(&format!("/api/host/pages/bundle?url={}", urlencode("/")))
        .await;
    assert_eq!(b.status, 200, "{}", b.text);
    assert!(b.text.contains("shown"), "{}", b.text);
    assert!(
        !b.text.contains("\"hidden\""),
        "a draft widget leaked: {}",
        b.text
    );
    // A draft page is not found at all.
    app.patch(
        &format!("/api/host/pages/{}", page["id"].as_str().unwrap()),
        &json!({"status": "draft"}),
    )
    .await;
    let b = app
        .anon()
        .get(&format!("/api/host/pages/bundle?url={}", urlencode("/")))
        .await;
    assert_eq!(b.status, 200, "{}", b.text);
    assert!(b.data().is_null(), "a draft page has no bundle: {}", b.text);
}
dual_test!(a_draft_widget_is_left_out_of_a_published_page);

async fn scheduled_publishing_happens_at_its_time(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app_manual(db, |_| {}).await.unwrap();
    let missing_time = app
        .post(
            "/api/blog/articles",
            &json!({"slug": "no-time", "status": "scheduled"}),
        )
        .await;
    assert_eq!(missing_time.status, 422, "{}", missing_time.text);
    assert!(
        missing_time.body["fields"]["publishAt"].is_array(),
        "{}",
        missing_time.text
    );
    let at = time::OffsetDateTime::now_utc() + time::Duration::seconds(2);
    let at = at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let a = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "soon", "status": "scheduled", "publishAt": at}),
        )
        .await;
    let path = format!("/api/blog/articles/{}", a["id"].as_str().unwrap());
    app.drain_jobs().await;
    assert_eq!(
        app.anon().get(&path).await.status,
        404,
        "not before its time"
    );
    tokio::time::sleep(std::time::Duration::from_millis(2300)).await;
    assert!(app.drain_jobs().await >= 1);
    let r = app.anon().get(&path).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["status"], "published");
    // The job's publishing is in the log, as the job.
    let log = audit_of(&app, "blog.article", a["id"].as_str().unwrap()).await;
    let last = log.last().unwrap();
    assert_eq!(last["actor"], "job:platform.publish", "{log:?}");
    assert_eq!(last["changes"]["status"]["after"], "published");
}
dual_test!(scheduled_publishing_happens_at_its_time, db);

async fn edits_are_recorded_and_a_version_can_be_restored(app: TestApp) {
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "First", "url": "/about"}),
        )
        .await;
    let id = page["id"].as_str().unwrap();
    let path = format!("/api/host/pages/{id}");
    for title in ["Second", "Third"] {
        let r = app.patch(&path, &json!({"title": title})).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let log = audit_of(&app, "host.page", id).await;
    let actions: Vec<&str> = log.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["create", "update", "update"], "{log:?}");
    let first_edit = &log[1];
    assert_eq!(first_edit["changes"]["title"]["before"], "First");
    assert_eq!(first_edit["changes"]["title"]["after"], "Second");
    assert_eq!(first_edit["actor"], "secret-key");
    assert!(first_edit["ip"].as_str().is_some_and(|ip| !ip.is_empty()));
    assert!(first_edit["requestId"].as_str().is_some());
    assert!(
        first_edit["changes"].get("updatedAt").is_none(),
        "server-owned fields are not diffed"
    );
    // Restore the state right after the first edit.
    let r = app
        .post(
            &format!(
                "/api/platform/audits/{}/restore",
                first_edit["id"].as_str().unwrap()
            ),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["title"], "Second");
    assert_eq!(app.get(&path).await.data()["title"], "Second");
    let log = audit_of(&app, "host.page", id).await;
    let actions: Vec<&str> = log.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(
        actions,
        ["create", "update", "update", "restore"],
        "{log:?}"
    );
    assert_eq!(log[3]["changes"]["title"]["before"], "Third");
    assert_eq!(log[3]["changes"]["title"]["after"], "Second");
    assert_eq!(log[3]["restoredFrom"], first_edit["id"]);
    assert_eq!(
        log[3]["summary"], "Second",
        "the summary is the page's title"
    );
    // Restoring the create goes back to the first title.
    let r = app
        .post(
            &format!(
                "/api/platform/audits/{}/restore",
                log[0]["id"].as_str().unwrap()
            ),
            &json!({}),
        )
        .await;
    assert_eq!(r.data()["title"], "First", "{}", r.text);
    // The log is the admin's, and nobody writes it through the API.
    assert_eq!(app.anon().get("/api/platform/audits").await.status, 401);
    let user = app.register("nosy@example.com").await;
    assert_eq!(
        app.as_account(&user)
            .get("/api/platform/audits")
            .await
            .status,
        403
    );
    let forged = app
        .post(
            "/api/platform/audits",
            &json!({"action": "create", "entity": "x", "actor": "me"}),
        )
        .await;
    assert!(
        forged.status == 404 || forged.status == 405,
        "{}",
        forged.text
    );
    // A delete is recorded with what was deleted.
    assert_eq!(app.delete(&path).await.status, 200);
    let log = audit_of(&app, "host.page", id).await;
    let last = log.last().unwrap();
    assert_eq!(last["action"], "delete");
    assert_eq!(last["changes"]["url"]["before"], "/about");
    assert!(last["changes"]["url"]["after"].is_null());
}
dual_test!(edits_are_recorded_and_a_version_can_be_restored);

async fn a_password_change_is_audited_without_the_password(app: TestApp) {
    let a = app.register("audited@example.com").await;
    let me = app.as_account(&a);
    let list = me
        .get(&format!("/api/rbac/subjects/{}/identities", a.id))
        .await;
    let iid = list.data()[0]["id"].as_str().unwrap().to_owned();
    let new = "audit-log-never-sees-this-9";
    let r = me
        .patch(
            &format!("/api/rbac/identities/{iid}/change-password"),
            &json!({"password": PASSWORD, "newPassword": new}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let log = audit_of(&app, "rbac.identity", &iid).await;
    let e = log
        .iter()
        .find(|e| e["redacted"].as_array().is_some_and(|r| !r.is_empty()))
        .unwrap_or_else(|| panic!("no password entry in {log:?}"));
    assert_eq!(e["redacted"], json!(["password"]));
    assert_eq!(e["subjectId"], a.id.as_str());
    assert_eq!(e["actorName"], "audited@example.com");
    let all = app.get("/api/platform/audits?limit=100").await;
    assert!(!all.text.contains(new) && !all.text.contains(PASSWORD));
    // A signed-in visitor's own writes outside account security (a social profile, a chat, a
    // cart) are not an admin's: not recorded.
    let before = app.get("/api/platform/audits?limit=0&count=true").await;
    let n = before.header("x-total-count").unwrap().to_owned();
    let r = me
        .post(
            &format!("/api/rbac/subjects/{}/social-module/profiles", a.id),
            &json!({"title": "Not an admin write"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let after = app.get("/api/platform/audits?limit=0&count=true").await;
    assert_eq!(after.header("x-total-count"), Some(n.as_str()));
}
dual_test!(a_password_change_is_audited_without_the_password);

async fn search_finds_translated_titles(app: TestApp) {
    let a = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "tree", "title": {"en": "Plant a tree", "ru": "Посадить дерево"}}),
        )
        .await;
    app.create(
        "/api/blog/articles",
        &json!({"slug": "water", "title": {"en": "Water", "ru": "Полить"}}),
    )
    .await;
    for term in ["дерево", "Посадить", "plant a"] {
        let r = app
            .get(&format!("/api/blog/articles?search={}", urlencode(term)))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(
            ids(r.data()),
            [a["id"].as_str().unwrap().to_owned()],
            "{term}: {}",
            r.text
        );
    }
    let p = app
        .create(
            "/api/ecommerce/products",
            &json!({"slug": "tee", "title": {"ru": "Футболка с логотипом"}}),
        )
        .await;
    let r = app
        .get(&format!(
            "/api/ecommerce/products?search={}",
            urlencode("логотип")
        ))
        .await;
    assert_eq!(
        ids(r.data()),
        [p["id"].as_str().unwrap().to_owned()],
        "{}",
        r.text
    );
}
dual_test!(search_finds_translated_titles);

async fn an_admin_previews_a_draft_page_and_visitors_cannot(app: TestApp) {
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "Secret launch", "url": "/launch", "status": "draft"}),
        )
        .await;
    let admin = app.admin_account("previewer@example.com").await;
    let bundle = |preview: bool| {
        format!(
            "/api/host/pages/bundle?url={}{}",
            urlencode("/launch"),
            if preview { "&preview=true" } else { "" }
        )
    };
    // The admin's preview has the draft; the plain bundle (shared, cached) never does.
    let r = app.bearer(&admin.jwt).get(&bundle(true)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.text.contains("Secret launch"), "{}", r.text);
    let r = app.bearer(&admin.jwt).get(&bundle(false)).await;
    assert!(r.data().is_null(), "{}", r.text);
    for who in [
        app.anon(),
        app.bearer(&app.register("peek@example.com").await.jwt),
    ] {
        let r = who.get(&bundle(true)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert!(
            r.data().is_null(),
            "a visitor previewed a draft: {}",
            r.text
        );
    }
    // The page itself: the admin's `?preview` renders it, uncached and not indexed.
    let r = app.bearer(&admin.jwt).get("/en/launch?preview=1").await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.text.contains("Secret launch"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert!(
        r.header("x-robots-tag")
            .is_some_and(|v| v.contains("noindex"))
    );
    let r = app.anon().get("/en/launch?preview=1").await;
    assert_eq!(r.status, 404);
    assert!(!r.text.contains("Secret launch"));
    // Published, it is everyone's.
    app.patch(
        &format!("/api/host/pages/{}", page["id"].as_str().unwrap()),
        &json!({"status": "published"}),
    )
    .await;
    let r = app.anon().get(&bundle(false)).await;
    assert!(r.text.contains("Secret launch"), "{}", r.text);
}
dual_test!(an_admin_previews_a_draft_page_and_visitors_cannot);

async fn a_permission_change_takes_effect_at_once_and_is_recorded(app: TestApp) {
    let f = urlencode(
        &json!([
            {"column": "method", "method": "eq", "value": "GET"},
            {"column": "path", "method": "eq", "value": "/api/blog/articles"},
        ])
        .to_string(),
    );
    let r = app.get(&format!("/api/rbac/permissions?filters={f}")).await;
    let perm = r.data()[0].clone();
    assert_eq!(perm["public"], true, "{}", r.text);
    let path = format!("/api/rbac/permissions/{}", perm["id"].as_str().unwrap());
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 200);
    let r = app.patch(&path, &json!({"public": false})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 401);
    let log = audit_of(&app, "rbac.permission", perm["id"].as_str().unwrap()).await;
    let last = log.last().unwrap();
    assert_eq!(
        last["changes"]["public"],
        json!({"before": true, "after": false})
    );
    // Permission rows are not restored from the log (the guard rails would not see it).
    let r = app
        .post(
            &format!(
                "/api/platform/audits/{}/restore",
                last["id"].as_str().unwrap()
            ),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    app.patch(&path, &json!({"public": true})).await;
    assert_eq!(app.anon().get("/api/blog/articles").await.status, 200);
}
dual_test!(a_permission_change_takes_effect_at_once_and_is_recorded);

async fn old_audit_entries_are_deleted_after_the_retention(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app_manual(db, |c| c.audit_retention_days = 30)
        .await
        .unwrap();
    let page = app
        .create("/api/host/pages", &json!({"title": "Kept", "url": "/kept"}))
        .await;
    let id = page["id"].as_str().unwrap();
    app.patch(
        &format!("/api/host/pages/{id}"),
        &json!({"title": "Edited"}),
    )
    .await;
    let log = audit_of(&app, "host.page", id).await;
    assert_eq!(log.len(), 2);
    let old: uuid::Uuid = log[0]["id"].as_str().unwrap().parse().unwrap();
    let long_ago = stoa_kernel::value::now() - time::Duration::days(31);
    app.write_raw(
        "platform.audit",
        old,
        &[("createdAt", stoa_kernel::value::Val::Timestamp(long_ago))],
    )
    .await;
    stoa_store::jobs::enqueue_now(
        &app.store.db,
        &stoa_store::jobs::NewJob::now(stoa_api::platform::JOB_RETENTION, json!({})),
    )
    .await
    .unwrap();
    assert!(app.drain_jobs().await >= 1);
    let log = audit_of(&app, "host.page", id).await;
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["action"], "update");
}
dual_test!(old_audit_entries_are_deleted_after_the_retention, db);

async fn publishing_a_page_takes_its_draft_widgets_or_names_them(app: TestApp) {
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "Campaign", "url": "/campaign", "status": "draft"}),
        )
        .await;
    let w = app
        .create(
            "/api/host/widgets",
            &json!({"slug": "hero", "adminTitle": "Hero banner", "status": "draft"}),
        )
        .await;
    app.create(
        "/api/host/pages-to-widgets",
        &json!({"pageId": page["id"], "widgetId": w["id"]}),
    )
    .await;
    let path = format!("/api/host/pages/{}/publish", page["id"].as_str().unwrap());
    let r = app.post(&path, &json!({})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert!(r.text.contains("Hero banner"), "{}", r.text);
    assert_eq!(r.body["fields"]["widgets"], json!(["Hero banner"]));
    assert_eq!(
        app.get(&format!("/api/host/pages/{}", page["id"].as_str().unwrap()))
            .await
            .data()["status"],
        "draft",
        "nothing was published"
    );
    let r = app.post(&path, &json!({"withWidgets": true})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["page"]["status"], "published");
    assert_eq!(r.data()["widgets"][0]["status"], "published");
    let b = app
        .anon()
        .get(&format!(
            "/api/host/pages/bundle?url={}",
            urlencode("/campaign")
        ))
        .await;
    assert!(b.text.contains("\"hero\""), "{}", b.text);
    assert_eq!(
        app.anon().post(&path, &json!({})).await.status,
        401,
        "admins only"
    );
}
dual_test!(publishing_a_page_takes_its_draft_widgets_or_names_them);

async fn scheduling_a_page_schedules_its_draft_widgets_for_the_same_moment(app: TestApp) {
    let rfc = |d: time::Duration| {
        (time::OffsetDateTime::now_utc() + d)
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    };
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "Launch", "url": "/launch", "status": "draft"}),
        )
        .await;
    let draft = app
        .create(
            "/api/host/widgets",
            &json!({"slug": "launch-hero", "adminTitle": "Launch hero", "status": "draft"}),
        )
        .await;
    let sooner = rfc(time::Duration::minutes(30));
    let early = app
        .create(
            "/api/host/widgets",
            &json!({"slug": "launch-early", "adminTitle": "Early", "status": "scheduled", "publishAt": sooner}),
        )
        .await;
    for w in [&draft, &early] {
        app.create(
            "/api/host/pages-to-widgets",
            &json!({"pageId": page["id"], "widgetId": w["id"]}),
        )
        .await;
    }
    let id = page["id"].as_str().unwrap();
    let path = format!("/api/host/pages/{id}/publish");
    let at = rfc(time::Duration::hours(2));
    // Without the widgets: refused, naming them, and nothing changes.
    let r = app.post(&path, &json!({"publishAt": at})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert!(r.text.contains("Launch hero"), "{}", r.text);
    assert_eq!(
        app.get(&format!("/api/host/pages/{id}")).await.data()["status"],
        "draft"
    );
    // A time that is not one is the client's mistake, said on the field.
    let r = app
        .post(&path, &json!({"publishAt": 5, "withWidgets": true}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = app
        .post(&path, &json!({"publishAt": at, "withWidgets": true}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let same = |a: &serde_json::Value, b: &str| {
        let p = |s: &str| {
            time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).unwrap()
        };
        // (Stored to the microsecond.)
        (p(a.as_str().unwrap()) - p(b)).abs() < time::Duration::milliseconds(1)
    };
    assert_eq!(r.data()["page"]["status"], "scheduled");
    assert!(same(&r.data()["page"]["publishAt"], &at), "{}", r.text);
    let w = app
        .get(&format!(
            "/api/host/widgets/{}",
            draft["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(w.data()["status"], "scheduled", "{}", w.text);
    assert!(same(&w.data()["publishAt"], &at), "{}", w.text);
    // The widget already going live sooner keeps its own time.
    let e = app
        .get(&format!(
            "/api/host/widgets/{}",
            early["id"].as_str().unwrap()
        ))
        .await;
    assert!(same(&e.data()["publishAt"], &sooner), "{}", e.text);
    // Visitors see none of it yet.
    let b = app
        .anon()
        .get(&format!(
            "/api/host/pages/bundle?url={}",
            urlencode("/launch")
        ))
        .await;
    assert!(!b.text.contains("launch-hero"), "{}", b.text);
}
dual_test!(scheduling_a_page_schedules_its_draft_widgets_for_the_same_moment);

async fn the_start_page_counts_scheduled_records_in_one_request(app: TestApp) {
    let at = (time::OffsetDateTime::now_utc() + time::Duration::hours(3))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let before = app.get("/api/platform/scheduled").await;
    assert_eq!(before.status, 200, "{}", before.text);
    let base = before.data()["total"].as_u64().unwrap();
    for slug in ["later-a", "later-b"] {
        app.create(
            "/api/blog/articles",
            &json!({"slug": slug, "status": "scheduled", "publishAt": at}),
        )
        .await;
    }
    app.create(
        "/api/blog/articles",
        &json!({"slug": "now", "status": "published"}),
    )
    .await;
    app.create(
        "/api/host/pages",
        &json!({"title": "Later", "url": "/later", "status": "scheduled", "publishAt": at}),
    )
    .await;
    let r = app.get("/api/platform/scheduled").await;
    assert_eq!(r.status, 200, "{}", r.text);
    let d = r.data();
    assert_eq!(d["total"].as_u64().unwrap(), base + 3, "{}", r.text);
    assert_eq!(d["exact"], true);
    let of = |key: &str| {
        d["entities"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["entity"] == key)
            .map(|x| x["count"].as_u64().unwrap())
    };
    assert!(of("blog.article").unwrap() >= 2, "{}", r.text);
    assert!(of("host.page").unwrap() >= 1, "{}", r.text);
    assert_eq!(
        app.anon().get("/api/platform/scheduled").await.status,
        401,
        "admins only"
    );
}
dual_test!(the_start_page_counts_scheduled_records_in_one_request);

async fn records_missing_a_language_are_found_across_pages(app: TestApp) {
    for (slug, title) in [
        ("only-en", json!({"en": "Only English"})),
        ("both", json!({"en": "Both", "ru": "Оба"})),
        ("blank-ru", json!({"en": "Blank", "ru": ""})),
    ] {
        app.create("/api/blog/articles", &json!({"slug": slug, "title": title}))
            .await;
    }
    let slugs = |method: &str| {
        let f = urlencode(&json!([{"column": "title->>ru", "method": method}]).to_string());
        let app = &app;
        async move {
            let r = app
                .get(&format!(
                    "/api/blog/articles?filters={f}&count=true&limit=1"
                ))
                .await;
            assert_eq!(r.status, 200, "{}", r.text);
            let total = r.header("x-total-count").unwrap().to_owned();
            let r = app.get(&format!("/api/blog/articles?filters={f}")).await;
            let mut s: Vec<String> = r
                .data()
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["slug"].as_str().unwrap().to_owned())
                .collect();
            s.sort();
            (s, total)
        }
    };
    assert_eq!(
        slugs("isEmpty").await,
        (vec!["blank-ru".into(), "only-en".into()], "2".into())
    );
    assert_eq!(slugs("isNotEmpty").await, (vec!["both".into()], "1".into()));
    let f = urlencode(&json!([{"column": "createdAt", "method": "isEmpty"}]).to_string());
    assert_eq!(
        app.get(&format!("/api/blog/articles?filters={f}"))
            .await
            .status,
        400
    );
}
dual_test!(records_missing_a_language_are_found_across_pages);

async fn a_blank_required_text_is_refused_as_the_form_refuses_it(app: TestApp) {
    let r = app
        .post("/api/host/pages", &json!({"title": "   ", "url": "/blank"}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"]["title"].is_array(), "{}", r.text);
    // Left out, the declared default applies as before.
    let p = app
        .create("/api/host/pages", &json!({"url": "/defaulted"}))
        .await;
    assert_eq!(p["title"], "Page");
    let r = app
        .patch(
            &format!("/api/host/pages/{}", p["id"].as_str().unwrap()),
            &json!({"title": ""}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
}
dual_test!(a_blank_required_text_is_refused_as_the_form_refuses_it);
