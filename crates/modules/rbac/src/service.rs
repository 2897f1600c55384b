//! Accounts and sessions: registration, sign-in (password or wallet), refresh-token rotation with
//! reuse detection, logout, password reset and change, identities, and the per-request check of
//! who is calling.

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

use crate::limits::{Limits, RateConfig};
use crate::password::{self, Hasher};
use crate::policy::Policy;
use crate::siwe_login::{self, Nonces};
use crate::tokens::{self, Jwt};

pub const EMAIL: &str = "email_and_password";
pub const WALLET: &str = "ethereum_virtual_machine";
pub const TELEGRAM: &str = "telegram";
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

/// Is this identity a way to sign in (a password or a wallet)? Checkout addresses and Telegram
/// (notifications only) are not.
fn signs_in(r: &Record) -> bool {
    matches!(r.text("provider"), Some(EMAIL | WALLET))
}
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
}

/// A fresh token pair.
#[derive(Clone, Debug, Serialize)]
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
/// Live sessions' owner and expiry, valid for one version of `rbac.session`.
type LiveSessions = (u64, HashMap<Uuid, (Uuid, OffsetDateTime)>);

pub struct Auth {
    pub store: Store,
    pub cfg: AuthConfig,
    pub policy: Policy,
    pub limits: Limits,
    pub nonces: Nonces,
    pub(crate) jwt: Jwt,
    pub(crate) hasher: Hasher,
    pub(crate) mailer: Mailer,
    /// The addresses of accounts (shared with other modules).
    pub(crate) subjects: crate::subjects::Subjects,
    pub(crate) e: Entities,
    roles: RwLock<RolesCache>,
    /// Live sessions (owner, expiry) for one version of `rbac.session`.
    live: RwLock<LiveSessions>,
    /// Held by writes the guard rails check ([`crate::rails`]), so they run one at a time.
    pub rails: tokio::sync::Mutex<()>,
}

pub(crate) fn idx(e: &Entity, name: &str) -> Result<usize> {
    e.field_index(name)
        .ok_or_else(|| Error::internal(format!("{} has no field {name}", e.key())))
}

