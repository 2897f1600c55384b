//! Settlement: a verified event applied to its invoice and intents (paid, failed, renewed), and the paid hooks run.

use super::*;

impl Billing {
    pub(super) async fn intents_of_invoice(&self, invoice: Uuid) -> Result<Vec<Uuid>> {
        self.store
            .linked(
                &self.e.i2i,
                "invoiceId",
                &[invoice],
                "paymentIntentId",
                1000,
            )
            .await
    }

    /// Pays `invoice` for inbox entry `id` (a verified, assessed event): the entry is claimed,
    /// the invoice moves to paid once, and its intents succeed while the amount lasts. A
    /// subscription's renewal is recorded as a new paid invoice of the same intents.
    pub(super) async fn apply(
        &self,
        id: Uuid,
        event: &Event,
        invoice: &InvoiceRow,
    ) -> Result<Outcome> {
        let payment = self.payment_of(invoice).await?;
        let mut tx = self.store.begin().await?;
        let outcome = self
            .apply_in(&mut tx.exec(), id, event, invoice, &payment)
            .await?;
        // Skipped: nothing was written.
        if outcome != Outcome::Skipped {
            tx.commit().await?;
        }
        Ok(outcome)
    }

    /// The intents `invoice` pays, oldest first (read before the paying transaction).
    pub(super) async fn payment_of(&self, invoice: &InvoiceRow) -> Result<Payment> {
        let ids = self.intents_of_invoice(invoice.id).await?;
        let mut intents = self
            .intents(&ids)
            .await?
            .iter()
            .map(IntentRow::of)
            .collect::<Result<Vec<_>>>()?;
        intents.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        Ok(Payment { ids, intents })
    }

    /// [`Self::apply`] inside the caller's transaction, with the invoice's intents read before.
    pub(super) async fn apply_in(
        &self,
        exec: &mut Exec<'_>,
        id: Uuid,
        event: &Event,
        invoice: &InvoiceRow,
        payment: &Payment,
    ) -> Result<Outcome> {
        let invoice_id = invoice.id;
        let paid = event
            .amount
            .unwrap_or_else(|| invoice.amount.unwrap_or_default());
        // The inbox entry is claimed first: a concurrent run of the same entry stops here.
        if !self.claim_in(exec, id, invoice_id).await? {
            return Ok(Outcome::Skipped);
        }
        if let Some(renewal) = &event.renewal {
            return self
                .renew(exec, id, invoice, renewal, paid, &payment.ids)
                .await;
        }
        if !self.mark_paid_in(exec, invoice_id).await? {
            return self.paid_before_in(exec, id, invoice).await;
        }
        let (succeeded, rows) = self.succeed_in(exec, &payment.intents, paid).await?;
        let result = format!("invoice paid; {} intent(s) succeeded", succeeded.len());
        let set = [("result", Val::Text(result))];
        repo::set_if(exec, &self.e.webhook, id, &set, &[]).await?;
        if !succeeded.is_empty() {
            let listeners: Vec<Listener> =
                self.listeners.read().map(|l| l.clone()).unwrap_or_default();
            for l in &listeners {
                run_listener(exec, l, &rows, invoice_id).await?;
            }
        }
        tracing::info!(invoice = %invoice_id, intents = succeeded.len(), "invoice paid");
        Ok(Outcome::Paid(succeeded))
    }

    /// Claims inbox entry `id` for `invoice`: `false` when another run has it already.
    async fn claim_in(&self, exec: &mut Exec<'_>, id: Uuid, invoice: Uuid) -> Result<bool> {
        let claimed = repo::set_if(
            exec,
            &self.e.webhook,
            id,
            &[
                ("status", Val::Text("processed".into())),
                ("verified", Val::Bool(true)),
                ("invoiceId", Val::Uuid(invoice)),
                ("processedAt", Val::Timestamp(now())),
            ],
            &[("status", Val::Text("received".into()))],
        )
        .await?;
        Ok(claimed.is_some())
    }

