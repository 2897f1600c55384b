//! Sessions: the per-request check of an access token, live sessions and roles, starting
//! sessions, refresh-token rotation with reuse detection, and revocation.

use super::*;
use crate::rows::{SessionRow, SubjectRoleRow, read_all};

impl Auth {
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
    /// memory until a session that existed changes (every committed update or delete of a
    /// session bumps the counter: a revocation applies to the next request; a new session, which
    /// changes no other, does not), so a signed-in request costs no read.
    pub(super) async fn session_live(&self, sid: Uuid, subject: Uuid) -> Result<bool> {
        let v = self.store.rows_changed_version("rbac.session");
        if let Ok(g) = self.live.read()
            && g.0 == v
            && let Some((owner, expires)) = g.1.get(&sid)
        {
            return Ok(*owner == subject && *expires > now());
        }
        let row = match self.store.get(&self.e.session, sid).await {
            Ok(r) => SessionRow::of(&r)?,
            Err(Error::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        let expires = row.expires_at;
        let live = row.subject_id == Some(subject)
            && row.revoked_at.is_none()
            && expires.is_some_and(|x| x > now());
        if live && let Some(expires) = expires {
            self.keep_live(v, sid, subject, expires);
        }
        Ok(live)
    }

    /// Keeps session `sid` of `subject` as live until `expires`, for version `v` of
    /// `rbac.session` — read before the session was known live (its row read, or its
    /// transaction committed), so any change after that moves the version past `v`.
    fn keep_live(&self, v: u64, sid: Uuid, subject: Uuid, expires: OffsetDateTime) {
        if let Ok(mut g) = self.live.write() {
            if g.0 != v || g.1.len() >= 100_000 {
                *g = (v, HashMap::new());
            }
            g.1.insert(sid, (subject, expires));
        }
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
        let rows: Vec<SubjectRoleRow> = read_all(
            &self
                .store
                .find_by(&self.e.s2r, &[("subjectId", Val::Uuid(subject))], 1000)
                .await?,
        )?;
        let roles = Arc::new(rows.iter().filter_map(|r| r.role_id).collect::<Vec<_>>());
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

    /// Writes a new session of `subject` in `exec`'s transaction; once that commits,
    /// [`Auth::signed_in`] gives its tokens.
    pub(crate) async fn start_session(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        ctx: &Ctx,
        mfa: bool,
    ) -> Result<Opened> {
        // Read before the commit: a revocation can only reach the row after it (see
        // `keep_live`).
        let version = self.store.rows_changed_version("rbac.session");
        let expires = now() + Duration::from_secs(u64::try_from(self.cfg.refresh_ttl).unwrap_or(0));
        let ua: Option<String> = ctx
            .user_agent
            .as_ref()
            .map(|u| u.chars().take(500).collect());
        // The refresh token names its session, so the id is chosen here and the row is written
        // once, with the token's hash.
        let sid = Uuid::now_v7();
        let (token, hash) = tokens::new_refresh(sid);
        self.store
            .create_with_in(
                exec,
                &self.e.session,
                &fields(json!({
                    "subjectId": subject,
                    "expiresAt": format_timestamp(expires),
                    "lastUsedAt": format_timestamp(now()),
                    "userAgent": ua,
                    "ip": ctx.ip.chars().take(64).collect::<String>(),
                })),
                &[
                    (idx(&self.e.session, "id")?, Val::Uuid(sid)),
                    (idx(&self.e.session, "tokenHash")?, Val::Text(hash)),
                    (
                        idx(&self.e.session, "options")?,
                        Val::Json(json!({"secondFactor": mfa})),
                    ),
                ],
            )
            .await?;
        if let Some(guest) = ctx.guest
            && guest != subject
        {
            self.adopt(exec, guest, subject).await?;
        }
        // The language of the sign-in is the one the person's mail is written in later.
        if ctx.language_stated && stoa_kernel::model::LANGUAGES.contains(&ctx.language.as_str()) {
            repo::set_if(
                exec,
                &self.e.subject,
                subject,
                &[("language", Val::Text(ctx.language.clone()))],
                &[],
            )
            .await?;
        }
        Ok(Opened {
            subject,
            sid,
            refresh: token,
            expires,
            mfa,
            version,
        })
    }

    /// The tokens of a session [`Auth::start_session`] wrote, its transaction committed; the
    /// session is known live from here, so its first request costs no read.
    pub(crate) fn signed_in(&self, o: Opened) -> Result<Tokens> {
        self.keep_live(o.version, o.sid, o.subject, o.expires);
        self.tokens(o.subject, o.sid, o.refresh, o.mfa)
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
    pub(super) async fn sign_in_checked(
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
        let opened = self
            .start_session(&mut tx.exec(), subject, ctx, mfa)
            .await?;
        tx.commit().await?;
        self.signed_in(opened)
    }

    /// After a correct first factor: a session, or — when the account has two-factor sign-in —
    /// the challenge its second step presents.
    pub(super) async fn first_factor_passed(
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
    /// The live session a refresh token names: its id, subject, current token hash and spent
    /// hashes. `None` for a token that names none, or a revoked or expired one.
    async fn presented_session(&self, token: &str) -> Result<Option<Presented>> {
        let Some(sid) = tokens::refresh_session(token) else {
            return Ok(None);
        };
        let s = &self.e.session;
        let row = match self.store.get(s, sid).await {
            Ok(r) => SessionRow::of(&r)?,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some(subject) = row.subject_id else {
            return Ok(None);
        };
        if row.revoked_at.is_some() || row.expires_at.is_none_or(|x| x <= now()) {
            return Ok(None);
        }
        let Some(secrets) = ({
            let mut c = self.store.db.read().await?;
            repo::read_text(&mut c.exec(), s, sid, &["tokenHash", "spentHashes"]).await?
        }) else {
            return Ok(None);
        };
        let mfa = row.second_factor();
        Ok(Some(Presented {
            sid,
            subject,
            mfa,
            current: secrets.first().cloned().flatten().unwrap_or_default(),
            spent: secrets.get(1).cloned().flatten().unwrap_or_default(),
        }))
    }

    /// The subject of the live session whose current refresh token is `token` (nothing rotates):
    /// who a request's refresh cookie says it is, when its access token has expired.
    pub async fn refresh_subject(&self, token: &str) -> Result<Option<Uuid>> {
        Ok(self
            .presented_session(token)
            .await?
            .filter(|p| tokens::same(&p.current, &tokens::sha256_hex(token)))
            .map(|p| p.subject))
    }

    pub async fn refresh(&self, token: &str) -> Result<Tokens> {
        let dead =
            || Error::Unauthorized("the refresh token is invalid or expired; sign in again".into());
        let Presented {
            sid,
            subject,
            mfa,
            current,
            spent,
        } = self.presented_session(token).await?.ok_or_else(dead)?;
        let s = &self.e.session;
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
}

/// A live session as a presented refresh token names it.
struct Presented {
    sid: Uuid,
    subject: Uuid,
    /// It was opened with a second factor.
    mfa: bool,
    /// The hash of its current refresh token.
    current: String,
    /// The hashes of its spent tokens (a reuse revokes the session).
    spent: String,
}

/// A session written by [`Auth::start_session`] in a transaction not yet committed.
pub(crate) struct Opened {
    subject: Uuid,
    sid: Uuid,
    refresh: String,
    expires: OffsetDateTime,
    mfa: bool,
    /// `rbac.session`'s version before the session's transaction committed.
    version: u64,
}
