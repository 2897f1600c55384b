//! Upkeep: replays, the inbox's expiry and sweep, the dummy provider's payment, paid times.

use super::*;

impl Billing {
    /// Puts an inbox entry back to `received` and enqueues its job again (admin replay).
    pub async fn replay(&self, id: Uuid) -> Result<Record> {
        let mut tx = self.store.begin().await?;
        let row = {
            let mut exec = tx.exec();
            let row = repo::set_if(
                &mut exec,
                &self.e.webhook,
                id,
                &[
                    ("status", Val::Text("received".into())),
                    ("result", Val::Text("replayed by an admin".into())),
                ],
                &[],
            )
            .await?
            .ok_or_else(|| Error::not_found(format!("billing.webhook {id} not found")))?;
            enqueue(&mut exec, &NewJob::now(JOB_WEBHOOK, json!({"id": id}))).await?;
            row
        };
        tx.commit().await?;
        Ok(row)
    }

    /// Deletes rejected and ignored inbox entries older than the retention
    /// (`STOA_WEBHOOK_RETENTION_DAYS`), at most [`RETENTION_BATCHES`] batches a run; accepted
    /// entries are kept with their invoice. Returns how many went.
    pub async fn expire_inbox(&self) -> Result<usize> {
        self.expire_inbox_before(now() - time::Duration::days(self.retention_days as i64))
            .await
    }

    /// Deletes rejected and ignored inbox entries that arrived before `before`.
    pub async fn expire_inbox_before(&self, before: time::OffsetDateTime) -> Result<usize> {
        let mut gone = 0;
        for _ in 0..RETENTION_BATCHES {
            let q = stoa_kernel::query::FindQuery::all()
                .filter(
                    &self.e.webhook,
                    "status",
                    stoa_kernel::query::Op::InArray,
                    stoa_kernel::query::FilterValue::Many(vec![
                        Val::Text("rejected".into()),
                        Val::Text("ignored".into()),
                    ]),
                )?
                .filter(
                    &self.e.webhook,
                    "createdAt",
                    stoa_kernel::query::Op::Lt,
                    stoa_kernel::query::FilterValue::One(Val::Timestamp(before)),
                )?
                .take(RETENTION_BATCH);
            let old = self
                .store
                .find_in_query(&self.e.webhook, q, RETENTION_BATCH as usize)
                .await?;
            if old.is_empty() {
                break;
            }
            let mut tx = self.store.begin().await?;
            {
                let mut exec = tx.exec();
                for row in &old {
                    repo::delete(&mut exec, &self.e.webhook, Record::must_id(row)?).await?;
                }
            }
            tx.commit().await?;
            gone += old.len();
            if old.len() < RETENTION_BATCH as usize {
                break;
            }
        }
        if gone > 0 {
            tracing::info!(
                entries = gone,
                "old rejected and ignored webhooks were deleted"
            );
        }
        Ok(gone)
    }

    /// Accepted inbox entries still `received` [`INBOX_STALE`] after they arrived get a job that
    /// applies them: a webhook job can die after its last attempt (a database away for longer),
    /// and entries written by earlier versions' dummy job had none. Applying claims the
    /// entry, so an entry whose own job still comes is applied once either way. Each entry is
    /// re-queued at most once per period; at most [`INBOX_SWEEP_MAX`] a run. Returns how many.
    pub async fn sweep_inbox(&self) -> Result<usize> {
        let before = now() - time::Duration::try_from(INBOX_STALE).unwrap_or(time::Duration::ZERO);
        let q = stoa_kernel::query::FindQuery::all()
            .eq(&self.e.webhook, "status", Val::Text("received".into()))?
            .filter(
                &self.e.webhook,
                "createdAt",
                stoa_kernel::query::Op::Lt,
                stoa_kernel::query::FilterValue::One(Val::Timestamp(before)),
            )?
            .take(INBOX_SWEEP_MAX as u64);
        let waiting = self
            .store
            .find_in_query(&self.e.webhook, q, INBOX_SWEEP_MAX)
            .await?;
        if waiting.is_empty() {
            return Ok(0);
        }
        let period = now().unix_timestamp() / INBOX_STALE.as_secs() as i64;
        let mut tx = self.store.begin().await?;
        let mut queued = 0;
        {
            let mut exec = tx.exec();
            for row in &waiting {
                let id = Record::must_id(row)?;
                let job = NewJob::now(JOB_WEBHOOK, json!({"id": id}))
                    .dedupe(format!("inbox-sweep:{id}:{period}"));
                if enqueue(&mut exec, &job).await?.is_some() {
                    queued += 1;
                }
            }
        }
        tx.commit().await?;
        if queued > 0 {
            tracing::warn!(
                entries = queued,
                "webhooks left waiting in the inbox were queued again"
            );
        }
        Ok(queued)
    }

    /// The dummy provider's own webhook, run as a job after the configured delay. It goes
    /// through the inbox like any provider's webhook (verified, assessed, recorded), and is
    /// applied in the transaction that writes its entry instead of by another job (one write
    /// transaction per payment, not two). Applying claims the entry (`received` → `processed`),
    /// so it happens once whoever gets there first; when applying fails, the entry is kept with
    /// its own job (this one ends), and a copy of the same webhook finds that entry waiting and
    /// applies it.
    pub async fn dummy_pay(&self, payload: &Value) -> stoa_api::module::ModuleResult<()> {
        let invoice = stoa_api::jobs::uuid_arg(payload, "invoice")?;
        let row = InvoiceRow::of(&self.store.get(&self.e.invoice, invoice).await?)?;
        let token = row.provider_id.unwrap_or_default();
        let body = json!({"data": {"id": invoice, "token": token, "status": "paid"}}).to_string();
        let received = self
            .receive_as(
                "dummy",
                vec![("content-type".into(), "application/json".into())],
                body.as_bytes(),
                false,
            )
            .await?;
        if let Some(id) = received.pending {
            let outcome = self.process(id).await?;
            tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
        }
        Ok(())
    }

    /// The date each of `ids` was paid (the newest paid invoice's `updatedAt`): for subscription
    /// lapse. Intents without a paid invoice are absent.
    pub async fn paid_at(&self, intents: &[Uuid]) -> Result<HashMap<Uuid, String>> {
        let (links, invoices) = self.invoice_links(intents).await?;
        let paid: HashMap<Uuid, String> = invoices
            .iter()
            .filter_map(|i| InvoiceRow::of(i).ok())
            .filter(|i| i.status.as_deref() == Some("paid"))
            .filter_map(|i| Some((i.id, i.updated_at?)))
            .collect();
        let mut out: HashMap<Uuid, String> = HashMap::new();
        for l in &links {
            let (Some(intent), Some(inv)) = (l.payment_intent_id, l.invoice_id) else {
                continue;
            };
            if let Some(at) = paid.get(&inv) {
                let e = out.entry(intent).or_default();
                if *e < *at {
                    *e = at.clone();
                }
            }
        }
        Ok(out)
    }
}
