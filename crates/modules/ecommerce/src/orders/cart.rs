//! The cart: adding products, changing and removing lines, an order's quantity and total.

use super::*;

impl Commerce {
    /// The store an order goes to: the one named, or the only one.
    pub(super) async fn pick_store(
        &self,
        named: Option<Uuid>,
        selling: &[Uuid],
    ) -> Result<Option<Uuid>> {
        if let Some(s) = named {
            if self
                .store
                .find_by(&self.e.store, &[("id", Val::Uuid(s))], 1)
                .await?
                .is_empty()
            {
                return Err(Error::invalid_field("storeId", format!("no store {s}")));
            }
            return Ok(Some(s));
        }
        match selling {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(Error::invalid_field(
                "storeId",
                "several stores sell this product; choose one",
            )),
        }
    }

    /// The currency to charge `product` in: the one named (it must have a price in it), else the
    /// default currency if priced in it, else the first it is priced in.
    pub(super) fn pick_currency(&self, prices: &[Price], named: Option<Uuid>) -> Result<Uuid> {
        if let Some(c) = named {
            return prices
                .iter()
                .find(|p| p.currency.id == c)
                .map(|p| p.currency.id)
                .ok_or_else(|| {
                    Error::invalid_field(
                        "billingModule.currency.id",
                        "the product has no price in this currency",
                    )
                });
        }
        prices
            .iter()
            .find(|p| p.currency.is_default)
            .or_else(|| prices.first())
            .map(|p| p.currency.id)
            .ok_or_else(|| {
                Error::invalid_field(
                    "productId",
                    "the product has no price, so it cannot be bought",
                )
            })
    }

    /// Adds a product to the subject's cart: a line already holding it (same currency, order
    /// still open) grows; otherwise a new cart order with one line. `fresh` always makes a new
    /// order (buy now). Returns the order id.
    pub async fn add(&self, subject: Uuid, body: &AddToCart, fresh: bool) -> Result<Uuid> {
        Ok(self.add_then(subject, body, fresh).await?.0)
    }

    /// [`Self::add`], answered with the order as [`Self::one`] shows it. A new order's view is
    /// made from the rows just written and the product and prices already read (a new order
    /// has no status changes, payments or receipt yet), instead of reading them all again (a
    /// dozen reads an add).
    pub async fn add_and_show(&self, subject: Uuid, body: &AddToCart) -> Result<OwnerOrder> {
        match self.add_then(subject, body, false).await? {
            (_, Some(loaded)) => Ok(More {
                base: self.view(&loaded, &loaded.orders[0]),
                more: OwnerMore {
                    status_changes: Vec::new(),
                    payments: Vec::new(),
                    receipt_url: None,
                },
            }),
            (order, None) => self.one(subject, order).await,
        }
    }

    /// [`Self::add`]: the order, and when it is new, everything its view needs (already read or
    /// just written).
    pub(super) async fn add_then(
        &self,
        subject: Uuid,
        body: &AddToCart,
        fresh: bool,
    ) -> Result<(Uuid, Option<Loaded>)> {
        let product = body.product_id;
        let qty = quantity("quantity", body.quantity)?;
        let listing = self
            .catalog
            .listings(&self.store, &[product])
            .await?
            .remove(&product)
            .unwrap_or_default();
        let Some(product_row) = listing.product.clone() else {
            return Err(Error::invalid_field(
                "productId",
                format!("no product {product}"),
            ));
        };
        let price_list = listing.prices.clone();
        let currency = self.pick_currency(&price_list, body.currency())?;
        let store = self.pick_store(body.store_id, &listing.stores).await?;
        let comment = comment(body.comment.as_deref())?;
        if !self.subjects.exists(subject).await? {
            return Err(Error::not_found(format!("subject {subject} not found")));
        }
        if !fresh && let Some(oid) = self.grow_open_line(subject, product, currency, qty).await? {
            return Ok((oid, None));
        }
        let (order_row, line_row) = self
            .new_cart_order(subject, product, qty, currency, store, comment)
            .await?;
        let oid = Record::must_id(&order_row)?;
        let loaded = Loaded {
            orders: vec![order_row],
            lines: vec![LineRow::of(&line_row)?],
            products: HashMap::from([(product, ProductRow::of(&product_row)?)]),
            prices: HashMap::from([(product, price_list)]),
            currency_of: HashMap::from([(oid, currency)]),
            // A view shows no intervals (a checkout reads them).
            intervals: HashMap::new(),
        };
        Ok((oid, Some(loaded)))
    }

