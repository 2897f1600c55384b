//! `/api/host/pages/find-by-url`, `/urls` and `/url-segment-value`.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::{Value, json};
use stoa_api::openapi::{custom, query_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::Error;

use crate::pages;

fn param<'a>(q: &'a HashMap<String, String>, name: &str) -> Result<&'a str, Error> {
    q.get(name)
        .map(String::as_str)
        .ok_or_else(|| Error::bad_field(name, "is required"))
}

fn op(id: &str, summary: &str, params: &[&str], result: Value, errs: &[u16]) -> Value {
    custom(
        "host",
        id,
        summary,
        query_params(params),
        None,
        200,
        result,
        errs,
    )
}

pub fn routes() -> RouteBook<AppState> {
    RouteBook::new()
        .add(
            Access::Public,
            "GET",
            "/api/host/pages/find-by-url",
            get(
                |State(s): State<AppState>, Query(q): Query<HashMap<String, String>>| async move {
                    let page = pages::find_by_url(&s.store, param(&q, "url")?).await?;
                    ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, page.to_json()))
                },
            ),
            op(
                "hostPageFindByUrl",
                "The page a URL shows (templates with [module.route.field] and pagination segments are matched, one lookup per segment)",
                &["url"],
                json!({"$ref": "#/components/schemas/HostPage"}),
                &[400, 404],
            ),
        )
        .add(
            Access::Public,
            "GET",
            "/api/host/pages/urls",
            get(|State(s): State<AppState>| async move {
                let urls: Vec<Value> = pages::all_pages(&s.store)
                    .await?
                    .iter()
                    .map(|p| json!({"url": p.text("url").unwrap_or_default()}))
                    .collect();
                ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, json!({"urls": urls})))
            }),
            op(
                "hostPageUrls",
                "Every page's URL template",
                &[],
                json!({"type": "object", "properties": {"urls": {"type": "array", "items": {"type": "object", "properties": {"url": {"type": "string"}}}}}}),
                &[],
            ),
        )
        .add(
            Access::Public,
            "GET",
            "/api/host/pages/url-segment-value",
            get(
                |State(s): State<AppState>, Query(q): Query<HashMap<String, String>>| async move {
                    let v = pages::segment_value(
                        &s.store,
                        param(&q, "url")?,
                        param(&q, "segment")?,
                    )
                    .await?;
                    ApiResult::Ok(stoa_api::crud::data(
                        StatusCode::OK,
                        v.map_or(Value::Null, Value::String),
                    ))
                },
            ),
            op(
                "hostPageUrlSegmentValue",
                "The part of a URL at the template segment naming `segment` (blog.articles.slug); null when absent",
                &["url", "segment"],
                json!({"type": ["string", "null"]}),
                &[400],
            ),
        )
}
