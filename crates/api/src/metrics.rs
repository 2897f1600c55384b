//! Process metrics in the Prometheus text format (`GET /metrics`, for admins, or on its own
//! listener with `STOA_METRICS_ADDR`), through the Prometheus project's `prometheus-client`.
//!
//! Every label takes a bounded set of values: routes are the router's templates (`/api/{id}`
//! style; a URL no route matched is `(unmatched)` and a public page `(site)`), job names come
//! from the modules' declarations, providers and channels from code. Counters live for the
//! process; gauges (database connections, job queue) are read when scraped.

use std::sync::LazyLock;
use std::time::Duration;

use axum::response::IntoResponse;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::{Family, MetricConstructor};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub method: String,
    pub route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    pub cache: &'static str,
    pub result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// The channel (email, telegram), the provider, or the job's name.
    pub kind: String,
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    pub state: &'static str,
}

/// Request latency buckets: 0.5 ms to ~16 s.
#[derive(Clone)]
pub struct LatencyBuckets;

impl MetricConstructor<Histogram> for LatencyBuckets {
    fn new_metric(&self) -> Histogram {
        Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
            0.0005, 2.0, 16,
        ))
    }
}

pub struct Metrics {
    pub requests: Family<RequestLabels, Counter>,
    pub latency: Family<RouteLabels, Histogram, LatencyBuckets>,
    pub cache: Family<CacheLabels, Counter>,
    pub mail: Family<OutcomeLabels, Counter>,
    pub webhooks: Family<OutcomeLabels, Counter>,
    pub jobs: Family<OutcomeLabels, Counter>,
    /// The runner's claims, by class (`kind`: foreground, background) and result (`outcome`:
    /// found, empty).
    pub job_claims: Family<OutcomeLabels, Counter>,
    pub db_connections: Family<StateLabels, Gauge>,
    pub job_queue: Family<StateLabels, Gauge>,
    /// Seconds the oldest due job of a class has waited (`state` = foreground, background).
    pub job_lag: Family<StateLabels, Gauge<f64, std::sync::atomic::AtomicU64>>,
    /// The background lag the server warns above (`STOA_JOB_LAG_ALERT`; 0: never).
    pub job_lag_alert: Gauge<f64, std::sync::atomic::AtomicU64>,
    /// SQLite: write transactions and commits (`Db::sqlite_writes`, brought up to date at scrape).
    pub sqlite_writes: Family<StateLabels, Counter>,
    /// SQLite: seconds the one writer connection was held (`Db::sqlite_writes`; one series,
    /// `state="held"`, made at the first scrape on SQLite so PostgreSQL shows none).
    pub sqlite_writer_busy: Family<StateLabels, Counter<f64, std::sync::atomic::AtomicU64>>,
    registry: Registry,
}

/// The process's metrics.
pub static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

impl Metrics {
    fn new() -> Self {
        let requests = Family::<RequestLabels, Counter>::default();
        let latency =
            Family::<RouteLabels, Histogram, LatencyBuckets>::new_with_constructor(LatencyBuckets);
        let cache = Family::<CacheLabels, Counter>::default();
        let mail = Family::<OutcomeLabels, Counter>::default();
        let webhooks = Family::<OutcomeLabels, Counter>::default();
        let jobs = Family::<OutcomeLabels, Counter>::default();
        let job_claims = Family::<OutcomeLabels, Counter>::default();
        let db_connections = Family::<StateLabels, Gauge>::default();
        let job_queue = Family::<StateLabels, Gauge>::default();
        let job_lag = Family::<StateLabels, Gauge<f64, std::sync::atomic::AtomicU64>>::default();
        let job_lag_alert = Gauge::<f64, std::sync::atomic::AtomicU64>::default();
        let sqlite_writes = Family::<StateLabels, Counter>::default();
        let sqlite_writer_busy =
            Family::<StateLabels, Counter<f64, std::sync::atomic::AtomicU64>>::default();
        let mut registry = Registry::with_prefix("stoa");
        registry.register(
            "http_requests",
            "Requests answered, by method, route template and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer a request (to its head), by method and route template",
            latency.clone(),
        );
        registry.register(
            "cache_lookups",
            "Lookups in the server's caches (page, bundle, file, api: visitors' API answers) by result (hit, miss)",
            cache.clone(),
        );
        registry.register(
            "notifications",
            "Notification deliveries by channel and outcome (sent, retry, failed)",
            mail.clone(),
        );
        registry.register(
            "webhooks",
            "Payment webhooks received, by provider and outcome (received, duplicate, ignored, rejected)",
            webhooks.clone(),
        );
        registry.register(
            "jobs",
            "Background jobs run, by job and outcome (done, retry, dead)",
            jobs.clone(),
        );
        registry.register(
            "job_claims",
            "The job runner's claims of due jobs, by class (kind=foreground, background) and result (outcome=found: at least one job; empty)",
            job_claims.clone(),
        );
        registry.register(
            "db_connections",
            "Database connections by state (open, idle, in use; on SQLite the readers, and reads waiting behind long ones)",
            db_connections.clone(),
        );
        registry.register(
            "job_queue",
            "Background jobs by state (queued, running, dead)",
            job_queue.clone(),
        );
        registry.register(
            "job_lag_seconds",
            "Seconds the oldest due job of each class has waited (state=foreground: payments and orders; state=background: receipts, mail); alert when background stays above job_lag_alert_seconds",
            job_lag.clone(),
        );
        registry.register(
            "job_lag_alert_seconds",
            "The background lag above which the server warns (STOA_JOB_LAG_ALERT; 0: never)",
            job_lag_alert.clone(),
        );
        registry.register(
            "db_sqlite_writes",
            "SQLite write transactions (state=transactions) and the group commits that made them durable (state=commits); their ratio is the writers per fsync",
            sqlite_writes.clone(),
        );
        registry.register(
            "db_sqlite_writer_busy_seconds",
            "Seconds SQLite's one writer connection was held by a write transaction (its statements, the waits between them and the commits); a rate near 1 means writes queue for it",
            sqlite_writer_busy.clone(),
        );
        Self {
            requests,
            latency,
            cache,
            mail,
            webhooks,
            jobs,
            job_claims,
            db_connections,
            job_queue,
            job_lag,
            job_lag_alert,
            sqlite_writes,
            sqlite_writer_busy,
            registry,
        }
    }

