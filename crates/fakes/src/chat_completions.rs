//! A local OpenAI-compatible chat-completions API, written from OpenAI's API reference for
//! `POST /v1/chat/completions` (<https://platform.openai.com/docs/api-reference/chat/create> and
//! the streaming reference <https://platform.openai.com/docs/api-reference/chat-streaming>):
//!
//! - the request: `model` (required), `messages` (required: objects with a `role` of `system`,
//!   `developer`, `user`, `assistant` or `tool` and a string `content`), `stream`,
//!   `stream_options.include_usage`, `max_tokens` / `max_completion_tokens`;
//! - authentication: `Authorization: Bearer <key>`; a wrong key is a 401 with
//!   `{"error": {"message", "type": "invalid_request_error", "code": "invalid_api_key"}}`;
//! - not streamed: a `chat.completion` object with `choices[0].message` and `usage`;
//! - streamed: server-sent events, each `data: <chat.completion.chunk>` with
//!   `choices[0].delta.content`, the first carrying `delta.role`, the last choice a
//!   `finish_reason`; with `include_usage` a final chunk with empty `choices` and `usage`; then
//!   `data: [DONE]`.
//!
//! The answer is "You said: <the last user message>", one word per chunk a little apart, so a
//! client's streaming can be watched. [`Mode`] makes it fail as a real service does.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

const KEY: &str = "sk-stoa-test";
/// Time between two streamed chunks.
const CHUNK_GAP: Duration = Duration::from_millis(40);

/// How the fake answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Streams (or returns) its answer.
    Answer,
    /// 503 with an error body, as an overloaded service.
    Down,
    /// Takes the request and never answers a byte.
    Silent,
}

struct Shared {
    mode: Mutex<Mode>,
    requests: Mutex<Vec<Value>>,
}

pub struct ChatFake {
    /// `http://127.0.0.1:PORT/v1`: what `STOA_AI_BASE_URL` is set to.
    pub base: String,
    pub key: String,
    shared: Arc<Shared>,
}

fn error(status: StatusCode, message: &str, kind: &str, code: Option<&str>) -> Response {
    (
        status,
        axum::Json(
            json!({"error": {"message": message, "type": kind, "param": null, "code": code}}),
        ),
    )
        .into_response()
}

/// The answer to `messages`: what the last user said, repeated.
fn reply_to(messages: &[Value]) -> String {
    let last = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    format!("You said: {last}")
}

/// About four characters a token.
fn tokens(s: &str) -> i64 {
    i64::try_from(s.chars().count().div_ceil(4)).unwrap_or(i64::MAX)
}

async fn completions(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if auth != format!("Bearer {KEY}") {
        return error(
            StatusCode::UNAUTHORIZED,
            "Incorrect API key provided.",
            "invalid_request_error",
            Some("invalid_api_key"),
        );
    }
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "We could not parse the JSON body of your request.",
            "invalid_request_error",
            None,
        );
    };
    if !req["model"].is_string() {
        return error(
            StatusCode::BAD_REQUEST,
            "you must provide a model parameter",
            "invalid_request_error",
            None,
        );
    }
    let Some(messages) = req["messages"].as_array().filter(|m| !m.is_empty()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "'messages' must be a non-empty array",
            "invalid_request_error",
            None,
        );
    };
    let roles = ["system", "developer", "user", "assistant", "tool"];
    if let Some(i) = messages.iter().position(|m| {
        !m["role"].as_str().is_some_and(|r| roles.contains(&r)) || !m["content"].is_string()
    }) {
        return error(
            StatusCode::BAD_REQUEST,
            &format!(
                "Invalid value for 'messages[{i}]': a role and a string content are required."
            ),
            "invalid_request_error",
            None,
        );
    }
    s.requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(req.clone());
    let mode = *s.mode.lock().unwrap_or_else(PoisonError::into_inner);
    match mode {
        Mode::Down => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The server is overloaded or not ready yet.",
                "server_error",
                None,
            );
        }
        Mode::Silent => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return StatusCode::GATEWAY_TIMEOUT.into_response();
        }
        Mode::Answer => {}
    }
    let answer = reply_to(messages);
    let prompt: i64 = messages
        .iter()
        .map(|m| tokens(m["content"].as_str().unwrap_or("")))
        .sum();
    let usage = json!({"prompt_tokens": prompt, "completion_tokens": tokens(&answer), "total_tokens": prompt + tokens(&answer)});
    let id = format!("chatcmpl-{}", crate::util::random_alnum(24));
    let model = req["model"].clone();
    let created = time::OffsetDateTime::now_utc().unix_timestamp();
    if req["stream"] != json!(true) {
        return axum::Json(json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
            "usage": usage,
        }))
        .into_response();
    }
    let include_usage = req["stream_options"]["include_usage"] == json!(true);
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(8);
    tokio::spawn(async move {
        let chunk = |delta: Value, finish: Value| {
            json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        let send = |v: String| Ok(Bytes::from(format!("data: {v}\n\n")));
        let mut events =
            vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null).to_string()];
        let words: Vec<&str> = answer.split_inclusive(' ').collect();
        events.extend(
            words
                .iter()
                .map(|w| chunk(json!({"content": w}), Value::Null).to_string()),
        );
        events.push(chunk(json!({}), json!("stop")).to_string());
        if include_usage {
            events.push(
                json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [], "usage": usage})
                    .to_string(),
            );
        }
        events.push("[DONE]".to_owned());
        for e in events {
            if tx.send(send(e)).await.is_err() {
                return;
            }
            tokio::time::sleep(CHUNK_GAP).await;
        }
    });
    let stream =
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|x| (x, rx)) });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

impl ChatFake {
    /// Starts on 127.0.0.1 on a free port, answering, with the key `sk-stoa-test`.
    pub async fn start() -> std::io::Result<ChatFake> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr: SocketAddr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            mode: Mutex::new(Mode::Answer),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(Arc::clone(&shared));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(ChatFake {
            base: format!("http://{addr}/v1"),
            key: KEY.to_owned(),
            shared,
        })
    }

    pub fn set_mode(&self, mode: Mode) {
        *self
            .shared
            .mode
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = mode;
    }

    /// The request bodies taken so far (well-formed and authenticated ones).
    pub fn requests(&self) -> Vec<Value> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
