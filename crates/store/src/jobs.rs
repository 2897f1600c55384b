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

use std::sync::{Arc, LazyLock};

use sea_query::{
    Alias, Condition, Expr, ExprTrait, LockBehavior, LockType, OnConflict, Order, Query,
};
use serde_json::Value;
use stoa_kernel::model::{Entity, Module, enumeration, int, json, model, text, timestamp};
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::{Val, now};
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::{Backend, Db, Exec};
use crate::repo::{assignments, col, execute, fetch_all, returning, to_value};

/// The declarations of the platform's own tables.
pub fn module() -> Module {
    Module {
        name: "platform",
        words: include_str!("words.toml"),
        entities: vec![entity()],
    }
}

pub const TABLE: &str = "platform_job";
/// The key of the jobs entity: named among the changes a commit that enqueued jobs sends to
/// the other instances, whose runners then claim at once.
pub const KEY: &str = "platform.job";

/// The declaration, built once: every statement below is built from it through the repository,
/// so values bind and rows decode the way they do for every other entity.
static JOB: LazyLock<Arc<Entity>> = LazyLock::new(|| Arc::new(entity()));

/// `platform.job`: one row per piece of background work.
pub fn entity() -> Entity {
    model("platform", "job", "jobs")
        // Not searchable: on PostgreSQL a trigram index on `name` tempted the planner away from the
        // due index for the claim's `name IN (…)` whenever statistics lagged a growing queue
        // (60 ms a claim instead of 1.4 ms, found by bench/checkout.sh).
        .field(text("name").required().max_len(200).list())
        .field(json("payload").required().default_json("{}"))
        .field(
            enumeration("status", &["queued", "running", "done", "dead"])
                .required()
                .default_text("queued")
                .list(),
        )
        .field(int("attempts").required().default_int(0).list())
        // 0: claimed first; 1: background work (see `set_background`).
        .field(int("priority").required().default_int(0))
        .field(timestamp("runAt").required().default_now().list())
        .field(timestamp("lockedUntil"))
        .field(text("lockedBy").max_len(100))
        .field(text("lastError").max_len(4000))
        .field(text("dedupeKey").max_len(300).unique())
        .title("name")
        .private()
        .build()
}

/// Rung when a job this process enqueued, due now, can be claimed (after the enqueuing
/// transaction commits), and when another instance says it enqueued jobs (`stoa_api::cluster`),
/// so the runner claims without waiting for its poll. [`due_count`] says which class it was.
pub fn wake() -> &'static tokio::sync::Notify {
    static RUNG: tokio::sync::Notify = tokio::sync::Notify::const_new();
    &RUNG
}

/// The classes of jobs (foreground 0, background 1) the runner tells apart.
pub const CLASSES: usize = 2;

/// How many times jobs of each class became due in this process ([`due`]): a runner claims a
/// class when its count moved since it last looked (or on its poll), so a foreground job does
/// not also cost a claim of background work that found nothing, and back.
static DUE: [std::sync::atomic::AtomicU64; CLASSES] = [
    std::sync::atomic::AtomicU64::new(0),
    std::sync::atomic::AtomicU64::new(0),
];

/// The bit of `priority` in a set of classes.
pub(crate) fn class_bit(priority: i64) -> u8 {
    1 << priority.clamp(0, CLASSES as i64 - 1)
}

/// Jobs of the classes in `bits` became due: counted, and the runner rung.
pub(crate) fn due(bits: u8) {
    for (i, n) in DUE.iter().enumerate() {
        if bits & (1 << i) != 0 {
            n.fetch_add(1, std::sync::atomic::Ordering::Release);
        }
    }
    wake().notify_one();
}

/// Jobs of every class may be due (another instance enqueued some): counted, and the runner rung.
pub fn wake_all() {
    due(u8::MAX);
}

/// How many times jobs of class `priority` became due in this process so far.
pub fn due_count(priority: usize) -> u64 {
    DUE.get(priority)
        .map_or(0, |n| n.load(std::sync::atomic::Ordering::Acquire))
}

/// The job names whose rows are written as background work (priority 1): the runner sets them
/// from the job declarations before it starts.
static BACKGROUND: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

pub fn set_background(names: &[&str]) {
    if let Ok(mut b) = BACKGROUND.write() {
        *b = names.iter().map(|n| (*n).to_owned()).collect();
    }
}

