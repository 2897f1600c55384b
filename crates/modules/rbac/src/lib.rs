//! rbac: subjects, identities, roles, permissions (route rules as data) and sessions.
#![forbid(unsafe_code)]

pub mod access;
pub mod bodies;
pub mod gate;
pub mod http;
pub mod limits;
pub mod oidc_login;
pub mod password;
pub mod policy;
pub mod rails;
pub mod rows;
pub mod second_factor;
pub mod seed;
pub mod service;
pub mod siwe_login;
pub mod subjects;
pub mod telegram_login;
pub mod tokens;
pub mod verification;
pub mod views;

pub use service::{Auth, AuthConfig};

use stoa_kernel::model::*;

const M: &str = "rbac";

pub const IDENTITY_PROVIDERS: &[&str] = &[
    service::EMAIL,
    service::WALLET,
    service::ADDRESS,
    service::TELEGRAM,
    service::OIDC,
];

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    let s = |name: &'static str, right: (&'static str, &'static str)| {
        relation(M, name, ("subjectId", "rbac.subject"), right)
    };
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![
            model(M, "permission", "permissions")
                .field(
                    enumeration("type", &["HTTP"])
                        .required()
                        .default_text("HTTP"),
                )
                .field(
                    enumeration("method", &["*", "GET", "POST", "PATCH", "DELETE"])
                        .required()
                        .default_text("GET")
                        .list(),
                )
                .field(
                    text("path")
                        .required()
                        .default_text("/")
                        .max_len(2000)
                        .list()
                        .searchable(),
                )
                // Open to everyone, signed in or not. Explicit: a permission that no role holds and
                // that is not public grants nothing (deleting a role never opens its routes).
                .field(boolean("public").required().default_bool(false).list())
                .title("path")
                .private()
                .build(),
            model(M, "identity", "identities")
                .field(text("email").email().max_len(320).list().searchable())
                .field(text("account").max_len(200).list().searchable())
                .field(
                    enumeration("provider", IDENTITY_PROVIDERS)
                        .required()
                        .default_text("email")
                        .list(),
                )
                .field(text("password").secret())
                .field(text("salt").secret())
                .field(text("code").secret())
                .field(timestamp("resetExpiresAt"))
                .field(int("resetAttempts").required().default_int(0))
                .field(text("login").unique().max_len(400))
                // Email confirmation (see `service::Auth::verify_identity`): when the address was
                // proved by a mailed code (wallets and Telegram when linked: their proof is the
                // signature), an address waiting to replace it, and the code's hash, expiry and
                // wrong tries. Written by the account flows only.
                .field(Field {
                    server_owned: true,
                    ..timestamp("verifiedAt").list()
                })
                .field(Field {
                    server_owned: true,
                    ..text("pendingEmail").email().max_len(320)
                })
                .field(text("verifyCode").secret())
                .field(Field {
                    server_owned: true,
                    ..timestamp("verifyExpiresAt")
                })
                .field(Field {
                    server_owned: true,
                    ..int("verifyAttempts").required().default_int(0)
                })
                .title("email")
                .private()
                .build(),
            model(M, "role", "roles")
                .field(
                    text("title")
                        .required()
                        .unique()
                        .max_len(200)
                        .list()
                        .searchable(),
                )
                .field(slug_field().list())
                .field(
                    boolean("availableOnRegistration")
                        .required()
                        .default_bool(false)
                        .list(),
                )
                .title("title")
                .build(),
            model(M, "session", "sessions")
                .field(reference("subjectId", "rbac.subject").list())
                .field(timestamp("expiresAt").required().list())
                .field(timestamp("revokedAt").list())
                .field(timestamp("lastUsedAt").list())
                // Shown, not sorted on: no index for free text written at every sign-in.
                .field(text("userAgent").max_len(500).unsorted())
                .field(text("ip").max_len(64).unsorted())
                // `secondFactor` here makes refreshed tokens carry `mfa`: never writable through
                // the generic API.
                .field(Field {
                    server_owned: true,
                    ..json("options").required().default_json("{}")
                })
                .field(text("tokenHash").secret())
                .field(text("spentHashes").secret())
                // An account's live sessions (its list; "sign out everywhere else"), read
                // without the expired and revoked ones of every earlier sign-in.
                .lookup(&["subjectId", "revokedAt", "expiresAt"])
                .private()
                .build(),
            // Accounts are listed to admins only (the original listed every account to anyone).
            model(M, "subject", "subjects")
                .field(slug_field())
                // Two-factor sign-in (see `second_factor`): when it was turned on (shown), the
                // TOTP secret, one being enrolled, the last time step used, the recovery codes'
                // hashes (never shown).
                // Written by the enrolment flow only: through the generic API it could lock an
                // account out (on with no secret) or turn the factor off unrecorded.
                .field(Field {
                    server_owned: true,
                    ..timestamp("totpEnabledAt").list()
                })
                .field(text("totpSecret").secret())
                .field(text("totpPending").secret())
                .field(text("totpStep").secret())
                .field(text("recoveryCodes").secret())
                // The language the person last used on the site: their mail is written in it.
                .field(Field {
                    server_owned: true,
                    ..text("language").max_len(10)
                })
                .title("slug")
                .private()
                .private_links()
                .build(),
            // Keys an admin makes for an agent or a script (`Authorization: Bearer stoa_ak_…`):
            // acting for an account with no more than the key's roles (those of them the account
            // holds), refused on account and access changes, every write in the audit log. The
            // token is shown once when made (`POST /api/rbac/api-keys/{id}/token`); only its hash
            // is kept.
            model(M, "api-key", "api-keys")
                .field(text("title").required().max_len(200).list().searchable())
                .field(reference("subjectId", "rbac.subject").required().list())
                .field(boolean("isActive").required().default_bool(true).list())
                .field(timestamp("expiresAt").list())
                .field(Field {
                    server_owned: true,
                    ..text("tokenPrefix").max_len(40).list()
                })
                .field(Field {
                    server_owned: true,
                    ..timestamp("lastUsedAt").list()
                })
                .field(text("tokenHash").secret())
                .title("title")
                .private()
                .build(),
            relation(
                M,
                "api-keys-to-roles",
                ("apiKeyId", "rbac.api-key"),
                ("roleId", "rbac.role"),
            )
            .build(),
            // Modules above rbac add the variants that show their records of an account
            // (social's profiles, ecommerce's products), with `ModuleDef::variants`.
            stoa_kernel::model::widget_model(M)
                .variants(&[
                    "default",
                    "subject-authentication-email-and-password-forgot-password-form-default",
                    "subject-authentication-select-method-default",
                    "subject-authentication-email-and-password-registration-form-default",
                    "subject-authentication-email-and-password-reset-password-form-default",
                    "subject-overview-default",
                    "subject-list-default",
                    "subject-identity-settings-default",
                    "subject-authentication-logout-action-default",
                ])
                .build(),
            relation(
                M,
                "roles-to-permissions",
                ("roleId", "rbac.role"),
                ("permissionId", "rbac.permission"),
            )
            .build(),
            s("subjects-to-identities", ("identityId", "rbac.identity")).build(),
            s(
                "subjects-to-notification-module-topics",
                ("notificationModuleTopicId", "notification.topic"),
            )
            .follows_guest()
            .build(),
            s("subjects-to-roles", ("roleId", "rbac.role")).build(),
            s("subjects-to-sessions", ("sessionId", "rbac.session")).build(),
        ],
    }
}

