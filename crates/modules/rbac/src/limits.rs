//! Rate limits on credential endpoints, checked before any hashing: a burst per client IP and an
//! hourly budget per account (email, wallet address or identity). Both answer 429 with
//! `Retry-After` and lift by themselves.

use std::time::Duration;

use stoa_api::rate::Keyed;
use stoa_kernel::Result;

#[derive(Clone, Copy, Debug)]
pub struct RateConfig {
    /// Requests a client IP may make to credential endpoints in `ip_window`.
    pub ip_burst: u32,
    pub ip_window: Duration,
    /// Attempts per account per hour.
    pub account_per_hour: u32,
}

impl Default for RateConfig {
    fn default() -> Self {
        Self {
            ip_burst: 10,
            ip_window: Duration::from_secs(60),
            account_per_hour: 100,
        }
    }
}

pub struct Limits {
    ip: Keyed,
    account: Keyed,
}

impl Limits {
    pub fn new(c: RateConfig) -> Self {
        Self {
            ip: Keyed::new(c.ip_burst, c.ip_window, "ip"),
            account: Keyed::new(c.account_per_hour, Duration::from_secs(3600), "account"),
        }
    }

    /// One credential request from `ip`.
    pub fn ip(&self, ip: &str) -> Result<()> {
        self.ip.check(ip)
    }

    /// One attempt on `account`.
    pub fn account(&self, account: &str) -> Result<()> {
        self.account.check(account)
    }

    /// Drops idle keys (called now and then so the maps stay small).
    pub fn prune(&self) {
        self.ip.prune();
        self.account.prune();
    }
}
