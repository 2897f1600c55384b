//! Ecommerce routes: the paid-orders counter, a subject's cart and orders
//! (`/api/rbac/subjects/{id}/ecommerce-module/…`, the subject's own only), checkout, and the
//! order actions of admins and of the platform (check, override, clear-old-orders, stats).
//! One table below lists them all; each row is (access, method, path, handler, description).

use std::sync::Arc;

use serde_json::{Map, Value, json};
use stoa_api::call::{Call, Fut, created, ok, route};
use stoa_api::crud::parse_id;
use stoa_api::openapi::{custom, path_params};
use stoa_api::{Access, AppState, RouteBook};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::orders::{Commerce, Picked};

/// The ids of `ecommerceModule.orders: [{id}]`.
fn order_ids(body: &Map<String, Value>) -> Result<Option<Vec<Uuid>>> {
    let Some(list) = body.get("ecommerceModule").and_then(|m| m.get("orders")) else {
        return Ok(None);
    };
    let list = list
        .as_array()
        .ok_or_else(|| Error::invalid_field("ecommerceModule.orders", "must be a list of {id}"))?;
    list.iter()
        .enumerate()
        .map(|(n, o)| {
            o.get("id")
                .or(Some(o))
                .and_then(Value::as_str)
                .and_then(|s| Uuid::parse_str(s).ok())
                .ok_or_else(|| {
                    Error::invalid_field(
                        &format!("ecommerceModule.orders[{n}].id"),
                        "must be an order id",
                    )
                })
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

fn paid_counter(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let product = match x.query.get("productId").filter(|p| !p.is_empty()) {
            Some(p) => Some(parse_id(p)?),
            None => None,
        };
        ok(c.paid.get(&c.store, product).await?)
    })
}

fn list(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let which = x.query.get("type").map_or("cart", String::as_str);
        if !matches!(which, "cart" | "history" | "all") {
            return Err(Error::bad_field("type", "must be cart, history or all"));
        }
        ok(c.list(x.subject()?, which).await?)
    })
}

fn add(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { created(c.add_and_show(x.subject()?, &x.body).await?) })
}

fn quantity(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.quantity(x.subject()?).await?) })
}

fn totals(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.totals(x.subject()?).await?) })
}

fn one(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.one(x.subject()?, x.id("orderId")?).await?) })
}

fn update(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.update_lines(x.subject()?, x.id("orderId")?, &x.body)
            .await?)
    })
}

fn remove(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.remove(x.subject()?, x.id("orderId")?).await?) })
}

fn checkout(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let s = x.subject()?;
        let picked = match order_ids(&x.body)? {
            Some(ids) => Picked::Ids(ids),
            None => Picked::Open(c.open_orders(s).await?),
        };
        created(c.checkout(s, picked, &x.body, &x.actor).await?)
    })
}

fn buy_now(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let s = x.subject()?;
        let product = x.id("productId")?;
        // Everything the checkout checks is checked before the order exists.
        let provider = x
            .body
            .get("provider")
            .and_then(Value::as_str)
            .unwrap_or_default();
        c.billing().provider(provider)?;
        let order = c.add(s, &x.body, true, Some(product)).await?;
        match c
            .checkout(s, Picked::Ids(vec![order]), &x.body, &x.actor)
            .await
        {
            Ok(r) => created(r),
            Err(e) => {
                let _ = c.remove(s, order).await;
                Err(e)
            }
        }
    })
}

fn check(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(json!({"ok": true, "status": c.check(x.id("id")?).await?})) })
}

fn override_status(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.override_status(x.id("id")?, &x.body, &x.actor).await?) })
}

fn admin_view(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.admin_view(x.id("id")?).await?) })
}

fn clear_old(c: Arc<Commerce>, _x: Call) -> Fut {
    Box::pin(async move { ok(json!({"ok": true, "removed": c.clear_old().await?})) })
}

fn stats(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let days = match x.query.get("days") {
            Some(d) => d
                .parse::<i64>()
                .ok()
                .filter(|d| (1..=366).contains(d))
                .ok_or_else(|| Error::bad_field("days", "must be 1 to 366"))?,
            None => 30,
        };
        ok(c.stats(days).await?)
    })
}

