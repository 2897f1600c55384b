//! The records the host logic reads, as typed rows: each field named once with its column (a test
//! holds them against the declarations).

use uuid::Uuid;

stoa_store::typed_row! {
    /// A page as its URL is matched and its bundle titled.
    pub struct PageRow for "host.page" {
        /// The URL template (`/blog/[blog.articles.slug]`).
        url: Option<String> = "url",
        title: Option<String> = "title",
        description: Option<String> = "description",
    }
}

stoa_store::typed_row! {
    /// A host widget as publishing a page reads it.
    pub struct WidgetRow for "host.widget" {
        id: Uuid = "id",
        admin_title: Option<String> = "adminTitle",
        slug: Option<String> = "slug",
        /// `draft`, `published` or `scheduled`.
        status: Option<String> = "status",
        /// When a scheduled widget goes live, as the store writes it.
        publish_at: Option<String> = "publishAt",
    }
}

stoa_store::typed_row! {
    /// A metadata record, as much as choosing one by language reads (its tags are merged
    /// by name).
    pub struct MetadataRow for "host.metadata" {
        /// The language its tags are written in; empty: any language.
        language: Option<String> = "language",
    }
}

stoa_store::typed_row! {
    /// A page's link to one of its metadata records.
    pub struct PageMetadataRow for "host.pages-to-metadata" {
        metadata_id: Option<Uuid> = "metadataId",
    }
}

stoa_store::typed_row! {
    /// A page's link to one of its layouts.
    pub struct PageLayoutRow for "host.pages-to-layouts" {
        layout_id: Option<Uuid> = "layoutId",
        variant: Option<String> = "variant",
    }
}

stoa_store::typed_row! {
    /// A layout's link to a host widget, before (`default`) or after (`additional`) the page's.
    pub struct LayoutWidgetRow for "host.layouts-to-widgets" {
        layout_id: Option<Uuid> = "layoutId",
        widget_id: Option<Uuid> = "widgetId",
        variant: Option<String> = "variant",
    }
}

stoa_store::typed_row! {
    /// A page's link to one of its host widgets.
    pub struct PageWidgetRow for "host.pages-to-widgets" {
        widget_id: Option<Uuid> = "widgetId",
    }
}

stoa_store::typed_row! {
    /// A host widget's link to a widget of another module.
    pub struct ExternalRow for "host.widgets-to-external-widgets" {
        widget_id: Option<Uuid> = "widgetId",
        external_module: Option<String> = "externalModule",
        external_widget_id: Option<Uuid> = "externalWidgetId",
    }
}

/// The typed rows of `records`; an internal error when one lacks a column its row needs.
pub use stoa_store::typed::rows as typed;

/// Each of `records` with its typed row, for records also answered as they are.
pub use stoa_store::typed::with_rows;

stoa_store::rows_declared!(
    [crate::declarations()],
    PageRow,
    WidgetRow,
    MetadataRow,
    PageMetadataRow,
    PageLayoutRow,
    LayoutWidgetRow,
    PageWidgetRow,
    ExternalRow,
);
