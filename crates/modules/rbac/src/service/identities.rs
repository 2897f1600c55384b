//! Identities: listing, adding (email or wallet), changing, verifying the password of, and
//! deleting an account's ways to sign in; mail to an account's addresses.

use super::*;
use crate::rows::{IdentityRow, SessionRow, SubjectIdentityRow, read_all};

impl Auth {
    /// The identities linked to `subject`.
    pub async fn identities(&self, subject: Uuid) -> Result<Vec<Identity>> {
        let links: Vec<SubjectIdentityRow> = read_all(
            &self
                .store
                .find_by(&self.e.s2i, &[("subjectId", Val::Uuid(subject))], 1000)
                .await?,
        )?;
        let mut out = Vec::with_capacity(links.len());
        for l in links {
            if let Some(id) = l.identity_id {
                match self.store.get(&self.e.identity, id).await {
                    Ok(r) => out.push(Identity::try_from(r)?),
                    Err(Error::NotFound { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(out)
    }

    pub(crate) async fn owned_identity(&self, subject: Uuid, identity: Uuid) -> Result<Identity> {
        self.identities(subject)
            .await?
            .into_iter()
            .find(|r| r.id == identity)
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

    /// Adds an email-and-password identity, or links a wallet or a Telegram account.
    /// `own_session`: the caller's session when it changes its own account (an admin acting
    /// for another account passes `None`).
    pub async fn add_identity(
        &self,
        subject: Uuid,
        body: &NewIdentity,
        ctx: &Ctx,
        own_session: Option<Uuid>,
    ) -> Result<Record> {
        self.limits.ip(&ctx.ip).await?;
        self.limits
            .account(&format!("identity-change:{subject}"))
            .await?;
        let (provider, row) = match body {
            NewIdentity::Email { email, password } => {
                let row = self
                    .add_email_identity(subject, email, password, own_session)
                    .await?;
                (Provider::Email, row)
            }
            NewIdentity::Wallet {
                message,
                signature,
                address,
            } => {
                let row = self
                    .link_wallet(subject, message, signature, address, own_session)
                    .await?;
                (Provider::Wallet, row)
            }
            NewIdentity::Telegram(login) => {
                let row = self.link_telegram(subject, login).await?;
                (Provider::Telegram, row)
            }
        };
        let identity = IdentityRow::of(&row)?;
        if provider == Provider::Email {
            if let Some(email) = &identity.email {
                self.send_verification(&identity, email, false, ctx).await?;
            }
        } else {
            self.tell_linked(subject, provider, &identity, ctx).await;
        }
        Ok(row)
    }

    /// Adds an email-and-password identity (unconfirmed) to `subject`, which has none yet.
    async fn add_email_identity(
        &self,
        subject: Uuid,
        email: &str,
        password: &str,
        own_session: Option<Uuid>,
    ) -> Result<Record> {
        let email = normalise_email("email", email)?;
        password::check_new("password", password)?;
        let current = self.identities(subject).await?;
        // A password sign-in added next to another sign-in method would outlive a stolen
        // session: it takes a recent sign-in.
        if current.iter().any(Identity::signs_in) {
            self.require_recent_sign_in(own_session).await?;
        }
        if current.iter().any(|i| i.provider == Provider::Email) {
            return Err(Error::Conflict {
                message: "this account already has an email identity; change its email instead"
                    .into(),
                fields: Default::default(),
            });
        }
        let hash = self.hasher.hash(password).await?;
        self.insert_identity(subject, EMAIL, &email, Some(hash), false)
            .await
    }

    /// Links the wallet that signed `message` to `subject` (a confirmed account).
    async fn link_wallet(
        &self,
        subject: Uuid,
        message: &str,
        signature: &str,
        address: &str,
        own_session: Option<Uuid>,
    ) -> Result<Record> {
        self.require_confirmed_email(subject).await?;
        if self
            .identities(subject)
            .await?
            .iter()
            .any(Identity::signs_in)
        {
            self.require_recent_sign_in(own_session).await?;
        }
        let addr = self.verify_wallet(message, signature, address).await?;
        self.insert_identity(subject, WALLET, &addr, None, true)
            .await
    }

    /// Links the Telegram account the Login Widget signed for to `subject` (a confirmed account).
    async fn link_telegram(&self, subject: Uuid, login: &bodies::TelegramLogin) -> Result<Record> {
        self.require_confirmed_email(subject).await?;
        let Some(token) = &self.cfg.telegram_bot_token else {
            return Err(Error::invalid_field(
                "provider",
                "this site has no Telegram bot to link accounts with",
            ));
        };
        let id = crate::telegram_login::verify(&login.fields(), token, now().unix_timestamp())?;
        self.insert_identity(subject, TELEGRAM, &id, None, true)
            .await
    }

    /// Writes an identity of `subject`, in a transaction of its own.
    async fn insert_identity(
        &self,
        subject: Uuid,
        provider: &str,
        key: &str,
        hash: Option<String>,
        verified: bool,
    ) -> Result<Record> {
        let mut tx = self.store.begin().await?;
        let row = self
            .create_identity(&mut tx.exec(), subject, provider, key, hash, verified)
            .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Mails the account's addresses that a wallet or Telegram was linked to it (so a link the
    /// owner did not make is noticed). A mail that cannot be written is logged.
    pub(super) async fn tell_linked(
        &self,
        subject: Uuid,
        provider: Provider,
        identity: &IdentityRow,
        ctx: &Ctx,
    ) {
        let what = if provider == Provider::Wallet {
            "wallet"
        } else {
            "telegram"
        };
        let data = json!({"kind": what, "account": identity.account, "settingsUrl": self.settings_url(&ctx.language)});
        self.mail_security_notice(subject, LINKED_TEMPLATE, data, ctx)
            .await;
    }

    /// Mails `subject`'s addresses a security notice (`template` with `data`), in the request's
    /// language; a mail that cannot be written is logged.
    pub(super) async fn mail_security_notice(
        &self,
        subject: Uuid,
        template: &str,
        data: Value,
        ctx: &Ctx,
    ) {
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
                    template_variant: template,
                    to: &to,
                    language: &ctx.language,
                    data: data.clone(),
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
    pub async fn notify(&self, subject: Uuid, body: &Notify) -> Result<crate::views::Queued> {
        let n = &body.notification;
        let topic = n.topic.slug.as_str();
        let template = n.template.variant.as_str();
        for (v, field) in [
            (topic, "notification.topic.slug"),
            (template, "notification.template.variant"),
        ] {
            if v.is_empty() {
                return Err(Error::invalid_field(field, "is required"));
            }
        }
        let delivery = &n.notification;
        let channel = match delivery.method {
            bodies::Method::Email => stoa_notification::mail::Channel::Email,
            bodies::Method::Telegram => stoa_notification::mail::Channel::Telegram,
        };
        let data = notification_data(delivery.data.as_ref())?;
        let send_after = send_after_of(delivery.send_after.as_deref())?;
        self.mailer
            .check_setup(
                topic,
                template,
                ["notification.topic.slug", "notification.template.variant"],
            )
            .await?;
        let targets = self.notify_targets(subject, channel).await?;
        let language = self
            .notify_language(subject, body.language.as_deref())
            .await?;
        let mut ids = Vec::new();
        for to in &targets {
            ids.push(
                self.mailer
                    .queue(Email {
                        topic,
                        template_variant: template,
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
        Ok(crate::views::Queued {
            queued: ids.len(),
            notifications: ids,
        })
    }

    /// Where a notification to `subject` goes on `channel`: its addresses or Telegram chats
    /// (refused when it has none).
    async fn notify_targets(
        &self,
        subject: Uuid,
        channel: stoa_notification::mail::Channel,
    ) -> Result<Vec<String>> {
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
        Ok(targets)
    }

    /// The language a notification to `subject` is written in: the one asked for, else the
    /// account's, else English.
    async fn notify_language(&self, subject: Uuid, asked: Option<&str>) -> Result<String> {
        let known = match asked {
            Some(_) => None,
            None => self.subjects.language_of(subject).await?,
        };
        Ok(asked.or(known.as_deref()).unwrap_or("en").to_owned())
    }

    /// `{password, newPassword}` changes the password (other sessions are revoked);
    /// `{email, password}` asks to change the email: the new address gets a code, and the change
    /// happens when it comes back ([`Auth::verify_identity`]).
    pub async fn update_identity(
        &self,
        subject: Uuid,
        identity: Uuid,
        keep_session: Option<Uuid>,
        body: &IdentityChange,
        ctx: &Ctx,
    ) -> Result<Record> {
        let found = self.owned_identity(subject, identity).await?;
        if found.provider != Provider::Email {
            return Err(Error::invalid_field(
                "provider",
                "only email-and-password identities can be changed",
            ));
        }
        match body.change()? {
            Change::Password(new) => {
                self.change_password(subject, identity, keep_session, &body.password, new)
                    .await
            }
            Change::Email(email) => {
                let email = normalise_email("email", email)?;
                self.check_password(identity, "password", &body.password)
                    .await?;
                self.request_email_change(&IdentityRow::of(&found.row)?, &email, ctx)
                    .await
            }
        }
    }

    /// Sets a new password after checking the current one; the account's other sessions end.
    async fn change_password(
        &self,
        subject: Uuid,
        identity: Uuid,
        keep_session: Option<Uuid>,
        current: &str,
        new: &str,
    ) -> Result<Record> {
        password::check_len("newPassword", new)?;
        self.check_password(identity, "password", current).await?;
        password::check_new("newPassword", new)?;
        let hash = self.hasher.hash(new).await?;
        let i = &self.e.identity;
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
        Ok(out)
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
        let found = all
            .iter()
            .find(|r| r.id == identity)
            .cloned()
            .ok_or_else(|| {
                Error::not_found(format!(
                    "rbac.identity {identity} not found for this subject"
                ))
            })?;
        if found.signs_in() {
            if !all.iter().any(|r| r.id != identity && r.signs_in()) {
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
        if found.signs_in() {
            let mut to = self.subjects.emails(subject).await.unwrap_or_default();
            if let Some(e) = &found.email
                && !to.contains(e)
            {
                to.push(e.clone());
            }
            for address in to {
                let queued = self
                    .mailer
                    .queue(Email {
                        topic: "security",
                        template_variant: crate::verification::REMOVED_TEMPLATE,
                        to: &address,
                        language: &ctx.language,
                        data: json!({"removed": found.label(), "settingsUrl": self.settings_url(&ctx.language)}),
                        ..Default::default()
                    })
                    .await;
                if let Err(e) = queued {
                    tracing::error!(%subject, error = %e, "the removal notice could not be queued");
                }
            }
        }
        Ok(found.row)
    }

    /// 403 unless `session` (the caller's own) was opened by a sign-in in the last
    /// [`RECENT_SIGN_IN`]: changes to the ways an account signs in need a fresh proof, not just a
    /// session (which may be stolen). `None` (an admin acting for another account) passes.
    pub(crate) async fn require_recent_sign_in(&self, session: Option<Uuid>) -> Result<()> {
        let Some(sid) = session else {
            return Ok(());
        };
        let row = SessionRow::of(&self.store.get(&self.e.session, sid).await?)?;
        if row
            .created_at
            .as_deref()
            .and_then(parse_timestamp)
            .is_some_and(|t| t + RECENT_SIGN_IN > now())
        {
            return Ok(());
        }
        Err(Error::Forbidden(
            "sign in again to change how this account signs in (a sign-in in the last 15 minutes is needed)"
                .into(),
        ))
    }

    /// Admin: creates an email-and-password identity for an existing subject, or a new subject
    /// with it (`subjectId` absent).
    pub async fn admin_email_identity(&self, body: &AdminEmailIdentity) -> Result<Record> {
        let email = normalise_email("email", &body.email)?;
        password::check_new("password", &body.password)?;
        let hash = self.hasher.hash(&body.password).await?;
        let mut tx = self.store.begin().await?;
        let row = {
            let mut exec = tx.exec();
            let subject = match body.subject_id {
                Some(s) => s,
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
}

/// A notification's `data`: a JSON string (as the original sends it) or an object.
fn notification_data(data: Option<&Value>) -> Result<Value> {
    match data {
        Some(Value::String(s)) => serde_json::from_str(s)
            .map_err(|_| Error::invalid_field("notification.notification.data", "is not JSON")),
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        None | Some(Value::Null) => Ok(json!({})),
        Some(_) => Err(Error::invalid_field(
            "notification.notification.data",
            "must be an object",
        )),
    }
}

/// When a notification may be sent (`None`: now).
fn send_after_of(raw: Option<&str>) -> Result<Option<OffsetDateTime>> {
    match raw {
        Some(t) => Ok(Some(parse_timestamp(t).ok_or_else(|| {
            Error::invalid_field(
                "notification.notification.sendAfter",
                "must be a time (RFC 3339)",
            )
        })?)),
        None => Ok(None),
    }
}
