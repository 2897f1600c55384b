//! Carts, checkout and the order lifecycle. Money is computed here only, from the price
//! attributes, with exact decimals; amounts a client sends are never read. A subject sees and
//! changes only its own orders (rbac's subject service says which those are).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};
use stoa_billing::provider::NewPayment;
use stoa_billing::service::Billing;
use stoa_kernel::model::Entity;
use stoa_kernel::query::{FilterValue, FindQuery, Op};
use stoa_kernel::value::{Val, fields, now, parse_timestamp};
use stoa_kernel::{Error, Result};
use stoa_notification::mail::{Email, Mailer};
use stoa_rbac::subjects::Subjects;
use stoa_store::jobs::enqueue;
use stoa_store::{Exec, Record, Store, repo};
use uuid::Uuid;

use crate::prices::{self, Price};
use crate::status::{self, By};

pub const JOB_PAID: &str = "ecommerce.intents-paid";
/// One paying order's timeout: written by earlier versions at each checkout, still run for the
/// rows they left (the sweep, [`JOB_SWEEP`], times orders out now).
pub const JOB_TIMEOUT: &str = "ecommerce.order-timeout";
pub const JOB_NOTIFY: &str = "ecommerce.order-notify";
pub const JOB_SUBJECT_CHECK: &str = "ecommerce.subject-check";
pub const JOB_CLEAR: &str = "ecommerce.clear-old-orders";
pub const JOB_SWEEP: &str = "ecommerce.sweep";

/// Largest quantity of one line.
pub const MAX_QUANTITY: i64 = 10_000;
/// Most orders one checkout may pay.
pub const MAX_CHECKOUT_ORDERS: usize = 100;
/// Orders one page of a sweep reads.
const SWEEP: u64 = 500;
/// How long one sweep (or clear-old-orders) pages on before leaving the rest to the next run.
const SWEEP_BUDGET: std::time::Duration = std::time::Duration::from_secs(120);
/// Paying orders younger than this past [`DRAFT_GRACE`] are looked at for draft invoices (a few
/// sweeps' worth).
const DRAFT_WINDOW: time::Duration = time::Duration::minutes(30);
/// How long a checkout's invoices may stay drafts (the provider not yet asked) before the sweep
/// gives the orders back to the cart.
const DRAFT_GRACE: time::Duration = time::Duration::minutes(2);
/// The history's reason when a provider failed to start the payment and the orders went back.
pub const PAYMENT_NOT_STARTED: &str = "the payment provider did not start the payment";
/// The most payments one dashboard window reads (a month of 1 000 paid orders a day fits).
const STATS_CAP: u64 = 50_000;

/// The counter of order numbers and where it starts (a shop's first order is № 1001).
pub const ORDER_NUMBERS: &str = "ecommerce.order.number";
pub const FIRST_ORDER_NUMBER: i64 = 1001;

pub const BUYER_TEMPLATE: &str = "generate-email-ecommerce-order-status-changed-default";
pub const ADMIN_TEMPLATE: &str = "generate-email-ecommerce-order-status-changed-admin";

/// A quantity: a whole number from 1 to [`MAX_QUANTITY`] (a JSON number or a string of digits).
pub fn quantity(field: &str, v: Option<&Value>) -> Result<i64> {
    let bad = || {
        Error::invalid_field(
            field,
            format!("must be a whole number from 1 to {MAX_QUANTITY}"),
        )
    };
    let n = match v {
        None | Some(Value::Null) => return Ok(1),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(bad)?,
        Some(Value::String(s))
            if !s.is_empty() && s.len() < 12 && s.bytes().all(|b| b.is_ascii_digit()) =>
        {
            s.parse::<i64>().map_err(|_| bad())?
        }
        _ => return Err(bad()),
    };
    if (1..=MAX_QUANTITY).contains(&n) {
        Ok(n)
    } else {
        Err(bad())
    }
}

fn uuid_field(body: &Map<String, Value>, path: &[&str], name: &str) -> Result<Option<Uuid>> {
    let mut v = Some(&Value::Object(body.clone()));
    for p in path {
        v = v.and_then(|x| x.get(*p));
    }
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Uuid::parse_str(s)
            .map(Some)
            .map_err(|_| Error::invalid_field(name, "must be a uuid")),
        Some(_) => Err(Error::invalid_field(name, "must be a uuid")),
    }
}

/// The currency an add-to-cart names: `billingModule.currency.id` (DOMAIN) or
/// `billingModuleCurrencyId`.
fn currency_field(body: &Map<String, Value>) -> Result<Option<Uuid>> {
    match uuid_field(
        body,
        &["billingModule", "currency", "id"],
        "billingModule.currency.id",
    )? {
        Some(c) => Ok(Some(c)),
        None => uuid_field(
            body,
            &["billingModuleCurrencyId"],
            "billingModuleCurrencyId",
        ),
    }
}

/// Adds `months` calendar months (the day is clamped to the month's length).
fn add_months(t: time::OffsetDateTime, months: i32) -> time::OffsetDateTime {
    let total = t.year() * 12 + i32::from(u8::from(t.month())) - 1 + months;
    let (y, m) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u8);
    let month = time::Month::try_from(m).unwrap_or(time::Month::January);
    let last = month.length(y);
    let day = t.day().min(last);
    time::Date::from_calendar_date(y, month, day)
        .map(|d| t.replace_date(d))
        .unwrap_or(t)
}

/// The end of a subscription period that started at `start`.
pub fn period_end(start: time::OffsetDateTime, interval: &str) -> Option<time::OffsetDateTime> {
    Some(match interval {
        "minute" => start + time::Duration::minutes(1),
        "hour" => start + time::Duration::hours(1),
        "day" => start + time::Duration::hours(24),
        "week" => start + time::Duration::days(7),
        "month" => add_months(start, 1),
        "year" => add_months(start, 12),
        _ => return None,
    })
}

/// Orders sharing one payment intent: (currency, product type, interval).
type IntentKey = (Uuid, String, Option<String>);

/// What a checkout returns.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkout {
    pub billing_module: Value,
    pub ecommerce_module: Value,
}

struct Entities {
    order: Arc<Entity>,
    line: Arc<Entity>,
    o2c: Arc<Entity>,
    o2i: Arc<Entity>,
    s2o: Arc<Entity>,
    store: Arc<Entity>,
    change: Arc<Entity>,
}

/// The most orders one call of [`Commerce::summaries`] describes (a page of the admin's list).
pub const MAX_SUMMARIES: usize = 50;

