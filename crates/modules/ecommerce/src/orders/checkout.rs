//! Checkout: the subject's cart orders into payment intents and invoices, and the orders to `paying`.

use super::*;

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
        let provider = body.provider.as_str();
        let adapter = self.billing.provider(provider)?;
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
        let language = body
            .language
            .map_or(self.default_language.as_str(), |l| l.code())
            .to_owned();
        let comment = comment(body.comment.as_deref())?;
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
        let mut orders = Vec::with_capacity(rows.len());
        for row in &rows {
            let o = Record::must_id(row)?;
            if row.text("status") != Some("new") || row.text("type") != Some("cart") {
                return Err(Error::conflict_field(
                    "ecommerceModule.orders",
                    format!(
                        "order {o} is not in the cart any more (status {})",
                        row.text("status").unwrap_or("?")
                    ),
                ));
            }
            orders.push(o);
        }
        let mut loaded = self.load(rows).await?;
        // Checked before anything changes, so bad input changes nothing…
        group_orders(&loaded)?;
        let list = orders
            .iter()
            .map(Uuid::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let success = format!(
            "{}/{language}/ecommerce/checkout/success?orders={list}",
            self.public_url
        );
        let cancel = format!(
            "{}/{language}/ecommerce/checkout/cancel?orders={list}",
            self.public_url
        );
        let mut payments = Vec::new();
        let mut numbers: HashMap<Uuid, i64> = HashMap::new();
        let roles = self.owners.products_carry_roles().await?;
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            if let Some(e) = &email {
                self.subjects.ensure_email(&mut exec, subject, e).await?;
            }
            for o in &loaded.orders {
                let row = self
                    .transition_in(
                        &mut exec,
                        o,
                        "paying",
                        By::System,
                        actor,
                        None,
                        false,
                        roles,
                    )
                    .await
                    .map_err(|e| match e {
                        Error::Conflict { .. } => Error::conflict_field(
                            "ecommerceModule.orders",
                            "these orders are already being paid",
                        ),
                        other => other,
                    })?;
                let oid = Record::must_id(&row)?;
                let mut lang = Map::new();
                lang.insert("language".into(), json!(language));
                if let Some(e) = &email {
                    lang.insert("email".into(), json!(e));
                }
                if let Some(c) = &comment {
                    lang.insert("comment".into(), json!(c));
                }
                self.store
                    .update_in(&mut exec, &self.e.order, oid, &lang)
                    .await?;
                if row.int("number").is_none() {
                    let n = stoa_store::counters::next(
                        &mut exec,
                        ORDER_NUMBERS,
                        &self.e.order,
                        "number",
                        FIRST_ORDER_NUMBER,
                    )
                    .await?;
                    repo::set_if(
                        &mut exec,
                        &self.e.order,
                        oid,
                        &[("number", Val::Int(n))],
                        &[],
                    )
                    .await?;
                    numbers.insert(oid, n);
                } else if let Some(n) = row.int("number") {
                    numbers.insert(oid, n);
                }
                // Links to intents of an earlier, abandoned checkout are replaced. (Reads inside
                // the transaction go through it: a second pooled connection per checkout would
                // let concurrent checkouts exhaust the pool waiting on each other.)
                let stale = FindQuery::all()
                    .eq(&self.e.o2i, "orderId", Val::Uuid(oid))?
                    .take(100);
                for l in repo::find(&mut exec, &self.e.o2i, &stale).await?.0 {
                    repo::delete(&mut exec, &self.e.o2i, Record::must_id(&l)?).await?;
                }
                // The payment timeout is the sweep's (`JOB_SWEEP`), not a job row per checkout.
            }
            // …and computed again once the orders are `paying`: a quantity change that committed
            // before is charged, one that comes after fails its own `status = new` check.
            loaded.lines = self.lines_in(&mut exec, &orders).await?;
            let groups = group_orders(&loaded)?;
            for ((currency, kind, interval), (amount, members)) in &groups {
                let intent = self
                    .billing
                    .create_intent(&mut exec, *amount, *currency, kind, interval.as_deref())
                    .await?;
                for oid in members {
                    self.store
                        .link_in(
                            &mut exec,
                            &self.e.o2i,
                            ("orderId", *oid),
                            ("billingModulePaymentIntentId", intent),
                        )
                        .await?;
                }
                let cur = loaded
                    .currency(*currency)
                    .map(|c| c.slug.clone())
                    .unwrap_or_default();
                // Refused before anything is kept: the transaction is dropped with the error.
                if !cur.is_empty() {
                    self.billing.takes(adapter.as_ref(), &cur)?;
                }
                let invoice = self
                    .billing
                    .draft_invoice(&mut exec, &[intent], provider, *amount, &success, &cancel)
                    .await?;
                let payment = NewPayment {
                    invoice,
                    intents: vec![intent],
                    amount: *amount,
                    currency: cur,
                    email: email.clone(),
                    description: format!(
                        "{} {}",
                        if language == "ru" {
                            "Заказ"
                        } else {
                            "Order"
                        },
                        members
                            .iter()
                            .map(|m| numbers
                                .get(m)
                                .map_or_else(|| m.to_string(), |n| format!("№ {n}")))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    success_url: success.clone(),
                    cancel_url: cancel.clone(),
                    kind: kind.clone(),
                    interval: interval.clone(),
                };
                // A provider that answers without a network call starts the payment here.
                let opened = self.billing.start_in(&mut exec, &payment, provider).await?;
                payments.push((members.clone(), payment, opened));
            }
        }
        tx.commit().await?;
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
                    // The payment never started: these orders go back to the cart, to be paid
                    // again with this or another provider.
                    for oid in &members {
                        self.transition(
                            *oid,
                            "new",
                            By::System,
                            actor,
                            Some(PAYMENT_NOT_STARTED),
                            false,
                        )
                        .await?;
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
        tracing::info!(subject = %subject, orders = orders.len(), invoices = invoices.len(), provider, "checkout");
        Ok(CheckoutResult {
            billing_module: CheckoutInvoices { invoices },
            ecommerce_module: CheckoutOrders { orders },
        })
    }
}
