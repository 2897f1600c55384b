//! The database handle: SQLite (one rusqlite writer connection with group commit, see `group`,
//! plus a pool of rusqlite readers, see `sqlite_read`) or PostgreSQL (one sqlx pool). Picked from
//! the URL scheme.

use std::str::FromStr;
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgConnection, PgPool, Postgres, Transaction};
use stoa_kernel::Result;
use tokio::sync::OwnedMutexGuard;

use crate::errors::pool_err;
use crate::group::{Group, GroupTx, State};
use crate::sqlite_read::Readers;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
pub struct DbOptions {
    pub url: String,
    /// Reader connections (SQLite; default: one per CPU) or pool size (PostgreSQL; default 16).
    pub max_connections: Option<u32>,
    pub acquire_timeout: Duration,
    /// The longest one query may run (the request timeout): SQLite reads are interrupted past
    /// it, PostgreSQL connections have it as `statement_timeout`.
    pub query_timeout: Duration,
}

impl DbOptions {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_connections: None,
            acquire_timeout: Duration::from_secs(10),
            query_timeout: Duration::from_secs(30),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Db {
    /// Reads through rusqlite reader connections (see `sqlite_read`), writes through one rusqlite
    /// connection whose transactions share commits (see `group`).
    Sqlite {
        read: Arc<Readers>,
        group: Arc<Group>,
    },
    Postgres(Pg),
}

/// PostgreSQL's connections: the pool every store operation uses (what it derefs to), and a
/// few connections whose sessions commit without waiting for the WAL's flush, for the job
/// runner's bookkeeping ([`Db::relaxed`]).
#[derive(Clone, Debug)]
pub struct Pg {
    pool: PgPool,
    relaxed: PgPool,
}

/// Connections of [`Pg::relaxed`]: the runner claims from one loop, settles from one task and
/// renews leases from another; a failed job's retry is settled from its own task, so a burst of
/// failures may wait a moment for one (none holds one while waiting for another). They are
/// opened on first use, on top of `STOA_DB_MAX_CONNECTIONS`.
const RELAXED_CONNECTIONS: u32 = 4;

impl std::ops::Deref for Pg {
    type Target = PgPool;
    fn deref(&self) -> &PgPool {
        &self.pool
    }
}

impl Pg {
    /// The pool every store operation uses.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

/// Where [`Db::relaxed`] writes: a transaction (SQLite's, or several statements on a relaxed
/// PostgreSQL connection), or a relaxed PostgreSQL connection whose one statement is its own
/// transaction, committed as it runs.
pub enum Relaxed {
    Tx(Tx),
    Each(PoolConnection<Postgres>),
}

impl Relaxed {
    pub fn exec(&mut self) -> Exec<'_> {
        match self {
            Relaxed::Tx(t) => t.exec(),
            Relaxed::Each(c) => Exec::untracked(Link::Postgres(c)),
        }
    }

