//! Numbers people read (an order's № 1042), taken inside the caller's transaction: each number
//! once, increasing, at least a first one, and above every number the column already holds (a
//! database restored without its counters, or rows numbered by hand, goes on above them instead
//! of repeating one).
//!
//! - **SQLite**: one counter row per name in `stoa_counters`. There is one writer, so numbers come
//!   in commit order and a rolled-back transaction gives its number back.
//! - **PostgreSQL**: one sequence per name (`stoa_counter_<name>`). A sequence is taken without a
//!   lock that lasts until the taker commits: with a counter row, every concurrent checkout waited
//!   for the one before it to commit (the row stayed locked through the rest of its transaction),
//!   which held PostgreSQL's checkouts to one at a time (docs/benchmarks.md, 2026-12-01). The
//!   price: a transaction that rolls back leaves a gap, and numbers follow the order they were
//!   taken in, not the order of the commits — as order numbers do in most shops. Numbers stay
//!   unique (the column's unique index) and increasing.

use stoa_kernel::model::Entity;
use stoa_kernel::{Error, Result};

use crate::db::{Db, Exec, Link};
use crate::errors::{pool_err, sqlite_err};
use crate::names::{ident, q};

const TABLE: &str =
    "CREATE TABLE IF NOT EXISTS stoa_counters (name TEXT PRIMARY KEY, n BIGINT NOT NULL)";

/// The sequence behind counter `name` on PostgreSQL: `stoa_counter_` and the name with every
/// character but a letter or digit made `_`, kept within PostgreSQL's identifier length.
fn sequence(name: &str) -> String {
    let mut s = String::from("stoa_counter_");
    s.extend(name.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        }
    }));
    ident(&s)
}

/// Creates what the counters `names` are kept in (once per start; a module that numbers rows
/// calls it in its seed): the counters' table on SQLite, a sequence per name on PostgreSQL.
pub async fn ensure(db: &Db, names: &[&str]) -> Result<()> {
    let mut tx = db.begin().await?;
    match &mut tx.exec().link {
        Link::Sqlite(c) => {
            c.execute_batch(TABLE).map_err(sqlite_err)?;
        }
        Link::Postgres(c) => {
            for name in names {
                let sql = format!("CREATE SEQUENCE IF NOT EXISTS {}", q(&sequence(name)));
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(&mut **c)
                    .await
                    .map_err(pool_err)?;
            }
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
    // `p`: the placeholder of `first`.
    let floor = |p: &str| {
        format!(
            "(SELECT COALESCE(MAX({}) + 1, {p}) FROM {})",
            q(&column),
            q(&entity.table)
        )
    };
    exec.settle().await?;
    match &mut exec.link {
        Link::Sqlite(c) => {
            let floor = floor("$2");
            let sql = format!(
                "INSERT INTO stoa_counters (name, n) VALUES ($1, MAX($2, {floor})) \
                 ON CONFLICT (name) DO UPDATE SET n = MAX(stoa_counters.n + 1, excluded.n) RETURNING n"
            );
            c.prepare_cached(&sql)
                .and_then(|mut st| st.query_row(rusqlite::params![name, first], |r| r.get(0)))
                .map_err(sqlite_err)
        }
        Link::Postgres(c) => {
            // The sequence's next value, unless the column is ahead of it (a new sequence, a
            // database restored without its counters): then the sequence is moved up to the
            // column (the column's `MAX` is one step down its unique index).
            let seq = format!("'{}'", q(&sequence(name)));
            let floor = floor("$1");
            let sql = format!(
                "SELECT s.v, f.n FROM (SELECT nextval({seq}) AS v) s, (SELECT GREATEST($1, {floor}) AS n) f"
            );
            let (v, n): (i64, i64) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(first)
                .fetch_one(&mut **c)
                .await
                .map_err(pool_err)?;
            if v >= n {
                return Ok(v);
            }
            // Behind the column. Two takers that both read the sequence behind would both move
            // it to the same floor and take the same number (six first checkouts at once did):
            // the move is made under a lock held until this transaction ends, so the next taker
            // behind reads the floor with this one's number in it. The floor is read first, so
            // the move is one short statement: a taker without the lock takes a number at or
            // above the floor only from the sequence, which a move never sets back.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind(sequence(name))
                .execute(&mut **c)
                .await
                .map_err(pool_err)?;
            let n: i64 =
                sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT GREATEST($1, {floor})")))
                    .bind(first)
                    .fetch_one(&mut **c)
                    .await
                    .map_err(pool_err)?;
            let sql = format!(
                "SELECT CASE WHEN s.v >= $1 THEN s.v ELSE setval({seq}, $1) END \
                 FROM (SELECT nextval({seq}) AS v) s"
            );
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(n)
                .fetch_one(&mut **c)
                .await
                .map_err(pool_err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoa_kernel::model::{int, model};

    /// Takers that start together on a sequence behind the column (a new one) each get their
    /// own number: the column's `MAX` is made slow (many rows to scan, no index), so every
    /// taker reads the sequence before any of them moves it.
    #[tokio::test]
    async fn postgres_takers_behind_the_column_take_numbers_apart() {
        let Some(db) = crate::db::testing::postgres().await else {
            return;
        };
        let tag = uuid::Uuid::new_v4().simple().to_string();
        let mut e = model("countertest", "numbered", "numbered")
            .field(int("number"))
            .build();
        e.table = format!("{}_{}", e.table, &tag[..12]);
        let column = e.field("number").expect("number").column.clone();
        let name = format!("test-{tag}");
        ensure(&db, &[&name]).await.expect("sequence");
        {
            let mut tx = db.begin().await.expect("begin");
            let Link::Postgres(c) = &mut tx.exec().link else {
                panic!("a PostgreSQL connection");
            };
            let sql = format!(
                "CREATE TABLE {t} ({col} BIGINT); \
                 INSERT INTO {t} ({col}) SELECT NULL FROM generate_series(1, 300000)",
                t = q(&e.table),
                col = q(&column)
            );
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **c)
                .await
                .expect("table");
            tx.commit().await.expect("commit");
        }
        let (db, e, name) = (&db, &e, name.as_str());
        // Every transaction open first (the pool's connections made), then all take at once.
        let txs: Vec<_> = futures::future::join_all((0..8).map(|_| db.begin()))
            .await
            .into_iter()
            .map(|t| t.expect("begin"))
            .collect();
        let taken: Vec<i64> = futures::future::join_all(txs.into_iter().map(|mut tx| async move {
            let n = next(&mut tx.exec(), name, e, "number", 1001)
                .await
                .expect("next");
            tx.commit().await.expect("commit");
            n
        }))
        .await;
        let mut sorted = taken.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let mut tx = db.begin().await.expect("begin");
        if let Link::Postgres(c) = &mut tx.exec().link {
            let sql = format!(
                "DROP TABLE {}; DROP SEQUENCE {}",
                q(&e.table),
                q(&sequence(name))
            );
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **c)
                .await
                .expect("drop");
        }
        tx.commit().await.expect("commit");
        assert_eq!(sorted.len(), 8, "numbers taken twice: {taken:?}");
        assert!(sorted[0] >= 1001, "{taken:?}");
    }
}
