//! Page URLs: resolving a URL to its page through templates, listing URLs, reading a segment.

use serde_json::{Value, json};
use stoa_testkit::{Res, TestApp, dual_test};

fn enc(url: &str) -> String {
    url.replace('/', "%2F").replace('?', "%3F")
}

async fn find(app: &TestApp, url: &str) -> Res {
    app.anon()
        .get(&format!("/api/host/pages/find-by-url?url={}", enc(url)))
        .await
}

async fn seg(app: &TestApp, url: &str, s: &str) -> Value {
    app.anon()
        .get(&format!(
            "/api/host/pages/url-segment-value?url={}&segment={s}",
            enc(url)
        ))
        .await
        .data()
        .clone()
}

fn title(r: &Res) -> Option<String> {
    r.data()["title"].as_str().map(str::to_owned)
}

async fn a_url_resolves_to_its_page_through_templates(app: TestApp) {
    for (title, url) in [
        ("Home", "/"),
        ("Blog", "/blog"),
        ("Article", "/blog/articles/[blog.articles.slug]"),
        ("Articles", "/blog/all/[blog.articles:pagination:2]"),
        ("Not found", "/404"),
    ] {
        app.create("/api/host/pages", &json!({"title": title, "url": url}))
            .await;
    }
    for slug in ["plant-a-tree", "water-it", "wait"] {
        app.create("/api/blog/articles", &json!({"slug": slug}))
            .await;
    }
    let visitor = app.anon();

    assert_eq!(title(&find(&app, "/").await).as_deref(), Some("Home"));
    assert_eq!(title(&find(&app, "index").await).as_deref(), Some("Home"));
    assert_eq!(
        title(&find(&app, "/blog?utm=x").await).as_deref(),
        Some("Blog")
    );
    assert_eq!(
        title(&find(&app, "/blog/articles/water-it").await).as_deref(),
        Some("Article")
    );
    let missing = find(&app, "/blog/articles/no-such-article").await;
    assert_eq!(missing.status, 404, "{}", missing.text);
    assert!(
        missing.body["error"]
            .as_str()
            .unwrap()
            .contains("not found")
    );
    // 3 articles at 2 per page: "", "2" exist, "3" does not.
    assert_eq!(
        title(&find(&app, "/blog/all").await).as_deref(),
        Some("Articles")
    );
    assert_eq!(
        title(&find(&app, "/blog/all/2").await).as_deref(),
        Some("Articles")
    );
    assert_eq!(find(&app, "/blog/all/3").await.status, 404);
    assert_eq!(find(&app, "/blog/all/one").await.status, 404);
    assert_eq!(find(&app, "/nowhere/at/all").await.status, 404);
    assert_eq!(visitor.get("/api/host/pages/find-by-url").await.status, 400);

    let urls = visitor.get("/api/host/pages/urls").await;
    assert_eq!(urls.status, 200);
    let mut got: Vec<&str> = urls.data()["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "/",
            "/404",
            "/blog",
            "/blog/all/[blog.articles:pagination:2]",
            "/blog/articles/[blog.articles.slug]"
        ]
    );

    assert_eq!(
        seg(&app, "/blog/articles/plant-a-tree", "blog.articles.slug").await,
        json!("plant-a-tree")
    );
    assert_eq!(seg(&app, "/blog/all", "blog.articles").await, json!("1"));
    assert_eq!(seg(&app, "/blog/all/2", "blog.articles").await, json!("2"));
    assert_eq!(
        seg(
            &app,
            "/blog/articles/plant-a-tree",
            "ecommerce.products.slug"
        )
        .await,
        json!(null)
    );
    assert_eq!(
        seg(&app, "/nowhere", "blog.articles.slug").await,
        json!(null)
    );
}
dual_test!(a_url_resolves_to_its_page_through_templates);

