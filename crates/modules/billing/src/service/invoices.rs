//! Intents and invoices: made in the checkout's transaction, started with their provider, found again.

use super::*;

impl Billing {
    /// Creates an intent for `amount` in `currency` (inside the caller's transaction).
    pub async fn create_intent(
        &self,
        exec: &mut Exec<'_>,
        amount: Decimal,
        currency: Uuid,
        kind: &str,
        interval: Option<&str>,
    ) -> Result<Uuid> {
        let row = self
            .store
            .create_in(
                exec,
                &self.e.intent,
                &fields(json!({"amount": amount.normalize().to_string(), "type": kind, "interval": interval})),
            )
            .await?;
        let id = Record::must_id(&row)?;
        // Sent with the caller's next insert (PostgreSQL).
        self.store
            .link_later(
                exec,
                &self.e.i2c,
                ("paymentIntentId", id),
                ("currencyId", currency),
            )
            .await?;
        Ok(id)
    }

    /// A draft invoice for `intents` with `provider` (inside the caller's transaction); started
    /// by [`Billing::open_invoice`] after the transaction commits.
    pub async fn draft_invoice(
        &self,
        exec: &mut Exec<'_>,
        intents: &[Uuid],
        provider: &str,
        amount: Decimal,
        success_url: &str,
        cancel_url: &str,
    ) -> Result<Uuid> {
        let row = self
            .store
            .create_in(
                exec,
                &self.e.invoice,
                &fields(json!({
                    "status": "draft",
                    "provider": provider,
                    "amount": amount.normalize().to_string(),
                    "successUrl": success_url,
                    "cancelUrl": cancel_url,
                })),
            )
            .await?;
        let id = Record::must_id(&row)?;
        // Sent with the caller's next insert or update of another table (PostgreSQL).
        for i in intents {
            self.store
                .link_later(
                    exec,
                    &self.e.i2i,
                    ("paymentIntentId", *i),
                    ("invoiceId", id),
                )
                .await?;
        }
        Ok(id)
    }

