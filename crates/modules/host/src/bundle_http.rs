//! `GET /api/host/pages/bundle?url=` and `/api/revalidation/revalidate` (GET: a no-op that
//! answers 200, as the error screen calls it; POST, admins only: clears the page caches).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::Query;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::json;
use stoa_api::openapi::{custom, query_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::Error;

use crate::cache::Bundles;

pub fn routes(bundles: Arc<Bundles>) -> RouteBook<AppState> {
    let b = bundles.clone();
    RouteBook::new()
        .add(
            Access::Public,
            "GET",
            "/api/host/pages/bundle",
            get(move |Query(q): Query<HashMap<String, String>>| {
                let b = b.clone();
                async move {
                    let url = q
                        .get("url")
                        .ok_or_else(|| Error::bad_field("url", "is required"))?;
                    // No page is an answer, not an error: the site then shows a built-in screen
                    // or its not-found page (find-by-url is the call that answers 404).
                    let bundle = b.get(url).await?;
                    ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, bundle.as_deref()))
                }
            }),
            custom(
                "host",
                "hostPageBundle",
                "The page a URL shows with every record its widgets render (layouts, module widgets and their trees, lists, the overview record, prices, metadata); null when no page has the URL",
                query_params(&["url"]),
                None,
                200,
                json!({"type": ["object", "null"], "properties": {
                    "page": {"$ref": "#/components/schemas/HostPage"},
                    "url": {"type": "string"},
                    "meta": {"type": "object", "additionalProperties": {"type": "string"}},
                    "layouts": {"type": "array", "items": {"type": "object"}},
                    "widgets": {"type": "array", "items": {"type": "object"}}
                }, "required": ["page", "url", "meta", "layouts", "widgets"]}),
                &[400],
            ),
        )
        .add(
            Access::Public,
            "GET",
            "/api/revalidation/revalidate",
            get(|| async {
                stoa_api::crud::data(StatusCode::OK, json!({"revalidated": false}))
            }),
            custom(
                "host",
                "revalidateCheck",
                "Answers 200 and changes nothing (pages revalidate themselves when data changes; clearing is the admin POST)",
                vec![],
                None,
                200,
                json!({"type": ["object", "null"], "properties": {"revalidated": {"type": "boolean"}}}),
                &[],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/revalidation/revalidate",
            post(move || {
                let b = bundles.clone();
                async move {
                    let cleared = b.clear();
                    tracing::info!(cleared, "page caches cleared");
                    stoa_api::crud::data(
                        StatusCode::OK,
                        json!({"revalidated": true, "cleared": cleared}),
                    )
                }
            }),
            custom(
                "host",
                "revalidate",
                "Clears the rendered-page caches (admins)",
                vec![],
                None,
                200,
                json!({"type": ["object", "null"], "properties": {"revalidated": {"type": "boolean"}, "cleared": {"type": "integer"}}}),
                &[401, 403],
            ),
        )
}