    /// Adds `qty` to the line holding `product` in one of `subject`'s open orders in `currency`;
    /// the order grown, or `None` when no such line is (or its order was moved on meanwhile).
    async fn grow_open_line(
        &self,
        subject: Uuid,
        product: Uuid,
        currency: Uuid,
        qty: i64,
    ) -> Result<Option<Uuid>> {
        let open: Vec<Record> = self.open_orders(subject).await?;
        let loaded = self.load(open).await?;
        for o in &loaded.orders {
            let oid = Record::must_id(o)?;
            if loaded.currency_of.get(&oid) != Some(&currency) {
                continue;
            }
            if let Some(line) = loaded.lines_of(oid).find(|l| l.product_id == Some(product)) {
                let q = (line.quantity + qty).min(MAX_QUANTITY);
                let mut tx = self.store.begin().await?;
                let mut exec = tx.exec();
                // The order must still be open (compare-and-set first: a checkout that has
                // moved it on makes this a new order instead).
                let still = self.lock_open(&mut exec, oid).await?;
                if !still {
                    drop(tx);
                    break;
                }
                repo::set_if(
                    &mut exec,
                    &self.e.line,
                    line.id,
                    &[("quantity", Val::Int(q))],
                    &[],
                )
                .await?;
                tx.commit().await?;
                return Ok(Some(oid));
            }
        }
        Ok(None)
    }

    /// Writes a new cart order of `subject` with one line of `product`, in `currency` and at
    /// `store` when one is named: the order's and the line's rows.
    async fn new_cart_order(
        &self,
        subject: Uuid,
        product: Uuid,
        qty: i64,
        currency: Uuid,
        store: Option<Uuid>,
        comment: Option<String>,
    ) -> Result<(Record, Record)> {
        let mut tx = self.store.begin().await?;
        let (order_row, line_row) = {
            let mut exec = tx.exec();
            let order_row = self
                .store
                .create_in(
                    &mut exec,
                    &self.e.order,
                    &fields(json!({"status": "new", "type": "cart", "comment": comment})),
                )
                .await?;
            let oid = Record::must_id(&order_row)?;
            let line_row = self
                .store
                .create_in(
                    &mut exec,
                    &self.e.line,
                    &fields(json!({"orderId": oid, "productId": product, "quantity": qty})),
                )
                .await?;
            // The links go out with the commit (PostgreSQL): one statement, not three.
            self.store
                .link_later(
                    &mut exec,
                    &self.e.o2c,
                    ("orderId", oid),
                    ("billingModuleCurrencyId", currency),
                )
                .await?;
            if let Some(s) = store {
                self.store
                    .link_later(&mut exec, &self.e.s2o, ("storeId", s), ("orderId", oid))
                    .await?;
            }
            self.owners.link_order(&mut exec, subject, oid).await?;
            (order_row, line_row)
        };
        tx.commit().await?;
        Ok((order_row, line_row))
    }

    /// Sets line quantities of an open order (`ordersToProducts: [{id, quantity}]`); lines of
    /// other orders are ignored.
    pub async fn update_lines(
        &self,
        subject: Uuid,
        order: Uuid,
        body: &Lines,
    ) -> Result<OwnerOrder> {
        let row = self.owned(subject, order).await?;
        if body.orders_to_products.len() > 100 {
            return Err(Error::invalid_field(
                "ordersToProducts",
                "at most 100 lines at once",
            ));
        }
        let mut changes = Vec::new();
        for (n, it) in body.orders_to_products.iter().enumerate() {
            let field = format!("ordersToProducts[{n}].quantity");
            changes.push((it.id, quantity(&field, Some(it.quantity))?));
        }
        self.set_quantities(&row, order, &changes).await?;
        self.one(subject, order).await
    }

