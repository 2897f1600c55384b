//! Two-factor sign-in and the account's sessions.
//!
//! - **TOTP** (RFC 6238: HMAC-SHA1, 6 digits, 30 s steps, one step of clock skew either side),
//!   computed by `totp-rs`. Enrolment is two steps: a pending secret is shown (and as an
//!   `otpauth://` URL for a QR code), and becomes the account's only when a code from it is
//!   confirmed. A code is accepted once: the step it matched is stored, and a code of that step or
//!   an earlier one is refused afterwards (compare-and-set, so two requests cannot both use it).
//! - **Recovery codes**: ten, shown once at enrolment, stored as SHA-256 hashes (each has 50
//!   random bits, so a slow hash adds nothing); each works once in place of a code.
//! - **Sign-in**: a correct first factor of an account with TOTP returns a challenge token (five
//!   minutes, opens nothing); the second step presents it with a code. Failures count towards the
//!   same lockout as passwords. Sessions opened this way carry `mfa` in their access tokens.
//! - With `STOA_ADMIN_2FA=required`, an administrator whose session has no second factor is
//!   treated as a signed-in visitor except for enrolment (see `http::authorize`).
//!
//! The TOTP secret is stored as the authenticator app holds it (it cannot be hashed: the server
//! computes codes from it) in a secret field, which no endpoint serialises.

use rand::RngCore;
use serde_json::{Map, json};
use stoa_kernel::value::{Val, now};
use stoa_kernel::{Error, Result};
use stoa_store::repo;
use totp_rs::{Algorithm, Secret, TOTP};
use uuid::Uuid;

use crate::rows::{SessionRow, SubjectRow, read_all};
use crate::service::{Auth, Ctx, Tokens};
use crate::tokens;

const STEP: u64 = 30;
const DIGITS: usize = 6;
pub const RECOVERY_CODES: usize = 10;
const ISSUER: &str = "Stoa";
const FIELDS: [&str; 4] = ["totpSecret", "totpPending", "totpStep", "recoveryCodes"];

fn totp(secret_b32: &str) -> Result<TOTP> {
    let bytes = base32_decode(secret_b32)
        .ok_or_else(|| Error::internal("a stored TOTP secret is not base32"))?;
    TOTP::new(Algorithm::SHA1, DIGITS, 1, STEP, bytes)
        .map_err(|e| Error::internal(format!("TOTP: {e}")))
}

/// RFC 4648 base32 without padding (what authenticator apps read), by totp-rs.
fn base32_encode(bytes: &[u8]) -> String {
    Secret::Raw(bytes.to_vec()).to_encoded().to_string()
}

fn base32_decode(s: &str) -> Option<Vec<u8>> {
    Secret::Encoded(s.to_owned()).to_bytes().ok()
}

/// The subject's fields with two-factor sign-in off (and no enrolment under way).
pub(crate) fn turned_off() -> [(&'static str, Val); 5] {
    [
        ("totpSecret", Val::Null),
        ("totpPending", Val::Null),
        ("totpStep", Val::Null),
        ("recoveryCodes", Val::Null),
        ("totpEnabledAt", Val::Null),
    ]
}

/// A new 160-bit secret, base32.
fn new_secret() -> String {
    let mut b = [0u8; 20];
    rand::rng().fill_bytes(&mut b);
    base32_encode(&b)
}

/// The time step `code` belongs to (the current one or one either side), when later than `last`.
pub fn matching_step(
    secret_b32: &str,
    code: &str,
    unix: u64,
    last: Option<u64>,
) -> Result<Option<u64>> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let t = totp(secret_b32)?;
    let step = unix / STEP;
    for s in [step.saturating_sub(1), step, step + 1] {
        if last.is_some_and(|l| s <= l) {
            continue;
        }
        if tokens::same(&t.generate(s * STEP), &code) {
            return Ok(Some(s));
        }
    }
    Ok(None)
}

fn unix_now() -> u64 {
    u64::try_from(now().unix_timestamp()).unwrap_or(0)
}

