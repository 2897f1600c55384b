//! SQLite reads through rusqlite: a small pool of read-only connections with cached prepared
//! statements, run on the calling worker with `block_in_place`, rows decoded straight into
//! [`Record`]s.
//!
//! Why not sqlx for reads: sqlx-sqlite hands every query to a per-connection worker thread and
//! copies every value with SQLite's allocator; on this 2-core machine that capped a 100-row list at
//! ~1 300 req/s (see docs/benchmarks.md and docs/adr/0004). Writes stay on sqlx's single writer
//! connection, which serialises them. Both link the same bundled SQLite (`libsqlite3-sys`).

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags};
use sea_query::Value;
use sea_query_sqlx::SqlxValues;
use stoa_kernel::model::{Entity, Field, Kind};
use stoa_kernel::{Error, Result};
use tokio::sync::Semaphore;

use crate::errors::sqlite_error;
use crate::record::{CellRef, Record, write_object};

pub struct Readers {
    path: PathBuf,
    /// Least recently used first: a read takes the last one.
    idle: Arc<Mutex<Vec<Reader>>>,
    /// Reads running at once (cheap ones; a long read gives its permit back, see [`Gate`]).
    permits: Arc<Semaphore>,
    gate: Arc<Gate>,
    /// The longest one read may run: the request timeout.
    budget: Duration,
    /// The WAL's checkpoints, off the writer (started by [`Readers::checkpoint`]).
    checkpointer: Mutex<Option<crate::checkpoint::Checkpointer>>,
    /// Reads that ran past [`INLINE_FOR`] on a worker and were run again off it.
    moved: std::sync::atomic::AtomicU64,
}

/// A read connection and the watch its progress handler keeps.
struct Reader {
    conn: Connection,
    watch: Arc<Mutex<Option<Run>>>,
    /// When it was last given back.
    since: Instant,
    /// Its prepared statements were let go while it was idle ([`tidy`]).
    flushed: bool,
}

/// A reader idle this long is closed, unless it is the only one left, which lets its prepared
/// statements go instead: each connection holds the parsed schema (~1 MB with the demo's 128
/// entities) and up to 512 statements, which an idle server need not keep (issue 52).
const READER_IDLE: Duration = if cfg!(test) {
    Duration::from_millis(300)
} else {
    Duration::from_secs(10)
};

/// Closes the readers idle past [`READER_IDLE`] but the most recently used one, and lets that
/// one's prepared statements go. Run by the checkpoint thread between checkpoints.
fn tidy(idle: &Mutex<Vec<Reader>>) {
    let gone = {
        let Ok(mut idle) = idle.lock() else { return };
        let stale = idle
            .iter()
            .take(idle.len().saturating_sub(1))
            .take_while(|r| r.since.elapsed() >= READER_IDLE)
            .count();
        if let Some(last) = idle.last_mut()
            && !last.flushed
            && last.since.elapsed() >= READER_IDLE
        {
            last.conn.flush_prepared_statement_cache();
            last.flushed = true;
        }
        idle.drain(..stale).collect::<Vec<_>>()
    };
    // Closed outside the lock.
    drop(gone);
}

/// The read running on a connection, as its progress handler sees it.
struct Run {
    started: Instant,
    deadline: Instant,
    /// Past [`LONG_AFTER`]: gave its reader permit back.
    long: bool,
    /// Holds a slot of the [`Gate`].
    gated: bool,
    /// Running on the worker (see [`INLINE_FOR`]) until then.
    inline_until: Option<Instant>,
    stopped: Option<Stop>,
}

#[derive(Clone, Copy, Debug)]
enum Stop {
    /// Ran past the budget.
    Deadline,
    /// Too many long reads already wait for the gate.
    Busy,
    /// Ran past [`INLINE_FOR`] on the worker: run again off it.
    Inline,
}

