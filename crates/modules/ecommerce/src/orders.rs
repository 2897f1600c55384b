//! Carts, checkout and the order lifecycle. Money is computed here only, from the price
//! attributes, with exact decimals; amounts a client sends are never read. A subject sees and
//! changes only its own orders (rbac's subject service says which those are).

mod cart;
mod checkout;
mod notices;
mod reports;
mod settlement;
mod showing;
mod sweeps;
mod transitions;

pub use transitions::Move;

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
use crate::rows::{ChangeRow, LineRow, OrderCurrencyRow, OrderRow, ProductRow};
use crate::status::{self, By};
use crate::views::{
    AddToCart, Amount, CartGroup, CheckoutInvoice, CheckoutInvoices, CheckoutOrders,
    CheckoutResult, InvoiceState, LineMore, LineView, Lines, Money, OrderMore, OrderStep,
    OrderView, OwnerMore, OwnerOrder, Payer, Payment, ProductCard, SetLine,
};
use stoa_api::endpoint::{More, Row};

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

/// A quantity: a whole number from 1 to [`MAX_QUANTITY`] (1 when none is given).
pub fn quantity(field: &str, n: Option<i64>) -> Result<i64> {
    match n {
        None => Ok(1),
        Some(n) if (1..=MAX_QUANTITY).contains(&n) => Ok(n),
        Some(_) => Err(Error::invalid_field(
            field,
            format!("must be a whole number from 1 to {MAX_QUANTITY}"),
        )),
    }
}

/// A buyer's comment, trimmed (`None` when blank); at most 10 000 characters.
fn comment(c: Option<&str>) -> Result<Option<String>> {
    match c.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) if c.chars().count() > 10_000 => Err(Error::invalid_field(
            "comment",
            "is longer than 10000 characters",
        )),
        c => Ok(c.map(str::to_owned)),
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
    /// Who placed which order, which roles a product gives (links ecommerce owns).
    owners: crate::owners::Owners,
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
    lines: Vec<LineRow>,
    products: HashMap<Uuid, ProductRow>,
    prices: HashMap<Uuid, Vec<Price>>,
    currency_of: HashMap<Uuid, Uuid>,
    intervals: HashMap<Uuid, String>,
}

impl Loaded {
    fn lines_of(&self, order: Uuid) -> impl Iterator<Item = &LineRow> {
        self.lines.iter().filter(move |l| l.order_id == order)
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
            let p = l.product_id.unwrap_or_default();
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
                        product.slug.as_deref().unwrap_or_default()
                    ),
                )
            })?;
            amount = price
                .checked_mul(Decimal::from(l.quantity))
                .and_then(|x| amount.checked_add(x))
                .ok_or_else(|| Error::invalid_field("quantity", "the total is too large"))?;
            let t = product.kind.clone().unwrap_or_else(|| "one_off".into());
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

/// Which of a subject's orders a list shows.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Which {
    /// The cart's orders (the open one and those being paid)
    #[default]
    Cart,
    /// Placed orders
    History,
    All,
}

impl std::str::FromStr for Which {
    type Err = &'static str;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "cart" => Ok(Which::Cart),
            "history" => Ok(Which::History),
            "all" => Ok(Which::All),
            _ => Err("must be cart, history or all"),
        }
    }
}

impl Commerce {
    pub fn new(ctx: &stoa_api::module::Context) -> stoa_api::module::ModuleResult<Self> {
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
            owners: crate::owners::Owners::new(s.clone()),
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
    async fn lines_in(&self, exec: &mut Exec<'_>, orders: &[Uuid]) -> Result<Vec<LineRow>> {
        let q = FindQuery::all()
            .any_of(
                &self.e.line,
                "orderId",
                orders.iter().copied().map(Val::Uuid).collect(),
            )?
            .take(u64::try_from(orders.len() * 50 + 1).unwrap_or(u64::MAX));
        repo::find(exec, &self.e.line, &q)
            .await?
            .0
            .iter()
            .map(LineRow::of)
            .collect()
    }

    /// The lines of `orders` (at most 50 an order).
    async fn lines_of(&self, orders: &[Uuid]) -> Result<Vec<LineRow>> {
        let ids: Vec<Val> = orders.iter().copied().map(Val::Uuid).collect();
        self.store
            .find_in(&self.e.line, "orderId", &ids, ids.len() * 50 + 1)
            .await?
            .iter()
            .map(LineRow::of)
            .collect()
    }

    async fn load(&self, orders: Vec<Record>) -> Result<Loaded> {
        let order_ids: Vec<Uuid> = orders.iter().filter_map(Record::id).collect();
        let ids: Vec<Val> = order_ids.iter().copied().map(Val::Uuid).collect();
        let lines = self.lines_of(&order_ids).await?;
        let product_ids: Vec<Uuid> = lines
            .iter()
            .filter_map(|l| l.product_id)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let listings = self.catalog.listings(&self.store, &product_ids).await?;
        let mut products = HashMap::new();
        let mut prices = HashMap::new();
        let mut intervals = HashMap::new();
        for (id, l) in listings {
            if let Some(p) = &l.product {
                products.insert(id, ProductRow::of(p)?);
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
            .map(OrderCurrencyRow::of)
            .filter_map(|l| l.map(|l| Some((l.order_id?, l.currency_id?))).transpose())
            .collect::<Result<_>>()?;
        Ok(Loaded {
            orders,
            lines,
            products,
            prices,
            currency_of,
            intervals,
        })
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
    let subscription = |i: &Record| {
        stoa_billing::rows::IntentRow::of(i)
            .is_ok_and(|i| i.kind.as_deref() == Some("subscription"))
    };
    if intents.iter().any(subscription) {
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
        for ok in [1, 7, 10_000] {
            assert_eq!(quantity("q", Some(ok)).ok(), Some(ok));
        }
        assert_eq!(quantity("q", None).ok(), Some(1));
        for bad in [0, -1, 10_001, 1_000_000_000_000_i64] {
            assert!(quantity("q", Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn comments() {
        assert_eq!(comment(Some("  hi ")).ok(), Some(Some("hi".to_owned())));
        assert_eq!(comment(Some("   ")).ok(), Some(None));
        assert_eq!(comment(None).ok(), Some(None));
        assert!(comment(Some(&"x".repeat(10_001))).is_err());
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
