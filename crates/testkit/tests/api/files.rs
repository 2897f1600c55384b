//! Files and media: uploads kept (disk and S3), served with ETags and ranges, image sizes on
//! demand, refusals (wrong type, bombs, oversized bodies, files where none are taken), safe
//! create-from-url, and generated images.

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use stoa_testkit::{Db, Res, TestApp, dual_test, spawn_app_with};

/// A PNG of `w` × `h` with a gradient (so its sizes differ from each other).
pub fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("png");
    out.into_inner()
}

/// A valid PNG whose header claims `w` × `h` (the pixel data is one pixel's).
fn bomb(w: u32, h: u32) -> Vec<u8> {
    let mut b = png(1, 1);
    b[16..20].copy_from_slice(&w.to_be_bytes());
    b[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32fast::hash(&b[12..29]);
    b[29..33].copy_from_slice(&crc.to_be_bytes());
    b
}

/// A multipart body as Chromium's `FormData` sends it: the boundary has capital letters.
fn form(data: &Value, field: &str, name: &str, ctype: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "----WebKitFormBoundaryQ3xZp7LmNaB2cD9e";
    let mut body = Vec::new();
    write!(
        body,
        "--{boundary}\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n{data}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\nContent-Type: {ctype}\r\n\r\n"
    )
    .expect("write");
    body.extend_from_slice(bytes);
    write!(body, "\r\n--{boundary}--\r\n").expect("write");
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Writes `head(secret key)` on a raw connection, sends nothing more, and reads what comes back
/// within 10 s: an answer proves the server did not wait for the rest of the body.
async fn raw(app: &TestApp, head: impl FnOnce(&str) -> String) -> String {
    let addr = app.base.trim_start_matches("http://").to_owned();
    let request = head(&app.secret_key);
    tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .ok();
        s.write_all(request.as_bytes()).expect("write");
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).to_string()
    })
    .await
    .unwrap_or_default()
}

async fn upload_to(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    data: &Value,
    name: &str,
    bytes: &[u8],
) -> Res {
    let (ct, body) = form(data, "file", name, "image/png", bytes);
    app.send(
        app.client
            .request(method, app.url(path))
            .header("content-type", ct)
            .body(body),
    )
    .await
}

async fn upload(app: &TestApp, name: &str, bytes: &[u8]) -> Res {
    upload_to(
        app,
        reqwest::Method::POST,
        "/api/file-storage/files",
        &json!({"alt": "A tree"}),
        name,
        bytes,
    )
    .await
}

async fn fetch(
    app: &TestApp,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let mut req = app.plain.get(app.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.expect("get");
    let status = r.status().as_u16();
    let h = r.headers().clone();
    (status, h, r.bytes().await.expect("body").to_vec())
}

fn header<'a>(h: &'a reqwest::header::HeaderMap, k: &str) -> &'a str {
    h.get(k).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

fn dims(bytes: &[u8]) -> Option<(u32, u32)> {
    image::load_from_memory(bytes)
        .ok()
        .map(|i| (i.width(), i.height()))
}

async fn file_rows(app: &TestApp) -> usize {
    app.get("/api/file-storage/files?limit=100")
        .await
        .data()
        .as_array()
        .map_or(0, Vec::len)
}

