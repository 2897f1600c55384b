//! API keys: tokens an admin makes for an agent or a script. A key acts for its account with no
//! more than the key's roles that the account holds, so taking a role from the account takes it
//! from the key too. Only the token's SHA-256 is kept; the token is shown once, when made.

use super::*;
use crate::rows::{ApiKeyRow, KeyRoleRow, read_all};
use rand::distr::{Alphanumeric, SampleString};

/// Every API key token starts with this (and so is never mistaken for an access JWT).
pub const KEY_PREFIX: &str = "stoa_ak_";
/// Random characters after the prefix; the key's id (32 hex digits) follows them.
const SECRET_LEN: usize = 32;
/// How often the key's "last used" is written (a busy agent does not write on every call).
const USE_NOTED_EVERY: time::Duration = time::Duration::minutes(1);

/// What a valid API key says about its caller.
#[derive(Clone, Copy, Debug)]
pub struct KeyAccess {
    pub key: Uuid,
    pub subject: Uuid,
}

/// The key id a token names: `stoa_ak_` + 32 random characters + the id's 32 hex digits.
fn key_id(token: &str) -> Option<Uuid> {
    let rest = token.strip_prefix(KEY_PREFIX)?;
    if rest.len() != SECRET_LEN + 32 || !rest.is_ascii() {
        return None;
    }
    Uuid::try_parse(&rest[SECRET_LEN..]).ok()
}

impl Auth {
    /// The key and account of a valid token: the key exists, is active, has not expired, and its
    /// hash matches. `None` is a 401 for the caller.
    pub async fn verify_api_key(&self, token: &str) -> Result<Option<KeyAccess>> {
        let Some(id) = key_id(token) else {
            return Ok(None);
        };
        let Some(row) = self
            .store
            .find_by(&self.e.key, &[("id", Val::Uuid(id))], 1)
            .await?
            .first()
            .map(ApiKeyRow::of)
            .transpose()?
        else {
            return Ok(None);
        };
        // The hash is a secret field: read apart, never part of a record.
        let stored = {
            let mut c = self.store.db.read().await?;
            repo::read_text(&mut c.exec(), &self.e.key, id, &["tokenHash"])
                .await?
                .and_then(|v| v.into_iter().next().flatten())
        };
        let hash = tokens::sha256_hex(token);
        let matches = stored.is_some_and(|h| tokens::same(&h, &hash));
        let active = row.is_active.unwrap_or(false);
        let current = row.expires_at.is_none_or(|at| at > now());
        let (true, true, true, Some(subject)) = (matches, active, current, row.subject_id) else {
            tracing::info!(event = "api_key_rejected", key = %id, "an API key was refused");
            return Ok(None);
        };
        if row
            .last_used_at
            .is_none_or(|at| now() - at > USE_NOTED_EVERY)
        {
            // Bookkeeping: a failure to note the use never refuses the call.
            let e = &self.e.key;
            if let Ok(mut tx) = self.store.db.begin().await {
                let noted = match idx(e, "lastUsedAt") {
                    Ok(i) => {
                        repo::update_if(&mut tx.exec(), e, id, &[(i, Val::Timestamp(now()))], &[])
                            .await
                            .is_ok()
                    }
                    Err(_) => false,
                };
                if noted {
                    let _ = tx.commit().await;
                }
            }
        }
        Ok(Some(KeyAccess { key: id, subject }))
    }

    /// The roles a key call has: the key's roles that its account holds (cached until either
    /// link table changes).
    pub async fn key_roles(&self, key: Uuid, subject: Uuid) -> Result<Arc<Vec<Uuid>>> {
        let v = (
            self.store.version("rbac.api-keys-to-roles"),
            self.store.version("rbac.subjects-to-roles"),
        );
        if let Ok(g) = self.key_roles.read()
            && g.0 == v
            && let Some(r) = g.1.get(&(key, subject))
        {
            return Ok(r.clone());
        }
        let roles = self.key_roles_read(key, subject).await?;
        if let Ok(mut g) = self.key_roles.write() {
            if g.0 != v || g.1.len() > 10_000 {
                *g = (v, HashMap::new());
            }
            g.1.insert((key, subject), roles.clone());
        }
        Ok(roles)
    }

    async fn key_roles_read(&self, key: Uuid, subject: Uuid) -> Result<Arc<Vec<Uuid>>> {
        let held = self.roles_of(subject).await?;
        let given: Vec<KeyRoleRow> = read_all(
            &self
                .store
                .find_by(&self.e.k2r, &[("apiKeyId", Val::Uuid(key))], 1000)
                .await?,
        )?;
        Ok(Arc::new(
            given
                .iter()
                .filter_map(|r| r.role_id)
                .filter(|r| held.contains(r))
                .collect(),
        ))
    }

    /// The key's name, for the audit log (empty when it cannot be read).
    pub async fn key_title(&self, id: Uuid) -> String {
        match self
            .store
            .find_by(&self.e.key, &[("id", Val::Uuid(id))], 1)
            .await
        {
            Ok(rows) => rows
                .first()
                .and_then(|r| ApiKeyRow::of(r).ok())
                .and_then(|k| k.title)
                .unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Makes a new token for key `id` (the old one stops working) and answers it with the
    /// beginning shown in the admin from now on. The token itself is not kept.
    pub async fn issue_api_key(&self, id: Uuid) -> Result<(String, String)> {
        let secret = Alphanumeric.sample_string(&mut rand::rng(), SECRET_LEN);
        let token = format!("{KEY_PREFIX}{secret}{}", id.simple());
        let shown = format!("{KEY_PREFIX}{}…", &secret[..6]);
        let e = &self.e.key;
        let mut tx = self.store.begin().await?;
        let done = repo::update_if(
            &mut tx.exec(),
            e,
            id,
            &[
                (idx(e, "tokenHash")?, Val::Text(tokens::sha256_hex(&token))),
                (idx(e, "tokenPrefix")?, Val::Text(shown.clone())),
                (idx(e, "lastUsedAt")?, Val::Null),
            ],
            &[],
        )
        .await?;
        if done.is_none() {
            return Err(Error::not_found("no such API key"));
        }
        // In the audit log under whoever made it: the hash by its field name only.
        if let Some(who) = stoa_store::audit::current() {
            stoa_store::audit::event_in(
                &mut tx.exec(),
                &who,
                "rbac.api-key",
                Some(id),
                "a new token was made for the API key",
                Map::from_iter([(
                    "tokenPrefix".to_owned(),
                    json!({"before": null, "after": shown}),
                )]),
                &["tokenHash"],
            )
            .await?;
        }
        tx.commit().await?;
        tracing::info!(event = "api_key_issued", key = %id, "an API key token was made");
        Ok((token, shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_key_only_in_its_exact_form() {
        let id = Uuid::now_v7();
        let secret = "a".repeat(SECRET_LEN);
        let token = format!("{KEY_PREFIX}{secret}{}", id.simple());
        assert_eq!(key_id(&token), Some(id));
        assert_eq!(key_id(&format!("{token}0")), None);
        assert_eq!(key_id(&token[1..]), None);
        assert_eq!(
            key_id(&format!("{KEY_PREFIX}{secret}{}", "z".repeat(32))),
            None
        );
        // A multi-byte character where the split falls is refused, not a panic.
        assert_eq!(
            key_id(&format!(
                "{KEY_PREFIX}{}é{}",
                "a".repeat(31),
                "0".repeat(31)
            )),
            None
        );
    }
}
