//! The read path behind one interface: SQLite's reader connections or a PostgreSQL pool
//! connection. Service code builds statements and plans lists and reads through a [`Reader`]
//! (one per operation: a list's rows and its total share one PostgreSQL connection); only this
//! file (and `db`) knows which backend runs them.

use sea_query::SelectStatement;
use serde_json::Value as Json;
use stoa_kernel::Result;
use stoa_kernel::model::Entity;
use stoa_kernel::query::FindQuery;

use sqlx::PgConnection;
use sqlx::pool::PoolConnection;

use crate::db::{Backend, Db, Exec, Link};
use crate::errors::pool_err;
use crate::record::Record;
use crate::repo;
use crate::sqlite_read::Readers;

/// The total of a list, as the API reports it (`X-Total-Count`, `X-Total-Count-Exact`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Total {
    pub n: u64,
    /// False for a capped count of a narrowed list and for PostgreSQL's estimate of a big table.
    pub exact: bool,
}

/// How one list is read: the rows statement (its search plan chosen) and what is already known
/// about its total.
pub struct ListPlan<'q> {
    pub query: &'q FindQuery,
    pub rows: SelectStatement,
    /// How many rows the search index matched, where it was asked (SQLite's full-text search).
    matches: Option<u64>,
}

/// What a page's cursor needs kept from the row at `at`: the values of `names` (see
/// [`Reader::write_json`]).
pub struct Keep<'a> {
    pub at: usize,
    pub names: &'a [&'static str],
    pub values: &'a mut Vec<Json>,
}

/// The values of `names` in `r`, as the wire writes them.
pub(crate) fn cursor_values(r: &Record, names: &[&str]) -> Vec<Json> {
    names
        .iter()
        .map(|n| {
            r.get(n)
                .and_then(|c| serde_json::to_value(c).ok())
                .unwrap_or(Json::Null)
        })
        .collect()
}

/// One operation's reads: SQLite's reader pool (each statement takes a reader) or one
/// PostgreSQL connection held until the operation ends.
pub enum Reader<'a> {
    Sqlite(&'a Readers),
    Postgres(PoolConnection<sqlx::Postgres>),
}

impl Db {
    /// The reads of one operation (on PostgreSQL, a connection from the pool).
    pub async fn reader(&self) -> Result<Reader<'_>> {
        Ok(match self {
            Db::Sqlite { read, .. } => Reader::Sqlite(read),
            Db::Postgres(pool) => Reader::Postgres(pool.acquire().await.map_err(pool_err)?),
        })
    }

    /// Plans the list `q` of `e`. On SQLite a search asks the index how many rows match first:
    /// many matches walk the list's order and probe each row, few are read from the index.
    pub async fn plan<'q>(&self, e: &Entity, q: &'q FindQuery) -> Result<ListPlan<'q>> {
        let matches = match (self, repo::search_matches_statement(e, q)) {
            (Db::Sqlite { read, .. }, Some((sql, values))) => {
                Some(u64::try_from(read.scalar(&sql, &values).await?).unwrap_or(0))
            }
            _ => None,
        };
        let plan = if matches.is_some_and(|m| m > repo::PROBE_FROM) {
            repo::SearchPlan::Probe
        } else {
            repo::SearchPlan::Set
        };
        Ok(ListPlan {
            query: q,
            rows: repo::find_statement_with(e, q, self.backend(), plan),
            matches,
        })
    }
}

