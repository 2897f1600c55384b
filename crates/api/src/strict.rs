//! Query strings are checked against what each route declares: a parameter the route's OpenAPI
//! operation does not name is a 400 naming it, so a typo or a client that flattened a nested
//! object (`and=…` for `filters[and]…`) is told so instead of getting every row.
//!
//! A declared parameter `p` takes the key `p`; one marked `x-bracket-notation` (or a
//! `deepObject` one) also takes `p[…]`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use serde_json::Value;
use stoa_kernel::Error;

use crate::routes::Operation;

#[derive(Default, Debug)]
struct Takes {
    exact: Vec<String>,
    bracketed: Vec<String>,
}

impl Takes {
    fn of(doc: &Value) -> Self {
        let mut t = Takes::default();
        for p in doc
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("in").and_then(Value::as_str) == Some("query"))
        {
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            t.exact.push(name.to_owned());
            if p.get("x-bracket-notation").and_then(Value::as_bool) == Some(true)
                || p.get("style").and_then(Value::as_str) == Some("deepObject")
            {
                t.bracketed.push(name.to_owned());
            }
        }
        t
    }

    fn takes(&self, key: &str) -> bool {
        self.exact.iter().any(|n| n == key)
            || key
                .split_once('[')
                .is_some_and(|(head, _)| self.bracketed.iter().any(|n| n == head))
    }

    fn names(&self) -> String {
        if self.exact.is_empty() {
            "none".to_owned()
        } else {
            self.exact.join(", ")
        }
    }
}

type Rules = HashMap<(&'static str, String), Takes>;

/// Wraps `router` so each of `ops` refuses query parameters it does not declare.
pub fn queries<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    ops: &[Operation],
) -> Router<S> {
    let rules: Arc<Rules> = Arc::new(
        ops.iter()
            .map(|o| ((o.method, o.path.clone()), Takes::of(&o.doc)))
            .collect(),
    );
    router.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let rules = rules.clone();
            async move {
                match refused(&rules, &req) {
                    Some(e) => crate::error::error_response(&e),
                    None => next.run(req).await,
                }
            }
        },
    ))
}

fn refused(rules: &Rules, req: &Request) -> Option<Error> {
    let query = req.uri().query().filter(|q| !q.is_empty())?;
    let path = req.extensions().get::<MatchedPath>()?;
    let method = match req.method().as_str() {
        "HEAD" => "GET",
        m => m,
    };
    let takes = rules.get(&(method_name(method)?, path.as_str().to_owned()))?;
    let mut seen = 0usize;
    for (key, _) in form_urlencoded::parse(query.as_bytes()) {
        seen += 1;
        if seen > 1000 {
            return Some(Error::bad_request("more than 1000 query parameters"));
        }
        if !takes.takes(&key) {
            let shown: String = key.chars().take(64).collect();
            return Some(Error::bad_field(
                &shown,
                format!(
                    "is not a query parameter of {method} {}; it takes: {}",
                    path.as_str(),
                    takes.names()
                ),
            ));
        }
    }
    None
}

fn method_name(m: &str) -> Option<&'static str> {
    Some(match m {
        "GET" => "GET",
        "POST" => "POST",
        "PATCH" => "PATCH",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        _ => return None,
    })
}
