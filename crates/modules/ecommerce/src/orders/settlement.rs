//! Settlement: orders moving on when their intents are paid, status checks against billing, subscriptions' roles.

use stoa_billing::rows::IntentRow;

use super::*;
use crate::rows::OrderIntentRow;
use crate::views::{Enforced, Enforcement, Status};

impl Commerce {
    /// The orders paid by `intents` move on inside the transaction that marked the intents
    /// succeeded (billing's [`PaidHook`]): a paying order goes to approving, or delivering when
    /// one of its intents is a subscription, as [`Self::check`] would move it a moment later.
    pub async fn intents_paid_in(&self, exec: &mut Exec<'_>, paid: &[Record]) -> Result<()> {
        let (orders, all, intents) = self.orders_paid_by_in(exec, paid).await?;
        if orders.is_empty() {
            return Ok(());
        }
        let roles = self.owners.products_carry_roles_in(exec).await?;
        for oid in orders {
            let Some(row) = repo::get(exec, &self.e.order, oid).await? else {
                continue;
            };
            match OrderRow::of(&row)?.status.as_str() {
                "paying" => {}
                "canceled" => {
                    paid_after_cancel(oid);
                    continue;
                }
                _ => continue,
            }
            let mine: Vec<Record> = all
                .iter()
                .filter(|l| l.order_id == Some(oid))
                .filter_map(|l| intents.get(&l.intent_id?).cloned())
                .collect();
            self.move_paid_in(exec, &row, oid, &mine, roles).await?;
        }
        Ok(())
    }

    /// The orders the intents `paid` pay (each once), every orders-to-intents link of those
    /// orders (a subscription's intent among them makes one delivering), and their intents by
    /// id: the links in one read, the `paid` intents at hand, any other read once for all.
    async fn orders_paid_by_in(
        &self,
        exec: &mut Exec<'_>,
        paid: &[Record],
    ) -> Result<(Vec<Uuid>, Vec<OrderIntentRow>, HashMap<Uuid, Record>)> {
        let ids: Vec<Val> = paid.iter().filter_map(Record::id).map(Val::Uuid).collect();
        let cap = ids.len() as u64 * 100 + 1;
        let all = repo::find_siblings(
            exec,
            &self.e.o2i,
            "billingModulePaymentIntentId",
            &ids,
            "orderId",
            cap,
        )
        .await?
        .iter()
        .map(OrderIntentRow::of)
        .collect::<Result<Vec<_>>>()?;
        if all.len() as u64 >= cap {
            // A hundred links an intent is far beyond any checkout's: the orders found move on,
            // and the log says some may have been left for the order check.
            tracing::warn!(
                links = all.len(),
                "the paid intents' orders carry more links than read; some orders may wait for the order check"
            );
        }
        let mut intents: HashMap<Uuid, Record> = paid
            .iter()
            .filter_map(|r| Some((r.id()?, r.clone())))
            .collect();
        let mut orders: Vec<Uuid> = all
            .iter()
            .filter(|l| l.intent_id.is_some_and(|i| intents.contains_key(&i)))
            .filter_map(|l| l.order_id)
            .collect();
        orders.sort_unstable();
        orders.dedup();
        let other: Vec<Uuid> = all
            .iter()
            .filter_map(|l| l.intent_id)
            .filter(|i| !intents.contains_key(i))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        if !other.is_empty() {
            for r in self.billing.intents_in(exec, &other).await? {
                if let Some(id) = r.id() {
                    intents.insert(id, r);
                }
            }
        }
        Ok((orders, all, intents))
    }

