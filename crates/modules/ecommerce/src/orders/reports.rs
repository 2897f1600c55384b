//! Reports: the admin dashboard's figures, order summaries and views, line totals.

use super::*;

impl Commerce {
    /// Paid orders and revenue per currency per day over the last `days` days (admin dashboard).
    pub async fn stats(&self, days: i64) -> Result<Value> {
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
            .filter(|c| matches!(c.text("to"), Some("approving" | "delivering")))
            .filter_map(|c| {
                let at = c.text("createdAt")?;
                (parse_timestamp(at)? >= since)
                    .then(|| Some((c.uuid("orderId")?, at[..10].to_owned())))?
            })
            .collect();
        let ids: Vec<Val> = paid.iter().map(|(o, _)| Val::Uuid(*o)).collect();
        let orders = self
            .store
            .find_in(&self.e.order, "id", &ids, ids.len() + 1)
            .await?;
        let loaded = self.load(orders).await?;
        let mut by_day: BTreeMap<(String, String), (i64, Decimal)> = BTreeMap::new();
        let mut currencies: BTreeMap<String, Value> = BTreeMap::new();
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
            currencies.insert(cur.slug.clone(), currency_json(cur));
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
        let days_out: Vec<Value> = by_day
            .into_iter()
            .map(|((day, cur), (n, sum))| json!({"day": day, "currency": cur, "orders": n, "revenue": sum.normalize().to_string()}))
            .collect();
        let totals: Vec<Value> = totals
            .into_iter()
            .map(|(cur, (n, sum))| json!({"currency": cur, "orders": n, "revenue": sum.normalize().to_string()}))
            .collect();
        Ok(
            json!({"days": days_out, "totals": totals, "currencies": currencies.into_values().collect::<Vec<_>>()}),
        )
    }

    /// DOMAIN's checkout-attributes of an order in a currency.
    pub async fn checkout_attributes(&self, order: Uuid, currency: Uuid) -> Result<Value> {
        let row = self.store.get(&self.e.order, order).await?;
        let loaded = self.load(vec![row]).await?;
        let (amount, kind, interval) = loaded.checkout_attributes(order, currency)?;
        Ok(json!({"amount": amount.normalize().to_string(), "type": kind, "interval": interval}))
    }

    /// An order's view for admins (lines, totals, intents, invoices, history, next statuses).
    /// What the admins' list of orders shows beside each order's own fields, for `orders` (at
    /// most [`MAX_SUMMARIES`]): its total in its currency (or per currency before checkout), the
    /// provider and state of its latest invoice, and its buyer (the account and an address: the
    /// order's own, else the account's).
    pub async fn summaries(&self, orders: &[Uuid]) -> Result<Vec<Value>> {
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
            .filter_map(|l| Some((l.uuid("orderId")?, l.uuid("billingModulePaymentIntentId")?)))
            .collect();
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
                    .map(|(_, r)| r);
                let subject = owners.get(&id).copied();
                let email = o
                    .text("email")
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned)
                    .or_else(|| subject.and_then(|s| emails.get(&s).cloned()));
                json!({
                    "id": id,
                    "checkoutTotal": v["checkoutTotal"],
                    "billingModuleCurrency": v["billingModuleCurrency"],
                    "total": v["total"],
                    "provider": latest.and_then(|r| r.text("provider")),
                    "paymentStatus": latest.and_then(|r| r.text("status")),
                    "subjectId": subject,
                    "email": email,
                })
            })
            .collect())
    }

    pub async fn admin_view(&self, order: Uuid) -> Result<Value> {
        let row = self.store.get(&self.e.order, order).await?;
        let loaded = self.load(vec![row]).await?;
        let mut v = self.view(&loaded, &loaded.orders[0]);
        let intent_ids = self.intents_of(order).await?;
        v["paymentIntents"] = json!(
            self.billing
                .intents(&intent_ids)
                .await?
                .iter()
                .map(Record::to_json)
                .collect::<Vec<_>>()
        );
        v["invoices"] = json!(
            self.billing
                .invoices_of(&intent_ids)
                .await?
                .iter()
                .map(Record::to_json)
                .collect::<Vec<_>>()
        );
        v["statusChanges"] = json!(self.history(order).await?);
        v["nextStatuses"] =
            json!(status::ADMIN.next(loaded.orders[0].text("status").unwrap_or("new")));
        Ok(v)
    }

    /// Line totals (every currency the product is priced in).
    pub async fn line_total(&self, line: Uuid) -> Result<Value> {
        let l = self.store.get(&self.e.line, line).await?;
        let order = l
            .uuid("orderId")
            .ok_or_else(|| Error::internal("line without order"))?;
        let loaded = self
            .load(vec![self.store.get(&self.e.order, order).await?])
            .await?;
        let v = self.view(&loaded, &loaded.orders[0]);
        Ok(v["ordersToProducts"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == json!(line)))
            .map_or(Value::Array(vec![]), |x| x["total"].clone()))
    }
}
