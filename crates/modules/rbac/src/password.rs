//! Passwords: length and common-password rules, argon2id hashing (m = 19 MiB, t = 2, p = 1) on
//! the blocking pool behind a concurrency cap, and a dummy verification for unknown accounts so
//! both answers take the same time. Hashes brought from the original system (bcrypt, `$2a$`/`$2b$`)
//! are verified as bcrypt and replaced by argon2id at the first sign-in ([`is_legacy`]). While a
//! database holds any (seen at start or at a check), every check costs one bcrypt and one argon2id
//! verification — real or dummy — whatever the account, so a refusal tells nobody which kind of
//! hash, or whether an account, stands behind an address.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::RngCore;
use stoa_kernel::{Error, Result};
use tokio::sync::Semaphore;

pub const MIN_LEN: usize = 8;
pub const MAX_LEN: usize = 128;

static COMMON: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../data/common-passwords.txt")
        .lines()
        .filter(|l| l.chars().count() >= MIN_LEN)
        .collect()
});

fn argon() -> Result<Argon2<'static>> {
    let params = Params::new(19 * 1024, 2, 1, None).map_err(Error::internal)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// Checks a new password: 8–128 characters, not one of the 10 000 most common. `field` names
/// the body field in the error.
pub fn check_new(field: &str, password: &str) -> Result<()> {
    let n = password.chars().count();
    if n > MAX_LEN {
        return Err(Error::bad_field(
            field,
            format!("must be at most {MAX_LEN} characters"),
        ));
    }
    if n < MIN_LEN {
        return Err(Error::invalid_field(
            field,
            format!("must be at least {MIN_LEN} characters"),
        ));
    }
    if COMMON.contains(password) || COMMON.contains(password.to_lowercase().as_str()) {
        return Err(Error::invalid_field(
            field,
            "is one of the most common passwords; choose another",
        ));
    }
    Ok(())
}

/// Rejects over-long input before any hashing (a login attempt with a 1 MB password must cost
/// nothing).
pub fn check_len(field: &str, password: &str) -> Result<()> {
    if password.len() > MAX_LEN * 4 || password.chars().count() > MAX_LEN {
        return Err(Error::bad_field(
            field,
            format!("must be at most {MAX_LEN} characters"),
        ));
    }
    Ok(())
}

/// The hashing pool: a cap on concurrent hashes so a burst of logins cannot starve the server.
#[derive(Clone)]
pub struct Hasher {
    slots: Arc<Semaphore>,
    /// bcrypt hashes are about: every check costs one bcrypt verification too.
    legacy: Arc<std::sync::atomic::AtomicBool>,
}

/// What an unknown account's password is checked against: a hash made with the same parameters
/// as [`argon`]'s (a test keeps them equal), so the answer takes as long as for a real account.
/// A constant rather than hashed at start: that hash was a fifth of a cold start.
const DUMMY: &str = "$argon2id$v=19$m=19456,t=2,p=1$UfvTaiaFN/HqjT4Q91baqA$UU/JFydkHfOHHL1qL/DMEsNCXgdZNWHBialIMAp+YMQ";

/// Whether `stored` is a bcrypt hash, as the original system kept passwords (10 rounds): it is
/// checked as bcrypt and replaced by an argon2id hash once its owner signs in.
pub fn is_legacy(stored: &str) -> bool {
    ["$2a$", "$2b$", "$2y$"]
        .iter()
        .any(|p| stored.starts_with(p))
}

/// A bcrypt hash (10 rounds, as the original made them) of a password nobody has: the bcrypt half
/// of a check for an account whose hash is argon2id, or for no account.
static BCRYPT_DUMMY: LazyLock<String> = LazyLock::new(|| {
    bcrypt::hash_with_salt("stoa-dummy-password-for-timing", 10, [42u8; 16])
        .map(|h| h.format_for_version(bcrypt::Version::TwoA))
        .unwrap_or_default()
});