/// A recovery code as typed (case, dashes and spaces ignored).
fn normalise_code(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Ten fresh recovery codes (`xxxxx-xxxxx`) and their stored form (space-separated hashes).
fn new_recovery_codes() -> (Vec<String>, String) {
    let codes: Vec<String> = (0..RECOVERY_CODES)
        .map(|_| {
            let mut b = [0u8; 7];
            rand::rng().fill_bytes(&mut b);
            let s = base32_encode(&b).to_ascii_lowercase();
            format!("{}-{}", &s[..5], &s[5..10])
        })
        .collect();
    let hashes = codes
        .iter()
        .map(|c| tokens::sha256_hex(&normalise_code(c)))
        .collect::<Vec<_>>()
        .join(" ");
    (codes, hashes)
}

/// The account's second-factor secrets as stored.
struct Stored {
    secret: Option<String>,
    pending: Option<String>,
    step: Option<String>,
    codes: Option<String>,
}

fn wrong_code() -> Error {
    Error::invalid_field("code", "the code is wrong or was already used")
}

impl Auth {
    async fn stored(&self, subject: Uuid) -> Result<Stored> {
        let mut c = self.store.db.read().await?;
        let v = repo::read_text(&mut c.exec(), &self.e.subject, subject, &FIELDS)
            .await?
            .ok_or_else(|| Error::not_found(format!("rbac.subject {subject} not found")))?;
        let mut it = v.into_iter();
        let mut next = || it.next().flatten();
        Ok(Stored {
            secret: next(),
            pending: next(),
            step: next(),
            codes: next(),
        })
    }

    /// Whether `subject` signs in with a second factor.
    pub async fn second_factor_enabled(&self, subject: Uuid) -> Result<bool> {
        let row =
            stoa_store::publish::with_drafts(self.store.get(&self.e.subject, subject)).await?;
        Ok(SubjectRow::of(&row)?.totp_enabled_at.is_some())
    }

    /// What `/me` says about the caller's second factor.
    pub async fn second_factor_state(
        &self,
        subject: Uuid,
        mfa: bool,
        admin: bool,
    ) -> Result<crate::views::SecondFactorState> {
        let enabled = self.second_factor_enabled(subject).await?;
        let required = self.cfg.admin_2fa_required && admin;
        Ok(crate::views::SecondFactorState {
            enabled,
            required,
            satisfied: mfa || !required,
        })
    }

    /// Starts enrolment: a new pending secret, shown once.
    pub async fn totp_start(&self, subject: Uuid) -> Result<crate::views::TotpEnrolment> {
        if self.second_factor_enabled(subject).await? {
            return Err(Error::Conflict {
                message:
                    "two-factor sign-in is already on; turn it off first to enrol a new device"
                        .into(),
                fields: Default::default(),
            });
        }
        let secret = new_secret();
        let mut tx = self.store.begin().await?;
        repo::set_if(
            &mut tx.exec(),
            &self.e.subject,
            subject,
            &[("totpPending", Val::Text(secret.clone()))],
            &[("totpEnabledAt", Val::Null)],
        )
        .await?
        .ok_or_else(|| Error::not_found(format!("rbac.subject {subject} not found")))?;
        tx.commit().await?;
        let account = self.account_label(subject).await;
        let enc = |s: &str| {
            percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
        };
        Ok(crate::views::TotpEnrolment {
            otpauth_url: format!(
                "otpauth://totp/{}:{}?secret={secret}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP}",
                enc(ISSUER),
                enc(&account),
                enc(ISSUER)
            ),
            secret,
            digits: DIGITS as u32,
            period: STEP,
            algorithm: "SHA1",
        })
    }

    async fn account_label(&self, subject: Uuid) -> String {
        self.email_of(subject)
            .await
            .unwrap_or_else(|| subject.to_string())
    }

    /// Checks `password` against the account's email identity; accounts without one (a wallet
    /// only) have nothing to check.
    pub async fn confirm_password(&self, subject: Uuid, password: Option<&str>) -> Result<()> {
        let ids = self.identities(subject).await?;
        let Some(identity) = ids
            .iter()
            .find(|i| i.provider == crate::rows::Provider::Email)
            .map(|i| i.id)
        else {
            return Ok(());
        };
        let password = password
            .filter(|p| !p.is_empty())
            .ok_or_else(|| Error::invalid_field("password", "is required"))?;
        self.check_password(identity, "password", password).await
    }

    /// The account's email, when it has an email identity.
    pub async fn email_of(&self, subject: Uuid) -> Option<String> {
        let ids = self.identities(subject).await.ok()?;
        ids.into_iter().find_map(|i| i.email)
    }

    /// Confirms enrolment with a code from the pending secret: turns two-factor sign-in on,
    /// signs out every other session, marks `session` (the caller's) as passed, and returns the
    /// recovery codes (shown once) and a new access token for the session.
    pub async fn totp_confirm(
        &self,
        subject: Uuid,
        session: Option<Uuid>,
        code: &str,
    ) -> Result<(Vec<String>, Option<String>)> {
        let st = self.stored(subject).await?;
        let pending = st.pending.ok_or_else(|| Error::Conflict {
            message: "start enrolment first (POST …/totp)".into(),
            fields: Default::default(),
        })?;
        let step = matching_step(&pending, code, unix_now(), None)?.ok_or_else(wrong_code)?;
        let (codes, hashes) = new_recovery_codes();
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            repo::set_if(
                &mut exec,
                &self.e.subject,
                subject,
                &[
                    ("totpSecret", Val::Text(pending.clone())),
                    ("totpPending", Val::Null),
                    ("totpStep", Val::Text(step.to_string())),
                    ("recoveryCodes", Val::Text(hashes)),
                    ("totpEnabledAt", Val::Timestamp(now())),
                ],
                &[
                    ("totpPending", Val::Text(pending)),
                    ("totpEnabledAt", Val::Null),
                ],
            )
            .await?
            .ok_or_else(wrong_code)?;
            self.revoke_all(&mut exec, subject, session).await?;
            if let Some(sid) = session {
                self.mark_session(&mut exec, sid).await?;
            }
            record(
                &mut exec,
                subject,
                "two-factor sign-in turned on; other sessions signed out",
                &["totpSecret", "recoveryCodes"],
            )
            .await?;
        }
        tx.commit().await?;
        let jwt = match session {
            Some(sid) => Some(self.tokens(subject, sid, String::new(), true)?.jwt),
            None => None,
        };
        Ok((codes, jwt))
    }

    async fn mark_session(&self, exec: &mut stoa_store::Exec<'_>, sid: Uuid) -> Result<()> {
        let options = Val::Json(json!({"secondFactor": true}));
        repo::set_if(exec, &self.e.session, sid, &[("options", options)], &[]).await?;
        Ok(())
    }

    /// Turns two-factor sign-in off. The account's owner proves it with a code or a recovery
    /// code; an admin acting for someone else (a lost phone) needs none. Refused for an admin
    /// when it is required.
    pub async fn totp_disable(
        &self,
        subject: Uuid,
        code: Option<&str>,
        for_other: bool,
    ) -> Result<()> {
        if !for_other && self.cfg.admin_2fa_required && self.is_admin(subject).await? {
            return Err(Error::Conflict {
                message: "administrators must keep two-factor sign-in on this site (STOA_ADMIN_2FA=required)".into(),
                fields: Default::default(),
            });
        }
        if !for_other {
            let code = code.ok_or_else(|| Error::invalid_field("code", "is required"))?;
            if !self.use_code(subject, code).await? {
                return Err(wrong_code());
            }
        }
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            repo::set_if(&mut exec, &self.e.subject, subject, &turned_off(), &[])
                .await?
                .ok_or_else(|| Error::not_found(format!("rbac.subject {subject} not found")))?;
            record(
                &mut exec,
                subject,
                "two-factor sign-in turned off",
                &["totpSecret", "recoveryCodes"],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn is_admin(&self, subject: Uuid) -> Result<bool> {
        let roles = self.roles_of(subject).await?;
        Ok(self.policy.table().await?.decide("GET", "/", &roles) == crate::policy::Verdict::Admin)
    }

    /// Spends `code` — a TOTP code of a step not used yet, or an unused recovery code — for
    /// `subject`; `false` when it is neither.
    async fn use_code(&self, subject: Uuid, code: &str) -> Result<bool> {
        let st = self.stored(subject).await?;
        let Some(secret) = st.secret else {
            return Ok(false);
        };
        let last = st.step.as_deref().and_then(|s| s.parse::<u64>().ok());
        if let Some(step) = matching_step(&secret, code, unix_now(), last)? {
            let mut tx = self.store.begin().await?;
            let old = st.step.map_or(Val::Null, Val::Text);
            let won = repo::set_if(
                &mut tx.exec(),
                &self.e.subject,
                subject,
                &[("totpStep", Val::Text(step.to_string()))],
                &[("totpStep", old)],
            )
            .await?
            .is_some();
            tx.commit().await?;
            return Ok(won);
        }
        let wanted = tokens::sha256_hex(&normalise_code(code));
        let codes = st.codes.unwrap_or_default();
        if normalise_code(code).len() != 10 || !codes.split(' ').any(|h| tokens::same(h, &wanted)) {
            return Ok(false);
        }
        let left = codes
            .split(' ')
            .filter(|h| !h.is_empty() && !tokens::same(h, &wanted))
            .collect::<Vec<_>>()
            .join(" ");
        let mut tx = self.store.begin().await?;
        let won = repo::set_if(
            &mut tx.exec(),
            &self.e.subject,
            subject,
            &[("recoveryCodes", Val::Text(left))],
            &[("recoveryCodes", Val::Text(codes))],
        )
        .await?
        .is_some();
        if won {
            let who = stoa_store::audit::Who {
                actor: format!("subject:{subject}"),
                subject: Some(subject),
                ..stoa_store::audit::current().unwrap_or_default()
            };
            stoa_store::audit::event_in(
                &mut tx.exec(),
                &who,
                "rbac.subject",
                Some(subject),
                "a recovery code was used",
                Map::new(),
                &["recoveryCodes"],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(won)
    }

    /// The second step of a sign-in: the challenge from the first and a code (or recovery code).
    pub async fn second_factor_sign_in(
        &self,
        challenge: &str,
        code: &str,
        ctx: &Ctx,
    ) -> Result<Tokens> {
        let subject = self.jwt.verify_challenge(challenge).ok_or_else(|| {
            Error::Unauthorized("this sign-in step expired; sign in again".into())
        })?;
        let account = format!("second-factor:{subject}");
        self.limits.before_second_factor(&ctx.ip, &account).await?;
        if !self.use_code(subject, code).await? {
            self.limits.failed(&ctx.ip, &account).await;
            tracing::info!(subject = %subject, event = "second_factor_failed", "second factor refused");
            return Err(wrong_code());
        }
        self.limits.succeeded(&ctx.ip, &account).await;
        tracing::info!(subject = %subject, event = "login", second_factor = true, "signed in");
        self.sign_in(subject, ctx, true).await
    }

    /// The account's live sessions, most recently used first (`current`: the caller's).
    pub async fn sessions(
        &self,
        subject: Uuid,
        current: Option<Uuid>,
    ) -> Result<Vec<crate::rows::SessionView>> {
        let q = live_sessions_query(&self.e.session, subject, now())?;
        let rows: Vec<SessionRow> = read_all(&self.store.find(&self.e.session, &q).await?.rows)?;
        let mut out: Vec<crate::rows::SessionView> = rows
            .into_iter()
            .map(|r| {
                let second_factor = r.second_factor();
                let created_at = r.created_at.unwrap_or_default();
                crate::rows::SessionView {
                    id: r.id,
                    last_used_at: r.last_used_at.unwrap_or_else(|| created_at.clone()),
                    created_at,
                    user_agent: r.user_agent,
                    ip: r.ip,
                    second_factor,
                    current: Some(r.id) == current,
                }
            })
            .collect();
        // Timestamps are written in one fixed format, so their text sorts as their time.
        out.sort_by(|a, b| b.last_used_at.cmp(&a.last_used_at));
        Ok(out)
    }

    /// Ends session `sid` of `subject` at once (its access tokens stop working on their next
    /// request, its refresh token at once).
    pub async fn revoke_session(&self, subject: Uuid, sid: Uuid) -> Result<()> {
        let row = match self.store.get(&self.e.session, sid).await {
            Ok(r) => SessionRow::of(&r)?,
            Err(Error::NotFound { .. }) => {
                return Err(Error::not_found(format!("rbac.session {sid} not found")));
            }
            Err(e) => return Err(e),
        };
        if row.subject_id != Some(subject) {
            return Err(Error::not_found(format!("rbac.session {sid} not found")));
        }
        if row.revoked_at.is_none() {
            self.revoke(sid).await?;
            let mut tx = self.store.begin().await?;
            record(&mut tx.exec(), subject, "a session was signed out", &[]).await?;
            tx.commit().await?;
        }
        Ok(())
    }
}

/// The live sessions of `subject` at `at` (neither revoked nor expired), at most
/// `SESSIONS_LISTED` (200), read through the session's lookup index: neither the expired
/// sessions of years of sign-ins nor the revoked ones are read. Filtering the expired ones out
/// after reading the first 200 of all showed an account signed in more than 200 times no
/// session, not even the one asking.
pub fn live_sessions_query(
    session: &stoa_kernel::model::Entity,
    subject: Uuid,
    at: time::OffsetDateTime,
) -> Result<stoa_kernel::query::FindQuery> {
    use stoa_kernel::query::{FilterValue, FindQuery, Op};
    Ok(FindQuery::all()
        .eq(session, "subjectId", Val::Uuid(subject))?
        .eq(session, "revokedAt", Val::Null)?
        .filter(
            session,
            "expiresAt",
            Op::Gt,
            FilterValue::One(Val::Timestamp(at)),
        )?
        // The index's own order, so nothing is sorted (the list is shown by last use).
        .sort(session, "expiresAt", true)?
        .take(SESSIONS_LISTED))
}

/// How many live sessions an account's list shows.
const SESSIONS_LISTED: u64 = 200;

/// An account-security event in the audit log, when the request is recorded.
async fn record(
    exec: &mut stoa_store::Exec<'_>,
    subject: Uuid,
    summary: &str,
    secrets: &[&str],
) -> Result<()> {
    if let Some(who) = stoa_store::audit::current() {
        stoa_store::audit::event_in(
            exec,
            &who,
            "rbac.subject",
            Some(subject),
            summary,
            Map::new(),
            secrets,
        )
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_round_trips_and_rfc_vectors() {
        // RFC 4648 test vectors.
        assert_eq!(base32_encode(b"foobar"), "MZXW6YTBOI");
        assert_eq!(base32_decode("MZXW6YTBOI").unwrap(), b"foobar");
        let s = new_secret();
        assert_eq!(s.len(), 32);
        assert_eq!(base32_decode(&s).unwrap().len(), 20);
    }

    #[test]
    fn rfc_6238_sha1_vectors_and_replay() {
        // RFC 6238 appendix B: the secret is ASCII "12345678901234567890"; 8-digit codes end in
        // these 6 digits.
        let secret = base32_encode(b"12345678901234567890");
        let t = totp(&secret).unwrap();
        assert_eq!(t.generate(59), "287082");
        assert_eq!(t.generate(1_111_111_109), "081804");
        assert_eq!(t.generate(1_234_567_890), "005924");
        let step = 1_234_567_890 / STEP;
        assert_eq!(
            matching_step(&secret, "005924", 1_234_567_890, None).unwrap(),
            Some(step)
        );
        assert_eq!(
            matching_step(&secret, "005 924", 1_234_567_890, None).unwrap(),
            Some(step)
        );
        assert_eq!(
            matching_step(&secret, "005924", 1_234_567_890, Some(step)).unwrap(),
            None,
            "a used step is refused"
        );
        assert_eq!(
            matching_step(&secret, "005924", 1_234_567_890 + 31, None).unwrap(),
            Some(step),
            "one step of skew"
        );
        assert_eq!(
            matching_step(&secret, "005924", 1_234_567_890 + 95, None).unwrap(),
            None
        );
        assert_eq!(matching_step(&secret, "12345", 0, None).unwrap(), None);
    }

    #[test]
    fn recovery_codes_are_hashed_and_typed_loosely() {
        let (codes, hashes) = new_recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        for c in &codes {
            assert!(!hashes.contains(c.as_str()));
            let loose = c.to_ascii_uppercase().replace('-', " ");
            assert!(hashes.contains(&tokens::sha256_hex(&normalise_code(&loose))));
        }
    }
}
