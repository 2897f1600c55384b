//! `POST /api/analytic/collect` (anyone: a page view or a named event; no cookie, 204) and
//! `GET /api/analytic/dashboard?days=` (admins).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, Request};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use serde_json::{Value, json};
use stoa_api::rate::Budget;
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::Error;

use crate::collect::{Collector, EVENTS};

/// The largest hit, in bytes (read no further).
const MAX_HIT: usize = 4096;

/// `shared`: the instances' counter table (PostgreSQL), so an address spread over them gains
/// nothing.
// long: the module's route table, one endpoint after another — read as one.
pub fn routes(
    c: Arc<Collector>,
    own_host: String,
    shared: Option<stoa_store::cluster::Shared>,
) -> RouteBook<AppState> {
    let rate = Arc::new(Budget::new(
        240,
        Duration::from_secs(60),
        "analytics hits per address",
        shared.map(|s| (s, "analytic.ip")),
    ));
    let c2 = c.clone();
    RouteBook::new()
        .add(
            Access::Public,
            "POST",
            "/api/analytic/collect",
            post(move |req: Request| {
                let (c, rate, own_host) = (c.clone(), rate.clone(), own_host.clone());
                async move {
                    let ip = stoa_api::rate::client_ip(&req);
                    rate.check(&ip).await?;
                    let ua = req
                        .headers()
                        .get(axum::http::header::USER_AGENT)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    // `navigator.sendBeacon` posts text/plain: the body is read as JSON whatever
                    // its type, and no further than MAX_HIT.
                    let bytes = stoa_api::body::read(req.into_body(), MAX_HIT).await?;
                    let body: Value = serde_json::from_slice(&bytes)
                        .map_err(|e| Error::bad_request(format!("the hit is not JSON: {e}")))?;
                    let map = body
                        .as_object()
                        .ok_or_else(|| Error::bad_request("the hit must be a JSON object"))?;
                    c.hit(map, &ip, &ua, &own_host)?;
                    ApiResult::Ok(StatusCode::NO_CONTENT.into_response())
                }
            }),
            json!({
                "operationId": "analyticCollect",
                "tags": ["analytic"],
                "summary": "Counts a page view ({type: view, path, referrer?, language?}) or a named event ({type: event, name, path}). Sets no cookie and stores no address; crawlers are not counted.",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                    "type": {"type": "string", "enum": ["view", "event"]},
                    "name": {"type": "string", "enum": EVENTS},
                    "path": {"type": "string"},
                    "referrer": {"type": "string"},
                    "language": {"type": "string"}
                }, "required": ["path"]}}}},
                "responses": {
                    "204": {"description": "Counted"},
                    "400": {"description": "Not a hit"},
                    "413": {"description": "Too large"},
                    "422": {"description": "A field is wrong"},
                    "429": {"description": "Too many hits from this address"}
                }
            }),
        )
        .add(
            Access::Admin,
            "GET",
            "/api/analytic/dashboard",
            get(
                move |Query(q): Query<std::collections::HashMap<String, String>>| {
                    let c = c2.clone();
                    async move {
                        let days = match q.get("days").map(String::as_str) {
                            None | Some("") => 30,
                            Some(d) => d
                                .parse::<i64>()
                                .ok()
                                .filter(|d| (1..=366).contains(d))
                                .ok_or_else(|| Error::bad_field("days", "must be 1 to 366"))?,
                        };
                        ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, c.dashboard(days).await?))
                    }
                },
            ),
            json!({
                "operationId": "analyticDashboard",
                "tags": ["analytic"],
                "summary": "Views and visitors per day, top pages and referrers, devices, languages, events and the donation funnel (views → donation-started → checkout-completed) for the last ?days (30)",
                "parameters": [{"name": "days", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 366}}],
                "responses": {
                    "200": {"description": "The dashboard", "content": {"application/json": {"schema": {"type": "object", "properties": {"data": dashboard_schema()}, "required": ["data"]}}}},
                    "400": {"description": "Bad days"},
                    "401": {"description": "Not signed in"},
                    "403": {"description": "Not an admin"}
                }
            }),
        )
}

/// What `GET /api/analytic/dashboard` answers.
fn dashboard_schema() -> serde_json::Value {
    let int = json!({"type": "integer", "minimum": 0});
    let top = json!({"type": "array", "items": {"type": "object", "properties": {"key": {"type": "string"}, "count": int}, "required": ["key", "count"]}});
    json!({
        "title": "AnalyticDashboard",
        "type": "object",
        "properties": {
            "days": int,
            "since": {"type": "string", "format": "date", "description": "The first day counted"},
            "perDay": {"type": "array", "items": {"type": "object", "properties": {"day": {"type": "string", "format": "date"}, "views": int, "visitors": int}, "required": ["day", "views", "visitors"]}},
            "views": int,
            "visitors": int,
            "topPages": top,
            "topReferrers": top,
            "devices": top,
            "languages": top,
            "events": top,
            "funnel": {"type": "object", "description": "views → donation-started → checkout-completed", "properties": {"views": int, "started": int, "paid": int}, "required": ["views", "started", "paid"]}
        },
        "required": ["days", "since", "perDay", "views", "visitors", "topPages", "topReferrers", "devices", "languages", "events", "funnel"]
    })
}
