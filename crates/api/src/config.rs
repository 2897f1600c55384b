//! Configuration from `STOA_*` environment variables and `DATABASE_URL` (or flags).

use clap::Args;
use serde::Serialize;

#[derive(Args, Clone, Debug, Serialize)]
pub struct Config {
    /// Database: `sqlite://path` (default) or `postgres://…`.
    #[arg(
        long,
        env = "DATABASE_URL",
        hide_env_values = true,
        default_value = "sqlite://./data/stoa.db"
    )]
    pub database_url: String,
    /// Address to listen on.
    #[arg(long, env = "STOA_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Folder for data the server keeps (SQLite file, uploads, generated secrets).
    #[arg(long, env = "STOA_DATA_DIR", default_value = "./data")]
    pub data_dir: String,
    /// Log filter (tracing env-filter syntax).
    #[arg(long, env = "STOA_LOG", default_value = "info")]
    pub log: String,
    /// `json` (one JSON object per line) or `pretty`.
    #[arg(long, env = "STOA_LOG_FORMAT", default_value = "json")]
    pub log_format: String,
    /// Largest JSON or form body, in bytes.
    #[arg(long, env = "STOA_BODY_LIMIT", default_value_t = 2 * 1024 * 1024)]
    pub body_limit: usize,
    /// Largest uploaded file, in bytes.
    #[arg(long, env = "STOA_UPLOAD_LIMIT", default_value_t = 20 * 1024 * 1024)]
    pub upload_limit: usize,
    /// Bytes of request bodies held at once across all requests, reserved before a body is read;
    /// past it bodies wait (2 s) and then get a 503. Bodies over 1 MiB may fill half of it, over
    /// 64 KiB seven eighths: the rest stays for small ones.
    #[arg(long, env = "STOA_BODY_BUDGET", default_value_t = 256 * 1024 * 1024)]
    pub body_budget: usize,
    /// Seconds a request body may take to arrive whole; a slower one is dropped with a 408.
    #[arg(long, env = "STOA_BODY_TIMEOUT", default_value_t = 10)]
    pub body_timeout: u64,
    /// Request bodies over 64 KiB one client address may send at once (past it: 429); it may also hold at
    /// most an eighth of STOA_BODY_BUDGET (at least one largest body).
    #[arg(long, env = "STOA_BODIES_PER_ADDRESS", default_value_t = 32)]
    pub bodies_per_address: u32,
    /// Open connections one client address may hold (trusted proxies are not counted); past it
    /// new connections from that address are closed at once.
    #[arg(long, env = "STOA_CONNECTIONS_PER_ADDRESS", default_value_t = 256)]
    pub connections_per_address: u32,
    /// Live streams (`GET /api/live`) one signed-in person, or the anonymous visitors of one
    /// address, may hold open at once; past it: 429.
    #[arg(long, env = "STOA_LIVE_PER_SUBJECT", default_value_t = 16)]
    pub live_per_subject: u32,
    /// Live streams one client address may hold open at once, whoever is signed in; past it: 429.
    #[arg(long, env = "STOA_LIVE_PER_ADDRESS", default_value_t = 32)]
    pub live_per_address: u32,
    /// Seconds a connection may stay unanswered after the client sent something (slow headers),
    /// or idle between requests, before it is closed (longer than STOA_REQUEST_TIMEOUT).
    #[arg(long, env = "STOA_CONNECTION_QUIET", default_value_t = 60)]
    pub connection_quiet: u64,
    /// Days a payment webhook that was rejected or ignored stays in the inbox (an hourly job
    /// deletes older ones; accepted ones stay with their invoice).
    #[arg(long, env = "STOA_WEBHOOK_RETENTION_DAYS", default_value_t = 30)]
    pub webhook_retention_days: u64,
    /// Seconds a request may take before the server answers 503.
    #[arg(long, env = "STOA_REQUEST_TIMEOUT", default_value_t = 30)]
    pub request_timeout: u64,
    /// Database connections: SQLite readers (default: one per CPU) or the PostgreSQL pool (default 16).
    #[arg(long, env = "STOA_DB_MAX_CONNECTIONS")]
    pub db_max_connections: Option<u32>,
    /// Folder of the built web UI (`npm --prefix web run build`).
    #[arg(long, env = "STOA_WEB_DIR", default_value = "web/dist")]
    pub web_dir: String,
    /// Entries (a URL in one language) per sitemap file, at most 50 000 (the protocol's limit);
    /// past one file, `/sitemap.xml` is an index of `/sitemaps/{n}.xml`.
    #[arg(long, env = "STOA_SITEMAP_URLS_PER_FILE", default_value_t = 50_000)]
    pub sitemap_urls_per_file: usize,
    /// Engines rendering public pages on the server (0: pages render in the browser only).
    #[arg(long, env = "STOA_SSR_ENGINES", default_value_t = 2)]
    pub ssr_engines: usize,
    /// Milliseconds one server render may take before the page falls back to the browser.
    #[arg(long, env = "STOA_SSR_BUDGET_MS", default_value_t = 250)]
    pub ssr_budget_ms: u64,
    /// Bytes of finished, compressed public pages kept in memory.
    #[arg(long, env = "STOA_PAGE_CACHE_BYTES", default_value_t = 64 * 1024 * 1024)]
    pub page_cache_bytes: usize,
    /// Bytes of visitors' API answers kept in memory (public reads asked without credentials,
    /// answered before routing while what they were read from is unchanged; 0 turns it off).
    #[arg(long, env = "STOA_API_CACHE_BYTES", default_value_t = 16 * 1024 * 1024)]
    pub api_cache_bytes: usize,
    /// The site's public origin (`https://shop.example.com`): Sign-In with Ethereum domain, reset
    /// links, same-origin checks, and `Secure` cookies when https. Default: `http://` + STOA_ADDR.
    #[arg(long, env = "STOA_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// HS256 key for access tokens (≥ 32 bytes). Default: generated once into
    /// `STOA_DATA_DIR/jwt-secret`. Set it explicitly when several instances serve one database.
    #[arg(long, env = "STOA_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// Access-token lifetime in seconds.
    #[arg(long, env = "STOA_ACCESS_TOKEN_TTL", default_value_t = 900)]
    pub access_token_ttl: i64,
    /// Refresh-token lifetime in seconds (renewed on each use).
    #[arg(long, env = "STOA_REFRESH_TOKEN_TTL", default_value_t = 30 * 24 * 3600)]
    pub refresh_token_ttl: i64,
    /// Enables `X-RBAC-SECRET-KEY` for trusted server-to-server calls (≥ 32 characters).
    #[arg(long, env = "STOA_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,
    /// SMTP server for mail (`smtp://user:pass@host:587?tls=required`, `smtps://…`). Unset: mail
    /// stays in the outbox and is printed to the log.
    #[arg(long, env = "STOA_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// The From address of outgoing mail.
    #[arg(
        long,
        env = "STOA_MAIL_FROM",
        default_value = "Stoa <no-reply@localhost>"
    )]
    pub mail_from: String,
    /// The brand colour of the mail's HTML part (`#rrggbb`; the header band and the links).
    #[arg(long, env = "STOA_MAIL_BRAND_COLOR")]
    pub mail_brand_color: Option<String>,
    /// The OpenID Connect provider visitors may sign in with (`https://accounts.google.com` for
    /// Google): its issuer, whose discovery document names the rest. Unset: not offered.
    #[arg(long, env = "STOA_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,
    /// The client id the provider gave this site.
    #[arg(long, env = "STOA_OIDC_CLIENT_ID")]
    pub oidc_client_id: Option<String>,
    /// The client secret the provider gave this site.
    #[arg(long, env = "STOA_OIDC_CLIENT_SECRET", hide_env_values = true)]
    pub oidc_client_secret: Option<String>,
    /// What the sign-in button calls the provider ("Sign in with Google"); unset: Google for
    /// Google's issuer, else the issuer's host.
    #[arg(long, env = "STOA_OIDC_NAME")]
    pub oidc_name: Option<String>,
    /// Telegram bot token for Telegram notifications (from @BotFather). Unset: Telegram
    /// notifications stay in the outbox.
    #[arg(long, env = "STOA_TELEGRAM_BOT_TOKEN", hide_env_values = true)]
    pub telegram_bot_token: Option<String>,
    /// The Telegram Bot API's address (a local Bot API server or a test fake).
    #[arg(
        long,
        env = "STOA_TELEGRAM_API_URL",
        default_value = "https://api.telegram.org"
    )]
    pub telegram_api_url: String,
    /// The bot's username (without @), shown by the Telegram Login Widget to link accounts.
    #[arg(long, env = "STOA_TELEGRAM_BOT_NAME")]
    pub telegram_bot_name: Option<String>,
    /// A Telegram chat id (a group of the site's staff) that receives admin alerts as well.
    #[arg(long, env = "STOA_TELEGRAM_ADMIN_CHAT")]
    pub telegram_admin_chat: Option<String>,
    /// Delivery attempts of one notification before it is marked failed.
    #[arg(long, env = "STOA_NOTIFY_ATTEMPTS", default_value_t = 5)]
    pub notify_attempts: u32,
    /// Seconds before the second delivery attempt; each later wait doubles (at most an hour).
    #[arg(long, env = "STOA_NOTIFY_BACKOFF", default_value_t = 30)]
    pub notify_backoff: u64,
    /// Credential requests (sign-in, registration, reset, wallet) one IP may make per window.
    #[arg(long, env = "STOA_AUTH_RATE_BURST", default_value_t = 10)]
    pub auth_rate_burst: u32,
    /// The window of STOA_AUTH_RATE_BURST, in seconds.
    #[arg(long, env = "STOA_AUTH_RATE_WINDOW", default_value_t = 60)]
    pub auth_rate_window: u64,
    /// The site's default language: paths without a language redirect to it.
    #[arg(long, env = "STOA_DEFAULT_LANGUAGE", default_value = "ru")]
    pub default_language: String,
    /// Registrations, reset requests and reset attempts per account per hour.
    #[arg(long, env = "STOA_AUTH_ACCOUNT_RATE", default_value_t = 100)]
    pub auth_account_rate: u32,
    /// Failed sign-ins one client IP may make on one account per 15 minutes; past it that IP gets
    /// 429 for that account only. Successful sign-ins are never counted.
    #[arg(long, env = "STOA_AUTH_FAILURES", default_value_t = 10)]
    pub auth_failures: u32,
    /// Failed sign-ins on one account per hour (from any address) after which every attempt on
    /// it waits a second first: scripted guessing slows down, the owner is never locked out.
    #[arg(long, env = "STOA_AUTH_SLOW_AFTER", default_value_t = 20)]
    pub auth_slow_after: u32,
    /// Reverse proxies in front of stoa, comma-separated IPs or CIDR ranges (`127.0.0.1,10.0.0.0/8`).
    /// A request from one is attributed to the client its `X-Forwarded-For` names (the rightmost
    /// address that is not itself a trusted proxy); from anyone else that header is ignored.
    #[arg(long, env = "STOA_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<String>,
    /// A second address (`127.0.0.1:9100`) serving `GET /metrics` without authentication, for a
    /// Prometheus on a private network. Unset: `/metrics` on the main address, for admins only.
    #[arg(long, env = "STOA_METRICS_ADDR")]
    pub metrics_addr: Option<String>,
    /// Payment providers buyers may choose, comma-separated, in the order offered. Unset: every
    /// provider whose credentials are set, or `dummy` when none are.
    #[arg(long, env = "STOA_PAYMENT_PROVIDERS")]
    pub payment_providers: Option<String>,
    /// Seconds after checkout the dummy provider reports the payment (its own webhook).
    #[arg(long, env = "STOA_DUMMY_WEBHOOK_DELAY", default_value_t = 10)]
    pub dummy_webhook_delay: u64,
    /// Seconds an order may wait in `paying` before it is canceled.
    #[arg(long, env = "STOA_PAYMENT_TIMEOUT", default_value_t = 24 * 3600)]
    pub payment_timeout: u64,
    /// Hours an abandoned cart (an order never checked out) is kept.
    #[arg(long, env = "STOA_CART_RETENTION_HOURS", default_value_t = 24)]
    pub cart_retention_hours: u64,
    /// Days audit entries are kept (0: forever); older ones are deleted daily.
    #[arg(long, env = "STOA_AUDIT_RETENTION_DAYS", default_value_t = 365)]
    pub audit_retention_days: u32,
    /// Days finished background jobs are kept (0: forever); older ones are deleted hourly.
    /// Dead jobs stay until an admin deletes them.
    #[arg(long, env = "STOA_JOBS_KEPT_DAYS", default_value_t = 7)]
    pub jobs_kept_days: u32,
    /// `required`: administrators must sign in with a second factor (TOTP); one without it is
    /// sent to enrolment and can do nothing else. `optional` (default): any account may enrol.
    #[arg(long, env = "STOA_ADMIN_2FA", default_value = "optional", value_parser = ["optional", "required"])]
    pub admin_2fa: String,
    /// Payment webhooks one client IP may post per minute (each is stored before it is checked).
    #[arg(long, env = "STOA_WEBHOOK_RATE", default_value_t = 600)]
    pub webhook_rate: u32,
    /// Form submissions (CRM) one client IP may make to one form per minute (429 past it); one
    /// form takes 20 times as many from all senders.
    #[arg(long, env = "STOA_FORM_RATE", default_value_t = 10)]
    pub form_rate: u32,
    /// Chat writes (messages, edits, reactions, new chats) one account may make per minute.
    #[arg(long, env = "STOA_CHAT_RATE", default_value_t = 60)]
    pub chat_rate: u32,
    /// Background jobs one server claims and runs at once. Default: 64 on SQLite (jobs mostly wait
    /// for the writer and share its commits, and 16 slots made the payment chain queue behind its
    /// own latency, bench/checkout.sh); 16 on PostgreSQL, where each running job can hold one of
    /// the pool's connections and 64 starved the requests.
    #[arg(long, env = "STOA_JOB_CONCURRENCY")]
    pub job_concurrency: Option<usize>,
    /// Seconds the oldest due background job (a receipt, a mail) may wait before the server warns
    /// that background work falls behind (`stoa_job_lag_seconds` on /metrics shows it always);
    /// 0: never warn.
    #[arg(long, env = "STOA_JOB_LAG_ALERT", default_value_t = 60)]
    pub job_lag_alert: u64,
    /// Most threads the server keeps for blocking work (SQLite statements, password hashing, file
    /// and image work), each ended after 2 s idle. Default: four per core. Every kind of blocking
    /// work has its own, smaller cap; this one keeps SQLite's hand-offs (`block_in_place`) from
    /// spreading over many threads, each keeping its own allocator pages: 32 threads held 261 MB
    /// under a list load and served 9 400 req/s, 8 held 166 MB and served 10 800
    /// (docs/benchmarks.md, footprint).
    #[arg(long, env = "STOA_BLOCKING_THREADS")]
    pub blocking_threads: Option<usize>,
    /// Payment providers' credentials and addresses.
    #[command(flatten)]
    pub providers: ProviderConfig,
    /// Where uploads are kept and how images and downloads are bounded.
    #[command(flatten)]
    pub files: FileConfig,
    /// Outgoing webhooks: what they may reach and how they retry.
    #[command(flatten)]
    pub hooks: HookConfig,
    /// The MCP server for AI agents at `/mcp` (docs/mcp.md).
    #[command(flatten)]
    pub mcp: McpConfig,
    /// The AI participant in chats: an OpenAI-compatible chat-completions service.
    #[command(flatten)]
    pub ai: AiConfig,
}

