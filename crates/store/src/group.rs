//! Group commit for SQLite's one writer connection.
//!
//! With `synchronous = FULL` every COMMIT waits for an fsync of the WAL (about 0.7 ms on this
//! class of disk), so one fsync per transaction caps a server at roughly 1 500 write transactions a
//! second however little each one writes. A paid checkout is about twenty small transactions
//! (the request's own, the job claims and settles, the webhook inbox, the status changes), so the
//! fsync — not the work — was the ceiling (ADR 0015).
//!
//! Here the writers still take the connection one at a time, but consecutive transactions share
//! one SQLite transaction, a *batch*:
//! - the first writer of a batch runs `BEGIN IMMEDIATE`; each writer runs inside its own
//!   `SAVEPOINT`, so a writer that fails or is dropped rolls back only its own work;
//! - a writer's commit releases its savepoint and, if another writer is already queued for the
//!   connection (and the batch is young, see [`AGE_PER_COMMIT`], and smaller than
//!   [`MAX_MEMBERS`]), hands the connection on without committing; otherwise it commits the batch
//!   (one fsync);
//! - `commit()` returns only once the batch it belongs to is durably committed, with that commit's
//!   outcome: a writer is never told "done" for work that could still be lost, and a failed batch
//!   commit fails every writer in it (none of their work is kept).
//!
//! Work that a writer's caller reads back *inside* its transaction sees earlier batch members'
//! writes, as it would have seen them committed one by one; readers outside (the rusqlite reader
//! connections) see them when the batch commits, before any member's `commit()` returns.
//!
//! The connection is rusqlite's, used on the calling worker (as the readers are, ADR 0004): a
//! statement is a function call, not a hand-off to sqlx's connection thread and back, which cost
//! tens of microseconds of latency per statement *while the writer was held*.
//!
//! Cancellation: statements run synchronously, so a dropped request cannot leave a batch
//! half-committed; a member waiting for its batch re-checks every [`HEAL_AFTER`] and commits the
//! batch itself when nobody holds the connection (the writer it was handed to was cancelled).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use stoa_kernel::{Error, Result};
use tokio::sync::{Mutex, OwnedMutexGuard, watch};

use crate::sqlite_read::blocking;

/// At most this many writers share one commit.
pub const MAX_MEMBERS: usize = 256;
/// A batch is committed once it is this old, even while writers keep queueing…
pub const MAX_AGE: Duration = Duration::from_millis(20);
/// …and usually sooner: once it is this many times as old as the last commit took, so that
/// commits take at most about a quarter of the writer's time and a writer waits for its batch
/// no longer than it must (a fixed 20 ms made every request wait 20 ms per transaction).
const AGE_PER_COMMIT: u32 = 3;
/// The shortest batch age that ends a batch (commits faster than this are not worth batching).
const MIN_AGE: Duration = Duration::from_micros(500);
/// A writer waiting for its batch commits it itself when nobody did within this time.
const HEAL_AFTER: Duration = Duration::from_millis(50);

/// How a batch ended: `Ok` when committed; the message of the failure otherwise.
type Outcome = std::result::Result<(), String>;

/// Moves the search-index entries the batch's writes queued into their indexes (see
/// `ddl::search_index`): one statement per index written to, then the queue is emptied. A
/// database not migrated yet has no queue.
fn flush_search(c: &Connection) -> std::result::Result<(), String> {
    // Made once: this runs before every batch's COMMIT.
    static SQL: std::sync::LazyLock<(String, String)> = std::sync::LazyLock::new(|| {
        use crate::ddl::{SEARCH_FLUSH, SEARCH_PENDING};
        (
            format!(
                "SELECT DISTINCT f.sql FROM {SEARCH_PENDING} p JOIN {SEARCH_FLUSH} f ON f.fts = p.fts"
            ),
            format!("DELETE FROM {SEARCH_PENDING}"),
        )
    });
    let (pending, emptied) = &*SQL;
    let flushes: Vec<String> = match c.prepare_cached(pending) {
        Ok(mut st) => st
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| e.to_string())?,
        Err(e) if e.to_string().contains("no such table") => return Ok(()),
        Err(e) => return Err(e.to_string()),
    };
    if flushes.is_empty() {
        return Ok(());
    }
    for sql in &flushes {
        c.prepare_cached(sql)
            .and_then(|mut st| st.execute([]))
            .map_err(|e| format!("search index: {e}"))?;
    }
    c.prepare_cached(emptied)
        .and_then(|mut st| st.execute([]))
        .map(drop)
        .map_err(|e| format!("search index: {e}"))
}