pub struct Commerce {
    pub store: Store,
    /// The public paid counter's sums.
    pub paid: prices::PaidCounter,
    /// Products' rows, prices, intervals and stores, kept while their tables do not change.
    catalog: prices::Catalog,
    e: Entities,
    billing: Arc<Billing>,
    subjects: Arc<Subjects>,
    mailer: Arc<Mailer>,
    files: Arc<stoa_file_storage::Files>,
    /// First-party analytics (a paid order is the funnel's last step).
    events: Option<Arc<dyn stoa_api::module::EventSink>>,
    /// Open pages: the buyer's follow its order, everyone's the public counters.
    hub: Option<Arc<stoa_api::live::Hub>>,
    public_url: String,
    default_language: String,
    timeout: time::Duration,
    retention: time::Duration,
    /// Where the sweep's walk of `delivering` orders stopped when its budget ran out (the next
    /// sweep goes on from there).
    lapse_cursor: std::sync::Mutex<Option<Vec<Val>>>,
}

/// The orders a checkout pays: those the buyer named (each checked to be theirs), or the
/// subject's open orders as [`Commerce::open_orders`] just read them (theirs by construction, so
/// not read again).
pub enum Picked {
    Ids(Vec<Uuid>),
    Open(Vec<Record>),
}

/// One order with everything a cart, a checkout and an email show.
struct Loaded {
    orders: Vec<Record>,
    lines: Vec<Record>,
    products: HashMap<Uuid, Record>,
    prices: HashMap<Uuid, Vec<Price>>,
    currency_of: HashMap<Uuid, Uuid>,
    intervals: HashMap<Uuid, String>,
}

impl Loaded {
    fn lines_of(&self, order: Uuid) -> impl Iterator<Item = &Record> {
        self.lines
            .iter()
            .filter(move |l| l.uuid("orderId") == Some(order))
    }

    fn price(&self, product: Uuid, currency: Uuid) -> Option<Decimal> {
        self.prices
            .get(&product)?
            .iter()
            .find(|p| p.currency.id == currency)
            .map(|p| p.amount)
    }

    fn currency(&self, id: Uuid) -> Option<&prices::Currency> {
        self.prices
            .values()
            .flatten()
            .map(|p| &p.currency)
            .find(|c| c.id == id)
    }

    /// (amount, type, interval) of an order in its currency (DOMAIN's checkout-attributes).
    fn checkout_attributes(
        &self,
        order: Uuid,
        currency: Uuid,
    ) -> Result<(Decimal, String, Option<String>)> {
        let mut amount = Decimal::ZERO;
        let mut kind: Option<String> = None;
        let mut interval: Option<String> = None;
        let mut any = false;
        for l in self.lines_of(order) {
            any = true;
            let p = l.uuid("productId").unwrap_or_default();
            let product = self.products.get(&p).ok_or_else(|| {
                Error::invalid_field("productId", format!("product {p} no longer exists"))
            })?;
            let price = self.price(p, currency).ok_or_else(|| {
                let cur = self
                    .currency(currency)
                    .map_or_else(|| currency.to_string(), |c| c.slug.clone());
                Error::invalid_field(
                    "billingModuleCurrencyId",
                    format!(
                        "the product '{}' has no price in {cur}",
                        product.text("slug").unwrap_or_default()
                    ),
                )
            })?;
            amount = price
                .checked_mul(Decimal::from(l.int("quantity").unwrap_or(1)))
                .and_then(|x| amount.checked_add(x))
                .ok_or_else(|| Error::invalid_field("quantity", "the total is too large"))?;
            let t = product.text("type").unwrap_or("one_off").to_owned();
            match &kind {
                Some(k) if *k != t => {
                    return Err(Error::invalid_field(
                        "ecommerceModule.orders",
                        "Order has multiple product types",
                    ));
                }
                _ => kind = Some(t),
            }
            if let Some(i) = self.intervals.get(&p) {
                interval = Some(i.clone());
            }
        }
        if !any {
            return Err(Error::invalid_field(
                "ecommerceModule.orders",
                format!("order {order} has no products"),
            ));
        }
        Ok((amount, kind.unwrap_or_else(|| "one_off".into()), interval))
    }
}

fn currency_json(c: &prices::Currency) -> Value {
    json!({"id": c.id, "slug": c.slug, "symbol": c.symbol, "title": c.title, "isDefault": c.is_default})
}

impl Commerce {
    pub fn new(ctx: &stoa_api::module::Context) -> std::result::Result<Self, String> {
        let s = &ctx.store;
        let e = |k: &str| s.entity(k).map_err(|e| e.to_string());
        Ok(Self {
            store: s.clone(),
            paid: prices::PaidCounter::default(),
            catalog: prices::Catalog::default(),
            e: Entities {
                order: e("ecommerce.order")?,
                line: e("ecommerce.orders-to-products")?,
                o2c: e("ecommerce.orders-to-billing-module-currencies")?,
                o2i: e("ecommerce.orders-to-billing-module-payment-intents")?,
                s2o: e("ecommerce.stores-to-orders")?,
                store: e("ecommerce.store")?,
                change: e("ecommerce.order-status-change")?,
            },
            billing: ctx.need::<Billing>()?,
            subjects: ctx.need::<Subjects>()?,
            mailer: ctx.need::<Mailer>()?,
            files: ctx.need::<stoa_file_storage::Files>()?,
            events: ctx.get::<dyn stoa_api::module::EventSink>(),
            hub: ctx.get::<stoa_api::live::Hub>(),
            public_url: ctx.config.public_url(),
            default_language: ctx.config.default_language.clone(),
            timeout: time::Duration::seconds(
                ctx.config.payment_timeout.min(10 * 365 * 86400) as i64
            ),
            retention: time::Duration::hours(
                ctx.config.cart_retention_hours.min(10 * 365 * 24) as i64
            ),
            lapse_cursor: std::sync::Mutex::new(None),
        })
    }

    pub fn billing(&self) -> &Billing {
        &self.billing
    }

    /// The payment intents an order is linked to (its latest checkout's).
    async fn intents_of(&self, order: Uuid) -> Result<Vec<Uuid>> {
        self.store
            .linked(
                &self.e.o2i,
                "orderId",
                &[order],
                "billingModulePaymentIntentId",
                100,
            )
            .await
    }

    /// The lines of `orders`, read through a transaction.
    async fn lines_in(&self, exec: &mut Exec<'_>, orders: &[Uuid]) -> Result<Vec<Record>> {
        let q = FindQuery::all()
            .any_of(
                &self.e.line,
                "orderId",
                orders.iter().copied().map(Val::Uuid).collect(),
            )?
            .take(u64::try_from(orders.len() * 50 + 1).unwrap_or(u64::MAX));
        Ok(repo::find(exec, &self.e.line, &q).await?.0)
    }

