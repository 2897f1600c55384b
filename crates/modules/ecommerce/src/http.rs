//! Ecommerce routes: the paid-orders counter, a subject's cart and orders
//! (`/api/rbac/subjects/{id}/ecommerce-module/…`, the subject's own only), checkout, and the
//! order actions of admins and of the platform (check, override, clear-old-orders, stats). One
//! table of typed routes: each handler's types say what it takes and answers ([`crate::views`]).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use stoa_api::endpoint::{ById, Endpoint, In, Json, Nothing, Row, empty_is_none};
use stoa_api::{Access, AppState, RouteBook};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::orders::{Commerce, MAX_SUMMARIES, Picked, Which};
use crate::views::{
    AddToCart, BuyNow, CartGroup, Checked, CheckoutAttributes, CheckoutBody, CheckoutResult,
    Cleared, EcommerceOrder, EcommerceOrdersToProducts, Enforcement, Lines, Money, OrderDetails,
    OrderStats, OrderSummary, OrderView, Override, OwnerOrder, Payer, RolesChecked, SetLine,
    Status,
};

/// `/api/rbac/subjects/{id}/ecommerce-module` + `$tail`.
macro_rules! subject {
    ($tail:literal) => {
        concat!("/api/rbac/subjects/{id}/ecommerce-module", $tail)
    };
}

/// One of a subject's orders (`…/orders/{orderId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SubjectOrder {
    id: Uuid,
    order_id: Uuid,
}

/// A product, for a subject (`…/products/{productId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SubjectProduct {
    id: Uuid,
    product_id: Uuid,
}

/// An order in a currency (`…/checkout-attributes/{currencyId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct OrderCurrency {
    id: Uuid,
    currency_id: Uuid,
}

/// A line of an order (`…/orders-to-products/{orderToProductId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct OrderLine {
    id: Uuid,
    order_to_product_id: Uuid,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PaidQuery {
    /// Count the orders of this product only
    #[serde(default, deserialize_with = "empty_is_none")]
    #[schemars(with = "Option<Uuid>")]
    product_id: Option<Uuid>,
}

#[derive(Deserialize, JsonSchema)]
struct ListQuery {
    /// cart (the open order, default), history (placed orders) or all
    #[serde(rename = "type", default, deserialize_with = "empty_is_none")]
    #[schemars(with = "Which")]
    which: Option<Which>,
}

#[derive(Deserialize, JsonSchema)]
struct StatsQuery {
    /// The days to report, back from today (default 30)
    #[serde(default, deserialize_with = "empty_is_none")]
    #[schemars(with = "Option<i64>", range(min = 1, max = 366))]
    days: Option<i64>,
}

#[derive(Deserialize, JsonSchema)]
struct SummariesQuery {
    /// Order ids separated by commas (at most 50)
    #[schemars(length(max = 2000))]
    ids: String,
}

async fn paid_counter(c: Arc<Commerce>, x: In<Nothing, PaidQuery>) -> Result<i64> {
    c.paid.get(&c.store, x.query.product_id).await
}

async fn list(c: Arc<Commerce>, x: In<ById, ListQuery>) -> Result<Vec<OrderView>> {
    let s = x.caller.acting_for(x.path.id)?;
    c.list(s, x.query.which.unwrap_or_default()).await
}

async fn add(c: Arc<Commerce>, x: In<ById, Nothing, Json<AddToCart>>) -> Result<OwnerOrder> {
    c.add_and_show(x.caller.acting_for(x.path.id)?, &x.body.0)
        .await
}

async fn quantity(c: Arc<Commerce>, x: In<ById>) -> Result<i64> {
    c.quantity(x.caller.acting_for(x.path.id)?).await
}

async fn totals(c: Arc<Commerce>, x: In<ById>) -> Result<Vec<CartGroup>> {
    c.totals(x.caller.acting_for(x.path.id)?).await
}

async fn one(c: Arc<Commerce>, x: In<SubjectOrder>) -> Result<OwnerOrder> {
    c.one(x.caller.acting_for(x.path.id)?, x.path.order_id)
        .await
}

async fn update(c: Arc<Commerce>, x: In<SubjectOrder, Nothing, Json<Lines>>) -> Result<OwnerOrder> {
    let s = x.caller.acting_for(x.path.id)?;
    c.update_lines(s, x.path.order_id, &x.body.0).await
}