/// A read running longer than this is long: it gives its reader permit back to cheap reads and
/// waits for one of the few long-read slots, so a handful of expensive lists cannot starve
/// point lookups and `/health`.
const LONG_AFTER: Duration = Duration::from_millis(100);
/// A read that is not a point lookup starts on the worker that asked for it, as a point lookup
/// does; one still running after this long is stopped and run again from the start off the
/// worker (`block_in_place`, so the worker's other tasks move to another thread meanwhile). Handing
/// the worker away costs two thread wake-ups and switches per read, and nearly every read is
/// over well before this (a tenth of the server's CPU in bench/checkout.sh went to those hand-offs,
/// for reads of a few tens of microseconds); a long read loses at most this much work.
const INLINE_FOR: Duration = Duration::from_millis(2);
/// SQLite VM steps between two progress checks (well under a millisecond of work).
const CHECK_EVERY: i32 = 10_000;

/// The long-read gate: `slots` long reads run at once, at most `max_waiting` wait (each waiting
/// read blocks its thread, not a core); past that a long read is stopped with "busy".
struct Gate {
    /// (running, waiting)
    state: Mutex<(usize, usize)>,
    turn: Condvar,
    slots: usize,
    max_waiting: usize,
}

impl Gate {
    fn enter(&self, deadline: Instant) -> Result<(), Stop> {
        let mut st = self.state.lock().map_err(|_| Stop::Busy)?;
        if st.0 < self.slots {
            st.0 += 1;
            return Ok(());
        }
        if st.1 >= self.max_waiting {
            return Err(Stop::Busy);
        }
        st.1 += 1;
        loop {
            let now = Instant::now();
            if now >= deadline {
                st.1 -= 1;
                return Err(Stop::Deadline);
            }
            st = match self.turn.wait_timeout(st, deadline - now) {
                Ok((g, _)) => g,
                Err(_) => return Err(Stop::Busy),
            };
            if st.0 < self.slots {
                st.1 -= 1;
                st.0 += 1;
                return Ok(());
            }
        }
    }

    fn leave(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.0 = st.0.saturating_sub(1);
        }
        self.turn.notify_one();
    }
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readers").field("path", &self.path).finish()
    }
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("sqlite read: {e}"))
}

/// The progress check of a read: stop it past its deadline; past [`LONG_AFTER`], move it from the
/// reader permits to the long-read gate (waiting there if it must).
fn check(watch: &Mutex<Option<Run>>, gate: &Gate, permits: &Semaphore) -> bool {
    let Ok(mut w) = watch.lock() else {
        return true;
    };
    let Some(run) = w.as_mut() else {
        return false;
    };
    let now = Instant::now();
    if now >= run.deadline {
        run.stopped = Some(Stop::Deadline);
        return true;
    }
    if run.inline_until.is_some_and(|t| now >= t) {
        run.stopped = Some(Stop::Inline);
        return true;
    }
    if !run.long && now - run.started >= LONG_AFTER {
        let deadline = run.deadline;
        run.long = true;
        permits.add_permits(1);
        // Not holding the watch while waiting: nobody else reads it, but keep it short anyway.
        drop(w);
        let entered = gate.enter(deadline);
        let Ok(mut w) = watch.lock() else {
            return true;
        };
        let Some(run) = w.as_mut() else {
            return true;
        };
        match entered {
            Ok(()) => run.gated = true,
            Err(stop) => {
                run.stopped = Some(stop);
                return true;
            }
        }
    }
    false
}

fn open(path: &PathBuf) -> Result<Connection> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| Error::Unavailable(format!("cannot open the database for reading: {e}")))?;
    c.execute_batch(
        "PRAGMA case_sensitive_like = ON; PRAGMA busy_timeout = 10000; PRAGMA mmap_size = 268435456; PRAGMA query_only = ON;",
    )
    .map_err(err)?;
    stable_plans(&c).map_err(err)?;
    c.set_prepared_statement_cache_capacity(512);
    Ok(c)
}

/// SQLite's query planner stability guarantee: a statement's plan does not depend on the values
/// bound to it. Without it, a parameter the planner looked at (every `LIMIT ?`, and any value
/// compared with a partial index's condition) marks the statement, and binding that parameter
/// again throws the prepared plan away: every cached statement with a `LIMIT` was parsed and
/// planned anew on each run (15 % of the server's CPU in bench/checkout.sh).
pub(crate) fn stable_plans(c: &Connection) -> rusqlite::Result<()> {
    c.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map(|_| ())
}

