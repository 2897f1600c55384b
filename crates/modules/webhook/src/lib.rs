//! webhook: outgoing webhooks. An admin subscribes a URL (an endpoint) to events; every write the
//! events name records, in the writing transaction, one event and one delivery per subscribed
//! endpoint (the store's write tap, see `stoa_store::tap`), and the queue sends them: signed
//! (HMAC-SHA256 over the timestamp and the body), in order per endpoint, retried with
//! exponential backoff, at least once with the event's id to deduplicate by. An endpoint that
//! fails for days is disabled and the admins are mailed. Targets are reached only at public
//! addresses (`stoa_api::outbound`). See docs/webhooks.md.
#![forbid(unsafe_code)]

pub mod events;
pub mod http;
mod rows;
pub mod send;
pub mod service;

use std::sync::Arc;
use std::time::Duration;

use stoa_kernel::model::*;

const M: &str = "webhook";

/// The statuses of a delivery: waiting to be sent (first time or again), sent and answered 2xx,
/// given up (a test that failed; real deliveries are never given up, only held while their
/// endpoint is disabled).
pub const DELIVERY_STATUSES: &[&str] = &["pending", "delivered", "failed"];

/// The entities this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "endpoint", "endpoints")
                .field(text("url").required().max_len(2000).list().searchable())
                .field(text("description").max_len(500).list().searchable())
                .field(boolean("isActive").required().default_bool(true).list())
                .field(timestamp("lastDeliveryAt").server_owned().list())
                .field(timestamp("disabledAt").server_owned().list())
                // Space- or comma-separated event names; `*` at the end matches a prefix.
                .field(
                    text("events")
                        .required()
                        .default_text("*")
                        .max_len(4000)
                        .list(),
                )
                // The signing key: made on create, read and rotated only through its own route.
                .field(Field {
                    default: DefaultValue::RandomSecret,
                    ..text("secret").required().secret().max_len(200)
                })
                .field(timestamp("failingSince").server_owned())
                .field(text("disabledReason").server_owned().max_len(500))
                // Which worker is sending to the endpoint now, and until when (one at a time keeps
                // the order).
                .field(text("leasedBy").server_owned().max_len(100).advanced())
                .field(timestamp("leasedUntil").server_owned().advanced())
                .title("url")
                .private()
                .build(),
            model(M, "event", "events")
                .field(text("type").required().max_len(300).list().search_whole())
                .field(text("entity").required().max_len(200).list())
                .field(uuid("recordId").list().search_whole())
                .field(json("payload").required().default_json("{}"))
                .title("type")
                .private()
                .read_only()
                .build(),
            model(M, "delivery", "deliveries")
                // No foreign key: a write that raced an endpoint's delete records a delivery to
                // it instead of failing the visitor's write; the sweep removes what an endpoint
                // left behind.
                .field(reference("endpointId", "webhook.endpoint").no_fk().list())
                .field(
                    reference("eventId", "webhook.event")
                        .on_delete(OnDelete::Cascade)
                        .list(),
                )
                .field(
                    enumeration("status", DELIVERY_STATUSES)
                        .required()
                        .default_text("pending")
                        .list(),
                )
                .field(timestamp("deliveredAt").list())
                .field(int("attempts").required().default_int(0).list())
                .field(timestamp("nextAttemptAt").required().default_now().list())
                .field(int("responseStatus").list())
                .field(text("error").max_len(1000).list().unsorted())
                // The event's name, kept with the delivery (the event names it too).
                .field(text("type").required().max_len(300))
                .field(text("response").max_len(2000))
                .field(int("durationMs"))
                .field(boolean("isReplay").required().default_bool(false))
                // An endpoint's queue, oldest first (`head`): through the status index it walked
                // every endpoint's pending deliveries, a disabled endpoint's whole backlog too.
                .lookup(&["endpointId", "status"])
                .title("type")
                .private()
                .read_only()
                .build(),
        ],
    }
}

/// The module's three entities, read once.
pub(crate) struct Tables {
    pub endpoint: Arc<Entity>,
    pub event: Arc<Entity>,
    pub delivery: Arc<Entity>,
}

impl Tables {
    pub(crate) fn of(store: &stoa_store::Store) -> stoa_api::module::ModuleResult<Self> {
        let get = |k: &str| store.entity(k).map_err(stoa_api::module::ModuleError::from);
        Ok(Self {
            endpoint: get("webhook.endpoint")?,
            event: get("webhook.event")?,
            delivery: get("webhook.delivery")?,
        })
    }
}

/// The admins' mail about an endpoint that was disabled.
pub const DISABLED_TEMPLATE: &str = "webhook-endpoint-disabled-admin";

/// The module: declarations, the write tap, the sending job and its sweep, the admins' routes.
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        // The kinds of this module's own mail templates.
        .variants(
            "notification.template",
            &["webhook-endpoint-disabled-admin"],
        )
        .setup(|ctx| {
            let c = &ctx.config.hooks;
            let settings = service::Settings {
                allow: stoa_api::outbound::parse_allow(
                    c.hooks_allow.as_deref(),
                    "STOA_HOOKS_ALLOW",
                )?,
                timeout: Duration::from_secs(c.hooks_timeout.clamp(1, 120)),
                retry: Duration::from_millis(c.hooks_retry_ms.max(1)),
                disable_after: time::Duration::days(c.hooks_disable_after_days.max(1) as i64),
                keep: time::Duration::days(c.hooks_keep_days.max(1) as i64),
                language: ctx.config.default_language.clone(),
                public_url: ctx.config.public_url(),
            };
            let hooks = Arc::new(service::Hooks::new(
                ctx.store.clone(),
                settings,
                ctx.need::<stoa_notification::mail::Mailer>()?,
                ctx.need::<stoa_rbac::subjects::Subjects>()?,
            )?);
            let tap = Arc::new(events::Tap::new(ctx.store.clone())?);
            if !ctx.store.set_tap(tap.clone()) {
                return Err("a write tap is already set on the store".into());
            }
            ctx.store.guard(
                "webhook.endpoint",
                Arc::new(service::EndpointGuard::new(hooks.clone())),
            );
            ctx.provide(tap);
            ctx.provide(hooks);
            Ok(())
        })
        .routes(|ctx| Ok(http::routes(ctx.need::<service::Hooks>()?)))
        .job(stoa_api::module::JobDef {
            max_attempts: 20,
            background: true,
            ..stoa_api::module::JobDef::new(service::PUMP_JOB, |ctx, payload| async move {
                let hooks = ctx.need::<service::Hooks>()?;
                hooks.pump_job(&payload).await.map_err(Into::into)
            })
        })
        .job(stoa_api::module::JobDef::new(
            service::SWEEP_JOB,
            |ctx, _| async move {
                let hooks = ctx.need::<service::Hooks>()?;
                hooks.sweep().await.map_err(Into::into)
            },
        ))
        .schedule(
            service::SWEEP_JOB,
            Duration::from_secs(60),
            serde_json::Value::Null,
        )
        .seed(stoa_notification::mail::templates_seed(
            "webhook.templates.v1",
            service::templates,
        ))
}
