//! Provider checks: an open invoice's status asked of its provider's status API.

use super::*;

impl Billing {
    /// Asks the providers' status APIs about the open invoices of intent `id` (DOMAIN's `POST
    /// /payment-intents/:id/check`): a payment the provider reports is applied like its webhook
    /// (through the inbox, once); a payment the provider reports failed fails the invoice.
    /// Answers the intent as it is afterwards.
    pub async fn check(&self, id: Uuid) -> Result<Record> {
        let intent = self.store.get(&self.e.intent, id).await?;
        if matches!(
            IntentRow::of(&intent)?.status.as_deref(),
            Some("succeeded" | "canceled" | "failed")
        ) {
            return Ok(intent);
        }
        for invoice in self.invoice_rows(&[id]).await? {
            if invoice.status.as_deref() == Some("open") {
                self.check_invoice(&invoice).await?;
            }
        }
        self.store.get(&self.e.intent, id).await
    }

    /// One open invoice against its provider's status API. Answers whether it is settled
    /// (paid, failed, or nothing more to ask).
    pub(crate) async fn check_invoice(&self, invoice: &InvoiceRow) -> Result<bool> {
        let provider = invoice.provider.clone().unwrap_or_default();
        let Some(adapter) = self.providers.get(provider.as_str()).cloned() else {
            return Ok(true);
        };
        if !adapter.has_status() || invoice.status.as_deref() != Some("open") {
            return Ok(true);
        }
        let iid = invoice.id;
        let r = InvoiceRef {
            id: iid,
            provider_id: invoice.provider_id.clone().unwrap_or_default(),
        };
        let Some(mut event) = adapter.status(&r).await? else {
            return Ok(false);
        };
        // The status API answers about this invoice, whatever it names.
        event.invoice = Some(iid);
        match &event.outcome {
            Said::Paid => {
                let entry = StatusEntry::of(&event);
                let body =
                    serde_json::to_vec(&entry).map_err(|e| Error::internal(e.to_string()))?;
                let key = format!("status:{iid}");
                let mut e = Entry {
                    provider: &provider,
                    key: &key,
                    dedupe: format!("{STATUS_SOURCE}:{provider}:{iid}"),
                    body: &body,
                    headers: &[],
                    inline: None,
                };
                match self.assess(&provider, &event).await? {
                    Verdict::Apply(inv) => {
                        let inv_id = inv.id;
                        let payment = self.payment_of(&inv).await?;
                        e.inline = Some(Inline {
                            event: &event,
                            invoice: inv,
                            payment,
                        });
                        self.record(
                            &e,
                            "received",
                            true,
                            "reported paid by the status API",
                            Some(inv_id),
                            None,
                        )
                        .await?;
                    }
                    Verdict::Reject(err, alert) => {
                        let why = err.public_message();
                        let alert = alert.then(|| alert_of(&provider, &why, Some(iid)));
                        self.record(&e, "rejected", true, &why, Some(iid), alert)
                            .await?;
                    }
                    Verdict::Ignore(_) => {}
                }
                Ok(true)
            }
            Said::Failed(why) => {
                let mut tx = self.store.begin().await?;
                repo::set_if(
                    &mut tx.exec(),
                    &self.e.invoice,
                    iid,
                    &[("status", Val::Text("failed".into()))],
                    &[("status", Val::Text("open".into()))],
                )
                .await?;
                tx.commit().await?;
                tracing::info!(invoice = %iid, provider, reason = %why, "the provider reports the payment failed");
                Ok(true)
            }
            Said::Other(_) => Ok(false),
        }
    }

    /// The scheduled check of an invoice still open after its webhook was expected: an error
    /// (retried later by the job queue, with back-off) while the provider has no answer yet.
    pub async fn check_job(&self, payload: &Value) -> stoa_api::module::ModuleResult<()> {
        let id = stoa_api::jobs::uuid_arg(payload, "invoice")?;
        let Some(invoice) = self
            .store
            .find_by(&self.e.invoice, &[("id", Val::Uuid(id))], 1)
            .await?
            .into_iter()
            .next()
        else {
            return Ok(());
        };
        if self.check_invoice(&InvoiceRow::of(&invoice)?).await? {
            Ok(())
        } else {
            Err(Error::Unavailable(format!(
                "invoice {id} is still open at its provider; asking again later"
            ))
            .into())
        }
    }
}