    /// Ends it: commits the transaction (a lone statement committed as it ran).
    pub async fn done(self) -> Result<()> {
        match self {
            Relaxed::Tx(t) => t.commit().await,
            Relaxed::Each(_) => Ok(()),
        }
    }
}

/// A connection from either backend, for reads.
pub enum Conn {
    /// The writer connection, between batches.
    Sqlite(OwnedMutexGuard<State>),
    Postgres(PoolConnection<Postgres>),
}

/// A write transaction on either backend. One begun by the store ([`crate::Store::begin`])
/// remembers which entities it wrote and tells the store's change counters when it commits, so
/// no caller has to.
pub struct Tx {
    link: TxLink,
    written: Written,
    on_commit: Option<OnCommit>,
}

enum TxLink {
    Sqlite(GroupTx),
    Postgres(Transaction<'static, Postgres>),
}

/// Told what a committed transaction wrote (the store's change counters).
pub type OnCommit = Arc<dyn Fn(&Written) + Send + Sync>;

/// The entities a transaction wrote, by key (`module.entity`), whether rows were deleted from
/// them (a delete cascades to what references them), whether rows it did not insert itself
/// changed (an update or a delete), and whether visitors may see what changed (see
/// [`Written::keys`]).
#[derive(Default)]
pub struct Written {
    /// Each written entity: the table finds one already marked without building its key.
    keys: Vec<Mark>,
    /// The classes of jobs due now enqueued here (bit = priority): the runner is rung once the
    /// commit makes them claimable.
    job_due: u8,
    /// Nested savepoints open now (see [`Exec::begin_nested`]).
    nested: u8,
    /// Hears the rows this transaction writes (see [`crate::tap`]).
    tap: Option<Arc<dyn crate::tap::WriteTap>>,
    /// Inserts held for the transaction's next statement (PostgreSQL; see [`Exec::hold`]).
    held: Vec<Held>,
}

/// An insert whose row nobody reads back, held on PostgreSQL until the transaction's next
/// statement, which sends it along (see [`Exec::hold`]).
pub(crate) struct Held {
    pub(crate) entity: Arc<stoa_kernel::model::Entity>,
    pub(crate) insert: sea_query::InsertStatement,
}

/// What a transaction wrote to one entity.
struct Mark {
    table: String,
    key: String,
    /// Rows were deleted.
    deleted: bool,
    /// Rows that were there before changed (updated or deleted).
    changed: bool,
    /// A visitor may see the change: anything but inserts of rows visitors cannot read (a
    /// hidden file, a draft).
    seen: bool,
}

impl Written {
    /// `e` was written: rows deleted (`deleted`), or, when `changed`, rows updated or deleted;
    /// otherwise only inserted, rows a visitor may read unless `seen` is false.
    pub(crate) fn mark(
        &mut self,
        e: &stoa_kernel::model::Entity,
        deleted: bool,
        changed: bool,
        seen: bool,
    ) {
        let changed = changed || deleted;
        let seen = seen || changed;
        match self.keys.iter_mut().find(|m| m.table == e.table) {
            Some(m) => {
                m.deleted |= deleted;
                m.changed |= changed;
                m.seen |= seen;
            }
            None => self.keys.push(Mark {
                table: e.table.clone(),
                key: e.key(),
                deleted,
                changed,
                seen,
            }),
        }
    }

    /// Each written key, whether rows were deleted from it, whether rows that were there
    /// before changed (false when the transaction only inserted rows), and whether a visitor
    /// may see the change (false when it only inserted rows visitors cannot read).
    pub fn keys(&self) -> impl Iterator<Item = (&str, bool, bool, bool)> {
        self.keys
            .iter()
            .map(|m| (m.key.as_str(), m.deleted, m.changed, m.seen))
    }
}

/// A nested savepoint [`Exec::begin_nested`] opened: its level, which [`Exec::end_nested`] ends.
#[must_use = "a nested savepoint is ended with Exec::end_nested"]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nested(u8);

/// The statements of nested savepoints by level (begin, release, roll back): static names, so
/// each is prepared once.
const NESTED: [(&str, &str, &str); 4] = [
    (
        "SAVEPOINT nested_1",
        "RELEASE nested_1",
        "ROLLBACK TO nested_1",
    ),
    (
        "SAVEPOINT nested_2",
        "RELEASE nested_2",
        "ROLLBACK TO nested_2",
    ),
    (
        "SAVEPOINT nested_3",
        "RELEASE nested_3",
        "ROLLBACK TO nested_3",
    ),
    (
        "SAVEPOINT nested_4",
        "RELEASE nested_4",
        "ROLLBACK TO nested_4",
    ),
];

/// The connection a query runs on (a pool connection or a transaction's).
pub enum Link<'a> {
    Sqlite(&'a mut rusqlite::Connection),
    Postgres(&'a mut PgConnection),
}

/// A borrowed connection that queries run on, and (in a transaction) the record of what it
/// wrote.
pub struct Exec<'a> {
    pub link: Link<'a>,
    written: Option<&'a mut Written>,
}

impl<'a> Exec<'a> {
    /// A connection that records nothing it writes.
    pub fn untracked(link: Link<'a>) -> Self {
        Exec {
            link,
            written: None,
        }
    }

    pub fn backend(&self) -> Backend {
        match self.link {
            Link::Sqlite(_) => Backend::Sqlite,
            Link::Postgres(_) => Backend::Postgres,
        }
    }

