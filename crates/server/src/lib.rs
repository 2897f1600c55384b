//! The `stoa` server: configuration, the module registry, middleware, and start-up.
#![forbid(unsafe_code)]

pub use stoa_api::config;
mod head;
pub mod import;
mod listener;
mod middleware;
mod page_cache;
pub mod web;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::json;
use stoa_api::body::Limits;
use stoa_api::module::{Context, ModuleDef, Modules};
use stoa_api::{Access, AppState, RouteBook};
use stoa_kernel::registry::Registry;
use stoa_store::{Db, DbOptions, Store};
use tokio::net::TcpListener;

pub use config::Config;

/// Every module, in dependency order (a module may use the services of those before it). Adding
/// a module is its folder plus one line here.
pub fn modules() -> Vec<ModuleDef> {
    vec![
        stoa_file_storage::module(),
        stoa_notification::module(),
        stoa_analytic::module(),
        stoa_billing::module(),
        stoa_rbac::module(),
        stoa_host::module(),
        stoa_website_builder::module(),
        stoa_blog::module(),
        stoa_crm::module(),
        stoa_ecommerce::module(),
        stoa_social::module(),
        stoa_startup::module(),
        stoa_webhook::module(),
        stoa_mcp::module(),
    ]
}

/// The platform's own declarations (the job queue) followed by `modules`.
fn with_platform(modules: Vec<ModuleDef>) -> Modules {
    let mut list = vec![stoa_api::platform::module()];
    list.extend(modules);
    Modules::new(list)
}

/// Every declaration of the default modules.
pub fn registry() -> Result<Registry, stoa_api::module::ModuleError> {
    with_platform(modules()).registry()
}

/// Brings the schema up to the declarations. On SQLite, a database that already holds data is
/// copied first (`<db>.pre-migrate-<time>`, the newest three kept) when the schema changes.
pub async fn migrate(
    config: &Config,
    db: &Db,
    registry: &stoa_kernel::registry::Registry,
) -> anyhow::Result<Vec<String>> {
    let plan = stoa_store::ddl::plan(db, registry)
        .await
        .map_err(|e| anyhow::anyhow!("migration plan failed: {e}"))?;
    // The first statement creates the migrations table if needed; comments change nothing.
    if plan.iter().skip(1).any(|s| !s.starts_with("--"))
        && let Some(kept) = stoa_store::backup::snapshot_before_migrate(&config.database_url)
            .await
            .map_err(|e| anyhow::anyhow!("snapshot before migrating failed: {e}"))?
    {
        tracing::info!(snapshot = %kept.display(), "kept a copy of the database before changing its schema");
    }
    stoa_store::ddl::migrate(db, registry)
        .await
        .map_err(|e| anyhow::anyhow!("migration failed: {e}"))
}

/// Connects to the configured database.
pub async fn connect(config: &Config) -> anyhow::Result<Db> {
    let mut opts = DbOptions::new(&config.database_url);
    opts.max_connections = config.db_max_connections;
    opts.query_timeout = std::time::Duration::from_secs(config.request_timeout.max(1));
    Db::connect(&opts).await.map_err(anyhow::Error::msg)
}