async fn the_sitemap_lists_every_concrete_url_in_every_language(app: TestApp) {
    for url in [
        "/",
        "/blog/articles/[blog.articles.slug]",
        "/blog/all/[blog.articles:pagination:2]",
    ] {
        app.create("/api/host/pages", &json!({"title": "P", "url": url}))
            .await;
    }
    for slug in ["plant-a-tree", "water-it", "wait"] {
        app.create("/api/blog/articles", &json!({"slug": slug}))
            .await;
    }
    let r = app.anon().get("/sitemap.xml").await;
    assert_eq!(r.status, 200);
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/xml")
    );
    let base = app.base.trim_end_matches('/');
    for lang in ["en", "ru"] {
        for path in [
            "",
            "/blog/articles/plant-a-tree",
            "/blog/articles/water-it",
            "/blog/articles/wait",
            "/blog/all",
            "/blog/all/2",
        ] {
            let loc = format!("<loc>{base}/{lang}{path}</loc>");
            assert!(r.text.contains(&loc), "{loc} missing from\n{}", r.text);
        }
        assert!(
            !r.text
                .contains(&format!("<loc>{base}/{lang}/blog/all/3</loc>"))
        );
    }
    assert!(r.text.contains("hreflang=\"ru\""));
    assert!(!r.text.contains("[blog"), "templates are expanded");
    // Built once and kept: a request right after a write is served the kept sitemap, not a new
    // walk over the data (it is rebuilt a minute later at the soonest).
    app.create("/api/blog/articles", &json!({"slug": "fresh-one"}))
        .await;
    let again = app.anon().get("/sitemap.xml").await;
    assert_eq!(again.text, r.text);

    let robots = app.anon().get("/robots.txt").await;
    assert_eq!(robots.status, 200);
    assert!(
        robots
            .text
            .contains(&format!("Sitemap: {base}/sitemap.xml"))
    );
    assert!(robots.text.contains("Disallow: /admin"));
}
dual_test!(the_sitemap_lists_every_concrete_url_in_every_language);

/// Past one file's entries, `/sitemap.xml` is an index and every URL is in exactly one of its
/// files (here 4 entries a file: 2 URLs in 2 languages; in production 50 000 entries).
async fn a_big_sitemap_is_an_index_of_files(app: TestApp) {
    app.create(
        "/api/host/pages",
        &json!({"title": "P", "url": "/blog/articles/[blog.articles.slug]"}),
    )
    .await;
    let slugs: Vec<String> = (0..7).map(|i| format!("tree-{i}")).collect();
    for slug in &slugs {
        app.create("/api/blog/articles", &json!({"slug": slug}))
            .await;
    }
    let base = app.base.trim_end_matches('/');
    let index = app.anon().get("/sitemap.xml").await;
    assert_eq!(index.status, 200);
    assert!(index.text.contains("<sitemapindex"), "{}", index.text);
    // 7 article URLs + nothing else (no home page here) = 4 files of 2.
    let files: Vec<String> = (1..=4)
        .map(|n| format!("{base}/sitemaps/{n}.xml"))
        .collect();
    for f in &files {
        assert!(
            index.text.contains(&format!("<loc>{f}</loc>")),
            "{f}: {}",
            index.text
        );
    }
    assert!(!index.text.contains("/sitemaps/5.xml"));
    let mut seen = Vec::new();
    for n in 1..=4 {
        let r = app.anon().get(&format!("/sitemaps/{n}.xml")).await;
        assert_eq!(r.status, 200, "{n}: {}", r.text);
        assert!(r.text.contains("<urlset"), "{}", r.text);
        assert!(r.text.matches("<url>").count() <= 4, "{}", r.text);
        for slug in &slugs {
            if r.text
                .contains(&format!("<loc>{base}/en/blog/articles/{slug}</loc>"))
            {
                assert!(
                    r.text
                        .contains(&format!("<loc>{base}/ru/blog/articles/{slug}</loc>"))
                );
                seen.push(slug.clone());
            }
        }
    }
    seen.sort();
    assert_eq!(seen, slugs, "every URL in exactly one file");
    for missing in [
        "/sitemaps/0.xml",
        "/sitemaps/5.xml",
        "/sitemaps/x.xml",
        "/sitemaps/1",
    ] {
        assert_eq!(app.anon().get(missing).await.status, 404, "{missing}");
    }
}
dual_test!(@app a_big_sitemap_is_an_index_of_files, |db| stoa_testkit::spawn_app_with(db, |c| c.sitemap_urls_per_file = 4));