fn priority_of(name: &str) -> i64 {
    BACKGROUND
        .read()
        .map(|b| i64::from(b.iter().any(|n| n == name)))
        .unwrap_or(0)
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

/// `(field index, value)` pairs of the job entity.
fn vals(pairs: &[(&str, Val)]) -> Vec<(usize, Val)> {
    pairs
        .iter()
        .filter_map(|(name, v)| Some((JOB.field_index(name)?, v.clone())))
        .collect()
}

/// A value of the job field `name` bound for `b`.
fn val(name: &str, v: Val, b: Backend) -> sea_query::Value {
    let kind = JOB
        .field(name)
        .map_or(stoa_kernel::model::Kind::Text, |f| f.kind);
    to_value(kind, &v, b)
}

/// Writes `job` on `exec` (inside the caller's transaction). `None` when a job with the same
/// dedupe key exists (`ON CONFLICT DO NOTHING`: a conflict must not abort the caller's
/// transaction, as a failed insert would on PostgreSQL).
pub async fn enqueue(exec: &mut Exec<'_>, job: &NewJob) -> Result<Option<Uuid>> {
    let (s, id, priority, due) = insert(job, exec.backend())?;
    let n = execute(exec, &JOB, &s).await?;
    if n == 1 && due {
        exec.job_due(priority);
    }
    Ok((n == 1).then_some(id))
}

/// [`enqueue`] for a caller that does not ask whether a job with the same dedupe key was
/// already there: on PostgreSQL the insert is held and sent with the transaction's next
/// statement ([`Exec::hold`]), saving its round trip. The runner is rung at the commit even when
/// the dedupe key skipped the job (a claim that finds nothing more).
pub async fn enqueue_later(exec: &mut Exec<'_>, job: &NewJob) -> Result<()> {
    let (s, _, priority, due) = insert(job, exec.backend())?;
    if exec.can_hold() {
        exec.hold(Arc::clone(&JOB), s);
    } else {
        execute(exec, &JOB, &s).await?;
    }
    if due {
        exec.job_due(priority);
    }
    Ok(())
}

/// The insert of `job` (`ON CONFLICT (dedupe_key) DO NOTHING`), its id and priority, and whether
/// it is due now.
fn insert(job: &NewJob, b: Backend) -> Result<(sea_query::InsertStatement, Uuid, i64, bool)> {
    if job.name.is_empty() || job.name.len() > 200 {
        return Err(Error::bad_field(
            "name",
            "a job name has 1 to 200 characters",
        ));
    }
    let id = Uuid::now_v7();
    let t = now();
    let priority = priority_of(&job.name);
    let row = vals(&[
        ("id", Val::Uuid(id)),
        ("createdAt", Val::Timestamp(t)),
        ("updatedAt", Val::Timestamp(t)),
        ("variant", Val::Text("default".into())),
        ("name", Val::Text(job.name.clone())),
        ("payload", Val::Json(job.payload.clone())),
        ("status", Val::Text("queued".into())),
        ("attempts", Val::Int(0)),
        ("priority", Val::Int(priority)),
        ("runAt", Val::Timestamp(job.run_at)),
        (
            "dedupeKey",
            job.dedupe_key.clone().map_or(Val::Null, Val::Text),
        ),
    ]);
    let mut s = Query::insert();
    s.into_table(Alias::new(TABLE));
    s.columns(
        row.iter()
            .map(|(i, _)| Alias::new(JOB.fields[*i].column.as_str())),
    );
    s.values(
        row.iter()
            .map(|(i, v)| Expr::val(to_value(JOB.fields[*i].kind, v, b))),
    )
    .map_err(Error::internal)?;
    s.on_conflict(
        OnConflict::column(Alias::new("dedupe_key"))
            .do_nothing()
            .to_owned(),
    );
    Ok((s, id, priority, job.run_at <= t))
}

/// Writes `job` in its own transaction.
pub async fn enqueue_now(db: &Db, job: &NewJob) -> Result<Option<Uuid>> {
    let mut tx = db.begin().await?;
    let id = enqueue(&mut tx.exec(), job).await?;
    tx.commit().await?;
    Ok(id)
}

/// The unfinished jobs, as a literal: a partial index is only used by a query whose condition
/// names the same values (a bound parameter cannot prove it, and the claim scanned every
/// finished job instead).
const UNFINISHED: &str = "status IN ('queued', 'running')";

/// The partial index that keeps claiming cheap however many finished jobs the table holds, by
/// priority then due time.
pub async fn prepare(db: &Db) -> Result<()> {
    let mut tx = db.begin().await?;
    crate::ddl::run(
        &mut tx.exec(),
        &format!(
            "CREATE INDEX IF NOT EXISTS ix_{TABLE}_ready ON {TABLE} (priority, run_at) WHERE {UNFINISHED}"
        ),
    )
    .await?;
    crate::ddl::run(
        &mut tx.exec(),
        &format!("DROP INDEX IF EXISTS ix_{TABLE}_due"),
    )
    .await?;
    if db.backend() == crate::Backend::Postgres {
        // Databases made before `name` stopped being searchable.
        crate::ddl::run(
            &mut tx.exec(),
            &format!("DROP INDEX IF EXISTS ix_{TABLE}_name_trgm"),
        )
        .await?;
    }
    tx.commit().await
}

/// Claims up to `limit` due jobs of `priority` among `names`, each `(name, lease)` (the longest
/// an attempt of that job may run): one `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)
/// RETURNING …` (SQLite has no row locks and needs none: its writes are serialised). Each job is
/// leased for its own time, so a crash leaves a quick job claimable again soon even when another
/// kind of job may run for half an hour.
pub async fn claim(
    db: &Db,
    names: &[(&str, std::time::Duration)],
    priority: i64,
    limit: usize,
) -> Result<Vec<Claimed>> {
    if names.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let b = db.backend();
    let t = now();
    let token = Uuid::new_v4().simple().to_string();
    let at = |v: OffsetDateTime| val("runAt", Val::Timestamp(v), b);
    let mut due = Query::select();
    due.column(Alias::new("id"))
        .from(Alias::new(TABLE))
        .and_where(Expr::cust(UNFINISHED))
        .and_where(col("priority").eq(priority))
        .and_where(col("run_at").lte(at(t)))
        .cond_where(
            Condition::any()
                .add(col("status").eq("queued"))
                .add(col("locked_until").is_null())
                .add(col("locked_until").lte(at(t))),
        )
        .and_where(col("name").is_in(names.iter().map(|(n, _)| *n)))
        .order_by(Alias::new("run_at"), Order::Asc)
        .limit(limit as u64)
        .lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
    let longest = names.iter().map(|(_, l)| *l).max().unwrap_or_default();
    let lease = names
        .iter()
        .fold(sea_query::CaseStatement::new(), |case, (name, l)| {
            case.case(col("name").eq(*name), Expr::val(at(t + *l)))
        });
    let mut s = Query::update();
    s.table(Alias::new(TABLE))
        .values(assignments(
            &JOB,
            &vals(&[
                ("status", Val::Text("running".into())),
                ("lockedBy", Val::Text(token.clone())),
                ("updatedAt", Val::Timestamp(t)),
            ]),
            b,
        ))
        .value(
            Alias::new("locked_until"),
            Expr::Case(Box::new(lease.finally(Expr::val(at(t + longest))))),
        )
        .value(Alias::new("attempts"), col("attempts").add(1))
        .and_where(col("id").in_subquery(due))
        .returning(returning(&JOB));
    let mut tx = db.relaxed(false).await?;
    let rows = fetch_all(&mut tx.exec(), &JOB, &s).await?;
    tx.done().await?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            Some(Claimed {
                id: r.id()?,
                name: r.text("name")?.to_owned(),
                payload: r.json("payload").unwrap_or(Value::Null),
                attempts: u32::try_from(r.int("attempts")?).ok()?,
                token: token.clone(),
            })
        })
        .collect())
}