/// Health, readiness, the generic API, every module's routes, meta and the reference pages (the
/// OpenAPI document is added by `stoa_api::with_openapi`).
fn routes(
    state: &AppState,
    modules: &Modules,
    ctx: &Context,
    phases: &mut Phases,
) -> anyhow::Result<RouteBook<AppState>> {
    let ok = |id: &str, summary: &str| {
        let status = json!({"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]});
        let mut responses = stoa_api::openapi::errors(&[503]);
        responses.insert("200".into(), stoa_api::openapi::ok("OK", status));
        json!({"operationId": id, "summary": summary, "tags": ["platform"], "responses": responses})
    };
    let platform = RouteBook::new()
        .add(
            Access::Public,
            "GET",
            "/health",
            get(|| async { stoa_api::crud::data(StatusCode::OK, json!({"status": "ok"})) }),
            ok("health", "Liveness"),
        )
        .add(
            Access::Public,
            "GET",
            "/ready",
            get(
                |axum::extract::State(s): axum::extract::State<AppState>| async move {
                    if s.store.db.ping().await {
                        stoa_api::crud::data(StatusCode::OK, json!({"status": "ready"}))
                    } else {
                        stoa_api::error::error_response(&stoa_kernel::Error::Unavailable(
                            "the database is unreachable".into(),
                        ))
                    }
                },
            ),
            ok("ready", "Readiness: the database answers"),
        )
        .add(
            Access::Admin,
            "GET",
            "/metrics",
            get(
                |axum::extract::State(s): axum::extract::State<AppState>| async move {
                    stoa_api::metrics::response(&s.store).await
                },
            ),
            {
                let mut responses = stoa_api::openapi::errors(&[401, 403]);
                responses.insert(
                    "200".into(),
                    json!({"description": "OpenMetrics text", "content": {stoa_api::metrics::CONTENT_TYPE: {"schema": {"type": "string"}}}}),
                );
                // An operations endpoint, not API: `x-hidden` keeps it out of the document
                // (generators know no OpenMetrics type); docs/deployment.md describes it.
                json!({"operationId": "metrics", "summary": "Prometheus metrics (OpenMetrics text): requests by route and status with latency histograms, database connections, job queue and outcomes, cache lookups, notification and webhook outcomes. Admins only; STOA_METRICS_ADDR serves them unauthenticated on a private address", "tags": ["platform"], "x-hidden": true, "responses": responses})
            },
        );
    // The start's longest step; its parts are logged apart so a regression shows where it is.
    let own = modules.routes(ctx).map_err(anyhow::Error::msg)?;
    phases.mark("routes: modules");
    let generic = stoa_api::api_routes(state);
    phases.mark("routes: generic API");
    let book = platform
        .merge(own)
        .merge(stoa_api::live::routes(
            ctx.need::<stoa_api::live::Hub>()
                .map_err(anyhow::Error::msg)?,
        ))
        .merge(generic);
    phases.mark("routes: merged");
    Ok(book)
}

/// A started platform before it serves: the store, the modules and their context (services,
/// the route book's operations) and the API router (not yet wrapped).
pub struct Platform {
    pub store: Store,
    pub modules: Modules,
    pub ctx: Arc<Context>,
    /// Every module's jobs, by name.
    pub jobs: std::collections::HashMap<&'static str, stoa_api::module::JobDef>,
    api: Router<AppState>,
    state: AppState,
    phases: Phases,
    /// The request rules, made beside the start (see [`App::described`]).
    rules: Arc<stoa_api::later::Later<stoa_api::strict::Rules>>,
}

/// How long each start-up step took, logged once the server is assembled (the cold start's
/// profile, docs/benchmarks.md).
struct Phases {
    began: std::time::Instant,
    last: std::time::Instant,
    took: Vec<(&'static str, Duration)>,
}

impl Default for Phases {
    fn default() -> Self {
        let now = std::time::Instant::now();
        Self {
            began: now,
            last: now,
            took: Vec::new(),
        }
    }
}

impl Phases {
    fn mark(&mut self, step: &'static str) {
        let now = std::time::Instant::now();
        self.took.push((step, now - self.last));
        self.last = now;
    }

    fn log(&self) {
        let steps = self
            .took
            .iter()
            .map(|(s, d)| format!("{s} {:.1} ms", d.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", ");
        tracing::info!(
            total_ms = format!("{:.1}", self.began.elapsed().as_secs_f64() * 1e3),
            %steps,
            "assembled"
        );
    }
}

/// Connects, migrates, starts every module's services, builds the route book and runs the seeds.
pub async fn prepare_with(config: &Config, modules: Vec<ModuleDef>) -> anyhow::Result<Platform> {
    let mut phases = Phases::default();
    let modules = with_platform(modules);
    let registry = Arc::new(modules.registry().map_err(anyhow::Error::msg)?);
    let jobs = modules.jobs().map_err(anyhow::Error::msg)?;
    phases.mark("declarations");
    let db = connect(config).await?;
    phases.mark("connect");
    let applied = migrate(config, &db, &registry).await?;
    phases.mark("migrate");
    if !applied.is_empty() {
        tracing::info!(statements = applied.len(), "database migrated");
    }
    stoa_store::jobs::prepare(&db)
        .await
        .map_err(|e| anyhow::anyhow!("preparing the job queue failed: {e}"))?;
    stoa_store::cluster::prepare(&db)
        .await
        .map_err(|e| anyhow::anyhow!("preparing the shared tables failed: {e}"))?;
    let store = Store::new(db, registry);
    let mut ctx = Context::new(store.clone(), Arc::new(config.clone()));
    // On PostgreSQL, changes and live events reach every instance on the database.
    let cluster = stoa_api::cluster::Cluster::new(&store);
    let limits = stoa_api::live::HubLimits {
        per_subscriber: usize::try_from(config.live_per_subject.max(1)).unwrap_or(16),
        per_address: usize::try_from(config.live_per_address.max(1)).unwrap_or(32),
        ..Default::default()
    };
    let hub = Arc::new(match &cluster {
        Some(c) => stoa_api::live::Hub::with_bus(limits, c.bus()),
        None => stoa_api::live::Hub::new(limits),
    });
    if let Some(c) = &cluster {
        c.start(&store, &hub)
            .await
            .map_err(|e| anyhow::anyhow!("listening for other instances failed: {e}"))?;
    }
    ctx.provide(hub);
    modules.setup(&mut ctx).map_err(anyhow::Error::msg)?;
    phases.mark("services");
    let state = AppState {
        store: store.clone(),
        limits: Limits {
            json: config.body_limit,
            file: config.upload_limit,
        },
        uploads: ctx.get::<dyn stoa_api::files::Uploads>(),
        searches: stoa_api::crud::searches(),
        answers: stoa_api::answers::Answers::new(
            store.clone(),
            config.api_cache_bytes,
            stoa_api::answers::TTL,
        ),
    };
    let book = routes(&state, &modules, &ctx, &mut phases)?;
    let (book, slot) = stoa_api::with_openapi(book);
    let (api, operations) = book.into_parts();
    let rules: Arc<stoa_api::later::Later<stoa_api::strict::Rules>> = Arc::default();
    let api = stoa_api::strict::layer(api, rules.clone(), state.limits);
    let described = rules.clone();
    ctx.set_operations(
        operations
            .iter()
            .map(stoa_api::routes::Operation::outline)
            .collect(),
    );
    // The document (~40 ms) and the request rules made from it (~11 ms) are made beside the
    // start: the first API requests wait for the rules, nothing else does.
    let registry = state.store.registry.clone();
    let servers = [ctx.config.public_url()];
    tokio::task::spawn_blocking(move || {
        let t = std::time::Instant::now();
        // A panic here (an operation object's maker) is logged and fails the API's requests
        // with a 503 at once, instead of leaving them to wait in silence.
        let made = rules
            .make("the API description", || {
                let document = stoa_api::describe(&slot, &registry, &operations, &servers);
                stoa_api::strict::rules(&document)
            })
            .is_some();
        drop(operations);
        if !made {
            slot.fail();
            return;
        }
        tracing::info!(ms = t.elapsed().as_millis() as u64, "API described");
        // Then its bytes are gzipped, and the raw 2.2 MB let go (idle memory, issue 52).
        if let Some(doc) = slot.now() {
            doc.settle();
        }
    });
    phases.mark("checks");
    stoa_store::publish::with_drafts(modules.seed(&ctx))
        .await
        .map_err(|e| anyhow::anyhow!("seeding failed: {e}"))?;
    phases.mark("seeds");
    Ok(Platform {
        store,
        modules,
        ctx: Arc::new(ctx),
        jobs,
        api,
        state,
        phases,
        rules: described,
    })
}

/// [`prepare_with`] the default modules.
pub async fn prepare(config: &Config) -> anyhow::Result<Platform> {
    prepare_with(config, modules()).await
}

/// Everything a running server holds.
pub struct App {
    pub router: Router,
    pub store: Store,
    pub ctx: Arc<Context>,
    pub operations: Vec<stoa_api::routes::Operation>,
    jobs: Option<stoa_api::jobs::Runner>,
    rules: Arc<stoa_api::later::Later<stoa_api::strict::Rules>>,
    /// Connections one address may hold, and the proxies exempt from it.
    connections: listener::Bounds,
    /// Visitors' API answers, sent before routing.
    pub answers: Option<Arc<stoa_api::answers::Answers>>,
}

/// The configured default language, which must be one of the site's languages.
pub fn default_language(config: &Config) -> anyhow::Result<&'static str> {
    stoa_kernel::model::LANGUAGES
        .iter()
        .copied()
        .find(|l| *l == config.default_language)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "STOA_DEFAULT_LANGUAGE must be one of {}",
                stoa_kernel::model::LANGUAGES.join(", ")
            )
        })
}