impl Reader<'_> {
    fn backend(&self) -> Backend {
        match self {
            Reader::Sqlite(_) => Backend::Sqlite,
            Reader::Postgres(_) => Backend::Postgres,
        }
    }

    /// The list's total when its query asks for one (`count`): the index's match count when
    /// the search alone narrows it, PostgreSQL's estimate for a big unfiltered table, else a
    /// capped count.
    pub async fn total(&mut self, e: &Entity, plan: &ListPlan<'_>) -> Result<Option<Total>> {
        let q = plan.query;
        if !q.count {
            return Ok(None);
        }
        let b = self.backend();
        let indexed = plan
            .matches
            .filter(|_| repo::only_search(q) && repo::search_is_index_only(e));
        let n = match (indexed, self) {
            (Some(m), _) => m,
            (None, Reader::Sqlite(read)) => {
                let (sql, values) = repo::sql(&repo::count_statement(e, q, b), b);
                u64::try_from(read.scalar(&sql, &values).await?).unwrap_or(0)
            }
            (None, Reader::Postgres(c)) => match estimate(c, e, q).await? {
                Some(n) => n,
                None => repo::count(&mut Exec::untracked(Link::Postgres(c)), e, q).await?,
            },
        };
        Ok(Some(Total {
            n,
            exact: repo::count_is_exact(b, q, n),
        }))
    }

    /// The records a select of `e` returns (`point`: a lookup by key, never queued behind long
    /// reads).
    pub async fn records(
        &mut self,
        e: &Entity,
        s: &SelectStatement,
        point: bool,
    ) -> Result<Vec<Record>> {
        match self {
            Reader::Sqlite(read) => {
                let (sql, values) = repo::sql(s, Backend::Sqlite);
                read.records(e, &sql, &values, point).await
            }
            Reader::Postgres(c) => {
                repo::fetch_all(&mut Exec::untracked(Link::Postgres(c)), e, s).await
            }
        }
    }

    /// Appends the rows of a select of `e` to `out` as comma-separated JSON objects, straight
    /// from the database's buffers; returns how many. `keep` copies the cursor values of one row.
    pub async fn write_json(
        &mut self,
        e: &Entity,
        s: &SelectStatement,
        point: bool,
        out: &mut Vec<u8>,
        keep: Option<Keep<'_>>,
    ) -> Result<usize> {
        match self {
            Reader::Sqlite(read) => {
                let (sql, values) = repo::sql(s, Backend::Sqlite);
                let keep = keep.map(|k| (k.at, k.names, k.values));
                read.write_json(e, &sql, &values, point, out, keep).await
            }
            Reader::Postgres(c) => {
                let (n, kept) =
                    repo::write_json_pg(c, e, s, out, keep.as_ref().map(|k| k.at)).await?;
                if let (Some(k), Some(r)) = (keep, kept) {
                    *k.values = cursor_values(&r, k.names);
                }
                Ok(n)
            }
        }
    }

    /// The (text, integer) pairs a grouped aggregate returns (NULL sums read as 0).
    pub async fn text_sums(
        &mut self,
        e: &Entity,
        s: &SelectStatement,
    ) -> Result<Vec<(Option<String>, i64)>> {
        match self {
            Reader::Sqlite(read) => {
                let (sql, values) = repo::sql(s, Backend::Sqlite);
                read.rows(e, &sql, &values, |r| {
                    let pair = (r.get::<_, Option<String>>(0), r.get::<_, Option<i64>>(1));
                    match pair {
                        (Ok(k), Ok(n)) => Ok((k, n.unwrap_or(0))),
                        (Err(x), _) | (_, Err(x)) => Err(repo::sqlite_error(e, x)),
                    }
                })
                .await
            }
            Reader::Postgres(c) => {
                use sqlx::Row;
                let (sql, values) = repo::sql(s, Backend::Postgres);
                let rows = sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
                    .fetch_all(&mut **c)
                    .await
                    .map_err(|x| repo::db_error(e, x))?;
                rows.iter()
                    .map(|r| {
                        let k = r.try_get::<Option<String>, _>(0);
                        let n = r.try_get::<Option<i64>, _>(1);
                        match (k, n) {
                            (Ok(k), Ok(n)) => Ok((k, n.unwrap_or(0))),
                            (Err(x), _) | (_, Err(x)) => Err(repo::db_error(e, x)),
                        }
                    })
                    .collect()
            }
        }
    }
}

/// PostgreSQL's row estimate of `e`'s table when `q` does not narrow it and the table is big
/// (counting it would scan it); `None` otherwise.
async fn estimate(c: &mut PgConnection, e: &Entity, q: &FindQuery) -> Result<Option<u64>> {
    if repo::narrowed(q) {
        return Ok(None);
    }
    // reltuples is kept by autovacuum/ANALYZE; -1 means never analysed.
    let estimate: Option<f32> =
        sqlx::query_scalar("SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)")
            .bind(crate::names::q(&e.table))
            .fetch_optional(&mut *c)
            .await
            .map_err(|x| repo::db_error(e, x))?;
    Ok(estimate
        .filter(|n| *n >= repo::ESTIMATE_FROM as f32)
        .map(|n| n as u64))
}