/// The AI participant in chats (`STOA_AI_*`): profiles of the variant `artificial-intelligence`
/// answer in their chats through an OpenAI-compatible chat-completions endpoint. Without a base
/// URL they stay silent (the admin says so).
#[derive(Args, Clone, Debug, Default, Serialize)]
pub struct AiConfig {
    /// The API's base URL, up to and without `/chat/completions`
    /// (`https://api.openai.com/v1`, a local server's `http://127.0.0.1:8080/v1`).
    #[arg(long, env = "STOA_AI_BASE_URL")]
    pub ai_base_url: Option<String>,
    /// Its key, sent as `Authorization: Bearer`.
    #[serde(skip_serializing)]
    #[arg(long, env = "STOA_AI_API_KEY")]
    pub ai_api_key: Option<String>,
    /// The model asked for.
    #[arg(long, env = "STOA_AI_MODEL", default_value = "gpt-4o-mini")]
    pub ai_model: String,
    /// Seconds an answer may take in all (the service silent for a third of it counts as down).
    #[arg(long, env = "STOA_AI_TIMEOUT", default_value_t = 60)]
    pub ai_timeout: u64,
}

impl AiConfig {
    pub fn defaults() -> Self {
        Self {
            ai_base_url: None,
            ai_api_key: None,
            ai_model: "gpt-4o-mini".into(),
            ai_timeout: 60,
        }
    }
}