/// Whether `stored` may be brought in from the original system: a well-formed bcrypt hash of 10
/// rounds, as the original made them. Any other (malformed, another cost) would check faster or
/// slower than the dummy every other check pays, telling that its account is an imported one.
pub fn importable(stored: &str) -> bool {
    is_legacy(stored)
        && stored
            .parse::<bcrypt::HashParts>()
            .is_ok_and(|h| h.get_cost() == 10)
}

impl Hasher {
    pub fn new(concurrency: usize) -> Result<Self> {
        Ok(Self {
            slots: Arc::new(Semaphore::new(concurrency.max(1))),
            legacy: Arc::default(),
        })
    }

    /// From now on every check costs a bcrypt verification too (the database holds bcrypt
    /// hashes): see the module's note.
    pub fn expect_legacy(&self) {
        self.legacy
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether checks cost a bcrypt verification too.
    pub fn legacy_expected(&self) -> bool {
        self.legacy.load(std::sync::atomic::Ordering::Relaxed)
    }

    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let permit = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            self.slots.clone().acquire_owned(),
        )
        .await
        .map_err(|_| Error::TooManyRequests {
            message: "the server is busy checking passwords; try again in a moment".into(),
            retry_after: 2,
        })?
        .map_err(Error::internal)?;
        let out = tokio::task::spawn_blocking(f)
            .await
            .map_err(Error::internal)?;
        drop(permit);
        out
    }

    pub async fn hash(&self, password: &str) -> Result<String> {
        let p = password.to_owned();
        self.run(move || hash_now(&p)).await
    }

    /// Verifies against `stored`; with `None` (unknown account) verifies against a dummy hash
    /// and answers `false`, taking the same time.
    pub async fn verify(&self, password: &str, stored: Option<String>) -> Result<bool> {
        Ok(self.verify_counted(password, stored).await?.0)
    }

    /// [`Self::verify`], and the work it did: (bcrypt verifications, argon2id verifications) —
    /// the same for every account and for none, which is what keeps the timing equal.
    async fn verify_counted(
        &self,
        password: &str,
        stored: Option<String>,
    ) -> Result<(bool, (u8, u8))> {
        let p = password.to_owned();
        let known = stored.is_some();
        let h = stored.unwrap_or_else(|| DUMMY.to_owned());
        let old = is_legacy(&h);
        if old {
            self.expect_legacy();
        }
        let both = self.legacy_expected();
        let (ok, work) = self
            .run(move || {
                // bcrypt reads at most 72 bytes (the original's hashes were made that way too).
                let (bcrypt_ok, bcrypts) = if both {
                    let target = if old {
                        h.as_str()
                    } else {
                        BCRYPT_DUMMY.as_str()
                    };
                    (
                        bcrypt::verify(p.as_bytes(), target).unwrap_or(false) && old,
                        1,
                    )
                } else {
                    (false, 0)
                };
                let parsed = PasswordHash::new(if old { DUMMY } else { h.as_str() })
                    .map_err(Error::internal)?;
                let argon_ok = argon()?.verify_password(p.as_bytes(), &parsed).is_ok() && !old;
                Ok((bcrypt_ok || argon_ok, (bcrypts, 1)))
            })
            .await?;
        Ok((ok && known, work))
    }
}

