//! Test harness: `spawn_app()` starts a real `stoa` on a random port over a fresh SQLite file or a
//! fresh PostgreSQL database; fixtures are generated from the declarations.
//!
//! Every integration test is written once and run on both databases with [`dual_test!`]. The
//! PostgreSQL variant runs when `STOA_TEST_POSTGRES_URL` is set (CI sets it) and says it was
//! skipped otherwise.
#![forbid(unsafe_code)]

pub mod fixtures;
pub mod live;
pub mod s3;
pub mod secrets;
pub mod smtp;
pub mod users;
pub mod wallet;

use std::sync::Arc;

use anyhow::Context;
use serde_json::Value;
use stoa_kernel::registry::Registry;
use stoa_server::{App, Config};
use stoa_store::Store;
use tokio::sync::oneshot;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// A running server and a client for it.
pub struct TestApp {
    pub base: String,
    /// A client that sends the secret key: it acts as an admin (the generic suites use it).
    pub client: reqwest::Client,
    /// A client with no credentials.
    pub plain: reqwest::Client,
    pub secret_key: String,
    pub jwt_secret: String,
    pub store: Store,
    pub registry: Arc<Registry>,
    pub operations: Vec<stoa_api::routes::Operation>,
    /// The modules' context (services, configuration).
    pub ctx: Arc<stoa_api::module::Context>,
    /// The job runner, when the test ticks it ([`spawn_app_modules`]).
    pub jobs: Option<stoa_api::jobs::Runner>,
    pub db: Db,
    _dir: Option<TempDir>,
    stop: Option<oneshot::Sender<()>>,
    /// (admin URL, database name) of a PostgreSQL test database to drop afterwards.
    pg: Option<(String, String)>,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some((admin, name)) = self.pg.take() {
            drop_postgres(admin, name);
        }
    }
}

/// Drops the test database `name` on the server at `admin` (waits; callable from Drop inside a
/// runtime).
pub fn drop_postgres(admin: String, name: String) {
    let _ = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            use sqlx::Connection;
            if let Ok(mut c) = sqlx::PgConnection::connect(&admin).await {
                let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut c)
                .await;
            }
        });
    })
    .join();
}

/// A temporary folder removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The server URL for PostgreSQL tests, when configured.
pub fn postgres_url() -> Option<String> {
    std::env::var("STOA_TEST_POSTGRES_URL")
        .ok()
        .filter(|s| !s.is_empty())
}

/// The URL of database `name` on the server of `admin_url`.
fn database_url(admin_url: &str, name: &str) -> anyhow::Result<String> {
    let (base, _) = admin_url
        .rsplit_once('/')
        .context("STOA_TEST_POSTGRES_URL needs a /database part")?;
    Ok(format!("{base}/{name}"))
}

/// Creates a fresh database on the test PostgreSQL server and returns its URL.
pub async fn fresh_postgres(admin_url: &str) -> anyhow::Result<String> {
    use sqlx::Connection;
    let name = format!("stoa_t_{}", uuid::Uuid::now_v7().simple());
    let mut c = sqlx::PgConnection::connect(admin_url)
        .await
        .context("connect to STOA_TEST_POSTGRES_URL")?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut c)
        .await?;
    let _ = c.close().await;
    database_url(admin_url, &name)
}

