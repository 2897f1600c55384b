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
