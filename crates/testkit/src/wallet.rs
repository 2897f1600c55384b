//! An Ethereum wallet for sign-in tests: a key from a seed, its address, and EIP-4361 messages
//! signed with EIP-191 as a wallet would.

use std::time::Duration;

use k256::ecdsa::SigningKey;
use serde_json::Value;
use sha3::{Digest, Keccak256};
use time::OffsetDateTime;

/// A fixed key made from `seed` (tests that need several wallets pass different seeds).
pub fn key(seed: u8) -> SigningKey {
    match SigningKey::from_bytes(&[seed.max(1); 32].into()) {
        Ok(k) => k,
        Err(e) => panic!("a wallet key from seed {seed}: {e}"),
    }
}

pub fn address_bytes(key: &SigningKey) -> [u8; 20] {
    let point = key.verifying_key().to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    let mut out = [0u8; 20];
    out.copy_from_slice(&hash[12..]);
    out
}

/// The `0x…` lower-case address of `key`.
pub fn address(key: &SigningKey) -> String {
    format!("0x{}", hex::encode(address_bytes(key)))
}

/// The EIP-191 signature of `msg` by `key`, as `0x` and 65 bytes of hex.
pub fn sign(msg: &siwe::Message, key: &SigningKey) -> String {
    let hash = msg
        .eip191_hash()
        .unwrap_or_else(|e| panic!("hashing a SIWE message: {e}"));
    let (sig, rec) = key
        .sign_prehash_recoverable(&hash)
        .unwrap_or_else(|e| panic!("signing a SIWE message: {e}"));
    let mut bytes = sig.to_bytes().to_vec();
    bytes.push(rec.to_byte() + 27);
    format!("0x{}", hex::encode(bytes))
}

/// A message for the site that issued `nonce` (the answer of the nonce endpoint), from `key`.
pub fn message(nonce: &Value, key: &SigningKey) -> siwe::Message {
    let text = |k: &str| nonce[k].as_str().unwrap_or_default().to_owned();
    siwe::Message {
        domain: text("domain")
            .parse()
            .unwrap_or_else(|e| panic!("the nonce answer's domain: {e:?}")),
        address: address_bytes(key),
        statement: Some("Sign in to Stoa".into()),
        uri: text("uri")
            .parse()
            .unwrap_or_else(|e| panic!("the nonce answer's uri: {e:?}")),
        version: siwe::Version::V1,
        chain_id: 1,
        nonce: text("nonce"),
        issued_at: siwe::TimeStamp::from(OffsetDateTime::now_utc()),
        expiration_time: Some(siwe::TimeStamp::from(
            OffsetDateTime::now_utc() + Duration::from_secs(300),
        )),
        not_before: None,
        request_id: None,
        resources: vec![],
    }
}
