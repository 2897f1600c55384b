//! The public site and the built web UI (`web/dist`): hashed assets under `/assets/` with
//! immutable caching, `/sitemap.xml`, `/robots.txt`, and for every
//! other GET outside `/api/` the page shell — for a public page with the page's `<head>` (title,
//! description, Open Graph, Twitter, canonical, hreflang) and its bundle embedded, so the first
//! render needs no API call. Paths without a language redirect to the default language.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, Request};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use stoa_api::module::Pages;
use stoa_kernel::model::LANGUAGES;

use crate::head::{self, Place};
use crate::page_cache::{Key, PageCache};

/// What the site's routes need.
#[derive(Clone)]
pub struct Site {
    /// The built UI.
    pub dir: PathBuf,
    /// The pages (host composes them).
    pub pages: Arc<dyn Pages>,
    /// Stored files (share images are kept there).
    pub files: Arc<dyn stoa_api::files::SiteFiles>,
    pub public_url: String,
    pub default_language: &'static str,
    /// The Telegram bot's username, for the Login Widget.
    pub telegram_bot: Option<String>,
    /// The OpenID Connect provider's name, when visitors may sign in with it.
    pub oidc: Option<String>,
    /// The built `index.html`, read once at start.
    pub shell: Arc<str>,
    /// The engines that render public pages; `None`: pages render in the browser only.
    pub renderer: Option<Arc<stoa_render::Renderer>>,
    /// Finished pages, compressed.
    pub cache: Arc<PageCache>,
    /// Recognises admins, for `?preview` (none: no preview).
    pub identify: Option<Arc<dyn stoa_api::auth::Identify>>,
}

impl Site {
    /// The built shell (`<dir>/index.html`), or a page saying the UI is not built.
    pub fn read_shell(dir: &Path) -> Arc<str> {
        std::fs::read_to_string(dir.join("index.html"))
            .unwrap_or_else(|_| NOT_BUILT.to_owned())
            .into()
    }
}

/// Paths the client renders by itself when no page claims them (account screens work on an
/// empty database): one list with the client, `web/src/site/built-in-routes.json` (read by
/// `web/src/site/builtin.tsx` too), built into the binary.
static BUILT_IN: LazyLock<HashSet<String>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../web/src/site/built-in-routes.json"))
        .unwrap_or_else(|e| panic!("web/src/site/built-in-routes.json is not a list of paths: {e}"))
});

/// Is `path` one of the client's own screens? An entry ending in `/*` matches one more
/// segment that is a UUID (`/ecommerce/orders/*`: an order's page).
fn built_in(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    if BUILT_IN.contains(path) {
        return true;
    }
    path.rsplit_once('/').is_some_and(|(parent, last)| {
        uuid::Uuid::parse_str(last).is_ok() && BUILT_IN.contains(&format!("{parent}/*"))
    })
}

/// `/sitemap.xml` (`part` `None`) or `/sitemaps/{part}.xml`.
async fn sitemap_response(s: &Site, part: Option<usize>) -> Response {
    xml_response(
        s.pages.sitemap(&s.public_url, LANGUAGES, part).await,
        "application/xml; charset=utf-8",
    )
}

/// A generated XML document (a sitemap, a feed), cached five minutes; none is a 404.
fn xml_response(
    made: stoa_kernel::Result<Option<impl IntoResponse>>,
    content_type: &'static str,
) -> Response {
    match made {
        Ok(Some(xml)) => (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CACHE_CONTROL, "public, max-age=300"),
            ],
            xml,
        )
            .into_response(),
        Ok(None) => crate::middleware::not_found_route(),
        Err(e) => stoa_api::error::error_response(&e),
    }
}

