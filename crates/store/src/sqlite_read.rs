//! SQLite reads through rusqlite: a small pool of read-only connections with cached prepared
//! statements, run on the calling worker with `block_in_place`, rows decoded straight into
//! [`Record`]s.
//!
//! Why not sqlx for reads: sqlx-sqlite hands every query to a per-connection worker thread and
//! copies every value with SQLite's allocator; on this 2-core machine that capped a 100-row list at
//! ~1 300 req/s (see docs/benchmarks.md and docs/adr/0004). Writes stay on sqlx's single writer
//! connection, which serialises them. Both link the same bundled SQLite (`libsqlite3-sys`).

use std::path::PathBuf;
use std::sync::Mutex;

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags};
use sea_query::Value;
use sea_query_sqlx::SqlxValues;
use stoa_kernel::model::{Entity, Field, Kind};
use stoa_kernel::{Error, Result};
use tokio::sync::Semaphore;

use crate::record::{CellRef, Record, write_object};
use crate::repo::select_columns;

pub struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    permits: Semaphore,
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readers").field("path", &self.path).finish()
    }
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("sqlite read: {e}"))
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
    c.set_prepared_statement_cache_capacity(512);
    Ok(c)
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

impl Readers {
    pub fn new(path: PathBuf, max: usize) -> Self {
        Self {
            path,
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(max.max(1)),
        }
    }

    /// `inline`: the query is a bounded point lookup (primary key), cheaper to run on the worker
    /// than to hand the worker's other tasks away.
    async fn with<R>(&self, inline: bool, f: impl FnOnce(&Connection) -> Result<R>) -> Result<R> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| Error::Unavailable("shutting down".into()))?;
        let conn = self.idle.lock().map_err(err)?.pop();
        let conn = match conn {
            Some(c) => c,
            None => open(&self.path)?,
        };
        let out = if inline {
            f(&conn)
        } else {
            blocking(|| f(&conn))
        };
        self.idle.lock().map_err(err)?.push(conn);
        out
    }

    /// Runs a select and hands each row, with the entity's public columns, to `each`.
    /// `point`: a primary-key lookup (see [`Self::with`]).
    async fn each_row(
        &self,
        e: &Entity,
        sql: &str,
        values: &SqlxValues,
        point: bool,
        mut each: impl FnMut(&[&Field], &rusqlite::Row<'_>) -> Result<()>,
    ) -> Result<usize> {
        let params: Vec<SqlValue> = values.0.0.iter().map(bind).collect::<Result<_>>()?;
        self.with(point, |c| {
            let mut stmt = c.prepare_cached(sql).map_err(err)?;
            let mut rows = stmt
                .query(rusqlite::params_from_iter(params.iter()))
                .map_err(err)?;
            let cols = select_columns(e);
            let mut n = 0;
            while let Some(row) = rows.next().map_err(err)? {
                each(&cols, row)?;
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
        self.each_row(e, sql, values, point, |cols, row| {
            out.push(decode(cols, row)?);
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Appends every row as a JSON object (comma-separated) to `out`; returns the row count. The
    /// response fast path: no per-cell allocation.
    pub async fn write_json(
        &self,
        e: &Entity,
        sql: &str,
        values: &SqlxValues,
        point: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        self.each_row(e, sql, values, point, |cols, row| {
            // Rows after the first follow a '}'; the first follows '[' or ':'.
            if out.last() == Some(&b'}') {
                out.push(b',');
            }
            let cells = cols
                .iter()
                .enumerate()
                .map(|(i, f)| cell(row, i, f).map(|c| (f.name, c)))
                .collect::<Result<Vec<_>>>()?;
            write_object(out, cells.into_iter());
            Ok(())
        })
        .await
    }

    /// The single integer a select returns (counts).
    pub async fn scalar(&self, sql: &str, values: &SqlxValues) -> Result<i64> {
        let params: Vec<SqlValue> = values.0.0.iter().map(bind).collect::<Result<_>>()?;
        self.with(false, |c| {
            let mut stmt = c.prepare_cached(sql).map_err(err)?;
            stmt.query_row(rusqlite::params_from_iter(params.iter()), |r| {
                r.get::<_, i64>(0)
            })
            .map_err(err)
        })
        .await
    }

    pub async fn ping(&self) -> bool {
        self.with(true, |c| c.execute_batch("SELECT 1").map_err(err))
            .await
            .is_ok()
    }
}
