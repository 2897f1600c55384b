//! Form submissions: `POST /api/crm/forms/{id}/requests` (anyone) and
//! `POST /api/rbac/subjects/{id}/crm-module/form/request` (a signed-in sender, `{formId, …}`).

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Map, Value, json};
use stoa_api::auth::Caller;
use stoa_api::openapi::{custom, path_params};
use stoa_api::rate::Budget;
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::Error;
use stoa_kernel::value::as_object;
use uuid::Uuid;

use crate::requests::{Requests, Submitted};

/// The rate limits of submissions: per sender (client IP, or account) and form, and per form —
/// counted by all instances together on PostgreSQL.
pub struct Limits {
    pub sender: Budget,
    pub form: Budget,
}

fn answer(s: Submitted) -> axum::response::Response {
    let v = match s {
        Submitted::Stored(row) => row.to_json(),
        Submitted::Ignored(v) => v,
    };
    stoa_api::crud::data(StatusCode::CREATED, v)
}

pub fn routes(requests: Arc<Requests>, limits: Limits) -> RouteBook<AppState> {
    let limits = Arc::new(limits);
    let (r1, l1) = (requests.clone(), limits.clone());
    let values = json!({"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}, "properties": {"_gotcha": {"type": "string", "description": "leave empty: a request that fills it is taken for a bot's and dropped"}}});
    let r2 = requests.clone();
    let reply_body = json!({"type": "object", "title": "CrmReplyBody", "properties": {
        "subject": {"type": "string", "minLength": 1, "maxLength": crate::requests::MAX_REPLY_SUBJECT},
        "text": {"type": "string", "minLength": 1, "maxLength": crate::requests::MAX_REPLY_TEXT}
    }, "required": ["subject", "text"]});
    let mut signed = values.clone();
    signed["properties"]["formId"] = json!({"type": "string", "format": "uuid"});
    signed["required"] = json!(["formId"]);
    RouteBook::new()
        .add(
            Access::Public,
            "POST",
            "/api/crm/forms/{id}/requests",
            post(
                move |State(s): State<AppState>, Path(id): Path<String>, req: Request| async move {
                    let form = stoa_api::crud::parse_id(&id)?;
                    // Checked before the body is read.
                    let ip = stoa_api::rate::client_ip(&req);
                    l1.sender.check(&format!("{ip}|{form}")).await?;
                    l1.form.check(&form.to_string()).await?;
                    let lang = stoa_api::body::accept_language(req.headers(), &r1.default_language());
                    let body = stoa_api::body::parse(req, s.limits).await?;
                    let values = as_object(&body.data)?;
                    let done = r1.submit(form, values, None, &lang).await?;
                    ApiResult::Ok(answer(done))
                },
            ),
            custom(
                "crm",
                "crmFormRequestCreate",
                "Submit a form: the values keyed by each input's slug (required inputs filled, emails are addresses, numbers within the input's min and max); 10 a minute per address and form",
                path_params(&["id"]),
                Some(values),
                201,
                json!({"$ref": "#/components/schemas/CrmRequest"}),
                &[400, 404, 413, 415, 422, 429],
            ),
        )
        .add(
            Access::Owner,
            "POST",
            "/api/rbac/subjects/{id}/crm-module/form/request",
            post(
                move |State(s): State<AppState>, Path(id): Path<String>, req: Request| async move {
                    let subject = stoa_api::crud::parse_id(&id)?;
                    let caller = Caller::of(&req);
                    let subject = caller.acting_for(subject)?;
                    limits.sender.check(&format!("subject:{subject}")).await?;
                    let lang = stoa_api::body::accept_language(req.headers(), &requests.default_language());
                    let body = stoa_api::body::parse(req, s.limits).await?;
                    let mut values: Map<String, Value> = as_object(&body.data)?.clone();
                    let form = values
                        .remove("formId")
                        .and_then(|v| v.as_str().and_then(|s| Uuid::parse_str(s).ok()))
                        .ok_or_else(|| Error::invalid_field("formId", "name the form by its id"))?;
                    limits.form.check(&form.to_string()).await?;
                    let done = requests.submit(form, &values, Some(subject), &lang).await?;
                    ApiResult::Ok(answer(done))
                },
            ),
            custom(
                "crm",
                "subjectCrmFormRequest",
                "Submit a form as the signed-in subject: {formId, …values by input slug}; the request records who sent it",
                path_params(&["id"]),
                Some(signed),
                201,
                json!({"$ref": "#/components/schemas/CrmRequest"}),
                &[400, 401, 403, 404, 413, 415, 422, 429],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/crm/requests/{id}/reply",
            post(
                move |State(s): State<AppState>, Path(id): Path<String>, req: Request| async move {
                    let request = stoa_api::crud::parse_id(&id)?;
                    let body = stoa_api::body::parse(req, s.limits).await?;
                    let b = as_object(&body.data)?;
                    let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
                    let done = r2.reply(request, &text("subject"), &text("text")).await?;
                    ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, done))
                },
            ),
            custom(
                "crm",
                "crmRequestReply",
                "Answers a submission by mail to its sender, in the sender's language; a new one becomes 'in progress'",
                path_params(&["id"]),
                Some(reply_body),
                200,
                json!({"type": "object", "title": "CrmReplyResult", "properties": {
                    "queued": {"type": "boolean"}, "to": {"type": "string"}, "language": {"type": "string"},
                    "status": {"type": "string", "enum": crate::REQUEST_STATUSES}
                }, "required": ["queued", "to", "language", "status"]}),
                &[400, 401, 403, 404, 413, 415, 422],
            ),
        )
}