/// sea-query values (already mapped for SQLite by `repo::to_value`) as rusqlite values.
pub(crate) fn bind(v: &Value) -> Result<SqlValue> {
    Ok(match v {
        Value::Bool(b) => b.map_or(SqlValue::Null, |b| SqlValue::Integer(i64::from(b))),
        Value::BigInt(i) => i.map_or(SqlValue::Null, SqlValue::Integer),
        Value::Int(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        Value::Double(d) => d.map_or(SqlValue::Null, SqlValue::Real),
        Value::String(s) => s.clone().map_or(SqlValue::Null, SqlValue::Text),
        Value::BigUnsigned(u) => u.map_or(SqlValue::Null, |u| {
            SqlValue::Integer(i64::try_from(u).unwrap_or(i64::MAX))
        }),
        other => return Err(err(format!("unexpected value kind {other:?}"))),
    })
}

/// sea-query values bound for SQLite as rusqlite values.
pub(crate) fn params(values: &SqlxValues) -> Result<Vec<SqlValue>> {
    values.0.0.iter().map(bind).collect()
}

/// Text from SQLite; bytes that are not UTF-8 (never written by Stoa) read as null.
fn text(t: &[u8]) -> Option<&str> {
    std::str::from_utf8(t).ok()
}

/// Column `i` of `row` as the wire value of field `f`.
fn cell<'r>(row: &'r rusqlite::Row<'_>, i: usize, f: &Field) -> Result<CellRef<'r>> {
    Ok(match (row.get_ref(i).map_err(err)?, f.kind) {
        (ValueRef::Null, _) => CellRef::Null,
        (ValueRef::Integer(n), Kind::Bool) => CellRef::Bool(n != 0),
        (ValueRef::Integer(n), _) => CellRef::Int(n),
        (ValueRef::Real(x), _) => CellRef::Float(x),
        (ValueRef::Text(t), k) if k.is_json() => text(t).map_or(CellRef::Null, CellRef::JsonText),
        (ValueRef::Text(t), _) => text(t).map_or(CellRef::Null, CellRef::Text),
        (ValueRef::Blob(_), _) => CellRef::Null,
    })
}

pub(crate) fn decode(cols: &[&Field], row: &rusqlite::Row<'_>) -> Result<Record> {
    let mut out = Vec::with_capacity(cols.len());
    for (i, f) in cols.iter().enumerate() {
        out.push((f.name, cell(row, i, f)?.to_owned()));
    }
    Ok(Record(out))
}

/// Runs blocking work without stalling the runtime: in place on a multi-thread runtime (other
/// tasks move to another worker), directly on a current-thread one.
pub(crate) fn blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// A read's turn on a connection: on drop, the permit or gate slot goes back, and the
/// connection back to the idle ones (unless the readers are closed).
struct Turn<'a> {
    readers: &'a Readers,
    reader: Option<Reader>,
    stopped: Option<Stop>,
}

