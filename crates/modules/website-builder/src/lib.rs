//! website-builder: the building blocks of pages — widgets, sliders, slides, buttons, buttons
//! arrays, features and logotypes.
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "website-builder";
const FILE: &str = "file-storage.file";

pub const WIDGET_VARIANTS: &[&str] = &[
    "default",
    "content-default",
    "content-for-planet-default",
    "footer-default",
    "footer-for-planet-default",
    "navbar-default",
    "navbar-for-planet-default",
    "content-block-for-planet-create-subscription",
    "content-block-for-planet-faq",
    "content-block-for-planet-gallery-and-text",
    "content-block-for-planet-gallery-and-text-inversed",
    "content-block-for-planet-heading",
    "content-block-for-planet-headlines",
    "content-block-for-planet-how-it-works",
    "content-block-for-planet-map",
    "content-block-for-planet-requisites",
    "content-block-for-planet-target",
    "content-block-for-planet-tiers",
    "content-block-for-planet-timeline",
    "content-block-for-planet-videos",
    "content-block-for-planet-qr-code",
    "content-block-for-planet-celebrities",
];

pub const BUTTON_VARIANTS: &[&str] = &[
    "default",
    "destructive",
    "primary",
    "secondary",
    "outline",
    "link",
    "ghost",
    "children",
    "for-planet-primary-extra",
    "for-planet-link",
    "for-planet-outline",
    "for-planet-primary",
    "for-planet-secondary",
    "for-planet-underline",
    "for-planet-outline-light",
    "for-planet-link-muted",
];

pub const FEATURE_VARIANTS: &[&str] = &[
    "default",
    "for-planet-gallery",
    "for-planet-headline",
    "for-planet-how-it-works",
    "for-planet-requisite",
    "for-planet-text",
    "for-planet-timeline",
    "for-planet-faq",
    "for-planet-qr-code",
    "for-planet-celebrity",
    "for-planet-white-card",
    "for-planet-black-card",
];

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    let to_file = |name: &'static str, left: (&'static str, &'static str)| {
        relation(M, name, left, ("fileStorageModuleFileId", FILE)).build()
    };
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "button", "buttons")
                .content()
                .field(translations("title").list())
                .field(translations("subtitle"))
                .field(text("url").max_len(2000))
                .variants(BUTTON_VARIANTS)
                .build(),
            model(M, "buttons-array", "buttons-arrays")
                .content()
                .field(translations("title").list())
                .field(rich_text("description"))
                .variants(&[
                    "default",
                    "row",
                    "column-with-title",
                    "for-planet-column-with-title",
                    "for-planet-row",
                ])
                .build(),
            model(M, "feature", "features")
                .content()
                .tsd(true)
                .variants(FEATURE_VARIANTS)
                .build(),
            model(M, "logotype", "logotypes")
                .content()
                .field(text("url").max_len(2000))
                .field(translations("title").list())
                .build(),
            model(M, "slide", "slides")
                .content()
                .field(text("url").max_len(2000))
                .tsd(true)
                .build(),
            model(M, "slider", "sliders").content().tsd(true).build(),
            model(M, "widget", "widgets")
                .content()
                .tsd(true)
                .field(text("anchor").max_len(200))
                // Settings a variant reads (the campaign's goal and offset, say).
                .field(json("options"))
                .variants(WIDGET_VARIANTS)
                .build(),
            relation(
                M,
                "buttons-arrays-to-buttons",
                ("buttonsArrayId", "website-builder.buttons-array"),
                ("buttonId", "website-builder.button"),
            )
            .build(),
            to_file(
                "buttons-to-file-storage-module-files",
                ("buttonId", "website-builder.button"),
            ),
            relation(
                M,
                "features-to-buttons-arrays",
                ("featureId", "website-builder.feature"),
                ("buttonsArrayId", "website-builder.buttons-array"),
            )
            .build(),
            to_file(
                "features-to-file-storage-module-files",
                ("featureId", "website-builder.feature"),
            ),
            to_file(
                "logotypes-to-file-storage-module-files",
                ("logotypeId", "website-builder.logotype"),
            ),
            relation(
                M,
                "sliders-to-slides",
                ("sliderId", "website-builder.slider"),
                ("slideId", "website-builder.slide"),
            )
            .build(),
            relation(
                M,
                "slides-to-buttons-arrays",
                ("slideId", "website-builder.slide"),
                ("buttonsArrayId", "website-builder.buttons-array"),
            )
            .build(),
            to_file(
                "slides-to-file-storage-module-files",
                ("slideId", "website-builder.slide"),
            ),
            relation(
                M,
                "widgets-to-buttons-arrays",
                ("widgetId", "website-builder.widget"),
                ("buttonsArrayId", "website-builder.buttons-array"),
            )
            .variants(&["default", "additional", "extra"])
            .build(),
            relation(
                M,
                "widgets-to-features",
                ("widgetId", "website-builder.widget"),
                ("featureId", "website-builder.feature"),
            )
            .variants(&["default", "additional"])
            .build(),
            to_file(
                "widgets-to-file-storage-module-files",
                ("widgetId", "website-builder.widget"),
            ),
            relation(
                M,
                "widgets-to-logotypes",
                ("widgetId", "website-builder.widget"),
                ("logotypeId", "website-builder.logotype"),
            )
            .build(),
            relation(
                M,
                "widgets-to-sliders",
                ("widgetId", "website-builder.widget"),
                ("sliderId", "website-builder.slider"),
            )
            .build(),
        ],
    }
}

/// The module: its declarations (no custom behaviour yet).
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
}