/// The MCP server (`STOA_MCP_*`, docs/mcp.md).
#[derive(Args, Clone, Debug, Default, Serialize)]
pub struct McpConfig {
    /// `off` turns the MCP server at `/mcp` off (it answers 404).
    #[arg(long, env = "STOA_MCP", default_value = "on")]
    pub mcp: String,
    /// Seconds a write's confirmation token stays valid after its dry run.
    #[arg(long, env = "STOA_MCP_CONFIRM_TTL", default_value_t = 300)]
    pub mcp_confirm_ttl: u64,
}

impl McpConfig {
    pub fn defaults() -> Self {
        Self {
            mcp: "on".into(),
            mcp_confirm_ttl: 300,
        }
    }
}

/// Outgoing webhooks (`STOA_HOOKS_*`, docs/webhooks.md).
#[derive(Args, Clone, Debug, Default, Serialize)]
pub struct HookConfig {
    /// Addresses outgoing webhooks may reach although they are private
    /// (`10.0.0.5:443,[fd00::1]:80`): for a receiver inside your network. Everything else
    /// private, loopback or link-local is refused.
    #[arg(long, env = "STOA_HOOKS_ALLOW")]
    pub hooks_allow: Option<String>,
    /// Seconds one delivery may take (connecting, sending and reading the answer).
    #[arg(long, env = "STOA_HOOKS_TIMEOUT", default_value_t = 10)]
    pub hooks_timeout: u64,
    /// Milliseconds before the first retry of a failed delivery; each later retry waits twice
    /// as long, up to an hour.
    #[arg(long, env = "STOA_HOOKS_RETRY_MS", default_value_t = 30_000)]
    pub hooks_retry_ms: u64,
    /// Days an endpoint may fail every delivery before it is disabled (and the admins mailed).
    #[arg(long, env = "STOA_HOOKS_DISABLE_AFTER_DAYS", default_value_t = 3)]
    pub hooks_disable_after_days: u64,
    /// Days delivered deliveries and their events are kept for the log and replays.
    #[arg(long, env = "STOA_HOOKS_KEEP_DAYS", default_value_t = 30)]
    pub hooks_keep_days: u64,
}