/// Settles claimed jobs with `changes` in one transaction, each only while it is still held
/// under its lease token; for each, `false` when its lease was lost.
async fn settle(db: &Db, jobs: &[&Claimed], changes: &[(&str, Val)]) -> Result<Vec<bool>> {
    let mut set = vec![
        ("lockedUntil", Val::Null),
        ("lockedBy", Val::Null),
        ("updatedAt", Val::Timestamp(now())),
    ];
    set.extend(changes.iter().cloned());
    let set = vals(&set);
    let mut tx = db.relaxed(jobs.len() > 1).await?;
    let mut held = Vec::with_capacity(jobs.len());
    for job in jobs {
        let row = crate::repo::update_if(
            &mut tx.exec(),
            &JOB,
            job.id,
            &set,
            &vals(&[("lockedBy", Val::Text(job.token.clone()))]),
        )
        .await?;
        held.push(row.is_some());
    }
    tx.done().await?;
    Ok(held)
}

/// [`settle`] of one job.
async fn settle_one(db: &Db, job: &Claimed, changes: &[(&str, Val)]) -> Result<bool> {
    Ok(settle(db, &[job], changes).await?.first() == Some(&true))
}

/// Marks a claimed job done. `false` when the lease was lost (another worker took it over).
pub async fn finish(db: &Db, job: &Claimed) -> Result<bool> {
    settle_one(db, job, &[("status", Val::Text("done".into()))]).await
}

