//! Reports: the admin dashboard's figures, order summaries and views, line totals.

use super::*;
use crate::views::{
    CheckoutAttributes, CurrencyFigure, DayFigure, DetailsMore, OrderDetails, OrderStats,
    OrderSummary, Status,
};

impl Commerce {
    /// Paid orders and revenue per currency per day over the last `days` days (admin dashboard).
    pub async fn stats(&self, days: i64) -> Result<OrderStats> {
        let since = now() - time::Duration::days(days);
        let e = &self.e.change;
        // Only the window's payments are read (the payments of one month, not all of history).
        let q = FindQuery::all()
            .eq(e, "from", Val::Text("paying".into()))?
            .filter(
                e,
                "createdAt",
                Op::Gte,
                FilterValue::One(Val::Timestamp(since)),
            )?
            .take(STATS_CAP);
        let changes = self.store.find(e, &q).await?.rows;
        let paid: Vec<(Uuid, String)> = changes
            .iter()
            .filter_map(|c| ChangeRow::of(c).ok())
            .filter(|c| matches!(c.to.as_str(), "approving" | "delivering"))
            .filter_map(|c| {
                let at = c.created_at;
                (parse_timestamp(&at)? >= since).then(|| (c.order_id, at[..10].to_owned()))
            })
            .collect();
        let ids: Vec<Val> = paid.iter().map(|(o, _)| Val::Uuid(*o)).collect();
        let orders = self
            .store
            .find_in(&self.e.order, "id", &ids, ids.len() + 1)
            .await?;
        let loaded = self.load(orders).await?;
        let mut by_day: BTreeMap<(String, String), (i64, Decimal)> = BTreeMap::new();
        let mut currencies: BTreeMap<String, prices::Currency> = BTreeMap::new();
        for (oid, day) in &paid {
            let Some(c) = loaded.currency_of.get(oid).copied() else {
                continue;
            };
            let Ok((amount, _, _)) = loaded.checkout_attributes(*oid, c) else {
                continue;
            };
            let Some(cur) = loaded.currency(c) else {
                continue;
            };
            currencies.insert(cur.slug.clone(), cur.clone());
            let e = by_day.entry((day.clone(), cur.slug.clone())).or_default();
            e.0 += 1;
            e.1 += amount;
        }
        let mut totals: BTreeMap<String, (i64, Decimal)> = BTreeMap::new();
        for ((_, cur), (n, sum)) in &by_day {
            let t = totals.entry(cur.clone()).or_default();
            t.0 += n;
            t.1 += sum;
        }
        Ok(OrderStats {
            days: by_day
                .into_iter()
                .map(|((day, currency), (orders, sum))| DayFigure {
                    day,
                    currency,
                    orders,
                    revenue: Amount(sum),
                })
                .collect(),
            totals: totals
                .into_iter()
                .map(|(currency, (orders, sum))| CurrencyFigure {
                    currency,
                    orders,
                    revenue: Amount(sum),
                })
                .collect(),
            currencies: currencies.into_values().collect(),
        })
    }

    /// DOMAIN's checkout-attributes of an order in a currency.
    pub async fn checkout_attributes(
        &self,
        order: Uuid,
        currency: Uuid,
    ) -> Result<CheckoutAttributes> {
        let row = self.store.get(&self.e.order, order).await?;
        let loaded = self.load(vec![row]).await?;
        let (amount, kind, interval) = loaded.checkout_attributes(order, currency)?;
        Ok(CheckoutAttributes {
            amount: Amount(amount),
            kind,
            interval,
        })
    }

