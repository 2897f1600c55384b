//! A client of `GET /api/live` (Server-Sent Events) for tests: events by kind within a time.

use std::time::Duration;

use serde_json::Value;

/// An open `GET /api/live` stream.
pub struct Live {
    res: reqwest::Response,
    buf: String,
    /// The end of the last chunk when it stopped inside a character (a proxy cuts the stream
    /// anywhere).
    partial: Vec<u8>,
    pub last_id: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Ev {
    pub kind: String,
    pub data: Value,
}

impl Live {
    /// Opens the stream at `url` (as the holder of `jwt`, resuming after `last`).
    pub async fn open(
        client: &reqwest::Client,
        url: &str,
        jwt: Option<&str>,
        last: Option<&str>,
    ) -> Live {
        let mut r = client.get(url);
        if let Some(t) = jwt {
            r = r.bearer_auth(t);
        }
        if let Some(l) = last {
            r = r.header("last-event-id", l);
        }
        let res = r.send().await.unwrap_or_else(|e| panic!("GET {url}: {e}"));
        assert_eq!(res.status(), 200, "GET {url}");
        assert!(
            res.headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream")),
            "GET {url} is not an event stream"
        );
        Live {
            res,
            buf: String::new(),
            partial: Vec::new(),
            last_id: None,
        }
    }

    /// The next event within `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Ev> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let (mut kind, mut data, mut id) = (String::from("message"), String::new(), None);
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        kind = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim());
                    } else if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_owned());
                    }
                }
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                if id.is_some() {
                    self.last_id = id;
                }
                return Some(Ev {
                    kind,
                    data: serde_json::from_str(&data).unwrap_or(Value::Null),
                });
            }
            let chunk = tokio::time::timeout_at(deadline, self.res.chunk()).await;
            match chunk {
                Ok(Ok(Some(bytes))) => {
                    self.partial.extend_from_slice(&bytes);
                    let whole = match std::str::from_utf8(&self.partial) {
                        Ok(_) => self.partial.len(),
                        // Cut inside a character: keep its first bytes for the next chunk.
                        Err(e) if e.error_len().is_none() => e.valid_up_to(),
                        Err(_) => self.partial.len(),
                    };
                    let rest = self.partial.split_off(whole);
                    self.buf.push_str(&String::from_utf8_lossy(&self.partial));
                    self.partial = rest;
                }
                _ => return None,
            }
        }
    }

    /// The next event of `kind` within `wait`.
    pub async fn until(&mut self, kind: &str, wait: Duration) -> Option<Ev> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let e = self.next(left).await?;
            if e.kind == kind {
                return Some(e);
            }
        }
    }

    /// Whether a `revalidate` naming `entity` arrives within `wait`.
    pub async fn revalidated(&mut self, entity: &str, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.until("revalidate", left).await {
                Some(e)
                    if e.data["entities"]
                        .as_array()
                        .is_some_and(|l| l.iter().any(|x| x == entity)) =>
                {
                    return true;
                }
                Some(_) => {}
                None => return false,
            }
        }
    }

    /// Every `chat.*` event arriving within `wait`.
    pub async fn chat_events(&mut self, wait: Duration) -> Vec<Ev> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next(left).await {
                Some(e) if e.kind.starts_with("chat.") => out.push(e),
                Some(_) => {}
                None => return out,
            }
        }
    }
}
