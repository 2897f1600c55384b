//! The job runner: enqueues scheduled jobs when their period starts, claims due jobs, runs each
//! under its timeout, and records the outcome — done, queued again after a backoff, or dead after
//! its last attempt. A panicking job counts as a failed attempt.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use stoa_kernel::Result;
use stoa_kernel::value::now;
use stoa_store::jobs::{self, Claimed, NewJob};

use crate::module::{Context, JobDef, Schedule};

/// A uuid argument of a job's payload (`{"order": "…"}`); without it the job can never run, so
/// it is buried at once.
pub fn uuid_arg(payload: &serde_json::Value, key: &str) -> crate::module::ModuleResult<uuid::Uuid> {
    payload
        .get(key)
        .and_then(serde_json::Value::as_str)
        .and_then(|s| uuid::Uuid::parse_str(s).ok())
        .ok_or_else(|| {
            crate::module::ModuleError::payload(format!("the job's payload needs the uuid {key}"))
        })
}

/// How long a settled job's slot may wait for others before the runner claims (see `run`).
const CLAIM_COALESCE: Duration = Duration::from_millis(2);
/// How long no foreground job may have run or been found before background work may take more
/// than its share of the slots (see [`background_cap`]).
const FOREGROUND_IDLE: Duration = Duration::from_millis(500);
/// The most finished jobs marked done in one transaction.
const SETTLE_MAX: usize = 256;
/// While `run` runs, a claimed job is leased for this long at a time (at most its timeout and a
/// margin) and its lease is renewed every quarter of it while it runs: a job that was running
/// when its process died is claimable again within a minute, not after its whole timeout.
const RENEWED_LEASE: Duration = Duration::from_secs(60);

/// The longest an attempt of `def` may hold its job: its timeout and a margin (what a claim
/// without renewal leases it for, and the furthest renewals extend it).
fn full_lease(def: &JobDef) -> Duration {
    def.timeout + Duration::from_secs(30)
}

/// A finished job waiting to be marked done, and who waits for the answer.
type Finished = (Claimed, tokio::sync::oneshot::Sender<Result<bool>>);

pub struct Runner {
    ctx: Arc<Context>,
    jobs: HashMap<&'static str, JobDef>,
    schedules: Vec<Schedule>,
    /// The period each schedule was last enqueued for (so a tick writes only when one starts).
    enqueued: Mutex<HashMap<&'static str, i64>>,
    /// Jobs run at once per tick.
    pub concurrency: usize,
    /// Pause between ticks when nothing was due.
    pub poll: Duration,
    /// While `run` runs: where finished jobs go to be marked done together (see [`settle`]).
    finished: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<Finished>>,
    /// How long `run` leases a job at a time, renewing it while it runs ([`RENEWED_LEASE`]).
    pub lease: Duration,
    /// The jobs running now: lease token and the latest their lease may be renewed to (what
    /// `run` renews).
    running: Mutex<HashMap<uuid::Uuid, (String, time::OffsetDateTime)>>,
    /// How long the oldest due background job may wait before `run` warns (zero: never).
    pub lag_alert: Duration,
}

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    pub ran: usize,
    pub failed: usize,
}

impl Runner {
    pub fn new(
        ctx: Arc<Context>,
        jobs: HashMap<&'static str, JobDef>,
        schedules: Vec<Schedule>,
    ) -> Self {
        let background: Vec<&str> = jobs
            .values()
            .filter(|j| j.background)
            .map(|j| j.name)
            .collect();
        jobs::set_background(&background);
        Self {
            ctx,
            jobs,
            schedules,
            enqueued: Mutex::new(HashMap::new()),
            concurrency: 4,
            poll: Duration::from_secs(1),
            finished: std::sync::OnceLock::new(),
            lease: RENEWED_LEASE,
            running: Mutex::new(HashMap::new()),
            lag_alert: Duration::from_secs(60),
        }
    }

    /// Enqueues each schedule's job when its period starts (once across all instances: the
    /// dedupe key names the period).
    pub async fn enqueue_schedules(&self) -> Result<()> {
        let t = now();
        let secs = t.unix_timestamp();
        for s in &self.schedules {
            let every = s.every.as_secs().max(1) as i64;
            let slot = secs.div_euclid(every);
            let seen = self
                .enqueued
                .lock()
                .map(|m| m.get(s.job) == Some(&slot))
                .unwrap_or(false);
            if seen {
                continue;
            }
            let start = time::OffsetDateTime::from_unix_timestamp(slot * every).unwrap_or(t);
            let job = NewJob::now(s.job, s.payload.clone())
                .at(start)
                .dedupe(format!("schedule:{}:{slot}", s.job));
            jobs::enqueue_now(&self.ctx.store.db, &job).await?;
            if let Ok(mut m) = self.enqueued.lock() {
                m.insert(s.job, slot);
            }
        }
        Ok(())
    }

