//! billing: currencies, payment intents and invoices, the webhook inbox and the providers.
#![forbid(unsafe_code)]

pub mod guards;
pub mod http;
pub mod mail;
pub mod provider;
pub mod rows;
pub mod service;

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

/// The link billing owns under rbac's name (the original's table and route): which subject a
/// payment intent is for. Billing declares it; rbac names no billing entity.
pub fn rbac_links() -> Module {
    Module {
        name: "rbac",
        words: include_str!("rbac-links.toml"),
        entities: vec![
            relation(
                "rbac",
                "subjects-to-billing-module-payment-intents",
                ("subjectId", "rbac.subject"),
                ("billingModulePaymentIntentId", "billing.payment-intent"),
            )
            .follows_guest()
            .build(),
        ],
    }
}

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "currency", "currencies")
                .admin_title()
                .field(slug_field())
                .field(boolean("isDefault").required().default_bool(false).list())
                .field(text("symbol").required().max_len(16).list())
                .field(text("title").required().max_len(200).list().searchable())
                .build(),
            model(M, "invoice", "invoices")
                .signal(Signal::moved("paid", "status", &[], &["paid"]))
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
                // An opaque reference, looked up whole (webhooks, the admin's search): an index on
                // the value, not a substring search index (each of a random token's trigrams was
                // a term the search index kept, written at every payment).
                .field(text("providerId").max_len(500).search_whole())
                .field(
                    enumeration("provider", PROVIDERS)
                        .required()
                        .default_text("dummy")
                        .list(),
                )
                // A provider's webhook finds its invoice by the provider's reference and the
                // provider: through either list index alone it read every invoice of the provider.
                .lookup(&["providerId", "provider"])
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
                .field(enumeration(
                    "interval",
                    &["minute", "hour", "day", "week", "month", "year"],
                ))
                .field(
                    enumeration("type", &["one_off", "subscription"])
                        .required()
                        .default_text("one_off")
                        .list(),
                )
                .private()
                .build(),
            model(M, "webhook", "webhooks")
                .field(enumeration("provider", PROVIDERS).required().list())
                // Looked up whole, through its list index (see `providerId`).
                .field(text("eventKey").required().max_len(300).search_whole())
                .field(text("dedupeKey").required().unique().max_len(400))
                .field(text("body").required().max_len(service::MAX_WEBHOOK_BODY))
                .field(json("headers"))
                .field(
                    enumeration(
                        "status",
                        &["received", "processed", "ignored", "rejected", "failed"],
                    )
                    .required()
                    .default_text("received")
                    .list(),
                )
                .field(boolean("verified").list())
                .field(uuid("invoiceId").list())
                // Shown, not sorted on: no index for free text written at every webhook.
                .field(text("result").max_len(2000).unsorted())
                .field(timestamp("processedAt").list())
                .title("eventKey")
                .private()
                .read_only()
                .build(),
            stoa_kernel::model::plain_widget(M),
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

/// The module: declarations, the billing service (intents, invoices, providers, the webhook
/// inbox), its routes and jobs.
// long: the module's contract (declarations, services, routes, jobs, schedules), one entry after another.
pub fn module() -> stoa_api::module::ModuleDef {
    use std::sync::Arc;
    use stoa_api::module::JobDef;
    stoa_api::module::ModuleDef::new(declarations())
        // The kinds of this module's own mail templates.
        .variants("notification.template", &["billing-payment-mismatch-admin"])
        .links(rbac_links())
        .setup(|ctx| {
            let billing = service::Billing::new(ctx.store.clone(), &ctx.config)?;
            ctx.store
                .guard("billing.invoice", Arc::new(guards::INVOICE));
            ctx.store
                .guard("billing.payment-intent", Arc::new(guards::INTENT));
            ctx.provide(Arc::new(billing));
            Ok(())
        })
        .routes(|ctx| Ok(http::routes(ctx.need::<service::Billing>()?)))
        .job(
            JobDef::new(service::JOB_WEBHOOK, |ctx, payload| async move {
                let b = ctx.need::<service::Billing>()?;
                b.process_job(&payload).await
            })
            .attempts(8)
            .backoff(
                std::time::Duration::from_secs(5),
                std::time::Duration::from_secs(600),
            ),
        )
        .job(
            JobDef::new(service::JOB_DUMMY_PAY, |ctx, payload| async move {
                let b = ctx.need::<service::Billing>()?;
                b.dummy_pay(&payload).await
            })
            .attempts(5)
            .backoff(
                std::time::Duration::from_secs(2),
                std::time::Duration::from_secs(60),
            ),
        )
        .job(
            JobDef::new(service::JOB_INBOX_SWEEP, |ctx, _| async move {
                let b = ctx.need::<service::Billing>()?;
                b.sweep_inbox().await.map(|_| ()).map_err(Into::into)
            })
            .background(),
        )
        .schedule(
            service::JOB_INBOX_SWEEP,
            service::INBOX_STALE,
            serde_json::json!({}),
        )
        .job(
            JobDef::new(service::JOB_INBOX_RETENTION, |ctx, _| async move {
                let b = ctx.need::<service::Billing>()?;
                b.expire_inbox().await.map(|_| ()).map_err(Into::into)
            })
            .background(),
        )
        .schedule(
            service::JOB_INBOX_RETENTION,
            std::time::Duration::from_secs(3600),
            serde_json::json!({}),
        )
        .job(
            JobDef::new(service::JOB_CHECK, |ctx, payload| async move {
                let b = ctx.need::<service::Billing>()?;
                b.check_job(&payload).await
            })
            // About a day of asking: 15 min, 30 min, 1 h, then every 2 h.
            .attempts(14)
            .backoff(
                service::CHECK_AFTER,
                std::time::Duration::from_secs(2 * 3600),
            ),
        )
        .job(
            JobDef::new(service::JOB_ALERT, |ctx, payload| async move {
                let subjects = ctx.need::<stoa_rbac::subjects::Subjects>()?;
                let mailer = ctx.need::<stoa_notification::mail::Mailer>()?;
                mail::alert(
                    &subjects,
                    &mailer,
                    &ctx.config.default_language,
                    &ctx.config.public_url(),
                    &payload,
                )
                .await
                .map(|_| ())
                .map_err(Into::into)
            })
            .attempts(5)
            .background(),
        )
        .seed(stoa_notification::mail::templates_seed(
            "billing.templates.v1",
            mail::templates,
        ))
}