pub(crate) fn ts(r: &Record, name: &str) -> Option<OffsetDateTime> {
    r.text(name).and_then(parse_timestamp)
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
        };
        Ok(Self {
            subjects: crate::subjects::Subjects::new(store.clone()),
            jwt: Jwt::new(&cfg.jwt_secret)?,
            hasher: Hasher::new(cfg.hash_concurrency)?,
            policy: Policy::new(store.clone(), cfg.policy_max_age),
            limits: Limits::new(cfg.rates, Shared::of(&store.db)),
            nonces: Nonces::shared(Shared::of(&store.db)),
            roles: RwLock::new((u64::MAX, HashMap::new())),
            live: RwLock::new((u64::MAX, HashMap::new())),
            rails: tokio::sync::Mutex::new(()),
            store,
            cfg,
            mailer,
            e,
        })
    }

    // ---- who is calling ------------------------------------------------------------------

    /// The subject and session of a valid access token whose session is live; `None` for a token
    /// that is not (401). A database that cannot answer is an error (503), not a signed-out
    /// caller: buyers are not logged out because the server is busy.
    pub async fn verify_access(&self, token: &str) -> Result<Option<Access>> {
        let Some(c) = self.jwt.verify(token) else {
            return Ok(None);
        };
        Ok(self.session_live(c.sid, c.sub).await?.then_some(Access {
            subject: c.sub,
            session: c.sid,
            mfa: c.mfa,
        }))
    }

    /// Is session `sid` of `subject` live (not revoked, not expired)? Live sessions are kept in
    /// memory until any session changes (every committed session write bumps its counter:
    /// a revocation applies to the next request), so a signed-in request costs no read.
    async fn session_live(&self, sid: Uuid, subject: Uuid) -> Result<bool> {
        let v = self.store.version("rbac.session");
        if let Ok(g) = self.live.read()
            && g.0 == v
            && let Some((owner, expires)) = g.1.get(&sid)
        {
            return Ok(*owner == subject && *expires > now());
        }
        let row = match self.store.get(&self.e.session, sid).await {
            Ok(r) => r,
            Err(Error::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        let expires = ts(&row, "expiresAt");
        let live = row.uuid("subjectId") == Some(subject)
            && row.text("revokedAt").is_none()
            && expires.is_some_and(|x| x > now());
        if live && let (Some(expires), Ok(mut g)) = (expires, self.live.write()) {
            if g.0 != v || g.1.len() >= 100_000 {
                *g = (v, HashMap::new());
            }
            g.1.insert(sid, (subject, expires));
        }
        Ok(live)
    }

    /// The caller's role ids (cached until subjects-to-roles changes).
    pub async fn roles_of(&self, subject: Uuid) -> Result<Arc<Vec<Uuid>>> {
        let v = self.store.version("rbac.subjects-to-roles");
        if let Ok(g) = self.roles.read()
            && g.0 == v
            && let Some(r) = g.1.get(&subject)
        {
            return Ok(r.clone());
        }
        let rows = self
            .store
            .find_by(&self.e.s2r, &[("subjectId", Val::Uuid(subject))], 1000)
            .await?;
        let roles = Arc::new(
            rows.iter()
                .filter_map(|r| r.uuid("roleId"))
                .collect::<Vec<_>>(),
        );
        if let Ok(mut g) = self.roles.write() {
            if g.0 != v || g.1.len() > 100_000 {
                *g = (v, HashMap::new());
            }
            g.1.insert(subject, roles.clone());
        }
        Ok(roles)
    }

    /// Constant-time check of the secret key; `None` when the feature is off.
    pub fn secret_key_ok(&self, presented: &str) -> Option<bool> {
        self.cfg
            .secret_key
            .as_deref()
            .filter(|k| !k.is_empty())
            .map(|k| tokens::same(k, presented))
    }

    // ---- sessions ------------------------------------------------------------------------

    pub(crate) async fn start_session(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        ctx: &Ctx,
        mfa: bool,
    ) -> Result<(Uuid, String)> {
        let expires = now() + Duration::from_secs(u64::try_from(self.cfg.refresh_ttl).unwrap_or(0));
        let ua: Option<String> = ctx
            .user_agent
            .as_ref()
            .map(|u| u.chars().take(500).collect());
        let row = self
            .store
            .create_in(
                exec,
                &self.e.session,
                &fields(json!({
                    "subjectId": subject,
                    "expiresAt": format_timestamp(expires),
                    "lastUsedAt": format_timestamp(now()),
                    "userAgent": ua,
                    "ip": ctx.ip.chars().take(64).collect::<String>(),
                })),
            )
            .await?;
        let sid = Record::must_id(&row)?;
        let (token, hash) = tokens::new_refresh(sid);
        repo::update_if(
            exec,
            &self.e.session,
            sid,
            &[
                (idx(&self.e.session, "tokenHash")?, Val::Text(hash)),
                (
                    idx(&self.e.session, "options")?,
                    Val::Json(json!({"secondFactor": mfa})),
                ),
            ],
            &[],
        )
        .await?;
        Ok((sid, token))
    }

    pub(crate) fn tokens(
        &self,
        subject: Uuid,
        session: Uuid,
        refresh: String,
        mfa: bool,
    ) -> Result<Tokens> {
        let (jwt, _) = self.jwt.issue(subject, session, self.cfg.access_ttl, mfa)?;
        Ok(Tokens {
            jwt,
            refresh,
            subject,
            session,
        })
    }

    /// A new session for `subject` in its own transaction.
    pub(crate) async fn sign_in(&self, subject: Uuid, ctx: &Ctx, mfa: bool) -> Result<Tokens> {
        self.sign_in_checked(subject, ctx, mfa, None).await
    }

    /// [`Auth::sign_in`], opening the session only if the credential just checked still holds
    /// inside the transaction (`identity`, and the password hash it was checked against): a reset
    /// or an unlink that lands while a slow hash is verified leaves that sign-in without a session.
    async fn sign_in_checked(
        &self,
        subject: Uuid,
        ctx: &Ctx,
        mfa: bool,
        proof: Option<(Uuid, Option<&str>)>,
    ) -> Result<Tokens> {
        let mut tx = self.store.begin().await?;
        if let Some((identity, hash)) = proof {
            let now_held =
                repo::read_text(&mut tx.exec(), &self.e.identity, identity, &["password"]).await?;
            let still = match (&now_held, hash) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(v), Some(h)) => v.first().cloned().flatten().as_deref() == Some(h),
            };
            if !still {
                return Err(wrong_credentials());
            }
        }
        let (sid, refresh) = self
            .start_session(&mut tx.exec(), subject, ctx, mfa)
            .await?;
        tx.commit().await?;
        self.tokens(subject, sid, refresh, mfa)
    }

    /// After a correct first factor: a session, or — when the account has two-factor sign-in —
    /// the challenge its second step presents.
    async fn first_factor_passed(
        &self,
        subject: Uuid,
        ctx: &Ctx,
        proof: (Uuid, Option<&str>),
    ) -> Result<SignIn> {
        if self.second_factor_enabled(subject).await? {
            return Ok(SignIn::SecondFactor {
                challenge: self.jwt.challenge(subject)?,
            });
        }
        Ok(SignIn::Done(
            self.sign_in_checked(subject, ctx, false, Some(proof))
                .await?,
        ))
    }

    /// Rotates a refresh token. A spent token revokes its whole session (reuse detection).
    pub async fn refresh(&self, token: &str) -> Result<Tokens> {
        let dead =
            || Error::Unauthorized("the refresh token is invalid or expired; sign in again".into());
        let sid = tokens::refresh_session(token).ok_or_else(dead)?;
        let s = &self.e.session;
        let row = match self.store.get(s, sid).await {
            Ok(r) => r,
            Err(Error::NotFound { .. }) => return Err(dead()),
            Err(e) => return Err(e),
        };
        let subject = row.uuid("subjectId").ok_or_else(dead)?;
        if row.text("revokedAt").is_some() || ts(&row, "expiresAt").is_none_or(|x| x <= now()) {
            return Err(dead());
        }
        let secrets = {
            let mut c = self.store.db.read().await?;
            repo::read_text(&mut c.exec(), s, sid, &["tokenHash", "spentHashes"]).await?
        }
        .ok_or_else(dead)?;
        let current = secrets.first().cloned().flatten().unwrap_or_default();
        let spent = secrets.get(1).cloned().flatten().unwrap_or_default();
        let presented = tokens::sha256_hex(token);
        if !tokens::same(&current, &presented) {
            if spent.split(' ').any(|h| tokens::same(h, &presented)) {
                tracing::warn!(session = %sid, subject = %subject, "refresh token reused: session revoked");
                self.revoke(sid).await?;
            }
            return Err(dead());
        }
        let (new_token, new_hash) = tokens::new_refresh(sid);
        let mut kept: Vec<&str> = spent.split(' ').filter(|h| !h.is_empty()).collect();
        kept.push(&presented);
        let start = kept.len().saturating_sub(SPENT_KEPT);
        let kept = kept[start..].join(" ");
        let expires = now() + Duration::from_secs(u64::try_from(self.cfg.refresh_ttl).unwrap_or(0));
        let mut tx = self.store.begin().await?;
        let rotated = repo::update_if(
            &mut tx.exec(),
            s,
            sid,
            &[
                (idx(s, "tokenHash")?, Val::Text(new_hash)),
                (idx(s, "spentHashes")?, Val::Text(kept)),
                (idx(s, "lastUsedAt")?, Val::Timestamp(now())),
                (idx(s, "expiresAt")?, Val::Timestamp(expires)),
            ],
            &[
                (idx(s, "tokenHash")?, Val::Text(presented)),
                (idx(s, "revokedAt")?, Val::Null),
            ],
        )
        .await?;
        tx.commit().await?;
        if rotated.is_none() {
            // Another request spent this token first: treat as reuse.
            tracing::warn!(session = %sid, "refresh token used twice at once: session revoked");
            self.revoke(sid).await?;
            return Err(dead());
        }
        let mfa = row
            .json("options")
            .and_then(|o| o.get("secondFactor").and_then(Value::as_bool))
            .unwrap_or(false);
        self.tokens(subject, sid, new_token, mfa)
    }

    pub async fn revoke(&self, sid: Uuid) -> Result<()> {
        let s = &self.e.session;
        let mut tx = self.store.begin().await?;
        repo::update_where(
            &mut tx.exec(),
            s,
            &[(idx(s, "revokedAt")?, Val::Timestamp(now()))],
            &[(0, Val::Uuid(sid)), (idx(s, "revokedAt")?, Val::Null)],
            None,
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Revokes every live session of `subject` except `keep`.
    pub async fn revoke_all(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        keep: Option<Uuid>,
    ) -> Result<()> {
        let s = &self.e.session;
        repo::update_where(
            exec,
            s,
            &[(idx(s, "revokedAt")?, Val::Timestamp(now()))],
            &[
                (idx(s, "subjectId")?, Val::Uuid(subject)),
                (idx(s, "revokedAt")?, Val::Null),
            ],
            keep,
        )
        .await?;
        Ok(())
    }

    // ---- accounts ------------------------------------------------------------------------

    pub(crate) async fn identity_by_login(&self, login: &str) -> Result<Option<Record>> {
        Ok(self
            .store
            .find_by(
                &self.e.identity,
                &[("login", Val::Text(login.to_owned()))],
                1,
            )
            .await?
            .into_iter()
            .next())
    }

    pub(crate) async fn subject_of(&self, identity: Uuid) -> Result<Option<Uuid>> {
        Ok(self
            .store
            .find_by(&self.e.s2i, &[("identityId", Val::Uuid(identity))], 1)
            .await?
            .first()
            .and_then(|r| r.uuid("subjectId")))
    }

    pub(crate) async fn secret_of(&self, identity: Uuid, field: &str) -> Result<Option<String>> {
        let mut c = self.store.db.read().await?;
        Ok(
            repo::read_text(&mut c.exec(), &self.e.identity, identity, &[field])
                .await?
                .and_then(|v| v.into_iter().next().flatten()),
        )
    }

    /// The roles a new account gets: those open to registration, narrowed to `requested` slugs.
    async fn registration_roles(&self, requested: &[String]) -> Result<Vec<Uuid>> {
        let open = self
            .store
            .find_by(
                &self.e.role,
                &[("availableOnRegistration", Val::Bool(true))],
                1000,
            )
            .await?;
        if requested.is_empty() {
            return open.iter().map(Record::must_id).collect();
        }
        let mut out = Vec::new();
        for slug in requested {
            let r = open
                .iter()
                .find(|r| r.text("slug") == Some(slug.as_str()))
                .ok_or_else(|| {
                    Error::Forbidden(format!(
                        "the role '{slug}' cannot be chosen at registration"
                    ))
                })?;
            out.push(Record::must_id(r)?);
        }
        Ok(out)
    }

    async fn create_identity(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        provider: &str,
        key: &str,
        hash: Option<String>,
        verified: bool,
    ) -> Result<Record> {
        let mut input = fields(json!({"provider": provider, "login": format!("{provider}:{key}")}));
        if provider == EMAIL {
            input.insert("email".into(), json!(key));
        } else {
            input.insert("account".into(), json!(key));
        }
        let row = self
            .store
            .create_in(exec, &self.e.identity, &input)
            .await
            .map_err(|e| match e {
                Error::Conflict { .. } if provider == EMAIL => {
                    Error::conflict_field("email", "is already registered")
                }
                Error::Conflict { .. } => {
                    Error::conflict_field("address", "is already linked to an account")
                }
                other => other,
            })?;
        let id = Record::must_id(&row)?;
        let mut set = Vec::new();
        if let Some(h) = hash {
            set.push(("password", Val::Text(h)));
        }
        if verified {
            set.push(("verifiedAt", Val::Timestamp(now())));
        }
        let row = if set.is_empty() {
            row
        } else {
            repo::set_if(exec, &self.e.identity, id, &set, &[])
                .await?
                .ok_or_else(|| Error::internal("a new identity vanished"))?
        };
        self.store
            .link_in(
                exec,
                &self.e.s2i,
                ("subjectId", subject),
                ("identityId", id),
            )
            .await?;
        Ok(row)
    }

    /// A new subject with an identity (`(provider, key, password hash, proved)`; none for an
    /// anonymous subject) and the given roles, signed in.
    async fn new_account(
        &self,
        identity: Option<(&str, &str, Option<String>, bool)>,
        roles: &[Uuid],
        ctx: &Ctx,
    ) -> Result<Tokens> {
        let mut tx = self.store.begin().await?;
        let (subject, sid, refresh) = {
            let mut exec = tx.exec();
            let subject = Record::must_id(
                &self
                    .store
                    .create_in(&mut exec, &self.e.subject, &Map::new())
                    .await?,
            )?;
            if let Some((provider, key, hash, proved)) = identity {
                self.create_identity(&mut exec, subject, provider, key, hash, proved)
                    .await?;
            }
            for r in roles {
                self.store
                    .link_in(
                        &mut exec,
                        &self.e.s2r,
                        ("subjectId", subject),
                        ("roleId", *r),
                    )
                    .await?;
            }
            let (sid, refresh) = self.start_session(&mut exec, subject, ctx, false).await?;
            (subject, sid, refresh)
        };
        tx.commit().await?;
        self.tokens(subject, sid, refresh, false)
    }

    pub async fn register(
        &self,
        login: &str,
        password: &str,
        roles: &[String],
        ctx: &Ctx,
    ) -> Result<Tokens> {
        let email = normalise_email("login", login)?;
        self.limits.account(&format!("register:{email}")).await?;
        password::check_new("password", password)?;
        let roles = self.registration_roles(roles).await?;
        if self
            .identity_by_login(&format!("{EMAIL}:{email}"))
            .await?
            .is_some()
        {
            return Err(Error::conflict_field(
                "login",
                "is already registered; sign in or reset the password",
            ));
        }
        let hash = self.hasher.hash(password).await?;
        let t = self
            .new_account(Some((EMAIL, &email, Some(hash), false)), &roles, ctx)
            .await
            .map_err(|e| match e {
                Error::Conflict { .. } => Error::conflict_field(
                    "login",
                    "is already registered; sign in or reset the password",
                ),
                other => other,
            })?;
        tracing::info!(subject = %t.subject, event = "registration", "account registered");
        // The address is unconfirmed until the code mailed now comes back (a mail that cannot be
        // queued is logged: the account asks for another from its settings).
        match self.identity_by_login(&format!("{EMAIL}:{email}")).await {
            Ok(Some(row)) => {
                if let Err(e) = self.send_verification(&row, &email, false, ctx).await {
                    tracing::error!(subject = %t.subject, error = %e, "the confirmation mail could not be queued");
                }
            }
            Ok(None) => {}
            Err(e) => {
                tracing::error!(subject = %t.subject, error = %e, "the confirmation mail could not be queued")
            }
        }
        Ok(t)
    }

    pub async fn login(&self, login: &str, password: &str, ctx: &Ctx) -> Result<SignIn> {
        password::check_len("password", password)?;
        let email = login.trim().to_lowercase();
        if email.is_empty() || email.len() > 320 {
            return Err(Error::invalid_field("login", "must be an email address"));
        }
        let account = format!("login:{email}");
        self.limits.before_sign_in(&ctx.ip, &account).await?;
        let identity = self.identity_by_login(&format!("{EMAIL}:{email}")).await?;
        let stored = match &identity {
            Some(i) => self.secret_of(Record::must_id(i)?, "password").await?,
            None => None,
        };
        let ok = self.hasher.verify(password, stored.clone()).await?;
        let subject = match (&identity, ok) {
            (Some(i), true) => self
                .subject_of(Record::must_id(i)?)
                .await?
                .map(|s| (s, Record::must_id(i))),
            _ => None,
        };
        let Some((subject, identity)) = subject else {
            self.limits.failed(&ctx.ip, &account).await;
            tracing::info!(event = "login_failed", "sign-in refused");
            return Err(wrong_credentials());
        };
        self.limits.succeeded(&ctx.ip, &account).await;
        let t = self
            .first_factor_passed(subject, ctx, (identity?, stored.as_deref()))
            .await?;
        tracing::info!(subject = %subject, event = "login", second_step = matches!(t, SignIn::SecondFactor { .. }), "password accepted");
        Ok(t)
    }

    /// A subject with no identity (a guest cart, for example), signed in.
    pub async fn anonymous(&self, ctx: &Ctx) -> Result<Tokens> {
        self.limits.ip(&ctx.ip).await?;
        let guest = self
            .store
            .find_by(
                &self.e.role,
                &[("slug", Val::Text(crate::seed::GUEST.into()))],
                1,
            )
            .await?;
        let roles: Vec<Uuid> = guest.iter().filter_map(|r| r.id()).collect();
        self.new_account(None, &roles, ctx).await
    }

    /// Always answers the same; the mail goes out in the background when the account exists.
    pub async fn forgot_password(self: &Arc<Self>, email: &str, ctx: &Ctx) -> Result<()> {
        let email = normalise_email("email", email)?;
        self.limits.account(&format!("forgot:{email}")).await?;
        let me = self.clone();
        let ctx = ctx.clone();
        tokio::spawn(async move {
            if let Err(e) = me.send_reset(&email, &ctx).await {
                tracing::warn!(error = %e, "password reset mail not queued");
            }
        });
        Ok(())
    }

    async fn send_reset(&self, email: &str, ctx: &Ctx) -> Result<()> {
        let Some(identity) = self.identity_by_login(&format!("{EMAIL}:{email}")).await? else {
            return Ok(());
        };
        let id = Record::must_id(&identity)?;
        let secret = tokens::random_token();
        let code = format!("{}.{secret}", id.simple());
        let i = &self.e.identity;
        let mut tx = self.store.begin().await?;
        repo::update_if(
            &mut tx.exec(),
            i,
            id,
            &[
                (idx(i, "code")?, Val::Text(tokens::sha256_hex(&code))),
                (idx(i, "resetExpiresAt")?, Val::Timestamp(now() + RESET_TTL)),
                (idx(i, "resetAttempts")?, Val::Int(0)),
            ],
            &[],
        )
        .await?;
        tx.commit().await?;
        let url = format!(
            "{}/rbac/subject/authentication/email-and-password/reset-password?code={code}",
            self.cfg.public_url
        );
        self.mailer
            .queue(Email {
                topic: "security",
                template_variant: "reset-password",
                to: email,
                language: &ctx.language,
                data: json!({"rbac": {"identity": {"id": id, "email": email}}}),
                secret: json!({"resetUrl": url}),
                attachments: Vec::new(),
                ..Default::default()
            })
            .await?;
        Ok(())
    }

    /// Sets a new password with a mailed reset code and ends every session. The code proves the
    /// address: an address never confirmed before is confirmed now, and whatever else was added
    /// to the account while it was unconfirmed — other sign-in methods, a second factor — is
    /// removed (someone may have registered the owner's address to wait for this reset). The
    /// answer lists what was removed.
    pub async fn reset_password(
        &self,
        code: &str,
        password: &str,
        confirmation: &str,
    ) -> Result<Value> {
        password::check_len("password", password)?;
        if password != confirmation {
            return Err(Error::invalid_field(
                "passwordConfirmation",
                "does not match the password",
            ));
        }
        password::check_new("password", password)?;
        let bad = || {
            Error::bad_field(
                "code",
                "the reset code is invalid, used or expired; ask for a new one",
            )
        };
        let (id, _) = code.split_once('.').ok_or_else(bad)?;
        let id = Uuid::try_parse(id).map_err(|_| bad())?;
        self.limits.account(&format!("reset:{id}")).await?;
        let i = &self.e.identity;
        let row = match self.store.get(i, id).await {
            Ok(r) => r,
            Err(Error::NotFound { .. }) => return Err(bad()),
            Err(e) => return Err(e),
        };
        let stored = self.secret_of(id, "code").await?.ok_or_else(bad)?;
        let attempts = row.int("resetAttempts").unwrap_or(0);
        if attempts >= RESET_ATTEMPTS || ts(&row, "resetExpiresAt").is_none_or(|x| x <= now()) {
            return Err(bad());
        }
        if !tokens::same(&stored, &tokens::sha256_hex(code)) {
            let mut tx = self.store.begin().await?;
            repo::update_if(
                &mut tx.exec(),
                i,
                id,
                &[(idx(i, "resetAttempts")?, Val::Int(attempts + 1))],
                &[],
            )
            .await?;
            tx.commit().await?;
            return Err(bad());
        }
        let hash = self.hasher.hash(password).await?;
        let subject = self.subject_of(id).await?.ok_or_else(bad)?;
        let mut tx = self.store.begin().await?;
        let cleared = {
            let mut exec = tx.exec();
            let done = repo::update_if(
                &mut exec,
                i,
                id,
                &[
                    (idx(i, "password")?, Val::Text(hash)),
                    (idx(i, "code")?, Val::Null),
                    (idx(i, "resetExpiresAt")?, Val::Null),
                    (idx(i, "resetAttempts")?, Val::Int(0)),
                ],
                &[(idx(i, "code")?, Val::Text(stored))],
            )
            .await?;
            let Some(done) = done else {
                return Err(bad());
            };
            let cleared = self.address_proved(&mut exec, subject, &done).await?;
            self.revoke_all(&mut exec, subject, None).await?;
            cleared
        };
        tx.commit().await?;
        tracing::info!(subject = %subject, event = "password_reset", removed = cleared.removed.len(), second_factor_removed = cleared.second_factor, "password reset; every session revoked");
        Ok(
            json!({"ok": true, "removedIdentities": cleared.removed, "secondFactorRemoved": cleared.second_factor}),
        )
    }

    // ---- wallet --------------------------------------------------------------------------

    pub async fn wallet_nonce(&self, ctx: &Ctx) -> Result<Value> {
        self.limits.ip(&ctx.ip).await?;
        let nonce = self.nonces.issue().await?;
        let issued = now();
        Ok(json!({
            "nonce": nonce,
            "domain": self.cfg.domain(),
            "uri": self.cfg.public_url,
            "chainIds": siwe_login::CHAINS,
            "version": "1",
            "issuedAt": format_timestamp(issued),
            "expiresAt": format_timestamp(issued + siwe_login::NONCE_TTL),
        }))
    }

    async fn verify_wallet(&self, message: &str, signature: &str, address: &str) -> Result<String> {
        siwe_login::verify(
            &self.nonces,
            self.cfg.domain(),
            &self.cfg.public_url,
            message,
            signature,
            address,
        )
        .await
    }

    /// Signs in with a wallet, creating the account on first use.
    pub async fn wallet_login(
        &self,
        message: &str,
        signature: &str,
        address: &str,
        ctx: &Ctx,
    ) -> Result<SignIn> {
        let account = format!("wallet:{}", address.trim().to_lowercase());
        self.limits.before_sign_in(&ctx.ip, &account).await?;
        let addr = match self.verify_wallet(message, signature, address).await {
            Ok(a) => a,
            Err(e) => {
                self.limits.failed(&ctx.ip, &account).await;
                return Err(e);
            }
        };
        self.limits.succeeded(&ctx.ip, &account).await;
        if let Some(i) = self.identity_by_login(&format!("{WALLET}:{addr}")).await?
            && let Some(subject) = self.subject_of(Record::must_id(&i)?).await?
        {
            tracing::info!(subject = %subject, event = "login", provider = WALLET, "wallet accepted");
            return self
                .first_factor_passed(subject, ctx, (Record::must_id(&i)?, None))
                .await;
        }
        let roles = self.registration_roles(&[]).await?;
        let t = self
            .new_account(Some((WALLET, &addr, None, true)), &roles, ctx)
            .await?;
        tracing::info!(subject = %t.subject, event = "registration", provider = WALLET, "account registered");
        Ok(SignIn::Done(t))
    }

    // ---- identities ----------------------------------------------------------------------

    /// The identities linked to `subject`.
    pub async fn identities(&self, subject: Uuid) -> Result<Vec<Record>> {
        let links = self
            .store
            .find_by(&self.e.s2i, &[("subjectId", Val::Uuid(subject))], 1000)
            .await?;
        let mut out = Vec::with_capacity(links.len());
        for l in links {
            if let Some(id) = l.uuid("identityId") {
                match self.store.get(&self.e.identity, id).await {
                    Ok(r) => out.push(r),
                    Err(Error::NotFound { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(out)
    }

    pub(crate) async fn owned_identity(&self, subject: Uuid, identity: Uuid) -> Result<Record> {
        self.identities(subject)
            .await?
            .into_iter()
            .find(|r| r.id() == Some(identity))
            .ok_or_else(|| {
                Error::not_found(format!(
                    "rbac.identity {identity} not found for this subject"
                ))
            })
    }

    pub(crate) async fn check_password(
        &self,
        identity: Uuid,
        field: &str,
        password: &str,
    ) -> Result<()> {
        password::check_len(field, password)?;
        self.limits.account(&format!("identity:{identity}")).await?;
        let stored = self.secret_of(identity, "password").await?;
        if self.hasher.verify(password, stored).await? {
            Ok(())
        } else {
            Err(Error::invalid_field(field, "is not the current password"))
        }
    }

    /// Adds an email-and-password identity (`{email, password}`) or links a wallet
    /// (`{message, signature, address}`).
    /// `own_session`: the caller's session when it changes its own account (an admin acting
    /// for another account passes `None`).
    pub async fn add_identity(
        &self,
        subject: Uuid,
        body: &Map<String, Value>,
        ctx: &Ctx,
        own_session: Option<Uuid>,
    ) -> Result<Record> {
        self.limits.ip(&ctx.ip).await?;
        self.limits
            .account(&format!("identity-change:{subject}"))
            .await?;
        let provider = str_field(body, "provider")?.replace('-', "_");
        let mut tx;
        let row = match provider.as_str() {
            EMAIL => {
                let email = normalise_email("email", str_field(body, "email")?)?;
                let pw = str_field(body, "password")?;
                password::check_new("password", pw)?;
                let current = self.identities(subject).await?;
                // A password sign-in added next to another sign-in method would outlive a stolen
                // session: it takes a recent sign-in.
                if current.iter().any(signs_in) {
                    self.require_recent_sign_in(own_session).await?;
                }
                if current.iter().any(|r| r.text("provider") == Some(EMAIL)) {
                    return Err(Error::Conflict {
                        message:
                            "this account already has an email identity; change its email instead"
                                .into(),
                        fields: Default::default(),
                    });
                }
                let hash = self.hasher.hash(pw).await?;
                tx = self.store.begin().await?;
                self.create_identity(&mut tx.exec(), subject, EMAIL, &email, Some(hash), false)
                    .await?
            }
            WALLET => {
                self.require_confirmed_email(subject).await?;
                if self.identities(subject).await?.iter().any(signs_in) {
                    self.require_recent_sign_in(own_session).await?;
                }
                let addr = self
                    .verify_wallet(
                        str_field(body, "message")?,
                        str_field(body, "signature")?,
                        str_field(body, "address")?,
                    )
                    .await?;
                tx = self.store.begin().await?;
                self.create_identity(&mut tx.exec(), subject, WALLET, &addr, None, true)
                    .await?
            }
            TELEGRAM => {
                self.require_confirmed_email(subject).await?;
                let Some(token) = &self.cfg.telegram_bot_token else {
                    return Err(Error::invalid_field(
                        "provider",
                        "this site has no Telegram bot to link accounts with",
                    ));
                };
                let id = crate::telegram_login::verify(body, token, now().unix_timestamp())?;
                tx = self.store.begin().await?;
                self.create_identity(&mut tx.exec(), subject, TELEGRAM, &id, None, true)
                    .await?
            }
            _ => {
                return Err(Error::invalid_field(
                    "provider",
                    "must be email_and_password, ethereum_virtual_machine or telegram",
                ));
            }
        };
        tx.commit().await?;
        if provider == EMAIL {
            if let Some(email) = row.text("email") {
                self.send_verification(&row, email, false, ctx).await?;
            }
        } else {
            self.tell_linked(subject, &provider, &row, ctx).await;
        }
        Ok(row)
    }

    /// Mails the account's addresses that a wallet or Telegram was linked to it (so a link the
    /// owner did not make is noticed). A mail that cannot be written is logged.
    async fn tell_linked(&self, subject: Uuid, provider: &str, identity: &Record, ctx: &Ctx) {
        let what = if provider == WALLET {
            "wallet"
        } else {
            "telegram"
        };
        let emails = match self.subjects.emails(subject).await {
            Ok(e) => e,
            Err(e) => {
                tracing::error!(%subject, error = %e, "the link notice could not be written");
                return;
            }
        };
        for to in emails {
            let queued = self
                .mailer
                .queue(Email {
                    topic: "security",
                    template_variant: LINKED_TEMPLATE,
                    to: &to,
                    language: &ctx.language,
                    data: json!({"kind": what, "account": identity.text("account"), "settingsUrl": format!("{}/rbac/subjects/settings", self.cfg.public_url)}),
                    ..Default::default()
                })
                .await;
            if let Err(e) = queued {
                tracing::error!(%subject, error = %e, "the link notice could not be written");
            }
        }
    }

    /// Queues a notification to `subject`'s addresses (an admin's `notify`): one per email
    /// identity, or one per linked Telegram.
    pub async fn notify(&self, subject: Uuid, body: &Map<String, Value>) -> Result<Value> {
        let n = body
            .get("notification")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::invalid_field("notification", "must be an object"))?;
        let pick = |path: [&str; 2]| -> Result<String> {
            n.get(path[0])
                .and_then(|o| o.get(path[1]))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| {
                    Error::invalid_field(
                        &format!("notification.{}.{}", path[0], path[1]),
                        "is required",
                    )
                })
        };
        let topic = pick(["topic", "slug"])?;
        let template = pick(["template", "variant"])?;
        let inner = n
            .get("notification")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let channel = match inner
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("email")
        {
            "email" => stoa_notification::mail::Channel::Email,
            "telegram" => stoa_notification::mail::Channel::Telegram,
            _ => {
                return Err(Error::invalid_field(
                    "notification.notification.method",
                    "must be email or telegram",
                ));
            }
        };
        // `data` may come as a JSON string (as the original sends it) or as an object.
        let data = match inner.get("data") {
            Some(Value::String(s)) => serde_json::from_str(s).map_err(|_| {
                Error::invalid_field("notification.notification.data", "is not JSON")
            })?,
            Some(v @ Value::Object(_)) => v.clone(),
            None | Some(Value::Null) => json!({}),
            Some(_) => {
                return Err(Error::invalid_field(
                    "notification.notification.data",
                    "must be an object",
                ));
            }
        };
        let send_after = match inner.get("sendAfter").and_then(Value::as_str) {
            Some(t) => Some(parse_timestamp(t).ok_or_else(|| {
                Error::invalid_field(
                    "notification.notification.sendAfter",
                    "must be a time (RFC 3339)",
                )
            })?),
            None => None,
        };
        self.mailer
            .check_setup(
                &topic,
                &template,
                ["notification.topic.slug", "notification.template.variant"],
            )
            .await?;
        let targets = match channel {
            stoa_notification::mail::Channel::Email => self.subjects.emails(subject).await?,
            stoa_notification::mail::Channel::Telegram => {
                self.subjects.telegram_chats(&[subject]).await?
            }
        };
        if targets.is_empty() {
            return Err(Error::invalid_field(
                "notification.notification.method",
                format!("the account has no {} to send to", channel.as_str()),
            ));
        }
        let language = body
            .get("language")
            .and_then(Value::as_str)
            .unwrap_or("en")
            .to_owned();
        let mut ids = Vec::new();
        for to in &targets {
            ids.push(
                self.mailer
                    .queue(Email {
                        topic: &topic,
                        template_variant: &template,
                        to,
                        language: &language,
                        data: data.clone(),
                        channel,
                        send_after,
                        ..Default::default()
                    })
                    .await?,
            );
        }
        Ok(json!({"queued": ids.len(), "notifications": ids}))
    }

    /// `{password, newPassword}` changes the password (other sessions are revoked);
    /// `{email, password}` asks to change the email: the new address gets a code, and the change
    /// happens when it comes back ([`Auth::verify_identity`]).
    pub async fn update_identity(
        &self,
        subject: Uuid,
        identity: Uuid,
        keep_session: Option<Uuid>,
        body: &Map<String, Value>,
        ctx: &Ctx,
    ) -> Result<Record> {
        let row = self.owned_identity(subject, identity).await?;
        if row.text("provider") != Some(EMAIL) {
            return Err(Error::invalid_field(
                "provider",
                "only email-and-password identities can be changed",
            ));
        }
        let i = &self.e.identity;
        if let Some(new) = body.get("newPassword") {
            let new = new
                .as_str()
                .ok_or_else(|| Error::invalid_field("newPassword", "must be a string"))?;
            password::check_len("newPassword", new)?;
            self.check_password(identity, "password", str_field(body, "password")?)
                .await?;
            password::check_new("newPassword", new)?;
            let hash = self.hasher.hash(new).await?;
            let mut tx = self.store.begin().await?;
            let out = {
                let mut exec = tx.exec();
                let out = repo::update_if(
                    &mut exec,
                    i,
                    identity,
                    &[(idx(i, "password")?, Val::Text(hash))],
                    &[],
                )
                .await?
                .ok_or_else(|| Error::not_found("identity not found"))?;
                self.revoke_all(&mut exec, subject, keep_session).await?;
                if let Some(who) = stoa_store::audit::current() {
                    stoa_store::audit::event_in(
                        &mut exec,
                        &who,
                        "rbac.identity",
                        Some(identity),
                        "password changed; other sessions signed out",
                        Map::new(),
                        &["password"],
                    )
                    .await?;
                }
                out
            };
            tx.commit().await?;
            tracing::info!(subject = %subject, event = "password_changed", "password changed; other sessions revoked");
            return Ok(out);
        }
        if let Some(email) = body.get("email") {
            let email = normalise_email("email", email.as_str().unwrap_or_default())?;
            self.check_password(identity, "password", str_field(body, "password")?)
                .await?;
            return self.request_email_change(&row, &email, ctx).await;
        }
        Err(Error::invalid_field(
            "body",
            "send {password, newPassword} to change the password or {email, password} to change the email",
        ))
    }

    /// Deletes an identity; the last way to sign in cannot go. Removing a sign-in method takes a
    /// recent sign-in (`own_session`, as for [`Auth::add_identity`]), and the account's addresses
    /// (the removed one too) are told.
    pub async fn delete_identity(
        &self,
        subject: Uuid,
        identity: Uuid,
        own_session: Option<Uuid>,
        ctx: &Ctx,
    ) -> Result<Record> {
        self.limits
            .account(&format!("identity-change:{subject}"))
            .await?;
        let all = self.identities(subject).await?;
        let row = all
            .iter()
            .find(|r| r.id() == Some(identity))
            .cloned()
            .ok_or_else(|| {
                Error::not_found(format!(
                    "rbac.identity {identity} not found for this subject"
                ))
            })?;
        if signs_in(&row) {
            if !all.iter().any(|r| r.id() != Some(identity) && signs_in(r)) {
                return Err(Error::Conflict {
                    message:
                        "this is the account's last way to sign in; add another before deleting it"
                            .into(),
                    fields: Default::default(),
                });
            }
            self.require_recent_sign_in(own_session).await?;
        }
        self.store.delete(&self.e.identity, identity).await?;
        if signs_in(&row) {
            let mut to = self.subjects.emails(subject).await.unwrap_or_default();
            if let Some(e) = row.text("email")
                && !to.iter().any(|x| x == e)
            {
                to.push(e.to_owned());
            }
            let what = row
                .text("email")
                .or(row.text("account"))
                .unwrap_or_default();
            for address in to {
                let queued = self
                    .mailer
                    .queue(Email {
                        topic: "security",
                        template_variant: crate::verification::REMOVED_TEMPLATE,
                        to: &address,
                        language: &ctx.language,
                        data: json!({"removed": what, "settingsUrl": format!("{}/rbac/subjects/settings", self.cfg.public_url)}),
                        ..Default::default()
                    })
                    .await;
                if let Err(e) = queued {
                    tracing::error!(%subject, error = %e, "the removal notice could not be queued");
                }
            }
        }
        Ok(row)
    }

    /// 403 unless `session` (the caller's own) was opened by a sign-in in the last
    /// [`RECENT_SIGN_IN`]: changes to the ways an account signs in need a fresh proof, not just a
    /// session (which may be stolen). `None` (an admin acting for another account) passes.
    pub(crate) async fn require_recent_sign_in(&self, session: Option<Uuid>) -> Result<()> {
        let Some(sid) = session else {
            return Ok(());
        };
        let row = self.store.get(&self.e.session, sid).await?;
        if ts(&row, "createdAt").is_some_and(|t| t + RECENT_SIGN_IN > now()) {
            return Ok(());
        }
        Err(Error::Forbidden(
            "sign in again to change how this account signs in (a sign-in in the last 15 minutes is needed)"
                .into(),
        ))
    }

    /// Admin: creates an email-and-password identity for an existing subject, or a new subject
    /// with it (`subjectId` absent).
    pub async fn admin_email_identity(&self, body: &Map<String, Value>) -> Result<Record> {
        let email = normalise_email("email", str_field(body, "email")?)?;
        let pw = str_field(body, "password")?;
        password::check_new("password", pw)?;
        let hash = self.hasher.hash(pw).await?;
        let mut tx = self.store.begin().await?;
        let row = {
            let mut exec = tx.exec();
            let subject = match body.get("subjectId").and_then(Value::as_str) {
                Some(s) => Uuid::try_parse(s)
                    .map_err(|_| Error::bad_field("subjectId", "must be a uuid"))?,
                None => Record::must_id(
                    &self
                        .store
                        .create_in(&mut exec, &self.e.subject, &Map::new())
                        .await?,
                )?,
            };
            // An admin vouches for the address.
            self.create_identity(&mut exec, subject, EMAIL, &email, Some(hash), true)
                .await?
        };
        tx.commit().await?;
        Ok(row)
    }

    /// The subject an identity belongs to.
    pub async fn identity_subject(&self, identity: Uuid) -> Result<Uuid> {
        self.subject_of(identity)
            .await?
            .ok_or_else(|| Error::not_found(format!("rbac.identity {identity} not found")))
    }

    /// `stoa admin create`: a subject with an email identity and the admin role.
    pub async fn create_admin(&self, email: &str, password: &str) -> Result<Uuid> {
        let email = normalise_email("email", email)?;
        password::check_new("password", password)?;
        let admin = self
            .store
            .find_by(&self.e.role, &[("slug", Val::Text("admin".into()))], 1)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Error::not_found("the admin role does not exist; run `stoa migrate` first")
            })?;
        let hash = self.hasher.hash(password).await?;
        let t = self
            .new_account(
                Some((EMAIL, &email, Some(hash), true)),
                &[Record::must_id(&admin)?],
                &Ctx::default(),
            )
            .await?;
        self.revoke(t.session).await?;
        Ok(t.subject)
    }

    pub fn subject_entity(&self) -> &Entity {
        &self.e.subject
    }
}

pub fn str_field<'a>(body: &'a Map<String, Value>, name: &str) -> Result<&'a str> {
    match body.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(Error::invalid_field(name, "must be a string")),
        None => Err(Error::invalid_field(name, "is required")),
    }
}
