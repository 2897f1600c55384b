//! Shared by the fake's tests: an HTTP client, a merchant-side receiver that captures webhooks, and digests
//! computed independently of the crate under test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use base64::Engine as _;
use hmac::{Hmac, Mac};
use md5::Digest as _;
use serde_json::Value;
use sha2::Sha256;
use stoa_fakes::{Creds, Delivered, Fake, Kind, Tamper};

pub fn client() -> reqwest::Client {
    // The workspace builds reqwest with `rustls-no-provider`: install a provider before building a client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// Starts `kind`'s fake with its test credentials.
pub async fn start(kind: Kind) -> Fake {
    Fake::start(kind, Creds::test(kind)).await.unwrap()
}

/// Starts `kind`'s fake and a receiver answering with `answer`, set as the fake's webhook URL.
pub async fn start_with_receiver(
    kind: Kind,
    answer: impl Fn(&Captured) -> (u16, String) + Send + Sync + 'static,
) -> (Fake, Receiver) {
    let fake = start(kind).await;
    let rx = Receiver::start(answer).await;
    fake.set_webhook_url(&rx.url);
    (fake, rx)
}

/// A request to `path` on the fake with HTTP Basic auth from its public id and secret.
pub fn basic_request(fake: &Fake, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    client()
        .request(method, format!("{}{path}", fake.url))
        .header(
            "Authorization",
            basic(&fake.creds.public_id, &fake.creds.secret),
        )
}

/// Sends `req`: the status and the body as text.
pub async fn send(req: reqwest::RequestBuilder) -> (u16, String) {
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.text().await.unwrap())
}

/// Sends `req`: the status and the body, which must be JSON.
pub async fn send_json(req: reqwest::RequestBuilder) -> (u16, Value) {
    let (status, text) = send(req).await;
    (status, serde_json::from_str(&text).unwrap())
}

/// Sends `req`: the status and the body as JSON, `Null` when it is not JSON.
pub async fn send_json_or_null(req: reqwest::RequestBuilder) -> (u16, Value) {
    let (status, text) = send(req).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// GETs `url` (no auth) and returns the body as text, whatever the status.
pub async fn get_text(url: &str) -> String {
    client()
        .get(url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// POSTs to `url` (no auth, as the hosted page's form does), asserts a 303 and returns its `Location`.
pub async fn post_see_other(url: &str) -> String {
    let r = client().post(url).send().await.unwrap();
    assert_eq!(r.status(), 303);
    r.headers()["location"].to_str().unwrap().to_string()
}

/// Pays `id` untampered, asserts the merchant got it with a 200 the fake takes as delivery, and
/// returns what was sent and what `rx` captured.
pub async fn pay_delivered(fake: &Fake, rx: &Receiver, id: &str) -> (Delivered, Captured) {
    let d = fake.pay(id, Tamper::None).await;
    assert_eq!(d.status, 200);
    assert!(fake.answer_ok(&d), "answer {:?}", d.body);
    let got = rx.last();
    assert_eq!(got.body, d.sent_body);
    (d, got)
}

/// Asserts one of the problems the fake recorded for its last request mentions `needle`.
pub fn assert_last_problem_mentions(fake: &Fake, needle: &str) {
    let problems = fake.requests().pop().unwrap().problems;
    assert!(problems.iter().any(|p| p.contains(needle)), "{problems:?}");
}

/// Asserts the problems the fake recorded for its last request include `problem` exactly.
pub fn assert_last_problem_is(fake: &Fake, problem: &str) {
    let problems = fake.requests().pop().unwrap().problems;
    assert!(problems.iter().any(|p| p == problem), "{problems:?}");
}

pub fn basic(user: &str, pass: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"))
    )
}

pub fn hmac_hex(key: &str, msg: &str) -> String {
    let mut m = Hmac::<Sha256>::new_from_slice(key.as_bytes()).unwrap();
    m.update(msg.as_bytes());
    hex::encode(m.finalize().into_bytes())
}

pub fn hmac_b64(key: &str, msg: &str) -> String {
    let mut m = Hmac::<Sha256>::new_from_slice(key.as_bytes()).unwrap();
    m.update(msg.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(m.finalize().into_bytes())
}

pub fn md5(s: &str) -> String {
    hex::encode(md5::Md5::digest(s.as_bytes()))
}

pub fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

pub fn form(body: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect()
}

pub fn field(f: &[(String, String)], name: &str) -> Option<String> {
    f.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

#[derive(Clone, Debug)]
pub struct Captured {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

type Answer = Arc<dyn Fn(&Captured) -> (u16, String) + Send + Sync>;

/// A stand-in for our server's webhook route: records what arrives, answers with `answer`.
pub struct Receiver {
    pub url: String,
    pub got: Arc<Mutex<Vec<Captured>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    pub async fn start(
        answer: impl Fn(&Captured) -> (u16, String) + Send + Sync + 'static,
    ) -> Receiver {
        let got: Arc<Mutex<Vec<Captured>>> = Arc::default();
        let answer: Answer = Arc::new(answer);
        let (g, a) = (got.clone(), answer.clone());
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let (g, a) = (g.clone(), a.clone());
                async move {
                    let c = Captured {
                        method: method.to_string(),
                        path: uri.to_string(),
                        headers: headers
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                            .collect(),
                        body: String::from_utf8_lossy(&body).into_owned(),
                    };
                    let (status, text) = a(&c);
                    g.lock().unwrap().push(c);
                    (StatusCode::from_u16(status).unwrap(), text)
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "http://{}/api/billing/payment-intents/provider/webhook",
            listener.local_addr().unwrap()
        );
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver { url, got, task }
    }

    pub fn ok() -> impl Fn(&Captured) -> (u16, String) + Send + Sync + 'static {
        |_| (200, "{\"ok\":true}".to_string())
    }

    pub fn all(&self) -> Vec<Captured> {
        self.got.lock().unwrap().clone()
    }

    pub fn last(&self) -> Captured {
        self.all().pop().expect("the receiver got a request")
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}
