//! What the ecommerce routes take and answer, as types: the cart, checkout and reports read these
//! bodies and return these views, and the OpenAPI document describes both from the same
//! declarations. A `title` names the component the document declares (`EcommerceOrderView`,
//! `EcommerceCheckoutResult`…); the rest are named after their operation.

use std::borrow::Cow;

use rust_decimal::Decimal;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use stoa_api::endpoint::{Extended, More, Row};
use uuid::Uuid;

use crate::orders::{MAX_CHECKOUT_ORDERS, MAX_QUANTITY};
use crate::prices::Currency;

stoa_api::component!(
    EcommerceOrder,
    EcommerceOrdersToProducts,
    EcommerceOrderStatusChange,
    BillingPaymentIntent,
    BillingInvoice,
    Translations
);

// ---- small shared shapes --------------------------------------------------------------------

/// An exact amount, written as its shortest decimal (`"12.5"`, never a float).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Amount(pub Decimal);

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.normalize().to_string())
    }
}

impl JsonSchema for Amount {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Amount".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "decimal"})
    }
}

/// An order's status: one of [`crate::ORDER_STATUSES`].
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct Status(pub String);

impl JsonSchema for Status {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "EcommerceOrderStatusName".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": crate::ORDER_STATUSES})
    }
}

/// Where an invoice stands.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InvoiceState {
    Draft,
    Open,
    Paid,
    Uncollectible,
    Void,
    Failed,
}

impl InvoiceState {
    /// The state an invoice row's `status` names (`None` for a name that is not one).
    pub fn of(status: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(status.to_owned())).ok()
    }
}

// ---- answers ----------------------------------------------------------------------------------

/// An amount in a currency.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "EcommerceMoney")]
pub struct Money {
    pub total: Amount,
    pub billing_module_currency: Currency,
}

/// The product a line holds, as the cart shows it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "EcommerceProductCard")]
pub struct ProductCard {
    pub id: Uuid,
    pub slug: Option<String>,
    pub title: Option<Row<Translations>>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub admin_title: Option<String>,
}

/// What a line adds to its record: its product and its total per currency.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LineMore {
    pub product: Option<ProductCard>,
    /// Per currency the product is priced in
    pub total: Vec<Money>,
}

/// A line of an order: its record, product and totals.
pub type LineView = Extended<EcommerceOrdersToProducts, LineMore>;

/// What an order's view adds to its record.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceOrderView",
    description = "An order with its lines (product, total per currency), currency, totals and checkout total"
)]
pub struct OrderMore {
    pub orders_to_products: Vec<LineView>,
    pub billing_module_currency: Option<Currency>,
    /// Per currency the products are priced in
    pub total: Vec<Money>,
    /// What checkout charges in the order's currency
    pub checkout_total: Option<Amount>,
}

/// An order with its lines, currency, totals and checkout total.
pub type OrderView = Extended<EcommerceOrder, OrderMore>;

/// A change of an order's status as its buyer sees it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceOrderStep",
    description = "A change of the order's status: when, from and to (who and why stay with the admins)"
)]
pub struct OrderStep {
    pub id: Uuid,
    pub created_at: String,
    pub from: String,
    pub to: String,
}

/// One of an order's invoices as its buyer sees it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceOrderPayment",
    description = "One of an order's invoices as its buyer sees it"
)]
pub struct Payment {
    pub id: Uuid,
    pub status: InvoiceState,
    pub provider: Option<String>,
    /// In the order's currency
    pub amount: Amount,
    pub created_at: Option<String>,
    /// The provider's page to pay on, while the invoice is open
    pub payment_url: Option<String>,
}

/// What the buyer's view of an order adds to the order's view.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceOwnerOrder",
    description = "One of the buyer's orders: the order view, its status history, its payments and its receipt"
)]
pub struct OwnerMore {
    pub status_changes: Vec<OrderStep>,
    pub payments: Vec<Payment>,
    /// The receipt's image, once the order is paid
    pub receipt_url: Option<String>,
}

/// One of the buyer's orders.
pub type OwnerOrder = More<OrderView, OwnerMore>;