    /// What the admins' list of orders shows beside each order's own fields, for `orders` (at
    /// most [`MAX_SUMMARIES`]): its total in its currency (or per currency before checkout), the
    /// provider and state of its latest invoice, and its buyer (the account and an address: the
    /// order's own, else the account's).
    pub async fn summaries(&self, orders: &[Uuid]) -> Result<Vec<OrderSummary>> {
        let orders = &orders[..orders.len().min(MAX_SUMMARIES)];
        let vals: Vec<Val> = orders.iter().copied().map(Val::Uuid).collect();
        let rows = self
            .store
            .find_in(&self.e.order, "id", &vals, orders.len().max(1))
            .await?;
        let loaded = self.load(rows).await?;
        let intent_of: Vec<(Uuid, Uuid)> = self
            .store
            .find_in(&self.e.o2i, "orderId", &vals, orders.len().max(1) * 20)
            .await?
            .iter()
            .map(crate::rows::OrderIntentRow::of)
            .filter_map(|l| l.map(|l| Some((l.order_id?, l.intent_id?))).transpose())
            .collect::<Result<_>>()?;
        let intents: Vec<Uuid> = intent_of
            .iter()
            .map(|(_, i)| *i)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let invoices = if intents.is_empty() {
            Vec::new()
        } else {
            self.billing.invoices_by_intent(&intents).await?
        };
        let owners: HashMap<Uuid, Uuid> = self
            .owners
            .order_owners(orders)
            .await?
            .into_iter()
            .collect();
        let buyers: Vec<Uuid> = owners
            .values()
            .copied()
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let emails = self.subjects.first_emails(&buyers).await?;
        Ok(loaded
            .orders
            .iter()
            .map(|o| {
                let id = o.id().unwrap_or_default();
                let v = self.view(&loaded, o);
                let its: HashSet<Uuid> = intent_of
                    .iter()
                    .filter(|(order, _)| *order == id)
                    .map(|(_, i)| *i)
                    .collect();
                let latest = invoices
                    .iter()
                    .rev()
                    .find(|(i, _)| its.contains(i))
                    .and_then(|(_, r)| stoa_billing::rows::InvoiceRow::of(r).ok());
                let subject = owners.get(&id).copied();
                let email = OrderRow::of(o)
                    .ok()
                    .and_then(|o| o.email)
                    .filter(|e| !e.is_empty())
                    .or_else(|| subject.and_then(|s| emails.get(&s).cloned()));
                OrderSummary {
                    id,
                    checkout_total: v.more.checkout_total,
                    billing_module_currency: v.more.billing_module_currency,
                    total: v.more.total,
                    payment_status: latest
                        .as_ref()
                        .and_then(|r| r.status.as_deref())
                        .and_then(InvoiceState::of),
                    provider: latest.and_then(|r| r.provider),
                    subject_id: subject,
                    email,
                }
            })
            .collect())
    }

    /// An order's view for admins (lines, totals, intents, invoices, history, next statuses).
    pub async fn admin_view(&self, order: Uuid) -> Result<OrderDetails> {
        let row = self.store.get(&self.e.order, order).await?;
        let loaded = self.load(vec![row]).await?;
        let base = self.view(&loaded, &loaded.orders[0]);
        let intent_ids = self.intents_of(order).await?;
        let status = OrderRow::of(&loaded.orders[0])?.status;
        Ok(More {
            base,
            more: DetailsMore {
                payment_intents: rows_of(self.billing.intents(&intent_ids).await?),
                invoices: rows_of(self.billing.invoices_of(&intent_ids).await?),
                status_changes: rows_of(self.history(order).await?),
                next_statuses: status::ADMIN
                    .next(&status)
                    .into_iter()
                    .map(|s| Status(s.to_owned()))
                    .collect(),
            },
        })
    }

    /// Line totals (every currency the product is priced in).
    pub async fn line_total(&self, line: Uuid) -> Result<Vec<Money>> {
        let l = self.store.get(&self.e.line, line).await?;
        let order = LineRow::of(&l)?.order_id;
        let loaded = self
            .load(vec![self.store.get(&self.e.order, order).await?])
            .await?;
        let v = self.view(&loaded, &loaded.orders[0]);
        Ok(v.more
            .orders_to_products
            .into_iter()
            .find(|x| x.row.get("id") == Some(&json!(line)))
            .map(|x| x.more.total)
            .unwrap_or_default())
    }
}

/// Records as their entity's declared schema `C`.
fn rows_of<C>(rs: Vec<Record>) -> Vec<Row<C>> {
    rs.iter().map(|r| Row::new(r.to_json())).collect()
}