/// A fresh database with the schema of the default modules already in place, cloned from a
/// template: migrating ~900 statements costs a PostgreSQL test 2–4 s, cloning ~0.2 s. The server
/// started on it still runs its own migration (a diff: nothing, or an extra module's tables). Falls
/// back to an empty database when the template cannot be made.
pub async fn fresh_postgres_migrated(admin_url: &str) -> anyhow::Result<String> {
    use sqlx::Connection;
    let mut c = sqlx::PgConnection::connect(admin_url)
        .await
        .context("connect to STOA_TEST_POSTGRES_URL")?;
    // One process at a time makes the template or clones it (a clone needs it untouched).
    sqlx::query("SELECT pg_advisory_lock(7420171)")
        .execute(&mut c)
        .await?;
    let template = match template(&mut c, admin_url).await {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("no template database ({e:#}): migrating a fresh one");
            None
        }
    };
    let name = format!("stoa_t_{}", uuid::Uuid::now_v7().simple());
    let made = match &template {
        Some(t) => format!("CREATE DATABASE {name} TEMPLATE {t}"),
        None => format!("CREATE DATABASE {name}"),
    };
    let made = sqlx::raw_sql(sqlx::AssertSqlSafe(made))
        .execute(&mut c)
        .await;
    let _ = sqlx::query("SELECT pg_advisory_unlock(7420171)")
        .execute(&mut c)
        .await;
    let _ = c.close().await;
    made?;
    database_url(admin_url, &name)
}

/// The template for this build of the test binary (its name carries the binary's identity and
/// the time it was made), migrated under a temporary name and renamed when complete. Templates of
/// other builds older than six hours are dropped.
async fn template(c: &mut sqlx::PgConnection, admin_url: &str) -> anyhow::Result<String> {
    use std::hash::{Hash, Hasher};
    let exe = std::env::current_exe()?;
    let meta = std::fs::metadata(&exe)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&exe, meta.len(), meta.modified()?).hash(&mut h);
    let prefix = format!("stoa_tpl_{:016x}_", h.finish());
    let existing: Option<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE starts_with(datname, $1)")
            .bind(&prefix)
            .fetch_optional(&mut *c)
            .await?;
    if let Some(t) = existing {
        return Ok(t);
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let old: Vec<String> = sqlx::query_scalar(
        "SELECT datname::text FROM pg_database WHERE starts_with(datname, 'stoa_tpl_')",
    )
    .fetch_all(&mut *c)
    .await?;
    for t in old {
        let made = t.rsplit('_').next().and_then(|n| n.parse::<u64>().ok());
        if made.is_none_or(|m| now.saturating_sub(m) > 6 * 3600) {
            let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {t}")))
                .execute(&mut *c)
                .await;
        }
    }
    let building = format!("stoa_t_{}", uuid::Uuid::now_v7().simple());
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {building}")))
        .execute(&mut *c)
        .await?;
    let migrated = async {
        let db = stoa_store::Db::connect(&stoa_store::DbOptions::new(database_url(
            admin_url, &building,
        )?))
        .await
        .map_err(anyhow::Error::msg)?;
        let registry = stoa_server::registry().map_err(anyhow::Error::msg)?;
        let done = async {
            stoa_store::ddl::migrate(&db, &registry)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            stoa_store::jobs::prepare(&db)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            stoa_store::cluster::prepare(&db)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))
        }
        .await;
        db.close().await;
        done
    }
    .await;
    let name = format!("{prefix}{now}");
    let renamed = match migrated {
        Ok(()) => {
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "ALTER DATABASE {building} RENAME TO {name}"
            )))
            .execute(&mut *c)
            .await
        }
        Err(e) => {
            drop_postgres(admin_url.to_owned(), building);
            return Err(e);
        }
    };
    if let Err(e) = renamed {
        drop_postgres(admin_url.to_owned(), building);
        return Err(e.into());
    }
    Ok(name)
}

/// Starts a server on `db`. `None` when `db` is PostgreSQL and no test server is configured.
pub async fn spawn_app(db: Db) -> Option<TestApp> {
    spawn_app_with(db, |_| {}).await
}

/// [`spawn_app`] with a configuration change (an SMTP sink, real rate limits…).
pub async fn spawn_app_with(db: Db, change: impl FnOnce(&mut Config)) -> Option<TestApp> {
    spawn(db, change, None).await
}

/// A server with the default modules plus `extra`. Its job runner does not run by itself: the
/// test ticks `app.jobs` when it wants jobs run.
pub async fn spawn_app_modules(db: Db, extra: Vec<stoa_api::module::ModuleDef>) -> Option<TestApp> {
    let mut modules = stoa_server::modules();
    modules.extend(extra);
    spawn(db, |_| {}, Some(modules)).await
}

