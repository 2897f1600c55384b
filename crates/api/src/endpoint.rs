//! Typed routes: one way to write a module's route. An [`Endpoint`] says what the route is (method,
//! path, access, operation id, summary, success status, the errors it answers); the handler's own
//! signature says what it takes and answers — its path parameters `P`, its query `Q`, its body `B`
//! and its answer `A`, each a Rust type (serde + schemars). The OpenAPI operation, and with it the
//! strict layer's checks of the query and the body, are made from those types, so the document and
//! the handler cannot disagree: a field added to a body struct is in the document, a body the type
//! refuses is a 422 naming the field, a path parameter that does not parse is a 400 naming it.
//!
//! ```ignore
//! #[derive(Deserialize, JsonSchema)]
//! struct ById { id: Uuid }
//!
//! RouteBook::new().endpoint(
//!     svc,
//!     Endpoint::post("notification", "/api/notification/notifications/{id}/send", "notificationSend")
//!         .summary("Sends a notification now")
//!         .errors(&[400, 401, 403, 404]),
//!     |m: Arc<Mailer>, x: In<ById, Nothing, Nothing>| async move { m.resend(x.path.id).await },
//! )
//! ```
//!
//! Handlers answer `Result<A>`: the answer goes out as `{data: A}` with the endpoint's status; an
//! error as the kernel's error does everywhere.

use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::on;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use stoa_kernel::{Error, Result};

use crate::auth::Caller;
use crate::body::{Limits, answer_schema_of, schema_of};
use crate::call::method_filter;
use crate::crud::{AppState, data};
use crate::error::ApiResult;
use crate::routes::{Access, RouteBook};

/// What a route is, apart from its types (which its handler gives).
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub tag: &'static str,
    pub method: &'static str,
    pub path: &'static str,
    pub id: &'static str,
    pub summary: &'static str,
    pub access: Access,
    /// The success status (200 unless set).
    pub status: u16,
    /// The error statuses the route answers (documented).
    pub errors: &'static [u16],
    /// Worth an agent's time: offered as an MCP tool ([`crate::routes::AGENT`]).
    pub agent: bool,
    /// A browser navigation rather than API (a redirect): routed, but not in the document.
    pub hidden: bool,
    /// The body and answer are named after the operation (`AuthLoginBody`, `AuthLoginResult`),
    /// as the document named them before the route was typed, rather than after their types.
    pub named_by_operation: bool,
    /// Other success answers the route can give: status, description, schema.
    pub also: Vec<(u16, &'static str, Value)>,
}

impl Endpoint {
    /// An admin route `method path` of module `tag`, operation `id`, answering 200.
    pub fn new(
        tag: &'static str,
        method: &'static str,
        path: &'static str,
        id: &'static str,
    ) -> Self {
        Self {
            tag,
            method,
            path,
            id,
            summary: "",
            access: Access::Admin,
            status: 200,
            errors: &[],
            agent: false,
            hidden: false,
            named_by_operation: false,
            also: Vec::new(),
        }
    }

    pub fn patch(tag: &'static str, path: &'static str, id: &'static str) -> Self {
        Self::new(tag, "PATCH", path, id)
    }

    pub fn delete(tag: &'static str, path: &'static str, id: &'static str) -> Self {
        Self::new(tag, "DELETE", path, id)
    }

    pub fn get(tag: &'static str, path: &'static str, id: &'static str) -> Self {
        Self::new(tag, "GET", path, id)
    }

    pub fn post(tag: &'static str, path: &'static str, id: &'static str) -> Self {
        Self::new(tag, "POST", path, id)
    }

    pub fn summary(mut self, s: &'static str) -> Self {
        self.summary = s;
        self
    }

    pub fn access(mut self, a: Access) -> Self {
        self.access = a;
        self
    }

    pub fn status(mut self, s: u16) -> Self {
        self.status = s;
        self
    }

    pub fn errors(mut self, e: &'static [u16]) -> Self {
        self.errors = e;
        self
    }

    /// Offered to agents as an MCP tool.
    pub fn for_agents(mut self) -> Self {
        self.agent = true;
        self
    }

    /// A browser navigation (it answers with a redirect): routed, but not in the document, and
    /// so not held to it — a provider's callback carries whatever parameters it adds.
    pub fn hidden(mut self) -> Self {
        self.hidden = true;
        self
    }

