//! notification: topics, templates and the notifications sent through them.
#![forbid(unsafe_code)]

pub mod compose;
pub mod http;
pub mod mail;
pub mod rows;
pub mod telegram;
pub mod views;

use stoa_kernel::model::*;

const M: &str = "notification";

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "notification", "notifications")
                .field(
                    enumeration("status", &["new", "sent", "read", "failed"])
                        .required()
                        .default_text("new")
                        .list(),
                )
                .field(
                    enumeration("method", &["email", "telegram"])
                        .required()
                        .default_text("email")
                        .list(),
                )
                .field(text("title").max_len(1000).list().searchable())
                .field(json("data"))
                .field(text("reciever").required().max_len(320).list().searchable())
                .field(json("attachments"))
                .field(text("language").max_len(10))
                .field(text("error").max_len(2000))
                .field(text("secretData").secret())
                .field(timestamp("sendAfter").required().default_now().list())
                .field(int("attempts").required().default_int(0))
                // The emails a delivery takes along: new, never tried, due, oldest first. Read
                // through the index, it stops at the batch; through any one field's, it read
                // every notification ever sent (every mail, 18 % of the server's CPU in a burst
                // of paid orders, and growing with the outbox).
                .lookup(&["status", "method", "attempts", "sendAfter"])
                .title("title")
                .private()
                .build(),
            model(M, "template", "templates")
                .admin_title()
                .field(slug_field())
                .field(text("title").max_len(1000))
                .field(translations("subject"))
                .field(translations("body"))
                // The original's kinds of template. Modules add their own mails' kinds
                // (`ModuleDef::variants`), so this list names no module of ours above it.
                .variants(&[
                    "default",
                    "generate-email-ecommerce-order-status-changed-default",
                    "generate-telegram-ecommerce-order-status-changed-default",
                    "generate-telegram-ecommerce-order-status-changed-admin",
                    "reset-password",
                    "generate-email-agent-result-admin",
                    "generate-email-crm-form-request-created-admin",
                    "generate-telegram-crm-form-request-created-admin",
                    "for-planet-order-receipt",
                ])
                .private()
                .build(),
            model(M, "topic", "topics")
                .admin_title()
                .field(slug_field())
                .field(text("title").required().max_len(500).searchable())
                .field(
                    enumeration("type", &["info", "security", "error"])
                        .required()
                        .default_text("info")
                        .list(),
                )
                .private()
                .build(),
            stoa_kernel::model::plain_widget(M),
            relation(
                M,
                "notifications-to-templates",
                ("notificationId", "notification.notification"),
                ("templateId", "notification.template"),
            )
            .build(),
            relation(
                M,
                "topics-to-notifications",
                ("topicId", "notification.topic"),
                ("notificationId", "notification.notification"),
            )
            .build(),
        ],
    }
}

/// The module: declarations, the mailer (a service for other modules) and the mail templates.
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        .setup(|ctx| {
            let mailer = mail::Mailer::new(
                ctx.store.clone(),
                &mail::MailConfig {
                    smtp_url: ctx.config.smtp_url.clone(),
                    from: ctx.config.mail_from.clone(),
                    telegram: ctx.config.telegram_bot_token.clone().map(|token| {
                        telegram::TelegramConfig {
                            token,
                            api_url: ctx.config.telegram_api_url.clone(),
                        }
                    }),
                    attempts: ctx.config.notify_attempts,
                    backoff: std::time::Duration::from_secs(ctx.config.notify_backoff),
                    public_url: ctx.config.public_url(),
                    brand: ctx.config.mail_brand_color.clone(),
                },
            )?;
            let mailer = match ctx.get::<dyn stoa_api::files::FileReader>() {
                Some(files) => mailer.with_files(files),
                None => mailer,
            };
            ctx.store
                .guard("notification.topic", mailer.in_use.topics.clone());
            ctx.store
                .guard("notification.template", mailer.in_use.templates.clone());
            ctx.provide(std::sync::Arc::new(mailer));
            Ok(())
        })
        .seed(|ctx| Box::pin(mail::seed(&ctx.store)))
        .routes(|ctx| Ok(http::routes(ctx.need::<mail::Mailer>()?)))
        .job(
            stoa_api::module::JobDef::new(mail::JOB_DELIVER, |ctx, payload| async move {
                let id = stoa_api::jobs::uuid_arg(&payload, "notification")?;
                // Kept with the job as its public message (never a transport's details).
                let expected = payload.get("attempt").and_then(serde_json::Value::as_i64);
                let attempt = ctx.need::<mail::Mailer>()?.attempt(id, expected).await;
                Ok(attempt.map_err(|e| stoa_kernel::Error::Unavailable(e.public_message()))?)
            })
            // The notification counts its own attempts and queues the next one after its backoff;
            // the queue's own retries cover a crash or a timeout in between.
            .attempts(3)
            .timeout(std::time::Duration::from_secs(60))
            .background(),
        )
}