/// A server with every module and a configuration change, whose job runner the test ticks
/// ([`TestApp::drain_jobs`]) instead of running by itself.
pub async fn spawn_app_manual(db: Db, change: impl FnOnce(&mut Config)) -> Option<TestApp> {
    spawn(db, change, Some(stoa_server::modules())).await
}

async fn spawn(
    db: Db,
    change: impl FnOnce(&mut Config),
    modules: Option<Vec<stoa_api::module::ModuleDef>>,
) -> Option<TestApp> {
    let mut config = test_config();
    change(&mut config);
    let mut pg = None;
    // Every test keeps its data (SQLite file, stored files) in its own temporary folder.
    let path = std::env::temp_dir().join(format!("stoa-test-{}", uuid::Uuid::now_v7().simple()));
    config.data_dir = path.display().to_string();
    let dir = Some(TempDir(path.clone()));
    match db {
        Db::Sqlite => {
            config.database_url = format!("sqlite://{}/stoa.db", path.display());
        }
        Db::Postgres => {
            let admin = postgres_url()?;
            config.database_url = match fresh_postgres_migrated(&admin).await {
                Ok(u) => u,
                Err(e) => panic!("cannot create a test database: {e:#}"),
            };
            let name = config
                .database_url
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            pg = Some((admin, name));
        }
    }
    let mut app = start_with(config, db, dir, modules).await;
    app.pg = pg;
    Some(app)
}

/// The configuration tests start from: a secret key for the admin client and rate limits high
/// enough for suites that sign in many times (the rate-limit test sets its own).
pub fn test_config() -> Config {
    let mut config = Config::defaults();
    config.addr = "127.0.0.1:0".into();
    config.db_max_connections = Some(4);
    config.secret_key = Some(format!("test-secret-{}", uuid::Uuid::new_v4().simple()));
    config.jwt_secret = Some(format!(
        "test-jwt-{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    ));
    config.auth_rate_burst = 100_000;
    config.auth_account_rate = 100_000;
    config
}

/// A fresh SQLite configuration in its own temporary folder (for tests with their own config).
pub fn sqlite_config() -> (Config, TempDir) {
    let mut config = test_config();
    let path = std::env::temp_dir().join(format!("stoa-test-{}", uuid::Uuid::now_v7().simple()));
    config.database_url = format!("sqlite://{}/stoa.db", path.display());
    config.data_dir = path.display().to_string();
    (config, TempDir(path))
}

/// Starts a server with `config` (tests that need other limits use this).
pub async fn start(config: Config, db: Db, dir: Option<TempDir>) -> TestApp {
    start_with(config, db, dir, None).await
}

async fn start_with(
    mut config: Config,
    db: Db,
    dir: Option<TempDir>,
    modules: Option<Vec<stoa_api::module::ModuleDef>>,
) -> TestApp {
    stoa_api::tls::install();
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => panic!("bind: {e}"),
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    if config.public_url.is_none() {
        config.public_url = Some(format!("http://127.0.0.1:{port}"));
    }
    let manual_jobs = modules.is_some();
    let built = match modules {
        Some(m) => stoa_server::build_with(&config, m).await,
        None => stoa_server::build(&config).await,
    };
    let mut app: App = match built {
        Ok(a) => a,
        Err(e) => panic!("the app did not start: {e:#}"),
    };
    // Tests see the API as it is once started, without its first requests waiting for it.
    app.described().await;
    let jobs = if manual_jobs { app.take_jobs() } else { None };
    let ctx = app.ctx.clone();
    let store = app.store.clone();
    let registry = store.registry.clone();
    let operations = app.operations.clone();
    let secret_key = config.secret_key.clone().unwrap_or_default();
    let mut admin_headers = reqwest::header::HeaderMap::new();
    if let Ok(v) = reqwest::header::HeaderValue::from_str(&secret_key) {
        admin_headers.insert("x-rbac-secret-key", v);
    }
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = stoa_server::serve(app, listener, async {
            let _ = rx.await;
        })
        .await;
    });
    TestApp {
        base: format!("http://127.0.0.1:{port}"),
        client: reqwest::Client::builder()
            .no_proxy()
            .default_headers(admin_headers)
            .build()
            .unwrap_or_default(),
        plain: reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default(),
        secret_key,
        jwt_secret: config.jwt_secret.clone().unwrap_or_default(),
        store,
        registry,
        operations,
        ctx,
        jobs,
        db,
        _dir: dir,
        stop: Some(tx),
        pg: None,
    }
}

