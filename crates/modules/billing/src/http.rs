//! Billing routes: the providers buyers may choose, provider webhooks (into the inbox), invoices
//! for an intent (admin) and replaying an inbox entry (admin).

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use stoa_api::endpoint::{Answer, ById, Endpoint, In, Json, Later, Nothing, Raw, Row};
use stoa_api::{Access, AppState, RouteBook};
use uuid::Uuid;

const TAG: &str = "billing";

use crate::provider::Ack;
use crate::service::{Billing, MAX_WEBHOOK_BODY};

fn header_pairs(h: &HeaderMap) -> Vec<(String, String)> {
    h.iter()
        .filter_map(|(k, v)| Some((k.as_str().to_ascii_lowercase(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// The provider a webhook comes from, named by the path (where other intent routes take an id).
#[derive(Deserialize, JsonSchema)]
struct FromProvider {
    /// The provider: dummy, stripe, cloudpayments…
    id: String,
}

/// The acknowledgement a provider expects, in its form: JSON or plain text, as it is (not
/// wrapped in `{data}`).
struct Acked(Ack);

impl Answer for Acked {
    type Doc = serde_json::Value;

    fn respond(self, status: StatusCode) -> Response {
        match self.0 {
            Ack::Json(v) => (status, axum::Json(v)).into_response(),
            Ack::Text(t) => (
                status,
                [(
                    axum::http::header::CONTENT_TYPE,
                    "text/plain; charset=utf-8",
                )],
                t,
            )
                .into_response(),
        }
    }

    fn document(op: &mut serde_json::Value, status: u16) {
        op["responses"][status.to_string()]["content"] = json!({
            "application/json": {"schema": {"type": "object", "description": "The acknowledgement the provider expects"}},
            "text/plain": {"schema": {"type": "string"}}
        });
    }
}

/// A payment provider's webhook: counted before its body is read (a flood costs neither memory
/// nor inbox rows), then written to the inbox as it came.
async fn webhook(
    b: Arc<Billing>,
    x: In<FromProvider, Nothing, Later<Raw<MAX_WEBHOOK_BODY>>>,
) -> stoa_kernel::Result<Acked> {
    b.limit(&x.client).await?;
    let headers = header_pairs(&x.headers);
    let Raw(body) = x.body.read().await?;
    let received = b.receive(&x.path.id, headers, &body).await?;
    Ok(Acked(received.ack))
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
        .endpoint(
            b,
            Endpoint::get(TAG, "/api/billing/providers", "billingProviders")
                .access(Access::Public)
                .summary("The payment providers buyers may choose, in the order offered, with the currencies each takes (empty: any)"),
            |b: Arc<Billing>, _: In| async move { Ok(b.offered()) },
        )
        // A provider's event may be larger than the 64 KiB of other hand-written routes (`Raw`).
        .endpoint_replying(
            b2,
            Endpoint::post(TAG, "/api/billing/payment-intents/{id}/webhook", "billingWebhook")
                .access(Access::Public)
                .summary("A payment provider's webhook (the path parameter is the provider's name): written to the inbox, verified and applied once by a job")
                .errors(&[400, 401, 404, 413, 422, 429]),
            webhook,
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
