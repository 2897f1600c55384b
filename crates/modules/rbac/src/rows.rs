//! The rows the account flows reason about, as types: an identity (its provider an enum, its
//! address, account and confirmation as fields) and a session as its owner sees it. The
//! permission row is [`crate::policy::Perm`]. A typed identity still answers with its record, so
//! the wire shape stays the declared `RbacIdentity` and never gains a secret.

use schemars::JsonSchema;
use serde::{Serialize, Serializer};
use stoa_kernel::{Error, Result};
use stoa_store::Record;
use uuid::Uuid;

use crate::service::{ADDRESS, EMAIL, OIDC, TELEGRAM, WALLET};

/// How an identity proves who it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// An email address and a password.
    Email,
    /// An Ethereum wallet (Sign-In with Ethereum).
    Wallet,
    /// A Telegram account (notifications; linked with the Login Widget).
    Telegram,
    /// An account at an OpenID Connect provider (Google or another).
    Oidc,
    /// An address given at checkout (`email`): a mail target, not a way to sign in.
    Address,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => EMAIL,
            Self::Wallet => WALLET,
            Self::Telegram => TELEGRAM,
            Self::Oidc => OIDC,
            Self::Address => ADDRESS,
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            EMAIL => Some(Self::Email),
            WALLET => Some(Self::Wallet),
            TELEGRAM => Some(Self::Telegram),
            OIDC => Some(Self::Oidc),
            ADDRESS => Some(Self::Address),
            _ => None,
        }
    }
}

/// One `rbac.identity` row.
#[derive(Clone, Debug)]
pub struct Identity {
    pub id: Uuid,
    pub provider: Provider,
    pub email: Option<String>,
    /// A wallet's address or a Telegram user id.
    pub account: Option<String>,
    /// The address was proved (by a mailed code, or the link's signature).
    pub confirmed: bool,
    /// The record as read (what the API answers with).
    pub row: Record,
}

impl Identity {
    /// Is this a way to sign in (a password or a wallet)? Telegram and checkout addresses
    /// (notifications only) are not.
    pub fn signs_in(&self) -> bool {
        matches!(
            self.provider,
            Provider::Email | Provider::Wallet | Provider::Oidc
        )
    }

    /// The address or account it names (what a notice about it shows).
    pub fn label(&self) -> &str {
        self.email
            .as_deref()
            .or(self.account.as_deref())
            .unwrap_or_default()
    }
}

impl TryFrom<Record> for Identity {
    type Error = Error;

    fn try_from(row: Record) -> Result<Self> {
        let provider = row
            .text("provider")
            .and_then(Provider::parse)
            .ok_or_else(|| {
                Error::internal(format!(
                    "rbac.identity {:?} has an unknown provider {:?}",
                    row.id(),
                    row.text("provider")
                ))
            })?;
        Ok(Self {
            id: row.must_id()?,
            provider,
            email: row.text("email").map(str::to_owned),
            account: row.text("account").map(str::to_owned),
            confirmed: row.text("verifiedAt").is_some(),
            row,
        })
    }
}

impl Serialize for Identity {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.row.serialize(s)
    }
}

/// A live session as its account sees it (`subjectSessions`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacSessionView")]
pub struct SessionView {
    pub id: Uuid,
    #[schemars(extend("format" = "date-time"))]
    pub created_at: String,
    /// The last token refresh (within the access-token lifetime of the last use)
    #[schemars(extend("format" = "date-time"))]
    pub last_used_at: String,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
    pub second_factor: bool,
    /// The session of this request
    pub current: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoa_store::record::Cell;

    fn row(provider: &str) -> Record {
        Record(vec![
            ("id", Cell::Text(Uuid::from_u128(7).to_string())),
            ("email", Cell::Text("a@example.com".into())),
            ("account", Cell::Null),
            ("provider", Cell::Text(provider.into())),
            ("verifiedAt", Cell::Null),
        ])
    }

    #[test]
    fn an_identity_reads_its_provider_and_answers_with_its_record() {
        let i = Identity::try_from(row(EMAIL)).unwrap();
        assert_eq!(i.provider, Provider::Email);
        assert!(i.signs_in() && !i.confirmed);
        assert_eq!(i.label(), "a@example.com");
        assert_eq!(serde_json::to_value(&i).unwrap(), i.row.to_json());
        assert!(!Identity::try_from(row(TELEGRAM)).unwrap().signs_in());
        // Every provider the declaration allows is read.
        for p in crate::IDENTITY_PROVIDERS {
            assert_eq!(Identity::try_from(row(p)).unwrap().provider.as_str(), *p);
        }
        assert!(!Identity::try_from(row("email")).unwrap().signs_in());
        // A provider the code does not know is our bug, not the caller's.
        assert!(matches!(
            Identity::try_from(row("carrier-pigeon")),
            Err(Error::Internal(_))
        ));
    }
}
