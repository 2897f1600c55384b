//! Email confirmation: an email identity is unconfirmed until the code mailed to its address comes
//! back from a session of the same account.
//!
//! - **Codes** are six digits, valid for 24 hours, stored as a SHA-256 of the identity and the
//!   code. Ten wrong codes in all (asking for a new code does not reset the count) close this way
//!   of confirming; a password reset, which proves the address by its own link, still works.
//! - **The account must be signed in** to confirm: a code (or the mail's link) reaching the
//!   address's owner for an account they did not create confirms nothing unless they hold that
//!   account's session. So an attacker who registered someone else's address can never confirm it.
//! - **An unconfirmed account may not link a wallet or Telegram** (403 naming the way out): a
//!   sign-in method added to someone else's address would outlive the owner's password reset.
//!   It may sign in, buy, chat, change its password and turn on two-factor sign-in (a second
//!   factor added before the address is proved is removed by the reset, like a wallet).
//! - **A password reset proves the address.** Reset through an address never confirmed removes
//!   every other identity of the account and its second factor (see [`Auth::reset_password`]).
//! - **Changing the email** (`{email, password}`) keeps the current address until the new one is
//!   confirmed; the current address is told when the change is asked for and when it is done.

use rand::Rng;
use serde_json::{Value, json};
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::{Val, now};
use stoa_kernel::{Error, Result};
use stoa_notification::mail::Email;
use stoa_store::{Exec, Record, repo};
use uuid::Uuid;

use crate::rows::{IdentityRow, SubjectIdentityRow, SubjectRow, read_all};
use crate::service::{Auth, Ctx, EMAIL, Provider};
use crate::tokens;

/// The confirmation mail (a code, and a link to the page that takes it).
pub const VERIFY_TEMPLATE: &str = "rbac-verify-email";
/// The mail to the account's addresses when a way to sign in was removed.
pub const REMOVED_TEMPLATE: &str = "rbac-identity-removed";
/// The mail to the current address when a change of email is asked for and when it is done.
pub const EMAIL_CHANGED_TEMPLATE: &str = "rbac-email-changed";
const VERIFY_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 3600);
/// Wrong codes an identity may send in all before only a reset can confirm it.
pub const VERIFY_ATTEMPTS: i64 = 10;

/// The confirmation mails, in English and Russian.
pub fn templates() -> Vec<Value> {
    vec![
        json!({
            "slug": VERIFY_TEMPLATE,
            "adminTitle": "Confirm the email address (account)",
            "variant": VERIFY_TEMPLATE,
            "title": "Confirm your email",
            // The subject is the outbox record's title (admins read it): never the code.
            "subject": {"en": "Confirm your email address", "ru": "Подтвердите адрес почты"},
            "body": {
                "en": "Your confirmation code is {{ code }}.\n\nEnter it in the account's settings, or open this link while signed in (valid for 24 hours):\n{{ verifyUrl }}\n\nIf you did not create an account with this address, ignore this email: without the code nobody can confirm it, and you can always take the address back with \"Forgot your password?\".\n",
                "ru": "Ваш код подтверждения: {{ code }}.\n\nВведите его в настройках учётной записи или откройте ссылку, войдя в неё (действует 24 часа):\n{{ verifyUrl }}\n\nЕсли вы не создавали учётную запись с этим адресом, просто проигнорируйте письмо: без кода никто не сможет его подтвердить, а вернуть адрес себе всегда можно через «Забыли пароль?».\n"
            }
        }),
        json!({
            "slug": EMAIL_CHANGED_TEMPLATE,
            "adminTitle": "Email changed (account)",
            "variant": EMAIL_CHANGED_TEMPLATE,
            "title": "The account's email is changing",
            "subject": {
                "en": "{% if done %}The email of your account was changed{% else %}A change of your account's email was asked for{% endif %}",
                "ru": "{% if done %}Адрес почты вашей учётной записи изменён{% else %}Запрошена смена адреса почты вашей учётной записи{% endif %}"
            },
            "body": {
                "en": "{% if done %}Your account now signs in with {{ newEmail }} instead of this address.{% else %}Someone signed in to your account asked to change its email to {{ newEmail }}. The change happens once a code sent there is entered.{% endif %}\n\nIf it was not you, change your password now and check the account: {{ settingsUrl }}\n",
                "ru": "{% if done %}Теперь ваша учётная запись входит по адресу {{ newEmail }} вместо этого.{% else %}Кто-то, войдя в вашу учётную запись, запросил смену её адреса на {{ newEmail }}. Адрес сменится, когда будет введён код, отправленный туда.{% endif %}\n\nЕсли это были не вы, смените пароль и проверьте учётную запись: {{ settingsUrl }}\n"
            }
        }),
        json!({
            "slug": REMOVED_TEMPLATE,
            "adminTitle": "Sign-in method removed (account)",
            "variant": REMOVED_TEMPLATE,
            "title": "A way to sign in was removed",
            "subject": {"en": "A way to sign in was removed from your account", "ru": "Из вашей учётной записи удалён способ входа"},
            "body": {
                "en": "{{ removed }} can no longer be used to sign in to your account.\n\nIf it was not you, reset your password and check the account: {{ settingsUrl }}\n",
                "ru": "{{ removed }} больше нельзя использовать для входа в вашу учётную запись.\n\nЕсли это были не вы, сбросьте пароль и проверьте учётную запись: {{ settingsUrl }}\n"
            }
        }),
    ]
}