fn summaries(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let raw = x.query.get("ids").map_or("", String::as_str);
        let ids = raw
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                Uuid::parse_str(s)
                    .map_err(|_| Error::bad_field("ids", "must be order ids separated by commas"))
            })
            .collect::<Result<Vec<_>>>()?;
        if ids.len() > crate::orders::MAX_SUMMARIES {
            return Err(Error::bad_field(
                "ids",
                format!("at most {} orders at once", crate::orders::MAX_SUMMARIES),
            ));
        }
        ok(c.summaries(&ids).await?)
    })
}

fn checkout_attributes(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.checkout_attributes(x.id("id")?, x.id("currencyId")?)
            .await?)
    })
}

fn line_total(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.line_total(x.id("id")?).await?) })
}

fn order_quantity(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.order_quantity(x.id("id")?).await?) })
}

fn order_total(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.order_total(x.id("id")?).await?) })
}

fn set_line(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.set_line(x.id("id")?, x.id("orderToProductId")?, &x.body)
            .await?)
    })
}

/// One cart order checked out: `…/orders/{orderId}/checkout` (the original's SDK named it; its
/// server never had it).
fn checkout_one(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let s = x.subject()?;
        created(
            c.checkout(s, Picked::Ids(vec![x.id("orderId")?]), &x.body, &x.actor)
                .await?,
        )
    })
}

fn enforce(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move { ok(c.enforce(x.id("id")?, x.id("productId")?, &x.actor).await?) })
}

fn subject_check(c: Arc<Commerce>, x: Call) -> Fut {
    Box::pin(async move {
        let (added, removed) = c.check_subject(x.id("id")?).await?;
        ok(json!({"ok": true, "granted": added, "revoked": removed}))
    })
}

const SUBJECT: &str = "/api/rbac/subjects/{id}/ecommerce-module";

