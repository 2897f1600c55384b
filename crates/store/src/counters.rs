//! Numbers people read (an order's № 1042): one counter per name in `stoa_counters`, taken inside
//! the caller's transaction, so a number is used exactly when the row that carries it commits.
//!
//! Each step also looks at the largest number the column already holds: a database restored
//! without its counters (or rows numbered by hand) goes on above them instead of repeating one.
//! On PostgreSQL the counter's row stays locked until the caller commits: concurrent takers wait
//! for each other, so numbers come in commit order without gaps from rollbacks of others.

use stoa_kernel::model::Entity;
use stoa_kernel::{Error, Result};

use crate::db::{Db, Exec, Link};
use crate::errors::{pool_err, sqlite_err};
use crate::names::q;

const TABLE: &str =
    "CREATE TABLE IF NOT EXISTS stoa_counters (name TEXT PRIMARY KEY, n BIGINT NOT NULL)";

/// Creates the counters' table (once per start; a module that numbers rows calls it in its seed).
pub async fn ensure(db: &Db) -> Result<()> {
    let mut tx = db.begin().await?;
    match &mut tx.exec().link {
        Link::Sqlite(c) => {
            c.execute_batch(TABLE).map_err(sqlite_err)?;
        }
        Link::Postgres(c) => {
            sqlx::query(TABLE)
                .execute(&mut **c)
                .await
                .map_err(pool_err)?;
        }
    }
    tx.commit().await
}

/// The next number of `name` for `entity.field` (an integer column): at least `first`, above
/// every number the column holds, one more than the last one taken.
pub async fn next(
    exec: &mut Exec<'_>,
    name: &str,
    entity: &Entity,
    field: &str,
    first: i64,
) -> Result<i64> {
    let column = entity
        .field(field)
        .map(|f| f.column.clone())
        .ok_or_else(|| Error::internal(format!("{} has no field {field}", entity.key())))?;
    let floor = format!(
        "(SELECT COALESCE(MAX({}) + 1, $2) FROM {})",
        q(&column),
        q(&entity.table)
    );
    match &mut exec.link {
        Link::Sqlite(c) => {
            let sql = format!(
                "INSERT INTO stoa_counters (name, n) VALUES ($1, MAX($2, {floor})) \
                 ON CONFLICT (name) DO UPDATE SET n = MAX(stoa_counters.n + 1, excluded.n) RETURNING n"
            );
            c.prepare_cached(&sql)
                .and_then(|mut st| st.query_row(rusqlite::params![name, first], |r| r.get(0)))
                .map_err(sqlite_err)
        }
        Link::Postgres(c) => {
            let sql = format!(
                "INSERT INTO stoa_counters (name, n) VALUES ($1, GREATEST($2, {floor})) \
                 ON CONFLICT (name) DO UPDATE SET n = GREATEST(stoa_counters.n + 1, EXCLUDED.n) RETURNING n"
            );
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(name.to_owned())
                .bind(first)
                .fetch_one(&mut **c)
                .await
                .map_err(pool_err)
        }
    }
}
