//! Sign-In with Ethereum (EIP-4361): server-issued single-use nonces (5 min) and the checks of a
//! signed message — domain, URI, chain (mainnet or Sepolia), time window, nonce, and the
//! EIP-191 signature recovered and compared to the address.

use std::str::FromStr;
use std::time::Duration;

use siwe::Message;
use stoa_kernel::{Error, Result};
use stoa_store::cluster::{Issued, Shared, SingleUse};
use time::OffsetDateTime;

pub const CHAINS: [u64; 2] = [1, 11_155_111];
pub const NONCE_TTL: Duration = Duration::from_secs(300);
/// Longest message accepted (a real one is a few hundred bytes).
pub const MAX_MESSAGE: usize = 4096;
const MAX_NONCES: usize = 100_000;

/// Issued nonces: in this process, or on PostgreSQL in a table every instance shares (a nonce
/// issued by one instance is accepted once by any).
pub struct Nonces(SingleUse);

impl Default for Nonces {
    fn default() -> Self {
        Self::with_ttl(NONCE_TTL)
    }
}

impl Nonces {
    pub fn with_ttl(ttl: Duration) -> Self {
        Self(SingleUse::new("siwe", ttl, MAX_NONCES, None))
    }

    /// Nonces kept in `shared` (several instances) instead of this process.
    pub fn shared(shared: Option<Shared>) -> Self {
        Self(SingleUse::new("siwe", NONCE_TTL, MAX_NONCES, shared))
    }

    pub async fn issue(&self) -> Result<String> {
        // 17 random alphanumerics: a collision is a retry, never a shared nonce.
        let nonce = siwe::generate_nonce();
        match self.0.issue(&nonce).await? {
            Issued::Kept => Ok(nonce),
            Issued::Collided => Err(Error::Conflict {
                message: "a nonce collided; request another".into(),
                fields: Default::default(),
            }),
            Issued::Full => Err(Error::TooManyRequests {
                message: "too many sign-in attempts in progress; try again shortly".into(),
                retry_after: 30,
            }),
        }
    }

    /// Spends `nonce`: true when it was issued (by any instance), unused and unexpired.
    pub async fn spend(&self, nonce: &str) -> Result<bool> {
        self.0.spend(nonce).await
    }
}

fn denied(msg: &str) -> Error {
    Error::Unauthorized(format!("wallet sign-in refused: {msg}"))
}

/// Verifies a signed SIWE message for `domain` (host[:port]) and `origin` (scheme://host[:port])
/// and returns the lower-case `0x…` address.
pub async fn verify(
    nonces: &Nonces,
    domain: &str,
    origin: &str,
    message: &str,
    signature: &str,
    address: &str,
) -> Result<String> {
    if message.len() > MAX_MESSAGE {
        return Err(Error::bad_field(
            "message",
            format!("must be at most {MAX_MESSAGE} bytes"),
        ));
    }
    let m = Message::from_str(message)
        .map_err(|e| Error::bad_field("message", format!("is not an EIP-4361 message: {e}")))?;
    let sig_hex = signature.trim().trim_start_matches("0x");
    let sig: [u8; 65] = hex::decode(sig_hex)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::bad_field("signature", "must be 65 bytes of hex"))?;
    let claimed = address.trim().trim_start_matches("0x").to_ascii_lowercase();
    let in_message = hex::encode(m.address);
    if claimed != in_message {
        return Err(Error::bad_field(
            "address",
            "does not match the address in the message",
        ));
    }
    // Spend the nonce first: a replay fails even when everything else is right.
    if !nonces.spend(&m.nonce).await? {
        return Err(denied(
            "the nonce is unknown, used or expired; request a new one",
        ));
    }
    if m.domain.as_str() != domain {
        return Err(denied("the message is for another domain"));
    }
    let uri = m.uri.as_str();
    if !(uri == origin || uri.starts_with(&format!("{origin}/"))) {
        return Err(denied("the message URI is not this site"));
    }
    if !CHAINS.contains(&m.chain_id) {
        return Err(denied(
            "the chain must be Ethereum mainnet (1) or Sepolia (11155111)",
        ));
    }
    let now = OffsetDateTime::now_utc();
    if !m.valid_at(&now) {
        return Err(denied("the message has expired or is not valid yet"));
    }
    let issued: OffsetDateTime = *m.issued_at.as_ref();
    if issued > now + Duration::from_secs(60) || issued < now - NONCE_TTL - Duration::from_secs(60)
    {
        return Err(denied("the message was not issued just now"));
    }
    m.verify_eip191(&sig)
        .map_err(|_| denied("the signature was not made by this address"))?;
    Ok(format!("0x{in_message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nonces_are_single_use_and_expire() {
        let n = Nonces::default();
        let a = n.issue().await.unwrap();
        assert!(a.len() >= 8 && a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert!(n.spend(&a).await.unwrap());
        assert!(!n.spend(&a).await.unwrap(), "single use");
        assert!(!n.spend("never-issued").await.unwrap());
        let short = Nonces::with_ttl(Duration::from_millis(5));
        let b = short.issue().await.unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(!short.spend(&b).await.unwrap(), "expired");
    }
}