    /// Moves `invoice` to paid from whichever unpaid status it is in: `false` when it is in
    /// none (paid meanwhile, or given up on).
    async fn mark_paid_in(&self, exec: &mut Exec<'_>, invoice: Uuid) -> Result<bool> {
        for from in ["open", "draft", "failed"] {
            let paid = repo::set_if(
                exec,
                &self.e.invoice,
                invoice,
                &[("status", Val::Text("paid".into()))],
                &[("status", Val::Text(from.into()))],
            )
            .await?;
            if paid.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A payment for an invoice that is no longer unpaid: entry `id` is ignored, and when the
    /// invoice was given up on (void, uncollectible), the admins are alerted — money arrived
    /// that nothing was marked paid for.
    async fn paid_before_in(
        &self,
        exec: &mut Exec<'_>,
        id: Uuid,
        invoice: &InvoiceRow,
    ) -> Result<Outcome> {
        let invoice_id = invoice.id;
        // Read before this transaction: open/draft/failed then means paid meanwhile.
        let status = invoice
            .status
            .as_deref()
            .filter(|s| matches!(*s, "void" | "uncollectible"))
            .unwrap_or("paid");
        let why = if status == "paid" {
            "the invoice was already paid".to_owned()
        } else {
            let why = format!(
                "a payment arrived for invoice {invoice_id}, which is {status}; nothing was marked paid"
            );
            let mut alert = alert_of(
                invoice.provider.as_deref().unwrap_or_default(),
                &why,
                Some(invoice_id),
            );
            alert["inbox"] = json!(id);
            enqueue(exec, &NewJob::now(JOB_ALERT, alert)).await?;
            why
        };
        let set = [
            ("status", Val::Text("ignored".into())),
            ("result", Val::Text(why)),
        ];
        repo::set_if(exec, &self.e.webhook, id, &set, &[]).await?;
        Ok(Outcome::Ignored("already paid".into()))
    }

    /// Succeeds the open `intents`, oldest first, while the amount `paid` lasts: their ids and
    /// rows as they now are.
    async fn succeed_in(
        &self,
        exec: &mut Exec<'_>,
        intents: &[IntentRow],
        paid: Decimal,
    ) -> Result<(Vec<Uuid>, Vec<Record>)> {
        let mut left = paid;
        let (mut succeeded, mut rows) = (Vec::new(), Vec::new());
        for it in intents {
            let status = it.status.as_deref().unwrap_or_default();
            let amount = it.amount.unwrap_or_default();
            if matches!(status, "succeeded" | "canceled") || amount > left {
                continue;
            }
            let iid = it.id;
            if let Some(row) = repo::set_if(
                exec,
                &self.e.intent,
                iid,
                &[("status", Val::Text("succeeded".into()))],
                &[("status", Val::Text(status.into()))],
            )
            .await?
            {
                left -= amount;
                succeeded.push(iid);
                rows.push(row);
            }
        }
        Ok((succeeded, rows))
    }

    /// A subscription's later payment: a new paid invoice of the same intents (the newest paid
    /// invoice is what keeps a subscription's roles), once per provider payment.
    pub(super) async fn renew(
        &self,
        exec: &mut Exec<'_>,
        inbox: Uuid,
        original: &InvoiceRow,
        renewal: &str,
        paid: Decimal,
        intents: &[Uuid],
    ) -> Result<Outcome> {
        let provider = original.provider.as_deref().unwrap_or_default();
        let q = stoa_kernel::query::FindQuery::all()
            .eq(&self.e.invoice, "providerId", Val::Text(renewal.into()))?
            .eq(&self.e.invoice, "provider", Val::Text(provider.into()))?
            .take(1);
        let result = if repo::find(exec, &self.e.invoice, &q).await?.0.is_empty() {
            let new_id = self
                .draft_invoice(
                    exec,
                    intents,
                    provider,
                    paid,
                    original.success_url.as_deref().unwrap_or_default(),
                    original.cancel_url.as_deref().unwrap_or_default(),
                )
                .await?;
            repo::set_if(
                exec,
                &self.e.invoice,
                new_id,
                &[
                    ("status", Val::Text("paid".into())),
                    ("providerId", Val::Text(renewal.into())),
                ],
                &[("status", Val::Text("draft".into()))],
            )
            .await?;
            format!("subscription renewed: invoice {new_id} paid")
        } else {
            "this renewal was already recorded".to_owned()
        };
        repo::set_if(
            exec,
            &self.e.webhook,
            inbox,
            &[("result", Val::Text(result.clone()))],
            &[],
        )
        .await?;
        Ok(Outcome::Ignored(result))
    }
}
