//! Public pages rendered on the server and kept as finished, compressed bytes: the page's markup
//! in `#root`, one cache entry per (language, resolved page) whatever the raw path, `304` for a
//! matching ETag, brotli and gzip by `Accept-Encoding`, new bytes after the page's data changes,
//! the shell when the render fails or runs too long, and compression of API JSON and assets.

use std::io::Read;

use serde_json::json;
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_with};

/// A built UI whose server script renders the page's title, language and path, and counts its
/// renders (so a test sees whether bytes came from the cache). A page titled `loop` never ends;
/// one titled `throw` throws.
fn built_ui() -> (std::path::PathBuf, impl Drop) {
    let dir = std::env::temp_dir().join(format!("stoa-ssr-{}", uuid::Uuid::now_v7().simple()));
    std::fs::create_dir_all(dir.join("assets")).unwrap_or_default();
    std::fs::create_dir_all(dir.join("server")).unwrap_or_default();
    let write = |p: &str, s: &[u8]| std::fs::write(dir.join(p), s).unwrap_or_default();
    write(
        "index.html",
        b"<!doctype html><html lang=\"en\"><head><title>Stoa</title></head><body><div id=\"root\"></div></body></html>",
    );
    write(
        "server/render.js",
        br#"var renders = 0;
var StoaSsr = { render: function (input, path) {
  var b = JSON.parse(input);
  var title = b.bundle.page.title;
  if (title === "loop") { for (;;) {} }
  if (title === "throw") { throw new Error("a widget broke"); }
  renders += 1;
  return "<main data-lang=\"" + b.lang + "\" data-path=\"" + path + "\"><h1>" + title + "</h1><p>render " + renders + "</p>" + "<p>filler</p>".repeat(200) + "</main>";
} };"#,
    );
    let js = "console.log('stoa');".repeat(200);
    write("assets/app-x1.js", js.as_bytes());
    let mut br = Vec::new();
    brotli::BrotliCompress(&mut js.as_bytes(), &mut br, &Default::default()).unwrap_or_default();
    write("assets/app-x1.js.br", &br);
    write("favicon.ico", b"\x00\x00\x01\x00icon");
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    (dir.clone(), Gone(dir))
}