pub fn routes(c: Arc<Commerce>) -> RouteBook<AppState> {
    let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
    let nstr = json!({"type": ["string", "null"]});
    let currency = json!({"type": "object", "title": "EcommerceCurrencyCard", "properties": {
        "id": {"type": "string", "format": "uuid"}, "slug": {"type": "string"}, "symbol": {"type": "string"}, "title": {"type": "string"}, "isDefault": {"type": "boolean"}
    }, "required": ["id", "slug", "symbol", "title", "isDefault"]});
    let money = json!({"type": "object", "title": "EcommerceMoney", "properties": {
        "total": {"type": "string", "format": "decimal"}, "billingModuleCurrency": currency
    }, "required": ["total", "billingModuleCurrency"]});
    let line = json!({"allOf": [r("EcommerceOrdersToProducts"), {"type": "object", "properties": {
        "product": {"anyOf": [{"type": "object", "title": "EcommerceProductCard", "properties": {
            "id": {"type": "string", "format": "uuid"}, "slug": nstr, "title": r("Translations"), "type": nstr, "adminTitle": nstr
        }, "required": ["id"]}, {"type": "null"}]},
        "total": {"type": "array", "items": money.clone()}
    }, "required": ["product", "total"]}]});
    let order_props = json!({
        "ordersToProducts": {"type": "array", "items": line},
        "billingModuleCurrency": {"anyOf": [currency.clone(), {"type": "null"}]},
        "total": {"type": "array", "description": "Per currency the products are priced in", "items": money.clone()},
        "checkoutTotal": {"type": ["string", "null"], "format": "decimal", "description": "What checkout charges in the order's currency"}
    });
    let order = json!({"title": "EcommerceOrderView", "description": "An order with its lines (product, total per currency), currency, totals and checkout total",
        "allOf": [r("EcommerceOrder"), {"type": "object", "properties": order_props, "required": ["ordersToProducts", "billingModuleCurrency", "total", "checkoutTotal"]}]});
    let details = json!({"title": "EcommerceOrderDetails", "description": "An order for administrators: the order view, payment intents, invoices, status history and the statuses it may move to",
        "allOf": [r("EcommerceOrderView"), {"type": "object", "properties": {
            "paymentIntents": {"type": "array", "items": r("BillingPaymentIntent")},
            "invoices": {"type": "array", "items": r("BillingInvoice")},
            "statusChanges": {"type": "array", "items": r("EcommerceOrderStatusChange")},
            "nextStatuses": {"type": "array", "items": {"type": "string", "enum": crate::ORDER_STATUSES}}
        }, "required": ["paymentIntents", "invoices", "statusChanges", "nextStatuses"]}]});
    let payment = json!({"type": "object", "title": "EcommerceOrderPayment", "description": "One of an order's invoices as its buyer sees it",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "status": {"type": "string", "enum": ["draft", "open", "paid", "uncollectible", "void", "failed"]},
            "provider": nstr,
            "amount": {"type": "string", "format": "decimal", "description": "In the order's currency"},
            "createdAt": nstr,
            "paymentUrl": {"type": ["string", "null"], "description": "The provider's page to pay on, while the invoice is open"}
        }, "required": ["id", "status", "provider", "amount", "createdAt", "paymentUrl"]});
    let buyer_change = json!({"type": "object", "title": "EcommerceOrderStep", "description": "A change of the order's status: when, from and to (who and why stay with the admins)",
        "properties": {"id": {"type": "string", "format": "uuid"}, "createdAt": {"type": "string"}, "from": {"type": "string"}, "to": {"type": "string"}},
        "required": ["id", "createdAt", "from", "to"]});
    let owner_order = json!({"title": "EcommerceOwnerOrder", "description": "One of the buyer's orders: the order view, its status history, its payments and its receipt",
        "allOf": [r("EcommerceOrderView"), {"type": "object", "properties": {
            "statusChanges": {"type": "array", "items": buyer_change},
            "payments": {"type": "array", "items": payment},
            "receiptUrl": {"type": ["string", "null"], "description": "The receipt's image, once the order is paid"}
        }, "required": ["statusChanges", "payments", "receiptUrl"]}]});
    let orders = json!({"type": "array", "items": order});
    let invoice = json!({"type": "object", "title": "EcommerceCheckoutInvoice", "description": "An invoice to pay: open paymentUrl", "properties": {
        "id": {"type": "string", "format": "uuid"}, "status": nstr, "provider": nstr,
        "amount": {"type": "string", "format": "decimal"}, "currency": {"type": "string", "description": "The currency's slug"},
        "paymentUrl": nstr, "successUrl": nstr, "cancelUrl": nstr
    }, "required": ["id", "status", "provider", "amount", "currency", "paymentUrl", "successUrl", "cancelUrl"]});
    let checkout_result = json!({"type": "object", "title": "EcommerceCheckoutResult", "properties": {
        "billingModule": {"type": "object", "properties": {"invoices": {"type": "array", "items": invoice}}, "required": ["invoices"]},
        "ecommerceModule": {"type": "object", "properties": {"orders": {"type": "array", "description": "The orders checked out", "items": {"type": "string", "format": "uuid"}}}, "required": ["orders"]}
    }, "required": ["billingModule", "ecommerceModule"]});
    let id_ref = json!({"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}, "required": ["id"]});
    let orders_pick = json!({"type": "object", "description": "Which cart orders to check out (all open ones when absent)", "properties": {"orders": {"type": "array", "items": id_ref}}});
    let currency_pick = json!({"type": "object", "description": "The currency to pay in (the product's default when absent)", "properties": {"currency": id_ref}});
    let add_body = json!({"type": "object", "properties": {"productId": {"type": "string", "format": "uuid"}, "quantity": {"type": "integer", "minimum": 1, "maximum": crate::orders::MAX_QUANTITY}, "storeId": {"type": "string", "format": "uuid"}, "billingModule": currency_pick}, "required": ["productId"]});
    let checkout_body = json!({"type": "object", "properties": {"provider": {"type": "string"}, "email": {"type": "string", "format": "email"}, "comment": {"type": "string"}, "language": {"type": "string", "enum": ["en", "ru"]}, "ecommerceModule": orders_pick}, "required": ["provider"]});
    let one_checkout_body = json!({"type": "object", "properties": {"provider": {"type": "string"}, "email": {"type": "string", "format": "email"}, "comment": {"type": "string"}, "language": {"type": "string", "enum": ["en", "ru"]}}, "required": ["provider"]});
    let buy_body = json!({"type": "object", "properties": {"provider": {"type": "string"}, "email": {"type": "string", "format": "email"}, "quantity": {"type": "integer", "minimum": 1}, "comment": {"type": "string"}, "storeId": {"type": "string", "format": "uuid"}, "billingModule": currency_pick, "language": {"type": "string"}}, "required": ["provider"]});
    let lines_body = json!({"type": "object", "properties": {"ordersToProducts": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}, "quantity": {"type": "integer", "minimum": 1}}, "required": ["id", "quantity"]}}}, "required": ["ordersToProducts"]});
    let override_body = json!({"type": "object", "properties": {"status": {"type": "string", "enum": crate::ORDER_STATUSES}, "reason": {"type": "string", "minLength": 3}}, "required": ["status", "reason"]});
    let okv = json!({"type": "object"});
    #[allow(clippy::type_complexity)]
    let table: Vec<(
        Access,
        &'static str,
        String,
        stoa_api::call::Handler<Commerce>,
        &str,
        &str,
        Vec<&str>,
        Option<Value>,
        u16,
        Value,
        &[u16],
    )> = vec![
        (
            Access::Public,
            "GET",
            "/api/ecommerce/orders/paid-orders-to-products-quantity".into(),
            paid_counter,
            "ecommerceOrdersPaidQuantity",
            "How many products paid orders hold (optionally of one product): the campaign counter",
            vec![],
            None,
            200,
            json!({"type": "integer"}),
            &[400],
        ),
        (
            Access::Owner,
            "GET",
            format!("{SUBJECT}/orders"),
            list,
            "subjectOrders",
            "The subject's orders: ?type=cart (default), history or all",
            vec!["id"],
            None,
            200,
            orders.clone(),
            &[400, 401, 403],
        ),
        (
            Access::Owner,
            "POST",
            format!("{SUBJECT}/orders"),
            add,
            "subjectAddToCart",
            "Adds a product to the cart (a line already holding it grows)",
            vec!["id"],
            Some(add_body),
            201,
            order.clone(),
            &[400, 401, 403, 404, 422],
        ),
        (
            Access::Owner,
            "GET",
            format!("{SUBJECT}/orders/quantity"),
            quantity,
            "subjectCartQuantity",
            "How many products the open cart holds (the cart badge)",
            vec!["id"],
            None,
            200,
            json!({"type": "integer"}),
            &[400, 401, 403],
        ),
        (
            Access::Owner,
            "GET",
            format!("{SUBJECT}/orders/total"),
            totals,
            "subjectCartTotal",
            "The open cart's totals per currency, with its orders",
            vec!["id"],
            None,
            200,
            json!({"type": "array", "items": {"type": "object", "title": "EcommerceCartGroup", "description": "The open cart orders payable in one currency", "properties": {
                "billingModuleCurrency": currency.clone(), "total": {"type": "string", "format": "decimal"}, "orders": {"type": "array", "items": r("EcommerceOrderView")}
            }, "required": ["billingModuleCurrency", "total", "orders"]}}),
            &[400, 401, 403],
        ),
        (
            Access::Owner,
            "POST",
            format!("{SUBJECT}/orders/checkout"),
            checkout,
            "subjectCheckout",
            "Checks out cart orders (all open ones when ecommerceModule.orders is absent) with a provider; answers the invoices to pay",
            vec!["id"],
            Some(checkout_body),
            201,
            checkout_result.clone(),
            &[400, 401, 403, 404, 409, 422, 503],
        ),
        (
            Access::Owner,
            "POST",
            format!("{SUBJECT}/orders/{{orderId}}/checkout"),
            checkout_one,
            "subjectCheckoutOrder",
            "Checks out one cart order of the subject with a provider; answers the invoices to pay",
            vec!["id", "orderId"],
            Some(one_checkout_body),
            201,
            checkout_result.clone(),
            &[400, 401, 403, 404, 409, 422, 503],
        ),
        (
            Access::Owner,
            "GET",
            format!("{SUBJECT}/orders/{{orderId}}"),
            one,
            "subjectOrder",
            "One of the subject's orders, with its status history, payments (an open one's page to pay on) and receipt",
            vec!["id", "orderId"],
            None,
            200,
            owner_order,
            &[400, 401, 403, 404],
        ),
        (
            Access::Owner,
            "PATCH",
            format!("{SUBJECT}/orders/{{orderId}}"),
            update,
            "subjectUpdateOrder",
            "Sets line quantities of an order still in the cart",
            vec!["id", "orderId"],
            Some(lines_body),
            200,
            order.clone(),
            &[400, 401, 403, 404, 409, 422],
        ),
        (
            Access::Owner,
            "DELETE",
            format!("{SUBJECT}/orders/{{orderId}}"),
            remove,
            "subjectDeleteOrder",
            "Deletes an order still in the cart",
            vec!["id", "orderId"],
            None,
            200,
            okv.clone(),
            &[400, 401, 403, 404, 409],
        ),
        (
            Access::Owner,
            "POST",
            format!("{SUBJECT}/products/{{productId}}/checkout"),
            buy_now,
            "subjectBuyNow",
            "Buys one product now: a new order of it, checked out at once",
            vec!["id", "productId"],
            Some(buy_body),
            201,
            checkout_result,
            &[400, 401, 403, 404, 409, 422, 503],
        ),
        (
            Access::Admin,
            "POST",
            "/api/rbac/subjects/{id}/check".into(),
            subject_check,
            "subjectCheckRoles",
            "Grants the roles of products in delivering orders, revokes those of paying and delivered ones",
            vec!["id"],
            None,
            200,
            okv.clone(),
            &[400, 401, 403, 404],
        ),
        (
            Access::Admin,
            "POST",
            format!("{SUBJECT}/products/{{productId}}/enforce"),
            enforce,
            "subjectEnforceProduct",
            "Delivers the subject's subscription orders of the product whose paid period has ended (their roles are then revoked)",
            vec!["id", "productId"],
            None,
            200,
            okv.clone(),
            &[400, 401, 403, 404],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders/stats".into(),
            stats,
            "ecommerceOrderStats",
            "Paid orders and revenue per currency per day (?days=30)",
            vec![],
            None,
            200,
            json!({"type": "object", "title": "EcommerceOrderStats", "properties": {
                "days": {"type": "array", "items": {"type": "object", "properties": {"day": {"type": "string", "format": "date"}, "currency": {"type": "string"}, "orders": {"type": "integer"}, "revenue": {"type": "string", "format": "decimal"}}, "required": ["day", "currency", "orders", "revenue"]}},
                "totals": {"type": "array", "items": {"type": "object", "properties": {"currency": {"type": "string"}, "orders": {"type": "integer"}, "revenue": {"type": "string", "format": "decimal"}}, "required": ["currency", "orders", "revenue"]}},
                "currencies": {"type": "array", "items": currency.clone()}
            }, "required": ["days", "totals", "currencies"]}),
            &[400, 401, 403],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders/summaries".into(),
            summaries,
            "ecommerceOrderSummaries",
            "What the admins' list shows beside each order (?ids=a,b,… at most 50): total, currency, latest invoice's provider and state, buyer",
            vec![],
            None,
            200,
            json!({"type": "array", "items": {"type": "object", "title": "EcommerceOrderSummary", "properties": {
                "id": {"type": "string", "format": "uuid"},
                "checkoutTotal": {"type": ["string", "null"], "format": "decimal", "description": "What checkout charges in the order's currency"},
                "billingModuleCurrency": {"anyOf": [currency.clone(), {"type": "null"}]},
                "total": {"type": "array", "description": "Per currency the products are priced in", "items": money.clone()},
                "provider": {"type": ["string", "null"], "description": "The latest invoice's payment provider"},
                "paymentStatus": {"type": ["string", "null"], "enum": ["draft", "open", "paid", "uncollectible", "void", "failed", null]},
                "subjectId": {"type": ["string", "null"], "format": "uuid", "description": "The buyer's account"},
                "email": {"type": ["string", "null"], "description": "The order's address, else the buyer's account's"}
            }, "required": ["id", "checkoutTotal", "billingModuleCurrency", "total", "provider", "paymentStatus", "subjectId", "email"]}}),
            &[400, 401, 403],
        ),
        (
            Access::Admin,
            "POST",
            "/api/ecommerce/orders/clear-old-orders".into(),
            clear_old,
            "ecommerceClearOldOrders",
            "Deletes abandoned carts (never checked out) older than the retention",
            vec![],
            None,
            200,
            okv.clone(),
            &[401, 403],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders/{id}/details".into(),
            admin_view,
            "ecommerceOrderDetails",
            "An order with lines, totals, intents, invoices, status history and the statuses it may move to",
            vec!["id"],
            None,
            200,
            details,
            &[400, 401, 403, 404],
        ),
        (
            Access::Admin,
            "POST",
            "/api/ecommerce/orders/{id}/check".into(),
            check,
            "ecommerceOrderCheck",
            "Moves a paid order on, cancels one past the payment timeout, delivers a lapsed subscription",
            vec!["id"],
            None,
            200,
            okv.clone(),
            &[400, 401, 403, 404, 409],
        ),
        (
            Access::Admin,
            "POST",
            "/api/ecommerce/orders/{id}/override".into(),
            override_status,
            "ecommerceOrderOverride",
            "Admin correction to any status, with a reason (recorded)",
            vec!["id"],
            Some(override_body),
            200,
            okv.clone(),
            &[400, 401, 403, 404, 409, 422],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders/{id}/checkout-attributes/{currencyId}".into(),
            checkout_attributes,
            "ecommerceOrderCheckoutAttributes",
            "Amount, product type and interval of an order in a currency",
            vec!["id", "currencyId"],
            None,
            200,
            okv.clone(),
            &[400, 401, 403, 404, 422],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders/{id}/total".into(),
            order_total,
            "ecommerceOrderTotal",
            "The totals of every line of an order, one per line and currency its product is priced in",
            vec!["id"],
            None,
            200,
            json!({"type": "array", "items": money.clone()}),
            &[400, 401, 403, 404],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders/{id}/quantity".into(),
            order_quantity,
            "ecommerceOrderQuantity",
            "How many products an order holds (0 without lines)",
            vec!["id"],
            None,
            200,
            json!({"type": "integer"}),
            &[400, 401, 403, 404],
        ),
        (
            Access::Admin,
            "PATCH",
            "/api/ecommerce/orders/{id}/orders-to-products/{orderToProductId}".into(),
            set_line,
            "ecommerceOrderSetLine",
            "Sets the quantity of a line of an order still in the cart (only quantity; the line must be the order's)",
            vec!["id", "orderToProductId"],
            Some(
                json!({"type": "object", "properties": {"quantity": {"type": "integer", "minimum": 1, "maximum": crate::orders::MAX_QUANTITY}}, "required": ["quantity"], "additionalProperties": false}),
            ),
            200,
            r("EcommerceOrdersToProducts"),
            &[400, 401, 403, 404, 409, 422],
        ),
        (
            Access::Admin,
            "GET",
            "/api/ecommerce/orders-to-products/{id}/total".into(),
            line_total,
            "ecommerceLineTotal",
            "A line's total in every currency its product is priced in",
            vec!["id"],
            None,
            200,
            json!({"type": "array", "items": {"type": "object"}}),
            &[400, 401, 403, 404],
        ),
    ];
    let mut book = RouteBook::new();
    for (access, method, path, f, id, summary, params, body, status, result, errs) in table {
        let mut ps = path_params(&params);
        if path.ends_with("paid-orders-to-products-quantity") {
            ps.push(json!({"name": "productId", "in": "query", "required": false, "schema": {"type": "string", "format": "uuid"}}));
        }
        if id == "subjectOrders" {
            ps.push(json!({"name": "type", "in": "query", "required": false, "description": "cart (the open order, default), history (placed orders) or all", "schema": {"type": "string", "enum": ["cart", "history", "all"], "default": "cart"}}));
        }
        if id == "ecommerceOrderSummaries" {
            ps.push(json!({"name": "ids", "in": "query", "required": true, "description": "Order ids separated by commas (at most 50)", "schema": {"type": "string", "maxLength": 2000}}));
        }
        if id == "ecommerceOrderStats" {
            ps.push(json!({"name": "days", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 366, "default": 30}}));
        }
        book = book.add(access, method, &path, route(c.clone(), method, f), {
            let doc = custom("ecommerce", id, summary, ps, body, status, result, errs);
            // Moving an order on and correcting its status: tools for agents (MCP).
            if matches!(id, "ecommerceOrderCheck" | "ecommerceOrderOverride") {
                stoa_api::routes::for_agents(doc)
            } else {
                doc
            }
        });
    }
    book
}
