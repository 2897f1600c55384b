//! The minute's sweep: workers for endpoints left with due deliveries, and old deliveries and
//! events deleted, a bounded batch of each.

use serde_json::json;
use stoa_kernel::Result;
use stoa_kernel::query::{FilterValue, FindQuery, Op};
use stoa_kernel::value::{Val, now};
use stoa_store::Record;
use stoa_store::jobs::{NewJob, enqueue};
use time::OffsetDateTime;

use super::{Hooks, PUMP_JOB, fail, ts};
use crate::rows::{DeliveryRow, EndpointRow};

impl Hooks {
    /// The minute's upkeep (a bounded batch of each, so a run costs the same however much is
    /// kept):
    /// - an active endpoint whose oldest delivery is due gets a worker (one that died mid-batch
    ///   left it, or a wake-up lost a race);
    /// - deliveries of endpoints that are gone are removed;
    /// - a delivery still waiting after `STOA_HOOKS_KEEP_DAYS` is given up (an endpoint left
    ///   off cannot fill the disk);
    /// - finished deliveries unchanged for that long are deleted, then the events left without
    ///   any, scanning forward from where the last run stopped (so kept ones never stall it).
    pub async fn sweep(&self) -> Result<()> {
        let endpoints = self.store.all(&self.t.endpoint, 10_000).await?;
        self.wake_due(&endpoints).await?;
        self.remove_orphans(&endpoints).await?;
        let cutoff = now() - self.settings.keep;
        self.give_up_stale(cutoff).await?;
        self.delete_finished(cutoff).await?;
        self.prune_events(cutoff).await
    }

    /// A worker for each active endpoint whose oldest delivery is due.
    async fn wake_due(&self, endpoints: &[Record]) -> Result<()> {
        let minute = now().unix_timestamp() / 60;
        for e in endpoints {
            let e = EndpointRow::of(e)?;
            if e.is_active != Some(true) {
                continue;
            }
            let id = e.id;
            let due = self
                .head(id)
                .await?
                .and_then(|h| h.next_attempt_at)
                .is_some_and(|at| at <= now());
            if due {
                let job = NewJob::now(PUMP_JOB, json!({"endpoint": id}))
                    .dedupe(format!("{PUMP_JOB}:{id}:sweep:{minute}"));
                let mut tx = self.store.begin().await?;
                enqueue(&mut tx.exec(), &job).await?;
                tx.commit().await?;
            }
        }
        Ok(())
    }

    /// Removes deliveries to endpoints that are gone (not one of `endpoints`).
    async fn remove_orphans(&self, endpoints: &[Record]) -> Result<()> {
        let ids: Vec<Val> = endpoints
            .iter()
            .filter_map(|e| e.id())
            .map(Val::Uuid)
            .collect();
        let orphans = FindQuery::all();
        let orphans = if ids.is_empty() {
            orphans
        } else {
            orphans.filter(
                &self.t.delivery,
                "endpointId",
                Op::NotInArray,
                FilterValue::Many(ids),
            )?
        }
        .take(500);
        for d in self.store.find(&self.t.delivery, &orphans).await?.rows {
            self.store.delete(&self.t.delivery, d.must_id()?).await?;
        }
        Ok(())
    }

    /// Gives up deliveries written before `cutoff` and still waiting.
    async fn give_up_stale(&self, cutoff: OffsetDateTime) -> Result<()> {
        let stale = FindQuery::all()
            .eq(&self.t.delivery, "status", Val::Text("pending".into()))?
            .filter(
                &self.t.delivery,
                "createdAt",
                Op::Lt,
                FilterValue::One(ts(cutoff)),
            )?
            .sort(&self.t.delivery, "createdAt", false)?
            .take(200);
        for d in self.store.find(&self.t.delivery, &stale).await?.rows {
            let d = DeliveryRow::of(&d)?;
            let why = fail(&format!(
                "not delivered within {} days (STOA_HOOKS_KEEP_DAYS); given up",
                self.settings.keep.whole_days()
            ));
            self.finish(d.id, "failed", d.attempts.unwrap_or(0), None, &why)
                .await?;
        }
        Ok(())
    }

    /// Deletes finished deliveries unchanged since `cutoff`.
    async fn delete_finished(&self, cutoff: OffsetDateTime) -> Result<()> {
        let finished = FindQuery::all()
            .filter(
                &self.t.delivery,
                "status",
                Op::NotInArray,
                FilterValue::Many(vec![Val::Text("pending".into())]),
            )?
            .filter(
                &self.t.delivery,
                "updatedAt",
                Op::Lt,
                FilterValue::One(ts(cutoff)),
            )?
            .take(500);
        for d in self.store.find(&self.t.delivery, &finished).await?.rows {
            self.store.delete(&self.t.delivery, d.must_id()?).await?;
        }
        Ok(())
    }

    /// Deletes events written before `cutoff` that no delivery is left of, a batch at a time
    /// from where the last run stopped.
    async fn prune_events(&self, cutoff: OffsetDateTime) -> Result<()> {
        let after = self.prune_after.lock().map(|a| *a).unwrap_or(None);
        let mut old = FindQuery::all().filter(
            &self.t.event,
            "createdAt",
            Op::Lt,
            FilterValue::One(ts(cutoff)),
        )?;
        if let Some(a) = after {
            old = old.filter(&self.t.event, "id", Op::Gt, FilterValue::One(Val::Uuid(a)))?;
        }
        let old = old.sort(&self.t.event, "id", false)?.take(200);
        let events = self.store.find(&self.t.event, &old).await?.rows;
        let last = if events.len() < 200 {
            None
        } else {
            events.last().and_then(Record::id)
        };
        for event in events {
            let id = event.must_id()?;
            let any = FindQuery::all()
                .eq(&self.t.delivery, "eventId", Val::Uuid(id))?
                .take(1);
            if self
                .store
                .find(&self.t.delivery, &any)
                .await?
                .rows
                .is_empty()
            {
                self.store.delete(&self.t.event, id).await?;
            }
        }
        if let Ok(mut a) = self.prune_after.lock() {
            *a = last;
        }
        Ok(())
    }
}
