//! One delivery attempt: the body signed, sent to the endpoint's checked public address, the
//! answer's status and its first bytes kept. Redirects are not followed (a redirect is a failure
//! that names where it pointed), time and the answer read are bounded.
//!
//! The signature, in the style of Stripe's: `Stoa-Signature: t=<unix seconds>,v1=<hex>`, where
//! `<hex>` is HMAC-SHA256 with the endpoint's secret over `<t>.<body>`. A receiver recomputes it,
//! compares in constant time and refuses a `t` older than a few minutes (a replayed request).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use sha2::Sha256;
use stoa_kernel::Error;

/// The most of an answer that is read (the rest is dropped with the connection) and the most
/// that is kept in the log.
const READ_AT_MOST: usize = 16 * 1024;
const KEEP: usize = 1000;

/// What one attempt came to.
#[derive(Debug)]
pub struct Outcome {
    /// 2xx.
    pub ok: bool,
    pub status: Option<u16>,
    /// Why it failed, for the log (never the secret).
    pub error: Option<String>,
    /// The answer's first bytes.
    pub response: String,
    pub duration_ms: i64,
}

/// `t=…,v1=…` for `body` sent at `t` with `secret`.
pub fn signature(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        // HMAC takes a key of any length; this cannot happen.
        Err(_) => return String::new(),
    };
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("t={t},v1={hex}")
}

/// One POST of `body` to `url`.
pub struct Attempt<'a> {
    pub url: &'a str,
    pub secret: &'a str,
    pub body: &'a [u8],
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub attempt: i64,
    pub allow: &'a [SocketAddr],
    pub timeout: Duration,
}

impl Attempt<'_> {
    pub async fn send(&self) -> Outcome {
        let started = Instant::now();
        let (client, url) = match self.client(started).await {
            Ok(c) => c,
            Err(refused) => return refused,
        };
        let t = time::OffsetDateTime::now_utc().unix_timestamp();
        let sent = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("Stoa-Signature", signature(self.secret, t, self.body))
            .header("Stoa-Event-Id", self.event_id)
            .header("Stoa-Event-Type", self.event_type)
            .header("Stoa-Delivery-Attempt", self.attempt.to_string())
            .body(self.body.to_vec())
            .send()
            .await;
        match sent {
            Ok(res) => answered(started, res).await,
            Err(e) => failed(started, short(&e), None, String::new()),
        }
    }

    /// A client for the endpoint and its checked URL, the connection pinned to the public address
    /// it resolves to; the failed attempt saying why not, when it is not one to send to.
    async fn client(&self, started: Instant) -> Result<(reqwest::Client, url::Url), Outcome> {
        let refused = |why: String| failed(started, why, None, String::new());
        let url = stoa_api::outbound::check_url(self.url, self.allow, "url")
            .map_err(|e| refused(message(&e)))?;
        let addr = stoa_api::outbound::public_address(&url, self.allow, "url")
            .await
            .map_err(|e| refused(message(&e)))?;
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(self.timeout.min(Duration::from_secs(5)))
            .timeout(self.timeout)
            .user_agent("Stoa-Webhooks/1");
        if let Some(url::Host::Domain(d)) = url.host() {
            // The connection goes to the checked address, never to a second lookup's answer.
            builder = builder.resolve(d, addr);
        }
        let client = builder
            .build()
            .map_err(|e| refused(format!("could not make a client: {e}")))?;
        Ok((client, url))
    }
}

/// A failed attempt begun at `started`.
fn failed(started: Instant, error: String, status: Option<u16>, response: String) -> Outcome {
    Outcome {
        ok: false,
        status,
        error: Some(error),
        response,
        duration_ms: started.elapsed().as_millis() as i64,
    }
}

/// What the endpoint's answer `res` to an attempt begun at `started` comes to: its first bytes
/// read, a redirect or a status other than 2xx a failure.
async fn answered(started: Instant, mut res: reqwest::Response) -> Outcome {
    let status = res.status();
    let mut read = Vec::new();
    while read.len() < READ_AT_MOST {
        match res.chunk().await {
            Ok(Some(c)) => read.extend_from_slice(&c),
            Ok(None) => break,
            Err(e) => return failed(started, short(&e), Some(status.as_u16()), kept(&read)),
        }
    }
    let response = kept(&read);
    if status.is_redirection() {
        let to = res
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("nowhere");
        return failed(
            started,
            format!(
                "the endpoint answered {status} (to {to}); redirects are not followed, give the final address"
            ),
            Some(status.as_u16()),
            response,
        );
    }
    if !status.is_success() {
        return failed(
            started,
            format!("the endpoint answered {status}"),
            Some(status.as_u16()),
            response,
        );
    }
    Outcome {
        ok: true,
        status: Some(status.as_u16()),
        error: None,
        response,
        duration_ms: started.elapsed().as_millis() as i64,
    }
}

fn message(e: &Error) -> String {
    match e {
        Error::Invalid { message, fields } => fields
            .values()
            .flatten()
            .next()
            .cloned()
            .unwrap_or_else(|| message.clone()),
        other => other.to_string(),
    }
}

fn kept(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    s.chars().take(KEEP).collect()
}

fn short(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "the endpoint took too long to answer".into()
    } else if e.is_connect() {
        "could not connect to the endpoint".into()
    } else {
        e.to_string().chars().take(300).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_over_time_dot_body() {
        // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac key
        assert_eq!(
            signature("key", 1_700_000_000, br#"{"a":1}"#),
            "t=1700000000,v1=a438e398bfafc57e4396bb7fc2304422f0f768e965d073ca313cb52e22e6ad03"
        );
    }
}
