//! Operations basics: health, readiness, request ids, security headers, meta and the docs page.

use serde_json::{Value, json};
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
    // No one frames the site, except the admin its own preview (the page builder's).
    let page = app.anon().get("/").await;
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(
        page.header("content-security-policy")
            .is_some_and(|v| v.contains("frame-ancestors 'none'"))
    );
    let preview = app.anon().get("/?preview=1").await;
    assert_eq!(preview.header("x-frame-options"), Some("SAMEORIGIN"));
    assert!(
        preview
            .header("content-security-policy")
            .is_some_and(|v| v.contains("frame-ancestors 'self'") && !v.contains("'none'"))
    );
    let api = app.anon().get("/api/meta?preview=1").await;
    assert_eq!(api.header("x-frame-options"), Some("DENY"));
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
        "webhook",
        "website-builder",
    ] {
        assert!(modules.contains(&m), "{m} missing from {modules:?}");
    }
    assert_eq!(modules.len(), 14, "{modules:?}");
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
    // The words editors read, from the modules' words.toml: the page's names and place in the
    // side list, a field's label (a shared one: `slug`), an enum value's words.
    assert_eq!(
        (
            &page["label"]["ru"],
            &page["labelMany"]["en"],
            &page["group"]
        ),
        (&json!("Страница"), &json!("Pages"), &json!("site"))
    );
    assert!(page["rank"].is_u64(), "{}", page["rank"]);
    assert_eq!(
        rel["group"],
        json!("site"),
        "a relation says its module's group too"
    );
    let status = page["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["name"] == "status")
        .cloned()
        .unwrap_or_default();
    assert_eq!(status["label"]["ru"], json!("Статус"));
    assert_eq!(status["valueLabels"]["draft"]["ru"], json!("Черновик"));
    assert!(
        slug["label"]["en"].is_string() && slug["help"]["ru"].is_string(),
        "{slug}"
    );
    assert_eq!(
        r.data()["moduleLabels"]["blog"]["label"]["ru"],
        json!("Блог")
    );
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
    let n: i64 = match c.exec().link {
        stoa_store::db::Link::Sqlite(c) => c
            .query_row("SELECT COUNT(*) FROM stoa_migrations", [], |r| r.get(0))
            .map_err(|e| sqlx::Error::Protocol(e.to_string())),
        stoa_store::db::Link::Postgres(c) => {
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
    let stoa_store::db::Link::Sqlite(c) = c.exec().link else {
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

/// PostgreSQL's `synchronous_commit` policy (docs/deployment.md): a transaction of the store waits
/// for its flush; only the job runner's bookkeeping (`Db::relaxed`) does not. Its statements run
/// on connections of their own, each its own transaction (committed as it ran: another
/// connection sees it at once), and no store transaction ever runs on one of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_commits_wait_for_the_flush_but_the_runners_bookkeeping() {
    let Some(app) = stoa_testkit::spawn_app(stoa_testkit::Db::Postgres).await else {
        eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set");
        return;
    };
    /// The `synchronous_commit` in force and the server process of the connection.
    async fn setting(exec: stoa_store::db::Exec<'_>) -> (String, i32) {
        let stoa_store::db::Link::Postgres(c) = exec.link else {
            panic!("not postgres")
        };
        sqlx::query_as("SELECT current_setting('synchronous_commit'), pg_backend_pid()")
            .fetch_one(&mut *c)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }
    let db = &app.store.db;
    let stoa_store::Db::Postgres(pg) = db else {
        panic!("a PostgreSQL app");
    };
    let mut relaxed_pids = std::collections::HashSet::new();
    for round in 0..2 {
        let mut r = db.relaxed(false).await.unwrap_or_else(|e| panic!("{e}"));
        let (bookkeeping, pid) = setting(r.exec()).await;
        assert_eq!(
            bookkeeping, "off",
            "the runner's bookkeeping, round {round}"
        );
        relaxed_pids.insert(pid);
        // Each statement commits as it runs: another connection sees the write before `done`.
        let key = format!("relaxed-{round}");
        {
            let stoa_store::db::Link::Postgres(c) = r.exec().link else {
                panic!("not postgres")
            };
            sqlx::query("INSERT INTO stoa_shared_values (key, value, until) VALUES ($1, 'x', now() + interval '1 minute')")
                .bind(&key)
                .execute(&mut *c)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let seen: i64 =
            sqlx::query_scalar("SELECT count(*) FROM stoa_shared_values WHERE key = $1")
                .bind(&key)
                .fetch_one(pg.pool())
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(seen, 1, "committed as it ran, round {round}");
        r.done().await.unwrap_or_else(|e| panic!("{e}"));
    }
    // A batch of bookkeeping that must commit as one is a transaction on such a connection:
    // unseen by another connection until it is done.
    let mut r = db.relaxed(true).await.unwrap_or_else(|e| panic!("{e}"));
    let (together, pid) = setting(r.exec()).await;
    assert_eq!(together, "off", "a batch of bookkeeping");
    relaxed_pids.insert(pid);
    {
        let stoa_store::db::Link::Postgres(c) = r.exec().link else {
            panic!("not postgres")
        };
        sqlx::query("INSERT INTO stoa_shared_values (key, value, until) VALUES ('relaxed-batch', 'x', now() + interval '1 minute')")
            .execute(&mut *c)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let count = async || -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM stoa_shared_values WHERE key = 'relaxed-batch'")
            .fetch_one(pg.pool())
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_eq!(count().await, 0, "a batch is seen only once it is done");
    r.done().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count().await, 1, "a batch done");
    // Every store transaction waits for its flush, and none runs on a bookkeeping connection
    // (the test pool has 4: all of them are opened and held).
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut tx = db.begin().await.unwrap_or_else(|e| panic!("{e}"));
        let (store, pid) = setting(tx.exec()).await;
        assert_eq!(store, "on", "a store transaction");
        assert!(
            !relaxed_pids.contains(&pid),
            "a store transaction on a relaxed connection"
        );
        held.push(tx);
    }
    for tx in held {
        tx.commit().await.unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The value of the sample `line` starts with, or 0 when it is absent.
pub(crate) fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn metrics_count_requests_for_admins(db: stoa_testkit::Db) {
    // A second, unauthenticated listener on a private address.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let Some(app) = stoa_testkit::spawn_app_with(db, move |c| {
        c.metrics_addr = Some(format!("127.0.0.1:{port}"));
    })
    .await
    else {
        return eprintln!("skipped: no PostgreSQL");
    };
    assert_eq!(app.anon().get("/metrics").await.status, 401);
    let user = app.register("metrics@example.com").await;
    assert_eq!(app.as_account(&user).get("/metrics").await.status, 403);
    let roles = r#"stoa_http_requests_total{method="GET",route="/api/rbac/roles",status="200"}"#;
    let missing = r#"stoa_http_requests_total{method="GET",route="(unmatched)",status="404"}"#;
    let before = app.get("/metrics").await;
    assert_eq!(before.status, 200, "{}", before.text);
    assert!(
        before
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/openmetrics-text")),
        "{:?}",
        before.header("content-type")
    );
    for _ in 0..3 {
        assert_eq!(app.get("/api/rbac/roles").await.status, 200);
    }
    assert_eq!(app.anon().get("/api/no-such-thing").await.status, 404);
    let after = app.get("/metrics").await.text;
    // Other tests share the process's counters: compare before and after.
    assert!(
        sample(&after, roles) >= sample(&before.text, roles) + 3.0,
        "{after}"
    );
    assert!(
        sample(&after, missing) >= sample(&before.text, missing) + 1.0,
        "{after}"
    );
    assert!(
        after.contains(r#"stoa_http_request_duration_seconds_bucket{le="0.0005",method="GET",route="/api/rbac/roles"}"#)
            || after.contains(r#"stoa_http_request_duration_seconds_bucket{method="GET",route="/api/rbac/roles",le="0.0005"}"#),
        "{after}"
    );
    for series in [
        r#"stoa_db_connections{state="idle"}"#,
        r#"stoa_db_connections{state="in_use"}"#,
        r#"stoa_job_queue{state="queued"}"#,
        r#"stoa_job_queue{state="dead"}"#,
        // How far each class of jobs is behind, and the background lag the server warns above.
        r#"stoa_job_lag_seconds{state="foreground"}"#,
        r#"stoa_job_lag_seconds{state="background"}"#,
        "stoa_job_lag_alert_seconds 60",
    ] {
        assert!(after.contains(series), "{series} in {after}");
    }
    // The registration's confirmation mail went through the job queue's runner: job outcomes.
    // The mail is background work, claimed after the jobs the start enqueued and counted once
    // settled: read until it is there (at most 10 s).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut jobs_seen = after.clone();
    while !jobs_seen.contains("stoa_jobs_total{") && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        jobs_seen = app.get("/metrics").await.text;
    }
    assert!(jobs_seen.contains("stoa_jobs_total{"), "{jobs_seen}");
    // SQLite's writes and the group commits that made them durable (none on PostgreSQL).
    let writes = r#"stoa_db_sqlite_writes_total{state="transactions"}"#;
    let commits = r#"stoa_db_sqlite_writes_total{state="commits"}"#;
    if db == stoa_testkit::Db::Sqlite {
        assert!(sample(&after, commits) >= 1.0, "{after}");
        assert!(sample(&after, writes) >= sample(&after, commits), "{after}");
        app.register("metrics-2@example.com").await;
        let again = app.get("/metrics").await.text;
        assert!(sample(&again, writes) > sample(&after, writes), "{again}");
        // The time a writer held the one writer connection grows with the writes.
        let busy = r#"stoa_db_sqlite_writer_busy_seconds_total{state="held"}"#;
        assert!(sample(&again, busy) > sample(&after, busy), "{again}");
    } else {
        assert!(!after.contains("stoa_db_sqlite_writes"), "{after}");
        assert!(!after.contains("stoa_db_sqlite_writer_busy"), "{after}");
    }
    // The private listener answers without credentials, and serves nothing else.
    let plain = reqwest::get(format!("http://127.0.0.1:{port}/metrics"))
        .await
        .unwrap();
    assert_eq!(plain.status(), 200);
    assert!(
        plain
            .text()
            .await
            .unwrap()
            .contains("stoa_http_requests_total")
    );
    let other = reqwest::get(format!("http://127.0.0.1:{port}/api/rbac/roles"))
        .await
        .unwrap();
    assert_eq!(other.status(), 404);
}
dual_test!(metrics_count_requests_for_admins, db);

/// Several instances (PostgreSQL): when the connection an instance listens for the others'
/// changes on is killed, the instance counts every table as changed (what was sent meanwhile is
/// lost), listens again on a new connection, and hears the next change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_listener_comes_back_after_its_connection_is_killed() {
    use sqlx::Connection;
    use std::time::{Duration, Instant};
    let Some(app) = stoa_testkit::spawn_app(stoa_testkit::Db::Postgres).await else {
        eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set");
        return;
    };
    let mut c = sqlx::PgConnection::connect(&app.ctx.config.database_url)
        .await
        .unwrap();
    let listeners = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'";
    let until = |what: &str, deadline: Duration| {
        let what = what.to_owned();
        let started = Instant::now();
        move |ok: bool| {
            assert!(
                ok || started.elapsed() < deadline,
                "{what}: not within {deadline:?}"
            );
            ok
        }
    };
    let first = until("the instance listens", Duration::from_secs(5));
    let old: i32 = loop {
        let pids: Vec<i32> = sqlx::query_scalar(listeners)
            .fetch_all(&mut c)
            .await
            .unwrap();
        if first(pids.len() == 1) {
            break pids[0];
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let key = app.registry.entities()[0].key();
    let before = app.store.version(&key);
    let killed: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
        .bind(old)
        .fetch_one(&mut c)
        .await
        .unwrap();
    assert!(killed);
    let lost = until("the loss counts as a change", Duration::from_secs(5));
    while !lost(app.store.version(&key) > before) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let again = until("the instance listens again", Duration::from_secs(5));
    loop {
        let pids: Vec<i32> = sqlx::query_scalar(listeners)
            .fetch_all(&mut c)
            .await
            .unwrap();
        if again(pids.len() == 1 && pids[0] != old) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Another instance's change, as it sends it: "<its id> <key> …".
    let v = app.store.version(&key);
    sqlx::query("SELECT pg_notify('stoa_touch', $1)")
        .bind(format!("another-instance {key}"))
        .execute(&mut c)
        .await
        .unwrap();
    let heard = until("the next change is heard", Duration::from_secs(3));
    while !heard(app.store.version(&key) > v) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = c.close().await;
}

/// Several instances (PostgreSQL): the shared tables keep only what is live. The bodies of large
/// live events go after a minute (the cluster drops them, not a module); expired counters and
/// tokens go with `prune`, which leaves live ones and event bodies alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_state_forgets_what_expired() {
    use std::time::Duration;
    let Some(app) = stoa_testkit::spawn_app(stoa_testkit::Db::Postgres).await else {
        eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set");
        return;
    };
    let stoa_store::Db::Postgres(pg) = &app.store.db else {
        panic!("a PostgreSQL app");
    };
    let pool = pg.pool();
    let shared = stoa_store::cluster::Shared::of(&app.store.db).expect("shared on PostgreSQL");
    let old = shared.put_event("old").await.unwrap();
    let fresh = shared.put_event("fresh").await.unwrap();
    sqlx::query("UPDATE stoa_shared_events SET at = now() - interval '2 minutes' WHERE id = $1")
        .bind(old)
        .execute(pool)
        .await
        .unwrap();
    shared.prune_events().await.unwrap();
    assert_eq!(shared.event(old).await.unwrap(), None);
    assert_eq!(shared.event(fresh).await.unwrap().as_deref(), Some("fresh"));

    shared
        .hit("t brief", Duration::from_millis(1))
        .await
        .unwrap();
    shared
        .hit("t lasting", Duration::from_secs(60))
        .await
        .unwrap();
    assert!(
        shared
            .issue("t-token-brief", Duration::from_millis(1))
            .await
            .unwrap()
    );
    assert!(
        shared
            .issue("t-token-lasting", Duration::from_secs(60))
            .await
            .unwrap()
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    shared.prune().await.unwrap();
    let left: Vec<String> = sqlx::query_scalar(
        "SELECT key FROM stoa_shared_counters WHERE key LIKE 't %' UNION ALL SELECT token FROM stoa_shared_tokens WHERE token LIKE 't-%' ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(left, ["t lasting", "t-token-lasting"]);
    assert_eq!(shared.event(fresh).await.unwrap().as_deref(), Some("fresh"));
}

/// Several instances (PostgreSQL): the analytics and payment-webhook budgets per address are
/// counted in the shared table, so what other instances admitted counts here too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_address_budgets_are_shared_by_instances() {
    use std::time::Duration;
    const WEBHOOKS: u32 = 5;
    let Some(app) =
        stoa_testkit::spawn_app_with(stoa_testkit::Db::Postgres, |c| c.webhook_rate = WEBHOOKS)
            .await
    else {
        eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set");
        return;
    };
    let shared = stoa_store::cluster::Shared::of(&app.store.db).expect("shared on PostgreSQL");
    // What other instances admitted for this address: `n` more in the key's minute.
    let others = |key: &'static str, n: u32| {
        let shared = shared.clone();
        async move {
            for _ in 0..n {
                shared.hit(key, Duration::from_secs(60)).await.unwrap();
            }
        }
    };
    let post = |path: &'static str, body: &'static str| {
        app.send(
            app.plain
                .post(app.url(path))
                .header("content-type", "application/json")
                .body(body),
        )
    };
    let hit = || post("/api/analytic/collect", r#"{"path": "/"}"#);
    assert_eq!(hit().await.status, 204, "under the budget");
    others("analytic.ip 127.0.0.1", 239).await; // the rest of the 240 a minute
    let r = hit().await;
    assert_eq!(r.status, 429, "{}", r.text);

    let webhook = || post("/api/billing/payment-intents/dummy/webhook", "{}");
    let first = webhook().await;
    assert_ne!(first.status, 429, "{}", first.text);
    let (n, _) = shared.count("billing.webhook 127.0.0.1").await.unwrap();
    assert_eq!(n, 1, "the webhook was counted in the shared table");
    others("billing.webhook 127.0.0.1", WEBHOOKS - 1).await;
    let r = webhook().await;
    assert_eq!(r.status, 429, "{}", r.text);
}

/// The write path counts its own changes: a transaction begun by the store bumps the counters of
/// what it wrote when it commits (not before, and not when it rolls back), and a delete bumps
/// the relations it cascades to. Nobody calls `touch`.
async fn store_writes_count_themselves(app: TestApp) {
    let store = &app.store;
    let role = store.entity("rbac.role").expect("rbac.role");
    let (rel, _) = store
        .registry
        .referencing("rbac.role")
        .into_iter()
        .next()
        .expect("a relation to roles");
    let (role_key, rel_key) = (role.key(), rel.key());
    let input = |title: &str| {
        json!({"title": title, "availableOnRegistration": false})
            .as_object()
            .cloned()
            .expect("object")
    };

    // Rolled back: nothing moves.
    let before = store.version(&role_key);
    {
        let mut tx = store.begin().await.expect("begin");
        store
            .create_in(&mut tx.exec(), &role, &input("rolled back"))
            .await
            .expect("create");
        drop(tx);
    }
    assert_eq!(store.version(&role_key), before, "a rolled-back write");

    // Committed: the counter moves at the commit, not at the write.
    let mut tx = store.begin().await.expect("begin");
    let row = store
        .create_in(&mut tx.exec(), &role, &input("counted"))
        .await
        .expect("create");
    assert_eq!(store.version(&role_key), before, "before the commit");
    tx.commit().await.expect("commit");
    assert!(store.version(&role_key) > before, "after the commit");

    // A compare-and-set that changes nothing does not count; one that does, does.
    let id = stoa_store::Record::must_id(&row).expect("id");
    let before = store.version(&role_key);
    let mut tx = store.begin().await.expect("begin");
    let missed = stoa_store::repo::set_if(
        &mut tx.exec(),
        &role,
        id,
        &[("title", stoa_kernel::value::Val::Text("never".into()))],
        &[(
            "title",
            stoa_kernel::value::Val::Text("not the title".into()),
        )],
    )
    .await
    .expect("set_if");
    assert!(missed.is_none());
    tx.commit().await.expect("commit");
    assert_eq!(
        store.version(&role_key),
        before,
        "a write that changed no row"
    );

    // A delete counts the role and what its delete cascades to.
    let rel_before = store.version(&rel_key);
    store.delete(&role, id).await.expect("delete");
    assert!(store.version(&role_key) > before, "the deleted entity");
    assert!(
        store.version(&rel_key) > rel_before,
        "the relation {rel_key} it cascades to"
    );
}
dual_test!(store_writes_count_themselves);

/// A visitor's list of a publishable entity is narrowed to published rows, so its count is a
/// capped count of a narrowed list: past the cap it is not exact, even on SQLite, where an
/// admin's count of the whole table is.
async fn a_visitors_capped_count_is_not_called_exact(app: TestApp) {
    let store = &app.store;
    let e = store.entity("blog.article").expect("blog.article");
    let over = stoa_store::repo::COUNT_CAP + 1;
    let mut tx = store.begin().await.expect("begin");
    for n in 0..over {
        let input = json!({"slug": format!("counted-{n:05}")});
        store
            .create_in(&mut tx.exec(), &e, input.as_object().expect("object"))
            .await
            .expect("create");
    }
    tx.commit().await.expect("commit");
    let mut q = stoa_kernel::query::FindQuery::all();
    q.limit = 1;
    q.count = true;
    let visitor = stoa_store::publish::without_drafts(store.find_json(&e, &q))
        .await
        .expect("visitor list")
        .total
        .expect("a total");
    assert_eq!(visitor.n, over, "counted up to the cap and one over");
    assert!(!visitor.exact, "a capped count of published rows");
    let admin = stoa_store::publish::with_drafts(store.find_json(&e, &q))
        .await
        .expect("admin list")
        .total
        .expect("a total");
    assert!(admin.n >= over, "{admin:?}");
    assert!(admin.exact, "the whole table, counted: {admin:?}");
}
dual_test!(a_visitors_capped_count_is_not_called_exact);

/// SQLite's search index is written at each transaction's commit from the queue its triggers
/// fill, and follows only updates of the searched columns: a database made with the older
/// triggers (which wrote the index directly, the update one on every update) is moved to the
/// queued ones by `migrate`; then an update of another column leaves the index's pages as they
/// were, an update of a searched column makes search find the new value and the old one no more,
/// a writer rolled back queues nothing, writers sharing one group commit are all found, and the
/// queue is empty after every commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_index_is_written_at_commit_and_follows_only_the_searched_columns() {
    let app = stoa_testkit::spawn_app(stoa_testkit::Db::Sqlite)
        .await
        .expect("sqlite app");
    // One text value read on a reader connection (committed data).
    let one = |sql: &'static str| {
        let db = app.store.db.clone();
        async move {
            let mut c = db.read().await.expect("read");
            let stoa_store::db::Link::Sqlite(c) = c.exec().link else {
                panic!("sqlite")
            };
            c.query_row(sql, [], |r| r.get::<_, String>(0)).expect(sql)
        }
    };
    let triggers = || {
        one(
            "SELECT group_concat(sql, ';') FROM sqlite_master WHERE name LIKE 'ecommerce_order_search_a%'",
        )
    };
    let queued = || one("SELECT CAST(count(*) AS TEXT) FROM stoa_search_pending");
    // The index's stored pages: what a write to it changes.
    let index = || {
        one(
            r#"SELECT ifnull(group_concat(id || ':' || hex(block), ','), '') FROM "ecommerce_order_search_data""#,
        )
    };
    let o = app
        .create(
            "/api/ecommerce/orders",
            &json!({"email": "first@example.com"}),
        )
        .await;
    let id = o["id"].as_str().expect("id");
    let patch = |body: Value| {
        let app = &app;
        async move {
            let r = app
                .patch(&format!("/api/ecommerce/orders/{id}"), &body)
                .await;
            assert_eq!(r.status, 200, "{}", r.text);
        }
    };
    let t = triggers().await;
    // Insert and delete queue one entry, an update two (the old values out, the new in).
    assert_eq!(
        t.matches("INSERT INTO stoa_search_pending").count(),
        4,
        "{t}"
    );
    assert!(t.contains("AFTER UPDATE OF"), "{t}");
    assert_eq!(queued().await, "0");
    assert_eq!(orders_found(&app, "first@").await, vec![id.to_owned()]);
    // The triggers as databases made before this change have them.
    committed_sql(
        &app,
        r#"DROP TRIGGER "ecommerce_order_search_ai";
               DROP TRIGGER "ecommerce_order_search_ad";
               DROP TRIGGER "ecommerce_order_search_au";
               CREATE TRIGGER "ecommerce_order_search_ai" AFTER INSERT ON "ecommerce_order" BEGIN INSERT INTO "ecommerce_order_search"(rowid, "email") VALUES (new.rowid, new."email"); END;
               CREATE TRIGGER "ecommerce_order_search_ad" AFTER DELETE ON "ecommerce_order" BEGIN INSERT INTO "ecommerce_order_search"("ecommerce_order_search", rowid, "email") VALUES ('delete', old.rowid, old."email"); END;
               CREATE TRIGGER "ecommerce_order_search_au" AFTER UPDATE ON "ecommerce_order" BEGIN INSERT INTO "ecommerce_order_search"("ecommerce_order_search", rowid, "email") VALUES ('delete', old.rowid, old."email"); INSERT INTO "ecommerce_order_search"(rowid, "email") VALUES (new.rowid, new."email"); END"#,
    )
    .await;
    // With them, an update of another column rewrites the index (what the probe below tells).
    let before = index().await;
    patch(json!({"comment": "old trigger"})).await;
    assert_ne!(index().await, before, "the old trigger writes the index");
    let plan = stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .expect("plan");
    let pending: Vec<&String> = plan
        .iter()
        .filter(|s| !s.contains("stoa_migrations"))
        .collect();
    assert_eq!(pending.len(), 7, "{pending:?}");
    assert!(
        pending[..3].iter().all(|s| s.starts_with("DROP TRIGGER")),
        "{pending:?}"
    );
    assert!(
        pending[3..6]
            .iter()
            .all(|s| s.contains("INSERT INTO stoa_search_pending")),
        "{pending:?}"
    );
    assert!(pending[6].contains("stoa_search_flush"), "{pending:?}");
    stoa_store::ddl::migrate(&app.store.db, &app.registry)
        .await
        .expect("migrate");
    assert_eq!(
        triggers()
            .await
            .matches("INSERT INTO stoa_search_pending")
            .count(),
        4
    );
    let before = index().await;
    patch(json!({"comment": "no search change"})).await;
    assert_eq!(
        index().await,
        before,
        "an update of another column left the index alone"
    );
    assert_eq!(orders_found(&app, "first@").await, vec![id.to_owned()]);
    patch(json!({"email": "second@example.com"})).await;
    assert!(orders_found(&app, "first@").await.is_empty());
    assert_eq!(orders_found(&app, "second@").await, vec![id.to_owned()]);
    assert_eq!(queued().await, "0", "the commit emptied the queue");

    // A writer rolled back queues nothing, and its row is not found.
    {
        let mut tx = app.store.db.begin().await.expect("begin");
        let stoa_store::db::Link::Sqlite(c) = tx.exec().link else {
            panic!("sqlite")
        };
        c.execute_batch(
            r#"UPDATE "ecommerce_order" SET "email" = 'undone@example.com' WHERE "id" = (SELECT "id" FROM "ecommerce_order" LIMIT 1)"#,
        )
        .expect("update");
        drop(tx);
    }
    assert!(orders_found(&app, "undone@").await.is_empty());
    assert_eq!(queued().await, "0");

    // Writers at once (the group commit batches them): each one's row is found once it is
    // answered.
    let many: Vec<String> = futures::future::join_all((0..24).map(|i| {
        let app = &app;
        async move {
            let o = app
                .create(
                    "/api/ecommerce/orders",
                    &json!({"email": format!("together{i:02}@example.com")}),
                )
                .await;
            o["id"].as_str().expect("id").to_owned()
        }
    }))
    .await;
    for (i, id) in many.iter().enumerate() {
        assert_eq!(
            orders_found(&app, &format!("together{i:02}@")).await,
            vec![id.clone()]
        );
    }
    assert_eq!(orders_found(&app, "together").await.len(), 24);
    assert_eq!(queued().await, "0");
    // The index agrees with its table (FTS5's own check).
    let mut c = app.store.db.read().await.expect("read");
    let stoa_store::db::Link::Sqlite(c) = c.exec().link else {
        panic!("sqlite")
    };
    c.execute_batch(
        r#"INSERT INTO "ecommerce_order_search"("ecommerce_order_search", rank) VALUES ('integrity-check', 1)"#,
    )
    .expect("the search index matches its table");
}

/// When an entity's searched fields change, `migrate` drops its SQLite index, anything queued
/// for it, and its triggers, and builds the index again from the table: a database whose order
/// index covers another column (so an email search finds nothing) finds the order by email after
/// `migrate`, and new orders too, with the queue empty and FTS5's integrity check passing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_index_whose_fields_changed_is_rebuilt() {
    let app = stoa_testkit::spawn_app(stoa_testkit::Db::Sqlite)
        .await
        .expect("sqlite app");
    let o = app
        .create(
            "/api/ecommerce/orders",
            &json!({"email": "rebuilt@example.com", "comment": "a note"}),
        )
        .await;
    let id = o["id"].as_str().expect("id").to_owned();
    // The index as an older declaration had it: over `comment`, not `email`.
    committed_sql(
        &app,
        r#"DROP TRIGGER "ecommerce_order_search_ai";
               DROP TRIGGER "ecommerce_order_search_ad";
               DROP TRIGGER "ecommerce_order_search_au";
               DROP TABLE "ecommerce_order_search";
               CREATE VIRTUAL TABLE "ecommerce_order_search" USING fts5("comment", content="ecommerce_order", content_rowid='rowid', tokenize='trigram');
               INSERT INTO "ecommerce_order_search"("ecommerce_order_search") VALUES ('rebuild');"#,
    )
    .await;
    assert!(
        orders_found(&app, "rebuilt@").await.is_empty(),
        "the older index has no emails"
    );
    let plan = stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .expect("plan");
    for wanted in [
        r#"DROP TABLE IF EXISTS "ecommerce_order_search""#,
        "DELETE FROM stoa_search_pending WHERE fts = 'ecommerce_order_search'",
        r#"INSERT INTO "ecommerce_order_search"("ecommerce_order_search") VALUES ('rebuild')"#,
    ] {
        assert!(
            plan.iter().any(|s| s == wanted),
            "{wanted} missing from {plan:?}"
        );
    }
    stoa_store::ddl::migrate(&app.store.db, &app.registry)
        .await
        .expect("migrate");
    assert_eq!(orders_found(&app, "rebuilt@").await, vec![id]);
    let later = app
        .create(
            "/api/ecommerce/orders",
            &json!({"email": "after-rebuild@example.com"}),
        )
        .await;
    assert_eq!(
        orders_found(&app, "after-rebuild@").await,
        vec![later["id"].as_str().expect("id").to_owned()]
    );
    let mut c = app.store.db.read().await.expect("read");
    let stoa_store::db::Link::Sqlite(c) = c.exec().link else {
        panic!("sqlite")
    };
    let queued: i64 = c
        .query_row("SELECT count(*) FROM stoa_search_pending", [], |r| r.get(0))
        .expect("queue");
    assert_eq!(queued, 0);
    c.execute_batch(
        r#"INSERT INTO "ecommerce_order_search"("ecommerce_order_search", rank) VALUES ('integrity-check', 1)"#,
    )
    .expect("the search index matches its table");
}

/// The ids of the orders an admin's search for `term` lists.
async fn orders_found(app: &TestApp, term: &str) -> Vec<String> {
    let r = app
        .get(&format!("/api/ecommerce/orders?search={term}"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.data()
        .as_array()
        .expect("rows")
        .iter()
        .map(|o| o["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Runs `sql` on SQLite's writer in a transaction of its own, and commits it.
async fn committed_sql(app: &TestApp, sql: &str) {
    let mut tx = app.store.db.begin().await.expect("begin");
    let stoa_store::db::Link::Sqlite(c) = tx.exec().link else {
        panic!("sqlite")
    };
    c.execute_batch(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    tx.commit().await.expect("commit");
}

/// A field no longer declared searchable loses its search index at the next `migrate`: the
/// invoice's provider reference, searched by substring before (a random token's every trigram
/// a term in the index) and now looked up whole through its list index. On SQLite the FTS5
/// table goes with its triggers and the statement that filled it; on PostgreSQL the column's
/// trigram index. Writes go on, and the reference is found by its whole value.
async fn a_field_no_longer_searched_loses_its_search_index(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app(db).await.expect("app");
    // The index as the older declaration made it.
    let mut tx = app.store.db.begin().await.expect("begin");
    match tx.exec().link {
        stoa_store::db::Link::Sqlite(c) => c
            .execute_batch(
                r#"CREATE VIRTUAL TABLE "billing_invoice_search" USING fts5("provider_id", content="billing_invoice", content_rowid='rowid', tokenize='trigram');
                   CREATE TRIGGER "billing_invoice_search_ai" AFTER INSERT ON "billing_invoice" BEGIN INSERT INTO stoa_search_pending(fts, del, rid, c0) VALUES ('billing_invoice_search', 0, new.rowid, new."provider_id"); END;
                   INSERT INTO stoa_search_flush(fts, sql) VALUES ('billing_invoice_search', 'INSERT INTO "billing_invoice_search"("billing_invoice_search", rowid, "provider_id") SELECT CASE del WHEN 1 THEN ''delete'' END, rid, c0 FROM stoa_search_pending WHERE fts = ''billing_invoice_search'' ORDER BY seq');"#,
            )
            .expect("old index"),
        stoa_store::db::Link::Postgres(c) => {
            for q in [
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                r#"CREATE INDEX "ix_billing_invoice_provider_id_trgm" ON "billing_invoice" USING gin ("provider_id" gin_trgm_ops)"#,
            ] {
                sqlx::query(q).execute(&mut *c).await.expect(q);
            }
        }
    }
    tx.commit().await.expect("commit");
    let plan = stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .expect("plan");
    let wanted: &[&str] = match db {
        stoa_testkit::Db::Sqlite => &[
            r#"DROP TRIGGER IF EXISTS "billing_invoice_search_ai""#,
            r#"DROP TABLE IF EXISTS "billing_invoice_search""#,
            "DELETE FROM stoa_search_flush WHERE fts = 'billing_invoice_search'",
        ],
        stoa_testkit::Db::Postgres => {
            &[r#"DROP INDEX IF EXISTS "ix_billing_invoice_provider_id_trgm""#]
        }
    };
    for w in wanted {
        assert!(plan.iter().any(|s| s == w), "{w} missing from {plan:?}");
    }
    let again = migrated_then_planned(&app).await;
    assert!(
        !again
            .iter()
            .any(|s| s.contains("billing_invoice_search") || s.contains("_trgm\"")),
        "dropped once: {again:?}"
    );
    let mut c = app.store.db.read().await.expect("read");
    let left: i64 = match c.exec().link {
        stoa_store::db::Link::Sqlite(c) => c
            .query_row(
                "SELECT (SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'billing_invoice_search%') + (SELECT COUNT(*) FROM stoa_search_flush WHERE fts = 'billing_invoice_search')",
                [],
                |r| r.get(0),
            )
            .expect("count"),
        stoa_store::db::Link::Postgres(c) => sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'ix_billing_invoice_provider_id_trgm'",
        )
        .fetch_one(&mut *c)
        .await
        .expect("count"),
    };
    drop(c);
    assert_eq!(left, 0, "nothing of the old index is left");
    let inv = app
        .create(
            "/api/billing/invoices",
            &json!({"providerId": "pi_3Q1x2y3z4", "amount": "10"}),
        )
        .await;
    let r = app
        .get("/api/billing/invoices?filters[and][0][column]=providerId&filters[and][0][method]=eq&filters[and][0][value]=pi_3Q1x2y3z4")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let found: Vec<&str> = r
        .data()
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|i| i["id"].as_str())
        .collect();
    assert_eq!(found, vec![inv["id"].as_str().expect("id")]);
    // The admin's search box finds it by the whole reference (through the same index), not by
    // a piece of it.
    for (term, hits) in [("pi_3Q1x2y3z4", 1), ("3Q1x2", 0)] {
        let r = app
            .get(&format!("/api/billing/invoices?search={term}"))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(
            r.data().as_array().expect("rows").len(),
            hits,
            "{term}: {}",
            r.text
        );
    }
}
dual_test!(a_field_no_longer_searched_loses_its_search_index, db);

/// Inserts move an entity's change counter but not its rows-changed counter (what the live
/// sessions' cache keys on, so new sessions do not empty it); an update and a delete move both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_updates_and_deletes_move_the_rows_changed_counter() {
    let app = stoa_testkit::spawn_app(stoa_testkit::Db::Sqlite)
        .await
        .expect("sqlite app");
    let key = "ecommerce.order";
    let counters = || (app.store.version(key), app.store.rows_changed_version(key));
    let (v0, r0) = counters();
    let o = app
        .create("/api/ecommerce/orders", &json!({"comment": "counted"}))
        .await;
    let (v1, r1) = counters();
    assert!(v1 > v0, "an insert is a change");
    assert_eq!(r1, r0, "but changes no row that was there");
    let path = format!("/api/ecommerce/orders/{}", o["id"].as_str().expect("id"));
    let r = app.patch(&path, &json!({"comment": "changed"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let (v2, r2) = counters();
    assert!(v2 > v1 && r2 > r1, "an update moves both");
    let r = app.delete(&path).await;
    assert!(r.status < 300, "{}", r.text);
    let (v3, r3) = counters();
    assert!(v3 > v2 && r3 > r2, "a delete moves both");
}

/// List indexes follow the declarations both ways: one a database still has but the
/// declarations no longer make (here `variant` of the one-variant session table, and a session's
/// user agent, shown but not sorted on) is dropped by `migrate`, once; unique and reference
/// indexes are never touched. A sort on such a column is refused with the columns that sort.
async fn a_list_index_no_longer_declared_is_dropped(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app(db).await.expect("app");
    let old = [
        "ix_rbac_session_variant_list",
        "ix_rbac_session_user_agent_list",
    ];
    let made: Vec<String> = old
        .iter()
        .zip(["variant", "user_agent"])
        .map(|(name, col)| format!(r#"CREATE INDEX "{name}" ON "rbac_session" ("{col}", "id")"#))
        .collect();
    let plan = planned_after(&app, &made).await;
    for name in old {
        let w = format!(r#"DROP INDEX IF EXISTS "{name}""#);
        assert!(plan.contains(&w), "{w} missing from {plan:?}");
    }
    assert!(
        !plan
            .iter()
            .any(|s| s.starts_with("DROP INDEX") && !old.iter().any(|o| s.contains(o))),
        "only those: {plan:?}"
    );
    let again = migrated_then_planned(&app).await;
    assert!(
        !again.iter().any(|s| s.starts_with("DROP INDEX")),
        "dropped once: {again:?}"
    );
    let r = app
        .get("/api/rbac/sessions?orderBy[and][0][column]=userAgent&orderBy[and][0][method]=asc")
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(
        r.text.contains("lastUsedAt"),
        "names what sorts: {}",
        r.text
    );
    let r = app
        .get("/api/rbac/sessions?orderBy[and][0][column]=lastUsedAt&orderBy[and][0][method]=desc")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}
dual_test!(a_list_index_no_longer_declared_is_dropped, db);

/// A rich text made searchable in a later version: `migrate` adds its derived text column, fills
/// it from the documents already written (their text nodes, not their markup), and indexes it,
/// so an article written before is found by a word of its text, on both databases.
async fn a_rich_text_made_searchable_is_filled_from_the_rows_written_before(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app(db).await.expect("app");
    let body = json!({"ru": {"type": "doc", "content": [{"type": "paragraph", "content": [
        {"type": "text", "text": "Мы видели "},
        {"type": "text", "text": "баобабы", "marks": [{"type": "bold"}]}
    ]}]}});
    let a = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "older", "title": {"ru": "Старая статья"}, "description": body}),
        )
        .await;
    let id = a["id"].as_str().expect("id").to_owned();
    assert!(articles_found(&app, "баобаб").await.contains(&id));
    // The database as the older version left it: no derived column, an index without it.
    let article = app.registry.by_key("blog.article").expect("blog.article");
    let older: Vec<String> = stoa_store::ddl::search_columns(article)
        .into_iter()
        .filter(|c| c != "description__text")
        .collect();
    let mut tx = app.store.db.begin().await.expect("begin");
    match tx.exec().link {
        stoa_store::db::Link::Sqlite(c) => {
            let cols = older
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(", ");
            c.execute_batch(&format!(
                r#"DROP TRIGGER "blog_article_search_ai";
                   DROP TRIGGER "blog_article_search_ad";
                   DROP TRIGGER "blog_article_search_au";
                   DROP TABLE "blog_article_search";
                   ALTER TABLE "blog_article" DROP COLUMN "description__text";
                   CREATE VIRTUAL TABLE "blog_article_search" USING fts5({cols}, content="blog_article", content_rowid='rowid', tokenize='trigram');
                   INSERT INTO "blog_article_search"("blog_article_search") VALUES ('rebuild');"#
            ))
            .expect("the older schema")
        }
        stoa_store::db::Link::Postgres(c) => {
            sqlx::query(r#"ALTER TABLE "blog_article" DROP COLUMN "description__text""#)
                .execute(&mut *c)
                .await
                .expect("the older schema");
        }
    }
    tx.commit().await.expect("commit");
    // (On SQLite the older index answers; PostgreSQL searches the column, which is gone until
    // `migrate`, run at every start before the server listens.)
    if db == stoa_testkit::Db::Sqlite {
        assert!(
            !articles_found(&app, "баобаб").await.contains(&id),
            "the older database searches titles alone"
        );
    }
    let plan = stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .expect("plan");
    assert!(
        plan.iter()
            .any(|s| s == r#"ALTER TABLE "blog_article" ADD COLUMN "description__text" TEXT"#),
        "{plan:?}"
    );
    assert!(
        plan.iter()
            .any(|s| s.starts_with(r#"UPDATE "blog_article" SET "description__text""#)),
        "{plan:?}"
    );
    let again = migrated_then_planned(&app).await;
    assert!(
        !again.iter().any(|s| s.contains("description__text")),
        "done once: {again:?}"
    );
    assert!(
        articles_found(&app, "баобаб").await.contains(&id),
        "the text written before is searched"
    );
    assert!(
        !articles_found(&app, "paragraph").await.contains(&id),
        "the markup is not"
    );
    if db == stoa_testkit::Db::Sqlite {
        let mut c = app.store.db.read().await.expect("read");
        let stoa_store::db::Link::Sqlite(c) = c.exec().link else {
            panic!("sqlite")
        };
        c.execute_batch(
            r#"INSERT INTO "blog_article_search"("blog_article_search", rank) VALUES ('integrity-check', 1)"#,
        )
        .expect("the search index matches its table");
    }
}
dual_test!(
    a_rich_text_made_searchable_is_filled_from_the_rows_written_before,
    db
);

/// What an admin's search of the articles for `term` answers.
async fn articles_found(app: &TestApp, term: &str) -> String {
    let r = app
        .get(&format!(
            "/api/blog/articles?search={}",
            form_urlencoded::byte_serialize(term.as_bytes()).collect::<String>()
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.text
}

/// The migration plan once `made` (statements an older schema ran) have run and committed.
async fn planned_after(app: &TestApp, made: &[String]) -> Vec<String> {
    let mut tx = app.store.db.begin().await.expect("begin");
    for sql in made {
        stoa_store::ddl::run(&mut tx.exec(), sql).await.expect(sql);
    }
    tx.commit().await.expect("commit");
    stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .expect("plan")
}

/// Migrates `app`'s database, then answers what `migrate` would still run.
async fn migrated_then_planned(app: &TestApp) -> Vec<String> {
    stoa_store::ddl::migrate(&app.store.db, &app.registry)
        .await
        .expect("migrate");
    stoa_store::ddl::plan(&app.store.db, &app.registry)
        .await
        .expect("plan")
}

/// The outbox's due mails, as a delivery takes them along, are read through the notification's
/// lookup index (status, method, attempts, `sendAfter`, id), which both backends build: on
/// SQLite the plan searches that index and needs no sort, so the read stops at the batch
/// however many mails were sent before (through the `method` list index, its first plan, it read
/// every notification ever kept). A lookup index an older declaration made and this one no
/// longer names is dropped by the next migration; the declared one stays.
async fn due_mails_are_read_through_their_lookup_index(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app(db).await.expect("app");
    let n = app
        .store
        .entity("notification.notification")
        .expect("entity");
    // Longer than PostgreSQL's 63 bytes: shortened as every generated name is.
    let declared = stoa_store::names::ident(
        "lx_notification_notification__status__method__attempts__send_after__id",
    );
    let declared = declared.as_str();
    let older = "lx_notification_notification__status__send_after__id";
    let columns = |name: &str| {
        let name = name.to_owned();
        let db = app.store.db.clone();
        async move {
            let mut c = db.read().await.expect("read");
            match c.exec().link {
                stoa_store::db::Link::Sqlite(c) => {
                    let mut st = c
                        .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
                        .expect("prepare");
                    st.query_map([&name], |r| r.get::<_, String>(0))
                        .expect("query")
                        .collect::<Result<Vec<_>, _>>()
                        .expect("columns")
                }
                stoa_store::db::Link::Postgres(c) => {
                    let def: Option<String> =
                        sqlx::query_scalar("SELECT indexdef FROM pg_indexes WHERE indexname = $1")
                            .bind(&name)
                            .fetch_optional(&mut *c)
                            .await
                            .expect("indexdef");
                    def.and_then(|d| {
                        let inner = d.rsplit_once('(')?.1.trim_end_matches(')').to_owned();
                        Some(inner.split(", ").map(str::to_owned).collect())
                    })
                    .unwrap_or_default()
                }
            }
        }
    };
    assert_eq!(
        columns(declared).await,
        ["status", "method", "attempts", "send_after", "id"],
        "the lookup index is built with its columns in order"
    );
    if db == stoa_testkit::Db::Sqlite {
        let q =
            stoa_notification::mail::due_along_query(&n, stoa_kernel::value::now()).expect("query");
        let plan = app.store.db.plan(&n, &q).await.expect("plan");
        let (sql, values) = stoa_store::repo::sql(&plan.rows, stoa_store::Backend::Sqlite);
        let steps = sqlite_plan(&app, &n, &sql, &values).await;
        assert!(
            steps.iter().any(|s| s.contains(declared)),
            "searched through the lookup index: {steps:?}"
        );
        assert!(
            !steps.iter().any(|s| s.contains("TEMP B-TREE")),
            "read in the index's order, not sorted: {steps:?}"
        );
    }
    // An older declaration's lookup index goes; the declared one is not planned again.
    let plan = planned_after(
        &app,
        &[format!(
            r#"CREATE INDEX "{older}" ON "notification_notification" ("status", "send_after", "id")"#
        )],
    )
    .await;
    let dropped = format!(r#"DROP INDEX IF EXISTS "{older}""#);
    assert!(plan.contains(&dropped), "{dropped} missing from {plan:?}");
    assert!(
        !plan.iter().any(|s| s.contains(declared)),
        "the declared index is kept: {plan:?}"
    );
    let again = migrated_then_planned(&app).await;
    assert!(
        !again.iter().any(|s| s.contains("lx_")),
        "dropped once: {again:?}"
    );
    assert!(columns(older).await.is_empty(), "the older index is gone");
    assert_eq!(columns(declared).await.len(), 5, "the declared one stays");
}
dual_test!(due_mails_are_read_through_their_lookup_index, db);

/// SQLite's plan of `sql` (with `values`) on a reader: its steps' descriptions.
async fn sqlite_plan(
    app: &TestApp,
    e: &stoa_kernel::model::Entity,
    sql: &str,
    values: &sea_query_sqlx::SqlxValues,
) -> Vec<String> {
    let stoa_store::Db::Sqlite { read, .. } = &app.store.db else {
        panic!("sqlite")
    };
    read.rows(e, &format!("EXPLAIN QUERY PLAN {sql}"), values, |r| {
        r.get::<_, String>(3)
            .map_err(|e| stoa_kernel::Error::internal(e.to_string()))
    })
    .await
    .expect("explain")
}

/// The lookups a provider's webhook, an endpoint's delivery queue and the job lag gauge make
/// are read through an index that serves all their conditions and their order: a search, no
/// scan, no sort. Through the one-field indexes SQLite chose before, each read grew with the
/// table (every invoice of a provider, every endpoint's pending deliveries, every queued job).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn module_lookups_are_planned_through_indexes_that_serve_them() {
    use stoa_kernel::query::FindQuery;
    use stoa_kernel::value::Val;
    let app = stoa_testkit::spawn_app(stoa_testkit::Db::Sqlite)
        .await
        .expect("sqlite app");
    let bounded = |what: &str, steps: &[String], index: &str| {
        assert!(
            steps
                .iter()
                .any(|s| s.starts_with("SEARCH") && s.contains(index)),
            "{what}: searched through {index}: {steps:?}"
        );
        assert!(
            !steps
                .iter()
                .any(|s| s.starts_with("SCAN") || s.contains("TEMP B-TREE")),
            "{what}: no scan, no sort: {steps:?}"
        );
    };
    let planned = |e: std::sync::Arc<stoa_kernel::model::Entity>, q: FindQuery| {
        let app = &app;
        async move {
            let plan = app.store.db.plan(&e, &q).await.expect("plan");
            let (sql, values) = stoa_store::repo::sql(&plan.rows, stoa_store::Backend::Sqlite);
            sqlite_plan(app, &e, &sql, &values).await
        }
    };
    let invoice = app.store.entity("billing.invoice").expect("invoice");
    // As the inbox finds a webhook's invoice (`Store::find_by`).
    let q = FindQuery::all()
        .take(1)
        .eq(&invoice, "providerId", Val::Text("pi_3Q1x2y3z4".into()))
        .and_then(|q| q.eq(&invoice, "provider", Val::Text("stripe".into())))
        .expect("query");
    bounded(
        "an invoice by its provider's reference",
        &planned(invoice, q).await,
        "lx_billing_invoice__provider_id__provider__id",
    );
    let delivery = app.store.entity("webhook.delivery").expect("delivery");
    // As the endpoint's queue reads its head.
    let q = FindQuery::all()
        .eq(&delivery, "endpointId", Val::Uuid(uuid::Uuid::new_v4()))
        .and_then(|q| q.eq(&delivery, "status", Val::Text("pending".into())))
        .and_then(|q| q.sort(&delivery, "id", false))
        .expect("query")
        .take(1);
    bounded(
        "an endpoint's oldest pending delivery",
        &planned(delivery, q).await,
        "lx_webhook_delivery__endpoint_id__status__id",
    );
    let session = app.store.entity("rbac.session").expect("session");
    // An account's list of its live sessions.
    let q = stoa_rbac::second_factor::live_sessions_query(
        &session,
        uuid::Uuid::new_v4(),
        time::OffsetDateTime::now_utc(),
    )
    .expect("query");
    bounded(
        "an account's live sessions",
        &planned(session, q).await,
        "lx_rbac_session__subject_id__revoked_at__expires_at__id",
    );
    let job = stoa_store::jobs::entity();
    let (sql, values) = stoa_store::repo::sql(
        &stoa_store::jobs::lag_statement(1),
        stoa_store::Backend::Sqlite,
    );
    bounded(
        "the oldest queued job of a class",
        &sqlite_plan(&app, &job, &sql, &values).await,
        "ix_platform_job_ready",
    );
}

/// Rows of `table` whose `subject_id` is `subject`, read straight on `exec`'s connection: what
/// the transaction has sent so far (nothing held is sent by this read).
async fn sent_rows(exec: &mut stoa_store::db::Exec<'_>, table: &str, subject: uuid::Uuid) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table} WHERE subject_id = '{subject}'");
    match &mut exec.link {
        stoa_store::db::Link::Sqlite(c) => c
            .query_row(&sql, [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}")),
        stoa_store::db::Link::Postgres(c) => sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut **c)
            .await
            .unwrap_or_else(|e| panic!("{e}")),
    }
}

dual_test!(held_link_rows_go_out_with_the_next_statement, db);
/// A link row the caller never reads back (`Store::link_later`) is held on PostgreSQL and goes
/// out with the transaction's next insert into another table, as a `WITH` part of it, or on its
/// own before a read, a savepoint or the commit; on SQLite it is written at once. Either way
/// every row is there after the commit, a savepoint rolled back takes its held rows with it
/// unsent, and a held row that references nothing fails the statement that carries it with the
/// link's own field named (a 4xx), never a 500.
async fn held_link_rows_go_out_with_the_next_statement(db: stoa_testkit::Db) {
    let app = stoa_testkit::spawn_app(db).await.expect("app");
    let s = &app.store;
    let subject_e = s.entity("rbac.subject").expect("subject");
    let s2r = s.entity("rbac.subjects-to-roles").expect("link");
    let roles: Vec<uuid::Uuid> = s
        .all(&s.entity("rbac.role").expect("role"), 10)
        .await
        .expect("roles")
        .iter()
        .filter_map(|r| r.id())
        .collect();
    assert!(roles.len() >= 2, "the seeds make roles: {roles:?}");
    let empty = serde_json::Map::new();
    let subject = s.create(&subject_e, &empty).await.expect("subject");
    let subject = subject.id().expect("id");
    let pg = db == stoa_testkit::Db::Postgres;
    let table = s2r.table.clone();

    let mut tx = s.begin().await.expect("begin");
    {
        let mut exec = tx.exec();
        s.link_later(
            &mut exec,
            &s2r,
            ("subjectId", subject),
            ("roleId", roles[0]),
        )
        .await
        .expect("held");
        assert_eq!(
            sent_rows(&mut exec, &table, subject).await,
            if pg { 0 } else { 1 },
            "held on PostgreSQL, written at once on SQLite"
        );
        // An insert into another table carries it.
        s.create_in(&mut exec, &subject_e, &empty)
            .await
            .expect("the carrying insert");
        assert_eq!(
            sent_rows(&mut exec, &table, subject).await,
            1,
            "sent with the insert"
        );
        // A savepoint rolled back takes what was held inside it, unsent.
        let level = exec.begin_nested().await.expect("savepoint");
        s.link_later(
            &mut exec,
            &s2r,
            ("subjectId", subject),
            ("roleId", roles[1]),
        )
        .await
        .expect("held");
        exec.end_nested(level, false).await.expect("rolled back");
        // Held before the commit, sent by it.
        s.link_later(
            &mut exec,
            &s2r,
            ("subjectId", subject),
            ("roleId", roles[1]),
        )
        .await
        .expect("held");
    }
    tx.commit().await.expect("commit");
    let kept = s
        .find_by(
            &s2r,
            &[("subjectId", stoa_kernel::value::Val::Uuid(subject))],
            10,
        )
        .await
        .expect("links");
    let mut kept: Vec<_> = kept.iter().filter_map(|r| r.uuid("roleId")).collect();
    kept.sort();
    let mut want = vec![roles[0], roles[1]];
    want.sort();
    assert_eq!(kept, want, "each link once: the rolled-back one not at all");

    // A held row that references nothing: its field is named where it fails.
    let nowhere = uuid::Uuid::now_v7();
    let mut tx = s.begin().await.expect("begin");
    let failed = {
        let mut exec = tx.exec();
        match s
            .link_later(&mut exec, &s2r, ("subjectId", subject), ("roleId", nowhere))
            .await
        {
            Err(e) => Err(e),
            Ok(()) => s.create_in(&mut exec, &subject_e, &empty).await.map(drop),
        }
    };
    drop(tx);
    let err = failed.expect_err("a link to no role is refused");
    assert_eq!(err.status(), 422, "{err:?}");
    assert!(
        format!("{err:?}").contains("roleId"),
        "the link's field is named: {err:?}"
    );
    assert_eq!(
        s.find_by(
            &s2r,
            &[("subjectId", stoa_kernel::value::Val::Uuid(subject))],
            10
        )
        .await
        .expect("links")
        .len(),
        2,
        "nothing of the failed transaction stays"
    );
}
