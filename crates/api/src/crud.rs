//! The generic CRUD routes, registered for every declared entity at `/api/{module}/{route}`.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use serde_json::{Map, Value};
use stoa_kernel::model::Entity;
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::as_object;
use stoa_kernel::{Error, Result};
use stoa_store::Store;
use uuid::Uuid;

use crate::body::{self, Limits};
use crate::error::ApiResult;
use crate::openapi::ops;
use crate::routes::{Access, RouteBook};

/// What every handler needs.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub limits: Limits,
    /// Keeps files sent for `Format::File` fields (none: such parts are refused).
    pub uploads: Option<Arc<dyn crate::files::Uploads>>,
    /// Searches one client address may run at once ([`searches`]).
    pub searches: Arc<crate::rate::PerAddress>,
    /// Visitors' kept answers ([`crate::answers`]): reads that are a visitor's (not an admin's)
    /// but came with credentials are answered from them too.
    pub answers: Option<Arc<crate::answers::Answers>>,
}

/// Two searches at once per client address (the next waits its turn, 429 after 10 s): a search
/// can be a long read, and the long reads' slots are few (issue 47).
pub fn searches() -> Arc<crate::rate::PerAddress> {
    Arc::new(crate::rate::PerAddress::new(
        2,
        std::time::Duration::from_secs(10),
        "searches",
    ))
}

#[derive(serde::Serialize)]
struct Envelope<T> {
    data: T,
}

/// `{"data": …}` with a status, serialised straight from `v` (no intermediate JSON tree).
pub fn data(status: StatusCode, v: impl serde::Serialize) -> Response {
    (status, axum::Json(Envelope { data: v })).into_response()
}

fn json_bytes(status: StatusCode, body: bytes::Bytes) -> Response {
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// Parses a path id; a malformed one is a 400 naming the parameter.
pub fn parse_id(raw: &str) -> Result<Uuid> {
    Uuid::parse_str(raw)
        .map_err(|_| Error::bad_field("id", format!("'{}' is not a valid uuid", truncate(raw))))
}

fn truncate(s: &str) -> String {
    s.chars().take(64).collect()
}

/// The body as an object; each file part of a file field is kept first and its field set to the
/// stored URL, with what the bytes told (size, type, dimensions) in the fields `e` has.
async fn object(state: &AppState, e: &Entity, req: Request) -> Result<Map<String, Value>> {
    let fields = crate::openapi::file_fields(e);
    let b = body::parse_files(req, state.limits, &fields).await?;
    let mut input = as_object(&b.data)?.clone();
    for part in &b.files {
        let uploads = state.uploads.as_ref().ok_or_else(|| {
            Error::UnsupportedMediaType("this server keeps no uploaded files".into())
        })?;
        let stored = uploads.store(part).await?;
        input.insert(part.field.clone(), Value::String(stored.url));
        for (k, v) in stored.meta {
            if e.field(&k).is_some() {
                input.insert(k, v);
            }
        }
    }
    Ok(input)
}

async fn find(
    state: AppState,
    e: Arc<Entity>,
    raw: Option<String>,
    client: Option<crate::rate::ClientIp>,
    uri: &axum::http::Uri,
) -> ApiResult<Response> {
    let q = FindQuery::parse(&e, raw.as_deref().unwrap_or(""))?;
    if q.search.is_none()
        && let Some(res) = kept(&state, uri)
    {
        return Ok(res);
    }
    let _turn = match (&q.search, client) {
        (Some(_), Some(ip)) => Some(state.searches.turn(ip.0).await?),
        _ => None,
    };
    // A visitor's list may be kept (not a search: its turns bound what one address costs).
    let keep = q.search.is_none() && depends(&state.store, &e);
    let page = state.store.find_json(&e, &q).await?;
    let total = page.total;
    let body = bytes::Bytes::from(page.body);
    if keep {
        crate::answers::offer(body.clone());
    }
    let mut res = json_bytes(StatusCode::OK, body);
    if let Some(next) = page.next.and_then(|c| HeaderValue::from_str(&c).ok()) {
        res.headers_mut().insert("x-next-cursor", next);
    }
    if let Some(total) = total
        && let Ok(v) = HeaderValue::from_str(&total.n.to_string())
    {
        res.headers_mut().insert("x-total-count", v);
        res.headers_mut().insert(
            "x-total-count-exact",
            HeaderValue::from_static(if total.exact { "true" } else { "false" }),
        );
    }
    Ok(res)
}

async fn get_one(
    state: AppState,
    e: Arc<Entity>,
    id: String,
    uri: &axum::http::Uri,
) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    if let Some(res) = kept(&state, uri) {
        return Ok(res);
    }
    let keep = depends(&state.store, &e);
    let body = bytes::Bytes::from(state.store.get_json(&e, id).await?);
    if keep {
        crate::answers::offer(body.clone());
    }
    Ok(json_bytes(StatusCode::OK, body))
}

