//! Generic HTTP: the `{data}` envelope, error mapping, body parsing, the generic CRUD routes for
//! every declared entity, `/api/meta`, OpenAPI and the API reference page.
#![forbid(unsafe_code)]

pub mod answers;
pub mod auth;
pub mod body;
pub mod call;
pub mod cluster;
pub mod config;
pub mod crud;
pub mod docs;
pub mod endpoint;
pub mod error;
pub mod files;
pub mod gate;
pub mod jobs;
pub mod later;
pub mod live;
pub mod loopback;
pub mod meta;
pub mod metrics;
pub mod module;
pub mod openapi;
pub mod outbound;
pub mod pack;
pub mod platform;
pub mod rate;
pub mod routes;
pub mod strict;
pub mod tls;

use std::sync::Arc;

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
    // Made once, off the start path (it took 82 ms of a debug start): the registry does not
    // change while the server runs. Serialised and packed (gzipped, with an ETag) on a blocking
    // thread; a request before then waits for it, as for the OpenAPI document.
    let meta: Arc<later::Later<Arc<pack::Lazy>>> = Arc::default();
    let make = {
        let (meta, reg) = (meta.clone(), reg.clone());
        move || {
            meta.make("the entity description (/api/meta)", || {
                let mut bytes =
                    serde_json::to_vec(&json!({"data": meta::meta(&reg)})).unwrap_or_default();
                bytes.shrink_to_fit();
                Arc::new(pack::Lazy::new(bytes::Bytes::from(bytes)))
            })
            .cloned()
        }
    };
    match tokio::runtime::Handle::try_current() {
        Ok(rt) => drop(rt.spawn_blocking(move || {
            if let Some(m) = make() {
                m.settle();
            }
        })),
        // No runtime (a test): made now, packed by its first request.
        Err(_) => drop(make()),
    }
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
        get(move |headers: axum::http::HeaderMap| {
            let m = meta.clone();
            async move {
                match m.get().await {
                    Some(doc) => doc.respond(&headers, "application/json").await,
                    None => error::error_response(&later::not_ready("the entity description")),
                }
            }
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

/// Adds `GET /api/openapi.json`, whose document ([`describe`]) is made off the start path: a
/// request for it before then waits for it.
pub fn with_openapi<S: Clone + Send + Sync + 'static>(
    book: RouteBook<S>,
) -> (RouteBook<S>, Arc<later::Later<Arc<pack::Lazy>>>) {
    let doc: Arc<later::Later<Arc<pack::Lazy>>> = Arc::default();
    let d = doc.clone();
    let op = json!({"operationId": "openapi", "summary": "This document (OpenAPI 3.1)", "x-hidden": true, "responses": {"200": {"description": "OpenAPI document", "content": {"application/json": {}}}}});
    let book = book.add(
        Access::Public,
        "GET",
        "/api/openapi.json",
        get(move |headers: axum::http::HeaderMap| {
            let d = d.clone();
            async move {
                match d.get().await {
                    Some(doc) => doc.respond(&headers, "application/json").await,
                    None => error::error_response(&later::not_ready("the API description")),
                }
            }
        }),
        op,
    );
    (book, doc)
}

/// The OpenAPI document of `operations` (for a server at `servers`), kept in `slot` as bytes
/// to be packed ([`pack::Lazy::settle`]); the document itself is returned for the request rules.
pub fn describe(
    slot: &later::Later<Arc<pack::Lazy>>,
    registry: &stoa_kernel::registry::Registry,
    operations: &[routes::Operation],
    servers: &[String],
) -> serde_json::Value {
    let document = openapi::document(registry, operations, env!("CARGO_PKG_VERSION"), servers);
    // Bytes, packed once (`pack::Lazy`): a `String` was copied per request (2.2 MB), and the
    // compression layer took ~40 ms per request for gzip alone.
    let mut text = serde_json::to_vec(&document).unwrap_or_default();
    text.shrink_to_fit();
    slot.set(Arc::new(pack::Lazy::new(bytes::Bytes::from(text))));
    document
}
