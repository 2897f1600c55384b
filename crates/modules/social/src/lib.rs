//! social: profiles, chats, messages and profile attributes.
#![forbid(unsafe_code)]

pub mod chats;
pub mod http;
pub mod owners;
mod rows;
pub mod views;

use stoa_kernel::model::*;

const M: &str = "social";

/// The link social owns under rbac's name (the original's table and route): which subject owns
/// which profile. Social declares and queries it (`owners`); rbac names no social entity.
pub fn rbac_links() -> Module {
    Module {
        name: "rbac",
        words: include_str!("rbac-links.toml"),
        entities: vec![
            relation(
                "rbac",
                "subjects-to-social-module-profiles",
                ("subjectId", "rbac.subject"),
                ("socialModuleProfileId", "social.profile"),
            )
            .follows_guest()
            .build(),
        ],
    }
}

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    let r = |name: &'static str,
             l: (&'static str, &'static str),
             rr: (&'static str, &'static str)| relation(M, name, l, rr);
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: [
            stoa_kernel::model::attribute_models(M, &["feature"], false).to_vec(),
            vec![
                model(M, "chat", "chats")
                    .content()
                    .field(text("title").max_len(500).list())
                    .field(text("description").max_len(10_000))
                    .field(text("sourceSystemId").max_len(200))
                    .variants(&["default", "telegram"])
                    .private()
                    .build(),
                model(M, "message", "messages")
                    .field(stoa_kernel::model::class_name())
                    .field(text("title").max_len(500))
                    .field(text("subtitle").max_len(500))
                    .field(text("description").max_len(100_000).list().searchable())
                    .field(text("sourceSystemId").max_len(200))
                    .field(timestamp("editedAt"))
                    .title("description")
                    .private()
                    .build(),
                model(M, "reaction", "reactions")
                    .field(reference("messageId", "social.message"))
                    .field(reference("profileId", "social.profile"))
                    .field(text("emoji").required().max_len(16).list())
                    .title("emoji")
                    .private()
                    .build(),
                model(M, "profile", "profiles")
                    .content()
                    .tsd(true)
                    .variants(&["default", "artificial-intelligence"])
                    // The AI participant (variant `artificial-intelligence`, see `chats::ai`):
                    // what it is told before every chat, per language, and its monthly budget.
                    .field(translations("aiPrompt"))
                    .field(int("aiMonthlyTokens").required().default_int(100_000))
                    .field(int("aiTokensUsed").server_owned().required().default_int(0))
                    .field(text("aiMonth").server_owned().max_len(7))
                    .build(),
                stoa_kernel::model::widget_model(M)
                    .variants(&["default", "chat-list-default", "profile-overview-default"])
                    .build(),
                r(
                    "attribute-keys-to-attributes",
                    ("attributeKeyId", "social.attribute-key"),
                    ("attributeId", "social.attribute"),
                )
                .build(),
                r(
                    "chats-to-messages",
                    ("chatId", "social.chat"),
                    ("messageId", "social.message"),
                )
                .build(),
                r(
                    "messages-to-file-storage-module-files",
                    ("messageId", "social.message"),
                    ("fileStorageModuleFileId", "file-storage.file"),
                )
                .build(),
                r(
                    "profiles-to-attributes",
                    ("profileId", "social.profile"),
                    ("attributeId", "social.attribute"),
                )
                .build(),
                r(
                    "profiles-to-chats",
                    ("profileId", "social.profile"),
                    ("chatId", "social.chat"),
                )
                // The position of the last message this member has read (see `chats`).
                .field(int("lastRead").required().default_int(0))
                .build(),
                r(
                    "profiles-to-ecommerce-module-products",
                    ("profileId", "social.profile"),
                    ("ecommerceModuleProductId", "ecommerce.product"),
                )
                .build(),
                r(
                    "profiles-to-file-storage-module-files",
                    ("profileId", "social.profile"),
                    ("fileStorageModuleFileId", "file-storage.file"),
                )
                .build(),
                r(
                    "profiles-to-messages",
                    ("profileId", "social.profile"),
                    ("messageId", "social.message"),
                )
                .field(boolean("isRead").required().default_bool(false).list())
                .build(),
                r(
                    "profiles-to-website-builder-module-widgets",
                    ("profileId", "social.profile"),
                    ("websiteBuilderModuleWidgetId", "website-builder.widget"),
                )
                .build(),
            ],
        ]
        .concat(),
    }
}

/// The module: its declarations and the chats of subjects' profiles.
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        // Profiles on rbac's account widgets.
        .variants(
            "rbac.widget",
            &[
                "subject-list-social-module-profile-default",
                "subject-overview-social-module-profile-overview-default",
            ],
        )
        .links(rbac_links())
        .setup(|ctx| {
            let chats = chats::Chats::new(
                ctx.store.clone(),
                ctx.need::<stoa_api::live::Hub>()?,
                ctx.get::<dyn stoa_api::files::Uploads>(),
                ctx.config.chat_rate,
                chats::ai::AiService::from_config(&ctx.config.ai)?,
            );
            ctx.provide(std::sync::Arc::new(chats));
            Ok(())
        })
        .routes(|ctx| Ok(http::routes(ctx.need::<chats::Chats>()?)))
        .job(
            // One answer of an AI profile: never retried (a failure is said in the chat).
            stoa_api::module::JobDef::new(chats::ai::ANSWER_JOB, |ctx, p| async move {
                let chats = ctx.need::<chats::Chats>()?;
                let id = |k: &str| {
                    p[k].as_str()
                        .and_then(|s| uuid::Uuid::parse_str(s).ok())
                        .ok_or_else(|| {
                            stoa_api::module::ModuleError::payload(format!("{k} is not an id"))
                        })
                };
                chats
                    .answer(
                        id("chat")?,
                        id("profile")?,
                        id("message")?,
                        p["lang"].as_str().unwrap_or("en"),
                    )
                    .await
                    .map_err(Into::into)
            })
            .attempts(1)
            .timeout(std::time::Duration::from_secs(600)),
        )
        .job(
            stoa_api::module::JobDef::new("social.attachments.sweep", |ctx, _| async move {
                let chats = ctx.need::<chats::Chats>()?;
                let gone = chats
                    .sweep_uploads(UNSENT_KEPT)
                    .await
                    .map_err(stoa_api::module::ModuleError::from)?;
                if gone > 0 {
                    tracing::info!(files = gone, "chat uploads never sent were deleted");
                }
                Ok(())
            })
            .attempts(3),
        )
        .schedule(
            "social.attachments.sweep",
            std::time::Duration::from_secs(6 * 3600),
            serde_json::Value::Null,
        )
}

/// How long an upload that was never sent is kept.
pub const UNSENT_KEPT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);