    /// Reborrow for a nested call.
    pub fn reborrow(&mut self) -> Exec<'_> {
        Exec {
            link: match &mut self.link {
                Link::Sqlite(c) => Link::Sqlite(c),
                Link::Postgres(c) => Link::Postgres(c),
            },
            written: self.written.as_deref_mut(),
        }
    }

    /// Holds `insert` (a row of `entity`, its statement without `RETURNING`) to be sent with this
    /// transaction's next statement, when that can be done: on PostgreSQL, in a transaction. The
    /// held inserts go out as data-modifying `WITH` parts of the next insert into another table
    /// ([`crate::repo`]), or on their own, in one statement, before any other statement, a
    /// savepoint or the commit ([`Self::settle`]): the round trips of a transaction's link rows
    /// are saved. A held insert's failure (a reference to nothing) fails the statement that
    /// carries it, so only rows whose failure the caller would not answer otherwise are held.
    /// Only where [`Self::can_hold`].
    pub(crate) fn hold(
        &mut self,
        entity: Arc<stoa_kernel::model::Entity>,
        insert: sea_query::InsertStatement,
    ) {
        debug_assert!(self.can_hold(), "an insert held where it cannot be");
        if let Some(w) = self.written.as_deref_mut() {
            w.mark(&entity, false, false, true);
            w.held.push(Held { entity, insert });
        }
    }

    /// Whether inserts can be held here: on PostgreSQL, in a transaction (SQLite's statements
    /// cost no round trip; outside a transaction each statement commits on its own).
    pub(crate) fn can_hold(&self) -> bool {
        matches!(self.link, Link::Postgres(_)) && self.written.is_some()
    }

    /// The inserts held here so far, taken to be sent.
    pub(crate) fn take_held(&mut self) -> Vec<Held> {
        self.written
            .as_deref_mut()
            .map(|w| std::mem::take(&mut w.held))
            .unwrap_or_default()
    }

    /// Whether inserts are held here, and none of them into `table`.
    pub(crate) fn held_apart_from(&self, table: &str) -> bool {
        self.written
            .as_deref()
            .is_some_and(|w| !w.held.is_empty() && w.held.iter().all(|h| h.entity.table != table))
    }

    /// Sends the held inserts, in one statement, before a statement that cannot carry them.
    /// Every statement on a transaction's connection comes after this: the store's own do.
    pub async fn settle(&mut self) -> Result<()> {
        let held = self.take_held();
        let Some((last, before)) = held.split_last() else {
            return Ok(());
        };
        let Link::Postgres(c) = &mut self.link else {
            return Err(stoa_kernel::Error::internal("inserts held on SQLite"));
        };
        let (sql, values) = if before.is_empty() {
            crate::repo::build(&last.insert, Backend::Postgres)
        } else {
            crate::repo::build(
                &crate::repo::with_held(before, last.insert.clone()),
                Backend::Postgres,
            )
        };
        sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
            .execute(&mut **c)
            .await
            .map(drop)
            .map_err(|x| crate::repo::held_error(&held, &last.entity, x))
    }

    /// Records that rows of `e` were written (`deleted`: removed) here: updated, deleted, or
    /// inserted by a statement that may also update (an upsert).
    pub(crate) fn wrote(&mut self, e: &stoa_kernel::model::Entity, deleted: bool) {
        if let Some(w) = self.written.as_deref_mut() {
            w.mark(e, deleted, true, true);
        }
    }

    /// Records that a row of `e` was inserted here (and nothing else changed in it); `seen`:
    /// visitors may read it.
    pub(crate) fn inserted(&mut self, e: &stoa_kernel::model::Entity, seen: bool) {
        if let Some(w) = self.written.as_deref_mut() {
            w.mark(e, false, false, seen);
        }
    }

