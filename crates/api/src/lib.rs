//! Generic HTTP: the `{data}` envelope, error mapping, body parsing, the generic CRUD routes for
//! every declared entity, `/api/meta`, OpenAPI and the API reference page.
#![forbid(unsafe_code)]

pub mod auth;
pub mod body;
pub mod call;
pub mod cluster;
pub mod config;
pub mod crud;
pub mod docs;
pub mod error;
pub mod files;
pub mod jobs;
pub mod live;
pub mod meta;
pub mod metrics;
pub mod module;
pub mod openapi;
pub mod platform;
pub mod rate;
pub mod routes;
pub mod strict;
pub mod tls;

use std::sync::{Arc, OnceLock};

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::json;

pub use crud::AppState;
pub use error::{ApiError, ApiResult};
pub use routes::{Access, RouteBook};

/// The generic API for every entity in the registry, plus `/api/meta` and the docs page.
pub fn api_routes(state: &AppState) -> RouteBook<AppState> {
    let reg = state.store.registry.clone();
    let mut book = RouteBook::new();
    for e in reg.entities() {
        book = crud::entity_routes(book, e.clone(), &reg);
    }
    // Serialised once: the registry does not change while the server runs.
    let mut meta = serde_json::to_vec(&json!({"data": meta::meta(&reg)})).unwrap_or_default();
    meta.shrink_to_fit();
    let meta = bytes::Bytes::from(meta);
    let meta_doc = openapi::operation(
        None,
        "meta".into(),
        "Every entity: fields, kinds, defaults, variants, references and admin hints".into(),
        vec![],
        None,
        [(
            "200".to_owned(),
            openapi::ok("The registry", json!({"$ref": "#/components/schemas/Meta"})),
        )]
        .into_iter()
        .collect(),
    );
    book = book.add(
        Access::Public,
        "GET",
        "/api/meta",
        get(move || {
            let m = meta.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], m).into_response() }
        }),
        meta_doc,
    );
    // The reference pages are routes, not API: `x-hidden` keeps them out of the document.
    let html = |id: &str, summary: &str| json!({"operationId": id, "summary": summary, "x-hidden": true, "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}}});
    book.add(Access::Public, "GET", "/api/docs", get(docs::index_redirect), json!({"operationId": "docsRedirect", "summary": "Redirects to /api/docs/", "x-hidden": true, "responses": {"308": {"description": "Redirect"}}}))
        .add(Access::Public, "GET", "/api/docs/", get(docs::index), html("docs", "API reference (Swagger UI)"))
        .add(Access::Public, "GET", "/api/docs/{file}", get(docs::asset), {
            let mut op = html("docsAsset", "API reference assets");
            op["parameters"] = json!([{"name": "file", "in": "path", "required": true, "schema": {"type": "string"}}]);
            op
        })
}

/// Adds `GET /api/openapi.json`, describing every route in `book` for a server at `servers`;
/// the document is returned too (the strict layer checks requests against it).
pub fn with_openapi<S: Clone + Send + Sync + 'static>(
    book: RouteBook<S>,
    registry: &stoa_kernel::registry::Registry,
    servers: &[String],
) -> (RouteBook<S>, Arc<serde_json::Value>) {
    let doc: Arc<OnceLock<bytes::Bytes>> = Arc::new(OnceLock::new());
    let d = doc.clone();
    let op = json!({"operationId": "openapi", "summary": "This document (OpenAPI 3.1)", "x-hidden": true, "responses": {"200": {"description": "OpenAPI document", "content": {"application/json": {}}}}});
    let book = book.add(
        Access::Public,
        "GET",
        "/api/openapi.json",
        get(move || {
            let d = d.clone();
            async move {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    d.get().cloned().unwrap_or_default(),
                )
                    .into_response()
            }
        }),
        op,
    );
    let document = openapi::document(
        registry,
        book.operations(),
        env!("CARGO_PKG_VERSION"),
        servers,
    );
    // Bytes: each request shares them (a `String` was copied, 2.2 MB, per request).
    let mut text = serde_json::to_vec(&document).unwrap_or_default();
    text.shrink_to_fit();
    let _ = doc.set(bytes::Bytes::from(text));
    (book, Arc::new(document))
}
