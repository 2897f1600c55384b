//! Public ecommerce reads that are not generic: the paid-orders counter.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::json;
use stoa_api::openapi::custom;
use stoa_api::{Access, ApiResult, AppState, RouteBook};

use crate::prices;

pub fn routes() -> RouteBook<AppState> {
    RouteBook::new().add(
        Access::Public,
        "GET",
        "/api/ecommerce/orders/paid-orders-to-products-quantity",
        get(
            |State(s): State<AppState>, Query(q): Query<HashMap<String, String>>| async move {
                let product = match q.get("productId").filter(|p| !p.is_empty()) {
                    Some(p) => Some(stoa_api::crud::parse_id(p)?),
                    None => None,
                };
                let n = prices::paid_quantity(&s.store, product).await?;
                ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, n))
            },
        ),
        custom(
            "ecommerce",
            "ecommerceOrdersPaidQuantity",
            "How many products paid orders hold (optionally of one product): the campaign counter",
            vec![json!({"name": "productId", "in": "query", "required": false, "schema": {"type": "string", "format": "uuid"}})],
            None,
            200,
            json!({"type": "integer"}),
            &[400],
        ),
    )
}
