//! Confirmation tokens: a write's dry run answers one, and the write happens only when the same
//! caller sends the same tool and arguments back with it, once, before it expires.
//!
//! The token is `{random}.{expiry}`; what it is good for is the key it is kept under:
//! `mcp:{random}:{sha256(caller, tool, canonical arguments)}`. A token brought with other
//! arguments, by another caller, twice or late finds no key and is refused. Kept in this process
//! on SQLite (one instance), in the shared table every instance reads on PostgreSQL.

use std::time::Duration;

use rand::distr::{Alphanumeric, SampleString};
use serde_json::Value;
use sha2::{Digest, Sha256};
use stoa_kernel::{Error, Result};
use stoa_store::cluster::{Issued, Shared, SingleUse};

/// Most confirmations waiting in this process (each is a few dozen bytes).
const MAX_WAITING: usize = 100_000;

pub struct Confirmations(SingleUse);

/// Why a confirmation was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    Malformed,
    Expired,
    /// Used already, or for another tool, other arguments or another caller.
    Spent,
}

impl Refused {
    pub fn message(&self) -> &'static str {
        match self {
            Refused::Malformed => {
                "the confirmation is not one this server gave; call the tool without it first (a dry run) and send back the confirmation it answers"
            }
            Refused::Expired => {
                "the confirmation has expired; call the tool without it again for a new dry run"
            }
            Refused::Spent => {
                "the confirmation was used already or was given for other arguments; call the tool without it again for a new dry run"
            }
        }
    }
}

/// The arguments with every object's keys sorted: the same call hashes the same whatever order
/// its client wrote the keys in.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// What a confirmation is for: the caller, the tool and its arguments (without the confirmation).
pub fn purpose(principal: &str, tool: &str, args: &Value) -> String {
    let mut h = Sha256::new();
    h.update(principal.as_bytes());
    h.update([0]);
    h.update(tool.as_bytes());
    h.update([0]);
    h.update(canonical(args).to_string().as_bytes());
    hex::encode(h.finalize())
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Confirmations {
    pub fn new(ttl: Duration, shared: Option<Shared>) -> Self {
        Self(SingleUse::new("mcp", ttl, MAX_WAITING, shared))
    }

    /// A new token for `purpose`, and the moment (unix seconds) it expires.
    pub async fn issue(&self, purpose: &str) -> Result<(String, u64)> {
        let random = Alphanumeric.sample_string(&mut rand::rng(), 24);
        let expires = unix_now() + self.0.ttl().as_secs().max(1);
        match self.0.issue(&format!("{random}:{purpose}")).await? {
            Issued::Kept => Ok((format!("{random}.{expires}"), expires)),
            Issued::Collided => Err(Error::Unavailable(
                "a confirmation collided; try the dry run again".into(),
            )),
            Issued::Full => Err(Error::TooManyRequests {
                message:
                    "too many writes wait for their confirmation; confirm or let them expire first"
                        .into(),
                retry_after: 60,
            }),
        }
    }

    /// Spends `token` for `purpose`: Ok once, then refused.
    pub async fn spend(
        &self,
        token: &str,
        purpose: &str,
    ) -> Result<std::result::Result<(), Refused>> {
        let Some((random, expires)) = token.split_once('.') else {
            return Ok(Err(Refused::Malformed));
        };
        let (Ok(expires), true) = (
            expires.parse::<u64>(),
            random.len() == 24 && random.bytes().all(|b| b.is_ascii_alphanumeric()),
        ) else {
            return Ok(Err(Refused::Malformed));
        };
        if expires <= unix_now() {
            return Ok(Err(Refused::Expired));
        }
        Ok(if self.0.spend(&format!("{random}:{purpose}")).await? {
            Ok(())
        } else {
            Err(Refused::Spent)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_token_is_good_once_for_its_own_call() {
        let c = Confirmations::new(Duration::from_secs(60), None);
        let p = purpose(
            "key:1",
            "updateBlogArticle",
            &json!({"id": "x", "data": {"a": 1, "b": 2}}),
        );
        // The same arguments in another key order are the same call.
        let same = purpose(
            "key:1",
            "updateBlogArticle",
            &json!({"data": {"b": 2, "a": 1}, "id": "x"}),
        );
        assert_eq!(p, same);
        let other = purpose(
            "key:1",
            "updateBlogArticle",
            &json!({"id": "x", "data": {"a": 2, "b": 2}}),
        );
        let someone_else = purpose(
            "key:2",
            "updateBlogArticle",
            &json!({"id": "x", "data": {"a": 1, "b": 2}}),
        );
        let (t, _) = c.issue(&p).await.unwrap_or_default();
        assert_eq!(c.spend(&t, &other).await.ok(), Some(Err(Refused::Spent)));
        assert_eq!(
            c.spend(&t, &someone_else).await.ok(),
            Some(Err(Refused::Spent))
        );
        assert_eq!(c.spend(&t, &same).await.ok(), Some(Ok(())));
        assert_eq!(c.spend(&t, &same).await.ok(), Some(Err(Refused::Spent)));
        assert_eq!(
            c.spend("nonsense", &same).await.ok(),
            Some(Err(Refused::Malformed))
        );
        let (random, _) = t.split_once('.').unwrap_or_default();
        assert_eq!(
            c.spend(&format!("{random}.1"), &same).await.ok(),
            Some(Err(Refused::Expired))
        );
    }
}
