//! Accounts: registration, password sign-in, anonymous subjects and the identities they
//! start with.

use super::*;
use crate::rows::{IdentityRow, RoleRow, SubjectIdentityRow, read_all};

impl Auth {
    /// The identity of `provider` for `key` (an address, a wallet), by its unique login.
    pub(crate) async fn identity_by_login(
        &self,
        provider: &str,
        key: &str,
    ) -> Result<Option<IdentityRow>> {
        self.store
            .find_by(
                &self.e.identity,
                &[("login", Val::Text(login_key(provider, key)))],
                1,
            )
            .await?
            .first()
            .map(IdentityRow::of)
            .transpose()
    }

    pub(crate) async fn subject_of(&self, identity: Uuid) -> Result<Option<Uuid>> {
        Ok(self
            .store
            .find_by(&self.e.s2i, &[("identityId", Val::Uuid(identity))], 1)
            .await?
            .first()
            .map(SubjectIdentityRow::of)
            .transpose()?
            .and_then(|r| r.subject_id))
    }

    /// Replaces identity `identity`'s bcrypt hash `old` by an argon2id hash of `password` (just
    /// verified); the write holds only while the hash is still `old`. Answers the hash now kept.
    async fn rehash(&self, identity: Uuid, password: &str, old: &str) -> Result<String> {
        let hash = self.hasher.hash(password).await?;
        let i = &self.e.identity;
        let mut tx = self.store.begin().await?;
        let changed = repo::update_if(
            &mut tx.exec(),
            i,
            identity,
            &[(idx(i, "password")?, Val::Text(hash.clone()))],
            &[(idx(i, "password")?, Val::Text(old.to_owned()))],
        )
        .await?;
        tx.commit().await?;
        if changed.is_some() {
            tracing::info!(identity = %identity, event = "password_rehashed", "a bcrypt password is now kept as argon2id");
            Ok(hash)
        } else {
            // Changed meanwhile (a reset): what is stored now stands.
            Ok(self.secret_of(identity, "password").await?.unwrap_or(hash))
        }
    }

    /// Whether any identity still keeps a bcrypt hash from the original system: every password
    /// check then costs a bcrypt verification too, so timing tells nothing (see `password`).
    /// Called at every start; one look at the identities' passwords.
    pub async fn notice_legacy_hashes(&self) -> Result<()> {
        let e = &self.e.identity;
        let q = stoa_kernel::query::FindQuery::all()
            .filter(
                e,
                "password",
                stoa_kernel::query::Op::Like,
                stoa_kernel::query::FilterValue::One(Val::Text("$2%".into())),
            )?
            .take(1);
        if !self.store.find_in_query(e, q, 1).await?.is_empty() {
            tracing::info!(
                "bcrypt passwords from the original system are kept: every password check costs a bcrypt verification too until they are rehashed"
            );
            self.hasher.expect_legacy();
        }
        Ok(())
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
    pub(super) async fn registration_roles(&self, requested: &[String]) -> Result<Vec<Uuid>> {
        let open: Vec<RoleRow> = read_all(
            &self
                .store
                .find_by(
                    &self.e.role,
                    &[("availableOnRegistration", Val::Bool(true))],
                    1000,
                )
                .await?,
        )?;
        if requested.is_empty() {
            return Ok(open.iter().map(|r| r.id).collect());
        }
        let mut out = Vec::new();
        for slug in requested {
            let r = open
                .iter()
                .find(|r| r.slug.as_deref() == Some(slug.as_str()))
                .ok_or_else(|| {
                    Error::Forbidden(format!(
                        "the role '{slug}' cannot be chosen at registration"
                    ))
                })?;
            out.push(r.id);
        }
        Ok(out)
    }

    pub(super) async fn create_identity(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        provider: &str,
        key: &str,
        hash: Option<String>,
        verified: bool,
    ) -> Result<Record> {
        let mut input = fields(json!({"provider": provider, "login": login_key(provider, key)}));
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
    pub(super) async fn new_account(
        &self,
        identity: Option<(&str, &str, Option<String>, bool)>,
        roles: &[Uuid],
        ctx: &Ctx,
    ) -> Result<Tokens> {
        let mut tx = self.store.begin().await?;
        let opened = {
            let mut exec = tx.exec();
            let row = self
                .store
                .create_in(&mut exec, &self.e.subject, &Map::new())
                .await?;
            let subject = Record::must_id(&row)?;
            if let Some((provider, key, hash, proved)) = identity {
                self.create_identity(&mut exec, subject, provider, key, hash, proved)
                    .await?;
                // Outgoing webhooks hear of a new account (not of an anonymous subject): the
                // subject with how it signs in.
                let mut told = row.clone();
                told.0
                    .push(("provider", stoa_store::Cell::Text(provider.to_owned())));
                told.0
                    .push(("login", stoa_store::Cell::Text(key.to_owned())));
                stoa_store::tap::emit_in(
                    &mut exec,
                    &self.e.subject,
                    "rbac.subject.registered",
                    &told,
                )
                .await?;
            }
            // Sent with the session's insert (PostgreSQL).
            for r in roles {
                self.store
                    .link_later(
                        &mut exec,
                        &self.e.s2r,
                        ("subjectId", subject),
                        ("roleId", *r),
                    )
                    .await?;
            }
            self.start_session(&mut exec, subject, ctx, false).await?
        };
        tx.commit().await?;
        self.signed_in(opened)
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
        if self.identity_by_login(EMAIL, &email).await?.is_some() {
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
        match self.identity_by_login(EMAIL, &email).await {
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
        let identity = self.identity_by_login(EMAIL, &email).await?;
        let stored = match &identity {
            Some(i) => self.secret_of(i.id, "password").await?,
            None => None,
        };
        let ok = self.hasher.verify(password, stored.clone()).await?;
        let subject = match (&identity, ok) {
            (Some(i), true) => self.subject_of(i.id).await?.map(|s| (s, i.id)),
            _ => None,
        };
        let Some((subject, identity)) = subject else {
            self.limits.failed(&ctx.ip, &account).await;
            tracing::info!(event = "login_failed", "sign-in refused");
            return Err(wrong_credentials());
        };
        self.limits.succeeded(&ctx.ip, &account).await;
        // A password brought from the original system (bcrypt) is kept as argon2id from now on.
        let stored = match stored {
            Some(old) if password::is_legacy(&old) => {
                Some(self.rehash(identity, password, &old).await?)
            }
            other => other,
        };
        let t = self
            .first_factor_passed(subject, ctx, (identity, stored.as_deref()))
            .await?;
        tracing::info!(subject = %subject, event = "login", second_step = matches!(t, SignIn::SecondFactor { .. }), "password accepted");
        Ok(t)
    }

    /// A subject with no identity (a guest cart, for example), signed in.
    pub async fn anonymous(&self, ctx: &Ctx) -> Result<Tokens> {
        self.limits.ip(&ctx.ip).await?;
        let roles: Vec<Uuid> = self
            .subjects
            .role_id(crate::seed::GUEST)
            .await?
            .into_iter()
            .collect();
        self.new_account(None, &roles, ctx).await
    }
}
