//! file-storage: stored files and file widgets. Uploads are kept content-addressed on disk or
//! in an S3-compatible bucket, served under `/files/` (ETag, ranges, sizes on demand), fetched
//! from URLs without server-side request forgery, and file templates render to images.
#![forbid(unsafe_code)]

pub mod fetch;
mod http;
pub mod render;
pub mod rows;
pub mod service;
pub mod sizes;
pub mod sniff;
pub mod storage;

use std::sync::Arc;

use stoa_kernel::model::*;

pub use service::Files;

const M: &str = "file-storage";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "file", "files")
                .admin_title()
                .field(
                    text("file")
                        .required()
                        .max_len(4000)
                        .list()
                        .searchable()
                        .file(),
                )
                .field(text("containerClassName").max_len(1000))
                .field(stoa_kernel::model::class_name())
                .field(int("width"))
                .field(int("height"))
                .field(text("alt").max_len(2000))
                // The alternative text per language (`{"ru": …, "en": …}`); `alt` serves the others.
                .field(translations("localizedAlt"))
                .field(int("size"))
                .field(text("extension").max_len(32))
                .field(text("mimeType").max_len(255).list())
                .field(text("originalName").max_len(255))
                // An account's upload for a private place (a chat attachment): listed to admins
                // only, read through the module that links it.
                .hideable()
                .variants(&[
                    "default",
                    "generate-template-opengraph-image-default",
                    "generate-template-ecommerce-order-receipt-default",
                    "generate-template-ecommerce-product-attachment-default",
                    "generate-template-ecommerce-order-receipt-for-planet-default",
                    "generate-template-ecommerce-order-story-for-planet-ru",
                    "generate-template-ecommerce-order-story-for-planet-en",
                ])
                .build(),
            stoa_kernel::model::plain_widget(M),
            relation(
                M,
                "widgets-to-files",
                ("widgetId", "file-storage.widget"),
                ("fileId", "file-storage.file"),
            )
            .build(),
        ],
    }
}

/// The files the site's server asks for: share images and the files the platform brings.
struct SiteShelf(Arc<Files>);

impl stoa_api::files::SiteFiles for SiteShelf {
    fn share<'a>(
        &'a self,
        lang: &'a str,
        title: &'a str,
        site: &'a str,
        client: Option<std::net::IpAddr>,
        headers: &'a axum::http::HeaderMap,
    ) -> stoa_api::module::BoxFuture<'a, axum::response::Response> {
        Box::pin(self.0.share(lang, title, site, client, headers))
    }

    fn on_disk(&self) -> bool {
        self.0.storage.backend == "disk"
    }

    fn put<'a>(
        &'a self,
        key: &'a str,
        bytes: bytes::Bytes,
    ) -> stoa_api::module::BoxFuture<'a, stoa_kernel::Result<()>> {
        Box::pin(self.0.storage.put(key, bytes))
    }
}

/// The module: the file service (uploads for the generic API, reads for mail), `/files/…`,
/// create-from-url, generate, and a daily sweep of stored objects no row uses.
pub fn module() -> stoa_api::module::ModuleDef {
    use stoa_api::module::{JobDef, ModuleDef};
    ModuleDef::new(declarations())
        .setup(|ctx| {
            let root = std::path::Path::new(&ctx.config.data_dir).join("files");
            let storage = storage::Storage::from_config(&ctx.config.files, &root)?;
            let files = Arc::new(Files::new(storage, ctx.store.clone(), &ctx.config)?);
            ctx.provide::<dyn stoa_api::files::Uploads>(files.clone());
            ctx.provide::<dyn stoa_api::files::FileReader>(files.clone());
            ctx.provide::<dyn stoa_api::files::SiteFiles>(Arc::new(SiteShelf(files.clone())));
            ctx.provide(files);
            Ok(())
        })
        .routes(|ctx| Ok(http::routes(ctx.need::<Files>()?)))
        .site(|ctx| Ok(http::site(ctx.need::<Files>()?)))
        .job(
            JobDef::new("file-storage.sweep", |ctx, _| async move {
                let files = ctx.need::<Files>()?;
                let gone = files
                    .sweep(std::time::Duration::from_secs(3600))
                    .await
                    .map_err(stoa_api::module::ModuleError::from)?;
                if gone > 0 {
                    tracing::info!(files = gone, "stored files no row uses were deleted");
                }
                Ok(())
            })
            .attempts(3),
        )
        .schedule(
            "file-storage.sweep",
            std::time::Duration::from_secs(24 * 3600),
            serde_json::Value::Null,
        )
}
