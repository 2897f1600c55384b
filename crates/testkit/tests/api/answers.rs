//! Visitors' answers kept by the server (`stoa_api::answers`): a second anonymous read is served
//! from memory with the same bytes and headers, and every write that changes what a visitor
//! may read shows at the next read — edits, unpublishing, deletes, a link's other side going
//! back to draft, the permission table. Signed-in readers get the visitors' kept answer once the
//! gate has let them in; admins never do.

use serde_json::{Value, json};
use stoa_testkit::{TestApp, dual_test};

/// `stoa_cache_lookups_total{cache="api",result=…}` now.
async fn lookups(app: &TestApp, result: &str) -> u64 {
    let text = app.get("/metrics").await.text;
    let needle = format!("stoa_cache_lookups_total{{cache=\"api\",result=\"{result}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&needle))
        .map_or(0, |n| n.trim().parse().expect("a count"))
}

/// The anonymous answer to `path`: status, the headers that do not change per request, body.
async fn visitor(app: &TestApp, path: &str) -> (u16, Vec<(String, String)>, String) {
    let r = app.anon().get(path).await;
    let mut headers: Vec<(String, String)> = r
        .headers
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "x-request-id" | "date"))
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("?").to_owned()))
        .collect();
    headers.sort();
    (r.status, headers, r.text)
}

