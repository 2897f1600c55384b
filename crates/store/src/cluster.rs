//! What several instances on one PostgreSQL database share besides the data: counters with a
//! window (rate limits), single-use tokens (sign-in nonces) and the bodies of live events too
//! large for a `NOTIFY` payload. The tables are `UNLOGGED`: they hold nothing that must survive
//! a crash of the database server (a lost counter or nonce costs a retry, never a wrong answer).
//!
//! On SQLite there is one instance, and the callers keep these in memory instead.

use std::time::Duration;

use sqlx::PgPool;
use stoa_kernel::{Error, Result};

use crate::db::Db;

const COUNTERS: &str = "stoa_shared_counters";
const TOKENS: &str = "stoa_shared_tokens";
const VALUES: &str = "stoa_shared_values";
/// Live event bodies too large for a notification (see `stoa_api::cluster`).
pub const EVENTS: &str = "stoa_shared_events";

/// Creates the shared tables (PostgreSQL; nothing on SQLite).
pub async fn prepare(db: &Db) -> Result<()> {
    let Db::Postgres(pg) = db else {
        return Ok(());
    };
    let pool = pg.pool();
    for sql in [
        format!(
            "CREATE UNLOGGED TABLE IF NOT EXISTS {COUNTERS} (key TEXT PRIMARY KEY, started TIMESTAMPTZ NOT NULL, n INTEGER NOT NULL, until TIMESTAMPTZ NOT NULL)"
        ),
        format!("CREATE INDEX IF NOT EXISTS ix_{COUNTERS}_until ON {COUNTERS} (until)"),
        format!(
            "CREATE UNLOGGED TABLE IF NOT EXISTS {TOKENS} (token TEXT PRIMARY KEY, until TIMESTAMPTZ NOT NULL)"
        ),
        format!("CREATE INDEX IF NOT EXISTS ix_{TOKENS}_until ON {TOKENS} (until)"),
        format!(
            "CREATE UNLOGGED TABLE IF NOT EXISTS {VALUES} (key TEXT PRIMARY KEY, value TEXT NOT NULL, until TIMESTAMPTZ NOT NULL)"
        ),
        format!("CREATE INDEX IF NOT EXISTS ix_{VALUES}_until ON {VALUES} (until)"),
        format!(
            "CREATE UNLOGGED TABLE IF NOT EXISTS {EVENTS} (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())"
        ),
    ] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(pool)
            .await
            .map_err(db_error)?;
    }
    Ok(())
}