impl Turn<'_> {
    /// Ends the turn; why the read was stopped, if it was.
    fn finish(mut self) -> Option<Stop> {
        self.release();
        self.stopped
    }

    fn release(&mut self) {
        let Some(reader) = self.reader.take() else {
            return;
        };
        let run = reader.watch.lock().ok().and_then(|mut w| w.take());
        // A long read gave its permit back when it became long, and may hold a gate slot.
        let (long, gated) = run.as_ref().map_or((false, false), |r| (r.long, r.gated));
        self.stopped = run.and_then(|r| r.stopped);
        if gated {
            self.readers.gate.leave();
        }
        if !long {
            self.readers.permits.add_permits(1);
        }
        if !self.readers.permits.is_closed()
            && let Ok(mut idle) = self.readers.idle.lock()
        {
            let mut reader = reader;
            reader.since = Instant::now();
            reader.flushed = false;
            idle.push(reader);
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

impl Readers {
    /// `max` reads at once; one read runs at most `budget` (the request timeout).
    pub fn new(path: PathBuf, max: usize, budget: Duration) -> Self {
        let max = max.max(1);
        Self {
            path,
            idle: Arc::new(Mutex::new(Vec::new())),
            permits: Arc::new(Semaphore::new(max)),
            gate: Arc::new(Gate {
                state: Mutex::new((0, 0)),
                turn: Condvar::new(),
                // Long reads take at most half the cores; a few more may wait their turn.
                slots: (max / 2).max(1),
                max_waiting: 2 * max,
            }),
            budget,
            checkpointer: Mutex::new(None),
            moved: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Checkpoints the WAL from a thread of its own from now on (see `checkpoint.rs`).
    pub fn checkpoint(&self) {
        if let Ok(mut c) = self.checkpointer.lock() {
            let idle = Arc::downgrade(&self.idle);
            c.get_or_insert_with(|| {
                crate::checkpoint::Checkpointer::start(
                    self.path.clone(),
                    Box::new(move || {
                        if let Some(idle) = idle.upgrade() {
                            tidy(&idle);
                        }
                    }),
                )
            });
        }
    }

    /// Whether the checkpointer holds its connection open now.
    #[cfg(test)]
    pub(crate) fn checkpointer_open(&self) -> bool {
        self.checkpointer
            .lock()
            .map(|c| c.as_ref().is_some_and(|c| c.is_open()))
            .unwrap_or(false)
    }

    /// `(state, count)` for metrics: reader connections open and idle, reads running (short
    /// ones hold a permit; long ones a gate slot) and long reads waiting for a slot.
    pub fn stats(&self) -> Vec<(&'static str, i64)> {
        let idle = self.idle.lock().map_or(0, |i| i.len());
        let (long, waiting) = self.gate.state.lock().map_or((0, 0), |g| *g);
        let max = self.gate.max_waiting / 2;
        let n = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
        vec![
            ("idle", n(idle)),
            (
                "in_use",
                n(max.saturating_sub(self.permits.available_permits()) + long),
            ),
            ("waiting", n(waiting)),
        ]
    }

    fn open_reader(&self) -> Result<Reader> {
        let conn = open(&self.path)?;
        let watch: Arc<Mutex<Option<Run>>> = Arc::new(Mutex::new(None));
        let (w, gate, permits) = (watch.clone(), self.gate.clone(), self.permits.clone());
        conn.progress_handler(CHECK_EVERY, Some(move || check(&w, &gate, &permits)))
            .map_err(err)?;
        Ok(Reader {
            conn,
            watch,
            since: Instant::now(),
            flushed: false,
        })
    }

    /// `point`: the query is a bounded point lookup (primary key), cheaper to run on the worker
    /// than to hand the worker's other tasks away. Any other read starts on the worker too, and
    /// moves off it when it runs past [`INLINE_FOR`]: `f` is then run again from the start, so it
    /// must start its output afresh on each call. A full-text search (`sql` with `MATCH`) runs off
    /// the worker from the start: FTS5 reads a term's whole posting list inside one VM step,
    /// where no progress check can stop it.
    async fn with<R>(
        &self,
        point: bool,
        sql: &str,
        mut f: impl FnMut(&Connection) -> Result<R>,
    ) -> Result<R> {
        let search = !point && sql.contains(" MATCH ");
        self.permits
            .acquire()
            .await
            .map_err(|_| Error::Unavailable("shutting down".into()))?
            .forget();
        let reader = self.idle.lock().map_err(err)?.pop();
        let reader = match reader {
            Some(r) => Ok(r),
            None => self.open_reader(),
        };
        let reader = match reader {
            Ok(r) => r,
            Err(e) => {
                self.permits.add_permits(1);
                return Err(e);
            }
        };
        let started = Instant::now();
        if let Ok(mut w) = reader.watch.lock() {
            *w = Some(Run {
                started,
                deadline: started + self.budget,
                long: false,
                gated: false,
                inline_until: (!point && !search).then(|| started + INLINE_FOR),
                stopped: None,
            });
        }
        // Gives the permit (or gate slot) and the connection back however `f` ends, a panic
        // included.
        let turn = Turn {
            readers: self,
            reader: Some(reader),
            stopped: None,
        };
        let conn = &turn
            .reader
            .as_ref()
            .ok_or_else(|| err("reader missing"))?
            .conn;
        let mut out = if search {
            blocking(|| f(conn))
        } else {
            f(conn)
        };
        // Only a failed run can have been stopped for its time on the worker (the stop is an
        // interrupt), so a read that succeeded takes no second look at its watch.
        if out.is_err() && !point && !search {
            let moved = match turn.reader.as_ref().map(|r| r.watch.lock()) {
                Some(Ok(mut w)) => w.as_mut().is_some_and(|run| {
                    run.inline_until = None;
                    run.stopped.take_if(|s| matches!(s, Stop::Inline)).is_some()
                }),
                _ => false,
            };
            if moved {
                self.moved
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                out = blocking(|| f(conn));
            }
        }
        let run = turn.finish();
        match (out, run) {
            (Err(_), Some(Stop::Deadline)) => Err(Error::Unavailable(format!(
                "the query ran for {} s and was stopped; narrow the list (filters, a smaller limit) and try again",
                self.budget.as_secs_f32()
            ))),
            (Err(_), Some(Stop::Busy)) => Err(Error::Unavailable(
                "the server is busy with other long queries; try again shortly".into(),
            )),
            (out, _) => out,
        }
    }

    /// Runs a select and hands each row, with the entity's public columns, to `each`.
    /// `point`: a primary-key lookup (see [`Self::with`]).
    async fn each_row(
        &self,
        e: &Entity,
        sql: &str,
        values: &SqlxValues,
        point: bool,
        mut each: impl FnMut(usize, &[&Field], &rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<usize> {
        let params = params(values)?;
        self.with(point, sql, |c| {
            let mut stmt = c.prepare_cached(sql).map_err(err)?;
            let mut rows = stmt
                .query(rusqlite::params_from_iter(params.iter()))
                .map_err(err)?;
            let cols = select_columns(e);
            let mut n = 0;
            while let Some(row) = rows.next().map_err(err)? {
                each(n, &cols, row)?;
                n += 1;
            }
            Ok(n)
        })
        .await
    }

    /// The records a select returns.
    pub async fn records(
        &self,
        e: &Entity,
        sql: &str,
        values: &SqlxValues,
        point: bool,
    ) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        self.each_row(e, sql, values, point, |n, cols, row| {
            if n == 0 {
                // A read run again (see `with`) starts over.
                out.clear();
            }
            out.push(decode(cols, row)?);
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Appends every row as a JSON object (comma-separated) to `out`; returns the row count. The
    /// response fast path: no per-cell allocation. `keep`: the fields of row number `keep.0` to
    /// copy into `keep.2` (a page's last row, for its cursor).
    pub async fn write_json(
        &self,
        e: &Entity,
        sql: &str,
        values: &SqlxValues,
        point: bool,
        out: &mut Vec<u8>,
        mut keep: Option<(usize, &[&str], &mut Vec<serde_json::Value>)>,
    ) -> Result<usize> {
        let start = out.len();
        let kept_from = keep.as_ref().map_or(0, |(_, _, kept)| kept.len());
        self.each_row(e, sql, values, point, |n, cols, row| {
            if n == 0 {
                // A read run again (see `with`) starts over.
                out.truncate(start);
                if let Some((_, _, kept)) = keep.as_mut() {
                    kept.truncate(kept_from);
                }
            }
            // Rows after the first follow a '}'; the first follows '[' or ':'.
            if out.last() == Some(&b'}') {
                out.push(b',');
            }
            let cells = cols
                .iter()
                .enumerate()
                .map(|(i, f)| cell(row, i, f).map(|c| (f.name, c)))
                .collect::<Result<Vec<_>>>()?;
            if let Some((at, names, kept)) = keep.as_mut()
                && *at == n
            {
                for name in names.iter() {
                    let c = cells
                        .iter()
                        .find(|(k, _)| k == name)
                        .map(|(_, c)| CellRef::to_owned(*c));
                    kept.push(c.map_or(serde_json::Value::Null, |c| {
                        serde_json::to_value(c).unwrap_or(serde_json::Value::Null)
                    }));
                }
            }
            write_object(out, cells.into_iter());
            Ok(())
        })
        .await
    }

    /// The single integer a select returns (counts).
    pub async fn scalar(&self, sql: &str, values: &SqlxValues) -> Result<i64> {
        let params = params(values)?;
        self.with(false, sql, |c| {
            let mut stmt = c.prepare_cached(sql).map_err(err)?;
            stmt.query_row(rusqlite::params_from_iter(params.iter()), |r| {
                r.get::<_, i64>(0)
            })
            .map_err(err)
        })
        .await
    }

    /// The rows a select on `e` returns, each mapped by `each` (aggregates and other shapes
    /// that are not records of `e`).
    pub async fn rows<T>(
        &self,
        e: &Entity,
        sql: &str,
        values: &SqlxValues,
        mut each: impl FnMut(&rusqlite::Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        self.with(false, sql, |c| {
            sqlite_rows(c, e, sql, values, usize::MAX, &mut each)
        })
        .await
    }

    /// Closes the idle connections; later reads fail with "shutting down".
    pub fn close(&self) {
        self.permits.close();
        if let Ok(Some(mut c)) = self.checkpointer.lock().map(|mut c| c.take()) {
            c.stop();
        }
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    pub async fn ping(&self) -> bool {
        self.with(true, "SELECT 1", |c| {
            c.execute_batch("SELECT 1").map_err(err)
        })
        .await
        .is_ok()
    }
}

/// The columns a select of `e` reads, in order (secret fields stay in the database).
pub(crate) fn select_columns(e: &Entity) -> Vec<&Field> {
    e.public_fields().collect()
}

/// Runs `sql` on a SQLite connection and maps at most `limit` rows with `each`.
pub(crate) fn sqlite_rows<T>(
    c: &rusqlite::Connection,
    e: &Entity,
    sql: &str,
    values: &SqlxValues,
    limit: usize,
    mut each: impl FnMut(&rusqlite::Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let params = crate::sqlite_read::params(values)?;
    let fail = |x| sqlite_error(e, x);
    let mut stmt = c.prepare_cached(sql).map_err(fail)?;
    let mut rows = stmt
        .query(rusqlite::params_from_iter(params.iter()))
        .map_err(fail)?;
    let mut out = Vec::new();
    while out.len() < limit
        && let Some(r) = rows.next().map_err(fail)?
    {
        out.push(each(r)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Never ends on its own: counts forever.
    const ENDLESS: &str =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";

    async fn readers(max: usize, budget: Duration) -> Arc<Readers> {
        let dir = std::env::temp_dir().join(format!("stoa-read-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("t.db");
        // A database file the read-only connections can open.
        let c = Connection::open(&path).expect("create");
        c.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER)")
            .expect("schema");
        Arc::new(Readers::new(path, max, budget))
    }

    /// Readers idle past READER_IDLE are closed but the last used, whose statements go instead;
    /// one used since stays; reads go on afterwards.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn idle_readers_are_let_go_but_one() {
        let r = readers(3, Duration::from_secs(5)).await;
        let prepared = |reader: &Reader| {
            reader
                .conn
                .prepare_cached("SELECT n FROM t")
                .map(drop)
                .expect("prepare");
        };
        for _ in 0..3 {
            let reader = r.open_reader().expect("open");
            prepared(&reader);
            r.idle.lock().expect("idle").push(reader);
        }
        tidy(&r.idle);
        assert_eq!(
            r.idle.lock().expect("idle").len(),
            3,
            "none idle long enough yet"
        );
        tokio::time::sleep(READER_IDLE + Duration::from_millis(50)).await;
        tidy(&r.idle);
        {
            let idle = r.idle.lock().expect("idle");
            assert_eq!(idle.len(), 1, "one reader kept");
            assert!(idle[0].flushed, "the kept reader let its statements go");
        }
        // Used again: a second reader opened beside it stays while fresh.
        assert!(r.ping().await);
        let fresh = r.open_reader().expect("open");
        r.idle.lock().expect("idle").push(fresh);
        tidy(&r.idle);
        assert_eq!(r.idle.lock().expect("idle").len(), 2);
        assert!(r.ping().await);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_past_its_budget_is_stopped_with_a_clear_503() {
        let r = readers(2, Duration::from_millis(400)).await;
        let started = Instant::now();
        let e = r
            .scalar(ENDLESS, &SqlxValues(sea_query::Values(Vec::new())))
            .await
            .expect_err("an endless query must be stopped");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        match e {
            Error::Unavailable(m) => assert!(m.contains("was stopped"), "{m}"),
            other => panic!("expected 503, got {other:?}"),
        }
        // The connection is fine afterwards, and every permit came back.
        assert!(r.ping().await);
        assert_eq!(r.permits.available_permits(), 2);
    }

    /// A read that outlasts its time on the worker is run again off it, and its answer is the
    /// rows of one run: none twice, none missing, in order (records and the JSON fast path).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_moved_off_the_worker_answers_each_row_once() {
        use stoa_kernel::model::{int, model};
        let r = readers(2, Duration::from_secs(5)).await;
        let w = Connection::open(&r.path).expect("writer");
        w.execute_batch(
            "INSERT INTO t (n) WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 100) SELECT x FROM s",
        )
        .expect("rows");
        let e = model("test", "thing", "things").field(int("n")).build();
        // Each row costs thousands of VM steps, so the read passes INLINE_FOR after it has
        // handed some rows on (no ORDER BY: rows come as they are found, not after a sort).
        let cols: Vec<String> = select_columns(&e)
            .iter()
            .map(|f| {
                if f.column == "n" {
                    "n".to_owned()
                } else {
                    "NULL".to_owned()
                }
            })
            .collect();
        let sql = format!(
            "SELECT {} FROM t WHERE (WITH RECURSIVE c(x) AS (SELECT n UNION ALL SELECT x + 1 FROM c WHERE x < n + 3000) SELECT count(*) FROM c) > 0",
            cols.join(", ")
        );
        let none = SqlxValues(sea_query::Values(Vec::new()));
        let moved = |r: &Readers| r.moved.load(std::sync::atomic::Ordering::Relaxed);
        let rows = r.records(&e, &sql, &none, false).await.expect("records");
        let ns: Vec<i64> = rows.iter().filter_map(|x| x.int("n")).collect();
        assert_eq!(ns, (1..=100).collect::<Vec<_>>());
        assert_eq!(moved(&r), 1, "the read was run again off the worker");

        let mut out = b"{\"data\":[".to_vec();
        let mut kept = Vec::new();
        let n = r
            .write_json(
                &e,
                &sql,
                &none,
                false,
                &mut out,
                Some((99, &["n"], &mut kept)),
            )
            .await
            .expect("json");
        out.extend_from_slice(b"]}");
        assert_eq!(n, 100);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        let ns: Vec<i64> = v["data"]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|x| x["n"].as_i64())
            .collect();
        assert_eq!(ns, (1..=100).collect::<Vec<_>>());
        assert_eq!(
            kept,
            vec![serde_json::json!(100)],
            "the cursor row's values, once"
        );
        assert_eq!(moved(&r), 2);

        // A short read stays on the worker.
        let small = format!("SELECT {} FROM t WHERE n = 3", cols.join(", "));
        assert_eq!(
            r.records(&e, &small, &none, false)
                .await
                .expect("one")
                .len(),
            1
        );
        assert_eq!(moved(&r), 2);
        assert_eq!(r.permits.available_permits(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn long_reads_leave_room_for_cheap_ones_and_the_excess_is_turned_away() {
        let r = readers(2, Duration::from_secs(3)).await;
        let mut long = Vec::new();
        for _ in 0..7 {
            let r = r.clone();
            long.push(tokio::spawn(async move {
                r.scalar(ENDLESS, &SqlxValues(sea_query::Values(Vec::new())))
                    .await
            }));
        }
        // Give them time to become long (100 ms each, two at a time at most).
        tokio::time::sleep(Duration::from_millis(600)).await;
        // One long read runs, four wait for the gate, two were turned away; cheap reads still go.
        let cheap = Instant::now();
        for _ in 0..20 {
            assert!(r.ping().await);
        }
        let cheap = cheap.elapsed();
        assert!(
            long.iter().filter(|h| h.is_finished()).count() == 2,
            "the two reads over the gate's queue are turned away at once"
        );
        assert!(
            cheap < Duration::from_secs(1),
            "cheap reads waited {cheap:?}"
        );
        let mut busy = 0;
        let mut stopped = 0;
        for h in long {
            match h.await.expect("join") {
                Err(Error::Unavailable(m)) if m.contains("busy") => busy += 1,
                Err(Error::Unavailable(m)) if m.contains("was stopped") => stopped += 1,
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!((busy, stopped), (2, 5));
        assert_eq!(r.permits.available_permits(), 2);
        let st = r.gate.state.lock().map(|s| *s).expect("gate");
        assert_eq!(st, (0, 0), "every gate slot and waiter was released");
    }
}
