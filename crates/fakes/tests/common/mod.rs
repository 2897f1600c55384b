//! Shared by the fake's tests: an HTTP client, a merchant-side receiver that captures webhooks, and digests
//! computed independently of the crate under test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use base64::Engine as _;
use hmac::{Hmac, Mac};
use md5::Digest as _;
use sha2::Sha256;

pub fn client() -> reqwest::Client {
    // The workspace builds reqwest with `rustls-no-provider`: install a provider before building a client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
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