    /// Opens a nested savepoint in this transaction: work after it can be undone by
    /// [`Self::end_nested`] without undoing the transaction. Savepoints nest, each named by its
    /// level (`nested_1`, `nested_2`, …; the group writer's own per-writer savepoint has another
    /// name), and each is ended by the level this returns: an inner level left open (a caller
    /// that returned early) or an end that failed never moves which savepoint an outer end
    /// reaches.
    pub async fn begin_nested(&mut self) -> Result<Nested> {
        let level = match self.written.as_deref() {
            Some(w) if (w.nested as usize) < NESTED.len() => w.nested + 1,
            Some(_) => {
                return Err(stoa_kernel::Error::internal(
                    "nested savepoints are too deep",
                ));
            }
            None => {
                return Err(stoa_kernel::Error::internal(
                    "a nested savepoint needs a transaction (Store::begin)",
                ));
            }
        };
        let (begin, _, _) = NESTED[level as usize - 1];
        // Held inserts belong to the level around the savepoint.
        self.settle().await?;
        self.run_bare(&[begin]).await?;
        self.set_nested(level);
        Ok(Nested(level))
    }

    /// Ends savepoint `level` (and any deeper one still open, which SQL ends with it): `keep`
    /// releases its work into the level around it, otherwise it is rolled back. A keep that
    /// fails leaves the level open, so it can still be rolled back with `end_nested(level,
    /// false)`; after a rollback, even a failed one, the open levels are those around it.
    pub async fn end_nested(&mut self, level: Nested, keep: bool) -> Result<()> {
        let open = self.written.as_deref().map_or(0, |w| w.nested);
        if level.0 == 0 || level.0 > open {
            return Err(stoa_kernel::Error::internal(format!(
                "nested savepoint {} is not open",
                level.0
            )));
        }
        let (_, release, rollback) = NESTED[level.0 as usize - 1];
        let ended = if keep {
            match self.settle().await {
                Ok(()) => self.run_bare(&[release]).await,
                Err(e) => Err(e),
            }
        } else {
            // Every insert held now was held inside this level (a savepoint's start and end
            // send what is held): undone with it, unsent.
            drop(self.take_held());
            self.run_bare(&[rollback, release]).await
        };
        if ended.is_ok() || !keep {
            self.set_nested(level.0 - 1);
        }
        ended
    }

    fn set_nested(&mut self, level: u8) {
        if let Some(w) = self.written.as_deref_mut() {
            w.nested = level;
        }
    }

    /// Statements without parameters or rows, in order.
    async fn run_bare(&mut self, statements: &[&'static str]) -> Result<()> {
        for sql in statements {
            match &mut self.link {
                Link::Sqlite(c) => c
                    .prepare_cached(sql)
                    .and_then(|mut s| s.execute([]))
                    .map(drop)
                    .map_err(crate::errors::sqlite_err)?,
                Link::Postgres(c) => sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
                    .execute(&mut **c)
                    .await
                    .map(drop)
                    .map_err(crate::errors::pool_err)?,
            }
        }
        Ok(())
    }

    /// The tap of this transaction, if it has one.
    pub(crate) fn tap(&self) -> Option<Arc<dyn crate::tap::WriteTap>> {
        self.written.as_deref().and_then(|w| w.tap.clone())
    }

    /// A job of `priority` due now was written here: the runner is rung when it can be claimed.
    pub(crate) fn job_due(&mut self, priority: i64) {
        let bit = crate::jobs::class_bit(priority);
        match self.written.as_deref_mut() {
            Some(w) => w.job_due |= bit,
            // No transaction: the statement has committed.
            None => crate::jobs::due(bit),
        }
    }
}

impl Conn {
    pub fn exec(&mut self) -> Exec<'_> {
        Exec::untracked(match self {
            Conn::Sqlite(c) => Link::Sqlite(c.conn()),
            Conn::Postgres(c) => Link::Postgres(c),
        })
    }
}

impl Tx {
    /// A transaction just begun on `link`, nothing written yet.
    fn over(link: TxLink) -> Self {
        Self {
            link,
            written: Written::default(),
            on_commit: None,
        }
    }

    pub fn exec(&mut self) -> Exec<'_> {
        Exec {
            link: match &mut self.link {
                TxLink::Sqlite(t) => Link::Sqlite(t.conn()),
                TxLink::Postgres(t) => Link::Postgres(t),
            },
            written: Some(&mut self.written),
        }
    }