fn db_error(e: sqlx::Error) -> Error {
    Error::internal(format!("shared state: {e}"))
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn left(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or_default()
}

/// Counters and tokens in the database every instance uses.
#[derive(Clone, Debug)]
pub struct Shared {
    pool: PgPool,
}

impl Shared {
    /// `Some` on PostgreSQL.
    pub fn of(db: &Db) -> Option<Self> {
        match db {
            Db::Postgres(pg) => Some(Self {
                pool: pg.pool().clone(),
            }),
            Db::Sqlite { .. } => None,
        }
    }

    /// One more event of `key` in a fixed window of `window` that starts at its first event:
    /// the count in the current window (this one included) and the time until the window ends.
    pub async fn hit(&self, key: &str, window: Duration) -> Result<(u32, Duration)> {
        let (n, rest): (i32, f64) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {COUNTERS} (key, started, n, until) VALUES ($1, now(), 1, now() + make_interval(secs => $2))
             ON CONFLICT (key) DO UPDATE SET
               started = CASE WHEN {COUNTERS}.until <= now() THEN now() ELSE {COUNTERS}.started END,
               n = CASE WHEN {COUNTERS}.until <= now() THEN 1 ELSE {COUNTERS}.n + 1 END,
               until = CASE WHEN {COUNTERS}.until <= now() THEN now() + make_interval(secs => $2) ELSE {COUNTERS}.until END
             RETURNING n, EXTRACT(EPOCH FROM (until - now()))::float8"
        )))
        .bind(key)
        .bind(secs(window))
        .fetch_one(&self.pool)
        .await
        .map_err(db_error)?;
        Ok((u32::try_from(n).unwrap_or(0), left(rest)))
    }

    /// The count of `key` in its current window, and the time until that window ends.
    pub async fn count(&self, key: &str) -> Result<(u32, Duration)> {
        let row: Option<(i32, f64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT n, EXTRACT(EPOCH FROM (until - now()))::float8 FROM {COUNTERS} WHERE key = $1 AND until > now()"
        )))
        .bind(key)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(row.map_or((0, Duration::ZERO), |(n, rest)| {
            (u32::try_from(n).unwrap_or(0), left(rest))
        }))
    }

    /// Forgets `key`'s count.
    pub async fn clear(&self, key: &str) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {COUNTERS} WHERE key = $1"
        )))
        .bind(key)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    /// Whether the pool is closed (the process is stopping).
    pub fn is_closed(&self) -> bool {
        self.pool.is_closed()
    }

    /// Keeps `token` for `ttl`; false when it is already kept.
    pub async fn issue(&self, token: &str, ttl: Duration) -> Result<bool> {
        Ok(!self.issue_many(&[token.to_owned()], ttl).await?.is_empty())
    }

    /// Keeps each of `tokens` for `ttl`; the ones that were not kept before (by any instance).
    pub async fn issue_many(
        &self,
        tokens: &[String],
        ttl: Duration,
    ) -> Result<std::collections::HashSet<String>> {
        if tokens.is_empty() {
            return Ok(Default::default());
        }
        let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {TOKENS} (token, until) SELECT t, now() + make_interval(secs => $2) FROM unnest($1::text[]) AS t ON CONFLICT (token) DO NOTHING RETURNING token"
        )))
        .bind(tokens)
        .bind(secs(ttl))
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(rows.into_iter().map(|(t,)| t).collect())
    }

    /// The value kept under `key`: `candidate`, kept for `ttl`, when none is kept yet (so every
    /// instance agrees on the first one written, such as the day's analytics salt).
    pub async fn value_or(&self, key: &str, candidate: &str, ttl: Duration) -> Result<String> {
        for _ in 0..3 {
            // A write racing ours commits between the two reads of one statement; a second
            // statement sees it.
            let row: Option<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "WITH put AS (INSERT INTO {VALUES} (key, value, until) VALUES ($1, $2, now() + make_interval(secs => $3)) ON CONFLICT (key) DO NOTHING RETURNING value) \
                 SELECT value FROM put UNION ALL SELECT value FROM {VALUES} WHERE key = $1 AND until > now() LIMIT 1"
            )))
            .bind(key)
            .bind(candidate)
            .bind(secs(ttl))
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
            if let Some((v,)) = row {
                return Ok(v);
            }
            // An expired value still holds the key until it is pruned: replace it.
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DELETE FROM {VALUES} WHERE key = $1 AND until <= now()"
            )))
            .bind(key)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        }
        Err(Error::Unavailable(format!(
            "shared value {key} could not be read"
        )))
    }

    /// Spends `token`: true when it was issued, unspent and unexpired. Whichever instance asks
    /// first gets it; every later ask, on any instance, is refused.
    pub async fn spend(&self, token: &str) -> Result<bool> {
        let row: Option<(bool,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {TOKENS} WHERE token = $1 RETURNING until > now()"
        )))
        .bind(token)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(matches!(row, Some((true,))))
    }

    /// Drops expired counters and tokens.
    pub async fn prune(&self) -> Result<()> {
        self.run_each([
            format!("DELETE FROM {COUNTERS} WHERE until <= now()"),
            format!("DELETE FROM {TOKENS} WHERE until <= now()"),
            format!("DELETE FROM {VALUES} WHERE until <= now()"),
        ])
        .await
    }

    /// Drops event bodies older than a minute (their notifications have been read by then).
    pub async fn prune_events(&self) -> Result<()> {
        self.run_each([format!(
            "DELETE FROM {EVENTS} WHERE at < now() - interval '1 minute'"
        )])
        .await
    }

    async fn run_each<const N: usize>(&self, statements: [String; N]) -> Result<()> {
        for sql in statements {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&self.pool)
                .await
                .map_err(db_error)?;
        }
        Ok(())
    }

    /// Keeps a live event body for the other instances to read by id.
    pub async fn put_event(&self, body: &str) -> Result<i64> {
        let (id,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {EVENTS} (body) VALUES ($1) RETURNING id"
        )))
        .bind(body)
        .fetch_one(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(id)
    }

    /// A body kept with [`Shared::put_event`] (gone after a minute).
    pub async fn event(&self, id: i64) -> Result<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT body FROM {EVENTS} WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(row.map(|(b,)| b))
    }

    /// Sends each of `payloads` on `channel` to every listening instance (this one included),
    /// in order, in one statement: one round trip and
    /// one transaction for a burst of events, where one each took a connection from the pool
    /// the requests use (PostgreSQL delivers identical payloads of one transaction once).
    pub async fn notify_all(&self, channel: &str, payloads: &[String]) -> Result<()> {
        if payloads.is_empty() {
            return Ok(());
        }
        sqlx::query(
            "SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS t(p, i) ORDER BY i",
        )
        .bind(channel)
        .bind(payloads)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    /// A connection that listens on `channels` (reconnecting by itself; see
    /// [`sqlx::postgres::PgListener::try_recv`]). It is a connection of its own, outside the
    /// pool the requests use, so listening never takes one of their connections.
    pub async fn listen(&self, channels: &[&str]) -> Result<sqlx::postgres::PgListener> {
        let own = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_with((*self.pool.connect_options()).clone())
            .await
            .map_err(db_error)?;
        let mut l = sqlx::postgres::PgListener::connect_with(&own)
            .await
            .map_err(db_error)?;
        l.listen_all(channels.iter().copied())
            .await
            .map_err(db_error)?;
        Ok(l)
    }
}