    /// Names the body and the answer after the operation, as the document did before.
    pub fn named_by_operation(mut self) -> Self {
        self.named_by_operation = true;
        self
    }

    /// Another success answer: `status`, when (`description`), as `T`.
    pub fn also<T: JsonSchema>(mut self, status: u16, description: &'static str) -> Self {
        let name = T::schema_name();
        let schema = titled(answer_schema_of::<T>(), self.tag, &name);
        self.also.push((status, description, schema));
        self
    }
}

/// The record a path names by its `{id}`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
pub struct ById {
    pub id: uuid::Uuid,
}

/// No parameters, no query or no body: the type of a handler's input it does not take.
#[derive(Debug, Default, serde::Deserialize, JsonSchema)]
pub struct Nothing {}

/// A JSON body of type `T` (an object): checked against `T`'s schema by the strict layer, then
/// read as `T` — a field `T` refuses is a 422 naming it.
#[derive(Debug)]
pub struct Json<T>(pub T);

/// A handler's body input: [`Nothing`] (the body is not read), [`Json`], or either read only
/// when the handler asks ([`Later`]).
pub trait BodyInput: Sized + Send + 'static {
    /// The request body's schema, when the route takes one.
    fn schema() -> Option<Value>;
    /// The body type's name (its component's, after the module's).
    fn name() -> String {
        String::new()
    }
    /// The largest body the route takes, when not the small default of hand-written routes
    /// (documented as `x-body-limit`, which the strict layer enforces).
    fn limit() -> Option<usize> {
        None
    }
    /// Corrects the operation `op` the schema made, for a body that is not JSON (a form).
    fn document(_op: &mut Value) {}
    /// The body read from `req` within `limits`.
    fn read(req: Request, limits: Limits) -> impl Future<Output = Result<Self>> + Send;
}

/// A multipart form of one file, its part named `file` (the type is read from the bytes).
pub struct OneFile(pub crate::body::FilePart);

impl BodyInput for OneFile {
    fn schema() -> Option<Value> {
        None
    }

    fn document(op: &mut Value) {
        op["requestBody"] =
            crate::openapi::request_body_with_files(json!({"type": "object"}), &["file"]);
    }

    async fn read(req: Request, limits: Limits) -> Result<Self> {
        let body = crate::body::parse_files(req, limits, &["file"]).await?;
        body.files.into_iter().next().map(OneFile).ok_or_else(|| {
            Error::invalid_field(
                "file",
                "send the file as the `file` part of a multipart/form-data body",
            )
        })
    }
}

/// A body taken as it came, unparsed, up to `MAX` bytes: what a signed event needs (a payment
/// provider's signature covers the exact bytes). Documented as a JSON object.
pub struct Raw<const MAX: usize>(pub axum::body::Bytes);

impl<const MAX: usize> BodyInput for Raw<MAX> {
    fn schema() -> Option<Value> {
        Some(json!({"type": "object"}))
    }

    fn limit() -> Option<usize> {
        Some(MAX)
    }

    async fn read(req: Request, _limits: Limits) -> Result<Self> {
        crate::body::read(req.into_body(), MAX).await.map(Raw)
    }
}

impl BodyInput for Nothing {
    fn schema() -> Option<Value> {
        None
    }

    async fn read(_req: Request, _limits: Limits) -> Result<Self> {
        Ok(Nothing {})
    }
}

/// A JSON body read leniently and not documented: what cannot be read (no body, not JSON, not
/// `T`, too large) is `T::default()`. For a route that must act whatever it is sent — signing out
/// ends the session even when a client sends something odd with it.
#[derive(Debug, Default)]
pub struct Lenient<T>(pub T);

impl<T: DeserializeOwned + Default + Send + 'static> BodyInput for Lenient<T> {
    fn schema() -> Option<Value> {
        None
    }

    async fn read(req: Request, limits: Limits) -> Result<Self> {
        let read = async {
            let body = crate::body::object_or_empty(req, limits).await?;
            crate::body::typed::<T>(body)
        };
        Ok(Lenient(read.await.unwrap_or_default()))
    }
}

/// A body the handler reads when it is ready: after the checks that must come before a body is
/// read (a rate limit counted per address or per form, so a flood is refused unread).
pub struct Later<B> {
    req: Request,
    limits: Limits,
    _body: PhantomData<fn() -> B>,
}

