//! analytic: first-party, cookie-free page views and events (see [`collect`]), metrics and
//! analytic widgets.
#![forbid(unsafe_code)]

pub mod collect;
pub mod http;
mod rows;

use stoa_kernel::model::*;

const M: &str = "analytic";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "metric", "metrics")
                .field(text("title").required().max_len(500).list().searchable())
                .field(int("value").required().list())
                .title("title")
                .private()
                .build(),
            stoa_kernel::model::widget_model(M).build(),
            // Daily counters: one row per day, metric and key (`2026-11-24|page|/about`).
            model(M, "count", "counts")
                .field(text("bucket").required().unique().max_len(400))
                .field(text("day").required().max_len(10).list())
                .field(
                    enumeration(
                        "metric",
                        &["total", "page", "referrer", "device", "language", "event"],
                    )
                    .required()
                    .list(),
                )
                .field(text("key").required().max_len(300).list())
                .field(int("value").required().default_int(0).list())
                .title("bucket")
                .private()
                .read_only()
                .build(),
        ],
    }
}

impl stoa_api::module::EventSink for collect::Collector {
    fn event(&self, name: &str, path: &str) {
        self.server_event(name, path);
    }
}

/// How often buffered hits are written.
const FLUSH_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// The module: its declarations, the collector (flushed in the background) and its routes.
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        .setup(|ctx| {
            let c = std::sync::Arc::new(collect::Collector::new(ctx.store.clone()));
            let weak = std::sync::Arc::downgrade(&c);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(FLUSH_EVERY).await;
                    let Some(c) = weak.upgrade() else { return };
                    if let Err(e) = c.flush().await {
                        tracing::warn!(error = %e, "analytics not written; the hits are lost");
                    }
                }
            });
            ctx.provide::<dyn stoa_api::module::EventSink>(c.clone());
            ctx.provide(c);
            Ok(())
        })
        .routes(|ctx| {
            Ok(http::routes(
                ctx.need::<collect::Collector>()?,
                ctx.config.public_host(),
                stoa_store::cluster::Shared::of(&ctx.store.db),
            ))
        })
}
