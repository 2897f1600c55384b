//! What the account routes answer, as types: the services return them and the OpenAPI document
//! describes them from these same declarations, so a field a service adds is documented by
//! construction. A `title` names the component the document declares (the web reads
//! `RbacMe`, `RbacTotpEnrolment`…); the others are named after their operation.

use schemars::JsonSchema;
use serde::Serialize;
use stoa_api::endpoint::{Extended, Row};
use uuid::Uuid;

stoa_api::component!(RbacSubject, RbacRole, RbacIdentity);

/// An identity as the API answers it: its record.
pub fn identity_row(i: &crate::rows::Identity) -> Row<RbacIdentity> {
    Row::new(i.row.to_json())
}

/// `{ok: true}`: done.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Done {
    pub ok: bool,
}

pub const DONE: Done = Done { ok: true };

/// Whether the site still waits for its first admin (`rbacSetupState`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "RbacSetupState")]
pub struct SetupState {
    /// No account is an admin yet: the first is made with the setup code the server printed in its log
    pub needed: bool,
}

/// The second step a sign-in needs (`authLogin`, `authWallet` answering 200).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacSecondFactorChallenge")]
pub struct SecondFactorChallenge {
    #[schemars(extend("enum" = ["totp"]))]
    pub second_factor: &'static str,
    /// Send it with a code to authLoginSecondFactor within 5 minutes
    pub challenge: String,
}

/// What `/me` says about the caller's second factor.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "RbacSecondFactorState")]
pub struct SecondFactorState {
    /// The account signs in with a TOTP code
    pub enabled: bool,
    /// This account must (an admin under STOA_ADMIN_2FA=required)
    pub required: bool,
    /// False: enrol before anything else
    pub satisfied: bool,
}

/// What the signed-in subject's record carries besides its fields (`authMe`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacMe")]
pub struct Me {
    pub roles: Vec<Row<RbacRole>>,
    pub identities: Vec<Row<RbacIdentity>>,
    /// Holds the root permission (false until the second factor when STOA_ADMIN_2FA=required)
    pub admin: bool,
    pub second_factor: SecondFactorState,
}

/// The signed-in subject with its roles and identities, or null.
pub type MeAnswer = Option<Extended<RbacSubject, Me>>;

/// A new TOTP secret, shown once (`subjectTotpStart`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacTotpEnrolment")]
pub struct TotpEnrolment {
    /// Base32, for typing into an authenticator app
    pub secret: String,
    pub otpauth_url: String,
    pub digits: u32,
    pub period: u64,
    pub algorithm: &'static str,
}

/// The recovery codes of a confirmed enrolment, shown once (`subjectTotpConfirm`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacRecoveryCodes")]
pub struct RecoveryCodes {
    pub recovery_codes: Vec<String>,
    /// A new access token for this session, now with its second factor (also set as the cookie)
    pub jwt: Option<String>,
}

/// What the wallet signs (EIP-4361).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalletNonce {
    pub nonce: String,
    pub domain: String,
    pub uri: String,
    pub chain_ids: Vec<u64>,
    pub version: &'static str,
    #[schemars(extend("format" = "date-time"))]
    pub issued_at: String,
    #[schemars(extend("format" = "date-time"))]
    pub expires_at: String,
}

/// A sign-in method a reset removed (it was added while the address was unconfirmed).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RemovedIdentity {
    pub provider: Option<String>,
    pub email: Option<String>,
    pub account: Option<String>,
}

/// What a password reset did (`authResetPassword`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacResetOutcome")]
pub struct ResetOutcome {
    pub ok: bool,
    /// Sign-in methods removed because they were added while the address was unconfirmed
    pub removed_identities: Vec<RemovedIdentity>,
    pub second_factor_removed: bool,
}

/// Where a confirmation code went (`subjectSendVerification`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SentTo {
    pub ok: bool,
    #[schemars(extend("format" = "email"))]
    pub sent_to: String,
}

/// The notifications an admin's `notify` queued.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Queued {
    pub queued: usize,
    pub notifications: Vec<Uuid>,
}

/// A new API key token, shown once (`rbacApiKeyToken`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacApiKeyToken")]
pub struct ApiKeyToken {
    /// The key, shown this once: send it as `Authorization: Bearer <token>`
    pub token: String,
    /// Its beginning, shown in the admin from now on
    pub token_prefix: String,
}
