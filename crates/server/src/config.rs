//! Configuration from `STOA_*` environment variables and `DATABASE_URL` (or flags).

use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
pub struct Config {
    /// Database: `sqlite://path` (default) or `postgres://…`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://./data/stoa.db")]
    pub database_url: String,
    /// Address to listen on.
    #[arg(long, env = "STOA_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Folder for data the server keeps (SQLite file, uploads, generated secrets).
    #[arg(long, env = "STOA_DATA_DIR", default_value = "./data")]
    pub data_dir: String,
    /// Log filter (tracing env-filter syntax).
    #[arg(long, env = "STOA_LOG", default_value = "info")]
    pub log: String,
    /// `json` (one JSON object per line) or `pretty`.
    #[arg(long, env = "STOA_LOG_FORMAT", default_value = "json")]
    pub log_format: String,
    /// Largest JSON or form body, in bytes.
    #[arg(long, env = "STOA_BODY_LIMIT", default_value_t = 2 * 1024 * 1024)]
    pub body_limit: usize,
    /// Largest uploaded file, in bytes.
    #[arg(long, env = "STOA_UPLOAD_LIMIT", default_value_t = 20 * 1024 * 1024)]
    pub upload_limit: usize,
    /// Seconds a request may take before the server answers 503.
    #[arg(long, env = "STOA_REQUEST_TIMEOUT", default_value_t = 30)]
    pub request_timeout: u64,
    /// Database connections: SQLite readers (default: one per CPU) or the PostgreSQL pool (default 16).
    #[arg(long, env = "STOA_DB_MAX_CONNECTIONS")]
    pub db_max_connections: Option<u32>,
}

impl Config {
    /// A configuration with every default (tests start from this).
    pub fn defaults() -> Self {
        Self {
            database_url: "sqlite://./data/stoa.db".into(),
            addr: "127.0.0.1:8080".into(),
            data_dir: "./data".into(),
            log: "info".into(),
            log_format: "json".into(),
            body_limit: 2 * 1024 * 1024,
            upload_limit: 20 * 1024 * 1024,
            request_timeout: 30,
            db_max_connections: None,
        }
    }

    /// The configuration as JSON with secrets (database password) redacted.
    pub fn redacted(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        v["database_url"] = serde_json::Value::String(redact_url(&self.database_url));
        v
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((creds, host)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    match creds.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_in_database_urls_are_redacted() {
        assert_eq!(
            super::redact_url("postgres://u:p%40ss@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(
            super::redact_url("sqlite://./data/stoa.db"),
            "sqlite://./data/stoa.db"
        );
    }
}
