//! Module routes written as plain functions of a service and a [`Call`]: the caller, the path
//! parameters, the query and the JSON body, read once here for every such route.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::{Path, Query, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter, on};
use serde_json::{Map, Value};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::auth::Caller;
use crate::crud::{AppState, data, parse_id};
use crate::error::ApiResult;

/// What a handler gets: the caller, the path parameters, the query and the JSON body.
pub struct Call {
    pub caller: Caller,
    /// The actor recorded with writes (`subject:<id>`, `admin`, `anonymous`).
    pub actor: String,
    pub params: HashMap<String, String>,
    pub query: HashMap<String, String>,
    pub body: Map<String, Value>,
}

impl Call {
    /// The uuid path parameter `name` (400 naming it when it is not one).
    pub fn id(&self, name: &str) -> Result<Uuid> {
        parse_id(self.params.get(name).map_or("", String::as_str))
            .map_err(|_| Error::bad_field(name, "must be a uuid"))
    }

    /// The subject in the path (`{id}`), which must be the caller (or an admin).
    pub fn subject(&self) -> Result<Uuid> {
        self.caller.acting_for(self.id("id")?)
    }

    /// The optional uuid query parameter `name`.
    pub fn query_id(&self, name: &str) -> Result<Option<Uuid>> {
        match self.query.get(name).filter(|v| !v.is_empty()) {
            Some(v) => parse_id(v)
                .map(Some)
                .map_err(|_| Error::bad_field(name, "must be a uuid")),
            None => Ok(None),
        }
    }

    /// The optional integer query parameter `name`, within `range`.
    pub fn query_int(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Result<Option<i64>> {
        match self.query.get(name).filter(|v| !v.is_empty()) {
            Some(v) => v
                .parse::<i64>()
                .ok()
                .filter(|n| range.contains(n))
                .map(Some)
                .ok_or_else(|| {
                    Error::bad_field(
                        name,
                        format!(
                            "must be a whole number from {} to {}",
                            range.start(),
                            range.end()
                        ),
                    )
                }),
            None => Ok(None),
        }
    }

    /// The body field `name` as text (`None` when absent or not text).
    pub fn text(&self, name: &str) -> Option<&str> {
        self.body.get(name).and_then(Value::as_str)
    }
}

/// A handler's future.
pub type Fut = Pin<Box<dyn Future<Output = Result<Response>> + Send>>;
/// A route handler of service `T`.
pub type Handler<T> = fn(Arc<T>, Call) -> Fut;

/// The axum filter of an upper-case HTTP method (`GET` for one axum does not route).
pub fn method_filter(method: &str) -> MethodFilter {
    axum::http::Method::from_bytes(method.as_bytes())
        .ok()
        .and_then(|m| MethodFilter::try_from(m).ok())
        .unwrap_or(MethodFilter::GET)
}

/// The axum route for `method` calling `f` with `svc` and the request read as a [`Call`].
pub fn route<T: Send + Sync + 'static>(
    svc: Arc<T>,
    method: &'static str,
    f: Handler<T>,
) -> MethodRouter<AppState> {
    on(
        method_filter(method),
        move |State(s): State<AppState>,
              Path(params): Path<HashMap<String, String>>,
              Query(query): Query<HashMap<String, String>>,
              req: Request| {
            let svc = svc.clone();
            async move {
                let caller = Caller::of(&req);
                let actor = crate::crud::actor_of(&req);
                let body = crate::body::object_or_empty(req, s.limits).await?;
                let call = Call {
                    caller,
                    actor,
                    params,
                    query,
                    body,
                };
                ApiResult::Ok(f(svc, call).await?)
            }
        },
    )
}

/// 200 with `{data: v}`.
pub fn ok(v: impl serde::Serialize) -> Result<Response> {
    Ok(data(StatusCode::OK, v))
}

/// 201 with `{data: v}`.
pub fn created(v: impl serde::Serialize) -> Result<Response> {
    Ok(data(StatusCode::CREATED, v))
}
