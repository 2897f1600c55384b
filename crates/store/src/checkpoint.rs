//! WAL checkpoints off the writer.
//!
//! SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL past its threshold:
//! that writer copies the WAL's pages into the database file and fsyncs it while it still holds
//! the one writer connection, so every other writer waits behind a checkpoint (a fifth of the
//! writer's time under bench/checkout.sh). Here a thread of its own, on a connection of its own,
//! runs a PASSIVE checkpoint every [`EVERY`]: it takes no lock a writer needs, so commits go on
//! meanwhile. With nothing new in the WAL for [`IDLE_CLOSE`] it closes its connection until the
//! WAL is written again; between checkpoints it lets idle readers go (`sqlite_read::tidy`). The
//! writer keeps a high automatic threshold ([`FALLBACK_PAGES`]) so the WAL stays bounded even if
//! this thread fell behind.

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
    /// Whether the thread holds its connection open now.
    #[cfg_attr(not(test), expect(dead_code))]
    open: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing the database at `path` (its writer has opened it in WAL mode).
    /// `tidy` runs between checkpoints (the readers let idle connections go).
    pub(crate) fn start(path: PathBuf, tidy: Box<dyn Fn() + Send>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let open = Arc::new(AtomicBool::new(false));
        let (flag, holds) = (stop.clone(), open.clone());
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(&path, &flag, &holds, &*tidy))
            .map_err(|e| tracing::warn!(error = %e, "no checkpoint thread: the writer checkpoints"))
            .ok();
        Self { stop, open, thread }
    }

    /// Whether the checkpointer holds its connection open now (it lets it go when idle).
    #[cfg(test)]
    pub(crate) fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
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

/// After this long with nothing new to checkpoint, the connection closes until the WAL is
/// written again: an open connection holds the database's parsed schema (~1 MB with the demo's
/// 128 entities), which an idle server need not keep (issue 52).
const IDLE_CLOSE: Duration = if cfg!(test) {
    Duration::from_millis(400)
} else {
    Duration::from_secs(5)
};

fn open(path: &PathBuf) -> Result<rusqlite::Connection, rusqlite::Error> {
    use rusqlite::OpenFlags;
    let conn = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    // A checkpoint fsyncs the database file before the WAL may be reused only at FULL (or
    // NORMAL): set here rather than trusted to the build's default.
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA busy_timeout = 0;")?;
    Ok(conn)
}

/// What the WAL file looks like from outside: it changes with every write to it.
fn wal_state(wal: &std::path::Path) -> Option<(std::time::SystemTime, u64)> {
    let m = std::fs::metadata(wal).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// `(frames in the WAL, frames checkpointed)` after a PASSIVE checkpoint, which never waits
/// for anyone.
fn checkpoint(conn: &rusqlite::Connection) -> rusqlite::Result<(i64, i64)> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
        Ok((r.get(1)?, r.get(2)?))
    })
}

fn run(path: &PathBuf, stop: &AtomicBool, open_now: &AtomicBool, tidy: &dyn Fn()) {
    let mut wal = path.clone().into_os_string();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    let mut conn = None;
    // While closed: the WAL as it was when the connection closed; any change reopens it.
    let mut closed_at = None;
    // The last checkpoint's result and since when it has not changed.
    let mut last = None;
    let mut still = std::time::Instant::now();
    let mut failing = false;
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(EVERY);
        if stop.load(Ordering::Acquire) {
            break;
        }
        tidy();
        if conn.is_none() {
            if closed_at.is_some() && wal_state(&wal) == closed_at {
                continue;
            }
            match open(path) {
                Ok(c) => {
                    conn = Some(c);
                    open_now.store(true, Ordering::Release);
                }
                Err(e) => {
                    if !failing {
                        failing = true;
                        tracing::warn!(error = %e, "no checkpoint connection; retrying (the writer checkpoints meanwhile)");
                    }
                    continue;
                }
            }
            (last, still) = (None, std::time::Instant::now());
        }
        let Some(c) = conn.as_ref() else { continue };
        match checkpoint(c) {
            Ok(now) => {
                failing = false;
                if last != Some(now) {
                    (last, still) = (Some(now), std::time::Instant::now());
                } else if still.elapsed() >= IDLE_CLOSE {
                    // Quiet: note the WAL, checkpoint once more (a write just before the note is
                    // in it; one after changes the WAL file), and close.
                    closed_at = wal_state(&wal);
                    let _ = checkpoint(c);
                    conn = None;
                    open_now.store(false, Ordering::Release);
                }
            }
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

    /// A SQLite database in a fresh folder (the folder, the database and its file's path).
    async fn fresh() -> (std::path::PathBuf, Db, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("stoa-ckpt-{}", uuid::Uuid::new_v4()));
        let db = Db::connect(&DbOptions::new(format!("sqlite://{}/t.db", dir.display())))
            .await
            .expect("connect");
        let file = dir.join("t.db").canonicalize().expect("the database file");
        (dir, db, file)
    }

    /// Commits `n` rows of 2 000 random bytes (a table `t` made on first use).
    async fn write_pages(db: &Db, n: u32) {
        let mut tx = db.begin().await.expect("begin");
        {
            let e = tx.exec();
            let Link::Sqlite(c) = e.link else {
                panic!("sqlite")
            };
            c.execute_batch(&format!(
                "CREATE TABLE IF NOT EXISTS t (b BLOB NOT NULL);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})
                 INSERT INTO t SELECT randomblob(2000) FROM n;"
            ))
            .expect("write");
        }
        tx.commit().await.expect("commit");
    }

    /// The file at `file` reaches `size` bytes within 2.5 s (a checkpoint copied the WAL in).
    async fn grows_to(file: &std::path::Path, size: u64) -> u64 {
        let mut now = 0;
        for _ in 0..50 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            now = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
            if now >= size {
                break;
            }
        }
        now
    }

    /// The database file grows with the committed pages only when something checkpoints the WAL:
    /// the writer's own threshold ([`super::FALLBACK_PAGES`]) is far above what this writes, so
    /// the growth is this thread's doing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn committed_pages_reach_the_database_file_without_the_writer_checkpointing() {
        let (dir, db, file) = fresh().await;
        let before = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        write_pages(&db, 500).await;
        let grown = grows_to(&file, before + 1_000_000).await;
        db.close().await;
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            grown >= before + 1_000_000,
            "the WAL was not checkpointed: the file went from {before} to {grown} bytes"
        );
    }

    /// An idle checkpointer closes its connection (and the schema it parsed), and the next
    /// write to the WAL opens it again and is checkpointed like the first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_idle_checkpointer_lets_its_connection_go_and_comes_back_for_the_next_write() {
        let (dir, db, file) = fresh().await;
        write_pages(&db, 500).await;
        let first = grows_to(&file, 1_000_000).await;
        let open = || db.checkpointer_open();
        let busy = open();
        // Quiet for longer than IDLE_CLOSE: the connection goes.
        let mut idle = busy;
        for _ in 0..40 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            idle = open();
            if !idle {
                break;
            }
        }
        write_pages(&db, 500).await;
        let second = grows_to(&file, first + 900_000).await;
        let again = open();
        db.close().await;
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            first >= 1_000_000,
            "the first write was not checkpointed ({first} bytes)"
        );
        assert!(
            busy,
            "the checkpointer had its connection open after a write"
        );
        assert!(!idle, "the idle checkpointer closed its connection");
        assert!(
            second >= first + 900_000,
            "the write after the quiet was not checkpointed: {first} then {second} bytes"
        );
        assert!(again, "the checkpointer opened its connection again");
    }
}
