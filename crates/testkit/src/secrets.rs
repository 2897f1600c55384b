//! The "no secrets out" check, applied to every response any test reads: no password hash, salt,
//! reset code, token hash or secret template data in any body, and no refresh token outside
//! the authentication responses that issue it.

use serde_json::Value;

const NEVER: &[&str] = &["password", "salt", "tokenHash", "spentHashes", "secretData"];

fn walk(path: &str, v: &Value, top: bool) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                // Error bodies name the offending request fields under `fields`.
                if top && k == "fields" {
                    continue;
                }
                assert!(
                    !NEVER.contains(&k.as_str()),
                    "a response of {path} carries the secret field '{k}': {v}"
                );
                assert!(
                    !(k == "code" && m.contains_key("provider")),
                    "a response of {path} carries an identity's reset code: {v}"
                );
                walk(path, x, false);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(path, x, false)),
        _ => {}
    }
}

/// Does `s` contain something shaped like a refresh token (`<32 hex>.<43 base64url>`)?
pub fn has_refresh_token(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(76).any(|w| {
        w[..32]
            .iter()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            && w[32] == b'.'
            && w[33..]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_')
    })
}

pub fn assert_none(path: &str, body: &Value, text: &str) {
    // The API's own description names request fields such as `password`.
    if path == "/api/openapi.json" || path == "/api/meta" {
        return;
    }
    walk(path, body, true);
    let issuing = path.starts_with("/api/rbac/subjects/authentication/");
    assert!(
        issuing || !has_refresh_token(text),
        "a response of {path} carries a refresh token: {text}"
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_tokens_and_secret_fields() {
        let t = format!("{}.{}", "a".repeat(32), "B".repeat(43));
        assert!(super::has_refresh_token(&format!("x{t}y")));
        assert!(!super::has_refresh_token("abc.def"));
        let bad = serde_json::json!({"data": [{"provider": "x", "code": "1"}]});
        assert!(std::panic::catch_unwind(|| super::assert_none("/x", &bad, "")).is_err());
        let ok = serde_json::json!({"status": 422, "code": "invalid_input", "fields": {"password": ["short"]}});
        super::assert_none("/x", &ok, "");
    }
}