    /// Sets line quantities of `order` (its row `row`) while it is still in the cart: lines that
    /// are not the order's are left alone; 409 once the order left the cart.
    pub(super) async fn set_quantities(
        &self,
        row: &Record,
        order: Uuid,
        changes: &[(Uuid, i64)],
    ) -> Result<()> {
        if OrderRow::of(row)?.status != "new" {
            return Err(Error::conflict_field(
                "status",
                "only an order still in the cart (status new) can be changed",
            ));
        }
        let lines: HashSet<Uuid> = self
            .store
            .find_by(&self.e.line, &[("orderId", Val::Uuid(order))], 100)
            .await?
            .iter()
            .filter_map(|l| l.id())
            .collect();
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            if !self.lock_open(&mut exec, order).await? {
                return Err(Error::conflict_field(
                    "status",
                    "the order left the cart meanwhile",
                ));
            }
            for (id, n) in changes.iter().filter(|(id, _)| lines.contains(id)) {
                repo::set_if(
                    &mut exec,
                    &self.e.line,
                    *id,
                    &[("quantity", Val::Int(*n))],
                    &[],
                )
                .await?;
            }
        }
        tx.commit().await
    }

    /// Σ line quantities of `order` (0 for an order without lines, where the original answered
    /// 500): `GET /api/ecommerce/orders/{id}/quantity`.
    pub async fn order_quantity(&self, order: Uuid) -> Result<i64> {
        self.store.get(&self.e.order, order).await?;
        Ok(self
            .lines_of(&[order])
            .await?
            .iter()
            .map(|l| l.quantity)
            .sum())
    }

    /// The totals of every line of `order`, one after another (one per line and price
    /// currency): `GET /api/ecommerce/orders/{id}/total`.
    pub async fn order_total(&self, order: Uuid) -> Result<Vec<Money>> {
        let loaded = self
            .load(vec![self.store.get(&self.e.order, order).await?])
            .await?;
        let v = self.view(&loaded, &loaded.orders[0]);
        Ok(v.more
            .orders_to_products
            .into_iter()
            .flat_map(|l| l.more.total)
            .collect())
    }

    /// Sets the quantity of line `line` of `order` (admins):
    /// `PATCH /api/ecommerce/orders/{id}/orders-to-products/{orderToProductId}`. The original merged
    /// any body into any line; here only `quantity` changes (the body takes nothing else), of a
    /// line of that order, while the order is still in the cart.
    pub async fn set_line(&self, order: Uuid, line: Uuid, body: &SetLine) -> Result<Record> {
        let n = quantity("quantity", Some(body.quantity))?;
        let row = self.store.get(&self.e.order, order).await?;
        let l = LineRow::of(&self.store.get(&self.e.line, line).await?)?;
        if l.order_id != order {
            return Err(Error::not_found(format!(
                "line {line} is not a line of order {order}"
            )));
        }
        if OrderRow::of(&row)?.kind != "cart" {
            return Err(Error::conflict_field(
                "status",
                "only an order still in the cart (status new) can be changed",
            ));
        }
        self.set_quantities(&row, order, &[(line, n)]).await?;
        self.store.get(&self.e.line, line).await
    }

    /// Deletes an open order of the subject (its lines and links cascade).
    pub async fn remove(&self, subject: Uuid, order: Uuid) -> Result<Record> {
        let row = self.owned(subject, order).await?;
        if OrderRow::of(&row)?.status != "new" {
            return Err(Error::conflict_field(
                "status",
                "only an order still in the cart (status new) can be deleted",
            ));
        }
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            // Compare-and-delete: the order must still be new.
            if !self.lock_open(&mut exec, order).await? {
                return Err(Error::conflict_field(
                    "status",
                    "the order left the cart meanwhile",
                ));
            }
            repo::delete(&mut exec, &self.e.order, order).await?;
        }
        tx.commit().await?;
        Ok(row)
    }

    /// Locks an order that must still be in the cart for the rest of the caller's transaction
    /// (a compare-and-set of `status = new` onto itself): `false` when it has left the cart, so a
    /// concurrent checkout and a cart edit cannot both pass.
    pub(super) async fn lock_open(&self, exec: &mut Exec<'_>, order: Uuid) -> Result<bool> {
        let open = [("status", Val::Text("new".into()))];
        Ok(repo::set_if(exec, &self.e.order, order, &open, &open)
            .await?
            .is_some())
    }
}