async fn answers_follow_every_change(app: TestApp) {
    let a = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "kept", "status": "published", "title": {"en": "First", "ru": "Первая"}}),
        )
        .await;
    let id = a["id"].as_str().unwrap().to_owned();
    // Enough of them for the list to be compressed (over 1 KB).
    for n in 0..4 {
        app.create(
            "/api/blog/articles",
            &json!({"slug": format!("other-{n}"), "status": "published",
                    "title": {"en": format!("Other {n}")},
                    "description": {"en": "A text long enough to make the list worth compressing. ".repeat(4)}}),
        )
        .await;
    }
    let one = format!("/api/blog/articles/{id}");
    let list = "/api/blog/articles?limit=100&count=true";

    // Twice the same: the second is served from memory, bytes and headers as the first.
    let hits = lookups(&app, "hit").await;
    let first = visitor(&app, &one).await;
    assert_eq!(first.0, 200, "{}", first.2);
    let second = visitor(&app, &one).await;
    assert_eq!(second, first, "a kept answer is the answer");
    let first_list = visitor(&app, list).await;
    let second_list = visitor(&app, list).await;
    assert_eq!(second_list, first_list);
    assert!(
        first_list.1.iter().any(|(k, _)| k == "x-total-count"),
        "{:?}",
        first_list.1
    );
    assert!(
        first.1.iter().any(|(k, _)| k == "content-security-policy"),
        "the security headers are kept with the answer: {:?}",
        first.1
    );
    assert_eq!(
        lookups(&app, "hit").await - hits,
        2,
        "the second read of each was a hit"
    );

    // Compressed, the same bytes.
    let gz = app
        .plain
        .get(app.url(list))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(
        gz.headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("gzip")
    );
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(&gz.bytes().await.unwrap()[..]),
        &mut text,
    )
    .unwrap();
    assert_eq!(text, first_list.2, "decoded, the same");

    // What the layers mark `no-store` (accounts' routes) is never kept.
    let roles = app.anon().get("/api/rbac/roles").await;
    assert_eq!(roles.status, 200, "{}", roles.text);
    assert_eq!(roles.header("cache-control"), Some("no-store"));
    let before = lookups(&app, "hit").await;
    assert_eq!(app.anon().get("/api/rbac/roles").await.status, 200);
    assert_eq!(lookups(&app, "hit").await, before, "no-store: read again");

    // An edit shows at once.
    let r = app
        .patch(&one, &json!({"title": {"en": "Second", "ru": "Вторая"}}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let after = visitor(&app, &one).await;
    assert!(after.2.contains("Second"), "{}", after.2);
    assert!(visitor(&app, list).await.2.contains("Second"));

    // A link to it, read by visitors; back to draft, it is gone from the link table too.
    let c = app
        .create(
            "/api/blog/categories",
            &json!({"slug": "kept-cat", "title": {"en": "Cat"}}),
        )
        .await;
    app.create(
        "/api/blog/categories-to-articles",
        &json!({"categoryId": c["id"], "articleId": id}),
    )
    .await;
    let links = format!(
        "/api/blog/categories-to-articles?filters[and][0][column]=articleId&filters[and][0][method]=eq&filters[and][0][value]={id}"
    );
    let rows = |t: &str| -> usize {
        serde_json::from_str::<Value>(t).unwrap()["data"]
            .as_array()
            .map_or(0, Vec::len)
    };
    assert_eq!(rows(&visitor(&app, &links).await.2), 1);
    assert_eq!(rows(&visitor(&app, &links).await.2), 1, "kept");
    let r = app.patch(&one, &json!({"status": "draft"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        visitor(&app, &one).await.0,
        404,
        "a draft is not a visitor's"
    );
    assert!(!visitor(&app, list).await.2.contains("Second"));
    assert_eq!(
        rows(&visitor(&app, &links).await.2),
        0,
        "the link's other side is a draft"
    );
    // Admins read drafts, never a visitor's kept answer (nor keep theirs for visitors).
    let admin = app.get(&one).await;
    assert_eq!(admin.status, 200);
    assert_eq!(visitor(&app, &one).await.0, 404);

    // Published again, then deleted.
    app.patch(&one, &json!({"status": "published"})).await;
    assert_eq!(visitor(&app, &one).await.0, 200);
    assert_eq!(visitor(&app, &one).await.0, 200);
    assert_eq!(app.delete(&one).await.status, 200);
    assert_eq!(visitor(&app, &one).await.0, 404, "deleted");

    // A signed-in reader's answer is the visitors': after the gate has let them in, it comes
    // from the kept one (same bytes), with the credentialed answer's `no-store`; an admin's
    // never does (drafts).
    let anon = visitor(&app, list).await;
    let user = app.register("kept-reader@example.com").await;
    let before = lookups(&app, "hit").await;
    let r = app.as_account(&user).get(list).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text, anon.2, "the visitors' answer");
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(
        r.header("x-total-count"),
        anon.1
            .iter()
            .find(|(k, _)| k == "x-total-count")
            .map(|(_, v)| v.as_str())
    );
    assert_eq!(
        lookups(&app, "hit").await,
        before + 1,
        "served from the kept answer"
    );
    assert_eq!(app.get(list).await.status, 200);
    assert_eq!(
        lookups(&app, "hit").await,
        before + 1,
        "an admin reads afresh"
    );
    // A bad token is refused before anything is served.
    let bad = app
        .plain
        .get(app.url(list))
        .bearer_auth("not-a-token")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 401);
}
dual_test!(answers_follow_every_change);

/// The mechanism alone, with a short trust: an answer kept with its counters is a hit until a
/// counted change, and until its time is up even without one.
async fn kept_answers_end_with_a_counted_change_or_their_time(app: TestApp) {
    use axum::body::Body;
    use stoa_api::answers::{self, Answers, Lookup};
    let kept = Answers::new(
        app.store.clone(),
        1 << 20,
        std::time::Duration::from_millis(400),
    )
    .expect("a cache");
    let req = || {
        axum::http::Request::builder()
            .uri("/api/blog/articles?limit=1")
            .body(Body::empty())
            .unwrap()
    };
    let fill = |key: String| {
        let store = app.store.clone();
        kept.clone().collect(key, async move {
            answers::depends_on(&store, "blog.article");
            answers::offer(axum::body::Bytes::from_static(b"{\"data\":[]}"));
            axum::response::Response::new(Body::from("{\"data\":[]}"))
        })
    };
    let Lookup::Miss(key) = kept.lookup(&req()) else {
        panic!("nothing kept yet")
    };
    fill(key).await;
    assert!(matches!(kept.lookup(&req()), Lookup::Hit(_)), "kept");
    app.store.touch(&app.store.entity("blog.article").unwrap());
    let Lookup::Miss(key) = kept.lookup(&req()) else {
        panic!("a counted change ends it")
    };
    fill(key).await;
    assert!(matches!(kept.lookup(&req()), Lookup::Hit(_)), "kept again");
    tokio::time::sleep(std::time::Duration::from_millis(450)).await;
    assert!(
        matches!(kept.lookup(&req()), Lookup::Miss(_)),
        "past its time, read again"
    );
}
dual_test!(kept_answers_end_with_a_counted_change_or_their_time);