/// What a first proof of an address removed from its account.
pub(crate) struct Cleared {
    pub removed: Vec<crate::views::RemovedIdentity>,
    pub second_factor: bool,
}

/// The stored form of `code` mailed to `to` for identity `id`.
fn code_hash(id: Uuid, to: &str, code: &str) -> String {
    tokens::sha256_hex(&format!("{}.{to}.{code}", id.simple()))
}

fn wrong_code() -> Error {
    Error::invalid_field(
        "code",
        "is wrong or expired; check the latest mail or ask for a new code",
    )
}

fn closed() -> Error {
    Error::Conflict {
        message: "too many wrong codes for this address; confirm it with \"Forgot your password?\" instead".into(),
        fields: Default::default(),
    }
}

impl Auth {
    /// The account's settings in `language` (the site's screen, `/{lang}/rbac/subjects/settings`).
    pub(crate) fn settings_url(&self, language: &str) -> String {
        format!("{}/{language}/rbac/subjects/settings", self.cfg.public_url)
    }

    /// Mails a new code for `identity` to `to`: its address, or — with `change` — a new address
    /// that waits for the code (`pendingEmail`). The code's hash binds the identity and the
    /// address it went to, and is written in one compare-and-set with the address: a code mailed
    /// for one address never confirms another, however requests interleave.
    pub(crate) async fn send_verification(
        &self,
        identity: &IdentityRow,
        to: &str,
        change: bool,
        ctx: &Ctx,
    ) -> Result<Record> {
        let id = identity.id;
        self.limits.account(&format!("verify-mail-to:{to}")).await?;
        let code = format!("{:06}", rand::rng().random_range(0..1_000_000u32));
        let mut set = vec![
            ("verifyCode", Val::Text(code_hash(id, to, &code))),
            ("verifyExpiresAt", Val::Timestamp(now() + VERIFY_TTL)),
        ];
        let held = identity
            .pending_email
            .as_ref()
            .map_or(Val::Null, |p| Val::Text(p.clone()));
        let expect = if change {
            set.push(("pendingEmail", Val::Text(to.to_owned())));
            vec![]
        } else {
            vec![("pendingEmail", held)]
        };
        let mut tx = self.store.begin().await?;
        let out = repo::set_if(&mut tx.exec(), &self.e.identity, id, &set, &expect)
            .await?
            .ok_or_else(|| Error::Conflict {
                message: "the address changed meanwhile; ask for a new code".into(),
                fields: Default::default(),
            })?;
        tx.commit().await?;
        let url = format!(
            "{}/{}/rbac/subject/verify-email?identity={id}&code={code}",
            self.cfg.public_url, ctx.language
        );
        self.mailer
            .queue(Email {
                topic: "security",
                template_variant: VERIFY_TEMPLATE,
                to,
                language: &ctx.language,
                data: json!({"email": to}),
                secret: json!({"code": code, "verifyUrl": url}),
                ..Default::default()
            })
            .await?;
        Ok(out)
    }

