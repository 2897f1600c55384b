//! Cross-cutting layers: request ids, one log line per request, security headers, panics and
//! timeouts turned into JSON errors, and a JSON body for every error the router itself makes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use stoa_api::error::{REQUEST_ID, error_response};
use stoa_kernel::Error;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::predicate::{Predicate, SizeAbove};
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::timeout::TimeoutLayer;

const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
const MAX_URI: usize = 8 * 1024;

/// The Content-Security-Policy of every answer; `telegram` allows the Telegram Login Widget (its
/// script and its frame) on a site that links accounts to Telegram. Frames of our own pages are
/// allowed (the admin's page builder shows the page's preview; only a `?preview=1` page lets itself
/// be framed, and only by us).
///
/// `widgets` are the origins of the configured payment widgets' scripts (CloudPayments,
/// TipTopPay: `ProviderConfig::widget_origins`): the page loads the script, which opens its card
/// form in a frame and talks to its own origin.
pub fn csp(telegram: bool, widgets: &[String]) -> HeaderValue {
    let (mut script, mut frame) = if telegram {
        (
            "'self' https://telegram.org".to_owned(),
            "'self' https://www.youtube-nocookie.com https://oauth.telegram.org".to_owned(),
        )
    } else {
        (
            "'self'".to_owned(),
            "'self' https://www.youtube-nocookie.com".to_owned(),
        )
    };
    let mut connect = "'self'".to_owned();
    for w in widgets {
        for list in [&mut script, &mut frame, &mut connect] {
            list.push(' ');
            list.push_str(w);
        }
    }
    HeaderValue::from_str(&format!(
        "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self' 'unsafe-inline'; script-src {script}; connect-src {connect}; frame-src {frame}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
    ))
    .unwrap_or(HeaderValue::from_static("default-src 'self'"))
}

pub fn wrap(
    router: Router,
    gate: stoa_api::gate::Gate,
    timeout: Duration,
    trusted: Arc<Vec<ipnet::IpNet>>,
    csp: HeaderValue,
) -> Router {
    router
        .layer(middleware::from_fn(json_errors))
        .layer(
            CompressionLayer::new()
                .quality(CompressionLevel::Precise(4))
                .compress_when(SizeAbove::new(1024).and(Text)),
        )
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            timeout,
        ))
        .layer(CatchPanicLayer::custom(|_| {
            tracing::error!(request_id = %stoa_api::error::request_id(), "handler panicked");
            error_response(&Error::internal("panic"))
        }))
        .layer(middleware::from_fn_with_state(csp, security_headers))
        // Every body is reserved, bounded in time and per address before anything reads it.
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            stoa_api::gate::gate(gate, req, next)
        }))
        .layer(middleware::from_fn_with_state(trusted, client_address))
        .layer(middleware::from_fn(request_context))
}

/// Resolves the client's address once (through trusted proxies' `X-Forwarded-For`) for every
/// per-IP limit and log line. `X-Forwarded-Proto` (which makes cookies `Secure`) is believed
/// from a trusted proxy only: from anyone else it is removed before any handler reads it.
async fn client_address(
    State(trusted): State<Arc<Vec<ipnet::IpNet>>>,
    mut req: Request,
    next: Next,
) -> Response {
    if let Some(peer) = req
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip())
    {
        let ip = stoa_api::rate::resolve_client(peer, req.headers(), &trusted);
        req.extensions_mut().insert(stoa_api::rate::ClientIp(ip));
        if !stoa_api::rate::trusted_peer(peer, &trusted) {
            req.headers_mut().remove("x-forwarded-proto");
        }
    } else {
        // No peer to trust: the header is the client's word.
        req.headers_mut().remove("x-forwarded-proto");
    }
    next.run(req).await
}

/// The JSON 404 for a route nobody serves.
pub(crate) fn not_found_route() -> Response {
    error_response(&Error::NotFound {
        message: "no such route".into(),
        code: "route_not_found",
    })
}

fn valid_request_id(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 64
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The request's id: a sane incoming `x-request-id`, else a new one.
fn request_id(req: &Request) -> String {
    req.headers()
        .get(&X_REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| valid_request_id(v))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::now_v7().simple().to_string())
}

/// What every answer gets on its way out: its request id echoed, the request counted in the
/// metrics under its route's template, one log line.
fn finish(rid: &str, method: &str, path: &str, route: &str, started: Instant, res: &mut Response) {
    if let Ok(v) = HeaderValue::from_str(rid) {
        res.headers_mut().insert(X_REQUEST_ID, v);
    }
    let status = res.status().as_u16();
    let took = started.elapsed();
    let ms = took.as_secs_f64() * 1000.0;
    stoa_api::metrics::METRICS.request(method, route, status, took);
    // The path is logged as a field, so input cannot forge a log line.
    if status >= 500 {
        tracing::warn!(request_id = %rid, %method, path = %path, status, ms, "request");
    } else {
        tracing::info!(request_id = %rid, %method, path = %path, status, ms, "request");
    }
}