async fn remove(c: Arc<Commerce>, x: In<SubjectOrder>) -> Result<Row<EcommerceOrder>> {
    let s = x.caller.acting_for(x.path.id)?;
    Ok(Row::new(c.remove(s, x.path.order_id).await?.to_json()))
}

async fn checkout(
    c: Arc<Commerce>,
    x: In<ById, Nothing, Json<CheckoutBody>>,
) -> Result<CheckoutResult> {
    let s = x.caller.acting_for(x.path.id)?;
    let body = &x.body.0;
    let picked = match body
        .ecommerce_module
        .as_ref()
        .and_then(|m| m.orders.as_ref())
    {
        Some(ids) => Picked::Ids(ids.iter().map(|o| o.id).collect()),
        None => Picked::Open(c.open_orders(s).await?),
    };
    c.checkout(s, picked, &body.payer, &x.actor).await
}

/// One cart order checked out: `…/orders/{orderId}/checkout` (the original's SDK named it; its
/// server never had it).
async fn checkout_one(
    c: Arc<Commerce>,
    x: In<SubjectOrder, Nothing, Json<Payer>>,
) -> Result<CheckoutResult> {
    let s = x.caller.acting_for(x.path.id)?;
    let picked = Picked::Ids(vec![x.path.order_id]);
    c.checkout(s, picked, &x.body.0, &x.actor).await
}

async fn buy_now(
    c: Arc<Commerce>,
    x: In<SubjectProduct, Nothing, Json<BuyNow>>,
) -> Result<CheckoutResult> {
    let s = x.caller.acting_for(x.path.id)?;
    let body = &x.body.0;
    // Everything the checkout checks is checked before the order exists.
    c.billing().provider(&body.provider)?;
    let order = c.add(s, &body.cart(x.path.product_id), true).await?;
    match c
        .checkout(s, Picked::Ids(vec![order]), &body.payer(), &x.actor)
        .await
    {
        Ok(r) => Ok(r),
        Err(e) => {
            let _ = c.remove(s, order).await;
            Err(e)
        }
    }
}

async fn check(c: Arc<Commerce>, x: In<ById>) -> Result<Checked> {
    Ok(Checked {
        ok: true,
        status: Status(c.check(x.path.id).await?),
    })
}

async fn override_status(
    c: Arc<Commerce>,
    x: In<ById, Nothing, Json<Override>>,
) -> Result<Row<EcommerceOrder>> {
    c.override_status(x.path.id, &x.body.0, &x.actor).await
}

async fn admin_view(c: Arc<Commerce>, x: In<ById>) -> Result<OrderDetails> {
    c.admin_view(x.path.id).await
}

async fn clear_old(c: Arc<Commerce>, _x: In) -> Result<Cleared> {
    Ok(Cleared {
        ok: true,
        removed: c.clear_old().await?,
    })
}

async fn stats(c: Arc<Commerce>, x: In<Nothing, StatsQuery>) -> Result<OrderStats> {
    let days = x.query.days.unwrap_or(30);
    if !(1..=366).contains(&days) {
        return Err(Error::bad_field("days", "must be 1 to 366"));
    }
    c.stats(days).await
}

async fn summaries(c: Arc<Commerce>, x: In<Nothing, SummariesQuery>) -> Result<Vec<OrderSummary>> {
    let ids = x
        .query
        .ids
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            Uuid::parse_str(s)
                .map_err(|_| Error::bad_field("ids", "must be order ids separated by commas"))
        })
        .collect::<Result<Vec<_>>>()?;
    if ids.len() > MAX_SUMMARIES {
        return Err(Error::bad_field(
            "ids",
            format!("at most {MAX_SUMMARIES} orders at once"),
        ));
    }
    c.summaries(&ids).await
}

async fn checkout_attributes(c: Arc<Commerce>, x: In<OrderCurrency>) -> Result<CheckoutAttributes> {
    c.checkout_attributes(x.path.id, x.path.currency_id).await
}

async fn line_total(c: Arc<Commerce>, x: In<ById>) -> Result<Vec<Money>> {
    c.line_total(x.path.id).await
}

async fn order_quantity(c: Arc<Commerce>, x: In<ById>) -> Result<i64> {
    c.order_quantity(x.path.id).await
}

async fn order_total(c: Arc<Commerce>, x: In<ById>) -> Result<Vec<Money>> {
    c.order_total(x.path.id).await
}