/// The blog's Atom feed per language: its newest articles first, titled in the language, each
/// linking its page.
async fn the_blog_has_a_feed_per_language(app: TestApp) {
    app.create(
        "/api/host/pages",
        &json!({"title": "Article", "url": "/blog/[blog.articles.slug]"}),
    )
    .await;
    for (slug, en, ru) in [
        ("first", "The first", "Первая"),
        ("second", "The second", "Вторая"),
    ] {
        app.create(
            "/api/blog/articles",
            &json!({"slug": slug, "title": {"en": en, "ru": ru}, "subtitle": {"en": format!("{en}, briefly"), "ru": format!("{ru}, кратко")}}),
        )
        .await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let base = app.base.trim_end_matches('/');
    for (lang, newest, older, summary) in [
        ("ru", "Вторая", "Первая", "Вторая, кратко"),
        ("en", "The second", "The first", "The second, briefly"),
    ] {
        let r = app.anon().get(&format!("/{lang}/feed.xml")).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert!(
            r.header("content-type")
                .unwrap()
                .starts_with("application/atom+xml"),
        );
        assert!(
            r.text.contains(&format!("xml:lang=\"{lang}\"")),
            "{}",
            r.text
        );
        let at = |s: &str| {
            r.text
                .find(&format!("<title>{s}</title>"))
                .unwrap_or(usize::MAX)
        };
        assert!(
            at(newest) < at(older) && at(older) < usize::MAX,
            "newest first: {}",
            r.text
        );
        assert!(
            r.text.contains(&format!("<summary>{summary}</summary>")),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains(&format!("href=\"{base}/{lang}/blog/second\"")),
            "{}",
            r.text
        );
        assert!(
            r.text.contains(&format!("href=\"{base}/{lang}/feed.xml\"")),
            "its own address: {}",
            r.text
        );
    }
    let r = app.anon().get("/xx/feed.xml").await;
    assert_eq!(r.status, 404, "{}", r.text);
}
dual_test!(the_blog_has_a_feed_per_language);

/// The page builder's unsaved edits: an admin keeps a draft and gets its key; the admin's
/// preview bundle is the page with the draft laid over its records (nothing is written); bad
/// drafts are a 4xx naming what is wrong, and only admins keep drafts.
async fn an_unsaved_draft_shows_in_the_preview_only(app: TestApp) {
    use std::sync::Arc;
    let page = app
        .create(
            "/api/host/pages",
            &json!({"title": "Draft page", "url": "/draft-page"}),
        )
        .await;
    let widget = app
        .create("/api/host/widgets", &json!({"title": {"ru": "Было"}}))
        .await;
    let r = app
        .post(
            "/api/host/pages-to-widgets",
            &json!({"pageId": page["id"], "widgetId": widget["id"], "orderIndex": 0}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let draft = json!({"patches": [{"id": widget["id"], "fields": {"title": {"ru": "Стало"}}}]});
    let r = app.post("/api/host/pages/drafts", &draft).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let key = r.data()["key"].as_str().unwrap().to_owned();
    let pages = app
        .ctx
        .need::<dyn stoa_api::module::Pages>()
        .expect("pages");
    let title =
        |b: &Option<Arc<Value>>| b.as_ref().expect("a page")["widgets"][0]["title"]["ru"].clone();
    let with = pages.preview_draft("/draft-page", &key).await.unwrap();
    assert_eq!(title(&with), "Стало");
    let without = pages.preview("/draft-page").await.unwrap();
    assert_eq!(
        title(&without),
        "Было",
        "the plain preview is the stored page"
    );
    let gone = pages
        .preview_draft("/draft-page", "no-such-key")
        .await
        .unwrap();
    assert_eq!(
        title(&gone),
        "Было",
        "an unknown draft is the plain preview"
    );
    let stored = app
        .get(&format!(
            "/api/host/widgets/{}",
            widget["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(stored.data()["title"]["ru"], "Было", "nothing is written");

    let r = app
        .post(
            "/api/host/pages/drafts",
            &json!({"patches": [{"id": "x", "fields": {}}]}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("patches[0].id"), "{}", r.text);
    let r = app.anon().post("/api/host/pages/drafts", &draft).await;
    assert_eq!(r.status, 401, "{}", r.text);
}
dual_test!(an_unsaved_draft_shows_in_the_preview_only);