/// A response read whole: status, headers and JSON body (`Null` when the body is not JSON).
#[derive(Debug)]
pub struct Res {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Res {
    /// `body.data`.
    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

pub(crate) async fn read(r: reqwest::Result<reqwest::Response>) -> Res {
    let r = match r {
        Ok(r) => r,
        Err(e) => panic!("request failed: {e:?}"),
    };
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let path = r.url().path().to_owned();
    // A live stream never ends: its status and headers are the answer.
    let streaming = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let text = if streaming {
        drop(r);
        String::new()
    } else {
        r.text().await.unwrap_or_default()
    };
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    secrets::assert_none(&path, &body, &text);
    Res {
        status,
        headers,
        body,
        text,
    }
}

impl TestApp {
    /// Writes `fields` of row `id` of `entity` straight to the database, server-owned ones
    /// included (what time or a crash would have left: an old `updatedAt`, a draft status).
    pub async fn write_raw(
        &self,
        entity: &str,
        id: uuid::Uuid,
        fields: &[(&str, stoa_kernel::value::Val)],
    ) {
        let written = async {
            let e = self.store.entity(entity)?;
            let mut tx = self.store.begin().await?;
            let row = stoa_store::repo::set_if(&mut tx.exec(), &e, id, fields, &[]).await?;
            tx.commit().await?;
            Ok::<_, stoa_kernel::Error>(row.is_some())
        }
        .await;
        assert!(
            matches!(written, Ok(true)),
            "writing {entity} {id}: {written:?}"
        );
    }

    /// One pass of the job runner (at most its concurrency of due jobs); how many ran.
    pub async fn tick_jobs(&self) -> usize {
        let Some(r) = &self.jobs else {
            panic!("tick_jobs needs an app started with manual jobs")
        };
        match r.tick().await {
            Ok(t) => t.ran,
            Err(e) => panic!("job tick: {e}"),
        }
    }

