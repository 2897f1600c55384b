//! Rate limits on credential endpoints, checked before any hashing:
//! - a burst per client IP on every credential request (before the body is read);
//! - an hourly budget per account for registrations and resets;
//! - for sign-ins, **failures only**: a budget per (client IP, account) that answers 429 to that
//!   IP for that account alone, and a per-account ceiling past which every attempt waits a
//!   little first. A stranger's wrong passwords therefore never lock the owner out; they only
//!   slow guessing down.
//!
//! Each 429 carries `Retry-After` and lifts by itself. On PostgreSQL the counts are shared by every
//! instance on the database (`stoa_store::cluster::Shared`), so a client gains nothing by being
//! spread over instances.

use std::time::Duration;

use stoa_api::rate::{Budget, Window, tripped};
use stoa_kernel::Result;
use stoa_store::cluster::Shared;

/// Wrong second-factor codes an account takes per hour from all addresses together.
pub const SECOND_FACTOR_FAILURES: u32 = 20;

#[derive(Clone, Copy, Debug)]
pub struct RateConfig {
    /// Requests a client IP may make to credential endpoints in `ip_window`.
    pub ip_burst: u32,
    pub ip_window: Duration,
    /// Registrations and resets per account per hour.
    pub account_per_hour: u32,
    /// Failed sign-ins per (client IP, account) in [`PAIR_WINDOW`].
    pub pair_failures: u32,
    /// Failed sign-ins per account per hour after which attempts are slowed.
    pub slow_after: u32,
}

impl Default for RateConfig {
    fn default() -> Self {
        Self {
            ip_burst: 10,
            ip_window: Duration::from_secs(60),
            account_per_hour: 100,
            pair_failures: 10,
            slow_after: 20,
        }
    }
}

/// Confirmation codes one email address may be tried with per day, from every account and
/// identity together (a six-digit code is guessed in 10⁶ tries).
pub const CODE_TRIES_PER_ADDRESS: u32 = 10;

/// The window of the per-(IP, account) failure budget.
pub const PAIR_WINDOW: Duration = Duration::from_secs(15 * 60);
/// What an attempt on an account past its failure ceiling waits.
pub const SLOW_DOWN: Duration = Duration::from_secs(1);

/// The credential limits: in this process, or on PostgreSQL in a table every instance shares
/// (then each budget is a fixed window from its first use, counted across all instances; see
/// [`Budget`] and [`Window`]).
pub struct Limits {
    cfg: RateConfig,
    ip: Budget,
    account: Budget,
    pair: Window,
    per_account: Window,
    /// Confirmation codes tried per target address (a day's window).
    codes: Window,
    shared: Option<Shared>,
}

const DAY: Duration = Duration::from_secs(24 * 3600);
const HOUR: Duration = Duration::from_secs(3600);

impl Limits {
    /// `shared`: the table every instance counts in (PostgreSQL), else this process.
    pub fn new(c: RateConfig, shared: Option<Shared>) -> Self {
        let on = |prefix: &'static str| shared.clone().map(|s| (s, prefix));
        Self {
            cfg: c,
            ip: Budget::new(c.ip_burst, c.ip_window, "ip", on("rbac.ip")),
            account: Budget::new(c.account_per_hour, HOUR, "account", on("rbac.account")),
            pair: Window::new(PAIR_WINDOW, on("rbac.pair")),
            per_account: Window::new(HOUR, on("rbac.failed")),
            codes: Window::new(DAY, on("rbac.code")),
            shared,
        }
    }

    /// One credential request from `ip`.
    pub async fn ip(&self, ip: &str) -> Result<()> {
        self.ip.check(ip).await
    }

    /// One registration or reset on `account`.
    pub async fn account(&self, account: &str) -> Result<()> {
        self.account.check(account).await
    }

    /// Before a sign-in attempt by `ip` on `account`: 429 when this IP has failed on this
    /// account too often; a short wait when the account as a whole has.
    pub async fn before_sign_in(&self, ip: &str, account: &str) -> Result<()> {
        let (n, left) = self.pair.count(&pair(ip, account)).await?;
        if n >= self.cfg.pair_failures.max(1) {
            return Err(tripped("sign-in failures", left));
        }
        if self.per_account.count(account).await?.0 >= self.cfg.slow_after.max(1) {
            tokio::time::sleep(SLOW_DOWN).await;
        }
        Ok(())
    }

    /// Before a second-factor attempt on `account`: besides [`Limits::before_sign_in`], a hard
    /// cap on the account's failures from all addresses (a 6-digit code falls to enough guesses
    /// spread over many IPs), so a stolen password cannot be walked through the second step.
    pub async fn before_second_factor(&self, ip: &str, account: &str) -> Result<()> {
        self.before_sign_in(ip, account).await?;
        let (n, left) = self.per_account.count(account).await?;
        if n >= SECOND_FACTOR_FAILURES {
            return Err(tripped("second-factor failures", left));
        }
        Ok(())
    }

    /// One confirmation code tried for `address` (any account, any identity): 429 past
    /// [`CODE_TRIES_PER_ADDRESS`] a day.
    pub async fn code_tried(&self, address: &str) -> Result<()> {
        self.codes
            .admit(address, CODE_TRIES_PER_ADDRESS, "confirmation codes")
            .await
    }

    /// A failed sign-in by `ip` on `account`.
    pub async fn failed(&self, ip: &str, account: &str) {
        for counted in [
            self.pair.add(&pair(ip, account)).await,
            self.per_account.add(account).await,
        ] {
            if let Err(e) = counted {
                tracing::error!(error = %e, "a failed sign-in was not counted");
            }
        }
    }

    /// A successful sign-in: this IP's failures on the account are forgotten.
    pub async fn succeeded(&self, ip: &str, account: &str) {
        if let Err(e) = self.pair.clear(&pair(ip, account)).await {
            tracing::error!(error = %e, "sign-in failures were not cleared");
        }
    }

    /// Drops idle keys (called now and then so the maps and the shared table stay small).
    pub async fn prune(&self) {
        self.ip.prune();
        self.account.prune();
        self.pair.prune();
        self.per_account.prune();
        self.codes.prune();
        if let Some(s) = &self.shared
            && let Err(e) = s.prune().await
        {
            tracing::error!(error = %e, "expired shared counters were not dropped");
        }
    }
}

fn pair(ip: &str, account: &str) -> String {
    format!("{ip} {account}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_strangers_failures_never_lock_the_owner_out() {
        let l = Limits::new(
            RateConfig {
                pair_failures: 3,
                slow_after: 5,
                ..RateConfig::default()
            },
            None,
        );
        for _ in 0..3 {
            l.before_sign_in("6.6.6.6", "login:a").await.unwrap();
            l.failed("6.6.6.6", "login:a").await;
        }
        assert!(l.before_sign_in("6.6.6.6", "login:a").await.is_err());
        // The same attacker on another account, and the owner from elsewhere: not limited.
        l.before_sign_in("6.6.6.6", "login:b").await.unwrap();
        l.before_sign_in("1.2.3.4", "login:a").await.unwrap();
        // Past the account's ceiling (from many addresses): slowed, never refused.
        for i in 0..5 {
            l.failed(&format!("7.7.7.{i}"), "login:a").await;
        }
        let t = std::time::Instant::now();
        l.before_sign_in("1.2.3.4", "login:a").await.unwrap();
        assert!(t.elapsed() >= SLOW_DOWN);
        // Success clears that address's failures only.
        l.succeeded("6.6.6.6", "login:a").await;
        l.before_sign_in("6.6.6.6", "login:a").await.unwrap();
    }
}
