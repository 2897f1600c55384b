//! WAL checkpoints off the writer.
//!
//! SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL past its threshold:
//! that writer copies the WAL's pages into the database file and fsyncs it while it still holds
//! the one writer connection, so every other writer waits behind a checkpoint (a fifth of the
//! writer's time under bench/checkout.sh). Here a thread of its own, on a connection of its own,
//! runs a PASSIVE checkpoint every [`EVERY`]: it takes no lock a writer needs, so commits go on
//! meanwhile. The writer keeps a high automatic threshold ([`FALLBACK_PAGES`]) so the WAL stays
//! bounded even if this thread fell behind.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the WAL is checkpointed.
const EVERY: Duration = Duration::from_millis(100);
/// The writer's own automatic checkpoint threshold, in pages (40 MB of WAL at 4 KB pages).
pub(crate) const FALLBACK_PAGES: u32 = 10_000;

/// The running checkpointer; stops when dropped (or [`Checkpointer::stop`]).
#[derive(Debug)]
pub(crate) struct Checkpointer {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing the database at `path` (its writer has opened it in WAL mode).
    pub(crate) fn start(path: PathBuf) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(&path, &flag))
            .map_err(|e| tracing::warn!(error = %e, "no checkpoint thread: the writer checkpoints"))
            .ok();
        Self { stop, thread }
    }

    /// Stops the thread and waits until it has closed its connection (a checkpoint under way
    /// finishes first), so nothing holds the database once the store is closed.
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            if t.join().is_err() {
                tracing::warn!("the checkpoint thread panicked");
            }
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run(path: &PathBuf, stop: &AtomicBool) {
    use rusqlite::OpenFlags;
    let conn = match rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "no checkpoint connection: the writer checkpoints");
            return;
        }
    };
    // A checkpoint fsyncs the database file before the WAL may be reused only at FULL (or
    // NORMAL): set here rather than trusted to the build's default.
    if let Err(e) = conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA busy_timeout = 0;") {
        tracing::warn!(error = %e, "no checkpoint connection: the writer checkpoints");
        return;
    }
    let mut failing = false;
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(EVERY);
        if stop.load(Ordering::Acquire) {
            break;
        }
        // (busy, pages in the WAL, pages checkpointed): PASSIVE never waits for anyone.
        match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            Ok(()) => failing = false,
            Err(e) if !failing => {
                failing = true;
                tracing::warn!(error = %e, "WAL checkpoint failed; retrying");
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::db::{Db, DbOptions, Link};

    /// The database file grows with the committed pages only when something checkpoints the WAL:
    /// the writer's own threshold ([`super::FALLBACK_PAGES`]) is far above what this writes, so
    /// the growth is this thread's doing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn committed_pages_reach_the_database_file_without_the_writer_checkpointing() {
        let dir = std::env::temp_dir().join(format!("stoa-ckpt-{}", uuid::Uuid::new_v4()));
        let db = Db::connect(&DbOptions::new(format!("sqlite://{}/t.db", dir.display())))
            .await
            .expect("connect");
        let file = dir.join("t.db");
        let before = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        let mut tx = db.begin().await.expect("begin");
        {
            let e = tx.exec();
            let Link::Sqlite(c) = e.link else {
                panic!("sqlite")
            };
            c.execute_batch(
                "CREATE TABLE t (b BLOB NOT NULL);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
                 INSERT INTO t SELECT randomblob(2000) FROM n;",
            )
            .expect("write");
        }
        tx.commit().await.expect("commit");
        let mut grown = 0;
        for _ in 0..50 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            grown = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
            if grown >= before + 1_000_000 {
                break;
            }
        }
        db.close().await;
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            grown >= before + 1_000_000,
            "the WAL was not checkpointed: the file went from {before} to {grown} bytes"
        );
    }
}