    /// Tells `tap` of the rows this transaction writes.
    pub(crate) fn tapped(mut self, tap: Arc<dyn crate::tap::WriteTap>) -> Self {
        self.written.tap = Some(tap);
        self
    }

    /// Tells `on_commit` what this transaction wrote once it commits.
    pub(crate) fn told(mut self, on_commit: OnCommit) -> Self {
        self.on_commit = Some(on_commit);
        self
    }

    pub async fn commit(mut self) -> Result<()> {
        self.exec().settle().await?;
        match self.link {
            TxLink::Sqlite(t) => t.commit().await?,
            TxLink::Postgres(t) => t.commit().await.map_err(pool_err)?,
        }
        if self.written.job_due != 0 {
            crate::jobs::due(self.written.job_due);
        }
        if let Some(tell) = &self.on_commit {
            tell(&self.written);
        }
        Ok(())
    }
}

/// The SQLite file of a `sqlite://` URL (options after `?` dropped).
pub fn sqlite_path(url: &str) -> std::path::PathBuf {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    std::path::PathBuf::from(path.split('?').next().unwrap_or(path))
}

/// Is this URL a PostgreSQL URL?
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

impl Db {
    /// Whether the SQLite checkpointer holds its connection open now.
    #[cfg(test)]
    pub(crate) fn checkpointer_open(&self) -> bool {
        match self {
            Db::Sqlite { read, .. } => read.checkpointer_open(),
            Db::Postgres(_) => false,
        }
    }

    /// Connects, creating the SQLite file (and its folder) when needed, and checks the durability
    /// settings QUALITY.md asks for.
    pub async fn connect(opts: &DbOptions) -> Result<Self, String> {
        if is_postgres(&opts.url) {
            let timeout_ms = opts.query_timeout.as_millis().max(1);
            let o = PgConnectOptions::from_str(&opts.url)
                .map_err(|e| format!("DATABASE_URL: {e}"))?
                // Every statement stops at the request timeout (migrations lift it for themselves).
                .options([("statement_timeout", timeout_ms.to_string())]);
            let pool_of = |o: PgConnectOptions| {
                PgPoolOptions::new()
                    .max_connections(opts.max_connections.unwrap_or(16))
                    .acquire_timeout(opts.acquire_timeout)
                    .connect_with(o)
            };
            let plain = without_tls_on_loopback(
                o.clone(),
                &opts.url,
                std::env::var_os("PGSSLMODE").is_some(),
            );
            // A server that takes only TLS connections (`hostssl` alone in pg_hba.conf) refuses
            // the plain one: then TLS as the default would have it (libpq's `sslmode=allow`;
            // sqlx's `Allow` does not fall back).
            let (pool, o) = match pool_of(plain.clone()).await {
                Ok(pool) => (pool, plain),
                // 28000: pg_hba.conf refused this connection (a server down is not a reason).
                Err(sqlx::Error::Database(e))
                    if e.code().as_deref() == Some("28000")
                        && !matches!(o.get_ssl_mode(), sqlx::postgres::PgSslMode::Disable)
                        && matches!(plain.get_ssl_mode(), sqlx::postgres::PgSslMode::Disable) =>
                {
                    tracing::info!(error = %e, "PostgreSQL refused a connection without TLS on loopback; connecting with TLS");
                    (
                        pool_of(o.clone())
                            .await
                            .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?,
                        o,
                    )
                }
                Err(e) => return Err(format!("cannot connect to PostgreSQL: {e}")),
            };
            let relaxed = PgPoolOptions::new()
                .max_connections(RELAXED_CONNECTIONS)
                .acquire_timeout(opts.acquire_timeout)
                .connect_lazy_with(o.options([("synchronous_commit", "off")]));
            return Ok(Db::Postgres(Pg { pool, relaxed }));
        }
        let file = sqlite_path(&opts.url);
        let path = file.to_str().unwrap_or_default();
        if let Some(dir) = file.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let conn = open_writer(path)?;
        // Reads run on the calling worker thread: more readers than cores buys nothing.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get() as u32);
        let readers = opts.max_connections.unwrap_or(cores).max(1) as usize;
        let read = Arc::new(Readers::new(
            std::path::PathBuf::from(path),
            readers,
            opts.query_timeout,
        ));
        read.checkpoint();
        let group = Group::new(conn, opts.acquire_timeout);
        let db = Db::Sqlite { read, group };
        db.assert_durability().await?;
        Ok(db)
    }

