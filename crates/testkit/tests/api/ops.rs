//! Operations basics: health, readiness, request ids, security headers, meta and the docs page.

use serde_json::json;
use stoa_testkit::{TestApp, dual_test};

async fn health_ready_and_request_ids(app: TestApp) {
    let r = app.get("/health").await;
    assert_eq!((r.status, r.data()["status"].clone()), (200, json!("ok")));
    let r = app.get("/ready").await;
    assert_eq!(
        (r.status, r.data()["status"].clone()),
        (200, json!("ready"))
    );
    assert!(r.header("x-request-id").is_some_and(|v| v.len() >= 16));
    let r = app
        .send(
            app.client
                .get(app.url("/health"))
                .header("x-request-id", "trace-me-123"),
        )
        .await;
    assert_eq!(r.header("x-request-id"), Some("trace-me-123"));
    let r = app
        .send(
            app.client
                .get(app.url("/health"))
                .header("x-request-id", "bad id <forged>"),
        )
        .await;
    assert_ne!(r.header("x-request-id"), Some("bad id <forged>"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert!(
        r.header("content-security-policy")
            .is_some_and(|v| v.contains("frame-ancestors"))
    );
    assert!(r.header("referrer-policy").is_some());
    let err = app.get("/api/blog/articles/nope").await;
    assert_eq!(err.header("x-request-id"), err.body["requestId"].as_str());
}
dual_test!(health_ready_and_request_ids);

async fn meta_describes_every_entity(app: TestApp) {
    let r = app.get("/api/meta").await;
    assert_eq!(r.status, 200);
    let entities = r.data()["entities"].as_array().cloned().unwrap_or_default();
    assert_eq!(entities.len(), app.registry.entities().len());
    let modules: Vec<&str> = r.data()["modules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str())
        .collect();
    // The twelve product modules, plus the platform's own tables (the job queue).
    for m in [
        "analytic",
        "billing",
        "blog",
        "crm",
        "ecommerce",
        "file-storage",
        "host",
        "notification",
        "rbac",
        "social",
        "startup",
        "website-builder",
    ] {
        assert!(modules.contains(&m), "{m} missing from {modules:?}");
    }
    assert_eq!(modules.len(), 13, "{modules:?}");
    assert!(modules.contains(&"platform"), "{modules:?}");
    let button = entities
        .iter()
        .find(|e| e["module"] == "website-builder" && e["name"] == "button")
        .cloned()
        .unwrap_or_default();
    assert_eq!(button["route"], "buttons");
    assert_eq!(button["variants"].as_array().map(Vec::len), Some(16));
    let slug = button["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["name"] == "slug")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (slug["unique"].clone(), slug["required"].clone()),
        (json!(true), json!(true))
    );
    let page = entities
        .iter()
        .find(|e| e["module"] == "host" && e["name"] == "page")
        .cloned()
        .unwrap_or_default();
    let referenced: Vec<&str> = page["referencedBy"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(
        referenced.contains(&"pages-to-widgets") && referenced.contains(&"pages-to-layouts"),
        "{referenced:?}"
    );
    let rel = entities
        .iter()
        .find(|e| e["name"] == "pages-to-widgets")
        .cloned()
        .unwrap_or_default();
    let target = rel["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["name"] == "pageId")
        .map(|f| f["target"].clone());
    assert_eq!(target, Some(json!("host.page")));
}
dual_test!(meta_describes_every_entity);

async fn the_docs_page_is_served_without_a_cdn(app: TestApp) {
    let r = app.send(app.client.get(app.url("/api/docs"))).await;
    assert_eq!(r.status, 200, "the redirect lands on the page");
    assert!(
        r.text.contains("swagger-ui"),
        "{}",
        &r.text[..r.text.len().min(300)]
    );
    assert!(
        !r.text.contains("https://"),
        "the page loads something from the internet"
    );
    for asset in [
        "swagger-ui.css",
        "swagger-ui-bundle.js",
        "swagger-initializer.js",
    ] {
        let a = app.get(&format!("/api/docs/{asset}")).await;
        assert_eq!(a.status, 200, "{asset}");
    }
    let init = app.get("/api/docs/swagger-initializer.js").await;
    assert!(init.text.contains("/api/openapi.json"));
}
dual_test!(the_docs_page_is_served_without_a_cdn);

async fn migrations_are_recorded_and_idempotent(app: TestApp) {
    let plan = stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .unwrap_or_else(|e| panic!("plan: {e}"));
    let pending: Vec<&String> = plan
        .iter()
        .filter(|s| !s.contains("stoa_migrations"))
        .collect();
    assert!(
        pending.is_empty(),
        "a migrated database still plans: {pending:?}"
    );
    let again = stoa_store::ddl::migrate(&app.store.db, &app.registry)
        .await
        .unwrap_or_else(|e| panic!("migrate: {e}"));
    assert!(again.is_empty(), "a second migrate ran {again:?}");
    let mut c = app.store.db.read().await.unwrap_or_else(|e| panic!("{e}"));
    let n: i64 = match c.exec() {
        stoa_store::Exec::Sqlite(c) => c
            .query_row("SELECT COUNT(*) FROM stoa_migrations", [], |r| r.get(0))
            .map_err(|e| sqlx::Error::Protocol(e.to_string())),
        stoa_store::Exec::Postgres(c) => {
            sqlx::query_scalar("SELECT COUNT(*) FROM stoa_migrations")
                .fetch_one(&mut *c)
                .await
        }
    }
    .unwrap_or(-1);
    assert_eq!(n, 1, "one recorded migration for a fresh database");
}
dual_test!(migrations_are_recorded_and_idempotent);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_runs_with_the_durability_settings() {
    let app = stoa_testkit::spawn_app(stoa_testkit::Db::Sqlite)
        .await
        .expect("app");
    let mut c = app.store.db.read().await.unwrap_or_else(|e| panic!("{e}"));
    let stoa_store::Exec::Sqlite(c) = c.exec() else {
        panic!("not sqlite")
    };
    let pragma = |p: &str| -> String {
        c.query_row(&format!("SELECT CAST(({p}) AS TEXT)"), [], |r| r.get(0))
            .unwrap_or_default()
    };
    let journal = pragma("SELECT journal_mode FROM pragma_journal_mode");
    let sync: i64 = pragma("SELECT synchronous FROM pragma_synchronous")
        .parse()
        .unwrap_or(-1);
    let fk: i64 = pragma("SELECT foreign_keys FROM pragma_foreign_keys")
        .parse()
        .unwrap_or(-1);
    let busy: i64 = pragma("SELECT timeout FROM pragma_busy_timeout")
        .parse()
        .unwrap_or(-1);
    assert_eq!((journal.as_str(), sync, fk), ("wal", 2, 1));
    assert!(busy >= 5000, "busy_timeout {busy}");
}
