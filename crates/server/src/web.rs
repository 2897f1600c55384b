//! The built web UI (`web/dist`): hashed assets under `/assets/` with immutable caching, and the
//! single-page shell for every other GET outside `/api/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, Request};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use stoa_store::Store;

/// Routes for the UI built into `dir`. Not behind authorization: everything here is public
/// static content; the data it shows comes from `/api/`, which is.
pub fn routes(dir: &str, store: Store, public_url: String) -> Router {
    let dir = Arc::new(PathBuf::from(dir));
    let assets = dir.clone();
    let base = Arc::new(public_url);
    let robots_base = base.clone();
    Router::new()
        .route(
            "/robots.txt",
            get(move || {
                let base = robots_base.clone();
                async move {
                    (
                        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                        format!(
                            "User-agent: *\nAllow: /\nDisallow: /admin\nDisallow: /api/\nSitemap: {}/sitemap.xml\n",
                            base.trim_end_matches('/')
                        ),
                    )
                        .into_response()
                }
            }),
        )
        .route(
            "/sitemap.xml",
            get(move || {
                let (store, base) = (store.clone(), base.clone());
                async move {
                    match stoa_host::pages::sitemap_xml(&store, &base, stoa_kernel::model::LANGUAGES)
                        .await
                    {
                        Ok(xml) => (
                            [
                                (header::CONTENT_TYPE, "application/xml; charset=utf-8"),
                                (header::CACHE_CONTROL, "public, max-age=300"),
                            ],
                            xml,
                        )
                            .into_response(),
                        Err(e) => stoa_api::error::error_response(&e),
                    }
                }
            }),
        )
        .route(
            "/assets/{file}",
            get(move |UrlPath(file): UrlPath<String>| {
                let dir = assets.clone();
                async move { asset(&dir.join("assets"), &file).await }
            }),
        )
        .fallback(move |req: Request| {
            let dir = dir.clone();
            async move { shell(&dir, req).await }
        })
}

fn content_type(file: &str) -> &'static str {
    match file.rsplit('.').next().unwrap_or_default() {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

use crate::middleware::not_found_route as not_found;

async fn asset(dir: &Path, file: &str) -> Response {
    // Vite writes a flat folder of hashed names: anything else is not ours to serve.
    let safe = !file.is_empty()
        && !file.starts_with('.')
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_');
    if !safe {
        return not_found();
    }
    match tokio::fs::read(dir.join(file)).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(file)),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            bytes,
        )
            .into_response(),
        Err(_) => not_found(),
    }
}

const NOT_BUILT: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Stoa</title></head><body><main><h1>The web UI is not built</h1><p>Run <code>make web</code> (or <code>npm --prefix web run build</code>) and reload. The API is at <a href=\"/api/docs/\">/api/docs/</a>.</p></main></body></html>";

async fn shell(dir: &Path, req: Request) -> Response {
    let path = req.uri().path();
    let is_page = matches!(*req.method(), Method::GET | Method::HEAD)
        && !path.starts_with("/api/")
        && path != "/api"
        && !path.starts_with("/assets/");
    if !is_page {
        return not_found();
    }
    let html = tokio::fs::read(dir.join("index.html"))
        .await
        .unwrap_or_else(|_| NOT_BUILT.as_bytes().to_vec());
    let mut res = Response::new(Body::from(html));
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    *res.status_mut() = StatusCode::OK;
    res
}