impl<B: BodyInput> Later<B> {
    /// Reads the body now.
    pub async fn read(self) -> Result<B> {
        B::read(self.req, self.limits).await
    }
}

impl<B: BodyInput> BodyInput for Later<B> {
    fn schema() -> Option<Value> {
        B::schema()
    }

    fn name() -> String {
        B::name()
    }

    fn limit() -> Option<usize> {
        B::limit()
    }

    fn document(op: &mut Value) {
        B::document(op);
    }

    async fn read(req: Request, limits: Limits) -> Result<Self> {
        Ok(Later {
            req,
            limits,
            _body: PhantomData,
        })
    }
}

/// The name of a schema the document declares (`#/components/schemas/<NAME>`): an entity's
/// record, which the generic API declares once.
pub trait Component {
    const NAME: &'static str;
}

/// Declares marker types for entities' declared schemas, each named as the document names it:
/// `stoa_api::component!(HostPage, HostWidget);` for `Row<HostPage>` answers.
#[macro_export]
macro_rules! component {
    ($($name:ident),+ $(,)?) => {$(
        #[doc = concat!("The declared schema `", stringify!($name), "` (a record of the generic API).")]
        pub struct $name;
        impl $crate::endpoint::Component for $name {
            const NAME: &'static str = stringify!($name);
        }
    )+};
}

/// A record answered as its entity's declared schema `C` (a [`Component`]).
pub struct Row<C>(pub Value, PhantomData<fn() -> C>);

impl<C> Row<C> {
    pub fn new(v: Value) -> Self {
        Row(v, PhantomData)
    }
}

impl<C> Clone for Row<C> {
    fn clone(&self) -> Self {
        Row::new(self.0.clone())
    }
}

impl<C> std::fmt::Debug for Row<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<C> Serialize for Row<C> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<C: Component> JsonSchema for Row<C> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        C::NAME.into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"$ref": format!("#/components/schemas/{}", C::NAME)})
    }
}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> BodyInput for Json<T> {
    fn name() -> String {
        T::schema_name().into_owned()
    }

    fn schema() -> Option<Value> {
        let mut s = schema_of::<T>();
        // A field the body may leave out is optional; its default is the handler's business (a
        // `default` here makes generated clients require it).
        // (`get_mut`: indexing would add `"properties": null` to a schema without them, such as
        // a `oneOf` of tagged bodies.)
        if let Some(props) = s.get_mut("properties").and_then(Value::as_object_mut) {
            for p in props.values_mut().filter_map(Value::as_object_mut) {
                p.remove("default");
            }
        }
        Some(s)
    }

    async fn read(req: Request, limits: Limits) -> Result<Self> {
        let body = crate::body::object_or_empty(req, limits).await?;
        crate::body::typed(body).map(Json)
    }
}

/// What a typed handler gets: the caller, and its path parameters, query and body as its types.
pub struct In<P = Nothing, Q = Nothing, B = Nothing> {
    pub caller: Caller,
    /// The actor recorded with writes (`subject:<id>`, `admin`, `anonymous`).
    pub actor: String,
    /// The client's address (behind a trusted proxy, the one it names): what per-address
    /// limits count.
    pub client: String,
    pub headers: axum::http::HeaderMap,
    pub path: P,
    pub query: Q,
    pub body: B,
}

/// The pairs of query `q`, a key given more than once taking its last value (as a browser's
/// form and most servers read it), in the order the keys first came.
fn last_of_each(q: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in form_urlencoded::parse(q.as_bytes()).into_owned() {
        match out.iter_mut().find(|(key, _)| *key == k) {
            Some(pair) => pair.1 = v,
            None => out.push((k, v)),
        }
    }
    out
}

/// For an optional parameter: an empty value (`?limit=`) is no value, as a form sends a field
/// left blank. `#[serde(default, deserialize_with = "empty_is_none")]`, with
/// `#[schemars(with = "Option<T>")]`.
pub fn empty_is_none<'de, D, T>(d: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    use serde::Deserialize;
    match Option::<String>::deserialize(d)?.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// Parameters read from text pairs (a path's or a query's) as `T`: numbers and uuids parse from