    /// Refuses (403) while `subject` has an email identity that is not confirmed: what such an
    /// account may not do until it is.
    pub(crate) async fn require_confirmed_email(&self, subject: Uuid) -> Result<()> {
        let ids = self.identities(subject).await?;
        match ids
            .iter()
            .find(|r| r.provider == Provider::Email && !r.confirmed)
        {
            Some(r) => Err(Error::Forbidden(format!(
                "confirm your email address {} first: enter the code mailed to it (or ask for a new one in the account's settings)",
                r.label()
            ))),
            None => Ok(()),
        }
    }

    /// Sends a new code to the identity's address, or to the address waiting to replace it.
    pub async fn request_verification(
        &self,
        subject: Uuid,
        identity: Uuid,
        ctx: &Ctx,
    ) -> Result<crate::views::SentTo> {
        let row = self.owned_email_identity(subject, identity).await?;
        let to = match (&row.pending_email, &row.email) {
            (Some(p), _) => p.clone(),
            (None, Some(e)) if !row.confirmed() => e.clone(),
            _ => {
                return Err(Error::Conflict {
                    message: "this address is already confirmed".into(),
                    fields: Default::default(),
                });
            }
        };
        if row.verify_attempts() >= VERIFY_ATTEMPTS {
            return Err(closed());
        }
        self.limits
            .account(&format!("verify-mail:{identity}"))
            .await?;
        self.send_verification(&row, &to, false, ctx).await?;
        Ok(crate::views::SentTo {
            ok: true,
            sent_to: to,
        })
    }

    /// Confirms the identity's address — or, when a change is waiting, moves the identity to the
    /// new address — with the mailed code.
    pub async fn verify_identity(
        &self,
        subject: Uuid,
        identity: Uuid,
        code: &str,
        ctx: &Ctx,
    ) -> Result<Record> {
        let row = self.owned_email_identity(subject, identity).await?;
        let pending = row.pending_email.clone();
        if pending.is_none() && row.confirmed() {
            return Err(Error::Conflict {
                message: "this address is already confirmed".into(),
                fields: Default::default(),
            });
        }
        self.limits.account(&format!("verify:{identity}")).await?;
        let target = pending
            .clone()
            .or_else(|| row.email.clone())
            .unwrap_or_default();
        // Every try counts against the address, from whichever account or identity it comes.
        self.limits.code_tried(&target).await?;
        let attempts = row.verify_attempts();
        if attempts >= VERIFY_ATTEMPTS {
            return Err(closed());
        }
        let code = code.trim();
        if code.is_empty() || code.len() > 64 {
            return Err(wrong_code());
        }
        self.spend_try(identity, attempts).await?;
        let stored = self.matching_code(&row, identity, &target, code).await?;
        let old = row.email.clone();
        let out = self
            .confirm_address(identity, stored, attempts, pending.as_deref())
            .await?;
        if let (Some(new), Some(old)) = (&pending, &old) {
            tracing::info!(subject = %subject, event = "email_changed", "email changed");
            self.tell_email_change(old, new, true, ctx).await;
        } else {
            tracing::info!(subject = %subject, event = "email_verified", "email confirmed");
        }
        Ok(out)
    }

