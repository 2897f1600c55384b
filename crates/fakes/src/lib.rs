//! Local fake servers, one per payment provider, implementing each provider's *documented* protocol:
//! the create call(s) with their authentication and field checks, a status API, a hosted payment page,
//! and the webhook / notification the provider posts when "the buyer paid" — signed the documented way,
//! or tampered with on request ([`Tamper`]) so the merchant's verification can be tested.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use stoa_fakes::{Creds, Fake, Kind, Tamper};
//! let fake = Fake::start(Kind::CloudPayments, Creds::test(Kind::CloudPayments)).await?;
//! fake.set_webhook_url("http://127.0.0.1:4000/api/billing/payment-intents/cloudpayments/webhook");
//! // … the server under test calls `fake.url` + "/orders/create" …
//! # let id = String::new();
//! let delivered = fake.pay(&id, Tamper::None).await;
//! assert!(fake.answer_ok(&delivered));
//! # Ok(()) }
//! ```

// The provider objects are large `json!` literals.
#![recursion_limit = "256"]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State as AxState;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse as _, Response};
use serde_json::Value;
use time::OffsetDateTime;

pub mod chat_completions;
mod cloudpayments;
mod http;
pub mod oidc;
mod oxprocessing;
mod page;
mod paykeeper;
mod payselection;
mod stripe;
pub mod telegram;
mod util;

/// The payment providers a fake exists for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Stripe,
    CloudPayments,
    TipTopPay,
    Payselection,
    PayselectionInternational,
    PayKeeper,
    OxProcessing,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Stripe,
        Kind::CloudPayments,
        Kind::TipTopPay,
        Kind::Payselection,
        Kind::PayselectionInternational,
        Kind::PayKeeper,
        Kind::OxProcessing,
    ];

    /// The provider's name in Stoa's routes (`/api/billing/payment-intents/{name}/webhook`).
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Stripe => "stripe",
            Kind::CloudPayments => "cloudpayments",
            Kind::TipTopPay => "tiptoppay",
            Kind::Payselection => "payselection",
            Kind::PayselectionInternational => "payselection-international",
            Kind::PayKeeper => "paykeeper",
            Kind::OxProcessing => "0xprocessing",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    fn title(&self) -> &'static str {
        match self {
            Kind::Stripe => "Stripe",
            Kind::CloudPayments => "CloudPayments",
            Kind::TipTopPay => "TipTop Pay",
            Kind::Payselection => "Payselection",
            Kind::PayselectionInternational => "Payselection International",
            Kind::PayKeeper => "PayKeeper",
            Kind::OxProcessing => "0xProcessing",
        }
    }
}

/// Credentials shared by the fake and our server. `Creds::test(kind)` gives fixed test values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Creds {
    /// stripe: unused; cloudpayments/tiptoppay: Public ID; payselection: site id; paykeeper: user; 0xprocessing: merchant id
    pub public_id: String,
    /// stripe: secret API key sk_test_…; cloudpayments/tiptoppay: API secret; payselection: secret key (webhooks);
    /// paykeeper: password; 0xprocessing: webhook password
    pub secret: String,
    /// stripe: webhook signing secret whsec_…; payselection: public key (paylink_create request signatures);
    /// paykeeper: secret seed (notifications); others ""
    pub extra: String,
}

impl Creds {
    pub fn test(kind: Kind) -> Creds {
        let (p, s, e) = match kind {
            Kind::Stripe => (
                "",
                "sk_test_51StoaFakeSecretKey000000000000000000",
                "whsec_stoa_fake_webhook_signing_secret_0000",
            ),
            Kind::CloudPayments => (
                "pk_stoafakecloudpayments000000000",
                "stoa-fake-cloudpayments-api-secret",
                "",
            ),
            Kind::TipTopPay => (
                "pk_stoafaketiptoppay0000000000000",
                "stoa-fake-tiptoppay-api-secret",
                "",
            ),
            Kind::Payselection => (
                "21044",
                "stoa-fake-payselection-secret-key",
                "stoa-fake-payselection-public-key",
            ),
            Kind::PayselectionInternational => (
                "21045",
                "stoa-fake-payselection-int-secret-key",
                "stoa-fake-payselection-int-public-key",
            ),
            Kind::PayKeeper => (
                "admin",
                "stoa-fake-paykeeper-password",
                "stoa-fake-paykeeper-secret-seed",
            ),
            Kind::OxProcessing => ("0xMR0000001", "stoa-fake-0xprocessing-webhook-password", ""),
        };
        Creds {
            public_id: p.to_string(),
            secret: s.to_string(),
            extra: e.to_string(),
        }
    }

