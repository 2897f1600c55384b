//! The MCP handler: lists the tools the caller may use, runs tool calls as requests to the API
//! with the caller's own credentials (so a call can never do more than the same token over HTTP),
//! holds every write to a dry run and a confirmation, and serves the content model and page
//! bundles as resources.

use std::sync::Arc;

use axum::body::Body;
use http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use stoa_api::auth::{Authorize, Caller, Via};
use stoa_api::loopback::Loopback;
use stoa_kernel::registry::Registry;
use tokio::sync::OnceCell;

use crate::confirm::{Confirmations, purpose};
use crate::tools::{Tool, Verb, catalogue};

/// The largest API answer a tool passes on (a page of 100 records is far below it).
const MAX_ANSWER: usize = 8 * 1024 * 1024;

const INSTRUCTIONS: &str = "Stoa: a site's content, shop and people. Tools find, read, create, change and delete records of each entity you may reach, and run a few operations (publishing a page, moving an order, sending a notification). Every write is two calls: first without `confirmation` (a dry run that changes nothing and answers the changes and a confirmation), then the same call with that confirmation. The resource stoa://content-model describes every entity and field; stoa://pages/bundle?url=/en/ reads a page as the site shows it.";

const CONTENT_MODEL: &str = "stoa://content-model";
const BUNDLE: &str = "stoa://pages/bundle";

/// Dry runs one caller may make in [`DRY_RUN_WINDOW`]: confirmations waiting are kept, and one
/// caller must not crowd out the others'.
const DRY_RUNS: u32 = 300;
const DRY_RUN_WINDOW: std::time::Duration = std::time::Duration::from_secs(300);

pub struct State {
    pub loopback: Arc<Loopback>,
    pub authorize: Arc<dyn Authorize>,
    pub registry: Arc<Registry>,
    pub confirmations: Confirmations,
    dry_runs: stoa_api::rate::Budget,
    tools: OnceCell<Arc<Vec<Tool>>>,
}

impl State {
    pub fn new(
        loopback: Arc<Loopback>,
        authorize: Arc<dyn Authorize>,
        registry: Arc<Registry>,
        confirmations: Confirmations,
        shared: Option<stoa_store::cluster::Shared>,
    ) -> Self {
        Self {
            loopback,
            authorize,
            registry,
            confirmations,
            dry_runs: stoa_api::rate::Budget::new(
                DRY_RUNS,
                DRY_RUN_WINDOW,
                "MCP dry runs",
                shared.map(|s| (s, "mcp.dry-run")),
            ),
            tools: OnceCell::new(),
        }
    }
}

#[derive(Clone)]
pub struct Mcp(pub Arc<State>);

/// An API answer: status, body and the paging headers.
struct Answer {
    status: u16,
    body: Value,
    total: Option<String>,
    next: Option<String>,
}

fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ErrorData> {
    serde_json::from_value(v).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn parts(ctx: &RequestContext<RoleServer>) -> Result<&Parts, ErrorData> {
    ctx.extensions
        .get::<Parts>()
        .ok_or_else(|| ErrorData::internal_error("no HTTP request", None))
}

fn caller(p: &Parts) -> Caller {
    p.extensions.get::<Caller>().cloned().unwrap_or_default()
}

/// Who a confirmation is bound to: the key, else the session, else the account.
fn principal(c: &Caller) -> String {
    match (c.key, c.session, c.subject) {
        (Some(k), _, _) => format!("key:{k}"),
        (_, Some(s), _) => format!("session:{s}"),
        (_, _, Some(s)) => format!("subject:{s}"),
        _ => "nobody".into(),
    }
}

fn tool_result(v: Value, error: bool) -> Result<CallToolResponse, ErrorData> {
    let text = serde_json::to_string_pretty(&v).unwrap_or_default();
    let r: CallToolResult = from_json(json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": v,
        "isError": error,
    }))?;
    Ok(r.into())
}

