//! The rows the account flows reason about, as types: an identity (its provider an enum, its
//! address, account and confirmation as fields) and a session as its owner sees it. The
//! permission table's row is [`crate::policy::Perm`]. A typed identity still answers with its
//! record, so the wire shape stays the declared `RbacIdentity` and never gains a secret.
//!
//! Underneath, the records rbac reads are typed rows (each field named once with its column; a
//! test holds them against the declarations). Never a secret column: those are read apart.

use schemars::JsonSchema;
use serde::{Serialize, Serializer};
use serde_json::Value;
use stoa_kernel::{Error, Result};
use stoa_store::Record;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::service::{ADDRESS, EMAIL, OIDC, TELEGRAM, WALLET};

/// Each of `rows` as typed row `T` (an internal error when one lacks a column `T` needs).
pub use stoa_store::typed::rows as read_all;

stoa_store::typed_row! {
    /// An `rbac.identity` as the account flows read it (never its secrets).
    pub struct IdentityRow for "rbac.identity" {
        id: Uuid = "id",
        provider: Option<String> = "provider",
        email: Option<String> = "email",
        /// A wallet's address, a Telegram user id, an OIDC account's label.
        account: Option<String> = "account",
        /// When the address was proved (absent or NULL: never).
        verified_at: Option<String> = "verifiedAt",
        /// An address waiting for its code to replace `email`.
        pending_email: Option<String> = "pendingEmail",
        verify_expires_at: Option<OffsetDateTime> = "verifyExpiresAt",
        verify_attempts: Option<i64> = "verifyAttempts",
        reset_expires_at: Option<OffsetDateTime> = "resetExpiresAt",
        reset_attempts: Option<i64> = "resetAttempts",
    }
}

impl IdentityRow {
    /// Was the address proved?
    pub fn confirmed(&self) -> bool {
        self.verified_at.is_some()
    }

    /// Wrong confirmation codes sent so far.
    pub fn verify_attempts(&self) -> i64 {
        self.verify_attempts.unwrap_or(0)
    }
}

stoa_store::typed_row! {
    /// An `rbac.subject` (never its second factor's secrets).
    pub struct SubjectRow for "rbac.subject" {
        id: Uuid = "id",
        /// When two-factor sign-in was turned on (absent or NULL: off).
        totp_enabled_at: Option<String> = "totpEnabledAt",
        /// The language the person last used on the site.
        language: Option<String> = "language",
    }
}

stoa_store::typed_row! {
    /// An `rbac.session` (never its token hashes).
    pub struct SessionRow for "rbac.session" {
        id: Uuid = "id",
        subject_id: Option<Uuid> = "subjectId",
        expires_at: Option<OffsetDateTime> = "expiresAt",
        /// When it was signed out (absent or NULL: it was not).
        revoked_at: Option<String> = "revokedAt",
        last_used_at: Option<String> = "lastUsedAt",
        user_agent: Option<String> = "userAgent",
        ip: Option<String> = "ip",
        /// `secondFactor`: the sign-in passed a second factor.
        options: Option<Value> = "options",
        created_at: Option<String> = "createdAt",
    }
}

impl SessionRow {
    /// Did the sign-in that opened it pass a second factor?
    pub fn second_factor(&self) -> bool {
        self.options
            .as_ref()
            .and_then(|o| o.get("secondFactor").and_then(Value::as_bool))
            .unwrap_or(false)
    }
}

stoa_store::typed_row! {
    /// An `rbac.role`.
    pub struct RoleRow for "rbac.role" {
        id: Uuid = "id",
        slug: Option<String> = "slug",
    }
}

stoa_store::typed_row! {
    /// An `rbac.permission`: a route rule.
    pub struct PermissionRow for "rbac.permission" {
        id: Uuid = "id",
        method: Option<String> = "method",
        path: Option<String> = "path",
        public: Option<bool> = "public",
    }
}

stoa_store::typed_row! {
    /// An `rbac.api-key` (never its token's hash).
    pub struct ApiKeyRow for "rbac.api-key" {
        id: Uuid = "id",
        title: Option<String> = "title",
        subject_id: Option<Uuid> = "subjectId",
        is_active: Option<bool> = "isActive",
        expires_at: Option<OffsetDateTime> = "expiresAt",
        last_used_at: Option<OffsetDateTime> = "lastUsedAt",
    }
}

stoa_store::typed_row! {
    /// A link of a subject to an identity.
    pub struct SubjectIdentityRow for "rbac.subjects-to-identities" {
        id: Uuid = "id",
        subject_id: Option<Uuid> = "subjectId",
        identity_id: Option<Uuid> = "identityId",
    }
}

stoa_store::typed_row! {
    /// A role a subject holds.
    pub struct SubjectRoleRow for "rbac.subjects-to-roles" {
        id: Uuid = "id",
        subject_id: Option<Uuid> = "subjectId",
        role_id: Option<Uuid> = "roleId",
    }
}

stoa_store::typed_row! {
    /// A permission a role holds.
    pub struct RolePermissionRow for "rbac.roles-to-permissions" {
        role_id: Option<Uuid> = "roleId",
        permission_id: Option<Uuid> = "permissionId",
    }
}

stoa_store::typed_row! {
    /// A role an API key is given.
    pub struct KeyRoleRow for "rbac.api-keys-to-roles" {
        api_key_id: Option<Uuid> = "apiKeyId",
        role_id: Option<Uuid> = "roleId",
    }
}

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
        let t = IdentityRow::of(&row)?;
        let provider = t
            .provider
            .as_deref()
            .and_then(Provider::parse)
            .ok_or_else(|| {
                Error::internal(format!(
                    "rbac.identity {:?} has an unknown provider {:?}",
                    Some(t.id),
                    t.provider
                ))
            })?;
        let confirmed = t.confirmed();
        Ok(Self {
            id: t.id,
            provider,
            email: t.email,
            account: t.account,
            confirmed,
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

stoa_store::rows_declared!(
    [crate::declarations()],
    IdentityRow,
    SubjectRow,
    SessionRow,
    RoleRow,
    PermissionRow,
    ApiKeyRow,
    SubjectIdentityRow,
    SubjectRoleRow,
    RolePermissionRow,
    KeyRoleRow,
);

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
