//! mcp: the Model Context Protocol server at `/mcp` (streamable HTTP, stateless), for AI agents.
//!
//! A caller signs in as over HTTP: `Authorization: Bearer` with an access token or an API key
//! (rbac's `api-key`, scoped to roles). The tools are the API's own operations (see [`tools`]);
//! a tool call is a request to the API through the same layers an outside request passes
//! ([`stoa_api::loopback`]), with the caller's credentials, so an MCP call can never do more than
//! the same token over HTTP, and its writes are in the audit log as the API's are. Every write is
//! first a dry run answering the changes and a confirmation token; the write happens only with
//! that token (single use, expiring, bound to the caller and the arguments). See docs/mcp.md.
#![forbid(unsafe_code)]

pub mod confirm;
pub mod server;
pub mod tools;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use stoa_api::auth::Caller;
use stoa_api::loopback::Loopback;
use stoa_api::{Access, RouteBook};
use tower::ServiceExt;

const M: &str = "mcp";

pub fn declarations() -> stoa_kernel::model::Module {
    stoa_kernel::model::Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![],
    }
}

type Service = StreamableHttpService<server::Mcp, NeverSessionManager>;

async fn handle(svc: Service, req: Request) -> Response {
    if !server::credentialed(&Caller::of(&req)) {
        let mut r = stoa_api::error::error_response(&stoa_kernel::Error::Unauthorized(
            "send `Authorization: Bearer <API key or access token>`: an administrator makes API keys under System → API keys".into(),
        ));
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"stoa\""),
        );
        return r;
    }
    match svc.oneshot(req).await {
        Ok(r) => r.map(axum::body::Body::new).into_response(),
        Err(never) => match never {},
    }
}

pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        .setup(|ctx| {
            ctx.provide(Arc::new(Loopback::default()));
            Ok(())
        })
        .routes(|ctx| {
            if ctx.config.mcp.mcp.eq_ignore_ascii_case("off") {
                return Ok(RouteBook::new());
            }
            let state = Arc::new(server::State::new(
                ctx.need::<Loopback>()?,
                ctx.need::<dyn stoa_api::auth::Authorize>()?,
                ctx.store.registry.clone(),
                confirm::Confirmations::new(
                    Duration::from_secs(ctx.config.mcp.mcp_confirm_ttl.max(1)),
                    stoa_store::cluster::Shared::of(&ctx.store.db),
                ),
                stoa_store::cluster::Shared::of(&ctx.store.db),
            ));
            // Stateless: every request stands alone (any instance answers it) and a simple call
            // is answered as JSON. Hosts are not checked here: a call needs a bearer credential,
            // which no page a browser was lured to can send.
            let mut config = StreamableHttpServerConfig::default().disable_allowed_hosts();
            config.legacy_session_mode = false;
            config.json_response = true;
            config.sse_keep_alive = None;
            let svc: Service = StreamableHttpService::new(
                move || Ok(server::Mcp(state.clone())),
                Arc::new(NeverSessionManager::default()),
                config,
            );
            let doc = {
                let mut responses = stoa_api::openapi::errors(&[401, 403]);
                responses.insert(
                    "200".into(),
                    json!({"description": "A JSON-RPC answer (Model Context Protocol)"}),
                );
                // Not REST: JSON-RPC messages, described by the MCP specification (docs/mcp.md).
                json!({"operationId": "mcp", "summary": "Model Context Protocol (streamable HTTP) for AI agents", "tags": ["platform"], "x-hidden": true, "responses": responses})
            };
            Ok(RouteBook::new().add(
                Access::Public,
                "POST",
                "/mcp",
                axum::routing::post(move |req: Request| handle(svc.clone(), req)),
                doc,
            ))
        })
}
