//! Walks the registry: every entity round-trips through the HTTP API.

use serde_json::{Value, json};
use stoa_kernel::model::{Entity, Kind};
use stoa_testkit::fixtures::{body, distinguishing_field, path, random_value};
use stoa_testkit::{TestApp, dual_test};

/// The field a contract PATCH changes.
fn patch_field(e: &Entity) -> Option<&stoa_kernel::model::Field> {
    let writable = || {
        e.fields
            .iter()
            .filter(|f| !f.server_owned && !f.secret && !f.unique && f.kind != Kind::Reference)
    };
    writable()
        .find(|f| f.kind == Kind::Text && f.format == stoa_kernel::model::Format::None)
        .or_else(|| writable().find(|f| f.kind == Kind::Int))
        .or_else(|| writable().find(|f| f.kind == Kind::Translations))
        .or_else(|| writable().find(|f| f.kind == Kind::Bool))
}

/// Scalar, non-null fields of a record that find-or-create can match on.
fn match_keys(e: &Entity, rec: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for f in e.fields.iter().filter(|f| !f.server_owned && !f.secret) {
        if f.kind.is_json() || f.kind == Kind::Timestamp || rec[f.name].is_null() {
            continue;
        }
        out.insert(f.name.to_owned(), rec[f.name].clone());
    }
    Value::Object(out)
}

async fn round_trip(app: &TestApp, e: &Entity) {
    let p = path(e);
    let key = e.key();

    // Create.
    let input = Value::Object(body(app, e).await);
    let created = app.create(&p, &input).await;
    let id = created["id"].as_str().unwrap_or_default().to_owned();
    assert_eq!(id.len(), 36, "{key}: id {created}");
    for f in e.fields.iter() {
        if f.secret {
            assert!(
                created.get(f.name).is_none(),
                "{key}: secret {} serialised",
                f.name
            );
        } else {
            assert!(
                created.get(f.name).is_some(),
                "{key}: {} missing from {created}",
                f.name
            );
        }
    }
    for (k, v) in input.as_object().into_iter().flatten() {
        assert_eq!(&created[k], v, "{key}: {k} not stored as sent");
    }

    // Find with eq and inArray.
    let r = app
        .get(&format!(
            "{p}?filters[and][0][column]=id&filters[and][0][method]=eq&filters[and][0][value]={id}"
        ))
        .await;
    assert_eq!(r.status, 200, "{key}: {}", r.text);
    assert_eq!(r.data().as_array().map(Vec::len), Some(1), "{key}: eq");
    let other = uuid::Uuid::now_v7();
    let r = app
        .get(&format!(
            "{p}?filters[and][0][column]=id&filters[and][0][method]=inArray&filters[and][0][value][0]={other}&filters[and][0][value][1]={id}"
        ))
        .await;
    assert_eq!(
        r.data().as_array().map(Vec::len),
        Some(1),
        "{key}: inArray {}",
        r.text
    );
    assert_eq!(r.data()[0]["id"], json!(id));

    // Get.
    let r = app.get(&format!("{p}/{id}")).await;
    assert_eq!(r.status, 200, "{key}: {}", r.text);
    assert_eq!(r.data(), &created, "{key}: get differs from create");

    // Patch one field; the others stay.
    if let Some(f) = patch_field(e) {
        let v = random_value(f);
        let r = app.patch(&format!("{p}/{id}"), &json!({ f.name: v })).await;
        assert_eq!(r.status, 200, "{key}: patch {}: {}", f.name, r.text);
        assert_eq!(r.data()[f.name], v, "{key}: {} not patched", f.name);
        for g in e
            .public_fields()
            .filter(|g| g.name != f.name && g.name != "updatedAt")
        {
            assert_eq!(
                r.data()[g.name],
                created[g.name],
                "{key}: patching {} changed {}",
                f.name,
                g.name
            );
        }
    }

    // Find-or-create: the existing record (200), then a new one (201).
    let current = app.get(&format!("{p}/{id}")).await.data().clone();
    let r = app
        .post(&format!("{p}/find-or-create"), &match_keys(e, &current))
        .await;
    assert_eq!(r.status, 200, "{key}: find-or-create existing: {}", r.text);
    assert_eq!(
        r.data()["id"],
        json!(id),
        "{key}: find-or-create found another record"
    );
    let mut fresh = body(app, e).await;
    if let Some(f) = distinguishing_field(e) {
        fresh.insert(f.name.to_owned(), random_value(f));
    }
    let r = app
        .post(&format!("{p}/find-or-create"), &Value::Object(fresh))
        .await;
    assert_eq!(r.status, 201, "{key}: find-or-create new: {}", r.text);
    assert_ne!(r.data()["id"], json!(id));

    // Bulk create 3.
    let mut items = Vec::new();
    for _ in 0..3 {
        items.push(json!({ "data": Value::Object(body(app, e).await) }));
    }
    let r = app.post(&format!("{p}/bulk"), &Value::Array(items)).await;
    assert_eq!(r.status, 201, "{key}: bulk: {}", r.text);
    assert_eq!(
        r.data().as_array().map(Vec::len),
        Some(3),
        "{key}: bulk count"
    );

    // Delete, then 404.
    let r = app.delete(&format!("{p}/{id}")).await;
    assert_eq!(r.status, 200, "{key}: delete: {}", r.text);
    assert_eq!(r.data()["id"], json!(id));
    let r = app.get(&format!("{p}/{id}")).await;
    assert_eq!(r.status, 404, "{key}: after delete: {}", r.text);
    assert_eq!(r.body["code"], "not_found");
}

