//! crm: forms, their inputs and the requests visitors submit.
#![forbid(unsafe_code)]

pub mod http;
pub mod requests;
mod rows;
pub mod views;

use stoa_kernel::model::*;

const M: &str = "crm";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "form", "forms").content().tsd(true).build(),
            model(M, "input", "inputs")
                .content()
                .tsd(false)
                .field(
                    enumeration(
                        "type",
                        &["default", "text", "textarea", "number", "email", "tel"],
                    )
                    .required()
                    .default_text("default"),
                )
                .field(boolean("isRequired").required().default_bool(false).list())
                // Bounds of a number input (inclusive; either may be absent).
                .field(decimal("min"))
                .field(decimal("max"))
                .field(translations("placeholder"))
                .field(translations("label"))
                .variants(&[
                    "default",
                    "text-default",
                    "textarea-default",
                    "number-default",
                ])
                .build(),
            model(M, "request", "requests")
                // A visitor sent a form (outgoing webhooks).
                .signal(Signal::created("submitted"))
                .field(json("payload").required().default_json("{}"))
                // Where the admins stand with it: new, being answered, done.
                .field(
                    enumeration("status", REQUEST_STATUSES)
                        .required()
                        .default_text("new")
                        .list(),
                )
                // The sender's address (the form's email input, else the signed-in sender's):
                // what a reply goes to, and what the inbox is searched by.
                .field(text("email").max_len(320).list().searchable())
                // The sender's language, which a reply's mail is in.
                .field(text("language").max_len(10))
                // The admins' own note; never shown to the sender.
                .field(text("note").max_len(10_000).unsorted())
                .private()
                .build(),
            stoa_kernel::model::widget_model(M)
                .variants(&["default", "form-list-default"])
                .build(),
            relation(
                M,
                "forms-to-inputs",
                ("formId", "crm.form"),
                ("inputId", "crm.input"),
            )
            .build(),
            relation(
                M,
                "forms-to-requests",
                ("formId", "crm.form"),
                ("requestId", "crm.request"),
            )
            .build(),
            relation(
                M,
                "widgets-to-forms",
                ("widgetId", "crm.widget"),
                ("formId", "crm.form"),
            )
            .build(),
        ],
    }
}

/// Where the admins stand with a submission.
pub const REQUEST_STATUSES: &[&str] = &["new", "in_progress", "done"];

/// The module: declarations, the public and signed-in form submissions, and their mail.
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        // The kinds of this module's own mail templates.
        .variants(
            "notification.template",
            &[
                "generate-email-crm-form-requests-digest-admin",
                "crm-form-request-received",
                "crm-form-request-reply",
            ],
        )
        .setup(|ctx| {
            let requests = requests::Requests::new(
                ctx.store.clone(),
                ctx.need::<stoa_notification::mail::Mailer>()?,
                ctx.need::<stoa_rbac::subjects::Subjects>()?,
                ctx.config.telegram_admin_chat.clone(),
                ctx.config.default_language.clone(),
                ctx.config.public_url(),
            );
            ctx.provide(std::sync::Arc::new(requests));
            Ok(())
        })
        .routes(|ctx| {
            let per_minute = ctx.config.form_rate.max(1);
            let shared = stoa_store::cluster::Shared::of(&ctx.store.db);
            Ok(http::routes(
                ctx.need::<requests::Requests>()?,
                http::Limits {
                    sender: stoa_api::rate::Budget::new(
                        per_minute,
                        std::time::Duration::from_secs(60),
                        "form requests per sender",
                        shared.clone().map(|s| (s, "crm.sender")),
                    ),
                    form: stoa_api::rate::Budget::new(
                        per_minute.saturating_mul(20),
                        std::time::Duration::from_secs(60),
                        "form requests per form",
                        shared.map(|s| (s, "crm.form")),
                    ),
                },
            ))
        })
        .seed(stoa_notification::mail::templates_seed(
            "crm.templates.v1",
            requests::templates,
        ))
        .seed(stoa_notification::mail::templates_seed(
            "crm.templates.v2",
            requests::digest_templates,
        ))
        .seed(stoa_notification::mail::templates_seed(
            "crm.templates.v3",
            requests::reply_templates,
        ))
        .seed(|ctx| Box::pin(requests::update_received(&ctx.store)))
}
