//! Access tokens (HS256 JWTs, algorithm pinned, `exp` required) and opaque refresh tokens
//! (`<session id>.<256 random bits>`, stored as SHA-256).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use stoa_kernel::{Error, Result};
use subtle::ConstantTimeEq;
use uuid::Uuid;

#[derive(Debug, Serialize, Deserialize)]
pub struct SubjectClaim {
    pub id: Uuid,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: Uuid,
    /// The session the token belongs to.
    pub sid: Uuid,
    pub iat: i64,
    pub exp: i64,
    /// Always `access`.
    pub typ: String,
    /// The wire shape the original clients read (`jwt.subject.id`).
    pub subject: SubjectClaim,
    /// The session was opened with a second factor (or the account has none and enrolled in it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mfa: bool,
}

/// What a challenge token carries between the password and the second factor.
#[derive(Debug, Serialize, Deserialize)]
struct Challenge {
    sub: Uuid,
    iat: i64,
    exp: i64,
    /// Always `second-factor`.
    typ: String,
}

/// How long the second step of a sign-in may take.
pub const CHALLENGE_TTL: i64 = 300;

pub struct Jwt {
    enc: EncodingKey,
    dec: DecodingKey,
    validation: Validation,
}

impl Jwt {
    pub fn new(secret: &[u8]) -> Result<Self> {
        if secret.len() < 32 {
            return Err(Error::bad_request(
                "the JWT secret must be at least 32 bytes",
            ));
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.leeway = 0;
        validation.validate_exp = true;
        validation.set_required_spec_claims(&["exp", "sub", "iat"]);
        Ok(Self {
            enc: EncodingKey::from_secret(secret),
            dec: DecodingKey::from_secret(secret),
            validation,
        })
    }

    pub fn issue(
        &self,
        subject: Uuid,
        session: Uuid,
        ttl_secs: i64,
        mfa: bool,
    ) -> Result<(String, i64)> {
        let iat = time::OffsetDateTime::now_utc().unix_timestamp();
        let claims = Claims {
            sub: subject,
            sid: session,
            iat,
            exp: iat + ttl_secs,
            typ: "access".into(),
            subject: SubjectClaim { id: subject },
            mfa,
        };
        let t = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.enc)
            .map_err(Error::internal)?;
        Ok((t, claims.exp))
    }

    /// A token that proves `subject` gave the right password a moment ago: what the second step
    /// of a sign-in presents with its code. It opens no session and reaches no route.
    pub fn challenge(&self, subject: Uuid) -> Result<String> {
        let iat = time::OffsetDateTime::now_utc().unix_timestamp();
        let c = Challenge {
            sub: subject,
            iat,
            exp: iat + CHALLENGE_TTL,
            typ: "second-factor".into(),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &c, &self.enc).map_err(Error::internal)
    }

    /// The subject of a valid challenge token.
    pub fn verify_challenge(&self, token: &str) -> Option<Uuid> {
        if token.len() > 4096 {
            return None;
        }
        let data = jsonwebtoken::decode::<Challenge>(token, &self.dec, &self.validation).ok()?;
        (data.claims.typ == "second-factor").then_some(data.claims.sub)
    }

    /// The claims of a valid access token; any defect is `None`.
    pub fn verify(&self, token: &str) -> Option<Claims> {
        if token.len() > 4096 {
            return None;
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.dec, &self.validation).ok()?;
        (data.claims.typ == "access" && data.claims.sub == data.claims.subject.id)
            .then_some(data.claims)
    }
}

/// A fresh refresh token for `session`: `(token, sha256 hex)`.
pub fn new_refresh(session: Uuid) -> (String, String) {
    let mut secret = [0u8; 32];
    rand::rng().fill_bytes(&mut secret);
    let token = format!("{}.{}", session.simple(), URL_SAFE_NO_PAD.encode(secret));
    let h = sha256_hex(&token);
    (token, h)
}

/// The session id a refresh token names, when it is well-formed.
pub fn refresh_session(token: &str) -> Option<Uuid> {
    let (id, secret) = token.split_once('.')?;
    if secret.len() != 43 || id.len() != 32 {
        return None;
    }
    Uuid::try_parse(id).ok()
}

pub fn sha256_hex(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

/// Constant-time string equality.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// 128 random bits, URL-safe.
pub fn random_token() -> String {
    let mut b = [0u8; 16];
    rand::rng().fill_bytes(&mut b);
    URL_SAFE_NO_PAD.encode(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwt_round_trip_and_defects() {
        let j = Jwt::new(&[7u8; 32]).unwrap();
        let (s, x) = (Uuid::now_v7(), Uuid::now_v7());
        let (t, _) = j.issue(s, x, 60, false).unwrap();
        assert_eq!(j.verify(&t).unwrap().sid, x);
        assert!(
            j.verify_challenge(&t).is_none(),
            "an access token is no challenge"
        );
        let c = j.challenge(s).unwrap();
        assert_eq!(j.verify_challenge(&c), Some(s));
        assert!(j.verify(&c).is_none(), "a challenge is no access token");
        let other = Jwt::new(&[8u8; 32]).unwrap();
        assert!(other.verify(&t).is_none(), "wrong key");
        let (old, _) = j.issue(s, x, -10, false).unwrap();
        assert!(j.verify(&old).is_none(), "expired");
        // alg: none
        let mut parts: Vec<&str> = t.split('.').collect();
        let none = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        parts[0] = &none;
        let forged = format!("{}.{}.", parts[0], parts[1]);
        assert!(j.verify(&forged).is_none());
    }

    #[test]
    fn refresh_tokens_name_their_session() {
        let id = Uuid::now_v7();
        let (t, h) = new_refresh(id);
        assert_eq!(refresh_session(&t), Some(id));
        assert_eq!(sha256_hex(&t), h);
        assert!(refresh_session("x.y").is_none());
    }
}