async fn every_entity_round_trips_through_the_api(app: TestApp) {
    let entities: Vec<_> = app.registry.entities().to_vec();
    assert!(
        entities.len() >= 120,
        "only {} entities declared",
        entities.len()
    );
    for e in &entities {
        if !e.ops.create {
            // Read-only through the API (written by the module's services): writes are refused.
            let r = app
                .post(&stoa_testkit::fixtures::path(e), &serde_json::json!({}))
                .await;
            assert_eq!(r.status, 405, "{}: {}", e.key(), r.text);
            continue;
        }
        round_trip(&app, e).await;
    }
}
dual_test!(every_entity_round_trips_through_the_api);

async fn forms_are_taken_only_where_files_are(app: TestApp) {
    // A route without file fields takes JSON only, and stores nothing from a form.
    let r = app
        .post_multipart(
            "/api/blog/articles",
            &json!({"title": {"en": "From a form"}, "slug": "from-a-form"}),
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.text);
    assert!(r.text.contains("application/json"), "{}", r.text);
    let found = app
        .get("/api/blog/articles?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=from-a-form")
        .await;
    assert_eq!(found.data(), &json!([]));
    // A file route reads its form's `data` part like a JSON body.
    let r = app
        .post_multipart(
            "/api/file-storage/files",
            &json!({"file": "https://example.org/a.png", "localizedAlt": {"en": "From a form"}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["file"], "https://example.org/a.png");
    assert_eq!(r.data()["localizedAlt"]["en"], "From a form");
}
dual_test!(forms_are_taken_only_where_files_are);

async fn defaults_follow_the_declaration(app: TestApp) {
    let a = app.create("/api/blog/articles", &json!({})).await;
    assert_eq!(a["variant"], "default");
    assert_eq!(a["title"], json!({}));
    assert_eq!(
        a["description"]["en"],
        json!({"type": "doc", "content": [{"type": "paragraph"}]})
    );
    let slug = a["slug"].as_str().unwrap_or_default();
    assert_eq!(slug.split('-').count(), 3, "slug {slug}");
    assert_eq!(
        a["adminTitle"].as_str().map(|t| t.split(' ').count()),
        Some(3)
    );
    let page = app
        .create("/api/host/pages", &json!({"url": "/about"}))
        .await;
    assert_eq!(page["title"], "Page");
    assert_eq!(page["language"], "en");
    let rel = app.create("/api/host/pages-to-widgets", &json!({
        "pageId": page["id"], "widgetId": app.create("/api/host/widgets", &json!({})).await["id"]
    })).await;
    assert_eq!(rel["orderIndex"], 0);
    // A client-sent id and timestamps are ignored.
    let x = app.create("/api/blog/articles", &json!({"id": "00000000-0000-0000-0000-000000000001", "createdAt": "2000-01-01T00:00:00Z"})).await;
    assert_ne!(x["id"], "00000000-0000-0000-0000-000000000001");
    assert_ne!(x["createdAt"], "2000-01-01T00:00:00.000000Z");
}
dual_test!(defaults_follow_the_declaration);

async fn patch_does_not_reset_omitted_translation_maps(app: TestApp) {
    let a = app
        .create(
            "/api/blog/articles",
            &json!({"title": {"en": "T", "ru": "Т"}, "subtitle": {"en": "S"}}),
        )
        .await;
    let id = a["id"].as_str().unwrap_or_default();
    let r = app
        .patch(
            &format!("/api/blog/articles/{id}"),
            &json!({"subtitle": {"en": "S2"}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["title"], json!({"en": "T", "ru": "Т"}));
    assert_eq!(r.data()["subtitle"], json!({"en": "S2"}));
    assert!(r.data()["updatedAt"].as_str() >= a["updatedAt"].as_str());
}
dual_test!(patch_does_not_reset_omitted_translation_maps);

async fn secrets_are_never_serialised_or_written(app: TestApp) {
    let r = app.post("/api/rbac/identities", &json!({"email": "a@example.com", "password": "hunter22", "salt": "x", "code": "123456"})).await;
    assert_eq!(r.status, 201, "{}", r.text);
    for secret in ["password", "salt", "code"] {
        assert!(!r.text.contains(secret), "{secret} in {}", r.text);
    }
    let listed = app.get("/api/rbac/identities").await;
    assert!(
        !listed.text.contains("hunter22") && !listed.text.contains("password"),
        "{}",
        listed.text
    );
    let meta = app.get("/api/meta").await;
    let identity = meta.data()["entities"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["module"] == "rbac" && e["name"] == "identity")
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = identity["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert!(
        names.contains(&"email")
            && !names.contains(&"password")
            && !names.contains(&"salt")
            && !names.contains(&"code"),
        "{names:?}"
    );
}
dual_test!(secrets_are_never_serialised_or_written);

async fn bulk_is_all_or_nothing(app: TestApp) {
    let r = app
        .post("/api/blog/categories/bulk", &json!([{"data": {"slug": "one"}}, {"data": {"slug": "two"}}, {"data": {"slug": "one"}}]))
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert!(r.body["fields"].get("[2].slug").is_some(), "{}", r.text);
    let list = app.get("/api/blog/categories").await;
    assert_eq!(
        list.data().as_array().map(Vec::len),
        Some(0),
        "a failed bulk left rows: {}",
        list.text
    );

    let a = app
        .create("/api/blog/categories", &json!({"slug": "a"}))
        .await;
    let b = app
        .create("/api/blog/categories", &json!({"slug": "b"}))
        .await;
    let r = app
        .patch("/api/blog/categories/bulk", &json!([{"id": a["id"], "data": {"className": "x"}}, {"id": b["id"], "data": {"slug": "a"}}]))
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    let a2 = app
        .get(&format!(
            "/api/blog/categories/{}",
            a["id"].as_str().unwrap_or_default()
        ))
        .await;
    assert_eq!(
        a2.data()["className"],
        Value::Null,
        "the first update of a failed bulk was kept"
    );
    let r = app
        .patch("/api/blog/categories/bulk", &json!([{"id": a["id"], "data": {"className": "x"}}, {"id": b["id"], "data": {"className": "y"}}]))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()[1]["className"], "y");
    let too_many: Vec<Value> = (0..101).map(|_| json!({"data": {}})).collect();
    let r = app
        .post("/api/blog/categories/bulk", &Value::Array(too_many))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
}
dual_test!(bulk_is_all_or_nothing);

async fn concurrent_writers_all_succeed(app: TestApp) {
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for i in 0..40 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let r = app
                .post(
                    "/api/analytic/metrics",
                    &json!({"title": format!("m{i}"), "value": i}),
                )
                .await;
            let list = app.get("/api/analytic/metrics?limit=5").await;
            (r.status, list.status)
        }));
    }
    for t in tasks {
        let (w, r) = t.await.unwrap_or((0, 0));
        assert_eq!((w, r), (201, 200), "a concurrent write or read failed");
    }
    let r = app.get("/api/analytic/metrics?count=true&limit=1").await;
    assert_eq!(r.header("x-total-count"), Some("40"));
}
dual_test!(concurrent_writers_all_succeed);