/// Loads the demo site into the configured database (once) and its images into the data folder.
pub async fn seed_demo(config: &Config) -> anyhow::Result<usize> {
    let p = prepare(config).await?;
    let n = stoa_store::publish::with_drafts(stoa_site::demo::seed(
        &p.store,
        std::path::Path::new(&config.data_dir),
    ))
    .await
    .map_err(|e| anyhow::anyhow!("loading the demo site failed: {e}"))?;
    // The images go to the configured file storage too (an S3 bucket when one is set).
    let files = p
        .ctx
        .need::<dyn stoa_api::files::SiteFiles>()
        .map_err(anyhow::Error::msg)?;
    if !files.on_disk() {
        for (name, bytes) in stoa_site::demo::images() {
            files
                .put(&format!("demo/{name}"), bytes::Bytes::from_static(bytes))
                .await
                .map_err(|e| anyhow::anyhow!("storing the demo images failed: {e}"))?;
        }
    }
    p.store.db.close().await;
    Ok(n)
}

/// Creates an administrator through the module that owns accounts.
pub async fn create_admin(
    config: &Config,
    email: &str,
    password: &str,
) -> anyhow::Result<uuid::Uuid> {
    let p = prepare(config).await?;
    let admin = p
        .ctx
        .need::<dyn stoa_api::auth::AccountAdmin>()
        .map_err(anyhow::Error::msg)?;
    let id = admin
        .create_admin(email, password)
        .await
        .map_err(|e| anyhow::anyhow!("{}", e.public_message()));
    p.store.db.close().await;
    id
}

