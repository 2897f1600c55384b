//! Accounts and sessions: registration, sign-in (password or wallet), refresh-token rotation with
//! reuse detection, logout, password reset and change, identities, and the per-request check of
//! who is calling.
//!
//! `Auth` is one service split by concern, one file each under `service/`: `sessions` (the
//! per-request check, starting, refreshing and revoking sessions), `accounts` (registration and
//! sign-in), `reset` (password reset), `wallet` (Sign-In with Ethereum), `identities` (an
//! account's ways to sign in, and mail to its addresses) and `admin` (operator-made accounts).
//! This file holds the configuration, the shared types and the state they all use.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value, json};
use stoa_kernel::model::Entity;
use stoa_kernel::value::{Val, fields, format_timestamp, now, parse_timestamp};
use stoa_kernel::{Error, Result};
use stoa_notification::mail::{Email, Mailer};
use stoa_store::cluster::Shared;
use stoa_store::{Exec, Record, Store, repo};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::bodies::{self, AdminEmailIdentity, Change, IdentityChange, NewIdentity, Notify};
use crate::limits::{Limits, RateConfig};
use crate::password::{self, Hasher};
use crate::policy::Policy;
pub use crate::rows::{Identity, Provider};
use crate::siwe_login::{self, Nonces};
use crate::tokens::{self, Jwt};
pub use keys::{KEY_PREFIX, KeyAccess};

mod accounts;
mod admin;
mod adopt;
mod identities;
mod keys;
mod oidc;
mod reset;
mod sessions;
mod wallet;

pub const EMAIL: &str = "email_and_password";
pub const WALLET: &str = "ethereum_virtual_machine";
pub const TELEGRAM: &str = "telegram";
/// An address given at checkout: a mail target, not a way to sign in.
pub const ADDRESS: &str = "email";
pub use oidc::{OIDC, OIDC_LINKED_TEMPLATE, OidcOutcome, oidc_templates};
/// The mail telling an account that a wallet or Telegram was linked to it.
pub const LINKED_TEMPLATE: &str = "rbac-identity-linked";

/// The account mail templates (besides the reset mail), in English and Russian.
pub fn templates() -> Vec<Value> {
    vec![json!({
        "slug": "rbac-identity-linked",
        "adminTitle": "Wallet or Telegram linked (account)",
        "variant": LINKED_TEMPLATE,
        "title": "A sign-in method was linked",
        "subject": {"en": "A {{ kind }} was linked to your account", "ru": "К вашей учётной записи привязан {{ 'кошелёк' if kind == 'wallet' else 'Telegram' }}"},
        "body": {
            "en": "A {{ kind }} ({{ account }}) was linked to your account and can now be used with it.\n\nIf it was not you, remove it and change your password: {{ settingsUrl }}\n",
            "ru": "К вашей учётной записи привязан {{ 'кошелёк' if kind == 'wallet' else 'Telegram' }} ({{ account }}).\n\nЕсли это были не вы, отвяжите его и смените пароль: {{ settingsUrl }}\n"
        }
    })]
}
const RESET_TTL: Duration = Duration::from_secs(15 * 60);
/// How recent a sign-in must be to add or remove a way to sign in.
pub const RECENT_SIGN_IN: Duration = Duration::from_secs(15 * 60);

const RESET_ATTEMPTS: i64 = 5;
const SPENT_KEPT: usize = 50;

#[derive(Clone, Debug)]
pub struct AuthConfig {
    pub jwt_secret: Vec<u8>,
    /// Access-token lifetime in seconds (default 15 min).
    pub access_ttl: i64,
    /// Refresh-token lifetime in seconds, renewed on each rotation (default 30 days).
    pub refresh_ttl: i64,
    /// `X-RBAC-SECRET-KEY` value; `None` disables the header.
    pub secret_key: Option<String>,
    /// The site's public origin (`https://example.com`), for SIWE, reset links and CSRF checks.
    pub public_url: String,
    pub rates: RateConfig,
    pub hash_concurrency: usize,
    /// Longest a cached permission table is trusted when another instance may have changed it.
    pub policy_max_age: Duration,
    /// The Telegram bot whose Login Widget links accounts to Telegram (`None`: not offered).
    pub telegram_bot_token: Option<String>,
    /// Administrators must sign in with a second factor (`STOA_ADMIN_2FA=required`).
    pub admin_2fa_required: bool,
}

impl AuthConfig {
    pub fn new(jwt_secret: Vec<u8>, public_url: impl Into<String>) -> Self {
        Self {
            jwt_secret,
            access_ttl: 15 * 60,
            refresh_ttl: 30 * 24 * 3600,
            secret_key: None,
            public_url: public_url.into().trim_end_matches('/').to_owned(),
            rates: RateConfig::default(),
            hash_concurrency: 4,
            policy_max_age: Duration::from_secs(30),
            telegram_bot_token: None,
            admin_2fa_required: false,
        }
    }

    /// `host[:port]` of the public URL.
    pub fn domain(&self) -> &str {
        let rest = self
            .public_url
            .split_once("://")
            .map_or(self.public_url.as_str(), |(_, r)| r);
        rest.split('/').next().unwrap_or(rest)
    }

    pub fn https(&self) -> bool {
        self.public_url.starts_with("https://")
    }
}

/// Facts about the request a flow records or rate-limits on.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    pub ip: String,
    pub user_agent: Option<String>,
    pub language: String,
    /// The request stated its language (Accept-Language): only then is it remembered.
    pub language_stated: bool,
    /// The subject of the session the request already carries (a guest's, after a donation):
    /// a sign-in takes over what a guest had (see `adopt`).
    pub guest: Option<Uuid>,
}

