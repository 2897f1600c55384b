//! Requests made from inside the server to its own API, through the same layers an outside
//! request passes (authorization, the strict checks, the audit log): what the MCP server uses, so
//! that a tool call can never do more than the same credentials over HTTP.
//!
//! The router is handed over once the API is assembled (`set`); a module that wants it asks for
//! the [`Loopback`] in its setup and keeps it.

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{Request, Response};
use tower::ServiceExt;

#[derive(Default)]
pub struct Loopback {
    router: OnceLock<axum::Router>,
}

impl Loopback {
    /// Hands over the assembled API (the server does this once, after its layers are on).
    pub fn set(&self, router: axum::Router) {
        let _ = self.router.set(router);
    }

    /// Runs `req` through the API: its answer, or a 503 while the server is still starting.
    pub async fn call(&self, req: Request<Body>) -> Response<Body> {
        let Some(router) = self.router.get() else {
            return crate::error::error_response(&stoa_kernel::Error::Unavailable(
                "the server is starting; try again in a moment".into(),
            ));
        };
        match router.clone().oneshot(req).await {
            Ok(r) => r,
            Err(never) => match never {},
        }
    }
}
