//! The route book: every route is registered here with its OpenAPI operation, so the router and
//! the OpenAPI document cannot drift apart.
//!
//! Each route also states who may call it by default ([`Access`]); rbac turns those into the
//! default permission rows, which stay data an admin can change.
//!
//! ```
//! use axum::routing::get;
//! use stoa_api::routes::{Access, RouteBook};
//! let book: RouteBook<()> = RouteBook::new().add(Access::Public, "GET", "/health", get(|| async { "ok" }), serde_json::json!({"summary": "Liveness"}));
//! assert_eq!(book.operations()[0].path, "/health");
//! assert_eq!(book.operations()[0].access, Access::Public);
//! ```

use axum::Router;
use axum::routing::MethodRouter;
use serde_json::Value;

/// Who may call a route before an admin changes the permissions (written as [`Access::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// Anyone, signed in or not.
    Public,
    /// Any signed-in subject (the `user` role).
    SignedIn,
    /// The subject named in the path (`/api/rbac/subjects/{id}/…`), or the owner of the record the
    /// route acts on; the `user` role holds it and the handler or middleware checks ownership.
    Owner,
    /// Administrators only (no default permission row: the root permission covers it).
    Admin,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Public => "public",
            Access::SignedIn => "signed-in",
            Access::Owner => "owner",
            Access::Admin => "admin",
        }
    }
}

/// An operation object made when the OpenAPI document is (off the start path), not when the
/// route is registered: the generic routes' 900-odd objects were most of the start's route step.
type MakeDoc = std::sync::Arc<dyn Fn() -> Value + Send + Sync>;

#[derive(Clone)]
pub struct Operation {
    /// Upper-case HTTP method.
    pub method: &'static str,
    /// OpenAPI-style path (`/api/blog/articles/{id}`), the same syntax axum routes use.
    pub path: String,
    /// The OpenAPI operation object given at registration (`Null` for one made later,
    /// [`RouteBook::add_later`]); once the document is built, only its `x-hidden` mark
    /// ([`Operation::outline`]). The whole object is [`Operation::document`].
    pub doc: Value,
    /// Who may call it by default.
    pub access: Access,
    make: Option<MakeDoc>,
}

impl std::fmt::Debug for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operation")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("access", &self.access)
            .field("doc", &self.doc)
            .field("later", &self.make.is_some())
            .finish()
    }
}

impl Operation {
    /// A copy without its OpenAPI object, keeping only `x-hidden`: what is kept once the document
    /// is made from the originals (1 085 such objects were a third of the idle heap).
    pub fn outline(&self) -> Self {
        Self {
            method: self.method,
            path: self.path.clone(),
            doc: self.outline_doc(),
            access: self.access,
            make: None,
        }
    }

    /// The whole OpenAPI operation object, with its `x-access` mark (made now if it was
    /// registered with [`RouteBook::add_later`]).
    pub fn document(&self) -> Value {
        match &self.make {
            Some(make) => {
                let doc = make();
                // Read before the document is made: a later object cannot hide its route.
                debug_assert!(
                    doc.get("x-hidden").is_none(),
                    "{} {}",
                    self.method,
                    self.path
                );
                marked(doc, self.access)
            }
            None => self.doc.clone(),
        }
    }

    fn outline_doc(&self) -> Value {
        if self.doc.get("x-hidden").and_then(Value::as_bool) == Some(true) {
            serde_json::json!({"x-hidden": true})
        } else {
            Value::Null
        }
    }
}

/// The mark on an operation worth an agent's time beyond the generic find/get/create/update/
/// delete (publishing, order transitions, sending a notification): the MCP server offers each as
/// a tool, described by its OpenAPI summary, path parameters and body schema.
pub const AGENT: &str = "x-agent";

/// `doc` marked worth an agent's time ([`AGENT`]).
pub fn for_agents(mut doc: Value) -> Value {
    doc[AGENT] = Value::Bool(true);
    doc
}

fn marked(mut doc: Value, access: Access) -> Value {
    if let Some(o) = doc.as_object_mut() {
        o.insert("x-access".into(), Value::String(access.as_str().into()));
    }
    doc
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

    /// Registers `handler` for `method path` with its default access, and records its OpenAPI
    /// operation.
    pub fn add(
        mut self,
        access: Access,
        method: &'static str,
        path: &str,
        handler: MethodRouter<S>,
        doc: Value,
    ) -> Self {
        self.router = self.router.route(path, handler);
        self.ops.push(Operation {
            method,
            path: path.to_owned(),
            doc: marked(doc, access),
            access,
            make: None,
        });
        self
    }

    /// [`RouteBook::add`] with an operation object made only when the OpenAPI document is (never
    /// hidden: `x-hidden` is read before the document is made).
    pub fn add_later(
        mut self,
        access: Access,
        method: &'static str,
        path: &str,
        handler: MethodRouter<S>,
        make: impl Fn() -> Value + Send + Sync + 'static,
    ) -> Self {
        self.router = self.router.route(path, handler);
        self.ops.push(Operation {
            method,
            path: path.to_owned(),
            doc: Value::Null,
            access,
            make: Some(std::sync::Arc::new(make)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_later_operation_is_made_only_when_the_document_asks_and_carries_its_access() {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let book: RouteBook<()> = RouteBook::new().add_later(
            Access::Admin,
            "POST",
            "/things",
            get(|| async { "ok" }),
            || {
                MADE.fetch_add(1, Ordering::SeqCst);
                json!({"summary": "Make a thing"})
            },
        );
        let op = &book.operations()[0];
        assert_eq!(MADE.load(Ordering::SeqCst), 0, "not made at registration");
        assert_eq!(op.doc, Value::Null);
        assert_eq!(
            op.document(),
            json!({"summary": "Make a thing", "x-access": "admin"})
        );
        assert_eq!(MADE.load(Ordering::SeqCst), 1);
        let outline = op.outline();
        assert_eq!(
            outline.document(),
            Value::Null,
            "the outline lets the maker go"
        );
        assert_eq!(MADE.load(Ordering::SeqCst), 1);
    }
}