    /// Runs due jobs until none is due (at most 50 rounds); the number of jobs run.
    pub async fn drain_jobs(&self) -> usize {
        let Some(r) = &self.jobs else {
            panic!("drain_jobs needs an app started with manual jobs")
        };
        let mut ran = 0;
        for _ in 0..50 {
            match r.tick().await {
                Ok(t) if t.ran == 0 => return ran,
                Ok(t) => ran += t.ran,
                Err(e) => panic!("job tick: {e}"),
            }
        }
        ran
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A fresh connection to the server with `head` written on it (a request's head, perhaps the
    /// start of its body), left open: for what a client library will not send (a stalled body,
    /// a body the server must refuse before reading).
    pub async fn raw(&self, head: &str) -> tokio::net::TcpStream {
        self.raw_from(std::net::Ipv4Addr::LOCALHOST, head).await
    }

    /// [`TestApp::raw`] from the loopback address `from` (`127.0.0.2`, …): a client at another
    /// address, for per-address bounds.
    pub async fn raw_from(&self, from: std::net::Ipv4Addr, head: &str) -> tokio::net::TcpStream {
        use tokio::io::AsyncWriteExt;
        let mut s = self.connect_from(from).await;
        s.write_all(head.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("write: {e}"));
        s
    }

    /// A fresh connection to the server from the loopback address `from`.
    pub async fn connect_from(&self, from: std::net::Ipv4Addr) -> tokio::net::TcpStream {
        let addr: std::net::SocketAddr = self
            .base
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|e| panic!("server address: {e}"));
        let socket = tokio::net::TcpSocket::new_v4().unwrap_or_else(|e| panic!("socket: {e}"));
        socket
            .bind((from, 0).into())
            .unwrap_or_else(|e| panic!("bind {from}: {e}"));
        socket
            .connect(addr)
            .await
            .unwrap_or_else(|e| panic!("connect to {addr}: {e}"))
    }

    pub async fn get(&self, path: &str) -> Res {
        read(self.client.get(self.url(path)).send().await).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Res {
        read(self.client.post(self.url(path)).json(body).send().await).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Res {
        read(self.client.patch(self.url(path)).json(body).send().await).await
    }

    pub async fn delete(&self, path: &str) -> Res {
        read(self.client.delete(self.url(path)).send().await).await
    }

    /// `PUT`, the original system's spelling of `PATCH`.
    pub async fn put(&self, path: &str, body: &Value) -> Res {
        read(self.client.put(self.url(path)).json(body).send().await).await
    }

    /// Sends `body` as multipart with a `data` field, as the original clients do.
    pub async fn post_multipart(&self, path: &str, body: &Value) -> Res {
        let form = reqwest::multipart::Form::new().text("data", body.to_string());
        read(
            self.client
                .post(self.url(path))
                .multipart(form)
                .send()
                .await,
        )
        .await
    }

    /// Any request.
    pub async fn send(&self, req: reqwest::RequestBuilder) -> Res {
        read(req.send().await).await
    }

    /// The rows of the list at `path` (`/api/…`, with its own query if any, e.g. `?limit=100`)
    /// whose `column` equals `value`, failing the test on anything but 200 with a list.
    pub async fn rows_where(&self, path: &str, column: &str, value: &str) -> Vec<Value> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let r = self
            .get(&format!(
                "{path}{sep}filters[and][0][column]={column}&filters[and][0][method]=eq&filters[and][0][value]={value}"
            ))
            .await;
        assert_eq!(
            r.status, 200,
            "GET {path} where {column} = {value}: {}",
            r.text
        );
        match r.data().as_array() {
            Some(rows) => rows.clone(),
            None => panic!(
                "GET {path} where {column} = {value}: not a list: {}",
                r.text
            ),
        }
    }

    /// The newest mail to `to` in `sink` whose text holds `needle`, running due jobs while it
    /// is on its way (some flows queue their mail after answering); at most 30 s.
    pub async fn mail_to(&self, sink: &smtp::Sink, to: &str, needle: &str) -> smtp::Mail {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            self.drain_jobs().await;
            if let Some(m) = sink.newest(to, needle) {
                return m;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{} within 30 s",
                sink.missing(to, needle)
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// Creates a record and returns it, failing the test on anything but 201.
    pub async fn create(&self, path: &str, body: &Value) -> Value {
        let r = self.post(path, body).await;
        assert_eq!(r.status, 201, "POST {path} {body}: {}", r.text);
        r.data().clone()
    }
}

/// Runs a test on SQLite and on PostgreSQL (skipped, with a line, when PostgreSQL is not set up):
/// - `dual_test!(name)`: `async fn name(app: TestApp)` on the default modules;
/// - `dual_test!(name, modules = expr)`: the same on the modules `expr` (see [`spawn_app_modules`]);
/// - `dual_test!(name, db)`: `async fn name(db: Db)`, for tests that spawn their own app.
#[macro_export]
macro_rules! dual_test {
    ($name:ident) => {
        $crate::dual_test!(@app $name, $crate::spawn_app);
    };
    ($name:ident, modules = $modules:expr) => {
        $crate::dual_test!(@app $name, |db| $crate::spawn_app_modules(db, $modules));
    };
    ($name:ident, db) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name($crate::Db::Sqlite).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if $crate::postgres_url().is_none() {
                    eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set");
                    return;
                }
                super::$name($crate::Db::Postgres).await;
            }
        }
    };
    (@app $name:ident, $spawn:expr) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app = ($spawn)($crate::Db::Sqlite).await.expect("sqlite app");
                super::$name(app).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                match ($spawn)($crate::Db::Postgres).await {
                    Some(app) => super::$name(app).await,
                    None => eprintln!("skipped: STOA_TEST_POSTGRES_URL is not set"),
                }
            }
        }
    };
}

