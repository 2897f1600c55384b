//! The durable job queue: one table (`platform.job`, declared like every entity, so the admin
//! lists it and an admin can re-queue a dead job by setting its status back to `queued`).
//!
//! - [`enqueue`] runs on a caller's [`Exec`], so a job is written in the same transaction as the
//!   change it follows: a rollback drops both.
//! - [`claim`] takes due jobs under a lease in one statement (`FOR UPDATE SKIP LOCKED` on
//!   PostgreSQL, so instances sharing a database never take the same job; SQLite serialises
//!   writers). A job whose lease ran out (a crashed worker) is claimable again.
//! - [`finish`] and [`retry_or_bury`] only touch a job still held under the caller's lease token.
//!
//! See ADR 0009 for why this is not an external crate.

use serde_json::Value;
use sqlx::Row;
use stoa_kernel::model::{Entity, Module, enumeration, int, json, model, text, timestamp};
use stoa_kernel::value::{format_timestamp, now};
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::{Db, Exec, pool_err};

/// The declarations of the platform's own tables.
pub fn module() -> Module {
    Module {
        name: "platform",
        entities: vec![entity()],
    }
}

pub const TABLE: &str = "platform_job";

/// `platform.job`: one row per piece of background work.
pub fn entity() -> Entity {
    model("platform", "job", "jobs")
        .field(text("name").required().max_len(200).list().searchable())
        .field(json("payload").required().default_json("{}"))
        .field(
            enumeration("status", &["queued", "running", "done", "dead"])
                .required()
                .default_text("queued")
                .list(),
        )
        .field(int("attempts").required().default_int(0).list())
        .field(timestamp("runAt").required().default_now().list())
        .field(timestamp("lockedUntil"))
        .field(text("lockedBy").max_len(100))
        .field(text("lastError").max_len(4000))
        .field(text("dedupeKey").max_len(300).unique())
        .title("name")
        .private()
        .build()
}

/// A job to write.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub name: String,
    pub payload: Value,
    pub run_at: OffsetDateTime,
    /// At most one job per key, ever (schedules use `schedule:<job>:<period>`).
    pub dedupe_key: Option<String>,
}

impl NewJob {
    /// `name` with `payload`, due now.
    pub fn now(name: impl Into<String>, payload: Value) -> Self {
        Self {
            name: name.into(),
            payload,
            run_at: now(),
            dedupe_key: None,
        }
    }

    pub fn at(mut self, t: OffsetDateTime) -> Self {
        self.run_at = t;
        self
    }

    pub fn dedupe(mut self, key: impl Into<String>) -> Self {
        self.dedupe_key = Some(key.into());
        self
    }
}

/// A claimed job.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: Uuid,
    pub name: String,
    pub payload: Value,
    /// Attempts so far, this one included.
    pub attempts: u32,
    /// The lease token: only its holder may finish the job.
    pub token: String,
}

macro_rules! on {
    ($exec:expr, |$c:ident, $pg:ident| $body:expr) => {
        match $exec {
            Exec::Sqlite($c) => {
                let $pg = false;
                $body
            }
            Exec::Postgres($c) => {
                let $pg = true;
                $body
            }
        }
    };
}

/// Writes `job` on `exec` (inside the caller's transaction). `None` when a job with the same
/// dedupe key exists.
pub async fn enqueue(exec: &mut Exec<'_>, job: &NewJob) -> Result<Option<Uuid>> {
    if job.name.is_empty() || job.name.len() > 200 {
        return Err(Error::bad_field(
            "name",
            "a job name has 1 to 200 characters",
        ));
    }
    let id = Uuid::now_v7();
    let stamp = now();
    let sql = format!(
        "INSERT INTO {TABLE} (id, created_at, updated_at, variant, name, payload, status, attempts, run_at, dedupe_key) \
         VALUES ($1, $2, $3, 'default', $4, $5, 'queued', 0, $6, $7) ON CONFLICT (dedupe_key) DO NOTHING"
    );
    let sql = sqlx::AssertSqlSafe(sql);
    let n = on!(exec, |c, pg| {
        if pg {
            sqlx::query(sql)
                .bind(id)
                .bind(stamp)
                .bind(stamp)
                .bind(&job.name)
                .bind(&job.payload)
                .bind(job.run_at)
                .bind(job.dedupe_key.as_deref())
                .execute(&mut **c)
                .await
                .map(|r| r.rows_affected())
        } else {
            sqlx::query(sql)
                .bind(id.to_string())
                .bind(format_timestamp(stamp))
                .bind(format_timestamp(stamp))
                .bind(&job.name)
                .bind(job.payload.to_string())
                .bind(format_timestamp(job.run_at))
                .bind(job.dedupe_key.as_deref())
                .execute(&mut **c)
                .await
                .map(|r| r.rows_affected())
        }
    })
    .map_err(pool_err)?;
    Ok((n == 1).then_some(id))
}

/// Writes `job` in its own transaction.
pub async fn enqueue_now(db: &Db, job: &NewJob) -> Result<Option<Uuid>> {
    let mut tx = db.begin().await?;
    let id = enqueue(&mut tx.exec(), job).await?;
    tx.commit().await?;
    Ok(id)
}

/// The partial index that keeps claiming cheap however many finished jobs the table holds.
pub async fn prepare(db: &Db) -> Result<()> {
    let sql = format!(
        "CREATE INDEX IF NOT EXISTS ix_{TABLE}_due ON {TABLE} (run_at) WHERE status IN ('queued', 'running')"
    );
    let mut tx = db.begin().await?;
    on!(tx.exec(), |c, _pg| sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(&mut *c)
        .await
        .map(|r| r.rows_affected()))
    .map_err(pool_err)?;
    tx.commit().await
}