impl HookConfig {
    pub fn defaults() -> Self {
        Self {
            hooks_allow: None,
            hooks_timeout: 10,
            hooks_retry_ms: 30_000,
            hooks_disable_after_days: 3,
            hooks_keep_days: 30,
        }
    }
}

/// Stored files (`STOA_FILES`, `STOA_S3_*`), image sizes and create-from-url.
#[derive(Args, Clone, Debug, Default, Serialize)]
pub struct FileConfig {
    /// Where uploads are kept: unset for `STOA_DATA_DIR/files`, or `s3://bucket[/prefix]` for an
    /// S3-compatible bucket shared by several instances (see the STOA_S3_* settings).
    #[arg(long, env = "STOA_FILES")]
    pub files: Option<String>,
    /// S3 endpoint (`https://s3.eu-central-1.amazonaws.com`, `http://minio:9000`). Unset: AWS.
    #[arg(long, env = "STOA_S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,
    #[arg(long, env = "STOA_S3_REGION", default_value = "us-east-1")]
    pub s3_region: String,
    #[arg(long, env = "STOA_S3_ACCESS_KEY_ID")]
    pub s3_access_key_id: Option<String>,
    #[arg(long, env = "STOA_S3_SECRET_ACCESS_KEY", hide_env_values = true)]
    pub s3_secret_access_key: Option<String>,
    /// Largest image (width × height, in pixels) that is decoded for sizes or accepted at all.
    #[arg(long, env = "STOA_IMAGE_MAX_PIXELS", default_value_t = 40_000_000)]
    pub image_max_pixels: u64,
    /// New image sizes one client address may have made in ten minutes (sizes already made are
    /// served to anyone without counting); past it: 429.
    #[arg(long, env = "STOA_IMAGE_SIZES_PER_ADDRESS", default_value_t = 200)]
    pub image_sizes_per_address: u32,
    /// Addresses create-from-url may reach although they are private (`10.0.0.5:443,[fd00::1]:80`):
    /// for an internal media server. Everything else private, loopback or link-local is refused.
    #[arg(long, env = "STOA_FETCH_ALLOW")]
    pub fetch_allow: Option<String>,
    /// Seconds one create-from-url download may take.
    #[arg(long, env = "STOA_FETCH_TIMEOUT", default_value_t = 20)]
    pub fetch_timeout: u64,
}