/// Connects, migrates and assembles the application with the default modules.
pub async fn build(config: &Config) -> anyhow::Result<App> {
    build_with(config, modules()).await
}

/// Connects, migrates and assembles the application with `modules`.
pub async fn build_with(config: &Config, modules: Vec<ModuleDef>) -> anyhow::Result<App> {
    let mut p = prepare_with(config, modules).await?;
    let operations = p.ctx.operations().to_vec();
    let answers = p.state.answers.clone();
    let api = p
        .modules
        .layer(&p.ctx, p.api.with_state(p.state))
        .map_err(anyhow::Error::msg)?;
    // Requests the server makes to its own API (the MCP server's tool calls) pass the same
    // layers as everyone's.
    if let Some(l) = p.ctx.get::<stoa_api::loopback::Loopback>() {
        l.set(api.clone());
    }
    let pages = p
        .ctx
        .need::<dyn stoa_api::module::Pages>()
        .map_err(anyhow::Error::msg)?;
    // Mail is headed with the site's name (notification sits below host: it is handed the pages).
    if let Some(mailer) = p.ctx.get::<stoa_notification::mail::Mailer>() {
        mailer.set_site(pages.clone());
    }
    let site_routes = p.modules.site(&p.ctx).map_err(anyhow::Error::msg)?;
    p.phases.mark("layers");
    let web_dir = std::path::PathBuf::from(&config.web_dir);
    let renderer = if config.ssr_engines == 0 {
        None
    } else {
        let script = web_dir.join("server").join("render.js");
        match stoa_render::Renderer::launch(
            &script,
            stoa_render::Options {
                engines: config.ssr_engines,
                budget: Duration::from_millis(config.ssr_budget_ms.max(1)),
                ..Default::default()
            },
        ) {
            Ok(r) => {
                if r.is_none() {
                    tracing::info!(script = %script.display(), "no server script: public pages render in the browser");
                }
                r
            }
            Err(e) => {
                tracing::error!(error = %e, "the server script does not load: public pages render in the browser");
                None
            }
        }
    };
    p.phases.mark("renderer");
    let router = api.merge(site_routes).merge(web::routes(web::Site {
        shell: web::Site::read_shell(&web_dir),
        renderer,
        cache: Arc::new(page_cache::PageCache::new(config.page_cache_bytes)),
        identify: p.ctx.get::<dyn stoa_api::auth::Identify>(),
        dir: web_dir,
        pages,
        files: p
            .ctx
            .need::<dyn stoa_api::files::SiteFiles>()
            .map_err(anyhow::Error::msg)?,
        public_url: config.public_url(),
        default_language: default_language(config)?,
        telegram_bot: config
            .telegram_bot_name
            .clone()
            .filter(|n| !n.is_empty() && config.telegram_bot_token.is_some()),
        oidc: config.oidc().map(|(_, _, _, name)| name),
    }));
    let trusted = config.trusted_proxy_nets().map_err(anyhow::Error::msg)?;
    // The largest body any route takes: a multipart body with a file in each file field of the
    // entity with the most.
    let files = p
        .store
        .registry
        .entities()
        .iter()
        .map(|e| stoa_api::openapi::file_fields(e).len())
        .max()
        .unwrap_or(0)
        .max(1);
    let largest = stoa_api::body::Limits {
        json: config.body_limit,
        file: config.upload_limit,
    }
    .multipart(files);
    let gate = stoa_api::gate::Gate {
        budget: stoa_api::gate::Budget::leak(
            config.body_budget,
            config.bodies_per_address,
            largest,
        ),
        body_timeout: Duration::from_secs(config.body_timeout.max(1)),
        longest: Duration::from_secs(config.request_timeout.max(1)),
        largest,
    };
    let router = middleware::wrap(
        router,
        gate,
        Duration::from_secs(config.request_timeout),
        std::sync::Arc::new(trusted.clone()),
        middleware::csp(
            config.telegram_bot_token.is_some()
                && config
                    .telegram_bot_name
                    .as_deref()
                    .is_some_and(|n| !n.is_empty()),
            &config.providers.widget_origins(),
        ),
    );
    let hub = p
        .ctx
        .need::<stoa_api::live::Hub>()
        .map_err(anyhow::Error::msg)?;
    tokio::spawn(stoa_api::live::watch_store(
        p.store.clone(),
        Arc::downgrade(&hub),
        Duration::from_millis(300),
    ));
    drop(hub);
    let mut runner = stoa_api::jobs::Runner::new(p.ctx.clone(), p.jobs, p.modules.schedules());
    runner.concurrency = config
        .job_concurrency
        .unwrap_or(match p.store.db.backend() {
            stoa_store::Backend::Sqlite => 64,
            stoa_store::Backend::Postgres => 16,
        })
        .max(1);
    runner.lag_alert = Duration::from_secs(config.job_lag_alert);
    p.phases.mark("site");
    p.phases.log();
    Ok(App {
        router,
        answers,
        store: p.store,
        ctx: p.ctx,
        operations,
        jobs: Some(runner),
        rules: p.rules,
        connections: listener::Bounds {
            per_address: config.connections_per_address.max(1),
            quiet: Duration::from_secs(config.connection_quiet.max(1)),
            trusted: Arc::new(trusted),
        },
    })
}