    async fn assert_durability(&self) -> Result<(), String> {
        let Db::Sqlite { group, .. } = self else {
            return Ok(());
        };
        let mut st = group.read().await.map_err(|e| e.to_string())?;
        let c = st.conn();
        let q = |p: &str| {
            c.query_row(&format!("SELECT CAST(({p}) AS TEXT)"), [], |r| {
                r.get::<_, String>(0)
            })
            .map_err(|e| e.to_string())
        };
        let journal = q("SELECT journal_mode FROM pragma_journal_mode")?;
        let sync = q("SELECT synchronous FROM pragma_synchronous")?;
        let fk = q("SELECT foreign_keys FROM pragma_foreign_keys")?;
        let busy = q("SELECT timeout FROM pragma_busy_timeout")?;
        let ok = journal.eq_ignore_ascii_case("wal")
            && sync == "2"
            && fk == "1"
            && busy.parse::<u64>().unwrap_or(0) >= 5000;
        if ok {
            Ok(())
        } else {
            Err(format!(
                "SQLite durability settings not in effect: journal_mode={journal} synchronous={sync} foreign_keys={fk} busy_timeout={busy}"
            ))
        }
    }

    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite { .. } => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    /// A connection for reads (on SQLite, the writer connection between batches: use it for rare
    /// reads such as secrets and schema introspection; the hot read path is `Store::find`/`get`
    /// through the rusqlite readers).
    pub async fn read(&self) -> Result<Conn> {
        match self {
            Db::Sqlite { group, .. } => group.read().await.map(Conn::Sqlite),
            Db::Postgres(p) => p.acquire().await.map(Conn::Postgres).map_err(pool_err),
        }
    }

    /// A write transaction. On SQLite writes are serialised through one connection, so writers
    /// queue here instead of failing with "database is locked", and consecutive ones share a
    /// commit (`group`).
    pub async fn begin(&self) -> Result<Tx> {
        match self {
            Db::Sqlite { group, .. } => group.begin().await.map(TxLink::Sqlite),
            Db::Postgres(p) => p.begin().await.map(TxLink::Postgres).map_err(pool_err),
        }
        .map(Tx::over)
    }

    /// Writes whose loss in a crash of the database server costs nothing but a repeat: the job
    /// runner's own bookkeeping (claims, leases, settles), each write one statement. On
    /// PostgreSQL each statement is its own transaction on a connection of the relaxed pool,
    /// whose session commits without waiting for its WAL to reach the disk
    /// (`synchronous_commit = off`): one round trip a claim or a settle, where `BEGIN; SET
    /// LOCAL …`, the statement and `COMMIT` were three. A crash may forget the last ~0.6 s of
    /// such commits, never part of one, and never one a later synchronous commit depends on
    /// (the WAL is flushed in order). A forgotten claim leaves its job queued; a forgotten
    /// settle leaves it to run again after its lease, as a job whose process died does: jobs
    /// run at least once by design. Everything a person or a provider is told happened commits
    /// synchronously ([`Db::begin`]). `together`: several statements that must commit as one
    /// (a batch of settles): a transaction on a relaxed connection, `BEGIN` and `COMMIT` the
    /// batch's only extra round trips. On SQLite it is a write transaction ([`Db::begin`]): the
    /// one writer's commits are shared and always durable. End it with [`Relaxed::done`].
    pub async fn relaxed(&self, together: bool) -> Result<Relaxed> {
        match self {
            Db::Sqlite { .. } => self.begin().await.map(Relaxed::Tx),
            Db::Postgres(p) if together => p
                .relaxed
                .begin()
                .await
                .map(|t| Relaxed::Tx(Tx::over(TxLink::Postgres(t))))
                .map_err(pool_err),
            Db::Postgres(p) => p
                .relaxed
                .acquire()
                .await
                .map(Relaxed::Each)
                .map_err(pool_err),
        }
    }

