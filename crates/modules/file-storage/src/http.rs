//! Routes: `POST /api/file-storage/files/create-from-url`, `POST /api/file-storage/files/generate`
//! (admin), and `GET /files/{*key}` (public, outside `/api`).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use stoa_api::openapi::custom;
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::Error;
use stoa_kernel::value::as_object;

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

fn side(body: &Map<String, Value>, key: &str, default: u32) -> Result<u32, Error> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| Error::invalid_field(key, "must be a whole number of pixels")),
    }
}

pub fn routes(files: Arc<Files>) -> RouteBook<AppState> {
    let f1 = files.clone();
    let file_ref = json!({"$ref": "#/components/schemas/FileStorageFile"});
    RouteBook::new()
        .add(
            Access::Admin,
            "POST",
            "/api/file-storage/files/create-from-url",
            post(move |State(s): State<AppState>, req: Request| {
                let files = f1.clone();
                async move {
                    let body = stoa_api::body::parse(req, s.limits).await?;
                    let body = as_object(&body.data)?;
                    let url = body
                        .get("url")
                        .and_then(Value::as_str)
                        .filter(|u| !u.trim().is_empty())
                        .ok_or_else(|| Error::invalid_field("url", "the address of the file to fetch is required"))?;
                    let row = files.from_url(url, &row_fields(body)).await?;
                    ApiResult::Ok(stoa_api::crud::data(StatusCode::CREATED, row.to_json()))
                }
            }),
            custom(
                "file-storage",
                "fileStorageFileCreateFromUrl",
                "Fetch a file from a public http(s) URL (private, loopback and metadata addresses are refused; at most 3 redirects) and keep it as a file",
                vec![],
                Some(json!({"type": "object", "properties": {"url": {"type": "string", "format": "uri"}, "alt": {"type": "string"}}, "required": ["url"], "additionalProperties": true})),
                201,
                file_ref.clone(),
                &[400, 401, 403, 413, 415, 422, 503],
            ),
        )
        .add(
            Access::Admin,
            "POST",
            "/api/file-storage/files/generate",
            post(move |State(s): State<AppState>, req: Request| {
                let files = files.clone();
                async move {
                    let body = stoa_api::body::parse(req, s.limits).await?;
                    let body = as_object(&body.data)?;
                    let variant = body
                        .get("variant")
                        .and_then(Value::as_str)
                        .ok_or_else(|| Error::invalid_field("variant", "name the file template to render"))?;
                    let t = crate::render::template_of(variant)?;
                    let size = (side(body, "width", t.width)?, side(body, "height", t.height)?);
                    // The template reads the whole body (`ecommerce.order`, `title`, `language`…).
                    let data = Value::Object(body.clone());
                    let mut fields = Map::new();
                    if let Some(alt) = body.get("alt") {
                        fields.insert("alt".into(), alt.clone());
                    }
                    let row = files
                        .generate(variant, size, data, &fields, crate::service::Pace::Asked)
                        .await?;
                    ApiResult::Ok(stoa_api::crud::data(StatusCode::CREATED, row.to_json()))
                }
            }),
            custom(
                "file-storage",
                "fileStorageFileGenerate",
                "Render a file template (order receipt, share image) to a PNG and keep it as a file",
                vec![],
                Some(json!({"type": "object", "properties": {
                    "variant": {"type": "string", "enum": TEMPLATES.iter().map(|t| t.variant).collect::<Vec<_>>()},
                    "width": {"type": "integer", "minimum": 16, "maximum": crate::render::MAX_SIDE},
                    "height": {"type": "integer", "minimum": 16, "maximum": crate::render::MAX_SIDE},
                    "language": {"type": "string", "enum": ["en", "ru"]}
                }, "required": ["variant"], "additionalProperties": true})),
                201,
                file_ref,
                &[400, 401, 403, 413, 415, 422],
            ),
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