/// An answer kept by [`stoa_api::answers`], sent without going through the router: it gets what
/// [`request_context`] gives every answer (the other layers' headers were kept with it).
pub(crate) fn answered(req: &Request, mut res: Response, started: Instant) -> Response {
    let rid = request_id(req);
    let route = res
        .extensions()
        .get::<stoa_api::answers::Route>()
        .map(|r| r.0.clone());
    finish(
        &rid,
        req.method().as_str(),
        req.uri().path(),
        route.as_deref().unwrap_or("(unmatched)"),
        started,
        &mut res,
    );
    res
}

/// Assigns the request id (a sane incoming `x-request-id` is kept), scopes it for the handler,
/// echoes it, and logs one line per request.
async fn request_context(req: Request, next: Next) -> Response {
    let rid = request_id(&req);
    let method = req.method().clone();
    // A parsed URI shares its bytes: cloning it copies no text.
    let uri = req.uri().clone();
    let path = uri.path();
    // The route's template, for metrics (bounded, unlike paths).
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .cloned();
    if let Some(r) = &route {
        stoa_api::answers::route(r.as_str());
    }
    let started = Instant::now();
    // Path plus query, measured without formatting the URI on every request.
    let uri_len = req.uri().path().len() + req.uri().query().map_or(0, |q| q.len() + 1);
    let mut res = if uri_len > MAX_URI {
        let err = Error::Http {
            status: 414,
            code: "uri_too_long",
            message: format!("the URL is longer than {MAX_URI} bytes"),
        };
        REQUEST_ID
            .scope(rid.clone(), async { error_response(&err) })
            .await
    } else {
        REQUEST_ID.scope(rid.clone(), next.run(req)).await
    };
    let status = res.status().as_u16();
    let route = route.as_ref().map_or(
        if status < 400 {
            "(site)"
        } else {
            "(unmatched)"
        },
        axum::extract::MatchedPath::as_str,
    );
    finish(&rid, method.as_str(), path, route, started, &mut res);
    res
}

async fn security_headers(State(csp): State<HeaderValue>, req: Request, next: Next) -> Response {
    // A page asked for as the admin's preview (`?preview=1`) may be framed by the admin itself
    // (the page builder shows it beside the blocks); every other answer by no one.
    let framed = !req.uri().path().starts_with("/api/")
        && req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p == "preview=1"));
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    let set = |h: &mut axum::http::HeaderMap, k: HeaderName, v: &'static str| {
        h.entry(k).or_insert(HeaderValue::from_static(v));
    };
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(
        h,
        header::REFERRER_POLICY,
        "strict-origin-when-cross-origin",
    );
    set(
        h,
        header::X_FRAME_OPTIONS,
        if framed { "SAMEORIGIN" } else { "DENY" },
    );
    let csp = if framed {
        csp.to_str()
            .ok()
            .map(|v| v.replace("frame-ancestors 'none'", "frame-ancestors 'self'"))
            .and_then(|v| HeaderValue::from_str(&v).ok())
            .unwrap_or(csp)
    } else {
        csp
    };
    h.entry(header::CONTENT_SECURITY_POLICY).or_insert(csp);
    res
}

/// Errors produced below the handlers (unknown method, timeouts, extractor rejections) come out
/// as plain text; give them the same JSON body as every other error.
async fn json_errors(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    // JSON errors are ours already; HTML ones are site pages answered with their status.
    if is_json {
        return res;
    }
    let (parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let err = match status {
        StatusCode::METHOD_NOT_ALLOWED => Error::Http {
            status: 405,
            code: "method_not_allowed",
            message: "method not allowed on this route".into(),
        },
        StatusCode::PAYLOAD_TOO_LARGE => Error::PayloadTooLarge("the body is too large".into()),
        StatusCode::SERVICE_UNAVAILABLE => Error::Unavailable("the request took too long".into()),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => Error::UnsupportedMediaType(text),
        s if s.is_server_error() => Error::internal(text),
        _ => Error::Http {
            status: status.as_u16(),
            code: "bad_request",
            message: if text.is_empty() {
                status
                    .canonical_reason()
                    .unwrap_or("bad request")
                    .to_owned()
            } else {
                text
            },
        },
    };
    let mut out = error_response(&err);
    for (k, v) in parts.headers.iter() {
        if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
            out.headers_mut().insert(k.clone(), v.clone());
        }
    }
    out
}

/// What is compressed on the way out, besides the layer's own rules (never a body already
/// encoded, never a byte range): text — JSON, HTML, JavaScript, CSS, XML, SVG, plain — but not a
/// stream of events. Finished pages and built assets arrive precompressed and pass as they are.
#[derive(Clone, Copy)]
struct Text;

impl Predicate for Text {
    fn should_compress<B>(&self, response: &http::Response<B>) -> bool
    where
        B: http_body::Body,
    {
        response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| {
                let t = t.split(';').next().unwrap_or_default().trim();
                t.starts_with("text/") && t != "text/event-stream"
                    || matches!(
                        t,
                        "application/json"
                            | "application/problem+json"
                            | "application/javascript"
                            | "application/xml"
                            | "image/svg+xml"
                    )
            })
    }
}
