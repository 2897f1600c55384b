//! The signature primitives the providers use, on well-kept crates (`hmac`, `sha2`, `md-5`),
//! compared in constant time (`subtle`).

use base64::Engine;
use hmac::{Hmac, Mac};
use md5::{Digest, Md5};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// HMAC-SHA256 of `msg` with `key`.
pub fn hmac_sha256(key: &[u8], msg: &[u8]) -> Vec<u8> {
    // HMAC takes keys of any length: `new_from_slice` cannot fail for it.
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(msg);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

pub fn hex(bytes: &[u8]) -> String {
    ::hex::encode(bytes)
}

pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Lower-case hex MD5 of `msg`.
pub fn md5_hex(msg: &[u8]) -> String {
    hex(&Md5::digest(msg))
}

/// Equal, in time that does not depend on where they differ. Empty never matches.
pub fn same(a: &str, b: &str) -> bool {
    !a.is_empty() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// Equal hex strings, ignoring case.
pub fn same_hex(a: &str, b: &str) -> bool {
    same(
        &a.trim().to_ascii_lowercase(),
        &b.trim().to_ascii_lowercase(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231 test case 2.
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert!(same_hex("AB01", "ab01"));
        assert!(!same("", ""));
        assert!(!same("a", "b"));
    }
}
