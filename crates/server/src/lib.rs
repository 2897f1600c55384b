//! The `stoa` server: configuration, the module registry, middleware, and start-up.
#![forbid(unsafe_code)]

pub mod config;
mod middleware;
pub mod web;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use serde_json::json;
use stoa_api::body::Limits;
use stoa_api::{AppState, RouteBook};
use stoa_kernel::registry::Registry;
use stoa_rbac::{Auth, AuthConfig};
use stoa_store::{Db, DbOptions, Store};
use tokio::net::TcpListener;

pub use config::Config;

/// Every module's declarations, in dependency order.
pub fn registry() -> Result<Registry, String> {
    Registry::new(vec![
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
    ])
}

/// Connects to the configured database.
pub async fn connect(config: &Config) -> anyhow::Result<Db> {
    let mut opts = DbOptions::new(&config.database_url);
    opts.max_connections = config.db_max_connections;
    Db::connect(&opts).await.map_err(anyhow::Error::msg)
}

/// The whole route book: health, readiness, the generic API, the account endpoints, meta, docs
/// and OpenAPI.
pub fn routes(
    state: &AppState,
    auth: Arc<Auth>,
    bundles: Arc<stoa_site::cache::Bundles>,
) -> RouteBook<AppState> {
    let ok = |id: &str, summary: &str| {
        json!({"operationId": id, "summary": summary, "responses": {
            "200": {"description": "OK", "content": {"application/json": {}}},
            "503": {"description": "Not ready", "content": {"application/json": {}}}
        }})
    };
    let book = RouteBook::new()
        .add(
            "GET",
            "/health",
            get(|| async { stoa_api::crud::data(StatusCode::OK, json!({"status": "ok"})) }),
            ok("health", "Liveness"),
        )
        .add(
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
        .merge(stoa_host::http::routes())
        .merge(stoa_site::http::routes(bundles))
        .merge(stoa_crm::http::routes())
        .merge(stoa_ecommerce::http::routes())
        .merge(stoa_api::api_routes(state))
        .merge(stoa_rbac::http::routes(auth));
    stoa_api::with_openapi(book, &state.store.registry)
}

/// Everything a running server holds.
pub struct App {
    pub router: Router,
    pub store: Store,
    pub auth: Arc<Auth>,
    pub operations: Vec<stoa_api::routes::Operation>,
}

/// Connects, migrates and applies the default data seeds.
pub async fn prepare(config: &Config) -> anyhow::Result<Store> {
    let registry = Arc::new(registry().map_err(anyhow::Error::msg)?);
    let db = connect(config).await?;
    let applied = stoa_store::ddl::migrate(&db, &registry)
        .await
        .map_err(|e| anyhow::anyhow!("migration failed: {e}"))?;
    if !applied.is_empty() {
        tracing::info!(statements = applied.len(), "database migrated");
    }
    let store = Store::new(db, registry);
    stoa_notification::mail::seed(&store)
        .await
        .map_err(|e| anyhow::anyhow!("seeding notifications failed: {e}"))?;
    stoa_rbac::seed::seed(&store)
        .await
        .map_err(|e| anyhow::anyhow!("seeding roles and permissions failed: {e}"))?;
    Ok(store)
}

/// The JWT key: configured, or generated once into the data folder (owner-only permissions).
fn jwt_secret(config: &Config) -> anyhow::Result<Vec<u8>> {
    if let Some(s) = &config.jwt_secret {
        anyhow::ensure!(s.len() >= 32, "STOA_JWT_SECRET must be at least 32 bytes");
        return Ok(s.as_bytes().to_vec());
    }
    let path = std::path::Path::new(&config.data_dir).join("jwt-secret");
    if let Ok(s) = std::fs::read_to_string(&path) {
        let s = s.trim().to_owned();
        anyhow::ensure!(
            s.len() >= 32,
            "{} holds a key shorter than 32 bytes",
            path.display()
        );
        return Ok(s.into_bytes());
    }
    std::fs::create_dir_all(&config.data_dir)?;
    let key: String = (0..2)
        .map(|_| uuid::Uuid::new_v4().simple().to_string())
        .collect();
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    std::io::Write::write_all(&mut opts.open(&path)?, key.as_bytes())?;
    tracing::info!(path = %path.display(), "generated a JWT key");
    Ok(key.into_bytes())
}

/// The account service for `store` under `config`.
pub fn auth(config: &Config, store: &Store) -> anyhow::Result<Arc<Auth>> {
    if let Some(k) = &config.secret_key {
        anyhow::ensure!(
            k.len() >= 32,
            "STOA_SECRET_KEY must be at least 32 characters"
        );
    }
    let mailer = stoa_notification::mail::Mailer::new(
        store.clone(),
        &stoa_notification::mail::MailConfig {
            smtp_url: config.smtp_url.clone(),
            from: config.mail_from.clone(),
        },
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut cfg = AuthConfig::new(jwt_secret(config)?, config.public_url());
    cfg.access_ttl = config.access_token_ttl.max(1);
    cfg.refresh_ttl = config.refresh_token_ttl.max(1);
    cfg.secret_key = config.secret_key.clone().filter(|k| !k.is_empty());
    cfg.rates = stoa_rbac::limits::RateConfig {
        ip_burst: config.auth_rate_burst.max(1),
        ip_window: Duration::from_secs(config.auth_rate_window.max(1)),
        account_per_hour: config.auth_account_rate.max(1),
    };
    cfg.hash_concurrency = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    Ok(Arc::new(
        Auth::new(store.clone(), cfg, mailer).map_err(|e| anyhow::anyhow!("{e}"))?,
    ))
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
    let store = prepare(config).await?;
    let n = stoa_site::demo::seed(&store, std::path::Path::new(&config.data_dir))
        .await
        .map_err(|e| anyhow::anyhow!("loading the demo site failed: {e}"))?;
    store.db.close().await;
    Ok(n)
}

/// Connects, migrates and assembles the application.
pub async fn build(config: &Config) -> anyhow::Result<App> {
    let store = prepare(config).await?;
    let auth = auth(config, &store)?;
    let state = AppState {
        store: store.clone(),
        limits: Limits {
            json: config.body_limit,
            file: config.upload_limit,
        },
    };
    let bundles = stoa_site::cache::Bundles::new(store.clone());
    let (router, operations) = routes(&state, auth.clone(), bundles.clone()).into_parts();
    let router = router
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            auth.clone(),
            stoa_rbac::http::authorize,
        ))
        .merge(web::routes(web::Site {
            dir: config.web_dir.clone().into(),
            files: std::path::Path::new(&config.data_dir).join("files"),
            bundles,
            public_url: config.public_url(),
            default_language: default_language(config)?,
        }));
    let router = middleware::wrap(router, Duration::from_secs(config.request_timeout));
    let pruner = auth.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(600));
        loop {
            tick.tick().await;
            pruner.limits.prune();
        }
    });
    Ok(App {
        router,
        store,
        auth,
        operations,
    })
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
    axum::serve(
        listener,
        app.router
            .into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    app.store.db.close().await;
    tracing::info!("stoa stopped");
    Ok(())
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