    /// Connections by state, for metrics (`idle`, `in_use`; on SQLite the readers, and
    /// `waiting`: long reads queued for a slot).
    pub fn connections(&self) -> Vec<(&'static str, i64)> {
        match self {
            Db::Sqlite { read, .. } => read.stats(),
            Db::Postgres(p) => {
                let (size, idle) = (
                    i64::from(p.size()),
                    i64::try_from(p.num_idle()).unwrap_or(0),
                );
                vec![("idle", idle), ("in_use", size - idle), ("waiting", 0)]
            }
        }
    }

    /// SQLite's writer since start: write transactions, the group commits that made them durable
    /// (several writers share a commit), and the time the connection was held. `None` on
    /// PostgreSQL.
    pub fn sqlite_writes(&self) -> Option<SqliteWrites> {
        use std::sync::atomic::Ordering::Relaxed;
        match self {
            Db::Sqlite { group, .. } => Some(SqliteWrites {
                transactions: group.members.load(Relaxed),
                commits: group.batches.load(Relaxed),
                busy_seconds: group.busy_us.load(Relaxed) as f64 / 1e6,
            }),
            Db::Postgres(_) => None,
        }
    }

    /// Is the database reachable?
    pub async fn ping(&self) -> bool {
        match self {
            // A reader: readiness never queues behind the writer.
            Db::Sqlite { read, .. } => read.ping().await,
            Db::Postgres(p) => match p.acquire().await {
                Ok(mut c) => c.ping().await.is_ok(),
                Err(_) => false,
            },
        }
    }

    pub async fn close(&self) {
        match self {
            Db::Sqlite { group, read } => {
                read.close();
                group.close().await
            }
            Db::Postgres(p) => {
                p.relaxed.close().await;
                p.pool.close().await
            }
        }
    }
}

/// What [`Db::sqlite_writes`] reports (totals since start).
#[derive(Clone, Copy, Debug)]
pub struct SqliteWrites {
    pub transactions: u64,
    pub commits: u64,
    /// Seconds a write transaction held the one writer connection (`Group::busy_us`).
    pub busy_seconds: f64,
}

/// Opens (creating when missing) the SQLite writer connection with the durability settings
/// QUALITY.md asks for: WAL, `synchronous = FULL`, foreign keys, a 10 s busy timeout.
fn open_writer(path: &str) -> Result<rusqlite::Connection, String> {
    use rusqlite::OpenFlags;
    let c = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| format!("cannot open SQLite database {path}: {e}"))?;
    c.busy_timeout(Duration::from_secs(10))
        .map_err(|e| format!("SQLite {path}: {e}"))?;
    let mode: String = c
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(|e| format!("SQLite {path}: {e}"))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(format!("SQLite {path}: WAL journal not available ({mode})"));
    }
    // `temp_store = MEMORY`: the statement journal each writer's savepoint keeps (group.rs)
    // stays in memory; on a temporary file it was a `pwrite` per page a writer first touched,
    // 6.5 % of the server's CPU in bench/checkout.sh.
    c.execute_batch(
        "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA case_sensitive_like = ON; PRAGMA temp_store = MEMORY;",
    )
    .map_err(|e| format!("SQLite {path}: {e}"))?;
    // Checkpoints run off the writer (checkpoint.rs); the writer's own is only a fallback.
    c.pragma_update(
        None,
        "wal_autocheckpoint",
        crate::checkpoint::FALLBACK_PAGES,
    )
    .map_err(|e| format!("SQLite {path}: {e}"))?;
    crate::sqlite_read::stable_plans(&c).map_err(|e| format!("SQLite {path}: {e}"))?;
    c.set_prepared_statement_cache_capacity(512);
    Ok(c)
}

