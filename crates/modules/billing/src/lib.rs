//! billing: currencies, payment intents and invoices.
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "billing";

pub const PROVIDERS: &[&str] = &[
    "dummy",
    "stripe",
    "cloudpayments",
    "tiptoppay",
    "payselection",
    "payselection-international",
    "paykeeper",
    "0xprocessing",
];

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        entities: vec![
            model(M, "currency", "currencies")
                .admin_title()
                .field(slug_field())
                .field(boolean("isDefault").required().default_bool(false).list())
                .field(text("symbol").required().max_len(16).list())
                .field(text("title").required().max_len(200).list().searchable())
                .build(),
            model(M, "invoice", "invoices")
                .field(
                    enumeration(
                        "status",
                        &["draft", "open", "paid", "uncollectible", "void", "failed"],
                    )
                    .required()
                    .default_text("draft")
                    .list(),
                )
                .field(text("paymentUrl").required().default_text("").max_len(4000))
                .field(text("successUrl").required().default_text("").max_len(4000))
                .field(text("cancelUrl").required().default_text("").max_len(4000))
                .field(decimal("amount").required().default_text("0").list())
                .field(text("providerId").max_len(500).searchable())
                .field(
                    enumeration("provider", PROVIDERS)
                        .required()
                        .default_text("dummy")
                        .list(),
                )
                .private()
                .build(),
            model(M, "payment-intent", "payment-intents")
                .field(decimal("amount").required().default_text("0").list())
                .field(
                    enumeration(
                        "status",
                        &[
                            "processing",
                            "requires_action",
                            "requires_capture",
                            "requires_confirmation",
                            "requires_payment_method",
                            "succeeded",
                            "canceled",
                            "failed",
                        ],
                    )
                    .required()
                    .default_text("requires_payment_method")
                    .list(),
                )
                .field(enumeration("interval", &["day", "week", "month", "year"]))
                .field(
                    enumeration("type", &["one_off", "subscription"])
                        .required()
                        .default_text("one_off")
                        .list(),
                )
                .private()
                .build(),
            model(M, "widget", "widgets")
                .admin_title()
                .field(slug_field())
                .tsd(false)
                .build(),
            relation(
                M,
                "payment-intents-to-currencies",
                ("paymentIntentId", "billing.payment-intent"),
                ("currencyId", "billing.currency"),
            )
            .build(),
            relation(
                M,
                "payment-intents-to-invoices",
                ("paymentIntentId", "billing.payment-intent"),
                ("invoiceId", "billing.invoice"),
            )
            .build(),
        ],
    }
}

/// The module: its declarations (no custom behaviour yet).
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
}
