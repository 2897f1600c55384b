//! The admins' routes beside the generic ones: the event names, an endpoint's secret (read and
//! rotated), a test ping, and a delivery's replay. Typed routes (`stoa_api::endpoint`).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use stoa_api::endpoint::{ById, Endpoint, In, Row};
use stoa_api::{AppState, RouteBook};

use crate::service::Hooks;

const TAG: &str = "webhook";

/// An endpoint's signing secret.
#[derive(Serialize, JsonSchema)]
pub struct Secret {
    /// The endpoint's signing key: HMAC-SHA256 over `<t>.<body>` (see the Stoa-Signature header).
    pub secret: String,
}

stoa_api::component!(WebhookDelivery);

pub fn routes(hooks: Arc<Hooks>) -> RouteBook<AppState> {
    RouteBook::new()
        .endpoint(
            hooks.clone(),
            Endpoint::get(TAG, "/api/webhook/event-types", "webhookEventTypes")
                .summary("Every event an endpoint may subscribe to (`*` at the end of a name matches a prefix)")
                .errors(&[401, 403]),
            |h: Arc<Hooks>, _: In| async move { Ok(h.names()) },
        )
        .endpoint(
            hooks.clone(),
            Endpoint::get(TAG, "/api/webhook/endpoints/{id}/secret", "webhookEndpointSecret")
                .summary("The endpoint's signing secret")
                .errors(&[400, 401, 403, 404]),
            |h: Arc<Hooks>, x: In<ById>| async move {
                Ok(Secret {
                    secret: h.secret(x.path.id).await?,
                })
            },
        )
        .endpoint(
            hooks.clone(),
            Endpoint::post(TAG, "/api/webhook/endpoints/{id}/secret", "webhookEndpointRotateSecret")
                .status(201)
                .summary("Makes a new signing secret for the endpoint; the old one stops working at once")
                .errors(&[400, 401, 403, 404]),
            |h: Arc<Hooks>, x: In<ById>| async move {
                Ok(Secret {
                    secret: h.rotate(x.path.id).await?,
                })
            },
        )
        .endpoint(
            hooks.clone(),
            Endpoint::post(TAG, "/api/webhook/endpoints/{id}/test", "webhookEndpointTest")
                .status(201)
                .summary("Sends a webhook.ping event to the endpoint now and answers its delivery (delivered, or failed with why; never retried)")
                .errors(&[400, 401, 403, 404]),
            |h: Arc<Hooks>, x: In<ById>| async move {
                Ok(Row::<WebhookDelivery>::new(h.test(x.path.id).await?.to_json()))
            },
        )
        .endpoint(
            hooks,
            Endpoint::post(TAG, "/api/webhook/deliveries/{id}/replay", "webhookDeliveryReplay")
                .status(201)
                .summary("Sends the delivery's event again (same event id), after the deliveries already waiting for its endpoint")
                .errors(&[400, 401, 403, 404]),
            |h: Arc<Hooks>, x: In<ById>| async move {
                Ok(Row::<WebhookDelivery>::new(h.replay(x.path.id).await?.to_json()))
            },
        )
}