/// What [`SingleUse::issue`] did with a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issued {
    Kept,
    /// The same token is already kept (a random one collided: ask again).
    Collided,
    /// As many tokens as allowed wait in this process.
    Full,
}

/// Single-use tokens, each good once within `ttl`: in this process on SQLite (one instance), in
/// the shared table every instance spends from on PostgreSQL. What SIWE nonces, OIDC states and
/// MCP confirmations are kept in.
pub struct SingleUse {
    prefix: &'static str,
    ttl: Duration,
    cap: usize,
    waiting: std::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>,
    shared: Option<Shared>,
}

impl SingleUse {
    /// Tokens kept under `prefix:` for `ttl`, at most `cap` of them in this process.
    pub fn new(prefix: &'static str, ttl: Duration, cap: usize, shared: Option<Shared>) -> Self {
        Self {
            prefix,
            ttl,
            cap,
            waiting: std::sync::Mutex::new(std::collections::HashMap::new()),
            shared,
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Keeps `token` until it is spent or expires.
    pub async fn issue(&self, token: &str) -> Result<Issued> {
        let key = format!("{}:{token}", self.prefix);
        if let Some(s) = &self.shared {
            return Ok(if s.issue(&key, self.ttl).await? {
                Issued::Kept
            } else {
                Issued::Collided
            });
        }
        let mut m = self
            .waiting
            .lock()
            .map_err(|_| Error::internal("single-use tokens poisoned"))?;
        if m.len() >= self.cap {
            m.retain(|_, at| at.elapsed() < self.ttl);
            if m.len() >= self.cap {
                return Ok(Issued::Full);
            }
        }
        if m.contains_key(&key) {
            return Ok(Issued::Collided);
        }
        m.insert(key, std::time::Instant::now());
        Ok(Issued::Kept)
    }

    /// Spends `token`: true once, when it was issued (by any instance) and has not expired.
    pub async fn spend(&self, token: &str) -> Result<bool> {
        let key = format!("{}:{token}", self.prefix);
        if let Some(s) = &self.shared {
            return s.spend(&key).await;
        }
        let mut m = self
            .waiting
            .lock()
            .map_err(|_| Error::internal("single-use tokens poisoned"))?;
        Ok(m.remove(&key).is_some_and(|at| at.elapsed() < self.ttl))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A burst sent in one statement arrives whole and in order; identical payloads of one
    /// burst arrive once.
    #[tokio::test]
    async fn a_burst_of_notifications_arrives_in_order() {
        let Some(db) = crate::db::testing::postgres().await else {
            return;
        };
        let shared = Shared::of(&db).expect("PostgreSQL");
        let channel = format!("t_{}", uuid::Uuid::new_v4().simple());
        let mut l = shared.listen(&[&channel]).await.expect("listen");
        let sent: Vec<String> = (0..40).map(|i| format!("event {i}")).collect();
        let mut burst = sent.clone();
        burst.insert(5, "event 4".into());
        shared.notify_all(&channel, &burst).await.expect("notify");
        shared.notify_all(&channel, &[]).await.expect("nothing");
        shared
            .notify_all(&channel, &["last".into()])
            .await
            .expect("notify");
        let mut heard = Vec::new();
        while heard.len() < sent.len() + 1 {
            let n = tokio::time::timeout(Duration::from_secs(5), l.recv())
                .await
                .expect("in time")
                .expect("a notification");
            heard.push(n.payload().to_owned());
        }
        let mut want = sent;
        want.push("last".into());
        assert_eq!(heard, want);
    }
}