/// A refusal the agent reads (a tool error, not a protocol error).
fn refused(message: &str) -> Result<CallToolResponse, ErrorData> {
    tool_result(json!({"error": message}), true)
}

fn encode_segment(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

impl Mcp {
    async fn tools(&self, p: &Parts) -> Result<Arc<Vec<Tool>>, ErrorData> {
        let state = self.0.clone();
        let headers = p.headers.clone();
        self.0
            .tools
            .get_or_try_init(|| async move {
                let a = call(
                    &state.loopback,
                    &headers,
                    None,
                    "GET",
                    "/api/openapi.json",
                    None,
                )
                .await;
                if a.status != 200 {
                    return Err(ErrorData::internal_error(
                        "the API document is not ready; try again in a moment",
                        None,
                    ));
                }
                Ok(Arc::new(catalogue(&a.body, &state.registry)))
            })
            .await
            .cloned()
    }

    /// The tools `c` may use now.
    async fn allowed(&self, p: &Parts) -> Result<Vec<Tool>, ErrorData> {
        let c = caller(p);
        let mut out = Vec::new();
        for t in self.tools(p).await?.iter() {
            if self
                .0
                .authorize
                .may(&c, &t.method, &t.sample_path())
                .await
                .is_ok()
            {
                out.push(t.clone());
            }
        }
        Ok(out)
    }
}

/// Runs one request through the API with the MCP request's credentials.
async fn call(
    loopback: &Loopback,
    headers: &http::HeaderMap,
    from: Option<&Parts>,
    method: &str,
    path_and_query: &str,
    body: Option<&Value>,
) -> Answer {
    let mut b = http::Request::builder().method(method).uri(path_and_query);
    for h in [http::header::AUTHORIZATION, http::header::USER_AGENT] {
        if let Some(v) = headers.get(&h) {
            b = b.header(h, v.clone());
        }
    }
    if body.is_some() {
        b = b.header(http::header::CONTENT_TYPE, "application/json");
    }
    let req = b.body(match body {
        Some(v) => Body::from(v.to_string()),
        None => Body::empty(),
    });
    let Ok(mut req) = req else {
        return Answer {
            status: 400,
            body: json!({"error": "the path or a parameter cannot be sent as given"}),
            total: None,
            next: None,
        };
    };
    if let Some(p) = from {
        // The client's address, for rate limits and the audit log.
        if let Some(ip) = p.extensions.get::<stoa_api::rate::ClientIp>() {
            req.extensions_mut().insert(*ip);
        }
        if let Some(ci) = p
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        {
            req.extensions_mut().insert(*ci);
        }
    }
    let res = loopback.call(req).await;
    let status = res.status().as_u16();
    let (head, body) = res.into_parts();
    let header = |n: &str| {
        head.headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (total, next) = (header("x-total-count"), header("x-next-cursor"));
    drop(head);
    let body = match axum::body::to_bytes(body, MAX_ANSWER).await {
        Ok(b) if b.is_empty() => Value::Null,
        Ok(b) => serde_json::from_slice(&b)
            .unwrap_or_else(|_| json!({"text": String::from_utf8_lossy(&b)})),
        Err(_) => {
            json!({"error": "the answer is too large for a tool; narrow the request (limit, filters)"})
        }
    };
    Answer {
        status,
        body,
        total,
        next,
    }
}

/// The request a tool call makes: path with its parameters, query, body. A 4xx-style message
/// when the arguments do not fit the tool.
fn request(t: &Tool, args: &Map<String, Value>) -> Result<(String, Option<Value>), String> {
    let known = |k: &str| {
        t.path_params.iter().any(|p| p == k)
            || t.query.iter().any(|q| q.name == k)
            || (t.body && k == "data")
            || (t.verb.writes() && k == "confirmation")
    };
    if let Some(k) = args.keys().find(|k| !known(k)) {
        return Err(format!("`{k}` is not an argument of {}", t.name));
    }
    let mut path = t.path.clone();
    for p in &t.path_params {
        let v = match args.get(p) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(format!("`{p}` is required (a string)")),
        };
        path = path.replace(&format!("{{{p}}}"), &encode_segment(&v));
    }
    let mut q = form_urlencoded::Serializer::new(String::new());
    let mut any = false;
    for p in &t.query {
        let Some(v) = args.get(&p.name) else { continue };
        let s = match v {
            Value::Null => continue,
            Value::String(s) if !p.json => s.clone(),
            Value::Bool(b) if !p.json => b.to_string(),
            Value::Number(n) if !p.json => n.to_string(),
            other => other.to_string(),
        };
        q.append_pair(&p.name, &s);
        any = true;
    }
    if any {
        path = format!("{path}?{}", q.finish());
    }
    let body = if t.body {
        Some(args.get("data").cloned().unwrap_or_else(|| json!({})))
    } else {
        None
    };
    Ok((path, body))
}

/// What a write would change: per field, before and after.
async fn changes(st: &State, p: &Parts, t: &Tool, path: &str, body: Option<&Value>) -> Value {
    let after = body.and_then(Value::as_object);
    match t.verb {
        Verb::Create => Value::Object(
            after
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), json!({"before": null, "after": v})))
                .collect(),
        ),
        Verb::Update | Verb::Delete => {
            let now = call(&st.loopback, &p.headers, Some(p), "GET", path, None).await;
            let current = now.body.get("data").cloned().unwrap_or(Value::Null);
            if t.verb == Verb::Delete {
                return json!({"deleted": current});
            }
            Value::Object(
                after
                    .into_iter()
                    .flatten()
                    .filter(|(k, v)| current.get(k.as_str()) != Some(v))
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            json!({"before": current.get(k.as_str()).cloned().unwrap_or(Value::Null), "after": v}),
                        )
                    })
                    .collect(),
            )
        }
        _ => json!({"request": body.cloned().unwrap_or(Value::Null)}),
    }
}