/// The writer side of a SQLite database.
#[derive(Debug)]
pub struct Group {
    state: Arc<Mutex<State>>,
    /// Writers queued for the connection (a committing writer hands on while this is non-zero).
    waiting: AtomicUsize,
    acquire_timeout: Duration,
    /// Batches committed and writers in them (tests, and `/metrics` through `Db::sqlite_writes`).
    pub(crate) batches: AtomicU64,
    pub(crate) members: AtomicU64,
    /// How long the last COMMIT took, in microseconds.
    last_commit_us: AtomicU64,
    /// Microseconds a writer held the connection, in all (its statements, the waits between them,
    /// and the commits it ran): near one second a second, the one writer is what limits writes.
    pub(crate) busy_us: AtomicU64,
    /// The youngest age that ends a batch, in microseconds ([`MIN_AGE`]; tests raise it to make
    /// writers share a batch whatever the machine's speed).
    min_age_us: AtomicU64,
}

/// The writer connection and the batch open on it.
#[derive(Debug)]
pub struct State {
    conn: Connection,
    batch: Option<Batch>,
    /// Batch ids.
    seq: u64,
    /// When the writer holding the connection took it.
    held_at: Instant,
}

#[derive(Debug)]
struct Batch {
    id: u64,
    started: Instant,
    /// Writers whose savepoints were released into this batch.
    members: usize,
    done: watch::Sender<Option<Outcome>>,
}

/// A write transaction: one savepoint in the open batch, holding the connection.
#[derive(Debug)]
pub struct GroupTx {
    guard: Option<OwnedMutexGuard<State>>,
    group: Arc<Group>,
}

/// Counts a writer as queued until it has the connection (or gave up waiting).
struct Queued<'a>(&'a AtomicUsize);

