//! Two `stoa` instances on one PostgreSQL database behind nginx (Debian's package), on loopback:
//! a session made on one is refreshed on the other and ended everywhere; a sign-in nonce issued
//! by one is spent once by the other; a failure budget counts across both; an admin's edit
//! through one is in the page the other serves within a second; a chat message posted through
//! one reaches subscribers of the other, and of nginx whichever instance it picked.
//!
//! Runs when `STOA_TEST_POSTGRES_URL` is set (as the PostgreSQL halves of the API suite do) and
//! needs `nginx` on the PATH (`make nginx` installs it).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail by panicking.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stoa_testkit::live::Live;
use stoa_testkit::{TempDir, wallet};

const AUTH: &str = "/api/rbac/subjects/authentication";
const PASSWORD: &str = "correct horse battery staple";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A child process killed on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Fields drop in order: the processes stop before their folder goes.
struct Cluster {
    _procs: Vec<Proc>,
    env: Vec<(String, String)>,
    _dir: TempDir,
    a: String,
    b: String,
    nginx: String,
}

fn stoa(env: &[(String, String)], data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stoa"));
    c.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("STOA_DATA_DIR", data)
        .stdout(Stdio::null());
    c
}

async fn ready(client: &reqwest::Client, base: &str, what: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = client.get(format!("{base}/ready")).send().await
            && r.status() == 200
        {
            return;
        }
        if let Ok(Some(status)) = what.try_wait() {
            panic!("{base} exited before it answered: {status}");
        }
        assert!(Instant::now() < deadline, "{base} did not become ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn nginx_config(dir: &Path, port: u16, upstreams: &[u16]) -> PathBuf {
    let locations = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy/nginx/stoa-locations.conf")
        .canonicalize()
        .expect("deploy/nginx/stoa-locations.conf");
    let servers: String = upstreams
        .iter()
        .map(|p| format!("server 127.0.0.1:{p};"))
        .collect();
    let d = dir.display();
    let conf = format!(
        "worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {d}/nginx-body;
    proxy_temp_path {d}/nginx-proxy;
    fastcgi_temp_path {d}/nginx-fastcgi;
    uwsgi_temp_path {d}/nginx-uwsgi;
    scgi_temp_path {d}/nginx-scgi;
    upstream stoa {{ {servers} keepalive 8; }}
    server {{
        listen 127.0.0.1:{port};
        include {};
    }}
}}
",
        locations.display()
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).expect("write nginx.conf");
    path
}

