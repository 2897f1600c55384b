//! Billing routes: the providers buyers may choose, provider webhooks (into the inbox), invoices
//! for an intent (admin) and replaying an inbox entry (admin).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Request};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use stoa_api::crud::data;
use stoa_api::endpoint::{ById, Endpoint, In, Json, Nothing, Row};
use stoa_api::openapi::custom;
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use uuid::Uuid;

const TAG: &str = "billing";

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

/// A payment intent and a provider, named by the path.
#[derive(Deserialize, JsonSchema)]
pub struct IntentProvider {
    pub id: Uuid,
    /// An allowed provider.
    pub provider: String,
}

/// What a new invoice for an intent may carry.
#[derive(Deserialize, JsonSchema)]
pub struct InvoiceBody {
    pub metadata: Option<InvoiceMetadata>,
    /// The receipt's address, when `metadata.email` is not given.
    #[schemars(extend("format" = "email"))]
    pub email: Option<String>,
}

/// The invoice's metadata.
#[derive(Deserialize, JsonSchema)]
pub struct InvoiceMetadata {
    /// The receipt's address (some providers require one).
    #[schemars(extend("format" = "email"))]
    pub email: Option<String>,
}

stoa_api::component!(BillingInvoice, BillingPaymentIntent, BillingWebhook);

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
        .endpoint(
            b4,
            Endpoint::post(TAG, "/api/billing/payment-intents/{id}/{provider}", "billingIntentInvoice")
                .status(201)
                .summary("Admin: a new invoice for a payment intent with a provider (after a provider failed to start the payment); refused while another invoice of the intent is open or paid")
                .errors(&[400, 401, 403, 404, 409, 422, 503]),
            |b: Arc<Billing>, x: In<IntentProvider, Nothing, Json<InvoiceBody>>| async move {
                let Json(body) = x.body;
                let email = body.metadata.and_then(|m| m.email).or(body.email);
                let row = b.invoice_for(x.path.id, &x.path.provider, email.as_deref()).await?;
                Ok(Row::<BillingInvoice>::new(row.to_json()))
            },
        )
        .endpoint(
            b5,
            Endpoint::post(TAG, "/api/billing/payment-intents/{id}/check", "billingIntentCheck")
                .summary("Admin: asks the providers' status APIs about the intent's open invoices (Stripe, CloudPayments, TipTopPay, PayKeeper); a payment they report is applied once, like its webhook")
                .errors(&[400, 401, 403, 404, 503]),
            |b: Arc<Billing>, x: In<ById>| async move {
                Ok(Row::<BillingPaymentIntent>::new(b.check(x.path.id).await?.to_json()))
            },
        )
        .endpoint(
            b3,
            Endpoint::post(TAG, "/api/billing/webhooks/{id}/replay", "billingWebhookReplay")
                .summary("Admin: processes an inbox entry again (an invoice already paid stays paid once)")
                .errors(&[400, 401, 403, 404]),
            |b: Arc<Billing>, x: In<ById>| async move {
                Ok(Row::<BillingWebhook>::new(b.replay(x.path.id).await?.to_json()))
            },
        )
}
