//! Admin actions on the outbox: send (or retry) one notification, send everything due, and
//! preview a template.

use std::sync::Arc;

use serde_json::{Value, json};
use stoa_api::call::{Call, Fut, ok, route};
use stoa_api::openapi::{custom, path_params};
use stoa_api::{Access, AppState, RouteBook};

use crate::mail::Mailer;

/// Most notifications one "send all" queues.
const SEND_ALL_CAP: u64 = 1000;

fn send(m: Arc<Mailer>, x: Call) -> Fut {
    Box::pin(async move { ok(m.resend(x.id("id")?).await?) })
}

fn send_all(m: Arc<Mailer>, _x: Call) -> Fut {
    Box::pin(async move {
        let queued = m.send_due(SEND_ALL_CAP).await?;
        ok(json!({"ok": true, "queued": queued}))
    })
}

fn message(m: Arc<Mailer>, x: Call) -> Fut {
    Box::pin(async move { ok(m.message(x.id("id")?).await?) })
}

fn render(m: Arc<Mailer>, x: Call) -> Fut {
    Box::pin(async move {
        let data = x.body.get("data").cloned().unwrap_or_else(|| json!({}));
        let language = x.text("language").unwrap_or("en").to_owned();
        ok(m.preview(x.id("id")?, &data, &language).await?)
    })
}

pub fn routes(m: Arc<Mailer>) -> RouteBook<AppState> {
    let status = json!({"type": "object", "properties": {"ok": {"type": "boolean"}, "status": {"type": "string"}, "queued": {"type": "boolean"}}});
    #[allow(clippy::type_complexity)]
    let table: Vec<(
        &str,
        &str,
        stoa_api::call::Handler<Mailer>,
        &str,
        &str,
        Vec<&str>,
        Option<Value>,
        Value,
        &[u16],
    )> = vec![
        (
            "POST",
            "/api/notification/notifications/{id}/send",
            send,
            "notificationSend",
            "Sends a notification now: a failed one is retried from its first attempt, a scheduled one keeps its time; a sent one is left alone",
            vec!["id"],
            None,
            status,
            &[400, 401, 403, 404],
        ),
        (
            "POST",
            "/api/notification/topics/send-all",
            send_all,
            "notificationSendAll",
            "Queues every new notification that is due (at most 1000)",
            vec![],
            None,
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}, "queued": {"type": "integer"}}}),
            &[401, 403],
        ),
        (
            "GET",
            "/api/notification/notifications/{id}/message",
            message,
            "notificationMessage",
            "A notification as its recipient receives it: subject, text and HTML parts, language and links. Its one-time secrets (a code, a reset link) show only while its channel is not configured (development); otherwise they read '(sent only to the recipient)' in the mail's language",
            vec!["id"],
            None,
            json!({"type": "object", "required": ["to", "subject", "text", "html", "language", "links", "delivered"], "properties": {
                "to": {"type": "string"}, "subject": {"type": "string"}, "text": {"type": "string"}, "html": {"type": "string"},
                "language": {"type": "string"}, "links": {"type": "array", "items": {"type": "string"}},
                "delivered": {"type": "boolean", "description": "whether its channel is configured (false: it stays in the outbox)"},
                "status": {"type": ["string", "null"]}}}),
            &[400, 401, 403, 404, 409, 422],
        ),
        (
            "POST",
            "/api/notification/templates/{id}/render",
            render,
            "notificationTemplateRender",
            "Renders a template's subject and body for data in a language (the admin's preview)",
            vec!["id"],
            Some(
                json!({"type": "object", "properties": {"data": {"type": "object"}, "language": {"type": "string", "enum": stoa_kernel::model::LANGUAGES}}}),
            ),
            json!({"type": "object", "properties": {"subject": {"type": "string"}, "body": {"type": "string"}}}),
            &[400, 401, 403, 404, 422],
        ),
    ];
    let mut book = RouteBook::new();
    for (method, path, f, id, summary, params, body, result, errs) in table {
        book = book.add(Access::Admin, method, path, route(m.clone(), method, f), {
            let doc = custom(
                "notification",
                id,
                summary,
                path_params(&params),
                body,
                200,
                result,
                errs,
            );
            // Sending a notification: a tool for agents (MCP).
            if id == "notificationSend" {
                stoa_api::routes::for_agents(doc)
            } else {
                doc
            }
        });
    }
    book
}
