//! Named, run-once data seeds (default roles and permissions, notification templates…): each is
//! recorded in `stoa_seeds` in the same transaction as its rows, so it runs once per database
//! and a later release can add new seeds to an existing deployment.

use stoa_kernel::value::{format_timestamp, now};
use stoa_kernel::{Error, Result};

use crate::db::{Db, Exec, Link};
use crate::errors::{pool_err, sqlite_err};

async fn run(exec: &mut Exec<'_>, sql: &str, name: Option<&str>) -> Result<u64> {
    exec.settle().await?;
    let stamp = format_timestamp(now());
    match &mut exec.link {
        Link::Sqlite(c) => {
            let mut st = c.prepare_cached(sql).map_err(sqlite_err)?;
            let args: Vec<String> = name.map(|n| vec![n.to_owned(), stamp]).unwrap_or_default();
            let n = st.parameter_count();
            return st
                .execute(rusqlite::params_from_iter(args.iter().take(n)))
                .map(|n| n as u64)
                .map_err(sqlite_err);
        }
        Link::Postgres(c) => {
            let sql = sqlx::AssertSqlSafe(sql.to_owned());
            let mut q = sqlx::query(sql);
            if let Some(n) = name {
                q = q.bind(n.to_owned()).bind(stamp);
            }
            q.execute(&mut **c).await.map(|r| r.rows_affected())
        }
    }
    .map_err(pool_err)
}

/// Has the seed `name` been applied to this database?
pub async fn applied(db: &Db, name: &str) -> Result<bool> {
    let mut tx = db.begin().await?;
    run(
        &mut tx.exec(),
        "CREATE TABLE IF NOT EXISTS stoa_seeds (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)",
        None,
    )
    .await?;
    tx.commit().await?;
    let mut c = db.read().await?;
    let n: i64 = match c.exec().link {
        Link::Sqlite(c) => {
            return c
                .query_row(
                    "SELECT COUNT(*) FROM stoa_seeds WHERE name = ?1",
                    [name],
                    |r| r.get::<_, i64>(0),
                )
                .map(|n| n > 0)
                .map_err(sqlite_err);
        }
        Link::Postgres(c) => {
            sqlx::query_scalar("SELECT COUNT(*) FROM stoa_seeds WHERE name = $1")
                .bind(name.to_owned())
                .fetch_one(&mut *c)
                .await
        }
    }
    .map_err(pool_err)?;
    Ok(n > 0)
}

/// Records `name` as applied, inside the seed's own transaction. A concurrent start-up that
/// already recorded it makes this fail, rolling the duplicate seed back.
pub async fn mark(exec: &mut Exec<'_>, name: &str) -> Result<()> {
    let n = run(
        exec,
        "INSERT INTO stoa_seeds (name, applied_at) VALUES ($1, $2)",
        Some(name),
    )
    .await
    .map_err(|e| Error::internal(format!("recording seed {name}: {e}")))?;
    if n == 1 {
        Ok(())
    } else {
        Err(Error::internal(format!("seed {name} was not recorded")))
    }
}

/// Forgets that seed `name` was applied, so it runs again at the next start (a migration-like
/// seed re-run by an operator, or by a test that rebuilds an old database's state).
pub async fn unmark(exec: &mut Exec<'_>, name: &str) -> Result<()> {
    run(exec, "DELETE FROM stoa_seeds WHERE name = $1", Some(name))
        .await
        .map(|_| ())
}

/// The names of every applied seed starting with `prefix`.
pub async fn applied_with_prefix(
    db: &Db,
    prefix: &str,
) -> Result<std::collections::HashSet<String>> {
    // Creates the table when missing.
    applied(db, prefix).await?;
    let mut c = db.read().await?;
    let pattern = format!("{}%", prefix.replace(['%', '_'], ""));
    let names: Vec<String> = match c.exec().link {
        Link::Sqlite(c) => c
            .prepare("SELECT name FROM stoa_seeds WHERE name LIKE ?1")
            .and_then(|mut s| {
                s.query_map([pattern], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(sqlite_err)?,
        Link::Postgres(c) => sqlx::query_scalar("SELECT name FROM stoa_seeds WHERE name LIKE $1")
            .bind(pattern)
            .fetch_all(&mut *c)
            .await
            .map_err(pool_err)?,
    };
    Ok(names
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect())
}