/// A fresh token pair.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Tokens {
    pub jwt: String,
    pub refresh: String,
    #[serde(skip)]
    pub subject: Uuid,
    #[serde(skip)]
    pub session: Uuid,
}

pub(crate) struct Entities {
    pub(crate) identity: Arc<Entity>,
    pub(crate) subject: Arc<Entity>,
    pub(crate) role: Arc<Entity>,
    pub(crate) session: Arc<Entity>,
    pub(crate) s2i: Arc<Entity>,
    pub(crate) s2r: Arc<Entity>,
    pub(crate) key: Arc<Entity>,
    pub(crate) k2r: Arc<Entity>,
}

/// What a valid access token says about its caller.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub subject: Uuid,
    pub session: Uuid,
    /// The session was opened with a second factor.
    pub mfa: bool,
}

/// The outcome of a correct first factor: a session, or the second step to take.
#[derive(Clone, Debug)]
pub enum SignIn {
    Done(Tokens),
    /// The account has two-factor sign-in: send a code with this challenge.
    SecondFactor {
        challenge: String,
    },
}

/// Role ids per subject, valid for one version of subjects-to-roles.
type RolesCache = (u64, HashMap<Uuid, Arc<Vec<Uuid>>>);
/// (versions of api-keys-to-roles and subjects-to-roles, roles by key and account).
type KeyRolesCache = ((u64, u64), HashMap<(Uuid, Uuid), Arc<Vec<Uuid>>>);
/// Live sessions' owner and expiry, valid for one version of `rbac.session`.
type LiveSessions = (u64, HashMap<Uuid, (Uuid, OffsetDateTime)>);

pub struct Auth {
    pub store: Store,
    pub cfg: AuthConfig,
    pub policy: Policy,
    pub limits: Limits,
    pub nonces: Nonces,
    /// The OpenID Connect provider visitors may sign in with (`STOA_OIDC_*`), when configured.
    pub oidc: Option<Arc<crate::oidc_login::Oidc>>,
    pub(crate) jwt: Jwt,
    pub(crate) hasher: Hasher,
    pub(crate) mailer: Mailer,
    /// The addresses of accounts (shared with other modules).
    pub(crate) subjects: crate::subjects::Subjects,
    pub(crate) e: Entities,
    roles: RwLock<RolesCache>,
    /// API keys' roles (the key's that its account holds) for one version of both links.
    pub(crate) key_roles: RwLock<KeyRolesCache>,
    /// Live sessions (owner, expiry) for one version of `rbac.session`.
    live: RwLock<LiveSessions>,
    /// Held by writes the guard rails check ([`crate::rails`]), so they run one at a time.
    pub rails: tokio::sync::Mutex<()>,
    /// The first run's one-time code (while no account is an admin) and the lock that makes
    /// one first admin of two racing browsers.
    pub(crate) setup: (std::sync::Mutex<Option<String>>, tokio::sync::Mutex<()>),
    /// Every route of the assembled API (known once the routes are built: set at start).
    pub(crate) book: std::sync::OnceLock<Vec<stoa_api::routes::Operation>>,
}

pub(crate) fn idx(e: &Entity, name: &str) -> Result<usize> {
    e.field_index(name)
        .ok_or_else(|| Error::internal(format!("{} has no field {name}", e.key())))
}

pub use stoa_kernel::value::normalise_email;

fn wrong_credentials() -> Error {
    Error::Unauthorized("wrong email or password".into())
}

impl Auth {
    pub fn new(store: Store, cfg: AuthConfig, mailer: Mailer) -> Result<Self> {
        let e = Entities {
            identity: store.entity("rbac.identity")?,
            subject: store.entity("rbac.subject")?,
            role: store.entity("rbac.role")?,
            session: store.entity("rbac.session")?,
            s2i: store.entity("rbac.subjects-to-identities")?,
            s2r: store.entity("rbac.subjects-to-roles")?,
            key: store.entity("rbac.api-key")?,
            k2r: store.entity("rbac.api-keys-to-roles")?,
        };
        Ok(Self {
            subjects: crate::subjects::Subjects::new(store.clone()),
            jwt: Jwt::new(&cfg.jwt_secret)?,
            hasher: Hasher::new(cfg.hash_concurrency)?,
            policy: Policy::new(store.clone(), cfg.policy_max_age),
            limits: Limits::new(cfg.rates, Shared::of(&store.db)),
            nonces: Nonces::shared(Shared::of(&store.db)),
            oidc: None,
            roles: RwLock::new((u64::MAX, HashMap::new())),
            key_roles: RwLock::new(((u64::MAX, u64::MAX), HashMap::new())),
            live: RwLock::new((u64::MAX, HashMap::new())),
            rails: tokio::sync::Mutex::new(()),
            book: std::sync::OnceLock::new(),
            setup: (
                std::sync::Mutex::new(Some(admin::setup_code())),
                tokio::sync::Mutex::new(()),
            ),
            store,
            cfg,
            mailer,
            e,
        })
    }

    // ---- who is calling ------------------------------------------------------------------

    pub fn subject_entity(&self) -> &Entity {
        &self.e.subject
    }
}

/// An identity's unique login: its provider and its key (`email_and_password:a@b.c`).
pub fn login_key(provider: &str, key: &str) -> String {
    format!("{provider}:{key}")
}
