//! Billing routes: the providers buyers may choose, provider webhooks (into the inbox), invoices
//! for an intent (admin) and replaying an inbox entry (admin).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use stoa_api::crud::{data, parse_id};
use stoa_api::openapi::{custom, path_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};

use crate::provider::Ack;
use crate::service::{Billing, MAX_WEBHOOK_BODY};

fn header_pairs(h: &HeaderMap) -> Vec<(String, String)> {
    h.iter()
        .filter_map(|(k, v)| Some((k.as_str().to_ascii_lowercase(), v.to_str().ok()?.to_owned())))
        .collect()
}

async fn webhook(b: Arc<Billing>, provider: String, req: Request) -> ApiResult<Response> {
    // Before the body is read: a flood costs neither memory nor inbox rows.
    b.limit(&stoa_api::rate::client_ip(&req)).await?;
    let headers = header_pairs(req.headers());
    let body: Bytes = stoa_api::body::read(req.into_body(), MAX_WEBHOOK_BODY).await?;
    let received = b.receive(&provider, headers, &body).await?;
    Ok(match received.ack {
        Ack::Json(v) => (StatusCode::OK, axum::Json(v)).into_response(),
        Ack::Text(t) => (
            StatusCode::OK,
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; charset=utf-8",
            )],
            t,
        )
            .into_response(),
    })
}

async fn check(b: Arc<Billing>, id: String) -> ApiResult<Response> {
    let row = b.check(parse_id(&id)?).await?;
    Ok(data(StatusCode::OK, row))
}

async fn invoice(
    b: Arc<Billing>,
    id: String,
    provider: String,
    req: Request,
    limits: stoa_api::body::Limits,
) -> ApiResult<Response> {
    let body = stoa_api::body::object_or_empty(req, limits).await?;
    let row = b.invoice_for(parse_id(&id)?, &provider, &body).await?;
    Ok(data(StatusCode::CREATED, row))
}

async fn replay(b: Arc<Billing>, id: String) -> ApiResult<Response> {
    let row = b.replay(parse_id(&id)?).await?;
    Ok(data(StatusCode::OK, row))
}

pub fn routes(billing: Arc<Billing>) -> RouteBook<AppState> {
    let b = billing.clone();
    let b2 = billing.clone();
    let b3 = billing.clone();
    let b4 = billing.clone();
    let b5 = billing;
    RouteBook::new()
        .add(
            Access::Public,
            "GET",
            "/api/billing/providers",
            get(move || {
                let b = b.clone();
                async move { data(StatusCode::OK, b.offered()) }
            }),
            custom(
                "billing",
                "billingProviders",
                "The payment providers buyers may choose, in the order offered, with the currencies each takes (empty: any)",
                vec![],
                None,
                200,
                json!({"type": "array", "items": {
                    "type": "object",
                    "required": ["provider", "currencies", "statusApi"],
                    "properties": {
                        "provider": {"type": "string"},
                        "currencies": {"type": "array", "items": {"type": "string"}},
                        "statusApi": {"type": "boolean", "description": "whether open invoices are checked against the provider's status API"},
                        "widget": {
                            "type": "object",
                            "description": "the provider's own card widget, opened over the page (CloudPayments, TipTopPay)",
                            "required": ["script", "publicId", "global"],
                            "properties": {
                                "script": {"type": "string", "description": "the widget script's URL"},
                                "publicId": {"type": "string", "description": "the public id the widget takes"},
                                "global": {"type": "string", "enum": ["cp.CloudPayments", "tiptop.Widget"], "description": "the constructor the script defines"}
                            }
                        }
                    }
                }}),
                &[],
            ),
        )
        .add(
            Access::Public,
            "POST",
            "/api/billing/payment-intents/{id}/webhook",
            post(move |Path(provider): Path<String>, req: Request| webhook(b2.clone(), provider, req)),
            {
                let mut op = custom(
                    "billing",
                    "billingWebhook",
                    "A payment provider's webhook (the path parameter is the provider's name): written to the inbox, verified and applied once by a job",
                    vec![json!({"name": "id", "in": "path", "required": true, "description": "the provider: dummy, stripe, cloudpayments…", "schema": {"type": "string"}})],
                    Some(json!({"type": "object"})),
                    200,
                    json!({"type": "object"}),
                    &[400, 401, 404, 413, 422, 429],
                );
                // A provider's event may be larger than the 64 KiB of other hand-written routes.
                op["x-body-limit"] = json!(crate::service::MAX_WEBHOOK_BODY);
                op
            },
        )
        .add(
            Access::Admin,
            "POST",
            "/api/billing/payment-intents/{id}/{provider}",
            post(
                move |Path((id, provider)): Path<(String, String)>,
                      State(s): State<AppState>,
                      req: Request| invoice(b4.clone(), id, provider, req, s.limits),
            ),
            custom(
                "billing",
                "billingIntentInvoice",
                "Admin: a new invoice for a payment intent with a provider (after a provider failed to start the payment); refused while another invoice of the intent is open or paid",
                vec![
                    json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}}),
                    json!({"name": "provider", "in": "path", "required": true, "description": "an allowed provider", "schema": {"type": "string"}}),
                ],
                Some(json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}}}})),
                201,
                json!({"$ref": "#/components/schemas/BillingInvoice"}),
                &[400, 401, 403, 404, 409, 422, 503],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/billing/payment-intents/{id}/check",
            post(move |Path(id): Path<String>| check(b5.clone(), id)),
            custom(
                "billing",
                "billingIntentCheck",
                "Admin: asks the providers' status APIs about the intent's open invoices (Stripe, CloudPayments, TipTopPay, PayKeeper); a payment they report is applied once, like its webhook",
                path_params(&["id"]),
                None,
                200,
                json!({"$ref": "#/components/schemas/BillingPaymentIntent"}),
                &[400, 401, 403, 404, 503],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/billing/webhooks/{id}/replay",
            post(move |Path(id): Path<String>, State(_s): State<AppState>| replay(b3.clone(), id)),
            custom(
                "billing",
                "billingWebhookReplay",
                "Admin: processes an inbox entry again (an invoice already paid stays paid once)",
                path_params(&["id"]),
                None,
                200,
                json!({"$ref": "#/components/schemas/BillingWebhook"}),
                &[400, 401, 403, 404],
            ),
        )
}