impl App {
    /// Waits until the API is described (the document and the request rules are made beside the
    /// start; API requests that come first wait for them): for callers that want the API's
    /// answers at once, not after a first wait (tests, the `openapi` command).
    pub fn described(&self) -> impl std::future::Future<Output = ()> + use<> {
        let rules = self.rules.clone();
        async move {
            let _ = rules.get().await;
        }
    }

    /// The job runner, for a caller that runs it itself (tests tick it by hand); `serve` then
    /// runs none.
    pub fn take_jobs(&mut self) -> Option<stoa_api::jobs::Runner> {
        self.jobs.take()
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains requests and closes the
/// database.
pub async fn serve(
    app: App,
    listener: TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    tracing::info!(%addr, "stoa listening");
    let (stop_jobs, jobs_stopped) = tokio::sync::oneshot::channel::<()>();
    // Live streams never end by themselves: end them when the server stops, or the graceful
    // shutdown would wait for them forever.
    let hub = app.ctx.get::<stoa_api::live::Hub>();
    let shutdown = async move {
        shutdown.await;
        if let Some(h) = hub {
            h.close();
        }
    };
    let runner = app.jobs.map(|r| {
        tokio::spawn(r.run(async move {
            let _ = jobs_stopped.await;
        }))
    });
    if let Some(at) = app.ctx.config.metrics_addr.as_deref() {
        let metrics = TcpListener::bind(at)
            .await
            .map_err(|e| anyhow::anyhow!("STOA_METRICS_ADDR {at}: {e}"))?;
        tracing::info!(addr = %metrics.local_addr()?, "metrics listening");
        tokio::spawn(serve_metrics(metrics, app.store.clone()));
    }
    let router = app.router;
    axum::serve(
        listener::Bounded::new(listener, app.connections),
        listener::WithPeer {
            router,
            answers: app.answers,
        },
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    let _ = stop_jobs.send(());
    if let Some(r) = runner {
        let _ = r.await;
    }
    app.store.db.close().await;
    tracing::info!("stoa stopped");
    Ok(())
}

/// `GET /metrics` alone, unauthenticated, on its own listener (`STOA_METRICS_ADDR`); stops
/// with the process.
pub async fn serve_metrics(listener: TcpListener, store: Store) {
    let router = Router::new().route(
        "/metrics",
        get(move || {
            let store = store.clone();
            async move { stoa_api::metrics::response(&store).await }
        }),
    );
    if let Err(e) = axum::serve(listener, router).await {
        tracing::error!(error = %e, "the metrics listener stopped");
    }
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    /// Every module, entity, field and enum value has words in en and ru (its module's
    /// `words.toml` or the shared one), and no `words.toml` names what is not declared: no raw
    /// key reaches an editor's screen.
    #[test]
    fn every_declared_name_has_words_in_en_and_ru() {
        let reg = super::registry().expect("the declarations hold");
        let problems = reg
            .words()
            .problems(reg.entities().iter().map(|e| e.as_ref()));
        assert!(
            problems.is_empty(),
            "{} problems:\n{}",
            problems.len(),
            problems.join("\n")
        );
    }

    /// No word a made-up name is made of is a value some field takes: "new red parrot" read as
    /// an order's status ("new") on the admin's screens.
    #[test]
    fn made_up_names_use_no_field_value() {
        let reg = super::registry().expect("the declarations hold");
        let clashes: Vec<String> = reg
            .entities()
            .iter()
            .flat_map(|e| {
                e.fields
                    .iter()
                    .flat_map(|f| f.values.iter())
                    .chain(e.variants.iter())
                    .filter(|v| stoa_kernel::words::is_name_word(v))
                    .map(move |v| format!("{}: {v}", e.key()))
            })
            .collect();
        assert!(clashes.is_empty(), "{clashes:?}");
    }
}