async fn set_line(
    c: Arc<Commerce>,
    x: In<OrderLine, Nothing, Json<SetLine>>,
) -> Result<Row<EcommerceOrdersToProducts>> {
    let line = c
        .set_line(x.path.id, x.path.order_to_product_id, &x.body.0)
        .await?;
    Ok(Row::new(line.to_json()))
}

async fn enforce(c: Arc<Commerce>, x: In<SubjectProduct>) -> Result<Enforcement> {
    c.enforce(x.path.id, x.path.product_id, &x.actor).await
}

async fn subject_check(c: Arc<Commerce>, x: In<ById>) -> Result<RolesChecked> {
    let (granted, revoked) = c.check_subject(x.path.id).await?;
    Ok(RolesChecked {
        ok: true,
        granted,
        revoked,
    })
}

const TAG: &str = "ecommerce";
/// What a checkout can answer besides its invoices.
const CHECKOUT_ERRORS: &[u16] = &[400, 401, 403, 404, 409, 422, 503];

// long: the module's route table, one endpoint after another — read as one.
pub fn routes(c: Arc<Commerce>) -> RouteBook<AppState> {
    // Bodies and untitled answers keep the names the document gave them (`SubjectCheckoutBody`,
    // …), which clients call.
    let get = |tag, path, id| Endpoint::get(tag, path, id).named_by_operation();
    let post = |tag, path, id| Endpoint::post(tag, path, id).named_by_operation();
    let patch = |tag, path, id| Endpoint::patch(tag, path, id).named_by_operation();
    let delete = |tag, path, id| Endpoint::delete(tag, path, id).named_by_operation();
    RouteBook::new()
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/paid-orders-to-products-quantity", "ecommerceOrdersPaidQuantity")
                .access(Access::Public)
                .summary("How many products paid orders hold (optionally of one product): the campaign counter")
                .errors(&[400]),
            paid_counter,
        )
        // A subject's own cart and orders.
        .endpoint(
            c.clone(),
            get(TAG, subject!("/orders"), "subjectOrders")
                .access(Access::Owner)
                .summary("The subject's orders: ?type=cart (default), history or all")
                .errors(&[400, 401, 403]),
            list,
        )
        .endpoint(
            c.clone(),
            post(TAG, subject!("/orders"), "subjectAddToCart")
                .access(Access::Owner)
                .summary("Adds a product to the cart (a line already holding it grows)")
                .status(201)
                .errors(&[400, 401, 403, 404, 422]),
            add,
        )
        .endpoint(
            c.clone(),
            get(TAG, subject!("/orders/quantity"), "subjectCartQuantity")
                .access(Access::Owner)
                .summary("How many products the open cart holds (the cart badge)")
                .errors(&[400, 401, 403]),
            quantity,
        )
        .endpoint(
            c.clone(),
            get(TAG, subject!("/orders/total"), "subjectCartTotal")
                .access(Access::Owner)
                .summary("The open cart's totals per currency, with its orders")
                .errors(&[400, 401, 403]),
            totals,
        )
        .endpoint(
            c.clone(),
            post(TAG, subject!("/orders/checkout"), "subjectCheckout")
                .access(Access::Owner)
                .summary("Checks out cart orders (all open ones when ecommerceModule.orders is absent) with a provider; answers the invoices to pay")
                .status(201)
                .errors(CHECKOUT_ERRORS),
            checkout,
        )
        .endpoint(
            c.clone(),
            post(TAG, subject!("/orders/{orderId}/checkout"), "subjectCheckoutOrder")
                .access(Access::Owner)
                .summary("Checks out one cart order of the subject with a provider; answers the invoices to pay")
                .status(201)
                .errors(CHECKOUT_ERRORS),
            checkout_one,
        )
        .endpoint(
            c.clone(),
            get(TAG, subject!("/orders/{orderId}"), "subjectOrder")
                .access(Access::Owner)
                .summary("One of the subject's orders, with its status history, payments (an open one's page to pay on) and receipt")
                .errors(&[400, 401, 403, 404]),
            one,
        )
        .endpoint(
            c.clone(),
            patch(TAG, subject!("/orders/{orderId}"), "subjectUpdateOrder")
                .access(Access::Owner)
                .summary("Sets line quantities of an order still in the cart")
                .errors(&[400, 401, 403, 404, 409, 422]),
            update,
        )
        .endpoint(
            c.clone(),
            delete(TAG, subject!("/orders/{orderId}"), "subjectDeleteOrder")
                .access(Access::Owner)
                .summary("Deletes an order still in the cart")
                .errors(&[400, 401, 403, 404, 409]),
            remove,
        )
        .endpoint(
            c.clone(),
            post(TAG, subject!("/products/{productId}/checkout"), "subjectBuyNow")
                .access(Access::Owner)
                .summary("Buys one product now: a new order of it, checked out at once")
                .status(201)
                .errors(CHECKOUT_ERRORS),
            buy_now,
        )
        // Admins' and the platform's.
        .endpoint(
            c.clone(),
            post(TAG, "/api/rbac/subjects/{id}/check", "subjectCheckRoles")
                .access(Access::Admin)
                .summary("Grants the roles of products in delivering orders, revokes those of paying and delivered ones")
                .errors(&[400, 401, 403, 404]),
            subject_check,
        )
        .endpoint(
            c.clone(),
            post(TAG, subject!("/products/{productId}/enforce"), "subjectEnforceProduct")
                .access(Access::Admin)
                .summary("Delivers the subject's subscription orders of the product whose paid period has ended (their roles are then revoked)")
                .errors(&[400, 401, 403, 404]),
            enforce,
        )
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/stats", "ecommerceOrderStats")
                .access(Access::Admin)
                .summary("Paid orders and revenue per currency per day (?days=30)")
                .errors(&[400, 401, 403]),
            stats,
        )
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/summaries", "ecommerceOrderSummaries")
                .access(Access::Admin)
                .summary("What the admins' list shows beside each order (?ids=a,b,… at most 50): total, currency, latest invoice's provider and state, buyer")
                .errors(&[400, 401, 403]),
            summaries,
        )
        .endpoint(
            c.clone(),
            post(TAG, "/api/ecommerce/orders/clear-old-orders", "ecommerceClearOldOrders")
                .access(Access::Admin)
                .summary("Deletes abandoned carts (never checked out) older than the retention")
                .errors(&[401, 403]),
            clear_old,
        )
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/{id}/details", "ecommerceOrderDetails")
                .access(Access::Admin)
                .summary("An order with lines, totals, intents, invoices, status history and the statuses it may move to")
                .errors(&[400, 401, 403, 404]),
            admin_view,
        )
        // Moving an order on and correcting its status: tools for agents (MCP).
        .endpoint(
            c.clone(),
            post(TAG, "/api/ecommerce/orders/{id}/check", "ecommerceOrderCheck")
                .access(Access::Admin)
                .summary("Moves a paid order on, cancels one past the payment timeout, delivers a lapsed subscription")
                .errors(&[400, 401, 403, 404, 409])
                .for_agents(),
            check,
        )
        .endpoint(
            c.clone(),
            post(TAG, "/api/ecommerce/orders/{id}/override", "ecommerceOrderOverride")
                .access(Access::Admin)
                .summary("Admin correction to any status, with a reason (recorded)")
                .errors(&[400, 401, 403, 404, 409, 422])
                .for_agents(),
            override_status,
        )
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/{id}/checkout-attributes/{currencyId}", "ecommerceOrderCheckoutAttributes")
                .access(Access::Admin)
                .summary("Amount, product type and interval of an order in a currency")
                .errors(&[400, 401, 403, 404, 422]),
            checkout_attributes,
        )
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/{id}/total", "ecommerceOrderTotal")
                .access(Access::Admin)
                .summary("The totals of every line of an order, one per line and currency its product is priced in")
                .errors(&[400, 401, 403, 404]),
            order_total,
        )
        .endpoint(
            c.clone(),
            get(TAG, "/api/ecommerce/orders/{id}/quantity", "ecommerceOrderQuantity")
                .access(Access::Admin)
                .summary("How many products an order holds (0 without lines)")
                .errors(&[400, 401, 403, 404]),
            order_quantity,
        )
        .endpoint(
            c.clone(),
            patch(TAG, "/api/ecommerce/orders/{id}/orders-to-products/{orderToProductId}", "ecommerceOrderSetLine")
                .access(Access::Admin)
                .summary("Sets the quantity of a line of an order still in the cart (only quantity; the line must be the order's)")
                .errors(&[400, 401, 403, 404, 409, 422]),
            set_line,
        )
        .endpoint(
            c,
            get(TAG, "/api/ecommerce/orders-to-products/{id}/total", "ecommerceLineTotal")
                .access(Access::Admin)
                .summary("A line's total in every currency its product is priced in")
                .errors(&[400, 401, 403, 404]),
            line_total,
        )
}
