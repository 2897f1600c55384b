//! What the crm routes take and answer, as types: the OpenAPI document is made from them
//! (`stoa_api::endpoint`).

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::requests::{MAX_REPLY_SUBJECT, MAX_REPLY_TEXT};

stoa_api::component!(CrmRequest);

/// The values of a form's inputs, keyed by each input's slug (the form's own declaration says
/// which are required and what each holds; the service checks them).
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct FormValues(pub Map<String, Value>);

/// The schema of a form's values; `signed`: with the form's id (a signed-in sender's).
fn values_schema(signed: bool) -> Schema {
    let mut s = serde_json::json!({"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}, "properties": {"_gotcha": {"type": "string", "description": "leave empty: a request that fills it is taken for a bot's and dropped"}}});
    if signed {
        s["properties"]["formId"] = serde_json::json!({"type": "string", "format": "uuid"});
        s["required"] = serde_json::json!(["formId"]);
    }
    Schema::try_from(s).unwrap_or_else(|_| json_schema!({"type": "object"}))
}

impl JsonSchema for FormValues {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FormValues".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        values_schema(false)
    }
}

/// A signed-in sender's submission: the form, and its values by input slug.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedFormValues {
    pub form_id: uuid::Uuid,
    #[serde(flatten)]
    pub values: Map<String, Value>,
}

impl JsonSchema for SignedFormValues {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SignedFormValues".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        values_schema(true)
    }
}

/// An admin's answer to a submission.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReplyBody {
    #[schemars(length(min = 1, max = MAX_REPLY_SUBJECT))]
    pub subject: String,
    #[schemars(length(min = 1, max = MAX_REPLY_TEXT))]
    pub text: String,
}

/// A reply queued to the sender.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReplyResult {
    pub queued: bool,
    pub to: String,
    pub language: String,
    #[schemars(extend("enum" = crate::REQUEST_STATUSES))]
    pub status: String,
}
