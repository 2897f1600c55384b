//! Routes: `POST /api/file-storage/files/create-from-url`, `POST /api/file-storage/files/generate`
//! (admin), and `GET /files/{*key}` (public, outside `/api`).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, RawQuery};
use axum::http::HeaderMap;
use axum::routing::get;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use stoa_api::endpoint::{Endpoint, In, Json, Nothing, Row};
use stoa_api::{AppState, RouteBook};
use stoa_kernel::{Error, Result};

use crate::Files;
use crate::render::TEMPLATES;

/// Body keys that say what to do rather than what the new file row holds.
const CONTROL: &[&str] = &["url", "variant", "width", "height", "data"];

fn row_fields(body: &Map<String, Value>) -> Map<String, Value> {
    body.iter()
        .filter(|(k, _)| !CONTROL.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A file fetched from an address (`fileStorageFileCreateFromUrl`): the address, and the new
/// file's fields (its `alt`, and any other field of a file).
#[derive(Deserialize, JsonSchema)]
pub struct FromUrl {
    #[schemars(extend("format" = "uri"))]
    url: String,
    /// What the file shows, for a reader who cannot see it
    alt: Option<String>,
    #[serde(flatten)]
    fields: Map<String, Value>,
}

/// A file template to render (`fileStorageFileGenerate`): its variant and size; the template
/// reads the rest of the body (`ecommerce.order`, `title`, `language`…).
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Render {
    #[schemars(schema_with = "template_variants")]
    variant: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 16, max = crate::render::MAX_SIDE))]
    width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 16, max = crate::render::MAX_SIDE))]
    height: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["en", "ru"]))]
    language: Option<String>,
    #[serde(flatten)]
    data: Map<String, Value>,
}

/// The variants of the file templates there are.
fn template_variants(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let variants: Vec<&str> = TEMPLATES.iter().map(|t| t.variant).collect();
    schemars::json_schema!({"type": "string", "enum": variants})
}

stoa_api::component!(FileStorageFile);

async fn from_url(
    files: Arc<Files>,
    x: In<Nothing, Nothing, Json<FromUrl>>,
) -> Result<Row<FileStorageFile>> {
    let b = x.body.0;
    if b.url.trim().is_empty() {
        return Err(Error::invalid_field(
            "url",
            "the address of the file to fetch is required",
        ));
    }
    let mut fields = row_fields(&b.fields);
    if let Some(alt) = b.alt {
        fields.insert("alt".into(), Value::String(alt));
    }
    let row = files.from_url(&b.url, &fields).await?;
    Ok(Row::new(row.to_json()))
}

async fn render(
    files: Arc<Files>,
    x: In<Nothing, Nothing, Json<Render>>,
) -> Result<Row<FileStorageFile>> {
    let b = x.body.0;
    let t = crate::render::template_of(&b.variant)?;
    let size = (b.width.unwrap_or(t.width), b.height.unwrap_or(t.height));
    let mut fields = Map::new();
    if let Some(alt) = b.data.get("alt") {
        fields.insert("alt".into(), alt.clone());
    }
    // The template reads the whole body.
    let data = serde_json::to_value(&b).map_err(|e| Error::internal(e.to_string()))?;
    let row = files
        .generate(&b.variant, size, data, &fields, crate::service::Pace::Asked)
        .await?;
    Ok(Row::new(row.to_json()))
}

pub fn routes(files: Arc<Files>) -> RouteBook<AppState> {
    RouteBook::new()
        .endpoint(
            files.clone(),
            Endpoint::post("file-storage", "/api/file-storage/files/create-from-url", "fileStorageFileCreateFromUrl")
                .summary("Fetch a file from a public http(s) URL (private, loopback and metadata addresses are refused; at most 3 redirects) and keep it as a file")
                .status(201)
                .errors(&[400, 401, 403, 413, 415, 422, 503])
                .named_by_operation(),
            from_url,
        )
        .endpoint(
            files,
            Endpoint::post("file-storage", "/api/file-storage/files/generate", "fileStorageFileGenerate")
                .summary("Render a file template (order receipt, share image) to a PNG and keep it as a file")
                .status(201)
                .errors(&[400, 401, 403, 413, 415, 422])
                .named_by_operation(),
            render,
        )
}

/// `GET /files/{*key}`: stored files, public.
pub fn site(files: Arc<Files>) -> Router {
    Router::new().route(
        "/files/{*key}",
        get(
            move |Path(key): Path<String>,
                  RawQuery(q): RawQuery,
                  client: Option<axum::Extension<stoa_api::rate::ClientIp>>,
                  headers: HeaderMap| {
                let files = files.clone();
                let client = client.map(|c| c.0.0);
                async move { files.serve(&key, q.as_deref(), client, &headers).await }
            },
        ),
    )
}
