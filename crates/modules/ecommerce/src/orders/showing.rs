//! What the buyer sees: an order's view (lines, products, totals per currency), the buyer's
//! orders and one of them with its history, payments and receipt, and the cart's totals.

use super::*;

impl Commerce {
    /// One loaded order's view: its lines with products and per-currency totals, its currency
    /// and its total in that currency.
    pub(super) fn view(&self, l: &Loaded, order: &Record) -> OrderView {
        let oid = order.id().unwrap_or_default();
        let mut totals: BTreeMap<Uuid, Decimal> = BTreeMap::new();
        let lines: Vec<LineView> = l
            .lines_of(oid)
            .map(|line| {
                let pid = line.product_id.unwrap_or_default();
                let q = Decimal::from(line.quantity);
                let product = l.products.get(&pid).map(|p| ProductCard {
                    id: pid,
                    slug: p.slug.clone(),
                    title: p.title.clone().map(Row::new),
                    kind: p.kind.clone(),
                    admin_title: p.admin_title.clone(),
                });
                let line_totals: Vec<Money> = l
                    .prices
                    .get(&pid)
                    .map(|ps| {
                        ps.iter()
                            .filter_map(|p| {
                                let amount = p.amount.checked_mul(q)?;
                                let t = totals.entry(p.currency.id).or_default();
                                *t = t.checked_add(amount)?;
                                Some(Money {
                                    total: Amount(amount),
                                    billing_module_currency: p.currency.clone(),
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                LineView::new(
                    line.record.to_json(),
                    LineMore {
                        product,
                        total: line_totals,
                    },
                )
            })
            .collect();
        let currency = l.currency_of.get(&oid).copied();
        let more = OrderMore {
            orders_to_products: lines,
            billing_module_currency: currency.and_then(|c| l.currency(c)).cloned(),
            total: totals
                .iter()
                .filter_map(|(c, t)| {
                    Some(Money {
                        total: Amount(*t),
                        billing_module_currency: l.currency(*c)?.clone(),
                    })
                })
                .collect(),
            checkout_total: currency
                .and_then(|c| l.checkout_attributes(oid, c).ok())
                .map(|(a, _, _)| Amount(a)),
        };
        OrderView::new(order.to_json(), more)
    }

    /// The subject's orders, newest first: `cart` (default: cart-type), `history`, or `all`.
    pub async fn orders_of(&self, subject: Uuid, which: Which) -> Result<Vec<Record>> {
        let ids: Vec<Val> = self
            .owners
            .order_ids(subject)
            .await?
            .into_iter()
            .map(Val::Uuid)
            .collect();
        let rows = self
            .store
            .find_in(&self.e.order, "id", &ids, ids.len() + 1)
            .await?;
        let mut typed = Vec::with_capacity(rows.len());
        for r in rows {
            let o = OrderRow::of(&r)?;
            let shown = match which {
                Which::All => true,
                Which::History => o.kind == "history",
                Which::Cart => o.kind == "cart",
            };
            if shown {
                typed.push((o.created_at, r));
            }
        }
        // Newest first.
        typed.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(typed.into_iter().map(|(_, r)| r).collect())
    }

    /// The subject's cart orders still open (`new`): what the cart shows and a checkout pays.
    pub async fn open_orders(&self, subject: Uuid) -> Result<Vec<Record>> {
        let mut rows = self.orders_of(subject, Which::Cart).await?;
        rows.retain(|o| OrderRow::of(o).is_ok_and(|o| o.status == "new"));
        Ok(rows)
    }

    pub async fn list(&self, subject: Uuid, which: Which) -> Result<Vec<OrderView>> {
        let rows = self.orders_of(subject, which).await?;
        let loaded = self.load(rows).await?;
        Ok(loaded
            .orders
            .iter()
            .map(|o| self.view(&loaded, o))
            .collect())
    }

    /// One of the subject's orders (404 when it is someone else's) with its status history.
    pub async fn one(&self, subject: Uuid, order: Uuid) -> Result<OwnerOrder> {
        let row = self.owned(subject, order).await?;
        let loaded = self.load(vec![row]).await?;
        let base = self.view(&loaded, &loaded.orders[0]);
        // The buyer sees when and to what; who changed it and why stay with the admins.
        let steps = self
            .history(order)
            .await?
            .iter()
            .filter_map(|c| ChangeRow::of(c).ok())
            .map(|c| OrderStep {
                id: c.id,
                created_at: c.created_at,
                from: c.from,
                to: c.to,
            })
            .collect();
        Ok(More {
            base,
            more: OwnerMore {
                status_changes: steps,
                payments: self.payments_of(order).await?,
                receipt_url: self.receipt_url(order).await?,
            },
        })
    }

    /// The order's invoices as its buyer sees them, oldest first: where each stands, through which
    /// provider, for how much, and — while one is still open — the provider's page to pay it on
    /// (a buyer who left that page comes back to it from the order). The provider's own ids and
    /// the return addresses stay with the admins.
    pub(super) async fn payments_of(&self, order: Uuid) -> Result<Vec<Payment>> {
        let intents = self.intents_of(order).await?;
        Ok(self
            .billing
            .invoices_of(&intents)
            .await?
            .iter()
            .filter_map(|i| {
                let i = stoa_billing::rows::InvoiceRow::of(i).ok()?;
                let status = InvoiceState::of(i.status.as_deref().unwrap_or("draft"))?;
                let url = i
                    .payment_url
                    .filter(|u| status == InvoiceState::Open && !u.is_empty());
                Some(Payment {
                    id: i.id,
                    status,
                    provider: i.provider,
                    amount: Amount(i.amount.unwrap_or_default()),
                    created_at: i.created_at,
                    payment_url: url,
                })
            })
            .collect())
    }

    /// The URL of the order's receipt once it is made (at payment), else `None`.
    pub(super) async fn receipt_url(&self, order: Uuid) -> Result<Option<String>> {
        let link = self
            .store
            .entity("ecommerce.orders-to-file-storage-module-files")?;
        let existing = self
            .store
            .find_by(
                &link,
                &[
                    ("orderId", Val::Uuid(order)),
                    ("variant", Val::Text("receipt-default".into())),
                ],
                1,
            )
            .await?;
        match existing
            .first()
            .map(crate::rows::OrderFileRow::of)
            .transpose()?
            .and_then(|r| r.file_id)
        {
            Some(fid) => self.files.url_of(fid).await,
            None => Ok(None),
        }
    }

    /// The order's status changes, oldest first.
    pub async fn history(&self, order: Uuid) -> Result<Vec<Record>> {
        let mut rows = self
            .store
            .find_by(&self.e.change, &[("orderId", Val::Uuid(order))], 200)
            .await?;
        rows.sort_by_cached_key(|r| ChangeRow::of(r).ok().map(|c| c.created_at));
        Ok(rows)
    }

    /// An order `subject` owns, or 404 (someone else's order is indistinguishable from none).
    pub async fn owned(&self, subject: Uuid, order: Uuid) -> Result<Record> {
        let owners = self.owners.order_owners(&[order]).await?;
        if !owners.iter().any(|(o, s)| *o == order && *s == subject) {
            return Err(Error::not_found(format!("order {order} not found")));
        }
        self.store.get(&self.e.order, order).await
    }

    /// Σ quantity over the subject's cart orders still open (`new`): the cart badge.
    pub async fn quantity(&self, subject: Uuid) -> Result<i64> {
        let rows: Vec<Record> = self.open_orders(subject).await?;
        let ids: Vec<Uuid> = rows.iter().filter_map(Record::id).collect();
        Ok(self.lines_of(&ids).await?.iter().map(|l| l.quantity).sum())
    }

    /// Totals of the open cart per currency (each order counted in its own currency).
    pub async fn totals(&self, subject: Uuid) -> Result<Vec<CartGroup>> {
        let rows: Vec<Record> = self.open_orders(subject).await?;
        let loaded = self.load(rows).await?;
        let mut groups: BTreeMap<Uuid, (Decimal, Vec<OrderView>)> = BTreeMap::new();
        for o in &loaded.orders {
            let oid = Record::must_id(o)?;
            let Some(c) = loaded.currency_of.get(&oid).copied() else {
                continue;
            };
            let Ok((amount, _, _)) = loaded.checkout_attributes(oid, c) else {
                continue;
            };
            let g = groups.entry(c).or_default();
            g.0 = g.0.checked_add(amount).unwrap_or(g.0);
            g.1.push(self.view(&loaded, o));
        }
        Ok(groups
            .into_iter()
            .filter_map(|(c, (t, orders))| {
                Some(CartGroup {
                    billing_module_currency: loaded.currency(c)?.clone(),
                    total: Amount(t),
                    orders,
                })
            })
            .collect())
    }
}
