//! `stoa backup` / `stoa restore`: a backup taken while clients write holds every write
//! acknowledged before it started, and restores into a working database (issue 17, build 4).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use stoa_store::{Db as StoreDb, DbOptions, Store};
use stoa_testkit::{TestApp, dual_test};

async fn a_backup_under_write_load_restores_every_acknowledged_write(app: TestApp) {
    let url = app.ctx.config.database_url.clone();
    let acked: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..4 {
        let (client, to, acked, stop) = (
            app.client.clone(),
            app.url("/api/analytic/metrics"),
            acked.clone(),
            stop.clone(),
        );
        writers.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                let r = client
                    .post(&to)
                    .json(&json!({"title": format!("w{w}-{i}"), "value": i}))
                    .send()
                    .await
                    .expect("send");
                assert_eq!(r.status(), 201);
                let body: serde_json::Value = r.json().await.expect("json");
                let id = body["data"]["id"].as_str().expect("id").to_owned();
                acked.lock().expect("lock").push(id);
            }
        }));
    }
    while acked.lock().expect("lock").len() < 60 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let before: Vec<String> = acked.lock().expect("lock").clone();
    let dir = std::env::temp_dir().join(format!("stoa-backup-{}", uuid::Uuid::now_v7().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("stoa.backup");
    let size = stoa_store::backup::backup(&url, &file)
        .await
        .expect("backup");
    assert!(size > 0);
    // A backup never overwrites.
    assert!(stoa_store::backup::backup(&url, &file).await.is_err());
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.expect("writer");
    }
    let total = acked.lock().expect("lock").len();
    assert!(total >= before.len());

    let target = if url.starts_with("sqlite") {
        // Restoring over the database the server has open is refused.
        let e = stoa_store::backup::restore(&url, &file)
            .await
            .expect_err("in use");
        assert!(e.to_string().contains("in use"), "{e}");
        format!("sqlite://{}/restored.db", dir.display())
    } else {
        let admin = stoa_testkit::postgres_url().expect("PostgreSQL");
        stoa_testkit::fresh_postgres(&admin)
            .await
            .expect("database")
    };
    stoa_store::backup::restore(&target, &file)
        .await
        .expect("restore");
    let db = StoreDb::connect(&DbOptions::new(target.clone()))
        .await
        .expect("the restored database opens");
    let store = Store::new(db, app.registry.clone());
    let metrics = store.entity("analytic.metric").expect("entity");
    for id in &before {
        let id = uuid::Uuid::parse_str(id).expect("uuid");
        store
            .get(&metrics, id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged write {id} is missing from the backup: {e}"));
    }
    // Nothing but whole writes: every restored metric is one a client was acknowledged for, or
    // was writing when the copy was taken.
    let restored = store.count(&metrics).await.expect("count");
    assert!(
        restored >= before.len() as u64 && restored <= total as u64 + 4,
        "{restored} rows restored, {} acknowledged before, {total} in all",
        before.len()
    );
    store.db.close().await;
    drop(store);
    if target.starts_with("sqlite") {
        // Restoring over an existing (closed) database keeps it first.
        let kept = stoa_store::backup::restore(&target, &file)
            .await
            .expect("restore again")
            .expect("the previous database is kept");
        assert!(kept.exists());
    }
    let _ = std::fs::remove_dir_all(dir);
}
dual_test!(a_backup_under_write_load_restores_every_acknowledged_write);