/// The visitors' kept answer to this request, for a caller whose answer is theirs but who came
/// with credentials (a signed-in reader; the gate has let them in). Never for an admin's read
/// (drafts), nor for a request that could have been answered before routing.
fn kept(state: &AppState, uri: &axum::http::Uri) -> Option<Response> {
    if stoa_store::publish::drafts_visible() || crate::answers::collecting() {
        return None;
    }
    state
        .answers
        .as_ref()?
        .reuse(uri.path_and_query()?.as_str())
}

/// When this read may be kept for visitors ([`crate::answers`]): names what it reads, before
/// reading it. Never a read that shows drafts (an admin's).
fn depends(store: &Store, e: &Entity) -> bool {
    if stoa_store::publish::drafts_visible() || !crate::answers::collecting() {
        return false;
    }
    for k in store.read_keys(e) {
        crate::answers::depends_on(store, &k);
    }
    true
}

async fn create(state: AppState, e: Arc<Entity>, req: Request) -> ApiResult<Response> {
    let input = object(&state, &e, req).await?;
    let row = state.store.create(&e, &input).await?;
    Ok(data(StatusCode::CREATED, row))
}

/// Who makes a write, for guards that record it (`subject:<id>`, `secret-key`, `anonymous`).
pub fn actor_of(req: &Request) -> String {
    match req.extensions().get::<crate::auth::Caller>() {
        Some(c) if c.via == crate::auth::Via::SecretKey => "secret-key".to_owned(),
        Some(crate::auth::Caller {
            subject: Some(s), ..
        }) => format!("subject:{s}"),
        _ => "anonymous".to_owned(),
    }
}

async fn update(state: AppState, e: Arc<Entity>, id: String, req: Request) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let actor = actor_of(&req);
    let input = object(&state, &e, req).await?;
    let row = stoa_store::guard::acting(actor, state.store.update(&e, id, &input)).await?;
    Ok(data(StatusCode::OK, row))
}

async fn remove(state: AppState, e: Arc<Entity>, id: String) -> ApiResult<Response> {
    let row = state.store.delete(&e, parse_id(&id)?).await?;
    Ok(data(StatusCode::OK, row))
}

async fn find_or_create(state: AppState, e: Arc<Entity>, req: Request) -> ApiResult<Response> {
    let input = object(&state, &e, req).await?;
    let (row, created) = state.store.find_or_create(&e, &input).await?;
    Ok(data(
        if created {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
        row,
    ))
}

/// Bulk bodies: `[{"data": {...}}, …]` for create, `[{"id": "…", "data": {...}}, …]` for update.
fn bulk_items(v: &Value) -> Result<&Vec<Value>> {
    v.as_array().ok_or_else(|| {
        Error::bad_request("a bulk body must be a JSON array of {\"data\": {…}} items")
    })
}

fn item_data(item: &Value, n: usize) -> Result<&Map<String, Value>> {
    item.get("data")
        .and_then(Value::as_object)
        .ok_or_else(|| Error::bad_field(&format!("[{n}].data"), "must be an object"))
}

async fn bulk_create(state: AppState, e: Arc<Entity>, req: Request) -> ApiResult<Response> {
    let b = body::parse(req, state.limits).await?;
    let items = bulk_items(&b.data)?;
    let inputs: Vec<Map<String, Value>> = items
        .iter()
        .enumerate()
        .map(|(n, i)| item_data(i, n).cloned())
        .collect::<Result<_>>()?;
    let rows = state.store.bulk_create(&e, &inputs).await?;
    Ok(data(StatusCode::CREATED, rows))
}

async fn bulk_update(state: AppState, e: Arc<Entity>, req: Request) -> ApiResult<Response> {
    let actor = actor_of(&req);
    let b = body::parse(req, state.limits).await?;
    let items = bulk_items(&b.data)?;
    let mut inputs = Vec::with_capacity(items.len());
    for (n, item) in items.iter().enumerate() {
        let id = item
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::bad_field(&format!("[{n}].id"), "id is required"))?;
        let id = parse_id(id).map_err(|x| x.with_field_prefix(&format!("[{n}].")))?;
        inputs.push((id, item_data(item, n)?.clone()));
    }
    let rows = stoa_store::guard::acting(actor, state.store.bulk_update(&e, &inputs)).await?;
    Ok(data(StatusCode::OK, rows))
}

