//! The one place errors become HTTP: `{"status","code","error","fields"?,"requestId"}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use stoa_kernel::Error;

tokio::task_local! {
    /// The id of the request being served (set by the server's request-id middleware).
    pub static REQUEST_ID: String;
}

/// The current request id, or `-` outside a request.
pub fn request_id() -> String {
    REQUEST_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "-".to_owned())
}

/// An [`Error`] on its way out as a response.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        Self(e)
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// Builds the JSON error body for `err`. Internal errors are logged here, once, with the request
/// id and cause; the client gets only a generic message.
pub fn error_response(err: &Error) -> Response {
    let rid = request_id();
    let status = StatusCode::from_u16(err.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Error::Internal(cause) = err {
        tracing::error!(request_id = %rid, cause = %cause, "internal error");
    }
    let mut body = json!({
        "status": status.as_u16(),
        "code": err.code(),
        "error": err.public_message(),
        "requestId": rid,
    });
    if let Some(fields) = err.fields() {
        body["fields"] = json!(fields);
    }
    let mut res = (status, axum::Json(body)).into_response();
    if let Error::TooManyRequests { retry_after, .. } = err
        && let Ok(v) = HeaderValue::from_str(&retry_after.to_string())
    {
        res.headers_mut().insert(header::RETRY_AFTER, v);
    }
    res
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        error_response(&self.0)
    }
}