/// their text; a value that does not is a 400 naming its parameter.
fn params<T: DeserializeOwned>(pairs: &[(String, String)]) -> Result<T> {
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(encoded.as_bytes()));
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if let Some(name) = inner
            .strip_prefix("missing field `")
            .and_then(|r| r.split('`').next())
        {
            return Error::bad_field(name, "is required");
        }
        if path == "." {
            Error::bad_request(inner)
        } else if inner.contains("UUID") || inner.contains("uuid") {
            Error::bad_field(&path, "must be a uuid")
        } else {
            Error::bad_field(&path, inner)
        }
    })
}

/// The OpenAPI parameters `T` declares, `in` the path or the query: one per property of its
/// schema (a path's all required; a query's as `T` makes them).
pub fn parameters_of<T: JsonSchema>(place: &str) -> Vec<Value> {
    let schema = schema_of::<T>();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, s)| {
            let mut s = s.clone();
            // A parameter is there or not; it is never null (an `Option` says "not required").
            if let Some(types) = s.get_mut("type").and_then(Value::as_array_mut) {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    s["type"] = types[0].clone();
                }
            }
            if let Some(values) = s.get_mut("enum").and_then(Value::as_array_mut) {
                values.retain(|v| !v.is_null());
            }
            let description = s.as_object_mut().and_then(|o| o.remove("description"));
            let mut p = json!({
                "name": name,
                "in": place,
                "required": place == "path" || required.contains(&name.as_str()),
                "schema": s,
            });
            if let Some(d) = description {
                p["description"] = d;
            }
            p
        })
        .collect()
}

/// A struct's schema named for the document's components: its module and type
/// (`WebhookSecret`), so a type two routes share is one component. Other schemas (a list, a
/// record's `$ref`) stay unnamed, and the operation names them.
fn titled(mut s: Value, tag: &str, name: &str) -> Value {
    if s.get("properties").is_some() && !name.is_empty() && s.get("title").is_none() {
        s["title"] = Value::String(format!("{}{name}", crate::openapi::pascal(tag)));
    }
    s
}

/// The OpenAPI operation of endpoint `e` whose handler takes `P`, `Q`, `B` and answers `A`.
pub fn operation<P: JsonSchema, Q: JsonSchema, B: BodyInput, A: JsonSchema>(e: &Endpoint) -> Value {
    let mut params = parameters_of::<P>("path");
    params.extend(parameters_of::<Q>("query"));
    let (body, answer) = if e.named_by_operation {
        (String::new(), String::new())
    } else {
        (B::name(), A::schema_name().into_owned())
    };
    let body_schema = B::schema();
    // A body whose every field may be left out may itself be left out.
    let optional = body_schema.as_ref().is_some_and(|s| {
        let one_of_many = ["oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| s.get(*k).is_some());
        !one_of_many
            && s.get("properties").is_some()
            && s["required"].as_array().is_none_or(Vec::is_empty)
    });
    let mut doc = crate::openapi::custom(
        e.tag,
        e.id,
        e.summary,
        params,
        body_schema.map(|s| titled(s, e.tag, &body)),
        e.status,
        titled(answer_schema_of::<A>(), e.tag, &answer),
        e.errors,
    );
    if optional {
        doc["requestBody"]["required"] = Value::Bool(false);
    }
    for (status, description, schema) in &e.also {
        doc["responses"][status.to_string()] = crate::openapi::ok(description, schema.clone());
    }
    if e.hidden {
        doc["x-hidden"] = Value::Bool(true);
    }
    if let Some(n) = B::limit() {
        doc["x-body-limit"] = json!(n);
    }
    B::document(&mut doc);
    if e.agent {
        crate::routes::for_agents(doc)
    } else {
        doc
    }
}

/// What a typed handler answers. A plain value `A` goes out as `{data: A}` with the endpoint's
/// status ([`RouteBook::endpoint`]); a [`Reply`] can also set cookies and headers or choose its
/// status, and a [`Redirect`] sends a browser on ([`RouteBook::endpoint_replying`]).
pub trait Answer: Send + 'static {
    /// The type the document describes the success answer with.
    type Doc: JsonSchema;
    /// The response, `status` being the endpoint's.
    fn respond(self, status: StatusCode) -> Response;
    /// Corrects the operation `op` the types made, for an answer that is not `{data: Doc}` (a
    /// payment provider's acknowledgement in the form it expects).
    fn document(_op: &mut Value, _status: u16) {}
}