/// The JWT key: configured, or generated once into the data folder (owner-only permissions).
fn jwt_secret(config: &stoa_api::config::Config) -> Result<Vec<u8>, String> {
    if let Some(s) = &config.jwt_secret {
        if s.len() < 32 {
            return Err("STOA_JWT_SECRET must be at least 32 bytes".into());
        }
        return Ok(s.as_bytes().to_vec());
    }
    let path = std::path::Path::new(&config.data_dir).join("jwt-secret");
    if let Ok(s) = std::fs::read_to_string(&path) {
        let s = s.trim().to_owned();
        if s.len() < 32 {
            return Err(format!(
                "{} holds a key shorter than 32 bytes",
                path.display()
            ));
        }
        return Ok(s.into_bytes());
    }
    let io = |e: std::io::Error| format!("writing {}: {e}", path.display());
    std::fs::create_dir_all(&config.data_dir).map_err(io)?;
    let key: String = (0..2)
        .map(|_| uuid::Uuid::new_v4().simple().to_string())
        .collect();
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    std::io::Write::write_all(&mut opts.open(&path).map_err(io)?, key.as_bytes()).map_err(io)?;
    tracing::info!(path = %path.display(), "generated a JWT key");
    Ok(key.into_bytes())
}

/// The account service for `ctx`'s configuration and store.
fn start(ctx: &stoa_api::module::Context) -> stoa_api::module::ModuleResult<Auth> {
    let config = &ctx.config;
    if let Some(k) = &config.secret_key
        && k.len() < 32
    {
        return Err("STOA_SECRET_KEY must be at least 32 characters".into());
    }
    let mailer = ctx.need::<stoa_notification::mail::Mailer>()?;
    let mut cfg = AuthConfig::new(jwt_secret(config)?, config.public_url());
    cfg.access_ttl = config.access_token_ttl.max(1);
    cfg.refresh_ttl = config.refresh_token_ttl.max(1);
    cfg.secret_key = config.secret_key.clone().filter(|k| !k.is_empty());
    cfg.telegram_bot_token = config.telegram_bot_token.clone().filter(|k| !k.is_empty());
    cfg.admin_2fa_required = config.admin_2fa == "required";
    cfg.rates = limits::RateConfig {
        ip_burst: config.auth_rate_burst.max(1),
        ip_window: std::time::Duration::from_secs(config.auth_rate_window.max(1)),
        account_per_hour: config.auth_account_rate.max(1),
        pair_failures: config.auth_failures.max(1),
        slow_after: config.auth_slow_after.max(1),
    };
    cfg.hash_concurrency = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let key = cfg.jwt_secret.clone();
    let public_url = cfg.public_url.clone();
    let mut auth = Auth::new(ctx.store.clone(), cfg, (*mailer).clone())
        .map_err(stoa_api::module::ModuleError::from)?;
    if let Some((issuer, client_id, client_secret, name)) = config.oidc() {
        let oidc = oidc_login::Oidc::new(
            oidc_login::OidcConfig {
                issuer,
                client_id,
                client_secret,
                name,
            },
            &public_url,
            &key,
            stoa_store::cluster::Shared::of(&ctx.store.db),
        )?;
        auth.oidc = Some(std::sync::Arc::new(oidc));
    }
    Ok(auth)
}