    /// One pass (tests drain the queue with it): schedules, then up to `concurrency` due jobs, run
    /// concurrently.
    pub async fn tick(&self) -> Result<Tick> {
        self.enqueue_schedules().await?;
        let names = self.leases();
        let mut claimed = jobs::claim(&self.ctx.store.db, &names, 0, self.concurrency).await?;
        let rest = self.concurrency - claimed.len();
        if rest > 0 {
            claimed.extend(jobs::claim(&self.ctx.store.db, &names, 1, rest).await?);
        }
        let outcomes =
            futures::future::join_all(claimed.into_iter().map(|job| self.run_one(job))).await;
        let mut tick = Tick::default();
        for ok in outcomes {
            tick.ran += 1;
            if !ok? {
                tick.failed += 1;
            }
        }
        Ok(tick)
    }

    /// Runs one claimed job and records its outcome; `Ok(false)` when the attempt failed.
    async fn run_one(&self, job: Claimed) -> Result<bool> {
        let db = &self.ctx.store.db;
        let Some(def) = self.jobs.get(job.name.as_str()) else {
            jobs::retry_or_bury(db, &job, "no module declares this job", None).await?;
            return Ok(false);
        };
        // Renewed while it runs, never past its timeout and the margin its full lease had (a job
        // stuck on a thread it never yields would otherwise be renewed for ever).
        let _running = Running::new(&self.running, &job, now() + full_lease(def));
        // Background work sees drafts (publishing them is one of its jobs).
        let run =
            stoa_store::publish::with_drafts((def.run)(self.ctx.clone(), job.payload.clone()));
        let outcome = tokio::time::timeout(
            def.timeout,
            std::panic::AssertUnwindSafe(run).catch_unwind(),
        )
        .await;
        // (The error, and whether another attempt may succeed.)
        let error = match outcome {
            Ok(Ok(Ok(()))) => None,
            Ok(Ok(Err(e))) => Some((e.to_string(), e.retried())),
            Ok(Err(_)) => Some(("the job panicked".to_owned(), true)),
            Err(_) => Some((format!("timed out after {} s", def.timeout.as_secs()), true)),
        };
        match error {
            None => {
                if !self.finish(job.clone()).await? {
                    tracing::warn!(job = %job.name, id = %job.id, "job finished after losing its lease");
                }
                tracing::info!(job = %job.name, id = %job.id, attempt = job.attempts, "job done");
                crate::metrics::Metrics::outcome(&crate::metrics::METRICS.jobs, def.name, "done");
                Ok(true)
            }
            Some((e, again)) => {
                // A payload the job can never run is buried at once.
                let retry = (again && job.attempts < def.max_attempts)
                    .then(|| now() + def.delay_after(job.attempts));
                if !again {
                    tracing::error!(job = %job.name, id = %job.id, attempt = job.attempts, error = %e, "job dead: its payload can never run");
                } else if retry.is_none() {
                    tracing::error!(job = %job.name, id = %job.id, attempt = job.attempts, error = %e, "job dead after its last attempt");
                } else {
                    tracing::warn!(job = %job.name, id = %job.id, attempt = job.attempts, error = %e, "job failed; will retry");
                }
                crate::metrics::Metrics::outcome(
                    &crate::metrics::METRICS.jobs,
                    def.name,
                    if retry.is_some() { "retry" } else { "dead" },
                );
                jobs::retry_or_bury(db, &job, &e, retry).await?;
                Ok(false)
            }
        }
    }

