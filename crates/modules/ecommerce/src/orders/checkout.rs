//! Checkout: the subject's cart orders into payment intents and invoices, and the orders to `paying`.
//! In four steps: the payer and the orders checked (nothing written), the orders placed and
//! charged in one transaction, then the payments opened at the provider (a network call, so
//! outside it).

use stoa_billing::provider::Provider;

use super::*;

/// How a checkout is paid, checked: the provider, and the buyer's address, language and comment.
struct Paying {
    provider: String,
    adapter: Arc<dyn Provider>,
    email: Option<String>,
    language: String,
    comment: Option<String>,
}

/// A payment a checkout started: the orders it pays, what was asked, and the invoice when the
/// provider answered inside the transaction (a local one).
type Started = (Vec<Uuid>, NewPayment, Option<Record>);

impl Commerce {
    /// Checkout of the subject's open orders with a provider: intents per (currency, type,
    /// interval), one invoice per intent, orders to `paying`. Returns the invoices.
    pub async fn checkout(
        &self,
        subject: Uuid,
        picked: Picked,
        body: &Payer,
        actor: &str,
    ) -> Result<CheckoutResult> {
        let paying = self.paying(body)?;
        let rows = self.checkable(subject, picked).await?;
        let orders: Vec<Uuid> = rows.iter().filter_map(Record::id).collect();
        let mut loaded = self.load(rows).await?;
        // Checked before anything changes, so bad input changes nothing…
        group_orders(&loaded)?;
        let roles = self.owners.products_carry_roles().await?;
        let mut tx = self.store.begin().await?;
        let payments = {
            let mut exec = tx.exec();
            if let Some(e) = &paying.email {
                self.subjects.ensure_email(&mut exec, subject, e).await?;
            }
            let numbers = self
                .place_in(&mut exec, &loaded, &paying, actor, roles)
                .await?;
            // …and computed again once the orders are `paying`: a quantity change that committed
            // before is charged, one that comes after fails its own `status = new` check.
            loaded.lines = self.lines_in(&mut exec, &orders).await?;
            self.charge_in(&mut exec, &loaded, &orders, &paying, &numbers)
                .await?
        };
        tx.commit().await?;
        let invoices = self.open(payments, &paying.provider, actor).await?;
        tracing::info!(subject = %subject, orders = orders.len(), invoices = invoices.len(), provider = %paying.provider, "checkout");
        Ok(CheckoutResult {
            billing_module: CheckoutInvoices { invoices },
            ecommerce_module: CheckoutOrders { orders },
        })
    }

    /// The payer as sent, checked: a provider offered here, an address when it needs one.
    fn paying(&self, body: &Payer) -> Result<Paying> {
        let adapter = self.billing.provider(&body.provider)?;
        let email = match body.email.as_deref().filter(|e| !e.trim().is_empty()) {
            Some(e) => Some(stoa_rbac::service::normalise_email("email", e)?),
            None if adapter.needs_email() => {
                return Err(Error::invalid_field(
                    "email",
                    "is required to send the invoice",
                ));
            }
            None => None,
        };
        Ok(Paying {
            provider: body.provider.clone(),
            adapter,
            email,
            language: body
                .language
                .map_or(self.default_language.as_str(), |l| l.code())
                .to_owned(),
            comment: comment(body.comment.as_deref())?,
        })
    }

