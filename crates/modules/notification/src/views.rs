//! What the notification module's routes answer, as types: the OpenAPI document is made from them
//! (`stoa_api::endpoint`), so it says what the handlers send.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A notification sent again (or left alone when it was not waiting or failed).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendResult {
    pub ok: bool,
    /// Its status afterwards (`new` when queued).
    pub status: String,
    /// Whether it was queued for delivery now.
    pub queued: bool,
    /// When it goes out, when it was queued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_after: Option<String>,
}

/// How many due notifications a "send all" queued.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SendAllResult {
    pub ok: bool,
    pub queued: usize,
}

/// A notification as its recipient receives it, and whether its channel delivers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MessageResult {
    #[serde(flatten)]
    pub message: crate::mail::Composed,
    /// Whether its channel is configured (false: it stays in the outbox).
    pub delivered: bool,
    pub status: Option<String>,
}

/// A template rendered for the admin's preview.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TemplateRenderResult {
    pub subject: String,
    pub body: String,
    pub language: String,
}

/// What a preview renders: the template's data and the language.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TemplateRenderBody {
    /// The values the template's placeholders read.
    #[serde(default)]
    pub data: serde_json::Map<String, serde_json::Value>,
    /// The language to render in (English when not given).
    #[serde(default)]
    #[schemars(extend("enum" = stoa_kernel::model::LANGUAGES))]
    pub language: Option<String>,
}
