//! The `stoa` server: configuration, the module registry, middleware, and start-up.
#![forbid(unsafe_code)]

pub mod config;
mod middleware;

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

/// The whole route book: health, readiness, the generic API, meta, docs and OpenAPI.
pub fn routes(state: &AppState) -> RouteBook<AppState> {
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
        .merge(stoa_api::api_routes(state));
    stoa_api::with_openapi(book, &state.store.registry)
}

/// Everything a running server holds.
pub struct App {
    pub router: Router,
    pub store: Store,
    pub operations: Vec<stoa_api::routes::Operation>,
}

/// Connects, migrates and assembles the application.
pub async fn build(config: &Config) -> anyhow::Result<App> {
    let registry = Arc::new(registry().map_err(anyhow::Error::msg)?);
    let db = connect(config).await?;
    let applied = stoa_store::ddl::migrate(&db, &registry)
        .await
        .map_err(|e| anyhow::anyhow!("migration failed: {e}"))?;
    if !applied.is_empty() {
        tracing::info!(statements = applied.len(), "database migrated");
    }
    let store = Store::new(db, registry);
    let state = AppState {
        store: store.clone(),
        limits: Limits {
            json: config.body_limit,
            file: config.upload_limit,
        },
    };
    let (router, operations) = routes(&state).into_parts();
    let router = middleware::wrap(
        router.with_state(state),
        Duration::from_secs(config.request_timeout),
    );
    Ok(App {
        router,
        store,
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
