//! The Telegram channel: `sendMessage` of the Bot API (<https://core.telegram.org/bots/api>)
//! at a configurable address. Bodies are Markdown; one Telegram cannot parse (a stray `_` in a
//! name) is sent again as plain text rather than lost.

use std::time::Duration;

use serde_json::{Value, json};
use stoa_kernel::{Error, Result};

#[derive(Clone, Debug)]
pub struct TelegramConfig {
    pub token: String,
    /// `https://api.telegram.org`, or a local Bot API server.
    pub api_url: String,
}

#[derive(Clone)]
pub struct Telegram {
    client: reqwest::Client,
    /// `{api_url}/bot{token}/` — a secret: never logged.
    base: String,
}

impl std::fmt::Debug for Telegram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Telegram { .. }")
    }
}

/// The longest message Telegram accepts, in characters.
const MAX_TEXT: usize = 4096;

impl Telegram {
    pub fn new(c: &TelegramConfig) -> Result<Self> {
        if c.token.trim().is_empty() || c.token.contains(['/', '?', '#']) {
            return Err(Error::bad_request(
                "STOA_TELEGRAM_BOT_TOKEN is not a bot token (it looks like 123456:ABC-DEF…)",
            ));
        }
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(15))
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| Error::internal(format!("Telegram client: {e}")))?;
        Ok(Self {
            client,
            base: format!("{}/bot{}/", c.api_url.trim_end_matches('/'), c.token),
        })
    }

    /// Sends `text` to chat `chat_id`.
    pub async fn send(&self, chat_id: &str, text: &str) -> Result<()> {
        if chat_id.trim().is_empty() {
            return Err(Error::invalid_field("reciever", "no Telegram chat id"));
        }
        let text: String = text.chars().take(MAX_TEXT).collect();
        match self
            .call(json!({"chat_id": chat_id, "text": text, "parse_mode": "Markdown"}))
            .await
        {
            Err(Error::BadRequest { message, .. }) if message.contains("can't parse") => {
                self.call(json!({"chat_id": chat_id, "text": text})).await
            }
            r => r,
        }
    }

    async fn call(&self, body: Value) -> Result<()> {
        let res = self
            .client
            .post(format!("{}sendMessage", self.base))
            .json(&body)
            .send()
            .await
            .map_err(|e| {
                // The URL holds the token: report the kind of failure only.
                let why = if e.is_timeout() {
                    "timed out"
                } else if e.is_connect() {
                    "could not connect"
                } else {
                    "request failed"
                };
                Error::Unavailable(format!("Telegram: {why}"))
            })?;
        let status = res.status();
        let answer: Value = res.json().await.unwrap_or(Value::Null);
        if status.is_success() && answer["ok"] == true {
            return Ok(());
        }
        let description = answer["description"]
            .as_str()
            .unwrap_or("no description")
            .chars()
            .take(300)
            .collect::<String>();
        let message = format!("Telegram answered {}: {description}", status.as_u16());
        if status.as_u16() == 400 {
            Err(Error::bad_request(message))
        } else {
            Err(Error::Unavailable(message))
        }
    }
}