/// PostgreSQL on this host, over TCP to a loopback address, and no `sslmode` asked for (in the
/// URL or `PGSSLMODE`): no TLS. The default (`prefer`) took TLS whenever the server offered it
/// (Debian's does), so every round trip to a server on the same machine was encrypted and
/// decrypted on both sides (5 % of the server's CPU in a checkout's profile, and as much in
/// PostgreSQL's processes) for traffic that never leaves the kernel. Any other host keeps the
/// default; `sslmode=require` (or stricter) in the URL keeps TLS on loopback too, and a server
/// that refuses the plain connection gets the default's (see [`Db::connect`]).
fn without_tls_on_loopback(o: PgConnectOptions, url: &str, env_mode: bool) -> PgConnectOptions {
    // Any TLS setting in the URL (`sslmode`, sqlx's `ssl-mode`, `sslrootcert`, …, percent-encoded
    // or not) counts as asked, and so does a URL this cannot read.
    let asked = env_mode
        || url::Url::parse(url).map_or(true, |u| {
            u.query_pairs()
                .any(|(k, _)| k.to_ascii_lowercase().starts_with("ssl"))
        });
    let host = o.get_host().trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if asked || !loopback || o.get_socket().is_some() {
        return o;
    }
    o.ssl_mode(sqlx::postgres::PgSslMode::Disable)
}

/// What the store's own PostgreSQL tests connect to.
#[cfg(test)]
pub(crate) mod testing {
    /// `STOA_TEST_POSTGRES_URL`, or `None` (the test says it is skipped and passes).
    pub(crate) fn postgres_url() -> Option<String> {
        let url = std::env::var("STOA_TEST_POSTGRES_URL").ok();
        if url.is_none() {
            eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set");
        }
        url
    }

    /// A store on that server, or `None`.
    pub(crate) async fn postgres() -> Option<super::Db> {
        let url = postgres_url()?;
        Some(
            super::Db::connect(&super::DbOptions::new(url))
                .await
                .expect("connect"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoa_kernel::Error;

    #[test]
    fn tls_is_left_out_only_on_loopback_when_nobody_asked_for_it() {
        use sqlx::postgres::PgSslMode;
        let mode = |url: &str, env: bool| {
            let o = PgConnectOptions::from_str(url).expect("url");
            let d = o.get_ssl_mode();
            (without_tls_on_loopback(o, url, env).get_ssl_mode(), d)
        };
        for url in [
            "postgres://u@127.0.0.1:5432/d",
            "postgres://u@localhost/d",
            "postgres://u@[::1]:5432/d",
        ] {
            assert!(matches!(mode(url, false).0, PgSslMode::Disable), "{url}");
            // PGSSLMODE set: as asked (the default read it).
            let (m, d) = mode(url, true);
            assert_eq!(format!("{m:?}"), format!("{d:?}"), "{url}");
        }
        for url in [
            "postgres://u@db.example.com/d",
            "postgres://u@10.0.0.5/d",
            "postgres://u@127.0.0.1/d?sslmode=require",
            "postgres://u@localhost/d?sslmode=verify-full",
            "postgres://u@127.0.0.1/d?ssl-mode=verify-full",
            "postgres://u@127.0.0.1/d?%73slmode=require",
            "postgres://u@127.0.0.1/d?sslrootcert=/etc/ca.pem",
        ] {
            let (m, d) = mode(url, false);
            assert_eq!(format!("{m:?}"), format!("{d:?}"), "{url}");
            assert!(!matches!(m, PgSslMode::Disable), "{url}");
        }
    }

    /// PostgreSQL stops a statement at the query timeout, and the client reads a clear 503.
    #[tokio::test]
    async fn postgres_statements_stop_at_the_query_timeout() {
        let Some(url) = testing::postgres_url() else {
            return;
        };
        let mut opts = DbOptions::new(url);
        opts.query_timeout = Duration::from_millis(300);
        let db = Db::connect(&opts).await.expect("connect");
        let Conn::Postgres(mut c) = db.read().await.expect("conn") else {
            panic!("a PostgreSQL connection");
        };
        let started = std::time::Instant::now();
        let e = sqlx::query("SELECT pg_sleep(10)")
            .execute(&mut *c)
            .await
            .expect_err("stopped");
        assert!(started.elapsed() < Duration::from_secs(5));
        match pool_err(e) {
            Error::Unavailable(m) => assert!(m.contains("stopped"), "{m}"),
            other => panic!("expected 503, got {other:?}"),
        }
        // The connection stays usable.
        sqlx::query("SELECT 1")
            .execute(&mut *c)
            .await
            .expect("still usable");
    }
}