impl FileConfig {
    pub fn defaults() -> Self {
        Self {
            s3_region: "us-east-1".into(),
            image_max_pixels: 40_000_000,
            image_sizes_per_address: 200,
            fetch_timeout: 20,
            ..Self::default()
        }
    }
}

/// Each payment provider's credentials and API address (`STOA_<PROVIDER>_*`). A provider is
/// available once its credentials are set; see docs/payments.md.
#[derive(Args, Clone, Debug, Default, Serialize)]
pub struct ProviderConfig {
    /// Seconds a provider's API may take to answer before the buyer is told to try again.
    #[arg(long, env = "STOA_PROVIDER_TIMEOUT", default_value_t = 8)]
    pub provider_timeout: u64,
    /// Stripe secret API key (`sk_live_…`).
    #[arg(long, env = "STOA_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<String>,
    /// Stripe webhook signing secret (`whsec_…`).
    #[arg(long, env = "STOA_STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<String>,
    #[arg(
        long,
        env = "STOA_STRIPE_API_URL",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_url: String,
    /// CloudPayments Public ID.
    #[arg(long, env = "STOA_CLOUDPAYMENTS_PUBLIC_ID")]
    pub cloudpayments_public_id: Option<String>,
    /// CloudPayments API secret (also signs its notifications).
    #[arg(long, env = "STOA_CLOUDPAYMENTS_API_SECRET", hide_env_values = true)]
    pub cloudpayments_api_secret: Option<String>,
    #[arg(
        long,
        env = "STOA_CLOUDPAYMENTS_API_URL",
        default_value = "https://api.cloudpayments.ru"
    )]
    pub cloudpayments_api_url: String,
    /// The script of CloudPayments' payment widget (the card form it opens over the page), for
    /// the donation's card-widget variant. Its origin is allowed by the site's CSP.
    #[arg(
        long,
        env = "STOA_CLOUDPAYMENTS_WIDGET_URL",
        default_value = "https://widget.cloudpayments.ru/bundles/cloudpayments.js"
    )]
    pub cloudpayments_widget_url: String,
    /// TipTopPay Public ID.
    #[arg(long, env = "STOA_TIPTOPPAY_PUBLIC_ID")]
    pub tiptoppay_public_id: Option<String>,
    /// TipTopPay API secret.
    #[arg(long, env = "STOA_TIPTOPPAY_API_SECRET", hide_env_values = true)]
    pub tiptoppay_api_secret: Option<String>,
    #[arg(
        long,
        env = "STOA_TIPTOPPAY_API_URL",
        default_value = "https://api.tiptoppay.kz"
    )]
    pub tiptoppay_api_url: String,
    /// The script of TipTopPay's payment widget (as CloudPayments').
    #[arg(
        long,
        env = "STOA_TIPTOPPAY_WIDGET_URL",
        default_value = "https://widget.tiptoppay.kz/bundles/widget.js"
    )]
    pub tiptoppay_widget_url: String,
    /// Payselection (RUB) site id.
    #[arg(long, env = "STOA_PAYSELECTION_SITE_ID")]
    pub payselection_site_id: Option<String>,
    /// Payselection (RUB) secret key: verifies webhooks.
    #[arg(long, env = "STOA_PAYSELECTION_SECRET_KEY", hide_env_values = true)]
    pub payselection_secret_key: Option<String>,
    /// Payselection (RUB) public key: signs requests to the payment form API.
    #[arg(long, env = "STOA_PAYSELECTION_PUBLIC_KEY", hide_env_values = true)]
    pub payselection_public_key: Option<String>,
    #[arg(
        long,
        env = "STOA_PAYSELECTION_API_URL",
        default_value = "https://webform.payselection.com"
    )]
    pub payselection_api_url: String,
    /// Payselection International site id.
    #[arg(long, env = "STOA_PAYSELECTION_INT_SITE_ID")]
    pub payselection_int_site_id: Option<String>,
    /// Payselection International secret key.
    #[arg(long, env = "STOA_PAYSELECTION_INT_SECRET_KEY", hide_env_values = true)]
    pub payselection_int_secret_key: Option<String>,
    /// Payselection International public key.
    #[arg(long, env = "STOA_PAYSELECTION_INT_PUBLIC_KEY", hide_env_values = true)]
    pub payselection_int_public_key: Option<String>,
    #[arg(
        long,
        env = "STOA_PAYSELECTION_INT_API_URL",
        default_value = "https://webform.payselection.com"
    )]
    pub payselection_int_api_url: String,
    /// PayKeeper server of the shop (`https://shop.server.paykeeper.ru`).
    #[arg(long, env = "STOA_PAYKEEPER_URL")]
    pub paykeeper_url: Option<String>,
    /// PayKeeper API user.
    #[arg(long, env = "STOA_PAYKEEPER_USER")]
    pub paykeeper_user: Option<String>,
    /// PayKeeper API password.
    #[arg(long, env = "STOA_PAYKEEPER_PASSWORD", hide_env_values = true)]
    pub paykeeper_password: Option<String>,
    /// PayKeeper notification secret seed ("секретное слово").
    #[arg(long, env = "STOA_PAYKEEPER_SECRET", hide_env_values = true)]
    pub paykeeper_secret: Option<String>,
    /// 0xProcessing merchant id.
    #[arg(long, env = "STOA_OXPROCESSING_MERCHANT_ID")]
    pub oxprocessing_merchant_id: Option<String>,
    /// 0xProcessing webhook password.
    #[arg(
        long,
        env = "STOA_OXPROCESSING_WEBHOOK_PASSWORD",
        hide_env_values = true
    )]
    pub oxprocessing_webhook_password: Option<String>,
    #[arg(
        long,
        env = "STOA_OXPROCESSING_API_URL",
        default_value = "https://app.0xprocessing.com"
    )]
    pub oxprocessing_api_url: String,
    /// The coin and network 0xProcessing payments are made in (`USDT (TRC20)`, `USDT (ERC20)`…).
    #[arg(
        long,
        env = "STOA_OXPROCESSING_CURRENCY",
        default_value = "USDT (TRC20)"
    )]
    pub oxprocessing_currency: String,
    /// Create 0xProcessing payments in test mode.
    #[arg(long, env = "STOA_OXPROCESSING_TEST", default_value_t = false)]
    pub oxprocessing_test: bool,
}