impl stoa_api::auth::AccountAdmin for Auth {
    fn create_admin<'a>(
        &'a self,
        email: &'a str,
        password: &'a str,
    ) -> stoa_api::module::BoxFuture<'a, stoa_kernel::Result<uuid::Uuid>> {
        Box::pin(Auth::create_admin(self, email, password))
    }
}

/// Drops the rate-limit buckets of idle callers every 10 minutes, while the service lives.
fn prune_limits(auth: &std::sync::Arc<Auth>) {
    if let Ok(rt) = tokio::runtime::Handle::try_current() {
        let pruner = std::sync::Arc::downgrade(auth);
        rt.spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(600));
            loop {
                tick.tick().await;
                match pruner.upgrade() {
                    Some(a) => a.limits.prune().await,
                    None => return,
                }
            }
        });
    }
}

/// The first run: with no admin yet, the one-time setup code goes to the log (once the tables
/// answer), for whoever opens /admin to make the first one.
fn announce_setup_code(auth: &std::sync::Arc<Auth>, admin_url: String) {
    if let Ok(rt) = tokio::runtime::Handle::try_current() {
        let first = std::sync::Arc::downgrade(auth);
        rt.spawn(async move {
            for _ in 0..60 {
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                let Some(auth) = first.upgrade() else { return };
                match auth.setup_code().await {
                    Ok(Some(code)) => {
                        tracing::warn!(
                            "no administrator yet: open {admin_url} and enter the setup code {code} to create the first one (or run `stoa admin create`)"
                        );
                        return;
                    }
                    Ok(None) => return,
                    Err(_) => continue,
                }
            }
        });
    }
}

