//! Identities: listing, adding (email or wallet), changing, verifying the password of, and
//! deleting an account's ways to sign in; mail to an account's addresses.

use super::*;

impl Auth {
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
    pub(super) async fn tell_linked(
        &self,
        subject: Uuid,
        provider: &str,
        identity: &Record,
        ctx: &Ctx,
    ) {
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
}