/// An answer `A` sent as `{data: A}`, with headers (cookies) and, when set, a status other than
/// the endpoint's; or a refusal that still sets its headers (a failed refresh clears the cookies).
pub struct Reply<A> {
    answer: Result<A>,
    status: Option<StatusCode>,
    headers: HeaderMap,
}

impl<A> Reply<A> {
    pub fn new(answer: A) -> Self {
        Self {
            answer: Ok(answer),
            status: None,
            headers: HeaderMap::new(),
        }
    }

    /// The error `e`, answered as every error is, with this reply's headers.
    pub fn refused(e: Error) -> Self {
        Self {
            answer: Err(e),
            status: None,
            headers: HeaderMap::new(),
        }
    }

    /// Answers with `status` rather than the endpoint's (documented with [`Endpoint::also`]).
    pub fn status(mut self, status: StatusCode) -> Self {
        self.status = Some(status);
        self
    }

    /// Adds the header `name: value` (repeatable: each `Set-Cookie` is one).
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// The headers set so far, to add to.
    pub fn headers_mut(&mut self) -> &mut HeaderMap {
        &mut self.headers
    }
}

impl<A: Serialize + JsonSchema + Send + 'static> Answer for Reply<A> {
    type Doc = A;

    fn respond(self, status: StatusCode) -> Response {
        let mut res = match self.answer {
            Ok(a) => data(self.status.unwrap_or(status), a),
            Err(e) => crate::error::error_response(&e),
        };
        for (name, value) in &self.headers {
            res.headers_mut().append(name, value.clone());
        }
        res
    }
}

/// A browser sent on to `location` (302, not cached), with the headers (cookies) set.
pub struct Redirect {
    location: String,
    headers: HeaderMap,
}

/// The answer of a redirect: no body; the browser follows `Location`.
#[derive(JsonSchema)]
#[schemars(description = "No body: the browser follows Location")]
pub struct NoBody {}

impl Redirect {
    pub fn to(location: impl Into<String>) -> Self {
        Self {
            location: location.into(),
            headers: HeaderMap::new(),
        }
    }

    /// The headers set so far (cookies), to add to.
    pub fn headers_mut(&mut self) -> &mut HeaderMap {
        &mut self.headers
    }
}

impl Answer for Redirect {
    type Doc = NoBody;

    fn respond(self, _status: StatusCode) -> Response {
        let mut res = Response::new(axum::body::Body::empty());
        *res.status_mut() = StatusCode::FOUND;
        if let Ok(v) = HeaderValue::from_str(&self.location) {
            res.headers_mut().insert(header::LOCATION, v);
        }
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        for (name, value) in &self.headers {
            res.headers_mut().append(name, value.clone());
        }
        res
    }
}

/// A plain answer: `{data: A}` with the endpoint's status.
struct Plain<A>(A);

impl<A: Serialize + JsonSchema + Send + 'static> Answer for Plain<A> {
    type Doc = A;

    fn respond(self, status: StatusCode) -> Response {
        data(status, self.0)
    }
}

/// A record of the declared schema `C` with the fields of `T` added: documented as
/// `allOf: [C, T]` (titled with `T`'s title, if it has one), sent as one object.
pub struct Extended<C, T> {
    pub row: Value,
    pub more: T,
    _c: PhantomData<fn() -> C>,
}

impl<C, T> Extended<C, T> {
    pub fn new(row: Value, more: T) -> Self {
        Self {
            row,
            more,
            _c: PhantomData,
        }
    }
}

impl<C, T: Clone> Clone for Extended<C, T> {
    fn clone(&self) -> Self {
        Extended::new(self.row.clone(), self.more.clone())
    }
}

impl<C, T: std::fmt::Debug> std::fmt::Debug for Extended<C, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extended")
            .field("row", &self.row)
            .field("more", &self.more)
            .finish()
    }
}

impl<C, T: Serialize> Serialize for Extended<C, T> {
    /// The record's fields, then `T`'s, written as one object (no copy of either: a chat's list
    /// writes one per message).
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Both<'a, T> {
            #[serde(flatten)]
            row: &'a serde_json::Map<String, Value>,
            #[serde(flatten)]
            more: &'a T,
        }
        match &self.row {
            Value::Object(row) => Both {
                row,
                more: &self.more,
            }
            .serialize(s),
            other => other.serialize(s),
        }
    }
}