    /// Marks a job that ran to its end done: with the others that ended meanwhile while `run`
    /// runs, on its own otherwise (`tick`). `false` when its lease was lost.
    async fn finish(&self, job: Claimed) -> Result<bool> {
        let Some(to) = self.finished.get() else {
            return jobs::finish(&self.ctx.store.db, &job).await;
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        if let Err(tokio::sync::mpsc::error::SendError((job, _))) = to.send((job, tx)) {
            return jobs::finish(&self.ctx.store.db, &job).await;
        }
        rx.await.unwrap_or_else(|_| {
            Err(stoa_kernel::Error::Unavailable(
                "the job runner stopped before the job was marked done".into(),
            ))
        })
    }

    /// `(name, lease)` of every job: an attempt holds its lease for the job's timeout and a
    /// margin. Both classes claim among all names (by priority): a background job written before
    /// its class was known (priority 0) still runs.
    fn leases(&self) -> Vec<(&'static str, Duration)> {
        self.jobs
            .values()
            .map(|j| (j.name, full_lease(j)))
            .collect()
    }

    /// [`Self::leases`] cut to [`Runner::lease`]: what `run` claims with, renewing as jobs run.
    fn renewed_leases(&self) -> Vec<(&'static str, Duration)> {
        self.leases()
            .into_iter()
            .map(|(name, l)| (name, l.min(self.lease)))
            .collect()
    }

    /// Runs jobs until `stop` resolves: up to `concurrency` at once, each slot refilled as soon as
    /// its job settles (a slow job holds one slot, not the whole pass). The runner claims when a
    /// slot frees, when a due job is enqueued (`jobs::wake`: rung after the enqueuing transaction
    /// commits, here or on another instance), and every `poll` for work scheduled for later. Errors (a database gone for a moment) are
    /// logged and retried.
    pub async fn run(self, stop: impl std::future::Future<Output = ()> + Send) {
        if self.jobs.is_empty() {
            stop.await;
            return;
        }
        let (finished, queue) = tokio::sync::mpsc::unbounded_channel();
        let _ = self.finished.set(finished);
        tokio::spawn(settle(self.ctx.store.db.clone(), queue));
        let me = Arc::new(self);
        tokio::spawn(renew(Arc::downgrade(&me)));
        crate::metrics::METRICS
            .job_lag_alert
            .set(me.lag_alert.as_secs_f64());
        tokio::spawn(watch_lag(Arc::downgrade(&me)));
        let slots = Arc::new(tokio::sync::Semaphore::new(me.concurrency));
        // Background jobs hold at most `background_cap` of the slots: the permits of `quiet`
        // beyond the cap of the moment are left unused.
        let most_quiet = background_cap(me.concurrency, true);
        let quiet = Arc::new(tokio::sync::Semaphore::new(most_quiet));
        let mut foreground_seen = std::time::Instant::now();
        let settled = Arc::new(tokio::sync::Notify::new());
        let names = me.renewed_leases();
        let wake = jobs::wake();
        // Per class: whether a claim may find work — jobs of it became due since the last claim
        // (`jobs::due_count`), the last claim filled every free slot, or the poll came round
        // (work scheduled for later, a lease run out). A claim that found fewer jobs than it
        // asked for clears it: the next claim of that class waits for a reason.
        let mut maybe = [true; jobs::CLASSES];
        let mut seen = [0; jobs::CLASSES];
        // Ticks whatever else wakes the loop (a sleep restarted on every wake never ran out
        // under load).
        let mut poll = tokio::time::interval_at(tokio::time::Instant::now() + me.poll, me.poll);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(stop);
        loop {
            if let Err(e) = me.enqueue_schedules().await {
                tracing::error!(error = %e, "job runner could not enqueue schedules");
            }
            for (priority, class) in [(0_usize, None), (1, Some(&quiet))] {
                let count = jobs::due_count(priority);
                if count != seen[priority] {
                    seen[priority] = count;
                    maybe[priority] = true;
                }
                // The permits tell who runs: a background job holds one of each semaphore, a
                // foreground job one slot only (both given back when its task ends, or unwinds).
                let background_running = most_quiet - quiet.available_permits();
                if me.concurrency - slots.available_permits() > background_running {
                    foreground_seen = std::time::Instant::now();
                }
                let free = slots.available_permits().min(class.map_or(usize::MAX, |_| {
                    let idle = foreground_seen.elapsed() >= FOREGROUND_IDLE;
                    background_cap(me.concurrency, idle).saturating_sub(background_running)
                }));
                if free == 0 || names.is_empty() || !maybe[priority] {
                    continue;
                }
                let claimed =
                    match jobs::claim(&me.ctx.store.db, &names, priority as i64, free).await {
                        Ok(c) => c,
                        Err(e) => {
                            tracing::error!(error = %e, "job runner could not claim jobs");
                            continue;
                        }
                    };
                maybe[priority] = claimed.len() >= free;
                if priority == 0 && !claimed.is_empty() {
                    foreground_seen = std::time::Instant::now();
                }
                crate::metrics::METRICS
                    .job_claims
                    .get_or_create(&crate::metrics::OutcomeLabels {
                        kind: ["foreground", "background"][priority].to_owned(),
                        outcome: if claimed.is_empty() { "empty" } else { "found" },
                    })
                    .inc();
                for job in claimed {
                    let (Ok(permit), extra) = (
                        slots.clone().try_acquire_owned(),
                        class.map(|q| q.clone().try_acquire_owned()),
                    ) else {
                        break;
                    };
                    let (me, settled) = (me.clone(), settled.clone());
                    tokio::spawn(async move {
                        if let Err(e) = me.run_one(job).await {
                            tracing::error!(error = %e, "job runner could not settle a job");
                        }
                        drop((permit, extra));
                        settled.notify_one();
                    });
                }
            }
            // With every slot busy, the next claim waits for one to free.
            let full = slots.available_permits() == 0;
            tokio::select! {
                _ = &mut stop => return,
                () = settled.notified() => {
                    // Claims are not free (one statement on the writer): while most slots are
                    // still busy, let a few more jobs settle so one claim fills several slots.
                    if slots.available_permits() < (me.concurrency / 8).max(1) {
                        tokio::time::sleep(CLAIM_COALESCE).await;
                    }
                }
                () = wake.notified(), if !full => {}
                _ = poll.tick() => maybe = [true; jobs::CLASSES],
            }
        }
    }
}

/// The most background jobs (receipts, mail) [`Runner::run`] holds at once: an eighth of its
/// slots (at least one) while foreground work (payments) ran or was found within
/// [`FOREGROUND_IDLE`], so a burst of payments is not slowed by the work it causes; half of them
/// once the foreground has been idle that long, so the work a burst left behind drains on the
/// whole machine (an eighth kept the drain after `bench/checkout.sh`'s load to about one core of
/// two). When payments come again, claims fall back to the eighth at once and the slots of the
/// background jobs in flight come back as they end (each a few milliseconds of CPU).
fn background_cap(concurrency: usize, foreground_idle: bool) -> usize {
    let busy = (concurrency / 8).max(1);
    if foreground_idle {
        (concurrency / 2).max(busy)
    } else {
        busy
    }
}

/// How often [`watch_lag`] reads the lag.
const LAG_EVERY: Duration = Duration::from_secs(5);

/// Reads how far each class of jobs is behind every [`LAG_EVERY`] while the runner runs (the
/// `stoa_job_lag_seconds` gauges between scrapes), and warns once when the background work's
/// lag passes [`Runner::lag_alert`], then once when it is back under half of it. Payments are
/// foreground jobs and are claimed first: background work never slows them, so its lag is what
/// grows under a spike, and what an operator is told about.
async fn watch_lag(runner: std::sync::Weak<Runner>) {
    let m = &crate::metrics::METRICS;
    let mut alerting = false;
    loop {
        tokio::time::sleep(LAG_EVERY).await;
        let Some(r) = runner.upgrade() else {
            return;
        };
        let alert = r.lag_alert.as_secs_f64();
        let lag = match jobs::lag(&r.ctx.store.db).await {
            Ok(lag) => lag,
            Err(e) => {
                tracing::warn!(error = %e, "the job lag could not be read");
                continue;
            }
        };
        for (state, s) in lag {
            m.job_lag
                .get_or_create(&crate::metrics::StateLabels { state })
                .set(s);
        }
        let behind = lag[1].1;
        if alert > 0.0 && !alerting && behind > alert {
            alerting = true;
            tracing::warn!(
                lag_s = behind.round(),
                alert_s = alert,
                "background work (receipts, mail) is falling behind: its oldest due job has waited longer than STOA_JOB_LAG_ALERT"
            );
        } else if alerting && behind < alert / 2.0 {
            alerting = false;
            tracing::info!(lag_s = behind.round(), "background work has caught up");
        }
    }
}

/// Marks finished jobs done, those that ended together in one transaction: while one batch
/// waits for its commit, the next gathers. Ends when the runner and its running jobs are gone.
async fn settle(db: stoa_store::db::Db, mut queue: tokio::sync::mpsc::UnboundedReceiver<Finished>) {
    let mut batch = Vec::with_capacity(SETTLE_MAX);
    while queue.recv_many(&mut batch, SETTLE_MAX).await > 0 {
        // In id order: two instances' settlers never wait on each other's rows in turns.
        batch.sort_by_key(|(job, _)| job.id);
        let done: Vec<&Claimed> = batch.iter().map(|(job, _)| job).collect();
        match jobs::finish_all(&db, &done).await {
            Ok(held) => {
                for ((_, reply), held) in batch.drain(..).zip(held) {
                    let _ = reply.send(Ok(held));
                }
            }
            Err(e) => {
                // The batch is undone as a whole: each job is settled on its own again, so one
                // failure does not send every job of the batch back to run after its lease.
                tracing::warn!(error = %e, jobs = batch.len(), "settling jobs together failed; one by one");
                for (job, reply) in batch.drain(..) {
                    let _ = reply.send(jobs::finish(&db, &job).await);
                }
            }
        }
    }
}

/// A job in [`Runner::running`] while it runs.
struct Running<'a> {
    all: &'a Mutex<HashMap<uuid::Uuid, (String, time::OffsetDateTime)>>,
    id: uuid::Uuid,
    token: String,
}