fn answer(a: Answer) -> Result<CallToolResponse, ErrorData> {
    let error = a.status >= 400;
    let mut v = json!({"status": a.status});
    match a.body {
        Value::Object(mut m) if !error => {
            v["data"] = m.remove("data").unwrap_or(Value::Null);
        }
        other => {
            if error {
                v["error"] = other.get("error").cloned().unwrap_or(other.clone());
                if let Some(f) = other.get("fields") {
                    v["fields"] = f.clone();
                }
            } else {
                v["data"] = other;
            }
        }
    }
    if let Some(t) = a.total {
        v["total"] = json!(t.parse::<u64>().ok());
    }
    if let Some(n) = a.next {
        v["after"] = json!(n);
    }
    tool_result(v, error)
}

impl ServerHandler for Mcp {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        let info = from_json::<rmcp::model::Implementation>(json!({
            "name": "stoa",
            "title": "Stoa",
            "version": env!("CARGO_PKG_VERSION"),
        }));
        let mut c = ServerConfig::new(caps).with_instructions(INSTRUCTIONS);
        if let Ok(i) = info {
            c = c.with_server_info(i);
        }
        c
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let p = parts(&ctx)?;
        let tools: Vec<Value> = self
            .allowed(p)
            .await?
            .into_iter()
            .map(|t| t.listed)
            .collect();
        from_json(json!({"tools": tools}))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let p = parts(&ctx)?;
        let c = caller(p);
        let tools = self.tools(p).await?;
        let Some(t) = tools.iter().find(|t| t.name == params.name) else {
            return Err(ErrorData::invalid_params(
                format!("there is no tool {}", params.name),
                None,
            ));
        };
        let mut args = params.arguments.clone().unwrap_or_default();
        let confirmation = args.remove("confirmation");
        let (path, body) = match request(t, &args) {
            Ok(r) => r,
            Err(m) => return refused(&m),
        };
        let st = &self.0;
        if !t.verb.writes() {
            return answer(call(&st.loopback, &p.headers, Some(p), &t.method, &path, None).await);
        }
        let bare = path.split('?').next().unwrap_or(&path).to_owned();
        let purpose = purpose(&principal(&c), &t.name, &Value::Object(args.clone()));
        match confirmation {
            None | Some(Value::Null) => {
                if let Err(e) = st.authorize.may(&c, &t.method, &bare).await {
                    return refused(&format!("you may not do this: {}", e.public_message()));
                }
                if let Err(e) = st.dry_runs.check(&principal(&c)).await {
                    return refused(&e.public_message());
                }
                let changes = changes(st, p, t, &path, body.as_ref()).await;
                let (token, expires) = match st.confirmations.issue(&purpose).await {
                    Ok(x) => x,
                    Err(e) => return refused(&e.public_message()),
                };
                let expires = time::OffsetDateTime::from_unix_timestamp(expires as i64)
                    .ok()
                    .and_then(|t| {
                        t.format(&time::format_description::well_known::Rfc3339)
                            .ok()
                    });
                tool_result(
                    json!({
                        "dryRun": true,
                        "wouldCall": format!("{} {}", t.method, bare),
                        "changes": changes,
                        "confirmation": token,
                        "expiresAt": expires,
                        "next": "Nothing was changed. To make this change, call the tool again with the same arguments and this confirmation."
                    }),
                    false,
                )
            }
            Some(Value::String(token)) => {
                match st.confirmations.spend(&token, &purpose).await {
                    Err(e) => return refused(&e.public_message()),
                    Ok(Err(why)) => return refused(why.message()),
                    Ok(Ok(())) => {}
                }
                answer(
                    call(
                        &st.loopback,
                        &p.headers,
                        Some(p),
                        &t.method,
                        &path,
                        body.as_ref(),
                    )
                    .await,
                )
            }
            Some(_) => refused("`confirmation` is the string the dry run answered"),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        from_json(json!({"resources": [{
            "uri": CONTENT_MODEL,
            "name": "content-model",
            "title": "Content model",
            "description": "Every entity with its fields, kinds, defaults, variants and references, in the words the admin uses (en and ru)",
            "mimeType": "application/json",
        }]}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        from_json(json!({"resourceTemplates": [{
            "uriTemplate": format!("{BUNDLE}{{?url}}"),
            "name": "page-bundle",
            "title": "A page as the site shows it",
            "description": "The page at a site address (such as /en/ or /ru/blog) with its layouts, widgets and the records they show",
            "mimeType": "application/json",
        }]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let p = parts(&ctx)?;
        let uri = request.uri.clone();
        let path = if uri == CONTENT_MODEL {
            "/api/meta".to_owned()
        } else if let Some(q) = uri.strip_prefix(BUNDLE).and_then(|r| r.strip_prefix('?')) {
            let url = form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "url")
                .map(|(_, v)| v.into_owned())
                .ok_or_else(|| ErrorData::invalid_params("name the page: ?url=/en/", None))?;
            let q: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("url", &url)
                .finish();
            format!("/api/host/pages/bundle?{q}")
        } else {
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        };
        let a = call(&self.0.loopback, &p.headers, Some(p), "GET", &path, None).await;
        if a.status >= 400 {
            return Err(ErrorData::invalid_params(
                a.body
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("the resource cannot be read")
                    .to_owned(),
                None,
            ));
        }
        let text = a.body.get("data").unwrap_or(&Value::Null).to_string();
        let r: ReadResourceResult = from_json(json!({"contents": [{
            "uri": uri,
            "mimeType": "application/json",
            "text": text,
        }]}))?;
        Ok(r.into())
    }
}

/// May this MCP request go on: a bearer token or an API key (a browser's cookie never reaches
/// the tools: no page can make an agent's calls).
pub fn credentialed(c: &Caller) -> bool {
    matches!(c.via, Via::Bearer | Via::ApiKey)
}