    /// The env vars our server reads for this kind, with these values.
    pub fn env(&self, kind: Kind, base_url: &str) -> Vec<(String, String)> {
        let v = |k: &str, val: &str| (k.to_string(), val.to_string());
        match kind {
            Kind::Stripe => vec![
                v("STOA_STRIPE_SECRET_KEY", &self.secret),
                v("STOA_STRIPE_WEBHOOK_SECRET", &self.extra),
                v("STOA_STRIPE_API_URL", base_url),
            ],
            Kind::CloudPayments | Kind::TipTopPay => {
                let p = if kind == Kind::CloudPayments {
                    "CLOUDPAYMENTS"
                } else {
                    "TIPTOPPAY"
                };
                vec![
                    v(&format!("STOA_{p}_PUBLIC_ID"), &self.public_id),
                    v(&format!("STOA_{p}_API_SECRET"), &self.secret),
                    v(&format!("STOA_{p}_API_URL"), base_url),
                    v(
                        &format!("STOA_{p}_WIDGET_URL"),
                        &format!(
                            "{base_url}/bundles/{}",
                            if kind == Kind::CloudPayments {
                                "cloudpayments.js"
                            } else {
                                "widget.js"
                            }
                        ),
                    ),
                ]
            }
            Kind::Payselection | Kind::PayselectionInternational => {
                let p = if kind == Kind::Payselection {
                    "PAYSELECTION"
                } else {
                    "PAYSELECTION_INT"
                };
                vec![
                    v(&format!("STOA_{p}_SITE_ID"), &self.public_id),
                    v(&format!("STOA_{p}_SECRET_KEY"), &self.secret),
                    v(&format!("STOA_{p}_PUBLIC_KEY"), &self.extra),
                    v(&format!("STOA_{p}_API_URL"), base_url),
                ]
            }
            Kind::PayKeeper => vec![
                v("STOA_PAYKEEPER_URL", base_url),
                v("STOA_PAYKEEPER_USER", &self.public_id),
                v("STOA_PAYKEEPER_PASSWORD", &self.secret),
                v("STOA_PAYKEEPER_SECRET", &self.extra),
            ],
            Kind::OxProcessing => vec![
                v("STOA_OXPROCESSING_MERCHANT_ID", &self.public_id),
                v("STOA_OXPROCESSING_WEBHOOK_PASSWORD", &self.secret),
                v("STOA_OXPROCESSING_API_URL", base_url),
            ],
        }
    }
}

/// How the fake's API answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Normal,
    /// Every API response is delayed by this much (hosted pages are not).
    Slow(Duration),
    /// The API answers the provider's documented server-error shape (HTTP 500). Requests are still recorded.
    Failing,
}

/// One API call the fake received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub method: String,
    /// The path with its query string.
    pub path: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Basic/Bearer credentials (payselection: X-SITE-ID; 0xprocessing: MerchantId) were the configured ones.
    pub auth_ok: bool,
    /// The outgoing request signature was valid, where the provider documents one (payselection X-REQUEST-SIGNATURE).
    pub signature_ok: Option<bool>,
    /// Documented required fields missing or malformed — empty when the request is as documented.
    pub problems: Vec<String>,
}

/// A payment created through the fake's API.
#[derive(Clone, Debug, PartialEq)]
pub struct Payment {
    /// The provider's id returned to the merchant.
    pub id: String,
    /// As the merchant sent it, decimal in major units (Stripe: converted from minor units).
    pub amount: String,
    /// As sent.
    pub currency: String,
    pub email: Option<String>,
    /// The merchant's reference: Stripe client_reference_id (else metadata as JSON), CloudPayments InvoiceId
    /// (else JsonData as JSON), Payselection OrderId, PayKeeper orderid, 0xProcessing BillingID.
    pub reference: Option<String>,
    pub success_url: Option<String>,
    /// The parsed create request.
    pub raw: Value,
}