    /// Starts the payment of a draft invoice with its provider (outside any transaction), then
    /// opens it. The dummy provider's webhook is scheduled in the same transaction.
    pub async fn open_invoice(&self, p: &NewPayment, provider: &str) -> Result<Record> {
        let adapter = self.provider(provider)?;
        let Created {
            provider_id,
            payment_url,
        } = match adapter.create(p).await {
            Ok(c) => c,
            Err(e) => {
                let mut tx = self.store.begin().await?;
                repo::set_if(
                    &mut tx.exec(),
                    &self.e.invoice,
                    p.invoice,
                    &[("status", Val::Text("failed".into()))],
                    &[("status", Val::Text("draft".into()))],
                )
                .await?;
                tx.commit().await?;
                tracing::warn!(invoice = %p.invoice, provider, error = %e, "the provider did not start the payment");
                return Err(match e {
                    // The provider's words (unreachable, refused) or our own 4xx about the
                    // payment (an interval the provider cannot bill).
                    Error::Unavailable(_) => e,
                    e if e.status() < 500 => e,
                    _ => Error::Unavailable(format!(
                        "the payment provider '{provider}' did not answer; try again in a minute"
                    )),
                });
            }
        };
        let mut tx = self.store.begin().await?;
        let row = self
            .opened_in(
                &mut tx.exec(),
                p,
                adapter.as_ref(),
                Created {
                    provider_id,
                    payment_url,
                },
            )
            .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Starts the payment of draft invoice `p` inside the caller's transaction when its
    /// provider answers without leaving the process ([`Provider::local`]: the dummy one), so a
    /// checkout with it is one write transaction; `None` for any other provider, whose call
    /// must not hold a transaction open ([`Self::open_invoice`] after the commit). An error
    /// undoes the caller's transaction: nothing was started.
    pub async fn start_in(
        &self,
        exec: &mut Exec<'_>,
        p: &NewPayment,
        provider: &str,
    ) -> Result<Option<Record>> {
        let adapter = self.provider(provider)?;
        if !adapter.local() {
            return Ok(None);
        }
        let created = adapter.create(p).await?;
        self.opened_in(exec, p, adapter.as_ref(), created)
            .await
            .map(Some)
    }

    /// The draft invoice `p` opened with what its provider answered, and the job that settles
    /// it if no webhook comes (the dummy provider's own webhook, or a status check).
    pub(super) async fn opened_in(
        &self,
        exec: &mut Exec<'_>,
        p: &NewPayment,
        adapter: &dyn Provider,
        created: Created,
    ) -> Result<Record> {
        let provider = adapter.name();
        let Created {
            provider_id,
            payment_url,
        } = created;
        let row = {
            let row = repo::set_if(
                exec,
                &self.e.invoice,
                p.invoice,
                &[
                    ("status", Val::Text("open".into())),
                    ("providerId", Val::Text(provider_id)),
                    ("paymentUrl", Val::Text(payment_url)),
                ],
                &[("status", Val::Text("draft".into()))],
            )
            .await?
            .ok_or_else(|| Error::conflict_field("invoice", "is no longer a draft"))?;
            if provider == "dummy" {
                let at = now()
                    + time::Duration::try_from(self.dummy_delay).unwrap_or(time::Duration::ZERO);
                enqueue(
                    exec,
                    &NewJob::now(JOB_DUMMY_PAY, json!({"invoice": p.invoice}))
                        .at(at)
                        .dedupe(format!("dummy-pay:{}", p.invoice)),
                )
                .await?;
            } else if adapter.has_status() {
                // A webhook lost on the way still settles the invoice: its status is asked.
                let at =
                    now() + time::Duration::try_from(CHECK_AFTER).unwrap_or(time::Duration::ZERO);
                enqueue(
                    exec,
                    &NewJob::now(JOB_CHECK, json!({"invoice": p.invoice}))
                        .at(at)
                        .dedupe(format!("check:{}", p.invoice)),
                )
                .await?;
            }
            row
        };
        Ok(row)
    }

    /// Admin: a new invoice for intent `id` with `provider` (DOMAIN's `POST
    /// /api/billing/payment-intents/:id/:provider`), e.g. after a provider failed to start the
    /// payment. Refused while the intent is settled or another of its invoices is open or paid,
    /// so one intent is never charged twice. Return URLs are the intent's earlier ones, never
    /// the caller's (no open redirect).
    pub async fn invoice_for(
        &self,
        id: Uuid,
        provider: &str,
        email: Option<&str>,
    ) -> Result<Record> {
        let adapter = self.provider(provider)?;
        let intent = IntentRow::of(&self.store.get(&self.e.intent, id).await?)?;
        let status = intent
            .status
            .as_deref()
            .unwrap_or("requires_payment_method");
        if matches!(status, "succeeded" | "canceled") {
            return Err(Error::conflict_field(
                "status",
                format!("the payment intent is already {status}"),
            ));
        }
        let email = email
            .filter(|e| !e.trim().is_empty())
            .map(|e| stoa_kernel::value::normalise_email("metadata.email", e))
            .transpose()?;
        if email.is_none() && adapter.needs_email() {
            return Err(Error::invalid_field(
                "metadata.email",
                format!("is required by the provider '{provider}'"),
            ));
        }
        let earlier = self.earlier_invoices(id).await?;
        let currency = self
            .currency_slugs(&[id])
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Error::conflict_field("currencyId", "the payment intent has no currency")
            })?;
        let amount = intent
            .amount
            .ok_or_else(|| Error::conflict_field("amount", "the payment intent has no amount"))?;
        let last = earlier.last();
        let url =
            |u: Option<&String>| u.map_or_else(|| format!("{}/", self.public_url), String::clone);
        let (success, cancel) = (
            url(last.and_then(|i| i.success_url.as_ref())),
            url(last.and_then(|i| i.cancel_url.as_ref())),
        );
        let mut tx = self.store.begin().await?;
        let invoice = self
            .draft_invoice(&mut tx.exec(), &[id], provider, amount, &success, &cancel)
            .await?;
        tx.commit().await?;
        self.open_invoice(
            &NewPayment {
                invoice,
                intents: vec![id],
                amount,
                currency,
                email,
                description: format!("Payment intent {id}"),
                success_url: success,
                cancel_url: cancel,
                kind: intent.kind.unwrap_or_else(|| "one_off".to_owned()),
                interval: intent.interval,
            },
            provider,
        )
        .await
    }

    /// The invoices of intent `id`, oldest first; 409 when one of them is open, paid or a draft
    /// (another could charge twice).
    async fn earlier_invoices(&self, id: Uuid) -> Result<Vec<InvoiceRow>> {
        let earlier = self.invoice_rows(&[id]).await?;
        if let Some(busy) = earlier
            .iter()
            .find(|i| matches!(i.status.as_deref(), Some("open" | "paid" | "draft")))
        {
            return Err(Error::conflict_field(
                "invoice",
                format!(
                    "invoice {} of this intent is {}; a second one could charge twice",
                    busy.id,
                    busy.status.as_deref().unwrap_or("?")
                ),
            ));
        }
        Ok(earlier)
    }

    /// When every invoice of `intents` is a draft older than `grace` (or failed) — a checkout
    /// cut off before the provider was asked — marks the drafts failed and answers true. An
    /// open or paid invoice, or a recent draft, answers false and changes nothing.
    pub async fn abandon_drafts(&self, intents: &[Uuid], grace: time::Duration) -> Result<bool> {
        let invoices = self.invoice_rows(intents).await?;
        let cutoff = now() - grace;
        let stale = |i: &InvoiceRow| {
            i.created_at
                .as_deref()
                .and_then(stoa_kernel::value::parse_timestamp)
                .is_some_and(|t| t < cutoff)
        };
        let drafts: Vec<&InvoiceRow> = invoices
            .iter()
            .filter(|i| i.status.as_deref() == Some("draft"))
            .collect();
        if drafts.is_empty()
            || !drafts.iter().all(|i| stale(i))
            || invoices
                .iter()
                .any(|i| !matches!(i.status.as_deref(), Some("draft" | "failed")))
        {
            return Ok(false);
        }
        let mut tx = self.store.begin().await?;
        for d in &drafts {
            let failed = repo::set_if(
                &mut tx.exec(),
                &self.e.invoice,
                d.id,
                &[("status", Val::Text("failed".into()))],
                &[("status", Val::Text("draft".into()))],
            )
            .await?;
            if failed.is_none() {
                // Opened meanwhile: the payment did start after all.
                return Ok(false);
            }
        }
        tx.commit().await?;
        tracing::warn!(
            invoices = drafts.len(),
            "draft invoices abandoned (the checkout was cut off before the provider was asked)"
        );
        Ok(true)
    }

    /// The intents' rows, read through the caller's transaction.
    pub async fn intents_in(&self, exec: &mut Exec<'_>, ids: &[Uuid]) -> Result<Vec<Record>> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        let q = stoa_kernel::query::FindQuery::all()
            .any_of(&self.e.intent, "id", vals)?
            .take(ids.len().max(1) as u64);
        Ok(repo::find(exec, &self.e.intent, &q).await?.0)
    }

    /// The intents' rows.
    pub async fn intents(&self, ids: &[Uuid]) -> Result<Vec<Record>> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        self.store
            .find_in(&self.e.intent, "id", &vals, ids.len().max(1))
            .await
    }

    /// The intent ↔ invoice links of `intents` and the invoices they name.
    pub(super) async fn invoice_links(
        &self,
        intents: &[Uuid],
    ) -> Result<(Vec<IntentInvoiceRow>, Vec<Record>)> {
        let vals: Vec<Val> = intents.iter().copied().map(Val::Uuid).collect();
        let links = self
            .store
            .find_in(
                &self.e.i2i,
                "paymentIntentId",
                &vals,
                intents.len().max(1) * 20,
            )
            .await?
            .iter()
            .map(IntentInvoiceRow::of)
            .collect::<Result<Vec<_>>>()?;
        let ids: Vec<Val> = links
            .iter()
            .filter_map(|l| l.invoice_id)
            .collect::<HashSet<_>>()
            .into_iter()
            .map(Val::Uuid)
            .collect();
        let invoices = self
            .store
            .find_in(&self.e.invoice, "id", &ids, ids.len().max(1))
            .await?;
        Ok((links, invoices))
    }

    /// The invoices of `intents`, each with the intent it is of, oldest first.
    pub async fn invoices_by_intent(&self, intents: &[Uuid]) -> Result<Vec<(Uuid, Record)>> {
        let (links, rows) = self.invoice_links(intents).await?;
        let by_id: HashMap<Uuid, &Record> =
            rows.iter().filter_map(|r| Some((r.id()?, r))).collect();
        let mut out: Vec<(Uuid, Record)> = links
            .iter()
            .filter_map(|l| {
                let invoice = by_id.get(&l.invoice_id?)?;
                Some((l.payment_intent_id?, (*invoice).clone()))
            })
            .collect();
        out.sort_by_cached_key(|(_, r)| created_at(r));
        Ok(out)
    }

    /// The invoices of `intents`, oldest first.
    pub async fn invoices_of(&self, intents: &[Uuid]) -> Result<Vec<Record>> {
        let (_, mut rows) = self.invoice_links(intents).await?;
        rows.sort_by_cached_key(created_at);
        Ok(rows)
    }

    /// The invoices of `intents` as typed rows, oldest first.
    pub(super) async fn invoice_rows(&self, intents: &[Uuid]) -> Result<Vec<InvoiceRow>> {
        self.invoices_of(intents)
            .await?
            .iter()
            .map(InvoiceRow::of)
            .collect()
    }
}

/// When invoice row `r` was written: what invoices are listed by, oldest first.
fn created_at(r: &Record) -> Option<String> {
    InvoiceRow::of(r).ok().and_then(|i| i.created_at)
}
