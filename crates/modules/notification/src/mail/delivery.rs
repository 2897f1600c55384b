//! Delivery: one attempt at a queued notification, retries with backoff, resends, the due ones sent.

use stoa_kernel::model::Entity;
use stoa_kernel::query::{FilterValue, FindQuery, Op};

use super::*;
use crate::rows::NotificationRow;

/// Most other due emails one delivery takes along ([`Mailer::attempt`]).
const TAKE_ALONG: u64 = 31;
/// Emails of one batch sent at once (each over one of the transport's kept connections).
const SENDING_AT_ONCE: usize = 4;

/// What one attempt came to, to be written ([`Mailer::record_attempts`]).
struct Attempted {
    nid: Uuid,
    tried: i64,
    came: Came,
}

/// How an attempt went.
enum Came {
    /// Sent, with the secret as it was kept (JSON text; `None` when it had none).
    Sent(Option<String>),
    /// Not sent: the fields to write (the error; `failed` after the last attempt), and when to
    /// try again (not after the last attempt).
    NotSent {
        input: Map<String, Value>,
        retry_at: Option<time::OffsetDateTime>,
    },
}

/// The emails a delivery takes along at `at` ([`Mailer::attempt`]): `new`, by email, never
/// tried, due, oldest first, one more than [`TAKE_ALONG`] (the delivery's own may be among them).
/// The notification's lookup index (status, method, attempts, `sendAfter`) serves it to the
/// batch's end, however many mails the outbox has sent.
pub fn due_along_query(n: &Entity, at: time::OffsetDateTime) -> Result<FindQuery> {
    Ok(FindQuery::all()
        .eq(n, "status", Val::Text("new".into()))?
        .eq(n, "method", Val::Text(Channel::Email.as_str().into()))?
        .eq(n, "attempts", Val::Int(0))?
        .filter(
            n,
            "sendAfter",
            Op::Lte,
            FilterValue::One(Val::Timestamp(at)),
        )?
        .sort(n, "sendAfter", false)?
        .take(TAKE_ALONG + 1))
}

impl Mailer {
    /// One delivery attempt of `nid`, as the delivery job runs it. A notification that is not
    /// `new`, not yet due, or whose channel is not configured is left alone. An attempt is claimed
    /// by counting it first (so two runners never send one notification twice); after a failure
    /// the next attempt is queued after the backoff, until the last attempt marks the
    /// notification `failed` with the error.
    ///
    /// An email takes along the other emails already due (at most [`TAKE_ALONG`], oldest first):
    /// they are claimed in one transaction, sent over the transport's kept connections, a few at
    /// a time, and their outcomes written in one more. Their own jobs then find them sent. So a
    /// queue that falls behind (a burst of paid orders) is drained in ever larger batches, two
    /// write transactions a batch instead of two a mail.
    ///
    /// `expected`: the attempts the job was queued after (a job queued before jobs said so:
    /// whatever the notification has). A notification that had more meanwhile was taken along by
    /// another delivery, which sends it or queues its next attempt.
    pub async fn attempt(&self, nid: Uuid, expected: Option<i64>) -> Result<()> {
        let n = self.store.entity("notification.notification")?;
        let Some(row) = self.due(&n, nid).await? else {
            return Ok(());
        };
        if expected.is_some_and(|k| row.attempts.unwrap_or(0) != k) {
            return Ok(());
        }
        let channel = Channel::parse(row.method.as_deref().unwrap_or("email")).unwrap_or_default();
        if !self.delivers_by(channel) {
            // Never the body: it may hold a secret (a reset link). An admin reads it in the outbox.
            tracing::info!(notification = %nid, channel = channel.as_str(), title = row.title.as_deref().unwrap_or_default(),
                to = row.reciever.as_deref().unwrap_or_default(),
                "notification kept in the outbox (its channel is not configured): read it at {}/admin/notification/notification?open={nid}", self.public_url);
            return Ok(());
        }
        let mut batch = vec![row];
        if channel == Channel::Email {
            batch.extend(self.due_along(&n, nid).await?);
        }
        // Claimed in id order: two batches that overlap never wait on each other's rows in turn
        // (PostgreSQL would call that a deadlock).
        batch.sort_by_key(|r| r.id);
        let claimed = self.claim(&n, &batch).await?;
        let mine: Vec<&NotificationRow> = batch
            .iter()
            .zip(claimed)
            .filter_map(|(row, ok)| ok.then_some(row))
            .collect();
        let mut done = Vec::with_capacity(mine.len());
        for some in mine.chunks(SENDING_AT_ONCE) {
            let mut sends = Vec::with_capacity(some.len());
            for row in some {
                sends.push(self.attempt_one(row, channel));
            }
            done.extend(futures::future::join_all(sends).await);
        }
        self.record_attempts(&n, &done).await
    }

