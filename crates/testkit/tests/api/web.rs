//! The built web UI: hashed assets with immutable caching, the page shell for every other GET
//! outside `/api/`, and JSON 404s for everything that is not a page.

use stoa_testkit::{Db, spawn_app_with};

fn built_ui() -> (std::path::PathBuf, impl Drop) {
    let dir = std::env::temp_dir().join(format!("stoa-web-{}", uuid::Uuid::now_v7().simple()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><title>shell</title><script type=module src=/assets/index-AbC123.js></script>",
    )
    .unwrap();
    std::fs::write(dir.join("assets/index-AbC123.js"), "console.log(1)").unwrap();
    std::fs::write(dir.join("assets/index-AbC123.css"), "body{}").unwrap();
    std::fs::write(dir.join("secret.txt"), "not an asset").unwrap();
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    (dir.clone(), Gone(dir))
}

async fn assets_are_immutable_and_pages_get_the_shell(db: Db) {
    let (dir, _gone) = built_ui();
    let Some(app) = spawn_app_with(db, |c| c.web_dir = dir.display().to_string()).await else {
        return;
    };
    let visitor = app.anon();

    let js = visitor.get("/assets/index-AbC123.js").await;
    assert_eq!(js.status, 200);
    assert_eq!(js.text, "console.log(1)");
    assert!(
        js.header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    assert_eq!(
        js.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let css = visitor.get("/assets/index-AbC123.css").await;
    assert!(css.header("content-type").unwrap().starts_with("text/css"));

    for path in ["/admin", "/admin/host/page"] {
        let page = visitor.get(path).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(page.text.contains("<title>shell</title>"), "{path}");
        assert_eq!(page.header("cache-control"), Some("no-cache"), "{path}");
        assert!(page.header("content-security-policy").is_some(), "{path}");
    }
    // A built-in screen with no page of its own: the shell with its head and boot data.
    let page = visitor.get("/ru/rbac/subjects/settings").await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("<title>Stoa</title>"));
    assert!(
        page.text
            .contains("<script id=\"stoa-page\" type=\"application/json\">")
    );
    assert!(page.text.contains("hreflang=\"en\""));
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    // No page at all: 404, still the shell (the client shows the not-found screen).
    let missing = visitor.get("/en/no/such/page").await;
    assert_eq!(missing.status, 404);
    assert!(missing.text.contains("\"status\":404,\"bundle\":null"));
    assert!(
        missing
            .header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    // Paths without a language go to the default one, keeping the query.
    for (path, to) in [("/", "/ru"), ("/blog?x=1", "/ru/blog?x=1")] {
        let r = visitor.get(path).await;
        assert_eq!(r.status, 307, "{path}");
        assert_eq!(r.header("location"), Some(to), "{path}");
    }
    // Stored files: only names inside the root.
    for path in ["/files/..%2Fstoa.db", "/files/.hidden", "/files/none.svg"] {
        assert_eq!(visitor.get(path).await.status, 404, "{path}");
    }

    for path in [
        "/assets/missing.js",
        "/assets/..%2Fsecret.txt",
        "/assets/.hidden",
        "/api/no/such/route",
        "/api",
    ] {
        let r = visitor.get(path).await;
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.body["code"], "route_not_found", "{path}");
    }
    let post = visitor.post("/admin", &serde_json::json!({})).await;
    assert_eq!(post.status, 404);
}

async fn without_a_build_pages_explain_how_to_make_one(db: Db) {
    let Some(app) = spawn_app_with(db, |c| c.web_dir = "/nonexistent/stoa-web".into()).await else {
        return;
    };
    let page = app.anon().get("/admin").await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("make web"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_assets_and_shell() {
    assets_are_immutable_and_pages_get_the_shell(Db::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_without_a_build() {
    without_a_build_pages_explain_how_to_make_one(Db::Sqlite).await;
}