    /// The lines of `orders` (at most 50 an order).
    async fn lines_of(&self, orders: &[Uuid]) -> Result<Vec<Record>> {
        let ids: Vec<Val> = orders.iter().copied().map(Val::Uuid).collect();
        self.store
            .find_in(&self.e.line, "orderId", &ids, ids.len() * 50 + 1)
            .await
    }

    async fn load(&self, orders: Vec<Record>) -> Result<Loaded> {
        let order_ids: Vec<Uuid> = orders.iter().filter_map(Record::id).collect();
        let ids: Vec<Val> = order_ids.iter().copied().map(Val::Uuid).collect();
        let lines = self.lines_of(&order_ids).await?;
        let product_ids: Vec<Uuid> = lines
            .iter()
            .filter_map(|l| l.uuid("productId"))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let listings = self.catalog.listings(&self.store, &product_ids).await?;
        let mut products = HashMap::new();
        let mut prices = HashMap::new();
        let mut intervals = HashMap::new();
        for (id, l) in listings {
            if let Some(p) = &l.product {
                products.insert(id, p.clone());
            }
            if !l.prices.is_empty() {
                prices.insert(id, l.prices.clone());
            }
            if let Some(i) = &l.interval {
                intervals.insert(id, i.clone());
            }
        }
        let currency_of = self
            .store
            .find_in(&self.e.o2c, "orderId", &ids, ids.len() * 2 + 1)
            .await?
            .iter()
            .filter_map(|l| Some((l.uuid("orderId")?, l.uuid("billingModuleCurrencyId")?)))
            .collect();
        Ok(Loaded {
            orders,
            lines,
            products,
            prices,
            currency_of,
            intervals,
        })
    }