    /// Sends one claimed notification and says what to write about it.
    async fn attempt_one(&self, row: &NotificationRow, channel: Channel) -> Attempted {
        let outcome = self.deliver(row.id, row, channel).await;
        let tried = row.attempts.unwrap_or(0);
        Attempted {
            nid: row.id,
            tried,
            came: self.after_attempt(row.id, channel, tried, outcome),
        }
    }

    /// Notification `nid` when it is `new` and due; `None` when it is gone, sent, failed or not
    /// due yet.
    async fn due(&self, n: &Entity, nid: Uuid) -> Result<Option<NotificationRow>> {
        let row = match self.store.get(n, nid).await {
            Ok(r) => NotificationRow::of(&r)?,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if row.status.as_deref() != Some("new") {
            return Ok(None);
        }
        if row.send_after.is_some_and(|t| t > now()) {
            return Ok(None);
        }
        Ok(Some(row))
    }

    /// Other emails due now and never tried (`new`, their time come, no attempt yet: one that
    /// failed waits for its own next attempt, after its backoff), oldest first, at most
    /// [`TAKE_ALONG`] ([`due_along_query`]).
    async fn due_along(&self, n: &Entity, nid: Uuid) -> Result<Vec<NotificationRow>> {
        let page = self.store.find(n, &due_along_query(n, now())?).await?;
        page.rows
            .iter()
            .map(NotificationRow::of)
            .filter(|r| r.as_ref().map_or(true, |r| r.id != nid))
            .take(TAKE_ALONG as usize)
            .collect()
    }

    /// Claims the next attempt of each of `rows` by counting it, in one transaction: `false` for
    /// one that another runner counted first or that is no longer `new`.
    async fn claim(&self, n: &Entity, rows: &[NotificationRow]) -> Result<Vec<bool>> {
        let idx = |f: &str| {
            n.field_index(f)
                .ok_or_else(|| Error::internal(format!("notification.{f} is not declared")))
        };
        let (attempts, status) = (idx("attempts")?, idx("status")?);
        let mut tx = self.store.begin().await?;
        let mut claimed = Vec::with_capacity(rows.len());
        {
            let mut exec = tx.exec();
            for row in rows {
                let tried = row.attempts.unwrap_or(0);
                let r = repo::update_if(
                    &mut exec,
                    n,
                    row.id,
                    &[(attempts, Val::Int(tried + 1))],
                    &[
                        (attempts, Val::Int(tried)),
                        (status, Val::Text("new".into())),
                    ],
                )
                .await?;
                claimed.push(r.is_some());
            }
        }
        tx.commit().await?;
        Ok(claimed)
    }

    /// What attempt `tried + 1` of `nid` by `channel` came to (`outcome`: the kept secret when
    /// sent), counted and logged.
    fn after_attempt(
        &self,
        nid: Uuid,
        channel: Channel,
        tried: i64,
        outcome: Result<Option<String>>,
    ) -> Came {
        match outcome {
            Ok(secret) => {
                stoa_api::metrics::Metrics::outcome(
                    &stoa_api::metrics::METRICS.mail,
                    channel.as_str(),
                    "sent",
                );
                tracing::info!(notification = %nid, channel = channel.as_str(), attempt = tried + 1, "notification sent");
                Came::Sent(secret)
            }
            Err(e) => {
                let mut input = Map::new();
                let mut retry_at = None;
                let msg: String = e.public_message().chars().take(1000).collect();
                input.insert("error".into(), json!(msg));
                let last = tried + 1 >= i64::from(self.attempts);
                stoa_api::metrics::Metrics::outcome(
                    &stoa_api::metrics::METRICS.mail,
                    channel.as_str(),
                    if last { "failed" } else { "retry" },
                );
                if last {
                    input.insert("status".into(), json!("failed"));
                    tracing::error!(notification = %nid, attempt = tried + 1, error = %msg, "notification failed after its last attempt");
                } else {
                    let wait = self.backoff_after(u32::try_from(tried + 1).unwrap_or(u32::MAX));
                    tracing::warn!(notification = %nid, attempt = tried + 1, error = %msg, retry_in_s = wait.as_secs(), "notification not delivered; will retry");
                    retry_at = Some(now() + wait);
                }
                Came::NotSent { input, retry_at }
            }
        }
    }

    /// Writes what each attempt came to, in one transaction: a sent notification's secret is
    /// dropped, and the next attempt is queued at `retry_at` when given.
    async fn record_attempts(&self, n: &Entity, done: &[Attempted]) -> Result<()> {
        if done.is_empty() {
            return Ok(());
        }
        let s = &self.store;
        let mut tx = s.begin().await?;
        {
            let mut exec = tx.exec();
            for a in done {
                let nid = a.nid;
                match &a.came {
                    // Sent: the secret (a reset link, a confirmation code) is not kept — only its
                    // names, so the outbox shows where it stood — in the statement that marks it
                    // sent. A failed mail keeps it for an admin's retry, and only to the address
                    // it was made for.
                    Came::Sent(kept) => {
                        let names = kept
                            .as_deref()
                            .map_or(Val::Null, |t| Val::Text(secret_names(t)));
                        let set = [
                            ("status", Val::Text("sent".into())),
                            ("error", Val::Null),
                            ("updatedAt", Val::Timestamp(now())),
                            ("secretData", names),
                        ];
                        repo::set_if(&mut exec, n, nid, &set, &[])
                            .await?
                            .ok_or_else(|| Error::not_found(format!("notification {nid}")))?;
                    }
                    Came::NotSent { input, retry_at } => {
                        s.update_in(&mut exec, n, nid, input).await?;
                        if let Some(at) = retry_at {
                            jobs::enqueue(
                                &mut exec,
                                &NewJob::now(JOB_DELIVER, json!({"notification": nid}))
                                    .at(*at)
                                    .dedupe(format!("notification:{nid}:attempt:{}", a.tried + 1)),
                            )
                            .await?;
                        }
                    }
                }
            }
        }
        tx.commit().await
    }

    /// The wait after `failed` failed attempts: the base backoff, doubling, at most an hour.
    pub(super) fn backoff_after(&self, failed: u32) -> Duration {
        let factor = 2u32.saturating_pow(failed.saturating_sub(1).min(20));
        self.backoff
            .saturating_mul(factor)
            .min(Duration::from_secs(3600))
    }

    /// Sends `nid` again: a `failed` (or still `new`) notification is queued now with its
    /// attempts reset. Answers the notification's status afterwards.
    pub async fn resend(&self, nid: Uuid) -> Result<crate::views::SendResult> {
        let s = &self.store;
        let n = s.entity("notification.notification")?;
        let row = NotificationRow::of(&s.get(&n, nid).await?)?;
        let status = row.status.unwrap_or_default();
        if !matches!(status.as_str(), "new" | "failed") {
            return Ok(crate::views::SendResult {
                ok: true,
                status,
                queued: false,
                send_after: None,
            });
        }
        let due = row.send_after.unwrap_or_else(now);
        let at = if status == "failed" || due < now() {
            now()
        } else {
            due
        };
        let mut input = Map::new();
        input.insert("status".into(), json!("new"));
        input.insert("attempts".into(), json!(0));
        input.insert("sendAfter".into(), json!(rfc3339(at)?));
        let mut tx = s.begin().await?;
        {
            let mut exec = tx.exec();
            s.update_in(&mut exec, &n, nid, &input).await?;
            jobs::enqueue(
                &mut exec,
                &deliver_job(nid, 0)
                    .at(at)
                    .dedupe(format!("notification:{nid}:resend:{}", Uuid::now_v7())),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(crate::views::SendResult {
            ok: true,
            status: "new".into(),
            queued: true,
            send_after: Some(rfc3339(at)?),
        })
    }

    /// Queues every `new` notification that is due (at most `cap`): what an admin's "send all"
    /// does after a channel was configured. Answers how many were queued.
    pub async fn send_due(&self, cap: u64) -> Result<usize> {
        let s = &self.store;
        let n = s.entity("notification.notification")?;
        let q = stoa_kernel::query::FindQuery::all()
            .eq(&n, "status", Val::Text("new".into()))?
            .filter(
                &n,
                "sendAfter",
                stoa_kernel::query::Op::Lte,
                stoa_kernel::query::FilterValue::One(Val::Timestamp(now())),
            )?
            .take(cap);
        let due = s.find(&n, &q).await?.rows;
        let mut tx = s.begin().await?;
        let mut queued = 0;
        {
            let mut exec = tx.exec();
            for r in &due {
                let r = NotificationRow::of(r)?;
                let id = r.id;
                let job = deliver_job(id, r.attempts.unwrap_or(0))
                    .dedupe(format!("notification:{id}:due:{}", r.attempts.unwrap_or(0)));
                if jobs::enqueue(&mut exec, &job).await?.is_some() {
                    queued += 1;
                }
            }
        }
        tx.commit().await?;
        Ok(queued)
    }
}
