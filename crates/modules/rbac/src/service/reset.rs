//! Password reset: the mailed link and the reset itself.

use super::*;
use crate::rows::IdentityRow;

impl Auth {
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

    pub(super) async fn send_reset(&self, email: &str, ctx: &Ctx) -> Result<()> {
        let Some(identity) = self.identity_by_login(EMAIL, email).await? else {
            return Ok(());
        };
        let id = identity.id;
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
            "{}/{}/rbac/subject/authentication/email-and-password/reset-password?code={code}",
            self.cfg.public_url, ctx.language
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
    ) -> Result<crate::views::ResetOutcome> {
        new_password(password, confirmation)?;
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
            Ok(r) => IdentityRow::of(&r)?,
            Err(Error::NotFound { .. }) => return Err(bad()),
            Err(e) => return Err(e),
        };
        let stored = self.secret_of(id, "code").await?.ok_or_else(bad)?;
        let attempts = row.reset_attempts.unwrap_or(0);
        if attempts >= RESET_ATTEMPTS || row.reset_expires_at.is_none_or(|x| x <= now()) {
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
            let cleared = self
                .address_proved(&mut exec, subject, &IdentityRow::of(&done)?)
                .await?;
            self.revoke_all(&mut exec, subject, None).await?;
            cleared
        };
        tx.commit().await?;
        tracing::info!(subject = %subject, event = "password_reset", removed = cleared.removed.len(), second_factor_removed = cleared.second_factor, "password reset; every session revoked");
        Ok(crate::views::ResetOutcome {
            ok: true,
            removed_identities: cleared.removed,
            second_factor_removed: cleared.second_factor,
        })
    }

    // ---- wallet --------------------------------------------------------------------------
}

/// A new password as a reset sets it: long enough, confirmed, and not a common one.
fn new_password(password: &str, confirmation: &str) -> Result<()> {
    password::check_len("password", password)?;
    if password != confirmation {
        return Err(Error::invalid_field(
            "passwordConfirmation",
            "does not match the password",
        ));
    }
    password::check_new("password", password)
}