/// Upload, read back, the headers a file is served with, 304, 206, sizes, replace.
async fn round_trip(app: &TestApp) {
    let original = png(300, 200);
    let r = upload(app, "../../Фото дерева<1>.png", &original).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let row = r.data().clone();
    let url = row["file"].as_str().unwrap_or_default().to_owned();
    assert!(url.starts_with("/files/") && url.ends_with(".png"), "{url}");
    assert_eq!(row["mimeType"], "image/png");
    assert_eq!(row["size"], json!(original.len()));
    assert_eq!(
        (row["width"].clone(), row["height"].clone()),
        (json!(300), json!(200))
    );
    assert_eq!(row["extension"], "png");
    assert_eq!(row["originalName"], "Фото дерева_1_.png");
    assert_eq!(row["alt"], "A tree");

    let (status, h, bytes) = fetch(app, &url, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, original, "read back byte-identical");
    assert_eq!(header(&h, "content-type"), "image/png");
    assert_eq!(header(&h, "x-content-type-options"), "nosniff");
    assert!(header(&h, "cache-control").contains("immutable"));
    let etag = header(&h, "etag").to_owned();
    assert!(etag.starts_with('"') && etag.len() > 60, "{etag}");

    let (status, _, body) = fetch(app, &url, &[("if-none-match", &etag)]).await;
    assert_eq!((status, body.len()), (304, 0));
    let (status, h, body) = fetch(app, &url, &[("range", "bytes=0-9")]).await;
    assert_eq!(status, 206);
    assert_eq!(body, original[..10]);
    assert_eq!(
        header(&h, "content-range"),
        format!("bytes 0-9/{}", original.len())
    );
    let (status, _, _) = fetch(app, &url, &[("range", "bytes=999999-")]).await;
    assert_eq!(status, 416);

    // Sizes: made once, then served like any file.
    let sized = format!("{url}?w=64&format=webp");
    let (status, h, first) = fetch(app, &sized, &[]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&first));
    assert_eq!(header(&h, "content-type"), "image/webp");
    assert_eq!(dims(&first), Some((64, 43)));
    let (_, h2, again) = fetch(app, &sized, &[]).await;
    assert_eq!(again, first);
    assert_eq!(header(&h2, "etag"), header(&h, "etag"));
    // Made once and kept in the configured storage beside the original.
    let files = app.ctx.need::<stoa_file_storage::Files>().expect("files");
    let stem = url.trim_start_matches("/files/").trim_end_matches(".png");
    let kept = files
        .storage
        .read(&format!("sizes/{stem}/w64-h0-contain.webp"))
        .await
        .expect("read");
    assert_eq!(kept.as_deref(), Some(first.as_slice()));
    let (status, _, cover) = fetch(
        app,
        &format!("{url}?w=128&h=128&fit=cover&format=jpeg"),
        &[],
    )
    .await;
    assert_eq!((status, dims(&cover)), (200, Some((128, 128))));
    // AVIF (encoded with rav1e; this build decodes no AVIF, so its box header is what is read).
    let (status, h, avif) = fetch(app, &format!("{url}?w=64&format=avif"), &[]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&avif));
    assert_eq!(header(&h, "content-type"), "image/avif");
    assert_eq!(&avif[4..12], b"ftypavif", "an AVIF file");
    assert!(avif.len() < first.len() * 4, "{} bytes", avif.len());
    for bad in ["?w=65", "?format=bmp", "?w=64&evil=1"] {
        let (status, _, _) = fetch(app, &format!("{url}{bad}"), &[]).await;
        assert_eq!(status, 400, "{bad}");
    }

    // The same bytes again share one stored object; a replacement changes the URL.
    let twin = upload(app, "copy.png", &original).await;
    assert_eq!(twin.data()["file"], json!(url));
    let id = row["id"].as_str().unwrap_or_default();
    let other = png(40, 30);
    let r = upload_to(
        app,
        reqwest::Method::PATCH,
        &format!("/api/file-storage/files/{id}"),
        &json!({}),
        "new.png",
        &other,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_ne!(r.data()["file"], json!(url));
    assert_eq!(r.data()["width"], json!(40));
    assert_eq!(r.data()["alt"], "A tree", "fields not sent stay");
    let (_, _, back) = fetch(app, r.data()["file"].as_str().unwrap_or_default(), &[]).await;
    assert_eq!(back, other);
}

