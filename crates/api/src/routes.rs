//! The route book: every route is registered here with its OpenAPI operation, so the router and
//! the OpenAPI document cannot drift apart.
//!
//! ```
//! use axum::routing::get;
//! use stoa_api::routes::RouteBook;
//! let book: RouteBook<()> = RouteBook::new().add("GET", "/health", get(|| async { "ok" }), serde_json::json!({"summary": "Liveness"}));
//! assert_eq!(book.operations()[0].path, "/health");
//! ```

use axum::Router;
use axum::routing::MethodRouter;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct Operation {
    /// Upper-case HTTP method.
    pub method: &'static str,
    /// OpenAPI-style path (`/api/blog/articles/{id}`), the same syntax axum routes use.
    pub path: String,
    /// The OpenAPI operation object.
    pub doc: Value,
}

pub struct RouteBook<S = ()> {
    router: Router<S>,
    ops: Vec<Operation>,
}

impl<S: Clone + Send + Sync + 'static> Default for RouteBook<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Clone + Send + Sync + 'static> RouteBook<S> {
    pub fn new() -> Self {
        Self {
            router: Router::new(),
            ops: Vec::new(),
        }
    }

    /// Registers `handler` for `method path` and records its OpenAPI operation.
    pub fn add(
        mut self,
        method: &'static str,
        path: &str,
        handler: MethodRouter<S>,
        doc: Value,
    ) -> Self {
        self.router = self.router.route(path, handler);
        self.ops.push(Operation {
            method,
            path: path.to_owned(),
            doc,
        });
        self
    }

    /// Adds every route of `other`.
    pub fn merge(mut self, other: RouteBook<S>) -> Self {
        self.router = self.router.merge(other.router);
        self.ops.extend(other.ops);
        self
    }

    pub fn operations(&self) -> &[Operation] {
        &self.ops
    }

    pub fn into_parts(self) -> (Router<S>, Vec<Operation>) {
        (self.router, self.ops)
    }
}
