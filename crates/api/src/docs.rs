//! The API reference at `/api/docs/`: Swagger UI, vendored into the binary (no CDN).

use std::sync::Arc;

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use utoipa_swagger_ui::Config;

fn config() -> Arc<Config<'static>> {
    // No online validator: nothing may leave the machine.
    Arc::new(
        Config::new(["/api/openapi.json"])
            .validator_url("none")
            .try_it_out_enabled(true),
    )
}

fn serve(file: &str) -> Response {
    match utoipa_swagger_ui::serve(file, config()) {
        Ok(Some(f)) => (
            [
                (header::CONTENT_TYPE, f.content_type),
                (header::CACHE_CONTROL, "public, max-age=3600".to_owned()),
            ],
            f.bytes.into_owned(),
        )
            .into_response(),
        Ok(None) => crate::error::ApiError(stoa_kernel::Error::not_found(format!(
            "no docs asset '{file}'"
        )))
        .into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

pub async fn index_redirect() -> Redirect {
    Redirect::permanent("/api/docs/")
}

pub async fn index() -> Response {
    serve("index.html")
}

pub async fn asset(Path(file): Path<String>) -> Response {
    serve(&file)
}