/// A slug the store generates is drawn again when another row holds it (the insert skips a
/// taken slug rather than fail); a slug the caller gives that is taken is refused, not redrawn.
async fn a_generated_slug_that_is_taken_is_drawn_again(app: TestApp) {
    use stoa_kernel::value::Val;
    let store = &app.store;
    let e = store.entity("rbac.subject").unwrap();
    let first = store.create(&e, &serde_json::Map::new()).await.unwrap();
    let taken = first.text("slug").unwrap().to_owned();
    assert!(stoa_kernel::words::is_made_up(&taken), "{taken}");
    let slot = e.field_index("slug").unwrap();
    let mut tx = store.begin().await.unwrap();
    let row = store
        .create_with_in(
            &mut tx.exec(),
            &e,
            &serde_json::Map::new(),
            &[(slot, Val::Text(taken.clone()))],
        )
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let drawn = row.text("slug").unwrap();
    assert_ne!(drawn, taken);
    assert!(stoa_kernel::words::is_made_up(drawn), "{drawn}");
    let given: serde_json::Map<String, Value> =
        serde_json::from_value(json!({ "slug": taken })).unwrap();
    let err = store.create(&e, &given).await.unwrap_err();
    assert!(
        matches!(err, stoa_kernel::Error::Conflict { .. }),
        "{err:?}"
    );
}
dual_test!(a_generated_slug_that_is_taken_is_drawn_again);