/// `/{lang}/feed.xml`: the blog's Atom feed in `lang`, titled with the site's name there.
async fn feed_response(s: &Site, lang: &str) -> Response {
    if !LANGUAGES.contains(&lang) {
        return crate::middleware::not_found_route();
    }
    let home = s.pages.bundle("/").await.ok().flatten();
    let name = home.as_deref().map_or_else(
        || crate::head::site_name(&serde_json::Value::Null, &s.public_url).to_owned(),
        |b| crate::head::site_name(crate::head::meta_in(b, lang), &s.public_url).to_owned(),
    );
    xml_response(
        s.pages
            .feed(&s.public_url, lang, &crate::head::feed_title(&name, lang))
            .await,
        "application/atom+xml; charset=utf-8",
    )
}

/// Routes for the site. Not behind authorization: everything here is public; the data it shows
/// comes from public reads only.
pub fn routes(site: Site) -> Router {
    let site = Arc::new(site);
    let (s1, s2, s3, s4, s5) = (
        site.clone(),
        site.clone(),
        site.clone(),
        site.clone(),
        site.clone(),
    );
    Router::new()
        .route(
            "/robots.txt",
            get(move || {
                let base = s1.public_url.clone();
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
            "/{lang}/feed.xml",
            get({
                let s = site.clone();
                move |UrlPath(lang): UrlPath<String>| {
                    let s = s.clone();
                    async move { feed_response(&s, &lang).await }
                }
            }),
        )
        .route(
            "/sitemap.xml",
            get(move || {
                let s = s2.clone();
                async move { sitemap_response(&s, None).await }
            }),
        )
        .route(
            "/sitemaps/{file}",
            get(move |UrlPath(file): UrlPath<String>| {
                let s = s5.clone();
                async move {
                    match file.strip_suffix(".xml").and_then(|n| n.parse::<usize>().ok()) {
                        Some(n) => sitemap_response(&s, Some(n)).await,
                        None => crate::middleware::not_found_route(),
                    }
                }
            }),
        )
        .route(
            "/assets/{file}",
            get(move |UrlPath(file): UrlPath<String>, headers: HeaderMap| {
                let dir = s3.dir.join("assets");
                async move { asset(&dir, &file, &headers).await }
            }),
        )
        .route(
            "/files/share/{lang}/{*page}",
            get(
                move |UrlPath((lang, page)): UrlPath<(String, String)>,
                      client: Option<axum::Extension<stoa_api::rate::ClientIp>>,
                      headers: HeaderMap| {
                    let s = s4.clone();
                    let client = client.map(|c| c.0.0);
                    async move { share(&s, &lang, &page, client, &headers).await }
                },
            ),
        )
        .fallback(move |req: Request| {
            let s = site.clone();
            async move { page(&s, req).await }
        })
}

/// Files at the root of the build (`web/public`): icons and the web app manifest.
const ICONS: &[&str] = &[
    "favicon.ico",
    "favicon.svg",
    "apple-touch-icon.png",
    "icon-192.png",
    "icon-512.png",
    "manifest.webmanifest",
];

/// One of [`ICONS`], cached for a day (their names carry no hash).
async fn root_file(dir: &Path, file: &str, headers: &HeaderMap) -> Response {
    let mut res = asset(dir, file, headers).await;
    if res.status() == StatusCode::OK {
        res.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=86400"),
        );
    }
    res
}

fn content_type(file: &str) -> &'static str {
    match file.rsplit('.').next().unwrap_or_default() {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "webmanifest" => "application/manifest+json",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

use crate::middleware::not_found_route as not_found;

async fn asset(dir: &Path, file: &str, headers: &HeaderMap) -> Response {
    // Vite writes a flat folder of hashed names: anything else is not ours to serve.
    let safe = !file.is_empty()
        && !file.starts_with('.')
        && file
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_');
    if !safe {
        return not_found();
    }
    // The build writes `<file>.br` and `<file>.gz` beside text assets: sent as they are.
    use stoa_api::pack::Encoding::{Br, Gzip, Identity};
    let tries: &[_] = match stoa_api::pack::accepted(headers) {
        Br => &[(Br, ".br"), (Gzip, ".gz"), (Identity, "")],
        Gzip => &[(Gzip, ".gz"), (Identity, "")],
        Identity => &[(Identity, "")],
    };
    for (enc, ext) in tries {
        if let Ok(bytes) = tokio::fs::read(dir.join(format!("{file}{ext}"))).await {
            let mut res = (
                [
                    (header::CONTENT_TYPE, content_type(file)),
                    (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
                    (header::VARY, "Accept-Encoding"),
                ],
                bytes,
            )
                .into_response();
            if let Some(v) = enc.header() {
                res.headers_mut()
                    .insert(header::CONTENT_ENCODING, HeaderValue::from_static(v));
            }
            return res;
        }
    }
    not_found()
}

const NOT_BUILT: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Stoa</title></head><body><main><h1>The web UI is not built</h1><p>Run <code>make web</code> (or <code>npm --prefix web run build</code>) and reload. The API is at <a href=\"/api/docs/\">/api/docs/</a>.</p></main></body></html>";

/// `/files/share/<lang>/<page>.png`: the page's share image, made from its title once.
async fn share(
    site: &Site,
    lang: &str,
    page: &str,
    client: Option<std::net::IpAddr>,
    headers: &HeaderMap,
) -> Response {
    let Some(lang) = LANGUAGES.iter().copied().find(|l| *l == lang) else {
        return not_found();
    };
    let Some(stem) = page.strip_suffix(".png") else {
        return not_found();
    };
    let url = if stem == "index" {
        "/".to_owned()
    } else {
        format!("/{stem}")
    };
    let bundle = match site.pages.bundle(&url).await {
        Ok(Some(b)) => b,
        Ok(None) | Err(stoa_kernel::Error::BadRequest { .. }) => return not_found(),
        Err(e) => return stoa_api::error::error_response(&e),
    };
    let meta = head::meta_in(&bundle, lang);
    let title = head::share_title(meta);
    let name = head::site_name(meta, &site.public_url);
    site.files.share(lang, title, name, client, headers).await
}

fn html(status: StatusCode, body: String) -> Response {
    let mut res = Response::new(Body::from(body));
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    *res.status_mut() = status;
    res
}

/// `/ru/blog` → `Some(("ru", "/blog"))`; `/ru` → `Some(("ru", "/"))`.
fn split_language(path: &str) -> Option<(&'static str, &str)> {
    let rest = path.strip_prefix('/')?;
    let (first, tail) = rest.split_once('/').map_or((rest, ""), |(a, b)| (a, b));
    let lang = LANGUAGES.iter().find(|l| **l == first)?;
    let tail = path
        .get(1 + first.len()..)
        .filter(|_| !tail.is_empty())
        .unwrap_or("/");
    Some((lang, tail))
}

async fn page(site: &Site, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    let is_page = matches!(*req.method(), Method::GET | Method::HEAD)
        && !path.starts_with("/api/")
        && path != "/api"
        && !path.starts_with("/assets/")
        && !path.starts_with("/files/")
        && !path.starts_with("/.well-known/");
    if matches!(*req.method(), Method::GET | Method::HEAD)
        && let Some(icon) = path.strip_prefix('/').filter(|p| ICONS.contains(p))
    {
        return root_file(&site.dir, icon, req.headers()).await;
    }
    if !is_page {
        return not_found();
    }
    if path == "/admin" || path.starts_with("/admin/") {
        return html(StatusCode::OK, site.shell.to_string());
    }
    let Some((lang, rest)) = split_language(&path) else {
        let query = req
            .uri()
            .query()
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        let target = if path == "/" {
            format!("/{}{query}", site.default_language)
        } else {
            format!("/{}{path}{query}", site.default_language)
        };
        return Redirect::temporary(&target).into_response();
    };
    // `?preview` from an admin: the page as it will look, drafts included, rendered by the same
    // renderer, never cached nor indexed.
    if req.uri().query().is_some_and(|q| {
        form_urlencoded::parse(q.as_bytes()).any(|(k, v)| k == "preview" && v != "false")
    }) && let Some(identify) = &site.identify
        && identify.is_admin(req.headers()).await
    {
        // In the page builder's frame (`&frame=1`, sandboxed without scripts): the page as the
        // server renders it, without the scripts the sandbox would refuse.
        let framed = req.uri().query().is_some_and(|q| {
            form_urlencoded::parse(q.as_bytes()).any(|(k, v)| k == "frame" && v == "1")
        });
        // With the page builder's unsaved draft laid over it, while it is kept.
        let draft = req.uri().query().and_then(|q| {
            form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "draft")
                .map(|(_, v)| v.into_owned())
        });
        return preview(site, lang, rest, framed, draft.as_deref()).await;
    }
    let (status, bundle) = match site.pages.bundle(rest).await {
        Ok(Some(b)) => (StatusCode::OK, Some(b)),
        Ok(None) => {
            let known = built_in(rest);
            let fallback = if known {
                None
            } else {
                site.pages.bundle("/404").await.ok().flatten()
            };
            (
                if known {
                    StatusCode::OK
                } else {
                    StatusCode::NOT_FOUND
                },
                fallback,
            )
        }
        Err(stoa_kernel::Error::BadRequest { .. }) => (StatusCode::BAD_REQUEST, None),
        Err(e) => {
            tracing::error!(error = %e, path = %path, "building a page bundle failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                site.pages.bundle("/500").await.ok().flatten(),
            )
        }
    };
    let headers = req.headers();
    // A page may read its query (a reset code, a redirect): rendered on the server without it, it
    // would not match in the browser. Such requests get the shell (for a cached page, kept as a
    // variant of it); campaign tags alone do not count.
    let ssr = req.uri().query().is_none_or(only_campaign_tags);
    // A page: its finished bytes from the cache, or rendered now and kept.
    if status == StatusCode::OK
        && let Some(bundle) = &bundle
        && let Some(mut key) = Key::of(lang, bundle)
    {
        key.ssr = ssr;
        let cached = site.cache.get(&key, bundle);
        stoa_api::metrics::METRICS.cache_lookup("page", cached.is_some());
        if let Some(packed) = cached {
            return packed_html(&packed, headers);
        }
        let (doc, keep) = document(site, lang, &key.url, status, Some(bundle), ssr).await;
        let packed = Arc::new(stoa_api::pack::pack(doc.into()));
        if keep {
            site.cache.put(key, bundle.clone(), packed.clone());
        }
        return packed_html(&packed, headers);
    }
    // Not found, an error, an account screen: made for this request (compressed on the way out).
    let (doc, _) = document(site, lang, rest, status, bundle.as_ref(), ssr).await;
    html(status, doc)
}

/// `doc` without the scripts that would run (module scripts and their preloads); the page's data
/// (`type="application/json"`) stays.
fn without_scripts(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    loop {
        let script = rest.find("<script type=\"module\"");
        let preload = rest.find("<link rel=\"modulepreload\"");
        let Some(at) = [script, preload].into_iter().flatten().min() else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let end = if Some(at) == script {
            tail.find("</script>").map(|e| e + "</script>".len())
        } else {
            tail.find('>').map(|e| e + 1)
        };
        match end {
            Some(e) => rest = &tail[e..],
            None => return out,
        }
    }
}

async fn preview(
    site: &Site,
    lang: &'static str,
    rest: &str,
    framed: bool,
    draft: Option<&str>,
) -> Response {
    let built = match draft {
        Some(key) => site.pages.preview_draft(rest, key).await,
        None => site.pages.preview(rest).await,
    };
    let (status, bundle) = match built {
        Ok(Some(b)) => (StatusCode::OK, Some(b)),
        Ok(None) => (StatusCode::NOT_FOUND, None),
        Err(stoa_kernel::Error::BadRequest { .. }) => (StatusCode::BAD_REQUEST, None),
        Err(e) => {
            tracing::error!(error = %e, path = %rest, "building a preview failed");
            (StatusCode::INTERNAL_SERVER_ERROR, None)
        }
    };
    let (doc, _) = document(site, lang, rest, status, bundle.as_ref(), true).await;
    let doc = if framed { without_scripts(&doc) } else { doc };
    let mut res = html(status, doc);
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        "x-robots-tag",
        HeaderValue::from_static("noindex, nofollow"),
    );
    res
}

/// The HTML document of a page: the shell with the page's head tags and boot data, and the page
/// rendered into `#root` when it has a bundle and the engines are there. The second value says
/// whether the document is worth keeping: rendered, or not rendered for good (no engines, a query,
/// a render that failed) — not when every engine was busy.
async fn document(
    site: &Site,
    lang: &'static str,
    path: &str,
    status: StatusCode,
    bundle: Option<&Arc<serde_json::Value>>,
    ssr: bool,
) -> (String, bool) {
    let place = Place {
        base: &site.public_url,
        lang,
        path,
        languages: LANGUAGES,
        default_language: site.default_language,
        telegram_bot: site.telegram_bot.as_deref(),
        oidc: site.oidc.as_deref(),
    };
    let untitled = serde_json::json!({"title": "Stoa"});
    let meta = bundle.map_or(&untitled, |b| head::meta_in(b, lang));
    let tags = head::tags(meta, &place);
    // Serialised once: the page embeds it, and the server script reads the same text.
    let boot = head::script_json(&head::boot(&place, status.as_u16(), bundle.map(|b| &**b)));
    let mut keep = true;
    let mut root = String::new();
    if let (Some(renderer), Some(_), true) = (&site.renderer, bundle, ssr) {
        let at = if path == "/" {
            format!("/{lang}")
        } else {
            format!("/{lang}{path}")
        };
        match renderer.render(boot.clone(), at).await {
            Ok(html) => root = html,
            Err(stoa_render::RenderError::Busy) => keep = false,
            Err(e) => {
                tracing::warn!(error = %e, lang, path, "server rendering failed; the page renders in the browser");
            }
        }
    }
    (head::inject(&site.shell, lang, &tags, &boot, &root), keep)
}

/// Whether a query string holds only campaign tags (`utm_*`, `gclid`, `fbclid`, `yclid`), which
/// no page reads.
fn only_campaign_tags(query: &str) -> bool {
    form_urlencoded::parse(query.as_bytes()).all(|(k, _)| {
        k.starts_with("utm_") || matches!(&*k, "gclid" | "fbclid" | "yclid" | "_openstat")
    })
}

/// A cached page: `304` when the client has it, else the body in the best encoding it accepts.
fn packed_html(packed: &stoa_api::pack::Packed, headers: &HeaderMap) -> Response {
    stoa_api::pack::respond(packed, headers, "text/html; charset=utf-8")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_framed_preview_keeps_the_page_and_its_data_but_no_script() {
        let doc = r#"<head><link rel="modulepreload" crossorigin href="/assets/a.js"><script type="module" crossorigin src="/assets/index.js"></script></head><body><script id="stoa-page" type="application/json">{"a":1}</script><div id="root"><h1>Hi</h1></div></body>"#;
        let out = super::without_scripts(doc);
        assert_eq!(
            out,
            r#"<head></head><body><script id="stoa-page" type="application/json">{"a":1}</script><div id="root"><h1>Hi</h1></div></body>"#
        );
    }

    use super::{BUILT_IN, built_in};

    #[test]
    fn an_order_page_is_a_client_screen() {
        assert!(built_in(
            "/ecommerce/orders/01a22472-5525-7617-ba15-e3b4d4091ecf"
        ));
        assert!(built_in("/ecommerce/orders/"));
        assert!(!built_in("/ecommerce/orders/not-an-id"));
        assert!(!built_in(
            "/ecommerce/nothing/01a22472-5525-7617-ba15-e3b4d4091ecf"
        ));
    }

    #[test]
    fn built_in_routes_are_the_client_list() {
        for path in [
            "/rbac/subject/authentication/select-method",
            "/rbac/subjects/settings",
            "/ecommerce/orders",
            "/social/chats",
        ] {
            assert!(BUILT_IN.contains(path), "{path}");
        }
        assert!(
            BUILT_IN
                .iter()
                .all(|p| p.starts_with('/') && !p.ends_with('/'))
        );
    }
}
