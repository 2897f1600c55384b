//! The request bodies of the sign-in routes, as types: read with `stoa_api::body::typed` (a 422
//! names the field that does not fit) and described in the OpenAPI document from these same
//! declarations (`stoa_api::body::schema_of`), so the document and the parser cannot disagree.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Email and password (`authLogin`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Credentials {
    #[schemars(extend("format" = "email"))]
    pub login: String,
    #[schemars(length(min = 8, max = 128))]
    pub password: String,
}

/// The first admin (`rbacSetup`): the setup code from the server's log and the credentials.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FirstAdmin {
    #[schemars(length(min = 1, max = 40))]
    pub code: String,
    #[schemars(extend("format" = "email"))]
    pub login: String,
    #[schemars(length(min = 8, max = 128))]
    pub password: String,
}

/// A new account (`authRegister`): credentials and the roles open to registration it asks for.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Registration {
    #[schemars(extend("format" = "email"))]
    pub login: String,
    #[schemars(length(min = 8, max = 128))]
    pub password: String,
    /// Role slugs (or `{ "slug": … }` objects, as the original client sends them).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub roles: Value,
}

/// The address a reset link goes to (`authForgotPassword`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ForgotPassword {
    #[schemars(extend("format" = "email"))]
    pub email: String,
}

/// A reset code and the new password, twice (`authResetPassword`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetPassword {
    pub code: String,
    pub password: String,
    pub password_confirmation: String,
}

/// An EIP-4361 message and the wallet's signature of it (`authWallet`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WalletSignIn {
    pub message: String,
    pub signature: String,
    pub address: String,
}

/// The second step of a sign-in (`authLoginSecondFactor`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SecondFactor {
    pub challenge: String,
    /// A 6-digit code from the authenticator app, or a recovery code
    #[schemars(length(min = 1, max = 64))]
    pub code: String,
}

/// A refresh token in the body (`authRefresh`); absent: the cookie's.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Refresh {
    pub refresh: Option<String>,
}

/// A way to sign in to add to an account (`subjectAddIdentity`), chosen by `provider`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "provider")]
pub enum NewIdentity {
    /// An email address and a password for it (the address is then confirmed by a mailed code).
    #[serde(rename = "email_and_password", alias = "email-and-password")]
    Email {
        #[schemars(extend("format" = "email"))]
        email: String,
        #[schemars(length(min = 8, max = 128))]
        password: String,
    },
    /// A wallet, proved by an EIP-4361 message it signed.
    #[serde(
        rename = "ethereum_virtual_machine",
        alias = "ethereum-virtual-machine"
    )]
    Wallet {
        message: String,
        signature: String,
        address: String,
    },
    /// A Telegram account, proved by the Login Widget's signed fields.
    #[serde(rename = "telegram")]
    Telegram(TelegramLogin),
}

/// What the Telegram Login Widget hands back, signed by the site's bot.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TelegramLogin {
    #[schemars(with = "TextOrNumber")]
    pub id: Value,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub username: Option<String>,
    pub photo_url: Option<String>,
    #[schemars(with = "TextOrNumber")]
    pub auth_date: Value,
    pub hash: String,
}

/// Text or a number (Telegram sends ids either way).
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
enum TextOrNumber {
    Text(String),
    Number(i64),
}

impl TelegramLogin {
    /// The fields as the widget sent them, for checking its signature.
    pub fn fields(&self) -> serde_json::Map<String, Value> {
        let text = |v: &Option<String>| v.clone().map_or(Value::Null, Value::String);
        [
            ("id", self.id.clone()),
            ("first_name", text(&self.first_name)),
            ("last_name", text(&self.last_name)),
            ("username", text(&self.username)),
            ("photo_url", text(&self.photo_url)),
            ("auth_date", self.auth_date.clone()),
            ("hash", Value::String(self.hash.clone())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

/// A change to an email identity (`subjectUpdateIdentity`): with `newPassword` the password
/// changes; with `email` the address does (once the new one confirms a mailed code). The current
/// password proves either.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityChange {
    /// The current password
    #[schemars(length(max = 128))]
    pub password: String,
    #[schemars(length(min = 8, max = 128))]
    pub new_password: Option<String>,
    #[schemars(extend("format" = "email"))]
    pub email: Option<String>,
}

/// What [`IdentityChange`] asks for.
pub enum Change<'a> {
    Password(&'a str),
    Email(&'a str),
}

impl IdentityChange {
    /// The change asked for: a new password wins over a new address (as the original reads it).
    pub fn change(&self) -> stoa_kernel::Result<Change<'_>> {
        match (&self.new_password, &self.email) {
            (Some(p), _) => Ok(Change::Password(p)),
            (None, Some(e)) => Ok(Change::Email(e)),
            (None, None) => Err(stoa_kernel::Error::invalid_field(
                "body",
                "send {password, newPassword} to change the password or {email, password} to change the email",
            )),
        }
    }
}

/// A new password for one of the caller's identities (`identityChangePassword`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasswordChange {
    /// The current password
    #[schemars(length(max = 128))]
    pub password: String,
    #[schemars(length(min = 8, max = 128))]
    pub new_password: String,
}

/// An email identity an admin creates (`identityCreateEmailAndPassword`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminEmailIdentity {
    #[schemars(extend("format" = "email"))]
    pub email: String,
    #[schemars(length(min = 8, max = 128))]
    pub password: String,
    /// The account to add it to; absent: a new account
    pub subject_id: Option<uuid::Uuid>,
}

/// A code from the mail (`subjectVerifyIdentity`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Code {
    /// The six digits from the mail
    #[schemars(length(min = 1, max = 64))]
    pub code: String,
}

