//! host: pages, layouts, metadata and the host widgets that place other modules' widgets on pages.
#![forbid(unsafe_code)]

pub mod bundle;
pub mod bundle_http;
pub mod cache;
pub mod drafts;
pub mod http;
pub mod pages;
pub mod publish;
mod rows;
pub mod search;

use stoa_kernel::model::*;

const M: &str = "host";

/// Modules a host widget may point into.
pub const EXTERNAL_MODULES: &[&str] = &[
    "agent",
    "analytic",
    "billing",
    "blog",
    "broadcast",
    "crm",
    "ecommerce",
    "file-storage",
    "notification",
    "rbac",
    "social",
    "startup",
    "website-builder",
];

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    let t = |n: &'static str| text(n).max_len(2000);
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "layout", "layouts")
                .content()
                .field(text("title").max_len(500).list())
                .build(),
            model(M, "metadata", "metadata")
                .field(text("title").required().max_len(500).list().searchable())
                .field(t("description"))
                .field(t("keywords"))
                .field(t("author"))
                .field(t("viewport"))
                .field(t("opengraphTitle"))
                .field(t("opengraphDescription"))
                .field(t("opengraphUrl"))
                .field(t("opengraphType"))
                .field(t("opengraphSiteName"))
                .field(t("opengraphLocale"))
                .field(t("twitterCard"))
                .field(t("twitterSite"))
                .field(t("twitterCreator"))
                .field(t("twitterTitle"))
                .field(t("twitterDescription"))
                .field(t("twitterUrl"))
                .field(t("twitterDomain"))
                .field(t("twitterAppCountry"))
                // The language these tags are written in (`ru`, `en`); empty: any language. A page
                // links one record per language; the site defaults (variant `primary`) likewise.
                .field(text("language").max_len(16).list())
                .title("title")
                .variants(&["default", "primary"])
                .build(),
            model(M, "page", "pages")
                .admin_title()
                .field(
                    text("title")
                        .required()
                        .default_text("Page")
                        .max_len(500)
                        .list()
                        .searchable(),
                )
                .field(
                    text("url")
                        .required()
                        .unique()
                        .default_text("/")
                        .max_len(2000)
                        .list()
                        .searchable(),
                )
                .field(
                    text("description")
                        .default_text("Description")
                        .max_len(2000),
                )
                .field(stoa_kernel::model::class_name())
                .field(
                    enumeration("language", LANGUAGES)
                        .required()
                        .default_text("en"),
                )
                .publishable()
                .build(),
            stoa_kernel::model::widget_model(M).publishable().build(),
            relation(
                M,
                "layouts-to-widgets",
                ("layoutId", "host.layout"),
                ("widgetId", "host.widget"),
            )
            .variants(&["default", "additional"])
            .build(),
            relation(
                M,
                "pages-to-layouts",
                ("pageId", "host.page"),
                ("layoutId", "host.layout"),
            )
            .variants(&["default", "additional"])
            .build(),
            relation(
                M,
                "pages-to-metadata",
                ("pageId", "host.page"),
                ("metadataId", "host.metadata"),
            )
            .build(),
            relation(
                M,
                "pages-to-widgets",
                ("pageId", "host.page"),
                ("widgetId", "host.widget"),
            )
            .build(),
            relation_one(
                M,
                "widgets-to-external-widgets",
                ("widgetId", "host.widget"),
            )
            .field(
                enumeration("externalModule", EXTERNAL_MODULES)
                    .required()
                    .default_text("website-builder")
                    .list(),
            )
            .field(uuid("externalWidgetId").required().list())
            .variants(&["default", "for-planet-default"])
            .build(),
        ],
    }
}

/// The module: declarations, page lookup by URL, and page composition — page bundles (cached,
/// with other modules' [`stoa_api::module::BundlePart`]s) served to the site as
/// [`stoa_api::module::Pages`].
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
        .setup(|ctx| {
            let bundles = cache::Bundles::new(
                ctx.store.clone(),
                ctx.bundle_parts().to_vec(),
                ctx.config.sitemap_urls_per_file,
            );
            ctx.provide::<dyn stoa_api::module::Pages>(bundles.clone());
            ctx.provide(bundles);
            ctx.provide(std::sync::Arc::new(search::Search::default()));
            Ok(())
        })
        .routes(|ctx| {
            let store = std::sync::Arc::new(ctx.store.clone());
            Ok(http::routes(store.clone())
                .merge(publish::routes(store))
                .merge(search::routes(
                    ctx.need::<search::Search>()?,
                    ctx.store.clone(),
                ))
                .merge(bundle_http::routes(ctx.need::<cache::Bundles>()?)))
        })
}