    /// Counts one answered request. A method outside the standard ones counts as `OTHER`: a
    /// client inventing methods cannot add label sets.
    pub fn request(&self, method: &str, route: &str, status: u16, took: Duration) {
        let method = match method {
            "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" => method,
            _ => "OTHER",
        };
        let (method, route) = (method.to_owned(), route.to_owned());
        self.latency
            .get_or_create(&RouteLabels {
                method: method.clone(),
                route: route.clone(),
            })
            .observe(took.as_secs_f64());
        self.requests
            .get_or_create(&RequestLabels {
                method,
                route,
                status,
            })
            .inc();
    }

    pub fn cache_lookup(&self, cache: &'static str, hit: bool) {
        self.cache
            .get_or_create(&CacheLabels {
                cache,
                result: if hit { "hit" } else { "miss" },
            })
            .inc();
    }

    pub fn outcome(family: &Family<OutcomeLabels, Counter>, kind: &str, outcome: &'static str) {
        family
            .get_or_create(&OutcomeLabels {
                kind: kind.to_owned(),
                outcome,
            })
            .inc();
    }

    pub fn set_state(family: &Family<StateLabels, Gauge>, state: &'static str, value: i64) {
        family.get_or_create(&StateLabels { state }).set(value);
    }

    /// The text exposition (OpenMetrics text, which Prometheus reads).
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "metrics could not be written");
        }
        out
    }
}

/// Reads the gauges (database connections, job queue) and writes every metric.
pub async fn scrape(store: &stoa_store::Store) -> String {
    let m = &*METRICS;
    for (state, n) in store.db.connections() {
        Metrics::set_state(&m.db_connections, state, n);
    }
    if let Some(w) = store.db.sqlite_writes() {
        // One scrape at a time brings the counters up to the totals (two would add twice).
        static SYNC: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = SYNC.lock();
        for (state, total) in [("transactions", w.transactions), ("commits", w.commits)] {
            let c = m.sqlite_writes.get_or_create(&StateLabels { state });
            c.inc_by(total.saturating_sub(c.get()));
        }
        let busy = m
            .sqlite_writer_busy
            .get_or_create(&StateLabels { state: "held" });
        busy.inc_by((w.busy_seconds - busy.get()).max(0.0));
    }
    match stoa_store::jobs::depth(&store.db).await {
        Ok(depth) => {
            for (state, n) in depth {
                Metrics::set_state(&m.job_queue, state, n);
            }
        }
        Err(e) => tracing::warn!(error = %e, "the job queue could not be counted for metrics"),
    }
    match stoa_store::jobs::lag(&store.db).await {
        Ok(lag) => {
            for (state, s) in lag {
                m.job_lag.get_or_create(&StateLabels { state }).set(s);
            }
        }
        Err(e) => tracing::warn!(error = %e, "the job lag could not be read for metrics"),
    }
    m.render()
}

/// The answer to a scrape.
pub async fn response(store: &stoa_store::Store) -> axum::response::Response {
    (
        [
            (http::header::CONTENT_TYPE, CONTENT_TYPE),
            (http::header::CACHE_CONTROL, "no-store"),
        ],
        scrape(store).await,
    )
        .into_response()
}

/// The content type of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_in_the_exposition() {
        let m = Metrics::new();
        m.request("GET", "/api/x/{id}", 200, Duration::from_millis(3));
        m.request("GET", "/api/x/{id}", 200, Duration::from_millis(30));
        m.cache_lookup("page", true);
        m.request("BREW", "(unmatched)", 405, Duration::from_millis(1));
        m.request("MKCOL", "(unmatched)", 405, Duration::from_millis(1));
        Metrics::outcome(&m.mail, "email", "sent");
        Metrics::set_state(&m.job_queue, "queued", 7);
        let text = m.render();
        assert!(
            text.contains(
                r#"stoa_http_requests_total{method="GET",route="/api/x/{id}",status="200"} 2"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#"stoa_http_request_duration_seconds_count{method="GET",route="/api/x/{id}"} 2"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"stoa_cache_lookups_total{cache="page",result="hit"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"stoa_notifications_total{kind="email",outcome="sent"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"stoa_job_queue{state="queued"} 7"#),
            "{text}"
        );
        assert!(
            text.contains(
                r#"stoa_http_requests_total{method="OTHER",route="(unmatched)",status="405"} 2"#
            ),
            "invented methods share one label: {text}"
        );
        assert!(!text.contains("BREW"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