/// Confirms two-factor enrolment (`subjectTotpConfirm`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TotpConfirm {
    #[schemars(length(min = 1, max = 64))]
    pub code: String,
    /// The account's current password (required when it has one and enrols itself)
    #[schemars(length(max = 128))]
    pub password: Option<String>,
}

/// Turns two-factor sign-in off (`subjectTotpDisable`): a TOTP or recovery code; an admin acting
/// for another account sends none.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TotpDisable {
    #[schemars(length(min = 1, max = 64))]
    pub code: Option<String>,
}

/// A notification to an account's addresses (`subjectNotify`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Notify {
    pub notification: NotifyRequest,
    /// The template's language (default: the one the person last used on the site, else en)
    pub language: Option<String>,
}

/// Which topic and template, and how and when to send.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotifyRequest {
    pub topic: TopicRef,
    pub template: TemplateRef,
    #[serde(default)]
    pub notification: Delivery,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TopicRef {
    #[schemars(length(min = 1))]
    pub slug: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TemplateRef {
    #[schemars(length(min = 1))]
    pub variant: String,
}

/// How and when a notification goes.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    #[serde(default)]
    pub method: Method,
    /// The template's data: an object, or that object as a JSON string
    #[schemars(with = "Option<ObjectOrText>")]
    pub data: Option<Value>,
    /// Not before this time (RFC 3339)
    #[schemars(extend("format" = "date-time"))]
    pub send_after: Option<String>,
}

/// An object, or that object written as JSON text.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
enum ObjectOrText {
    Object(serde_json::Map<String, Value>),
    Text(String),
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    #[default]
    Email,
    Telegram,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use stoa_api::body::{schema_of, typed};

    fn map(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_body_that_does_not_fit_names_its_field() {
        let e = typed::<Credentials>(map(json!({"password": "long enough"}))).unwrap_err();
        assert_eq!(e.to_string(), "login: is required");
        let e = typed::<Credentials>(map(json!({"login": 5, "password": "x"}))).unwrap_err();
        assert_eq!(e.to_string(), "login: must be a string");
        let ok = typed::<ResetPassword>(map(
            json!({"code": "c", "password": "p", "passwordConfirmation": "p", "extra": 1}),
        ))
        .unwrap();
        assert_eq!(ok.password_confirmation, "p");
    }

    #[test]
    fn a_new_identity_is_chosen_by_its_provider() {
        let w = typed::<NewIdentity>(map(json!({"provider": "ethereum-virtual-machine",
            "message": "m", "signature": "s", "address": "a"})))
        .unwrap();
        assert!(matches!(w, NewIdentity::Wallet { ref address, .. } if address == "a"));
        let t = typed::<NewIdentity>(map(json!({"provider": "telegram", "id": 42,
            "first_name": "Ann", "auth_date": "1700000000", "hash": "h"})))
        .unwrap();
        let NewIdentity::Telegram(t) = t else {
            panic!("not telegram")
        };
        let f = t.fields();
        assert_eq!(
            (f["id"].clone(), f["username"].clone()),
            (json!(42), Value::Null)
        );
        // The variant's own fields are required, and named.
        let e = typed::<NewIdentity>(map(json!({"provider": "email_and_password"}))).unwrap_err();
        assert_eq!(e.to_string(), "email: is required");
        let e = typed::<NewIdentity>(map(json!({"email": "a@b.c"}))).unwrap_err();
        assert_eq!(e.to_string(), "provider: is required");
        assert!(typed::<NewIdentity>(map(json!({"provider": "fax"}))).is_err());
        let s = schema_of::<NewIdentity>();
        assert_eq!(s["oneOf"].as_array().map(Vec::len), Some(3), "{s}");
        assert!(s.to_string().contains("\"const\":\"telegram\""), "{s}");
    }

    #[test]
    fn an_identity_change_says_what_it_changes() {
        let c = |v| typed::<IdentityChange>(map(v)).unwrap();
        let both = c(json!({"password": "p", "newPassword": "n", "email": "e@x.y"}));
        assert!(matches!(both.change(), Ok(Change::Password("n"))));
        let email = c(json!({"password": "p", "email": "e@x.y"}));
        assert!(matches!(email.change(), Ok(Change::Email("e@x.y"))));
        let neither = c(json!({"password": "p"}));
        assert!(neither.change().is_err());
    }

    #[test]
    fn a_notification_defaults_to_email_and_names_its_missing_parts() {
        let n = typed::<Notify>(map(json!({"notification": {"topic": {"slug": "t"},
            "template": {"variant": "v"}}})))
        .unwrap();
        assert_eq!(n.notification.notification.method, Method::Email);
        let e =
            typed::<Notify>(map(json!({"notification": {"topic": {"slug": "t"}}}))).unwrap_err();
        assert_eq!(e.to_string(), "notification.template: is required");
        let e = typed::<Notify>(map(json!({"notification": {"topic": {"slug": "t"},
            "template": {"variant": "v"}, "notification": {"method": "fax"}}})))
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("notification.notification.method:"),
            "{e}"
        );
        // Nested parts are written in place: the document has no `$defs` to point into.
        assert!(!schema_of::<Notify>().to_string().contains("$ref"));
    }

    #[test]
    fn the_schema_comes_from_the_type() {
        let s = schema_of::<Credentials>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["login"]["format"], "email");
        assert_eq!(s["properties"]["password"]["minLength"], 8);
        assert_eq!(s["required"], json!(["login", "password"]));
        assert!(s.get("$schema").is_none() && s.get("title").is_none());
        let r = schema_of::<Registration>();
        assert_eq!(r["properties"]["roles"]["type"], "array");
        assert!(r["properties"]["roles"].get("default").is_none());
        assert_eq!(r["required"], json!(["login", "password"]));
        let p = schema_of::<ResetPassword>();
        assert!(p["properties"].get("passwordConfirmation").is_some());
    }
}