impl<C: Component, T: JsonSchema> JsonSchema for Extended<C, T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("{}With{}", C::NAME, T::schema_name()).into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let base = json!({"$ref": format!("#/components/schemas/{}", C::NAME)});
        both(
            base,
            serde_json::to_value(T::json_schema(g)).unwrap_or_default(),
        )
    }
}

/// `allOf: [base, more]`, named and described as `more` is (its title and description lifted).
fn both(base: Value, mut more: Value) -> schemars::Schema {
    let mut v = json!({"allOf": [base]});
    if let Some(o) = more.as_object_mut() {
        for k in ["title", "description"] {
            if let Some(t) = o.remove(k) {
                v[k] = t;
            }
        }
    }
    if let Some(a) = v["allOf"].as_array_mut() {
        a.push(more);
    }
    schemars::Schema::try_from(v).unwrap_or_default()
}

/// A typed answer `V` with the fields of `T` added: documented as `allOf: [V, T]` (`V` by its
/// title, so by reference once the document names it), sent as one object. An order's view
/// with its buyer's or its admins' extras.
#[derive(Clone, Debug, Serialize)]
pub struct More<V, T> {
    #[serde(flatten)]
    pub base: V,
    #[serde(flatten)]
    pub more: T,
}

impl<V: JsonSchema, T: JsonSchema> JsonSchema for More<V, T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("{}With{}", V::schema_name(), T::schema_name()).into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let base = serde_json::to_value(V::json_schema(g)).unwrap_or_default();
        both(
            base,
            serde_json::to_value(T::json_schema(g)).unwrap_or_default(),
        )
    }
}

impl RouteBook<AppState> {
    /// Registers the typed route `e`: `f` is called with the service `svc` and the request read
    /// as its [`In`]; its answer goes out as `{data: …}` with `e`'s status.
    pub fn endpoint<T, P, Q, B, A, F, Fu>(self, svc: Arc<T>, e: Endpoint, f: F) -> Self
    where
        T: Send + Sync + 'static,
        P: DeserializeOwned + JsonSchema + Send + 'static,
        Q: DeserializeOwned + JsonSchema + Send + 'static,
        B: BodyInput,
        A: Serialize + JsonSchema + Send + 'static,
        F: Fn(Arc<T>, In<P, Q, B>) -> Fu + Clone + Send + Sync + 'static,
        Fu: Future<Output = Result<A>> + Send + 'static,
    {
        self.endpoint_replying(svc, e, move |svc: Arc<T>, x: In<P, Q, B>| {
            let answer = f(svc, x);
            async move { answer.await.map(Plain) }
        })
    }

