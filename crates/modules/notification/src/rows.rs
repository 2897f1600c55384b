//! The records the notification engine reads, as typed rows: each field named once with its
//! column (a test holds them against the declarations).

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

stoa_store::typed_row! {
    /// A notification in the outbox, as its delivery and the admin's outbox read it (never its
    /// secret).
    pub struct NotificationRow for "notification.notification" {
        id: Uuid = "id",
        status: Option<String> = "status",
        /// `email` or `telegram`
        method: Option<String> = "method",
        title: Option<String> = "title",
        /// The recipient's address or chat (the original's spelling).
        reciever: Option<String> = "reciever",
        language: Option<String> = "language",
        data: Option<Value> = "data",
        /// The files attached, by URL.
        attachments: Option<Value> = "attachments",
        send_after: Option<OffsetDateTime> = "sendAfter",
        attempts: Option<i64> = "attempts",
    }
}

stoa_store::typed_row! {
    /// A template, as a notification is rendered from it.
    pub struct TemplateRow for "notification.template" {
        title: Option<String> = "title",
        /// Translations by language.
        subject: Option<Value> = "subject",
        /// Translations by language.
        body: Option<Value> = "body",
    }
}

stoa_store::typed_row! {
    /// A notification's link to its template.
    pub struct NotificationTemplateRow for "notification.notifications-to-templates" {
        template_id: Option<Uuid> = "templateId",
    }
}

stoa_store::rows_declared!(
    [crate::declarations()],
    NotificationRow,
    TemplateRow,
    NotificationTemplateRow,
);
