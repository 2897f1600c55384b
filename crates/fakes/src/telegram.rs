//! A local Telegram Bot API (<https://core.telegram.org/bots/api>): `POST /bot<token>/<method>`
//! with JSON, form or query parameters, answering `{"ok":true,"result":…}` or
//! `{"ok":false,"error_code":…,"description":…}` as the real API does. It implements `getMe` and
//! `sendMessage` (with the documented checks: the token, a chat id, a non-empty text of at most
//! 4096 characters, and Markdown entities that parse) and records every message it accepted.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde_json::{Map, Value, json};

/// A message the fake accepted.
#[derive(Clone, Debug)]
pub struct Sent {
    pub chat_id: String,
    pub text: String,
    pub parse_mode: Option<String>,
}

#[derive(Default)]
struct Inner {
    sent: Vec<Sent>,
    /// Calls still to refuse with 502 (a Bot API outage).
    refuse: u32,
}

/// A running fake.
#[derive(Clone)]
pub struct TelegramFake {
    /// The API address (`STOA_TELEGRAM_API_URL`).
    pub url: String,
    pub token: String,
    inner: Arc<Mutex<Inner>>,
}

fn answer(code: u16, description: &str) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
    (
        status,
        axum::Json(json!({"ok": false, "error_code": code, "description": description})),
    )
        .into_response()
}

fn ok(result: Value) -> Response {
    axum::Json(json!({"ok": true, "result": result})).into_response()
}

/// Does `text` parse as legacy Markdown (every `*`, `_`, `` ` `` and `[` closed)?
fn markdown_parses(text: &str) -> bool {
    let mut open: Option<char> = None;
    for c in text.chars() {
        match (open, c) {
            (None, '*' | '_' | '`') => open = Some(c),
            (None, '[') => open = Some(']'),
            (Some(o), c) if o == c => open = None,
            _ => {}
        }
    }
    open.is_none()
}

/// The call's parameters: the query, then a JSON or form body.
fn params(query: HashMap<String, String>, headers: &HeaderMap, body: &Bytes) -> Map<String, Value> {
    let mut p: Map<String, Value> = query
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let ct = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if ct.starts_with("application/json") {
        if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(body) {
            p.extend(m);
        }
    } else if ct.starts_with("application/x-www-form-urlencoded") {
        for (k, v) in form_urlencoded::parse(body) {
            p.insert(k.into_owned(), Value::String(v.into_owned()));
        }
    }
    p
}

fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

async fn call(
    State(f): State<TelegramFake>,
    Path((bot, method)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if bot.strip_prefix("bot") != Some(f.token.as_str()) {
        return answer(401, "Unauthorized");
    }
    if let Ok(mut i) = f.inner.lock()
        && i.refuse > 0
    {
        i.refuse -= 1;
        return answer(502, "Bad Gateway");
    }
    let p = params(query, &headers, &body);
    match method.as_str() {
        "getMe" => ok(
            json!({"id": 1, "is_bot": true, "first_name": "Stoa test bot", "username": "stoa_test_bot"}),
        ),
        "sendMessage" => {
            let Some(chat_id) = text_of(p.get("chat_id")).filter(|c| !c.is_empty()) else {
                return answer(400, "Bad Request: chat_id is empty");
            };
            let text = text_of(p.get("text")).unwrap_or_default();
            if text.trim().is_empty() {
                return answer(400, "Bad Request: message text is empty");
            }
            if text.chars().count() > 4096 {
                return answer(400, "Bad Request: message is too long");
            }
            let parse_mode = text_of(p.get("parse_mode"));
            if parse_mode.as_deref() == Some("Markdown") && !markdown_parses(&text) {
                return answer(
                    400,
                    "Bad Request: can't parse entities: Can't find end of the entity",
                );
            }
            let n = {
                let Ok(mut i) = f.inner.lock() else {
                    return answer(500, "Internal Server Error");
                };
                i.sent.push(Sent {
                    chat_id: chat_id.clone(),
                    text: text.clone(),
                    parse_mode,
                });
                i.sent.len()
            };
            ok(
                json!({"message_id": n, "date": 0, "chat": {"id": chat_id, "type": "private"}, "text": text}),
            )
        }
        _ => answer(404, "Not Found"),
    }
}

impl TelegramFake {
    /// Listens on a free local port for bot `token`.
    pub async fn start(token: &str) -> std::io::Result<TelegramFake> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr: SocketAddr = listener.local_addr()?;
        let fake = TelegramFake {
            url: format!("http://{addr}"),
            token: token.to_owned(),
            inner: Arc::default(),
        };
        let app = Router::new()
            .route("/{bot}/{method}", any(call))
            .with_state(fake.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(fake)
    }

    /// Every message accepted so far.
    pub fn sent(&self) -> Vec<Sent> {
        self.inner
            .lock()
            .map(|i| i.sent.clone())
            .unwrap_or_default()
    }

    /// Answers the next `n` calls with 502.
    pub fn refuse(&self, n: u32) {
        if let Ok(mut i) = self.inner.lock() {
            i.refuse = n;
        }
    }

    /// Waits up to `wait` for a message to `chat_id`.
    pub async fn wait_for(&self, chat_id: &str, wait: Duration) -> Option<Sent> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(m) = self.sent().into_iter().rev().find(|m| m.chat_id == chat_id) {
                return Some(m);
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn speaks_the_bot_api() {
        let f = TelegramFake::start("123:abc").await.unwrap();
        let _ = rustls::crypto::ring::default_provider().install_default();
        let c = reqwest::Client::new();
        let post = |path: &str, body: Value| c.post(format!("{}{path}", f.url)).json(&body).send();
        let r = post("/bot999:x/sendMessage", json!({"chat_id": 1, "text": "hi"}))
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        let r = post("/bot123:abc/sendMessage", json!({"chat_id": 1, "text": ""}))
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let r = post(
            "/bot123:abc/sendMessage",
            json!({"chat_id": 7, "text": "a_b", "parse_mode": "Markdown"}),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 400);
        assert!(r.text().await.unwrap().contains("can't parse"));
        let r = post(
            "/bot123:abc/sendMessage",
            json!({"chat_id": 7, "text": "*bold* ok", "parse_mode": "Markdown"}),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 200);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["ok"], true);
        assert_eq!(f.sent().len(), 1);
        assert_eq!(f.sent()[0].chat_id, "7");
        f.refuse(1);
        let r = post("/bot123:abc/getMe", json!({})).await.unwrap();
        assert_eq!(r.status(), 502);
        let r = post("/bot123:abc/getMe", json!({})).await.unwrap();
        assert_eq!(r.status(), 200);
        let r = post("/bot123:abc/nope", json!({})).await.unwrap();
        assert_eq!(r.status(), 404);
    }
}
