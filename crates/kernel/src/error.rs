//! The one error type of Stoa. Every layer returns it; `stoa-api` maps it to HTTP in one place.

use std::collections::BTreeMap;

/// Per-field messages, keyed by the field's wire (camelCase) name.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

/// What went wrong, in terms a client can act on. `Internal` is the only variant that is our bug.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Malformed request: bad query string, bad JSON, unknown filter column, bad uuid. (400)
    #[error("{message}")]
    BadRequest {
        message: String,
        fields: FieldErrors,
    },
    /// No credentials or bad credentials. (401)
    #[error("{0}")]
    Unauthorized(String),
    /// Authenticated, but not allowed. (403)
    #[error("{0}")]
    Forbidden(String),
    /// The addressed record or route does not exist. (404)
    #[error("{message}")]
    NotFound { message: String, code: &'static str },
    /// A uniqueness rule or a state rule refuses the change. (409)
    #[error("{message}")]
    Conflict {
        message: String,
        fields: FieldErrors,
    },
    /// Body over the configured limit. (413)
    #[error("{0}")]
    PayloadTooLarge(String),
    /// Content type we do not read. (415)
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// Well-formed, but the values break a rule of the declaration. (422)
    #[error("{message}")]
    Invalid {
        message: String,
        fields: FieldErrors,
    },
    /// Slow down. (429) `retry_after` is in seconds.
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    /// A dependency is down (database unreachable, provider timeout). (503)
    #[error("{0}")]
    Unavailable(String),
    /// A transport-level answer with its own status (405, 414, 431…).
    #[error("{message}")]
    Http {
        status: u16,
        code: &'static str,
        message: String,
    },
    /// Our bug. Logged with the request id; the client sees a generic message.
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::BadRequest {
            message: message.into(),
            fields: FieldErrors::new(),
        }
    }

    pub fn bad_field(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self::BadRequest {
            message: format!("{field}: {message}"),
            fields: one(field, message),
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound {
            message: message.into(),
            code: "not_found",
        }
    }

    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self::Invalid {
            message: format!("{field}: {message}"),
            fields: one(field, message),
        }
    }

    /// Several field errors at once; the human message names the first.
    pub fn invalid_fields(fields: FieldErrors) -> Self {
        let message = fields
            .iter()
            .next()
            .and_then(|(k, v)| v.first().map(|m| format!("{k}: {m}")))
            .unwrap_or_else(|| "invalid input".to_owned());
        Self::Invalid { message, fields }
    }

    pub fn conflict_field(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Self::Conflict {
            message: format!("{field}: {message}"),
            fields: one(field, message),
        }
    }

    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::Internal(message.to_string())
    }

    /// HTTP status this error maps to.
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest { .. } => 400,
            Self::Unauthorized(_) => 401,
            Self::Forbidden(_) => 403,
            Self::NotFound { .. } => 404,
            Self::Conflict { .. } => 409,
            Self::PayloadTooLarge(_) => 413,
            Self::UnsupportedMediaType(_) => 415,
            Self::Invalid { .. } => 422,
            Self::TooManyRequests { .. } => 429,
            Self::Unavailable(_) => 503,
            Self::Http { status, .. } => *status,
            Self::Internal(_) => 500,
        }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadRequest { .. } => "bad_request",
            Self::Unauthorized(_) => "unauthorized",
            Self::Forbidden(_) => "forbidden",
            Self::NotFound { code, .. } => code,
            Self::Conflict { .. } => "conflict",
            Self::PayloadTooLarge(_) => "payload_too_large",
            Self::UnsupportedMediaType(_) => "unsupported_media_type",
            Self::Invalid { .. } => "invalid_input",
            Self::TooManyRequests { .. } => "too_many_requests",
            Self::Unavailable(_) => "unavailable",
            Self::Http { code, .. } => code,
            Self::Internal(_) => "internal",
        }
    }

    pub fn fields(&self) -> Option<&FieldErrors> {
        match self {
            Self::BadRequest { fields, .. }
            | Self::Conflict { fields, .. }
            | Self::Invalid { fields, .. }
                if !fields.is_empty() =>
            {
                Some(fields)
            }
            _ => None,
        }
    }

    /// The message safe to show a client. Internal details never leave the process.
    pub fn public_message(&self) -> String {
        match self {
            Self::Internal(_) => "Internal server error".to_owned(),
            other => other.to_string(),
        }
    }

    /// Prefix every field key (used by bulk operations: `[3].slug`).
    pub fn with_field_prefix(self, prefix: &str) -> Self {
        let re = |fields: FieldErrors| -> FieldErrors {
            fields
                .into_iter()
                .map(|(k, v)| (format!("{prefix}{k}"), v))
                .collect()
        };
        match self {
            Self::BadRequest { message, fields } => Self::BadRequest {
                message: format!("{} {message}", prefix.trim_end_matches('.')),
                fields: re(fields),
            },
            Self::Conflict { message, fields } => Self::Conflict {
                message: format!("{} {message}", prefix.trim_end_matches('.')),
                fields: re(fields),
            },
            Self::Invalid { message, fields } => Self::Invalid {
                message: format!("{} {message}", prefix.trim_end_matches('.')),
                fields: re(fields),
            },
            other => other,
        }
    }
}

fn one(field: &str, message: String) -> FieldErrors {
    let mut m = FieldErrors::new();
    m.insert(field.to_owned(), vec![message]);
    m
}