impl ProviderConfig {
    /// The origins of the payment widgets' scripts of the configured providers (CloudPayments,
    /// TipTopPay): what the site's CSP lets the page load and frame.
    pub fn widget_origins(&self) -> Vec<String> {
        let set = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
        [
            (
                set(&self.cloudpayments_public_id) && set(&self.cloudpayments_api_secret),
                &self.cloudpayments_widget_url,
            ),
            (
                set(&self.tiptoppay_public_id) && set(&self.tiptoppay_api_secret),
                &self.tiptoppay_widget_url,
            ),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .filter_map(|(_, url)| origin(url))
        .collect()
    }

    /// Every default, no credentials.
    pub fn defaults() -> Self {
        Self {
            provider_timeout: 8,
            stripe_api_url: "https://api.stripe.com".into(),
            cloudpayments_api_url: "https://api.cloudpayments.ru".into(),
            tiptoppay_api_url: "https://api.tiptoppay.kz".into(),
            cloudpayments_widget_url: "https://widget.cloudpayments.ru/bundles/cloudpayments.js"
                .into(),
            tiptoppay_widget_url: "https://widget.tiptoppay.kz/bundles/widget.js".into(),
            payselection_api_url: "https://webform.payselection.com".into(),
            payselection_int_api_url: "https://webform.payselection.com".into(),
            oxprocessing_api_url: "https://app.0xprocessing.com".into(),
            oxprocessing_currency: "USDT (TRC20)".into(),
            ..Self::default()
        }
    }
}

/// Configuration keys whose values are secrets (`stoa config` prints `***`).
const SECRET_KEYS: &[&str] = &[
    "jwt_secret",
    "oidc_client_secret",
    "telegram_bot_token",
    "secret_key",
    "stripe_secret_key",
    "stripe_webhook_secret",
    "cloudpayments_api_secret",
    "tiptoppay_api_secret",
    "payselection_secret_key",
    "payselection_public_key",
    "payselection_int_secret_key",
    "payselection_int_public_key",
    "paykeeper_password",
    "paykeeper_secret",
    "oxprocessing_webhook_password",
    "s3_secret_access_key",
];

impl Config {
    /// A configuration with every default (tests start from this).
    pub fn defaults() -> Self {
        Self {
            database_url: "sqlite://./data/stoa.db".into(),
            addr: "127.0.0.1:8080".into(),
            data_dir: "./data".into(),
            log: "info".into(),
            log_format: "json".into(),
            body_limit: 2 * 1024 * 1024,
            upload_limit: 20 * 1024 * 1024,
            body_budget: 256 * 1024 * 1024,
            body_timeout: 10,
            bodies_per_address: 32,
            connections_per_address: 256,
            live_per_subject: 16,
            live_per_address: 32,
            connection_quiet: 60,
            webhook_retention_days: 30,
            request_timeout: 30,
            db_max_connections: None,
            web_dir: "web/dist".into(),
            sitemap_urls_per_file: 50_000,
            ssr_engines: 2,
            ssr_budget_ms: 250,
            page_cache_bytes: 64 * 1024 * 1024,
            api_cache_bytes: 16 * 1024 * 1024,
            public_url: None,
            jwt_secret: None,
            access_token_ttl: 900,
            refresh_token_ttl: 30 * 24 * 3600,
            secret_key: None,
            smtp_url: None,
            mail_from: "Stoa <no-reply@localhost>".into(),
            mail_brand_color: None,
            telegram_bot_token: None,
            oidc_issuer: None,
            oidc_client_id: None,
            oidc_client_secret: None,
            oidc_name: None,
            telegram_api_url: "https://api.telegram.org".into(),
            telegram_bot_name: None,
            telegram_admin_chat: None,
            notify_attempts: 5,
            notify_backoff: 30,
            auth_rate_burst: 10,
            auth_rate_window: 60,
            auth_account_rate: 100,
            auth_failures: 10,
            auth_slow_after: 20,
            trusted_proxies: Vec::new(),
            metrics_addr: None,
            default_language: "ru".into(),
            payment_providers: Some("dummy".into()),
            dummy_webhook_delay: 10,
            payment_timeout: 24 * 3600,
            cart_retention_hours: 24,
            audit_retention_days: 365,
            jobs_kept_days: 7,
            admin_2fa: "optional".into(),
            webhook_rate: 600,
            form_rate: 10,
            chat_rate: 60,
            job_concurrency: None,
            job_lag_alert: 60,
            blocking_threads: None,
            providers: ProviderConfig::defaults(),
            files: FileConfig::defaults(),
            hooks: HookConfig::defaults(),
            mcp: McpConfig::defaults(),
            ai: AiConfig::defaults(),
        }
    }

