//! Reading the original system's PostgreSQL database: which tables and columns it has, where its
//! foreign keys point, and its rows page by page in id order (bounded memory whatever its size).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Row};

/// One SPS table as the database has it.
#[derive(Debug, Default)]
pub struct Shape {
    /// Column name → SQL type (`uuid`, `jsonb`, `text`, `numeric`…).
    pub columns: BTreeMap<String, String>,
    /// Foreign-key column → the table it references.
    pub references: HashMap<String, String>,
}

pub struct Source {
    pool: PgPool,
}

/// Rows read per query.
pub const PAGE: i64 = 200;

fn quoted(table: &str) -> String {
    format!("\"{}\"", table.replace('"', "\"\""))
}

impl Source {
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect(url)
            .await
            .map_err(|e| anyhow::anyhow!("cannot connect to the SPS database: {e}"))?;
        Ok(Self { pool })
    }

    /// Every table of the `public` schema with its columns and foreign keys.
    pub async fn shapes(&self) -> anyhow::Result<HashMap<String, Shape>> {
        let mut out: HashMap<String, Shape> = HashMap::new();
        let cols = sqlx::query(
            "SELECT table_name::text, column_name::text, udt_name::text \
             FROM information_schema.columns WHERE table_schema = 'public'",
        )
        .fetch_all(&self.pool)
        .await?;
        for r in cols {
            let (t, c, ty): (String, String, String) = (r.get(0), r.get(1), r.get(2));
            out.entry(t).or_default().columns.insert(c, ty);
        }
        let fks = sqlx::query(
            "SELECT cl.relname::text, a.attname::text, rt.relname::text \
             FROM pg_constraint c \
             JOIN pg_class cl ON cl.oid = c.conrelid \
             JOIN pg_namespace n ON n.oid = cl.relnamespace AND n.nspname = 'public' \
             JOIN pg_class rt ON rt.oid = c.confrelid \
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
             WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1",
        )
        .fetch_all(&self.pool)
        .await?;
        for r in fks {
            let (t, c, target): (String, String, String) = (r.get(0), r.get(1), r.get(2));
            out.entry(t).or_default().references.insert(c, target);
        }
        Ok(out)
    }

    /// How many rows `table` has (changed after `since`, when given).
    pub async fn count(&self, table: &str, since: Option<&str>) -> anyhow::Result<i64> {
        let sql = format!(
            "SELECT COUNT(*) FROM {} WHERE ($1::timestamp IS NULL OR updated_at > $1::timestamp)",
            quoted(table)
        );
        Ok(sqlx::query_scalar(AssertSqlSafe(sql))
            .bind(since)
            .fetch_one(&self.pool)
            .await?)
    }

    /// Up to [`PAGE`] rows of `table` after id `after`, in id order, each as the JSON object
    /// PostgreSQL makes of it (column names as keys; numerics as numbers, timestamps as text)
    /// and that object's text, which fingerprints the row.
    pub async fn page(
        &self,
        table: &str,
        since: Option<&str>,
        after: Option<uuid::Uuid>,
    ) -> anyhow::Result<Vec<(Map<String, Value>, String)>> {
        let sql = format!(
            "SELECT to_jsonb(t)::text FROM {} t \
             WHERE ($1::timestamp IS NULL OR t.updated_at > $1::timestamp) \
               AND ($2::uuid IS NULL OR t.id > $2::uuid) \
             ORDER BY t.id LIMIT {PAGE}",
            quoted(table)
        );
        let rows: Vec<String> = sqlx::query_scalar(AssertSqlSafe(sql))
            .bind(since)
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter()
            .map(|text| {
                let row: Map<String, Value> = serde_json::from_str(&text)?;
                Ok((row, text))
            })
            .collect()
    }

    /// The `(method, path)` of the SPS actions no role holds: public in SPS (DOMAIN §4.4).
    pub async fn close(self) {
        self.pool.close().await;
    }
}
