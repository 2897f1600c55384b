//! Sign-in with an OpenID Connect provider (Google or another): which account a provider's
//! subject signs in to, with the same takeover rules as wallets and Telegram.
//!
//! - A subject seen before signs in to the account it is linked to.
//! - From a signed-in session (the account page's "link"), it is linked to that account.
//! - Otherwise, an address the provider says it verified finds the account whose email
//!   identity holds that address **confirmed**, and is linked to it. An unconfirmed one is
//!   refused (whoever registered it never proved it theirs), and so is an address the provider
//!   did not verify: it is not used at all.
//! - Anyone else gets a new account.

use super::*;
use crate::oidc_login::{Claims, account_key};

/// The identity provider of OpenID Connect sign-ins.
pub const OIDC: &str = "oidc";
/// The mail telling an account that a provider's sign-in was linked to it.
pub const OIDC_LINKED_TEMPLATE: &str = "rbac-oidc-linked";

/// What a callback came to.
pub enum OidcOutcome {
    SignedIn(SignIn),
    /// Linked to the signed-in account that asked.
    Linked,
}

/// The mail about a linked provider, in English and Russian.
pub fn oidc_templates() -> Vec<Value> {
    vec![json!({
        "slug": OIDC_LINKED_TEMPLATE,
        "adminTitle": "Sign-in with a provider linked (account)",
        "variant": OIDC_LINKED_TEMPLATE,
        "title": "A sign-in method was linked",
        "subject": {"en": "Sign-in with {{ provider }} was added to your account", "ru": "К вашей учётной записи добавлен вход через {{ provider }}"},
        "body": {
            "en": "Your account can now be signed in to with {{ provider }} ({{ account }}).\n\nIf it was not you, remove it and change your password: {{ settingsUrl }}\n",
            "ru": "Теперь в вашу учётную запись можно войти через {{ provider }} ({{ account }}).\n\nЕсли это были не вы, отвяжите этот способ входа и смените пароль: {{ settingsUrl }}\n"
        }
    })]
}

impl Auth {
    /// The account `claims` sign in to (or, with `link`, the signed-in account they are linked
    /// to).
    pub async fn oidc_sign_in(
        &self,
        issuer: &str,
        provider_name: &str,
        claims: &Claims,
        link: Option<Uuid>,
        ctx: &Ctx,
    ) -> Result<OidcOutcome> {
        let key = account_key(issuer, &claims.subject);
        let account = format!("oidc:{key}");
        self.limits.before_sign_in(&ctx.ip, &account).await?;
        let label = claims
            .email
            .clone()
            .or_else(|| claims.name.clone())
            .unwrap_or_else(|| claims.subject.clone());
        if let Some(i) = self.identity_by_login(OIDC, &key).await?
            && let Some(subject) = self.subject_of(i.id).await?
        {
            return match link {
                Some(l) if l != subject => Err(Error::conflict_field(
                    "provider",
                    format!("this {provider_name} account is already linked to another account"),
                )),
                Some(_) => Ok(OidcOutcome::Linked),
                None => {
                    self.limits.succeeded(&ctx.ip, &account).await;
                    tracing::info!(subject = %subject, event = "login", provider = OIDC, "OIDC sign-in accepted");
                    Ok(OidcOutcome::SignedIn(
                        self.first_factor_passed(subject, ctx, (i.id, None)).await?,
                    ))
                }
            };
        }
        if let Some(subject) = link {
            self.link_oidc(subject, &key, &label, claims, provider_name, ctx)
                .await?;
            return Ok(OidcOutcome::Linked);
        }
        if let Some(email) = &claims.email
            && let Some(i) = self.identity_by_login(EMAIL, email).await?
        {
            if !i.confirmed() {
                return Err(Error::conflict_field(
                    "email",
                    format!(
                        "an account with {email} exists, but its address was never confirmed: sign in with its password, confirm the address, then add {provider_name} from your account page"
                    ),
                ));
            }
            let Some(subject) = self.subject_of(i.id).await? else {
                return Err(Error::internal("an email identity without its account"));
            };
            let row = self
                .link_oidc(subject, &key, &label, claims, provider_name, ctx)
                .await?;
            tracing::info!(subject = %subject, event = "login", provider = OIDC, "OIDC sign-in linked by a confirmed address");
            return Ok(OidcOutcome::SignedIn(
                self.first_factor_passed(subject, ctx, (Record::must_id(&row)?, None))
                    .await?,
            ));
        }
        let roles = self.registration_roles(&[]).await?;
        let t = self
            .new_account(Some((OIDC, &key, None, true)), &roles, ctx)
            .await?;
        // What the account page shows for it: the address, else the name (not issuer#subject).
        if let Some(i) = self.identity_by_login(OIDC, &key).await? {
            self.describe_oidc(i.id, &label, claims).await?;
        }
        tracing::info!(subject = %t.subject, event = "registration", provider = OIDC, "account registered");
        Ok(OidcOutcome::SignedIn(SignIn::Done(t)))
    }

    /// Links the provider's subject `key` to `subject` and tells the account's addresses.
    async fn link_oidc(
        &self,
        subject: Uuid,
        key: &str,
        label: &str,
        claims: &Claims,
        provider_name: &str,
        ctx: &Ctx,
    ) -> Result<Record> {
        let mut tx = self.store.begin().await?;
        let row = self
            .create_identity(&mut tx.exec(), subject, OIDC, key, None, true)
            .await?;
        tx.commit().await?;
        let row = self
            .describe_oidc(Record::must_id(&row)?, label, claims)
            .await?;
        let data = json!({"provider": provider_name, "account": label, "settingsUrl": self.settings_url(&ctx.language)});
        self.mail_security_notice(subject, OIDC_LINKED_TEMPLATE, data, ctx)
            .await;
        Ok(row)
    }

    /// Names an OIDC identity by `label`, with its verified address.
    async fn describe_oidc(&self, identity: Uuid, label: &str, claims: &Claims) -> Result<Record> {
        let mut set = vec![("account", Val::Text(label.chars().take(200).collect()))];
        if let Some(e) = &claims.email {
            set.push(("email", Val::Text(e.clone())));
        }
        let mut tx = self.store.begin().await?;
        let row = repo::set_if(&mut tx.exec(), &self.e.identity, identity, &set, &[])
            .await?
            .ok_or_else(|| Error::internal("a new identity vanished"))?;
        tx.commit().await?;
        Ok(row)
    }
}
