//! `POST /api/crm/forms/{id}/requests`: the public form submission.

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::json;
use stoa_api::openapi::{custom, path_params};
use stoa_api::rate::Keyed;
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::value::as_object;

use crate::requests;

/// Form submissions one client IP may make, checked before the body is read.
pub fn routes(rate: Arc<Keyed>) -> RouteBook<AppState> {
    RouteBook::new().add(
        Access::Public,
        "POST",
        "/api/crm/forms/{id}/requests",
        post(
            move |State(s): State<AppState>, Path(id): Path<String>, req: Request| async move {
                rate.check(&stoa_api::rate::client_ip(&req))?;
                let id = stoa_api::crud::parse_id(&id)?;
                let body = stoa_api::body::parse(req, s.limits).await?;
                let values = as_object(&body.data)?;
                let row = requests::submit(&s.store, id, values).await?;
                ApiResult::Ok(stoa_api::crud::data(StatusCode::CREATED, row.to_json()))
            },
        ),
        custom(
            "crm",
            "crmFormRequestCreate",
            "Submit a form: the values keyed by each input's slug (required inputs must be filled, number inputs take numbers)",
            path_params(&["id"]),
            Some(json!({"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}})),
            201,
            json!({"$ref": "#/components/schemas/CrmRequest"}),
            &[400, 404, 413, 415, 422, 429],
        ),
    )
}
