//! The Telegram Login Widget's proof (<https://core.telegram.org/widgets/login#checking-authorization>):
//! the fields Telegram sends back, signed with HMAC-SHA-256 under SHA-256(bot token).

use std::collections::BTreeMap;

use hmac::{Hmac, Mac};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use stoa_kernel::{Error, Result};

/// How old an authorisation may be, in seconds.
pub const MAX_AGE: i64 = 24 * 3600;

/// The fields the widget sends (besides `hash`).
const FIELDS: [&str; 6] = [
    "id",
    "first_name",
    "last_name",
    "username",
    "photo_url",
    "auth_date",
];

/// The Telegram user id the widget's `data` proves, checked against `bot_token` at `now`
/// (Unix seconds).
pub fn verify(data: &Map<String, Value>, bot_token: &str, now: i64) -> Result<String> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let hash = data
        .get("hash")
        .and_then(Value::as_str)
        .filter(|h| h.len() == 64)
        .ok_or_else(|| Error::invalid_field("hash", "the Telegram login has no valid hash"))?;
    let mut fields = BTreeMap::new();
    for f in FIELDS {
        if let Some(v) = data.get(f).filter(|v| !v.is_null()) {
            let t = text(v).ok_or_else(|| Error::invalid_field(f, "must be text or a number"))?;
            fields.insert(f, t);
        }
    }
    let id = fields
        .get("id")
        .filter(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
        .cloned()
        .ok_or_else(|| Error::invalid_field("id", "the Telegram login has no user id"))?;
    let when: i64 = fields
        .get("auth_date")
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| Error::invalid_field("auth_date", "the Telegram login has no date"))?;
    let check: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let key = Sha256::digest(bot_token.as_bytes());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key)
        .map_err(|e| Error::internal(format!("hmac key: {e}")))?;
    mac.update(check.join("\n").as_bytes());
    let expected = hex::decode(hash)
        .map_err(|_| Error::invalid_field("hash", "the Telegram login has no valid hash"))?;
    if mac.verify_slice(&expected).is_err() {
        return Err(Error::Unauthorized(
            "the Telegram login is not signed by this site's bot".into(),
        ));
    }
    if when > now + 60 || now - when > MAX_AGE {
        return Err(Error::invalid_field(
            "auth_date",
            "the Telegram login has expired; sign in with Telegram again",
        ));
    }
    Ok(id)
}

/// Signs `fields` as Telegram would (for tests and local fakes).
pub fn sign(fields: &Map<String, Value>, bot_token: &str) -> String {
    let mut sorted = BTreeMap::new();
    for (k, v) in fields {
        if k != "hash" {
            let t = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            sorted.insert(k.clone(), t);
        }
    }
    let check: Vec<String> = sorted.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let key = Sha256::digest(bot_token.as_bytes());
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&key) else {
        return String::new();
    };
    mac.update(check.join("\n").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_what_the_bot_signed_and_nothing_else() {
        let token = "123:abc";
        let mut data = json!({"id": 42, "first_name": "Ann", "username": "ann", "auth_date": 1000})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let h = sign(&data, token);
        data.insert("hash".into(), json!(h));
        assert_eq!(verify(&data, token, 1000 + 60).ok().as_deref(), Some("42"));
        assert!(verify(&data, "123:other", 1060).is_err(), "another bot");
        assert!(verify(&data, token, 1000 + MAX_AGE + 1).is_err(), "expired");
        let mut changed = data.clone();
        changed.insert("id".into(), json!(43));
        assert!(matches!(
            verify(&changed, token, 1060),
            Err(Error::Unauthorized(_))
        ));
        let mut unsigned = data.clone();
        unsigned.remove("hash");
        assert!(verify(&unsigned, token, 1060).is_err());
    }
}
