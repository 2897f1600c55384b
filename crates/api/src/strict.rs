//! Requests are checked against what the OpenAPI document says each route takes, so the document
//! is the contract in both directions:
//! - **query strings**: a parameter the operation does not declare is a 400 naming it, so a typo
//!   or a client that flattened a nested object (`and=…` for `filters[and]…`) is told so instead
//!   of getting every row. A declared `p` takes the key `p`; one marked `x-bracket-notation` (or
//!   a `deepObject` one) also takes `p[…]`.
//! - **JSON bodies** of hand-written routes: checked against the declared body schema (types,
//!   required keys, enums, lengths, formats) before the handler runs; a violation is a 422
//!   naming the field. The generic entity routes (`x-entity`) are left to the declarations,
//!   which check the same things with their own coercions and messages; rate-limited routes
//!   (those declaring 429) to their handlers, which refuse a flood before reading its bodies.
//!
//! Validators are compiled on the first request that needs one.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use serde_json::{Map, Value, json};
use stoa_kernel::error::FieldErrors;
use stoa_kernel::{Error, Result};

use crate::body::{Limits, RouteLimit, media_type};

/// The JSON body limit of a hand-written route that declares no `x-body-limit`.
pub const SMALL_JSON: usize = 64 << 10;

#[derive(Default)]
struct Rule {
    /// The route parses its own query and refuses unknown keys itself (the generic find routes:
    /// `FindQuery` names the parameter just as this layer would), so the string is read once.
    query_checked_by_route: bool,
    exact: Vec<String>,
    bracketed: Vec<String>,
    /// The JSON body schema (with the components it uses), compiled on first use.
    body: Option<(Value, OnceLock<Option<jsonschema::Validator>>)>,
    /// The largest JSON body the route takes, when smaller than the server's limit.
    limit: Option<usize>,
}

impl Rule {
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

    fn validator(&self) -> Option<&jsonschema::Validator> {
        let (schema, compiled) = self.body.as_ref()?;
        compiled
            .get_or_init(|| {
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(true)
                    .build(schema)
                    .map_err(
                        |e| tracing::error!(error = %e, "a declared body schema does not compile"),
                    )
                    .ok()
            })
            .as_ref()
    }
}

/// What each operation takes: path template → method → rule (looked up without allocating).
pub struct Rules(HashMap<String, Vec<(String, Rule)>>);

/// Collects the `#/components/schemas/…` names `v` refers to, transitively.
fn referenced(v: &Value, schemas: &Map<String, Value>, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "$ref"
                    && let Some(name) = x
                        .as_str()
                        .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    if out.insert(name.to_owned())
                        && let Some(s) = schemas.get(name)
                    {
                        referenced(s, schemas, out);
                    }
                } else {
                    referenced(x, schemas, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| referenced(x, schemas, out)),
        _ => {}
    }
}

/// The rules of every operation in `doc`.
pub fn rules(doc: &Value) -> Rules {
    let empty = Map::new();
    let schemas = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out: HashMap<String, Vec<(String, Rule)>> = HashMap::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let mut r = Rule {
                query_checked_by_route: op.get("x-entity").is_some()
                    && op["operationId"]
                        .as_str()
                        .is_some_and(|id| id.starts_with("find"))
                    && op.get("requestBody").is_none(),
                ..Rule::default()
            };
            for p in op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query")
            {
                let Some(name) = p["name"].as_str() else {
                    continue;
                };
                r.exact.push(name.to_owned());
                if p["x-bracket-notation"] == json!(true) || p["style"] == "deepObject" {
                    r.bracketed.push(name.to_owned());
                }
            }
            // Hand-written routes take small bodies (credentials, tokens, a message) unless they
            // say otherwise (`x-body-limit`); the generic entity routes take the server's limit.
            if op.get("x-entity").is_none()
                && op
                    .pointer("/requestBody/content/application~1json")
                    .is_some()
            {
                r.limit = Some(
                    op.get("x-body-limit")
                        .and_then(Value::as_u64)
                        .map_or(SMALL_JSON, |n| n as usize),
                );
            }
            // Rate-limited routes (429) count a request before reading its body, so a flood of
            // large bodies costs nothing; their handlers check the body themselves.
            if op.get("x-entity").is_none()
                && op.pointer("/responses/429").is_none()
                && let Some(schema) = op.pointer("/requestBody/content/application~1json/schema")
            {
                let mut used = BTreeSet::new();
                referenced(schema, schemas, &mut used);
                let parts: Map<String, Value> = used
                    .into_iter()
                    .filter_map(|n| Some((n.clone(), schemas.get(&n)?.clone())))
                    .collect();
                let root = json!({"allOf": [schema], "components": {"schemas": parts}});
                r.body = Some((root, OnceLock::new()));
            }
            out.entry(path.clone())
                .or_default()
                .push((method.to_ascii_uppercase(), r));
        }
    }
    Rules(out)
}