/// Payment provider settings from environment variables (`STOA_STRIPE_API_URL`…), read by the
/// server's own argument parser (each variable is also the flag `--stripe-api-url`), so the test
/// sees exactly what the server would. An unknown name fails the test.
pub fn providers_from_env(pairs: &[(String, String)]) -> stoa_api::config::ProviderConfig {
    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        providers: stoa_api::config::ProviderConfig,
    }
    let mut args = vec!["stoa".to_owned()];
    for (name, value) in pairs {
        let flag = name
            .trim_start_matches("STOA_")
            .to_lowercase()
            .replace('_', "-");
        args.push(format!("--{flag}={value}"));
    }
    match <Args as clap::Parser>::try_parse_from(args) {
        Ok(a) => a.providers,
        Err(e) => panic!("provider settings: {e}"),
    }
}

/// The status of the answer on `s`, or `None` when none came whole within `within` (the server
/// closed the connection unanswered, or said nothing).
pub async fn status_within<R: tokio::io::AsyncRead + Unpin>(
    s: &mut R,
    within: std::time::Duration,
) -> Option<u16> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => got.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    }
    String::from_utf8_lossy(&got)
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The status line and headers of the answer on `s` (at most 10 s away).
pub async fn read_head(s: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(std::time::Duration::from_secs(10), s.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("no answer within 10 s"))
            .unwrap_or_else(|e| panic!("read: {e}"));
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// A fault in the database itself, not in our code: while `on`, an update that sets `column` of
/// `table` where `when` holds (a condition on `new."column"`s, the same text on both backends)
/// aborts with "injected fault" — a trigger named `test_fault`, on either backend. One fault at a
/// time (SQLite's trigger names are the schema's); `on = false` drops it.
pub async fn fault(db: &stoa_store::db::Db, table: &str, column: &str, when: &str, on: bool) {
    let mut tx = db.begin().await.unwrap_or_else(|e| panic!("begin: {e}"));
    match tx.exec().link {
        stoa_store::db::Link::Sqlite(c) => c
            .execute_batch(&if on {
                format!(
                    r#"CREATE TRIGGER "test_fault" BEFORE UPDATE OF "{column}" ON "{table}"
                       WHEN {when} BEGIN SELECT RAISE(ABORT, 'injected fault'); END"#
                )
            } else {
                r#"DROP TRIGGER "test_fault""#.to_owned()
            })
            .unwrap_or_else(|e| panic!("sqlite fault: {e}")),
        stoa_store::db::Link::Postgres(c) => {
            let sql = if on {
                vec![
                    r#"CREATE OR REPLACE FUNCTION test_fault() RETURNS trigger LANGUAGE plpgsql
                       AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$"#
                        .to_owned(),
                    format!(
                        r#"CREATE TRIGGER test_fault BEFORE UPDATE OF "{column}" ON "{table}"
                           FOR EACH ROW WHEN ({when}) EXECUTE FUNCTION test_fault()"#
                    ),
                ]
            } else {
                vec![format!(r#"DROP TRIGGER test_fault ON "{table}""#)]
            };
            for q in sql {
                sqlx::query(sqlx::AssertSqlSafe(q))
                    .execute(&mut *c)
                    .await
                    .unwrap_or_else(|e| panic!("postgres fault: {e}"));
            }
        }
    }
    tx.commit().await.unwrap_or_else(|e| panic!("commit: {e}"));
}
