//! Admin actions on the outbox: send (or retry) one notification, send everything due, and
//! preview a template. Typed routes (`stoa_api::endpoint`): the document comes from `views`.

use std::sync::Arc;

use serde_json::Value;
use stoa_api::endpoint::{ById, Endpoint, In, Json, Nothing};
use stoa_api::{AppState, RouteBook};

use crate::mail::Mailer;
use crate::views::{SendAllResult, TemplateRenderBody};

/// Most notifications one "send all" queues.
const SEND_ALL_CAP: u64 = 1000;

const TAG: &str = "notification";

pub fn routes(m: Arc<Mailer>) -> RouteBook<AppState> {
    RouteBook::new()
        .endpoint(
            m.clone(),
            Endpoint::post(TAG, "/api/notification/notifications/{id}/send", "notificationSend")
                .summary("Sends a notification now: a failed one is retried from its first attempt, a scheduled one keeps its time; a sent one is left alone")
                .errors(&[400, 401, 403, 404])
                // Sending a notification: a tool for agents (MCP).
                .for_agents(),
            |m: Arc<Mailer>, x: In<ById>| async move { m.resend(x.path.id).await },
        )
        .endpoint(
            m.clone(),
            Endpoint::post(TAG, "/api/notification/topics/send-all", "notificationSendAll")
                .summary("Queues every new notification that is due (at most 1000)")
                .errors(&[401, 403]),
            |m: Arc<Mailer>, _: In| async move {
                let queued = m.send_due(SEND_ALL_CAP).await?;
                Ok(SendAllResult { ok: true, queued })
            },
        )
        .endpoint(
            m.clone(),
            Endpoint::get(TAG, "/api/notification/notifications/{id}/message", "notificationMessage")
                .summary("A notification as its recipient receives it: subject, text and HTML parts, language and links. Its one-time secrets (a code, a reset link) show only while its channel is not configured (development); otherwise they read '(sent only to the recipient)' in the mail's language")
                .errors(&[400, 401, 403, 404, 409, 422]),
            |m: Arc<Mailer>, x: In<ById>| async move { m.message(x.path.id).await },
        )
        .endpoint(
            m,
            Endpoint::post(TAG, "/api/notification/templates/{id}/render", "notificationTemplateRender")
                .summary("Renders a template's subject and body for data in a language (the admin's preview)")
                .errors(&[400, 401, 403, 404, 422]),
            |m: Arc<Mailer>, x: In<ById, Nothing, Json<TemplateRenderBody>>| async move {
                let Json(body) = x.body;
                let language = body.language.as_deref().unwrap_or("en").to_owned();
                m.preview(x.path.id, &Value::Object(body.data), &language).await
            },
        )
}