impl Cluster {
    async fn start(db_url: &str) -> Cluster {
        let dir = TempDir(
            std::env::temp_dir().join(format!("stoa-cluster-{}", uuid::Uuid::now_v7().simple())),
        );
        std::fs::create_dir_all(&dir.0).expect("temp dir");
        let (pa, pb, pn) = (free_port(), free_port(), free_port());
        let nginx = format!("http://127.0.0.1:{pn}");
        let env: Vec<(String, String)> = [
            ("DATABASE_URL", db_url.to_owned()),
            ("STOA_PUBLIC_URL", nginx.clone()),
            (
                "STOA_JWT_SECRET",
                format!("cluster-{}", uuid::Uuid::new_v4().simple()),
            ),
            (
                "STOA_SECRET_KEY",
                format!("cluster-{}", uuid::Uuid::new_v4().simple()),
            ),
            ("STOA_TRUSTED_PROXIES", "127.0.0.1".to_owned()),
            ("STOA_AUTH_RATE_BURST", "10000".to_owned()),
            ("STOA_AUTH_ACCOUNT_RATE", "10000".to_owned()),
            ("STOA_AUTH_FAILURES", "3".to_owned()),
            ("STOA_SSR_ENGINES", "0".to_owned()),
            ("STOA_LOG", "warn".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        // The demo site, loaded once before either instance starts (as a deployment migrates
        // and seeds once, then rolls instances out).
        let seeded = stoa(&env, &dir.0.join("seed"))
            .args(["seed", "--demo"])
            .status()
            .expect("run stoa seed");
        assert!(seeded.success(), "stoa seed --demo failed");
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let mut procs = Vec::new();
        for (port, name) in [(pa, "a"), (pb, "b")] {
            let mut child = stoa(&env, &dir.0.join(name))
                .arg("serve")
                .env("STOA_ADDR", format!("127.0.0.1:{port}"))
                .spawn()
                .expect("start stoa");
            ready(&client, &format!("http://127.0.0.1:{port}"), &mut child).await;
            procs.push(Proc(child));
        }
        let conf = nginx_config(&dir.0, pn, &[pa, pb]);
        // Debian puts it in /usr/sbin, which a user's PATH may lack.
        let bin = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .unwrap_or("nginx");
        let mut child = Command::new(bin)
            .args(["-e", &format!("{}/nginx-error.log", dir.0.display())])
            .arg("-c")
            .arg(&conf)
            // One process: killing it leaves no workers behind.
            .args(["-g", "daemon off; master_process off;"])
            .spawn()
            .unwrap_or_else(|e| {
                panic!("nginx is needed for this test (`make nginx` installs it): {e}")
            });
        ready(&client, &nginx, &mut child).await;
        procs.push(Proc(child));
        Cluster {
            _procs: procs,
            env,
            _dir: dir,
            a: format!("http://127.0.0.1:{pa}"),
            b: format!("http://127.0.0.1:{pb}"),
            nginx,
        }
    }

    fn secret(&self) -> &str {
        self.env
            .iter()
            .find(|(k, _)| k == "STOA_SECRET_KEY")
            .map(|(_, v)| v.as_str())
            .unwrap_or_default()
    }
}

struct Http {
    client: reqwest::Client,
}

impl Http {
    async fn send(&self, r: reqwest::RequestBuilder) -> (u16, Value) {
        let res = r.send().await.expect("request");
        let status = res.status().as_u16();
        let text = res.text().await.unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn post(&self, url: String, jwt: Option<&str>, body: Value) -> (u16, Value) {
        let mut r = self.client.post(url).json(&body);
        if let Some(t) = jwt {
            r = r.bearer_auth(t);
        }
        self.send(r).await
    }

    async fn get(&self, url: String, jwt: Option<&str>) -> (u16, Value) {
        let mut r = self.client.get(url);
        if let Some(t) = jwt {
            r = r.bearer_auth(t);
        }
        self.send(r).await
    }
}

/// Registers `email` through `base`: (access token, refresh token, subject id).
async fn register(h: &Http, base: &str, email: &str) -> (String, String, String) {
    let (s, b) = h
        .post(
            format!("{base}{AUTH}/email-and-password/registration"),
            None,
            json!({"login": email, "password": PASSWORD}),
        )
        .await;
    assert_eq!(s, 201, "registration through {base}: {b}");
    let jwt = b["data"]["jwt"].as_str().expect("jwt").to_owned();
    let refresh = b["data"]["refresh"].as_str().expect("refresh").to_owned();
    let (s, me) = h.get(format!("{base}{AUTH}/me"), Some(&jwt)).await;
    assert_eq!(s, 200, "{me}");
    let id = me["data"]["id"].as_str().expect("id").to_owned();
    (jwt, refresh, id)
}

/// Polls `check` for up to `within`; true once it holds.
async fn within<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_behind_nginx_act_as_one() {
    let Some(admin) = stoa_testkit::postgres_url() else {
        eprintln!("skipped: set STOA_TEST_POSTGRES_URL to run two instances on PostgreSQL");
        return;
    };
    stoa_api::tls::install();
    let url = stoa_testkit::fresh_postgres(&admin)
        .await
        .expect("a test database");
    let name = url.rsplit('/').next().unwrap_or_default().to_owned();
    struct DropDb(String, String);
    impl Drop for DropDb {
        fn drop(&mut self) {
            stoa_testkit::drop_postgres(self.0.clone(), self.1.clone());
        }
    }
    let _db = DropDb(admin, name);
    let c = Cluster::start(&url).await;
    let h = Http {
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client"),
    };
    let (a, b, n) = (c.a.as_str(), c.b.as_str(), c.nginx.as_str());

    // Sessions: made on A, refreshed on B, ended on A and refused by B at once.
    let (_, refresh, _) = register(&h, a, "one@cluster.test").await;
    let refresh_on = |base: &str, token: &str| {
        let (h, url, token) = (&h, format!("{base}{AUTH}/refresh"), token.to_owned());
        async move { h.post(url, None, json!({"refresh": token})).await }
    };
    let me_on = |base: &str, jwt: &str| {
        let (h, url, jwt) = (&h, format!("{base}{AUTH}/me"), jwt.to_owned());
        async move { h.get(url, Some(&jwt)).await.0 }
    };
    let (s, r) = refresh_on(b, &refresh).await;
    assert_eq!(s, 201, "refresh on the other instance: {r}");
    let jwt2 = r["data"]["jwt"].as_str().expect("jwt").to_owned();
    // Both instances now hold the session in their caches.
    assert_eq!(me_on(b, &jwt2).await, 200);
    assert_eq!(me_on(a, &jwt2).await, 200);
    let (s, r) = h
        .post(format!("{a}{AUTH}/logout"), Some(&jwt2), json!({}))
        .await;
    assert_eq!(s, 200, "{r}");
    let (me, j2) = (&me_on, jwt2.as_str());
    assert!(
        within(
            Duration::from_secs(1),
            || async move { me(b, j2).await == 401 }
        )
        .await,
        "a session ended on A still works on B"
    );
    // A refresh token used twice (on B, then replayed on A) ends its session on both.
    let refresh = {
        let (s, r) = h
            .post(
                format!("{a}{AUTH}/email-and-password/authentication"),
                None,
                json!({"login": "one@cluster.test", "password": PASSWORD}),
            )
            .await;
        assert_eq!(s, 201, "{r}");
        r["data"]["refresh"].as_str().expect("refresh").to_owned()
    };
    let (s, r) = refresh_on(b, &refresh).await;
    assert_eq!(s, 201, "{r}");
    let jwt3 = r["data"]["jwt"].as_str().expect("jwt").to_owned();
    assert_eq!(me_on(b, &jwt3).await, 200);
    assert_eq!(
        refresh_on(a, &refresh).await.0,
        401,
        "a replayed refresh token"
    );
    let j3 = jwt3.as_str();
    assert!(
        within(
            Duration::from_secs(1),
            || async move { me(b, j3).await == 401 }
        )
        .await,
        "the session of a replayed refresh token still works on B"
    );

    // Through nginx (round robin, no sticky sessions) a signed-in client is served throughout.
    let (jwt3, _, _) = register(&h, n, "two@cluster.test").await;
    for _ in 0..6 {
        assert_eq!(h.get(format!("{n}{AUTH}/me"), Some(&jwt3)).await.0, 200);
    }

    // A wallet nonce issued by A is accepted once, by B; its replay is refused by A and B.
    let key = wallet::key(11);
    let (s, nonce) = h
        .post(
            format!("{a}{AUTH}/ethereum-virtual-machine/nonce"),
            None,
            json!({}),
        )
        .await;
    assert_eq!(s, 201, "{nonce}");
    let msg = wallet::message(&nonce["data"], &key);
    let body = json!({
        "message": msg.to_string(),
        "signature": wallet::sign(&msg, &key),
        "address": wallet::address(&key),
    });
    let login = |base: &str| {
        let (h, url, body) = (
            &h,
            format!("{base}{AUTH}/ethereum-virtual-machine"),
            body.clone(),
        );
        async move { h.post(url, None, body).await }
    };
    let (s, r) = login(b).await;
    assert_eq!(s, 201, "a nonce from A is accepted by B: {r}");
    assert_eq!(login(a).await.0, 401, "replayed on A");
    assert_eq!(login(b).await.0, 401, "replayed on B");

    // Failed sign-ins count across instances: the budget is 3 per (address, account).
    register(&h, a, "three@cluster.test").await;
    let wrong = |base: &str| {
        let (h, url) = (
            &h,
            format!("{base}{AUTH}/email-and-password/authentication"),
        );
        async move {
            h.post(
                url,
                None,
                json!({"login": "three@cluster.test", "password": "wrong password here"}),
            )
            .await
            .0
        }
    };
    assert_eq!(wrong(a).await, 401);
    assert_eq!(wrong(b).await, 401);
    assert_eq!(wrong(a).await, 401);
    assert_eq!(wrong(b).await, 429, "B counts A's failures");

    // An admin's edit through A is in the page B serves within a second.
    let admin = reqwest::Client::builder()
        .no_proxy()
        .default_headers(
            [(
                reqwest::header::HeaderName::from_static("x-rbac-secret-key"),
                reqwest::header::HeaderValue::from_str(c.secret()).expect("header"),
            )]
            .into_iter()
            .collect(),
        )
        .build()
        .expect("client");
    let bundle = format!("{b}/api/host/pages/bundle?url=%2F");
    let (s, page) = h.get(bundle.clone(), None).await;
    assert_eq!(s, 200, "{page}");
    let page_id = page["data"]["page"]["id"]
        .as_str()
        .expect("the home page's id")
        .to_owned();
    // Served twice: the second answer comes from B's cache.
    assert_eq!(h.get(bundle.clone(), None).await.0, 200);
    let title = format!("Edited on A {}", uuid::Uuid::new_v4().simple());
    let r = admin
        .patch(format!("{a}/api/host/pages/{page_id}"))
        .json(&json!({"title": title}))
        .send()
        .await
        .expect("patch");
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let edited = Instant::now();
    let (hr, bu, ti) = (&h, &bundle, title.as_str());
    assert!(
        within(Duration::from_secs(1), || async move {
            hr.get(bu.clone(), None).await.1["data"]["page"]["title"] == ti
        })
        .await,
        "B still serves the page as it was before A's edit"
    );
    eprintln!("an edit on A was served by B after {:?}", edited.elapsed());

    // A chat message posted through A reaches its member subscribed on B, and through nginx.
    let (alice_jwt, _, alice) = register(&h, a, "alice@cluster.test").await;
    let (bob_jwt, _, bob) = register(&h, b, "bob@cluster.test").await;
    let profile = |base: &str, jwt: &str, id: &str, title: &str| {
        let (h, url, jwt, title) = (
            &h,
            format!("{base}/api/rbac/subjects/{id}/social-module/profiles"),
            jwt.to_owned(),
            title.to_owned(),
        );
        async move {
            let (s, r) = h.post(url, Some(&jwt), json!({"title": title})).await;
            assert_eq!(s, 201, "{r}");
            r["data"]["id"].as_str().expect("profile id").to_owned()
        }
    };
    let alice_profile = profile(a, &alice_jwt, &alice, "Alice").await;
    let bob_profile = profile(b, &bob_jwt, &bob, "Bob").await;
    let chats = |base: &str| {
        format!("{base}/api/rbac/subjects/{alice}/social-module/profiles/{alice_profile}/chats")
    };
    let (s, chat) = h
        .post(
            chats(a),
            Some(&alice_jwt),
            json!({"profileIds": [bob_profile]}),
        )
        .await;
    assert_eq!(s, 201, "{chat}");
    let chat = chat["data"]["id"].as_str().expect("chat id").to_owned();
    let mut on_b = Live::open(&h.client, &format!("{b}/api/live"), Some(&bob_jwt), None).await;
    let mut via_nginx = Live::open(&h.client, &format!("{n}/api/live"), Some(&bob_jwt), None).await;
    for s in [&mut on_b, &mut via_nginx] {
        assert!(s.until("hello", Duration::from_secs(2)).await.is_some());
    }
    // Posted through A and through B; the last one (4 000 characters, 8 000 bytes in UTF-8) goes
    // through the shared table rather than inline in the notification.
    let posts = [
        (a, "hello from instance 0".to_owned()),
        (b, "hello from instance 1".to_owned()),
        (a, "ж".repeat(4_000)),
    ];
    for (base, text) in posts {
        let (s, r) = h
            .post(
                format!("{}/{chat}/messages", chats(base)),
                Some(&alice_jwt),
                json!({"description": text}),
            )
            .await;
        assert_eq!(s, 201, "{r}");
        for (sub, name) in [(&mut on_b, "B"), (&mut via_nginx, "nginx")] {
            let got = sub
                .until("chat.message", Duration::from_secs(2))
                .await
                .unwrap_or_else(|| {
                    panic!(
                        "the subscriber on {name} did not get {:?}",
                        text.chars().take(30).collect::<String>()
                    )
                });
            assert_eq!(got.data["message"]["description"], text.as_str());
        }
    }
}