    /// Counts one try of a code on `identity` before the code is compared, by compare-and-set:
    /// concurrent tries cannot all pass the count (a lost race is refused, not let through).
    async fn spend_try(&self, identity: Uuid, attempts: i64) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let spent = repo::set_if(
            &mut tx.exec(),
            &self.e.identity,
            identity,
            &[("verifyAttempts", Val::Int(attempts + 1))],
            &[("verifyAttempts", Val::Int(attempts))],
        )
        .await?;
        tx.commit().await?;
        if spent.is_none() {
            return Err(Error::Conflict {
                message: "another confirmation of this address is under way; try again".into(),
                fields: Default::default(),
            });
        }
        Ok(())
    }

    /// The stored code of `identity` when `code` is it, for `target`, and has not expired.
    async fn matching_code(
        &self,
        row: &IdentityRow,
        identity: Uuid,
        target: &str,
        code: &str,
    ) -> Result<String> {
        let stored = self.secret_of(identity, "verifyCode").await?;
        let live = row.verify_expires_at.is_some_and(|x| x > now());
        let presented = code_hash(identity, target, code);
        stored
            .filter(|s| live && tokens::same(s, &presented))
            .ok_or_else(wrong_code)
    }

    /// Marks `identity` confirmed (at the `pending` address, when one waits) — only with the code
    /// `stored` just checked, for the address it was mailed to: two requests cannot both spend
    /// it, and a change of address since voids it.
    async fn confirm_address(
        &self,
        identity: Uuid,
        stored: String,
        attempts: i64,
        pending: Option<&str>,
    ) -> Result<Record> {
        // The right code gives its own try back; wrong ones stay counted.
        let mut set = vec![
            ("verifiedAt", Val::Timestamp(now())),
            ("verifyCode", Val::Null),
            ("verifyExpiresAt", Val::Null),
            ("verifyAttempts", Val::Int(attempts)),
            ("pendingEmail", Val::Null),
        ];
        if let Some(new) = pending {
            set.push(("email", Val::Text(new.to_owned())));
            set.push(("login", Val::Text(crate::service::login_key(EMAIL, new))));
        }
        let mut tx = self.store.begin().await?;
        let held = pending.map_or(Val::Null, |p| Val::Text(p.to_owned()));
        let out = repo::set_if(
            &mut tx.exec(),
            &self.e.identity,
            identity,
            &set,
            &[("verifyCode", Val::Text(stored)), ("pendingEmail", held)],
        )
        .await
        .map_err(|e| match e {
            Error::Conflict { .. } => {
                Error::conflict_field("email", "is already registered by another account")
            }
            other => other,
        })?
        .ok_or_else(wrong_code)?;
        tx.commit().await?;
        Ok(out)
    }

    /// `{email, password}` on an email identity (the password already checked): the new address
    /// waits for its code; the current one is told.
    pub(crate) async fn request_email_change(
        &self,
        row: &IdentityRow,
        email: &str,
        ctx: &Ctx,
    ) -> Result<Record> {
        let id = row.id;
        if row.email.as_deref() == Some(email) {
            return Err(Error::invalid_field(
                "email",
                "is already this account's address",
            ));
        }
        if self.identity_by_login(EMAIL, email).await?.is_some() {
            return Err(Error::conflict_field(
                "email",
                "is already registered by another account",
            ));
        }
        if row.verify_attempts() >= VERIFY_ATTEMPTS {
            return Err(closed());
        }
        self.limits.account(&format!("verify-mail:{id}")).await?;
        let out = self.send_verification(row, email, true, ctx).await?;
        if let Some(old) = &row.email {
            self.tell_email_change(old, email, false, ctx).await;
        }
        Ok(out)
    }

    /// Mails the current address about a change of email (asked for, or `done`). A mail that
    /// cannot be queued is logged.
    async fn tell_email_change(&self, to: &str, new: &str, done: bool, ctx: &Ctx) {
        let queued = self
            .mailer
            .queue(Email {
                topic: "security",
                template_variant: EMAIL_CHANGED_TEMPLATE,
                to,
                language: &ctx.language,
                data: json!({"newEmail": new, "done": done, "settingsUrl": self.settings_url(&ctx.language)}),
                ..Default::default()
            })
            .await;
        if let Err(e) = queued {
            tracing::error!(error = %e, "the email change notice could not be queued");
        }
    }

    async fn owned_email_identity(&self, subject: Uuid, identity: Uuid) -> Result<IdentityRow> {
        let found = self.owned_identity(subject, identity).await?;
        if found.provider != Provider::Email {
            return Err(Error::invalid_field(
                "provider",
                "only email-and-password identities are confirmed by mail",
            ));
        }
        IdentityRow::of(&found.row)
    }

    /// Inside a reset's transaction, once its code was accepted for `identity` (the row after the
    /// update): the address is proved. When it was not confirmed before, every other identity of
    /// `subject` and its second factor go, since the verified owner did not add them.
    pub(crate) async fn address_proved(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        identity: &IdentityRow,
    ) -> Result<Cleared> {
        let id = identity.id;
        let mut out = Cleared {
            removed: Vec::new(),
            second_factor: false,
        };
        let i = &self.e.identity;
        // Any reset ends a waiting change and its code, and reopens the code path.
        let cleared = [
            ("pendingEmail", Val::Null),
            ("verifyCode", Val::Null),
            ("verifyExpiresAt", Val::Null),
            ("verifyAttempts", Val::Int(0)),
        ];
        if identity.confirmed() {
            repo::set_if(exec, i, id, &cleared, &[]).await?;
            return Ok(out);
        }
        self.remove_other_identities(exec, subject, id, &mut out.removed)
            .await?;
        let before = repo::get(exec, &self.e.subject, subject)
            .await?
            .map(|s| SubjectRow::of(&s))
            .transpose()?;
        out.second_factor = before.is_some_and(|s| s.totp_enabled_at.is_some());
        repo::set_if(
            exec,
            &self.e.subject,
            subject,
            &crate::second_factor::turned_off(),
            &[],
        )
        .await?;
        let mut set = cleared.to_vec();
        set.push(("verifiedAt", Val::Timestamp(now())));
        repo::set_if(exec, i, id, &set, &[]).await?;
        if !out.removed.is_empty() || out.second_factor {
            tracing::warn!(%subject, removed = out.removed.len(), second_factor = out.second_factor, "a first proof of the address removed what was added before it");
        }
        Ok(out)
    }

    /// Removes every identity of `subject` but `id`, page after page (the list is never cut at a
    /// page), noting the first hundred in `removed`.
    async fn remove_other_identities(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        id: Uuid,
        removed: &mut Vec<crate::views::RemovedIdentity>,
    ) -> Result<()> {
        let i = &self.e.identity;
        loop {
            let links = FindQuery::all()
                .eq(&self.e.s2i, "subjectId", Val::Uuid(subject))?
                .filter(
                    &self.e.s2i,
                    "identityId",
                    stoa_kernel::query::Op::Ne,
                    stoa_kernel::query::FilterValue::One(Val::Uuid(id)),
                )?
                .take(1000);
            let others: Vec<(Uuid, Uuid)> =
                read_all::<SubjectIdentityRow>(&repo::find(exec, &self.e.s2i, &links).await?.0)?
                    .iter()
                    .filter_map(|l| Some((l.id, l.identity_id?)))
                    .collect();
            if others.is_empty() {
                break;
            }
            for (link, other) in others {
                match repo::delete(exec, i, other).await? {
                    Some(gone) if removed.len() < 100 => {
                        let gone = IdentityRow::of(&gone)?;
                        removed.push(crate::views::RemovedIdentity {
                            provider: gone.provider,
                            email: gone.email,
                            account: gone.account,
                        });
                    }
                    Some(_) => {}
                    // A link whose identity is gone: drop the link itself.
                    None => {
                        repo::delete(exec, &self.e.s2i, link).await?;
                    }
                }
            }
        }
        Ok(())
    }
}