/// Claims up to `limit` due jobs among `names` for `lease` (the longest an attempt may run).
pub async fn claim(
    db: &Db,
    names: &[&str],
    limit: usize,
    lease: std::time::Duration,
) -> Result<Vec<Claimed>> {
    if names.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let t = now();
    let until = t + lease;
    let token = Uuid::new_v4().simple().to_string();
    let placeholders: Vec<String> = (0..names.len()).map(|i| format!("${}", i + 5)).collect();
    let lock = if db.backend() == crate::Backend::Postgres {
        " FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    let sql = format!(
        "UPDATE {TABLE} SET status = 'running', attempts = attempts + 1, locked_until = $1, locked_by = $2, updated_at = $3 \
         WHERE id IN (SELECT id FROM {TABLE} WHERE status IN ('queued', 'running') AND run_at <= $3 \
         AND (status = 'queued' OR locked_until IS NULL OR locked_until <= $3) AND name IN ({}) \
         ORDER BY run_at LIMIT $4{lock}) \
         RETURNING id, name, payload, attempts",
        placeholders.join(", ")
    );
    let sql = sqlx::AssertSqlSafe(sql);
    let mut tx = db.begin().await?;
    let rows: Vec<Claimed> = on!(tx.exec(), |c, pg| {
        if pg {
            let mut q = sqlx::query(sql)
                .bind(until)
                .bind(&token)
                .bind(t)
                .bind(limit as i64);
            for n in names {
                q = q.bind(*n);
            }
            q.fetch_all(&mut *c).await.map(|rows| {
                rows.iter()
                    .filter_map(|r| {
                        Some(Claimed {
                            id: r.try_get::<Uuid, _>("id").ok()?,
                            name: r.try_get("name").ok()?,
                            payload: r.try_get("payload").ok()?,
                            attempts: r.try_get::<i64, _>("attempts").ok()? as u32,
                            token: token.clone(),
                        })
                    })
                    .collect()
            })
        } else {
            let mut q = sqlx::query(sql)
                .bind(format_timestamp(until))
                .bind(&token)
                .bind(format_timestamp(t))
                .bind(limit as i64);
            for n in names {
                q = q.bind(*n);
            }
            q.fetch_all(&mut *c).await.map(|rows| {
                rows.iter()
                    .filter_map(|r| {
                        Some(Claimed {
                            id: Uuid::parse_str(&r.try_get::<String, _>("id").ok()?).ok()?,
                            name: r.try_get("name").ok()?,
                            payload: serde_json::from_str(&r.try_get::<String, _>("payload").ok()?)
                                .unwrap_or(Value::Null),
                            attempts: r.try_get::<i64, _>("attempts").ok()? as u32,
                            token: token.clone(),
                        })
                    })
                    .collect()
            })
        }
    })
    .map_err(pool_err)?;
    tx.commit().await?;
    Ok(rows)
}

async fn settle(
    db: &Db,
    job: &Claimed,
    status: &str,
    run_at: Option<OffsetDateTime>,
    error: Option<&str>,
) -> Result<bool> {
    let t = now();
    let error: Option<String> = error.map(|e| e.chars().take(4000).collect());
    let sql = format!(
        "UPDATE {TABLE} SET status = $1, run_at = COALESCE($2, run_at), last_error = COALESCE($3, last_error), \
         locked_until = NULL, locked_by = NULL, updated_at = $4 WHERE id = $5 AND locked_by = $6"
    );
    let sql = sqlx::AssertSqlSafe(sql);
    let mut tx = db.begin().await?;
    let n = on!(tx.exec(), |c, pg| {
        if pg {
            sqlx::query(sql)
                .bind(status)
                .bind(run_at)
                .bind(error)
                .bind(t)
                .bind(job.id)
                .bind(&job.token)
                .execute(&mut *c)
                .await
                .map(|r| r.rows_affected())
        } else {
            sqlx::query(sql)
                .bind(status)
                .bind(run_at.map(format_timestamp))
                .bind(error)
                .bind(format_timestamp(t))
                .bind(job.id.to_string())
                .bind(&job.token)
                .execute(&mut *c)
                .await
                .map(|r| r.rows_affected())
        }
    })
    .map_err(pool_err)?;
    tx.commit().await?;
    Ok(n == 1)
}

/// Marks a claimed job done. `false` when the lease was lost (another worker took it over).
pub async fn finish(db: &Db, job: &Claimed) -> Result<bool> {
    settle(db, job, "done", None, None).await
}

/// A failed attempt: queued again at `retry_at`, or dead when `retry_at` is `None`.
pub async fn retry_or_bury(
    db: &Db,
    job: &Claimed,
    error: &str,
    retry_at: Option<OffsetDateTime>,
) -> Result<bool> {
    match retry_at {
        Some(t) => settle(db, job, "queued", Some(t), Some(error)).await,
        None => settle(db, job, "dead", None, Some(error)).await,
    }
}

/// Deletes finished jobs last updated before `before` (dead ones stay for an admin to see).
pub async fn prune(db: &Db, before: OffsetDateTime) -> Result<u64> {
    let sql = sqlx::AssertSqlSafe(format!(
        "DELETE FROM {TABLE} WHERE status = 'done' AND updated_at < $1"
    ));
    let mut tx = db.begin().await?;
    let n = on!(tx.exec(), |c, pg| {
        if pg {
            sqlx::query(sql)
                .bind(before)
                .execute(&mut *c)
                .await
                .map(|r| r.rows_affected())
        } else {
            sqlx::query(sql)
                .bind(format_timestamp(before))
                .execute(&mut *c)
                .await
                .map(|r| r.rows_affected())
        }
    })
    .map_err(pool_err)?;
    tx.commit().await?;
    Ok(n)
}