/// Keeps the assembled route book for what a role may call (`access`).
async fn remember_routes(ctx: &stoa_api::module::Context) -> stoa_kernel::Result<()> {
    if let Ok(auth) = ctx.need::<Auth>() {
        let _ = auth.book.set(ctx.operations().to_vec());
    }
    Ok(())
}

/// The module: declarations, the account service, the account routes, the authorization layer
/// around every API route, and the default roles and permissions (derived from the route book).
pub fn module() -> stoa_api::module::ModuleDef {
    use std::sync::Arc;
    stoa_api::module::ModuleDef::new(declarations())
        // The kinds of this module's own mail templates.
        .variants(
            "notification.template",
            &[
                "rbac-identity-linked",
                "rbac-verify-email",
                "rbac-email-changed",
                "rbac-identity-removed",
                "rbac-oidc-linked",
            ],
        )
        .setup(|ctx| {
            let auth = Arc::new(start(ctx)?);
            prune_limits(&auth);
            announce_setup_code(&auth, format!("{}/admin", ctx.config.public_url()));
            ctx.provide(Arc::new(subjects::Subjects::new(ctx.store.clone())));
            ctx.provide::<dyn stoa_api::auth::AccountAdmin>(auth.clone());
            ctx.provide::<dyn stoa_api::auth::Identify>(auth.clone());
            ctx.provide::<dyn stoa_api::auth::Authorize>(auth.clone());
            ctx.provide(auth);
            Ok(())
        })
        .routes(|ctx| Ok(http::routes(ctx.need::<Auth>()?)))
        .layer(|ctx, router| {
            Ok(router.layer(axum::middleware::from_fn_with_state(
                ctx.need::<Auth>()?,
                gate::authorize,
            )))
        })
        .seed(|ctx| Box::pin(seed::seed(&ctx.store, ctx.operations())))
        // Not a seed: the route book, for what a role may call (`access`).
        .seed(|ctx| Box::pin(remember_routes(ctx)))
        // Not a seed: a look at every start whether bcrypt hashes are about (imported accounts).
        .seed(|ctx| {
            Box::pin(async move {
                match ctx.need::<Auth>() {
                    Ok(auth) => auth.notice_legacy_hashes().await,
                    Err(_) => Ok(()),
                }
            })
        })
        .seed(stoa_notification::mail::templates_seed(
            "rbac.templates.v1",
            service::templates,
        ))
        .seed(stoa_notification::mail::templates_seed(
            "rbac.email-verification.v1",
            verification::templates,
        ))
        .seed(stoa_notification::mail::templates_seed(
            "rbac.oidc.v1",
            service::oidc_templates,
        ))
}

#[cfg(test)]
mod tests {
    /// rbac is below ecommerce, social, billing and blog: it declares no link to their records
    /// (they declare those links themselves, under rbac's name: ADR 0008).
    #[test]
    fn rbac_declares_no_link_to_a_higher_module() {
        let below = ["rbac.", "notification.", "platform."];
        for e in super::declarations().entities {
            for f in &e.fields {
                if let Some(target) = f.target {
                    assert!(
                        below.iter().any(|m| target.starts_with(m)),
                        "{}.{} points at {target}, a module above rbac",
                        e.key(),
                        f.name
                    );
                }
            }
        }
    }
}