/// Wraps `router` so each route refuses what its operation in the document does not declare;
/// `rules` ([`rules`] of the document) are made off the start path, and requests that come
/// before them wait for them.
pub fn layer<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    rules: Arc<crate::later::Later<Rules>>,
    limits: Limits,
) -> Router<S> {
    router.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let rules = rules.clone();
            async move {
                match check(&rules, req, limits).await {
                    Ok(req) => next.run(req).await,
                    Err(e) => crate::error::error_response(&e),
                }
            }
        },
    ))
}

/// `req` as its operation's rule lets it through (its body read and put back when checked), or
/// what the rule refuses. Only a query or a JSON body can be refused, so a request with neither
/// (`/health`, `/ready`, reads by id) passes without waiting for the rules at the start.
async fn check(
    rules: &crate::later::Later<Rules>,
    req: Request,
    limits: Limits,
) -> Result<Request> {
    let has_query = req.uri().query().is_some_and(|q| !q.is_empty());
    // A body sent without a type is read as JSON by the handlers, so it is judged as JSON here.
    let json = match media_type(req.headers()).as_str() {
        "application/json" => true,
        "" => crate::gate::has_body(&req),
        _ => false,
    };
    if !has_query && !json {
        return Ok(req);
    }
    let Some(path) = req.extensions().get::<MatchedPath>().cloned() else {
        return Ok(req);
    };
    let rules = rules
        .get()
        .await
        .ok_or_else(|| crate::later::not_ready("the request rules"))?;
    // A standard method's clone copies no text.
    let m = req.method().clone();
    let method = match m.as_str() {
        "HEAD" => "GET",
        m => m,
    };
    let Some(rule) = rules
        .0
        .get(path.as_str())
        .and_then(|ms| ms.iter().find(|(m, _)| m == method))
        .map(|(_, r)| r)
    else {
        return Ok(req);
    };
    if let Some(query) = req
        .uri()
        .query()
        .filter(|_| has_query && !rule.query_checked_by_route)
    {
        for (n, (key, _)) in form_urlencoded::parse(query.as_bytes()).enumerate() {
            if n >= 1000 {
                return Err(Error::bad_request("more than 1000 query parameters"));
            }
            if !rule.takes(&key) {
                let shown: String = key.chars().take(64).collect();
                return Err(Error::bad_field(
                    &shown,
                    format!(
                        "is not a query parameter of {method} {}; it takes: {}",
                        path.as_str(),
                        rule.names()
                    ),
                ));
            }
        }
    }
    let mut req = req;
    let limit = match rule.limit {
        Some(l) if json => {
            let l = l.min(limits.json);
            if let Some(len) = req
                .headers()
                .get(axum::http::header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
                && len > l
            {
                // Refused on its head: none of it is kept (a moderate one is read past, so the
                // client gets to read the answer).
                let message = format!(
                    "the body is larger than {l} bytes, the most {method} {} takes",
                    path.as_str()
                );
                crate::body::drain(req.into_body(), len, l).await;
                return Err(Error::PayloadTooLarge(message));
            }
            req.extensions_mut().insert(RouteLimit(l));
            l
        }
        _ => limits.json,
    };
    if rule.body.is_none() || !json {
        // No schema to check, or not JSON (the handler answers 415 or reads its own way).
        return Ok(req);
    }
    let Some(validator) = rule.validator() else {
        return Ok(req);
    };
    let (parts, body) = req.into_parts();
    let bytes = crate::body::read(body, limit).await?;
    // Malformed or empty JSON goes on to the handler, which says what is wrong with it.
    if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
        let mut fields = FieldErrors::new();
        for e in validator.iter_errors(&value).take(20) {
            let (field, message) = describe(&e);
            fields.entry(field).or_default().push(message);
        }
        if !fields.is_empty() {
            return Err(Error::invalid_fields(fields));
        }
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The field a schema violation is about (`items[0].quantity`; the body itself is `body`) and a
/// message for it.
fn describe(e: &jsonschema::ValidationError<'_>) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as K;
    let mut field = String::new();
    for seg in e.instance_path().as_str().split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if seg.parse::<usize>().is_ok() {
            field.push_str(&format!("[{seg}]"));
        } else {
            if !field.is_empty() {
                field.push('.');
            }
            field.push_str(&seg);
        }
    }
    let join = |field: &str, name: &str| {
        if field.is_empty() {
            name.to_owned()
        } else {
            format!("{field}.{name}")
        }
    };
    match e.kind() {
        K::Required { property } => (
            join(&field, property.as_str().unwrap_or("?")),
            "is required".to_owned(),
        ),
        K::AdditionalProperties { unexpected } => (
            join(&field, unexpected.first().map_or("?", String::as_str)),
            "is not a field of this body".to_owned(),
        ),
        _ => (
            if field.is_empty() {
                "body".to_owned()
            } else {
                field
            },
            e.to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use tower::ServiceExt;

    /// The rules are made beside the start: a request that comes before them waits, then is
    /// judged by them (not let through unchecked).
    #[tokio::test]
    async fn a_request_before_the_rules_waits_for_them() {
        let doc = json!({"paths": {"/x": {"get": {
            "parameters": [{"name": "a", "in": "query", "schema": {"type": "string"}}],
            "responses": {}
        }}}});
        let later: Arc<crate::later::Later<Rules>> = Arc::default();
        let app = layer(
            Router::new().route("/x", get(|| async { "ok" })),
            later.clone(),
            Limits::default(),
        );
        let req = |q: &str| {
            axum::http::Request::get(format!("/x?{q}"))
                .body(Body::empty())
                .unwrap()
        };
        let early = tokio::spawn(app.clone().oneshot(req("b=1")));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!early.is_finished(), "it waits for the rules");
        later.set(rules(&doc));
        let res = early.await.unwrap().unwrap();
        assert_eq!(
            res.status(),
            400,
            "an undeclared parameter, judged once the rules exist"
        );
        let res = app.oneshot(req("a=1")).await.unwrap();
        assert_eq!(res.status(), 200);
    }

    /// What the rules could not refuse (no query, no JSON body: `/ready`, reads by id) is
    /// answered before they exist; a JSON body still waits.
    #[tokio::test]
    async fn a_request_with_nothing_to_check_does_not_wait() {
        let later: Arc<crate::later::Later<Rules>> = Arc::default();
        let app = layer(
            Router::new().route("/x", get(|| async { "ok" }).post(|| async { "ok" })),
            later.clone(),
            Limits::default(),
        );
        let plain = axum::http::Request::get("/x").body(Body::empty()).unwrap();
        let res = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            app.clone().oneshot(plain),
        )
        .await
        .expect("answered without the rules")
        .unwrap();
        assert_eq!(res.status(), 200);
        let json = axum::http::Request::post("/x")
            .header("content-type", "application/json")
            .body(Body::from("{}"))
            .unwrap();
        let early = tokio::spawn(app.oneshot(json));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!early.is_finished(), "a JSON body waits for the rules");
        later.set(rules(&json!({"paths": {}})));
        assert_eq!(early.await.unwrap().unwrap().status(), 200);
    }
}