/// How `pay` deviates from an honest notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tamper {
    None,
    /// Signed with a wrong secret.
    ForgedSignature,
    /// Signature header(s)/field omitted.
    MissingSignature,
    /// The amount changed after the signature was computed.
    BodyChangedAfterSigning,
    /// A different amount (major units), correctly signed.
    Amount(String),
    /// A different currency, correctly signed.
    Currency(String),
    /// stripe: t = now − 10 min, correctly signed; others: same as None.
    OldTimestamp,
    /// Correctly signed, about a payment that was never created (random ids/reference).
    UnknownPayment,
    /// Correctly signed notification of a failed/declined payment.
    Declined,
}

/// What `pay` posted and what the merchant answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// The merchant's HTTP status; 0 when nothing was delivered (no webhook URL, unknown payment, connection error).
    pub status: u16,
    /// The merchant's answer (or, with status 0, why nothing was delivered).
    pub body: String,
    /// Lower-case names.
    pub sent_headers: Vec<(String, String)>,
    pub sent_body: String,
}

impl Delivered {
    fn not_sent(why: String) -> Delivered {
        Delivered {
            status: 0,
            body: why,
            sent_headers: Vec::new(),
            sent_body: String::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Internal state

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PayStatus {
    Open,
    Paid,
    Declined,
}

#[derive(Clone, Debug)]
pub(crate) struct Rec {
    pub payment: Payment,
    pub status: PayStatus,
    pub created: OffsetDateTime,
    pub paid_at: Option<OffsetDateTime>,
    /// The provider's transaction/payment id once paid or declined.
    pub txn: Option<String>,
    /// Provider-specific data (the stored object, normalised request fields).
    pub data: Value,
}

#[derive(Default)]
pub(crate) struct State {
    pub webhook_url: Option<String>,
    pub site_name: Option<String>,
    pub mode: Mode,
    pub seen: Vec<Seen>,
    pub recs: Vec<Rec>,
    pub deliveries: Vec<Delivered>,
    pub seq: u64,
    /// PayKeeper security tokens issued.
    pub tokens: Vec<String>,
    /// Stripe events sent (retrievable with GET /v1/events/{id}).
    pub events: Vec<Value>,
    /// Payselection X-REQUEST-IDs seen.
    pub request_ids: Vec<String>,
    /// Stripe `Idempotency-Key`s: (key, request body, response status, response body).
    pub idempotency: Vec<(String, String, u16, String)>,
}

pub(crate) struct Inner {
    pub kind: Kind,
    pub creds: Creds,
    pub base_url: String,
    state: Mutex<State>,
}

impl Inner {
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn next_seq(&self) -> u64 {
        let mut s = self.lock();
        s.seq += 1;
        s.seq
    }

    pub fn find(&self, id: &str) -> Option<Rec> {
        self.lock()
            .recs
            .iter()
            .find(|r| r.payment.id == id)
            .cloned()
    }

    pub fn push_rec(&self, rec: Rec) {
        self.lock().recs.push(rec);
    }
}

/// An incoming request, fully read.
pub(crate) struct Req {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn query_param(&self, name: &str) -> Option<String> {
        form_urlencoded::parse(self.query.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The media type, lower-case, without parameters.
    pub fn content_type(&self) -> String {
        self.header("content-type")
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }

    pub fn form(&self) -> Vec<(String, String)> {
        util::parse_form(&self.body)
    }

    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    pub fn basic(&self) -> Option<(String, String)> {
        use base64::Engine as _;
        let v = self.header("authorization")?;
        let (scheme, rest) = v.trim().split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("basic") {
            return None;
        }
        let raw = base64::engine::general_purpose::STANDARD
            .decode(rest.trim())
            .ok()?;
        let s = String::from_utf8(raw).ok()?;
        let (u, p) = s.split_once(':')?;
        Some((u.to_string(), p.to_string()))
    }

    pub fn bearer(&self) -> Option<String> {
        let v = self.header("authorization")?;
        let (scheme, rest) = v.trim().split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim().to_string())
    }
}

/// A response the fake's API gives.
pub(crate) struct Resp {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn json(status: u16, v: &Value) -> Resp {
        Resp {
            status,
            content_type: "application/json; charset=utf-8",
            headers: Vec::new(),
            body: v.to_string(),
        }
    }

    pub fn text(status: u16, body: &str) -> Resp {
        Resp {
            status,
            content_type: "text/plain; charset=utf-8",
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    pub fn redirect(status: u16, location: &str) -> Resp {
        Resp {
            status,
            content_type: "text/plain; charset=utf-8",
            headers: vec![("location".to_string(), location.to_string())],
            body: String::new(),
        }
    }

    pub fn with_header(mut self, k: &str, v: &str) -> Resp {
        self.headers.push((k.to_string(), v.to_string()));
        self
    }

    fn into_response(self) -> Response {
        let mut b = Response::builder()
            .status(StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
            .header("content-type", self.content_type);
        for (k, v) in &self.headers {
            b = b.header(k.as_str(), v.as_str());
        }
        b.body(axum::body::Body::from(self.body))
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
    }
}

/// What a provider's API handler decided.
pub(crate) struct Outcome {
    pub resp: Resp,
    pub auth_ok: bool,
    pub signature_ok: Option<bool>,
    pub problems: Vec<String>,
}

/// One webhook/notification to post.
pub(crate) struct Outgoing {
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// What `pay` does to the provider-side state.
pub(crate) enum Effect {
    MarkPaid,
    MarkDeclined,
    Nothing,
}

impl Effect {
    /// The usual effect: the untampered notification (also one sent late) pays, a decline declines, and any
    /// other tamper leaves the payment as it is.
    pub(crate) fn of(tamper: &Tamper) -> Effect {
        match tamper {
            Tamper::None | Tamper::OldTimestamp => Effect::MarkPaid,
            Tamper::Declined => Effect::MarkDeclined,
            _ => Effect::Nothing,
        }
    }
}

/// What a provider's `notify` gives `pay`: the notifications to post and their effect.
pub(crate) type Notice = (Vec<Outgoing>, Effect);

/// A single notification with `headers` and `body`, and its effect.
pub(crate) fn single(headers: Vec<(String, String)>, body: String, effect: Effect) -> Notice {
    (vec![Outgoing { headers, body }], effect)
}

// ---------------------------------------------------------------------------------------------------------
// The fake

/// A running fake provider. Dropping it (or [`Fake::stop`]) closes the listener.
pub struct Fake {
    pub kind: Kind,
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub url: String,
    pub creds: Creds,
    inner: Arc<Inner>,
    task: Option<tokio::task::JoinHandle<()>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl std::fmt::Debug for Fake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fake")
            .field("kind", &self.kind)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Fake {
    /// Binds 127.0.0.1 on a free port.
    pub async fn start(kind: Kind, creds: Creds) -> std::io::Result<Fake> {
        Fake::start_on(kind, creds, SocketAddr::from(([127, 0, 0, 1], 0))).await
    }

    pub async fn start_on(kind: Kind, creds: Creds, addr: SocketAddr) -> std::io::Result<Fake> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let url = format!("http://{local}");
        let inner = Arc::new(Inner {
            kind,
            creds: creds.clone(),
            base_url: url.clone(),
            state: Mutex::new(State::default()),
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(inner.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(Fake {
            kind,
            url,
            creds,
            inner,
            task: Some(task),
            shutdown: Some(tx),
        })
    }

    /// Where `pay` posts (our `/api/billing/payment-intents/{provider}/webhook`). For Payselection this URL is
    /// also the one covered by `X-WEBHOOK-SIGNATURE`.
    pub fn set_webhook_url(&self, url: &str) {
        self.inner.lock().webhook_url = Some(url.to_string());
    }

    /// Payselection only: the merchant's site name accepted as the second line of a `paylink_create`
    /// request signature (besides the request path and the hosts of the webhook and request URLs).
    pub fn set_site_name(&self, name: &str) {
        self.inner.lock().site_name = Some(name.to_string());
    }

    pub fn set_mode(&self, mode: Mode) {
        self.inner.lock().mode = mode;
    }

    /// Every API call received, in order (hosted-page requests are not API calls and are not listed).
    pub fn requests(&self) -> Vec<Seen> {
        self.inner.lock().seen.clone()
    }

    /// Payments created through the API, in order.
    pub fn payments(&self) -> Vec<Payment> {
        self.inner
            .lock()
            .recs
            .iter()
            .map(|r| r.payment.clone())
            .collect()
    }

    /// Every webhook/notification posted so far (by `pay` and by the hosted page), in order. A Stripe
    /// subscription payment posts two events; `pay` returns the first.
    pub fn deliveries(&self) -> Vec<Delivered> {
        self.inner.lock().deliveries.clone()
    }

    /// "The buyer paid": posts the provider's webhook/notification for `payment_id` to the webhook URL.
    pub async fn pay(&self, payment_id: &str, tamper: Tamper) -> Delivered {
        pay(&self.inner, payment_id, &tamper).await
    }

    /// Whether `delivered` carries the answer this provider requires to consider the notification delivered:
    /// CloudPayments/TipTopPay a top-level `{"code":0}`; PayKeeper `OK md5(id + secret seed)`;
    /// 0xProcessing HTTP 200; Stripe and Payselection any 2xx.
    pub fn answer_ok(&self, delivered: &Delivered) -> bool {
        if delivered.status == 0 {
            return false;
        }
        match self.kind {
            Kind::Stripe | Kind::Payselection | Kind::PayselectionInternational => {
                (200..300).contains(&delivered.status)
            }
            Kind::CloudPayments | Kind::TipTopPay => {
                (200..300).contains(&delivered.status)
                    && serde_json::from_str::<Value>(&delivered.body)
                        .ok()
                        .and_then(|v| v.get("code").and_then(Value::as_i64))
                        == Some(0)
            }
            Kind::PayKeeper => {
                (200..300).contains(&delivered.status)
                    && paykeeper::answer_ok(&self.creds, delivered)
            }
            Kind::OxProcessing => delivered.status == 200,
        }
    }

    /// Closes the listener.
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Dispatch

async fn handle(
    AxState(inner): AxState<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req = Req {
        method: method.as_str().to_string(),
        path: uri.path().to_string(),
        query: uri.query().unwrap_or("").to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    if let Some(resp) = page::handle(&inner, &req).await {
        return resp.into_response();
    }
    if matches!(inner.kind, Kind::CloudPayments | Kind::TipTopPay)
        && let Some(resp) = cloudpayments::widget(&inner, &req).await
    {
        return resp.into_response();
    }
    let (mode, failing) = {
        let s = inner.lock();
        (s.mode, s.mode == Mode::Failing)
    };
    let out = match inner.kind {
        Kind::Stripe => stripe::api(&inner, &req, failing),
        Kind::CloudPayments | Kind::TipTopPay => cloudpayments::api(&inner, &req, failing),
        Kind::Payselection | Kind::PayselectionInternational => {
            payselection::api(&inner, &req, failing)
        }
        Kind::PayKeeper => paykeeper::api(&inner, &req, failing),
        Kind::OxProcessing => oxprocessing::api(&inner, &req, failing),
    };
    let path = if req.query.is_empty() {
        req.path.clone()
    } else {
        format!("{}?{}", req.path, req.query)
    };
    inner.lock().seen.push(Seen {
        method: req.method.clone(),
        path,
        headers: req.headers.clone(),
        body: req.body_text(),
        auth_ok: out.auth_ok,
        signature_ok: out.signature_ok,
        problems: out.problems,
    });
    if let Mode::Slow(d) = mode {
        tokio::time::sleep(d).await;
    }
    out.resp.into_response()
}

/// The not-found answer shared by all fakes for paths they do not implement.
pub(crate) fn unknown_endpoint(req: &Req, resp: Resp) -> Outcome {
    Outcome {
        resp,
        auth_ok: false,
        signature_ok: None,
        problems: vec![format!("no such endpoint: {} {}", req.method, req.path)],
    }
}

pub(crate) async fn pay(inner: &Arc<Inner>, payment_id: &str, tamper: &Tamper) -> Delivered {
    let (webhook_url, rec) = {
        let s = inner.lock();
        (
            s.webhook_url.clone(),
            s.recs.iter().find(|r| r.payment.id == payment_id).cloned(),
        )
    };
    let rec = match rec {
        Some(r) => r,
        None if *tamper == Tamper::UnknownPayment => synthetic_rec(inner.kind),
        None => return Delivered::not_sent(format!("fake: no payment {payment_id:?} was created")),
    };
    // The provider-side state changes even when there is nowhere to post (a hosted-page payment in a UI
    // test without a webhook URL still shows as paid in the status API).
    let url = webhook_url.or_else(|| payselection::fallback_webhook_url(inner, &rec));
    let sign_url = url.clone().unwrap_or_default();
    let txn = match inner.kind {
        Kind::Stripe => format!("pi_{}", util::random_alnum(24)),
        Kind::CloudPayments | Kind::TipTopPay => format!("{}", 1_000_000_000 + inner.next_seq()),
        Kind::Payselection | Kind::PayselectionInternational => {
            format!("PS{:014}", inner.next_seq())
        }
        Kind::PayKeeper => format!("{}", 100_000 + inner.next_seq()),
        Kind::OxProcessing => format!("{}", 500_000 + inner.next_seq()),
    };
    let (msgs, effect) = match inner.kind {
        Kind::Stripe => stripe::notify(inner, &rec, tamper, &txn),
        Kind::CloudPayments | Kind::TipTopPay => cloudpayments::notify(inner, &rec, tamper, &txn),
        Kind::Payselection | Kind::PayselectionInternational => {
            payselection::notify(inner, &rec, tamper, &txn, &sign_url)
        }
        Kind::PayKeeper => paykeeper::notify(inner, &rec, tamper, &txn),
        Kind::OxProcessing => oxprocessing::notify(inner, &rec, tamper, &txn),
    };
    {
        let mut s = inner.lock();
        if let Some(r) = s.recs.iter_mut().find(|r| r.payment.id == rec.payment.id) {
            match effect {
                // A declined attempt can be followed by a successful one.
                Effect::MarkPaid if r.status != PayStatus::Paid => {
                    r.status = PayStatus::Paid;
                    r.paid_at = Some(util::now());
                    r.txn = Some(txn.clone());
                }
                Effect::MarkDeclined if r.status == PayStatus::Open => {
                    r.status = PayStatus::Declined;
                    r.paid_at = Some(util::now());
                    r.txn = Some(txn.clone());
                }
                _ => {}
            }
        }
    }
    let Some(url) = url else {
        return Delivered::not_sent("fake: no webhook URL set (Fake::set_webhook_url)".to_string());
    };
    let mut first: Option<Delivered> = None;
    for m in msgs {
        let d = match http::post(&url, &m.headers, &m.body).await {
            Ok(a) => Delivered {
                status: a.status,
                body: a.body,
                sent_headers: lower(&m.headers),
                sent_body: m.body.clone(),
            },
            Err(e) => Delivered {
                status: 0,
                body: format!("fake: delivery failed: {e}"),
                sent_headers: lower(&m.headers),
                sent_body: m.body.clone(),
            },
        };
        inner.lock().deliveries.push(d.clone());
        if first.is_none() {
            first = Some(d);
        }
    }
    first.unwrap_or_else(|| Delivered::not_sent("fake: nothing to send".to_string()))
}

fn lower(h: &[(String, String)]) -> Vec<(String, String)> {
    h.iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect()
}

/// A payment that was never created, for `Tamper::UnknownPayment` with an id the fake does not know.
fn synthetic_rec(kind: Kind) -> Rec {
    let currency = match kind {
        Kind::Stripe => "usd",
        Kind::CloudPayments | Kind::Payselection | Kind::PayKeeper => "RUB",
        Kind::TipTopPay => "KZT",
        Kind::PayselectionInternational => "USD",
        Kind::OxProcessing => "USDT (TRC20)",
    };
    Rec {
        payment: Payment {
            id: uuid::Uuid::new_v4().to_string(),
            amount: "100.00".to_string(),
            currency: currency.to_string(),
            email: Some("unknown@example.com".to_string()),
            reference: Some(uuid::Uuid::new_v4().to_string()),
            success_url: None,
            raw: Value::Null,
        },
        status: PayStatus::Open,
        created: util::now(),
        paid_at: None,
        txn: None,
        data: Value::Null,
    }
}