    /// Registers the typed route `e` whose handler answers an [`Answer`] of its own: a
    /// [`Reply`] (cookies, another status) or a [`Redirect`].
    pub fn endpoint_replying<T, P, Q, B, R, F, Fu>(self, svc: Arc<T>, e: Endpoint, f: F) -> Self
    where
        T: Send + Sync + 'static,
        P: DeserializeOwned + JsonSchema + Send + 'static,
        Q: DeserializeOwned + JsonSchema + Send + 'static,
        B: BodyInput,
        R: Answer,
        F: Fn(Arc<T>, In<P, Q, B>) -> Fu + Clone + Send + Sync + 'static,
        Fu: Future<Output = Result<R>> + Send + 'static,
    {
        let mut doc = operation::<P, Q, B, R::Doc>(&e);
        R::document(&mut doc, e.status);
        let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::OK);
        let handler = on(
            method_filter(e.method),
            move |State(s): State<AppState>,
                  Path(path): Path<HashMap<String, String>>,
                  req: Request| {
                let (svc, f) = (svc.clone(), f.clone());
                async move {
                    let caller = Caller::of(&req);
                    let actor = crate::crud::actor_of(&req);
                    let path: Vec<(String, String)> = path.into_iter().collect();
                    let query = req.uri().query().map(last_of_each).unwrap_or_default();
                    let client = crate::rate::client_ip(&req);
                    let headers = req.headers().clone();
                    let limits = s.limits;
                    let input = In {
                        caller,
                        actor,
                        client,
                        headers,
                        path: params::<P>(&path)?,
                        query: params::<Q>(&query)?,
                        body: B::read(req, limits).await?,
                    };
                    let answer = f(svc, input).await?;
                    ApiResult::Ok(answer.respond(status))
                }
            },
        );
        self.add(e.access, e.method, e.path, handler, doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    struct ById {
        id: uuid::Uuid,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    struct Page {
        /// How many to answer.
        limit: Option<u32>,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    struct Rename {
        #[schemars(length(min = 1, max = 40))]
        name: String,
        #[serde(default)]
        loud: bool,
    }

    #[derive(Serialize, JsonSchema)]
    struct Renamed {
        name: String,
        times: u32,
    }

    #[test]
    fn the_document_comes_from_the_handlers_types() {
        let e = Endpoint::post("t", "/api/t/{id}/rename", "tRename")
            .summary("Renames")
            .errors(&[400, 422]);
        let doc = operation::<ById, Page, Json<Rename>, Renamed>(&e);
        assert_eq!(doc["operationId"], "tRename");
        let params = doc["parameters"].as_array().expect("parameters");
        assert_eq!(params[0]["name"], "id");
        assert_eq!(params[0]["in"], "path");
        assert_eq!(params[0]["required"], true);
        assert_eq!(params[0]["schema"]["format"], "uuid");
        assert_eq!(params[1]["name"], "limit");
        assert_eq!(params[1]["in"], "query");
        assert_eq!(params[1]["required"], false);
        assert_eq!(params[1]["description"], "How many to answer.");
        let body = doc.to_string();
        // Every field of the body and of the answer is in the document, with its rules.
        for want in ["\"name\"", "\"loud\"", "\"maxLength\":40", "\"times\""] {
            assert!(body.contains(want), "{want} in {body}");
        }
        // No parameters, no query, no body: none documented.
        let bare = operation::<Nothing, Nothing, Nothing, Renamed>(&e);
        assert!(
            bare["parameters"].as_array().is_none_or(Vec::is_empty),
            "{bare}"
        );
        assert!(bare.get("requestBody").is_none_or(Value::is_null), "{bare}");
    }

    #[test]
    fn a_body_is_read_as_its_type_and_what_it_refuses_names_the_field() {
        let read =
            |v: Value| crate::body::typed::<Rename>(v.as_object().cloned().unwrap_or_default());
        let ok = read(json!({"name": "x"})).expect("a body the type takes");
        assert_eq!((ok.name.as_str(), ok.loud), ("x", false));
        for (bad, field) in [
            (json!({"loud": true}), "name"),
            (json!({"name": "x", "loud": "yes"}), "loud"),
            (json!({"name": 5}), "name"),
        ] {
            let e = read(bad.clone()).err().expect("refused");
            assert!(
                matches!(e, Error::Invalid { .. }),
                "{bad}: a 422, not {e:?}"
            );
            assert!(
                format!("{e:?}").contains(field),
                "{bad} names {field}: {e:?}"
            );
        }
    }

    #[test]
    fn parameters_are_read_as_their_types() {
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter().map(|(a, b)| ((*a).into(), (*b).into())).collect()
        };
        let id = uuid::Uuid::now_v7();
        let p: ById = params(&pairs(&[("id", &id.to_string())])).expect("a uuid");
        assert_eq!(p.id, id);
        let e = params::<ById>(&pairs(&[("id", "nope")]))
            .err()
            .expect("refused");
        assert!(
            matches!(e, Error::BadRequest { .. } | Error::Invalid { .. }),
            "{e:?}"
        );
        assert!(format!("{e:?}").contains("id"), "{e:?}");
        let q: Page = params(&pairs(&[("limit", "20")])).expect("a number");
        assert_eq!(q.limit, Some(20));
        let e = params::<Page>(&pairs(&[("limit", "many")]))
            .err()
            .expect("refused");
        assert!(format!("{e:?}").contains("limit"), "{e:?}");
        let none: Page = params(&[]).expect("optional");
        assert_eq!(none.limit, None);
    }

    #[derive(Serialize, JsonSchema)]
    #[schemars(title = "TWho")]
    struct Who {
        admin: bool,
    }

    crate::component!(TSubject);

    #[derive(serde::Deserialize, JsonSchema)]
    struct Maybe {
        #[allow(dead_code)]
        token: Option<String>,
    }

    #[test]
    fn replies_redirects_and_extended_records_are_documented_from_their_types() {
        let e = Endpoint::post("t", "/api/t/in", "tIn")
            .named_by_operation()
            .status(201)
            .also::<Renamed>(200, "Another step is needed")
            .hidden();
        let doc = operation::<Nothing, Nothing, Json<Maybe>, Option<Extended<TSubject, Who>>>(&e);
        // A record with fields added: the record's component and the fields, titled as declared.
        let ok = doc["responses"]["201"].to_string();
        for want in [
            "#/components/schemas/TSubject",
            "\"title\":\"TWho\"",
            "\"admin\"",
        ] {
            assert!(ok.contains(want), "{want} in {ok}");
        }
        // Named after the operation: the body carries no title of its own type.
        assert!(!doc["requestBody"].to_string().contains("Maybe"), "{doc}");
        // Every field optional: the body may be left out.
        assert_eq!(doc["requestBody"]["required"], false, "{doc}");
        assert!(
            doc["responses"]["200"].to_string().contains("\"times\""),
            "{doc}"
        );
        assert_eq!(doc["x-hidden"], true);
        // A body of tagged variants keeps its shape: no `properties` is added to its root.
        #[derive(serde::Deserialize, JsonSchema)]
        #[serde(tag = "kind")]
        #[allow(dead_code)]
        enum Tagged {
            A { a: String },
            B { b: u32 },
        }
        let tagged = <Json<Tagged> as BodyInput>::schema().expect("a body");
        assert!(tagged.get("properties").is_none(), "{tagged}");
        assert!(tagged.get("oneOf").is_some(), "{tagged}");
        // An optional query parameter is never documented as null.
        let q =
            operation::<Nothing, Maybe, Nothing, Renamed>(&Endpoint::get("t", "/api/t", "tGet"));
        assert_eq!(q["parameters"][0]["schema"]["type"], "string", "{q}");
    }

    #[test]
    fn a_reply_sends_its_headers_and_status_and_an_extended_record_is_one_object() {
        let r = Reply::new(Renamed {
            name: "x".into(),
            times: 1,
        })
        .status(StatusCode::OK)
        .header(header::SET_COOKIE, HeaderValue::from_static("a=1"))
        .header(header::SET_COOKIE, HeaderValue::from_static("b=2"))
        .respond(StatusCode::CREATED);
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers().get_all(header::SET_COOKIE).iter().count(), 2);
        let refused = Reply::<Renamed>::refused(Error::Unauthorized("no".into()))
            .header(header::SET_COOKIE, HeaderValue::from_static("a="))
            .respond(StatusCode::CREATED);
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        assert!(refused.headers().contains_key(header::SET_COOKIE));
        let mut to = Redirect::to("/ru/");
        to.headers_mut()
            .append(header::SET_COOKIE, HeaderValue::from_static("f="));
        let res = to.respond(StatusCode::OK);
        assert_eq!(res.status(), StatusCode::FOUND);
        assert_eq!(res.headers()[header::LOCATION], "/ru/");
        let v = serde_json::to_value(Extended::<TSubject, Who>::new(
            json!({"id": "s"}),
            Who { admin: true },
        ))
        .expect("serialises");
        assert_eq!(v, json!({"id": "s", "admin": true}));
    }

    #[derive(serde::Deserialize, JsonSchema)]
    struct Paging {
        #[serde(default, deserialize_with = "empty_is_none")]
        #[schemars(with = "Option<u32>")]
        limit: Option<u32>,
        #[serde(default)]
        q: Option<String>,
    }

    #[test]
    fn a_repeated_key_takes_its_last_value_and_a_blank_one_is_none() {
        let p: Paging = params(&last_of_each("limit=5&q=a&limit=7")).expect("read");
        assert_eq!((p.limit, p.q.as_deref()), (Some(7), Some("a")));
        let blank: Paging = params(&last_of_each("limit=&q=")).expect("a blank limit");
        assert_eq!((blank.limit, blank.q.as_deref()), (None, Some("")));
        let e = params::<Paging>(&last_of_each("limit=many"))
            .err()
            .expect("refused");
        assert!(format!("{e:?}").contains("limit"), "{e:?}");
        let doc = operation::<Nothing, Paging, Nothing, Renamed>(&Endpoint::get("t", "/t", "t"));
        assert_eq!(doc["parameters"][0]["schema"]["type"], "integer", "{doc}");
    }
}