/// What the admins' view of an order adds to the order's view.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceOrderDetails",
    description = "An order for administrators: the order view, payment intents, invoices, status history and the statuses it may move to"
)]
pub struct DetailsMore {
    pub payment_intents: Vec<Row<BillingPaymentIntent>>,
    pub invoices: Vec<Row<BillingInvoice>>,
    pub status_changes: Vec<Row<EcommerceOrderStatusChange>>,
    pub next_statuses: Vec<Status>,
}

/// An order for administrators.
pub type OrderDetails = More<OrderView, DetailsMore>;

/// The open cart orders payable in one currency.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceCartGroup",
    description = "The open cart orders payable in one currency"
)]
pub struct CartGroup {
    pub billing_module_currency: Currency,
    pub total: Amount,
    pub orders: Vec<OrderView>,
}

/// An invoice a checkout opened.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "EcommerceCheckoutInvoice",
    description = "An invoice to pay: open paymentUrl"
)]
pub struct CheckoutInvoice {
    pub id: Uuid,
    pub status: Option<String>,
    pub provider: Option<String>,
    pub amount: Amount,
    /// The currency's slug
    pub currency: String,
    pub payment_url: Option<String>,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CheckoutInvoices {
    pub invoices: Vec<CheckoutInvoice>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CheckoutOrders {
    /// The orders checked out
    pub orders: Vec<Uuid>,
}

/// What a checkout answers: the invoices to pay and the orders they pay.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "EcommerceCheckoutResult")]
pub struct CheckoutResult {
    pub billing_module: CheckoutInvoices,
    pub ecommerce_module: CheckoutOrders,
}

/// Paid orders and revenue of one currency on one day.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DayFigure {
    #[schemars(with = "String", extend("format" = "date"))]
    pub day: String,
    pub currency: String,
    pub orders: i64,
    pub revenue: Amount,
}

/// Paid orders and revenue of one currency over the window.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CurrencyFigure {
    pub currency: String,
    pub orders: i64,
    pub revenue: Amount,
}

/// The admin dashboard's figures.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(title = "EcommerceOrderStats")]
pub struct OrderStats {
    pub days: Vec<DayFigure>,
    pub totals: Vec<CurrencyFigure>,
    pub currencies: Vec<Currency>,
}

/// What the admins' list shows beside an order.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "EcommerceOrderSummary")]
pub struct OrderSummary {
    pub id: Uuid,
    /// What checkout charges in the order's currency
    pub checkout_total: Option<Amount>,
    pub billing_module_currency: Option<Currency>,
    /// Per currency the products are priced in
    pub total: Vec<Money>,
    /// The latest invoice's payment provider
    pub provider: Option<String>,
    pub payment_status: Option<InvoiceState>,
    /// The buyer's account
    pub subject_id: Option<Uuid>,
    /// The order's address, else the buyer's account's
    pub email: Option<String>,
}

/// An order's amount, product type and interval in a currency (DOMAIN's checkout-attributes).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(title = "EcommerceCheckoutAttributes")]
pub struct CheckoutAttributes {
    pub amount: Amount,
    /// The products' type (`one_off` or `subscription`)
    #[serde(rename = "type")]
    pub kind: String,
    /// A subscription's interval
    pub interval: Option<String>,
}

/// Where an order stood and stands after a check.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Checked {
    pub ok: bool,
    /// The order's status after the check
    pub status: Status,
}

/// What clearing old carts removed.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Cleared {
    pub ok: bool,
    /// Abandoned cart orders deleted
    pub removed: u64,
}

/// The roles a check of a subject's orders granted and revoked.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RolesChecked {
    pub ok: bool,
    pub granted: usize,
    pub revoked: usize,
}

/// One of the subject's subscription orders an enforcement looked at.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Enforced {
    pub id: Uuid,
    pub from: Status,
    pub status: Status,
    /// The end of the paid period
    pub paid_until: Option<String>,
}

/// What enforcing a product on a subject did.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Enforcement {
    pub orders: Vec<Enforced>,
}

// ---- bodies -----------------------------------------------------------------------------------

/// `{id}`: an order, a currency.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct IdRef {
    pub id: Uuid,
}

