//! file-storage: stored files and file widgets.
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "file-storage";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
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
                .field(text("className").max_len(1000))
                .field(int("width"))
                .field(int("height"))
                .field(text("alt").max_len(2000))
                .field(int("size"))
                .field(text("extension").max_len(32))
                .field(text("mimeType").max_len(255).list())
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
            model(M, "widget", "widgets")
                .admin_title()
                .field(slug_field())
                .tsd(false)
                .build(),
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

/// The module: its declarations (no custom behaviour yet).
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
}