/// What is refused, and that a refusal keeps nothing.
async fn refusals(app: &TestApp) {
    let before = file_rows(app).await;
    let html = b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>";
    let r = upload(app, "cat.png", html).await;
    assert_eq!(r.status, 415, "{}", r.text);
    assert!(
        r.body["error"]
            .as_str()
            .is_some_and(|e| e.contains("not accepted")),
        "{}",
        r.text
    );
    let r = upload(app, "big.png", &bomb(50_000, 50_000)).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("50000 × 50000"), "{}", r.text);
    assert_eq!(file_rows(app).await, before, "refused uploads leave no row");

    // A file sent to a route that takes none: refused on its header.
    let (ct, body) = form(
        &json!({"title": "x"}),
        "file",
        "a.png",
        "image/png",
        &png(2, 2),
    );
    let r = app
        .send(
            app.client
                .post(app.url("/api/blog/articles"))
                .header("content-type", ct)
                .body(body),
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.text);
    assert!(r.text.contains("application/json"), "{}", r.text);
    // …before its bytes: the body (chunked, no length) stops after the part's header and the
    // answer still comes.
    let answer = raw(app, |key| {
        let part = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\u{89}PNG";
        format!(
            "POST /api/blog/articles HTTP/1.1\r\nHost: x\r\nx-rbac-secret-key: {key}\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{part}\r\n",
            part.len()
        )
    })
    .await;
    assert!(answer.starts_with("HTTP/1.1 415"), "{answer}");

    // 100 MB announced: answered 413 before one byte of the body is sent.
    let answer = raw(app, |key| format!(
        "POST /api/file-storage/files HTTP/1.1\r\nHost: x\r\nx-rbac-secret-key: {key}\r\nContent-Type: multipart/form-data; boundary=abc\r\nContent-Length: 100000000\r\n\r\n"
    ))
    .await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    // SVG is kept but never served as an active document.
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>"#;
    let r = upload(app, "x.svg", svg).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let (_, h, _) = fetch(app, r.data()["file"].as_str().unwrap_or_default(), &[]).await;
    assert_eq!(header(&h, "content-type"), "image/svg+xml");
    assert_eq!(header(&h, "content-disposition"), "attachment");
    assert!(header(&h, "content-security-policy").contains("sandbox"));

    let (status, _, _) = fetch(app, "/files/..%2f..%2fetc%2fpasswd", &[]).await;
    assert_eq!(status, 404);
}

async fn uploads_are_kept_and_served(app: TestApp) {
    round_trip(&app).await;
    refusals(&app).await;
}
dual_test!(uploads_are_kept_and_served);

pub use stoa_testkit::s3::start_s3;

async fn uploads_go_to_s3(db: Db) {
    let s3 = start_s3("stoa-media").await;
    let endpoint = s3.endpoint.clone();
    let Some(app) = spawn_app_with(db, move |c| {
        c.files.files = Some("s3://stoa-media/site".into());
        c.files.s3_endpoint = Some(endpoint);
        c.files.s3_access_key_id = Some("test".into());
        c.files.s3_secret_access_key = Some("test".into());
    })
    .await
    else {
        return;
    };
    round_trip(&app).await;
    // The bytes are in the bucket (under the prefix), not in the data folder.
    let files = app.ctx.need::<stoa_file_storage::Files>().expect("files");
    assert_eq!(files.storage.backend, "s3");
    let keys = files.storage.list(None).await.expect("list");
    assert!(
        keys.iter().any(|(k, _)| k.starts_with("sizes/")),
        "{keys:?}"
    );
    let listing = reqwest::get(format!(
        "{}/stoa-media?list-type=2&prefix=site/",
        s3.endpoint
    ))
    .await
    .expect("list bucket")
    .text()
    .await
    .unwrap_or_default();
    assert!(listing.contains("<Key>site/"), "{listing}");
}
dual_test!(uploads_go_to_s3, db);