    /// The orders `picked`, each the subject's and still in the cart (at least one, at most
    /// [`MAX_CHECKOUT_ORDERS`]).
    async fn checkable(&self, subject: Uuid, picked: Picked) -> Result<Vec<Record>> {
        let count = match &picked {
            Picked::Ids(ids) => ids.len(),
            Picked::Open(rows) => rows.len(),
        };
        if count == 0 {
            return Err(Error::invalid_field(
                "ecommerceModule.orders",
                "choose at least one order",
            ));
        }
        if count > MAX_CHECKOUT_ORDERS {
            return Err(Error::invalid_field(
                "ecommerceModule.orders",
                format!("at most {MAX_CHECKOUT_ORDERS} orders at once"),
            ));
        }
        let rows = match picked {
            Picked::Ids(ids) => {
                let mut rows = Vec::with_capacity(ids.len());
                for o in ids {
                    rows.push(self.owned(subject, o).await?);
                }
                rows
            }
            Picked::Open(rows) => rows,
        };
        for row in &rows {
            let o = OrderRow::of(row)?;
            if !o.in_cart() {
                return Err(Error::conflict_field(
                    "ecommerceModule.orders",
                    format!(
                        "order {} is not in the cart any more (status {})",
                        o.id, o.status
                    ),
                ));
            }
        }
        Ok(rows)
    }

    /// Places the loaded orders inside the checkout's transaction: each to `paying` (a
    /// concurrent checkout of the same orders fails here), with the buyer's language, address
    /// and comment, and a number people read (`№ 1001`); links to an earlier, abandoned
    /// checkout's intents go. Answers each order's number.
    async fn place_in(
        &self,
        exec: &mut Exec<'_>,
        loaded: &Loaded,
        paying: &Paying,
        actor: &str,
        roles: bool,
    ) -> Result<HashMap<Uuid, i64>> {
        let mut numbers = HashMap::new();
        for o in &loaded.orders {
            // The buyer's fields, the number (taken first when the order has none: a checkout
            // that fails after leaves a gap on PostgreSQL, as any failed checkout does) and the
            // status, in one statement.
            let placed = OrderRow::of(o)?;
            let number = match placed.number {
                Some(n) => n,
                None => {
                    stoa_store::counters::next(
                        exec,
                        ORDER_NUMBERS,
                        &self.e.order,
                        "number",
                        FIRST_ORDER_NUMBER,
                    )
                    .await?
                }
            };
            let mut extra = vec![
                ("language", Val::Text(paying.language.clone())),
                ("number", Val::Int(number)),
                ("updatedAt", Val::Timestamp(now())),
            ];
            if let Some(e) = &paying.email {
                extra.push(("email", Val::Text(e.clone())));
            }
            if let Some(c) = &paying.comment {
                extra.push(("comment", Val::Text(c.clone())));
            }
            // An order read without a number must still have none: then no checkout linked it
            // to an intent (below), even one that committed since it was read.
            let held: &[(&str, Val)] = if placed.number.is_none() {
                &[("number", Val::Null)]
            } else {
                &[]
            };
            self.transition_with(exec, o, Move::to("paying", actor), roles, extra, held)
                .await
                .map_err(|e| match e {
                    Error::Conflict { .. } => Error::conflict_field(
                        "ecommerceModule.orders",
                        "these orders are already being paid",
                    ),
                    other => other,
                })?;
            let oid = placed.id;
            numbers.insert(oid, number);
            // Links to intents of an earlier, abandoned checkout are replaced. An order without
            // a number was never placed, so no checkout linked it to an intent (the number and
            // the links commit together, and the compare-and-set above held it without one):
            // nothing to look for — one read less for most checkouts. (Reads inside the
            // transaction go through it: a second pooled connection per checkout would let
            // concurrent checkouts exhaust the pool waiting on each other.)
            if placed.number.is_none() {
                continue;
            }
            let stale = FindQuery::all()
                .eq(&self.e.o2i, "orderId", Val::Uuid(oid))?
                .take(100);
            for l in repo::find(exec, &self.e.o2i, &stale).await?.0 {
                repo::delete(exec, &self.e.o2i, Record::must_id(&l)?).await?;
            }
            // The payment timeout is the sweep's (`JOB_SWEEP`), not a job row per checkout.
        }
        Ok(numbers)
    }