    /// Moves the paying order `row` (`oid`) on, paid by its intents `mine`.
    async fn move_paid_in(
        &self,
        exec: &mut Exec<'_>,
        row: &Record,
        oid: Uuid,
        mine: &[Record],
        roles: bool,
    ) -> Result<()> {
        let to = paid_to(mine);
        match self
            .transition_in(exec, row, Move::to(to, "payment"), roles)
            .await
        {
            Ok(_) => Ok(()),
            // Moved meanwhile (PostgreSQL: the timeout's cancel committed while this waited
            // for the row): read again, so a cancel that won is not passed over in silence.
            Err(Error::Conflict { .. }) => {
                let now = repo::get(exec, &self.e.order, oid).await?;
                let now = now.as_ref().map(OrderRow::of).transpose()?;
                if now.is_some_and(|o| o.status == "canceled") {
                    paid_after_cancel(oid);
                }
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The orders paid by `intents` are checked (the job after a webhook: when the work in the
    /// payment's transaction failed, or for a payment recorded before that work existed).
    pub async fn intents_paid(&self, intents: &[Uuid]) -> Result<()> {
        let orders = self
            .store
            .linked(
                &self.e.o2i,
                "billingModulePaymentIntentId",
                intents,
                "orderId",
                intents.len() * 100 + 1,
            )
            .await?;
        for o in orders {
            match self.check(o).await {
                Ok(s) if s == "canceled" => paid_after_cancel(o),
                Ok(_) | Err(Error::Conflict { .. }) | Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// DOMAIN's order check: a paying order whose intent succeeded moves on (approving, or
    /// delivering for a subscription); one that waited past the payment timeout is canceled; a
    /// delivering subscription whose period ended without a new payment is delivered.
    pub async fn check(&self, order: Uuid) -> Result<String> {
        let row = OrderRow::of(&self.store.get(&self.e.order, order).await?)?;
        let status = row.status;
        match status.as_str() {
            "paying" => {
                let intent_ids = self.intents_of(order).await?;
                let intents = self.billing.intents(&intent_ids).await?;
                let succeeded = |i: &Record| {
                    IntentRow::of(i).is_ok_and(|i| i.status.as_deref() == Some("succeeded"))
                };
                if intents.iter().any(succeeded) {
                    let to = paid_to(&intents);
                    self.transition(order, Move::to(to, "payment")).await?;
                    return Ok(to.into());
                }
                // A checkout cut off between its commit and the provider's answer (a crash)
                // leaves only draft invoices: after a grace period they fail and the orders go
                // back to the cart, as when the provider refuses.
                if self
                    .billing
                    .abandon_drafts(&intent_ids, DRAFT_GRACE)
                    .await?
                {
                    self.transition(
                        order,
                        Move::to("new", "payment check").because(PAYMENT_NOT_STARTED),
                    )
                    .await?;
                    return Ok("new".into());
                }
                let since = row
                    .updated_at
                    .as_deref()
                    .and_then(parse_timestamp)
                    .unwrap_or_else(now);
                if now() - since >= self.timeout {
                    self.transition(order, Move::to("canceled", "payment timeout"))
                        .await?;
                    return Ok("canceled".into());
                }
                Err(Error::conflict_field(
                    "status",
                    "Payment intent is not succeeded",
                ))
            }
            "delivering" => {
                if self.lapsed(order).await? {
                    self.transition(
                        order,
                        Move::to("delivered", "subscription check").because("subscription lapsed"),
                    )
                    .await?;
                    return Ok("delivered".into());
                }
                Ok(status)
            }
            _ => Ok(status),
        }
    }

    /// Has a delivering subscription order's period ended with no newer payment?
    pub(super) async fn lapsed(&self, order: Uuid) -> Result<bool> {
        Ok(self
            .paid_until(order)
            .await?
            .is_some_and(|end| now() >= end))
    }

    /// When the subscription an order paid for ends: the latest end over its subscription
    /// intents' paid periods (`None` for an order that paid no subscription).
    pub(super) async fn paid_until(&self, order: Uuid) -> Result<Option<time::OffsetDateTime>> {
        let intent_ids = self.intents_of(order).await?;
        let intents = self.billing.intents(&intent_ids).await?;
        let paid = self.billing.paid_at(&intent_ids).await?;
        Ok(intents
            .iter()
            .filter_map(|i| IntentRow::of(i).ok())
            .filter(|i| i.kind.as_deref() == Some("subscription"))
            .filter_map(|i| {
                let start = paid.get(&i.id).and_then(|s| parse_timestamp(s))?;
                period_end(start, i.interval.as_deref()?)
            })
            .max())
    }

    /// DOMAIN's product enforce: the subject's subscription orders of `product` whose paid period
    /// has ended are delivered (canceled ones too); the role check that follows each change
    /// revokes the product's roles. Orders of one-off purchases are left alone.
    pub async fn enforce(&self, subject: Uuid, product: Uuid, actor: &str) -> Result<Enforcement> {
        let lines = self
            .lines_of(&self.owners.order_ids(subject).await?)
            .await?;
        let of_product: HashSet<Uuid> = lines
            .iter()
            .filter(|l| l.product_id == Some(product))
            .map(|l| l.order_id)
            .collect();
        let mut out = Vec::new();
        for order in of_product {
            let status = OrderRow::of(&self.store.get(&self.e.order, order).await?)?.status;
            if !matches!(
                status.as_str(),
                "approving" | "packaging" | "delivering" | "canceled"
            ) {
                continue;
            }
            let until = self.paid_until(order).await?;
            let mut now_status = status.clone();
            if until.is_some_and(|end| now() >= end)
                && matches!(status.as_str(), "delivering" | "canceled")
            {
                self.transition(
                    order,
                    Move::to("delivered", actor).because("subscription lapsed"),
                )
                .await?;
                now_status = "delivered".into();
            }
            out.push(Enforced {
                id: order,
                from: Status(status),
                status: Status(now_status),
                paid_until: until.map(stoa_kernel::value::format_timestamp),
            });
        }
        Ok(Enforcement { orders: out })
    }
}