/// A loopback listener that counts the connections it is offered.
async fn counter() -> (u16, Arc<AtomicUsize>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = l.local_addr().map(|a| a.port()).unwrap_or(0);
    let n = Arc::new(AtomicUsize::new(0));
    let seen = n.clone();
    tokio::spawn(async move {
        while let Ok((_s, _)) = l.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, n)
}

/// An allowed origin with an image and redirects (to the counter, and a chain of four).
async fn origin(target: u16) -> u16 {
    use axum::response::{IntoResponse, Redirect};
    use axum::routing::get;
    let img = png(20, 10);
    let app = axum::Router::new()
        .route(
            "/tree.png",
            get(move || {
                let b = img.clone();
                async move { ([("content-type", "image/png")], b).into_response() }
            }),
        )
        .route(
            "/to-loopback",
            get(
                move || async move { Redirect::temporary(&format!("http://127.0.0.1:{target}/x")) },
            ),
        )
        .route(
            "/to-localhost",
            get(
                move || async move { Redirect::temporary(&format!("http://localhost:{target}/x")) },
            ),
        )
        .route(
            "/hop/{n}",
            get(
                |axum::extract::Path(n): axum::extract::Path<u32>| async move {
                    if n == 0 {
                        Redirect::temporary("/tree.png")
                    } else {
                        Redirect::temporary(&format!("/hop/{}", n - 1))
                    }
                },
            ),
        );
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = l.local_addr().map(|a| a.port()).unwrap_or(0);
    tokio::spawn(async move { axum::serve(l, app).await });
    port
}

async fn create_from_url_reaches_no_private_address(db: Db) {
    let (target, connections) = counter().await;
    let allowed = origin(target).await;
    let Some(app) = spawn_app_with(db, move |c| {
        c.files.fetch_allow = Some(format!("127.0.0.1:{allowed}"));
    })
    .await
    else {
        return;
    };
    let from = |url: String| {
        let app = &app;
        async move {
            app.post(
                "/api/file-storage/files/create-from-url",
                &json!({"url": url, "alt": "x"}),
            )
            .await
        }
    };
    let t = target;
    for url in [
        format!("http://127.0.0.1:{t}/"),
        format!("http://localhost:{t}/"),
        format!("http://[::1]:{t}/"),
        format!("http://0.0.0.0:{t}/"),
        format!("http://169.254.169.254:{t}/latest/meta-data/"),
        format!("http://10.0.0.1:{t}/"),
        format!("http://172.16.0.1:{t}/"),
        format!("http://192.168.0.1:{t}/"),
        format!("http://[fc00::1]:{t}/"),
        format!("http://[::ffff:127.0.0.1]:{t}/"),
        format!("http://2130706433:{t}/"),
        format!("http://0x7f000001:{t}/"),
        format!("http://127.0.0.1:{allowed}/to-loopback"),
        format!("http://127.0.0.1:{allowed}/to-localhost"),
        "file:///etc/passwd".to_owned(),
        format!("gopher://127.0.0.1:{t}/"),
    ] {
        let r = from(url.clone()).await;
        assert_eq!(r.status, 422, "{url}: {}", r.text);
        assert!(r.body["fields"].get("url").is_some(), "{url}: {}", r.text);
    }
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "no refused URL reached the listener"
    );

    // The allowed origin works, through up to three redirects.
    let r = from(format!("http://127.0.0.1:{allowed}/tree.png")).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        (r.data()["width"].clone(), r.data()["alt"].clone()),
        (json!(20), json!("x"))
    );
    assert_eq!(r.data()["originalName"], "tree.png");
    let (_, _, bytes) = fetch(&app, r.data()["file"].as_str().unwrap_or_default(), &[]).await;
    assert_eq!(bytes, png(20, 10));
    assert_eq!(
        from(format!("http://127.0.0.1:{allowed}/hop/2"))
            .await
            .status,
        201
    );
    let r = from(format!("http://127.0.0.1:{allowed}/hop/3")).await;
    assert_eq!(r.status, 422, "four redirects: {}", r.text);
    assert_eq!(
        app.plain
            .post(app.url("/api/file-storage/files/create-from-url"))
            .json(&json!({"url": "http://x"}))
            .send()
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0),
        401
    );
}
dual_test!(create_from_url_reaches_no_private_address, db);