impl<'a> Running<'a> {
    fn new(
        all: &'a Mutex<HashMap<uuid::Uuid, (String, time::OffsetDateTime)>>,
        job: &Claimed,
        deadline: time::OffsetDateTime,
    ) -> Self {
        if let Ok(mut m) = all.lock() {
            m.insert(job.id, (job.token.clone(), deadline));
        }
        Self {
            all,
            id: job.id,
            token: job.token.clone(),
        }
    }
}

impl Drop for Running<'_> {
    /// Leaves the map only if the entry is still this run's: the same job claimed again here
    /// after this run lost its lease has its own.
    fn drop(&mut self) {
        if let Ok(mut m) = self.all.lock()
            && m.get(&self.id).is_some_and(|(t, _)| *t == self.token)
        {
            m.remove(&self.id);
        }
    }
}

/// Renews the leases of the jobs running under `runner` every quarter of its lease, until the
/// runner and its running jobs are gone.
async fn renew(runner: std::sync::Weak<Runner>) {
    loop {
        let every = match runner.upgrade() {
            Some(r) => r.lease / 4,
            None => return,
        };
        tokio::time::sleep(every.max(Duration::from_millis(10))).await;
        let Some(r) = runner.upgrade() else { return };
        let mut running: Vec<(uuid::Uuid, String, time::OffsetDateTime)> = r
            .running
            .lock()
            .map(|m| m.iter().map(|(id, (t, d))| (*id, t.clone(), *d)).collect())
            .unwrap_or_default();
        if running.is_empty() {
            continue;
        }
        // In id order, as the settler marks jobs done: the two never wait on each other's rows
        // in turns (PostgreSQL).
        running.sort_by_key(|(id, _, _)| *id);
        match jobs::renew(&r.ctx.store.db, &running, r.lease).await {
            Ok(held) if held < running.len() => tracing::debug!(
                renewed = held,
                running = running.len(),
                "some running jobs were settled meanwhile or lost their lease"
            ),
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, jobs = running.len(), "job leases could not be renewed; retrying")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claimed(id: uuid::Uuid, token: &str) -> Claimed {
        Claimed {
            id,
            name: "t.job".into(),
            payload: serde_json::Value::Null,
            attempts: 1,
            token: token.into(),
        }
    }

    #[test]
    fn background_work_takes_half_the_slots_only_while_the_foreground_is_idle() {
        // SQLite's default: 8 while payments run, 32 after; PostgreSQL's: 2 and 8.
        assert_eq!(background_cap(64, false), 8);
        assert_eq!(background_cap(64, true), 32);
        assert_eq!(background_cap(16, false), 2);
        assert_eq!(background_cap(16, true), 8);
        // Never none, and never less when idle.
        for n in 1..40 {
            assert!(background_cap(n, false) >= 1);
            assert!(background_cap(n, true) >= background_cap(n, false));
            assert!(background_cap(n, true) <= n);
        }
    }

    /// A run that lost its lease and ends after the same job was claimed again here leaves the
    /// new run's entry (so the new run is still renewed).
    #[test]
    fn an_old_run_leaves_the_new_runs_entry() {
        let all = Mutex::new(HashMap::new());
        let id = uuid::Uuid::new_v4();
        let first = Running::new(&all, &claimed(id, "first"), now());
        let second = Running::new(&all, &claimed(id, "second"), now());
        drop(first);
        assert_eq!(
            all.lock().unwrap().get(&id).map(|(t, _)| t.as_str()),
            Some("second")
        );
        drop(second);
        assert!(all.lock().unwrap().is_empty());
    }
}