    /// STOA_TRUSTED_PROXIES as networks: a bare address is a network of one; anything else is
    /// an error naming it.
    pub fn trusted_proxy_nets(&self) -> Result<Vec<ipnet::IpNet>, String> {
        self.trusted_proxies
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<ipnet::IpNet>()
                    .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                    .map_err(|_| {
                        format!("STOA_TRUSTED_PROXIES: '{s}' is not an IP address or CIDR range")
                    })
            })
            .collect()
    }

    /// The OpenID Connect provider, when its issuer, client id and secret are all set: (issuer,
    /// client id, secret, the name its button shows).
    pub fn oidc(&self) -> Option<(String, String, String, String)> {
        let set = |v: &Option<String>| v.clone().filter(|s| !s.trim().is_empty());
        let issuer = set(&self.oidc_issuer)?;
        let name = set(&self.oidc_name).unwrap_or_else(|| {
            let host = issuer
                .split_once("://")
                .map_or(issuer.as_str(), |(_, r)| r)
                .split(['/', ':'])
                .next()
                .unwrap_or_default()
                .to_owned();
            if host == "accounts.google.com" {
                "Google".to_owned()
            } else {
                host
            }
        });
        Some((
            issuer,
            set(&self.oidc_client_id)?,
            set(&self.oidc_client_secret)?,
            name,
        ))
    }

    /// The public origin, without a trailing slash.
    /// The public URL's host, lower-cased, without port (`example.com`).
    pub fn public_host(&self) -> String {
        let url = self.public_url();
        let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
        rest.split(['/', ':'])
            .next()
            .unwrap_or(rest)
            .to_ascii_lowercase()
    }

    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.addr))
            .trim_end_matches('/')
            .to_owned()
    }

    /// The configuration as JSON with secrets (database password) redacted.
    pub fn redacted(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        v["database_url"] = serde_json::Value::String(redact_url(&self.database_url));
        let hide = |obj: &mut serde_json::Value| {
            for k in SECRET_KEYS {
                if obj.get(*k).is_some_and(|x| !x.is_null()) {
                    obj[*k] = serde_json::Value::String("***".into());
                }
            }
        };
        hide(&mut v);
        hide(&mut v["providers"]);
        hide(&mut v["files"]);
        if let Some(u) = &self.smtp_url {
            v["smtp_url"] = serde_json::Value::String(redact_url(u));
        }
        v
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((creds, host)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    match creds.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_in_database_urls_are_redacted() {
        assert_eq!(
            super::redact_url("postgres://u:p%40ss@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(
            super::redact_url("sqlite://./data/stoa.db"),
            "sqlite://./data/stoa.db"
        );
    }
}

/// `scheme://host[:port]` of an http(s) URL, or `None` — never anything a CSP could read as more
/// than one source (no spaces, quotes, semicolons or commas).
pub fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?;
    let clean = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    clean.then(|| format!("{scheme}://{host}"))
}

#[cfg(test)]
mod widget_origin_tests {
    use super::*;

    #[test]
    fn widget_origins_are_the_configured_providers_script_origins() {
        let mut c = ProviderConfig::defaults();
        assert!(
            c.widget_origins().is_empty(),
            "no provider configured, nothing allowed"
        );
        c.cloudpayments_public_id = Some("pk_1".into());
        c.cloudpayments_api_secret = Some("secret".into());
        assert_eq!(c.widget_origins(), ["https://widget.cloudpayments.ru"]);
        c.cloudpayments_widget_url = "http://127.0.0.1:4010/bundles/cloudpayments.js".into();
        assert_eq!(c.widget_origins(), ["http://127.0.0.1:4010"]);
        c.cloudpayments_widget_url = "https://evil.example; script-src *".into();
        assert!(
            c.widget_origins().is_empty(),
            "a URL that would add CSP sources is refused"
        );
        c.cloudpayments_widget_url = "javascript:alert(1)".into();
        assert!(c.widget_origins().is_empty());
    }
}