    /// The JSON of one loaded order: its lines with products and per-currency totals, its
    /// currency and its total in that currency.
    fn view(&self, l: &Loaded, order: &Record) -> Value {
        let oid = order.id().unwrap_or_default();
        let mut v = order.to_json();
        let mut totals: BTreeMap<Uuid, Decimal> = BTreeMap::new();
        let lines: Vec<Value> = l
            .lines_of(oid)
            .map(|line| {
                let pid = line.uuid("productId").unwrap_or_default();
                let q = Decimal::from(line.int("quantity").unwrap_or(1));
                let product = l.products.get(&pid).map(|p| {
                    json!({"id": pid, "slug": p.text("slug"), "title": p.json("title"), "type": p.text("type"), "adminTitle": p.text("adminTitle")})
                });
                let line_totals: Vec<Value> = l
                    .prices
                    .get(&pid)
                    .map(|ps| {
                        ps.iter()
                            .filter_map(|p| {
                                let amount = p.amount.checked_mul(q)?;
                                let t = totals.entry(p.currency.id).or_default();
                                *t = t.checked_add(amount)?;
                                Some(json!({"total": amount.normalize().to_string(), "billingModuleCurrency": currency_json(&p.currency)}))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let mut lv = line.to_json();
                lv["product"] = product.unwrap_or(Value::Null);
                lv["total"] = Value::Array(line_totals);
                lv
            })
            .collect();
        v["ordersToProducts"] = Value::Array(lines);
        let currency = l.currency_of.get(&oid).copied();
        v["billingModuleCurrency"] = currency
            .and_then(|c| l.currency(c))
            .map_or(Value::Null, currency_json);
        v["total"] = Value::Array(
            totals
                .iter()
                .filter_map(|(c, t)| Some(json!({"total": t.normalize().to_string(), "billingModuleCurrency": currency_json(l.currency(*c)?)})))
                .collect(),
        );
        v["checkoutTotal"] = match currency.and_then(|c| l.checkout_attributes(oid, c).ok()) {
            Some((a, _, _)) => json!(a.normalize().to_string()),
            None => Value::Null,
        };
        v
    }

    /// The subject's orders, newest first: `cart` (default: cart-type), `history`, or `all`.
    pub async fn orders_of(&self, subject: Uuid, which: &str) -> Result<Vec<Record>> {
        let ids: Vec<Val> = self
            .subjects
            .order_ids(subject)
            .await?
            .into_iter()
            .map(Val::Uuid)
            .collect();
        let mut rows = self
            .store
            .find_in(&self.e.order, "id", &ids, ids.len() + 1)
            .await?;
        rows.retain(|o| match which {
            "all" => true,
            "history" => o.text("type") == Some("history"),
            _ => o.text("type") == Some("cart"),
        });
        rows.sort_by(|a, b| b.text("createdAt").cmp(&a.text("createdAt")));
        Ok(rows)
    }

    /// The subject's cart orders still open (`new`): what the cart shows and a checkout pays.
    pub async fn open_orders(&self, subject: Uuid) -> Result<Vec<Record>> {
        let mut rows = self.orders_of(subject, "cart").await?;
        rows.retain(|o| o.text("status") == Some("new"));
        Ok(rows)
    }

    pub async fn list(&self, subject: Uuid, which: &str) -> Result<Vec<Value>> {
        let rows = self.orders_of(subject, which).await?;
        let loaded = self.load(rows).await?;
        Ok(loaded
            .orders
            .iter()
            .map(|o| self.view(&loaded, o))
            .collect())
    }

    /// One of the subject's orders (404 when it is someone else's) with its status history.
    pub async fn one(&self, subject: Uuid, order: Uuid) -> Result<Value> {
        let row = self.owned(subject, order).await?;
        let loaded = self.load(vec![row]).await?;
        let mut v = self.view(&loaded, &loaded.orders[0]);
        // The buyer sees when and to what; who changed it and why stay with the admins.
        let mut h = self.history(order).await?;
        for c in &mut h {
            if let Some(m) = c.as_object_mut() {
                m.remove("actor");
                m.remove("reason");
            }
        }
        v["statusChanges"] = json!(h);
        v["payments"] = json!(self.payments_of(order).await?);
        v["receiptUrl"] = json!(self.receipt_url(order).await?);
        Ok(v)
    }

    /// The order's invoices as its buyer sees them, oldest first: where each stands, through which
    /// provider, for how much, and — while one is still open — the provider's page to pay it on
    /// (a buyer who left that page comes back to it from the order). The provider's own ids and
    /// the return addresses stay with the admins.
    async fn payments_of(&self, order: Uuid) -> Result<Vec<Value>> {
        let intents = self.intents_of(order).await?;
        Ok(self
            .billing
            .invoices_of(&intents)
            .await?
            .iter()
            .map(|i| {
                let status = i.text("status").unwrap_or("draft");
                let url = i.text("paymentUrl").filter(|u| status == "open" && !u.is_empty());
                json!({"id": i.id(), "status": status, "provider": i.text("provider"),
                    "amount": i.decimal("amount").unwrap_or_default().normalize().to_string(), "createdAt": i.text("createdAt"), "paymentUrl": url})
            })
            .collect())
    }

    /// The URL of the order's receipt once it is made (at payment), else `None`.
    async fn receipt_url(&self, order: Uuid) -> Result<Option<String>> {
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
            .and_then(|r| r.uuid("fileStorageModuleFileId"))
        {
            Some(fid) => self.files.url_of(fid).await,
            None => Ok(None),
        }
    }

    pub async fn history(&self, order: Uuid) -> Result<Vec<Value>> {
        let mut rows = self
            .store
            .find_by(&self.e.change, &[("orderId", Val::Uuid(order))], 200)
            .await?;
        rows.sort_by(|a, b| a.text("createdAt").cmp(&b.text("createdAt")));
        Ok(rows.iter().map(Record::to_json).collect())
    }

    /// An order `subject` owns, or 404 (someone else's order is indistinguishable from none).
    pub async fn owned(&self, subject: Uuid, order: Uuid) -> Result<Record> {
        let owners = self.subjects.order_owners(&[order]).await?;
        if !owners.iter().any(|(o, s)| *o == order && *s == subject) {
            return Err(Error::not_found(format!("order {order} not found")));
        }
        self.store.get(&self.e.order, order).await
    }

    /// Σ quantity over the subject's cart orders still open (`new`): the cart badge.
    pub async fn quantity(&self, subject: Uuid) -> Result<i64> {
        let rows: Vec<Record> = self.open_orders(subject).await?;
        let ids: Vec<Uuid> = rows.iter().filter_map(Record::id).collect();
        Ok(self
            .lines_of(&ids)
            .await?
            .iter()
            .map(|l| l.int("quantity").unwrap_or(0))
            .sum())
    }

    /// Totals of the open cart per currency (each order counted in its own currency).
    pub async fn totals(&self, subject: Uuid) -> Result<Vec<Value>> {
        let rows: Vec<Record> = self.open_orders(subject).await?;
        let loaded = self.load(rows).await?;
        let mut groups: BTreeMap<Uuid, (Decimal, Vec<Value>)> = BTreeMap::new();
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
                Some(json!({"billingModuleCurrency": currency_json(loaded.currency(c)?), "total": t.normalize().to_string(), "orders": orders}))
            })
            .collect())
    }

    /// The store an order goes to: the one named, or the only one.
    async fn pick_store(&self, named: Option<Uuid>, selling: &[Uuid]) -> Result<Option<Uuid>> {
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
    fn pick_currency(&self, prices: &[Price], named: Option<Uuid>) -> Result<Uuid> {
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
    pub async fn add(
        &self,
        subject: Uuid,
        body: &Map<String, Value>,
        fresh: bool,
        product: Option<Uuid>,
    ) -> Result<Uuid> {
        Ok(self.add_then(subject, body, fresh, product).await?.0)
    }

    /// [`Self::add`], answered with the order as [`Self::one`] shows it. A new order's view is
    /// made from the rows just written and the product and prices already read (a new order
    /// has no status changes, payments or receipt yet), instead of reading them all again (a
    /// dozen reads an add).
    pub async fn add_and_show(&self, subject: Uuid, body: &Map<String, Value>) -> Result<Value> {
        match self.add_then(subject, body, false, None).await? {
            (_, Some(loaded)) => {
                let mut view = self.view(&loaded, &loaded.orders[0]);
                view["statusChanges"] = json!([]);
                view["payments"] = json!([]);
                view["receiptUrl"] = Value::Null;
                Ok(view)
            }
            (order, None) => self.one(subject, order).await,
        }
    }

    /// [`Self::add`]: the order, and when it is new, everything its view needs (already read or
    /// just written).
    async fn add_then(
        &self,
        subject: Uuid,
        body: &Map<String, Value>,
        fresh: bool,
        product: Option<Uuid>,
    ) -> Result<(Uuid, Option<Loaded>)> {
        let product = match product {
            Some(p) => p,
            None => uuid_field(body, &["productId"], "productId")?
                .ok_or_else(|| Error::invalid_field("productId", "is required"))?,
        };
        let qty = quantity("quantity", body.get("quantity"))?;
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
        let currency = self.pick_currency(&price_list, currency_field(body)?)?;
        let store = self
            .pick_store(uuid_field(body, &["storeId"], "storeId")?, &listing.stores)
            .await?;
        let comment = match body.get("comment") {
            Some(Value::String(s)) if s.chars().count() > 10_000 => {
                return Err(Error::invalid_field(
                    "comment",
                    "is longer than 10000 characters",
                ));
            }
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            _ => None,
        };
        if !self.subjects.exists(subject).await? {
            return Err(Error::not_found(format!("subject {subject} not found")));
        }
        if !fresh {
            let open: Vec<Record> = self.open_orders(subject).await?;
            let loaded = self.load(open).await?;
            for o in &loaded.orders {
                let oid = Record::must_id(o)?;
                if loaded.currency_of.get(&oid) != Some(&currency) {
                    continue;
                }
                if let Some(line) = loaded
                    .lines_of(oid)
                    .find(|l| l.uuid("productId") == Some(product))
                {
                    let q = (line.int("quantity").unwrap_or(0) + qty).min(MAX_QUANTITY);
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
                        Record::must_id(line)?,
                        &[("quantity", Val::Int(q))],
                        &[],
                    )
                    .await?;
                    tx.commit().await?;
                    return Ok((oid, None));
                }
            }
        }
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
            self.store
                .link_in(
                    &mut exec,
                    &self.e.o2c,
                    ("orderId", oid),
                    ("billingModuleCurrencyId", currency),
                )
                .await?;
            if let Some(s) = store {
                self.store
                    .link_in(&mut exec, &self.e.s2o, ("storeId", s), ("orderId", oid))
                    .await?;
            }
            self.subjects.link_order(&mut exec, subject, oid).await?;
            (order_row, line_row)
        };
        tx.commit().await?;
        let oid = Record::must_id(&order_row)?;
        let loaded = Loaded {
            orders: vec![order_row],
            lines: vec![line_row],
            products: HashMap::from([(product, product_row)]),
            prices: HashMap::from([(product, price_list)]),
            currency_of: HashMap::from([(oid, currency)]),
            // A view shows no intervals (a checkout reads them).
            intervals: HashMap::new(),
        };
        Ok((oid, Some(loaded)))
    }

    /// Sets line quantities of an open order (`ordersToProducts: [{id, quantity}]`); lines of
    /// other orders are ignored.
    pub async fn update_lines(
        &self,
        subject: Uuid,
        order: Uuid,
        body: &Map<String, Value>,
    ) -> Result<Value> {
        let row = self.owned(subject, order).await?;
        let items = body
            .get("ordersToProducts")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                Error::invalid_field("ordersToProducts", "must be a list of {id, quantity}")
            })?;
        if items.len() > 100 {
            return Err(Error::invalid_field(
                "ordersToProducts",
                "at most 100 lines at once",
            ));
        }
        let mut changes = Vec::new();
        for (n, it) in items.iter().enumerate() {
            let id = it
                .get("id")
                .and_then(Value::as_str)
                .and_then(|s| Uuid::parse_str(s).ok())
                .ok_or_else(|| {
                    Error::invalid_field(&format!("ordersToProducts[{n}].id"), "must be a line id")
                })?;
            changes.push((
                id,
                quantity(
                    &format!("ordersToProducts[{n}].quantity"),
                    it.get("quantity"),
                )?,
            ));
        }
        self.set_quantities(&row, order, &changes).await?;
        self.one(subject, order).await
    }

    /// Sets line quantities of `order` (its row `row`) while it is still in the cart: lines that
    /// are not the order's are left alone; 409 once the order left the cart.
    async fn set_quantities(
        &self,
        row: &Record,
        order: Uuid,
        changes: &[(Uuid, i64)],
    ) -> Result<()> {
        if row.text("status") != Some("new") {
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
            .map(|l| l.int("quantity").unwrap_or(0))
            .sum())
    }

    /// The totals of every line of `order`, one after another (one per line and price
    /// currency): `GET /api/ecommerce/orders/{id}/total`.
    pub async fn order_total(&self, order: Uuid) -> Result<Value> {
        let loaded = self
            .load(vec![self.store.get(&self.e.order, order).await?])
            .await?;
        let v = self.view(&loaded, &loaded.orders[0]);
        let mut out = Vec::new();
        for l in v["ordersToProducts"].as_array().into_iter().flatten() {
            out.extend(l["total"].as_array().into_iter().flatten().cloned());
        }
        Ok(Value::Array(out))
    }

    /// Sets the quantity of line `line` of `order` (admins):
    /// `PATCH /api/ecommerce/orders/{id}/orders-to-products/{orderToProductId}`. The original merged
    /// any body into any line; here only `quantity` changes, of a line of that order, while the order
    /// is still in the cart.
    pub async fn set_line(
        &self,
        order: Uuid,
        line: Uuid,
        body: &Map<String, Value>,
    ) -> Result<Value> {
        if let Some(k) = body.keys().find(|k| k.as_str() != "quantity") {
            return Err(Error::invalid_field(
                k,
                "only the quantity of a line can be changed here",
            ));
        }
        if !body.contains_key("quantity") {
            return Err(Error::invalid_field("quantity", "is required"));
        }
        let n = quantity("quantity", body.get("quantity"))?;
        let row = self.store.get(&self.e.order, order).await?;
        let l = self.store.get(&self.e.line, line).await?;
        if l.uuid("orderId") != Some(order) {
            return Err(Error::not_found(format!(
                "line {line} is not a line of order {order}"
            )));
        }
        if row.text("type") != Some("cart") {
            return Err(Error::conflict_field(
                "status",
                "only an order still in the cart (status new) can be changed",
            ));
        }
        self.set_quantities(&row, order, &[(line, n)]).await?;
        Ok(self.store.get(&self.e.line, line).await?.to_json())
    }

    /// Deletes an open order of the subject (its lines and links cascade).
    pub async fn remove(&self, subject: Uuid, order: Uuid) -> Result<Record> {
        let row = self.owned(subject, order).await?;
        if row.text("status") != Some("new") {
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
    async fn lock_open(&self, exec: &mut Exec<'_>, order: Uuid) -> Result<bool> {
        let open = [("status", Val::Text("new".into()))];
        Ok(repo::set_if(exec, &self.e.order, order, &open, &open)
            .await?
            .is_some())
    }

    /// Moves one order to `to` inside the caller's transaction: checks the status table (unless
    /// overriding), compares-and-sets the status, records the change and enqueues its emails and
    /// role check.
    #[allow(clippy::too_many_arguments)]
    async fn transition_in(
        &self,
        exec: &mut Exec<'_>,
        order: &Record,
        to: &str,
        by: By,
        actor: &str,
        reason: Option<&str>,
        overridden: bool,
        roles: bool,
    ) -> Result<Record> {
        let oid = Record::must_id(order)?;
        let from = order.text("status").unwrap_or("new").to_owned();
        if !overridden && !status::allowed(&from, to, by) {
            return Err(Error::conflict_field(
                "status",
                format!("an order in '{from}' cannot move to '{to}'"),
            ));
        }
        let mut set = vec![("status", Val::Text(to.into()))];
        if status::settles(to) {
            set.push(("type", Val::Text("history".into())));
        } else if to == "new" {
            set.push(("type", Val::Text("cart".into())));
        }
        let row = repo::set_if(
            exec,
            &self.e.order,
            oid,
            &set,
            &[("status", Val::Text(from.clone()))],
        )
        .await?
        .ok_or_else(|| Error::conflict_field("status", "the order changed meanwhile; reload it"))?;
        let effects = status::effects(
            &oid.to_string(),
            &from,
            to,
            actor,
            reason,
            overridden,
            roles,
        );
        for (_, row) in &effects.rows {
            self.store.create_in(exec, &self.e.change, row).await?;
        }
        for job in &effects.jobs {
            enqueue(exec, job).await?;
        }
        // An admin's transition is in the audit log like any admin write.
        stoa_store::audit::write_in(exec, &self.e.order, Some(order), Some(&row), None).await?;
        Ok(row)
    }

    /// One transition in its own transaction.
    pub async fn transition(
        &self,
        order: Uuid,
        to: &str,
        by: By,
        actor: &str,
        reason: Option<&str>,
        overridden: bool,
    ) -> Result<Record> {
        let row = self.store.get(&self.e.order, order).await?;
        let roles = self.subjects.products_carry_roles().await?;
        let mut tx = self.store.begin().await?;
        let out = self
            .transition_in(
                &mut tx.exec(),
                &row,
                to,
                by,
                actor,
                reason,
                overridden,
                roles,
            )
            .await?;
        tx.commit().await?;
        Ok(out)
    }

    /// Admin correction: any status, with a reason, recorded as an override.
    pub async fn override_status(
        &self,
        order: Uuid,
        body: &Map<String, Value>,
        actor: &str,
    ) -> Result<Value> {
        let to = body
            .get("status")
            .and_then(Value::as_str)
            .filter(|s| crate::ORDER_STATUSES.contains(s))
            .ok_or_else(|| {
                Error::invalid_field(
                    "status",
                    format!("must be one of {}", crate::ORDER_STATUSES.join(", ")),
                )
            })?;
        let reason = body
            .get("reason")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|r| r.chars().count() >= 3)
            .ok_or_else(|| {
                Error::invalid_field(
                    "reason",
                    "say why the order is corrected (at least 3 characters)",
                )
            })?;
        if reason.chars().count() > 2000 {
            return Err(Error::invalid_field("reason", "at most 2000 characters"));
        }
        let row = self.store.get(&self.e.order, order).await?;
        if row.text("status") == Some(to) {
            return Err(Error::conflict_field(
                "status",
                format!("the order is already '{to}'"),
            ));
        }
        let out = self
            .transition(order, to, By::Admin, actor, Some(reason), true)
            .await?;
        Ok(out.to_json())
    }

    /// Checkout of the subject's open orders with a provider: intents per (currency, type,
    /// interval), one invoice per intent, orders to `paying`. Returns the invoices.
    pub async fn checkout(
        &self,
        subject: Uuid,
        picked: Picked,
        body: &Map<String, Value>,
        actor: &str,
    ) -> Result<Checkout> {
        let provider = body
            .get("provider")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                Error::invalid_field("provider", "Invalid provider: choose a payment provider")
            })?;
        let adapter = self.billing.provider(provider)?;
        let email = match body
            .get("email")
            .and_then(Value::as_str)
            .filter(|e| !e.trim().is_empty())
        {
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
            .get("language")
            .and_then(Value::as_str)
            .filter(|l| matches!(*l, "en" | "ru"))
            .unwrap_or(&self.default_language)
            .to_owned();
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
        let roles = self.subjects.products_carry_roles().await?;
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
                if let Some(c) = body
                    .get("comment")
                    .and_then(Value::as_str)
                    .filter(|c| !c.trim().is_empty())
                {
                    if c.chars().count() > 10_000 {
                        return Err(Error::invalid_field(
                            "comment",
                            "is longer than 10000 characters",
                        ));
                    }
                    lang.insert("comment".into(), json!(c.trim()));
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
            invoices.push(json!({
                "id": row.id(),
                "status": row.text("status"),
                "provider": row.text("provider"),
                "amount": p.amount.normalize().to_string(),
                "currency": p.currency,
                "paymentUrl": row.text("paymentUrl"),
                "successUrl": row.text("successUrl"),
                "cancelUrl": row.text("cancelUrl"),
            }));
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
        Ok(Checkout {
            billing_module: json!({"invoices": invoices}),
            ecommerce_module: json!({"orders": orders}),
        })
    }

    /// The orders paid by `intents` move on inside the transaction that marked the intents
    /// succeeded (billing's [`PaidHook`]): a paying order goes to approving, or delivering when
    /// one of its intents is a subscription, as [`Self::check`] would move it a moment later.
    pub async fn intents_paid_in(&self, exec: &mut Exec<'_>, paid: &[Record]) -> Result<()> {
        let ids: Vec<Val> = paid
            .iter()
            .filter_map(|r| r.uuid("id"))
            .map(Val::Uuid)
            .collect();
        let links = |field: &str, vals: Vec<Val>| -> Result<FindQuery> {
            let n = vals.len() as u64 * 100 + 1;
            Ok(FindQuery::all().any_of(&self.e.o2i, field, vals)?.take(n))
        };
        let q = links("billingModulePaymentIntentId", ids)?;
        let mut orders: Vec<Uuid> = repo::find(exec, &self.e.o2i, &q)
            .await?
            .0
            .iter()
            .filter_map(|l| l.uuid("orderId"))
            .collect();
        orders.sort_unstable();
        orders.dedup();
        if orders.is_empty() {
            return Ok(());
        }
        // Every intent of those orders (a subscription's among them makes one delivering): the
        // paid ones are at hand, any other is read once for all the orders.
        let q = links("orderId", orders.iter().copied().map(Val::Uuid).collect())?;
        let all = repo::find(exec, &self.e.o2i, &q).await?.0;
        let mut intents: HashMap<Uuid, Record> = paid
            .iter()
            .filter_map(|r| Some((r.uuid("id")?, r.clone())))
            .collect();
        let other: Vec<Uuid> = all
            .iter()
            .filter_map(|l| l.uuid("billingModulePaymentIntentId"))
            .filter(|i| !intents.contains_key(i))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        if !other.is_empty() {
            for r in self.billing.intents_in(exec, &other).await? {
                if let Some(id) = r.uuid("id") {
                    intents.insert(id, r);
                }
            }
        }
        let roles = self.subjects.products_carry_roles_in(exec).await?;
        for oid in orders {
            let Some(row) = repo::get(exec, &self.e.order, oid).await? else {
                continue;
            };
            match row.text("status") {
                Some("paying") => {}
                Some("canceled") => {
                    paid_after_cancel(oid);
                    continue;
                }
                _ => continue,
            }
            let mine: Vec<Record> = all
                .iter()
                .filter(|l| l.uuid("orderId") == Some(oid))
                .filter_map(|l| {
                    intents
                        .get(&l.uuid("billingModulePaymentIntentId")?)
                        .cloned()
                })
                .collect();
            let to = paid_to(&mine);
            match self
                .transition_in(exec, &row, to, By::System, "payment", None, false, roles)
                .await
            {
                Ok(_) => {}
                // Moved meanwhile (PostgreSQL: the timeout's cancel committed while this waited
                // for the row): read again, so a cancel that won is not passed over in silence.
                Err(Error::Conflict { .. }) => {
                    let now = repo::get(exec, &self.e.order, oid).await?;
                    if now.as_ref().and_then(|r| r.text("status")) == Some("canceled") {
                        paid_after_cancel(oid);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
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
        let row = self.store.get(&self.e.order, order).await?;
        let status = row.text("status").unwrap_or_default().to_owned();
        match status.as_str() {
            "paying" => {
                let intent_ids = self.intents_of(order).await?;
                let intents = self.billing.intents(&intent_ids).await?;
                if intents
                    .iter()
                    .any(|i| i.text("status") == Some("succeeded"))
                {
                    let to = paid_to(&intents);
                    self.transition(order, to, By::System, "payment", None, false)
                        .await?;
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
                        "new",
                        By::System,
                        "payment check",
                        Some(PAYMENT_NOT_STARTED),
                        false,
                    )
                    .await?;
                    return Ok("new".into());
                }
                let since = row
                    .text("updatedAt")
                    .and_then(parse_timestamp)
                    .unwrap_or_else(now);
                if now() - since >= self.timeout {
                    self.transition(
                        order,
                        "canceled",
                        By::System,
                        "payment timeout",
                        None,
                        false,
                    )
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
                        "delivered",
                        By::System,
                        "subscription check",
                        Some("subscription lapsed"),
                        false,
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
    async fn lapsed(&self, order: Uuid) -> Result<bool> {
        Ok(self
            .paid_until(order)
            .await?
            .is_some_and(|end| now() >= end))
    }

    /// When the subscription an order paid for ends: the latest end over its subscription
    /// intents' paid periods (`None` for an order that paid no subscription).
    async fn paid_until(&self, order: Uuid) -> Result<Option<time::OffsetDateTime>> {
        let intent_ids = self.intents_of(order).await?;
        let intents = self.billing.intents(&intent_ids).await?;
        let paid = self.billing.paid_at(&intent_ids).await?;
        Ok(intents
            .iter()
            .filter(|i| i.text("type") == Some("subscription"))
            .filter_map(|i| {
                let start = paid.get(&i.id()?).and_then(|s| parse_timestamp(s))?;
                period_end(start, i.text("interval")?)
            })
            .max())
    }

    /// DOMAIN's product enforce: the subject's subscription orders of `product` whose paid period
    /// has ended are delivered (canceled ones too); the role check that follows each change
    /// revokes the product's roles. Orders of one-off purchases are left alone.
    pub async fn enforce(&self, subject: Uuid, product: Uuid, actor: &str) -> Result<Value> {
        let lines = self
            .lines_of(&self.subjects.order_ids(subject).await?)
            .await?;
        let of_product: HashSet<Uuid> = lines
            .iter()
            .filter(|l| l.uuid("productId") == Some(product))
            .filter_map(|l| l.uuid("orderId"))
            .collect();
        let mut out = Vec::new();
        for order in of_product {
            let row = self.store.get(&self.e.order, order).await?;
            let status = row.text("status").unwrap_or_default().to_owned();
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
                    "delivered",
                    By::System,
                    actor,
                    Some("subscription lapsed"),
                    false,
                )
                .await?;
                now_status = "delivered".into();
            }
            out.push(json!({
                "id": order,
                "from": status,
                "status": now_status,
                "paidUntil": until.map(stoa_kernel::value::format_timestamp),
            }));
        }
        Ok(json!({"orders": out}))
    }

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
    fn in_status(&self, status: &str, filters: &[(&str, Op, FilterValue)]) -> Result<FindQuery> {
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
    fn sweeping(&self, q: FindQuery, run: std::time::Instant) -> stoa_store::Walk<'_> {
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
        let rows = self.orders_of(subject, "all").await?;
        let loaded = self.load(rows).await?;
        let mut grant_products = Vec::new();
        let mut revoke_products = Vec::new();
        for o in &loaded.orders {
            let oid = Record::must_id(o)?;
            let products: Vec<Uuid> = loaded
                .lines_of(oid)
                .filter_map(|l| l.uuid("productId"))
                .collect();
            match o.text("status") {
                Some("delivering") => grant_products.extend(products),
                Some("paying" | "delivered") => revoke_products.extend(products),
                _ => {}
            }
        }
        let grant = self.subjects.product_roles(&grant_products).await?;
        let revoke = self.subjects.product_roles(&revoke_products).await?;
        self.subjects.sync_roles(subject, &grant, &revoke).await
    }

    pub async fn check_order_subject(&self, order: Uuid) -> Result<()> {
        for (_, s) in self.subjects.order_owners(&[order]).await? {
            self.check_subject(s).await?;
        }
        Ok(())
    }

    /// Emails about a status change: the buyer always (in the order's language), the admins when
    /// an order was paid.
    pub async fn notify(&self, order: Uuid, from: &str, to: &str) -> Result<()> {
        let paid = from == "paying" && (to == "approving" || to == "delivering");
        let owners: Vec<Uuid> = self
            .subjects
            .order_owners(&[order])
            .await?
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        // Orders are private: the live channel's own watch tells only admins. The owner's open
        // pages (the success page, the order's page) follow it, and a payment moves the public
        // counters on every open page.
        if let Some(h) = &self.hub {
            if !owners.is_empty() {
                h.publish(
                    "revalidate",
                    stoa_api::live::Audience::Subjects(owners.clone()),
                    &json!({"entities": ["ecommerce.order"]}),
                );
            }
            if paid {
                h.publish(
                    "revalidate",
                    stoa_api::live::Audience::Everyone,
                    &json!({"entities": ["ecommerce.paid-orders"]}),
                );
            }
        }
        if !status::mails(to) {
            return Ok(());
        }
        let Ok(row) = self.store.get(&self.e.order, order).await else {
            return Ok(());
        };
        let loaded = self.load(vec![row]).await?;
        let view = self.view(&loaded, &loaded.orders[0]);
        let language = loaded.orders[0]
            .text("language")
            .unwrap_or(&self.default_language)
            .to_owned();
        let mut buyer = Vec::new();
        for s in &owners {
            buyer.extend(self.subjects.emails(*s).await?);
        }
        if let Some(e) = loaded.orders[0].text("email")
            && !buyer.iter().any(|b| b == e)
        {
            buyer.insert(0, e.to_owned());
        }
        let data = |lang: &str| {
            json!({
                "order": view,
                "from": from,
                "to": to,
                "status": status_title(to, lang),
                "buyer": buyer.first(),
                "siteUrl": format!("{}/{lang}", self.public_url),
                "orderUrl": format!("{}/{lang}/ecommerce/orders/{order}", self.public_url),
                "adminUrl": format!("{}/admin/ecommerce/order?edit={order}", self.public_url),
            })
        };
        // A paid order gets its receipt, attached to the buyer's email.
        if paid && let Some(e) = &self.events {
            e.event("checkout-completed", "/");
        }
        let attachments = if paid {
            match self.receipt(order, &view, &language).await {
                Ok(url) => vec![url],
                Err(e) => {
                    tracing::error!(%order, error = %e, "the receipt could not be made; the email goes without it");
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        if let Some(to_addr) = buyer.first() {
            self.mailer
                .queue(Email {
                    topic: "information",
                    template_variant: BUYER_TEMPLATE,
                    to: to_addr,
                    language: &language,
                    data: data(&language),
                    secret: Value::Null,
                    attachments,
                    ..Default::default()
                })
                .await?;
        }
        if to == "approving" || to == "delivering" && from == "paying" {
            for (a, lang) in self.subjects.admin_recipients().await? {
                let lang = lang.as_deref().unwrap_or(&self.default_language);
                self.mailer
                    .queue(Email {
                        topic: "information",
                        template_variant: ADMIN_TEMPLATE,
                        to: &a,
                        language: lang,
                        data: data(lang),
                        secret: Value::Null,
                        attachments: Vec::new(),
                        ..Default::default()
                    })
                    .await?;
            }
        }
        Ok(())
    }

    /// The order's receipt (`orders-to-file-storage-module-files`, variant `receipt-default`):
    /// rendered from the order once, in its language, with the site's receipt template (the
    /// 'for planet' one when the site has it), and linked to the order. Returns its URL.
    pub async fn receipt(&self, order: Uuid, view: &Value, language: &str) -> Result<String> {
        use stoa_file_storage::render::{RECEIPT, RECEIPT_FOR_PLANET, template_of};
        if let Some(url) = self.receipt_url(order).await? {
            return Ok(url);
        }
        let link = self
            .store
            .entity("ecommerce.orders-to-file-storage-module-files")?;
        let variant = if self.files.has_template(RECEIPT_FOR_PLANET).await? {
            RECEIPT_FOR_PLANET
        } else {
            RECEIPT
        };
        let site = self
            .public_url
            .split_once("://")
            .map_or(self.public_url.as_str(), |x| x.1);
        let paid_at = now()
            .format(&time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute] UTC"
            ))
            .unwrap_or_default();
        let data = json!({"language": language, "site": {"name": site}, "paidAt": paid_at,
            "ecommerce": {"order": view}});
        // Named by the number people read (the id where an older order has none).
        let named = view["number"]
            .as_i64()
            .map_or_else(|| order.to_string(), |n| format!("№ {n}"));
        let alt = if language == "ru" {
            format!("Квитанция к заказу {named}")
        } else {
            format!("Receipt for order {named}")
        };
        let mut fields = Map::new();
        fields.insert("alt".into(), json!(alt));
        let t = template_of(variant)?;
        let row = self
            .files
            .generate(
                variant,
                (t.width, t.height),
                data,
                &fields,
                stoa_file_storage::service::Pace::Background,
            )
            .await?;
        let mut input = Map::new();
        input.insert("orderId".into(), json!(order));
        input.insert(
            "fileStorageModuleFileId".into(),
            json!(Record::must_id(&row)?),
        );
        input.insert("variant".into(), json!("receipt-default"));
        self.store.create(&link, &input).await?;
        row.text("file")
            .map(str::to_owned)
            .ok_or_else(|| Error::internal("a generated file without a URL"))
    }

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
            .subjects
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

/// Orders grouped into payment intents: (currency, type, interval) → (amount, orders).
fn group_orders(loaded: &Loaded) -> Result<BTreeMap<IntentKey, (Decimal, Vec<Uuid>)>> {
    let mut groups: BTreeMap<IntentKey, (Decimal, Vec<Uuid>)> = BTreeMap::new();
    for o in &loaded.orders {
        let oid = Record::must_id(o)?;
        let c = *loaded.currency_of.get(&oid).ok_or_else(|| {
            Error::invalid_field(
                "billingModuleCurrencyId",
                format!("order {oid} has no currency"),
            )
        })?;
        let (amount, kind, interval) = loaded.checkout_attributes(oid, c)?;
        if amount <= Decimal::ZERO {
            return Err(Error::invalid_field(
                "ecommerceModule.orders",
                format!("order {oid} costs nothing; there is nothing to pay"),
            ));
        }
        let g = groups.entry((c, kind, interval)).or_default();
        g.0 = g.0.checked_add(amount).ok_or_else(|| {
            Error::invalid_field("ecommerceModule.orders", "the total is too large")
        })?;
        g.1.push(oid);
    }
    Ok(groups)
}

/// A status in words, for emails.
pub fn status_title(status: &str, lang: &str) -> &'static str {
    let ru = lang == "ru";
    match status {
        "new" => {
            if ru {
                "в корзине"
            } else {
                "in the cart"
            }
        }
        "paying" => {
            if ru {
                "ожидает оплаты"
            } else {
                "awaiting payment"
            }
        }
        "approving" => {
            if ru {
                "оплачен, проверяется"
            } else {
                "paid, being approved"
            }
        }
        "packaging" => {
            if ru {
                "собирается"
            } else {
                "being packed"
            }
        }
        "delivering" => {
            if ru {
                "доставляется"
            } else {
                "on its way"
            }
        }
        "delivered" => {
            if ru {
                "доставлен"
            } else {
                "delivered"
            }
        }
        "canceled" => {
            if ru {
                "отменён"
            } else {
                "canceled"
            }
        }
        _ => "",
    }
}

/// Where a paid order goes, given its intents: delivering when one is a subscription, approving
/// otherwise.
fn paid_to(intents: &[Record]) -> &'static str {
    if intents
        .iter()
        .any(|i| i.text("type") == Some("subscription"))
    {
        "delivering"
    } else {
        "approving"
    }
}

/// Paid after the timeout canceled it: money taken for a canceled order. An admin restores it
/// with the override or refunds it at the provider.
fn paid_after_cancel(order: Uuid) {
    tracing::error!(order = %order, "a payment arrived for a canceled order: restore it (override) or refund it");
}

/// Billing's hook: the orders a payment pays move on in the payment's transaction. Holds the shop
/// weakly (the shop holds billing); once the shop is gone the hook fails and billing's job runs.
pub struct PaidOrders(pub std::sync::Weak<Commerce>);

impl stoa_billing::service::PaidHook for PaidOrders {
    fn paid_in<'a, 'b>(
        &'a self,
        exec: &'a mut Exec<'b>,
        intents: &'a [Record],
    ) -> stoa_api::module::BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let shop = self
                .0
                .upgrade()
                .ok_or_else(|| Error::Unavailable("the shop is shutting down".into()))?;
            shop.intents_paid_in(exec, intents).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities() {
        for ok in [json!(1), json!(10_000), json!("7")] {
            assert!(quantity("q", Some(&ok)).is_ok(), "{ok}");
        }
        assert_eq!(quantity("q", None).ok(), Some(1));
        for bad in [
            json!(0),
            json!(-1),
            json!(1.5),
            json!("abc"),
            json!(1_000_000_000_000_i64),
            json!("1e3"),
            json!(true),
            json!([1]),
        ] {
            assert!(quantity("q", Some(&bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn periods() {
        let t = time::macros::datetime!(2026-01-31 10:00 UTC);
        assert_eq!(
            period_end(t, "day"),
            Some(time::macros::datetime!(2026-02-01 10:00 UTC))
        );
        assert_eq!(
            period_end(t, "month"),
            Some(time::macros::datetime!(2026-02-28 10:00 UTC))
        );
        assert_eq!(
            period_end(t, "year"),
            Some(time::macros::datetime!(2027-01-31 10:00 UTC))
        );
        assert_eq!(
            period_end(t, "week"),
            Some(time::macros::datetime!(2026-02-07 10:00 UTC))
        );
        assert_eq!(period_end(t, "fortnight"), None);
    }
}
