//! The admins' routes beside the generic ones: the event names, an endpoint's secret (read and
//! rotated), a test ping, and a delivery's replay.

use std::sync::Arc;

use axum::extract::Path;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::json;
use stoa_api::openapi::{custom, path_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};

use crate::service::Hooks;

fn secret_schema() -> serde_json::Value {
    json!({"type": "object", "title": "WebhookSecret", "properties": {
        "secret": {"type": "string", "description": "The endpoint's signing key: HMAC-SHA256 over `<t>.<body>` (see the Stoa-Signature header)"}
    }, "required": ["secret"]})
}

pub fn routes(hooks: Arc<Hooks>) -> RouteBook<AppState> {
    let (h1, h2, h3, h4, h5) = (
        hooks.clone(),
        hooks.clone(),
        hooks.clone(),
        hooks.clone(),
        hooks,
    );
    let delivery = json!({"$ref": "#/components/schemas/WebhookDelivery"});
    RouteBook::new()
        .add(
            Access::Admin,
            "GET",
            "/api/webhook/event-types",
            get(move || async move {
                ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, h1.names()))
            }),
            custom(
                "webhook",
                "webhookEventTypes",
                "Every event an endpoint may subscribe to (`*` at the end of a name matches a prefix)",
                vec![],
                None,
                200,
                json!({"type": "array", "items": {"type": "string"}}),
                &[401, 403],
            ),
        )
        .add(
            Access::Admin,
            "GET",
            "/api/webhook/endpoints/{id}/secret",
            get(move |Path(id): Path<String>| async move {
                let id = stoa_api::crud::parse_id(&id)?;
                let secret = h2.secret(id).await?;
                ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, json!({"secret": secret})))
            }),
            custom(
                "webhook",
                "webhookEndpointSecret",
                "The endpoint's signing secret",
                path_params(&["id"]),
                None,
                200,
                secret_schema(),
                &[400, 401, 403, 404],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/webhook/endpoints/{id}/secret",
            post(move |Path(id): Path<String>| async move {
                let id = stoa_api::crud::parse_id(&id)?;
                let secret = h3.rotate(id).await?;
                ApiResult::Ok(stoa_api::crud::data(StatusCode::CREATED, json!({"secret": secret})))
            }),
            custom(
                "webhook",
                "webhookEndpointRotateSecret",
                "Makes a new signing secret for the endpoint; the old one stops working at once",
                path_params(&["id"]),
                None,
                201,
                secret_schema(),
                &[400, 401, 403, 404],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/webhook/endpoints/{id}/test",
            post(move |Path(id): Path<String>| async move {
                let id = stoa_api::crud::parse_id(&id)?;
                let row = h4.test(id).await?;
                ApiResult::Ok(stoa_api::crud::data(StatusCode::CREATED, row.to_json()))
            }),
            custom(
                "webhook",
                "webhookEndpointTest",
                "Sends a webhook.ping event to the endpoint now and answers its delivery (delivered, or failed with why; never retried)",
                path_params(&["id"]),
                None,
                201,
                delivery.clone(),
                &[400, 401, 403, 404],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/webhook/deliveries/{id}/replay",
            post(move |Path(id): Path<String>| async move {
                let id = stoa_api::crud::parse_id(&id)?;
                let row = h5.replay(id).await?;
                ApiResult::Ok(stoa_api::crud::data(StatusCode::CREATED, row.to_json()))
            }),
            custom(
                "webhook",
                "webhookDeliveryReplay",
                "Sends the delivery's event again (same event id), after the deliveries already waiting for its endpoint",
                path_params(&["id"]),
                None,
                201,
                delivery,
                &[400, 401, 403, 404],
            ),
        )
}