/// Extends the leases of jobs still running here to `lease` from now, never past each one's
/// deadline (on PostgreSQL each renewal its own write); only a job still running under its
/// token (`(id, token, deadline)`) is touched. Returns how many were.
pub async fn renew(
    db: &Db,
    running: &[(Uuid, String, OffsetDateTime)],
    lease: std::time::Duration,
) -> Result<usize> {
    let until = now() + lease;
    // Each renewal stands alone: no transaction around them.
    let mut tx = db.relaxed(false).await?;
    let mut held = 0;
    for (id, token, deadline) in running {
        let row = crate::repo::update_if(
            &mut tx.exec(),
            &JOB,
            *id,
            &vals(&[("lockedUntil", Val::Timestamp(Ord::min(until, *deadline)))]),
            &vals(&[
                ("lockedBy", Val::Text(token.clone())),
                ("status", Val::Text("running".into())),
            ]),
        )
        .await?;
        held += usize::from(row.is_some());
    }
    tx.done().await?;
    Ok(held)
}

/// Marks claimed jobs done in one transaction (the runner settles the jobs that ended together
/// at once: each settle was a write transaction of its own); for each, `false` when its lease
/// was lost.
pub async fn finish_all(db: &Db, jobs: &[&Claimed]) -> Result<Vec<bool>> {
    settle(db, jobs, &[("status", Val::Text("done".into()))]).await
}

/// A failed attempt: queued again at `retry_at`, or dead when `retry_at` is `None`.
pub async fn retry_or_bury(
    db: &Db,
    job: &Claimed,
    error: &str,
    retry_at: Option<OffsetDateTime>,
) -> Result<bool> {
    let error = Val::Text(error.chars().take(4000).collect());
    match retry_at {
        Some(t) => {
            settle_one(
                db,
                job,
                &[
                    ("status", Val::Text("queued".into())),
                    ("runAt", Val::Timestamp(t)),
                    ("lastError", error),
                ],
            )
            .await
        }
        None => {
            settle_one(
                db,
                job,
                &[("status", Val::Text("dead".into())), ("lastError", error)],
            )
            .await
        }
    }
}

/// Jobs by state (`queued`, `running`, `dead`), for metrics; counted through the status index.
pub async fn depth(db: &Db) -> Result<Vec<(&'static str, i64)>> {
    let mut c = db.read().await?;
    let mut out = Vec::with_capacity(3);
    for state in ["queued", "running", "dead"] {
        let q = FindQuery::all().eq(&JOB, "status", Val::Text(state.into()))?;
        let n = crate::repo::count(&mut c.exec(), &JOB, &q).await?;
        out.push((state, i64::try_from(n).unwrap_or(i64::MAX)));
    }
    Ok(out)
}

/// How long the oldest due job of each class has waited, in seconds (0 when none waits):
/// `foreground` (priority 0: payments, their orders) and `background` (priority 1: receipts,
/// mail). For metrics and the lag alert; the oldest queued job of a class ([`lag_statement`]).
pub async fn lag(db: &Db) -> Result<[(&'static str, f64); 2]> {
    let t = now();
    let mut c = db.read().await?;
    let mut out = [("foreground", 0.0), ("background", 0.0)];
    for (priority, slot) in (0i64..).zip(out.iter_mut()) {
        let rows = fetch_all(&mut c.exec(), &JOB, &lag_statement(priority)).await?;
        if let Some(at) = rows
            .first()
            .and_then(|r| r.text("runAt"))
            .and_then(stoa_kernel::value::parse_timestamp)
        {
            slot.1 = (t - at).as_seconds_f64().max(0.0);
        }
    }
    Ok(out)
}

/// The oldest queued job of class `priority`, through the partial index of unfinished jobs by
/// priority and due time: read at its first row however long the queue or the kept history.
/// (Through the status index it read and sorted every queued job, every 5 s and at every
/// metrics scrape, the most while a burst's backlog was longest.)
pub fn lag_statement(priority: i64) -> sea_query::SelectStatement {
    let mut s = crate::repo::base_select(&JOB);
    s.and_where(Expr::cust(UNFINISHED))
        .and_where(col("priority").eq(priority))
        .and_where(col("status").eq("queued"))
        .order_by(Alias::new("run_at"), Order::Asc)
        .limit(1);
    s
}

/// Deletes at most `limit` finished jobs last updated before `before` (dead ones stay for an
/// admin to see), in one short transaction; returns how many. Callers repeat it while it deletes
/// a whole batch, so a large backlog never holds the writer for long.
pub async fn prune(db: &Db, before: OffsetDateTime, limit: u64) -> Result<u64> {
    let b = db.backend();
    let mut old = Query::select();
    old.from(Alias::new(TABLE))
        .column(Alias::new("id"))
        .and_where(col("status").eq("done"))
        .and_where(col("updated_at").lt(val("updatedAt", Val::Timestamp(before), b)))
        .limit(limit);
    let mut s = Query::delete();
    s.from_table(Alias::new(TABLE))
        .and_where(col("id").in_subquery(old));
    let mut tx = db.begin().await?;
    let n = execute(&mut tx.exec(), &JOB, &s).await?;
    tx.commit().await?;
    Ok(n)
}