async fn templates_render_receipts_and_share_images(app: TestApp) {
    let order = json!({"id": "0198a0b1-0000-7000-8000-000000000001", "email": "b@example.com", "checkoutTotal": "1500",
        "billingModuleCurrency": {"symbol": "₽"}, "ordersToProducts": [{"quantity": 5, "product": {"title": {"ru": "Дерево", "en": "Tree"}}, "total": [{"total": "1500"}]}]});
    let r = app
        .post("/api/file-storage/files/generate", &json!({"variant": "generate-template-ecommerce-order-receipt-default", "language": "ru", "ecommerce": {"order": order}}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        (r.data()["width"].clone(), r.data()["height"].clone()),
        (json!(1485), json!(1050))
    );
    assert_eq!(r.data()["mimeType"], "image/png");
    let (_, _, png) = fetch(&app, r.data()["file"].as_str().unwrap_or_default(), &[]).await;
    assert_eq!(dims(&png), Some((1485, 1050)));
    let r = app
        .post(
            "/api/file-storage/files/generate",
            &json!({"variant": "nope"}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = app
        .post(
            "/api/file-storage/files/generate",
            &json!({"variant": "generate-template-opengraph-image-default", "width": 99999}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
}
dual_test!(templates_render_receipts_and_share_images);

async fn pages_share_a_generated_image(app: TestApp) {
    let dir = std::env::temp_dir().join(format!("stoa-demo-{}", uuid::Uuid::now_v7().simple()));
    stoa_site::demo::seed(&app.store, &dir).await.expect("demo");
    let _ = std::fs::remove_dir_all(&dir);
    let html = app
        .plain
        .get(app.url("/ru/"))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .unwrap_or_default();
    let tag = "<meta property=\"og:image\" content=\"";
    let at = html
        .find(tag)
        .map(|i| i + tag.len())
        .expect("og:image on the home page");
    let url = html[at..]
        .split('"')
        .next()
        .unwrap_or_default()
        .replace("&amp;", "&");
    assert!(
        url.starts_with(&format!("{}/files/share/ru/index.png?v=", app.base)),
        "{url}"
    );
    assert!(
        html.contains("<meta name=\"twitter:image\""),
        "twitter:image too"
    );
    let path = url.trim_start_matches(&app.base).to_owned();
    let (status, h, png) = fetch(&app, &path, &[]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&png));
    assert_eq!(header(&h, "content-type"), "image/png");
    assert_eq!(dims(&png), Some((1200, 630)));
    let etag = header(&h, "etag").to_owned();
    let (status, _, _) = fetch(&app, &path, &[("if-none-match", &etag)]).await;
    assert_eq!(status, 304);
    let (status, _, _) = fetch(&app, "/files/share/ru/no-such-page.png", &[]).await;
    assert_eq!(status, 404);
    let (status, _, _) = fetch(&app, "/files/share/xx/index.png", &[]).await;
    assert_eq!(status, 404);
}
dual_test!(pages_share_a_generated_image);

/// Stored bytes no row uses are swept (with their sizes); bytes a row still uses stay.
async fn unused_files_are_swept(app: TestApp) {
    let kept = upload(&app, "kept.png", &png(30, 20)).await;
    let gone = upload(&app, "gone.png", &png(31, 20)).await;
    let (kept_url, gone_url) = (
        kept.data()["file"].as_str().unwrap_or_default().to_owned(),
        gone.data()["file"].as_str().unwrap_or_default().to_owned(),
    );
    assert_eq!(fetch(&app, &format!("{gone_url}?w=64"), &[]).await.0, 200);
    let id = gone.data()["id"].as_str().unwrap_or_default();
    assert_eq!(
        app.delete(&format!("/api/file-storage/files/{id}"))
            .await
            .status,
        200
    );
    assert_eq!(
        fetch(&app, &gone_url, &[]).await.0,
        200,
        "kept until the sweep"
    );
    let files = app.ctx.need::<stoa_file_storage::Files>().expect("files");
    assert_eq!(
        files.storage.list(Some("sizes")).await.expect("list").len(),
        1
    );
    // Within the grace period nothing goes.
    assert_eq!(
        files
            .sweep(std::time::Duration::from_secs(3600))
            .await
            .expect("sweep"),
        0
    );
    assert_eq!(
        files.sweep(std::time::Duration::ZERO).await.expect("sweep"),
        1
    );
    assert_eq!(fetch(&app, &gone_url, &[]).await.0, 404);
    assert!(
        files
            .storage
            .list(Some("sizes"))
            .await
            .expect("list")
            .is_empty()
    );
    assert_eq!(fetch(&app, &kept_url, &[]).await.2, png(30, 20));
}
dual_test!(unused_files_are_swept);

/// The URL of `bytes` uploaded as a file row by the admin.
async fn uploaded(app: &TestApp, name: &str, bytes: &[u8]) -> String {
    let r = upload_to(
        app,
        reqwest::Method::POST,
        "/api/file-storage/files",
        &json!({}),
        name,
        bytes,
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.data()["file"].as_str().expect("url").to_owned()
}

/// CPU seconds this process (server and client) has used.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<u64>() as f64 / 100.0
}

/// Issue 47, fix 2: an anonymous `?format=avif` of a large original is not a full-size
/// re-encode (the review: 31 CPU-s and 1.4 GB for a 40-megapixel PNG, every repeat the same):
/// it is made within the AVIF box, once (the repeat is served what was kept), and a small resize
/// of another image is answered while it is made.
async fn a_large_image_costs_a_bounded_variant_once(app: TestApp) {
    let flat = image::RgbImage::from_pixel(4000, 4000, image::Rgb([30, 120, 60]));
    let mut big = std::io::Cursor::new(Vec::new());
    flat.write_to(&mut big, image::ImageFormat::Png)
        .expect("png");
    let big_url = uploaded(&app, "big.png", big.get_ref()).await;
    let small_url = uploaded(&app, "small.png", &png(300, 200)).await;
    let cpu = cpu_seconds();
    let started = std::time::Instant::now();
    let avif = tokio::spawn({
        let (plain, url) = (
            app.plain.clone(),
            app.url(&format!("{big_url}?format=avif")),
        );
        async move { plain.get(url).send().await.expect("avif") }
    });
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let small = fetch(&app, &format!("{small_url}?w=64"), &[]).await;
    assert_eq!(small.0, 200);
    let small_took = started.elapsed();
    let avif = avif.await.expect("joined");
    assert_eq!(avif.status(), 200);
    let etag = header(avif.headers(), "etag").to_owned();
    assert!(etag.contains("w1280-h1280-contain.avif"), "{etag}");
    let bytes = avif.bytes().await.expect("bytes").to_vec();
    let spent = cpu_seconds() - cpu;
    eprintln!("avif of 16 MP: {spent:.1} CPU-s, small resize answered in {small_took:?}");
    assert!(spent < 10.0, "{spent:.1} CPU-s for one bounded AVIF");
    assert!(
        small_took < std::time::Duration::from_secs(5),
        "a small resize waited {small_took:?}"
    );
    // The repeat costs nothing: it is what was kept.
    let cpu = cpu_seconds();
    let again = fetch(&app, &format!("{big_url}?format=avif"), &[]).await;
    assert_eq!(again.0, 200);
    assert_eq!(again.2, bytes);
    assert!(cpu_seconds() - cpu < 0.5, "the repeat was made again");
    // A larger AVIF ask is made at the AVIF box.
    let wide = fetch(&app, &format!("{big_url}?format=avif&w=1920"), &[]).await;
    assert_eq!(wide.0, 200);
    let etag = header(&wide.1, "etag");
    assert!(etag.contains("w1280-h0-contain.avif"), "{etag}");
}
dual_test!(a_large_image_costs_a_bounded_variant_once);

/// Issue 47, fix 2: a size is finished and kept even when its asker stops waiting (before, the
/// making was the request's own work: a client that went away took it along, and the next asker
/// paid for it again).
async fn a_size_whose_asker_left_is_finished_and_kept(app: TestApp) {
    let url = uploaded(&app, "left.png", &png(2000, 1500)).await;
    let stem = url
        .trim_start_matches("/files/")
        .split('.')
        .next()
        .expect("stem")
        .to_owned();
    let gone = app
        .plain
        .get(app.url(&format!("{url}?format=avif&w=640")))
        .timeout(std::time::Duration::from_millis(20))
        .send()
        .await;
    assert!(gone.is_err(), "the asker left before the size was made");
    let files = app.ctx.need::<stoa_file_storage::Files>().expect("files");
    let key = format!("sizes/{stem}/w640-h0-contain.avif");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while files.storage.read(&key).await.expect("read").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the size was not kept after its asker left"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let cpu = cpu_seconds();
    let r = fetch(&app, &format!("{url}?format=avif&w=640"), &[]).await;
    assert_eq!(r.0, 200);
    assert!(cpu_seconds() - cpu < 0.5, "the kept size was made again");
}
dual_test!(a_size_whose_asker_left_is_finished_and_kept);

/// Issue 47, fix 6: share images cannot be made to fill the disk. One address may have 30 made
/// per ten minutes (one made already is served to anyone, uncounted); the daily sweep deletes
/// share images past their week (remade if still linked), which it skipped before.
async fn share_images_are_bounded_per_address_and_swept(app: TestApp) {
    let files = app.ctx.need::<stoa_file_storage::Files>().expect("files");
    let headers = axum::http::HeaderMap::new();
    let visitor: std::net::IpAddr = "203.0.113.9".parse().unwrap();
    for n in 0..30 {
        let r = files
            .share(
                "en",
                &format!("Profile {n}"),
                "Site",
                Some(visitor),
                &headers,
            )
            .await;
        assert_eq!(r.status(), 200, "image {n}");
    }
    let r = files
        .share("en", "Profile 30", "Site", Some(visitor), &headers)
        .await;
    assert_eq!(r.status(), 429, "the 31st new image from one address");
    let r = files
        .share("en", "Profile 3", "Site", Some(visitor), &headers)
        .await;
    assert_eq!(r.status(), 200, "one made already is served");
    let other: std::net::IpAddr = "198.51.100.7".parse().unwrap();
    let r = files
        .share("en", "Profile 30", "Site", Some(other), &headers)
        .await;
    assert_eq!(r.status(), 200, "another address");
    // A week later (the files' times moved back), the sweep deletes them.
    let mut shares = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(&app.ctx.config.data_dir)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.parent().is_some_and(|d| d.ends_with("share")) {
                shares.push(p);
            }
        }
    }
    assert_eq!(shares.len(), 31, "the test app keeps files on disk");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(8 * 24 * 3600);
    for p in &shares[..10] {
        std::fs::File::options()
            .write(true)
            .open(p)
            .and_then(|f| f.set_modified(old))
            .expect("age");
    }
    let gone = files
        .sweep(std::time::Duration::from_secs(3600))
        .await
        .expect("sweep");
    assert_eq!(gone, 10);
    assert_eq!(shares.iter().filter(|p| p.exists()).count(), 21);
}
dual_test!(share_images_are_bounded_per_address_and_swept);