impl<'a> Queued<'a> {
    fn new(n: &'a AtomicUsize) -> Self {
        n.fetch_add(1, Ordering::AcqRel);
        Self(n)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn exec(conn: &Connection, sql: &str) -> std::result::Result<(), String> {
    conn.execute_batch(sql).map_err(|e| e.to_string())
}

/// One of the per-writer savepoint statements, prepared once. Writers take the connection one at
/// a time and each ends its savepoint before the next begins, so one name serves them all.
fn savepoint(conn: &Connection, sql: &'static str) -> std::result::Result<(), String> {
    conn.prepare_cached(sql)
        .and_then(|mut s| s.execute([]))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

const SAVEPOINT: &str = "SAVEPOINT w";
const RELEASE: &str = "RELEASE w";
const ROLLBACK_TO: &str = "ROLLBACK TO w";

fn unavailable(what: &str, e: &str) -> Error {
    tracing::error!(error = %e, "SQLite could not {what}");
    Error::Unavailable(format!(
        "the database could not {what}; nothing was saved, try again"
    ))
}

impl State {
    pub fn conn(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

impl Group {
    pub fn new(conn: Connection, acquire_timeout: Duration) -> Arc<Self> {
        Arc::new(Self {
            state: Arc::new(Mutex::new(State {
                conn,
                batch: None,
                seq: 0,
                held_at: Instant::now(),
            })),
            waiting: AtomicUsize::new(0),
            acquire_timeout,
            batches: AtomicU64::new(0),
            members: AtomicU64::new(0),
            last_commit_us: AtomicU64::new(0),
            busy_us: AtomicU64::new(0),
            min_age_us: AtomicU64::new(u64::try_from(MIN_AGE.as_micros()).unwrap_or(500)),
        })
    }

    async fn lock(&self) -> Result<OwnedMutexGuard<State>> {
        tokio::time::timeout(self.acquire_timeout, self.state.clone().lock_owned())
            .await
            .map_err(|_| Error::Unavailable("the database is busy; try again".into()))
    }

    /// A write transaction (queues for the connection, like a one-connection pool).
    pub async fn begin(self: &Arc<Self>) -> Result<GroupTx> {
        let mut st = {
            let _queued = Queued::new(&self.waiting);
            self.lock().await?
        };
        st.held_at = Instant::now();
        if st.batch.is_none() {
            if !st.conn.is_autocommit() {
                // Left open by a failure between statements: whatever it began is undone.
                let _ = exec(&st.conn, "ROLLBACK");
            }
            if let Err(e) = blocking(|| exec(&st.conn, "BEGIN IMMEDIATE")) {
                return Err(unavailable("start a transaction", &e));
            }
            st.seq += 1;
            let id = st.seq;
            st.batch = Some(Batch {
                id,
                started: Instant::now(),
                members: 0,
                done: watch::channel(None).0,
            });
        }
        if let Err(e) = savepoint(&st.conn, SAVEPOINT) {
            let err = unavailable("start a transaction", &e);
            self.end_or_hand_on(st, Some(e));
            return Err(err);
        }
        Ok(GroupTx {
            guard: Some(st),
            group: self.clone(),
        })
    }

    /// After a writer left the connection: commit the batch when nobody is queued (or it is full
    /// or old), otherwise leave it open for the next writer. `failed` ends the batch with that
    /// failure (its transaction is gone). Returns the batch's outcome receiver.
    fn end_or_hand_on(
        &self,
        mut st: OwnedMutexGuard<State>,
        failed: Option<String>,
    ) -> Option<watch::Receiver<Option<Outcome>>> {
        let rx = self.hand_on_or_finish(&mut st, failed);
        self.busy_us.fetch_add(
            u64::try_from(st.held_at.elapsed().as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        rx
    }

    /// [`Self::end_or_hand_on`] but for the time held, which that adds to `busy_us` after.
    fn hand_on_or_finish(
        &self,
        st: &mut State,
        failed: Option<String>,
    ) -> Option<watch::Receiver<Option<Outcome>>> {
        let batch = st.batch.as_ref()?;
        let rx = batch.done.subscribe();
        // An empty batch (every writer in it rolled back) is ended rather than handed on, so a
        // transaction is never left open with nobody to end it.
        if failed.is_none()
            && batch.members > 0
            && self.waiting.load(Ordering::Acquire) > 0
            && batch.members < MAX_MEMBERS
            && batch.started.elapsed() < self.max_age()
        {
            return Some(rx);
        }
        self.finish(st, failed);
        Some(rx)
    }

    /// Commits (or, after `failed` or with no members, rolls back) the open batch and tells its
    /// members.
    fn finish(&self, st: &mut State, failed: Option<String>) {
        let Some(batch) = st.batch.take() else { return };
        let c = &st.conn;
        let outcome = match failed {
            None if batch.members > 0 => {
                // The fsync: the worker's other tasks move elsewhere meanwhile.
                let t = Instant::now();
                let r = flush_search(c).and_then(|()| blocking(|| exec(c, "COMMIT")));
                self.last_commit_us.store(
                    u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX),
                    Ordering::Relaxed,
                );
                if r.is_err() {
                    let _ = exec(c, "ROLLBACK");
                } else {
                    self.batches.fetch_add(1, Ordering::Relaxed);
                    self.members
                        .fetch_add(batch.members as u64, Ordering::Relaxed);
                }
                r
            }
            failed => {
                if !c.is_autocommit() {
                    let _ = exec(c, "ROLLBACK");
                }
                failed.map_or(Ok(()), Err)
            }
        };
        if let Err(e) = &outcome {
            tracing::error!(error = %e, writers = batch.members, "SQLite group commit failed");
        }
        let _ = batch.done.send(Some(outcome));
    }

    /// How old a batch may grow while writers keep coming (see [`AGE_PER_COMMIT`]).
    fn max_age(&self) -> Duration {
        let last = Duration::from_micros(self.last_commit_us.load(Ordering::Relaxed));
        let min = Duration::from_micros(self.min_age_us.load(Ordering::Relaxed));
        (last * AGE_PER_COMMIT).clamp(min, MAX_AGE.max(min))
    }

    /// Waits until the batch behind `rx` ended; commits it itself when it stays open with nobody
    /// holding the connection.
    async fn wait(&self, mut rx: watch::Receiver<Option<Outcome>>, id: u64) -> Outcome {
        loop {
            if let Some(o) = rx.borrow_and_update().clone() {
                return o;
            }
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return rx.borrow().clone().unwrap_or_else(|| Err("the batch was abandoned".into()));
                    }
                }
                () = tokio::time::sleep(HEAL_AFTER) => {
                    if let Ok(mut st) = self.state.clone().try_lock_owned()
                        && st.batch.as_ref().is_some_and(|b| b.id == id)
                    {
                        self.finish(&mut st, None);
                    }
                }
            }
        }
    }

    /// Shutdown: commits an open batch.
    pub async fn close(&self) {
        let mut st = self.state.lock().await;
        self.finish(&mut st, None);
    }

    /// The connection for a read outside any write (secrets, schema, pragmas): an open batch is
    /// committed first, so the read sees only committed data, and no writer runs meanwhile.
    pub async fn read(&self) -> Result<OwnedMutexGuard<State>> {
        let mut st = self.lock().await?;
        self.finish(&mut st, None);
        Ok(st)
    }
}

impl GroupTx {
    pub fn conn(&mut self) -> &mut Connection {
        match self.guard.as_mut() {
            Some(g) => &mut g.conn,
            // `begin` only returns a transaction holding the connection.
            None => unreachable!("a GroupTx always holds the writer connection"),
        }
    }

    /// Releases this writer's savepoint into the batch and returns once the batch is committed.
    pub async fn commit(mut self) -> Result<()> {
        let Some(mut st) = self.guard.take() else {
            return Err(Error::internal("transaction already ended"));
        };
        let released = savepoint(&st.conn, RELEASE);
        let id = st.batch.as_ref().map_or(0, |b| b.id);
        if let Err(e) = released {
            // SQLite rolled the whole transaction back (disk full, I/O error): the batch is lost.
            let err = unavailable("save", &e);
            self.group.end_or_hand_on(st, Some(e));
            return Err(err);
        }
        if let Some(b) = st.batch.as_mut() {
            b.members += 1;
        }
        let Some(rx) = self.group.end_or_hand_on(st, None) else {
            return Err(Error::internal("no open batch"));
        };
        self.group
            .wait(rx, id)
            .await
            .map_err(|e| unavailable("commit", &e))
    }
}

impl Drop for GroupTx {
    /// A transaction dropped without commit: its savepoint is rolled back, and the batch goes on
    /// or ends as after a commit.
    fn drop(&mut self) {
        let Some(st) = self.guard.take() else {
            return;
        };
        let undone = savepoint(&st.conn, ROLLBACK_TO).and_then(|()| savepoint(&st.conn, RELEASE));
        self.group.end_or_hand_on(st, undone.err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Db, DbOptions, Link, Tx};

    async fn db() -> (Db, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("stoa-group-{}", uuid::Uuid::new_v4()));
        let url = format!("sqlite://{}/t.db", dir.display());
        let db = Db::connect(&DbOptions::new(url)).await.expect("connect");
        let mut tx = db.begin().await.expect("begin");
        run(
            &mut tx,
            "CREATE TABLE parent (id INTEGER PRIMARY KEY);
             CREATE TABLE t (n INTEGER NOT NULL UNIQUE,
               parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)",
        )
        .await;
        tx.commit().await.expect("commit");
        (db, dir)
    }

    async fn run(tx: &mut Tx, sql: &str) {
        let Link::Sqlite(c) = tx.exec().link else {
            panic!("sqlite")
        };
        exec(c, sql).expect(sql);
    }

    fn group(db: &Db) -> Arc<Group> {
        match db {
            Db::Sqlite { group, .. } => group.clone(),
            Db::Postgres(_) => unreachable!(),
        }
    }

    /// The rows of `t`, read through a reader connection (committed data only).
    async fn committed(dir: &std::path::Path) -> Vec<i64> {
        let c = rusqlite::Connection::open(dir.join("t.db")).expect("open");
        let mut s = c.prepare("SELECT n FROM t ORDER BY n").expect("prepare");
        s.query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect()
    }

    /// `busy_us` counts the time a writer holds the connection, the waits between its statements
    /// included, and not the time it spends queued or after its commit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_time_a_writer_holds_the_connection_is_counted() {
        let (db, _dir) = db().await;
        let g = group(&db);
        let before = g.busy_us.load(Ordering::Relaxed);
        let mut tx = db.begin().await.expect("begin");
        run(&mut tx, "INSERT INTO t (n) VALUES (1)").await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        tx.commit().await.expect("commit");
        let held = g.busy_us.load(Ordering::Relaxed) - before;
        assert!(held >= 30_000, "held {held} µs");
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            g.busy_us.load(Ordering::Relaxed) - before,
            held,
            "nothing held meanwhile"
        );
        // A writer that gives up (dropped without commit) is counted too.
        let tx = db.begin().await.expect("begin");
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(tx);
        assert!(g.busy_us.load(Ordering::Relaxed) - before >= held + 20_000);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writers_share_commits_and_each_sees_its_row_once_committed() {
        let (db, dir) = db().await;
        let g = group(&db);
        let before = g.batches.load(Ordering::Relaxed);
        let tasks: Vec<_> = (0..200)
            .map(|n| {
                let db = db.clone();
                let dir = dir.clone();
                tokio::spawn(async move {
                    let mut tx = db.begin().await.expect("begin");
                    run(&mut tx, &format!("INSERT INTO t (n) VALUES ({n})")).await;
                    tx.commit().await.expect("commit");
                    // Durable and visible to every reader once commit returns.
                    assert!(committed(&dir).await.contains(&n), "row {n} not committed");
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("task");
        }
        assert_eq!(committed(&dir).await, (0..200).collect::<Vec<_>>());
        let batches = g.batches.load(Ordering::Relaxed) - before;
        assert!(
            batches < 200,
            "{batches} commits for 200 writers: none shared"
        );
        assert_eq!(g.members.load(Ordering::Relaxed), 201);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_writer_that_fails_or_is_dropped_undoes_only_its_own_work() {
        let (db, dir) = db().await;
        let tasks: Vec<_> = (0..120)
            .map(|n| {
                let db = db.clone();
                tokio::spawn(async move {
                    let mut tx = db.begin().await.expect("begin");
                    run(&mut tx, &format!("INSERT INTO t (n) VALUES ({n})")).await;
                    match n % 3 {
                        0 => tx.commit().await.expect("commit"),
                        1 => drop(tx),
                        _ => {
                            // A statement that fails (its own row again: a duplicate, whatever
                            // order the writers came in) and then the writer gives up.
                            let Link::Sqlite(c) = tx.exec().link else {
                                unreachable!()
                            };
                            let again = format!("INSERT INTO t (n) VALUES ({n})");
                            assert!(exec(c, &again).is_err());
                            drop(tx);
                        }
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("task");
        }
        // Let the dropped writers' rollbacks (spawned) finish.
        let mut tx = db.begin().await.expect("begin");
        run(&mut tx, "SELECT 1").await;
        tx.commit().await.expect("commit");
        let want: Vec<i64> = (0..120).filter(|n| n % 3 == 0).collect();
        assert_eq!(committed(&dir).await, want);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_group_commit_fails_every_writer_in_it_and_keeps_nothing() {
        let (db, dir) = db().await;
        // Hold the connection so both writers below land in one batch, however slow the machine.
        group(&db).min_age_us.store(60_000_000, Ordering::Relaxed);
        let mut first = db.begin().await.expect("begin");
        run(&mut first, "INSERT INTO parent (id) VALUES (1)").await;
        let good = tokio::spawn({
            let db = db.clone();
            async move {
                let mut tx = db.begin().await.expect("begin");
                run(&mut tx, "INSERT INTO t (n, parent) VALUES (1, 1)").await;
                tx.commit().await
            }
        });
        let bad = tokio::spawn({
            let db = db.clone();
            async move {
                let mut tx = db.begin().await.expect("begin");
                // Deferred: only the batch's COMMIT finds the missing parent.
                run(&mut tx, "INSERT INTO t (n, parent) VALUES (2, 99)").await;
                tx.commit().await
            }
        });
        while group(&db).waiting.load(Ordering::Acquire) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let first = first.commit().await;
        let (good, bad) = (good.await.expect("task"), bad.await.expect("task"));
        assert!(
            first.is_err() && good.is_err() && bad.is_err(),
            "{first:?} {good:?} {bad:?}"
        );
        assert!(matches!(bad, Err(Error::Unavailable(_))));
        assert!(committed(&dir).await.is_empty());
        // The writer goes on working after the failed batch.
        let mut tx = db.begin().await.expect("begin");
        run(&mut tx, "INSERT INTO t (n) VALUES (7)").await;
        tx.commit().await.expect("commit");
        assert_eq!(committed(&dir).await, vec![7]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_writer_cancelled_while_it_holds_the_handed_on_batch_does_not_strand_it() {
        let (db, dir) = db().await;
        group(&db).min_age_us.store(60_000_000, Ordering::Relaxed);
        let mut first = db.begin().await.expect("begin");
        run(&mut first, "INSERT INTO t (n) VALUES (1)").await;
        // A writer queues (so `first` hands the batch on) and is then cancelled while it holds the
        // connection.
        let stuck = tokio::spawn({
            let db = db.clone();
            async move {
                let mut tx = db.begin().await.expect("begin");
                run(&mut tx, "INSERT INTO t (n) VALUES (2)").await;
                std::future::pending::<()>().await;
                drop(tx);
            }
        });
        while group(&db).waiting.load(Ordering::Acquire) < 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let committing = tokio::spawn(async move { first.commit().await });
        tokio::time::sleep(Duration::from_millis(30)).await;
        stuck.abort();
        let done = tokio::time::timeout(Duration::from_secs(5), committing).await;
        assert!(matches!(done, Ok(Ok(Ok(())))), "{done:?}");
        assert_eq!(committed(&dir).await, vec![1]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batch_handed_to_a_writer_that_never_came_is_committed_by_its_member() {
        let (db, dir) = db().await;
        let g = group(&db);
        g.min_age_us.store(60_000_000, Ordering::Relaxed);
        let mut first = db.begin().await.expect("begin");
        run(&mut first, "INSERT INTO t (n) VALUES (1)").await;
        // A writer queued and then gave up before it took the connection.
        g.waiting.fetch_add(1, Ordering::AcqRel);
        let committing = tokio::spawn(async move { first.commit().await });
        tokio::time::sleep(Duration::from_millis(10)).await;
        g.waiting.fetch_sub(1, Ordering::AcqRel);
        let done = tokio::time::timeout(Duration::from_secs(5), committing).await;
        assert!(matches!(done, Ok(Ok(Ok(())))), "{done:?}");
        assert_eq!(committed(&dir).await, vec![1]);
    }
}
