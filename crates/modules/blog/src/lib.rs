//! blog: articles, categories and their widgets.
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "blog";

/// The link blog owns under rbac's name (the original's table and route): a subject's articles.
/// Blog declares it; rbac names no blog entity.
pub fn rbac_links() -> Module {
    Module {
        name: "rbac",
        words: include_str!("rbac-links.toml"),
        entities: vec![
            relation(
                "rbac",
                "subjects-to-blog-module-articles",
                ("subjectId", "rbac.subject"),
                ("blogModuleArticleId", "blog.article"),
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
            model(M, "article", "articles")
                .content()
                .tsd(true)
                // The site search and the admin's find words inside the text too.
                .field(rich_text("description").searchable())
                .variants(&[
                    "default",
                    "overview-default",
                    "overview-with-private-content-default",
                ])
                .publishable()
                .build(),
            model(M, "category", "categories")
                .content()
                .tsd(true)
                .build(),
            stoa_kernel::model::widget_model(M)
                .variants(&[
                    "default",
                    "article-list-default",
                    "article-overview-default",
                    "article-overview-with-private-content-default",
                    "article-overview-ecommerce-module-product-list-default",
                    "category-overview-default",
                    "category-list-button-default",
                    "category-list-default",
                ])
                .build(),
            relation(
                M,
                "articles-to-ecommerce-module-products",
                ("articleId", "blog.article"),
                ("ecommerceModuleProductId", "ecommerce.product"),
            )
            .build(),
            relation(
                M,
                "articles-to-file-storage-module-files",
                ("articleId", "blog.article"),
                ("fileStorageModuleFileId", "file-storage.file"),
            )
            .build(),
            relation(
                M,
                "articles-to-website-builder-module-widgets",
                ("articleId", "blog.article"),
                ("websiteBuilderModuleWidgetId", "website-builder.widget"),
            )
            .build(),
            relation(
                M,
                "categories-to-articles",
                ("categoryId", "blog.category"),
                ("articleId", "blog.article"),
            )
            .build(),
            relation(
                M,
                "categories-to-website-builder-module-widgets",
                ("categoryId", "blog.category"),
                ("websiteBuilderModuleWidgetId", "website-builder.widget"),
            )
            .build(),
            relation(
                M,
                "widgets-to-articles",
                ("widgetId", "blog.widget"),
                ("articleId", "blog.article"),
            )
            .build(),
            relation(
                M,
                "widgets-to-categories",
                ("widgetId", "blog.widget"),
                ("categoryId", "blog.category"),
            )
            .build(),
        ],
    }
}

/// The module: its declarations (no custom behaviour yet).
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations()).links(rbac_links())
}