    /// Charges the placed orders inside the checkout's transaction: one payment intent and one
    /// draft invoice per (currency, type, interval), the orders linked to it; a provider that
    /// answers without a network call starts its payment here too.
    async fn charge_in(
        &self,
        exec: &mut Exec<'_>,
        loaded: &Loaded,
        orders: &[Uuid],
        paying: &Paying,
        numbers: &HashMap<Uuid, i64>,
    ) -> Result<Vec<Started>> {
        let list = orders
            .iter()
            .map(Uuid::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let back = |to: &str| {
            format!(
                "{}/{}/ecommerce/checkout/{to}?orders={list}",
                self.public_url, paying.language
            )
        };
        let (success, cancel) = (back("success"), back("cancel"));
        let provider = paying.provider.as_str();
        let mut started = Vec::new();
        for ((currency, kind, interval), (amount, members)) in &group_orders(loaded)? {
            let intent = self
                .billing
                .create_intent(exec, *amount, *currency, kind, interval.as_deref())
                .await?;
            for oid in members {
                let link = ("billingModulePaymentIntentId", intent);
                // Sent with the invoice's insert (PostgreSQL).
                self.store
                    .link_later(exec, &self.e.o2i, ("orderId", *oid), link)
                    .await?;
            }
            let cur = loaded
                .currency(*currency)
                .map(|c| c.slug.clone())
                .unwrap_or_default();
            // Refused before anything is kept: the transaction is dropped with the error.
            if !cur.is_empty() {
                self.billing.takes(paying.adapter.as_ref(), &cur)?;
            }
            let invoice = self
                .billing
                .draft_invoice(exec, &[intent], provider, *amount, &success, &cancel)
                .await?;
            let named = members
                .iter()
                .map(|m| {
                    numbers
                        .get(m)
                        .map_or_else(|| m.to_string(), |n| format!("№ {n}"))
                })
                .collect::<Vec<_>>()
                .join(", ");
            let word = if paying.language == "ru" {
                "Заказ"
            } else {
                "Order"
            };
            let payment = NewPayment {
                invoice,
                intents: vec![intent],
                amount: *amount,
                currency: cur,
                email: paying.email.clone(),
                description: format!("{word} {named}"),
                success_url: success.clone(),
                cancel_url: cancel.clone(),
                kind: kind.clone(),
                interval: interval.clone(),
            };
            let opened = self.billing.start_in(exec, &payment, provider).await?;
            started.push((members.clone(), payment, opened));
        }
        Ok(started)
    }

    /// Opens the started payments at the provider (those it did not answer in the transaction).
    /// A payment the provider refuses gives its orders back to the cart, to be paid again with
    /// this or another provider; when none opened, the checkout fails with the provider's error.
    async fn open(
        &self,
        payments: Vec<Started>,
        provider: &str,
        actor: &str,
    ) -> Result<Vec<CheckoutInvoice>> {
        let mut invoices = Vec::new();
        let mut failure = None;
        for (members, p, opened) in payments {
            let opened = match opened {
                Some(row) => Ok(row),
                None => self.billing.open_invoice(&p, provider).await,
            };
            let row = match opened {
                Ok(row) => row,
                Err(e) => {
                    for oid in &members {
                        let back = Move::to("new", actor).because(PAYMENT_NOT_STARTED);
                        self.transition(*oid, back).await?;
                    }
                    failure = Some(e);
                    continue;
                }
            };
            let text = |k: &str| row.text(k).map(str::to_owned);
            invoices.push(CheckoutInvoice {
                id: Record::must_id(&row)?,
                status: text("status"),
                provider: text("provider"),
                amount: Amount(p.amount),
                currency: p.currency,
                payment_url: text("paymentUrl"),
                success_url: text("successUrl"),
                cancel_url: text("cancelUrl"),
            });
        }
        if let (Some(e), true) = (failure, invoices.is_empty()) {
            return Err(match e {
                Error::Unavailable(m) => Error::Unavailable(format!(
                    "{m}; nothing was charged and the cart is as it was"
                )),
                other => other,
            });
        }
        Ok(invoices)
    }
}