/// The address of `e`'s generic routes (`/api/{module}/{route}`; one record at `…/{id}`).
pub fn collection_path(e: &Entity) -> String {
    format!("/api/{}/{}", e.module, e.route)
}

/// Registers the generic routes of `e`.
/// Reads are public when the registry says visitors may read the entity; writes are for admins.
pub fn entity_routes(
    book: RouteBook<AppState>,
    e: Arc<Entity>,
    registry: &stoa_kernel::registry::Registry,
) -> RouteBook<AppState> {
    let read = if registry.publicly_readable(&e) {
        Access::Public
    } else {
        Access::Admin
    };
    let base = collection_path(&e);
    let item = format!("{base}/{{id}}");
    // Each operation object is made when the OpenAPI document is, not at start.
    let later = |e: &Arc<Entity>, op: fn(&Entity) -> Value| {
        let e = e.clone();
        move || op(&e)
    };
    let mut book = book;
    let x = e.clone();
    book = book.add_later(
        read,
        "GET",
        &base,
        get(
            move |State(s): State<AppState>,
                  RawQuery(q): RawQuery,
                  ip: Option<axum::Extension<crate::rate::ClientIp>>,
                  uri: axum::extract::OriginalUri| {
                let x = x.clone();
                async move { find(s, x, q, ip.map(|i| i.0), &uri.0).await }
            },
        ),
        later(&e, ops::find),
    );
    let x = e.clone();
    book = book.add_later(
        read,
        "GET",
        &item,
        get(
            move |State(s): State<AppState>,
                  Path(id): Path<String>,
                  uri: axum::extract::OriginalUri| {
                let x = x.clone();
                async move { get_one(s, x, id, &uri.0).await }
            },
        ),
        later(&e, ops::get),
    );
    if e.ops.create {
        let x = e.clone();
        book = book.add_later(
            Access::Admin,
            "POST",
            &base,
            post(move |State(s): State<AppState>, req: Request| create(s, x.clone(), req)),
            later(&e, ops::create),
        );
    }
    if e.ops.update {
        let x = e.clone();
        book = book.add_later(
            Access::Admin,
            "PATCH",
            &item,
            patch(
                move |State(s): State<AppState>, Path(id): Path<String>, req: Request| {
                    update(s, x.clone(), id, req)
                },
            ),
            later(&e, ops::update),
        );
    }
    if e.ops.delete {
        let x = e.clone();
        book = book.add_later(
            Access::Admin,
            "DELETE",
            &item,
            delete(move |State(s): State<AppState>, Path(id): Path<String>| {
                remove(s, x.clone(), id)
            }),
            later(&e, ops::delete),
        );
    }
    if e.ops.find_or_create {
        let x = e.clone();
        book = book.add_later(
            Access::Admin,
            "POST",
            &format!("{base}/find-or-create"),
            post(move |State(s): State<AppState>, req: Request| find_or_create(s, x.clone(), req)),
            later(&e, ops::find_or_create),
        );
    }
    if e.ops.bulk {
        let x = e.clone();
        book = book.add_later(
            Access::Admin,
            "POST",
            &format!("{base}/bulk"),
            post(move |State(s): State<AppState>, req: Request| bulk_create(s, x.clone(), req)),
            later(&e, ops::bulk_create),
        );
        let x = e.clone();
        book = book.add_later(
            Access::Admin,
            "PATCH",
            &format!("{base}/bulk"),
            patch(move |State(s): State<AppState>, req: Request| bulk_update(s, x.clone(), req)),
            later(&e, ops::bulk_update),
        );
    }
    book
}
