//! Sweeps: old carts cleared, stuck payments timed out, lapsed subscriptions delivered, subjects' roles rechecked.

use super::*;

impl Commerce {
    /// Deletes cart orders never checked out (no payment intent) older than the retention.
    pub async fn clear_old(&self) -> Result<u64> {
        let cutoff = now() - self.retention;
        let mut removed = 0;
        let q = self.in_status(
            "new",
            &[
                ("type", Op::Eq, FilterValue::One(Val::Text("cart".into()))),
                (
                    "createdAt",
                    Op::Lte,
                    FilterValue::One(Val::Timestamp(cutoff)),
                ),
            ],
        )?;
        let mut pages = self.sweeping(q, std::time::Instant::now());
        while let Some(rows) = pages.next().await? {
            for o in rows {
                let oid = Record::must_id(&o)?;
                if !self
                    .store
                    .find_by(&self.e.o2i, &[("orderId", Val::Uuid(oid))], 1)
                    .await?
                    .is_empty()
                {
                    continue;
                }
                let mut tx = self.store.begin().await?;
                let still = self.lock_open(&mut tx.exec(), oid).await?;
                if still {
                    repo::delete(&mut tx.exec(), &self.e.order, oid).await?;
                    tx.commit().await?;
                    removed += 1;
                }
            }
        }
        if removed > 0 {
            tracing::info!(removed, "cleared abandoned carts");
        }
        Ok(removed)
    }

    /// Orders in `status` matching `filters`, oldest first (no sort: by id, and ids are
    /// time-ordered, so a walk of the status index).
    pub(super) fn in_status(
        &self,
        status: &str,
        filters: &[(&str, Op, FilterValue)],
    ) -> Result<FindQuery> {
        let e = &self.e.order;
        let mut q = FindQuery::all().eq(e, "status", Val::Text(status.to_owned()))?;
        for (field, op, value) in filters {
            q = q.filter(e, field, *op, value.clone())?;
        }
        Ok(q)
    }

    /// The rows of `q`, [`SWEEP`] a page, until `run` (when the run began) is [`SWEEP_BUDGET`]
    /// old: every match is reached however many rows before it are skipped, and a run's cost is
    /// bounded, however many walks it makes.
    pub(super) fn sweeping(&self, q: FindQuery, run: std::time::Instant) -> stoa_store::Walk<'_> {
        self.store
            .walk(&self.e.order, q, SWEEP, usize::MAX)
            .within(SWEEP_BUDGET.saturating_sub(run.elapsed()))
    }

    /// Cancels paying orders past the payment timeout (an order paid meanwhile moves on
    /// instead), gives back to the cart those whose checkout was cut off before the provider was
    /// asked, and delivers lapsed subscriptions.
    pub async fn sweep(&self) -> Result<()> {
        let run = std::time::Instant::now();
        let e = &self.e.order;
        let check = |rows: Vec<Record>| async move {
            for o in rows {
                let id = Record::must_id(&o)?;
                match self.check(id).await {
                    Ok(_) | Err(Error::Conflict { .. }) => {}
                    Err(e) => tracing::warn!(order = %id, error = %e, "order check failed"),
                }
            }
            Result::Ok(())
        };
        // Past the timeout: every one of them, page after page.
        let due = now() - self.timeout;
        let q = self.in_status(
            "paying",
            &[("updatedAt", Op::Lte, FilterValue::One(Val::Timestamp(due)))],
        )?;
        let mut pages = self.sweeping(q, run);
        while let Some(rows) = pages.next().await? {
            check(rows).await?;
        }
        // A checkout cut off between its transaction and the provider's answer leaves draft
        // invoices: looked at in the sweeps after its grace (newest first, one page; one missed
        // here is given back to the cart when it times out).
        let grace = now() - DRAFT_GRACE;
        let q = self
            .in_status(
                "paying",
                &[
                    (
                        "updatedAt",
                        Op::Lte,
                        FilterValue::One(Val::Timestamp(grace)),
                    ),
                    (
                        "updatedAt",
                        Op::Gt,
                        FilterValue::One(Val::Timestamp(grace - DRAFT_WINDOW)),
                    ),
                ],
            )?
            .sort(e, "id", true)?
            .take(SWEEP);
        check(self.store.find(e, &q).await?.rows).await?;
        // Subscriptions: every delivering order, by id, the walk going on where the last run's
        // budget stopped it (a renewal does not touch its order, so no cut-off finds the lapsed
        // ones; the oldest 500 by `updatedAt` used to be all a run looked at).
        let mut q = self.in_status("delivering", &[])?;
        q.after = self.lapse_cursor.lock().map(|c| c.clone()).unwrap_or(None);
        let mut pages = self.sweeping(q, run);
        while let Some(rows) = pages.next().await? {
            check(rows).await?;
        }
        if let Ok(mut c) = self.lapse_cursor.lock() {
            *c = (!pages.done())
                .then(|| pages.after().map(<[Val]>::to_vec))
                .flatten();
        }
        Ok(())
    }

    /// DOMAIN §5.4: the buyer holds the roles of the products of its delivering orders, and
    /// loses those of paying and delivered ones.
    pub async fn check_subject(&self, subject: Uuid) -> Result<(usize, usize)> {
        let rows = self.orders_of(subject, Which::All).await?;
        let loaded = self.load(rows).await?;
        let mut grant_products = Vec::new();
        let mut revoke_products = Vec::new();
        for o in &loaded.orders {
            let oid = Record::must_id(o)?;
            let products: Vec<Uuid> = loaded.lines_of(oid).filter_map(|l| l.product_id).collect();
            match OrderRow::of(o)?.status.as_str() {
                "delivering" => grant_products.extend(products),
                "paying" | "delivered" => revoke_products.extend(products),
                _ => {}
            }
        }
        let grant = self.owners.product_roles(&grant_products).await?;
        let revoke = self.owners.product_roles(&revoke_products).await?;
        self.subjects.sync_roles(subject, &grant, &revoke).await
    }

    pub async fn check_order_subject(&self, order: Uuid) -> Result<()> {
        for (_, s) in self.owners.order_owners(&[order]).await? {
            self.check_subject(s).await?;
        }
        Ok(())
    }
}