/// `repo::find_siblings`: the links of the rows the given values link to, in one read — every
/// role of the subjects holding role A, and nothing of a subject without it.
async fn siblings_are_the_links_of_the_rows_linked_to_the_values(app: TestApp) {
    use stoa_kernel::value::Val;
    let store = &app.store;
    let subject = store.entity("rbac.subject").unwrap();
    let role = store.entity("rbac.role").unwrap();
    let link = store.entity("rbac.subjects-to-roles").unwrap();
    let new = |title: &str| {
        serde_json::from_value::<serde_json::Map<String, Value>>(json!({ "title": title })).unwrap()
    };
    let mut subjects = Vec::new();
    for _ in 0..2 {
        let s = store
            .create(&subject, &serde_json::Map::new())
            .await
            .unwrap();
        subjects.push(s.id().unwrap());
    }
    let mut roles = Vec::new();
    for t in ["siblings a", "siblings b", "siblings c"] {
        roles.push(store.create(&role, &new(t)).await.unwrap().id().unwrap());
    }
    let mut tx = store.begin().await.unwrap();
    for (s, r) in [(0, 0), (0, 1), (1, 2)] {
        store
            .link_in(
                &mut tx.exec(),
                &link,
                ("subjectId", subjects[s]),
                ("roleId", roles[r]),
            )
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let mut exec = tx.exec();
    let found = |rows: Vec<stoa_store::Record>| {
        let mut pairs: Vec<_> = rows
            .iter()
            .map(|l| (l.uuid("subjectId").unwrap(), l.uuid("roleId").unwrap()))
            .collect();
        pairs.sort();
        pairs
    };
    let rows = stoa_store::repo::find_siblings(
        &mut exec,
        &link,
        "roleId",
        &[Val::Uuid(roles[0])],
        "subjectId",
        10,
    )
    .await
    .unwrap();
    let mut want = vec![(subjects[0], roles[0]), (subjects[0], roles[1])];
    want.sort();
    assert_eq!(found(rows), want);
    let none = stoa_store::repo::find_siblings(&mut exec, &link, "roleId", &[], "subjectId", 10)
        .await
        .unwrap();
    assert!(none.is_empty());
    let capped = stoa_store::repo::find_siblings(
        &mut exec,
        &link,
        "roleId",
        &[Val::Uuid(roles[0]), Val::Uuid(roles[2])],
        "subjectId",
        2,
    )
    .await
    .unwrap();
    assert_eq!(capped.len(), 2);
    let err = stoa_store::repo::find_siblings(&mut exec, &link, "nope", &[], "subjectId", 1)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, stoa_kernel::Error::Internal(m) if m.contains("nope")),
        "{err:?}"
    );
}
dual_test!(siblings_are_the_links_of_the_rows_linked_to_the_values);