fn hash_now(password: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(Error::internal)?;
    Ok(argon()?
        .hash_password(password.as_bytes(), &salt)
        .map_err(Error::internal)?
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dummy is a valid hash made with today's parameters: checking a password against it
    /// costs what checking a real account's costs.
    #[test]
    fn the_dummy_hash_has_the_parameters_of_real_ones() {
        let real = hash_now("a-real-password").unwrap();
        let (dummy, real) = (
            PasswordHash::new(DUMMY).unwrap(),
            PasswordHash::new(&real).unwrap(),
        );
        assert_eq!(dummy.algorithm, real.algorithm);
        assert_eq!(dummy.version, real.version);
        assert_eq!(dummy.params, real.params);
        assert_eq!(dummy.hash.map(|h| h.len()), real.hash.map(|h| h.len()));
        let argon = argon().unwrap();
        assert!(
            argon
                .verify_password(b"stoa-dummy-password-for-timing", &dummy)
                .is_ok()
        );
    }

    #[test]
    fn rules() {
        assert!(check_new("p", "short").is_err());
        assert!(check_new("p", "password1").is_err(), "common");
        assert!(check_new("p", &"x".repeat(129)).is_err());
        assert!(check_new("p", "correct horse battery").is_ok());
    }

    #[tokio::test]
    async fn hashes_verify_and_carry_the_parameters() {
        let h = Hasher::new(2).unwrap();
        let stored = h.hash("correct horse battery").await.unwrap();
        assert!(
            stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{stored}"
        );
        assert!(
            h.verify("correct horse battery", Some(stored.clone()))
                .await
                .unwrap()
        );
        assert!(
            !h.verify("Correct horse battery", Some(stored))
                .await
                .unwrap()
        );
        assert!(!h.verify("correct horse battery", None).await.unwrap());
    }

    /// Once a bcrypt hash is about, every check does one bcrypt and one argon2id verification,
    /// right or wrong, for an imported account, a native one and none: a refusal takes as long
    /// whoever stands behind the address. Before, a native check does argon2id only.
    #[tokio::test]
    async fn with_bcrypt_hashes_about_every_check_does_the_same_work() {
        let h = Hasher::new(2).unwrap();
        let native = h.hash("native password 1").await.unwrap();
        let old = bcrypt::hash_with_salt("old password 1", 10, [7u8; 16])
            .unwrap()
            .format_for_version(bcrypt::Version::TwoA);
        assert_eq!(
            h.verify_counted("wrong", Some(native.clone()))
                .await
                .unwrap(),
            (false, (0, 1))
        );
        assert_eq!(
            h.verify_counted("wrong", None).await.unwrap(),
            (false, (0, 1))
        );
        // The first bcrypt hash met switches every later check to both.
        assert_eq!(
            h.verify_counted("wrong", Some(old.clone())).await.unwrap(),
            (false, (1, 1))
        );
        for (password, stored, ok) in [
            ("wrong", Some(native.clone()), false),
            ("native password 1", Some(native), true),
            ("wrong", None, false),
            ("old password 1", None, false),
            ("wrong", Some(old.clone()), false),
            ("old password 1", Some(old), true),
        ] {
            assert_eq!(
                h.verify_counted(password, stored).await.unwrap(),
                (ok, (1, 1)),
                "{password}"
            );
        }
        // Known at start (an imported database): the same from the first check.
        let fresh = Hasher::new(1).unwrap();
        fresh.expect_legacy();
        assert_eq!(
            fresh.verify_counted("x", None).await.unwrap(),
            (false, (1, 1))
        );
    }

    /// A hash from the original system (bcrypt, 10 rounds, its salt inside) checks as bcrypt.
    #[tokio::test]
    async fn bcrypt_hashes_from_the_original_verify() {
        let h = Hasher::new(2).unwrap();
        let old = bcrypt::hash_with_salt("old password 1", 10, [7u8; 16])
            .unwrap()
            .format_for_version(bcrypt::Version::TwoA);
        assert!(old.starts_with("$2a$10$") && is_legacy(&old), "{old}");
        assert!(importable(&old));
        let cheap = bcrypt::hash_with_salt("old password 1", 4, [7u8; 16])
            .unwrap()
            .format_for_version(bcrypt::Version::TwoA);
        assert!(!importable(&cheap), "another cost would time differently");
        assert!(
            !importable("$2a$10$short"),
            "a malformed hash would fail at once"
        );
        assert!(h.verify("old password 1", Some(old.clone())).await.unwrap());
        assert!(!h.verify("old password 2", Some(old.clone())).await.unwrap());
        assert!(!is_legacy(&hash_now("x").unwrap()));
        // A broken legacy hash is a wrong password, not an error.
        assert!(
            !h.verify("old password 1", Some("$2a$10$short".into()))
                .await
                .unwrap()
        );
    }
}