struct Got {
    status: u16,
    headers: reqwest::header::HeaderMap,
    bytes: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    /// The body, decoded by its `Content-Encoding`.
    fn text(&self) -> String {
        let mut out = Vec::new();
        match self.header("content-encoding") {
            Some("br") => {
                brotli::BrotliDecompress(&mut &self.bytes[..], &mut out).unwrap_or_default();
            }
            Some("gzip") => {
                flate2::read::GzDecoder::new(&self.bytes[..])
                    .read_to_end(&mut out)
                    .unwrap_or_default();
            }
            _ => out = self.bytes.clone(),
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Got {
    let mut req = reqwest::Client::new().get(app.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    Got {
        status: res.status().as_u16(),
        headers: res.headers().clone(),
        bytes: res.bytes().await.map(|b| b.to_vec()).unwrap_or_default(),
    }
}

fn root(html: &str) -> &str {
    let start = html.find("<div id=\"root\">").map_or(0, |i| i + 15);
    let end = html[start..]
        .find("</div></body>")
        .map_or(html.len(), |i| start + i);
    &html[start..end]
}

async fn pages_are_rendered_once_and_served_as_bytes(db: Db) {
    let (dir, _gone) = built_ui();
    let Some(app) = spawn_app_with(db, |c| {
        c.web_dir = dir.display().to_string();
        c.ssr_engines = 1;
        c.ssr_budget_ms = 300;
    })
    .await
    else {
        return;
    };
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "About us", "url": "/about"}),
        )
        .await;

    // Rendered on the server, into #root, with the page's language and path.
    let first = get(&app, "/ru/about", &[]).await;
    assert_eq!(first.status, 200);
    let html = first.text();
    assert!(
        root(&html).starts_with(
            "<main data-lang=\"ru\" data-path=\"/ru/about\"><h1>About us</h1><p>render 1</p>"
        ),
        "{}",
        &html[..html.len().min(600)]
    );
    assert!(html.contains("<html lang=\"ru\">"));
    assert!(html.contains("<script id=\"stoa-page\" type=\"application/json\">"));
    let etag = first.header("etag").unwrap_or_default().to_owned();
    assert!(etag.starts_with('"') && etag.len() == 34, "{etag}");
    assert_eq!(first.header("cache-control"), Some("no-cache"));
    assert_eq!(first.header("vary"), Some("Accept-Encoding"));
    assert!(first.header("content-encoding").is_none());

    // The same bytes again, and for raw paths that resolve to the same page; campaign tags do
    // not make a new entry.
    for path in [
        "/ru/about",
        "/ru/about/",
        "/ru//about",
        "/ru///about//",
        "/ru/about?utm_source=mail&utm_medium=x",
        "/ru/about?gclid=1",
    ] {
        let again = get(&app, path, &[]).await;
        assert_eq!(again.status, 200, "{path}");
        assert_eq!(again.header("etag"), Some(etag.as_str()), "{path}");
        assert!(again.text().contains("<p>render 1</p>"), "{path}");
    }

    // 304 for a matching ETag (strong, weak, in a list); 200 otherwise.
    for inm in [etag.clone(), format!("W/{etag}"), format!("\"x\", {etag}")] {
        let not_modified = get(&app, "/ru/about", &[("if-none-match", &inm)]).await;
        assert_eq!(not_modified.status, 304, "{inm}");
        assert!(not_modified.bytes.is_empty());
        assert_eq!(not_modified.header("etag"), Some(etag.as_str()));
    }
    assert_eq!(
        get(&app, "/ru/about", &[("if-none-match", "\"other\"")])
            .await
            .status,
        200
    );

    // Brotli and gzip, as precompressed as the original.
    let identity = html.clone();
    for (accept, encoding) in [
        ("gzip, deflate, br", "br"),
        ("gzip", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("identity", ""),
    ] {
        let r = get(&app, "/ru/about", &[("accept-encoding", accept)]).await;
        assert_eq!(r.status, 200);
        assert_eq!(
            r.header("content-encoding").unwrap_or_default(),
            encoding,
            "{accept}"
        );
        assert_eq!(r.text(), identity, "{accept}");
        // Each encoding is its own representation: its own ETag, from the same content.
        let tag = r.header("etag").unwrap_or_default();
        let suffix = match encoding {
            "br" => "-br",
            "gzip" => "-gz",
            _ => "",
        };
        assert_eq!(
            tag,
            format!("{}{suffix}\"", etag.trim_end_matches('"')),
            "{accept}"
        );
        // Any of them proves the client has the page.
        let again = get(
            &app,
            "/ru/about",
            &[("accept-encoding", accept), ("if-none-match", tag)],
        )
        .await;
        assert_eq!(again.status, 304, "{accept}");
        if !encoding.is_empty() {
            assert!(
                r.bytes.len() * 5 < identity.len(),
                "{accept}: {}",
                r.bytes.len()
            );
        }
    }

    // The other language is its own entry.
    let en = get(&app, "/en/about", &[]).await;
    assert!(root(&en.text()).starts_with("<main data-lang=\"en\""));
    assert_ne!(en.header("etag"), Some(etag.as_str()));

    // A query the page may read: the shell (the browser renders), not the cached render.
    let query = get(&app, "/ru/about?code=123", &[]).await;
    assert_eq!(query.status, 200);
    assert_eq!(root(&query.text()), "");

    // A write the page does not read: its bundle is rebuilt, comes out equal, and the bytes stay
    // (no new render).
    app.create(
        "/api/host/pages",
        &json!({"title": "Elsewhere", "url": "/elsewhere"}),
    )
    .await;
    let unrelated = get(&app, "/ru/about", &[]).await;
    assert_eq!(unrelated.header("etag"), Some(etag.as_str()));
    assert!(unrelated.text().contains("<p>render 1</p>"));

    // A change to the page's data: new bytes.
    let id = page["id"].as_str().unwrap_or_default();
    let patched = app
        .patch(
            &format!("/api/host/pages/{id}"),
            &json!({"title": "About the fund"}),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text);
    let changed = get(&app, "/ru/about", &[]).await;
    assert!(changed.text().contains("<h1>About the fund</h1>"));
    assert_ne!(changed.header("etag"), Some(etag.as_str()));

    // A render that throws or runs past its budget: the page still comes, rendered by the
    // browser; the engine keeps serving other pages.
    for title in ["throw", "loop"] {
        app.create(
            "/api/host/pages",
            &json!({"title": title, "url": format!("/{title}")}),
        )
        .await;
        let r = get(&app, &format!("/ru/{title}"), &[]).await;
        assert_eq!(r.status, 200, "{title}");
        let text = r.text();
        assert_eq!(root(&text), "", "{title}");
        assert!(text.contains("<script id=\"stoa-page\""), "{title}");
    }
    let after = get(&app, "/en/about", &[]).await;
    assert!(after.text().contains("<h1>About the fund</h1>"));

    // No page: 404 with the shell and its boot data (not cached per path).
    let missing = get(&app, "/ru/no-such-page-1", &[]).await;
    assert_eq!(missing.status, 404);
}

async fn assets_and_api_json_are_compressed(db: Db) {
    let (dir, _gone) = built_ui();
    let Some(app) = spawn_app_with(db, |c| c.web_dir = dir.display().to_string()).await else {
        return;
    };
    // A precompressed asset is sent as it is to clients that take brotli.
    let br = get(
        &app,
        "/assets/app-x1.js",
        &[("accept-encoding", "br, gzip")],
    )
    .await;
    assert_eq!(br.status, 200);
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(br.text(), "console.log('stoa');".repeat(200));
    assert_eq!(br.header("vary"), Some("Accept-Encoding"));
    // No gzip file written: compressed on the way out instead.
    let gz = get(&app, "/assets/app-x1.js", &[("accept-encoding", "gzip")]).await;
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.text(), "console.log('stoa');".repeat(200));
    let plain = get(&app, "/assets/app-x1.js", &[]).await;
    assert!(plain.header("content-encoding").is_none());
    assert_eq!(plain.bytes.len(), "console.log('stoa');".len() * 200);

    // API JSON above 1 KiB is compressed; small answers are not.
    for i in 0..10 {
        app.create(
            "/api/host/pages",
            &json!({"title": format!("Page number {i} with a longer title"), "url": format!("/p{i}")}),
        )
        .await;
    }
    let list = get(
        &app,
        "/api/host/pages?limit=50",
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.header("content-encoding"), Some("gzip"));
    let body: serde_json::Value = serde_json::from_str(&list.text()).unwrap_or_default();
    assert!(body["data"].as_array().is_some_and(|d| d.len() >= 10));
    let small = get(
        &app,
        "/api/host/pages?limit=1&offset=999",
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert!(small.header("content-encoding").is_none());
    // A live stream is never compressed (its events must arrive as they are sent).
    let live = reqwest::Client::new()
        .get(app.url("/api/live"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .ok();
    assert!(live.is_some_and(|r| r.headers().get("content-encoding").is_none()));

    // Icons at the root.
    let icon = get(&app, "/favicon.ico", &[]).await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.header("content-type"), Some("image/x-icon"));
    assert_eq!(icon.header("cache-control"), Some("public, max-age=86400"));
    assert_eq!(get(&app, "/favicon.svg", &[]).await.status, 404);
}

/// Titles, descriptions and share tags per language: the page's metadata in that language over
/// the site defaults in that language, then a record written for any language.
async fn head_tags_follow_the_language(db: Db) {
    let (dir, _gone) = built_ui();
    let Some(app) = spawn_app_with(db, |c| c.web_dir = dir.display().to_string()).await else {
        return;
    };
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "Контакты", "url": "/contacts"}),
        )
        .await;
    for (variant, language, title, description) in [
        ("primary", "ru", "Фонд", "Сайт фонда"),
        ("primary", "en", "The fund", "The fund's site"),
        ("default", "ru", "Контакты фонда", ""),
        ("default", "en", "Contact the fund", ""),
    ] {
        let m = app
            .create(
                "/api/host/metadata",
                &json!({"variant": variant, "language": language, "title": title, "description": description}),
            )
            .await;
        if variant == "default" {
            app.create(
                "/api/host/pages-to-metadata",
                &json!({"pageId": page["id"], "metadataId": m["id"]}),
            )
            .await;
        }
    }
    let ru = get(&app, "/ru/contacts", &[]).await.text();
    assert!(ru.contains("<title>Контакты фонда</title>"), "{ru}");
    assert!(ru.contains("<meta name=\"description\" content=\"Сайт фонда\">"));
    assert!(ru.contains("<meta property=\"og:title\" content=\"Контакты фонда\">"));
    let en = get(&app, "/en/contacts", &[]).await.text();
    assert!(en.contains("<title>Contact the fund</title>"), "{en}");
    assert!(en.contains("content=\"The fund&#39;s site\">"), "{en}");
    assert!(en.contains("<meta name=\"twitter:title\" content=\"Contact the fund\">"));
    let head = &en[..en.find("</head>").unwrap_or(en.len())];
    assert!(
        !head
            .chars()
            .any(|c| matches!(c, 'а'..='я' | 'А'..='Я' | 'ё' | 'Ё')),
        "no Russian in the English head: {head}"
    );
    // The bundle carries both, for the browser's own title changes.
    let bundle = app.anon().get("/api/host/pages/bundle?url=/contacts").await;
    assert_eq!(
        bundle.data()["metaByLanguage"]["en"]["title"],
        "Contact the fund"
    );
    assert_eq!(
        bundle.data()["metaByLanguage"]["ru"]["title"],
        "Контакты фонда"
    );
}

dual_test!(pages_are_rendered_once_and_served_as_bytes, db);
dual_test!(assets_and_api_json_are_compressed, db);
dual_test!(head_tags_follow_the_language, db);