/// The currency to pay in.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[schemars(description = "The currency to pay in (the product's default when absent)")]
pub struct CurrencyPick {
    pub currency: Option<IdRef>,
}

/// A product into the cart.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddToCart {
    pub product_id: Uuid,
    #[schemars(range(min = 1, max = MAX_QUANTITY))]
    pub quantity: Option<i64>,
    pub store_id: Option<Uuid>,
    pub billing_module: Option<CurrencyPick>,
    /// The currency to pay in (as `billingModule.currency.id`)
    pub billing_module_currency_id: Option<Uuid>,
    #[schemars(length(max = 10_000))]
    pub comment: Option<String>,
}

impl AddToCart {
    /// The currency named, either way.
    pub fn currency(&self) -> Option<Uuid> {
        self.billing_module
            .as_ref()
            .and_then(|b| b.currency.as_ref())
            .map(|c| c.id)
            .or(self.billing_module_currency_id)
    }
}

/// The language of an order's mail and receipt.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    En,
    Ru,
}

impl Language {
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Ru => "ru",
        }
    }
}

/// Which cart orders to check out.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[schemars(description = "Which cart orders to check out (all open ones when absent)")]
pub struct OrdersPick {
    #[schemars(length(max = MAX_CHECKOUT_ORDERS))]
    pub orders: Option<Vec<IdRef>>,
}

/// How an order is paid: the provider, and the buyer's address, comment and language.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct Payer {
    /// The payment provider (one the billing module offers)
    pub provider: String,
    /// Where the invoice and the order's mail go
    #[schemars(email, length(max = 320))]
    pub email: Option<String>,
    #[schemars(length(max = 10_000))]
    pub comment: Option<String>,
    pub language: Option<Language>,
}

/// A checkout of the cart.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutBody {
    #[serde(flatten)]
    pub payer: Payer,
    pub ecommerce_module: Option<OrdersPick>,
}

/// A product bought at once: how it is paid, and what the cart would take.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuyNow {
    /// The payment provider (one the billing module offers)
    pub provider: String,
    /// Where the invoice and the order's mail go
    #[schemars(email, length(max = 320))]
    pub email: Option<String>,
    #[schemars(length(max = 10_000))]
    pub comment: Option<String>,
    /// The language of the order's mail (en or ru; the site's otherwise)
    pub language: Option<String>,
    #[schemars(range(min = 1, max = MAX_QUANTITY))]
    pub quantity: Option<i64>,
    pub store_id: Option<Uuid>,
    pub billing_module: Option<CurrencyPick>,
    /// The currency to pay in (as `billingModule.currency.id`)
    pub billing_module_currency_id: Option<Uuid>,
}

impl BuyNow {
    pub fn payer(&self) -> Payer {
        Payer {
            provider: self.provider.clone(),
            email: self.email.clone(),
            comment: self.comment.clone(),
            language: self.language.as_deref().and_then(|l| match l {
                "en" => Some(Language::En),
                "ru" => Some(Language::Ru),
                _ => None,
            }),
        }
    }

    pub fn cart(&self, product: Uuid) -> AddToCart {
        AddToCart {
            product_id: product,
            quantity: self.quantity,
            store_id: self.store_id,
            billing_module: self.billing_module.clone(),
            billing_module_currency_id: self.billing_module_currency_id,
            comment: self.comment.clone(),
        }
    }
}

/// A line's new quantity.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct LineQuantity {
    pub id: Uuid,
    #[schemars(range(min = 1, max = MAX_QUANTITY))]
    pub quantity: i64,
}

/// New quantities of an order's lines.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lines {
    #[schemars(length(max = 100))]
    pub orders_to_products: Vec<LineQuantity>,
}

/// A line's quantity (nothing else of a line changes here).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetLine {
    #[schemars(range(min = 1, max = MAX_QUANTITY))]
    pub quantity: i64,
}

/// An admin's correction of an order's status.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct Override {
    #[schemars(with = "Status")]
    pub status: String,
    /// Why the order is corrected (recorded)
    #[schemars(length(min = 3, max = 2000))]
    pub reason: String,
}
