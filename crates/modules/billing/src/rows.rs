//! The records the billing logic reads, as typed rows: each field named once with its column (a
//! test holds them against the declarations). Public: a module above billing that is handed
//! billing's records (ecommerce: intents, invoices, currencies) reads them through these.

use rust_decimal::Decimal;
use serde_json::Value;
use uuid::Uuid;

stoa_store::typed_row! {
    /// An invoice as the checks, the inbox and the settlement read it.
    pub struct InvoiceRow for "billing.invoice" {
        id: Uuid = "id",
        status: Option<String> = "status",
        provider: Option<String> = "provider",
        /// The provider's reference of the payment.
        provider_id: Option<String> = "providerId",
        amount: Option<Decimal> = "amount",
        success_url: Option<String> = "successUrl",
        /// The provider's page the payer pays on.
        payment_url: Option<String> = "paymentUrl",
        cancel_url: Option<String> = "cancelUrl",
        created_at: Option<String> = "createdAt",
        updated_at: Option<String> = "updatedAt",
    }
}

stoa_store::typed_row! {
    /// A payment intent, as an invoice is made for it and a payment succeeds it.
    pub struct IntentRow for "billing.payment-intent" {
        id: Uuid = "id",
        status: Option<String> = "status",
        amount: Option<Decimal> = "amount",
        /// `one_off` or `subscription`
        kind: Option<String> = "type",
        interval: Option<String> = "interval",
        created_at: Option<String> = "createdAt",
    }
}

stoa_store::typed_row! {
    /// An inbox entry, as its job verifies and applies it.
    pub struct WebhookRow for "billing.webhook" {
        status: Option<String> = "status",
        provider: Option<String> = "provider",
        dedupe_key: Option<String> = "dedupeKey",
        body: Option<String> = "body",
        headers: Option<Value> = "headers",
    }
}

stoa_store::typed_row! {
    /// A currency, as a payment's is checked and a price shows it.
    pub struct CurrencyRow for "billing.currency" {
        id: Uuid = "id",
        slug: Option<String> = "slug",
        symbol: Option<String> = "symbol",
        title: Option<String> = "title",
        is_default: Option<bool> = "isDefault",
    }
}

stoa_store::typed_row! {
    /// An intent's link to one of its invoices.
    pub struct IntentInvoiceRow for "billing.payment-intents-to-invoices" {
        payment_intent_id: Option<Uuid> = "paymentIntentId",
        invoice_id: Option<Uuid> = "invoiceId",
    }
}

stoa_store::rows_declared!(
    [crate::declarations()],
    InvoiceRow,
    IntentRow,
    WebhookRow,
    CurrencyRow,
    IntentInvoiceRow,
);
